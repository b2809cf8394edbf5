//! The working tree as a commit: what `keel lint --worktree` and `keel watch --worktree`
//! judge, so drift shows before the commit.
//!
//! Owns: reading every file git would commit with `git add -A` (tracked files as they
//! are on disk, untracked files that no ignore rule hides, deletions), building the git
//! trees that hold them in the object store's memory, and the in-memory commit on top of
//! HEAD whose tree they are ([`KeelDatabase::worktree_commit`]). Nothing is written to the
//! repository: no object, no index, no ref.
//! Does not own: judging it (lint judges whatever commit is the tip) or naming it in a
//! report (`keel` names the commit [`WORKTREE`]).
//!
//! Exact where git is: a file's blob id is `git hash-object`'s, a tree's id is the one
//! `git write-tree` would give the same entries (modes as git reads them with
//! `core.fileMode` on: the execute bit, links), so every folder nobody touched has HEAD's
//! tree id and diffs as unchanged without being read. Submodules keep HEAD's commit; a nested repository that
//! HEAD does not hold is skipped (`git add -A` would record its commit). Line endings are
//! read as stored on disk (no `core.autocrlf` conversion) and no clean filter runs. An
//! editor's unsaved buffers (`ChangeEvent::Buffer`, from `keel lsp`) stand over the files
//! at their paths.

use crate::database::{EngineError, KeelDatabase};
use crate::inputs::Commit;
use crate::oid::Oid;
use crate::worktree::relative_path;
use gix::objs::tree::{Entry, EntryKind, EntryMode};
use salsa::{Durability, Setter as _};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// How reports name the working tree's in-memory commit.
pub const WORKTREE: &str = "worktree";

/// The message of the working tree's commit (its subject is what a report shows).
const WORKTREE_MESSAGE: &str = "the working tree (uncommitted changes)\n";

/// Whether the working tree's files on disk are read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DiskRead {
    /// Walk and stat them (what a save, a checkout or another program may have moved).
    Again,
    /// Take them as the last read found them: only the editor's buffers moved.
    AsLast,
}

/// One file as a tree entry would hold it.
use crate::worktree_files::{FileStamp, Files};

impl KeelDatabase {
    /// The working tree as a commit whose one parent is HEAD, made an input (kept in
    /// memory only); `None` when the working tree equals HEAD's tree or HEAD is unborn.
    /// `disk`: read the files on disk again, or take them as the last read found them
    /// (only the buffers moved; read anyway when nothing was read yet or HEAD moved).
    pub(crate) fn worktree_commit(&mut self, disk: DiskRead) -> Result<Option<Oid>, EngineError> {
        let Some(root) = self.work_dir().map(Path::to_owned) else {
            return Err(EngineError::NoWorkTree {
                path: self.git_dir_path().to_owned(),
            });
        };
        let Some(head) = self.read_head()? else {
            return Ok(None);
        };
        let head_input = self.commit_input(head)?;
        let head_tree = head_input.tree(self);
        let committed = match self.worktree_files.head.take() {
            Some((tree, files)) if tree == head_tree => files,
            _ => self.flat_tree(head_tree)?,
        };
        let last = self.worktree_files.disk.take();
        let read = match last {
            Some((tree, files)) if tree == head_tree && disk == DiskRead::AsLast => Ok(files),
            _ => self.read_worktree(&root, &committed),
        };
        let mut on_disk = match read {
            Ok(files) => files,
            Err(err) => {
                self.worktree_files.head = Some((head_tree, committed));
                return Err(err);
            }
        };
        self.worktree_files.disk = Some((head_tree, on_disk.clone()));
        self.overlay_buffers(&mut on_disk);
        let unchanged = on_disk == committed;
        self.worktree_files.head = Some((head_tree, committed));
        if unchanged {
            self.forget_worktree_commit();
            return Ok(None);
        }
        let tree = self.build_tree(&on_disk);
        let time = head_input.committer_time(self);
        let text = format!(
            "tree {tree}\nparent {head}\nauthor keel <keel@worktree> {time} +0000\ncommitter keel <keel@worktree> {time} +0000\n\n{WORKTREE_MESSAGE}"
        );
        let id = self
            .objects_store()
            .object_id(gix::objs::Kind::Commit, text.as_bytes());
        if self.worktree_files.tip != Some(id) {
            self.forget_worktree_commit();
            let input = match self.commits.get(&id) {
                Some(&known) => known,
                None if disk == DiskRead::AsLast => self.editor_input(id, head_input, tree, time),
                None => Commit::builder(
                    id,
                    vec![head_input],
                    tree,
                    WORKTREE_MESSAGE.to_owned(),
                    time,
                    false,
                )
                .durability(Durability::HIGH)
                .new(&*self),
            };
            std::sync::Arc::make_mut(&mut self.commits).insert(id, input);
            self.remember_commits(&[input]);
            self.worktree_files.tip = Some(id);
        }
        Ok(Some(id))
    }

    /// The working tree's commit input after keystrokes, with these fields: one input,
    /// made at the first keystroke and set again (LOW durability: it moves with every
    /// edit), so what is memoized per commit is recomputed in place instead of once more
    /// per keystroke beside the memos of every earlier version. A read of the disk makes
    /// an immutable input per commit instead, as for any commit (see
    /// [`KeelDatabase::save_memo`], which writes no memo once this input exists).
    fn editor_input(&mut self, id: Oid, head: Commit, tree: Oid, time: i64) -> Commit {
        let Some(input) = self.worktree_files.input else {
            let input = Commit::builder(
                id,
                vec![head],
                tree,
                WORKTREE_MESSAGE.to_owned(),
                time,
                false,
            )
            .durability(Durability::LOW)
            .new(&*self);
            self.worktree_files.input = Some(input);
            return input;
        };
        input.set_id(self).with_durability(Durability::LOW).to(id);
        if input.tree(self) != tree {
            input
                .set_tree(self)
                .with_durability(Durability::LOW)
                .to(tree);
        }
        if *input.parents(self) != [head] {
            input
                .set_parents(self)
                .with_durability(Durability::LOW)
                .to(vec![head]);
        }
        if input.committer_time(self) != time {
            input
                .set_committer_time(self)
                .with_durability(Durability::LOW)
                .to(time);
        }
        input
    }

    /// Drops the working tree's commit from the known commits (HEAD itself is the
    /// working tree, or another commit takes its place): nothing descends from it, so the
    /// history stays HEAD's plus one commit however many edits an editor makes.
    fn forget_worktree_commit(&mut self) {
        let Some(previous) = self.worktree_files.tip.take() else {
            return;
        };
        if let Some(input) = std::sync::Arc::make_mut(&mut self.commits).remove(&previous) {
            self.forget_commits(&[input]);
        }
    }

    /// Every file of the tree `tree` by path, with its mode (submodules included).
    fn flat_tree(&self, tree: Oid) -> Result<Files, EngineError> {
        let Some(repo) = self.objects_store().fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let mut files = Files::new();
        let mut folders = vec![(String::new(), tree)];
        while let Some((prefix, oid)) = folders.pop() {
            let found = repo.find_tree(oid.0).map_err(|err| self.unreadable(&err))?;
            let decoded = found.decode().map_err(|err| self.unreadable(&err))?;
            for entry in &decoded.entries {
                let path = format!("{prefix}{}", entry.filename);
                if entry.mode.is_tree() {
                    folders.push((format!("{path}/"), Oid(entry.oid.to_owned())));
                } else {
                    files.insert(path, (entry.mode, Oid(entry.oid.to_owned())));
                }
            }
        }
        Ok(files)
    }

    /// The files `git add -A` would record, by path: the walk's (ignore rules honoured,
    /// hidden files included), the tracked files an ignore rule hides, HEAD's submodules.
    fn read_worktree(&mut self, root: &Path, committed: &Files) -> Result<Files, EngineError> {
        let submodules: HashSet<&str> = committed
            .iter()
            .filter(|(_, (mode, _))| mode.is_commit())
            .map(|(path, _)| path.as_str())
            .collect();
        let mut files = Files::new();
        for entry in committable_walk(root) {
            let entry = entry.map_err(|err| EngineError::Unreadable {
                path: root.to_owned(),
                reason: err.to_string(),
            })?;
            let Some(path) = relative_path(root, entry.path()) else {
                continue;
            };
            let Some(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() || path.is_empty() || in_submodule(&path, &submodules) {
                continue;
            }
            if let Some(file) = self.read_file(root, &path)? {
                files.insert(path, file);
            }
        }
        for (path, &(mode, oid)) in committed {
            if mode.is_commit() {
                files.insert(path.clone(), (mode, oid));
            } else if !files.contains_key(path)
                && let Some(file) = self.read_file(root, path)?
            {
                files.insert(path.clone(), file);
            }
        }
        Ok(files)
    }

    /// Puts each unsaved buffer over the file at its path (a regular file unless the
    /// path already holds an executable one).
    /// The blobs of the buffers the last overlay held and this one does not are dropped
    /// from the object store (an editor's session hashes a version per keystroke), unless
    /// a file on disk or HEAD holds the same bytes.
    fn overlay_buffers(&mut self, files: &mut Files) {
        let mut blobs = std::collections::HashSet::new();
        for (path, text) in &self.buffers {
            let mode = match files.get(path) {
                Some((mode, _)) if *mode == EntryKind::BlobExecutable.into() => *mode,
                _ => EntryKind::Blob.into(),
            };
            let oid = self.objects_store().insert_blob(text);
            blobs.insert(oid);
            files.insert(path.clone(), (mode, oid));
        }
        let previous = std::mem::replace(&mut self.worktree_files.buffer_blobs, blobs);
        let held = |oid: &Oid| {
            self.worktree_files.buffer_blobs.contains(oid) || self.worktree_files.holds(oid)
        };
        let gone: Vec<Oid> = previous.into_iter().filter(|oid| !held(oid)).collect();
        self.objects_store().forget_blobs(&gone);
    }

    /// One file as a tree entry: `None` when it is absent, a folder (a nested repository
    /// HEAD does not hold) or neither a file nor a link. A file whose size, modification
    /// time, inode and mode are those it had when last read is not read again (as git's
    /// index does), unless it was read within `RACY` of its modification (it may have
    /// changed again within the clock's grain).
    fn read_file(
        &mut self,
        root: &Path,
        path: &str,
    ) -> Result<Option<(EntryMode, Oid)>, EngineError> {
        let full: PathBuf = root.join(path);
        let unreadable = |err: std::io::Error| EngineError::Unreadable {
            path: full.clone(),
            reason: err.to_string(),
        };
        let metadata = match std::fs::symlink_metadata(&full) {
            Ok(metadata) => metadata,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(unreadable(err)),
        };
        let stamp = FileStamp::of(&metadata);
        if let Some(&(known, mode, oid)) = self.worktree_files.stamps.get(path)
            && known == stamp
        {
            return Ok(Some((mode, oid)));
        }
        let read = self.read_contents(&full, &metadata)?;
        if let Some((mode, oid)) = read
            && stamp.settled()
        {
            self.worktree_files
                .stamps
                .insert(path.to_owned(), (stamp, mode, oid));
        }
        Ok(read)
    }

    /// The file at `full` (a link's target text), hashed into the object store.
    fn read_contents(
        &self,
        full: &Path,
        metadata: &std::fs::Metadata,
    ) -> Result<Option<(EntryMode, Oid)>, EngineError> {
        let unreadable = |err: std::io::Error| EngineError::Unreadable {
            path: full.to_owned(),
            reason: err.to_string(),
        };
        let (kind, bytes) = if metadata.file_type().is_symlink() {
            let target = std::fs::read_link(full).map_err(unreadable)?;
            (EntryKind::Link, link_bytes(&target))
        } else if metadata.is_file() {
            let bytes = std::fs::read(full).map_err(unreadable)?;
            (file_kind(metadata), bytes)
        } else {
            return Ok(None);
        };
        Ok(Some((
            kind.into(),
            self.objects_store().insert_blob(&bytes),
        )))
    }

    /// The root tree holding `files`, every folder kept in the object store's memory.
    fn build_tree(&self, files: &Files) -> Oid {
        let mut root = Folder::default();
        for (path, &(mode, oid)) in files {
            root.insert(path, mode, oid);
        }
        root.store(self)
    }
}

/// The files and folders under `top` that `git add -A` would see: no ignore rule hides
/// them (hidden files included), outside the `.git` folder and outside any nested
/// repository. The one walk both the working tree's commit and `keel watch` use.
pub(crate) fn committable_walk(top: &Path) -> ignore::Walk {
    ignore::WalkBuilder::new(top)
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| {
            let nested_repository = entry.depth() > 0
                && entry.file_type().is_some_and(|kind| kind.is_dir())
                && entry.path().join(".git").exists();
            entry.file_name() != ".git" && !nested_repository
        })
        .build()
}

/// A folder of the tree being built.
#[derive(Default)]
struct Folder {
    files: Vec<(String, EntryMode, Oid)>,
    folders: BTreeMap<String, Folder>,
}

impl Folder {
    fn insert(&mut self, path: &str, mode: EntryMode, oid: Oid) {
        match path.split_once('/') {
            Some((name, rest)) => self
                .folders
                .entry(name.to_owned())
                .or_default()
                .insert(rest, mode, oid),
            None => self.files.push((path.to_owned(), mode, oid)),
        }
    }

    /// Stores this folder (its subfolders first) and returns its tree id.
    fn store(&self, db: &KeelDatabase) -> Oid {
        let mut entries: Vec<Entry> = self
            .files
            .iter()
            .map(|(name, mode, oid)| Entry {
                mode: *mode,
                filename: name.as_str().into(),
                oid: oid.0,
            })
            .collect();
        for (name, folder) in &self.folders {
            entries.push(Entry {
                mode: EntryKind::Tree.into(),
                filename: name.as_str().into(),
                oid: folder.store(db).0,
            });
        }
        entries.sort();
        db.objects_store().insert_tree(&gix::objs::Tree { entries })
    }
}

/// Is `path` inside one of HEAD's submodules (whose files git does not record)?
fn in_submodule(path: &str, submodules: &HashSet<&str>) -> bool {
    let mut prefix = path;
    while let Some((parent, _)) = prefix.rsplit_once('/') {
        if submodules.contains(parent) {
            return true;
        }
        prefix = parent;
    }
    submodules.contains(path)
}

/// A link's target as git stores it: its bytes.
#[cfg(unix)]
fn link_bytes(target: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    target.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn link_bytes(target: &Path) -> Vec<u8> {
    target.to_string_lossy().replace('\\', "/").into_bytes()
}

/// A regular file's kind: executable when any execute bit is set (git's rule).
#[cfg(unix)]
fn file_kind(metadata: &std::fs::Metadata) -> EntryKind {
    use std::os::unix::fs::PermissionsExt;
    if metadata.permissions().mode() & 0o111 != 0 {
        EntryKind::BlobExecutable
    } else {
        EntryKind::Blob
    }
}

#[cfg(not(unix))]
fn file_kind(_metadata: &std::fs::Metadata) -> EntryKind {
    EntryKind::Blob
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChangeEvent;
    use crate::inputs::Tip;
    use keel_fixtures::{FixtureRepo, pinned_git};

    /// The tree `git add -A` then `git write-tree` give, on a scratch index (the
    /// repository's own index is left alone).
    fn git_add_all_tree(repo: &FixtureRepo) -> String {
        let index = repo.path().join(".git/keel-test-index");
        let run = |args: &[&str]| {
            let output = pinned_git(repo.path())
                .env("GIT_INDEX_FILE", &index)
                .args(args)
                .output()
                .expect("git runs");
            assert!(output.status.success(), "git {args:?}: {output:?}");
            String::from_utf8(output.stdout).expect("git prints ASCII ids")
        };
        run(&["read-tree", "HEAD"]);
        run(&["add", "-A"]);
        let tree = run(&["write-tree"]).trim().to_owned();
        std::fs::remove_file(&index).expect("the scratch index exists");
        tree
    }

    #[cfg(unix)]
    fn set_mode(repo: &FixtureRepo, path: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let full = repo.path().join(path);
        std::fs::set_permissions(full, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    #[cfg(unix)]
    fn the_working_tree_commit_holds_the_tree_git_add_all_writes() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        repo.write("a.py", "x = 1\n")
            .and_then(|r| r.write(".gitignore", "*.log\nforced.log\n"))
            .and_then(|r| r.write("dir/b.py", "b = 1\n"))
            .and_then(|r| r.write("keep/c.txt", "c\n"))
            .and_then(|r| r.write("tool.sh", "#!/bin/sh\n"))
            .and_then(|r| r.write("forced.log", "tracked though ignored\n"))
            .expect("write");
        set_mode(&repo, "tool.sh", 0o755);
        std::os::unix::fs::symlink("a.py", repo.path().join("link.py")).expect("symlink");
        repo.git(&["add", "-f", "forced.log"]).expect("force-add");
        let head = repo.commit("first").expect("commit");

        let mut db = KeelDatabase::open(repo.path()).expect("open");
        let clean = db
            .apply_changes(&[ChangeEvent::Worktree])
            .expect("worktree");
        assert_eq!(clean.worktree, None, "a clean working tree is HEAD");
        let tip = Tip::get(&db).commit(&db).map(|c| c.id(&db).to_string());
        assert_eq!(tip.as_deref(), Some(head.as_str()));

        repo.write("a.py", "x = 2\n")
            .and_then(|r| r.write("new/d.py", "d = 1\n"))
            .and_then(|r| r.write(".spec/n/spec.md", "---\ncode: []\n---\n"))
            .and_then(|r| r.write("debug.log", "ignored, untracked\n"))
            .and_then(|r| r.write("forced.log", "changed\n"))
            .and_then(|r| r.remove("keep/c.txt"))
            .expect("edit");
        set_mode(&repo, "dir/b.py", 0o755);
        std::fs::remove_file(repo.path().join("link.py")).expect("unlink");
        std::os::unix::fs::symlink("dir/b.py", repo.path().join("link.py")).expect("relink");
        let expected = git_add_all_tree(&repo);

        let moved = db
            .apply_changes(&[ChangeEvent::Worktree])
            .expect("worktree");
        let id = moved.worktree.expect("a dirty working tree is a commit");
        let commit = db.commits[&id];
        assert_eq!(commit.tree(&db).to_string(), expected);
        assert_eq!(commit.parents(&db).len(), 1);
        assert_eq!(commit.parents(&db)[0].id(&db).to_string(), head);
        assert!(moved.tip_moved);
        assert_eq!(Tip::get(&db).commit(&db), Some(commit));

        let again = db
            .apply_changes(&[ChangeEvent::Worktree])
            .expect("worktree");
        assert_eq!(
            again.worktree,
            Some(id),
            "the same working tree is the same commit"
        );
        assert!(!again.tip_moved, "and moves nothing");
        let head_again = db.apply_changes(&[ChangeEvent::TipMoved]).expect("tip");
        assert!(head_again.tip_moved, "a tip move returns to HEAD");
    }

    #[test]
    fn a_nested_repository_head_does_not_hold_is_left_out() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        repo.write("a.py", "x = 1\n").expect("write");
        repo.commit("first").expect("commit");
        let nested = FixtureRepo::create_in(&repo.path().join("vendor/lib")).expect("nested");
        nested.write("lib.py", "y = 1\n").expect("write");
        repo.write("b.py", "b = 1\n").expect("write");

        let mut db = KeelDatabase::open(repo.path()).expect("open");
        let id = db
            .apply_changes(&[ChangeEvent::Worktree])
            .expect("worktree")
            .worktree
            .expect("b.py is new");
        let tree = db.commits[&id].tree(&db);
        let names: Vec<String> = db
            .objects_store()
            .tree(tree)
            .expect("the built tree reads back")
            .into_iter()
            .map(|item| item.name)
            .collect();
        assert_eq!(names, ["a.py", "b.py"]);
    }
}
