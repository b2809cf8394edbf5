//! Fragment memos: a Python file's facts in pieces (`facts::Chunk`), each memoized by
//! its text and what of its file its walk reads, so that an edit inside one function body
//! walks that function again and splices every other fragment's memo unchanged.
//!
//! Owns: the key of a fragment (`PythonFragment`: its text, the class around it, the
//! standing units under its name), its memo (`python_fragment`), the fragments of one
//! image (`ImageFragments`), and handing the memo the fragment's node in the tree its file
//! was just parsed into (`AtHand`, an entry of the database's hints keyed by the
//! fragment), so that a cold graph parses nothing twice. Without that node (no caller
//! hands one) the memo parses the fragment's text alone: the chunk is equal, so the entry
//! is a hint, not an input.
//! Does not own: what a fragment is and its walk (`facts::chunk`).

use super::facts::{self, Chunk, Fragment, Fragments};
use crate::extract::kinds::KindName as _;
use keel_engine::Db;
use salsa::plumbing::AsId as _;
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};
use tree_sitter::{Node, Tree};

/// What a fragment's walk reads: its text (from its first line's start), the class whose
/// body holds it (and whether that class is a node), and the standing units named by it
/// or under it.
#[salsa::interned(debug)]
pub struct PythonFragment<'db> {
    #[returns(ref)]
    pub(crate) text: Box<str>,
    #[returns(ref)]
    pub(crate) class: Option<(Box<str>, bool)>,
    #[returns(ref)]
    pub(crate) units: Vec<String>,
}

/// The facts of one fragment, with ids local to it; shared with the layouts of the files
/// spliced from it.
#[salsa::tracked(returns(ref))]
pub fn python_fragment<'db>(db: &'db dyn Db, fragment: PythonFragment<'db>) -> Arc<Chunk> {
    let text = fragment.text(db);
    let class = fragment
        .class(db)
        .as_ref()
        .map(|(name, node)| (&**name, *node));
    let units = fragment.units(db);
    let at_hand = db.hints().get::<FragmentsAtHand>().take(fragment.as_id());
    if let Some(at_hand) = &at_hand
        && let Some(node) = at_hand.node(text.len())
    {
        let chunk = facts::walk_in_tree(text, class, units, node, at_hand.text.start, at_hand.row);
        return Arc::new(chunk);
    }
    Arc::new(facts::walk_alone(db.hints(), text, class, units))
}

/// The fragment a caller is about to ask for: its file's tree, where its text lies in
/// it, and its node's byte range.
struct AtHand {
    tree: Tree,
    text: Range<usize>,
    row: usize,
    node: Range<usize>,
}

impl AtHand {
    /// The fragment's node, when the text it was handed for is `len` bytes long.
    fn node(&self, len: usize) -> Option<Node<'_>> {
        if self.text.len() != len {
            return None;
        }
        let mut node = self
            .tree
            .root_node()
            .descendant_for_byte_range(self.node.start, self.node.end)?;
        while node.byte_range() != self.node
            || !matches!(
                node.kind_name(),
                "function_definition" | "decorated_definition"
            )
        {
            node = node.parent()?;
        }
        Some(node)
    }
}

/// The fragments callers are about to ask [`python_fragment`] for, each by its key's
/// id: a hint of the database's store, set by [`ImageFragments::chunk`] just around its
/// call and taken by the memo when it runs. Keyed by the fragment, so a thread of the same
/// database asking for another fragment never takes this one's node.
#[derive(Default)]
struct FragmentsAtHand(Mutex<Vec<(salsa::Id, AtHand)>>);

impl FragmentsAtHand {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(salsa::Id, AtHand)>> {
        // Every update pushes or removes one whole entry.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn put(&self, fragment: salsa::Id, at_hand: AtHand) {
        self.lock().push((fragment, at_hand));
    }

    fn take(&self, fragment: salsa::Id) -> Option<AtHand> {
        let mut entries = self.lock();
        let index = entries.iter().position(|(id, _)| *id == fragment)?;
        Some(entries.swap_remove(index).1)
    }
}

/// The fragments of one image, read through their memos.
pub(crate) struct ImageFragments<'db> {
    db: &'db dyn Db,
    /// The image's standing units, sorted.
    units: Vec<&'db str>,
}

impl<'db> ImageFragments<'db> {
    pub(crate) fn new(db: &'db dyn Db, mut units: Vec<&'db str>) -> Self {
        units.sort_unstable();
        Self { db, units }
    }

    /// The units named `qualified` or nested in it.
    fn units_under(&self, qualified: &str) -> &[&'db str] {
        let start = self.units.partition_point(|unit| *unit < qualified);
        let count = self.units[start..]
            .iter()
            .take_while(|unit| {
                unit.strip_prefix(qualified)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            })
            .count();
        &self.units[start..start + count]
    }
}

impl Fragments for ImageFragments<'_> {
    fn chunk(&self, fragment: &Fragment<'_>) -> &Arc<Chunk> {
        // Borrowed: the key is copied only when it is new.
        let key = PythonFragment::new(
            self.db,
            fragment.text,
            fragment.class.map(|(name, node)| (name.into(), node)),
            self.units_under(fragment.qualified),
        );
        let at_hand = AtHand {
            tree: fragment.tree.clone(),
            text: fragment.byte_base..fragment.byte_base + fragment.text.len(),
            row: fragment.row_base,
            node: fragment.node.byte_range(),
        };
        let at_hands = self.db.hints().get::<FragmentsAtHand>();
        at_hands.put(key.as_id(), at_hand);
        let chunk = python_fragment(self.db, key);
        // The memo took it if it ran; if it was answered from memory, it is dropped here.
        at_hands.take(key.as_id());
        chunk
    }
}
