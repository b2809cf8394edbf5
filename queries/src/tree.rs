//! Tree queries: what a commit's tree holds at a path, and which files two trees differ in.
//!
//! Owns: path lookup and the file-level tree diff (no rename detection yet: a rename reads
//! as a deletion plus an addition, which over-reports rather than misses), both reading
//! trees from the object store, and the listings the tip's readers walk (specs, settings,
//! folders) memoized per tree object id; the submodules (gitlinks) two trees differ in, found by the same diff
//! (keel cannot look inside a submodule, but it sees its commit move), and the submodule
//! a path lies in.
//! Does not own: reading objects (`keel_engine::objects`), nor line diffs (`diff`).

use keel_engine::Db;
use keel_engine::Oid;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError, TreeEntry, TreeItem, TreeListing};
use std::sync::Arc;

/// A repository-relative path, interned so queries can be keyed by it.
#[salsa::interned(debug, persist)]
pub struct RepoPath<'db> {
    #[returns(ref)]
    pub text: String,
}

/// A tree object, interned so its listing is memoized once per id.
#[salsa::interned(debug)]
pub struct TreeId<'db> {
    #[returns(copy)]
    pub oid: Oid,
}

/// What sits at a path in a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PathEntry {
    pub kind: EntryKind,
    pub oid: Oid,
    /// A symbolic link (a blob holding the link's target): keel follows no links.
    pub symlink: bool,
}

/// One file that differs between two trees (`None`: absent on that side).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileChange {
    pub path: String,
    pub old: Option<Oid>,
    pub new: Option<Oid>,
}

/// Files that differ, sorted by path: what [`tree_diff`] and `history::commit_changes`
/// give (it derefs to them), and beside them the submodules that differ. Packed in the
/// on-disk memo (`keel_engine::packed`): there is one per commit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(remote = "Self")]
pub struct FileChanges {
    files: Arc<[FileChange]>,
    /// The submodules (gitlinks) that differ, sorted by path: `old` and `new` are the
    /// submodule's commit ids (`None`: no submodule at that path on that side).
    gitlinks: Arc<[FileChange]>,
}

keel_engine::packed_serde!(FileChanges);

impl From<Vec<FileChange>> for FileChanges {
    fn from(changes: Vec<FileChange>) -> Self {
        Self::new(changes, Vec::new())
    }
}

impl FileChanges {
    /// Changed files and changed submodules.
    pub fn new(files: Vec<FileChange>, gitlinks: Vec<FileChange>) -> Self {
        Self {
            files: Arc::from(files),
            gitlinks: Arc::from(gitlinks),
        }
    }

    /// The submodules that differ (see the field).
    pub fn gitlinks(&self) -> &[FileChange] {
        &self.gitlinks
    }
}

impl std::ops::Deref for FileChanges {
    type Target = [FileChange];

    fn deref(&self) -> &[FileChange] {
        &self.files
    }
}

/// The entries of one tree. Memoized per id: content-addressed, it never goes stale.
#[salsa::tracked(returns(ref))]
pub fn tree_items<'db>(db: &'db dyn Db, tree: TreeId<'db>) -> Result<Arc<[TreeItem]>, ObjectError> {
    db.objects().tree(tree.oid(db)).map(Arc::from)
}

/// What `commit`'s tree holds at `path`, if anything. Kept in the on-disk memo.
#[salsa::tracked(returns(clone), persist)]
pub fn entry_at<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: RepoPath<'db>,
) -> Result<Option<PathEntry>, ObjectError> {
    lookup(db, commit.tree(db), path.text(db))
}

/// What the judged `tip`'s tree holds at `path`: [`entry_at`] for a tip's own lookups
/// (its specs, its `keel.toml`, its images of the anchored files), memoized in memory
/// only. They are asked again at every tip a replay judges and at no other, so in the
/// on-disk memo they would be one tip's worth of entries per tip replayed (after 1,000
/// click tips, most of its entries and of its writing time) that no later run reads.
#[salsa::tracked(returns(clone))]
pub fn tip_entry<'db>(
    db: &'db dyn Db,
    tip: Commit,
    path: RepoPath<'db>,
) -> Result<Option<PathEntry>, ObjectError> {
    lookup(db, tip.tree(db), path.text(db))
}

/// What the tree `root` holds at `path`: [`lookup_all`] of the one path.
pub fn lookup(db: &dyn Db, root: Oid, path: &str) -> Result<Option<PathEntry>, ObjectError> {
    Ok(lookup_all(db, root, &[path])?.pop().flatten())
}

/// What the tree `root` holds at each of `paths`, in their order. Walks the paths down
/// from `root`, each folder on the way read once from the object store however many of
/// the paths pass through it (a merge's changed paths, looked up in its other parents,
/// share most of their folders), and not through [`tree_items`]: lookups of history's
/// paths meet a new tree at almost every commit, and memoized for the process those
/// listings grew with the history.
pub fn lookup_all(
    db: &dyn Db,
    root: Oid,
    paths: &[&str],
) -> Result<Vec<Option<PathEntry>>, ObjectError> {
    let mut found = vec![None; paths.len()];
    let pending = paths.iter().copied().enumerate().collect();
    lookup_below(db, root, pending, &mut found)?;
    Ok(found)
}

/// Finds each `(index, rest)` of `pending` under the tree `tree` into `found[index]`,
/// reading the tree once and each subfolder the rests pass through once.
fn lookup_below(
    db: &dyn Db,
    tree: Oid,
    pending: Vec<(usize, &str)>,
    found: &mut [Option<PathEntry>],
) -> Result<(), ObjectError> {
    let split: Vec<(usize, &str, Option<&str>)> = pending
        .into_iter()
        .map(|(index, rest)| match rest.split_once('/') {
            Some((name, below)) => (index, name, Some(below)),
            None => (index, rest, None),
        })
        .collect();
    let names: Vec<&str> = split.iter().map(|&(_, name, _)| name).collect();
    let entries = db.objects().tree_entries(tree, &names)?;
    let mut deeper: Vec<(Oid, Vec<(usize, &str)>)> = Vec::new();
    for ((index, _, below), entry) in split.into_iter().zip(entries) {
        let Some(entry) = entry else {
            continue;
        };
        match below {
            None => {
                found[index] = Some(PathEntry {
                    kind: entry.kind,
                    oid: entry.oid,
                    symlink: entry.symlink,
                });
            }
            Some(below) if entry.kind == EntryKind::Tree => {
                match deeper.iter_mut().find(|(oid, _)| *oid == entry.oid) {
                    Some((_, group)) => group.push((index, below)),
                    None => deeper.push((entry.oid, vec![(index, below)])),
                }
            }
            Some(_) => {}
        }
    }
    for (subtree, group) in deeper {
        lookup_below(db, subtree, group, found)?;
    }
    Ok(())
}

/// Every file (path, blob) under `prefix` (`""` for the whole tree) of the tree `root`,
/// sorted by path.
pub fn files_under(
    db: &dyn Db,
    root: Oid,
    prefix: &str,
) -> Result<Vec<(String, Oid)>, ObjectError> {
    entries_under(db, root, prefix, EntryKind::File)
}

/// The files that differ between two trees (`old = None`: the empty tree), sorted by
/// path. Memoized per ordered pair of tree ids, in memory only: the on-disk memo keeps
/// what each commit changed (`history::commit_changes`, one diff per commit) and the
/// renames found between two trees, which are what a later process asks for, so it does
/// not store each diff a second time.
/// The submodules that differ ride along ([`FileChanges::gitlinks`]).
#[salsa::tracked(returns(ref))]
pub fn tree_diff(db: &dyn Db, old: Option<Oid>, new: Oid) -> Result<FileChanges, ObjectError> {
    diff_trees(db, old, new)
}

/// [`tree_diff`], computed and not memoized: for a caller that keeps only part of the
/// answer (a merge's diff against its first parent, of which `history::commit_changes`
/// keeps the paths the merge authored).
pub fn diff_trees(db: &dyn Db, old: Option<Oid>, new: Oid) -> Result<FileChanges, ObjectError> {
    let mut changes = Diffed::default();
    diff_into(db, String::new(), old, Some(new), &mut changes)?;
    changes.files.sort_by(|a, b| a.path.cmp(&b.path));
    changes.gitlinks.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(FileChanges::new(changes.files, changes.gitlinks))
}

/// What [`diff_into`] gathers: changed files and changed submodules.
#[derive(Default)]
struct Diffed {
    files: Vec<FileChange>,
    gitlinks: Vec<FileChange>,
}

fn diff_into(
    db: &dyn Db,
    prefix: String,
    old: Option<Oid>,
    new: Option<Oid>,
    out: &mut Diffed,
) -> Result<(), ObjectError> {
    if old == new {
        return Ok(());
    }
    // Read from the object store, not through `tree_items`: a diff reads each changed tree
    // of each commit, and memoized for the process they grew with the history (most of a
    // cold lint's memory), while the next commit's diff is the only other reader.
    // Entries are compared with their names borrowed from the tree's bytes: only a
    // changed entry's path is built.
    let old_tree = old.map(|oid| db.objects().tree_listing(oid)).transpose()?;
    let new_tree = new.map(|oid| db.objects().tree_listing(oid)).transpose()?;
    let old_items = old_tree.as_ref().map(TreeListing::entries).transpose()?;
    let new_items = new_tree.as_ref().map(TreeListing::entries).transpose()?;
    let sides = paired(
        old_items.as_deref().unwrap_or_default(),
        new_items.as_deref().unwrap_or_default(),
    );
    for (name, before, after) in sides {
        // Same kind and id on both sides: no subtree, submodule or file to report.
        if before.map(|i| (i.kind, i.oid)) == after.map(|i| (i.kind, i.oid)) {
            continue;
        }
        let path = join(&prefix, name);
        let tree_of =
            |item: Option<&TreeEntry>| item.filter(|i| i.kind == EntryKind::Tree).map(|i| i.oid);
        let file_of =
            |item: Option<&TreeEntry>| item.filter(|i| i.kind == EntryKind::File).map(|i| i.oid);
        let (old_tree, new_tree) = (tree_of(before), tree_of(after));
        if old_tree.is_some() || new_tree.is_some() {
            diff_into(db, path.clone(), old_tree, new_tree, out)?;
        }
        let link_of = |item: Option<&TreeEntry>| {
            item.filter(|i| i.kind == EntryKind::Submodule)
                .map(|i| i.oid)
        };
        let (old_link, new_link) = (link_of(before), link_of(after));
        if old_link != new_link {
            out.gitlinks.push(FileChange {
                path: path.clone(),
                old: old_link,
                new: new_link,
            });
        }
        let (old_file, new_file) = (file_of(before), file_of(after));
        if old_file != new_file {
            out.files.push(FileChange {
                path,
                old: old_file,
                new: new_file,
            });
        }
    }
    Ok(())
}

/// The submodule of the tree `root` that `path` is or lies inside (`vendor/lib` for
/// `vendor/lib` and for `vendor/lib/src/x.py`), if any: keel reads nothing inside it.
pub fn enclosing_submodule(
    db: &dyn Db,
    root: Oid,
    path: &str,
) -> Result<Option<String>, ObjectError> {
    let mut current = root;
    let mut walked = String::new();
    for part in path.trim_end_matches('/').split('/') {
        let items = tree_items(db, TreeId::new(db, current)).clone()?;
        let Some(item) = items.iter().find(|item| item.name == part) else {
            return Ok(None);
        };
        walked = join(&walked, part);
        match item.kind {
            EntryKind::Submodule => return Ok(Some(walked)),
            EntryKind::Tree => current = item.oid,
            EntryKind::File => return Ok(None),
        }
    }
    Ok(None)
}

/// Every submodule (path, commit) under `prefix` (`""` for the whole tree) of the tree
/// `root`, sorted by path.
pub fn submodules_under(
    db: &dyn Db,
    root: Oid,
    prefix: &str,
) -> Result<Vec<(String, Oid)>, ObjectError> {
    entries_under(db, root, prefix, EntryKind::Submodule)
}

/// Every entry of `kind` (a file or a submodule) under `prefix` of the tree `root`, as
/// (path, object), sorted by path: one walk of the folders below `prefix`.
fn entries_under(
    db: &dyn Db,
    root: Oid,
    prefix: &str,
    kind: EntryKind,
) -> Result<Vec<(String, Oid)>, ObjectError> {
    let start = if prefix.is_empty() {
        Some(PathEntry {
            kind: EntryKind::Tree,
            oid: root,
            symlink: false,
        })
    } else {
        lookup(db, root, prefix)?
    };
    let mut found = Vec::new();
    let mut stack: Vec<(String, PathEntry)> =
        start.into_iter().map(|e| (prefix.to_owned(), e)).collect();
    while let Some((path, entry)) = stack.pop() {
        if entry.kind == kind {
            found.push((path, entry.oid));
            continue;
        }
        if entry.kind != EntryKind::Tree {
            continue;
        }
        let items = tree_items(db, TreeId::new(db, entry.oid)).clone()?;
        for item in items
            .iter()
            .filter(|item| item.kind == kind || item.kind == EntryKind::Tree)
        {
            let child = join(&path, &item.name);
            stack.push((
                child,
                PathEntry {
                    kind: item.kind,
                    oid: item.oid,
                    symlink: item.symlink,
                },
            ));
        }
    }
    found.sort();
    Ok(found)
}

/// The entries of two listings paired by name, in name order: each name with its old
/// and its new entry (the last of that name on each side; a valid tree has one). One sort
/// of both sides together, which finds the two sides' own orders as runs and merges
/// them, instead of a map built entry by entry.
fn paired<'e, 'a>(
    old: &'e [TreeEntry<'a>],
    new: &'e [TreeEntry<'a>],
) -> Vec<(
    &'e str,
    Option<&'e TreeEntry<'a>>,
    Option<&'e TreeEntry<'a>>,
)> {
    let mut all: Vec<(&'e str, bool, &'e TreeEntry<'a>)> = old
        .iter()
        .map(|entry| (entry.name.as_ref(), false, entry))
        .chain(new.iter().map(|entry| (entry.name.as_ref(), true, entry)))
        .collect();
    // Stable: within a name, old entries stay before new ones, each side in its order.
    all.sort_by(|a, b| a.0.cmp(b.0));
    let last_of = |group: &[(&'e str, bool, &'e TreeEntry<'a>)], new_side: bool| {
        group
            .iter()
            .rev()
            .find(|(_, is_new, _)| *is_new == new_side)
            .map(|(_, _, entry)| *entry)
    };
    all.chunk_by(|a, b| a.0 == b.0)
        .filter_map(|group| {
            let (name, _, _) = group.first()?;
            Some((*name, last_of(group, false), last_of(group, true)))
        })
        .collect()
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        return name.to_owned();
    }
    let mut path = String::with_capacity(prefix.len() + 1 + name.len());
    path.push_str(prefix);
    path.push('/');
    path.push_str(name);
    path
}
