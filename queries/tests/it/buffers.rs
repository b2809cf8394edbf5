//! Editors' unsaved buffers (`ChangeEvent::Buffer`, what `keel lsp` sends on every
//! change): the working tree's commit holds the buffer's text instead of the disk's, a
//! one-line edit in one function re-parses that one image and re-diffs that one pair, a
//! warm answer equals a fresh database's, and closing the buffer returns to the disk.

use crate::support::{count, edit, repo};
use keel_engine::inputs::{KnownCommits, Tip};
use keel_engine::{ChangeEvent, Db as _, KeelDatabase};
use keel_fixtures::demo::build_demo;
use keel_queries::drift::scoped_change;
use keel_queries::images::{image_hunks, image_units};
use keel_queries::lint::{LintReport, lint};
use std::sync::Arc;

const SESSION: &str = "src/auth/session.py";

/// The working tree with `text` as the unsaved buffer of [`SESSION`], linted.
fn lint_with_buffer(db: &mut KeelDatabase, text: Option<&str>) -> LintReport {
    db.apply_changes(&[
        ChangeEvent::Buffer {
            path: SESSION.to_owned(),
            text: text.map(|t| Arc::from(t.as_bytes())),
        },
        ChangeEvent::Worktree,
    ])
    .expect("the working tree is read");
    lint(&*db).expect("lints")
}

/// The ids of the commits `report`'s hits name.
fn hit_commits(report: &LintReport) -> Vec<String> {
    report
        .findings
        .iter()
        .flat_map(|finding| &finding.hits)
        .map(|hit| hit.commit.to_string())
        .collect()
}

#[test]
fn a_buffer_is_the_working_tree_and_one_edit_reparses_one_image() {
    let mut repo = repo();
    build_demo(&mut repo).expect("demo builds");
    let on_disk = std::fs::read_to_string(repo.path().join(SESSION)).expect("read");
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    let at_head = lint(&db).expect("lints");
    let head_hits = hit_commits(&at_head);

    // A change to `login` in the buffer only: the disk still holds HEAD's file.
    let first = edit(&on_disk, "raise PermissionError", "raise ValueError");
    let with_buffer = lint_with_buffer(&mut db, Some(&first));
    let worktree_hits: Vec<String> = hit_commits(&with_buffer)
        .into_iter()
        .filter(|commit| !head_hits.contains(commit))
        .collect();
    assert_eq!(
        worktree_hits.len(),
        1,
        "the buffer's change is one new hit: {with_buffer:?}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join(SESSION)).expect("read"),
        on_disk,
        "nothing was written"
    );
    let _ = db.take_executed_queries();

    // One more edit in the same function: one image parsed, one pair diffed.
    let first_blob = hash_object(&repo, &first);
    assert!(
        db.objects().blob(first_blob).is_ok(),
        "the buffer's text is held"
    );
    let second = edit(&first, "raise ValueError", "raise KeyError");
    let warm = lint_with_buffer(&mut db, Some(&second));
    assert!(
        db.objects().blob(first_blob).is_err(),
        "the replaced buffer's blob is dropped: a session keeps one version per buffer"
    );
    assert!(db.objects().blob(hash_object(&repo, &second)).is_ok());
    let executed = db.take_executed_queries();
    assert_eq!(count(&executed, image_units), 1, "{executed:?}");
    assert_eq!(count(&executed, image_hunks), 1, "{executed:?}");
    assert!(
        count(&executed, scoped_change) >= 1,
        "the new commit is judged"
    );

    let mut fresh = KeelDatabase::open(repo.path()).expect("opens");
    assert_eq!(
        warm,
        lint_with_buffer(&mut fresh, Some(&second)),
        "a warm answer equals a cold one"
    );

    // However many edits, the history is HEAD's and the one working tree commit: each
    // edit's commit replaces the one before.
    let known = KnownCommits::get(&db).commits(&db).len();
    assert_eq!(known, keel_queries::lint::history(&db, tip_of(&db)).len());
    let third = edit(&second, "raise KeyError", "raise OSError");
    lint_with_buffer(&mut db, Some(&third));
    assert_eq!(KnownCommits::get(&db).commits(&db).len(), known);

    // Closing the buffer: the working tree is the disk again, which is HEAD.
    let closed = lint_with_buffer(&mut db, None);
    assert_eq!(closed, at_head);
    assert_eq!(
        KnownCommits::get(&db).commits(&db).len(),
        known - 1,
        "back at HEAD: no working tree commit is known"
    );
}

/// `git hash-object` of `text`: the blob id git gives it (not written).
fn hash_object(repo: &keel_fixtures::FixtureRepo, text: &str) -> keel_engine::Oid {
    let path = repo.path().join(".git").join("buffer-text");
    std::fs::write(&path, text).expect("write");
    let hex = repo
        .git(&["hash-object", &path.display().to_string()])
        .expect("git hash-object");
    keel_engine::Oid::from_hex(hex.trim()).expect("an id")
}

/// The commit the database judges.
fn tip_of(db: &KeelDatabase) -> keel_engine::inputs::Commit {
    Tip::get(db).commit(db).expect("a tip")
}

/// The working tree with `text` as [`SESSION`]'s buffer, linted after keystrokes alone
/// (`ChangeEvent::WorktreeBuffers`: the files on disk as the last read found them).
fn lint_after_keystrokes(db: &mut KeelDatabase, text: &str) -> LintReport {
    db.apply_changes(&[
        ChangeEvent::Buffer {
            path: SESSION.to_owned(),
            text: Some(Arc::from(text.as_bytes())),
        },
        ChangeEvent::WorktreeBuffers,
    ])
    .expect("the working tree is read");
    lint(&*db).expect("lints")
}

#[test]
fn keystrokes_reuse_each_node_s_lineage_and_the_disk_as_last_read() {
    use keel_queries::lineage::tip_lineage;
    use keel_queries::window::node_versions;
    let mut repo = repo();
    build_demo(&mut repo).expect("demo builds");
    let on_disk = std::fs::read_to_string(repo.path().join(SESSION)).expect("read");
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    lint(&db).expect("lints");

    // The first keystrokes make the editor's commit: every node's lineage and versions
    // are read at it (the control: these queries run when the tip is new).
    let first = edit(&on_disk, "raise PermissionError", "raise ValueError");
    lint_after_keystrokes(&mut db, &first);
    let executed = db.take_executed_queries();
    assert!(count(&executed, tip_lineage) > 0, "{executed:?}");
    assert!(count(&executed, node_versions) > 0, "{executed:?}");

    // The next ones set that commit again: one image parsed, and the lineages of files
    // no keystroke touched are not read again.
    let second = edit(&first, "raise ValueError", "raise KeyError");
    let warm = lint_after_keystrokes(&mut db, &second);
    let executed = db.take_executed_queries();
    assert_eq!(count(&executed, image_units), 1, "{executed:?}");
    assert_eq!(count(&executed, tip_lineage), 0, "{executed:?}");
    assert_eq!(count(&executed, node_versions), 0, "{executed:?}");
    let mut fresh = KeelDatabase::open(repo.path()).expect("opens");
    assert_eq!(
        warm,
        lint_with_buffer(&mut fresh, Some(&second)),
        "a warm answer equals a cold one"
    );

    // A file another program writes now is not seen by keystrokes alone, only by the
    // next read of the disk.
    std::fs::write(repo.path().join("NOTES.md"), "outside\n").expect("write");
    let tree_has_notes = |db: &KeelDatabase| {
        keel_queries::units::tree_files(db, tip_of(db))
            .expect("the tip's files")
            .iter()
            .any(|(path, _)| path == "NOTES.md")
    };
    let third = edit(&second, "raise KeyError", "raise OSError");
    lint_after_keystrokes(&mut db, &third);
    assert!(!tree_has_notes(&db), "the disk as last read");
    lint_with_buffer(&mut db, Some(&third));
    assert!(
        tree_has_notes(&db),
        "the next read of the disk sees the new file"
    );

    // A database that judged keystrokes writes no memo: their commit is no immutable
    // commit. (The control: a fresh one does.)
    db.save_memo("buffers-test").expect("saves");
    assert!(!db.memo_path().expect("a path").exists(), "no memo written");
    fresh.save_memo("buffers-test").expect("saves");
    assert!(
        fresh.memo_path().expect("a path").exists(),
        "the control writes one"
    );
}
