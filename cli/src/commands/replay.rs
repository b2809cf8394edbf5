//! `keel replay`: drift over a history's tips in one database, one line per tip, with
//! pinned controls (`--expect`) for benchmark harnesses.
//!
//! Owns: the flags, resolving the range and the controls, moving the tip
//! (`ChangeEvent::TipAt`) oldest first, printing each tip's line as it is judged, and,
//! with `--html`, writing the page of all tips once the last one is judged.
//! Does not own: which tips a range lists or what a tip's report adds up to
//! (`keel_queries::replay`), the judgement (`keel_queries::lint`), or the page
//! (`replay_html`) and its file (`page_file`).

use super::helper::{open_repo, save_memo};
use super::page_file::{PageTarget, repo_name};
use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use crate::render::{self, WorkCounts};
use crate::replay_html::{self, ReplayedTip};
use crate::streams::errln;
use keel_engine::inputs::{Commit, Tip};
use keel_engine::sessions::Instant;
use keel_engine::{ChangeEvent, Db as _, KeelDatabase};
use keel_queries::lint::codes::{FINDING_CODES, code_doc};
use keel_queries::lint::{LintError, LintReport, Scope, lint_tally_at, lint_tally_counting_parses};
use keel_queries::replay::{
    REPLAY_SCHEMA, TipSelection, TipTally, has_finding, judge_in_turn, replay_tips, tip_tally,
};
use keel_queries::{ParseCounts, thread_parse_counts};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Judge every tip of a range oldest first in one database, one line per tip
///
/// Each tip is judged as `keel lint --rev TIP` would judge it (specs and `keel.toml` from
/// its tree), and pays only for what it added to the tips before it. Without --range or
/// --last, every commit of HEAD's history is a tip (`git rev-list HEAD`). A tip whose
/// specs or `keel.toml` keel refuses to read is a line with `error` (blocked), and the
/// replay goes on. With --html FILE, the tips are also drawn on one self-contained page.
/// Exit 0: every --expect held (whatever the tips' verdicts); 1: an --expect found no such
/// finding at its tip; 2: bad usage or a repository keel could not read.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The tips `git rev-list A..B` lists (an empty side is HEAD).
    #[arg(long, value_name = "A..B", conflicts_with = "last")]
    range: Option<String>,
    /// The newest N commits of HEAD's history.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    last: Option<u64>,
    /// Follow only first parents (`git rev-list --first-parent`).
    #[arg(long)]
    first_parent: bool,
    /// Of the tips listed, every K-th, counted from the newest (which is always judged).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
    /// A pinned control: the finding CODE of node NODE must be reported at TIP (any
    /// revision among the replayed tips); repeatable. A benchmark is no oracle until a
    /// control shows it can fail.
    #[arg(long, value_name = "TIP:NODE:CODE")]
    expect: Vec<String>,
    /// One JSON object per line (`keel.replay.v1`), or one text line per tip.
    #[arg(long, value_enum, default_value_t = ReplayFormat::Jsonl)]
    format: ReplayFormat,
    /// Also write one self-contained HTML page (it loads nothing) of the replayed tips in
    /// date order: debt and blocked per tip, findings per code, and a table of the tips.
    /// Written only once every tip is judged (an --expect that fails still writes it); a
    /// folder that does not exist is refused before any work.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// How `keel replay` prints a tip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ReplayFormat {
    /// One `keel.replay.v1` JSON object per line.
    Jsonl,
    /// One line per tip for people.
    Text,
}

/// A pinned control: a finding that must be reported at a tip.
#[derive(Debug)]
struct Expectation {
    text: String,
    tip: Commit,
    node: String,
    code: &'static str,
    met: bool,
}

/// One tip's line of `keel.replay.v1`.
#[derive(Serialize)]
struct ReplayLine<'a> {
    schema: &'static str,
    tip: &'a str,
    date: &'a str,
    nodes: usize,
    findings: &'a BTreeMap<&'static str, usize>,
    debt: usize,
    blocked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    stats: Stats,
}

#[derive(Serialize)]
struct Stats {
    images_parsed: usize,
    hunk_sets_diffed: usize,
    queries_executed: usize,
}

pub(crate) fn cmd_replay(args: &ReplayArgs) -> Result<ExitStatus, CommandError> {
    let target = args.html.as_deref().map(PageTarget::check).transpose()?;
    let mut db = open_repo(&args.repo)?;
    let (exclude, tip) = range_ends(&mut db, args.range.as_deref())?;
    let selection = TipSelection {
        exclude,
        first_parent: args.first_parent,
        last: args.last.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        every: usize::try_from(args.every).unwrap_or(usize::MAX),
    };
    let tips = replay_tips(&db, tip, &selection);
    let mut expectations = args
        .expect
        .iter()
        .map(|text| expectation(&mut db, text, &tips))
        .collect::<Result<Vec<_>, _>>()?;
    let replayed = replay(
        &mut db,
        &tips,
        &mut expectations,
        args.format,
        target.is_some(),
    )?;
    if let Some(target) = &target {
        target.write(&replay_html::page(&repo_name(&db, &args.repo), &replayed))?;
    }
    let missed: Vec<&Expectation> = expectations.iter().filter(|e| !e.met).collect();
    for expected in &missed {
        errln!(
            "error: --expect {}: no {} finding for node {} at {}; the control failed",
            expected.text,
            expected.code,
            expected.node,
            expected.tip.id(&db).short(12)
        );
    }
    // The process exits next: the OS takes the database's memory back at once, where
    // dropping it would free every memo one by one.
    std::mem::forget(db);
    Ok(if missed.is_empty() {
        ExitStatus::Clean
    } else {
        ExitStatus::Blocked
    })
}

/// Judges `tips`, printing each one's line oldest first and checking the controls at it;
/// returns the judged tips when `keep` (for the page), else none.
///
/// The first tip is a cold lint, on every core. The others add little each, so they are
/// judged side by side instead: one thread per core takes the next tip and judges it
/// through its own database handle (`lint_tally_at`: no tip input moves), sharing every memo;
/// the lines are printed in tip order as they come in.
fn replay(
    db: &mut KeelDatabase,
    tips: &[Commit],
    expectations: &mut [Expectation],
    format: ReplayFormat,
    keep: bool,
) -> Result<Vec<ReplayedTip>, CommandError> {
    let Some((&first, rest)) = tips.split_first() else {
        return Ok(Vec::new());
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut printer = Printer {
        expectations,
        format,
        keep,
        kept: Vec::new(),
        worked: false,
    };
    db.apply_changes(&[ChangeEvent::TipAt(first.id(&*db))])?;
    let (outcome, parses) = judge(db, Some(first), threads)?;
    let counts = render::work_counts(db, parses);
    printer.print(db, first, outcome, counts)?;
    let shared: &KeelDatabase = db;
    judge_in_turn(
        shared,
        rest,
        threads,
        |db, tip| {
            let (outcome, parses) = judge(db, Some(tip), 1)?;
            let executed = db.take_executed_queries_of(std::thread::current().id());
            Ok((outcome, render::executed_counts(&executed, parses)))
        },
        |tip, (outcome, counts)| printer.print(shared, tip, outcome, counts),
    )?;
    let worked = printer.worked;
    let kept = std::mem::take(&mut printer.kept);
    save_memo(db, worked);
    Ok(kept)
}

/// Prints judged tips' lines and checks the controls at them.
struct Printer<'a> {
    expectations: &'a mut [Expectation],
    format: ReplayFormat,
    /// Whether the judged tips are kept (for the page).
    keep: bool,
    kept: Vec<ReplayedTip>,
    /// Whether any tip parsed or diffed (the memo is worth saving).
    worked: bool,
}

impl Printer<'_> {
    fn print(
        &mut self,
        db: &KeelDatabase,
        tip: Commit,
        outcome: Result<LintReport, String>,
        counts: WorkCounts,
    ) -> Result<(), CommandError> {
        self.worked |= counts.fresh_work();
        if let Ok(report) = &outcome {
            for expected in self.expectations.iter_mut().filter(|e| e.tip == tip) {
                expected.met |= has_finding(report, &expected.node, expected.code);
            }
        }
        let replayed = replayed_tip(db, tip, outcome);
        write_stdout(&line(&replayed, counts, self.format))?;
        if self.keep {
            self.kept.push(replayed);
        }
        Ok(())
    }
}

/// The commit `A` of `A..B` (resolved and read first, so its ancestry is known) and the
/// tip `B` (HEAD without a range); the database's tip is left at `B`.
fn range_ends(
    db: &mut KeelDatabase,
    range: Option<&str>,
) -> Result<(Option<Commit>, Commit), CommandError> {
    let (from, to) = match range {
        None => (None, "HEAD"),
        Some(range) => {
            let Some((from, to)) = range.split_once("..") else {
                return Err(CommandError::repairable(
                    format!("--range {range}: not A..B"),
                    "name two revisions, e.g. --range v1.0..main",
                ));
            };
            if to.starts_with('.') {
                return Err(CommandError::repairable(
                    format!(
                        "--range {range}: A...B (a symmetric difference) is not a range of tips"
                    ),
                    "use A..B",
                ));
            }
            (Some(or_head(from)), or_head(to))
        }
    };
    let exclude = match from {
        Some(rev) => Some(tip_at(db, rev)?),
        None => None,
    };
    Ok((exclude, tip_at(db, to)?))
}

/// A side of `A..B`: HEAD when empty.
fn or_head(side: &str) -> &str {
    if side.is_empty() { "HEAD" } else { side }
}

/// Moves the database's tip to `rev` and returns it as a commit input.
fn tip_at(db: &mut KeelDatabase, rev: &str) -> Result<Commit, CommandError> {
    let id = db.resolve_commit(rev)?;
    db.apply_changes(&[ChangeEvent::TipAt(id)])?;
    Tip::get(&*db).commit(&*db).ok_or_else(|| {
        CommandError::repairable(
            format!("{rev}: the repository has no commits"),
            "commit first",
        )
    })
}

/// Reads `TIP:NODE:CODE`: TIP up to the first `:`, CODE after the last.
fn expectation(
    db: &mut KeelDatabase,
    text: &str,
    tips: &[Commit],
) -> Result<Expectation, CommandError> {
    let refuse = |why: String, repair: String| {
        CommandError::repairable(format!("--expect {text}: {why}"), repair)
    };
    let not_a_triple = || {
        refuse(
            "not TIP:NODE:CODE".to_owned(),
            "e.g. --expect HEAD~3:auth/login:anchor-hit".to_owned(),
        )
    };
    let (Some((rev, rest)), Some((_, code))) = (text.split_once(':'), text.rsplit_once(':')) else {
        return Err(not_a_triple());
    };
    let node = rest.rsplit_once(':').map_or("", |(node, _)| node);
    if node.is_empty() || rev.is_empty() {
        return Err(not_a_triple());
    }
    let Some(doc) = code_doc(code) else {
        let codes: Vec<&str> = FINDING_CODES.iter().map(|doc| doc.code).collect();
        return Err(refuse(
            format!("{code} is no finding code"),
            format!("one of {}", codes.join(", ")),
        ));
    };
    let id = db.resolve_commit(rev)?;
    let Some(&tip) = tips.iter().find(|tip| tip.id(&*db) == id) else {
        return Err(refuse(
            format!("{} is not among the replayed tips", id.short(12)),
            "widen --range or --last, or drop --every".to_owned(),
        ));
    };
    Ok(Expectation {
        text: text.to_owned(),
        tip,
        node: node.to_owned(),
        code: doc.code,
        met: false,
    })
}

/// Lints `tip`, warming on `threads` threads: its report, or the refusal of its specs or
/// settings (a line of its own), and how it parsed; unreadable objects end the replay.
/// With more than one thread, `tip` must be the tip input (the warm-up reads it).
fn judge(
    db: &KeelDatabase,
    tip: Option<Commit>,
    threads: usize,
) -> Result<(Result<LintReport, String>, ParseCounts), CommandError> {
    // A line tallies findings and prints no repair: a dead anchor's repair is not
    // searched for (it reads the tip's other files, at every tip anew).
    let judged = if threads > 1 {
        lint_tally_counting_parses(db, threads, Scope::Full)
    } else {
        let before = thread_parse_counts(db.hints());
        lint_tally_at(db, tip, Scope::Full)
            .map(|report| (report, thread_parse_counts(db.hints()).since(before)))
    };
    match judged {
        Ok((report, parses)) => Ok((Ok(report), parses)),
        Err(LintError::Object(err)) => Err(CommandError::objects(&err)),
        Err(LintError::Settings(err)) => Ok((Err(err.to_string()), ParseCounts::default())),
        Err(LintError::Specs(errors)) => Ok((
            Err(errors.first().map(ToString::to_string).unwrap_or_default()),
            ParseCounts::default(),
        )),
    }
}

/// What `tip` judged as `outcome` adds up to.
fn replayed_tip(
    db: &KeelDatabase,
    tip: Commit,
    outcome: Result<LintReport, String>,
) -> ReplayedTip {
    let (tally, error) = match outcome {
        Ok(report) => (tip_tally(&report), None),
        Err(message) => (
            TipTally {
                blocked: true,
                ..TipTally::default()
            },
            Some(message),
        ),
    };
    let time = tip.committer_time(db);
    ReplayedTip {
        tip: tip.id(db).to_string(),
        time,
        date: Instant::from_secs(time).to_rfc3339(),
        tally,
        error,
    }
}

fn line(tip: &ReplayedTip, counts: WorkCounts, format: ReplayFormat) -> String {
    let line = ReplayLine {
        schema: REPLAY_SCHEMA,
        tip: &tip.tip,
        date: &tip.date,
        nodes: tip.tally.nodes,
        findings: &tip.tally.findings,
        debt: tip.tally.debt,
        blocked: tip.tally.blocked,
        error: tip.error.as_deref(),
        stats: Stats {
            images_parsed: counts.images_parsed,
            hunk_sets_diffed: counts.hunk_sets_diffed,
            queries_executed: counts.queries_executed,
        },
    };
    match format {
        // A struct of strings, numbers and a map of them: serialization cannot fail.
        ReplayFormat::Jsonl => serde_json::to_string(&line).unwrap_or_default() + "\n",
        ReplayFormat::Text => text_line(&line),
    }
}

/// `1a2b3c4d5e6f 2026-01-15T10:30:00Z blocked debt 2, 3 nodes: anchor-hit 2, code-drift 1`.
fn text_line(line: &ReplayLine<'_>) -> String {
    let verdict = if line.blocked { "blocked" } else { "ok" };
    let findings: Vec<String> = line
        .findings
        .iter()
        .map(|(code, n)| format!("{code} {n}"))
        .collect();
    let detail = match &line.error {
        Some(error) => format!("error: {error}"),
        None if findings.is_empty() => "no findings".to_owned(),
        None => findings.join(", "),
    };
    format!(
        "{} {} {verdict} debt {}, {}: {detail} (parsed {}, diffed {})\n",
        &line.tip[..line.tip.len().min(12)],
        line.date,
        line.debt,
        render::counted(line.nodes, "node"),
        line.stats.images_parsed,
        line.stats.hunk_sets_diffed,
    )
}
