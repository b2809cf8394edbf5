//! Noticing change for `keel watch`: which outside facts may have moved since the last
//! verdict.
//!
//! Owns: the file-system watches (the `notify` crate) on what decides a verdict — HEAD,
//! the refs and `packed-refs` of the git folder (and of the common folder of a linked
//! work tree), and, when the working tree is judged, every folder of it that no ignore
//! rule hides (one non-recursive watch each, added as folders appear, so a `target/` or
//! `node_modules/` is never watched) — the filter on what an event touched, the
//! debounce, and the stop signal (Ctrl-C).
//! Does not own: reading what moved (the caller sends [`crate::ChangeEvent`]s) or any
//! verdict.
//!
//! A batch ends after [`QUIET`] without a relevant event, or at most [`LONGEST_BATCH`]
//! after it began, so a tool that writes without pause still gets verdicts.

use crate::database::{EngineError, KeelDatabase};
use crate::paths::real_path;
use notify::{EventKind, RecursiveMode, Watcher as _};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// How long a batch waits for quiet after its last relevant event.
pub const QUIET: Duration = Duration::from_millis(40);

/// The longest a batch gathers events before it is handed over.
pub const LONGEST_BATCH: Duration = Duration::from_secs(1);

/// What a batch of events may have moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Moved {
    /// HEAD, a ref or `packed-refs`.
    pub refs: bool,
    /// A file of the working tree (only watched when the working tree is judged).
    pub files: bool,
}

/// Something that woke the watcher.
enum Wake {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// Stops a [`RepoWatcher`] from another thread (a Ctrl-C handler).
#[derive(Clone)]
pub struct StopHandle(Sender<Wake>);

impl StopHandle {
    /// Makes the watcher's [`RepoWatcher::next_batch`] return `None`.
    pub fn stop(&self) {
        // The watcher may already be gone (the process is ending): nothing to stop.
        let _ = self.0.send(Wake::Stop);
    }
}

/// The watches on one repository.
pub struct RepoWatcher {
    watcher: notify::RecommendedWatcher,
    wakes: Receiver<Wake>,
    sender: Sender<Wake>,
    /// The git folders whose HEAD and refs decide the tip (one, or two for a linked
    /// work tree: its own and the common one).
    git_dirs: Vec<PathBuf>,
    /// The working tree's root, when its files are watched.
    work_dir: Option<PathBuf>,
}

impl KeelDatabase {
    /// Watches what decides this repository's verdict: its refs, and its working tree's
    /// files when `worktree` is set.
    pub fn watcher(&self, worktree: bool) -> Result<RepoWatcher, EngineError> {
        let Some(repo) = self.objects_store().fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        // The watcher reports real, absolute paths: what they are compared with must be
        // too, or a repository opened as `.` (or through a symlink) matches no event.
        let mut git_dirs = vec![real_path(repo.git_dir())];
        if repo.common_dir() != repo.git_dir() {
            git_dirs.push(real_path(repo.common_dir()));
        }
        let work_dir = if worktree {
            Some(
                self.work_dir()
                    .map(real_path)
                    .ok_or_else(|| EngineError::NoWorkTree {
                        path: repo.git_dir().to_owned(),
                    })?,
            )
        } else {
            None
        };
        let (sender, wakes) = channel();
        let forward = sender.clone();
        let watcher = notify::recommended_watcher(move |event| {
            // The receiver is gone only once the watcher is dropped: nothing to tell.
            let _ = forward.send(Wake::Event(event));
        })
        .map_err(|err| self.unreadable(&err))?;
        let mut watching = RepoWatcher {
            watcher,
            wakes,
            sender,
            git_dirs,
            work_dir,
        };
        watching
            .watch_git_dirs()
            .map_err(|err| self.unreadable(&err))?;
        if let Some(root) = watching.work_dir.clone() {
            watching.watch_folders(&root);
        }
        Ok(watching)
    }
}

impl RepoWatcher {
    /// A handle that stops this watcher from another thread.
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle(self.sender.clone())
    }

    /// Waits for the next batch of relevant events and says what they may have moved;
    /// `None` once stopped.
    pub fn next_batch(&mut self) -> Option<Moved> {
        let mut moved = Moved::default();
        let mut began = None;
        loop {
            let wake = match began {
                None => self.wakes.recv().ok()?,
                Some(start) => {
                    let left = LONGEST_BATCH.saturating_sub(Instant::elapsed(&start));
                    match self.wakes.recv_timeout(QUIET.min(left)) {
                        Ok(wake) => wake,
                        Err(RecvTimeoutError::Timeout) => return Some(moved),
                        Err(RecvTimeoutError::Disconnected) => return None,
                    }
                }
            };
            let event = match wake {
                Wake::Stop => return None,
                Wake::Event(Ok(event)) => event,
                // A watch error (an overflowed queue): anything may have moved.
                Wake::Event(Err(_)) => {
                    moved = Moved {
                        refs: true,
                        files: self.work_dir.is_some(),
                    };
                    began.get_or_insert_with(Instant::now);
                    continue;
                }
            };
            if !matches!(
                event.kind,
                EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
            ) {
                continue;
            }
            let before = moved;
            for path in &event.paths {
                self.note(path, &event.kind, &mut moved);
            }
            if moved != before {
                began.get_or_insert_with(Instant::now);
            }
            if began.is_some_and(|start| start.elapsed() >= LONGEST_BATCH) {
                return Some(moved);
            }
        }
    }

    /// Records what an event on `path` may have moved, and watches a new folder.
    fn note(&mut self, path: &Path, kind: &EventKind, moved: &mut Moved) {
        if let Some(git_dir) = self.git_dirs.iter().find(|dir| path.starts_with(dir)) {
            moved.refs |= decides_tip(git_dir, path);
            return;
        }
        let Some(root) = self.work_dir.clone() else {
            return;
        };
        if !path.starts_with(&root) || path.components().any(|part| part.as_os_str() == ".git") {
            return;
        }
        moved.files = true;
        if matches!(kind, EventKind::Create(_)) && path.is_dir() {
            self.watch_folders(path);
        }
    }

    /// Watches each git folder itself (HEAD, `packed-refs`) and its `refs/` tree.
    fn watch_git_dirs(&mut self) -> notify::Result<()> {
        for dir in self.git_dirs.clone() {
            self.watcher.watch(&dir, RecursiveMode::NonRecursive)?;
            let refs = dir.join("refs");
            if refs.is_dir() {
                self.watcher.watch(&refs, RecursiveMode::Recursive)?;
            }
        }
        Ok(())
    }

    /// Watches `top` and every folder under it the working tree's commit reads (no ignore
    /// rule hides it, no nested repository holds it). A folder that
    /// vanished before its watch was added is skipped: its removal is an event already.
    fn watch_folders(&mut self, top: &Path) {
        for entry in crate::worktree_commit::committable_walk(top).flatten() {
            if entry.file_type().is_some_and(|kind| kind.is_dir()) {
                let _ = self
                    .watcher
                    .watch(entry.path(), RecursiveMode::NonRecursive);
            }
        }
    }
}

/// Does a change at `path` inside `git_dir` move what HEAD names: HEAD itself,
/// `packed-refs`, or a file under `refs/` (lock files are the writer's scratch)?
fn decides_tip(git_dir: &Path, path: &Path) -> bool {
    let Ok(inside) = path.strip_prefix(git_dir) else {
        return false;
    };
    if inside.extension().is_some_and(|ext| ext == "lock") {
        return false;
    }
    inside == Path::new("HEAD") || inside == Path::new("packed-refs") || inside.starts_with("refs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_head_refs_and_packed_refs_decide_the_tip() {
        let git = Path::new("/r/.git");
        for (path, decides) in [
            ("/r/.git/HEAD", true),
            ("/r/.git/packed-refs", true),
            ("/r/.git/refs/heads/main", true),
            ("/r/.git/refs/heads/main.lock", false),
            ("/r/.git/HEAD.lock", false),
            ("/r/.git/index", false),
            ("/r/.git/objects/ab/cdef", false),
            ("/r/.git/ORIG_HEAD", false),
            ("/r/other", false),
        ] {
            assert_eq!(decides_tip(git, Path::new(path)), decides, "{path}");
        }
    }
}
