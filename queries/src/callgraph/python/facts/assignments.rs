//! Assignments as the walk reads them: `a = b = v`, `x += v`, annotated names, and every
//! target a value is bound or stored to — names, attributes (`self.x` in a method is an
//! instance attribute), items, and destructured tuples and lists with a starred rest.
//!
//! Owns: what each target binds or stores, the implicit site of each attribute assigned
//! (`obj.x = v`, `obj.x += v`: a property's setter runs there), a class body's annotated
//! fields, and `__all__` when the module spells it with literals.
//! Does not own: the expressions assigned (`expressions`) or the stores a container's
//! methods make (`calls`).

use super::model::{At, Expr, ExprId, Key, MODULE_SCOPE, ScopeKind, SiteKind, Store, StoreTarget};
use super::{Builder, Ctx};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn assignment(&mut self, node: Node<'_>, ctx: Ctx) {
        // `a = b = value`: the right side nests.
        let mut targets = Vec::new();
        let mut current = node;
        let value = loop {
            if let Some(left) = current.field(&fields::LEFT) {
                targets.push(left);
            }
            match current.field(&fields::RIGHT) {
                Some(right) if right.kind_name() == "assignment" => current = right,
                Some(right) => break Some(self.expr(right, ctx)),
                None => break None,
            }
        };
        let annotation = node
            .field(&fields::TYPE)
            .and_then(|annotation| self.annotation(annotation, ctx));
        // `name: T` in a class body declares an instance attribute (dataclass and model
        // fields), with or without a value.
        let in_class = self.model.scopes[ctx.scope as usize].kind == ScopeKind::Class;
        let declared = targets
            .first()
            .filter(|target| in_class && target.kind_name() == "identifier")
            .zip(annotation);
        if let Some((target, annotation)) = declared {
            let name: Box<str> = self.text(*target).into();
            self.model.scopes[ctx.scope as usize]
                .self_stores
                .push((name, annotation));
        }
        let value = match (value, annotation) {
            (Some(value), Some(annotation)) => {
                Some(self.push(Expr::Union(Box::new([value, annotation]))))
            }
            (value, _) => value,
        };
        let Some(value) = value else {
            // An annotation without a value binds nothing.
            return;
        };
        for target in targets {
            if ctx.scope == MODULE_SCOPE && self.text(target) == "__all__" {
                self.set_all(value, false);
            }
            self.target(target, value, ctx);
        }
    }

    pub(super) fn augmented(&mut self, node: Node<'_>, ctx: Ctx) {
        let (Some(left), Some(right)) = (node.field(&fields::LEFT), node.field(&fields::RIGHT))
        else {
            return;
        };
        let value = self.expr(right, ctx);
        if left.kind_name() == "identifier" {
            let name = self.text(left);
            if ctx.scope == MODULE_SCOPE && name == "__all__" {
                self.set_all(value, true);
            }
            let old = self.name(name, ctx);
            let union = self.push(Expr::Union(Box::new([old, value])));
            self.bind(ctx, name, union);
        } else {
            let read = self.expr(left, ctx);
            if left.kind_name() == "attribute" {
                // `obj.x += v` reads `obj.x` (a getter, on the read's own site) and
                // writes it back (a setter).
                self.implicit_site(SiteKind::Assign, read, left, ctx);
            }
        }
    }

    /// `__all__ = [...]` (or `+=`, `extend`, `append`): string literals only.
    pub(super) fn set_all(&mut self, value: ExprId, extend: bool) {
        let names: Option<Vec<Box<str>>> = match self.model.expr(value) {
            Expr::Seq(items) => items
                .iter()
                .map(|&item| match self.model.expr(item) {
                    Expr::Const(Key::Str(name)) => Some(name.clone()),
                    _ => None,
                })
                .collect(),
            Expr::Const(Key::Str(name)) if extend => Some(vec![name.clone()]),
            _ => None,
        };
        match names {
            Some(names) => {
                let all = self.model.all.get_or_insert_with(Vec::new);
                if !extend {
                    all.clear();
                }
                all.extend(names);
            }
            None => self.all_unknown = true,
        }
    }

    /// Binds a target pattern to `value`.
    pub(super) fn target(&mut self, target: Node<'_>, value: ExprId, ctx: Ctx) {
        match target.kind_name() {
            "identifier" => {
                let name = self.text(target);
                self.bind(ctx, name, value);
            }
            "attribute" => {
                let (Some(object), Some(attribute)) = (
                    target.field(&fields::OBJECT),
                    target.field(&fields::ATTRIBUTE),
                ) else {
                    return;
                };
                let name: Box<str> = self.text(attribute).into();
                let self_store = object.kind_name() == "identifier"
                    && self
                        .self_name
                        .get(&ctx.scope)
                        .is_some_and(|own| **own == *self.text(object));
                if let Some(class) = self.model.scopes[ctx.scope as usize]
                    .parent
                    .filter(|_| self_store)
                {
                    self.model.scopes[class as usize]
                        .self_stores
                        .push((name.clone(), value));
                    let own = self.name(self.text(object), ctx);
                    self.assign_site(own, name, target, ctx);
                    return;
                }
                let object = self.expr(object, ctx);
                self.assign_site(object, name.clone(), target, ctx);
                self.store(ctx, object, StoreTarget::Attr(name), value);
            }
            "subscript" => {
                let Some(object) = target.field(&fields::VALUE) else {
                    return;
                };
                let object = self.expr(object, ctx);
                let index = self.index(target, ctx);
                self.store(ctx, object, StoreTarget::Item(index), value);
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" | "expression_list" | "tuple"
            | "list" => self.destructure(target, value, ctx),
            "parenthesized_expression" => {
                if let Some(inner) = target.named_child(0) {
                    self.target(inner, value, ctx);
                }
            }
            "list_splat_pattern" | "list_splat" => {
                if let Some(inner) = target.named_child(0) {
                    let rest = self.push(Expr::Comprehension { element: value });
                    self.target(inner, rest, ctx);
                }
            }
            _ => {
                self.expr(target, ctx);
            }
        }
    }

    /// `a, (b, *c), d = value`: element-wise when `value` is a display of the same shape,
    /// by index otherwise.
    fn destructure(&mut self, target: Node<'_>, value: ExprId, ctx: Ctx) {
        let mut cursor = target.walk();
        let targets: Vec<Node<'_>> = target
            .named_children(&mut cursor)
            .filter(|child| child.kind_name() != "comment")
            .collect();
        let star = targets
            .iter()
            .position(|t| matches!(t.kind_name(), "list_splat_pattern" | "list_splat"));
        let elements = match self.model.expr(value) {
            Expr::Seq(items)
                if !items
                    .iter()
                    .any(|&item| matches!(self.model.expr(item), Expr::Starred(_))) =>
            {
                Some(items.clone())
            }
            _ => None,
        };
        let count = targets.len();
        for (i, t) in targets.into_iter().enumerate() {
            let element = match (&elements, star) {
                (Some(items), None) if items.len() == count => items[i],
                (Some(items), Some(s)) if items.len() + 1 >= count => {
                    let after = count - s - 1;
                    if i < s {
                        items[i]
                    } else if i > s {
                        items[items.len() - (count - i)]
                    } else {
                        let middle: Box<[ExprId]> = items[s..items.len() - after].into();
                        let seq = self.push(Expr::Seq(middle));
                        if let Some(inner) = t.named_child(0) {
                            self.target(inner, seq, ctx);
                        }
                        continue;
                    }
                }
                _ => {
                    let key = match star {
                        Some(s) if i == s => None,
                        Some(s) if i > s => {
                            Some(Key::Int(-(i64::try_from(count - i).unwrap_or(i64::MAX))))
                        }
                        _ => Some(Key::Int(i64::try_from(i).unwrap_or(i64::MAX))),
                    };
                    match key {
                        Some(key) => {
                            let index = self.push(Expr::Const(key));
                            self.push(Expr::Subscript {
                                object: value,
                                index: Some(index),
                                read: None,
                            })
                        }
                        None => {
                            let element = self.push(Expr::Subscript {
                                object: value,
                                index: None,
                                read: None,
                            });
                            let rest = self.push(Expr::Comprehension { element });
                            if let Some(inner) = t.named_child(0) {
                                self.target(inner, rest, ctx);
                            }
                            continue;
                        }
                    }
                }
            };
            self.target(t, element, ctx);
        }
    }

    /// `object.name = …`: a site that calls the setter when `name` is a property.
    fn assign_site(&mut self, object: ExprId, name: Box<str>, target: Node<'_>, ctx: Ctx) {
        let attr = self.push(Expr::Attr {
            object,
            name: name.as_ref().into(),
        });
        self.implicit_site(SiteKind::Assign, attr, target, ctx);
    }

    pub(super) fn store(&mut self, ctx: Ctx, object: ExprId, target: StoreTarget, value: ExprId) {
        self.stores.push(Store {
            object,
            target,
            value,
            scope: ctx.scope,
            at: At {
                pos: self.pos,
                block: ctx.block,
            },
        });
    }
}
