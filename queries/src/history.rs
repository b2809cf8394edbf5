//! History: walk order, ancestry, spec versions and drift windows.
//!
//! Owns: git's default walk order (newest committer time first), the ancestor set of a
//! commit, a node's version (the newest commit in that walk that changed its `spec.md`),
//! `Spec-OK` acknowledgements, and the window `version..tip` minus acknowledged commits.
//! Does not own: what a window commit did to a file (`drift`).

use crate::spec::NodeId;
use crate::trailers::parse_trailers;
use crate::tree::{RepoPath, entry_at};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

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

/// Did `commit` change what sits at `path`? A root commit changes every path it holds;
/// a merge changes a path only when it differs from every parent (a path inherited
/// unchanged from one side was authored there, not by the merge).
#[salsa::tracked(returns(clone))]
pub fn path_changed<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: RepoPath<'db>,
) -> Result<bool, ObjectError> {
    let own = entry_at(db, commit, path)?;
    let parents = commit.parents(db);
    if parents.is_empty() {
        return Ok(own.is_some());
    }
    for &parent in parents {
        if entry_at(db, parent, path)? == own {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The node's version at `tip`: the newest commit in walk order that changed its
/// `spec.md`. `None` when no reachable commit did (the spec is absent).
#[salsa::tracked(returns(clone))]
pub fn node_version<'db>(
    db: &'db dyn Db,
    tip: Commit,
    node: Node<'db>,
) -> Result<Option<Commit>, ObjectError> {
    let spec = RepoPath::new(db, node.id(db).spec_path());
    for &commit in history(db, tip) {
        if path_changed(db, commit, spec)? {
            return Ok(Some(commit));
        }
    }
    Ok(None)
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
