//! Finding agent log files and reading them into [`AgentLog`] inputs, incrementally: a
//! file that only grew is read from where the last read stopped, so an appended line is
//! the one line parsed; a file that changed otherwise is read again whole, and so is a
//! JSON document (Gemini CLI's older chats, OpenCode's storage) whenever it changed.
//!
//! Owns: the folder walk (sorted; symbolic links followed, each folder walked and each
//! file read once, a link that cannot be followed a warning naming it; an unreadable
//! folder is a warning; a folder named by flag that does not exist is an error, a default
//! one is silently absent), choosing the
//! active copy of a Codex rollout that also sits in `archived_sessions/`, the read marks,
//! and the per-line warnings (a malformed line is skipped, naming file:line; an
//! unterminated last line that does not parse yet is left for the next read; a
//! malformed document is skipped whole, naming file:line, and a truncated one is read
//! again when it changes).
//! Does not own: what a line means (the connectors) or any counting.

use super::log_cache::{Entry, EntryFields, EntryTrouble, LogCache};
use super::{
    AgentLog, AgentLogs, ClaimsDigest, Connector, DocumentError, HarnessId, LogEnv, LogLine,
    RecordIds, connectors, shared_files,
};
use crate::KeelDatabase;
use crate::cache_file::CacheTrouble;
use crate::refusal::{Refusal, RefusalCode};
use salsa::Setter;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// How many bytes before a read's end are kept to recognise an append.
const TAIL_BYTES: usize = 64;

/// What the last read of a file saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ReadMark {
    pub len: u64,
    pub mtime: Option<SystemTime>,
    /// Bytes consumed (complete lines, and a last line that parsed).
    pub consumed: u64,
    /// The number the next line read gets.
    pub next_line: u32,
    /// Up to [`TAIL_BYTES`] bytes before `consumed`: if they still sit there, the file only
    /// grew.
    pub tail: Vec<u8>,
}

/// Something keel skipped and says so once.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LogWarning {
    /// `file:line`, or a folder.
    pub location: String,
    pub message: String,
}

impl fmt::Display for LogWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// A log folder named by flag that cannot be used: a [`Refusal`] of kind
/// [`RefusalCode::LogFolder`] at `FLAG PATH`.
pub type LogFolderError = Refusal;

/// Where a scan looks: folders by flag per harness, else the environment's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogSources {
    /// `--claude-dir` folders (each a `projects` folder or any folder of Claude logs).
    pub claude_dirs: Vec<PathBuf>,
    /// `--codex-dir` folders (each a CODEX_HOME).
    pub codex_dirs: Vec<PathBuf>,
    /// `--gemini-dir` folders (each a `.gemini` folder).
    pub gemini_dirs: Vec<PathBuf>,
    /// `--opencode-dir` folders (each an OpenCode data folder).
    pub opencode_dirs: Vec<PathBuf>,
    pub env: LogEnv,
    /// The user cache a file not read in this process yet is taken from (and what is read
    /// is written back to); `None` reads every file.
    pub cache: Option<LogCache>,
}

impl LogSources {
    fn flagged(&self, harness: HarnessId) -> &[PathBuf] {
        match harness {
            "claude-code" => &self.claude_dirs,
            "codex" => &self.codex_dirs,
            "gemini-cli" => &self.gemini_dirs,
            "opencode" => &self.opencode_dirs,
            _ => &[],
        }
    }
}

/// What one sync read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogSync {
    /// Log files found.
    pub files: usize,
    /// Files read (wholly or from their previous end).
    pub files_read: usize,
    pub bytes_read: u64,
    pub lines_parsed: u64,
    pub warnings: Vec<LogWarning>,
    /// The files this sync read, whose cache entries are still to be written
    /// ([`KeelDatabase::keep_agent_logs`]); empty without a cache.
    pub unkept: Vec<UnkeptLog>,
    /// The OS refused the cache folder during the read (said among `warnings`).
    pub cache_refused: bool,
}

/// A file a sync read whose user-cache entry is still to be written: it waits for the
/// claims' digest of it, which only the queries can make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnkeptLog {
    pub log: AgentLog,
    /// The warnings its read gave, in order.
    pub warnings: Vec<LogWarning>,
    /// Its record identities; `alone` is false when another file shares one.
    pub ids: Arc<RecordIds>,
}

/// How a sync read one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadKind {
    /// Not at all: it did not change.
    Unchanged,
    /// From where the last read stopped: it only grew.
    Appended,
    /// Whole: new, rewritten, shrunk, or a document.
    Whole,
    /// Not: the OS refused it (said as a warning; tried again next time).
    Failed,
}

/// What the user cache did in one sync: each kind of trouble is said once.
#[derive(Default)]
struct CacheUse {
    /// Entries that were damaged (their logs were read again), and the first one.
    damaged: usize,
    first_damaged: Option<String>,
    /// The first time the OS refused the folder or a file in it (read or write).
    refused: Option<String>,
    wrote: bool,
}

impl CacheUse {
    fn refused(&mut self, trouble: &CacheTrouble) {
        self.refused.get_or_insert_with(|| trouble.to_string());
    }

    fn warnings(self, cache: &LogCache) -> Vec<LogWarning> {
        let location = cache.folder.display().to_string();
        let mut warnings = Vec::new();
        if let Some(first) = self.first_damaged {
            warnings.push(LogWarning {
                location: location.clone(),
                message: format!(
                    "{} agent-log cache entr{} damaged or not keel's (the first: {first}); those logs were read again",
                    self.damaged,
                    if self.damaged == 1 { "y was" } else { "ies were" }
                ),
            });
        }
        if let Some(reason) = self.refused {
            warnings.push(LogWarning {
                location,
                message: format!(
                    "the agent-log cache cannot be used ({reason}); the logs were read without it"
                ),
            });
        }
        warnings
    }
}

/// One file found by the walk.
#[derive(Clone)]
struct Found {
    path: PathBuf,
    harness: HarnessId,
    file_session: Option<Arc<str>>,
    file_cwd: Option<Arc<str>>,
    /// Reached through a symbolic link (the file is one, or a folder above it is).
    linked: bool,
}

/// A file the walk found, and whether a symbolic link led to it.
type Walked = (PathBuf, bool);

/// Every file under `dir`, recursively, sorted; unreadable folders become warnings.
///
/// A symbolic link where `follows` says logs may be is followed to what it names, after
/// every real entry is walked: a link to a file is a file found at the link's path (so
/// the connector reads the layout it sits in), a link to a folder is walked under the
/// link's path. A folder is walked once, by its real path: a link to a folder already
/// walked (a loop back up the tree, or a second name for it) adds nothing, and hangs
/// nothing. A link keel cannot follow (to nothing, a loop of links, neither a file nor a
/// folder) is a warning naming it, never a silent skip.
fn walk(
    dir: &Path,
    follows: &dyn Fn(&Path) -> bool,
    out: &mut Vec<Walked>,
    warnings: &mut Vec<LogWarning>,
) {
    let mut walked: BTreeSet<PathBuf> = BTreeSet::new();
    let mut links: Vec<PathBuf> = Vec::new();
    walk_real(dir, false, out, &mut links, &mut walked, warnings);
    let mut next = 0;
    while let Some(link) = links.get(next).cloned() {
        next += 1;
        if !follows(&link) {
            continue;
        }
        let skipped = |why: String| LogWarning {
            location: link.display().to_string(),
            message: format!("a symbolic link {why}; not read"),
        };
        match std::fs::metadata(&link) {
            Ok(meta) if meta.is_file() => out.push((link, true)),
            Ok(meta) if meta.is_dir() => match std::fs::canonicalize(&link) {
                Ok(real) if walked.contains(&real) => {}
                Ok(_) => walk_real(&link, true, out, &mut links, &mut walked, warnings),
                Err(err) => warnings.push(skipped(format!("keel cannot follow ({err})"))),
            },
            Ok(_) => warnings.push(skipped(
                "to something that is neither a file nor a folder".to_owned(),
            )),
            Err(err) => warnings.push(skipped(format!(
                "keel cannot follow ({err}: it names nothing, or a loop of links)"
            ))),
        }
    }
    out.sort();
}

/// Walks `dir` (`linked`: reached through a link) without following links: files go to
/// `out`, links to `links` (followed by [`walk`]), and each folder's real path to `walked`.
fn walk_real(
    dir: &Path,
    linked: bool,
    out: &mut Vec<Walked>,
    links: &mut Vec<PathBuf>,
    walked: &mut BTreeSet<PathBuf>,
    warnings: &mut Vec<LogWarning>,
) {
    if let Ok(real) = std::fs::canonicalize(dir) {
        walked.insert(real);
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            warnings.push(LogWarning {
                location: dir.display().to_string(),
                message: format!("cannot list this folder ({err}); its logs are not read"),
            });
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        // `symlink_metadata`: a link is set aside, not followed here.
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => walk_real(&path, linked, out, links, walked, warnings),
            Ok(meta) if meta.is_file() => out.push((path, linked)),
            Ok(meta) if meta.is_symlink() => links.push(path),
            _ => {}
        }
    }
}

/// `files` (sorted by path) with each log file kept once: a file reached under several
/// names (a link to a log keel also finds directly) is read under the first name no link
/// led to, else under the first link's.
fn once_per_file(files: Vec<Found>) -> Vec<Found> {
    let reals = real_paths(&files);
    let mut chosen: HashMap<&Path, (&Path, bool)> = HashMap::new();
    for (found, real) in files.iter().zip(&reals) {
        let Some(target) = real else { continue };
        chosen
            .entry(target)
            .and_modify(|kept| {
                if kept.1 && !found.linked {
                    *kept = (&found.path, found.linked);
                }
            })
            .or_insert((&found.path, found.linked));
    }
    let kept: Vec<bool> = files
        .iter()
        .zip(&reals)
        .map(|(found, real)| {
            real.as_deref().is_none_or(|target| {
                chosen.get(target).map(|kept| kept.0) == Some(found.path.as_path())
            })
        })
        .collect();
    files
        .into_iter()
        .zip(kept)
        .filter_map(|(found, kept)| kept.then_some(found))
        .collect()
}

/// Each file's real path (`None` when it has none): a file no link led to is its real
/// folder's entry, so each folder is resolved once, not each file.
fn real_paths(files: &[Found]) -> Vec<Option<PathBuf>> {
    let mut folders: HashMap<&Path, Option<PathBuf>> = HashMap::new();
    files
        .iter()
        .map(
            |found| match (found.linked, found.path.parent(), found.path.file_name()) {
                (false, Some(folder), Some(name)) => folders
                    .entry(folder)
                    .or_insert_with(|| std::fs::canonicalize(folder).ok())
                    .as_ref()
                    .map(|real| real.join(name)),
                _ => std::fs::canonicalize(&found.path).ok(),
            },
        )
        .collect()
}

/// The log files of every connector, in harness order then path order.
fn discover(sources: &LogSources) -> Result<(Vec<Found>, Vec<LogWarning>), LogFolderError> {
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    for connector in connectors() {
        let harness = connector.harness();
        let mut files: Vec<Found> = Vec::new();
        for root in connector.roots(sources.flagged(harness), &sources.env) {
            match std::fs::metadata(&root.path) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) | Err(_) => match root.flag {
                    Some(flag) => {
                        return Err(Refusal::new(
                            RefusalCode::LogFolder,
                            format!("{flag} {}", root.path.display()),
                            None,
                            "no such folder",
                            "name an existing folder of logs, or drop the flag to use the default locations",
                        ));
                    }
                    None => continue,
                },
            }
            warnings.extend(connector.root_warnings(&root.path));
            let mut paths = Vec::new();
            let follows = |link: &Path| {
                connector.is_log(&root.path, link) || connector.may_hold_logs(&root.path, link)
            };
            walk(&root.path, &follows, &mut paths, &mut warnings);
            files.extend(
                paths
                    .into_iter()
                    .filter(|(path, _)| connector.is_log(&root.path, path))
                    .map(|(path, linked)| Found {
                        file_session: connector.file_session(&root.path, &path),
                        file_cwd: connector.file_cwd(&root.path, &path),
                        path,
                        harness,
                        linked,
                    }),
            );
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
        found.extend(active_copies(&*connector, once_per_file(files)));
    }
    Ok((found, warnings))
}

/// Drops a Codex rollout's `archived_sessions/` copy when the active copy exists.
fn active_copies(connector: &dyn Connector, files: Vec<Found>) -> Vec<Found> {
    if connector.harness() != "codex" {
        return files;
    }
    let archived_folder = super::codex::ROLLOUT_FOLDERS[1];
    let is_archived = |path: &Path| {
        path.parent()
            .into_iter()
            .flat_map(Path::ancestors)
            .any(|dir| dir.file_name().is_some_and(|name| name == archived_folder))
    };
    let active: BTreeSet<std::ffi::OsString> = files
        .iter()
        .filter(|found| !is_archived(&found.path))
        .filter_map(|found| found.path.file_name().map(ToOwned::to_owned))
        .collect();
    files
        .into_iter()
        .filter(|found| {
            !is_archived(&found.path)
                || found
                    .path
                    .file_name()
                    .is_none_or(|name| !active.contains(name))
        })
        .collect()
}

/// Bytes of `path` from `offset`, with the [`TAIL_BYTES`] before it (to check the file
/// only grew).
fn read_from(path: &Path, offset: u64) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut file = std::fs::File::open(path)?;
    let tail_start = offset.saturating_sub(TAIL_BYTES as u64);
    file.seek(SeekFrom::Start(tail_start))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let split = usize::try_from(offset - tail_start)
        .unwrap_or(0)
        .min(bytes.len());
    let rest = bytes.split_off(split);
    Ok((bytes, rest))
}

/// The lines of `bytes` (read from `mark.consumed`), parsed; returns the new mark.
pub fn parse_chunk(
    connector: &dyn Connector,
    path: &Path,
    bytes: &[u8],
    mark: &ReadMark,
    sync: &mut LogSync,
) -> (Vec<LogLine>, u64, u32) {
    let body = if mark.consumed == 0 {
        crate::jsonl::without_bom(bytes)
    } else {
        bytes
    };
    let skipped = bytes.len() - body.len();
    let mut lines = Vec::new();
    let mut consumed = skipped;
    let mut number = mark.next_line.max(1);
    let mut rest = body;
    while !rest.is_empty() {
        let (text, terminated, len) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (&rest[..end], true, end + 1),
            None => (rest, false, rest.len()),
        };
        rest = &rest[len..];
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let parsed = if text.iter().all(u8::is_ascii_whitespace) {
            Ok(None)
        } else {
            sync.lines_parsed += 1;
            std::str::from_utf8(text)
                .map_err(|err| {
                    format!(
                        "not UTF-8 (invalid byte at column {})",
                        err.valid_up_to() + 1
                    )
                })
                .and_then(|text| connector.read_line(number, text))
        };
        match parsed {
            Ok(line) => lines.extend(line),
            Err(_) if !terminated => {
                // The last line may still be being written: read it again next time.
                sync.warnings.push(LogWarning {
                    location: format!("{}:{number}", path.display()),
                    message: "the last line is incomplete (still being written?); skipped for now"
                        .to_owned(),
                });
                break;
            }
            Err(message) => sync.warnings.push(LogWarning {
                location: format!("{}:{number}", path.display()),
                message: format!("skipped a malformed line: {message}"),
            }),
        }
        consumed += len;
        number += 1;
    }
    (lines, mark.consumed + consumed as u64, number)
}

/// One file as a sync went through it.
struct Synced {
    log: AgentLog,
    found: Found,
    /// Read in this sync (wholly or from its previous end).
    read: bool,
    /// The warnings its read gave (or its cache entry's, said again), in order.
    warnings: Vec<LogWarning>,
    /// Its record identities, when a cache is in use.
    ids: Option<Arc<RecordIds>>,
    /// Its identities were taken from its lines in this sync (not kept from the last).
    fresh: bool,
}

/// The warnings a cached file's read gave, said again as a read of it would: all of them
/// when it did not change, those before the old end when it grew (its last line is read
/// again), none when it was read whole.
fn replayed_warnings(
    path: &Path,
    entry: &Entry,
    kind: ReadKind,
    previous: Option<ReadMark>,
) -> Vec<LogWarning> {
    match (kind, previous) {
        (ReadKind::Unchanged, _) => entry.fields.warnings.clone(),
        (ReadKind::Appended, Some(previous)) => {
            let reread = format!("{}:{}", path.display(), previous.next_line);
            entry
                .fields
                .warnings
                .iter()
                .filter(|warning| warning.location != reread)
                .cloned()
                .collect()
        }
        _ => Vec::new(),
    }
}

impl KeelDatabase {
    /// Finds the agent logs of `sources` and reads what is new into the inputs: a new
    /// file wholly, a grown file from its previous end, an unchanged one not at all
    /// ([`crate::ChangeEvent::AgentLogsFrom`]). `progress` is told (files done, files
    /// total) as files are read.
    pub(crate) fn sync_agent_logs(
        &mut self,
        sources: &LogSources,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<LogSync, LogFolderError> {
        let (found, warnings) = discover(sources)?;
        let mut sync = LogSync {
            files: found.len(),
            warnings,
            ..LogSync::default()
        };
        let known: HashMap<PathBuf, AgentLog> = self
            .agent_logs
            .map(|logs| {
                logs.files(&*self)
                    .iter()
                    .map(|&log| (log.path(&*self).clone(), log))
                    .collect()
            })
            .unwrap_or_default();
        let by_harness: HashMap<HarnessId, Box<dyn Connector>> = connectors()
            .into_iter()
            .map(|connector| (connector.harness(), connector))
            .collect();
        let mut synced: Vec<Synced> = Vec::with_capacity(found.len());
        let mut cache_use = CacheUse::default();
        for (done, found) in found.into_iter().enumerate() {
            progress(done, sync.files);
            let Some(connector) = by_harness.get(found.harness) else {
                continue;
            };
            let mut log = known.get(&found.path).copied();
            let mut cached = None;
            if log.is_none()
                && let Some(cache) = &sources.cache
            {
                match cache.load(&found.path) {
                    Ok(Some(entry)) if entry.fields.harness == found.harness => {
                        log = Some(self.cached_log(&found, &entry));
                        cached = Some(entry);
                    }
                    Ok(_) => {}
                    Err(EntryTrouble::Folder(trouble)) => cache_use.refused(&trouble),
                    Err(EntryTrouble::Damaged(entry)) => {
                        cache_use.damaged += 1;
                        cache_use
                            .first_damaged
                            .get_or_insert_with(|| entry.display().to_string());
                    }
                }
            }
            // Without a cache, an input that holds a digest (an earlier sync's) is read whole.
            let whole =
                sources.cache.is_none() && log.is_some_and(|log| log.digest(&*self).is_some());
            let previous = log.map(|log| log.read(&*self).clone());
            let warned = sync.warnings.len();
            let (log, kind) = self.read_log(&**connector, found.clone(), log, whole, &mut sync);
            let mut warnings = sync.warnings.split_off(warned);
            if let Some(entry) = &cached {
                warnings.splice(0..0, replayed_warnings(&found.path, entry, kind, previous));
            }
            let (ids, fresh) = match sources.cache {
                Some(_) => {
                    let (ids, fresh) = self.synced_ids(log, kind);
                    (Some(ids), fresh)
                }
                None => (None, false),
            };
            synced.push(Synced {
                log,
                found,
                read: !matches!(kind, ReadKind::Unchanged | ReadKind::Failed),
                warnings,
                ids,
                fresh,
            });
        }
        progress(sync.files, sync.files);
        if sources.cache.is_some() {
            self.read_shared_digests(&by_harness, &mut synced, &mut sync);
        }
        let mut files = Vec::with_capacity(synced.len());
        for file in synced {
            let alone = file.ids.as_ref().is_some_and(|ids| ids.alone);
            if file.log.alone(&*self) != alone {
                file.log.set_alone(self).to(alone);
            }
            let same_ids = match (file.log.ids(&*self), &file.ids) {
                (Some(held), Some(ids)) => Arc::ptr_eq(held, ids) || held == ids,
                (held, ids) => held.is_none() && ids.is_none(),
            };
            if !same_ids {
                file.log.set_ids(self).to(file.ids.clone());
            }
            sync.warnings.extend(file.warnings.iter().cloned());
            if file.read
                && let Some(ids) = file.ids
            {
                sync.unkept.push(UnkeptLog {
                    log: file.log,
                    warnings: file.warnings,
                    ids,
                });
            }
            files.push(file.log);
        }
        if let Some(cache) = &sources.cache {
            sync.cache_refused = cache_use.refused.is_some();
            sync.warnings.extend(cache_use.warnings(cache));
        }
        match self.agent_logs {
            Some(logs) => {
                if logs.files(&*self) != &files {
                    logs.set_files(self).to(files);
                }
            }
            None => {
                self.agent_logs = Some(AgentLogs::new(
                    &*self,
                    files,
                    std::collections::BTreeMap::new(),
                ));
            }
        }
        Ok(sync)
    }

    /// Sets `[prices]` for the agent sessions, only when it changed
    /// ([`crate::ChangeEvent::PricesChanged`]); returns whether it did.
    pub(crate) fn set_agent_prices(
        &mut self,
        prices: std::collections::BTreeMap<String, crate::settings::ModelPrices>,
    ) -> bool {
        let Some(logs) = self.agent_logs else {
            self.agent_logs = Some(AgentLogs::new(&*self, Vec::new(), prices));
            return true;
        };
        if logs.prices(&*self) == &prices {
            return false;
        }
        logs.set_prices(self).to(prices);
        true
    }

    /// Reads one file into its input (creating it when new): not at all when unchanged,
    /// from its previous end when it only grew, else whole — and whole in any case when
    /// `whole` is set or the input holds a digest instead of lines.
    fn read_log(
        &mut self,
        connector: &dyn Connector,
        found: Found,
        log: Option<AgentLog>,
        whole: bool,
        sync: &mut LogSync,
    ) -> (AgentLog, ReadKind) {
        let meta = std::fs::metadata(&found.path).ok();
        let len = meta.as_ref().map_or(0, std::fs::Metadata::len);
        let mtime = meta.as_ref().and_then(|meta| meta.modified().ok());
        if let Some(log) = log {
            if log.file_session(&*self) != &found.file_session {
                log.set_file_session(self).to(found.file_session.clone());
            }
            if log.file_cwd(&*self) != &found.file_cwd {
                log.set_file_cwd(self).to(found.file_cwd.clone());
            }
        }
        let previous = log.map(|log| log.read(&*self).clone()).unwrap_or_default();
        if let Some(log) = log
            && !whole
            && previous.len == len
            && previous.mtime == mtime
        {
            return (log, ReadKind::Unchanged);
        }
        let lines_held = log.is_some_and(|log| log.digest(&*self).is_none());
        if connector.is_document(&found.path) {
            let mark = ReadMark {
                len,
                mtime,
                ..ReadMark::default()
            };
            let files_read = sync.files_read;
            let lines = self.read_whole_document(connector, &found.path, sync);
            let kind = if sync.files_read > files_read {
                ReadKind::Whole
            } else {
                ReadKind::Failed
            };
            return (self.store(log, found, lines, mark, true), kind);
        }
        let appended = lines_held && !whole && len >= previous.consumed;
        let start = if appended {
            previous.clone()
        } else {
            ReadMark::default()
        };
        let read = match read_from(&found.path, start.consumed) {
            Ok((tail, rest)) if !appended || tail == previous.tail => Ok((start, rest)),
            // The bytes before the old end changed: the file was rewritten.
            Ok(_) => read_from(&found.path, 0).map(|(_, rest)| (ReadMark::default(), rest)),
            Err(err) => Err(err),
        };
        let failed = read.is_err();
        let (start, bytes) = match read {
            Ok(read) => read,
            Err(err) => {
                sync.warnings.push(LogWarning {
                    location: found.path.display().to_string(),
                    message: format!("cannot read this log ({err}); skipped"),
                });
                (ReadMark::default(), Vec::new())
            }
        };
        sync.files_read += 1;
        sync.bytes_read += bytes.len() as u64;
        let (lines, consumed, next_line) =
            parse_chunk(connector, &found.path, &bytes, &start, sync);
        let used = usize::try_from(consumed - start.consumed).unwrap_or(bytes.len());
        let mut tail = start.tail.clone();
        tail.extend_from_slice(&bytes[..used.min(bytes.len())]);
        let keep_from = tail.len().saturating_sub(TAIL_BYTES);
        let mark = ReadMark {
            len,
            mtime,
            consumed,
            next_line,
            tail: tail.split_off(keep_from),
        };
        let fresh_start = start.consumed == 0;
        let kind = if failed {
            ReadKind::Failed
        } else if fresh_start {
            ReadKind::Whole
        } else {
            ReadKind::Appended
        };
        (self.store(log, found, lines, mark, fresh_start), kind)
    }

    /// A file's input as the user cache kept it (then read as if this process had read it
    /// before: not at all when unchanged, from its mark when it grew).
    fn cached_log(&self, found: &Found, entry: &Entry) -> AgentLog {
        AgentLog::new(
            self,
            found.path.clone(),
            found.harness,
            found.file_session.clone(),
            found.file_cwd.clone(),
            entry.fields.chunks.clone(),
            entry.fields.read.clone(),
            entry.digest.clone(),
            entry.digest.is_some(),
            Some(entry.fields.ids.clone()),
        )
    }

    /// A file's record identities in a sync with the user cache, and whether they are
    /// fresh: an unchanged file's are those kept when it was last compared with the
    /// others (by its entry or an earlier sync), any other file's are taken from its lines.
    fn synced_ids(&self, log: AgentLog, kind: ReadKind) -> (Arc<RecordIds>, bool) {
        match (kind, log.ids(self)) {
            (ReadKind::Unchanged, Some(ids)) => (ids.clone(), false),
            _ => (Arc::new(self.record_ids(log)), true),
        }
    }

    /// The record identities of a file's lines.
    fn record_ids(&self, log: AgentLog) -> RecordIds {
        RecordIds::of(
            log.chunks(self).iter().flat_map(|chunk| chunk.iter()),
            log.file_session(self).as_ref(),
        )
    }

    /// Marks the files that share a record identity with another (not `alone`), and reads
    /// whole each of them that holds a digest: its records can only be claimed from its
    /// lines (a new file replays one of its records, say).
    fn read_shared_digests(
        &mut self,
        by_harness: &HashMap<HarnessId, Box<dyn Connector>>,
        synced: &mut [Synced],
        sync: &mut LogSync,
    ) {
        // Only the files whose identities are known take part (all of them, with a cache).
        let shared = {
            let ids: Vec<(&RecordIds, bool)> = synced
                .iter()
                .filter_map(|file| Some((&**file.ids.as_ref()?, file.fresh)))
                .collect();
            shared_files(&ids)
        };
        let known = synced.iter_mut().filter(|file| file.ids.is_some());
        for (file, shared) in known.zip(shared) {
            if !shared {
                continue;
            }
            if file.log.digest(&*self).is_some()
                && let Some(connector) = by_harness.get(file.found.harness)
            {
                let warned = sync.warnings.len();
                let (log, kind) =
                    self.read_log(&**connector, file.found.clone(), Some(file.log), true, sync);
                file.warnings = sync.warnings.split_off(warned);
                file.read = !matches!(kind, ReadKind::Failed);
                file.ids = Some(Arc::new(self.record_ids(log)));
                file.fresh = true;
            }
            if let Some(ids) = &mut file.ids
                && ids.alone
            {
                Arc::make_mut(ids).alone = false;
            }
        }
    }

    /// Writes the user-cache entry of each file `sync` read: its digest in place of its
    /// lines when its records are its own (`digest_of`, the claims' digest of a log, is
    /// asked only for those), else its lines. Returns the warnings: a folder keel cannot
    /// write is said once (not again when the read already said it), and the answer never
    /// depended on it.
    pub fn keep_agent_logs(
        &self,
        cache: &LogCache,
        sync: &LogSync,
        digest_of: &dyn Fn(AgentLog) -> Option<ClaimsDigest>,
    ) -> Vec<LogWarning> {
        let mut cache_use = CacheUse::default();
        for file in &sync.unkept {
            let path = file.log.path(self);
            let digest = file.ids.alone.then(|| digest_of(file.log)).flatten();
            let chunks = match digest {
                Some(_) => Vec::new(),
                None => file.log.chunks(self).clone(),
            };
            let entry = Entry {
                fields: EntryFields {
                    path: path.as_os_str().as_encoded_bytes().to_vec(),
                    harness: file.log.harness(self).to_owned(),
                    read: file.log.read(self).clone(),
                    ids: file.ids.clone(),
                    chunks,
                    warnings: file.warnings.clone(),
                },
                digest,
            };
            match cache.save(path, &entry) {
                Ok(()) => cache_use.wrote = true,
                Err(trouble) => cache_use.refused(&trouble),
            }
        }
        if cache_use.wrote {
            cache.remove_other_builds();
        }
        if sync.cache_refused {
            cache_use.refused = None;
        }
        cache_use.warnings(cache)
    }

    /// A document's lines, read whole; a warning naming file:line when it is malformed
    /// (skipped) or ends early (skipped until it changes).
    fn read_whole_document(
        &self,
        connector: &dyn Connector,
        path: &Path,
        sync: &mut LogSync,
    ) -> Vec<LogLine> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) => {
                sync.warnings.push(LogWarning {
                    location: path.display().to_string(),
                    message: format!("cannot read this log ({err}); skipped"),
                });
                return Vec::new();
            }
        };
        sync.files_read += 1;
        sync.bytes_read += bytes.len() as u64;
        sync.lines_parsed += 1;
        let parsed = std::str::from_utf8(crate::jsonl::without_bom(&bytes))
            .map_err(|err| DocumentError {
                line: 1 + u32::try_from(
                    bytes[..err.valid_up_to()]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count(),
                )
                .unwrap_or(u32::MAX - 1),
                message: "not UTF-8".to_owned(),
                truncated: false,
            })
            .and_then(|text| connector.read_document(text));
        match parsed {
            Ok(lines) => lines,
            Err(err) => {
                let message = if err.truncated {
                    "the document ends early (still being written?); skipped until it changes"
                        .to_owned()
                } else {
                    format!("skipped a malformed file: {}", err.message)
                };
                sync.warnings.push(LogWarning {
                    location: format!("{}:{}", path.display(), err.line),
                    message,
                });
                Vec::new()
            }
        }
    }

    /// Sets (or creates) a file's input: `lines` replace what was read when `fresh_start`,
    /// else follow it as a new chunk.
    fn store(
        &mut self,
        log: Option<AgentLog>,
        found: Found,
        lines: Vec<LogLine>,
        mark: ReadMark,
        fresh_start: bool,
    ) -> AgentLog {
        match log {
            Some(log) => {
                let mut chunks = if fresh_start {
                    Vec::new()
                } else {
                    log.chunks(&*self).clone()
                };
                if !lines.is_empty() {
                    chunks.push(lines.into());
                }
                if log.chunks(&*self) != &chunks {
                    log.set_chunks(self).to(chunks);
                }
                if log.digest(&*self).is_some() {
                    log.set_digest(self).to(None);
                }
                log.set_read(self).to(mark);
                log
            }
            None => {
                let chunks: Vec<Arc<[LogLine]>> = if lines.is_empty() {
                    Vec::new()
                } else {
                    vec![lines.into()]
                };
                AgentLog::new(
                    &*self,
                    found.path,
                    found.harness,
                    found.file_session,
                    found.file_cwd,
                    chunks,
                    mark,
                    None,
                    false,
                    None,
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_before_the_first_line_is_consumed_not_a_malformed_line() {
        let line = br#"{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-01-15T10:00:00Z","message":{"role":"user","content":"hi"}}"#;
        let bytes = [b"\xEF\xBB\xBF".as_slice(), line, b"\n"].concat();
        let mut sync = LogSync::default();
        let (lines, consumed, next) = parse_chunk(
            &super::super::claude::ClaudeCode,
            Path::new("s1.jsonl"),
            &bytes,
            &ReadMark::default(),
            &mut sync,
        );
        assert!(sync.warnings.is_empty(), "{:?}", sync.warnings);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].line, 1);
        assert_eq!((consumed, next), (bytes.len() as u64, 2));
    }
}
