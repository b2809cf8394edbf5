//! Replay: one database moved through every tip of a branchy history, oldest first
//! (`ChangeEvent::TipAt`), answers at each tip what a fresh database opened at that tip
//! answers; the tips are `git rev-list`'s; and after the first tip, a tip pays only for
//! what it added (no image parsed twice over the replay).

use crate::agreement_history::build;
use crate::support::count;
use keel_engine::inputs::Tip;
use keel_engine::{ChangeEvent, KeelDatabase, Oid};
use keel_fixtures::FixtureRepo;
use keel_queries::events::authored_content;
use keel_queries::images::image_units;
use keel_queries::lineage::{projected_events, tip_lineage};
use keel_queries::lint::{LintReport, lint};
use keel_queries::replay::{TipSelection, replay_tips, tip_tally};
use keel_queries::window::node_versions;

const SEEDS: u64 = 2;

fn rev_list(repo: &FixtureRepo, args: &[&str]) -> Vec<String> {
    let mut all = vec!["rev-list", "--reverse"];
    all.extend_from_slice(args);
    let out = repo.git(&all).expect("git rev-list");
    out.lines().map(str::to_owned).collect()
}

fn fresh_lint_at(repo: &FixtureRepo, tip: Oid) -> LintReport {
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    db.apply_changes(&[ChangeEvent::TipAt(tip)]).expect("a tip");
    lint(&db).expect("valid specs")
}

fn tips_of(db: &KeelDatabase, selection: &TipSelection) -> Vec<String> {
    let tip = Tip::get(db).commit(db).expect("a tip");
    replay_tips(db, tip, selection)
        .iter()
        .map(|commit| commit.id(db).to_string())
        .collect()
}

#[test]
fn the_tips_are_git_rev_list_s_oldest_first() {
    let repo = build(3, 30);
    let db = KeelDatabase::open(repo.path()).expect("opens");
    let all = TipSelection {
        exclude: None,
        first_parent: false,
        last: None,
        every: 1,
    };
    assert_eq!(tips_of(&db, &all), rev_list(&repo, &["HEAD"]));
    let first_parent = TipSelection {
        first_parent: true,
        ..all
    };
    assert_eq!(
        tips_of(&db, &first_parent),
        rev_list(&repo, &["--first-parent", "HEAD"])
    );
    let newest: Vec<String> = rev_list(&repo, &["--max-count=7", "HEAD"]);
    let last = TipSelection {
        last: Some(7),
        ..all
    };
    assert_eq!(tips_of(&db, &last), newest);
    // Every third from the newest: the newest is kept.
    let every = TipSelection { every: 3, ..last };
    let thinned: Vec<String> = newest.iter().rev().step_by(3).rev().cloned().collect();
    assert_eq!(tips_of(&db, &every), thinned);
    assert_eq!(thinned.last(), newest.last());
}

#[test]
fn a_replayed_database_answers_at_every_tip_what_a_fresh_one_answers() {
    let mut tips_checked = 0;
    let mut hits_seen = 0;
    for seed in 1..=SEEDS {
        let repo = build(seed, 40);
        let tips = rev_list(&repo, &["HEAD"]);
        let mut db = KeelDatabase::open(repo.path()).expect("opens");
        db.take_executed_queries();
        let mut parsed_over_replay = 0;
        for tip in &tips {
            let oid = db.resolve_commit(tip).expect("a commit");
            db.apply_changes(&[ChangeEvent::TipAt(oid)]).expect("a tip");
            let replayed = lint(&db).expect("valid specs");
            parsed_over_replay += count(&db.take_executed_queries(), image_units);
            let fresh = fresh_lint_at(&repo, oid);
            assert_eq!(replayed, fresh, "seed {seed}, tip {tip}");
            hits_seen += tip_tally(&replayed).debt;
            tips_checked += 1;
        }
        // Each image is parsed once over the whole replay: no more parses than distinct
        // (blob, path) pairs the history holds for the paths its specs anchor, which a
        // cold lint of the newest tip bounds from below.
        let cold = {
            let db = KeelDatabase::open(repo.path()).expect("opens");
            db.take_executed_queries();
            lint(&db).expect("valid specs");
            count(&db.take_executed_queries(), image_units)
        };
        assert!(cold > 0, "the cold lint parses");
        let distinct = distinct_images(&repo);
        assert!(
            parsed_over_replay <= distinct,
            "seed {seed}: {parsed_over_replay} parses over the replay, {distinct} images in the history"
        );
        assert!(parsed_over_replay >= cold, "seed {seed}");
    }
    eprintln!("replay: {tips_checked} tips equal to a fresh database's; {hits_seen} debt");
    assert!(tips_checked > 40, "{tips_checked}");
    assert!(hits_seen > 0, "the histories must carry debt");
}

/// The distinct (blob, path) pairs of every `.py` file over all commits of HEAD.
fn distinct_images(repo: &FixtureRepo) -> usize {
    let mut pairs = std::collections::BTreeSet::new();
    for commit in rev_list(repo, &["HEAD"]) {
        let tree = repo.git(&["ls-tree", "-r", &commit]).expect("git ls-tree");
        for line in tree.lines() {
            let Some((meta, path)) = line.split_once('\t') else {
                continue;
            };
            if path.ends_with(".py") {
                let blob = meta.split_whitespace().nth(2).unwrap_or_default();
                pairs.insert((blob.to_owned(), path.to_owned()));
            }
        }
    }
    pairs.len()
}

/// A tip's lineages are projected once per set of renames the tip reaches: moving past
/// commits that rename nothing re-keeps the projected events (no `projected_events`
/// runs, though every `tip_lineage` does; nor does `authored_content` of the spec's event,
/// though `node_versions` does), and a tip that first reaches a rename projects the renamed
/// file again. At every tip the answer is a fresh database's.
#[test]
fn moving_past_commits_that_rename_nothing_reuses_the_projection() {
    use crate::support::{TWO_FUNCTIONS_PY, commit, edit, git, repo, spec};
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", TWO_FUNCTIONS_PY),
            (".spec/n/spec.md", &spec(&["b.py#f"], &[])),
        ],
        "v1",
    );
    let v2 = edit(TWO_FUNCTIONS_PY, "a = 1", "a = 2");
    let before = commit(&mut repo, &[("a.py", &v2)], "hit f under a.py");
    git(&repo, &["mv", "a.py", "b.py"]);
    let renamed = repo.commit("rename a.py to b.py").expect("commit");
    let v3 = edit(&v2, "a = 2", "a = 3");
    let after = commit(&mut repo, &[("b.py", &v3)], "hit f under b.py");
    let last = commit(
        &mut repo,
        &[("b.py", &edit(&v3, "a = 3", "a = 4"))],
        "hit f again",
    );

    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    let mut step = |tip: &str| {
        let oid = db.resolve_commit(tip).expect("a commit");
        db.take_executed_queries();
        db.apply_changes(&[ChangeEvent::TipAt(oid)]).expect("a tip");
        let report = lint(&db).expect("valid specs");
        assert_eq!(report, fresh_lint_at(&repo, oid), "at {tip}");
        (report, db.take_executed_queries())
    };
    let (_, run) = step(&before);
    assert_eq!(
        count(&run, projected_events),
        2,
        "b.py and the spec, first seen: {run:?}"
    );
    assert_eq!(
        count(&run, authored_content),
        1,
        "the spec's one event: {run:?}"
    );
    let (_, run) = step(&renamed);
    assert_eq!(
        count(&run, projected_events),
        1,
        "the rename is reachable now: b.py is projected again, the spec is not: {run:?}"
    );
    for tip in [&after, &last] {
        let (report, run) = step(tip);
        assert_eq!(
            count(&run, tip_lineage),
            2,
            "each tip keeps its events: {run:?}"
        );
        assert_eq!(count(&run, projected_events), 0, "no new rename: {run:?}");
        assert_eq!(count(&run, node_versions), 1, "{run:?}");
        assert_eq!(
            count(&run, authored_content),
            0,
            "the versions are read again, each event's answer kept: {run:?}"
        );
        if tip == &last {
            let hit = report
                .findings
                .iter()
                .find(|finding| finding.code == "anchor-hit")
                .expect("f was hit");
            let commits: Vec<&str> = hit.hits.iter().map(|h| &*h.commit).collect();
            assert_eq!(
                commits,
                vec![last.as_str(), after.as_str(), before.as_str()],
                "the edits under both paths, newest first"
            );
        }
    }
}

#[test]
fn a_tallied_lint_skips_only_the_home_search_of_a_dead_anchors_repair() {
    use crate::support::{commit, count_named, repo, spec};
    use keel_queries::lint::{Repairs, Scope, lint_at, lint_tally_at};
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            (".spec/app/spec.md", &spec(&["app.py#kept,gone"], &[])),
            ("app.py", "def kept():\n    return 1\n"),
            ("moved.py", "def gone():\n    return 2\n"),
        ],
        "Add the files and a spec one of whose anchors is dead",
    );
    let judged = |repairs: Repairs| {
        let db = KeelDatabase::open(repo.path()).expect("opens");
        let tip = Tip::get(&db).commit(&db);
        let report = match repairs {
            Repairs::Full => lint_at(&db, tip, Scope::Full),
            Repairs::Tally => lint_tally_at(&db, tip, Scope::Full),
        };
        (report.expect("lints"), db.take_executed_queries())
    };
    let (full, full_run) = judged(Repairs::Full);
    let (tally, tally_run) = judged(Repairs::Tally);
    assert_eq!(
        count_named(&full_run, "image_words"),
        1,
        "the full lint reads moved.py for the dead anchor's home: {full_run:?}"
    );
    assert_eq!(
        count_named(&tally_run, "image_words"),
        0,
        "the tallied lint reads no other file: {tally_run:?}"
    );
    let dead = |report: &LintReport| {
        report
            .findings
            .iter()
            .find(|finding| finding.code == "dead-anchor")
            .cloned()
            .expect("a dead anchor")
    };
    let (full_dead, tally_dead) = (dead(&full), dead(&tally));
    assert!(
        full_dead
            .repair
            .starts_with("gone has the same qualified name at `moved.py#gone`"),
        "{}",
        full_dead.repair
    );
    assert_eq!(
        tally_dead.repair,
        "follow the rename: write the unit's current qualified name, or remove the selector"
    );
    let without_repairs = |report: &LintReport| {
        let mut report = report.clone();
        for finding in &mut report.findings {
            finding.repair.clear();
        }
        report
    };
    assert_eq!(
        without_repairs(&tally),
        without_repairs(&full),
        "everything but the repair is the same"
    );
    assert_eq!(tip_tally(&tally), tip_tally(&full));
}
