//! keel-queries: every answer keel gives, derived purely from the engine's inputs.
//!
//! ### Terminology
//! - *image*: a blob read under a path; the unit of parsing and diffing.
//! - *unit*: a named declaration with a line range (`Session.refresh`, lines 12–30).
//! - *selector*: the name an anchor uses for a unit; *anchor*: `path#selector`.
//! - *hunk*: one zero-context change between two images.
//! - *version*: the newest commit that changed a node's `spec.md`; *window*: the commits
//!   since the version, minus those acknowledged with `Spec-OK`.
//! - *verdict*: what the one classifier says about a selector in an image.
//!
//! Owns: extraction, the pinned diff, anchors, specs, history, drift and lint as data.
//! Does not own: any IO (no file system, no git, no clock: objects come by id through
//! `keel_engine::Db`, everything else through inputs), nor printing (`keel`).
//!
//! API boundary: `lint::lint` and the types it returns.

#![deny(
    clippy::disallowed_methods,
    reason = "queries are pure: no file system, process, environment or clock (clippy.toml)"
)]

pub mod anchors;
pub mod diff;
pub mod drift;
pub mod events;
pub mod extract;
pub mod history;
pub mod images;
pub mod lineage;
pub mod lint;
pub mod renames;
pub mod sessions;
pub mod spec;
pub mod trailers;
pub mod tree;
pub mod window;
