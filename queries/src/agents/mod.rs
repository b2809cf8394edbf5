//! Sessions from agent logs (`keel sessions` without `--sessions`, `keel sessions export`):
//! the engine's [`AgentLogs`] inputs become one [`AgentSession`] per session, priced.
//!
//! ### Flow
//! 1. [`log_claims`]: every file's lines, each counted record, call and tool assigned to
//!    one session ([`claims`], keel's rules for the logs' traps: one that several
//!    sessions hold goes to the session that started first, whatever the files are named).
//! 2. [`session_facts`]: one session's share of the claims. It re-runs whenever the claims
//!    do, but compares equal for every session an appended line did not touch, so
//! 3. [`agent_session`] (pricing, totals) re-runs only for the sessions that changed.
//! 4. [`agent_sessions`]: all of them, sorted by (start, session id), with the warnings.
//!
//! Owns: those queries, the session record and its sessions.jsonl form. Does not own: reading logs (the engine),
//! locating a session's repository on disk (the caller), or linking sessions to commits
//! (`crate::sessions`).

pub mod claims;
mod digest;
pub mod prices;

pub use claims::{CODEX_FALLBACK_MODEL, Claims, CountedCall, FileDigest, SessionFacts};
pub use digest::DigestTrouble;

use crate::sessions::exact::Fixed;
use claims::{DigestSessionRef, LogFile};
use keel_engine::Db;
use keel_engine::agents::{AgentLog, AgentLogs, ClaimsDigest, Tokens};
use keel_engine::sessions::{Decimal, Instant, SessionData};
use prices::{CallPrice, Unpriced, bundled_sum_cost, call_cost};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Decimals a session's cost keeps (a billionth of a cent).
const COST_SCALE: u32 = 11;

/// One session read from agent logs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AgentSession {
    pub session_id: Arc<str>,
    pub harness: String,
    pub start: Instant,
    pub end: Instant,
    /// The folder the session ran in, as written.
    pub cwd: Option<Arc<str>>,
    pub api_calls: u64,
    /// Tool name → calls.
    pub tools: BTreeMap<Arc<str>, u64>,
    pub tokens: Tokens,
    /// Distinct models of the counted calls, sorted.
    pub models: Vec<Arc<str>>,
    /// USD; `None` when a counted call could not be priced.
    pub cost: Option<Decimal>,
    /// Why calls went unpriced: (model, reason) pairs.
    pub unpriced: BTreeSet<(String, String)>,
    /// The first file that contributed.
    pub origin: String,
}

impl AgentSession {
    /// The session as a sessions.jsonl record, `repo` being where it ran (`repo` as the
    /// record writes it, and its real path) as the caller located it on disk.
    pub fn record(&self, repo: Option<(String, std::path::PathBuf)>) -> SessionData {
        let (repo, repo_real) = repo.unzip();
        SessionData {
            session_id: self.session_id.to_string(),
            harness: self.harness.clone(),
            start: self.start,
            end: self.end,
            repo,
            repo_real,
            project: self.cwd.as_deref().and_then(project_of),
            cost: self.cost.clone(),
            api_calls: self.api_calls,
            tools: self
                .tools
                .iter()
                .map(|(name, calls)| (name.to_string(), *calls))
                .collect(),
            origin: self.origin.clone(),
        }
    }
}

/// `basename(cwd)`, as written (never decoded from a folder name).
fn project_of(cwd: &str) -> Option<String> {
    cwd.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

/// Every session, and what keel flagged while reading them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentSessions {
    pub sessions: Vec<AgentSession>,
    pub warnings: Vec<String>,
}

/// A session's identity for the per-session queries.
#[salsa::interned(debug)]
pub struct AgentSessionKey<'db> {
    #[returns(ref)]
    pub harness: String,
    #[returns(ref)]
    pub id: Arc<str>,
}

/// Every file's lines (or the digest kept in their place), assigned to sessions.
#[salsa::tracked(returns(ref))]
pub fn log_claims(db: &dyn Db, logs: AgentLogs) -> Claims {
    let mut unreadable = Vec::new();
    let files: Vec<LogFile<'_>> = logs
        .files(db)
        .iter()
        .map(|&log| {
            let digest = match kept_digest(db, log) {
                Some(Ok(digest)) => Some(digest),
                Some(Err(reason)) => {
                    unreadable.push(format!(
                        "{}: the agent-log cache's digest of this log cannot be read ({reason}); its records are not counted; repair: run again with --no-cache, or remove the cache folder",
                        log.path(db).display()
                    ));
                    None
                }
                None if log.alone(db) => Some(claimed_alone(db, log)),
                None => None,
            };
            LogFile {
                log,
                lines: match digest {
                    Some(_) => Vec::new(),
                    None => log.chunks(db).iter().flat_map(|c| c.iter()).collect(),
                },
                digest,
            }
        })
        .collect();
    let mut claims = claims::claims_of(db, &files);
    claims.warnings.extend(unreadable);
    claims
}

/// The digest the user cache kept of a log in place of its lines, decoded (its calls
/// counted, not listed: [`kept_calls`]); `None` when the log holds its lines.
#[salsa::tracked(returns(ref))]
fn kept_digest(db: &dyn Db, log: AgentLog) -> Option<Result<FileDigest, DigestTrouble>> {
    log.digest(db)
        .as_ref()
        .map(|digest| digest::decode(digest.bytes()))
}

/// Each session's calls of a kept digest, in its session order (none when the log holds
/// its lines or its digest cannot be read, when no session refers to it).
#[salsa::tracked(returns(ref))]
fn kept_calls(db: &dyn Db, log: AgentLog) -> Vec<Vec<CountedCall>> {
    match (log.digest(db), kept_digest(db, log)) {
        (Some(digest), Some(Ok(facts))) => digest::calls(digest.bytes(), facts),
        _ => Vec::new(),
    }
}

/// The calls of one digest session: read from the kept digest's records, or from the
/// digest this process claimed of the log's lines.
fn digest_session_calls(db: &dyn Db, from: DigestSessionRef) -> &[CountedCall] {
    let calls = if from.log.digest(db).is_some() {
        kept_calls(db, from.log).get(from.session)
    } else {
        claimed_alone(db, from.log)
            .sessions
            .get(from.session)
            .map(|session| &session.facts.calls)
    };
    calls.map_or(&[], Vec::as_slice)
}

/// Every call counted toward a session: those claimed from lines, then each digest's.
pub fn session_calls<'db>(
    db: &'db dyn Db,
    facts: &'db SessionFacts,
) -> impl Iterator<Item = &'db CountedCall> + 'db {
    facts.calls.iter().chain(
        facts
            .kept
            .from
            .iter()
            .flat_map(move |&from| digest_session_calls(db, from)),
    )
}

/// A log whose records are its own, claimed by itself from its lines: one file's
/// claims and table prices, which an appended line to another log leaves alone.
#[salsa::tracked(returns(ref))]
fn claimed_alone(db: &dyn Db, log: AgentLog) -> FileDigest {
    let file = LogFile {
        log,
        lines: log.chunks(db).iter().flat_map(|c| c.iter()).collect(),
        digest: None,
    };
    claims::file_digest(db, &file)
}

/// The digest of a log read from its lines, for the user cache to keep in their place
/// (the engine asks only for a log whose records no other log shares); `None` for a log
/// that holds no lines.
pub fn log_digest(db: &dyn Db, log: AgentLog) -> Option<ClaimsDigest> {
    if log.digest(db).is_some() {
        return None;
    }
    digest::encode(claimed_alone(db, log))
        .ok()
        .map(ClaimsDigest::new)
}

/// One session's share of the claims (equal across revisions when its lines did not
/// change, which stops [`agent_session`] from re-running).
#[salsa::tracked(returns(ref))]
pub fn session_facts<'db>(
    db: &'db dyn Db,
    logs: AgentLogs,
    key: AgentSessionKey<'db>,
) -> SessionFacts {
    let id = (key.harness(db).clone(), key.id(db).clone());
    log_claims(db, logs)
        .sessions
        .get(&id)
        .cloned()
        .unwrap_or_default()
}

/// One session, totalled and priced; `None` for a session without a single timestamp.
#[salsa::tracked(returns(ref))]
pub fn agent_session<'db>(
    db: &'db dyn Db,
    logs: AgentLogs,
    key: AgentSessionKey<'db>,
) -> Option<AgentSession> {
    let facts = session_facts(db, logs, key);
    let (Some(start), Some(end)) = (facts.start, facts.end) else {
        return None;
    };
    let harness = key.harness(db);
    let overrides = logs.prices(db);
    let mut cost = Some(Fixed::zero());
    let mut unpriced = BTreeSet::new();
    let mut add = |model: &Arc<str>, priced: Result<Fixed, Unpriced>| match priced {
        Ok(price) => {
            if let Some(sum) = &mut cost {
                *sum += &price;
            }
        }
        Err(reason) => {
            cost = None;
            unpriced.insert((model.to_string(), reason_text(&reason)));
        }
    };
    // A model `[prices]` names is priced call by call by keel's formula; any other from
    // the bundled table's sums. The digests' call lists are read only for such a model.
    let models = facts.models();
    let overridden = models.iter().any(|model| overrides.contains_key(&**model));
    let calls = overridden.then(|| session_calls(db, facts));
    for call in calls.into_iter().flatten() {
        if overrides.contains_key(&*call.model) {
            let priced = call_cost(
                overrides,
                &CallPrice {
                    harness,
                    model: &call.model,
                    tokens: call.tokens,
                    fast: call.fast,
                    at: call.at,
                },
            );
            add(&call.model, priced);
        }
    }
    for ((model, fast), sum) in &facts.bundled {
        if !overrides.contains_key(&**model) {
            add(
                model,
                bundled_sum_cost(model, *fast, sum.as_deref().map(Fixed::decimal)),
            );
        }
    }
    Some(AgentSession {
        session_id: key.id(db).clone(),
        harness: harness.clone(),
        start,
        end,
        cwd: facts.cwd.clone(),
        api_calls: facts.api_calls(),
        tools: facts.tools.clone(),
        tokens: facts.tokens(),
        models: models.into_iter().collect(),
        cost: cost.map(|sum| sum.exact().to_decimal(COST_SCALE)),
        unpriced,
        origin: facts.origin.clone(),
    })
}

fn reason_text(reason: &Unpriced) -> String {
    match reason {
        Unpriced::Model => {
            "neither [prices] in keel.toml nor the bundled table knows it".to_owned()
        }
        Unpriced::MissingRate(rate) => format!("its [prices] entry has no {rate} rate"),
        Unpriced::Fast => {
            "its fast requests have no known multiplier (set fast_multiplier under [prices])"
                .to_owned()
        }
    }
}

/// Every session, sorted by (start, session id), and the warnings: the claims' own and
/// one per unpriced model.
#[salsa::tracked(returns(ref))]
pub fn agent_sessions(db: &dyn Db, logs: AgentLogs) -> AgentSessions {
    let claims = log_claims(db, logs);
    let mut warnings = claims.warnings.clone();
    let mut sessions = Vec::with_capacity(claims.sessions.len());
    let mut unpriced: BTreeMap<(String, String), u64> = BTreeMap::new();
    for (harness, id) in claims.sessions.keys() {
        let key = AgentSessionKey::new(db, harness.clone(), id.clone());
        let Some(session) = agent_session(db, logs, key) else {
            warnings.push(format!(
                "{}: session {id} has no timestamped record; not counted",
                claims.sessions[&(harness.clone(), id.clone())].origin
            ));
            continue;
        };
        for pair in &session.unpriced {
            *unpriced.entry(pair.clone()).or_default() += 1;
        }
        sessions.push(session.clone());
    }
    for ((model, reason), count) in unpriced {
        warnings.push(format!(
            "model {model:?} is unpriced: {reason}; the cost of {count} session(s) is unknown (null), never counted as 0; repair: add \"{model}\" = {{ input = …, output = …, cache_write_5m = …, cache_write_1h = …, cache_read = … }} under [prices] in keel.toml"
        ));
    }
    sessions.sort_by(|a, b| (a.start, &a.session_id).cmp(&(b.start, &b.session_id)));
    AgentSessions { sessions, warnings }
}
