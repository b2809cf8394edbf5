//! Expressions and type annotations as the walk keeps them: written, their names not yet
//! looked up ([`Expr`]).
//!
//! Owns: which expressions are followed (names, members, calls, `new`, `require`, object
//! literals, assertions) and what a type annotation makes a binding (an instance of the
//! class it names, a builtin, or unknown).
//! Does not own: looking the names up (`lookup`).

use super::model::{SPREAD, Value};
use super::{Expr, MAX_DEPTH, Walk, require_spec, unquote};
use crate::extract::fields::{ChildByField as _, typescript as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl<'s> Walk<'s> {
    /// `exports` or `module.exports` as written.
    pub(super) fn is_exports_object(&self, node: Node<'_>) -> bool {
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

    /// An expression as a value to look up later.
    pub(super) fn expr(&self, node: Node<'_>, ctx: usize, depth: u32) -> Expr {
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
    pub(super) fn type_expr(&self, node: Node<'_>) -> Expr {
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
    pub(super) fn member_name(&self, node: Node<'_>) -> Option<String> {
        let text = self.text(node);
        match node.kind_name() {
            "computed_property_name" => None,
            "string" => Some(unquote(text).to_owned()),
            _ => Some(text.to_owned()),
        }
    }
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
