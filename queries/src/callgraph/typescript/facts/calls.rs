//! Call sites as the walk records them: a call, a `new`, a `super()` — the callee as an
//! expression, its text and line.
//!
//! Owns: which calls are sites (a dynamic `import()` is none), where a `require` names a
//! module, and a site's line and text.
//! Does not own: what the callee's expression is (`expressions`) or what it resolves to
//! (`lookup`, then `resolve`).

use super::{Expr, Frame, RawSite, Walk, require_spec};
use crate::extract::fields::{ChildByField as _, typescript as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl<'s> Walk<'s> {
    pub(super) fn call<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        if let Some(function) = node.field(&fields::FUNCTION) {
            match function.kind_name() {
                // A dynamic `import()` loads a module; it calls no code of it.
                "import" => {}
                "super" => {
                    let this = self.ctxs[ctx].this.clone();
                    self.site(ctx, node, function, true, Expr::Super { this, call: true });
                }
                _ => {
                    if function.kind_name() == "identifier" && self.text(function) == "require" {
                        self.commonjs = true;
                        if let Some(spec) = require_spec(node, self.source) {
                            self.specs.push(spec.to_owned());
                        }
                    }
                    let callee = self.expr(function, ctx, 0);
                    self.site(ctx, node, function, false, callee);
                }
            }
        }
        self.expressions(node, ctx, out);
    }

    pub(super) fn new_expression<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        out: &mut Vec<Frame<'t>>,
    ) {
        if let Some(constructor) = node.field(&fields::CONSTRUCTOR) {
            let callee = self.expr(constructor, ctx, 0);
            self.site(ctx, node, constructor, true, callee);
        }
        self.expressions(node, ctx, out);
    }

    fn site(&mut self, ctx: usize, call: Node<'_>, callee: Node<'_>, new: bool, value: Expr) {
        let mut text = collapse(self.text(callee));
        if new && callee.kind_name() != "super" {
            text.insert_str(0, "new ");
        }
        let context = &self.ctxs[ctx];
        self.sites.push(RawSite {
            scope: context.scope,
            caller: context.caller.clone(),
            line: name_line(callee).unwrap_or_else(|| line_of(call)),
            text,
            new,
            callee: value,
        });
    }
}

/// Longest callee text kept (longer is cut, with `…`).
const MAX_TEXT: usize = 160;

/// The line of the name a callee ends with (`b` of `a.b`, the index of `a["b"]`).
fn name_line(callee: Node<'_>) -> Option<u32> {
    match callee.kind_name() {
        "member_expression" => callee.field(&fields::PROPERTY).map(line_of),
        "subscript_expression" => callee.field(&fields::INDEX).map(line_of),
        "parenthesized_expression" | "non_null_expression" => {
            callee.named_child(0).and_then(name_line)
        }
        _ => Some(line_of(callee)),
    }
}

fn line_of(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row.saturating_add(1)).unwrap_or(u32::MAX)
}

/// Whitespace runs as one space, cut at [`MAX_TEXT`] characters.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_TEXT));
    for (index, word) in text.split_whitespace().enumerate() {
        if index > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX_TEXT {
            let cut: String = out.chars().take(MAX_TEXT).collect();
            return cut + "…";
        }
    }
    out
}
