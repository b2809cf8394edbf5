//! A kept lint state extended by new commits (`lint::extend`) reads only those commits:
//! the per-commit queries run for them and for no commit before them, and the answer is
//! a whole lint's.

use crate::loop_events::assert_same;
use crate::support::{commit, count, lint_repo, repo, spec};
use keel_engine::inputs::Tip;
use keel_engine::{KeelDatabase, Oid};
use keel_queries::history::{commit_facts, tip_index};
use keel_queries::images::image_hunks;
use keel_queries::lint::{Scope, extend, lint_state_at};

#[test]
fn extending_a_kept_state_judges_only_the_commits_since_it() {
    let mut repo = repo();
    let f = |n: usize| format!("def f():\n    return {n}\n\n\ndef g():\n    return 0\n");
    commit(
        &mut repo,
        &[
            ("app.py", &f(0)),
            (".spec/app/spec.md", &spec(&["app.py#f"], &[])),
        ],
        "Add app",
    );
    for n in 1..=12 {
        commit(&mut repo, &[("app.py", &f(n))], &format!("Change f to {n}"));
    }
    let whole = KeelDatabase::open(repo.path()).expect("open");
    let (kept, _) =
        lint_state_at(&whole, Tip::get(&whole).commit(&whole), Scope::Full).expect("lint");
    let whole_run = whole.take_executed_queries();
    assert!(
        count(&whole_run, tip_index) > 0,
        "a whole lint builds the history index: {whole_run:?}"
    );
    let kept = kept.expect("a tip");
    let first = commit(&mut repo, &[("app.py", &f(13))], "Change f to 13");
    let second = commit(&mut repo, &[("other.py", "x = 1\n")], "Add other");

    let db = KeelDatabase::open_objects(repo.path()).expect("open");
    let kept_tip = Oid::from_hex(kept.tip()).expect("an id");
    let (db, since) = db
        .open_since(None, kept_tip, 8)
        .expect("HEAD")
        .expect("two commits");
    let tip = Tip::get(&db).commit(&db).expect("a tip");
    db.take_executed_queries();
    let (_, report) = extend(&db, &kept, tip, &since, Scope::Full)
        .expect("the commits read")
        .expect("nothing moves more than its records");
    let executed = db.take_executed_queries();
    assert_eq!(
        count(&executed, commit_facts),
        2,
        "the two new commits' facts, and no older commit's: {executed:?}"
    );
    assert_eq!(
        count(&executed, image_hunks),
        1,
        "the edit of f: {executed:?}"
    );
    assert_eq!(
        count(&executed, tip_index),
        0,
        "no history index: {executed:?}"
    );
    assert_eq!(report.tip.as_deref(), Some(second.as_str()));
    let hits = crate::support::node_findings(&report, "app");
    assert!(
        hits.iter()
            .any(|(_, _, commits)| commits.first() == Some(&first)),
        "the new hit leads its finding's records: {hits:?}"
    );
    assert_same(&report, &lint_repo(&repo), "extended against whole");
}
