//! keel-engine: the salsa database, its inputs, and everything that reads the world.
//!
//! ### Terminology
//! - *input*: a fact read from outside (a commit, the tip, the settings); only this
//!   crate creates inputs or calls their setters, and only through [`KeelDatabase::apply_changes`]
//!   after the database is opened.
//! - *object*: a git object named by its id; immutable, so reading one by id is a pure
//!   function of the id ([`objects::ObjectStore`]).
//! - *tip*: the commit lint judges (HEAD).
//!
//! Owns: opening a repository through gix (keel's read path never spawns `git`), walking
//! new commits into [`inputs::Commit`] inputs, reading `keel.toml`, the query event log,
//! and keel's one write into a repository: `keel ack`'s checkpoint commit ([`ack`]).
//! Does not own: any derived answer (that is `keel-queries`) or any rendering (`keel`).

pub mod ack;
pub mod agents;
pub mod allocator;
mod ancestors;
pub mod cache;
mod cache_file;
/// The length-prefixed layout of a cache body, also the queries' for what they keep in one.
pub use cache_file::{prefixed, split_prefixed};
pub mod changes;
pub mod database;
pub mod decimal;
pub mod events;
mod handle_pool;
pub mod hints;
pub mod hook;
pub mod inputs;
mod jsonl;
pub mod kept_lint;
pub mod memo;
pub mod message;
pub mod objects;
pub mod oid;
pub mod packed;
mod paths;
mod reach;
pub mod readings;
pub mod refusal;
pub mod sessions;
pub mod settings;
pub mod watch;
pub mod worktree;
pub mod worktree_commit;
mod worktree_files;
pub mod zone;

pub use changes::{ChangeEvent, ChangeResult};
pub use database::{Db, EngineError, KeelDatabase};
pub use hints::HintStore;
pub use oid::Oid;
pub use worktree_commit::WORKTREE;
