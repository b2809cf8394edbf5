//! End-to-end `keel sessions` over Gemini CLI and OpenCode logs: fixture logs built here,
//! in code, with fixed times on 2026-01-15 (UTC), written under a temporary HOME in each
//! harness's default location, read, counted, priced and linked to the commits of
//! fixture repositories. Every expected number is worked out by hand in the comments from
//! the fixture records and published prices, never by keel.

use crate::support::{Run, run};
use keel_fixtures::FIXTURE_EMAIL;
use keel_fixtures::sessions::{LEX_DAY, LEX_NOW, at, lines, message, session_repo};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// RFC 3339 of `hh:mm:ss` on 2026-01-15, with milliseconds as Gemini CLI writes them.
fn iso(hh: i64, mm: i64, ss: i64) -> String {
    format!("2026-01-15T{hh:02}:{mm:02}:{ss:02}.000Z")
}

/// Milliseconds since the epoch of `hh:mm:ss` on 2026-01-15, as OpenCode writes times.
fn ms(hh: i64, mm: i64, ss: i64) -> i64 {
    (LEX_DAY + hh * 3600 + mm * 60 + ss) * 1000
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
    std::fs::write(path, text).expect("write a log");
}

/// JSON lines.
fn jsonl(records: &[Value]) -> String {
    records.iter().map(|record| format!("{record}\n")).collect()
}

/// A document as the harnesses write it (two-space indent).
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON")
}

/// Gemini CLI's usage record of one response.
fn gemini_tokens(input: u64, output: u64, cached: u64, thoughts: u64, tool: u64) -> Value {
    json!({"input": input, "output": output, "cached": cached, "thoughts": thoughts, "tool": tool,
           "total": input + output + thoughts + tool})
}

fn gemini_message(
    id: &str,
    time: &str,
    model: &str,
    tokens: Value,
    tools: &[(&str, &str)],
) -> Value {
    let calls: Vec<Value> = tools
        .iter()
        .map(|(id, name)| json!({"id": id, "name": name, "args": {}, "status": "success", "timestamp": time}))
        .collect();
    json!({"id": id, "timestamp": time, "type": "gemini", "content": "", "thoughts": [],
           "tokens": tokens, "model": model, "toolCalls": calls})
}

fn gemini_user(id: &str, time: &str) -> Value {
    json!({"id": id, "timestamp": time, "type": "user", "content": [{"text": "go on"}]})
}

/// Session g1's first hour as an older build wrote it: one document.
fn g1_document() -> Value {
    json!({
        "sessionId": "g1-session", "projectHash": "h", "startTime": iso(9, 0, 0),
        "lastUpdated": iso(9, 0, 30),
        "messages": [
            gemini_user("u1", &iso(9, 0, 10)),
            gemini_message("m1", &iso(9, 0, 20), "gemini-2.5-pro",
                           gemini_tokens(10_000, 500, 4_000, 200, 0), &[("c1", "write_file")]),
        ]
    })
}

/// The Gemini CLI logs under `home`, for the project folder `project` (a repository):
///
/// - g1 began in an older build (a `.json` document). Gemini CLI's storage migration
///   copied its project folder from the sha256-named one to the short-named one (`cp`,
///   so the document is in both), and resuming it wrote a `.jsonl` beside the document
///   that replays its header and messages before the new work (`$set` of the session id,
///   u2, m2 written first without usage then again with it, then `$set` lastUpdated).
///   A sub-agent's chat (`chats/g1-session/sub-1.jsonl`) ran inside it.
/// - g2 is a chat of a model no price table knows.
fn gemini_logs(home: &Path, project: &Path) {
    let gemini = home.join(".gemini");
    let folder = project.display().to_string();
    let digest = sha256_hex(&folder);
    write(
        &gemini.join("projects.json"),
        &pretty(&json!({"projects": {folder.clone(): "gapp"}})),
    );
    let slug = gemini.join("tmp/gapp");
    write(&slug.join(".project_root"), &folder);
    let document = pretty(&g1_document());
    let name = "session-2026-01-15T09-00-g1sessio";
    write(
        &gemini.join(format!("tmp/{digest}/chats/{name}.json")),
        &document,
    );
    write(&slug.join(format!("chats/{name}.json")), &document);
    let old = g1_document();
    let mut resumed = vec![json!({"sessionId": "g1-session", "projectHash": "h",
                                  "startTime": iso(9, 0, 0), "lastUpdated": iso(9, 0, 30)})];
    resumed.extend(
        old["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .cloned(),
    );
    resumed.extend([
        json!({"$set": {"sessionId": "g1-session"}}),
        gemini_user("u2", &iso(11, 0, 0)),
        gemini_message(
            "m2",
            &iso(11, 0, 10),
            "gemini-2.5-pro",
            Value::Null,
            &[("c2", "run_shell_command")],
        ),
        gemini_message(
            "m2",
            &iso(11, 0, 10),
            "gemini-2.5-pro",
            gemini_tokens(20_000, 1_000, 16_000, 0, 500),
            &[("c2", "run_shell_command")],
        ),
        json!({"$set": {"lastUpdated": iso(11, 0, 20)}}),
    ]);
    write(&slug.join(format!("chats/{name}.jsonl")), &jsonl(&resumed));
    write(
        &slug.join("chats/g1-session/sub-1.jsonl"),
        &jsonl(&[
            json!({"sessionId": "sub-1", "projectHash": "h", "startTime": iso(11, 0, 12),
                   "lastUpdated": iso(11, 0, 12), "kind": "subagent", "directories": [folder]}),
            gemini_message(
                "m3",
                &iso(11, 0, 15),
                "gemini-2.5-flash",
                gemini_tokens(3_000, 300, 0, 0, 0),
                &[],
            ),
        ]),
    );
    write(
        &slug.join("chats/session-2026-01-15T15-00-g2sessio.jsonl"),
        &jsonl(&[
            json!({"sessionId": "g2-session", "projectHash": "h", "startTime": iso(15, 0, 0),
                   "lastUpdated": iso(15, 0, 0)}),
            gemini_message(
                "m4",
                &iso(15, 0, 5),
                "gemini-house-exp",
                gemini_tokens(100, 10, 0, 0, 0),
                &[],
            ),
        ]),
    );
}

/// sha256 of `text` in hex, as Gemini CLI named a project's folder before short names.
fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    let digest: [u8; 32] = sha2::Sha256::digest(text.as_bytes()).into();
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn opencode_usage(input: u64, output: u64, read: u64, write: u64) -> Value {
    json!({"input": input, "output": output, "reasoning": 0, "cache": {"read": read, "write": write}})
}

fn opencode_session(id: &str, parent: Option<&str>, folder: &str, created: i64) -> Value {
    let mut session = json!({"id": id, "projectID": "proj1", "directory": folder, "title": "t",
                             "version": "0.15.0", "time": {"created": created, "updated": created}});
    if let Some(parent) = parent {
        session["parentID"] = json!(parent);
    }
    session
}

fn opencode_user(id: &str, session: &str, created: i64) -> Value {
    json!({"id": id, "sessionID": session, "role": "user", "time": {"created": created},
           "agent": "build", "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}})
}

fn opencode_assistant(
    id: &str,
    session: &str,
    (created, completed): (i64, i64),
    model: &str,
    folder: &str,
    tokens: Value,
) -> Value {
    json!({"id": id, "sessionID": session, "role": "assistant",
           "time": {"created": created, "completed": completed}, "parentID": "msg_u1",
           "modelID": model, "providerID": "anthropic", "mode": "build", "agent": "build",
           "path": {"cwd": folder, "root": folder}, "cost": 0, "tokens": tokens})
}

fn opencode_step(id: &str, session: &str, message: &str, tokens: Value) -> Value {
    json!({"id": id, "sessionID": session, "messageID": message, "type": "step-finish",
           "reason": "tool-calls", "cost": 0, "tokens": tokens})
}

fn opencode_tool(id: &str, session: &str, message: &str, call: (&str, &str), start: i64) -> Value {
    json!({"id": id, "sessionID": session, "messageID": message, "type": "tool",
           "callID": call.0, "tool": call.1,
           "state": {"status": "completed", "input": {}, "output": "", "title": "", "metadata": {},
                     "time": {"start": start, "end": start + 1000}}})
}

/// The OpenCode storage under `home`'s default data folder, for `project` (a repository):
///
/// - ses_o1: msg_a1 ran two steps (its own `tokens` are only the last step's); msg_a2
///   was written by a build without steps; a tool part each of `edit` and `bash`.
/// - ses_o2 is ses_o1's sub-agent (`parentID`), one step of claude-haiku-4-5.
/// - ses_o3 forks ses_o1 at 14:00: clones of msg_u1 and msg_a1 with new ids and every
///   other field as written (times, usage, parts and their call ids), then its own call
///   of a model no price table knows.
fn opencode_logs(home: &Path, project: &Path) {
    let storage = home.join(".local/share/opencode/storage");
    let folder = project.display().to_string();
    let put = |relative: &str, value: Value| write(&storage.join(relative), &pretty(&value));
    let a1_time = (ms(13, 0, 6), ms(13, 0, 30));
    let a1_last = opencode_usage(200, 100, 3_000, 0);
    let steps = [
        opencode_usage(1_000, 50, 0, 2_000),
        opencode_usage(200, 100, 3_000, 0),
    ];
    put(
        "session/proj1/ses_o1.json",
        opencode_session("ses_o1", None, &folder, ms(13, 0, 0)),
    );
    put(
        "message/ses_o1/msg_u1.json",
        opencode_user("msg_u1", "ses_o1", ms(13, 0, 5)),
    );
    put(
        "message/ses_o1/msg_a1.json",
        opencode_assistant(
            "msg_a1",
            "ses_o1",
            a1_time,
            "claude-sonnet-4-5",
            &folder,
            a1_last.clone(),
        ),
    );
    for (index, step) in steps.iter().enumerate() {
        let id = format!("prt_s{}", index + 1);
        put(
            &format!("part/msg_a1/{id}.json"),
            opencode_step(&id, "ses_o1", "msg_a1", step.clone()),
        );
    }
    put(
        "part/msg_a1/prt_t1.json",
        opencode_tool(
            "prt_t1",
            "ses_o1",
            "msg_a1",
            ("call_e1", "edit"),
            ms(13, 0, 10),
        ),
    );
    put(
        "part/msg_a1/prt_t2.json",
        opencode_tool(
            "prt_t2",
            "ses_o1",
            "msg_a1",
            ("call_b1", "bash"),
            ms(13, 0, 20),
        ),
    );
    put(
        "message/ses_o1/msg_a2.json",
        opencode_assistant(
            "msg_a2",
            "ses_o1",
            (ms(13, 1, 0), ms(13, 1, 10)),
            "claude-sonnet-4-5",
            &folder,
            opencode_usage(500, 40, 0, 0),
        ),
    );
    put(
        "session/proj1/ses_o2.json",
        opencode_session("ses_o2", Some("ses_o1"), &folder, ms(13, 2, 0)),
    );
    put(
        "message/ses_o2/msg_a3.json",
        opencode_assistant(
            "msg_a3",
            "ses_o2",
            (ms(13, 2, 5), ms(13, 2, 9)),
            "claude-haiku-4-5",
            &folder,
            opencode_usage(300, 60, 0, 0),
        ),
    );
    put(
        "part/msg_a3/prt_s3.json",
        opencode_step("prt_s3", "ses_o2", "msg_a3", opencode_usage(300, 60, 0, 0)),
    );
    // The fork: clones keep everything but the ids.
    put(
        "session/proj1/ses_o3.json",
        opencode_session("ses_o3", None, &folder, ms(14, 0, 0)),
    );
    put(
        "message/ses_o3/msg_f1.json",
        opencode_user("msg_f1", "ses_o3", ms(13, 0, 5)),
    );
    put(
        "message/ses_o3/msg_f2.json",
        opencode_assistant(
            "msg_f2",
            "ses_o3",
            a1_time,
            "claude-sonnet-4-5",
            &folder,
            a1_last,
        ),
    );
    for (index, step) in steps.iter().enumerate() {
        let id = format!("prt_f{}", index + 1);
        put(
            &format!("part/msg_f2/{id}.json"),
            opencode_step(&id, "ses_o3", "msg_f2", step.clone()),
        );
    }
    put(
        "part/msg_f2/prt_f3.json",
        opencode_tool(
            "prt_f3",
            "ses_o3",
            "msg_f2",
            ("call_e1", "edit"),
            ms(13, 0, 10),
        ),
    );
    put(
        "message/ses_o3/msg_f3.json",
        opencode_assistant(
            "msg_f3",
            "ses_o3",
            (ms(14, 1, 0), ms(14, 1, 20)),
            "house-model-x",
            &folder,
            opencode_usage(100, 10, 0, 0),
        ),
    );
    put(
        "part/msg_f3/prt_f5.json",
        opencode_step("prt_f5", "ses_o3", "msg_f3", opencode_usage(100, 10, 0, 0)),
    );
}

/// A HOME holding both harnesses' logs and their repositories: `gapp/` with one commit
/// at 11:10 (+5 lines), `oapp/` with one at 13:05 (+2 lines), neither with a trailer.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("a temporary folder");
    let mut gapp = session_repo(home.path(), "gapp").expect("a fixture repository");
    gapp.write("g.txt", &lines("g", 5)).expect("write");
    gapp.commit_at(
        &message("gemini work", None),
        FIXTURE_EMAIL,
        at(11, 10),
        at(11, 10),
    )
    .expect("commit");
    let mut oapp = session_repo(home.path(), "oapp").expect("a fixture repository");
    oapp.write("o.txt", &lines("o", 2)).expect("write");
    oapp.commit_at(
        &message("opencode work", None),
        FIXTURE_EMAIL,
        at(13, 5),
        at(13, 5),
    )
    .expect("commit");
    gemini_logs(home.path(), &real(home.path(), "gapp"));
    opencode_logs(home.path(), &real(home.path(), "oapp"));
    home
}

fn real(home: &Path, name: &str) -> PathBuf {
    std::fs::canonicalize(home.join(name)).expect("the repository exists")
}

fn keel(home: &Path, args: &[&str]) -> Run {
    let run = run(home, args);
    run.assert_no_panic();
    run
}

fn exported(home: &Path) -> (Vec<Value>, String) {
    let run = keel(home, &["sessions", "export"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    (records, run.stderr)
}

fn by_id<'a>(records: &'a [Value], id: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["session_id"] == id)
        .unwrap_or_else(|| panic!("no session {id} in {records:?}"))
}

#[test]
fn gemini_messages_count_once_over_their_copies_resumes_and_subagents() {
    let home = home();
    let (records, stderr) = exported(home.path());
    let g1 = by_id(&records, "g1-session");
    assert_eq!(g1["harness"], "gemini-cli");
    // m1 is in three files (the document, its migrated copy, the resumed .jsonl's replay)
    // and m2 written twice (without usage, then with it): one call each; m3 is the
    // sub-agent's, counted toward g1. No other session: sub-1 is g1's work.
    assert!(
        records.iter().all(|r| r["session_id"] != "sub-1"),
        "{records:?}"
    );
    assert_eq!(g1["api_calls"], 3);
    // m1: 10000 prompt of which 4000 cached, 500 + 200 thought output → 6000 / 700 / 4000;
    // m2: 20000 of which 16000 cached, plus 500 tool-use prompt, 1000 output →
    // 4500 / 1000 / 16000; m3: 3000 / 300.
    assert_eq!(
        g1["tokens"],
        json!({"input": 13_500, "output": 2_000, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 20_000})
    );
    assert_eq!(g1["models"], json!(["gemini-2.5-flash", "gemini-2.5-pro"]));
    // c1 is in three copies of m1, c2 in both copies of m2.
    assert_eq!(
        g1["tools"],
        json!({"run_shell_command": 1, "write_file": 1})
    );
    // gemini-2.5-pro $1.25 input, $0.125 cached, $10 output; gemini-2.5-flash $0.30, $2.50
    // (per million): (6000 + 4500)·1.25 + (700 + 1000)·10 + 20000·0.125 = 13125 + 17000 +
    // 2500 = 32625; 3000·0.30 + 300·2.5 = 900 + 750 = 1650; 34275 → $0.034275.
    assert_eq!(g1["cost"]["total"], 0.034275);
    assert_eq!(
        (g1["start"].as_str(), g1["end"].as_str()),
        (Some("2026-01-15T09:00:00Z"), Some("2026-01-15T11:00:20Z"))
    );
    // The folder comes from the project's `.project_root` (and, for the sha256-named
    // copy, from projects.json).
    let repo = real(home.path(), "gapp");
    assert_eq!(g1["repo"], repo.display().to_string());
    assert_eq!(g1["project"], "gapp");
    // g2's model is in no price table: its cost is unknown, never 0, and said once.
    let g2 = by_id(&records, "g2-session");
    assert_eq!(
        (g2["api_calls"].as_u64(), &g2["cost"]["total"]),
        (Some(1), &Value::Null)
    );
    assert!(
        stderr.contains("model \"gemini-house-exp\" is unpriced"),
        "{stderr}"
    );
}

#[test]
fn opencode_steps_are_the_calls_subagents_count_toward_their_parent_and_forks_add_only_their_own() {
    let home = home();
    let (records, stderr) = exported(home.path());
    let o1 = by_id(&records, "ses_o1");
    assert_eq!(o1["harness"], "opencode");
    assert!(
        records.iter().all(|r| r["session_id"] != "ses_o2"),
        "{records:?}"
    );
    // msg_a1's two steps, msg_a2 (no steps: itself), ses_o2's one step: 4 calls. Before
    // steps were read, msg_a1 counted only its last step (200 / 100 / 3000 read).
    assert_eq!(o1["api_calls"], 4);
    // input 1000 + 200 + 500 + 300; output 50 + 100 + 40 + 60; written 2000; read 3000.
    assert_eq!(
        o1["tokens"],
        json!({"input": 2_000, "output": 250, "cache_write_5m": 2_000, "cache_write_1h": 0, "cache_read": 3_000})
    );
    assert_eq!(
        o1["models"],
        json!(["claude-haiku-4-5", "claude-sonnet-4-5"])
    );
    assert_eq!(o1["tools"], json!({"bash": 1, "edit": 1}));
    // claude-sonnet-4-5 $3 in, $15 out, $3.75 5-minute write, $0.30 read; claude-haiku-4-5
    // $1, $5 (per million): step 1 1000·3 + 50·15 + 2000·3.75 = 3000 + 750 + 7500 = 11250;
    // step 2 200·3 + 100·15 + 3000·0.3 = 600 + 1500 + 900 = 3000; msg_a2 500·3 + 40·15 =
    // 2100; ses_o2 300·1 + 60·5 = 600; 16950 → $0.01695.
    assert_eq!(o1["cost"]["total"], 0.01695);
    assert_eq!(
        (o1["start"].as_str(), o1["end"].as_str()),
        (Some("2026-01-15T13:00:00Z"), Some("2026-01-15T13:02:05Z"))
    );
    assert_eq!(o1["repo"], real(home.path(), "oapp").display().to_string());
    // ses_o3's clones (msg_f1, msg_f2 and its parts) are ses_o1's records: its only call
    // is msg_f3's step, of a model no table prices; its times are its own.
    let o3 = by_id(&records, "ses_o3");
    assert_eq!(o3["api_calls"], 1);
    assert_eq!(o3["cost"]["total"], Value::Null);
    assert_eq!(o3["tools"], json!({}));
    assert_eq!(
        (o3["start"].as_str(), o3["end"].as_str()),
        (Some("2026-01-15T14:00:00Z"), Some("2026-01-15T14:01:00Z"))
    );
    assert!(
        stderr.contains("model \"house-model-x\" is unpriced"),
        "{stderr}"
    );
}

#[test]
fn gemini_and_opencode_sessions_link_to_the_commits_of_their_repositories() {
    let home = home();
    let args = ["sessions", "--now", LEX_NOW, "--format", "json"];
    let first = keel(home.path(), &args);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let report: Value = serde_json::from_str(&first.stdout).expect("JSON");
    // Neither harness signs its commits: each commit is a window link of the one session
    // whose window holds it (g1 09:00–11:00:20 holds 11:10; ses_o1 13:00–13:02:05 holds
    // 13:05), pending a decision.
    let pending = report["pending"].as_array().expect("pending");
    let mut asked: Vec<(&str, &str)> = pending
        .iter()
        .map(|p| {
            (
                p["session_id"].as_str().unwrap_or(""),
                p["repo_label"].as_str().unwrap_or(""),
            )
        })
        .collect();
    asked.sort_unstable();
    assert_eq!(asked, vec![("g1-session", "gapp"), ("ses_o1", "oapp")]);
    let decisions: String = pending
        .iter()
        .map(|p| {
            format!(
                "{}\n",
                json!({"ts": "2026-01-15T23:00:00Z", "point": "commit_link", "subject": p["subject"],
                       "probabilities": {"yes": 1.0, "no": 0.0}})
            )
        })
        .collect();
    let file = home.path().join("decisions.jsonl");
    std::fs::write(&file, decisions).expect("write decisions");
    let file = file.display().to_string();
    let decided = keel(
        home.path(),
        &[
            "sessions",
            "--now",
            LEX_NOW,
            "--format",
            "json",
            "--decisions",
            &file,
        ],
    );
    assert_eq!(decided.code, 0, "{}", decided.stderr);
    let report: Value = serde_json::from_str(&decided.stdout).expect("JSON");
    let linked: Vec<(&str, &str, u64)> = report["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap_or(""),
                r["harness"].as_str().unwrap_or(""),
                r["added"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        linked,
        vec![("g1-session", "gemini-cli", 5), ("ses_o1", "opencode", 2)]
    );
    let by_harness = &report["summary"]["by_harness"];
    assert_eq!(by_harness["gemini-cli"]["cost"], 0.034275);
    assert_eq!(by_harness["opencode"]["cost"], 0.01695);
}

#[test]
fn a_malformed_log_is_skipped_naming_file_and_line_and_a_flagged_missing_folder_is_refused() {
    let home = home();
    let storage = home.path().join(".local/share/opencode/storage");
    // A message cut off while being written, and one that is not JSON at line 3.
    write(
        &storage.join("message/ses_o1/msg_cut.json"),
        "{\n  \"id\": \"msg_cut\",\n  \"sessionID\": ",
    );
    write(
        &storage.join("message/ses_o1/msg_bad.json"),
        "{\n  \"id\": \"msg_bad\",\n  ]\n}\n",
    );
    let chats = home.path().join(".gemini/tmp/gapp/chats");
    write(
        &chats.join("session-2026-01-15T16-00-g3sessio.jsonl"),
        &format!(
            "{}\nnot json\n",
            json!({"sessionId": "g3-session", "projectHash": "h", "startTime": iso(16, 0, 0)})
        ),
    );
    let (records, stderr) = exported(home.path());
    assert!(
        stderr.contains("msg_bad.json:3: skipped a malformed file"),
        "{stderr}"
    );
    assert!(
        stderr.contains("msg_cut.json:3: the document ends early"),
        "{stderr}"
    );
    assert!(
        stderr.contains("session-2026-01-15T16-00-g3sessio.jsonl:2: skipped a malformed line"),
        "{stderr}"
    );
    // The rest is read as before.
    assert_eq!(by_id(&records, "ses_o1")["cost"]["total"], 0.01695);
    assert_eq!(by_id(&records, "g1-session")["cost"]["total"], 0.034275);
    for flag in ["--gemini-dir", "--opencode-dir"] {
        let missing = keel(home.path(), &["sessions", "export", flag, "no-such-folder"]);
        assert_eq!(missing.code, 2, "{}", missing.stderr);
        assert!(missing.stdout.is_empty(), "{}", missing.stdout);
        assert!(
            missing
                .stderr
                .contains(&format!("{flag} no-such-folder: no such folder")),
            "{}",
            missing.stderr
        );
    }
}

#[test]
fn an_opencode_database_beside_the_storage_is_named_not_silently_skipped() {
    let home = home();
    write(
        &home.path().join(".local/share/opencode/opencode.db"),
        "SQLite format 3\0",
    );
    let (_, stderr) = exported(home.path());
    assert!(
        stderr.contains(
            "opencode.db: newer OpenCode builds keep their sessions in this SQLite database"
        ),
        "{stderr}"
    );
}

/// `keel sessions export` in `home`, the user cache in `cache` (or none).
fn export_with_cache(home: &Path, cache: Option<&Path>) -> Run {
    let mut command = crate::support::keel(home);
    command.args(["sessions", "export"]);
    match cache {
        Some(cache) => command.env("KEEL_CACHE_DIR", cache),
        None => command.arg("--no-cache"),
    };
    let run: Run = command.output().expect("the keel binary runs").into();
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

/// Byte for byte, stdout and stderr: the cached run answers as a run without the cache.
fn assert_cached_is_cold(home: &Path, cache: &Path) {
    let cold = export_with_cache(home, None);
    let cached = export_with_cache(home, Some(cache));
    assert_eq!(cached.stdout, cold.stdout);
    assert_eq!(cached.stderr, cold.stderr);
}

fn cache_entries(cache: &Path) -> Vec<PathBuf> {
    let builds = std::fs::read_dir(cache.join("agent-logs")).expect("the cache's logs folder");
    builds
        .flat_map(|build| {
            std::fs::read_dir(build.expect("a build").path()).expect("a build folder")
        })
        .map(|entry| entry.expect("an entry").path())
        .collect()
}

#[test]
fn a_second_export_answers_from_the_user_cache_as_a_cold_one_through_appends_and_deletes() {
    let home = home();
    let cache = tempfile::tempdir().expect("a cache folder");
    let cache = cache.path().join("keel");
    let cold = export_with_cache(home.path(), None);
    assert!(!cache.exists(), "--no-cache writes no cache");
    assert_cached_is_cold(home.path(), &cache);
    let entries = cache_entries(&cache);
    assert!(entries.len() >= 6, "one entry per log: {entries:?}");
    assert_cached_is_cold(home.path(), &cache);

    let chats = home.path().join(".gemini/tmp/gapp/chats");
    let resumed = std::fs::read_dir(&chats)
        .expect("the chats")
        .map(|entry| entry.expect("a chat").path())
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .expect("the resumed chat");
    let mut text = std::fs::read_to_string(&resumed).expect("read the chat");
    text.push_str(&jsonl(&[gemini_message(
        "m3",
        &iso(11, 5, 0),
        "gemini-2.5-pro",
        gemini_tokens(1_000, 100, 0, 0, 0),
        &[],
    )]));
    write(&resumed, &text);
    assert_cached_is_cold(home.path(), &cache);
    let appended = export_with_cache(home.path(), Some(&cache));
    assert_ne!(appended.stdout, cold.stdout, "the appended message counts");

    std::fs::remove_file(&resumed).expect("delete the chat");
    assert_cached_is_cold(home.path(), &cache);

    for entry in cache_entries(&cache) {
        std::fs::write(&entry, "damaged").expect("damage an entry");
    }
    let damaged = export_with_cache(home.path(), Some(&cache));
    assert_eq!(damaged.stdout, export_with_cache(home.path(), None).stdout);
    assert_eq!(
        damaged.stderr.matches("agent-log cache entries").count(),
        1,
        "said once: {}",
        damaged.stderr
    );
}

/// One Claude Code record: a call of `output` output tokens (two digits, so every such
/// log has the same length and the same last bytes).
fn claude_call(output: u32) -> String {
    format!(
        "{{\"type\":\"assistant\",\"sessionId\":\"s1\",\"uuid\":\"u1\",\"timestamp\":\"2026-01-15T10:00:00Z\",\"cwd\":\"/w\",\"requestId\":\"r1\",\"message\":{{\"id\":\"m1\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{{\"input_tokens\":10,\"output_tokens\":{output:02}}}}}}}\n"
    )
}

#[test]
fn the_same_relative_log_folder_in_two_places_is_two_logs_to_the_user_cache() {
    // Two folders, each with `logs/p/s.jsonl` of the same length, last bytes and
    // modification time, read with `--claude-dir logs` from each: keyed by the path as
    // spelled, the second would be answered with the first one's calls.
    let cache = tempfile::tempdir().expect("a cache folder");
    let places = [
        tempfile::tempdir().expect("a folder"),
        tempfile::tempdir().expect("a folder"),
    ];
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_768_471_200);
    for (place, output) in places.iter().zip([11, 99]) {
        let log = place.path().join("logs/p/s.jsonl");
        write(&log, &claude_call(output));
        let file = std::fs::File::options()
            .write(true)
            .open(&log)
            .expect("open the log");
        file.set_modified(time).expect("set the modification time");
    }
    let export = |place: &Path, cache: Option<&Path>| {
        let mut command = crate::support::keel(place);
        command.args(["sessions", "export", "--claude-dir", "logs"]);
        match cache {
            Some(cache) => command.env("KEEL_CACHE_DIR", cache),
            None => command.arg("--no-cache"),
        };
        let run: Run = command.output().expect("the keel binary runs").into();
        run.assert_no_panic();
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let first = export(places[0].path(), Some(cache.path()));
    let second = export(places[1].path(), Some(cache.path()));
    assert_ne!(first, second, "the two logs differ");
    assert_eq!(second, export(places[1].path(), None));
    assert_eq!(first, export(places[0].path(), Some(cache.path())));
}
