//! `keel impact` and `keel callgraph` end to end: the refusal contract for options and
//! patches (KEEL-G109 / a hunk that does not apply: exit 2, nothing on stdout, nothing
//! written), and a report whose `used_bytes` is its own length.

use crate::support::{APP_PY, listing, repo_with, run};

/// `f` of `APP_PY` returns something else: one hunk inside `f` (lines 1-3).
pub(crate) const PATCH_F: &str = "\
diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -2,2 +2,2 @@ def f(x):
     y = x + 1
-    return y
+    return y * 2
";

#[test]
fn a_report_names_the_changed_callable_and_states_its_own_length() {
    let repo = repo_with(&[("change.diff", PATCH_F.as_bytes())]);
    let run = run(repo.path(), &["impact", "change.diff"]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    assert_eq!(report["schema"], "keel.semantic-impact.v1");
    assert_eq!(report["changes"][0]["id"], "app.py#f");
    assert_eq!(report["changes"][0]["change"], "modified");
    assert_eq!(report["affected_functions"][0]["id"], "app.py#f");
    let document = run.stdout.strip_suffix('\n').unwrap_or(&run.stdout);
    assert_eq!(report["budget"]["used_bytes"], document.len());
    assert!(
        report["base_revision"]
            .as_str()
            .is_some_and(|r| r.starts_with("worktree:"))
    );
    // The same tree and patch give the same bytes.
    let again = crate::support::run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(again.stdout, run.stdout);
    // `--rev HEAD` names the commit.
    let at_head = crate::support::run(repo.path(), &["impact", "change.diff", "--rev", "HEAD"]);
    assert!(
        at_head.json()["base_revision"]
            .as_str()
            .is_some_and(|r| r.starts_with("git:"))
    );
}

#[test]
fn every_invalid_option_form_is_g109_with_nothing_on_stdout() {
    let repo = repo_with(&[("change.diff", PATCH_F.as_bytes())]);
    let before = listing(repo.path());
    for args in [
        &["impact", "change.diff", "--depth"][..],
        &["impact", "change.diff", "--depth", "01"],
        &["impact", "change.diff", "--depth", "-1"],
        &["impact", "change.diff", "--depth", "+1"],
        &["impact", "change.diff", "--depth", "1025"],
        &["impact", "change.diff", "--max-bytes", "1023"],
        &["impact", "change.diff", "--max-nodes", "0"],
        &["impact", "change.diff", "--depth", "1", "--depth", "2"],
        &["impact", "change.diff", "--rev", "HEAD", "--rev", "HEAD"],
        &["impact", "change.diff", "--colour", "1"],
        &["impact", "change.diff", "other.diff"],
        &["impact"],
    ] {
        let run = run(repo.path(), args);
        run.assert_no_panic();
        assert_eq!(run.code, 2, "{args:?}\n{}", run.render(None));
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(
            run.stderr.starts_with("error: KEEL-G109: "),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(listing(repo.path()), before, "a refused run wrote nothing");
}

#[test]
fn a_patch_that_does_not_apply_is_refused_naming_file_and_hunk() {
    let stale = PATCH_F.replace("     y = x + 1", "     y = x + 5");
    let repo = repo_with(&[("change.diff", stale.as_bytes())]);
    let run = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .contains("change.diff:4: hunk 1 of app.py does not apply"),
        "{}",
        run.stderr
    );
    assert!(APP_PY.contains("y = x + 1"));
}

#[test]
fn a_report_that_cannot_fit_is_g109_and_no_report() {
    // Twenty functions, each changed: twenty operations and changes are mandatory.
    let mut module = String::new();
    let mut patch = String::from("--- a/many.py\n+++ b/many.py\n");
    for i in 0..20 {
        module.push_str(&format!("def f{i}():\n    return {i}\n"));
        let line = 2 * i + 2;
        patch.push_str(&format!(
            "@@ -{line} +{line} @@\n-    return {i}\n+    return {i} + 1\n"
        ));
    }
    let repo = repo_with(&[
        ("many.py", module.as_bytes()),
        ("change.diff", patch.as_bytes()),
    ]);
    let fits = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(fits.code, 0, "{}", fits.render(None));
    assert_eq!(fits.json()["changes"].as_array().map(Vec::len), Some(20));
    let run = run(
        repo.path(),
        &["impact", "change.diff", "--max-bytes", "1024"],
    );
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("KEEL-G109"), "{}", run.stderr);
}

#[test]
fn callgraph_lists_the_nodes_of_the_tree() {
    let repo = repo_with(&[]);
    let run = run(repo.path(), &["callgraph", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    let graph = run.json();
    assert_eq!(graph["schema"], "keel.callgraph.v1");
    let ids: Vec<&str> = graph["nodes"]
        .as_array()
        .map(|nodes| nodes.iter().filter_map(|n| n["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids, ["app.py#<module>", "app.py#f", "app.py#g"]);
}

#[test]
fn impact_defaults_come_from_keel_toml_and_flags_override_them() {
    let repo = repo_with(&[
        ("change.diff", PATCH_F.as_bytes()),
        ("keel.toml", b"[impact]\ndepth = 0\nmax_nodes = 7\n"),
    ]);
    let from_file = run(repo.path(), &["impact", "change.diff"]).json();
    assert_eq!(from_file["query"]["depth"], 0);
    assert_eq!(from_file["query"]["max_nodes"], 7);
    let flagged = run(repo.path(), &["impact", "change.diff", "--depth", "3"]).json();
    assert_eq!(flagged["query"]["depth"], 3);
    assert_eq!(flagged["query"]["max_nodes"], 7);
    repo.write("keel.toml", "[impact]\ndepth = 5000\n")
        .expect("write keel.toml");
    let refused = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(refused.code, 2, "{}", refused.render(None));
    assert!(refused.stdout.is_empty());
    assert!(
        refused
            .stderr
            .contains("keel.toml:2: KEEL-G109: [impact] depth = 5000 is outside 0..=1024"),
        "{}",
        refused.stderr
    );
}

#[test]
fn a_source_changed_between_read_and_recheck_is_i207_and_no_report() {
    let repo = repo_with(&[("change.diff", PATCH_F.as_bytes())]);
    let touched = repo.path().join("app.py");
    let output = crate::support::keel(repo.path())
        .args(["impact", "change.diff"])
        .env("KEEL_TEST_TOUCH_BEFORE_RECHECK", &touched)
        .output()
        .expect("the keel binary runs");
    let touched_run = crate::support::Run::from(output);
    assert_eq!(touched_run.code, 1, "{}", touched_run.render(None));
    assert!(touched_run.stdout.is_empty(), "{}", touched_run.stdout);
    assert!(
        touched_run.stderr.contains("KEEL-I207"),
        "{}",
        touched_run.stderr
    );
    // The control: without an edit in between, the same run (on the edited tree) reports.
    let quiet = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(quiet.code, 0, "{}", quiet.render(None));
}

/// `a.f` ← `a.g` ← `b.h` (through `from a import g`), and `b.<module>` calls `h`.
const A_PY: &str = "def f():\n    return 1\n\n\ndef g():\n    return f()\n";
const B_PY: &str = "from a import g\n\n\ndef h():\n    return g()\n\n\nh()\n";
const PATCH_A_F: &str = "\
--- a/a.py
+++ b/a.py
@@ -2 +2 @@ def f():
-    return 1
+    return 2
";

#[test]
fn a_known_transitive_caller_appears_at_its_depth() {
    let repo = repo_with(&[
        ("a.py", A_PY.as_bytes()),
        ("b.py", B_PY.as_bytes()),
        ("change.diff", PATCH_A_F.as_bytes()),
    ]);
    let run = run(repo.path(), &["impact", "change.diff", "--depth", "3"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    let affected: Vec<(String, u64)> = report["affected_functions"]
        .as_array()
        .map(|nodes| {
            nodes
                .iter()
                .map(|n| {
                    (
                        n["id"].as_str().unwrap_or_default().to_owned(),
                        n["depth"].as_u64().unwrap_or(u64::MAX),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let expected = [
        ("a.py#f", 0),
        ("a.py#g", 1),
        ("b.py#h", 2),
        ("b.py#<module>", 3),
    ];
    let expected: Vec<(String, u64)> = expected
        .iter()
        .map(|(id, depth)| ((*id).to_owned(), *depth))
        .collect();
    assert_eq!(affected, expected, "{}", run.stdout);
    let depth_one = crate::support::run(repo.path(), &["impact", "change.diff"]).json();
    assert_eq!(depth_one["frontier"][0]["id"], "b.py#h");
    assert_eq!(depth_one["truncation"]["deferred_known_nodes"], 1);
    crate::support::snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_impact_python_depth3", run.render(Some(repo.path())));
    });
    let graph = crate::support::run(repo.path(), &["callgraph", "--format", "json"]);
    crate::support::snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_callgraph_python_json", graph.render(Some(repo.path())));
    });
    let text = crate::support::run(repo.path(), &["callgraph"]);
    assert!(
        text.stdout.contains("b.py#h -> a.py#g (line 5)"),
        "{}",
        text.stdout
    );
    crate::support::snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_callgraph_python_text", text.render(Some(repo.path())));
    });
}

/// `lib.ts#Store.save` ← `lib.ts#Store.saveAll` (`this`) ← `app.ts#main` (through an ES
/// import and `new`).
const LIB_TS: &str = "\
export class Store {
  save(x: number): number {
    return x;
  }
  saveAll(xs: number[]): void {
    for (const x of xs) this.save(x);
  }
}
";
const APP_TS: &str = "\
import { Store } from \"./lib\";

export function main(): void {
  const store = new Store();
  store.saveAll([1, 2]);
}
";
const PATCH_SAVE: &str = "\
--- a/lib.ts
+++ b/lib.ts
@@ -3 +3 @@ export class Store {
-    return x;
+    return x + 1;
";

#[test]
fn typescript_callers_through_this_and_an_import_appear_at_their_depths() {
    let repo = repo_with(&[
        ("lib.ts", LIB_TS.as_bytes()),
        ("app.ts", APP_TS.as_bytes()),
        ("change.diff", PATCH_SAVE.as_bytes()),
    ]);
    let run = run(repo.path(), &["impact", "change.diff", "--depth", "2"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    let affected: Vec<(&str, u64)> = report["affected_functions"]
        .as_array()
        .map(|nodes| {
            nodes
                .iter()
                .map(|n| {
                    (
                        n["id"].as_str().unwrap_or_default(),
                        n["depth"].as_u64().unwrap_or(u64::MAX),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        affected,
        [
            ("lib.ts#Store.save", 0),
            ("lib.ts#Store.saveAll", 1),
            ("app.ts#main", 2)
        ],
        "{}",
        run.stdout
    );
    crate::support::snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "cli_impact_typescript_depth2",
            run.render(Some(repo.path()))
        );
    });
    let graph = crate::support::run(repo.path(), &["callgraph", "--format", "json"]);
    crate::support::snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "cli_callgraph_typescript_json",
            graph.render(Some(repo.path()))
        );
    });
}

#[test]
fn hunks_on_files_the_graph_does_not_read_must_apply_too() {
    let notes = "--- a/NOTES.md\n+++ b/NOTES.md\n@@ -1 +1 @@\n-old\n+new\n";
    let both = format!("{PATCH_F}{notes}");
    let repo = repo_with(&[("NOTES.md", b"old\n"), ("change.diff", both.as_bytes())]);
    let fits = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(fits.code, 0, "{}", fits.render(None));
    assert_eq!(fits.json()["operations"].as_array().map(Vec::len), Some(2));
    repo.write("NOTES.md", "something else\n")
        .expect("write NOTES.md");
    let stale = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(stale.code, 2, "{}", stale.render(None));
    assert!(stale.stdout.is_empty());
    assert!(
        stale.stderr.contains("hunk 1 of NOTES.md does not apply"),
        "{}",
        stale.stderr
    );
}
