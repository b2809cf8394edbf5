//! `keel lint --format github`: the lint report as GitHub Actions workflow commands
//! (`::error file=…,line=…,endLine=…,title=…::…`), one annotation per finding, at the
//! first unit it names (the whole file when it names none).
//!
//! Owns: the commands and GitHub's escaping — in the message (`%`, CR, LF) and, also `:`
//! and `,`, in property values. Does not own: the findings or where a unit sits.

use keel_queries::lint::LineRange;
use keel_queries::lint::{Finding, LintReport, Severity};

/// How many hits an annotation lists before it says how many more there are.
const LISTED_HITS: usize = 10;

/// One workflow command per finding; `lines[i]` are the tip lines of
/// `report.findings[i]`'s units.
pub(crate) fn lint_github(report: &LintReport, lines: &[Vec<LineRange>]) -> String {
    report
        .findings
        .iter()
        .zip(lines)
        .map(|(finding, lines)| annotation(finding, lines.first().copied()))
        .collect()
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
        let short = &hit.commit[..hit.commit.len().min(12)];
        text.push_str(&format!("\n{short} {}", hit.subject));
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
}
