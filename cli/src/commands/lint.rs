//! `keel lint`: judge every spec node at HEAD (or at a candidate, or the working tree).
//!
//! Owns: opening the database, running lint, choosing the exit status, `--stats`, and
//! the text of a run on a branch with no commits in a repository that has some.
//! Does not own: the judgement (`keel_queries::lint`) or its rendering (`render`).

use super::cache::{BUILD, open_repo, save_memo};
use super::error::Code;
use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use crate::{github, render, sarif};
use keel_engine::memo::MemoDiscard;
use keel_engine::refusal::RefusalCode;
use keel_engine::{ChangeEvent, Db as _, KeelDatabase, Oid, WORKTREE};

use keel_queries::anchors::LineRange;
use keel_queries::extract::{ParseCounts, thread_parse_counts};
use keel_queries::lint::{
    KeptLint, LintError, LintReport, LintState, Scope, extend, lint_state_counting_parses,
    unit_lines,
};
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
    /// Judge the working tree as it would be committed (`git add -A`): uncommitted
    /// changes appear as commit `worktree` in hits, so drift shows before the commit.
    /// Every node is judged; specs and `keel.toml` are read from the working tree too.
    #[arg(long, conflicts_with = "pending")]
    worktree: bool,
    /// Judge this commit (an id or any revision) as the tip instead of HEAD, every node,
    /// with specs and `keel.toml` read from its tree: the answer `keel lint` gave, or
    /// would have given, with that commit checked out.
    #[arg(long, value_name = "REV", conflicts_with_all = ["pending", "worktree"])]
    rev: Option<String>,
}

/// How `keel lint` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LintFormat {
    /// Human-readable, grouped by node.
    Text,
    /// `keel.lint.v1` JSON (one document on stdout).
    Json,
    /// A SARIF 2.1.0 log (one run), for code scanning.
    Sarif,
    /// GitHub Actions workflow commands: one `::error`/`::warning` per finding.
    Github,
}

impl From<Format> for LintFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Text => Self::Text,
            Format::Json => Self::Json,
        }
    }
}

pub(crate) fn cmd_lint(args: &LintArgs) -> Result<ExitStatus, CommandError> {
    if args.rev.is_none() && !args.worktree {
        let (tip, scope) = match &args.pending {
            Some(rev) => (Some(rev.as_str()), Scope::Pending),
            None => (None, Scope::Full),
        };
        if let Some(kept) = KeptRun::of(&args.repo, tip, scope)? {
            print_report(&kept.db, &kept.report, args.format)?;
            if args.stats {
                let counts = render::work_counts(&kept.db, kept.parses);
                eprintln!("{}", stats_line(counts, Some(kept.extended_by)));
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
            Scope::Full
        }
    };
    let progress = render::Progress::start(args.format == LintFormat::Text, "judging the specs");
    let (state, mut report, parses) = lint_state_or_refuse(&db, scope)?;
    progress.finish();
    name_worktree(&mut report, worktree);
    print_report(&db, &report, args.format)?;
    let counts = render::work_counts(&db, parses);
    if args.stats {
        eprintln!("{}", stats_line(counts, None));
    }
    save_memo(&mut db, counts.images_parsed + counts.hunk_sets_diffed > 0);
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

/// At most this many new commits are judged on top of the kept answer; past them a whole
/// lint (from the memo) runs.
const MOST_SINCE_KEPT: usize = 64;

/// A lint answered from the answer kept on disk, extended by the commits since it
/// (`keel_queries::lint::extend`), without reading the history or the memo.
pub(crate) struct KeptRun {
    /// A database of the commits since the kept answer alone (never saved as the memo:
    /// it read none).
    pub(crate) db: KeelDatabase,
    pub(crate) report: LintReport,
    /// Every node's state at the judged commit, to keep.
    state: LintState,
    pub(crate) parses: ParseCounts,
    /// How many commits were judged on top of the kept answer.
    pub(crate) extended_by: usize,
}

impl KeptRun {
    /// The lint of `tip` (a revision; `None`: HEAD) in `scope` from the kept answer:
    /// `None` when there is no usable kept answer, the tip is not a few one-parent commits
    /// past it, or those commits could change more than their own records.
    pub(crate) fn of(
        repo: &std::path::Path,
        tip: Option<&str>,
        scope: Scope,
    ) -> Result<Option<Self>, CommandError> {
        let db = KeelDatabase::open_objects(repo)?;
        let kept = match db.read_kept_lint::<KeptLint>(BUILD)? {
            Some(Ok(kept)) => kept.into_state(),
            // Another build or history: the memo, written with it, says so once.
            Some(Err(MemoDiscard::OtherBuild(_) | MemoDiscard::OtherHistory)) | None => {
                return Ok(None);
            }
            Some(Err(reason)) => {
                eprintln!(
                    "warning: the kept lint answer was {reason}; it is ignored and rewritten"
                );
                return Ok(None);
            }
        };
        let Some(kept_tip) = Oid::from_hex(kept.tip()) else {
            return Ok(None);
        };
        let target = tip.map(|rev| db.resolve_commit(rev)).transpose()?;
        let Some((db, since)) = db.open_since(target, kept_tip, MOST_SINCE_KEPT)? else {
            return Ok(None);
        };
        let Some(tip) = keel_engine::inputs::Tip::get(&db).commit(&db) else {
            return Ok(None);
        };
        let before = thread_parse_counts(db.hints());
        let extended = extend(&db, &kept, tip, &since, scope);
        let Some((state, report)) = extended.map_err(|err| CommandError::objects(&err))? else {
            return Ok(None);
        };
        let parses = thread_parse_counts(db.hints()).since(before);
        Ok(Some(Self {
            db,
            report,
            state,
            parses,
            extended_by: since.len(),
        }))
    }

    /// Keeps the new answer when there were new commits, and lets the process exit
    /// without freeing the database memo by memo.
    pub(crate) fn keep(self) {
        if self.extended_by > 0 {
            keep_answer(&self.db, self.state);
        }
        std::mem::forget(self.db);
    }
}

/// Keeps `state` on disk for the next run; a failed write is one warning line.
fn keep_answer(db: &KeelDatabase, state: LintState) {
    if let Err(err) = db.write_kept_lint(BUILD, &KeptLint::of(state)) {
        eprintln!("warning: the kept lint answer was not written: {err}");
    }
}

/// The `--stats` line: the work counters, and how many new commits were judged on top of
/// the kept answer (`null`: the whole lint ran).
fn stats_line(counts: render::WorkCounts, extended_by: Option<usize>) -> String {
    let mut line = render::stats_json(counts);
    line["kept_answer_extended_by"] = serde_json::json!(extended_by);
    line.to_string()
}

/// Runs lint on every core, also counting how images were parsed; a spec or `keel.toml`
/// keel refuses to read becomes a usage error naming file and line.
pub(crate) fn lint_or_refuse(
    db: &KeelDatabase,
    scope: Scope,
) -> Result<(LintReport, ParseCounts), CommandError> {
    lint_state_or_refuse(db, scope).map(|(_, report, parses)| (report, parses))
}

/// [`lint_or_refuse`], also giving the state the report was assembled from.
fn lint_state_or_refuse(
    db: &KeelDatabase,
    scope: Scope,
) -> Result<(Option<LintState>, LintReport, ParseCounts), CommandError> {
    lint_state_counting_parses(db, lint_threads(db), scope).map_err(|err| match err {
        LintError::Specs(errors) => {
            let first = errors.first().map(ToString::to_string).unwrap_or_default();
            let line = match errors.len() {
                0 | 1 => first,
                n => format!(
                    "{first} ({} more spec error(s) follow once this one is fixed)",
                    n - 1
                ),
            };
            CommandError::from_line(Code::Refused(RefusalCode::Spec), line)
        }
        LintError::Settings(err) => err.into(),
        LintError::Object(err) => CommandError::objects(&err),
    })
}

/// Threads to lint on: every core, unless the on-disk memo held all but a few of the
/// commits read ([`FEW_NEW_COMMITS`]): then little is left to parse but those commits'
/// images, and warming on threads would only walk the whole history again on each.
fn lint_threads(db: &KeelDatabase) -> usize {
    match db.commits_beyond_memo() {
        Some(new) if new < FEW_NEW_COMMITS => 1,
        _ => std::thread::available_parallelism().map_or(1, usize::from),
    }
}

/// Fewer new commits than this are judged on one thread after a memo is loaded.
const FEW_NEW_COMMITS: usize = 16;

/// Names the working tree's in-memory commit [`WORKTREE`] in `report`.
pub(crate) fn name_worktree(report: &mut LintReport, worktree: Option<Oid>) {
    if let Some(commit) = worktree {
        report.name_commit(&commit.to_string(), WORKTREE);
    }
}

/// Prints the report in the chosen format on stdout.
pub(crate) fn print_report(
    db: &KeelDatabase,
    report: &LintReport,
    format: LintFormat,
) -> Result<(), CommandError> {
    let text = match format {
        LintFormat::Text => unborn_branch_text(db, report)
            .unwrap_or_else(|| render::lint_text(report, render::use_colour())),
        LintFormat::Json => render::lint_json(report),
        LintFormat::Sarif => sarif::lint_sarif(report, &findings_lines(db, report)?),
        LintFormat::Github => github::lint_github(report, &findings_lines(db, report)?),
    };
    write_stdout(&text)
}

/// The text when there is no tip because HEAD's branch has no commits yet while another
/// branch has (`git switch --orphan`): the report alone would read as an empty repository.
fn unborn_branch_text(db: &KeelDatabase, report: &LintReport) -> Option<String> {
    if report.tip.is_some() {
        return None;
    }
    let head = db.unborn_head()?;
    let other = head.committed.as_deref()?;
    Some(format!(
        "keel lint: {head}; nothing to judge (commit on `{}` first, or judge a branch that has commits: --rev {other})\n",
        head.branch
    ))
}

/// The tip lines of each finding's units, in the report's order.
fn findings_lines(
    db: &KeelDatabase,
    report: &LintReport,
) -> Result<Vec<Vec<LineRange>>, CommandError> {
    report
        .findings
        .iter()
        .map(|finding| unit_lines(db, finding).map_err(|err| CommandError::objects(&err)))
        .collect()
}

/// Exit 1 when the report blocks.
pub(crate) fn status_of(report: &LintReport) -> ExitStatus {
    if report.blocks() {
        ExitStatus::Blocked
    } else {
        ExitStatus::Clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_fixtures::FixtureRepo;
    use keel_queries::lint::lint;

    /// The text `keel lint` prints for the repository as it is.
    fn text_of(repo: &FixtureRepo) -> String {
        let db = KeelDatabase::open(repo.path()).expect("open");
        let report = lint(&db).expect("lint");
        unborn_branch_text(&db, &report).unwrap_or_else(|| render::lint_text(&report, false))
    }

    #[test]
    fn an_orphan_branch_is_named_but_an_empty_repository_keeps_its_message() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        assert_eq!(
            text_of(&repo),
            "keel lint: the repository has no commits; nothing to judge\n"
        );
        repo.write("a.py", "x = 1\n").expect("write");
        repo.commit("Add a").expect("commit");
        repo.git(&["checkout", "--quiet", "--orphan", "fresh"])
            .expect("an orphan branch");
        assert_eq!(
            text_of(&repo),
            "keel lint: HEAD's branch `fresh` has no commits yet; nothing to judge (commit on `fresh` first, or judge a branch that has commits: --rev main)\n"
        );
    }
}
