//! Running a target and catching its panic quietly, with where it was raised.
//!
//! Owns: the process's panic hook while fuzzing — on a thread that is running a target it
//! records the panic's location and message instead of printing them; on any other thread
//! (a test that fails, the bench's own code) it hands the panic to the hook it replaced.
//! Does not own: what a crash means to a run ([`crate::run`]).

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

thread_local! {
    /// This thread is running a target: its panics are recorded, not printed.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// The last panic recorded on this thread.
    static LAST: RefCell<Option<Panic>> = const { RefCell::new(None) };
}

/// A caught panic: where it was raised (`file:line:column`) and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Panic {
    pub(crate) location: String,
    pub(crate) message: String,
}

/// Runs `target` on `input`; a panic is returned instead of unwinding further.
pub(crate) fn catch(target: fn(&[u8]), input: &[u8]) -> Result<(), Panic> {
    install_hook();
    QUIET.set(true);
    let result = panic::catch_unwind(AssertUnwindSafe(|| target(input)));
    QUIET.set(false);
    result.map_err(|_| {
        LAST.take().unwrap_or_else(|| Panic {
            location: "unknown".to_owned(),
            message: "a panic the hook did not see".to_owned(),
        })
    })
}

fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                LAST.set(Some(recorded(info)));
            } else {
                previous(info);
            }
        }));
    });
}

fn recorded(info: &PanicHookInfo<'_>) -> Panic {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    Panic {
        location: info
            .location()
            .map_or_else(|| "unknown".to_owned(), ToString::to_string),
        message,
    }
}
