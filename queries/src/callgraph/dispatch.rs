//! Dispatch: the methods a method call may run besides the one keel resolved, because the
//! object it is called on may be an instance of a subclass (or of a class implementing
//! an interface) that defines the method again.
//!
//! Owns: the vocabulary each language's resolution hands over for it — the classes and
//! interfaces of a file ([`TypeDecl`]: where a method is looked up on an instance, what
//! the type is a subtype of, which names its body declares) and the calls whose callee a
//! subtype may take over ([`VirtualCall`]: the method's name and the types the receiver
//! is declared as) — and the pass over the whole tree that turns them into call edges
//! ([`dispatch`]): for each virtual call, every class of the repository that is a
//! subtype of a receiver type (transitively: subclasses of subclasses, classes
//! implementing an interface or an interface extending it), and for each, the method an
//! instance of it runs — the first class of its lookup order whose body declares the
//! name, when that declaration is a method of the graph. So only methods a class really
//! defines are reached (an inherited method is the resolved one, or another subtype's),
//! and only through classes keel resolved as subtypes. A call that is listed as
//! unresolved (a member its receiver's type does not define, an interface's method)
//! is settled when dispatch finds it a target.
//! Does not own: deciding which call sites are virtual and what their receivers are
//! (each language's resolution: `python::resolve::dispatch`, `typescript::resolve`), the
//! graph's assembly ([`super::call_graph`], which marks the edges only this pass makes
//! as dispatch edges).

use super::{Call, CallNode, NodeId, NodeKind, UnresolvedSite};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeSet;
use std::rc::Rc;

/// A class or interface of one file as dispatch reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeDecl {
    /// `path#Qualified`: a class node, or for an interface an id no node has.
    pub id: NodeId,
    /// Where a method called on an instance is looked up, in order: the class itself,
    /// then its bases as the language orders them (Python's MRO, the `extends` chain),
    /// classes of the repository only, cut at the first base keel cannot follow or that
    /// lies outside the repository. Empty for an interface (no instance is of it alone).
    pub lookup: Vec<NodeId>,
    /// The types it is a subtype of (bases, implemented or extended interfaces), of the
    /// repository only.
    pub supertypes: Vec<NodeId>,
    /// The names its body declares on the instance side (methods, fields, class
    /// attributes), sorted, each once.
    pub members: Vec<Box<str>>,
}

/// A method call a subtype of its receiver may take over: `obj.name(…)` with `obj` an
/// instance (or, in Python, `cls.name(…)` and `cls(…)` in a class method) of the
/// receiver types.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VirtualCall {
    pub caller: NodeId,
    pub line: u32,
    /// The method's name (`__init__` for `cls(…)`).
    pub name: Box<str>,
    /// The classes or interfaces the receiver is declared as (ids as [`TypeDecl::id`]).
    pub receivers: Vec<NodeId>,
    /// The callee text of the site when the file lists it as unresolved: settled (left
    /// out of the graph's unresolved sites) when dispatch finds it a target.
    pub unresolved: Option<String>,
}

/// What the pass adds to a graph.
#[derive(Debug, Default)]
pub(super) struct Dispatched {
    /// One call per (virtual call, method reached); a method the call also reaches
    /// directly is included (the edge's other sites decide whether it is a dispatch edge).
    pub(super) calls: Vec<Call>,
    /// The unresolved sites a target now settles, sorted.
    pub(super) settled: Vec<UnresolvedSite>,
}

/// The tree's types merged by id (a TS class and an interface of the same name declare
/// one type), with the reverse of the subtype relation.
struct Hierarchy<'a> {
    decls: HashMap<&'a NodeId, Merged<'a>>,
    /// Direct subtypes of each type.
    subtypes: HashMap<&'a NodeId, Vec<&'a NodeId>>,
    /// Strict subtypes of a receiver, transitively, computed once per receiver.
    below: HashMap<&'a NodeId, Rc<[&'a NodeId]>>,
}

#[derive(Default)]
struct Merged<'a> {
    lookup: &'a [NodeId],
    members: HashSet<&'a str>,
}

impl<'a> Hierarchy<'a> {
    fn new(types: impl Iterator<Item = &'a TypeDecl>) -> Self {
        let mut decls: HashMap<&'a NodeId, Merged<'a>> = HashMap::default();
        let mut subtypes: HashMap<&'a NodeId, Vec<&'a NodeId>> = HashMap::default();
        for decl in types {
            let merged = decls.entry(&decl.id).or_default();
            if merged.lookup.is_empty() {
                merged.lookup = &decl.lookup;
            }
            merged
                .members
                .extend(decl.members.iter().map(|name| &**name));
            for supertype in &decl.supertypes {
                if *supertype != decl.id {
                    subtypes.entry(supertype).or_default().push(&decl.id);
                }
            }
        }
        for direct in subtypes.values_mut() {
            direct.sort();
            direct.dedup();
        }
        Self {
            decls,
            subtypes,
            below: HashMap::default(),
        }
    }

    /// Every strict subtype of `receiver` (cycles of broken code cut), sorted.
    fn below(&mut self, receiver: &'a NodeId) -> Rc<[&'a NodeId]> {
        if let Some(below) = self.below.get(receiver) {
            return Rc::clone(below);
        }
        let mut seen: HashSet<&'a NodeId> = HashSet::default();
        seen.insert(receiver);
        let mut pending = vec![receiver];
        let mut found = Vec::new();
        while let Some(id) = pending.pop() {
            for &sub in self.subtypes.get(id).into_iter().flatten() {
                if seen.insert(sub) {
                    found.push(sub);
                    pending.push(sub);
                }
            }
        }
        found.sort();
        let found: Rc<[&'a NodeId]> = found.into();
        self.below.insert(receiver, Rc::clone(&found));
        found
    }

    /// The method an instance of class `class` runs for `name`: the first class of its
    /// lookup order declaring the name, when that declaration is a method node.
    fn method(&self, class: &NodeId, name: &str, nodes: &[CallNode]) -> Option<NodeId> {
        let decl = self.decls.get(class)?;
        for owner in decl.lookup {
            let declares = self
                .decls
                .get(owner)
                .is_some_and(|owner| owner.members.contains(name));
            if !declares {
                continue;
            }
            let id = NodeId::new(owner.path(), &format!("{}.{name}", owner.qualified()));
            let is_method = nodes
                .binary_search_by(|node| node.id.cmp(&id))
                .ok()
                .is_some_and(|at| matches!(nodes[at].kind, NodeKind::Method | NodeKind::Function));
            return is_method.then_some(id);
        }
        None
    }
}

/// The calls `virtual_calls` make through the subtypes of their receivers, over the
/// tree's `types`; `nodes` is the graph's nodes, sorted by id.
pub(super) fn dispatch<'a>(
    types: impl Iterator<Item = &'a TypeDecl>,
    virtual_calls: &[&VirtualCall],
    nodes: &[CallNode],
) -> Dispatched {
    let mut hierarchy = Hierarchy::new(types);
    let mut out = Dispatched::default();
    for call in virtual_calls {
        let mut targets: BTreeSet<NodeId> = BTreeSet::new();
        for receiver in &call.receivers {
            for &class in hierarchy.below(receiver).iter() {
                if let Some(method) = hierarchy.method(class, &call.name, nodes) {
                    targets.insert(method);
                }
            }
        }
        if let (Some(text), false) = (&call.unresolved, targets.is_empty()) {
            out.settled.push(UnresolvedSite {
                caller: call.caller.clone(),
                line: call.line,
                callee_text: text.clone(),
            });
        }
        out.calls.extend(targets.into_iter().map(|callee| Call {
            caller: call.caller.clone(),
            callee,
            line: call.line,
        }));
    }
    out.settled.sort();
    out.settled.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> NodeId {
        let (path, name) = text.split_once('#').unwrap_or((text, ""));
        NodeId::new(path, name)
    }

    fn class(name: &str, lookup: &[&str], supertypes: &[&str], members: &[&str]) -> TypeDecl {
        TypeDecl {
            id: id(name),
            lookup: lookup.iter().map(|n| id(n)).collect(),
            supertypes: supertypes.iter().map(|n| id(n)).collect(),
            members: members.iter().map(|&m| m.into()).collect(),
        }
    }

    /// `caller`'s call of `m` at `line` on a value declared as `receiver`.
    fn call_of_m(caller: &str, line: u32, receiver: &str, unresolved: Option<&str>) -> VirtualCall {
        VirtualCall {
            caller: id(caller),
            line,
            name: "m".into(),
            receivers: vec![id(receiver)],
            unresolved: unresolved.map(str::to_owned),
        }
    }

    fn method(text: &str) -> CallNode {
        CallNode {
            id: id(text),
            kind: NodeKind::Method,
            start_line: 1,
            end_line: 1,
        }
    }

    #[test]
    fn a_call_reaches_the_overrides_of_subtypes_and_no_inherited_or_unrelated_method() {
        // A <- B (overrides m) <- C (does not) <- D (overrides m); E unrelated defines m;
        // F implements interface I and inherits m from A... through its own base G.
        let types = [
            class("a.py#A", &["a.py#A"], &[], &["m"]),
            class("a.py#B", &["a.py#B", "a.py#A"], &["a.py#A"], &["m"]),
            class("a.py#C", &["a.py#C", "a.py#B", "a.py#A"], &["a.py#B"], &[]),
            class(
                "a.py#D",
                &["a.py#D", "a.py#C", "a.py#B", "a.py#A"],
                &["a.py#C"],
                &["m"],
            ),
            class("a.py#E", &["a.py#E"], &[], &["m"]),
            class("i.ts#I", &[], &[], &["m"]),
            class("i.ts#G", &["i.ts#G"], &[], &["m"]),
            class("i.ts#F", &["i.ts#F", "i.ts#G"], &["i.ts#G", "i.ts#I"], &[]),
        ];
        let mut nodes: Vec<CallNode> = ["a.py#A.m", "a.py#B.m", "a.py#D.m", "a.py#E.m", "i.ts#G.m"]
            .into_iter()
            .map(method)
            .collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let on_a = call_of_m("a.py#A.run", 3, "a.py#A", None);
        let on_i = call_of_m("i.ts#use", 9, "i.ts#I", Some("x.m"));
        let out = dispatch(types.iter(), &[&on_a, &on_i], &nodes);
        let callees: Vec<String> = out
            .calls
            .iter()
            .map(|call| format!("{} -> {}", call.caller, call.callee))
            .collect();
        assert_eq!(
            callees,
            [
                "a.py#A.run -> a.py#B.m",
                "a.py#A.run -> a.py#D.m",
                "i.ts#use -> i.ts#G.m"
            ]
        );
        assert_eq!(out.settled.len(), 1);
        assert_eq!(out.settled[0].callee_text, "x.m");
    }

    #[test]
    fn a_name_declared_without_a_method_node_shadows_the_bases() {
        // B's body binds `m` to something that is no method: B's instances do not run A.m
        // through dispatch, and no edge is made.
        let types = [
            class("a.py#A", &["a.py#A"], &[], &["m"]),
            class("a.py#B", &["a.py#B", "a.py#A"], &["a.py#A"], &["m"]),
        ];
        let nodes = [method("a.py#A.m")];
        let call = call_of_m("a.py#f", 1, "a.py#A", None);
        assert!(dispatch(types.iter(), &[&call], &nodes).calls.is_empty());
    }

    #[test]
    fn a_cycle_of_bases_ends() {
        let types = [
            class("a.py#A", &["a.py#A"], &["a.py#B"], &["m"]),
            class("a.py#B", &["a.py#B"], &["a.py#A"], &["m"]),
        ];
        let mut nodes = vec![method("a.py#A.m"), method("a.py#B.m")];
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let call = call_of_m("a.py#f", 1, "a.py#A", None);
        let out = dispatch(types.iter(), &[&call], &nodes);
        assert_eq!(out.calls.len(), 1);
        assert_eq!(out.calls[0].callee.as_str(), "a.py#B.m");
    }
}
