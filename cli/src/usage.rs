//! Usage errors: clap's message for a bad flag or value, with keel's `repair:` line in place
//! of clap's closing hint, and one line, as keel's own refusals are, for a missing
//! subcommand (in place of the help clap would print as an error).
//!
//! Owns: naming the command clap stopped in (from its usage line: `keel cache`,
//! `keel hook run`) and the repair for it. Does not own: parsing (clap, `commands::Cli`) or the exit code (`exit`).

use clap::CommandFactory;
use clap::error::ErrorKind;

/// What to print on stderr for a clap error that is a usage error.
pub(crate) fn usage_message(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let (path, command) = usage_command(&rendered);
    if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let names: Vec<String> = command
            .get_subcommands()
            .filter(|sub| sub.get_name() != "help")
            .map(|sub| format!("`{path} {}`", sub.get_name()))
            .collect();
        return format!(
            "error: `{path}` needs a subcommand; repair: run one of {}\n",
            names.join(", ")
        );
    }
    let message = rendered
        .trim_end()
        .strip_suffix("For more information, try '--help'.")
        .unwrap_or(&rendered)
        .trim_end();
    format!("{message}\n\nrepair: see `{path} --help` for its arguments and the values they take\n")
}

/// The command clap's message names in its usage line (`Usage: keel cache [OPTIONS]
/// <COMMAND>` names `keel cache`) and its definition: the command clap was parsing when
/// it stopped, whatever values the argv held. `keel` itself when no usage line is shown.
fn usage_command(rendered: &str) -> (String, clap::Command) {
    let mut command = crate::commands::Cli::command();
    let mut path = String::from("keel");
    let usage = rendered
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("Usage: "))
        .unwrap_or_default();
    let names = usage
        .split_whitespace()
        .skip(1)
        .take_while(|word| !word.starts_with(['[', '<', '-']));
    for name in names {
        let Some(sub) = command.find_subcommand(name).cloned() else {
            break;
        };
        path.push(' ');
        path.push_str(sub.get_name());
        command = sub;
    }
    (path, command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn message(args: &[&str]) -> String {
        let mut full = vec!["keel"];
        full.extend_from_slice(args);
        let err = crate::commands::Cli::try_parse_from(full).expect_err("a usage error");
        usage_message(&err)
    }

    #[test]
    fn a_bad_flag_keeps_clap_s_message_and_names_the_subcommand_s_help() {
        let text = message(&["lint", "--bogus"]);
        assert!(
            text.starts_with("error: unexpected argument '--bogus' found"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "repair: see `keel lint --help` for its arguments and the values they take\n"
            ),
            "{text}"
        );
        assert!(!text.contains("For more information"), "{text}");
    }

    #[test]
    fn a_nested_subcommand_is_named_as_typed() {
        let text = message(&["cache", "clear", "--bogus"]);
        assert!(
            text.contains("repair: see `keel cache clear --help`"),
            "{text}"
        );
    }

    #[test]
    fn a_value_spelled_like_a_subcommand_is_not_taken_for_one() {
        let text = message(&["cache", "--repo", "info"]);
        assert!(text.contains("repair: see `keel cache --help`"), "{text}");
    }

    #[test]
    fn a_missing_subcommand_is_one_error_line_naming_each() {
        let text = message(&["cache"]);
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            "error: `keel cache` needs a subcommand; repair: run one of `keel cache info`, `keel cache clear`"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
    }
}
