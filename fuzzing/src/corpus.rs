//! The seed corpus of each reader: what the repository's tests and fixtures already feed
//! it, plus a few hand-written inputs.
//!
//! Owns: which test sources and fixture files seed which reader (embedded at compile time,
//! so every engine — the short run, the bench, cargo-fuzz — starts from the same seeds),
//! the filter that keeps a source's string literals that look like the reader's format,
//! the hand-written seeds, and the shrunk inputs of crashes found (and fixed) before.
//! Does not own: lexing the literals ([`crate::literals`]) or mutating seeds
//! ([`crate::mutate`]).

use crate::literals::string_literals;
use keel_fixtures::sessions::{CLAUDE_TRAILER, CODEX_TRAILER, SessionLine, decision_line, message};
use std::collections::BTreeSet;

/// A test source whose string literals may seed a reader.
type Source = &'static str;

/// The seeds: the sources' literals `keep` accepts, the `extra` seeds, and the empty input,
/// deduplicated and in a fixed order.
fn seeds<'a>(
    sources: &[Source],
    keep: fn(&[u8]) -> bool,
    extra: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<Vec<u8>> {
    let mut all: BTreeSet<Vec<u8>> = sources
        .iter()
        .flat_map(|source| string_literals(source))
        .filter(|literal| keep(literal))
        .collect();
    all.extend(extra.into_iter().map(<[u8]>::to_vec));
    all.insert(Vec::new());
    all.into_iter().collect()
}

fn contains(text: &[u8], needle: &[u8]) -> bool {
    text.windows(needle.len()).any(|window| window == needle)
}

// The shrunk inputs of the crashes `fuzz-bench` found (refusals that echoed a line break
// and so spanned lines; patches read as an added or deleted file with no path, or with a
// hunk range past u32), all fixed since: seeds, so the short run checks them every time.

const FOUND_SPEC: [&[u8]; 8] = [
    b"---\n\"Co\\ne\":\n---",
    b"---\ncode:\n- y#,\n\n g\n---",
    b"---\ncode:\n- o//\n\n d\n---",
    b"---\ncode:\n- \"a#y\\nf\"\n---",
    b"---\ne:\ncode: [a\n\n\\]\nr:\n---",
    b"---\ncode:\n  - \"e\n\r/#\"\n  - t\n---",
    b"---\ncode:\n- y#f,\r\r f\n---",
    b"---\ncode:\n- \"y\\n#\"\n---",
];

const FOUND_SETTINGS: [&[u8]; 2] = [b"\"\\n\"={t=1}", b"[lint]\nscoped_code_miss=\"\\n\""];

const FOUND_DECISIONS: [&[u8]; 1] = [
    b"{\"ts\":\"2026-01-15T00Z\",\"point\":\"commit_link\",\"subject\":\"b:0123abcd\",\"probabilities\":{\"\\n\":4}}",
];

const FOUND_READINGS: [&[u8]; 4] = [
    b"{\"id\":\"x\",\"commit\":\"abcd\",\"code\":[\".\\ny#\",\"\"]}",
    b"{\"id\":\"x\",\"commit\":\"abcd\",\"code\":[\"y#\\n.\"]}",
    b"{\"id\":\"a\",\"commit\":\"1567\",\"code\":[\"p\\n\\\\\"],\"\":1}",
    b"{\"id\":\"x\",\"commit\":\"abcd\",\"code\":[\"y\\n#\",\"\"]}",
];

const FOUND_PATCH: [&[u8]; 3] = [
    b"diff --git \nrename from \nnew file mode",
    b"diff --git \nrename to \ndeleted file mode",
    b"--- \n+++ \n@@ -4294967295,2 +2 @@\n-\n-\n+",
];

const SPEC_HAND: [&[u8]; 4] = [
    b"---\ncode:\n  - src/auth/session.py#login,Session.refresh\n  - src/util/strings.ts\nrelated:\n  - web/api/client.ts#fetchUser\n---\n# Login\nProse keel does not read.\n",
    b"---\ncode: [src/a.py, \"src/**/*.py\", 'lib/']\nowner: me\n---\n",
    b"\xEF\xBB\xBF---\r\ncode:\r\n  - app/[slug]/page.tsx#Page\r\n---\r\n",
    b"---\nCode:\n  - a.py\nrelate: []\n---\n",
];

/// `spec.md` texts: the spec reader's tests, the CLI's bad-input tests, the lint property
/// tests.
pub fn spec() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../queries/src/spec/mod.rs"),
        include_str!("../../queries/src/spec/frontmatter.rs"),
        include_str!("../../cli/tests/cli/catalogue.rs"),
        include_str!("../../queries/tests/it/no_silent_pass.rs"),
        include_str!("../../fixtures/src/demo.rs"),
    ];
    seeds(
        &sources,
        |text| contains(text, b"---"),
        SPEC_HAND.into_iter().chain(FOUND_SPEC),
    )
}

const SETTINGS_HAND: [&[u8]; 3] = [
    b"[lint]\nscoped_code_miss = \"ignore\"\ngoverned_roots = [\"src\", \"lib\"]\n\n[sessions]\nrepos = [\"../other\"]\ndays = 7\n\n[trailers]\nmy-agent = \"^Agent: .+\"\n\n[impact]\ndepth = 2\nmax_bytes = 1000\nmax_nodes = 10\n",
    b"[prices]\n\"my-model\" = { input = 3, output = 15.5, cache_write_5m = 3.75, cache_write_1h = 6, cache_read = 0.3, fast_multiplier = 2, above_200k = { input = 6, output = 22.5 } }\n",
    b"[prices.\"m\"]\ninput = 1e2\noutput = 0.000001\n[prices.\"m\".above_200k]\ninput = 2\noutput = 3\n",
];

/// `keel.toml` texts: the settings tests and the tests that write a `keel.toml`.
pub fn settings() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../engine/src/settings.rs"),
        include_str!("../../cli/tests/cli/catalogue.rs"),
        include_str!("../../cli/tests/cli/impact.rs"),
        include_str!("../../queries/tests/it/drift.rs"),
    ];
    seeds(
        &sources,
        |text| contains(text, b" = "),
        SETTINGS_HAND.into_iter().chain(FOUND_SETTINGS),
    )
}

const SESSIONS_HAND: [&[u8]; 2] = [
    b"{\"session_id\":\"a\",\"harness\":\"claude-code\",\"start\":\"2026-01-15T10:00:00Z\",\"end\":\"2026-01-15T11:00:00+01:00\",\"repo\":\"/r\",\"project\":null,\"cost\":{\"total\":null},\"api_calls\":0,\"tools\":{\"Edit\":3,\"Bash\":0}}\n\n{\"session_id\":\"b\",\"harness\":\"codex\",\"start\":\"2026-01-15T10:00:00.5-05:00\",\"end\":\"2026-01-15T23:00:00Z\"}\r\n",
    b"\xEF\xBB\xBF{\"session_id\":\"c\",\"harness\":\"h\",\"start\":\"1970-01-01T00:00:00Z\",\"end\":\"2262-04-11T23:47:16Z\",\"cost\":{\"total\":0.0000001}}",
];

/// `sessions.jsonl` lines: the reader's tests, the CLI's sessions tests and the fixture
/// builder's lines.
pub fn sessions() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../engine/src/sessions/jsonl.rs"),
        include_str!("../../cli/tests/cli/sessions.rs"),
        include_str!("../../queries/src/sessions/tests.rs"),
    ];
    let built = [
        SessionLine::new(
            "s1",
            "claude-code",
            "2026-01-15T10:00:00Z",
            "2026-01-15T11:00:00Z",
            None,
        )
        .json(),
        SessionLine::new(
            "s2",
            "codex",
            "2026-01-15T10:00:00Z",
            "2026-01-15T10:30:00Z",
            None,
        )
        .cost("0.25")
        .calls(3)
        .tools(&[("Edit", 2), ("Bash", 1)])
        .project("web")
        .json(),
    ];
    let file = format!("{}\n{}\n", built[0], built[1]);
    seeds(
        &sources,
        |text| contains(text, b"session_id"),
        SESSIONS_HAND
            .into_iter()
            .chain([file.as_bytes(), built[0].as_bytes()]),
    )
}

/// `decisions.jsonl` lines: the reader's tests and the fixture builder's lines.
pub fn decisions() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../engine/src/sessions/jsonl.rs"),
        include_str!("../../cli/tests/cli/sessions.rs"),
        include_str!("../../queries/src/sessions/tests.rs"),
    ];
    let lines = [
        decision_line("2026-01-15T12:00:00Z", "s1:0123abcd", "0.9"),
        decision_line("2026-01-15T12:00:00+02:00", "s2:deadbeef", "0"),
        "{\"ts\":\"2026-01-15T12:00:00Z\",\"point\":\"other\"}".to_owned(),
    ];
    let file = lines.join("\n");
    seeds(
        &sources,
        |text| contains(text, b"commit_link") || contains(text, b"\"point\""),
        lines
            .iter()
            .map(String::as_bytes)
            .chain([file.as_bytes()])
            .chain(FOUND_DECISIONS),
    )
}

/// Claude Code session files: the fixture logs and the connector's tests.
pub fn claude() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../engine/src/agents/claude.rs"),
        include_str!("../../queries/tests/it/agent_logs.rs"),
        include_str!("../../queries/src/agents/claims.rs"),
    ];
    let files: [&[u8]; 4] = [
        include_bytes!("../../fixtures/agent-logs/claude/projects/-w-app/s1.jsonl"),
        include_bytes!("../../fixtures/agent-logs/claude/projects/-w-app/s2.jsonl"),
        include_bytes!("../../fixtures/agent-logs/claude/projects/-w-app/s3.jsonl"),
        include_bytes!(
            "../../fixtures/agent-logs/claude/projects/-w-app/s1/subagents/agent-x.jsonl"
        ),
    ];
    seeds(
        &sources,
        |text| contains(text, b"sessionId") || contains(text, b"\"assistant\""),
        files,
    )
}

/// Codex rollouts: the fixture logs and the connector's tests.
pub fn codex() -> Vec<Vec<u8>> {
    let sources = [include_str!("../../engine/src/agents/codex.rs")];
    let files: [&[u8]; 5] = [
        include_bytes!(
            "../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T14-00-00-cx1.jsonl"
        ),
        include_bytes!(
            "../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T14-10-00-cx2.jsonl"
        ),
        include_bytes!(
            "../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T15-00-00-cx3.jsonl"
        ),
        include_bytes!(
            "../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T16-00-00-cx4.jsonl"
        ),
        include_bytes!(
            "../../fixtures/agent-logs/codex/archived_sessions/rollout-2026-01-15T14-00-00-cx1.jsonl"
        ),
    ];
    seeds(&sources, |text| contains(text, b"payload"), files)
}

/// Gemini CLI chats: the connector's tests and the end-to-end fixtures built in code.
pub fn gemini() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../engine/src/agents/gemini.rs"),
        include_str!("../../cli/tests/cli/harness_logs.rs"),
    ];
    let none: [&[u8]; 0] = [];
    seeds(
        &sources,
        |text| contains(text, b"sessionId") || contains(text, b"\"tokens\""),
        none,
    )
}

/// OpenCode storage documents: the connector's tests and the end-to-end fixtures built
/// in code.
pub fn opencode() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../engine/src/agents/opencode.rs"),
        include_str!("../../cli/tests/cli/harness_logs.rs"),
    ];
    let none: [&[u8]; 0] = [];
    seeds(
        &sources,
        |text| contains(text, b"sessionID") || contains(text, b"modelID"),
        none,
    )
}

const PATCH_HAND: [&[u8]; 3] = [
    b"diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\n--- a/old.py\n+++ b/new.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
    b"--- a/m.py\t2026-01-01 00:00:00\n+++ b/m.py\t2026-01-01 00:00:01\n@@ -0,0 +1 @@\n+x\n@@ -3 +4,0 @@\n-y\n",
    b"diff --git a/gone.py b/gone.py\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
];

/// Unified diffs: the patch parser's tests and the impact tests.
pub fn patch() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../queries/src/impact/patch.rs"),
        include_str!("../../queries/src/impact/mod.rs"),
        include_str!("../../cli/tests/cli/impact.rs"),
        include_str!("../../queries/tests/it/impact_incremental.rs"),
    ];
    seeds(
        &sources,
        |text| contains(text, b"@@") || contains(text, b"--- "),
        PATCH_HAND.into_iter().chain(FOUND_PATCH),
    )
}

const TRAILERS_HAND: [&[u8]; 3] = [
    b"Subject\n\nBody.\n\nSpec-OK: auth/login\nCo-authored-by: A <a@x>\n  folded\n",
    b"Subject\r\n\r\nprose\r\nSigned-off-by: A <a@x>\r\n(cherry picked from commit abc)\r\n",
    b"S\n\n\tcontinued first\nKey :value\n",
];

/// Commit messages: the trailer reader's tests, the history and ack tests, and the
/// fixtures' agent trailers.
pub fn trailers() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../queries/src/trailers.rs"),
        include_str!("../../queries/src/history.rs"),
        include_str!("../../engine/src/ack.rs"),
        include_str!("../../cli/tests/cli/ack.rs"),
    ];
    let messages = [
        message("Fix login", Some(CLAUDE_TRAILER)),
        message("Fix logout", Some(CODEX_TRAILER)),
    ];
    seeds(
        &sources,
        |text| contains(text, b":") && contains(text, b"\n"),
        TRAILERS_HAND
            .into_iter()
            .chain(messages.iter().map(String::as_bytes)),
    )
}

const READINGS_HAND: [&[u8]; 2] = [
    b"{\"id\": \"eval-1\", \"commit\": \"0123456789abcdef0123456789abcdef01234567\", \"code\": [\"src/app.py#login\", \"src/util.py\"]}\n{\"id\": \"eval-2\", \"commit\": \"ABCD\", \"code\": [\"lib/\", \"src/**/*.py\"], \"extra\": 1}\n",
    b"\xEF\xBB\xBF\r\n{\"id\": \"x\", \"commit\": \"abcd\", \"code\": [\"a.py#f,C.m\", \"a.py#g\"]}\r\n",
];

/// `READINGS.jsonl` lines: the reader's tests and the CLI's fresh tests.
pub fn readings() -> Vec<Vec<u8>> {
    let sources = [
        include_str!("../../engine/src/readings.rs"),
        include_str!("../../cli/tests/cli/fresh.rs"),
    ];
    seeds(
        &sources,
        |text| contains(text, b"\"commit\""),
        READINGS_HAND.into_iter().chain(FOUND_READINGS),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reader_has_seeds_from_the_tests_and_the_empty_input() {
        for (name, corpus) in [
            ("spec", spec()),
            ("settings", settings()),
            ("sessions", sessions()),
            ("decisions", decisions()),
            ("claude", claude()),
            ("codex", codex()),
            ("patch", patch()),
            ("trailers", trailers()),
            ("readings", readings()),
        ] {
            assert!(corpus.len() >= 4, "{name}: {} seeds", corpus.len());
            assert!(corpus.contains(&Vec::new()), "{name}: no empty seed");
        }
    }
}
