//! The commands: one module each, plus the shared argv types and error.
//!
//! Owns: the clap definitions and dispatch. Does not own: rendering (`render`).

mod ack;
mod cache;
mod callgraph;
mod completions;
mod demo;
mod error;
mod fresh;
mod graph_base;
mod helper;
mod hook;
mod impact;
mod init;
mod lint;
mod lint_output;
mod lsp;
mod page_file;
mod replay;
mod report;
mod session_inputs;
mod sessions;
mod touched;
mod units;
mod watch;

use crate::exit::ExitStatus;
use crate::render::{ColourChoice, set_colour};
use clap::{Parser, Subcommand, ValueEnum};
#[cfg(test)]
pub(crate) use error::Code;
pub(crate) use error::CommandError;

/// keel: spec drift, session impact and semantic impact for git repositories.
#[derive(Debug, Parser)]
#[command(
    name = "keel",
    version,
    about,
    after_help = "Exit codes: 0 nothing blocks (warnings allowed); 1 a blocking finding or unverified anchors; 2 bad usage or input keel could not read (one line naming file, line and repair; nothing written); 101 keel's own failure (report it)."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour text output: auto (a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColourChoice::Auto, hide_possible_values = true)]
    color: ColourChoice,
    /// How a failure is told on stderr: text (one `error:` line naming file, line and
    /// repair) or json (one `keel.error.v1` line: kind, code, message, repair), so scripts
    /// compare codes, not text.
    #[arg(long, global = true, value_enum, default_value_t = ErrorFormat::Text, hide_possible_values = true)]
    pub(crate) error_format: ErrorFormat,
}

/// How a failure is told on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ErrorFormat {
    /// One `error:` line.
    Text,
    /// One JSON line (`keel.error.v1`).
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(init::InitArgs),
    Units(units::UnitsArgs),
    Lint(lint::LintArgs),
    Watch(watch::WatchArgs),
    Lsp(lsp::LspArgs),
    Hook(hook::HookArgs),
    Ack(ack::AckArgs),
    Touched(touched::TouchedArgs),
    Fresh(fresh::FreshArgs),
    Cache(cache::CacheArgs),
    Demo(demo::DemoArgs),
    Sessions(Box<sessions::SessionsArgs>),
    Callgraph(callgraph::CallgraphArgs),
    Impact(impact::ImpactArgs),
    Completions(completions::CompletionsArgs),
    Report(report::ReportArgs),
    Replay(replay::ReplayArgs),
}

/// Output formats of report commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Human-readable, grouped by node.
    Text,
    /// Machine-readable JSON (one document on stdout).
    Json,
}

/// Writes `text` to stdout. A closed pipe (`keel lint | head`) is not an error: the
/// reader has what it wanted.
pub(crate) fn write_stdout(text: &str) -> Result<(), CommandError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(CommandError::from),
    }
}

/// `println!` through [`write_stdout`], so a closed pipe (`keel cache info | head -0`) ends
/// the output quietly instead of in a panic: the command still does its work and exits as
/// it would; any other write error is the command's error (hence `outln!(…)?`). Every
/// command prints through one of the two: the crate denies `clippy::print_stdout`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::commands::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

/// Runs the parsed command.
pub(crate) fn run(cli: Cli) -> Result<ExitStatus, CommandError> {
    set_colour(cli.color);
    match cli.command {
        Command::Init(args) => init::cmd_init(&args),
        Command::Units(args) => units::cmd_units(&args),
        Command::Touched(args) => touched::cmd_touched(&args),
        Command::Lint(args) => lint::cmd_lint(&args),
        Command::Watch(args) => watch::cmd_watch(&args),
        Command::Lsp(args) => lsp::cmd_lsp(&args),
        Command::Hook(args) => hook::cmd_hook(&args),
        Command::Demo(args) => demo::cmd_demo(&args),
        Command::Fresh(args) => fresh::cmd_fresh(&args),
        Command::Sessions(args) => sessions::cmd_sessions(&args),
        Command::Callgraph(args) => callgraph::cmd_callgraph(&args),
        Command::Impact(args) => impact::cmd_impact(&args),
        Command::Ack(args) => ack::cmd_ack(&args),
        Command::Cache(args) => cache::cmd_cache(&args),
        Command::Completions(args) => completions::cmd_completions(&args),
        Command::Report(args) => report::cmd_report(&args),
        Command::Replay(args) => replay::cmd_replay(&args),
    }
}
