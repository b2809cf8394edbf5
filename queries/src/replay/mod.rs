//! Replay: drift over a history's tips. Which tips a replay judges (`git rev-list`'s
//! selection, oldest first), and what one tip's lint report adds up to (findings by code,
//! distinct debt, blocked), so a benchmark harness or a trend chart reads one line a tip.
//!
//! Owns: the tip selection, the per-tip tally, and judging tips side by side in turn
//! ([`in_turn`]). Does not own: moving the database's tip (the engine's
//! `ChangeEvent::TipAt`), judging a tip (`lint`) or printing (`keel`).

mod in_turn;

pub use in_turn::judge_in_turn;

use crate::history::{ancestry, history};
use crate::lint::LintReport;
use keel_engine::Db;
use keel_engine::inputs::Commit;
use std::collections::{BTreeMap, BTreeSet};

/// The schema id of a replay line.
pub const REPLAY_SCHEMA: &str = "keel.replay.v1";

/// Which of a tip's commits a replay judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TipSelection {
    /// Leave out this commit and its ancestors (`A` of `A..B`).
    pub exclude: Option<Commit>,
    /// Follow only first parents (`git rev-list --first-parent`).
    pub first_parent: bool,
    /// Keep only the newest this many.
    pub last: Option<usize>,
    /// Of those, every this-many-th, counted from the newest (which is always kept).
    pub every: usize,
}

/// The commits `git rev-list [--first-parent] tip ^exclude` lists, cut to the newest
/// `last` and thinned to every `every`-th from the newest, oldest first.
pub fn replay_tips(db: &dyn Db, tip: Commit, selection: &TipSelection) -> Vec<Commit> {
    let excluded = selection.exclude.map(|commit| ancestry(db, commit));
    let kept = |commit: &Commit| excluded.is_none_or(|set| !set.contains(commit));
    let listed: Vec<Commit> = if selection.first_parent {
        std::iter::successors(Some(tip), |commit| commit.parents(db).first().copied())
            .take_while(kept)
            .collect()
    } else {
        history(db, tip).into_iter().filter(kept).collect()
    };
    let mut tips: Vec<Commit> = listed
        .into_iter()
        .take(selection.last.unwrap_or(usize::MAX))
        .step_by(selection.every.max(1))
        .collect();
    tips.reverse();
    tips
}

/// What one tip's report adds up to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TipTally {
    /// Spec nodes judged.
    pub nodes: usize,
    /// Findings by code.
    pub findings: BTreeMap<&'static str, usize>,
    /// Distinct (node, selector, commit) of the blocking hits (`anchor-hit`).
    pub debt: usize,
    /// Whether the tip blocks (an error, or an unverified anchor).
    pub blocked: bool,
}

/// The tally of `report`.
pub fn tip_tally(report: &LintReport) -> TipTally {
    let mut findings: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut debt: BTreeSet<(&str, &str, &str)> = BTreeSet::new();
    for finding in &report.findings {
        *findings.entry(finding.code).or_default() += 1;
        if finding.code != "anchor-hit" {
            continue;
        }
        for hit in &finding.hits {
            for selector in &hit.selectors {
                debt.insert((&finding.node, selector, &hit.commit));
            }
        }
    }
    TipTally {
        nodes: report.summary.nodes,
        findings,
        debt: debt.len(),
        blocked: report.blocks(),
    }
}

/// Whether `report` holds a finding of `code` for `node`: a pinned control.
pub fn has_finding(report: &LintReport, node: &str, code: &str) -> bool {
    report
        .findings
        .iter()
        .any(|finding| finding.node == node && finding.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::{Finding, HitRecord, LINT_SCHEMA, Severity, Summary};

    fn hit(commit: &str, selectors: &[&str]) -> HitRecord {
        HitRecord {
            commit: commit.into(),
            path: None,
            subject: "".into(),
            selectors: selectors.iter().map(|s| (*s).to_owned()).collect(),
            side: None,
            conservative: false,
            cosmetic: None,
            patch_id: None,
        }
    }

    fn finding(node: &str, code: &'static str, hits: Vec<HitRecord>) -> Finding {
        Finding {
            node: node.to_owned(),
            severity: Severity::Error,
            code,
            path: "a.py".to_owned(),
            selectors: Vec::new(),
            hits,
            message: String::new(),
            repair: String::new(),
        }
    }

    #[test]
    fn debt_counts_each_node_selector_and_commit_of_blocking_hits_once() {
        let report = LintReport {
            schema: LINT_SCHEMA,
            tip: Some("t".to_owned()),
            findings: vec![
                finding(
                    "n",
                    "anchor-hit",
                    vec![hit("c1", &["f", "g"]), hit("c2", &["f"])],
                ),
                // Another entry of the same node naming the same unit and commit again.
                finding("n", "anchor-hit", vec![hit("c1", &["f"])]),
                finding("m", "anchor-hit", vec![hit("c1", &["f"])]),
                finding("n", "related-hit", vec![hit("c3", &["h"])]),
                finding("n", "dead-anchor", Vec::new()),
            ],
            unverified: Vec::new(),
            summary: Summary {
                nodes: 2,
                anchors: 4,
                errors: 4,
                warnings: 1,
            },
            nodes: vec!["m".to_owned(), "n".to_owned()],
        };
        let tally = tip_tally(&report);
        // (n,f,c1) (n,g,c1) (n,f,c2) (m,f,c1); related hits are not debt.
        assert_eq!(tally.debt, 4);
        assert_eq!(tally.nodes, 2);
        assert!(tally.blocked);
        assert_eq!(
            tally.findings,
            BTreeMap::from([("anchor-hit", 3), ("dead-anchor", 1), ("related-hit", 1)])
        );
        assert!(has_finding(&report, "m", "anchor-hit"));
        assert!(!has_finding(&report, "m", "dead-anchor"));
    }
}
