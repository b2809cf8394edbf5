//! Rendering: lint reports as text (grouped by node) or JSON, and the `--stats` line.
//!
//! Owns: layout, colour (only on a terminal, never with `NO_COLOR`) and JSON encoding.
//! Does not own: what a finding says (`keel_queries::lint` words it).

use keel_engine::KeelDatabase;
use keel_queries::ParseCounts;

use keel_queries::lint::{Cosmetic, Side};
use keel_queries::lint::{Finding, HitRecord, LintReport, Severity};
use std::fmt::Write;
use std::io::IsTerminal;
use std::sync::OnceLock;

/// When text output is coloured (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ColourChoice {
    /// Only on a terminal, and never with `NO_COLOR` set.
    #[default]
    Auto,
    /// Always, even in a pipe or with `NO_COLOR`.
    Always,
    /// Never.
    Never,
}

/// The process's `--color` choice, set once from argv before any command runs.
static COLOUR: OnceLock<ColourChoice> = OnceLock::new();

/// Records the `--color` choice; the first call wins.
pub(crate) fn set_colour(choice: ColourChoice) {
    let _ = COLOUR.set(choice);
}

/// Whether text on stdout is coloured: `--color always`, or `auto` (the default) on a
/// terminal with `NO_COLOR` unset or empty.
pub(crate) fn use_colour() -> bool {
    match COLOUR.get().copied().unwrap_or_default() {
        ColourChoice::Always => true,
        ColourChoice::Never => false,
        ColourChoice::Auto => {
            let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            !no_colour && std::io::stdout().is_terminal()
        }
    }
}

/// A spinner on stderr while long work runs, only when stderr is a terminal and the
/// output is for people (never beside JSON, SARIF or annotations, never in a pipe).
pub(crate) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    /// Starts a spinner saying `what`, if `for_people` and stderr is a terminal.
    pub(crate) fn start(for_people: bool, what: &str) -> Self {
        if !for_people || !std::io::stderr().is_terminal() {
            return Self(None);
        }
        let spinner = indicatif::ProgressBar::new_spinner();
        spinner.set_message(format!("keel: {what}"));
        spinner.enable_steady_tick(std::time::Duration::from_millis(120));
        Self(Some(spinner))
    }

    /// Removes the spinner.
    pub(crate) fn finish(self) {
        if let Some(spinner) = self.0 {
            spinner.finish_and_clear();
        }
    }
}

fn paint(text: &str, code: &str, colour: bool) -> String {
    if colour {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// The text report: a header, then each node with its findings (or `ok`), then totals.
pub(crate) fn lint_text(report: &LintReport, colour: bool) -> String {
    let mut out = String::new();
    let Some(tip) = &report.tip else {
        out.push_str("keel lint: the repository has no commits; nothing to judge\n");
        return out;
    };
    let s = &report.summary;
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "keel lint at {} ({}, {})",
        &tip[..tip.len().min(12)],
        counted(s.nodes, "node"),
        counted(s.anchors, "anchor")
    );
    let mut current: Option<&str> = None;
    for finding in &report.findings {
        if current != Some(finding.node.as_str()) {
            current = Some(&finding.node);
            let _ = writeln!(out, "\n{}", paint(&finding.node, "1", colour));
        }
        finding_text(&mut out, finding, colour);
    }
    let clean: Vec<&str> = report
        .nodes
        .iter()
        .filter(|node| !report.findings.iter().any(|f| &f.node == *node))
        .map(String::as_str)
        .collect();
    if !clean.is_empty() {
        let _ = writeln!(out, "\nclean: {}", clean.join(", "));
    }
    for item in &report.unverified {
        let _ = writeln!(
            out,
            "\nunverified: {} {}#{} ({})",
            item.node,
            item.path,
            item.selectors.join(","),
            item.reason
        );
    }
    if report.nodes.is_empty() && report.findings.is_empty() {
        // The report does not say its scope: with --pending or --worktree an empty list
        // may also mean no node governs the change, so the text names both.
        let _ = writeln!(
            out,
            "\nno spec node judged: there are no spec nodes under .spec/ at this commit (or, with --pending or --worktree, none governs the change)\n\
             next: run `keel init` for an example node, or write .spec/<node>/spec.md; `keel units FILE` lists the selectors a spec can pin; commit it, then `keel lint`"
        );
    }
    let _ = writeln!(
        out,
        "\n{}, {}{}",
        counted(s.errors, "error"),
        counted(s.warnings, "warning"),
        if report.blocks() { ": blocked" } else { ": ok" }
    );
    out
}

/// The first 12 characters of a commit id, as every report shows one.
pub(crate) fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// `1 error`, `2 errors`: a count and its noun (plural by adding `s`, or `ies` for a
/// noun ending in `y`).
pub(crate) fn counted(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {noun}s"),
    }
}

/// `error[code]` or `warning[code]`, red or yellow when `colour`.
pub(crate) fn severity_label(finding: &Finding, colour: bool) -> String {
    match finding.severity {
        Severity::Error => paint(&format!("error[{}]", finding.code), "31", colour),
        Severity::Warning => paint(&format!("warning[{}]", finding.code), "33", colour),
    }
}

fn finding_text(out: &mut String, finding: &Finding, colour: bool) {
    let label = severity_label(finding, colour);
    let target = finding_target(finding);
    let _ = writeln!(out, "  {label} {target}");
    let _ = writeln!(out, "    {}", finding.message);
    let shown = match finding.severity {
        Severity::Error => finding.hits.len(),
        Severity::Warning => finding.hits.len().min(ADVISORY_COMMITS_SHOWN),
    };
    for (hit, again) in grouped_by_patch(&finding.hits[..shown]) {
        let _ = writeln!(out, "    {}", hit_text(hit));
        for copy in again {
            let _ = writeln!(
                out,
                "      also as {} {}",
                &copy.commit[..copy.commit.len().min(12)],
                shorten(&copy.subject, SUBJECT_CHARS)
            );
        }
    }
    if shown < finding.hits.len() {
        let _ = writeln!(
            out,
            "    … and {} more (`--format json` lists every commit)",
            finding.hits.len() - shown
        );
    }
    let _ = writeln!(out, "    repair: {}", finding.repair);
}

/// `hits` in order, each with the later hits of the same patch (`patch_id`: the same
/// change cherry-picked elsewhere), which are then not listed on their own.
fn grouped_by_patch(hits: &[HitRecord]) -> Vec<(&HitRecord, Vec<&HitRecord>)> {
    let mut groups: Vec<(&HitRecord, Vec<&HitRecord>)> = Vec::new();
    for hit in hits {
        let first = hit.patch_id.as_ref().and_then(|patch| {
            groups
                .iter_mut()
                .find(|(first, _)| first.patch_id.as_ref() == Some(patch))
        });
        match first {
            Some((_, again)) => again.push(hit),
            None => groups.push((hit, Vec::new())),
        }
    }
    groups
}

/// How many commits a text report lists under an advisory finding (every blocking hit
/// is listed: those are the debt an author must answer).
const ADVISORY_COMMITS_SHOWN: usize = 5;

/// The longest subject a hit line shows, in characters.
const SUBJECT_CHARS: usize = 60;

/// What a finding names: `path` or `path#sel1,sel2`.
pub(crate) fn finding_target(finding: &Finding) -> String {
    if finding.selectors.is_empty() {
        finding.path.clone()
    } else {
        format!("{}#{}", finding.path, finding.selectors.join(","))
    }
}

/// `<sha12> <subject>[ (as <path then>)] — <selectors>: <side>[, conservative]`.
pub(crate) fn hit_text(hit: &HitRecord) -> String {
    let mut line = hit.commit[..hit.commit.len().min(12)].to_owned();
    line.push(' ');
    line.push_str(&shorten(&hit.subject, SUBJECT_CHARS));
    if let Some(path) = &hit.path {
        line.push_str(&format!(" (as {path})"));
    }
    if !hit.selectors.is_empty() {
        line.push_str(" — ");
        line.push_str(&hit.selectors.join(", "));
    }
    if let Some(side) = hit.side {
        line.push_str(match side {
            Side::Added => ": added lines",
            Side::Deleted => ": deleted lines",
            Side::Both => ": added and deleted lines",
        });
    }
    if hit.conservative {
        line.push_str(", conservative");
    }
    match hit.cosmetic {
        Some(Cosmetic::Layout) => line.push_str(", cosmetic (comments and whitespace only)"),
        Some(Cosmetic::Docstring) => {
            line.push_str(", cosmetic (docstrings, comments and whitespace only)");
        }
        None => {}
    }
    line
}

/// `text` cut to `max` characters, with `…` when it was longer.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(max - 1).collect();
    short.push('…');
    short
}

/// The JSON report (`keel.lint.v1`), pretty-printed, newline-terminated.
pub(crate) fn lint_json(report: &LintReport) -> String {
    // The report holds only strings, numbers, booleans and lists: serialization cannot fail.
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON report (`keel.lint.v1`) on one line, newline-terminated: one document per
/// verdict in a stream (`keel watch --format json`).
pub(crate) fn lint_json_line(report: &LintReport) -> String {
    // As in `lint_json`: serialization of the report cannot fail.
    let mut text = serde_json::to_string(report).unwrap_or_default();
    text.push('\n');
    text
}

/// How many commits a one-line finding names.
const FINDING_LINE_COMMITS: usize = 3;

/// One finding on one line, for a list of what changed between two verdicts:
/// `error[anchor-hit] auth/login: src/a.py#login (2 commits)`.
pub(crate) fn finding_line(finding: &Finding) -> String {
    let label = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let target = finding_target(finding);
    let mut line = format!("{label}[{}] {}: {target}", finding.code, finding.node);
    let commits: Vec<&str> = finding
        .hits
        .iter()
        .take(FINDING_LINE_COMMITS)
        .map(|hit| &hit.commit[..hit.commit.len().min(12)])
        .collect();
    if let Some(more) = finding.hits.len().checked_sub(FINDING_LINE_COMMITS)
        && more > 0
    {
        line.push_str(&format!(" ({} and {more} more)", commits.join(" ")));
    } else if !commits.is_empty() {
        line.push_str(&format!(" ({})", commits.join(" ")));
    }
    line
}

/// Work done since the last count, read from the query log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WorkCounts {
    pub(crate) images_parsed: usize,
    pub(crate) hunk_sets_diffed: usize,
    pub(crate) queries_executed: usize,
    /// How those images were parsed.
    pub(crate) parses: ParseCounts,
}

impl WorkCounts {
    /// Did the run parse or diff anything, so the memo is worth writing?
    pub(crate) fn fresh_work(self) -> bool {
        self.images_parsed + self.hunk_sets_diffed > 0
    }
}

/// Takes the query log and counts what it holds.
pub(crate) fn work_counts(db: &KeelDatabase, parses: ParseCounts) -> WorkCounts {
    executed_counts(&db.take_executed_queries(), parses)
}

/// Counts what the executed queries `executed` (named) did.
pub(crate) fn executed_counts(executed: &[String], parses: ParseCounts) -> WorkCounts {
    let count = |name: &str| executed.iter().filter(|n| n.as_str() == name).count();
    WorkCounts {
        images_parsed: count("image_units"),
        hunk_sets_diffed: count("image_hunks"),
        queries_executed: executed.len(),
        parses,
    }
}

/// One JSON line of work counters.
pub(crate) fn stats_line(counts: WorkCounts) -> String {
    stats_json(counts).to_string()
}

/// The `--stats` counters as a JSON object, for a command that adds its own.
pub(crate) fn stats_json(counts: WorkCounts) -> serde_json::Value {
    serde_json::json!({
        "images_parsed": counts.images_parsed,
        "hunk_sets_diffed": counts.hunk_sets_diffed,
        "queries_executed": counts.queries_executed,
        "parsed_from_scratch": counts.parses.full,
        "parsed_incrementally": counts.parses.incremental - counts.parses.retried,
        "parsed_spliced": counts.parses.spliced,
    })
}
