//! Agent logs, the engine's side: where each harness keeps its session logs, how one log
//! line becomes a harness-neutral [`LogLine`], and the salsa inputs that hold them
//! ([`AgentLogs`], one [`AgentLog`] per file), read incrementally (an appended line is
//! the only line parsed again).
//!
//! A harness is one [`Connector`]: where its logs are ([`Connector::roots`],
//! [`Connector::is_log`]) and how a line reads ([`Connector::read_line`]), or a whole file
//! for a harness that writes one JSON document per file ([`Connector::read_document`]).
//! Claude Code ([`claude`]), Codex CLI ([`codex`]), Gemini CLI ([`gemini`]) and OpenCode
//! ([`opencode`]) are the four today; another is one more file.
//!
//! A second process need not parse what a first one read: [`LogCache`] keeps each file's
//! read mark in the user's cache (`log_cache`), with its lines — or, for a file whose
//! records no other file shares ([`RecordIds`]), only the [`ClaimsDigest`] the claims made
//! of it, so a second process neither parses nor loads that file's lines.
//!
//! Owns: finding log files, reading their bytes, the line model, per-line warnings, the
//! user cache of what was read.
//! Does not own: any rule that turns lines into sessions (dedupe, forks, deltas, pricing:
//! `keel-queries::agents`) or rendering.

pub mod claude;
pub mod codex;
mod files;
pub mod gemini;
mod lines;
mod log_cache;
pub mod opencode;
mod record_ids;

pub use files::{LogFolderError, LogSources, LogSync, LogWarning, ReadMark, parse_chunk};
pub use lines::{Call, Cumulative, LogEvent, LogLine, Meta, RawUsage, Tokens, ToolUse};
pub use log_cache::{CACHE_DIR_VAR, EntryTrouble, LogCache};
pub use record_ids::RecordIds;
use record_ids::shared_files;

use crate::settings::ModelPrices;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A harness id as sessions carry it (`claude-code`, `codex`, `gemini-cli`, `opencode`).
pub type HarnessId = &'static str;

/// The environment a connector reads its default locations from (injected, so tests
/// run under a temporary HOME without touching the process environment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogEnv {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR` (comma-separated folders).
    pub claude_config_dir: Option<String>,
    /// `$CODEX_HOME`.
    pub codex_home: Option<PathBuf>,
    /// `$GEMINI_CLI_HOME` (Gemini CLI's stand-in for the home folder: its `.gemini`).
    pub gemini_cli_home: Option<PathBuf>,
    /// `$XDG_DATA_HOME` (OpenCode's data folder is its `opencode/`).
    pub xdg_data_home: Option<PathBuf>,
    /// `$XDG_CACHE_HOME` (keel's user cache is its `keel/`).
    pub xdg_cache_home: Option<PathBuf>,
    /// `$KEEL_CACHE_DIR` (keel's user cache, over the XDG one).
    pub keel_cache_dir: Option<PathBuf>,
}

impl LogEnv {
    /// The process's own environment.
    pub fn from_process() -> Self {
        let nonempty = |key: &str| std::env::var_os(key).filter(|value| !value.is_empty());
        Self {
            home: nonempty("HOME").map(PathBuf::from),
            claude_config_dir: nonempty("CLAUDE_CONFIG_DIR")
                .map(|value| value.to_string_lossy().into_owned()),
            codex_home: nonempty("CODEX_HOME").map(PathBuf::from),
            gemini_cli_home: nonempty("GEMINI_CLI_HOME").map(PathBuf::from),
            xdg_data_home: nonempty("XDG_DATA_HOME").map(PathBuf::from),
            xdg_cache_home: nonempty("XDG_CACHE_HOME").map(PathBuf::from),
            keel_cache_dir: nonempty(log_cache::CACHE_DIR_VAR).map(PathBuf::from),
        }
    }
}

/// One folder of logs and whether the user named it (a named folder that does not exist
/// is an error; a default one is silently absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRoot {
    pub path: PathBuf,
    /// The flag that named it (`--claude-dir`), `None` for a default location.
    pub flag: Option<&'static str>,
}

/// `path` relative to `root` (a log root), as plain components; `None` outside it or
/// for a component that is not plain UTF-8.
pub(crate) fn relative_parts(root: &Path, path: &Path) -> Option<Vec<String>> {
    path.strip_prefix(root)
        .ok()?
        .components()
        .map(|part| match part {
            std::path::Component::Normal(name) => name.to_str().map(str::to_owned),
            _ => None,
        })
        .collect()
}

impl LogRoot {
    /// The folders `flag` named, each a root that names its flag.
    pub fn flagged(paths: &[PathBuf], flag: &'static str) -> Vec<LogRoot> {
        paths
            .iter()
            .map(|path| LogRoot {
                path: path.clone(),
                flag: Some(flag),
            })
            .collect()
    }
}

/// One harness: where its logs are and how one line reads.
pub trait Connector: Send + Sync {
    /// The harness id sessions carry.
    fn harness(&self) -> HarnessId;

    /// The folders to scan: `flagged` (the folders given by flag) when not empty, else the
    /// harness's default locations from `env`. Each folder is a log root, scanned
    /// recursively.
    fn roots(&self, flagged: &[PathBuf], env: &LogEnv) -> Vec<LogRoot>;

    /// Whether `path` (a file under `root`) is one of this harness's logs.
    fn is_log(&self, root: &Path, path: &Path) -> bool;

    /// Whether the folder `dir` under `root` may hold this harness's logs: a symbolic link
    /// there is followed (or named when it cannot be), elsewhere it is left alone. Every
    /// folder, unless the harness keeps its logs in known folders of its root.
    fn may_hold_logs(&self, _root: &Path, _dir: &Path) -> bool {
        true
    }

    /// The session a file's records belong to when a record names none
    /// (Claude Code's `<sid>.jsonl`, `<sid>/subagents/…`).
    fn file_session(&self, root: &Path, path: &Path) -> Option<Arc<str>>;

    /// The folder a file's sessions ran in when its records name none (Gemini CLI keeps
    /// it beside the chats, in `.project_root`). None by default.
    fn file_cwd(&self, _root: &Path, _path: &Path) -> Option<Arc<str>> {
        None
    }

    /// What a root holds that keel does not read, said once per run (OpenCode's SQLite
    /// database). Nothing by default.
    fn root_warnings(&self, _root: &Path) -> Vec<LogWarning> {
        Vec::new()
    }

    /// One line (1-based `line`) as keel's model; `Ok(None)` for a line that carries
    /// nothing keel counts. `Err` names what is wrong with it.
    fn read_line(&self, line: u32, text: &str) -> Result<Option<LogLine>, String>;

    /// Whether `path` is one JSON document (read whole, again whenever it changes)
    /// rather than JSON lines. No file is, by default.
    fn is_document(&self, _path: &Path) -> bool {
        false
    }

    /// A whole document's lines (each numbered by the line of the document it starts
    /// on). `Err` names the line and what is wrong.
    fn read_document(&self, _text: &str) -> Result<Vec<LogLine>, DocumentError> {
        Ok(Vec::new())
    }
}

/// What is wrong with a log document, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentError {
    /// 1-based line of the document.
    pub line: u32,
    pub message: String,
    /// The document ends before it is whole (it may still be being written).
    pub truncated: bool,
}

impl DocumentError {
    /// A JSON parse error, where serde_json found it.
    pub fn json(err: &serde_json::Error) -> Self {
        Self {
            line: u32::try_from(err.line()).unwrap_or(u32::MAX).max(1),
            message: err.to_string(),
            truncated: err.is_eof(),
        }
    }
}

/// The connectors keel knows, in the order their sessions are listed.
pub fn connectors() -> Vec<Box<dyn Connector>> {
    vec![
        Box::new(claude::ClaudeCode),
        Box::new(codex::Codex),
        Box::new(gemini::GeminiCli),
        Box::new(opencode::OpenCode),
    ]
}

/// Every log file, as a salsa input: path, harness, what has been read of it.
#[salsa::input(debug)]
pub struct AgentLog {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(copy)]
    pub harness: HarnessId,
    /// The session a record without its own id belongs to (see
    /// [`Connector::file_session`]).
    #[returns(ref)]
    pub file_session: Option<Arc<str>>,
    /// The folder its records ran in when they name none (see [`Connector::file_cwd`]).
    #[returns(ref)]
    pub file_cwd: Option<Arc<str>>,
    /// The lines read so far, one chunk per read (an append adds a chunk).
    #[returns(ref)]
    pub chunks: Vec<Arc<[LogLine]>>,
    /// What the last read saw: length, mtime, bytes consumed (a partial last line is not
    /// consumed), the next line number, and the bytes before the consumed end.
    #[returns(ref)]
    pub read: ReadMark,
    /// What the user cache kept of the file instead of its lines (then `chunks` is empty):
    /// the digest the claims made of it alone.
    #[returns(ref)]
    pub digest: Option<ClaimsDigest>,
    /// Its records are its own ([`RecordIds`]: no other file carries one of their
    /// identities), so the claims may count it by itself. Known only when a sync uses the
    /// user cache; false otherwise.
    #[returns(copy)]
    pub alone: bool,
    /// Its record identities as the last sync with the user cache took them, `alone`
    /// false when another file shared one; `None` until then. Read by the sync (the next
    /// one compares only fresh files with the others), by no query.
    #[returns(ref)]
    pub ids: Option<Arc<RecordIds>>,
}

/// A file's records as the claims fold them by themselves (`keel-queries::agents`
/// defines the value and its bytes; the engine keeps the bytes in the user cache and
/// never reads them).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClaimsDigest(Arc<[u8]>);

impl ClaimsDigest {
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes.into())
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// All log files, in path order per harness (harnesses in [`connectors`] order).
#[salsa::input(debug)]
pub struct AgentLogs {
    #[returns(ref)]
    pub files: Vec<AgentLog>,
    /// `[prices]` of `keel.toml`: model id → rates, over the bundled table.
    #[returns(ref)]
    pub prices: BTreeMap<String, ModelPrices>,
}

/// The repository a session ran in: the nearest ancestor-or-self of `cwd` holding `.git`
/// (a folder, or a file: a linked worktree is its own root) when `cwd` exists; else `cwd`
/// as written. Returns (`repo` as a session record writes it, its real path).
pub fn session_repo(cwd: &str) -> (String, PathBuf) {
    let path = Path::new(cwd);
    let root = std::fs::canonicalize(path).ok().and_then(|real| {
        real.ancestors()
            .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
            .map(Path::to_owned)
    });
    match root {
        Some(root) => (root.display().to_string(), root),
        None => (
            cwd.to_owned(),
            std::path::absolute(path).unwrap_or_else(|_| path.to_owned()),
        ),
    }
}
