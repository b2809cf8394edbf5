//! Ack checkpoints: a commit with exactly one parent and that parent's tree, whose trailer
//! block carries `Spec-OK: <node>`, acknowledges itself and every commit reachable from it
//! for that node (hits and bare drift leave its window). Each test first shows the debt
//! lint reports without the checkpoint, so each one can fail. Every expected value is
//! derived by hand from the fixture.

use crate::support::{
    TWO_FUNCTIONS_PY, commit, edit, git, lint_repo, node_findings, repo, spec, strings,
};
use keel_fixtures::FixtureRepo;

const PY: &str = TWO_FUNCTIONS_PY;

/// A commit that changes nothing (its parent's tree) with `message`.
fn empty_commit(repo: &mut FixtureRepo, message: &str) -> String {
    let id = repo.commit(message).expect("git can commit");
    let tree = |rev: &str| {
        repo.git(&["rev-parse", &format!("{rev}^{{tree}}")])
            .expect("git rev-parse")
    };
    assert_eq!(
        tree(&id),
        tree(&format!("{id}^")),
        "the commit keeps its parent's tree"
    );
    id
}

/// `(code, selectors, commits)` of an anchor hit on `f`.
fn hit_f(commits: &[&str]) -> (String, Vec<String>, Vec<String>) {
    ("anchor-hit".to_owned(), strings(&["f"]), strings(commits))
}

/// A repository whose node `n` anchors `a.py#f` and lists `notes.txt` bare, and whose
/// second commit hits `f` and drifts `notes.txt`; returns it and that commit.
fn repo_with_debt() -> (FixtureRepo, String) {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            ("notes.txt", "one\n"),
            (".spec/n/spec.md", &spec(&["a.py#f", "notes.txt"], &[])),
            (".spec/other/spec.md", &spec(&["a.py#g"], &[])),
        ],
        "v1",
    );
    let hit = commit(
        &mut repo,
        &[
            ("a.py", &edit(PY, "a = 1", "a = 2")),
            ("notes.txt", "two\n"),
        ],
        "hit f, drift notes",
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![
            hit_f(&[&hit]),
            ("code-drift".to_owned(), vec![], vec![hit.clone()]),
        ],
        "the debt exists before any acknowledgement"
    );
    (repo, hit)
}

#[test]
fn a_checkpoint_acknowledges_the_hits_and_drift_before_it() {
    let (mut repo, _) = repo_with_debt();
    empty_commit(&mut repo, "Acknowledge spec drift for n\n\nSpec-OK: n");
    assert!(
        node_findings(&lint_repo(&repo), "n").is_empty(),
        "the checkpoint acknowledges every commit it reaches: the hit and the drift"
    );
}

#[test]
fn a_hit_after_a_checkpoint_stays() {
    let (mut repo, _) = repo_with_debt();
    empty_commit(&mut repo, "ack\n\nSpec-OK: n");
    let after = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 3"))],
        "hit f again",
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![hit_f(&[&after])],
        "only the commit after the checkpoint is debt"
    );
}

#[test]
fn a_checkpoint_for_another_node_does_not_hide_the_hit() {
    let (mut repo, hit) = repo_with_debt();
    empty_commit(&mut repo, "ack other\n\nSpec-OK: other");
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![
            hit_f(&[&hit]),
            ("code-drift".to_owned(), vec![], vec![hit.clone()]),
        ],
        "a checkpoint acknowledges only the node it names"
    );
    empty_commit(&mut repo, "ack a prefix\n\nSpec-OK: n/sub");
    assert_eq!(
        node_findings(&lint_repo(&repo), "n")[0],
        hit_f(&[&hit]),
        "the value must equal the node id exactly"
    );
}

#[test]
fn a_content_bearing_commit_with_the_trailer_acknowledges_only_itself() {
    let (mut repo, hit) = repo_with_debt();
    commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 3"))],
        "hit f again, acknowledged\n\nSpec-OK: n",
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![
            hit_f(&[&hit]),
            ("code-drift".to_owned(), vec![], vec![hit.clone()]),
        ],
        "the trailer on a commit that changes its tree acknowledges that commit, not its \
         ancestors"
    );
}

#[test]
fn a_tree_identical_merge_with_the_trailer_is_no_checkpoint() {
    let (mut repo, hit) = repo_with_debt();
    git(&repo, &["checkout", "-q", "-b", "side", "HEAD~1"]);
    commit(&mut repo, &[("side.txt", "x\n")], "side moves on");
    git(&repo, &["checkout", "-q", "main"]);
    git(
        &repo,
        &[
            "merge",
            "-q",
            "--no-ff",
            "-s",
            "ours",
            "-m",
            "merge side\n\nSpec-OK: n",
            "side",
        ],
    );
    let tree = |rev: &str| repo.git(&["rev-parse", rev]).expect("git rev-parse");
    assert_eq!(
        tree("HEAD^{tree}"),
        tree("HEAD^1^{tree}"),
        "the merge keeps its first parent's tree"
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![
            hit_f(&[&hit]),
            ("code-drift".to_owned(), vec![], vec![hit.clone()]),
        ],
        "a merge with two parents acknowledges only itself"
    );
}

#[test]
fn a_checkpoint_acknowledges_what_it_reaches_not_what_is_older() {
    // `f` is long enough for two edits git merges cleanly.
    let py = edit(
        PY,
        "    a = 1\n",
        "    a = 1\n    b = 1\n    c = 1\n    d = 1\n",
    );
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", &py), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    git(&repo, &["checkout", "-q", "-b", "side"]);
    let side_hit = commit(
        &mut repo,
        &[("a.py", &edit(&py, "d = 1", "d = 2"))],
        "side hits f",
    );
    git(&repo, &["checkout", "-q", "main"]);
    let main_hit = commit(
        &mut repo,
        &[("a.py", &edit(&py, "a = 1", "a = 2"))],
        "main hits f",
    );
    git(
        &repo,
        &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
    );
    let merged = std::fs::read_to_string(repo.path().join("a.py")).expect("a.py");
    assert!(
        merged.contains("a = 2") && merged.contains("d = 2"),
        "git merged both edits cleanly"
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![hit_f(&[&main_hit, &side_hit])],
        "both branches' hits are debt at the merge"
    );

    // A checkpoint on the side branch, merged again, reaches the side hit only.
    git(&repo, &["checkout", "-q", "side"]);
    empty_commit(&mut repo, "ack the side\n\nSpec-OK: n");
    git(&repo, &["checkout", "-q", "main"]);
    git(
        &repo,
        &["merge", "-q", "--no-ff", "-m", "merge the ack", "side"],
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![hit_f(&[&main_hit])],
        "the side checkpoint does not reach the main hit"
    );

    // A checkpoint on main after the merges reaches both.
    empty_commit(&mut repo, "ack everything\n\nSpec-OK: n");
    assert!(node_findings(&lint_repo(&repo), "n").is_empty());
}
