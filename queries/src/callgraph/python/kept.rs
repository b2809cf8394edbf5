//! Values kept beside salsa's memos, per file path, as the parse hints are: the latest
//! few made for each path, which the next computation for that path may reuse after
//! checking that they fit it. A kept value never changes an answer; losing one (to the
//! bound, or to another database resolving the same path in turn) costs only its reuse.
//!
//! Owns: the bound and the lock, and counting what the kept values answered on this thread
//! ([`ReuseCounts`]). Does not own: what is kept or when it fits (the replay of a
//! resolution, `resolve::replay`; the reuse of an interface, `interface`).

use std::sync::{Arc, Mutex};

/// How many values are kept in all, and per path; the oldest is dropped first.
const KEPT: usize = 256;
const KEPT_PER_PATH: usize = 4;

/// The values kept for each path.
pub(crate) struct Kept<T> {
    values: Mutex<Vec<(String, Arc<T>)>>,
}

impl<T> Kept<T> {
    pub(crate) const fn new() -> Self {
        Self {
            values: Mutex::new(Vec::new()),
        }
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

/// What kept values answered on one thread since it started: the groups of Python call
/// sites a resolution evaluated and those a replay answered, and the interfaces taken
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

thread_local! {
    static COUNTS: std::cell::Cell<ReuseCounts> = const {
        std::cell::Cell::new(ReuseCounts {
            groups_evaluated: 0,
            groups_replayed: 0,
            interfaces_reused: 0,
        })
    };
}

/// This thread's [`ReuseCounts`].
pub fn reuse_counts() -> ReuseCounts {
    COUNTS.with(std::cell::Cell::get)
}

/// Counts on this thread.
pub(crate) fn count(update: impl FnOnce(&mut ReuseCounts)) {
    COUNTS.with(|cell| {
        let mut counts = cell.get();
        update(&mut counts);
        cell.set(counts);
    });
}
