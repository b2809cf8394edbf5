//! The walk's traversal: which node is read in which context, statement by statement.
//!
//! Owns: the dispatch on a node's kind ([`Walk::visit`]), statement lists, blocks and
//! their scopes, `if`/`try`/`switch`/loops, `catch` parameters, `for` headers, what an
//! unparsed region spells, binding patterns (`{ a, b: c } = v`) and assignments (to a
//! name, to `module.exports`/`exports.x`, to `this.x`).
//! Does not own: what a declaration binds (`declarations`), `import`/`export`
//! (`imports_exports`), call sites (`calls`), or what an expression is (`expressions`).

use super::model::Value;
use super::{Expr, Frame, Init, This, Walk, frame_of};
use crate::extract::fields::{ChildByField as _, Field, typescript as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl<'s> Walk<'s> {
    pub(super) fn visit<'t>(&mut self, frame: &Frame<'t>, out: &mut Vec<Frame<'t>>) {
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
            "interface_declaration" => self.interface_declaration(node, ctx),
            "type_alias_declaration" => {
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
    pub(super) fn expressions<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
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
    pub(super) fn bind_pattern(&mut self, scope: usize, pattern: Node<'_>, base: Option<&Expr>) {
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
}
