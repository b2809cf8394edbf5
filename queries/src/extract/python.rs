//! The Python extractor (`.py`, `.pyi`): `def`, `async def` and `class` declarations with
//! their lexical qualified names (`f`, `Class.method`, `outer.inner`; NFKC-normalized as
//! Python reads identifiers, by [`python_identifier`], which a Python file's selectors go
//! through too), decorators included in the range, block statements transparent, and
//! `@overload` stubs and property accessors merged into one unit with the declaration they
//! belong to: a def decorated `@name.getter`, `@name.setter` or `@name.deleter` joins the
//! last unit `name`, whatever decorates that one.
//!
//! Also walks one subtree as if it sat in a given scope ([`declarations`], [`Enclosing`])
//! and splits a `def` or `class` statement into its own declaration and body
//! ([`definition_statement`]): what the splice (`splice`) needs to produce the same raw
//! declarations per statement.
//!
//! Does not own: parsing, error location and the merging itself (`syntax`), or anything
//! beyond declarations — lambdas, assignments, imports and dynamically attached callables
//! are not units.

use std::borrow::Cow;

use tree_sitter::{Node, Tree};

use super::fields::{ChildByField as _, python as fields};
use super::kinds::KindName as _;
use super::syntax::{self, Collector, Declaration, Lines, Role};
use super::{Unit, UnitKind};

/// A Python identifier (or dotted name) as Python reads it: NFKC-normalized (PEP 3131),
/// so `ﬁnd`, fullwidth `ｆｉｎｄ` and `find` are one name. The one place for the rule: the
/// Python extractor names its units with it and
/// [`Selector::parse_on`](crate::anchors::Selector::parse_on) a Python file's selectors.
pub(crate) fn python_identifier(text: &str) -> Cow<'_, str> {
    use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
}

/// The Python grammar and its name in messages.
pub(super) fn grammar() -> (tree_sitter::Language, &'static str) {
    (tree_sitter_python::LANGUAGE.into(), "Python")
}

/// The units of a tree of `source`; where the tree holds errors, `syntax::tolerate` then
/// decides which of them stand.
pub(super) fn walk(tree: &Tree, source: &str) -> Vec<Unit> {
    let mut units = Collector::default();
    for declaration in declarations(tree.root_node(), source, Enclosing::Module) {
        units.add(declaration);
    }
    units.finish()
}

/// What a subtree is walked inside of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Enclosing<'a> {
    /// The module: declarations are functions and classes named as they are.
    Module,
    /// The body of the class with this qualified name: functions are its methods.
    Class(&'a str),
    /// The body of the function or method with this qualified name: functions are nested
    /// functions.
    Function(&'a str),
}

/// The raw declarations of `node` and everything inside it, in document order, as the
/// walk of the whole tree produces them when `node` sits directly in `enclosing`: no
/// grouping yet ([`Collector`] merges them, and must see every declaration of the file).
pub(super) fn declarations(
    node: Node<'_>,
    source: &str,
    enclosing: Enclosing<'_>,
) -> Vec<Declaration> {
    Walk::new(source, enclosing).run(node)
}

/// A `def` or `class` statement (`function_definition`, `class_definition`, or a
/// `decorated_definition` of one), split where the splice needs it.
pub(super) struct DefinitionStatement<'t> {
    /// Its own declaration (decorators included), exactly as the walk records it.
    pub(super) own: Declaration,
    /// Its body block.
    pub(super) body: Node<'t>,
    /// The row of the header's `:`.
    pub(super) colon_row: usize,
    /// Whether it is a class (its body holds methods) rather than a function.
    pub(super) class: bool,
}

/// `node` as a definition statement sitting directly in `enclosing`, if it is one. The
/// declarations of `node` are `own` followed by those of each named child of `body`
/// walked in `Enclosing::Class(own.name)` (a class) or `Enclosing::Function(own.name)`.
pub(super) fn definition_statement<'t>(
    node: Node<'t>,
    source: &str,
    enclosing: Enclosing<'_>,
) -> Option<DefinitionStatement<'t>> {
    let definition = match node.kind_name() {
        "class_definition" | "function_definition" => node,
        "decorated_definition" => node.field(&fields::DEFINITION)?,
        _ => return None,
    };
    let class = match definition.kind_name() {
        "class_definition" => true,
        "function_definition" => false,
        _ => return None,
    };
    let body = definition.field(&fields::BODY)?;
    let mut cursor = definition.walk();
    let colon_row = definition
        .children(&mut cursor)
        .find(|child| child.kind_name() == ":")?
        .start_position()
        .row;
    let mut walk = Walk::new(source, enclosing);
    let frame = Frame {
        node: definition,
        scope: 0,
        decorated: (node.id() != definition.id()).then_some(node),
    };
    // Records the declaration; its body is not visited.
    let _body = walk.declaration(&frame);
    let own = walk.declarations.pop()?;
    Some(DefinitionStatement {
        own,
        body,
        colon_row,
        class,
    })
}

/// What lexically encloses a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Class,
    Function,
}

#[derive(Debug)]
struct Scope {
    /// Qualified name of the enclosing declaration; empty at module level.
    prefix: String,
    kind: ScopeKind,
}

/// A node still to visit, with its enclosing scope and, for a decorated declaration, its
/// `decorated_definition` wrapper.
struct Frame<'t> {
    node: Node<'t>,
    scope: usize,
    decorated: Option<Node<'t>>,
}

struct Walk<'s> {
    source: &'s str,
    scopes: Vec<Scope>,
    declarations: Vec<Declaration>,
}

impl<'s> Walk<'s> {
    fn new(source: &'s str, enclosing: Enclosing<'_>) -> Self {
        let outermost = match enclosing {
            Enclosing::Module => Scope {
                prefix: String::new(),
                kind: ScopeKind::Module,
            },
            Enclosing::Class(name) => Scope {
                prefix: name.to_owned(),
                kind: ScopeKind::Class,
            },
            Enclosing::Function(name) => Scope {
                prefix: name.to_owned(),
                kind: ScopeKind::Function,
            },
        };
        Self {
            source,
            scopes: vec![outermost],
            declarations: Vec::new(),
        }
    }

    /// Visits the subtree in document order (an explicit stack, so deep nesting cannot
    /// overflow the call stack).
    fn run(mut self, root: Node<'_>) -> Vec<Declaration> {
        let mut pending = vec![Frame {
            node: root,
            scope: 0,
            decorated: None,
        }];
        while let Some(frame) = pending.pop() {
            let children = self.visit(&frame);
            pending.extend(children.into_iter().rev());
        }
        self.declarations
    }

    /// Records the frame's declaration, if it is one, and returns what to visit inside it.
    fn visit<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        match node.kind_name() {
            "function_definition" | "class_definition" => self.declaration(frame),
            "decorated_definition" => node
                .field(&fields::DEFINITION)
                .map(|definition| Frame {
                    node: definition,
                    scope: frame.scope,
                    decorated: Some(node),
                })
                .into_iter()
                .collect(),
            kind if is_transparent(kind) => {
                let mut cursor = node.walk();
                node.named_children(&mut cursor)
                    .map(|child| Frame {
                        node: child,
                        scope: frame.scope,
                        decorated: None,
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// A `def`/`class`: one declaration, and its body in a new scope.
    fn declaration<'t>(&mut self, frame: &Frame<'t>) -> Vec<Frame<'t>> {
        let node = frame.node;
        let Some(name) = node
            .field(&fields::NAME)
            .and_then(|name| self.identifier(name))
        else {
            return Vec::new();
        };
        let enclosing = &self.scopes[frame.scope];
        let (kind, body_scope) = match (node.kind_name(), enclosing.kind) {
            ("class_definition", _) => (UnitKind::Class, ScopeKind::Class),
            (_, ScopeKind::Class) => (UnitKind::Method, ScopeKind::Function),
            _ => (UnitKind::Function, ScopeKind::Function),
        };
        let qualified = syntax::qualify(&enclosing.prefix, &name);
        let lines = match frame.decorated {
            Some(wrapper) => Lines::of(node).union(Lines::of(wrapper)),
            None => Lines::of(node),
        };
        let role = frame
            .decorated
            .map_or(Role::Plain, |wrapper| self.role(wrapper, &name));
        self.declarations.push(Declaration {
            name: qualified.clone(),
            kind,
            lines,
            role,
        });
        self.scopes.push(Scope {
            prefix: qualified,
            kind: body_scope,
        });
        let scope = self.scopes.len() - 1;
        node.field(&fields::BODY)
            .map(|body| Frame {
                node: body,
                scope,
                decorated: None,
            })
            .into_iter()
            .collect()
    }

    /// The group role its own decorators give a declaration named `name` (never anything
    /// around it, so the splice can compute it per statement): `@overload` /
    /// `@typing.overload` stubs are overloads; `@name.getter`, `@name.setter` and
    /// `@name.deleter` extend the last unit of that name, whatever decorates it
    /// (`@property`, `@computed_field`, `@hybrid_property`, ...); the rest are plain.
    fn role(&self, decorated: Node<'_>, name: &str) -> Role {
        let mut cursor = decorated.walk();
        let decorators: Vec<Node<'_>> = decorated
            .named_children(&mut cursor)
            .filter(|child| child.kind_name() == "decorator")
            .filter_map(|decorator| decorator.named_child(0))
            .collect();
        if decorators.iter().any(|&expr| self.is_overload(expr)) {
            Role::Overload
        } else if decorators.iter().any(|&expr| self.is_accessor(expr, name)) {
            Role::Extends
        } else {
            Role::Plain
        }
    }

    /// `overload`, or any dotted path ending in `.overload` (`typing.overload`).
    fn is_overload(&self, expr: Node<'_>) -> bool {
        let name = match expr.kind_name() {
            "identifier" => Some(expr),
            "attribute" => expr.field(&fields::ATTRIBUTE),
            _ => None,
        };
        name.and_then(|name| self.identifier(name)).as_deref() == Some("overload")
    }

    /// `name.getter`, `name.setter` or `name.deleter`, with `name` the declaration's own.
    fn is_accessor(&self, expr: Node<'_>, name: &str) -> bool {
        if expr.kind_name() != "attribute" {
            return false;
        }
        let object = expr
            .field(&fields::OBJECT)
            .filter(|object| object.kind_name() == "identifier")
            .and_then(|object| self.identifier(object));
        let attribute = expr
            .field(&fields::ATTRIBUTE)
            .and_then(|attribute| self.identifier(attribute));
        object.as_deref() == Some(name)
            && matches!(attribute.as_deref(), Some("getter" | "setter" | "deleter"))
    }

    /// An identifier's name as Python reads it: NFKC-normalized (PEP 3131), so a
    /// declaration, its accessors and a selector on it agree whatever form each is
    /// written in.
    fn identifier(&self, node: Node<'_>) -> Option<Cow<'s, str>> {
        syntax::text(node, self.source).map(python_identifier)
    }
}

/// Nodes a declaration can sit inside without being qualified by them: the module, blocks,
/// and compound statements with their clauses.
fn is_transparent(kind: &str) -> bool {
    matches!(
        kind,
        "module"
            | "block"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "with_statement"
            | "for_statement"
            | "while_statement"
            | "match_statement"
            | "case_clause"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{ExtractError, Language, extract_as};
    use UnitKind::{Class, Function, Method};

    fn extract(content: &[u8]) -> Result<Vec<Unit>, ExtractError> {
        extract_as(Language::Python, content)
    }

    type Row = (String, UnitKind, u32, u32);

    fn units(source: &str) -> Vec<Row> {
        match extract(source.as_bytes()) {
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

    fn check(source: &str, expected: &[(&str, UnitKind, u32, u32)]) {
        assert_eq!(units(source), rows(expected), "source:\n{source}");
    }

    fn unparseable_line(content: &[u8]) -> u32 {
        match extract(content) {
            Err(ExtractError::Unparseable { line, .. }) => line,
            other => panic!("expected Unparseable, got {other:?}"),
        }
    }

    #[test]
    fn functions_classes_and_lexical_nesting() {
        let source = "\
def top():
    def inner():
        pass
    return inner

async def fetch():
    pass

class Outer:
    class Inner:
        def method(self):
            pass

    async def run(self):
        def helper():
            class Local:
                pass
        return 1
";
        check(
            source,
            &[
                ("top", Function, 1, 4),
                ("top.inner", Function, 2, 3),
                ("fetch", Function, 6, 7),
                ("Outer", Class, 9, 18),
                ("Outer.Inner", Class, 10, 12),
                ("Outer.Inner.method", Method, 11, 12),
                ("Outer.run", Method, 14, 18),
                ("Outer.run.helper", Function, 15, 17),
                ("Outer.run.helper.Local", Class, 16, 17),
            ],
        );
    }

    #[test]
    fn decorators_start_the_unit() {
        let source = "\
import functools

@functools.cache
@other(1,
       2)
def cached():
    pass

@dataclass
class Point:
    x: int

    @staticmethod
    def make():
        pass
";
        check(
            source,
            &[
                ("cached", Function, 3, 7),
                ("Point", Class, 9, 15),
                ("Point.make", Method, 13, 15),
            ],
        );
    }

    #[test]
    fn block_statements_are_transparent() {
        let source = "\
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    def checking(): ...
elif OTHER:
    def in_elif(): ...
else:
    def in_else(): ...
try:
    def in_try(): ...
except ImportError:
    def in_except(): ...
else:
    def in_try_else(): ...
finally:
    def in_finally(): ...
with ctx() as c:
    def in_with(): ...
for i in range(3):
    def in_for(): ...
while cond:
    def in_while(): ...
match command:
    case \"go\":
        def in_case(): ...
class Box:
    if sys.version_info >= (3, 8):
        def method(self): ...
        class Nested:
            def deep(self): ...
def func():
    if x:
        def inner(): ...
try:
    pass
except* ValueError:
    def in_except_group(): ...
";
        check(
            source,
            &[
                ("checking", Function, 3, 3),
                ("in_elif", Function, 5, 5),
                ("in_else", Function, 7, 7),
                ("in_try", Function, 9, 9),
                ("in_except", Function, 11, 11),
                ("in_try_else", Function, 13, 13),
                ("in_finally", Function, 15, 15),
                ("in_with", Function, 17, 17),
                ("in_for", Function, 19, 19),
                ("in_while", Function, 21, 21),
                ("in_case", Function, 24, 24),
                ("Box", Class, 25, 29),
                ("Box.method", Method, 27, 27),
                ("Box.Nested", Class, 28, 29),
                ("Box.Nested.deep", Method, 29, 29),
                ("func", Function, 30, 32),
                ("func.inner", Function, 32, 32),
                ("in_except_group", Function, 36, 36),
            ],
        );
    }

    #[test]
    fn overload_stubs_join_their_implementation() {
        let source = "\
import typing
from typing import overload

@overload
def parse(x: int) -> int: ...
@typing.overload
def parse(x: str) -> str: ...
def parse(x):
    return x

class Api:
    @overload
    def get(self, k: int) -> int: ...
    @overload
    def get(self, k: str) -> str: ...
    def get(self, k):
        return k

    def other(self):
        pass
";
        check(
            source,
            &[
                ("parse", Function, 4, 9),
                ("Api", Class, 11, 20),
                ("Api.get", Method, 12, 17),
                ("Api.other", Method, 19, 20),
            ],
        );
    }

    #[test]
    fn stub_only_overloads_are_one_unit_and_a_later_repeat_is_not() {
        let source = "\
@overload
def f(a: int) -> int: ...
@overload
def f(a: str) -> str: ...
def f(a): ...
def f(): ...
";
        check(source, &[("f", Function, 1, 5), ("f", Function, 6, 6)]);
    }

    #[test]
    fn property_accessors_are_one_unit() {
        let source = "\
class Temp:
    @property
    def celsius(self):
        return self._c

    @celsius.setter
    def celsius(self, value):
        self._c = value

    @celsius.deleter
    def celsius(self):
        del self._c

    @property
    def kelvin(self):
        return 0
";
        check(
            source,
            &[
                ("Temp", Class, 1, 16),
                ("Temp.celsius", Method, 2, 12),
                ("Temp.kelvin", Method, 14, 16),
            ],
        );
    }

    #[test]
    fn other_repeats_stay_separate() {
        let source = "\
def f():
    pass
def f():
    pass
class C:
    @property
    def p(self): ...
    @property
    def p(self): ...
    def m(self): ...
    def m(self): ...
";
        check(
            source,
            &[
                ("f", Function, 1, 2),
                ("f", Function, 3, 4),
                ("C", Class, 5, 11),
                ("C.p", Method, 6, 7),
                ("C.p", Method, 8, 9),
                ("C.m", Method, 10, 10),
                ("C.m", Method, 11, 11),
            ],
        );
    }

    #[test]
    fn lambdas_and_assignments_are_not_units() {
        let source = "\
handler = lambda x: x
VALUE = 3
class K:
    attr = lambda self: 1
    other = 2
";
        check(source, &[("K", Class, 3, 5)]);
    }

    #[test]
    fn empty_module_has_no_units() {
        check("", &[]);
        check("# only a comment\n", &[]);
    }

    #[test]
    fn syntax_errors_name_their_line() {
        let stray_token = "\
def ok():
    return 1

x = )
def later():
    pass
";
        assert_eq!(unparseable_line(stray_token.as_bytes()), 4);
        let missing_paren = "\
class A:
    pass

def f(:
    pass
";
        assert_eq!(unparseable_line(missing_paren.as_bytes()), 4);
    }

    #[test]
    fn non_utf8_is_unparseable_at_its_line() {
        assert_eq!(unparseable_line(b"def f():\n    pass\n# \xff\n"), 3);
    }

    #[test]
    fn a_getter_setter_or_deleter_joins_the_last_def_of_its_name() {
        let source = "\
class User:
    @computed_field
    @property
    def full(self):
        return self._full

    @full.setter
    def full(self, value):
        self._full = value

    @hybrid_property
    def name(self):
        return self._name

    def other(self):
        pass

    @name.setter
    def name(self, value):
        self._name = value

    @name.setter
    def name(self, value):
        self._name = value.strip()

    @functools.cached_property
    def size(self):
        return 1

    @size.deleter
    def size(self):
        pass

    @orphan.getter
    def orphan(self):
        pass
";
        check(
            source,
            &[
                ("User", Class, 1, 36),
                ("User.full", Method, 2, 9),
                ("User.name", Method, 11, 24),
                ("User.other", Method, 15, 16),
                ("User.size", Method, 26, 32),
                ("User.orphan", Method, 34, 36),
            ],
        );
    }

    #[test]
    fn an_accessor_joins_only_the_last_unit_of_its_name() {
        let source = "\
@property
def x(self): ...
def x(self): ...
@x.setter
def x(self, value): ...
@other.setter
def y(self, value): ...
";
        check(
            source,
            &[
                ("x", Function, 1, 2),
                ("x", Function, 3, 5),
                ("y", Function, 6, 7),
            ],
        );
    }

    /// The line of the first error, the units, the lines that did not parse and the names
    /// left out, of a file that does not parse.
    type Tolerated = (u32, Vec<Row>, Vec<(u32, u32)>, Vec<String>);

    fn partial(source: &str) -> Tolerated {
        match extract(source.as_bytes()) {
            Err(ExtractError::Unparseable { line, partial, .. }) => (
                line,
                partial
                    .units
                    .into_iter()
                    .map(|unit| (unit.name, unit.kind, unit.start_line, unit.end_line))
                    .collect(),
                partial
                    .unparsed
                    .iter()
                    .map(|lines| (lines.start, lines.end))
                    .collect(),
                partial.left_out,
            ),
            other => panic!("expected Unparseable, got {other:?}"),
        }
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|&name| name.to_owned()).collect()
    }

    #[test]
    fn a_column_0_comment_between_decorator_and_def_breaks_only_its_class() {
        // tree-sitter-python 0.25.0 (the newest release) reads the column-0 comment as the
        // end of the class body, so the decorator above it is an error; CPython accepts it.
        let source = "\
import pydantic


class Model:
    @field_validator(\"x\")
# a column-0 comment
    @classmethod
    def check(cls, v):
        return v


def helper():
    return 1
";
        assert_eq!(
            partial(source),
            (
                5,
                rows(&[("helper", Function, 12, 13)]),
                vec![(5, 5)],
                names(&["Model", "Model.check"]),
            )
        );
        let at_module_level = "@dec\n# a column-0 comment\ndef f():\n    pass\n";
        check(at_module_level, &[("f", Function, 1, 4)]);
    }

    #[test]
    fn one_broken_function_leaves_the_others_standing() {
        let source = "\
def good():
    return 1


def bad(:
    return 2


class Kept:
    def method(self):
        pass
";
        assert_eq!(
            partial(source),
            (
                5,
                rows(&[
                    ("good", Function, 1, 2),
                    ("Kept", Class, 9, 11),
                    ("Kept.method", Method, 10, 11),
                ]),
                vec![(5, 5)],
                names(&["bad"]),
            )
        );
    }

    #[test]
    fn a_group_with_a_broken_member_is_left_out_whole() {
        let source = "\
@overload
def f(x: int) -> int: ...
@overload
def f(x: str) -> str: ...
def f(x:
    return x


def g():
    pass
";
        assert_eq!(
            partial(source),
            (
                5,
                rows(&[("g", Function, 9, 10)]),
                vec![(5, 5)],
                names(&["f"]),
            )
        );
    }

    #[test]
    fn a_file_that_yields_nothing_stays_unparseable_as_a_whole() {
        let source = "class A:\n    def f(self:\n        pass\n";
        assert_eq!(partial(source), (2, Vec::new(), Vec::new(), Vec::new()));
    }

    #[test]
    fn a_declared_encoding_is_decoded_with_lines_kept() {
        let content = b"\
# -*- coding: latin-1 -*-
def caf\xe9():
    return '\xb5'


class K:
    def m(self):
        pass
";
        let units: Vec<Row> = match extract(content) {
            Ok(units) => units
                .into_iter()
                .map(|unit| (unit.name, unit.kind, unit.start_line, unit.end_line))
                .collect(),
            other => panic!("latin-1 decodes: {other:?}"),
        };
        assert_eq!(
            units,
            rows(&[
                ("café", Function, 2, 3),
                ("K", Class, 6, 8),
                ("K.m", Method, 7, 8),
            ])
        );
        let vim = b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ndef f():\n    return '\x80'\n";
        assert!(
            matches!(extract(vim), Ok(ref units) if units.len() == 1),
            "{:?}",
            extract(vim)
        );
    }

    #[test]
    fn names_are_nfkc_normalized_as_python_reads_them() {
        // `ﬁnd` (the U+FB01 ligature) and fullwidth `Ｃ` are `find` and `C` to Python
        // (PEP 3131); the accessor and the overload decorator are read the same way.
        let source = "\
class \u{ff23}:
    def \u{fb01}nd(self):
        pass

    @property
    def size(self):
        return 1

    @\u{ff53}ize.setter
    def size(self, value):
        pass

@typing.\u{ff4f}verload
def g(x: int) -> int: ...
def g(x):
    return x
";
        check(
            source,
            &[
                ("C", Class, 1, 11),
                ("C.find", Method, 2, 3),
                ("C.size", Method, 5, 11),
                ("g", Function, 13, 16),
            ],
        );
    }

    #[test]
    fn an_encoding_keel_cannot_decode_is_refused_by_name() {
        match extract(b"# -*- coding: klingon -*-\ndef f():\n    pass\n") {
            Err(ExtractError::Unparseable {
                line: 1, reason, ..
            }) => {
                assert!(reason.contains("`klingon`"), "{reason}");
            }
            other => panic!("expected a refusal naming the encoding, got {other:?}"),
        }
    }
}
