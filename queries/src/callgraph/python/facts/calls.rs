//! Calls as the walk reads them: the callee and its arguments (keywords, splats), the
//! call site recorded for its owner, `super()` and `super(C, obj)`, the standard
//! library's functions that return an argument (`cast(T, v)`, `update_wrapper(w, f)`),
//! and the stores a container's methods make (`append`, `extend`, `insert`, `update`,
//! `setdefault`).
//!
//! Owns: the sites of calls and of implicit calls (their line and text, none inside a
//! left-out unit); a called attribute is its call's site, not an attribute read's.
//! Does not own: what the callee is (`expressions`, then `resolve`).

use super::model::{Arg, Expr, ExprId, MODULE_SCOPE, Site, SiteKind, StoreTarget};
use super::{Builder, Ctx, DROPPED, compact};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn call(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        let Some(function) = node.field(&fields::FUNCTION) else {
            self.children_exprs(node, ctx);
            return self.push(Expr::Unknown);
        };
        let func = self.expr(function, ctx);
        self.unsite_attribute(func);
        let mut args = Vec::new();
        // The first positional argument as written: `cast(T, v)` reads `T` as an annotation.
        let mut first_positional = None;
        if let Some(arguments) = node.field(&fields::ARGUMENTS) {
            if arguments.kind_name() == "generator_expression" {
                let value = self.expr(arguments, ctx);
                args.push(Arg {
                    keyword: None,
                    value,
                    splat: false,
                });
            } else {
                let mut cursor = arguments.walk();
                let children: Vec<Node<'_>> = arguments.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "keyword_argument" => {
                            let keyword = child
                                .field(&fields::NAME)
                                .map(|name| Box::<str>::from(self.text(name)));
                            let value =
                                self.opt_expr(child.field(&fields::VALUE), Expr::Unknown, ctx);
                            args.push(Arg {
                                keyword,
                                value,
                                splat: false,
                            });
                        }
                        "list_splat" | "dictionary_splat" => {
                            let value = self.opt_expr(child.named_child(0), Expr::Unknown, ctx);
                            args.push(Arg {
                                keyword: None,
                                value,
                                splat: true,
                            });
                        }
                        "comment" => {}
                        _ => {
                            first_positional = first_positional.or(Some(child));
                            let value = self.expr(child, ctx);
                            args.push(Arg {
                                keyword: None,
                                value,
                                splat: false,
                            });
                        }
                    }
                }
            }
        }
        self.container_store(func, &args, ctx);
        // Exactly two positional arguments: what `cast` takes.
        let pair = match args.as_slice() {
            [first, second]
                if [first, second]
                    .iter()
                    .all(|a| a.keyword.is_none() && !a.splat) =>
            {
                Some([first.value, second.value])
            }
            _ => None,
        };
        let call = self.push(Expr::Call {
            func,
            args: args.into(),
        });
        self.site(SiteKind::Call, call, function, ctx);
        if let Some(passed) = self.passthrough(function, first_positional, pair, call, ctx) {
            return passed;
        }
        if function.kind_name() != "identifier" || self.text(function) != "super" {
            return call;
        }
        let explicit = match self.model.expr(call) {
            Expr::Call { args, .. } => args
                .iter()
                .find(|arg| arg.keyword.is_none() && !arg.splat)
                .map(|arg| arg.value),
            _ => None,
        };
        match (explicit, self.callable_scope(ctx.scope)) {
            (Some(class), _) => self.push(Expr::SuperOf(class)),
            (None, Some(method)) => self.push(Expr::Super { function: method }),
            (None, None) => call,
        }
    }

    /// The standard library's functions that return an argument, called with two
    /// positional arguments: `cast(T, v)` (`typing.cast`, `t.cast`) is `v` and what the
    /// annotation `T` declares; `update_wrapper(wrapper, wrapped)` (`functools`) is
    /// `wrapper`. The call's own value too, for a function of the repository of that name.
    fn passthrough(
        &mut self,
        function: Node<'_>,
        first_node: Option<Node<'_>>,
        pair: Option<[ExprId; 2]>,
        call: ExprId,
        ctx: Ctx,
    ) -> Option<ExprId> {
        let (Some(first_node), Some([first, second])) = (first_node, pair) else {
            return None;
        };
        let written = self.text(function);
        // Most two-argument calls are neither: no compacted copy of their callee's text.
        if !(written.ends_with("cast") || written.ends_with("update_wrapper")) {
            return None;
        }
        let text = compact(written);
        let items = match &*text {
            "cast" | "t.cast" | "typing.cast" | "typing_extensions.cast" => {
                let mut items = vec![call, second];
                items.extend(self.annotation(first_node, ctx));
                items
            }
            "update_wrapper" | "functools.update_wrapper" => vec![call, first],
            _ => return None,
        };
        Some(self.push(Expr::Union(items.into())))
    }

    /// `x.append(v)`, `x.extend([...])`, `x.insert(i, v)`, `x.update({...})`,
    /// `x.setdefault(k, v)`: stores into the container `x`.
    fn container_store(&mut self, func: ExprId, args: &[Arg], ctx: Ctx) {
        let Expr::Attr { object, name } = self.model.expr(func) else {
            return;
        };
        let object = *object;
        let positional: Vec<ExprId> = args
            .iter()
            .filter(|arg| arg.keyword.is_none() && !arg.splat)
            .map(|arg| arg.value)
            .collect();
        match (&**name, positional.as_slice()) {
            ("append" | "add", [value]) => {
                self.store(ctx, object, StoreTarget::Item(None), *value);
            }
            ("insert" | "setdefault", [index, value]) => {
                self.store(ctx, object, StoreTarget::Item(Some(*index)), *value);
            }
            ("extend", [values]) => {
                let element = self.push(Expr::Iter(*values));
                self.store(ctx, object, StoreTarget::Item(None), element);
            }
            ("update", [values]) => {
                if let Expr::Dict(entries) = self.model.expr(*values) {
                    let entries = entries.clone();
                    for (key, value) in entries.iter() {
                        self.store(ctx, object, StoreTarget::Item(*key), *value);
                    }
                }
            }
            _ => {}
        }
        // `__all__.extend([...])`, `__all__.append("name")` at module level.
        let all = matches!(
            self.model.expr(object),
            Expr::Name { scope, name, .. } if *scope == MODULE_SCOPE && &**name == "__all__"
        );
        if all && positional.len() == 1 {
            self.set_all(positional[0], true);
        }
    }

    /// Takes back the attribute site of `func` (the last site made, when made): a called
    /// attribute is read by its call's site, which resolves a property there.
    fn unsite_attribute(&mut self, func: ExprId) {
        if self
            .sites
            .last()
            .is_some_and(|site| site.kind == SiteKind::Attribute && site.expr == func)
        {
            self.sites.pop();
        }
    }

    pub(super) fn site(&mut self, kind: SiteKind, expr: ExprId, callee: Node<'_>, ctx: Ctx) {
        if ctx.owner == DROPPED {
            return;
        }
        let line = self.line(callee.end_position().row);
        let text = compact(self.text(callee));
        let text: Box<str> = if text.chars().count() > MAX_TEXT {
            text.chars().take(MAX_TEXT).collect::<String>().into()
        } else {
            text.into()
        };
        self.sites.push(Site {
            kind,
            expr,
            line,
            owner: ctx.owner,
            text,
        });
    }

    pub(super) fn implicit_site(&mut self, kind: SiteKind, expr: ExprId, node: Node<'_>, ctx: Ctx) {
        if ctx.owner == DROPPED {
            return;
        }
        let line = self.line(node.start_position().row);
        let text = compact(self.text(node));
        let text: Box<str> = text.chars().take(MAX_TEXT).collect::<String>().into();
        self.sites.push(Site {
            kind,
            expr,
            line,
            owner: ctx.owner,
            text,
        });
    }
}

/// Callee texts are cut to this many characters.
const MAX_TEXT: usize = 160;
