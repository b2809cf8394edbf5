//! The gate judges every commit a ref update brings (issue #38, item 1), not only the
//! update's target: an interactive rebase that changes a pinned unit in an earlier commit,
//! and a push of [hit, harmless], are refused as [hit] alone is, and the refusal lists the
//! earlier commit's hit as the update's own; a spec update later in the same update
//! answers the hits before it, so such a push passes.

use super::support::{keel, repo_with_spec, spec};
use crate::APP_PY_F_CHANGED;
use keel_fixtures::{FixtureRepo, pinned_git, pinned_shell};
use std::path::{Path, PathBuf};
use std::process::Output;

fn git(dir: &Path, args: &[&str]) -> Output {
    pinned_git(dir).args(args).output().expect("git runs")
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let output = git(dir, args);
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A repository with `app.py` and node `app` pinning `app.py#f`.
fn repo() -> FixtureRepo {
    repo_with_spec(spec(&["app.py#f"]).as_bytes())
}

fn install(dir: &Path) {
    let repo = dir.display().to_string();
    let installed = keel(dir)
        .args(["hook", "install", "--repo", &repo])
        .output()
        .expect("keel runs");
    assert!(installed.status.success(), "{installed:?}");
}

/// A bare clone of `repo` with the hook installed, and its path as an argument.
fn gated_remote(repo: &FixtureRepo) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let bare = folder.path().join("remote.git");
    git_ok(
        repo.path(),
        &["clone", "-q", "--bare", ".", &bare.display().to_string()],
    );
    install(&bare);
    (folder, bare)
}

#[test]
fn a_rebase_that_changes_a_pinned_unit_in_an_earlier_commit_is_refused() {
    let repo = repo();
    install(repo.path());
    repo.write("notes.txt", "one\n").expect("write");
    git_ok(repo.path(), &["add", "notes.txt"]);
    git_ok(repo.path(), &["commit", "-qm", "Add notes"]);
    repo.write("more.txt", "two\n").expect("write");
    git_ok(repo.path(), &["add", "more.txt"]);
    git_ok(repo.path(), &["commit", "-qm", "Add more notes"]);
    let before = git_ok(repo.path(), &["rev-parse", "main"]);

    // Stop at the first of the two commits, change f there, go on.
    let started = pinned_git(repo.path())
        .env("GIT_SEQUENCE_EDITOR", "sed -i -e 1s/^pick/edit/")
        .args(["rebase", "-q", "-i", "HEAD~2"])
        .output()
        .expect("git runs");
    assert!(started.status.success(), "{started:?}");
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    git_ok(repo.path(), &["commit", "-q", "-a", "--amend", "--no-edit"]);
    let continued = git(repo.path(), &["rebase", "--continue"]);

    let stderr = String::from_utf8_lossy(&continued.stderr);
    assert!(
        !continued.status.success(),
        "the rebase is refused:\n{stderr}"
    );
    assert!(
        stderr.contains("its 2 new commits leave spec drift unanswered")
            && stderr.contains("These 2 new commits change pinned code:"),
        "{stderr}"
    );
    let hit_line = stderr
        .lines()
        .find(|line| line.contains("Add notes"))
        .unwrap_or_else(|| panic!("the earlier commit's hit is listed:\n{stderr}"));
    assert!(hit_line.contains('f'), "{hit_line}");
    assert!(
        !stderr.contains("already owed"),
        "the rebased commit is the update's own, not debt:\n{stderr}"
    );
    assert!(stderr.contains("git rebase --abort"), "{stderr}");
    assert_eq!(
        git_ok(repo.path(), &["rev-parse", "main"]),
        before,
        "the branch did not move"
    );
}

#[test]
fn a_push_of_a_hit_and_a_harmless_commit_is_refused_like_the_hit_alone() {
    let mut repo = repo();
    let (_folder, bare) = gated_remote(&repo);
    let remote = bare.display().to_string();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    repo.write("notes.txt", "harmless\n").expect("write");
    repo.commit("Add notes").expect("commit");

    let pushed = git(repo.path(), &["push", "-q", &remote, "main"]);
    let stderr = String::from_utf8_lossy(&pushed.stderr);
    assert!(!pushed.status.success(), "the push is refused:\n{stderr}");
    assert!(
        stderr.contains("Change f") && stderr.contains("KEEL_SKIP_LINT=1"),
        "{stderr}"
    );
    let remote_main = git_ok(&bare, &["rev-parse", "main"]);
    let first = git_ok(repo.path(), &["rev-parse", "HEAD~2"]);
    assert_eq!(remote_main, first, "the remote branch did not move");
}

#[test]
fn a_spec_update_later_in_the_same_push_answers_the_hits_before_it() {
    let mut repo = repo();
    let (_folder, bare) = gated_remote(&repo);
    let remote = bare.display().to_string();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    repo.write(
        ".spec/app/spec.md",
        &format!("{}\nf now adds two.\n", spec(&["app.py#f"])),
    )
    .expect("write");
    repo.commit("Say what f does now").expect("commit");

    let pushed = git(repo.path(), &["push", "-q", &remote, "main"]);
    assert!(
        pushed.status.success(),
        "{}",
        String::from_utf8_lossy(&pushed.stderr)
    );
    assert_eq!(
        git_ok(&bare, &["rev-parse", "main"]),
        git_ok(repo.path(), &["rev-parse", "HEAD"])
    );
}

/// `sh -c COMMAND` in `dir` with the fixture's git environment and no editor, as a user
/// would type the command a refusal names.
fn shell(dir: &Path, command: &str) -> Output {
    pinned_shell(dir, command)
        .env("GIT_EDITOR", "true")
        .output()
        .expect("sh runs")
}

/// The last command in backticks on the refusal's line that lets the update through.
fn bypass_of(stderr: &str) -> String {
    let line = stderr
        .lines()
        .rev()
        .find(|line| line.contains("unjudged"))
        .unwrap_or_else(|| panic!("a bypass line:\n{stderr}"));
    let quoted: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
    quoted
        .last()
        .unwrap_or_else(|| panic!("a command in backticks: {line}"))
        .to_string()
}

/// `repo()` with branch `topic` (from the first commit) changing f, then a notes commit,
/// and main one commit on, the hook installed.
fn forked() -> FixtureRepo {
    let mut repo = repo();
    git_ok(repo.path(), &["checkout", "-q", "-b", "topic"]);
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    repo.write("notes.txt", "topic\n").expect("write");
    repo.commit("Topic notes").expect("commit");
    git_ok(repo.path(), &["checkout", "-q", "main"]);
    repo.write("main.txt", "main\n").expect("write");
    repo.commit("Main file").expect("commit");
    install(repo.path());
    repo
}

/// Runs the git command that gets refused, then the bypass its refusal names, which must
/// move `branch` and leave no operation in progress.
fn refused_then_bypassed(repo: &FixtureRepo, refused: &str, branch: &str) -> String {
    let before = git_ok(repo.path(), &["rev-parse", branch]);
    let run = shell(repo.path(), refused);
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(
        stderr.contains("keel: refused to move"),
        "{refused} is refused:\n{stderr}"
    );
    assert_eq!(git_ok(repo.path(), &["rev-parse", branch]), before);
    let bypass = bypass_of(&stderr);
    let through = shell(repo.path(), &bypass);
    assert!(
        through.status.success(),
        "after `{refused}`, the named bypass `{bypass}` works:\n{}",
        String::from_utf8_lossy(&through.stderr)
    );
    assert_ne!(git_ok(repo.path(), &["rev-parse", branch]), before);
    assert_eq!(git_ok(repo.path(), &["status", "--porcelain"]), "");
    bypass
}

#[test]
fn each_refusal_names_the_bypass_that_works_for_the_operation_in_progress() {
    let cherry = forked();
    let bypass = refused_then_bypassed(&cherry, "git cherry-pick topic~1", "main");
    assert_eq!(bypass, "KEEL_SKIP_LINT=1 git cherry-pick --continue");

    let merge = forked();
    let bypass = refused_then_bypassed(&merge, "git merge --no-edit topic", "main");
    assert_eq!(bypass, "KEEL_SKIP_LINT=1 git merge --continue");

    let rebase = forked();
    git_ok(rebase.path(), &["checkout", "-q", "topic"]);
    let bypass = refused_then_bypassed(&rebase, "git rebase -q main", "topic");
    assert_eq!(bypass, "KEEL_SKIP_LINT=1 git rebase --continue");

    let revert = forked();
    let merged = shell(
        revert.path(),
        "KEEL_SKIP_LINT=1 git merge -q --no-edit topic",
    );
    assert!(merged.status.success(), "{merged:?}");
    let bypass = refused_then_bypassed(&revert, "git revert --no-edit -m 1 HEAD", "main");
    assert_eq!(bypass, "KEEL_SKIP_LINT=1 git commit --no-edit");
    let subject = git_ok(revert.path(), &["log", "-1", "--format=%s"]);
    assert!(subject.starts_with("Revert"), "{subject}");
}

#[test]
fn a_refused_fast_forward_names_the_command_that_restores_the_index_and_the_bypass() {
    let upstream = forked();
    let repo = repo();
    install(repo.path());
    git_ok(
        repo.path(),
        &[
            "fetch",
            "-q",
            &upstream.path().display().to_string(),
            "topic",
        ],
    );
    // The user's own work: a staged file and an unstaged edit, which must survive.
    repo.write("mine.txt", "mine\n").expect("write");
    git_ok(repo.path(), &["add", "mine.txt"]);
    repo.write(
        ".spec/app/spec.md",
        &format!("{}\nA note of mine.\n", spec(&["app.py#f"])),
    )
    .expect("write");
    let status_before = git_ok(repo.path(), &["status", "--porcelain"]);
    let before = git_ok(repo.path(), &["rev-parse", "main"]);
    let target = git_ok(repo.path(), &["rev-parse", "FETCH_HEAD"]);

    let run = shell(repo.path(), "git merge --ff-only FETCH_HEAD");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(!run.status.success(), "{stderr}");
    assert_eq!(git_ok(repo.path(), &["rev-parse", "main"]), before);
    assert_ne!(
        git_ok(repo.path(), &["status", "--porcelain"]),
        status_before,
        "git left the fast-forward's files in the index and working tree"
    );
    let restore = format!("git read-tree -u -m {target} HEAD");
    assert!(stderr.contains(&format!("`{restore}`")), "{stderr}");
    let restored = shell(repo.path(), &restore);
    assert!(restored.status.success(), "{restored:?}");
    assert_eq!(
        git_ok(repo.path(), &["status", "--porcelain"]),
        status_before,
        "the restore puts back the state before the merge, the user's changes kept"
    );

    let run = shell(repo.path(), "git merge --ff-only FETCH_HEAD");
    let bypass = bypass_of(&String::from_utf8_lossy(&run.stderr));
    assert_eq!(
        bypass,
        format!("KEEL_SKIP_LINT=1 git merge --ff-only {target}")
    );
    let through = shell(repo.path(), &bypass);
    assert!(through.status.success(), "{through:?}");
    assert_eq!(git_ok(repo.path(), &["rev-parse", "main"]), target);
}
