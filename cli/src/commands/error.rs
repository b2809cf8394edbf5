//! [`CommandError`]: why a command could not run, as the user reads it — what is wrong,
//! and the repair when keel knows one.
//!
//! Owns: the error every command returns, its one-line rendering (`what; repair: how`,
//! printed after `error: ` with exit 2 by `main`), and the repairs shared by several
//! commands (an object the repository cannot give: [`CommandError::objects`]).
//! Does not own: the typed errors of the engine and the queries (each names its own
//! file, line and repair, and converts as it is) nor the exit contract (`exit`).

use std::fmt;

/// A command that could not run.
#[derive(Debug)]
pub(crate) struct CommandError {
    /// What is wrong, naming the flag, file or line.
    what: String,
    /// How to repair it, when keel knows.
    repair: Option<String>,
}

impl CommandError {
    /// `what` is wrong and `repair` mends it.
    pub(crate) fn repairable(what: impl Into<String>, repair: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            repair: Some(repair.into()),
        }
    }

    /// `what` is wrong, and the message itself says all keel knows.
    pub(crate) fn plain(what: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            repair: None,
        }
    }

    /// The repository could not give an object keel needed (`err` names it): a damaged
    /// or incomplete object store, which `git fsck` diagnoses.
    pub(crate) fn objects(err: &dyn std::error::Error) -> Self {
        Self::repairable(err.to_string(), "run `git fsck` on the repository")
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)?;
        match &self.repair {
            Some(repair) => write!(f, "; repair: {repair}"),
            None => Ok(()),
        }
    }
}

/// A typed error of the engine or the queries says what and how itself.
impl<E: std::error::Error> From<E> for CommandError {
    fn from(err: E) -> Self {
        Self::plain(err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::CommandError;

    #[test]
    fn a_repair_follows_what_is_wrong_on_the_same_line() {
        assert_eq!(
            CommandError::repairable("--days: -1 must be ≥ 0", "pass a whole number").to_string(),
            "--days: -1 must be ≥ 0; repair: pass a whole number"
        );
        assert_eq!(CommandError::plain("no repair").to_string(), "no repair");
        let missing = std::io::Error::other("object 1234 is missing");
        assert_eq!(
            CommandError::objects(&missing).to_string(),
            "object 1234 is missing; repair: run `git fsck` on the repository"
        );
    }
}
