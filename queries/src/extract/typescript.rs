//! The TypeScript / TSX / JavaScript extractor: function declarations, top-level
//! `const/let/var` declarators (functions and data), classes with their method-like
//! members, enums, and type aliases / interfaces (type-only), qualified lexically through
//! namespaces, classes and functions. `export` and decorator lines belong to the unit;
//! overload signatures merge with their implementation and a get/set pair into one unit.
//!
//! Scoping follows the symbols the TypeScript compiler binds in strict mode (every ES
//! module): a block statement at module level (`if`, `for`, `try`, `switch`, `{}`) binds
//! its `let`/`const`, functions, classes, enums and types to itself, so they are not units;
//! only its `var`s (and a `for` header's) reach the module. Inside function bodies blocks
//! stay transparent: nested functions and classes are units wherever they sit.
//! Values and types live in separate declaration spaces: a name with both names its value.
//!
//! Does not own: parsing, error location and the merging itself (`syntax`), or which
//! grammar an extension uses (`Language`). Expressions are not searched: functions and
//! classes that are only arguments or values of other expressions are not units.

use std::collections::HashSet;

use tree_sitter::{Node, Tree};

use super::fields::{ChildByField as _, Field, typescript as fields};
use super::kinds::KindName as _;
use super::syntax::{self, Collector, Declaration, Lines, Role};
use super::{Unit, UnitKind};

/// Which tree-sitter grammar parses the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// `LANGUAGE_TYPESCRIPT`: `<T>x` casts parse, JSX does not.
    TypeScript,
    /// `LANGUAGE_TSX`: JSX parses, `<T>x` casts do not; also used for JavaScript.
    Tsx,
}

/// Accessor bits of a class property (`Role::Accessor`).
const GET: u8 = 1;
const SET: u8 = 2;

/// The grammar of a dialect and its name in messages.
pub(super) fn grammar(dialect: Dialect) -> (tree_sitter::Language, &'static str) {
    match dialect {
        Dialect::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            "TypeScript",
        ),
        Dialect::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), "TSX"),
    }
}

/// The units of an error-free tree of `source` (either dialect: the walk is the same).
pub(super) fn walk(tree: &Tree, source: &str) -> Vec<Unit> {
    values_over_types(Walk::new(source).run(tree.root_node()))
}

/// TS declares values (functions, classes, enums, `const/let/var`) and types (interfaces,
/// type aliases) in separate spaces, so `interface X` beside `const X` is one symbol and
/// not a repeat: the name selects the value, and the type declarations of a name that
/// also has a value are not units. A name with only type declarations keeps them.
fn values_over_types(mut units: Vec<Unit>) -> Vec<Unit> {
    let values: HashSet<String> = units
        .iter()
        .filter(|unit| unit.kind != UnitKind::TypeOnly)
        .map(|unit| unit.name.clone())
        .collect();
    units.retain(|unit| unit.kind != UnitKind::TypeOnly || !values.contains(&unit.name));
    units
}

/// What lexically encloses a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    /// The file or a namespace: every declaration kind is a unit here.
    Module,
    /// A block statement inside a module scope (same prefix): only `var` declarators are
    /// units, as `var` binds to the module; every other declaration binds to the block.
    Block,
    /// A class body: method-like members are units.
    Class,
    /// A function, method or arrow body: only nested functions and classes are units.
    Function,
}

impl ScopeKind {
    /// Whether a data binding (`const x = 1`) declared here is a unit.
    fn holds_data(self) -> bool {
        matches!(self, Self::Module | Self::Block)
    }
}

#[derive(Debug)]
struct Scope {
    /// Qualified name of the enclosing declaration or namespace; empty at the top level.
    prefix: String,
    kind: ScopeKind,
}

/// A node still to visit, with its enclosing scope and the lines of whatever wraps it and
/// belongs to its unit (`export`, `declare`, decorators, a single-declarator statement).
struct Frame<'t> {
    node: Node<'t>,
    scope: usize,
    outer: Option<Lines>,
}

impl<'t> Frame<'t> {
    fn child(&self, node: Node<'t>) -> Self {
        Self {
            node,
            scope: self.scope,
            outer: None,
        }
    }

    /// `node`, wrapped by this frame's node (and whatever wraps that).
    fn wrapped(&self, node: Node<'t>) -> Self {
        Self {
            node,
            scope: self.scope,
            outer: Some(self.lines()),
        }
    }

    /// This frame's own lines with its wrappers.
    fn lines(&self) -> Lines {
        let own = Lines::of(self.node);
        self.outer.map_or(own, |outer| own.union(outer))
    }
}

struct Walk<'s> {
    source: &'s str,
    scopes: Vec<Scope>,
    units: Collector,
}

impl<'s> Walk<'s> {
    fn new(source: &'s str) -> Self {
        let top = Scope {
            prefix: String::new(),
            kind: ScopeKind::Module,
        };
        Self {
            source,
            scopes: vec![top],
            units: Collector::default(),
        }
    }

    /// Visits the tree in document order (an explicit stack, so deep nesting cannot
    /// overflow the call stack).
    fn run(mut self, root: Node<'_>) -> Vec<Unit> {
        let mut pending = vec![Frame {
            node: root,
            scope: 0,
            outer: None,
        }];
        while let Some(frame) = pending.pop() {
            let children = self.visit(&frame);
            pending.extend(children.into_iter().rev());
        }
        self.units.finish()
    }

    /// Records the frame's declaration, if it is one, and returns what to visit inside it.
    fn visit<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        if self.scopes[frame.scope].kind == ScopeKind::Block && block_scoped(node.kind_name()) {
            return Vec::new();
        }
        match node.kind_name() {
            "export_statement" => self.export(frame),
            "ambient_declaration" => ambient(frame),
            "expression_statement" => node
                .named_child(0)
                .filter(|child| child.kind_name() == "internal_module")
                .map(|namespace| frame.wrapped(namespace))
                .into_iter()
                .collect(),
            "internal_module" | "module" => self.namespace(frame),
            "function_declaration" | "generator_function_declaration" => {
                self.function(frame, Role::Plain)
            }
            "function_signature" => self.function(frame, Role::Overload),
            "class_declaration" | "abstract_class_declaration" => self.class_declaration(frame),
            "lexical_declaration" | "variable_declaration" => declarators(frame),
            "variable_declarator" => self.declarator(frame),
            "enum_declaration" => self.data(frame, UnitKind::Enum),
            "type_alias_declaration" | "interface_declaration" => {
                self.data(frame, UnitKind::TypeOnly)
            }
            "class_body" => class_members(frame),
            "method_definition" => self.method(frame, Role::Plain),
            "method_signature" | "abstract_method_signature" => self.method(frame, Role::Overload),
            "public_field_definition" => self.field(frame),
            "for_in_statement" => self.for_in(frame),
            _ => self.statements(frame),
        }
    }

    /// The statements a block-like node contains (see [`statements`]). A block statement
    /// directly in a module scope opens a [`ScopeKind::Block`] for them; anywhere else
    /// they stay in the frame's scope.
    fn statements<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let children = statements(frame.node);
        if children.is_empty() {
            return Vec::new();
        }
        let Scope { prefix, kind } = &self.scopes[frame.scope];
        let scope = if *kind == ScopeKind::Module && opens_block(frame.node) {
            self.push_scope(prefix.clone(), ScopeKind::Block)
        } else {
            frame.scope
        };
        children
            .into_iter()
            .map(|node| Frame {
                node,
                scope,
                outer: None,
            })
            .collect()
    }

    /// `for (var k in o)` / `for (var k of o)`: the `var` binds `k` like any `var`
    /// declarator without a value; then the loop body.
    fn for_in<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        let is_var = node
            .field(&fields::KIND)
            .is_some_and(|kind| kind.kind_name() == "var");
        let name = node
            .field(&fields::LEFT)
            .filter(|left| is_var && left.kind_name() == "identifier");
        if let Some(name) = name
            && self.scopes[frame.scope].kind.holds_data()
            && let Some(text) = syntax::text(name, self.source)
        {
            let lines = Lines::of(name);
            self.declare(
                frame.scope,
                text,
                UnitKind::Variable,
                lines,
                Role::Plain,
                name,
            );
        }
        self.statements(frame)
    }

    /// `export <declaration>` wraps the declaration; `export default <function or class
    /// expression>` is a unit named `default`.
    fn export<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        if let Some(declaration) = node.field(&fields::DECLARATION) {
            return vec![frame.wrapped(declaration)];
        }
        let Some(value) = node.field(&fields::VALUE).map(unwrap_expression) else {
            return Vec::new();
        };
        let kind = match value_kind(value) {
            Some(kind @ (UnitKind::Function | UnitKind::Class)) => kind,
            _ => return Vec::new(),
        };
        let lines = frame.lines();
        self.declare(frame.scope, "default", kind, lines, Role::Plain, value)
    }

    /// `namespace A.B { }` / `module M { }` / `declare module "m" { }`: not a unit, but
    /// qualifies what it contains.
    fn namespace<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        let Some(name) = node
            .field(&fields::NAME)
            .and_then(|name| self.namespace_name(name))
        else {
            return Vec::new();
        };
        let prefix = syntax::qualify(&self.scopes[frame.scope].prefix, &name);
        let scope = self.push_scope(prefix, ScopeKind::Module);
        let body = node.field(&fields::BODY);
        body.map(named_children)
            .unwrap_or_default()
            .into_iter()
            .map(|node| Frame {
                node,
                scope,
                outer: None,
            })
            .collect()
    }

    fn namespace_name(&self, name: Node<'_>) -> Option<String> {
        let text = syntax::text(name, self.source)?;
        Some(match name.kind_name() {
            "string" => unquote(text).to_owned(),
            _ => text.chars().filter(|c| !c.is_whitespace()).collect(),
        })
    }

    /// A function declaration or overload signature.
    fn function<'t>(&mut self, frame: &Frame<'t>, role: Role) -> Vec<Frame<'t>> {
        let node = frame.node;
        let Some(name) = self.name_of(node) else {
            return Vec::new();
        };
        self.declare(
            frame.scope,
            name,
            UnitKind::Function,
            frame.lines(),
            role,
            node,
        )
    }

    fn class_declaration<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        let Some(name) = self.name_of(node) else {
            return Vec::new();
        };
        self.declare(
            frame.scope,
            name,
            UnitKind::Class,
            frame.lines(),
            Role::Plain,
            node,
        )
    }

    /// One `name = value` of a `const/let/var`: a function, a class, or (outside function
    /// bodies) data.
    fn declarator<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        let Some(name) = node
            .field(&fields::NAME)
            .filter(|name| name.kind_name() == "identifier")
            .and_then(|name| syntax::text(name, self.source))
        else {
            return Vec::new();
        };
        let value = node.field(&fields::VALUE).map(unwrap_expression);
        let kind = match value.and_then(value_kind) {
            Some(kind) => kind,
            None if self.scopes[frame.scope].kind.holds_data() => UnitKind::Variable,
            None => return Vec::new(),
        };
        let inner = value.unwrap_or(node);
        self.declare(frame.scope, name, kind, frame.lines(), Role::Plain, inner)
    }

    /// Enums, type aliases and interfaces: units at the top level and in namespaces only.
    fn data<'t>(&mut self, frame: &Frame<'t>, kind: UnitKind) -> Vec<Frame<'t>> {
        if self.scopes[frame.scope].kind != ScopeKind::Module {
            return Vec::new();
        }
        if let Some(name) = self.name_of(frame.node) {
            self.declare(
                frame.scope,
                name,
                kind,
                frame.lines(),
                Role::Plain,
                frame.node,
            );
        }
        Vec::new()
    }

    /// A method, constructor, accessor, method overload signature or abstract method.
    fn method<'t>(&mut self, frame: &Frame<'t>, role: Role) -> Vec<Frame<'t>> {
        let node = frame.node;
        let Some(name_node) = node.field(&fields::NAME) else {
            return Vec::new();
        };
        let Some(name) = self.member_name(name_node) else {
            return Vec::new();
        };
        let role = accessor_bit(node, name_node).map_or(role, Role::Accessor);
        self.declare(
            frame.scope,
            name,
            UnitKind::Method,
            frame.lines(),
            role,
            node,
        )
    }

    /// A class field is a unit only when it holds a function (`handler = () => {}`).
    fn field<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        let value = node.field(&fields::VALUE).map(unwrap_expression);
        let Some(function) = value.filter(|&value| value_kind(value) == Some(UnitKind::Function))
        else {
            return Vec::new();
        };
        let Some(name) = node
            .field(&fields::NAME)
            .and_then(|name| self.member_name(name))
        else {
            return Vec::new();
        };
        self.declare(
            frame.scope,
            name,
            UnitKind::Method,
            frame.lines(),
            Role::Plain,
            function,
        )
    }

    /// Records one declaration and returns the frame for its body (found on `inner`, the
    /// function or class node that has it) in a new scope.
    fn declare<'t>(
        &mut self,
        scope: usize,
        name: &str,
        kind: UnitKind,
        lines: Lines,
        role: Role,
        inner: Node<'t>,
    ) -> Vec<Frame<'t>> {
        let qualified = syntax::qualify(&self.scopes[scope].prefix, name);
        self.units.add(Declaration {
            name: qualified.clone(),
            kind,
            lines,
            role,
        });
        let (body_kind, body) = match kind {
            UnitKind::Class => (ScopeKind::Class, inner.field(&fields::BODY)),
            UnitKind::Function | UnitKind::Method => {
                (ScopeKind::Function, inner.field(&fields::BODY))
            }
            UnitKind::Variable | UnitKind::Enum | UnitKind::TypeOnly => return Vec::new(),
        };
        let Some(body) = body else {
            return Vec::new();
        };
        let scope = self.push_scope(qualified, body_kind);
        vec![Frame {
            node: body,
            scope,
            outer: None,
        }]
    }

    fn push_scope(&mut self, prefix: String, kind: ScopeKind) -> usize {
        self.scopes.push(Scope { prefix, kind });
        self.scopes.len() - 1
    }

    /// The `name` field's text (functions, classes, enums, types).
    fn name_of(&self, node: Node<'_>) -> Option<&'s str> {
        node.field(&fields::NAME)
            .and_then(|name| syntax::text(name, self.source))
    }

    /// A member's name: identifiers and `#private` names as written, string names without
    /// their quotes, numbers as written; computed names (`[Symbol.iterator]`) are not
    /// nameable and give `None`.
    fn member_name(&self, name: Node<'_>) -> Option<&'s str> {
        let text = syntax::text(name, self.source)?;
        match name.kind_name() {
            "computed_property_name" => None,
            "string" => Some(unquote(text)),
            _ => Some(text),
        }
    }
}

/// Each declarator of a `const/let/var` statement. A single declarator's unit covers the
/// whole statement (with its `export`); several declarators each cover their own lines.
fn declarators<'t>(frame: &Frame<'t>) -> Vec<Frame<'t>> {
    let found: Vec<Node<'t>> = named_children(frame.node)
        .into_iter()
        .filter(|child| child.kind_name() == "variable_declarator")
        .collect();
    match found.as_slice() {
        [single] => vec![frame.wrapped(*single)],
        several => several
            .iter()
            .map(|&declarator| frame.child(declarator))
            .collect(),
    }
}

/// The children of `declare <declaration>`, which it wraps; `declare global { }` is not a
/// block but the global scope, so its statements are visited in the frame's scope.
fn ambient<'t>(frame: &Frame<'t>) -> Vec<Frame<'t>> {
    named_children(frame.node)
        .into_iter()
        .flat_map(|child| match child.kind_name() {
            "statement_block" => named_children(child)
                .into_iter()
                .map(|statement| frame.child(statement))
                .collect(),
            _ => vec![frame.wrapped(child)],
        })
        .collect()
}

/// The members of a class body, each carrying the lines of the `decorator` siblings that
/// precede it.
fn class_members<'t>(frame: &Frame<'t>) -> Vec<Frame<'t>> {
    let mut members = Vec::new();
    let mut decorators: Option<Lines> = None;
    for child in named_children(frame.node) {
        match child.kind_name() {
            "decorator" => {
                let lines = Lines::of(child);
                decorators = Some(decorators.map_or(lines, |seen| seen.union(lines)));
            }
            "comment" => {}
            _ => members.push(Frame {
                node: child,
                scope: frame.scope,
                outer: decorators.take(),
            }),
        }
    }
    members
}

/// The statements a block-like node contains. Conditions, loop headers and other
/// expressions are not searched, except a `for` header's `var` declaration.
fn statements(node: Node<'_>) -> Vec<Node<'_>> {
    match node.kind_name() {
        "program" | "statement_block" | "switch_body" | "else_clause" => named_children(node),
        "if_statement" => fields_of(node, &[&fields::CONSEQUENCE, &fields::ALTERNATIVE]),
        "try_statement" => fields_of(node, &[&fields::BODY, &fields::HANDLER, &fields::FINALIZER]),
        "switch_case" | "switch_default" => {
            let mut cursor = node.walk();
            node.children_by_field_name("body", &mut cursor).collect()
        }
        "for_statement" => {
            let header = node
                .field(&fields::INITIALIZER)
                .filter(|initializer| initializer.kind_name() == "variable_declaration");
            header
                .into_iter()
                .chain(fields_of(node, &[&fields::BODY]))
                .collect()
        }
        "catch_clause" | "finally_clause" | "for_in_statement" | "while_statement"
        | "do_statement" | "with_statement" | "labeled_statement" | "switch_statement" => {
            fields_of(node, &[&fields::BODY])
        }
        _ => Vec::new(),
    }
}

/// Nodes that open a block scope: a `{ }` statement block (namespace bodies and
/// `declare global` are visited through their statements, never as a block) and a
/// `switch`'s case block.
fn opens_block(node: Node<'_>) -> bool {
    matches!(node.kind_name(), "statement_block" | "switch_body")
}

/// Declarations a block binds to itself (everything but `var`): inside a module-level
/// block they are not units, and nothing inside them is.
fn block_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "lexical_declaration"
            | "function_declaration"
            | "generator_function_declaration"
            | "function_signature"
            | "class_declaration"
            | "abstract_class_declaration"
            | "enum_declaration"
            | "type_alias_declaration"
            | "interface_declaration"
            | "internal_module"
            | "module"
    )
}

fn fields_of<'t>(node: Node<'t>, fields: &[&Field]) -> Vec<Node<'t>> {
    fields
        .iter()
        .filter_map(|field| node.field(field))
        .collect()
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// What a value makes its binding: a function (arrow, function or generator expression)
/// or a class (class expression); anything else is data (`None`).
fn value_kind(value: Node<'_>) -> Option<UnitKind> {
    match value.kind_name() {
        "arrow_function" | "function_expression" | "generator_function" => Some(UnitKind::Function),
        "class" => Some(UnitKind::Class),
        _ => None,
    }
}

/// Sees through `(value)`, `value as T` and `value satisfies T` (the call graph reads
/// values the same way).
pub(crate) fn unwrap_expression(mut value: Node<'_>) -> Node<'_> {
    while matches!(
        value.kind_name(),
        "parenthesized_expression" | "as_expression" | "satisfies_expression"
    ) {
        match value.named_child(0) {
            Some(inner) => value = inner,
            None => break,
        }
    }
    value
}

/// `get`/`set` before a member's name make it an accessor.
fn accessor_bit(member: Node<'_>, name: Node<'_>) -> Option<u8> {
    let mut cursor = member.walk();
    member
        .children(&mut cursor)
        .take_while(|child| child.id() != name.id())
        .find_map(|child| match child.kind_name() {
            "get" if !child.is_named() => Some(GET),
            "set" if !child.is_named() => Some(SET),
            _ => None,
        })
}

/// A string literal's text without its quotes.
fn unquote(text: &str) -> &str {
    let inner = text.get(1..text.len().saturating_sub(1));
    inner.filter(|_| text.len() >= 2).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{ExtractError, Language, extract_as};
    use UnitKind::{Class, Enum, Function, Method, TypeOnly, Variable};

    fn extract(content: &[u8], dialect: Dialect) -> Result<Vec<Unit>, ExtractError> {
        let language = match dialect {
            Dialect::TypeScript => Language::TypeScript,
            Dialect::Tsx => Language::Tsx,
        };
        extract_as(language, content)
    }

    type Row = (String, UnitKind, u32, u32);

    fn units_as(dialect: Dialect, source: &str) -> Vec<Row> {
        match extract(source.as_bytes(), dialect) {
            Ok(units) => units
                .into_iter()
                .map(|unit| (unit.name, unit.kind, unit.start_line, unit.end_line))
                .collect(),
            Err(error) => panic!("unexpected {error:?}"),
        }
    }

    fn rows(expected: &[(&str, UnitKind, u32, u32)]) -> Vec<Row> {
        expected
            .iter()
            .map(|&(name, kind, start, end)| (name.to_owned(), kind, start, end))
            .collect()
    }

    fn check_as(dialect: Dialect, source: &str, expected: &[(&str, UnitKind, u32, u32)]) {
        assert_eq!(
            units_as(dialect, source),
            rows(expected),
            "source:\n{source}"
        );
    }

    fn check(source: &str, expected: &[(&str, UnitKind, u32, u32)]) {
        check_as(Dialect::TypeScript, source, expected);
    }

    fn unparseable_line(dialect: Dialect, content: &[u8]) -> u32 {
        match extract(content, dialect) {
            Err(ExtractError::Unparseable { line, .. }) => line,
            other => panic!("expected Unparseable, got {other:?}"),
        }
    }

    #[test]
    fn function_declarations_and_export_forms() {
        let source = "\
function plain() {}
export function exported() {
  return 1;
}
async function load() {}
function* gen() {}
export async function* stream() {}
export default async function named() {}
";
        check(
            source,
            &[
                ("plain", Function, 1, 1),
                ("exported", Function, 2, 4),
                ("load", Function, 5, 5),
                ("gen", Function, 6, 6),
                ("stream", Function, 7, 7),
                ("named", Function, 8, 8),
            ],
        );
    }

    #[test]
    fn anonymous_default_exports_are_named_default() {
        check(
            "// header\nexport default function () {\n  return 1;\n}\n",
            &[("default", Function, 2, 4)],
        );
        check(
            "export default class {\n  run() {}\n}\n",
            &[("default", Class, 1, 3), ("default.run", Method, 2, 2)],
        );
        check("export default () => 1;\n", &[("default", Function, 1, 1)]);
        check("export default { a: 1 };\nexport { x as y };\n", &[]);
    }

    #[test]
    fn top_level_bindings_are_functions_or_data() {
        let source = "\
export const arrow = (a: number) => a + 1;
const fnExpr = function () {
  return 2;
};
let data = { a: 1 };
var count = 0;
const a = 1, b = () => 2;
export const
  first = 1,
  second = function () {};
const Widget = class {
  render() {}
};
const wrapped = (() => 1) as Fn;
const { x, y } = point;
const tuple = [1, 2] as const;
export const
  split = {
    a: 1,
  };
";
        check(
            source,
            &[
                ("arrow", Function, 1, 1),
                ("fnExpr", Function, 2, 4),
                ("data", Variable, 5, 5),
                ("count", Variable, 6, 6),
                ("a", Variable, 7, 7),
                ("b", Function, 7, 7),
                ("first", Variable, 9, 9),
                ("second", Function, 10, 10),
                ("Widget", Class, 11, 13),
                ("Widget.render", Method, 12, 12),
                ("wrapped", Function, 14, 14),
                ("tuple", Variable, 16, 16),
                ("split", Variable, 17, 20),
            ],
        );
    }

    #[test]
    fn class_members_that_are_units() {
        let source = "\
export class Service {
  private data = 1;
  static count = 0;
  handler = () => {};
  #secret = function () {};
  constructor(private http: Http) {}
  get value(): number {
    return 1;
  }
  set value(v: number) {}
  static create() {
    return new Service(http);
  }
  #hidden() {}
  async load() {
    function local() {}
  }
  'quoted-name'() {}
  [Symbol.iterator]() {}
}
";
        check(
            source,
            &[
                ("Service", Class, 1, 20),
                ("Service.handler", Method, 4, 4),
                ("Service.#secret", Method, 5, 5),
                ("Service.constructor", Method, 6, 6),
                ("Service.value", Method, 7, 10),
                ("Service.create", Method, 11, 13),
                ("Service.#hidden", Method, 14, 14),
                ("Service.load", Method, 15, 17),
                ("Service.load.local", Function, 16, 16),
                ("Service.quoted-name", Method, 18, 18),
            ],
        );
    }

    #[test]
    fn decorators_start_the_unit() {
        let source = "\
@Component({
  selector: \"x\",
})
export class Widget {
  @Input()
  @Other
  name() {}

  @HostListener(\"click\")
  onClick = () => {};

  plain() {}
}
@Injectable()
class Local {}
";
        check(
            source,
            &[
                ("Widget", Class, 1, 13),
                ("Widget.name", Method, 5, 7),
                ("Widget.onClick", Method, 9, 10),
                ("Widget.plain", Method, 12, 12),
                ("Local", Class, 14, 15),
            ],
        );
    }

    #[test]
    fn abstract_classes_and_abstract_members() {
        let source = "\
export abstract class Shape {
  abstract area(): number;
  abstract get label(): string;
  describe() {
    return \"\";
  }
}
";
        check(
            source,
            &[
                ("Shape", Class, 1, 7),
                ("Shape.area", Method, 2, 2),
                ("Shape.label", Method, 3, 3),
                ("Shape.describe", Method, 4, 6),
            ],
        );
    }

    #[test]
    fn overloads_join_their_implementation_and_other_repeats_do_not() {
        let source = "\
export function f(a: string): void;
export function f(a: number): void;
export function f(a: unknown) {
  return a;
}
function g() {}
function g() {}
class Parser {
  parse(a: string): string;
  parse(a: number): number;
  parse(a: unknown) {
    return a;
  }
  twice() {}
  twice() {}
}
declare function ambient(a: string): void;
declare function ambient(a: number): void;
";
        check(
            source,
            &[
                ("f", Function, 1, 5),
                ("g", Function, 6, 6),
                ("g", Function, 7, 7),
                ("Parser", Class, 8, 16),
                ("Parser.parse", Method, 9, 13),
                ("Parser.twice", Method, 14, 14),
                ("Parser.twice", Method, 15, 15),
                ("ambient", Function, 17, 18),
            ],
        );
    }

    #[test]
    fn namespaces_qualify_and_enums_and_types_are_units() {
        let source = "\
export namespace NS {
  export function inNs() {}
  export namespace Inner {
    export const deep = 1;
  }
}
namespace A.B {
  export enum Color { Red }
}
declare module \"pkg\" {
  export function fromPkg(): void;
}
module Legacy {
  class K {}
}
export enum Direction {
  Up,
}
const enum Flags { A = 1 }
type Alias = string;
export interface Shape {
  area(): number;
}
";
        check(
            source,
            &[
                ("NS.inNs", Function, 2, 2),
                ("NS.Inner.deep", Variable, 4, 4),
                ("A.B.Color", Enum, 8, 8),
                ("pkg.fromPkg", Function, 11, 11),
                ("Legacy.K", Class, 14, 14),
                ("Direction", Enum, 16, 18),
                ("Flags", Enum, 19, 19),
                ("Alias", TypeOnly, 20, 20),
                ("Shape", TypeOnly, 21, 23),
            ],
        );
    }

    #[test]
    fn declarations_in_module_level_blocks_are_block_scoped() {
        let source = "\
if (cond) {
  function inIf() {}
} else {
  const inElse = 1;
}
try {
  class InTry {}
} catch (e) {
  let inCatch = 1;
} finally {
  enum InFinally { A }
}
for (let i = 0; i < 3; i++) {
  const inFor = () => 1;
}
for (const k of keys) { function inForOf() {} }
while (x) { interface InWhile {} }
do { type InDo = 1; } while (x);
switch (y) {
  case 1: { function inCase() {} }
  default: function inDefault() {}
}
label: { function inLabel() {} }
{
  const inBlock = () => 1;
}
namespace NS {
  {
    function hidden() {}
  }
}
";
        check(source, &[]);
    }

    #[test]
    fn vars_in_module_level_blocks_and_for_headers_are_module_units() {
        let source = "\
if (cond) {
  var flag = true;
}
for (var i = 0, step = () => 1; i < 3; i++) {
  try {
    var nested = function () {
      function inner() {}
    };
  } catch (e) {}
}
for (var key in table) {}
for (const item of items) {}
namespace NS {
  {
    var inNs = 1;
  }
}
switch (y) {
  case 1:
    var inCase = 1;
}
function scoped() {
  for (var local in table) {}
}
";
        check(
            source,
            &[
                ("flag", Variable, 2, 2),
                ("i", Variable, 4, 4),
                ("step", Function, 4, 4),
                ("nested", Function, 6, 8),
                ("nested.inner", Function, 7, 7),
                ("key", Variable, 11, 11),
                ("NS.inNs", Variable, 15, 15),
                ("inCase", Variable, 20, 20),
                ("scoped", Function, 22, 24),
            ],
        );
    }

    #[test]
    fn declare_global_is_module_level_not_a_block() {
        let source = "\
declare global {
  interface Window { app: App }
  function boot(): void;
  const version: string;
}
";
        check(
            source,
            &[
                ("Window", TypeOnly, 2, 2),
                ("boot", Function, 3, 3),
                ("version", Variable, 4, 4),
            ],
        );
    }

    #[test]
    fn a_name_declared_as_value_and_type_selects_the_value() {
        let source = "\
export interface ZodType<T> {
  parse(x: unknown): T;
}
export const ZodType = makeType();
type Handler = () => void;
function Handler() {}
class Point {}
interface Point { z: number }
namespace NS {
  export type Id = string;
  export const Id = (s: string) => s;
}
type Only = string;
interface Merged { a: 1 }
interface Merged { b: 2 }
";
        check(
            source,
            &[
                ("ZodType", Variable, 4, 4),
                ("Handler", Function, 6, 6),
                ("Point", Class, 7, 7),
                ("NS.Id", Function, 11, 11),
                ("Only", TypeOnly, 13, 13),
                ("Merged", TypeOnly, 14, 14),
                ("Merged", TypeOnly, 15, 15),
            ],
        );
    }

    #[test]
    fn functions_nest_and_locals_are_not_units() {
        let source = "\
function outer() {
  const data = 1;
  const helper = () => {};
  if (data) {
    function inner() {}
  }
  class Local {
    run() {}
  }
  describe(() => {
    function callback() {}
  });
}
";
        check(
            source,
            &[
                ("outer", Function, 1, 13),
                ("outer.helper", Function, 3, 3),
                ("outer.inner", Function, 5, 5),
                ("outer.Local", Class, 7, 9),
                ("outer.Local.run", Method, 8, 8),
            ],
        );
    }

    #[test]
    fn generic_await_call_does_not_disturb_extraction() {
        let source = "\
async function load() {
  const r = await fetchJson<Item>(url);
  return r;
}
";
        check(source, &[("load", Function, 1, 4)]);
    }

    /// Whether the dialect's grammar leaves an ERROR or MISSING node in `source`.
    fn grammar_rejects(dialect: Dialect, source: &str) -> bool {
        let (language, name) = grammar(dialect);
        let parsed = syntax::parser_for(&language, name)
            .and_then(|mut parser| syntax::run(&mut parser, source.as_bytes(), None, name));
        match parsed {
            Ok(tree) => tree.root_node().has_error(),
            Err(error) => panic!("unexpected {error:?}"),
        }
    }

    /// TypeScript 5.9 accepts these; tree-sitter-typescript 0.23.2, the newest release,
    /// does not, so only tolerant extraction yields their files' other units. When this
    /// fails, a grammar upgrade parses the shape: give it an extraction test instead.
    #[test]
    fn shapes_the_grammar_still_rejects() {
        let shapes = [
            "interface ZodType<out Output = unknown, in Input = Output> {}\n",
            "const m = await importOriginal<typeof import(\"x\")>();\n",
            "class A { static accessor x = 1; }\n",
            "import defer * as ns from \"x\";\n",
            "const ns = import.defer(\"x\");\n",
        ];
        for dialect in [Dialect::TypeScript, Dialect::Tsx] {
            for shape in shapes {
                assert!(
                    grammar_rejects(dialect, shape),
                    "{dialect:?} parses {shape}"
                );
            }
        }
    }

    #[test]
    fn accessor_fields_and_import_types_elsewhere_parse() {
        let source = "\
class A {
  accessor x = 1;
  run() {}
}
type M = typeof import(\"x\");
";
        check(
            source,
            &[
                ("A", Class, 1, 4),
                ("A.run", Method, 3, 3),
                ("M", TypeOnly, 5, 5),
            ],
        );
    }

    #[test]
    fn tsx_components() {
        let source = "\
import React from \"react\";
export function Hello({ name }: Props) {
  const onClick = () => {};
  return <div onClick={onClick}>{name}</div>;
}
export const Child = () => <span>hi</span>;
export default class Legacy extends React.Component {
  render() {
    return <Child />;
  }
}
";
        check_as(
            Dialect::Tsx,
            source,
            &[
                ("Hello", Function, 2, 5),
                ("Hello.onClick", Function, 3, 3),
                ("Child", Function, 6, 6),
                ("Legacy", Class, 7, 11),
                ("Legacy.render", Method, 8, 10),
            ],
        );
    }

    #[test]
    fn javascript_with_jsx_under_the_tsx_dialect() {
        let source = "\
const React = require(\"react\");
function App() {
  return <main className=\"app\"><Header /></main>;
}
module.exports = { App };
";
        check_as(
            Dialect::Tsx,
            source,
            &[("React", Variable, 1, 1), ("App", Function, 2, 4)],
        );
    }

    #[test]
    fn angle_bracket_cast_parses_only_as_typescript() {
        let source = "const n = 1;\nlet m = <number>value;\n";
        check(source, &[("n", Variable, 1, 1), ("m", Variable, 2, 2)]);
        assert_eq!(unparseable_line(Dialect::Tsx, source.as_bytes()), 2);
    }

    #[test]
    fn syntax_errors_name_their_line() {
        let stray = "function ok() {}\n\nconst x = ;\n";
        assert_eq!(unparseable_line(Dialect::TypeScript, stray.as_bytes()), 3);
        let missing = "function f() {\n  if (x {\n  }\n}\n";
        assert_eq!(unparseable_line(Dialect::Tsx, missing.as_bytes()), 2);
    }

    #[test]
    fn non_utf8_is_unparseable_at_its_line() {
        let content = b"const a = 1;\nconst b = \"\xc3\x28\";\n";
        assert_eq!(unparseable_line(Dialect::TypeScript, content), 2);
    }
}
