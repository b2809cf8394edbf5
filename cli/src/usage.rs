//! Usage errors: clap's message for a bad flag or value, with keel's `repair:` line in place
//! of clap's closing hint, and one line, as keel's own refusals are, for a missing
//! subcommand (in place of the help clap would print as an error).
//!
//! Owns: naming the subcommand the argv reached (`keel cache`, `keel hook run`) and the
//! repair for it. Does not own: parsing (clap, `commands::Cli`) or the exit code (`exit`).

use clap::CommandFactory;
use clap::error::ErrorKind;

/// What to print on stderr for a clap error that is a usage error (`argv` without the
/// program name).
pub(crate) fn usage_message(err: &clap::Error, argv: &[String]) -> String {
    let (path, command) = reached(argv);
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
    let rendered = err.render().to_string();
    let message = rendered
        .trim_end()
        .strip_suffix("For more information, try '--help'.")
        .unwrap_or(&rendered)
        .trim_end();
    format!("{message}\n\nrepair: see `{path} --help` for its arguments and the values they take\n")
}

/// The deepest subcommand `argv` names, as typed (`keel hook run`), and its definition.
fn reached(argv: &[String]) -> (String, clap::Command) {
    let mut command = crate::commands::Cli::command();
    let mut path = String::from("keel");
    for arg in argv {
        let Some(sub) = command.find_subcommand(arg).cloned() else {
            continue;
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

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|arg| (*arg).to_owned()).collect()
    }

    fn message(args: &[&str]) -> String {
        let mut full = vec!["keel"];
        full.extend_from_slice(args);
        let err = crate::commands::Cli::try_parse_from(full).expect_err("a usage error");
        usage_message(&err, &argv(args))
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
