//! Gemini CLI's logs: `tmp/<project>/chats/session-<time>-<id8>.jsonl` under each
//! `.gemini` folder (older builds wrote one JSON document, `session-….json`), with a
//! sub-agent's chat nested under its parent's (`chats/<parent session id>/<id>.jsonl`).
//!
//! Owns: the default location (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`), a file's
//! session (a chat's header line; a sub-agent's folder names its parent) and folder (the
//! project folder's `.project_root`, else `projects.json`), and reading one record: the
//! header (`sessionId`, `startTime`, `kind`), a message (`id`, `timestamp`, `type`;
//! a `gemini` message's `model`, `tokens` and `toolCalls`), a `$set` update
//! (`lastUpdated`), or a whole older document (its header and `messages`).
//! Does not own: deduplication or attribution (`keel-queries::agents`): a message is
//! written again each time it grows (tokens, tool calls), so a message id is one call
//! over all copies, kept at its largest.

use super::claude::instant;
use super::{
    Call, Connector, DocumentError, HarnessId, LogEnv, LogEvent, LogLine, LogRoot, Tokens, ToolUse,
    relative_parts,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::Digest;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The Gemini CLI connector.
pub struct GeminiCli;

/// The folder of a `.gemini` folder that holds the projects' chats.
const TMP: &str = "tmp";
/// The folder of a project's temporary folder that holds its chats.
const CHATS: &str = "chats";
/// The file of a project's temporary folder naming the folder Gemini CLI ran in.
const PROJECT_ROOT: &str = ".project_root";
/// The model a call with usage but no model is priced as (nothing: it is unpriced).
const UNKNOWN_MODEL: &str = "unknown";

/// One record: a chat's header, a message or a `$set` update (the fields keel reads).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    session_id: Option<String>,
    start_time: Option<String>,
    kind: Option<String>,
    id: Option<String>,
    timestamp: Option<String>,
    #[serde(rename = "type")]
    message_type: Option<String>,
    model: Option<String>,
    tokens: Option<TokensSummary>,
    #[serde(default)]
    tool_calls: Vec<ToolCall>,
    #[serde(rename = "$set")]
    set: Option<Update>,
}

/// Usage as Gemini CLI records it: `input` includes the `cached` part, `output` does not
/// include `thoughts`, `tool` is the tool-use prompt (billed as input).
#[derive(Deserialize)]
struct TokensSummary {
    #[serde(default)]
    input: u64,
    #[serde(default)]
    output: u64,
    #[serde(default)]
    cached: u64,
    #[serde(default)]
    thoughts: u64,
    #[serde(default)]
    tool: u64,
}

#[derive(Deserialize)]
struct ToolCall {
    id: Option<String>,
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Update {
    last_updated: Option<String>,
}

/// An older chat: one document, its messages each a record.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    session_id: Option<String>,
    start_time: Option<String>,
    kind: Option<String>,
    #[serde(borrow, default)]
    messages: Vec<&'a RawValue>,
}

impl TokensSummary {
    fn tokens(&self) -> Tokens {
        Tokens {
            input: self
                .input
                .saturating_sub(self.cached)
                .saturating_add(self.tool),
            output: self.output.saturating_add(self.thoughts),
            cache_read: self.cached,
            ..Tokens::default()
        }
    }
}

/// A message's tool calls, once per id (a call without one is one call of its line).
fn tools(calls: &[ToolCall], line: u32) -> Vec<ToolUse> {
    calls
        .iter()
        .enumerate()
        .filter_map(|(index, call)| {
            let name = call.name.as_deref()?;
            let id = call
                .id
                .clone()
                .unwrap_or_else(|| format!("line {line} call {index}"));
            Some(ToolUse {
                id: id.into(),
                name: name.into(),
            })
        })
        .collect()
}

/// One record as keel's model. `session`: the session a message names (an older
/// document's, unless it is a sub-agent's: then its file's folder names it).
fn record(
    line: u32,
    record: Record,
    session: Option<&Arc<str>>,
) -> Result<Option<LogLine>, String> {
    if let Some(id) = record.id {
        let timestamp = record.timestamp.as_deref().map(instant).transpose()?;
        let tools = tools(&record.tool_calls, line);
        let event = match (record.message_type.as_deref(), &record.tokens) {
            (Some("gemini"), Some(tokens)) => LogEvent::Call(Call {
                id: id.into(),
                model: record.model.as_deref().unwrap_or(UNKNOWN_MODEL).into(),
                tokens: tokens.tokens(),
                fast: false,
            }),
            _ => LogEvent::Plain,
        };
        return Ok(Some(LogLine {
            line,
            session: session.cloned(),
            uuid: None,
            timestamp,
            cwd: None,
            tools,
            event,
        }));
    }
    if let Some(update) = record.set {
        let Some(at) = update.last_updated.as_deref() else {
            return Ok(None);
        };
        return Ok(Some(LogLine {
            line,
            session: session.cloned(),
            uuid: None,
            timestamp: Some(instant(at)?),
            cwd: None,
            tools: Vec::new(),
            event: LogEvent::Plain,
        }));
    }
    let Some(id) = record.session_id else {
        // A `$rewindTo` marker, or a record keel does not know: nothing it counts.
        return Ok(None);
    };
    // The header: a sub-agent's names its own id, but its work is its parent's (the
    // folder the file sits in names that).
    let own = record.kind.as_deref() != Some("subagent");
    Ok(Some(LogLine {
        line,
        session: own.then(|| id.into()),
        uuid: None,
        timestamp: record.start_time.as_deref().map(instant).transpose()?,
        cwd: None,
        tools: Vec::new(),
        event: LogEvent::Plain,
    }))
}

/// The session id a chat's first line (its header) names, when it names its own.
fn header_session(path: &Path) -> Option<Arc<str>> {
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(file).read_line(&mut first).ok()?;
    let header: Record = serde_json::from_str(first.trim_start_matches('\u{feff}')).ok()?;
    if header.id.is_some() || header.kind.as_deref() == Some("subagent") {
        return None;
    }
    header.session_id.map(Into::into)
}

/// The folder registered for `project` (a short name, or an older sha256 of the path)
/// in `projects.json` ({"projects": {path: short name}}).
fn registered(root: &Path, project: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Registry {
        projects: BTreeMap<String, String>,
    }
    let text = std::fs::read_to_string(root.join("projects.json")).ok()?;
    let registry: Registry = serde_json::from_str(&text).ok()?;
    registry.projects.into_iter().find_map(|(path, short)| {
        let digest: [u8; 32] = sha2::Sha256::digest(path.as_bytes()).into();
        let hash: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        (short == project || hash == project).then_some(path)
    })
}

impl Connector for GeminiCli {
    fn harness(&self) -> HarnessId {
        "gemini-cli"
    }

    fn roots(&self, flagged: &[PathBuf], env: &LogEnv) -> Vec<LogRoot> {
        if !flagged.is_empty() {
            return LogRoot::flagged(flagged, "--gemini-dir");
        }
        env.gemini_cli_home
            .as_ref()
            .or(env.home.as_ref())
            .map(|home| LogRoot {
                path: home.join(".gemini"),
                flag: None,
            })
            .into_iter()
            .collect()
    }

    fn is_log(&self, root: &Path, path: &Path) -> bool {
        let Some(parts) = relative_parts(root, path) else {
            return false;
        };
        let chat = matches!(parts.len(), 4 | 5) && parts[0] == TMP && parts[2] == CHATS;
        let name = parts.last().map_or("", String::as_str);
        chat && (name.ends_with(".jsonl") || name.ends_with(".json"))
    }

    fn may_hold_logs(&self, root: &Path, dir: &Path) -> bool {
        relative_parts(root, dir)
            .is_some_and(|parts| parts.first().is_some_and(|first| first == TMP))
    }

    fn file_session(&self, root: &Path, path: &Path) -> Option<Arc<str>> {
        let parts = relative_parts(root, path)?;
        match parts.len() {
            // tmp/<project>/chats/<parent>/<id>.jsonl: a sub-agent's, its parent's work.
            5 => Some(parts[3].as_str().into()),
            _ if self.is_document(path) => None,
            _ => header_session(path),
        }
    }

    fn file_cwd(&self, root: &Path, path: &Path) -> Option<Arc<str>> {
        let parts = relative_parts(root, path)?;
        let project = parts.get(1)?;
        let marker = root.join(TMP).join(project).join(PROJECT_ROOT);
        let folder = match std::fs::read_to_string(marker) {
            Ok(text) => text.trim().to_owned(),
            Err(_) => registered(root, project)?,
        };
        (!folder.is_empty()).then(|| folder.into())
    }

    fn read_line(&self, line: u32, text: &str) -> Result<Option<LogLine>, String> {
        let parsed: Record = serde_json::from_str(text).map_err(|err| err.to_string())?;
        record(line, parsed, None)
    }

    fn is_document(&self, path: &Path) -> bool {
        path.extension().is_some_and(|ext| ext == "json")
    }

    fn read_document(&self, text: &str) -> Result<Vec<LogLine>, DocumentError> {
        let document: Document<'_> =
            serde_json::from_str(text).map_err(|err| DocumentError::json(&err))?;
        let line_of = |raw: &RawValue| {
            // The message's offset in `text` (it borrows from it).
            let offset = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            let before = text.get(..offset).unwrap_or("");
            u32::try_from(before.bytes().filter(|&b| b == b'\n').count() + 1).unwrap_or(u32::MAX)
        };
        let own = document.kind.as_deref() != Some("subagent");
        let session: Option<Arc<str>> = document.session_id.filter(|_| own).map(Into::into);
        let mut lines = Vec::with_capacity(document.messages.len() + 1);
        let start = document
            .start_time
            .as_deref()
            .map(instant)
            .transpose()
            .map_err(|message| DocumentError {
                line: 1,
                message,
                truncated: false,
            })?;
        lines.push(LogLine {
            line: 1,
            session: session.clone(),
            uuid: None,
            timestamp: start,
            cwd: None,
            tools: Vec::new(),
            event: LogEvent::Plain,
        });
        for raw in document.messages {
            let line = line_of(raw);
            let fail = |message: String| DocumentError {
                line,
                message,
                truncated: false,
            };
            let message: Record =
                serde_json::from_str(raw.get()).map_err(|err| fail(err.to_string()))?;
            if message.id.is_none() {
                continue;
            }
            lines.extend(record(line, message, session.as_ref()).map_err(fail)?);
        }
        Ok(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> LogLine {
        match GeminiCli.read_line(2, text) {
            Ok(Some(line)) => line,
            other => panic!("expected a line, got {other:?}"),
        }
    }

    #[test]
    fn a_gemini_message_is_a_call_with_cached_input_apart_and_thoughts_as_output() {
        let line = read(
            r#"{"id":"m1","timestamp":"2026-01-15T10:00:00.000Z","type":"gemini","content":"ok","model":"gemini-2.5-pro","tokens":{"input":1000,"output":50,"cached":600,"thoughts":30,"tool":20,"total":1100},"toolCalls":[{"id":"c1","name":"write_file","args":{},"status":"success","timestamp":"2026-01-15T10:00:01.000Z"}]}"#,
        );
        let LogEvent::Call(call) = &line.event else {
            panic!("not a call: {line:?}");
        };
        // 1000 prompt tokens of which 600 cached, plus 20 of tool-use prompt: 420 input;
        // 50 + 30 thought tokens of output.
        assert_eq!(
            call.tokens,
            Tokens {
                input: 420,
                output: 80,
                cache_read: 600,
                ..Tokens::default()
            }
        );
        assert_eq!(&*call.id, "m1");
        assert_eq!(&*line.tools[0].name, "write_file");
    }

    #[test]
    fn a_header_names_its_session_unless_it_is_a_subagents() {
        let main = read(
            r#"{"sessionId":"s1","projectHash":"h","startTime":"2026-01-15T10:00:00.000Z","lastUpdated":"2026-01-15T10:00:00.000Z"}"#,
        );
        assert_eq!(main.session.as_deref(), Some("s1"));
        let child = read(
            r#"{"sessionId":"s2","projectHash":"h","startTime":"2026-01-15T10:00:00.000Z","lastUpdated":"2026-01-15T10:00:00.000Z","kind":"subagent"}"#,
        );
        assert_eq!(child.session, None);
        assert_eq!(GeminiCli.read_line(3, r#"{"$rewindTo":"m1"}"#), Ok(None));
        let update = read(r#"{"$set":{"lastUpdated":"2026-01-15T11:00:00.000Z"}}"#);
        assert!(update.timestamp.is_some());
    }

    #[test]
    fn an_older_document_numbers_its_messages_by_their_lines() {
        let text = "{\n  \"sessionId\": \"s9\",\n  \"projectHash\": \"h\",\n  \"startTime\": \"2026-01-15T10:00:00.000Z\",\n  \"messages\": [\n    {\n      \"id\": \"u1\",\n      \"timestamp\": \"2026-01-15T10:00:01.000Z\",\n      \"type\": \"user\",\n      \"content\": \"hi\"\n    },\n    {\n      \"id\": \"g1\",\n      \"timestamp\": \"2026-01-15T10:00:02.000Z\",\n      \"type\": \"gemini\",\n      \"model\": \"gemini-2.5-flash\",\n      \"tokens\": {\"input\": 10, \"output\": 5, \"cached\": 0, \"total\": 15}\n    }\n  ]\n}\n";
        let lines = GeminiCli.read_document(text).expect("a document");
        let numbers: Vec<u32> = lines.iter().map(|line| line.line).collect();
        assert_eq!(numbers, vec![1, 6, 12]);
        assert!(
            lines
                .iter()
                .all(|line| line.session.as_deref() == Some("s9"))
        );
        assert!(matches!(lines[2].event, LogEvent::Call(_)));
        let truncated = GeminiCli
            .read_document(&text[..text.len() / 2])
            .expect_err("half a document");
        assert!(truncated.truncated);
    }

    #[test]
    fn chats_and_subagent_chats_are_logs_and_name_their_sessions() {
        let root = Path::new("/g");
        let is = |path: &str| GeminiCli.is_log(root, Path::new(path));
        assert!(is(
            "/g/tmp/app/chats/session-2026-01-15T10-00-abcd1234.jsonl"
        ));
        assert!(is(
            "/g/tmp/app/chats/session-2026-01-15T10-00-abcd1234.json"
        ));
        assert!(is("/g/tmp/app/chats/parent-id/child-id.jsonl"));
        assert!(!is("/g/tmp/app/logs.json"));
        assert!(!is("/g/history/app/chats/x.jsonl"));
        assert_eq!(
            GeminiCli
                .file_session(root, Path::new("/g/tmp/app/chats/parent-id/child-id.jsonl"))
                .as_deref(),
            Some("parent-id")
        );
    }

    #[test]
    fn a_chats_folder_is_found_by_project_root_else_by_name_or_hash_in_projects_json() {
        let root = tempfile::tempdir().expect("a temporary folder");
        let root = root.path();
        let chat = |project: &str| root.join(format!("tmp/{project}/chats/session-x.jsonl"));
        std::fs::create_dir_all(root.join("tmp/app")).expect("mkdir");
        std::fs::write(root.join("tmp/app/.project_root"), "/w/app\n").expect("write");
        std::fs::write(
            root.join("projects.json"),
            r#"{"projects": {"/w/other": "other", "/w/app": "app"}}"#,
        )
        .expect("write");
        let cwd = |project: &str| GeminiCli.file_cwd(root, &chat(project));
        assert_eq!(cwd("app").as_deref(), Some("/w/app"));
        // No `.project_root`: the registry's entry by short name, or by the sha256 of the
        // path (the older folder names).
        assert_eq!(cwd("other").as_deref(), Some("/w/other"));
        let digest: [u8; 32] = sha2::Sha256::digest(b"/w/other").into();
        let hash: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(cwd(&hash).as_deref(), Some("/w/other"));
        assert_eq!(cwd("unknown"), None);
    }
}
