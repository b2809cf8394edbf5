//! `keel lint --format sarif`: the lint report as a SARIF 2.1.0 log, for code scanning.
//!
//! One run; `tool.driver` carries keel's version and one rule per finding code (the
//! catalogue of `keel_queries::lint::codes`: its meaning, its general repair, and a link
//! to its row of `docs/findings.md`); each finding is one result at the lines of its units
//! at the tip — or, for a finding with no hit commit, which is about a spec entry rather
//! than a change (a dead anchor, a file that does not parse, …), at the entry's line of
//! its `spec.md` — with the node's spec (at the entry's line) as a related location, the
//! hit commits under `properties.commits` (each with its `cosmetic` kind and `patchId`
//! when it has them), and a partial fingerprint of the debt (node,
//! path, selectors, code), so the same debt keeps its alert across runs and pushes.
//! Owns: that mapping. Does not own: the findings (`keel_queries::lint`), where a unit
//! sits (`keel_queries::lint::unit_lines`) or where an entry was written
//! (`keel_queries::lint::entry_line`).

use keel_queries::lint::LineRange;
use keel_queries::lint::codes::{CodeDoc, FINDING_CODES};
use keel_queries::lint::{Finding, LintReport, Severity};
use keel_queries::spec::NodeId;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The schema a SARIF 2.1.0 log names.
const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The partial fingerprint's key: a version of keel's debt identity.
const FINGERPRINT_KEY: &str = "keelDebt/v1";

/// The repository keel is kept in (`repository` in its `Cargo.toml`; empty when unset,
/// as it is today: then no rule has a `helpUri`).
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The finding codes' reference page, inside keel's repository.
const FINDINGS_DOC: &str = "docs/findings.md";

/// Where a finding sits: the tip lines of its units, and the line of its entry in its
/// node's `spec.md` (`None` when it is about the spec as a whole or no entry names it).
pub(crate) struct Place {
    pub(crate) units: Vec<LineRange>,
    pub(crate) entry_line: Option<u32>,
}

/// The SARIF log of `report`; `places[i]` is where `report.findings[i]` sits.
/// Pretty-printed, newline-terminated.
pub(crate) fn lint_sarif(report: &LintReport, places: &[Place]) -> String {
    let results: Vec<Value> = report
        .findings
        .iter()
        .zip(places)
        .map(|(finding, place)| result(finding, place))
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
        .map(|doc| rule(doc, REPOSITORY))
        .collect();
    json!({
        "name": "keel",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    })
}

/// The rule of one finding code: its meaning (short, and full with the general repair),
/// the repair as help (text, and Markdown linking the code's row of `docs/findings.md`),
/// and that link as `helpUri` when keel's `repository` is known — SARIF wants an absolute
/// URI there, so with none the link stays in the help's Markdown, relative.
fn rule(doc: &CodeDoc, repository: &str) -> Value {
    let (link, absolute) = docs_link(doc.code, repository);
    let mut rule = json!({
        "id": doc.code,
        "shortDescription": {"text": doc.summary},
        "fullDescription": {"text": format!("{} Repair, in general: {}", doc.summary, doc.help)},
        "help": {
            "text": doc.help,
            "markdown": format!("{}\n\nSee [`{}` in {FINDINGS_DOC}]({link}).", doc.help, doc.code),
        },
    });
    if absolute {
        rule["helpUri"] = json!(link);
    }
    rule
}

/// The link to `code`'s row of `docs/findings.md`, and whether it is absolute: on
/// `repository` when it is known (`…/blob/HEAD/docs/findings.md#code`, GitHub's form),
/// else the page's path relative to a keel checkout.
fn docs_link(code: &str, repository: &str) -> (String, bool) {
    let repository = repository.trim_end_matches('/');
    if repository.is_empty() {
        (format!("{FINDINGS_DOC}#{code}"), false)
    } else {
        (
            format!("{repository}/blob/HEAD/{FINDINGS_DOC}#{code}"),
            true,
        )
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn result(finding: &Finding, place: &Place) -> Value {
    let rule_index = FINDING_CODES
        .iter()
        .position(|doc| doc.code == finding.code);
    let spec = NodeId(finding.node.clone()).spec_path();
    let entry = place.entry_line.map(|line| LineRange {
        start: line,
        end: line,
    });
    let mut located = place
        .units
        .iter()
        .map(|range| location(&finding.path, Some(*range)));
    let primary = match (located.next(), entry) {
        (Some(unit), _) => unit,
        // No hit commit: the finding is about the entry (a unit or path that does not
        // stand, a file keel cannot read), not about a change to code.
        (None, Some(line)) if finding.hits.is_empty() => location(&spec, Some(line)),
        (None, _) => location(&finding.path, None),
    };
    let mut related: Vec<Value> = located.collect();
    related.push(location(&spec, entry));
    for (id, place) in related.iter_mut().enumerate() {
        place["id"] = json!(id);
    }
    if let Some(spec_place) = related.last_mut() {
        spec_place["message"] = json!({"text": format!("spec node {}", finding.node)});
    }
    let commits: Vec<Value> = finding
        .hits
        .iter()
        .map(|hit| {
            let mut commit = json!({
                "id": &*hit.commit,
                "subject": &*hit.subject,
                "selectors": hit.selectors,
            });
            if let Some(cosmetic) = hit.cosmetic {
                commit["cosmetic"] = json!(cosmetic);
            }
            if let Some(patch_id) = &hit.patch_id {
                commit["patchId"] = json!(patch_id);
            }
            commit
        })
        .collect();
    let mut value = json!({
        "ruleId": finding.code,
        "level": level(finding.severity),
        "message": {"text": format!("{}; repair: {}", finding.message, finding.repair)},
        "locations": [primary],
        "relatedLocations": related,
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding)},
        "properties": {"node": finding.node, "commits": commits},
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

    #[test]
    fn a_rule_links_its_row_absolutely_only_when_the_repository_is_known() {
        let doc = &FINDING_CODES[0];
        let known = rule(doc, "https://github.com/example/keel/");
        assert_eq!(
            known["helpUri"],
            "https://github.com/example/keel/blob/HEAD/docs/findings.md#anchor-hit"
        );
        assert!(
            known["help"]["markdown"]
                .as_str()
                .is_some_and(|text| text.ends_with(
                    "(https://github.com/example/keel/blob/HEAD/docs/findings.md#anchor-hit)."
                )),
            "{known:#}"
        );
        let unknown = rule(doc, "");
        assert!(unknown.get("helpUri").is_none(), "{unknown:#}");
        assert!(
            unknown["help"]["markdown"]
                .as_str()
                .is_some_and(|text| text.ends_with("](docs/findings.md#anchor-hit).")),
            "{unknown:#}"
        );
    }
}
