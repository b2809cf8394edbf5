//! `keel sessions` with the exact impact projection (#39): each linked record's `touched`
//! (the spec nodes its commits changed, the units among them, the nodes whose spec the
//! same commits updated), the per-repository and per-harness sums, and `keel report
//! --html` naming each touched node and whether its spec was updated.
//!
//! Owns: those fields on a history whose answer is known by construction (which commit
//! changed which pinned unit and which spec). Does not own: the projection itself
//! (`touched`), linking (`sessions`).

use crate::support::{APP_PY, run, spec};
use crate::{APP_PY_F_CHANGED, APP_PY_G_CHANGED};
use keel_fixtures::FIXTURE_EMAIL;
use keel_fixtures::sessions::{
    CLAUDE_TRAILER, CODEX_TRAILER, SessionLine, at, message, rfc, session_repo,
};
use serde_json::{Value, json};

/// The repository `proj`, and the sessions file beside it: s1 (claude-code, 10:00–11:00)
/// made c1 (changes `f`, pinned by `app`) and c2 (changes `util.py`, pinned by `util`,
/// and updates `util`'s spec); s2 (codex, 14:00–14:30) made c3 (changes `g`, pinned by
/// nothing).
fn history() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut repo = session_repo(dir.path(), "proj").expect("a repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write("util.py", "def helper():\n    return 1\n"))
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .and_then(|r| r.write(".spec/util/spec.md", &spec(&["util.py"])))
        .expect("write");
    repo.commit_at(&message("c0", None), FIXTURE_EMAIL, at(9, 0), at(9, 0))
        .expect("c0");
    repo.write("app.py", APP_PY_F_CHANGED).expect("write");
    let c1 = repo
        .commit_at(
            &message("c1", Some(CLAUDE_TRAILER)),
            FIXTURE_EMAIL,
            at(10, 10),
            at(10, 10),
        )
        .expect("c1");
    let updated = spec(&["util.py"]).replace("Prose keel does not read.", "The helper returns 2.");
    repo.write("util.py", "def helper():\n    return 2\n")
        .and_then(|r| r.write(".spec/util/spec.md", &updated))
        .expect("write");
    let c2 = repo
        .commit_at(
            &message("c2", Some(CLAUDE_TRAILER)),
            FIXTURE_EMAIL,
            at(10, 20),
            at(10, 20),
        )
        .expect("c2");
    let both = APP_PY_G_CHANGED.replace("x + 1", "x + 2");
    repo.write("app.py", &both).expect("write");
    let c3 = repo
        .commit_at(
            &message("c3", Some(CODEX_TRAILER)),
            FIXTURE_EMAIL,
            at(14, 10),
            at(14, 10),
        )
        .expect("c3");
    let root = dir.path().join("proj");
    let lines: String = [
        SessionLine::new("s1", "claude-code", &rfc(10, 0), &rfc(11, 0), Some(&root)).cost("2"),
        SessionLine::new("s2", "codex", &rfc(14, 0), &rfc(14, 30), Some(&root)).cost("1"),
    ]
    .iter()
    .map(|line| format!("{}\n", line.json()))
    .collect();
    std::fs::write(dir.path().join("sessions.jsonl"), lines).expect("write sessions");
    (dir, vec![c1, c2, c3])
}

fn record<'v>(report: &'v Value, session: &str) -> &'v Value {
    report["records"]
        .as_array()
        .expect("records")
        .iter()
        .find(|r| r["session_id"] == session)
        .unwrap_or_else(|| panic!("a record of {session}: {report}"))
}

#[test]
fn each_linked_session_counts_the_specs_it_touched_and_whether_it_updated_them() {
    let (dir, commits) = history();
    let ran = run(
        dir.path(),
        &[
            "sessions",
            "--sessions",
            "sessions.jsonl",
            "--now",
            "2026-01-16T00:00:00Z",
            "--format",
            "json",
        ],
    );
    ran.assert_no_panic();
    assert_eq!(ran.code, 0, "{}", ran.render(None));
    let report = ran.json();
    let s1 = record(&report, "s1");
    let mut s1_commits = vec![commits[0].clone(), commits[1].clone()];
    s1_commits.sort();
    assert_eq!(
        s1["commits"],
        json!(s1_commits),
        "the links this test relies on"
    );
    // c1 changed `f` (app, spec unchanged); c2 changed util.py and util's spec.
    assert_eq!(
        s1["touched"],
        json!({
            "nodes": 2,
            "units": 2,
            "spec_updated": 1,
            "unavailable": 0,
            "by_node": [
                {"node": "app", "spec_updated": false},
                {"node": "util", "spec_updated": true},
            ],
        })
    );
    // c3 changed `g`, which no spec pins.
    let s2 = record(&report, "s2");
    assert_eq!(s2["commits"], json!([commits[2]]));
    assert_eq!(s2["touched"]["nodes"], 0, "{s2}");
    assert_eq!(s2["touched"]["by_node"], json!([]));

    let summary = &report["summary"];
    assert_eq!(summary["by_repo"]["proj"]["specs_touched"], 2);
    assert_eq!(
        summary["by_repo"]["proj"]["specs_touched_without_update"],
        1
    );
    assert_eq!(summary["by_harness"]["claude-code"]["specs_touched"], 2);
    assert_eq!(
        summary["by_harness"]["claude-code"]["specs_touched_without_update"],
        1
    );
    assert_eq!(summary["by_harness"]["codex"]["specs_touched"], 0);

    // The page names each touched node and its spec's state, per session.
    let page = dir.path().join("report.html");
    let page_arg = page.display().to_string();
    let html = run(
        &dir.path().join("proj"),
        &[
            "report",
            "--html",
            &page_arg,
            "--sessions",
            "../sessions.jsonl",
            "--now",
            "2026-01-16T00:00:00Z",
        ],
    );
    html.assert_no_panic();
    let text = std::fs::read_to_string(&page).unwrap_or_else(|_| html.render(None));
    assert!(
        text.contains("app (spec unchanged), util (updated)"),
        "{}",
        html.render(None)
    );
}
