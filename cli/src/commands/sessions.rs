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
use keel_engine::sessions::{ExplicitRepos, Instant, SessionSources, settings_near};
use keel_queries::sessions::{Group, ReportError, SessionsReport, scan_plan, sessions_report};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Which session made which commits, at what cost, and what survived?
///
/// Reads a sessions log (one JSON object per line: session_id, harness, start, end, repo,
/// project, cost.total, api_calls, tools), scans the repositories (`--repo`, else
/// `[sessions] repos` of keel.toml, else the sessions' own) and links commits to sessions
/// by agent trailer or by time window. Window links stay pending until a decision
/// (`--decisions`, point commit_link) answers them. Exit 0: report printed; 2: bad usage
/// or input keel could not read (nothing written).
#[derive(Debug, clap::Args)]
pub(crate) struct SessionsArgs {
    /// The sessions log (JSON lines).
    #[arg(long, value_name = "FILE")]
    sessions: PathBuf,
    /// Decisions to apply (JSON lines; point commit_link, probabilities.yes).
    #[arg(long, value_name = "FILE")]
    decisions: Option<PathBuf>,
    /// A repository to scan (repeatable); replaces `[sessions] repos`.
    #[arg(long = "repo", value_name = "DIR")]
    repos: Vec<PathBuf>,
    /// Sessions that ended in the last N days are in scope [default: `[sessions] days`, 30].
    #[arg(long, value_name = "N")]
    days: Option<u32>,
    /// The clock, for reproducible runs (RFC 3339, e.g. 2026-01-16T00:00:00Z).
    #[arg(long, value_name = "RFC3339")]
    now: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

fn now(flag: Option<&str>) -> Result<Instant, CommandError> {
    match flag {
        Some(text) => Instant::parse_rfc3339(text).map_err(|message| {
            CommandError(format!(
                "--now: {message}; repair: pass RFC 3339 with an offset, e.g. --now 2026-01-16T00:00:00Z"
            ))
        }),
        None => {
            let since_epoch = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|_| CommandError("the system clock is before 1970; repair: set the clock or pass --now".to_owned()))?;
            Ok(Instant::from_nanos(
                i64::try_from(since_epoch.as_nanos()).unwrap_or(i64::MAX),
            ))
        }
    }
}

/// The sources of this run: flags first, then `keel.toml` near the working folder.
fn sources(args: &SessionsArgs) -> Result<SessionSources, CommandError> {
    let now = now(args.now.as_deref())?;
    let (root, settings) = settings_near(&std::env::current_dir()?)?;
    let repos = if !args.repos.is_empty() {
        Some(ExplicitRepos {
            origin: "--repo".to_owned(),
            paths: args.repos.clone(),
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
        sessions: args.sessions.clone(),
        decisions: args.decisions.clone(),
        now,
        days: args.days.unwrap_or(settings.sessions.days),
        repos,
        trailers: settings.trailers,
    })
}

pub(crate) fn cmd_sessions(args: &SessionsArgs) -> Result<ExitStatus, CommandError> {
    let mut db = KeelDatabase::detached();
    let world = db.load_sessions(sources(args)?)?;
    let plan = scan_plan(&db, world);
    // Long work shows progress on a terminal only, never in pipes or with JSON.
    let progress = args.format == Format::Text && std::io::stderr().is_terminal();
    if progress {
        eprint!("keel sessions: scanning {} repositories…", plan.repos.len());
    }
    let scanned = db.plan_session_scan(plan);
    if progress {
        eprint!("\r\x1b[K");
    }
    scanned?;
    let report = sessions_report(&db, world).clone().map_err(|err| match err {
        ReportError::Trailer(err) => CommandError(format!(
            "keel.toml: [trailers] {}: not a valid regex ({}); repair: fix the pattern (Rust regex syntax, matched case-insensitively)",
            err.harness, err.message
        )),
    })?;
    let text = match args.format {
        Format::Text => text(&report),
        Format::Json => json(&report),
    };
    for warning in db.session_warnings() {
        eprintln!("warning: {warning}");
    }
    write_stdout(&text)?;
    Ok(ExitStatus::Clean)
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
                number(Some(g.cost)),
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
        "keel sessions: {} in scope, {} linked, unlinked cost {}\n\n",
        s.sessions_total,
        s.linked,
        number(Some(s.unlinked_cost))
    );
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
                    number(Some(r.cost)),
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
