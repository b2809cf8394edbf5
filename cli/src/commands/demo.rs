//! `keel demo`: build a small repository in a temporary folder (or, with `--keep DIR`, in
//! DIR, left there to explore) and lint it.
//!
//! Owns: the demo's framing text, and refusing a `--keep` folder that is not empty (exit
//! 2, nothing written). Does not own: the scenario (`keel_fixtures::demo`) or the
//! judgement (`lint`).

use super::helper::{lint_or_refuse, status_of};
use super::lint_output::print_report;
use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use crate::render;
use crate::streams::errln;
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::FixtureRepo;
use keel_fixtures::demo::{add_demo_followup, build_demo};
use keel_queries::lint::Scope;
use std::path::{Path, PathBuf};

/// Build a demo repository (Python and TypeScript, five commits) and lint it.
///
/// Shows one blocking hit, one dead anchor, one advisory drift, an acknowledged change
/// and a clean node; then adds a sixth commit and re-lints in the same database, showing
/// how little work that takes. Needs `git` on PATH to build the repository; keel itself
/// reads it through gix. With --keep DIR the repository is built in DIR and left there to
/// explore (`cd DIR && keel lint`); DIR must be empty or absent. Exits 0 when the demo ran;
/// 2 when DIR is not an empty folder.
#[derive(Debug, clap::Args)]
pub(crate) struct DemoArgs {
    /// Output format of the lint report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Build the repository in DIR (created if absent; must be empty) and keep it there.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

pub(crate) fn cmd_demo(args: &DemoArgs) -> Result<ExitStatus, CommandError> {
    let mut repo = match &args.keep {
        Some(dir) => {
            refuse_non_empty(dir)?;
            FixtureRepo::create_in(dir)?
        }
        None => FixtureRepo::new()?,
    };
    build_demo(&mut repo)?;
    if args.format == Format::Text {
        let place = match &args.keep {
            Some(dir) => dir.display().to_string(),
            None => "a temporary folder".to_owned(),
        };
        write_stdout(&format!(
            "keel demo: built a five-commit repository in {place}; linting HEAD\n\n"
        ))?;
    }
    let mut db = KeelDatabase::open(repo.path())?;
    let (report, cold_parses) = lint_or_refuse(&db, Scope::Full)?;
    print_report(&db, &report, args.format.into())?;
    if args.format != Format::Text {
        if let Some(dir) = &args.keep {
            // stdout holds the one JSON document.
            errln!("{}", kept_text(dir));
        }
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
         Try it on your repository:\n  \
         keel init --repo PATH    an example spec node and a commented keel.toml\n  \
         keel units FILE          a file's units, with the selector that pins each\n  \
         keel lint --repo PATH    judge every node\n",
        status_of(&report) as u8,
        work_text(cold),
        work_text(warm),
        render::counted(billing, "finding"),
        render::counted(warm_report.summary.errors, "error"),
    );
    write_stdout(&story)?;
    if let Some(dir) = &args.keep {
        write_stdout(&format!("\n{}\n", kept_text(dir)))?;
    }
    Ok(ExitStatus::Clean)
}

/// Refuses a `--keep` folder that exists and is not empty, or is not a folder: the demo
/// writes only where nothing is.
fn refuse_non_empty(dir: &Path) -> Result<(), CommandError> {
    let refuse = |what: &str| {
        CommandError::repairable(
            format!("--keep {}: {what}", dir.display()),
            "pass a new or empty folder, e.g. `keel demo --keep keel-demo`",
        )
    };
    match std::fs::read_dir(dir).map(|mut entries| entries.next().is_none()) {
        Ok(true) => Ok(()),
        Ok(false) => Err(refuse(
            "the folder is not empty, and the demo writes only into an empty one",
        )),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if dir.exists() => Err(refuse("not a folder keel can list")),
        Err(err) => Err(err.into()),
    }
}

/// Where the kept repository is and how to explore it.
fn kept_text(dir: &Path) -> String {
    let dir = shell_word(&dir.display().to_string());
    format!(
        "The demo repository is kept in {dir}. Explore it: cd {dir} && keel lint (then `git log`, `keel units src/billing/invoice.py`, `keel ack billing -m \"Reviewed\"`)"
    )
}

/// `text` as one word for a POSIX shell: as is when it holds only characters no shell
/// reads specially, else single-quoted.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "/._-+:,=@%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

fn work_text(counts: render::WorkCounts) -> String {
    format!(
        "{} parsed, {} diffed, {} executed",
        render::counted(counts.images_parsed, "image"),
        render::counted(counts.hunk_sets_diffed, "hunk set"),
        render::counted(counts.queries_executed, "tracked query"),
    )
}
