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

/// Every commit reachable from `tip`, in `git rev-list` order: newest committer time
/// first, a commit only after every child that reached it first.
#[salsa::tracked(returns(ref))]
pub fn history(db: &dyn Db, tip: Commit) -> Vec<Commit> {
    let mut order = Vec::new();
    let mut queued: Vec<Commit> = vec![tip];
    let mut seen: HashSet<Commit> = HashSet::from([tip]);
    let mut queue = BinaryHeap::from([(tip.committer_time(db), Reverse(0usize))]);
    while let Some((_, Reverse(index))) = queue.pop() {
        let commit = queued[index];
        order.push(commit);
        for &parent in commit.parents(db) {
            if seen.insert(parent) {
                queue.push((parent.committer_time(db), Reverse(queued.len())));
                queued.push(parent);
            }
        }
    }
    order
}

/// `commit` and all its ancestors.
#[salsa::tracked(returns(ref))]
pub fn ancestry(db: &dyn Db, commit: Commit) -> HashSet<Commit> {
    let mut seen = HashSet::from([commit]);
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
    for &commit in history(db, tip) {
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
    Ok(history(db, tip)
        .iter()
        .copied()
        .filter(|commit| !covered.is_some_and(|set| set.contains(commit)))
        .filter(|&commit| !acknowledged_nodes(db, commit).contains(&id.0))
        .collect())
}
