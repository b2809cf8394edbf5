//! A spec node as keel reads it: its id (the folder under `.spec/`), and its entries in
//! declaration order, each a relation (`code:` or `related:`), a target and where it was
//! written.
//!
//! Owns: the types and the mapping between a node id and its `spec.md` path.
//! Does not own: reading them from `spec.md` (the reader: `spec`).

use crate::anchors::Selector;
use std::fmt;

/// The folder holding spec nodes.
pub const SPEC_ROOT: &str = ".spec";
/// The file name of a node.
pub const SPEC_FILE: &str = "spec.md";

/// A node id: the folder path under `.spec/`, e.g. `auth/login`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub String);

impl NodeId {
    /// The node's `spec.md` path in the repository.
    pub fn spec_path(&self) -> String {
        format!("{SPEC_ROOT}/{}/{SPEC_FILE}", self.0)
    }

    /// The node id of a repository path, if it is a node's `spec.md`.
    pub fn from_spec_path(path: &str) -> Option<Self> {
        let inner = path.strip_prefix(SPEC_ROOT)?.strip_prefix('/')?;
        let folder = inner.strip_suffix(SPEC_FILE)?.strip_suffix('/')?;
        (!folder.is_empty()).then(|| Self(folder.to_owned()))
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which list an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// `code:` — governed: hits block, changes drift.
    Code,
    /// `related:` — never blocks: a selector hit is a soft warning, a miss is silent.
    Related,
}

/// What an entry points at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A bare path: the whole file, advisory drift. (It may turn out to be a folder at the
    /// tip; lint decides.)
    Path(String),
    /// A bare entry with `*`, `?` or `[` in its path: a glob (advisory drift for every
    /// match; one ending in `/` covers every file under the folders it matches), unless
    /// the path exists literally at the tip — then lint judges it as a path or folder.
    Glob(String),
    /// A bare folder written with a trailing `/`.
    Folder(String),
    /// `path#sel,...`: named units of one file, OR-ed. The path may hold `*`, `?` or `[`
    /// (`app/[slug]/page.tsx`) only if it exists literally at the tip; lint refuses it
    /// otherwise.
    Scoped {
        path: String,
        selectors: Vec<Selector>,
    },
}

impl Target {
    /// The repository path or pattern the entry names.
    pub fn path(&self) -> &str {
        match self {
            Self::Path(p) | Self::Glob(p) | Self::Folder(p) | Self::Scoped { path: p, .. } => p,
        }
    }
}

/// One entry of a node, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry {
    pub relation: Relation,
    pub target: Target,
    /// The text as written.
    pub raw: String,
    /// 1-based line in `spec.md`.
    pub line: u32,
}

/// One parsed spec node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpecNode {
    pub id: NodeId,
    /// Entries in declaration order: all of `code:`, then all of `related:`.
    pub entries: Vec<Entry>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_come_from_spec_paths() {
        assert_eq!(
            NodeId::from_spec_path(".spec/auth/login/spec.md"),
            Some(NodeId("auth/login".to_owned()))
        );
        assert_eq!(NodeId::from_spec_path(".spec/spec.md"), None);
        assert_eq!(NodeId::from_spec_path("spec/x/spec.md"), None);
        assert_eq!(NodeId("a/b".to_owned()).spec_path(), ".spec/a/b/spec.md");
    }
}
