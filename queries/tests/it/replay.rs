//! Replay: one database moved through every tip of a branchy history, oldest first
//! (`ChangeEvent::TipAt`), answers at each tip what a fresh database opened at that tip
//! answers; the tips are `git rev-list`'s; and after the first tip, a tip pays only for
//! what it added (no image parsed twice over the replay).

use crate::agreement_history::build;
use keel_engine::inputs::Tip;
use keel_engine::{ChangeEvent, KeelDatabase, Oid};
use keel_fixtures::FixtureRepo;
use keel_queries::lint::{LintReport, lint};
use keel_queries::replay::{TipSelection, replay_tips, tip_tally};

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
            parsed_over_replay += db
                .take_executed_queries()
                .iter()
                .filter(|name| name.as_str() == "image_units")
                .count();
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
            db.take_executed_queries()
                .iter()
                .filter(|name| name.as_str() == "image_units")
                .count()
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
