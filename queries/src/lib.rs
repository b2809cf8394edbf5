//! keel-queries: every answer keel gives, derived purely from the engine's inputs.
//!
//! ### Terminology
//! - *image*: a blob read under a path; the unit of parsing and diffing.
//! - *unit*: a named declaration with a line range (`Session.refresh`, lines 12–30).
//! - *selector*: the name an anchor uses for a unit; *anchor*: `path#selector`.
//! - *hunk*: one zero-context change between two images.
//! - *event*: a commit that authored a change at a path (a rename is one event keeping
//!   both paths; a merge authors only the lines it owns); *lineage*: the events that
//!   belong to a file at the tip, through its renames.
//! - *version*: an event of a node's `spec.md` lineage that authored spec content; *base*:
//!   the newest (walk order) of the versions no other version descends from; *window*: the
//!   commits reachable from the tip and not from the base, minus those acknowledged with
//!   `Spec-OK`.
//! - *verdict*: what the one classifier says about a selector in an image.
//!
//! Owns: extraction, the pinned diff, anchors, specs, history, drift and lint as data.
//! Does not own: any IO (no file system, no git, no clock: objects come by id through
//! `keel_engine::Db`, everything else through inputs), nor printing (`keel`).
//!
//! API boundary: `lint::lint` (and `lint_scope`, `lint_on_threads`) and the types it
//! returns; `lint::lint_state_at` for the state a report is assembled from, and
//! `lint::extend` to answer a later tip from a kept state.

#![deny(
    clippy::disallowed_methods,
    reason = "queries are pure: no file system, process, environment or clock (clippy.toml)"
)]

pub mod agents;
pub mod anchors;
pub mod callgraph;
pub mod diff;
pub mod drift;
pub mod events;
pub mod extract;
pub mod fresh;
pub mod history;
pub mod images;
pub mod impact;
pub mod json;
pub mod lineage;
pub mod lint;
pub mod renames;
pub mod replay;
pub mod sessions;
pub mod spec;
pub mod trailers;
pub mod tree;
pub mod window;
