//! The command helper: how every command that judges a repository's history opens it and
//! lints it, so no command reaches into another.
//!
//! Owns: this build's id (`KEEL_BUILD_ID`, from `build.rs`); opening a repository with its
//! on-disk memo (one warning line when a memo is discarded) and writing the memo back after
//! a run that parsed or diffed something (a failed write is a warning: the answer stands);
//! a cache folder keel cannot use (`keel_engine::cache::CacheTrouble`), told in one
//! warning per process however many reads and writes meet it, after which the writes
//! are skipped when the folder itself is the trouble;
//! the kept-answer protocol (answer from the answer kept on disk, extended by the commits
//! since it, and keep the new one); linting on every core with spec and `keel.toml`
//! refusals mapped to their codes; the exit status of a report.
//! Does not own: the memo or kept-answer files (`keel_engine::memo`, `kept_lint`), the
//! judgement (`keel_queries::lint`), or printing a report (`lint_output`).

use super::CommandError;
use super::error::Code;
use crate::exit::ExitStatus;
use crate::streams::errln;
use keel_engine::cache::{CacheError, CacheTrouble};
use keel_engine::memo::{MemoDiscard, MemoUnused};
use keel_engine::refusal::RefusalCode;
use keel_engine::{Db as _, KeelDatabase, Oid, WORKTREE};
use keel_queries::lint::{
    KeptLint, LintError, LintReport, LintState, Scope, extend, lint_state_counting_parses,
};
use keel_queries::spec::SpecError;
use keel_queries::{ParseCounts, thread_parse_counts};
use std::path::Path;
use std::sync::OnceLock;

/// This exact build, as the memo's header names it.
pub(crate) const BUILD: &str = env!("KEEL_BUILD_ID");

/// The first cache trouble this process met (and told).
static CACHE_TROUBLE: OnceLock<CacheTrouble> = OnceLock::new();

/// Tells `trouble` in one warning line — the first time this process meets a cache
/// trouble; later ones (the same folder seen by the next read or write) are silent.
fn cache_trouble(trouble: CacheTrouble) {
    let line = trouble.to_string();
    if CACHE_TROUBLE.set(trouble).is_err() {
        return;
    }
    let (what, repair) = line
        .split_once("; repair: ")
        .unwrap_or((line.as_str(), "remove the folder"));
    errln!(
        "warning: {what}; the on-disk memo and kept answer are skipped (the answer is a cold run's, only slower); repair: {repair}"
    );
}

/// Are cache writes skipped: did this process find the cache folder itself unusable?
fn cache_writes_skipped() -> bool {
    CACHE_TROUBLE
        .get()
        .is_some_and(CacheTrouble::with_the_folder)
}

/// Opens the repository holding `repo` with its memo and reads HEAD; a memo keel cannot
/// use or read is named in one warning line and the run starts cold.
pub(crate) fn open_repo(repo: &Path) -> Result<KeelDatabase, CommandError> {
    let (db, unused) = KeelDatabase::open_with_memo(repo, BUILD)?;
    match unused {
        Some(MemoUnused::Discarded(reason)) => {
            errln!("warning: the on-disk memo was {reason}; it is ignored and rewritten");
        }
        Some(MemoUnused::Cache(trouble)) => cache_trouble(trouble),
        None => {}
    }
    Ok(db)
}

/// Writes the memo when this run did work worth keeping (`fresh_work`); a failed write
/// is one warning line.
pub(crate) fn save_memo(db: &mut KeelDatabase, fresh_work: bool) {
    if !fresh_work || cache_writes_skipped() {
        return;
    }
    match db.save_memo(BUILD) {
        Ok(()) => {}
        Err(CacheError::Cache(trouble)) => cache_trouble(trouble),
        Err(CacheError::Repository(err)) => {
            errln!("warning: the on-disk memo was not written: {err}");
        }
    }
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
        repo: &Path,
        tip: Option<&str>,
        scope: Scope,
    ) -> Result<Option<Self>, CommandError> {
        let db = KeelDatabase::open_objects(repo)?;
        let read = match db.read_kept_lint::<KeptLint>(BUILD) {
            Ok(read) => read,
            Err(CacheError::Cache(trouble)) => {
                cache_trouble(trouble);
                return Ok(None);
            }
            Err(CacheError::Repository(err)) => return Err(err.into()),
        };
        let kept = match read {
            Some(Ok(kept)) => kept.into_state(),
            // Another build or history: the memo, written with it, says so once.
            Some(Err(MemoDiscard::OtherBuild(_) | MemoDiscard::OtherHistory)) | None => {
                return Ok(None);
            }
            Some(Err(reason)) => {
                errln!("warning: the kept lint answer was {reason}; it is ignored and rewritten");
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
pub(crate) fn keep_answer(db: &KeelDatabase, state: LintState) {
    if cache_writes_skipped() {
        return;
    }
    match db.write_kept_lint(BUILD, &KeptLint::of(state)) {
        Ok(()) => {}
        Err(CacheError::Cache(trouble)) => cache_trouble(trouble),
        Err(CacheError::Repository(err)) => {
            errln!("warning: the kept lint answer was not written: {err}");
        }
    }
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
pub(crate) fn lint_state_or_refuse(
    db: &KeelDatabase,
    scope: Scope,
) -> Result<(Option<LintState>, LintReport, ParseCounts), CommandError> {
    lint_state_counting_parses(db, lint_threads(db), scope).map_err(lint_refusal)
}

/// The command error for a lint that could not be answered: every spec refusal, a
/// settings refusal, or an object keel could not read.
pub(crate) fn lint_refusal(err: LintError) -> CommandError {
    match err {
        LintError::Specs(errors) => spec_errors(&errors),
        LintError::Settings(err) => err.into(),
        LintError::Object(err) => CommandError::objects(&err),
    }
}

/// At most this many spec refusals are told, one line each; past them, one line says
/// how many more there are.
const SPEC_ERRORS_SHOWN: usize = 20;

/// Every spec refusal of one read (up to [`SPEC_ERRORS_SHOWN`]), one `error:` line each.
fn spec_errors(errors: &[SpecError]) -> CommandError {
    let code = Code::Refused(RefusalCode::Spec);
    let mut lines: Vec<CommandError> = errors
        .iter()
        .take(SPEC_ERRORS_SHOWN)
        .map(|error| CommandError::from_line(code, error.to_string()))
        .collect();
    if errors.len() > SPEC_ERRORS_SHOWN {
        lines.push(CommandError::from_line(
            code,
            format!(
                "{} more spec error(s) not shown; repair: fix the ones above, then run keel again",
                errors.len() - SPEC_ERRORS_SHOWN
            ),
        ));
    }
    if lines.is_empty() {
        // `LintError::Specs` always holds one refusal at least; said plainly if not.
        return CommandError::from_line(code, "a spec was refused".to_owned());
    }
    let first = lines.remove(0);
    first.with_also(lines)
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

/// Exit 1 when the report blocks.
pub(crate) fn status_of(report: &LintReport) -> ExitStatus {
    if report.blocks() {
        ExitStatus::Blocked
    } else {
        ExitStatus::Clean
    }
}
