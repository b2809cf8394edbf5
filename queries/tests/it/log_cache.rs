//! The user cache of agent logs, across processes: each process is a fresh detached
//! database sharing one cache folder. A second process parses only what changed (an
//! appended line, a rewritten file), and every answer, warnings included, equals the
//! answer of a process that reads every log.

use keel_engine::ChangeEvent;
use keel_engine::KeelDatabase;
use keel_engine::agents::{LogCache, LogEnv, LogSources, LogSync};
use keel_engine::settings::{ModelPrices, Settings};
use keel_fixtures::sessions::write_file;
use keel_queries::agents::{
    AgentSessionKey, AgentSessions, CountedCall, agent_sessions, log_digest, session_calls,
    session_facts,
};
use std::collections::BTreeMap;
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

    /// Where a process reads: the test's folders, with the cache or without.
    fn sources(&self, cached: bool) -> LogSources {
        LogSources {
            claude_dirs: vec![self.claude.clone()],
            codex_dirs: vec![self.codex.clone()],
            gemini_dirs: Vec::new(),
            opencode_dirs: Vec::new(),
            env: LogEnv::default(),
            cache: cached.then(|| LogCache {
                folder: self.cache.join(BUILD),
                build: BUILD.to_owned(),
            }),
        }
    }

    /// One process: a fresh database reading every log, with the cache or without.
    fn process(&self, cached: bool) -> (AgentSessions, LogSync) {
        let (sessions, sync, _) = self.process_db(cached);
        (sessions, sync)
    }

    /// One process, as the command runs it: the logs read, the sessions claimed, then the
    /// cache entries of what was read written (with the claims' digests); its database
    /// too. The warnings of the write follow the read's.
    fn process_db(&self, cached: bool) -> (AgentSessions, LogSync, KeelDatabase) {
        self.priced_process(cached, BTreeMap::new())
    }

    /// One process as [`Folders::process_db`], with `[prices]`.
    fn priced_process(
        &self,
        cached: bool,
        prices: BTreeMap<String, ModelPrices>,
    ) -> (AgentSessions, LogSync, KeelDatabase) {
        let sources = self.sources(cached);
        let cache = sources.cache.clone();
        let mut db = KeelDatabase::detached();
        let read = db
            .apply_changes(&[
                ChangeEvent::PricesChanged(prices),
                ChangeEvent::AgentLogsFrom(Box::new(sources)),
            ])
            .expect("the folders exist");
        let logs = db.agent_logs().expect("a read made the logs input");
        let mut sync = read.agent_logs.expect("the logs were read");
        let sessions = agent_sessions(&db, logs).clone();
        if let Some(cache) = &cache {
            let kept = db.keep_agent_logs(cache, &sync, &|log| log_digest(&db, log));
            sync.warnings.extend(kept);
        }
        (sessions, sync, db)
    }

    /// The logs (by file name) a process holds as their digests, without lines.
    fn digested(db: &KeelDatabase) -> Vec<String> {
        let logs = db.agent_logs().expect("a read made the logs input");
        logs.files(db)
            .iter()
            .filter(|log| log.digest(db).is_some() && log.chunks(db).is_empty())
            .map(|log| {
                log.path(db)
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect()
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

/// Logs whose records are their own: a session whose streamed copy grows, whose folder
/// changes, and whose sub-agent file starts it earlier; a file of two sessions, one of
/// whose records names none (its file's).
fn write_own_logs(claude: &Path) {
    let solo = record("solo", "u20", 20, "m20", 3, "")
        + &record("solo", "u21", 20, "m20", 12, "t20").replace("\"cwd\":\"/w\"", "\"cwd\":\"/x\"")
        + &record("solo", "u22", 21, "m21", 4, "t21");
    write_file(&claude.join("c-solo.jsonl"), &solo).expect("write the solo session");
    let agent = claude.join("solo/subagents");
    std::fs::create_dir_all(&agent).expect("a sub-agent folder");
    write_file(
        &agent.join("agent-1.jsonl"),
        &record("solo", "u30", 15, "m30", 6, "t30"),
    )
    .expect("write the sub-agent");
    let two = record("two-a", "u40", 30, "m40", 2, "")
        + &record("two-b", "u41", 29, "m41", 5, "t41")
        + &record("two-a", "u42", 31, "m42", 1, "")
        + &record("two-b", "u43", 32, "m43", 8, "").replace("\"sessionId\":\"two-b\",", "");
    write_file(&claude.join("d-two.jsonl"), &two).expect("write the two sessions");
}

/// A resume that sorts first and replays the solo session's larger copy of m20 under a
/// new session id, with its original time.
fn write_replaying_resume(claude: &Path) {
    write_file(
        &claude.join("0-resume.jsonl"),
        &(record("resume", "u21", 20, "m20", 12, "t20")
            + &record("resume", "u50", 40, "m50", 9, "")),
    )
    .expect("write the resume");
}

#[test]
fn a_log_whose_records_are_its_own_is_kept_as_its_digest_and_answers_as_its_lines() {
    let folders = Folders::new();
    write_own_logs(&folders.claude);
    let first = folders.warm_equals_cold();
    assert_eq!(first.files_read, 7, "the first process reads every log");
    let (_, sync, db) = folders.process_db(true);
    assert_eq!(read_counts(&sync), (0, 0), "nothing changed");
    assert_eq!(
        Folders::digested(&db),
        ["c-solo.jsonl", "d-two.jsonl", "agent-1.jsonl"],
        "in path order; the resumed pair shares calls and the Codex rollouts name each other: lines"
    );
    let (sessions, _) = folders.process(true);
    let solo = sessions
        .sessions
        .iter()
        .find(|session| session.session_id.as_ref() == "solo")
        .expect("the solo session");
    // m20 counted once at its larger copy (12), m21 and the sub-agent's m30: 12 + 4 + 6
    // output tokens and 3 calls; started at the sub-agent's 10:15, in its folder /w.
    assert_eq!((solo.api_calls, solo.tokens.output), (3, 22));
    assert_eq!(solo.start.to_rfc3339(), "2026-01-15T10:15:00Z");
    assert_eq!(solo.cwd.as_deref(), Some("/w"));
    assert_eq!(
        folders.warm_equals_cold().files_read,
        0,
        "digests answer as lines"
    );
}

#[test]
fn a_digested_log_that_grows_or_whose_record_a_new_log_replays_is_read_again_whole() {
    let folders = Folders::new();
    write_own_logs(&folders.claude);
    folders.process(true);
    append(
        &folders.claude.join("c-solo.jsonl"),
        &record("solo", "u23", 22, "m22", 7, ""),
    );
    let warm = folders.warm_equals_cold();
    assert_eq!(
        read_counts(&warm),
        (1, 4),
        "a digest holds no lines to append to: the log's four lines"
    );
    let (_, _, db) = folders.process_db(true);
    assert!(Folders::digested(&db).contains(&"c-solo.jsonl".to_owned()));
    // The call m20 stays the solo session's.
    write_replaying_resume(&folders.claude);
    let warm = folders.warm_equals_cold();
    assert_eq!(
        warm.files_read, 2,
        "the new log, and the digested log it shares a record with, from its lines"
    );
    let (sessions, _, db) = folders.process_db(true);
    assert!(!Folders::digested(&db).contains(&"c-solo.jsonl".to_owned()));
    let calls: Vec<(&str, u64)> = sessions
        .sessions
        .iter()
        .map(|session| (session.session_id.as_ref(), session.api_calls))
        .collect();
    assert!(calls.contains(&("resume", 1)), "{calls:?}");
    assert!(calls.contains(&("solo", 4)), "{calls:?}");
    assert_eq!(folders.warm_equals_cold().files_read, 0);
}

/// Each session's calls, one by one (what `keel sessions usage` buckets), sorted.
fn each_call(db: &KeelDatabase, sessions: &AgentSessions) -> Vec<(String, Vec<CountedCall>)> {
    let logs = db.agent_logs().expect("a read made the logs input");
    sessions
        .sessions
        .iter()
        .map(|session| {
            let key = AgentSessionKey::new(db, session.harness.clone(), session.session_id.clone());
            let mut calls: Vec<CountedCall> = session_calls(db, session_facts(db, logs, key))
                .cloned()
                .collect();
            calls.sort_by_key(|call| (call.at, call.tokens.total(), call.model.clone()));
            (session.session_id.to_string(), calls)
        })
        .collect()
}

#[test]
fn a_digest_lists_each_call_and_prices_an_overridden_model_call_by_call_as_its_lines() {
    let folders = Folders::new();
    write_own_logs(&folders.claude);
    folders.process(true);
    let (_, _, warm) = folders.process_db(true);
    assert_eq!(
        Folders::digested(&warm).len(),
        3,
        "three logs held as digests"
    );
    let (sessions, _, cold) = folders.process_db(false);
    let (warm_sessions, _, warm) = folders.process_db(true);
    assert_eq!(warm_sessions, sessions);
    let solo: Vec<u64> = each_call(&warm, &warm_sessions)
        .into_iter()
        .find(|(id, _)| id == "solo")
        .map(|(_, calls)| calls.iter().map(|call| call.tokens.output).collect())
        .unwrap_or_default();
    // The sub-agent's m30 (10:15, 6 output), m20 at its larger copy (12), m21 (4).
    assert_eq!(solo, [6, 12, 4]);
    assert_eq!(
        each_call(&warm, &warm_sessions),
        each_call(&cold, &sessions)
    );
    // Input at 1 USD and output at 1,000 USD per million tokens: the solo session's 30
    // input and 22 output tokens cost 0.00003 + 0.022.
    let prices = Settings::parse(
        "[prices]\n\"claude-sonnet-4-5\" = { input = 1, output = 1000, cache_read = 0, cache_write_5m = 0, cache_write_1h = 0 }\n",
    )
    .expect("valid prices")
    .prices;
    let (cold, _, _) = folders.priced_process(false, prices.clone());
    let (warm, _, db) = folders.priced_process(true, prices);
    assert_eq!(Folders::digested(&db).len(), 3, "still digests");
    assert_eq!(warm, cold);
    let solo = warm
        .sessions
        .iter()
        .find(|session| session.session_id.as_ref() == "solo")
        .expect("the solo session");
    assert_eq!(
        solo.cost.as_ref().map(|cost| cost.as_str().to_owned()),
        Some("0.02203".to_owned())
    );
}

#[test]
fn a_process_that_reads_again_finds_a_new_log_replaying_a_record_of_a_digest_it_holds() {
    let folders = Folders::new();
    write_own_logs(&folders.claude);
    folders.process(true);
    let (_, _, mut db) = folders.process_db(true);
    assert!(Folders::digested(&db).contains(&"c-solo.jsonl".to_owned()));
    write_replaying_resume(&folders.claude);
    let sources = folders.sources(true);
    let read = db
        .apply_changes(&[ChangeEvent::AgentLogsFrom(Box::new(sources))])
        .expect("the folders exist")
        .agent_logs
        .expect("the logs were read");
    assert_eq!(
        read.files_read, 2,
        "the new log, and the digest it shares a record with, from its lines"
    );
    assert!(!Folders::digested(&db).contains(&"c-solo.jsonl".to_owned()));
    let logs = db.agent_logs().expect("a read made the logs input");
    let (cold, _) = folders.process(false);
    assert_eq!(agent_sessions(&db, logs), &cold);
}
