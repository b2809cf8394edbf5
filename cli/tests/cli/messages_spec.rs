//! The spec reader's messages (issue #13), each pinned as a snapshot of what `keel lint`
//! prints: a byte order mark before the frontmatter is accepted; a frontmatter nesting
//! past keel's bound, or larger than it, is refused before the YAML reader sees it; a
//! `code:` item YAML reads as a number, boolean or null is refused as not a path; a
//! frontmatter of the wrong shape names the shape expected in words; a path with `.` or
//! `..` parts that stays inside the repository is judged as the path it names; a Python
//! selector matches a definition that differs from it only in NFKC normalization.
//!
//! Every refusal is checked against the contract: exit 2, one `error:` line with a
//! `repair:`, nothing on stdout, nothing written.

use crate::support::{
    APP_PY, Run, lint, listing, redact_path, repo_with, snapshot_settings, spec, status,
};
use crate::{APP_PY_F_CHANGED, findings_of};
use keel_fixtures::FixtureRepo;

/// Compares `text` with `snapshots/<name>.snap`.
fn snapshot(name: &str, description: &str, text: &str) {
    let mut settings = snapshot_settings();
    settings.set_description(description);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Runs `keel lint` on `repo`, checks the refusal contract (exit 2, one `error:` line
/// with a `repair:`, nothing on stdout, nothing written, `git status` unchanged) and
/// returns that line with the repository's path shown as `[REPO]`.
fn refused(repo: &FixtureRepo) -> String {
    let status_before = status(repo);
    let before = listing(repo.path());
    let run = lint(repo.path(), &[]);
    run.assert_no_panic();
    assert_eq!(run.code, 2, "{}", run.render(Some(repo.path())));
    assert!(run.stdout.is_empty(), "nothing on stdout: {}", run.stdout);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", run.stderr);
    assert!(lines[0].contains("; repair: "), "{}", run.stderr);
    assert_eq!(
        listing(repo.path()),
        before,
        "keel wrote into the repository"
    );
    assert_eq!(status(repo), status_before, "keel changed `git status`");
    redact_path(lines[0], repo.path())
}

/// The node `app` holding `spec_text` is refused at `line`; its error line is snapshot
/// `name`.
fn assert_refused(name: &str, description: &str, spec_text: &str, line: u32) {
    let repo = repo_with(&[(".spec/app/spec.md", spec_text.as_bytes())]);
    let error = refused(&repo);
    let location = format!("error: .spec/app/spec.md:{line}: ");
    assert!(
        error.starts_with(&location),
        "`{location}` expected: {error}"
    );
    snapshot(name, description, &error);
}

/// A spec node whose frontmatter is `yaml`, then prose.
fn frontmatter(yaml: &str) -> String {
    format!("---\n{yaml}\n---\n\n# A node\n")
}

/// A repository holding `files` (besides `app.py`) in its first commit and `changed` at
/// `path` in a second one.
fn repo_with_change(files: &[(&str, &[u8])], path: &str, changed: &str) -> FixtureRepo {
    let mut repo = repo_with(files);
    repo.write(path, changed).expect("write the change");
    repo.commit("Change f").expect("commit");
    repo
}

/// `keel lint` on `repo` in text (snapshot `name`) and JSON; the JSON report's
/// `anchor-hit` findings, after checking that the hit blocks (exit 1) and no anchor is
/// dead.
fn anchor_hits(repo: &FixtureRepo, name: &str, description: &str) -> Vec<serde_json::Value> {
    let text: Run = lint(repo.path(), &[]);
    text.assert_no_panic();
    snapshot(name, description, &text.render(Some(repo.path())));
    let json = lint(repo.path(), &["--format", "json"]);
    json.assert_no_panic();
    assert_eq!(
        json.code,
        1,
        "a hit blocks: {}",
        json.render(Some(repo.path()))
    );
    let report = json.json();
    assert!(
        findings_of(&report, "dead-anchor").is_empty(),
        "no dead anchor: {}",
        json.stdout
    );
    findings_of(&report, "anchor-hit")
        .into_iter()
        .cloned()
        .collect()
}

#[test]
fn a_byte_order_mark_before_the_frontmatter_is_accepted() {
    let text = format!("\u{feff}{}", spec(&["app.py#f"]));
    let repo = repo_with_change(
        &[(".spec/app/spec.md", text.as_bytes())],
        "app.py",
        APP_PY_F_CHANGED,
    );
    let hits = anchor_hits(
        &repo,
        "messages_spec_bom",
        "keel lint; spec.md starts with a UTF-8 byte order mark, then `---`",
    );
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["selectors"], serde_json::json!(["f"]));
}

#[test]
fn a_frontmatter_nesting_past_the_bound_is_refused() {
    let levels = 100_000;
    let yaml = format!(
        "code:\n  - app.py#f\nx: {}{}",
        "[".repeat(levels),
        "]".repeat(levels)
    );
    assert_refused(
        "messages_spec_too_deep",
        "keel lint; line 4 of spec.md is `x: ` then 100,000 `[` and 100,000 `]`",
        &frontmatter(&yaml),
        4,
    );
}

#[test]
fn a_frontmatter_larger_than_the_bound_is_refused() {
    let yaml = format!("code:\n  - app.py#f\nnotes: \"{}\"", "x".repeat(300 * 1024));
    assert_refused(
        "messages_spec_too_large",
        "keel lint; line 4 of spec.md is `notes: ` and a 300 KiB string",
        &frontmatter(&yaml),
        4,
    );
}

#[test]
fn a_number_in_code_is_not_a_path() {
    assert_refused(
        "messages_spec_number",
        "keel lint; `code:` lists `- app.py#f`, `- 42`",
        &spec(&["app.py#f", "42"]),
        4,
    );
}

#[test]
fn a_null_in_code_is_not_a_path() {
    assert_refused(
        "messages_spec_null",
        "keel lint; `code:` lists `- null`",
        &spec(&["null"]),
        3,
    );
}

#[test]
fn a_boolean_in_related_is_not_a_path() {
    assert_refused(
        "messages_spec_boolean",
        "keel lint; `code:` lists `- app.py#f`, `related:` lists `- true`",
        &frontmatter("code:\n  - app.py#f\nrelated:\n  - true"),
        5,
    );
}

#[test]
fn code_that_is_a_string_names_the_shape_expected() {
    assert_refused(
        "messages_spec_code_string",
        "keel lint; the frontmatter is `code: app.py#f`",
        &frontmatter("code: app.py#f"),
        2,
    );
}

#[test]
fn code_that_is_a_mapping_names_the_shape_expected() {
    assert_refused(
        "messages_spec_code_mapping",
        "keel lint; the frontmatter is `code: {app.py: f}`",
        &frontmatter("code: {app.py: f}"),
        2,
    );
}

#[test]
fn code_holding_a_list_names_the_shape_expected() {
    assert_refused(
        "messages_spec_code_nested",
        "keel lint; the frontmatter is `code: [[app.py#f]]`",
        &frontmatter("code: [[app.py#f]]"),
        2,
    );
}

#[test]
fn a_frontmatter_that_is_a_list_names_the_shape_expected() {
    assert_refused(
        "messages_spec_frontmatter_list",
        "keel lint; the frontmatter is `- app.py#f`",
        &frontmatter("- app.py#f"),
        2,
    );
}

#[test]
fn a_frontmatter_that_is_text_names_the_shape_expected() {
    assert_refused(
        "messages_spec_frontmatter_text",
        "keel lint; the frontmatter is `# notes`, then `app.py, f`",
        &frontmatter("# notes\napp.py, f"),
        3,
    );
}

#[test]
fn a_path_with_dot_parts_inside_the_repository_is_normalized_and_judged() {
    let text = spec(&["src/../src/a.py#f"]);
    let repo = repo_with_change(
        &[
            ("src/a.py", APP_PY.as_bytes()),
            (".spec/app/spec.md", text.as_bytes()),
        ],
        "src/a.py",
        APP_PY_F_CHANGED,
    );
    let hits = anchor_hits(
        &repo,
        "messages_spec_dot_parts",
        "keel lint; `code:` lists `- src/../src/a.py#f` and a commit changes `f` in src/a.py",
    );
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["path"], "src/a.py");
}

#[test]
fn a_path_whose_dot_parts_climb_out_of_the_repository_is_refused() {
    assert_refused(
        "messages_spec_dot_parts_outside",
        "keel lint; `code:` lists `- src/../../app.py#f`",
        &spec(&["src/../../app.py#f"]),
        3,
    );
}

#[test]
fn a_python_selector_matches_a_definition_equal_under_nfkc() {
    // `ﬁnd` (with the U+FB01 ligature) names `def find`; `g` names `def ｇ` (fullwidth).
    let source = "def find(x):\n    y = x + 1\n    return y\n\n\ndef \u{ff47}():\n    return 0\n";
    let changed = source.replace("x + 1", "x + 2");
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", source)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#\u{fb01}nd,g"])))
        .expect("write the first version");
    repo.commit("Add app and its spec").expect("commit");
    repo.write("app.py", &changed).expect("write the change");
    repo.commit("Change find").expect("commit");
    let hits = anchor_hits(
        &repo,
        "messages_spec_nfkc",
        "keel lint; `code:` lists `app.py#\u{fb01}nd,g` (U+FB01 ligature); app.py defines `find` and `\u{ff47}` (fullwidth); a commit changes `find`",
    );
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["hits"][0]["selectors"], serde_json::json!(["find"]));
}

#[test]
fn every_refused_entry_of_every_spec_is_told_one_line_each_and_json_alike() {
    let repo = repo_with(&[
        (
            ".spec/app/spec.md",
            b"---\ncode:\n  - app.py#f\n  - ''\n  - lib/#g\n---\n",
        ),
        (".spec/zed/spec.md", b"---\ncode:\n  - ../outside.py\n---\n"),
    ]);
    let before = listing(repo.path());
    let run = lint(repo.path(), &[]);
    run.assert_no_panic();
    assert_eq!(run.code, 2, "{}", run.render(Some(repo.path())));
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let locations: Vec<&str> = run
        .stderr
        .lines()
        .map(|line| line.split(": ").nth(1).unwrap_or_default())
        .collect();
    assert_eq!(
        locations,
        [
            ".spec/app/spec.md:4",
            ".spec/app/spec.md:5",
            ".spec/zed/spec.md:3"
        ],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .lines()
            .all(|line| line.starts_with("error: ") && line.contains("; repair: ")),
        "{}",
        run.stderr
    );
    let json = lint(repo.path(), &["--error-format", "json"]);
    let codes: Vec<String> = json
        .stderr
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            value["code"].as_str().expect("a code").to_owned()
        })
        .collect();
    assert_eq!(codes.len(), 3, "{}", json.stderr);
    assert!(codes.iter().all(|code| code == &codes[0]), "{codes:?}");
    assert_eq!(listing(repo.path()), before, "nothing written");
}
