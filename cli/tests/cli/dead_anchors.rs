//! A `dead-anchor` with a way forward (issue #37, item 5): a unit that moved to another
//! file is named there by its qualified name (files with the old file name first), a
//! method under a renamed class and a typo get "did you mean", and an anchor with no
//! likely home keeps the plain repair.

use crate::findings_of;
use crate::support::{APP_PY, forget_answer, lint, repo_with_spec, spec};

const SCAFFOLD: &str = "class Scaffold:\n    def route(self):\n        return 1\n\n    def endpoint(self):\n        return 2\n";

#[test]
fn a_dead_anchor_names_the_units_new_home_and_close_names() {
    let mut repo =
        repo_with_spec(spec(&["app.py#Scaffold.route,Scaffold.endpoint,regster"]).as_bytes());
    repo.write(".spec/plain/spec.md", &spec(&["app.py#vanished"]))
        .expect("write");
    repo.write(
        "app.py",
        &format!("{SCAFFOLD}\n\ndef register():\n    return 3\n"),
    )
    .expect("write");
    repo.commit("Add the scaffold").expect("commit");
    // `Scaffold.route` moves to two files (one named like the old one, which comes
    // first); `Scaffold.endpoint` stays behind under a renamed class.
    repo.write("sansio/app.py", SCAFFOLD)
        .and_then(|r| r.write("zz_other/app_copy.py", SCAFFOLD))
        .and_then(|r| {
            r.write(
                "app.py",
                "class App:\n    def endpoint(self):\n        return 2\n\n\ndef register():\n    return 3\n",
            )
        })
        .expect("write");
    repo.commit("Move the scaffold").expect("commit");

    let run = lint(repo.path(), &["--format", "json"]);
    let report = run.json();
    let dead = findings_of(&report, "dead-anchor");
    assert_eq!(dead.len(), 2, "{report}");
    let repair_of = |selector: &str| -> String {
        dead.iter()
            .find(|f| {
                f["selectors"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|x| x == selector))
            })
            .and_then(|f| f["repair"].as_str())
            .unwrap_or_else(|| panic!("a dead anchor for {selector}: {report}"))
            .to_owned()
    };
    let moved = repair_of("Scaffold.route");
    assert!(
        moved.contains(
            "Scaffold.route has the same qualified name at `sansio/app.py#Scaffold.route` or `zz_other/app_copy.py#Scaffold.route`"
        ),
        "{moved}"
    );
    assert!(
        moved.contains(
            "Scaffold.endpoint has the same qualified name at `sansio/app.py#Scaffold.endpoint`"
        ),
        "{moved}"
    );
    assert!(moved.contains("did you mean `App.endpoint`?"), "{moved}");
    assert!(moved.contains("; did you mean `register`?"), "{moved}");
    assert!(
        moved.ends_with("; otherwise follow the rename: write the unit's current qualified name, or remove the selector"),
        "{moved}"
    );
    assert_eq!(
        repair_of("vanished"),
        "follow the rename: write the unit's current qualified name, or remove the selector"
    );
    let text = lint(repo.path(), &[]);
    assert!(
        text.stdout.contains("`sansio/app.py#Scaffold.route`"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_path_that_now_holds_another_file_is_reported_with_the_old_files_hits() {
    let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 2"))
        .expect("write");
    let changed = repo.commit("Change f").expect("commit");
    repo.write(
        "app.py",
        &APP_PY
            .replace("x + 1", "x + 2")
            .replace("return 0", "return 9"),
    )
    .expect("write");
    let outside = repo.commit("Change g").expect("commit");
    repo.git(&["mv", "app.py", "core.py"]).expect("git mv");
    let moved = repo.commit("Move app to core").expect("commit");
    repo.write("app.py", "def f(x):\n    return x\n")
        .expect("write");
    repo.commit("A new app").expect("commit");

    let report = lint(repo.path(), &["--format", "json"]).json();
    let reused = findings_of(&report, "path-reused");
    assert_eq!(reused.len(), 1, "{report}");
    let finding = reused[0];
    assert_eq!(finding["severity"], "warning");
    assert_eq!(finding["path"], "app.py");
    let message = finding["message"].as_str().expect("a message");
    assert!(
        message.contains(&format!("{} moved it to core.py", &moved[..12]))
            && message.contains("the window's 2 commits to the old file belong to core.py (1 of them changed the pinned units)"),
        "{message}"
    );
    let hits: Vec<&str> = finding["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| hit["commit"].as_str().expect("a commit"))
        .collect();
    assert_eq!(hits, [changed.as_str()], "the hit on f, not {outside}");
    assert!(
        finding["repair"]
            .as_str()
            .is_some_and(|repair| repair.contains("point the entry at core.py"))
    );

    // The next lint extends the answer the first one kept on disk: the old file's hits
    // keep their subjects, as a cold lint gives them.
    repo.write("other.py", "y = 1\n").expect("write");
    repo.commit("Unrelated").expect("commit");
    let warm = lint(repo.path(), &[]);
    forget_answer(repo.path());
    let cold = lint(repo.path(), &[]);
    assert!(cold.stdout.contains("Change f"), "{}", cold.stdout);
    assert_eq!(warm.stdout, cold.stdout);
}

/// Node `app` pins `app.py#f`; then `app.py` moves to `core.py`, and `f` changes there.
fn moved_then_changed() -> keel_fixtures::FixtureRepo {
    let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.git(&["mv", "app.py", "core.py"]).expect("git mv");
    repo.commit("Move app to core").expect("commit");
    repo.write("core.py", &APP_PY.replace("x + 1", "x + 2"))
        .expect("write");
    repo.commit("Change f").expect("commit");
    repo
}

#[test]
fn a_moved_file_whose_path_stays_empty_is_no_reused_path() {
    let repo = moved_then_changed();
    let report = lint(repo.path(), &["--format", "json"]).json();
    assert!(findings_of(&report, "path-reused").is_empty(), "{report}");
    let dead = findings_of(&report, "dead-anchor");
    assert_eq!(dead.len(), 1, "{report}");
    assert!(
        dead[0]["repair"].as_str().is_some_and(
            |repair| repair.starts_with("f has the same qualified name at `core.py#f`")
        ),
        "{report}"
    );
}

#[test]
fn a_unit_moved_under_a_renamed_class_is_found_and_a_far_name_is_no_typo() {
    let flask = "class Flask:\n    def route(self):\n        return 1\n\n    def trap_http_exception(self):\n        return 2\n";
    let mut repo =
        repo_with_spec(spec(&["app.py#Flask.route,Flask.trap_http_exception"]).as_bytes());
    repo.write("app.py", flask).expect("write");
    repo.commit("Add Flask").expect("commit");
    repo.write("sansio/app.py", &flask.replace("class Flask", "class App"))
        .and_then(|r| {
            r.write(
                "app.py",
                "class Flask(App):\n    def handle_http_exception(self):\n        return 3\n",
            )
        })
        .expect("write");
    repo.commit("Move Flask to sansio as App").expect("commit");

    let report = lint(repo.path(), &["--format", "json"]).json();
    let dead = findings_of(&report, "dead-anchor");
    let repairs: Vec<&str> = dead.iter().filter_map(|f| f["repair"].as_str()).collect();
    let repair = repairs.join("\n");
    assert!(
        repair.contains("did you mean `sansio/app.py#App.route`?")
            && repair.contains("did you mean `sansio/app.py#App.trap_http_exception`?"),
        "{repair}"
    );
    assert!(
        !repair.contains("Flask.handle_http_exception"),
        "six edits away is no typo: {repair}"
    );
}

#[test]
fn a_file_moved_away_and_back_is_no_reused_path() {
    let mut repo = moved_then_changed();
    repo.git(&["mv", "core.py", "app.py"]).expect("git mv");
    repo.commit("Move core back to app").expect("commit");
    let report = lint(repo.path(), &["--format", "json"]).json();
    assert!(findings_of(&report, "path-reused").is_empty(), "{report}");
    assert_eq!(findings_of(&report, "anchor-hit").len(), 1, "{report}");
}

#[test]
fn a_plain_edit_of_a_file_is_no_reused_path() {
    let mut repo = repo_with_spec(spec(&["app.py#f", "other.py"]).as_bytes());
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 2"))
        .and_then(|r| r.write("other.py", "y = 2\n"))
        .expect("write");
    repo.commit("Change f and other").expect("commit");
    let report = lint(repo.path(), &["--format", "json"]).json();
    assert!(findings_of(&report, "path-reused").is_empty(), "{report}");
    assert_eq!(findings_of(&report, "anchor-hit").len(), 1, "{report}");
}
