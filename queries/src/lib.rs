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
//! ### The facade
//! keel's front ends (the CLI, and next an editor's language server) use these families
//! and nothing else; `cli/tests/tidy.rs` holds the CLI to them:
//! - [`lint`]: drift as data — `lint` (and `lint_scope`, `lint_on_threads`), the report
//!   types, `lint_state_at` and `extend` for the kept answer, the finding codes;
//! - [`fresh`] (eval freshness), [`ack`] (what an ack checkpoint acknowledges), [`replay`]
//!   (lint at every tip of a range);
//! - [`callgraph`] and [`impact`]: the call graph and a patch's bounded impact;
//! - [`sessions`] and [`agents`]: session impact and the sessions read from agent logs;
//! - [`spec`]: the spec reader and node ids; [`units`]: the units of one file with the
//!   selector a spec writes for each (`keel units`, `keel init`);
//! - the work counters, [`ParseCounts`] and [`thread_parse_counts`].
//!
//! ### White-box modules
//! The other modules are the derivations the families are built from (extraction, the
//! pinned diff, anchors, history, lineage, events, windows, drift). They are public only
//! so that keel's own integration tests, benches and fuzz targets can check them piece by
//! piece (the diff against git, each extractor, the rename pairing, each query's reuse);
//! they are hidden from the docs and change without notice.

#![deny(
    clippy::disallowed_methods,
    reason = "queries are pure: no file system, process, environment or clock (clippy.toml)"
)]

pub mod ack;
pub mod agents;
pub mod callgraph;
pub mod fresh;
pub mod impact;
pub mod lint;
pub mod replay;
pub mod sessions;
pub mod spec;
pub mod touched;
pub mod units;

pub use extract::{ParseCounts, thread_parse_counts};

#[doc(hidden)]
pub mod anchors;
#[doc(hidden)]
pub mod cosmetic;
#[doc(hidden)]
pub mod diff;
#[doc(hidden)]
pub mod drift;
#[doc(hidden)]
pub mod events;
#[doc(hidden)]
pub mod extract;
#[doc(hidden)]
pub mod history;
#[doc(hidden)]
pub mod images;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod lineage;
#[doc(hidden)]
pub mod renames;
#[doc(hidden)]
pub mod trailers;
#[doc(hidden)]
pub mod tree;
#[doc(hidden)]
pub mod window;
