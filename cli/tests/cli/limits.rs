//! Bounded cost on hostile files: `[lint] max_file_bytes` keeps a huge anchored file from
//! being parsed or diffed (`too-large` at the tip, a conservative hit in history), and an
//! anchored symbolic link is named as one instead of being parsed as code.

use crate::findings_of;
use crate::support::{APP_PY, lint, snapshot_settings, spec};
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
