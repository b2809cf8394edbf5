//! `keel sessions usage`: the agent logs' tokens and cost grouped by local day, week,
//! month, session, model, repository or harness, each group beside the commits its
//! sessions made that were kept and reverted — the join a token counter alone cannot make.
//!
//! ### Where each number goes
//! Every number sits in the group of its own timestamp, in the query's time zone:
//! - an API call's tokens and cost go to the local date of the call (so a session that
//!   runs past midnight splits between two days; a call without a time is dated at its
//!   session's start), its model's row, its session's harness and its session's own
//!   repository (the folder it ran in, as `keel sessions` labels repositories);
//! - a linked commit (as `keel sessions` links it: trailer links and decided window links;
//!   revert commits count for nothing, as there) goes to the local date of its author
//!   time, the repository it was made in, its session's harness, and the model of its
//!   session's latest call at or before that time (its first call's when none precedes
//!   it; `-` for a session without calls). A window link still waiting for a decision is
//!   counted apart, as pending.
//!
//! `--since`/`--until` keep what falls on those local dates, inclusive, in every grouping.
//! A week starts on Monday and is named by that Monday's date; a month is `YYYY-MM`. Cost
//! is exact until output; a call of a model keel cannot price makes its row's (and its
//! model's) cost unknown, never a partial sum, and is counted in `unpriced_calls`.
//!
//! Owns: the flags' values ([`UsageQuery`], refusing bad ones as [`UsageFlagError`]), the
//! grouping, and the report as `keel.sessions.usage.v1` JSON ([`usage_json`]).
//! Does not own: which calls count and what they cost (`crate::agents`), which commits a
//! session made and which were reverted (`links`, `report`), reading a time zone
//! (`keel_engine::zone`), or the text table (`keel`).

use super::exact::Exact;
use super::links::{assigned, linked_pairs, repo_label};
use super::report::{reverts, session_record};
use crate::agents::prices::{CallPrice, call_cost};
use crate::agents::{AgentSessionKey, agent_sessions, session_calls, session_facts};
use crate::json::Json;
use jiff::civil::Date;
use keel_engine::Db;
use keel_engine::agents::{AgentLogs, Tokens};
use keel_engine::sessions::{Instant, SessionWorld};
use keel_engine::zone::TimeZone;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The schema of `keel sessions usage --format json`.
pub const USAGE_SCHEMA: &str = "keel.sessions.usage.v1";

/// The key of groups whose model is unknown: commits of a session without calls.
pub const NO_MODEL: &str = "-";

/// What the rows group by (`--by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageBy {
    Day,
    Week,
    Month,
    Session,
    Model,
    Repo,
    Harness,
}

impl UsageBy {
    /// Every grouping, in the order `--help` lists them.
    pub const ALL: [UsageBy; 7] = [
        Self::Day,
        Self::Week,
        Self::Month,
        Self::Session,
        Self::Model,
        Self::Repo,
        Self::Harness,
    ];

    /// The name `--by` takes and the JSON writes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Week => "week",
            Self::Month => "month",
            Self::Session => "session",
            Self::Model => "model",
            Self::Repo => "repo",
            Self::Harness => "harness",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|by| by.name() == text)
    }
}

/// A flag value `keel sessions usage` refuses: each message names the flag and its repair.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageFlagError {
    #[error(
        "--by: {value:?} is not a grouping; repair: pass one of day, week, month, session, model, repo, harness"
    )]
    By { value: String },
    #[error(
        "{flag}: {value:?} is not a date; repair: pass a date as YYYY-MM-DD, e.g. {flag} 2026-01-15"
    )]
    Date { flag: &'static str, value: String },
    #[error(
        "--since {since} is after --until {until}; repair: pass a --since on or before --until (both dates are inclusive)"
    )]
    Range { since: String, until: String },
}

/// What to group, over which local dates, in which time zone.
#[derive(Debug, Clone)]
pub struct UsageQuery {
    pub by: UsageBy,
    /// The first local date kept, inclusive.
    pub since: Option<Date>,
    /// The last local date kept, inclusive.
    pub until: Option<Date>,
    pub zone: TimeZone,
    /// The zone's name as reports print it (`UTC`, `Europe/Berlin`).
    pub zone_name: String,
}

impl UsageQuery {
    /// The query the flags ask for; `zone` is the zone `zone_name` (as typed) named.
    pub fn new(
        by: &str,
        since: Option<&str>,
        until: Option<&str>,
        zone: TimeZone,
        zone_name: &str,
    ) -> Result<Self, UsageFlagError> {
        let by = UsageBy::parse(by).ok_or_else(|| UsageFlagError::By {
            value: by.to_owned(),
        })?;
        let since = since.map(|text| date("--since", text)).transpose()?;
        let until = until.map(|text| date("--until", text)).transpose()?;
        if let (Some(since), Some(until)) = (since, until)
            && since > until
        {
            return Err(UsageFlagError::Range {
                since: since.to_string(),
                until: until.to_string(),
            });
        }
        let zone_name = zone.iana_name().unwrap_or(zone_name).to_owned();
        Ok(Self {
            by,
            since,
            until,
            zone,
            zone_name,
        })
    }

    /// The local date of `at` in the query's zone.
    fn local_date(&self, at: Instant) -> Date {
        // Every `Instant` keel makes lies within 1678–2261, inside jiff's range; the
        // epoch stands in for one that did not.
        let stamp = jiff::Timestamp::from_nanosecond(i128::from(at.nanos()))
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        self.zone.to_datetime(stamp).date()
    }

    /// Whether a local date lies in `[since, until]`.
    fn keeps(&self, date: Date) -> bool {
        self.since.is_none_or(|since| since <= date) && self.until.is_none_or(|until| date <= until)
    }
}

/// A `YYYY-MM-DD` date (exactly that shape).
fn date(flag: &'static str, text: &str) -> Result<Date, UsageFlagError> {
    let refused = || UsageFlagError::Date {
        flag,
        value: text.to_owned(),
    };
    let shaped = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !shaped {
        return Err(refused());
    }
    text.parse::<Date>().map_err(|_| refused())
}

/// The week a date lies in, named by its Monday.
fn week_of(date: Date) -> Date {
    let back = i64::from(date.weekday().to_monday_zero_offset());
    // The Monday before the first date jiff knows does not exist; that date stands for it.
    date.checked_sub(jiff::Span::new().days(back))
        .unwrap_or(date)
}

/// The key of the time group a local date lies in (`None` for the other groupings).
fn time_key(by: UsageBy, date: Date) -> Option<String> {
    match by {
        UsageBy::Day => Some(date.to_string()),
        UsageBy::Week => Some(week_of(date).to_string()),
        UsageBy::Month => Some(format!("{:04}-{:02}", date.year(), date.month())),
        UsageBy::Session | UsageBy::Model | UsageBy::Repo | UsageBy::Harness => None,
    }
}

/// A session the items belong to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageSession {
    pub harness: String,
    pub id: Arc<str>,
    pub start: Instant,
    /// The label of the repository it ran in (`-` when unknown).
    pub repo: String,
}

/// What a commit of a linked record came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitFate {
    Kept,
    Reverted,
    /// Its window link waits for a decision.
    Pending,
}

/// One thing counted: an API call or a linked commit, with its time and session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageItem {
    pub at: Instant,
    /// Index into the sessions the items are grouped with.
    pub session: usize,
    pub what: Counted,
}

/// What an item counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counted {
    /// An API call: its model, tokens, and cost in USD (`None`: unpriced).
    Call {
        model: Arc<str>,
        tokens: Tokens,
        cost: Option<Exact>,
    },
    /// A commit: the model working when it was made, the repository it was made in.
    Commit {
        model: Option<Arc<str>>,
        repo: String,
        fate: CommitFate,
    },
}

/// Tokens, calls and cost of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageNumbers {
    pub tokens: Tokens,
    pub api_calls: u64,
    /// USD, exact; `None` when a call of the group could not be priced.
    pub cost: Option<Exact>,
    /// Calls of the group keel could not price.
    pub unpriced_calls: u64,
}

impl Default for UsageNumbers {
    /// No call: no tokens, and a known cost of 0.
    fn default() -> Self {
        Self {
            tokens: Tokens::default(),
            api_calls: 0,
            cost: Some(Exact::zero()),
            unpriced_calls: 0,
        }
    }
}

impl UsageNumbers {
    fn add_call(&mut self, tokens: &Tokens, cost: Option<&Exact>) {
        self.tokens.add(tokens);
        self.api_calls += 1;
        match cost {
            Some(cost) => self.cost = self.cost.as_ref().map(|sum| sum + cost),
            None => {
                self.cost = None;
                self.unpriced_calls += 1;
            }
        }
    }

    /// Cache writes at either rate.
    pub fn cache_creation(&self) -> u64 {
        self.tokens
            .cache_write_5m
            .saturating_add(self.tokens.cache_write_1h)
    }

    /// Every token: input, output, cache writes and cache reads.
    pub fn total_tokens(&self) -> u64 {
        self.tokens.total()
    }
}

/// One model's share of a row.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelUsage {
    pub model: String,
    pub usage: UsageNumbers,
}

/// One group.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UsageRow {
    /// The group's name: a date, a week's Monday, a month, a session id, a model, a
    /// repository label or a harness; `total` for the total row.
    pub key: String,
    pub usage: UsageNumbers,
    pub commits_kept: u64,
    pub commits_reverted: u64,
    /// Commits of window links that wait for a decision (counted in neither of the above).
    pub commits_pending: u64,
    /// The row's calls by model, sorted by model.
    pub models: Vec<ModelUsage>,
}

/// The whole answer.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageReport {
    pub by: UsageBy,
    pub zone: String,
    pub since: Option<String>,
    pub until: Option<String>,
    /// The groups: time groups in time order, sessions by start, the others by name.
    pub rows: Vec<UsageRow>,
    /// Every item in range once.
    pub total: UsageRow,
}

#[derive(Default)]
struct RowSum {
    usage: UsageNumbers,
    kept: u64,
    reverted: u64,
    pending: u64,
    models: BTreeMap<Arc<str>, UsageNumbers>,
}

impl RowSum {
    fn add(&mut self, what: &Counted) {
        match what {
            Counted::Call {
                model,
                tokens,
                cost,
            } => {
                self.usage.add_call(tokens, cost.as_ref());
                self.models
                    .entry(model.clone())
                    .or_default()
                    .add_call(tokens, cost.as_ref());
            }
            Counted::Commit { fate, .. } => match fate {
                CommitFate::Kept => self.kept += 1,
                CommitFate::Reverted => self.reverted += 1,
                CommitFate::Pending => self.pending += 1,
            },
        }
    }

    fn finish(self, key: String) -> UsageRow {
        UsageRow {
            key,
            usage: self.usage,
            commits_kept: self.kept,
            commits_reverted: self.reverted,
            commits_pending: self.pending,
            models: self
                .models
                .into_iter()
                .map(|(model, usage)| ModelUsage {
                    model: model.to_string(),
                    usage,
                })
                .collect(),
        }
    }
}

/// The rows of `items` (of `sessions`) under `query`.
pub fn group(sessions: &[UsageSession], items: &[UsageItem], query: &UsageQuery) -> UsageReport {
    // Sessions sort by (start, harness, id); every other group by its key alone.
    let mut rows: BTreeMap<(Option<Instant>, String, String), RowSum> = BTreeMap::new();
    let mut total = RowSum::default();
    for item in items {
        let date = query.local_date(item.at);
        if !query.keeps(date) {
            continue;
        }
        let session = &sessions[item.session];
        let sort = match query.by {
            UsageBy::Session => (
                Some(session.start),
                session.id.to_string(),
                session.harness.clone(),
            ),
            by => {
                let key = time_key(by, date).unwrap_or_else(|| match (by, &item.what) {
                    (UsageBy::Model, Counted::Call { model, .. }) => model.to_string(),
                    (UsageBy::Model, Counted::Commit { model, .. }) => {
                        model.as_deref().unwrap_or(NO_MODEL).to_owned()
                    }
                    (UsageBy::Repo, Counted::Call { .. }) => session.repo.clone(),
                    (UsageBy::Repo, Counted::Commit { repo, .. }) => repo.clone(),
                    _ => session.harness.clone(),
                });
                (None, key, String::new())
            }
        };
        rows.entry(sort).or_default().add(&item.what);
        total.add(&item.what);
    }
    UsageReport {
        by: query.by,
        zone: query.zone_name.clone(),
        since: query.since.map(|d| d.to_string()),
        until: query.until.map(|d| d.to_string()),
        rows: rows
            .into_iter()
            .map(|((_, key, _), sum)| sum.finish(key))
            .collect(),
        total: total.finish("total".to_owned()),
    }
}

/// Every session read from the agent logs and what it counts: each API call (priced as
/// the session was) and each commit `keel sessions` links it to in `world` (made from the
/// same sessions, with a scope that holds them all).
pub fn usage_items(
    db: &dyn Db,
    logs: AgentLogs,
    world: SessionWorld,
) -> (Vec<UsageSession>, Vec<UsageItem>) {
    let data: HashMap<(&str, &str), &keel_engine::sessions::SessionData> = world
        .sessions(db)
        .iter()
        .map(|s| s.data(db))
        .map(|d| ((d.harness.as_str(), d.session_id.as_str()), d))
        .collect();
    let mut sessions = Vec::new();
    let mut items = Vec::new();
    // Per session: its calls' (time, model), sorted, to name the model behind a commit.
    let mut call_models: Vec<Vec<(Instant, Arc<str>)>> = Vec::new();
    let mut index: HashMap<(String, Arc<str>), usize> = HashMap::new();
    let overrides = logs.prices(db);
    for session in &agent_sessions(db, logs).sessions {
        let repo = data
            .get(&(session.harness.as_str(), &*session.session_id))
            .and_then(|d| {
                d.repo_real
                    .as_deref()
                    .map(repo_label)
                    .or_else(|| d.project.clone())
            })
            .unwrap_or_else(|| NO_MODEL.to_owned());
        let at = sessions.len();
        index.insert((session.harness.clone(), session.session_id.clone()), at);
        sessions.push(UsageSession {
            harness: session.harness.clone(),
            id: session.session_id.clone(),
            start: session.start,
            repo,
        });
        let key = AgentSessionKey::new(db, session.harness.clone(), session.session_id.clone());
        let mut models = Vec::new();
        for call in session_calls(db, session_facts(db, logs, key)) {
            let cost = call_cost(
                overrides,
                &CallPrice {
                    harness: &session.harness,
                    model: &call.model,
                    tokens: call.tokens,
                    fast: call.fast,
                    at: call.at,
                },
            )
            .ok()
            .map(|cost| cost.exact());
            let when = call.at.unwrap_or(session.start);
            models.push((when, call.model.clone()));
            items.push(UsageItem {
                at: when,
                session: at,
                what: Counted::Call {
                    model: call.model.clone(),
                    tokens: call.tokens,
                    cost,
                },
            });
        }
        models.sort();
        call_models.push(models);
    }
    for &(session, repo) in linked_pairs(db, world) {
        let data = session.data(db);
        let key = (
            data.harness.clone(),
            Arc::<str>::from(data.session_id.as_str()),
        );
        let (Some(&at), Some(draft), Some(link)) = (
            index.get(&key),
            session_record(db, world, session, repo),
            assigned(db, world, session, repo),
        ) else {
            continue;
        };
        let reverts = reverts(db, repo);
        let label = repo_label(repo.path(db));
        for commit in &link.commits {
            let id = commit.id(db);
            if reverts.revert_commits.contains(&id) {
                continue;
            }
            let fate = if draft.link_p.is_none() {
                CommitFate::Pending
            } else if reverts.reverted_by.contains_key(&id) {
                CommitFate::Reverted
            } else {
                CommitFate::Kept
            };
            let when = commit.author_time(db);
            items.push(UsageItem {
                at: when,
                session: at,
                what: Counted::Commit {
                    model: model_at(&call_models[at], when),
                    repo: label.clone(),
                    fate,
                },
            });
        }
    }
    (sessions, items)
}

/// The model of the latest call at or before `at` (the first call's when none precedes it).
fn model_at(calls: &[(Instant, Arc<str>)], at: Instant) -> Option<Arc<str>> {
    let before = calls.partition_point(|(when, _)| *when <= at);
    calls
        .get(before.saturating_sub(1))
        .map(|(_, model)| model.clone())
}

/// The report of `query` over the agent logs and the links of `world`.
pub fn usage_report(
    db: &dyn Db,
    logs: Option<AgentLogs>,
    world: SessionWorld,
    query: &UsageQuery,
) -> UsageReport {
    let (sessions, items) = match logs {
        Some(logs) => usage_items(db, logs, world),
        None => (Vec::new(), Vec::new()),
    };
    group(&sessions, &items, query)
}

/// A cost as JSON: USD rounded once to 6 decimals (half to even), `null` when unknown.
fn cost_json(cost: Option<&Exact>) -> Json {
    cost.map_or(Json::Null, |cost| Json::Decimal(cost.to_decimal(6)))
}

fn numbers_json(usage: &UsageNumbers, out: &mut Vec<(&'static str, Json)>) {
    out.extend([
        ("api_calls", Json::number(usage.api_calls)),
        ("input", Json::number(usage.tokens.input)),
        ("output", Json::number(usage.tokens.output)),
        ("cache_creation", Json::number(usage.cache_creation())),
        ("cache_read", Json::number(usage.tokens.cache_read)),
        ("total_tokens", Json::number(usage.total_tokens())),
        ("cost", cost_json(usage.cost.as_ref())),
        ("unpriced_calls", Json::number(usage.unpriced_calls)),
    ]);
}

fn row_json(row: &UsageRow, key: bool) -> Json {
    let mut fields = Vec::new();
    if key {
        fields.push(("key", Json::string(&row.key)));
    }
    numbers_json(&row.usage, &mut fields);
    fields.extend([
        ("commits_kept", Json::number(row.commits_kept)),
        ("commits_reverted", Json::number(row.commits_reverted)),
        ("commits_pending", Json::number(row.commits_pending)),
    ]);
    let models = row
        .models
        .iter()
        .map(|m| {
            let mut fields = vec![("model", Json::string(&m.model))];
            numbers_json(&m.usage, &mut fields);
            Json::Object(fields)
        })
        .collect();
    fields.push(("models", Json::Array(models)));
    Json::Object(fields)
}

/// The report as `keel.sessions.usage.v1`: fixed key order, costs rounded once.
pub fn usage_json(report: &UsageReport) -> Json {
    let date = |d: &Option<String>| d.as_ref().map_or(Json::Null, Json::string);
    Json::Object(vec![
        ("schema", Json::string(USAGE_SCHEMA)),
        ("by", Json::string(report.by.name())),
        ("timezone", Json::string(&report.zone)),
        ("since", date(&report.since)),
        ("until", date(&report.until)),
        (
            "rows",
            Json::Array(report.rows.iter().map(|row| row_json(row, true)).collect()),
        ),
        ("total", row_json(&report.total, false)),
    ])
}

#[cfg(test)]
mod tests;
