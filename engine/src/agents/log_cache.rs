//! The user cache of agent logs: what one `keel sessions` process read of each log file,
//! kept for the next, so a second process parses only what changed since (an appended
//! line, a rewritten file) and reads nothing else of the logs but their metadata.
//!
//! Logs live outside any repository, so the cache does too: `$KEEL_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/keel`, else `~/.cache/keel` (all read through [`LogEnv`], never the
//! process's globals), in `agent-logs/<build>/`: one entry per log file, named by a hash
//! of the log's absolute path, holding the log's path as spelled (checked on load, so two
//! paths that hash alike never share an entry), its [`ReadMark`], its [`RecordIds`], the
//! warnings its read gave, and what is kept of it: its parsed lines, or — for a log whose
//! records no other log shares — the [`ClaimsDigest`] of it, so the next process loads a
//! few kilobytes instead of every line. An entry is a header line and a body, as the
//! repository memo writes them (`keel-agent-log 3 <build> <CRC-32 of the body> <body
//! length>\n`); the body is the entry's MessagePack length as 8 bytes, the MessagePack,
//! then the digest's bytes (empty for an entry of lines);
//! only the build that wrote it reads it, and an entry that is truncated, corrupt or of
//! another format is read again from the log (one warning per run). Entries are written
//! atomically (a temporary file in the folder, then a rename), and a folder keel cannot
//! write is one warning per run: the answer never depends on the cache.
//!
//! Owns: the folder's location, the entries' names and format, loading and writing one.
//! Does not own: when a log is read again (`super::files`) or what its lines mean.

use super::{ClaimsDigest, LogEnv, LogLine, LogWarning, ReadMark, RecordIds};
use crate::cache_file::CacheTrouble;
use serde::{Deserialize, Serialize};
use sha2::Digest as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The environment variable that names the cache folder (over the XDG one).
pub const CACHE_DIR_VAR: &str = "KEEL_CACHE_DIR";

/// The entries' format: the first word of their header and its version.
const FORMAT: &str = "keel-agent-log 3";

/// The cache's sub-folder for agent logs (one folder per build below it).
const FOLDER: &str = "agent-logs";

/// Where the entries of one build live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogCache {
    /// `<cache folder>/agent-logs/<build>`.
    pub folder: PathBuf,
    pub build: String,
}

/// Why an entry could not be used: the log is read again.
#[derive(Debug, thiserror::Error)]
pub enum EntryTrouble {
    #[error(transparent)]
    Folder(#[from] CacheTrouble),
    #[error("{0}: damaged, or not an agent-log cache entry of this build")]
    Damaged(PathBuf),
}

/// One log file as the cache keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) fields: EntryFields,
    /// The claims' digest of the log, kept instead of its lines.
    pub(crate) digest: Option<ClaimsDigest>,
}

/// An entry but its digest (which follows it in the file, as raw bytes).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct EntryFields {
    /// The log's path, as the OS spells it.
    pub(crate) path: Vec<u8>,
    pub(crate) harness: String,
    pub(crate) read: ReadMark,
    pub(crate) ids: Arc<RecordIds>,
    /// The lines read (none when the digest is kept).
    pub(crate) chunks: Vec<Arc<[LogLine]>>,
    /// The warnings reading the log gave, in order.
    pub(crate) warnings: Vec<LogWarning>,
}

impl LogCache {
    /// The user's cache folder for `build`: `$KEEL_CACHE_DIR`, else `$XDG_CACHE_HOME/keel`,
    /// else `$HOME/.cache/keel`; `None` when the environment names none of them.
    pub fn for_user(env: &LogEnv, build: &str) -> Option<Self> {
        let root = env
            .keel_cache_dir
            .clone()
            .or_else(|| env.xdg_cache_home.as_ref().map(|dir| dir.join("keel")))
            .or_else(|| {
                env.home
                    .as_ref()
                    .map(|home| home.join(".cache").join("keel"))
            })?;
        Some(Self {
            folder: root.join(FOLDER).join(build),
            build: build.to_owned(),
        })
    }

    /// The entry of the log at `path`, named by its absolute path: the same relative
    /// spelling in two folders (`--claude-dir logs` run from two places) names two logs.
    /// The entry holds the path as spelled, which must match too, so its warnings name the
    /// log as a cold read would.
    fn entry_path(&self, path: &Path) -> PathBuf {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let digest = sha2::Sha256::digest(absolute.as_os_str().as_encoded_bytes());
        let name: String = digest[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        self.folder.join(format!("{name}.bin"))
    }

    /// The entry of the log at `path`, if the cache holds one written for it.
    pub(crate) fn load(&self, path: &Path) -> Result<Option<Entry>, EntryTrouble> {
        let file = self.entry_path(path);
        let Some(bytes) = crate::cache_file::read_file(&file)? else {
            return Ok(None);
        };
        let damaged = || EntryTrouble::Damaged(file.clone());
        let body =
            crate::cache_file::checked_body(FORMAT, &self.build, &bytes).map_err(|_| damaged())?;
        let (fields, digest) = crate::cache_file::split_prefixed(body).ok_or_else(damaged)?;
        let fields: EntryFields = rmp_serde::from_slice(fields).map_err(|_| damaged())?;
        let entry = Entry {
            fields,
            digest: (!digest.is_empty()).then(|| ClaimsDigest::new(digest.to_vec())),
        };
        Ok((entry.fields.path == path.as_os_str().as_encoded_bytes()).then_some(entry))
    }

    /// Writes `entry` (atomically), replacing what the cache held for its log.
    pub(crate) fn save(&self, log: &Path, entry: &Entry) -> Result<(), CacheTrouble> {
        let file = self.entry_path(log);
        let fields = rmp_serde::to_vec(&entry.fields).map_err(|err| CacheTrouble::Failed {
            folder: self.folder.clone(),
            path: file.clone(),
            action: crate::cache_file::CacheAction::Write,
            reason: err.to_string(),
        })?;
        let digest = entry.digest.as_ref().map_or(&[][..], ClaimsDigest::bytes);
        let body = crate::cache_file::prefixed(&fields, digest);
        crate::cache_file::write_atomically(
            &file,
            &crate::cache_file::header(FORMAT, &self.build, &body),
            &body,
        )
    }

    /// Removes the folders other builds wrote beside this build's (no build reads another's).
    pub(crate) fn remove_other_builds(&self) {
        let Some(parent) = self.folder.parent() else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(parent) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let is_build = name.to_str().is_some_and(|name| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric())
            });
            if is_build && name != self.build.as_str() {
                // Best effort: a folder left behind is only disk space, and is tried again.
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}
