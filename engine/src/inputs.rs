//! The salsa inputs: every fact keel reads from outside.
//!
//! Owns: the input structs and their durabilities — commits (HIGH: immutable once read),
//! the set of commits read (MEDIUM: it grows), the tip (LOW: it moves while a process
//! lives), the source trees a call graph is built from (set when the next patch or
//! edit gives them other files), and `keel fresh`'s readings. `keel.toml` is no input of its own: lint reads it from
//! the tip commit's tree, like the specs.
//! Does not own: creating or setting them ([`crate::changes`] is the one funnel), nor
//! anything derived from them (`keel-queries`).

use crate::oid::Oid;

/// One commit, as git stores it. Immutable: created once per id, never set again — except
/// the working tree's in-memory commit after an editor's keystrokes, one input whose
/// fields are set again (LOW durability) as the buffers change (`worktree_commit`). Kept in the on-disk memo
/// with the index from ids to inputs (`memo`).
#[salsa::input(debug, persist)]
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
    /// A shallow clone cut this commit's parents off: history beyond it is unknown.
    #[returns(copy)]
    pub shallow: bool,
}

/// Every commit the database has read, in the order it read them (parents before
/// children). MEDIUM durability: it grows when a new commit is read, which happens less
/// often than the tip moves and never changes a commit. Queries over the whole history
/// (which commits changed a path, which acknowledge a node) read it once, and each tip
/// keeps the commits it reaches; not in the on-disk memo (the memo's commit index
/// restores it).
#[salsa::input(debug, singleton)]
pub struct KnownCommits {
    #[returns(ref)]
    pub commits: Vec<Commit>,
}

/// The commit being judged: HEAD. `None` for a repository with no commits yet.
#[salsa::input(debug, singleton)]
pub struct Tip {
    #[returns(copy)]
    pub commit: Option<Commit>,
}

/// The source files a call graph is built from: `(path, blob id)`, sorted by path, each
/// once — a commit's tree, the working tree, or a candidate with a patch applied in
/// memory. Set (never recreated) when the same tree gets other files, so every per-file
/// answer that did not change is re-validated instead of recomputed. `max_file_bytes`
/// (`[lint] max_file_bytes` of the tree's `keel.toml`) is the largest file the graph
/// parses; a larger one is counted as its module node alone.
#[salsa::input(debug)]
pub struct Sources {
    #[returns(ref)]
    pub files: Vec<(String, Oid)>,
    #[returns(copy)]
    pub max_file_bytes: u64,
    /// How many paths the last setting of `files` added, removed or gave another blob
    /// (all of them for a new tree): how much work the next graph has, which decides
    /// whether sharing it out to threads pays. No query reads it.
    #[returns(copy)]
    pub changed_files: usize,
}

/// One reading as the file states it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reading {
    pub id: String,
    /// The commit the reading was taken at, resolved to its full id.
    pub commit: Oid,
    /// The `code` entries as written (`path#sel1,sel2` or a bare path).
    pub code: Vec<String>,
    /// 1-based line in the file.
    pub line: usize,
}

/// The readings of one file, in file order.
#[salsa::input(debug)]
pub struct Readings {
    /// The file as given (messages name it so).
    #[returns(ref)]
    pub file: String,
    #[returns(ref)]
    pub readings: Vec<Reading>,
}
