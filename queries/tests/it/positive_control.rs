//! The positive control: a known anchored hit must be reported, and a known miss must
//! not, before any comparison test's agreement can mean anything.

use crate::support::{commit, lint_repo, node_findings, repo, spec, strings};

const APP_V1: &str = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
const APP_F_CHANGED: &str = "def f():\n    return 10\n\n\ndef g():\n    return 2\n";
const APP_G_CHANGED: &str = "def f():\n    return 10\n\n\ndef g():\n    return 20\n";

#[test]
fn known_hit_is_reported_and_known_miss_is_not() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("app.py", APP_V1),
            (".spec/n/spec.md", &spec(&["app.py#f"], &[])),
        ],
        "v1",
    );
    let hit = commit(&mut repo, &[("app.py", APP_F_CHANGED)], "change f");
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "n"),
        vec![("anchor-hit".to_owned(), strings(&["f"]), vec![hit.clone()])],
        "the control hit is missing: no comparison is meaningful"
    );
    assert!(report.blocks());

    commit(&mut repo, &[("app.py", APP_G_CHANGED)], "change g");
    let report = lint_repo(&repo);
    let findings = node_findings(&report, "n");
    assert_eq!(
        findings[0],
        ("anchor-hit".to_owned(), strings(&["f"]), vec![hit]),
        "a change to g must not hit f"
    );
    assert_eq!(findings[1].0, "scoped-code-miss");
}
