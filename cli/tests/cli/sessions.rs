//! End-to-end `keel sessions`: the seed's worked example L-ex in its three passes (numbers
//! checked by hand, then pinned as snapshots), the round trip with an external decider,
//! and bad input (one line, exit 2, nothing written; warnings for missing optional
//! fields).

use crate::support::{Run, run, snapshot_settings};
use keel_fixtures::FIXTURE_EMAIL;
use keel_fixtures::sessions::{LEX_NOW, Lex, at, decision_line, lines, message};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `keel ARGS` in `cwd` (hermetic, see `support::keel`); fails if keel panicked.
fn keel(cwd: &Path, args: &[&str]) -> Run {
    let run = run(cwd, args);
    run.assert_no_panic();
    run
}

/// Compares `text` with `snapshots/<name>.snap`.
fn snapshot(name: &str, text: &str) {
    snapshot_settings().bind(|| insta::assert_snapshot!(name, text));
}

/// `keel sessions` on L-ex with `decisions` (none when empty) in `format`.
fn lex_run(lex: &Lex, decisions: &[String], format: &str) -> Run {
    let sessions = lex.sessions.display().to_string();
    let decisions_path = lex.dir.path().join("decisions.jsonl");
    let mut args = vec![
        "sessions",
        "--sessions",
        sessions.as_str(),
        "--now",
        LEX_NOW,
        "--format",
        format,
    ];
    let decisions_arg = decisions_path.display().to_string();
    if !decisions.is_empty() {
        let text: String = decisions.iter().map(|d| format!("{d}\n")).collect();
        std::fs::write(&decisions_path, text).expect("write decisions");
        args.extend(["--decisions", decisions_arg.as_str()]);
    }
    keel(lex.dir.path(), &args)
}

/// L-subject by hand: sha256 of the sorted shas joined by commas, first 8 hex digits.
fn hand_subject(session: &str, shas: &[&str]) -> String {
    let mut shas = shas.to_vec();
    shas.sort_unstable();
    let digest = Sha256::digest(shas.join(",").as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{session}:{hex}")
}

fn record<'v>(report: &'v Value, session: &str) -> Option<&'v Value> {
    report["records"]
        .as_array()
        .expect("records is a list")
        .iter()
        .find(|r| r["session_id"] == session)
}

#[test]
fn lex_pass_1_no_decision() {
    let lex = Lex::build().expect("L-ex builds");
    let run = lex_run(&lex, &[], "json");
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    // The seed's numbers, by hand.
    assert_eq!(report["schema"], "keel.sessions.v1");
    let a = record(&report, "a").expect("a");
    assert_eq!(a["link"], "trailer");
    assert_eq!(a["link_p"], 1.0);
    assert_eq!(a["added"], 15);
    assert_eq!(a["commits_kept"], 1);
    assert_eq!(a["commits_reverted"], 1);
    let mut c1c2 = vec![lex.commits[0].clone(), lex.commits[1].clone()];
    c1c2.sort();
    assert_eq!(a["commits"], serde_json::json!(c1c2));
    let b = record(&report, "b").expect("b");
    assert_eq!(
        (b["link"].as_str(), b["link_p"].is_null()),
        (Some("window"), true)
    );
    assert_eq!(b["commits"], serde_json::json!([lex.commits[3]]));
    let summary = &report["summary"];
    assert_eq!(summary["sessions_total"], 3);
    assert_eq!(summary["linked"], 1);
    assert_eq!(summary["unlinked_cost"], 1.5);
    let group = &summary["by_repo"]["lex"];
    assert_eq!(group["cost"], 2.0);
    assert_eq!(group["lines_added"], 10);
    assert_eq!(group["cost_per_kept_commit"], 2.0);
    assert_eq!(group["cost_per_100_lines"], 20.0);
    assert_eq!(group["revert_rate"], 0.5);
    let pending = &report["pending"][0];
    assert_eq!(pending["subject"], hand_subject("b", &[&lex.commits[3]]));
    assert_eq!(pending["options"], serde_json::json!(["yes", "no"]));
    snapshot("sessions_lex_pass1_json", &run.render(None));
    snapshot(
        "sessions_lex_pass1_text",
        &lex_run(&lex, &[], "text").render(None),
    );
}

#[test]
fn lex_pass_2_b_decided_yes_0_8() {
    let lex = Lex::build().expect("L-ex builds");
    let subject = hand_subject("b", &[&lex.commits[3]]);
    let decision = decision_line("2026-01-15T23:00:00Z", &subject, "0.8");
    let run = lex_run(&lex, std::slice::from_ref(&decision), "json");
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    let summary = &report["summary"];
    assert_eq!(summary["linked"], 2);
    assert_eq!(summary["by_repo"]["lex"]["cost"], 3.0);
    assert_eq!(summary["by_repo"]["lex"]["lines_added"], 17);
    assert_eq!(summary["unlinked_cost"], 0.5);
    assert_eq!(record(&report, "b").expect("b")["link_p"], 0.8);
    assert_eq!(report["pending"], serde_json::json!([]));
    snapshot("sessions_lex_pass2_json", &run.render(None));
    snapshot(
        "sessions_lex_pass2_text",
        &lex_run(&lex, &[decision], "text").render(None),
    );
}

#[test]
fn lex_pass_3_b_decided_yes_0_3() {
    let lex = Lex::build().expect("L-ex builds");
    let subject = hand_subject("b", &[&lex.commits[3]]);
    let decision = decision_line("2026-01-15T23:00:00Z", &subject, "0.3");
    let run = lex_run(&lex, std::slice::from_ref(&decision), "json");
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    assert!(record(&report, "b").is_none(), "b is dropped");
    assert_eq!(report["summary"]["linked"], 1);
    assert_eq!(report["summary"]["unlinked_cost"], 1.5);
    snapshot("sessions_lex_pass3_json", &run.render(None));
    snapshot(
        "sessions_lex_pass3_text",
        &lex_run(&lex, &[decision], "text").render(None),
    );
}

#[test]
fn round_trip_with_an_external_decider() {
    let mut lex = Lex::build().expect("L-ex builds");
    let first = lex_run(&lex, &[], "json").json();
    let pending = &first["pending"][0];
    let subject = pending["subject"].as_str().expect("a subject").to_owned();
    assert_eq!(pending["session_id"], "b");
    // The decider answers the question it was given.
    let answer = decision_line("2026-01-15T23:30:00Z", &subject, "0.9");
    let second = lex_run(&lex, std::slice::from_ref(&answer), "json").json();
    let b = record(&second, "b").expect("b is linked now");
    assert_eq!(b["link_p"], 0.9);
    assert_eq!(second["pending"], serde_json::json!([]));
    // A new local commit in b's window changes b's commit set: the old answer no longer
    // applies and a new question is asked.
    lex.repo.write("f.txt", &lines("f", 2)).expect("write");
    let c7 = lex
        .repo
        .commit_at(&message("c7", None), FIXTURE_EMAIL, at(14, 25), at(14, 25))
        .expect("commit");
    let third = lex_run(&lex, &[answer], "json").json();
    let b = record(&third, "b").expect("b has a record");
    assert!(b["link_p"].is_null(), "pending again: {b}");
    let new_subject = third["pending"][0]["subject"].as_str().expect("a subject");
    assert_ne!(new_subject, subject);
    assert_eq!(new_subject, hand_subject("b", &[&lex.commits[3], &c7]));
}

/// Every path and file content under `root`.
fn listing(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("list").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path.clone());
                out.insert(path, Vec::new());
            } else {
                let content = if path.components().any(|c| c.as_os_str() == ".git") {
                    Vec::new()
                } else {
                    std::fs::read(&path).expect("read")
                };
                out.insert(path, content);
            }
        }
    }
    out
}

const GOOD: &str = r#"{"session_id":"a","harness":"codex","start":"2026-01-15T10:00:00Z","end":"2026-01-15T11:00:00Z","repo":null,"project":null,"cost":{"total":1},"api_calls":3,"tools":{}}"#;

/// Runs `keel sessions` on `sessions` text plus `extra` flags; asserts the refusal
/// contract and returns stderr.
fn refused(sessions: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("sessions.jsonl");
    std::fs::write(&file, sessions).expect("write");
    let before = listing(dir.path());
    let mut args = vec!["sessions", "--sessions", "sessions.jsonl"];
    if !extra.contains(&"--now") {
        args.extend(["--now", LEX_NOW]);
    }
    args.extend_from_slice(extra);
    let run = keel(dir.path(), &args);
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert_eq!(run.stdout, "", "nothing on stdout");
    assert_eq!(run.stderr.lines().count(), 1, "one line: {}", run.stderr);
    assert!(run.stderr.contains("repair:"), "{}", run.stderr);
    assert_eq!(listing(dir.path()), before, "nothing written");
    run.stderr
}

#[test]
fn bad_input_is_one_line_exit_2_nothing_written() {
    let err = refused(&format!("{GOOD}\n{{\"session_id\": \"b\",\n"), &[]);
    assert!(
        err.starts_with("error: sessions.jsonl:2: line: not valid JSON"),
        "{err}"
    );
    let err = refused(&GOOD.replace(r#""harness":"codex","#, ""), &[]);
    assert!(
        err.starts_with("error: sessions.jsonl:1: harness: required field is missing"),
        "{err}"
    );
    let err = refused(&GOOD.replace("T11:00:00Z", "T09:00:00Z"), &[]);
    assert!(
        err.starts_with("error: sessions.jsonl:1: end: end 2026-01-15T09:00:00Z is before start"),
        "{err}"
    );
    let err = refused(&format!("{GOOD}\n\n{GOOD}\n"), &[]);
    assert!(
        err.starts_with("error: sessions.jsonl:3: session_id: \"a\" already appears on line 1"),
        "{err}"
    );
    let err = refused(GOOD, &["--repo", "no/such/repo"]);
    assert!(
        err.starts_with("error: --repo: repo: no/such/repo: cannot read it"),
        "{err}"
    );
    let err = refused(GOOD, &["--now", "yesterday"]);
    assert!(err.starts_with("error: --now: "), "{err}");
    let err = refused(GOOD, &["--decisions", "missing.jsonl"]);
    assert!(
        err.starts_with("error: missing.jsonl: file: cannot read it"),
        "{err}"
    );
}

#[test]
fn a_missing_optional_field_is_a_warning_naming_its_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let line = GOOD.replace(r#","api_calls":3"#, "");
    std::fs::write(
        dir.path().join("s.jsonl"),
        format!("{GOOD}\n{}\n", line.replace("\"a\"", "\"b\"")),
    )
    .expect("write");
    let run = keel(
        dir.path(),
        &[
            "sessions",
            "--sessions",
            "s.jsonl",
            "--now",
            LEX_NOW,
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(
        run.stderr,
        "warning: s.jsonl:2: api_calls: optional field is missing; counted as 0\n"
    );
    assert_eq!(run.json()["summary"]["sessions_total"], 2);
}

#[test]
fn keel_toml_trailers_override_the_built_ins_and_repos_are_read() {
    let lex = Lex::build().expect("L-ex builds");
    let root = lex.root();
    std::fs::write(
        root.join("keel.toml"),
        "[sessions]\nrepos = [\".\"]\n[trailers]\nclaude-code = '^co-authored-by:.*nobody@example\\.com'\n",
    )
    .expect("write keel.toml");
    let sessions = lex.sessions.display().to_string();
    let run = keel(
        &root,
        &[
            "sessions",
            "--sessions",
            &sessions,
            "--now",
            LEX_NOW,
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    // Claude's trailer no longer matches: c1 and c2 are plain local commits in a's window.
    let a = record(&report, "a").expect("a has a window record");
    assert_eq!(a["link"], "window");
    let mut c1c2 = vec![lex.commits[0].clone(), lex.commits[1].clone()];
    c1c2.sort();
    assert_eq!(a["commits"], serde_json::json!(c1c2));
    assert_eq!(report["summary"]["linked"], 0);
    assert_eq!(report["pending"].as_array().map(Vec::len), Some(2));

    std::fs::write(root.join("keel.toml"), "[trailers]\nbot = '('\n").expect("write");
    let run = keel(
        &root,
        &["sessions", "--sessions", &sessions, "--now", LEX_NOW],
    );
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert!(
        run.stderr
            .starts_with("error: keel.toml:2: settings: [trailers] bot: not a valid regex ("),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}
