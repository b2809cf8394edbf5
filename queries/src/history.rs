//! History: walk order, ancestry, spec versions and drift windows.
//!
//! Owns: git's default walk order (newest committer time first), the ancestor set of a
//! commit, a node's version (the newest commit in that walk that changed its `spec.md`),
//! `Spec-OK` acknowledgements, and the window `version..tip` minus acknowledged commits.
//! Does not own: what a window commit did to a file (`drift`).

use crate::spec::{NodeId, SPEC_ROOT};
use crate::trailers::parse_trailers;
use crate::tree::{FileChange, files_under, tree_diff};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;
use rustc_hash::FxHashSet;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

/// The trailer that acknowledges a commit for one node.
pub const SPEC_OK: &str = "Spec-OK";

/// A node id, interned so per-node queries can be keyed by it.
#[salsa::interned(debug)]
pub struct Node<'db> {
    #[returns(ref)]
    pub id: NodeId,
}

/// git's default walk from a tip: newest committer time first (ties in the order the
/// commits were reached), a commit only after the child that reached it.
///
/// `covered` commits are neither yielded nor expanded. When `covered` is closed under
/// parents (an ancestry set), the walk yields exactly the commits of the full walk that
/// are not covered, in the same relative order: an uncovered commit is only ever reached
/// from an uncovered child, so every uncovered commit enters the queue in the same
/// relative order as in the full walk. This is `git rev-list version..tip` in
/// O(window + boundary) rather than O(history).
pub struct Walk<'db, F> {
    db: &'db dyn Db,
    covered: F,
    queued: Vec<Commit>,
    seen: FxHashSet<Commit>,
    queue: BinaryHeap<(i64, Reverse<usize>)>,
}

impl<'db, F: Fn(Commit) -> bool> Walk<'db, F> {
    /// A walk from `tip` that stops at `covered` commits.
    pub fn new(db: &'db dyn Db, tip: Commit, covered: F) -> Self {
        Self {
            db,
            covered,
            queued: vec![tip],
            seen: FxHashSet::from_iter([tip]),
            queue: BinaryHeap::from([(tip.committer_time(db), Reverse(0))]),
        }
    }
}

impl<F: Fn(Commit) -> bool> Iterator for Walk<'_, F> {
    type Item = Commit;

    fn next(&mut self) -> Option<Commit> {
        while let Some((_, Reverse(index))) = self.queue.pop() {
            let commit = self.queued[index];
            if (self.covered)(commit) {
                continue;
            }
            for &parent in commit.parents(self.db) {
                if self.seen.insert(parent) {
                    self.queue
                        .push((parent.committer_time(self.db), Reverse(self.queued.len())));
                    self.queued.push(parent);
                }
            }
            return Some(commit);
        }
        None
    }
}

/// Every commit reachable from `tip`, in `git rev-list` order.
pub fn history(db: &dyn Db, tip: Commit) -> Vec<Commit> {
    Walk::new(db, tip, |_| false).collect()
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

/// Every node's version at `tip`, keyed by its `spec.md` path, found in ONE walk: the
/// first commit in walk order that changed each `spec.md` present at the tip. The walk
/// stops as soon as every node has its version.
#[salsa::tracked(returns(ref))]
pub fn spec_versions(db: &dyn Db, tip: Commit) -> Result<HashMap<String, Commit>, ObjectError> {
    let wanted: HashSet<String> = files_under(db, tip.tree(db), SPEC_ROOT)?
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| NodeId::from_spec_path(path).is_some())
        .collect();
    let mut versions = HashMap::new();
    for commit in Walk::new(db, tip, |_| false) {
        if versions.len() == wanted.len() {
            break;
        }
        for change in commit_changes(db, commit)
            .as_ref()
            .map_err(Clone::clone)?
            .iter()
        {
            if wanted.contains(&change.path) && !versions.contains_key(&change.path) {
                versions.insert(change.path.clone(), commit);
            }
        }
    }
    Ok(versions)
}

/// The node's version at `tip`: the newest commit in walk order that changed its
/// `spec.md`. `None` when no reachable commit did (the spec is absent).
#[salsa::tracked(returns(clone))]
pub fn node_version<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Option<Commit>, ObjectError> {
    let versions = spec_versions(db, tip).as_ref().map_err(Clone::clone)?;
    Ok(versions.get(&node.id(db).spec_path()).copied())
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

/// The node's drift window at `tip`, newest first: commits reachable from the tip and
/// not from the version, without the version itself and without commits that carry
/// `Spec-OK: <node-id>`.
#[salsa::tracked(returns(ref))]
pub fn window<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Vec<Commit>, ObjectError> {
    let version = node_version(db, tip, node)?;
    let covered = version.map(|v| ancestry(db, v));
    let id = node.id(db);
    Ok(Walk::new(db, tip, |commit| {
        covered.is_some_and(|set| set.contains(&commit))
    })
    .filter(|&commit| !acknowledged_nodes(db, commit).contains(&id.0))
    .collect())
}
