//! The session-impact inputs and the plain data they carry.
//!
//! Owns: [`SessionWorld`] (one per loaded sessions file: parameters, sessions, decisions,
//! scanned repositories), [`Session`] (one per session line), [`SessionRepo`] (one per
//! repository, with its L-scan result) and [`ScannedCommit`] (one per commit id, HIGH
//! durability: created once with its numstat, never set again), and the value types
//! [`Instant`] (with the range of times keel reads, [`TIME_RANGE`], and [`TimeError`]).
//! Does not own: the exact numbers they carry ([`Decimal`], `crate::decimal`), reading
//! files or repositories ([`super::jsonl`], [`super::scan`]) or any rule applied to them
//! (`keel-queries`).

use crate::decimal::Decimal;
use crate::oid::Oid;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// An instant: nanoseconds since the Unix epoch, UTC. Every time keel compares (session
/// edges, commit dates, decision stamps) is one of these, whatever offset it was written in.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Instant(i64);

/// Nanoseconds in one minute.
pub const NANOS_PER_MINUTE: i64 = 60_000_000_000;
/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// The times keel reads, in words (the bounds of [`Instant::parse_rfc3339`]).
pub const TIME_RANGE: &str = "between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z";

/// The first instant keel reads, 1678-01-01T00:00:00Z. An `i64` of nanoseconds reaches from
/// September 1677 to April 2262; keel keeps to the whole years inside.
const EARLIEST_NANOS: i64 = -9_214_560_000 * NANOS_PER_SECOND;
/// The last instant keel reads, 2261-12-31T23:59:59.999999999Z.
const LATEST_NANOS: i64 = 9_214_646_400 * NANOS_PER_SECOND - 1;
/// The years of [`TIME_RANGE`].
const YEARS: std::ops::RangeInclusive<i64> = 1678..=2261;

/// Why a text is not an instant keel reads (a caller that prints a repair names
/// [`TIME_RANGE`] in it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    #[error("{text:?} is not an RFC 3339 timestamp with an offset")]
    NotRfc3339 { text: String },
    #[error("{text:?} is outside the times keel reads")]
    OutOfRange { text: String },
}

/// Whether the year `text` starts with (`2026-…`, `99999-…`, `-009999-…`) is one of
/// [`YEARS`]; `None` when it does not start with a year.
fn year_in_range(text: &str) -> Option<bool> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (digits, _) = unsigned.split_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // More digits than an i64 holds is far outside too.
    let Ok(year) = digits.parse::<i64>() else {
        return Some(false);
    };
    let year = if text.starts_with('-') { -year } else { year };
    Some(YEARS.contains(&year))
}

impl Instant {
    /// From nanoseconds since the epoch.
    pub const fn from_nanos(nanos: i64) -> Self {
        Self(nanos)
    }

    /// From whole seconds since the epoch (git's resolution), saturating.
    pub const fn from_secs(secs: i64) -> Self {
        Self(secs.saturating_mul(NANOS_PER_SECOND))
    }

    /// Nanoseconds since the epoch.
    pub const fn nanos(self) -> i64 {
        self.0
    }

    /// This instant moved by `minutes` (negative: earlier), saturating.
    pub const fn plus_minutes(self, minutes: i64) -> Self {
        Self(
            self.0
                .saturating_add(minutes.saturating_mul(NANOS_PER_MINUTE)),
        )
    }

    /// Parses an RFC 3339 timestamp (an offset is required) [`TIME_RANGE`]. A text that
    /// does not parse but starts with a year outside that range is out of range, not
    /// malformed: RFC 3339 cannot write such a year.
    pub fn parse_rfc3339(text: &str) -> Result<Self, TimeError> {
        let trimmed = text.trim();
        let out_of_range = || TimeError::OutOfRange {
            text: text.to_owned(),
        };
        let stamp: jiff::Timestamp = trimmed.parse().map_err(|_: jiff::Error| {
            if year_in_range(trimmed) == Some(false) {
                out_of_range()
            } else {
                TimeError::NotRfc3339 {
                    text: text.to_owned(),
                }
            }
        })?;
        i64::try_from(stamp.as_nanosecond())
            .ok()
            .filter(|nanos| (EARLIEST_NANOS..=LATEST_NANOS).contains(nanos))
            .map(Self)
            .ok_or_else(out_of_range)
    }

    /// RFC 3339 in UTC (`2026-01-15T10:00:00Z`).
    pub fn to_rfc3339(self) -> String {
        jiff::Timestamp::from_nanosecond(i128::from(self.0))
            .map_or_else(|_| format!("@{}ns", self.0), |t| t.to_string())
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Instant({})", self.to_rfc3339())
    }
}

/// One line of `sessions.jsonl`, validated.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionData {
    pub session_id: String,
    pub harness: String,
    pub start: Instant,
    pub end: Instant,
    /// `repo` as written (`None` for null or absent).
    pub repo: Option<String>,
    /// `repo` resolved: its real path when it exists, else the absolute path as written.
    pub repo_real: Option<PathBuf>,
    pub project: Option<String>,
    /// `cost.total` (0 when absent, with a warning; `None` when written `null`: unknown,
    /// an unpriced model).
    pub cost: Option<Decimal>,
    /// `api_calls` (0 when absent, with a warning).
    pub api_calls: u64,
    /// `tools`: tool name → calls (empty when absent, with a warning).
    pub tools: BTreeMap<String, u64>,
    /// Where the session was read (`sessions.jsonl:3`, a log file), for messages.
    pub origin: String,
}

/// One `commit_link` line of `decisions.jsonl`, validated. Other points are not kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DecisionData {
    pub ts: Instant,
    pub subject: String,
    /// `probabilities.yes`, `None` when the key is absent.
    pub yes: Option<Decimal>,
    /// 1-based line in the decisions file (a later line wins an exact `ts` tie).
    pub line: usize,
}

/// The run's parameters: clock, scope, where repositories come from, extra trailers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionParams {
    /// `--now`, or the clock when the run started.
    pub now: Instant,
    /// `--days`, else `[sessions] days`.
    pub days: u32,
    /// Repositories named by `--repo` or `[sessions] repos` (real paths, in order), or
    /// `None` when the repositories are the sessions' own.
    pub explicit_repos: Option<Vec<PathBuf>>,
    /// Where the explicit repositories were named (`--repo`, `keel.toml`), for messages.
    pub repos_origin: String,
    /// The sessions file as given, for messages (`sessions.jsonl:3`).
    pub sessions_file: String,
    /// `[trailers]` of `keel.toml`: harness id → case-insensitive regex.
    pub trailers: BTreeMap<String, String>,
}

/// What one commit changed, as `git log --numstat` counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Numstat {
    /// Files changed (a rename is one file; a binary file counts, with 0 lines).
    pub files: u32,
    pub added: u64,
    pub deleted: u64,
}

/// Whether a repository path could be scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RepoStatus {
    /// A git top-level (work tree root or bare repository): scanned.
    Scanned,
    /// The path exists but is not a git top-level: no commits.
    NotARepository,
    /// The path does not exist: no commits.
    Missing,
}

/// Everything one `keel sessions` run reads, in one input so queries have one key.
#[salsa::input(debug)]
pub struct SessionWorld {
    #[returns(ref)]
    pub params: SessionParams,
    /// Every session line, in file order.
    #[returns(ref)]
    pub sessions: Vec<Session>,
    /// Every `commit_link` decision, in file order.
    #[returns(ref)]
    pub decisions: Vec<DecisionData>,
    /// The scanned repositories, in plan order.
    #[returns(ref)]
    pub repos: Vec<SessionRepo>,
}

/// One session (one line of the sessions file).
#[salsa::input(debug)]
pub struct Session {
    #[returns(ref)]
    pub data: SessionData,
}

/// One repository and its L-scan.
#[salsa::input(debug)]
pub struct SessionRepo {
    /// Its real path (the key keel compares sessions' repos against).
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(copy)]
    pub status: RepoStatus,
    /// sha256[:12] of each `user.email` the repository's config resolves (all levels),
    /// trimmed and lower-cased before hashing.
    #[returns(ref)]
    pub local_emails: Vec<String>,
    /// The scanned commits (non-merge, author date in the scan range), sorted by id.
    #[returns(ref)]
    pub commits: Vec<ScannedCommit>,
    /// The default branch keel judged reachability from (`refs/remotes/origin/HEAD`'s
    /// target, `refs/heads/main`, `refs/heads/master` or `HEAD`).
    #[returns(ref)]
    pub default_branch: Option<String>,
    /// The scanned commits reachable from the default branch, sorted.
    #[returns(ref)]
    pub on_default_branch: Vec<Oid>,
}

/// One scanned commit: what L-scan keeps of it. Immutable once created.
#[salsa::input(debug)]
pub struct ScannedCommit {
    #[returns(copy)]
    pub id: Oid,
    /// Author date.
    #[returns(copy)]
    pub author_time: Instant,
    /// sha256[:12] of the author email, trimmed and lower-cased; the email itself is
    /// never kept.
    #[returns(ref)]
    pub author_email_sha: String,
    /// The message: read only for its trailer block and its `This reverts commit` line.
    #[returns(ref)]
    pub message: String,
    #[returns(copy)]
    pub numstat: Numstat,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<String, TimeError> {
        Instant::parse_rfc3339(text).map(Instant::to_rfc3339)
    }

    #[test]
    fn the_range_is_whole_years_from_1678_through_2261() {
        assert_eq!(
            parsed("1678-01-01T00:00:00Z").as_deref(),
            Ok("1678-01-01T00:00:00Z")
        );
        assert_eq!(
            parsed("2261-12-31T23:59:59.999999999Z").as_deref(),
            Ok("2261-12-31T23:59:59.999999999Z")
        );
        for text in [
            "1677-12-31T23:59:59Z",
            "2262-01-01T00:00:00Z",
            "2261-12-31T23:59:59-05:00",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "99999-01-01T00:00:00Z",
            "-009999-01-01T00:00:00Z",
            "123456789012345678901234-01-01T00:00:00Z",
        ] {
            let err = parsed(text).expect_err(text);
            assert_eq!(
                err,
                TimeError::OutOfRange {
                    text: text.to_owned()
                }
            );
            assert_eq!(
                err.to_string(),
                format!("{text:?} is outside the times keel reads")
            );
        }
    }

    #[test]
    fn a_malformed_time_is_not_called_out_of_range() {
        for text in [
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-01-15 10:00",
            "+02026-01",
        ] {
            let err = parsed(text).expect_err(text);
            assert_eq!(
                err.to_string(),
                format!("{text:?} is not an RFC 3339 timestamp with an offset")
            );
        }
    }
}
