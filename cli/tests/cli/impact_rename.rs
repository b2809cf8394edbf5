//! `keel impact` on a renamed module (issue #38, item 7): a callable's id names its file,
//! so every callable of the old path is changed (removed) and every one of the new path
//! added, and the callers that import the old module are reached — whether git wrote the
//! rename with hunks or without. The patches are written by `git diff -M` itself.

use keel_fixtures::FixtureRepo;

/// `a.f`, and `c.g` calling it through `from a import f`.
const A_PY: &str = "def f():\n    return 1\n";
const C_PY: &str = "from a import f\n\n\ndef g():\n    return f()\n";

/// A repository whose one commit holds `a.py` (`a_py`) and `c.py`.
fn importer_repo(a_py: &str) -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("a.py", a_py)
        .and_then(|r| r.write("c.py", C_PY))
        .expect("write the sources");
    repo.commit("Add a and its importer").expect("commit");
    repo
}

/// Each operation as (kind, path, old path, old start, old lines, new start, new lines).
fn operations(report: &serde_json::Value) -> Vec<String> {
    report["operations"]
        .as_array()
        .map(|ops| {
            ops.iter()
                .map(|op| {
                    format!(
                        "{} {} {} {},{} {},{}",
                        op["kind"].as_str().unwrap_or_default(),
                        op["old_path"].as_str().unwrap_or("-"),
                        op["path"].as_str().unwrap_or_default(),
                        op["old_start"],
                        op["old_lines"],
                        op["new_start"],
                        op["new_lines"],
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Each entry of `key` as `id change-or-depth [operation indices]`.
fn entries(report: &serde_json::Value, key: &str, field: &str) -> Vec<String> {
    report[key]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    format!(
                        "{} {} {}",
                        item["id"].as_str().unwrap_or_default(),
                        item[field],
                        item["operation_indices"]
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_pure_module_rename_changes_its_callables_and_reaches_the_importers_of_the_old_name() {
    let repo = importer_repo(A_PY);
    repo.git(&["mv", "a.py", "b.py"]).expect("git mv");
    let patch = repo.git(&["diff", "-M", "--cached"]).expect("git diff -M");
    assert!(
        patch.contains("rename from a.py\nrename to b.py\n") && !patch.contains("@@"),
        "git writes a pure rename without hunks:\n{patch}"
    );
    // Back to the base: the patch is previewed on the working tree.
    repo.git(&["mv", "b.py", "a.py"]).expect("git mv back");
    repo.write("rename.diff", &patch).expect("write the patch");

    let run = crate::support::run(repo.path(), &["impact", "rename.diff"]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    assert_eq!(operations(&report), ["rename a.py b.py 0,0 0,0"]);
    assert_eq!(
        entries(&report, "changes", "change"),
        [
            "a.py#<module> \"removed\" [0]",
            "a.py#f \"removed\" [0]",
            "b.py#<module> \"added\" [0]",
            "b.py#f \"added\" [0]",
        ],
        "{}",
        run.stdout
    );
    assert_eq!(
        entries(&report, "affected_functions", "depth"),
        [
            "a.py#<module> 0 [0]",
            "a.py#f 0 [0]",
            "b.py#<module> 0 [0]",
            "b.py#f 0 [0]",
            "c.py#g 1 [0]",
        ],
        "{}",
        run.stdout
    );

    let text = crate::support::run(repo.path(), &["impact", "rename.diff", "--format", "text"]);
    assert_eq!(text.code, 0, "{}", text.render(None));
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "keel impact: 4 callables changed, 1 caller shown, 0 unresolved call sites",
            "The patch (0 hunks in 1 file) applied in memory to the working tree.",
            "It renames a.py to b.py: each callable of a.py is removed, each of b.py added.",
            "Lines are those of the patched files unless marked before the patch.",
        ],
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("\n  a.py:1-2  f  (function, removed; lines before the patch)\n")
            && text.stdout.contains("\n  b.py:1-2  f  (function, added)\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains(
            "Callers at depth 1 (1)\n  c.py:4-5  g  (function)\n      called a.py#f on line 5 before the patch\n"
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn a_rename_with_edits_seeds_its_hunks_as_before_and_the_rename_as_its_own_operation() {
    // Long enough that one changed line keeps it a rename for `git diff -M`.
    let a_py = "def f():\n    return 1\n\n\ndef h():\n    x = 1\n    y = 2\n    return x + y\n";
    let mut repo = importer_repo(a_py);
    repo.git(&["mv", "a.py", "b.py"]).expect("git mv");
    repo.write("b.py", &a_py.replace("return 1", "return 2"))
        .expect("edit b.py");
    repo.commit("Rename a to b and change f").expect("commit");
    let patch = repo
        .git(&["diff", "-M", "HEAD~1", "HEAD"])
        .expect("git diff -M");
    assert!(
        patch.contains("rename from a.py\nrename to b.py\n") && patch.contains("@@ -1,5 +1,5 @@"),
        "{patch}"
    );
    repo.write("rename.diff", &patch).expect("write the patch");

    let run = crate::support::run(repo.path(), &["impact", "rename.diff", "--rev", "HEAD~1"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    assert_eq!(
        operations(&report),
        ["rename a.py b.py 0,0 0,0", "rename a.py b.py 1,5 1,5"]
    );
    // The hunk touches f on both sides (operation 1), as it did before; the rename
    // (operation 0) changes every callable of both paths.
    assert_eq!(
        entries(&report, "changes", "change"),
        [
            "a.py#<module> \"removed\" [0]",
            "a.py#f \"removed\" [0,1]",
            "a.py#h \"removed\" [0]",
            "b.py#<module> \"added\" [0]",
            "b.py#f \"added\" [0,1]",
            "b.py#h \"added\" [0]",
        ],
        "{}",
        run.stdout
    );
    assert!(
        entries(&report, "affected_functions", "depth").contains(&"c.py#g 1 [0,1]".to_owned()),
        "{}",
        run.stdout
    );
}

#[test]
fn a_copy_adds_the_new_module_and_leaves_the_file_copied_as_it_was() {
    // Long enough for git to see the copy of a file with one line changed.
    let a_py = format!("{A_PY}\n\ndef h():\n    return 3\n\n\ndef k():\n    return 4\n");
    let repo = importer_repo(&a_py);
    repo.write("b.py", &a_py.replace("return 1", "return 2"))
        .expect("write the copy");
    repo.git(&["add", "b.py"]).expect("git add");
    let patch = repo
        .git(&["diff", "--cached", "-C", "--find-copies-harder"])
        .expect("git diff -C");
    assert!(
        patch.contains("copy from a.py\ncopy to b.py\n") && patch.contains("@@"),
        "git writes a copy with a hunk:\n{patch}"
    );
    repo.git(&["rm", "-q", "--cached", "b.py"])
        .expect("unstage");
    std::fs::remove_file(repo.path().join("b.py")).expect("back to the base");
    repo.write("copy.diff", &patch).expect("write the patch");

    let run = crate::support::run(repo.path(), &["impact", "copy.diff"]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    assert_eq!(
        entries(&report, "changes", "change"),
        [
            "b.py#<module> \"added\" [0]",
            "b.py#f \"added\" [0,1]",
            "b.py#h \"added\" [0]",
            "b.py#k \"added\" [0]",
        ],
        "the file copied is untouched: {}",
        run.stdout
    );
    assert_eq!(
        entries(&report, "affected_functions", "depth"),
        [
            "b.py#<module> 0 [0]",
            "b.py#f 0 [0,1]",
            "b.py#h 0 [0]",
            "b.py#k 0 [0]",
        ],
        "no caller imports the copy: {}",
        run.stdout
    );

    // A copy onto a file the base already holds does not apply.
    repo.write("b.py", "x = 1\n").expect("write b.py");
    let refused = crate::support::run(repo.path(), &["impact", "copy.diff"]);
    assert_eq!(refused.code, 2, "{}", refused.render(None));
    assert!(
        refused.stderr.contains("`b.py` already exists in the base"),
        "{}",
        refused.stderr
    );
}
