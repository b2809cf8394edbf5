//! Incrementality as a contract: which tracked queries re-run after each kind of change,
//! read from salsa's `WillExecute` events, and warm answers equal cold ones.

use crate::support::count;
use crate::support::{commit, edit, repo};
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::demo::build_demo;
use keel_queries::drift::scoped_change;
use keel_queries::events::merge_owned;
use keel_queries::history::commit_facts;
use keel_queries::images::{image_hunks, image_units};
use keel_queries::lint::{lint, settings_image};
use keel_queries::renames::tree_renames;
use keel_queries::tree::tree_items;

const SESSION_PY_EDITED: &str = "import time\n\n\ndef login(user, password):\n    if not user.check(password):\n        raise PermissionError(\"bad password\")\n    user.audit(\"login\")\n    return Session(user)\n\n\nclass Session:\n    def __init__(self, user):\n        self.user = user\n        self.expires = time.time() + 3600\n\n    def refresh(self):\n        self.expires = time.time() + 7200\n        return self.expires\n\n\ndef logout(session):\n    session.expires = 0\n";

#[test]
fn relint_after_one_commit_parses_only_its_image_and_diffs_only_its_pair() {
    let mut repo = repo();
    build_demo(&mut repo).expect("demo builds");
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    let cold = lint(&db).expect("lints");
    let cold_run = db.take_executed_queries();
    assert!(
        count(&cold_run, image_units) > 1,
        "the cold run parses the history's images"
    );

    let added = commit(
        &mut repo,
        &[("src/auth/session.py", SESSION_PY_EDITED)],
        "Refresh for two hours",
    );
    let changes = db
        .apply_changes(&[ChangeEvent::TipMoved])
        .expect("tip re-read");
    assert!(changes.tip_moved);
    let warm = lint(&db).expect("lints");
    let warm_run = db.take_executed_queries();

    assert_eq!(
        count(&warm_run, image_units),
        1,
        "only the new session.py image is parsed: {warm_run:?}"
    );
    assert_eq!(
        count(&warm_run, image_hunks),
        1,
        "only the new (parent, result) pair is diffed"
    );
    assert_eq!(
        count(&warm_run, commit_facts),
        1,
        "only the new commit's tree diff is taken and its trailers read"
    );
    assert_eq!(
        count(&warm_run, scoped_change),
        1,
        "only the scoped entry whose file the new commit touched judges it: {warm_run:?}"
    );
    assert_eq!(
        count(&warm_run, tree_items),
        3,
        "only the new root, src and src/auth trees are read"
    );

    let fresh = KeelDatabase::open(repo.path()).expect("opens");
    assert_eq!(
        warm,
        lint(&fresh).expect("lints"),
        "a warm answer equals a cold one"
    );
    assert_ne!(warm, cold, "the new commit is a hit on Session.refresh");
    assert!(warm.findings[0].hits.iter().any(|h| *h.commit == *added));
}

#[test]
fn relint_without_change_executes_nothing_expensive() {
    let mut repo = repo();
    build_demo(&mut repo).expect("demo builds");
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    let first = lint(&db).expect("lints");
    db.take_executed_queries();
    let changes = db.apply_changes(&[ChangeEvent::Rescan]).expect("rescan");
    assert!(!changes.tip_moved, "nothing moved");
    assert_eq!(lint(&db).expect("lints"), first);
    assert!(
        db.take_executed_queries().is_empty(),
        "no query re-runs when no input changed"
    );
}

#[test]
fn a_settings_commit_reparses_no_image() {
    let mut repo = repo();
    build_demo(&mut repo).expect("demo builds");
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    let before = lint(&db).expect("lints");
    let cold = db.take_executed_queries();
    assert!(
        count(&cold, image_units) > 0,
        "the cold lint parses: {cold:?}"
    );
    assert!(
        count(&cold, image_hunks) > 0,
        "the cold lint diffs: {cold:?}"
    );
    commit(
        &mut repo,
        &[("keel.toml", "[lint]\nscoped_code_miss = \"ignore\"\n")],
        "Ignore scoped misses",
    );
    let changes = db
        .apply_changes(&[ChangeEvent::TipMoved])
        .expect("tip re-read");
    assert!(changes.tip_moved, "settings come from the tip's tree");
    let after = lint(&db).expect("lints");
    let run = db.take_executed_queries();
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(count(&run, image_hunks), 0);
    assert_eq!(count(&run, settings_image), 1, "{run:?}");
    assert_eq!(
        before.findings, after.findings,
        "the demo has no scoped miss, so the findings are unchanged"
    );
}

#[test]
fn warming_shares_on_clones_changes_no_answer_and_parses_each_image_once() {
    let mut repo = repo();
    build_demo(&mut repo).expect("demo builds");
    let sequential = KeelDatabase::open(repo.path()).expect("opens");
    let expected = lint(&sequential).expect("lints");
    let sequential_parses = count(&sequential.take_executed_queries(), image_units);
    assert!(sequential_parses > 0, "the sequential lint parses");

    let db = KeelDatabase::open(repo.path()).expect("opens");
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for index in 0..3 {
            let clone = db.clone();
            let next = &next;
            scope.spawn(move || {
                keel_queries::lint::warm_share(
                    &clone,
                    index,
                    3,
                    keel_queries::lint::Scope::Full,
                    next,
                )
            });
        }
    });
    let warmed = db.take_executed_queries();
    assert_eq!(
        count(&warmed, image_units),
        sequential_parses,
        "the shares parse every image lint needs, each once"
    );
    assert_eq!(lint(&db).expect("lints"), expected);
    assert_eq!(
        count(&db.take_executed_queries(), image_units),
        0,
        "lint finds them warm"
    );
}

#[test]
fn relint_after_a_merge_computes_only_its_ownership() {
    const PY: &str =
        "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n";
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            (".spec/n/spec.md", &crate::support::spec(&["a.py#f"], &[])),
        ],
        "v1",
    );
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    let cold = lint(&db).expect("lints");
    db.take_executed_queries();

    repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
    commit(
        &mut repo,
        &[("a.py", &PY.replace("return 3", "return 30"))],
        "side edits h",
    );
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    commit(
        &mut repo,
        &[("a.py", &PY.replace("return 2", "return 20"))],
        "main edits g",
    );
    repo.git(&["merge", "-q", "--no-ff", "-m", "merge side", "side"])
        .expect("a clean merge");
    db.apply_changes(&[ChangeEvent::TipMoved])
        .expect("tip re-read");
    let warm = lint(&db).expect("lints");
    let warm_run = db.take_executed_queries();

    assert_eq!(
        count(&warm_run, merge_owned),
        1,
        "the merge changed a.py against both parents: its ownership is computed once: {warm_run:?}"
    );
    assert_eq!(
        count(&warm_run, image_units),
        3,
        "the two side commits' images, and the merge's image once for the tip verdicts only: \
         the merge owns no line, so judging it parses nothing"
    );
    assert_eq!(
        count(&warm_run, image_hunks),
        4,
        "one pair per side commit, one per merge parent"
    );
    assert_eq!(count(&warm_run, commit_facts), 3);
    assert_eq!(
        count(&warm_run, tree_renames),
        0,
        "no file was added or deleted: rename detection never runs"
    );
    assert_ne!(warm, cold, "the two edits are misses of a.py#f");
    let fresh = KeelDatabase::open(repo.path()).expect("opens");
    assert_eq!(warm, lint(&fresh).expect("lints"), "warm equals cold");

    // The control: a commit that adds an anchored file runs rename detection, so the
    // zero above is not for want of a way to run it.
    commit(
        &mut repo,
        &[
            ("b.py", &PY.replace("return 1", "return 10")),
            (
                ".spec/n/spec.md",
                &crate::support::spec(&["a.py#f", "b.py#f"], &[]),
            ),
        ],
        "add b.py",
    );
    db.apply_changes(&[ChangeEvent::TipMoved])
        .expect("tip re-read");
    lint(&db).expect("lints");
    let added_run = db.take_executed_queries();
    assert!(
        count(&added_run, tree_renames) > 0,
        "b.py was added: {added_run:?}"
    );
}

#[test]
fn a_commit_that_only_adds_lines_is_judged_without_its_parents_image() {
    use crate::support::{TWO_FUNCTIONS_PY, node_findings, spec};
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("app.py", TWO_FUNCTIONS_PY),
            (".spec/app/spec.md", &spec(&["app.py#f"], &[])),
        ],
        "Add app and its spec",
    );
    let with_h = format!("{TWO_FUNCTIONS_PY}\n\ndef h():\n    return 3\n");
    let added = commit(&mut repo, &[("app.py", &with_h)], "Add h");

    let db = KeelDatabase::open(repo.path()).expect("opens");
    let report = lint(&db).expect("lints");
    let run = db.take_executed_queries();
    assert_eq!(
        node_findings(&report, "app"),
        [("scoped-code-miss".to_owned(), vec![], vec![added.clone()])],
        "h lies outside f"
    );
    assert_eq!(
        count(&run, scoped_change),
        1,
        "the one window event: {run:?}"
    );
    assert_eq!(
        count(&run, image_units),
        1,
        "only the tip's app.py: the commit deleted no line, so the image it replaced is \
         never read: {run:?}"
    );

    // Control: a commit that changes a line of f is judged on both of its images, so a
    // fresh database now parses the tip's app.py and the one before it (the first
    // app.py stays unread).
    let changed = commit(
        &mut repo,
        &[("app.py", &edit(&with_h, "a = 1", "a = 2"))],
        "Change f",
    );
    let db = KeelDatabase::open(repo.path()).expect("opens");
    let report = lint(&db).expect("lints");
    let run = db.take_executed_queries();
    assert_eq!(
        node_findings(&report, "app"),
        [
            ("anchor-hit".to_owned(), vec!["f".to_owned()], vec![changed]),
            ("scoped-code-miss".to_owned(), vec![], vec![added]),
        ],
        "f changed, h was added outside it"
    );
    assert_eq!(
        count(&run, image_units),
        2,
        "the two newest app.py images: {run:?}"
    );
}

#[test]
fn a_dead_anchors_home_search_reads_each_file_once_and_after_a_commit_only_the_new_one() {
    use crate::support::{count_named, spec};
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            (".spec/app/spec.md", &spec(&["app.py#gone"], &[])),
            ("app.py", "def kept():\n    return 1\n"),
            ("a.py", "def gone():\n    return 2\n"),
            ("b.py", "def other():\n    return 3\n"),
        ],
        "Add the files and a spec whose anchor is dead",
    );
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    lint(&db).expect("lints");
    let cold_run = db.take_executed_queries();
    assert_eq!(
        count_named(&cold_run, "image_words"),
        2,
        "a.py and b.py, the files the search reads: {cold_run:?}"
    );

    commit(
        &mut repo,
        &[("b.py", "def other():\n    return 4\n")],
        "Change b",
    );
    db.apply_changes(&[ChangeEvent::TipMoved])
        .expect("tip re-read");
    let warm = lint(&db).expect("lints");
    let warm_run = db.take_executed_queries();
    assert_eq!(
        count_named(&warm_run, "image_words"),
        1,
        "only the new b.py is read: {warm_run:?}"
    );
    let fresh = KeelDatabase::open(repo.path()).expect("opens");
    assert_eq!(warm, lint(&fresh).expect("lints"));
    let repair = &warm.findings[0].repair;
    assert!(repair.contains("`a.py#gone`"), "{repair}");
}
