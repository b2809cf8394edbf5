//! How a lint report is printed: the formats `keel lint` offers and the text of a run on
//! a branch with no commits in a repository that has some.
//!
//! Owns: choosing the renderer per format, the places (tip lines, spec entry lines) SARIF
//! and GitHub annotations point at, and asking for GitHub's step summary beside the
//! annotations. Does not own: the renderers (`render`, `sarif`, `github`).

use super::{CommandError, Format, write_stdout};
use crate::sarif::Place;
use crate::{github, render, sarif};
use keel_engine::KeelDatabase;
use keel_queries::lint::LineRange;
use keel_queries::lint::{LintReport, entry_line, unit_lines};

/// How `keel lint` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LintFormat {
    /// Human-readable, grouped by node.
    Text,
    /// `keel.lint.v1` JSON (one document on stdout).
    Json,
    /// A SARIF 2.1.0 log (one run), for code scanning.
    Sarif,
    /// GitHub Actions workflow commands: one `::error`/`::warning` per finding.
    Github,
}

impl From<Format> for LintFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Text => Self::Text,
            Format::Json => Self::Json,
        }
    }
}

/// Prints the report in the chosen format on stdout.
pub(crate) fn print_report(
    db: &KeelDatabase,
    report: &LintReport,
    format: LintFormat,
) -> Result<(), CommandError> {
    let text = match format {
        LintFormat::Text => unborn_branch_text(db, report)
            .unwrap_or_else(|| render::lint_text(report, render::use_colour())),
        LintFormat::Json => render::lint_json(report),
        LintFormat::Sarif => sarif::lint_sarif(report, &findings_places(db, report)?),
        LintFormat::Github => {
            let summarized = github::write_step_summary(report);
            github::lint_github(report, &findings_lines(db, report)?, summarized)
        }
    };
    write_stdout(&text)
}

/// The text when there is no tip because HEAD's branch has no commits yet while another
/// branch has (`git switch --orphan`): the report alone would read as an empty repository.
fn unborn_branch_text(db: &KeelDatabase, report: &LintReport) -> Option<String> {
    if report.tip.is_some() {
        return None;
    }
    let head = db.unborn_head()?;
    let other = head.committed.as_deref()?;
    Some(format!(
        "keel lint: {head}; nothing to judge (commit on `{}` first, or judge a branch that has commits: --rev {other})\n",
        head.branch
    ))
}

/// Where each finding sits (its units' tip lines, its entry's spec line), in the report's
/// order.
fn findings_places(db: &KeelDatabase, report: &LintReport) -> Result<Vec<Place>, CommandError> {
    report
        .findings
        .iter()
        .map(|finding| {
            Ok(Place {
                units: unit_lines(db, finding).map_err(|err| CommandError::objects(&err))?,
                entry_line: entry_line(db, finding).map_err(|err| CommandError::objects(&err))?,
            })
        })
        .collect()
}

/// The tip lines of each finding's units, in the report's order.
fn findings_lines(
    db: &KeelDatabase,
    report: &LintReport,
) -> Result<Vec<Vec<LineRange>>, CommandError> {
    report
        .findings
        .iter()
        .map(|finding| unit_lines(db, finding).map_err(|err| CommandError::objects(&err)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_fixtures::FixtureRepo;
    use keel_queries::lint::lint;

    /// The text `keel lint` prints for the repository as it is.
    fn text_of(repo: &FixtureRepo) -> String {
        let db = KeelDatabase::open(repo.path()).expect("open");
        let report = lint(&db).expect("lint");
        unborn_branch_text(&db, &report).unwrap_or_else(|| render::lint_text(&report, false))
    }

    #[test]
    fn an_orphan_branch_is_named_but_an_empty_repository_keeps_its_message() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        assert_eq!(
            text_of(&repo),
            "keel lint: the repository has no commits; nothing to judge\n"
        );
        repo.write("a.py", "x = 1\n").expect("write");
        repo.commit("Add a").expect("commit");
        repo.git(&["checkout", "--quiet", "--orphan", "fresh"])
            .expect("an orphan branch");
        assert_eq!(
            text_of(&repo),
            "keel lint: HEAD's branch `fresh` has no commits yet; nothing to judge (commit on `fresh` first, or judge a branch that has commits: --rev main)\n"
        );
    }
}
