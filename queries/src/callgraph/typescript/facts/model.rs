//! The facts one TS/JS image is read into: its call sites ([`Site`]), the values it names
//! ([`Value`], [`Imported`]), its classes ([`ClassFacts`]) and its module interface
//! ([`ExportTable`]), gathered in [`Facts`]; and the builtin members every object and
//! function has, which both the walk and `resolve` read.
//!
//! Owns: the types and their lookups (an export, a class, a return value by name).
//! Does not own: reading them from a syntax tree (the walk: `facts`) or resolving their
//! symbolic values across files (`resolve`).

/// What an `import` or `require` takes from the module it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Imported {
    /// One named export (`default` for a default import).
    Named(String),
    /// The module's namespace object (`import * as ns`).
    Namespace,
    /// What `require` returns: `module.exports` when the module assigns it, else its
    /// namespace object.
    Require,
}

/// A value as one file's code sees it, every name looked up in its scope. Names of this
/// file's code are qualified names (`C.m`); values of other files stay symbolic
/// ([`Value::Import`], [`Value::Global`]) until `resolve` reads those files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// The callable unit of this file with that qualified name.
    Func(String),
    /// Anonymous code of this file, owned by the node of that name (`<module>` at top
    /// level): an object-literal method, a callback, `module.exports = function () {}`.
    Owned(String),
    /// The class of this file with that qualified name (its facts: [`ClassFacts`]).
    Class(String),
    /// The interface of this file with that qualified name (its facts:
    /// [`InterfaceFacts`]): a type only, whose instances are those of the classes
    /// implementing it.
    Interface(String),
    /// An instance of a class value (`new C()`, a parameter typed `C`).
    Instance(Box<Value>),
    /// An object literal or a namespace: its members (a later one of a name wins).
    Object(Vec<(String, Value)>),
    /// What another module exports, then a member path (`ns.a.b` → path `[a, b]`).
    Import {
        spec: String,
        what: Imported,
        path: Vec<String>,
    },
    /// A name bound nowhere in this file, then a member path: a global of the runtime,
    /// or a top-level declaration of a script file of the repository.
    Global { name: String, path: Vec<String> },
    /// This module's own CommonJS exports (`exports`, `module.exports`), then a path.
    Exports(Vec<String>),
    /// A member of a class or an instance, looked up through its bases when resolved.
    Member(Box<Value>, String),
    /// A function or class merged with a namespace: called, the first; its members are
    /// the namespace's, then the function's or class's.
    Merged(Box<Value>, Vec<(String, Value)>),
    /// What calling the value returns: what the unit it resolves to is known to return
    /// (its return type, `async`, the one value its `return`s give), else unknown.
    Returned(Box<Value>),
    /// Code outside the repository: a literal's builtin methods, an ambient declaration.
    External,
    /// A value keel does not follow: a parameter, a call's result, a reassigned variable.
    Unknown,
}

/// One call or `new` written in the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Site {
    /// The qualified name of the unit whose code holds the call (`<module>` at top level).
    pub(crate) caller: String,
    /// The line of the callee's last name (`b` of `a.b()`).
    pub(crate) line: u32,
    /// The callee as written, whitespace collapsed (`new Foo` for a `new`).
    pub(crate) text: String,
    /// `new C()` or `super()`: a constructor call.
    pub(crate) new: bool,
    pub(crate) callee: Value,
}

/// A member of a class: a method (its unit), an accessor, a field and its value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct MemberFacts {
    pub(crate) name: String,
    pub(crate) is_static: bool,
    pub(crate) value: Value,
}

/// A named class of the file (a unit): what resolution needs to look a member up.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ClassFacts {
    pub(crate) name: String,
    /// The `extends` clause's value; `None` without one.
    pub(crate) extends: Option<Value>,
    /// The `implements` clause's types, in order.
    pub(crate) implements: Vec<Value>,
    pub(crate) members: Vec<MemberFacts>,
}

/// A named interface of the file: the types it extends (what dispatch reads of it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct InterfaceFacts {
    /// Its qualified name, as a unit of that place would be named.
    pub(crate) name: String,
    /// The `extends` clause's types, in order.
    pub(crate) extends: Vec<Value>,
}

/// A module's interface: everything another file's resolution reads from it. Line-free:
/// an edit inside a function body leaves it equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ExportTable {
    /// A script (no `import`, `export`, `require` or `module.exports`): its top-level
    /// declarations are globals.
    pub(crate) script: bool,
    /// The file uses CommonJS (`require`, `module.exports`, `exports.x`): a default
    /// import of it without a `default` export is its exports object.
    pub(crate) commonjs: bool,
    /// ES named exports (`default` included) and CommonJS `exports.x`, sorted by name.
    pub(crate) named: Vec<(String, Value)>,
    /// `module.exports = …` or `export = …`.
    pub(crate) whole: Option<Value>,
    /// The sources of `export * from` in order.
    pub(crate) stars: Vec<String>,
    /// A script's top-level bindings, sorted by name (empty for a module).
    pub(crate) globals: Vec<(String, Value)>,
    /// Named classes, sorted by name.
    pub(crate) classes: Vec<ClassFacts>,
    /// What calling a unit returns, where it is known (its return type, `async`, or the
    /// one value all its `return`s give), sorted by unit.
    pub(crate) returns: Vec<(String, Value)>,
    /// The qualified names of the file's nodes (function, method and class units),
    /// sorted: a [`Value::Func`] that is not one of them has no node.
    pub(crate) nodes: Vec<String>,
    /// Every module specifier the file names, sorted, each once.
    pub(crate) specs: Vec<String>,
}

impl ExportTable {
    pub(crate) fn named(&self, name: &str) -> Option<&Value> {
        self.named
            .binary_search_by(|(known, _)| known.as_str().cmp(name))
            .ok()
            .map(|at| &self.named[at].1)
    }

    pub(crate) fn class(&self, name: &str) -> Option<&ClassFacts> {
        self.classes
            .binary_search_by(|class| class.name.as_str().cmp(name))
            .ok()
            .map(|at| &self.classes[at])
    }

    pub(crate) fn returns(&self, name: &str) -> Option<&Value> {
        self.returns
            .binary_search_by(|(known, _)| known.as_str().cmp(name))
            .ok()
            .map(|at| &self.returns[at].1)
    }

    pub(crate) fn has_node(&self, name: &str) -> bool {
        self.nodes
            .binary_search_by(|known| known.as_str().cmp(name))
            .is_ok()
    }
}

/// Everything one image says on its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Facts {
    pub(crate) sites: Vec<Site>,
    /// The interface without `nodes` (those come from the extractor: [`ts_exports`]).
    pub(crate) exports: ExportTable,
    /// Named interfaces, sorted by name, each once (declarations of one name merged).
    pub(crate) interfaces: Vec<InterfaceFacts>,
    /// Every [`Value::Import`], [`Value::Global`] and [`Value::Exports`] the sites,
    /// classes and interfaces hold, sorted, each once: what `resolve` asks the other
    /// files.
    pub(crate) questions: Vec<Value>,
    /// The tree held a syntax error (the walk still read what parsed).
    pub(crate) partial: bool,
}

/// The key an object literal's `...spread` is kept under, in order among its members.
pub(crate) const SPREAD: &str = "...";

/// Methods every object has (`Object.prototype`): a missing member of these names is
/// the builtin.
const OBJECT_METHODS: &[&str] = &[
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

/// Methods every function has (`Function.prototype`).
const FUNCTION_METHODS: &[&str] = &["bind", "toString"];

pub(crate) fn is_object_method(name: &str) -> bool {
    OBJECT_METHODS.contains(&name)
}

pub(crate) fn is_function_method(name: &str) -> bool {
    FUNCTION_METHODS.contains(&name) || is_object_method(name)
}
