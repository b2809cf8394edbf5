//! What one TS/JS image says on its own, before any other file is read: its call sites
//! with their callees resolved lexically ([`Site`], [`Value`]), and its module interface
//! ([`ExportTable`]: exports, CommonJS `module.exports`, `export *` sources, script
//! globals, classes with their members and bases).
//!
//! Owns: the syntax walk (scopes and bindings, the naming of callables exactly as the
//! extractor names units, `this`/`super`, simple local flow), as two memoized queries per
//! image: [`ts_facts`] (sites, lines included) and [`ts_exports`] (line-free, so an edit
//! inside a function body leaves it equal). This file holds the queries, the parse they
//! walk, and the walk's state: its scopes, bindings and contexts, and the expressions and
//! raw records it keeps until every name is looked up. The facts' types are in `model`;
//! the walk reads statements and patterns (`statements`), declarations (`declarations`),
//! `import` and `export` (`imports_exports`), calls (`calls`) and expressions and types
//! (`expressions`), and looks every name up once the file is read (`lookup`).
//! Does not own: reading any other file — module paths (`modules`) and everything that
//! crosses files (`resolve`).
//!
//! Naming mirrors `extract::typescript`: a declaration is a unit only where that walk
//! visits it (module and namespace level, function bodies through their statements, the
//! members of named classes; inside a module-level block only `var` declarators), so a
//! caller or callee named here is the extractor's unit of that name. Code that is not a
//! unit (callbacks, object-literal methods, functions in module-level blocks) belongs to
//! the nearest unit holding it ([`Value::Owned`]).

mod calls;
mod declarations;
mod expressions;
mod imports_exports;
mod lookup;
mod model;
mod statements;

pub(crate) use model::{
    ClassFacts, ExportTable, Imported, InterfaceFacts, SPREAD, Site, Value, is_function_method,
    is_object_method,
};

use crate::callgraph::MODULE;
use crate::extract::Language;
use crate::extract::fields::{ChildByField as _, typescript as fields};
use crate::extract::kinds::KindName as _;
use crate::extract::qualify;
use crate::images::{Image, image_bytes};
use keel_engine::Db;
use model::Facts;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tree_sitter::{Node, Parser, Tree};

/// The facts of one TS/JS image, read once per image. Tolerant: a tree with errors
/// yields the sites and declarations of the parts that parsed.
///
/// The tree is the extractor's when it has one for these bytes (it parses the image
/// first: its units are the image's nodes), or its last tree of the file reparsed
/// incrementally ([`crate::extract::cached_tree`]); else a parse of its own.
#[salsa::tracked(returns(ref))]
pub fn ts_facts<'db>(db: &'db dyn Db, image: Image<'db>) -> Facts {
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
pub fn ts_exports<'db>(db: &'db dyn Db, image: Image<'db>) -> ExportTable {
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
    /// A type alias or type parameter: no value.
    TypeOnly,
    /// An interface of the file, by qualified name: a type, read as [`Value::Interface`].
    Interface(String),
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
    /// The `implements` clause's types (names looked up as types, in `scope`).
    implements: Vec<Expr>,
    members: Vec<RawMember>,
}

#[derive(Debug)]
struct RawInterface {
    /// Its qualified name.
    name: String,
    /// The scope it is declared in (its `extends` types are read there).
    scope: usize,
    extends: Vec<Expr>,
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
    interfaces: Vec<RawInterface>,
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
            interfaces: Vec::new(),
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
                (_, Init::TypeOnly | Init::TypeAlias(..) | Init::Interface(_)) => {}
                (Init::Namespace(known) | Init::Merged(_, known), Init::Namespace(more)) => {
                    known.extend(more);
                }
                (
                    existing @ (Init::TypeOnly
                    | Init::TypeAlias(..)
                    | Init::Interface(_)
                    | Init::Signature),
                    init,
                ) => {
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
