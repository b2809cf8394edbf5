//! [`QueryLog`]: which derived queries salsa executed, and on which thread, for `--stats`
//! and for the tests that prove incrementality.
//!
//! Owns: recording `WillExecute` events as they happen and naming them afterwards.
//! Does not own: deciding what a query is (salsa) or rendering counts (`keel`).

use salsa::{DatabaseKeyIndex, Event, EventKind};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

/// A shared, append-only list of executed query keys, each with the thread that ran it.
#[derive(Clone, Default)]
pub struct QueryLog {
    executed: Arc<Mutex<Vec<(ThreadId, DatabaseKeyIndex)>>>,
}

impl QueryLog {
    /// Records one salsa event; only executions are kept.
    pub(crate) fn record(&self, event: &Event) {
        if let EventKind::WillExecute { database_key } = event.kind {
            self.lock().push((event.thread_id, database_key));
        }
    }

    /// Takes every execution recorded so far with its thread, leaving the log empty.
    pub fn take(&self) -> Vec<(ThreadId, DatabaseKeyIndex)> {
        std::mem::take(&mut *self.lock())
    }

    /// Takes the executions recorded so far on `thread`, leaving the others.
    pub fn take_of(&self, thread: ThreadId) -> Vec<DatabaseKeyIndex> {
        let mut executed = self.lock();
        let (of, others) = std::mem::take(&mut *executed)
            .into_iter()
            .partition(|(by, _)| *by == thread);
        *executed = others;
        of.into_iter().map(|(_, key)| key).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(ThreadId, DatabaseKeyIndex)>> {
        // Pushing a key cannot leave the vector inconsistent, so a poisoned lock is usable.
        self.executed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
