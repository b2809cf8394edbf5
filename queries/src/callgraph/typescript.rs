//! The TypeScript / JavaScript call graph of one file: its nodes and the calls it makes,
//! resolved across the tree.
//!
//! Owns: reading TS/JS call sites ([`facts`]), module paths ([`modules`]) and resolution
//! across files ([`resolve`]). Does not own: the graph's vocabulary and assembly
//! (`callgraph`).
//!
//! Memoized in layers, so that an edit inside one function body re-parses that file and
//! re-resolves only its sites:
//! - per image: `ts_facts` (the parse: sites, bindings, classes) and `ts_exports` (the
//!   module's interface, line-free);
//! - per (tree, path): `module_exports` (that interface as the tree holds it: an edit
//!   that leaves it equal backdates here) and `ts_answers` (the answers to the file's
//!   questions about other files, read through `module_exports`, interned as one value);
//! - per (image, answers): `ts_resolve`, the file's sites resolved. Another file's edit
//!   that leaves its interface equal re-runs neither this file's answers nor this.
//!
//! What resolves: ES imports and exports (named, default, namespace, `export … from`,
//! `export *`, `export =`, `import x = require()`), CommonJS (`require`,
//! `module.exports`, `exports.x`, a default import of a CommonJS module), module paths
//! (`./x` → `x.ts`/`.tsx`/`.js`/`.jsx`/`index.*`, a `.js` specifier standing for its
//! `.ts` file, the nearest `tsconfig.json`'s `baseUrl`/`paths` with relative `extends`),
//! nested functions and the nearest named callable for anonymous code, `new C()` to the
//! constructor (inherited included; no edge when the chain has none), `this.m()` and
//! `super.m()` through `extends` (across files), static and `#private` methods, overloads
//! as one node, `f.call()`/`f.apply()`/`f.bind()`, namespaces (merged with functions,
//! classes, enums and imports of their name), object literals with spreads,
//! destructuring, and simple local flow: `const x = new Foo(); x.m()`, a declared type
//! (`x: Foo`, `x as Foo`, a type alias of a class, a field or a constructor parameter
//! property) before the value, `this.x = new Foo()`, and what a call returns when the
//! callee says (its return type, `async`, `return this`, the one value all its
//! `return`s give) — so builder chains resolve.
//!
//! What is external (no edge, not unresolved): a bare specifier no `paths`/`baseUrl`
//! maps into the tree (packages and Node builtins, `node:fs` and `fs` alike), a relative
//! specifier of a non-code file (`./styles.css`), a name bound nowhere in its file and
//! declared by no script of the tree (the runtime's globals: `console`, `Math`, `JSON`,
//! `Promise`, `Array`, DOM and test-framework globals), `declare`d (ambient) names, a
//! type that names no class of the repository (`string`, `HTMLElement`, `Promise<T>`),
//! literals, and the members of all of these (`console.log`, `[1].map`, `s.trim` for
//! `s: string`). In a file that parsed in part, a name its unparsed regions spell is not
//! taken for a global (it may be declared there).
//!
//! Everything else that does not resolve is an unresolved site, never dropped: calls
//! through parameters and callbacks, on what external code returns (`map.get(k).open()`
//! may call the repository's `open`), on call results whose callee says nothing,
//! reassigned variables, values of an interface no class of the repository implements
//! (with the method), members added at run time, and classes whose base keel cannot
//! follow (`extends mixin(A)`).
//!
//! A call resolves to the node that owns the called code: a unit, or for anonymous code
//! (an object-literal method, `exports.f = function () {}`) the nearest unit holding it
//! (`<module>` at top level); a call of anonymous code its caller itself holds (an IIFE)
//! is part of the caller, no edge. A call through a getter (`x.event(…)` where `event` is
//! `get event()`) resolves to the getter, which that call runs. `x.m()` with `x` typed as
//! `Base` resolves to `Base.m`, as the TypeScript checker does; the overrides of `m` in
//! the classes extending `Base`, and for `x` typed as an interface the methods of the
//! classes implementing it, are added by the graph's dispatch pass
//! (`callgraph::dispatch`), from the classes, interfaces and virtual calls `resolve`
//! hands it.

pub mod facts;
pub mod modules;
pub mod resolve;

// Public so that the incrementality tests name the query as a function.
pub use modules::module_specs;

use super::{FileGraph, Sources};
use crate::callgraph::TreeFiles as _;
use crate::images::Image;
use keel_engine::Db;

/// The per-image part of a TS/JS file's graph (parse, units, facts, export table), which
/// needs no other file: what threads share out before the graph is assembled. The facts
/// are read on the thread that parsed the image, from the tree it just made: a thread's
/// parse hints are bounded, so facts read in a later phase would parse most files again.
pub(super) fn warm(db: &dyn Db, image: Image<'_>) {
    let _ = facts::ts_exports(db, image);
}

/// The graph of the TS/JS file at `path` in `tree`.
pub(super) fn file_graph(db: &dyn Db, tree: Sources, path: &str) -> FileGraph {
    let Some(image) = tree.image(db, path) else {
        return FileGraph::default();
    };
    let answers = resolve::ts_answers(db, tree, path.to_owned());
    resolve::ts_resolve(db, image, answers).clone()
}
