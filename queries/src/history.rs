//! History: walk order, ancestry, what each commit authored, and the indexes every
//! history question is a lookup in.
//!
//! Owns: the commit graph of every commit read ([`commit_graph`], flat arrays), git's
//! default walk order over it (newest committer time first), the ancestor set of a commit
//! and its descendants, the files (and submodules) a commit authored a change to and the
//! nodes it acknowledges (one [`commit_facts`] memo per commit), the change index over
//! every commit read ([`change_index`]: which commits changed each path and how, which
//! moved a submodule, which acknowledge each node), how a commit's file relates to each
//! parent's ([`parent_paths`]: the same path, or the source of a rename), the renames a
//! commit authored, and the per-tip walk index ([`tip_index`]) through which a tip keeps
//! what it reaches ([`TipHistory`]). Only the
//! walk depends on the tip; the graph and the change index are rebuilt when a commit is
//! read, never when the tip moves.
//! Does not own: lineages, versions and windows (`lineage`, `window`), nor what a commit
//! did to a file's lines (`drift`).

use crate::renames::tree_renames;
use crate::trailers::parse_trailers;
use crate::tree::{FileChange, FileChanges, RepoPath, diff_trees, lookup_all, tree_diff};
use keel_engine::Db;
use keel_engine::inputs::{Commit, KnownCommits};
use keel_engine::objects::{EntryKind, ObjectError};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The trailer that acknowledges a commit for one node.
pub const SPEC_OK: &str = "Spec-OK";

/// Every commit the database has read ([`KnownCommits`]), numbered, with what a walk
/// reads of it — committer time, parents (as numbers), shallow mark — in flat arrays, so a
/// walk from any tip reads no input and no memo. Built once when a commit is read.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CommitGraph {
    number: FxHashMap<Commit, u32>,
    commits: Vec<Commit>,
    time: Vec<i64>,
    shallow: Vec<bool>,
    /// `parents[parent_start[n]..parent_start[n + 1]]` are commit `n`'s parents.
    parent_start: Vec<u32>,
    parents: Vec<u32>,
    /// `children[child_start[n]..child_start[n + 1]]` are the commits with `n` as a parent.
    child_start: Vec<u32>,
    children: Vec<u32>,
}

impl CommitGraph {
    /// The number of a known commit.
    fn number(&self, commit: Commit) -> Option<u32> {
        self.number.get(&commit).copied()
    }

    /// The parents of commit number `n`.
    fn parents(&self, n: u32) -> &[u32] {
        let (start, end) = (
            self.parent_start[n as usize],
            self.parent_start[n as usize + 1],
        );
        &self.parents[start as usize..end as usize]
    }

    /// The commits that have commit number `n` as a parent.
    fn children(&self, n: u32) -> &[u32] {
        let (start, end) = (
            self.child_start[n as usize],
            self.child_start[n as usize + 1],
        );
        &self.children[start as usize..end as usize]
    }
}

/// The graph of every known commit (its inputs read once).
#[salsa::tracked(returns(ref))]
pub fn commit_graph(db: &dyn Db) -> CommitGraph {
    let known = KnownCommits::get(db).commits(db);
    let mut graph = CommitGraph {
        number: FxHashMap::default(),
        commits: known.clone(),
        time: Vec::with_capacity(known.len()),
        shallow: Vec::with_capacity(known.len()),
        parent_start: Vec::with_capacity(known.len() + 1),
        parents: Vec::new(),
        child_start: Vec::new(),
        children: Vec::new(),
    };
    for (n, &commit) in known.iter().enumerate() {
        // A database numbers its commits with u32 ids: a count beyond u32 cannot occur.
        graph
            .number
            .insert(commit, u32::try_from(n).unwrap_or(u32::MAX));
    }
    for &commit in known {
        graph.time.push(commit.committer_time(db));
        graph.shallow.push(commit.shallow(db));
        graph.parent_start.push(graph.parents.len() as u32);
        // Every parent is known: its input is made before its child's.
        for &parent in commit.parents(db) {
            if let Some(n) = graph.number(parent) {
                graph.parents.push(n);
            }
        }
    }
    graph.parent_start.push(graph.parents.len() as u32);
    graph.link_children();
    graph
}

impl CommitGraph {
    /// Fills the child links from the parent links (a counting sort by parent).
    fn link_children(&mut self) {
        let count = self.commits.len();
        let mut start = vec![0u32; count + 1];
        for &parent in &self.parents {
            start[parent as usize + 1] += 1;
        }
        for n in 0..count {
            start[n + 1] += start[n];
        }
        let mut next = start.clone();
        let mut children = vec![0u32; self.parents.len()];
        for child in 0..count {
            let (from, to) = (self.parent_start[child], self.parent_start[child + 1]);
            for &parent in &self.parents[from as usize..to as usize] {
                children[next[parent as usize] as usize] = child as u32;
                next[parent as usize] += 1;
            }
        }
        self.child_start = start;
        self.children = children;
    }
}

/// git's default walk from commit number `tip` (`git rev-list tip`): newest committer
/// time first, ties in the order the commits were reached, a commit only after the child
/// that reached it. The commits' numbers, in walk order.
fn walk(graph: &CommitGraph, tip: u32) -> Vec<u32> {
    let mut seen = vec![false; graph.commits.len()];
    seen[tip as usize] = true;
    let mut queued = vec![tip];
    let mut queue = BinaryHeap::from([(graph.time[tip as usize], Reverse(0usize))]);
    let mut order = Vec::new();
    while let Some((_, Reverse(index))) = queue.pop() {
        let commit = queued[index];
        order.push(commit);
        for &parent in graph.parents(commit) {
            if !std::mem::replace(&mut seen[parent as usize], true) {
                queue.push((graph.time[parent as usize], Reverse(queued.len())));
                queued.push(parent);
            }
        }
    }
    order
}

/// Every commit reachable from `tip`, in `git rev-list` order.
pub fn history(db: &dyn Db, tip: Commit) -> Vec<Commit> {
    let graph = commit_graph(db);
    graph.number(tip).map_or_else(Vec::new, |tip| {
        walk(graph, tip)
            .into_iter()
            .map(|n| graph.commits[n as usize])
            .collect()
    })
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

/// The known commits that have `commit` as an ancestor (itself included), as a set of
/// graph numbers: one walk down the graph's child links. Within any tip's history these
/// are exactly the tip's commits that descend from `commit`, so the set serves every tip.
#[salsa::tracked(returns(ref))]
pub fn descendants(db: &dyn Db, commit: Commit) -> Vec<bool> {
    let graph = commit_graph(db);
    let mut below = vec![false; graph.commits.len()];
    let Some(start) = graph.number(commit) else {
        return below;
    };
    below[start as usize] = true;
    let mut stack = vec![start];
    while let Some(next) = stack.pop() {
        for &child in graph.children(next) {
            if !std::mem::replace(&mut below[child as usize], true) {
                stack.push(child);
            }
        }
    }
    below
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

/// How `a` relates to `b` (in any history that holds both).
pub fn order(db: &dyn Db, a: Commit, b: Commit) -> Order {
    let below_b = || {
        let number = commit_graph(db).number(a);
        number.is_some_and(|n| descendants(db, b)[n as usize])
    };
    if ancestry(db, b).contains(&a) {
        Order::Before
    } else if below_b() {
        Order::After
    } else {
        Order::Incomparable
    }
}

/// What the change index needs of one commit, in one memo: the files it authored a change
/// to (see [`commit_changes`]) and the node ids its `Spec-OK` trailers acknowledge.
/// Persisted, packed (`keel_engine::packed`): there is one per commit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(remote = "Self")]
pub struct CommitFacts {
    /// The files it authored a change to, sorted by path.
    pub changes: Result<FileChanges, ObjectError>,
    /// The node ids its `Spec-OK` trailers name.
    pub acks: Vec<String>,
}

keel_engine::packed_serde!(CommitFacts);

/// The facts of `commit` (see [`CommitFacts`]).
#[salsa::tracked(returns(ref), persist)]
pub fn commit_facts(db: &dyn Db, commit: Commit) -> CommitFacts {
    CommitFacts {
        changes: authored_changes(db, commit),
        acks: parse_trailers(commit.message(db))
            .into_iter()
            .filter(|trailer| trailer.has_key(SPEC_OK))
            .map(|trailer| trailer.value)
            .collect(),
    }
}

/// The files `commit` authored a change to, sorted by path. A root commit adds every
/// file it holds; a merge changes a path only when it differs from every parent (a path
/// inherited unchanged from one side was authored there, not by the merge; `old` is then
/// the first parent's blob). Memoized per commit (in [`commit_facts`]).
pub fn commit_changes(db: &dyn Db, commit: Commit) -> &Result<FileChanges, ObjectError> {
    &commit_facts(db, commit).changes
}

/// [`commit_changes`], computed: one tree diff against the first parent, then a lookup of
/// each changed path in the other parents (a side branch's tree can be far from the
/// merge's; only the paths the first diff names matter).
fn authored_changes(db: &dyn Db, commit: Commit) -> Result<FileChanges, ObjectError> {
    let tree = commit.tree(db);
    let parents = commit.parents(db);
    let Some((first, others)) = parents.split_first() else {
        return tree_diff(db, None, tree).clone();
    };
    let old = Some(first.tree(db));
    if others.is_empty() {
        return tree_diff(db, old, tree).clone();
    }
    // A merge keeps only what it authored of this diff: the whole of it (a side branch's
    // every change) is not memoized.
    let diff = diff_trees(db, old, tree)?;
    let mut changes: Vec<FileChange> = diff.to_vec();
    let mut gitlinks: Vec<FileChange> = diff.gitlinks().to_vec();
    for other in others {
        changes = differing(db, other.tree(db), changes, EntryKind::File)?;
        gitlinks = differing(db, other.tree(db), gitlinks, EntryKind::Submodule)?;
    }
    Ok(FileChanges::new(changes, gitlinks))
}

/// The `changes` whose new side (an entry of `kind`) differs from what the tree `other`
/// holds at its path: those a merge authored against that parent too.
fn differing(
    db: &dyn Db,
    other: keel_engine::Oid,
    changes: Vec<FileChange>,
    kind: EntryKind,
) -> Result<Vec<FileChange>, ObjectError> {
    let paths: Vec<&str> = changes.iter().map(|change| change.path.as_str()).collect();
    let theirs = lookup_all(db, other, &paths)?;
    Ok(changes
        .into_iter()
        .zip(theirs)
        .filter(|(change, theirs)| {
            let theirs = theirs
                .filter(|entry| entry.kind == kind)
                .map(|entry| entry.oid);
            theirs != change.new
        })
        .map(|(change, _)| change)
        .collect())
}

/// What `commit` authored at `path` (see [`commit_changes`]), if anything.
pub fn change_at<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: &str,
) -> Result<Option<&'db FileChange>, ObjectError> {
    let changes = commit_changes(db, commit).as_ref().map_err(Clone::clone)?;
    Ok(changes
        .binary_search_by(|change| change.path.as_str().cmp(path))
        .ok()
        .map(|at| &changes[at]))
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

/// Which commits changed each path and which acknowledge each node, over every commit the
/// database has read ([`KnownCommits`]): built once when a commit is read, not when the
/// tip moves. A tip keeps the commits it reaches ([`TipHistory`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ChangeIndex {
    /// For every file path, the commits that changed it (see [`commit_changes`]) and how.
    /// A rename is listed under both its paths.
    by_path: FxHashMap<String, Vec<(Commit, ChangeKind)>>,
    /// For every node id a `Spec-OK` trailer names, the commits that carry it.
    acks: FxHashMap<String, Vec<Commit>>,
    /// Every submodule move a commit authored (see [`FileChanges::gitlinks`]), in the
    /// order the commits were read: few in any history, so a flat list.
    gitlinks: Vec<(Commit, FileChange)>,
}

/// What a commit did to a path (see [`commit_changes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// The path holds a file after the commit and did not before.
    Added,
    /// The path held a file before the commit and does not after.
    Deleted,
    /// The file at the path has other content.
    Modified,
}

impl ChangeKind {
    /// The kind of `change`.
    pub fn of(change: &FileChange) -> Self {
        match (change.old, change.new) {
            (None, _) => Self::Added,
            (_, None) => Self::Deleted,
            _ => Self::Modified,
        }
    }
}

/// The change index over every known commit (one pass over memoized per-commit facts).
#[salsa::tracked(returns(ref))]
pub fn change_index(db: &dyn Db) -> Result<ChangeIndex, ObjectError> {
    let mut index = ChangeIndex::default();
    for &commit in KnownCommits::get(db).commits(db) {
        let facts = commit_facts(db, commit);
        let changes = facts.changes.as_ref().map_err(Clone::clone)?;
        for change in changes.iter() {
            push_under(
                &mut index.by_path,
                &change.path,
                (commit, ChangeKind::of(change)),
            );
        }
        index
            .gitlinks
            .extend(changes.gitlinks().iter().map(|link| (commit, link.clone())));
        for node in &facts.acks {
            push_under(&mut index.acks, node, commit);
        }
    }
    Ok(index)
}

impl ChangeIndex {
    /// The known commits that changed `path` and how, in the order they were read
    /// (parents before children), whatever the tip.
    pub fn changes_at(&self, path: &str) -> &[(Commit, ChangeKind)] {
        self.by_path.get(path).map_or(&[], Vec::as_slice)
    }
}

/// Appends `item` to `key`'s list (the key is copied only the first time).
fn push_under<T>(map: &mut FxHashMap<String, Vec<T>>, key: &str, item: T) {
    match map.get_mut(key) {
        Some(items) => items.push(item),
        None => {
            map.insert(key.to_owned(), vec![item]);
        }
    }
}

/// The known commits that changed `path` and how ([`ChangeIndex::changes_at`]): one
/// path's part of the change index, backdated when a commit read leaves it unchanged, so
/// what reads only it ([`path_renames`], lineage projections) re-runs only for the paths
/// a new commit touched.
#[salsa::tracked(returns(ref))]
pub fn path_changes<'db>(
    db: &'db dyn Db,
    path: RepoPath<'db>,
) -> Result<Vec<(Commit, ChangeKind)>, ObjectError> {
    let index = change_index(db).as_ref().map_err(Clone::clone)?;
    Ok(index.changes_at(path.text(db)).to_vec())
}

/// The renames known commits authored at one path, whatever the tip: away from it
/// ([`authored_rename_target`]) and into it ([`authored_rename_source`]). A tip keeps the
/// ones it reaches; a path no commit renamed has two empty lists.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PathRenames {
    /// (commit, target): the commit deleted the path by renaming it to the target.
    pub away: Vec<(Commit, String)>,
    /// (commit, source): the commit added the path by renaming the source to it.
    pub into: Vec<(Commit, String)>,
}

/// The renames at `path` over every known commit: built when a commit is read, not when
/// the tip moves (backdated when that path's renames are unchanged).
#[salsa::tracked(returns(ref))]
pub fn path_renames<'db>(db: &'db dyn Db, path: RepoPath<'db>) -> Result<PathRenames, ObjectError> {
    let changes = path_changes(db, path).as_ref().map_err(Clone::clone)?;
    let text = path.text(db);
    let mut renames = PathRenames::default();
    for &(commit, kind) in changes {
        match kind {
            ChangeKind::Deleted => {
                if let Some(to) = authored_rename_target(db, commit, text)? {
                    renames.away.push((commit, to));
                }
            }
            ChangeKind::Added => {
                if let Some(from) = authored_rename_source(db, commit, text)? {
                    renames.into.push((commit, from));
                }
            }
            ChangeKind::Modified => {}
        }
    }
    Ok(renames)
}

/// [`path_renames`] of the path spelled `path`.
pub fn renames_at<'db>(db: &'db dyn Db, path: &str) -> Result<&'db PathRenames, ObjectError> {
    path_renames(db, RepoPath::new(db, path.to_owned()))
        .as_ref()
        .map_err(Clone::clone)
}

/// What one walk from a tip learns: the walk position of every reachable commit and which
/// of them a shallow clone cut off. Rebuilt when the tip moves (one walk over the commit
/// graph: no input or memo is read per commit).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TipIndex {
    /// Walk position of each commit by its graph number (`u32::MAX`: not reachable).
    position: Vec<u32>,
    /// The reachable commits, in walk order.
    walked: Vec<Commit>,
    /// Reachable commits whose parents a shallow clone cut off.
    shallow: Vec<Commit>,
}

/// The walk's index at `tip`. Only the newest few tips' indexes are kept, so a replay
/// through thousands of tips stays bounded.
#[salsa::tracked(returns(ref), lru = 4)]
pub fn tip_index(db: &dyn Db, tip: Commit) -> TipIndex {
    let graph = commit_graph(db);
    let mut index = TipIndex {
        position: vec![u32::MAX; graph.commits.len()],
        ..TipIndex::default()
    };
    let Some(tip) = graph.number(tip) else {
        return index;
    };
    for (position, n) in walk(graph, tip).into_iter().enumerate() {
        // Positions are below the commit count, which fits u32 (see `commit_graph`).
        index.position[n as usize] = position as u32;
        let commit = graph.commits[n as usize];
        index.walked.push(commit);
        if graph.shallow[n as usize] {
            index.shallow.push(commit);
        }
    }
    index
}

/// A tip's view of the history: its walk index and the change index, so every history
/// question is a lookup (commits changed a path, acknowledge a node), kept to the commits
/// the tip reaches, in walk order.
#[derive(Clone, Copy)]
pub struct TipHistory<'db> {
    graph: &'db CommitGraph,
    index: &'db TipIndex,
    changes: &'db ChangeIndex,
}

/// The history at `tip`.
pub fn tip_history(db: &dyn Db, tip: Commit) -> Result<TipHistory<'_>, ObjectError> {
    Ok(TipHistory {
        graph: commit_graph(db),
        index: tip_index(db, tip),
        changes: change_index(db).as_ref().map_err(Clone::clone)?,
    })
}

impl<'db> TipHistory<'db> {
    /// The reachable commits that changed `path`, newest first in walk order.
    pub fn changed(&self, path: &str) -> Vec<Commit> {
        self.reachable(self.changes.by_path.get(path))
            .into_iter()
            .map(|(commit, _)| commit)
            .collect()
    }

    /// Every path some reachable commit changed.
    pub fn paths(&self) -> impl Iterator<Item = &'db str> + '_ {
        self.changes
            .by_path
            .iter()
            .filter(|(_, changes)| changes.iter().any(|&(c, _)| self.reaches(c)))
            .map(|(path, _)| path.as_str())
    }

    /// The submodule moves of reachable commits that `keep` keeps and whose path `covers`
    /// accepts, newest first in walk order. `keep` is asked first (the window's own test,
    /// cheap), `covers` once per path.
    pub fn gitlink_moves(
        &self,
        keep: impl Fn(Commit) -> bool,
        covers: impl Fn(&str) -> bool,
    ) -> Vec<(Commit, &'db FileChange)> {
        let mut covered: FxHashMap<&str, bool> = FxHashMap::default();
        let mut kept: Vec<(usize, Commit, &'db FileChange)> = Vec::new();
        for (commit, link) in &self.changes.gitlinks {
            let Some(position) = self.position(*commit).filter(|_| keep(*commit)) else {
                continue;
            };
            if *covered
                .entry(link.path.as_str())
                .or_insert_with(|| covers(&link.path))
            {
                kept.push((position, *commit, link));
            }
        }
        kept.sort_by(|a, b| (a.0, &a.2.path).cmp(&(b.0, &b.2.path)));
        kept.into_iter()
            .map(|(_, commit, link)| (commit, link))
            .collect()
    }

    /// The reachable commits whose `Spec-OK` trailer names `node` (a set: no walk order).
    pub fn acks(&self, node: &str) -> FxHashSet<Commit> {
        self.changes
            .acks
            .get(node)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&commit| self.reaches(commit))
            .collect()
    }

    /// The walk position of a reachable commit.
    pub fn position(&self, commit: Commit) -> Option<usize> {
        let n = self.graph.number(commit)?;
        let position = self.index.position[n as usize];
        (position != u32::MAX).then_some(position as usize)
    }

    /// Is `commit` reachable from the tip?
    pub fn reaches(&self, commit: Commit) -> bool {
        self.position(commit).is_some()
    }

    /// Every reachable commit, in walk order.
    pub fn walked(&self) -> &'db [Commit] {
        &self.index.walked
    }

    /// The reachable commits whose parents a shallow clone cut off.
    pub fn shallow(&self) -> &'db [Commit] {
        &self.index.shallow
    }

    /// The items of `listed` whose commit is reachable, newest first in walk order.
    fn reachable<T: Copy>(&self, listed: Option<&Vec<(Commit, T)>>) -> Vec<(Commit, T)> {
        let mut kept: Vec<(usize, Commit, T)> = listed
            .into_iter()
            .flatten()
            .filter_map(|&(commit, item)| Some((self.position(commit)?, commit, item)))
            .collect();
        kept.sort_unstable_by_key(|&(position, _, _)| position);
        kept.into_iter()
            .map(|(_, commit, item)| (commit, item))
            .collect()
    }
}

/// The node ids a commit acknowledges with `Spec-OK: <node-id>` trailers.
pub fn acknowledged_nodes(db: &dyn Db, commit: Commit) -> &[String] {
    &commit_facts(db, commit).acks
}
