//! The reference docs generated from code, and the tests that keep them true:
//! `docs/findings.md` from the catalogue of finding codes
//! (`keel_queries::lint::codes::FINDING_CODES`) and `docs/cli.md` from clap's command tree
//! (`commands::Cli`). Each test renders its document and compares it with the file on disk;
//! a stale file fails the test, and `KEEL_UPDATE_DOCS=1 cargo test -p keel reference_docs`
//! writes the rendered text instead.
//!
//! Owns: the two documents' layout and the staleness tests. Does not own: the codes and
//! their wording (`keel-queries`), the commands' help texts (`commands`), or the docs
//! written by hand beside them (`README.md`, the rest of `docs/`).

use crate::commands::Code;
use clap::CommandFactory;
use keel_queries::lint::codes::FINDING_CODES;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The command that rewrites the generated docs, as the staleness failures name it.
const UPDATE_COMMAND: &str = "KEEL_UPDATE_DOCS=1 cargo test -p keel reference_docs";

/// The width clap wraps help at: fixed, so the document does not depend on the terminal
/// the tests run in (`wrap_help` would read it).
const HELP_WIDTH: usize = 100;

/// The first line of a generated document: what made it and how to make it again.
fn generated_banner(source: &str) -> String {
    format!(
        "<!-- Generated from {source} by cli/src/reference_docs.rs; do not edit by hand.\n     Regenerate with: {UPDATE_COMMAND} -->\n"
    )
}

/// `docs/findings.md`: every finding code with its meaning and its general repair, in the
/// catalogue's order.
fn findings_markdown() -> String {
    let mut out = generated_banner("keel_queries::lint::codes::FINDING_CODES");
    out.push_str(
        "\n# Finding codes\n\n\
         Every code `keel lint` can report (and `keel lint --pending`, the hook and `keel watch`,\n\
         which judge the same way), what a finding of it means and how to repair one in\n\
         general. A finding's own message names its node, path, selectors and commits, and\n\
         carries its own repair. SARIF output describes the same codes as its rules\n\
         (`shortDescription`, `fullDescription`, `help`, and `helpUri`: a link to the code's\n\
         row here, `findings.md#CODE`; a result's own fields are in\n\
         [ci.md](ci.md#output-for-ci)). Which codes block and which are advisories is in\n\
         [How lint judges](specs.md#severity).\n\n\
         | code | meaning | repair |\n\
         |---|---|---|\n",
    );
    for doc in &FINDING_CODES {
        let _ = writeln!(
            out,
            "| <a id=\"{0}\"></a>`{0}` | {1} | {2} |",
            doc.code,
            table_cell(doc.summary),
            table_cell(doc.help)
        );
    }
    out
}

/// `text` as one markdown table cell: a `|` would end the cell early.
fn table_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// `docs/cli.md`: `keel --help` and every subcommand's, depth first in clap's order, each
/// under a heading naming the command as typed.
fn cli_markdown() -> String {
    let mut command = crate::commands::Cli::command().term_width(HELP_WIDTH);
    command.build();
    let mut sections = Vec::new();
    collect_help(&mut command, &mut sections);

    let mut out = generated_banner("keel's clap definitions (`commands::Cli`)");
    out.push_str(
        "\n# Command reference\n\n\
         Every keel command's `--help`, as keel prints it (wrapped at 100 columns). The guides\n\
         explain what the commands judge: [specs and lint](specs.md), [CI and the local\n\
         gates](ci.md), [sessions](sessions.md), [call graph and impact](impact.md),\n\
         [fresh](fresh.md), [replay](replay.md), [settings](settings.md).\n\n",
    );
    for (name, _) in &sections {
        let _ = writeln!(out, "- [{name}](#{})", name.replace(' ', "-"));
    }
    out.push_str("- [Error codes](#error-codes)\n");
    for (name, help) in &sections {
        let _ = write!(out, "\n## {name}\n\n```text\n{help}\n```\n");
    }
    out.push_str(&error_codes_markdown());
    out
}

/// The codes a failure carries in `--error-format json`, with its kind, exit status and
/// meaning, from the one catalogue ([`Code::ALL`]).
fn error_codes_markdown() -> String {
    let mut out = String::from(
        "\n## Error codes\n\n\
         With `--error-format json`, a failure is one `keel.error.v1` line on stderr: `kind`, \
         `code`, `message`, `repair`.\n\n\
         | code | kind | exit | meaning |\n\
         |---|---|---|---|\n",
    );
    for code in Code::ALL {
        let kind = code.kind();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            code.as_str(),
            kind.name(),
            kind.exit_status() as u8,
            table_cell(code.meaning())
        );
    }
    out
}

/// Pushes `command`'s long help and then each visible subcommand's, recursively; clap's
/// own `help` subcommand is left out.
fn collect_help(command: &mut clap::Command, sections: &mut Vec<(String, String)>) {
    let name = command
        .get_bin_name()
        .unwrap_or_else(|| command.get_name())
        .to_owned();
    let help = command.render_long_help().to_string();
    let help: Vec<&str> = help.lines().map(str::trim_end).collect();
    sections.push((name, help.join("\n").trim().to_owned()));
    for sub in command.get_subcommands_mut() {
        if sub.get_name() != "help" && !sub.is_hide_set() {
            collect_help(sub, sections);
        }
    }
}

/// Compares `rendered` with the file `docs/<name>`, or writes it there when
/// `KEEL_UPDATE_DOCS=1`.
fn check_or_update(name: &str, rendered: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("docs")
        .join(name);
    if std::env::var_os("KEEL_UPDATE_DOCS").is_some_and(|value| value == "1") {
        std::fs::write(&path, rendered)
            .unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if on_disk != rendered {
        let line = on_disk
            .lines()
            .zip(rendered.lines())
            .position(|(disk, code)| disk != code)
            .unwrap_or_else(|| on_disk.lines().count().min(rendered.lines().count()))
            + 1;
        panic!(
            "docs/{name} is stale: from line {line} on it differs from what the code \
             generates; run `{UPDATE_COMMAND}` and review the diff"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_doc_is_current() {
        check_or_update("findings.md", &findings_markdown());
    }

    #[test]
    fn cli_doc_is_current() {
        check_or_update("cli.md", &cli_markdown());
    }

    /// Both documents name every thing they are generated from, so a code or command
    /// added to the code cannot pass unlisted by a renderer that drops it.
    #[test]
    fn the_documents_cover_every_code_and_command() {
        let findings = findings_markdown();
        for doc in &FINDING_CODES {
            assert!(
                findings.contains(&format!("| <a id=\"{0}\"></a>`{0}` |", doc.code)),
                "{}",
                doc.code
            );
        }
        let cli = cli_markdown();
        for sub in crate::commands::Cli::command().get_subcommands() {
            if sub.get_name() != "help" {
                assert!(
                    cli.contains(&format!("\n## keel {}\n", sub.get_name())),
                    "{}",
                    sub.get_name()
                );
            }
        }
    }
}
