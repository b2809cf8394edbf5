//! Values kept beside salsa's memos, per file path, as the parse hints are: the latest
//! few made for each path, which the next computation for that path may reuse after
//! checking that they fit it. A kept value never changes an answer; losing one (to the
//! bound, or to another database resolving the same path in turn) costs only its reuse.
//!
//! Owns: the bound and the lock. Does not own: what is kept or when it fits (the replay
//! of a resolution, `resolve::replay`; the reuse of an interface, `interface`).

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
