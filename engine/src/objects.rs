//! [`ObjectStore`]: reads git objects by id through gix.
//!
//! Owns: blob bytes, tree entries and tree listings by object id. An object id names
//! immutable content, so every method here is a pure function of its arguments: queries
//! may call it and memoize the answer without any input to invalidate it.
//! Does not own: refs, HEAD or the working tree (they move; the database reads them into
//! inputs), nor any diff (`keel-queries` pins the diff).

use crate::oid::Oid;
use std::sync::{Arc, Mutex, PoisonError};

/// What a tree entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A regular or executable file, or a symbolic link (its target is its text).
    File,
    /// A folder.
    Tree,
    /// A submodule's commit.
    Submodule,
}

/// One entry of a tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TreeItem {
    pub name: String,
    pub kind: EntryKind,
    pub oid: Oid,
}

/// An object that could not be read: the repository is corrupt or incomplete.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("cannot read git object {oid}: {reason}")]
pub struct ObjectError {
    pub oid: Oid,
    pub reason: String,
}

/// Content-addressed reads from one repository's object database (or from none, for a
/// database opened without a repository: every read then fails).
pub struct ObjectStore {
    repo: Option<Mutex<gix::Repository>>,
}

impl ObjectStore {
    pub(crate) fn new(repo: gix::Repository) -> Self {
        Self {
            repo: Some(Mutex::new(repo)),
        }
    }

    pub(crate) fn empty() -> Self {
        Self { repo: None }
    }

    fn with_repo<T>(
        &self,
        oid: Oid,
        read: impl FnOnce(&gix::Repository) -> Result<T, ObjectError>,
    ) -> Result<T, ObjectError> {
        let Some(repo) = &self.repo else {
            return Err(ObjectError {
                oid,
                reason: "no repository is open".to_owned(),
            });
        };
        // A panic while holding the lock cannot leave the repository handle half-updated:
        // reads only fill gix's object caches, which stay valid.
        let repo = repo.lock().unwrap_or_else(PoisonError::into_inner);
        read(&repo)
    }

    /// The bytes of a blob.
    pub fn blob(&self, oid: Oid) -> Result<Arc<[u8]>, ObjectError> {
        self.with_repo(oid, |repo| {
            let blob = repo.find_blob(oid.0).map_err(|e| object_error(oid, &e))?;
            Ok(Arc::from(blob.data.as_slice()))
        })
    }

    /// The entries of one tree, in git's order.
    pub fn tree(&self, oid: Oid) -> Result<Vec<TreeItem>, ObjectError> {
        self.with_repo(oid, |repo| {
            let tree = repo.find_tree(oid.0).map_err(|e| object_error(oid, &e))?;
            let decoded = tree.decode().map_err(|e| object_error(oid, &e))?;
            Ok(decoded
                .entries
                .iter()
                .map(|entry| TreeItem {
                    name: String::from_utf8_lossy(entry.filename).into_owned(),
                    kind: entry_kind(entry.mode),
                    oid: Oid(entry.oid.to_owned()),
                })
                .collect())
        })
    }
}

fn entry_kind(mode: gix::object::tree::EntryMode) -> EntryKind {
    if mode.is_tree() {
        EntryKind::Tree
    } else if mode.is_commit() {
        EntryKind::Submodule
    } else {
        EntryKind::File
    }
}

fn object_error(oid: Oid, err: &dyn std::fmt::Display) -> ObjectError {
    ObjectError {
        oid,
        reason: err.to_string(),
    }
}
