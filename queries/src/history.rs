//! History: walk order, ancestry, spec versions and drift windows.
//!
//! Owns: git's default walk order (newest committer time first), the per-tip index one
//! walk builds (which commits changed each path, which acknowledge each node), the
//! ancestor set of a commit, a node's version (the newest commit in that walk that changed
//! its `spec.md`), and the window `version..tip` minus acknowledged commits, asked per
//! path so no node walks history itself.
//! Does not own: what a window commit did to a file (`drift`).

use crate::spec::NodeId;
use crate::trailers::parse_trailers;
use crate::tree::{FileChange, tree_diff};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// The trailer that acknowledges a commit for one node.
pub const SPEC_OK: &str = "Spec-OK";

/// A node id, interned so per-node queries can be keyed by it.
#[salsa::interned(debug)]
pub struct Node<'db> {
    #[returns(ref)]
    pub id: NodeId,
}

/// git's default walk from a tip (`git rev-list tip`): newest committer time first, ties
/// in the order the commits were reached, a commit only after the child that reached it.
struct Walk<'db> {
    db: &'db dyn Db,
    queued: Vec<Commit>,
    seen: FxHashSet<Commit>,
    queue: BinaryHeap<(i64, Reverse<usize>)>,
}

impl<'db> Walk<'db> {
    /// A walk from `tip`.
    fn new(db: &'db dyn Db, tip: Commit) -> Self {
        Self {
            db,
            queued: vec![tip],
            seen: FxHashSet::from_iter([tip]),
            queue: BinaryHeap::from([(tip.committer_time(db), Reverse(0))]),
        }
    }
}

impl Iterator for Walk<'_> {
    type Item = Commit;

    fn next(&mut self) -> Option<Commit> {
        let (_, Reverse(index)) = self.queue.pop()?;
        let commit = self.queued[index];
        for &parent in commit.parents(self.db) {
            if self.seen.insert(parent) {
                self.queue
                    .push((parent.committer_time(self.db), Reverse(self.queued.len())));
                self.queued.push(parent);
            }
        }
        Some(commit)
    }
}

/// Every commit reachable from `tip`, in `git rev-list` order.
pub fn history(db: &dyn Db, tip: Commit) -> Vec<Commit> {
    Walk::new(db, tip).collect()
}

/// `commit` and all its ancestors.
#[salsa::tracked(returns(ref))]
pub fn ancestry(db: &dyn Db, commit: Commit) -> FxHashSet<Commit> {
    let mut seen = FxHashSet::from_iter([commit]);
    let mut stack = vec![commit];
    while let Some(next) = stack.pop() {
        for &parent in next.parents(db) {
            if seen.insert(parent) {
                stack.push(parent);
            }
        }
    }
    seen
}

/// The files `commit` authored a change to, sorted by path. A root commit adds every
/// file it holds; a merge changes a path only when it differs from every parent (a path
/// inherited unchanged from one side was authored there, not by the merge; `old` is then
/// the first parent's blob). Memoized per commit: one tree diff per parent, read once.
#[salsa::tracked(returns(ref))]
pub fn commit_changes(db: &dyn Db, commit: Commit) -> Result<Arc<[FileChange]>, ObjectError> {
    let tree = commit.tree(db);
    let parents = commit.parents(db);
    let Some((first, others)) = parents.split_first() else {
        return tree_diff(db, None, tree).clone();
    };
    let mut changes: Vec<FileChange> = tree_diff(db, Some(first.tree(db)), tree).clone()?.to_vec();
    for other in others {
        let against = tree_diff(db, Some(other.tree(db)), tree).clone()?;
        changes.retain(|change| {
            against
                .binary_search_by(|c| c.path.as_str().cmp(&change.path))
                .is_ok()
        });
    }
    Ok(Arc::from(changes))
}

/// Did `commit` author a change to the file at `path` (see [`commit_changes`])?
pub fn path_changed(db: &dyn Db, commit: Commit, path: &str) -> Result<bool, ObjectError> {
    Ok(commit_changes(db, commit)
        .as_ref()
        .map_err(Clone::clone)?
        .binary_search_by(|change| change.path.as_str().cmp(path))
        .is_ok())
}

/// What one walk from a tip learns about every reachable commit, so per-node questions
/// never walk again: which commits changed each path (in walk order) and which commits
/// acknowledge each node. Rebuilt when the tip moves (one pass over memoized per-commit
/// facts: no tree is re-read and no message re-parsed).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TipIndex {
    /// For every file path, the commits that changed it (see [`commit_changes`]), newest
    /// first in walk order.
    by_path: FxHashMap<String, Vec<Commit>>,
    /// For every node id a `Spec-OK` trailer names, the commits that carry it.
    acks: FxHashMap<String, FxHashSet<Commit>>,
    /// Walk position of every reachable commit.
    position: FxHashMap<Commit, usize>,
}

/// The walk's index at `tip`.
#[salsa::tracked(returns(ref))]
pub fn tip_index(db: &dyn Db, tip: Commit) -> Result<TipIndex, ObjectError> {
    let mut index = TipIndex::default();
    for (position, commit) in Walk::new(db, tip).enumerate() {
        index.position.insert(commit, position);
        for change in commit_changes(db, commit)
            .as_ref()
            .map_err(Clone::clone)?
            .iter()
        {
            index
                .by_path
                .entry(change.path.clone())
                .or_default()
                .push(commit);
        }
        for node in acknowledged_nodes(db, commit) {
            index.acks.entry(node.clone()).or_default().insert(commit);
        }
    }
    Ok(index)
}

/// The node's version at `tip`: the newest commit in walk order that changed its
/// `spec.md`. `None` when no reachable commit did (the spec is absent).
#[salsa::tracked(returns(clone))]
pub fn node_version<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Option<Commit>, ObjectError> {
    let index = tip_index(db, tip).as_ref().map_err(Clone::clone)?;
    let spec = node.id(db).spec_path();
    Ok(index
        .by_path
        .get(&spec)
        .and_then(|commits| commits.first().copied()))
}

/// The node ids a commit acknowledges with `Spec-OK: <node-id>` trailers.
#[salsa::tracked(returns(ref))]
pub fn acknowledged_nodes(db: &dyn Db, commit: Commit) -> Vec<String> {
    parse_trailers(commit.message(db))
        .into_iter()
        .filter(|trailer| trailer.has_key(SPEC_OK))
        .map(|trailer| trailer.value)
        .collect()
}

/// A node's drift window at a tip: commits reachable from the tip and not from the
/// version (`git rev-list version..tip`), without the version itself and without commits
/// that carry `Spec-OK: <node-id>`. Asked per path, so a node never walks the window.
pub struct Window<'db> {
    index: &'db TipIndex,
    covered: Option<&'db FxHashSet<Commit>>,
    acked: Option<&'db FxHashSet<Commit>>,
}

impl Window<'_> {
    /// Is `commit` in the window?
    pub fn holds(&self, commit: Commit) -> bool {
        !self.covered.is_some_and(|set| set.contains(&commit))
            && !self.acked.is_some_and(|set| set.contains(&commit))
    }

    /// The window commits that changed `path`, newest first.
    pub fn touching(&self, path: &str) -> Vec<Commit> {
        self.index
            .by_path
            .get(path)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&commit| self.holds(commit))
            .collect()
    }

    /// The window commits that changed any path `matches` accepts, newest first.
    pub fn touching_any(&self, matches: impl Fn(&str) -> bool) -> Vec<Commit> {
        let mut commits: Vec<Commit> = self
            .index
            .by_path
            .iter()
            .filter(|(path, _)| matches(path))
            .flat_map(|(_, commits)| commits.iter().copied())
            .filter(|&commit| self.holds(commit))
            .collect();
        commits.sort_by_key(|commit| self.index.position.get(commit).copied());
        commits.dedup();
        commits
    }
}

/// The node's window at `tip`.
pub fn window<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Window<'db>, ObjectError> {
    let index = tip_index(db, tip).as_ref().map_err(Clone::clone)?;
    let covered = node_version(db, tip, node)?.map(|version| ancestry(db, version));
    Ok(Window {
        index,
        covered,
        acked: index.acks.get(&node.id(db).0),
    })
}
