//! The working tree as a list of files: what `keel callgraph` and `keel impact` read when
//! no `--rev` is given.
//!
//! Owns: walking the working tree as git would list it (ignore rules, `.git/info/exclude`
//! and the global excludes honoured; hidden entries and the `.git` folder skipped),
//! hashing each wanted file into the object store's memory ([`ObjectStore::insert_blob`])
//! and returning `(path, blob id)` sorted by path; the wanted files whose path is not UTF-8
//! are not read but listed by their bytes ([`WorktreeListing::not_utf8`]), so the caller
//! can name them.
//! Does not own: which files are wanted (the caller's filter: `keel-queries` knows the
//! languages) or anything derived from them.
//!
//! [`ObjectStore::insert_blob`]: crate::objects::ObjectStore::insert_blob

use crate::database::{EngineError, KeelDatabase};
use crate::oid::Oid;
use std::path::Path;

/// One file read from the working tree: its path, blob id and file identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeFile {
    pub path: String,
    pub blob: Oid,
    /// Device and inode on Unix (`None` elsewhere): a file replaced by another with the
    /// same bytes is a different file.
    pub identity: Option<(u64, u64)>,
}

/// The wanted files of the working tree: those read, and those whose path is not UTF-8
/// (keel reads paths as text), listed by their bytes relative to the root, sorted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorktreeListing {
    pub files: Vec<WorktreeFile>,
    pub not_utf8: Vec<Vec<u8>>,
}

impl KeelDatabase {
    /// The wanted files of the working tree (`wanted` sees each `/`-separated path relative
    /// to its root), hashed into memory, sorted by path. Errors name the file that could
    /// not be read.
    pub fn worktree_files(
        &self,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<(String, Oid)>, EngineError> {
        Ok(self
            .worktree_snapshot(wanted)?
            .into_iter()
            .map(|file| (file.path, file.blob))
            .collect())
    }

    /// [`Self::worktree_files`] with each file's identity: read twice, equal snapshots
    /// mean no source changed in between (content or identity).
    pub fn worktree_snapshot(
        &self,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<WorktreeFile>, EngineError> {
        Ok(self.worktree_listing(wanted)?.files)
    }

    /// [`Self::worktree_snapshot`], and the wanted files it could not name: those whose
    /// path is not UTF-8 (`wanted` sees such a path with each bad byte as U+FFFD).
    pub fn worktree_listing(
        &self,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<WorktreeListing, EngineError> {
        let Some(root) = self.work_dir() else {
            return Err(EngineError::NoWorkTree {
                path: self.git_dir_path().to_owned(),
            });
        };
        let mut files = Vec::new();
        let mut not_utf8 = Vec::new();
        let walk = ignore::WalkBuilder::new(root)
            .require_git(false)
            .sort_by_file_name(std::cmp::Ord::cmp)
            .build();
        for entry in walk {
            let entry = entry.map_err(|err| EngineError::Unreadable {
                path: root.to_owned(),
                reason: err.to_string(),
            })?;
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                continue;
            }
            let Some(relative) = relative_path(root, entry.path()) else {
                if let Some(bytes) = relative_bytes(root, entry.path())
                    && wanted(&String::from_utf8_lossy(&bytes))
                {
                    not_utf8.push(bytes);
                }
                continue;
            };
            if !wanted(&relative) {
                continue;
            }
            let unreadable = |err: std::io::Error| EngineError::Unreadable {
                path: entry.path().to_owned(),
                reason: err.to_string(),
            };
            let bytes = std::fs::read(entry.path()).map_err(unreadable)?;
            let metadata = std::fs::metadata(entry.path()).map_err(unreadable)?;
            files.push(WorktreeFile {
                path: relative,
                blob: self.objects_store().insert_blob(&bytes),
                identity: identity(&metadata),
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        not_utf8.sort();
        Ok(WorktreeListing { files, not_utf8 })
    }
}

/// `path` under `root` as `/`-separated bytes (a path that is not UTF-8 included), as
/// the platform spells them; `None` when it is not under `root`.
fn relative_bytes(root: &Path, path: &Path) -> Option<Vec<u8>> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Vec<&[u8]> = relative
        .components()
        .map(|component| component.as_os_str().as_encoded_bytes())
        .collect();
    Some(parts.join(&b'/'))
}

/// `path` under `root` as a `/`-separated relative path; `None` when it is not valid
/// UTF-8 (git paths keel reads are text).
pub(crate) fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|component| component.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

#[cfg(unix)]
fn identity(metadata: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn identity(_metadata: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}
