//! The file an `--html` page is written to (`keel report`, `keel replay`).
//!
//! Owns: refusing an unusable target before any work, writing the page atomically (a
//! temporary file in the target's folder, renamed onto the target only once the page is
//! whole), and the repository name a shared page shows (never a full path).
//! Does not own: any page (`html`, `replay_html`) or when a command writes one.

use super::CommandError;
use keel_engine::KeelDatabase;
use std::io::Write;
use std::path::{Path, PathBuf};

/// An `--html FILE` checked before any work: the file and the folder it goes in.
#[derive(Debug)]
pub(crate) struct PageTarget {
    file: PathBuf,
    /// Where the temporary file goes too, so the rename stays on one file system.
    folder: PathBuf,
}

impl PageTarget {
    /// `file` as a target, refused when it is a folder or its folder does not exist.
    pub(crate) fn check(file: &Path) -> Result<Self, CommandError> {
        let folder = match file.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        if file.is_dir() {
            return Err(CommandError::repairable(
                format!("--html {}: is a folder", file.display()),
                format!(
                    "name a file, e.g. --html {}",
                    file.join("report.html").display()
                ),
            ));
        }
        if !folder.is_dir() {
            return Err(CommandError::repairable(
                format!(
                    "--html {}: the folder {} does not exist",
                    file.display(),
                    folder.display()
                ),
                "create it or name a file in an existing folder",
            ));
        }
        Ok(Self {
            file: file.to_owned(),
            folder,
        })
    }

    /// Writes `text` to a temporary file in the folder, then renames it onto the file: a
    /// reader never sees half a page, and a failed write leaves the file as it was.
    pub(crate) fn write(&self, text: &str) -> Result<(), CommandError> {
        let refuse = |err: &dyn std::fmt::Display| {
            CommandError::repairable(
                format!("--html {}: cannot write it ({err})", self.file.display()),
                "check the folder's permissions and free space",
            )
        };
        let mut temp = temp_builder()
            .tempfile_in(&self.folder)
            .map_err(|err| refuse(&err))?;
        temp.write_all(text.as_bytes())
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|err| refuse(&err))?;
        temp.persist(&self.file).map_err(|err| refuse(&err.error))?;
        Ok(())
    }
}

/// A hidden temporary file; on Unix created as an ordinary file is (mode 0666 less the
/// umask), not private to its owner, since the page is meant to be shared.
fn temp_builder() -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".keel-page-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
}

/// The work tree's folder name (never a full path: the page is shared).
pub(crate) fn repo_name(db: &KeelDatabase, repo: &Path) -> String {
    let root = db
        .work_dir()
        .map_or_else(|| repo.to_owned(), Path::to_owned);
    let root = root.canonicalize().unwrap_or(root);
    root.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repository".to_owned())
}
