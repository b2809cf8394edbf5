//! One lint answer as state: per node, the findings its tip decides and each entry's
//! window as records. A report is assembled from it, and keel keeps the last one on disk
//! so that the next process extends it by the new commits (`extend`) instead of judging
//! the history again.
//!
//! Owns: the state types, the one assembly of a report from them (findings, unverified
//! anchors and summary, in lint's order), and what a kept state carries besides
//! ([`KeptLint`]: the hit records' subjects, which `keel.lint.v1` leaves out).
//! Does not own: judging (`judge`), extending (`extend`), nor the file
//! (`keel_engine::memo`).

use super::Severity;
use super::judge::{EntryState, Wording};
use super::report::{Finding, LINT_SCHEMA, LintReport, Summary, Unverified};
use crate::spec::{SpecNode, Target};
use keel_engine::settings::LintSettings;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Every judged node's state at one tip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintState {
    /// The judged commit's id.
    pub(super) tip: String,
    /// Findings before every node's: a candidate's governor-transition check.
    pub(super) leading: Vec<Finding>,
    /// The judged nodes, sorted by id.
    pub(super) nodes: Vec<NodeState>,
}

/// One node judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct NodeState {
    pub(super) id: String,
    /// Its base as findings name it.
    pub(super) version: String,
    /// Findings about the node itself (it lists nothing; its history is cut off), before
    /// its entries'.
    pub(super) findings: Vec<Finding>,
    pub(super) unverified: Vec<Unverified>,
    /// One per entry, in declaration order.
    pub(super) entries: Vec<EntryState>,
}

impl LintState {
    /// The judged commit's id.
    pub fn tip(&self) -> &str {
        &self.tip
    }

    /// The report of this state, whose nodes are `nodes` (the same, in the same order)
    /// worded with the tip's `[lint]` settings.
    pub(super) fn report(&self, nodes: &[SpecNode], settings: &LintSettings) -> LintReport {
        self.report_scoped(nodes, &self.leading, settings)
    }

    /// The report of `nodes` (all of this state's, or some: a candidate's scope) after
    /// `leading` findings, worded with the tip's `[lint]` settings.
    pub(super) fn report_scoped(
        &self,
        nodes: &[SpecNode],
        leading: &[Finding],
        settings: &LintSettings,
    ) -> LintReport {
        let mut findings = leading.to_vec();
        let mut unverified = Vec::new();
        let mut anchors = 0;
        for node in nodes {
            // Sorted by id, as `nodes` are; a node the state lacks is never asked for.
            let Ok(at) = self
                .nodes
                .binary_search_by(|state| state.id.as_str().cmp(&node.id.0))
            else {
                continue;
            };
            let state = &self.nodes[at];
            findings.extend(state.findings.iter().cloned());
            unverified.extend(state.unverified.iter().cloned());
            let wording = Wording {
                node,
                version: &state.version,
                settings,
            };
            for (entry, judged) in node.entries.iter().zip(&state.entries) {
                if let Target::Scoped { selectors, .. } = &entry.target {
                    anchors += selectors.len();
                }
                findings.extend(judged.tip.iter().cloned());
                unverified.extend(judged.unverified.iter().cloned());
                if let Some(window) = &judged.window {
                    findings.extend(wording.window_findings(entry, window));
                }
            }
        }
        let errors = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        let summary = Summary {
            nodes: nodes.len(),
            anchors,
            errors,
            warnings: findings.len() - errors,
        };
        LintReport {
            schema: LINT_SCHEMA,
            tip: Some(self.tip.clone()),
            findings,
            unverified,
            summary,
            nodes: nodes.iter().map(|n| n.id.0.clone()).collect(),
        }
    }

    /// Every hit record the state holds, mutably: the windows' and those of findings the
    /// tip decides (a `path-reused` carries the old file's hits).
    fn records_mut(&mut self) -> impl Iterator<Item = &mut super::HitRecord> {
        let leading = self.leading.iter_mut();
        let nodes = self.nodes.iter_mut().flat_map(|node| {
            let entries = node.entries.iter_mut().flat_map(|entry| {
                let windows = entry
                    .window
                    .iter_mut()
                    .flat_map(|window| window.hits.iter_mut().chain(window.missed.iter_mut()));
                entry
                    .tip
                    .iter_mut()
                    .flat_map(|finding| finding.hits.iter_mut())
                    .chain(windows)
            });
            node.findings
                .iter_mut()
                .flat_map(|finding| finding.hits.iter_mut())
                .chain(entries)
        });
        leading
            .flat_map(|finding| finding.hits.iter_mut())
            .chain(nodes)
    }
}

/// A state as keel keeps it on disk: with the subject of every commit its records name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptLint {
    state: LintState,
    /// Commit id and subject, once per commit.
    subjects: Vec<(Arc<str>, Arc<str>)>,
}

impl KeptLint {
    /// `state`, kept with its subjects.
    pub fn of(mut state: LintState) -> Self {
        let mut seen: FxHashMap<Arc<str>, Arc<str>> = FxHashMap::default();
        for record in state.records_mut() {
            seen.entry(record.commit.clone())
                .or_insert_with(|| record.subject.clone());
        }
        let mut subjects: Vec<(Arc<str>, Arc<str>)> = seen.into_iter().collect();
        subjects.sort();
        Self { state, subjects }
    }

    /// The state, its records' subjects restored.
    pub fn into_state(self) -> LintState {
        let subjects: FxHashMap<Arc<str>, Arc<str>> = self.subjects.into_iter().collect();
        let mut state = self.state;
        for record in state.records_mut() {
            if let Some(subject) = subjects.get(&record.commit) {
                record.subject = subject.clone();
            }
        }
        state
    }
}
