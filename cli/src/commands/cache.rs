//! `keel cache info|clear`: where the on-disk memo and the kept answer are, and removing
//! them.
//!
//! Owns: the two cache actions and their lines: `info` says what is wrong with a folder
//! keel cannot use and counts the temporary files a crash left; `clear` names each path
//! it could not remove, with the OS's reason and the repair, and then exits 2.
//! Does not own: the folder, the memo file and what `clear` removes
//! (`keel_engine::cache`, `memo`), or how commands open and write them (`helper`).

use super::CommandError;
use super::error::Code;
use super::helper::BUILD;
use super::outln;
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
    /// build can read it; what is wrong with the folder, if anything; the temporary files a
    /// crash left.
    Info {
        /// The repository (any folder inside it).
        #[arg(long, default_value = ".")]
        repo: PathBuf,
    },
    /// Remove the memo, every work tree's kept answer and the temporary files a crash
    /// left (the next run starts cold).
    Clear {
        /// The repository (any folder inside it).
        #[arg(long, default_value = ".")]
        repo: PathBuf,
    },
}

pub(crate) fn cmd_cache(args: &CacheArgs) -> Result<ExitStatus, CommandError> {
    match &args.action {
        CacheAction::Info { repo } => info(repo),
        CacheAction::Clear { repo } => clear(repo),
    }
}

/// Removes what `keel_engine`'s `clear_cache` names; each path it could not remove is one
/// `error:` line, and then the exit status is 2.
fn clear(repo: &Path) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(repo)?;
    let path = db.memo_path()?;
    let cleared = db.clear_cache()?;
    if cleared.memo {
        outln!("removed {}", path.display())?;
    } else if cleared.troubles.is_empty() {
        outln!("no memo at {}", path.display())?;
    }
    for removed in &cleared.kept {
        outln!("removed {}", removed.display())?;
    }
    for removed in &cleared.temporary {
        outln!(
            "removed {} (a temporary file a crash left)",
            removed.display()
        )?;
    }
    let mut troubles = cleared
        .troubles
        .iter()
        .map(|trouble| CommandError::from_line(Code::Io, trouble.to_string()));
    match troubles.next() {
        None => Ok(ExitStatus::Clean),
        Some(first) => Err(first.with_also(troubles.collect())),
    }
}

fn info(repo: &Path) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(repo)?;
    let (folder_trouble, temporary) = db.cache_state()?;
    memo_info(&db)?;
    if folder_trouble.is_some() {
        // `memo_info` told what is wrong with the folder: nothing in it can be read.
        outln!("answer   unknown (the folder cannot be read)")?;
        outln!("temp     unknown (the folder cannot be read)")?;
        return Ok(ExitStatus::Clean);
    }
    let answer = db.kept_lint_path()?;
    match std::fs::metadata(&answer) {
        Ok(meta) => outln!(
            "answer   {} ({} bytes: the last `keel lint` answer, extended by the next)",
            answer.display(),
            meta.len()
        )?,
        Err(_) => outln!("answer   none yet (the next `keel lint` keeps its answer)")?,
    }
    if temporary.is_empty() {
        outln!("temp     none")?;
    } else {
        let bytes: u64 = temporary.iter().map(|file| file.bytes).sum();
        outln!(
            "temp     {} file(s), {bytes} bytes: left by a crash before their rename; `keel cache clear` removes them",
            temporary.len()
        )?;
    }
    Ok(ExitStatus::Clean)
}

/// The memo's lines of `keel cache info`.
fn memo_info(db: &KeelDatabase) -> Result<(), CommandError> {
    let info = db.memo_info(BUILD)?;
    outln!("memo     {}", info.path.display())?;
    if let Some(trouble) = info.trouble {
        outln!("status   {trouble}")?;
        return Ok(());
    }
    let Some(file) = info.file else {
        outln!("status   none yet (the next `keel lint` writes it)")?;
        return Ok(());
    };
    outln!("size     {} bytes", file.bytes)?;
    match file.entries {
        Some(entries) => outln!("entries  {entries} (the commits read and the answers kept)")?,
        None => outln!("entries  unknown")?,
    }
    if let Some(age) = file.modified.and_then(|modified| modified.elapsed().ok()) {
        outln!("age      {} s", age.as_secs())?;
    }
    if file.readable {
        outln!("status   readable by this build ({BUILD})")?;
    } else {
        outln!(
            "status   not readable by this build ({BUILD}; written by {}): the next run discards it",
            if file.build.is_empty() {
                "?"
            } else {
                &file.build
            }
        )?;
    }
    Ok(())
}
