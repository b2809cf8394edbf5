//! The refusals of the spec reader: a spec keel refuses to read ([`SpecError`], naming
//! file, line and repair, which reads as the engine's [`Refusal`] it converts into), an
//! entry list refused outside a spec ([`EntryRefusal`]), and the shapes the reader's steps
//! refuse with before a file is named.
//!
//! Owns: the types and how a [`SpecError`] reads.
//! Does not own: what is refused, and its wording (`frontmatter`, `entries`).

use keel_engine::message::one_line;
use keel_engine::refusal::{Refusal, RefusalCode};
use std::fmt;

/// A spec that keel refuses to read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpecError {
    /// The repository path at fault (`.spec/<node>/spec.md`, or `.spec` itself, a node
    /// folder, ...).
    pub file: String,
    /// 1-based line in `file`; `None` when the fault is what the path is (a folder where a
    /// file belongs, a symbolic link), not a line in it.
    pub line: Option<u32>,
    pub message: String,
    pub repair: String,
}

/// A spec refusal reads as the [`Refusal`] it converts into.
impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Refusal::from(self))
    }
}

impl From<&SpecError> for Refusal {
    fn from(err: &SpecError) -> Self {
        let file = one_line(&err.file);
        let location = match err.line {
            Some(line) => format!("{file}:{line}"),
            None => file.into_owned(),
        };
        Refusal::new(
            RefusalCode::Spec,
            location,
            None,
            err.message.as_str(),
            one_line(&err.repair),
        )
    }
}

/// A refusal of a spec's text: the file line, what is wrong, the repair.
pub(super) type LineRefusal = (u32, String, String);

/// What is wrong with an entry, and its repair.
pub(super) type Rejection = (String, &'static str);

/// An entry list keel refuses outside a spec: which entry (0-based), what is wrong, and
/// the repair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryRefusal {
    pub index: usize,
    pub message: String,
    pub repair: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_without_a_line_name_only_the_path() {
        let err = SpecError {
            file: ".spec/x".to_owned(),
            line: None,
            message: "m".to_owned(),
            repair: "r".to_owned(),
        };
        assert_eq!(err.to_string(), ".spec/x: m; repair: r");
    }
}
