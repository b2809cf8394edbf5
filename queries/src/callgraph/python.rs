//! The Python call graph of one file: its nodes and the calls it makes, resolved
//! across the tree.
//!
//! Owns: reading Python call sites and resolving them, in four memoized steps:
//! - `python_facts` (per image): one parse, the file's scopes, bindings, call sites and
//!   stores (`facts`), spliced from the memos of its fragments (each function defined
//!   in the module's body or a top-level class's body, directly or in a block there:
//!   `fragments`), so that an edit of one body walks that function only;
//! - `python_interface` (per image): what other files may read of it — its export
//!   table (module-level names, `__all__`, star imports), classes (bases, members,
//!   instance attributes) and functions (parameters, returns) — with no line or call site
//!   in it (`interface`);
//! - `python_program` (per tree): every Python file's interface, read per (tree, path)
//!   (`interface_at`, backdated when equal) and interned, so that two trees whose
//!   interfaces are equal are one key, and a tree moved to a body edit keeps its program
//!   without building it again;
//! - `python_resolve` (per image and program): the file's sites resolved (`resolve`).
//!
//! Editing a function body makes a new image of that file only: its facts, interface and
//! resolution run again; when its interface is unchanged the program is the same
//! interned value (not even rebuilt when the same tree input moved to the edit), and no
//! other file's resolution runs (`tests/it/callgraph_python.rs` proves it from salsa's
//! events). The file's resolution itself replays its previous one (`resolve::replay`,
//! kept per path beside the memos, as the parse hints are): only the groups of sites the
//! edit can change are evaluated again — the edited function's, those that read it, and
//! those that read a flow slot whose entries it changed. Its interface is the one made
//! before when the edited function's own interface is (`interface::of`). The answers are
//! the ones a fresh database gives (`tests/it/callgraph_edits.rs`, and the edit cases of
//! `tests/it/callgraph_python.rs`).
//!
//! Module roots: a file's absolute imports are looked for under its script root (the
//! nearest folder holding it that is not a package: `sys.path[0]` for a script, pytest's
//! rootdir insertion for a test), the repository root, then `src/`; in each, as Python's
//! path finder does (`a/__init__.py`, then `a.py`, then the namespace folder `a/`).
//! Relative imports are resolved by path from the importing file.
//!
//! What resolves (`resolve`): `import a.b` / `import a.b as c` / `from x import y as z`,
//! relative imports, packages and `__init__.py` re-exports, `from x import *` (its
//! `__all__` when spelled with literals, the public names otherwise), module attribute
//! calls and submodules; a class call to `__init__` through the C3 MRO (no edge when the
//! MRO has none), an instance call to `__call__`; `self.m()` / `cls.m()` through the
//! MRO, `super().m()` and `super(C, self).m()`, `Base.m(self)`, static and class methods
//! through the class or an instance; properties (a read of `obj.x` calls the getter,
//! `@cached_property` included, `obj.x = v` the setter, when `obj`'s class is known:
//! `resolve::accessors`); decorators (each is a call from the enclosing scope; a
//! decorator from the tree is followed to what it returns, one from outside leaves the
//! function as it is; the wrapper a decorator of the tree returns calls, through the
//! parameter it closes over, each function the decorator is applied to, in its own file
//! and in every other: `resolve::applied`); nested functions and LEGB scoping (class
//! bodies invisible to their methods; defaults, decorators and bases evaluated in the
//! enclosing scope); local flow (assignments in order within a block, tuple unpacking,
//! returns, the arguments a file passes to its own functions, `self.x = …` instance
//! attributes, list/tuple/dict items with constant keys, iteration, `with … as`,
//! `except … as`), narrowed by `isinstance` inside the block it guards (and after
//! `assert isinstance`); annotations (`x: Foo`, `-> Foo`, `Optional`, `X | None`, string
//! forward references, `type[X]`, `Self`, `tuple[A, B]` and `tuple[A, ...]` items,
//! class-level field declarations); and the
//! builtins values flow through (`map`/`filter`/`sorted(key=)` call their function
//! argument, `getattr(obj, "name")`, `type(obj)`, `list(xs)`, `next(it)`). Implicit
//! calls give edges when they resolve and are never unresolved: `raise C`, `for x in
//! obj` (`__iter__`, `__next__`), `with obj` (`__enter__`, `__exit__`).
//!
//! What is external (no edge, not unresolved): an absolute import found under no root
//! (the standard library or a package) and every value read through it; a name no scope
//! binds that Python's `builtins` defines; the methods of builtin values (literals,
//! displays, numbers, strings, a `*args` tuple and a `**kwargs` dict, a value
//! `isinstance` narrows to a builtin type); a generator function made a context manager
//! applied as a decorator; members inherited from a base class outside the tree,
//! `object`'s own attributes; a parameter or field annotated with a class imported from
//! outside the tree.
//!
//! Everything else that does not resolve is an unresolved site: calls on values keel
//! cannot follow (a parameter no call in its file passes anything to, an attribute no
//! code of the tree assigns), a relative import that finds nothing, a name nothing
//! binds, a call to a unit a partial parse left out. A file that parses in part keeps
//! the calls of its standing units; the calls inside left-out units are placed on no
//! caller. Not followed on purpose: arguments passed to another file's functions
//! (their calls on those parameters stay unresolved: following them would make every
//! file's resolution depend on every caller's body), `eval`/`exec` and dynamic
//! attributes.
//!
//! Overrides: a site resolves to the MRO's method; which sites a subclass's method may
//! take over (`self.m()`, `param.m()`, `cls.m()`, `cls()`) and the classes of the file
//! with their MROs are handed to the graph's dispatch pass (`resolve::dispatch`,
//! `callgraph::dispatch`), which adds the overrides across the tree.
//!
//! Does not own: the graph's vocabulary and assembly (`callgraph`).

mod builtins;
mod facts;
pub mod fragments;
mod interface;
mod kept;
mod resolve;

use super::{FileGraph, Sources, tree_paths, unit_nodes};
use crate::anchors::ImageUnits;
use crate::callgraph::TreeFiles as _;
use crate::extract::{ExtractError, Language};
use crate::images::{Image, image_bytes, image_units};
use facts::Facts;
use fragments::ImageFragments;
use interface::Interface;
use keel_engine::Db;
pub use kept::{ReuseCounts, reuse_counts};
use resolve::Resolved;

/// The per-image part of a Python file's graph (parse, facts, interface), which needs no
/// other file: what threads share out before the graph is assembled.
pub(super) fn warm(db: &dyn Db, image: Image<'_>) {
    let _ = python_interface(db, image);
}

/// The graph of the Python file at `path` in `tree`.
pub(super) fn file_graph(db: &dyn Db, tree: Sources, path: &str) -> FileGraph {
    let Some(image) = tree.image(db, path) else {
        return FileGraph::default();
    };
    let (nodes, partial) = unit_nodes(db, image);
    let program = python_program(db, tree);
    let resolved = python_resolve(db, image, *program);
    FileGraph {
        nodes,
        calls: resolved.calls.clone(),
        unresolved: resolved.unresolved.clone(),
        partial,
        types: resolved.types.clone(),
        virtual_calls: resolved.virtual_calls.clone(),
    }
}

/// The facts of one Python image, read once per image. Its standing units
/// (`image_units`) decide which scopes are nodes; the calls inside the units a partial
/// parse left out do not count.
#[salsa::tracked(returns(ref))]
pub fn python_facts<'db>(db: &'db dyn Db, image: Image<'db>) -> Facts {
    let (units, left_out) = match image_units(db, image) {
        ImageUnits::Extracted(Ok(units)) => (units.as_slice(), &[][..]),
        ImageUnits::Extracted(Err(ExtractError::Unparseable { partial, .. })) => {
            (partial.units.as_slice(), partial.left_out.as_slice())
        }
        _ => (&[][..], &[][..]),
    };
    let standing = facts::Standing {
        units: units.iter().map(|unit| unit.name.as_str()).collect(),
        left_out: left_out.iter().map(String::as_str).collect(),
    };
    let fragments = ImageFragments::new(db, standing.units.iter().copied().collect());
    match image_bytes(db, image) {
        Ok(bytes) => facts::read(
            db.hints(),
            image.path(db),
            &bytes,
            &standing,
            Some(&fragments),
        ),
        Err(_) => facts::unread(),
    }
}

/// What other files may read of one Python image. An image whose facts change only
/// where no other file looks (a call added in a body, lines moved) has an equal
/// interface, so the program of its tree is the same interned value.
#[salsa::tracked(returns(ref))]
pub fn python_interface<'db>(db: &'db dyn Db, image: Image<'db>) -> Interface {
    interface::of(db, image.path(db), python_facts(db, image))
}

/// Every Python file of a tree with its interface, sorted by path, shared (a file's
/// resolution keeps it for its replay).
pub(crate) type Program = std::sync::Arc<[(String, Interface)]>;

/// Every Python file of a tree with its interface, sorted by path: what resolving any
/// one file may read of the others.
#[salsa::interned(debug)]
pub struct PythonProgram<'db> {
    #[returns(ref)]
    pub(crate) files: Program,
}

/// The program of a tree: each Python path of the tree ([`tree_paths`]) with its
/// interface ([`interface_at`]). An edit that changes no path and leaves every interface
/// equal backdates all of those, so this does not run again and the program is the same
/// value.
#[salsa::tracked]
pub fn python_program<'db>(db: &'db dyn Db, tree: Sources) -> PythonProgram<'db> {
    let files: Vec<(String, Interface)> = tree_paths(db, tree)
        .iter()
        .filter(|path| Language::for_path(path) == Some(Language::Python))
        .map(|path| (path.clone(), interface_at(db, tree, path.clone()).clone()))
        .collect();
    PythonProgram::new(db, Program::from(files))
}

/// The interface of the Python file at `path` of `tree`: its image's, or an empty one
/// for a file past the tree's bound (nothing is read of it).
#[salsa::tracked(returns(ref))]
pub fn interface_at(db: &dyn Db, tree: Sources, path: String) -> Interface {
    match tree.image(db, &path) {
        Some(image) if !tree.past_bound(db, image) => python_interface(db, image).clone(),
        _ => Interface::new(interface::build(&facts::unread().model)),
    }
}

/// The sites of one image resolved against a program. Keyed by the image and the
/// program, not the tree: a new tree whose program is unchanged re-resolves only its new
/// images.
#[salsa::tracked(returns(ref))]
pub fn python_resolve<'db>(
    db: &'db dyn Db,
    image: Image<'db>,
    program: PythonProgram<'db>,
) -> Resolved {
    let facts = python_facts(db, image);
    resolve::resolve(db, image.path(db), facts, program.files(db))
}
