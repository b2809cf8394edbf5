//! The lint report: what `keel lint` found, as data that serializes as `keel.lint.v1`.
//!
//! Owns: the report types, the schema id, what counts as blocking, and where a finding
//! sits at the tip (the lines of its units, for readers that point at code). Does not own:
//! how findings are decided (`judge`) or printed (`keel`).

use crate::anchors::{LineRange, Selector, Side, classify};
use crate::cosmetic::Cosmetic;
use crate::events::tip_image;
use crate::images::tip_units_within;
use crate::spec::SpecError;
use crate::tree::RepoPath;
use keel_engine::Db;
use keel_engine::inputs::Tip;
use keel_engine::objects::ObjectError;
use keel_engine::settings::SettingsError;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The whole lint answer at the tip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintReport {
    pub schema: &'static str,
    /// The judged commit; `None` for a repository without commits.
    pub tip: Option<String>,
    pub findings: Vec<Finding>,
    pub unverified: Vec<Unverified>,
    pub summary: Summary,
    /// Every node judged, sorted (the text report names the clean ones).
    #[serde(skip)]
    pub nodes: Vec<String>,
}

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Blocks: lint exits 1.
    Error,
    /// Advisory.
    Warning,
}

/// One finding about one entry of one node. Deserializes too, for the last answer keel
/// keeps on disk (`super::state`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub node: String,
    pub severity: Severity,
    /// A kebab-case kind, e.g. `anchor-hit`, `dead-anchor`, `code-drift`: one of
    /// [`super::codes::FINDING_CODES`].
    #[serde(deserialize_with = "super::codes::known_code")]
    pub code: super::codes::Code,
    pub path: String,
    pub selectors: Vec<String>,
    pub hits: Vec<HitRecord>,
    pub message: String,
    pub repair: String,
}

/// One window commit's share of a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HitRecord {
    pub commit: Arc<str>,
    /// The file's path at that commit when it differs from the entry's: the commit came
    /// before a rename and is judged under the path it had then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The commit's subject line, for readers; not part of `keel.lint.v1` (the last
    /// answer on disk keeps the subjects beside its findings).
    #[serde(skip)]
    pub subject: Arc<str>,
    pub selectors: Vec<String>,
    pub side: Option<Side>,
    pub conservative: bool,
    /// How far the change to the hit units was only cosmetic (all of them, on both
    /// images): `layout` (comments and whitespace), `docstring` (docstrings too);
    /// absent for a real change, a merge, an added or deleted unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosmetic: Option<Cosmetic>,
    /// The commit's change to the file as `git patch-id` reads it (16 hex digits): hits
    /// that share it are the same patch applied twice (a cherry-pick to a maintenance
    /// branch); the text report groups them, JSON keeps each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_id: Option<String>,
}

/// Anchors that were skipped because their extractor cannot run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unverified {
    pub node: String,
    pub path: String,
    pub selectors: Vec<String>,
    pub reason: String,
}

/// Counts over the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Summary {
    pub nodes: usize,
    pub anchors: usize,
    pub errors: usize,
    pub warnings: usize,
}

impl LintReport {
    /// True when something blocks: an error finding or an unverified anchor.
    pub fn blocks(&self) -> bool {
        self.summary.errors > 0 || !self.unverified.is_empty()
    }

    /// Names the commit `id` `label` wherever the report shows it (the tip, hits): the
    /// working tree's in-memory commit has an id no repository holds.
    pub fn name_commit(&mut self, id: &str, label: &str) {
        if self.tip.as_deref() == Some(id) {
            self.tip = Some(label.to_owned());
        }
        let hits = self.findings.iter_mut().flat_map(|f| f.hits.iter_mut());
        for hit in hits.filter(|hit| &*hit.commit == id) {
            hit.commit = label.into();
        }
    }
}

/// A candidate's report told apart for its author (the gate's refusal): what the judged
/// commit itself adds, what the nodes it touches already owed, and what stands in its tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Owed {
    /// Each finding's hits by the judged commits themselves (errors and warnings), in
    /// report order: answered by updating the spec in the same commit, or a `Spec-OK`
    /// trailer on it.
    pub added: Vec<Finding>,
    /// Each blocking finding's hits by earlier window commits: debt the nodes carried
    /// before this commit, answered by `keel ack` (a trailer on this commit covers only it).
    pub carried: Vec<Finding>,
    /// Blocking findings with no hit (a dead anchor, a spec keel refuses, a removed
    /// governor): the specs as the commit leaves them, answered by editing the spec.
    pub standing: Vec<Finding>,
}

impl Owed {
    /// The nodes of `findings`, sorted, each once.
    pub fn nodes(findings: &[Finding]) -> Vec<&str> {
        let mut nodes: Vec<&str> = findings.iter().map(|f| f.node.as_str()).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// The distinct commits of `findings`' hits, in first-seen order.
    pub fn commits(findings: &[Finding]) -> Vec<&str> {
        let mut commits: Vec<&str> = Vec::new();
        for hit in findings.iter().flat_map(|f| &f.hits) {
            if !commits.contains(&&*hit.commit) {
                commits.push(&hit.commit);
            }
        }
        commits
    }
}

impl LintReport {
    /// The report split at `commits` (the judged candidate, or a ref update's new
    /// commits, as hits name them): their hits are added, earlier ones carried.
    pub fn owed_by(&self, commits: &[String]) -> Owed {
        let mut owed = Owed::default();
        for finding in &self.findings {
            if finding.hits.is_empty() {
                if finding.severity == Severity::Error {
                    owed.standing.push(finding.clone());
                }
                continue;
            }
            let (own, earlier): (Vec<HitRecord>, Vec<HitRecord>) = finding
                .hits
                .iter()
                .cloned()
                .partition(|hit| commits.iter().any(|commit| **commit == *hit.commit));
            if !own.is_empty() {
                owed.added.push(Finding {
                    hits: own,
                    ..finding.clone()
                });
            }
            if !earlier.is_empty() && finding.severity == Severity::Error {
                owed.carried.push(Finding {
                    hits: earlier,
                    ..finding.clone()
                });
            }
        }
        owed
    }
}

/// The lines at the tip of the units a finding names: one range per selector that the
/// one classifier finds live (or type-only) in the tip's image of the finding's path, in
/// the finding's order. Empty when it names no unit that stands (a bare entry, a dead
/// anchor, a finding about the spec): such a finding is about the whole file.
pub fn unit_lines(db: &dyn Db, finding: &Finding) -> Result<Vec<LineRange>, ObjectError> {
    selector_lines(db, &finding.path, &finding.selectors)
}

/// [`unit_lines`] of any selectors of the file at `path` (an editor asks for the ones one
/// commit hit).
pub fn selector_lines(
    db: &dyn Db,
    path: &str,
    selectors: &[String],
) -> Result<Vec<LineRange>, ObjectError> {
    let Some(tip) = Tip::get(db).commit(db) else {
        return Ok(Vec::new());
    };
    let image = tip_image(db, tip, RepoPath::new(db, path.to_owned()))?;
    let units = tip_units_within(db, image, super::tip_file_bound(db, tip));
    Ok(selectors
        .iter()
        .filter_map(|text| Selector::parse(text))
        .filter_map(|selector| classify(units, &selector).hit_ranges())
        .flatten()
        .collect())
}

/// Why lint could not produce a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LintError {
    /// Specs keel refuses to read (sorted by file and line).
    Specs(Vec<SpecError>),
    /// The judged commit's `keel.toml` does not fit the schema, or is no regular file.
    Settings(SettingsError),
    /// The repository's objects could not be read.
    Object(ObjectError),
}

impl From<ObjectError> for LintError {
    fn from(err: ObjectError) -> Self {
        Self::Object(err)
    }
}

/// The schema id of the JSON report.
pub const LINT_SCHEMA: &str = "keel.lint.v1";

#[cfg(test)]
mod tests {
    use super::{Finding, HitRecord, LintReport, Owed, Severity, Summary};

    fn hit(commit: &str) -> HitRecord {
        HitRecord {
            commit: commit.into(),
            path: None,
            subject: "".into(),
            selectors: Vec::new(),
            side: None,
            conservative: false,
            cosmetic: None,
            patch_id: None,
        }
    }

    fn finding(node: &str, severity: Severity, code: &'static str, commits: &[&str]) -> Finding {
        Finding {
            node: node.to_owned(),
            severity,
            code,
            path: "app.py".to_owned(),
            selectors: Vec::new(),
            hits: commits.iter().map(|c| hit(c)).collect(),
            message: String::new(),
            repair: String::new(),
        }
    }

    #[test]
    fn a_report_splits_into_the_commits_own_hits_the_debt_before_it_and_what_stands() {
        let report = LintReport {
            schema: super::LINT_SCHEMA,
            tip: Some("new".to_owned()),
            findings: vec![
                finding("a", Severity::Error, "anchor-hit", &["new", "old1"]),
                finding("b", Severity::Error, "anchor-hit", &["old2"]),
                finding("b", Severity::Warning, "code-drift", &["new", "old2"]),
                finding("c", Severity::Warning, "code-drift", &["old1"]),
                finding("c", Severity::Error, "dead-anchor", &[]),
            ],
            unverified: Vec::new(),
            summary: Summary::default(),
            nodes: Vec::new(),
        };
        let owed = report.owed_by(&["new".to_owned()]);
        let shape = |findings: &[Finding]| {
            findings
                .iter()
                .map(|f| {
                    let commits: Vec<&str> = f.hits.iter().map(|h| &*h.commit).collect();
                    format!("{}:{}:{}", f.node, f.code, commits.join("+"))
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(&owed.added), ["a:anchor-hit:new", "b:code-drift:new"]);
        assert_eq!(
            shape(&owed.carried),
            ["a:anchor-hit:old1", "b:anchor-hit:old2"],
            "advisory drift of earlier commits is no debt"
        );
        assert_eq!(shape(&owed.standing), ["c:dead-anchor:"]);
        assert_eq!(Owed::nodes(&owed.carried), ["a", "b"]);
        assert_eq!(Owed::commits(&owed.carried), ["old1", "old2"]);

        // A ref update that brings two commits: both are its own.
        let owed = report.owed_by(&["new".to_owned(), "old1".to_owned()]);
        assert_eq!(
            shape(&owed.added),
            [
                "a:anchor-hit:new+old1",
                "b:code-drift:new",
                "c:code-drift:old1"
            ]
        );
        assert_eq!(shape(&owed.carried), ["b:anchor-hit:old2"]);
    }
}
