//! What one Python file gives the graph's dispatch pass (`callgraph::dispatch`): its
//! classes with their MRO and the names their bodies bind ([`Eval::type_decls`]), and
//! its method calls whose receiver may be an instance of a subclass
//! ([`Eval::virtual_calls`], from the receivers read while each group of sites is
//! evaluated: [`Eval::receivers`]).
//!
//! Owns: which sites are virtual — `obj.name(…)` where `obj` is an instance of a class of
//! the tree (`self`, a parameter, an annotated or constructed value) whose `name` is a
//! method of its class or comes from a base outside the tree (or, on `self` and `cls`, is
//! not found there: a mixin calling what its subclasses provide), and `cls.name(…)` /
//! `cls(…)` in a class method, and `obj.name` read or assigned where `name` is a property
//! of `obj`'s class with a getter or setter (a subclass may define the property again).
//! Not virtual: `super().name(…)`,
//! `Base.name(self)` and any call through a class named as such, a module's function, an
//! instance attribute (`self.name = …` shadows the class's methods).
//! Does not own: evaluating values (`resolve`), reaching the overrides across the tree
//! (`callgraph::dispatch`).

use super::{BUDGET, CURRENT, Entry, Eval, Member, Mod, Resolved, Value, node_id};
use crate::callgraph::dispatch::{TypeDecl, VirtualCall};
use crate::callgraph::python::facts::{Expr, Flavor, Name, ScopeId, ScopeKind, Site, SiteKind};
use crate::callgraph::{NodeId, UnresolvedSite};

/// The receiver classes of one virtual site, kept in its group's run (a replayed group
/// keeps them too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Receivers {
    /// The method's name (`__init__` for `cls(…)`).
    name: Name,
    classes: Vec<NodeId>,
}

impl Eval<'_> {
    /// The classes a site's receiver may be an instance of (or, for `cls`, may be), when
    /// the site is a method call a subclass may take over. Read while the site's group
    /// is evaluated: what it reads counts as the group's.
    pub(super) fn receivers(&mut self, site: &Site) -> Option<Receivers> {
        let model = &self.facts.model;
        let (object, name, construct, access) = match (site.kind, model.expr(site.expr)) {
            (SiteKind::Call, Expr::Call { func, .. }) => match model.expr(*func) {
                Expr::Attr { object, name } => (*object, name.clone(), false, None),
                _ if self.first_parameter(*func) == Some(Flavor::ClassMethod) => {
                    (*func, Name::from("__init__"), true, None)
                }
                _ => return None,
            },
            (SiteKind::Attribute, Expr::Attr { object, name }) => {
                (*object, name.clone(), false, Some(Flavor::Property))
            }
            (SiteKind::Assign, Expr::Attr { object, name }) => {
                (*object, name.clone(), false, Some(Flavor::Setter))
            }
            _ => return None,
        };
        let first = self.first_parameter(object);
        let cls = first == Some(Flavor::ClassMethod);
        // `self` and `cls` are of a subclass of the method's own class: a name that class
        // lacks is its subclasses' to provide (a mixin's hook). Through any other value a
        // name its declared class lacks is no method call keel can place (a type error,
        // or a value an `isinstance` elsewhere narrows).
        let own = matches!(
            first,
            Some(Flavor::Plain | Flavor::Property | Flavor::ClassMethod)
        );
        self.budget = BUDGET;
        let objects = self.eval(CURRENT, object, &None);
        let mut classes = Vec::new();
        for &value in objects.iter() {
            let (m, c) = match value {
                Value::Instance(m, c) if !construct => (m, c),
                Value::Class(m, c) if cls => (m, c),
                _ => continue,
            };
            let virtual_ = match access {
                None => self.overridable(m, c, &name, own),
                Some(want) => self.is_property(m, c, &name, want),
            };
            if virtual_ && let Some(id) = self.class_id(m, c) {
                classes.push(id);
            }
        }
        (!classes.is_empty()).then_some(Receivers { name, classes })
    }

    /// Whether `name` on class `c` (or its instances) is looked up in the classes, where
    /// a subclass may define it again: a method, one its bases outside the tree provide,
    /// or (`missing`: called on `self` or `cls`) a name the class does not have; not an
    /// instance attribute nor a class attribute holding anything but a function.
    fn overridable(&mut self, m: Mod, c: ScopeId, name: &str, missing: bool) -> bool {
        if !self.stored_attrs(m, c, name).is_empty() {
            return false;
        }
        match self.member(m, c, name) {
            Member::Found(cm, cs) => self.member_values(cm, cs, name).iter().any(|value| {
                matches!(
                    value,
                    Value::Func(..) | Value::Bound(..) | Value::Behind(..) | Value::BoundBehind(..)
                )
            }),
            Member::External => true,
            Member::Missing => missing,
        }
    }

    /// Whether `name` on an instance of class `c` is a property of the tree with an
    /// accessor of flavor `want` (a read runs its getter, an assignment its setter): a
    /// subclass may define the property again. A property is a data descriptor: an
    /// assignment `obj.name = …` runs its setter and stores nothing on the instance, so
    /// such stores do not hide it.
    fn is_property(&mut self, m: Mod, c: ScopeId, name: &str, want: Flavor) -> bool {
        match self.member(m, c, name) {
            Member::Found(cm, cs) => !self.accessors(cm, cs, name, want).is_empty(),
            Member::External | Member::Missing => false,
        }
    }

    /// When expression `e` of this file reads the first parameter of a method (`self`,
    /// `cls`), as such: the method's flavor.
    fn first_parameter(&self, e: super::ExprId) -> Option<Flavor> {
        let model = &self.facts.model;
        let Expr::Name { scope, name, .. } = model.expr(e) else {
            return None;
        };
        let function = model.scope(*scope);
        let in_class = function
            .parent
            .is_some_and(|parent| model.scope(parent).kind == ScopeKind::Class);
        let first = function.kind == ScopeKind::Function
            && in_class
            && function
                .params
                .first()
                .is_some_and(|first| first.name == *name)
            && function
                .bindings_of(name)
                .iter()
                .all(|binding| matches!(model.expr(binding.value), Expr::Param { index: 0, .. }));
        first.then_some(function.flavor)
    }

    /// The node id of class `c` of module `m`.
    fn class_id(&mut self, m: Mod, c: ScopeId) -> Option<NodeId> {
        if let Some(id) = self.node_ids.get(&(m, c)) {
            return Some(id.clone());
        }
        let scope = self.model(m)?.scope(c);
        if scope.kind != ScopeKind::Class {
            return None;
        }
        let id = NodeId::new(&self.registered(m)?.key, &scope.name);
        self.node_ids.insert((m, c), id.clone());
        Some(id)
    }

    /// The virtual calls of the file, from its virtual `sites` as the last round read
    /// them; a site `resolved` lists as unresolved says so, so that a target found by
    /// dispatch settles it.
    pub(super) fn virtual_calls(
        &mut self,
        sites: &[(&Site, &Receivers)],
        resolved: &Resolved,
    ) -> Vec<VirtualCall> {
        let facts = self.facts;
        let current = self.facts_path().to_owned();
        let mut out = Vec::new();
        for &(site, receivers) in sites {
            let caller = self
                .node_ids
                .entry((CURRENT, site.owner))
                .or_insert_with(|| node_id(&current, facts.model.scope(site.owner)))
                .clone();
            let listed = UnresolvedSite {
                caller: caller.clone(),
                line: site.line,
                callee_text: site.text.to_string(),
            };
            let unresolved = resolved
                .unresolved
                .binary_search(&listed)
                .is_ok()
                .then_some(listed.callee_text);
            out.push(VirtualCall {
                caller,
                line: site.line,
                name: Box::from(&*receivers.name),
                receivers: receivers.classes.clone(),
                unresolved,
            });
        }
        out.sort();
        out.dedup();
        out
    }

    /// The classes of the file (those that are nodes): each with its MRO as far as it
    /// stays inside the tree, the classes it derives from, and the names its body binds.
    pub(super) fn type_decls(&mut self) -> Vec<TypeDecl> {
        let facts = self.facts;
        self.memo.clear();
        self.mros.clear();
        let mut out = Vec::new();
        for (index, scope) in facts.model.scopes.iter().enumerate() {
            // A type-only class (`if TYPE_CHECKING:`) has no instances to dispatch to.
            if scope.kind != ScopeKind::Class || !scope.node || scope.type_only {
                continue;
            }
            self.budget = BUDGET;
            let mro = self.mro(CURRENT, index as ScopeId);
            let (mut lookup, mut supertypes) = (Vec::new(), Vec::new());
            let mut inside = true;
            for (at, entry) in mro.iter().enumerate() {
                let Entry::Class(m, c) = *entry else {
                    inside = false;
                    continue;
                };
                let Some(id) = self.class_id(m, c) else {
                    inside = false;
                    continue;
                };
                if inside {
                    lookup.push(id.clone());
                }
                if at > 0 {
                    supertypes.push(id);
                }
            }
            let mut members: Vec<Box<str>> = scope
                .bindings
                .iter()
                .map(|binding| Box::from(&*binding.name))
                .collect();
            members.sort_unstable();
            members.dedup();
            let Some(id) = lookup.first().cloned() else {
                continue;
            };
            out.push(TypeDecl {
                id,
                lookup,
                supertypes,
                members,
            });
        }
        out
    }
}
