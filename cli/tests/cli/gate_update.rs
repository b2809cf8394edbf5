//! The gate judges every commit a ref update brings (issue #38, item 1), not only the
//! update's target: an interactive rebase that changes a pinned unit in an earlier commit,
//! and a push of [hit, harmless], are refused as [hit] alone is, and the refusal lists the
//! earlier commit's hit as the update's own; a spec update later in the same update
//! answers the hits before it, so such a push passes.

use super::support::{APP_PY, keel, spec};
use crate::APP_PY_F_CHANGED;
use keel_fixtures::{FixtureRepo, pinned_git};
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
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    repo
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
