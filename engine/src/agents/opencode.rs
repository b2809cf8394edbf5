//! OpenCode's logs: the JSON files of its `storage/` folder, one document each (what
//! OpenCode wrote before it moved to a SQLite database, `opencode.db`, which keel does
//! not read and says so): `session/<project>/<session id>.json` (a session: its folder,
//! its parent), `message/<session id>/<message id>.json` (a message: an assistant's
//! model, usage and folder) and `part/<message id>/<part id>.json` (a tool call, or a
//! step: one API call of its message).
//!
//! Owns: the default location (`$XDG_DATA_HOME/opencode`, else
//! `~/.local/share/opencode`), the warning for a database beside it, and reading one
//! document: a session (`id`, `parentID`, `directory`, `time.created`), a message (`id`,
//! `sessionID`, `role`, `time.created`, `time.completed`, `modelID`, `providerID`,
//! `path.cwd`, `tokens`), a part (`type` `tool`: `callID`, `tool`, `state.time.start`;
//! `step-finish`: `messageID`, `tokens`).
//! Does not own: which of a message's calls count (its steps, else the message; a forked
//! session's clones add nothing) or attribution (`keel-queries::agents`).

use super::{
    Call, Connector, DocumentError, HarnessId, LogEnv, LogEvent, LogLine, LogRoot, Meta, Tokens,
    ToolUse, relative_parts,
};
use crate::sessions::Instant;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The OpenCode connector.
pub struct OpenCode;

/// The folders of `storage/` keel reads.
const FOLDERS: [&str; 3] = ["session", "message", "part"];
/// The database newer OpenCode builds keep instead.
const DATABASE: &str = "opencode.db";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Time {
    created: Option<i64>,
    completed: Option<i64>,
    start: Option<i64>,
}

#[derive(Deserialize)]
struct Cache {
    #[serde(default)]
    read: u64,
    #[serde(default)]
    write: u64,
}

/// Usage as OpenCode records it: `input` without the cache reads and writes, `reasoning`
/// apart from `output` unless `total` says it is inside.
#[derive(Deserialize)]
struct Usage {
    total: Option<u64>,
    #[serde(default)]
    input: u64,
    #[serde(default)]
    output: u64,
    #[serde(default)]
    reasoning: u64,
    cache: Option<Cache>,
}

#[derive(Deserialize)]
struct Folder {
    cwd: Option<String>,
}

#[derive(Deserialize)]
struct State {
    time: Option<Time>,
}

/// A session, a message or a part: the fields keel reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    id: Option<String>,
    #[serde(rename = "sessionID")]
    session_id: Option<String>,
    #[serde(rename = "parentID")]
    parent_id: Option<String>,
    #[serde(rename = "messageID")]
    message_id: Option<String>,
    directory: Option<String>,
    role: Option<String>,
    time: Option<Time>,
    #[serde(rename = "modelID")]
    model_id: Option<String>,
    #[serde(rename = "providerID")]
    provider_id: Option<String>,
    path: Option<Folder>,
    tokens: Option<Usage>,
    #[serde(rename = "type")]
    part_type: Option<String>,
    #[serde(rename = "callID")]
    call_id: Option<String>,
    tool: Option<String>,
    state: Option<State>,
}

impl Usage {
    /// As keel counts tokens. Reasoning is billed as output; it is already inside
    /// `output` when `total` (the provider's own) holds no more than input, caches and
    /// output (OpenAI's way), else it is added (Google's way; OpenCode's own arithmetic).
    fn tokens(&self) -> Tokens {
        let (read, write) = self
            .cache
            .as_ref()
            .map_or((0, 0), |cache| (cache.read, cache.write));
        let base = self
            .input
            .saturating_add(self.output)
            .saturating_add(read)
            .saturating_add(write);
        let reasoning_inside = self
            .total
            .is_some_and(|total| total < base.saturating_add(self.reasoning));
        let output = if reasoning_inside {
            self.output
        } else {
            self.output.saturating_add(self.reasoning)
        };
        Tokens {
            input: self.input,
            output,
            cache_write_5m: write,
            cache_read: read,
            ..Tokens::default()
        }
    }

    /// The usage as written, for a message's fingerprint.
    fn key(&self) -> String {
        let (read, write) = self
            .cache
            .as_ref()
            .map_or((0, 0), |cache| (cache.read, cache.write));
        format!(
            "{}/{}/{}/{read}/{write}",
            self.input, self.output, self.reasoning
        )
    }
}

/// Milliseconds since the epoch as an instant, or what is wrong with them.
fn millis(field: &str, ms: i64) -> Result<Instant, String> {
    ms.checked_mul(1_000_000)
        .map(Instant::from_nanos)
        .ok_or_else(|| format!("{field}: {ms} is outside the times keel reads"))
}

/// A document as keel's model; `None` for one that carries nothing keel counts.
fn read(document: Document) -> Result<Option<LogLine>, String> {
    let time = document.time.as_ref();
    let created = time
        .and_then(|time| time.created)
        .map(|ms| millis("time.created", ms))
        .transpose()?;
    // A part: a tool call or a step of its message.
    if let Some(kind) = document.part_type.as_deref() {
        let session = document.session_id.map(Into::into);
        return Ok(match kind {
            "tool" => {
                let (Some(id), Some(name)) = (document.call_id.or(document.id), document.tool)
                else {
                    return Ok(None);
                };
                let start = document
                    .state
                    .and_then(|state| state.time)
                    .and_then(|time| time.start)
                    .map(|ms| millis("state.time.start", ms))
                    .transpose()?;
                // A fork's clone of the part keeps the call id: one record per call.
                Some(LogLine {
                    line: 1,
                    session,
                    uuid: Some(format!("opencode:tool:{id}").into()),
                    timestamp: start,
                    cwd: None,
                    tools: vec![ToolUse {
                        id: id.into(),
                        name: name.into(),
                    }],
                    event: LogEvent::Plain,
                })
            }
            "step-finish" => {
                let (Some(message), Some(usage)) = (document.message_id, document.tokens) else {
                    return Ok(None);
                };
                Some(LogLine {
                    line: 1,
                    session,
                    uuid: None,
                    timestamp: None,
                    cwd: None,
                    tools: Vec::new(),
                    event: LogEvent::Step {
                        message: message.into(),
                        tokens: usage.tokens(),
                    },
                })
            }
            _ => None,
        });
    }
    let Some(id) = document.id else {
        return Err("no id".to_owned());
    };
    // A message.
    if let Some(role) = document.role.as_deref() {
        let Some(session) = document.session_id else {
            return Err("a message without sessionID".to_owned());
        };
        let completed = time.and_then(|time| time.completed);
        let provider = document.provider_id.as_deref().unwrap_or("");
        let model = document.model_id.as_deref().unwrap_or("");
        // What a forked session's clone of this message shares with it: everything but
        // the ids (a clone keeps the times, the model and the usage).
        let fingerprint: Arc<str> = format!(
            "opencode:{role}:{}:{}:{provider}/{model}:{}",
            time.and_then(|time| time.created).unwrap_or_default(),
            completed.unwrap_or_default(),
            document.tokens.as_ref().map(Usage::key).unwrap_or_default()
        )
        .into();
        let event = match (role, &document.model_id, &document.tokens) {
            ("assistant", Some(model), Some(usage)) => LogEvent::Message {
                message: id.into(),
                call: Call {
                    id: fingerprint.clone(),
                    model: model.as_str().into(),
                    tokens: usage.tokens(),
                    fast: false,
                },
            },
            _ => LogEvent::Plain,
        };
        return Ok(Some(LogLine {
            line: 1,
            session: Some(session.into()),
            uuid: Some(fingerprint),
            timestamp: created,
            cwd: document.path.and_then(|path| path.cwd).map(Into::into),
            tools: Vec::new(),
            event,
        }));
    }
    // A session.
    let id: Arc<str> = id.into();
    let cwd: Option<Arc<str>> = document.directory.map(Into::into);
    let spawned_by: Option<Arc<str>> = document.parent_id.map(Into::into);
    Ok(Some(LogLine {
        line: 1,
        session: Some(id.clone()),
        uuid: None,
        timestamp: created,
        cwd: cwd.clone(),
        tools: Vec::new(),
        event: LogEvent::Meta(Meta {
            id,
            created,
            cwd,
            subagent: spawned_by.is_some(),
            spawned_by,
        }),
    }))
}

impl Connector for OpenCode {
    fn harness(&self) -> HarnessId {
        "opencode"
    }

    fn roots(&self, flagged: &[PathBuf], env: &LogEnv) -> Vec<LogRoot> {
        if !flagged.is_empty() {
            return LogRoot::flagged(flagged, "--opencode-dir");
        }
        let data = env.xdg_data_home.clone().or_else(|| {
            env.home
                .as_ref()
                .map(|home| home.join(".local").join("share"))
        });
        data.map(|data| LogRoot {
            path: data.join("opencode"),
            flag: None,
        })
        .into_iter()
        .collect()
    }

    fn is_log(&self, root: &Path, path: &Path) -> bool {
        relative_parts(root, path).is_some_and(|parts| {
            parts.len() == 4
                && parts[0] == "storage"
                && FOLDERS.contains(&parts[1].as_str())
                && parts[3].ends_with(".json")
        })
    }

    fn may_hold_logs(&self, root: &Path, dir: &Path) -> bool {
        relative_parts(root, dir).is_some_and(|parts| {
            parts.first().is_some_and(|first| first == "storage")
                && parts
                    .get(1)
                    .is_none_or(|folder| FOLDERS.contains(&folder.as_str()))
        })
    }

    fn file_session(&self, _root: &Path, _path: &Path) -> Option<Arc<str>> {
        None
    }

    fn root_warnings(&self, root: &Path) -> Vec<super::LogWarning> {
        let database = root.join(DATABASE);
        if !database.is_file() {
            return Vec::new();
        }
        vec![super::LogWarning {
            location: database.display().to_string(),
            message: "newer OpenCode builds keep their sessions in this SQLite database, which keel does not read; only the sessions in storage/ are counted".to_owned(),
        }]
    }

    fn read_line(&self, _line: u32, text: &str) -> Result<Option<LogLine>, String> {
        let document: Document = serde_json::from_str(text).map_err(|err| err.to_string())?;
        read(document)
    }

    fn is_document(&self, _path: &Path) -> bool {
        true
    }

    fn read_document(&self, text: &str) -> Result<Vec<LogLine>, DocumentError> {
        let document: Document =
            serde_json::from_str(text).map_err(|err| DocumentError::json(&err))?;
        read(document)
            .map(|line| line.into_iter().collect())
            .map_err(|message| DocumentError {
                line: 1,
                message,
                truncated: false,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> LogLine {
        match OpenCode.read_document(text) {
            Ok(mut lines) if lines.len() == 1 => lines.remove(0),
            other => panic!("expected one line, got {other:?}"),
        }
    }

    #[test]
    fn an_assistant_message_is_a_call_fingerprinted_without_its_ids() {
        let text = r#"{"id":"msg_1","sessionID":"ses_1","role":"assistant","time":{"created":1768471200000,"completed":1768471205000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","path":{"cwd":"/w/app","root":"/w/app"},"cost":0,"tokens":{"input":100,"output":50,"reasoning":0,"cache":{"read":1000,"write":200}}}"#;
        let line = one(text);
        let LogEvent::Message { message, call } = &line.event else {
            panic!("not a message: {line:?}");
        };
        assert_eq!(&**message, "msg_1");
        assert_eq!(
            call.tokens,
            Tokens {
                input: 100,
                output: 50,
                cache_write_5m: 200,
                cache_read: 1000,
                ..Tokens::default()
            }
        );
        assert_eq!(line.cwd.as_deref(), Some("/w/app"));
        // A fork's clone: new ids, the rest as written.
        let clone = one(&text.replace("msg_1", "msg_9").replace("ses_1", "ses_2"));
        let LogEvent::Message { call: cloned, .. } = &clone.event else {
            panic!("not a message");
        };
        assert_eq!(cloned.id, call.id);
        assert_eq!(clone.uuid, line.uuid);
    }

    #[test]
    fn reasoning_is_added_to_output_unless_the_total_holds_it() {
        let usage = |total: &str| {
            let text = format!(
                r#"{{"id":"prt_1","sessionID":"s","messageID":"m","type":"step-finish","reason":"stop","cost":0,"tokens":{{{total}"input":100,"output":50,"reasoning":30,"cache":{{"read":0,"write":0}}}}}}"#
            );
            match one(&text).event {
                LogEvent::Step { tokens, .. } => tokens.output,
                other => panic!("not a step: {other:?}"),
            }
        };
        // Google's way: the total counts the thoughts apart (100 + 50 + 30).
        assert_eq!(usage(r#""total":180,"#), 80);
        // OpenAI's way: the total is input and output (reasoning inside the 50).
        assert_eq!(usage(r#""total":150,"#), 50);
        // No total (older builds): OpenCode's own arithmetic, output plus reasoning.
        assert_eq!(usage(""), 80);
    }

    #[test]
    fn a_session_names_its_parent_and_folder_and_a_tool_part_its_call() {
        let child = one(
            r#"{"id":"ses_2","projectID":"p","parentID":"ses_1","directory":"/w/app","title":"t","version":"0.15.0","time":{"created":1768471200000,"updated":1768471300000}}"#,
        );
        assert!(matches!(
            &child.event,
            LogEvent::Meta(Meta { spawned_by: Some(parent), subagent: true, .. }) if &**parent == "ses_1"
        ));
        let tool = one(
            r#"{"id":"prt_2","sessionID":"ses_1","messageID":"msg_1","type":"tool","callID":"call_1","tool":"edit","state":{"status":"completed","input":{},"output":"","title":"","metadata":{},"time":{"start":1768471201000,"end":1768471202000}}}"#,
        );
        assert_eq!(&*tool.tools[0].name, "edit");
        assert_eq!(&*tool.tools[0].id, "call_1");
        let text = OpenCode.read_document(
            r#"{"id":"prt_3","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi"}"#,
        );
        assert_eq!(text, Ok(Vec::new()));
    }

    #[test]
    fn storage_files_are_logs_and_nothing_else_is() {
        let root = Path::new("/o");
        let is = |path: &str| OpenCode.is_log(root, Path::new(path));
        assert!(is("/o/storage/session/proj/ses_1.json"));
        assert!(is("/o/storage/message/ses_1/msg_1.json"));
        assert!(is("/o/storage/part/msg_1/prt_1.json"));
        assert!(!is("/o/storage/project/proj.json"));
        assert!(!is("/o/storage/session_diff/ses_1.json"));
        assert!(!is("/o/log/2026.log"));
    }
}
