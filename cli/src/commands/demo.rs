//! `keel demo`: build a small repository in a temporary folder and lint it.
//!
//! Owns: the demo's framing text. Does not own: the scenario (`keel_fixtures::demo`) or
//! the judgement (`lint`).

use super::helper::{lint_or_refuse, status_of};
use super::lint_output::print_report;
use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use crate::render;
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::FixtureRepo;
use keel_fixtures::demo::{add_demo_followup, build_demo};
use keel_queries::lint::Scope;

/// Build a demo repository (Python and TypeScript, five commits) and lint it.
///
/// Shows one blocking hit, one dead anchor, one advisory drift, an acknowledged change
/// and a clean node; then adds a sixth commit and re-lints in the same database, showing
/// how little work that takes. Needs `git` on PATH to build the repository; keel itself
/// reads it through gix. Exits 0 when the demo ran.
#[derive(Debug, clap::Args)]
pub(crate) struct DemoArgs {
    /// Output format of the lint report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub(crate) fn cmd_demo(args: &DemoArgs) -> Result<ExitStatus, CommandError> {
    let mut repo = FixtureRepo::new()?;
    build_demo(&mut repo)?;
    if args.format == Format::Text {
        write_stdout(
            "keel demo: built a five-commit repository in a temporary folder; linting HEAD\n\n",
        )?;
    }
    let mut db = KeelDatabase::open(repo.path())?;
    let (report, cold_parses) = lint_or_refuse(&db, Scope::Full)?;
    print_report(&db, &report, args.format.into())?;
    if args.format != Format::Text {
        return Ok(ExitStatus::Clean);
    }
    let cold = render::work_counts(&db, cold_parses);
    add_demo_followup(&mut repo)?;
    db.apply_changes(&[ChangeEvent::TipMoved])?;
    let (warm_report, warm_parses) = lint_or_refuse(&db, Scope::Full)?;
    let warm = render::work_counts(&db, warm_parses);
    let billing = warm_report
        .findings
        .iter()
        .filter(|f| f.node == "billing")
        .count();
    let story = format!(
        "\n`keel lint` exits {} here.\n\n\
         A sixth commit then changes Invoice.total. The same database re-lints it:\n  \
         cold lint: {}\n  \
         re-lint:   {}\n  \
         billing now has {}; {} in all.\n\n\
         Try it on your repository: cargo run --release -- lint --repo PATH\n",
        status_of(&report) as u8,
        work_text(cold),
        work_text(warm),
        render::counted(billing, "finding"),
        render::counted(warm_report.summary.errors, "error"),
    );
    write_stdout(&story)?;
    Ok(ExitStatus::Clean)
}

fn work_text(counts: render::WorkCounts) -> String {
    format!(
        "{} parsed, {} diffed, {} executed",
        render::counted(counts.images_parsed, "image"),
        render::counted(counts.hunk_sets_diffed, "hunk set"),
        render::counted(counts.queries_executed, "tracked query"),
    )
}
