//! keel's cache folder, `<git common folder>/keel/`: what can be wrong with it, how its
//! files are written, and what `keel cache info` and `clear` find in it.
//!
//! The memo and the kept answers in it are optional: a folder keel cannot use (a stray
//! file at its path, a folder another user owns or that has mode 000 after a `sudo` or
//! container run, a full or read-only disk) is a [`CacheTrouble`], never a repository
//! error. Commands answer cold and say so once; only `keel cache clear`, whose whole job
//! is the folder, fails on it.
//!
//! Owns: the folder's path and its files' names, what `keel cache info` and `clear` find
//! there (the writer's temporary files included).
//! Does not own: what the memo and the kept answers hold (`memo`, `kept_lint`), or one
//! file's troubles, reading and atomic writing (`cache_file`).

pub use crate::cache_file::{CacheAction, CacheTrouble};
use crate::cache_file::{is_temporary_name, open_folder};
pub(crate) use crate::cache_file::{read_file, remove_file, write_atomically};
use crate::database::{EngineError, KeelDatabase};
use std::path::PathBuf;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_file::{TEMPORARY_PREFIX, TEMPORARY_RANDOM, TEMPORARY_SUFFIX};

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
