//! `keel impact` and `keel callgraph` end to end: the refusal contract for options and
//! patches (KEEL-G109 / a hunk that does not apply: exit 2, nothing on stdout, nothing
//! written), a report whose `used_bytes` is its own length, the text report for people,
//! and the options as `--help`, completions and both spellings (`--opt V`, `--opt=V`) know
//! them.

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
        &["impact", "change.diff", "--rev=HEAD", "--rev", "HEAD"],
        &["impact", "change.diff", "--rev"],
        &["impact", "change.diff", "--rev="],
        &["impact", "change.diff", "--repo"],
        &["impact", "change.diff", "--format"],
        &["impact", "change.diff", "--format=text", "--format", "json"],
        &["impact", "change.diff", "--max-nodes=01"],
        &["impact", "change.diff", "--colour", "1"],
        &["impact", "--colour", "1", "change.diff"],
        &["impact", "-x", "change.diff"],
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

/// A folder beside the repository holding `secret.txt` (`old`), and its name.
fn sibling_with_secret() -> (tempfile::TempDir, String) {
    let sibling = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(sibling.path().join("secret.txt"), "old\n").expect("write the secret");
    let name = sibling
        .path()
        .file_name()
        .and_then(|name| name.to_str())
        .expect("a UTF-8 folder name")
        .to_owned();
    (sibling, name)
}

#[test]
fn a_patch_path_that_leaves_the_repository_is_refused_whatever_the_file_outside_holds() {
    let (sibling, name) = sibling_with_secret();
    let repo = repo_with(&[]);
    assert_eq!(
        repo.path().parent(),
        sibling.path().parent(),
        "both temporary folders share a parent, so `../` reaches the secret"
    );
    for (guess, path) in [
        ("old", format!("../{name}/secret.txt")),
        ("wrong", format!("../{name}/secret.txt")),
        ("old", format!("{}/secret.txt", sibling.path().display())),
        ("old", ".git/config".to_owned()),
    ] {
        let patch = format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{guess}\n+new\n");
        repo.write("change.diff", &patch).expect("write the patch");
        let refused = run(repo.path(), &["impact", "change.diff"]);
        assert_eq!(refused.code, 2, "{path}: {}", refused.render(None));
        assert!(refused.stdout.is_empty());
        assert!(
            refused.stderr.contains("leaves the repository")
                && refused.stderr.contains("change.diff:1:"),
            "the same refusal whatever the file holds: {}",
            refused.stderr
        );
    }
}

#[test]
fn a_patch_path_beyond_a_symbolic_link_is_refused() {
    let (sibling, _name) = sibling_with_secret();
    let repo = repo_with(&[]);
    std::os::unix::fs::symlink(sibling.path(), repo.path().join("docs")).expect("a link");
    let patch = "--- a/docs/secret.txt\n+++ b/docs/secret.txt\n@@ -1 +1 @@\n-old\n+new\n";
    repo.write("change.diff", patch).expect("write the patch");
    let refused = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(refused.code, 2, "{}", refused.render(None));
    assert!(refused.stdout.is_empty());
    assert!(
        refused.stderr.contains("beyond a symbolic link (`docs`)"),
        "{}",
        refused.stderr
    );
}

/// `c.run` calls `f` on a parameter keel cannot type: an unresolved site named like `a.f`.
const C_PY: &str = "def run(obj):\n    return obj.f()\n";

/// `a.py`, `b.py` and `c.py` with `PATCH_A_F` as `change.diff`.
fn closure_repo() -> keel_fixtures::FixtureRepo {
    repo_with(&[
        ("a.py", A_PY.as_bytes()),
        ("b.py", B_PY.as_bytes()),
        ("c.py", C_PY.as_bytes()),
        ("change.diff", PATCH_A_F.as_bytes()),
    ])
}

/// The lines of `text` from the first one starting with `heading` up to the next blank
/// line (empty when no line starts so).
fn section<'t>(text: &'t str, heading: &str) -> Vec<&'t str> {
    text.lines()
        .skip_while(|line| !line.starts_with(heading))
        .take_while(|line| !line.is_empty())
        .collect()
}

/// Where `line` first stands in `text` (fails the test when it is missing).
fn position(text: &str, line: &str) -> usize {
    text.find(line)
        .unwrap_or_else(|| panic!("no {line:?} in:\n{text}"))
}

fn assert_fits_80_columns(text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "wider than 80: {line:?}\n{text}"
        );
    }
}

#[test]
fn the_text_report_lists_changes_callers_by_depth_unresolved_sites_and_what_is_left_out() {
    let repo = closure_repo();
    let args = ["impact", "change.diff", "--format", "text", "--depth", "2"];
    let run = run(repo.path(), &args);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    let text = run.stdout.as_str();
    // Read off the fixture's source: in a.py, f is lines 1-2 and g lines 5-6, calling f
    // on line 6; in b.py, h is lines 4-5, calling g on line 5, and the top-level code
    // (lines 1-8) calls h on line 8; c.py's run calls obj.f on line 2, which nothing
    // resolves and which is named like f.
    assert_eq!(
        text.lines().next(),
        Some("keel impact: 1 callable changed, 2 callers shown, 1 unresolved call site")
    );
    assert_eq!(
        section(text, "Changed"),
        ["Changed (1)", "  a.py:1-2  f  (function, modified)"]
    );
    assert_eq!(
        section(text, "Callers at depth 1"),
        [
            "Callers at depth 1 (1)",
            "  a.py:5-6  g  (function)",
            "      calls f on line 6",
        ]
    );
    assert_eq!(
        section(text, "Callers at depth 2"),
        [
            "Callers at depth 2 (1)",
            "  b.py:4-5  h  (function)",
            "      calls a.py#g on line 5",
        ]
    );
    let unresolved = section(text, "Unresolved call sites");
    assert!(
        unresolved[0].starts_with("Unresolved call sites (1): "),
        "{text}"
    );
    assert_eq!(
        unresolved.last(),
        Some(&"  c.py:2  obj.f  (in run)"),
        "{text}"
    );
    assert_eq!(
        section(text, "Left out"),
        [
            "Left out: 1 known caller (limits reached: depth).",
            "Next, at depth 3:",
            "  b.py:1-8  <module>  (top-level code)",
            "To see them: run again with a --depth above 2.",
            "Limits: --depth 2, --max-nodes 256, --max-bytes 65536.",
        ]
    );
    let order = [
        "Changed (1)",
        "Callers at depth 1",
        "Callers at depth 2",
        "Unresolved call sites",
        "Left out",
    ];
    let at: Vec<usize> = order.iter().map(|line| position(text, line)).collect();
    assert!(at.windows(2).all(|pair| pair[0] < pair[1]), "{text}");
    assert_fits_80_columns(text);
    // The JSON of the same question tells the same counts.
    let json = crate::support::run(repo.path(), &["impact", "change.diff", "--depth", "2"]).json();
    assert_eq!(json["unresolved"]["count"], 1);
    assert_eq!(json["truncation"]["omitted_known_nodes"], 1);
    assert_eq!(json["frontier"][0]["id"], "b.py#<module>");
    crate::support::snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_impact_text_depth2", run.render(Some(repo.path())));
    });
}

#[test]
fn the_text_report_says_which_limit_cut_it_and_what_shows_the_rest() {
    let repo = closure_repo();
    let run = run(
        repo.path(),
        &[
            "impact",
            "change.diff",
            "--format=text",
            "--depth=3",
            "--max-nodes=2",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.render(None));
    // The closure is f (depth 0), g (1), h (2), b.py's top level (3): two nodes fit.
    assert_eq!(
        section(&run.stdout, "Left out"),
        [
            "Left out: 2 known callers (limits reached: max_nodes).",
            "Next, at depth 2:",
            "  b.py:4-5  h  (function)",
            "And 1 more known caller deeper.",
            "To see them: run again with a --max-nodes above 2.",
            "Limits: --depth 3, --max-nodes 2, --max-bytes 65536.",
        ],
        "{}",
        run.stdout
    );
    assert!(section(&run.stdout, "Callers at depth 2").is_empty());
    let complete = crate::support::run(
        repo.path(),
        &["impact", "change.diff", "--format", "text", "--depth", "3"],
    );
    assert_eq!(
        section(&complete.stdout, "Nothing left out"),
        ["Nothing left out (limits: --depth 3, --max-nodes 256, --max-bytes 65536)."],
        "{}",
        complete.stdout
    );
}

#[test]
fn a_removed_callable_and_the_calls_to_it_are_read_before_the_patch() {
    let remove_g = "--- a/a.py\n+++ b/a.py\n@@ -5,2 +4,0 @@\n-def g():\n-    return f()\n";
    let repo = repo_with(&[
        ("a.py", A_PY.as_bytes()),
        ("b.py", B_PY.as_bytes()),
        ("change.diff", remove_g.as_bytes()),
    ]);
    let run = run(repo.path(), &["impact", "change.diff", "--format", "text"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    // g was lines 5-6 of a.py; h called it on line 5 of b.py, and after the patch that
    // call names a g no file defines.
    assert_eq!(
        section(&run.stdout, "Changed"),
        [
            "Changed (1)",
            "  a.py:5-6  g  (function, removed; lines before the patch)",
        ]
    );
    assert_eq!(
        section(&run.stdout, "Callers at depth 1"),
        [
            "Callers at depth 1 (1)",
            "  b.py:4-5  h  (function)",
            "      called a.py#g on line 5 before the patch",
        ]
    );
    assert_eq!(
        section(&run.stdout, "Unresolved call sites").last(),
        Some(&"  b.py:5  g  (in h)"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_long_path_and_name_wrap_to_fit_80_columns() {
    let path = "src/a_package_with_a_long_name/and_a_subpackage/module_with_a_long_name.py";
    let source = "def compute_the_answer_with_a_long_name():\n    return 41\n";
    let patch =
        format!("--- a/{path}\n+++ b/{path}\n@@ -2 +2 @@\n-    return 41\n+    return 42\n");
    let repo = repo_with(&[(path, source.as_bytes()), ("change.diff", patch.as_bytes())]);
    let run = run(repo.path(), &["impact", "change.diff", "--format", "text"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_fits_80_columns(&run.stdout);
    assert_eq!(
        section(&run.stdout, "Changed"),
        [
            "Changed (1)".to_owned(),
            format!("  {path}:1-2"),
            "    compute_the_answer_with_a_long_name  (function, modified)".to_owned(),
        ]
    );
}

#[test]
fn the_json_report_is_the_default_and_unchanged_by_format_json() {
    let repo = closure_repo();
    let default = run(repo.path(), &["impact", "change.diff", "--depth", "2"]);
    let json = run(
        repo.path(),
        &["impact", "change.diff", "--depth", "2", "--format", "json"],
    );
    assert_eq!(default.code, 0, "{}", default.render(None));
    assert_eq!(json.stdout, default.stdout);
    assert_eq!(default.json()["schema"], "keel.semantic-impact.v1");
}

#[test]
fn every_option_is_read_alike_as_opt_value_and_opt_equals_value_before_or_after_patch() {
    let repo = closure_repo();
    for (flag, value) in [
        ("--rev", "HEAD"),
        ("--repo", "."),
        ("--format", "text"),
        ("--depth", "2"),
        ("--max-bytes", "4096"),
        ("--max-nodes", "3"),
    ] {
        let joined = format!("{flag}={value}");
        let spaced = run(repo.path(), &["impact", "change.diff", flag, value]);
        assert_eq!(spaced.code, 0, "{flag} {value}: {}", spaced.render(None));
        for args in [
            ["impact", "change.diff", joined.as_str()],
            ["impact", joined.as_str(), "change.diff"],
        ] {
            let other = run(repo.path(), &args);
            assert_eq!(other.code, 0, "{args:?}: {}", other.render(None));
            assert_eq!(other.stdout, spaced.stdout, "{args:?}");
        }
    }
    // Each took effect (equal outputs of an ignored option would prove nothing).
    let at_head = run(repo.path(), &["impact", "change.diff", "--rev=HEAD"]).json();
    assert!(
        at_head["base_revision"]
            .as_str()
            .is_some_and(|r| r.starts_with("git:")),
        "{at_head}"
    );
    let limited = run(
        repo.path(),
        &[
            "impact",
            "change.diff",
            "--depth=2",
            "--max-bytes=4096",
            "--max-nodes=3",
        ],
    )
    .json();
    assert_eq!(limited["query"]["depth"], 2);
    assert_eq!(limited["query"]["max_bytes"], 4096);
    assert_eq!(limited["query"]["max_nodes"], 3);
    let text = run(repo.path(), &["impact", "change.diff", "--format=text"]);
    assert!(text.stdout.starts_with("keel impact: "), "{}", text.stdout);
    let from_outside = tempfile::tempdir().expect("a temporary folder");
    let patch = repo.path().join("change.diff");
    let repo_arg = format!("--repo={}", repo.path().display());
    let elsewhere = run(
        from_outside.path(),
        &["impact", &patch.display().to_string(), &repo_arg],
    );
    assert_eq!(elsewhere.code, 0, "{}", elsewhere.render(None));
    // The global options are read after PATCH too.
    let after = run(
        repo.path(),
        &[
            "impact",
            "change.diff",
            "--color=never",
            "--error-format",
            "json",
        ],
    );
    assert_eq!(after.code, 0, "{}", after.render(None));
}

/// The options of `keel impact`, as its help and completions must name them.
const IMPACT_OPTIONS: [&str; 6] = [
    "--repo",
    "--rev",
    "--format",
    "--depth",
    "--max-bytes",
    "--max-nodes",
];

#[test]
fn help_names_every_option_with_its_doc_line() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let long = run(dir.path(), &["impact", "--help"]);
    assert_eq!(long.code, 0, "{}", long.render(None));
    let lines: Vec<&str> = long.stdout.lines().collect();
    for option in IMPACT_OPTIONS {
        let at = lines
            .iter()
            .position(|line| line.trim_start().starts_with(&format!("{option} <")))
            .unwrap_or_else(|| panic!("--help lacks {option}:\n{}", long.stdout));
        let doc = lines.get(at + 1).map_or("", |line| line.trim());
        assert!(
            !doc.is_empty(),
            "{option} has no doc line:\n{}",
            long.stdout
        );
    }
    assert!(long.stdout.contains("Usage: keel impact PATCH [OPTIONS]"));
    let short = run(dir.path(), &["impact", "-h"]);
    for option in IMPACT_OPTIONS {
        let line = short
            .stdout
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{option} <")))
            .unwrap_or_else(|| panic!("-h lacks {option}:\n{}", short.stdout));
        let doc = line.split_once('>').map_or("", |(_, doc)| doc.trim());
        assert!(!doc.is_empty(), "{option} has no doc:\n{}", short.stdout);
    }
}

#[test]
fn completions_know_impact_s_options() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let bash = run(dir.path(), &["completions", "bash"]);
    assert_eq!(bash.code, 0, "{}", bash.render(None));
    // The bash script lists each subcommand's words on the `opts=` line after its case.
    let opts = bash
        .stdout
        .lines()
        .skip_while(|line| line.trim() != "keel__subcmd__impact)")
        .find_map(|line| line.trim().strip_prefix("opts=\""))
        .unwrap_or_else(|| panic!("no impact case in:\n{}", bash.stdout));
    let words: Vec<&str> = opts.trim_end_matches('"').split_whitespace().collect();
    for option in IMPACT_OPTIONS {
        assert!(words.contains(&option), "bash lacks {option}: {opts}");
    }
    for shell in ["zsh", "fish"] {
        let script = run(dir.path(), &["completions", shell]).stdout;
        for option in IMPACT_OPTIONS {
            let name = option.trim_start_matches('-');
            assert!(script.contains(name), "{shell} lacks {option}");
        }
    }
}

/// The first bytes of a PNG: a binary file to git (it holds NUL bytes).
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";

/// `git diff` and `git diff --binary` of the working tree's changes in `repo`, then the
/// files `restore` names written back to their base bytes.
fn binary_and_plain_diffs(
    repo: &keel_fixtures::FixtureRepo,
    restore: &[(&str, &[u8])],
) -> [String; 2] {
    let plain = repo.git(&["diff"]).expect("git diff");
    let binary = repo.git(&["diff", "--binary"]).expect("git diff --binary");
    for (path, bytes) in restore {
        repo.write_bytes(path, bytes).expect("restore the base");
    }
    [plain, binary]
}

#[test]
fn a_binary_file_the_graph_does_not_read_is_one_operation_beside_the_hunks() {
    let repo = repo_with(&[("logo.png", PNG)]);
    let mut changed = PNG.to_vec();
    changed.extend_from_slice(b"\0\x7f");
    repo.write_bytes("logo.png", &changed)
        .and_then(|r| r.write("app.py", &APP_PY.replace("x + 1", "x + 2")))
        .expect("change both files");
    let patches =
        binary_and_plain_diffs(&repo, &[("logo.png", PNG), ("app.py", APP_PY.as_bytes())]);
    assert!(patches[0].contains("Binary files a/logo.png and b/logo.png differ\n"));
    assert!(patches[1].contains("GIT binary patch\n"));
    for patch in patches {
        repo.write("change.diff", &patch).expect("write the patch");
        let run = run(repo.path(), &["impact", "change.diff"]);
        run.assert_no_panic();
        assert_eq!(run.code, 0, "{patch}\n{}", run.render(None));
        let report = run.json();
        let operations: Vec<(&str, &str, u64)> = report["operations"]
            .as_array()
            .map(|ops| {
                ops.iter()
                    .map(|op| {
                        (
                            op["kind"].as_str().unwrap_or_default(),
                            op["path"].as_str().unwrap_or_default(),
                            op["old_start"].as_u64().unwrap_or(u64::MAX),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        // The PNG is one operation with no lines (all four numbers 0), and no change.
        assert_eq!(
            operations,
            [("modify", "app.py", 1), ("modify", "logo.png", 0)],
            "{}",
            run.stdout
        );
        assert_eq!(report["operations"][1]["new_lines"], 0);
        assert_eq!(report["changes"].as_array().map(Vec::len), Some(1));
        assert_eq!(report["changes"][0]["id"], "app.py#f");
        let text = crate::support::run(repo.path(), &["impact", "change.diff", "--format", "text"]);
        assert!(
            text.stdout.contains(
                "The patch (1 hunk in 2 files) applied in memory to the working tree.\nIt changes logo.png without lines (binary, or its mode only).\n"
            ),
            "{}",
            text.stdout
        );
    }
    // Its bytes cannot be checked against the base, but its being there can.
    repo.remove("logo.png").expect("remove the PNG");
    let missing = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(missing.code, 2, "{}", missing.render(None));
    assert!(missing.stdout.is_empty());
    assert!(
        missing
            .stderr
            .contains("the patch's file `logo.png` does not exist in the base"),
        "{}",
        missing.stderr
    );
}

#[test]
fn a_binary_change_to_a_source_file_is_refused_naming_it_and_git_diff_text_repairs_it() {
    let repo = repo_with(&[]);
    let with_nul = APP_PY.replace("x + 1", "x + ord('\0')");
    repo.write("app.py", &with_nul).expect("write a NUL byte");
    let patches = binary_and_plain_diffs(&repo, &[]);
    let text_patch = repo.git(&["diff", "--text"]).expect("git diff --text");
    repo.write("app.py", APP_PY).expect("restore the base");
    assert!(patches[0].contains("Binary files a/app.py and b/app.py differ\n"));
    assert!(patches[1].contains("GIT binary patch\n"));
    for (patch, line) in [(&patches[0], 3), (&patches[1], 3)] {
        repo.write("change.diff", patch).expect("write the patch");
        let refused = run(repo.path(), &["impact", "change.diff"]);
        refused.assert_no_panic();
        assert_eq!(refused.code, 2, "{patch}\n{}", refused.render(None));
        assert!(refused.stdout.is_empty());
        assert!(
            refused.stderr.contains(&format!(
                "change.diff:{line}: the patch gives `app.py` as binary"
            )) && refused
                .stderr
                .contains("repair: write the patch with `git diff --text`"),
            "{}",
            refused.stderr
        );
    }
    // The repair: git writes the same change as lines, and keel reads it.
    assert!(text_patch.contains("@@ "), "{text_patch}");
    repo.write("change.diff", &text_patch)
        .expect("write the patch");
    let repaired = run(repo.path(), &["impact", "change.diff"]);
    assert_eq!(repaired.code, 0, "{}", repaired.render(None));
    let changed: Vec<String> = repaired.json()["changes"]
        .as_array()
        .map(|changes| changes.iter().map(|c| c["id"].to_string()).collect())
        .unwrap_or_default();
    assert!(changed.contains(&"\"app.py#f\"".to_owned()), "{changed:?}");
}
