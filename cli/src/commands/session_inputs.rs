//! What a sessions report is read from, shared by `keel sessions` (and its `usage`) and
//! `keel report`: the flags (the sessions file or the agent logs, the decisions, the
//! period, the clock, the repositories), `keel.toml`'s `[sessions]` and `[trailers]`, and
//! the run that reads them through the engine's door and asks for the report.
//!
//! Owns: turning flags and settings into [`SessionSources`] and [`LogSources`], the
//! order of the reads (agent logs and prices, with the bundled price table decoded on a
//! thread meanwhile; the sessions; the scan plan), the scope
//! `keel sessions usage` links its sessions in (every session read), progress on a
//! terminal, and the warnings on stderr.
//! Does not own: reading files or repositories (`keel_engine`), any rule
//! (`keel_queries::sessions`, `keel_queries::agents`), or rendering (`sessions`).

use super::CommandError;
use crate::streams::{errln, write_stderr};
use keel_engine::Oid;
use keel_engine::agents::{LogCache, LogEnv, LogSources, session_repo};
use keel_engine::inputs::{Commit, Tip};
use keel_engine::sessions::{
    ExplicitRepos, Instant, SessionData, SessionInput, SessionSources, SessionWorld, TIME_RANGE,
};
use keel_engine::settings::Settings;
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_queries::agents::{AgentSession, AgentSessions, agent_sessions, log_digest};
use keel_queries::sessions::{
    ReportError, SessionTouched, SessionsReport, scan_plan, sessions_report,
};
use keel_queries::touched::touched_commits;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::Path;
use std::path::PathBuf;

/// What a sessions report is made of besides the repositories: the sessions (a file, else
/// the agent logs), the decisions, the period and the clock. `keel sessions` and
/// `keel report` take the same flags.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SessionInputs {
    /// A sessions log in keel's format (JSON lines); without it keel reads the agent logs.
    #[arg(long, value_name = "FILE")]
    sessions: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) logs: LogArgs,
    /// Decisions to apply (JSON lines; point commit_link, probabilities.yes).
    #[arg(long, value_name = "FILE")]
    decisions: Option<PathBuf>,
    /// Sessions that ended in the last N days are in scope [default: `[sessions] days`, 30].
    // Signed, so that `--days -1` reaches `days` (and its message) instead of reading as a flag.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    days: Option<i64>,
    /// The clock, for reproducible runs (RFC 3339, e.g. 2026-01-16T00:00:00Z).
    // Hyphen values, so that a negative year reaches `now` (and its message).
    #[arg(long, value_name = "RFC3339", allow_hyphen_values = true)]
    pub(crate) now: Option<String>,
}

impl SessionInputs {
    /// True when any of these flags was given.
    pub(crate) fn given(&self) -> bool {
        self.sessions.is_some()
            || !self.logs.claude_dirs.is_empty()
            || !self.logs.codex_dirs.is_empty()
            || !self.logs.gemini_dirs.is_empty()
            || !self.logs.opencode_dirs.is_empty()
            || self.decisions.is_some()
            || self.days.is_some()
            || self.now.is_some()
    }
}

/// The repositories a flag names, and the flag, for messages about them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RepoFlag<'a> {
    pub(crate) flag: &'static str,
    pub(crate) paths: &'a [PathBuf],
}

/// Where the agent logs are.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct LogArgs {
    /// A folder of Claude Code logs, read recursively (repeatable) [default: each
    /// $CLAUDE_CONFIG_DIR entry's projects/, else ~/.claude/projects and
    /// ~/.config/claude/projects].
    #[arg(long = "claude-dir", value_name = "DIR")]
    claude_dirs: Vec<PathBuf>,
    /// A CODEX_HOME: its sessions/ and archived_sessions/ are read (repeatable) [default:
    /// $CODEX_HOME, else ~/.codex].
    #[arg(long = "codex-dir", value_name = "DIR")]
    codex_dirs: Vec<PathBuf>,
    /// A .gemini folder: the chats of its tmp/*/chats/ are read (repeatable) [default:
    /// $GEMINI_CLI_HOME/.gemini, else ~/.gemini].
    #[arg(long = "gemini-dir", value_name = "DIR")]
    gemini_dirs: Vec<PathBuf>,
    /// An OpenCode data folder: its storage/ sessions, messages and parts are read
    /// (repeatable) [default: $XDG_DATA_HOME/opencode, else ~/.local/share/opencode].
    #[arg(long = "opencode-dir", value_name = "DIR")]
    opencode_dirs: Vec<PathBuf>,
    /// Read every log, neither using nor writing the user cache of what earlier runs read
    /// ($KEEL_CACHE_DIR, else $XDG_CACHE_HOME/keel, else ~/.cache/keel).
    #[arg(long = "no-cache")]
    no_cache: bool,
}

fn now(flag: Option<&str>) -> Result<Instant, CommandError> {
    match flag {
        Some(text) => Instant::parse_rfc3339(text).map_err(|err| {
            CommandError::repairable(format!("--now: {err}"), format!("pass an RFC 3339 time with an offset {TIME_RANGE}, e.g. --now 2026-01-16T00:00:00Z"))
        }),
        None => {
            let since_epoch = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|_| CommandError::repairable("the system clock is before 1970", "set the clock or pass --now"))?;
            Ok(Instant::from_nanos(
                i64::try_from(since_epoch.as_nanos()).unwrap_or(i64::MAX),
            ))
        }
    }
}

/// `--days`, else `[sessions] days`: a whole number of days ≥ 0.
fn days(flag: Option<i64>, settings: &Settings) -> Result<u32, CommandError> {
    let Some(days) = flag else {
        return Ok(settings.sessions.days);
    };
    if days < 0 {
        return Err(CommandError::repairable(
            format!("--days: {days} must be ≥ 0"),
            "pass a whole number of days, e.g. --days 30",
        ));
    }
    u32::try_from(days).map_err(|_| {
        CommandError::repairable(
            format!("--days: {days} is more days than keel counts"),
            format!("pass at most {}", u32::MAX),
        )
    })
}

/// The repositories `repos` names, else `[sessions] repos` of `keel.toml` (relative to
/// `root`, the work tree holding it); `None` when the sessions' own are to be scanned.
fn explicit_repos(
    repos: RepoFlag<'_>,
    root: Option<PathBuf>,
    settings: &Settings,
) -> Option<ExplicitRepos> {
    if !repos.paths.is_empty() {
        Some(ExplicitRepos {
            origin: repos.flag.to_owned(),
            paths: repos.paths.to_vec(),
        })
    } else if !settings.sessions.repos.is_empty() {
        let base = root.unwrap_or_default();
        Some(ExplicitRepos {
            origin: "keel.toml [sessions] repos".to_owned(),
            paths: settings
                .sessions
                .repos
                .iter()
                .map(|repo| base.join(repo))
                .collect(),
        })
    } else {
        None
    }
}

/// The sources of this run: flags first, then `keel.toml` near the working folder.
fn sources(
    inputs: &SessionInputs,
    repos: RepoFlag<'_>,
    root: Option<PathBuf>,
    settings: &Settings,
    sessions: SessionInput,
) -> Result<SessionSources, CommandError> {
    let now = now(inputs.now.as_deref())?;
    let days = days(inputs.days, settings)?;
    Ok(SessionSources {
        sessions,
        decisions: inputs.decisions.clone(),
        now,
        days,
        repos: explicit_repos(repos, root, settings),
        trailers: settings.trailers.clone(),
    })
}

/// Reads the agent logs into `db` and returns their sessions, printing warnings on stderr
/// (and progress, on a terminal, when `progress` allows).
pub(crate) fn read_agent_logs(
    db: &mut KeelDatabase,
    logs: &LogArgs,
    settings: &Settings,
    progress: bool,
) -> Result<AgentSessions, CommandError> {
    // Any call read anew is priced by the bundled table: it decodes on the other core
    // while the logs are read, instead of after.
    std::thread::spawn(keel_queries::agents::prices::load_bundled_table);
    let env = LogEnv::from_process();
    let cache = if logs.no_cache {
        None
    } else {
        LogCache::for_user(&env, super::helper::BUILD)
    };
    let sources_cache = cache.clone();
    let sources = LogSources {
        claude_dirs: logs.claude_dirs.clone(),
        codex_dirs: logs.codex_dirs.clone(),
        gemini_dirs: logs.gemini_dirs.clone(),
        opencode_dirs: logs.opencode_dirs.clone(),
        env,
        cache,
    };
    let bar = (progress && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "keel sessions: reading logs {bar:30} {pos}/{len} files",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut tick = |done: usize, total: usize| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let read = db.apply_changes_with_progress(
        &[
            ChangeEvent::AgentLogsFrom(Box::new(sources)),
            ChangeEvent::PricesChanged(settings.prices.clone()),
        ],
        &mut tick,
    )?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let sync = read.agent_logs.unwrap_or_default();
    let sessions = db
        .agent_logs()
        .map(|logs| agent_sessions(db, logs).clone())
        .unwrap_or_default();
    let kept = match &sources_cache {
        Some(cache) => db.keep_agent_logs(cache, &sync, &|log| log_digest(db, log)),
        None => Vec::new(),
    };
    for warning in sync.warnings.iter().chain(&kept) {
        errln!("warning: {warning}");
    }
    for warning in &sessions.warnings {
        errln!("warning: {warning}");
    }
    Ok(sessions)
}

/// An agent session as a sessions.jsonl record, its repository located on disk.
pub(crate) fn record(session: &AgentSession) -> SessionData {
    session.record(session.cwd.as_deref().map(session_repo))
}

/// The sessions report of `inputs` over `repos`: the sessions read (the file, else the
/// agent logs), the repositories scanned and linked. Warnings go to stderr; `progress`
/// allows progress on a terminal (never in pipes).
pub(crate) fn report(
    inputs: &SessionInputs,
    repos: RepoFlag<'_>,
    root: Option<PathBuf>,
    settings: &Settings,
    progress: bool,
) -> Result<SessionsReport, CommandError> {
    let mut db = KeelDatabase::detached();
    let input = match &inputs.sessions {
        Some(file) => SessionInput::File(file.clone()),
        None => {
            let read = read_agent_logs(&mut db, &inputs.logs, settings, progress)?;
            SessionInput::Records {
                origin: "agent logs".to_owned(),
                sessions: read.sessions.iter().map(record).collect(),
            }
        }
    };
    let sources = sources(inputs, repos, root, settings, input)?;
    let world = link(&mut db, sources, progress)?;
    // `link` made this report and refused its error.
    let mut report = sessions_report(&db, world).clone().map_err(report_error)?;
    let touched = touched_by_record(&report);
    report.with_touched(touched);
    Ok(report)
}

/// Loads `sources` into `db` and links its sessions to their repositories' commits (the
/// scan through the engine's door, with progress on a terminal when `progress` allows):
/// the world `keel sessions` reports on. Warnings go to stderr.
fn link(
    db: &mut KeelDatabase,
    sources: SessionSources,
    progress: bool,
) -> Result<SessionWorld, CommandError> {
    let loaded = db.apply_changes(&[ChangeEvent::SessionsFrom(Box::new(sources))])?;
    // A `SessionsFrom` that succeeded always made its world.
    let world = loaded.sessions_loaded.expect("a loaded world");
    let plan = scan_plan(db, world);
    // Long work shows progress on a terminal only, never in pipes or with JSON.
    let progress = progress && std::io::stderr().is_terminal();
    if progress {
        write_stderr(&format!(
            "keel sessions: scanning {} repositories…",
            plan.repos.len()
        ));
    }
    let scanned = db.apply_changes(&[ChangeEvent::ScanPlanned(plan)]);
    if progress {
        write_stderr("\r\x1b[K");
    }
    scanned?;
    if let Err(err) = sessions_report(db, world) {
        return Err(report_error(err.clone()));
    }
    for warning in db.session_warnings() {
        errln!("warning: {warning}");
    }
    Ok(world)
}

/// Why a report could not be made, as the user repairs it.
fn report_error(err: ReportError) -> CommandError {
    match err {
        ReportError::Trailer(err) => CommandError::repairable(
            format!(
                "keel.toml: [trailers] {}: not a valid regex ({})",
                err.harness, err.message
            ),
            "fix the pattern (Rust regex syntax, matched case-insensitively)",
        ),
    }
}

/// The agent logs' sessions (`sessions`, read into `db` by [`read_agent_logs`]) linked to
/// their commits as `keel sessions` links them, over every session read: the scope runs
/// from the earliest session's end to now (or the latest end, if later), so no session
/// and none of its commits is left out. `repos` and `decisions` as for `keel sessions`.
pub(crate) fn link_agent_sessions(
    db: &mut KeelDatabase,
    sessions: &AgentSessions,
    repos: RepoFlag<'_>,
    decisions: Option<PathBuf>,
    root: Option<PathBuf>,
    settings: &Settings,
    progress: bool,
) -> Result<SessionWorld, CommandError> {
    let clock = now(None)?;
    let latest = sessions.sessions.iter().map(|s| s.end).max();
    let now = latest.map_or(clock, |latest| latest.max(clock));
    let earliest = sessions.sessions.iter().map(|s| s.end).min().unwrap_or(now);
    const NANOS_PER_DAY: i128 = 86_400 * 1_000_000_000;
    let span = i128::from(now.nanos()) - i128::from(earliest.nanos());
    let days = u32::try_from((span + NANOS_PER_DAY - 1) / NANOS_PER_DAY).unwrap_or(u32::MAX);
    let sources = SessionSources {
        sessions: SessionInput::Records {
            origin: "agent logs".to_owned(),
            sessions: sessions.sessions.iter().map(record).collect(),
        },
        decisions,
        now,
        days,
        repos: explicit_repos(repos, root, settings),
        trailers: settings.trailers.clone(),
    };
    link(db, sources, progress)
}

/// Each linked record's projection: `keel touched` over its commits as a set, at its
/// repository's HEAD, read through that repository's own database and memo (one per
/// repository). A repository whose specs or history cannot be read gets one warning and
/// no projection; a pending record gets none.
fn touched_by_record(report: &SessionsReport) -> Vec<Option<SessionTouched>> {
    let mut repos: HashMap<PathBuf, Option<KeelDatabase>> = HashMap::new();
    let touched: Vec<Option<SessionTouched>> = report
        .records
        .iter()
        .map(|record| {
            record.link_p?;
            let db = repos
                .entry(record.repo_path.clone())
                .or_insert_with(|| open_for_touched(&record.repo_path, report))
                .as_mut()?;
            match record_touched(db, &record.commits) {
                Ok(touched) => Some(touched),
                Err(err) => {
                    not_counted(&record.repo_path, &err);
                    None
                }
            }
        })
        .collect();
    for db in repos.values_mut().flatten() {
        super::helper::save_memo(db, true);
    }
    touched
}

/// The database of the repository at `path` with every commit its linked records name
/// read (commits HEAD does not reach too, so the projection can name them), HEAD the tip.
fn open_for_touched(path: &Path, report: &SessionsReport) -> Option<KeelDatabase> {
    let opened = super::helper::open_repo(path).and_then(|mut db| {
        let named = report
            .records
            .iter()
            .filter(|record| record.repo_path == path && record.link_p.is_some())
            .flat_map(|record| &record.commits)
            .filter_map(|id| Oid::from_hex(id));
        let unknown: Vec<Oid> = named
            .filter(|&oid| db.known_commit(oid).is_none())
            .collect();
        for oid in unknown {
            db.apply_changes(&[ChangeEvent::TipAt(oid)])?;
        }
        db.apply_changes(&[ChangeEvent::TipMoved])?;
        Ok(db)
    });
    match opened {
        Ok(db) => Some(db),
        Err(err) => {
            not_counted(path, &err);
            None
        }
    }
}

/// The one warning for a repository whose sessions' specs touched are not counted.
fn not_counted(path: &Path, err: &CommandError) {
    errln!(
        "warning: repo {}: the specs its sessions touched are not counted: {err}",
        path.display()
    );
}

/// The projection of the commits `ids` at the database's tip.
fn record_touched(db: &KeelDatabase, ids: &[String]) -> Result<SessionTouched, CommandError> {
    let Some(head) = Tip::get(db).commit(db) else {
        return Err(CommandError::plain("HEAD has no commits"));
    };
    let commits: Vec<Commit> = ids
        .iter()
        .filter_map(|id| Oid::from_hex(id))
        .filter_map(|oid| db.known_commit(oid))
        .collect();
    let report = touched_commits(db, head, &commits).map_err(super::helper::lint_refusal)?;
    Ok(SessionTouched::of(&report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_default_to_the_settings_and_refuse_below_zero_and_beyond_u32() {
        let settings = Settings::default();
        assert_eq!(days(None, &settings).ok(), Some(settings.sessions.days));
        assert_eq!(days(Some(0), &settings).ok(), Some(0));
        let refusal = |n: i64| days(Some(n), &settings).map_err(|err| err.to_string());
        assert_eq!(
            refusal(-1),
            Err(
                "--days: -1 must be ≥ 0; repair: pass a whole number of days, e.g. --days 30"
                    .to_owned()
            )
        );
        assert_eq!(
            refusal(i64::from(u32::MAX) + 1),
            Err(
                "--days: 4294967296 is more days than keel counts; repair: pass at most 4294967295"
                    .to_owned()
            )
        );
    }

    #[test]
    fn now_names_the_range_without_library_words() {
        let err = now(Some("99999-01-01T00:00:00Z"))
            .err()
            .map(|err| err.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "--now: \"99999-01-01T00:00:00Z\" is outside the times keel reads; repair: pass an RFC 3339 time with an offset between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z, e.g. --now 2026-01-16T00:00:00Z"
            )
        );
    }
}
