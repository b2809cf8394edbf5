//! [`ObjectStore`]: reads git objects by id through gix.
//!
//! Owns: blob bytes, tree entries and tree listings by object id (and the files of a tree
//! whose paths are not UTF-8, which a listing names only lossily), and the blobs keel
//! hashes itself (working-tree files, a candidate with a patch applied in memory): they are
//! kept in memory under their git blob id, exactly as `git hash-object` would name them,
//! and never written to the repository. An object id names immutable content, so every
//! method here is a pure function of its arguments: queries may call it and memoize the
//! answer without any input to invalidate it (a blob added in memory only makes more ids
//! readable; it changes no answer for an id already read).
//! Does not own: refs, HEAD or the working tree (they move; the database reads them into
//! inputs), nor any diff (`keel-queries` pins the diff).

use crate::handle_pool::{Handle, HandlePool};
use crate::oid::Oid;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// What a tree entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum EntryKind {
    /// A regular or executable file, or a symbolic link (its target is its text).
    File,
    /// A folder.
    Tree,
    /// A submodule's commit.
    Submodule,
}

/// One entry of a tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TreeItem {
    pub name: String,
    pub kind: EntryKind,
    pub oid: Oid,
    /// A symbolic link (its `kind` is [`EntryKind::File`]): readers that must not follow
    /// links, such as spec discovery, refuse it.
    pub symlink: bool,
}

/// One tree as read, its entries decoded on demand ([`Self::entries`]): a diff compares
/// most entries by id alone, so it allocates nothing per entry it passes over.
pub struct TreeListing(Listing);

enum Listing {
    /// A tree object's id and bytes (not decoded yet) in the repository's hash.
    Read(Oid, Vec<u8>, gix::hash::Kind),
    /// A tree keel built ([`ObjectStore::insert_tree`]).
    Built(Vec<TreeItem>),
}

/// One entry of a [`TreeListing`]: a [`TreeItem`] whose name is borrowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry<'a> {
    /// The name, decoded as UTF-8 with invalid bytes replaced (as [`TreeItem::name`]).
    pub name: std::borrow::Cow<'a, str>,
    pub kind: EntryKind,
    pub oid: Oid,
    pub symlink: bool,
}

impl TreeListing {
    /// The entries, in git's order; a tree object that does not decode fails here, as
    /// [`ObjectStore::tree`] fails on it.
    pub fn entries(&self) -> Result<Vec<TreeEntry<'_>>, ObjectError> {
        match &self.0 {
            Listing::Read(oid, data, hash) => gix::objs::TreeRefIter::from_bytes(data, *hash)
                .map(|entry| {
                    let entry = entry.map_err(|e| object_error(*oid, &e))?;
                    Ok(TreeEntry {
                        name: String::from_utf8_lossy(entry.filename),
                        kind: entry_kind(entry.mode),
                        oid: Oid(entry.oid.to_owned()),
                        symlink: entry.mode.is_link(),
                    })
                })
                .collect(),
            Listing::Built(items) => Ok(items
                .iter()
                .map(|item| TreeEntry {
                    name: std::borrow::Cow::Borrowed(&item.name),
                    kind: item.kind,
                    oid: item.oid,
                    symlink: item.symlink,
                })
                .collect()),
        }
    }
}

/// An object that could not be read: the repository is corrupt or incomplete.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    Hash,
    thiserror::Error,
    serde::Serialize,
    serde::Deserialize,
    salsa::SalsaValue,
)]
#[error("cannot read git object {oid}: {reason}")]
pub struct ObjectError {
    pub oid: Oid,
    pub reason: String,
}

/// Content-addressed reads from one repository's object database (or from none, for a
/// database opened without a repository: every read then fails).
///
/// Reads may come from several threads at once (database clones warming memos): each
/// read borrows a repository handle from a pool (`handle_pool`), its own thread's
/// first, so threads never wait on each other's decompression.
pub struct ObjectStore {
    repo: Option<HandlePool>,
    /// The hash the repository names its objects with (SHA-1, or SHA-256 for a repository
    /// made with `--object-format=sha256`): the ids keel gives objects it builds itself.
    hash: gix::hash::Kind,
    /// The repository is a partial clone: objects it left out are missing, not damaged.
    partial_clone: Option<PartialClone>,
    /// Blobs hashed by keel, by their git id (content-addressed, never removed).
    hashed: Mutex<HashMap<Oid, Arc<[u8]>>>,
    /// Trees built by keel (the working tree as a commit would hold it), by their git id.
    built_trees: Mutex<HashMap<Oid, Vec<TreeItem>>>,
}

/// A partial clone (`git clone --filter=…`): its promisor remote holds the objects the
/// clone left out. git fetches one when a git command needs it; keel reads objects itself
/// and never fetches, so a missing one is reported with the command that fetches them.
struct PartialClone {
    /// The promisor remote (`extensions.partialClone`, or a remote with `promisor = true`).
    remote: String,
    /// The repository's top folder, for `git -C` in the repair.
    top: std::path::PathBuf,
}

impl PartialClone {
    /// The repository's promisor remote, if it is a partial clone.
    fn of(repo: &gix::Repository) -> Option<Self> {
        let config = repo.config_snapshot();
        let remote = config
            .string("extensions.partialClone")
            .map(|name| name.to_string())
            .or_else(|| {
                repo.remote_names().into_iter().find_map(|name| {
                    let key = format!("remote.{name}.promisor");
                    (config.boolean(key.as_str()) == Some(true)).then(|| name.to_string())
                })
            })?;
        let top = repo.workdir().unwrap_or_else(|| repo.git_dir()).to_owned();
        Some(Self { remote, top })
    }

    /// Why `oid` cannot be read, and the command that fetches every object the clone lacks
    /// (only those: `git fetch` of object ids from the promisor remote).
    fn missing(&self, oid: Oid) -> ObjectError {
        let top = self.top.display();
        ObjectError {
            oid,
            reason: format!(
                "it is missing from this partial clone (git fetches such objects from the promisor remote `{remote}` when a git command needs them; keel reads objects itself and does not); repair: fetch every missing object: `git -C {top} rev-list --objects --all --missing=print | sed -n 's/^?//p' | git -C {top} fetch --stdin {remote}`",
                remote = self.remote,
            ),
        }
    }
}

/// gix's object cache per handle, for the trees a commit's diff and its child's both
/// read. Small: blobs pass through it too, and each thread's handle keeps its own, so at
/// 16 MiB it held a fifth of a cold lint's peak memory (pytest) for under a tenth of its
/// CPU time.
const OBJECT_CACHE_BYTES: usize = 1 << 20;

/// How many decoded delta bases each handle keeps (gix's default is 64). A history's
/// reads chain through few bases at a time: at 16 a cold lint takes the same time as at
/// 64 (click, pytest) and peaks 10-14 MB lower, the bases of large files no longer held
/// once per thread. Set on every handle, whatever `core.deltaBaseCacheLimit` says.
const PACK_CACHE_ENTRIES: usize = 16;

impl ObjectStore {
    pub(crate) fn new(repo: gix::Repository) -> Self {
        Self {
            hash: repo.object_hash(),
            partial_clone: PartialClone::of(&repo),
            repo: Some(HandlePool::new(repo, cached)),
            hashed: Mutex::default(),
            built_trees: Mutex::default(),
        }
    }

    pub(crate) fn empty() -> Self {
        Self {
            repo: None,
            hash: gix::hash::Kind::Sha1,
            partial_clone: None,
            hashed: Mutex::default(),
            built_trees: Mutex::default(),
        }
    }

    /// The git id of an object of `kind` with these bytes, in the repository's hash: the
    /// id `git hash-object` would give it.
    pub(crate) fn object_id(&self, kind: gix::objs::Kind, bytes: &[u8]) -> Oid {
        // Hashing in-memory bytes fails only on a detected SHA-1 collision attack, which
        // content keel hashes itself is not: fall back to the null id (never read).
        Oid(gix::objs::compute_hash(self.hash, kind, bytes)
            .unwrap_or_else(|_| gix::ObjectId::null(self.hash)))
    }

    /// Keeps `bytes` in memory as a blob and returns its git blob id (the id `git
    /// hash-object` gives them). Nothing is written to the repository.
    pub fn insert_blob(&self, bytes: &[u8]) -> Oid {
        let oid = self.object_id(gix::objs::Kind::Blob, bytes);
        // A panic while holding the lock cannot leave the map half-updated: one insert.
        self.hashed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(oid)
            .or_insert_with(|| Arc::from(bytes));
        oid
    }

    /// Drops the hashed blobs `gone` (an editor's buffer versions no tree keel builds
    /// names any more); a later [`Self::insert_blob`] of the same bytes keeps them again.
    pub(crate) fn forget_blobs(&self, gone: &[Oid]) {
        if gone.is_empty() {
            return;
        }
        // A panic while holding the lock cannot leave the map half-updated: removals only.
        let mut hashed = self.hashed.lock().unwrap_or_else(PoisonError::into_inner);
        for oid in gone {
            hashed.remove(oid);
        }
    }

    /// Keeps `tree` in memory and returns its git tree id (the id `git write-tree` would
    /// give it); its entries must be in git's order (`gix::objs::tree::Entry`'s `Ord`).
    /// Nothing is written to the repository.
    pub(crate) fn insert_tree(&self, tree: &gix::objs::Tree) -> Oid {
        use gix::objs::WriteTo as _;
        let mut bytes = Vec::new();
        // Writing to a `Vec` cannot fail, and a sorted tree of valid names always encodes.
        let _ = tree.write_to(&mut bytes);
        let oid = self.object_id(gix::objs::Kind::Tree, &bytes);
        let items = tree
            .entries
            .iter()
            .map(|entry| TreeItem {
                name: String::from_utf8_lossy(&entry.filename).into_owned(),
                kind: entry_kind(entry.mode),
                oid: Oid(entry.oid),
                symlink: entry.mode.is_link(),
            })
            .collect();
        // A panic while holding the lock cannot leave the map half-updated: one insert.
        self.built_trees
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(oid)
            .or_insert(items);
        oid
    }

    /// A blob keel hashed itself, if `oid` names one.
    fn hashed_blob(&self, oid: Oid) -> Option<Arc<[u8]>> {
        self.hashed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&oid)
            .cloned()
    }

    /// A new handle on the repository (refs and the shallow file are read afresh through
    /// it; it shares the object database), `None` when no repository is open.
    pub(crate) fn fresh_handle(&self) -> Option<gix::Repository> {
        self.repo.as_ref().map(HandlePool::fresh)
    }

    fn with_repo<T>(
        &self,
        oid: Oid,
        read: impl FnOnce(&gix::Repository) -> Result<T, ObjectError>,
    ) -> Result<T, ObjectError> {
        self.with_handle(oid, |handle| read(&handle.repo))
    }

    /// Runs `read` with a handle of the pool; a read that fails on an object a partial
    /// clone left out says so.
    fn with_handle<T>(
        &self,
        oid: Oid,
        read: impl FnOnce(&mut Handle) -> Result<T, ObjectError>,
    ) -> Result<T, ObjectError> {
        let Some(pool) = &self.repo else {
            return Err(ObjectError {
                oid,
                reason: "no repository is open".to_owned(),
            });
        };
        pool.with_handle(|handle| {
            read(handle).map_err(|err| match &self.partial_clone {
                Some(partial) if !handle.repo.has_object(oid.0) => partial.missing(oid),
                _ => err,
            })
        })
    }

    /// The bytes of a blob.
    pub fn blob(&self, oid: Oid) -> Result<Arc<[u8]>, ObjectError> {
        if let Some(bytes) = self.hashed_blob(oid) {
            return Ok(bytes);
        }
        self.with_handle(oid, |handle| {
            if let Some(bytes) = handle.recent.get(oid) {
                return Ok(bytes);
            }
            let planned = handle.plan.take(oid).or_else(|| {
                self.read_ahead(handle, oid);
                handle.plan.take(oid)
            });
            let bytes: Arc<[u8]> = match planned {
                Some(bytes) => bytes,
                None => {
                    let blob = handle
                        .repo
                        .find_blob(oid.0)
                        .map_err(|e| object_error(oid, &e))?;
                    Arc::from(blob.data.as_slice())
                }
            };
            handle.recent.put(oid, Arc::clone(&bytes));
            Ok(bytes)
        })
    }

    /// Announces the blobs this thread reads next, in the order it reads them (a lint's
    /// stretch of one file's history): at the first of them that is not at hand, it and
    /// the next ones are read a chunk at a time in the order they lie in the pack (see
    /// `handle_pool::ReadPlan`). Announcing nothing drops what the last plan kept. The
    /// caller announces only blobs it will read (none past its file bound).
    pub fn plan_reads(&self, blobs: Vec<Oid>) {
        if let Some(pool) = &self.repo {
            pool.with_handle(|handle| handle.plan.replace(blobs));
        }
    }

    /// Reads the chunk of the handle's plan that `oid` starts (if it is planned) in pack
    /// order, into the plan. A blob that cannot be read is left out: its own read then
    /// reports why.
    fn read_ahead(&self, handle: &mut Handle, oid: Oid) {
        let Some(pool) = &self.repo else {
            return;
        };
        let chunk = handle.plan.chunk_for(oid);
        if chunk.is_empty() {
            return;
        }
        for planned in pool.pack_order(chunk) {
            if let Ok(blob) = handle.repo.find_blob(planned.0) {
                handle.plan.keep(planned, Arc::from(blob.data.as_slice()));
            }
        }
    }

    /// The size in bytes of a blob, read from its object header (nothing is inflated).
    pub fn blob_size(&self, oid: Oid) -> Result<u64, ObjectError> {
        if let Some(bytes) = self.hashed_blob(oid) {
            return Ok(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        }
        self.with_repo(oid, |repo| {
            let header = repo.find_header(oid.0).map_err(|e| object_error(oid, &e))?;
            Ok(header.size())
        })
    }

    /// `read` of the entries of a tree keel built (not in the object store), if `oid` is one.
    fn with_built_tree<T>(&self, oid: Oid, read: impl FnOnce(&Vec<TreeItem>) -> T) -> Option<T> {
        self.built_trees
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&oid)
            .map(read)
    }

    /// `read` of the decoded entries of the tree `oid` in the object store.
    fn read_tree_entries<T>(
        &self,
        oid: Oid,
        read: impl FnOnce(&[gix::objs::tree::EntryRef<'_>]) -> T,
    ) -> Result<T, ObjectError> {
        self.with_repo(oid, |repo| {
            let tree = repo.find_tree(oid.0).map_err(|e| object_error(oid, &e))?;
            let decoded = tree.decode().map_err(|e| object_error(oid, &e))?;
            Ok(read(&decoded.entries))
        })
    }

    /// The entries of one tree, in git's order.
    pub fn tree(&self, oid: Oid) -> Result<Vec<TreeItem>, ObjectError> {
        if let Some(items) = self.with_built_tree(oid, Vec::clone) {
            return Ok(items);
        }
        self.read_tree_entries(oid, |entries| {
            entries
                .iter()
                .map(|entry| tree_item(entry, String::from_utf8_lossy(entry.filename).into_owned()))
                .collect()
        })
    }

    /// One tree as read ([`TreeListing`]), failing as [`Self::tree`] fails when it
    /// cannot be found; its entries decode once, when they are asked for.
    pub fn tree_listing(&self, oid: Oid) -> Result<TreeListing, ObjectError> {
        if let Some(items) = self.with_built_tree(oid, Vec::clone) {
            return Ok(TreeListing(Listing::Built(items)));
        }
        self.with_repo(oid, |repo| {
            let mut tree = repo.find_tree(oid.0).map_err(|e| object_error(oid, &e))?;
            Ok(TreeListing(Listing::Read(oid, tree.take_data(), self.hash)))
        })
    }

    /// The entry of one tree named by each of `names` (as [`Self::tree`] names it), if
    /// any, in their order: the tree decoded once, and only the entries found are built,
    /// so a path lookup allocates nothing for the entries it passes over.
    pub fn tree_entries(
        &self,
        oid: Oid,
        names: &[&str],
    ) -> Result<Vec<Option<TreeItem>>, ObjectError> {
        let built = self.with_built_tree(oid, |items| {
            names
                .iter()
                .map(|name| items.iter().find(|item| item.name == *name).cloned())
                .collect()
        });
        if let Some(found) = built {
            return Ok(found);
        }
        self.read_tree_entries(oid, |entries| {
            names
                .iter()
                .map(|name| {
                    entries
                        .iter()
                        .find(|entry| names_match(entry.filename, name))
                        .map(|entry| tree_item(entry, (*name).to_owned()))
                })
                .collect()
        })
    }

    /// Every file (blob, link) under the tree `root` whose path is not UTF-8, as its raw
    /// bytes, sorted: the paths [`Self::tree`] names only lossily (each bad byte becomes
    /// U+FFFD), so a reader listing a tree's files can say which it cannot name. Walks
    /// every folder of the tree once.
    pub fn files_not_utf8(&self, root: Oid) -> Result<Vec<Vec<u8>>, ObjectError> {
        let mut found = Vec::new();
        let mut stack: Vec<(Vec<u8>, Oid)> = vec![(Vec::new(), root)];
        while let Some((prefix, tree)) = stack.pop() {
            let entries = self.with_repo(tree, |repo| {
                let object = repo.find_tree(tree.0).map_err(|e| object_error(tree, &e))?;
                let decoded = object.decode().map_err(|e| object_error(tree, &e))?;
                Ok(decoded
                    .entries
                    .iter()
                    .map(|entry| {
                        (
                            entry.filename.to_vec(),
                            entry.mode,
                            Oid(entry.oid.to_owned()),
                        )
                    })
                    .collect::<Vec<_>>())
            })?;
            for (name, mode, oid) in entries {
                let mut path = prefix.clone();
                if !path.is_empty() {
                    path.push(b'/');
                }
                path.extend_from_slice(&name);
                match entry_kind(mode) {
                    EntryKind::Tree => stack.push((path, oid)),
                    EntryKind::File if std::str::from_utf8(&path).is_err() => found.push(path),
                    EntryKind::File | EntryKind::Submodule => {}
                }
            }
        }
        found.sort();
        Ok(found)
    }
}

/// Is a tree entry's raw `filename` the entry keel names `name` (its UTF-8 decoding, each
/// invalid byte replaced with U+FFFD, as [`ObjectStore::tree`] names it)? A UTF-8 name
/// decodes to itself, so the bytes decide unless `name` holds a replacement character.
fn names_match(filename: &[u8], name: &str) -> bool {
    filename == name.as_bytes()
        || (name.contains(char::REPLACEMENT_CHARACTER) && String::from_utf8_lossy(filename) == name)
}

/// A tree entry as keel names it (`name`, as the caller spelled it from the entry).
fn tree_item(entry: &gix::objs::tree::EntryRef<'_>, name: String) -> TreeItem {
    TreeItem {
        name,
        kind: entry_kind(entry.mode),
        oid: Oid(entry.oid.to_owned()),
        symlink: entry.mode.is_link(),
    }
}

fn entry_kind(mode: gix::object::tree::EntryMode) -> EntryKind {
    if mode.is_tree() {
        EntryKind::Tree
    } else if mode.is_commit() {
        EntryKind::Submodule
    } else {
        EntryKind::File
    }
}

fn object_error(oid: Oid, err: &dyn std::fmt::Display) -> ObjectError {
    ObjectError {
        oid,
        reason: err.to_string(),
    }
}

/// A handle with keel's object and delta-base cache sizes.
fn cached(mut repo: gix::Repository) -> gix::Repository {
    repo.object_cache_size_if_unset(OBJECT_CACHE_BYTES);
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::StaticLinkedList::<
            PACK_CACHE_ENTRIES,
        >::default())
    });
    repo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_entry_matches_the_name_its_lossy_decoding_gives() {
        let cases: [(&[u8], &str, bool); 5] = [
            (b"caf\xc3\xa9.py", "caf\u{e9}.py", true),
            (b"caf\xe9.py", "caf\u{fffd}.py", true),
            (b"caf\xe9.py", "caf\u{e9}.py", false),
            (b"a.py", "b.py", false),
            (b"\xef\xbf\xbd", "\u{fffd}", true),
        ];
        for (filename, name, expected) in cases {
            assert_eq!(
                names_match(filename, name),
                String::from_utf8_lossy(filename) == name,
                "{filename:?} {name:?}: the bytes decide as the decoding does"
            );
            assert_eq!(
                names_match(filename, name),
                expected,
                "{filename:?} {name:?}"
            );
        }
    }

    #[test]
    fn a_hashed_blob_has_the_id_git_gives_it_and_reads_back() {
        let store = ObjectStore::empty();
        // `printf 'hello\n' | git hash-object --stdin`, and the empty blob's well-known id.
        for (bytes, id) in [
            (&b"hello\n"[..], "ce013625030ba8dba906f756967f9e9ca394464a"),
            (b"", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"),
        ] {
            let oid = store.insert_blob(bytes);
            assert_eq!(Some(oid), Oid::from_hex(id));
            assert_eq!(store.blob(oid).as_deref(), Ok(bytes));
            assert_eq!(store.blob_size(oid), Ok(bytes.len() as u64));
        }
        // Without a repository, an id nobody hashed is still unreadable.
        let unknown = Oid::from_hex("0123456789012345678901234567890123456789");
        assert!(unknown.is_some_and(|oid| store.blob(oid).is_err()));
    }

    /// `git hash-object` of `bytes` in the repository at `dir`.
    fn git_hash_object(dir: &std::path::Path, bytes: &[u8]) -> String {
        use std::io::Write as _;
        let mut child = std::process::Command::new("git")
            .args(["hash-object", "--stdin"])
            .current_dir(dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git runs");
        child
            .stdin
            .take()
            .expect("a piped stdin")
            .write_all(bytes)
            .expect("git reads stdin");
        let output = child.wait_with_output().expect("git ends");
        assert!(output.status.success(), "git hash-object failed");
        String::from_utf8(output.stdout)
            .expect("hex")
            .trim()
            .to_owned()
    }

    #[test]
    fn a_blob_read_again_comes_from_the_handle_s_recent_blobs() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let written = sh(
            dir.path(),
            "git init -q && printf 'hello\\n' | git hash-object -w --stdin",
        );
        let oid = Oid::from_hex(written.trim()).expect("git prints an id");
        let store = ObjectStore::new(gix::open(dir.path()).expect("gix opens it"));
        let first = store.blob(oid).expect("the blob git wrote");
        assert_eq!(&first[..], b"hello\n");
        // Read from the object database, the bytes would be a new allocation.
        let again = store.blob(oid).expect("the blob git wrote");
        assert!(
            Arc::ptr_eq(&first, &again),
            "the second read is the kept copy"
        );
    }

    /// Runs `script` in `dir` with a fixed identity and dates; its standard output.
    fn sh(dir: &std::path::Path, script: &str) -> String {
        let output = std::process::Command::new("sh")
            .args(["-c", script])
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "keel")
            .env("GIT_AUTHOR_EMAIL", "keel@example.com")
            .env("GIT_COMMITTER_NAME", "keel")
            .env("GIT_COMMITTER_EMAIL", "keel@example.com")
            .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
            .output()
            .expect("sh runs");
        assert!(
            output.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    #[test]
    fn planned_blobs_are_ordered_as_git_packed_them_and_read_back_whole() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        // Twelve versions of one file, each a line longer: packed, most are deltas.
        sh(
            dir.path(),
            "git init -q && for i in $(seq 1 12); do seq 1 $((200 + i)) > f.txt; \
             git add f.txt && git commit -qm v$i; done && git gc -q --aggressive",
        );
        let blobs: Vec<Oid> = sh(dir.path(), "git log --format= --raw --no-abbrev -- f.txt")
            .lines()
            .filter_map(|line| line.split_whitespace().nth(3))
            .filter_map(Oid::from_hex)
            .collect();
        assert_eq!(blobs.len(), 12);
        // git's own answer: the pack's objects with their offsets (`verify-pack -v`).
        let listing = sh(dir.path(), "git verify-pack -v .git/objects/pack/*.idx");
        let mut by_offset: Vec<(u64, Oid)> = listing
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let oid = Oid::from_hex(fields.first()?)?;
                let offset = fields.get(4)?.parse().ok()?;
                blobs.contains(&oid).then_some((offset, oid))
            })
            .collect();
        by_offset.sort_unstable();
        let expected: Vec<Oid> = by_offset.into_iter().map(|(_, oid)| oid).collect();
        assert_eq!(expected.len(), 12, "every version is in the pack");
        // Oldest first, as a reader walking forward would ask: not the pack's order.
        let oldest_first: Vec<Oid> = blobs.iter().rev().copied().collect();
        assert_ne!(expected, oldest_first);

        let store = ObjectStore::new(gix::open(dir.path()).expect("gix opens it"));
        let pool = store.repo.as_ref().expect("a repository is open");
        assert_eq!(pool.pack_order(oldest_first), expected);

        // Planned newest first and read so: the first read reads them all, in pack order,
        // and each reads back whole.
        store.plan_reads(blobs.clone());
        for (newer, &blob) in blobs.iter().enumerate() {
            let bytes = store.blob(blob).expect("a planned blob");
            let lines = bytes.iter().filter(|&&byte| byte == b'\n').count();
            assert_eq!(lines, 212 - newer);
            if newer == 0 {
                // The first read read the other eleven ahead, held until asked for.
                assert_eq!(pool.with_handle(|handle| handle.plan.held()), 11);
            }
        }
        assert_eq!(pool.with_handle(|handle| handle.plan.held()), 0);
    }

    #[test]
    fn a_sha256_repository_s_blobs_and_trees_get_the_ids_git_gives_them() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let init = std::process::Command::new("git")
            .args(["init", "-q", "--object-format=sha256"])
            .current_dir(dir.path())
            .status()
            .expect("git runs");
        assert!(init.success());
        let store = ObjectStore::new(gix::open(dir.path()).expect("gix opens it"));
        let oid = store.insert_blob(b"hello\n");
        let expected = git_hash_object(dir.path(), b"hello\n");
        assert_eq!(expected.len(), 64, "git hashes with SHA-256 here");
        assert_eq!(oid.to_string(), expected);
        assert_eq!(store.blob(oid).as_deref(), Ok(&b"hello\n"[..]));

        // A tree keel builds has the id `git mktree` gives the same entries.
        let tree = gix::objs::Tree {
            entries: vec![gix::objs::tree::Entry {
                mode: gix::objs::tree::EntryKind::Blob.into(),
                filename: "hello.txt".into(),
                oid: oid.0,
            }],
        };
        let listed = sh(
            dir.path(),
            &format!(
                "printf 'hello\\n' | git hash-object -w --stdin >/dev/null; printf '100644 blob {oid}\\thello.txt\\n' | git mktree"
            ),
        );
        let tree_id = store.insert_tree(&tree);
        assert_eq!(tree_id.to_string(), listed.trim());
    }
}
