//! `keel sessions`: what each AI coding-agent session cost, which commits it produced,
//! and how many survived.
//!
//! Owns: the flags, reading `keel.toml` near the working folder for `[sessions]` and
//! `[trailers]`, driving the engine (load, plan, scan) and the report query, printing
//! warnings on stderr, and rendering text (tables per repository and per harness, the
//! records, the pending questions) and JSON (`keel.sessions.v1`).
//! Does not own: reading files or repositories (`keel_engine::sessions`) or any rule
//! (`keel_queries::sessions`).

use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use keel_engine::KeelDatabase;
use keel_engine::agents::{LogEnv, LogSources, session_repo};
use keel_engine::sessions::{
    ExplicitRepos, Instant, SessionData, SessionInput, SessionSources, TIME_RANGE, settings_near,
};
use keel_engine::settings::Settings;
use keel_queries::agents::{AgentSession, AgentSessions, agent_sessions};
use keel_queries::sessions::{Group, ReportError, SessionsReport, scan_plan, sessions_report};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Which session made which commits, at what cost, and what survived?
///
/// Reads the agents' own logs (Claude Code: --claude-dir, else each $CLAUDE_CONFIG_DIR
/// entry's projects/, else ~/.claude/projects and ~/.config/claude/projects; Codex:
/// --codex-dir, else $CODEX_HOME, else ~/.codex), or a sessions log in keel's format
/// (--sessions, which wins), scans the repositories (--repo, else `[sessions] repos` of
/// keel.toml, else the sessions' own) and links commits to sessions by agent trailer or by
/// time window. Window links stay pending until a decision (--decisions, point
/// commit_link) answers them. Exit 0: report printed; 2: bad usage or input keel could not
/// read (nothing written).
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct SessionsArgs {
    #[command(subcommand)]
    command: Option<SessionsCommand>,
    #[command(flatten)]
    inputs: SessionInputs,
    /// A repository to scan (repeatable); replaces `[sessions] repos`.
    #[arg(long = "repo", value_name = "DIR")]
    repos: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// What a sessions report is made of besides the repositories: the sessions (a file, else
/// the agent logs), the decisions, the period and the clock. `keel sessions` and
/// `keel report` take the same flags.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SessionInputs {
    /// A sessions log in keel's format (JSON lines); without it keel reads the agent logs.
    #[arg(long, value_name = "FILE")]
    sessions: Option<PathBuf>,
    #[command(flatten)]
    logs: LogArgs,
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
}

#[derive(Debug, clap::Subcommand)]
enum SessionsCommand {
    Export(ExportArgs),
}

/// Writes the sessions read from the agent logs as JSON lines on stdout, sorted by (start,
/// session_id): keel's sessions.jsonl format plus tokens and models, so they can be
/// inspected, edited and replayed with `keel sessions --sessions FILE`.
#[derive(Debug, clap::Args)]
struct ExportArgs {
    #[command(flatten)]
    logs: LogArgs,
    /// Only sessions that ended at or after this instant (RFC 3339, or a date YYYY-MM-DD
    /// meaning its start in UTC).
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
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
    let repos = if !repos.paths.is_empty() {
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
    };
    Ok(SessionSources {
        sessions,
        decisions: inputs.decisions.clone(),
        now,
        days,
        repos,
        trailers: settings.trailers.clone(),
    })
}

/// Reads the agent logs into `db` and returns their sessions, printing warnings on stderr
/// (and progress, on a terminal, when `progress` allows).
fn read_agent_logs(
    db: &mut KeelDatabase,
    logs: &LogArgs,
    settings: &Settings,
    progress: bool,
) -> Result<AgentSessions, CommandError> {
    let sources = LogSources {
        claude_dirs: logs.claude_dirs.clone(),
        codex_dirs: logs.codex_dirs.clone(),
        env: LogEnv::from_process(),
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
    let (agent_logs, sync) = db.sync_agent_logs(None, &sources, &mut tick)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    db.set_agent_prices(agent_logs, settings.prices.clone());
    let sessions = agent_sessions(db, agent_logs).clone();
    for warning in &sync.warnings {
        eprintln!("warning: {warning}");
    }
    for warning in &sessions.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(sessions)
}

/// An agent session as a sessions.jsonl record.
fn session_data(session: &AgentSession) -> SessionData {
    let (repo, repo_real) = match session.cwd.as_deref() {
        Some(cwd) => {
            let (repo, real) = session_repo(cwd);
            (Some(repo), Some(real))
        }
        None => (None, None),
    };
    SessionData {
        session_id: session.session_id.to_string(),
        harness: session.harness.clone(),
        start: session.start,
        end: session.end,
        repo,
        repo_real,
        project: session.cwd.as_deref().and_then(project_of),
        cost: session.cost.clone(),
        api_calls: session.api_calls,
        tools: session
            .tools
            .iter()
            .map(|(name, calls)| (name.to_string(), *calls))
            .collect(),
        origin: session.origin.clone(),
    }
}

/// `basename(cwd)`, as written (never decoded from a folder name).
fn project_of(cwd: &str) -> Option<String> {
    cwd.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

pub(crate) fn cmd_sessions(args: &SessionsArgs) -> Result<ExitStatus, CommandError> {
    let (root, settings) = settings_near(&std::env::current_dir()?)?;
    if let Some(SessionsCommand::Export(export)) = &args.command {
        return cmd_export(export, &settings);
    }
    let repos = RepoFlag {
        flag: "--repo",
        paths: &args.repos,
    };
    let for_people = args.format == Format::Text;
    let report = report(&args.inputs, repos, root, &settings, for_people)?;
    let text = match args.format {
        Format::Text => text(&report),
        Format::Json => json(&report),
    };
    write_stdout(&text)?;
    Ok(ExitStatus::Clean)
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
                sessions: read.sessions.iter().map(session_data).collect(),
            }
        }
    };
    let world = db.load_sessions(sources(inputs, repos, root, settings, input)?)?;
    let plan = scan_plan(&db, world);
    // Long work shows progress on a terminal only, never in pipes or with JSON.
    let progress = progress && std::io::stderr().is_terminal();
    if progress {
        eprint!("keel sessions: scanning {} repositories…", plan.repos.len());
    }
    let scanned = db.plan_session_scan(plan);
    if progress {
        eprint!("\r\x1b[K");
    }
    scanned?;
    let report = sessions_report(&db, world)
        .clone()
        .map_err(|err| match err {
            ReportError::Trailer(err) => CommandError::repairable(
                format!(
                    "keel.toml: [trailers] {}: not a valid regex ({})",
                    err.harness, err.message
                ),
                "fix the pattern (Rust regex syntax, matched case-insensitively)",
            ),
        })?;
    for warning in db.session_warnings() {
        eprintln!("warning: {warning}");
    }
    Ok(report)
}

/// `--since`: an RFC 3339 instant, or a date meaning its start in UTC.
fn since(flag: &str) -> Result<Instant, CommandError> {
    let text = if flag.len() == 10 {
        format!("{flag}T00:00:00Z")
    } else {
        flag.to_owned()
    };
    Instant::parse_rfc3339(&text).map_err(|message| {
        CommandError::repairable(
            format!("--since: {message}"),
            "pass a date (2026-01-15) or RFC 3339 with an offset",
        )
    })
}

/// `keel sessions export`.
fn cmd_export(args: &ExportArgs, settings: &Settings) -> Result<ExitStatus, CommandError> {
    let since = args.since.as_deref().map(since).transpose()?;
    let mut db = KeelDatabase::detached();
    let read = read_agent_logs(&mut db, &args.logs, settings, true)?;
    let mut out = String::new();
    for session in &read.sessions {
        if since.is_some_and(|since| session.end < since) {
            continue;
        }
        out.push_str(&export_line(session));
        out.push('\n');
    }
    write_stdout(&out)?;
    Ok(ExitStatus::Clean)
}

/// One exported session: the sessions.jsonl fields, then `tokens` and `models`.
fn export_line(session: &AgentSession) -> String {
    let data = session_data(session);
    let cost = data
        .cost
        .as_ref()
        .and_then(|cost| cost.as_str().parse::<f64>().ok());
    let record = ExportRecord {
        session_id: &data.session_id,
        harness: &data.harness,
        start: data.start.to_rfc3339(),
        end: data.end.to_rfc3339(),
        repo: data.repo.as_deref(),
        project: data.project.as_deref(),
        cost: ExportCost { total: cost },
        api_calls: data.api_calls,
        tools: &data.tools,
        tokens: ExportTokens {
            input: session.tokens.input,
            output: session.tokens.output,
            cache_write_5m: session.tokens.cache_write_5m,
            cache_write_1h: session.tokens.cache_write_1h,
            cache_read: session.tokens.cache_read,
        },
        models: session.models.iter().map(|m| &**m).collect(),
    };
    // Strings, numbers, nulls, lists and string-keyed maps only: serialization cannot fail.
    serde_json::to_string(&record).unwrap_or_default()
}

#[derive(serde::Serialize)]
struct ExportRecord<'a> {
    session_id: &'a str,
    harness: &'a str,
    start: String,
    end: String,
    repo: Option<&'a str>,
    project: Option<&'a str>,
    cost: ExportCost,
    api_calls: u64,
    tools: &'a BTreeMap<String, u64>,
    tokens: ExportTokens,
    models: Vec<&'a str>,
}

#[derive(serde::Serialize)]
struct ExportCost {
    total: Option<f64>,
}

#[derive(serde::Serialize)]
struct ExportTokens {
    input: u64,
    output: u64,
    cache_write_5m: u64,
    cache_write_1h: u64,
    cache_read: u64,
}

/// `keel.sessions.v1`, pretty-printed.
pub(crate) fn json(report: &SessionsReport) -> String {
    // The report holds only strings, numbers, nulls, lists and string-keyed maps:
    // serialization cannot fail.
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// A number as JSON writes it (`2.0`, `0.333333`), `-` for null.
fn number(value: Option<f64>) -> String {
    value.map_or_else(
        || "-".to_owned(),
        |v| serde_json::to_string(&v).unwrap_or_default(),
    )
}

/// A cost as JSON writes it, `unknown` for null (an unpriced model: never shown as 0).
fn money(value: Option<f64>) -> String {
    value.map_or_else(|| "unknown".to_owned(), |v| number(Some(v)))
}

/// Left-aligned columns, two spaces apart, indented by two.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        format!("  {}\n", padded.join("  ").trim_end())
    };
    let mut out = line(header.iter().map(|h| (*h).to_owned()).collect());
    for row in rows {
        out.push_str(&line(row.clone()));
    }
    out
}

fn groups(title: &str, key: &str, groups: &BTreeMap<String, Group>) -> String {
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|(name, g)| {
            vec![
                name.clone(),
                money(g.cost),
                g.commits_kept.to_string(),
                g.commits_reverted.to_string(),
                g.lines_added.to_string(),
                number(g.cost_per_kept_commit),
                number(g.cost_per_100_lines),
                number(g.revert_rate),
            ]
        })
        .collect();
    if rows.is_empty() {
        return format!("{title}: no linked session\n");
    }
    format!(
        "{title}\n{}",
        table(
            &[
                key,
                "cost",
                "kept",
                "reverted",
                "lines",
                "cost/kept",
                "cost/100 lines",
                "revert rate",
            ],
            &rows,
        )
    )
}

/// The readable report.
pub(crate) fn text(report: &SessionsReport) -> String {
    let s = &report.summary;
    let mut out = format!(
        "keel sessions: {} in scope, {} linked, unlinked cost {}",
        s.sessions_total,
        s.linked,
        money(s.unlinked_cost)
    );
    if s.unpriced_sessions > 0 {
        out.push_str(&format!(
            ", {} with unknown cost (an unpriced model; see the warnings)",
            s.unpriced_sessions
        ));
    }
    out.push_str("\n\n");
    out.push_str(&groups("by repo", "repo", &s.by_repo));
    out.push('\n');
    out.push_str(&groups("by harness", "harness", &s.by_harness));
    out.push('\n');
    if report.records.is_empty() {
        out.push_str("records: none\n");
    } else {
        let rows: Vec<Vec<String>> = report
            .records
            .iter()
            .map(|r| {
                vec![
                    r.session_id.clone(),
                    r.harness.clone(),
                    r.repo_label.clone(),
                    r.link.to_owned(),
                    r.link_p
                        .map_or_else(|| "pending".to_owned(), |p| number(Some(p))),
                    r.commits.len().to_string(),
                    format!("+{} -{}", r.added, r.deleted),
                    r.commits_kept.to_string(),
                    r.commits_reverted.to_string(),
                    money(r.cost),
                ]
            })
            .collect();
        out.push_str("records\n");
        out.push_str(&table(
            &[
                "session", "harness", "repo", "link", "p", "commits", "lines", "kept", "reverted",
                "cost",
            ],
            &rows,
        ));
    }
    out.push('\n');
    if report.pending.is_empty() {
        out.push_str("pending: none\n");
    } else {
        out.push_str(&format!(
            "pending: {} question(s) for point commit_link; answer yes/no in --decisions\n",
            report.pending.len()
        ));
        for p in &report.pending {
            let shas: Vec<&str> = p.commits.iter().map(|c| &c[..c.len().min(12)]).collect();
            out.push_str(&format!(
                "  {}  session {} in {}: {}\n",
                p.subject,
                p.session_id,
                p.repo_label,
                shas.join(" ")
            ));
        }
    }
    out
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
