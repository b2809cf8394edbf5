//! Snapshots of what a user reads: `keel demo`, `keel lint` on the demo repository (text,
//! JSON, `--stats`), `keel lint` on inputs that once passed silently, and the help texts.
//! Each snapshot pins stdout, stderr and the exit code together; fixture commit ids are
//! deterministic, so they stay in.

use crate::support::{Run, lint, run, snapshot_settings};
use keel_fixtures::FixtureRepo;
use keel_fixtures::demo::build_demo;
use std::path::Path;

/// Compares `block` with `snapshots/<name>.snap`, described by the command that made it.
fn assert_block(name: &str, command: &str, block: &str) {
    let mut settings = snapshot_settings();
    settings.set_description(command);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, block));
}

/// The demo scenario, built by the test (the same history `keel demo` builds).
fn demo_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    build_demo(&mut repo).expect("the demo history");
    repo
}

/// A scratch folder to run commands that take no repository.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

fn snapshot_run(name: &str, command: &str, run: &Run, root: Option<&Path>) {
    run.assert_no_panic();
    assert_block(name, command, &run.render(root));
}

#[test]
fn the_demo_repository_has_the_same_commits_every_time() {
    let ids = |repo: &FixtureRepo| repo.git(&["log", "--format=%H %s"]).expect("git log");
    let first = ids(&demo_repo());
    assert_eq!(first.lines().count(), 5, "five commits:\n{first}");
    assert_eq!(first, ids(&demo_repo()));
}

#[test]
fn keel_demo_prints_the_scenario_as_text() {
    let dir = scratch();
    let run = run(dir.path(), &["demo"]);
    snapshot_run("cli_demo_text", "keel demo", &run, Some(dir.path()));
}

#[test]
fn keel_demo_prints_the_scenario_as_json() {
    let dir = scratch();
    let run = run(dir.path(), &["demo", "--format", "json"]);
    snapshot_run(
        "cli_demo_json",
        "keel demo --format json",
        &run,
        Some(dir.path()),
    );
}

#[test]
fn keel_demo_json_is_the_lint_report_of_the_demo_repository() {
    let dir = scratch();
    let demo = run(dir.path(), &["demo", "--format", "json"]);
    let repo = demo_repo();
    let linted = lint(repo.path(), &["--format", "json"]);
    assert_eq!(demo.stdout, linted.stdout);
}

#[test]
fn keel_lint_reports_the_demo_repository_as_text() {
    let repo = demo_repo();
    let run = lint(repo.path(), &[]);
    snapshot_run(
        "cli_lint_demo_text",
        "keel lint --repo [REPO]",
        &run,
        Some(repo.path()),
    );
}

#[test]
fn keel_lint_reports_the_demo_repository_as_json() {
    let repo = demo_repo();
    let run = lint(repo.path(), &["--format", "json"]);
    assert_eq!(run.json()["schema"], "keel.lint.v1");
    snapshot_run(
        "cli_lint_demo_json",
        "keel lint --repo [REPO] --format json",
        &run,
        Some(repo.path()),
    );
}

#[test]
fn keel_lint_reports_what_once_passed_silently() {
    // An empty node, a folder and a glob that cover nothing, and a Next.js route whose
    // literal path holds `[`: the route is a path (its selector resolves), the others warn
    // or block.
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    let page = "export function Page() {\n  return 1;\n}\n";
    for (path, content) in [
        ("app/[slug]/page.tsx", page),
        (
            ".spec/empty/spec.md",
            "---\ncode:\n---\n# Nothing anchored\n",
        ),
        (
            ".spec/route/spec.md",
            "---\ncode:\n  - app/[slug]/page.tsx#Page\n  - gone/\nrelated:\n  - lib/**/*.py\n---\n",
        ),
    ] {
        repo.write(path, content).expect("write");
    }
    repo.commit("Add a route and its specs").expect("commit");
    let run = lint(repo.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.render(Some(repo.path())));
    snapshot_run(
        "cli_lint_no_silent_pass_text",
        "keel lint --repo [REPO]",
        &run,
        Some(repo.path()),
    );
}

#[test]
fn keel_lint_stats_prints_one_json_line_of_counters_on_stderr() {
    let repo = demo_repo();
    let run = lint(repo.path(), &["--stats"]);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one stats line:\n{}", run.stderr);
    let stats: serde_json::Value = serde_json::from_str(lines[0]).expect("the stats line is JSON");
    let ways = [
        "parsed_from_scratch",
        "parsed_incrementally",
        "parsed_spliced",
    ];
    for key in ["images_parsed", "hunk_sets_diffed", "queries_executed"]
        .iter()
        .chain(&ways)
    {
        assert!(stats[key].is_u64(), "`{key}` is a count: {stats}");
    }
    let by_way: u64 = ways.iter().filter_map(|key| stats[key].as_u64()).sum();
    assert_eq!(
        Some(by_way),
        stats["images_parsed"].as_u64(),
        "every parsed image was parsed one way: {stats}"
    );
    // Which thread reached an image first decides how it was parsed, not what it yields:
    // the split between the three ways is left out of the snapshot.
    let mut stable = serde_json::Map::new();
    for key in ["images_parsed", "hunk_sets_diffed", "queries_executed"] {
        stable.insert(key.to_owned(), stats[key].clone());
    }
    let shown = crate::support::Run {
        stdout: run.stdout.clone(),
        stderr: format!("{}\n", serde_json::Value::Object(stable)),
        code: run.code,
    };
    snapshot_run(
        "cli_lint_demo_stats",
        "keel lint --repo [REPO] --stats (the three parse counters left out)",
        &shown,
        Some(repo.path()),
    );
}

#[test]
fn keel_help_lists_the_commands() {
    let dir = scratch();
    let run = run(dir.path(), &["--help"]);
    snapshot_run("cli_help", "keel --help", &run, None);
}

#[test]
fn keel_lint_help_states_the_exit_codes() {
    let dir = scratch();
    let run = run(dir.path(), &["lint", "--help"]);
    assert!(run.stdout.contains("Exit 0"), "{}", run.stdout);
    snapshot_run("cli_lint_help", "keel lint --help", &run, None);
}
