//! Judging a replay's tips side by side: threads of one database take the next tip in
//! turn, and the judged tips are handed back in tip order as they come in. Threads take
//! tips in turn, so the last version of a file was often parsed by another thread: before
//! judging a tip, a thread adopts, oldest first, the parse hints made for the tips judged
//! since its own last one (an older hint would only replace a newer one), so it splices
//! from the version before ([`HintBoard`]). A hint never changes an answer, so neither
//! the board nor the thread count changes what a tip's judgement is.
//!
//! Owns: the threads, the order tips are handed back in, and the board. Does not own:
//! judging one tip (the caller's closure, usually `lint::lint_at`) or what a tip's report
//! adds up to (`replay`).

use crate::extract::{Hints, adopt_hints, retire_thread, take_new_hints};
use keel_engine::inputs::Commit;
use keel_engine::{Db, HintStore};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, mpsc};

/// Judges `tips` on `threads` clones of `db`, each taking the next tip in turn, and hands
/// each judged tip to `deliver` in the order of `tips`, as soon as every tip before it has
/// been handed over. Stops at the first error of `judge` or `deliver`.
pub fn judge_in_turn<D, T, E>(
    db: &D,
    tips: &[Commit],
    threads: usize,
    judge: impl Fn(&D, Commit) -> Result<T, E> + Sync,
    mut deliver: impl FnMut(Commit, T) -> Result<(), E>,
) -> Result<(), E>
where
    D: Db + Clone + Send,
    T: Send,
    E: Send,
{
    let next = AtomicUsize::new(0);
    let board = HintBoard::new(threads);
    std::thread::scope(|scope| {
        let (sender, judged) = mpsc::channel();
        for worker in 0..threads {
            let (db, sender, next, board, judge) =
                (db.clone(), sender.clone(), &next, &board, &judge);
            scope.spawn(move || {
                loop {
                    let position = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&tip) = tips.get(position) else {
                        break;
                    };
                    board.catch_up(db.hints(), worker, position);
                    let outcome = judge(&db, tip);
                    board.post(db.hints(), worker, position);
                    // A closed channel: the caller stopped at an error.
                    if sender.send((position, tip, outcome)).is_err() {
                        break;
                    }
                }
                // What this thread made is on the board.
                retire_thread(db.hints());
            });
        }
        drop(sender);
        // Judged tips by position, until every one before them is handed over.
        let mut waiting = BTreeMap::new();
        let mut handed = 0;
        for (position, tip, outcome) in judged {
            waiting.insert(position, (tip, outcome?));
            while let Some((tip, judged)) = waiting.remove(&handed) {
                deliver(tip, judged)?;
                handed += 1;
            }
        }
        Ok(())
    })
}

/// The parse hints the threads of [`judge_in_turn`] hand each other.
struct HintBoard {
    state: Mutex<Board>,
}

struct Board {
    /// The hints made while judging each tip (by position), until every thread is past it.
    posted: BTreeMap<usize, Hints>,
    /// Each thread's last judged position.
    last: Vec<Option<usize>>,
}

impl HintBoard {
    fn new(threads: usize) -> Self {
        Self {
            state: Mutex::new(Board {
                posted: BTreeMap::new(),
                last: vec![None; threads],
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Board> {
        // Every update below leaves the board whole, so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Before `worker` judges `position`: adopts the hints made for the tips between its
    /// last one and this one.
    fn catch_up(&self, store: &HintStore, worker: usize, position: usize) {
        let newer: Vec<Hints> = {
            let board = self.lock();
            let after = board.last[worker].map_or(0, |last| last + 1);
            board
                .posted
                .range(after..position)
                .map(|(_, hints)| hints.clone())
                .collect()
        };
        for hints in newer {
            adopt_hints(store, hints);
        }
    }

    /// After `worker` judged `position`: posts the hints it made, and forgets the ones
    /// every thread is past.
    fn post(&self, store: &HintStore, worker: usize, position: usize) {
        let made = take_new_hints(store);
        let mut board = self.lock();
        board.posted.insert(position, made);
        board.last[worker] = Some(position);
        if let Some(oldest) = board.last.iter().copied().min().flatten() {
            board.posted = board.posted.split_off(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HintBoard;
    use crate::extract::testing::{FIRST, SECOND, bytes, on_new_thread, parsed_on_new_thread};
    use crate::extract::{Language, extract_reusing};
    use keel_engine::HintStore;

    #[test]
    fn a_thread_judging_the_next_tip_splices_from_the_hint_another_thread_posted() {
        let lineage = "replay_board.py";
        let board = HintBoard::new(2);
        let store = HintStore::default();
        on_new_thread(|| {
            board.catch_up(&store, 0, 0);
            extract_reusing(&store, Language::Python, lineage, &bytes(FIRST), None)
                .expect("parses");
            board.post(&store, 0, 0);
        });
        // The control: without the board the second version is parsed from scratch.
        let alone = parsed_on_new_thread(&store, lineage, SECOND, || {});
        let caught_up = parsed_on_new_thread(&store, lineage, SECOND, || {
            board.catch_up(&store, 1, 1);
        });
        assert_eq!((alone.full, alone.spliced), (1, 0), "{alone:?}");
        assert_eq!((caught_up.full, caught_up.spliced), (0, 1), "{caught_up:?}");
    }
    #[test]
    fn the_board_forgets_a_tip_once_every_thread_is_past_it() {
        let board = HintBoard::new(2);
        let store = HintStore::default();
        let posted = |board: &HintBoard| board.lock().posted.keys().copied().collect::<Vec<_>>();
        board.post(&store, 0, 0);
        assert_eq!(posted(&board), [0], "thread 1 has judged nothing yet");
        board.post(&store, 1, 1);
        assert_eq!(posted(&board), [0, 1]);
        board.post(&store, 0, 2);
        assert_eq!(posted(&board), [1, 2], "both threads are past tip 0");
        board.post(&store, 1, 3);
        assert_eq!(posted(&board), [2, 3]);
    }
}
