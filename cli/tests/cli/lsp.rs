//! `keel lsp` driven by a scripted client over stdio, as an editor drives it: initialize,
//! open a buffer with an unsaved change, change it back, a request keel does not serve,
//! shutdown and exit — on a built fixture repository.
//!
//! Owns: the diagnostics an editor receives (on the changed unit, on the spec's entry
//! line, cleared when the change is undone), the protocol's manners (an unknown request is
//! an error and the server goes on; shutdown then exit ends it with 0) and that the server
//! writes nothing to the repository. Does not own: the findings (lint's tests).

use crate::APP_PY_F_CHANGED;
use crate::lsp_client::{Client, uri};
use crate::support::{APP_PY, listing, snapshot_settings, spec};
use keel_fixtures::FixtureRepo;
use serde_json::{Value, json};
use std::path::Path;

#[test]
fn an_unsaved_change_inside_a_pinned_unit_is_an_error_on_it_and_undoing_it_clears_it() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    let dir = &repo.path().to_owned();
    let before_commit = listing(dir);
    let app = uri(&dir.join("app.py"));
    let spec_uri = uri(&dir.join(".spec/app/spec.md"));

    let mut client = Client::start(dir);
    let init = client.request(
        1,
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    assert_eq!(
        init["result"]["capabilities"]["textDocumentSync"]["change"], 1,
        "{init}"
    );
    client.notify("initialized", json!({}));

    // The buffer holds a change to `f` that is not saved: the disk is as committed.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": app, "languageId": "python", "version": 1, "text": APP_PY_F_CHANGED}}),
    );
    let files = client.diagnostics(2);
    let on_app = &files[&app];
    assert_eq!(on_app.as_array().map(Vec::len), Some(1), "{on_app}");
    assert_eq!(
        on_app[0]["severity"], 1,
        "an error: the gate would refuse it"
    );
    assert_eq!(on_app[0]["code"], "anchor-hit");
    // `f` is lines 1-3 of APP_PY: the range starts at line 0 and ends where line 4 starts.
    assert_eq!(
        on_app[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}})
    );
    let on_spec = &files[&spec_uri];
    // The entry `app.py#f` is the spec's third line (after `---` and `code:`).
    assert_eq!(on_spec[0]["range"]["start"]["line"], 2, "{on_spec}");
    assert_eq!(on_spec[0]["code"], "anchor-hit");
    snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "lsp_unsaved_change_diagnostics",
            serde_json::to_string_pretty(&json!({"app.py": on_app, "spec.md": on_spec}))
                .expect("JSON")
        );
    });

    // A request keel does not serve is refused, and the server goes on serving.
    let refused = client.request(2, "textDocument/rename", json!({}));
    assert_eq!(refused["error"]["code"], -32601, "{refused}");

    // Navigation: from the spec's entry to the unit, hover and lens over the unit.
    let at = |uri: &str, line: u32, character: u32| json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    let definition = client.request(4, "textDocument/definition", at(&spec_uri, 2, 13));
    assert_eq!(definition["result"]["uri"], app.as_str(), "{definition}");
    assert_eq!(
        definition["result"]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}})
    );
    let hover = client.request(5, "textDocument/hover", at(&app, 1, 4));
    let hover_text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        hover_text.contains("pinned by")
            && hover_text.contains("`app` (code): your unsaved change changes it"),
        "{hover}"
    );
    let on_g = client.request(6, "textDocument/hover", at(&app, 5, 4));
    assert_eq!(
        on_g["result"],
        Value::Null,
        "g is pinned by nothing: {on_g}"
    );
    let lenses = client.request(
        7,
        "textDocument/codeLens",
        json!({"textDocument": {"uri": app}}),
    );
    assert_eq!(
        lenses["result"].as_array().map(Vec::len),
        Some(1),
        "{lenses}"
    );
    assert_eq!(lenses["result"][0]["command"]["title"], "pinned by app");
    let symbols = client.request(
        8,
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": spec_uri}}),
    );
    assert_eq!(symbols["result"][0]["name"], "app.py#f", "{symbols}");

    // Completion in the spec: the file's units after `#`, paths after `- `.
    let typed = spec(&["app.py#"]);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": spec_uri, "languageId": "markdown", "version": 1, "text": typed}}),
    );
    // The half-typed entry is refused as the spec reads it, on its line.
    let refused = client.diagnostics(2);
    assert_eq!(refused[&spec_uri][0]["code"], "spec", "{refused:?}");
    assert_eq!(
        refused[&spec_uri][0]["range"]["start"]["line"], 2,
        "{refused:?}"
    );
    assert_eq!(
        refused[&app],
        json!([]),
        "no findings while a spec is refused"
    );
    let units = client.request(9, "textDocument/completion", at(&spec_uri, 2, 11));
    let labels: Vec<&str> = units["result"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["label"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(labels, ["f", "g"], "{units}");
    let paths = client.request(10, "textDocument/completion", at(&spec_uri, 2, 6));
    let labels: Vec<&str> = paths["result"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["label"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(labels, ["app.py"], "{paths}");
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": spec_uri}}),
    );
    let closed = client.diagnostics(2);
    assert_eq!(
        closed[&app], files[&app],
        "the spec on disk again: the same findings"
    );

    // Undoing the change (still unsaved) clears both files.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": app, "version": 2}, "contentChanges": [{"text": APP_PY}]}),
    );
    let files = client.diagnostics(2);
    assert_eq!(files[&app], json!([]), "{files:?}");
    assert_eq!(files[&spec_uri], json!([]), "{files:?}");

    // A commit made outside the editor (the buffer closed first): the server follows HEAD
    // and shows the debt it left, with no message from the editor.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": app}}),
    );
    repo.write("app.py", APP_PY_F_CHANGED).expect("write");
    repo.commit("Change f outside the editor").expect("commit");
    // The file written before the commit may show first as an uncommitted change: wait
    // for the verdict at the commit.
    let after_commit = client.published_until(|latest| {
        latest
            .get(&app)
            .is_some_and(|list| list[0]["severity"] == 3)
            && latest
                .get(&spec_uri)
                .is_some_and(|list| list[0].is_object())
    });
    assert_eq!(
        after_commit[&app][0]["severity"], 3,
        "information: {after_commit:?}"
    );
    assert!(
        after_commit[&app][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("already owed by `.spec/app`: 1 commit")),
        "{after_commit:?}"
    );
    assert_eq!(after_commit[&spec_uri][0]["code"], "anchor-hit");

    let shutdown = client.request(3, "shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    client.notify("exit", Value::Null);
    let status = client.child.wait().expect("keel lsp ends");
    assert_eq!(status.code(), Some(0));
    // The commit this test made changed app.py and .git: the rest is as it was.
    let outside_the_commit = |mut files: std::collections::BTreeMap<std::path::PathBuf, _>| {
        files.retain(|path, _| !path.starts_with(".git") && path != Path::new("app.py"));
        files
    };
    assert_eq!(
        outside_the_commit(listing(dir)),
        outside_the_commit(before_commit),
        "the server wrote nothing to the repository"
    );
    assert!(!dir.join(".git/keel").exists(), "not even a memo");
}

#[test]
fn the_call_hierarchy_reads_unsaved_buffers_and_names_unresolved_sites() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    let main_py = "from app import f\n\n\ndef run():\n    return f(1) + missing()\n";
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write("main.py", main_py))
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app, main and a spec").expect("commit");
    let dir = repo.path();
    let app = uri(&dir.join("app.py"));
    let main = uri(&dir.join("main.py"));
    let mut client = Client::initialized(dir);

    // An unsaved second caller of `f`.
    let edited = format!("{main_py}\n\ndef again():\n    return f(2)\n");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": main, "languageId": "python", "version": 1, "text": edited}}),
    );
    let prepared = client.request(
        2,
        "textDocument/prepareCallHierarchy",
        json!({"textDocument": {"uri": app}, "position": {"line": 1, "character": 4}}),
    );
    let item = prepared["result"][0].clone();
    assert_eq!(item["name"], "f", "{prepared}");
    let incoming = client.request(3, "callHierarchy/incomingCalls", json!({"item": item}));
    let callers: Vec<(&str, u64)> = incoming["result"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|call| {
                    (
                        call["from"]["name"].as_str().unwrap_or_default(),
                        call["fromRanges"][0]["start"]["line"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(callers, [("again", 8), ("run", 4)], "{incoming}");
    let run = incoming["result"]
        .as_array()
        .and_then(|calls| calls.iter().find(|call| call["from"]["name"] == "run"))
        .map(|call| call["from"].clone())
        .expect("run calls f");
    assert_eq!(
        run["detail"], "main.py (+1 unresolved)",
        "missing() is named, not hidden"
    );
    let outgoing = client.request(4, "callHierarchy/outgoingCalls", json!({"item": run}));
    assert_eq!(outgoing["result"][0]["to"]["name"], "f", "{outgoing}");
    assert_eq!(outgoing["result"].as_array().map(Vec::len), Some(1));

    client.request(5, "shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert_eq!(client.child.wait().expect("keel lsp ends").code(), Some(0));
}

#[test]
fn a_file_past_max_file_bytes_is_not_parsed_for_hover() {
    for (bound, parsed) in [(None, true), (Some(32), false)] {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        repo.write("app.py", APP_PY)
            .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
            .expect("write");
        if let Some(bound) = bound {
            repo.write("keel.toml", &format!("[lint]\nmax_file_bytes = {bound}\n"))
                .expect("write");
        }
        repo.commit("Add app and its spec").expect("commit");
        let dir = repo.path();
        let app = uri(&dir.join("app.py"));
        let mut client = Client::initialized(dir);
        let hover = client.request(
            2,
            "textDocument/hover",
            json!({"textDocument": {"uri": app}, "position": {"line": 1, "character": 4}}),
        );
        assert_eq!(
            !hover["result"].is_null(),
            parsed,
            "max_file_bytes {bound:?}: {hover}"
        );
        client.request(3, "shutdown", Value::Null);
        client.notify("exit", Value::Null);
        assert_eq!(client.child.wait().expect("ends").code(), Some(0));
    }
}

/// `keel impact --rev HEAD` of a patch file written beside the repository, as JSON.
fn impact_of_patch(dir: &Path, patch: &str, extra: &[&str]) -> Value {
    let file = dir.with_extension("patch");
    std::fs::write(&file, patch).expect("write the patch");
    let mut args = vec![
        "impact",
        "--rev",
        "HEAD",
        file.to_str().expect("a UTF-8 path"),
    ];
    args.extend_from_slice(extra);
    let run = crate::support::run(dir, &args);
    assert_eq!(run.code, 0, "{}", run.render(None));
    run.json()
}

/// git's `-U0` patch without what keel's own leaves out: `index` lines and the function
/// context after a hunk's `@@ … @@`.
fn without_index_and_context(patch: &str) -> String {
    patch
        .lines()
        .filter(|line| !line.starts_with("index "))
        .map(|line| match line.strip_prefix("@@ ") {
            Some(rest) => format!("@@ {} @@", rest.split(" @@").next().unwrap_or_default()),
            None => line.to_owned(),
        })
        .map(|line| line + "\n")
        .collect()
}

#[test]
fn keel_impact_of_the_unsaved_buffers_is_keel_impact_of_their_diff_against_head() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    let main_py = "from app import f\n\n\ndef run():\n    return f(1)\n";
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write("main.py", main_py))
        .and_then(|r| r.write("README.md", "# app\n"))
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app, main and a spec").expect("commit");
    let dir = repo.path();
    let app = uri(&dir.join("app.py"));
    let mut client = Client::initialized(dir);
    let impact = |id: u64, arguments: Value| json!({"command": "keel.impact", "arguments": arguments, "id": id});

    // Nothing changed yet: a report with no operation.
    let clean = client.request(2, "workspace/executeCommand", impact(2, json!([])));
    assert_eq!(clean["result"]["operations"], json!([]), "{clean}");
    assert_eq!(clean["result"]["changes"], json!([]), "{clean}");

    // An unsaved change inside `f`, and a new unsaved file (never written to disk).
    let added = "from app import f\n\n\ndef twice():\n    return f(f(1))\n";
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": app, "languageId": "python", "version": 1, "text": APP_PY_F_CHANGED}}),
    );
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&dir.join("main.py")).replace("main.py", "extra.py"), "languageId": "python", "version": 1, "text": added}}),
    );
    let answer = client.request(3, "workspace/executeCommand", impact(3, json!([])));
    let report = answer["result"].clone();
    let shallow = client.request(
        4,
        "workspace/executeCommand",
        impact(4, json!([{"depth": 0}])),
    );
    let misspelt = client.request(
        5,
        "workspace/executeCommand",
        impact(5, json!([{"detph": 2}])),
    );
    let unknown = client.request(
        6,
        "workspace/executeCommand",
        json!({"command": "keel.nothing", "arguments": []}),
    );
    client.request(7, "shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert_eq!(client.child.wait().expect("keel lsp ends").code(), Some(0));
    assert_eq!(misspelt["error"]["code"], -32602, "{misspelt}");
    assert!(
        misspelt["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("\"detph\"")),
        "{misspelt}"
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // The same change on disk, read by git: its patch, fed to `keel impact`, gives the
    // same report; without what keel's patch leaves out, to the digest.
    repo.write("app.py", APP_PY_F_CHANGED)
        .and_then(|r| r.write("extra.py", added))
        .and_then(|r| r.write("README.md", "# app, changed\n"))
        .expect("write the buffers");
    repo.git(&["add", "-N", "extra.py"]).expect("git add -N");
    let git_patch = repo
        .git(&[
            "diff",
            "--no-renames",
            "--histogram",
            "--no-indent-heuristic",
            "-U0",
            "HEAD",
            "--",
            "*.py",
        ])
        .expect("git diff");
    assert!(git_patch.contains("index "), "git writes index lines");
    let mut from_git = impact_of_patch(dir, &git_patch, &[]);
    let digest = |report: &Value| report["patch"]["digest"].clone();
    assert!(digest(&report).is_string(), "{report}");
    assert_ne!(digest(&from_git), digest(&report), "other patch bytes");
    from_git["patch"]["digest"] = digest(&report);
    assert_eq!(from_git, report);
    let stripped = without_index_and_context(&git_patch);
    assert_eq!(impact_of_patch(dir, &stripped, &[]), report);
    assert_eq!(
        impact_of_patch(dir, &stripped, &["--depth", "0"]),
        shallow["result"]
    );
    // What the test wrote: `f` changed (its line 2), `extra.py` added with `twice`, and
    // `run` calls `f`.
    let ids = |key: &str| -> Vec<(String, u64)> {
        report[key]
            .as_array()
            .map(|all| {
                all.iter()
                    .map(|node| {
                        let id = node["id"].as_str().unwrap_or_default().to_owned();
                        (id, node["depth"].as_u64().unwrap_or(0))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let named = |list: &[(&str, u64)]| -> Vec<(String, u64)> {
        list.iter()
            .map(|(id, depth)| ((*id).to_owned(), *depth))
            .collect()
    };
    assert_eq!(
        ids("changes"),
        named(&[
            ("app.py#f", 0),
            ("extra.py#<module>", 0),
            ("extra.py#twice", 0)
        ])
    );
    assert_eq!(
        ids("affected_functions"),
        named(&[
            ("app.py#f", 0),
            ("extra.py#<module>", 0),
            ("extra.py#twice", 0),
            ("main.py#run", 1)
        ])
    );
    assert_eq!(
        ids("operations").len(),
        2,
        "README.md is no source: {report}"
    );
}

#[test]
fn a_request_the_editor_cancels_gets_a_cancelled_error_and_the_next_one_an_answer() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    let dir = repo.path();
    let app = uri(&dir.join("app.py"));
    let mut client = Client::initialized(dir);
    // One burst: the opened buffer is linted, and the hovers and the cancel are read
    // while it is.
    let hover = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
               "params": {"textDocument": {"uri": app}, "position": {"line": 1, "character": 4}}})
    };
    client.send_together(&[
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
               "params": {"textDocument": {"uri": app, "languageId": "python", "version": 1, "text": APP_PY_F_CHANGED}}}),
        hover(2),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}}),
        hover(3),
    ]);
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 2 {
        let message = client.next();
        if let Some(id) = message["id"].as_u64() {
            answers.insert(id, message);
        }
    }
    assert_eq!(answers[&2]["error"]["code"], -32800, "{}", answers[&2]);
    assert!(answers[&2].get("result").is_none(), "{}", answers[&2]);
    assert!(
        answers[&3]["result"]["contents"].is_object(),
        "the request after it is served: {}",
        answers[&3]
    );
    client.request(4, "shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert_eq!(client.child.wait().expect("keel lsp ends").code(), Some(0));
}

#[test]
fn a_keystroke_that_leaves_every_verdict_as_it_was_publishes_nothing() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    let dir = repo.path();
    let app = uri(&dir.join("app.py"));
    let spec_uri = uri(&dir.join(".spec/app/spec.md"));
    let mut client = Client::initialized(dir);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": app, "languageId": "python", "version": 1, "text": APP_PY_F_CHANGED}}),
    );
    let first = client.diagnostics(2);
    assert_eq!(first[&app][0]["code"], "anchor-hit", "{first:?}");
    // Another edit of the same line of `f`: the same finding, on the same lines.
    let again = APP_PY_F_CHANGED.replace("x + 2", "x + 3");
    let change = |version: u32, text: &str| json!({"textDocument": {"uri": app, "version": version}, "contentChanges": [{"text": text}]});
    client.notify("textDocument/didChange", change(2, &again));
    let symbols = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol",
               "params": {"textDocument": {"uri": spec_uri}}})
    };
    client.send(&symbols(2));
    let mut between = Vec::new();
    loop {
        let message = client.next();
        if message["id"] == 2 {
            break;
        }
        between.push(message);
    }
    assert_eq!(between, Vec::<Value>::new(), "nothing new to publish");
    // The control: an edit that clears the finding is published.
    client.notify("textDocument/didChange", change(3, APP_PY));
    let cleared = client.diagnostics(2);
    assert_eq!(cleared[&app], json!([]), "{cleared:?}");
    client.request(4, "shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert_eq!(client.child.wait().expect("keel lsp ends").code(), Some(0));
}
