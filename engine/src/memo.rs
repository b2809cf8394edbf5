//! The on-disk memo: what one keel process parsed and diffed, read back by the next, so a
//! lint after one new commit parses only that commit's images and diffs only its hunk sets.
//!
//! Owns: the file (`<git common folder>/keel/memo.bin`, the one place keel writes in a
//! repository besides `keel ack` and the hook), its header, loading it into a freshly
//! opened database, writing it atomically, and what `keel cache info` says of it.
//! Does not own: what is kept — salsa's persistence writes the ingredients marked
//! `persist`: the commit inputs (`Commit`, with this file's index from ids to inputs),
//! and in `keel-queries` what each event did to each scoped entry (`Anchor`,
//! `scoped_change`), the units of the images met at a tip (`Image`, `tip_units`), what a
//! merge owns of a file (`EventImages`, `merge_owned`), tree renames (`tree_renames`),
//! the blobs' sizes (`image_size`) and what each commit changed and holds
//! (`commit_facts`, `parent_paths`, `entry_at`) — all functions of object ids, paths,
//! selectors and readers, so they hold in any state of the refs and need no invalidation
//! as long as an id names the same commit (the history fingerprint below) — nor when to
//! save (the commands). The parses and hunk sets of history's images (`image_units`,
//! `image_hunks`) are not kept: the judgements made from them are, so a later process
//! reads half the bytes and parses only the images a new commit brings. Nothing that
//! depends on the tip (windows, verdicts, the tip's own tree lookups `tip_entry`) is
//! kept.
//!
//! The file is a header line and a body:
//! `keel-memo 3 <build> <CRC-32 of the body> <body length, zero-padded>\n`, the body
//! written to the file as it is encoded (`crate::cache_file::write_streamed`), never held
//! whole. The body is the commit index (length-prefixed, `crate::cache_file::prefixed`:
//! MessagePack of the history fingerprint and each commit id's input) and salsa's MessagePack (`rmp-serde`), in which object ids are raw
//! bytes and the values the memo holds most of (an image's units, a commit's changes) are
//! packed (`crate::packed`). `<build>` names the exact
//! keel build (a hash of its sources, `Cargo.lock`, compiler and profile, given by the
//! binary): salsa numbers its ingredients in registration order, so a body is only
//! readable by the build that wrote it, and any other build — an upgrade, a local edit —
//! starts cold. A file that is truncated, corrupt, of another build or of another format is
//! discarded with one warning and the answer is the cold answer, and so is a memo
//! written before the repository's shallow boundary, grafts or object replacements in
//! effect changed (which change what a commit id names): the body is checked
//! against its length and digest before salsa reads a byte of it, and a body salsa still
//! refuses leaves a fresh database. A cache folder keel cannot read or write
//! ([`crate::cache::CacheTrouble`]: a stray file at its path, a folder of another user or
//! of mode 000) is no repository error: the memo is not read (the database starts cold)
//! or not written, and the caller says so once. Writes go to a temporary file in the
//! same folder (`crate::cache`), then a rename: a reader sees the old file or the new
//! one, never a mix, and two keel processes at once each leave a whole file (the last
//! rename wins). The file is not
//! synced to the disk before the rename: a file a crash left torn fails its length or
//! digest check and is discarded like any corrupt one, so a sync would buy nothing but
//! its wait.
//!
//! Bounded: a body larger than [`MAX_BYTES`] is not written (and an older file is
//! removed), so a history too large for the memo costs a cold run, never a huge file. The
//! memo holds what the last process had in memory: memos of images no longer read (an old
//! tip's history that a reset dropped) stay until a process that no longer reads them
//! writes the file without them — they are only kept while some process still loads them.

use crate::cache::{CacheError, CacheTrouble, MEMO_FILE, read_file, remove_file};
pub use crate::cache_file::MemoDiscard;
use crate::cache_file::{StreamFailure, Streamed, split, write_prefix, write_streamed};
pub(crate) use crate::cache_file::{checked_body, header};
use crate::database::{EngineError, KeelDatabase};
use crate::inputs::Commit;
use crate::oid::Oid;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The header's first word and the format's version.
const FORMAT: &str = "keel-memo 3";

/// The largest body a write keeps (click's whole history: about 4 MiB).
pub const MAX_BYTES: usize = 256 << 20;

/// What `keel cache info` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoInfo {
    pub path: PathBuf,
    /// `None` when there is no memo file, or it cannot be read (`trouble` says why).
    pub file: Option<MemoFileInfo>,
    /// What keeps keel from reading the memo: its folder or the file.
    pub trouble: Option<CacheTrouble>,
}

/// A memo file on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoFileInfo {
    pub bytes: u64,
    pub modified: Option<SystemTime>,
    /// The build that wrote it, and whether it is this build (else it is discarded).
    pub build: String,
    pub readable: bool,
    /// Entries held (the commits read and the answers kept), when the body
    /// is readable.
    pub entries: Option<usize>,
}

/// Why a database opened without the memo it looked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoUnused {
    /// The file is there and cannot be used.
    #[error(transparent)]
    Discarded(MemoDiscard),
    /// The cache folder or the file cannot be read.
    #[error(transparent)]
    Cache(CacheTrouble),
}

impl KeelDatabase {
    /// The memo file's path: in the cache folder, shared by linked work trees.
    pub fn memo_path(&self) -> Result<PathBuf, EngineError> {
        Ok(self.cache_folder()?.join(MEMO_FILE))
    }

    /// Opens the repository holding `path` with the memo `build` wrote, and reads HEAD
    /// (as [`KeelDatabase::open`]). A memo that cannot be used or read is left aside: the
    /// second value says why (one warning line for the user) and the database starts cold.
    pub fn open_with_memo(
        path: &Path,
        build: &str,
    ) -> Result<(Self, Option<MemoUnused>), EngineError> {
        let mut db = Self::open_objects(path)?;
        let unused = match db.read_memo(build) {
            Ok(None) => None,
            Ok(Some(Ok(body))) => match db.load_body(&body) {
                Ok(()) => None,
                Err(reason) => {
                    db = Self::open_objects(path)?;
                    Some(MemoUnused::Discarded(reason))
                }
            },
            Ok(Some(Err(reason))) => Some(MemoUnused::Discarded(reason)),
            Err(CacheError::Cache(trouble)) => Some(MemoUnused::Cache(trouble)),
            Err(CacheError::Repository(err)) => return Err(err),
        };
        db.apply_changes(&[crate::ChangeEvent::Rescan])?;
        Ok((db, unused))
    }

    /// Writes every persisted memo of this database for `build`, atomically; removes the
    /// file instead when its body would be larger than [`MAX_BYTES`]. Writes nothing once
    /// an editor's keystrokes were judged (`ChangeEvent::WorktreeBuffers`): their commit is
    /// one input set again, which a memo cannot hold as an immutable commit.
    pub fn save_memo(&mut self, build: &str) -> Result<(), CacheError> {
        if self.worktree_files.input.is_some() {
            return Ok(());
        }
        let path = self.memo_path()?;
        let index = CommitIndex {
            history: self.history_fingerprint()?,
            commits: self
                .commits
                .iter()
                .map(|(oid, commit)| (*oid, salsa::plumbing::AsId::as_id(commit).as_bits()))
                .collect(),
        };
        // The index first, length-prefixed; salsa's part is then encoded straight into the
        // file (its largest part never sits in memory whole: a cold lint of a long history
        // peaked at the copy its buffer made growing).
        let index = rmp_serde::to_vec(&index).map_err(|err| self.unreadable(&err))?;
        let written = write_streamed(&path, FORMAT, build, MAX_BYTES as u64, |body| {
            // A failed write is reported by `write_streamed` itself (the file's trouble).
            write_prefix(body, &index)
                .map_err(|err| rmp_serde::encode::Error::Syntax(err.to_string()))?;
            rmp_serde::encode::write(body, &<dyn salsa::Database>::as_serialize(self))
        });
        match written {
            Ok(Streamed::Written(_)) => Ok(()),
            Ok(Streamed::TooLarge) => remove_file(&path).map(drop).map_err(CacheError::from),
            Err(StreamFailure::Cache(trouble)) => Err(trouble.into()),
            Err(StreamFailure::Body(err)) => Err(self.unreadable(&err).into()),
        }
    }

    /// What the memo file holds, for `keel cache info`.
    pub fn memo_info(&self, build: &str) -> Result<MemoInfo, EngineError> {
        let path = self.memo_path()?;
        let bytes = match read_file(&path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => {
                return Ok(MemoInfo {
                    path,
                    file: None,
                    trouble: None,
                });
            }
            Err(trouble) => {
                return Ok(MemoInfo {
                    path,
                    file: None,
                    trouble: Some(trouble),
                });
            }
        };
        let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        let (written_by, checked) = match split(FORMAT, &bytes) {
            Some((fields, body)) => (
                fields.build.to_owned(),
                fields.check(build, body).map(|()| body),
            ),
            None => (String::new(), Err(MemoDiscard::OtherFormat(FORMAT))),
        };
        Ok(MemoInfo {
            file: Some(MemoFileInfo {
                bytes: bytes.len() as u64,
                modified,
                readable: checked.is_ok(),
                entries: checked.ok().and_then(entries),
                build: written_by,
            }),
            path,
            trouble: None,
        })
    }

    /// The memo's checked body; `None` when there is no file.
    fn read_memo(&self, build: &str) -> Result<Option<Result<Vec<u8>, MemoDiscard>>, CacheError> {
        let path = self.memo_path()?;
        let Some(bytes) = read_file(&path)? else {
            return Ok(None);
        };
        Ok(Some(
            checked_body(FORMAT, build, &bytes).map(<[u8]>::to_vec),
        ))
    }

    /// Reads a checked body into this fresh database: salsa's memos and inputs, then the
    /// index from commit ids to the restored commit inputs.
    fn load_body(&mut self, body: &[u8]) -> Result<(), MemoDiscard> {
        let unreadable =
            |reason: &dyn std::fmt::Display| MemoDiscard::Unreadable(reason.to_string());
        let (index, salsa) = crate::cache_file::split_prefixed(body)
            .ok_or_else(|| unreadable(&"no commit index, or one that overruns the body"))?;
        let index: CommitIndex = rmp_serde::from_slice(index).map_err(|err| unreadable(&err))?;
        let history = self.history_fingerprint().map_err(|err| unreadable(&err))?;
        if index.history != history {
            return Err(MemoDiscard::OtherHistory);
        }
        let mut reader = rmp_serde::Deserializer::from_read_ref(salsa);
        <dyn salsa::Database>::deserialize(self, &mut reader).map_err(|err| unreadable(&err))?;
        let loaded: Vec<(Oid, Commit)> = index
            .commits
            .into_iter()
            .map(|(oid, bits)| {
                let id = salsa::Id::from_bits(bits);
                (oid, <Commit as salsa::plumbing::FromId>::from_id(id))
            })
            .collect();
        let read: Vec<Commit> = loaded.iter().map(|&(_, commit)| commit).collect();
        self.commits = std::sync::Arc::new(loaded.into_iter().collect());
        self.remember_commits(&read);
        self.memo_commits = Some(self.commits.len());
        Ok(())
    }

    /// What decides which commits an id names besides the id: the shallow boundary, the
    /// grafts file and the object replacements in effect (the replace refs, as
    /// `core.useReplaceRefs`, `GIT_NO_REPLACE_OBJECTS` and `GIT_REPLACE_REF_BASE` leave
    /// them). A memo written under other ones is discarded whole.
    pub(crate) fn history_fingerprint(&self) -> Result<String, EngineError> {
        let Some(repo) = self.objects_store().fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let common = repo.common_dir();
        let mut hasher = Sha256::new();
        for file in ["shallow", "info/grafts"] {
            hasher.update(file.as_bytes());
            hasher.update(std::fs::read(common.join(file)).unwrap_or_default());
        }
        // The replacements git applies here, not the refs that could name some: none when
        // `core.useReplaceRefs=false` or `GIT_NO_REPLACE_OBJECTS` turns them off, those under
        // `GIT_REPLACE_REF_BASE` when it moves them.
        let mut replace: Vec<(gix::ObjectId, gix::ObjectId)> = if repo.objects.ignore_replacements {
            Vec::new()
        } else {
            repo.objects.store_ref().replacements().collect()
        };
        replace.sort();
        hasher.update(b"replacements");
        for (original, replacement) in replace {
            hasher.update(original.as_bytes());
            hasher.update(replacement.as_bytes());
        }
        Ok(hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect())
    }
}

/// The memo's own section: which repository history its commit inputs were read under,
/// and each commit id's input.
#[derive(serde::Serialize, serde::Deserialize)]
struct CommitIndex {
    history: String,
    commits: Vec<(Oid, u64)>,
}

/// How many memos a body holds: the entries of every ingredient's map, counted without
/// building them (after the commit index).
fn entries(body: &[u8]) -> Option<usize> {
    let (_, body) = crate::cache_file::split_prefixed(body)?;
    #[derive(serde::Deserialize)]
    struct Body {
        #[serde(rename = "runtime")]
        _runtime: serde::de::IgnoredAny,
        ingredients: Counted<Counted<()>>,
    }
    let body: Body = rmp_serde::from_slice(body).ok()?;
    Some(body.ingredients.total)
}

/// A map whose values are ignored (`V = ()`) or counted themselves (`V = Counted<_>`):
/// `total` is the number of entries at the innermost level.
struct Counted<V> {
    total: usize,
    inner: std::marker::PhantomData<V>,
}

/// How many innermost entries a value counts for.
trait Tally {
    fn tally<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<Option<usize>, A::Error>;
}

impl Tally for () {
    fn tally<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<Option<usize>, A::Error> {
        map.next_value::<serde::de::IgnoredAny>().map(|_| Some(1))
    }
}

impl<V: Tally> Tally for Counted<V> {
    fn tally<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<Option<usize>, A::Error> {
        Ok(Some(map.next_value::<Counted<V>>()?.total))
    }
}

impl<'de, V: Tally> serde::Deserialize<'de> for Counted<V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<V>(std::marker::PhantomData<V>);
        impl<'de, V: Tally> serde::de::Visitor<'de> for Visit<V> {
            type Value = Counted<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut total = 0;
                while map.next_key::<serde::de::IgnoredAny>()?.is_some() {
                    total += V::tally(&mut map)?.unwrap_or(0);
                }
                Ok(Counted {
                    total,
                    inner: std::marker::PhantomData,
                })
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_fixtures::FixtureRepo;

    #[test]
    fn commits_beyond_the_memo_count_only_what_this_process_read() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        repo.write("a.txt", "one\n").expect("write");
        repo.commit("One").expect("commit");
        repo.write("a.txt", "two\n").expect("write");
        repo.commit("Two").expect("commit");
        let mut cold = KeelDatabase::open(repo.path()).expect("open");
        assert_eq!(cold.commits_beyond_memo(), None, "no memo was loaded");
        cold.save_memo("test-build").expect("save");

        let (same, discarded) =
            KeelDatabase::open_with_memo(repo.path(), "test-build").expect("open");
        assert_eq!(discarded, None);
        assert_eq!(same.commits_beyond_memo(), Some(0));

        for n in 3..6 {
            repo.write("a.txt", &format!("{n}\n")).expect("write");
            repo.commit(&format!("Commit {n}")).expect("commit");
        }
        let (moved, discarded) =
            KeelDatabase::open_with_memo(repo.path(), "test-build").expect("open");
        assert_eq!(discarded, None);
        assert_eq!(
            moved.commits_beyond_memo(),
            Some(3),
            "the three new commits"
        );
    }
}
