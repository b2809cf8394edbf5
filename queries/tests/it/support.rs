//! Shared helpers: build, open and lint fixture repositories, hash source files into a
//! database as a source tree and graph it, and read the executed-query log.

use keel_engine::settings::DEFAULT_MAX_FILE_BYTES;
use keel_engine::{ChangeEvent, Db as _, KeelDatabase, Oid};
use keel_fixtures::FixtureRepo;
use keel_queries::callgraph::{CallGraph, Sources, call_graph, graph_inputs};
use keel_queries::lint::{Finding, LintReport, lint};

/// A new empty fixture repository.
pub(crate) fn repo() -> FixtureRepo {
    FixtureRepo::new().expect("git can build a fixture repository")
}

/// Writes `files` and commits them with `message`; returns the commit id.
pub(crate) fn commit(repo: &mut FixtureRepo, files: &[(&str, &str)], message: &str) -> String {
    for (path, content) in files {
        repo.write(path, content).expect("fixture file is writable");
    }
    repo.commit(message).expect("git can commit")
}

/// A spec.md with the given code and related entries.
pub(crate) fn spec(code: &[&str], related: &[&str]) -> String {
    let mut text = String::from("---\n");
    for (key, entries) in [("code", code), ("related", related)] {
        if entries.is_empty() {
            continue;
        }
        text.push_str(key);
        text.push_str(":\n");
        for entry in entries {
            text.push_str(&format!("  - {entry}\n"));
        }
    }
    text.push_str("---\nprose\n");
    text
}

/// Opens and lints a repository.
pub(crate) fn lint_repo(repo: &FixtureRepo) -> LintReport {
    let db = KeelDatabase::open(repo.path()).expect("fixture repository opens");
    lint(&db).expect("fixture specs are valid")
}

/// The findings of one node as `(code, selectors, hit commits)`.
pub(crate) fn node_findings(
    report: &LintReport,
    node: &str,
) -> Vec<(String, Vec<String>, Vec<String>)> {
    report
        .findings
        .iter()
        .filter(|f| f.node == node)
        .map(|f: &Finding| {
            (
                f.code.to_owned(),
                f.selectors.clone(),
                f.hits.iter().map(|h| h.commit.to_string()).collect(),
            )
        })
        .collect()
}

/// A Python file with two functions: `f` on lines 4-6, `g` on lines 9-10.
pub(crate) const TWO_FUNCTIONS_PY: &str =
    "import os\n\n\ndef f():\n    a = 1\n    return a\n\n\ndef g():\n    return 2\n";

/// `text` with the first `from` replaced by `to`; the fixture's edit must apply.
pub(crate) fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "fixture edit must apply: {from}");
    text.replacen(from, to, 1)
}

/// Runs `git ARGS` in the fixture, which must succeed.
pub(crate) fn git(repo: &FixtureRepo, args: &[&str]) {
    repo.git(args).expect("git runs");
}

/// Owned strings from literals.
pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Counting a query in the executed-query log (`KeelDatabase::take_executed_queries`) by
/// its function: `count(&log, image_units)` is how many times `image_units` ran, its name
/// taken from `std::any::type_name` (so a renamed query breaks the build, not the test).
/// `count_named` is for a list of [`query_name`]s, or a query no test can reach as a
/// function.
pub(crate) use keel_fixtures::query_log::{count, count_named, query_name};

/// Gives source tree `tree` the files `files` through the one door; returns whether
/// they differed.
pub(crate) fn set_sources(db: &mut KeelDatabase, tree: Sources, files: Vec<(String, Oid)>) -> bool {
    db.apply_changes(&[ChangeEvent::SourcesChanged { tree, files }])
        .expect("setting a source tree reads nothing that can fail")
        .sources_changed
}

/// The files `texts` (path, content) hashed into `db`'s object store, as a tree lists them.
pub(crate) fn hashed_files(db: &KeelDatabase, texts: &[(&str, &str)]) -> Vec<(String, Oid)> {
    texts
        .iter()
        .map(|(path, text)| {
            (
                (*path).to_owned(),
                db.objects().insert_blob(text.as_bytes()),
            )
        })
        .collect()
}

/// A source tree of `texts` (path, content) hashed into `db`, every file read.
pub(crate) fn source_tree(db: &KeelDatabase, texts: &[(&str, &str)]) -> Sources {
    db.sources(
        graph_inputs(&hashed_files(db, texts)),
        DEFAULT_MAX_FILE_BYTES,
    )
}

/// The call graph of a tree of `texts` in `db`.
pub(crate) fn graph_in(db: &KeelDatabase, texts: &[(&str, &str)]) -> CallGraph {
    call_graph(db, source_tree(db, texts)).clone()
}

/// The call graph of a tree of `texts` in a fresh database.
pub(crate) fn fresh_graph(texts: &[(&str, &str)]) -> CallGraph {
    graph_in(&KeelDatabase::detached(), texts)
}

/// `caller -> callee` for every edge of `graph`, in its order (sorted).
pub(crate) fn edges(graph: &CallGraph) -> Vec<String> {
    graph
        .edges
        .iter()
        .map(|edge| format!("{} -> {}", edge.caller, edge.callee))
        .collect()
}

/// `caller:line text` for every unresolved site of `graph`.
pub(crate) fn unresolved(graph: &CallGraph) -> Vec<String> {
    graph
        .unresolved
        .iter()
        .map(|site| format!("{}:{} {}", site.caller, site.line, site.callee_text))
        .collect()
}
