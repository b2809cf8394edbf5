//! The first hour with keel: `keel init` (an example node and a `keel.toml` of every
//! setting at its default, refused over existing files), `keel units FILE` (a file's units
//! and their selectors, from a subfolder, at a revision, as text and `keel.units.v1`),
//! the no-spec text of `keel lint`, and `keel demo --keep DIR`.
//!
//! Does not own: extraction and the verdicts (`keel-queries`' tests), the settings reader
//! (`keel-engine`'s), or the hook's behaviour once installed (`hook`).

use super::support::{APP_PY, lint, listing, repo_with, run};
use keel_engine::settings::Settings;
use keel_fixtures::{FixtureRepo, pinned_git};
use std::collections::BTreeSet;

/// A Python file: `Cart` on lines 4-6 (its method `add` on 5-6), `total` on 9-10.
const CART_PY: &str = "import os\n\n\nclass Cart:\n    def add(self, item):\n        return item\n\n\ndef total(cart):\n    return 0\n";

/// `CART_PY` with a method `remove` added (lines 8-9) and `total` renamed `subtotal`
/// (lines 12-13).
const CART_PY_V2: &str = "import os\n\n\nclass Cart:\n    def add(self, item):\n        return item\n\n    def remove(self, item):\n        return None\n\n\ndef subtotal(cart):\n    return 0\n";

/// A TypeScript file: class `Client` (1-8), its method `fetch` (2-7) holding the function
/// `inner` (3-5), and the function `make` (10-12).
const CLIENT_TS: &str = "export class Client {\n  fetch(id: string) {\n    function inner() {\n      return id;\n    }\n    return inner();\n  }\n}\n\nexport function make(): Client {\n  return new Client();\n}\n";

/// A repository whose one commit holds `src/shop/cart.py` and `web/client.ts`.
fn shop_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("src/shop/cart.py", CART_PY)
        .and_then(|r| r.write("web/client.ts", CLIENT_TS))
        .expect("write the sources");
    repo.commit("Add the shop").expect("commit");
    repo
}

fn read(repo: &FixtureRepo, path: &str) -> String {
    std::fs::read_to_string(repo.path().join(path)).expect("a file keel init wrote")
}

/// stderr is one `error:` line holding a repair, and stdout is empty.
fn assert_one_error_line(run: &super::support::Run) {
    run.assert_no_panic();
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert!(run.stdout.is_empty(), "{}", run.render(None));
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.render(None));
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("; repair: "),
        "{}",
        run.render(None)
    );
}

#[test]
fn init_writes_an_example_node_that_lint_reads_cleanly() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("src/shop/cart.py", CART_PY).expect("write");
    repo.commit("Add the cart").expect("commit");
    // From a subfolder: the files go to the work tree's root, and the next steps name
    // paths as typed from where the user is.
    let init = run(&repo.path().join("src"), &["init"]);
    init.assert_no_panic();
    assert_eq!(init.code, 0, "{}", init.render(Some(repo.path())));
    assert!(
        init.stdout.starts_with(
            "wrote ../.spec/example/spec.md: an example spec node pinning src/shop/cart.py#Cart (class, lines 4-6)\n\
             wrote ../keel.toml: every setting keel reads, at its default\n"
        ),
        "{}",
        init.stdout
    );
    for step in [
        "keel units shop/cart.py",
        "git add ../.spec ../keel.toml",
        "keel lint",
    ] {
        assert!(init.stdout.contains(step), "{step}:\n{}", init.stdout);
    }
    let spec = read(&repo, ".spec/example/spec.md");
    assert!(
        spec.contains("\ncode:\n  - src/shop/cart.py#Cart\n"),
        "{spec}"
    );
    assert!(spec.starts_with("---\n"), "{spec}");

    repo.commit("Add keel").expect("commit");
    let report = lint(repo.path(), &["--format", "json"]);
    assert_eq!(report.code, 0, "{}", report.render(Some(repo.path())));
    let report = report.json();
    assert_eq!(report["findings"], serde_json::json!([]));
    assert_eq!(
        report["summary"],
        serde_json::json!({"nodes": 1, "anchors": 1, "errors": 0, "warnings": 0})
    );
    let text = lint(repo.path(), &[]);
    assert!(
        text.stdout.contains("\nclean: example\n"),
        "{}",
        text.stdout
    );
}

#[test]
fn init_without_a_source_unit_pins_keel_toml_and_lints_cleanly() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("README.md", "# Notes\n").expect("write");
    repo.commit("Add notes").expect("commit");
    let init = run(repo.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.render(Some(repo.path())));
    assert!(
        read(&repo, ".spec/example/spec.md").contains("\ncode:\n  - keel.toml\n"),
        "{}",
        init.stdout
    );
    assert!(init.stdout.contains("keel units FILE"), "{}", init.stdout);
    repo.commit("Add keel").expect("commit");
    let report = lint(repo.path(), &["--format", "json"]);
    assert_eq!(report.code, 0, "{}", report.render(Some(repo.path())));
    let report = report.json();
    assert_eq!(report["findings"], serde_json::json!([]));
    assert_eq!(report["summary"]["nodes"], 1);
}

#[test]
fn init_in_a_repository_without_commits_reads_the_working_tree() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY).expect("write");
    let init = run(repo.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.render(Some(repo.path())));
    assert!(
        read(&repo, ".spec/example/spec.md").contains("\ncode:\n  - app.py#f\n"),
        "{}",
        init.stdout
    );
    repo.commit("Add app and keel").expect("commit");
    let report = lint(repo.path(), &["--format", "json"]);
    assert_eq!(report.code, 0, "{}", report.render(Some(repo.path())));
    assert_eq!(report.json()["summary"]["anchors"], 1);
}

#[test]
fn init_refuses_existing_files_and_writes_nothing() {
    for existing in [
        &[(".spec/a/spec.md", "---\ncode: []\n---\n")][..],
        &[("keel.toml", "[lint]\n")][..],
        &[
            (".spec/a/spec.md", "---\ncode: []\n---\n"),
            ("keel.toml", "[lint]\n"),
        ][..],
        // Even a file named `.spec`.
        &[(".spec", "not a folder\n")][..],
    ] {
        let repo = shop_repo();
        for (path, text) in existing {
            repo.write(path, text).expect("write");
        }
        let before = listing(repo.path());
        for args in [&["init"][..], &["init", "--hook"][..]] {
            let refused = run(repo.path(), args);
            assert_one_error_line(&refused);
            assert!(
                refused.stderr.contains("already exist"),
                "{}",
                refused.stderr
            );
            assert_eq!(listing(repo.path()), before, "{args:?} over {existing:?}");
        }
    }
}

#[cfg(unix)]
#[test]
fn init_with_hook_installs_it_and_a_foreign_hook_leaves_nothing_written() {
    let repo = shop_repo();
    let init = run(repo.path(), &["init", "--hook"]);
    assert_eq!(init.code, 0, "{}", init.render(Some(repo.path())));
    let hook = repo.path().join(".git/hooks/reference-transaction");
    assert!(hook.is_file(), "{}", init.stdout);
    assert!(
        init.stdout.contains("installed ") && !init.stdout.contains("keel hook install"),
        "{}",
        init.stdout
    );

    let repo = shop_repo();
    let foreign = repo.path().join(".git/hooks/reference-transaction");
    std::fs::write(&foreign, "#!/bin/sh\nexit 0\n").expect("a foreign hook");
    let before = listing(repo.path());
    let refused = run(repo.path(), &["init", "--hook"]);
    assert_one_error_line(&refused);
    assert!(
        refused.stderr.contains("keel hook install --force"),
        "{}",
        refused.stderr
    );
    assert_eq!(listing(repo.path()), before);
    assert_eq!(
        std::fs::read_to_string(&foreign).expect("the hook stays"),
        "#!/bin/sh\nexit 0\n"
    );
}

/// The `keel.toml` keel init writes in a fresh repository.
fn written_settings() -> String {
    let repo = shop_repo();
    let init = run(repo.path(), &["init"]);
    assert_eq!(init.code, 0, "{}", init.render(Some(repo.path())));
    read(&repo, "keel.toml")
}

#[test]
fn init_keel_toml_reads_as_the_defaults() {
    let text = written_settings();
    let settings = Settings::parse(&text).unwrap_or_else(|err| panic!("{err}\n{text}"));
    assert_eq!(settings, Settings::default());
    // The values are written, not left to the reader's defaults.
    for line in [
        "scoped_code_miss = \"warn\"",
        "cosmetic = \"block\"",
        "docstrings = \"code\"",
        "max_file_bytes = 2097152",
        "days = 30",
        "depth = 1",
        "max_bytes = 65536",
        "max_nodes = 256",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}:\n{text}");
    }
}

/// A key name keel's reader cannot know.
const PROBE: &str = "keel_probe_key";

/// How deep the schema nests at most (a bound on the walk, should the probe misread a
/// table).
const MOST_NESTED: usize = 6;

/// How the settings schema reads the table at `table` (dotted), asked of keel's own reader
/// with a key it cannot know: a struct names the keys it knows in its refusal ("unknown
/// field `…`, expected one of `a`, `b`"); a map takes the key and refuses only the value
/// (or takes both); a leaf refuses the table itself.
enum Shape {
    Struct(Vec<String>),
    Map,
    Leaf,
}

fn shape(table: &str) -> Shape {
    let text = if table.is_empty() {
        format!("{PROBE} = 1\n")
    } else {
        format!("[{table}]\n{PROBE} = 1\n")
    };
    let Err(err) = Settings::parse(&text) else {
        return Shape::Map;
    };
    let message = err.message;
    if let Some(rest) = message.split(&format!("unknown field `{PROBE}`")).nth(1) {
        let keys = rest
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect();
        return Shape::Struct(keys);
    }
    // A map takes the probe as a key and refuses only its value, `1`; anything else
    // refused the table itself (a value, a list, an enum's variants).
    if message.contains("invalid type: integer `1`") {
        Shape::Map
    } else {
        Shape::Leaf
    }
}

/// Every key path of the schema under `table`: `lint.depth`-like paths, `*` for a map's
/// entry. A struct met again inside itself (`above_200k`) is not walked twice.
fn schema_keys(table: &str, seen: &mut Vec<Vec<String>>, out: &mut Vec<String>) {
    assert!(
        table.matches('.').count() < MOST_NESTED,
        "the probe walked too deep: {table}"
    );
    match shape(table) {
        Shape::Leaf => out.push(table.to_owned()),
        Shape::Map => {
            out.push(table.to_owned());
            schema_keys(&format!("{table}.keel_probe_entry"), seen, out);
        }
        Shape::Struct(keys) => {
            if !table.is_empty() {
                out.push(table.to_owned());
            }
            if seen.contains(&keys) {
                return;
            }
            seen.push(keys.clone());
            for key in keys {
                let path = if table.is_empty() {
                    key
                } else {
                    format!("{table}.{key}")
                };
                schema_keys(&path, seen, out);
            }
        }
    }
}

#[test]
fn init_keel_toml_names_every_key_the_settings_schema_knows() {
    let mut keys = Vec::new();
    schema_keys("", &mut Vec::new(), &mut keys);
    let keys: Vec<String> = keys
        .into_iter()
        .map(|key| key.replace("keel_probe_entry", "*"))
        .collect();
    // The probe finds the schema (a positive control, written from settings.rs).
    for known in [
        "lint",
        "lint.scoped_code_miss",
        "lint.max_file_bytes",
        "sessions.days",
        "trailers",
        "trailers.*",
        "impact.max_nodes",
        "prices.*.input",
        "prices.*.above_200k",
        "prices.*.fast_multiplier",
    ] {
        assert!(keys.iter().any(|k| k == known), "{known} in {keys:?}");
    }

    let text = written_settings();
    // Each uncommented line's section and key; keys of the commented examples (a map's
    // entries) anywhere.
    let mut section = String::new();
    let mut written = BTreeSet::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
            written.insert(section.clone());
        } else if let Some((key, _)) = line.split_once(" = ")
            && !line.starts_with('#')
        {
            written.insert(format!("{section}.{key}"));
        }
    }
    let missing: Vec<&String> = keys
        .iter()
        .filter(|key| {
            let parts: Vec<&str> = key.split('.').collect();
            match parts.iter().position(|part| *part == "*") {
                // A map's entries are examples: its table is written, and each key of an
                // entry shows in the commented example.
                Some(1) if parts.len() == 2 => !written.contains(parts[0]),
                Some(_) => {
                    let name = parts.last().copied().unwrap_or_default();
                    !text.contains(&format!("{name} = "))
                }
                None => !written.contains(key.as_str()),
            }
        })
        .collect();
    assert!(
        missing.is_empty(),
        "keel init's keel.toml lacks {missing:?}; write them in cli/src/commands/init.rs:\n{text}"
    );
}

#[test]
fn units_lists_a_python_file_from_a_subfolder_as_text() {
    let repo = shop_repo();
    let units = run(&repo.path().join("src"), &["units", "shop/cart.py"]);
    units.assert_no_panic();
    assert_eq!(units.code, 0, "{}", units.render(Some(repo.path())));
    assert!(
        units.stdout.starts_with(
            "src/shop/cart.py in the working tree: 3 units\n\
             \x20 class     Cart      4-6   src/shop/cart.py#Cart\n\
             \x20 method    Cart.add  5-6   src/shop/cart.py#Cart.add\n\
             \x20 function  total     9-10  src/shop/cart.py#total\n\n"
        ),
        "{}",
        units.stdout
    );
    assert!(units.stdout.contains("`code:`"), "{}", units.stdout);
    assert!(units.stderr.is_empty(), "{}", units.stderr);
}

#[test]
fn units_lists_a_typescript_class_its_method_and_a_nested_function_as_json() {
    let repo = shop_repo();
    let units = run(
        &repo.path().join("web"),
        &["units", "./client.ts", "--format", "json"],
    );
    assert_eq!(units.code, 0, "{}", units.render(Some(repo.path())));
    let unit = |selector: &str, kind: &str, start: u32, end: u32| {
        serde_json::json!({
            "selector": format!("web/client.ts#{selector}"),
            "kind": kind,
            "name": selector,
            "start_line": start,
            "end_line": end,
        })
    };
    assert_eq!(
        units.json(),
        serde_json::json!({
            "schema": "keel.units.v1",
            "path": "web/client.ts",
            "units": [
                unit("Client", "class", 1, 8),
                unit("Client.fetch", "method", 2, 7),
                unit("Client.fetch.inner", "function", 3, 5),
                unit("make", "function", 10, 12),
            ],
        })
    );
    // Text names the same units, one-line ranges included.
    let text = run(repo.path(), &["units", "web/client.ts"]);
    assert!(
        text.stdout
            .contains("  function  Client.fetch.inner  3-5    web/client.ts#Client.fetch.inner\n"),
        "{}",
        text.stdout
    );
}

#[test]
fn units_at_a_revision_reads_the_commit_not_the_working_tree() {
    let mut repo = shop_repo();
    repo.write("src/shop/cart.py", CART_PY_V2).expect("write");
    repo.commit("Add remove, rename total").expect("commit");
    repo.remove("src/shop/cart.py").expect("remove");
    let names = |run: &super::support::Run| -> Vec<String> {
        assert_eq!(run.code, 0, "{}", run.render(None));
        run.json()["units"]
            .as_array()
            .expect("units")
            .iter()
            .map(|u| u["selector"].as_str().expect("a selector").to_owned())
            .collect()
    };
    let src = repo.path().join("src");
    let old = run(
        &src,
        &[
            "units",
            "shop/cart.py",
            "--rev",
            "HEAD~1",
            "--format",
            "json",
        ],
    );
    assert_eq!(
        names(&old),
        [
            "src/shop/cart.py#Cart",
            "src/shop/cart.py#Cart.add",
            "src/shop/cart.py#total"
        ]
    );
    let new = run(
        &src,
        &["units", "shop/cart.py", "--rev", "HEAD", "--format", "json"],
    );
    assert_eq!(
        names(&new),
        [
            "src/shop/cart.py#Cart",
            "src/shop/cart.py#Cart.add",
            "src/shop/cart.py#Cart.remove",
            "src/shop/cart.py#subtotal"
        ]
    );
    let text = run(&src, &["units", "shop/cart.py", "--rev", "HEAD~1"]);
    assert!(
        text.stdout.starts_with("src/shop/cart.py at HEAD~1 ("),
        "{}",
        text.stdout
    );
    // The working tree no longer has the file.
    let gone = run(&src, &["units", "shop/cart.py"]);
    assert_one_error_line(&gone);
    assert!(
        gone.stderr
            .starts_with("error: src/shop/cart.py: no such file in the working tree;"),
        "{}",
        gone.stderr
    );
}

#[test]
fn units_refuses_what_it_cannot_list_with_the_file_and_the_reason() {
    let repo = repo_with(&[("src/bad.py", b"def (:\n"), ("README.md", b"# Notes\n")]);
    let src = repo.path().join("src");
    for (args, start) in [
        (
            &["units", "bad.py"][..],
            "error: src/bad.py in the working tree: does not parse: line 1",
        ),
        (
            &["units", "../README.md"][..],
            "error: README.md in the working tree: keel has no extractor",
        ),
        (
            &["units", "missing.py"][..],
            "error: src/missing.py: no such file",
        ),
        (&["units", "."][..], "error: src: is a folder"),
        (
            &["units", "/keel-nowhere/app.py"][..],
            "error: /keel-nowhere/app.py: lies outside the repository",
        ),
        (
            &["units", "bad.py", "--rev", "nope"][..],
            "error: nope: names no commit",
        ),
    ] {
        let refused = run(&src, args);
        assert_one_error_line(&refused);
        assert!(
            refused.stderr.starts_with(start),
            "{args:?}: {}",
            refused.stderr
        );
    }
}

#[test]
fn units_of_a_file_that_parses_in_part_lists_what_stands_and_warns() {
    let repo = repo_with(&[("part.ts", b"function ok() {}\n\nconst x = ;\n")]);
    let units = run(repo.path(), &["units", "part.ts", "--format", "json"]);
    assert_eq!(units.code, 0, "{}", units.render(None));
    assert_eq!(
        units.json()["units"],
        serde_json::json!([{"selector": "part.ts#ok", "kind": "function", "name": "ok",
                            "start_line": 1, "end_line": 1}])
    );
    assert_eq!(
        units.stderr,
        "warning: part.ts parses only in part (lines 3 did not parse): the units that stand are listed; left out: x (lint reports their selectors as unparseable until the file parses)\n"
    );
}

#[test]
fn lint_without_spec_nodes_says_so_and_names_the_next_step() {
    let repo = repo_with(&[]);
    let text = lint(repo.path(), &[]);
    assert_eq!(text.code, 0, "{}", text.render(None));
    for part in [
        "no spec nodes under .spec/",
        "run `keel init`",
        "write .spec/<node>/spec.md",
        "`keel units FILE`",
    ] {
        assert!(text.stdout.contains(part), "{part}:\n{}", text.stdout);
    }
    let json = lint(repo.path(), &["--format", "json"]);
    assert_eq!(json.code, 0);
    assert!(!json.stdout.contains("keel init"), "{}", json.stdout);
    assert_eq!(json.json()["summary"]["nodes"], 0);

    // A repository with a node does not get the message.
    let with_node = repo_with(&[(".spec/app/spec.md", b"---\ncode:\n  - app.py#f\n---\n")]);
    let text = lint(with_node.path(), &[]);
    assert!(!text.stdout.contains("keel init"), "{}", text.stdout);
}

#[test]
fn demo_keep_leaves_a_repository_to_explore_and_refuses_a_non_empty_folder() {
    let temp = tempfile::tempdir().expect("a temporary folder");
    let demo = run(temp.path(), &["demo", "--keep", "kept"]);
    demo.assert_no_panic();
    assert_eq!(demo.code, 0, "{}", demo.render(Some(temp.path())));
    assert!(!demo.stdout.contains("cargo run"), "{}", demo.stdout);
    assert!(
        demo.stdout.contains("cd kept && keel lint"),
        "{}",
        demo.stdout
    );
    assert!(
        demo.stdout
            .starts_with("keel demo: built a five-commit repository in kept; linting HEAD\n"),
        "{}",
        demo.stdout
    );
    let kept = temp.path().join("kept");
    let count = pinned_git(&kept)
        .args(["rev-list", "--count", "HEAD"])
        .output()
        .expect("git runs");
    // Five commits and the sixth the demo adds.
    assert_eq!(String::from_utf8_lossy(&count.stdout).trim(), "6");
    let report = lint(&kept, &["--format", "json"]);
    report.assert_no_panic();
    // The demo's story: after the sixth commit, 3 errors in 4 nodes.
    assert_eq!(report.code, 1, "{}", report.render(Some(&kept)));
    let report = report.json();
    assert_eq!(report["summary"]["nodes"], 4);
    assert_eq!(report["summary"]["errors"], 3);

    let busy = temp.path().join("busy");
    std::fs::create_dir(&busy).expect("a folder");
    std::fs::write(busy.join("notes.txt"), "mine\n").expect("a file");
    let before = listing(temp.path());
    let refused = run(temp.path(), &["demo", "--keep", "busy"]);
    assert_one_error_line(&refused);
    assert!(refused.stderr.contains("not empty"), "{}", refused.stderr);
    assert_eq!(listing(temp.path()), before);
}

#[test]
fn demo_without_keep_names_keel_commands_not_cargo() {
    let temp = tempfile::tempdir().expect("a temporary folder");
    let demo = run(temp.path(), &["demo"]);
    assert_eq!(demo.code, 0, "{}", demo.render(None));
    assert!(!demo.stdout.contains("cargo"), "{}", demo.stdout);
    assert!(demo.stdout.contains("keel init"), "{}", demo.stdout);
    assert!(!demo.stdout.contains("kept in"), "{}", demo.stdout);
}
