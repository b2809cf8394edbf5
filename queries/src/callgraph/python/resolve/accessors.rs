//! Properties: an attribute read or written on a value keel knows the class of calls the
//! property's getter or setter.
//!
//! Owns: the edges of a property's accessors — `obj.x` (an `Attribute` site, or the
//! callee `obj.x` of a call, `obj.x()`) to the getter of `x` (`@property`,
//! `@functools.cached_property`, `@x.getter`), `obj.x = v` and `obj.x += v` (an `Assign`
//! site) to its setter (`@x.setter`), found through the class's MRO for an instance of
//! it (`self.x` in its methods, `obj.x` with `obj`'s class known) and after the class for
//! `super().x`; likewise a descriptor's `__get__` and `__set__` when the class attribute
//! holds an instance of a class of the tree that defines them; the attribute hooks
//! (`__getattr__` for a name the instance lacks, `__setattr__` for every assignment);
//! and finding one accessor of a property from another (the getter, setter and deleter
//! are functions of one name in one class body: the name's binding at the end of the
//! body is the last of them, so the others are found among the class's functions of
//! that name); `getattr(obj, "x")` and `hasattr(obj, "x")` as reads of `obj.x`, and
//! `getattr(obj, name)` with a name keel does not know as a read that may reach
//! `__getattr__`.
//! Does not own: what a property returns when read (`Eval::bind_values` invokes the
//! getter found here), the sites (`facts`), a plain attribute (no edge: only a function
//! of a property's flavor is called), a class's attribute read on the class
//! (`C.x` is the property object: no call), deleters (`del obj.x` is not read).

use super::{CURRENT, Eval, Member, Mod, Value};
use crate::callgraph::NodeId;
use crate::callgraph::python::facts::{Arg, Expr, Flavor, Key, ScopeId, ScopeKind, Site, SiteKind};

impl Eval<'_> {
    /// Pushes the accessors a site calls besides its callee: the getter a read (or a
    /// call of the attribute) runs, the setter an assignment runs. `values`: the site's
    /// values (for `Attribute` and `Assign` sites, the object's).
    pub(super) fn accessor_targets(
        &mut self,
        site: &Site,
        values: &[Value],
        out: &mut Vec<NodeId>,
    ) {
        let model = &self.facts.model;
        let (want, name, objects) = match (site.kind, model.expr(site.expr)) {
            (SiteKind::Attribute, Expr::Attr { name, .. }) => {
                (Flavor::Property, name.clone(), values.to_vec())
            }
            (SiteKind::Assign, Expr::Attr { name, .. }) => {
                (Flavor::Setter, name.clone(), values.to_vec())
            }
            (SiteKind::Call, Expr::Call { func, .. }) => match model.expr(*func) {
                Expr::Attr { object, name } => {
                    let objects = self.eval(CURRENT, *object, &None);
                    (Flavor::Property, name.clone(), objects.to_vec())
                }
                _ => return,
            },
            _ => return,
        };
        for object in objects {
            self.access_targets(object, &name, want, out);
        }
    }

    /// Pushes what reading (`want`: [`Flavor::Property`]) or assigning
    /// ([`Flavor::Setter`]) attribute `name` of `object` runs: its getter or setter, its
    /// descriptor's `__get__` or `__set__`, the instance's attribute hooks.
    fn access_targets(&mut self, object: Value, name: &str, want: Flavor, out: &mut Vec<NodeId>) {
        if let Value::Instance(m, c) = object {
            self.hook_targets(m, c, name, want, out);
        }
        let member = match object {
            Value::Instance(m, c) => self.member(m, c, name),
            Value::Super(m, c) => self.member_after(m, c, name, Some((m, c))),
            _ => return,
        };
        let Member::Found(cm, cs) = member else {
            return;
        };
        for accessor in self.accessors(cm, cs, name, want) {
            out.extend(self.node(cm, accessor));
        }
        self.descriptor_targets(cm, cs, name, want, out);
    }

    /// Pushes what `getattr(obj, name[, default])` and `hasattr(obj, name)` (their
    /// arguments `args`) run: for a constant name, what reading `obj.name` runs; for
    /// any other, the `__getattr__` the class of the tree of an instance `obj` may be
    /// defines (the name may be one it lacks).
    pub(super) fn getattr_targets(&mut self, args: &[Arg], out: &mut Vec<NodeId>) {
        let mut positional = args
            .iter()
            .filter(|a| a.keyword.is_none() && !a.splat)
            .map(|a| a.value);
        let (Some(object), Some(name)) = (positional.next(), positional.next()) else {
            return;
        };
        let names = self.keys(CURRENT, name, &None);
        let dynamic = names.is_empty() || names.iter().any(|key| !matches!(key, Some(Key::Str(_))));
        let objects = self.eval(CURRENT, object, &None);
        for &object in objects.iter() {
            for key in &names {
                if let Some(Key::Str(name)) = key {
                    self.access_targets(object, name, Flavor::Property, out);
                }
            }
            if dynamic
                && let Value::Instance(m, c) = object
                && let Member::Found(..) = self.member(m, c, "__getattr__")
            {
                self.method_targets(m, c, "__getattr__", out);
            }
        }
    }

    /// The attribute hooks an access on an instance of class `c` runs: an assignment
    /// calls the class's `__setattr__` whatever the name; a read of a name neither the
    /// class nor its instances have (nor, for a mixin, its subclasses) calls its
    /// `__getattr__`. Only hooks the tree defines give edges (`object`'s are external).
    fn hook_targets(
        &mut self,
        m: Mod,
        c: ScopeId,
        name: &str,
        want: Flavor,
        out: &mut Vec<NodeId>,
    ) {
        let hook = match want {
            Flavor::Setter => "__setattr__",
            _ if self.reaches_getattr(m, c, name) => "__getattr__",
            _ => return,
        };
        self.method_targets(m, c, hook, out);
    }

    /// Whether reading `name` on an instance of class `c` falls through to
    /// `__getattr__`: the class defines one (or inherits it from the tree) and has no
    /// member, instance attribute or subclass attribute of that name.
    pub(super) fn reaches_getattr(&mut self, m: Mod, c: ScopeId, name: &str) -> bool {
        name != "__getattr__"
            && matches!(self.member(m, c, "__getattr__"), Member::Found(..))
            && matches!(self.member(m, c, name), Member::Missing)
            && self.stored_attrs(m, c, name).is_empty()
            && self.subclass_attr(m, c, name).is_empty()
    }

    /// A descriptor's accessor: member `name` of class `cs` holds an instance of a class
    /// of the tree that defines `__get__` (called by a read) or `__set__` (called by an
    /// assignment), as flask's `ConfigAttribute` does.
    fn descriptor_targets(
        &mut self,
        cm: Mod,
        cs: ScopeId,
        name: &str,
        want: Flavor,
        out: &mut Vec<NodeId>,
    ) {
        let method = match want {
            Flavor::Setter => "__set__",
            _ => "__get__",
        };
        let values = self.member_values(cm, cs, name);
        for value in values.iter() {
            if let Value::Instance(dm, dc) = *value
                && let Member::Found(..) = self.member(dm, dc, method)
            {
                self.method_targets(dm, dc, method, out);
            }
        }
    }

    /// The functions of flavor `want` named `name` in the body of class `cs` of module
    /// `cm`, when `name` is a property there (its binding at the end of the body is one
    /// of its accessors).
    pub(super) fn accessors(
        &mut self,
        cm: Mod,
        cs: ScopeId,
        name: &str,
        want: Flavor,
    ) -> Vec<ScopeId> {
        let bound = self.member_values(cm, cs, name);
        let property = bound.iter().any(|value| match *value {
            Value::Func(fm, fs) => {
                fm == cm
                    && matches!(
                        self.flavor(fm, fs),
                        Flavor::Property | Flavor::Setter | Flavor::Deleter
                    )
            }
            _ => false,
        });
        if !property {
            return Vec::new();
        }
        let Some(model) = self.model(cm) else {
            return Vec::new();
        };
        let qualified = format!("{}.{name}", model.scope(cs).name);
        let found: Vec<ScopeId> = (0..model.scopes.len())
            .map(|index| index as ScopeId)
            .filter(|&s| {
                let scope = model.scope(s);
                scope.parent == Some(cs)
                    && scope.kind == ScopeKind::Function
                    && *scope.name == *qualified
            })
            .collect();
        // The accessors this answer read, whatever their flavor: an edit of one that
        // keeps its name (and so the class's bindings) can change it.
        if cm == CURRENT {
            for &s in &found {
                self.mark_scope(s);
            }
        }
        found
            .into_iter()
            .filter(|&s| self.flavor(cm, s) == want)
            .collect()
    }

    /// The getters of the property whose accessor (any of them) is function `fs` of
    /// module `fm`.
    pub(super) fn getters_beside(&mut self, fm: Mod, fs: ScopeId) -> Vec<ScopeId> {
        let Some(model) = self.model(fm) else {
            return Vec::new();
        };
        let scope = model.scope(fs);
        let Some(class) = scope.parent else {
            return Vec::new();
        };
        let name = scope
            .name
            .rsplit('.')
            .next()
            .unwrap_or(&scope.name)
            .to_owned();
        self.accessors(fm, class, &name, Flavor::Property)
    }

    /// Notes that the group being evaluated read scope `s` of this file (the chunk
    /// holding it, if any), as [`Eval::mark`] does for an expression.
    fn mark_scope(&mut self, s: ScopeId) {
        let chunks = &self.facts.layout.chunks;
        let ordinal = chunks.partition_point(|chunk| chunk.scopes.end <= s);
        if chunks
            .get(ordinal)
            .is_some_and(|chunk| chunk.scopes.contains(&s))
            && let Some(word) = self.read.get_mut(ordinal / 64)
        {
            *word |= 1 << (ordinal % 64);
        }
    }
}
