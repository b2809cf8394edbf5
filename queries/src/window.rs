//! Windows: a node's spec versions, its ancestry base, and the events its drift is
//! judged over.
//!
//! Owns: versions (the events of the `spec.md` lineage that author spec content: an
//! edit, an addition, a rename with edits, or a merge that owns a spec line — never a
//! pure rename or a transport merge), the base (from the maximal antichain of versions
//! reachable from the tip, the newest in walk order: a product rule, not a join), and
//! the window: every commit reachable from the tip and not from the base, minus the
//! commits acknowledged for the node. A `Spec-OK: <node>` trailer acknowledges the commit
//! that carries it; when that commit is an ack *checkpoint* (exactly one parent, and its
//! parent's tree — `keel ack` writes one), it also acknowledges every commit reachable
//! from it ([`checkpointed`], one walk from all of the node's checkpoints in the window).
//! A merge, or a commit that changes its tree, acknowledges only itself. A window that
//! reaches past a shallow clone's boundary, or whose base is a shallow commit, is
//! truncated: its verdict is unverified (a checkpoint does not lift that).
//! Does not own: lineages (`lineage`), nor what an event did to lines (`drift`), nor
//! reading trailers (`history`'s change index, through `trailers`).

use crate::events::{authored, authored_content};
use crate::history::{TipHistory, ancestry, renames_at, tip_history};
use crate::lineage::{Event, lineage};
use crate::spec::NodeId;
use crate::tree::{RepoPath, tip_entry};
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
    let events = lineage(db, tip, spec)?;
    let mut versions: Vec<Commit> = Vec::new();
    for event in events {
        let at = RepoPath::new(db, event.path.clone());
        if authored_content(db, event.commit, at)? && !versions.contains(&event.commit) {
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

/// Is `commit` an ack checkpoint (given a `Spec-OK` trailer): exactly one parent, whose
/// tree is its own? A merge never is, nor a root or shallow commit (no parent known).
pub fn is_checkpoint(db: &dyn Db, commit: Commit) -> bool {
    match commit.parents(db).as_slice() {
        [parent] => parent.tree(db) == commit.tree(db),
        _ => false,
    }
}

/// The window commits the node's checkpoints at `tip` acknowledge: each checkpoint not
/// reachable from the base, and every commit reachable from one of them and not from the
/// base. One walk from all of them together, stopping at the base's ancestry (those
/// commits are out of the window already).
#[salsa::tracked(returns(ref))]
pub fn checkpointed<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<FxHashSet<Commit>, ObjectError> {
    let index = tip_history(db, tip)?;
    let covered = node_base(db, tip, node)?.map(|base| ancestry(db, base));
    let outside = |commit: &Commit| covered.is_some_and(|set| set.contains(commit));
    let mut seen: FxHashSet<Commit> = index
        .acks(&node.id(db).0)
        .into_iter()
        .filter(|commit| is_checkpoint(db, *commit) && !outside(commit))
        .collect();
    let mut stack: Vec<Commit> = seen.iter().copied().collect();
    while let Some(next) = stack.pop() {
        for &parent in next.parents(db) {
            if !outside(&parent) && seen.insert(parent) {
                stack.push(parent);
            }
        }
    }
    Ok(seen)
}

/// A node's drift window at a tip.
pub struct Window<'db> {
    db: &'db dyn Db,
    tip: Commit,
    index: TipHistory<'db>,
    /// The ancestries the window excludes: the base's, or a range's excluded commits'.
    covered: Vec<&'db FxHashSet<Commit>>,
    /// The reachable commits whose own `Spec-OK` trailer names the node.
    acked: FxHashSet<Commit>,
    /// The commits a checkpoint acknowledges (none when the node has no checkpoint, so a
    /// history without one never runs [`checkpointed`]).
    checkpointed: Option<&'db FxHashSet<Commit>>,
    /// A set window's commits: only these are in it (`None`: every reachable commit not
    /// excluded otherwise).
    only: Option<FxHashSet<Commit>>,
    /// History the window needs lies beyond a shallow clone's boundary.
    pub truncated: bool,
}

/// The node's window at `tip`.
pub fn window<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Window<'db>, ObjectError> {
    let index = tip_history(db, tip)?;
    let base = node_base(db, tip, node)?;
    let covered: Vec<_> = base.map(|base| ancestry(db, base)).into_iter().collect();
    let truncated = base.is_some_and(|b| b.shallow(db)) || beyond_shallow(&index, &covered);
    let acked = index.acks(&node.id(db).0);
    let checkpointed = if acked.iter().any(|&c| is_checkpoint(db, c)) {
        Some(checkpointed(db, tip, node).as_ref().map_err(Clone::clone)?)
    } else {
        None
    };
    Ok(Window {
        db,
        tip,
        index,
        covered,
        acked,
        checkpointed,
        only: None,
        truncated,
    })
}

/// Does the tip's walk reach a shallow clone's boundary outside every ancestry in
/// `covered`? Then history the window needs was never fetched.
fn beyond_shallow(index: &TipHistory<'_>, covered: &[&FxHashSet<Commit>]) -> bool {
    index
        .shallow()
        .iter()
        .any(|s| !covered.iter().any(|set| set.contains(s)))
}

/// The commits a revision range holds, as git walks it (`git rev-list TIP ^EXCLUDED…`):
/// every commit reachable from `tip` and from none of `excluded`, with no base and no
/// acknowledgement — what `keel touched` projects. A range whose walk reaches a shallow
/// clone's boundary outside the excluded commits' ancestries is truncated.
pub fn range<'db>(
    db: &'db dyn Db,
    tip: Commit,
    excluded: &[Commit],
) -> Result<Window<'db>, ObjectError> {
    let index = tip_history(db, tip)?;
    let covered: Vec<_> = excluded
        .iter()
        .map(|&commit| ancestry(db, commit))
        .collect();
    let truncated = beyond_shallow(&index, &covered);
    Ok(Window::unacknowledged(
        db, tip, index, covered, None, truncated,
    ))
}

/// A window of exactly `commits` (those `tip` reaches), projected onto `tip`'s paths: the
/// commits a session made, as a set rather than a range. Truncated when one of them is a
/// shallow commit (its parents were never fetched, so its change is unknown).
pub fn commit_set<'db>(
    db: &'db dyn Db,
    tip: Commit,
    commits: &[Commit],
) -> Result<Window<'db>, ObjectError> {
    let index = tip_history(db, tip)?;
    let truncated = commits.iter().any(|commit| commit.shallow(db));
    let only = Some(commits.iter().copied().collect());
    Ok(Window::unacknowledged(
        db,
        tip,
        index,
        Vec::new(),
        only,
        truncated,
    ))
}

impl<'db> Window<'db> {
    /// A window no trailer or checkpoint narrows (a range's, a commit set's).
    fn unacknowledged(
        db: &'db dyn Db,
        tip: Commit,
        index: TipHistory<'db>,
        covered: Vec<&'db FxHashSet<Commit>>,
        only: Option<FxHashSet<Commit>>,
        truncated: bool,
    ) -> Self {
        Self {
            db,
            tip,
            index,
            covered,
            acked: FxHashSet::default(),
            checkpointed: None,
            only,
            truncated,
        }
    }

    /// Is `commit` in the window?
    pub fn holds(&self, commit: Commit) -> bool {
        self.only.as_ref().is_none_or(|only| only.contains(&commit))
            && !self.covered.iter().any(|set| set.contains(&commit))
            && !self.acked.contains(&commit)
            && !self.checkpointed.is_some_and(|set| set.contains(&commit))
    }

    /// The walk position of `commit` (which the database may know from another tip) when
    /// it is reachable from this tip and in the window; larger is older.
    pub fn position(&self, commit: Commit) -> Option<usize> {
        self.index.position(commit).filter(|_| self.holds(commit))
    }

    /// Every commit of the window, newest first in walk order.
    pub fn commits(&self) -> Vec<Commit> {
        self.index
            .walked()
            .iter()
            .copied()
            .filter(|&commit| self.holds(commit))
            .collect()
    }

    /// The window's events of the tip file at `path`, newest first.
    pub fn events(&self, path: &str) -> Result<Vec<&'db Event>, ObjectError> {
        let path = RepoPath::new(self.db, path.to_owned());
        Ok(lineage(self.db, self.tip, path)?
            .filter(|event| self.holds(event.commit))
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
                events.push(event.clone());
            }
        }
        Ok(events)
    }

    /// The window's submodule moves (a commit that changed a submodule's commit, added
    /// or removed one) whose path `covers` accepts, newest first. A submodule has no
    /// lineage: it is followed by its path.
    pub fn gitlink_moves(
        &self,
        covers: impl Fn(&str) -> bool,
    ) -> Vec<(Commit, &'db crate::tree::FileChange)> {
        self.index
            .gitlink_moves(|commit| self.holds(commit), covers)
    }

    /// Is `path` a file at the tip that some reachable commit renamed into place? Only
    /// then does its lineage hold events under other paths.
    fn renamed_into(&self, path: &str) -> Result<bool, ObjectError> {
        let at_tip = tip_entry(self.db, self.tip, RepoPath::new(self.db, path.to_owned()))?;
        if !at_tip.is_some_and(|e| e.kind == EntryKind::File) {
            return Ok(false);
        }
        let renames = renames_at(self.db, path)?;
        Ok(renames
            .into
            .iter()
            .any(|&(commit, _)| self.index.reaches(commit)))
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
            for commit in self.index.changed(path) {
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
