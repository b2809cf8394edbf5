//! `keel lint --worktree` and `keel watch`, run as a user runs them: the working tree
//! judged before the commit, and a long-lived process that prints a new verdict after
//! each commit, reset, save and broken-then-repaired spec, and exits 0 on Ctrl-C.
//!
//! The waits below guard against a hang (a verdict that never comes fails the test with
//! what keel printed); they bound nothing about speed.

use super::support::{APP_PY, keel, lint, spec};
use crate::APP_PY_F_CHANGED;
use keel_fixtures::FixtureRepo;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// How long a test waits for one verdict before it fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// A repository holding `app.py` and a node `app` anchoring `app.py#f`.
fn anchored_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    repo
}

/// The commits of the `anchor-hit` findings of a lint JSON document.
fn hit_commits(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("`findings` is a list")
        .iter()
        .filter(|f| f["code"] == "anchor-hit")
        .flat_map(|f| f["hits"].as_array().expect("`hits` is a list"))
        .map(|hit| hit["commit"].as_str().expect("a commit id").to_owned())
        .collect()
}

#[test]
fn lint_worktree_judges_uncommitted_changes_as_commit_worktree() {
    let repo = anchored_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit");

    let committed = lint(repo.path(), &["--format", "json"]);
    assert_eq!(committed.code, 0, "HEAD has no hit:\n{}", committed.stdout);
    assert!(hit_commits(&committed.json()).is_empty());

    let run = lint(repo.path(), &["--worktree", "--format", "json"]);
    run.assert_no_panic();
    assert_eq!(run.code, 1, "the uncommitted hit blocks:\n{}", run.stdout);
    let report = run.json();
    assert_eq!(hit_commits(&report), ["worktree"]);
    assert_eq!(report["tip"], "worktree");

    let text = lint(repo.path(), &["--worktree"]);
    assert!(
        text.stdout
            .contains("worktree the working tree (uncommitted changes) — f"),
        "the text report names the working tree:\n{}",
        text.stdout
    );
}

#[test]
fn lint_worktree_on_a_clean_tree_is_lint_of_head() {
    let mut repo = anchored_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit");
    let changed = repo.commit("Change f").expect("commit");
    let run = lint(repo.path(), &["--worktree", "--format", "json"]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_eq!(hit_commits(&report), std::slice::from_ref(&changed));
    assert_eq!(report["tip"], changed.as_str());
}

/// A running `keel watch` and the lines it printed.
struct Watch {
    child: Child,
    lines: Receiver<String>,
    errors: Receiver<String>,
}

/// Sends each line `pipe` gives to a new channel, from a thread of its own.
fn lines_of(pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    lines
}

impl Watch {
    fn start(repo: &FixtureRepo, extra: &[&str]) -> Self {
        let repo_arg = repo.path().display().to_string();
        let mut args = vec!["--repo", repo_arg.as_str()];
        args.extend_from_slice(extra);
        Self::start_in(repo.path(), &args)
    }

    /// `keel watch --format json ARGS` started in `dir`, as a user types it there.
    fn start_in(dir: &Path, args: &[&str]) -> Self {
        let mut child = keel(dir)
            .args(["watch", "--format", "json"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("keel watch starts");
        let lines = lines_of(child.stdout.take().expect("stdout is piped"));
        let errors = lines_of(child.stderr.take().expect("stderr is piped"));
        Self {
            child,
            lines,
            errors,
        }
    }

    /// Everything printed on stderr so far.
    fn stderr_so_far(&self) -> String {
        self.errors.try_iter().collect::<Vec<_>>().join("\n")
    }

    /// Waits for an `error:` line on stderr and returns it.
    fn error_line(&mut self) -> String {
        loop {
            match self.errors.recv_timeout(PATIENCE) {
                Ok(line) if line.starts_with("error:") => return line,
                Ok(_) => {}
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("keel watch printed no error line");
                }
            }
        }
    }

    /// The next verdict (one JSON document per line).
    fn verdict(&mut self) -> serde_json::Value {
        let Ok(line) = self.lines.recv_timeout(PATIENCE) else {
            let _ = self.child.kill();
            panic!(
                "keel watch printed no verdict; stderr:\n{}",
                self.stderr_so_far()
            );
        };
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"))
    }

    /// Sends Ctrl-C and returns the exit code and everything printed on stderr.
    fn interrupt(mut self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        let sent = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let status = self.child.wait().expect("keel watch ends");
        (status.code(), self.stderr_so_far())
    }
}

#[test]
fn watch_prints_a_verdict_per_commit_reset_and_branch_switch_survives_gc_and_exits_0_on_ctrl_c() {
    let mut repo = anchored_repo();
    let mut watch = Watch::start(&repo, &[]);
    let first = watch.verdict();
    assert_eq!(first["schema"], "keel.lint.v1");
    assert!(hit_commits(&first).is_empty(), "no hit yet: {first}");

    repo.write("app.py", APP_PY_F_CHANGED).expect("edit");
    let changed = repo.commit("Change f").expect("commit");
    let after_commit = watch.verdict();
    assert_eq!(after_commit["tip"], changed.as_str());
    assert_eq!(hit_commits(&after_commit), [changed]);

    repo.git(&["reset", "--hard", "HEAD~1"]).expect("reset");
    let after_reset = watch.verdict();
    assert!(
        hit_commits(&after_reset).is_empty(),
        "the reset drops the hit"
    );
    assert_eq!(after_reset["tip"], first["tip"]);

    // `git gc` packs the refs and objects: the tip did not move, so nothing is printed,
    // and the next commit is read from the new pack.
    repo.git(&["gc", "--quiet", "--prune=now"]).expect("gc");
    repo.git(&["checkout", "--quiet", "-b", "side"])
        .expect("branch");
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit");
    let on_side = repo.commit("Change f on a side branch").expect("commit");
    let after_gc = watch.verdict();
    assert_eq!(
        after_gc["tip"],
        on_side.as_str(),
        "no verdict for gc itself"
    );
    assert_eq!(hit_commits(&after_gc), [on_side]);
    repo.git(&["checkout", "--quiet", "main"])
        .expect("switch back");
    let switched = watch.verdict();
    assert_eq!(switched["tip"], first["tip"]);
    assert!(hit_commits(&switched).is_empty());

    let (code, stderr) = watch.interrupt();
    assert_eq!(code, Some(0), "Ctrl-C exits 0; stderr:\n{stderr}");
}

#[test]
fn watch_worktree_sees_a_save_and_recovers_from_a_spec_broken_mid_save() {
    let repo = anchored_repo();
    let mut watch = Watch::start(&repo, &["--worktree"]);
    assert!(hit_commits(&watch.verdict()).is_empty());

    repo.write("app.py", APP_PY_F_CHANGED).expect("save");
    assert_eq!(hit_commits(&watch.verdict()), ["worktree"]);

    repo.write(".spec/app/spec.md", "---\ncode: [unclosed\n")
        .expect("a broken save");
    let error = watch.error_line();
    assert!(
        error.contains(".spec/app/spec.md"),
        "names the spec: {error}"
    );
    repo.write(".spec/app/spec.md", &spec(&["app.py#g"]))
        .expect("the repaired save");
    let repaired = watch.verdict();
    assert!(
        hit_commits(&repaired).is_empty(),
        "the spec now anchors g, which the change missed: {repaired}"
    );

    std::fs::remove_dir_all(repo.path().join(".spec")).expect("delete .spec/");
    let no_specs = watch.verdict();
    assert_eq!(no_specs["findings"], serde_json::json!([]));

    let (code, stderr) = watch.interrupt();
    assert_eq!(code, Some(0), "Ctrl-C exits 0; stderr:\n{stderr}");
}

#[test]
fn watch_follows_a_rebase_that_stops_on_a_conflict_and_its_abort() {
    let mut repo = anchored_repo();
    let base = repo.git(&["rev-parse", "HEAD"]).expect("rev-parse");
    repo.write("app.py", APP_PY_F_CHANGED)
        .expect("edit f on main");
    let on_main = repo.commit("Change f on main").expect("commit");
    repo.git(&["checkout", "--quiet", "-b", "side", base.trim()])
        .expect("branch from the base");
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 7"))
        .expect("a conflicting edit of f");
    let on_side = repo.commit("Change f on side").expect("commit");

    let mut watch = Watch::start(&repo, &[]);
    assert_eq!(watch.verdict()["tip"], on_side.as_str());
    let stopped = repo.git(&["rebase", "main"]);
    assert!(stopped.is_err(), "the rebase stops on the conflict");
    let during = watch.verdict();
    assert_eq!(
        during["tip"],
        on_main.as_str(),
        "mid-rebase, HEAD is detached at main"
    );
    repo.git(&["rebase", "--abort"]).expect("abort");
    assert_eq!(watch.verdict()["tip"], on_side.as_str());
    let (code, stderr) = watch.interrupt();
    assert_eq!(code, Some(0), "{stderr}");
}

/// The README's `keel watch`, typed inside the repository with no `--repo` (the default
/// `.`), with a relative `--repo`, from a subfolder and through a symlinked path: each
/// sees the next commit.
#[test]
fn watch_sees_a_commit_however_the_repository_is_named() {
    let mut repo = anchored_repo();
    repo.write("sub/keep.txt", "x\n").expect("a subfolder");
    repo.commit("Add a subfolder").expect("commit");
    let name = repo
        .path()
        .file_name()
        .and_then(|name| name.to_str())
        .expect("a UTF-8 name")
        .to_owned();
    let links = tempfile::tempdir().expect("a temporary folder");
    let link = links.path().join("linked");
    std::os::unix::fs::symlink(repo.path(), &link).expect("a symlink");
    let relative = format!("../{name}");
    let root = repo.path().to_owned();
    let sub = root.join("sub");
    let cases: [(&str, &Path, Vec<&str>); 4] = [
        ("no --repo", &root, vec![]),
        ("a relative --repo", &root, vec!["--repo", &relative]),
        ("a subfolder", &sub, vec![]),
        ("a symlinked path", &link, vec![]),
    ];
    for (i, (how, dir, args)) in cases.into_iter().enumerate() {
        let mut watch = Watch::start_in(dir, &args);
        let first = watch.verdict();
        assert_eq!(first["schema"], "keel.lint.v1", "{how}");
        repo.write("notes.txt", &format!("{i}\n")).expect("edit");
        let moved = repo.commit(&format!("Commit {i}")).expect("commit");
        let next = watch.verdict();
        assert_eq!(next["tip"], moved.as_str(), "{how} sees the commit");
        let (code, stderr) = watch.interrupt();
        assert_eq!(code, Some(0), "{how}: stderr:\n{stderr}");
    }
}
