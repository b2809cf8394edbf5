//! The Python call graph under a seeded random walk of edits: one long-lived database
//! moved to each edit (`set_sources`, as a watch loop or a second `keel impact` does)
//! answers exactly what a fresh database answers, edges, lines and unresolved sites
//! included.
//!
//! The walk (seed [`SEED`], [`STEPS`] edits) works on a package of two modules whose
//! top-level functions and classes call each other, across the modules too. Each step
//! inserts a statement into a function or method body or removes one, adds or removes a
//! function or a method, swaps two neighbouring definitions, toggles a decorator (`a`'s
//! `deco`, whose wrapper calls each function it decorates, in either module), shifts a
//! whole file down by a comment line, or renames a class: what moves a fragment's
//! lines, changes its text, changes what the module around it binds, or keeps its text in
//! another context. A memo kept past a change that
//! matters (a fragment's chunk served for another context, an interface or a program
//! backdated when it changed, a file's resolution kept for a new program) makes the warm
//! answer differ from the fresh one; that a spliced chunk equals its walk in place is
//! held by `facts::chunk`'s tests. Positive controls, checked at the end: every kind of
//! edit happened, the graphs held edges and unresolved sites, and most fragments were
//! served from their memos, so the comparison covers spliced memos and not only fresh
//! walks.

use crate::support::{count, fresh_graph, hashed_files, set_sources, source_tree};
use keel_engine::KeelDatabase;
use keel_fixtures::rng::SeededRng;
use keel_queries::callgraph::python::fragments::python_fragment;
use keel_queries::callgraph::python::reuse_counts;
use keel_queries::callgraph::{call_graph, graph_inputs};

/// The walk's seed.
const SEED: u64 = 0x6361_6c6c_6772_6166;
/// How many edits the walk makes.
const STEPS: usize = 300;
/// The kinds of edit, by the index [`Walk::edit`] draws.
const EDITS: [&str; 9] = [
    "insert a statement",
    "remove a statement",
    "add a function",
    "remove a function",
    "add a method",
    "swap two definitions",
    "toggle a decorator",
    "shift the file",
    "rename a class",
];

/// A function or method: its name, whether `@a.deco` decorates it, its body's statements.
#[derive(Clone)]
struct Function {
    name: String,
    decorated: bool,
    body: Vec<String>,
}

impl Function {
    fn new(name: impl Into<String>, body: Vec<String>) -> Self {
        Self {
            name: name.into(),
            decorated: false,
            body,
        }
    }

    /// A function of `body`'s statements.
    fn of(name: &str, body: &[&str]) -> Self {
        Self::new(name, body.iter().map(|s| (*s).to_owned()).collect())
    }
}

/// A top-level definition of a module.
#[derive(Clone)]
enum Item {
    Function(Function),
    Class {
        name: String,
        methods: Vec<Function>,
    },
}

/// One module: lines of comments above it, its definitions.
#[derive(Clone)]
struct Module {
    path: &'static str,
    shift: usize,
    items: Vec<Item>,
}

impl Module {
    /// The module's text: its header (imports and the decorator), then each definition.
    fn text(&self) -> String {
        let mut text = "# shifted\n".repeat(self.shift);
        text.push_str(
            "from pkg import a, b\n\n\ndef deco(f):\n    def inner(*args):\n        return f(*args)\n    return inner\n\n\ncounter = 0\n",
        );
        for item in &self.items {
            text.push_str("\n\n");
            match item {
                Item::Function(function) => write_function(&mut text, function, ""),
                Item::Class { name, methods } => {
                    text.push_str(&format!("class {name}:\n"));
                    if methods.is_empty() {
                        text.push_str("    pass\n");
                    }
                    for method in methods {
                        write_function(&mut text, method, "    ");
                    }
                }
            }
        }
        text
    }

    /// Every function and method, as (item, method) indices.
    fn bodies(&self) -> Vec<(usize, Option<usize>)> {
        let mut bodies = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            match item {
                Item::Function(_) => bodies.push((index, None)),
                Item::Class { methods, .. } => {
                    bodies.extend((0..methods.len()).map(|method| (index, Some(method))));
                }
            }
        }
        bodies
    }

    fn body_mut(&mut self, (item, method): (usize, Option<usize>)) -> &mut Function {
        match (&mut self.items[item], method) {
            (Item::Function(function), _) => function,
            (Item::Class { methods, .. }, Some(method)) => &mut methods[method],
            // `bodies` pairs a class only with one of its methods.
            (Item::Class { .. }, None) => unreachable!("a class is listed by its methods"),
        }
    }
}

/// A decorated function is decorated by `pkg/a.py`'s `deco`, whose wrapper calls it: from
/// its own module or from the other one.
fn write_function(text: &mut String, function: &Function, indent: &str) {
    if function.decorated {
        text.push_str(&format!("{indent}@a.deco\n"));
    }
    let receiver = if indent.is_empty() { "x" } else { "self, x" };
    text.push_str(&format!("{indent}def {}({receiver}):\n", function.name));
    if function.body.is_empty() {
        text.push_str(&format!("{indent}    pass\n"));
    }
    for statement in &function.body {
        text.push_str(&format!("{indent}    {statement}\n"));
    }
}

/// The walk's state: the two modules and the names it has handed out.
struct Walk {
    rng: SeededRng,
    modules: [Module; 2],
    serial: usize,
}

impl Walk {
    fn new(seed: u64) -> Self {
        let function = |name: &str, body: &[&str]| Item::Function(Function::of(name, body));
        let method = Function::of;
        let a = Module {
            path: "pkg/a.py",
            shift: 0,
            items: vec![
                function("f0", &["return b.g0(x)"]),
                Item::Class {
                    name: "C0".to_owned(),
                    methods: vec![
                        method("m0", &["self.m1(x)", "return f0(x)"]),
                        method("m1", &["return C0().m0(x)"]),
                    ],
                },
                function("f1", &["y = C0()", "y.m1(x)"]),
            ],
        };
        let b = Module {
            path: "pkg/b.py",
            shift: 0,
            items: vec![
                function("g0", &["return a.f1(x)"]),
                Item::Class {
                    name: "D0".to_owned(),
                    methods: vec![method("n0", &["return self.n0(x)"])],
                },
            ],
        };
        Self {
            rng: SeededRng::new(seed),
            modules: [a, b],
            serial: 1,
        }
    }

    fn files(&self) -> Vec<(&'static str, String)> {
        let mut files = vec![("pkg/__init__.py", String::new())];
        files.extend(
            self.modules
                .iter()
                .map(|module| (module.path, module.text())),
        );
        files
    }

    fn pick<'a>(&mut self, choices: &'a [&'a str]) -> &'a str {
        choices[self.rng.below(choices.len())]
    }

    /// A statement calling something of the package (or nothing it defines).
    fn statement(&mut self, in_method: bool) -> String {
        let n = self.rng.below(3);
        let callee = match self.rng.below(if in_method { 8 } else { 7 }) {
            0 => format!("f{n}(x)"),
            1 => format!("b.g{n}(x)"),
            2 => format!("a.f{n}(x)"),
            3 => format!("C{n}().m{}(x)", self.rng.below(3)),
            4 => format!("missing{n}(x)"),
            5 => format!("y{n} = D{n}()"),
            // A narrowing: what `x` is after it, in the rest of the body.
            6 => format!("assert isinstance(x, C{n}) and x.m{n}"),
            _ => format!("self.m{n}(x)"),
        };
        match self.pick(&["", "z = ", "return "]) {
            "return " | "z = " if callee.starts_with("assert") => callee,
            "return " if callee.contains('=') => callee,
            prefix => format!("{prefix}{callee}"),
        }
    }

    /// Applies one random edit; returns its kind's index in [`EDITS`].
    fn edit(&mut self) -> usize {
        let module = self.rng.below(2);
        let kind = self.rng.below(EDITS.len());
        let bodies = self.modules[module].bodies();
        match kind {
            0 if !bodies.is_empty() => {
                let at = bodies[self.rng.below(bodies.len())];
                let statement = self.statement(at.1.is_some());
                let body = &mut self.modules[module].body_mut(at).body;
                let position = self.rng.below(body.len() + 1);
                body.insert(position, statement);
            }
            1 if !bodies.is_empty() => {
                let at = bodies[self.rng.below(bodies.len())];
                let position = self.rng.below(8);
                let body = &mut self.modules[module].body_mut(at).body;
                if position < body.len() {
                    body.remove(position);
                }
            }
            2 => {
                let name = format!("f{}", self.serial % 4);
                self.serial += 1;
                let statement = self.statement(false);
                let items = &mut self.modules[module].items;
                let position = self.rng.below(items.len() + 1);
                items.insert(
                    position,
                    Item::Function(Function::new(name, vec![statement])),
                );
            }
            3 => {
                let items = &mut self.modules[module].items;
                if items.len() > 1 {
                    let position = self.rng.below(items.len());
                    items.remove(position);
                }
            }
            4 => {
                let name = format!("m{}", self.serial % 4);
                self.serial += 1;
                let method = Function::new(name, vec![self.statement(true)]);
                let position = self.rng.below(4);
                let class_name = format!("C{}", self.serial % 3);
                let items = &mut self.modules[module].items;
                match items.iter_mut().find_map(|item| match item {
                    Item::Class { methods, .. } => Some(methods),
                    Item::Function(_) => None,
                }) {
                    Some(methods) => methods.insert(position.min(methods.len()), method),
                    None => items.push(Item::Class {
                        name: class_name,
                        methods: vec![method],
                    }),
                }
            }
            5 => {
                let items = &mut self.modules[module].items;
                if items.len() > 1 {
                    let position = self.rng.below(items.len() - 1);
                    items.swap(position, position + 1);
                }
            }
            6 if !bodies.is_empty() => {
                let at = bodies[self.rng.below(bodies.len())];
                let function = self.modules[module].body_mut(at);
                function.decorated = !function.decorated;
            }
            7 => {
                let shift = &mut self.modules[module].shift;
                *shift = (*shift + 1) % 3;
            }
            8 => {
                // Its methods' texts stay: their memos must not serve the new name.
                let renamed = format!("C{}", self.serial % 3);
                self.serial += 1;
                if let Some(Item::Class { name, .. }) = self.modules[module]
                    .items
                    .iter_mut()
                    .find(|item| matches!(item, Item::Class { .. }))
                {
                    *name = renamed;
                }
            }
            _ => {}
        }
        kind
    }
}

/// `files` as (path, text) pairs.
fn texts<'a>(files: &'a [(&'static str, String)]) -> Vec<(&'a str, &'a str)> {
    files
        .iter()
        .map(|(path, text)| (*path, text.as_str()))
        .collect()
}

#[test]
fn a_database_moved_through_random_edits_answers_what_a_fresh_one_answers() {
    let mut walk = Walk::new(SEED);
    let mut db = KeelDatabase::detached();
    let files = walk.files();
    let tree = source_tree(&db, &texts(&files));
    assert_eq!(
        *call_graph(&db, tree),
        fresh_graph(&texts(&files)),
        "the cold graph"
    );
    let _ = db.take_executed_queries();
    let mut kinds = [0usize; EDITS.len()];
    let (mut walked, mut met) = (0, 0);
    let (mut edges, mut unresolved) = (0, 0);
    let (mut replayed, mut replaying_steps) = (0, 0);
    for step in 0..STEPS {
        let kind = walk.edit();
        kinds[kind] += 1;
        let files = walk.files();
        let hashed = graph_inputs(&hashed_files(&db, &texts(&files)));
        set_sources(&mut db, tree, hashed);
        let before = reuse_counts(&db);
        let warm = call_graph(&db, tree).clone();
        let step_replayed = reuse_counts(&db).since(before).groups_replayed;
        replayed += step_replayed;
        replaying_steps += usize::from(step_replayed > 0);
        walked += count(&db.take_executed_queries(), python_fragment);
        met += files
            .iter()
            .map(|(_, text)| text.matches("def ").count())
            .sum::<usize>();
        edges += warm.edges.len();
        unresolved += warm.unresolved.len();
        assert_eq!(
            warm,
            fresh_graph(&texts(&files)),
            "seed {SEED:#x}, step {step} ({}):\n{}\n{}",
            EDITS[kind],
            files[1].1,
            files[2].1
        );
    }
    for (kind, done) in EDITS.iter().zip(kinds) {
        assert!(done > 0, "no edit of kind {kind:?} in {STEPS} steps");
    }
    assert!(
        edges > 0 && unresolved > 0,
        "edges {edges}, unresolved {unresolved}"
    );
    assert!(
        walked > 0 && walked * 4 < met,
        "fragments walked {walked} of {met} met: memos must serve most of them"
    );
    assert!(
        replaying_steps * 10 > STEPS,
        "{replaying_steps} steps replayed groups ({replayed} in all): too few to test replays"
    );
}
