//! `keel fresh` as a user runs it, on the fresh scenario (`keel_fixtures::fresh`): the
//! report as text and JSON (snapshots), the advisory exit status and `--strict`, the
//! working tree as the tip, `--stats`, and the refusals of a readings file keel cannot use
//! (exit 2, one line naming file, line and repair, nothing on stdout, nothing written).

use crate::support::{Run, listing, run, snapshot_settings};
use keel_fixtures::FixtureRepo;
use keel_fixtures::fresh::{FreshScenario, build_fresh};
use std::path::Path;

/// The scenario's repository, and a separate folder holding its readings file (outside
/// the work tree, so it is no untracked file of the working tree).
struct Case {
    repo: FixtureRepo,
    scenario: FreshScenario,
    dir: tempfile::TempDir,
}

impl Case {
    fn new() -> Self {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        let scenario = build_fresh(&mut repo).expect("the fresh scenario builds");
        let dir = tempfile::tempdir().expect("a temporary folder");
        let case = Self {
            repo,
            scenario,
            dir,
        };
        case.readings(&case.scenario.readings());
        case
    }

    /// Replaces the readings file.
    fn readings(&self, text: &str) {
        std::fs::write(self.dir.path().join("readings.jsonl"), text).expect("write readings");
    }

    /// `keel fresh readings.jsonl --repo REPO ARGS`, run in the readings' folder.
    fn fresh(&self, args: &[&str]) -> Run {
        let repo = self.repo.path().display().to_string();
        let mut all = vec!["fresh", "readings.jsonl", "--repo", repo.as_str()];
        all.extend_from_slice(args);
        let run = run(self.dir.path(), &all);
        run.assert_no_panic();
        run
    }

    fn root(&self) -> &Path {
        self.repo.path()
    }
}

fn snapshot(name: &str, command: &str, run: &Run, root: &Path) {
    let mut settings = snapshot_settings();
    settings.set_description(command);
    settings.set_omit_expression(true);
    let block = run.render(Some(root));
    settings.bind(|| insta::assert_snapshot!(name, block));
}

#[test]
fn a_known_hit_stales_its_reading_first_of_all() {
    let case = Case::new();
    let run = case.fresh(&["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    let control = &report["readings"][0];
    assert_eq!(control["id"], "control");
    assert_eq!(control["status"], "stale", "{control}");
    assert_eq!(control["commit"], case.scenario.change_g.as_str());
    assert_eq!(control["selector"], "app.py#g");
}

#[test]
fn keel_fresh_reports_the_scenario_as_text() {
    let case = Case::new();
    let run = case.fresh(&[]);
    snapshot(
        "cli_fresh_text",
        "keel fresh readings.jsonl --repo [REPO]",
        &run,
        case.root(),
    );
}

#[test]
fn keel_fresh_reports_the_scenario_as_json() {
    let case = Case::new();
    let run = case.fresh(&["--format", "json"]);
    assert_eq!(run.json()["schema"], "keel.fresh.v1");
    assert_eq!(run.json()["tip"], case.scenario.change_f.as_str());
    snapshot(
        "cli_fresh_json",
        "keel fresh readings.jsonl --repo [REPO] --format json",
        &run,
        case.root(),
    );
}

#[test]
fn fresh_is_advisory_unless_strict() {
    let case = Case::new();
    assert_eq!(case.fresh(&[]).code, 0);
    assert_eq!(case.fresh(&["--strict"]).code, 1);
    let only_fresh: String = case
        .scenario
        .readings()
        .lines()
        .filter(|line| line.contains("\"other-unit\"") || line.contains("\"at-tip\""))
        .map(|line| format!("{line}\n"))
        .collect();
    case.readings(&only_fresh);
    let run = case.fresh(&["--strict"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(run.stdout, "fresh other-unit\nfresh at-tip\n");
}

#[test]
fn uncommitted_changes_stale_a_reading_as_commit_worktree() {
    let case = Case::new();
    let before = case.fresh(&["--format", "json"]).json();
    assert_eq!(before["readings"][1]["status"], "fresh", "positive control");
    // `h` changes in the working tree only.
    let app = std::fs::read_to_string(case.root().join("app.py")).expect("read app.py");
    case.repo
        .write("app.py", &app.replace("x - 3", "x - 4"))
        .expect("edit app.py");
    let run = case.fresh(&["--format", "json"]);
    let report = run.json();
    assert_eq!(report["tip"], "worktree");
    let other = &report["readings"][1];
    assert_eq!(other["id"], "other-unit");
    assert_eq!(other["status"], "stale", "{other}");
    assert_eq!(other["commit"], "worktree");
    assert_eq!(other["reason"], "app.py#h changed in the working tree");
    let text = case.fresh(&[]);
    assert!(
        text.stdout
            .contains("stale other-unit: app.py#h changed in the working tree\n"),
        "{}",
        text.stdout
    );
}

#[test]
fn stats_count_the_images_the_scan_parsed() {
    let case = Case::new();
    let run = case.fresh(&["--stats"]);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one stats line:\n{}", run.stderr);
    let stats: serde_json::Value = serde_json::from_str(lines[0]).expect("the stats line is JSON");
    let ways: u64 = [
        "parsed_from_scratch",
        "parsed_incrementally",
        "parsed_spliced",
    ]
    .iter()
    .filter_map(|key| stats[key].as_u64())
    .sum();
    assert_eq!(Some(ways), stats["images_parsed"].as_u64(), "{stats}");
    assert!(stats["hunk_sets_diffed"].is_u64(), "{stats}");
    assert!(stats["queries_executed"].is_u64(), "{stats}");
    let shown = Run {
        stdout: run.stdout.clone(),
        stderr: format!(
            "images_parsed {}, hunk_sets_diffed {}\n",
            stats["images_parsed"], stats["hunk_sets_diffed"]
        ),
        code: run.code,
    };
    snapshot(
        "cli_fresh_stats",
        "keel fresh readings.jsonl --repo [REPO] --stats (two of the counters)",
        &shown,
        case.root(),
    );
}

/// Runs `keel fresh` on `readings` and checks the refusal contract; returns stderr.
fn refused(case: &Case, readings: &str) -> String {
    case.readings(readings);
    let before = listing(case.root());
    let run = case.fresh(&["--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert_eq!(run.stdout, "", "nothing on stdout");
    assert_eq!(run.stderr.lines().count(), 1, "one line: {}", run.stderr);
    assert!(run.stderr.contains("repair: "), "{}", run.stderr);
    assert_eq!(listing(case.root()), before, "nothing written");
    run.stderr
}

#[test]
fn a_malformed_line_is_refused_naming_file_and_line() {
    let case = Case::new();
    let good = case.scenario.readings();
    let first = good.lines().next().expect("a reading");
    let text = format!("\u{feff}{first}\n\n{{\"id\": \"broken\", \"commit\": \n");
    case.readings(&text);
    let run = case.fresh(&[]);
    snapshot(
        "cli_fresh_malformed",
        "keel fresh readings.jsonl --repo [REPO] (line 3 is cut short)",
        &run,
        case.root(),
    );
    let stderr = refused(&case, &text);
    assert!(
        stderr.starts_with("error: readings.jsonl:3: line: not valid JSON"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_commit_and_an_entry_keel_refuses_name_their_lines() {
    let case = Case::new();
    let unknown = format!(
        "{}{{\"id\": \"x\", \"commit\": \"{}\", \"code\": [\"app.py\"]}}\n",
        case.scenario.readings(),
        "f".repeat(40)
    );
    let stderr = refused(&case, &unknown);
    assert!(
        stderr.starts_with(&format!(
            "error: readings.jsonl:12: commit: {} names no commit in this repository",
            "f".repeat(40)
        )),
        "{stderr}"
    );
    let glob = format!(
        "{{\"id\": \"g\", \"commit\": \"{}\", \"code\": [\"*.py\"]}}\n",
        case.scenario.added
    );
    let stderr = refused(&case, &glob);
    assert!(
        stderr.starts_with("error: readings.jsonl:1: code[0]: `*.py` is a glob"),
        "{stderr}"
    );
    let missing = case.dir.path().join("readings.jsonl");
    std::fs::remove_file(&missing).expect("remove the readings");
    let run = case.fresh(&[]);
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert!(
        run.stderr
            .starts_with("error: readings.jsonl: file: cannot read it"),
        "{}",
        run.stderr
    );
}
