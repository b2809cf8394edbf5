//! The Python call graph: a positive control first, then each resolution rule on a
//! minimal multi-file tree built in memory (blobs hashed into a detached database), what
//! is external and what is unresolved, tolerance, and incrementality read from salsa's
//! events.

use crate::support::{
    count, edges, fresh_graph as graph, graph_in, hashed_files, set_sources, source_tree,
    unresolved,
};
use keel_engine::KeelDatabase;
use keel_queries::callgraph::python::fragments::python_fragment;
use keel_queries::callgraph::python::{
    ReuseCounts, interface_at, python_facts, python_interface, python_program, python_resolve,
    reuse_counts,
};
use keel_queries::callgraph::{CallGraph, call_graph, graph_inputs};

fn has(graph: &CallGraph, edge: &str) -> bool {
    edges(graph).iter().any(|known| known == edge)
}

/// Asserts the graph's edges are exactly `expected` (sorted as the graph sorts them).
fn check_edges(files: &[(&str, &str)], expected: &[&str]) -> CallGraph {
    let graph = graph(files);
    let mut expected: Vec<String> = expected.iter().map(|e| (*e).to_owned()).collect();
    expected.sort();
    assert_eq!(edges(&graph), expected, "files: {files:#?}");
    graph
}

#[test]
fn positive_control_a_known_caller_appears_and_a_non_caller_does_not() {
    let graph = graph(&[
        (
            "app/main.py",
            "from helpers import greet\n\n\ndef run():\n    greet()\n",
        ),
        (
            "app/helpers.py",
            "def greet():\n    pass\n\n\ndef unused():\n    pass\n",
        ),
    ]);
    assert!(
        has(&graph, "app/main.py#run -> app/helpers.py#greet"),
        "the control caller is missing: no other test means anything; edges: {:?}",
        edges(&graph)
    );
    assert!(!has(&graph, "app/main.py#run -> app/helpers.py#unused"));
    assert_eq!(edges(&graph).len(), 1, "{:?}", edges(&graph));
    assert!(graph.unresolved.is_empty(), "{:?}", unresolved(&graph));
}

#[test]
fn every_edge_end_is_a_node_named_as_keel_names_units() {
    let graph = graph(&[(
        "m.py",
        "class Outer:\n    class Inner:\n        def deep(self):\n            helper()\n\n    def run(self):\n        def local():\n            return self.Inner().deep()\n        return local()\n\n\ndef helper():\n    pass\n\n\nOuter().run()\n",
    )]);
    let ids: Vec<&str> = graph.nodes.iter().map(|node| node.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "m.py#<module>",
            "m.py#Outer",
            "m.py#Outer.Inner",
            "m.py#Outer.Inner.deep",
            "m.py#Outer.run",
            "m.py#Outer.run.local",
            "m.py#helper",
        ]
    );
    for edge in &graph.edges {
        assert!(graph.node(&edge.caller).is_some(), "{edge:?}");
        assert!(graph.node(&edge.callee).is_some(), "{edge:?}");
    }
    let mut expected = vec![
        "m.py#<module> -> m.py#Outer.run",
        "m.py#Outer.Inner.deep -> m.py#helper",
        "m.py#Outer.run -> m.py#Outer.run.local",
        "m.py#Outer.run.local -> m.py#Outer.Inner.deep",
    ];
    expected.sort_unstable();
    assert_eq!(edges(&graph), expected);
}

#[test]
fn import_forms_resolve_to_the_module_they_name() {
    let pkg_init = "from .core import main\nfrom . import util\n";
    let core = "def main():\n    pass\n";
    let util = "def tool():\n    pass\n";
    let sub = "def deep():\n    pass\n";
    check_edges(
        &[
            ("pkg/__init__.py", pkg_init),
            ("pkg/core.py", core),
            ("pkg/util.py", util),
            ("pkg/sub/mod.py", sub),
            (
                "use.py",
                "import pkg.sub.mod\nimport pkg.util as u\nfrom pkg import main as entry, util\nfrom pkg.sub import mod\nimport pkg\n\n\ndef f():\n    pkg.sub.mod.deep()\n    u.tool()\n    entry()\n    util.tool()\n    mod.deep()\n    pkg.main()\n    pkg.util.tool()\n",
            ),
        ],
        &[
            "use.py#f -> pkg/sub/mod.py#deep",
            "use.py#f -> pkg/util.py#tool",
            "use.py#f -> pkg/core.py#main",
        ],
    );
}

#[test]
fn relative_imports_resolve_by_path_and_a_missing_one_is_unresolved() {
    let graph = check_edges(
        &[
            ("pkg/__init__.py", ""),
            ("pkg/a/__init__.py", ""),
            (
                "pkg/a/one.py",
                "from . import two\nfrom .two import g\nfrom ..b import h\n\n\ndef f():\n    two.g()\n    g()\n    h()\n",
            ),
            ("pkg/a/two.py", "def g():\n    pass\n"),
            (
                "pkg/b.py",
                "def h():\n    pass\n\n\ndef i():\n    from .a.missing import nothing\n    nothing()\n",
            ),
        ],
        &[
            "pkg/a/one.py#f -> pkg/a/two.py#g",
            "pkg/a/one.py#f -> pkg/b.py#h",
        ],
    );
    assert_eq!(unresolved(&graph), ["pkg/b.py#i:7 nothing"]);
}

#[test]
fn star_imports_follow_all_when_present_and_public_names_otherwise() {
    let graph = check_edges(
        &[
            (
                "lib/__init__.py",
                "from .impl import *\nfrom .hidden import *\n",
            ),
            (
                "lib/impl.py",
                "__all__ = ['shown']\n\n\ndef shown():\n    pass\n\n\ndef not_listed():\n    pass\n",
            ),
            (
                "lib/hidden.py",
                "def public():\n    pass\n\n\ndef _private():\n    pass\n",
            ),
            (
                "main.py",
                "from lib import *\n\nshown()\npublic()\nnot_listed()\n_private()\n",
            ),
        ],
        &[
            "main.py#<module> -> lib/hidden.py#public",
            "main.py#<module> -> lib/impl.py#shown",
        ],
    );
    assert_eq!(
        unresolved(&graph),
        [
            "main.py#<module>:5 not_listed",
            "main.py#<module>:6 _private"
        ]
    );
}

#[test]
fn absolute_imports_look_under_the_script_root_the_repository_root_and_src() {
    check_edges(
        &[
            ("src/tool/__init__.py", "def run():\n    pass\n"),
            (
                "src/tool/cli.py",
                "from tool import run\n\n\ndef main():\n    run()\n",
            ),
            ("tests/helpers.py", "def make():\n    pass\n"),
            (
                "tests/test_cli.py",
                "import helpers\nfrom tool.cli import main\n\n\ndef test():\n    helpers.make()\n    main()\n",
            ),
            (
                "scripts/go.py",
                "from tests.helpers import make\n\nmake()\n",
            ),
        ],
        &[
            "scripts/go.py#<module> -> tests/helpers.py#make",
            "src/tool/cli.py#main -> src/tool/__init__.py#run",
            "tests/test_cli.py#test -> src/tool/cli.py#main",
            "tests/test_cli.py#test -> tests/helpers.py#make",
        ],
    );
}

#[test]
fn calls_outside_the_tree_are_external_and_everything_else_unresolved() {
    let graph = graph(&[(
        "m.py",
        "import os\nimport requests\nfrom collections import OrderedDict\n\n\ndef f(obj, items):\n    os.path.join('a', 'b')\n    requests.get('u').json()\n    OrderedDict().items()\n    len(items)\n    ' '.join(items)\n    [1, 2].append(3)\n    obj.method()\n    undefined_name()\n    items[0].run()\n",
    )]);
    assert!(graph.edges.is_empty(), "{:?}", edges(&graph));
    assert_eq!(
        unresolved(&graph),
        [
            "m.py#f:13 obj.method",
            "m.py#f:14 undefined_name",
            "m.py#f:15 items[0].run",
        ]
    );
}

#[test]
fn a_local_definition_shadows_a_builtin() {
    check_edges(
        &[(
            "m.py",
            "def open(path):\n    pass\n\n\ndef f():\n    open('x')\n",
        )],
        &["m.py#f -> m.py#open"],
    );
}

#[test]
fn a_class_call_reaches_init_through_the_mro_and_gives_no_edge_without_one() {
    let graph = check_edges(
        &[
            (
                "base.py",
                "class Base:\n    def __init__(self):\n        pass\n",
            ),
            (
                "m.py",
                "from base import Base\n\n\nclass Child(Base):\n    pass\n\n\nclass Plain:\n    pass\n\n\nclass FromOutside(Exception):\n    pass\n\n\nChild()\nPlain()\nFromOutside()\n",
            ),
        ],
        &["m.py#<module> -> base.py#Base.__init__"],
    );
    assert!(graph.unresolved.is_empty(), "{:?}", unresolved(&graph));
}

#[test]
fn self_cls_and_super_dispatch_through_the_class_mro() {
    // `self.setup()` in `A` may run `B.setup` and `cls()` in `A.make` `B.__init__`
    // (dispatch); `super()`, `A.hello(self)` and a method no subclass overrides do not.
    check_edges(
        &[(
            "m.py",
            "class A:\n    def __init__(self):\n        self.setup()\n\n    def setup(self):\n        pass\n\n    @classmethod\n    def make(cls):\n        return cls()\n\n    def hello(self):\n        pass\n\n\nclass B(A):\n    def __init__(self):\n        super().__init__()\n\n    def setup(self):\n        super().setup()\n        A.hello(self)\n        self.hello()\n\n    @classmethod\n    def build(cls):\n        return cls.make()\n",
        )],
        &[
            "m.py#A.__init__ -> m.py#A.setup",
            "m.py#A.__init__ -> m.py#B.setup",
            "m.py#A.make -> m.py#A.__init__",
            "m.py#A.make -> m.py#B.__init__",
            "m.py#B.__init__ -> m.py#A.__init__",
            "m.py#B.build -> m.py#A.make",
            "m.py#B.setup -> m.py#A.hello",
            "m.py#B.setup -> m.py#A.setup",
        ],
    );
}

#[test]
fn the_mro_is_c3() {
    check_edges(
        &[(
            "m.py",
            "class A:\n    def f(self):\n        pass\n\n\nclass B(A):\n    pass\n\n\nclass C(A):\n    def f(self):\n        pass\n\n\nclass D(B, C):\n    pass\n\n\nD().f()\n",
        )],
        &["m.py#<module> -> m.py#C.f"],
    );
}

#[test]
fn static_and_class_methods_resolve_through_the_class() {
    check_edges(
        &[
            (
                "shapes.py",
                "class Shape:\n    @staticmethod\n    def unit():\n        pass\n\n    @classmethod\n    def default(cls):\n        pass\n",
            ),
            (
                "m.py",
                "import shapes\nfrom shapes import Shape\n\nshapes.Shape.unit()\nShape.default()\nShape().unit()\n",
            ),
        ],
        &[
            "m.py#<module> -> shapes.py#Shape.default",
            "m.py#<module> -> shapes.py#Shape.unit",
        ],
    );
}

#[test]
fn decorators_are_calls_and_decorated_functions_stay_callable() {
    check_edges(
        &[(
            "m.py",
            "import functools\n\n\ndef logged(f):\n    @functools.wraps(f)\n    def wrapper(*args):\n        return f(*args)\n    return wrapper\n\n\n@functools.lru_cache()\ndef cached():\n    pass\n\n\n@logged\ndef work():\n    pass\n\n\ndef main():\n    cached()\n    work()\n",
        )],
        &[
            "m.py#<module> -> m.py#logged",
            "m.py#logged.wrapper -> m.py#work",
            "m.py#main -> m.py#cached",
            // The function stands behind its wrapper: `main` calls the wrapper alone,
            // as at runtime.
            "m.py#main -> m.py#logged.wrapper",
        ],
    );
}

#[test]
fn nested_functions_and_default_arguments_are_scoped_lexically() {
    check_edges(
        &[(
            "m.py",
            "def helper():\n    pass\n\n\ndef default():\n    return 1\n\n\ndef outer():\n    def helper():\n        pass\n\n    def inner(value=default()):\n        helper()\n    inner()\n\n\nclass K:\n    helper = 1\n\n    def m(self):\n        helper()\n",
        )],
        &[
            // The default is evaluated in `outer` when `inner` is defined.
            "m.py#outer -> m.py#default",
            "m.py#outer -> m.py#outer.inner",
            "m.py#outer.inner -> m.py#outer.helper",
            // A class body's names are invisible to its methods.
            "m.py#K.m -> m.py#helper",
        ],
    );
}

#[test]
fn simple_local_flow_follows_assignments_in_order() {
    check_edges(
        &[(
            "m.py",
            "class Client:\n    def send(self):\n        pass\n\n\ndef first():\n    pass\n\n\ndef second():\n    pass\n\n\ndef make():\n    return Client()\n\n\ndef run():\n    c = Client()\n    c.send()\n    made = make()\n    made.send()\n    f = first\n    f = second\n    f()\n    a, b = first, second\n    b()\n",
        )],
        // `Client` has no `__init__`: its calls give no edge.
        &[
            "m.py#run -> m.py#Client.send",
            "m.py#run -> m.py#make",
            "m.py#run -> m.py#second",
        ],
    );
}

#[test]
fn calls_in_lambdas_and_comprehensions_belong_to_the_nearest_named_callable() {
    check_edges(
        &[(
            "m.py",
            "def work(x):\n    return x\n\n\ndef run(items):\n    key = lambda item: work(item)\n    return [work(i) for i in items], key\n\n\nvalues = [work(i) for i in range(3)]\n",
        )],
        &["m.py#<module> -> m.py#work", "m.py#run -> m.py#work"],
    );
}

#[test]
fn a_file_that_parses_in_part_keeps_the_calls_of_its_standing_units() {
    let graph = graph(&[(
        "m.py",
        "def helper():\n    pass\n\n\ndef good():\n    helper()\n\n\nclass K:\n    def fine(self):\n        helper()\n\n    def broken(self:\n        other()\n\n\ndef bad(:\n    other()\n\n\ndef other():\n    pass\n\n\ndef caller():\n    bad()\n    other()\n    K().fine()\n",
    )]);
    assert_eq!(graph.partial, ["m.py"]);
    let ids: Vec<&str> = graph.nodes.iter().map(|node| node.id.as_str()).collect();
    assert_eq!(
        ids,
        ["m.py#<module>", "m.py#caller", "m.py#good", "m.py#helper"]
    );
    // `K` (it holds a broken method), `bad` and `other` (named in a region that did not
    // parse) are left out: the calls inside them are placed on no caller (not on the
    // module either), and a call to one of them is unresolved.
    assert_eq!(edges(&graph), ["m.py#good -> m.py#helper"]);
    assert_eq!(
        unresolved(&graph),
        [
            "m.py#caller:26 bad",
            "m.py#caller:27 other",
            "m.py#caller:28 K().fine"
        ]
    );
}

#[test]
fn callee_text_is_the_callee_as_written_on_one_line() {
    let graph = graph(&[(
        "m.py",
        "def f(client):\n    client.session \\\n        .refresh()\n    client.pool.get(\n        1)\n",
    )]);
    assert_eq!(
        unresolved(&graph),
        [
            "m.py#f:3 client.session.refresh",
            "m.py#f:4 client.pool.get"
        ]
    );
}

const A_PY: &str = "from b import api\n\n\ndef use():\n    api()\n";
const C_PY: &str = "import b\n\n\ndef also():\n    b.api()\n";
const B_PY: &str = "def api():\n    return helper()\n\n\ndef helper():\n    return 1\n\n\ndef spare():\n    return 2\n";
/// `api`'s body makes one more call, three lines lower: the interface is unchanged.
const B_PY_BODY_EDITED: &str = "\n\n\ndef api():\n    spare()\n    return helper()\n\n\ndef helper():\n    return 1\n\n\ndef spare():\n    return 2\n";
/// `api` is renamed: the export table changed.
const B_PY_RENAMED: &str = "def api2():\n    return helper()\n\n\ndef helper():\n    return 1\n\n\ndef spare():\n    return 2\n";

#[test]
fn editing_one_function_body_re_resolves_only_that_file() {
    let db = KeelDatabase::detached();
    let cold = graph_in(&db, &[("a.py", A_PY), ("b.py", B_PY), ("c.py", C_PY)]);
    let run = db.take_executed_queries();
    assert_eq!(count(&run, python_facts), 3, "{run:?}");
    assert_eq!(count(&run, python_resolve), 3, "{run:?}");
    assert!(has(&cold, "a.py#use -> b.py#api"));
    assert!(has(&cold, "c.py#also -> b.py#api"));

    let edited = graph_in(
        &db,
        &[("a.py", A_PY), ("b.py", B_PY_BODY_EDITED), ("c.py", C_PY)],
    );
    let run = db.take_executed_queries();
    assert_eq!(
        count(&run, python_facts),
        1,
        "only b.py's new image is read: {run:?}"
    );
    assert_eq!(count(&run, python_interface), 1, "{run:?}");
    assert_eq!(
        count(&run, python_program),
        1,
        "the new tree's program: {run:?}"
    );
    assert_eq!(
        count(&run, python_resolve),
        1,
        "b.py's interface is unchanged: a.py and c.py are not re-resolved: {run:?}"
    );
    assert!(
        has(&edited, "b.py#api -> b.py#spare"),
        "the edit's own call resolved"
    );
    assert!(has(&edited, "a.py#use -> b.py#api"));
    assert!(has(&edited, "c.py#also -> b.py#api"));
    let fresh = graph(&[("a.py", A_PY), ("b.py", B_PY_BODY_EDITED), ("c.py", C_PY)]);
    assert_eq!(edited, fresh, "a warm answer equals a cold one");

    let renamed = graph_in(
        &db,
        &[("a.py", A_PY), ("b.py", B_PY_RENAMED), ("c.py", C_PY)],
    );
    let run = db.take_executed_queries();
    assert_eq!(count(&run, python_facts), 1, "{run:?}");
    assert_eq!(
        count(&run, python_resolve),
        3,
        "b.py's export table changed: every file is re-resolved: {run:?}"
    );
    assert!(!has(&renamed, "a.py#use -> b.py#api"));
    assert_eq!(
        unresolved(&renamed),
        ["a.py#use:5 api", "c.py#also:5 b.api"],
        "the callers of the renamed function are now unresolved, not dropped"
    );

    graph_in(
        &db,
        &[("a.py", A_PY), ("b.py", B_PY_RENAMED), ("c.py", C_PY)],
    );
    let run = db.take_executed_queries();
    assert!(
        count(&run, python_resolve) == 0 && count(&run, python_facts) == 0,
        "the same tree again recomputes nothing: {run:?}"
    );
}

/// A long-lived tree moved to an edit (`set_sources`, as a watch loop or a second patch
/// does): a body edit leaves every path and interface equal, so the program is not built
/// again; an edit of the export table builds it.
#[test]
fn a_body_edit_of_the_same_tree_keeps_its_program() {
    let mut db = KeelDatabase::detached();
    let tree = source_tree(&db, &[("a.py", A_PY), ("b.py", B_PY), ("c.py", C_PY)]);
    let _ = call_graph(&db, tree);
    let run = db.take_executed_queries();
    assert_eq!(count(&run, python_program), 1, "the control: {run:?}");
    assert_eq!(count(&run, interface_at), 3, "{run:?}");

    let body = hashed_files(
        &db,
        &[("a.py", A_PY), ("b.py", B_PY_BODY_EDITED), ("c.py", C_PY)],
    );
    set_sources(&mut db, tree, graph_inputs(&body));
    let edited = call_graph(&db, tree).clone();
    let run = db.take_executed_queries();
    assert_eq!(count(&run, interface_at), 1, "b.py's alone: {run:?}");
    assert_eq!(count(&run, python_program), 0, "{run:?}");
    assert_eq!(count(&run, python_resolve), 1, "{run:?}");
    let fresh = graph(&[("a.py", A_PY), ("b.py", B_PY_BODY_EDITED), ("c.py", C_PY)]);
    assert_eq!(edited, fresh, "a warm answer equals a cold one");

    let renamed = hashed_files(
        &db,
        &[("a.py", A_PY), ("b.py", B_PY_RENAMED), ("c.py", C_PY)],
    );
    set_sources(&mut db, tree, graph_inputs(&renamed));
    let after = call_graph(&db, tree).clone();
    let run = db.take_executed_queries();
    assert_eq!(
        count(&run, python_program),
        1,
        "b.py's interface changed: {run:?}"
    );
    assert_eq!(
        after,
        graph(&[("a.py", A_PY), ("b.py", B_PY_RENAMED), ("c.py", C_PY)])
    );
}

#[test]
fn annotations_declare_types_and_aliases_or_type_variables_decide_nothing() {
    let graph = check_edges(
        &[
            (
                "service.py",
                "class Service:\n    def start(self):\n        pass\n\n    def clone(self) -> \"Service\":\n        return make()\n",
            ),
            (
                "m.py",
                "from typing import TYPE_CHECKING, Callable, Optional, TypeVar\nfrom pathlib import Path\n\nif TYPE_CHECKING:\n    from service import Service\n\nT = TypeVar(\"T\")\nHandler = Callable[[], None]\n\n\nclass Holder:\n    service: Service\n\n\ndef run(s: Optional[\"Service\"], p: Path, t: T, h: Handler, f: Callable, kind: type[Service]) -> None:\n    s.start()\n    s.clone().start()\n    p.exists()\n    t.anything()\n    h()\n    f()\n    kind().start()\n    Holder().service.start()\n",
            ),
        ],
        &[
            "m.py#run -> service.py#Service.clone",
            "m.py#run -> service.py#Service.start",
        ],
    );
    assert_eq!(
        unresolved(&graph),
        [
            "m.py#run:19 t.anything",
            "m.py#run:20 h",
            "m.py#run:21 f",
            "service.py#Service.clone:6 make",
        ],
        "a type variable, an alias the tree spells and `Callable` say nothing: unresolved"
    );
}

#[test]
fn super_with_arguments_starts_after_the_class_it_names() {
    check_edges(
        &[(
            "m.py",
            "class A:\n    def go(self):\n        pass\n\n\nclass B(A):\n    def go(self):\n        def later():\n            return super(B, self).go()\n        return later()\n",
        )],
        &[
            "m.py#B.go -> m.py#B.go.later",
            "m.py#B.go.later -> m.py#A.go",
        ],
    );
}

#[test]
fn a_module_whose_text_cannot_be_decoded_is_read_as_empty_and_its_names_unresolved() {
    // Control: the same module in a declared encoding keel decodes gives the edge.
    let main = "from codec import f\n\n\ndef main():\n    return f()\n";
    let decoded = graph(&[
        (
            "codec.py",
            "# -*- coding: latin-1 -*-\ndef f():\n    return 1\n",
        ),
        ("main.py", main),
    ]);
    assert!(has(&decoded, "main.py#main -> codec.py#f"), "{decoded:#?}");
    // utf-16 is a declared encoding keel cannot decode: the module is partial, and the
    // call of its `f` is unresolved (it used to panic on the empty module).
    let undecoded = graph(&[
        (
            "codec.py",
            "# -*- coding: utf-16 -*-\ndef f():\n    return 1\n",
        ),
        ("main.py", main),
    ]);
    assert_eq!(undecoded.partial, ["codec.py"]);
    assert!(edges(&undecoded).is_empty(), "{undecoded:#?}");
    assert_eq!(unresolved(&undecoded), ["main.py#main:5 f"]);
}

const SERVICE_PY: &str = "\
import helpers

def load(path):
    return helpers.read(path)

class Service:
    def __init__(self, path):
        self.data = load(path)

    def run(self):
        return self.step()

    def step(self):
        return helpers.write(self.data)
";

/// Each function of the module's body and of a top-level class's body is a fragment
/// memoized by its text: an edit of one body walks that function alone, and the others'
/// chunks (their lines included) are spliced where they now sit.
#[test]
fn an_edit_of_one_body_walks_that_function_alone() {
    let helpers = "def read(p):\n    return p\n\ndef write(d):\n    return d\n";
    let mut db = KeelDatabase::detached();
    let tree = source_tree(&db, &[("helpers.py", helpers), ("service.py", SERVICE_PY)]);
    let _ = call_graph(&db, tree);
    let run = db.take_executed_queries();
    assert_eq!(
        count(&run, python_fragment),
        6,
        "the control: every function is walked once ({run:?})"
    );

    // `Service.run` gains a call to `load`, a line above everything after it.
    let run_edited = SERVICE_PY.replace(
        "    def run(self):\n",
        "    def run(self):\n        load(self.data)\n",
    );
    let edited = [("helpers.py", helpers), ("service.py", run_edited.as_str())];
    let hashed = graph_inputs(&hashed_files(&db, &edited));
    set_sources(&mut db, tree, hashed);
    let warm = call_graph(&db, tree).clone();
    let run = db.take_executed_queries();
    assert_eq!(count(&run, python_facts), 1, "service.py's: {run:?}");
    assert_eq!(count(&run, python_fragment), 1, "Service.run's: {run:?}");
    assert!(
        has(&warm, "service.py#Service.run -> service.py#load"),
        "the edit's call: {:?}",
        edges(&warm)
    );
    let step = warm
        .edges
        .iter()
        .find(|edge| edge.caller.to_string() == "service.py#Service.step")
        .map(|edge| edge.sites.clone());
    assert_eq!(
        step,
        Some(vec![15]),
        "a moved function's lines move with it"
    );
    assert_eq!(warm, graph(&edited), "a warm answer equals a cold one");
}

/// Resolves `before` cold in a long-lived database, then `after` (the same file edited
/// inside one function) in it: the warm graph, and how many groups of sites the warm
/// resolution replayed and evaluated. The warm graph must equal a fresh database's.
fn replayed_edit(before: &str, after: &str) -> (CallGraph, ReuseCounts) {
    let mut db = KeelDatabase::detached();
    let tree = source_tree(&db, &[("mod.py", before)]);
    let _ = call_graph(&db, tree);
    let hashed = graph_inputs(&hashed_files(&db, &[("mod.py", after)]));
    set_sources(&mut db, tree, hashed);
    let start = reuse_counts(&db);
    let warm = call_graph(&db, tree).clone();
    let counts = reuse_counts(&db).since(start);
    assert_eq!(
        warm,
        graph(&[("mod.py", after)]),
        "a warm answer equals a cold one"
    );
    (warm, counts)
}

const ARGUMENTS_PY: &str = "def apply(fn):
    fn()

def helper_a():
    pass

def helper_b():
    pass

def caller():
    apply(helper_a)

def bystander():
    helper_b()
";

#[test]
fn an_edit_that_passes_another_argument_re_resolves_the_callee_it_flows_into() {
    // `apply`'s site reads the argument `caller` passes: an expression of `caller`, the
    // edited fragment; `apply` comes first in the file, so only its later rounds read it.
    let after = ARGUMENTS_PY.replace("apply(helper_a)", "apply(helper_b)");
    let (warm, counts) = replayed_edit(ARGUMENTS_PY, &after);
    assert!(
        has(&warm, "mod.py#apply -> mod.py#helper_b"),
        "{:?}",
        edges(&warm)
    );
    assert!(
        !has(&warm, "mod.py#apply -> mod.py#helper_a"),
        "{:?}",
        edges(&warm)
    );
    assert!(
        counts.groups_replayed > 0 && counts.groups_evaluated > 0,
        "the edit replays the groups it cannot change: {counts:?}"
    );
}

const ATTRIBUTES_PY: &str = "class Box:
    pass

BOX = Box()

def fill():
    BOX.alpha = helper

def use():
    BOX.beta()

def helper():
    pass
";

#[test]
fn an_edit_that_stores_another_attribute_re_resolves_the_readers_of_that_attribute() {
    // `use` reads `BOX.beta` through the stores on `Box`'s instances, and evaluates none
    // of `fill`'s expressions while `fill` stores only `alpha`: the store's change of
    // name alone must send it back to evaluation.
    let before = graph(&[("mod.py", ATTRIBUTES_PY)]);
    assert!(
        !has(&before, "mod.py#use -> mod.py#helper"),
        "{:?}",
        edges(&before)
    );
    let after = ATTRIBUTES_PY.replace("BOX.alpha = helper", "BOX.beta = helper");
    let (warm, counts) = replayed_edit(ATTRIBUTES_PY, &after);
    assert!(
        has(&warm, "mod.py#use -> mod.py#helper"),
        "{:?}",
        edges(&warm)
    );
    assert!(counts.groups_replayed > 0, "{counts:?}");
}

const SHIFTED_PY: &str = "def helper():
    pass

def edited():
    pass

def apply(fn):
    edited()
    fn()

def caller():
    apply(helper)
";

#[test]
fn an_edit_that_grows_a_function_shifts_the_replayed_ids_after_it() {
    // `edited` gains a statement: every expression after it is renumbered. `caller`'s
    // replayed run passes its argument to `apply`, which calls `edited` and so is
    // evaluated again: it must read the argument under its new number.
    let after = SHIFTED_PY.replace(
        "def edited():\n    pass",
        "def edited():\n    value = 1\n    pass",
    );
    let (warm, counts) = replayed_edit(SHIFTED_PY, &after);
    assert!(
        has(&warm, "mod.py#apply -> mod.py#helper"),
        "{:?}",
        edges(&warm)
    );
    assert!(counts.groups_replayed > 0, "{counts:?}");
}

const MAKER_PY: &str = "class Alpha:
    def go(self):
        pass

class Beta:
    def go(self):
        pass

def make():
    return Alpha()

def other():
    pass
";

const USER_PY: &str = "from maker import make

def use():
    make().go()
";

#[test]
fn an_edit_inside_one_function_keeps_the_interface_unless_that_function_changes_it() {
    let mut db = KeelDatabase::detached();
    let tree = source_tree(&db, &[("maker.py", MAKER_PY), ("user.py", USER_PY)]);
    let cold = call_graph(&db, tree).clone();
    assert!(
        has(&cold, "user.py#use -> maker.py#Alpha.go"),
        "{:?}",
        edges(&cold)
    );

    // A body edit that returns nothing new: the interface is the one made before.
    let quiet = MAKER_PY.replace("def other():\n    pass", "def other():\n    value = 1");
    let files = [("maker.py", quiet.as_str()), ("user.py", USER_PY)];
    let before = reuse_counts(&db);
    let hashed = graph_inputs(&hashed_files(&db, &files));
    set_sources(&mut db, tree, hashed);
    let warm = call_graph(&db, tree).clone();
    assert_eq!(
        reuse_counts(&db).since(before).interfaces_reused,
        1,
        "maker.py's interface is reused"
    );
    assert_eq!(warm, graph(&files), "a warm answer equals a cold one");

    // `make` now returns a `Beta`: `user.py`'s call must follow it.
    let loud = quiet.replace("return Alpha()", "return Beta()");
    let files = [("maker.py", loud.as_str()), ("user.py", USER_PY)];
    let hashed = graph_inputs(&hashed_files(&db, &files));
    set_sources(&mut db, tree, hashed);
    let warm = call_graph(&db, tree).clone();
    assert!(
        has(&warm, "user.py#use -> maker.py#Beta.go"),
        "{:?}",
        edges(&warm)
    );
    assert_eq!(warm, graph(&files), "a warm answer equals a cold one");
}
