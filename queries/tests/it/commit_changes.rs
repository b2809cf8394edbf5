//! What each commit authored (`history::commit_changes`) held to git's own answer on a
//! built history: `git diff-tree -r --no-renames` for a commit with one parent (or none),
//! and `git diff-tree -r -c --no-renames` for a merge (the files that differ from every
//! parent). The history has nested folders, a file replaced by a folder of the same name,
//! deletions, a merge that takes both sides, a merge that keeps one side's file over the
//! other's, and a merge that authors content of its own.

use crate::support::{commit, git, repo};
use keel_engine::{KeelDatabase, Oid};
use keel_fixtures::FixtureRepo;
use keel_queries::history::commit_changes;
use keel_queries::tree::{lookup, lookup_all};

/// One file a commit authored: its path, the first parent's blob and the commit's blob.
type Authored = (String, Option<Oid>, Option<Oid>);

/// A blob id from `git diff-tree --raw`, `None` for the all-zero id (no file that side).
fn raw_oid(hex: &str) -> Option<Oid> {
    if hex.bytes().all(|byte| byte == b'0') {
        return None;
    }
    Some(Oid::from_hex(hex).expect("diff-tree prints full ids"))
}

/// The files git says `commit` authored, as (path, first parent's blob, commit's blob).
fn git_authored(repo: &FixtureRepo, commit: &str) -> Vec<Authored> {
    let parents = repo
        .git(&["rev-list", "--parents", "-n", "1", commit])
        .expect("rev-list");
    let merge = parents.split_whitespace().count() > 2;
    let mut args = vec![
        "diff-tree",
        "-r",
        "--no-renames",
        "--no-commit-id",
        "--root",
    ];
    if merge {
        args.push("-c");
    }
    args.push(commit);
    let raw = repo.git(&args).expect("diff-tree");
    let mut authored: Vec<Authored> = raw
        .lines()
        .filter_map(|line| {
            let (meta, path) = line.split_once('\t')?;
            // `:old-mode new-mode old new status`; a merge's line has one colon, mode
            // and id per parent before the commit's own.
            let fields: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            let sides = fields.len() / 2;
            let first_parent = fields.get(sides)?;
            let own = fields.get(2 * sides - 1)?;
            Some((path.to_owned(), raw_oid(first_parent), raw_oid(own)))
        })
        .collect();
    authored.sort();
    authored
}

/// A history whose merges take both sides, keep one side's file, and author their own.
fn branchy_history() -> FixtureRepo {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", "a = 1\n"),
            ("d", "a file named d\n"),
            ("src/pkg/x.py", "x = 1\n"),
            ("src/pkg/y.py", "y = 1\n"),
            ("src/pkg/deep/z.py", "z = 1\n"),
            ("docs/guide.md", "guide\n"),
        ],
        "root",
    );
    git(&repo, &["checkout", "-q", "-b", "side"]);
    repo.remove("docs/guide.md").expect("remove");
    commit(
        &mut repo,
        &[("src/pkg/x.py", "x = 2\n"), ("src/new/n.py", "n = 1\n")],
        "side edits x, adds n, deletes the guide",
    );
    commit(
        &mut repo,
        &[("src/pkg/deep/z.py", "z = 2\n")],
        "side edits z",
    );
    git(&repo, &["checkout", "-q", "main"]);
    repo.remove("d").expect("remove");
    commit(
        &mut repo,
        &[("d/inner.py", "inner = 1\n"), ("src/pkg/y.py", "y = 2\n")],
        "main turns the file d into a folder and edits y",
    );
    git(
        &repo,
        &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
    );
    git(&repo, &["checkout", "-q", "side"]);
    commit(
        &mut repo,
        &[("src/pkg/x.py", "x = 3\n"), ("a.py", "a = 2\n")],
        "side edits x and a again",
    );
    git(&repo, &["checkout", "-q", "main"]);
    commit(&mut repo, &[("src/pkg/y.py", "y = 3\n")], "main edits y");
    git(&repo, &["merge", "-q", "--no-ff", "--no-commit", "side"]);
    commit(
        &mut repo,
        &[
            ("src/pkg/x.py", "x = 4\n"),
            ("src/pkg/deep/w.py", "w = 1\n"),
        ],
        "merge side, editing x and adding w",
    );
    git(&repo, &["checkout", "-q", "side"]);
    commit(&mut repo, &[("a.py", "a = 3\n")], "side edits a");
    git(&repo, &["checkout", "-q", "main"]);
    git(&repo, &["merge", "-q", "--no-ff", "--no-commit", "side"]);
    git(&repo, &["checkout", "HEAD", "--", "a.py"]);
    repo.commit("merge side, keeping main's a.py")
        .expect("commit");
    repo
}

#[test]
fn what_each_commit_authored_is_what_git_diff_tree_says() {
    let repo = branchy_history();
    let db = KeelDatabase::open(repo.path()).expect("fixture repository opens");
    let commits = repo.git(&["rev-list", "--all"]).expect("rev-list");
    let (mut merges, mut authoring_merges) = (0, 0);
    for id in commits.lines() {
        let oid = Oid::from_hex(id).expect("rev-list prints full ids");
        let known = db
            .known_commit(oid)
            .expect("every commit is an ancestor of the tip");
        let changes = commit_changes(&db, known).as_ref().expect("objects read");
        let keel: Vec<Authored> = changes
            .iter()
            .map(|change| (change.path.clone(), change.old, change.new))
            .collect();
        let git_says = git_authored(&repo, id);
        assert_eq!(keel, git_says, "commit {id}");
        if known.parents(&db).len() > 1 {
            merges += 1;
            authoring_merges += usize::from(!git_says.is_empty());
        }
    }
    assert_eq!(
        (merges, authoring_merges),
        (3, 1),
        "the history holds two merges that author nothing (one takes both sides, one keeps \
         main's a.py over side's) and one that authors files"
    );
}

#[test]
fn paths_looked_up_together_are_found_as_each_is_alone() {
    let repo = branchy_history();
    let db = KeelDatabase::open(repo.path()).expect("fixture repository opens");
    let tip =
        Oid::from_hex(repo.git(&["rev-parse", "HEAD"]).expect("HEAD").trim()).expect("a full id");
    let root = db.commit_tree(tip).expect("the tip's tree");
    let paths = [
        "src/pkg/x.py",
        "src/pkg/deep/w.py",
        "src/pkg/deep",
        "d/inner.py",
        "d",
        "a.py/below",
        "src/pkg/gone.py",
        "src/missing/y.py",
        "src/pkg/x.py",
        "",
        "a.py",
    ];
    let together = lookup_all(&db, root, &paths).expect("objects read");
    let alone: Vec<_> = paths
        .iter()
        .map(|path| lookup(&db, root, path).expect("objects read"))
        .collect();
    assert_eq!(together, alone);
    let found = alone.iter().filter(|entry| entry.is_some()).count();
    assert_eq!(
        found, 7,
        "files, folders and a repeated path are found; the rest are not"
    );
    // Each answer is git's: the object `HEAD:path` names, or none where git finds none
    // (the empty path, which git reads as the root tree itself, names no entry for keel).
    for (path, entry) in paths
        .iter()
        .zip(&together)
        .filter(|(path, _)| !path.is_empty())
    {
        let git_says = repo
            .git(&["rev-parse", "--verify", "-q", &format!("HEAD:{path}")])
            .ok()
            .and_then(|id| Oid::from_hex(id.trim()));
        let keel_says = entry.map(|entry| entry.oid);
        assert_eq!(keel_says, git_says, "{path:?}");
    }
}
