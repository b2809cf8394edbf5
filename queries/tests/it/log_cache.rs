//! The user cache of agent logs, across processes: each process is a fresh detached
//! database sharing one cache folder. A second process parses only what changed (an
//! appended line, a rewritten file), and every answer, warnings included, equals the
//! answer of a process that reads every log.

use keel_engine::ChangeEvent;
use keel_engine::KeelDatabase;
use keel_engine::agents::{LogCache, LogEnv, LogSources, LogSync};
use keel_fixtures::sessions::write_file;
use keel_queries::agents::{AgentSessions, agent_sessions};
use std::path::{Path, PathBuf};

const BUILD: &str = "testbuild";

fn record(
    session: &str,
    uuid: &str,
    minute: u32,
    message: &str,
    output: u32,
    tool: &str,
) -> String {
    let content = if tool.is_empty() {
        String::new()
    } else {
        format!("{{\"type\":\"tool_use\",\"id\":\"{tool}\",\"name\":\"Edit\",\"input\":{{}}}}")
    };
    format!(
        "{{\"type\":\"assistant\",\"sessionId\":\"{session}\",\"uuid\":\"{uuid}\",\"timestamp\":\"2026-01-15T10:{minute:02}:00Z\",\"cwd\":\"/w\",\"requestId\":\"r-{message}\",\"message\":{{\"id\":\"{message}\",\"model\":\"claude-sonnet-4-5\",\"content\":[{content}],\"usage\":{{\"input_tokens\":10,\"output_tokens\":{output}}}}}}}\n"
    )
}

fn codex_meta(id: &str, minute: u32, spawner: Option<&str>) -> String {
    let source = spawner.map_or("\"cli\"".to_owned(), |parent| {
        format!("{{\"subagent\":{{\"thread_spawn\":{{\"parent_thread_id\":\"{parent}\",\"depth\":1}}}}}}")
    });
    format!(
        "{{\"timestamp\":\"2026-01-15T11:{minute:02}:00.000Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"{id}\",\"timestamp\":\"2026-01-15T11:{minute:02}:00.000Z\",\"cwd\":\"/w\",\"source\":{source}}}}}\n{{\"timestamp\":\"2026-01-15T11:{minute:02}:01.000Z\",\"type\":\"turn_context\",\"payload\":{{\"cwd\":\"/w\",\"model\":\"gpt-5\"}}}}\n"
    )
}

fn codex_row(minute: u32, total: u64) -> String {
    format!(
        "{{\"timestamp\":\"2026-01-15T11:{minute:02}:30.000Z\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":{total},\"cached_input_tokens\":0,\"output_tokens\":1,\"reasoning_output_tokens\":0,\"total_tokens\":{}}}}}}}}}\n",
        total + 1
    )
}

/// The folders of one test: Claude logs, a CODEX_HOME, and the cache.
struct Folders {
    _dir: tempfile::TempDir,
    claude: PathBuf,
    codex: PathBuf,
    cache: PathBuf,
}

impl Folders {
    /// A session and its resume (the resumed file sorts first and copies a call, with a
    /// larger copy of another), a malformed line, and a Codex session with a sub-agent.
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let claude = dir.path().join("claude");
        let codex = dir.path().join("codex");
        let cache = dir.path().join("cache");
        let day = codex.join("sessions/2026/01/15");
        for folder in [&claude, &day] {
            std::fs::create_dir_all(folder).expect("a log folder");
        }
        write_file(
            &claude.join("b-original.jsonl"),
            &(record("orig", "u1", 1, "m1", 5, "t1")
                + "not json\n"
                + &record("orig", "u2", 2, "m2", 5, "")),
        )
        .expect("write the original");
        write_file(
            &claude.join("a-resumed.jsonl"),
            &(record("res", "u8", 10, "m1", 5, "t1")
                + &record("res", "u9", 10, "m2", 9, "")
                + &record("res", "u10", 11, "m3", 7, "t2")),
        )
        .expect("write the resume");
        write_file(
            &day.join("rollout-2026-01-15T11-00-00-parent.jsonl"),
            &(codex_meta("parent", 0, None) + &codex_row(1, 100) + &codex_row(2, 250)),
        )
        .expect("write the parent rollout");
        write_file(
            &day.join("rollout-2026-01-15T11-05-00-child.jsonl"),
            &(codex_meta("child", 5, Some("parent")) + &codex_row(6, 40)),
        )
        .expect("write the sub-agent rollout");
        Self {
            _dir: dir,
            claude,
            codex,
            cache,
        }
    }

    /// One process: a fresh database reading every log, with the cache or without.
    fn process(&self, cached: bool) -> (AgentSessions, LogSync) {
        let sources = LogSources {
            claude_dirs: vec![self.claude.clone()],
            codex_dirs: vec![self.codex.clone()],
            gemini_dirs: Vec::new(),
            opencode_dirs: Vec::new(),
            env: LogEnv::default(),
            cache: cached.then(|| LogCache {
                folder: self.cache.join(BUILD),
                build: BUILD.to_owned(),
            }),
        };
        let mut db = KeelDatabase::detached();
        let read = db
            .apply_changes(&[ChangeEvent::AgentLogsFrom(Box::new(sources))])
            .expect("the folders exist");
        let logs = db.agent_logs().expect("a read made the logs input");
        let sync = read.agent_logs.expect("the logs were read");
        (agent_sessions(&db, logs).clone(), sync)
    }

    /// A cached process, checked against an uncached one (sessions and warnings alike);
    /// returns what it read.
    fn warm_equals_cold(&self) -> LogSync {
        let (cold, cold_sync) = self.process(false);
        let (warm, warm_sync) = self.process(true);
        assert_eq!(warm, cold);
        assert_eq!(log_warnings(&warm_sync), log_warnings(&cold_sync));
        warm_sync
    }
}

/// The warnings about the logs (not about the cache).
fn log_warnings(sync: &LogSync) -> Vec<String> {
    sync.warnings
        .iter()
        .filter(|warning| !warning.message.contains("cache"))
        .map(ToString::to_string)
        .collect()
}

fn append(path: &Path, text: &str) {
    let mut all = std::fs::read_to_string(path).expect("read the log");
    all.push_str(text);
    write_file(path, &all).expect("append to the log");
}

fn read_counts(sync: &LogSync) -> (usize, u64) {
    (sync.files_read, sync.lines_parsed)
}

#[test]
fn a_second_process_parses_nothing_unchanged_and_answers_as_a_cold_read() {
    let folders = Folders::new();
    let first = folders.warm_equals_cold();
    assert_eq!(first.files_read, 4, "the first process reads every log");
    let (sessions, _) = folders.process(true);
    let ids: Vec<&str> = sessions
        .sessions
        .iter()
        .map(|session| session.session_id.as_ref())
        .collect();
    assert_eq!(
        ids.len(),
        3,
        "orig, res and parent (the sub-agent is its spawner's): {ids:?}"
    );
    let second = folders.warm_equals_cold();
    assert_eq!(read_counts(&second), (0, 0), "nothing changed");
    assert_eq!(
        log_warnings(&second).len(),
        1,
        "the malformed line is named again: {:?}",
        second.warnings
    );
}

#[test]
fn an_appended_line_is_the_one_line_a_second_process_parses() {
    let folders = Folders::new();
    folders.process(true);
    append(
        &folders.claude.join("b-original.jsonl"),
        &record("orig", "u3", 3, "m4", 11, "t3"),
    );
    let warm = folders.warm_equals_cold();
    assert_eq!(read_counts(&warm), (1, 1));
    append(
        &folders
            .codex
            .join("sessions/2026/01/15/rollout-2026-01-15T11-05-00-child.jsonl"),
        &codex_row(7, 90),
    );
    let warm = folders.warm_equals_cold();
    assert_eq!(read_counts(&warm), (1, 1), "the sub-agent's new row");
    assert_eq!(read_counts(&folders.warm_equals_cold()), (0, 0));
}

#[test]
fn a_rewritten_file_is_read_whole_and_a_deleted_one_drops_out() {
    let folders = Folders::new();
    folders.process(true);
    write_file(
        &folders.claude.join("a-resumed.jsonl"),
        &record("res", "u10", 11, "m3", 8, "t2"),
    )
    .expect("rewrite the resume");
    let warm = folders.warm_equals_cold();
    assert_eq!(read_counts(&warm), (1, 1), "the rewritten file, whole");
    std::fs::remove_file(folders.claude.join("b-original.jsonl")).expect("delete a log");
    let warm = folders.warm_equals_cold();
    assert_eq!(read_counts(&warm), (0, 0));
    let (sessions, _) = folders.process(true);
    assert!(
        sessions
            .sessions
            .iter()
            .all(|session| session.session_id.as_ref() != "orig"),
        "{sessions:?}"
    );
}

#[test]
fn a_damaged_cache_entry_is_read_again_with_one_warning() {
    let folders = Folders::new();
    folders.process(true);
    let entries: Vec<PathBuf> = std::fs::read_dir(folders.cache.join(BUILD))
        .expect("the cache folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    assert_eq!(entries.len(), 4, "one entry per log: {entries:?}");
    for (at, entry) in entries.iter().enumerate() {
        let bytes = std::fs::read(entry).expect("read an entry");
        // Truncated, then flipped in the body, then not an entry at all.
        let damaged = match at % 3 {
            0 => bytes[..bytes.len() / 2].to_vec(),
            1 => {
                let mut bytes = bytes;
                let last = bytes.len() - 1;
                bytes[last] ^= 0xff;
                bytes
            }
            _ => b"garbage".to_vec(),
        };
        std::fs::write(entry, damaged).expect("damage an entry");
    }
    let warm = folders.warm_equals_cold();
    assert_eq!(
        warm.files_read, 4,
        "every damaged entry's log is read again"
    );
    let said: Vec<_> = warm
        .warnings
        .iter()
        .filter(|warning| warning.message.contains("cache"))
        .collect();
    assert_eq!(said.len(), 1, "said once: {said:?}");
    assert!(
        said[0].message.starts_with("4 agent-log cache entries"),
        "{said:?}"
    );
    assert_eq!(
        read_counts(&folders.warm_equals_cold()),
        (0, 0),
        "rewritten"
    );
}

#[test]
fn a_cache_that_cannot_be_written_is_said_once_and_the_answer_is_cold() {
    let folders = Folders::new();
    write_file(&folders.cache, "a file where the cache folder belongs").expect("block the cache");
    let warm = folders.warm_equals_cold();
    assert_eq!(warm.files_read, 4);
    let said: Vec<_> = warm
        .warnings
        .iter()
        .filter(|warning| warning.message.contains("cache"))
        .collect();
    assert_eq!(said.len(), 1, "said once: {said:?}");
}
