//! `keel report --html FILE`: one self-contained HTML page of the lint at HEAD, its hits
//! over time and, given session flags, the sessions report.
//!
//! Owns: the flags, gathering the page's data (the lint report as `keel lint` computes it,
//! the committer dates of its hit commits, the sessions report as `keel sessions` computes
//! it), writing the page only once everything succeeded, and the exit status (the lint's).
//! Does not own: the page (`html`), its file (`page_file`: refused before any work,
//! written atomically), the lint (`lint::lint_or_refuse`) or the sessions report
//! (`session_inputs::report`).

use super::helper::{lint_or_refuse, open_repo, save_memo, status_of};
use super::page_file::{PageTarget, repo_name};
use super::session_inputs::{RepoFlag, SessionInputs};
use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use crate::html;
use crate::render::{self, counted};
use keel_engine::KeelDatabase;
use keel_engine::inputs::Tip;
use keel_engine::sessions::settings_near;
use keel_queries::lint::history;
use keel_queries::lint::{LintReport, Scope};
use keel_queries::sessions::SessionsReport;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Write the lint at HEAD, and the sessions report, as one self-contained HTML page
///
/// The page shows every spec node with its status (blocked, warning, clean), findings and
/// hits, filterable by id, path and status; the hit commits over time; and, given any
/// session flag, cost per kept commit, cost per 100 lines and revert rate per harness and
/// per repository, computed as `keel sessions` computes them (without --sessions or a
/// log-folder flag, --claude-dir, --codex-dir, --gemini-dir or --opencode-dir, the
/// default agent-log folders are read, e.g. with --days
/// 30; `keel.toml` is read from the work tree holding --repo). It holds its own styles,
/// script and charts and loads nothing. Exit 0: written, nothing blocks; 1: written, the
/// lint blocks (as `keel lint` would exit); 2: bad usage or input keel could not read (one
/// error line; nothing written).
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// The page to write; replaced only once the whole page is ready.
    #[arg(long, value_name = "FILE")]
    html: PathBuf,
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    #[command(flatten)]
    session_flags: SessionFlags,
}

/// The flags of `keel sessions`, passed on to it.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Sessions (the flags of keel sessions; --now is named on the page)")]
struct SessionFlags {
    #[command(flatten)]
    inputs: SessionInputs,
    /// A repository to scan for the sessions' commits (repeatable; `keel sessions
    /// --repo`) [default: `[sessions] repos` of keel.toml, else the sessions' own].
    #[arg(long = "session-repo", value_name = "DIR")]
    repos: Vec<PathBuf>,
}

impl SessionFlags {
    /// True when any session flag was given: the page then has a sessions section.
    fn given(&self) -> bool {
        self.inputs.given() || !self.repos.is_empty()
    }

    fn repos(&self) -> RepoFlag<'_> {
        RepoFlag {
            flag: "--session-repo",
            paths: &self.repos,
        }
    }
}

pub(crate) fn cmd_report(args: &ReportArgs) -> Result<ExitStatus, CommandError> {
    let target = PageTarget::check(&args.html)?;
    let mut db = open_repo(&args.repo)?;
    let (lint, parses) = lint_or_refuse(&db, Scope::Full)?;
    let commit_times = hit_times(&db, &lint);
    let flags = &args.session_flags;
    let sessions = if flags.given() {
        let (root, settings) = settings_near(&args.repo)?;
        Some(super::session_inputs::report(
            &flags.inputs,
            flags.repos(),
            root,
            &settings,
            true,
        )?)
    } else {
        None
    };
    let repo = repo_name(&db, &args.repo);
    let page = html::page(&html::Page {
        repo: &repo,
        lint: &lint,
        commit_times: &commit_times,
        sessions: sessions.as_ref(),
        now: flags.inputs.now.as_deref(),
    });
    target.write(&page)?;
    write_stdout(&summary_line(&args.html, &lint, sessions.as_ref()))?;
    let counts = render::work_counts(&db, parses);
    save_memo(&mut db, counts.fresh_work());
    Ok(status_of(&lint))
}

/// The committer time of every hit commit, read from the commit inputs of the tip's
/// history (every hit commit is in it).
fn hit_times(db: &KeelDatabase, report: &LintReport) -> BTreeMap<String, i64> {
    let wanted: BTreeSet<&str> = report
        .findings
        .iter()
        .flat_map(|finding| &finding.hits)
        .map(|hit| &*hit.commit)
        .collect();
    let Some(tip) = Tip::get(db).commit(db) else {
        return BTreeMap::new();
    };
    history(db, tip)
        .into_iter()
        .filter_map(|commit| {
            let id = commit.id(db).to_string();
            wanted
                .contains(id.as_str())
                .then(|| (id, commit.committer_time(db)))
        })
        .collect()
}

/// `keel report: wrote FILE: 3 nodes (1 blocked, 1 warning, 1 clean); sessions: …`.
fn summary_line(file: &Path, lint: &LintReport, sessions: Option<&SessionsReport>) -> String {
    let counts = html::status_counts(lint);
    let sessions = sessions.map_or_else(
        || "no session data".to_owned(),
        |s| {
            format!(
                "{} in scope, {} linked",
                counted(s.summary.sessions_total, "session"),
                s.summary.linked
            )
        },
    );
    format!(
        "keel report: wrote {}: {} ({} blocked, {} warning, {} clean); {sessions}\n",
        file.display(),
        counted(counts.blocked + counts.warning + counts.clean, "node"),
        counts.blocked,
        counts.warning,
        counts.clean,
    )
}
