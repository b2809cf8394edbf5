//! `keel fresh` as data: may each eval reading still testify about the code at the tip?
//!
//! Owns: the reading's own window and its one-bit verdict, with `fresh`'s wording. A
//! reading names code with the entry grammar of a spec's `code:` list
//! ([`crate::spec::parse_code_entries`]: `path#sel1,sel2` or a bare file path; folders and
//! globs are refused, since a reading measures files and units). Its window is the PLAIN
//! ancestry window — every commit reachable from the tip and not from the reading's
//! commit — with no spec versions and no `Spec-OK` acknowledgements: an acknowledgement
//! speaks for a node, and never vindicates a reading. The verdict, checked in this order:
//! - stale when the reading's commit is not an ancestor of the tip (its code is not in
//!   the tip's history, so nothing can be said about what changed since);
//! - stale when a selector does not resolve at the tip — the one classifier
//!   ([`crate::anchors::classify`]) decides: dead, a missing file, ambiguous, unparseable,
//!   no extractor, or an extractor that cannot run here (a type-only unit resolves, as in
//!   lint); a bare path that is not a file at the tip is dead too;
//! - stale when the window reaches past a shallow clone's boundary (it cannot be read
//!   whole, so it can never be found clean);
//! - stale with the first commit, newest first in walk order, that changed a named unit
//!   (the drift engine's per-event judgement, [`crate::drift::scoped_change`]: hunk∩range,
//!   rename-following lineage, merges charged only with the lines they own, conservative
//!   hits on what does not parse) or, for a bare path, authored any change to the file;
//! - else fresh.
//!
//! The scan is the seed's EXISTENCE query. A verdict is one bit, so a reading's scan stops
//! at its first hit; it is fresh only once its whole window was scanned. The scan runs in
//! rounds over every unsettled reading at once, round `k` judging the next `2^k` window
//! commits of each (1, 2, 4, …; counted over the commits that changed one of the reading's
//! files, through its lineage, since no other commit can stale it), so the number of rounds
//! grows with the depth of the first hit, never with the number of readings. Within its
//! slice a reading's commits are judged newest first and the slice ends at its first hit.
//! Does not own: reading the readings file (`keel_engine::readings`), the per-event
//! judgement (`drift`), lineages (`lineage`), or rendering and exit codes (`keel`).

use crate::anchors::{ImageUnits, LineRange, Selector, Verdict, classify};
use crate::drift::{Anchor, ScopedChange, scoped_change};
use crate::events::{authored, tip_image};
use crate::extract::Language;
use crate::history::{ancestry, tip_history};
use crate::images::{FileBound, tip_units_within};
use crate::json::Json;
use crate::lineage::lineage;
use crate::lint::tip_file_bound;
use crate::spec::{EntryRefusal, Target, has_glob_chars, parse_code_entries};
use crate::tree::{RepoPath, tip_entry};
use keel_engine::inputs::{Commit, Tip};
use keel_engine::objects::{EntryKind, ObjectError};
use keel_engine::readings::{Reading, Readings};
use keel_engine::refusal::{Refusal, RefusalCode};
use keel_engine::{Db, Oid};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt;

/// The schema of `keel fresh --format json`.
pub const FRESH_SCHEMA: &str = "keel.fresh.v1";

/// How a report names the working tree's in-memory commit.
pub use keel_engine::WORKTREE;

/// What one `code` entry of a reading measures.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Measured {
    /// Named units of one file (`path#sel1,sel2`).
    Units {
        path: String,
        selectors: Vec<Selector>,
    },
    /// A whole file (a bare path): any change to it stales the reading.
    File { path: String },
}

impl Measured {
    fn path(&self) -> &str {
        match self {
            Self::Units { path, .. } | Self::File { path } => path,
        }
    }
}

/// Why a reading is stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaleKind {
    /// A window commit changed what it measures.
    Hit,
    /// A selector or path does not resolve at the tip.
    Unresolved,
    /// Its commit is not an ancestor of the tip.
    NotAncestor,
    /// Its window reaches past a shallow clone's boundary.
    Shallow,
}

/// A stale reading's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    pub kind: StaleKind,
    /// The reason, worded for a reader (`app.py#f changed in 1a2b3c4d5e6f Fix f`).
    pub reason: String,
    /// The commit that changed it (its full id, or [`WORKTREE`]); for a hit only.
    pub commit: Option<String>,
    /// The entry at fault, as `path#selector` or a bare path.
    pub selector: Option<String>,
}

/// One reading's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadingVerdict {
    pub id: String,
    /// `None`: fresh.
    pub stale: Option<Stale>,
}

/// Every reading's verdict at the tip, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreshReport {
    /// The tip's full id ([`WORKTREE`] for the working tree); `None` with no commits.
    pub tip: Option<String>,
    pub readings: Vec<ReadingVerdict>,
    /// How many rounds the existence scan took.
    pub rounds: usize,
    /// How many (reading, window commit) pairs it judged.
    pub judged: usize,
}

impl FreshReport {
    /// How many readings are stale.
    pub fn stale(&self) -> usize {
        self.readings.iter().filter(|r| r.stale.is_some()).count()
    }
}

/// Why `fresh` cannot answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FreshError {
    /// A `code` entry keel refuses ([`RefusalCode::CodeEntry`] at `file:line`, the entry
    /// as its field).
    Entry(Refusal),
    /// A git object could not be read.
    Object(ObjectError),
}

impl fmt::Display for FreshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Entry(refusal) => write!(f, "{refusal}"),
            Self::Object(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for FreshError {}

impl From<ObjectError> for FreshError {
    fn from(err: ObjectError) -> Self {
        Self::Object(err)
    }
}

/// Judges every reading of `readings` at the tip (the [`Tip`] input). `worktree` names the
/// working tree's in-memory commit, if the tip is one, so a hit by it reads
/// [`WORKTREE`]. Every entry is parsed before anything is judged: a refused entry is an
/// error, never a verdict.
pub fn fresh(
    db: &dyn Db,
    readings: Readings,
    worktree: Option<Oid>,
) -> Result<FreshReport, FreshError> {
    let tip = Tip::get(db).commit(db);
    let file = readings.file(db);
    let all = readings.readings(db);
    let measured = all
        .iter()
        .map(|reading| measured(db, tip, file, reading))
        .collect::<Result<Vec<_>, _>>()?;
    let name = |commit: Commit| {
        if Some(commit.id(db)) == worktree {
            WORKTREE.to_owned()
        } else {
            commit.id(db).to_string()
        }
    };
    let bound = tip.map_or_else(FileBound::default, |tip| tip_file_bound(db, tip));
    let mut verdicts: Vec<Option<Stale>> = vec![None; all.len()];
    let mut scans: Vec<Scan> = Vec::new();
    let history = tip.map(|tip| tip_history(db, tip)).transpose()?;
    let by_id: FxHashMap<Oid, Commit> = history
        .iter()
        .flat_map(|history| history.walked())
        .map(|&commit| (commit.id(db), commit))
        .collect();
    for (index, (reading, entries)) in all.iter().zip(&measured).enumerate() {
        let (Some(tip), Some(&base)) = (tip, by_id.get(&reading.commit)) else {
            verdicts[index] = Some(not_ancestor(reading));
            continue;
        };
        if let Some(stale) = unresolved(db, tip, entries, bound)? {
            verdicts[index] = Some(stale);
            continue;
        }
        // Past a shallow boundary lie commits the window may hold: reachable from the tip
        // through a shallow commit the reading's commit does not reach. (Unlike a node's
        // window, a shallow reading commit alone truncates nothing: no versions lie behind
        // it, and whatever does is reachable from it.)
        let covered = ancestry(db, base);
        let shallow = history
            .as_ref()
            .map_or(&[][..], |history| history.shallow());
        if shallow.iter().any(|s| !covered.contains(s)) {
            verdicts[index] = Some(truncated(reading));
            continue;
        }
        let steps = window_steps(db, tip, covered, entries)?;
        if !steps.is_empty() {
            scans.push(Scan {
                reading: index,
                steps,
                next: 0,
            });
        }
    }
    let (mut rounds, mut judged, mut width) = (0, 0, 1usize);
    while !scans.is_empty() {
        rounds += 1;
        let mut unsettled = Vec::with_capacity(scans.len());
        for mut scan in scans {
            let before = scan.next;
            let hit = scan.advance(db, width, &measured[scan.reading], bound)?;
            judged += scan.next - before;
            match hit {
                Some(hit) => verdicts[scan.reading] = Some(hit.stale(db, &name)),
                // Scanned to its end with no hit: fresh.
                None if scan.next == scan.steps.len() => {}
                None => unsettled.push(scan),
            }
        }
        scans = unsettled;
        width = width.saturating_mul(2);
    }
    Ok(FreshReport {
        tip: tip.map(name),
        readings: all
            .iter()
            .zip(verdicts)
            .map(|(reading, stale)| ReadingVerdict {
                id: reading.id.clone(),
                stale,
            })
            .collect(),
        rounds,
        judged,
    })
}

/// A reading's entries, parsed with the spec grammar. A glob-looking bare path that is a
/// file at the tip is that file (`app/[slug]/page.tsx`); any other folder or glob is
/// refused.
fn measured(
    db: &dyn Db,
    tip: Option<Commit>,
    file: &str,
    reading: &Reading,
) -> Result<Vec<Measured>, FreshError> {
    let refuse = |EntryRefusal {
                      index,
                      message,
                      repair,
                  }: EntryRefusal| {
        FreshError::Entry(Refusal::new(
            RefusalCode::CodeEntry,
            format!("{file}:{}", reading.line),
            Some(&format!("code[{index}]")),
            message,
            repair,
        ))
    };
    let targets = parse_code_entries(&reading.code).map_err(refuse)?;
    let mut entries = Vec::with_capacity(targets.len());
    for (index, target) in targets.into_iter().enumerate() {
        entries.push(match target {
            Target::Scoped { path, selectors } => Measured::Units { path, selectors },
            Target::Path(path) => Measured::File { path },
            Target::Glob(path) if is_file_at(db, tip, &path)? => Measured::File { path },
            Target::Glob(pattern) | Target::Folder(pattern) => {
                let kind = if has_glob_chars(&pattern) {
                    "a glob"
                } else {
                    "a folder"
                };
                return Err(refuse(EntryRefusal {
                    index,
                    message: format!(
                        "`{}` is {kind}; a reading measures files and units",
                        reading.code[index].trim()
                    ),
                    repair: "list the files it measures, each as a bare path or `path#selector`"
                        .to_owned(),
                }));
            }
        });
    }
    Ok(entries)
}

/// Is `path` a file at the tip?
fn is_file_at(db: &dyn Db, tip: Option<Commit>, path: &str) -> Result<bool, ObjectError> {
    let Some(tip) = tip else {
        return Ok(false);
    };
    Ok(tip_entry(db, tip, RepoPath::new(db, path.to_owned()))?
        .is_some_and(|entry| entry.kind == EntryKind::File))
}

fn not_ancestor(reading: &Reading) -> Stale {
    Stale {
        kind: StaleKind::NotAncestor,
        reason: format!(
            "commit {} is not an ancestor of the tip, so what changed since cannot be known",
            reading.commit.short(12)
        ),
        commit: None,
        selector: None,
    }
}

fn truncated(reading: &Reading) -> Stale {
    Stale {
        kind: StaleKind::Shallow,
        reason: format!(
            "the commits since {} reach past this shallow clone's boundary, so they cannot all be read (fetch the whole history: `git fetch --unshallow`)",
            reading.commit.short(12)
        ),
        commit: None,
        selector: None,
    }
}

/// The first entry, in order, that does not resolve at the tip: each selector as the one
/// classifier judges it, each bare path as a file.
fn unresolved(
    db: &dyn Db,
    tip: Commit,
    entries: &[Measured],
    bound: FileBound,
) -> Result<Option<Stale>, ObjectError> {
    for entry in entries {
        let at = RepoPath::new(db, entry.path().to_owned());
        let found = match entry {
            Measured::Units { path, selectors } => {
                let units = tip_units_within(db, tip_image(db, tip, at)?, bound);
                selectors.iter().find_map(|selector| {
                    let verdict = classify(units, selector);
                    unresolved_wording(path, selector, &verdict, units)
                        .map(|reason| (format!("{path}#{selector}"), reason))
                })
            }
            Measured::File { path } => match tip_entry(db, tip, at)?.map(|e| e.kind) {
                None => Some((
                    path.clone(),
                    format!("{path} is dead: it does not exist at the tip (deleted or renamed)"),
                )),
                Some(EntryKind::Tree) => Some((
                    path.clone(),
                    format!(
                        "{path} is dead: it is a folder at the tip, and a reading measures files"
                    ),
                )),
                Some(_) => None,
            },
        };
        if let Some((selector, reason)) = found {
            return Ok(Some(Stale {
                kind: StaleKind::Unresolved,
                reason,
                commit: None,
                selector: Some(selector),
            }));
        }
    }
    Ok(None)
}

/// `fresh`'s wording of a verdict that does not resolve; `None` for one that does (a
/// live unit, or a type-only one: lint judges those too, with a warning).
fn unresolved_wording(
    path: &str,
    selector: &Selector,
    verdict: &Verdict,
    units: &ImageUnits,
) -> Option<String> {
    let anchor = format!("{path}#{selector}");
    Some(match verdict {
        Verdict::Live(_) | Verdict::TypeOnly(_) => return None,
        Verdict::Dead => {
            format!(
                "{anchor} is dead: {path} has no unit {selector} at the tip (deleted or renamed)"
            )
        }
        Verdict::FileMissing => {
            format!("{anchor} is dead: {path} does not exist at the tip (deleted or renamed)")
        }
        Verdict::Ambiguous(ranges) => format!(
            "{anchor} is ambiguous: {} units of {path} are named {selector} (lines {})",
            ranges.len(),
            LineRange::list(ranges)
        ),
        Verdict::Unparseable {
            line,
            reason,
            unparsed,
        } if unparsed.is_empty() => format!(
            "{anchor} is unparseable: {path} does not parse at the tip ({path}:{line}: {reason})"
        ),
        Verdict::Unparseable { line, reason, .. } => format!(
            "{anchor} is unparseable: it names no unit of {path} that parses at the tip (lines {} did not parse; {path}:{line}: {reason})",
            LineRange::list(units.unparsed())
        ),
        Verdict::NoExtractor => format!(
            "{anchor} cannot be resolved: keel has no extractor for {path} (units are read in .py .pyi .ts .mts .cts .tsx .js .jsx .mjs .cjs files)"
        ),
        Verdict::TooLarge => format!(
            "{anchor} is unverified: {path} is past `max_file_bytes` under [lint] in keel.toml, so keel does not parse it"
        ),
        Verdict::ExtractorUnavailable { reason } => {
            let extractor = Language::for_path(path).map_or("designated", |l| l.extractor_id());
            format!("{anchor} is unverified: the {extractor} extractor cannot run here ({reason})")
        }
    })
}

/// One window commit that changed one of a reading's files, with what to ask of it.
struct Step {
    commit: Commit,
    /// (entry index, the file's path at that commit), in entry order.
    checks: Vec<(usize, String)>,
}

/// The window commits — reachable from the tip, not from the reading's commit (`covered`
/// is its ancestry) — that changed one of the entries' files through its lineage, newest
/// first in walk order.
fn window_steps(
    db: &dyn Db,
    tip: Commit,
    covered: &FxHashSet<Commit>,
    entries: &[Measured],
) -> Result<Vec<Step>, ObjectError> {
    let index = tip_history(db, tip)?;
    let mut events: Vec<(usize, usize, Commit, String)> = Vec::new();
    for (entry, measured) in entries.iter().enumerate() {
        let path = RepoPath::new(db, measured.path().to_owned());
        for event in lineage(db, tip, path)? {
            if !covered.contains(&event.commit) {
                let position = index.position(event.commit).unwrap_or(usize::MAX);
                events.push((position, entry, event.commit, event.path.clone()));
            }
        }
    }
    // A position names one commit, so (position, entry, path) orders the events fully.
    events.sort_by(|a, b| (a.0, a.1, &a.3).cmp(&(b.0, b.1, &b.3)));
    events.dedup();
    let mut steps: Vec<Step> = Vec::new();
    for (_, entry, commit, path) in events {
        match steps.last_mut() {
            Some(step) if step.commit == commit => step.checks.push((entry, path)),
            _ => steps.push(Step {
                commit,
                checks: vec![(entry, path)],
            }),
        }
    }
    Ok(steps)
}

/// A reading's scan: its window steps and how far it got.
struct Scan {
    reading: usize,
    steps: Vec<Step>,
    next: usize,
}

/// What hit a reading.
struct Hit {
    commit: Commit,
    /// The entry's path at the tip and the selector hit (`None`: a bare path).
    path: String,
    selector: Option<Selector>,
    /// The file's path at that commit, when a rename since moved it.
    then: Option<String>,
    conservative: bool,
}

impl Scan {
    /// Judges up to `width` more steps, newest first, stopping at the first hit.
    fn advance(
        &mut self,
        db: &dyn Db,
        width: usize,
        entries: &[Measured],
        bound: FileBound,
    ) -> Result<Option<Hit>, ObjectError> {
        let end = self.next.saturating_add(width).min(self.steps.len());
        while self.next < end {
            let step = &self.steps[self.next];
            self.next += 1;
            for (entry, then) in &step.checks {
                if let Some(hit) = judge(db, step.commit, &entries[*entry], then, bound)? {
                    return Ok(Some(hit));
                }
            }
        }
        Ok(None)
    }
}

/// Did `commit`'s change to the file at `then` (its path at that commit) change what
/// `entry` measures? The drift engine's judgement for units; any authored change for a
/// bare path.
fn judge(
    db: &dyn Db,
    commit: Commit,
    entry: &Measured,
    then: &str,
    bound: FileBound,
) -> Result<Option<Hit>, ObjectError> {
    let hit = |selector: Option<Selector>, conservative: bool| Hit {
        commit,
        path: entry.path().to_owned(),
        selector,
        then: (then != entry.path()).then(|| then.to_owned()),
        conservative,
    };
    Ok(match entry {
        Measured::Units { selectors, .. } => {
            let anchor = Anchor::new(db, then.to_owned(), selectors.clone(), bound);
            match scoped_change(db, commit, anchor)
                .as_ref()
                .map_err(Clone::clone)?
            {
                ScopedChange::Hit(hits) => hits
                    .first()
                    .map(|first| hit(Some(first.selector.clone()), first.conservative)),
                ScopedChange::Missed | ScopedChange::Untouched => None,
            }
        }
        Measured::File { .. } => authored(db, commit, then)?.then(|| hit(None, false)),
    })
}

impl Hit {
    fn stale(self, db: &dyn Db, name: &dyn Fn(Commit) -> String) -> Stale {
        let selector = match &self.selector {
            Some(selector) => format!("{}#{selector}", self.path),
            None => self.path.clone(),
        };
        let commit = name(self.commit);
        let mut reason = if commit == WORKTREE {
            format!("{selector} changed in the working tree")
        } else {
            let subject = self.commit.message(db).lines().next().unwrap_or_default();
            format!(
                "{selector} changed in {} {subject}",
                self.commit.id(db).short(12)
            )
        };
        if let Some(then) = &self.then {
            reason.push_str(&format!(" (as {then})"));
        }
        if self.conservative {
            reason.push_str(" (conservative: lines that do not parse, or a binary change)");
        }
        Stale {
            kind: StaleKind::Hit,
            reason,
            commit: Some(commit),
            selector: Some(selector),
        }
    }
}

/// The report as `keel.fresh.v1` JSON: fixed key order; `reason`, `commit` and `selector`
/// only where they apply.
pub fn fresh_json(report: &FreshReport) -> Json {
    let readings = report
        .readings
        .iter()
        .map(|reading| {
            let mut fields = vec![("id", Json::string(reading.id.clone()))];
            match &reading.stale {
                None => fields.push(("status", Json::string("fresh"))),
                Some(stale) => {
                    fields.push(("status", Json::string("stale")));
                    fields.push(("reason", Json::string(stale.reason.clone())));
                    if let Some(commit) = &stale.commit {
                        fields.push(("commit", Json::string(commit.clone())));
                    }
                    if let Some(selector) = &stale.selector {
                        fields.push(("selector", Json::string(selector.clone())));
                    }
                }
            }
            Json::Object(fields)
        })
        .collect();
    let stale = report.stale();
    Json::Object(vec![
        ("schema", Json::string(FRESH_SCHEMA)),
        ("tip", report.tip.clone().map_or(Json::Null, Json::String)),
        ("readings", Json::Array(readings)),
        (
            "summary",
            Json::Object(vec![
                (
                    "fresh",
                    Json::number((report.readings.len() - stale) as u64),
                ),
                ("stale", Json::number(stale as u64)),
            ]),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(id: &str, stale: Option<Stale>) -> ReadingVerdict {
        ReadingVerdict {
            id: id.to_owned(),
            stale,
        }
    }

    #[test]
    fn json_keeps_key_order_and_leaves_out_what_does_not_apply() {
        let report = FreshReport {
            tip: Some("abc".to_owned()),
            readings: vec![
                verdict("a", None),
                verdict(
                    "b",
                    Some(Stale {
                        kind: StaleKind::Hit,
                        reason: "app.py#f changed in worktree".to_owned(),
                        commit: Some(WORKTREE.to_owned()),
                        selector: Some("app.py#f".to_owned()),
                    }),
                ),
                verdict(
                    "c",
                    Some(Stale {
                        kind: StaleKind::NotAncestor,
                        reason: "not an ancestor".to_owned(),
                        commit: None,
                        selector: None,
                    }),
                ),
            ],
            rounds: 1,
            judged: 1,
        };
        assert_eq!(
            fresh_json(&report).to_text(),
            concat!(
                r#"{"schema":"keel.fresh.v1","tip":"abc","readings":["#,
                r#"{"id":"a","status":"fresh"},"#,
                r#"{"id":"b","status":"stale","reason":"app.py#f changed in worktree","commit":"worktree","selector":"app.py#f"},"#,
                r#"{"id":"c","status":"stale","reason":"not an ancestor"}],"#,
                r#""summary":{"fresh":1,"stale":2}}"#
            )
        );
    }

    #[test]
    fn every_verdict_that_does_not_resolve_is_worded_and_live_ones_are_not() {
        let selector = Selector::parse("f").expect("a selector");
        let range = LineRange { start: 1, end: 2 };
        let units = ImageUnits::Extracted(Ok(Vec::new()));
        let word = |verdict: Verdict| unresolved_wording("a.py", &selector, &verdict, &units);
        assert_eq!(word(Verdict::Live(range)), None);
        assert_eq!(word(Verdict::TypeOnly(range)), None);
        assert_eq!(
            word(Verdict::Dead).as_deref(),
            Some("a.py#f is dead: a.py has no unit f at the tip (deleted or renamed)")
        );
        assert_eq!(
            word(Verdict::Ambiguous(vec![
                range,
                LineRange { start: 4, end: 4 }
            ]))
            .as_deref(),
            Some("a.py#f is ambiguous: 2 units of a.py are named f (lines 1-2, 4)")
        );
        for verdict in [
            Verdict::FileMissing,
            Verdict::Unparseable {
                line: 3,
                reason: "syntax error".to_owned(),
                unparsed: Vec::new(),
            },
            Verdict::NoExtractor,
            Verdict::TooLarge,
            Verdict::ExtractorUnavailable {
                reason: "abi".to_owned(),
            },
        ] {
            let worded = word(verdict.clone()).expect("stales the reading");
            assert!(worded.starts_with("a.py#f "), "{verdict:?}: {worded}");
        }
    }
}
