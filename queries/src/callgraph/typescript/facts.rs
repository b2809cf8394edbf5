//! What one TS/JS image says on its own, before any other file is read: its call sites
//! with their callees resolved lexically ([`Site`], [`Value`]), and its module interface
//! ([`ExportTable`]: exports, CommonJS `module.exports`, `export *` sources, script
//! globals, classes with their members and bases).
//!
//! Owns: the syntax walk (scopes and bindings, the naming of callables exactly as the
//! extractor names units, `this`/`super`, simple local flow), as two memoized queries per
//! image: [`ts_facts`] (sites, lines included) and [`ts_exports`] (line-free, so an edit
//! inside a function body leaves it equal).
//! Does not own: reading any other file — module paths (`modules`) and everything that
//! crosses files (`resolve`).
//!
//! Naming mirrors `extract::typescript`: a declaration is a unit only where that walk
//! visits it (module and namespace level, function bodies through their statements, the
//! members of named classes; inside a module-level block only `var` declarators), so a
//! caller or callee named here is the extractor's unit of that name. Code that is not a
//! unit (callbacks, object-literal methods, functions in module-level blocks) belongs to
//! the nearest unit holding it ([`Value::Owned`]).

use crate::callgraph::MODULE;
use crate::extract::Language;
use crate::extract::fields::{ChildByField as _, Field, typescript as fields};
use crate::extract::kinds::KindName as _;
use crate::extract::{qualify, unwrap_expression};
use crate::images::{Image, image_bytes};
use keel_engine::Db;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tree_sitter::{Node, Parser, Tree};

/// What an `import` or `require` takes from the module it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Imported {
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
pub(crate) enum Value {
    /// The callable unit of this file with that qualified name.
    Func(String),
    /// Anonymous code of this file, owned by the node of that name (`<module>` at top
    /// level): an object-literal method, a callback, `module.exports = function () {}`.
    Owned(String),
    /// The class of this file with that qualified name (its facts: [`ClassFacts`]).
    Class(String),
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
    pub(crate) members: Vec<MemberFacts>,
}

/// A module's interface: everything another file's resolution reads from it. Line-free:
/// an edit inside a function body leaves it equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct ExportTable {
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
pub(crate) struct Facts {
    pub(crate) sites: Vec<Site>,
    /// The interface without `nodes` (those come from the extractor: [`ts_exports`]).
    pub(crate) exports: ExportTable,
    /// Every [`Value::Import`], [`Value::Global`] and [`Value::Exports`] the sites and
    /// classes hold, sorted, each once: what `resolve` asks the other files.
    pub(crate) questions: Vec<Value>,
    /// The tree held a syntax error (the walk still read what parsed).
    pub(crate) partial: bool,
}

/// The facts of one TS/JS image, read once per image. Tolerant: a tree with errors
/// yields the sites and declarations of the parts that parsed.
///
/// The tree is the extractor's when it has one for these bytes (it parses the image
/// first: its units are the image's nodes), or its last tree of the file reparsed
/// incrementally ([`crate::extract::cached_tree`]); else a parse of its own.
#[salsa::tracked(returns(ref))]
pub(crate) fn ts_facts<'db>(db: &'db dyn Db, image: Image<'db>) -> Facts {
    let path = image.path(db);
    let Some(language) = Language::for_path(path) else {
        return Facts::default();
    };
    let Ok(bytes) = image_bytes(db, image) else {
        return Facts {
            partial: true,
            ..Facts::default()
        };
    };
    let _units = crate::images::image_units(db, image);
    let cached = crate::extract::cached_tree(db.hints(), language, path, &bytes);
    facts_with(language, &bytes, cached)
}

/// The module interface of one image: [`Facts::exports`] with the names of the image's
/// nodes. Its own query so that a file whose interface did not change gives every other
/// file's resolution an equal answer (they are keyed by what they read, not by image).
#[salsa::tracked(returns(ref))]
pub(crate) fn ts_exports<'db>(db: &'db dyn Db, image: Image<'db>) -> ExportTable {
    let mut table = ts_facts(db, image).exports.clone();
    let (nodes, _) = crate::callgraph::unit_nodes(db, image);
    let prefix = format!("{}#", image.path(db));
    // The name after the file's own `path#` (a `#private` member's name holds a `#`).
    table.nodes = nodes
        .iter()
        .filter(|node| node.kind != crate::callgraph::NodeKind::Module)
        .filter_map(|node| node.id.as_str().strip_prefix(&prefix))
        .map(str::to_owned)
        .collect();
    table.nodes.sort();
    table.nodes.dedup();
    table
}

/// The facts of `bytes` read as `language` (pure; what [`ts_facts`] memoizes).
#[cfg(test)]
pub(crate) fn facts_of(language: Language, bytes: &[u8]) -> Facts {
    facts_with(language, bytes, None)
}

/// The facts of `bytes` read as `language`, walking `cached` when given (a tree of exactly
/// these bytes in that language's grammar).
fn facts_with(language: Language, bytes: &[u8], cached: Option<Tree>) -> Facts {
    let Ok(source) = std::str::from_utf8(bytes) else {
        return Facts {
            partial: true,
            ..Facts::default()
        };
    };
    if let Some(tree) = cached {
        return walk_tree(&tree, source);
    }
    let grammar: tree_sitter::Language = match language {
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Language::Python => return Facts::default(),
    };
    let mut parser = Parser::new();
    if parser.set_language(&grammar).is_err() {
        return Facts {
            partial: true,
            ..Facts::default()
        };
    }
    let Some(tree) = parser.parse(source, None) else {
        return Facts {
            partial: true,
            ..Facts::default()
        };
    };
    walk_tree(&tree, source)
}

fn walk_tree(tree: &Tree, source: &str) -> Facts {
    let root = tree.root_node();
    let mut walk = Walk::new(source);
    walk.run(root);
    let mut facts = walk.finish();
    facts.partial = root.has_error();
    facts
}

/// Deepest expression nesting converted to a value (deeper is [`Value::Unknown`]).
const MAX_DEPTH: u32 = 48;
/// Longest callee text kept (longer is cut, with `…`).
const MAX_TEXT: usize = 160;

/// What `this` is where code runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum This {
    Unknown,
    /// An instance of the named class (its methods, constructor and field initializers).
    Instance(String),
    /// The named class itself (its static methods, fields and blocks).
    Static(String),
}

/// Where the extractor's walk stands (see `extract::typescript::ScopeKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The file or a namespace: every declaration is a unit.
    Module,
    /// A block statement at module level: only `var` declarators are units.
    Block,
    /// A function body: nested functions and classes are units.
    Function,
}

#[derive(Debug, Clone)]
struct Naming {
    prefix: String,
    kind: Kind,
}

/// The context code is read in.
#[derive(Debug, Clone)]
struct Ctx {
    scope: usize,
    /// The unit owning the code (`<module>` at top level).
    caller: String,
    /// Where declarations are units; `None` in expressions and places the extractor does
    /// not visit.
    naming: Option<Naming>,
    this: This,
    /// The namespace whose body this is (its `export`s are its members).
    namespace: Option<usize>,
    /// The same context in expression position (memoized).
    expr: Option<usize>,
    /// The unit a `return` here returns from (`None` at top level and in anonymous
    /// functions).
    returns: Option<String>,
}

/// An expression as written, names not yet looked up.
#[derive(Debug, Clone)]
enum Expr {
    Name(String),
    This(This),
    /// `super`: the base class (`call`: for `super()`), or for a member, its instance or
    /// static side.
    Super {
        this: This,
        call: bool,
    },
    Member(Box<Expr>, String),
    New(Box<Expr>),
    /// The result of calling the expression.
    Call(Box<Expr>),
    Require(String),
    Value(Value),
    Object(Vec<(String, Expr)>),
    Namespace(usize),
    /// An instance of what a type names (names looked up as types).
    Type(Box<Expr>),
    /// A name in a type position.
    TypeName(String),
    /// The first unless it is unknown, then the second (a declared type, then the value:
    /// the type is the contract; an interface or a function type says nothing).
    Or(Box<Expr>, Box<Expr>),
    /// `exports` / `module.exports`.
    SelfExports,
}

impl Expr {
    fn unknown() -> Self {
        Self::Value(Value::Unknown)
    }

    fn external() -> Self {
        Self::Value(Value::External)
    }
}

/// How a name is bound.
#[derive(Debug, Clone)]
enum Init {
    Value(Value),
    Expr(usize, Expr),
    /// `let x;`: the value of its one assignment, if it has exactly one.
    Declared,
    Import(String, Imported),
    Namespace(Vec<usize>),
    /// An interface, type alias or type parameter: no value.
    TypeOnly,
    /// A type alias of a class (or a builtin) type: the class it names (valid code reads
    /// it only as a type; the expression names the class, read in that scope).
    TypeAlias(usize, Expr),
    /// An enum: an object keel does not follow; a namespace of the same name merges in.
    Enum,
    /// A function or class merged with a namespace of the same name: called, it is the
    /// function or class; its members are the namespace's first.
    Merged(Box<Init>, Vec<usize>),
    /// An overload signature alone (a `.d.ts`): implemented outside the repository.
    Signature,
}

#[derive(Debug)]
struct Binding {
    init: Init,
    /// Assignments after the declaration (scope, value): any makes an initialized
    /// binding unknown; a declared one takes its only one.
    assigned: Vec<(usize, Expr)>,
    /// Declared twice (`var x` again): unknown.
    redeclared: bool,
}

#[derive(Debug)]
struct Scope {
    parent: Option<usize>,
    /// A function, module or namespace scope: where `var` binds.
    hoist: bool,
    names: HashMap<String, usize>,
}

#[derive(Debug)]
struct RawSite {
    scope: usize,
    caller: String,
    line: u32,
    text: String,
    new: bool,
    callee: Expr,
}

#[derive(Debug)]
struct RawMember {
    name: String,
    is_static: bool,
    scope: usize,
    value: Expr,
}

#[derive(Debug)]
struct RawClass {
    name: String,
    /// The scope the class is declared in (its `extends` is read there).
    scope: usize,
    extends: Option<Expr>,
    members: Vec<RawMember>,
}

#[derive(Debug, Default)]
struct RawNamespace {
    scope: usize,
    exports: Vec<(String, Expr)>,
}

/// A node to visit in a context.
struct Frame<'t> {
    node: Node<'t>,
    ctx: usize,
    /// A function body: its block shares the function's scope.
    own_scope: bool,
}

struct Walk<'s> {
    source: &'s str,
    scopes: Vec<Scope>,
    bindings: Vec<Binding>,
    ctxs: Vec<Ctx>,
    sites: Vec<RawSite>,
    classes: Vec<RawClass>,
    namespaces: Vec<RawNamespace>,
    exports: Vec<(String, Expr)>,
    stars: Vec<String>,
    whole: Vec<(usize, Expr)>,
    cjs_named: Vec<(String, usize, Expr)>,
    /// `this.x = …` in a class's code: (class, member, scope, value).
    this_assigned: Vec<(String, String, usize, Expr)>,
    /// Assignments to plain names: (scope, name, value).
    assigned: Vec<(usize, String, Expr)>,
    /// What units return: (unit, scope, value, declared by a type or `async`) — one per
    /// `return` otherwise.
    returned: Vec<(String, usize, Expr, bool)>,
    /// Every name an unparsed region of the file spells: it may be declared there, so
    /// where it is unbound it is not taken for a global.
    declared: HashSet<String>,
    specs: Vec<String>,
    es_module: bool,
    commonjs: bool,
    memo: Vec<Option<Value>>,
    busy: Vec<bool>,
}

impl<'s> Walk<'s> {
    fn new(source: &'s str) -> Self {
        let mut walk = Self {
            source,
            scopes: Vec::new(),
            bindings: Vec::new(),
            ctxs: Vec::new(),
            sites: Vec::new(),
            classes: Vec::new(),
            namespaces: Vec::new(),
            exports: Vec::new(),
            stars: Vec::new(),
            whole: Vec::new(),
            cjs_named: Vec::new(),
            this_assigned: Vec::new(),
            assigned: Vec::new(),
            returned: Vec::new(),
            declared: HashSet::default(),
            specs: Vec::new(),
            es_module: false,
            commonjs: false,
            memo: Vec::new(),
            busy: Vec::new(),
        };
        let scope = walk.push_scope(None, true);
        walk.push_ctx(Ctx {
            scope,
            caller: MODULE.to_owned(),
            naming: Some(Naming {
                prefix: String::new(),
                kind: Kind::Module,
            }),
            this: This::Unknown,
            namespace: None,
            expr: None,
            returns: None,
        });
        walk
    }

    fn run(&mut self, root: Node<'_>) {
        let mut pending = vec![Frame {
            node: root,
            ctx: 0,
            own_scope: true,
        }];
        let mut children = Vec::new();
        while let Some(frame) = pending.pop() {
            self.visit(&frame, &mut children);
            pending.extend(children.drain(..).rev());
        }
    }

    // ----- scopes, contexts, bindings -------------------------------------------------

    fn push_scope(&mut self, parent: Option<usize>, hoist: bool) -> usize {
        self.scopes.push(Scope {
            parent,
            hoist,
            names: HashMap::default(),
        });
        self.scopes.len() - 1
    }

    fn push_ctx(&mut self, ctx: Ctx) -> usize {
        self.ctxs.push(ctx);
        self.ctxs.len() - 1
    }

    /// `ctx` in expression position: same scope, caller and `this`; nothing is a unit.
    fn expr_ctx(&mut self, ctx: usize) -> usize {
        if self.ctxs[ctx].naming.is_none() {
            return ctx;
        }
        if let Some(expr) = self.ctxs[ctx].expr {
            return expr;
        }
        let mut copy = self.ctxs[ctx].clone();
        copy.naming = None;
        copy.expr = None;
        let expr = self.push_ctx(copy);
        self.ctxs[ctx].expr = Some(expr);
        expr
    }

    /// `ctx` with its own block scope (and a module-level block's naming).
    fn block_ctx(&mut self, ctx: usize) -> usize {
        let mut copy = self.ctxs[ctx].clone();
        copy.scope = self.push_scope(Some(copy.scope), false);
        copy.expr = None;
        if let Some(naming) = &mut copy.naming
            && naming.kind == Kind::Module
        {
            naming.kind = Kind::Block;
        }
        self.push_ctx(copy)
    }

    fn hoist_scope(&self, mut scope: usize) -> usize {
        while !self.scopes[scope].hoist {
            match self.scopes[scope].parent {
                Some(parent) => scope = parent,
                None => break,
            }
        }
        scope
    }

    fn bind(&mut self, scope: usize, name: &str, init: Init) {
        if let Some(&id) = self.scopes[scope].names.get(name) {
            let binding = &mut self.bindings[id];
            match (&mut binding.init, init) {
                (_, Init::TypeOnly | Init::TypeAlias(..)) => {}
                (Init::Namespace(known) | Init::Merged(_, known), Init::Namespace(more)) => {
                    known.extend(more);
                }
                (existing @ (Init::TypeOnly | Init::TypeAlias(..) | Init::Signature), init) => {
                    *existing = init;
                }
                (Init::Value(Value::Func(_)) | Init::Merged(..), Init::Signature) => {}
                (Init::Merged(..), Init::Enum) => {}
                (existing @ Init::Enum, init @ Init::Namespace(_)) => *existing = init,
                (Init::Namespace(_), Init::Enum) => {}
                // A function, class or import merged with a namespace of the same name.
                (
                    existing @ (Init::Value(_) | Init::Expr(..) | Init::Import(..)),
                    Init::Namespace(more),
                ) => {
                    let callable = std::mem::replace(existing, Init::TypeOnly);
                    *existing = Init::Merged(Box::new(callable), more);
                }
                (
                    existing @ Init::Namespace(_),
                    init @ (Init::Value(_) | Init::Expr(..) | Init::Import(..)),
                ) => {
                    let Init::Namespace(known) = std::mem::replace(existing, Init::TypeOnly) else {
                        return;
                    };
                    *existing = Init::Merged(Box::new(init), known);
                }
                (_, _) => binding.redeclared = true,
            }
            return;
        }
        self.bindings.push(Binding {
            init,
            assigned: Vec::new(),
            redeclared: false,
        });
        let id = self.bindings.len() - 1;
        self.scopes[scope].names.insert(name.to_owned(), id);
    }

    fn lookup(&self, mut scope: usize, name: &str) -> Option<usize> {
        loop {
            if let Some(&id) = self.scopes[scope].names.get(name) {
                return Some(id);
            }
            scope = self.scopes[scope].parent?;
        }
    }

    /// The unit a declaration named `name` is in `ctx`, if the extractor makes it one.
    /// `block_ok`: a `var` declarator, which is a unit in a module-level block too.
    fn unit_in(&self, ctx: usize, name: &str, block_ok: bool) -> Option<String> {
        let naming = self.ctxs[ctx].naming.as_ref()?;
        match naming.kind {
            Kind::Module | Kind::Function => Some(qualify(&naming.prefix, name)),
            Kind::Block => block_ok.then(|| qualify(&naming.prefix, name)),
        }
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        self.source.get(node.byte_range()).unwrap_or("")
    }

    // ----- the walk ---------------------------------------------------------------------

    fn visit<'t>(&mut self, frame: &Frame<'t>, out: &mut Vec<Frame<'t>>) {
        let node = frame.node;
        let ctx = frame.ctx;
        match node.kind_name() {
            "comment"
            | "type_annotation"
            | "type_arguments"
            | "type_parameters"
            | "implements_clause"
            | "enum_body"
            | "asserts_annotation"
            | "type_predicate_annotation" => {}
            "interface_declaration" | "type_alias_declaration" => {
                if let Some(name) = node.field(&fields::NAME) {
                    let name = self.text(name).to_owned();
                    let scope = self.ctxs[ctx].scope;
                    let aliased = node
                        .field(&fields::VALUE)
                        .map(|value| self.type_expr(value));
                    let init = match aliased {
                        // `type Queue = LinkedMap<K, V>`: where a type is read, the class.
                        Some(Expr::Type(named)) => Init::TypeAlias(scope, *named),
                        Some(external @ Expr::Value(Value::External)) => {
                            Init::TypeAlias(scope, external)
                        }
                        _ => Init::TypeOnly,
                    };
                    self.bind(scope, &name, init);
                }
            }
            "program" => self.keep_all(node, ctx, out),
            "ERROR" => {
                // What did not parse may declare any name it spells: none of them is
                // taken for a global.
                self.declare_spelled(node);
                self.expressions(node, ctx, out);
            }
            "statement_block" | "switch_body" => {
                let ctx = if frame.own_scope {
                    ctx
                } else {
                    self.block_ctx(ctx)
                };
                self.keep_all(node, ctx, out);
            }
            "else_clause" => self.keep_all(node, ctx, out),
            "if_statement" => {
                self.fields(
                    node,
                    ctx,
                    &[&fields::CONSEQUENCE, &fields::ALTERNATIVE],
                    &[&fields::CONDITION],
                    out,
                );
            }
            "try_statement" => {
                self.fields(
                    node,
                    ctx,
                    &[&fields::BODY, &fields::HANDLER, &fields::FINALIZER],
                    &[],
                    out,
                );
            }
            "finally_clause" => self.fields(node, ctx, &[&fields::BODY], &[], out),
            "catch_clause" => self.catch_clause(node, ctx, out),
            "switch_statement" => self.fields(node, ctx, &[&fields::BODY], &[&fields::VALUE], out),
            "switch_case" | "switch_default" => {
                let expr = self.expr_ctx(ctx);
                if let Some(value) = node.field(&fields::VALUE) {
                    out.push(frame_of(value, expr));
                }
                let mut cursor = node.walk();
                for body in node.children_by_field_name("body", &mut cursor) {
                    out.push(frame_of(body, ctx));
                }
            }
            "while_statement" | "do_statement" | "with_statement" => {
                self.fields(
                    node,
                    ctx,
                    &[&fields::BODY],
                    &[&fields::CONDITION, &fields::OBJECT],
                    out,
                );
            }
            "labeled_statement" => self.fields(node, ctx, &[&fields::BODY], &[], out),
            "for_statement" => self.for_statement(node, ctx, out),
            "for_in_statement" => self.for_in(node, ctx, out),
            "export_statement" => self.export(node, ctx, out),
            "import_statement" => self.import(node, ctx),
            "import_alias" => self.import_alias(node, ctx),
            "expression_statement" => {
                let namespace = node
                    .named_child(0)
                    .filter(|child| child.kind_name() == "internal_module");
                match namespace {
                    Some(namespace) => out.push(frame_of(namespace, ctx)),
                    None => self.expressions(node, ctx, out),
                }
            }
            "internal_module" | "module" => self.namespace(node, ctx, out),
            "ambient_declaration" => self.ambient(node, ctx),
            "function_declaration" | "generator_function_declaration" => {
                self.function_declaration(node, ctx, out);
            }
            "function_signature" => {
                if let Some(name) = node.field(&fields::NAME) {
                    let name = self.text(name).to_owned();
                    self.bind(self.ctxs[ctx].scope, &name, Init::Signature);
                }
            }
            "class_declaration" | "abstract_class_declaration" => {
                self.class_declaration(node, ctx, out);
            }
            "lexical_declaration" | "variable_declaration" => self.declarators(node, ctx, out),
            "enum_declaration" => {
                if let Some(name) = node.field(&fields::NAME) {
                    let name = self.text(name).to_owned();
                    self.bind(self.ctxs[ctx].scope, &name, Init::Enum);
                }
            }
            "arrow_function" | "function_expression" | "generator_function" => {
                self.function(node, ctx, None, None, out);
            }
            "method_definition" => {
                self.function(node, ctx, None, Some(This::Unknown), out);
            }
            "class" => self.class(node, ctx, None, out),
            "call_expression" => self.call(node, ctx, out),
            "return_statement" => {
                if let Some(unit) = self.ctxs[ctx].returns.clone() {
                    let value = node
                        .named_child(0)
                        .map_or_else(Expr::unknown, |value| self.expr(value, ctx, 0));
                    self.returned
                        .push((unit, self.ctxs[ctx].scope, value, false));
                }
                self.expressions(node, ctx, out);
            }
            "new_expression" => self.new_expression(node, ctx, out),
            "assignment_expression" => self.assignment(node, ctx, out),
            "augmented_assignment_expression" => {
                if let Some(left) = node.field(&fields::LEFT)
                    && left.kind_name() == "identifier"
                {
                    let name = self.text(left).to_owned();
                    self.assigned
                        .push((self.ctxs[ctx].scope, name, Expr::unknown()));
                }
                self.expressions(node, ctx, out);
            }
            _ => self.expressions(node, ctx, out),
        }
    }

    fn declare_spelled(&mut self, node: Node<'_>) {
        let mut pending = vec![node];
        while let Some(node) = pending.pop() {
            if node.child_count() == 0 {
                if node.kind_name().ends_with("identifier") {
                    let name = self.text(node).to_owned();
                    self.declared.insert(name);
                }
            } else {
                let mut cursor = node.walk();
                pending.extend(node.children(&mut cursor));
            }
        }
    }

    /// Every named child, in the same context (statement lists).
    fn keep_all<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let mut cursor = node.walk();
        out.extend(
            node.named_children(&mut cursor)
                .map(|child| frame_of(child, ctx)),
        );
    }

    /// Every named child in expression position.
    fn expressions<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        if node.named_child_count() == 0 {
            return;
        }
        let expr = self.expr_ctx(ctx);
        let mut cursor = node.walk();
        out.extend(
            node.named_children(&mut cursor)
                .map(|child| frame_of(child, expr)),
        );
    }

    /// The `keep` fields as statements (declarations there may be units), the `expr`
    /// fields as expressions.
    fn fields<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        keep: &[&Field],
        expr: &[&Field],
        out: &mut Vec<Frame<'t>>,
    ) {
        for field in keep {
            if let Some(child) = node.field(field) {
                out.push(frame_of(child, ctx));
            }
        }
        let expr_ctx = self.expr_ctx(ctx);
        for field in expr {
            if let Some(child) = node.field(field) {
                out.push(frame_of(child, expr_ctx));
            }
        }
    }

    fn catch_clause<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let inner = self.block_ctx(ctx);
        if let Some(parameter) = node.field(&fields::PARAMETER) {
            let scope = self.ctxs[inner].scope;
            self.bind_pattern(scope, parameter, None);
        }
        if let Some(body) = node.field(&fields::BODY) {
            out.push(Frame {
                node: body,
                ctx: inner,
                own_scope: true,
            });
        }
    }

    fn for_statement<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let inner = self.block_ctx(ctx);
        // The extractor reads a `var` header (its declarators are units); a `let` header
        // binds in the loop only.
        let naming = self.ctxs[ctx].naming.clone();
        self.ctxs[inner].naming = naming;
        if let Some(initializer) = node.field(&fields::INITIALIZER) {
            let header = if initializer.kind_name() == "variable_declaration" {
                inner
            } else {
                self.expr_ctx(inner)
            };
            out.push(frame_of(initializer, header));
        }
        let expr = self.expr_ctx(inner);
        for field in [&fields::CONDITION, &fields::INCREMENT] {
            if let Some(child) = node.field(field) {
                out.push(frame_of(child, expr));
            }
        }
        if let Some(body) = node.field(&fields::BODY) {
            out.push(frame_of(body, inner));
        }
    }

    fn for_in<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let inner = self.block_ctx(ctx);
        let naming = self.ctxs[ctx].naming.clone();
        self.ctxs[inner].naming = naming;
        if let Some(left) = node.field(&fields::LEFT) {
            let kind = node
                .field(&fields::KIND)
                .map(|kind| self.text(kind).to_owned());
            match kind.as_deref() {
                Some("var") => {
                    let scope = self.hoist_scope(self.ctxs[ctx].scope);
                    self.bind_pattern(scope, left, None);
                }
                Some(_) => {
                    let scope = self.ctxs[inner].scope;
                    self.bind_pattern(scope, left, None);
                }
                None => self.assign_pattern(inner, left),
            }
        }
        let expr = self.expr_ctx(inner);
        for field in [&fields::RIGHT, &fields::VALUE] {
            if let Some(child) = node.field(field) {
                out.push(frame_of(child, expr));
            }
        }
        if let Some(body) = node.field(&fields::BODY) {
            out.push(frame_of(body, inner));
        }
    }

    /// Binds the names of a binding pattern; `base` is the destructured value (`None`:
    /// unknown), so `{ a, b: c } = v` binds `a` to `v.a` and `c` to `v.b`.
    fn bind_pattern(&mut self, scope: usize, pattern: Node<'_>, base: Option<&Expr>) {
        let mut pending = vec![(pattern, base.cloned())];
        while let Some((node, base)) = pending.pop() {
            match node.kind_name() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    let name = self.text(node).to_owned();
                    let init = match base {
                        Some(base) => Init::Expr(scope, base),
                        None => Init::Value(Value::Unknown),
                    };
                    self.bind(scope, &name, init);
                }
                "object_pattern" => {
                    let mut cursor = node.walk();
                    for child in node.named_children(&mut cursor) {
                        match child.kind_name() {
                            "shorthand_property_identifier_pattern" => {
                                let name = self.text(child).to_owned();
                                let value = base
                                    .as_ref()
                                    .map(|base| Expr::Member(Box::new(base.clone()), name));
                                pending.push((child, value));
                            }
                            "pair_pattern" => {
                                let key = child
                                    .field(&fields::KEY)
                                    .and_then(|key| self.member_name(key));
                                if let Some(value) = child.field(&fields::VALUE) {
                                    let member = match (&base, key) {
                                        (Some(base), Some(key)) => {
                                            Some(Expr::Member(Box::new(base.clone()), key))
                                        }
                                        _ => None,
                                    };
                                    pending.push((value, member));
                                }
                            }
                            "object_assignment_pattern" => {
                                if let Some(left) = child.field(&fields::LEFT) {
                                    let value = match (&base, left.kind_name()) {
                                        (Some(base), "shorthand_property_identifier_pattern") => {
                                            let name = self.text(left).to_owned();
                                            Some(Expr::Member(Box::new(base.clone()), name))
                                        }
                                        _ => None,
                                    };
                                    pending.push((left, value));
                                }
                            }
                            _ => pending.push((child, None)),
                        }
                    }
                }
                "assignment_pattern" => {
                    if let Some(left) = node.field(&fields::LEFT) {
                        pending.push((left, None));
                    }
                }
                "array_pattern" | "rest_pattern" => {
                    let mut cursor = node.walk();
                    for child in node.named_children(&mut cursor) {
                        pending.push((child, None));
                    }
                }
                _ => {}
            }
        }
    }

    /// An assignment to a pattern (`[a, b] = …`, `for (x of …)`): every name it writes
    /// becomes unknown.
    fn assign_pattern(&mut self, ctx: usize, pattern: Node<'_>) {
        let scope = self.ctxs[ctx].scope;
        let mut pending = vec![pattern];
        while let Some(node) = pending.pop() {
            match node.kind_name() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    let name = self.text(node).to_owned();
                    self.assigned.push((scope, name, Expr::unknown()));
                }
                "member_expression" | "subscript_expression" => {}
                _ => {
                    let mut cursor = node.walk();
                    pending.extend(node.named_children(&mut cursor));
                }
            }
        }
    }

    fn type_parameters(&mut self, node: Node<'_>, scope: usize) {
        let Some(parameters) = node.field(&fields::TYPE_PARAMETERS) else {
            return;
        };
        let mut cursor = parameters.walk();
        let names: Vec<String> = parameters
            .named_children(&mut cursor)
            .filter_map(|parameter| parameter.field(&fields::NAME))
            .map(|name| self.text(name).to_owned())
            .collect();
        for name in names {
            self.bind(scope, &name, Init::TypeOnly);
        }
    }

    fn function_declaration<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let Some(name) = node.field(&fields::NAME) else {
            return;
        };
        let name = self.text(name).to_owned();
        let unit = self.unit_in(ctx, &name, false);
        let value = match &unit {
            Some(qualified) => Value::Func(qualified.clone()),
            None => Value::Owned(self.ctxs[ctx].caller.clone()),
        };
        self.bind(self.ctxs[ctx].scope, &name, Init::Value(value));
        self.function(node, ctx, unit, None, out);
    }

    /// A function's parameters and body. `unit`: its qualified name when it is a unit;
    /// `this`: what `this` is inside (default: the outer `this` for an arrow, unknown
    /// otherwise). Returns nothing; parameter properties are read by [`Self::class`].
    fn function<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        unit: Option<String>,
        this: Option<This>,
        out: &mut Vec<Frame<'t>>,
    ) -> Vec<(String, Expr)> {
        let outer = &self.ctxs[ctx];
        let this = this.unwrap_or_else(|| {
            if node.kind_name() == "arrow_function" {
                outer.this.clone()
            } else {
                This::Unknown
            }
        });
        let caller = unit.clone().unwrap_or_else(|| outer.caller.clone());
        let outer_scope = outer.scope;
        let scope = self.push_scope(Some(outer_scope), true);
        if matches!(
            node.kind_name(),
            "function_expression" | "generator_function"
        ) && let Some(name) = node.field(&fields::NAME)
        {
            let name = self.text(name).to_owned();
            let value = match &unit {
                Some(qualified) => Value::Func(qualified.clone()),
                None => Value::Owned(caller.clone()),
            };
            self.bind(scope, &name, Init::Value(value));
        }
        self.type_parameters(node, scope);
        if let Some(qualified) = &unit {
            // What calling the unit returns, when it says: its return type, a promise
            // (`async`) or an iterator (a generator).
            let declared = node
                .field(&fields::RETURN_TYPE)
                .and_then(|annotation| annotation.named_child(0))
                .map(|ty| match ty.kind_name() {
                    "this_type" => Expr::This(this.clone()),
                    _ => self.type_expr(ty),
                });
            let promised = has_token(node, "async")
                || has_token(node, "*")
                || node.kind_name().starts_with("generator");
            match declared {
                Some(declared) => self
                    .returned
                    .push((qualified.clone(), scope, declared, true)),
                None if promised => {
                    self.returned
                        .push((qualified.clone(), scope, Expr::external(), true));
                }
                None => {}
            }
        }
        let inner = self.push_ctx(Ctx {
            scope,
            caller,
            naming: unit.clone().map(|prefix| Naming {
                prefix,
                kind: Kind::Function,
            }),
            this,
            namespace: None,
            expr: None,
            returns: unit.clone(),
        });
        let properties = self.parameters(node, inner, out);
        if let Some(body) = node.field(&fields::BODY) {
            if body.kind_name() == "statement_block" {
                out.push(Frame {
                    node: body,
                    ctx: inner,
                    own_scope: true,
                });
            } else {
                if let Some(qualified) = unit {
                    let value = self.expr(body, inner, 0);
                    self.returned.push((qualified, scope, value, false));
                }
                let expr = self.expr_ctx(inner);
                out.push(frame_of(body, expr));
            }
        }
        properties
    }

    /// Binds a function's parameters (a typed one to an instance of its type) and queues
    /// their defaults and decorators; returns the parameter properties
    /// (`constructor(private s: S)`).
    fn parameters<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        out: &mut Vec<Frame<'t>>,
    ) -> Vec<(String, Expr)> {
        let scope = self.ctxs[ctx].scope;
        let mut properties = Vec::new();
        if let Some(parameter) = node.field(&fields::PARAMETER) {
            self.bind_pattern(scope, parameter, None);
        }
        let Some(parameters) = node.field(&fields::PARAMETERS) else {
            return properties;
        };
        let expr = self.expr_ctx(ctx);
        let mut cursor = parameters.walk();
        let list: Vec<Node<'t>> = parameters.named_children(&mut cursor).collect();
        for parameter in list {
            if !matches!(
                parameter.kind_name(),
                "required_parameter" | "optional_parameter"
            ) {
                continue;
            }
            let ty = parameter.field(&fields::TYPE).map(|ty| self.type_expr(ty));
            let default = parameter.field(&fields::VALUE);
            if let Some(default) = default {
                out.push(frame_of(default, expr));
            }
            let mut inner = parameter.walk();
            for child in parameter.named_children(&mut inner) {
                if child.kind_name() == "decorator" {
                    out.push(frame_of(child, expr));
                }
            }
            let Some(pattern) = parameter.field(&fields::PATTERN) else {
                continue;
            };
            if pattern.kind_name() != "identifier" {
                let base = default.map(|default| self.expr(default, ctx, 0));
                self.bind_pattern(scope, pattern, base.as_ref());
                continue;
            }
            let name = self.text(pattern).to_owned();
            let value = match (ty, default) {
                (Some(ty), _) => ty,
                (None, Some(default)) => self.expr(default, ctx, 0),
                (None, None) => Expr::unknown(),
            };
            if is_parameter_property(parameter) {
                properties.push((name.clone(), value.clone()));
            }
            self.bind(scope, &name, Init::Expr(scope, value));
        }
        properties
    }

    fn class_declaration<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let Some(name) = node.field(&fields::NAME) else {
            return;
        };
        let name = self.text(name).to_owned();
        let unit = self.unit_in(ctx, &name, false);
        let value = unit.clone().map_or(Value::Unknown, Value::Class);
        self.bind(self.ctxs[ctx].scope, &name, Init::Value(value));
        self.class(node, ctx, unit, out);
    }

    /// A class: its heritage and decorators (read outside it), its members (units when
    /// the class is one: `unit` is its qualified name).
    fn class<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        unit: Option<String>,
        out: &mut Vec<Frame<'t>>,
    ) {
        let outer_expr = self.expr_ctx(ctx);
        let outer_scope = self.ctxs[ctx].scope;
        let class_scope = self.push_scope(Some(outer_scope), false);
        if node.kind_name() == "class"
            && let Some(name) = node.field(&fields::NAME)
        {
            let name = self.text(name).to_owned();
            let value = unit.clone().map_or(Value::Unknown, Value::Class);
            self.bind(class_scope, &name, Init::Value(value));
        }
        self.type_parameters(node, class_scope);
        let mut extends = None;
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        for child in &children {
            match child.kind_name() {
                "decorator" => out.push(frame_of(*child, outer_expr)),
                "class_heritage" => {
                    let mut inner = child.walk();
                    let clauses: Vec<Node<'t>> = child.named_children(&mut inner).collect();
                    for clause in clauses {
                        if clause.kind_name() != "extends_clause" {
                            continue;
                        }
                        if let Some(value) = clause.field(&fields::VALUE) {
                            extends = Some(self.expr(value, outer_expr, 0));
                            out.push(frame_of(value, outer_expr));
                        }
                    }
                }
                _ => {}
            }
        }
        let index = unit.as_ref().map(|name| {
            self.classes.push(RawClass {
                name: name.clone(),
                scope: outer_scope,
                extends,
                members: Vec::new(),
            });
            self.classes.len() - 1
        });
        let Some(body) = node.field(&fields::BODY) else {
            return;
        };
        let caller = unit
            .clone()
            .unwrap_or_else(|| self.ctxs[ctx].caller.clone());
        let (instance, statik) = match &unit {
            Some(name) => (This::Instance(name.clone()), This::Static(name.clone())),
            None => (This::Unknown, This::Unknown),
        };
        let member_ctx = |walk: &mut Self, this: This| {
            walk.push_ctx(Ctx {
                scope: class_scope,
                caller: caller.clone(),
                naming: None,
                this,
                namespace: None,
                expr: None,
                returns: None,
            })
        };
        let instance_ctx = member_ctx(self, instance.clone());
        let static_ctx = member_ctx(self, statik.clone());
        let mut cursor = body.walk();
        let members: Vec<Node<'t>> = body.named_children(&mut cursor).collect();
        for member in members {
            let is_static = has_token(member, "static");
            let (member_ctx, this) = if is_static {
                (static_ctx, statik.clone())
            } else {
                (instance_ctx, instance.clone())
            };
            let name = member
                .field(&fields::NAME)
                .and_then(|name| self.member_name(name));
            let member_unit = match (&unit, &name) {
                (Some(class), Some(name)) => Some(qualify(class, name)),
                _ => None,
            };
            match member.kind_name() {
                "method_definition" => {
                    if let (Some(index), Some(name), Some(qualified)) = (index, &name, &member_unit)
                    {
                        self.add_member(index, name, is_static, Value::Func(qualified.clone()));
                    }
                    let properties =
                        self.function(member, member_ctx, member_unit, Some(this), out);
                    if let (Some(index), Some("constructor")) = (index, name.as_deref()) {
                        for (property, value) in properties {
                            self.classes[index].members.push(RawMember {
                                name: property,
                                is_static: false,
                                scope: class_scope,
                                value,
                            });
                        }
                    }
                }
                "method_signature" | "abstract_method_signature" => {
                    if let (Some(index), Some(name), Some(qualified)) = (index, &name, &member_unit)
                    {
                        self.add_member(index, name, is_static, Value::Func(qualified.clone()));
                    }
                }
                "public_field_definition" => {
                    let value = member.field(&fields::VALUE).map(unwrap_expression);
                    if let Some(function) = value.filter(|value| is_function(value.kind_name())) {
                        if let (Some(index), Some(name), Some(qualified)) =
                            (index, &name, &member_unit)
                        {
                            self.add_member(index, name, is_static, Value::Func(qualified.clone()));
                        }
                        self.function(function, member_ctx, member_unit, None, out);
                    } else {
                        let ty = member.field(&fields::TYPE).map(|ty| self.type_expr(ty));
                        let written = value.map(|value| self.expr(value, member_ctx, 0));
                        let field = match (written, ty) {
                            (Some(value), Some(ty)) => Expr::Or(Box::new(ty), Box::new(value)),
                            (Some(value), None) => value,
                            (None, Some(ty)) => ty,
                            (None, None) => Expr::unknown(),
                        };
                        if let (Some(index), Some(name)) = (index, name) {
                            self.classes[index].members.push(RawMember {
                                name,
                                is_static,
                                scope: class_scope,
                                value: field,
                            });
                        }
                        if let Some(value) = value {
                            out.push(frame_of(value, member_ctx));
                        }
                    }
                    let mut inner = member.walk();
                    for child in member.named_children(&mut inner) {
                        if child.kind_name() == "decorator" {
                            out.push(frame_of(child, instance_ctx));
                        }
                    }
                }
                "class_static_block" => {
                    if let Some(block) = member.field(&fields::BODY) {
                        out.push(frame_of(block, static_ctx));
                    }
                }
                "decorator" => out.push(frame_of(member, instance_ctx)),
                _ => {}
            }
        }
    }

    fn add_member(&mut self, index: usize, name: &str, is_static: bool, value: Value) {
        let class = &mut self.classes[index];
        let known = class
            .members
            .iter()
            .any(|member| member.name == name && member.is_static == is_static);
        if !known {
            class.members.push(RawMember {
                name: name.to_owned(),
                is_static,
                scope: 0,
                value: Expr::Value(value),
            });
        }
    }

    fn declarators<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let is_var = node.kind_name() == "variable_declaration";
        let scope = self.ctxs[ctx].scope;
        let bind_scope = if is_var {
            self.hoist_scope(scope)
        } else {
            scope
        };
        let expr_ctx = self.expr_ctx(ctx);
        let mut cursor = node.walk();
        let declarators: Vec<Node<'t>> = node
            .named_children(&mut cursor)
            .filter(|child| child.kind_name() == "variable_declarator")
            .collect();
        for declarator in declarators {
            let Some(name_node) = declarator.field(&fields::NAME) else {
                continue;
            };
            let value = declarator.field(&fields::VALUE).map(unwrap_expression);
            if name_node.kind_name() != "identifier" {
                let base = value.map(|value| self.expr(value, ctx, 0));
                self.bind_pattern(bind_scope, name_node, base.as_ref());
                if let Some(value) = value {
                    out.push(frame_of(value, expr_ctx));
                }
                continue;
            }
            let name = self.text(name_node).to_owned();
            match value {
                Some(function) if is_function(function.kind_name()) => {
                    let unit = self.unit_in(ctx, &name, is_var);
                    let bound = match &unit {
                        Some(qualified) => Value::Func(qualified.clone()),
                        None => Value::Owned(self.ctxs[ctx].caller.clone()),
                    };
                    self.bind(bind_scope, &name, Init::Value(bound));
                    self.function(function, ctx, unit, None, out);
                }
                Some(class) if class.kind_name() == "class" => {
                    let unit = self.unit_in(ctx, &name, is_var);
                    let bound = unit.clone().map_or(Value::Unknown, Value::Class);
                    self.bind(bind_scope, &name, Init::Value(bound));
                    self.class(class, ctx, unit, out);
                }
                _ => {
                    let ty = declarator.field(&fields::TYPE).map(|ty| self.type_expr(ty));
                    let written = value.map(|value| self.expr(value, ctx, 0));
                    let init = match (written, ty) {
                        (Some(value), Some(ty)) => {
                            Init::Expr(scope, Expr::Or(Box::new(ty), Box::new(value)))
                        }
                        (Some(value), None) => Init::Expr(scope, value),
                        (None, Some(ty)) => Init::Expr(scope, ty),
                        (None, None) => Init::Declared,
                    };
                    self.bind(bind_scope, &name, init);
                    if let Some(value) = value {
                        out.push(frame_of(value, expr_ctx));
                    }
                }
            }
        }
    }

    fn import(&mut self, node: Node<'_>, ctx: usize) {
        self.es_module = true;
        let scope = self.ctxs[ctx].scope;
        let statement_source = node
            .field(&fields::SOURCE)
            .map(|source| unquote(self.text(source)).to_owned());
        if let Some(spec) = &statement_source {
            self.specs.push(spec.clone());
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind_name() {
                "import_clause" => {
                    let Some(spec) = statement_source.clone() else {
                        continue;
                    };
                    let mut inner = child.walk();
                    let parts: Vec<Node<'_>> = child.named_children(&mut inner).collect();
                    for part in parts {
                        self.import_part(scope, &spec, part);
                    }
                }
                "import_require_clause" => {
                    let spec = child
                        .field(&fields::SOURCE)
                        .map(|source| unquote(self.text(source)).to_owned());
                    let name = child
                        .named_child(0)
                        .filter(|name| name.kind_name() == "identifier");
                    if let (Some(spec), Some(name)) = (spec, name) {
                        self.specs.push(spec.clone());
                        let name = self.text(name).to_owned();
                        self.bind(scope, &name, Init::Import(spec, Imported::Require));
                    }
                }
                _ => {}
            }
        }
    }

    fn import_part(&mut self, scope: usize, spec: &str, part: Node<'_>) {
        match part.kind_name() {
            "identifier" => {
                let name = self.text(part).to_owned();
                let init = Init::Import(spec.to_owned(), Imported::Named("default".to_owned()));
                self.bind(scope, &name, init);
            }
            "namespace_import" => {
                if let Some(name) = part.named_child(0) {
                    let name = self.text(name).to_owned();
                    self.bind(
                        scope,
                        &name,
                        Init::Import(spec.to_owned(), Imported::Namespace),
                    );
                }
            }
            "named_imports" => {
                let mut cursor = part.walk();
                let specifiers: Vec<Node<'_>> = part.named_children(&mut cursor).collect();
                for specifier in specifiers {
                    let Some(name) = specifier.field(&fields::NAME) else {
                        continue;
                    };
                    let imported = unquote(self.text(name)).to_owned();
                    let local = specifier
                        .field(&fields::ALIAS)
                        .map_or_else(|| imported.clone(), |alias| self.text(alias).to_owned());
                    let init = Init::Import(spec.to_owned(), Imported::Named(imported));
                    self.bind(scope, &local, init);
                }
            }
            _ => {}
        }
    }

    /// `import A = N.B;` (a TS namespace alias).
    fn import_alias(&mut self, node: Node<'_>, ctx: usize) {
        let mut cursor = node.walk();
        let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        if let [name, target, ..] = parts.as_slice() {
            let name = self.text(*name).to_owned();
            let value = self.dotted(*target);
            let scope = self.ctxs[ctx].scope;
            self.bind(scope, &name, Init::Expr(scope, value));
        }
    }

    /// `a.b.c` written as an identifier or `nested_identifier`.
    fn dotted(&self, node: Node<'_>) -> Expr {
        let mut parts = self.text(node).split('.').map(str::trim);
        let Some(first) = parts.next() else {
            return Expr::unknown();
        };
        parts.fold(Expr::Name(first.to_owned()), |base, part| {
            Expr::Member(Box::new(base), part.to_owned())
        })
    }

    fn export<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        self.es_module = true;
        let is_default = has_token(node, "default");
        let source = node
            .field(&fields::SOURCE)
            .map(|source| unquote(self.text(source)).to_owned());
        if let Some(spec) = &source {
            self.specs.push(spec.clone());
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        let expr = self.expr_ctx(ctx);
        for decorator in children
            .iter()
            .filter(|child| child.kind_name() == "decorator")
        {
            out.push(frame_of(*decorator, expr));
        }
        if let Some(declaration) = node.field(&fields::DECLARATION) {
            for name in self.declared_names(declaration) {
                let exported = if is_default { "default" } else { &name };
                self.export_name(ctx, exported, Expr::Name(name.clone()));
            }
            out.push(frame_of(declaration, ctx));
            return;
        }
        if let Some(value) = node.field(&fields::VALUE) {
            let value = unwrap_expression(value);
            if is_function(value.kind_name()) {
                let unit = self.unit_in(ctx, "default", false);
                let bound = match &unit {
                    Some(qualified) => Value::Func(qualified.clone()),
                    None => Value::Owned(self.ctxs[ctx].caller.clone()),
                };
                self.export_name(ctx, "default", Expr::Value(bound));
                self.function(value, ctx, unit, None, out);
            } else if value.kind_name() == "class" {
                let unit = self.unit_in(ctx, "default", false);
                let bound = unit.clone().map_or(Value::Unknown, Value::Class);
                self.export_name(ctx, "default", Expr::Value(bound));
                self.class(value, ctx, unit, out);
            } else {
                let written = self.expr(value, ctx, 0);
                self.export_name(ctx, "default", written);
                let expr = self.expr_ctx(ctx);
                out.push(frame_of(value, expr));
            }
            return;
        }
        if has_token(node, "=") {
            // `export = value` (TS CommonJS).
            if let Some(value) = children
                .iter()
                .find(|child| !matches!(child.kind_name(), "comment" | "decorator"))
            {
                let written = self.expr(*value, ctx, 0);
                self.whole.push((self.ctxs[ctx].scope, written));
                let expr = self.expr_ctx(ctx);
                out.push(frame_of(*value, expr));
            }
            return;
        }
        let mut listed = false;
        for child in children {
            match child.kind_name() {
                "export_clause" => {
                    listed = true;
                    let mut inner = child.walk();
                    let specifiers: Vec<Node<'t>> = child.named_children(&mut inner).collect();
                    for specifier in specifiers {
                        let Some(name) = specifier.field(&fields::NAME) else {
                            continue;
                        };
                        let name = unquote(self.text(name)).to_owned();
                        let exported = specifier.field(&fields::ALIAS).map_or_else(
                            || name.clone(),
                            |alias| unquote(self.text(alias)).to_owned(),
                        );
                        let value = match &source {
                            Some(spec) => Expr::Value(Value::Import {
                                spec: spec.clone(),
                                what: Imported::Named(name),
                                path: Vec::new(),
                            }),
                            None => Expr::Name(name),
                        };
                        self.export_name(ctx, &exported, value);
                    }
                }
                "namespace_export" => {
                    listed = true;
                    if let (Some(spec), Some(name)) = (&source, child.named_child(0)) {
                        let exported = unquote(self.text(name)).to_owned();
                        let value = Expr::Value(Value::Import {
                            spec: spec.clone(),
                            what: Imported::Namespace,
                            path: Vec::new(),
                        });
                        self.export_name(ctx, &exported, value);
                    }
                }
                _ => {}
            }
        }
        if !listed && let Some(spec) = source {
            self.stars.push(spec);
        }
    }

    fn export_name(&mut self, ctx: usize, name: &str, value: Expr) {
        match self.ctxs[ctx].namespace {
            Some(namespace) => self.namespaces[namespace]
                .exports
                .push((name.to_owned(), value)),
            None => self.exports.push((name.to_owned(), value)),
        }
    }

    /// The value names a declaration binds (`export <declaration>`).
    fn declared_names(&self, declaration: Node<'_>) -> Vec<String> {
        match declaration.kind_name() {
            "lexical_declaration" | "variable_declaration" => {
                let mut names = Vec::new();
                let mut cursor = declaration.walk();
                for declarator in declaration.named_children(&mut cursor) {
                    if let Some(name) = declarator.field(&fields::NAME) {
                        self.pattern_names(name, &mut names);
                    }
                }
                names
            }
            "ambient_declaration" => {
                let mut cursor = declaration.walk();
                declaration
                    .named_children(&mut cursor)
                    .flat_map(|inner| self.declared_names(inner))
                    .collect()
            }
            "interface_declaration" => Vec::new(),
            _ => declaration
                .field(&fields::NAME)
                .filter(|name| name.kind_name() != "string")
                .map(|name| self.text(name).to_owned())
                .into_iter()
                .collect(),
        }
    }

    fn pattern_names(&self, pattern: Node<'_>, names: &mut Vec<String>) {
        let mut pending = vec![pattern];
        while let Some(node) = pending.pop() {
            match node.kind_name() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    names.push(self.text(node).to_owned());
                }
                "pair_pattern" => pending.extend(node.field(&fields::VALUE)),
                "object_assignment_pattern" | "assignment_pattern" => {
                    pending.extend(node.field(&fields::LEFT));
                }
                _ => {
                    let mut cursor = node.walk();
                    pending.extend(node.named_children(&mut cursor));
                }
            }
        }
    }

    /// `namespace A.B { … }`: not a unit, but qualifies what it holds; its exports are
    /// the members of the namespace object bound to `A`.
    fn namespace<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let Some(name) = node.field(&fields::NAME) else {
            return;
        };
        if name.kind_name() == "string" {
            return;
        }
        let text: String = self
            .text(name)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let parts: Vec<&str> = text.split('.').collect();
        let outer_scope = self.ctxs[ctx].scope;
        let naming = self.ctxs[ctx]
            .naming
            .as_ref()
            .filter(|naming| naming.kind == Kind::Module)
            .map(|naming| Naming {
                prefix: qualify(&naming.prefix, &text),
                kind: Kind::Module,
            });
        // One namespace object per segment: `A` holds `B`, whose body this is.
        let mut scope = outer_scope;
        let mut parent: Option<usize> = None;
        let mut innermost = 0;
        for part in &parts {
            let body_scope = self.push_scope(Some(scope), true);
            self.namespaces.push(RawNamespace {
                scope: body_scope,
                exports: Vec::new(),
            });
            let index = self.namespaces.len() - 1;
            match parent {
                None => self.bind(outer_scope, part, Init::Namespace(vec![index])),
                Some(parent) => {
                    self.namespaces[parent]
                        .exports
                        .push(((*part).to_owned(), Expr::Namespace(index)));
                    self.bind(scope, part, Init::Namespace(vec![index]));
                }
            }
            parent = Some(index);
            scope = body_scope;
            innermost = index;
        }
        let inner = self.push_ctx(Ctx {
            scope,
            caller: self.ctxs[ctx].caller.clone(),
            naming,
            this: This::Unknown,
            namespace: Some(innermost),
            expr: None,
            returns: None,
        });
        if let Some(body) = node.field(&fields::BODY) {
            out.push(Frame {
                node: body,
                ctx: inner,
                own_scope: true,
            });
        }
    }

    /// `declare …`: names implemented outside the repository.
    fn ambient(&mut self, node: Node<'_>, ctx: usize) {
        let scope = self.ctxs[ctx].scope;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children {
            for name in self.declared_names(child) {
                self.bind(scope, &name, Init::Value(Value::External));
            }
        }
    }

    fn call<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        if let Some(function) = node.field(&fields::FUNCTION) {
            match function.kind_name() {
                // A dynamic `import()` loads a module; it calls no code of it.
                "import" => {}
                "super" => {
                    let this = self.ctxs[ctx].this.clone();
                    self.site(ctx, node, function, true, Expr::Super { this, call: true });
                }
                _ => {
                    if function.kind_name() == "identifier" && self.text(function) == "require" {
                        self.commonjs = true;
                        if let Some(spec) = require_spec(node, self.source) {
                            self.specs.push(spec.to_owned());
                        }
                    }
                    let callee = self.expr(function, ctx, 0);
                    self.site(ctx, node, function, false, callee);
                }
            }
        }
        self.expressions(node, ctx, out);
    }

    fn new_expression<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        if let Some(constructor) = node.field(&fields::CONSTRUCTOR) {
            let callee = self.expr(constructor, ctx, 0);
            self.site(ctx, node, constructor, true, callee);
        }
        self.expressions(node, ctx, out);
    }

    fn site(&mut self, ctx: usize, call: Node<'_>, callee: Node<'_>, new: bool, value: Expr) {
        let mut text = collapse(self.text(callee));
        if new && callee.kind_name() != "super" {
            text.insert_str(0, "new ");
        }
        let context = &self.ctxs[ctx];
        self.sites.push(RawSite {
            scope: context.scope,
            caller: context.caller.clone(),
            line: name_line(callee).unwrap_or_else(|| line_of(call)),
            text,
            new,
            callee: value,
        });
    }

    fn assignment<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let (Some(left), Some(right)) = (node.field(&fields::LEFT), node.field(&fields::RIGHT))
        else {
            self.expressions(node, ctx, out);
            return;
        };
        let scope = self.ctxs[ctx].scope;
        match left.kind_name() {
            "identifier" => {
                let name = self.text(left).to_owned();
                let value = self.expr(right, ctx, 0);
                self.assigned.push((scope, name, value));
            }
            "member_expression" => {
                let property = left
                    .field(&fields::PROPERTY)
                    .map(|property| self.text(property).to_owned());
                let object = left.field(&fields::OBJECT);
                match (object, property) {
                    (Some(object), Some(property))
                        if object.kind_name() == "identifier"
                            && self.text(object) == "module"
                            && property == "exports" =>
                    {
                        self.commonjs = true;
                        let value = self.expr(right, ctx, 0);
                        self.whole.push((scope, value));
                    }
                    (Some(object), Some(property)) if self.is_exports_object(object) => {
                        self.commonjs = true;
                        let value = self.expr(right, ctx, 0);
                        self.cjs_named.push((property, scope, value));
                    }
                    (Some(object), Some(property)) if object.kind_name() == "this" => {
                        if let This::Instance(class) = &self.ctxs[ctx].this {
                            let class = class.clone();
                            let value = self.expr(right, ctx, 0);
                            self.this_assigned.push((class, property, scope, value));
                        }
                    }
                    _ => {}
                }
            }
            "object_pattern" | "array_pattern" | "parenthesized_expression" => {
                self.assign_pattern(ctx, left);
            }
            _ => {}
        }
        self.expressions(node, ctx, out);
    }

    /// `exports` or `module.exports` as written.
    fn is_exports_object(&self, node: Node<'_>) -> bool {
        match node.kind_name() {
            "identifier" => self.text(node) == "exports",
            "member_expression" => {
                node.field(&fields::OBJECT).is_some_and(|object| {
                    object.kind_name() == "identifier" && self.text(object) == "module"
                }) && node
                    .field(&fields::PROPERTY)
                    .is_some_and(|property| self.text(property) == "exports")
            }
            _ => false,
        }
    }

    // ----- expressions and types ----------------------------------------------------------

    /// An expression as a value to look up later.
    fn expr(&self, node: Node<'_>, ctx: usize, depth: u32) -> Expr {
        if depth > MAX_DEPTH {
            return Expr::unknown();
        }
        let down = |inner: Node<'_>| self.expr(inner, ctx, depth + 1);
        match node.kind_name() {
            "identifier" => match self.text(node) {
                "undefined" | "NaN" | "Infinity" => Expr::external(),
                name => Expr::Name(name.to_owned()),
            },
            "this" => Expr::This(self.ctxs[ctx].this.clone()),
            "member_expression" => {
                let (Some(object), Some(property)) =
                    (node.field(&fields::OBJECT), node.field(&fields::PROPERTY))
                else {
                    return Expr::unknown();
                };
                let property = self.text(property).to_owned();
                if object.kind_name() == "super" {
                    let this = self.ctxs[ctx].this.clone();
                    return Expr::Member(Box::new(Expr::Super { this, call: false }), property);
                }
                if self.is_exports_object(node) {
                    return Expr::SelfExports;
                }
                Expr::Member(Box::new(down(object)), property)
            }
            "subscript_expression" => {
                let object = node.field(&fields::OBJECT);
                let index = node
                    .field(&fields::INDEX)
                    .filter(|index| index.kind_name() == "string");
                match (object, index) {
                    (Some(object), Some(index)) => {
                        Expr::Member(Box::new(down(object)), unquote(self.text(index)).to_owned())
                    }
                    _ => Expr::unknown(),
                }
            }
            "call_expression" => {
                let Some(function) = node.field(&fields::FUNCTION) else {
                    return Expr::unknown();
                };
                if function.kind_name() == "identifier"
                    && self.text(function) == "require"
                    && let Some(spec) = require_spec(node, self.source)
                {
                    return Expr::Require(spec.to_owned());
                }
                Expr::Call(Box::new(down(function)))
            }
            "await_expression" => node.named_child(0).map_or_else(Expr::unknown, down),
            "new_expression" => node
                .field(&fields::CONSTRUCTOR)
                .map_or_else(Expr::unknown, |constructor| {
                    Expr::New(Box::new(down(constructor)))
                }),
            "parenthesized_expression" | "non_null_expression" | "satisfies_expression" => {
                node.named_child(0).map_or_else(Expr::unknown, down)
            }
            // `x as T`, `<T>x`: what the assertion says, else what `x` is.
            "as_expression" => {
                let inner = node.named_child(0).map_or_else(Expr::unknown, down);
                match node.named_child(1) {
                    Some(ty) => Expr::Or(Box::new(self.type_expr(ty)), Box::new(inner)),
                    None => inner,
                }
            }
            "type_assertion" => {
                let count = u32::try_from(node.named_child_count()).unwrap_or(0);
                let inner = node
                    .named_child(count.saturating_sub(1))
                    .map_or_else(Expr::unknown, down);
                let ty = node
                    .named_child(0)
                    .filter(|arguments| arguments.kind_name() == "type_arguments")
                    .and_then(|arguments| arguments.named_child(0));
                match ty {
                    Some(ty) => Expr::Or(Box::new(self.type_expr(ty)), Box::new(inner)),
                    None => inner,
                }
            }
            "assignment_expression" => node.field(&fields::RIGHT).map_or_else(Expr::unknown, down),
            "arrow_function" | "function_expression" | "generator_function" => {
                Expr::Value(Value::Owned(self.ctxs[ctx].caller.clone()))
            }
            "object" => {
                let mut members = Vec::new();
                let mut cursor = node.walk();
                for member in node.named_children(&mut cursor) {
                    match member.kind_name() {
                        "pair" => {
                            let key = member
                                .field(&fields::KEY)
                                .and_then(|key| self.member_name(key));
                            let value = member.field(&fields::VALUE);
                            if let (Some(key), Some(value)) = (key, value) {
                                members.push((key, down(value)));
                            }
                        }
                        "shorthand_property_identifier" => {
                            let name = self.text(member).to_owned();
                            members.push((name.clone(), Expr::Name(name)));
                        }
                        "method_definition" => {
                            if let Some(name) = member
                                .field(&fields::NAME)
                                .and_then(|name| self.member_name(name))
                            {
                                let owner = Value::Owned(self.ctxs[ctx].caller.clone());
                                members.push((name, Expr::Value(owner)));
                            }
                        }
                        "spread_element" => {
                            if let Some(spread) = member.named_child(0) {
                                members.push((SPREAD.to_owned(), down(spread)));
                            }
                        }
                        _ => {}
                    }
                }
                Expr::Object(members)
            }
            "string" | "template_string" | "number" | "regex" | "true" | "false" | "null"
            | "array" => Expr::external(),
            _ => Expr::unknown(),
        }
    }

    /// What a type annotation makes a binding: an instance of the class it names, a
    /// builtin for primitive and array types, unknown otherwise.
    fn type_expr(&self, node: Node<'_>) -> Expr {
        let mut node = node;
        loop {
            match node.kind_name() {
                "type_annotation" | "parenthesized_type" | "opting_type_annotation" => {
                    match node.named_child(0) {
                        Some(inner) => node = inner,
                        None => return Expr::unknown(),
                    }
                }
                "generic_type" => match node.field(&fields::NAME) {
                    Some(name) => node = name,
                    None => return Expr::unknown(),
                },
                "union_type" => {
                    let mut cursor = node.walk();
                    let kept: Vec<Node<'_>> = node
                        .named_children(&mut cursor)
                        .filter(|member| !is_nullish_type(*member, self.source))
                        .collect();
                    match kept.as_slice() {
                        [only] => node = *only,
                        _ => return Expr::unknown(),
                    }
                }
                "type_identifier" => {
                    let name = self.text(node).to_owned();
                    return Expr::Type(Box::new(Expr::TypeName(name)));
                }
                "nested_type_identifier" => {
                    let module = node
                        .field(&fields::MODULE)
                        .map(|module| self.dotted(module));
                    let name = node.field(&fields::NAME);
                    return match (module, name) {
                        (Some(module), Some(name)) => Expr::Type(Box::new(Expr::Member(
                            Box::new(module),
                            self.text(name).to_owned(),
                        ))),
                        _ => Expr::unknown(),
                    };
                }
                "predefined_type" => {
                    return match self.text(node) {
                        "string" | "number" | "boolean" | "symbol" | "bigint" => Expr::external(),
                        _ => Expr::unknown(),
                    };
                }
                "array_type" | "tuple_type" | "literal_type" | "template_literal_type" => {
                    return Expr::external();
                }
                _ => return Expr::unknown(),
            }
        }
    }

    /// A member's name: identifiers and `#private` names as written, strings unquoted;
    /// computed names have none.
    fn member_name(&self, node: Node<'_>) -> Option<String> {
        let text = self.text(node);
        match node.kind_name() {
            "computed_property_name" => None,
            "string" => Some(unquote(text).to_owned()),
            _ => Some(text.to_owned()),
        }
    }

    // ----- after the walk: looking names up -------------------------------------------------

    fn finish(mut self) -> Facts {
        self.memo = vec![None; self.bindings.len()];
        self.busy = vec![false; self.bindings.len()];
        for (scope, name, value) in std::mem::take(&mut self.assigned) {
            if let Some(id) = self.lookup(scope, &name) {
                self.bindings[id].assigned.push((scope, value));
            }
        }
        let raw_sites = std::mem::take(&mut self.sites);
        let mut sites: Vec<Site> = raw_sites
            .into_iter()
            .map(|site| Site {
                callee: self.value(site.scope, &site.callee, 0),
                caller: site.caller,
                line: site.line,
                text: site.text,
                new: site.new,
            })
            .collect();
        sites.sort_by(|a, b| (a.line, &a.caller, &a.text).cmp(&(b.line, &b.caller, &b.text)));
        let classes = self.class_facts();
        let mut exports = ExportTable {
            script: !self.es_module && !self.commonjs,
            commonjs: self.commonjs,
            classes,
            ..ExportTable::default()
        };
        let raw_exports = std::mem::take(&mut self.exports);
        let mut named: Vec<(String, Value)> = raw_exports
            .into_iter()
            .map(|(name, expr)| (name, self.value(0, &expr, 0)))
            .collect();
        for (name, scope, expr) in std::mem::take(&mut self.cjs_named) {
            let value = self.value(scope, &expr, 0);
            named.push((name, value));
        }
        exports.named = merge_named(named);
        let wholes: Vec<Value> = std::mem::take(&mut self.whole)
            .into_iter()
            .map(|(scope, expr)| self.value(scope, &expr, 0))
            .collect();
        exports.whole = match wholes.as_slice() {
            [] => None,
            [only] => Some(only.clone()),
            [first, rest @ ..] if rest.iter().all(|value| value == first) => Some(first.clone()),
            _ => Some(Value::Unknown),
        };
        exports.stars = std::mem::take(&mut self.stars);
        if exports.script {
            let mut names: Vec<(String, usize)> = self.scopes[0]
                .names
                .iter()
                .map(|(name, &id)| (name.clone(), id))
                .collect();
            names.sort();
            exports.globals = names
                .into_iter()
                .map(|(name, id)| (name, self.binding_value(id, 0)))
                .filter(|(_, value)| !matches!(value, Value::Unknown | Value::External))
                .collect();
        }
        exports.returns = self.returns();
        let mut specs = std::mem::take(&mut self.specs);
        specs.sort();
        specs.dedup();
        exports.specs = specs;
        let mut questions = Vec::new();
        for site in &sites {
            collect_questions(&site.callee, &mut questions);
        }
        for class in &exports.classes {
            if let Some(base) = &class.extends {
                collect_questions(base, &mut questions);
            }
            for member in &class.members {
                collect_questions(&member.value, &mut questions);
            }
        }
        questions.sort();
        questions.dedup();
        Facts {
            sites,
            exports,
            questions,
            partial: false,
        }
    }

    /// Each unit's return value: the declared one, else the one all its `return`s give.
    fn returns(&mut self) -> Vec<(String, Value)> {
        let mut raw = std::mem::take(&mut self.returned);
        // Declared first, then in order; the sort is stable.
        raw.sort_by(|a, b| (&a.0, !a.3).cmp(&(&b.0, !b.3)));
        let mut out: Vec<(String, Value)> = Vec::new();
        let mut index = 0;
        while index < raw.len() {
            let unit = raw[index].0.clone();
            let end = raw[index..]
                .iter()
                .position(|entry| entry.0 != unit)
                .map_or(raw.len(), |offset| index + offset);
            let group: Vec<(usize, Expr, bool)> = raw[index..end]
                .iter()
                .map(|(_, scope, expr, declared)| (*scope, expr.clone(), *declared))
                .collect();
            index = end;
            let value = match group.first() {
                Some((scope, expr, true)) => self.value(*scope, expr, 0),
                _ => {
                    let mut values = group
                        .iter()
                        .map(|(scope, expr, _)| self.value(*scope, expr, 0));
                    let first = values.next().unwrap_or(Value::Unknown);
                    if values.all(|value| value == first) {
                        first
                    } else {
                        Value::Unknown
                    }
                }
            };
            if value != Value::Unknown {
                out.push((unit, value));
            }
        }
        out
    }

    fn class_facts(&mut self) -> Vec<ClassFacts> {
        let raw = std::mem::take(&mut self.classes);
        let assigned = std::mem::take(&mut self.this_assigned);
        let mut classes: Vec<ClassFacts> = Vec::with_capacity(raw.len());
        for class in &raw {
            let extends = class
                .extends
                .as_ref()
                .map(|base| self.value(class.scope, base, 0));
            let mut members: Vec<MemberFacts> = Vec::new();
            for member in &class.members {
                let value = self.value(member.scope, &member.value, 0);
                let known = members
                    .iter()
                    .any(|seen| seen.name == member.name && seen.is_static == member.is_static);
                if !known {
                    members.push(MemberFacts {
                        name: member.name.clone(),
                        is_static: member.is_static,
                        value,
                    });
                }
            }
            // `this.x = …` in the class's own code declares an instance field, unless a
            // member of that name is declared; assigned twice differently, it is unknown.
            let mut fields: Vec<(String, Value)> = Vec::new();
            for (owner, name, scope, expr) in &assigned {
                if owner != &class.name
                    || members
                        .iter()
                        .any(|member| &member.name == name && !member.is_static)
                {
                    continue;
                }
                let value = self.value(*scope, expr, 0);
                match fields.iter_mut().find(|(known, _)| known == name) {
                    Some((_, known)) if *known != value => *known = Value::Unknown,
                    Some(_) => {}
                    None => fields.push((name.clone(), value)),
                }
            }
            members.extend(fields.into_iter().map(|(name, value)| MemberFacts {
                name,
                is_static: false,
                value,
            }));
            classes.push(ClassFacts {
                name: class.name.clone(),
                extends,
                members,
            });
        }
        classes.sort_by(|a, b| a.name.cmp(&b.name));
        classes.dedup_by(|a, b| a.name == b.name);
        classes
    }

    fn binding_value(&mut self, id: usize, depth: u32) -> Value {
        if let Some(value) = &self.memo[id] {
            return value.clone();
        }
        if self.busy[id] || depth > MAX_DEPTH {
            return Value::Unknown;
        }
        self.busy[id] = true;
        let binding = &self.bindings[id];
        let value = if binding.redeclared {
            Value::Unknown
        } else {
            match (binding.init.clone(), binding.assigned.clone().as_slice()) {
                (Init::Declared, [(scope, expr)]) => self.value(*scope, expr, depth + 1),
                (Init::Declared, _) | (_, [_, ..]) => Value::Unknown,
                (init, []) => self.init_value(init, depth),
            }
        };
        self.busy[id] = false;
        self.memo[id] = Some(value.clone());
        value
    }

    /// The value of a binding that is never assigned after its declaration.
    fn init_value(&mut self, init: Init, depth: u32) -> Value {
        match init {
            Init::Value(value) => value,
            Init::Expr(scope, expr) => self.value(scope, &expr, depth + 1),
            Init::Import(spec, what) => Value::Import {
                spec,
                what,
                path: Vec::new(),
            },
            Init::Namespace(indices) => self.namespace_value(&indices, depth),
            Init::Declared | Init::TypeOnly | Init::Enum => Value::Unknown,
            // Valid code names a type alias only where a type is read: there, the type.
            Init::TypeAlias(scope, aliased) => self.type_value(scope, &aliased, depth + 1),
            Init::Signature => Value::External,
            Init::Merged(callable, indices) => {
                let callable = self.init_value(*callable, depth + 1);
                match self.namespace_value(&indices, depth) {
                    Value::Object(members) => Value::Merged(Box::new(callable), members),
                    _ => callable,
                }
            }
        }
    }

    fn namespace_value(&mut self, indices: &[usize], depth: u32) -> Value {
        let mut members = Vec::new();
        for &index in indices {
            let scope = self.namespaces[index].scope;
            let exports = self.namespaces[index].exports.clone();
            for (name, expr) in exports {
                let value = self.value(scope, &expr, depth + 1);
                members.push((name, value));
            }
        }
        Value::Object(members)
    }

    /// The value of `expr` read in `scope`.
    fn value(&mut self, scope: usize, expr: &Expr, depth: u32) -> Value {
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        match expr {
            Expr::Name(name) => match self.lookup(scope, name) {
                Some(id) => self.binding_value(id, depth + 1),
                None if name == "exports" && self.commonjs => Value::Exports(Vec::new()),
                None if self.declared.contains(name) => Value::Unknown,
                None => Value::Global {
                    name: name.clone(),
                    path: Vec::new(),
                },
            },
            Expr::This(this) => match this {
                This::Instance(class) => Value::Instance(Box::new(Value::Class(class.clone()))),
                This::Static(class) => Value::Class(class.clone()),
                This::Unknown => Value::Unknown,
            },
            Expr::Super { this, call } => {
                let (class, instance) = match this {
                    This::Instance(class) => (class, !call),
                    This::Static(class) => (class, false),
                    This::Unknown => return Value::Unknown,
                };
                let base = self
                    .classes
                    .iter()
                    .find(|raw| &raw.name == class)
                    .and_then(|raw| raw.extends.clone().map(|base| (raw.scope, base)));
                let Some((scope, base)) = base else {
                    return Value::Unknown;
                };
                let base = self.value(scope, &base, depth + 1);
                if instance { instantiate(base) } else { base }
            }
            Expr::Member(object, name) => {
                let object = self.value(scope, object, depth + 1);
                member(object, name)
            }
            Expr::New(class) => instantiate(self.value(scope, class, depth + 1)),
            Expr::Call(function) => match function.as_ref() {
                // `f.bind(x)` is `f` again.
                Expr::Member(bound, name) if name == "bind" => {
                    match self.value(scope, bound, depth + 1) {
                        value @ (Value::Func(_) | Value::Owned(_)) => value,
                        _ => Value::Unknown,
                    }
                }
                _ => returned(self.value(scope, function, depth + 1)),
            },
            Expr::Require(spec) => Value::Import {
                spec: spec.clone(),
                what: Imported::Require,
                path: Vec::new(),
            },
            Expr::Value(value) => value.clone(),
            Expr::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(name, expr)| (name.clone(), self.value(scope, expr, depth + 1)))
                    .collect(),
            ),
            Expr::Namespace(index) => self.namespace_value(&[*index], depth),
            Expr::Type(named) => instantiate(self.type_value(scope, named, depth + 1)),
            Expr::TypeName(_) => self.type_value(scope, expr, depth + 1),
            Expr::Or(first, second) => match self.value(scope, first, depth + 1) {
                Value::Unknown => self.value(scope, second, depth + 1),
                value => value,
            },
            Expr::SelfExports => Value::Exports(Vec::new()),
        }
    }

    /// The value a type names (a class, an imported name); a name bound nowhere in the
    /// file is a global type (`HTMLElement`, `Promise`): external.
    fn type_value(&mut self, scope: usize, expr: &Expr, depth: u32) -> Value {
        match expr {
            Expr::TypeName(name) => match self.lookup(scope, name) {
                Some(id) => match &self.bindings[id].init {
                    Init::TypeOnly => Value::Unknown,
                    Init::TypeAlias(scope, aliased) if depth <= MAX_DEPTH => {
                        let (scope, aliased) = (*scope, aliased.clone());
                        self.type_value(scope, &aliased, depth + 1)
                    }
                    _ => self.binding_value(id, depth + 1),
                },
                None if self.declared.contains(name) => Value::Unknown,
                None => Value::External,
            },
            Expr::Member(object, name) => {
                let object = match object.as_ref() {
                    Expr::Name(first) => {
                        self.type_value(scope, &Expr::TypeName(first.clone()), depth)
                    }
                    other => self.type_value(scope, other, depth + 1),
                };
                member(object, name)
            }
            other => self.value(scope, other, depth + 1),
        }
    }
}

/// The member `name` of an object literal: the last written of that name, or what a
/// spread after it provides (a module's namespace, another object).
fn object_member(members: Vec<(String, Value)>, name: &str) -> Value {
    for (key, value) in members.into_iter().rev() {
        if key == name {
            return value;
        }
        if key != SPREAD {
            continue;
        }
        match value {
            Value::Object(inner) => match object_member(inner, name) {
                Value::Unknown => {}
                found => return found,
            },
            symbolic @ (Value::Import { .. } | Value::Global { .. } | Value::Exports(_)) => {
                return member(symbolic, name);
            }
            _ => {}
        }
    }
    if is_object_method(name) {
        Value::External
    } else {
        Value::Unknown
    }
}

/// The result of calling `value`: what a unit of the repository is known to return
/// (resolved later), else unknown — code outside the repository may return one of the
/// repository's objects (`map.get(k).open()`), so calls on its results are not external.
fn returned(value: Value) -> Value {
    match value {
        Value::Merged(callable, _) => returned(*callable),
        Value::External => Value::Unknown,
        Value::Func(_)
        | Value::Import { .. }
        | Value::Global { .. }
        | Value::Exports(_)
        | Value::Member(..)
        | Value::Instance(_)
        | Value::Returned(_) => Value::Returned(Box::new(value)),
        Value::Owned(_) | Value::Class(_) | Value::Object(_) | Value::Unknown => Value::Unknown,
    }
}

/// `new v` / `x: v`: an instance (of a class, or of whatever a symbolic value is).
fn instantiate(value: Value) -> Value {
    match value {
        Value::Merged(callable, _) => instantiate(*callable),
        Value::Unknown | Value::Func(_) | Value::Owned(_) | Value::Object(_) => Value::Unknown,
        Value::External => Value::External,
        value => Value::Instance(Box::new(value)),
    }
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

/// `value.name`, folded where this file knows the answer.
fn member(value: Value, name: &str) -> Value {
    match value {
        Value::Import {
            spec,
            what,
            mut path,
        } => {
            path.push(name.to_owned());
            Value::Import { spec, what, path }
        }
        Value::Global {
            name: root,
            mut path,
        } => {
            path.push(name.to_owned());
            Value::Global { name: root, path }
        }
        Value::Exports(mut path) => {
            path.push(name.to_owned());
            Value::Exports(path)
        }
        Value::Merged(callable, members) => {
            match members.into_iter().rev().find(|(key, _)| key == name) {
                Some((_, value)) => value,
                None => member(*callable, name),
            }
        }
        Value::Object(members) => object_member(members, name),
        // `f.call(…)` and `f.apply(…)` call `f`.
        Value::Func(_) | Value::Owned(_) if name == "call" || name == "apply" => value,
        Value::Func(_) | Value::Owned(_) if is_function_method(name) => Value::External,
        Value::Func(_) | Value::Owned(_) | Value::Unknown => Value::Unknown,
        Value::External => Value::External,
        value @ (Value::Class(_) | Value::Instance(_) | Value::Member(..) | Value::Returned(_)) => {
            Value::Member(Box::new(value), name.to_owned())
        }
    }
}

fn collect_questions(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Import { .. } | Value::Global { .. } | Value::Exports(_) => out.push(value.clone()),
        Value::Returned(inner) => {
            // What another file's function returns is answered there.
            let before = out.len();
            collect_questions(inner, out);
            if out.len() > before {
                out.push(value.clone());
            }
        }
        Value::Instance(inner) | Value::Member(inner, _) => collect_questions(inner, out),
        Value::Object(members) => {
            for (_, member) in members {
                collect_questions(member, out);
            }
        }
        Value::Merged(callable, members) => {
            collect_questions(callable, out);
            for (_, member) in members {
                collect_questions(member, out);
            }
        }
        Value::Func(_) | Value::Owned(_) | Value::Class(_) | Value::External | Value::Unknown => {}
    }
}

/// Exports sorted by name; a name given two different values is unknown.
fn merge_named(mut named: Vec<(String, Value)>) -> Vec<(String, Value)> {
    named.sort_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(String, Value)> = Vec::with_capacity(named.len());
    for (name, value) in named {
        match merged.last_mut() {
            Some((last, known)) if *last == name => {
                if *known != value {
                    *known = Value::Unknown;
                }
            }
            _ => merged.push((name, value)),
        }
    }
    merged
}

fn frame_of(node: Node<'_>, ctx: usize) -> Frame<'_> {
    Frame {
        node,
        ctx,
        own_scope: false,
    }
}

fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "arrow_function" | "function_expression" | "generator_function"
    )
}

/// Whether `node` has an anonymous child token of that kind (`static`, `default`, `=`).
fn has_token(node: Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|child| !child.is_named() && child.kind_name() == kind)
}

/// `constructor(private x: X)`, `constructor(readonly x: X)`: a parameter property.
fn is_parameter_property(parameter: Node<'_>) -> bool {
    let mut cursor = parameter.walk();
    parameter.children(&mut cursor).any(|child| {
        child.kind_name() == "accessibility_modifier"
            || (!child.is_named() && child.kind_name() == "readonly")
    })
}

fn is_nullish_type(node: Node<'_>, source: &str) -> bool {
    match node.kind_name() {
        "literal_type" => node
            .named_child(0)
            .is_some_and(|inner| matches!(inner.kind_name(), "null" | "undefined")),
        "predefined_type" => matches!(source.get(node.byte_range()), Some("undefined" | "void")),
        _ => false,
    }
}

/// The string argument of `require("x")`.
fn require_spec<'s>(call: Node<'_>, source: &'s str) -> Option<&'s str> {
    let arguments = call.field(&fields::ARGUMENTS)?;
    if arguments.named_child_count() != 1 {
        return None;
    }
    let argument = arguments.named_child(0)?;
    (argument.kind_name() == "string")
        .then(|| source.get(argument.byte_range()))
        .flatten()
        .map(unquote)
}

/// The line of the name a callee ends with (`b` of `a.b`, the index of `a["b"]`).
fn name_line(callee: Node<'_>) -> Option<u32> {
    match callee.kind_name() {
        "member_expression" => callee.field(&fields::PROPERTY).map(line_of),
        "subscript_expression" => callee.field(&fields::INDEX).map(line_of),
        "parenthesized_expression" | "non_null_expression" => {
            callee.named_child(0).and_then(name_line)
        }
        _ => Some(line_of(callee)),
    }
}

fn line_of(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row.saturating_add(1)).unwrap_or(u32::MAX)
}

/// Whitespace runs as one space, cut at [`MAX_TEXT`] characters.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_TEXT));
    for (index, word) in text.split_whitespace().enumerate() {
        if index > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX_TEXT {
            let cut: String = out.chars().take(MAX_TEXT).collect();
            return cut + "…";
        }
    }
    out
}

/// A string literal's text without its quotes (other text as it is).
fn unquote(text: &str) -> &str {
    let quoted = text.len() >= 2
        && matches!(text.as_bytes()[0], b'"' | b'\'' | b'`')
        && text.as_bytes()[text.len() - 1] == text.as_bytes()[0];
    match text.get(1..text.len() - 1) {
        Some(inner) if quoted => inner,
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{UnitKind, extract_as};

    /// The callable units the extractor finds in `source`.
    fn units(language: Language, source: &str) -> HashSet<String> {
        let units = match extract_as(language, source.as_bytes()) {
            Ok(units) => units,
            Err(error) => panic!("the fixture parses: {error:?}"),
        };
        units
            .into_iter()
            .filter(|unit| {
                matches!(
                    unit.kind,
                    UnitKind::Function | UnitKind::Method | UnitKind::Class
                )
            })
            .map(|unit| unit.name)
            .collect()
    }

    /// Every caller the walk names, and every callable value it names, is a unit of the
    /// extractor (or the module): the walk's names are the extractor's.
    fn check_names(language: Language, source: &str, expected_callers: &[&str]) {
        let units = units(language, source);
        let facts = facts_of(language, source.as_bytes());
        let callers: HashSet<String> = facts.sites.iter().map(|site| site.caller.clone()).collect();
        for caller in &callers {
            assert!(
                caller == MODULE || units.contains(caller),
                "caller {caller} is no unit of {units:?}"
            );
        }
        let expected: HashSet<String> = expected_callers
            .iter()
            .map(|&name| name.to_owned())
            .collect();
        assert_eq!(callers, expected);
        for site in &facts.sites {
            if let Value::Func(name) = &site.callee {
                assert!(
                    units.contains(name),
                    "callee {name} is no unit of {units:?}"
                );
            }
        }
        for class in &facts.exports.classes {
            assert!(units.contains(&class.name), "class {}", class.name);
            for member in &class.members {
                if let Value::Func(name) = &member.value {
                    assert!(units.contains(name), "member {name}");
                }
            }
        }
    }

    #[test]
    fn callers_and_callees_are_named_as_the_extractor_names_units() {
        let source = "\
namespace NS.Deep {
  export function inner() { helper(); }
}
if (flag) {
  var viaVar = function () { helper(); };
  function blockFn() { helper(); }
  const blockArrow = () => helper();
}
export default class {
  run() { helper(); }
}
const Widget = class {
  render() { this.helper(); }
  helper() {}
};
function outer() {
  describe(() => {
    function callback() { helper(); }
  });
  if (flag) {
    function nested() { nested(); }
  }
  const arrow = () => helper();
  class Local { m() { arrow(); } }
  return new Local();
}
abstract class K {
  field = helper();
  static { helper(); }
  handler = () => helper();
  get value() { return helper(); }
  set value(v) { helper(); }
  #hidden() { this.#hidden(); }
  abstract area(): number;
  describe() { return this.area(); }
  'quoted-name'() { helper(); }
}
for (var i = 0, step = () => helper(); i < 1; i++) {}
export function helper() {}
export const { a, b } = { a: () => helper(), b: 1 };
";
        check_names(
            Language::TypeScript,
            source,
            &[
                "NS.Deep.inner",
                "viaVar",
                MODULE,
                "default.run",
                "Widget.render",
                "outer",
                "outer.nested",
                "outer.arrow",
                "outer.Local.m",
                "K",
                "K.handler",
                "K.value",
                "K.#hidden",
                "K.describe",
                "K.quoted-name",
                "step",
            ],
        );
    }

    #[test]
    fn jsx_components_and_commonjs_are_named_as_the_extractor_names_units() {
        let source = "\
const React = require('react');
function App() {
  const onClick = () => track();
  return <main onClick={() => track()}><Header /></main>;
}
exports.track = function track() { log(); };
module.exports.App = App;
";
        check_names(Language::Tsx, source, &["App", "App.onClick", MODULE]);
    }
}
