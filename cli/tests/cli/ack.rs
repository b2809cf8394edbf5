//! `keel ack <node>`: a checkpoint commit (HEAD's tree, parent HEAD, `Spec-OK: <node>`)
//! that `keel lint` then reads as acknowledging the node's drift; and its refusals — an
//! unknown node, staged changes, a detached HEAD, a rebase or merge in progress, an unborn
//! branch, no identity — each one `error:` line with a repair, exit 2, nothing written.

use crate::support::{
    APP_PY, Run, keel, lint, listing, repo_with, repo_with_spec, snapshot_settings, spec, status,
};
use keel_fixtures::FixtureRepo;

/// The author and committer date every checkpoint here is written at, so its id is the
/// same on every run (2026-01-02T00:00:00Z).
const ACK_DATE: &str = "@1767312000 +0000";

/// Gives the repository a local identity, as `git config user.*` would.
fn configure_identity(repo: &FixtureRepo) {
    repo.git(&["config", "user.name", "Ack Author"])
        .and_then(|_| repo.git(&["config", "user.email", "ack@keel.invalid"]))
        .expect("git config");
}

/// Runs `keel ack ARGS --repo REPO` from inside the repository at [`ACK_DATE`].
fn ack(repo: &FixtureRepo, args: &[&str]) -> Run {
    let root = repo.path().display().to_string();
    keel(repo.path())
        .arg("ack")
        .args(args)
        .args(["--repo", root.as_str()])
        .env("GIT_AUTHOR_DATE", ACK_DATE)
        .env("GIT_COMMITTER_DATE", ACK_DATE)
        .output()
        .expect("the keel binary runs")
        .into()
}

/// The repository of node `app` (`app.py#f`) whose second commit hits `f`, with an
/// identity; `keel lint` reports the hit and blocks.
fn repo_with_hit() -> FixtureRepo {
    let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 2"))
        .expect("write");
    repo.commit("Change f").expect("commit");
    configure_identity(&repo);
    let before = lint(repo.path(), &["--format", "json"]);
    assert_eq!(before.code, 1, "the hit blocks:\n{}", before.render(None));
    assert_eq!(before.json()["findings"][0]["code"], "anchor-hit");
    repo
}

fn git(repo: &FixtureRepo, args: &[&str]) -> String {
    repo.git(args).expect("git runs").trim().to_owned()
}

/// Runs `keel ack ARGS`, checks the refusal contract (exit 2, one `error:` line with a
/// repair, nothing on stdout, no panic) and that neither the files, the set of files under
/// `.git/`, HEAD nor `git status` changed; returns the error line.
fn refused(repo: &FixtureRepo, args: &[&str]) -> String {
    let before = (
        listing(repo.path()),
        status(repo),
        repo.git(&["rev-parse", "HEAD"]).ok(),
    );
    let run = ack(repo, args);
    let after = (
        listing(repo.path()),
        status(repo),
        repo.git(&["rev-parse", "HEAD"]).ok(),
    );
    assert_eq!(after, before, "keel ack wrote into the repository");
    run.assert_no_panic();
    assert_eq!(run.code, 2, "exit 2 expected:\n{}", run.render(None));
    assert!(run.stdout.is_empty(), "nothing on stdout:\n{}", run.stdout);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line on stderr:\n{}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    assert!(lines[0].contains("repair: "), "{}", lines[0]);
    lines[0].to_owned()
}

#[test]
fn keel_ack_writes_a_checkpoint_and_lint_no_longer_reports_the_hit() {
    let repo = repo_with_hit();
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let status_before = status(&repo);

    let run = ack(&repo, &["app"]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    let mut settings = snapshot_settings();
    settings.set_description("keel ack app --repo [REPO]");
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("cli_ack_text", run.render(Some(repo.path()))));

    let checkpoint = git(&repo, &["rev-parse", "HEAD"]);
    assert!(
        run.stdout.contains(&checkpoint),
        "the new commit id is printed"
    );
    assert_eq!(
        git(&repo, &["rev-parse", "HEAD^"]),
        head,
        "its parent is HEAD"
    );
    assert_eq!(
        git(&repo, &["rev-parse", "HEAD^{tree}"]),
        git(&repo, &["rev-parse", "HEAD^^{tree}"]),
        "its tree is HEAD's"
    );
    assert_eq!(
        repo.git(&["log", "-1", "--format=%B"]).expect("git log"),
        "Acknowledge spec drift for app\n\nSpec-OK: app\n\n"
    );
    assert_eq!(
        git(
            &repo,
            &["log", "-1", "--format=%(trailers:key=Spec-OK,valueonly)"]
        ),
        "app",
        "git reads the trailer"
    );
    assert_eq!(
        git(
            &repo,
            &["log", "-1", "--format=%an <%ae> %cn <%ce> %at %ct"]
        ),
        "Ack Author <ack@keel.invalid> Ack Author <ack@keel.invalid> 1767312000 1767312000"
    );
    for reflog in ["main", "HEAD"] {
        assert_eq!(
            git(&repo, &["reflog", "-1", "--format=%gs", reflog]),
            "keel ack: app",
            "the {reflog} reflog names the ack"
        );
    }
    assert_eq!(git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(
        status(&repo),
        status_before,
        "the work tree and index are untouched"
    );

    let after = lint(repo.path(), &["--format", "json"]);
    assert_eq!(after.code, 0, "nothing blocks:\n{}", after.render(None));
    assert_eq!(
        after.json()["findings"],
        serde_json::json!([]),
        "the checkpoint acknowledges the hit"
    );
}

#[test]
fn keel_ack_takes_the_subject_from_m() {
    let repo = repo_with_hit();
    let run = ack(&repo, &["app", "-m", "Reviewed: f may add 2"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(
        repo.git(&["log", "-1", "--format=%B"]).expect("git log"),
        "Reviewed: f may add 2\n\nSpec-OK: app\n\n"
    );
}

#[test]
fn a_second_ack_with_nothing_left_is_refused() {
    let repo = repo_with_hit();
    assert_eq!(ack(&repo, &["app"]).code, 0);
    let error = refused(&repo, &["app"]);
    assert!(error.contains("acknowledged already"), "{error}");
}

#[test]
fn an_unknown_node_is_refused_naming_the_closest_ids() {
    let repo = repo_with(&[
        (".spec/app/spec.md", spec(&["app.py#f"]).as_bytes()),
        (".spec/api/spec.md", spec(&["app.py#g"]).as_bytes()),
        (".spec/zzz/spec.md", spec(&["app.py"]).as_bytes()),
    ]);
    configure_identity(&repo);
    let error = refused(&repo, &["apq"]);
    assert!(error.contains("`apq` is no spec node at HEAD"), "{error}");
    assert!(error.contains("closest known: api, app, zzz"), "{error}");
}

#[test]
fn staged_changes_are_refused() {
    let repo = repo_with_hit();
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 3"))
        .expect("write");
    git(&repo, &["add", "app.py"]);
    let error = refused(&repo, &["app"]);
    assert!(
        error.contains("changes staged against HEAD (app.py)"),
        "{error}"
    );
    assert!(error.contains("commit or unstage them first"), "{error}");
}

#[test]
fn unstaged_and_untracked_changes_do_not_block_the_ack() {
    let repo = repo_with_hit();
    repo.write("app.py", "changed in the work tree only\n")
        .and_then(|r| r.write("new.txt", "untracked\n"))
        .expect("write");
    git(&repo, &["add", "-N", "new.txt"]);
    let status_before = status(&repo);
    let run = ack(&repo, &["app"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(
        status(&repo),
        status_before,
        "the work tree and index are untouched"
    );
}

#[test]
fn a_detached_head_is_refused() {
    let repo = repo_with_hit();
    git(&repo, &["checkout", "-q", "--detach"]);
    let error = refused(&repo, &["app"]);
    assert!(error.contains("HEAD is detached"), "{error}");
    assert!(error.contains("git switch"), "{error}");
}

#[test]
fn a_rebase_in_progress_is_refused() {
    let mut repo = repo_with_hit();
    git(&repo, &["checkout", "-q", "-b", "topic", "HEAD~1"]);
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 4"))
        .expect("write");
    repo.commit("Conflicting change").expect("commit");
    assert!(
        repo.git(&["rebase", "main"]).is_err(),
        "the rebase stops at the conflict"
    );
    let error = refused(&repo, &["app"]);
    assert!(error.contains("a rebase is in progress"), "{error}");
    assert!(
        error.contains("git rebase --continue") && error.contains("git rebase --abort"),
        "{error}"
    );
}

#[test]
fn a_merge_in_progress_is_refused() {
    let mut repo = repo_with_hit();
    git(&repo, &["checkout", "-q", "-b", "side", "HEAD~1"]);
    repo.write("other.txt", "side\n").expect("write");
    repo.commit("Side work").expect("commit");
    git(&repo, &["checkout", "-q", "main"]);
    git(&repo, &["merge", "-q", "--no-ff", "--no-commit", "side"]);
    let error = refused(&repo, &["app"]);
    assert!(error.contains("MERGE_HEAD"), "{error}");
    assert!(error.contains("git merge --abort"), "{error}");
}

#[test]
fn an_unborn_branch_is_refused() {
    let repo = FixtureRepo::new().expect("a fixture repository");
    configure_identity(&repo);
    let error = refused(&repo, &["app"]);
    assert!(error.contains("branch main has no commits yet"), "{error}");
}

#[test]
fn a_missing_identity_is_refused_naming_git_config() {
    let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 2"))
        .expect("write");
    repo.commit("Change f").expect("commit");
    let error = refused(&repo, &["app"]);
    assert!(error.contains("git config user.email"), "{error}");
}

/// Nodes `api` (`app.py#f`), `app` (`app.py#g`) and `quiet` (`other.py#h`); one commit
/// changes `f` and `g`, so `api` and `app` owe it and `quiet` owes nothing.
fn repo_with_two_nodes_owing() -> FixtureRepo {
    let mut repo = repo_with(&[
        (".spec/api/spec.md", spec(&["app.py#f"]).as_bytes()),
        (".spec/app/spec.md", spec(&["app.py#g"]).as_bytes()),
        (".spec/quiet/spec.md", spec(&["other.py#h"]).as_bytes()),
        ("other.py", b"def h():\n    return 1\n"),
    ]);
    repo.write(
        "app.py",
        &APP_PY
            .replace("x + 1", "x + 2")
            .replace("return 0", "return 5"),
    )
    .expect("write");
    repo.commit("Change f and g").expect("commit");
    configure_identity(&repo);
    repo
}

/// The nodes with findings in `keel lint --format json`, sorted.
fn nodes_with_findings(repo: &FixtureRepo) -> Vec<String> {
    let run = lint(repo.path(), &["--format", "json"]);
    let mut nodes: Vec<String> = run.json()["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| finding["node"].as_str().expect("a node").to_owned())
        .collect();
    nodes.dedup();
    nodes
}

#[test]
fn one_checkpoint_acknowledges_several_nodes_and_lists_their_commits() {
    let repo = repo_with_two_nodes_owing();
    assert_eq!(nodes_with_findings(&repo), ["api", "app"]);
    let changed = git(&repo, &["rev-parse", "--short=12", "HEAD"]);
    let run = ack(&repo, &["app", "api", "app"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(
        repo.git(&["log", "-1", "--format=%B"]).expect("git log"),
        "Acknowledge spec drift for app, api\n\nSpec-OK: app\nSpec-OK: api\n\n",
        "one trailer per node, each once"
    );
    for node in ["app", "api"] {
        assert!(
            run.stdout
                .contains(&format!("Spec-OK: {node} acknowledges 1 commit since")),
            "{}",
            run.stdout
        );
    }
    assert!(
        run.stdout.contains(&format!("  {changed} Change f and g")),
        "the acknowledged commit is listed: {}",
        run.stdout
    );
    assert_eq!(
        git(&repo, &["reflog", "-1", "--format=%gs", "main"]),
        "keel ack: app, api"
    );
    assert!(nodes_with_findings(&repo).is_empty());
    assert_eq!(lint(repo.path(), &[]).code, 0);
}

#[test]
fn ack_all_acknowledges_every_owing_node_and_then_refuses_with_nothing_left() {
    let repo = repo_with_two_nodes_owing();
    let run = ack(&repo, &["--all"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(
        git(
            &repo,
            &[
                "log",
                "-1",
                "--format=%(trailers:key=Spec-OK,valueonly,separator=%x2C)"
            ]
        ),
        "api,app",
        "the owing nodes, not the quiet one"
    );
    assert!(nodes_with_findings(&repo).is_empty());
    let error = refused(&repo, &["--all"]);
    assert!(error.contains("no node owes anything"), "{error}");
}

#[test]
fn a_refused_node_among_several_writes_nothing() {
    let repo = repo_with_two_nodes_owing();
    let error = refused(&repo, &["api", "nope"]);
    assert!(error.contains("`nope` is no spec node"), "{error}");
    let neither = ack(&repo, &[]);
    assert_eq!(neither.code, 2, "{}", neither.render(None));
    assert!(neither.stderr.contains("<NODES>"), "{}", neither.stderr);
}
