//! A second `keel impact` in one process recomputes nothing but the patch's own images:
//! the base's graph is memoized, and the candidate tree, SET to the next patch's files,
//! re-validates every file the patch left alone instead of re-reading it.

use crate::support::{count, set_sources};
use keel_engine::settings::DEFAULT_MAX_FILE_BYTES;
use keel_engine::{Db as _, KeelDatabase};
use keel_queries::callgraph::{file_graph, graph_inputs};
use keel_queries::images::image_units;
use keel_queries::impact::{candidate_files, closure_over, operations_and_changes, patch};

const A_PY: &str = "def f():\n    print(1)\n\n\ndef g():\n    return f()\n";
const B_PY: &str = "def h():\n    print(2)\n";
const C_PY: &str = "def k():\n    print(3)\n";

// Body edits that change no file's interface (what other files may read of it).
const PATCH_A: &str = "--- a/a.py\n+++ b/a.py\n@@ -2 +2 @@\n-    print(1)\n+    print(10)\n";
const PATCH_B: &str = "--- a/b.py\n+++ b/b.py\n@@ -2 +2 @@\n-    print(2)\n+    print(20)\n";

#[test]
fn a_second_patch_on_the_same_tree_reparses_only_its_own_images() {
    let mut db = KeelDatabase::detached();
    let files = vec![
        ("a.py".to_owned(), db.objects().insert_blob(A_PY.as_bytes())),
        ("b.py".to_owned(), db.objects().insert_blob(B_PY.as_bytes())),
        ("c.py".to_owned(), db.objects().insert_blob(C_PY.as_bytes())),
    ];
    let base = db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
    let first = patch::parse("a.diff", PATCH_A.as_bytes()).unwrap_or_default();
    let first_files = candidate_files(&db, "a.diff", &files, &first).unwrap_or_default();
    let candidate = db.sources(graph_inputs(&first_files), DEFAULT_MAX_FILE_BYTES);
    let (_, changes) = operations_and_changes(&db, base, candidate, &first);
    let first_answer = closure_over(&db, base, candidate, &changes);
    let cold = db.take_executed_queries();
    // The control: the cold run parsed every image (three base, one patched) and built a
    // graph per file of both trees.
    assert_eq!(count(&cold, image_units), 4, "{cold:?}");
    assert_eq!(count(&cold, file_graph), 6, "{cold:?}");

    // Same patch again: nothing runs.
    let (_, again) = operations_and_changes(&db, base, candidate, &first);
    assert_eq!(closure_over(&db, base, candidate, &again), first_answer);
    let warm = db.take_executed_queries();
    assert_eq!(count(&warm, image_units), 0, "{warm:?}");
    assert_eq!(count(&warm, file_graph), 0, "{warm:?}");

    // The next patch touches b.py only: its candidate is the base with b.py patched.
    let second = patch::parse("b.diff", PATCH_B.as_bytes()).unwrap_or_default();
    let second_files = candidate_files(&db, "b.diff", &files, &second).unwrap_or_default();
    set_sources(&mut db, candidate, second_files.clone());
    let (_, changes) = operations_and_changes(&db, base, candidate, &second);
    let answer = closure_over(&db, base, candidate, &changes);
    let next = db.take_executed_queries();
    // b.py's new image is parsed; a.py went back to its base image (parsed before); the
    // graphs of those two files are rebuilt, c.py's is not.
    assert_eq!(
        count(&next, image_units),
        1,
        "only b.py's new image: {next:?}"
    );
    assert_eq!(
        count(&next, file_graph),
        2,
        "a.py and b.py, not c.py: {next:?}"
    );
    // And the warm answer equals a cold one.
    let cold_db = KeelDatabase::detached();
    for text in [A_PY, B_PY, C_PY] {
        cold_db.objects().insert_blob(text.as_bytes());
    }
    let cold_base = cold_db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
    let cold_files = candidate_files(&cold_db, "b.diff", &files, &second).unwrap_or_default();
    assert_eq!(cold_files, second_files);
    let cold_candidate = cold_db.sources(graph_inputs(&cold_files), DEFAULT_MAX_FILE_BYTES);
    let (_, cold_changes) = operations_and_changes(&cold_db, cold_base, cold_candidate, &second);
    assert_eq!(
        closure_over(&cold_db, cold_base, cold_candidate, &cold_changes),
        answer
    );
}
