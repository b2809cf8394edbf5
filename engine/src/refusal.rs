//! [`Refusal`]: input keel refuses to read, as one line naming where, which field, what
//! was expected and the repair, with a stable [`RefusalCode`] per kind of input so that
//! scripts compare codes, not text (`keel … --error-format json`).
//!
//! Owns: the one refusal type of every strict reader (sessions and decisions JSONL,
//! readings, agent-log folders, a reading's `code` entries, any JSONL line) and the
//! codes of every kind, those of spec and settings refusals included, which keep their
//! structured file and line (`keel_queries::spec::SpecError`,
//! [`crate::settings::SettingsError`]) and convert into a [`Refusal`].
//! Does not own: what any reader accepts (each reader's module) or how a refusal is
//! printed and exits (`keel`).

use crate::message::one_line;
use std::fmt;

/// The kinds of input keel refuses, each with a stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefusalCode {
    /// A spec node: `.spec/…` layout, frontmatter, an entry or selector.
    Spec,
    /// `keel.toml`.
    Settings,
    /// A JSONL line that is not an object with its required string fields (any reader).
    Jsonl,
    /// `sessions.jsonl`, `decisions.jsonl` or the repositories they name.
    Sessions,
    /// `keel fresh`'s readings file.
    Readings,
    /// A reading's `code` entry, parsed with the spec grammar.
    CodeEntry,
    /// An agent-log folder named by flag.
    LogFolder,
}

impl RefusalCode {
    /// What a refusal of this kind means, in one line.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Spec => {
                "a spec node keel refuses: its layout, frontmatter, an entry or a selector"
            }
            Self::Settings => "`keel.toml` does not fit its schema",
            Self::Jsonl => "a JSONL line that is not an object with its required string fields",
            Self::Sessions => "`sessions.jsonl`, `decisions.jsonl` or a repository they name",
            Self::Readings => "a line of `keel fresh`'s readings file",
            Self::CodeEntry => "a reading's `code` entry, read with the spec grammar",
            Self::LogFolder => "an agent-log folder named by flag",
        }
    }

    /// Every code, for documentation and tests.
    pub const ALL: [RefusalCode; 7] = [
        Self::Spec,
        Self::Settings,
        Self::Jsonl,
        Self::Sessions,
        Self::Readings,
        Self::CodeEntry,
        Self::LogFolder,
    ];

    /// The stable, kebab-case code.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Spec => "bad-spec",
            Self::Settings => "bad-settings",
            Self::Jsonl => "bad-jsonl-line",
            Self::Sessions => "bad-sessions-input",
            Self::Readings => "bad-readings",
            Self::CodeEntry => "bad-code-entry",
            Self::LogFolder => "bad-log-folder",
        }
    }
}

/// One refused input.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub struct Refusal {
    pub code: RefusalCode,
    /// `file:line`, a file, a flag with its value (`--claude-dir PATH`) or a settings key.
    pub location: String,
    /// The field or entry at fault, when the fault is one.
    pub field: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
    pub repair: String,
}

impl Refusal {
    /// A refusal of kind `code` at `location`, its texts made one line each.
    pub fn new(
        code: RefusalCode,
        location: impl Into<String>,
        field: Option<&str>,
        message: impl Into<String>,
        repair: impl Into<String>,
    ) -> Self {
        Self {
            code,
            location: location.into(),
            field: field.map(|field| one_line(field).into_owned()),
            message: one_line(&message.into()).into_owned(),
            repair: repair.into(),
        }
    }

    /// What is wrong, where: `location: [field: ]message` (the line without its repair).
    pub fn what(&self) -> String {
        match &self.field {
            Some(field) => format!("{}: {field}: {}", self.location, self.message),
            None => format!("{}: {}", self.location, self.message),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; repair: {}", self.what(), self.repair)
    }
}

#[cfg(test)]
mod tests {
    use super::{Refusal, RefusalCode};
    use std::collections::HashSet;

    #[test]
    fn a_refusal_reads_location_field_message_and_repair_on_one_line() {
        let with_field = Refusal::new(
            RefusalCode::Sessions,
            "sessions.jsonl:3",
            Some("start"),
            "not RFC 3339:\n\"yesterday\"",
            "write e.g. 2026-01-01T00:00:00Z",
        );
        assert_eq!(
            with_field.to_string(),
            "sessions.jsonl:3: start: not RFC 3339:\\n\"yesterday\"; repair: write e.g. 2026-01-01T00:00:00Z"
        );
        let without = Refusal::new(RefusalCode::LogFolder, "--claude-dir x", None, "m", "r");
        assert_eq!(without.to_string(), "--claude-dir x: m; repair: r");
    }

    #[test]
    fn every_kind_has_its_own_code() {
        let codes: HashSet<&str> = RefusalCode::ALL.iter().map(|code| code.as_str()).collect();
        assert_eq!(codes.len(), RefusalCode::ALL.len());
        assert!(codes.iter().all(|code| code.starts_with("bad-")));
    }
}
