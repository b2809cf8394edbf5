//! What an editor shows of a lint report: diagnostics per file. A unit the unsaved
//! change (the working tree's commit) changes gets one diagnostic on its lines, with the
//! gate's verdict; the debt a unit already carried at HEAD is one information line on it,
//! never repeated per keystroke; every finding sits on the frontmatter line of its entry
//! in the node's `spec.md`, with its code and repair.
//!
//! Owns: that mapping and the wording of the source-file diagnostics. Does not own: the
//! findings or their lines (`keel_queries::lint`: `selector_lines`, `entry_line`), nor the
//! protocol (`super`).

use super::lines;
use keel_engine::KeelDatabase;
use keel_queries::lint::{
    Finding, HitRecord, LineRange, LintReport, Severity, entry_line, selector_lines,
};
use keel_queries::spec::SpecError;
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Range};
use std::collections::BTreeMap;

/// The diagnostics of `report` by repository path (`worktree`: the id the report names
/// the working tree's commit by, whose hits are the unsaved change's own).
pub(crate) fn diagnostics(
    db: &KeelDatabase,
    report: &LintReport,
    worktree: &str,
) -> BTreeMap<String, Vec<Diagnostic>> {
    let mut files: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
    for finding in &report.findings {
        let spec = format!(".spec/{}/spec.md", finding.node);
        // A finding whose entry line cannot be read sits on the spec's first line.
        let line = entry_line(db, finding).ok().flatten().unwrap_or(1);
        files
            .entry(spec)
            .or_default()
            .push(spec_diagnostic(finding, line));
        let (edit, debt): (Vec<&HitRecord>, Vec<&HitRecord>) = finding
            .hits
            .iter()
            .partition(|hit| &*hit.commit == worktree);
        let source = files.entry(finding.path.clone()).or_default();
        for hit in edit {
            source.extend(edit_diagnostics(db, finding, hit));
        }
        if !debt.is_empty() {
            source.extend(debt_diagnostics(db, finding, &debt));
        }
    }
    files
}

/// The specs keel refuses to read (as the buffers hold them), each on its line: lint
/// cannot judge until they read, so these are the only diagnostics then.
pub(crate) fn spec_refusals(errors: &[SpecError]) -> BTreeMap<String, Vec<Diagnostic>> {
    let mut files: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
    for error in errors {
        let line = error.line.unwrap_or(1);
        files
            .entry(error.file.clone())
            .or_default()
            .push(Diagnostic {
                range: lines(line, line),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String("spec".to_owned())),
                source: Some("keel".to_owned()),
                message: format!("{}\nrepair: {}", error.message, error.repair),
                ..Diagnostic::default()
            });
    }
    files
}

/// The finding on its entry's line of the spec, as lint words it.
fn spec_diagnostic(finding: &Finding, line: u32) -> Diagnostic {
    diagnostic(
        lines(line, line),
        severity(finding),
        finding,
        format!("{}\nrepair: {}", finding.message, finding.repair),
    )
}

/// What the unsaved change did to each unit it hit: the gate's verdict, on the unit.
fn edit_diagnostics(db: &KeelDatabase, finding: &Finding, hit: &HitRecord) -> Vec<Diagnostic> {
    let units = if hit.selectors.is_empty() {
        "this file".to_owned()
    } else {
        hit.selectors
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let node = &finding.node;
    let message = match finding.severity {
        Severity::Error => format!(
            "changes {units}, pinned by `.spec/{node}`: the gate will refuse this commit unless the spec is updated in it or the change acknowledged (`Spec-OK: {node}`, or `keel ack {node}` after it)"
        ),
        Severity::Warning => format!(
            "changes {units}, governed by `.spec/{node}` (advisory: the gate does not refuse it); review the spec"
        ),
    };
    ranges_of(db, finding, &hit.selectors)
        .into_iter()
        .map(|range| diagnostic(range, severity(finding), finding, message.clone()))
        .collect()
}

/// The debt the units carried before the change: one information line per unit.
fn debt_diagnostics(db: &KeelDatabase, finding: &Finding, debt: &[&HitRecord]) -> Vec<Diagnostic> {
    let mut selectors: Vec<String> = Vec::new();
    for hit in debt {
        for selector in &hit.selectors {
            if !selectors.contains(selector) {
                selectors.push(selector.clone());
            }
        }
    }
    let node = &finding.node;
    let message = format!(
        "already owed by `.spec/{node}`: {} since the spec's last version changed this (`keel lint` lists them; `keel ack {node}` acknowledges them)",
        crate::render::counted(debt.len(), "commit")
    );
    ranges_of(db, finding, &selectors)
        .into_iter()
        .map(|range| {
            diagnostic(
                range,
                DiagnosticSeverity::INFORMATION,
                finding,
                message.clone(),
            )
        })
        .collect()
}

/// The lines of `selectors`' units in the judged image (the whole first line for a
/// bare entry, or when the units cannot be placed).
fn ranges_of(db: &KeelDatabase, finding: &Finding, selectors: &[String]) -> Vec<Range> {
    if selectors.is_empty() {
        return vec![lines(1, 1)];
    }
    match selector_lines(db, &finding.path, selectors) {
        Ok(found) if !found.is_empty() => found
            .iter()
            .map(|&LineRange { start, end }| lines(start, end))
            .collect(),
        _ => vec![lines(1, 1)],
    }
}

fn diagnostic(
    range: Range,
    severity: DiagnosticSeverity,
    finding: &Finding,
    message: String,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(finding.code.to_string())),
        source: Some("keel".to_owned()),
        message,
        ..Diagnostic::default()
    }
}

fn severity(finding: &Finding) -> DiagnosticSeverity {
    match finding.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
    }
}
