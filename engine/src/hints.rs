//! [`HintStore`]: what one database keeps beside salsa's memos to make its next
//! computation cheaper — a file's last parse tree, its last call-site resolution, its last
//! interface — reached from every query as [`crate::Db::hints`], as objects are.
//!
//! A hint never changes an answer: whoever reads one checks that it fits before using it,
//! and without it computes the same value from scratch. So a hint is no input: salsa need
//! not see it, and losing one costs only time. What a hint may not do is cross databases —
//! two databases of one process (two tests, a watch loop and a one-shot lint) never see
//! each other's hints, and what a test counts of their reuse is its own database's.
//! Clones of a database (the threads of one lint) are the same database and share its
//! store.
//!
//! Owns: the store, one value per hint type, made on first use. Does not own: what a hint
//! is, when it fits or its bounds (each reader in `keel-queries` owns its own type).

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, PoisonError};

/// One value per hint type, each made on first use by its `Default`.
#[derive(Default)]
pub struct HintStore {
    slots: Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

impl HintStore {
    /// The store's hint of type `T` (its own locking inside), made empty on first use.
    pub fn get<T: Any + Default + Send + Sync>(&self) -> Arc<T> {
        // A poisoned lock only means a thread panicked while pushing a slot; every slot
        // is pushed whole.
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let wanted = TypeId::of::<T>();
        let slot = match slots.iter().find(|(kind, _)| *kind == wanted) {
            Some((_, slot)) => Arc::clone(slot),
            None => {
                let made: Arc<dyn Any + Send + Sync> = Arc::new(T::default());
                slots.push((wanted, Arc::clone(&made)));
                made
            }
        };
        drop(slots);
        // The slot was stored under `T`'s own type id, so it holds a `T`.
        slot.downcast::<T>()
            .unwrap_or_else(|_| Arc::new(T::default()))
    }
}

impl std::fmt::Debug for HintStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slots = self.slots.lock().map_or(0, |slots| slots.len());
        f.debug_struct("HintStore").field("kinds", &slots).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::HintStore;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Counter(Mutex<u32>);

    #[derive(Default)]
    struct Other(Mutex<u32>);

    #[test]
    fn one_value_per_type_per_store() {
        let store = HintStore::default();
        *store.get::<Counter>().0.lock().expect("unpoisoned") += 2;
        *store.get::<Counter>().0.lock().expect("unpoisoned") += 3;
        assert_eq!(*store.get::<Counter>().0.lock().expect("unpoisoned"), 5);
        assert_eq!(*store.get::<Other>().0.lock().expect("unpoisoned"), 0);
        let another = HintStore::default();
        assert_eq!(
            *another.get::<Counter>().0.lock().expect("unpoisoned"),
            0,
            "a store never sees another's hints"
        );
    }
}
