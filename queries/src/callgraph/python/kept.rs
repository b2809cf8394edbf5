//! Values a database keeps beside salsa's memos, per file path, as the parse hints are:
//! the latest few made for each path, which the next computation for that path may reuse
//! after checking that they fit it. Each kind is a hint of the database's own store
//! (`Db::hints`), so no other database sees it. A kept value never changes an answer;
//! losing one (to the bound) costs only its reuse.
//!
//! Owns: the bound and the lock, and counting what the kept values answered in a database
//! ([`ReuseCounts`]). Does not own: what is kept or when it fits (the replay of a
//! resolution, `resolve::replay`; the reuse of an interface, `interface`).

use keel_engine::Db;
use std::sync::{Arc, Mutex, PoisonError};

/// How many values are kept in all, and per path; the oldest is dropped first.
const KEPT: usize = 256;
const KEPT_PER_PATH: usize = 4;

/// The values kept for each path.
pub(crate) struct Kept<T> {
    values: Mutex<Vec<(String, Arc<T>)>>,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Self {
            values: Mutex::new(Vec::new()),
        }
    }
}

impl<T: Send + Sync + 'static> Kept<T> {
    /// The values of this kind `db` keeps, a hint of its store.
    pub(crate) fn of(db: &dyn Db) -> Arc<Self> {
        db.hints().get::<Self>()
    }
    /// Keeps `value` as the latest made for `path`.
    pub(crate) fn remember(&self, path: &str, value: T) {
        let mut values = self.lock();
        let same_path = values.iter().filter(|(kept, _)| kept == path).count();
        if same_path >= KEPT_PER_PATH
            && let Some(oldest) = values.iter().position(|(kept, _)| kept == path)
        {
            values.remove(oldest);
        }
        if values.len() >= KEPT {
            values.remove(0);
        }
        values.push((path.to_owned(), Arc::new(value)));
    }

    /// The values kept for `path`, the latest first.
    pub(crate) fn recall(&self, path: &str) -> Vec<Arc<T>> {
        self.lock()
            .iter()
            .rev()
            .filter(|(kept, _)| kept == path)
            .map(|(_, value)| Arc::clone(value))
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Arc<T>)>> {
        // A poisoned lock only means a computation panicked while holding it; every
        // value is kept or dropped whole.
        self.values
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What kept values answered in one database since it was made: the groups of Python
/// call sites a resolution evaluated and those a replay answered, and the interfaces taken
/// from the last one made for their path. What tests and benches read to see the reuse.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReuseCounts {
    pub groups_evaluated: u64,
    pub groups_replayed: u64,
    pub interfaces_reused: u64,
}

impl ReuseCounts {
    /// What was counted between `earlier` and these counts.
    pub fn since(self, earlier: ReuseCounts) -> ReuseCounts {
        ReuseCounts {
            groups_evaluated: self.groups_evaluated - earlier.groups_evaluated,
            groups_replayed: self.groups_replayed - earlier.groups_replayed,
            interfaces_reused: self.interfaces_reused - earlier.interfaces_reused,
        }
    }
}

/// A database's [`ReuseCounts`], as a hint of its store.
#[derive(Default)]
struct Counted(Mutex<ReuseCounts>);

/// What kept values answered in `db` (and its clones) so far.
pub fn reuse_counts(db: &dyn Db) -> ReuseCounts {
    let counted = db.hints().get::<Counted>();
    // Every update leaves the counts whole.
    *counted.0.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Counts in `db`.
pub(crate) fn count(db: &dyn Db, update: impl FnOnce(&mut ReuseCounts)) {
    let counted = db.hints().get::<Counted>();
    update(&mut counted.0.lock().unwrap_or_else(PoisonError::into_inner));
}
