//! `keel fresh`: may each eval reading still testify about the code as it is now?
//!
//! Owns: the flags, opening the database with the working tree as the tip (uncommitted
//! changes count; a hit by them reads as commit `worktree`), reading the readings file
//! through the engine, the text layout (one line per reading), JSON through the canonical
//! writer, `--stats`, and the advisory exit status (0, or 1 under `--strict` when a reading
//! is stale).
//! Does not own: reading the file (`keel_engine::readings`) or any verdict or its wording
//! (`keel_queries::fresh`).

use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use crate::render;
use crate::streams::errln;
use keel_engine::{ChangeEvent, Db as _};
use keel_queries::fresh::{FreshError, FreshReport, fresh, fresh_json};
use keel_queries::thread_parse_counts;
use std::fmt::Write;
use std::path::PathBuf;

/// May eval readings still testify about the code as it is now?
///
/// A reading (one JSON object per line: `{"id": str, "commit": sha, "code": ["path#sel",
/// "path", ...]}`) is stale when a commit since its commit — or the uncommitted working
/// tree — changed a unit it names (or, for a bare path, the file), when a selector no
/// longer resolves, or when its commit is not an ancestor of HEAD. `Spec-OK`
/// acknowledgements never vindicate a reading.
///
/// Exit 0: judged (advisory); 1: `--strict` and a reading is stale; 2: bad usage or input
/// keel could not read (one line naming file, line and repair; nothing printed on stdout).
#[derive(Debug, clap::Args)]
pub(crate) struct FreshArgs {
    /// The readings file (JSON lines).
    #[arg(value_name = "READINGS.jsonl")]
    readings: PathBuf,
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Exit 1 when any reading is stale.
    #[arg(long)]
    strict: bool,
    /// Print one JSON line of work counters to stderr: images parsed, hunk sets diffed,
    /// tracked queries executed.
    #[arg(long)]
    stats: bool,
}

pub(crate) fn cmd_fresh(args: &FreshArgs) -> Result<ExitStatus, CommandError> {
    let mut db = super::helper::open_repo(&args.repo)?;
    let mut events = vec![ChangeEvent::ReadingsFrom(args.readings.clone())];
    // The working tree is judged as it would be committed: an in-memory commit on top of
    // HEAD (HEAD itself when nothing differs). A bare repository has none: HEAD is judged.
    if db.work_dir().is_some() {
        events.push(ChangeEvent::Worktree);
    }
    let read = db.apply_changes(&events)?;
    // A `ReadingsFrom` that succeeded always read its readings.
    let readings = read.readings.expect("the readings read");
    let worktree = read.worktree;
    let before = thread_parse_counts(db.hints());
    let report = fresh(&db, readings, worktree).map_err(|err| match err {
        FreshError::Object(err) => CommandError::objects(&err),
        FreshError::Entry(refusal) => refusal.into(),
    })?;
    let parses = thread_parse_counts(db.hints()).since(before);
    let text = match args.format {
        Format::Text => fresh_text(&report),
        Format::Json => {
            let mut text = fresh_json(&report).to_text();
            text.push('\n');
            text
        }
    };
    write_stdout(&text)?;
    let counts = render::work_counts(&db, parses);
    if args.stats {
        errln!("{}", render::stats_line(counts));
    }
    super::helper::save_memo(&mut db, counts.fresh_work());
    Ok(if args.strict && report.stale() > 0 {
        ExitStatus::Blocked
    } else {
        ExitStatus::Clean
    })
}

/// One line per reading: `fresh <id>` or `stale <id>: <reason>`.
fn fresh_text(report: &FreshReport) -> String {
    let mut out = String::new();
    for reading in &report.readings {
        // Writing to a String cannot fail.
        let _ = match &reading.stale {
            None => writeln!(out, "fresh {}", reading.id),
            Some(stale) => writeln!(out, "stale {}: {}", reading.id, stale.reason),
        };
    }
    out
}
