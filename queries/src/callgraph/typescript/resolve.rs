//! Resolution across files: what each call site of a file calls, in two steps.
//!
//! 1. [`answers`], per tree: every question a file's facts ask of other files (each
//!    [`Value::Import`], [`Value::Global`], [`Value::Exports`]) is answered by reading
//!    the other modules' export tables ([`ts_exports`], memoized per image), following
//!    re-exports, `export *`, CommonJS `module.exports`, class bases and fields. An
//!    answer is line-free ([`Resolved`]: a node id, a class's members by level, external
//!    or unknown), interned with the others as one [`Answers`] value.
//! 2. [`ts_resolve`], per (image, answers): the file's sites resolved against its own
//!    classes and those answers. An edit elsewhere that leaves every answer equal yields
//!    the same [`Answers`] value, so the file's resolution is not run again.
//!
//! Owns: the evaluator both steps share ([`Eval`]), constructor and member lookup through
//! `extends`, the script-global index ([`ts_globals`]), and what a file gives the graph's
//! dispatch pass (`callgraph::dispatch`): its classes and interfaces with their lookup
//! chains and supertypes (`implements`, interface `extends`), and its virtual calls —
//! `x.m()` on an instance of a class of the repository (`this`, a typed or constructed
//! value) whose `m` is a method there or from a base outside the repository (or, on
//! `this`, missing there: dispatch settles it when a subclass defines `m`), or on a value
//! of an interface of the repository (which alone resolves to nothing: dispatch settles
//! it when a class implementing the interface defines `m`).
//! Not virtual: `super.m()`, `#private` methods, static members, `new`.
//! Does not own: what a file says ([`super::facts`]) or where a specifier points
//! ([`super::modules`]).

use super::facts::{
    ClassFacts, ExportTable, Imported, InterfaceFacts, SPREAD, Site, Value, is_function_method,
    is_object_method, ts_exports, ts_facts,
};
use super::modules::{Target, module_exports, target};
use crate::callgraph::TreeFiles as _;
use crate::callgraph::dispatch::{TypeDecl, VirtualCall};
use crate::callgraph::{
    Call, CallNode, FileGraph, MODULE, NodeId, Sources, UnresolvedSite, innermost, unit_nodes,
};
use crate::extract::Language;
use crate::images::Image;
use keel_engine::Db;
use std::collections::BTreeMap;

/// One member of a class level: its node when it is callable code of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ViewMember {
    pub(crate) name: String,
    pub(crate) is_static: bool,
    pub(crate) node: Option<NodeId>,
}

/// What lies past a class's last level.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Tail {
    /// No base: a member not found does not exist.
    End,
    /// A base outside the repository (`extends Error`, a package's class).
    External,
    /// A base keel cannot follow (`extends mixin(A)`).
    Unknown,
}

/// A class as another file sees it: its members and its bases' (own class first).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClassView {
    /// The class of each level.
    pub(crate) ids: Vec<NodeId>,
    pub(crate) levels: Vec<Vec<ViewMember>>,
    pub(crate) tail: Tail,
}

/// The answer to a question about another file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Resolved {
    Node(NodeId),
    Class(ClassView),
    Instance(ClassView),
    /// An interface of the repository (its id), and a value of its type.
    Interface(NodeId),
    Typed(NodeId),
    /// A module namespace or an object: not callable, members not followed further.
    Opaque,
    External,
    Unknown,
}

/// A file's questions with their answers in one tree, sorted by question.
#[salsa::interned(debug)]
pub struct Answers<'db> {
    #[returns(ref)]
    pub(crate) entries: Vec<(Value, Resolved)>,
}

/// Step 1: the answers `tree` gives to the questions of the file at `path`, read through
/// the other modules' [`module_exports`] (so an equal interface re-runs nothing here).
#[salsa::tracked(returns(copy))]
pub fn ts_answers<'db>(db: &'db dyn Db, tree: Sources, path: String) -> Answers<'db> {
    let Some(image) = tree.image(db, &path) else {
        return Answers::new(db, Vec::new());
    };
    let eval = Eval {
        db,
        mode: Mode::Tree(tree),
    };
    let entries: Vec<(Value, Resolved)> = ts_facts(db, image)
        .questions
        .iter()
        .map(|question| {
            let value = eval.eval(&path, question, 0);
            (question.clone(), eval.resolved(value))
        })
        .collect();
    Answers::new(db, entries)
}

/// Step 2: the graph of one file from its facts and the answers of its tree: its nodes,
/// the calls that resolved to a node, and the sites that did not resolve. Memoized by
/// (image, answers): another file's edit that changes no answer re-runs nothing here.
#[salsa::tracked(returns(ref))]
pub fn ts_resolve<'db>(db: &'db dyn Db, image: Image<'db>, answers: Answers<'db>) -> FileGraph {
    let path = image.path(db);
    let facts = ts_facts(db, image);
    let table = ts_exports(db, image);
    let (nodes, partial) = unit_nodes(db, image);
    let eval = Eval {
        db,
        mode: Mode::Env {
            own: path,
            table,
            answers: answers.entries(db),
        },
    };
    let mut calls = Vec::new();
    let mut unresolved = Vec::new();
    let mut virtual_calls = Vec::new();
    for site in &facts.sites {
        let caller = caller_id(path, table, &nodes, &site.caller, site.line);
        let (outcome, receiver) = eval.site(path, site);
        if let Some((name, receiver)) = receiver {
            virtual_calls.push(VirtualCall {
                caller: caller.clone(),
                line: site.line,
                name: name.into(),
                receivers: vec![receiver],
                unresolved: matches!(outcome, Outcome::Unresolved).then(|| site.text.clone()),
            });
        }
        match outcome {
            Outcome::Edge(callee) => {
                // Anonymous code of the caller itself (an IIFE, a local object's method,
                // `exports.f` called from top-level code) is part of the caller.
                let anonymous =
                    matches!(site.callee, Value::Owned(_)) || callee == NodeId::module(path);
                if callee == caller && anonymous {
                    continue;
                }
                calls.push(Call {
                    caller,
                    callee,
                    line: site.line,
                });
            }
            Outcome::External => {}
            Outcome::Unresolved => unresolved.push(UnresolvedSite {
                caller,
                line: site.line,
                callee_text: site.text.clone(),
            }),
        }
    }
    calls.sort();
    calls.dedup();
    unresolved.sort();
    unresolved.dedup();
    virtual_calls.sort();
    virtual_calls.dedup();
    FileGraph {
        nodes,
        calls,
        unresolved,
        partial: partial || facts.partial,
        types: eval.type_decls(path, table, &facts.interfaces),
        virtual_calls,
    }
}

/// Top-level declarations of the tree's script files (files that are not modules share
/// one global scope): name → the scripts declaring it, sorted.
#[salsa::tracked(returns(ref))]
pub(crate) fn ts_globals(db: &dyn Db, tree: Sources) -> Vec<(String, Vec<String>)> {
    let mut index: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in tree.source_paths(db) {
        if !matches!(
            Language::for_path(path),
            Some(Language::TypeScript | Language::Tsx)
        ) {
            continue;
        }
        let Some(table) = module_exports(db, tree, path.to_owned()) else {
            continue;
        };
        if !table.script {
            continue;
        }
        for (name, _) in &table.globals {
            index.entry(name.clone()).or_default().push(path.to_owned());
        }
    }
    index.into_iter().collect()
}

/// The caller node of a site: the unit the walk named, or (when the extractor left that
/// unit out: a partial parse) the innermost node holding the line.
fn caller_id(
    path: &str,
    table: &ExportTable,
    nodes: &[CallNode],
    caller: &str,
    line: u32,
) -> NodeId {
    if caller == MODULE {
        return NodeId::module(path);
    }
    if table.has_node(caller) {
        return NodeId::new(path, caller);
    }
    innermost(nodes, line).map_or_else(|| NodeId::module(path), |node| node.id.clone())
}

/// Deepest evaluation (values through imports, bases and members).
const MAX_DEPTH: u32 = 64;
/// Longest `extends` chain followed.
const MAX_CHAIN: usize = 32;

/// Where the evaluator reads other files from.
enum Mode<'db> {
    /// Step 1: the whole tree.
    Tree(Sources),
    /// Step 2: one file and the answers about the others.
    Env {
        own: &'db str,
        table: &'db ExportTable,
        answers: &'db [(Value, Resolved)],
    },
}

/// A class being looked into: through its facts (in its module) or an answered view.
#[derive(Clone)]
enum ClassRef<'db> {
    Facts(String, &'db ClassFacts),
    View(&'db ClassView),
}

/// A value being evaluated.
#[derive(Clone)]
enum Val<'db> {
    /// A node; with its module and qualified name when its file's table is at hand (to
    /// read what calling it returns).
    Node(NodeId, Option<(String, String)>),
    Class(ClassRef<'db>),
    Instance(ClassRef<'db>),
    /// An interface of the repository (`path#Name`), and a value of its type: an
    /// instance of some class implementing it.
    Interface(NodeId),
    Typed(NodeId),
    /// The namespace object of the module at that path.
    Module(String),
    /// An object literal of the module at that path.
    Object(String, &'db [(String, Value)]),
    /// A function or class (the first) merged with a namespace (members of the module at
    /// that path).
    Merged(Box<Val<'db>>, String, &'db [(String, Value)]),
    External,
    Unknown,
}

/// What a call site calls.
enum Outcome {
    Edge(NodeId),
    /// Code outside the repository, or a class without a constructor: no edge.
    External,
    Unresolved,
}

/// Where a member lookup up a class chain ended.
enum Lookup<'db> {
    /// The nearest declaration's value.
    Found(Val<'db>),
    /// No class of the chain declares it (the chain ended inside the repository).
    Missing,
    /// The chain reached a base outside the repository.
    External,
    /// The chain could not be followed.
    Unknown,
}

/// A class's constructor.
enum Ctor {
    Node(NodeId),
    /// None in the whole chain: no edge, not unresolved.
    None,
    External,
    Unknown,
}

struct Eval<'db> {
    db: &'db dyn Db,
    mode: Mode<'db>,
}

impl<'db> Eval<'db> {
    fn table(&self, module: &str) -> Option<&'db ExportTable> {
        match &self.mode {
            Mode::Tree(tree) => module_exports(self.db, *tree, module.to_owned()).as_ref(),
            Mode::Env { own, table, .. } => (*own == module).then_some(*table),
        }
    }

    fn node_id(&self, module: &str, name: &str) -> Option<NodeId> {
        if name == MODULE {
            return Some(NodeId::module(module));
        }
        self.table(module)
            .filter(|table| table.has_node(name))
            .map(|_| NodeId::new(module, name))
    }

    fn node(&self, module: &str, name: &str) -> Val<'db> {
        self.node_id(module, name).map_or(Val::Unknown, |id| {
            Val::Node(id, Some((module.to_owned(), name.to_owned())))
        })
    }

    /// What a site calls, and when it is a virtual call, the method's name and the type
    /// of its receiver (see the module's doc).
    fn site(&self, module: &str, site: &'db Site) -> (Outcome, Option<(String, NodeId)>) {
        let virtual_member = match &site.callee {
            Value::Member(object, name)
                if !site.new && !name.starts_with('#') && !site.text.starts_with("super.") =>
            {
                Some((object, name))
            }
            _ => None,
        };
        let Some((object, name)) = virtual_member else {
            return (self.outcome(self.eval(module, &site.callee, 0)), None);
        };
        let on_this = site.text.starts_with("this.");
        // As `eval` reads a member (the object and the member at depth 1), with the
        // receiver's type kept.
        let (value, receiver) = match self.eval(module, object, 1) {
            Val::Instance(class) => {
                let id = class_id(&class);
                let (value, overridable) = match self.up_chain(class, name, false, 1) {
                    Lookup::Found(value) => {
                        let method = matches!(unmerge(value.clone()), Val::Node(..));
                        (value, method)
                    }
                    // On `this`, a member its class lacks is its subclasses' to provide;
                    // on another value it is no method call keel can place.
                    Lookup::Missing => (missing_member(name, false), on_this),
                    Lookup::External => (Val::External, true),
                    Lookup::Unknown => (Val::Unknown, false),
                };
                (value, id.filter(|_| overridable))
            }
            Val::Typed(interface) => (missing_member(name, false), Some(interface)),
            object => (self.member(object, name, 1), None),
        };
        (
            self.outcome(value),
            receiver.map(|receiver| (name.clone(), receiver)),
        )
    }

    fn outcome(&self, value: Val<'db>) -> Outcome {
        match unmerge(value) {
            Val::Node(id, _) => Outcome::Edge(id),
            Val::Class(class) => match self.ctor(class) {
                Ctor::Node(id) => Outcome::Edge(id),
                Ctor::None | Ctor::External => Outcome::External,
                Ctor::Unknown => Outcome::Unresolved,
            },
            Val::External => Outcome::External,
            Val::Instance(_)
            | Val::Interface(_)
            | Val::Typed(_)
            | Val::Module(_)
            | Val::Object(..)
            | Val::Merged(..)
            | Val::Unknown => Outcome::Unresolved,
        }
    }

    fn eval(&self, module: &str, value: &'db Value, depth: u32) -> Val<'db> {
        if depth > MAX_DEPTH {
            return Val::Unknown;
        }
        match value {
            Value::Func(name) | Value::Owned(name) => self.node(module, name),
            Value::Class(name) => match self.table(module).and_then(|table| table.class(name)) {
                Some(class) => Val::Class(ClassRef::Facts(module.to_owned(), class)),
                None => Val::Unknown,
            },
            Value::Instance(class) => match unmerge(self.eval(module, class, depth + 1)) {
                Val::Class(class) => Val::Instance(class),
                Val::Interface(interface) => Val::Typed(interface),
                Val::External => Val::External,
                _ => Val::Unknown,
            },
            Value::Interface(name) => Val::Interface(NodeId::new(module, name)),
            Value::Object(members) => Val::Object(module.to_owned(), members),
            Value::Merged(callable, members) => Val::Merged(
                Box::new(self.eval(module, callable, depth + 1)),
                module.to_owned(),
                members,
            ),
            Value::Member(object, name) => {
                let object = self.eval(module, object, depth + 1);
                self.member(object, name, depth + 1)
            }
            Value::Import { .. } | Value::Global { .. } | Value::Exports(_) => {
                self.outside(module, value, depth + 1)
            }
            Value::Returned(function) => {
                if let Mode::Env { answers, .. } = &self.mode
                    && let Ok(at) = answers.binary_search_by(|(question, _)| question.cmp(value))
                {
                    return from_resolved(&answers[at].1);
                }
                match unmerge(self.eval(module, function, depth + 1)) {
                    Val::Node(_, Some((home, name))) => {
                        match self.table(&home).and_then(|table| table.returns(&name)) {
                            Some(returned) => self.eval(&home, returned, depth + 1),
                            None => Val::Unknown,
                        }
                    }
                    _ => Val::Unknown,
                }
            }
            Value::External => Val::External,
            Value::Unknown => Val::Unknown,
        }
    }

    /// A value another file defines: answered (step 2) or read from the tree (step 1).
    fn outside(&self, module: &str, value: &'db Value, depth: u32) -> Val<'db> {
        let tree = match &self.mode {
            Mode::Env { answers, .. } => {
                return match answers.binary_search_by(|(question, _)| question.cmp(value)) {
                    Ok(at) => from_resolved(&answers[at].1),
                    Err(_) => Val::Unknown,
                };
            }
            Mode::Tree(tree) => *tree,
        };
        match value {
            Value::Import { spec, what, path } => {
                let base = match target(self.db, tree, module, spec) {
                    Target::Module(found) => match what {
                        Imported::Named(name) => self.export(&found, name, depth),
                        Imported::Namespace => Val::Module(found),
                        Imported::Require => self.required(&found, depth),
                    },
                    Target::External => Val::External,
                    Target::Missing => Val::Unknown,
                };
                self.path(base, path, depth)
            }
            Value::Global { name, path } => {
                let base = self.global(tree, name, depth);
                self.path(base, path, depth)
            }
            Value::Exports(path) => self.path(Val::Module(module.to_owned()), path, depth),
            _ => Val::Unknown,
        }
    }

    fn path(&self, mut value: Val<'db>, path: &[String], depth: u32) -> Val<'db> {
        for name in path {
            value = self.member(value, name, depth + 1);
        }
        value
    }

    fn member(&self, object: Val<'db>, name: &str, depth: u32) -> Val<'db> {
        if depth > MAX_DEPTH {
            return Val::Unknown;
        }
        match object {
            Val::Node(id, home) if name == "call" || name == "apply" => Val::Node(id, home),
            Val::Node(..) if is_function_method(name) => Val::External,
            Val::Class(class) => self.class_member(class, name, true, depth),
            Val::Instance(class) => self.class_member(class, name, false, depth),
            Val::Module(module) => self.export(&module, name, depth),
            Val::Object(module, members) => {
                for (key, value) in members.iter().rev() {
                    if key == name {
                        return self.eval(&module, value, depth + 1);
                    }
                    if key == SPREAD {
                        let spread = self.eval(&module, value, depth + 1);
                        match self.member(spread, name, depth + 1) {
                            Val::Unknown => {}
                            found => return found,
                        }
                    }
                }
                if is_object_method(name) {
                    Val::External
                } else {
                    Val::Unknown
                }
            }
            Val::Merged(callable, module, members) => {
                match members.iter().rev().find(|(key, _)| key == name) {
                    Some((_, value)) => self.eval(&module, value, depth + 1),
                    None => self.member(*callable, name, depth),
                }
            }
            Val::Typed(_) => missing_member(name, false),
            Val::External => Val::External,
            Val::Node(..) | Val::Interface(_) | Val::Unknown => Val::Unknown,
        }
    }

    /// A member of a class (`is_static`) or of its instances, looked up through its
    /// bases; a `#private` member only in the class itself.
    fn class_member(
        &self,
        class: ClassRef<'db>,
        name: &str,
        is_static: bool,
        depth: u32,
    ) -> Val<'db> {
        match self.up_chain(class, name, is_static, depth) {
            Lookup::Found(value) => value,
            Lookup::Missing => missing_member(name, is_static),
            Lookup::External => Val::External,
            Lookup::Unknown => Val::Unknown,
        }
    }

    /// The constructor `new C()` runs: the nearest `constructor` up the chain.
    fn ctor(&self, class: ClassRef<'db>) -> Ctor {
        match self.up_chain(class, "constructor", false, 0) {
            Lookup::Found(value) => match unmerge(value) {
                Val::Node(id, _) => Ctor::Node(id),
                _ => Ctor::Unknown,
            },
            Lookup::Missing => Ctor::None,
            Lookup::External => Ctor::External,
            Lookup::Unknown => Ctor::Unknown,
        }
    }

    /// The one walk up a class chain both lookups share: the nearest class (the class
    /// itself, then its bases) declaring member `name` (`is_static`). A `#private` name
    /// is looked for in the class itself only.
    fn up_chain(
        &self,
        class: ClassRef<'db>,
        name: &str,
        is_static: bool,
        depth: u32,
    ) -> Lookup<'db> {
        let mut current = class;
        for _ in 0..MAX_CHAIN {
            match current {
                ClassRef::Facts(module, facts) => {
                    let found = facts
                        .members
                        .iter()
                        .find(|member| member.name == name && member.is_static == is_static);
                    if let Some(member) = found {
                        return Lookup::Found(self.eval(&module, &member.value, depth + 1));
                    }
                    if name.starts_with('#') {
                        return Lookup::Unknown;
                    }
                    let Some(base) = &facts.extends else {
                        return Lookup::Missing;
                    };
                    match unmerge(self.eval(&module, base, depth + 1)) {
                        Val::Class(next) => current = next,
                        Val::External => return Lookup::External,
                        _ => return Lookup::Unknown,
                    }
                }
                ClassRef::View(view) => {
                    for level in &view.levels {
                        let found = level
                            .iter()
                            .find(|member| member.name == name && member.is_static == is_static);
                        if let Some(member) = found {
                            return Lookup::Found(
                                member
                                    .node
                                    .clone()
                                    .map_or(Val::Unknown, |id| Val::Node(id, None)),
                            );
                        }
                    }
                    return match view.tail {
                        Tail::End => Lookup::Missing,
                        Tail::External => Lookup::External,
                        Tail::Unknown => Lookup::Unknown,
                    };
                }
            }
        }
        Lookup::Unknown
    }

    /// The export `name` of the module at `module`.
    fn export(&self, module: &str, name: &str, depth: u32) -> Val<'db> {
        let mut seen = Vec::new();
        self.export_in(module, name, depth, &mut seen)
            .unwrap_or(Val::Unknown)
    }

    /// `None`: the module (and its `export *` sources) has no export of that name.
    fn export_in(
        &self,
        module: &str,
        name: &str,
        depth: u32,
        seen: &mut Vec<String>,
    ) -> Option<Val<'db>> {
        if depth > MAX_DEPTH || seen.iter().any(|known| known == module) {
            return None;
        }
        seen.push(module.to_owned());
        let Some(table) = self.table(module) else {
            return Some(Val::Unknown);
        };
        if let Some(value) = table.named(name) {
            return Some(self.eval(module, value, depth + 1));
        }
        if let Some(whole) = &table.whole {
            let base = self.eval(module, whole, depth + 1);
            return Some(if name == "default" {
                base
            } else {
                self.member(base, name, depth + 1)
            });
        }
        if name == "default" {
            // A CommonJS module's default import is its exports object.
            return table.commonjs.then(|| Val::Module(module.to_owned()));
        }
        let Mode::Tree(tree) = self.mode else {
            return None;
        };
        let mut external = false;
        for spec in &table.stars {
            match target(self.db, tree, module, spec) {
                Target::Module(next) => {
                    if let Some(found) = self.export_in(&next, name, depth + 1, seen) {
                        return Some(found);
                    }
                }
                Target::External => external = true,
                Target::Missing => {}
            }
        }
        external.then_some(Val::External)
    }

    /// What `require` of the module at `module` returns.
    fn required(&self, module: &str, depth: u32) -> Val<'db> {
        match self.table(module).and_then(|table| table.whole.as_ref()) {
            Some(whole) => self.eval(module, whole, depth + 1),
            None => Val::Module(module.to_owned()),
        }
    }

    /// A name bound nowhere in its file: a script's top-level declaration when exactly
    /// one script declares it, unknown when several do, else the runtime's: external.
    fn global(&self, tree: Sources, name: &str, depth: u32) -> Val<'db> {
        let index = ts_globals(self.db, tree);
        let Ok(at) = index.binary_search_by(|(known, _)| known.as_str().cmp(name)) else {
            return Val::External;
        };
        let [script] = index[at].1.as_slice() else {
            return Val::Unknown;
        };
        let value = self.table(script).and_then(|table| {
            table
                .globals
                .binary_search_by(|(known, _)| known.as_str().cmp(name))
                .ok()
                .map(|at| &table.globals[at].1)
        });
        match value {
            Some(value) => self.eval(script, value, depth + 1),
            None => Val::Unknown,
        }
    }

    /// An evaluated value as an answer another file can use without this tree.
    fn resolved(&self, value: Val<'db>) -> Resolved {
        match unmerge(value) {
            Val::Node(id, _) => Resolved::Node(id),
            Val::Class(class) => Resolved::Class(self.view(class)),
            Val::Instance(class) => Resolved::Instance(self.view(class)),
            Val::Interface(id) => Resolved::Interface(id),
            Val::Typed(id) => Resolved::Typed(id),
            Val::Module(_) | Val::Object(..) | Val::Merged(..) => Resolved::Opaque,
            Val::External => Resolved::External,
            Val::Unknown => Resolved::Unknown,
        }
    }

    /// A class and its bases as levels of members.
    fn view(&self, class: ClassRef<'db>) -> ClassView {
        let mut ids = Vec::new();
        let mut levels = Vec::new();
        let mut current = class;
        for _ in 0..MAX_CHAIN {
            match current {
                ClassRef::View(view) => {
                    ids.extend(view.ids.iter().cloned());
                    levels.extend(view.levels.iter().cloned());
                    return ClassView {
                        ids,
                        levels,
                        tail: view.tail.clone(),
                    };
                }
                ClassRef::Facts(module, facts) => {
                    ids.push(NodeId::new(&module, &facts.name));
                    let level = facts
                        .members
                        .iter()
                        .map(|member| ViewMember {
                            name: member.name.clone(),
                            is_static: member.is_static,
                            node: match unmerge(self.eval(&module, &member.value, 1)) {
                                Val::Node(id, _) => Some(id),
                                _ => None,
                            },
                        })
                        .collect();
                    levels.push(level);
                    let tail = match &facts.extends {
                        None => Tail::End,
                        Some(base) => match unmerge(self.eval(&module, base, 1)) {
                            Val::Class(next) => {
                                current = next;
                                continue;
                            }
                            Val::External => Tail::External,
                            _ => Tail::Unknown,
                        },
                    };
                    return ClassView { ids, levels, tail };
                }
            }
        }
        ClassView {
            ids,
            levels,
            tail: Tail::Unknown,
        }
    }

    /// The file's classes and interfaces as dispatch reads them: a class's lookup chain
    /// (itself, then its `extends` chain while it stays in the repository), its
    /// supertypes (its base, the types it implements) and its instance members; an
    /// interface's supertypes (the types it extends).
    fn type_decls(
        &self,
        module: &str,
        table: &'db ExportTable,
        interfaces: &'db [InterfaceFacts],
    ) -> Vec<TypeDecl> {
        let mut out = Vec::with_capacity(table.classes.len() + interfaces.len());
        for class in &table.classes {
            if !table.has_node(&class.name) {
                continue;
            }
            let lookup = self.chain_ids(ClassRef::Facts(module.to_owned(), class));
            let mut supertypes: Vec<NodeId> = lookup.iter().skip(1).take(1).cloned().collect();
            for implemented in &class.implements {
                supertypes.extend(self.type_id(module, implemented));
            }
            let mut members: Vec<Box<str>> = class
                .members
                .iter()
                .filter(|member| !member.is_static)
                .map(|member| Box::from(member.name.as_str()))
                .collect();
            members.sort_unstable();
            members.dedup();
            out.push(TypeDecl {
                id: NodeId::new(module, &class.name),
                lookup,
                supertypes,
                members,
            });
        }
        for interface in interfaces {
            out.push(TypeDecl {
                id: NodeId::new(module, &interface.name),
                lookup: Vec::new(),
                supertypes: interface
                    .extends
                    .iter()
                    .filter_map(|extended| self.type_id(module, extended))
                    .collect(),
                members: Vec::new(),
            });
        }
        out
    }

    /// The classes of a class's `extends` chain, itself first, while they are of the
    /// repository (what [`Self::view`] names, without reading members).
    fn chain_ids(&self, class: ClassRef<'db>) -> Vec<NodeId> {
        let mut ids = Vec::new();
        let mut current = class;
        for _ in 0..MAX_CHAIN {
            match current {
                ClassRef::View(view) => {
                    ids.extend(view.ids.iter().cloned());
                    break;
                }
                ClassRef::Facts(module, facts) => {
                    ids.push(NodeId::new(&module, &facts.name));
                    match facts
                        .extends
                        .as_ref()
                        .map(|base| unmerge(self.eval(&module, base, 1)))
                    {
                        Some(Val::Class(next)) => current = next,
                        _ => break,
                    }
                }
            }
        }
        ids
    }

    /// The id of the class or interface a type of an `implements` or `extends` clause
    /// names, when it is one of the repository.
    fn type_id(&self, module: &str, ty: &'db Value) -> Option<NodeId> {
        match unmerge(self.eval(module, ty, 1)) {
            Val::Class(class) => class_id(&class),
            Val::Interface(id) => Some(id),
            _ => None,
        }
    }
}

/// The id of a class being looked into.
fn class_id(class: &ClassRef<'_>) -> Option<NodeId> {
    match class {
        ClassRef::Facts(module, facts) => Some(NodeId::new(module, &facts.name)),
        ClassRef::View(view) => view.ids.first().cloned(),
    }
}

/// A merged function or class as itself (what calling or extending it reads).
fn unmerge(value: Val<'_>) -> Val<'_> {
    match value {
        Val::Merged(callable, ..) => unmerge(*callable),
        value => value,
    }
}

fn from_resolved(resolved: &Resolved) -> Val<'_> {
    match resolved {
        Resolved::Node(id) => Val::Node(id.clone(), None),
        Resolved::Class(view) => Val::Class(ClassRef::View(view)),
        Resolved::Instance(view) => Val::Instance(ClassRef::View(view)),
        Resolved::Interface(id) => Val::Interface(id.clone()),
        Resolved::Typed(id) => Val::Typed(id.clone()),
        Resolved::Opaque | Resolved::Unknown => Val::Unknown,
        Resolved::External => Val::External,
    }
}

/// A member no level declares: a builtin every object (or class) has, or unknown (a
/// property added at run time).
fn missing_member<'db>(name: &str, is_static: bool) -> Val<'db> {
    let builtin = if is_static {
        is_function_method(name) || name == "call" || name == "apply"
    } else {
        is_object_method(name)
    };
    if builtin { Val::External } else { Val::Unknown }
}
