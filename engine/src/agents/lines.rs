//! The harness-neutral model of one log line: who it belongs to, when, and what it says
//! that keel counts (an API call with its usage, a cumulative usage total, a session
//! header, the model in use, tool calls).
//!
//! Owns: these value types. Does not own: reading a harness's JSON (each connector) or
//! counting (`keel-queries::agents`).

use crate::sessions::Instant;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Token counts of one API call (or one cumulative total). `input` excludes cached input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub cache_read: u64,
}

impl Tokens {
    /// Every token counted, whatever its rate.
    pub fn total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_write_5m)
            .saturating_add(self.cache_write_1h)
            .saturating_add(self.cache_read)
    }

    /// Adds `other` field by field, saturating.
    pub fn add(&mut self, other: &Tokens) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_write_5m = self.cache_write_5m.saturating_add(other.cache_write_5m);
        self.cache_write_1h = self.cache_write_1h.saturating_add(other.cache_write_1h);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
    }
}

/// One API call as a discrete record (Claude Code's assistant lines).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Call {
    /// The call's identity across files and sessions (Claude: `message.id`).
    pub id: Arc<str>,
    pub model: Arc<str>,
    pub tokens: Tokens,
    /// The request ran at the "fast" speed (priced with a multiplier).
    pub fast: bool,
}

/// Usage as Codex writes it: `input` includes the cached input, `output` the reasoning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RawUsage {
    pub input: u64,
    pub cached: u64,
    pub output: u64,
    pub total: u64,
}

/// A usage row (Codex's `token_count`): the session's running total
/// (`info.total_token_usage`) and, when the row carries it, the turn's own usage
/// (`info.last_token_usage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cumulative {
    pub total: RawUsage,
    pub last: Option<RawUsage>,
}

/// A session header (Codex's `session_meta`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Meta {
    pub id: Arc<str>,
    /// When the session was created (`payload.timestamp`).
    pub created: Option<Instant>,
    pub cwd: Option<Arc<str>>,
    /// A sub-agent's spawner: the thread whose session its work counts toward.
    pub spawned_by: Option<Arc<str>>,
    /// The header marks a sub-agent (`source.subagent`).
    pub subagent: bool,
}

/// One tool call, counted once per id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ToolUse {
    pub id: Arc<str>,
    pub name: Arc<str>,
}

/// What a line says that keel counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LogEvent {
    Call(Call),
    /// A usage row; `None` for a row without a total (`info: null`).
    Cumulative(Option<Cumulative>),
    Meta(Meta),
    /// The model in use from here on (Codex's `turn_context`).
    Model(Arc<str>),
    /// A message whose API calls may be written apart, as its steps (OpenCode): `message`
    /// is the id its steps name; `call` is the message as one call (its model, and the
    /// usage it carries), whose `id` is what a copy of the message shares with it (a
    /// forked session's clone has a new message id).
    Message {
        message: Arc<str>,
        call: Call,
    },
    /// One API call of a message, written apart from it (OpenCode's `step-finish`
    /// part): the model is its message's.
    Step {
        message: Arc<str>,
        tokens: Tokens,
    },
    /// Nothing but identity, time and tools.
    Plain,
}

/// One parsed log line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LogLine {
    /// 1-based line number in its file.
    pub line: u32,
    /// The session the record names (Claude's `sessionId`).
    pub session: Option<Arc<str>>,
    /// The record's identity (Claude's `uuid`): a replayed copy counts once.
    pub uuid: Option<Arc<str>>,
    pub timestamp: Option<Instant>,
    pub cwd: Option<Arc<str>>,
    pub tools: Vec<ToolUse>,
    pub event: LogEvent,
}
