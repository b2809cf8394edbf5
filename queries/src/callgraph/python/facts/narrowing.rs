//! `isinstance` as the walk reads it: inside `if isinstance(x, C):` (and an `elif`, and
//! each `isinstance` of an `and` chain), and after `assert isinstance(x, C)`, the local
//! name `x` is also an instance of `C` — of each class of a tuple `(C, D)`, builtin types
//! included, so `value.decode()` under `isinstance(value, bytes)` is a method of a
//! builtin value (external).
//!
//! Owns: which conditions narrow (a call of `isinstance` whose first argument is a name
//! the scope binds itself, not through `global` or `nonlocal`) and the binding that says
//! so: `x` bound again at the top of the block, to what `x` was where the condition read
//! it or an instance of the classes named, a narrowed binding (`Binding::narrowed`) that
//! reaches the reads of that block only — not an `else`, not the code after the `if`,
//! not another file. It adds and never takes away: a value keel knew for `x` (a subclass
//! of `C`, or a value the narrowing does not name) stays.
//! Does not own: the blocks (`statements`), what an instance of the classes is
//! (`resolve`, as for an annotation).

use super::model::{Binding, Expr, ExprId, Name};
use super::{Builder, Ctx};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

/// One narrowing: the name, what the condition read of it, the classes named.
pub(super) struct Narrowing {
    name: Name,
    subject: ExprId,
    classes: ExprId,
}

impl Builder<'_> {
    /// The narrowings of a condition already walked: `node`, whose expression is `expr`.
    pub(super) fn narrowings(&self, node: Node<'_>, expr: ExprId, ctx: Ctx) -> Vec<Narrowing> {
        let mut out = Vec::new();
        self.narrowings_into(node, expr, ctx, &mut out, 0);
        out
    }

    fn narrowings_into(
        &self,
        node: Node<'_>,
        expr: ExprId,
        ctx: Ctx,
        out: &mut Vec<Narrowing>,
        depth: u32,
    ) {
        if depth > 8 {
            return;
        }
        match (node.kind_name(), self.model.expr(expr)) {
            ("parenthesized_expression", _) => {
                if let Some(inner) = node.named_child(0) {
                    self.narrowings_into(inner, expr, ctx, out, depth + 1);
                }
            }
            ("boolean_operator", Expr::Union(items)) => {
                let and = node
                    .field(&fields::OPERATOR)
                    .is_some_and(|operator| self.text(operator) == "and");
                let sides = [node.field(&fields::LEFT), node.field(&fields::RIGHT)];
                if let (true, [left, right]) = (and, &**items) {
                    for (side, item) in sides.into_iter().zip([*left, *right]) {
                        if let Some(side) = side {
                            self.narrowings_into(side, item, ctx, out, depth + 1);
                        }
                    }
                }
            }
            ("call", Expr::Call { func, args }) => {
                let isinstance = matches!(
                    self.model.expr(*func),
                    Expr::Name { name, .. } if &**name == "isinstance"
                );
                let [subject, classes] = &**args else {
                    return;
                };
                if !isinstance || subject.splat || classes.splat || subject.keyword.is_some() {
                    return;
                }
                let Expr::Name { name, .. } = self.model.expr(subject.value) else {
                    return;
                };
                let scope = ctx.scope as usize;
                let local = self.binds[scope].contains(&**name)
                    && !self.globals[scope].contains(&**name)
                    && !self.nonlocals[scope].contains(&**name);
                if local {
                    out.push(Narrowing {
                        name: name.clone(),
                        subject: subject.value,
                        classes: classes.value,
                    });
                }
            }
            _ => {}
        }
    }

    /// Binds each narrowing in `ctx`'s block, at the walk's position: what the block
    /// reads of the name after it.
    pub(super) fn narrow(&mut self, narrowings: &[Narrowing], ctx: Ctx) {
        for narrowing in narrowings {
            let classes = match self.model.expr(narrowing.classes) {
                Expr::Seq(items) => items.to_vec(),
                _ => vec![narrowing.classes],
            };
            let mut values = vec![narrowing.subject];
            for class in classes {
                values.push(self.push(Expr::Typed(class)));
            }
            let value = self.push(Expr::Union(values.into()));
            // The name is bound in this scope already (`narrowings` asks): binding it
            // again changes no scope; the binding is the block's alone.
            self.model.scopes[ctx.scope as usize]
                .bindings
                .push(Binding {
                    name: narrowing.name.clone(),
                    value,
                    pos: self.pos,
                    block: ctx.block,
                    floating: false,
                    narrowed: true,
                });
        }
    }

    /// `assert cond[, message]`: the condition's narrowings hold after it.
    pub(super) fn assertion(&mut self, node: Node<'_>, ctx: Ctx) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node
            .named_children(&mut cursor)
            .filter(|child| !matches!(child.kind_name(), "comment" | "ERROR"))
            .collect();
        let mut narrowings = Vec::new();
        for (index, child) in children.into_iter().enumerate() {
            let expr = self.expr(child, ctx);
            if index == 0 {
                narrowings = self.narrowings(child, expr, ctx);
            }
        }
        self.narrow(&narrowings, ctx);
    }

    /// A clause's body (`if`, `elif`) in a new block, with the condition's narrowings
    /// bound at its top.
    pub(super) fn narrowed_block(
        &mut self,
        body: Option<Node<'_>>,
        narrowings: &[Narrowing],
        ctx: Ctx,
    ) {
        let Some(body) = body else { return };
        let block = self.new_block(Some(ctx.block), false);
        let inner = Ctx { block, ..ctx };
        self.narrow(narrowings, inner);
        self.statements(body, inner);
    }
}
