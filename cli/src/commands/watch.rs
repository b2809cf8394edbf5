//! `keel watch`: judge again whenever the tip moves — or, with `--worktree`, the working
//! tree — in one long-lived database, so a verdict costs only what moved.
//!
//! Owns: the loop — a verdict at start, then one per batch of changes that moved the tip
//! (a commit, reset, branch switch, rebase step; with `--worktree` also a saved file,
//! spec or `keel.toml`), printed as the findings that appeared and disappeared (text) or
//! as one `keel.lint.v1` document per line (json). An error (a spec broken mid-save, a
//! ref read during a rebase) is printed on stderr and the loop goes on; the next good
//! verdict is printed whatever it is. Ctrl-C ends the loop with exit 0; so does a closed
//! stdout (`keel watch | head`).
//! Does not own: noticing change (`keel_engine::watch`) or judging (`keel_queries::lint`).

use super::helper::{lint_or_refuse, name_worktree, open_repo, save_memo};
use super::{CommandError, Format};
use crate::exit::ExitStatus;
use crate::render;
use crate::streams::errln;
use keel_engine::ChangeEvent;
use keel_queries::lint::{LintReport, Scope};
use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;

/// Judge again whenever HEAD or a ref moves (and, with --worktree, whenever a file of the
/// working tree is saved); print what changed. Ctrl-C stops (exit 0).
#[derive(Debug, clap::Args)]
pub(crate) struct WatchArgs {
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Also judge the working tree as it would be committed, on every save: uncommitted
    /// changes appear as commit `worktree` in hits.
    #[arg(long)]
    worktree: bool,
    /// text: the findings that appeared and disappeared at each verdict; json: one
    /// `keel.lint.v1` document per line per verdict.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub(crate) fn cmd_watch(args: &WatchArgs) -> Result<ExitStatus, CommandError> {
    let mut db = open_repo(&args.repo)?;
    let mut watcher = db.watcher(args.worktree)?;
    let stop = watcher.stop_handle();
    ctrlc::set_handler(move || stop.stop())
        .map_err(|err| CommandError::plain(format!("cannot catch Ctrl-C: {err}")))?;
    let event = if args.worktree {
        ChangeEvent::Worktree
    } else {
        ChangeEvent::TipMoved
    };
    let watched = if args.worktree {
        "the refs and the working tree"
    } else {
        "the refs"
    };
    errln!("keel watch: watching {watched}; Ctrl-C stops");
    let mut printer = Printer {
        format: args.format,
        shown: None,
    };
    let mut owed = true;
    loop {
        match db.apply_changes(std::slice::from_ref(&event)) {
            Ok(result) if result.tip_moved || owed => match lint_or_refuse(&db, Scope::Full) {
                Ok((mut report, parses)) => {
                    name_worktree(&mut report, result.worktree);
                    owed = false;
                    if !printer.print(&report) {
                        return Ok(ExitStatus::Clean);
                    }
                    let counts = render::work_counts(&db, parses);
                    save_memo(&mut db, counts.fresh_work());
                }
                Err(err) => {
                    owed = true;
                    errln!("error: {err} (keel watch goes on)");
                }
            },
            Ok(_) => {}
            Err(err) => {
                owed = true;
                errln!("error: {err} (keel watch goes on)");
            }
        }
        if watcher.next_batch().is_none() {
            return Ok(ExitStatus::Clean);
        }
    }
}

/// Prints verdicts, remembering the last one's findings.
struct Printer {
    format: Format,
    /// The one-line findings of the last verdict printed.
    shown: Option<BTreeSet<String>>,
}

impl Printer {
    /// Prints one verdict; `false` when stdout is closed.
    fn print(&mut self, report: &LintReport) -> bool {
        let lines: BTreeSet<String> = report.findings.iter().map(render::finding_line).collect();
        let text = match (self.format, &self.shown) {
            (Format::Json, _) => render::lint_json_line(report),
            (Format::Text, None) => render::lint_text(report, render::use_colour()),
            (Format::Text, Some(before)) => changes_text(report, before, &lines),
        };
        self.shown = Some(lines);
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_ok()
    }
}

/// `tip <id>: N errors, M warnings`, then `+ finding` for each that appeared and
/// `- finding` for each that disappeared (or that the findings are unchanged).
fn changes_text(report: &LintReport, before: &BTreeSet<String>, now: &BTreeSet<String>) -> String {
    let tip = report.tip.as_deref().unwrap_or("(no commits)");
    let mut out = format!(
        "tip {}: {}, {}\n",
        &tip[..tip.len().min(12)],
        render::counted(report.summary.errors, "error"),
        render::counted(report.summary.warnings, "warning"),
    );
    let appeared: Vec<&String> = now.difference(before).collect();
    let disappeared: Vec<&String> = before.difference(now).collect();
    if appeared.is_empty() && disappeared.is_empty() {
        out.push_str("  findings unchanged\n");
    }
    for line in appeared {
        out.push_str(&format!("  + {line}\n"));
    }
    for line in disappeared {
        out.push_str(&format!("  - {line}\n"));
    }
    out
}
