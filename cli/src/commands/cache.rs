//! `keel cache info|clear`: where the on-disk memo and the kept answer are, and removing
//! them.
//!
//! Owns: the two cache actions and their lines.
//! Does not own: the memo file (`keel_engine::memo`) or how commands open and write it
//! (`helper`).

use super::CommandError;
use super::helper::BUILD;
use crate::exit::ExitStatus;
use keel_engine::KeelDatabase;
use std::path::{Path, PathBuf};

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
