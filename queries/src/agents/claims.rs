//! Which session each log line counts toward, and what it counts, over all files at once:
//! keel's rules for agent logs (`notes/agent-logs.md`, "keel's rules").
//!
//! - A Claude record belongs to the session its `sessionId` names, else its file's; a
//!   `uuid` counts once over all files (first in path order); an API call is a distinct
//!   `message.id` over all files and sessions (first copy's session, the largest copy's
//!   usage; a `/btw` replay under a new request id is the same call).
//! - A Codex rollout is the session of its first `session_meta`, or of its spawner for a
//!   sub-agent; a file with a second `session_meta` (a fork or a sub-agent) replays its
//!   parent: the lines after that header stamped in the same second as the file's first
//!   line add nothing, and the last total they carry is the baseline. Each later
//!   `token_count` row adds its total's rise over the previous row as one call; a row
//!   without a total, or with an unchanged one, adds nothing; a fall starts a new baseline.
//!   The model is the last `turn_context`'s; a file without one is priced as `gpt-5`,
//!   flagged.
//! - A tool call counts once per id; `start`/`end` are the min/max timestamp of every
//!   counted record of the session.
//!
//! Owns: these rules. Does not own: prices (`super::prices`) or reading lines (the engine).

use keel_engine::agents::{AgentLog, Call, Cumulative, LogEvent, LogLine, Meta, Tokens};
use keel_engine::sessions::Instant;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// The model a Codex file without `turn_context` is priced as.
pub const CODEX_FALLBACK_MODEL: &str = "gpt-5";

/// A session's identity: harness and id.
pub type SessionId = (String, Arc<str>);

/// One counted API call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CountedCall {
    pub model: Arc<str>,
    pub tokens: Tokens,
    pub fast: bool,
    pub at: Option<Instant>,
}

/// Everything counted toward one session, before pricing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SessionFacts {
    pub start: Option<Instant>,
    pub end: Option<Instant>,
    /// The session's folder: Claude, the earliest record's `cwd`; Codex, its own first
    /// header's (a sub-agent's only when the spawner's file is absent).
    pub cwd: Option<Arc<str>>,
    cwd_rank: Option<(u8, i64)>,
    pub calls: Vec<CountedCall>,
    /// Tool name → calls.
    pub tools: BTreeMap<Arc<str>, u64>,
    /// The first file that contributed (for messages).
    pub origin: String,
}

impl SessionFacts {
    fn touch(&mut self, at: Option<Instant>) {
        let Some(at) = at else { return };
        self.start = Some(self.start.map_or(at, |start| start.min(at)));
        self.end = Some(self.end.map_or(at, |end| end.max(at)));
    }

    /// Offers a folder; the lowest (rank, time) wins, a record without a time last.
    fn offer_cwd(&mut self, rank: u8, at: Option<Instant>, cwd: Option<&Arc<str>>) {
        let Some(cwd) = cwd else { return };
        let key = (rank, at.map_or(i64::MAX, Instant::nanos));
        if self.cwd_rank.is_none_or(|known| key < known) {
            self.cwd_rank = Some(key);
            self.cwd = Some(cwd.clone());
        }
    }
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
    calls: FxHashMap<Arc<str>, CallSlot>,
    tools: FxHashSet<SlotKey>,
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
        if let Some(owned) = self.calls.get(&call.id) {
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
            call.id.clone(),
            CallSlot {
                session: slot,
                index,
            },
        );
    }

    fn records_file(
        &mut self,
        harness: &Arc<str>,
        log: &[&LogLine],
        file_session: Option<&Arc<str>>,
        origin: &str,
    ) {
        let mut orphans = Vec::new();
        for line in log {
            if let Some(uuid) = &line.uuid
                && !self.uuids.insert(uuid.clone())
            {
                continue;
            }
            let Some(id) = line.session.as_ref().or(file_session) else {
                orphans.push(line.line);
                continue;
            };
            let slot = self.slot(harness, id, origin);
            let facts = self.facts(slot);
            facts.touch(line.timestamp);
            facts.offer_cwd(0, line.timestamp, line.cwd.as_ref());
            self.count_tools(slot, line);
            if let LogEvent::Call(call) = &line.event {
                self.claude_call(slot, call, line.timestamp);
            }
        }
        if let Some(first) = orphans.first() {
            self.warnings.push(format!(
                "{origin}:{first}: {} record(s) name no session (no sessionId, and the file name names none); not counted",
                orphans.len()
            ));
        }
    }

    fn rollout_file(&mut self, harness: &Arc<str>, log: &[&LogLine], origin: &str) {
        let headers: Vec<(usize, &Meta)> = log
            .iter()
            .enumerate()
            .filter_map(|(index, line)| match &line.event {
                LogEvent::Meta(meta) => Some((index, meta)),
                _ => None,
            })
            .collect();
        let Some(&(_, first)) = headers.first() else {
            self.warnings.push(format!(
                "{origin}: no session_meta line; the file is not counted"
            ));
            return;
        };
        let owner = if first.subagent {
            first
                .spawned_by
                .clone()
                .or_else(|| headers.get(1).map(|(_, meta)| meta.id.clone()))
                .unwrap_or_else(|| first.id.clone())
        } else {
            first.id.clone()
        };
        let slot = self.slot(harness, &owner, origin);
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
        let mut previous: Option<Cumulative> = None;
        for (index, line) in log.iter().enumerate() {
            self.facts(slot).touch(line.timestamp);
            let in_replay = replay.contains(&index);
            match &line.event {
                LogEvent::Model(name) => model = name.clone(),
                LogEvent::Cumulative(Some(total)) => {
                    let rise = previous.and_then(|before| rise(&before, total));
                    let first_total = previous.is_none();
                    previous = Some(*total);
                    if in_replay {
                        continue;
                    }
                    let tokens = match (first_total, rise) {
                        (true, _) => Some(tokens_of(total)),
                        (false, rise) => rise,
                    };
                    if let Some(tokens) = tokens.filter(|tokens| tokens.total() > 0) {
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

    fn into_claims(self) -> Claims {
        let sessions = self
            .sessions
            .into_iter()
            .map(|((harness, id), facts)| ((harness.to_string(), id), facts))
            .collect();
        Claims {
            sessions,
            warnings: self.warnings,
        }
    }
}

/// A cumulative total as tokens (`input` without the cached part).
fn tokens_of(total: &Cumulative) -> Tokens {
    Tokens {
        input: total.input.saturating_sub(total.cached),
        output: total.output,
        cache_read: total.cached,
        ..Tokens::default()
    }
}

/// What a total added over the previous one; `None` when it did not rise.
fn rise(before: &Cumulative, after: &Cumulative) -> Option<Tokens> {
    if after.total <= before.total {
        return None;
    }
    let input = after.input.saturating_sub(before.input);
    let cached = after.cached.saturating_sub(before.cached);
    Some(Tokens {
        input: input.saturating_sub(cached),
        output: after.output.saturating_sub(before.output),
        cache_read: cached,
        ..Tokens::default()
    })
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

/// The claims over every file, in the order given (harness, then path): a file that
/// holds a session header is a rollout (Codex), any other a file of records (Claude Code).
pub fn claims_of(db: &dyn keel_engine::Db, files: &[(AgentLog, Vec<&LogLine>)]) -> Claims {
    let mut claimer = Claimer::default();
    for (log, lines) in files {
        let origin = log.path(db).display().to_string();
        let harness: Arc<str> = Arc::from(log.harness(db));
        if lines
            .iter()
            .any(|line| matches!(line.event, LogEvent::Meta(_)))
        {
            claimer.rollout_file(&harness, lines, &origin);
        } else {
            claimer.records_file(&harness, lines, log.file_session(db).as_ref(), &origin);
        }
    }
    claimer.into_claims()
}
