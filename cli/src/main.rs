//! keel: the command-line front end.
//!
//! Owns: parsing argv (clap), dispatching to one file per command, printing, and the exit
//! contract — 0 nothing blocks, 1 a blocking finding or unverified anchors, 2 bad usage or
//! unreadable input (one line naming file, line and repair; nothing written).
//! Does not own: any answer (`keel-queries`) or reading the world (`keel-engine`).

mod commands;
mod exit;
mod github;
mod html;
#[cfg(test)]
mod reference_docs;
mod render;
mod replay_html;
mod sarif;
mod usage;

use clap::Parser;
use exit::ExitStatus;
use std::process::ExitCode;

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
                eprint!("{}", usage::usage_message(&err));
            }
            return status.into();
        }
    };
    match commands::run(cli) {
        Ok(status) => status.into(),
        Err(err) => {
            eprintln!("error: {err}");
            ExitStatus::Usage.into()
        }
    }
}
