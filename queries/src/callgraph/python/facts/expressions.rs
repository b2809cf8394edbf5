//! Expressions as the walk reads them into the graph: names (read where they are, for
//! the bindings that reach them), attributes, subscripts, displays, comprehensions and
//! lambdas (scopes of their own), conditionals, walrus targets, `yield`, constants.
//!
//! Owns: the expression each node is, the bound on nesting (deeper is not read), a
//! subscript's index (a constant, a slice's constant start), and the implicit sites of
//! each attribute read (a property's getter runs there), of each subscript read
//! (`__getitem__`) and of each comprehension's iteration.
//! Does not own: calls (`calls`) or the targets values are assigned to (`assignments`).

use super::model::{At, Expr, ExprId, Key, ScopeKind, SiteKind};
use super::{Builder, Ctx};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl Builder<'_> {
    /// The expression of an optional node (`fallback` when absent).
    pub(super) fn opt_expr(&mut self, node: Option<Node<'_>>, fallback: Expr, ctx: Ctx) -> ExprId {
        match node {
            Some(node) => self.expr(node, ctx),
            None => self.push(fallback),
        }
    }

    pub(super) fn name(&mut self, name: &str, ctx: Ctx) -> ExprId {
        self.push(Expr::Name {
            scope: ctx.scope,
            name: name.into(),
            at: Some(At {
                pos: self.pos,
                block: ctx.block,
            }),
        })
    }

    /// Visits every named child as an expression (for the calls inside).
    pub(super) fn children_exprs(&mut self, node: Node<'_>, ctx: Ctx) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children {
            if matches!(child.kind_name(), "comment" | "ERROR" | "type") {
                continue;
            }
            self.expr(child, ctx);
        }
    }

    pub(super) fn expr(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        if self.depth >= MAX_DEPTH {
            return self.push(Expr::Unknown);
        }
        self.depth += 1;
        let expr = self.expr_inner(node, ctx);
        self.depth -= 1;
        expr
    }

    fn expr_inner(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        match node.kind_name() {
            "identifier" => {
                let name = self.text(node);
                self.name(name, ctx)
            }
            "attribute" => {
                let object = self.opt_expr(node.field(&fields::OBJECT), Expr::Unknown, ctx);
                let name = node
                    .field(&fields::ATTRIBUTE)
                    .map(|attribute| self.text(attribute))
                    .unwrap_or("");
                let attr = self.push(Expr::Attr {
                    object,
                    name: name.into(),
                });
                // A property's getter runs on the read (a called attribute is its call's
                // site instead: `call` takes this one back).
                self.implicit_site(SiteKind::Attribute, attr, node, ctx);
                attr
            }
            "call" => self.call(node, ctx),
            "subscript" => {
                let object = self.opt_expr(node.field(&fields::VALUE), Expr::Unknown, ctx);
                let index = self.index(node, ctx);
                let read = Some((
                    ctx.scope,
                    At {
                        pos: self.pos,
                        block: ctx.block,
                    },
                ));
                let subscript = self.push(Expr::Subscript {
                    object,
                    index,
                    read,
                });
                // `del obj[k]` runs `__delitem__`, not a read.
                if node
                    .parent()
                    .is_none_or(|parent| parent.kind_name() != "delete_statement")
                {
                    self.implicit_site(SiteKind::Subscript, subscript, node, ctx);
                }
                subscript
            }
            "parenthesized_expression" => {
                let mut cursor = node.walk();
                let inner = node
                    .named_children(&mut cursor)
                    .find(|child| child.kind_name() != "comment");
                match inner {
                    Some(inner) => self.expr(inner, ctx),
                    None => self.push(Expr::Builtin),
                }
            }
            "list" | "tuple" | "expression_list" | "pattern_list" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() != "comment")
                    .collect();
                let items: Box<[ExprId]> = children
                    .into_iter()
                    .map(|child| self.expr(child, ctx))
                    .collect();
                self.push(Expr::Seq(items))
            }
            "list_splat" | "parenthesized_list_splat" => {
                let inner = self.opt_expr(node.named_child(0), Expr::Unknown, ctx);
                self.push(Expr::Starred(inner))
            }
            "dictionary" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                let mut entries = Vec::new();
                for child in children {
                    match child.kind_name() {
                        "pair" => {
                            let key = child.field(&fields::KEY).map(|k| self.expr(k, ctx));
                            let value =
                                self.opt_expr(child.field(&fields::VALUE), Expr::Unknown, ctx);
                            if let Some(key) = key {
                                entries.push((Some(key), value));
                            }
                        }
                        "dictionary_splat" => {
                            let value = self.opt_expr(child.named_child(0), Expr::Unknown, ctx);
                            entries.push((None, value));
                        }
                        _ => {}
                    }
                }
                self.push(Expr::Dict(entries.into()))
            }
            "list_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "dictionary_comprehension" => self.comprehension(node, ctx),
            "lambda" => self.lambda(node, ctx),
            "conditional_expression" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                let values: Vec<ExprId> = children
                    .into_iter()
                    .map(|child| self.expr(child, ctx))
                    .collect();
                match values.as_slice() {
                    [then, _, otherwise] => self.push(Expr::Union(Box::new([*then, *otherwise]))),
                    _ => self.push(Expr::Unknown),
                }
            }
            "boolean_operator" => {
                let left = self.opt_expr(node.field(&fields::LEFT), Expr::Unknown, ctx);
                let right = self.opt_expr(node.field(&fields::RIGHT), Expr::Unknown, ctx);
                self.push(Expr::Union(Box::new([left, right])))
            }
            "await" => match node.named_child(0) {
                Some(inner) => self.expr(inner, ctx),
                None => self.push(Expr::Unknown),
            },
            "named_expression" => {
                let value = self.opt_expr(node.field(&fields::VALUE), Expr::Unknown, ctx);
                if let Some(name) = node.field(&fields::NAME) {
                    let scope = self.binding_scope(ctx.scope);
                    let name = self.text(name);
                    let block = if scope == ctx.scope {
                        ctx.block
                    } else {
                        self.model.scopes[scope as usize].top
                    };
                    self.bind(
                        Ctx {
                            scope,
                            owner: ctx.owner,
                            block,
                        },
                        name,
                        value,
                    );
                    // What the statement reads after it sees it (`(x := f()) and x.m()`).
                    self.pos += 1;
                }
                value
            }
            "yield" => {
                let mut cursor = node.walk();
                let from = node
                    .children(&mut cursor)
                    .any(|child| child.kind_name() == "from");
                let value = node.named_child(0).map(|inner| self.expr(inner, ctx));
                if let Some(function) = self.callable_scope(ctx.scope) {
                    let yielded = match value {
                        Some(value) if from => self.push(Expr::Iter(value)),
                        Some(value) => value,
                        None => self.push(Expr::Builtin),
                    };
                    self.model.scopes[function as usize].yields.push(yielded);
                }
                self.push(Expr::Unknown)
            }
            "string" => {
                let mut cursor = node.walk();
                let mut constant = true;
                let mut text = String::new();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "interpolation" => {
                            constant = false;
                            self.children_exprs(child, ctx);
                        }
                        "string_content" => text.push_str(self.text(child)),
                        "string_start" => {
                            let start = self.text(child).to_ascii_lowercase();
                            if start.contains('f') || start.contains('b') {
                                constant = false;
                            }
                        }
                        _ => {}
                    }
                }
                if constant {
                    self.push(Expr::Const(Key::Str(text.into())))
                } else {
                    self.push(Expr::Builtin)
                }
            }
            "integer" => match parse_int(self.text(node)) {
                Some(value) => self.push(Expr::Const(Key::Int(value))),
                None => self.push(Expr::Builtin),
            },
            "unary_operator" => {
                let operand = node.field(&fields::ARGUMENT);
                let negative = node
                    .field(&fields::OPERATOR)
                    .is_some_and(|op| self.text(op) == "-");
                let literal = operand
                    .filter(|operand| negative && operand.kind_name() == "integer")
                    .and_then(|operand| parse_int(self.text(operand)));
                if let Some(value) = literal {
                    return self.push(Expr::Const(Key::Int(-value)));
                }
                self.children_exprs(node, ctx);
                self.push(Expr::Builtin)
            }
            "ERROR" | "comment" | "type" => self.push(Expr::Unknown),
            "keyword_argument" => {
                if let Some(value) = node.field(&fields::VALUE) {
                    self.expr(value, ctx)
                } else {
                    self.push(Expr::Unknown)
                }
            }
            "as_pattern" => match node.named_child(0) {
                Some(inner) => self.expr(inner, ctx),
                None => self.push(Expr::Unknown),
            },
            _ => {
                // Operators, comparisons, sets, numbers, f-strings: builtin values; the
                // calls inside still count.
                self.children_exprs(node, ctx);
                self.push(Expr::Builtin)
            }
        }
    }

    /// The index of a subscript: one expression (a constant or anything else), `None`
    /// for slices and tuples of indexes.
    pub(super) fn index(&mut self, subscript: Node<'_>, ctx: Ctx) -> Option<ExprId> {
        let mut cursor = subscript.walk();
        let indexes: Vec<Node<'_>> = subscript
            .children_by_field_name("subscript", &mut cursor)
            .collect();
        let mut result = None;
        for (i, index) in indexes.iter().enumerate() {
            if index.kind_name() == "slice" {
                self.children_exprs(*index, ctx);
                if let Some(start) = self.slice_start(*index).filter(|_| indexes.len() == 1) {
                    result = Some(self.push(Expr::Const(Key::Slice(start))));
                }
                continue;
            }
            let expr = self.expr(*index, ctx);
            if i == 0 && indexes.len() == 1 {
                result = Some(expr);
            }
        }
        result
    }

    /// The constant start of a slice without a step (`[1:]`, `[:2]` starts at 0).
    fn slice_start(&self, slice: Node<'_>) -> Option<i64> {
        let text: String = self
            .text(slice)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let mut parts = text.split(':');
        let start = parts.next()?;
        let _stop = parts.next()?;
        if parts.next().is_some() {
            return None;
        }
        if start.is_empty() {
            Some(0)
        } else {
            parse_int(start).filter(|&start| start >= 0)
        }
    }

    fn comprehension(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        let scope = self.new_scope(ScopeKind::Comprehension, "".into(), Some(ctx.scope));
        let inner = Ctx {
            scope,
            owner: ctx.owner,
            block: self.model.scopes[scope as usize].top,
        };
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut first = true;
        for child in &children {
            match child.kind_name() {
                "for_in_clause" => {
                    let iterable = self.opt_expr(
                        child.field(&fields::RIGHT),
                        Expr::Unknown,
                        if first { ctx } else { inner },
                    );
                    first = false;
                    // Iterating runs `__iter__` and `__next__` (or a generator's body) for
                    // the named callable around the comprehension, as a `for` does.
                    self.implicit_site(SiteKind::Iterate, iterable, *child, inner);
                    self.pos += 1;
                    let element = self.push(Expr::Iter(iterable));
                    if let Some(left) = child.field(&fields::LEFT) {
                        self.target(left, element, inner);
                    }
                    self.pos += 1;
                }
                "if_clause" => self.children_exprs(*child, inner),
                _ => {}
            }
        }
        self.pos += 1;
        let element = match node.field(&fields::BODY) {
            Some(body) if body.kind_name() == "pair" => {
                self.children_exprs(body, inner);
                None
            }
            Some(body) => Some(self.expr(body, inner)),
            None => None,
        };
        match element {
            Some(element) if node.kind_name() != "set_comprehension" => {
                self.push(Expr::Comprehension { element })
            }
            _ => self.push(Expr::Builtin),
        }
    }

    fn lambda(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        let scope = self.new_scope(ScopeKind::Lambda, "".into(), Some(ctx.scope));
        if let Some(parameters) = node.field(&fields::PARAMETERS) {
            self.parameters(parameters, scope, ctx, false);
        }
        let inner = Ctx {
            scope,
            owner: ctx.owner,
            block: self.model.scopes[scope as usize].top,
        };
        if let Some(body) = node.field(&fields::BODY) {
            let value = self.expr(body, inner);
            self.model.scopes[scope as usize].returns.push(value);
        }
        self.push(Expr::Def(scope))
    }
}

/// Nesting beyond this depth is not read (its calls are lost, never a stack overflow).
const MAX_DEPTH: u32 = 400;

fn parse_int(text: &str) -> Option<i64> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    digits.parse().ok()
}
