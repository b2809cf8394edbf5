//! Which session each log line counts toward, and what it counts, over all files at once:
//! keel's rules for agent logs (`notes/agent-logs.md`, "keel's rules").
//!
//! - A Claude record belongs to the session its `sessionId` names, else its file's. A
//!   session *started* at its earliest record (every record naming it, copies included).
//!   Sessions are claimed in the order they started (the first file holding a record of
//!   theirs, in path order, breaks exact ties only), each one's records in path order, so
//!   a `uuid`, an API call or a tool seen in several sessions (a resumed session's
//!   replay) counts once, for the session that started first — never for whichever file
//!   name sorts first. An API call is a distinct `message.id` (with or without a request
//!   id; `<synthetic>` records are none), with its largest copy's usage; a `/btw` replay
//!   under a new request id is the same call.
//! - A Codex rollout is the session of its first `session_meta`, or, for a sub-agent, of
//!   the session its spawner counts toward (spawners are claimed before their
//!   sub-agents). A file with a second `session_meta` (a fork or a sub-agent) replays its
//!   parent: the lines after that header stamped in the same second as the file's first
//!   line add nothing, and the last total they carry is the baseline. Each other
//!   `token_count` row is one call when its total moved (over the row before, or over 0
//!   when there is none or the total fell: a restart) and it is not a total already
//!   counted for the session (parent rows a sub-agent replays with their own times); the
//!   call is worth the turn's own usage (`last_token_usage`) when the row carries it,
//!   else the total's rise. The model is the last `turn_context`'s; a file without one is
//!   priced as `gpt-5`, flagged.
//! - A tool call counts once per id; `start`/`end` are the min/max timestamp of every
//!   counted record of the session.
//!
//! A file of records whose identities no other file (and no second session of its own)
//! carries — the engine's [`RecordIds`](keel_engine::agents::RecordIds) says which — is
//! claimed the same by itself as among all files: its [`FileDigest`], the claims of that
//! file alone with each session's earliest time, stands in for its lines (the user cache
//! keeps it), and is folded into its sessions at the place its records would be claimed.
//! Its calls are folded in counted, summed and priced ([`KeptCalls`]), not copied: their
//! list stays in the digest ([`DigestSessionRef`]).
//!
//! Owns: these rules. Does not own: prices (`super::prices`) or reading lines (the engine).

use super::prices::bundled_price;
use crate::sessions::exact::Fixed;
use keel_engine::agents::{AgentLog, Call, Cumulative, LogEvent, LogLine, Meta, RawUsage, Tokens};
use keel_engine::sessions::Instant;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

/// The model a Codex file without `turn_context` is priced as.
pub const CODEX_FALLBACK_MODEL: &str = "gpt-5";

/// A session's identity: harness and id.
pub type SessionId = (String, Arc<str>);

/// One counted API call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CountedCall {
    pub model: Arc<str>,
    pub tokens: Tokens,
    pub fast: bool,
    pub at: Option<Instant>,
}

/// Everything counted toward one session, before pricing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct SessionFacts {
    pub start: Option<Instant>,
    pub end: Option<Instant>,
    /// The session's folder: Claude, the earliest record's `cwd`; Codex, its own first
    /// header's (a sub-agent's only when the spawner's file is absent).
    pub cwd: Option<Arc<str>>,
    cwd_rank: Option<(u8, i64)>,
    /// The calls claimed from lines.
    pub calls: Vec<CountedCall>,
    /// The calls digests brought.
    pub kept: KeptCalls,
    /// Tool name → calls.
    pub tools: BTreeMap<Arc<str>, u64>,
    /// The bundled table's prices of the calls, summed exactly per (model, fast request)
    /// and written whole ([`Fixed::to_text`]); `None` when the table does not know the
    /// model. Every call is in one sum, so pricing a session takes a few sums, not a
    /// table lookup per call.
    pub bundled: BTreeMap<(Arc<str>, bool), Option<String>>,
    /// The first file that contributed (for messages).
    pub origin: String,
}

/// Calls counted toward a session by digests: how many, their tokens and models. Their
/// list stays in each digest, read only when a call's own figures are needed
/// (`super::session_calls`); their table prices are in the session's `bundled` sums.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct KeptCalls {
    pub count: u64,
    pub tokens: Tokens,
    pub models: BTreeSet<Arc<str>>,
    /// Where the lists are. Never encoded: these are this process's inputs, and a digest
    /// is made from lines, where it is empty.
    #[serde(skip)]
    pub from: Vec<DigestSessionRef>,
}

/// One session of one log's digest: the session at `session` in its `sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DigestSessionRef {
    pub log: AgentLog,
    pub session: usize,
}

impl KeptCalls {
    /// Counts `calls` in.
    pub(crate) fn add_calls(&mut self, calls: &[CountedCall]) {
        self.count += calls.len() as u64;
        for call in calls {
            self.tokens.add(&call.tokens);
            if !self.models.contains(&call.model) {
                self.models.insert(call.model.clone());
            }
        }
    }

    /// Counts in what `other` counted (not where its lists are).
    fn add_counts(&mut self, other: &KeptCalls) {
        self.count += other.count;
        self.tokens.add(&other.tokens);
        self.models.extend(other.models.iter().cloned());
    }
}

impl SessionFacts {
    /// Every call counted toward the session, its own and its digests'.
    pub fn api_calls(&self) -> u64 {
        self.calls.len() as u64 + self.kept.count
    }

    /// The tokens of every call counted toward the session.
    pub fn tokens(&self) -> Tokens {
        let mut tokens = self.kept.tokens;
        for call in &self.calls {
            tokens.add(&call.tokens);
        }
        tokens
    }

    /// The models of every call counted toward the session, sorted, each once.
    pub fn models(&self) -> BTreeSet<Arc<str>> {
        let mut models = self.kept.models.clone();
        models.extend(self.calls.iter().map(|call| call.model.clone()));
        models
    }

    fn touch(&mut self, at: Option<Instant>) {
        let Some(at) = at else { return };
        self.start = Some(self.start.map_or(at, |start| start.min(at)));
        self.end = Some(self.end.map_or(at, |end| end.max(at)));
    }

    /// Offers a folder; the lowest (rank, time) wins, a record without a time last.
    fn offer_cwd(&mut self, rank: u8, at: Option<Instant>, cwd: Option<&Arc<str>>) {
        let Some(cwd) = cwd else { return };
        self.offer_ranked_cwd((rank, at.map_or(i64::MAX, Instant::nanos)), cwd);
    }

    /// Offers a folder under its (rank, time) key; the first of the lowest wins.
    fn offer_ranked_cwd(&mut self, key: (u8, i64), cwd: &Arc<str>) {
        if self.cwd_rank.is_none_or(|known| key < known) {
            self.cwd_rank = Some(key);
            self.cwd = Some(cwd.clone());
        }
    }

    /// Folds in the facts of the same session's records claimed apart (the digest's
    /// session `from`), as claiming those records here, one by one, would; its calls are
    /// counted, not copied.
    fn absorb(&mut self, other: &SessionFacts, from: DigestSessionRef) {
        self.touch(other.start);
        self.touch(other.end);
        if let (Some(key), Some(cwd)) = (other.cwd_rank, &other.cwd) {
            self.offer_ranked_cwd(key, cwd);
        }
        for (name, calls) in &other.tools {
            *self.tools.entry(name.clone()).or_default() += calls;
        }
        if other.api_calls() > 0 {
            self.kept.from.push(from);
        }
        self.kept.add_calls(&other.calls);
        self.kept.add_counts(&other.kept);
        for (key, sum) in &other.bundled {
            self.add_bundled(key.clone(), sum.as_deref().map(Fixed::decimal));
        }
    }

    /// Adds a sum of table prices to the session's sum for its (model, speed).
    fn add_bundled(&mut self, key: (Arc<str>, bool), sum: Option<Fixed>) {
        let known = self
            .bundled
            .entry(key)
            .or_insert_with(|| Some(Fixed::zero().to_text()));
        *known = match (known.take(), sum) {
            (Some(known), Some(sum)) => {
                let mut total = Fixed::decimal(&known);
                total += &sum;
                Some(total.to_text())
            }
            _ => None,
        };
    }

    /// Prices the calls claimed from lines by the bundled table, into the sums (the
    /// digests' calls came with theirs).
    fn price_calls(&mut self, harness: &str) {
        let mut sums: BTreeMap<(Arc<str>, bool), Option<Fixed>> = BTreeMap::new();
        for call in &self.calls {
            let price = bundled_price(harness, &call.model, call.tokens, call.at);
            let sum = sums
                .entry((call.model.clone(), call.fast))
                .or_insert_with(|| Some(Fixed::zero()));
            *sum = match (sum.take(), price) {
                (Some(mut sum), Some(price)) => {
                    sum += &price;
                    Some(sum)
                }
                _ => None,
            };
        }
        for (key, sum) in sums {
            self.add_bundled(key, sum);
        }
    }
}

/// A file of records claimed by itself: each of its sessions in the order the file meets
/// them, with the earliest time of any record naming it, and the warnings (records that
/// name no session).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileDigest {
    pub sessions: Vec<DigestSession>,
    pub warnings: Vec<String>,
}

/// One session of a [`FileDigest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DigestSession {
    /// The session the records name (before any spawner's session is put for it).
    pub id: Arc<str>,
    /// The earliest time of the file's records naming it, copies included.
    pub first: Option<Instant>,
    pub facts: SessionFacts,
}

/// The claims over all files: each session's facts, and what was flagged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Claims {
    pub sessions: BTreeMap<SessionId, SessionFacts>,
    pub warnings: Vec<String>,
}

/// Where an owned call sits, to replace its usage by a larger copy.
struct CallSlot {
    session: usize,
    index: usize,
}

/// A harness and a session id, as shared strings (a lookup key that allocates nothing).
type SlotKey = (Arc<str>, Arc<str>);

#[derive(Default)]
struct Claimer {
    /// Each session met so far, in the order met, and where each one is.
    sessions: Vec<(SlotKey, SessionFacts)>,
    slots: FxHashMap<SlotKey, usize>,
    warnings: Vec<String>,
    uuids: FxHashSet<Arc<str>>,
    calls: FxHashMap<SlotKey, CallSlot>,
    /// Each message's steps (OpenCode), in path order, by (harness, message id).
    steps: FxHashMap<SlotKey, Vec<Tokens>>,
    tools: FxHashSet<SlotKey>,
    /// The Codex totals each session counted a call for (by slot).
    totals: FxHashSet<(usize, RawUsage)>,
}

/// One log file and its lines (none when its digest stands in for them).
struct File<'a> {
    log: AgentLog,
    harness: Arc<str>,
    origin: String,
    file_session: Option<&'a Arc<str>>,
    /// The folder of records that name none.
    file_cwd: Option<&'a Arc<str>>,
    lines: &'a [&'a LogLine],
    digest: Option<&'a FileDigest>,
}

/// What a group holds of one file: a record, or a digest session's facts.
#[derive(Clone, Copy)]
enum Portion<'a> {
    Record(&'a LogLine),
    Digest(&'a SessionFacts, DigestSessionRef),
}

/// One session's records over all files, in path order, and its earliest time.
struct Group<'a> {
    key: SlotKey,
    first: Option<Instant>,
    /// (file index, portion).
    portions: Vec<(usize, Portion<'a>)>,
}

impl Claimer {
    /// The index of a session's facts, created on first sight with `origin`.
    fn slot(&mut self, harness: &Arc<str>, id: &Arc<str>, origin: &str) -> usize {
        let key = (harness.clone(), id.clone());
        if let Some(&slot) = self.slots.get(&key) {
            return slot;
        }
        let facts = SessionFacts {
            origin: origin.to_owned(),
            ..SessionFacts::default()
        };
        self.sessions.push((key.clone(), facts));
        self.slots.insert(key, self.sessions.len() - 1);
        self.sessions.len() - 1
    }

    fn facts(&mut self, slot: usize) -> &mut SessionFacts {
        &mut self.sessions[slot].1
    }

    fn count_tools(&mut self, slot: usize, line: &LogLine) {
        for tool in &line.tools {
            let harness = self.sessions[slot].0.0.clone();
            if self.tools.insert((harness, tool.id.clone())) {
                *self.facts(slot).tools.entry(tool.name.clone()).or_default() += 1;
            }
        }
    }

    fn claude_call(&mut self, slot: usize, call: &Call, at: Option<Instant>) {
        let key = (self.sessions[slot].0.0.clone(), call.id.clone());
        if let Some(owned) = self.calls.get(&key) {
            // Streaming writes early copies with placeholder counts: keep the largest.
            let owned = &mut self.sessions[owned.session].1.calls[owned.index];
            if call.tokens.total() > owned.tokens.total() {
                owned.tokens = call.tokens;
                owned.model = call.model.clone();
                owned.fast = call.fast;
            }
            return;
        }
        let calls = &mut self.sessions[slot].1.calls;
        calls.push(CountedCall {
            model: call.model.clone(),
            tokens: call.tokens,
            fast: call.fast,
            at,
        });
        let index = calls.len() - 1;
        self.calls.insert(
            key,
            CallSlot {
                session: slot,
                index,
            },
        );
    }

    /// A message whose calls may be its steps (OpenCode): each step one call at the
    /// message's model, else the message itself when it carries usage.
    fn message_calls(&mut self, slot: usize, message: &Arc<str>, call: &Call, at: Option<Instant>) {
        let harness = self.sessions[slot].0.0.clone();
        let Some(steps) = self.steps.get(&(harness.clone(), message.clone())) else {
            if call.tokens.total() > 0 {
                self.claude_call(slot, call, at);
            }
            return;
        };
        let key = (harness, call.id.clone());
        if self.calls.contains_key(&key) {
            return;
        }
        let counted: Vec<CountedCall> = steps
            .iter()
            .map(|tokens| CountedCall {
                model: call.model.clone(),
                tokens: *tokens,
                fast: false,
                at,
            })
            .collect();
        let calls = &mut self.sessions[slot].1.calls;
        let index = calls.len();
        calls.extend(counted);
        self.calls.insert(
            key,
            CallSlot {
                session: slot,
                index,
            },
        );
    }

    /// Files of records (Claude Code): each session's records gathered over all files,
    /// then claimed session by session in the order the sessions started.
    fn records_files(&mut self, files: &[File<'_>]) {
        let mut groups = self.record_groups(files);
        in_claim_order(&mut groups);
        self.claim_groups(&groups, files);
    }

    /// Claims each group's portions, group by group.
    fn claim_groups(&mut self, groups: &[Group<'_>], files: &[File<'_>]) {
        for group in groups {
            for &(at, portion) in &group.portions {
                let file = &files[at];
                match portion {
                    Portion::Record(line) => self.record(&group.key, line, file),
                    Portion::Digest(facts, from) => {
                        let slot = self.slot(&group.key.0, &group.key.1, &file.origin);
                        self.facts(slot).absorb(facts, from);
                    }
                }
            }
        }
    }

    /// Each session's portions over all files, in the order met (the warnings of steps
    /// without their message and of records naming no session said on the way).
    fn record_groups<'a>(&mut self, files: &'a [File<'a>]) -> Vec<Group<'a>> {
        // A session with a parent (OpenCode's sub-agents) counts toward its parent's.
        let spawners: FxHashMap<SlotKey, Arc<str>> = files
            .iter()
            .flat_map(|file| file.lines.iter().map(move |line| (file, line)))
            .filter_map(|(file, line)| match &line.event {
                LogEvent::Meta(meta) => meta
                    .spawned_by
                    .clone()
                    .filter(|parent| *parent != meta.id)
                    .map(|parent| ((file.harness.clone(), meta.id.clone()), parent)),
                _ => None,
            })
            .collect();
        let owner = |harness: &Arc<str>, id: &Arc<str>| -> Arc<str> {
            let mut owner = id.clone();
            let mut depth = 0;
            while let Some(parent) = spawners.get(&(harness.clone(), owner.clone()))
                && depth < spawners.len()
            {
                owner = parent.clone();
                depth += 1;
            }
            owner
        };
        let mut step_origins: BTreeMap<SlotKey, String> = BTreeMap::new();
        for file in files {
            for line in file.lines {
                if let LogEvent::Step { message, tokens } = &line.event {
                    let key = (file.harness.clone(), message.clone());
                    self.steps.entry(key.clone()).or_default().push(*tokens);
                    step_origins
                        .entry(key)
                        .or_insert_with(|| format!("{}:{}", file.origin, line.line));
                }
            }
        }
        let messages: FxHashSet<SlotKey> = files
            .iter()
            .flat_map(|file| file.lines.iter().map(move |line| (file, line)))
            .filter_map(|(file, line)| match &line.event {
                LogEvent::Message { message, .. } => Some((file.harness.clone(), message.clone())),
                _ => None,
            })
            .collect();
        for (key, origin) in &step_origins {
            if !messages.contains(key) {
                self.warnings.push(format!(
                    "{origin}: {} step(s) of message {} whose file keel did not find; not counted",
                    self.steps.get(key).map_or(0, Vec::len),
                    key.1
                ));
            }
        }
        let mut groups: Vec<Group<'a>> = Vec::new();
        let mut index: FxHashMap<SlotKey, usize> = FxHashMap::default();
        let mut group_of = |harness: &Arc<str>, id: &Arc<str>, groups: &mut Vec<Group<'a>>| {
            *index
                .entry((harness.clone(), id.clone()))
                .or_insert_with(|| {
                    groups.push(Group {
                        key: (harness.clone(), id.clone()),
                        first: None,
                        portions: Vec::new(),
                    });
                    groups.len() - 1
                })
        };
        for (at, file) in files.iter().enumerate() {
            if let Some(digest) = file.digest {
                for (index, session) in digest.sessions.iter().enumerate() {
                    let id = if spawners.is_empty() {
                        session.id.clone()
                    } else {
                        owner(&file.harness, &session.id)
                    };
                    let group = group_of(&file.harness, &id, &mut groups);
                    let group = &mut groups[group];
                    group.first = earliest(group.first, session.first);
                    let from = DigestSessionRef {
                        log: file.log,
                        session: index,
                    };
                    group
                        .portions
                        .push((at, Portion::Digest(&session.facts, from)));
                }
                self.warnings.extend(digest.warnings.iter().cloned());
                continue;
            }
            let mut orphans = Vec::new();
            let mut last: Option<(&Arc<str>, usize)> = None;
            for &line in file.lines {
                let Some(named) = line.session.as_ref().or(file.file_session) else {
                    orphans.push(line.line);
                    continue;
                };
                let resolved = if spawners.is_empty() {
                    None
                } else {
                    Some(owner(&file.harness, named))
                };
                let id = resolved.as_ref().unwrap_or(named);
                let group = match last {
                    Some((known, group)) if known == named => group,
                    _ => group_of(&file.harness, id, &mut groups),
                };
                last = Some((named, group));
                let group = &mut groups[group];
                group.first = earliest(group.first, line.timestamp);
                group.portions.push((at, Portion::Record(line)));
            }
            if let Some(first) = orphans.first() {
                self.warnings.push(format!(
                    "{}:{first}: {} record(s) name no session (no sessionId, and the file name names none); not counted",
                    file.origin,
                    orphans.len()
                ));
            }
        }
        groups
    }

    /// One record of a session: counted once per `uuid` (the first claim wins).
    fn record(&mut self, (harness, id): &SlotKey, line: &LogLine, file: &File<'_>) {
        if let Some(uuid) = &line.uuid
            && !self.uuids.insert(uuid.clone())
        {
            return;
        }
        let slot = self.slot(harness, id, &file.origin);
        let facts = self.facts(slot);
        facts.touch(line.timestamp);
        facts.offer_cwd(0, line.timestamp, line.cwd.as_ref().or(file.file_cwd));
        self.count_tools(slot, line);
        match &line.event {
            LogEvent::Call(call) => self.claude_call(slot, call, line.timestamp),
            LogEvent::Message { message, call } => {
                self.message_calls(slot, message, call, line.timestamp);
            }
            _ => {}
        }
    }

    /// Rollouts (Codex): each counted toward its session, a sub-agent toward the session
    /// its spawner counts toward, spawners first (then path order).
    fn rollout_files(&mut self, files: &[File<'_>]) {
        let headers: Vec<Vec<(usize, &Meta)>> = files
            .iter()
            .map(|file| {
                file.lines
                    .iter()
                    .enumerate()
                    .filter_map(|(index, line)| match &line.event {
                        LogEvent::Meta(meta) => Some((index, meta)),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        // A sub-agent's spawner: its `parent_thread_id`, else its file's second header.
        let spawners: FxHashMap<Arc<str>, Arc<str>> = headers
            .iter()
            .filter_map(|headers| {
                let (_, first) = headers.first()?;
                if !first.subagent {
                    return None;
                }
                let spawner = first
                    .spawned_by
                    .clone()
                    .or_else(|| headers.get(1).map(|(_, meta)| meta.id.clone()))?;
                (spawner != first.id).then(|| (first.id.clone(), spawner))
            })
            .collect();
        // (depth, file index, owner): a chain of spawners ends at the session it counts
        // toward (bounded, so a cycle cannot hang).
        let mut order: Vec<(usize, usize, Option<Arc<str>>)> = headers
            .iter()
            .enumerate()
            .map(|(at, headers)| {
                let Some((_, first)) = headers.first() else {
                    return (0, at, None);
                };
                let mut owner = first.id.clone();
                let mut depth = 0;
                while let Some(spawner) = spawners.get(&owner)
                    && depth < spawners.len()
                {
                    owner = spawner.clone();
                    depth += 1;
                }
                (depth, at, Some(owner))
            })
            .collect();
        order.sort_by_key(|&(depth, at, _)| (depth, at));
        for (_, at, owner) in order {
            self.rollout_file(&files[at], &headers[at], owner);
        }
    }

    fn rollout_file(
        &mut self,
        file: &File<'_>,
        headers: &[(usize, &Meta)],
        owner: Option<Arc<str>>,
    ) {
        let (log, origin) = (file.lines, file.origin.as_str());
        let (Some(&(_, first)), Some(owner)) = (headers.first(), owner) else {
            self.warnings.push(format!(
                "{origin}: no session_meta line; the file is not counted"
            ));
            return;
        };
        let slot = self.slot(&file.harness, &owner, origin);
        let replay = replayed(log, headers.get(1).map(|&(index, _)| index));
        let rank = u8::from(first.subagent);
        let created = first
            .created
            .or(log.first().and_then(|line| line.timestamp));
        self.facts(slot)
            .offer_cwd(rank, created, first.cwd.as_ref());
        let has_model = log
            .iter()
            .any(|line| matches!(line.event, LogEvent::Model(_)));
        if !has_model {
            self.warnings.push(format!(
                "{origin}: no turn_context line; its calls are priced as {CODEX_FALLBACK_MODEL}"
            ));
        }
        let mut model: Arc<str> = CODEX_FALLBACK_MODEL.into();
        let mut previous: Option<RawUsage> = None;
        for (index, line) in log.iter().enumerate() {
            self.facts(slot).touch(line.timestamp);
            let in_replay = replay.contains(&index);
            match &line.event {
                LogEvent::Model(name) => model = name.clone(),
                LogEvent::Cumulative(Some(row)) => {
                    let before = previous.replace(row.total);
                    if in_replay {
                        continue;
                    }
                    if let Some(tokens) = self.usage_row(slot, before.as_ref(), row) {
                        self.facts(slot).calls.push(CountedCall {
                            model: model.clone(),
                            tokens,
                            fast: false,
                            at: line.timestamp,
                        });
                    }
                }
                _ => {}
            }
            if !in_replay {
                self.count_tools(slot, line);
            }
        }
    }

    /// The call a usage row of session `slot` adds after the row `before` it in its file:
    /// none when its total did not move from `before` or is one the session already
    /// counted; else the turn's own usage when the row carries it, or the total's rise
    /// over `before` (over 0 when there is none, or when the total fell: a restart).
    fn usage_row(
        &mut self,
        slot: usize,
        before: Option<&RawUsage>,
        row: &Cumulative,
    ) -> Option<Tokens> {
        let base = before.filter(|before| before.total <= row.total.total);
        if row.total.total == base.map_or(0, |base| base.total)
            || !self.totals.insert((slot, row.total))
        {
            return None;
        }
        Some(match &row.last {
            Some(last) => usage_since(None, last),
            None => usage_since(base, &row.total),
        })
    }

    /// Each session met, in the order met, its calls priced by the bundled table.
    fn priced_sessions(&mut self) -> Vec<(SlotKey, SessionFacts)> {
        std::mem::take(&mut self.sessions)
            .into_iter()
            .map(|(key, mut facts)| {
                facts.price_calls(&key.0);
                (key, facts)
            })
            .collect()
    }

    fn into_claims(mut self) -> Claims {
        let sessions = self
            .priced_sessions()
            .into_iter()
            .map(|((harness, id), facts)| ((harness.to_string(), id), facts))
            .collect();
        Claims {
            sessions,
            warnings: self.warnings,
        }
    }
}

/// Sessions in the order they claim: the session that started first claims first; the
/// order met (path order) breaks exact ties; a session without a time comes last.
fn in_claim_order(groups: &mut [Group<'_>]) {
    groups.sort_by_key(|group| (group.first.is_none(), group.first));
}

/// The earlier of two times, a time before none.
fn earliest(known: Option<Instant>, at: Option<Instant>) -> Option<Instant> {
    match (known, at) {
        (Some(known), Some(at)) => Some(known.min(at)),
        (known, at) => known.or(at),
    }
}

/// The usage between two Codex figures (`base` none: from 0), as tokens: `input`
/// without its cached part, which is `cache_read`.
fn usage_since(base: Option<&RawUsage>, after: &RawUsage) -> Tokens {
    let base = base.copied().unwrap_or_default();
    let input = after.input.saturating_sub(base.input);
    let cached = after.cached.saturating_sub(base.cached);
    Tokens {
        input: input.saturating_sub(cached),
        output: after.output.saturating_sub(base.output),
        cache_read: cached,
        ..Tokens::default()
    }
}

/// The indexes of a fork's replayed lines: after its second header, while they are
/// stamped in the same second as the file's first line.
fn replayed(log: &[&LogLine], second_header: Option<usize>) -> HashSet<usize> {
    let Some(header) = second_header else {
        return HashSet::new();
    };
    let second_of = |line: &LogLine| {
        line.timestamp
            .map(|at| at.nanos().div_euclid(1_000_000_000))
    };
    let Some(created) = log.first().and_then(|line| second_of(line)) else {
        return HashSet::new();
    };
    (header..log.len())
        .take_while(|&index| index == header || second_of(log[index]) == Some(created))
        .collect()
}

/// One log file as the claims read it: its lines, or the digest kept in their place.
pub struct LogFile<'a> {
    pub log: AgentLog,
    pub lines: Vec<&'a LogLine>,
    pub digest: Option<&'a FileDigest>,
}

/// The file as the claimer holds it.
fn file_of<'a>(db: &'a dyn keel_engine::Db, file: &'a LogFile<'a>) -> File<'a> {
    File {
        log: file.log,
        harness: Arc::from(file.log.harness(db)),
        origin: file.log.path(db).display().to_string(),
        file_session: file.log.file_session(db).as_ref(),
        file_cwd: file.log.file_cwd(db).as_ref(),
        lines: &file.lines,
        digest: file.digest,
    }
}

/// The claims over every file, given in (harness, path) order: a Codex file that holds a
/// session header is a rollout, any other a file of records (Claude Code, Gemini CLI,
/// OpenCode).
pub fn claims_of(db: &dyn keel_engine::Db, files: &[LogFile<'_>]) -> Claims {
    let mut records = Vec::new();
    let mut rollouts = Vec::new();
    for file in files {
        // Codex rollouts; every other harness writes records (OpenCode's session
        // headers included).
        if file.log.harness(db) == "codex"
            && file
                .lines
                .iter()
                .any(|line| matches!(line.event, LogEvent::Meta(_)))
        {
            rollouts.push(file_of(db, file));
        } else {
            records.push(file_of(db, file));
        }
    }
    let mut claimer = Claimer::default();
    claimer.records_files(&records);
    claimer.rollout_files(&rollouts);
    claimer.into_claims()
}

/// The claims of one file of records by itself, as its digest: each session in the
/// order the file meets it, with its earliest time and its facts.
pub fn file_digest(db: &dyn keel_engine::Db, file: &LogFile<'_>) -> FileDigest {
    let files = [file_of(db, file)];
    let mut claimer = Claimer::default();
    let mut groups = claimer.record_groups(&files);
    let met: Vec<(SlotKey, Option<Instant>)> = groups
        .iter()
        .map(|group| (group.key.clone(), group.first))
        .collect();
    in_claim_order(&mut groups);
    claimer.claim_groups(&groups, &files);
    let mut facts: FxHashMap<SlotKey, SessionFacts> =
        claimer.priced_sessions().into_iter().collect();
    FileDigest {
        sessions: met
            .into_iter()
            .filter_map(|(key, first)| {
                let facts = facts.remove(&key)?;
                Some(DigestSession {
                    id: key.1,
                    first,
                    facts,
                })
            })
            .collect(),
        warnings: claimer.warnings,
    }
}
