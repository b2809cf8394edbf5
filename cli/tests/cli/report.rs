//! End-to-end `keel report --html`: a fixture repository with a blocked, an advisory and a
//! clean node whose commits agent sessions made (the fixture logs of
//! `fixtures/agent-logs/`), written as one page, checked as HTML, pinned as a snapshot and,
//! when Chromium is installed, rendered headless: the page's script must have run, its
//! filter must follow the fragment, and a screenshot lands in `target/`. Refusals write
//! nothing.

use crate::support::{
    APP_PY, Run, chromium, headless, listing, run, screenshot, snapshot_settings, spec,
};
use keel_fixtures::sessions::{
    CLAUDE_TRAILER, CODEX_TRAILER, LEX_NOW, at, lines, message, session_repo,
};
use keel_fixtures::{FIXTURE_EMAIL, FIXTURE_EPOCH, FixtureRepo};
use std::path::Path;

/// The fixture logs the scenario reads: (path under HOME, contents with `@REPO@` for the
/// repository). s1 (Claude Code, 10:01–10:09, with its sub-agent) and cx1 (Codex,
/// 14:00–14:10) on 2026-01-15.
const LOGS: [(&str, &str); 3] = [
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
        ".codex/sessions/2026/01/15/rollout-2026-01-15T14-00-00-cx1.jsonl",
        include_str!(
            "../../../fixtures/agent-logs/codex/sessions/2026/01/15/rollout-2026-01-15T14-00-00-cx1.jsonl"
        ),
    ),
];

/// A commit subject a page must show as text, never run.
const EVIL_SUBJECT: &str = "Tweak f <script>alert(1)</script>";

/// A HOME holding the fixture logs and the repository `app/`.
struct Scenario {
    home: tempfile::TempDir,
    repo: FixtureRepo,
    /// The Claude commit that hits node `app`.
    hit: String,
}

/// Seconds since the epoch of `hh:mm` on 2026-01-`day` (UTC).
const fn on(day: i64, hh: i64, mm: i64) -> i64 {
    FIXTURE_EPOCH + (day - 1) * 86_400 + hh * 3600 + mm * 60
}

/// `app/`: on 01-10 app.py, util.py and notes.md with nodes `app` (app.py#f), `util`
/// (util.py#h) and `docs` (notes.md, bare); a note on 01-12; on 01-15 the Claude commit changes `f`
/// (10:30, the hit), the Codex one adds b.txt and a note (14:05), and a local revert
/// undoes it (23:00). So `app` is blocked, `docs` drifts three times, `util` is clean;
/// s1 keeps one commit, cx1's only commit is reverted.
fn scenario() -> Scenario {
    let home = tempfile::tempdir().expect("a temporary folder");
    let mut repo = session_repo(home.path(), "app").expect("a fixture repository");
    let mut commit = |subject: &str, trailer: Option<&str>, time: i64| {
        repo.commit_at(&message(subject, trailer), FIXTURE_EMAIL, time, time)
            .expect("commit")
    };
    for (path, text) in [
        ("app.py", APP_PY.to_owned()),
        ("util.py", "def h():\n    return 2\n".to_owned()),
        ("notes.md", "# Notes\n".to_owned()),
        (".spec/app/spec.md", spec(&["app.py#f"])),
        (".spec/util/spec.md", spec(&["util.py#h"])),
        (".spec/docs/spec.md", spec(&["notes.md"])),
    ] {
        write(&home.path().join("app").join(path), &text);
    }
    commit("Add app, notes and their specs", None, on(10, 9, 0));
    write(&home.path().join("app/notes.md"), "# Notes\n\nOne.\n");
    commit("Write a first note", None, on(12, 12, 0));
    write(&home.path().join("app/app.py"), crate::APP_PY_F_CHANGED);
    let hit = commit(EVIL_SUBJECT, Some(CLAUDE_TRAILER), at(10, 30));
    write(&home.path().join("app/b.txt"), &lines("b", 3));
    write(&home.path().join("app/notes.md"), "# Notes\n\nOne.\nTwo.\n");
    let codex = commit("Add b", Some(CODEX_TRAILER), at(14, 5));
    std::fs::remove_file(home.path().join("app/b.txt")).expect("remove b.txt");
    write(&home.path().join("app/notes.md"), "# Notes\n\nOne.\n");
    commit(
        &format!("Revert \"Add b\"\n\nThis reverts commit {codex}."),
        None,
        at(23, 0),
    );
    let repo_path = std::fs::canonicalize(home.path().join("app")).expect("the repository");
    for (path, text) in LOGS {
        let text = text.replace("@REPO@", &repo_path.display().to_string());
        write(&home.path().join(path), &text);
    }
    Scenario { home, repo, hit }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
    std::fs::write(path, text).expect("write a fixture file");
}

/// The session flags of the scenario: both log folders and a fixed clock.
const SESSION_FLAGS: [&str; 6] = [
    "--claude-dir",
    ".claude/projects",
    "--codex-dir",
    ".codex",
    "--now",
    LEX_NOW,
];

/// `keel report --html FILE --repo app ARGS` in HOME.
fn report(home: &Path, file: &str, args: &[&str]) -> Run {
    let mut all = vec!["report", "--html", file, "--repo", "app"];
    all.extend_from_slice(args);
    let run = run(home, &all);
    run.assert_no_panic();
    run
}

/// The page of the scenario with its session data, written by a run that must succeed
/// with the lint's exit status.
fn written_page(scenario: &Scenario, file: &str) -> String {
    let run = report(scenario.home.path(), file, &SESSION_FLAGS);
    assert_eq!(run.code, 1, "node app blocks:\n{}", run.render(None));
    std::fs::read_to_string(scenario.home.path().join(file)).expect("the page was written")
}

/// The part of `html` from `start` up to the next `end` after it.
fn between<'h>(html: &'h str, start: &str, end: &str) -> &'h str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("no {start:?} in the page"));
    let rest = &html[from..];
    &rest[..rest.find(end).map_or(rest.len(), |to| to + end.len())]
}

#[test]
fn the_page_shows_every_node_its_hits_and_the_sessions() {
    let scenario = scenario();
    let run = report(scenario.home.path(), "out.html", &SESSION_FLAGS);
    assert_eq!(run.code, 1, "{}", run.render(None));
    assert_eq!(
        run.stdout,
        "keel report: wrote out.html: 3 nodes (1 blocked, 1 warning, 1 clean); 2 sessions in scope, 2 linked\n"
    );
    let html = std::fs::read_to_string(scenario.home.path().join("out.html")).expect("written");
    for card in [
        "<article class=\"node\" data-status=\"blocked\" data-search=\"app app.py\">",
        "<article class=\"node\" data-status=\"warning\" data-search=\"docs notes.md\">",
        "<article class=\"node\" data-status=\"clean\" data-search=\"util\">",
    ] {
        assert!(html.contains(card), "no {card} in:\n{html}");
    }
    let app = between(&html, "data-search=\"app app.py\"", "</article>");
    assert!(
        app.contains("error[anchor-hit]</span> <code>app.py#f</code>"),
        "{app}"
    );
    let short = &scenario.hit[..12];
    assert!(
        app.contains(&format!(
            "<tr><td><code title=\"{}\">{short}</code></td><td class=\"date\">2026-01-15 10:30</td>\
             <td>Tweak f &lt;script&gt;alert(1)&lt;/script&gt;</td><td>f</td><td>added and deleted</td></tr>",
            scenario.hit
        )),
        "{app}"
    );
    assert!(!html.contains("<script>alert"), "a subject ran as a script");
    // The timeline: one row per node with hits (app 1 commit, docs 3), none for util.
    let timeline = between(&html, "<svg class=\"timeline\"", "</svg>");
    assert!(timeline.contains("data-node=\"app\""), "{timeline}");
    assert!(timeline.contains("data-node=\"docs\""), "{timeline}");
    assert!(!timeline.contains("data-node=\"util\""), "{timeline}");
    assert_eq!(timeline.matches("<circle class=\"dot error\"").count(), 1);
    assert_eq!(timeline.matches("<circle class=\"dot warning\"").count(), 3);
    assert!(
        html.contains("1 node with no hit commit not drawn"),
        "{html}"
    );
    // Sessions: cx1's only commit was reverted, so its costs per kept commit and per 100
    // lines are unknown (never 0) and its revert rate is 100%.
    let by_harness = between(&html, "<h3>By harness</h3>", "<h3>By repository</h3>");
    let by_repo = between(&html, "<h3>By repository</h3>", "<h3>Records</h3>");
    let per_kept = figure(by_harness, "Cost per kept commit");
    let codex = between(per_kept, "<title>codex</title>", "</g>");
    assert!(codex.contains(">unknown</text>"), "{codex}");
    assert!(
        !codex.contains("<rect"),
        "an unknown is drawn as a bar: {codex}"
    );
    let claude = between(per_kept, "<title>claude-code</title>", "</g>");
    assert!(claude.contains("<rect class=\"bar\""), "{claude}");
    let rate = figure(by_harness, "Revert rate");
    assert!(rate.contains(">100%</text>"), "codex: {rate}");
    assert!(rate.contains(">0%</text>"), "claude-code: {rate}");
    let repo_rate = figure(by_repo, "Revert rate");
    assert!(
        repo_rate.contains(">50%</text>"),
        "app: 1 kept, 1 reverted: {repo_rate}"
    );
    assert_self_contained(&html);
}

/// The bar chart captioned `caption` in `block`.
fn figure<'h>(block: &'h str, caption: &str) -> &'h str {
    between(
        block,
        &format!("<figcaption>{caption}</figcaption>"),
        "</figure>",
    )
}

/// Nothing in the page loads from anywhere: no URL, no source attribute, no stylesheet link.
fn assert_self_contained(html: &str) {
    for outside in [
        "://", " src=", "<link", "url(", "@import", "<iframe", "<img",
    ] {
        assert!(!html.contains(outside), "the page holds {outside:?}");
    }
}

#[test]
fn the_page_is_the_same_every_time_and_pinned() {
    let scenario = scenario();
    let first = written_page(&scenario, "one.html");
    let second = written_page(&scenario, "two.html");
    assert!(first == second, "two runs wrote different pages");
    let home = scenario.home.path().display().to_string();
    assert!(
        !first.contains(&home),
        "the page names a path of this machine"
    );
    snapshot_settings().bind(|| insta::assert_snapshot!("report_html", first));
}

#[test]
fn without_session_flags_the_sessions_section_says_it_is_omitted() {
    let scenario = scenario();
    let run = report(scenario.home.path(), "out.html", &[]);
    assert_eq!(run.code, 1, "{}", run.render(None));
    assert!(
        run.stdout.ends_with("; no session data\n"),
        "{}",
        run.stdout
    );
    let html = std::fs::read_to_string(scenario.home.path().join("out.html")).expect("written");
    assert!(
        html.contains("No session data was given, so this section is omitted."),
        "{html}"
    );
    assert!(!html.contains("Cost per kept commit"), "{html}");
    assert!(
        !html.contains("as of "),
        "no clock was given, so none is shown"
    );
}

#[test]
fn a_clean_repository_writes_the_page_and_exits_0() {
    let mut scenario = scenario();
    let app = scenario.home.path().join("app");
    std::fs::remove_dir_all(app.join(".spec/app")).expect("remove node app");
    std::fs::remove_dir_all(app.join(".spec/docs")).expect("remove node docs");
    let time = on(16, 9, 0);
    scenario
        .repo
        .commit_at("Keep only util\n", FIXTURE_EMAIL, time, time)
        .expect("commit");
    let run = report(scenario.home.path(), "out.html", &[]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    let html = std::fs::read_to_string(scenario.home.path().join("out.html")).expect("written");
    assert!(
        html.contains("<span class=\"badge clean\">ok</span>"),
        "{html}"
    );
    assert!(html.contains("No window commit hit any node."), "{html}");
}

#[test]
fn a_refused_run_writes_nothing() {
    let scenario = scenario();
    let home = scenario.home.path();
    let before = listing(home);
    let refusals: [(&[&str], &str, &str); 3] = [
        (
            &["--now", "yesterday"],
            "out.html",
            "--now: \"yesterday\" is not an RFC 3339 timestamp",
        ),
        (
            &[],
            "missing/out.html",
            "--html missing/out.html: the folder missing does not exist",
        ),
        (&[], "app", "--html app: is a folder"),
    ];
    for (args, file, error) in refusals {
        let run = report(home, file, args);
        assert_eq!(run.code, 2, "{}", run.render(None));
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "one line: {}", run.stderr);
        assert!(
            run.stderr.starts_with(&format!("error: {error}")),
            "{}",
            run.stderr
        );
        assert_eq!(listing(home), before, "a refused run wrote something");
    }
}

#[test]
fn the_page_renders_in_a_browser_and_its_filter_runs() {
    let scenario = scenario();
    let html = written_page(&scenario, "out.html");
    // The file itself, whatever the machine has.
    assert!(html.contains("data-status=\"clean\""), "{html}");
    assert!(html.contains("<svg class=\"timeline\""), "{html}");
    assert!(
        !html.contains("data-rendered=\"yes\""),
        "only the script marks the page rendered"
    );
    let Some(chromium) = chromium() else {
        println!(
            "skipped the browser part: no chromium at /usr/bin/chromium or on PATH (install it to render the page)"
        );
        return;
    };
    let page = std::fs::canonicalize(scenario.home.path().join("out.html")).expect("the page");
    let url = format!("file://{}", page.display());
    let dom = headless(&chromium, &url, &["--dump-dom".to_owned()]);
    assert!(
        dom.contains("data-rendered=\"yes\""),
        "the script did not run:\n{dom}"
    );
    assert!(dom.contains("3 of 3 nodes shown"), "{dom}");
    for id in ["app", "docs", "util"] {
        assert!(
            dom.contains(&format!("<span class=\"node-id\">{id}</span>")),
            "{id}: {dom}"
        );
    }
    assert!(dom.contains("<svg class=\"timeline\""), "{dom}");
    assert!(
        dom.contains("Tweak f &lt;script&gt;alert(1)&lt;/script&gt;"),
        "the subject is text: {dom}"
    );
    let clean = headless(
        &chromium,
        &format!("{url}#status=clean"),
        &["--dump-dom".to_owned()],
    );
    assert!(clean.contains("1 of 3 nodes shown"), "{clean}");
    assert!(
        clean.contains("data-status=\"blocked\" data-search=\"app app.py\" hidden=\"\""),
        "the blocked node is hidden by the status filter: {clean}"
    );
    let by_path = headless(
        &chromium,
        &format!("{url}#q=NOTES"),
        &["--dump-dom".to_owned()],
    );
    assert!(by_path.contains("1 of 3 nodes shown"), "{by_path}");
    assert!(
        by_path.contains("data-search=\"docs notes.md\">"),
        "docs matches its path: {by_path}"
    );
    screenshot(&chromium, &url, "report-screenshot.png");
}
