//! The tree a call graph is built from: the working tree or the commit `--rev` names, its
//! files and its `keel.toml` (`keel callgraph` and `keel impact` read their base alike).
//!
//! Owns: resolving the base once, reading one of its files (never outside the repository:
//! not through `..`, not beyond a symbolic link), its settings and the files a graph
//! reads. Does not own: building the graph (`keel_queries::callgraph`).

use super::CommandError;
use keel_engine::settings::{SETTINGS_FILE, Settings};
use keel_engine::{Db, KeelDatabase, Oid};
use keel_queries::callgraph::is_graph_input;
use keel_queries::impact::patch::{PatchError, stays_inside};

/// What the base is read from: the working tree, or the commit `--rev` names (its id
/// and root tree), resolved once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Base {
    pub(crate) commit: Option<(Oid, Oid)>,
}

impl Base {
    pub(crate) fn of(db: &KeelDatabase, rev: Option<&str>) -> Result<Self, CommandError> {
        let commit = rev
            .map(|rev| {
                let id = db.resolve_commit(rev)?;
                Ok::<_, CommandError>((id, db.commit_tree(id)?))
            })
            .transpose()?;
        Ok(Self { commit })
    }

    /// The bytes of the base's file at `path`; `None` when the base has no such file.
    pub(crate) fn read(
        self,
        db: &KeelDatabase,
        path: &str,
    ) -> Result<Option<Vec<u8>>, CommandError> {
        let fsck = |err: keel_engine::objects::ObjectError| CommandError::objects(&err);
        match self.commit {
            Some((_, tree)) => keel_queries::callgraph::lookup(db, tree, path)
                .map_err(fsck)?
                .map(|entry| db.objects().blob(entry.oid).map(|bytes| bytes.to_vec()))
                .transpose()
                .map_err(fsck),
            None => match db.work_dir() {
                Some(root) => read_inside(root, path),
                None => Ok(None),
            },
        }
    }
}

/// The working tree's file at `path` (a path [`stays_inside`] the repository) as git
/// reads it: a symbolic link is its target's text, never what it points to; a path with
/// a link among its folders is refused, as `git apply` refuses a patch beyond one.
fn read_inside(root: &std::path::Path, path: &str) -> Result<Option<Vec<u8>>, CommandError> {
    debug_assert!(stays_inside(path), "the patch parser refuses {path}");
    let mut at = root.to_path_buf();
    let parts: Vec<&str> = path.split('/').collect();
    for (index, part) in parts.iter().enumerate() {
        at.push(part);
        let Ok(metadata) = std::fs::symlink_metadata(&at) else {
            return Ok(None);
        };
        let last = index + 1 == parts.len();
        if metadata.file_type().is_symlink() {
            if !last {
                return Err(PatchError::BeyondLink {
                    path: path.to_owned(),
                    link: parts[..=index].join("/"),
                }
                .into());
            }
            return Ok(Some(
                std::fs::read_link(&at)?
                    .as_os_str()
                    .as_encoded_bytes()
                    .to_vec(),
            ));
        }
        if last {
            return Ok(metadata.is_file().then(|| std::fs::read(&at)).transpose()?);
        }
    }
    Ok(None)
}

/// The base tree's `keel.toml`, read and checked once: its bytes (`None` without one: the
/// settings are then the defaults), for naming the line of a value a command refuses, and
/// its settings. `[lint] max_file_bytes` is the largest source file the graph parses.
pub(crate) fn base_settings(
    db: &KeelDatabase,
    base: Base,
) -> Result<(Option<Vec<u8>>, Settings), CommandError> {
    let Some(bytes) = base.read(db, SETTINGS_FILE)? else {
        return Ok((None, Settings::default()));
    };
    let settings = Settings::from_bytes(&bytes)?;
    Ok((Some(bytes), settings))
}

/// The files a graph reads of the tree `tree`.
pub(crate) fn tree_graph_files(
    db: &KeelDatabase,
    tree: Oid,
) -> Result<Vec<(String, Oid)>, CommandError> {
    let files = keel_queries::callgraph::files_under(db, tree, "")
        .map_err(|err| CommandError::objects(&err))?;
    Ok(files
        .into_iter()
        .filter(|(path, _)| is_graph_input(path))
        .collect())
}
