//! `keel completions SHELL`: the shell completion script for keel's commands and flags.
//!
//! Owns: choosing the shell and writing clap_complete's script to stdout. Does not own:
//! the command tree (clap's definitions in `commands`).

use super::{Cli, CommandError, write_stdout};
use crate::exit::ExitStatus;
use clap::CommandFactory;
use clap_complete::Shell;

/// Print a completion script for SHELL on stdout.
///
/// bash: `keel completions bash > ~/.local/share/bash-completion/completions/keel`;
/// zsh: `keel completions zsh > "${fpath[1]}/_keel"`; fish: `keel completions fish >
/// ~/.config/fish/completions/keel.fish`; PowerShell: `keel completions powershell |
/// Out-String | Invoke-Expression` in your profile.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: CompletionShell,
}

/// The shells keel writes completions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

impl From<CompletionShell> for Shell {
    fn from(shell: CompletionShell) -> Self {
        match shell {
            CompletionShell::Bash => Shell::Bash,
            CompletionShell::Zsh => Shell::Zsh,
            CompletionShell::Fish => Shell::Fish,
            CompletionShell::Powershell => Shell::PowerShell,
        }
    }
}

pub(crate) fn cmd_completions(args: &CompletionsArgs) -> Result<ExitStatus, CommandError> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(Shell::from(args.shell), &mut command, "keel", &mut script);
    write_stdout(&String::from_utf8_lossy(&script))?;
    Ok(ExitStatus::Clean)
}
