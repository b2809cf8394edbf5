//! [`QueryLog`]: which derived queries salsa executed, for `--stats` and for the tests that
//! prove incrementality.
//!
//! Owns: recording `WillExecute` events as they happen and naming them afterwards.
//! Does not own: deciding what a query is (salsa) or rendering counts (`keel`).

use salsa::{DatabaseKeyIndex, Event, EventKind};
use std::sync::{Arc, Mutex, PoisonError};

/// A shared, append-only list of executed query keys.
#[derive(Clone, Default)]
pub struct QueryLog {
    executed: Arc<Mutex<Vec<DatabaseKeyIndex>>>,
}

impl QueryLog {
    /// Records one salsa event; only executions are kept.
    pub(crate) fn record(&self, event: &Event) {
        if let EventKind::WillExecute { database_key } = event.kind {
            self.lock().push(database_key);
        }
    }

    /// Takes every execution recorded so far, leaving the log empty.
    pub fn take(&self) -> Vec<DatabaseKeyIndex> {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<DatabaseKeyIndex>> {
        // Pushing a key cannot leave the vector inconsistent, so a poisoned lock is usable.
        self.executed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
