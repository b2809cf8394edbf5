//! `keel lint` as data: every node's findings at the tip, in declaration order.
//!
//! Owns: the entry point [`lint`] and its error. The report types live in `report`,
//! reading the nodes at the tip in `nodes`, and the per-entry judgement with lint's own
//! wording in `judge`.
//! Does not own: rendering or exit codes (`keel`), nor the per-commit judgement (`drift`).

mod judge;
mod nodes;
mod report;

pub use nodes::{spec_node, spec_nodes};
pub use report::{
    Finding, HitRecord, LINT_SCHEMA, LintError, LintReport, Severity, Summary, Unverified,
};

use crate::spec::Target;
use judge::NodeJudge;
use keel_engine::Db;
use keel_engine::inputs::{Config, Tip};

/// Lints the tip.
pub fn lint(db: &dyn Db) -> Result<LintReport, LintError> {
    let Some(tip) = Tip::get(db).commit(db) else {
        return Ok(LintReport {
            schema: LINT_SCHEMA,
            tip: None,
            findings: Vec::new(),
            unverified: Vec::new(),
            summary: Summary::default(),
            nodes: Vec::new(),
        });
    };
    let nodes = spec_nodes(db, tip)?;
    let scoped_miss = Config::get(db).settings(db).lint.scoped_code_miss;
    let mut findings = Vec::new();
    let mut unverified = Vec::new();
    let mut anchors = 0;
    for node in &nodes {
        let mut judge = NodeJudge {
            db,
            tip,
            node,
            scoped_miss,
            findings: &mut findings,
            unverified: &mut unverified,
        };
        for entry in &node.entries {
            if let Target::Scoped { selectors, .. } = &entry.target {
                anchors += selectors.len();
            }
            judge.entry(entry)?;
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
    Ok(LintReport {
        schema: LINT_SCHEMA,
        tip: Some(tip.id(db).to_string()),
        findings,
        unverified,
        summary,
        nodes: nodes.iter().map(|n| n.id.0.clone()).collect(),
    })
}
