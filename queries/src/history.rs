//! History: walk order, ancestry, what each commit authored, and the per-tip index every
//! history question is a lookup in.
//!
//! Owns: git's default walk order (newest committer time first), the ancestor set of a
//! commit and the descendants of one within a tip's history, the files a commit authored
//! a change to ([`commit_changes`]), how a commit's file relates to each parent's
//! ([`parent_paths`]: the same path, or the source of a rename), the renames a commit
//! authored, `Spec-OK` acknowledgements, and the per-tip index one walk builds.
//! Does not own: lineages, versions and windows (`lineage`, `window`), nor what a commit
//! did to a file's lines (`drift`).

use crate::renames::tree_renames;
use crate::trailers::parse_trailers;
use crate::tree::{FileChange, FileChanges, RepoPath, lookup, tree_diff};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The trailer that acknowledges a commit for one node.
pub const SPEC_OK: &str = "Spec-OK";

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

/// The commits reachable from `tip` that have `commit` as an ancestor (itself included).
#[salsa::tracked(returns(ref))]
pub fn descendants(db: &dyn Db, tip: Commit, commit: Commit) -> FxHashSet<Commit> {
    let below = ancestry(db, commit);
    let mut reaches: FxHashMap<Commit, bool> = FxHashMap::default();
    let mut stack = vec![(tip, false)];
    while let Some((next, expanded)) = stack.pop() {
        if reaches.contains_key(&next) {
            continue;
        }
        if next == commit || below.contains(&next) {
            reaches.insert(next, next == commit);
            continue;
        }
        if expanded {
            let hit = next
                .parents(db)
                .iter()
                .any(|p| reaches.get(p).copied().unwrap_or(false));
            reaches.insert(next, hit);
            continue;
        }
        stack.push((next, true));
        for &parent in next.parents(db) {
            if !reaches.contains_key(&parent) {
                stack.push((parent, false));
            }
        }
    }
    reaches
        .into_iter()
        .filter_map(|(c, hit)| hit.then_some(c))
        .collect()
}

/// How two commits of one history are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The first is an ancestor of the second (or the same commit).
    Before,
    /// The second is a proper ancestor of the first.
    After,
    /// Neither reaches the other: parallel branches.
    Incomparable,
}

/// How `a` relates to `b` in the history of `tip`.
pub fn order(db: &dyn Db, tip: Commit, a: Commit, b: Commit) -> Order {
    if ancestry(db, b).contains(&a) {
        Order::Before
    } else if descendants(db, tip, b).contains(&a) {
        Order::After
    } else {
        Order::Incomparable
    }
}

/// The files `commit` authored a change to, sorted by path. A root commit adds every
/// file it holds; a merge changes a path only when it differs from every parent (a path
/// inherited unchanged from one side was authored there, not by the merge; `old` is then
/// the first parent's blob). Memoized per commit: one tree diff against the first parent,
/// then a lookup of each changed path in the other parents (a side branch's tree can be
/// far from the merge's; only the paths the first diff names matter).
#[salsa::tracked(returns(ref), persist)]
pub fn commit_changes(db: &dyn Db, commit: Commit) -> Result<FileChanges, ObjectError> {
    let tree = commit.tree(db);
    let parents = commit.parents(db);
    let Some((first, others)) = parents.split_first() else {
        return tree_diff(db, None, tree).clone();
    };
    let mut changes: Vec<FileChange> = tree_diff(db, Some(first.tree(db)), tree).clone()?.to_vec();
    for other in others {
        let mut kept = Vec::with_capacity(changes.len());
        for change in changes {
            let theirs = lookup(db, other.tree(db), &change.path)?
                .filter(|entry| entry.kind == EntryKind::File)
                .map(|entry| entry.oid);
            if theirs != change.new {
                kept.push(change);
            }
        }
        changes = kept;
    }
    Ok(FileChanges::from(changes))
}

/// What `commit` authored at `path` (see [`commit_changes`]), if anything.
pub fn change_at(
    db: &dyn Db,
    commit: Commit,
    path: &str,
) -> Result<Option<FileChange>, ObjectError> {
    let changes = commit_changes(db, commit).as_ref().map_err(Clone::clone)?;
    Ok(changes
        .binary_search_by(|change| change.path.as_str().cmp(path))
        .ok()
        .map(|at| changes[at].clone()))
}

/// Did `commit` author a change to the file at `path` (see [`commit_changes`])?
pub fn path_changed(db: &dyn Db, commit: Commit, path: &str) -> Result<bool, ObjectError> {
    Ok(change_at(db, commit, path)?.is_some())
}

/// For each parent of `commit`, the path at which that parent holds the content of the
/// commit's file at `path`: the same path when the parent has it (or neither has it), the
/// source of a rename `git diff -M parent commit` finds, or `None` when the file is new
/// against that parent. A root commit has no parents and so no entries.
#[salsa::tracked(returns(ref), persist)]
pub fn parent_paths<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: RepoPath<'db>,
) -> Result<Vec<Option<String>>, ObjectError> {
    let path = path.text(db);
    let tree = commit.tree(db);
    let mut sources = Vec::new();
    for parent in commit.parents(db) {
        let old = Some(parent.tree(db));
        let diff = tree_diff(db, old, tree).as_ref().map_err(Clone::clone)?;
        let added = diff
            .binary_search_by(|c| c.path.as_str().cmp(path))
            .ok()
            .is_some_and(|at| diff[at].old.is_none() && diff[at].new.is_some());
        if !added {
            sources.push(Some(path.clone()));
            continue;
        }
        let renames = tree_renames(db, old, tree).as_ref().map_err(Clone::clone)?;
        sources.push(
            renames
                .iter()
                .find(|rename| &rename.to == path)
                .map(|rename| rename.from.clone()),
        );
    }
    Ok(sources)
}

/// The path `commit` renamed to `path`, when the commit AUTHORED that rename: a non-merge
/// commit's rename against its parent, or a merge's rename found against every parent
/// (a rename carried in from one side was authored on that side).
pub fn authored_rename_source(
    db: &dyn Db,
    commit: Commit,
    path: &str,
) -> Result<Option<String>, ObjectError> {
    if commit.parents(db).is_empty() {
        return Ok(None);
    }
    let sources = parent_paths(db, commit, RepoPath::new(db, path.to_owned()))
        .as_ref()
        .map_err(Clone::clone)?;
    let Some(Some(first)) = sources.first() else {
        return Ok(None);
    };
    let same = sources.iter().all(|s| s.as_deref() == Some(first.as_str()));
    Ok((same && first != path).then(|| first.clone()))
}

/// The path `commit` renamed `path` to, when it authored that rename (see
/// [`authored_rename_source`]).
pub fn authored_rename_target(
    db: &dyn Db,
    commit: Commit,
    path: &str,
) -> Result<Option<String>, ObjectError> {
    let Some(parent) = commit.parents(db).first() else {
        return Ok(None);
    };
    let renames = tree_renames(db, Some(parent.tree(db)), commit.tree(db))
        .as_ref()
        .map_err(Clone::clone)?;
    let Some(rename) = renames.iter().find(|r| r.from == path) else {
        return Ok(None);
    };
    let authored = authored_rename_source(db, commit, &rename.to)?;
    Ok((authored.as_deref() == Some(path)).then(|| rename.to.clone()))
}

/// What one walk from a tip learns about every reachable commit, so per-node questions
/// never walk again: which commits changed each path (in walk order), which acknowledge
/// each node, and which shallow commits the history holds. Rebuilt when the tip moves
/// (one pass over memoized per-commit facts: no tree is re-read and no message re-parsed).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TipIndex {
    /// For every file path, the commits that changed it (see [`commit_changes`]), newest
    /// first in walk order. A rename is listed under both its paths.
    pub(crate) by_path: FxHashMap<String, Vec<Commit>>,
    /// For every node id a `Spec-OK` trailer names, the commits that carry it.
    pub(crate) acks: FxHashMap<String, FxHashSet<Commit>>,
    /// Walk position of every reachable commit.
    pub(crate) position: FxHashMap<Commit, usize>,
    /// Reachable commits whose parents a shallow clone cut off.
    pub(crate) shallow: Vec<Commit>,
}

impl TipIndex {
    /// The commits that changed `path`, newest first.
    pub fn changed(&self, path: &str) -> &[Commit] {
        self.by_path.get(path).map_or(&[], Vec::as_slice)
    }

    /// Every path some reachable commit changed.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.by_path.keys().map(String::as_str)
    }

    /// The walk position of a reachable commit.
    pub fn position(&self, commit: Commit) -> Option<usize> {
        self.position.get(&commit).copied()
    }
}

/// The walk's index at `tip`. Only the newest few tips' indexes are kept (each holds
/// every path of the history), so a replay through thousands of tips stays bounded.
#[salsa::tracked(returns(ref), lru = 4)]
pub fn tip_index(db: &dyn Db, tip: Commit) -> Result<TipIndex, ObjectError> {
    let mut index = TipIndex::default();
    for (position, commit) in Walk::new(db, tip).enumerate() {
        index.position.insert(commit, position);
        if commit.shallow(db) {
            index.shallow.push(commit);
        }
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

/// The node ids a commit acknowledges with `Spec-OK: <node-id>` trailers.
#[salsa::tracked(returns(ref))]
pub fn acknowledged_nodes(db: &dyn Db, commit: Commit) -> Vec<String> {
    parse_trailers(commit.message(db))
        .into_iter()
        .filter(|trailer| trailer.has_key(SPEC_OK))
        .map(|trailer| trailer.value)
        .collect()
}
