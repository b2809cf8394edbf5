//! Which session made which commit: scope, the scan plan, L-repo, L-outside, L-window,
//! L-trailer, L-assign and L-candidate, as tracked queries.
//!
//! Owns: the in-scope sessions, the scan plan handed back to the engine, per-commit facts
//! (agent harness, revert target: memoized per commit, so a new session or commit never
//! re-reads old ones), repository membership, windows, the L-assign order, and the one
//! global assignment of commits to (session, repository) links.
//! Does not own: decisions, reverts, money or output (`report`).

use super::rules::{AGENT_TRAILERS, MIN_CALLS, POST_MIN, PRE_MIN, WRITE_TOOLS};
use crate::trailers::parse_trailers;
use keel_engine::Db;
use keel_engine::sessions::{
    Instant, PlannedRepo, RepoStatus, ScanPlan, ScannedCommit, Session, SessionData, SessionRepo,
    SessionWorld,
};
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// Minutes in a day.
const MINUTES_PER_DAY: i64 = 24 * 60;

/// A `[trailers]` regex keel cannot compile.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TrailerError {
    pub harness: String,
    pub message: String,
}

/// The agent trailer table in matching order: `keel.toml` entries (sorted by harness id)
/// first, then the built-ins they do not override.
#[derive(Clone, Debug)]
pub struct TrailerTable(Vec<(String, String, regex::Regex)>);

impl PartialEq for TrailerTable {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
    }
}

impl Eq for TrailerTable {}

impl TrailerTable {
    /// The harness the first matching trailer line names (lines in message order).
    pub fn harness_of(&self, lines: &[String]) -> Option<String> {
        lines.iter().find_map(|line| {
            self.0
                .iter()
                .find(|(_, _, regex)| regex.is_match(line))
                .map(|(harness, _, _)| harness.clone())
        })
    }
}

fn compile(harness: &str, pattern: &str) -> Result<regex::Regex, TrailerError> {
    keel_engine::settings::trailer_regex(pattern).map_err(|err| TrailerError {
        harness: harness.to_owned(),
        message: keel_engine::settings::regex_reason(&err),
    })
}

/// The agent trailer table of this run.
#[salsa::tracked(returns(ref))]
pub fn trailer_table(db: &dyn Db, world: SessionWorld) -> Result<TrailerTable, TrailerError> {
    let extra = &world.params(db).trailers;
    let mut table = Vec::new();
    for (harness, pattern) in extra {
        table.push((harness.clone(), pattern.clone(), compile(harness, pattern)?));
    }
    for (harness, patterns) in AGENT_TRAILERS {
        if extra.contains_key(*harness) {
            continue;
        }
        for pattern in *patterns {
            table.push((
                (*harness).to_owned(),
                (*pattern).to_owned(),
                compile(harness, pattern)?,
            ));
        }
    }
    Ok(TrailerTable(table))
}

/// The commit's trailer lines (`Key: value`, continuation lines unfolded), in order.
#[salsa::tracked(returns(ref))]
pub fn trailer_lines(db: &dyn Db, commit: ScannedCommit) -> Vec<String> {
    parse_trailers(commit.message(db))
        .into_iter()
        .map(|t| format!("{}: {}", t.key, t.value))
        .collect()
}

/// The harness the commit's agent trailer names, if any (L-trailer).
#[salsa::tracked(returns(clone))]
pub fn agent_harness(db: &dyn Db, world: SessionWorld, commit: ScannedCommit) -> Option<String> {
    let table = trailer_table(db, world).as_ref().ok()?;
    table.harness_of(trailer_lines(db, commit))
}

/// The sha prefix the commit's body names in its first `This reverts commit <7–64 hex>` (64 in a SHA-256 repository).
#[salsa::tracked(returns(clone))]
pub fn revert_target(db: &dyn Db, commit: ScannedCommit) -> Option<String> {
    revert_target_of(commit.message(db))
}

/// The body: everything after the subject paragraph.
fn body(message: &str) -> &str {
    let mut offset = 0;
    let mut seen_text = false;
    for line in message.split_inclusive('\n') {
        if line.trim().is_empty() {
            if seen_text {
                return &message[offset..];
            }
        } else {
            seen_text = true;
        }
        offset += line.len();
    }
    ""
}

/// Pure form of [`revert_target`].
pub fn revert_target_of(message: &str) -> Option<String> {
    const PHRASE: &str = "This reverts commit ";
    let body = body(message);
    let mut rest = body;
    while let Some(at) = rest.find(PHRASE) {
        let after = &rest[at + PHRASE.len()..];
        let hex: String = after.chars().take_while(char::is_ascii_hexdigit).collect();
        if (7..=64).contains(&hex.len()) {
            return Some(hex.to_ascii_lowercase());
        }
        rest = after;
    }
    None
}

/// Whether the session is in scope: `now − days ≤ end ≤ now`.
pub fn in_scope(data: &SessionData, now: Instant, days: u32) -> bool {
    let from = now.plus_minutes(-i64::from(days) * MINUTES_PER_DAY);
    from <= data.end && data.end <= now
}

/// The in-scope sessions, in file order.
#[salsa::tracked(returns(ref))]
pub fn in_scope_sessions(db: &dyn Db, world: SessionWorld) -> Vec<Session> {
    let params = world.params(db);
    world
        .sessions(db)
        .iter()
        .copied()
        .filter(|s| in_scope(s.data(db), params.now, params.days))
        .collect()
}

/// What to scan: the explicit repositories, else the in-scope sessions' own; from the
/// earliest in-scope start − `PRE_MIN`.
#[salsa::tracked(returns(clone))]
pub fn scan_plan(db: &dyn Db, world: SessionWorld) -> ScanPlan {
    let params = world.params(db);
    let sessions = in_scope_sessions(db, world);
    let since = sessions
        .iter()
        .map(|s| s.data(db).start.plus_minutes(-PRE_MIN))
        .min();
    let repos = match &params.explicit_repos {
        Some(paths) => paths
            .iter()
            .map(|path| PlannedRepo {
                path: path.clone(),
                origin: params.repos_origin.clone(),
            })
            .collect(),
        None => {
            let mut repos: Vec<PlannedRepo> = Vec::new();
            for session in sessions {
                let data = session.data(db);
                let Some(path) = &data.repo_real else {
                    continue;
                };
                if repos.iter().all(|r| &r.path != path) {
                    repos.push(PlannedRepo {
                        path: path.clone(),
                        origin: data.origin.clone(),
                    });
                }
            }
            repos
        }
    };
    ScanPlan { since, repos }
}

/// `basename(R)`, the label a repository's records and groups carry.
pub fn repo_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// L-repo: the session belongs to the repository at `path`.
pub fn is_member(data: &SessionData, path: &Path) -> bool {
    match &data.repo_real {
        Some(real) => real == path,
        None => data
            .project
            .as_deref()
            .is_some_and(|project| project == repo_label(path)),
    }
}

/// L-outside (only with explicit repositories, only for non-members): the session has no
/// repo, or its repo is a strict parent folder of `path` (path components, not text).
pub fn is_outside_candidate(data: &SessionData, path: &Path, explicit: bool) -> bool {
    if !explicit || is_member(data, path) {
        return false;
    }
    match &data.repo_real {
        None => true,
        Some(real) => path != real && path.starts_with(real),
    }
}

/// L-window: `[start − PRE_MIN, end + POST_MIN]`, inclusive.
pub fn window_holds(data: &SessionData, ts: Instant) -> bool {
    data.start.plus_minutes(-PRE_MIN) <= ts && ts <= data.end.plus_minutes(POST_MIN)
}

/// Whether the session used a write tool (a `WRITE_TOOLS` key with a count > 0).
pub fn used_write_tool(data: &SessionData) -> bool {
    data.tools
        .iter()
        .any(|(tool, &calls)| calls > 0 && WRITE_TOOLS.contains(&tool.as_str()))
}

/// Distance from `ts` to the session: 0 inside `[start, end]`, else to the nearer edge.
pub fn distance(data: &SessionData, ts: Instant) -> i64 {
    if ts < data.start {
        data.start.nanos() - ts.nanos()
    } else if ts > data.end {
        ts.nanos() - data.end.nanos()
    } else {
        0
    }
}

/// L-assign: `Less` when `a` comes before `b` for a commit at `ts`.
pub fn assign_order(a: &SessionData, b: &SessionData, ts: Instant) -> Ordering {
    let key = |s: &SessionData| {
        (
            Reverse(s.api_calls >= MIN_CALLS),
            Reverse(used_write_tool(s)),
            distance(s, ts),
            Reverse(s.api_calls),
            Reverse(s.start),
        )
    };
    key(a)
        .cmp(&key(b))
        .then_with(|| a.session_id.as_bytes().cmp(b.session_id.as_bytes()))
}

/// How a (session, repository) pair is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// L-trailer, the session a member of the repository: `link_p` 1.
    Trailer,
    /// L-trailer through L-outside: `link_p` = `OUTSIDE_P`.
    TrailerOutside,
    /// L-candidate: pending until decided.
    Window,
}

/// The commits assigned to one (session, repository) pair, sorted by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assigned {
    pub kind: LinkKind,
    pub commits: Vec<ScannedCommit>,
}

/// Every link of the run: (session, repository) → its commits. Trailer commits of every
/// repository first; window commits then only to sessions with no trailer link anywhere.
/// A commit goes to at most one session.
#[salsa::tracked(returns(ref))]
pub fn assignment(db: &dyn Db, world: SessionWorld) -> HashMap<(Session, SessionRepo), Assigned> {
    let explicit = world.params(db).explicit_repos.is_some();
    let sessions = in_scope_sessions(db, world);
    let repos: Vec<SessionRepo> = world
        .repos(db)
        .iter()
        .copied()
        .filter(|r| r.status(db) == RepoStatus::Scanned)
        .collect();
    let mut links: HashMap<(Session, SessionRepo), Assigned> = HashMap::new();
    let push = |links: &mut HashMap<_, Assigned>, key, kind, commit| {
        links
            .entry(key)
            .or_insert_with(|| Assigned {
                kind,
                commits: Vec::new(),
            })
            .commits
            .push(commit);
    };
    // L-assign: among the in-scope sessions `eligible` accepts, the first by the order.
    let pick = |ts: Instant, eligible: &dyn Fn(Session, &SessionData) -> bool| {
        sessions
            .iter()
            .copied()
            .filter(|&s| eligible(s, s.data(db)))
            .min_by(|a, b| assign_order(a.data(db), b.data(db), ts))
    };
    let mut trailer_linked: HashSet<Session> = HashSet::new();
    for &repo in &repos {
        let path = repo.path(db);
        for &commit in repo.commits(db) {
            let Some(harness) = agent_harness(db, world, commit) else {
                continue;
            };
            let ts = commit.author_time(db);
            let eligible = |_: Session, data: &SessionData| {
                data.harness == harness
                    && window_holds(data, ts)
                    && (is_member(data, path) || is_outside_candidate(data, path, explicit))
            };
            if let Some(session) = pick(ts, &eligible) {
                let kind = if is_member(session.data(db), path) {
                    LinkKind::Trailer
                } else {
                    LinkKind::TrailerOutside
                };
                trailer_linked.insert(session);
                push(&mut links, (session, repo), kind, commit);
            }
        }
    }
    for &repo in &repos {
        let path = repo.path(db);
        let local = repo.local_emails(db);
        for &commit in repo.commits(db) {
            if agent_harness(db, world, commit).is_some()
                || !local.contains(commit.author_email_sha(db))
            {
                continue;
            }
            let ts = commit.author_time(db);
            let eligible = |s: Session, data: &SessionData| {
                !trailer_linked.contains(&s) && is_member(data, path) && window_holds(data, ts)
            };
            if let Some(session) = pick(ts, &eligible) {
                push(&mut links, (session, repo), LinkKind::Window, commit);
            }
        }
    }
    for assigned in links.values_mut() {
        assigned.commits.sort_by_key(|c| c.id(db));
    }
    links
}

/// The link of one (session, repository) pair, if any: a narrow view of [`assignment`]
/// that stays equal (and so stops re-execution) when other pairs change.
#[salsa::tracked(returns(clone))]
pub fn assigned(
    db: &dyn Db,
    world: SessionWorld,
    session: Session,
    repo: SessionRepo,
) -> Option<Assigned> {
    assignment(db, world).get(&(session, repo)).cloned()
}

/// The (session, repository) pairs with a link, ordered by session id then label.
#[salsa::tracked(returns(ref))]
pub fn linked_pairs(db: &dyn Db, world: SessionWorld) -> Vec<(Session, SessionRepo)> {
    let mut pairs: Vec<(Session, SessionRepo)> = assignment(db, world).keys().copied().collect();
    let sort_key = |(s, r): &(Session, SessionRepo)| {
        (
            s.data(db).session_id.clone(),
            repo_label(r.path(db)),
            r.path(db).clone(),
        )
    };
    pairs.sort_by_cached_key(sort_key);
    pairs
}

/// Sessions sorted by id (for stable output), with their index in file order.
pub fn by_id(db: &dyn Db, sessions: &[Session]) -> BTreeMap<String, Session> {
    sessions
        .iter()
        .map(|&s| (s.data(db).session_id.clone(), s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revert_target_reads_the_body_only_and_7_to_40_hex() {
        assert_eq!(
            revert_target_of("Revert \"x\"\n\nThis reverts commit 0123456789abcdef.\n"),
            Some("0123456789abcdef".to_owned())
        );
        assert_eq!(
            revert_target_of("Revert\n\nThis reverts commit 012345.\n"),
            None,
            "six digits are too few"
        );
        assert_eq!(
            revert_target_of("This reverts commit 0123456789\n"),
            None,
            "a subject is not the body"
        );
        assert_eq!(
            revert_target_of("R\n\nThis reverts commit abc.\nThis reverts commit ABCDEF12.\n"),
            Some("abcdef12".to_owned()),
            "the first valid occurrence"
        );
    }
}
