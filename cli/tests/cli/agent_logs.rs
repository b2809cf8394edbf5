//! End-to-end `keel sessions` over agent logs: the fixture logs of `fixtures/agent-logs/`
//! (one file per trap of `notes/agent-logs.md`) written under a temporary HOME, read from
//! the default locations, and linked to a fixture repository's commits. Every expected
//! number below is computed by hand in the comments from the fixture lines and published
//! prices, never by keel.

use crate::support::{Run, run, snapshot_settings};
use keel_fixtures::FIXTURE_EMAIL;
use keel_fixtures::sessions::{
    CLAUDE_TRAILER, CODEX_TRAILER, LEX_NOW, at, lines, message, session_repo,
};
use serde_json::Value;
use std::path::Path;

/// The fixture logs: (path under HOME, contents with `@REPO@` for the repository).
const LOGS: [(&str, &str); 9] = [
    (
        ".claude/projects/-w-app/s1.jsonl",
        include_str!("../../../fixtures/agent-logs/claude/projects/-w-app/s1.jsonl"),
    ),
    (
        ".claude/projects/-w-app/s1/subagents/agent-x.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/claude/projects/-w-app/s1/subagents/agent-x.jsonl"
        ),
    ),
    (
        ".claude/projects/-w-app/s2.jsonl",
        include_str!("../../../fixtures/agent-logs/claude/projects/-w-app/s2.jsonl"),
    ),
    (
        ".claude/projects/-w-app/s3.jsonl",
        include_str!("../../../fixtures/agent-logs/claude/projects/-w-app/s3.jsonl"),
    ),
    (
        ".codex/sessions/2026/01/15/rollout-2026-01-15T14-00-00-cx1.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T14-00-00-cx1.jsonl"
        ),
    ),
    (
        ".codex/archived_sessions/rollout-2026-01-15T14-00-00-cx1.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex/archived_sessions/rollout-2026-01-15T14-00-00-cx1.jsonl"
        ),
    ),
    (
        ".codex/sessions/2026/01/15/rollout-2026-01-15T14-10-00-cx2.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T14-10-00-cx2.jsonl"
        ),
    ),
    (
        ".codex/sessions/2026/01/15/rollout-2026-01-15T15-00-00-cx3.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T15-00-00-cx3.jsonl"
        ),
    ),
    (
        ".codex/sessions/2026/01/15/rollout-2026-01-15T16-00-00-cx4.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T16-00-00-cx4.jsonl"
        ),
    ),
];

/// A HOME holding the fixture logs and `app/`, a repository with one Claude-trailer
/// commit at 10:30 (+4 lines) and one Codex-trailer commit at 14:05 (+3 lines).
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("a temporary folder");
    let mut repo = session_repo(home.path(), "app").expect("a fixture repository");
    repo.write("a.txt", &lines("a", 4)).expect("write");
    repo.commit_at(
        &message("claude work", Some(CLAUDE_TRAILER)),
        FIXTURE_EMAIL,
        at(10, 30),
        at(10, 30),
    )
    .expect("commit");
    repo.write("b.txt", &lines("b", 3)).expect("write");
    repo.commit_at(
        &message("codex work", Some(CODEX_TRAILER)),
        FIXTURE_EMAIL,
        at(14, 5),
        at(14, 5),
    )
    .expect("commit");
    let repo_path = std::fs::canonicalize(home.path().join("app")).expect("the repository exists");
    for (path, text) in LOGS {
        let target = home.path().join(path);
        std::fs::create_dir_all(target.parent().expect("a file has a folder")).expect("mkdir");
        std::fs::write(
            &target,
            text.replace("@REPO@", &repo_path.display().to_string()),
        )
        .expect("write a log");
    }
    home
}

fn keel(home: &Path, args: &[&str]) -> Run {
    let run = run(home, args);
    run.assert_no_panic();
    run
}

fn exported(home: &Path) -> Vec<Value> {
    let run = keel(home, &["sessions", "export"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

fn by_id<'a>(records: &'a [Value], id: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["session_id"] == id)
        .unwrap_or_else(|| panic!("no session {id} in {records:?}"))
}

#[test]
fn claude_traps_count_each_call_and_tool_once() {
    let home = home();
    let records = exported(home.path());
    let s1 = by_id(&records, "s1");
    // m1 is written three times (a streaming placeholder with output 1, then two content
    // blocks): one call, the largest copy. m2 is replayed by `/btw` under a new request id
    // in the sub-agent file: one call. m3 is the sub-agent's own (sidechain, belongs to
    // s1). The `<synthetic>` record is no call.
    assert_eq!(s1["api_calls"], 3);
    assert_eq!(
        s1["tokens"],
        serde_json::json!({"input": 310, "output": 170, "cache_write_5m": 1100, "cache_write_1h": 200, "cache_read": 500})
    );
    // t1 and t3 are Bash (t3 appears twice), t2 is Edit.
    assert_eq!(s1["tools"], serde_json::json!({"Bash": 2, "Edit": 1}));
    assert_eq!(
        s1["models"],
        serde_json::json!(["claude-haiku-4-5", "claude-sonnet-4-5"])
    );
    // The sub-agent logged first (10:01), the /btw copy last (10:09).
    assert_eq!(s1["start"], "2026-01-15T10:01:00Z");
    assert_eq!(s1["end"], "2026-01-15T10:09:00Z");
    // sonnet-4-5 $3/$15/$3.75/–/$0.30, haiku-4-5 $1/$5/$1.25/$2/–, per million:
    // m1 100·3 + 50·15 + 1000·3.75 = 4800; m2 10·3 + 20·15 + 500·0.3 = 480;
    // m3 200·1 + 100·5 + 100·1.25 + 200·2 = 1225; total 6505 → $0.006505.
    assert_eq!(s1["cost"]["total"], 0.006505);
    let repo = std::fs::canonicalize(home.path().join("app")).expect("exists");
    assert_eq!(s1["repo"], repo.display().to_string());
    assert_eq!(s1["project"], "app");
    // s2 replays s1's u2 (same uuid: not counted again); its own call: 1000·3 + 1000·15.
    let s2 = by_id(&records, "s2");
    assert_eq!(
        (s2["api_calls"].as_u64(), s2["cost"]["total"].as_f64()),
        (Some(1), Some(0.018))
    );
    assert_eq!(
        (s2["repo"].as_str(), s2["project"].as_str()),
        (Some("/nonexistent/place"), Some("place"))
    );
    // s3 resumes s1 in the other two shapes: its first line copies s1's m1 under the new
    // session id with a new uuid and time (still s1's call, and t1 is not counted again);
    // m30 is its own call, replayed in the same file under a fresh uuid (one call, one
    // Write). 10·3 + 10·15 = 180 → $0.00018. Its times are its own lines'.
    let s3 = by_id(&records, "s3");
    assert_eq!(
        (s3["api_calls"].as_u64(), s3["cost"]["total"].as_f64()),
        (Some(1), Some(0.00018))
    );
    assert_eq!(s3["tools"], serde_json::json!({"Write": 1}));
    assert_eq!(
        (s3["start"].as_str(), s3["end"].as_str()),
        (Some("2026-01-15T11:00:00Z"), Some("2026-01-15T11:02:00Z"))
    );
}

#[test]
fn codex_traps_count_rises_once_and_subagents_toward_their_spawner() {
    let home = home();
    let records = exported(home.path());
    // cx1: rises 1100 (800 input, 200 cached, 100 out) and 2200 (1000, 1000, 200); the
    // repeated row and `info: null` add nothing; the archived copy is the same rollout.
    // cx2 is cx1's sub-agent: its replayed header, total and tool (stamped 14:10:00) add
    // nothing; its rise 1500−1000 input, 150−100 output is one more call of cx1.
    assert!(
        records.iter().all(|r| r["session_id"] != "cx2"),
        "{records:?}"
    );
    let cx1 = by_id(&records, "cx1");
    assert_eq!(cx1["api_calls"], 3);
    assert_eq!(
        cx1["tokens"],
        serde_json::json!({"input": 2300, "output": 350, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 1200})
    );
    assert_eq!(
        cx1["tools"],
        serde_json::json!({"apply_patch": 1, "shell": 2})
    );
    assert_eq!(
        (cx1["start"].as_str(), cx1["end"].as_str()),
        (Some("2026-01-15T14:00:00Z"), Some("2026-01-15T14:10:07Z"))
    );
    // gpt-5 $1.25 input, $0.125 cached, $10 output: 2300·1.25 + 1200·0.125 + 350·10 =
    // 2875 + 150 + 3500 = 6525 → $0.006525.
    assert_eq!(cx1["cost"]["total"], 0.006525);
    // cx4 forks cx1: its second header, replayed tool c1 and total 3300 (all stamped
    // 16:00:00) add nothing; that total is its baseline, so the rise to 3850 is one call
    // of 500 input and 50 output: 500·1.25 + 50·10 = 1125 → $0.001125; c9 is its tool.
    let cx4 = by_id(&records, "cx4");
    assert_eq!(
        (cx4["api_calls"].as_u64(), cx4["cost"]["total"].as_f64()),
        (Some(1), Some(0.001125))
    );
    assert_eq!(cx4["tools"], serde_json::json!({"shell": 1}));
    assert_eq!(
        cx4["tokens"],
        serde_json::json!({"input": 500, "output": 50, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 0})
    );
    // cx3 has no turn_context: priced as gpt-5 (100·1.25 + 10·10 = 225), flagged.
    let cx3 = by_id(&records, "cx3");
    assert_eq!(cx3["cost"]["total"], 0.000225);
    let run = keel(home.path(), &["sessions", "export"]);
    assert!(
        run.stderr
            .contains("no turn_context line; its calls are priced as gpt-5"),
        "{}",
        run.stderr
    );
    // The malformed line and the partial last line are warnings naming file:line.
    assert!(
        run.stderr
            .contains("rollout-2026-01-15T15-00-00-cx3.jsonl:2: skipped a malformed line"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("s2.jsonl:3: the last line is incomplete"),
        "{}",
        run.stderr
    );
}

#[test]
fn sessions_link_log_sessions_and_export_replays_to_the_same_report() {
    let home = home();
    let direct = keel(
        home.path(),
        &["sessions", "--now", LEX_NOW, "--format", "json"],
    );
    assert_eq!(direct.code, 0, "{}", direct.stderr);
    let report: Value = serde_json::from_str(&direct.stdout).expect("JSON");
    // s1 (10:01–10:09) links the 10:30 Claude-trailer commit (+4); cx1 the 14:05 Codex one (+3).
    let linked: Vec<(&str, u64)> = report["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap_or(""),
                r["added"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(linked, vec![("cx1", 3), ("s1", 4)]);
    assert_eq!(
        report["summary"]["by_harness"]["claude-code"]["cost"],
        0.006505
    );
    assert_eq!(report["summary"]["by_harness"]["codex"]["cost"], 0.006525);
    let export = keel(home.path(), &["sessions", "export"]);
    let file = home.path().join("exported.jsonl");
    std::fs::write(&file, &export.stdout).expect("write the export");
    let file = file.display().to_string();
    let replayed = keel(
        home.path(),
        &[
            "sessions",
            "--sessions",
            &file,
            "--now",
            LEX_NOW,
            "--format",
            "json",
        ],
    );
    assert_eq!(replayed.stdout, direct.stdout);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("sessions_agent_logs_json", direct.stdout);
    });
}

#[test]
fn an_unpriced_model_leaves_cost_unknown_and_a_flagged_missing_folder_is_refused() {
    let home = home();
    let path = home.path().join(".claude/projects/-w-app/s2.jsonl");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(
        &path,
        text.replace(
            "\"model\":\"claude-sonnet-4-5\"",
            "\"model\":\"house-model-1\"",
        ),
    )
    .expect("write");
    let records = exported(home.path());
    assert_eq!(by_id(&records, "s2")["cost"]["total"], Value::Null);
    let run = keel(home.path(), &["sessions", "export"]);
    assert!(
        run.stderr.contains("model \"house-model-1\" is unpriced"),
        "{}",
        run.stderr
    );
    std::fs::write(
        home.path().join("app/keel.toml"),
        "[prices]\n\"house-model-1\" = { input = 1, output = 2 }\n",
    )
    .expect("write keel.toml");
    let priced = keel(
        &home.path().join("app"),
        &[
            "sessions",
            "export",
            "--claude-dir",
            &home.path().join(".claude/projects").display().to_string(),
        ],
    );
    assert_eq!(priced.code, 0, "{}", priced.stderr);
    // 1000·1 + 1000·2 per million.
    assert!(
        priced.stdout.contains("\"session_id\":\"s2\""),
        "{}",
        priced.stdout
    );
    assert!(
        priced.stdout.contains("\"cost\":{\"total\":0.003}"),
        "{}",
        priced.stdout
    );
    let missing = keel(
        home.path(),
        &["sessions", "export", "--claude-dir", "no-such-folder"],
    );
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("--claude-dir no-such-folder: no such folder"),
        "{}",
        missing.stderr
    );
}

/// A temporary HOME holding `logs` (path under HOME, contents), and what `keel sessions
/// export` wrote for it.
fn export_of(logs: &[(&str, &str)]) -> (Vec<Value>, String) {
    let home = tempfile::tempdir().expect("a temporary folder");
    for (path, text) in logs {
        let target = home.path().join(path);
        std::fs::create_dir_all(target.parent().expect("a file has a folder")).expect("mkdir");
        std::fs::write(&target, text).expect("write a log");
    }
    let run = keel(home.path(), &["sessions", "export"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    (records, run.stdout)
}

const GATEWAY: &str =
    include_str!("../../../fixtures/agent-logs/no-request-id/projects/-w-gw/g1.jsonl");

#[test]
fn claude_records_without_a_request_id_are_calls_deduplicated_by_message_id() {
    // A gateway (or Claude Code 2.1.x) session: no record has a `requestId`. Before the
    // fix keel counted none of them: api_calls 0, cost 0, no warning.
    let (records, _) = export_of(&[(".claude/projects/-w-gw/g1.jsonl", GATEWAY)]);
    let g1 = by_id(&records, "g1");
    // msg_g1 is written twice (a streaming placeholder with output 1, then the tool_use
    // block with output 80): one call, the larger copy. msg_g2 is the second call. The
    // `<synthetic>` record is no call.
    assert_eq!(g1["api_calls"], 2);
    // msg_g1 100 in, 80 out, 200 written, 1000 read; msg_g2 50 in, 40 out, 2000 read.
    assert_eq!(
        g1["tokens"],
        serde_json::json!({"input": 150, "output": 120, "cache_write_5m": 200, "cache_write_1h": 0, "cache_read": 3000})
    );
    assert_eq!(g1["models"], serde_json::json!(["claude-sonnet-4-5"]));
    assert_eq!(g1["tools"], serde_json::json!({"Edit": 1}));
    // sonnet-4-5 $3 in, $15 out, $3.75 5-minute write, $0.30 read, per million:
    // msg_g1 100·3 + 80·15 + 200·3.75 + 1000·0.3 = 300 + 1200 + 750 + 300 = 2550;
    // msg_g2 50·3 + 40·15 + 2000·0.3 = 150 + 600 + 600 = 1350; 3900 → $0.0039.
    assert_eq!(g1["cost"]["total"], 0.0039);
    assert_eq!(
        (g1["start"].as_str(), g1["end"].as_str()),
        (Some("2026-02-10T09:00:00Z"), Some("2026-02-10T09:01:30Z"))
    );
}

const ORIGINAL: &str =
    include_str!("../../../fixtures/agent-logs/resume-new-id/projects/-w-rs/d41c7a52.jsonl");
const RESUMED: &str =
    include_str!("../../../fixtures/agent-logs/resume-new-id/projects/-w-rs/3b9e0f17.jsonl");

#[test]
fn a_resumed_session_never_takes_the_calls_of_the_session_it_resumed_whatever_the_file_names() {
    // 3b9e0f17 resumes d41c7a52: it replays all three of d41c7a52's records under its own
    // session id with their uuids and new times (13:00), then a fresh-uuid copy of msg_o2,
    // then its own prompt and call. As Claude Code names them the resumed file sorts
    // first; before the fix it took msg_o1 and msg_o2 and every uuid, and d41c7a52
    // disappeared. The layouts: as named, the names swapped, and each in its own folder.
    let layouts: [[(&str, &str); 2]; 3] = [
        [
            (".claude/projects/-w-rs/d41c7a52.jsonl", ORIGINAL),
            (".claude/projects/-w-rs/3b9e0f17.jsonl", RESUMED),
        ],
        [
            (".claude/projects/-w-rs/3b9e0f17.jsonl", ORIGINAL),
            (".claude/projects/-w-rs/d41c7a52.jsonl", RESUMED),
        ],
        [
            (".claude/projects/-w-z/a.jsonl", ORIGINAL),
            (".claude/projects/-w-a/b.jsonl", RESUMED),
        ],
    ];
    let mut outputs = Vec::new();
    for layout in &layouts {
        let (records, stdout) = export_of(layout);
        // d41c7a52 started first (09:00, the resumed session's first record is at 13:00):
        // the calls and records both hold are its own.
        let original = by_id(&records, "d41c7a52");
        assert_eq!(original["api_calls"], 2, "{layout:?}");
        assert_eq!(
            (original["start"].as_str(), original["end"].as_str()),
            (Some("2026-02-10T09:00:00Z"), Some("2026-02-10T09:02:00Z"))
        );
        assert_eq!(original["tools"], serde_json::json!({"Bash": 1, "Edit": 1}));
        // msg_o1 100·3 + 50·15 = 1050; msg_o2 200·3 + 100·15 + 1000·0.3 = 2400;
        // 3450 → $0.00345.
        assert_eq!(original["cost"]["total"], 0.00345);
        // 3b9e0f17: its uuid copies are d41c7a52's records; the fresh-uuid copy (13:00:02)
        // is its record but msg_o2 stays d41c7a52's call; msg_r1 is its one call:
        // 20·3 + 10·15 + 400·3.75 = 60 + 150 + 1500 = 1710 → $0.00171.
        let resumed = by_id(&records, "3b9e0f17");
        assert_eq!(resumed["api_calls"], 1, "{layout:?}");
        assert_eq!(resumed["tools"], serde_json::json!({"Write": 1}));
        assert_eq!(
            (resumed["start"].as_str(), resumed["end"].as_str()),
            (Some("2026-02-10T13:00:02Z"), Some("2026-02-10T13:05:00Z"))
        );
        assert_eq!(resumed["cost"]["total"], 0.00171);
        outputs.push(stdout);
    }
    assert!(
        outputs.windows(2).all(|pair| pair[0] == pair[1]),
        "{outputs:#?}"
    );
}

/// The Codex sub-agent fixtures: (file name, contents).
const SUBAGENT_ROLLOUTS: [(&str, &str); 5] = [
    (
        "rollout-2026-02-10T09-00-00-px1.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex-subagents/sessions/2026/02/10/rollout-2026-02-10T09-00-00-px1.jsonl"
        ),
    ),
    (
        "rollout-2026-02-10T09-05-00-sa1.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex-subagents/sessions/2026/02/10/rollout-2026-02-10T09-05-00-sa1.jsonl"
        ),
    ),
    (
        "rollout-2026-02-10T10-00-00-py1.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex-subagents/sessions/2026/02/10/rollout-2026-02-10T10-00-00-py1.jsonl"
        ),
    ),
    (
        "rollout-2026-02-10T10-10-00-sb1.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex-subagents/sessions/2026/02/10/rollout-2026-02-10T10-10-00-sb1.jsonl"
        ),
    ),
    (
        "rollout-2026-02-10T10-20-00-sb2.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex-subagents/sessions/2026/02/10/rollout-2026-02-10T10-20-00-sb2.jsonl"
        ),
    ),
];

#[test]
fn codex_subagents_count_replayed_rows_once_and_a_restart_from_zero_whole() {
    // As Codex names them (each parent sorts before its sub-agents), then renamed so that
    // every sub-agent sorts first: the same answer.
    let named: Vec<(String, &str)> = SUBAGENT_ROLLOUTS
        .iter()
        .map(|(name, text)| (format!(".codex/sessions/2026/02/10/{name}"), *text))
        .collect();
    let renamed: Vec<(String, &str)> = SUBAGENT_ROLLOUTS
        .iter()
        .map(|(name, text)| {
            let child = ["sa1", "sb1", "sb2"]
                .iter()
                .any(|id| name.ends_with(&format!("-{id}.jsonl")));
            let order = if child { "a" } else { "b" };
            (
                format!(".codex/sessions/2026/02/10/rollout-{order}-{name}"),
                *text,
            )
        })
        .collect();
    let mut outputs = Vec::new();
    for layout in [named, renamed] {
        let logs: Vec<(&str, &str)> = layout.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let (records, stdout) = export_of(&logs);
        assert!(
            records
                .iter()
                .all(|r| !["sa1", "sb1", "sb2"].contains(&r["session_id"].as_str().unwrap_or(""))),
            "sub-agents count toward their spawners: {records:?}"
        );
        // px1: three turns (totals 1100, 2750, 4900). Its sub-agent sa1 replays px1's
        // turn_context, tool p-c1 and all three rows with their original times (09:00),
        // so they are not recognised as a replay by time: before the fix each counted
        // again, 8 calls. Each equals a total px1 already counted: nothing. sa1's own
        // rows 5750 and 6500 are two calls: 3 + 2 = 5. Every row carries its turn's own
        // usage (last_token_usage), as input (cached part apart) / cached / output:
        // 1000/0/100, 700/800/150, 800/1200/150 (px1); 800/0/50, 200/500/50 (sa1).
        let px1 = by_id(&records, "px1");
        assert_eq!(px1["api_calls"], 5);
        assert_eq!(
            px1["tokens"],
            serde_json::json!({"input": 3500, "output": 500, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 2500})
        );
        // The same as sa1's last total: 6000 input of which 2500 cached, 500 output.
        // gpt-5 $1.25 input, $0.125 cached, $10 output per million:
        // 3500·1.25 + 2500·0.125 + 500·10 = 4375 + 312.5 + 5000 = 9687.5 → $0.0096875.
        assert_eq!(px1["cost"]["total"], 0.0096875);
        assert_eq!(px1["tools"], serde_json::json!({"shell": 2}));
        assert_eq!(
            (px1["start"].as_str(), px1["end"].as_str()),
            (Some("2026-02-10T09:00:00Z"), Some("2026-02-10T09:05:20Z"))
        );
        // py1: one turn of its own, total 2200 (2000 in, 200 out), no last_token_usage.
        // sb1 replays that total (restamped 10:10:00: the replay by time), then counts
        // from 0: 330 (300 in, 30 out) is lower than 2200, a restart, so the whole 330 is
        // one call (before the fix it was lost), and 880 adds 880 − 330: 500 in of which
        // 100 cached, 50 out. sb2 replays 2200 with its original time (10:00:05), already
        // counted: nothing; then its own first turn, total 3000: higher than 2200, but its
        // last_token_usage says 2500 in, 500 out (the rise would say 500 and 300).
        // 1 + 2 + 1 = 4 calls: input 2000 + 300 + 400 + 2500 = 5200, cached 100,
        // output 200 + 30 + 50 + 500 = 780.
        let py1 = by_id(&records, "py1");
        assert_eq!(py1["api_calls"], 4);
        assert_eq!(
            py1["tokens"],
            serde_json::json!({"input": 5200, "output": 780, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 100})
        );
        // 5200·1.25 + 100·0.125 + 780·10 = 6500 + 12.5 + 7800 = 14312.5 → $0.0143125.
        assert_eq!(py1["cost"]["total"], 0.0143125);
        outputs.push(stdout);
    }
    assert_eq!(outputs[0], outputs[1]);
}
