//! keel: the command-line front end.
//!
//! Owns: parsing argv (clap), dispatching to one file per command, printing, and the exit
//! contract — 0 nothing blocks, 1 a blocking finding or unverified anchors, 2 bad usage or
//! unreadable input (one line naming file, line and repair; nothing written), 101 keel's
//! own failure.
//! Does not own: any answer (`keel-queries`) or reading the world (`keel-engine`).
//!
//! stdout is written only through `commands::write_stdout` (and its `outln!`), where a
//! closed pipe (`keel … | head`) ends the output quietly; `println!` would panic there
//! (exit 101), so it is denied. stderr likewise goes through `streams::write_stderr`
//! (and its `errln!`), where a closed stderr drops the text instead of panicking.
#![deny(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "print through commands::write_stdout / outln! and write_stderr / errln!, which end quietly on a closed pipe or a closed stderr"
)]

mod commands;
mod exit;
mod gate_text;
mod github;
mod html;
mod impact_text;
mod lsp;
#[cfg(test)]
mod reference_docs;
mod render;
mod replay_html;
mod sarif;
mod sessions_usage_text;
mod streams;
mod usage;

use clap::Parser;
use exit::ExitStatus;
use std::process::ExitCode;
use streams::{errln, write_stderr};

#[global_allocator]
static ALLOCATOR: keel_engine::allocator::Allocator = keel_engine::allocator::Allocator;

fn main() -> ExitCode {
    let cli = match commands::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let status = if err.use_stderr() {
                ExitStatus::Usage
            } else {
                ExitStatus::Clean
            };
            if status == ExitStatus::Clean {
                // Printing help or the version cannot fail in a way keel could report
                // better than by its exit status.
                let _ = err.print();
            } else {
                let message = usage::usage_message(&err);
                if json_errors_asked() {
                    let first = message.lines().next().unwrap_or_default();
                    let what = first.strip_prefix("error: ").unwrap_or(first);
                    errln!("{}", commands::CommandError::plain(what).json_line());
                } else {
                    write_stderr(&message);
                }
            }
            return status.into();
        }
    };
    let error_format = cli.error_format;
    match commands::run(cli) {
        Ok(status) => status.into(),
        Err(err) => {
            for line in err.lines() {
                match error_format {
                    commands::ErrorFormat::Text => errln!("error: {line}"),
                    commands::ErrorFormat::Json => errln!("{}", line.json_line()),
                }
            }
            err.kind().exit_status().into()
        }
    }
}

/// Whether argv asks for JSON errors, read without clap (which just refused argv).
fn json_errors_asked() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|arg| arg == "--error-format=json")
        || args
            .windows(2)
            .any(|pair| pair[0] == "--error-format" && pair[1] == "json")
}
