//! End-to-end `keel sessions usage`: Claude Code and Codex logs written by code under a
//! temporary HOME beside a fixture repository whose commits carry the agents' trailers,
//! read from the default locations, grouped by day (in UTC and in New York), session and
//! model; its bad flags refused. Every expected number is worked out by hand in the
//! comments from the lines below and the published prices, never read from keel.
//!
//! The fixture (times UTC; prices per million tokens: claude-sonnet-4-5 $3 input, $15
//! output, $3.75 cache write, $0.30 cache read; claude-haiku-4-5 $1, $5; gpt-5 $1.25
//! input, $0.125 cached input, $10 output; house-model-1 has no price):
//! - session a1 (Claude Code, in `app`), past midnight:
//!   - call 1, 2026-01-15 23:10, sonnet: 100,000 input, 10,000 output, 40,000 cache
//!     write, 30,000 cache read = 180,000 tokens; $0.30 + $0.15 + $0.15 + $0.009 = $0.609;
//!   - call 2, 2026-01-16 00:20, haiku: 200,000 input, 20,000 output = 220,000 tokens;
//!     $0.20 + $0.10 = $0.30;
//! - session cx1 (Codex, in `app`), call 2026-01-16 10:05, gpt-5: 400,000 input of which
//!   100,000 cached, 20,000 output: 300,000 input, 100,000 cache read, 20,000 output =
//!   420,000 tokens; $0.375 + $0.0125 + $0.20 = $0.5875;
//! - session c1 (Claude Code, in `app`), call 2026-01-20 12:05, house-model-1: 1,000
//!   input, 100 output = 1,100 tokens; cost unknown;
//! - commits in `app`: #1 2026-01-15 23:40 Claude trailer (a1, kept); #2 2026-01-16 00:40
//!   Claude trailer (a1, reverted by #5); #3 2026-01-16 10:20 Codex trailer (cx1, kept);
//!   #4 2026-01-20 12:15 no trailer, the local author (c1's window: pending); #5
//!   2026-01-21 09:00 reverts #2 (no session's window: unlinked, and a revert counts for
//!   nothing anyway).

use crate::support::{Run, listing, run, snapshot_settings};
use keel_fixtures::FIXTURE_EMAIL;
use keel_fixtures::sessions::{
    CLAUDE_TRAILER, CODEX_TRAILER, at, decision_line, lines, message, session_repo,
};
use serde_json::{Value, json};
use std::path::Path;

/// One Claude Code assistant record: an API call with its usage (and a tool call).
fn claude_call(session: &str, n: u32, ts: &str, model: &str, usage: Value) -> String {
    json!({
        "type": "assistant", "sessionId": session, "uuid": format!("{session}-u{n}"),
        "timestamp": ts, "cwd": "@REPO@", "requestId": format!("{session}-r{n}"),
        "message": {
            "id": format!("{session}-m{n}"), "model": model, "role": "assistant",
            "content": [{"type": "tool_use", "id": format!("{session}-t{n}"), "name": "Edit", "input": {}}],
            "usage": usage,
        },
    })
    .to_string()
}

/// cx1's rollout: its header, model, one tool call and one turn's token count.
fn codex_rollout() -> String {
    let usage = json!({"input_tokens": 400_000, "cached_input_tokens": 100_000,
        "output_tokens": 20_000, "reasoning_output_tokens": 0, "total_tokens": 420_000});
    [
        json!({"timestamp": "2026-01-16T10:00:00.000Z", "type": "session_meta", "payload": {
            "id": "cx1", "timestamp": "2026-01-16T10:00:00.000Z", "cwd": "@REPO@",
            "originator": "codex_cli_rs", "cli_version": "0.50.0", "source": "cli"}}),
        json!({"timestamp": "2026-01-16T10:00:01.000Z", "type": "turn_context",
            "payload": {"cwd": "@REPO@", "model": "gpt-5"}}),
        json!({"timestamp": "2026-01-16T10:01:00.000Z", "type": "response_item", "payload": {
            "type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch",
            "call_id": "cx1-c1"}}),
        json!({"timestamp": "2026-01-16T10:05:00.000Z", "type": "event_msg", "payload": {
            "type": "token_count",
            "info": {"total_token_usage": usage, "last_token_usage": usage}}}),
    ]
    .iter()
    .map(|line| format!("{line}\n"))
    .collect()
}

/// The logs: (path under HOME, contents with `@REPO@` for the repository).
fn logs() -> Vec<(&'static str, String)> {
    let a1 = [
        claude_call(
            "a1",
            1,
            "2026-01-15T23:10:00.000Z",
            "claude-sonnet-4-5",
            json!({"input_tokens": 100_000, "output_tokens": 10_000,
                "cache_creation_input_tokens": 40_000, "cache_read_input_tokens": 30_000}),
        ),
        claude_call(
            "a1",
            2,
            "2026-01-16T00:20:00.000Z",
            "claude-haiku-4-5",
            json!({"input_tokens": 200_000, "output_tokens": 20_000}),
        ),
    ];
    let c1 = claude_call(
        "c1",
        1,
        "2026-01-20T12:05:00.000Z",
        "house-model-1",
        json!({"input_tokens": 1_000, "output_tokens": 100}),
    );
    vec![
        (".claude/projects/-w-app/a1.jsonl", a1.join("\n") + "\n"),
        (".claude/projects/-w-app/c1.jsonl", c1 + "\n"),
        (
            ".codex/sessions/2026/01/16/rollout-2026-01-16T10-00-00-cx1.jsonl",
            codex_rollout(),
        ),
    ]
}

/// Seconds since the epoch of `hh:mm` on 2026-01-15 + `day` days.
fn on(day: i64, hh: i64, mm: i64) -> i64 {
    at(day * 24 + hh, mm)
}

/// A HOME holding the logs and `app/`, the repository with commits #1–#5.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("a temporary folder");
    let mut repo = session_repo(home.path(), "app").expect("a fixture repository");
    let mut commit = |file: &str, subject: &str, trailer: Option<&str>, time: i64| {
        repo.write(file, &lines(subject, 3)).expect("write");
        repo.commit_at(&message(subject, trailer), FIXTURE_EMAIL, time, time)
            .expect("commit")
    };
    commit("one.txt", "one", Some(CLAUDE_TRAILER), on(0, 23, 40));
    let two = commit("two.txt", "two", Some(CLAUDE_TRAILER), on(1, 0, 40));
    commit("three.txt", "three", Some(CODEX_TRAILER), on(1, 10, 20));
    commit("four.txt", "four", None, on(5, 12, 15));
    let revert = format!("Revert \"two\"\n\nThis reverts commit {two}.\n");
    repo.remove("two.txt").expect("remove");
    repo.commit_at(&revert, FIXTURE_EMAIL, on(6, 9, 0), on(6, 9, 0))
        .expect("commit the revert");
    let repo_path = std::fs::canonicalize(home.path().join("app")).expect("the repository exists");
    for (path, text) in logs() {
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

fn usage(home: &Path, args: &[&str]) -> Run {
    let mut all = vec!["sessions", "usage"];
    all.extend_from_slice(args);
    let run = run(home, &all);
    run.assert_no_panic();
    run
}

/// Fails unless every line of `text` fits an 80-column terminal.
fn assert_fits_80_columns(text: &str) {
    let wide: Vec<(usize, &str)> = text
        .lines()
        .map(|line| (line.chars().count(), line))
        .filter(|(width, _)| *width > 80)
        .collect();
    assert!(wide.is_empty(), "lines over 80 columns: {wide:?}\n{text}");
}

/// (key, input, output, cache_creation, cache_read, total_tokens, cost, kept, reverted,
/// pending) of a row (or the total, keyed `total`).
fn numbers(row: &Value) -> (String, [u64; 5], Value, [u64; 3]) {
    let n = |key: &str| row[key].as_u64().unwrap_or(u64::MAX);
    (
        row["key"].as_str().unwrap_or("total").to_owned(),
        [
            n("input"),
            n("output"),
            n("cache_creation"),
            n("cache_read"),
            n("total_tokens"),
        ],
        row["cost"].clone(),
        [
            n("commits_kept"),
            n("commits_reverted"),
            n("commits_pending"),
        ],
    )
}

fn row(
    key: &str,
    tokens: [u64; 5],
    cost: Value,
    commits: [u64; 3],
) -> (String, [u64; 5], Value, [u64; 3]) {
    (key.to_owned(), tokens, cost, commits)
}

/// Every row, then the total.
fn table(report: &Value) -> Vec<(String, [u64; 5], Value, [u64; 3])> {
    let mut out: Vec<_> = report["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(numbers)
        .collect();
    out.push(numbers(&report["total"]));
    out
}

#[test]
fn usage_by_day_splits_a_session_at_midnight_and_joins_kept_and_reverted_commits() {
    let home = home();
    let run = usage(home.path(), &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["schema"], "keel.sessions.usage.v1");
    assert_eq!(
        (&report["by"], &report["timezone"]),
        (&json!("day"), &json!("UTC"))
    );
    assert_eq!(
        table(&report),
        vec![
            // a1's call 1 and commit #1.
            row(
                "2026-01-15",
                [100_000, 10_000, 40_000, 30_000, 180_000],
                json!(0.609),
                [1, 0, 0]
            ),
            // a1's call 2 (haiku) and cx1's call: 200,000 + 300,000 input, 20,000 + 20,000
            // output, 100,000 cache read, 220,000 + 420,000 tokens, $0.30 + $0.5875; #3
            // kept, #2 reverted (by #5, five days later).
            row(
                "2026-01-16",
                [500_000, 40_000, 0, 100_000, 640_000],
                json!(0.8875),
                [1, 1, 0]
            ),
            // c1's unpriced call; #4 waits for a decision.
            row(
                "2026-01-20",
                [1_000, 100, 0, 0, 1_100],
                Value::Null,
                [0, 0, 1]
            ),
            // 100,000 + 500,000 + 1,000 input; 10,000 + 40,000 + 100 output; 40,000
            // written; 30,000 + 100,000 read; 180,000 + 640,000 + 1,100 tokens.
            row(
                "total",
                [601_000, 50_100, 40_000, 130_000, 821_100],
                Value::Null,
                [2, 1, 1]
            ),
        ]
    );
    // The 16th by model: haiku (a1's call 2) and gpt-5 (cx1's), sorted by name.
    let models: Vec<(&str, &Value, u64)> = report["rows"][1]["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| {
            (
                m["model"].as_str().unwrap_or(""),
                &m["cost"],
                m["total_tokens"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        models,
        vec![
            ("claude-haiku-4-5", &json!(0.3), 220_000),
            ("gpt-5", &json!(0.5875), 420_000)
        ]
    );
    assert_eq!(report["total"]["unpriced_calls"], 1);
    assert!(
        run.stderr.contains("model \"house-model-1\" is unpriced"),
        "{}",
        run.stderr
    );
    let text = usage(home.path(), &[]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert_fits_80_columns(&text.stdout);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("sessions_usage_day_json", run.stdout);
        insta::assert_snapshot!("sessions_usage_day_text", text.stdout);
    });
}

#[test]
fn usage_in_new_york_moves_the_evening_calls_and_commits_to_the_day_before() {
    let home = home();
    // New York is UTC−5 in January: a1's call 2 (00:20) and #2 (00:40) fall on the 15th
    // there, 19:20 and 19:40; cx1 (10:05, 10:20) stays on the 16th, c1 on the 20th.
    let run = usage(
        home.path(),
        &["--timezone", "America/New_York", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["timezone"], "America/New_York");
    assert_eq!(
        table(&report),
        vec![
            // Both of a1's calls: 180,000 + 220,000 tokens, $0.609 + $0.30; #1 kept, #2
            // reverted.
            row(
                "2026-01-15",
                [300_000, 30_000, 40_000, 30_000, 400_000],
                json!(0.909),
                [1, 1, 0]
            ),
            row(
                "2026-01-16",
                [300_000, 20_000, 0, 100_000, 420_000],
                json!(0.5875),
                [1, 0, 0]
            ),
            row(
                "2026-01-20",
                [1_000, 100, 0, 0, 1_100],
                Value::Null,
                [0, 0, 1]
            ),
            row(
                "total",
                [601_000, 50_100, 40_000, 130_000, 821_100],
                Value::Null,
                [2, 1, 1]
            ),
        ]
    );
    let text = usage(home.path(), &["--timezone", "America/New_York"]);
    assert_fits_80_columns(&text.stdout);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("sessions_usage_new_york_text", text.stdout);
    });
}

#[test]
fn usage_by_session_within_dates_counts_only_what_falls_on_them() {
    let home = home();
    // Only the 16th (UTC): a1 keeps its call 2 and #2 (reverted); cx1 its call and #3.
    let run = usage(
        home.path(),
        &[
            "--by",
            "session",
            "--since",
            "2026-01-16",
            "--until",
            "2026-01-16",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(
        (&report["since"], &report["until"]),
        (&json!("2026-01-16"), &json!("2026-01-16"))
    );
    assert_eq!(
        table(&report),
        vec![
            // a1 started first (23:10 on the 15th).
            row(
                "a1",
                [200_000, 20_000, 0, 0, 220_000],
                json!(0.3),
                [0, 1, 0]
            ),
            row(
                "cx1",
                [300_000, 20_000, 0, 100_000, 420_000],
                json!(0.5875),
                [1, 0, 0]
            ),
            row(
                "total",
                [500_000, 40_000, 0, 100_000, 640_000],
                json!(0.8875),
                [1, 1, 0]
            ),
        ]
    );
    let text = usage(
        home.path(),
        &[
            "--by",
            "session",
            "--since",
            "2026-01-16",
            "--until",
            "2026-01-16",
        ],
    );
    assert_fits_80_columns(&text.stdout);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("sessions_usage_session_text", text.stdout);
    });
}

#[test]
fn usage_by_model_gives_each_commit_to_the_model_working_when_it_was_made() {
    let home = home();
    let run = usage(home.path(), &["--by", "model", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // #1 (23:40) follows sonnet's call (23:10); #2 (00:40) haiku's (00:20); #3 gpt-5's;
    // #4 house-model-1's. Sorted by name.
    assert_eq!(
        table(&run.json()),
        vec![
            row(
                "claude-haiku-4-5",
                [200_000, 20_000, 0, 0, 220_000],
                json!(0.3),
                [0, 1, 0]
            ),
            row(
                "claude-sonnet-4-5",
                [100_000, 10_000, 40_000, 30_000, 180_000],
                json!(0.609),
                [1, 0, 0]
            ),
            row(
                "gpt-5",
                [300_000, 20_000, 0, 100_000, 420_000],
                json!(0.5875),
                [1, 0, 0]
            ),
            row(
                "house-model-1",
                [1_000, 100, 0, 0, 1_100],
                Value::Null,
                [0, 0, 1]
            ),
            row(
                "total",
                [601_000, 50_100, 40_000, 130_000, 821_100],
                Value::Null,
                [2, 1, 1]
            ),
        ]
    );
    let text = usage(home.path(), &["--by", "model"]);
    assert_fits_80_columns(&text.stdout);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("sessions_usage_model_text", text.stdout);
    });
}

#[test]
fn usage_counts_a_decided_window_link_as_kept() {
    let home = home();
    // #4 is c1's window link; `keel sessions` names its question.
    let sessions = run(
        home.path(),
        &[
            "sessions",
            "--days",
            "3650",
            "--now",
            "2026-02-01T00:00:00Z",
            "--format",
            "json",
        ],
    );
    assert_eq!(sessions.code, 0, "{}", sessions.stderr);
    let subject = sessions.json()["pending"][0]["subject"]
        .as_str()
        .expect("c1's question")
        .to_owned();
    assert!(subject.starts_with("c1:"), "{subject}");
    let decisions = home.path().join("decisions.jsonl");
    std::fs::write(
        &decisions,
        decision_line("2026-01-21T00:00:00Z", &subject, "0.9") + "\n",
    )
    .expect("write decisions");
    let decisions = decisions.display().to_string();
    let run = usage(
        home.path(),
        &[
            "--by",
            "harness",
            "--decisions",
            &decisions,
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // claude-code: a1 and c1 (#1 and now #4 kept, #2 reverted); codex: cx1 (#3).
    let commits: Vec<(String, [u64; 3])> = table(&run.json())
        .into_iter()
        .map(|(key, _, _, commits)| (key, commits))
        .collect();
    assert_eq!(
        commits,
        vec![
            ("claude-code".to_owned(), [2, 1, 0]),
            ("codex".to_owned(), [1, 0, 0]),
            ("total".to_owned(), [3, 1, 0]),
        ]
    );
}

#[test]
fn bad_usage_flags_are_one_error_naming_the_flag_and_exit_2_writing_nothing() {
    let home = home();
    let cases: [(&[&str], &str); 6] = [
        (
            &["--by", "year"],
            "error: --by: \"year\" is not a grouping; repair: pass one of day, week, month, session, model, repo, harness",
        ),
        (
            &["--since", "2026-13-01"],
            "error: --since: \"2026-13-01\" is not a date; repair: pass a date as YYYY-MM-DD, e.g. --since 2026-01-15",
        ),
        (
            &["--until", "16.01.2026"],
            "error: --until: \"16.01.2026\" is not a date; repair: pass a date as YYYY-MM-DD, e.g. --until 2026-01-15",
        ),
        (
            &["--since", "2026-01-17", "--until", "2026-01-16"],
            "error: --since 2026-01-17 is after --until 2026-01-16; repair: pass a --since on or before --until (both dates are inclusive)",
        ),
        (
            &["--timezone", "Mars/Olympus_Mons"],
            "error: --timezone: \"Mars/Olympus_Mons\" is not a time zone name keel knows; repair: pass an IANA time zone name (Europe/Berlin, America/New_York) or UTC",
        ),
        (
            &["--timezone", "EST5EDT-ish"],
            "error: --timezone: \"EST5EDT-ish\" is not a time zone name keel knows; repair: pass an IANA time zone name (Europe/Berlin, America/New_York) or UTC",
        ),
    ];
    let before = listing(home.path());
    for (args, expected) in cases {
        for format in ["text", "json"] {
            let mut all = args.to_vec();
            all.extend(["--format", format]);
            let run = usage(home.path(), &all);
            assert_eq!(run.code, 2, "{all:?}: {}", run.render(None));
            assert_eq!(run.stdout, "", "{all:?}: nothing written");
            assert_eq!(run.stderr, format!("{expected}\n"), "{all:?}");
        }
    }
    assert_eq!(listing(home.path()), before, "nothing written");
}
