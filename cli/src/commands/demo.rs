//! `keel demo`: build a small repository in a temporary folder and lint it.
//!
//! Owns: the demo's framing text. Does not own: the scenario (`keel_fixtures::demo`) or
//! the judgement (`lint`).

use super::lint::{lint_or_refuse, print_report};
use super::{CommandError, Format};
use crate::exit::ExitStatus;
use keel_engine::KeelDatabase;
use keel_fixtures::FixtureRepo;
use keel_fixtures::demo::build_demo;

/// Build a demo repository (Python and TypeScript, five commits) and lint it.
///
/// Shows one blocking hit, one dead anchor, one advisory drift, an acknowledged change
/// and a clean node. Needs `git` on PATH to build the repository; keel itself reads it
/// through gix. Exits 0 when the demo ran.
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
        println!("keel demo: built a five-commit repository in a temporary folder; linting HEAD\n");
    }
    let db = KeelDatabase::open(repo.path())?;
    let report = lint_or_refuse(&db)?;
    print_report(&report, args.format)?;
    if args.format == Format::Text {
        println!(
            "\n`keel lint` would exit {} here. Try it on your repository: keel lint --repo PATH",
            super::lint::status_of(&report) as u8
        );
    }
    Ok(ExitStatus::Clean)
}
