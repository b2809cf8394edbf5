//! The kept lint answer, through the real binary: `keel lint` at HEAD a few one-parent
//! commits past the answer it kept judges only those commits (`kept_answer_extended_by` in
//! `--stats`) and answers what a whole lint of a clone answers; every commit that could
//! move more than its own records (a spec or `keel.toml` edit, a `Spec-OK` trailer, a
//! merge, a governed file added, deleted or renamed, a tip that is no descendant) is
//! judged whole instead, with the same answer; a spoiled kept answer is discarded with
//! one warning.

use super::support::{APP_PY, forget_answer, lint, lint_with_stats, spec, stats_of};
use crate::APP_PY_F_CHANGED;
use keel_fixtures::FixtureRepo;

/// `app.py` (node `app` anchors `f`), `docs/guide.md` (node `docs`: the bare file, the
/// folder `lib`, and the glob `tools/*.py`), and files no node governs.
fn governed_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write("docs/guide.md", "# Guide\n"))
        .and_then(|r| r.write("lib/a.py", "def a():\n    return 1\n"))
        .and_then(|r| r.write("tools/t.py", "def t():\n    return 1\n"))
        .and_then(|r| r.write("other.py", "def h():\n    return 1\n"))
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .and_then(|r| {
            r.write(
                ".spec/docs/spec.md",
                &spec(&["docs/guide.md", "lib/", "tools/*.py"]),
            )
        })
        .expect("write");
    repo.commit("Add the code and its specs").expect("commit");
    repo
}

/// The report of a whole lint: `keel lint` in a fresh clone (no memo, no kept answer) of
/// the repository at its HEAD.
fn whole_lint(repo: &FixtureRepo) -> serde_json::Value {
    let clone = tempfile::tempdir().expect("a temporary folder");
    let target = clone.path().join("clone");
    let cloned = keel_fixtures::pinned_git(repo.path())
        .args(["clone", "--quiet", "--no-hardlinks", "."])
        .arg(&target)
        .status()
        .expect("git runs");
    assert!(cloned.success(), "the clone");
    let (report, stats, _) = lint_with_stats(&target);
    assert!(stats["kept_answer_extended_by"].is_null(), "{stats}");
    report
}

/// Lints after a move and checks the answer against a whole lint: extended by `extended`
/// commits (`None`: judged whole). The report and the stats.
fn lint_after(
    repo: &FixtureRepo,
    what: &str,
    extended: Option<u64>,
) -> (serde_json::Value, serde_json::Value) {
    let (report, stats, warnings) = lint_with_stats(repo.path());
    assert!(warnings.is_empty(), "{what}: {warnings:?}");
    assert_eq!(
        stats["kept_answer_extended_by"].as_u64(),
        extended,
        "{what}: {stats}"
    );
    assert_eq!(report, whole_lint(repo), "{what}: the whole lint's answer");
    (report, stats)
}

#[test]
fn new_commits_extend_the_kept_answer_and_answer_as_a_whole_lint() {
    let mut repo = governed_repo();
    lint_after(&repo, "the first lint", None);
    let (again, stats) = lint_after(&repo, "the same tip", Some(0));
    assert_eq!(stats["images_parsed"], 0, "{stats}");
    assert!(
        again["findings"].as_array().is_some_and(Vec::is_empty),
        "{again}"
    );

    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let hit = repo.commit("Change f").expect("commit");
    let (report, stats) = lint_after(&repo, "an edit inside f", Some(1));
    assert_eq!(
        stats["images_parsed"], 2,
        "the commit's two app.py images: {stats}"
    );
    assert_eq!(stats["hunk_sets_diffed"], 1, "only its hunks: {stats}");
    let hits = crate::findings_of(&report, "anchor-hit");
    assert_eq!(hits[0]["hits"][0]["commit"], hit.as_str(), "{report}");

    // Three commits at once, newest first in the records: outside f, the bare file, the
    // folder and the glob, and a file no node governs, added.
    repo.write(
        "app.py",
        &format!("{APP_PY_F_CHANGED}\n\ndef k():\n    return 3\n"),
    )
    .expect("add k");
    let missed = repo.commit("Add k").expect("commit");
    repo.write("docs/guide.md", "# Guide\n\nMore.\n")
        .and_then(|r| r.write("lib/a.py", "def a():\n    return 2\n"))
        .and_then(|r| r.write("tools/t.py", "def t():\n    return 2\n"))
        .expect("write");
    let drift = repo.commit("Edit the docs, lib and tools").expect("commit");
    repo.write("new.py", "x = 1\n").expect("write");
    repo.commit("Add a file no node governs").expect("commit");
    let (report, stats) = lint_after(&repo, "three commits", Some(3));
    assert_eq!(
        stats["hunk_sets_diffed"], 1,
        "app.py's, which k only adds to: {stats}"
    );
    let misses = crate::findings_of(&report, "scoped-code-miss");
    assert_eq!(misses[0]["hits"][0]["commit"], missed.as_str(), "{report}");
    let drifts = crate::findings_of(&report, "code-drift");
    assert_eq!(
        drifts.len(),
        3,
        "the file, the folder and the glob: {report}"
    );
    for finding in drifts {
        assert_eq!(finding["hits"][0]["commit"], drift.as_str(), "{report}");
    }
}

/// A move on the repository.
type Move = dyn Fn(&mut FixtureRepo);

#[test]
fn commits_that_move_more_than_their_records_are_judged_whole() {
    let mut repo = governed_repo();
    lint_after(&repo, "the first lint", None);
    let moves: [(&str, &Move); 9] = [
        ("a spec edit", &|repo| {
            repo.write(".spec/app/spec.md", &spec(&["app.py#f,g"]))
                .expect("write");
            repo.commit("Anchor g too").expect("commit");
        }),
        ("a keel.toml edit", &|repo| {
            repo.write("keel.toml", "[lint]\nscoped_code_miss = \"ignore\"\n")
                .expect("write");
            repo.commit("Ignore misses").expect("commit");
        }),
        ("a Spec-OK trailer", &|repo| {
            repo.write("other.py", "def h():\n    return 9\n")
                .expect("write");
            repo.commit("Touch other\n\nSpec-OK: app").expect("commit");
        }),
        ("a file added under a governed folder", &|repo| {
            repo.write("lib/b.py", "def b():\n    return 1\n")
                .expect("write");
            repo.commit("Add lib/b").expect("commit");
        }),
        ("a governed file renamed", &|repo| {
            repo.git(&["mv", "tools/t.py", "tools/u.py"])
                .expect("git mv");
            repo.commit("Rename the tool").expect("commit");
        }),
        ("an anchored file deleted", &|repo| {
            repo.remove("app.py").expect("remove");
            repo.commit("Delete app").expect("commit");
        }),
        ("a tip that is no descendant", &|repo| {
            repo.git(&["reset", "--quiet", "--hard", "HEAD~1"])
                .expect("reset");
        }),
        ("an amended tip", &|repo| {
            repo.write("other.py", "def h():\n    return 10\n")
                .expect("write");
            repo.git(&["commit", "--quiet", "--amend", "-am", "Amended"])
                .expect("amend");
        }),
        ("a merge", &|repo| {
            repo.git(&["checkout", "--quiet", "-b", "side", "HEAD~1"])
                .expect("branch");
            repo.write("side.txt", "s\n").expect("write");
            repo.commit("Side").expect("commit");
            repo.git(&["checkout", "--quiet", "-"]).expect("back");
            repo.git(&["merge", "--quiet", "--no-ff", "-m", "Merge side", "side"])
                .expect("merge");
        }),
    ];
    for (what, make) in moves {
        make(&mut repo);
        lint_after(&repo, what, None);
    }
}

#[test]
fn a_spoiled_kept_answer_is_discarded_with_one_warning_and_the_whole_answer() {
    let mut repo = governed_repo();
    lint_after(&repo, "the first lint", None);
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    let kept = repo.path().join(".git/keel/lint.bin");
    let good = std::fs::read(&kept).expect("the answer was kept");
    let cases: [(&str, Vec<u8>); 3] = [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("one byte flipped", {
            let mut bytes = good.clone();
            let last = bytes.len() - 1;
            bytes[last] ^= 0xff;
            bytes
        }),
        ("not an answer", b"hello\n".to_vec()),
    ];
    for (what, bytes) in cases {
        std::fs::write(&kept, &bytes).expect("spoil the kept answer");
        let (report, stats, warnings) = lint_with_stats(repo.path());
        assert_eq!(warnings.len(), 1, "{what}: one warning: {warnings:?}");
        assert!(
            warnings[0].contains("kept lint answer"),
            "{what}: {warnings:?}"
        );
        assert!(
            stats["kept_answer_extended_by"].is_null(),
            "{what}: {stats}"
        );
        assert_eq!(report, whole_lint(&repo), "{what}");
        let (_, stats, warnings) = lint_with_stats(repo.path());
        assert!(warnings.is_empty(), "{what}: rewritten: {warnings:?}");
        assert_eq!(stats["kept_answer_extended_by"], 0, "{what}: {stats}");
    }
}

#[test]
fn a_candidate_past_the_kept_answer_is_judged_by_extending_it() {
    let repo = governed_repo();
    lint_after(&repo, "the first lint", None);
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.git(&["add", "app.py"]).expect("stage");
    let candidate = repo
        .git(&[
            "commit-tree",
            "-p",
            "HEAD",
            "-m",
            "Change f",
            repo.git(&["write-tree"]).expect("a tree").trim(),
        ])
        .expect("a candidate")
        .trim()
        .to_owned();
    let run = lint(
        repo.path(),
        &["--pending", &candidate, "--stats", "--format", "json"],
    );
    run.assert_no_panic();
    let (stats, _) = stats_of(&run);
    assert_eq!(stats["kept_answer_extended_by"], 1, "{stats}");
    forget_answer(repo.path());
    let whole = lint(repo.path(), &["--pending", &candidate, "--format", "json"]);
    assert_eq!(run.json(), whole.json(), "the candidate judged whole");
    assert_eq!(run.code, 1, "the hit blocks");
}

#[test]
fn the_hook_refuses_a_commit_past_the_kept_answer_without_reading_the_memo() {
    let mut repo = governed_repo();
    let repo_arg = repo.path().display().to_string();
    let installed = super::support::run(repo.path(), &["hook", "install", "--repo", &repo_arg]);
    assert_eq!(installed.code, 0, "{}", installed.stderr);
    lint_after(&repo, "the first lint", None);
    let memo = repo.path().join(".git/keel/memo.bin");
    let before = std::fs::read(&memo).expect("the memo");
    let head = repo.git(&["rev-parse", "HEAD"]).expect("HEAD");

    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    assert!(
        repo.commit("Change f").is_err(),
        "the hook refuses the commit"
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD"]).expect("HEAD"),
        head,
        "HEAD stays"
    );
    assert_eq!(
        std::fs::read(&memo).expect("the memo"),
        before,
        "the memo was not read"
    );

    // A governed file the hook judges (a warning, which does not block).
    repo.write("docs/guide.md", "# Guide\n\nMore.\n")
        .expect("edit the guide");
    repo.git(&["checkout", "--quiet", "HEAD", "--", "app.py"])
        .expect("drop the edit of f");
    repo.commit("Edit the guide")
        .expect("the hook lets it pass");
    let (_, stats) = lint_after(&repo, "the commit the hook let pass", Some(0));
    assert_eq!(
        stats["images_parsed"], 0,
        "the hook kept its answer: {stats}"
    );
    assert_eq!(
        std::fs::read(&memo).expect("the memo"),
        before,
        "still not read"
    );
}

#[test]
fn each_work_tree_keeps_its_own_answer() {
    let repo = governed_repo();
    let linked = tempfile::tempdir().expect("a temporary folder");
    let other = linked.path().join("other");
    let other_arg = other.display().to_string();
    repo.git(&["worktree", "add", "--quiet", "-b", "other", &other_arg])
        .expect("a linked work tree");
    std::fs::write(other.join("other.py"), "def h():\n    return 7\n").expect("write");
    let committed = keel_fixtures::pinned_git(&other)
        .args(["commit", "--quiet", "-am", "Change other there"])
        .status()
        .expect("git runs");
    assert!(committed.success(), "the linked work tree moves on");

    lint_after(&repo, "the main work tree", None);
    let (_, stats, _) = lint_with_stats(&other);
    assert!(stats["kept_answer_extended_by"].is_null(), "{stats}");
    let (_, stats, _) = lint_with_stats(&other);
    assert_eq!(
        stats["kept_answer_extended_by"], 0,
        "its own answer: {stats}"
    );
    lint_after(&repo, "the main work tree again", Some(0));

    let cleared = super::support::run(repo.path(), &["cache", "clear"]);
    let removed: Vec<&str> = cleared
        .stdout
        .lines()
        .filter(|line| line.contains("lint"))
        .collect();
    assert_eq!(removed.len(), 2, "both answers: {}", cleared.stdout);
}
