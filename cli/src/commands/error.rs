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
use keel_engine::refusal::{Refusal, RefusalCode};
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

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Input => "input",
            Self::Internal => "internal",
        }
    }
}

/// The stable code of a failure: what scripts compare instead of the text. The one
/// catalogue of them (`docs/cli.md` lists it, generated from [`Code::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    /// Input a strict reader refused, by kind.
    Refused(RefusalCode),
    Usage,
    NoSuchPath,
    NotAFolder,
    NotARepository,
    NoSuchCommit,
    UnbornHead,
    NoWorkTree,
    UnreadableRepository,
    UnreadableObject,
    Io,
    AckRefused,
    HookRefused,
    ImpactOption,
    BadPatch,
    DemoFailed,
}

impl Code {
    /// Every code, refusals first (for the generated `docs/cli.md`).
    #[cfg(test)]
    pub(crate) const ALL: [Code; 22] = [
        Code::Refused(RefusalCode::Spec),
        Code::Refused(RefusalCode::Settings),
        Code::Refused(RefusalCode::Jsonl),
        Code::Refused(RefusalCode::Sessions),
        Code::Refused(RefusalCode::Readings),
        Code::Refused(RefusalCode::CodeEntry),
        Code::Refused(RefusalCode::LogFolder),
        Code::Usage,
        Code::NoSuchPath,
        Code::NotAFolder,
        Code::NotARepository,
        Code::NoSuchCommit,
        Code::UnbornHead,
        Code::NoWorkTree,
        Code::UnreadableRepository,
        Code::UnreadableObject,
        Code::Io,
        Code::AckRefused,
        Code::HookRefused,
        Code::ImpactOption,
        Code::BadPatch,
        Code::DemoFailed,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Refused(code) => code.as_str(),
            Self::Usage => "usage",
            Self::NoSuchPath => "no-such-path",
            Self::NotAFolder => "not-a-folder",
            Self::NotARepository => "not-a-repository",
            Self::NoSuchCommit => "no-such-commit",
            Self::UnbornHead => "unborn-head",
            Self::NoWorkTree => "no-work-tree",
            Self::UnreadableRepository => "unreadable-repository",
            Self::UnreadableObject => "unreadable-object",
            Self::Io => "io",
            Self::AckRefused => "ack-refused",
            Self::HookRefused => "hook-refused",
            Self::ImpactOption => "KEEL-G109",
            Self::BadPatch => "bad-patch",
            Self::DemoFailed => "demo-failed",
        }
    }

    /// The kind of failure a code is, which decides the exit status.
    pub(crate) fn kind(self) -> ErrorKind {
        match self {
            Self::Refused(_)
            | Self::UnreadableRepository
            | Self::UnreadableObject
            | Self::Io
            | Self::BadPatch => ErrorKind::Input,
            Self::DemoFailed => ErrorKind::Internal,
            Self::Usage
            | Self::NoSuchPath
            | Self::NotAFolder
            | Self::NotARepository
            | Self::NoSuchCommit
            | Self::UnbornHead
            | Self::NoWorkTree
            | Self::AckRefused
            | Self::HookRefused
            | Self::ImpactOption => ErrorKind::User,
        }
    }

    /// What a failure of this code means, in one line (for the generated `docs/cli.md`).
    #[cfg(test)]
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            Self::Refused(code) => code.meaning(),
            Self::Usage => "a flag, an argument or a value on the command line keel refuses",
            Self::NoSuchPath => "`--repo` (or another path flag) names nothing",
            Self::NotAFolder => "`--repo` names a file, not a folder",
            Self::NotARepository => "the folder is not inside a git work tree",
            Self::NoSuchCommit => "a revision names no commit",
            Self::UnbornHead => "HEAD's branch has no commits yet",
            Self::NoWorkTree => "a bare repository has no working tree to judge",
            Self::UnreadableRepository => "the repository cannot be read",
            Self::UnreadableObject => "the repository cannot give an object keel needs",
            Self::Io => "a file keel reads or writes cannot be used",
            Self::AckRefused => "`keel ack` cannot make its checkpoint commit in this state",
            Self::HookRefused => "`keel hook` cannot install or remove the hook",
            Self::ImpactOption => "an option of `keel impact` outside its contract",
            Self::BadPatch => "the patch is not a unified diff, or does not apply to its base",
            Self::DemoFailed => "the demo could not build its repository (keel's own failure)",
        }
    }
}

/// A command that could not run.
#[derive(Debug)]
pub(crate) struct CommandError {
    code: Code,
    /// What is wrong, naming the flag, file or line.
    what: String,
    /// How to repair it, when keel knows.
    repair: Option<String>,
    /// Further failures of the same read, each told on its own line after this one (a
    /// spec with several bad entries, several bad specs).
    also: Vec<CommandError>,
}

impl CommandError {
    /// Bad usage: `what` is wrong and `repair` mends it.
    pub(crate) fn repairable(what: impl Into<String>, repair: impl Into<String>) -> Self {
        Self {
            code: Code::Usage,
            what: what.into(),
            repair: Some(repair.into()),
            also: Vec::new(),
        }
    }

    /// Bad usage, and the message itself says all keel knows.
    pub(crate) fn plain(what: impl Into<String>) -> Self {
        Self {
            code: Code::Usage,
            what: what.into(),
            repair: None,
            also: Vec::new(),
        }
    }

    /// The repository could not give an object keel needed (`err` names it): a damaged
    /// or incomplete object store, which `git fsck` diagnoses — unless `err` names its own
    /// repair (an object a partial clone has not fetched).
    pub(crate) fn objects(err: &dyn std::error::Error) -> Self {
        let line = err.to_string();
        if line.contains("; repair: ") {
            return Self::from_line(Code::UnreadableObject, line);
        }
        Self {
            code: Code::UnreadableObject,
            what: line,
            repair: Some("run `git fsck` on the repository".into()),
            also: Vec::new(),
        }
    }

    /// A failure of `code` whose one line says what and how (`what; repair: how`, as
    /// every typed error of keel reads): the two halves kept apart.
    pub(crate) fn from_line(code: Code, line: String) -> Self {
        let (what, repair) = match line.split_once("; repair: ") {
            Some((what, repair)) => (what.to_owned(), Some(repair.to_owned())),
            None => (line, None),
        };
        Self {
            code,
            what,
            repair,
            also: Vec::new(),
        }
    }

    /// This failure followed by `others` of the same read, each on its own line.
    pub(crate) fn with_also(mut self, others: Vec<CommandError>) -> Self {
        self.also = others;
        self
    }

    /// Every line this failure is told in: itself, then each of [`Self::with_also`]'s.
    pub(crate) fn lines(&self) -> impl Iterator<Item = &CommandError> {
        std::iter::once(self).chain(&self.also)
    }

    /// A typed error whose own message says what and how, as `code`.
    fn typed(code: Code, err: &dyn std::error::Error) -> Self {
        Self::from_line(code, err.to_string())
    }

    pub(crate) fn kind(&self) -> ErrorKind {
        self.code.kind()
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
            kind: self.code.kind().name(),
            code: self.code.as_str(),
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
        Self {
            code: Code::Refused(refusal.code),
            what: refusal.what(),
            repair: Some(refusal.repair),
            also: Vec::new(),
        }
    }
}

impl From<keel_engine::EngineError> for CommandError {
    fn from(err: keel_engine::EngineError) -> Self {
        use keel_engine::EngineError as E;
        let code = match err {
            E::Refused(refusal) => return refusal.into(),
            E::NoSuchPath { .. } => Code::NoSuchPath,
            E::NotAFolder { .. } => Code::NotAFolder,
            E::NotARepository { .. } => Code::NotARepository,
            E::Unreadable { .. } => Code::UnreadableRepository,
            E::NoSuchCommit { .. } => Code::NoSuchCommit,
            E::UnbornHead { .. } => Code::UnbornHead,
            E::NoWorkTree { .. } => Code::NoWorkTree,
        };
        Self::typed(code, &err)
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
        Self::typed(Code::AckRefused, &err)
    }
}

impl From<keel_engine::hook::HookError> for CommandError {
    fn from(err: keel_engine::hook::HookError) -> Self {
        match err {
            keel_engine::hook::HookError::Engine(err) => err.into(),
            other => Self::typed(Code::HookRefused, &other),
        }
    }
}

impl From<keel_queries::impact::options::OptionError> for CommandError {
    fn from(err: keel_queries::impact::options::OptionError) -> Self {
        Self::typed(Code::ImpactOption, &err)
    }
}

/// `keel sessions usage`'s flags: bad usage, named and repaired by the error itself.
impl From<keel_queries::sessions::usage::UsageFlagError> for CommandError {
    fn from(err: keel_queries::sessions::usage::UsageFlagError) -> Self {
        Self::typed(Code::Usage, &err)
    }
}

impl From<keel_queries::impact::patch::PatchError> for CommandError {
    fn from(err: keel_queries::impact::patch::PatchError) -> Self {
        Self::typed(Code::BadPatch, &err)
    }
}

/// The demo builds its repository with git: a failure there is keel's (or its
/// environment's), never the user's input.
impl From<keel_fixtures::FixtureError> for CommandError {
    fn from(err: keel_fixtures::FixtureError) -> Self {
        Self::typed(Code::DemoFailed, &err)
    }
}

impl From<std::io::Error> for CommandError {
    fn from(err: std::io::Error) -> Self {
        Self::typed(Code::Io, &err)
    }
}

#[cfg(test)]
mod tests {
    use super::{Code, CommandError};
    use keel_engine::refusal::RefusalCode;
    use std::collections::HashSet;

    #[test]
    fn every_code_is_listed_once_and_every_refusal_kind_has_one() {
        let names: HashSet<&str> = Code::ALL.iter().map(|code| code.as_str()).collect();
        assert_eq!(names.len(), Code::ALL.len(), "no code is listed twice");
        for refusal in RefusalCode::ALL {
            assert!(Code::ALL.contains(&Code::Refused(refusal)), "{refusal:?}");
        }
    }

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
