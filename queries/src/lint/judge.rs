//! Judging one node's entries at the tip: what the tip alone decides (integrity through
//! the one classifier, dead paths, links), then the window as records (which commits hit,
//! missed or changed what the entry governs), then the records worded as findings (one
//! per debt naming its commits and selectors).
//!
//! Owns: those three steps ([`NodeJudge`] for the first two, [`Wording`] for the last),
//! the one conversion of what a commit did into records ([`EntryWindow::record`]), and
//! lint's wording of each finding and its repair. Does not own: what a commit did to a
//! file (`drift`), which events are in a window (`window`), nor a window extended by new
//! commits (`extend`).

use super::Repairs;
use super::home;
use super::report::{Finding, HitRecord, Severity, Unverified};
use crate::anchors::{ImageUnits, LineRange, Selector, Side, Verdict, classify};
use crate::cosmetic::Cosmetic;
use crate::drift::{Anchor, PathPattern, ScopedChange, scoped_change};
use crate::events::tip_image;
use crate::extract::Language;
use crate::history::renames_at;
use crate::images::{FileBound, tip_units_within};
use crate::spec::{Entry, Relation, SpecNode, Target};
use crate::trailers::subject;
use crate::tree::{RepoPath, enclosing_submodule, submodules_under, tip_entry};
use crate::window::{Node, Window, node_base, window};
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};
use keel_engine::settings::{CosmeticHits, Docstrings, LintSettings, ScopedCodeMiss};
use keel_engine::{Db, Oid};
use std::sync::Arc;

/// Which part of a window a caller wants: the `index`-th of `count` contiguous stretches
/// (contiguous, so neighbouring commits — which share images — stay on one thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Share {
    pub(super) index: usize,
    pub(super) count: usize,
}

impl Share {
    /// The whole window.
    pub(super) const ALL: Self = Self { index: 0, count: 1 };

    fn holds(self, position: usize, len: usize) -> bool {
        let count = self.count.max(1);
        position * count / len.max(1) == self.index
    }

    /// The events of this share, in their order.
    pub(super) fn of<T>(self, events: &[T]) -> impl Iterator<Item = &T> {
        events
            .iter()
            .enumerate()
            .filter(move |(position, _)| self.holds(*position, events.len()))
            .map(|(_, event)| event)
    }
}

/// What one window commit did to a scoped entry's file.
pub(super) struct WindowChange {
    pub(super) commit: Commit,
    /// The file's path at that commit (its lineage's path then).
    pub(super) path: String,
    pub(super) change: ScopedChange,
}

/// What each window event of the tip file at `path` did to the selectors, one entry per
/// commit (a lineage that forks meets a commit under two paths: their answers join),
/// newest first, restricted to `share` of those events.
pub(super) fn scoped_window<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
    path: &str,
    selectors: &[Selector],
    bound: FileBound,
    share: Share,
) -> Result<Vec<WindowChange>, ObjectError> {
    window_changes(db, &window(db, tip, node)?, path, selectors, bound, share)
}

/// [`scoped_window`] over any window: a node's, or a range's (`keel touched`).
fn window_changes<'db>(
    db: &'db dyn Db,
    window: &Window<'db>,
    path: &str,
    selectors: &[Selector],
    bound: FileBound,
    share: Share,
) -> Result<Vec<WindowChange>, ObjectError> {
    let mut changes: Vec<WindowChange> = Vec::new();
    let events = window.events(path)?;
    // A lineage holds few paths: each is interned with the selectors once.
    let mut anchors: Vec<(&str, Anchor<'db>)> = Vec::new();
    for event in share.of(&events) {
        let anchor = match anchors.iter().find(|(known, _)| *known == event.path) {
            Some(&(_, anchor)) => anchor,
            None => {
                let anchor = Anchor::new(db, event.path.clone(), selectors.to_vec(), bound);
                anchors.push((&event.path, anchor));
                anchor
            }
        };
        let change = scoped_change(db, event.commit, anchor).clone()?;
        match changes.last_mut() {
            Some(seen) if seen.commit == event.commit => {
                seen.change = seen.change.clone().join(change);
            }
            _ => changes.push(WindowChange {
                commit: event.commit,
                path: event.path.clone(),
                change,
            }),
        }
    }
    Ok(changes)
}

/// The records of what `governed` names in `window` (a node's, or a range's): the one
/// reading of a window into records, for lint and `keel touched` alike.
pub(crate) fn entry_window<'db>(
    db: &'db dyn Db,
    window: &Window<'db>,
    governed: Governed,
    bound: FileBound,
) -> Result<EntryWindow, ObjectError> {
    let mut records = EntryWindow::new(governed.clone());
    match governed {
        Governed::Units { path, selectors } => {
            let events = window_changes(db, window, &path, &selectors, bound, Share::ALL)?;
            for event in events {
                let then = (event.path != path).then_some(event.path);
                records.record(db, &selectors, event.commit, then, event.change);
            }
        }
        Governed::File(path) => {
            let found = window
                .authoring(&path)?
                .into_iter()
                .map(|event| {
                    let then = (event.path != path).then_some(event.path);
                    (event.commit, then)
                })
                .collect();
            let moves = window.gitlink_moves(|link| at_or_inside(&path, link));
            records.record_files(db, window, found, &moves);
        }
        Governed::Files(pattern) => {
            let matches = pattern.matcher();
            let found = window
                .authoring_any(|path| matches(path))?
                .into_iter()
                .map(|commit| (commit, None))
                .collect();
            let moves = window.gitlink_moves(|link| pattern.covers_submodule(link));
            records.record_files(db, window, found, &moves);
        }
    }
    Ok(records)
}

/// What an entry's window was read for, as the tip resolved the entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Governed {
    /// A scoped entry's file: the window commits that hit or missed its selectors.
    Units {
        path: String,
        selectors: Vec<Selector>,
    },
    /// A bare entry's file: the window commits that authored a change to it.
    File(String),
    /// A bare folder or glob entry: the window commits that authored a change to a file
    /// it covers.
    Files(PathPattern),
}

/// An entry's window as records, newest first in walk order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct EntryWindow {
    pub(super) governed: Governed,
    /// `Units`: the commits that hit a selector; otherwise every authoring commit.
    pub(crate) hits: Vec<HitRecord>,
    /// `Units`: the commits that changed the file outside every selector.
    pub(super) missed: Vec<HitRecord>,
    /// `File`, `Files`: the window's moves of a submodule the entry covers (each
    /// commit's is also among `hits`), newest first, for the wording.
    pub(super) submodules: Vec<SubmoduleMove>,
}

/// A window commit that moved a submodule an entry covers: keel cannot look inside it,
/// so the move itself is the drift.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct SubmoduleMove {
    /// The commit's id.
    pub(super) commit: Arc<str>,
    /// The submodule's path.
    pub(super) path: String,
    /// Its commit before and after (`None`: added, or removed).
    pub(super) old: Option<Oid>,
    pub(super) new: Option<Oid>,
}

impl EntryWindow {
    /// A window of `governed` with no records yet.
    pub(super) fn new(governed: Governed) -> Self {
        Self {
            governed,
            hits: Vec::new(),
            missed: Vec::new(),
            submodules: Vec::new(),
        }
    }

    /// Records the commits that changed the governed files (`found`: each with its file's
    /// path then, when it differs from the entry's) and the submodule moves `moves`, as
    /// one list of authoring commits in the window's walk order.
    fn record_files(
        &mut self,
        db: &dyn Db,
        window: &Window<'_>,
        mut found: Vec<(Commit, Option<String>)>,
        moves: &[(Commit, &crate::tree::FileChange)],
    ) {
        for &(commit, link) in moves {
            self.submodules.push(SubmoduleMove {
                commit: commit_label(db, commit).id,
                path: link.path.clone(),
                old: link.old,
                new: link.new,
            });
            if !found.iter().any(|(known, _)| *known == commit) {
                found.push((commit, None));
            }
        }
        // Stable: a commit met twice keeps the order `found` gave it.
        found.sort_by_key(|&(commit, _)| window.position(commit));
        for (commit, then) in found {
            self.record_authoring(db, commit, then);
        }
    }

    /// Records what `commit` did to the scoped file (`then`: its path at that commit,
    /// when it differs from the entry's). The one conversion of a [`ScopedChange`] into
    /// records, for a whole window and for a window extended by new commits alike.
    pub(super) fn record(
        &mut self,
        db: &dyn Db,
        selectors: &[Selector],
        commit: Commit,
        then: Option<String>,
        change: ScopedChange,
    ) {
        match change {
            ScopedChange::Untouched => {}
            ScopedChange::Missed => self.missed.push(change_record(db, commit, then)),
            ScopedChange::Hit(mut selector_hits) => {
                selector_hits.sort_by_key(|h| selectors.iter().position(|s| *s == h.selector));
                let label = commit_label(db, commit);
                self.hits.push(HitRecord {
                    commit: label.id,
                    path: then,
                    subject: label.subject,
                    selectors: selector_hits
                        .iter()
                        .map(|h| h.selector.to_string())
                        .collect(),
                    side: selector_hits.iter().map(|h| h.side).reduce(Side::join),
                    conservative: selector_hits.iter().any(|h| h.conservative),
                    cosmetic: selector_hits
                        .iter()
                        .map(|h| h.cosmetic)
                        .reduce(Cosmetic::both)
                        .flatten(),
                    patch_id: selector_hits
                        .iter()
                        .find_map(|h| h.patch)
                        .map(|patch| format!("{:016x}", patch.0)),
                });
            }
        }
    }

    /// Records `commit` as one that authored a change to the governed files.
    pub(super) fn record_authoring(&mut self, db: &dyn Db, commit: Commit, then: Option<String>) {
        self.hits.push(change_record(db, commit, then));
    }
}

/// One entry judged: the findings its tip alone decides, and its window (`None` when the
/// tip ended the judgement: a link, an extractor that cannot run, a path naming nothing).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct EntryState {
    pub(super) tip: Vec<Finding>,
    pub(super) unverified: Vec<Unverified>,
    pub(super) window: Option<EntryWindow>,
}

/// A finding before the node and path are filled in.
struct Draft {
    severity: Severity,
    code: &'static str,
    selectors: Vec<String>,
    hits: Vec<HitRecord>,
    message: String,
    repair: String,
}

impl Draft {
    fn finding(self, node: &SpecNode, entry: &Entry) -> Finding {
        Finding {
            node: node.id.0.clone(),
            severity: self.severity,
            code: self.code,
            path: entry.target.path().to_owned(),
            selectors: self.selectors,
            hits: self.hits,
            message: self.message,
            repair: self.repair,
        }
    }
}

/// How many renames `path-reused` follows from the moved file to its path at the tip.
const MOST_RENAME_STEPS: usize = 8;

/// Judges one node's entries at the tip: the findings the tip decides, gathered until
/// [`NodeJudge::take`], and each entry's window.
pub(super) struct NodeJudge<'a, 'db> {
    db: &'db dyn Db,
    tip: Commit,
    node: &'a SpecNode,
    /// `[lint] max_file_bytes` of the tip.
    bound: FileBound,
    repairs: Repairs,
    findings: Vec<Finding>,
    unverified: Vec<Unverified>,
}

impl<'a, 'db> NodeJudge<'a, 'db> {
    pub(super) fn new(
        db: &'db dyn Db,
        tip: Commit,
        node: &'a SpecNode,
        bound: FileBound,
        repairs: Repairs,
    ) -> Self {
        Self {
            db,
            tip,
            node,
            bound,
            repairs,
            findings: Vec::new(),
            unverified: Vec::new(),
        }
    }

    /// The findings and unverified anchors gathered since the last call.
    pub(super) fn take(&mut self) -> (Vec<Finding>, Vec<Unverified>) {
        (
            std::mem::take(&mut self.findings),
            std::mem::take(&mut self.unverified),
        )
    }

    /// Judges `entry` over its whole window.
    pub(super) fn entry(&mut self, entry: &Entry) -> Result<EntryState, ObjectError> {
        let governed = self.entry_tip(entry)?;
        if let Some(governed) = &governed {
            self.reused_path(entry, governed)?;
        }
        let window = governed.map(|g| self.window_of(g)).transpose()?;
        let (tip, unverified) = self.take();
        Ok(EntryState {
            tip,
            unverified,
            window,
        })
    }

    /// Gathers the findings `entry`'s tip alone decides; what its window is read for,
    /// unless the tip ended its judgement.
    pub(super) fn entry_tip(&mut self, entry: &Entry) -> Result<Option<Governed>, ObjectError> {
        match &entry.target {
            Target::Scoped { path, selectors } => self.scoped_tip(entry, path, selectors),
            Target::Path(path) => self.bare_path(entry, path),
            Target::Folder(folder) => self.path_set(entry, PathPattern::Folder(folder.clone())),
            Target::Glob(glob) => self.path_set(entry, PathPattern::Glob(glob.clone())),
        }
    }

    /// `path-reused`: the entry's file was renamed away inside the window and another file
    /// took its path, so the window's commits to the file the spec was written against
    /// belong to the moved lineage, not to the entry. A warning naming where that lineage
    /// is now and what those commits did (hits on the entry's selectors, or every change
    /// for a bare entry). Judged with the whole window, so not by [`Self::entry_tip`]: the
    /// commits a kept answer is extended by only modify files, which moves no path.
    fn reused_path(&mut self, entry: &Entry, governed: &Governed) -> Result<(), ObjectError> {
        let db = self.db;
        let path = match governed {
            Governed::Units { path, .. } | Governed::File(path) => path,
            Governed::Files(_) => return Ok(()),
        };
        let node = Node::new(db, self.node.id.clone());
        let window = window(db, self.tip, node)?;
        if tip_entry(db, self.tip, RepoPath::new(db, path.clone()))?.is_none() {
            // Nothing holds the path at the tip: the file moved, its path is not reused.
            return Ok(());
        }
        let Some((rename, moved_to)) = move_away(db, &window, path)? else {
            return Ok(());
        };
        let now = path_now(self.db, self.tip, &window, moved_to)?;
        if now == *path {
            // Moved away and back: the path holds the spec's file again.
            return Ok(());
        }
        let mut records = EntryWindow::new(governed.clone());
        for event in window.events(&now)? {
            if event.path != *path {
                continue;
            }
            let then = Some(event.path.clone());
            match governed {
                Governed::Units { selectors, .. } => {
                    let anchor = Anchor::new(db, path.clone(), selectors.clone(), self.bound);
                    let change = scoped_change(db, event.commit, anchor).clone()?;
                    records.record(db, selectors, event.commit, then, change);
                }
                _ => records.record_authoring(db, event.commit, then),
            }
        }
        let changed = records.hits.len() + records.missed.len();
        let hit_note = match governed {
            Governed::Units { .. } => {
                format!(" ({} of them changed the pinned units)", records.hits.len())
            }
            _ => String::new(),
        };
        let label = commit_label(db, rename);
        self.push(
            entry,
            Draft {
                severity: Severity::Warning,
                code: "path-reused",
                selectors: Vec::new(),
                message: format!(
                    "{path} at the tip is another file than the spec's: {} moved it to {now} and a new file took its path, so the window's {} to the old file belong to {now}{hit_note}",
                    label.id.get(..12).unwrap_or(&label.id),
                    commits(changed)
                ),
                repair: format!(
                    "if the spec describes the moved code, point the entry at {now}; if it describes the new {path}, update the spec (a new version) to say so"
                ),
                hits: records.hits,
            },
        );
        Ok(())
    }

    /// The node's window's records of what `governed` names.
    fn window_of(&self, governed: Governed) -> Result<EntryWindow, ObjectError> {
        let node = Node::new(self.db, self.node.id.clone());
        entry_window(
            self.db,
            &window(self.db, self.tip, node)?,
            governed,
            self.bound,
        )
    }

    /// A node whose window reaches past a shallow clone's boundary (or whose base is a
    /// shallow commit) cannot be judged: its history is unknown. One error, and every
    /// anchor of the node listed as unverified, so the run cannot pass.
    pub(super) fn shallow_history(&mut self) -> Result<(), ObjectError> {
        let window = window(self.db, self.tip, Node::new(self.db, self.node.id.clone()))?;
        if !window.truncated {
            return Ok(());
        }
        for entry in &self.node.entries {
            if let Target::Scoped { path, selectors } = &entry.target {
                self.unverified.push(Unverified {
                    node: self.node.id.0.clone(),
                    path: path.clone(),
                    selectors: selectors.iter().map(ToString::to_string).collect(),
                    reason: "shallow clone: the window reaches past the history fetched".to_owned(),
                });
            }
        }
        let spec = self.node.id.spec_path();
        self.findings.push(Finding {
            node: self.node.id.0.clone(),
            severity: Severity::Error,
            code: "shallow-history",
            path: spec,
            selectors: Vec::new(),
            hits: Vec::new(),
            message: "the commits since the spec's last version reach past this shallow clone's boundary, so drift cannot be judged; the node's anchors are unverified".to_owned(),
            repair: "fetch the whole history: `git fetch --unshallow` (in CI, `fetch-depth: 0` on the checkout step)".to_owned(),
        });
        Ok(())
    }

    fn push(&mut self, entry: &Entry, draft: Draft) {
        self.findings.push(draft.finding(self.node, entry));
    }

    /// Integrity errors for code entries are warnings for related ones (related never blocks).
    fn integrity_severity(entry: &Entry) -> Severity {
        match entry.relation {
            Relation::Code => Severity::Error,
            Relation::Related => Severity::Warning,
        }
    }

    fn scoped_tip(
        &mut self,
        entry: &Entry,
        path: &str,
        selectors: &[Selector],
    ) -> Result<Option<Governed>, ObjectError> {
        let db = self.db;
        if let Some(submodule) = enclosing_submodule(db, self.tip.tree(db), path)? {
            self.submodule_anchor(entry, path, selectors, &submodule);
            return Ok(None);
        }
        let at = RepoPath::new(db, path.to_owned());
        if tip_entry(db, self.tip, at)?.is_some_and(|e| e.symlink) {
            self.symlink_anchor(entry, path, selectors);
            return Ok(None);
        }
        let units = tip_units_within(db, tip_image(db, self.tip, at)?, self.bound);
        if let ImageUnits::Extracted(Err(crate::extract::ExtractError::Unavailable { reason })) =
            units
        {
            self.extractor_unavailable(entry, path, selectors, reason);
            return Ok(None);
        }
        let verdicts: Vec<(Selector, Verdict)> = selectors
            .iter()
            .map(|s| (s.clone(), classify(units, s)))
            .collect();
        self.integrity(entry, path, &verdicts, units)?;
        Ok(Some(Governed::Units {
            path: path.to_owned(),
            selectors: selectors.to_vec(),
        }))
    }

    fn integrity(
        &mut self,
        entry: &Entry,
        path: &str,
        verdicts: &[(Selector, Verdict)],
        units: &ImageUnits,
    ) -> Result<(), ObjectError> {
        let severity = Self::integrity_severity(entry);
        let of = |pred: fn(&Verdict) -> bool| -> Vec<String> {
            verdicts
                .iter()
                .filter(|(_, v)| pred(v))
                .map(|(s, _)| s.to_string())
                .collect()
        };
        let missing = of(|v| matches!(v, Verdict::FileMissing));
        if !missing.is_empty() {
            self.push(
                entry,
                Draft {
                    severity,
                    code: "dead-anchor",
                    selectors: missing,
                    hits: Vec::new(),
                    message: format!("{path} does not exist at the tip (deleted or renamed)"),
                    repair: self.dead_repair(
                        path,
                        verdicts,
                        |v| matches!(v, Verdict::FileMissing),
                        units,
                        "follow the rename: point the entry at the file's new path, or remove it",
                    )?,
                },
            );
        }
        let dead = of(|v| matches!(v, Verdict::Dead));
        if !dead.is_empty() {
            self.push(
                entry,
                Draft {
                    severity,
                    code: "dead-anchor",
                    selectors: dead.clone(),
                    hits: Vec::new(),
                    message: format!("{} {} no unit in {path} at the tip (deleted or renamed)", dead.join(", "), if dead.len() == 1 { "names" } else { "name" }),
                    repair: self.dead_repair(
                        path,
                        verdicts,
                        |v| matches!(v, Verdict::Dead),
                        units,
                        "follow the rename: write the unit's current qualified name, or remove the selector",
                    )?,
                },
            );
        }
        for (selector, verdict) in verdicts {
            if let Verdict::Ambiguous(ranges) = verdict {
                let lines: Vec<String> = ranges
                    .iter()
                    .map(|r| format!("{}-{}", r.start, r.end))
                    .collect();
                self.push(
                    entry,
                    Draft {
                        severity,
                        code: "ambiguous-anchor",
                        selectors: vec![selector.to_string()],
                        hits: Vec::new(),
                        message: format!(
                            "{selector} names {} units in {path} (lines {})",
                            ranges.len(),
                            lines.join(", ")
                        ),
                        repair:
                            "rename one of them, or anchor an enclosing unit whose name is unique"
                                .to_owned(),
                    },
                );
            }
        }
        let types = of(|v| matches!(v, Verdict::TypeOnly(_)));
        if !types.is_empty() {
            self.push(
                entry,
                Draft {
                    severity: Severity::Warning,
                    code: "type-only-anchor",
                    selectors: types.clone(),
                    hits: Vec::new(),
                    message: format!(
                        "{} in {path} is a type or interface; anchoring a type is usually wrong",
                        types.join(", ")
                    ),
                    repair:
                        "anchor the code that carries the contract instead, or keep the warning"
                            .to_owned(),
                },
            );
        }
        if let Some((
            _,
            Verdict::Unparseable {
                line,
                reason,
                unparsed,
            },
        )) = verdicts
            .iter()
            .find(|(_, v)| matches!(v, Verdict::Unparseable { .. }))
        {
            let selectors = of(|v| matches!(v, Verdict::Unparseable { .. }));
            let (message, repair) = if unparsed.is_empty() {
                (
                    format!(
                        "{path} does not parse at the tip ({path}:{line}: {reason}); its anchors cannot be resolved"
                    ),
                    format!("fix the syntax error at {path}:{line}"),
                )
            } else {
                let names = if selectors.len() == 1 {
                    "names"
                } else {
                    "name"
                };
                (
                    format!(
                        "{} {names} no unit of {path} that parses at the tip: {} did not parse ({path}:{line}: {reason}); the file's other units resolve",
                        selectors.join(", "),
                        line_list(unparsed)
                    ),
                    format!(
                        "fix the syntax at {path}:{line}; if the language accepts those lines, keel's grammar does not yet: anchor a unit outside them"
                    ),
                )
            };
            self.push(
                entry,
                Draft {
                    severity,
                    code: "unparseable-anchor",
                    selectors,
                    hits: Vec::new(),
                    message,
                    repair,
                },
            );
        }
        let too_large = of(|v| matches!(v, Verdict::TooLarge));
        if !too_large.is_empty() {
            let bound = self.bound.0;
            let size = self
                .tip_size(path)
                .map_or_else(String::new, |n| format!(" ({n} bytes)"));
            self.push(
                entry,
                Draft {
                    severity,
                    code: "too-large",
                    selectors: too_large,
                    hits: Vec::new(),
                    message: format!("{path}{size} is larger than max_file_bytes ({bound} bytes) at the tip, so keel does not parse it and its anchors cannot be resolved"),
                    repair: format!("raise `max_file_bytes` under [lint] in keel.toml past the file's size (now {bound}), or anchor units of a smaller file"),
                },
            );
        }
        let no_extractor = of(|v| matches!(v, Verdict::NoExtractor));
        if !no_extractor.is_empty() {
            self.push(
                entry,
                Draft {
                    severity,
                    code: "no-extractor",
                    selectors: no_extractor,
                    hits: Vec::new(),
                    message: format!("{path} has no designated extractor (anchors work in .py .pyi .ts .mts .cts .tsx .js .jsx .mjs .cjs files)"),
                    repair: "make the entry bare (whole-file advisory drift) or anchor a unit in a supported file".to_owned(),
                },
            );
        }
        Ok(())
    }

    /// The repair of a dead anchor: where each of its selectors (those `dead` picks)
    /// likely is now ([`home::homes`]), then `fallback`; `fallback` alone when keel
    /// knows no way forward, or when the report is only tallied ([`Repairs::Tally`]).
    fn dead_repair(
        &self,
        path: &str,
        verdicts: &[(Selector, Verdict)],
        dead: fn(&Verdict) -> bool,
        units: &ImageUnits,
        fallback: &str,
    ) -> Result<String, ObjectError> {
        if self.repairs == Repairs::Tally {
            return Ok(fallback.to_owned());
        }
        let mut advice = Vec::new();
        for (selector, _) in verdicts.iter().filter(|(_, verdict)| dead(verdict)) {
            let homes = home::homes(self.db, self.tip, self.bound, path, selector, units)?;
            advice.extend(homes.advice(selector));
        }
        if advice.is_empty() {
            return Ok(fallback.to_owned());
        }
        Ok(format!("{}; otherwise {fallback}", advice.join("; ")))
    }

    /// The size in bytes of the tip's blob at `path`, if it is a readable file.
    fn tip_size(&self, path: &str) -> Option<u64> {
        let db = self.db;
        let image = tip_image(db, self.tip, RepoPath::new(db, path.to_owned())).ok()??;
        crate::images::image_size(db, image)
    }

    /// A scoped entry whose path is a symbolic link at the tip: its units are not judged
    /// (a link's blob is its target's name, not code).
    fn symlink_anchor(&mut self, entry: &Entry, path: &str, selectors: &[Selector]) {
        self.push(
            entry,
            Draft {
                severity: Self::integrity_severity(entry),
                code: "symlink-anchor",
                selectors: selectors.iter().map(ToString::to_string).collect(),
                hits: Vec::new(),
                message: format!("{path} is a symbolic link; keel does not follow links, so its anchors cannot be resolved"),
                repair: "anchor the file the link points to, by its own path in the repository".to_owned(),
            },
        );
    }

    /// A scoped entry whose path is a submodule, or lies inside one, at the tip: keel reads
    /// only this repository, so no selector can name a unit there.
    fn submodule_anchor(
        &mut self,
        entry: &Entry,
        path: &str,
        selectors: &[Selector],
        submodule: &str,
    ) {
        let place = if path == submodule {
            format!("{path} is a submodule")
        } else {
            format!("{path} lies inside the submodule {submodule}")
        };
        self.push(
            entry,
            Draft {
                severity: Self::integrity_severity(entry),
                code: "dead-anchor",
                selectors: selectors.iter().map(ToString::to_string).collect(),
                hits: Vec::new(),
                message: format!("{place}; keel reads only this repository, so its anchors name no unit keel can read"),
                repair: format!("pin the submodule with a bare entry (`- {submodule}`): each commit that moves it is advisory drift naming both of its commits"),
            },
        );
    }

    fn extractor_unavailable(
        &mut self,
        entry: &Entry,
        path: &str,
        selectors: &[Selector],
        reason: &str,
    ) {
        let language = Language::for_path(path).map_or("designated", |l| l.extractor_id());
        let names: Vec<String> = selectors.iter().map(ToString::to_string).collect();
        self.unverified.push(Unverified {
            node: self.node.id.0.clone(),
            path: path.to_owned(),
            selectors: names.clone(),
            reason: reason.to_owned(),
        });
        self.push(
            entry,
            Draft {
                severity: Severity::Error,
                code: "extractor-unavailable",
                selectors: names,
                hits: Vec::new(),
                message: format!("the {language} extractor cannot run here ({reason}); these anchors were skipped and remain unverified"),
                repair: "install a keel build whose grammars load on this host; until then this run is not a pass".to_owned(),
            },
        );
    }

    fn bare_path(&mut self, entry: &Entry, path: &str) -> Result<Option<Governed>, ObjectError> {
        let db = self.db;
        let at_tip = tip_entry(db, self.tip, RepoPath::new(db, path.to_owned()))?;
        match at_tip.map(|e| e.kind) {
            None if enclosing_submodule(db, self.tip.tree(db), path)?.is_some() => {
                // Inside a submodule: what keel can see of it is the submodule's moves.
                Ok(Some(Governed::File(path.to_owned())))
            }
            None => {
                self.dead_path(
                    entry,
                    format!("{path} does not exist at the tip (deleted or renamed)"),
                    "follow the rename: point the entry at the current path, or remove it",
                );
                Ok(None)
            }
            Some(EntryKind::Tree) => self.path_set(entry, PathPattern::Folder(path.to_owned())),
            Some(_) => Ok(Some(Governed::File(path.to_owned()))),
        }
    }

    /// A folder or glob entry: advisory drift over the files it covers; `dead-path` when
    /// it covers no file at the tip. A glob whose path exists literally at the tip is that
    /// path (`app/[slug]/page.tsx`).
    fn path_set(
        &mut self,
        entry: &Entry,
        pattern: PathPattern,
    ) -> Result<Option<Governed>, ObjectError> {
        let db = self.db;
        let pattern = match pattern {
            PathPattern::Glob(glob) => match super::nodes::literal_at(db, self.tip, &glob)? {
                Some(e) if e.kind == EntryKind::Tree => {
                    PathPattern::Folder(glob.trim_end_matches('/').to_owned())
                }
                Some(_) => return self.bare_path(entry, &glob),
                None => PathPattern::Glob(crate::spec::glob_pattern(&glob)),
            },
            folder @ PathPattern::Folder(_) => folder,
        };
        let matches = pattern.matcher();
        // Only the part of the tree before the first glob character can hold matches.
        let root = match &pattern {
            PathPattern::Folder(folder) => folder.as_str(),
            PathPattern::Glob(glob) => {
                let literal = &glob[..glob.find(['*', '?', '[']).unwrap_or(glob.len())];
                literal.rfind('/').map_or("", |slash| &glob[..slash])
            }
        };
        let covered = crate::tree::files_under(db, self.tip.tree(db), root)?;
        if !covered.iter().any(|(path, _)| matches(path))
            && !self.holds_submodule(&pattern, root)?
        {
            let path = entry.target.path();
            self.dead_path(
                entry,
                format!("{path} covers no file at the tip (deleted, renamed or mistyped)"),
                "point the entry at the current folder or pattern, or remove it",
            );
            return Ok(None);
        }
        Ok(Some(Governed::Files(pattern)))
    }

    /// Does `pattern` (whose matches lie under `root`) cover a submodule of the tip, or
    /// lie inside one?
    fn holds_submodule(&self, pattern: &PathPattern, root: &str) -> Result<bool, ObjectError> {
        let tree = self.tip.tree(self.db);
        if !root.is_empty() && enclosing_submodule(self.db, tree, root)?.is_some() {
            return Ok(true);
        }
        Ok(submodules_under(self.db, tree, root)?
            .iter()
            .any(|(link, _)| pattern.covers_submodule(link)))
    }

    /// The entry's path (or pattern) names nothing at the tip.
    fn dead_path(&mut self, entry: &Entry, message: String, repair: &str) {
        self.push(
            entry,
            Draft {
                severity: Self::integrity_severity(entry),
                code: "dead-path",
                selectors: Vec::new(),
                hits: Vec::new(),
                message,
                repair: repair.to_owned(),
            },
        );
    }
}

/// How a node's window findings are worded: the node, its base as findings name it, and
/// the tip's `[lint]` settings (`scoped_code_miss`, `cosmetic`, `docstrings`).
pub(super) struct Wording<'a> {
    pub(super) node: &'a SpecNode,
    /// The base's short id, or `(none)`.
    pub(super) version: &'a str,
    pub(super) settings: &'a LintSettings,
}

impl Wording<'_> {
    /// The base of `node` at `tip` as findings name it.
    pub(super) fn version_of(
        db: &dyn Db,
        tip: Commit,
        node: &SpecNode,
    ) -> Result<String, ObjectError> {
        let node = Node::new(db, node.id.clone());
        Ok(node_base(db, tip, node)?.map_or_else(|| "(none)".to_owned(), |v| v.id(db).short(12)))
    }

    /// The findings of `entry`'s window, after those its tip decided.
    pub(super) fn window_findings(&self, entry: &Entry, window: &EntryWindow) -> Vec<Finding> {
        let path = entry.target.path();
        let mut findings = Vec::new();
        let Governed::Units { selectors, .. } = &window.governed else {
            findings.extend(self.drift_finding(entry, path, window));
            return findings;
        };
        let (cosmetic, real): (Vec<HitRecord>, Vec<HitRecord>) = window
            .hits
            .iter()
            .cloned()
            .partition(|hit| self.counts_as_cosmetic(hit));
        let (blocking, advisory) = match self.settings.cosmetic {
            CosmeticHits::Block => (window.hits.clone(), Vec::new()),
            CosmeticHits::Warn => (real, cosmetic),
            CosmeticHits::Ignore => (real, Vec::new()),
        };
        if !blocking.is_empty() {
            findings.push(self.hit_finding(entry, path, selectors, blocking));
        }
        if !advisory.is_empty() {
            findings.push(self.cosmetic_finding(entry, path, advisory));
        }
        if !window.missed.is_empty()
            && entry.relation == Relation::Code
            && self.settings.scoped_code_miss == ScopedCodeMiss::Warn
        {
            let n = window.missed.len();
            let version = self.version;
            findings.push(
                Draft {
                    severity: Severity::Warning,
                    code: "scoped-code-miss",
                    selectors: Vec::new(),
                    hits: window.missed.clone(),
                    message: format!("{path} changed outside the anchored units in {} since the spec's last version {version}", commits(n)),
                    repair: "review the change; to silence this advisory set `scoped_code_miss = \"ignore\"` under [lint] in keel.toml".to_owned(),
                }
                .finding(self.node, entry),
            );
        }
        findings
    }

    fn hit_finding(
        &self,
        entry: &Entry,
        path: &str,
        selectors: &[Selector],
        hits: Vec<HitRecord>,
    ) -> Finding {
        let hit_selectors: Vec<String> = selectors
            .iter()
            .map(ToString::to_string)
            .filter(|s| hits.iter().any(|h| h.selectors.contains(s)))
            .collect();
        let n = hits.len();
        let names = hit_selectors.join(", ");
        let version = self.version;
        let mut message = match entry.relation {
            Relation::Code => format!(
                "{} since the spec's last version {version} changed anchored units {names} in {path}",
                commits(n)
            ),
            Relation::Related => format!(
                "{} since the spec's last version {version} changed related units {names} in {path}",
                commits(n)
            ),
        };
        if hits.iter().any(|h| h.conservative) {
            message.push_str(
                " (conservative hits: a change to lines that do not parse, a binary change, or a file past max_file_bytes)",
            );
        }
        let spec = self.node.id.spec_path();
        let node = &self.node.id;
        let (severity, code, repair) = match entry.relation {
            Relation::Code => (
                Severity::Error,
                "anchor-hit",
                format!(
                    "review the change against {spec}; update the spec (a new version) or add a `Spec-OK: {node}` trailer to the commits that keep it true"
                ),
            ),
            Relation::Related => (
                Severity::Warning,
                "related-hit",
                format!("check that {spec} still reads true; related entries never block"),
            ),
        };
        Draft {
            severity,
            code,
            selectors: hit_selectors,
            hits,
            message,
            repair,
        }
        .finding(self.node, entry)
    }

    /// Is `hit` cosmetic under the tip's `docstrings` setting?
    fn counts_as_cosmetic(&self, hit: &HitRecord) -> bool {
        match hit.cosmetic {
            Some(Cosmetic::Layout) => true,
            Some(Cosmetic::Docstring) => self.settings.docstrings == Docstrings::Cosmetic,
            None => false,
        }
    }

    /// The advisory of `[lint] cosmetic = "warn"`: hits that changed their units only
    /// cosmetically.
    fn cosmetic_finding(&self, entry: &Entry, path: &str, hits: Vec<HitRecord>) -> Finding {
        let selectors: Vec<String> = {
            let mut names: Vec<String> = hits.iter().flat_map(|h| h.selectors.clone()).collect();
            names.sort_unstable();
            names.dedup();
            names
        };
        Draft {
            severity: Severity::Warning,
            code: "cosmetic-hit",
            message: format!(
                "{} since the spec's last version {} changed {} in {path} only in comments, whitespace{}",
                commits(hits.len()),
                self.version,
                selectors.join(", "),
                if self.settings.docstrings == Docstrings::Cosmetic { " or docstrings" } else { "" }
            ),
            selectors,
            hits,
            repair: "nothing the spec says can have changed; `cosmetic = \"block\"` under [lint] in keel.toml makes such hits block again".to_owned(),
        }
        .finding(self.node, entry)
    }

    fn drift_finding(&self, entry: &Entry, path: &str, window: &EntryWindow) -> Option<Finding> {
        let changed = window.hits.clone();
        if changed.is_empty() {
            return None;
        }
        let n = changed.len();
        let version = self.version;
        let node = &self.node.id;
        let (code, message) = match entry.relation {
            Relation::Code => (
                "code-drift",
                format!(
                    "{path} changed in {} since the spec's last version {version}",
                    commits(n)
                ),
            ),
            Relation::Related => (
                "related-drift",
                format!(
                    "related {path} changed in {} since the spec's last version {version}",
                    commits(n)
                ),
            ),
        };
        let mut message = message;
        let mut repair = format!(
            "review the change; update {} or add a `Spec-OK: {node}` trailer",
            node.spec_path()
        );
        if !window.submodules.is_empty() {
            message.push_str(&submodule_note(&window.submodules));
            let moved = window
                .submodules
                .iter()
                .find_map(|m| Some((&m.path, m.old?, m.new?)));
            if let Some((path, old, new)) = moved {
                repair = format!(
                    "review what the submodule's commits changed (`git -C {path} log --oneline {old}..{new}`); update {} or add a `Spec-OK: {node}` trailer",
                    node.spec_path()
                );
            }
        }
        Some(
            Draft {
                severity: Severity::Warning,
                code,
                selectors: Vec::new(),
                hits: changed,
                message,
                repair,
            }
            .finding(self.node, entry),
        )
    }
}

/// Is `path` the submodule `link`, or a path inside it?
fn at_or_inside(path: &str, link: &str) -> bool {
    path.strip_prefix(link)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// How many submodule moves a drift message names one by one.
const MOST_NAMED_MOVES: usize = 5;

/// `; the submodule vendor/lib moved from <old> to <new> in <commit>` for each move (the
/// newest few), and what keel cannot tell of them.
fn submodule_note(moves: &[SubmoduleMove]) -> String {
    let mut note = String::new();
    for moved in moves.iter().take(MOST_NAMED_MOVES) {
        let commit = moved.commit.get(..12).unwrap_or(&moved.commit);
        let path = &moved.path;
        let what = match (moved.old, moved.new) {
            (Some(old), Some(new)) => {
                format!("the submodule {path} moved from {old} to {new} in {commit}")
            }
            (None, Some(new)) => format!("the submodule {path} was added at {new} in {commit}"),
            (Some(old), None) => {
                format!("the submodule {path} (at {old}) was removed in {commit}")
            }
            (None, None) => continue,
        };
        note.push_str("; ");
        note.push_str(&what);
    }
    if moves.len() > MOST_NAMED_MOVES {
        note.push_str(&format!(
            "; and {} more submodule moves",
            moves.len() - MOST_NAMED_MOVES
        ));
    }
    note.push_str(
        "; keel does not read inside a submodule, so what its commits changed is for you to review",
    );
    note
}

/// `1 commit`, `2 commits`.
fn commits(n: usize) -> String {
    if n == 1 {
        "1 commit".to_owned()
    } else {
        format!("{n} commits")
    }
}

/// `line 4`, `lines 4-6, 12`.
fn line_list(ranges: &[LineRange]) -> String {
    let word = match ranges {
        [one] if one.start == one.end => "line",
        _ => "lines",
    };
    format!("{word} {}", LineRange::list(ranges))
}

/// Where the file at `path` is at the tip: `path` when the tip holds it, else the end of
/// the renames away from it that `window` holds (at most a few steps; the last path when
/// the lineage was deleted after them).
pub(crate) fn path_now(
    db: &dyn Db,
    tip: Commit,
    window: &Window<'_>,
    path: String,
) -> Result<String, ObjectError> {
    let mut now = path;
    for _ in 0..MOST_RENAME_STEPS {
        if tip_entry(db, tip, RepoPath::new(db, now.clone()))?.is_some() {
            break;
        }
        match move_away(db, window, &now)? {
            Some((_, to)) => now = to,
            None => break,
        }
    }
    Ok(now)
}

/// The window's first rename of the file at `path` to another path, and that path: the
/// oldest in walk order when several branches moved it, so every database that knows the
/// same history names the same one.
fn move_away(
    db: &dyn Db,
    window: &crate::window::Window<'_>,
    path: &str,
) -> Result<Option<(Commit, String)>, ObjectError> {
    Ok(renames_at(db, path)?
        .away
        .iter()
        .filter_map(|(commit, to)| Some((window.position(*commit)?, *commit, to)))
        .max_by_key(|(position, ..)| *position)
        .map(|(_, commit, to)| (commit, to.clone())))
}

/// How hit records name a window commit: its id and subject line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CommitLabel {
    id: Arc<str>,
    subject: Arc<str>,
}

/// `commit`'s label, made once and shared by every record that names it: a replay lists
/// the same window commit at every later tip, and formatting its id and copying its
/// subject for each was a twentieth of a tip's cost.
#[salsa::tracked(returns(clone))]
fn commit_label(db: &dyn Db, commit: Commit) -> CommitLabel {
    CommitLabel {
        id: commit.id(db).to_string().into(),
        subject: subject(db, commit).into(),
    }
}

/// A window commit that changed a file without a selector hit (`path`: the file's path
/// then, when it differs from the entry's).
fn change_record(db: &dyn Db, commit: Commit, path: Option<String>) -> HitRecord {
    let label = commit_label(db, commit);
    HitRecord {
        commit: label.id,
        path,
        subject: label.subject,
        selectors: Vec::new(),
        side: None,
        conservative: false,
        cosmetic: None,
        patch_id: None,
    }
}
