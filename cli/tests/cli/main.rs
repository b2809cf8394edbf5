//! End-to-end tests of the `keel` binary: `keel lint` and `keel demo` run as a user runs
//! them, against repositories built by `keel_fixtures::FixtureRepo`.
//!
//! Owns: the exit contract (0 / 1 / 2), the refusal contract for bad input (one `error:`
//! line naming file, line and repair; nothing on stdout; nothing written), the snapshots of
//! the reports and help texts (in the top-level `snapshots/` folder), and colour in pipes.
//! Does not own: the judgement itself (`keel-queries`' own tests).
//!
//! The positive control below is named to sort first, and libtest starts tests in name
//! order: if keel stops seeing a known anchored hit, it is the first failure reported.

mod ack;
mod agent_logs;
#[cfg(unix)]
mod cache_trouble;
mod catalogue;
mod colour;
mod cosmetic;
mod dead_anchors;
#[cfg(unix)]
mod editor_neovim;
mod error_codes;
mod exit_codes;
mod first_hour;
mod fresh;
mod gate_update;
mod harness_logs;
#[cfg(unix)]
mod hook;
#[cfg(unix)]
mod hook_install;
mod impact;
mod impact_dispatch;
mod impact_rename;
mod kept_answer;
mod limits;
mod lsp;
mod lsp_client;
mod lsp_typescript;
mod memo;
mod messages_inputs;
mod messages_spec;
mod no_silence;
mod pending;
mod replay;
mod report;
mod reports;
mod sessions;
mod sessions_touched;
mod sessions_usage;
#[cfg(unix)]
mod sha256;
mod support;
mod surfaces;
mod touched;
mod watch;
mod where_teams_look;

use support::{APP_PY, lint, spec};

/// `APP_PY` with a changed line inside `f` (line 2).
const APP_PY_F_CHANGED: &str =
    "def f(x):\n    y = x + 2\n    return y\n\n\ndef g():\n    return 0\n";

/// `APP_PY` with a changed line inside `g` only (line 7).
const APP_PY_G_CHANGED: &str =
    "def f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    return 1\n";

/// The findings of `code` in a lint JSON document.
fn findings_of<'a>(report: &'a serde_json::Value, code: &str) -> Vec<&'a serde_json::Value> {
    report["findings"]
        .as_array()
        .expect("`findings` is a list")
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

#[test]
fn a_change_inside_an_anchored_unit_is_a_hit_and_one_outside_is_not() {
    for (change, inside) in [(APP_PY_F_CHANGED, true), (APP_PY_G_CHANGED, false)] {
        let mut repo = keel_fixtures::FixtureRepo::new().expect("a fixture repository");
        repo.write("app.py", APP_PY)
            .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
            .expect("write the first version");
        repo.commit("Add app and its spec").expect("commit");
        repo.write("app.py", change).expect("write the change");
        let changed = repo.commit("Change app").expect("commit");

        let run = lint(repo.path(), &["--format", "json"]);
        run.assert_no_panic();
        let report = run.json();
        let hits = findings_of(&report, "anchor-hit");
        if inside {
            assert_eq!(run.code, 1, "a hit blocks:\n{}", run.render(None));
            assert_eq!(hits.len(), 1, "one anchor-hit expected:\n{}", run.stdout);
            let hit = hits[0];
            assert_eq!(hit["node"], "app");
            assert_eq!(hit["severity"], "error");
            assert_eq!(hit["path"], "app.py");
            assert_eq!(hit["selectors"], serde_json::json!(["f"]));
            assert_eq!(hit["hits"][0]["commit"], changed.as_str());
            assert_eq!(hit["hits"][0]["selectors"], serde_json::json!(["f"]));
            assert_eq!(hit["hits"][0]["side"], "both");
        } else {
            assert_eq!(run.code, 0, "a miss does not block:\n{}", run.render(None));
            assert!(hits.is_empty(), "no anchor-hit expected:\n{}", run.stdout);
            // keel did see the commit: it reports the change outside `f` as advisory.
            let misses = findings_of(&report, "scoped-code-miss");
            assert_eq!(
                misses.len(),
                1,
                "one scoped-code-miss expected:\n{}",
                run.stdout
            );
            assert_eq!(misses[0]["hits"][0]["commit"], changed.as_str());
        }
    }
}
