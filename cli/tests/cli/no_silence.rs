//! No silent wrong answer (issue #38, item 7 and the WEAK list): inputs keel used to pass
//! over without a word, or misname, each built with the real git CLI — a partial clone
//! missing blobs, a submodule under a `code:` entry, a file
//! name that is not UTF-8, a symlinked agent log.
//!
//! Owns: what keel says about each, and that the repair it names works.
//! Does not own: the catalogue of refusals (`catalogue`), the judgement of ordinary drift.

use crate::APP_PY_F_CHANGED;
use crate::support::{APP_PY, lint, run, spec};
use keel_fixtures::{FixtureRepo, pinned_shell};
use std::path::Path;

/// The text between the first pair of backticks in `line`.
fn first_quoted(line: &str) -> &str {
    let start = line.find('`').expect("a quoted command") + 1;
    let len = line[start..].find('`').expect("a closing backtick");
    &line[start..start + len]
}

/// Runs `script` with `sh -c` in `dir`, with git reading no system or global config (as
/// the fixtures pin it); fails the test unless it succeeds.
fn shell(dir: &Path, script: &str) {
    let output = pinned_shell(dir, script).output().expect("sh runs");
    assert!(
        output.status.success(),
        "`{script}` failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A repository with `app.py` and the node `app` pinning `f`, then a commit changing `f`.
fn hit_history(repo: &mut FixtureRepo) {
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write the first version");
    repo.commit("Add app and its spec").expect("commit");
    repo.write("app.py", APP_PY_F_CHANGED)
        .expect("write the change");
    repo.commit("Change f").expect("commit");
}

/// The first line of stderr that starts `error: `.
fn error_line(run: &crate::support::Run) -> &str {
    run.stderr
        .lines()
        .find(|line| line.starts_with("error: "))
        .unwrap_or_else(|| panic!("an error line:\n{}", run.stderr))
}

#[test]
fn a_blob_a_partial_clone_has_not_fetched_is_named_with_the_fetch_that_repairs_it() {
    let mut source = FixtureRepo::new().expect("a fixture repository");
    hit_history(&mut source);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let clone = source
        .partial_clone(folder.path())
        .expect("a partial clone");
    let clone = clone.canonicalize().expect("a real path");

    // HEAD's blobs came with the checkout; the first version of app.py, which lint diffs
    // against, did not. Each command that needs it says so, and what fetches it.
    for args in [
        vec!["lint"],
        vec!["callgraph", "--rev", "HEAD~1"],
        vec!["units", "app.py", "--rev", "HEAD~1"],
    ] {
        let ran = run(&clone, &args);
        ran.assert_no_panic();
        assert_eq!(ran.code, 2, "{args:?}:\n{}", ran.render(Some(&clone)));
        let line = error_line(&ran);
        assert!(
            line.contains("it is missing from this partial clone")
                && line.contains("the promisor remote `origin`"),
            "{args:?}: {line}"
        );
        assert!(!line.contains("git fsck"), "{args:?}: {line}");
    }
    let json = run(&clone, &["lint", "--error-format", "json"]);
    let line: serde_json::Value =
        serde_json::from_str(json.stderr.trim()).expect("one keel.error.v1 line");
    assert_eq!(line["code"], "unreadable-object");

    // The repair, run as written, fetches what is missing; keel then answers.
    let ran = lint(&clone, &[]);
    let repair = first_quoted(
        error_line(&ran)
            .split("; repair: ")
            .nth(1)
            .expect("a repair"),
    );
    shell(&clone, repair);
    let fixed = lint(&clone, &["--format", "json"]);
    fixed.assert_no_panic();
    assert_eq!(fixed.code, 1, "{}", fixed.render(Some(&clone)));
    let report = fixed.json();
    assert_eq!(crate::findings_of(&report, "anchor-hit").len(), 1);
    let graph = run(&clone, &["callgraph", "--rev", "HEAD~1"]);
    assert_eq!(graph.code, 0, "{}", graph.render(Some(&clone)));
    assert!(!graph.stdout.contains("read in part"), "{}", graph.stdout);
}

/// A repository whose `vendor/lib` is a submodule (a second fixture repository, added
/// with `git submodule add`), governed by the node `app` with `entries`, and a commit that
/// moves the submodule to a new commit. Returns the repository, the submodule's old and
/// new commit ids and the bump's commit id; the submodule's source stays alive with it.
fn submodule_bump(entries: &[&str]) -> (FixtureRepo, FixtureRepo, String, String, String) {
    let mut lib = FixtureRepo::new().expect("the submodule's repository");
    lib.write("src/x.py", "def f():\n    return 1\n")
        .expect("write");
    let old = lib.commit("First lib").expect("commit");
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(entries)))
        .expect("write");
    let lib_path = lib.path().display().to_string();
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "--quiet",
        &lib_path,
        "vendor/lib",
    ])
    .expect("git submodule add");
    repo.commit("Add app, its spec and the lib")
        .expect("commit");
    lib.write("src/x.py", "def f():\n    return 2\n")
        .expect("write");
    let new = lib.commit("Second lib").expect("commit");
    repo.git(&["-C", "vendor/lib", "fetch", "--quiet", "origin"])
        .expect("fetch the submodule");
    repo.git(&["-C", "vendor/lib", "checkout", "--quiet", &new])
        .expect("move the submodule");
    let bump = repo.commit("Bump the lib").expect("commit");
    (repo, lib, old, new, bump)
}

#[test]
fn a_submodule_bump_under_a_code_entry_is_advisory_drift_naming_both_commits() {
    for entry in [
        "vendor/lib",
        "vendor/lib/",
        "vendor/",
        "vendor/lib/src/x.py",
        "vendor/lib/src/",
        "vendor/**/*.py",
        "vendor/*",
    ] {
        let (repo, _lib, old, new, bump) = submodule_bump(&[entry]);
        let ran = lint(repo.path(), &["--format", "json"]);
        ran.assert_no_panic();
        assert_eq!(ran.code, 0, "{entry}: advisory:\n{}", ran.render(None));
        let report = ran.json();
        let drift = crate::findings_of(&report, "code-drift");
        assert_eq!(drift.len(), 1, "{entry}: one code-drift:\n{}", ran.stdout);
        let finding = drift[0];
        assert_eq!(finding["severity"], "warning");
        assert_eq!(finding["path"], entry.trim_end_matches('/'));
        assert_eq!(finding["hits"][0]["commit"], bump.as_str(), "{entry}");
        let message = finding["message"].as_str().expect("a message");
        assert!(
            message.contains("submodule vendor/lib")
                && message.contains(&old)
                && message.contains(&new),
            "{entry}: {message}"
        );
        assert!(
            crate::findings_of(&report, "dead-path").is_empty(),
            "{entry}: the submodule is there:\n{}",
            ran.stdout
        );

        // The candidate's scope sees the bump too (the gate judges the node), and the
        // text report says it.
        let pending = lint(repo.path(), &["--pending", "HEAD", "--format", "json"]);
        assert_eq!(pending.code, 0, "{entry}:\n{}", pending.render(None));
        let pending_report = pending.json();
        assert_eq!(
            crate::findings_of(&pending_report, "code-drift").len(),
            1,
            "{entry} --pending:\n{}",
            pending.stdout
        );
        let text = lint(repo.path(), &[]);
        assert!(
            text.stdout.contains("warning[code-drift]") && text.stdout.contains(&new),
            "{entry}:\n{}",
            text.stdout
        );
    }
}

#[test]
fn a_submodule_bump_after_a_kept_answer_is_seen_by_the_next_lint() {
    let (mut repo, mut lib, _, new, _) = submodule_bump(&["vendor/lib"]);
    repo.write(".spec/app/spec.md", &spec(&["vendor/lib", "app.py"]))
        .expect("write");
    repo.commit("A new version of the spec").expect("commit");
    let clean = lint(repo.path(), &["--format", "json"]);
    assert_eq!(clean.code, 0, "{}", clean.render(None));
    assert!(crate::findings_of(&clean.json(), "code-drift").is_empty());

    lib.write("src/x.py", "def f():\n    return 3\n")
        .expect("write");
    let third = lib.commit("Third lib").expect("commit");
    repo.git(&["-C", "vendor/lib", "fetch", "--quiet", "origin"])
        .expect("fetch the submodule");
    repo.git(&["-C", "vendor/lib", "checkout", "--quiet", &third])
        .expect("move the submodule");
    let bump = repo.commit("Bump the lib again").expect("commit");
    let ran = lint(repo.path(), &["--format", "json"]);
    let report = ran.json();
    let drift = crate::findings_of(&report, "code-drift");
    assert_eq!(drift.len(), 1, "{}", ran.stdout);
    assert_eq!(drift[0]["hits"][0]["commit"], bump.as_str());
    let message = drift[0]["message"].as_str().expect("a message");
    assert!(
        message.contains(&new) && message.contains(&third),
        "{message}"
    );
}

#[test]
fn a_selector_inside_a_submodule_is_refused_naming_the_submodule() {
    let (repo, _lib, ..) = submodule_bump(&["vendor/lib/src/x.py#f"]);
    let ran = lint(repo.path(), &["--format", "json"]);
    assert_eq!(ran.code, 1, "{}", ran.render(None));
    let report = ran.json();
    let dead = crate::findings_of(&report, "dead-anchor");
    assert_eq!(dead.len(), 1, "{}", ran.stdout);
    let message = dead[0]["message"].as_str().expect("a message");
    assert!(
        message.contains("inside the submodule vendor/lib"),
        "{message}"
    );
}

#[cfg(unix)]
#[test]
fn callgraph_names_each_source_file_whose_name_is_not_utf8_instead_of_dropping_it() {
    use std::os::unix::ffi::OsStrExt;
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("ok.py", "def f():\n    return g()\n")
        .and_then(|r| r.write("lib/été.py", "def h():\n    return 1\n"))
        .expect("write");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.py");
    std::fs::write(
        repo.path().join("lib").join(name),
        "def g():\n    return 1\n",
    )
    .expect("write a file whose name is latin-1");
    std::fs::write(
        repo.path()
            .join("lib")
            .join(std::ffi::OsStr::from_bytes(b"n\xff.txt")),
        "",
    )
    .expect("write a file the graph does not read");
    repo.commit("Add sources").expect("commit");
    let warning = "warning: lib/caf\\xe9.py: not in the graph: its name is not UTF-8";
    for args in [
        vec!["callgraph"],
        vec!["callgraph", "--format", "json"],
        vec!["callgraph", "--rev", "HEAD"],
        vec!["callgraph", "--rev", "HEAD", "--format", "json"],
    ] {
        let ran = run(repo.path(), &args);
        ran.assert_no_panic();
        assert_eq!(ran.code, 0, "{args:?}:\n{}", ran.render(None));
        let lines: Vec<&str> = ran.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: one warning:\n{}", ran.stderr);
        assert!(lines[0].starts_with(warning), "{args:?}: {}", lines[0]);
        assert!(lines[0].contains("repair: rename it"), "{}", lines[0]);
        // Left out whole, never read under a mangled name; a UTF-8 name is read.
        assert!(!ran.stdout.contains("caf"), "{args:?}:\n{}", ran.stdout);
        assert!(
            !ran.stdout.contains('\u{fffd}'),
            "{args:?}:\n{}",
            ran.stdout
        );
        if args.contains(&"json") {
            assert!(
                ran.stdout.contains("lib/été.py#h"),
                "{args:?}:\n{}",
                ran.stdout
            );
        } else {
            // The module nodes and functions of ok.py and lib/été.py.
            assert!(
                ran.stdout.starts_with("4 nodes"),
                "{args:?}:\n{}",
                ran.stdout
            );
        }
    }
}

/// One Claude Code log line of session `session` (one API call).
#[test]
fn impact_names_each_source_file_whose_name_is_not_utf8_instead_of_dropping_it() {
    use std::os::unix::ffi::OsStrExt;
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("ok.py", "def f():\n    return 1\n")
        .expect("write");
    std::fs::create_dir_all(repo.path().join("lib")).expect("a folder");
    std::fs::write(
        repo.path()
            .join("lib")
            .join(std::ffi::OsStr::from_bytes(b"caf\xe9.py")),
        "from ok import f\n\ndef g():\n    return f()\n",
    )
    .expect("write a file whose name is latin-1");
    repo.commit("Add sources").expect("commit");
    let patch =
        "--- a/ok.py\n+++ b/ok.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n";
    let patch_file = tempfile::NamedTempFile::new().expect("a patch file");
    std::fs::write(patch_file.path(), patch).expect("write the patch");
    let patch_arg = patch_file.path().display().to_string();
    for args in [
        vec!["impact", patch_arg.as_str()],
        vec!["impact", patch_arg.as_str(), "--rev", "HEAD"],
    ] {
        let ran = run(repo.path(), &args);
        ran.assert_no_panic();
        assert_eq!(ran.code, 0, "{args:?}:\n{}", ran.render(None));
        let lines: Vec<&str> = ran.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: one warning:\n{}", ran.stderr);
        assert!(
            lines[0].starts_with("warning: lib/caf\\xe9.py: not in the graph"),
            "{args:?}: {}",
            lines[0]
        );
        assert!(!ran.stdout.contains('\u{fffd}'), "{}", ran.stdout);
        assert!(ran.stdout.contains("ok.py#f"), "{}", ran.stdout);
    }
}

fn claude_line(session: &str) -> String {
    format!(
        r#"{{"type":"assistant","sessionId":"{session}","uuid":"u-{session}","timestamp":"2026-01-15T12:00:00.000Z","cwd":"/nonexistent/place","requestId":"r-{session}","message":{{"id":"m-{session}","model":"claude-sonnet-4-5","content":[],"usage":{{"input_tokens":10,"output_tokens":10}}}}}}"#
    ) + "\n"
}

#[cfg(unix)]
#[test]
fn sessions_follow_symlinked_logs_and_folders_once_and_name_the_links_they_cannot_follow() {
    use std::os::unix::fs::symlink;
    let home = tempfile::tempdir().expect("a temporary HOME");
    let projects = home.path().join(".claude/projects");
    let elsewhere = home.path().join("elsewhere");
    for dir in [projects.join("-w-x"), elsewhere.join("proj")] {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    let write = |path: std::path::PathBuf, session: &str| {
        std::fs::write(path, claude_line(session)).expect("write a log");
    };
    write(projects.join("-w-x/a1.jsonl"), "a1");
    write(elsewhere.join("b1.jsonl"), "b1");
    write(elsewhere.join("proj/c1.jsonl"), "c1");
    // A link to a log file kept elsewhere, and to a folder of logs.
    symlink(elsewhere.join("b1.jsonl"), projects.join("-w-x/b1.jsonl")).expect("symlink");
    symlink(elsewhere.join("proj"), projects.join("-w-y")).expect("symlink");
    // A second name for a log already read: read once.
    symlink(
        projects.join("-w-x/a1.jsonl"),
        projects.join("-w-x/again.jsonl"),
    )
    .expect("symlink");
    // A link to nothing, and a link back up the tree (a loop).
    symlink(
        elsewhere.join("gone.jsonl"),
        projects.join("-w-x/gone.jsonl"),
    )
    .expect("symlink");
    symlink(&projects, projects.join("-w-x/loop")).expect("symlink");
    // Codex keeps its rollouts in `sessions/`: a link there is followed; a link elsewhere
    // in CODEX_HOME is no log folder, and is left alone even when it names nothing.
    let codex = home.path().join(".codex");
    std::fs::create_dir_all(codex.join("sessions/2026/01/15")).expect("mkdir");
    std::fs::write(
        elsewhere.join("rollout-cx9.jsonl"),
        concat!(
            r#"{"timestamp":"2026-01-15T15:00:00.000Z","type":"session_meta","payload":{"id":"cx9","timestamp":"2026-01-15T15:00:00.000Z","cwd":"/nonexistent/place","source":"exec"}}"#,
            "\n"
        ),
    )
    .expect("write a rollout");
    symlink(
        elsewhere.join("rollout-cx9.jsonl"),
        codex.join("sessions/2026/01/15/rollout-2026-01-15T15-00-00-cx9.jsonl"),
    )
    .expect("symlink");
    symlink(elsewhere.join("nothing"), codex.join("tmp")).expect("symlink");

    let ran = run(home.path(), &["sessions", "export"]);
    ran.assert_no_panic();
    assert_eq!(ran.code, 0, "{}", ran.render(None));
    let sessions: Vec<serde_json::Value> = ran
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    let ids: Vec<&str> = sessions
        .iter()
        .map(|s| s["session_id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids, ["a1", "b1", "c1", "cx9"], "{}", ran.stdout);
    assert!(
        sessions
            .iter()
            .filter(|s| s["harness"] == "claude-code")
            .all(|s| s["api_calls"] == 1),
        "each log read once:\n{}",
        ran.stdout
    );
    // The link to nothing is named; the loop ends (its folder's logs are read once).
    let gone = projects.join("-w-x/gone.jsonl").display().to_string();
    let warnings: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|line| line.contains("symbolic link"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", ran.stderr);
    assert!(
        warnings[0].starts_with(&format!(
            "warning: {gone}: a symbolic link keel cannot follow"
        )),
        "{}",
        ran.stderr
    );
}
