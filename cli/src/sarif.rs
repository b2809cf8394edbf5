//! `keel lint --format sarif`: the lint report as a SARIF 2.1.0 log, for code scanning.
//!
//! One run; `tool.driver` carries keel's version and one rule per finding code (the
//! catalogue of `keel_queries::lint::codes`); each finding is one result at the lines of
//! its units at the tip (the whole file when it names none), with the node's spec as a
//! related location and a partial fingerprint of the debt (node, path, selectors, code),
//! so the same debt keeps its alert across runs and pushes.
//! Owns: that mapping. Does not own: the findings (`keel_queries::lint`) or where a unit
//! sits (`keel_queries::lint::unit_lines`).

use keel_queries::lint::LineRange;
use keel_queries::lint::codes::FINDING_CODES;
use keel_queries::lint::{Finding, LintReport, Severity};
use keel_queries::spec::NodeId;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The schema a SARIF 2.1.0 log names.
const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The partial fingerprint's key: a version of keel's debt identity.
const FINGERPRINT_KEY: &str = "keelDebt/v1";

/// The SARIF log of `report`; `lines[i]` are the tip lines of `report.findings[i]`'s
/// units. Pretty-printed, newline-terminated.
pub(crate) fn lint_sarif(report: &LintReport, lines: &[Vec<LineRange>]) -> String {
    let results: Vec<Value> = report
        .findings
        .iter()
        .zip(lines)
        .map(|(finding, lines)| result(finding, lines))
        .collect();
    let log = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver()},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    });
    // A tree of strings, numbers and arrays: serialization cannot fail.
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

fn driver() -> Value {
    let rules: Vec<Value> = FINDING_CODES
        .iter()
        .map(|doc| {
            json!({
                "id": doc.code,
                "shortDescription": {"text": doc.summary},
                "help": {"text": doc.help},
            })
        })
        .collect();
    json!({
        "name": "keel",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn result(finding: &Finding, lines: &[LineRange]) -> Value {
    let rule_index = FINDING_CODES
        .iter()
        .position(|doc| doc.code == finding.code);
    let mut located = lines
        .iter()
        .map(|range| location(&finding.path, Some(*range)));
    let primary = located
        .next()
        .unwrap_or_else(|| location(&finding.path, None));
    let spec = NodeId(finding.node.clone()).spec_path();
    let mut related: Vec<Value> = located.collect();
    related.push(location(&spec, None));
    for (id, place) in related.iter_mut().enumerate() {
        place["id"] = json!(id);
    }
    if let Some(spec_place) = related.last_mut() {
        spec_place["message"] = json!({"text": format!("spec node {}", finding.node)});
    }
    let mut value = json!({
        "ruleId": finding.code,
        "level": level(finding.severity),
        "message": {"text": format!("{}; repair: {}", finding.message, finding.repair)},
        "locations": [primary],
        "relatedLocations": related,
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding)},
    });
    if let Some(index) = rule_index {
        value["ruleIndex"] = json!(index);
    }
    value
}

fn location(path: &str, lines: Option<LineRange>) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri(path), "uriBaseId": "%SRCROOT%"}});
    if let Some(range) = lines {
        physical["region"] = json!({"startLine": range.start, "endLine": range.end});
    }
    json!({"physicalLocation": physical})
}

/// A repository path as a relative URI reference: every byte outside RFC 3986's
/// unreserved characters and `/` percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The debt's identity, the same for every run that reports it: SHA-256 over node, path,
/// selectors and code, each NUL-terminated.
fn fingerprint(finding: &Finding) -> String {
    let mut hash = Sha256::new();
    for part in [
        finding.node.as_str(),
        finding.path.as_str(),
        &finding.selectors.join(","),
        finding.code,
    ] {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_becomes_a_relative_uri() {
        assert_eq!(uri("src/a b/c#d.py"), "src/a%20b/c%23d.py");
        assert_eq!(uri("app/[slug]/page.tsx"), "app/%5Bslug%5D/page.tsx");
        assert_eq!(uri("naïve.py"), "na%C3%AFve.py");
    }
}
