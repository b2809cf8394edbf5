//! `keel lint`: judge every spec node at HEAD (or at a candidate, or the working tree).
//!
//! Owns: the flags, which tip and scope they name, and `--stats`.
//! Does not own: opening, the memo and the kept answer (`helper`), the judgement
//! (`keel_queries::lint`) or printing the report (`lint_output`).

use super::helper::{
    KeptRun, keep_answer, lint_state_or_refuse, name_worktree, open_repo, save_memo, status_of,
};
use super::lint_output::{LintFormat, print_report};
use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use crate::gate_text::{Retry, refusal_text};
use crate::render;
use crate::streams::errln;
use keel_engine::inputs::Tip;
use keel_engine::{ChangeEvent, KeelDatabase, WORKTREE};
use keel_queries::lint::{LintReport, Scope};
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
    /// Output format: text, json (`keel.lint.v1`), sarif (SARIF 2.1.0, for code
    /// scanning) or github (GitHub Actions annotations).
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    format: LintFormat,
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
    /// Judge the working tree as it would be committed (`git add -A`), as the gate judges
    /// a candidate: only the nodes that govern the paths it changes against HEAD (a clean
    /// working tree is HEAD's own commit); uncommitted changes appear as commit
    /// `worktree` in hits, so drift shows before the commit. Specs and `keel.toml` are
    /// read from the working tree too.
    #[arg(long, conflicts_with = "pending")]
    worktree: bool,
    /// With `--worktree`: judge every node, not only those the change touches.
    #[arg(long, requires = "worktree")]
    all_nodes: bool,
    /// Judge this commit (an id or any revision) as the tip instead of HEAD, every node,
    /// with specs and `keel.toml` read from its tree: the answer `keel lint` gave, or
    /// would have given, with that commit checked out.
    #[arg(long, value_name = "REV", conflicts_with_all = ["pending", "worktree"])]
    rev: Option<String>,
}

pub(crate) fn cmd_lint(args: &LintArgs) -> Result<ExitStatus, CommandError> {
    if args.rev.is_none() && !args.worktree {
        let (tip, scope) = match &args.pending {
            Some(rev) => (Some(rev.as_str()), Scope::Pending),
            None => (None, Scope::Full),
        };
        let candidate_scope = scope.clone();
        if let Some(kept) = KeptRun::of(&args.repo, tip, scope)? {
            let candidate = candidate_id(&kept.db, &candidate_scope);
            print_verdict(&kept.db, &kept.report, args, candidate.as_deref())?;
            if args.stats {
                let counts = render::work_counts(&kept.db, kept.parses);
                errln!("{}", stats_line(counts, Some(kept.extended_by)));
            }
            let status = status_of(&kept.report);
            kept.keep();
            return Ok(status);
        }
    }
    let mut db = open_repo(&args.repo)?;
    let mut worktree = None;
    let scope = match &args.pending {
        Some(rev) => {
            let candidate = db.resolve_commit(rev)?;
            db.apply_changes(&[ChangeEvent::TipAt(candidate)])?;
            Scope::Pending
        }
        None => {
            if let Some(rev) = &args.rev {
                let tip = db.resolve_commit(rev)?;
                db.apply_changes(&[ChangeEvent::TipAt(tip)])?;
            }
            if args.worktree {
                worktree = db.apply_changes(&[ChangeEvent::Worktree])?.worktree;
            }
            if args.worktree && !args.all_nodes {
                Scope::Pending
            } else {
                Scope::Full
            }
        }
    };
    let progress = render::Progress::start(args.format == LintFormat::Text, "judging the specs");
    let (state, mut report, parses) = lint_state_or_refuse(&db, scope.clone())?;
    progress.finish();
    let candidate = match worktree {
        Some(_) => Some(WORKTREE.to_owned()),
        None => candidate_id(&db, &scope),
    };
    name_worktree(&mut report, worktree);
    print_verdict(&db, &report, args, candidate.as_deref())?;
    let counts = render::work_counts(&db, parses);
    if args.stats {
        errln!("{}", stats_line(counts, None));
    }
    save_memo(&mut db, counts.fresh_work());
    if scope == Scope::Full
        && !args.worktree
        && let Some(state) = state
    {
        keep_answer(&db, state);
    }
    // The process exits next: the OS takes the database's memory back at once, where
    // dropping it would free every memo one by one.
    std::mem::forget(db);
    Ok(status_of(&report))
}

/// The judged commit's id when `scope` judges a candidate (`--pending`, `--worktree`).
fn candidate_id(db: &KeelDatabase, scope: &Scope) -> Option<String> {
    if *scope != Scope::Pending {
        return None;
    }
    Tip::get(db).commit(db).map(|tip| tip.id(db).to_string())
}

/// The report in `args.format`; a blocking candidate in text is told as the gate tells
/// its refusal (what the commit adds, the debt before it, the repairs).
fn print_verdict(
    db: &KeelDatabase,
    report: &LintReport,
    args: &LintArgs,
    candidate: Option<&str>,
) -> Result<(), CommandError> {
    let Some(commit) = candidate.filter(|_| args.format == LintFormat::Text && report.blocks())
    else {
        return print_report(db, report, args.format);
    };
    let headline = if args.worktree {
        "keel lint --worktree: committing the working tree would be refused: it leaves spec drift unanswered.".to_owned()
    } else {
        format!(
            "keel lint --pending: commit {} would be refused: it leaves spec drift unanswered.",
            &commit[..commit.len().min(12)]
        )
    };
    write_stdout(&refusal_text(
        report,
        &[commit.to_owned()],
        &headline,
        &Retry::BeforeCommit,
    ))
}

/// The `--stats` line: the work counters, and how many new commits were judged on top of
/// the kept answer (`null`: the whole lint ran).
fn stats_line(counts: render::WorkCounts, extended_by: Option<usize>) -> String {
    let mut line = render::stats_json(counts);
    line["kept_answer_extended_by"] = serde_json::json!(extended_by);
    line.to_string()
}
