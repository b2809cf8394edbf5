//! Codex CLI's logs: `sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl` and
//! `archived_sessions/` under each CODEX_HOME; every line `{timestamp, type, payload}`.
//!
//! Owns: the default locations (`$CODEX_HOME`, else `~/.codex`) and reading one line:
//! `session_meta` (id, creation time, cwd, a sub-agent's spawner), `turn_context` (the
//! model), `token_count` (the cumulative total and, when written, the turn's own usage;
//! `info: null` has neither), and tool calls
//! (`function_call` without its `functions.` prefix, `custom_tool_call`,
//! `local_shell_call`, `web_search_call`). `compacted` history and tool results are
//! nothing keel counts.
//! Does not own: forks, deltas or attribution (`keel-queries::agents`), or choosing
//! between a rollout's active and archived copies (the file walk).

use super::claude::instant;
use super::{
    Connector, Cumulative, HarnessId, LogEnv, LogEvent, LogLine, LogRoot, Meta, RawUsage, ToolUse,
};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The Codex CLI connector.
pub struct Codex;

/// The folders of a CODEX_HOME that hold rollouts; the first is the active one.
pub const ROLLOUT_FOLDERS: [&str; 2] = ["sessions", "archived_sessions"];

#[derive(Deserialize)]
struct Line {
    timestamp: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Option<Payload>,
}

#[derive(Deserialize)]
struct Payload {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    timestamp: Option<String>,
    cwd: Option<String>,
    source: Option<Value>,
    model: Option<String>,
    name: Option<String>,
    call_id: Option<String>,
    info: Option<Info>,
}

#[derive(Deserialize)]
struct Info {
    total_token_usage: Option<Usage>,
    last_token_usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    total_tokens: u64,
}

impl Usage {
    fn raw(&self) -> RawUsage {
        RawUsage {
            input: self.input_tokens,
            cached: self.cached_input_tokens,
            output: self.output_tokens,
            total: self.total_tokens,
        }
    }
}

/// A sub-agent header's `source`: `{"subagent": {...}}`; its spawner is the
/// `parent_thread_id` found anywhere inside.
fn subagent(source: Option<&Value>) -> (bool, Option<Arc<str>>) {
    let Some(inner) = source.and_then(|source| source.get("subagent")) else {
        return (false, None);
    };
    (true, parent_thread(inner).map(Into::into))
}

fn parent_thread(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) => map
            .get("parent_thread_id")
            .and_then(Value::as_str)
            .or_else(|| map.values().find_map(parent_thread)),
        _ => None,
    }
}

/// A response item's tool call: its id and name, if it is one.
fn tool(payload: &Payload, line: u32) -> Option<ToolUse> {
    let name = match payload.kind.as_deref()? {
        "function_call" | "custom_tool_call" => {
            let name = payload.name.as_deref()?;
            name.strip_prefix("functions.").unwrap_or(name).to_owned()
        }
        kind @ ("local_shell_call" | "web_search_call") => kind.to_owned(),
        _ => return None,
    };
    // A call without an id is one call of its line.
    let id = payload
        .call_id
        .clone()
        .or_else(|| payload.id.clone())
        .unwrap_or_else(|| format!("line {line}"));
    Some(ToolUse {
        id: id.into(),
        name: name.into(),
    })
}

impl Connector for Codex {
    fn harness(&self) -> HarnessId {
        "codex"
    }

    fn roots(&self, flagged: &[PathBuf], env: &LogEnv) -> Vec<LogRoot> {
        let (homes, flag) = if flagged.is_empty() {
            let home = env
                .codex_home
                .clone()
                .or_else(|| env.home.as_ref().map(|home| home.join(".codex")));
            (home.into_iter().collect(), None)
        } else {
            (flagged.to_vec(), Some("--codex-dir"))
        };
        homes
            .into_iter()
            .map(|path| LogRoot { path, flag })
            .collect()
    }

    fn is_log(&self, root: &Path, path: &Path) -> bool {
        let in_rollouts = path
            .strip_prefix(root)
            .ok()
            .and_then(|relative| relative.iter().next())
            .is_some_and(|first| ROLLOUT_FOLDERS.iter().any(|folder| first == *folder));
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        in_rollouts && name.starts_with("rollout-") && name.ends_with(".jsonl")
    }

    fn may_hold_logs(&self, root: &Path, dir: &Path) -> bool {
        dir.strip_prefix(root)
            .ok()
            .and_then(|relative| relative.iter().next())
            .is_some_and(|first| ROLLOUT_FOLDERS.iter().any(|folder| first == *folder))
    }

    fn file_session(&self, _root: &Path, _path: &Path) -> Option<Arc<str>> {
        None
    }

    fn read_line(&self, line: u32, text: &str) -> Result<Option<LogLine>, String> {
        let parsed: Line = serde_json::from_str(text).map_err(|err| err.to_string())?;
        let timestamp = parsed.timestamp.as_deref().map(instant).transpose()?;
        let Some(payload) = parsed.payload else {
            return Ok(None);
        };
        let mut cwd = None;
        let mut tools = Vec::new();
        let event = match parsed.kind.as_deref() {
            Some("session_meta") => {
                let Some(id) = payload.id.as_deref() else {
                    return Err("session_meta without payload.id".to_owned());
                };
                let (is_subagent, spawned_by) = subagent(payload.source.as_ref());
                cwd = payload.cwd.as_deref().map(Into::into);
                LogEvent::Meta(Meta {
                    id: id.into(),
                    created: payload.timestamp.as_deref().map(instant).transpose()?,
                    cwd: cwd.clone(),
                    spawned_by,
                    subagent: is_subagent,
                })
            }
            Some("turn_context") => match payload.model {
                Some(model) => LogEvent::Model(model.into()),
                None => LogEvent::Plain,
            },
            Some("event_msg") if payload.kind.as_deref() == Some("token_count") => {
                LogEvent::Cumulative(payload.info.and_then(|info| {
                    Some(Cumulative {
                        total: info.total_token_usage.as_ref()?.raw(),
                        last: info.last_token_usage.as_ref().map(Usage::raw),
                    })
                }))
            }
            Some("response_item") => {
                tools.extend(tool(&payload, line));
                LogEvent::Plain
            }
            _ => LogEvent::Plain,
        };
        Ok(Some(LogLine {
            line,
            session: None,
            uuid: None,
            timestamp,
            cwd,
            tools,
            event,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> LogLine {
        match Codex.read_line(3, text) {
            Ok(Some(line)) => line,
            other => panic!("expected a line, got {other:?}"),
        }
    }

    #[test]
    fn a_subagent_header_names_its_spawner() {
        let line = read(
            r#"{"timestamp":"2026-01-15T10:00:00Z","type":"session_meta","payload":{"id":"child","timestamp":"2026-01-15T10:00:00Z","cwd":"/w","source":{"subagent":{"thread_spawn":{"parent_thread_id":"parent","depth":1}}}}}"#,
        );
        let LogEvent::Meta(meta) = line.event else {
            panic!("not a header");
        };
        assert!(meta.subagent);
        assert_eq!(meta.spawned_by.as_deref(), Some("parent"));
        let plain = read(
            r#"{"timestamp":"2026-01-15T10:00:00Z","type":"session_meta","payload":{"id":"s","source":"cli"}}"#,
        );
        assert!(matches!(
            plain.event,
            LogEvent::Meta(Meta {
                subagent: false,
                ..
            })
        ));
    }

    #[test]
    fn tool_calls_drop_the_functions_prefix_and_results_do_not_count() {
        let call = read(
            r#"{"timestamp":"2026-01-15T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"functions.shell","arguments":"{}","call_id":"c1"}}"#,
        );
        assert_eq!(&*call.tools[0].name, "shell");
        let output = read(
            r#"{"timestamp":"2026-01-15T10:00:00Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#,
        );
        assert!(output.tools.is_empty());
    }

    #[test]
    fn a_token_count_carries_its_total_and_the_turns_own_usage() {
        let line = read(
            r#"{"timestamp":"2026-01-15T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":900,"cached_input_tokens":300,"output_tokens":90,"reasoning_output_tokens":40,"total_tokens":990},"last_token_usage":{"input_tokens":400,"cached_input_tokens":100,"output_tokens":40,"reasoning_output_tokens":10,"total_tokens":440}}}}"#,
        );
        assert_eq!(
            line.event,
            LogEvent::Cumulative(Some(Cumulative {
                total: RawUsage {
                    input: 900,
                    cached: 300,
                    output: 90,
                    total: 990
                },
                last: Some(RawUsage {
                    input: 400,
                    cached: 100,
                    output: 40,
                    total: 440
                }),
            }))
        );
        let without_last = read(
            r#"{"timestamp":"2026-01-15T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"total_tokens":2},"last_token_usage":null}}}"#,
        );
        assert!(matches!(
            without_last.event,
            LogEvent::Cumulative(Some(Cumulative { last: None, .. }))
        ));
    }

    #[test]
    fn a_token_count_without_info_has_no_total() {
        let line = read(
            r#"{"timestamp":"2026-01-15T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":null}}"#,
        );
        assert_eq!(line.event, LogEvent::Cumulative(None));
    }
}
