//! `keel lint --rev` and `keel replay`: a past tip judged as if checked out, and one line
//! per tip that agrees with `keel lint --rev` of that tip; pinned controls (`--expect`)
//! that pass, fail (exit 1) and are refused (exit 2); and the `--html` page of the tips,
//! checked as HTML and, when Chromium is installed, rendered headless (a screenshot lands
//! in `target/`).

use crate::support::{Run, chromium, headless, lint, listing, run, screenshot};
use keel_fixtures::FixtureRepo;
use keel_fixtures::demo::{add_demo_followup, build_demo};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The demo history, a side branch off its second commit, the follow-up, and a merge.
fn branchy_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    build_demo(&mut repo).expect("the demo history");
    repo.git(&["checkout", "-q", "-b", "side", "HEAD~3"])
        .expect("a side branch");
    repo.write("notes.txt", "side work\n").expect("write");
    repo.commit("Side notes").expect("commit");
    repo.git(&["checkout", "-q", "main"]).expect("back to main");
    add_demo_followup(&mut repo).expect("the follow-up");
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"])
        .expect("a merge");
    repo
}

fn replay(repo: &FixtureRepo, args: &[&str]) -> Run {
    let repo_arg = repo.path().display().to_string();
    let mut all = vec!["replay", "--repo", repo_arg.as_str()];
    all.extend_from_slice(args);
    let run = run(repo.path(), &all);
    run.assert_no_panic();
    run
}

fn lines(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

/// What a `keel.lint.v1` report adds up to, computed here from its JSON.
fn tally(report: &Value) -> (u64, BTreeMap<String, u64>, usize) {
    let mut codes = BTreeMap::new();
    let mut debt = BTreeSet::new();
    for finding in report["findings"].as_array().expect("findings") {
        let code = finding["code"].as_str().expect("a code").to_owned();
        *codes.entry(code.clone()).or_insert(0) += 1;
        if code != "anchor-hit" {
            continue;
        }
        for hit in finding["hits"].as_array().expect("hits") {
            for selector in hit["selectors"].as_array().expect("selectors") {
                debt.insert((
                    finding["node"].to_string(),
                    selector.to_string(),
                    hit["commit"].to_string(),
                ));
            }
        }
    }
    (
        report["summary"]["nodes"].as_u64().expect("nodes"),
        codes,
        debt.len(),
    )
}

#[test]
fn lint_rev_judges_a_past_commit_as_if_it_were_checked_out() {
    let repo = branchy_repo();
    let past = lint(repo.path(), &["--rev", "HEAD~2", "--format", "json"]);
    past.assert_no_panic();
    repo.git(&["checkout", "-q", "--detach", "HEAD~2"])
        .expect("check it out");
    let checked_out = lint(repo.path(), &["--format", "json"]);
    assert_eq!(past.stdout, checked_out.stdout);
    assert_eq!(past.code, checked_out.code);
    let bad = lint(repo.path(), &["--rev", "no-such-rev"]);
    assert_eq!((bad.code, bad.stdout.as_str()), (2, ""));
    assert!(bad.stderr.contains("no-such-rev"), "{}", bad.stderr);
    let both = lint(repo.path(), &["--rev", "HEAD", "--worktree"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}

#[test]
fn every_replayed_tip_agrees_with_lint_rev_of_that_tip() {
    let repo = branchy_repo();
    let tips: Vec<String> = repo
        .git(&["rev-list", "--reverse", "HEAD"])
        .expect("rev-list")
        .lines()
        .map(str::to_owned)
        .collect();
    let run = replay(&repo, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = lines(&run);
    assert_eq!(lines.len(), tips.len());
    let mut blocked_tips = 0;
    for (line, tip) in lines.iter().zip(&tips) {
        assert_eq!(line["schema"], "keel.replay.v1");
        assert_eq!(line["tip"], tip.as_str());
        let cold = lint(repo.path(), &["--rev", tip, "--format", "json"]);
        let report: Value = serde_json::from_str(&cold.stdout).expect("JSON");
        let (nodes, codes, debt) = tally(&report);
        assert_eq!(line["nodes"], nodes, "{tip}");
        let replayed: BTreeMap<String, u64> =
            serde_json::from_value(line["findings"].clone()).expect("counts by code");
        assert_eq!(replayed, codes, "{tip}");
        assert_eq!(line["debt"], debt as u64, "{tip}");
        assert_eq!(line["blocked"], cold.code == 1, "{tip}");
        blocked_tips += usize::from(cold.code == 1);
        let date = repo
            .git(&["show", "-s", "--format=%cI", tip])
            .expect("the committer date");
        assert_eq!(
            line["date"].as_str().map(|d| d.trim_end_matches('Z')),
            Some(date.trim().trim_end_matches("+00:00").trim_end_matches('Z')),
            "{tip}"
        );
    }
    assert!(
        blocked_tips > 0 && blocked_tips < tips.len(),
        "{blocked_tips}"
    );
    let first_parent = lines_of(&replay(&repo, &["--first-parent"]));
    let expected: Vec<String> = repo
        .git(&["rev-list", "--reverse", "--first-parent", "HEAD"])
        .expect("rev-list")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(first_parent, expected);
    let range = lines_of(&replay(&repo, &["--range", "side..main"]));
    let expected: Vec<String> = repo
        .git(&["rev-list", "--reverse", "side..main"])
        .expect("rev-list")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(range, expected);
    assert_eq!(
        lines_of(&replay(&repo, &["--last", "5", "--every", "2"])).len(),
        3
    );
}

fn lines_of(run: &Run) -> Vec<String> {
    assert_eq!(run.code, 0, "{}", run.stderr);
    lines(run)
        .iter()
        .map(|line| line["tip"].as_str().expect("a tip").to_owned())
        .collect()
}

#[test]
fn a_pinned_control_passes_fails_or_is_refused() {
    let repo = branchy_repo();
    let held = replay(
        &repo,
        &["--last", "3", "--expect", "HEAD:auth/login:anchor-hit"],
    );
    assert_eq!(held.code, 0, "{}", held.stderr);
    // Before the follow-up the billing node is clean: the control must fail, loudly.
    let missed = replay(
        &repo,
        &[
            "--expect",
            "HEAD^1~1:billing:anchor-hit",
            "--format",
            "text",
        ],
    );
    assert_eq!(missed.code, 1, "{}", missed.stderr);
    assert!(
        missed.stderr.contains(
            "--expect HEAD^1~1:billing:anchor-hit: no anchor-hit finding for node billing"
        ),
        "{}",
        missed.stderr
    );
    assert!(
        !missed.stdout.is_empty(),
        "the replay still prints every tip"
    );
    for (args, says) in [
        (vec!["--expect", "HEAD:billing"], "not TIP:NODE:CODE"),
        (
            vec!["--expect", "HEAD:billing:hit"],
            "hit is no finding code",
        ),
        (
            vec!["--last", "1", "--expect", "HEAD~1:billing:anchor-hit"],
            "is not among the replayed tips",
        ),
        (vec!["--range", "main"], "not A..B"),
        (vec!["--range", "side...main"], "symmetric difference"),
        (vec!["--every", "0"], "--every"),
    ] {
        let refused = replay(&repo, &args);
        assert_eq!(refused.code, 2, "{args:?}: {}", refused.stderr);
        assert_eq!(refused.stdout, "", "{args:?}");
        assert!(
            refused.stderr.contains(says),
            "{args:?}: {}",
            refused.stderr
        );
    }
}

#[test]
fn the_html_page_draws_every_tip_and_renders_in_a_browser() {
    let repo = branchy_repo();
    let plain = replay(&repo, &[]);
    let run = replay(&repo, &["--html", "out.html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tips = lines_of(&run);
    assert_eq!(tips, lines_of(&plain), "--html prints the same lines");
    let html = std::fs::read_to_string(repo.path().join("out.html")).expect("the page");
    assert!(html.starts_with("<!DOCTYPE html>\n"), "{html}");
    assert!(html.contains("<svg class=\"replay debt-chart\""), "{html}");
    assert!(
        html.contains("<svg class=\"replay findings-chart\""),
        "{html}"
    );
    assert!(html.contains("data-code=\"anchor-hit\""), "{html}");
    assert_eq!(html.matches("<tr id=\"tip-").count(), tips.len(), "{html}");
    for tip in &tips {
        assert!(html.contains(&format!("<tr id=\"tip-{tip}\"")), "{tip}");
    }
    for outside in [
        "://", " src=", "<link", "url(", "@import", "<iframe", "<img",
    ] {
        assert!(!html.contains(outside), "the page holds {outside:?}");
    }
    assert!(
        !html.contains(&repo.path().display().to_string()),
        "the page names a path of this machine"
    );
    assert!(replay(&repo, &["--html", "two.html"]).code == 0);
    let again = std::fs::read_to_string(repo.path().join("two.html")).expect("the page");
    assert!(again == html, "two runs wrote different pages");
    let before = listing(repo.path());
    let refused = replay(&repo, &["--html", "missing/out.html"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_eq!(refused.stdout, "", "refused before any tip is judged");
    assert!(
        refused
            .stderr
            .starts_with("error: --html missing/out.html: the folder missing does not exist"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        listing(repo.path()),
        before,
        "a refused run wrote something"
    );
    let Some(chromium) = chromium() else {
        println!(
            "skipped the browser part: no chromium at /usr/bin/chromium or on PATH (install it to render the page)"
        );
        return;
    };
    let page = std::fs::canonicalize(repo.path().join("out.html")).expect("the page");
    let url = format!("file://{}", page.display());
    let dom = headless(&chromium, &url, &["--dump-dom".to_owned()]);
    assert!(dom.contains("<svg class=\"replay debt-chart\""), "{dom}");
    assert!(dom.contains("<polyline class=\"debt-line\""), "{dom}");
    assert_eq!(dom.matches("<tr id=\"tip-").count(), tips.len(), "{dom}");
    screenshot(&chromium, &url, "replay-screenshot.png");
}
