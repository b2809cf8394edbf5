//! [`CommandError`]: why a command could not run, as the user reads it — what is wrong,
//! and the repair when keel knows one — with a [`ErrorKind`] that picks the exit status
//! and a stable code scripts compare (`--error-format json`).
//!
//! Owns: the error every command returns, its kinds and codes, its one-line rendering
//! (`what; repair: how`, printed after `error: ` by `main`) and its JSON line, the
//! conversions from the engine's and the queries' typed errors (each explicit, so a new
//! error type must say what kind it is), and the repairs shared by several commands (an
//! object the repository cannot give: [`CommandError::objects`]).
//! Does not own: the typed errors themselves (each names its own file, line and repair)
//! nor the exit numbers (`exit`).

use crate::exit::ExitStatus;
use keel_engine::refusal::Refusal;
use std::fmt;

/// Who can mend a failure, which decides how keel exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// Bad usage: a flag, an argument, a path or revision named on the command line.
    User,
    /// Input keel could not read or refuses: a spec, `keel.toml`, a JSONL line, a log
    /// folder, a patch, a repository's objects.
    Input,
    /// keel's own failure: an invariant broke. Never the user's input.
    Internal,
}

impl ErrorKind {
    /// The exit status of a failure of this kind.
    pub(crate) fn exit_status(self) -> ExitStatus {
        match self {
            Self::User | Self::Input => ExitStatus::Usage,
            Self::Internal => ExitStatus::Internal,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Input => "input",
            Self::Internal => "internal",
        }
    }
}

/// A command that could not run.
#[derive(Debug)]
pub(crate) struct CommandError {
    kind: ErrorKind,
    /// Stable, kebab-case: what scripts compare instead of the text.
    code: &'static str,
    /// What is wrong, naming the flag, file or line.
    what: String,
    /// How to repair it, when keel knows.
    repair: Option<String>,
}

impl CommandError {
    /// Bad usage: `what` is wrong and `repair` mends it.
    pub(crate) fn repairable(what: impl Into<String>, repair: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::User,
            code: "usage",
            what: what.into(),
            repair: Some(repair.into()),
        }
    }

    /// Bad usage, and the message itself says all keel knows.
    pub(crate) fn plain(what: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::User,
            code: "usage",
            what: what.into(),
            repair: None,
        }
    }

    /// The repository could not give an object keel needed (`err` names it): a damaged
    /// or incomplete object store, which `git fsck` diagnoses.
    pub(crate) fn objects(err: &dyn std::error::Error) -> Self {
        Self::input(
            "unreadable-object",
            err.to_string(),
            Some("run `git fsck` on the repository".into()),
        )
    }

    /// Input keel refuses, with its code; the message names the file and line.
    pub(crate) fn input(code: &'static str, what: String, repair: Option<String>) -> Self {
        let (what, repair) = match (repair, what.split_once("; repair: ")) {
            (None, Some((what, repair))) => (what.to_owned(), Some(repair.to_owned())),
            (repair, _) => (what, repair),
        };
        Self {
            kind: ErrorKind::Input,
            code,
            what,
            repair,
        }
    }

    /// A typed error whose own message says what and how (`what; repair: how`), as
    /// `kind` with `code`.
    fn typed(kind: ErrorKind, code: &'static str, err: &dyn std::error::Error) -> Self {
        let text = err.to_string();
        let (what, repair) = match text.split_once("; repair: ") {
            Some((what, repair)) => (what.to_owned(), Some(repair.to_owned())),
            None => (text, None),
        };
        Self {
            kind,
            code,
            what,
            repair,
        }
    }

    pub(crate) fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The error as one JSON line (`--error-format json`): schema, kind, code, the message
    /// as text prints it, and the repair when keel knows one.
    pub(crate) fn json_line(&self) -> String {
        #[derive(serde::Serialize)]
        struct Line<'a> {
            schema: &'static str,
            kind: &'static str,
            code: &'static str,
            message: &'a str,
            repair: Option<&'a str>,
        }
        let line = Line {
            schema: "keel.error.v1",
            kind: self.kind.name(),
            code: self.code,
            message: &self.what,
            repair: self.repair.as_deref(),
        };
        // A struct of strings always serializes.
        serde_json::to_string(&line).unwrap_or_default()
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

/// A refusal names its location, field and repair itself; its code is its kind's.
impl From<Refusal> for CommandError {
    fn from(refusal: Refusal) -> Self {
        let what = match &refusal.field {
            Some(field) => format!("{}: {field}: {}", refusal.location, refusal.message),
            None => format!("{}: {}", refusal.location, refusal.message),
        };
        Self::input(refusal.code.as_str(), what, Some(refusal.repair))
    }
}

impl From<keel_engine::EngineError> for CommandError {
    fn from(err: keel_engine::EngineError) -> Self {
        use keel_engine::EngineError as E;
        match err {
            E::Refused(refusal) => refusal.into(),
            E::Unreadable { .. } => Self::typed(ErrorKind::Input, "unreadable-repository", &err),
            E::NoSuchPath { .. }
            | E::NotAFolder { .. }
            | E::NotARepository { .. }
            | E::NoSuchCommit { .. }
            | E::UnbornHead { .. }
            | E::NoWorkTree { .. } => Self::typed(ErrorKind::User, err.code(), &err),
        }
    }
}

impl From<keel_engine::objects::ObjectError> for CommandError {
    fn from(err: keel_engine::objects::ObjectError) -> Self {
        Self::objects(&err)
    }
}

impl From<keel_engine::settings::SettingsError> for CommandError {
    fn from(err: keel_engine::settings::SettingsError) -> Self {
        Refusal::from(err).into()
    }
}

impl From<keel_engine::ack::AckError> for CommandError {
    fn from(err: keel_engine::ack::AckError) -> Self {
        Self::typed(ErrorKind::User, "ack-refused", &err)
    }
}

impl From<keel_engine::hook::HookError> for CommandError {
    fn from(err: keel_engine::hook::HookError) -> Self {
        match err {
            keel_engine::hook::HookError::Engine(err) => err.into(),
            other => Self::typed(ErrorKind::User, "hook-refused", &other),
        }
    }
}

impl From<keel_queries::impact::options::OptionError> for CommandError {
    fn from(err: keel_queries::impact::options::OptionError) -> Self {
        Self::typed(ErrorKind::User, "KEEL-G109", &err)
    }
}

impl From<keel_queries::impact::patch::PatchError> for CommandError {
    fn from(err: keel_queries::impact::patch::PatchError) -> Self {
        Self::typed(ErrorKind::Input, "bad-patch", &err)
    }
}

/// The demo builds its repository with git: a failure there is keel's (or its
/// environment's), never the user's input.
impl From<keel_fixtures::FixtureError> for CommandError {
    fn from(err: keel_fixtures::FixtureError) -> Self {
        Self::typed(ErrorKind::Internal, "demo-failed", &err)
    }
}

impl From<std::io::Error> for CommandError {
    fn from(err: std::io::Error) -> Self {
        Self::typed(ErrorKind::Input, "io", &err)
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
        let demo = CommandError::from(keel_fixtures::FixtureError("git not found".into()));
        assert_eq!(demo.kind(), super::ErrorKind::Internal);
        assert_eq!(demo.kind().exit_status() as u8, 101);
        let missing = std::io::Error::other("object 1234 is missing");
        assert_eq!(
            CommandError::objects(&missing).to_string(),
            "object 1234 is missing; repair: run `git fsck` on the repository"
        );
    }
}
