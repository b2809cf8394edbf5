//! Bounded cost on hostile files: `[lint] max_file_bytes` keeps a huge anchored file from
//! being parsed or diffed (`too-large` at the tip, a conservative hit in history) and a
//! huge source file from being parsed for the call graph (its module node alone, listed as
//! partial), and an anchored symbolic link is named as one instead of being parsed as code.

use crate::findings_of;
use crate::impact::PATCH_F;
use crate::support::{APP_PY, lint, repo_with, run, snapshot_settings, spec};
use keel_fixtures::FixtureRepo;

/// `APP_PY` with a long tail after `g`: every added line lies outside `f`.
fn padded_app(lines: usize) -> String {
    let mut text = APP_PY.to_owned();
    for i in 0..lines {
        text.push_str(&format!("PAD_{i} = {i}\n"));
    }
    text
}

/// A repository whose spec anchors `app.py#f` at its first commit; then one commit pads
/// `app.py` past 1 KiB outside `f`, and one takes the padding away again. `settings` is
/// committed with the spec.
fn padded_history(settings: &str) -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .and_then(|r| r.write("keel.toml", settings))
        .expect("write the first version");
    repo.commit("Add app and its spec").expect("commit");
    repo.write("app.py", &padded_app(100)).expect("pad");
    repo.commit("Pad app").expect("commit");
    repo.write("app.py", APP_PY).expect("unpad");
    repo.commit("Unpad app").expect("commit");
    repo
}

#[test]
fn history_images_past_the_bound_are_conservative_hits_and_within_it_are_judged_exactly() {
    // Control: with the default bound both changes are diffed and miss `f`.
    let exact = padded_history("");
    let run = lint(exact.path(), &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.render(Some(exact.path())));
    let report = run.json();
    assert!(findings_of(&report, "anchor-hit").is_empty(), "{report:#}");
    assert_eq!(
        findings_of(&report, "scoped-code-miss")[0]["hits"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{report:#}"
    );

    // Bounded at 500 bytes: the padded image (about 1.2 KB) is neither parsed nor diffed,
    // so both commits that meet it hit `f`, flagged conservative; the tip is within it.
    let bounded = padded_history("[lint]\nmax_file_bytes = 500\n");
    let run = lint(bounded.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.render(Some(bounded.path())));
    let report = run.json();
    let hits = findings_of(&report, "anchor-hit");
    assert_eq!(hits.len(), 1, "{report:#}");
    let hits = hits[0]["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 2, "{report:#}");
    assert!(hits.iter().all(|h| h["conservative"] == true), "{report:#}");
    assert_eq!(
        hits[0]["side"], "both",
        "the unpad commit has the file on both sides"
    );
    assert!(findings_of(&report, "too-large").is_empty(), "{report:#}");
}

#[test]
fn an_anchored_file_past_the_bound_at_the_tip_is_too_large_naming_the_setting() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", &padded_app(100))
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f,g"])))
        .and_then(|r| r.write("keel.toml", "[lint]\nmax_file_bytes = 500\n"))
        .expect("write");
    repo.commit("Add a padded app").expect("commit");
    let run = lint(repo.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.render(Some(repo.path())));
    let report = run.json();
    let too_large = findings_of(&report, "too-large");
    assert_eq!(too_large.len(), 1, "{report:#}");
    assert_eq!(too_large[0]["severity"], "error");
    assert_eq!(too_large[0]["selectors"], serde_json::json!(["f", "g"]));
    assert!(
        findings_of(&report, "dead-anchor").is_empty(),
        "not parsed, so not dead: {report:#}"
    );
    let text = lint(repo.path(), &[]);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_lint_too_large", text.render(Some(repo.path())));
    });
}

#[cfg(unix)]
#[test]
fn an_anchored_symbolic_link_is_named_as_a_link_not_parsed() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["link.py#f"])))
        .expect("write");
    std::os::unix::fs::symlink("app.py", repo.path().join("link.py")).expect("symlink");
    repo.commit("Add app, a link to it and the spec")
        .expect("commit");
    let run = lint(repo.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.render(Some(repo.path())));
    let report = run.json();
    let links = findings_of(&report, "symlink-anchor");
    assert_eq!(links.len(), 1, "{report:#}");
    assert!(
        findings_of(&report, "unparseable-anchor").is_empty(),
        "a link is not parsed as code: {report:#}"
    );
    let text = lint(repo.path(), &[]);
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_lint_symlink_anchor", text.render(Some(repo.path())));
    });
}

/// `app.py` ([`APP_PY`], 61 bytes: `f` and `g`) beside `main.py` (48 bytes), whose `main`
/// calls `app.f`, with `settings` as `keel.toml` and [`PATCH_F`] (an edit inside `f`) as
/// `change.diff`.
fn graph_repo(settings: &str) -> FixtureRepo {
    repo_with(&[
        (
            "main.py",
            b"from app import f\n\n\ndef main():\n    return f(1)\n",
        ),
        ("keel.toml", settings.as_bytes()),
        ("change.diff", PATCH_F.as_bytes()),
    ])
}

/// `keel callgraph --format json` (plus `args`) of `repo`, checked to succeed.
fn graph(repo: &FixtureRepo, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["callgraph", "--format", "json"];
    all.extend_from_slice(args);
    let run = run(repo.path(), &all);
    assert_eq!(run.code, 0, "{}", run.render(Some(repo.path())));
    run.json()
}

fn ids<'a>(items: &'a serde_json::Value, key: &str) -> Vec<&'a str> {
    items
        .as_array()
        .map(|items| items.iter().filter_map(|i| i[key].as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn the_call_graph_parses_no_source_file_past_the_bound() {
    // Control: with the default bound app.py is read, and main's call reaches f.
    let read = graph(&graph_repo(""), &[]);
    assert_eq!(
        ids(&read["nodes"], "id"),
        [
            "app.py#<module>",
            "app.py#f",
            "app.py#g",
            "main.py#<module>",
            "main.py#main"
        ]
    );
    assert_eq!(ids(&read["edges"], "callee"), ["app.py#f"]);
    assert_eq!(read["partial"], serde_json::json!([]));

    // app.py (61 bytes) is past a 50-byte bound, main.py (48) is not: app.py is its
    // module node alone, listed as partial, and main's call of f is unresolved (never
    // dropped, never external).
    let repo = graph_repo("[lint]\nmax_file_bytes = 50\n");
    let bounded = graph(&repo, &[]);
    assert_eq!(
        ids(&bounded["nodes"], "id"),
        ["app.py#<module>", "main.py#<module>", "main.py#main"]
    );
    assert_eq!(bounded["nodes"][0]["end_line"], APP_PY.lines().count());
    assert_eq!(bounded["partial"], serde_json::json!(["app.py"]));
    assert_eq!(bounded["edges"], serde_json::json!([]));
    let unresolved = bounded["unresolved"].as_array().expect("a list");
    assert!(
        unresolved
            .iter()
            .any(|site| site["caller"] == "main.py#main" && site["callee_text"] == "f"),
        "{bounded}"
    );
    // `--rev` reads the bound from the commit's `keel.toml`.
    assert_eq!(graph(&repo, &["--rev", "HEAD"]), bounded);
    // Text names the file and both reasons a file is read in part.
    let text = run(repo.path(), &["callgraph"]);
    assert!(
        text.stdout.contains(
            "read in part: app.py (it did not parse cleanly, or it is larger than max_file_bytes)"
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn impact_seeds_a_change_to_a_file_past_the_bound_at_its_module_node() {
    let impact = |settings: &str| {
        let repo = graph_repo(settings);
        let run = run(repo.path(), &["impact", "change.diff"]);
        assert_eq!(run.code, 0, "{}", run.render(Some(repo.path())));
        run.json()
    };
    // Control: within the bound the edit is a change to f, which main calls.
    let read = impact("");
    assert_eq!(ids(&read["changes"], "id"), ["app.py#f"]);
    // Past it, the file's only node is its module: the change is charged there.
    let bounded = impact("[lint]\nmax_file_bytes = 50\n");
    assert_eq!(ids(&bounded["changes"], "id"), ["app.py#<module>"]);
    assert_eq!(bounded["changes"][0]["change"], "modified");
}
