//! The pool of repository handles an [`ObjectStore`](crate::objects::ObjectStore) reads
//! through, each with the blobs it read last.
//!
//! Owns: lending a handle to one read at a time, a thread's own handle first (the one it
//! returned last), and [`RecentBlobs`], the few blobs a handle read last. A lint's
//! warming threads each walk their own contiguous stretch of history: handed back to its
//! own thread, a handle's delta bases (gix's pack cache) and recent blobs are those of
//! that stretch, where a plain stack would pass the other thread's last handle. A drift
//! judgement reads each blob about three times within a few reads (the hunks with its
//! parent, its units, the hunks with its child); the recent blobs answer the repeats
//! without inflating the object again.
//! Does not own: which objects are read or what they mean (`objects`). Every cached value
//! is keyed by an object id, which names immutable content, so nothing here can change
//! an answer.

use crate::oid::Oid;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

/// How many blobs a handle keeps after reading them. A judgement's repeats come within a
/// few reads; a cold click lint executed 6% fewer instructions with 8 (callgrind), the
/// same as with 16.
const RECENT_BLOBS: usize = 8;

/// One repository handle and what it read last.
pub(crate) struct Handle {
    pub(crate) repo: gix::Repository,
    pub(crate) recent: RecentBlobs,
}

/// Handles over one shared object database, lent to one read at a time.
pub(crate) struct HandlePool {
    shared: gix::ThreadSafeRepository,
    /// Idle handles, each with the thread that returned it.
    idle: Mutex<Vec<(ThreadId, Handle)>>,
    /// Sets a new handle's cache sizes.
    configure: fn(gix::Repository) -> gix::Repository,
}

impl HandlePool {
    /// A pool holding `repo` (configured) as its first idle handle.
    pub(crate) fn new(
        repo: gix::Repository,
        configure: fn(gix::Repository) -> gix::Repository,
    ) -> Self {
        let shared = repo.clone().into_sync();
        let first = Handle {
            repo: configure(repo),
            recent: RecentBlobs::default(),
        };
        Self {
            shared,
            idle: Mutex::new(vec![(std::thread::current().id(), first)]),
            configure,
        }
    }

    /// A new configured handle on the shared database (refs read afresh through it).
    pub(crate) fn fresh(&self) -> gix::Repository {
        (self.configure)(self.shared.to_thread_local())
    }

    /// Runs `read` with a handle: the calling thread's own idle one if there is one, else
    /// any idle one, else a new one. Threads never wait on each other's reads.
    pub(crate) fn with_handle<T>(&self, read: impl FnOnce(&mut Handle) -> T) -> T {
        let me = std::thread::current().id();
        let taken = take_own(&mut self.lock_idle(), me);
        let mut handle = taken.unwrap_or_else(|| Handle {
            repo: self.fresh(),
            recent: RecentBlobs::default(),
        });
        let result = read(&mut handle);
        self.lock_idle().push((me, handle));
        result
    }

    fn lock_idle(&self) -> std::sync::MutexGuard<'_, Vec<(ThreadId, Handle)>> {
        // A panic while holding the lock cannot leave the list half-updated: it is only
        // pushed to and removed from, each one call.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The idle item `me` returned last, else the last returned by any thread.
fn take_own<T>(idle: &mut Vec<(ThreadId, T)>, me: ThreadId) -> Option<T> {
    match idle.iter().rposition(|(owner, _)| *owner == me) {
        Some(at) => Some(idle.remove(at).1),
        None => idle.pop().map(|(_, item)| item),
    }
}

/// The last [`RECENT_BLOBS`] blobs a handle read, most recent first.
#[derive(Default)]
pub(crate) struct RecentBlobs {
    blobs: VecDeque<(Oid, Arc<[u8]>)>,
}

impl RecentBlobs {
    /// The bytes of `oid` if it was read recently (it becomes the most recent).
    pub(crate) fn get(&mut self, oid: Oid) -> Option<Arc<[u8]>> {
        let at = self.blobs.iter().position(|(held, _)| *held == oid)?;
        let entry = self.blobs.remove(at)?;
        let bytes = Arc::clone(&entry.1);
        self.blobs.push_front(entry);
        Some(bytes)
    }

    /// Keeps `bytes` as the most recent, dropping the least recent past the bound.
    pub(crate) fn put(&mut self, oid: Oid, bytes: Arc<[u8]>) {
        self.blobs.retain(|(held, _)| *held != oid);
        self.blobs.push_front((oid, bytes));
        self.blobs.truncate(RECENT_BLOBS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oid(byte: u8) -> Oid {
        Oid(gix::ObjectId::from_bytes_or_panic(&[byte; 20]))
    }

    #[test]
    fn recent_blobs_keep_the_last_reads_and_drop_the_least_recent() {
        let mut recent = RecentBlobs::default();
        for byte in 0..u8::try_from(RECENT_BLOBS).unwrap_or(u8::MAX) {
            recent.put(oid(byte), Arc::from(vec![byte]));
        }
        // Reading the oldest makes it the most recent: the next put drops blob 1 instead.
        assert_eq!(recent.get(oid(0)).as_deref(), Some(&[0][..]));
        recent.put(oid(200), Arc::from(vec![200]));
        assert_eq!(recent.get(oid(1)), None);
        assert_eq!(recent.get(oid(0)).as_deref(), Some(&[0][..]));
        assert_eq!(recent.get(oid(200)).as_deref(), Some(&[200][..]));
        assert_eq!(recent.get(oid(2)).as_deref(), Some(&[2][..]));
        assert_eq!(recent.blobs.len(), RECENT_BLOBS);
    }

    #[test]
    fn a_thread_takes_back_the_handle_it_returned_else_the_last_returned() {
        let mine = std::thread::current().id();
        let other = std::thread::spawn(|| std::thread::current().id())
            .join()
            .unwrap_or(mine);
        assert_ne!(mine, other, "a spawned thread has its own id");
        let mut idle = vec![(mine, "mine"), (other, "other")];
        assert_eq!(take_own(&mut idle, mine), Some("mine"));
        assert_eq!(idle, vec![(other, "other")]);
        // No handle of its own: the last returned, whoever returned it.
        assert_eq!(take_own(&mut idle, mine), Some("other"));
        assert_eq!(take_own(&mut idle, mine), None);
    }
}
