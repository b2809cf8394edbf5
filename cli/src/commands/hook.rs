//! `keel hook install|uninstall|run`: the local candidate gate of the seed, as a git
//! `reference-transaction` hook.
//!
//! Owns: the three actions and the gate's decision — at the prepared phase, each update
//! of a `refs/heads/*` ref that brings commits no ref or reflog holds yet is judged by
//! candidate lint at its target, scoped by every commit it brings, and a blocking verdict
//! refuses the whole transaction (git then leaves refs, index and any rebase, merge or cherry-pick state
//! as they were). Every refusal names `KEEL_SKIP_LINT=1` and the continue and abort
//! commands of the operation in progress.
//! Does not own: the hook file and the plumbing test (`keel_engine::hook`), judging
//! (`keel_queries::lint`).

use super::CommandError;
use super::helper::{KeptRun, lint_or_refuse, open_repo, save_memo};
use super::outln;
use crate::exit::ExitStatus;
use crate::gate_text::{Retry, SKIP, refusal_text};
use crate::render;
use crate::streams::write_stderr;
use keel_engine::hook::Operation;
use keel_engine::{ChangeEvent, KeelDatabase, Oid};
use keel_queries::lint::{LintReport, Scope, candidate};
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The local gate: a git `reference-transaction` hook that judges each new branch commit
/// before the branch moves.
#[derive(Debug, clap::Args)]
pub(crate) struct HookArgs {
    #[command(subcommand)]
    action: HookAction,
}

#[derive(Debug, clap::Subcommand)]
enum HookAction {
    /// Write the hook where git runs hooks (git's answer: `core.hooksPath` as git reads it,
    /// else the git folder's `hooks/`), and check that git can run it.
    Install {
        /// The repository (any folder inside it; bare repositories too).
        #[arg(long, default_value = ".")]
        repo: PathBuf,
        /// Keep a hook keel did not write and run it before keel's.
        #[arg(long)]
        force: bool,
    },
    /// Remove keel's hook, putting back the one `--force` kept.
    Uninstall {
        /// The repository (any folder inside it).
        #[arg(long, default_value = ".")]
        repo: PathBuf,
    },
    /// What the hook runs: judge the ref updates git lists on stdin (`<old> <new> <ref>`
    /// per line) at PHASE; exit 1 refuses them.
    Run {
        /// The transaction's phase (`prepared`, `committed`, `aborted`): only `prepared`
        /// is judged.
        phase: String,
        /// The repository (git runs hooks inside it).
        #[arg(long, default_value = ".")]
        repo: PathBuf,
    },
}

pub(crate) fn cmd_hook(args: &HookArgs) -> Result<ExitStatus, CommandError> {
    match &args.action {
        HookAction::Install { repo, force } => install(repo, *force),
        HookAction::Uninstall { repo } => uninstall(repo),
        HookAction::Run { phase, repo } => run(phase, repo),
    }
}

fn install(repo: &Path, force: bool) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(repo)?;
    let program = std::env::current_exe()
        .map_err(|err| CommandError::plain(format!("cannot find keel's own path: {err}")))?;
    let installed = db.install_hook(&program, force)?;
    outln!("installed {}", installed.path.display())?;
    if let Some(kept) = installed.chained {
        outln!(
            "kept the hook that was there as {}; it runs before keel's",
            kept.display()
        )?;
    }
    outln!("new branch commits are now judged before the branch moves; skip once with {SKIP}=1")?;
    Ok(ExitStatus::Clean)
}

fn uninstall(repo: &Path) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(repo)?;
    let removed = db.uninstall_hook()?;
    if removed.restored {
        outln!(
            "restored the hook keel had kept at {}",
            removed.path.display()
        )?;
    } else {
        outln!("removed {}", removed.path.display())?;
    }
    Ok(ExitStatus::Clean)
}

/// One row of the transaction: a ref and the object it is about to point at.
struct Update {
    new: Oid,
    reference: String,
}

fn run(phase: &str, repo: &Path) -> Result<ExitStatus, CommandError> {
    if phase != "prepared" || std::env::var_os(SKIP).is_some_and(|value| value == "1") {
        return Ok(ExitStatus::Clean);
    }
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|err| CommandError::plain(format!("cannot read the hook's input: {err}")))?;
    let updates = branch_updates(&input)?;
    if updates.is_empty() {
        return Ok(ExitStatus::Clean);
    }
    judge(repo, &updates).map_err(|err| {
        CommandError::plain(format!(
            "{err}\nkeel refused the ref update because it could not judge it; bypass once with {SKIP}=1"
        ))
    })
}

/// The updates of `refs/heads/*` to an object (not deletions), from the hook's input.
fn branch_updates(input: &str) -> Result<Vec<Update>, CommandError> {
    let mut updates = Vec::new();
    for (index, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(' ').collect();
        let [_, new, reference] = fields[..] else {
            return Err(CommandError::repairable(
                format!(
                    "hook input line {}: expected `<old> <new> <ref>`, got {line:?}",
                    index + 1
                ),
                "keel hook run reads what git gives a reference-transaction hook",
            ));
        };
        if !reference.starts_with("refs/heads/") {
            continue;
        }
        let Some(new) = Oid::from_hex(new) else {
            // A symbolic target (`ref:refs/heads/x`) is not an object.
            continue;
        };
        if new.is_null() {
            continue;
        }
        updates.push(Update {
            new,
            reference: reference.to_owned(),
        });
    }
    Ok(updates)
}

/// Judges each update that brings new commits; exit 1 with the refusal when one blocks.
/// Plumbing (no new commit), and new commits that touch nothing any spec governs, are
/// told apart first, on a database that reads no history, so they cost no lint and no
/// memo. The rest are judged at the update's target with the scope of every commit it
/// brings (an earlier commit of a rebase or push is not hidden behind a harmless tip): a
/// target a few one-parent commits past the kept lint answer (a commit on the branch
/// `keel lint` or the hook last judged) by extending that answer ([`KeptRun`]), any other
/// by opening the memo and judging its history.
fn judge(repo: &Path, updates: &[Update]) -> Result<ExitStatus, CommandError> {
    let objects = KeelDatabase::open_objects(repo)?;
    let mut targets: Vec<&Update> = Vec::new();
    for update in updates {
        if targets.iter().all(|known| known.new != update.new) && objects.is_commit(update.new)? {
            targets.push(update);
        }
    }
    let ids: Vec<Oid> = targets.iter().map(|update| update.new).collect();
    let mut candidates: Vec<(&Update, Vec<Oid>)> = Vec::new();
    for (update, new) in targets.into_iter().zip(objects.new_commits(&ids)?) {
        if !all_claim_nothing(&objects, &new)? {
            candidates.push((update, new));
        }
    }
    let mut whole: Option<KeelDatabase> = None;
    for (update, new) in candidates {
        let ids: Vec<String> = new.iter().map(Oid::to_string).collect();
        let scope = Scope::Update(new.into());
        let target = update.new.to_string();
        if let Some(kept) = KeptRun::of(repo, Some(&target), scope.clone())? {
            if !kept.report.blocks() {
                // The ref moves to the target: the next lint at HEAD starts from it.
                kept.keep();
                continue;
            }
            let operation = kept.db.operation_in_progress()?;
            write_stderr(&refusal(&kept.report, update, &ids, operation));
            return Ok(ExitStatus::Blocked);
        }
        let db = match &mut whole {
            Some(db) => db,
            None => whole.insert(open_repo(repo)?),
        };
        db.apply_changes(&[ChangeEvent::TipAt(update.new)])?;
        let (report, parses) = lint_or_refuse(db, scope)?;
        let counts = render::work_counts(db, parses);
        save_memo(db, counts.fresh_work());
        if report.blocks() {
            let operation = db.operation_in_progress()?;
            write_stderr(&refusal(&report, update, &ids, operation));
            return Ok(ExitStatus::Blocked);
        }
    }
    Ok(ExitStatus::Clean)
}

/// Do all of an update's new commits pass the seed's fast classification (none: it is
/// plumbing)?
fn all_claim_nothing(objects: &KeelDatabase, new: &[Oid]) -> Result<bool, CommandError> {
    for &commit in new {
        if !claims_nothing(objects, commit)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Does the new commit pass the seed's fast classification: one parent, and no change
/// to governance metadata or to a path any spec entry covers (so no node is in scope)?
fn claims_nothing(objects: &KeelDatabase, commit: Oid) -> Result<bool, CommandError> {
    let (parents, tree) = objects.commit_shape(commit)?;
    let [parent] = parents[..] else {
        return Ok(false);
    };
    let (_, parent_tree) = objects.commit_shape(parent)?;
    candidate::claims_nothing(objects, parent_tree, tree).map_err(|err| CommandError::objects(&err))
}

/// What was refused (the update's `new` commits), told apart for its author, and how to
/// go on.
fn refusal(report: &LintReport, update: &Update, new: &[String], operation: Operation) -> String {
    let what = match new.len() {
        1 => "the commit leaves".to_owned(),
        n => format!("its {n} new commits leave"),
    };
    let headline = format!(
        "keel: refused to move {} to {}: {what} spec drift unanswered.",
        update.reference,
        update.new.short(12)
    );
    let retry = match (operation, operation.commands()) {
        (Operation::FastForward, _) => Retry::FastForward {
            to: update.new.to_string(),
        },
        (_, Some((go_on, abort))) => Retry::Operation {
            go_on,
            abort,
            rebase: operation == Operation::Rebase,
        },
        (_, None) => Retry::Commit,
    };
    refusal_text(report, new, &headline, &retry)
}
