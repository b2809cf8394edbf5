//! Exit codes of `keel lint` on repositories that do not block: warnings only, clean,
//! without specs, and without commits.

use crate::support::{APP_PY, lint, repo_with_spec, spec};
use keel_fixtures::FixtureRepo;

#[test]
fn a_repository_with_only_warnings_exits_zero_and_still_prints_the_warning() {
    let mut repo = repo_with_spec(spec(&["app.py"]).as_bytes());
    repo.write("app.py", &format!("{APP_PY}\n\ndef h():\n    return 2\n"))
        .expect("write");
    repo.commit("Add h").expect("commit");

    let text = lint(repo.path(), &[]);
    text.assert_no_panic();
    assert_eq!(text.code, 0, "{}", text.render(None));
    assert!(
        text.stdout.contains("warning[code-drift] app.py"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("0 errors, 1 warning: ok"),
        "{}",
        text.stdout
    );
    assert!(text.stderr.is_empty(), "{}", text.stderr);

    let json = lint(repo.path(), &["--format", "json"]);
    assert_eq!(json.code, 0);
    let report = json.json();
    assert_eq!(report["findings"][0]["code"], "code-drift");
    assert_eq!(report["findings"][0]["severity"], "warning");
    assert_eq!(report["summary"]["warnings"], 1);
    assert_eq!(report["summary"]["errors"], 0);
}

#[test]
fn a_clean_repository_exits_zero() {
    let repo = repo_with_spec(spec(&["app.py#f,g"]).as_bytes());
    let run = lint(repo.path(), &[]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert!(run.stdout.contains("clean: app"), "{}", run.stdout);
    assert!(
        run.stdout.contains("0 errors, 0 warnings: ok"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn a_repository_without_specs_exits_zero() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY).expect("write");
    repo.commit("Add app").expect("commit");
    let run = lint(repo.path(), &["--format", "json"]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(run.json()["summary"]["nodes"], 0);
}

#[test]
fn an_empty_repository_exits_zero_with_a_clear_message() {
    let repo = FixtureRepo::new().expect("a fixture repository");

    let text = lint(repo.path(), &[]);
    text.assert_no_panic();
    assert_eq!(text.code, 0, "{}", text.render(None));
    assert_eq!(
        text.stdout,
        "keel lint: the repository has no commits; nothing to judge\n"
    );
    assert!(text.stderr.is_empty(), "{}", text.stderr);

    let json = lint(repo.path(), &["--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.render(None));
    let report = json.json();
    assert!(report["tip"].is_null(), "{report}");
    assert_eq!(report["findings"], serde_json::json!([]));
}

#[test]
fn a_reader_that_closes_the_pipe_early_is_not_a_panic() {
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let mut child = crate::support::keel(scratch.path())
        .arg("demo")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("keel starts");
    // Dropping the read end before keel writes makes every write fail with EPIPE.
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("keel ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked"),
        "keel panicked on a closed pipe:\n{stderr}"
    );
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}
