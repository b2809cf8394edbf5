//! Windows: a node's spec versions, its ancestry base, and the events its drift is
//! judged over.
//!
//! Owns: versions (the events of the `spec.md` lineage that author spec content: an
//! edit, an addition, a rename with edits, or a merge that owns a spec line — never a
//! pure rename or a transport merge), the base (from the maximal antichain of versions
//! reachable from the tip, the newest in walk order: a product rule, not a join), and
//! the window (every commit reachable from the tip and not from the base, minus commits
//! whose `Spec-OK` trailer names the node). A window that reaches past a shallow clone's
//! boundary, or whose base is a shallow commit, is truncated: its verdict is unverified.
//! Does not own: lineages (`lineage`), nor what an event did to lines (`drift`).

use crate::events::{authored, authored_content};
use crate::history::{TipIndex, ancestry, authored_rename_source, change_at, tip_index};
use crate::lineage::{Event, lineage};
use crate::spec::NodeId;
use crate::tree::{RepoPath, entry_at};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};
use rustc_hash::FxHashSet;

/// A node id, interned so per-node queries can be keyed by it.
#[salsa::interned(debug)]
pub struct Node<'db> {
    #[returns(ref)]
    pub id: NodeId,
}

/// The node's spec versions at `tip`, newest first in walk order.
#[salsa::tracked(returns(ref))]
pub fn node_versions<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Vec<Commit>, ObjectError> {
    let spec = RepoPath::new(db, node.id(db).spec_path());
    let events = lineage(db, tip, spec).as_ref().map_err(Clone::clone)?;
    let mut versions: Vec<Commit> = Vec::new();
    for event in events {
        if authored_content(db, event.commit, &event.path)? && !versions.contains(&event.commit) {
            versions.push(event.commit);
        }
    }
    Ok(versions)
}

/// The node's base at `tip`: among its versions that no other version descends from,
/// the newest in walk order. `None` when no reachable commit authored the spec.
#[salsa::tracked(returns(clone))]
pub fn node_base<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Option<Commit>, ObjectError> {
    let versions = node_versions(db, tip, node)
        .as_ref()
        .map_err(Clone::clone)?;
    Ok(versions.iter().copied().find(|&version| {
        versions
            .iter()
            .all(|&other| other == version || !ancestry(db, other).contains(&version))
    }))
}

/// A node's drift window at a tip.
pub struct Window<'db> {
    db: &'db dyn Db,
    tip: Commit,
    index: &'db TipIndex,
    covered: Option<&'db FxHashSet<Commit>>,
    acked: Option<&'db FxHashSet<Commit>>,
    /// History the window needs lies beyond a shallow clone's boundary.
    pub truncated: bool,
}

/// The node's window at `tip`.
pub fn window<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Window<'db>, ObjectError> {
    let index = tip_index(db, tip).as_ref().map_err(Clone::clone)?;
    let base = node_base(db, tip, node)?;
    let covered = base.map(|base| ancestry(db, base));
    let truncated = base.is_some_and(|b| b.shallow(db))
        || index
            .shallow
            .iter()
            .any(|s| !covered.is_some_and(|set| set.contains(s)));
    Ok(Window {
        db,
        tip,
        index,
        covered,
        acked: index.acks.get(&node.id(db).0),
        truncated,
    })
}

impl<'db> Window<'db> {
    /// Is `commit` in the window?
    pub fn holds(&self, commit: Commit) -> bool {
        !self.covered.is_some_and(|set| set.contains(&commit))
            && !self.acked.is_some_and(|set| set.contains(&commit))
    }

    /// The window's events of the tip file at `path`, newest first.
    pub fn events(&self, path: &str) -> Result<Vec<Event>, ObjectError> {
        let path = RepoPath::new(self.db, path.to_owned());
        Ok(lineage(self.db, self.tip, path)
            .as_ref()
            .map_err(Clone::clone)?
            .iter()
            .filter(|event| self.holds(event.commit))
            .cloned()
            .collect())
    }

    /// The window commits that authored a change to the tip file at `path` (its lineage)
    /// — for a bare entry — newest first.
    pub fn authoring(&self, path: &str) -> Result<Vec<Event>, ObjectError> {
        let mut events: Vec<Event> = Vec::new();
        for event in self.events(path)? {
            let seen = events
                .last()
                .is_some_and(|last| last.commit == event.commit);
            if !seen && authored(self.db, event.commit, &event.path)? {
                events.push(event);
            }
        }
        Ok(events)
    }

    /// Is `path` a file at the tip that some reachable commit renamed into place? Only
    /// then does its lineage hold events under other paths.
    fn renamed_into(&self, path: &str) -> Result<bool, ObjectError> {
        let at_tip = entry_at(self.db, self.tip, RepoPath::new(self.db, path.to_owned()))?;
        if !at_tip.is_some_and(|e| e.kind == EntryKind::File) {
            return Ok(false);
        }
        for &commit in self.index.changed(path) {
            let added = change_at(self.db, commit, path)?.is_some_and(|c| c.old.is_none());
            if added && authored_rename_source(self.db, commit, path)?.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The window commits that authored a change to any file `matches` accepts — under
    /// its path then, or through the lineage of a file that matches at the tip — newest
    /// first.
    pub fn authoring_any(
        &self,
        matches: impl Fn(&str) -> bool,
    ) -> Result<Vec<Commit>, ObjectError> {
        let mut found: FxHashSet<Commit> = FxHashSet::default();
        let paths: Vec<&str> = self.index.paths().filter(|p| matches(p)).collect();
        for path in paths {
            for &commit in self.index.changed(path) {
                if self.holds(commit) && authored(self.db, commit, path)? {
                    found.insert(commit);
                }
            }
            if self.renamed_into(path)? {
                found.extend(self.authoring(path)?.into_iter().map(|event| event.commit));
            }
        }
        let mut commits: Vec<Commit> = found.into_iter().collect();
        commits.sort_by_key(|&commit| self.index.position(commit));
        Ok(commits)
    }
}
