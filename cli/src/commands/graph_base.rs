//! The tree a call graph is built from: the working tree or the commit `--rev` names, its
//! files and its `keel.toml` (`keel callgraph` and `keel impact` read their base alike).
//!
//! Owns: resolving the base once, reading one of its files (never outside the repository:
//! not through `..`, not beyond a symbolic link), its settings and the files a graph
//! reads, with those it cannot read because their path is not UTF-8 (named, escaped).
//! Does not own: building the graph (`keel_queries::callgraph`).

use super::CommandError;
use crate::streams::errln;
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

/// The files a graph reads of the tree `tree`. Each must be readable (its header is read,
/// nothing is inflated): a blob the repository cannot give — one a partial clone has not
/// fetched — is refused naming it, where the graph would read the file as unparseable and
/// list it as read in part for the wrong reason.
pub(crate) fn tree_graph_files(
    db: &KeelDatabase,
    tree: Oid,
) -> Result<Vec<(String, Oid)>, CommandError> {
    let fsck = |err: keel_engine::objects::ObjectError| CommandError::objects(&err);
    let files: Vec<(String, Oid)> = keel_queries::callgraph::files_under(db, tree, "")
        .map_err(fsck)?
        .into_iter()
        .filter(|(path, _)| is_graph_input(path))
        .collect();
    for (_, oid) in &files {
        db.objects().blob_size(*oid).map_err(fsck)?;
    }
    Ok(files)
}

/// A graph's files `(path, blob)`, and the paths (bytes) of those it cannot name.
pub(crate) type GraphInputs = (Vec<(String, Oid)>, Vec<Vec<u8>>);

/// The files a graph reads of the base — the tree of `--rev`, or the working tree — and
/// apart from them the graph inputs whose path is not UTF-8, by their bytes: keel reads
/// paths as text (no import can name such a file), so they are left out of the graph and
/// named instead of dropped or read under a mangled name.
pub(crate) fn graph_inputs_of(db: &KeelDatabase, base: Base) -> Result<GraphInputs, CommandError> {
    match base.commit {
        Some((_, tree)) => {
            let not_utf8: Vec<Vec<u8>> = db
                .objects()
                .files_not_utf8(tree)
                .map_err(|err| CommandError::objects(&err))?
                .into_iter()
                .filter(|path| is_graph_input(&String::from_utf8_lossy(path)))
                .collect();
            // The tree lists such a file under its lossy name: leave it out.
            let lossy: std::collections::HashSet<String> = not_utf8
                .iter()
                .map(|path| String::from_utf8_lossy(path).into_owned())
                .collect();
            let files = tree_graph_files(db, tree)?
                .into_iter()
                .filter(|(path, _)| !lossy.contains(path))
                .collect();
            Ok((files, not_utf8))
        }
        None => {
            let listing = db.worktree_listing(is_graph_input)?;
            let files = listing
                .files
                .into_iter()
                .map(|file| (file.path, file.blob))
                .collect();
            Ok((files, listing.not_utf8))
        }
    }
}

/// One `warning:` line per graph input left out because its name is not UTF-8.
pub(crate) fn warn_not_in_graph(not_utf8: &[Vec<u8>]) {
    for path in not_utf8 {
        errln!(
            "warning: {}: not in the graph: its name is not UTF-8 (keel reads paths as text, so no import can name it); repair: rename it to a UTF-8 name (`git mv`) to graph it",
            escaped(path)
        );
    }
}

/// A path's bytes as text: its UTF-8 runs as they are, every other byte as `\xNN`.
fn escaped(path: &[u8]) -> String {
    let mut out = String::new();
    for chunk in path.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}
