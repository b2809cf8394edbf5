//! The grouping of `keel sessions usage` on items built by hand: week and month
//! boundaries, a zone moving a call across midnight, a session split by its calls' times,
//! where commits go, unknown costs, the flags' refusals and the JSON. Every expected
//! number is worked out in the comments from the items, never read from the code.

use super::*;
use keel_engine::zone::time_zone;

fn at(text: &str) -> Instant {
    Instant::parse_rfc3339(text).expect("a time")
}

fn query(by: &str, since: Option<&str>, until: Option<&str>, zone: &str) -> UsageQuery {
    let tz = time_zone(zone).expect("a zone every database has");
    UsageQuery::new(by, since, until, tz, zone).expect("valid flags")
}

fn session(id: &str, harness: &str, start: &str, repo: &str) -> UsageSession {
    UsageSession {
        harness: harness.to_owned(),
        id: Arc::from(id),
        start: at(start),
        repo: repo.to_owned(),
    }
}

/// One session, `claude-code`, started at the first call of most tests.
fn one_session() -> Vec<UsageSession> {
    vec![session("s1", "claude-code", "2025-12-01T00:00:00Z", "app")]
}

fn call(session: usize, when: &str, model: &str, input: u64, cost: Option<&str>) -> UsageItem {
    UsageItem {
        at: at(when),
        session,
        what: Counted::Call {
            model: Arc::from(model),
            tokens: Tokens {
                input,
                output: input / 10,
                ..Tokens::default()
            },
            cost: cost.map(Exact::decimal),
        },
    }
}

fn commit(session: usize, when: &str, model: Option<&str>, fate: CommitFate) -> UsageItem {
    UsageItem {
        at: at(when),
        session,
        what: Counted::Commit {
            model: model.map(Arc::from),
            repo: "app".to_owned(),
            fate,
        },
    }
}

/// (key, input tokens) per row.
fn inputs(report: &UsageReport) -> Vec<(String, u64)> {
    report
        .rows
        .iter()
        .map(|row| (row.key.clone(), row.usage.tokens.input))
        .collect()
}

/// (key, kept, reverted, pending) per row.
fn commits(report: &UsageReport) -> Vec<(String, u64, u64, u64)> {
    report
        .rows
        .iter()
        .map(|row| {
            (
                row.key.clone(),
                row.commits_kept,
                row.commits_reverted,
                row.commits_pending,
            )
        })
        .collect()
}

fn owned(rows: &[(&str, u64)]) -> Vec<(String, u64)> {
    rows.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect()
}

#[test]
fn weeks_start_on_monday_and_are_named_by_it_across_a_year_end() {
    // 2026-01-01 is a Thursday: 2025-12-28 a Sunday, 2025-12-29 a Monday, 2026-01-04 a
    // Sunday, 2026-01-05 a Monday. Weeks: 12-28 alone in the week of 2025-12-22; 12-29,
    // 01-01 and 01-04 in the week of 2025-12-29 (10 + 100 + 1000 = 1110); 01-05 opens the
    // week of 2026-01-05. A week starting on Sunday would put 12-28 with 12-29 and 01-04
    // with 01-05.
    let items = [
        call(0, "2025-12-28T12:00:00Z", "m", 1, Some("0")),
        call(0, "2025-12-29T00:00:00Z", "m", 10, Some("0")),
        call(0, "2026-01-01T12:00:00Z", "m", 100, Some("0")),
        call(0, "2026-01-04T23:59:59Z", "m", 1000, Some("0")),
        call(0, "2026-01-05T00:00:00Z", "m", 10000, Some("0")),
    ];
    let report = group(&one_session(), &items, &query("week", None, None, "UTC"));
    assert_eq!(
        inputs(&report),
        owned(&[
            ("2025-12-22", 1),
            ("2025-12-29", 1110),
            ("2026-01-05", 10000)
        ])
    );
    assert_eq!(report.total.usage.tokens.input, 11111);
}

#[test]
fn months_end_at_local_midnight_of_their_last_day() {
    let items = [
        call(0, "2026-01-31T23:59:59Z", "m", 1, Some("0")),
        call(0, "2026-02-01T00:00:00Z", "m", 10, Some("0")),
        call(0, "2026-12-31T12:00:00Z", "m", 100, Some("0")),
        call(0, "2027-01-01T00:00:00Z", "m", 1000, Some("0")),
    ];
    let utc = group(&one_session(), &items, &query("month", None, None, "UTC"));
    assert_eq!(
        inputs(&utc),
        owned(&[
            ("2026-01", 1),
            ("2026-02", 10),
            ("2026-12", 100),
            ("2027-01", 1000)
        ])
    );
    // Tokyo is UTC+9 all year: 01-31 23:59:59Z is 02-01 08:59:59 there (1 + 10 in
    // February); 12-31 12:00Z is 21:00 the same day; 01-01 00:00Z is 09:00.
    let tokyo = group(
        &one_session(),
        &items,
        &query("month", None, None, "Asia/Tokyo"),
    );
    assert_eq!(
        inputs(&tokyo),
        owned(&[("2026-02", 11), ("2026-12", 100), ("2027-01", 1000)])
    );
}

#[test]
fn the_time_zone_moves_a_call_across_midnight_with_its_summer_time() {
    let items = [
        // 23:30Z: 00:30 the next day in Berlin (UTC+1 in January).
        call(0, "2026-01-15T23:30:00Z", "m", 1, Some("0")),
        // 03:00Z: 22:00 the day before in New York (UTC−5 in January).
        call(0, "2026-01-16T03:00:00Z", "m", 10, Some("0")),
        // 22:30Z: 00:30 on 07-02 in Berlin in summer (UTC+2), 23:30 on 07-01 at UTC+1.
        call(0, "2026-07-01T22:30:00Z", "m", 100, Some("0")),
        // 04:30Z: 00:30 on 07-02 in New York in summer (UTC−4), 23:30 on 07-01 at UTC−5.
        call(0, "2026-07-02T04:30:00Z", "m", 1000, Some("0")),
    ];
    let utc = group(&one_session(), &items, &query("day", None, None, "UTC"));
    assert_eq!(
        inputs(&utc),
        owned(&[
            ("2026-01-15", 1),
            ("2026-01-16", 10),
            ("2026-07-01", 100),
            ("2026-07-02", 1000)
        ])
    );
    let berlin = group(
        &one_session(),
        &items,
        &query("day", None, None, "Europe/Berlin"),
    );
    assert_eq!(
        inputs(&berlin),
        owned(&[("2026-01-16", 11), ("2026-07-02", 1100)])
    );
    assert_eq!(berlin.zone, "Europe/Berlin");
    let new_york = group(
        &one_session(),
        &items,
        &query("day", None, None, "america/new_york"),
    );
    assert_eq!(
        inputs(&new_york),
        owned(&[
            ("2026-01-15", 11),
            ("2026-07-01", 100),
            ("2026-07-02", 1000)
        ])
    );
    assert_eq!(new_york.zone, "America/New_York", "the zone's own name");
}

#[test]
fn since_and_until_are_inclusive_local_dates() {
    let items = [
        call(0, "2026-01-15T23:30:00Z", "m", 1, Some("0")),
        call(0, "2026-01-17T00:00:00Z", "m", 10, Some("0")),
        call(0, "2026-01-17T23:59:59Z", "m", 100, Some("0")),
        call(0, "2026-01-18T00:00:00Z", "m", 1000, Some("0")),
    ];
    // In UTC the first call is on the 15th: dropped by --since 2026-01-16; the 17th is
    // kept whole (its last second included); the 18th is dropped.
    let utc = group(
        &one_session(),
        &items,
        &query("day", Some("2026-01-16"), Some("2026-01-17"), "UTC"),
    );
    assert_eq!(inputs(&utc), owned(&[("2026-01-17", 110)]));
    assert_eq!(utc.total.usage.tokens.input, 110);
    // In Berlin the first call is at 00:30 on the 16th: kept; 01-17 23:59:59Z is 00:59:59
    // on the 18th there, and 01-18 00:00Z too: both dropped.
    let berlin = group(
        &one_session(),
        &items,
        &query(
            "day",
            Some("2026-01-16"),
            Some("2026-01-17"),
            "Europe/Berlin",
        ),
    );
    assert_eq!(
        inputs(&berlin),
        owned(&[("2026-01-16", 1), ("2026-01-17", 10)])
    );
    assert_eq!(
        (berlin.since.as_deref(), berlin.until.as_deref()),
        (Some("2026-01-16"), Some("2026-01-17"))
    );
}

#[test]
fn a_session_past_midnight_splits_its_tokens_by_each_call_s_time() {
    let sessions = vec![session("s1", "claude-code", "2026-01-15T23:00:00Z", "app")];
    let items = [
        call(0, "2026-01-15T23:10:00Z", "m", 100, Some("0.5")),
        call(0, "2026-01-15T23:50:00Z", "m", 200, Some("0.25")),
        call(0, "2026-01-16T00:20:00Z", "m", 1000, Some("2")),
    ];
    let by_day = group(&sessions, &items, &query("day", None, None, "UTC"));
    // The 15th: 100 + 200 input, 10 + 20 output, $0.5 + $0.25; the 16th: the last call.
    // Dating tokens by the session's start would put all 1300 on the 15th.
    assert_eq!(
        inputs(&by_day),
        owned(&[("2026-01-15", 300), ("2026-01-16", 1000)])
    );
    let first = &by_day.rows[0].usage;
    assert_eq!(
        (first.tokens.output, first.api_calls, first.cost.clone()),
        (30, 2, Some(Exact::decimal("0.75")))
    );
    let second = &by_day.rows[1].usage;
    assert_eq!(
        (second.tokens.output, second.api_calls, second.cost.clone()),
        (100, 1, Some(Exact::decimal("2")))
    );
    // By session it is one row: 1300 input, 130 output, 3 calls, $2.75.
    let by_session = group(&sessions, &items, &query("session", None, None, "UTC"));
    assert_eq!(inputs(&by_session), owned(&[("s1", 1300)]));
    let row = &by_session.rows[0].usage;
    assert_eq!(
        (row.tokens.output, row.api_calls, row.cost.clone()),
        (130, 3, Some(Exact::decimal("2.75")))
    );
    assert_eq!(by_session.total.usage, *row);
}

#[test]
fn commits_go_to_their_own_date_repository_and_the_model_working_when_they_were_made() {
    let sessions = vec![
        session("s1", "claude-code", "2026-01-15T23:00:00Z", "app"),
        // A session without calls that ran in a parent folder and committed in `app`.
        session("s2", "codex", "2026-01-16T09:00:00Z", "work"),
    ];
    let a = "claude-sonnet-4-5";
    let b = "claude-haiku-4-5";
    let items = [
        call(0, "2026-01-15T23:10:00Z", a, 100, Some("1")),
        call(0, "2026-01-16T00:20:00Z", b, 1000, Some("2")),
        // Before any call: the first call's model (a).
        commit(0, "2026-01-15T23:05:00Z", Some(a), CommitFate::Kept),
        commit(0, "2026-01-15T23:30:00Z", Some(a), CommitFate::Reverted),
        commit(0, "2026-01-16T00:40:00Z", Some(b), CommitFate::Kept),
        commit(0, "2026-01-16T00:50:00Z", Some(b), CommitFate::Pending),
        commit(1, "2026-01-16T10:00:00Z", None, CommitFate::Kept),
    ];
    // By day, each commit on its own date: the 15th kept 1 (23:05) and reverted 1
    // (23:30); the 16th kept 2 (00:40, s2's 10:00) and 1 pending (00:50).
    let by_day = group(&sessions, &items, &query("day", None, None, "UTC"));
    assert_eq!(
        commits(&by_day),
        vec![
            ("2026-01-15".to_owned(), 1, 1, 0),
            ("2026-01-16".to_owned(), 2, 0, 1)
        ]
    );
    assert_eq!(
        (
            by_day.total.commits_kept,
            by_day.total.commits_reverted,
            by_day.total.commits_pending
        ),
        (3, 1, 1)
    );
    // By model: `-` (s2's commit, no call: cost 0, not unknown) sorts before the names;
    // haiku kept 1 and 1 pending with its one call; sonnet kept 1, reverted 1.
    let by_model = group(&sessions, &items, &query("model", None, None, "UTC"));
    assert_eq!(
        commits(&by_model),
        vec![
            ("-".to_owned(), 1, 0, 0),
            (b.to_owned(), 1, 0, 1),
            (a.to_owned(), 1, 1, 0)
        ]
    );
    assert_eq!(by_model.rows[0].usage.api_calls, 0);
    assert_eq!(by_model.rows[0].usage.cost, Some(Exact::zero()));
    assert_eq!(inputs(&by_model)[1..], owned(&[(b, 1000), (a, 100)]));
    // By repository: the calls go where s1 ran (`app`), every commit where it was made
    // (`app`); `work` counts nothing, so it has no row.
    let by_repo = group(&sessions, &items, &query("repo", None, None, "UTC"));
    assert_eq!(commits(&by_repo), vec![("app".to_owned(), 3, 1, 1)]);
    assert_eq!(inputs(&by_repo), owned(&[("app", 1100)]));
    // By session, in order of start; by harness, by name.
    let by_session = group(&sessions, &items, &query("session", None, None, "UTC"));
    assert_eq!(
        commits(&by_session),
        vec![("s1".to_owned(), 2, 1, 1), ("s2".to_owned(), 1, 0, 0)]
    );
    let by_harness = group(&sessions, &items, &query("harness", None, None, "UTC"));
    assert_eq!(
        commits(&by_harness),
        vec![
            ("claude-code".to_owned(), 2, 1, 1),
            ("codex".to_owned(), 1, 0, 0)
        ]
    );
}

#[test]
fn the_model_behind_a_commit_is_the_latest_call_at_or_before_it() {
    let calls: Vec<(Instant, Arc<str>)> = vec![
        (at("2026-01-15T10:00:00Z"), Arc::from("a")),
        (at("2026-01-15T11:00:00Z"), Arc::from("b")),
    ];
    let model = |when: &str| model_at(&calls, at(when)).map(|m| m.to_string());
    assert_eq!(model("2026-01-15T09:00:00Z").as_deref(), Some("a"));
    assert_eq!(model("2026-01-15T10:59:59Z").as_deref(), Some("a"));
    assert_eq!(model("2026-01-15T11:00:00Z").as_deref(), Some("b"));
    assert_eq!(model("2026-01-15T12:00:00Z").as_deref(), Some("b"));
    assert_eq!(model_at(&[], at("2026-01-15T12:00:00Z")), None);
}

#[test]
fn an_unpriced_call_makes_its_row_and_model_cost_unknown_never_a_partial_sum() {
    let items = [
        call(0, "2026-01-15T10:00:00Z", "priced", 100, Some("1.5")),
        call(0, "2026-01-15T11:00:00Z", "house-model", 100, None),
        call(0, "2026-01-16T10:00:00Z", "priced", 100, Some("2")),
    ];
    let report = group(&one_session(), &items, &query("day", None, None, "UTC"));
    let first = &report.rows[0];
    assert_eq!(
        (first.usage.cost.clone(), first.usage.unpriced_calls),
        (None, 1)
    );
    let models: Vec<(&str, Option<Exact>)> = first
        .models
        .iter()
        .map(|m| (m.model.as_str(), m.usage.cost.clone()))
        .collect();
    assert_eq!(
        models,
        vec![
            ("house-model", None),
            ("priced", Some(Exact::decimal("1.5")))
        ]
    );
    assert_eq!(report.rows[1].usage.cost, Some(Exact::decimal("2")));
    assert_eq!(
        (
            report.total.usage.cost.clone(),
            report.total.usage.unpriced_calls
        ),
        (None, 1)
    );
}

#[test]
fn bad_flags_are_refused_naming_the_flag_and_the_repair() {
    let utc = || time_zone("UTC").expect("UTC");
    let refusal = |by: &str, since: Option<&str>, until: Option<&str>| {
        UsageQuery::new(by, since, until, utc(), "UTC")
            .err()
            .map(|err| err.to_string())
    };
    assert_eq!(
        refusal("year", None, None).as_deref(),
        Some(
            "--by: \"year\" is not a grouping; repair: pass one of day, week, month, session, model, repo, harness"
        )
    );
    assert_eq!(
        refusal("Day", None, None).as_deref(),
        Some(
            "--by: \"Day\" is not a grouping; repair: pass one of day, week, month, session, model, repo, harness"
        )
    );
    for bad in [
        "2026-1-15",
        "2026-02-30",
        "15/01/2026",
        "2026-01-15T00:00:00Z",
        "",
        "yesterday",
    ] {
        assert_eq!(
            refusal("day", Some(bad), None),
            Some(format!(
                "--since: {bad:?} is not a date; repair: pass a date as YYYY-MM-DD, e.g. --since 2026-01-15"
            )),
            "{bad:?}"
        );
        assert_eq!(
            refusal("day", None, Some(bad)),
            Some(format!(
                "--until: {bad:?} is not a date; repair: pass a date as YYYY-MM-DD, e.g. --until 2026-01-15"
            )),
            "{bad:?}"
        );
    }
    assert_eq!(
        refusal("day", Some("2026-01-16"), Some("2026-01-15")).as_deref(),
        Some(
            "--since 2026-01-16 is after --until 2026-01-15; repair: pass a --since on or before --until (both dates are inclusive)"
        )
    );
    assert_eq!(
        refusal("week", Some("2026-01-15"), Some("2026-01-15")),
        None
    );
}

#[test]
fn the_json_keeps_its_key_order_and_rounds_costs_once() {
    let items = [
        UsageItem {
            at: at("2026-01-15T10:00:00Z"),
            session: 0,
            what: Counted::Call {
                model: Arc::from("claude-sonnet-4-5"),
                tokens: Tokens {
                    input: 1000,
                    output: 100,
                    cache_write_5m: 10,
                    cache_write_1h: 20,
                    cache_read: 500,
                },
                cost: Some(Exact::decimal("0.0123456789")),
            },
        },
        commit(
            0,
            "2026-01-15T10:30:00Z",
            Some("claude-sonnet-4-5"),
            CommitFate::Kept,
        ),
    ];
    let report = group(&one_session(), &items, &query("day", None, None, "UTC"));
    // cache_creation 10 + 20; total 1000 + 100 + 30 + 500 = 1630; 0.0123456789 rounds to
    // 0.012346 (the seventh decimal is 6).
    let numbers = r#""api_calls":1,"input":1000,"output":100,"cache_creation":30,"cache_read":500,"total_tokens":1630,"cost":0.012346,"unpriced_calls":0"#;
    let models = format!(r#""models":[{{"model":"claude-sonnet-4-5",{numbers}}}]"#);
    let commits = r#""commits_kept":1,"commits_reverted":0,"commits_pending":0"#;
    assert_eq!(
        usage_json(&report).to_text(),
        format!(
            r#"{{"schema":"keel.sessions.usage.v1","by":"day","timezone":"UTC","since":null,"until":null,"rows":[{{"key":"2026-01-15",{numbers},{commits},{models}}}],"total":{{{numbers},{commits},{models}}}}}"#
        )
    );
}
