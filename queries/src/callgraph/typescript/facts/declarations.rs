//! Declarations as the walk reads them: functions (their parameters, return values and
//! bodies), classes (heritage, members, parameter properties), variable declarators,
//! namespaces and ambient `declare`s, each named as the extractor names its unit.
//!
//! Owns: which declarations are units, what each binds, and the members and return values
//! recorded for them.
//! Does not own: the statements around them (`statements`) or the names `export` gives
//! them (`imports_exports`).

use super::model::Value;
use super::{
    Ctx, Expr, Frame, Init, Kind, Naming, RawClass, RawInterface, RawMember, RawNamespace, This,
    Walk, frame_of, has_token, is_function,
};
use crate::extract::fields::{ChildByField as _, typescript as fields};
use crate::extract::kinds::KindName as _;
use crate::extract::{qualify, unwrap_expression};
use tree_sitter::Node;

impl<'s> Walk<'s> {
    fn type_parameters(&mut self, node: Node<'_>, scope: usize) {
        let Some(parameters) = node.field(&fields::TYPE_PARAMETERS) else {
            return;
        };
        let mut cursor = parameters.walk();
        let names: Vec<String> = parameters
            .named_children(&mut cursor)
            .filter_map(|parameter| parameter.field(&fields::NAME))
            .map(|name| self.text(name).to_owned())
            .collect();
        for name in names {
            self.bind(scope, &name, Init::TypeOnly);
        }
    }

    pub(super) fn function_declaration<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        out: &mut Vec<Frame<'t>>,
    ) {
        let Some(name) = node.field(&fields::NAME) else {
            return;
        };
        let name = self.text(name).to_owned();
        let unit = self.unit_in(ctx, &name, false);
        let value = match &unit {
            Some(qualified) => Value::Func(qualified.clone()),
            None => Value::Owned(self.ctxs[ctx].caller.clone()),
        };
        self.bind(self.ctxs[ctx].scope, &name, Init::Value(value));
        self.function(node, ctx, unit, None, out);
    }

    /// A function's parameters and body. `unit`: its qualified name when it is a unit;
    /// `this`: what `this` is inside (default: the outer `this` for an arrow, unknown
    /// otherwise). Returns nothing; parameter properties are read by [`Self::class`].
    pub(super) fn function<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        unit: Option<String>,
        this: Option<This>,
        out: &mut Vec<Frame<'t>>,
    ) -> Vec<(String, Expr)> {
        let outer = &self.ctxs[ctx];
        let this = this.unwrap_or_else(|| {
            if node.kind_name() == "arrow_function" {
                outer.this.clone()
            } else {
                This::Unknown
            }
        });
        let caller = unit.clone().unwrap_or_else(|| outer.caller.clone());
        let outer_scope = outer.scope;
        let scope = self.push_scope(Some(outer_scope), true);
        if matches!(
            node.kind_name(),
            "function_expression" | "generator_function"
        ) && let Some(name) = node.field(&fields::NAME)
        {
            let name = self.text(name).to_owned();
            let value = match &unit {
                Some(qualified) => Value::Func(qualified.clone()),
                None => Value::Owned(caller.clone()),
            };
            self.bind(scope, &name, Init::Value(value));
        }
        self.type_parameters(node, scope);
        if let Some(qualified) = &unit {
            // What calling the unit returns, when it says: its return type, a promise
            // (`async`) or an iterator (a generator).
            let declared = node
                .field(&fields::RETURN_TYPE)
                .and_then(|annotation| annotation.named_child(0))
                .map(|ty| match ty.kind_name() {
                    "this_type" => Expr::This(this.clone()),
                    _ => self.type_expr(ty),
                });
            let promised = has_token(node, "async")
                || has_token(node, "*")
                || node.kind_name().starts_with("generator");
            match declared {
                Some(declared) => self
                    .returned
                    .push((qualified.clone(), scope, declared, true)),
                None if promised => {
                    self.returned
                        .push((qualified.clone(), scope, Expr::external(), true));
                }
                None => {}
            }
        }
        let inner = self.push_ctx(Ctx {
            scope,
            caller,
            naming: unit.clone().map(|prefix| Naming {
                prefix,
                kind: Kind::Function,
            }),
            this,
            namespace: None,
            expr: None,
            returns: unit.clone(),
        });
        let properties = self.parameters(node, inner, out);
        if let Some(body) = node.field(&fields::BODY) {
            if body.kind_name() == "statement_block" {
                out.push(Frame {
                    node: body,
                    ctx: inner,
                    own_scope: true,
                });
            } else {
                if let Some(qualified) = unit {
                    let value = self.expr(body, inner, 0);
                    self.returned.push((qualified, scope, value, false));
                }
                let expr = self.expr_ctx(inner);
                out.push(frame_of(body, expr));
            }
        }
        properties
    }

    /// Binds a function's parameters (a typed one to an instance of its type) and queues
    /// their defaults and decorators; returns the parameter properties
    /// (`constructor(private s: S)`).
    fn parameters<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        out: &mut Vec<Frame<'t>>,
    ) -> Vec<(String, Expr)> {
        let scope = self.ctxs[ctx].scope;
        let mut properties = Vec::new();
        if let Some(parameter) = node.field(&fields::PARAMETER) {
            self.bind_pattern(scope, parameter, None);
        }
        let Some(parameters) = node.field(&fields::PARAMETERS) else {
            return properties;
        };
        let expr = self.expr_ctx(ctx);
        let mut cursor = parameters.walk();
        let list: Vec<Node<'t>> = parameters.named_children(&mut cursor).collect();
        for parameter in list {
            if !matches!(
                parameter.kind_name(),
                "required_parameter" | "optional_parameter"
            ) {
                continue;
            }
            let ty = parameter.field(&fields::TYPE).map(|ty| self.type_expr(ty));
            let default = parameter.field(&fields::VALUE);
            if let Some(default) = default {
                out.push(frame_of(default, expr));
            }
            let mut inner = parameter.walk();
            for child in parameter.named_children(&mut inner) {
                if child.kind_name() == "decorator" {
                    out.push(frame_of(child, expr));
                }
            }
            let Some(pattern) = parameter.field(&fields::PATTERN) else {
                continue;
            };
            if pattern.kind_name() != "identifier" {
                let base = default.map(|default| self.expr(default, ctx, 0));
                self.bind_pattern(scope, pattern, base.as_ref());
                continue;
            }
            let name = self.text(pattern).to_owned();
            let value = match (ty, default) {
                (Some(ty), _) => ty,
                (None, Some(default)) => self.expr(default, ctx, 0),
                (None, None) => Expr::unknown(),
            };
            if is_parameter_property(parameter) {
                properties.push((name.clone(), value.clone()));
            }
            self.bind(scope, &name, Init::Expr(scope, value));
        }
        properties
    }

    pub(super) fn class_declaration<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        out: &mut Vec<Frame<'t>>,
    ) {
        let Some(name) = node.field(&fields::NAME) else {
            return;
        };
        let name = self.text(name).to_owned();
        let unit = self.unit_in(ctx, &name, false);
        let value = unit.clone().map_or(Value::Unknown, Value::Class);
        self.bind(self.ctxs[ctx].scope, &name, Init::Value(value));
        self.class(node, ctx, unit, out);
    }

    /// An interface: a type named as a unit of its place would be (`NS.I`), with the
    /// types it extends. Where no unit is named (a module-level block), a type alone.
    pub(super) fn interface_declaration(&mut self, node: Node<'_>, ctx: usize) {
        let Some(name) = node.field(&fields::NAME) else {
            return;
        };
        let name = self.text(name).to_owned();
        let scope = self.ctxs[ctx].scope;
        let Some(qualified) = self.unit_in(ctx, &name, false) else {
            self.bind(scope, &name, Init::TypeOnly);
            return;
        };
        let mut extends = Vec::new();
        let mut cursor = node.walk();
        let clauses: Vec<Node<'_>> = node
            .named_children(&mut cursor)
            .filter(|child| child.kind_name() == "extends_type_clause")
            .collect();
        for clause in clauses {
            let mut inner = clause.walk();
            let types: Vec<Node<'_>> = clause.named_children(&mut inner).collect();
            extends.extend(types.into_iter().filter_map(|ty| self.heritage_type(ty)));
        }
        self.bind(scope, &name, Init::Interface(qualified.clone()));
        self.interfaces.push(RawInterface {
            name: qualified,
            scope,
            extends,
        });
    }

    /// A type of an `implements` or interface `extends` clause as the type it names
    /// (not an instance of it); `None` for one that names no declaration.
    fn heritage_type(&self, node: Node<'_>) -> Option<Expr> {
        match self.type_expr(node) {
            Expr::Type(named) => Some(*named),
            _ => None,
        }
    }

    /// A class: its heritage and decorators (read outside it), its members (units when
    /// the class is one: `unit` is its qualified name).
    pub(super) fn class<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        unit: Option<String>,
        out: &mut Vec<Frame<'t>>,
    ) {
        let outer_expr = self.expr_ctx(ctx);
        let outer_scope = self.ctxs[ctx].scope;
        let class_scope = self.push_scope(Some(outer_scope), false);
        if node.kind_name() == "class"
            && let Some(name) = node.field(&fields::NAME)
        {
            let name = self.text(name).to_owned();
            let value = unit.clone().map_or(Value::Unknown, Value::Class);
            self.bind(class_scope, &name, Init::Value(value));
        }
        self.type_parameters(node, class_scope);
        let mut extends = None;
        let mut implements = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        for child in &children {
            match child.kind_name() {
                "decorator" => out.push(frame_of(*child, outer_expr)),
                "class_heritage" => {
                    let mut inner = child.walk();
                    let clauses: Vec<Node<'t>> = child.named_children(&mut inner).collect();
                    for clause in clauses {
                        if clause.kind_name() == "implements_clause" {
                            let mut types = clause.walk();
                            let types: Vec<Node<'t>> = clause.named_children(&mut types).collect();
                            implements
                                .extend(types.into_iter().filter_map(|ty| self.heritage_type(ty)));
                        }
                        if clause.kind_name() != "extends_clause" {
                            continue;
                        }
                        if let Some(value) = clause.field(&fields::VALUE) {
                            extends = Some(self.expr(value, outer_expr, 0));
                            out.push(frame_of(value, outer_expr));
                        }
                    }
                }
                _ => {}
            }
        }
        let index = unit.as_ref().map(|name| {
            self.classes.push(RawClass {
                name: name.clone(),
                scope: outer_scope,
                extends,
                implements,
                members: Vec::new(),
            });
            self.classes.len() - 1
        });
        let Some(body) = node.field(&fields::BODY) else {
            return;
        };
        let caller = unit
            .clone()
            .unwrap_or_else(|| self.ctxs[ctx].caller.clone());
        let (instance, statik) = match &unit {
            Some(name) => (This::Instance(name.clone()), This::Static(name.clone())),
            None => (This::Unknown, This::Unknown),
        };
        let member_ctx = |walk: &mut Self, this: This| {
            walk.push_ctx(Ctx {
                scope: class_scope,
                caller: caller.clone(),
                naming: None,
                this,
                namespace: None,
                expr: None,
                returns: None,
            })
        };
        let instance_ctx = member_ctx(self, instance.clone());
        let static_ctx = member_ctx(self, statik.clone());
        let mut cursor = body.walk();
        let members: Vec<Node<'t>> = body.named_children(&mut cursor).collect();
        for member in members {
            let is_static = has_token(member, "static");
            let (member_ctx, this) = if is_static {
                (static_ctx, statik.clone())
            } else {
                (instance_ctx, instance.clone())
            };
            let name = member
                .field(&fields::NAME)
                .and_then(|name| self.member_name(name));
            let member_unit = match (&unit, &name) {
                (Some(class), Some(name)) => Some(qualify(class, name)),
                _ => None,
            };
            match member.kind_name() {
                "method_definition" => {
                    if let (Some(index), Some(name), Some(qualified)) = (index, &name, &member_unit)
                    {
                        self.add_member(index, name, is_static, Value::Func(qualified.clone()));
                    }
                    let properties =
                        self.function(member, member_ctx, member_unit, Some(this), out);
                    if let (Some(index), Some("constructor")) = (index, name.as_deref()) {
                        for (property, value) in properties {
                            self.classes[index].members.push(RawMember {
                                name: property,
                                is_static: false,
                                scope: class_scope,
                                value,
                            });
                        }
                    }
                }
                "method_signature" | "abstract_method_signature" => {
                    if let (Some(index), Some(name), Some(qualified)) = (index, &name, &member_unit)
                    {
                        self.add_member(index, name, is_static, Value::Func(qualified.clone()));
                    }
                }
                "public_field_definition" => {
                    let value = member.field(&fields::VALUE).map(unwrap_expression);
                    if let Some(function) = value.filter(|value| is_function(value.kind_name())) {
                        if let (Some(index), Some(name), Some(qualified)) =
                            (index, &name, &member_unit)
                        {
                            self.add_member(index, name, is_static, Value::Func(qualified.clone()));
                        }
                        self.function(function, member_ctx, member_unit, None, out);
                    } else {
                        let ty = member.field(&fields::TYPE).map(|ty| self.type_expr(ty));
                        let written = value.map(|value| self.expr(value, member_ctx, 0));
                        let field = match (written, ty) {
                            (Some(value), Some(ty)) => Expr::Or(Box::new(ty), Box::new(value)),
                            (Some(value), None) => value,
                            (None, Some(ty)) => ty,
                            (None, None) => Expr::unknown(),
                        };
                        if let (Some(index), Some(name)) = (index, name) {
                            self.classes[index].members.push(RawMember {
                                name,
                                is_static,
                                scope: class_scope,
                                value: field,
                            });
                        }
                        if let Some(value) = value {
                            out.push(frame_of(value, member_ctx));
                        }
                    }
                    let mut inner = member.walk();
                    for child in member.named_children(&mut inner) {
                        if child.kind_name() == "decorator" {
                            out.push(frame_of(child, instance_ctx));
                        }
                    }
                }
                "class_static_block" => {
                    if let Some(block) = member.field(&fields::BODY) {
                        out.push(frame_of(block, static_ctx));
                    }
                }
                "decorator" => out.push(frame_of(member, instance_ctx)),
                _ => {}
            }
        }
    }

    fn add_member(&mut self, index: usize, name: &str, is_static: bool, value: Value) {
        let class = &mut self.classes[index];
        let known = class
            .members
            .iter()
            .any(|member| member.name == name && member.is_static == is_static);
        if !known {
            class.members.push(RawMember {
                name: name.to_owned(),
                is_static,
                scope: 0,
                value: Expr::Value(value),
            });
        }
    }

    pub(super) fn declarators<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let is_var = node.kind_name() == "variable_declaration";
        let scope = self.ctxs[ctx].scope;
        let bind_scope = if is_var {
            self.hoist_scope(scope)
        } else {
            scope
        };
        let expr_ctx = self.expr_ctx(ctx);
        let mut cursor = node.walk();
        let declarators: Vec<Node<'t>> = node
            .named_children(&mut cursor)
            .filter(|child| child.kind_name() == "variable_declarator")
            .collect();
        for declarator in declarators {
            let Some(name_node) = declarator.field(&fields::NAME) else {
                continue;
            };
            let value = declarator.field(&fields::VALUE).map(unwrap_expression);
            if name_node.kind_name() != "identifier" {
                let base = value.map(|value| self.expr(value, ctx, 0));
                self.bind_pattern(bind_scope, name_node, base.as_ref());
                if let Some(value) = value {
                    out.push(frame_of(value, expr_ctx));
                }
                continue;
            }
            let name = self.text(name_node).to_owned();
            match value {
                Some(function) if is_function(function.kind_name()) => {
                    let unit = self.unit_in(ctx, &name, is_var);
                    let bound = match &unit {
                        Some(qualified) => Value::Func(qualified.clone()),
                        None => Value::Owned(self.ctxs[ctx].caller.clone()),
                    };
                    self.bind(bind_scope, &name, Init::Value(bound));
                    self.function(function, ctx, unit, None, out);
                }
                Some(class) if class.kind_name() == "class" => {
                    let unit = self.unit_in(ctx, &name, is_var);
                    let bound = unit.clone().map_or(Value::Unknown, Value::Class);
                    self.bind(bind_scope, &name, Init::Value(bound));
                    self.class(class, ctx, unit, out);
                }
                _ => {
                    let ty = declarator.field(&fields::TYPE).map(|ty| self.type_expr(ty));
                    let written = value.map(|value| self.expr(value, ctx, 0));
                    let init = match (written, ty) {
                        (Some(value), Some(ty)) => {
                            Init::Expr(scope, Expr::Or(Box::new(ty), Box::new(value)))
                        }
                        (Some(value), None) => Init::Expr(scope, value),
                        (None, Some(ty)) => Init::Expr(scope, ty),
                        (None, None) => Init::Declared,
                    };
                    self.bind(bind_scope, &name, init);
                    if let Some(value) = value {
                        out.push(frame_of(value, expr_ctx));
                    }
                }
            }
        }
    }

    /// `namespace A.B { … }`: not a unit, but qualifies what it holds; its exports are
    /// the members of the namespace object bound to `A`.
    pub(super) fn namespace<'t>(&mut self, node: Node<'t>, ctx: usize, out: &mut Vec<Frame<'t>>) {
        let Some(name) = node.field(&fields::NAME) else {
            return;
        };
        if name.kind_name() == "string" {
            return;
        }
        let text: String = self
            .text(name)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let parts: Vec<&str> = text.split('.').collect();
        let outer_scope = self.ctxs[ctx].scope;
        let naming = self.ctxs[ctx]
            .naming
            .as_ref()
            .filter(|naming| naming.kind == Kind::Module)
            .map(|naming| Naming {
                prefix: qualify(&naming.prefix, &text),
                kind: Kind::Module,
            });
        // One namespace object per segment: `A` holds `B`, whose body this is.
        let mut scope = outer_scope;
        let mut parent: Option<usize> = None;
        let mut innermost = 0;
        for part in &parts {
            let body_scope = self.push_scope(Some(scope), true);
            self.namespaces.push(RawNamespace {
                scope: body_scope,
                exports: Vec::new(),
            });
            let index = self.namespaces.len() - 1;
            match parent {
                None => self.bind(outer_scope, part, Init::Namespace(vec![index])),
                Some(parent) => {
                    self.namespaces[parent]
                        .exports
                        .push(((*part).to_owned(), Expr::Namespace(index)));
                    self.bind(scope, part, Init::Namespace(vec![index]));
                }
            }
            parent = Some(index);
            scope = body_scope;
            innermost = index;
        }
        let inner = self.push_ctx(Ctx {
            scope,
            caller: self.ctxs[ctx].caller.clone(),
            naming,
            this: This::Unknown,
            namespace: Some(innermost),
            expr: None,
            returns: None,
        });
        if let Some(body) = node.field(&fields::BODY) {
            out.push(Frame {
                node: body,
                ctx: inner,
                own_scope: true,
            });
        }
    }

    /// `declare …`: names implemented outside the repository.
    pub(super) fn ambient(&mut self, node: Node<'_>, ctx: usize) {
        let scope = self.ctxs[ctx].scope;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children {
            for name in self.declared_names(child) {
                self.bind(scope, &name, Init::Value(Value::External));
            }
        }
    }
}

/// `constructor(private x: X)`, `constructor(readonly x: X)`: a parameter property.
fn is_parameter_property(parameter: Node<'_>) -> bool {
    let mut cursor = parameter.walk();
    parameter.children(&mut cursor).any(|child| {
        child.kind_name() == "accessibility_modifier"
            || (!child.is_named() && child.kind_name() == "readonly")
    })
}
