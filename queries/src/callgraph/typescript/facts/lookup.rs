//! After the walk: every name the file's code wrote looked up in its scope, and the
//! file's [`Facts`] assembled — its sites sorted, its exports merged, its classes' members,
//! its units' return values, and the questions it asks other files.
//!
//! Owns: the value of a binding (its one value, or unknown when reassigned or declared
//! twice), of an expression and of a type, and how a value folds a member, a call or a
//! `new` where this file knows the answer.
//! Does not own: the walk that recorded them (`facts`) or what other files answer
//! (`resolve`).

use super::model::{
    ClassFacts, ExportTable, Facts, Imported, InterfaceFacts, MemberFacts, SPREAD, Site, Value,
    is_function_method, is_object_method,
};
use super::{Expr, Init, MAX_DEPTH, This, Walk};

impl<'s> Walk<'s> {
    pub(super) fn finish(mut self) -> Facts {
        self.memo = vec![None; self.bindings.len()];
        self.busy = vec![false; self.bindings.len()];
        for (scope, name, value) in std::mem::take(&mut self.assigned) {
            if let Some(id) = self.lookup(scope, &name) {
                self.bindings[id].assigned.push((scope, value));
            }
        }
        let raw_sites = std::mem::take(&mut self.sites);
        let mut sites: Vec<Site> = raw_sites
            .into_iter()
            .map(|site| Site {
                callee: self.value(site.scope, &site.callee, 0),
                caller: site.caller,
                line: site.line,
                text: site.text,
                new: site.new,
            })
            .collect();
        sites.sort_by(|a, b| (a.line, &a.caller, &a.text).cmp(&(b.line, &b.caller, &b.text)));
        let classes = self.class_facts();
        let interfaces = self.interface_facts();
        let mut exports = ExportTable {
            script: !self.es_module && !self.commonjs,
            commonjs: self.commonjs,
            classes,
            ..ExportTable::default()
        };
        let raw_exports = std::mem::take(&mut self.exports);
        let mut named: Vec<(String, Value)> = raw_exports
            .into_iter()
            .map(|(name, expr)| (name, self.value(0, &expr, 0)))
            .collect();
        for (name, scope, expr) in std::mem::take(&mut self.cjs_named) {
            let value = self.value(scope, &expr, 0);
            named.push((name, value));
        }
        exports.named = merge_named(named);
        let wholes: Vec<Value> = std::mem::take(&mut self.whole)
            .into_iter()
            .map(|(scope, expr)| self.value(scope, &expr, 0))
            .collect();
        exports.whole = match wholes.as_slice() {
            [] => None,
            [only] => Some(only.clone()),
            [first, rest @ ..] if rest.iter().all(|value| value == first) => Some(first.clone()),
            _ => Some(Value::Unknown),
        };
        exports.stars = std::mem::take(&mut self.stars);
        if exports.script {
            let mut names: Vec<(String, usize)> = self.scopes[0]
                .names
                .iter()
                .map(|(name, &id)| (name.clone(), id))
                .collect();
            names.sort();
            exports.globals = names
                .into_iter()
                .map(|(name, id)| (name, self.binding_value(id, 0)))
                .filter(|(_, value)| !matches!(value, Value::Unknown | Value::External))
                .collect();
        }
        exports.returns = self.returns();
        let mut specs = std::mem::take(&mut self.specs);
        specs.sort();
        specs.dedup();
        exports.specs = specs;
        let mut questions = Vec::new();
        for site in &sites {
            collect_questions(&site.callee, &mut questions);
        }
        for class in &exports.classes {
            if let Some(base) = &class.extends {
                collect_questions(base, &mut questions);
            }
            for implemented in &class.implements {
                collect_questions(implemented, &mut questions);
            }
            for member in &class.members {
                collect_questions(&member.value, &mut questions);
            }
        }
        for interface in &interfaces {
            for extended in &interface.extends {
                collect_questions(extended, &mut questions);
            }
        }
        questions.sort();
        questions.dedup();
        Facts {
            sites,
            exports,
            interfaces,
            questions,
            partial: false,
        }
    }

    /// Each unit's return value: the declared one, else the one all its `return`s give.
    fn returns(&mut self) -> Vec<(String, Value)> {
        let mut raw = std::mem::take(&mut self.returned);
        // Declared first, then in order; the sort is stable.
        raw.sort_by(|a, b| (&a.0, !a.3).cmp(&(&b.0, !b.3)));
        let mut out: Vec<(String, Value)> = Vec::new();
        let mut index = 0;
        while index < raw.len() {
            let unit = raw[index].0.clone();
            let end = raw[index..]
                .iter()
                .position(|entry| entry.0 != unit)
                .map_or(raw.len(), |offset| index + offset);
            let group: Vec<(usize, Expr, bool)> = raw[index..end]
                .iter()
                .map(|(_, scope, expr, declared)| (*scope, expr.clone(), *declared))
                .collect();
            index = end;
            let value = match group.first() {
                Some((scope, expr, true)) => self.value(*scope, expr, 0),
                _ => {
                    let mut values = group
                        .iter()
                        .map(|(scope, expr, _)| self.value(*scope, expr, 0));
                    let first = values.next().unwrap_or(Value::Unknown);
                    if values.all(|value| value == first) {
                        first
                    } else {
                        Value::Unknown
                    }
                }
            };
            if value != Value::Unknown {
                out.push((unit, value));
            }
        }
        out
    }

    fn class_facts(&mut self) -> Vec<ClassFacts> {
        let raw = std::mem::take(&mut self.classes);
        let assigned = std::mem::take(&mut self.this_assigned);
        let mut classes: Vec<ClassFacts> = Vec::with_capacity(raw.len());
        for class in &raw {
            let extends = class
                .extends
                .as_ref()
                .map(|base| self.value(class.scope, base, 0));
            let implements = class
                .implements
                .iter()
                .map(|ty| self.type_value(class.scope, ty, 0))
                .collect();
            let mut members: Vec<MemberFacts> = Vec::new();
            for member in &class.members {
                let value = self.value(member.scope, &member.value, 0);
                let known = members
                    .iter()
                    .any(|seen| seen.name == member.name && seen.is_static == member.is_static);
                if !known {
                    members.push(MemberFacts {
                        name: member.name.clone(),
                        is_static: member.is_static,
                        value,
                    });
                }
            }
            // `this.x = …` in the class's own code declares an instance field, unless a
            // member of that name is declared; assigned twice differently, it is unknown.
            let mut fields: Vec<(String, Value)> = Vec::new();
            for (owner, name, scope, expr) in &assigned {
                if owner != &class.name
                    || members
                        .iter()
                        .any(|member| &member.name == name && !member.is_static)
                {
                    continue;
                }
                let value = self.value(*scope, expr, 0);
                match fields.iter_mut().find(|(known, _)| known == name) {
                    Some((_, known)) if *known != value => *known = Value::Unknown,
                    Some(_) => {}
                    None => fields.push((name.clone(), value)),
                }
            }
            members.extend(fields.into_iter().map(|(name, value)| MemberFacts {
                name,
                is_static: false,
                value,
            }));
            classes.push(ClassFacts {
                name: class.name.clone(),
                extends,
                implements,
                members,
            });
        }
        classes.sort_by(|a, b| a.name.cmp(&b.name));
        classes.dedup_by(|a, b| a.name == b.name);
        classes
    }

    /// The file's interfaces with the types they extend, one per name (the
    /// declarations of one name merged, as TypeScript merges them).
    fn interface_facts(&mut self) -> Vec<InterfaceFacts> {
        let raw = std::mem::take(&mut self.interfaces);
        let mut interfaces: Vec<InterfaceFacts> = Vec::with_capacity(raw.len());
        for interface in &raw {
            let extends: Vec<Value> = interface
                .extends
                .iter()
                .map(|ty| self.type_value(interface.scope, ty, 0))
                .collect();
            match interfaces
                .iter_mut()
                .find(|known| known.name == interface.name)
            {
                Some(known) => known.extends.extend(extends),
                None => interfaces.push(InterfaceFacts {
                    name: interface.name.clone(),
                    extends,
                }),
            }
        }
        interfaces.sort_by(|a, b| a.name.cmp(&b.name));
        interfaces
    }

    fn binding_value(&mut self, id: usize, depth: u32) -> Value {
        if let Some(value) = &self.memo[id] {
            return value.clone();
        }
        if self.busy[id] || depth > MAX_DEPTH {
            return Value::Unknown;
        }
        self.busy[id] = true;
        let binding = &self.bindings[id];
        let value = if binding.redeclared {
            Value::Unknown
        } else {
            match (binding.init.clone(), binding.assigned.clone().as_slice()) {
                (Init::Declared, [(scope, expr)]) => self.value(*scope, expr, depth + 1),
                (Init::Declared, _) | (_, [_, ..]) => Value::Unknown,
                (init, []) => self.init_value(init, depth),
            }
        };
        self.busy[id] = false;
        self.memo[id] = Some(value.clone());
        value
    }

    /// The value of a binding that is never assigned after its declaration.
    fn init_value(&mut self, init: Init, depth: u32) -> Value {
        match init {
            Init::Value(value) => value,
            Init::Expr(scope, expr) => self.value(scope, &expr, depth + 1),
            Init::Import(spec, what) => Value::Import {
                spec,
                what,
                path: Vec::new(),
            },
            Init::Namespace(indices) => self.namespace_value(&indices, depth),
            Init::Declared | Init::TypeOnly | Init::Enum => Value::Unknown,
            Init::Interface(name) => Value::Interface(name),
            // Valid code names a type alias only where a type is read: there, the type.
            Init::TypeAlias(scope, aliased) => self.type_value(scope, &aliased, depth + 1),
            Init::Signature => Value::External,
            Init::Merged(callable, indices) => {
                let callable = self.init_value(*callable, depth + 1);
                match self.namespace_value(&indices, depth) {
                    Value::Object(members) => Value::Merged(Box::new(callable), members),
                    _ => callable,
                }
            }
        }
    }

    fn namespace_value(&mut self, indices: &[usize], depth: u32) -> Value {
        let mut members = Vec::new();
        for &index in indices {
            let scope = self.namespaces[index].scope;
            let exports = self.namespaces[index].exports.clone();
            for (name, expr) in exports {
                let value = self.value(scope, &expr, depth + 1);
                members.push((name, value));
            }
        }
        Value::Object(members)
    }

    /// The value of `expr` read in `scope`.
    fn value(&mut self, scope: usize, expr: &Expr, depth: u32) -> Value {
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        match expr {
            Expr::Name(name) => match self.lookup(scope, name) {
                Some(id) => self.binding_value(id, depth + 1),
                None if name == "exports" && self.commonjs => Value::Exports(Vec::new()),
                None if self.declared.contains(name) => Value::Unknown,
                None => Value::Global {
                    name: name.clone(),
                    path: Vec::new(),
                },
            },
            Expr::This(this) => match this {
                This::Instance(class) => Value::Instance(Box::new(Value::Class(class.clone()))),
                This::Static(class) => Value::Class(class.clone()),
                This::Unknown => Value::Unknown,
            },
            Expr::Super { this, call } => {
                let (class, instance) = match this {
                    This::Instance(class) => (class, !call),
                    This::Static(class) => (class, false),
                    This::Unknown => return Value::Unknown,
                };
                let base = self
                    .classes
                    .iter()
                    .find(|raw| &raw.name == class)
                    .and_then(|raw| raw.extends.clone().map(|base| (raw.scope, base)));
                let Some((scope, base)) = base else {
                    return Value::Unknown;
                };
                let base = self.value(scope, &base, depth + 1);
                if instance { instantiate(base) } else { base }
            }
            Expr::Member(object, name) => {
                let object = self.value(scope, object, depth + 1);
                member(object, name)
            }
            Expr::New(class) => instantiate(self.value(scope, class, depth + 1)),
            Expr::Call(function) => match function.as_ref() {
                // `f.bind(x)` is `f` again.
                Expr::Member(bound, name) if name == "bind" => {
                    match self.value(scope, bound, depth + 1) {
                        value @ (Value::Func(_) | Value::Owned(_)) => value,
                        _ => Value::Unknown,
                    }
                }
                _ => returned(self.value(scope, function, depth + 1)),
            },
            Expr::Require(spec) => Value::Import {
                spec: spec.clone(),
                what: Imported::Require,
                path: Vec::new(),
            },
            Expr::Value(value) => value.clone(),
            Expr::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(name, expr)| (name.clone(), self.value(scope, expr, depth + 1)))
                    .collect(),
            ),
            Expr::Namespace(index) => self.namespace_value(&[*index], depth),
            Expr::Type(named) => instantiate(self.type_value(scope, named, depth + 1)),
            Expr::TypeName(_) => self.type_value(scope, expr, depth + 1),
            Expr::Or(first, second) => match self.value(scope, first, depth + 1) {
                Value::Unknown => self.value(scope, second, depth + 1),
                // An interface says less than the value (`const g: Greeter = new En()`).
                Value::Instance(ty) if matches!(*ty, Value::Interface(_)) => {
                    match self.value(scope, second, depth + 1) {
                        Value::Unknown => Value::Instance(ty),
                        value => value,
                    }
                }
                value => value,
            },
            Expr::SelfExports => Value::Exports(Vec::new()),
        }
    }

    /// The value a type names (a class, an imported name); a name bound nowhere in the
    /// file is a global type (`HTMLElement`, `Promise`): external.
    fn type_value(&mut self, scope: usize, expr: &Expr, depth: u32) -> Value {
        match expr {
            Expr::TypeName(name) => match self.lookup(scope, name) {
                Some(id) => match &self.bindings[id].init {
                    Init::TypeOnly => Value::Unknown,
                    Init::TypeAlias(scope, aliased) if depth <= MAX_DEPTH => {
                        let (scope, aliased) = (*scope, aliased.clone());
                        self.type_value(scope, &aliased, depth + 1)
                    }
                    _ => self.binding_value(id, depth + 1),
                },
                None if self.declared.contains(name) => Value::Unknown,
                None => Value::External,
            },
            Expr::Member(object, name) => {
                let object = match object.as_ref() {
                    Expr::Name(first) => {
                        self.type_value(scope, &Expr::TypeName(first.clone()), depth)
                    }
                    other => self.type_value(scope, other, depth + 1),
                };
                member(object, name)
            }
            other => self.value(scope, other, depth + 1),
        }
    }
}

/// The member `name` of an object literal: the last written of that name, or what a
/// spread after it provides (a module's namespace, another object).
fn object_member(members: Vec<(String, Value)>, name: &str) -> Value {
    for (key, value) in members.into_iter().rev() {
        if key == name {
            return value;
        }
        if key != SPREAD {
            continue;
        }
        match value {
            Value::Object(inner) => match object_member(inner, name) {
                Value::Unknown => {}
                found => return found,
            },
            symbolic @ (Value::Import { .. } | Value::Global { .. } | Value::Exports(_)) => {
                return member(symbolic, name);
            }
            _ => {}
        }
    }
    if is_object_method(name) {
        Value::External
    } else {
        Value::Unknown
    }
}

/// The result of calling `value`: what a unit of the repository is known to return
/// (resolved later), else unknown — code outside the repository may return one of the
/// repository's objects (`map.get(k).open()`), so calls on its results are not external.
fn returned(value: Value) -> Value {
    match value {
        Value::Merged(callable, _) => returned(*callable),
        Value::External => Value::Unknown,
        Value::Func(_)
        | Value::Import { .. }
        | Value::Global { .. }
        | Value::Exports(_)
        | Value::Member(..)
        | Value::Instance(_)
        | Value::Returned(_) => Value::Returned(Box::new(value)),
        Value::Owned(_)
        | Value::Class(_)
        | Value::Interface(_)
        | Value::Object(_)
        | Value::Unknown => Value::Unknown,
    }
}

/// `new v` / `x: v`: an instance (of a class, or of whatever a symbolic value is).
fn instantiate(value: Value) -> Value {
    match value {
        Value::Merged(callable, _) => instantiate(*callable),
        Value::Unknown | Value::Func(_) | Value::Owned(_) | Value::Object(_) => Value::Unknown,
        Value::External => Value::External,
        value => Value::Instance(Box::new(value)),
    }
}

/// `value.name`, folded where this file knows the answer.
fn member(value: Value, name: &str) -> Value {
    match value {
        Value::Import {
            spec,
            what,
            mut path,
        } => {
            path.push(name.to_owned());
            Value::Import { spec, what, path }
        }
        Value::Global {
            name: root,
            mut path,
        } => {
            path.push(name.to_owned());
            Value::Global { name: root, path }
        }
        Value::Exports(mut path) => {
            path.push(name.to_owned());
            Value::Exports(path)
        }
        Value::Merged(callable, members) => {
            match members.into_iter().rev().find(|(key, _)| key == name) {
                Some((_, value)) => value,
                None => member(*callable, name),
            }
        }
        Value::Object(members) => object_member(members, name),
        // `f.call(…)` and `f.apply(…)` call `f`.
        Value::Func(_) | Value::Owned(_) if name == "call" || name == "apply" => value,
        Value::Func(_) | Value::Owned(_) if is_function_method(name) => Value::External,
        Value::Func(_) | Value::Owned(_) | Value::Interface(_) | Value::Unknown => Value::Unknown,
        Value::External => Value::External,
        value @ (Value::Class(_) | Value::Instance(_) | Value::Member(..) | Value::Returned(_)) => {
            Value::Member(Box::new(value), name.to_owned())
        }
    }
}

fn collect_questions(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Import { .. } | Value::Global { .. } | Value::Exports(_) => out.push(value.clone()),
        Value::Returned(inner) => {
            // What another file's function returns is answered there.
            let before = out.len();
            collect_questions(inner, out);
            if out.len() > before {
                out.push(value.clone());
            }
        }
        Value::Instance(inner) | Value::Member(inner, _) => collect_questions(inner, out),
        Value::Object(members) => {
            for (_, member) in members {
                collect_questions(member, out);
            }
        }
        Value::Merged(callable, members) => {
            collect_questions(callable, out);
            for (_, member) in members {
                collect_questions(member, out);
            }
        }
        Value::Func(_)
        | Value::Owned(_)
        | Value::Class(_)
        | Value::Interface(_)
        | Value::External
        | Value::Unknown => {}
    }
}

/// Exports sorted by name; a name given two different values is unknown.
fn merge_named(mut named: Vec<(String, Value)>) -> Vec<(String, Value)> {
    named.sort_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(String, Value)> = Vec::with_capacity(named.len());
    for (name, value) in named {
        match merged.last_mut() {
            Some((last, known)) if *last == name => {
                if *known != value {
                    *known = Value::Unknown;
                }
            }
            _ => merged.push((name, value)),
        }
    }
    merged
}
