//! Checking both answers: keel's findings against git's patches.
//!
//! Owns: the cross-check. Every commit keel names in an `anchor-hit` or
//! `scoped-code-miss` finding, when it is a non-merge commit whose window event is on the
//! tip path (not under an older name), must appear in git's output for that path — with
//! at least one hunk for a hit that is not conservative. Conversely, every non-merge
//! commit git shows modifying a scoped entry's tip path (not creating it, not binary)
//! inside the node's window must be one keel reports as a hit or a miss (when
//! `scoped_code_miss` is not `ignore`).
//! Does not own: running git or keel (`measure`), nor the answers' determinism across
//! runs and threads (compared by fingerprint in `measure`).

use crate::git::Patches;
use keel_engine::KeelDatabase;
use keel_engine::inputs::Tip;
use keel_engine::settings::ScopedCodeMiss;
use keel_queries::lint::{LintReport, tip_settings};
use keel_queries::spec::{NodeId, Relation, Target};
use keel_queries::window::{Node, window};
use std::collections::{BTreeMap, BTreeSet};

/// What the cross-check found.
#[derive(Debug, Default)]
pub(crate) struct CrossCheck {
    /// (finding, commit) pairs compared, by finding code.
    pub(crate) checked: BTreeMap<&'static str, usize>,
    /// Of those, the ones git agrees with.
    pub(crate) agreed: usize,
    /// Pairs left out: the commit is a merge (git's baseline runs `--no-merges`).
    pub(crate) skipped_merges: usize,
    /// Pairs left out: keel met the commit under an older path (a rename).
    pub(crate) skipped_renamed: usize,
    /// (node, tip path, commit) triples git shows modifying a scoped tip path in the
    /// node's window, compared against keel's hits and misses.
    pub(crate) converse_checked: usize,
    /// Of those, the ones keel reports.
    pub(crate) converse_agreed: usize,
    /// Pairs git shows that the converse leaves out: the path was created (added or
    /// renamed onto the tip path) or the change is binary.
    pub(crate) converse_skipped: usize,
    /// Every disagreement, one line each.
    pub(crate) mismatches: Vec<String>,
}

/// The codes whose commits git's patches can confirm.
const CHECKED_CODES: [&str; 2] = ["anchor-hit", "scoped-code-miss"];

/// Cross-checks `report` (linted at `db`'s tip) against git's patches of each node's
/// window (`patches_of(node)`).
pub(crate) fn cross_check<'a>(
    db: &KeelDatabase,
    report: &LintReport,
    patches_of: &dyn Fn(&str) -> Option<&'a Patches>,
) -> Result<CrossCheck, String> {
    let tip = Tip::get(db)
        .commit(db)
        .ok_or("the repository has no commits")?;
    let misses_reported = tip_settings(db, tip)
        .map_err(|e| format!("{e:?}"))?
        .map_err(|e| format!("{e:?}"))?
        .lint
        .scoped_code_miss
        == ScopedCodeMiss::Warn;
    let mut check = CrossCheck::default();
    // (node, path) → commits keel reports as a hit or a miss there.
    let mut reported: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
    for finding in &report.findings {
        let Some(&code) = CHECKED_CODES.iter().find(|&&c| c == finding.code) else {
            continue;
        };
        let events = tip_path_events(db, tip, &finding.node, &finding.path)?;
        for hit in &finding.hits {
            reported
                .entry((finding.node.as_str(), finding.path.as_str()))
                .or_default()
                .insert(&*hit.commit);
            let Some(event) = events.get(&*hit.commit) else {
                check.mismatches.push(format!(
                    "{} {} {}: keel reports {code} for a commit that is not among its window's events",
                    finding.node, finding.path, hit.commit
                ));
                continue;
            };
            if event.merge {
                check.skipped_merges += 1;
                continue;
            }
            if !event.on_tip_path {
                check.skipped_renamed += 1;
                continue;
            }
            *check.checked.entry(code).or_default() += 1;
            let patch = patches_of(&finding.node).and_then(|p| p.get(&hit.commit, &finding.path));
            match patch {
                None => check.mismatches.push(format!(
                    "{} {} {}: keel reports {code}, git's log shows no change to the path",
                    finding.node, finding.path, hit.commit
                )),
                Some(patch)
                    if code == "anchor-hit"
                        && patch.hunks.is_empty()
                        && !patch.binary
                        && !hit.conservative =>
                {
                    check.mismatches.push(format!(
                        "{} {} {}: keel reports an anchor hit, git's patch has no hunk",
                        finding.node, finding.path, hit.commit
                    ));
                }
                Some(_) => check.agreed += 1,
            }
        }
    }
    if !misses_reported {
        return Ok(check);
    }
    let nodes = keel_queries::lint::spec_nodes(db, tip).map_err(|e| format!("{e:?}"))?;
    for node in &nodes {
        for entry in &node.entries {
            let Target::Scoped { path, .. } = &entry.target else {
                continue;
            };
            if entry.relation != Relation::Code {
                continue;
            }
            let events = tip_path_events(db, tip, &node.id.0, path)?;
            let keel = reported.get(&(node.id.0.as_str(), path.as_str()));
            let Some(patches) = patches_of(&node.id.0) else {
                continue;
            };
            for (commit, files) in &patches.commits {
                let Some(patch) = files.get(path) else {
                    continue;
                };
                if patch.created || patch.binary || patch.hunks.is_empty() {
                    check.converse_skipped += 1;
                    continue;
                }
                check.converse_checked += 1;
                let in_window = events.get(commit).is_some_and(|e| e.on_tip_path);
                if !in_window {
                    check.mismatches.push(format!(
                        "{} {path} {commit}: git shows a change to the path, keel's window has no event for it there",
                        node.id.0
                    ));
                } else if keel.is_some_and(|set| set.contains(commit.as_str())) {
                    check.converse_agreed += 1;
                } else {
                    check.mismatches.push(format!(
                        "{} {path} {commit}: git shows a change to the path, keel reports neither a hit nor a miss",
                        node.id.0
                    ));
                }
            }
        }
    }
    Ok(check)
}

/// What keel's window says about one commit of one tip file.
struct EventFacts {
    merge: bool,
    /// One of the commit's events names the tip path itself.
    on_tip_path: bool,
}

/// The window events of `path` for `node`, by commit id.
fn tip_path_events(
    db: &KeelDatabase,
    tip: keel_engine::inputs::Commit,
    node: &str,
    path: &str,
) -> Result<BTreeMap<String, EventFacts>, String> {
    let node = Node::new(db, NodeId(node.to_owned()));
    let events = window(db, tip, node)
        .and_then(|w| w.events(path))
        .map_err(|e| format!("{e:?}"))?;
    let mut facts: BTreeMap<String, EventFacts> = BTreeMap::new();
    for event in events {
        let fact = facts
            .entry(event.commit.id(db).to_string())
            .or_insert(EventFacts {
                merge: event.commit.parents(db).len() > 1,
                on_tip_path: false,
            });
        fact.on_tip_path |= event.path == path;
    }
    Ok(facts)
}
