//! Paths as keel compares them: real (symlinks resolved) and absolute, so a repository
//! named `.`, relatively, from a subfolder or through a symlink is one place.
//!
//! Owns: that one rule. Does not own: finding a repository (`database`) or what a path
//! is compared with (the watcher, the sessions' repositories).

use std::path::{Path, PathBuf};

/// `path` with symlinks resolved, absolute; when it cannot be resolved (it does not
/// exist), its absolute form; as given when even that fails.
pub(crate) fn real_path(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_owned())
}
