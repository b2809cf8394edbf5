//! Touched: exact impact projection — which units pinned by the specs at a range's
//! result revision the range's commits changed, and whether each touched node's spec
//! changed with them.
//!
//! Owns: the projection. The range is a [`crate::window::range`] (git's walk: reachable
//! from the tip, from none of the excluded commits; no base, and `Spec-OK` trailers and
//! `keel ack` checkpoints are not subtracted). Every entry of every node at the tip is
//! read through the one reading of a window into records that lint uses
//! ([`crate::lint::entry_window`]: the same lineage projection, hunk∩unit predicate,
//! merge rule and conservative hits), so an event on a pre-rename path reports under the
//! tip's path with the path it had then. An entry whose path the tip lacks follows the
//! renames the range holds to the path that holds the file now, or is reported deleted
//! with its last path. A range git cannot walk completely (past a shallow clone's
//! boundary) or an object keel cannot read makes the entries it affects unavailable,
//! never an empty answer. Does not own: revision parsing (the CLI, through the engine),
//! nor wording.

use crate::drift::PathPattern;
use crate::lint::{
    Governed, HitRecord, LintError, Side, entry_window, literal_at, path_now, spec_nodes,
    tip_file_bound,
};
use crate::spec::{Entry, Relation, SpecNode, Target};
use crate::tree::{RepoPath, tip_entry};
use crate::window::{Node, Window, commit_set, node_versions, range};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};
use serde::Serialize;

/// The schema name of `keel touched --format json`.
pub const TOUCHED_SCHEMA: &str = "keel.touched.v1";

/// What a range's commits changed among the units the specs at its tip pin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TouchedReport {
    pub schema: &'static str,
    /// The commits the range excludes (with their ancestors), full ids.
    pub base: Vec<String>,
    /// The range's result revision, whose specs are read.
    pub head: String,
    pub window: WindowSize,
    /// How many spec nodes the head holds (each was read).
    pub nodes_read: usize,
    /// The nodes whose entries the range touched, by id.
    pub nodes: Vec<TouchedNode>,
    /// What could not be answered, and why: never read as "touched nothing".
    pub unavailable: Vec<Unavailable>,
}

/// The range's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WindowSize {
    pub commits: usize,
    pub merges: usize,
}

/// A node the range touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TouchedNode {
    pub node: String,
    /// The range holds a version of the node's `spec.md` (a commit that authored spec
    /// content): "touched and updated", not "touched, spec unchanged".
    pub spec_updated: bool,
    /// Those versions, newest first.
    pub spec_versions: Vec<String>,
    pub entries: Vec<TouchedEntry>,
}

/// One entry the range touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TouchedEntry {
    /// `code` or `related`.
    pub relation: &'static str,
    /// The entry's path as the head holds the file (the path written in the spec, or
    /// where the range's renames took it).
    pub path: String,
    /// The entry as the spec writes it.
    pub entry: String,
    /// Other paths the touching commits changed the file under (before a rename).
    pub historical_paths: Vec<String>,
    /// The entry's selectors the range changed (empty for a bare path, folder or glob).
    pub selectors: Vec<String>,
    /// The commits that changed it, newest first in walk order.
    pub commits: Vec<TouchedCommit>,
    /// Some commit's change could not be placed in an image that does not parse: a
    /// conservative hit.
    pub conservative: bool,
    /// The head no longer holds the file: its lineage was deleted in or before the range.
    pub deleted: bool,
}

/// A commit that changed an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TouchedCommit {
    pub commit: String,
    pub subject: String,
    /// The file's path at that commit when it differs from the entry's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub selectors: Vec<String>,
    pub side: Option<Side>,
    pub conservative: bool,
}

/// Something the projection could not answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unavailable {
    /// The node; `None` for a commit the projection cannot place at all.
    pub node: Option<String>,
    /// The entry as the spec writes it; `None` for the whole node.
    pub entry: Option<String>,
    pub reason: String,
}

impl TouchedReport {
    /// The number of units touched: each selector changed, and each bare entry changed.
    pub fn units(&self) -> usize {
        self.nodes
            .iter()
            .flat_map(|node| &node.entries)
            .map(|entry| entry.selectors.len().max(1))
            .sum()
    }
}

/// The projection of the commits reachable from `tip` and from none of `excluded` onto
/// the nodes `tip` holds. Spec errors at the tip refuse the answer (as lint does).
pub fn touched(db: &dyn Db, tip: Commit, excluded: &[Commit]) -> Result<TouchedReport, LintError> {
    let window = range(db, tip, excluded)?;
    let base = excluded.iter().map(|c| c.id(db).to_string()).collect();
    project(db, tip, &window, base, Vec::new())
}

/// The projection of exactly `commits` (a session's, as a set) onto the nodes `tip`
/// holds; a commit `tip` does not reach (on another branch, or rewritten) cannot be
/// projected onto its paths and is unavailable.
pub fn touched_commits(
    db: &dyn Db,
    tip: Commit,
    commits: &[Commit],
) -> Result<TouchedReport, LintError> {
    let window = commit_set(db, tip, commits)?;
    let reached = window.commits();
    let unreached = commits
        .iter()
        .filter(|commit| !reached.contains(commit))
        .map(|commit| Unavailable {
            node: None,
            entry: None,
            reason: format!(
                "commit {} is not reachable from {} (on another branch, or rewritten), so its changes cannot be placed on the specs there",
                commit.id(db),
                tip.id(db)
            ),
        })
        .collect();
    project(db, tip, &window, Vec::new(), unreached)
}

/// What the commits `window` holds did to the nodes `tip` holds.
fn project(
    db: &dyn Db,
    tip: Commit,
    window: &Window<'_>,
    base: Vec<String>,
    unavailable: Vec<Unavailable>,
) -> Result<TouchedReport, LintError> {
    let nodes = spec_nodes(db, tip)?;
    let commits = window.commits();
    let mut report = TouchedReport {
        schema: TOUCHED_SCHEMA,
        base,
        head: tip.id(db).to_string(),
        window: WindowSize {
            commits: commits.len(),
            merges: commits.iter().filter(|c| c.parents(db).len() > 1).count(),
        },
        nodes_read: nodes.len(),
        nodes: Vec::new(),
        unavailable,
    };
    if window.truncated {
        report.unavailable.extend(nodes.iter().map(|node| Unavailable {
            node: Some(node.id.0.clone()),
            entry: None,
            reason: "the range reaches past this shallow clone's boundary, so commits it holds were never fetched; repair: `git fetch --unshallow` (or fetch deep enough to hold the range)".to_owned(),
        }));
        return Ok(report);
    }
    let bound = tip_file_bound(db, tip);
    for node in &nodes {
        match touched_node(db, tip, window, node, bound, &mut report.unavailable) {
            Ok(Some(touched)) => report.nodes.push(touched),
            Ok(None) => {}
            Err(err) => report.unavailable.push(Unavailable {
                node: Some(node.id.0.clone()),
                entry: None,
                reason: err.to_string(),
            }),
        }
    }
    Ok(report)
}

/// The node's touched entries (`None` when the range touched none); an entry whose
/// objects cannot be read goes to `unavailable`.
fn touched_node(
    db: &dyn Db,
    tip: Commit,
    window: &Window<'_>,
    node: &SpecNode,
    bound: crate::images::FileBound,
    unavailable: &mut Vec<Unavailable>,
) -> Result<Option<TouchedNode>, ObjectError> {
    let mut entries = Vec::new();
    for entry in &node.entries {
        match touched_entry(db, tip, window, entry, bound) {
            Ok(Some(touched)) => entries.push(touched),
            Ok(None) => {}
            Err(err) => unavailable.push(Unavailable {
                node: Some(node.id.0.clone()),
                entry: Some(entry.raw.clone()),
                reason: err.to_string(),
            }),
        }
    }
    if entries.is_empty() {
        return Ok(None);
    }
    let versions = node_versions(db, tip, Node::new(db, node.id.clone()))
        .as_ref()
        .map_err(Clone::clone)?;
    let spec_versions: Vec<String> = versions
        .iter()
        .filter(|&&version| window.holds(version))
        .map(|version| version.id(db).to_string())
        .collect();
    Ok(Some(TouchedNode {
        node: node.id.0.clone(),
        spec_updated: !spec_versions.is_empty(),
        spec_versions,
        entries,
    }))
}

/// What the range did to one entry (`None`: nothing).
fn touched_entry(
    db: &dyn Db,
    tip: Commit,
    window: &Window<'_>,
    entry: &Entry,
    bound: crate::images::FileBound,
) -> Result<Option<TouchedEntry>, ObjectError> {
    let Located {
        governed,
        path,
        moved_from,
        deleted,
    } = locate(db, tip, window, &entry.target)?;
    let records = entry_window(db, window, governed, bound)?;
    if records.hits.is_empty() {
        return Ok(None);
    }
    let mut historical_paths: Vec<String> = moved_from.into_iter().collect();
    let mut selectors: Vec<String> = Vec::new();
    let commits: Vec<TouchedCommit> = records
        .hits
        .into_iter()
        .map(|hit| touched_commit(hit, &mut historical_paths, &mut selectors))
        .collect();
    if let Target::Scoped {
        selectors: written, ..
    } = &entry.target
    {
        selectors.sort_by_key(|s| written.iter().position(|w| w.to_string() == *s));
    }
    historical_paths.sort();
    historical_paths.dedup();
    Ok(Some(TouchedEntry {
        relation: match entry.relation {
            Relation::Code => "code",
            Relation::Related => "related",
        },
        path,
        entry: entry.raw.clone(),
        historical_paths,
        selectors,
        conservative: commits.iter().any(|c| c.conservative),
        commits,
        deleted,
    }))
}

/// One window record as a touching commit, gathering its path then and its selectors.
fn touched_commit(
    hit: HitRecord,
    historical_paths: &mut Vec<String>,
    selectors: &mut Vec<String>,
) -> TouchedCommit {
    historical_paths.extend(hit.path.iter().cloned());
    for selector in &hit.selectors {
        if !selectors.contains(selector) {
            selectors.push(selector.clone());
        }
    }
    TouchedCommit {
        commit: hit.commit.to_string(),
        subject: hit.subject.to_string(),
        path: hit.path,
        selectors: hit.selectors,
        side: hit.side,
        conservative: hit.conservative,
    }
}

/// Where an entry's file is at the tip, and what its window is read for.
struct Located {
    governed: Governed,
    /// The tip's path of the file (or the entry's, when deleted).
    path: String,
    /// The entry's path, when the range's renames moved the file away from it.
    moved_from: Option<String>,
    deleted: bool,
}

/// Resolves `target` at the tip: a file, folder or glob the tip holds; a file the
/// range's renames moved (followed to its path now); or a deleted lineage.
fn locate(
    db: &dyn Db,
    tip: Commit,
    window: &Window<'_>,
    target: &Target,
) -> Result<Located, ObjectError> {
    let located = |governed, path: &str| Located {
        governed,
        path: path.to_owned(),
        moved_from: None,
        deleted: false,
    };
    let file = |path: &str| match target {
        Target::Scoped { selectors, .. } => Governed::Units {
            path: path.to_owned(),
            selectors: selectors.clone(),
        },
        _ => Governed::File(path.to_owned()),
    };
    match target {
        Target::Folder(folder) => {
            return Ok(located(
                Governed::Files(PathPattern::Folder(folder.trim_end_matches('/').to_owned())),
                folder,
            ));
        }
        Target::Glob(glob) => match literal_at(db, tip, glob)? {
            None => {
                let pattern = PathPattern::Glob(crate::spec::glob_pattern(glob));
                return Ok(located(Governed::Files(pattern), glob));
            }
            Some(at) if at.kind == EntryKind::Tree => {
                let folder = glob.trim_end_matches('/').to_owned();
                return Ok(located(Governed::Files(PathPattern::Folder(folder)), glob));
            }
            Some(_) => {}
        },
        Target::Path(_) | Target::Scoped { .. } => {}
    }
    let written = target.path().trim_end_matches('/');
    let at_tip = tip_entry(db, tip, RepoPath::new(db, written.to_owned()))?;
    match at_tip.map(|e| e.kind) {
        Some(EntryKind::Tree) if matches!(target, Target::Path(_)) => {
            let pattern = PathPattern::Folder(written.to_owned());
            Ok(located(Governed::Files(pattern), written))
        }
        Some(_) => Ok(located(file(written), written)),
        None => {
            let now = path_now(db, tip, window, written.to_owned())?;
            let present = tip_entry(db, tip, RepoPath::new(db, now.clone()))?.is_some();
            Ok(Located {
                governed: file(&now),
                moved_from: (now != written).then(|| written.to_owned()),
                deleted: !present,
                path: now,
            })
        }
    }
}
