//! Agent logs read incrementally: an appended line is the one line parsed, and only the
//! session it belongs to is totalled and priced again; the warm answer equals a cold one.

use crate::support::count;
use keel_engine::KeelDatabase;
use keel_engine::agents::{LogEnv, LogSources};
use keel_fixtures::sessions::write_file;
use keel_queries::agents::agent_sessions;
use std::path::Path;

fn record(session: &str, uuid: &str, minute: u32, message: &str, output: u32) -> String {
    format!(
        "{{\"type\":\"assistant\",\"sessionId\":\"{session}\",\"uuid\":\"{uuid}\",\"timestamp\":\"2026-01-15T10:{minute:02}:00Z\",\"cwd\":\"/w\",\"requestId\":\"r-{message}\",\"message\":{{\"id\":\"{message}\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{{\"input_tokens\":10,\"output_tokens\":{output}}}}}}}\n"
    )
}

fn sources(dir: &Path) -> LogSources {
    LogSources {
        claude_dirs: vec![dir.to_owned()],
        codex_dirs: Vec::new(),
        env: LogEnv::default(),
    }
}

#[test]
fn an_appended_line_is_parsed_alone_and_reprices_only_its_session() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    let a_text = record("a", "u1", 1, "m1", 5) + &record("a", "u2", 2, "m2", 5);
    write_file(&a, &a_text).expect("write a");
    write_file(&b, &record("b", "u3", 3, "m3", 5)).expect("write b");
    let mut db = KeelDatabase::detached();
    let (logs, cold_read) = db
        .sync_agent_logs(None, &sources(dir.path()), &mut |_, _| {})
        .expect("the folder exists");
    assert_eq!(cold_read.lines_parsed, 3);
    let before = agent_sessions(&db, logs).clone();
    let cold = db.take_executed_queries();
    assert_eq!(count(&cold, "agent_session"), 2, "{cold:?}");
    assert_eq!(before.sessions.len(), 2);

    write_file(&a, &(a_text + &record("a", "u4", 4, "m4", 7))).expect("append to a");
    let (same, warm_read) = db
        .sync_agent_logs(Some(logs), &sources(dir.path()), &mut |_, _| {})
        .expect("the folder exists");
    assert_eq!(same, logs);
    assert_eq!((warm_read.files_read, warm_read.lines_parsed), (1, 1));
    let warm = agent_sessions(&db, logs).clone();
    let executed = db.take_executed_queries();
    assert_eq!(count(&executed, "log_claims"), 1, "{executed:?}");
    assert_eq!(
        count(&executed, "agent_session"),
        1,
        "only a's: {executed:?}"
    );
    let a_warm = &warm.sessions[0];
    assert_eq!(
        (
            a_warm.session_id.as_ref(),
            a_warm.api_calls,
            a_warm.tokens.output
        ),
        ("a", 3, 17)
    );
    assert_eq!(warm.sessions[1], before.sessions[1]);

    let mut fresh = KeelDatabase::detached();
    let (cold_logs, _) = fresh
        .sync_agent_logs(None, &sources(dir.path()), &mut |_, _| {})
        .expect("the folder exists");
    assert_eq!(agent_sessions(&fresh, cold_logs), &warm);
}
