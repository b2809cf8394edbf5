//! The pool of repository handles an [`ObjectStore`](crate::objects::ObjectStore) reads
//! through, each with the blobs it read last.
//!
//! Owns: lending a handle to one read at a time, a thread's own handle first (the one it
//! returned last), [`RecentBlobs`], the few blobs a handle read last, and [`ReadPlan`],
//! the blobs its thread announced it is about to read, read together in pack order. A lint's
//! warming threads each walk their own contiguous stretch of history: handed back to its
//! own thread, a handle's delta bases (gix's pack cache) and recent blobs are those of
//! that stretch, where a plain stack would pass the other thread's last handle. A drift
//! judgement reads each blob about three times within a few reads (the hunks with its
//! parent, its units, the hunks with its child); the recent blobs answer the repeats
//! without inflating the object again. A file's versions are deltas of one another in
//! chains about five deep: read in history order, each read decodes its chain anew (gix
//! keeps the object a chain ends in, not the bases it passes through); read in the order
//! they lie in the pack (a delta's base lies before it), each finds its base among the
//! last objects decoded.
//! Does not own: which objects are read or what they mean (`objects`). Every cached value
//! is keyed by an object id, which names immutable content, so nothing here can change
//! an answer.

use crate::oid::Oid;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

/// How many blobs a handle keeps after reading them. A judgement's repeats come within a
/// few reads; with the handles back to their threads, a cold click lint executed 3% fewer
/// instructions with 8 (callgrind), the same as with 16.
const RECENT_BLOBS: usize = 8;

/// One repository handle and what it read last.
pub(crate) struct Handle {
    pub(crate) repo: gix::Repository,
    pub(crate) recent: RecentBlobs,
    pub(crate) plan: ReadPlan,
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
        let first = Handle::new(configure(repo));
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
        let mut handle = taken.unwrap_or_else(|| Handle::new(self.fresh()));
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

impl Handle {
    fn new(repo: gix::Repository) -> Self {
        Self {
            repo,
            recent: RecentBlobs::default(),
            plan: ReadPlan::default(),
        }
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

/// How many announced blobs are read together: a file's versions within this many of
/// each other find their delta bases among the last decoded. A cold click lint executed
/// as many instructions with 32, holding twice the bytes.
const PLAN_CHUNK: usize = 16;

/// Blobs a thread is about to read (a lint's stretch of one file's history, in the order
/// it reads them), read [`PLAN_CHUNK`] at a time in pack order, at the first of a chunk
/// that is not at hand, each kept until it is asked for (it is then among the handle's
/// recent blobs) or the next chunk is read. Nothing is read for blobs never asked for
/// (their answers already memoized).
#[derive(Default)]
pub(crate) struct ReadPlan {
    /// Announced, in reading order.
    planned: Vec<Oid>,
    /// Where the next chunk starts in `planned`.
    next: usize,
    /// The chunk's blobs not asked for yet.
    kept: Vec<(Oid, Arc<[u8]>)>,
}

impl ReadPlan {
    /// Replaces the plan (and drops what the last one kept).
    pub(crate) fn replace(&mut self, blobs: Vec<Oid>) {
        *self = Self {
            planned: blobs,
            ..Self::default()
        };
    }

    /// How many blobs read ahead wait to be asked for.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.kept.len()
    }

    /// The bytes of `oid` if the plan read it and it was not asked for since (a blob
    /// asked for again is then among the handle's recent blobs).
    pub(crate) fn take(&mut self, oid: Oid) -> Option<Arc<[u8]>> {
        let at = self.kept.iter().position(|(held, _)| *held == oid)?;
        Some(self.kept.swap_remove(at).1)
    }

    /// The chunk to read now because `oid` is asked for and not at hand: the announced
    /// blobs from `oid` on (and any skipped before it dropped), empty if `oid` is not
    /// among those still to read.
    pub(crate) fn chunk_for(&mut self, oid: Oid) -> Vec<Oid> {
        let Some(offset) = self.planned[self.next..]
            .iter()
            .position(|held| *held == oid)
        else {
            return Vec::new();
        };
        let start = self.next + offset;
        let end = (start + PLAN_CHUNK).min(self.planned.len());
        self.next = end;
        self.kept.clear();
        self.planned[start..end].to_vec()
    }

    /// Keeps the bytes of one blob of the chunk being read (until it is asked for, or
    /// the next chunk is read).
    pub(crate) fn keep(&mut self, oid: Oid, bytes: Arc<[u8]>) {
        self.kept.push((oid, bytes));
    }
}

impl HandlePool {
    /// `blobs` in the order they lie in their packs (a delta after its base); blobs
    /// not in a pack (loose) last, in their given order.
    pub(crate) fn pack_order(&self, blobs: Vec<Oid>) -> Vec<Oid> {
        use gix::odb::pack::Find as _;
        let mut lookup = self.fresh();
        // A pack located here must stay mapped while the locations are compared.
        lookup.objects.prevent_pack_unload();
        let mut buffer = Vec::new();
        let mut ordered: Vec<(usize, Oid)> = blobs.into_iter().enumerate().collect();
        ordered.sort_by_cached_key(|&(given, oid)| {
            let place = lookup
                .objects
                .location_by_oid(&oid.0, &mut buffer)
                .ok()
                .flatten()
                .map(|at| (at.pack_id, at.pack_offset));
            (place.is_none(), place, given)
        });
        ordered.into_iter().map(|(_, oid)| oid).collect()
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

    #[test]
    fn a_plan_is_read_a_chunk_at_a_time_from_the_blob_asked_for() {
        // Two chunks from blob 3 on, the second one short.
        let len = u8::try_from(3 + 2 * PLAN_CHUNK - 5).unwrap_or(u8::MAX);
        let planned: Vec<Oid> = (0..len).map(oid).collect();
        let mut plan = ReadPlan::default();
        plan.replace(planned.clone());
        // Unplanned: nothing to read.
        assert!(plan.chunk_for(oid(200)).is_empty());
        // Asked for blob 3 first: the chunk starts there (0..3 are skipped).
        assert_eq!(plan.chunk_for(oid(3)), planned[3..3 + PLAN_CHUNK]);
        for &blob in &planned[3..3 + PLAN_CHUNK] {
            plan.keep(blob, Arc::from(vec![blob.0.as_bytes()[0]]));
        }
        // A kept blob is handed out once, then left to the recent blobs.
        assert_eq!(plan.take(oid(4)).as_deref(), Some(&[4][..]));
        assert_eq!(plan.take(oid(4)), None);
        // A blob before the chunk, skipped, is not read ahead again.
        assert!(plan.chunk_for(oid(1)).is_empty());
        // The next chunk drops what the last one kept and ends with the plan.
        let second = u8::try_from(3 + PLAN_CHUNK).unwrap_or(u8::MAX);
        let rest = plan.chunk_for(oid(second));
        assert_eq!(rest, planned[3 + PLAN_CHUNK..]);
        assert_eq!(plan.take(oid(5)), None);
        // A new plan starts afresh.
        plan.replace(vec![oid(1)]);
        assert_eq!(plan.chunk_for(oid(1)), vec![oid(1)]);
    }
}
