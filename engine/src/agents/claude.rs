//! Claude Code's logs: `projects/<encoded cwd>/<sessionId>.jsonl` under each config
//! folder, with sub-agents nested (`<sessionId>/subagents/…jsonl`, older `agent-*.jsonl`).
//!
//! Owns: the default locations (`$CLAUDE_CONFIG_DIR` entries, else `~/.claude` and
//! `~/.config/claude`), a file's fallback session, and reading one record: `sessionId`,
//! `uuid`, `timestamp`, `cwd`, an assistant record's API call (`message.id`, model, usage
//! with its 5-minute/1-hour cache-write split, speed; with or without a `requestId`) and
//! its `tool_use` blocks.
//! Does not own: deduplication or attribution (`keel-queries::agents`). The encoded folder
//! name is never decoded: a session's folder is its records' `cwd`.

use super::{Call, Connector, HarnessId, LogEnv, LogEvent, LogLine, LogRoot, Tokens, ToolUse};
use crate::sessions::Instant;
use serde::Deserialize;
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The Claude Code connector.
pub struct ClaudeCode;

/// The model Claude Code writes on records that are not API calls.
const SYNTHETIC: &str = "<synthetic>";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    #[serde(rename = "type")]
    kind: Option<String>,
    session_id: Option<String>,
    uuid: Option<String>,
    timestamp: Option<String>,
    cwd: Option<String>,
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    id: Option<String>,
    model: Option<String>,
    #[serde(default)]
    content: ToolBlocks,
    usage: Option<Usage>,
}

#[derive(Deserialize, Default)]
struct Usage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    cache_creation: Option<CacheCreation>,
    speed: Option<String>,
}

#[derive(Deserialize)]
struct CacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: u64,
    #[serde(default)]
    ephemeral_1h_input_tokens: u64,
}

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    name: Option<String>,
}

/// The `tool_use` blocks of `message.content` (a string content has none).
#[derive(Default)]
struct ToolBlocks(Vec<ToolUse>);

impl<'de> Deserialize<'de> for ToolBlocks {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Blocks;
        impl<'de> Visitor<'de> for Blocks {
            type Value = ToolBlocks;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E>(self, _: &str) -> Result<ToolBlocks, E> {
                Ok(ToolBlocks::default())
            }
            fn visit_unit<E>(self) -> Result<ToolBlocks, E> {
                Ok(ToolBlocks::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ToolBlocks, A::Error> {
                let mut tools = Vec::new();
                while let Some(block) = seq.next_element::<Option<Block>>()? {
                    let Some(Block {
                        kind: Some(kind),
                        id: Some(id),
                        name: Some(name),
                    }) = block
                    else {
                        continue;
                    };
                    if kind == "tool_use" {
                        tools.push(ToolUse {
                            id: id.into(),
                            name: name.into(),
                        });
                    }
                }
                Ok(ToolBlocks(tools))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ToolBlocks, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ToolBlocks::default())
            }
        }
        deserializer.deserialize_any(Blocks)
    }
}

impl Usage {
    fn tokens(&self) -> Tokens {
        let (write_5m, write_1h) = match &self.cache_creation {
            Some(split) => {
                let split_total = split
                    .ephemeral_5m_input_tokens
                    .saturating_add(split.ephemeral_1h_input_tokens);
                // Writes the split does not account for are priced at the 5-minute rate.
                let rest = self.cache_creation_input_tokens.saturating_sub(split_total);
                (
                    split.ephemeral_5m_input_tokens.saturating_add(rest),
                    split.ephemeral_1h_input_tokens,
                )
            }
            None => (self.cache_creation_input_tokens, 0),
        };
        Tokens {
            input: self.input_tokens,
            output: self.output_tokens,
            cache_write_5m: write_5m,
            cache_write_1h: write_1h,
            cache_read: self.cache_read_input_tokens,
        }
    }
}

/// An RFC 3339 timestamp, or what is wrong with it.
pub(super) fn instant(text: &str) -> Result<Instant, String> {
    Instant::parse_rfc3339(text).map_err(|message| format!("timestamp: {message}"))
}

/// The API call an assistant record reports, if it is one: a message id and a model other
/// than `<synthetic>`. A `requestId` is not needed: third-party gateways and some Claude
/// Code 2.1.x builds write none, and the call's identity is its message id anyway (a
/// `/btw` replay reuses it under a new request id).
fn call(record: &Record) -> Option<Call> {
    if record.kind.as_deref() != Some("assistant") {
        return None;
    }
    let message = record.message.as_ref()?;
    let model = message.model.as_deref()?;
    if model == SYNTHETIC {
        return None;
    }
    Some(Call {
        id: message.id.as_deref()?.into(),
        model: model.into(),
        tokens: message
            .usage
            .as_ref()
            .map(Usage::tokens)
            .unwrap_or_default(),
        fast: message
            .usage
            .as_ref()
            .and_then(|usage| usage.speed.as_deref())
            == Some("fast"),
    })
}

impl Connector for ClaudeCode {
    fn harness(&self) -> HarnessId {
        "claude-code"
    }

    fn roots(&self, flagged: &[PathBuf], env: &LogEnv) -> Vec<LogRoot> {
        if !flagged.is_empty() {
            return LogRoot::flagged(flagged, "--claude-dir");
        }
        let configs: Vec<PathBuf> = match &env.claude_config_dir {
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(PathBuf::from)
                .collect(),
            None => env
                .home
                .iter()
                .flat_map(|home| [home.join(".claude"), home.join(".config").join("claude")])
                .collect(),
        };
        configs
            .into_iter()
            .map(|config| LogRoot {
                path: config.join("projects"),
                flag: None,
            })
            .collect()
    }

    fn is_log(&self, _root: &Path, path: &Path) -> bool {
        path.extension().is_some_and(|ext| ext == "jsonl")
    }

    fn file_session(&self, root: &Path, path: &Path) -> Option<Arc<str>> {
        let relative = path.strip_prefix(root).ok()?;
        let parts: Vec<&std::ffi::OsStr> = relative.iter().collect();
        // `<encoded cwd>/<sid>.jsonl`, `<encoded cwd>/<sid>/subagents/…`; a file directly
        // under the root (a `--claude-dir` naming one project folder) counts from there.
        let rest = match parts.len() {
            0 => return None,
            1 => &parts[..],
            _ if path.parent() == Some(root) => &parts[..],
            _ => &parts[1..],
        };
        let session = if rest.len() == 1 {
            let stem = Path::new(rest[0]).file_stem()?.to_str()?;
            if stem.starts_with("agent-") {
                return None;
            }
            stem
        } else {
            rest[0].to_str()?
        };
        Some(session.into())
    }

    fn read_line(&self, line: u32, text: &str) -> Result<Option<LogLine>, String> {
        let record: Record = serde_json::from_str(text).map_err(|err| err.to_string())?;
        let timestamp = record.timestamp.as_deref().map(instant).transpose()?;
        let tools = match (&record.kind, &record.message) {
            (Some(kind), Some(message)) if kind == "assistant" => message.content.0.clone(),
            _ => Vec::new(),
        };
        let event = call(&record).map_or(LogEvent::Plain, LogEvent::Call);
        if timestamp.is_none() && record.uuid.is_none() && tools.is_empty() {
            return Ok(None);
        }
        Ok(Some(LogLine {
            line,
            session: record.session_id.map(Into::into),
            uuid: record.uuid.map(Into::into),
            timestamp,
            cwd: record.cwd.map(Into::into),
            tools,
            event,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> LogLine {
        match ClaudeCode.read_line(1, text) {
            Ok(Some(line)) => line,
            other => panic!("expected a line, got {other:?}"),
        }
    }

    #[test]
    fn an_assistant_record_reports_its_call_tools_and_cache_split() {
        let line = read(
            r#"{"type":"assistant","sessionId":"s1","uuid":"u1","timestamp":"2026-01-15T10:00:00.000Z","cwd":"/w","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":10,"output_tokens":20,"cache_creation_input_tokens":100,"cache_read_input_tokens":5,"cache_creation":{"ephemeral_5m_input_tokens":30,"ephemeral_1h_input_tokens":60}}}}"#,
        );
        let LogEvent::Call(call) = &line.event else {
            panic!("not a call: {line:?}");
        };
        // 100 written, 30 + 60 split: the unsplit 10 are priced at the 5-minute rate.
        assert_eq!(
            call.tokens,
            Tokens {
                input: 10,
                output: 20,
                cache_write_5m: 40,
                cache_write_1h: 60,
                cache_read: 5
            }
        );
        assert_eq!(&*line.tools[0].name, "Bash");
        assert_eq!(line.tools.len(), 1);
    }

    #[test]
    fn synthetic_records_are_not_calls_and_request_less_ones_are() {
        let synthetic = read(
            r#"{"type":"assistant","uuid":"u","timestamp":"2026-01-15T10:00:00Z","message":{"id":"m","model":"<synthetic>","content":[],"usage":{"input_tokens":1}}}"#,
        );
        assert_eq!(synthetic.event, LogEvent::Plain);
        // A gateway's record: no requestId, still a call, identified by its message id.
        let no_request = read(
            r#"{"type":"assistant","uuid":"u","timestamp":"2026-01-15T10:00:00Z","message":{"id":"m","model":"claude-opus-4-5","content":"x","usage":{"input_tokens":7,"output_tokens":3}}}"#,
        );
        let LogEvent::Call(call) = &no_request.event else {
            panic!("not a call: {no_request:?}");
        };
        assert_eq!(
            (&*call.id, call.tokens.input, call.tokens.output),
            ("m", 7, 3)
        );
    }

    #[test]
    fn a_file_session_comes_from_its_name_or_its_folder() {
        let root = Path::new("/p");
        let of = |path: &str| ClaudeCode.file_session(root, Path::new(path));
        assert_eq!(of("/p/-w-x/s1.jsonl").as_deref(), Some("s1"));
        assert_eq!(of("/p/-w-x/s1/subagents/a.jsonl").as_deref(), Some("s1"));
        assert_eq!(of("/p/-w-x/agent-7.jsonl"), None);
        assert_eq!(of("/p/s2.jsonl").as_deref(), Some("s2"));
    }
}
