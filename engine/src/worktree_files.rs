//! What `ChangeEvent::Worktree` keeps of the working tree between two reads, so the next
//! read costs what changed: each file's stamp with the blob it was read as (as git's
//! index keeps them), HEAD's tree as flat files, and the working tree's commit last made.
//!
//! Owns: those caches and the stamp rule. Does not own: reading the working tree or
//! building its commit (`worktree_commit`). Every value here is a fact about the outside
//! world read before; none is derived from salsa's inputs.

use crate::oid::Oid;
use gix::objs::tree::EntryMode;
use std::collections::{BTreeMap, HashMap};

/// Files by path, with their mode and blob.
pub(crate) type Files = BTreeMap<String, (EntryMode, Oid)>;

/// The working tree as last read.
#[derive(Clone, Default)]
pub(crate) struct WorktreeFiles {
    /// Each file's stamp, mode and blob when last read.
    pub(crate) stamps: HashMap<String, (FileStamp, EntryMode, Oid)>,
    /// HEAD's tree as flat files, by the tree's id (read again only when HEAD moves).
    pub(crate) head: Option<(Oid, Files)>,
    /// The files on disk as the last read found them (buffers not laid over), with the
    /// HEAD tree they were read against.
    pub(crate) disk: Option<(Oid, Files)>,
    /// The working tree's commit the last read made, if any.
    pub(crate) tip: Option<Oid>,
    /// The one commit input every working tree commit made after keystrokes is (its
    /// fields set again as the buffers change), once one was made.
    pub(crate) input: Option<crate::inputs::Commit>,
    /// The blobs the editors' buffers were hashed into at the last read.
    pub(crate) buffer_blobs: std::collections::HashSet<Oid>,
}

impl WorktreeFiles {
    /// Does a file on disk (as last read) or HEAD hold the blob `oid`?
    pub(crate) fn holds(&self, oid: &Oid) -> bool {
        self.stamps.values().any(|(_, _, blob)| blob == oid)
            || self
                .head
                .as_ref()
                .is_some_and(|(_, files)| files.values().any(|(_, blob)| blob == oid))
    }
}

/// A file read no sooner than this after its last modification may be trusted by its
/// stamp: a later write would give it another modification time.
const RACY: std::time::Duration = std::time::Duration::from_secs(2);

/// What identifies a file's content without reading it: size, modification time, inode
/// and mode (the fields git's index compares).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
    mode: u32,
}

impl FileStamp {
    pub(crate) fn of(metadata: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        let (inode, mode) = {
            use std::os::unix::fs::MetadataExt;
            (metadata.ino(), metadata.mode())
        };
        #[cfg(not(unix))]
        let (inode, mode) = (0, 0);
        Self {
            len: metadata.len(),
            modified: metadata.modified().ok(),
            inode,
            mode,
        }
    }

    /// Was the file last modified long enough ago ([`RACY`]) for its stamp to stand for
    /// its content?
    pub(crate) fn settled(self) -> bool {
        self.modified
            .and_then(|at| at.elapsed().ok())
            .is_some_and(|age| age >= RACY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_stands_for_content_only_once_settled_and_changes_with_the_file() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("a.py");
        std::fs::write(&path, "x = 1\n").expect("write");
        let stamp = || FileStamp::of(&std::fs::metadata(&path).expect("metadata"));
        assert!(
            !stamp().settled(),
            "just written: it may change again unseen"
        );

        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_modified(past).expect("set the modification time");
        let settled = stamp();
        assert!(settled.settled());
        assert_eq!(settled, stamp(), "nothing changed: the same stamp");

        std::fs::write(&path, "x = 2\n").expect("rewrite, same size");
        assert_ne!(stamp(), settled, "a write moves the modification time");
    }
}
