//! What the Python call graph reaches besides written calls, each shape on a hand-written
//! fixture whose every runtime call between its own callables (run under `python3` with
//! `sys.setprofile`: `python_runtime`) must be an edge of keel's graph, with a control
//! per shape that must get no edge: decorator wrappers calling the functions their
//! decorator is applied to (in the same file and across files), property getters and
//! setters, and calls on values of builtin type (external, not unresolved).

use crate::python_runtime::runtime_pairs;
use crate::support::{edges, fresh_graph as graph, unresolved};
use keel_queries::callgraph::CallGraph;

/// The graph of `files`, after checking that every call the fixture makes at runtime
/// (running `entry`) between two of its callables is one of its edges. The runtime must
/// have made at least `at_least` such calls (a tracer that saw nothing proves nothing).
fn graph_agreeing_with_runtime(files: &[(&str, &str)], entry: &str, at_least: usize) -> CallGraph {
    let graph = graph(files);
    let known = edges(&graph);
    if let Some(pairs) = runtime_pairs(files, entry) {
        assert!(
            pairs.len() >= at_least,
            "the tracer saw {} calls, expected at least {at_least}: {pairs:#?}",
            pairs.len()
        );
        let missing: Vec<String> = pairs
            .iter()
            .map(|(caller, callee)| format!("{caller} -> {callee}"))
            .filter(|pair| !known.contains(pair))
            .collect();
        assert!(
            missing.is_empty(),
            "calls made at runtime that keel's graph lacks: {missing:#?}\nkeel's edges: {known:#?}"
        );
    }
    graph
}

fn assert_edge(graph: &CallGraph, edge: &str) {
    assert!(
        edges(graph).iter().any(|known| known == edge),
        "missing {edge}; edges: {:#?}",
        edges(graph)
    );
}

fn assert_no_edge(graph: &CallGraph, edge: &str) {
    assert!(
        !edges(graph).iter().any(|known| known == edge),
        "unexpected {edge}; edges: {:#?}",
        edges(graph)
    );
}

const DECO: &str = r#"import functools


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def retry(n):
    def decorate(fn):
        def attempt(*args):
            for _ in range(n):
                return fn(*args)
        return attempt
    return decorate


def setupmethod(f):
    def wrapper_func(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    return wrapper_func


def unused(fn):
    def never(*args):
        return fn(*args)
    return never
"#;

const APP: &str = r#"from deco import logged, retry as again, setupmethod


@logged
def fetch():
    return 1


@again(3)
def sync():
    return 2


def plain():
    return 3


class App:
    @setupmethod
    def route(self, rule):
        return rule


def runner():
    fetch()
    sync()
    plain()
    App().route("/")


runner()
"#;

/// A decorator of another file defined as its own function and as another decorator's
/// (`logged` again, not the one `deco` defines): its functions are not `deco`'s.
const OTHER: &str = r#"def logged(fn):
    return fn


@logged
def quiet():
    return 4


quiet()
"#;

#[test]
fn a_wrapper_calls_each_function_its_decorator_is_applied_to_in_other_files() {
    let files = [("deco.py", DECO), ("app.py", APP), ("other.py", OTHER)];
    let graph = graph_agreeing_with_runtime(&files, "app.py", 8);
    for edge in [
        "app.py#runner -> deco.py#logged.wrapper",
        "deco.py#logged.wrapper -> app.py#fetch",
        "app.py#runner -> deco.py#retry.decorate.attempt",
        "deco.py#retry.decorate.attempt -> app.py#sync",
        "deco.py#setupmethod.wrapper_func -> app.py#App.route",
    ] {
        assert_edge(&graph, edge);
    }
    // Controls: an undecorated function has no wrapper caller; a decorator of the same
    // name in another file passes its functions to its own wrapper, not to `deco`'s; a
    // decorator applied to nothing calls nothing keel can name.
    for wrapper in [
        "deco.py#logged.wrapper",
        "deco.py#retry.decorate.attempt",
        "deco.py#setupmethod.wrapper_func",
    ] {
        assert_no_edge(&graph, &format!("{wrapper} -> app.py#plain"));
        assert_no_edge(&graph, &format!("{wrapper} -> other.py#quiet"));
    }
    assert_no_edge(&graph, "deco.py#logged.wrapper -> app.py#sync");
    assert_no_edge(&graph, "deco.py#retry.decorate.attempt -> app.py#fetch");
    let unresolved = unresolved(&graph);
    assert!(
        unresolved.contains(&"deco.py#unused.never:28 fn".to_owned()),
        "{unresolved:#?}"
    );
    // The wrappers' calls of their parameter resolved: none is unresolved.
    for site in &unresolved {
        assert!(
            !site.starts_with("deco.py#logged.wrapper")
                && !site.starts_with("deco.py#retry.decorate.attempt"),
            "{site}"
        );
    }
}

#[test]
fn a_wrapper_calls_each_function_its_decorator_is_applied_to_in_its_own_file() {
    let text = format!(
        "{DECO}\n\n{}",
        APP.replace(
            "from deco import logged, retry as again, setupmethod\n",
            "again = retry\n"
        )
    );
    let files = [("app.py", text.as_str())];
    let graph = graph_agreeing_with_runtime(&files, "app.py", 8);
    for edge in [
        "app.py#logged.wrapper -> app.py#fetch",
        "app.py#retry.decorate.attempt -> app.py#sync",
        "app.py#setupmethod.wrapper_func -> app.py#App.route",
    ] {
        assert_edge(&graph, edge);
    }
    assert_no_edge(&graph, "app.py#logged.wrapper -> app.py#plain");
}

/// flask's `setupmethod` (`src/flask/sansio/scaffold.py`): the wrapper is handed back
/// through `update_wrapper` and `t.cast`, which return it, so a call of a decorated
/// method reaches the wrapper, as at runtime (checked under `python3`), and the
/// wrapper's `f(self, ...)` reaches every method decorated with it, in its own file and
/// in the files that import it. The wrapper stands for the method: the call reaches the
/// method too, and what the method returns is what the call returns (`register`).
#[test]
fn flask_setupmethod_reaches_the_methods_it_decorates_in_every_file() {
    let scaffold = r#"import typing as t
from functools import update_wrapper

F = t.TypeVar("F", bound=t.Callable[..., t.Any])


def setupmethod(f: F) -> F:
    f_name = f.__name__

    def wrapper_func(self: "Scaffold", *args: t.Any, **kwargs: t.Any) -> t.Any:
        self._check_setup_finished(f_name)
        return f(self, *args, **kwargs)

    return t.cast(F, update_wrapper(wrapper_func, f))


class Scaffold:
    def _check_setup_finished(self, f_name: str) -> None:
        raise NotImplementedError

    @setupmethod
    def route(self, rule: str):
        def decorator(f):
            return f

        return decorator
"#;
    let app = r#"from .scaffold import Scaffold, setupmethod


class App(Scaffold):
    def _check_setup_finished(self, f_name: str) -> None:
        pass

    @setupmethod
    def register_blueprint(self, blueprint) -> None:
        pass

    def teardown(self) -> None:
        pass


def index() -> None:
    pass


def make() -> None:
    app = App()
    register = app.route("/")
    register(index)
    app.register_blueprint(None)
"#;
    let files = [
        ("flask/__init__.py", ""),
        ("flask/scaffold.py", scaffold),
        ("flask/app.py", app),
        ("run.py", "from flask.app import make\n\nmake()\n"),
    ];
    let graph = graph_agreeing_with_runtime(&files, "run.py", 4);
    for edge in [
        "flask/scaffold.py#setupmethod.wrapper_func -> flask/scaffold.py#Scaffold.route",
        "flask/scaffold.py#setupmethod.wrapper_func -> flask/app.py#App.register_blueprint",
        "flask/app.py#make -> flask/scaffold.py#setupmethod.wrapper_func",
    ] {
        assert_edge(&graph, edge);
    }
    // The method stands behind the wrapper: the call's edge is the wrapper's alone (as
    // at runtime), and what the method returns flows out of the call (`register(index)`
    // calls `route`'s `decorator`).
    assert_no_edge(
        &graph,
        "flask/app.py#make -> flask/scaffold.py#Scaffold.route",
    );
    assert_edge(
        &graph,
        "flask/app.py#make -> flask/scaffold.py#Scaffold.route.decorator",
    );
    assert_no_edge(
        &graph,
        "flask/scaffold.py#setupmethod.wrapper_func -> flask/app.py#App.teardown",
    );
    assert!(
        !unresolved(&graph)
            .iter()
            .any(|site| site.starts_with("flask/scaffold.py#setupmethod.wrapper_func")),
        "{:#?}",
        unresolved(&graph)
    );
}

const SHAPES: &str = r#"import functools


class Base:
    def __init__(self):
        self._size = 1
        self.plain = 2

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value

    @functools.cached_property
    def area(self):
        return self.size * 2

    @property
    def helper(self):
        return Helper()

    def method(self):
        return 3


class Helper:
    def run(self):
        return 1


class Child(Base):
    @property
    def size(self):
        return super().size + 1
"#;

const USE_SHAPES: &str = r#"from shapes import Base, Child


def declared(b: Base):
    return b.size


def unknown(thing):
    return thing.size


def main():
    b = Base()
    print(b.size, b.area, b.plain)
    b.size = 5
    b.size += 1
    b.helper.run()
    bound = b.method
    c = Child()
    print(c.size, Base.size)
    declared(b)
    return bound


main()
"#;

#[test]
fn property_reads_call_the_getter_and_assignments_the_setter() {
    let files = [("shapes.py", SHAPES), ("main.py", USE_SHAPES)];
    let graph = graph_agreeing_with_runtime(&files, "main.py", 10);
    for edge in [
        // A read through an instance, a cached property, a property whose last binding
        // is its setter (read: its getter), `super().size` in an override, a declared
        // parameter.
        "main.py#main -> shapes.py#Base.size",
        "main.py#main -> shapes.py#Base.area",
        "main.py#main -> shapes.py#Base.helper",
        "main.py#main -> shapes.py#Helper.run",
        "main.py#main -> shapes.py#Child.size",
        "shapes.py#Base.area -> shapes.py#Base.size",
        "shapes.py#Child.size -> shapes.py#Base.size",
        "main.py#declared -> shapes.py#Base.size",
    ] {
        assert_edge(&graph, edge);
    }
    // The getter and the setter are one node: its sites are the read (14), the
    // assignment (15) and both of `+=` (16).
    let sites = |caller: &str, callee: &str| {
        graph
            .edges
            .iter()
            .find(|edge| edge.caller.as_str() == caller && edge.callee.as_str() == callee)
            .map(|edge| edge.sites.clone())
    };
    assert_eq!(
        sites("main.py#main", "shapes.py#Base.size"),
        Some(vec![14, 15, 16])
    );
    // Controls: a method read but not called, a plain attribute, the property read on
    // its class (the property object), a receiver keel cannot type.
    // `Child.size` is read at line 20 (`c.size`), and reached by dispatch from the reads
    // and assignments of `b.size` (14–16: an instance of `Base` may be a `Child`'s).
    assert_no_edge(&graph, "main.py#main -> shapes.py#Base.method");
    assert_eq!(
        sites("main.py#main", "shapes.py#Child.size"),
        Some(vec![14, 15, 16, 20])
    );
    assert!(
        !edges(&graph)
            .iter()
            .any(|edge| edge.starts_with("main.py#unknown ->"))
    );
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

#[test]
fn a_setter_alone_is_called_by_assignment_and_a_getter_alone_by_reads() {
    let files = [(
        "m.py",
        "class Box:\n    def __init__(self):\n        self.content = 0\n        self.label = 'x'\n\n    @property\n    def content(self):\n        return self._content\n\n    @content.setter\n    def content(self, value):\n        self._content = value\n\n    @property\n    def label(self):\n        return 'box'\n\n\nbox = Box()\nbox.content\n",
    )];
    let graph = graph(&files);
    let sites: Vec<(String, Vec<u32>)> = graph
        .edges
        .iter()
        .map(|edge| {
            (
                format!("{} -> {}", edge.caller, edge.callee),
                edge.sites.clone(),
            )
        })
        .collect();
    // `self.content = 0` in `__init__` calls the setter (line 3); `self.label = 'x'`
    // names a property with no setter: no call (Python raises there, keel draws no edge).
    assert!(
        sites.contains(&("m.py#Box.__init__ -> m.py#Box.content".to_owned(), vec![3])),
        "{sites:#?}"
    );
    assert!(
        !sites
            .iter()
            .any(|(edge, _)| edge == "m.py#Box.__init__ -> m.py#Box.label"),
        "{sites:#?}"
    );
    assert!(
        sites.contains(&("m.py#<module> -> m.py#Box.content".to_owned(), vec![20])),
        "{sites:#?}"
    );
}

/// flask's `ConfigAttribute`: a class attribute holding an instance of a class that
/// defines `__get__` and `__set__`.
#[test]
fn a_descriptor_read_calls_its_get_and_an_assignment_its_set() {
    let config = "class Setting:\n    def __init__(self, key):\n        self.key = key\n\n    def __get__(self, obj, owner=None):\n        if obj is None:\n            return self\n        return obj.values.get(self.key)\n\n    def __set__(self, obj, value):\n        obj.values[self.key] = value\n\n\nclass Plain:\n    def __init__(self):\n        self.n = 0\n\n\nclass App:\n    debug = Setting(\"DEBUG\")\n    other = Plain()\n\n    def __init__(self):\n        self.values = {}\n";
    let main = "from config import App\n\n\ndef run():\n    app = App()\n    app.debug = True\n    print(app.debug, app.other)\n\n\nrun()\n";
    let files = [("config.py", config), ("main.py", main)];
    let graph = graph_agreeing_with_runtime(&files, "main.py", 4);
    let sites = |callee: &str| {
        graph
            .edges
            .iter()
            .find(|edge| edge.caller.as_str() == "main.py#run" && edge.callee.as_str() == callee)
            .map(|edge| edge.sites.clone())
    };
    assert_eq!(sites("config.py#Setting.__set__"), Some(vec![6]));
    assert_eq!(sites("config.py#Setting.__get__"), Some(vec![7]));
    // Control: an attribute holding an instance of a class without `__get__` calls
    // nothing (its `__init__` ran when the class body did).
    assert_eq!(sites("config.py#Plain.__init__"), None);
}

#[test]
fn calls_on_values_of_builtin_type_are_external_and_unknown_ones_unresolved() {
    // The functions are called from another file: keel does not follow those arguments,
    // so what their parameters are is unknown but for what the functions say of them.
    let lib = r#"def configure(obj, *args, **kwargs):
    kwargs.setdefault("x", 1)
    kwargs.get("y")
    args.count(1)
    ", ".join(["a"])
    b"x".decode()
    {"a": 1}.items()
    [1].copy()
    if obj:
        obj.run()
        kwargs["callback"]()
        args[0].go()
        kwargs.pop("z").run()


def convert(value, other):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    elif isinstance(value, (list, tuple)) and other:
        return value.count(1)
    else:
        value.decode()
    assert isinstance(other, str)
    other.strip()
    return value.strip()
"#;
    let main = "import lib

lib.configure(None)
lib.convert(b'x', 'y')
";
    let files = [("lib.py", lib), ("main.py", main)];
    let graph = graph_agreeing_with_runtime(&files, "main.py", 2);
    // Every call on a `**kwargs` dict, a `*args` tuple, a literal, and a value an
    // `isinstance` or an `assert isinstance` says is of a builtin type is external;
    // what keel cannot type stays unresolved: a parameter, an item of `*args` or
    // `**kwargs` (read or returned by a method), a value outside the `isinstance` that
    // narrowed it (its `else`, and after it).
    assert_eq!(
        unresolved(&graph),
        [
            "lib.py#configure:10 obj.run",
            "lib.py#configure:11 kwargs[\"callback\"]",
            "lib.py#configure:12 args[0].go",
            "lib.py#configure:13 kwargs.pop(\"z\").run",
            "lib.py#convert:22 value.decode",
            "lib.py#convert:25 value.strip",
        ]
    );
}

#[test]
fn isinstance_narrows_a_local_to_a_class_of_another_file_inside_its_block_only() {
    let kinds = "class Base:\n    def run(self):\n        return 1\n\n\nclass Special(Base):\n    def extra(self):\n        return 2\n";
    // `handle` is called from another file: what `item` is comes from its annotation.
    let handlers = "from kinds import Base, Special\n\n\ndef handle(item: Base):\n    if isinstance(item, Special):\n        item.extra()\n    else:\n        item.extra()\n    item.extra()\n    return item.run()\n";
    let main = "from kinds import Special\nfrom handlers import handle\n\nhandle(Special())\n";
    let files = [
        ("kinds.py", kinds),
        ("handlers.py", handlers),
        ("main.py", main),
    ];
    let graph = graph_agreeing_with_runtime(&files, "main.py", 3);
    let extra = graph
        .edges
        .iter()
        .find(|edge| edge.callee.as_str() == "kinds.py#Special.extra")
        .map(|edge| (edge.caller.as_str().to_owned(), edge.sites.clone()));
    // Inside the `if` only: not in its `else` (line 8) nor after it (9), where `item` is
    // a `Base` as declared.
    assert_eq!(extra, Some(("handlers.py#handle".to_owned(), vec![6])));
    assert_eq!(
        unresolved(&graph),
        [
            "handlers.py#handle:8 item.extra",
            "handlers.py#handle:9 item.extra"
        ]
    );
    assert_edge(&graph, "handlers.py#handle -> kinds.py#Base.run");
}

#[test]
fn an_item_of_a_declared_tuple_return_is_typed_by_its_annotation() {
    let commands = "class Command:\n    def make_context(self, name):\n        return name\n\n\ndef table():\n    return globals()\n\n\ndef resolve(name) -> tuple[str, Command, list[str]]:\n    return table()[name]\n\n\ndef many() -> tuple[Command, ...]:\n    return table()['all']\n";
    let main = "from commands import Command, resolve, many, table\n\n\ndef run():\n    table()['cmd'] = ('cmd', Command(), [])\n    table()['all'] = (Command(), Command())\n    name, cmd, rest = resolve('cmd')\n    cmd.make_context(name)\n    many()[1].make_context(name)\n    rest.append(name)\n    name.upper()\n\n\nrun()\n";
    let files = [("commands.py", commands), ("main.py", main)];
    let graph = graph_agreeing_with_runtime(&files, "main.py", 4);
    let sites = graph
        .edges
        .iter()
        .find(|edge| {
            edge.caller.as_str() == "main.py#run"
                && edge.callee.as_str() == "commands.py#Command.make_context"
        })
        .map(|edge| edge.sites.clone());
    assert_eq!(sites, Some(vec![8, 9]));
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

/// Items of containers whose annotation declares them (`list[P]`, `dict[str, P]`,
/// `Iterable[P]`, strings included), through iteration, indexing, `enumerate`, `zip`,
/// `dict.get`/`values`/`items`, and `typing.cast`: each call on an item reaches `P`'s
/// method. Before, the items of a builtin container were external: these calls had no
/// edge and no unresolved site, silently.
const CONTAINERS: &str = r#"import typing as t
from contextvars import ContextVar
from typing import Iterable, Mapping, cast


class P:
    def get(self):
        return 1


class Q:
    def put(self):
        return 2


class Both(P, Q):
    pass


class Cmd:
    def __init__(self, params: "list[P]") -> None:
        self.params: list[P] = params
        self.by_name: dict[str, P] = {p.__class__.__name__: p for p in params}
        self.others: t.Optional[t.List[Q]] = [Q()]

    def iterate(self):
        for p in self.params:
            p.get()

    def index(self):
        self.params[0].get()
        self.params.append(P())

    def numbered(self):
        for i, p in enumerate(self.params):
            p.get()

    def paired(self):
        for p, q in zip(self.params, self.others):
            p.get()
            q.put()

    def looked_up(self):
        found = self.by_name.get("P")
        found.get()
        self.by_name["P"].get()
        for p in self.by_name.values():
            p.get()
        for name, p in self.by_name.items():
            p.get()


def over(ps: Iterable[P], table: Mapping[str, Q]) -> None:
    for p in ps:
        p.get()
    table["x"].put()


def never_called(ps: list[P], table: "dict[str, Q]", rest: t.Sequence["P"]) -> None:
    for p in ps:
        p.get()
    table["x"].put()
    rest[-1].get()


_current: ContextVar[P] = ContextVar("current")


def from_context() -> None:
    if (found := _current.get(None)) is not None:
        found.get()


def in_one_expression() -> bool:
    # The walrus's name read later in the same expression.
    return (found := _current.get(None)) is not None and found.get() == 1


def casted(thing: object) -> None:
    p = t.cast(P, thing)
    p.get()
    q = cast("Q", thing)
    q.put()


cmd = Cmd([P()])
cmd.iterate()
cmd.index()
cmd.numbered()
cmd.paired()
cmd.looked_up()
over([P()], {"x": Q()})
casted(Both())
_current.set(P())
from_context()
in_one_expression()
"#;

#[test]
fn items_of_annotated_containers_enumerate_zip_dict_methods_and_cast_reach_their_class() {
    let files = [("box.py", CONTAINERS)];
    let graph = graph_agreeing_with_runtime(&files, "box.py", 10);
    for caller in [
        "Cmd.iterate",
        "Cmd.index",
        "Cmd.numbered",
        "Cmd.paired",
        "Cmd.looked_up",
        "over",
        "casted",
        "from_context",
        "in_one_expression",
    ] {
        assert_edge(&graph, &format!("box.py#{caller} -> box.py#P.get"));
    }
    for caller in ["Cmd.paired", "over", "casted", "never_called"] {
        assert_edge(&graph, &format!("box.py#{caller} -> box.py#Q.put"));
    }
    // No value reaches `never_called`: its edges come from the annotations alone.
    assert_edge(&graph, "box.py#never_called -> box.py#P.get");
    // The control: an index or a key is no instance of P, and a list's own methods
    // (`append`) are external, not unresolved.
    assert_no_edge(&graph, "box.py#Cmd.index -> box.py#Q.put");
    assert_no_edge(&graph, "box.py#Cmd.numbered -> box.py#Q.put");
    assert!(
        unresolved(&graph).is_empty(),
        "unresolved: {:#?}",
        unresolved(&graph)
    );
}

/// flask's `globals.py`: proxies declared as classes defined under `if TYPE_CHECKING:`
/// (a `Protocol` stub mixed into the real class) while the value is something else at
/// runtime. A method such a class defines never runs: no edge to the stub, and the site
/// is not unresolved; the real class's methods found through it still are (`work`). The
/// control: a class of the `else:` branch is a runtime class.
const TYPE_ONLY: &str = r#"from __future__ import annotations

import typing as t
from types import SimpleNamespace


class Real:
    def work(self):
        return 1


if t.TYPE_CHECKING:

    class ProxyMixin(t.Protocol):
        def _get_current_object(self) -> Real: ...

    class RealProxy(ProxyMixin, Real): ...

else:

    class Fallback:
        def run(self):
            return 2


current: RealProxy = SimpleNamespace(work=Real().work, _get_current_object=Real)


def use():
    current.work()
    current._get_current_object()
    Fallback().run()


use()
"#;

#[test]
fn methods_of_classes_defined_under_type_checking_are_never_called() {
    let files = [("proxies.py", TYPE_ONLY)];
    let graph = graph_agreeing_with_runtime(&files, "proxies.py", 3);
    assert_edge(&graph, "proxies.py#use -> proxies.py#Real.work");
    assert_edge(&graph, "proxies.py#use -> proxies.py#Fallback.run");
    assert_no_edge(
        &graph,
        "proxies.py#use -> proxies.py#ProxyMixin._get_current_object",
    );
    assert!(
        !unresolved(&graph)
            .iter()
            .any(|site| site.contains("_get_current_object")),
        "{:#?}",
        unresolved(&graph)
    );
}

const CONTEXT_MANAGERS: &str = r#"import contextlib


class Writer:
    def write(self, text):
        return text

    def flush(self):
        return None


class Other:
    def write(self, text):
        return text


@contextlib.contextmanager
def pager():
    writer = Writer()
    try:
        yield writer
    finally:
        writer.flush()


def outer() -> "contextlib.AbstractContextManager[Writer]":
    return pager()


def main():
    with pager() as page:
        page.write("x")
    with outer() as again:
        again.write("y")
    with open(__file__) as handle:
        handle.read()


main()
"#;

#[test]
fn with_binds_what_a_contextmanager_generator_yields() {
    let files = [("pager.py", CONTEXT_MANAGERS)];
    let graph = graph_agreeing_with_runtime(&files, "pager.py", 3);
    // Through the generator function itself and through a function returning its call
    // (whose annotation names a type keel does not read).
    assert_edge(&graph, "pager.py#main -> pager.py#Writer.write");
    assert_edge(&graph, "pager.py#main -> pager.py#pager");
    assert_edge(&graph, "pager.py#outer -> pager.py#pager");
    // Control: a method of the same name on a class nothing yields.
    assert_no_edge(&graph, "pager.py#main -> pager.py#Other.write");
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

const OVERRIDDEN_PROPERTIES: &str = r#"class Param:
    def __init__(self):
        self._name = "p"

    @property
    def label(self):
        return "param"

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    def describe(self):
        self.name = "renamed"
        return self.label


class Arg(Param):
    @property
    def label(self):
        return "arg"

    @property
    def name(self):
        return self._name.upper()

    @name.setter
    def name(self, value):
        self._name = value + "!"


class Plain:
    @property
    def label(self):
        return "plain"


def main():
    Arg().describe()
    return Plain().label


main()
"#;

#[test]
fn a_property_read_or_assigned_reaches_the_overrides_in_subclasses() {
    let files = [("params.py", OVERRIDDEN_PROPERTIES)];
    let graph = graph_agreeing_with_runtime(&files, "params.py", 4);
    assert_edge(&graph, "params.py#Param.describe -> params.py#Param.label");
    assert_edge(&graph, "params.py#Param.describe -> params.py#Arg.label");
    assert_edge(&graph, "params.py#Param.describe -> params.py#Arg.name");
    let dispatch: Vec<String> = graph
        .edges
        .iter()
        .filter(|edge| edge.dispatch)
        .map(|edge| format!("{} -> {}", edge.caller.as_str(), edge.callee.as_str()))
        .collect();
    assert!(
        dispatch.contains(&"params.py#Param.describe -> params.py#Arg.label".to_owned()),
        "{dispatch:#?}"
    );
    // Control: a class outside the receiver's hierarchy with a property of that name.
    assert_no_edge(&graph, "params.py#Param.describe -> params.py#Plain.label");
}

const PROTOCOLS: &str = r#"class Bag:
    def __init__(self):
        self.items = [1, 2]

    def __len__(self):
        return 2

    def __repr__(self):
        return "Bag()"

    def __iter__(self):
        return BagIter(self.items)


class BagIter:
    def __init__(self, items):
        self.items = list(items)

    def __iter__(self):
        return self

    def __next__(self):
        if not self.items:
            raise StopIteration
        return self.items.pop()


class Quiet:
    def __len__(self):
        return 0


def main():
    bag = Bag()
    size = len(bag)
    text = repr(bag)
    first = next(iter(bag))
    everything = sorted(bag)
    return size, text, first, everything, len([1])


main()
"#;

#[test]
fn builtins_given_an_instance_call_its_special_methods() {
    let files = [("bag.py", PROTOCOLS)];
    let graph = graph_agreeing_with_runtime(&files, "bag.py", 6);
    for edge in [
        "bag.py#main -> bag.py#Bag.__len__",
        "bag.py#main -> bag.py#Bag.__repr__",
        "bag.py#main -> bag.py#Bag.__iter__",
        "bag.py#main -> bag.py#BagIter.__next__",
    ] {
        assert_edge(&graph, edge);
    }
    // Control: the same special method on a class no argument is an instance of.
    assert_no_edge(&graph, "bag.py#main -> bag.py#Quiet.__len__");
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

const HOOKS: &str = r#"class Lazy:
    def __init__(self):
        self.real = 1

    def __getattr__(self, name):
        return self.fallback

    def fallback(self):
        return 2

    def own(self):
        return 1


class Recorder:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)


def missing(lazy):
    return lazy.work()


def found(lazy):
    lazy.real = 3
    return lazy.own(), lazy.real


def record():
    rec = Recorder()
    rec.x = 1


def main():
    lazy = Lazy()
    missing(lazy)
    found(lazy)
    record()


main()
"#;

#[test]
fn attribute_hooks_run_for_names_an_instance_lacks_and_for_every_assignment() {
    let files = [("hooks.py", HOOKS)];
    let graph = graph_agreeing_with_runtime(&files, "hooks.py", 6);
    // `lazy.work()`: `__getattr__` runs, and the call runs what it returns.
    assert_edge(&graph, "hooks.py#missing -> hooks.py#Lazy.__getattr__");
    assert_edge(&graph, "hooks.py#missing -> hooks.py#Lazy.fallback");
    assert_edge(&graph, "hooks.py#record -> hooks.py#Recorder.__setattr__");
    // Controls: names the class or its instances have never reach `__getattr__`.
    assert_no_edge(&graph, "hooks.py#found -> hooks.py#Lazy.__getattr__");
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

const STARTED: &str = r#"class Bar:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return self.generate()

    def __next__(self):
        return next(iter(self))

    def generate(self):
        yield from self.items


class Copy:
    def __init__(self, items):
        self.items = items

    def copy(self):
        return self.__class__(self.items)


def numbers():
    yield 1
    yield 2


def consume(gen):
    return [n for n in gen]


def take(gen):
    return next(gen)


def main():
    bar = Bar([1, 2])
    first = next(bar)
    listed = list(bar)
    consume(numbers())
    take(numbers())
    Copy([1]).copy()
    return first, listed


main()
"#;

#[test]
fn a_generator_runs_when_its_consumer_takes_an_element_and_obj_class_makes_another() {
    let files = [("started.py", STARTED)];
    let graph = graph_agreeing_with_runtime(&files, "started.py", 8);
    for edge in [
        // `next(iter(self))`: `__iter__` returns a generator the `next` starts.
        "started.py#Bar.__next__ -> started.py#Bar.generate",
        // `list(bar)`: `__iter__`, then the generator it returns.
        "started.py#main -> started.py#Bar.generate",
        // A generator made by one function and iterated by another.
        "started.py#consume -> started.py#numbers",
        "started.py#take -> started.py#numbers",
        "started.py#Copy.copy -> started.py#Copy.__init__",
    ] {
        assert_edge(&graph, edge);
    }
    // Control: making a generator runs none of its code; only its consumer calls it.
    assert_no_edge(&graph, "started.py#consume -> started.py#Bar.generate");
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

const LOOKUPS: &str = r#"class Context:
    def __init__(self, parent=None):
        self.parent = parent

    @property
    def meta(self):
        return {}

    @property
    def quiet(self):
        return False

    def __getattr__(self, name):
        raise AttributeError(name)


class Atomic:
    def __getattr__(self, name):
        return 1


class Lazy:
    def open(self):
        return Atomic()

    def __getattr__(self, name):
        return getattr(self.open(), name)


def inherit(parent: Context):
    meta = getattr(parent, "meta", {})
    has = hasattr(parent, "quiet")
    return meta, has


def main():
    inherit(Context())
    return Lazy().closed


main()
"#;

#[test]
fn getattr_and_hasattr_read_the_attribute_they_name() {
    let files = [("lookups.py", LOOKUPS)];
    let graph = graph_agreeing_with_runtime(&files, "lookups.py", 6);
    for edge in [
        "lookups.py#inherit -> lookups.py#Context.meta",
        "lookups.py#inherit -> lookups.py#Context.quiet",
        // A name keel does not know may be one the instance lacks.
        "lookups.py#Lazy.__getattr__ -> lookups.py#Atomic.__getattr__",
    ] {
        assert_edge(&graph, edge);
    }
    // Control: a name the class has never reaches its `__getattr__`.
    assert_no_edge(
        &graph,
        "lookups.py#inherit -> lookups.py#Context.__getattr__",
    );
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

const SUBSCRIPTS: &str = r#"class Registry:
    def __init__(self):
        self.items = {"a": 1}

    def __getitem__(self, key):
        return self.items[key]

    def __delitem__(self, key):
        del self.items[key]


class Typed:
    def __class_getitem__(cls, params):
        return cls


class Concrete(Typed[int]):
    pass


def drop(reg: Registry):
    del reg["a"]


def main():
    reg = Registry()
    value = reg["a"]
    plain = {"b": 2}["b"]
    return value, plain, Concrete


main()
"#;

#[test]
fn a_subscript_read_calls_getitem_and_a_class_subscript_class_getitem() {
    let files = [("subscripts.py", SUBSCRIPTS)];
    let graph = graph_agreeing_with_runtime(&files, "subscripts.py", 4);
    assert_edge(
        &graph,
        "subscripts.py#main -> subscripts.py#Registry.__getitem__",
    );
    assert_edge(
        &graph,
        "subscripts.py#<module> -> subscripts.py#Typed.__class_getitem__",
    );
    // Control: `del reg[k]` runs `__delitem__`, never `__getitem__`.
    assert_no_edge(
        &graph,
        "subscripts.py#drop -> subscripts.py#Registry.__getitem__",
    );
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}

const CLIMB: &str = r#"class Node:
    def __init__(self, depth):
        self.depth = depth

    def parent(self):
        return Node(self.depth - 1)

    def visit(self):
        return self.depth


def climb(node, times):
    for _ in range(times):
        above = node.parent()
        above.visit()
        node = above


climb(Node(2), 2)
"#;

#[test]
fn a_value_evaluated_under_a_cycle_cut_above_it_is_not_kept_for_a_later_site() {
    // The site `node.parent()` is evaluated first: `node` reads the loop's `node = above`,
    // `above` reads `node.parent()`, whose callee is the evaluation under way, a cycle cut
    // there. The call's value and `above`'s, met under that cut, lack what it left out
    // (everything); kept for the group, they would answer the next site's `above` with
    // nothing (`above.visit()` unresolved, click's `Command.invoke -> Context.invoke`).
    let files = [("climb.py", CLIMB)];
    let graph = graph_agreeing_with_runtime(&files, "climb.py", 4);
    assert_edge(&graph, "climb.py#climb -> climb.py#Node.parent");
    assert_edge(&graph, "climb.py#climb -> climb.py#Node.visit");
    assert!(graph.unresolved.is_empty(), "{:#?}", unresolved(&graph));
}
