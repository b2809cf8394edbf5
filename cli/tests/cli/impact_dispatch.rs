//! `keel impact` follows dispatch edges: a patch changing an override reports the callers
//! of the method it overrides (click's `Option.get_default` is called by
//! `Parameter.consume_value` through `self.get_default`), and a patch changing a class
//! implementing an interface the callers through that interface; `keel callgraph` marks
//! those edges `"dispatch": true`.

use crate::support::{repo_with, run};

/// `Parameter.consume_value` calls `self.get_default`, which `Option` overrides.
const PARAMS_PY: &str = "\
class Parameter:
    def get_default(self, ctx):
        return None

    def consume_value(self, ctx):
        return self.get_default(ctx)


class Option(Parameter):
    def get_default(self, ctx):
        return 'default'
";

const CLI_PY: &str = "\
from params import Option


def main():
    return Option().consume_value(None)
";

/// `Option.get_default` returns something else.
const PATCH_OPTION: &str = "\
--- a/params.py
+++ b/params.py
@@ -11 +11 @@ class Option(Parameter):
-        return 'default'
+        return 'other'
";

/// `English.greet` is reached from `welcome` only through the interface it implements.
const GREETER_TS: &str = "\
export interface Greeter {
  greet(name: string): string;
}

export class English implements Greeter {
  greet(name: string) {
    return 'hello ' + name;
  }
}

export function welcome(g: Greeter) {
  return g.greet('you');
}
";

const PATCH_ENGLISH: &str = "\
--- a/greeter.ts
+++ b/greeter.ts
@@ -7 +7 @@ export class English implements Greeter {
-    return 'hello ' + name;
+    return 'hi ' + name;
";

/// `(id, depth)` of every affected callable of a report.
fn affected(report: &serde_json::Value) -> Vec<(String, u64)> {
    report["affected_functions"]
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
        .unwrap_or_default()
}

fn owned(items: &[(&str, u64)]) -> Vec<(String, u64)> {
    items.iter().map(|(id, d)| ((*id).to_owned(), *d)).collect()
}

#[test]
fn impact_of_an_override_reaches_the_callers_of_the_method_it_overrides() {
    let repo = repo_with(&[
        ("params.py", PARAMS_PY.as_bytes()),
        ("cli.py", CLI_PY.as_bytes()),
        ("change.diff", PATCH_OPTION.as_bytes()),
    ]);
    let run = run(repo.path(), &["impact", "change.diff", "--depth", "2"]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    assert_eq!(report["changes"][0]["id"], "params.py#Option.get_default");
    assert_eq!(
        affected(&report),
        owned(&[
            ("params.py#Option.get_default", 0),
            ("params.py#Parameter.consume_value", 1),
            ("cli.py#main", 2),
        ]),
        "{}",
        run.stdout
    );
    assert_eq!(report["unresolved"]["count"], 0, "{}", run.stdout);
    let graph = crate::support::run(repo.path(), &["callgraph", "--format", "json"]).json();
    let edges = graph["edges"].as_array().cloned().unwrap_or_default();
    let dispatched: Vec<(&str, &str)> = edges
        .iter()
        .filter(|edge| edge["dispatch"] == true)
        .map(|edge| {
            (
                edge["caller"].as_str().unwrap_or_default(),
                edge["callee"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        dispatched,
        [(
            "params.py#Parameter.consume_value",
            "params.py#Option.get_default"
        )],
        "{graph}"
    );
    // Every other edge has no `dispatch` key.
    assert!(
        edges
            .iter()
            .filter(|edge| edge["dispatch"] != true)
            .all(|edge| edge.get("dispatch").is_none()),
        "{graph}"
    );
}

#[test]
fn impact_of_a_class_implementing_an_interface_reaches_the_callers_through_it() {
    let repo = repo_with(&[
        ("greeter.ts", GREETER_TS.as_bytes()),
        ("change.diff", PATCH_ENGLISH.as_bytes()),
    ]);
    let run = run(repo.path(), &["impact", "change.diff", "--depth", "2"]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(None));
    let report = run.json();
    assert_eq!(
        affected(&report),
        owned(&[("greeter.ts#English.greet", 0), ("greeter.ts#welcome", 1)]),
        "{}",
        run.stdout
    );
    // The call through the interface found its target: it is no unresolved site.
    assert_eq!(report["unresolved"]["count"], 0, "{}", run.stdout);
}
