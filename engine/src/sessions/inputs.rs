//! The session-impact inputs and the plain data they carry.
//!
//! Owns: [`SessionWorld`] (one per loaded sessions file: parameters, sessions, decisions,
//! scanned repositories), [`Session`] (one per session line), [`SessionRepo`] (one per
//! repository, with its L-scan result) and [`ScannedCommit`] (one per commit id, HIGH
//! durability: created once with its numstat, never set again), and the value types
//! [`Instant`] and [`Decimal`].
//! Does not own: reading files or repositories ([`super::jsonl`], [`super::scan`]) or any
//! rule applied to them (`keel-queries`).

use crate::oid::Oid;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// An instant: nanoseconds since the Unix epoch, UTC. Every time keel compares (session
/// edges, commit dates, decision stamps) is one of these, whatever offset it was written in.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instant(i64);

/// Nanoseconds in one minute.
pub const NANOS_PER_MINUTE: i64 = 60_000_000_000;
/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;

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

    /// Parses an RFC 3339 timestamp (an offset is required).
    pub fn parse_rfc3339(text: &str) -> Result<Self, String> {
        let stamp: jiff::Timestamp = text.trim().parse().map_err(|err: jiff::Error| {
            format!("{text:?} is not an RFC 3339 timestamp with an offset ({err})")
        })?;
        i64::try_from(stamp.as_nanosecond())
            .map(Self)
            .map_err(|_| format!("{text:?} is outside the years 1678..2262"))
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

/// A number exactly as the JSON line wrote it, kept as a plain decimal string
/// (`"2"`, `"0.01"`, `"-1.5"`; no exponent), so sums and shares can be exact.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Decimal(String);

impl Decimal {
    /// Zero.
    pub fn zero() -> Self {
        Self("0".to_owned())
    }

    /// The shortest decimal that reads back as `value` (what the writer most likely wrote).
    pub fn from_f64(value: f64) -> Self {
        let text = format!("{value}");
        if text == "-0" {
            return Self::zero();
        }
        Self(text)
    }

    /// A plain decimal (`-?digits(.digits)?`), `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
        let plain = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        (plain(whole) && plain(fraction)).then(|| Self(text.to_owned()))
    }

    /// The digits: an optional `-`, digits, optionally `.` and more digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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
