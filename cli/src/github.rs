//! `keel lint --format github`: the lint report as GitHub Actions workflow commands
//! (`::error file=…,line=…,endLine=…,title=…::…`), one annotation per finding, at the
//! first unit it names (the whole file when it names none), within the runner's limit of
//! ten error and ten warning annotations per step — errors first, then warnings, each in
//! report order, and one `::notice` counting what was left out — and the job's step
//! summary (`GITHUB_STEP_SUMMARY`): the totals and a Markdown table of every finding.
//!
//! Owns: the commands, the annotation limit, the summary's Markdown, GitHub's escaping
//! (in a command's message `%`, CR, LF, and also `:` and `,` in property values; in the
//! summary, Markdown's own syntax), and appending the summary to its file. Does not own:
//! the findings or where a unit sits.

use crate::render::short;
use crate::streams::errln;
use keel_queries::lint::LineRange;
use keel_queries::lint::{Finding, LintReport, Severity};
use std::fmt::Write as _;

/// How many hits an annotation (or a summary row) lists before it says how many more
/// there are.
const LISTED_HITS: usize = 10;

/// How many annotations of one severity GitHub's runner shows per step; the rest it drops.
const ANNOTATIONS_PER_SEVERITY: usize = 10;

/// The environment variable naming the file GitHub renders as the step's summary.
const STEP_SUMMARY_VAR: &str = "GITHUB_STEP_SUMMARY";

/// The most bytes a summary holds: GitHub refuses a step summary over 1 MiB, so rows stop
/// short of it (with room for the line that says so).
const SUMMARY_BYTES: usize = 1000 * 1024;

/// The annotations of `report`: the first ten errors, then the first ten warnings (each in
/// report order), then a `::notice` counting the findings left out, if any. `lines[i]` are
/// the tip lines of `report.findings[i]`'s units; `summarized` says the step summary lists
/// every finding.
pub(crate) fn lint_github(
    report: &LintReport,
    lines: &[Vec<LineRange>],
    summarized: bool,
) -> String {
    let mut out = String::new();
    let mut left_out = Vec::new();
    for (severity, one, many) in [
        (Severity::Error, "error", "errors"),
        (Severity::Warning, "warning", "warnings"),
    ] {
        let of_severity: Vec<(&Finding, &Vec<LineRange>)> = report
            .findings
            .iter()
            .zip(lines)
            .filter(|(finding, _)| finding.severity == severity)
            .collect();
        for (finding, lines) in of_severity.iter().take(ANNOTATIONS_PER_SEVERITY) {
            out.push_str(&annotation(finding, lines.first().copied()));
        }
        let more = of_severity.len().saturating_sub(ANNOTATIONS_PER_SEVERITY);
        if more > 0 {
            left_out.push(format!(
                "{more} more {}",
                if more == 1 { one } else { many }
            ));
        }
    }
    if !left_out.is_empty() {
        let also = if summarized {
            ", or see the step summary"
        } else {
            ""
        };
        let text = format!(
            "{} not shown: GitHub shows {ANNOTATIONS_PER_SEVERITY} error and {ANNOTATIONS_PER_SEVERITY} warning annotations per step; run `keel lint` for all{also}",
            left_out.join(" and ")
        );
        out.push_str(&format!(
            "::notice title={}::{}\n",
            property("keel lint"),
            data(&text)
        ));
    }
    out
}

fn annotation(finding: &Finding, lines: Option<LineRange>) -> String {
    let command = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut properties = vec![format!("file={}", property(&finding.path))];
    if let Some(range) = lines {
        properties.push(format!("line={}", range.start));
        properties.push(format!("endLine={}", range.end));
    }
    let title = format!("keel {}: {}", finding.code, finding.node);
    properties.push(format!("title={}", property(&title)));
    format!(
        "::{command} {}::{}\n",
        properties.join(","),
        data(&body(finding))
    )
}

/// The message, the repair, and the commits behind it, one per line.
fn body(finding: &Finding) -> String {
    let mut text = format!("{}\nrepair: {}", finding.message, finding.repair);
    for hit in finding.hits.iter().take(LISTED_HITS) {
        text.push_str(&format!("\n{} {}", short(&hit.commit), hit.subject));
        if !hit.selectors.is_empty() {
            text.push_str(&format!(" ({})", hit.selectors.join(", ")));
        }
    }
    if finding.hits.len() > LISTED_HITS {
        let more = finding.hits.len() - LISTED_HITS;
        text.push_str(&format!(
            "\n… and {more} more (keel lint --format json lists all)"
        ));
    }
    text
}

/// A message escaped as GitHub's runner reads it.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value escaped as GitHub's runner reads it.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Appends the step summary of `report` to the file `GITHUB_STEP_SUMMARY` names, when it
/// is set; whether it was written. A failure to write is one `warning:` line on stderr:
/// the summary is a courtesy, the lint's verdict stands without it.
pub(crate) fn write_step_summary(report: &LintReport) -> bool {
    let Some(path) = std::env::var_os(STEP_SUMMARY_VAR).filter(|path| !path.is_empty()) else {
        return false;
    };
    let written = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .and_then(|mut file| std::io::Write::write_all(&mut file, step_summary(report).as_bytes()));
    match written {
        Ok(()) => true,
        Err(err) => {
            errln!(
                "warning: {STEP_SUMMARY_VAR} ({}): the step summary was not written: {err}",
                std::path::Path::new(&path).display()
            );
            false
        }
    }
}

/// The step summary: a heading with the tip, the totals, and one table row per finding
/// (node, severity, code, target, commits, repair), in report order.
pub(crate) fn step_summary(report: &LintReport) -> String {
    let summary = &report.summary;
    let mut out = String::from("## keel lint");
    if let Some(tip) = &report.tip {
        let _ = write!(out, " at {}", code_span(short(tip)));
    }
    let verdict = if report.blocks() { "blocks" } else { "passes" };
    let _ = write!(
        out,
        "\n\n**{}**, {}, {} in {} ({}); the lint {verdict}.\n",
        counted(summary.errors, "error", "errors"),
        counted(summary.warnings, "warning", "warnings"),
        counted(report.findings.len(), "finding", "findings"),
        counted(summary.nodes, "node", "nodes"),
        counted(summary.anchors, "anchor", "anchors"),
    );
    if !report.unverified.is_empty() {
        let _ = writeln!(
            out,
            "\n{} could not be verified (`keel lint` lists them).",
            counted(report.unverified.len(), "anchor", "anchors")
        );
    }
    if report.findings.is_empty() {
        out.push('\n');
        return out;
    }
    out.push_str(
        "\n| node | severity | code | target | commits | repair |\n|---|---|---|---|---|---|\n",
    );
    for (shown, finding) in report.findings.iter().enumerate() {
        let row = summary_row(finding);
        if out.len() + row.len() > SUMMARY_BYTES {
            let _ = writeln!(
                out,
                "\n{} more not listed: a step summary holds at most 1 MiB; `keel lint --format json` lists all.",
                counted(report.findings.len() - shown, "finding", "findings")
            );
            break;
        }
        out.push_str(&row);
    }
    out.push('\n');
    out
}

/// One finding's row of the summary's table.
fn summary_row(finding: &Finding) -> String {
    let severity = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let target = if finding.selectors.is_empty() {
        finding.path.clone()
    } else {
        format!("{}#{}", finding.path, finding.selectors.join(","))
    };
    let mut commits: Vec<String> = finding
        .hits
        .iter()
        .take(LISTED_HITS)
        .map(|hit| {
            format!(
                "{} {}",
                code_span(short(&hit.commit)),
                markdown_text(&hit.subject)
            )
        })
        .collect();
    if finding.hits.len() > LISTED_HITS {
        commits.push(format!("… and {} more", finding.hits.len() - LISTED_HITS));
    }
    let commits = if commits.is_empty() {
        "—".to_owned()
    } else {
        commits.join("<br>")
    };
    format!(
        "| {} | {severity} | {} | {} | {commits} | {} |\n",
        code_span(&finding.node),
        code_span(finding.code),
        code_span(&target),
        markdown_text(&finding.repair),
    )
}

/// `1 error`, `2 errors`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text` on one line of a table cell: line breaks as spaces, and a `|` escaped so it does
/// not end the cell (GitHub unescapes it even inside a code span).
fn one_cell_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ").replace('|', "\\|")
}

/// `text` as plain Markdown in a table cell: every character Markdown or HTML would read
/// as syntax backslash-escaped.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\r' | '\n' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// `text` as a Markdown code span in a table cell: fenced by one more backtick than its
/// longest run of them (padded when it starts or ends with one).
fn code_span(text: &str) -> String {
    let text = one_cell_line(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_properties_escape_what_the_runner_would_read_as_syntax() {
        assert_eq!(data("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext: a,b");
        assert_eq!(
            property("50% done\r\nnext: a,b"),
            "50%25 done%0D%0Anext%3A a%2Cb"
        );
        assert_eq!(property("%3A"), "%253A");
    }

    #[test]
    fn summary_cells_keep_to_their_cell_and_read_as_text() {
        assert_eq!(code_span("a.py#f"), "`a.py#f`");
        assert_eq!(code_span("a|b"), "`a\\|b`");
        assert_eq!(code_span("x`y"), "``x`y``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_span("two\nlines"), "`two lines`");
        assert_eq!(
            markdown_text("Fix <b>*this*</b> | [x](y)\nnow"),
            "Fix \\<b\\>\\*this\\*\\</b\\> \\| \\[x\\](y) now"
        );
    }
}
