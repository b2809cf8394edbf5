//! `keel touched` agrees with lint where the two ask the same question: over seeded random
//! branchy histories (`agreement_history::build`: merges resolved every way, evil merges,
//! renames with and without edits, a directory move, spec versions on every branch), at
//! every tip, the projection of the range `tip ^base` (the node's base version excluded)
//! reports, for every node whose window holds no acknowledgement, exactly the hits lint
//! reports for that node: per entry path, the same commits with the same selectors (and
//! the same path then, side and conservative flag).
//!
//! Lint's side is the hits of the node's `anchor-hit`, `related-hit`, `cosmetic-hit`,
//! `code-drift` and `related-drift` findings (not `path-reused`, which reads another
//! lineage). A node is left out of the exact comparison when some commit of `git rev-list
//! tip ^base` carries `Spec-OK: <node>` (git reads the messages; the generator makes no
//! `keel ack` checkpoint other than an empty commit with such a trailer, which this also
//! catches): for those lint may only drop commits, so lint's hits must be a subset of
//! touched's. An entry whose path the tip does not hold (`git ls-tree`) is left out on
//! both sides: there touched follows renames away and lint reports the path dead, by
//! design. Touched's `spec_versions` are held to the node's versions (`node_versions`)
//! that `git rev-list tip ^base` lists.
//!
//! Owns: that agreement. Does not own: whether lint's hits are right (`agreement_history`
//! holds lint to a git-CLI oracle on these same histories), nor the CLI (`cli/tests/cli/
//! touched.rs`).

use crate::agreement_history::build;
use keel_engine::inputs::{Commit, Tip};
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::FixtureRepo;
use keel_queries::lint::{LintReport, Side, lint, spec_nodes};
use keel_queries::spec::NodeId;
use keel_queries::touched::{TouchedReport, touched};
use keel_queries::window::{Node, node_base, node_versions};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

/// How many random histories.
const SEEDS: u64 = 3;
/// Steps per history (`build`'s commits, before its closing merges).
const STEPS: usize = 36;

/// The finding codes whose hits are the window's hits for an entry.
const HIT_CODES: [&str; 5] = [
    "anchor-hit",
    "related-hit",
    "cosmetic-hit",
    "code-drift",
    "related-drift",
];

/// One hit: commit, selectors, the file's path then (when not the entry's), side,
/// conservative.
type Hit = (String, Vec<String>, Option<String>, Option<Side>, bool);
/// `(node, entry path)` → its hits.
type Hits = BTreeMap<(String, String), BTreeSet<Hit>>;

fn git(repo: &FixtureRepo, args: &[&str]) -> String {
    repo.git(args)
        .unwrap_or_else(|err| panic!("git {args:?} fails: {err}"))
}

/// Lint's hits for `node`, by entry path.
fn lint_hits(report: &LintReport, node: &str) -> Hits {
    let mut hits = Hits::new();
    for finding in &report.findings {
        if finding.node != node || !HIT_CODES.contains(&finding.code) {
            continue;
        }
        let set = hits
            .entry((finding.node.clone(), finding.path.clone()))
            .or_default();
        for hit in &finding.hits {
            set.insert((
                hit.commit.to_string(),
                hit.selectors.clone(),
                hit.path.clone(),
                hit.side,
                hit.conservative,
            ));
        }
    }
    hits
}

/// Touched's hits for `node`, by the path its spec writes (`Hits` keys).
fn touched_hits(report: &TouchedReport, node: &str) -> Hits {
    let mut hits = Hits::new();
    for touched in report.nodes.iter().filter(|n| n.node == node) {
        for entry in &touched.entries {
            let written = entry.entry.split('#').next().unwrap_or_default();
            let set = hits
                .entry((touched.node.clone(), written.to_owned()))
                .or_default();
            for commit in &entry.commits {
                set.insert((
                    commit.commit.clone(),
                    commit.selectors.clone(),
                    commit.path.clone(),
                    commit.side,
                    commit.conservative,
                ));
            }
        }
    }
    hits
}

/// The per-selector view of `hits`: `(node, path, selector)` → commits (a bare entry's
/// selector is empty).
fn by_selector(hits: &Hits) -> BTreeMap<(String, String, String), BTreeSet<String>> {
    let mut out: BTreeMap<(String, String, String), BTreeSet<String>> = BTreeMap::new();
    for ((node, path), set) in hits {
        for (commit, selectors, ..) in set {
            let selectors = if selectors.is_empty() {
                vec![String::new()]
            } else {
                selectors.clone()
            };
            for selector in selectors {
                out.entry((node.clone(), path.clone(), selector))
                    .or_default()
                    .insert(commit.clone());
            }
        }
    }
    out
}

/// `hits` without the entries whose path `held` lacks.
fn held_only(hits: Hits, held: &BTreeSet<String>) -> Hits {
    hits.into_iter()
        .filter(|((_, path), set)| held.contains(path) && !set.is_empty())
        .collect()
}

/// What the comparison counted.
#[derive(Debug, Default)]
struct Counts {
    histories: usize,
    tips: usize,
    /// (tip, node) pairs compared exactly.
    nodes: usize,
    /// (tip, node) pairs with an acknowledgement in the window: subset only.
    acked_nodes: usize,
    /// Hits compared exactly.
    hits: usize,
    /// Of them, a merge's own.
    merge_hits: usize,
    /// Of them, under a path before a rename.
    renamed_hits: usize,
    /// Of them, on a bare entry.
    bare_hits: usize,
    /// Touched nodes whose range held a spec version.
    updated_nodes: usize,
}

#[test]
fn touched_since_a_nodes_base_reports_exactly_lints_hits_for_unacknowledged_nodes() {
    let mut counts = Counts::default();
    let mut mismatches = String::new();
    for seed in 1..=SEEDS {
        let repo = build(seed, STEPS);
        counts.histories += 1;
        let merges: BTreeSet<String> = git(&repo, &["rev-list", "--merges", "HEAD"])
            .lines()
            .map(str::to_owned)
            .collect();
        // Each commit's message, for the trailers.
        let log = git(&repo, &["log", "--format=%H%x00%B%x01", "HEAD"]);
        let acks: HashMap<String, BTreeSet<String>> = log
            .split('\u{1}')
            .filter_map(|record| record.trim_start().split_once('\0'))
            .map(|(commit, message)| {
                let nodes = message
                    .lines()
                    .filter_map(|line| line.strip_prefix("Spec-OK:"))
                    .map(|node| node.trim().to_owned())
                    .collect();
                (commit.to_owned(), nodes)
            })
            .collect();
        let tips: Vec<String> = git(&repo, &["rev-list", "--reverse", "HEAD"])
            .lines()
            .map(str::to_owned)
            .collect();
        let mut db = KeelDatabase::open(repo.path()).expect("the history opens");
        for tip_id in &tips {
            let oid = db.resolve_commit(tip_id).expect("a commit");
            db.apply_changes(&[ChangeEvent::TipAt(oid)])
                .expect("the tip is read");
            let tip: Commit = Tip::get(&db).commit(&db).expect("a tip");
            let report = lint(&db).expect("the generated specs are valid");
            let held: BTreeSet<String> = git(&repo, &["ls-tree", "-r", "--name-only", tip_id])
                .lines()
                .map(str::to_owned)
                .collect();
            counts.tips += 1;
            let mut by_base: HashMap<Option<Commit>, TouchedReport> = HashMap::new();
            for node in spec_nodes(&db, tip).expect("the generated specs are valid") {
                let name = node.id.0.clone();
                let interned = Node::new(&db, NodeId(name.clone()));
                let base = node_base(&db, tip, interned).expect("the versions are read");
                let excluded: Vec<Commit> = base.into_iter().collect();
                let projected = by_base.entry(base).or_insert_with(|| {
                    touched(&db, tip, &excluded).expect("the projection answers")
                });
                let context = format!("seed {seed}, tip {tip_id}, node {name}");
                assert!(
                    projected.unavailable.is_empty(),
                    "{context}: {:?}",
                    projected.unavailable
                );
                let mut range = vec!["rev-list".to_owned(), tip_id.clone()];
                range.extend(excluded.iter().map(|c| format!("^{}", c.id(&db))));
                let range: Vec<&str> = range.iter().map(String::as_str).collect();
                let in_range: BTreeSet<String> =
                    git(&repo, &range).lines().map(str::to_owned).collect();

                let theirs = held_only(lint_hits(&report, &name), &held);
                let ours = held_only(touched_hits(projected, &name), &held);
                let acked = in_range
                    .iter()
                    .any(|commit| acks.get(commit).is_some_and(|nodes| nodes.contains(&name)));
                if acked {
                    counts.acked_nodes += 1;
                    let ours = by_selector(&ours);
                    for (key, commits) in by_selector(&theirs) {
                        let missing: Vec<&String> = commits
                            .iter()
                            .filter(|c| !ours.get(&key).is_some_and(|set| set.contains(*c)))
                            .collect();
                        if !missing.is_empty() {
                            let _ = writeln!(
                                mismatches,
                                "{context} (acknowledged): {key:?}: lint's {missing:?} are not in touched's {:?}",
                                ours.get(&key)
                            );
                        }
                    }
                    continue;
                }
                counts.nodes += 1;
                if ours != theirs || by_selector(&ours) != by_selector(&theirs) {
                    let _ = writeln!(
                        mismatches,
                        "{context}:\n  lint:    {theirs:?}\n  touched: {ours:?}"
                    );
                    continue;
                }
                for ((_, path), set) in &ours {
                    for (commit, selectors, then, ..) in set {
                        counts.hits += 1;
                        counts.merge_hits += usize::from(merges.contains(commit));
                        counts.renamed_hits += usize::from(then.is_some());
                        counts.bare_hits += usize::from(selectors.is_empty());
                        assert!(
                            in_range.contains(commit),
                            "{context}: {commit} ({path}) is outside git's range"
                        );
                    }
                }
                // The spec versions the range holds, by git's walk.
                if let Some(touched_node) = projected.nodes.iter().find(|n| n.node == name) {
                    let versions = node_versions(&db, tip, interned)
                        .as_ref()
                        .expect("the versions are read");
                    let expected: BTreeSet<String> = versions
                        .iter()
                        .map(|v| v.id(&db).to_string())
                        .filter(|id| in_range.contains(id))
                        .collect();
                    let reported: BTreeSet<String> =
                        touched_node.spec_versions.iter().cloned().collect();
                    if reported != expected || touched_node.spec_updated == expected.is_empty() {
                        let _ = writeln!(
                            mismatches,
                            "{context}: spec versions {reported:?} (updated: {}), expected {expected:?}",
                            touched_node.spec_updated
                        );
                    }
                    counts.updated_nodes += usize::from(touched_node.spec_updated);
                }
            }
        }
    }
    eprintln!("touched_agrees_with_lint: {counts:?}");
    assert!(
        mismatches.is_empty(),
        "touched and lint disagree:\n{mismatches}"
    );
    assert!(counts.hits > 0, "the positive control: {counts:?}");
    for (what, n) in [
        ("nodes compared exactly", counts.nodes),
        ("acknowledged nodes", counts.acked_nodes),
        ("merge hits", counts.merge_hits),
        ("hits under a path before a rename", counts.renamed_hits),
        ("hits on a bare entry", counts.bare_hits),
        (
            "touched nodes with a spec version in the range",
            counts.updated_nodes,
        ),
    ] {
        assert!(n > 0, "the histories must produce {what}: {counts:?}");
    }
}
