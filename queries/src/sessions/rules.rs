//! The seed's constants and built-in sets for session impact.
//!
//! Owns: `DAYS`, `PRE_MIN`, `POST_MIN`, `MIN_CALLS`, `OUTSIDE_P`, `MIN_P`, `LINK_OPTION`,
//! the built-in agent trailers (harness → regexes over trailer lines, keyed on the agent's
//! email) and the built-in write tools. `SCAN_MARGIN` and `DEFAULT_BRANCHES` belong to the
//! scan and live in `keel_engine::sessions::scan`.
//! Does not own: applying them (the other modules of `sessions`).

/// Default scope in days (`--days`, `[sessions] days`).
pub const DAYS: u32 = 30;
/// Minutes a window opens before a session starts.
pub const PRE_MIN: i64 = 5;
/// Minutes a window stays open after a session ends.
pub const POST_MIN: i64 = 30;
/// Sessions with at least this many API calls come first in L-assign.
pub const MIN_CALLS: u64 = 10;
/// `link_p` of a session linked from outside the repository (L-outside), as a decimal.
pub const OUTSIDE_P: &str = "0.9";
/// A decided window link is kept when its probability is at least this.
pub const MIN_P: &str = "0.5";
/// The decision option whose probability is `link_p`.
pub const LINK_OPTION: &str = "yes";
/// The options of the `commit_link` question.
pub const LINK_OPTIONS: [&str; 2] = ["yes", "no"];

/// Built-in agent trailers: harness id → case-insensitive regexes over one trailer line
/// (`Key: value`). Keyed on the agent's email: agents put model names in display names.
pub const AGENT_TRAILERS: &[(&str, &[&str])] = &[
    (
        "claude-code",
        &[r"^co-authored-by:.*noreply@anthropic\.com"],
    ),
    ("codex", &[r"^co-authored-by:.*noreply@openai\.com"]),
    (
        "cursor",
        &[
            r"^co-authored-by:.*cursoragent@cursor\.com",
            r"^made-with:\s*cursor",
        ],
    ),
    ("aider", &[r"^co-authored-by:.*noreply@aider\.chat"]),
    (
        "copilot",
        &[r"^co-authored-by:.*copilot@users\.noreply\.github\.com"],
    ),
];

/// Built-in write tools: tools that can edit files or run `git commit` (shell tools count).
/// Names compare exactly (case-sensitive), as harness logs spell them.
pub const WRITE_TOOLS: &[&str] = &[
    // Claude Code
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Bash",
    // Codex
    "apply_patch",
    "exec_command",
    "shell",
    "shell_command",
    // Gemini CLI
    "write_file",
    "replace",
    "run_shell_command",
    // Cursor agent
    "edit_file",
    "search_replace",
    "run_terminal_cmd",
    "delete_file",
    // OpenCode and others with lower-case tool names
    "write",
    "edit",
    "patch",
    "bash",
];
