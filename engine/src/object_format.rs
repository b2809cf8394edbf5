//! The object format git made a repository in, read before keel opens it: keel reads
//! SHA-1 repositories only, and a SHA-256 one is named as such rather than called "not a
//! repository".
//!
//! Owns: finding a SHA-256 repository at or above a folder (its `extensions.objectFormat`,
//! read from the common git folder's `config`) and the branch its refusal names. Does not
//! own: the refusal's wording (`database::EngineError`) or who asks (opening a repository,
//! reading a session's repositories).

use std::path::{Path, PathBuf};

/// A SHA-256 repository found at or above a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sha256Repository {
    /// Its working tree, or its git folder when bare.
    pub(crate) path: PathBuf,
    /// The branch HEAD names, if it names one.
    pub(crate) branch: Option<String>,
}

/// The SHA-256 repository at or above `real`; `None` for any other folder, repository
/// or not.
pub(crate) fn sha256_repository(real: &Path) -> Option<Sha256Repository> {
    let (found, _trust) = gix::discover::upwards(real).ok()?;
    let (git_dir, work_dir) = found.into_repository_and_work_tree_directories();
    let format = object_format(&git_dir)?;
    format
        .eq_ignore_ascii_case("sha256")
        .then(|| Sha256Repository {
            path: work_dir.unwrap_or_else(|| git_dir.clone()),
            branch: head_branch(&git_dir),
        })
}

/// The `extensions.objectFormat` of the repository whose git folder is `git_dir` (read
/// from its common folder's `config`, which a linked worktree shares), if it sets one.
fn object_format(git_dir: &Path) -> Option<String> {
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(relative) => git_dir.join(relative.trim()),
        Err(_) => git_dir.to_owned(),
    };
    let config =
        gix::config::File::from_path_no_includes(common.join("config"), gix::config::Source::Local)
            .ok()?;
    config
        .string("extensions.objectFormat")
        .map(|format| format.to_string())
}

/// The branch HEAD names in the git folder `git_dir`.
fn head_branch(git_dir: &Path) -> Option<String> {
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_owned)
}
