//! A `dead-anchor` with a way forward (issue #37, item 5): a unit that moved to another
//! file is named there by its qualified name (files with the old file name first), a
//! method under a renamed class and a typo get "did you mean", and an anchor with no
//! likely home keeps the plain repair.

use crate::findings_of;
use crate::support::{lint, repo_with_spec, spec};

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
