//! ES and TS module syntax as the walk reads it: `import` (default, named, namespace,
//! `import x = require()`, `import A = N.B`) and `export` (declarations, `export default`,
//! `export =`, lists, re-exports and `export *`), and the names a declaration binds.
//!
//! Owns: the bindings imports make and the exports a file (or a namespace) lists.
//! Does not own: CommonJS `require` (`calls`) and `module.exports` (`statements`), or
//! where a specifier points (`modules`).

use super::model::{Imported, Value};
use super::{Expr, Frame, Init, Walk, frame_of, has_token, is_function, unquote};
use crate::extract::fields::{ChildByField as _, typescript as fields};
use crate::extract::kinds::KindName as _;
use crate::extract::unwrap_expression;
use tree_sitter::Node;

impl<'s> Walk<'s> {
    pub(super) fn import(&mut self, node: Node<'_>, ctx: usize) {
        self.es_module = true;
        let scope = self.ctxs[ctx].scope;
        let statement_source = node
            .field(&fields::SOURCE)
            .map(|source| unquote(self.text(source)).to_owned());
        if let Some(spec) = &statement_source {
            self.specs.push(spec.clone());
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind_name() {
                "import_clause" => {
                    let Some(spec) = statement_source.clone() else {
                        continue;
                    };
                    let mut inner = child.walk();
                    let parts: Vec<Node<'_>> = child.named_children(&mut inner).collect();
                    for part in parts {
                        self.import_part(scope, &spec, part);
                    }
                }
                "import_require_clause" => {
                    let spec = child
                        .field(&fields::SOURCE)
                        .map(|source| unquote(self.text(source)).to_owned());
                    let name = child
                        .named_child(0)
                        .filter(|name| name.kind_name() == "identifier");
                    if let (Some(spec), Some(name)) = (spec, name) {
                        self.specs.push(spec.clone());
                        let name = self.text(name).to_owned();
                        self.bind(scope, &name, Init::Import(spec, Imported::Require));
                    }
                }
                _ => {}
            }
        }
    }

    fn import_part(&mut self, scope: usize, spec: &str, part: Node<'_>) {
        match part.kind_name() {
            "identifier" => {
                let name = self.text(part).to_owned();
                let init = Init::Import(spec.to_owned(), Imported::Named("default".to_owned()));
                self.bind(scope, &name, init);
            }
            "namespace_import" => {
                if let Some(name) = part.named_child(0) {
                    let name = self.text(name).to_owned();
                    self.bind(
                        scope,
                        &name,
                        Init::Import(spec.to_owned(), Imported::Namespace),
                    );
                }
            }
            "named_imports" => {
                let mut cursor = part.walk();
                let specifiers: Vec<Node<'_>> = part.named_children(&mut cursor).collect();
                for specifier in specifiers {
                    let Some(name) = specifier.field(&fields::NAME) else {
                        continue;
                    };
                    let imported = unquote(self.text(name)).to_owned();
                    let local = specifier
                        .field(&fields::ALIAS)
                        .map_or_else(|| imported.clone(), |alias| self.text(alias).to_owned());
                    let init = Init::Import(spec.to_owned(), Imported::Named(imported));
                    self.bind(scope, &local, init);
                }
            }
            _ => {}
        }
    }

    /// `import A = N.B;` (a TS namespace alias).
    pub(super) fn import_alias(&mut self, node: Node<'_>, ctx: usize) {
        let mut cursor = node.walk();
        let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        if let [name, target, ..] = parts.as_slice() {
            let name = self.text(*name).to_owned();
            let value = self.dotted(*target);
            let scope = self.ctxs[ctx].scope;
            self.bind(scope, &name, Init::Expr(scope, value));
        }
    }

    /// `a.b.c` written as an identifier or `nested_identifier`.
    pub(super) fn dotted(&self, node: Node<'_>) -> Expr {
        let mut parts = self.text(node).split('.').map(str::trim);
        let Some(first) = parts.next() else {
            return Expr::unknown();
        };
        parts.fold(Expr::Name(first.to_owned()), |base, part| {
            Expr::Member(Box::new(base), part.to_owned())
        })
    }

    pub(super) fn export<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        self.es_module = true;
        let is_default = has_token(node, "default");
        let source = node
            .field(&fields::SOURCE)
            .map(|source| unquote(self.text(source)).to_owned());
        if let Some(spec) = &source {
            self.specs.push(spec.clone());
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        let expr = self.expr_ctx(ctx);
        for decorator in children
            .iter()
            .filter(|child| child.kind_name() == "decorator")
        {
            out.push(frame_of(*decorator, expr));
        }
        if let Some(declaration) = node.field(&fields::DECLARATION) {
            for name in self.declared_names(declaration) {
                let exported = if is_default { "default" } else { &name };
                self.export_name(ctx, exported, Expr::Name(name.clone()));
            }
            out.push(frame_of(declaration, ctx));
            return;
        }
        if let Some(value) = node.field(&fields::VALUE) {
            let value = unwrap_expression(value);
            if is_function(value.kind_name()) {
                let unit = self.unit_in(ctx, "default", false);
                let bound = match &unit {
                    Some(qualified) => Value::Func(qualified.clone()),
                    None => Value::Owned(self.ctxs[ctx].caller.clone()),
                };
                self.export_name(ctx, "default", Expr::Value(bound));
                self.function(value, ctx, unit, None, out);
            } else if value.kind_name() == "class" {
                let unit = self.unit_in(ctx, "default", false);
                let bound = unit.clone().map_or(Value::Unknown, Value::Class);
                self.export_name(ctx, "default", Expr::Value(bound));
                self.class(value, ctx, unit, out);
            } else {
                let written = self.expr(value, ctx, 0);
                self.export_name(ctx, "default", written);
                let expr = self.expr_ctx(ctx);
                out.push(frame_of(value, expr));
            }
            return;
        }
        if has_token(node, "=") {
            // `export = value` (TS CommonJS).
            if let Some(value) = children
                .iter()
                .find(|child| !matches!(child.kind_name(), "comment" | "decorator"))
            {
                let written = self.expr(*value, ctx, 0);
                self.whole.push((self.ctxs[ctx].scope, written));
                let expr = self.expr_ctx(ctx);
                out.push(frame_of(*value, expr));
            }
            return;
        }
        let mut listed = false;
        for child in children {
            match child.kind_name() {
                "export_clause" => {
                    listed = true;
                    let mut inner = child.walk();
                    let specifiers: Vec<Node<'t>> = child.named_children(&mut inner).collect();
                    for specifier in specifiers {
                        let Some(name) = specifier.field(&fields::NAME) else {
                            continue;
                        };
                        let name = unquote(self.text(name)).to_owned();
                        let exported = specifier.field(&fields::ALIAS).map_or_else(
                            || name.clone(),
                            |alias| unquote(self.text(alias)).to_owned(),
                        );
                        let value = match &source {
                            Some(spec) => Expr::Value(Value::Import {
                                spec: spec.clone(),
                                what: Imported::Named(name),
                                path: Vec::new(),
                            }),
                            None => Expr::Name(name),
                        };
                        self.export_name(ctx, &exported, value);
                    }
                }
                "namespace_export" => {
                    listed = true;
                    if let (Some(spec), Some(name)) = (&source, child.named_child(0)) {
                        let exported = unquote(self.text(name)).to_owned();
                        let value = Expr::Value(Value::Import {
                            spec: spec.clone(),
                            what: Imported::Namespace,
                            path: Vec::new(),
                        });
                        self.export_name(ctx, &exported, value);
                    }
                }
                _ => {}
            }
        }
        if !listed && let Some(spec) = source {
            self.stars.push(spec);
        }
    }

    fn export_name(&mut self, ctx: usize, name: &str, value: Expr) {
        match self.ctxs[ctx].namespace {
            Some(namespace) => self.namespaces[namespace]
                .exports
                .push((name.to_owned(), value)),
            None => self.exports.push((name.to_owned(), value)),
        }
    }

    /// The names a declaration binds (`export <declaration>`): values, and interfaces.
    pub(super) fn declared_names(&self, declaration: Node<'_>) -> Vec<String> {
        match declaration.kind_name() {
            "lexical_declaration" | "variable_declaration" => {
                let mut names = Vec::new();
                let mut cursor = declaration.walk();
                for declarator in declaration.named_children(&mut cursor) {
                    if let Some(name) = declarator.field(&fields::NAME) {
                        self.pattern_names(name, &mut names);
                    }
                }
                names
            }
            "ambient_declaration" => {
                let mut cursor = declaration.walk();
                declaration
                    .named_children(&mut cursor)
                    .flat_map(|inner| self.declared_names(inner))
                    .collect()
            }
            // An interface is exported as a type: what a value typed by it in another
            // file is an instance of (`Value::Interface`).
            _ => declaration
                .field(&fields::NAME)
                .filter(|name| name.kind_name() != "string")
                .map(|name| self.text(name).to_owned())
                .into_iter()
                .collect(),
        }
    }

    fn pattern_names(&self, pattern: Node<'_>, names: &mut Vec<String>) {
        let mut pending = vec![pattern];
        while let Some(node) = pending.pop() {
            match node.kind_name() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    names.push(self.text(node).to_owned());
                }
                "pair_pattern" => pending.extend(node.field(&fields::VALUE)),
                "object_assignment_pattern" | "assignment_pattern" => {
                    pending.extend(node.field(&fields::LEFT));
                }
                _ => {
                    let mut cursor = node.walk();
                    pending.extend(node.named_children(&mut cursor));
                }
            }
        }
    }
}
