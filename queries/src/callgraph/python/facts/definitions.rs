//! `def` and `class` as the walk reads them: a new scope named as keel names the unit, its
//! decorators (each a call site, applied outermost last), bases, parameters with their
//! defaults and annotations, and a function's declared return type.
//!
//! Owns: how a method binds (plain, static, class method, a property's getter, setter or
//! deleter), the `self` parameter of a method bound to its instance, and the binding a
//! definition makes after its body.
//! Does not own: the body's statements (`statements`) or what an annotation names
//! (`annotations`).

use super::model::{Expr, ExprId, Flavor, Param, ParamKind, ScopeId, ScopeKind, SiteKind};
use super::{Builder, Ctx, DROPPED};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl Builder<'_> {
    /// A `def` or `class` with its decorators (outermost first).
    pub(super) fn definition(&mut self, node: Node<'_>, decorators: &[Node<'_>], ctx: Ctx) {
        let Some(name_node) = node.field(&fields::NAME) else {
            return;
        };
        let name = self.text(name_node).to_owned();
        let qualified: Box<str> = {
            let prefix = self.prefix(ctx.scope);
            if prefix.is_empty() {
                name.as_str().into()
            } else {
                format!("{prefix}.{name}").into()
            }
        };
        // A unit a partial parse left out: nothing in it (its header included) is a call
        // keel can place.
        let ctx = if self.standing.left_out.contains(&*qualified) {
            Ctx {
                owner: DROPPED,
                ..ctx
            }
        } else {
            ctx
        };
        // Decorators run in the enclosing scope, before the definition binds.
        let decorator_exprs: Vec<(ExprId, Node<'_>)> = decorators
            .iter()
            .filter_map(|decorator| {
                let expr = decorator.named_child(0)?;
                Some((self.expr(expr, ctx), expr))
            })
            .collect();
        let class = node.kind_name() == "class_definition";
        let scope = self.new_scope(
            if class {
                ScopeKind::Class
            } else {
                ScopeKind::Function
            },
            qualified,
            Some(ctx.scope),
        );
        let in_class = self.model.scopes[ctx.scope as usize].kind == ScopeKind::Class;
        if !class && in_class {
            self.model.scopes[scope as usize].flavor =
                flavor(decorators.iter().filter_map(|d| d.named_child(0)), |n| {
                    self.text(n)
                });
        }
        let owner = if self.model.scopes[scope as usize].node {
            scope
        } else {
            ctx.owner
        };
        let body_ctx = Ctx {
            scope,
            owner,
            block: self.model.scopes[scope as usize].top,
        };
        if class {
            if let Some(superclasses) = node.field(&fields::SUPERCLASSES) {
                let mut cursor = superclasses.walk();
                let children: Vec<Node<'_>> = superclasses.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "keyword_argument" => {
                            if let Some(value) = child.field(&fields::VALUE) {
                                self.expr(value, ctx);
                            }
                        }
                        "comment" => {}
                        _ => {
                            let base = self.expr(child, ctx);
                            self.model.scopes[scope as usize].bases.push(base);
                        }
                    }
                }
            }
        } else if let Some(parameters) = node.field(&fields::PARAMETERS) {
            self.parameters(parameters, scope, ctx, in_class);
        }
        if let Some(body) = node.field(&fields::BODY) {
            self.statements(body, body_ctx);
        }
        // `-> T`: what a function returns, besides what its body returns (not for a
        // generator, whose annotation names the iterator).
        let returns = node
            .field(&fields::RETURN_TYPE)
            .and_then(|annotation| self.annotation(annotation, ctx));
        if let Some(returns) = returns {
            let function = &mut self.model.scopes[scope as usize];
            if function.yields.is_empty() {
                function.returns.push(returns);
            }
        }
        // The definition binds after its body is built, at the statement's position.
        let mut value = self.push(Expr::Def(scope));
        for (decorator, decorator_node) in decorator_exprs.into_iter().rev() {
            value = self.push(Expr::Decorate {
                decorator,
                inner: value,
            });
            self.site(SiteKind::Decorator, value, decorator_node, ctx);
        }
        self.bind(ctx, &name, value);
    }

    /// A function's or lambda's parameters: defaults are evaluated in `outer`; each
    /// parameter is bound in `scope` before its body.
    pub(super) fn parameters(
        &mut self,
        parameters: Node<'_>,
        scope: ScopeId,
        outer: Ctx,
        in_class: bool,
    ) {
        let mut cursor = parameters.walk();
        let children: Vec<Node<'_>> = parameters.named_children(&mut cursor).collect();
        let mut keyword_only = false;
        let inner = Ctx {
            scope,
            owner: outer.owner,
            block: self.model.scopes[scope as usize].top,
        };
        for child in children {
            let (name_node, default, kind) = match child.kind_name() {
                "identifier" => (Some(child), None, None),
                "typed_parameter" => {
                    let inner = child.named_child(0);
                    match inner.map(|n| n.kind_name()) {
                        Some("list_splat_pattern") => (
                            inner.and_then(|n| n.named_child(0)),
                            None,
                            Some(ParamKind::Args),
                        ),
                        Some("dictionary_splat_pattern") => (
                            inner.and_then(|n| n.named_child(0)),
                            None,
                            Some(ParamKind::Kwargs),
                        ),
                        _ => (inner, None, None),
                    }
                }
                "default_parameter" | "typed_default_parameter" => (
                    child.field(&fields::NAME),
                    child.field(&fields::VALUE),
                    None,
                ),
                "list_splat_pattern" => (child.named_child(0), None, Some(ParamKind::Args)),
                "dictionary_splat_pattern" => (child.named_child(0), None, Some(ParamKind::Kwargs)),
                "keyword_separator" => {
                    keyword_only = true;
                    continue;
                }
                _ => continue,
            };
            let kind = kind.unwrap_or(if keyword_only {
                ParamKind::KeywordOnly
            } else {
                ParamKind::Positional
            });
            if kind == ParamKind::Args {
                keyword_only = true;
            }
            let default = default.map(|value| self.expr(value, outer));
            let annotation = child
                .field(&fields::TYPE)
                .and_then(|annotation| self.annotation(annotation, outer));
            let Some(name_node) = name_node.filter(|n| n.kind_name() == "identifier") else {
                continue;
            };
            let name = self.text(name_node);
            let index = self.model.scopes[scope as usize].params.len() as u32;
            self.model.scopes[scope as usize].params.push(Param {
                name: name.into(),
                kind,
            });
            if index == 0 && in_class && binds_instance(self.model.scopes[scope as usize].flavor) {
                self.self_name.insert(scope, name.into());
            }
            let param = self.push(Expr::Param { scope, index });
            let value = match (default, annotation) {
                (None, None) => param,
                (default, annotation) => {
                    let items: Box<[ExprId]> = [Some(param), default, annotation]
                        .into_iter()
                        .flatten()
                        .collect();
                    self.push(Expr::Union(items))
                }
            };
            self.bind(inner, name, value);
        }
        self.pos += 1;
    }
}

/// Whether a method of this flavor takes its instance first (`self`).
fn binds_instance(flavor: Flavor) -> bool {
    matches!(
        flavor,
        Flavor::Plain | Flavor::Property | Flavor::Setter | Flavor::Deleter
    )
}

/// How decorators make a method bind.
fn flavor<'t, 's>(
    decorators: impl Iterator<Item = Node<'t>>,
    text_of: impl Fn(Node<'t>) -> &'s str,
) -> Flavor {
    let mut flavor = Flavor::Plain;
    for decorator in decorators {
        let text = text_of(decorator);
        let last = text.rsplit('.').next().unwrap_or(text);
        match last {
            "staticmethod" => flavor = Flavor::Static,
            "classmethod" => flavor = Flavor::ClassMethod,
            "property" | "cached_property" | "getter" if flavor == Flavor::Plain => {
                flavor = Flavor::Property;
            }
            "setter" if flavor == Flavor::Plain => flavor = Flavor::Setter,
            "deleter" if flavor == Flavor::Plain => flavor = Flavor::Deleter,
            _ => {}
        }
    }
    flavor
}
