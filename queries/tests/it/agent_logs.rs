//! Agent logs read incrementally: an appended line is the one line parsed, and only the
//! session it belongs to is totalled and priced again; the warm answer equals a cold one.

use crate::support::count;
use keel_engine::agents::{AgentLogs, LogEnv, LogSources, LogSync};
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::sessions::write_file;
use keel_queries::agents::{agent_session, agent_sessions, log_claims};
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

/// Reads the logs under `dir` into `db` through the one door: the logs input and what
/// the read saw.
fn read_logs(db: &mut KeelDatabase, dir: &Path) -> (AgentLogs, LogSync) {
    let read = db
        .apply_changes(&[ChangeEvent::AgentLogsFrom(Box::new(sources(dir)))])
        .expect("the folder exists");
    let logs = db.agent_logs().expect("a read made the logs input");
    (logs, read.agent_logs.expect("the logs were read"))
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
    let (logs, cold_read) = read_logs(&mut db, dir.path());
    assert_eq!(cold_read.lines_parsed, 3);
    let before = agent_sessions(&db, logs).clone();
    let cold = db.take_executed_queries();
    assert_eq!(count(&cold, agent_session), 2, "{cold:?}");
    assert_eq!(before.sessions.len(), 2);

    write_file(&a, &(a_text + &record("a", "u4", 4, "m4", 7))).expect("append to a");
    let (same, warm_read) = read_logs(&mut db, dir.path());
    assert_eq!(same, logs);
    assert_eq!((warm_read.files_read, warm_read.lines_parsed), (1, 1));
    let warm = agent_sessions(&db, logs).clone();
    let executed = db.take_executed_queries();
    assert_eq!(count(&executed, log_claims), 1, "{executed:?}");
    assert_eq!(count(&executed, agent_session), 1, "only a's: {executed:?}");
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
    let (cold_logs, _) = read_logs(&mut fresh, dir.path());
    assert_eq!(agent_sessions(&fresh, cold_logs), &warm);
}

#[test]
fn a_read_or_prices_that_changed_nothing_set_nothing_and_new_prices_reprice_every_session() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_file(
        &dir.path().join("a.jsonl"),
        &(record("a", "u1", 1, "m1", 5) + &record("b", "u2", 2, "m2", 5)),
    )
    .expect("write a");
    let mut db = KeelDatabase::detached();
    read_logs(&mut db, dir.path());
    let logs = db.agent_logs().expect("the logs input");
    let bundled = agent_sessions(&db, logs).clone();
    let cold = db.take_executed_queries();
    assert_eq!(count(&cold, agent_session), 2, "{cold:?}");

    let again = db
        .apply_changes(&[
            ChangeEvent::AgentLogsFrom(Box::new(sources(dir.path()))),
            ChangeEvent::PricesChanged(Default::default()),
        ])
        .expect("the folder exists");
    assert!(!again.prices_changed, "the same (empty) [prices]");
    let read = again.agent_logs.expect("the logs were read");
    assert_eq!((read.files_read, read.lines_parsed), (0, 0));
    assert_eq!(agent_sessions(&db, logs), &bundled);
    let unchanged = db.take_executed_queries();
    assert_eq!(count(&unchanged, agent_session), 0, "{unchanged:?}");

    let settings = keel_engine::settings::Settings::from_bytes(
        b"[prices]\n\"claude-sonnet-4-5\" = { input = 1000000.0, output = 0.0 }\n",
    )
    .expect("valid prices");
    let priced = db
        .apply_changes(&[ChangeEvent::PricesChanged(settings.prices)])
        .expect("setting prices reads nothing");
    assert!(priced.prices_changed);
    let repriced = agent_sessions(&db, logs).clone();
    let executed = db.take_executed_queries();
    assert_eq!(count(&executed, agent_session), 2, "{executed:?}");
    assert_eq!(count(&executed, log_claims), 0, "no line is read again");
    // 10 input tokens at $1,000,000 per million: $10 each, whatever the bundled table says.
    for session in &repriced.sessions {
        assert_eq!(
            session.cost.as_ref().map(|cost| cost.as_str().to_owned()),
            Some("10".to_owned()),
            "{session:?}"
        );
    }
}
