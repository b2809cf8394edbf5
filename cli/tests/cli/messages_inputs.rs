//! The input-side messages (issue #13 item 3), each pinned as a snapshot of what keel
//! prints: a byte order mark at the start of every JSONL input is accepted; `--repo`
//! naming a file is refused as a file and a subfolder finds its repository (lint) or is
//! named inside it (sessions); a branch with no commits yet is named with its repair;
//! `--days` below 0 and `--now` outside keel's range say so in words; a decision without
//! `yes` or whose probabilities do not sum to 1 is read as the seed says, with one warning;
//! a relative `repo` in sessions.jsonl is read from that file's folder, with a warning when
//! it names nothing.
//!
//! Every refusal is checked against the contract: exit 2, one `error:` line with a
//! `repair:`, nothing on stdout, nothing written.

use crate::support::{Run, listing, redact_path, run, snapshot_settings};
use keel_fixtures::sessions::{LEX_NOW, SessionLine, at, message, rfc, session_repo};
use keel_fixtures::{FIXTURE_EMAIL, FixtureRepo};
use std::path::Path;

/// A UTF-8 byte order mark.
const BOM: &str = "\u{feff}";

/// `keel ARGS` in `cwd`, failing if keel panicked.
fn keel(cwd: &Path, args: &[&str]) -> Run {
    let run = run(cwd, args);
    run.assert_no_panic();
    run
}

/// One command and what it printed, `root` shown as `[DIR]`, then a blank line.
fn block(args: &[&str], run: &Run, root: &Path) -> String {
    let command = redact_path(&format!("$ keel {}\n", args.join(" ")), root);
    format!("{command}{}\n", run.render(Some(root))).replace("[REPO]", "[DIR]")
}

/// Compares `text` with `snapshots/<name>.snap`.
fn snapshot(name: &str, text: &str) {
    let mut settings = snapshot_settings();
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Runs `keel ARGS` in `cwd`, checks the refusal contract (exit 2, one `error:` line with
/// a `repair:`, nothing on stdout, nothing written under `cwd`) and returns its block.
fn refused(cwd: &Path, args: &[&str]) -> String {
    let before = listing(cwd);
    let run = keel(cwd, args);
    assert_eq!(run.code, 2, "{}", run.render(Some(cwd)));
    assert!(run.stdout.is_empty(), "nothing on stdout: {}", run.stdout);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", run.stderr);
    assert!(lines[0].contains("; repair: "), "{}", run.stderr);
    assert_eq!(listing(cwd), before, "keel wrote something");
    block(args, &run, cwd)
}

/// Runs `keel ARGS` in `cwd`, which must exit 0; returns its block.
fn clean(cwd: &Path, args: &[&str]) -> (Run, String) {
    let run = keel(cwd, args);
    assert_eq!(run.code, 0, "{}", run.render(Some(cwd)));
    let text = block(args, &run, cwd);
    (run, text)
}

/// A repository whose one commit holds `app.py` and `src/lib.py`.
fn small_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", "def f():\n    return 1\n")
        .and_then(|r| r.write("src/lib.py", "def g():\n    return 2\n"))
        .expect("write");
    repo.commit("Add app").expect("commit");
    repo
}

/// A temporary folder holding `sessions.jsonl` with one session, `s1`, in no repository.
fn one_session_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("sessions.jsonl"),
        format!("{}\n", session("s1", None)),
    )
    .expect("write");
    dir
}

/// A session of codex from 10:00 to 11:00 on L-ex's day in `repo` (as written; `None`:
/// null).
fn session(id: &str, repo: Option<&str>) -> String {
    let line = SessionLine::new(id, "codex", &rfc(10, 0), &rfc(11, 0), None).json();
    match repo {
        Some(repo) => line.replace("\"repo\":null", &format!("\"repo\":{repo:?}")),
        None => line,
    }
}

#[test]
fn a_byte_order_mark_starts_every_jsonl_input_unharmed() {
    let repo = small_repo();
    let head = repo.git(&["rev-parse", "HEAD"]).expect("HEAD");
    let head = head.trim();
    let root = repo.path();
    let write = |name: &Path, text: String| std::fs::write(name, text).expect("write");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let here = dir.path();
    write(
        &here.join("sessions.jsonl"),
        format!("{BOM}{}\n", session("s1", None)),
    );
    write(
        &here.join("decisions.jsonl"),
        format!(
            "{BOM}{{\"ts\":\"2026-01-15T12:00:00Z\",\"point\":\"commit_link\",\"subject\":\"s1:0123abcd\",\"probabilities\":{{\"yes\":0.8,\"no\":0.2}}}}\n"
        ),
    );
    write(
        &here.join("readings.jsonl"),
        format!("{BOM}{{\"id\":\"eval-1\",\"commit\":\"{head}\",\"code\":[\"app.py#f\"]}}\n"),
    );
    std::fs::create_dir_all(here.join("claude/proj")).expect("mkdir");
    write(
        &here.join("claude/proj/c1.jsonl"),
        format!(
            "{BOM}{{\"type\":\"user\",\"sessionId\":\"c1\",\"uuid\":\"u1\",\"timestamp\":\"2026-01-15T10:00:00Z\",\"cwd\":\"/home/dev/proj\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
        ),
    );
    let repo_arg = root.display().to_string();
    let runs: [&[&str]; 3] = [
        &[
            "sessions",
            "--sessions",
            "sessions.jsonl",
            "--decisions",
            "decisions.jsonl",
            "--now",
            LEX_NOW,
        ],
        &["fresh", "readings.jsonl", "--repo", &repo_arg],
        &["sessions", "export", "--claude-dir", "claude"],
    ];
    let mut text = String::new();
    for args in runs {
        let (run, block) = clean(here, args);
        assert!(run.stderr.is_empty(), "no warning: {}", run.stderr);
        text.push_str(&block.replace(head, "[HEAD]"));
    }
    snapshot("messages_inputs_bom", &redact_path(&text, root));
}

#[test]
fn a_repo_flag_naming_a_file_is_refused_as_a_file_and_a_subfolder_finds_its_repository() {
    let repo = small_repo();
    let root = repo.path();
    let sessions = root.join(".git/sessions-for-test.jsonl");
    std::fs::write(&sessions, format!("{}\n", session("s1", None))).expect("write");
    let sessions = sessions.display().to_string();
    let mut text = refused(root, &["lint", "--repo", "app.py"]);
    text.push_str(&refused(root, &["lint", "--repo", "src/lib.py"]));
    text.push_str(&refused(root, &["callgraph", "--repo", "app.py"]));
    let (run, lint_sub) = clean(root, &["lint", "--repo", "src"]);
    assert!(run.stdout.starts_with("keel lint at "), "{}", run.stdout);
    text.push_str(&lint_sub);
    text.push_str(&refused(
        root,
        &[
            "sessions",
            "--sessions",
            &sessions,
            "--repo",
            "app.py",
            "--now",
            LEX_NOW,
        ],
    ));
    let (run, sessions_sub) = clean(
        root,
        &[
            "sessions",
            "--sessions",
            &sessions,
            "--repo",
            "src",
            "--now",
            LEX_NOW,
        ],
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("name that folder instead"),
        "{}",
        run.stderr
    );
    text.push_str(&sessions_sub);
    snapshot("messages_inputs_repo_file", &text);
}

#[test]
fn a_branch_with_no_commits_yet_is_named_with_its_repair() {
    let repo = small_repo();
    repo.git(&["checkout", "--quiet", "--orphan", "fresh"])
        .expect("an orphan branch");
    let root = repo.path();
    let (run, mut text) = clean(root, &["lint"]);
    assert!(
        run.stdout.contains("`fresh` has no commits yet"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("--rev main"), "{}", run.stdout);
    assert!(!run.stdout.contains("the repository has no commits"));
    text.push_str(&refused(root, &["lint", "--rev", "HEAD"]));
    text.push_str(&refused(root, &["lint", "--rev", "HEAD~1"]));
    text.push_str(&refused(root, &["replay", "--last", "1"]));
    let (run, _) = clean(root, &["lint", "--rev", "main", "--format", "json"]);
    assert!(run.json()["tip"].is_string(), "main still judges");

    let empty = FixtureRepo::new().expect("a fixture repository");
    let (run, empty_lint) = clean(empty.path(), &["lint"]);
    assert_eq!(
        run.stdout,
        "keel lint: the repository has no commits; nothing to judge\n"
    );
    text.push_str(&empty_lint);
    let no_commits = refused(empty.path(), &["lint", "--rev", "HEAD"]);
    assert!(
        no_commits.contains("repair: commit first\n"),
        "{no_commits}"
    );
    text.push_str(&no_commits);
    snapshot("messages_inputs_unborn", &text);
}

#[test]
fn days_below_zero_say_so_however_the_flag_is_written() {
    let dir = one_session_folder();
    let here = dir.path();
    let base = ["sessions", "--sessions", "sessions.jsonl", "--now", LEX_NOW];
    let mut text = String::new();
    for days in [
        ["--days", "-1"].as_slice(),
        &["--days=-1"],
        &["--days", "-30"],
    ] {
        let args = [base.as_slice(), days].concat();
        let block = refused(here, &args);
        assert!(block.contains("must be ≥ 0"), "{block}");
        text.push_str(&block);
    }
    let (_, zero) = clean(here, &[base.as_slice(), &["--days", "0"]].concat());
    text.push_str(&zero);
    snapshot("messages_inputs_days", &text);
}

#[test]
fn now_outside_keel_s_range_names_the_range_in_words() {
    let dir = one_session_folder();
    let here = dir.path();
    let base = ["sessions", "--sessions", "sessions.jsonl"];
    let mut text = String::new();
    let nows: [&[&str]; 5] = [
        &["--now", "99999-01-01T00:00:00Z"],
        &["--now", "-009999-01-01T00:00:00Z"],
        &["--now=-009999-01-01T00:00:00Z"],
        &["--now", "9999-12-31T23:59:59Z"],
        &["--now", "2026-13-01T00:00:00Z"],
    ];
    for now in nows {
        let block = refused(here, &[base.as_slice(), now].concat());
        assert!(
            block.contains("between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z"),
            "{block}"
        );
        for internal in ["jiff", "parameter", "unexpected argument"] {
            assert!(!block.contains(internal), "{block}");
        }
        text.push_str(&block);
    }
    snapshot("messages_inputs_now", &text);
}

/// A folder holding the repository `app` (one window commit at 10:30 by a local author,
/// no trailer) and `logs/sessions.jsonl`, whose `repo`s are written relative to `logs/`.
struct Linked {
    dir: tempfile::TempDir,
}

impl Linked {
    fn new(sessions: &[String]) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut repo = session_repo(dir.path(), "app").expect("a repository");
        repo.write("app.py", "def f():\n    return 1\n")
            .expect("write");
        repo.commit_at(
            &message("Edit app", None),
            FIXTURE_EMAIL,
            at(10, 30),
            at(10, 30),
        )
        .expect("commit");
        std::fs::create_dir_all(dir.path().join("logs")).expect("mkdir");
        let text: String = sessions.iter().map(|s| format!("{s}\n")).collect();
        std::fs::write(dir.path().join("logs/sessions.jsonl"), text).expect("write");
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `keel sessions` from the folder holding `app` and `logs/`, with `extra` flags.
    fn run(&self, extra: &[&str]) -> (Run, String) {
        let base = [
            "sessions",
            "--sessions",
            "logs/sessions.jsonl",
            "--now",
            LEX_NOW,
        ];
        clean(self.path(), &[base.as_slice(), extra].concat())
    }

    /// The subject of the one pending question.
    fn pending_subject(&self) -> String {
        let (run, _) = self.run(&["--format", "json"]);
        let report = run.json();
        assert_eq!(
            report["pending"].as_array().map(Vec::len),
            Some(1),
            "{report}"
        );
        report["pending"][0]["subject"]
            .as_str()
            .expect("a subject")
            .to_owned()
    }

    /// Writes `logs/decisions.jsonl`: one decision for `subject` per `probabilities`.
    fn decide(&self, subject: &str, probabilities: &[&str]) {
        let text: String = probabilities
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "{{\"ts\":\"2026-01-15T2{i}:00:00Z\",\"point\":\"commit_link\",\"subject\":\"{subject}\",\"probabilities\":{p}}}\n"
                )
            })
            .collect();
        std::fs::write(self.path().join("logs/decisions.jsonl"), text).expect("write");
    }
}

#[test]
fn a_decision_without_yes_or_not_summing_to_1_is_read_as_the_seed_says_with_a_warning() {
    let case = Linked::new(&[session("a", Some("../app"))]);
    let subject = case.pending_subject();
    let decisions = ["--decisions", "logs/decisions.jsonl"];
    let mut text = String::new();

    // The later decision wins; without `yes` it is p = 0, below MIN_P: the link is dropped.
    case.decide(&subject, &[r#"{"yes":0.9,"no":0.1}"#, r#"{"no":1}"#]);
    let (run, block) = case.run(&[decisions.as_slice(), &["--format", "json"]].concat());
    let report = run.json();
    assert_eq!(report["records"], serde_json::json!([]), "{report}");
    assert_eq!(report["pending"], serde_json::json!([]), "{report}");
    assert_eq!(
        run.stderr,
        "warning: logs/decisions.jsonl:2: probabilities: no `yes`; read as yes = 0\n"
    );
    text.push_str(&block.replace(&subject, "[SUBJECT]"));

    // `yes` is read as written even when the probabilities sum to more than 1.
    case.decide(
        &subject,
        &[r#"{"yes":0.6,"no":0.6}"#, r#"{"yes":0.6,"no":0.4}"#, "{}"],
    );
    let (run, block) = case.run(&decisions);
    assert_eq!(
        run.stderr.lines().count(),
        2,
        "one line per decision: {}",
        run.stderr
    );
    assert!(
        run.stdout.contains("keel sessions: 1 in scope, 0 linked"),
        "{}",
        run.stdout
    );
    text.push_str(&block.replace(&subject, "[SUBJECT]"));
    case.decide(&subject, &[r#"{"yes":0.6,"no":0.6}"#]);
    let (run, block) = case.run(&[decisions.as_slice(), &["--format", "json"]].concat());
    assert_eq!(run.json()["records"][0]["link_p"], 0.6, "{}", run.stdout);
    text.push_str(&block.replace(&subject, "[SUBJECT]"));
    snapshot("messages_inputs_decisions", &text);
}

#[test]
fn a_relative_repo_is_read_from_the_sessions_file_s_folder_and_warned_when_missing() {
    // Run from the folder above logs/: read from the current folder instead, `../app`
    // would name a sibling of the temporary folder and `a` would find no commit.
    let case = Linked::new(&[session("a", Some("../app")), session("b", Some("../gone"))]);
    let (run, text) = case.run(&[]);
    assert!(run.stdout.contains("pending: 1 question"), "{}", run.stdout);
    let warnings: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        warnings.len(),
        1,
        "named once, not again by the scan: {}",
        run.stderr
    );
    assert!(
        warnings[0].starts_with("warning: logs/sessions.jsonl:2: repo \"../gone\" "),
        "{}",
        run.stderr
    );
    snapshot("messages_inputs_relative_repo", &text);
}
