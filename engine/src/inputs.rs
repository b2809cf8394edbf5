//! The salsa inputs: every fact keel reads from outside.
//!
//! Owns: the input structs and their durabilities — commits (HIGH: immutable once read),
//! the tip and the settings (LOW: they move while a process lives).
//! Does not own: creating or setting them ([`crate::changes`] is the one funnel), nor
//! anything derived from them (`keel-queries`).

use crate::oid::Oid;
use crate::settings::Settings;

/// One commit, as git stores it. Immutable: created once per id, never set again.
#[salsa::input(debug)]
pub struct Commit {
    #[returns(copy)]
    pub id: Oid,
    /// Parent commits in order. A parent cut off by a shallow boundary is absent, so a
    /// shallow commit reads as a root.
    #[returns(ref)]
    pub parents: Vec<Commit>,
    #[returns(copy)]
    pub tree: Oid,
    /// The full message, decoded as UTF-8 with invalid bytes replaced.
    #[returns(ref)]
    pub message: String,
    /// Committer time in seconds since the epoch (git's walk order key).
    #[returns(copy)]
    pub committer_time: i64,
}

/// The commit being judged: HEAD. `None` for a repository with no commits yet.
#[salsa::input(debug, singleton)]
pub struct Tip {
    #[returns(copy)]
    pub commit: Option<Commit>,
}

/// The parsed `keel.toml` of the repository (defaults when absent).
#[salsa::input(debug, singleton)]
pub struct Config {
    #[returns(ref)]
    pub settings: Settings,
}
