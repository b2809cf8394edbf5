//! `--error-format json`: a failure is one `keel.error.v1` line on stderr whose `code`
//! names the kind of refusal and whose `kind` decides the exit status (user and input
//! 2, internal 101), with the same message and repair the text line gives.

use crate::support::{keel, repo_with_spec, run};

/// The one JSON line a failed run printed on stderr.
fn error_line(stderr: &str) -> serde_json::Value {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    serde_json::from_str(lines[0]).expect("the line is JSON")
}

#[test]
fn a_refused_spec_reports_its_code_and_the_text_lines_words() {
    let repo = repo_with_spec(b"---\ncode: [\n---\n");
    let path = repo.path().display().to_string();
    let text = run(repo.path(), &["lint", "--repo", &path]);
    let json = run(
        repo.path(),
        &["lint", "--repo", &path, "--error-format", "json"],
    );
    assert_eq!((text.code, json.code), (2, 2));
    let line = error_line(&json.stderr);
    assert_eq!(line["schema"], "keel.error.v1");
    assert_eq!(line["kind"], "input");
    assert_eq!(line["code"], "bad-spec");
    let repair = line["repair"]
        .as_str()
        .expect("a spec refusal has a repair");
    let message = line["message"].as_str().expect("a message");
    assert!(message.starts_with(".spec/app/spec.md:"), "{message}");
    assert_eq!(
        text.stderr.trim_end(),
        format!("error: {message}; repair: {repair}"),
        "the JSON line carries the text line's words"
    );
}

#[test]
fn each_reader_refuses_with_its_own_code() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cases = [
        ("not json\n", "bad-jsonl-line"),
        (
            "{\"session_id\":\"a\",\"harness\":\"h\",\"start\":\"2026-01-15T10:00:00Z\",\"end\":\"2026-01-15T09:00:00Z\"}\n",
            "bad-sessions-input",
        ),
    ];
    for (content, code) in cases {
        std::fs::write(dir.path().join("sessions.jsonl"), content).expect("write");
        let json = run(
            dir.path(),
            &[
                "sessions",
                "--sessions",
                "sessions.jsonl",
                "--error-format",
                "json",
            ],
        );
        assert_eq!(json.code, 2, "{}", json.stderr);
        let line = error_line(&json.stderr);
        assert_eq!(
            (line["kind"].as_str(), line["code"].as_str()),
            (Some("input"), Some(code)),
            "{content}"
        );
    }
}

#[test]
fn a_broken_keel_toml_beside_the_sessions_is_a_settings_refusal() {
    let repo = keel_fixtures::FixtureRepo::new().expect("a fixture repository");
    std::fs::write(repo.path().join("keel.toml"), "[sessions]\ndays = \"x\"\n").expect("write");
    std::fs::write(
        repo.path().join("sessions.jsonl"),
        "{\"session_id\":\"a\",\"harness\":\"h\",\"start\":\"2026-01-15T10:00:00Z\",\"end\":\"2026-01-15T11:00:00Z\"}\n",
    )
    .expect("write");
    let json = run(
        repo.path(),
        &[
            "sessions",
            "--sessions",
            "sessions.jsonl",
            "--error-format",
            "json",
        ],
    );
    assert_eq!(json.code, 2, "{}", json.stderr);
    let line = error_line(json.stderr.lines().last().unwrap_or_default());
    assert_eq!(line["code"], "bad-settings");
    assert!(
        line["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("keel.toml:2: ")),
        "{line}"
    );
}

#[test]
fn bad_usage_is_a_user_error_in_json_too() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let missing = dir.path().join("missing").display().to_string();
    let json = run(
        dir.path(),
        &["lint", "--repo", &missing, "--error-format=json"],
    );
    assert_eq!(json.code, 2);
    let line = error_line(&json.stderr);
    assert_eq!(
        (line["kind"].as_str(), line["code"].as_str()),
        (Some("user"), Some("no-such-path"))
    );
    let flag = run(dir.path(), &["lint", "--bogus", "--error-format", "json"]);
    assert_eq!(flag.code, 2);
    assert_eq!(error_line(&flag.stderr)["code"], "usage");
}

#[test]
fn keels_own_failure_exits_101_not_2() {
    // The demo builds its repository with git; without git on PATH that is keel's (or
    // its machine's) failure, never the user's input.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let output = keel(dir.path())
        .args(["demo", "--error-format", "json"])
        .env("PATH", "")
        .output()
        .expect("the keel binary runs");
    assert_eq!(output.status.code(), Some(101));
    let line = error_line(&String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        (line["kind"].as_str(), line["code"].as_str()),
        (Some("internal"), Some("demo-failed"))
    );
}
