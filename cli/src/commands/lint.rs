//! `keel lint`: judge every spec node at HEAD (or at a candidate, or the working tree).
//!
//! Owns: opening the database, running lint, choosing the exit status, `--stats`.
//! Does not own: the judgement (`keel_queries::lint`) or its rendering (`render`).

use super::cache::{open_repo, save_memo};
use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use crate::render;
use keel_engine::{ChangeEvent, KeelDatabase, Oid, WORKTREE};

use keel_queries::extract::ParseCounts;
use keel_queries::lint::{LintError, LintReport, Scope, lint_counting_parses};
use std::path::PathBuf;

/// Did a commit since a spec's last version change the code units it pins?
///
/// Exit 0: nothing blocks; 1: a blocking finding or unverified anchors; 2: bad usage or
/// unreadable input.
#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print one JSON line of work counters to stderr: images parsed, hunk sets diffed,
    /// tracked queries executed.
    #[arg(long)]
    stats: bool,
    /// Judge this commit (an id or any revision) as the tip instead of HEAD — a candidate
    /// no ref points at yet — and only the nodes that govern the paths it changed (against
    /// every parent, for a merge). Adds the governor-transition check: a candidate that
    /// deletes a spec node must delete the files it governed or leave them to another node.
    #[arg(long, value_name = "COMMIT")]
    pending: Option<String>,
    /// Judge the working tree as it would be committed (`git add -A`): uncommitted
    /// changes appear as commit `worktree` in hits, so drift shows before the commit.
    /// Every node is judged; specs and `keel.toml` are read from the working tree too.
    #[arg(long, conflicts_with = "pending")]
    worktree: bool,
}

pub(crate) fn cmd_lint(args: &LintArgs) -> Result<ExitStatus, CommandError> {
    let mut db = open_repo(&args.repo)?;
    let mut worktree = None;
    let scope = match &args.pending {
        Some(rev) => {
            let candidate = db.resolve_commit(rev)?;
            db.apply_changes(&[ChangeEvent::TipAt(candidate)])?;
            Scope::Pending
        }
        None => {
            if args.worktree {
                worktree = db.apply_changes(&[ChangeEvent::Worktree])?.worktree;
            }
            Scope::Full
        }
    };
    let (mut report, parses) = lint_or_refuse(&db, scope)?;
    name_worktree(&mut report, worktree);
    print_report(&report, args.format)?;
    let counts = render::work_counts(&db, parses);
    if args.stats {
        eprintln!("{}", render::stats_line(counts));
    }
    save_memo(&mut db, counts.images_parsed + counts.hunk_sets_diffed > 0);
    Ok(status_of(&report))
}

/// Runs lint on every core, also counting how images were parsed; a spec or `keel.toml`
/// keel refuses to read becomes a usage error naming file and line.
pub(crate) fn lint_or_refuse(
    db: &KeelDatabase,
    scope: Scope,
) -> Result<(LintReport, ParseCounts), CommandError> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    lint_counting_parses(db, threads, scope).map_err(|err| match err {
        LintError::Specs(errors) => {
            let first = errors.first().map(ToString::to_string).unwrap_or_default();
            match errors.len() {
                0 | 1 => CommandError(first),
                n => CommandError(format!(
                    "{first} ({} more spec error(s) follow once this one is fixed)",
                    n - 1
                )),
            }
        }
        LintError::Settings(err) => CommandError(err.to_string()),
        LintError::Object(err) => {
            CommandError(format!("{err}; repair: run `git fsck` on the repository"))
        }
    })
}

/// Names the working tree's in-memory commit [`WORKTREE`] in `report`.
pub(crate) fn name_worktree(report: &mut LintReport, worktree: Option<Oid>) {
    if let Some(commit) = worktree {
        report.name_commit(&commit.to_string(), WORKTREE);
    }
}

/// Prints the report in the chosen format on stdout.
pub(crate) fn print_report(report: &LintReport, format: Format) -> Result<(), CommandError> {
    let text = match format {
        Format::Text => render::lint_text(report, render::use_colour()),
        Format::Json => render::lint_json(report),
    };
    write_stdout(&text)
}

/// Exit 1 when the report blocks.
pub(crate) fn status_of(report: &LintReport) -> ExitStatus {
    if report.blocks() {
        ExitStatus::Blocked
    } else {
        ExitStatus::Clean
    }
}
