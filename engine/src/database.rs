//! [`KeelDatabase`]: the one concrete salsa database, and the [`Db`] trait queries see.
//!
//! Owns: opening a repository (any folder inside its work tree, as git finds it; a file is
//! refused), naming HEAD's branch when it has no commits yet, the storage, the commit
//! index (object id → input), and the event log. The database lives for the whole
//! process; after it is opened, lint's inputs (the tip and the commits) move only through
//! `apply_changes`.
//! Does not own: derived answers (`keel-queries`), the change vocabulary ([`crate::changes`]).

use crate::events::QueryLog;
use crate::hints::HintStore;
use crate::inputs::{Commit, KnownCommits, Sources, Tip};
use crate::objects::ObjectStore;
use crate::oid::Oid;
use salsa::{Durability, Setter};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What every derived query may ask of the database besides its inputs.
#[salsa::db]
pub trait Db: salsa::Database {
    /// Content-addressed object reads (pure by object id).
    fn objects(&self) -> &ObjectStore;

    /// This database's hints: what makes its next computation cheaper and never changes
    /// an answer (see [`HintStore`]).
    fn hints(&self) -> &HintStore;
}

/// Why the engine could not read the world.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(
        "{path}: no such folder; repair: pass an existing folder inside a git work tree with --repo"
    )]
    NoSuchPath { path: PathBuf },
    #[error(
        "{path}: is a file, not a folder; repair: pass the repository's folder with --repo, e.g. --repo {}",
        parent_or_dot(path).display()
    )]
    NotAFolder { path: PathBuf },
    #[error(
        "{path}: not a git repository (or any parent up to the file system root); repair: run keel inside a git work tree or pass --repo DIR"
    )]
    NotARepository { path: PathBuf },
    #[error(
        "{path}: cannot read the repository: {reason}; repair: check the path and its permissions, or run `git fsck`"
    )]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "{rev}: names no commit in this repository ({reason}); repair: pass a commit id or a ref, e.g. the output of `git rev-parse HEAD`"
    )]
    NoSuchCommit { rev: String, reason: String },
    #[error("{rev}: names no commit: {head}; repair: {}", head.repair())]
    UnbornHead { rev: String, head: UnbornHead },
    #[error(
        "{path}: a bare repository has no working tree to judge or watch; repair: run without --worktree"
    )]
    NoWorkTree { path: PathBuf },
    /// Input a strict reader refused (sessions, decisions, readings, log folders).
    #[error("{0}")]
    Refused(#[from] crate::refusal::Refusal),
}

/// Why gix could not open a repository at or above `real` (`path` as the user named it):
/// no repository there at all, or one found that cannot be opened (`error` says why: an
/// extension or object format gix does not read, a broken config).
fn unopenable(path: &Path, real: &Path, error: &impl std::fmt::Display) -> EngineError {
    match gix::discover::upwards(real) {
        Ok((found, _trust)) => EngineError::Unreadable {
            path: found.into_repository_and_work_tree_directories().0,
            reason: error.to_string(),
        },
        Err(_) => EngineError::NotARepository {
            path: path.to_owned(),
        },
    }
}

/// The folder holding `path`, `.` for a bare file name.
fn parent_or_dot(path: &Path) -> &Path {
    path.parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// HEAD names a branch with no commits yet: a new repository, or a branch made with
/// `git switch --orphan` in a repository whose other branches have commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnbornHead {
    /// The branch HEAD names (`main`).
    pub branch: String,
    /// A local branch that has commits (`main` or `master` when one does, else the first
    /// by name); `None` when no branch has any.
    pub committed: Option<String>,
}

impl std::fmt::Display for UnbornHead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HEAD's branch `{}` has no commits yet", self.branch)
    }
}

impl UnbornHead {
    /// What to do about it, naming the branch with commits when there is one.
    pub fn repair(&self) -> String {
        match &self.committed {
            Some(other) => format!(
                "commit on `{}` first, or name a branch that has commits instead (e.g. `{other}`), or switch to it (`git switch {other}`)",
                self.branch
            ),
            None => "commit first".to_owned(),
        }
    }
}

/// The concrete database: storage, the repository's objects and the commit index.
#[salsa::db]
#[derive(Clone)]
pub struct KeelDatabase {
    storage: salsa::Storage<Self>,
    objects: Arc<ObjectStore>,
    /// Shared by the database's clones (its threads), never by another database.
    hints: Arc<HintStore>,
    log: QueryLog,
    git_dir: Option<PathBuf>,
    /// The working tree's root (none for a bare repository or a detached database).
    work_dir: Option<PathBuf>,
    /// Shared by the database's clones (a lint's warming threads read it, never write it):
    /// written through `Arc::make_mut`, so a clone copies no map.
    pub(crate) commits: Arc<HashMap<Oid, Commit>>,
    /// Editors' unsaved buffers by repository path, read over the working tree's files
    /// (`ChangeEvent::Buffer`).
    pub(crate) buffers: std::collections::BTreeMap<String, Arc<[u8]>>,
    /// The working tree as the last `ChangeEvent::Worktree` read it.
    pub(crate) worktree_files: crate::worktree_files::WorktreeFiles,
    /// How many of `commits` the on-disk memo held; `None` when no memo was loaded.
    pub(crate) memo_commits: Option<usize>,
    /// `keel sessions`: what was loaded and the per-repository scan caches.
    pub(crate) sessions: crate::sessions::SessionState,
    /// The agent logs input, once a change event made it.
    pub(crate) agent_logs: Option<crate::agents::AgentLogs>,
}

#[salsa::db]
impl salsa::Database for KeelDatabase {}

#[salsa::db]
impl Db for KeelDatabase {
    fn objects(&self) -> &ObjectStore {
        &self.objects
    }

    fn hints(&self) -> &HintStore {
        &self.hints
    }
}

impl KeelDatabase {
    /// Opens the repository holding `path` and reads HEAD into the inputs. (`keel.toml`
    /// is not read here: lint reads it from the judged commit's tree, as it reads specs.)
    pub fn open(path: &Path) -> Result<Self, EngineError> {
        let mut db = Self::open_objects(path)?;
        db.apply_changes(&[crate::ChangeEvent::Rescan])?;
        Ok(db)
    }

    /// Opens the repository holding `path` for reading trees and blobs only: no tip and
    /// no history is read (`keel callgraph`, `keel impact` judge one tree, not a history).
    pub fn open_objects(path: &Path) -> Result<Self, EngineError> {
        if !path.exists() {
            return Err(EngineError::NoSuchPath {
                path: path.to_owned(),
            });
        }
        if !path.is_dir() {
            return Err(EngineError::NotAFolder {
                path: path.to_owned(),
            });
        }
        // Discovered from the real path, so every path keel derives from the repository
        // (git folder, memo, kept answer, hook, working tree) is absolute and real.
        let real = crate::paths::real_path(path);
        let repo = gix::discover(&real).map_err(|err| unopenable(path, &real, &err))?;
        let mut db = Self::with_store(
            ObjectStore::new(repo.clone()),
            Some(repo.git_dir().to_owned()),
        );
        db.work_dir = repo.workdir().map(Path::to_owned);
        Ok(db)
    }

    /// A database with no primary repository (for commands whose repositories come from
    /// their input files): no tip, and object reads fail.
    pub fn detached() -> Self {
        Self::with_store(ObjectStore::empty(), None)
    }

    fn with_store(objects: ObjectStore, git_dir: Option<PathBuf>) -> Self {
        let log = QueryLog::default();
        let recorder = log.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            recorder.record(&event);
        })));
        let db = Self {
            storage,
            git_dir,
            work_dir: None,
            objects: Arc::new(objects),
            hints: Arc::default(),
            log,
            commits: Arc::default(),
            buffers: Default::default(),
            worktree_files: Default::default(),
            memo_commits: None,
            sessions: crate::sessions::SessionState::default(),
            agent_logs: None,
        };
        let _: Tip = Tip::builder(None).durability(Durability::LOW).new(&db);
        let _: KnownCommits = KnownCommits::builder(Vec::new())
            .durability(Durability::MEDIUM)
            .new(&db);
        db
    }

    /// Removes `gone` from the set of known commits (a working tree's commit another
    /// replaced).
    pub(crate) fn forget_commits(&mut self, gone: &[Commit]) {
        let known = KnownCommits::get(self);
        let mut commits = known.commits(self).clone();
        commits.retain(|commit| !gone.contains(commit));
        known
            .set_commits(self)
            .with_durability(Durability::MEDIUM)
            .to(commits);
    }

    /// Adds `read` (new commit inputs, parents first) to the set of known commits.
    pub(crate) fn remember_commits(&mut self, read: &[Commit]) {
        if read.is_empty() {
            return;
        }
        let known = KnownCommits::get(self);
        let mut commits = known.commits(self).clone();
        commits.extend_from_slice(read);
        known
            .set_commits(self)
            .with_durability(Durability::MEDIUM)
            .to(commits);
    }

    /// A source tree holding `files` (sorted and deduplicated by path here).
    /// Files past `max_file_bytes` are not parsed (see [`Sources`]).
    pub fn sources(&self, files: Vec<(String, Oid)>, max_file_bytes: u64) -> Sources {
        let files = sorted_files(files);
        let changed = files.len();
        Sources::new(self, files, max_file_bytes, changed)
    }

    /// Gives the source tree `tree` the files `files`; sets the input only if they
    /// differ (`false`: nothing changed, nothing is invalidated).
    pub(crate) fn set_sources(&mut self, tree: Sources, files: Vec<(String, Oid)>) -> bool {
        let files = sorted_files(files);
        if *tree.files(self) == files {
            return false;
        }
        let changed = changed_paths(tree.files(self), &files);
        tree.set_files(self).to(files);
        tree.set_changed_files(self).to(changed);
        true
    }

    /// The working tree's root, if the repository has one.
    pub fn work_dir(&self) -> Option<&Path> {
        self.work_dir.as_deref()
    }

    /// The repository's git folder (empty for a detached database), for messages.
    pub(crate) fn git_dir_path(&self) -> &Path {
        self.git_dir.as_deref().unwrap_or(Path::new(""))
    }

    /// The object store (also reachable through [`Db::objects`]).
    pub(crate) fn objects_store(&self) -> &ObjectStore {
        &self.objects
    }

    /// The name salsa gives the query behind an executed key (the function's name).
    fn query_name(&self, key: salsa::DatabaseKeyIndex) -> String {
        salsa::Database::ingredient_debug_name(self, key.ingredient_index()).into_owned()
    }

    /// The names of the queries executed since the last call, in order, leaving the log
    /// empty (for `--stats`, benchmarks and the tests that prove incrementality).
    pub fn take_executed_queries(&self) -> Vec<String> {
        self.take_executions()
            .into_iter()
            .map(|(_, query, _)| query)
            .collect()
    }

    /// [`Self::take_executed_queries`] of the queries `thread` executed only, leaving the
    /// others in the log (a replay's read-ahead thread works for the next tip).
    pub fn take_executed_queries_of(&self, thread: std::thread::ThreadId) -> Vec<String> {
        self.log
            .take_of(thread)
            .into_iter()
            .map(|key| self.query_name(key))
            .collect()
    }

    /// Every query executed since the last take, in order: the thread that ran it, the
    /// query's name and its key (the same id for two queries of one image), leaving the
    /// log empty (for the tests that prove where threaded work ran).
    pub fn take_executions(&self) -> Vec<(std::thread::ThreadId, String, salsa::Id)> {
        self.log
            .take()
            .into_iter()
            .map(|(thread, key)| (thread, self.query_name(key), key.key_index()))
            .collect()
    }

    /// Re-reads HEAD; sets the tip input only if it moved. Returns whether it moved.
    pub(crate) fn sync_tip(&mut self) -> Result<bool, EngineError> {
        let head = self.read_head()?;
        self.set_tip(head)
    }

    /// Makes `oid` (or no commit) the judged tip; sets the input only if it moved.
    pub(crate) fn set_tip(&mut self, oid: Option<Oid>) -> Result<bool, EngineError> {
        let commit = oid.map(|oid| self.commit_input(oid)).transpose()?;
        let tip = Tip::get(self);
        if tip.commit(self) == commit {
            return Ok(false);
        }
        tip.set_commit(self).to(commit);
        Ok(true)
    }

    /// The commit `rev` names: a full or abbreviated id, a ref, or any revision git
    /// understands (`HEAD~2`). The commit need not be on any ref (a candidate).
    pub fn resolve_commit(&self, rev: &str) -> Result<Oid, EngineError> {
        let Some(repo) = self.objects.fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let refuse = |reason: &dyn std::fmt::Display| EngineError::NoSuchCommit {
            rev: rev.to_owned(),
            reason: reason.to_string(),
        };
        let id = repo.rev_parse_single(rev).map_err(|err| {
            match unborn_head(&repo).filter(|head| names_head(rev, &head.branch)) {
                Some(head) => EngineError::UnbornHead {
                    rev: rev.to_owned(),
                    head,
                },
                None => refuse(&err),
            }
        })?;
        let commit = id
            .object()
            .map_err(|e| refuse(&e))?
            .peel_to_commit()
            .map_err(|e| refuse(&e))?;
        Ok(Oid(commit.id))
    }

    /// The unsaved buffer an editor holds at `path` (`ChangeEvent::Buffer`), if any.
    pub fn buffer(&self, path: &str) -> Option<&[u8]> {
        self.buffers.get(path).map(|text| &text[..])
    }

    /// The input of commit `oid` if this database has read it (a tip set through
    /// [`ChangeEvent::TipAt`](crate::ChangeEvent::TipAt) and every ancestor of one). Reads
    /// nothing and sets nothing.
    pub fn known_commit(&self, oid: Oid) -> Option<Commit> {
        self.commits.get(&oid).copied()
    }

    /// The root tree of the commit `rev` names (see [`Self::resolve_commit`]).
    pub fn commit_tree(&self, commit: Oid) -> Result<Oid, EngineError> {
        let Some(repo) = self.objects.fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let found = repo
            .find_commit(commit.0)
            .map_err(|err| self.unreadable(&err))?;
        let tree = found.tree_id().map_err(|err| self.unreadable(&err))?;
        Ok(Oid(tree.detach()))
    }

    /// The parents and tree of the commit `commit`, read from the repository alone (no
    /// input is made: the gate's fast classification reads no history).
    pub fn commit_shape(&self, commit: Oid) -> Result<(Vec<Oid>, Oid), EngineError> {
        let Some(repo) = self.objects.fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let found = repo
            .find_commit(commit.0)
            .map_err(|err| self.unreadable(&err))?;
        let decoded = found.decode().map_err(|err| self.unreadable(&err))?;
        Ok((decoded.parents().map(Oid).collect(), Oid(decoded.tree())))
    }

    /// HEAD's branch when it has no commits yet (`None` when HEAD has a commit, or
    /// for a detached database).
    pub fn unborn_head(&self) -> Option<UnbornHead> {
        unborn_head(&self.objects.fresh_handle()?)
    }

    pub(crate) fn read_head(&self) -> Result<Option<Oid>, EngineError> {
        let Some(repo) = self.objects.fresh_handle() else {
            return Ok(None);
        };
        let head = repo.head_id();
        match head {
            Ok(id) => Ok(Some(Oid(id.detach()))),
            Err(_) if repo.head().is_ok_and(|h| h.is_unborn()) => Ok(None),
            Err(err) => Err(self.unreadable(&err)),
        }
    }

    /// How many commits this process read that the on-disk memo did not hold; `None`
    /// when no memo was loaded (every commit was read).
    pub fn commits_beyond_memo(&self) -> Option<usize> {
        self.memo_commits
            .map(|held| self.commits.len().saturating_sub(held))
    }

    /// The input for commit `oid`, creating inputs for it and every ancestor not yet
    /// known (parents before children), so one new commit costs one object read.
    pub(crate) fn commit_input(&mut self, oid: Oid) -> Result<Commit, EngineError> {
        if let Some(&known) = self.commits.get(&oid) {
            return Ok(known);
        }
        let Some(repo) = self.objects.fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let shallow = shallow_commits(&repo).map_err(|err| self.unreadable(&err))?;
        let mut read = crate::ancestors::read_unknown_ancestors(
            oid,
            &|id| self.commits.contains_key(id),
            &shallow,
            &|| self.objects.fresh_handle(),
        )
        .map_err(|err| self.unreadable(&err))?;
        let mut created = Vec::new();
        let mut stack = vec![oid];
        // Parents first, in the order of a depth-first walk from `oid`, whatever order the
        // commits were read in: the inputs are numbered as they are created.
        let mut entered: HashSet<Oid> = HashSet::new();
        while let Some(&id) = stack.last() {
            if self.commits.contains_key(&id) {
                stack.pop();
                continue;
            }
            if entered.insert(id) {
                if let Some(raw) = read.get(&id) {
                    stack.extend(raw.parents.iter().filter(|p| !self.commits.contains_key(p)));
                }
                continue;
            }
            stack.pop();
            let Some(raw) = read.remove(&id) else {
                continue;
            };
            let parents = raw
                .parents
                .iter()
                .filter_map(|p| self.commits.get(p).copied())
                .collect();
            let input = Commit::builder(
                id,
                parents,
                raw.tree,
                raw.message,
                raw.committer_time,
                shallow.contains(&id),
            )
            .durability(Durability::HIGH)
            .new(&*self);
            Arc::make_mut(&mut self.commits).insert(id, input);
            created.push(input);
        }
        self.remember_commits(&created);
        self.commits
            .get(&oid)
            .copied()
            .ok_or_else(|| self.unreadable(&format!("commit {oid} could not be indexed")))
    }

    pub(crate) fn unreadable(&self, err: &dyn std::fmt::Display) -> EngineError {
        EngineError::Unreadable {
            path: self.git_dir.clone().unwrap_or_default(),
            reason: err.to_string(),
        }
    }
}

/// HEAD's branch in `repo` when it has no commits yet, and a branch that has some.
fn unborn_head(repo: &gix::Repository) -> Option<UnbornHead> {
    let head = repo.head().ok()?;
    if !head.is_unborn() {
        return None;
    }
    let branch = head.referent_name()?.shorten().to_string();
    // Refs that cannot be listed only cost the hint: the branch is named all the same.
    let mut committed: Vec<String> = repo
        .references()
        .ok()
        .and_then(|refs| {
            refs.local_branches().ok().map(|branches| {
                branches
                    .filter_map(Result::ok)
                    .map(|branch| branch.name().shorten().to_string())
                    .collect()
            })
        })
        .unwrap_or_default();
    committed.sort();
    let preferred = committed
        .iter()
        .find(|name| *name == "main" || *name == "master")
        .or(committed.first())
        .cloned();
    Some(UnbornHead {
        branch,
        committed: preferred,
    })
}

/// Whether the revision `rev` starts from HEAD or from HEAD's (unborn) `branch`
/// (`HEAD`, `@`, `HEAD~2`, `main^`).
fn names_head(rev: &str, branch: &str) -> bool {
    let start = rev.split(['~', '^', ':']).next().unwrap_or(rev);
    matches!(start, "HEAD" | "@") || start == branch
}

/// Commits whose parents a shallow clone cut off.
fn shallow_commits(
    repo: &gix::Repository,
) -> Result<HashSet<Oid>, Box<dyn std::error::Error + Send + Sync>> {
    Ok(repo
        .shallow_commits()?
        .map(|commits| commits.iter().copied().map(Oid).collect())
        .unwrap_or_default())
}

/// Files sorted by path, each path once (the first kept).
fn sorted_files(mut files: Vec<(String, Oid)>) -> Vec<(String, Oid)> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files.dedup_by(|a, b| a.0 == b.0);
    files
}

/// How many paths of two file lists sorted by path differ: present in one only, or with
/// another blob.
fn changed_paths(old: &[(String, Oid)], new: &[(String, Oid)]) -> usize {
    let blob_in = |files: &[(String, Oid)], path: &str| {
        files
            .binary_search_by(|(known, _)| known.as_str().cmp(path))
            .ok()
            .map(|at| files[at].1)
    };
    let added_or_changed = new
        .iter()
        .filter(|(path, blob)| blob_in(old, path) != Some(*blob))
        .count();
    let removed = old
        .iter()
        .filter(|(path, _)| blob_in(new, path).is_none())
        .count();
    added_or_changed + removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_fixtures::FixtureRepo;

    fn refused(opened: Result<KeelDatabase, EngineError>) -> String {
        match opened {
            Ok(_) => panic!("the path was opened"),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn changed_paths_counts_added_removed_and_reblobbed_paths() {
        // Forty hex digits of one value: a valid id, so `from_hex` answers.
        let blob =
            |byte: u8| Oid::from_hex(&format!("{byte:02x}").repeat(20)).expect("40 hex digits");
        let list = |entries: &[(&str, u8)]| -> Vec<(String, Oid)> {
            entries
                .iter()
                .map(|(path, byte)| ((*path).to_owned(), blob(*byte)))
                .collect()
        };
        let old = list(&[("a.py", 1), ("b.py", 2), ("c.py", 3)]);
        assert_eq!(changed_paths(&old, &old), 0);
        assert_eq!(
            changed_paths(&old, &list(&[("a.py", 1), ("b.py", 9), ("c.py", 3)])),
            1
        );
        assert_eq!(changed_paths(&old, &list(&[("a.py", 1), ("c.py", 3)])), 1);
        assert_eq!(
            changed_paths(
                &old,
                &list(&[
                    ("0.py", 7),
                    ("a.py", 1),
                    ("b.py", 2),
                    ("c.py", 3),
                    ("d.py", 4)
                ])
            ),
            2
        );
        assert_eq!(changed_paths(&old, &[]), 3);
        assert_eq!(changed_paths(&[], &old), 3);
    }

    #[test]
    fn a_file_is_refused_as_a_file_and_a_subfolder_opens_its_repository() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        repo.write("src/app.py", "x = 1\n").expect("write");
        repo.commit("Add app").expect("commit");
        let file = repo.path().join("src/app.py");
        assert_eq!(
            refused(KeelDatabase::open_objects(&file)),
            format!(
                "{}: is a file, not a folder; repair: pass the repository's folder with --repo, e.g. --repo {}",
                file.display(),
                repo.path().join("src").display()
            )
        );
        assert_eq!(
            refused(KeelDatabase::open_objects(Path::new("app.py"))),
            "app.py: no such folder; repair: pass an existing folder inside a git work tree with --repo"
        );
        let db = KeelDatabase::open_objects(&repo.path().join("src")).expect("a subfolder opens");
        let root = std::fs::canonicalize(repo.path()).expect("real");
        assert_eq!(
            db.work_dir().and_then(|d| d.canonicalize().ok()),
            Some(root)
        );
    }

    #[test]
    fn an_unborn_head_is_named_with_a_branch_that_has_commits() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        let empty = KeelDatabase::open(repo.path()).expect("open");
        let head = empty.unborn_head().expect("unborn");
        assert_eq!((head.branch.as_str(), head.committed), ("main", None));
        let err = empty.resolve_commit("HEAD").expect_err("no commit");
        assert_eq!(
            err.to_string(),
            "HEAD: names no commit: HEAD's branch `main` has no commits yet; repair: commit first"
        );

        repo.write("a.py", "x = 1\n").expect("write");
        repo.commit("Add a").expect("commit");
        assert_eq!(
            KeelDatabase::open(repo.path()).expect("open").unborn_head(),
            None
        );

        repo.git(&["checkout", "--quiet", "--orphan", "fresh"])
            .expect("an orphan branch");
        let orphan = KeelDatabase::open(repo.path()).expect("open");
        let err = orphan.resolve_commit("HEAD~1").expect_err("no commit");
        assert_eq!(
            err.to_string(),
            "HEAD~1: names no commit: HEAD's branch `fresh` has no commits yet; repair: commit on `fresh` first, or name a branch that has commits instead (e.g. `main`), or switch to it (`git switch main`)"
        );
        assert!(orphan.resolve_commit("main").is_ok());
        assert!(matches!(
            orphan.resolve_commit("nosuch"),
            Err(EngineError::NoSuchCommit { .. })
        ));
    }

    #[test]
    fn a_revision_names_head_by_its_start() {
        for rev in [
            "HEAD",
            "@",
            "HEAD~2",
            "HEAD^",
            "fresh",
            "fresh~1",
            "HEAD:a.py",
        ] {
            assert!(names_head(rev, "fresh"), "{rev}");
        }
        for rev in ["main", "HEADS", "freshly", "v1.0"] {
            assert!(!names_head(rev, "fresh"), "{rev}");
        }
    }
}
