//! `keel touched REVSPEC`: which units pinned by the specs at a range's result revision
//! the range's commits changed, and whether each touched node's spec changed with them.
//!
//! Owns: the flags, reading REVSPEC (`A..B`, `A...B`, one commit) into the commits the
//! range holds through the engine, the text layout, JSON (`keel.touched.v1`), `--stats`,
//! and the exit status (0 answered, 1 when something is unavailable, 2 bad input).
//! Does not own: the projection (`keel_queries::touched`).

use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use crate::render::{self, counted, short};
use crate::streams::errln;
use keel_engine::{ChangeEvent, Db as _, KeelDatabase, Oid};
use keel_queries::thread_parse_counts;
use keel_queries::touched::{TouchedEntry, TouchedNode, TouchedReport, touched};
use std::fmt::Write;
use std::path::PathBuf;

/// Which pinned units did a range of commits change, and were their specs updated?
///
/// REVSPEC is `A..B` (the commits reachable from B and not from A, as `git log A..B`),
/// `A...B` (B's side since it forked from A: what `git diff A...B` shows, the same commits
/// as `A..B`) or one commit C (C alone; a merge by the lines it owns). An empty side is
/// HEAD. For every spec node at B, each `code:`/`related:` entry and each selector: the
/// commits of the range that changed it, by lint's own rule (added lines against the unit
/// in the commit's image, deleted lines against it in the parent's; a merge by the lines
/// it owns; an image that does not parse is a conservative hit). Unlike lint, `Spec-OK`
/// trailers and `keel ack` checkpoints are not subtracted: this is what the commits did,
/// not what is owed. A change under a path the file had before a rename is reported under
/// its path at B.
///
/// Exit 0: answered (touched or not); 1: part of the range could not be read (a shallow
/// clone's boundary, a missing object) — those nodes and entries are listed as
/// unavailable, never as untouched; 2: bad usage or input.
#[derive(Debug, clap::Args)]
pub(crate) struct TouchedArgs {
    /// The range: `A..B`, `A...B`, or one commit.
    #[arg(value_name = "REVSPEC")]
    revspec: String,
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Output format: `text`, or `json` (`keel.touched.v1`, one document on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print one JSON line of work counters to stderr: images parsed, hunk sets diffed,
    /// tracked queries executed.
    #[arg(long)]
    stats: bool,
}

/// A revision range as written: the commits reachable from `tip` and from none of
/// `excluded` (`None`: the parents of the tip, for one commit).
struct Revspec<'a> {
    tip: &'a str,
    excluded: Option<&'a str>,
}

impl<'a> Revspec<'a> {
    /// `A...B`, `A..B` or `C`; an empty side is HEAD.
    fn parse(text: &'a str) -> Self {
        let head = |side: &'a str| if side.is_empty() { "HEAD" } else { side };
        let split = text.split_once("...").or_else(|| text.split_once(".."));
        match split {
            Some((from, to)) => Self {
                tip: head(to),
                excluded: Some(head(from)),
            },
            None => Self {
                tip: text,
                excluded: None,
            },
        }
    }
}

pub(crate) fn cmd_touched(args: &TouchedArgs) -> Result<ExitStatus, CommandError> {
    let mut db = super::helper::open_repo(&args.repo)?;
    let revspec = Revspec::parse(&args.revspec);
    let tip_id = db.resolve_commit(revspec.tip)?;
    let excluded_id = revspec
        .excluded
        .map(|rev| db.resolve_commit(rev))
        .transpose()?;
    let (tip, excluded) = range_inputs(&mut db, tip_id, excluded_id)?;
    let before = thread_parse_counts(db.hints());
    let report = touched(&db, tip, &excluded).map_err(super::helper::lint_refusal)?;
    let parses = thread_parse_counts(db.hints()).since(before);
    let text = match args.format {
        Format::Text => touched_text(&report),
        Format::Json => {
            // The report is plain data: serializing it cannot fail.
            let mut json = serde_json::to_string_pretty(&report).unwrap_or_default();
            json.push('\n');
            json
        }
    };
    write_stdout(&text)?;
    let counts = render::work_counts(&db, parses);
    if args.stats {
        errln!("{}", render::stats_line(counts));
    }
    super::helper::save_memo(&mut db, counts.fresh_work());
    Ok(if report.unavailable.is_empty() {
        ExitStatus::Clean
    } else {
        ExitStatus::Blocked
    })
}

/// The inputs of the range's tip and of the commits it excludes (the tip's parents for
/// one commit), each read through the engine's door.
fn range_inputs(
    db: &mut KeelDatabase,
    tip: Oid,
    excluded: Option<Oid>,
) -> Result<
    (
        keel_engine::inputs::Commit,
        Vec<keel_engine::inputs::Commit>,
    ),
    CommandError,
> {
    if let Some(excluded) = excluded {
        db.apply_changes(&[ChangeEvent::TipAt(excluded)])?;
    }
    db.apply_changes(&[ChangeEvent::TipAt(tip)])?;
    let known = |db: &KeelDatabase, oid: Oid| {
        // `TipAt` read both commits (and every ancestor), so the database knows them.
        db.known_commit(oid).expect("a commit TipAt read")
    };
    let tip_input = known(db, tip);
    let excluded = match excluded {
        Some(oid) => vec![known(db, oid)],
        None => tip_input.parents(&*db).clone(),
    };
    Ok((tip_input, excluded))
}

/// The report as text: a head line, then each touched node with its entries and the
/// commits that changed them, then what is unavailable.
fn touched_text(report: &TouchedReport) -> String {
    let mut out = String::new();
    let window = report.window;
    let _ = writeln!(
        out,
        "keel touched {}{}: {} in the range ({}), {} of {} touched, {}",
        report
            .base
            .iter()
            .map(|id| format!("{}..", short(id)))
            .collect::<String>(),
        short(&report.head),
        counted(window.commits, "commit"),
        counted(window.merges, "merge"),
        report.nodes.len(),
        counted(report.nodes_read, "node"),
        counted(report.units(), "unit"),
    );
    if report.nodes.is_empty() && report.unavailable.is_empty() {
        let _ = writeln!(out, "\nno pinned unit changed");
    }
    for node in &report.nodes {
        node_text(&mut out, node);
    }
    if !report.unavailable.is_empty() {
        let _ = writeln!(out, "\nunavailable (not read, so not known untouched):");
        for item in &report.unavailable {
            let what = match (&item.node, &item.entry) {
                (Some(node), Some(entry)) => format!("{node} {entry}"),
                (Some(node), None) => node.clone(),
                (None, _) => "a commit".to_owned(),
            };
            let _ = writeln!(out, "  {what}: {}", item.reason);
        }
    }
    out
}

fn node_text(out: &mut String, node: &TouchedNode) {
    let state = if node.spec_updated {
        let versions: Vec<&str> = node.spec_versions.iter().map(|v| short(v)).collect();
        format!("touched and updated (spec version {})", versions.join(", "))
    } else {
        "touched, spec unchanged".to_owned()
    };
    let _ = writeln!(out, "\n{}: {state}", node.node);
    for entry in &node.entries {
        entry_text(out, entry);
    }
}

fn entry_text(out: &mut String, entry: &TouchedEntry) {
    let mut notes = Vec::new();
    if entry.path != entry.entry.split('#').next().unwrap_or_default() {
        notes.push(format!("now {}", entry.path));
    }
    if entry.deleted {
        notes.push("deleted".to_owned());
    }
    if entry.conservative {
        notes.push("conservative: an image did not parse".to_owned());
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    let _ = writeln!(out, "  {} {}{notes}", entry.relation, entry.entry);
    for commit in &entry.commits {
        let mut line = format!("    {} {}", short(&commit.commit), commit.subject);
        if !commit.selectors.is_empty() {
            let _ = write!(line, " — {}", commit.selectors.join(", "));
        }
        if let Some(path) = &commit.path {
            let _ = write!(line, " (as {path})");
        }
        if commit.conservative {
            line.push_str(" [conservative]");
        }
        let _ = writeln!(out, "{line}");
    }
}
