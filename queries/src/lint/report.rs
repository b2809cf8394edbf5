//! The lint report: what `keel lint` found, as data that serializes as `keel.lint.v1`.
//!
//! Owns: the report types, the schema id, what counts as blocking, and where a finding
//! sits at the tip (the lines of its units, for readers that point at code). Does not own:
//! how findings are decided (`judge`) or printed (`keel`).

use crate::anchors::{LineRange, Selector, Side, classify};
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

/// The lines at the tip of the units a finding names: one range per selector that the
/// one classifier finds live (or type-only) in the tip's image of the finding's path, in
/// the finding's order. Empty when it names no unit that stands (a bare entry, a dead
/// anchor, a finding about the spec): such a finding is about the whole file.
pub fn unit_lines(db: &dyn Db, finding: &Finding) -> Result<Vec<LineRange>, ObjectError> {
    let Some(tip) = Tip::get(db).commit(db) else {
        return Ok(Vec::new());
    };
    let image = tip_image(db, tip, RepoPath::new(db, finding.path.clone()))?;
    let units = tip_units_within(db, image, super::tip_file_bound(db, tip));
    Ok(finding
        .selectors
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
