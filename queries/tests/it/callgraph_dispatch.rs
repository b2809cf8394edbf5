//! Dispatch edges: a method call reaches the overrides of the method it resolves to in the
//! subclasses of its receiver's class (Python) and in the classes extending a class or
//! implementing an interface (TypeScript), marked as dispatch edges; and no other method
//! (an inherited one, an unrelated class's of the same name, one reached through `super`).
//! The Python fixture is also run under `python3` with `sys.setprofile` (a test helper,
//! never part of keel): every caller → callee pair it records is an edge of keel's graph.

use crate::support::fresh_graph as graph_of;
use keel_queries::callgraph::CallGraph;
use std::collections::BTreeSet;

/// `caller -> callee` for every edge, with ` (dispatch)` after a dispatch edge.
fn edges(graph: &CallGraph) -> BTreeSet<String> {
    graph
        .edges
        .iter()
        .map(|edge| {
            let mark = if edge.dispatch { " (dispatch)" } else { "" };
            format!("{} -> {}{mark}", edge.caller, edge.callee)
        })
        .collect()
}

fn unresolved(graph: &CallGraph) -> BTreeSet<String> {
    graph
        .unresolved
        .iter()
        .map(|site| format!("{}:{} {}", site.caller, site.line, site.callee_text))
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

// ----- Python ---------------------------------------------------------------------------

/// click's shape: `Parameter.consume_value` calls `self.get_default`, which `Option`
/// overrides (and `FlagOption`, a subclass of `Option`, again); `Argument` overrides
/// nothing; `Unrelated` has a method of the same name; `Option.get_default` calls the base
/// through `super()`. `use.consume` calls through a parameter annotated as the base
/// (called from `run.py` only),
/// `use.exact` on an instance of a class no other class derives from; `Mixin.run` calls a
/// method only its subclass in another file defines.
const PY_BASE: &str = "\
class Parameter:
    def __init__(self, name):
        self.name = name

    def get_default(self, ctx):
        return None

    def consume_value(self, ctx):
        value = self.get_default(ctx)
        return self.process(value)

    def process(self, value):
        return value

    def describe(self):
        return self.name


class Mixin:
    def run(self):
        return self.hook()
";

const PY_OPTIONS: &str = "\
from shapes.base import Mixin, Parameter


class Option(Parameter):
    def get_default(self, ctx):
        return super().get_default(ctx) or 'x'


class FlagOption(Option):
    def get_default(self, ctx):
        return 'flag'

    def process(self, value):
        return value


class Argument(Parameter):
    pass


class Unrelated:
    def get_default(self, ctx):
        return 'unrelated'


class Job(Mixin):
    def hook(self):
        return 'done'
";

const PY_USE: &str = "\
from shapes.base import Parameter
from shapes.options import Argument, FlagOption, Job, Option, Unrelated


def consume(param: Parameter, ctx):
    return param.get_default(ctx)


def exact():
    return Unrelated().get_default(None)


def main():
    for param in [Parameter('p'), Option('o'), FlagOption('f'), Argument('a')]:
        param.consume_value(None)
    exact()
    Job().run()
";

/// `consume` is called from another file: its parameter is what its annotation says.
const PY_RUN: &str = "\
from shapes.options import FlagOption
from shapes.use import consume, main

main()
consume(FlagOption('f'), None)
";

fn python_files() -> [(&'static str, &'static str); 4] {
    [
        ("shapes/base.py", PY_BASE),
        ("shapes/options.py", PY_OPTIONS),
        ("shapes/use.py", PY_USE),
        ("run.py", PY_RUN),
    ]
}

#[test]
fn python_method_calls_reach_the_overrides_in_subclasses_and_nothing_else() {
    let graph = graph_of(&python_files());
    let expected = set(&[
        "run.py#<module> -> shapes/use.py#main",
        "run.py#<module> -> shapes/use.py#consume",
        "run.py#<module> -> shapes/base.py#Parameter.__init__",
        // `self.get_default(ctx)` in the base: the base's method, then each override in
        // a subclass (two levels down), as dispatch edges; not `Unrelated`'s.
        "shapes/base.py#Parameter.consume_value -> shapes/base.py#Parameter.get_default",
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#Option.get_default (dispatch)",
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#FlagOption.get_default (dispatch)",
        "shapes/base.py#Parameter.consume_value -> shapes/base.py#Parameter.process",
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#FlagOption.process (dispatch)",
        // A method no class defines but a subclass in another file: settled by dispatch.
        "shapes/base.py#Mixin.run -> shapes/options.py#Job.hook (dispatch)",
        // `super()` names the next class of the MRO: no dispatch from there.
        "shapes/options.py#Option.get_default -> shapes/base.py#Parameter.get_default",
        // Through a parameter annotated as the base.
        "shapes/use.py#consume -> shapes/base.py#Parameter.get_default",
        "shapes/use.py#consume -> shapes/options.py#Option.get_default (dispatch)",
        "shapes/use.py#consume -> shapes/options.py#FlagOption.get_default (dispatch)",
        // A class no class derives from: its own method alone.
        "shapes/use.py#exact -> shapes/options.py#Unrelated.get_default",
        "shapes/use.py#main -> shapes/base.py#Parameter.__init__",
        "shapes/use.py#main -> shapes/base.py#Parameter.consume_value",
        "shapes/use.py#main -> shapes/use.py#exact",
        "shapes/use.py#main -> shapes/base.py#Mixin.run",
    ]);
    let found = edges(&graph);
    assert_eq!(
        found,
        expected,
        "missing {:?}, extra {:?}",
        expected.difference(&found).collect::<Vec<_>>(),
        found.difference(&expected).collect::<Vec<_>>()
    );
    // `self.hook()` resolved to nothing in `Mixin` alone; dispatch settles it.
    assert!(graph.unresolved.is_empty(), "{:?}", unresolved(&graph));
}

#[test]
fn python_dispatch_needs_the_subclass_to_define_the_method_and_to_be_a_subclass() {
    // The control for the test above: the same tree with `Option`'s override removed and
    // `FlagOption` no longer a subclass loses exactly those dispatch edges.
    let options = PY_OPTIONS
        .replace(
            "class Option(Parameter):\n    def get_default(self, ctx):\n        return super().get_default(ctx) or 'x'\n",
            "class Option(Parameter):\n    pass\n",
        )
        .replace("class FlagOption(Option):", "class FlagOption:");
    let mut files = python_files();
    files[1].1 = &options;
    let found = edges(&graph_of(&files));
    for gone in [
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#Option.get_default (dispatch)",
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#FlagOption.get_default (dispatch)",
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#FlagOption.process (dispatch)",
        "shapes/use.py#consume -> shapes/options.py#FlagOption.get_default (dispatch)",
    ] {
        assert!(!found.contains(gone), "{gone} in {found:#?}");
    }
    let dispatched: Vec<&String> = found.iter().filter(|e| e.ends_with("(dispatch)")).collect();
    assert_eq!(
        dispatched,
        ["shapes/base.py#Mixin.run -> shapes/options.py#Job.hook (dispatch)"],
        "{found:#?}"
    );
}

/// The caller → callee pairs running `run.py` of the tree records, as `caller -> callee`;
/// `None` when no `python3` of 3.11 or later runs here.
fn runtime_pairs(files: &[(&str, &str)]) -> Option<BTreeSet<String>> {
    let pairs = crate::python_runtime::runtime_pairs(files, "run.py")?;
    Some(
        pairs
            .into_iter()
            .map(|(caller, callee)| format!("{caller} -> {callee}"))
            .collect(),
    )
}

#[test]
fn python_every_call_the_runtime_makes_is_an_edge_of_keels_graph() {
    let files = python_files();
    let Some(runtime) = runtime_pairs(&files) else {
        return;
    };
    let graph = graph_of(&files);
    let keel: BTreeSet<String> = graph
        .edges
        .iter()
        .map(|edge| format!("{} -> {}", edge.caller, edge.callee))
        .collect();
    // The control: the runtime saw the calls only dispatch gives.
    for through_dispatch in [
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#Option.get_default",
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#FlagOption.get_default",
        "shapes/base.py#Parameter.consume_value -> shapes/options.py#FlagOption.process",
        "shapes/use.py#consume -> shapes/options.py#FlagOption.get_default",
        "shapes/base.py#Mixin.run -> shapes/options.py#Job.hook",
    ] {
        assert!(
            runtime.contains(through_dispatch),
            "the runtime makes {through_dispatch}: {runtime:#?}"
        );
    }
    let missing: Vec<&String> = runtime.difference(&keel).collect();
    assert!(
        missing.is_empty(),
        "runtime calls keel's graph lacks: {missing:#?}"
    );
    println!(
        "{} runtime caller -> callee pairs, all in keel's {} edges",
        runtime.len(),
        keel.len()
    );
}

// ----- TypeScript -----------------------------------------------------------------------

const TS_GREETER: &str = "\
export interface Greeter {
  greet(name: string): string;
}

export interface LoudGreeter extends Greeter {
  shout(): void;
}
";

const TS_IMPL: &str = "\
import { Greeter, LoudGreeter } from './greeter';

export class English implements Greeter {
  greet(name: string) {
    return 'hello ' + name;
  }
}

class Polite {
  greet(name: string) {
    return 'good day ' + name;
  }
}

export class Loud extends Polite implements LoudGreeter {
  shout() {}
}

export class Unrelated {
  greet(name: string) {
    return name;
  }
}
";

const TS_USE: &str = "\
import { Greeter } from './greeter';
import { English } from './impl';

export function welcome(g: Greeter) {
  return g.greet('you');
}

export function direct() {
  const e = new English();
  return e.greet('me');
}
";

const TS_SHAPES: &str = "\
export class Shape {
  area() {
    return 0;
  }
  describe() {
    return 'area ' + this.area();
  }
}

export class Square extends Shape {
  area() {
    return 1;
  }
}

export class Cube extends Square {
  area() {
    return super.area() * 6;
  }
}

export class Circle extends Shape {}

interface Runner {
  run(): void;
}

class Job implements Runner {
  run() {}
}

export function start(r: Runner) {
  r.run();
}
";

#[test]
fn typescript_calls_reach_overrides_and_the_classes_implementing_an_interface() {
    let graph = graph_of(&[
        ("greeter.ts", TS_GREETER),
        ("impl.ts", TS_IMPL),
        ("use.ts", TS_USE),
        ("shapes.ts", TS_SHAPES),
    ]);
    let expected = set(&[
        // Through a parameter typed as an interface: each class implementing it (or an
        // interface extending it), with the method its instances run — `Loud` inherits
        // `Polite.greet`; not `Unrelated.greet`.
        "use.ts#welcome -> impl.ts#English.greet (dispatch)",
        "use.ts#welcome -> impl.ts#Polite.greet (dispatch)",
        "use.ts#direct -> impl.ts#English.greet",
        // `this.area()`: the base's, then the overrides two levels down; `Circle`
        // overrides nothing; `super.area()` is the base's alone.
        "shapes.ts#Shape.describe -> shapes.ts#Shape.area",
        "shapes.ts#Shape.describe -> shapes.ts#Square.area (dispatch)",
        "shapes.ts#Shape.describe -> shapes.ts#Cube.area (dispatch)",
        "shapes.ts#Cube.area -> shapes.ts#Square.area",
        // An interface of the same file.
        "shapes.ts#start -> shapes.ts#Job.run (dispatch)",
    ]);
    let found = edges(&graph);
    assert_eq!(
        found,
        expected,
        "missing {:?}, extra {:?}",
        expected.difference(&found).collect::<Vec<_>>(),
        found.difference(&expected).collect::<Vec<_>>()
    );
    // The interface calls found their targets: not unresolved.
    assert!(graph.unresolved.is_empty(), "{:?}", unresolved(&graph));
}

#[test]
fn typescript_an_interface_no_class_implements_leaves_its_call_unresolved() {
    // The control: without `implements`, nothing is known to be a `Greeter` (a value may
    // still be one structurally): the call stays unresolved, and no edge is made.
    let impl_ts = TS_IMPL
        .replace(" implements Greeter", "")
        .replace(" implements LoudGreeter", "");
    let graph = graph_of(&[
        ("greeter.ts", TS_GREETER),
        ("impl.ts", &impl_ts),
        ("use.ts", TS_USE),
    ]);
    assert_eq!(
        edges(&graph),
        set(&["use.ts#direct -> impl.ts#English.greet"])
    );
    assert_eq!(
        unresolved(&graph),
        set(&["use.ts#welcome:5 g.greet"]),
        "{:?}",
        unresolved(&graph)
    );
}

#[test]
fn the_json_marks_dispatch_edges_and_only_them() {
    let graph = graph_of(&[("shapes.ts", TS_SHAPES)]);
    let json = keel_queries::callgraph::callgraph_json(&graph).to_text();
    assert!(
        json.contains(
            "{\"caller\":\"shapes.ts#Shape.describe\",\"callee\":\"shapes.ts#Square.area\",\"sites\":[6],\"dispatch\":true}"
        ),
        "{json}"
    );
    assert!(
        json.contains(
            "{\"caller\":\"shapes.ts#Shape.describe\",\"callee\":\"shapes.ts#Shape.area\",\"sites\":[6]}"
        ),
        "{json}"
    );
    assert_eq!(json.matches("\"dispatch\":true").count(), 3, "{json}");
    assert!(!json.contains("\"dispatch\":false"), "{json}");
}

#[test]
fn a_method_the_declared_class_lacks_dispatches_on_self_and_this_only() {
    // `self.hook()` / `this.hook()` in a class that lacks `hook`: its subclasses provide
    // it. The same name through a parameter of that class: a guess keel does not make.
    let python = graph_of(&[
        (
            "base.py",
            "class Base:\n    def run(self):\n        return self.hook()\n\n\ndef guess(b: Base):\n    return b.hook()\n",
        ),
        (
            "impl.py",
            "from base import Base\n\n\nclass Impl(Base):\n    def hook(self):\n        return 1\n",
        ),
    ]);
    assert_eq!(
        edges(&python),
        set(&["base.py#Base.run -> impl.py#Impl.hook (dispatch)"])
    );
    assert_eq!(unresolved(&python), set(&["base.py#guess:7 b.hook"]));
    let typescript = graph_of(&[(
        "base.js",
        "class Base {\n  run() {\n    return this.hook();\n  }\n}\n\nclass Impl extends Base {\n  hook() {\n    return 1;\n  }\n}\n\nfunction guess() {\n  const b = new Base();\n  return b.hook();\n}\n",
    )]);
    assert_eq!(
        edges(&typescript),
        set(&["base.js#Base.run -> base.js#Impl.hook (dispatch)"])
    );
    assert_eq!(unresolved(&typescript), set(&["base.js#guess:15 b.hook"]));
}
