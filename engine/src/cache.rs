//! keel's cache folder, `<git common folder>/keel/`: what can be wrong with it, how its
//! files are written, and what `keel cache info` and `clear` find in it.
//!
//! The memo and the kept answers in it are optional: a folder keel cannot use (a stray
//! file at its path, a folder another user owns or that has mode 000 after a `sudo` or
//! container run, a full or read-only disk) is a [`CacheTrouble`], never a repository
//! error. Commands answer cold and say so once; only `keel cache clear`, whose whole job
//! is the folder, fails on it.
//!
//! Owns: the folder's path and its files' names, the troubles and their repairs, the
//! atomic writer (a temporary file named `.keel-XXXXXX.tmp` in the folder, then a
//! rename) and the naming of its temporary files — `tempfile`'s default `.tmpXXXXXX`
//! too, which builds before this one used — so `clear` removes what a crash at the rename
//! left and nothing else.
//! Does not own: what the memo and the kept answers hold (`memo`, `kept_lint`).

use crate::database::{EngineError, KeelDatabase};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The memo's file name in the cache folder.
pub(crate) const MEMO_FILE: &str = "memo.bin";

/// The kept answers' file names: `<STEM>.bin`, `<STEM>-<work tree>.bin`.
pub(crate) const KEPT_LINT_STEM: &str = "lint";

/// Is `name` a kept answer's file name (`lint.bin`, `lint-<work tree>.bin`)?
fn is_kept_lint_name(name: &str) -> bool {
    name.strip_suffix(".bin")
        .and_then(|name| name.strip_prefix(KEPT_LINT_STEM))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
}

/// The folder's name in the git common folder.
const FOLDER: &str = "keel";

/// The writer's temporary files: `<PREFIX><RANDOM alphanumerics><SUFFIX>`.
const TEMPORARY_PREFIX: &str = ".keel-";
const TEMPORARY_SUFFIX: &str = ".tmp";
const TEMPORARY_RANDOM: usize = 6;

/// How builds before [`TEMPORARY_PREFIX`] named them (`tempfile`'s default): `.tmp` and
/// six alphanumerics.
const LEGACY_TEMPORARY_PREFIX: &str = ".tmp";

/// What keel was doing when the file system refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheAction {
    Read,
    Write,
    Remove,
}

impl std::fmt::Display for CacheAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Read => "read",
            Self::Write => "written",
            Self::Remove => "removed",
        })
    }
}

/// Why keel cannot use its cache folder or a file in it. Each names the path, what is
/// wrong (with the OS's own reason) and the repair.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheTrouble {
    /// Something other than a folder is at the folder's path.
    #[error(
        "{folder}: not a folder ({reason}), where keel keeps its memo and kept answers; repair: remove it (`rm {folder}`), keel makes the folder again"
    )]
    NotAFolder { folder: PathBuf, reason: String },
    /// The OS refused this user (the folder or file belongs to another user, or its mode
    /// shuts this user out).
    #[error(
        "{path}: cannot be {action}: {reason}; repair: give the folder back to your user (`sudo chown -R \"$USER\" {folder}`) or remove it (`sudo rm -rf {folder}`: it holds only keel's cache)"
    )]
    Denied {
        folder: PathBuf,
        path: PathBuf,
        action: CacheAction,
        reason: String,
    },
    /// Any other failure: a full or read-only disk, an I/O error, a folder where a file
    /// belongs.
    #[error(
        "{path}: cannot be {action}: {reason}; repair: remove the folder (`rm -rf {folder}`: it holds only keel's cache); if that fails too, check the disk (full, or mounted read-only)"
    )]
    Failed {
        folder: PathBuf,
        path: PathBuf,
        action: CacheAction,
        reason: String,
    },
}

impl CacheTrouble {
    /// The trouble `err` shows while `action` on `path` in `folder`: a stray file at the
    /// folder's path explains any failure inside it.
    pub(crate) fn of(
        folder: &Path,
        path: &Path,
        action: CacheAction,
        err: &std::io::Error,
    ) -> Self {
        let reason = err.to_string();
        let folder = folder.to_owned();
        if std::fs::metadata(&folder).is_ok_and(|meta| !meta.is_dir()) {
            return Self::NotAFolder { folder, reason };
        }
        let path = path.to_owned();
        if err.kind() == std::io::ErrorKind::PermissionDenied {
            Self::Denied {
                folder,
                path,
                action,
                reason,
            }
        } else {
            Self::Failed {
                folder,
                path,
                action,
                reason,
            }
        }
    }

    /// The path the trouble is with.
    pub fn path(&self) -> &Path {
        match self {
            Self::NotAFolder { folder, .. } => folder,
            Self::Denied { path, .. } | Self::Failed { path, .. } => path,
        }
    }

    /// Is the trouble with the folder itself (then no file in it can be written either),
    /// not with one file in it?
    pub fn with_the_folder(&self) -> bool {
        match self {
            Self::NotAFolder { .. } => true,
            Self::Denied { folder, path, .. } | Self::Failed { folder, path, .. } => folder == path,
        }
    }
}

/// Why reading or writing the memo or a kept answer failed: the cache folder (which a
/// command answers without), or the repository itself (which it cannot).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error(transparent)]
    Cache(#[from] CacheTrouble),
    #[error(transparent)]
    Repository(#[from] EngineError),
}

/// What `keel cache clear` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheCleared {
    /// Whether the memo was there and is gone.
    pub memo: bool,
    /// The kept answers removed.
    pub kept: Vec<PathBuf>,
    /// The temporary files removed (a crash at the rename left them).
    pub temporary: Vec<PathBuf>,
    /// What could not be removed, each with the OS's reason.
    pub troubles: Vec<CacheTrouble>,
}

/// A temporary file the writer left (a crash between its write and its rename).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemporaryFile {
    pub path: PathBuf,
    pub bytes: u64,
}

impl KeelDatabase {
    /// The cache folder: in the common git folder, shared by linked work trees.
    pub fn cache_folder(&self) -> Result<PathBuf, EngineError> {
        let Some(repo) = self.objects_store().fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        Ok(repo.common_dir().join(FOLDER))
    }

    /// Removes the memo, every work tree's kept answer and the writer's temporary files;
    /// a file keel did not name (or a stray file at the folder's path) is left alone. What
    /// cannot be removed is listed, and the rest is removed all the same.
    pub fn clear_cache(&self) -> Result<CacheCleared, EngineError> {
        let folder = self.cache_folder()?;
        let mut cleared = CacheCleared::default();
        let entries = match open_folder(&folder) {
            Ok(Some(entries)) => entries,
            Ok(None) => return Ok(cleared),
            Err(trouble) => {
                cleared.troubles.push(trouble);
                return Ok(cleared);
            }
        };
        for entry in entries {
            let path = match entry {
                Ok(entry) => entry.path(),
                Err(err) => {
                    let trouble = CacheTrouble::of(&folder, &folder, CacheAction::Read, &err);
                    cleared.troubles.push(trouble);
                    continue;
                }
            };
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let Some(name) = name else { continue };
            let list = if name == MEMO_FILE {
                None
            } else if is_kept_lint_name(&name) {
                Some(&mut cleared.kept)
            } else if is_temporary_name(&name) {
                Some(&mut cleared.temporary)
            } else {
                continue;
            };
            match std::fs::remove_file(&path) {
                Ok(()) => match list {
                    Some(list) => list.push(path),
                    None => cleared.memo = true,
                },
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => {
                    let trouble = CacheTrouble::of(&folder, &path, CacheAction::Remove, &err);
                    cleared.troubles.push(trouble);
                }
            }
        }
        cleared.kept.sort();
        cleared.temporary.sort();
        cleared.troubles.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(cleared)
    }

    /// What is wrong with the cache folder, if anything, and the writer's temporary files
    /// in it, for `keel cache info`.
    pub fn cache_state(&self) -> Result<(Option<CacheTrouble>, Vec<TemporaryFile>), EngineError> {
        let folder = self.cache_folder()?;
        let entries = match open_folder(&folder) {
            Ok(Some(entries)) => entries,
            Ok(None) => return Ok((None, Vec::new())),
            Err(trouble) => return Ok((Some(trouble), Vec::new())),
        };
        let mut temporary: Vec<TemporaryFile> = entries
            .filter_map(Result::ok)
            .filter(|entry| is_temporary_name(&entry.file_name().to_string_lossy()))
            .map(|entry| TemporaryFile {
                bytes: entry.metadata().map_or(0, |meta| meta.len()),
                path: entry.path(),
            })
            .collect();
        temporary.sort_by(|a, b| a.path.cmp(&b.path));
        Ok((None, temporary))
    }
}

/// The cache folder's entries; `None` when there is no folder yet.
fn open_folder(folder: &Path) -> Result<Option<std::fs::ReadDir>, CacheTrouble> {
    match std::fs::read_dir(folder) {
        Ok(entries) => Ok(Some(entries)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(CacheTrouble::of(folder, folder, CacheAction::Read, &err)),
    }
}

/// Reads `path` in the cache folder: `None` when there is no such file.
pub(crate) fn read_file(path: &Path) -> Result<Option<Vec<u8>>, CacheTrouble> {
    let folder = folder_of(path);
    // The folder first: when it is what keeps keel out, the trouble names it, not the file.
    open_folder(folder)?;
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(CacheTrouble::of(folder, path, CacheAction::Read, &err)),
    }
}

/// Removes `path` in the cache folder; `false` when there was none.
pub(crate) fn remove_file(path: &Path) -> Result<bool, CacheTrouble> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(CacheTrouble::of(
            folder_of(path),
            path,
            CacheAction::Remove,
            &err,
        )),
    }
}

/// Writes `header` and `body` to `path` through a temporary file in the same folder and a
/// rename: a reader sees the old file or the new one, never a mix.
pub(crate) fn write_atomically(path: &Path, header: &str, body: &[u8]) -> Result<(), CacheTrouble> {
    let folder = folder_of(path);
    let in_folder =
        |err: std::io::Error| CacheTrouble::of(folder, folder, CacheAction::Write, &err);
    std::fs::create_dir_all(folder).map_err(in_folder)?;
    let mut temporary = tempfile::Builder::new()
        .prefix(TEMPORARY_PREFIX)
        .suffix(TEMPORARY_SUFFIX)
        .rand_bytes(TEMPORARY_RANDOM)
        .tempfile_in(folder)
        .map_err(in_folder)?;
    temporary
        .write_all(header.as_bytes())
        .and_then(|()| temporary.write_all(body))
        .map_err(|err| CacheTrouble::of(folder, temporary.path(), CacheAction::Write, &err))?;
    temporary
        .persist(path)
        .map_err(|err| CacheTrouble::of(folder, path, CacheAction::Write, &err.error))?;
    Ok(())
}

/// The folder a cache file is in.
fn folder_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// Is `name` a temporary file of the writer (this build's naming or the one before)?
fn is_temporary_name(name: &str) -> bool {
    let random = |middle: &str| {
        middle.len() == TEMPORARY_RANDOM && middle.bytes().all(|b| b.is_ascii_alphanumeric())
    };
    let current = name
        .strip_prefix(TEMPORARY_PREFIX)
        .and_then(|rest| rest.strip_suffix(TEMPORARY_SUFFIX))
        .is_some_and(random);
    let legacy = name
        .strip_prefix(LEGACY_TEMPORARY_PREFIX)
        .is_some_and(random);
    current || legacy
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_the_writers_own_and_nothing_like_them() {
        for name in [".keel-a1B2c3.tmp", ".tmpZ9y8X7"] {
            assert!(is_temporary_name(name), "{name}");
        }
        for name in [
            "memo.bin",
            "lint.bin",
            ".keel-ab.tmp",
            ".keel-a1B2c3.tmpx",
            ".keel-a1-2c3.tmp",
            ".tmpfoo.txt",
            ".tmpZ9y8X",
            "notes.txt",
        ] {
            assert!(!is_temporary_name(name), "{name}");
        }
    }

    #[test]
    fn the_writer_names_its_temporary_files_as_clear_finds_them() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let temporary = tempfile::Builder::new()
            .prefix(TEMPORARY_PREFIX)
            .suffix(TEMPORARY_SUFFIX)
            .rand_bytes(TEMPORARY_RANDOM)
            .tempfile_in(folder.path())
            .expect("a temporary file");
        let name = temporary.path().file_name().expect("a name");
        assert!(is_temporary_name(&name.to_string_lossy()), "{name:?}");
    }

    #[test]
    fn a_stray_file_at_the_folders_path_is_named_as_such() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let folder = dir.path().join("keel");
        std::fs::write(&folder, "stray\n").expect("a stray file");
        let memo = folder.join("memo.bin");
        let trouble = read_file(&memo).expect_err("nothing can be read under a file");
        assert!(
            matches!(&trouble, CacheTrouble::NotAFolder { folder: named, .. } if *named == folder),
            "{trouble:?}"
        );
        assert!(trouble.with_the_folder());
        let written = write_atomically(&memo, "h\n", b"body").expect_err("nor written");
        assert!(
            matches!(written, CacheTrouble::NotAFolder { .. }),
            "{written:?}"
        );
        assert_eq!(std::fs::read_to_string(&folder).expect("kept"), "stray\n");
    }
}
