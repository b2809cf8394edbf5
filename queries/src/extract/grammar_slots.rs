//! Values kept per tree-sitter grammar in a few fixed slots, each taken by the first
//! grammar that asks: a field's id ([`super::fields`]) and a grammar's kind names
//! ([`super::kinds`]).
//!
//! Owns: finding (or filling) a grammar's slot. Does not own: what a slot holds, or what a
//! reader does when every slot belongs to another grammar.

use std::sync::OnceLock;
use tree_sitter::Language;

/// The value `slots` hold for `language`, made by `make` in the first free slot the first
/// time; `None` when every slot belongs to another grammar.
pub(crate) fn slot_for<'a, T>(
    slots: &'a [OnceLock<(Language, T)>],
    language: &Language,
    make: impl Fn() -> T,
) -> Option<&'a T> {
    slots.iter().find_map(|slot| {
        // A slot another grammar took first (even a moment ago, on another thread) is
        // passed over.
        let (grammar, value) = slot.get_or_init(|| (language.clone(), make()));
        (grammar == language).then_some(value)
    })
}
