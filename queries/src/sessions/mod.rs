//! Session impact (`keel sessions`): which AI coding-agent session made which commits, at
//! what cost, and what survived — the rules of `seeds/impact-specs.txt` as tracked queries.
//!
//! ### Terminology
//! - *in scope*: a session whose end lies in `[now − days, now]`.
//! - *window*: `[start − PRE_MIN, end + POST_MIN]`.
//! - *link*: a (session, repository) pair with commits; *record*: a link after decisions.
//! - *subject*: the decision key of a window record (L-subject).
//!
//! Owns: the rules L-repo … L-cost over the engine's session inputs. Does not own: reading
//! files or repositories (`keel_engine::sessions`: the caller hands [`scan_plan`] back as
//! `ChangeEvent::ScanPlanned`), nor rendering (`keel`).
//!
//! API boundary: [`scan_plan`], [`sessions_report`] and the report types; [`usage`]'s
//! `usage_report` and `usage_json` (`keel sessions usage`).

pub mod exact;
pub mod links;
pub mod report;
pub mod rules;
pub mod usage;

#[cfg(test)]
mod tests;

pub use links::{TrailerError, scan_plan};
pub use report::{
    Group, NodeTouched, Pending, Record, ReportError, SCHEMA, SessionTouched, SessionsReport,
    Summary, sessions_report, subject_of,
};
