//! `keel lsp` on a built TypeScript repository, driven by the scripted client as an editor
//! drives it: the TS half of the issue's "scripted LSP client on fixture repositories
//! (Python and TS)" (`lsp.rs` holds the Python half).
//!
//! Owns: what an editor receives about a TS file whose class method a spec pins
//! (`src/session.ts#Session.refresh`): the error on the method's lines for an unsaved
//! change inside it (a warning, not on the method, for one outside it) and its clearing
//! when the change is undone, hover, code lens, go-to-definition
//! from the spec entry, completion of the file's units and paths in the spec, and the call
//! hierarchy across TS modules (imports, `new C().m()`, an unsaved caller, an unresolved
//! call through a parameter); and the JSON of the main flow, as one snapshot. Expected
//! lines are computed from the text the tests write, never from keel's output.
//! Does not own: the protocol's manners and the Python answers (`lsp.rs`), the client
//! (`lsp_client.rs`), the TS call graph's rules (`keel_queries::callgraph` tests).

use crate::lsp_client::{Client, uri};
use crate::support::{redact_path, snapshot_settings, spec};
use keel_fixtures::FixtureRepo;
use serde_json::{Value, json};
use std::path::Path;

/// A module with one function, `stamp`.
const CLOCK_TS: &str = "\
export function stamp(): number {
  return 0;
}
";

/// A class with two methods (`refresh` calls `stamp` from `./clock`) and a function
/// `renew` that calls `refresh` on a new `Session`.
const SESSION_TS: &str = "\
import { stamp } from \"./clock\";

export class Session {
  refresh(): number {
    return stamp() + 1;
  }

  close(): void {
    return;
  }
}

export function renew(): number {
  return new Session().refresh();
}
";

/// `run` calls `stamp` and `renew` through imports, a callback it is given (`hook`, a call
/// keel cannot resolve) and `missing`, a name bound nowhere (a runtime global to keel's TS
/// graph, like `console`).
const MAIN_TS: &str = "\
import { renew } from \"./session\";
import { stamp } from \"./clock\";

// The entry point: the clock, a renewed session and the caller's hook.
export function run(hook: () => number): number {
  const now = stamp();
  return now + renew() + hook() + missing();
}
";

/// The line `refresh` calls `stamp` on, and what an unsaved change makes of it.
const REFRESH_BODY: &str = "    return stamp() + 1;";
const REFRESH_BODY_CHANGED: &str = "    return stamp() + 2;";

/// The spec entry pinning the method.
const PIN: &str = "src/session.ts#Session.refresh";

/// A repository whose one commit holds the three modules and `.spec/auth` pinning
/// `Session.refresh`.
fn ts_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("src/clock.ts", CLOCK_TS)
        .and_then(|r| r.write("src/session.ts", SESSION_TS))
        .and_then(|r| r.write("src/main.ts", MAIN_TS))
        .and_then(|r| r.write(".spec/auth/spec.md", &spec(&[PIN])))
        .expect("write");
    repo.commit("Add the session, its callers and its spec")
        .expect("commit");
    repo
}

/// The 0-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> u32 {
    let index = text
        .lines()
        .position(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is in the text"));
    u32::try_from(index).expect("a short text")
}

/// The 0-based first and last lines of the block that opens on the first line holding
/// `needle`: it ends at the first later line that is the opening line's indentation and `}`.
fn block(text: &str, needle: &str) -> (u32, u32) {
    let first = line_of(text, needle);
    let lines: Vec<&str> = text.lines().collect();
    let opening = lines[first as usize];
    let closing = format!(
        "{}}}",
        &opening[..opening.len() - opening.trim_start().len()]
    );
    let last = (first as usize..lines.len())
        .find(|&at| lines[at] == closing)
        .unwrap_or_else(|| panic!("the block of `{needle}` closes"));
    (first, u32::try_from(last).expect("a short text"))
}

/// The LSP range keel gives whole lines `first` to `last` (0-based): from the first's start
/// to the start of the line after the last.
fn whole_lines(first: u32, last: u32) -> Value {
    json!({"start": {"line": first, "character": 0}, "end": {"line": last + 1, "character": 0}})
}

/// A position in a document, as `textDocument/*` requests name it.
fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

/// The character just after `needle` in the first line of `text` holding it.
fn after(text: &str, needle: &str) -> u32 {
    let line = text
        .lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is in the text"));
    let column = line.find(needle).expect("on the line") + needle.len();
    u32::try_from(column).expect("a short line")
}

/// The client, and every message it sent and received, in order (the snapshot's matter).
struct Recorded {
    client: Client,
    transcript: Vec<Value>,
}

impl Recorded {
    /// `keel lsp` in `dir`, initialized (the handshake is not recorded: it carries the
    /// version).
    fn start(dir: &Path) -> Self {
        let mut client = Client::start(dir);
        let init = client.request(
            1,
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        assert_eq!(
            init["result"]["capabilities"]["callHierarchyProvider"], true,
            "{init}"
        );
        client.notify("initialized", json!({}));
        Self {
            client,
            transcript: Vec::new(),
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.client.send(&message);
        self.transcript.push(json!({"sent": message}));
    }

    /// The answer to request `id`; whatever came before it is recorded too.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.client.send(&message);
        self.transcript.push(json!({"sent": message}));
        loop {
            let received = self.client.next();
            self.transcript.push(json!({"received": received}));
            if received["id"] == id {
                return received;
            }
        }
    }

    /// The diagnostics published next for each of `count` files, by URI.
    fn diagnostics(&mut self, count: usize) -> std::collections::BTreeMap<String, Value> {
        let mut files = std::collections::BTreeMap::new();
        while files.len() < count {
            let received = self.client.next();
            self.transcript.push(json!({"received": received}));
            if received["method"] == "textDocument/publishDiagnostics" {
                let uri = received["params"]["uri"]
                    .as_str()
                    .expect("a URI")
                    .to_owned();
                files.insert(uri, received["params"]["diagnostics"].clone());
            }
        }
        files
    }

    /// shutdown (answered with null), exit, and the server's exit code is 0.
    fn shut_down(&mut self, id: u64) {
        let shutdown = self.request(id, "shutdown", Value::Null);
        assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
        self.notify("exit", Value::Null);
        let status = self.client.child.wait().expect("keel lsp ends");
        assert_eq!(status.code(), Some(0), "shutdown then exit ends with 0");
    }
}

/// The labels of a completion answer.
fn labels(answer: &Value) -> Vec<&str> {
    answer["result"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["label"].as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn an_unsaved_change_inside_a_pinned_ts_method_is_an_error_on_its_lines_and_undoing_it_clears_it() {
    let repo = ts_repo();
    let dir = repo.path();
    let session = uri(&dir.join("src/session.ts"));
    let spec_uri = uri(&dir.join(".spec/auth/spec.md"));
    let (first, last) = block(SESSION_TS, "  refresh(): number {");
    let changed = SESSION_TS.replace(REFRESH_BODY, REFRESH_BODY_CHANGED);
    assert_ne!(changed, SESSION_TS, "the change is made");
    assert!(
        (first..=last).contains(&line_of(&changed, REFRESH_BODY_CHANGED)),
        "the change is inside `refresh`"
    );

    let mut server = Recorded::start(dir);
    // The buffer holds a change to `refresh` that is not saved: the disk is as committed.
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": session, "languageId": "typescript", "version": 1, "text": changed}}),
    );
    let files = server.diagnostics(2);
    let on_session = &files[&session];
    assert_eq!(on_session.as_array().map(Vec::len), Some(1), "{on_session}");
    assert_eq!(
        on_session[0]["severity"], 1,
        "an error: the gate would refuse it"
    );
    assert_eq!(on_session[0]["code"], "anchor-hit");
    assert_eq!(
        on_session[0]["range"],
        whole_lines(first, last),
        "exactly `refresh`'s lines"
    );
    let message = on_session[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(
            "changes `Session.refresh`, pinned by `.spec/auth`: the gate will refuse this commit"
        ),
        "{message}"
    );
    let on_spec = &files[&spec_uri];
    assert_eq!(on_spec.as_array().map(Vec::len), Some(1), "{on_spec}");
    assert_eq!(on_spec[0]["code"], "anchor-hit");
    assert_eq!(on_spec[0]["severity"], 1);
    assert_eq!(
        on_spec[0]["range"]["start"]["line"],
        line_of(&spec(&[PIN]), PIN),
        "on the entry's line: {on_spec}"
    );

    // Hover over the changed method names the node and what the change does to it.
    let hover = server.request(2, "textDocument/hover", at(&session, first + 1, 4));
    assert_eq!(
        hover["result"]["range"],
        whole_lines(first, last),
        "{hover}"
    );
    assert_eq!(
        hover["result"]["contents"]["value"],
        "**`Session.refresh`** (method) — pinned by:\n- `auth` (code): your unsaved change changes it: the gate would refuse the commit\n",
        "{hover}"
    );

    // Undoing the change (still unsaved) clears both files.
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": session, "version": 2}, "contentChanges": [{"text": SESSION_TS}]}),
    );
    let files = server.diagnostics(2);
    assert_eq!(files[&session], json!([]), "{files:?}");
    assert_eq!(files[&spec_uri], json!([]), "{files:?}");
    server.shut_down(3);

    let transcript = serde_json::to_string_pretty(&server.transcript).expect("JSON");
    snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "lsp_typescript_unsaved_change_flow",
            redact_path(&transcript, dir)
        );
    });
}

#[test]
fn an_unsaved_change_outside_the_pinned_ts_method_is_advisory_and_not_on_the_method() {
    let repo = ts_repo();
    let dir = repo.path();
    let session = uri(&dir.join("src/session.ts"));
    let spec_uri = uri(&dir.join(".spec/auth/spec.md"));
    let refresh = block(SESSION_TS, "  refresh(): number {");
    let close = block(SESSION_TS, "  close(): void {");
    let changed = SESSION_TS.replace("    return;", "    return void 0;");
    let at_line = line_of(&changed, "return void 0;");
    assert!(
        (close.0..=close.1).contains(&at_line) && !(refresh.0..=refresh.1).contains(&at_line),
        "the change is inside `close` only"
    );

    let mut server = Recorded::start(dir);
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": session, "languageId": "typescript", "version": 1, "text": changed}}),
    );
    let files = server.diagnostics(2);
    for (file, list) in &files {
        let list = list.as_array().expect("a list");
        assert_eq!(list.len(), 1, "{file}: {list:?}");
        assert_eq!(
            list[0]["severity"], 2,
            "a warning, never an error: {list:?}"
        );
        assert_eq!(list[0]["code"], "scoped-code-miss", "{list:?}");
    }
    assert_ne!(
        files[&session][0]["range"],
        whole_lines(refresh.0, refresh.1),
        "not on the pinned method"
    );
    let message = files[&session][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("governed by `.spec/auth` (advisory: the gate does not refuse it)"),
        "{message}"
    );
    assert!(files.contains_key(&spec_uri), "{files:?}");
    // Hover on the pinned method: untouched by this change.
    let hover = server.request(2, "textDocument/hover", at(&session, refresh.0 + 1, 4));
    assert_eq!(
        hover["result"]["contents"]["value"],
        "**`Session.refresh`** (method) — pinned by:\n- `auth` (code): clean\n",
        "{hover}"
    );

    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": session, "version": 2}, "contentChanges": [{"text": SESSION_TS}]}),
    );
    let files = server.diagnostics(2);
    assert_eq!(files[&session], json!([]), "{files:?}");
    assert_eq!(files[&spec_uri], json!([]), "{files:?}");
    server.shut_down(3);
}

#[test]
fn hover_lens_definition_and_completion_know_the_ts_units() {
    let repo = ts_repo();
    let dir = repo.path();
    let session = uri(&dir.join("src/session.ts"));
    let spec_uri = uri(&dir.join(".spec/auth/spec.md"));
    let refresh = block(SESSION_TS, "  refresh(): number {");
    let close = block(SESSION_TS, "  close(): void {");
    let class = block(SESSION_TS, "export class Session {");
    let renew = block(SESSION_TS, "export function renew(): number {");
    let mut server = Recorded::start(dir);

    // Hover: the pinned method, clean; its unpinned sibling and class show nothing.
    let hover = server.request(2, "textDocument/hover", at(&session, refresh.0 + 1, 4));
    assert_eq!(
        hover["result"]["contents"]["value"],
        "**`Session.refresh`** (method) — pinned by:\n- `auth` (code): clean\n",
        "{hover}"
    );
    assert_eq!(hover["result"]["range"], whole_lines(refresh.0, refresh.1));
    for (line, what) in [(close.0 + 1, "close"), (class.0, "the class line")] {
        let hover = server.request(3, "textDocument/hover", at(&session, line, 2));
        assert_eq!(
            hover["result"],
            Value::Null,
            "{what} is pinned by nothing: {hover}"
        );
    }

    // One lens, on the pinned method's first line.
    let lenses = server.request(
        4,
        "textDocument/codeLens",
        json!({"textDocument": {"uri": session}}),
    );
    assert_eq!(
        lenses["result"].as_array().map(Vec::len),
        Some(1),
        "{lenses}"
    );
    assert_eq!(lenses["result"][0]["command"]["title"], "pinned by auth");
    assert_eq!(
        lenses["result"][0]["range"],
        whole_lines(refresh.0, refresh.0)
    );

    // The spec's entry: a symbol, and a definition that goes to the method's lines.
    let spec_text = spec(&[PIN]);
    let entry = line_of(&spec_text, PIN);
    let symbols = server.request(
        5,
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": spec_uri}}),
    );
    assert_eq!(
        symbols["result"].as_array().map(Vec::len),
        Some(1),
        "{symbols}"
    );
    assert_eq!(symbols["result"][0]["name"], PIN);
    assert_eq!(symbols["result"][0]["detail"], "code");
    assert_eq!(symbols["result"][0]["range"], whole_lines(entry, entry));
    for character in [after(&spec_text, "#Ses"), after(&spec_text, "- src/")] {
        let definition = server.request(
            6,
            "textDocument/definition",
            at(&spec_uri, entry, character),
        );
        assert_eq!(
            definition["result"]["uri"],
            session.as_str(),
            "{definition}"
        );
        assert_eq!(
            definition["result"]["range"],
            whole_lines(refresh.0, refresh.1),
            "from character {character}: {definition}"
        );
    }

    // Completion in the spec as it is being typed: a second entry `src/session.ts#`.
    let typing = spec(&[PIN, "src/session.ts#"]);
    let typed = typing
        .lines()
        .position(|line| line == "  - src/session.ts#")
        .and_then(|at| u32::try_from(at).ok())
        .expect("the half-typed entry");
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": spec_uri, "languageId": "markdown", "version": 1, "text": typing}}),
    );
    // The half-typed entry is refused as the spec reads it, on its line (and nothing
    // else was published: the tree is clean).
    let refused = server.diagnostics(1);
    assert_eq!(refused[&spec_uri][0]["code"], "spec", "{refused:?}");
    assert_eq!(
        refused[&spec_uri][0]["range"],
        whole_lines(typed, typed),
        "{refused:?}"
    );
    let units = server.request(
        7,
        "textDocument/completion",
        at(&spec_uri, typed, after(&typing, "  - src/session.ts#")),
    );
    assert_eq!(
        labels(&units),
        ["Session", "Session.refresh", "Session.close", "renew"],
        "{units}"
    );
    let offered: Vec<(&Value, &Value)> = units["result"]
        .as_array()
        .map(|items| items.iter().map(|i| (&i["kind"], &i["detail"])).collect())
        .unwrap_or_default();
    let lines_of = |(first, last): (u32, u32)| format!("lines {}-{}", first + 1, last + 1);
    assert_eq!(
        offered,
        [
            (&json!(7), &json!(format!("class ({})", lines_of(class)))),
            (&json!(2), &json!(format!("method ({})", lines_of(refresh)))),
            (&json!(2), &json!(format!("method ({})", lines_of(close)))),
            (&json!(3), &json!(format!("function ({})", lines_of(renew)))),
        ],
        "kinds (class 7, method 2, function 3) and lines: {units}"
    );
    // After `- src/`: the repository's paths under it (never the specs).
    let paths = server.request(
        8,
        "textDocument/completion",
        at(&spec_uri, typed, after(&typing, "  - src/")),
    );
    assert_eq!(
        labels(&paths),
        ["src/clock.ts", "src/main.ts", "src/session.ts"],
        "{paths}"
    );
    // The spec on disk again: its refusal is cleared.
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": spec_uri}}),
    );
    let closed = server.diagnostics(1);
    assert_eq!(closed[&spec_uri], json!([]), "{closed:?}");
    server.shut_down(9);
}

#[test]
fn the_ts_call_hierarchy_follows_imports_and_methods_and_counts_unresolved_sites() {
    let repo = ts_repo();
    let dir = repo.path();
    let clock = uri(&dir.join("src/clock.ts"));
    let session = uri(&dir.join("src/session.ts"));
    let main = uri(&dir.join("src/main.ts"));
    let mut server = Recorded::start(dir);

    // An unsaved second caller of `stamp`, in the open buffer of main.ts.
    let edited =
        format!("{MAIN_TS}\nexport function again(): number {{\n  return stamp() * 2;\n}}\n");
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": main, "languageId": "typescript", "version": 1, "text": edited}}),
    );

    let stamp = block(CLOCK_TS, "export function stamp");
    let prepared = server.request(
        2,
        "textDocument/prepareCallHierarchy",
        at(&clock, stamp.0 + 1, 4),
    );
    let item = prepared["result"][0].clone();
    assert_eq!(item["name"], "stamp", "{prepared}");
    assert_eq!(item["kind"], 12, "a function");
    assert_eq!(item["uri"], clock.as_str());
    assert_eq!(item["range"], whole_lines(stamp.0, stamp.1));
    assert_eq!(
        item["detail"], "src/clock.ts",
        "stamp calls nothing unresolved"
    );

    // Callers across modules, with their call lines (0-based) in their own files.
    let incoming = server.request(3, "callHierarchy/incomingCalls", json!({"item": item}));
    let mut callers: Vec<(&str, &str, u64)> = incoming["result"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|call| {
                    (
                        call["from"]["name"].as_str().unwrap_or_default(),
                        call["from"]["uri"].as_str().unwrap_or_default(),
                        call["fromRanges"][0]["start"]["line"]
                            .as_u64()
                            .unwrap_or(u64::MAX),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    callers.sort_unstable();
    let mut expected = vec![
        (
            "Session.refresh",
            session.as_str(),
            u64::from(line_of(SESSION_TS, REFRESH_BODY)),
        ),
        (
            "again",
            main.as_str(),
            u64::from(line_of(&edited, "return stamp() * 2;")),
        ),
        (
            "run",
            main.as_str(),
            u64::from(line_of(MAIN_TS, "const now = stamp();")),
        ),
    ];
    expected.sort_unstable();
    assert_eq!(callers, expected, "{incoming}");

    // `run`: `hook()` (a parameter) is the one unresolved site; `missing()` is bound
    // nowhere, so keel's TS graph reads it as a runtime global (external, not counted).
    let run = incoming["result"]
        .as_array()
        .and_then(|calls| calls.iter().find(|call| call["from"]["name"] == "run"))
        .map(|call| call["from"].clone())
        .expect("run calls stamp");
    assert_eq!(run["detail"], "src/main.ts (+1 unresolved)", "{run}");
    let (run_first, run_last) = block(MAIN_TS, "export function run(");
    assert_eq!(run["range"], whole_lines(run_first, run_last));
    let outgoing = server.request(4, "callHierarchy/outgoingCalls", json!({"item": run}));
    let mut callees: Vec<(&str, u64)> = outgoing["result"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|call| {
                    (
                        call["to"]["name"].as_str().unwrap_or_default(),
                        call["fromRanges"][0]["start"]["line"]
                            .as_u64()
                            .unwrap_or(u64::MAX),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    callees.sort_unstable();
    assert_eq!(
        callees,
        [
            ("renew", u64::from(line_of(MAIN_TS, "renew() + hook()"))),
            ("stamp", u64::from(line_of(MAIN_TS, "const now = stamp();"))),
        ],
        "{outgoing}"
    );

    // `new Session().refresh()` resolves to the method, both ways.
    let renew = block(SESSION_TS, "export function renew");
    let prepared = server.request(
        5,
        "textDocument/prepareCallHierarchy",
        at(&session, renew.0 + 1, 4),
    );
    let renew_item = prepared["result"][0].clone();
    assert_eq!(renew_item["name"], "renew", "{prepared}");
    let outgoing = server.request(
        6,
        "callHierarchy/outgoingCalls",
        json!({"item": renew_item}),
    );
    assert_eq!(
        outgoing["result"].as_array().map(Vec::len),
        Some(1),
        "{outgoing}"
    );
    assert_eq!(outgoing["result"][0]["to"]["name"], "Session.refresh");
    assert_eq!(outgoing["result"][0]["to"]["kind"], 6, "a method");
    assert_eq!(
        outgoing["result"][0]["fromRanges"][0]["start"]["line"],
        line_of(SESSION_TS, "new Session().refresh()")
    );
    let refresh = block(SESSION_TS, "  refresh(): number {");
    let prepared = server.request(
        7,
        "textDocument/prepareCallHierarchy",
        at(&session, refresh.0 + 1, 4),
    );
    let refresh_item = prepared["result"][0].clone();
    assert_eq!(
        refresh_item["name"], "Session.refresh",
        "the innermost: {prepared}"
    );
    assert_eq!(refresh_item["range"], whole_lines(refresh.0, refresh.1));
    let incoming = server.request(
        8,
        "callHierarchy/incomingCalls",
        json!({"item": refresh_item}),
    );
    assert_eq!(
        incoming["result"].as_array().map(Vec::len),
        Some(1),
        "{incoming}"
    );
    assert_eq!(incoming["result"][0]["from"]["name"], "renew");
    assert_eq!(incoming["result"][0]["from"]["detail"], "src/session.ts");

    server.shut_down(9);
}
