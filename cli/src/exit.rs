//! [`ExitStatus`]: the exit contract every command shares.
//!
//! Owns: the numbers. Does not own: deciding which applies (each command does).

use std::process::ExitCode;

/// How a keel process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing blocks (warnings allowed).
    Clean = 0,
    /// A blocking finding, or anchors that could not be verified.
    Blocked = 1,
    /// Bad usage or input keel could not read.
    Usage = 2,
    /// keel's own failure (an invariant broke; a panic exits the same way). Never bad
    /// input: report it.
    Internal = 101,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        Self::from(status as u8)
    }
}
