//! `keel cache info|clear`, and how every command that judges history opens a repository
//! with the on-disk memo and writes it back.
//!
//! Owns: this build's id (`KEEL_BUILD_ID`, from `build.rs`), the one warning line when a
//! memo is discarded, writing the memo after a run that parsed or diffed something (a
//! failed write is a warning: the answer stands), and the two cache actions.
//! Does not own: the memo file (`keel_engine::memo`).

use super::CommandError;
use crate::exit::ExitStatus;
use keel_engine::KeelDatabase;
use std::path::{Path, PathBuf};

/// This exact build, as the memo's header names it.
pub(crate) const BUILD: &str = env!("KEEL_BUILD_ID");

/// Opens the repository holding `repo` with its memo and reads HEAD; a memo keel cannot
/// use is named in one warning line and the run starts cold.
pub(crate) fn open_repo(repo: &Path) -> Result<KeelDatabase, CommandError> {
    let (db, discarded) = KeelDatabase::open_with_memo(repo, BUILD)?;
    if let Some(reason) = discarded {
        eprintln!("warning: the on-disk memo was {reason}; it is ignored and rewritten");
    }
    Ok(db)
}

/// Writes the memo when this run did work worth keeping (`fresh_work`); a failed write
/// is one warning line.
pub(crate) fn save_memo(db: &mut KeelDatabase, fresh_work: bool) {
    if !fresh_work {
        return;
    }
    if let Err(err) = db.save_memo(BUILD) {
        eprintln!("warning: the on-disk memo was not written: {err}");
    }
}

/// The on-disk memo keel keeps in `.git/keel/`: what it parsed and diffed, so the next
/// run pays only for what is new.
#[derive(Debug, clap::Args)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    action: CacheAction,
}

#[derive(Debug, clap::Subcommand)]
enum CacheAction {
    /// Where the memo is, its size, how many answers it holds, its age and whether this
    /// build can read it.
    Info {
        /// The repository (any folder inside it).
        #[arg(long, default_value = ".")]
        repo: PathBuf,
    },
    /// Remove the memo (the next run starts cold).
    Clear {
        /// The repository (any folder inside it).
        #[arg(long, default_value = ".")]
        repo: PathBuf,
    },
}

pub(crate) fn cmd_cache(args: &CacheArgs) -> Result<ExitStatus, CommandError> {
    match &args.action {
        CacheAction::Info { repo } => info(repo),
        CacheAction::Clear { repo } => {
            let db = KeelDatabase::open_objects(repo)?;
            let path = db.memo_path()?;
            if db.clear_memo()? {
                println!("removed {}", path.display());
            } else {
                println!("no memo at {}", path.display());
            }
            for removed in db.clear_kept_lint()? {
                println!("removed {}", removed.display());
            }
            Ok(ExitStatus::Clean)
        }
    }
}

fn info(repo: &Path) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(repo)?;
    memo_info(&db)?;
    let answer = db.kept_lint_path()?;
    match std::fs::metadata(&answer) {
        Ok(meta) => println!(
            "answer   {} ({} bytes: the last `keel lint` answer, extended by the next)",
            answer.display(),
            meta.len()
        ),
        Err(_) => println!("answer   none yet (the next `keel lint` keeps its answer)"),
    }
    Ok(ExitStatus::Clean)
}

/// The memo's lines of `keel cache info`.
fn memo_info(db: &KeelDatabase) -> Result<(), CommandError> {
    let info = db.memo_info(BUILD)?;
    println!("memo     {}", info.path.display());
    let Some(file) = info.file else {
        println!("status   none yet (the next `keel lint` writes it)");
        return Ok(());
    };
    println!("size     {} bytes", file.bytes);
    match file.entries {
        Some(entries) => println!("entries  {entries} (the commits read and the answers kept)"),
        None => println!("entries  unknown"),
    }
    if let Some(age) = file.modified.and_then(|modified| modified.elapsed().ok()) {
        println!("age      {} s", age.as_secs());
    }
    if file.readable {
        println!("status   readable by this build ({BUILD})");
    } else {
        println!(
            "status   not readable by this build ({BUILD}; written by {}): the next run discards it",
            if file.build.is_empty() {
                "?"
            } else {
                &file.build
            }
        );
    }
    Ok(())
}
