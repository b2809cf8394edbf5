//! The walk's statements: a module's body, blocks and the statements in them — control
//! flow (`if`, loops, `try`/`except`, `with`, `match`), `return`, `raise`, `global` and
//! `nonlocal`, and imports (`import a.b as c`, `from . import x`, `from m import *`).
//!
//! Owns: which statements bind what (an import's module or name, an `except` or `with`
//! target), the blocks they open (a loop's body is looped), the implicit sites of
//! `for`, `with` and `raise`, and the classes an `if TYPE_CHECKING:` block defines
//! (type-only).
//! Does not own: definitions (`definitions`), assignments (`assignments`) or the
//! expressions inside statements (`expressions`).

use super::model::{Expr, ExprId, MODULE_SCOPE, SiteKind};
use super::{Builder, Ctx, compact};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn module(&mut self, root: Node<'_>) {
        let ctx = Ctx {
            scope: MODULE_SCOPE,
            owner: MODULE_SCOPE,
            block: self.model.scopes[0].top,
        };
        self.statements(root, ctx);
    }

    pub(super) fn statements(&mut self, block: Node<'_>, ctx: Ctx) {
        let mut cursor = block.walk();
        let children: Vec<Node<'_>> = block.named_children(&mut cursor).collect();
        for child in children {
            self.statement(child, ctx);
        }
    }

    /// A nested block (a clause's body) in a new block id.
    fn sub_block(&mut self, node: Option<Node<'_>>, ctx: Ctx, looped: bool) {
        let Some(node) = node else { return };
        let block = self.new_block(Some(ctx.block), looped);
        self.statements(node, Ctx { block, ..ctx });
    }

    pub(super) fn statement(&mut self, node: Node<'_>, ctx: Ctx) {
        if let Some(chunk) = self.fragment_chunk(node, ctx) {
            self.splice(chunk, node, ctx);
            return;
        }
        self.pos += 1;
        match node.kind_name() {
            "expression_statement" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "assignment" => self.assignment(child, ctx),
                        "augmented_assignment" => self.augmented(child, ctx),
                        _ => {
                            self.expr(child, ctx);
                        }
                    }
                }
            }
            "function_definition" | "class_definition" => self.definition(node, &[], ctx),
            "decorated_definition" => {
                let mut cursor = node.walk();
                let decorators: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "decorator")
                    .collect();
                if let Some(definition) = node.field(&fields::DEFINITION) {
                    self.definition(definition, &decorators, ctx);
                }
            }
            "return_statement" => {
                let value = self.opt_expr(node.named_child(0), Expr::Builtin, ctx);
                let function = self.callable_scope(ctx.scope);
                if let Some(function) = function {
                    self.model.scopes[function as usize].returns.push(value);
                }
            }
            "if_statement" => {
                let narrowings = match node.field(&fields::CONDITION) {
                    Some(condition) => {
                        let expr = self.expr(condition, ctx);
                        self.narrowings(condition, expr, ctx)
                    }
                    None => Vec::new(),
                };
                let type_checking = node
                    .field(&fields::CONDITION)
                    .is_some_and(|condition| self.is_type_checking(condition));
                self.type_checking += u32::from(type_checking);
                self.narrowed_block(node.field(&fields::CONSEQUENCE), &narrowings, ctx);
                self.type_checking -= u32::from(type_checking);
                let mut cursor = node.walk();
                let alternatives: Vec<Node<'_>> = node
                    .children_by_field_name("alternative", &mut cursor)
                    .collect();
                for alternative in alternatives {
                    let narrowings = match alternative.field(&fields::CONDITION) {
                        Some(condition) => {
                            let expr = self.expr(condition, ctx);
                            self.narrowings(condition, expr, ctx)
                        }
                        None => Vec::new(),
                    };
                    let body = alternative
                        .field(&fields::CONSEQUENCE)
                        .or_else(|| alternative.field(&fields::BODY));
                    self.narrowed_block(body, &narrowings, ctx);
                }
            }
            "for_statement" => {
                let iterable = self.opt_expr(node.field(&fields::RIGHT), Expr::Unknown, ctx);
                self.implicit_site(SiteKind::Iterate, iterable, node, ctx);
                let element = self.push(Expr::Iter(iterable));
                let body_block = self.new_block(Some(ctx.block), true);
                let body_ctx = Ctx {
                    block: body_block,
                    ..ctx
                };
                if let Some(left) = node.field(&fields::LEFT) {
                    self.target(left, element, body_ctx);
                }
                if let Some(body) = node.field(&fields::BODY) {
                    self.statements(body, body_ctx);
                }
                if let Some(alternative) = node.field(&fields::ALTERNATIVE) {
                    self.sub_block(alternative.field(&fields::BODY), ctx, false);
                }
            }
            "while_statement" => {
                let body_block = self.new_block(Some(ctx.block), true);
                let body_ctx = Ctx {
                    block: body_block,
                    ..ctx
                };
                if let Some(condition) = node.field(&fields::CONDITION) {
                    self.expr(condition, body_ctx);
                }
                if let Some(body) = node.field(&fields::BODY) {
                    self.statements(body, body_ctx);
                }
                if let Some(alternative) = node.field(&fields::ALTERNATIVE) {
                    self.sub_block(alternative.field(&fields::BODY), ctx, false);
                }
            }
            "try_statement" => {
                self.sub_block(node.field(&fields::BODY), ctx, false);
                let mut cursor = node.walk();
                let clauses: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for clause in clauses {
                    match clause.kind_name() {
                        "except_clause" | "except_group_clause" => self.except(clause, ctx),
                        "else_clause" => {
                            self.sub_block(clause.field(&fields::BODY), ctx, false);
                        }
                        "finally_clause" => {
                            let mut inner = clause.walk();
                            let body = clause
                                .named_children(&mut inner)
                                .find(|child| child.kind_name() == "block");
                            self.sub_block(body, ctx, false);
                        }
                        _ => {}
                    }
                }
            }
            "with_statement" => {
                let block = self.new_block(Some(ctx.block), false);
                let inner = Ctx { block, ..ctx };
                let mut cursor = node.walk();
                let clauses: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "with_clause")
                    .collect();
                for clause in clauses {
                    let mut items_cursor = clause.walk();
                    let items: Vec<Node<'_>> = clause
                        .named_children(&mut items_cursor)
                        .filter(|child| child.kind_name() == "with_item")
                        .collect();
                    for item in items {
                        self.with_item(item, ctx, inner);
                    }
                }
                if let Some(body) = node.field(&fields::BODY) {
                    self.statements(body, inner);
                }
            }
            "match_statement" => {
                if let Some(subject) = node.field(&fields::SUBJECT) {
                    self.expr(subject, ctx);
                }
                let mut cursor = node.walk();
                let bodies: Vec<Node<'_>> =
                    node.children_by_field_name("body", &mut cursor).collect();
                for body in bodies {
                    let mut inner = body.walk();
                    let cases: Vec<Node<'_>> = body
                        .named_children(&mut inner)
                        .filter(|child| child.kind_name() == "case_clause")
                        .collect();
                    for case in cases {
                        if let Some(guard) = case.field(&fields::GUARD) {
                            self.children_exprs(guard, ctx);
                        }
                        self.sub_block(case.field(&fields::CONSEQUENCE), ctx, false);
                    }
                }
            }
            "import_statement" => self.import(node, ctx),
            "import_from_statement" => self.import_from(node, ctx),
            "global_statement" | "nonlocal_statement" => {
                let global = node.kind_name() == "global_statement";
                let mut cursor = node.walk();
                let names: Vec<Box<str>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "identifier")
                    .map(|child| self.text(child).into())
                    .collect();
                let index = ctx.scope as usize;
                for name in names {
                    if global {
                        self.globals[index].insert(name);
                    } else {
                        self.nonlocals[index].insert(name);
                    }
                }
            }
            "raise_statement" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for (index, child) in children.into_iter().enumerate() {
                    let value = self.expr(child, ctx);
                    if index == 0 && child.kind_name() != "call" {
                        self.implicit_site(SiteKind::Raise, value, child, ctx);
                    }
                }
            }
            "future_import_statement"
            | "pass_statement"
            | "break_statement"
            | "continue_statement"
            | "comment"
            | "ERROR"
            | "type_alias_statement" => {}
            "block" => self.statements(node, ctx),
            "assert_statement" => self.assertion(node, ctx),
            _ => self.children_exprs(node, ctx),
        }
    }

    /// Whether an `if`'s condition is `TYPE_CHECKING` (`typing.TYPE_CHECKING`,
    /// `t.TYPE_CHECKING`): its block runs only under a type checker.
    fn is_type_checking(&self, condition: Node<'_>) -> bool {
        matches!(condition.kind_name(), "identifier" | "attribute")
            && compact(self.text(condition))
                .rsplit('.')
                .next()
                .is_some_and(|last| last == "TYPE_CHECKING")
    }

    fn except(&mut self, clause: Node<'_>, ctx: Ctx) {
        let block = self.new_block(Some(ctx.block), false);
        let inner = Ctx { block, ..ctx };
        let mut cursor = clause.walk();
        let children: Vec<Node<'_>> = clause.named_children(&mut cursor).collect();
        let alias = clause.field(&fields::ALIAS);
        let mut caught = None;
        for child in children {
            if child.kind_name() == "block" {
                self.statements(child, inner);
            } else if Some(child) == alias {
                if let Some(caught) = caught {
                    let instance = self.push(Expr::Call {
                        func: caught,
                        args: Box::new([]),
                    });
                    self.target(child, instance, inner);
                }
            } else if child.kind_name() == "as_pattern" {
                // `except E as e` in grammars that wrap it.
                let value = self.opt_expr(child.named_child(0), Expr::Unknown, ctx);
                let instance = self.push(Expr::Call {
                    func: value,
                    args: Box::new([]),
                });
                if let Some(target) = child.field(&fields::ALIAS) {
                    self.alias_target(target, instance, inner);
                }
            } else if child.kind_name() != "comment" {
                caught = Some(self.expr(child, ctx));
            }
        }
    }

    fn with_item(&mut self, item: Node<'_>, outer: Ctx, inner: Ctx) {
        let Some(value) = item.field(&fields::VALUE) else {
            return;
        };
        if value.kind_name() == "as_pattern" {
            let managed = self.opt_expr(value.named_child(0), Expr::Unknown, outer);
            self.implicit_site(SiteKind::Enter, managed, item, outer);
            let entered = self.push(Expr::Enter(managed));
            if let Some(target) = value.field(&fields::ALIAS) {
                self.alias_target(target, entered, inner);
            }
        } else {
            let managed = self.expr(value, outer);
            self.implicit_site(SiteKind::Enter, managed, item, outer);
        }
    }

    /// An `as_pattern_target` (or the pattern itself).
    fn alias_target(&mut self, target: Node<'_>, value: ExprId, ctx: Ctx) {
        if target.kind_name() == "as_pattern_target" {
            if let Some(inner) = target.named_child(0) {
                self.target(inner, value, ctx);
            }
        } else {
            self.target(target, value, ctx);
        }
    }

    fn import(&mut self, node: Node<'_>, ctx: Ctx) {
        let mut cursor = node.walk();
        let names: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            match name.kind_name() {
                "dotted_name" => {
                    let dotted = self.text(name).to_owned();
                    let first = dotted.split('.').next().unwrap_or("").trim().to_owned();
                    let value = self.push(Expr::Module {
                        level: 0,
                        dotted: first.as_str().into(),
                    });
                    self.bind(ctx, &first, value);
                }
                "aliased_import" => {
                    let (Some(dotted), Some(alias)) =
                        (name.field(&fields::NAME), name.field(&fields::ALIAS))
                    else {
                        continue;
                    };
                    let dotted = compact(self.text(dotted));
                    let value = self.push(Expr::Module {
                        level: 0,
                        dotted: dotted.into(),
                    });
                    let alias = self.text(alias);
                    self.bind(ctx, alias, value);
                }
                _ => {}
            }
        }
    }

    fn import_from(&mut self, node: Node<'_>, ctx: Ctx) {
        let Some(module) = node.field(&fields::MODULE_NAME) else {
            return;
        };
        let (level, dotted) = if module.kind_name() == "relative_import" {
            let mut cursor = module.walk();
            let mut level = 0;
            let mut dotted = String::new();
            for child in module.named_children(&mut cursor) {
                match child.kind_name() {
                    "import_prefix" => {
                        level = u32::try_from(self.text(child).matches('.').count()).unwrap_or(0);
                    }
                    "dotted_name" => dotted = compact(self.text(child)),
                    _ => {}
                }
            }
            (level, dotted)
        } else {
            (0, compact(self.text(module)))
        };
        let mut cursor = node.walk();
        let wildcard = node
            .named_children(&mut cursor)
            .any(|child| child.kind_name() == "wildcard_import");
        if wildcard {
            if ctx.scope == MODULE_SCOPE {
                self.model.stars.push((level, dotted.into()));
            }
            return;
        }
        let mut cursor = node.walk();
        let names: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            let (imported, alias) = match name.kind_name() {
                "dotted_name" => (compact(self.text(name)), None),
                "aliased_import" => {
                    let Some(imported) = name.field(&fields::NAME) else {
                        continue;
                    };
                    (
                        compact(self.text(imported)),
                        name.field(&fields::ALIAS)
                            .map(|alias| self.text(alias).to_owned()),
                    )
                }
                _ => continue,
            };
            let value = self.push(Expr::ImportFrom {
                level,
                module: dotted.as_str().into(),
                name: imported.as_str().into(),
            });
            let bound = alias.unwrap_or(imported);
            self.bind(ctx, &bound, value);
        }
    }
}
