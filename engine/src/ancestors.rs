//! Reading the commit objects of a tip's ancestors that the database does not know yet,
//! on several threads: a cold lint of pytest read its 17,000 commits one by one before
//! any other work could start, an eighth of its wall time, most of it inflating them.
//!
//! Owns: reading a commit object (what keel keeps of it, [`RawCommit`]) and the parallel
//! walk (a shared frontier; each thread reads a commit with its own repository handle and
//! adds the parents nobody has taken). Does not own: the order in which commits become
//! inputs (`KeelDatabase::commit_input`, parents first, the same whatever order they were
//! read in).

use crate::oid::Oid;
use std::collections::{HashMap, HashSet};
use std::sync::{Condvar, Mutex, PoisonError};

type ReadError = Box<dyn std::error::Error + Send + Sync>;

/// The fields keel keeps of a commit object.
pub(crate) struct RawCommit {
    pub(crate) parents: Vec<Oid>,
    pub(crate) tree: Oid,
    pub(crate) message: String,
    pub(crate) committer_time: i64,
}

/// What keel keeps of the commit `id`; a commit `shallow` lists has no parents (a shallow
/// clone cut them off).
pub(crate) fn read_commit(
    repo: &gix::Repository,
    id: Oid,
    shallow: &HashSet<Oid>,
) -> Result<RawCommit, ReadError> {
    let commit = repo.find_commit(id.0)?;
    let decoded = commit.decode()?;
    let parents = if shallow.contains(&id) {
        Vec::new()
    } else {
        decoded.parents().map(Oid).collect()
    };
    Ok(RawCommit {
        parents,
        tree: Oid(decoded.tree()),
        message: String::from_utf8_lossy(decoded.message).into_owned(),
        committer_time: decoded.committer()?.seconds(),
    })
}

/// More threads than this contend for the frontier of all but the widest histories.
const MAX_THREADS: usize = 4;

/// The commits reachable from `start` through parents without passing through a commit
/// `known` holds (`start` included unless known), each read once; `shallow` lists the
/// commits whose parents a shallow clone cut off. `handles` makes each thread's repository
/// handle. The first read that fails ends the walk with its error.
pub(crate) fn read_unknown_ancestors(
    start: Oid,
    known: &(dyn Fn(&Oid) -> bool + Sync),
    shallow: &HashSet<Oid>,
    handles: &(dyn Fn() -> Option<gix::Repository> + Sync),
) -> Result<HashMap<Oid, RawCommit>, ReadError> {
    if known(&start) {
        return Ok(HashMap::new());
    }
    let walk = Walk {
        frontier: Mutex::new(Frontier {
            pending: vec![start],
            taken: HashSet::from([start]),
            busy: 0,
            failed: None,
            read: HashMap::new(),
        }),
        changed: Condvar::new(),
    };
    let Some(repo) = handles() else {
        return Err("no repository is open".into());
    };
    // The first commit on this thread: when its parents are all known (a commit made on
    // a tip this database has read), no other thread is started.
    if let Some(id) = walk.next() {
        walk.read(&repo, id, known, shallow);
    }
    if !walk.lock().pending.is_empty() {
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, MAX_THREADS);
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| match handles() {
                    Some(repo) => walk.work(&repo, known, shallow),
                    None => walk.fail("no repository is open".into()),
                });
            }
            walk.work(&repo, known, shallow);
        });
    }
    let frontier = walk
        .frontier
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    match frontier.failed {
        Some(error) => Err(error),
        None => Ok(frontier.read),
    }
}

/// The walk's shared state and the signal that it changed.
struct Walk {
    frontier: Mutex<Frontier>,
    changed: Condvar,
}

struct Frontier {
    /// Commits taken into the walk and not read yet.
    pending: Vec<Oid>,
    /// Every commit ever pushed to `pending`: each is read once.
    taken: HashSet<Oid>,
    /// Threads reading a commit now (their parents may still come).
    busy: usize,
    failed: Option<ReadError>,
    read: HashMap<Oid, RawCommit>,
}

impl Walk {
    /// One thread's part: reads pending commits until nothing is pending and no thread
    /// is reading (or a read failed).
    fn work(
        &self,
        repo: &gix::Repository,
        known: &(dyn Fn(&Oid) -> bool + Sync),
        shallow: &HashSet<Oid>,
    ) {
        while let Some(id) = self.next() {
            self.read(repo, id, known, shallow);
        }
    }

    /// Reads the taken commit `id` and adds its untaken unknown parents to the frontier.
    fn read(
        &self,
        repo: &gix::Repository,
        id: Oid,
        known: &(dyn Fn(&Oid) -> bool + Sync),
        shallow: &HashSet<Oid>,
    ) {
        // A panic in the object reader must not leave the others waiting for this
        // thread's parents: it ends the walk as a failed read.
        let raw = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_commit(repo, id, shallow)
        }))
        .unwrap_or_else(|_| Err(format!("reading commit {id} panicked").into()));
        let mut frontier = self.lock();
        frontier.busy -= 1;
        match raw {
            Ok(raw) => {
                for &parent in &raw.parents {
                    if !known(&parent) && frontier.taken.insert(parent) {
                        frontier.pending.push(parent);
                    }
                }
                frontier.read.insert(id, raw);
            }
            Err(error) => {
                frontier.failed.get_or_insert(error);
            }
        }
        drop(frontier);
        self.changed.notify_all();
    }

    /// The next commit to read, or `None` once the walk is over.
    fn next(&self) -> Option<Oid> {
        let mut frontier = self.lock();
        loop {
            if frontier.failed.is_some() {
                return None;
            }
            if let Some(id) = frontier.pending.pop() {
                frontier.busy += 1;
                return Some(id);
            }
            if frontier.busy == 0 {
                return None;
            }
            frontier = self
                .changed
                .wait(frontier)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn fail(&self, error: ReadError) {
        self.lock().failed.get_or_insert(error);
        self.changed.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Frontier> {
        // Every update of the frontier is whole before the lock is released.
        self.frontier.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_fixtures::FixtureRepo;

    /// A history with two merges, so the walk's frontier holds more than one commit.
    fn branchy() -> FixtureRepo {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        let write_commit = |repo: &mut FixtureRepo, path: &str, message: &str| {
            repo.write(path, message).expect("write");
            repo.commit(message).expect("commit");
        };
        write_commit(&mut repo, "a.txt", "root");
        for side in ["one", "two"] {
            repo.git(&["checkout", "-q", "-b", side]).expect("branch");
            for step in 0..3 {
                write_commit(&mut repo, &format!("{side}.txt"), &format!("{side} {step}"));
            }
            repo.git(&["checkout", "-q", "main"]).expect("checkout");
            write_commit(&mut repo, "main.txt", &format!("main before {side}"));
            repo.git(&[
                "merge",
                "-q",
                "--no-ff",
                "-m",
                &format!("merge {side}"),
                side,
            ])
            .expect("merge");
        }
        repo
    }

    fn ids(repo: &FixtureRepo, args: &[&str]) -> Vec<Oid> {
        let listed = repo.git(args).expect("git lists commits");
        let mut ids: Vec<Oid> = listed
            .lines()
            .map(|id| Oid::from_hex(id).expect("full ids"))
            .collect();
        ids.sort();
        ids
    }

    fn walked(repo: &FixtureRepo, known: &HashSet<Oid>) -> (Vec<Oid>, HashMap<Oid, RawCommit>) {
        let shared = gix::open(repo.path()).expect("gix opens it").into_sync();
        let tip = ids(repo, &["rev-parse", "HEAD"])[0];
        let read = read_unknown_ancestors(tip, &|id| known.contains(id), &HashSet::new(), &|| {
            Some(shared.to_thread_local())
        })
        .expect("every commit reads");
        let mut keys: Vec<Oid> = read.keys().copied().collect();
        keys.sort();
        (keys, read)
    }

    #[test]
    fn every_unknown_ancestor_is_read_once_with_its_parents_and_known_ones_stop_the_walk() {
        let repo = branchy();
        let all = ids(&repo, &["rev-list", "HEAD"]);
        assert_eq!(
            all.len(),
            11,
            "root, 3 + 3 side commits, 2 on main, 2 merges"
        );
        let (read, raws) = walked(&repo, &HashSet::new());
        assert_eq!(read, all);
        for (id, raw) in &raws {
            let parents = repo
                .git(&["rev-list", "--parents", "-n", "1", &id.to_string()])
                .expect("parents");
            let expected: Vec<Oid> = parents
                .split_whitespace()
                .skip(1)
                .map(|id| Oid::from_hex(id).expect("full ids"))
                .collect();
            assert_eq!(raw.parents, expected, "parents of {id}");
        }
        // The first merge known: nothing behind it is read, everything after it is.
        let first_merge = ids(&repo, &["rev-parse", "HEAD^1^1"]);
        let known: HashSet<Oid> = first_merge.iter().copied().collect();
        let (read, _) = walked(&repo, &known);
        let after = ids(&repo, &["rev-list", "HEAD", "^HEAD^1^1"]);
        assert_eq!(read, after);
        assert_eq!(
            after.len(),
            5,
            "two's three commits, main's, and the second merge"
        );
    }
}
