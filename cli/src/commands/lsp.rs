//! `keel lsp`: the flags, and opening the repository for the language server.
//!
//! Owns: the command's help and argument. Does not own: the server (`crate::lsp`).

use super::CommandError;
use crate::exit::ExitStatus;
use std::path::PathBuf;

/// A language server (LSP 3.17 over stdin/stdout) showing drift where you edit.
///
/// An editor starts it in a repository (any client that can start a stdio server:
/// Neovim's `vim.lsp.start`, Helix's `language-server`, Zed's `lsp`). Open buffers,
/// unsaved text included, are the working tree as keel judges it: a change inside a unit
/// a `code:` selector pins is an error on that unit saying the gate will refuse the
/// commit; the debt a unit already carried is one information line on it; every finding
/// `keel lint --worktree --all-nodes` reports sits on its entry's line in the node's
/// `spec.md`, with its code and repair. It also goes from a spec entry to the unit it
/// pins (definition), shows which nodes pin a unit and their state (hover, code lens),
/// lists a spec's entries (document symbols) and completes them (a file's units after
/// `path#`, paths after `- `), and gives the call hierarchy from keel's call graph
/// (callers and callees, each naming its unresolved call sites). The command
/// `keel.impact` (`workspace/executeCommand`) answers with `keel impact`'s report for the
/// unsaved change against HEAD. It follows commits and checkouts as `keel watch` does,
/// honours `$/cancelRequest`, and never writes to the repository.
#[derive(Debug, clap::Args)]
pub(crate) struct LspArgs {
    /// The repository (any folder inside its work tree) [default: the folder the editor
    /// opened (its `rootUri`), else the current folder].
    #[arg(long)]
    repo: Option<PathBuf>,
}

pub(crate) fn cmd_lsp(args: &LspArgs) -> Result<ExitStatus, CommandError> {
    crate::lsp::serve(args.repo.clone()).map_err(|err| CommandError::plain(err.to_string()))?;
    Ok(ExitStatus::Clean)
}
