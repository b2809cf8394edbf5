//! `keel sessions`: what each AI coding-agent session cost, which commits it produced,
//! and how many survived.
//!
//! Owns: the command and the flags of `export` and `usage`, reading `keel.toml` near the
//! working folder, and rendering text (tables per repository and per harness, the records,
//! the pending questions), JSON (`keel.sessions.v1`) and the exported JSON lines; `usage`'s
//! flags checked before anything is read.
//! Does not own: what the report is read from and how (`session_inputs`), reading files or
//! repositories (`keel_engine::sessions`), any rule (`keel_queries::sessions`, its
//! `usage` grouping and JSON) or `usage`'s text table (`crate::sessions_usage_text`).

use super::session_inputs::{
    LogArgs, RepoFlag, SessionInputs, link_agent_sessions, read_agent_logs, record, report,
};
use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use keel_engine::KeelDatabase;
use keel_engine::sessions::{Instant, settings_near};
use keel_engine::settings::Settings;
use keel_engine::zone::time_zone;
use keel_queries::agents::AgentSession;
use keel_queries::sessions::usage::{UsageQuery, usage_json, usage_report};
use keel_queries::sessions::{Group, SessionsReport};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which session made which commits, at what cost, and what survived?
///
/// Reads the agents' own logs (Claude Code: --claude-dir, else each $CLAUDE_CONFIG_DIR
/// entry's projects/, else ~/.claude/projects and ~/.config/claude/projects; Codex:
/// --codex-dir, else $CODEX_HOME, else ~/.codex; Gemini CLI: --gemini-dir, else
/// $GEMINI_CLI_HOME/.gemini, else ~/.gemini; OpenCode: --opencode-dir, else
/// $XDG_DATA_HOME/opencode, else ~/.local/share/opencode), or a sessions log in keel's format
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

#[derive(Debug, clap::Subcommand)]
enum SessionsCommand {
    Export(ExportArgs),
    Usage(UsageArgs),
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

/// Tokens and cost from the agent logs per day (or week, month, session, model, repository,
/// harness), beside the commits the sessions made that were kept and reverted.
///
/// Each API call's tokens and cost go to the local date of the call, so a session past
/// midnight splits between two days; each commit, linked as `keel sessions` links it, goes
/// to the local date of its author time, the repository it was made in, and the model of
/// its session's latest call at or before it. A cost keel cannot price is unknown, never 0.
/// Exit 0: table printed; 2: bad usage or input keel could not read (nothing written).
#[derive(Debug, clap::Args)]
struct UsageArgs {
    #[command(flatten)]
    logs: LogArgs,
    /// Group by day, week (from Monday, named by its date), month, session, model, repo or
    /// harness.
    #[arg(long, value_name = "GROUP", default_value = "day")]
    by: String,
    /// The first local date counted, inclusive (YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// The last local date counted, inclusive (YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// The time zone dates are read in: an IANA name (Europe/Berlin) or UTC.
    #[arg(long, value_name = "TZ", default_value = "UTC")]
    timezone: String,
    /// A repository to link commits in (repeatable); replaces `[sessions] repos` [default:
    /// the sessions' own].
    #[arg(long = "repo", value_name = "DIR")]
    repos: Vec<PathBuf>,
    /// Decisions for window links (JSON lines, as `keel sessions --decisions`); a link
    /// without one is pending, its commits counted apart.
    #[arg(long, value_name = "FILE")]
    decisions: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub(crate) fn cmd_sessions(args: &SessionsArgs) -> Result<ExitStatus, CommandError> {
    let (root, settings) = settings_near(&std::env::current_dir()?)?;
    match &args.command {
        Some(SessionsCommand::Export(export)) => return cmd_export(export, &settings),
        Some(SessionsCommand::Usage(usage)) => return cmd_usage(usage, root, &settings),
        None => {}
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
    // The process exits next: the OS takes the database's memory back at once, where
    // dropping it would free every log's lines and digest one by one.
    std::mem::forget(db);
    Ok(ExitStatus::Clean)
}

/// `keel sessions usage`: the flags are checked first (a bad one writes nothing and reads
/// nothing), then the logs are read, linked and grouped.
fn cmd_usage(
    args: &UsageArgs,
    root: Option<PathBuf>,
    settings: &Settings,
) -> Result<ExitStatus, CommandError> {
    let zone = time_zone(&args.timezone).map_err(|err| {
        CommandError::repairable(
            format!("--timezone: {err}"),
            "pass an IANA time zone name (Europe/Berlin, America/New_York) or UTC",
        )
    })?;
    let query = UsageQuery::new(
        &args.by,
        args.since.as_deref(),
        args.until.as_deref(),
        zone,
        &args.timezone,
    )?;
    let for_people = args.format == Format::Text;
    let mut db = KeelDatabase::detached();
    let read = read_agent_logs(&mut db, &args.logs, settings, for_people)?;
    let repos = RepoFlag {
        flag: "--repo",
        paths: &args.repos,
    };
    let decisions = args.decisions.as_deref().map(Path::to_owned);
    let world = link_agent_sessions(&mut db, &read, repos, decisions, root, settings, for_people)?;
    let report = usage_report(&db, db.agent_logs(), world, &query);
    let text = match args.format {
        Format::Text => crate::sessions_usage_text::text(&report),
        Format::Json => {
            let mut text = usage_json(&report).to_text();
            text.push('\n');
            text
        }
    };
    write_stdout(&text)?;
    // As `keel sessions export`: the OS takes the database's memory back.
    std::mem::forget(db);
    Ok(ExitStatus::Clean)
}

/// One exported session: the sessions.jsonl fields, then `tokens` and `models`.
fn export_line(session: &AgentSession) -> String {
    let data = record(session);
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
                format!(
                    "{} ({} not updated)",
                    g.specs_touched, g.specs_touched_without_update
                ),
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
                "specs touched",
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
                    r.touched.as_ref().map_or_else(
                        || "-".to_owned(),
                        |t| format!("{} ({} updated)", t.nodes, t.spec_updated),
                    ),
                ]
            })
            .collect();
        out.push_str("records\n");
        out.push_str(&table(
            &[
                "session", "harness", "repo", "link", "p", "commits", "lines", "kept", "reverted",
                "cost", "specs",
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
