//! Resolving one file's call sites against the tree: a demand-driven evaluation of the
//! file's value graph (its facts) and of the other files' interfaces, to the callables
//! each site may call.
//!
//! Owns: module resolution (relative imports by path; absolute imports under the roots
//! [`Eval::roots`] names; a module not in the tree is external), attribute lookup on
//! modules, classes (C3 MRO, `super()`), instances (instance attributes, methods bound to
//! `self`, static and class methods, properties), call results (returns, with the call's
//! own arguments for the callee's parameters; generators; a class call makes an
//! instance), containers (tuple/list/dict displays, indexes and stores), iteration
//! (`__iter__`/`__next__`, generators), `with … as x` (`__enter__`, or what a
//! `@contextlib.contextmanager` generator yields), decorators (a decorator from the tree is called;
//! an external one leaves the function as it is), and parameter flow inside the file (the
//! arguments of every call the file makes to its own functions, `obj.x = …` and
//! `obj[k] = …` stores, to a fixpoint) and from other files' decorator applications
//! ([`applied`]); a property read or assigned as a call of its getter or setter
//! ([`accessors`]); a `*args` tuple or a `**kwargs` dict as a builtin value whose items
//! are unknown.
//!
//! How a file is evaluated: in rounds, each of which evaluates the file's groups of sites
//! and stores in file order (a fragment's — a function defined in the module's or a
//! top-level class's body, directly or in a block there — or the skeleton's run between
//! two fragments;
//! [`replay::groups`]). A group is evaluated with caches of its own, from its sites, the
//! facts it reads, the other files' interfaces and the flow slots it reads, and adds what
//! it finds to the slots; rounds go on until one adds nothing (at most [`MAX_ROUNDS`]),
//! and the answer is the last round's. So a group's run is a function of what it read,
//! which is what lets the next resolution of the file, after an edit inside one
//! fragment, take every run the edit cannot change from this one ([`replay`]). Module
//! numbers depend on the tree only ([`Eval::module`]) for the same reason.
//! Does not own: reading facts (`facts`), what other files expose (`interface`).
//!
//! What a site gives: an edge to every callable of the tree it may call (a class to its
//! `__init__`, found through the MRO; an instance to its `__call__`). No edge and not
//! unresolved when everything it may call is external (a builtin, an import from outside
//! the tree, an attribute of either, a method of a builtin value, a base class from
//! outside the tree) or has no node (a lambda, a class without `__init__`). Unresolved
//! otherwise: keel found nothing it could prove.

mod accessors;
mod applied;
mod dispatch;
mod replay;

use super::builtins::is_builtin;
use super::facts::{
    Arg, At, Expr, ExprId, Facts, Flavor, Key, MODULE_SCOPE, Model, ParamKind, ScopeId, ScopeKind,
    Site, SiteKind, StoreTarget,
};
use super::interface::Interface;
use super::kept::{Kept, ReuseCounts};
use crate::callgraph::{Call, NodeId, UnresolvedSite};
use keel_engine::Db;
use replay::{Attempt, Group, GroupRun, Record, Replay, Slot};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;
use std::sync::Arc;

/// What one file's sites resolved to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Resolved {
    pub(crate) calls: Vec<Call>,
    pub(crate) unresolved: Vec<UnresolvedSite>,
    /// The file's classes and virtual calls, for the graph's dispatch pass ([`dispatch`]).
    pub(crate) types: Vec<crate::callgraph::dispatch::TypeDecl>,
    pub(crate) virtual_calls: Vec<crate::callgraph::dispatch::VirtualCall>,
}

/// Resolves the sites of `facts` (the file at `path`) against `files`:
/// every Python file of the tree with its interface, sorted by path. The previous
/// resolution of the same path, when kept and when the file differs from it inside one
/// fragment only, answers every group of sites the edit cannot change ([`replay`]); the
/// answer is the same either way.
pub(crate) fn resolve(db: &dyn Db, path: &str, facts: &Facts, files: &super::Program) -> Resolved {
    let kept = Kept::<Record>::of(db);
    let replay = kept
        .recall(path)
        .into_iter()
        .find_map(|record| Replay::new(record, files, facts));
    let mut eval = Eval::new(path, facts, files);
    let mut counts = ReuseCounts::default();
    let (mut resolved, rounds) = eval.run(replay, &mut counts);
    let last = rounds.last().map_or(&[][..], Vec::as_slice);
    let virtual_sites = replay::virtual_sites(facts, last);
    resolved.virtual_calls = eval.virtual_calls(&virtual_sites, &resolved);
    resolved.types = eval.type_decls();
    kept.remember(path, Record::new(files, facts, rounds));
    super::kept::count(db, |total| {
        total.groups_evaluated += counts.groups_evaluated;
        total.groups_replayed += counts.groups_replayed;
    });
    resolved
}

type Mod = u32;
/// The file being resolved is module 0.
const CURRENT: Mod = 0;
/// Value sets are cut at this size.
const MAX_VALUES: usize = 48;
/// Evaluation steps per site before the rest of its evaluation yields nothing.
const BUDGET: u32 = 20_000;
/// Nested evaluations (a value read through a value read through ...) beyond this depth
/// yield nothing: a bound on the stack, never reached by ordinary code.
const MAX_DEPTH: u32 = 160;
/// Rounds of parameter and store flow.
const MAX_ROUNDS: usize = 8;
/// Calls whose arguments stand for the callee's parameters, nested.
const MAX_CONTEXTS: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Value {
    /// A function, method or lambda.
    Func(Mod, ScopeId),
    /// A method bound to an instance (or a class method to its class): the first
    /// parameter is taken.
    Bound(Mod, ScopeId),
    /// A function behind the wrapper its decorator defined in its own body
    /// (`logged.wrapper`): calling the decorated name runs the wrapper, which calls the
    /// function with the call's arguments and returns what it returns. Values flow as
    /// through a call of the function; the call's edge is the wrapper's alone.
    Behind(Mod, ScopeId),
    /// [`Value::Behind`] bound to an instance: the first parameter is taken.
    BoundBehind(Mod, ScopeId),
    Class(Mod, ScopeId),
    Instance(Mod, ScopeId),
    Module(Mod),
    /// A tuple/list display or a comprehension, from its `skip`th element.
    Seq(Mod, ExprId, u32),
    Dict(Mod, ExprId),
    /// What calling a generator function returns.
    Gen(Mod, ScopeId),
    /// `super()` in a method of this class.
    Super(Mod, ScopeId),
    Const(Mod, ExprId),
    /// A builtin keel follows values through.
    Builtin(Builtin),
    /// What call `ExprId` of module `Mod` to a builtin returned (a lazy iterable).
    Result(Mod, ExprId, Builtin),
    /// A `*args` tuple or `**kwargs` dict a function receives: its methods are the
    /// builtin type's (external, [`Builtin::Opaque`]), its items unknown.
    Packed,
    External,
}

/// The builtins whose results or callbacks keel follows; every other builtin is
/// external.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Builtin {
    /// `map(f, xs)`: calls `f`; yields what `f` returns.
    Map,
    /// `filter(f, xs)`: calls `f`; yields the elements of `xs`.
    Filter,
    /// `sorted(xs, key=f)`, `min`, `max`: calls `key`; yields the elements of `xs`.
    Sorted,
    /// `list(xs)`, `tuple`, `set`, `frozenset`, `reversed`, `iter`: the elements of `xs`.
    Elements,
    /// `next(it)`: an element of `it`.
    Next,
    /// `getattr(obj, "name"[, default])`: runs the attribute's getter, gives its value.
    Getattr,
    /// `hasattr(obj, "name")`: runs the attribute's getter, gives a `bool`.
    Hasattr,
    /// `type(obj)`: the class of an instance.
    Type,
    /// `staticmethod(f)`, `classmethod(f)`: `f`.
    Same,
    /// A method of a `*args` tuple or a `**kwargs` dict (`kwargs.get`, `args.count`):
    /// external, and what it returns is not known (the items are the caller's).
    Opaque,
    /// `enumerate(xs)`: yields `(index, element of xs)` ([`Builtin::EnumerateItem`]).
    Enumerate,
    /// `zip(xs, ys, …)`: yields a tuple of one element of each ([`Builtin::ZipItem`]).
    Zip,
    /// A tuple `enumerate` yields (the value of the call that made the iterable).
    EnumerateItem,
    /// A tuple `zip` yields (the value of the call that made the iterable).
    ZipItem,
    /// `d.get(k[, default])`, `d.pop(…)`, `d.setdefault(…)` of a dict keel knows: its
    /// values (and the default).
    DictGet,
    /// `d.values()`: yields its values.
    DictValues,
    /// `d.items()`: yields `(key, value)` ([`Builtin::DictItem`]).
    DictItems,
    /// A pair `d.items()` yields: keys are not followed (external), values are.
    DictItem,
    /// `len(x)`, `repr(x)`, `hash(x)`…: calls the named special method of `x`'s class;
    /// gives a value of builtin type.
    Protocol(&'static str),
}

impl Builtin {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "map" => Self::Map,
            "filter" => Self::Filter,
            "sorted" | "min" | "max" => Self::Sorted,
            "list" | "tuple" | "set" | "frozenset" | "reversed" | "iter" => Self::Elements,
            "next" => Self::Next,
            "getattr" => Self::Getattr,
            "hasattr" => Self::Hasattr,
            "type" => Self::Type,
            "staticmethod" | "classmethod" => Self::Same,
            "enumerate" => Self::Enumerate,
            "zip" => Self::Zip,
            "len" => Self::Protocol("__len__"),
            "repr" => Self::Protocol("__repr__"),
            "hash" => Self::Protocol("__hash__"),
            "abs" => Self::Protocol("__abs__"),
            "format" => Self::Protocol("__format__"),
            "dir" => Self::Protocol("__dir__"),
            "round" => Self::Protocol("__round__"),
            _ => return None,
        })
    }
}

/// `value` standing behind a wrapper: a function (or method) becomes
/// [`Value::Behind`] ([`Value::BoundBehind`]); anything else is itself.
fn behind(value: Value) -> Value {
    match value {
        Value::Func(m, s) => Value::Behind(m, s),
        Value::Bound(m, s) => Value::BoundBehind(m, s),
        other => other,
    }
}

/// A value from outside the tree.
fn external(value: Value) -> bool {
    matches!(value, Value::External | Value::Builtin(_))
}

/// A set of values, shared. The empty set holds no allocation: most evaluations find
/// nothing, and each would allocate it.
#[derive(Debug, Clone, Default)]
struct Values(Option<Rc<[Value]>>);

impl std::ops::Deref for Values {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        self.0.as_deref().unwrap_or(&[])
    }
}

fn none() -> Values {
    Values(None)
}

fn one(value: Value) -> Values {
    Values(Some(Rc::from([value])))
}

/// A set of values under construction.
#[derive(Default)]
struct Set(Vec<Value>);

impl Set {
    fn add(&mut self, values: &[Value]) {
        for value in values {
            if self.0.len() >= MAX_VALUES {
                return;
            }
            if !self.0.contains(value) {
                self.0.push(*value);
            }
        }
    }

    fn done(mut self) -> Values {
        if self.0.is_empty() {
            return none();
        }
        self.0.sort_unstable();
        Values(Some(Rc::from(self.0)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Entry {
    Class(Mod, ScopeId),
    External,
}

/// A call whose arguments stand for the callee's parameters while its returns are
/// evaluated.
struct Context {
    id: u32,
    callee: (Mod, ScopeId),
    caller: Mod,
    args: Rc<[Arg]>,
    shift: u32,
    parent: Option<Rc<Context>>,
    depth: u32,
}

type Ctx = Option<Rc<Context>>;

/// Where an import leads.
enum Target {
    Module(Mod),
    External,
    Missing,
}

struct Module<'a> {
    /// A file path, or a directory ending in `/` for a namespace package.
    key: String,
    model: Option<&'a Model>,
    /// Where its submodules live (`a/b/` for `a/b/__init__.py` and namespace `a/b/`).
    package: Option<String>,
}

/// `obj.name = value` in this file: (name, value).
type AttrStore = (Box<str>, ExprId);

/// `container[key] = value` (or `append`, ...) in this file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ItemStore {
    key: Option<ExprId>,
    value: ExprId,
    scope: ScopeId,
    at: At,
    /// The stored-into object is this one container only: a later read of the same key
    /// that the store dominates sees this value, not the ones before it.
    strong: bool,
}

/// What a member lookup found.
enum Member {
    Found(Mod, ScopeId),
    External,
    Missing,
}

struct Eval<'a> {
    facts: &'a Facts,
    files: &'a [(String, Interface)],
    /// The current file at 0, the tree's file at index `i` of `files` at `i + 1` (see
    /// [`Eval::module`]); `None` until met.
    modules: Vec<Option<Module<'a>>>,
    /// Namespace folders, by number.
    folders: HashMap<Mod, Module<'a>>,
    roots: HashMap<String, Rc<[String]>>,
    /// Values evaluated without a call's arguments, and MROs, kept for the evaluation of
    /// one group (see [`Eval::evaluate_group`]).
    memo: HashMap<(Mod, ExprId), Values>,
    /// The evaluations under way, each with its depth: one met again is a cycle, cut
    /// there (it yields nothing).
    active: HashMap<(Mod, ExprId, u32), u32>,
    /// The shallowest depth a cycle was cut back to in the evaluation under way
    /// (`u32::MAX`: none). A value computed above that depth but below it is partial and
    /// is not memoized (see [`Eval::eval`]).
    cut: u32,
    mros: HashMap<(Mod, ScopeId), Rc<[Entry]>>,
    mro_active: HashSet<(Mod, ScopeId)>,
    star_active: HashSet<(Mod, Box<str>)>,
    /// Arguments the file passes to its own functions' parameters.
    params: HashMap<(ScopeId, u32), Vec<ExprId>>,
    /// `obj.name = value` in this file, on the classes `obj` may be (or be an instance
    /// of): (name, value in this file).
    attr_stores: HashMap<(Mod, ScopeId), Vec<AttrStore>>,
    /// `obj[key] = value` (and `append`, ...) in this file, on the containers `obj` may
    /// be: (key, value), both in this file.
    item_stores: HashMap<Value, Vec<ItemStore>>,
    /// Containers being read.
    reading: HashSet<Value>,
    budget: u32,
    depth: u32,
    next_context: u32,
    /// Node ids made so far, each once: of the functions sites resolve to, and of the
    /// scopes that make this file's calls.
    node_ids: HashMap<(Mod, ScopeId), NodeId>,
    /// What the group being evaluated read and tried (see [`replay`]): the chunks whose
    /// expressions it evaluated (a bit set by ordinal, with the last chunk met), whether
    /// it looked through every class, the slots it read, the entries it tried to add.
    read: Vec<u64>,
    last_chunk: usize,
    scanned: bool,
    slots: Vec<Slot>,
    slots_seen: HashSet<Slot>,
    attempts: Vec<Attempt>,
    /// What other files' decorator applications pass this file's functions
    /// ([`applied`]).
    applications: applied::Applications,
}

impl<'a> Eval<'a> {
    fn new(path: &str, facts: &'a Facts, files: &'a [(String, Interface)]) -> Self {
        let current = Module {
            key: path.to_owned(),
            model: Some(&facts.model),
            package: package_dir(path),
        };
        // The current file at 0, then a slot per file of the tree (see `module`).
        let modules = std::iter::once(Some(current))
            .chain(files.iter().map(|_| None))
            .collect();
        Self {
            facts,
            files,
            modules,
            folders: HashMap::default(),
            roots: HashMap::default(),
            memo: HashMap::default(),
            active: HashMap::default(),
            cut: u32::MAX,
            mros: HashMap::default(),
            mro_active: HashSet::default(),
            star_active: HashSet::default(),
            params: HashMap::default(),
            attr_stores: HashMap::default(),
            item_stores: HashMap::default(),
            reading: HashSet::default(),
            budget: BUDGET,
            depth: 0,
            next_context: 1,
            node_ids: HashMap::default(),
            read: Vec::new(),
            last_chunk: 0,
            scanned: false,
            slots: Vec::new(),
            slots_seen: HashSet::default(),
            attempts: Vec::new(),
            applications: applied::Applications::default(),
        }
    }

    fn model(&self, m: Mod) -> Option<&'a Model> {
        self.modules
            .get(m as usize)
            .and_then(|module| module.as_ref()?.model)
    }

    /// A module met before (files and folders are registered by [`Eval::module`] before
    /// any value names them).
    fn registered(&self, m: Mod) -> Option<&Module<'a>> {
        match self.modules.get(m as usize) {
            Some(module) => module.as_ref(),
            None => self.folders.get(&m),
        }
    }

    /// The rounds of the file's resolution, group by group, each group evaluated with
    /// caches of its own (or answered by `replay`), until a round adds no flow; the
    /// answer is the last round's outcomes.
    fn run(
        &mut self,
        mut replay: Option<Replay>,
        counts: &mut ReuseCounts,
    ) -> (Resolved, Vec<Vec<Arc<GroupRun>>>) {
        let groups = replay::groups(self.facts);
        let mut rounds: Vec<Vec<Arc<GroupRun>>> = Vec::new();
        for round in 0..MAX_ROUNDS {
            let mut changed = false;
            let mut runs = Vec::with_capacity(groups.len());
            for (index, group) in groups.iter().enumerate() {
                let reused = replay
                    .as_ref()
                    .and_then(|replay| replay.reusable(round, group, index));
                match reused.is_some() {
                    true => counts.groups_replayed += 1,
                    false => counts.groups_evaluated += 1,
                }
                let run = match reused {
                    Some(run) => {
                        for attempt in &run.attempts {
                            changed |= self.apply(attempt.clone());
                        }
                        run
                    }
                    None => {
                        let (run, added) = self.evaluate_group(group);
                        changed |= added;
                        if let Some(replay) = &mut replay {
                            replay.evaluated(round, index, &run);
                        }
                        Arc::new(run)
                    }
                };
                runs.push(run);
            }
            rounds.push(runs);
            if !changed {
                break;
            }
        }
        let resolved = self.answer(&groups, rounds.last().map_or(&[][..], Vec::as_slice));
        (resolved, rounds)
    }

    /// One group evaluated with fresh caches: its sites, then its stores, then its sites'
    /// targets. Returns the run and whether it added flow.
    fn evaluate_group(&mut self, group: &Group) -> (GroupRun, bool) {
        let facts = self.facts;
        self.memo.clear();
        self.mros.clear();
        self.applications.new_group();
        self.read = vec![0; facts.layout.chunks.len().div_ceil(64)];
        if let Some(ordinal) = group.chunk {
            self.read[ordinal / 64] |= 1 << (ordinal % 64);
        }
        self.scanned = false;
        self.slots_seen.clear();
        let mut added = false;
        let sites = &facts.sites[group.sites.clone()];
        let mut callees = Vec::with_capacity(sites.len());
        for site in sites {
            self.budget = BUDGET;
            let values = self.site_values(site.kind, site.expr);
            added |= self.record_arguments(site.kind, site.expr, &values);
            callees.push(values);
        }
        for store in &facts.stores[group.stores.clone()] {
            self.budget = BUDGET;
            added |= self.record_store(store);
        }
        let outcomes = sites
            .iter()
            .zip(&callees)
            .map(|(site, values)| {
                self.budget = BUDGET;
                self.targets(site, values)
            })
            .collect();
        let receivers = sites.iter().map(|site| self.receivers(site)).collect();
        let run = GroupRun {
            read: std::mem::take(&mut self.read),
            scanned: self.scanned,
            slots: std::mem::take(&mut self.slots),
            attempts: std::mem::take(&mut self.attempts),
            outcomes,
            receivers,
        };
        (run, added)
    }

    /// The calls and unresolved sites of the groups' outcomes.
    fn answer(&mut self, groups: &[Group], runs: &[Arc<GroupRun>]) -> Resolved {
        let facts = self.facts;
        let mut resolved = Resolved::default();
        let current = self.facts_path().to_owned();
        for (group, run) in groups.iter().zip(runs) {
            for (site, (targets, settled)) in facts.sites[group.sites.clone()]
                .iter()
                .zip(run.outcomes.iter())
            {
                // A site's owner is a node or the module: `node_id` names both, and for a
                // function node it is the id `node` makes, so the two share the cache.
                let caller = self
                    .node_ids
                    .entry((CURRENT, site.owner))
                    .or_insert_with(|| node_id(&current, facts.model.scope(site.owner)))
                    .clone();
                for target in targets {
                    resolved.calls.push(Call {
                        caller: caller.clone(),
                        callee: target.clone(),
                        line: site.line,
                    });
                }
                if targets.is_empty() && !settled && !site.kind.implicit() {
                    resolved.unresolved.push(UnresolvedSite {
                        caller,
                        line: site.line,
                        callee_text: site.text.to_string(),
                    });
                }
            }
        }
        resolved.calls.sort();
        resolved.calls.dedup();
        resolved.unresolved.sort();
        resolved.unresolved.dedup();
        resolved
    }

    /// Adds an entry to its flow slot when it is new (or weakens a strong item store that
    /// another store of the same item joins); returns whether the slot changed. Both a
    /// group's evaluation and a replayed run add through here.
    fn apply(&mut self, attempt: Attempt) -> bool {
        match attempt {
            Attempt::Arg {
                function,
                index,
                arg,
            } => {
                let slot = self.params.entry((function, index)).or_default();
                if slot.contains(&arg) {
                    return false;
                }
                slot.push(arg);
                true
            }
            Attempt::Attr { class, name, value } => {
                let slot = self.attr_stores.entry(class).or_default();
                if slot.iter().any(|(n, v)| *n == name && *v == value) {
                    return false;
                }
                slot.push((name, value));
                true
            }
            Attempt::Item { container, store } => {
                let slot = self.item_stores.entry(container).or_default();
                match slot.iter_mut().find(|known| {
                    known.key == store.key && known.value == store.value && known.at == store.at
                }) {
                    Some(known) if known.strong && !store.strong => {
                        known.strong = false;
                        true
                    }
                    Some(_) => false,
                    None => {
                        slot.push(store);
                        true
                    }
                }
            }
        }
    }

    /// Notes a flow slot read by the group being evaluated.
    fn read_slot(&mut self, slot: Slot) {
        if self.slots_seen.insert(slot.clone()) {
            self.slots.push(slot);
        }
    }

    /// Notes that the group being evaluated read expression `e` of this file: the chunk
    /// holding it, if any (the skeleton is equal across a replay).
    fn mark(&mut self, e: ExprId) {
        let chunks = &self.facts.layout.chunks;
        let hit = |ordinal: usize| chunks.get(ordinal).is_some_and(|c| c.exprs.contains(&e));
        let ordinal = if hit(self.last_chunk) {
            self.last_chunk
        } else {
            let ordinal = chunks.partition_point(|c| c.exprs.end <= e);
            if !hit(ordinal) {
                return;
            }
            self.last_chunk = ordinal;
            ordinal
        };
        if let Some(word) = self.read.get_mut(ordinal / 64) {
            *word |= 1 << (ordinal % 64);
        }
    }

    /// The values a site calls (for implicit sites: the object involved).
    fn site_values(&mut self, kind: SiteKind, expr: ExprId) -> Values {
        let model = &self.facts.model;
        match (kind, model.expr(expr)) {
            (SiteKind::Call, Expr::Call { func, .. }) => self.eval(CURRENT, *func, &None),
            (SiteKind::Decorator, Expr::Decorate { decorator, .. }) => {
                self.eval(CURRENT, *decorator, &None)
            }
            (SiteKind::Raise | SiteKind::Iterate | SiteKind::Enter, _) => {
                self.eval(CURRENT, expr, &None)
            }
            (SiteKind::Attribute | SiteKind::Assign, Expr::Attr { object, .. })
            | (SiteKind::Subscript, Expr::Subscript { object, .. }) => {
                self.eval(CURRENT, *object, &None)
            }
            _ => none(),
        }
    }

    /// The arguments of a site, as the file wrote them.
    fn site_args(&self, kind: SiteKind, expr: ExprId) -> Rc<[Arg]> {
        match (kind, self.facts.model.expr(expr)) {
            (SiteKind::Call, Expr::Call { args, .. }) => Rc::from(&args[..]),
            (SiteKind::Decorator, Expr::Decorate { inner, .. }) => Rc::from([Arg {
                keyword: None,
                value: *inner,
                splat: false,
            }]),
            _ => Rc::from([]),
        }
    }

    /// Adds the site's arguments to the parameters of this file's functions it calls.
    fn record_arguments(&mut self, kind: SiteKind, expr: ExprId, values: &[Value]) -> bool {
        if !matches!(kind, SiteKind::Call | SiteKind::Decorator) {
            return false;
        }
        let args = self.site_args(kind, expr);
        if args.is_empty() {
            return false;
        }
        let mut changed = false;
        for &value in values {
            for (m, function, shift) in self.callables(value) {
                if m != CURRENT {
                    continue;
                }
                let params = &self.facts.model.scope(function).params;
                for (index, arg) in match_args(params, &args, shift) {
                    changed |= self.attempt(Attempt::Arg {
                        function,
                        index,
                        arg,
                    });
                }
            }
        }
        changed
    }

    /// Notes an entry the group being evaluated tries to add, and adds it.
    fn attempt(&mut self, attempt: Attempt) -> bool {
        self.attempts.push(attempt.clone());
        self.apply(attempt)
    }

    /// The functions calling `value` runs, with how many parameters are taken before
    /// the arguments (1 for a bound method or a constructor).
    fn callables(&mut self, value: Value) -> Vec<(Mod, ScopeId, u32)> {
        match value {
            Value::Func(m, s) | Value::Behind(m, s) => vec![(m, s, 0)],
            Value::Bound(m, s) | Value::BoundBehind(m, s) => vec![(m, s, 1)],
            Value::Class(m, c) => self.method_functions(m, c, "__init__"),
            Value::Instance(m, c) => self.method_functions(m, c, "__call__"),
            _ => Vec::new(),
        }
    }

    /// The functions a class's MRO gives for method `name`, bound.
    fn method_functions(&mut self, m: Mod, class: ScopeId, name: &str) -> Vec<(Mod, ScopeId, u32)> {
        let Member::Found(fm, fs) = self.member(m, class, name) else {
            return Vec::new();
        };
        self.member_values(fm, fs, name)
            .iter()
            .filter_map(|value| match *value {
                Value::Func(m, s) | Value::Bound(m, s) => {
                    let shift = u32::from(self.flavor(m, s) != Flavor::Static);
                    Some((m, s, shift))
                }
                _ => None,
            })
            .collect()
    }

    fn flavor(&self, m: Mod, s: ScopeId) -> Flavor {
        self.model(m)
            .map_or(Flavor::Plain, |model| model.scope(s).flavor)
    }

    fn record_store(&mut self, store: &super::facts::Store) -> bool {
        let (object, target, value) = (store.object, &store.target, store.value);
        let objects = self.eval(CURRENT, object, &None);
        let containers = objects
            .iter()
            .filter(|v| matches!(v, Value::Seq(..) | Value::Dict(..)))
            .count();
        let strong = containers == 1 && objects.len() == 1;
        let mut changed = false;
        for &object in objects.iter() {
            match (target, object) {
                (StoreTarget::Attr(name), Value::Instance(m, c) | Value::Class(m, c)) => {
                    changed |= self.attempt(Attempt::Attr {
                        class: (m, c),
                        name: name.clone(),
                        value,
                    });
                }
                (StoreTarget::Item(key), Value::Seq(m, e, _) | Value::Dict(m, e)) => {
                    let container = match object {
                        Value::Seq(..) => Value::Seq(m, e, 0),
                        _ => object,
                    };
                    changed |= self.attempt(Attempt::Item {
                        container,
                        store: ItemStore {
                            key: *key,
                            value,
                            scope: store.scope,
                            at: store.at,
                            strong,
                        },
                    });
                }
                _ => {}
            }
        }
        changed
    }

    /// The nodes a site calls, and whether it is settled without them (external, or
    /// resolved to something with no node).
    fn targets(&mut self, site: &Site, values: &[Value]) -> (Vec<NodeId>, bool) {
        let kind = site.kind;
        let mut targets = Vec::new();
        let mut settled = false;
        for &value in values {
            if let (SiteKind::Call, Value::Builtin(builtin)) = (kind, value) {
                self.callback_targets(site.expr, builtin, &mut targets);
            }
            match (kind, value) {
                // A method of a class defined under `if TYPE_CHECKING:` never runs (the
                // value is something else at runtime, outside keel's view).
                (SiteKind::Call | SiteKind::Decorator, Value::Func(m, s) | Value::Bound(m, s))
                    if self.in_type_only_class(m, s) =>
                {
                    settled = true;
                }
                // The wrapper in front of it is the call's target.
                (
                    SiteKind::Call | SiteKind::Decorator,
                    Value::Behind(..) | Value::BoundBehind(..),
                ) => {
                    settled = true;
                }
                (SiteKind::Call | SiteKind::Decorator, Value::Func(m, s) | Value::Bound(m, s)) => {
                    match self.node(m, s) {
                        Some(id) => targets.push(id),
                        // A lambda has no node; a function a partial parse left out has
                        // none either, and the call stays unresolved.
                        None => settled |= self.is_lambda(m, s),
                    }
                }
                (SiteKind::Call | SiteKind::Decorator | SiteKind::Raise, Value::Class(m, c)) => {
                    settled |= self.method_targets(m, c, "__init__", &mut targets);
                }
                (SiteKind::Call | SiteKind::Decorator, Value::Instance(m, c)) => {
                    settled |= self.method_targets(m, c, "__call__", &mut targets);
                }
                (SiteKind::Iterate, Value::Instance(m, c)) => {
                    settled |= self.iteration_targets(m, c, &mut targets);
                }
                (SiteKind::Iterate, Value::Gen(..)) => self.next_targets(value, &mut targets),
                // A generator function made a context manager (`@contextlib.contextmanager`)
                // decorates and enters through the standard library (`ContextDecorator`,
                // `_GeneratorContextManager.__enter__`), which runs the generator the
                // call made: the call's own edge.
                (SiteKind::Decorator | SiteKind::Enter, Value::Gen(..)) => settled = true,
                (SiteKind::Subscript, Value::Instance(m, c)) => {
                    self.method_targets(m, c, "__getitem__", &mut targets);
                }
                (SiteKind::Subscript, Value::Class(m, c)) => {
                    self.method_targets(m, c, "__class_getitem__", &mut targets);
                }
                (SiteKind::Enter, Value::Instance(m, c)) => {
                    settled |= self.method_targets(m, c, "__enter__", &mut targets);
                    settled |= self.method_targets(m, c, "__exit__", &mut targets);
                }
                (_, value) if external(value) => settled = true,
                _ => {}
            }
        }
        self.accessor_targets(site, values, &mut targets);
        targets.sort();
        targets.dedup();
        (targets, settled)
    }

    /// Pushes what iterating an instance of a class runs: its `__iter__`, and what taking
    /// an element of the iterator that returns runs ([`Eval::next_targets`]); returns
    /// whether the lookup settled without a node.
    fn iteration_targets(&mut self, m: Mod, class: ScopeId, out: &mut Vec<NodeId>) -> bool {
        let settled = self.method_targets(m, class, "__iter__", out);
        let iterators = self.invoke_method(m, class, "__iter__");
        for &iterator in iterators.iter() {
            self.next_targets(iterator, out);
        }
        settled
    }

    /// Pushes what taking the next element of iterator `value` runs: the `__next__` of
    /// an instance's class, or the body of a generator. A generator's code first runs
    /// when its consumer asks for an element (making it runs nothing), so the runtime
    /// sees the consumer call it: `next(gen)`, `for x in gen`, `list(gen)`, and a class
    /// whose `__iter__` returns `self.generate()` iterated.
    fn next_targets(&mut self, value: Value, out: &mut Vec<NodeId>) {
        match value {
            Value::Instance(m, c) => {
                self.method_targets(m, c, "__next__", out);
            }
            Value::Gen(m, s) => out.extend(self.node(m, s)),
            _ => {}
        }
    }

    /// The callbacks a builtin call makes (`map(f, xs)`, `sorted(xs, key=f)`), the
    /// accessors `getattr` and `hasattr` run, and the
    /// special methods it runs on the instances it is given (`len(x)`: `__len__`;
    /// `list(x)`, `sorted(x)`, `enumerate(x)`…: `__iter__` and the iterator's `__next__`;
    /// `next(it)`: `__next__`): edges from the caller, which passes them.
    fn callback_targets(&mut self, call: ExprId, builtin: Builtin, out: &mut Vec<NodeId>) {
        let Expr::Call { args, .. } = self.facts.model.expr(call) else {
            return;
        };
        if matches!(builtin, Builtin::Getattr | Builtin::Hasattr) {
            self.getattr_targets(args, out);
            return;
        }
        self.protocol_targets(args, builtin, out);
        // `map` and `filter` take the function first; keel reads every positional
        // argument, and only callables give edges.
        let callbacks: Vec<ExprId> = match builtin {
            Builtin::Map | Builtin::Filter => args
                .iter()
                .filter(|a| a.keyword.is_none() && !a.splat)
                .map(|a| a.value)
                .collect(),
            Builtin::Sorted => args
                .iter()
                .filter(|a| a.keyword.as_deref() == Some("key"))
                .map(|a| a.value)
                .collect(),
            _ => Vec::new(),
        };
        let mut values = Set::default();
        for callback in callbacks {
            let found = self.eval(CURRENT, callback, &None);
            values.add(&found);
        }
        for &value in values.done().iter() {
            match value {
                Value::Func(m, s) | Value::Bound(m, s) => out.extend(self.node(m, s)),
                Value::Class(m, c) => {
                    self.method_targets(m, c, "__init__", out);
                }
                _ => {}
            }
        }
    }

    /// The special methods builtin call `builtin` with arguments `args` runs on the
    /// instances among its positional arguments (after `map`'s and `filter`'s function).
    fn protocol_targets(&mut self, args: &[Arg], builtin: Builtin, out: &mut Vec<NodeId>) {
        let skip = match builtin {
            Builtin::Map | Builtin::Filter => 1,
            Builtin::Sorted
            | Builtin::Elements
            | Builtin::Enumerate
            | Builtin::Zip
            | Builtin::Next
            | Builtin::Protocol(_) => 0,
            _ => return,
        };
        let positional: Vec<ExprId> = args
            .iter()
            .filter(|a| a.keyword.is_none() && !a.splat)
            .skip(skip)
            .map(|a| a.value)
            .collect();
        for argument in positional {
            let values = self.eval(CURRENT, argument, &None);
            for &value in values.iter() {
                match (builtin, value) {
                    (Builtin::Protocol(name), Value::Instance(m, c)) => {
                        self.method_targets(m, c, name, out);
                    }
                    (Builtin::Protocol(_), _) => {}
                    (Builtin::Next, Value::Result(rm, call, Builtin::Elements)) => {
                        self.iterator_targets(rm, call, out);
                    }
                    (Builtin::Next, _) => self.next_targets(value, out),
                    (_, Value::Instance(m, c)) => {
                        self.iteration_targets(m, c, out);
                    }
                    (_, Value::Gen(..)) => self.next_targets(value, out),
                    _ => {}
                }
            }
        }
    }

    /// Pushes what taking an element of `iter(xs)` (`call`, of module `m`; or `list(xs)`…,
    /// which `next` refuses at runtime) runs: iterating the instances and generators
    /// among `xs`'s values (`next(iter(self))`).
    fn iterator_targets(&mut self, m: Mod, call: ExprId, out: &mut Vec<NodeId>) {
        let Some(&iterable) = self.positional_args(m, call).first() else {
            return;
        };
        let values = self.eval(m, iterable, &None);
        for &value in values.iter() {
            match value {
                Value::Instance(im, ic) => {
                    self.iteration_targets(im, ic, out);
                }
                _ => self.next_targets(value, out),
            }
        }
    }

    /// Pushes the nodes of method `name` of a class; returns whether the lookup settled
    /// without a node (external, or no such method: a class without `__init__`).
    fn method_targets(
        &mut self,
        m: Mod,
        class: ScopeId,
        name: &str,
        out: &mut Vec<NodeId>,
    ) -> bool {
        match self.member(m, class, name) {
            Member::Found(..) => {
                let before = out.len();
                for (fm, fs, _) in self.method_functions(m, class, name) {
                    if let Some(id) = self.node(fm, fs) {
                        out.push(id);
                    }
                }
                out.len() == before
            }
            Member::External | Member::Missing => true,
        }
    }

    /// Calls method `name` on an instance of the class, without arguments.
    fn invoke_method(&mut self, m: Mod, class: ScopeId, name: &str) -> Values {
        let mut out = Set::default();
        for (fm, fs, shift) in self.method_functions(m, class, name) {
            let result = self.invoke(fm, fs, shift, CURRENT, Rc::from([]), &None);
            out.add(&result);
        }
        out.done()
    }

    fn is_lambda(&self, m: Mod, s: ScopeId) -> bool {
        self.model(m)
            .is_some_and(|model| model.scope(s).kind == ScopeKind::Lambda)
    }

    /// The node of a function scope, if it is one (each made once).
    fn node(&mut self, m: Mod, s: ScopeId) -> Option<NodeId> {
        let scope = self.model(m)?.scope(s);
        if !(scope.node && scope.kind == ScopeKind::Function) {
            return None;
        }
        if let Some(node) = self.node_ids.get(&(m, s)) {
            return Some(node.clone());
        }
        let node = NodeId::new(&self.registered(m)?.key, &scope.name);
        self.node_ids.insert((m, s), node.clone());
        Some(node)
    }

    // --- evaluation ---

    fn eval(&mut self, m: Mod, e: ExprId, ctx: &Ctx) -> Values {
        if ctx.is_none()
            && let Some(values) = self.memo.get(&(m, e))
        {
            return values.clone();
        }
        if self.budget == 0 || self.depth >= MAX_DEPTH {
            return none();
        }
        self.budget -= 1;
        let key = (m, e, ctx.as_ref().map_or(0, |c| c.id));
        if let Some(&at) = self.active.get(&key) {
            self.cut = self.cut.min(at);
            return none();
        }
        let depth = self.depth;
        self.active.insert(key, depth);
        let outer = std::mem::replace(&mut self.cut, u32::MAX);
        self.depth += 1;
        let values = self.eval_inner(m, e, ctx);
        self.depth -= 1;
        self.active.remove(&key);
        // A cycle cut back to this evaluation or below it is closed here; one cut back to
        // an evaluation still under way above it left this value partial: memoized, it
        // would answer later reads (another site's) with the part.
        let partial = self.cut < depth;
        if ctx.is_none() && !partial {
            self.memo.insert((m, e), values.clone());
        }
        self.cut = if partial { outer.min(self.cut) } else { outer };
        values
    }

    fn eval_inner(&mut self, m: Mod, e: ExprId, ctx: &Ctx) -> Values {
        if m == CURRENT {
            self.mark(e);
        }
        let Some(model) = self.model(m) else {
            return none();
        };
        match model.expr(e) {
            Expr::Name { scope, name, at } => self.name(m, *scope, name, *at, ctx),
            Expr::Param { scope, index } => self.param(m, *scope, *index, ctx),
            Expr::Attr { object, name } => {
                let objects = self.eval(m, *object, ctx);
                let mut out = Set::default();
                for &object in objects.iter() {
                    let values = self.attribute(object, name);
                    out.add(&values);
                }
                out.done()
            }
            Expr::Call { func, args } => {
                let funcs = self.eval(m, *func, ctx);
                let args: Rc<[Arg]> = Rc::from(&args[..]);
                let mut out = Set::default();
                for &func in funcs.iter() {
                    let values = match func {
                        Value::Builtin(builtin) => self.builtin_result(builtin, m, e, ctx),
                        _ => self.call_result(func, m, args.clone(), ctx),
                    };
                    out.add(&values);
                }
                out.done()
            }
            Expr::Subscript {
                object,
                index,
                read,
            } => {
                let objects = self.eval(m, *object, ctx);
                let keys = index.map(|index| self.keys(m, index, ctx));
                let read = read.filter(|_| m == CURRENT);
                let mut out = Set::default();
                for &object in objects.iter() {
                    let values = self.item(object, keys.as_deref(), read);
                    out.add(&values);
                }
                out.done()
            }
            Expr::Seq(_) | Expr::Comprehension { .. } => one(Value::Seq(m, e, 0)),
            Expr::Dict(_) => one(Value::Dict(m, e)),
            Expr::Starred(inner) => self.eval(m, *inner, ctx),
            Expr::Def(s) => match model.scope(*s).kind {
                ScopeKind::Class => one(Value::Class(m, *s)),
                _ => one(Value::Func(m, *s)),
            },
            Expr::Decorate { decorator, inner } => self.decorate(m, *decorator, *inner, ctx),
            Expr::Module { level, dotted } => match self.import(m, *level, dotted) {
                Target::Module(k) => one(Value::Module(k)),
                Target::External => one(Value::External),
                Target::Missing => none(),
            },
            Expr::ImportFrom {
                level,
                module,
                name,
            } => match self.import(m, *level, module) {
                Target::Module(k) => self.module_attr(k, name),
                Target::External => one(Value::External),
                Target::Missing => none(),
            },
            Expr::Iter(inner) => {
                let iterables = self.eval(m, *inner, ctx);
                let mut out = Set::default();
                for &iterable in iterables.iter() {
                    let values = self.iterate(iterable);
                    out.add(&values);
                }
                out.done()
            }
            Expr::Enter(inner) => {
                let managers = self.eval(m, *inner, ctx);
                let mut out = Set::default();
                for &manager in managers.iter() {
                    match manager {
                        Value::Instance(im, ic) => {
                            let values = self.invoke_method(im, ic, "__enter__");
                            out.add(&values);
                        }
                        // A generator function made a context manager
                        // (`@contextlib.contextmanager`): `as` binds what it yields.
                        Value::Gen(..) => {
                            let values = self.iterate(manager);
                            out.add(&values);
                        }
                        Value::External => out.add(&[Value::External]),
                        _ => {}
                    }
                }
                out.done()
            }
            Expr::Super { function } => match model.scope(*function).parent {
                Some(class) if model.scope(class).kind == ScopeKind::Class => {
                    one(Value::Super(m, class))
                }
                _ => none(),
            },
            Expr::SuperOf(class) => {
                let classes = self.eval(m, *class, ctx);
                let supers: Vec<Value> = classes
                    .iter()
                    .filter_map(|value| match *value {
                        Value::Class(cm, cs) => Some(Value::Super(cm, cs)),
                        _ => None,
                    })
                    .collect();
                Values(Some(Rc::from(supers)))
            }
            Expr::Typed(class) => {
                if type_variable(model, *class) {
                    // `x: T`: any class; what is passed decides.
                    return none();
                }
                let classes = self.eval(m, *class, ctx);
                let imported = imported_name(model, *class);
                let mut out = Set::default();
                for &class in classes.iter() {
                    match class {
                        Value::Class(cm, cs) => out.add(&[Value::Instance(cm, cs)]),
                        // A class from outside the tree; not an alias the tree spells
                        // (`Handler = Callable[...]`), which says nothing of a class.
                        value if external(value) && imported => out.add(&[Value::External]),
                        _ => {}
                    }
                }
                out.done()
            }
            Expr::Union(items) => {
                let mut out = Set::default();
                for &item in items.iter() {
                    let values = self.eval(m, item, ctx);
                    out.add(&values);
                }
                out.done()
            }
            Expr::Const(_) => one(Value::Const(m, e)),
            Expr::Builtin => one(Value::External),
            Expr::Unknown => none(),
        }
    }

    /// The context to keep for reading a name of `scope`: only while it is the
    /// context's callee or inside it.
    fn context_for(&self, m: Mod, scope: ScopeId, ctx: &Ctx) -> Ctx {
        let context = ctx.as_ref()?;
        if context.callee.0 != m {
            return None;
        }
        let model = self.model(m)?;
        let mut s = Some(scope);
        while let Some(id) = s {
            if id == context.callee.1 {
                return ctx.clone();
            }
            s = model.scope(id).parent;
        }
        None
    }

    fn name(
        &mut self,
        m: Mod,
        scope: ScopeId,
        name: &str,
        at: Option<super::facts::At>,
        ctx: &Ctx,
    ) -> Values {
        let Some(model) = self.model(m) else {
            return none();
        };
        let bindings = model.scope(scope).bindings_of(name);
        if bindings.is_empty() {
            return if scope == MODULE_SCOPE {
                self.unbound_global(m, name)
            } else {
                none()
            };
        }
        let ctx = self.context_for(m, scope, ctx);
        let mut out = Set::default();
        for value in model.reaching_among(scope, bindings, at) {
            let values = self.eval(m, value, &ctx);
            out.add(&values);
        }
        out.done()
    }

    /// A module-level name the module does not bind: a star import's, a builtin, or
    /// external when a star import from outside the tree may bind it.
    fn unbound_global(&mut self, m: Mod, name: &str) -> Values {
        let found = self.star_lookup(m, name);
        if !found.is_empty() {
            return found;
        }
        if is_builtin(name) {
            return one(Builtin::of(name).map_or(Value::External, Value::Builtin));
        }
        none()
    }

    /// A name through the star imports of module `m`.
    fn star_lookup(&mut self, m: Mod, name: &str) -> Values {
        let Some(model) = self.model(m) else {
            return none();
        };
        if model.stars.is_empty() {
            return none();
        }
        if !self.star_active.insert((m, name.into())) {
            return none();
        }
        let mut external = false;
        let mut result = none();
        for (level, module) in &model.stars {
            match self.import(m, *level, module) {
                Target::Module(k) => {
                    if !self.exports(k, name) {
                        continue;
                    }
                    let values = self.module_attr(k, name);
                    if !values.is_empty() {
                        result = values;
                        break;
                    }
                }
                Target::External => external = true,
                Target::Missing => {}
            }
        }
        self.star_active.remove(&(m, name.into()));
        if result.is_empty() && external {
            return one(Value::External);
        }
        result
    }

    /// Whether `from k import *` brings `name`: `__all__` when spelled, otherwise every
    /// name not starting with `_`.
    fn exports(&self, k: Mod, name: &str) -> bool {
        match self.model(k).and_then(|model| model.all.as_ref()) {
            Some(all) => all.iter().any(|n| &**n == name),
            None => !name.starts_with('_'),
        }
    }

    fn param(&mut self, m: Mod, s: ScopeId, index: u32, ctx: &Ctx) -> Values {
        let Some(model) = self.model(m) else {
            return none();
        };
        let scope = model.scope(s);
        if packed(scope, index) {
            return one(Value::Packed);
        }
        // A method's first parameter: the instance, or the class of a class method.
        let class = scope
            .parent
            .filter(|_| index == 0 && scope.kind == ScopeKind::Function)
            .filter(|&p| model.scope(p).kind == ScopeKind::Class);
        if let Some(class) = class {
            match scope.flavor {
                Flavor::Plain | Flavor::Property | Flavor::Setter | Flavor::Deleter => {
                    return one(Value::Instance(m, class));
                }
                Flavor::ClassMethod => return one(Value::Class(m, class)),
                Flavor::Static => {}
            }
        }
        if let Some(context) = ctx.as_ref().filter(|c| c.callee == (m, s)) {
            let args = context.args.clone();
            let caller = context.caller;
            let parent = context.parent.clone();
            let mut out = Set::default();
            for (i, arg) in match_args(&scope.params, &args, context.shift) {
                if i == index {
                    let values = self.eval(caller, arg, &parent);
                    out.add(&values);
                }
            }
            return out.done();
        }
        if m != CURRENT {
            return none();
        }
        self.read_slot(Slot::Param(s, index));
        let args = self.params.get(&(s, index)).cloned().unwrap_or_default();
        let mut out = Set::default();
        for arg in args {
            let values = self.eval(CURRENT, arg, &None);
            out.add(&values);
        }
        let applied = self.applied_elsewhere(s, index);
        out.add(&applied);
        out.done()
    }

    fn attribute(&mut self, object: Value, name: &str) -> Values {
        match object {
            Value::Module(k) => self.module_attr(k, name),
            Value::Class(m, c) => self.class_attr(m, c, name),
            Value::Instance(m, c) => self.instance_attr(m, c, name),
            Value::Super(m, c) => self.super_attr(m, c, name),
            Value::External
            | Value::Builtin(_)
            | Value::Result(..)
            | Value::Func(..)
            | Value::Bound(..)
            | Value::Behind(..)
            | Value::BoundBehind(..)
            | Value::Seq(..)
            | Value::Const(..)
            | Value::Gen(..) => one(Value::External),
            Value::Dict(..) => one(match name {
                "get" | "pop" | "setdefault" => Value::Builtin(Builtin::DictGet),
                "values" => Value::Builtin(Builtin::DictValues),
                "items" => Value::Builtin(Builtin::DictItems),
                _ => Value::External,
            }),
            Value::Packed => one(Value::Builtin(Builtin::Opaque)),
        }
    }

    /// `module.name`: its binding at the end of the module, else its submodule, else a
    /// star import's.
    fn module_attr(&mut self, k: Mod, name: &str) -> Values {
        let binds = self
            .model(k)
            .is_some_and(|model| !model.scope(MODULE_SCOPE).bindings_of(name).is_empty());
        if binds {
            let values = self.name(k, MODULE_SCOPE, name, None, &None);
            if !values.is_empty() {
                return values;
            }
        }
        if let Some(sub) = self.submodule(k, name) {
            return one(Value::Module(sub));
        }
        let starred = self.star_lookup(k, name);
        if !starred.is_empty() {
            return starred;
        }
        if matches!(
            name,
            "__name__"
                | "__file__"
                | "__doc__"
                | "__dict__"
                | "__path__"
                | "__spec__"
                | "__loader__"
                | "__package__"
                | "__all__"
                | "__builtins__"
        ) {
            return one(Value::External);
        }
        none()
    }

    fn submodule(&mut self, k: Mod, name: &str) -> Option<Mod> {
        let package = self.registered(k)?.package.clone()?;
        match self.find_path(&package, name) {
            Target::Module(sub) => Some(sub),
            Target::External | Target::Missing => None,
        }
    }

    /// The C3 linearization of a class (left-to-right depth-first when C3 fails), with
    /// external bases as one `External` entry.
    fn mro(&mut self, m: Mod, class: ScopeId) -> Rc<[Entry]> {
        if let Some(mro) = self.mros.get(&(m, class)) {
            return mro.clone();
        }
        if !self.mro_active.insert((m, class)) {
            return Rc::from([Entry::Class(m, class)]);
        }
        let Some(model) = self.model(m) else {
            return Rc::from([]);
        };
        let mut bases: Vec<Entry> = Vec::new();
        for &base in &model.scope(class).bases {
            let values = self.eval(m, base, &None);
            if values.iter().all(|&v| external(v)) && provides_nothing(model, base) {
                continue;
            }
            for value in values.iter() {
                let entry = match *value {
                    Value::Class(bm, bc) => Entry::Class(bm, bc),
                    Value::External => Entry::External,
                    _ => continue,
                };
                if !bases.contains(&entry) {
                    bases.push(entry);
                }
            }
        }
        let mut sequences: Vec<Vec<Entry>> = Vec::new();
        for base in &bases {
            match *base {
                Entry::Class(bm, bc) => sequences.push(self.mro(bm, bc).to_vec()),
                Entry::External => sequences.push(vec![Entry::External]),
            }
        }
        sequences.push(bases.clone());
        let mut mro = vec![Entry::Class(m, class)];
        match c3(sequences.clone()) {
            Some(merged) => mro.extend(merged),
            None => {
                for entry in sequences.into_iter().flatten() {
                    if !mro.contains(&entry) {
                        mro.push(entry);
                    }
                }
            }
        }
        self.mro_active.remove(&(m, class));
        let mro: Rc<[Entry]> = Rc::from(mro);
        self.mros.insert((m, class), mro.clone());
        mro
    }

    /// The first class of the MRO that defines `name` in its body.
    fn member(&mut self, m: Mod, class: ScopeId, name: &str) -> Member {
        self.member_after(m, class, name, None)
    }

    fn member_after(
        &mut self,
        m: Mod,
        class: ScopeId,
        name: &str,
        after: Option<(Mod, ScopeId)>,
    ) -> Member {
        let mro = self.mro(m, class);
        let mut skipping = after.is_some();
        for entry in mro.iter() {
            match *entry {
                Entry::Class(cm, cs) => {
                    if skipping {
                        skipping = after != Some((cm, cs));
                        continue;
                    }
                    let defines = self
                        .model(cm)
                        .is_some_and(|model| !model.scope(cs).bindings_of(name).is_empty());
                    if defines {
                        return Member::Found(cm, cs);
                    }
                }
                Entry::External => {
                    if !skipping {
                        return Member::External;
                    }
                }
            }
        }
        if is_object_attribute(name) {
            return Member::External;
        }
        Member::Missing
    }

    /// The values of member `name` of class `cs` (its bindings at the end of the body).
    fn member_values(&mut self, cm: Mod, cs: ScopeId, name: &str) -> Values {
        self.name(cm, cs, name, None, &None)
    }

    /// `Class.name`: functions stay unbound, class methods bind to the class.
    fn class_attr(&mut self, m: Mod, class: ScopeId, name: &str) -> Values {
        let mut out = Set::default();
        match self.member(m, class, name) {
            Member::Found(cm, cs) => {
                let values = self.member_values(cm, cs, name);
                for &value in values.iter() {
                    match value {
                        Value::Func(fm, fs) if self.flavor(fm, fs) == Flavor::ClassMethod => {
                            out.add(&[Value::Bound(fm, fs)]);
                        }
                        other => out.add(&[other]),
                    }
                }
            }
            Member::External => out.add(&[Value::External]),
            Member::Missing => {
                let stored = self.stored_attrs(m, class, name);
                out.add(&stored);
            }
        }
        out.done()
    }

    /// `instance.name`: instance attributes (`self.name = …` in any class of the MRO, and
    /// stores on instances in this file), then the class's member bound to the instance.
    /// When neither has it, a subclass in this file that does (a base calling what its
    /// subclasses provide).
    fn instance_attr(&mut self, m: Mod, class: ScopeId, name: &str) -> Values {
        // `obj.__class__` is the class it is an instance of (`self.__class__(…)` makes
        // another).
        if name == "__class__" {
            return one(Value::Class(m, class));
        }
        let mut out = Set::default();
        let stored = self.stored_attrs(m, class, name);
        out.add(&stored);
        match self.member(m, class, name) {
            Member::Found(cm, cs) => {
                let values = self.member_values(cm, cs, name);
                let bound = self.bind_values(&values);
                out.add(&bound);
            }
            Member::External => out.add(&[Value::External]),
            Member::Missing => {
                if out.0.is_empty() {
                    let values = self.subclass_attr(m, class, name);
                    out.add(&values);
                }
                if self.reaches_getattr(m, class, name) {
                    let values = self.invoke_method(m, class, "__getattr__");
                    out.add(&values);
                }
            }
        }
        out.done()
    }

    /// Member values as an instance sees them: methods bound, properties read.
    fn bind_values(&mut self, values: &[Value]) -> Values {
        let mut out = Set::default();
        for &value in values {
            match value {
                Value::Func(fm, fs) => match self.flavor(fm, fs) {
                    Flavor::Static => out.add(&[value]),
                    Flavor::Property => {
                        let result = self.invoke(fm, fs, 1, CURRENT, Rc::from([]), &None);
                        out.add(&result);
                    }
                    // The name's last accessor is its setter or deleter: read, it runs
                    // the getter beside it.
                    Flavor::Setter | Flavor::Deleter => {
                        for getter in self.getters_beside(fm, fs) {
                            let result = self.invoke(fm, getter, 1, CURRENT, Rc::from([]), &None);
                            out.add(&result);
                        }
                    }
                    Flavor::Plain | Flavor::ClassMethod => out.add(&[Value::Bound(fm, fs)]),
                },
                Value::Behind(fm, fs) if self.flavor(fm, fs) != Flavor::Static => {
                    out.add(&[Value::BoundBehind(fm, fs)]);
                }
                other => out.add(&[other]),
            }
        }
        out.done()
    }

    /// Instance attributes of the classes of the MRO.
    fn stored_attrs(&mut self, m: Mod, class: ScopeId, name: &str) -> Values {
        let mro = self.mro(m, class);
        let mut out = Set::default();
        for entry in mro.iter() {
            let Entry::Class(cm, cs) = *entry else {
                continue;
            };
            if let Some(model) = self.model(cm) {
                let stores: Vec<ExprId> = model
                    .scope(cs)
                    .self_stores
                    .iter()
                    .filter(|(n, _)| &**n == name)
                    .map(|(_, e)| *e)
                    .collect();
                for e in stores {
                    let values = self.eval(cm, e, &None);
                    out.add(&values);
                }
            }
            self.read_slot(Slot::Attr(cm, cs));
            let stores: Vec<ExprId> = self
                .attr_stores
                .get(&(cm, cs))
                .map(|stores| {
                    stores
                        .iter()
                        .filter(|(n, _)| &**n == name)
                        .map(|(_, e)| *e)
                        .collect()
                })
                .unwrap_or_default();
            for e in stores {
                let values = self.eval(CURRENT, e, &None);
                out.add(&values);
            }
        }
        out.done()
    }

    /// Member or instance attribute `name` of the classes of this file that derive from
    /// the class.
    fn subclass_attr(&mut self, m: Mod, class: ScopeId, name: &str) -> Values {
        // Every class of the file is looked at, those of every chunk.
        self.scanned = true;
        let mut out = Set::default();
        let count = self.facts.model.scopes.len();
        for index in 0..count {
            let s = index as ScopeId;
            if self.facts.model.scope(s).kind != ScopeKind::Class || (m, class) == (CURRENT, s) {
                continue;
            }
            let mro = self.mro(CURRENT, s);
            if !mro.contains(&Entry::Class(m, class)) {
                continue;
            }
            let stored = self.stored_attrs(CURRENT, s, name);
            out.add(&stored);
            if let Member::Found(cm, cs) = self.member(CURRENT, s, name) {
                let values = self.member_values(cm, cs, name);
                let bound = self.bind_values(&values);
                out.add(&bound);
            }
        }
        out.done()
    }

    /// `super().name` in a method of `class`: the MRO after it, bound.
    fn super_attr(&mut self, m: Mod, class: ScopeId, name: &str) -> Values {
        match self.member_after(m, class, name, Some((m, class))) {
            Member::Found(cm, cs) => {
                let values = self.member_values(cm, cs, name);
                self.bind_values(&values)
            }
            Member::External => one(Value::External),
            Member::Missing => none(),
        }
    }

    /// What calling `func` with `args` (written in module `caller`) returns.
    fn call_result(&mut self, func: Value, caller: Mod, args: Rc<[Arg]>, ctx: &Ctx) -> Values {
        match func {
            Value::Func(m, s) | Value::Behind(m, s) => self.invoke(m, s, 0, caller, args, ctx),
            Value::Bound(m, s) | Value::BoundBehind(m, s) => {
                self.invoke(m, s, 1, caller, args, ctx)
            }
            Value::Class(m, c) => one(Value::Instance(m, c)),
            Value::Instance(m, c) => {
                let mut out = Set::default();
                for (fm, fs, shift) in self.method_functions(m, c, "__call__") {
                    let values = self.invoke(fm, fs, shift, caller, args.clone(), ctx);
                    out.add(&values);
                }
                out.done()
            }
            Value::External | Value::Builtin(_) => one(Value::External),
            _ => none(),
        }
    }

    /// What call `call` (an `Expr::Call` of module `m`) to a builtin keel follows gives.
    fn builtin_result(&mut self, builtin: Builtin, m: Mod, call: ExprId, ctx: &Ctx) -> Values {
        let positional = self.positional_args(m, call);
        match builtin {
            Builtin::Map
            | Builtin::Filter
            | Builtin::Sorted
            | Builtin::Elements
            | Builtin::Enumerate
            | Builtin::Zip
            | Builtin::DictValues
            | Builtin::DictItems => one(Value::Result(m, call, builtin)),
            Builtin::DictGet => {
                let mut out = self.dict_values_of(m, call, ctx);
                if let Some(&default) = positional.get(1) {
                    let values = self.eval(m, default, ctx);
                    out.add(&values);
                }
                out.done()
            }
            Builtin::Next => {
                let Some(&iterable) = positional.first() else {
                    return one(Value::External);
                };
                let iterables = self.eval(m, iterable, ctx);
                let mut out = Set::default();
                for &iterable in iterables.iter() {
                    let values = self.iterate(iterable);
                    out.add(&values);
                }
                out.done()
            }
            Builtin::Getattr => {
                let [object, name, rest @ ..] = positional.as_slice() else {
                    return one(Value::External);
                };
                let names = self.keys(m, *name, ctx);
                let objects = self.eval(m, *object, ctx);
                let mut out = Set::default();
                for key in &names {
                    let Some(Key::Str(name)) = key else {
                        return one(Value::External);
                    };
                    for &object in objects.iter() {
                        let values = self.attribute(object, name);
                        out.add(&values);
                    }
                }
                if let Some(&default) = rest.first() {
                    let values = self.eval(m, default, ctx);
                    out.add(&values);
                }
                out.done()
            }
            Builtin::Type => {
                let Some(&object) = positional.first().filter(|_| positional.len() == 1) else {
                    return one(Value::External);
                };
                let objects = self.eval(m, object, ctx);
                let mut out = Set::default();
                for &object in objects.iter() {
                    match object {
                        Value::Instance(im, ic) => out.add(&[Value::Class(im, ic)]),
                        _ => out.add(&[Value::External]),
                    }
                }
                out.done()
            }
            Builtin::Same => match positional.first() {
                Some(&inner) => self.eval(m, inner, ctx),
                None => one(Value::External),
            },
            Builtin::Protocol(_) | Builtin::Hasattr => one(Value::External),
            Builtin::Opaque | Builtin::EnumerateItem | Builtin::ZipItem | Builtin::DictItem => {
                none()
            }
        }
    }

    /// The values of the dicts whose method call `call` (`d.get(…)`, `d.values()`) of
    /// module `m` calls.
    fn dict_values_of(&mut self, m: Mod, call: ExprId, ctx: &Ctx) -> Set {
        let mut out = Set::default();
        let Some(model) = self.model(m) else {
            return out;
        };
        let Expr::Call { func, .. } = model.expr(call) else {
            return out;
        };
        let Expr::Attr { object, .. } = model.expr(*func) else {
            return out;
        };
        let dicts = self.eval(m, *object, ctx);
        for &dict in dicts.iter() {
            if matches!(dict, Value::Dict(..)) {
                let values = self.item(dict, Some(&[]), None);
                out.add(&values);
            }
        }
        out
    }

    /// `item[key]` of a tuple a builtin's iterable yields (`for i, x in enumerate(xs)`);
    /// `wanted: None` reads every position.
    fn builtin_tuple_item(
        &mut self,
        m: Mod,
        call: ExprId,
        builtin: Builtin,
        wanted: Option<&[Key]>,
    ) -> Values {
        let positional = self.positional_args(m, call);
        let positions: Vec<usize> = match wanted {
            None => (0..positional.len().max(2)).collect(),
            Some(wanted) => wanted
                .iter()
                .filter_map(|key| match key {
                    Key::Int(i) => usize::try_from(*i).ok(),
                    _ => None,
                })
                .collect(),
        };
        let mut out = Set::default();
        for position in positions {
            let source = match (builtin, position) {
                // The index and the key: not followed.
                (Builtin::EnumerateItem | Builtin::DictItem, 0) => {
                    out.add(&[Value::External]);
                    continue;
                }
                (Builtin::EnumerateItem, 1) => positional.first(),
                (Builtin::ZipItem, at) => positional.get(at),
                (Builtin::DictItem, 1) => {
                    let values = self.dict_values_of(m, call, &None);
                    out.add(&values.done());
                    continue;
                }
                _ => None,
            };
            let Some(&iterable) = source else { continue };
            let iterables = self.eval(m, iterable, &None);
            for &iterable in iterables.iter() {
                let values = self.iterate(iterable);
                out.add(&values);
            }
        }
        out.done()
    }

    /// The positional arguments of call `call` of module `m`, as written.
    fn positional_args(&self, m: Mod, call: ExprId) -> Vec<ExprId> {
        let Some(Expr::Call { args, .. }) = self.model(m).map(|model| model.expr(call)) else {
            return Vec::new();
        };
        args.iter()
            .filter(|a| a.keyword.is_none() && !a.splat)
            .map(|a| a.value)
            .collect()
    }

    /// The elements a builtin's lazy result yields.
    fn builtin_elements(&mut self, m: Mod, call: ExprId, builtin: Builtin) -> Values {
        let positional = self.positional_args(m, call);
        let mut out = Set::default();
        match builtin {
            Builtin::Map => {
                for &callback in &positional {
                    let callbacks = self.eval(m, callback, &None);
                    for &callback in callbacks.iter() {
                        if matches!(
                            callback,
                            Value::Func(..) | Value::Bound(..) | Value::Class(..)
                        ) {
                            let values = self.call_result(callback, m, Rc::from([]), &None);
                            out.add(&values);
                        }
                    }
                }
            }
            Builtin::Enumerate => out.add(&[Value::Result(m, call, Builtin::EnumerateItem)]),
            Builtin::Zip => out.add(&[Value::Result(m, call, Builtin::ZipItem)]),
            Builtin::DictItems => out.add(&[Value::Result(m, call, Builtin::DictItem)]),
            Builtin::DictValues => {
                let values = self.dict_values_of(m, call, &None);
                out.add(&values.done());
            }
            Builtin::Filter | Builtin::Sorted | Builtin::Elements => {
                let index = usize::from(builtin == Builtin::Filter);
                let Some(&iterable) = positional.get(index) else {
                    return none();
                };
                let iterables = self.eval(m, iterable, &None);
                for &iterable in iterables.iter() {
                    let values = self.iterate(iterable);
                    out.add(&values);
                }
            }
            _ => {}
        }
        out.done()
    }

    /// The returns of function `s` of module `m` for one call.
    fn invoke(
        &mut self,
        m: Mod,
        s: ScopeId,
        shift: u32,
        caller: Mod,
        args: Rc<[Arg]>,
        ctx: &Ctx,
    ) -> Values {
        let Some(model) = self.model(m) else {
            return none();
        };
        let scope = model.scope(s);
        if !scope.is_callable() {
            return none();
        }
        if !scope.yields.is_empty() {
            return one(Value::Gen(m, s));
        }
        let depth = ctx.as_ref().map_or(0, |c| c.depth + 1);
        let context: Ctx = (depth < MAX_CONTEXTS).then(|| {
            self.next_context += 1;
            Rc::new(Context {
                id: self.next_context,
                callee: (m, s),
                caller,
                args,
                shift,
                parent: ctx.clone(),
                depth,
            })
        });
        let mut out = Set::default();
        for &ret in &scope.returns {
            let values = self.eval(m, ret, &context);
            out.add(&values);
        }
        out.done()
    }

    fn decorate(&mut self, m: Mod, decorator: ExprId, inner: ExprId, ctx: &Ctx) -> Values {
        let decorators = self.eval(m, decorator, ctx);
        let undecorated = self.eval(m, inner, ctx);
        let args: Rc<[Arg]> = Rc::from([Arg {
            keyword: None,
            value: inner,
            splat: false,
        }]);
        let mut out = Set::default();
        for &decorator in decorators.iter() {
            let result = match decorator {
                Value::Func(..) | Value::Bound(..) | Value::Class(..) | Value::Instance(..) => {
                    self.call_result(decorator, m, args.clone(), ctx)
                }
                _ => none(),
            };
            let callable: Vec<Value> = result
                .iter()
                .copied()
                .filter(|v| {
                    matches!(
                        v,
                        Value::Func(..) | Value::Bound(..) | Value::Class(..) | Value::Instance(..)
                    )
                })
                .collect();
            // An external decorator (or one keel cannot follow) leaves the function; a
            // wrapper defined in the decorator's body stands for it too: a call of the
            // decorated name runs the wrapper, which passes its arguments on and returns
            // what the function returns.
            let wraps = callable
                .iter()
                .any(|&value| self.is_wrapper_of(decorator, value));
            if callable.is_empty() {
                out.add(&undecorated);
            } else if wraps {
                let behind: Vec<Value> = undecorated.iter().map(|&value| behind(value)).collect();
                out.add(&behind);
            }
            out.add(&callable);
        }
        if decorators.is_empty() {
            out.add(&undecorated);
        }
        out.done()
    }

    /// Whether function `s` of module `m` is defined in a type-only class (directly or
    /// nested).
    fn in_type_only_class(&self, m: Mod, s: ScopeId) -> bool {
        let Some(model) = self.model(m) else {
            return false;
        };
        let mut scope = model.scope(s).parent;
        while let Some(id) = scope {
            let enclosing = model.scope(id);
            if enclosing.type_only {
                return true;
            }
            scope = enclosing.parent;
        }
        false
    }

    /// Whether `value`, what `decorator` returned, is a function defined in the
    /// decorator's own body (`logged.wrapper`, `retry(3)`'s `decorate.attempt`).
    fn is_wrapper_of(&self, decorator: Value, value: Value) -> bool {
        let (Value::Func(dm, ds) | Value::Bound(dm, ds), Value::Func(wm, ws)) = (decorator, value)
        else {
            return false;
        };
        let Some(model) = self.model(wm).filter(|_| dm == wm) else {
            return false;
        };
        let mut scope = model.scope(ws).parent;
        while let Some(id) = scope {
            if id == ds {
                return true;
            }
            scope = model.scope(id).parent;
        }
        false
    }

    fn keys(&mut self, m: Mod, index: ExprId, ctx: &Ctx) -> Vec<Option<Key>> {
        let values = self.eval(m, index, ctx);
        values
            .iter()
            .map(|value| match *value {
                Value::Const(km, ke) => match self.model(km).map(|model| model.expr(ke)) {
                    Some(Expr::Const(key)) => Some(key.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// `object[key]` for the given keys (`None`: an index keel does not read; an empty
    /// list: one whose value is unknown, which reads every element). `read`: where the
    /// subscript is, in this file, for stores that replace an item before it.
    fn item(
        &mut self,
        object: Value,
        keys: Option<&[Option<Key>]>,
        read: Option<(ScopeId, At)>,
    ) -> Values {
        // A container read while it is being read (`xs = [*xs, x]`) adds nothing.
        if self.depth >= MAX_DEPTH || !self.reading.insert(object) {
            return none();
        }
        self.depth += 1;
        let values = self.item_inner(object, keys, read);
        self.depth -= 1;
        self.reading.remove(&object);
        values
    }

    fn item_inner(
        &mut self,
        object: Value,
        keys: Option<&[Option<Key>]>,
        read: Option<(ScopeId, At)>,
    ) -> Values {
        let Some(keys) = keys else {
            return match object {
                Value::Class(..) => one(object),
                value if external(value) || matches!(value, Value::Const(..)) => {
                    one(Value::External)
                }
                _ => none(),
            };
        };
        // Known keys only; an unknown one reads every element.
        let wanted: Option<Vec<Key>> = if keys.is_empty() || keys.iter().any(Option::is_none) {
            None
        } else {
            Some(keys.iter().flatten().cloned().collect())
        };
        match object {
            Value::Seq(m, e, skip) => self.seq_item(m, e, skip, wanted.as_deref(), read),
            Value::Dict(m, e) => self.dict_item(m, e, keys, wanted.as_deref(), read),
            Value::Result(
                m,
                call,
                builtin @ (Builtin::EnumerateItem | Builtin::ZipItem | Builtin::DictItem),
            ) => self.builtin_tuple_item(m, call, builtin, wanted.as_deref()),
            Value::Result(m, call, builtin) => self.builtin_elements(m, call, builtin),
            // `Base[T]`: a generic class is the class.
            Value::Class(..) => one(object),
            Value::Instance(m, c) => self.invoke_method(m, c, "__getitem__"),
            value if external(value) || matches!(value, Value::Const(..)) => one(Value::External),
            _ => none(),
        }
    }

    fn seq_item(
        &mut self,
        m: Mod,
        e: ExprId,
        skip: u32,
        wanted: Option<&[Key]>,
        read: Option<(ScopeId, At)>,
    ) -> Values {
        let Some(model) = self.model(m) else {
            return none();
        };
        let container = Value::Seq(m, e, 0);
        let mut out = Set::default();
        match model.expr(e) {
            Expr::Seq(items) => {
                let starred = items
                    .iter()
                    .any(|&item| matches!(model.expr(item), Expr::Starred(_)));
                let items: Vec<ExprId> = items.iter().skip(skip as usize).copied().collect();
                match wanted {
                    Some(wanted) if !starred => {
                        for key in wanted {
                            match key {
                                Key::Int(i) => {
                                    if self.replaced(container, key, read).is_some() {
                                        continue;
                                    }
                                    let index = if *i < 0 {
                                        i64::try_from(items.len()).unwrap_or(0) + i
                                    } else {
                                        *i
                                    };
                                    if let Some(&item) =
                                        usize::try_from(index).ok().and_then(|i| items.get(i))
                                    {
                                        let values = self.eval(m, item, &None);
                                        out.add(&values);
                                    }
                                }
                                Key::Slice(start) => {
                                    let start = u32::try_from(*start).unwrap_or(u32::MAX);
                                    out.add(&[Value::Seq(m, e, skip.saturating_add(start))]);
                                }
                                Key::Str(_) => {}
                            }
                        }
                    }
                    _ => {
                        for item in items {
                            let values = self.eval(m, item, &None);
                            let values = match model.expr(item) {
                                Expr::Starred(_) => {
                                    let mut inner = Set::default();
                                    for &v in values.iter() {
                                        let it = self.iterate(v);
                                        inner.add(&it);
                                    }
                                    inner.done()
                                }
                                _ => values,
                            };
                            out.add(&values);
                        }
                    }
                }
            }
            Expr::Comprehension { element } => {
                let values = self.eval(m, *element, &None);
                out.add(&values);
            }
            _ => {}
        }
        let stored = self.stored_items(container, wanted, read);
        out.add(&stored);
        out.done()
    }

    fn dict_item(
        &mut self,
        m: Mod,
        e: ExprId,
        keys: &[Option<Key>],
        wanted: Option<&[Key]>,
        read: Option<(ScopeId, At)>,
    ) -> Values {
        let Some(model) = self.model(m) else {
            return none();
        };
        let Expr::Dict(entries) = model.expr(e) else {
            return none();
        };
        let container = Value::Dict(m, e);
        let live: Option<Vec<Key>> = wanted.map(|wanted| {
            wanted
                .iter()
                .filter(|key| self.replaced(container, key, read).is_none())
                .cloned()
                .collect()
        });
        let mut out = Set::default();
        for &(key, value) in entries.iter() {
            match key {
                Some(key) => {
                    let matches = match &live {
                        None => true,
                        Some(live) => {
                            let keys = self.keys(m, key, &None);
                            keys.iter()
                                .any(|k| k.as_ref().is_none_or(|k| live.contains(k)))
                        }
                    };
                    if matches {
                        let values = self.eval(m, value, &None);
                        out.add(&values);
                    }
                }
                None => {
                    let spread = self.eval(m, value, &None);
                    for &inner in spread.iter() {
                        let values = self.item(inner, Some(keys), None);
                        out.add(&values);
                    }
                }
            }
        }
        let stored = self.stored_items(container, wanted, read);
        out.add(&stored);
        out.done()
    }

    /// The constant key a store writes, when it writes exactly one.
    fn store_key(&mut self, store: &ItemStore) -> Option<Key> {
        let keys = self.keys(CURRENT, store.key?, &None);
        match keys.as_slice() {
            [Some(key)] => Some(key.clone()),
            _ => None,
        }
    }

    /// The position of the last strong store of `key` into `container` that dominates a
    /// read at `read` (same scope, earlier, in the read's block or one around it): the
    /// container's own item and the stores before it are replaced.
    fn replaced(
        &mut self,
        container: Value,
        key: &Key,
        read: Option<(ScopeId, At)>,
    ) -> Option<u32> {
        let (scope, at) = read?;
        self.read_slot(Slot::Item(container));
        let stores = self.item_stores.get(&container)?.clone();
        let mut last = None;
        for store in &stores {
            if !store.strong
                || store.scope != scope
                || store.at.pos >= at.pos
                || !self.facts.model.encloses(store.at.block, at.block)
            {
                continue;
            }
            if self.store_key(store).as_ref() == Some(key) {
                last = last.max(Some(store.at.pos));
            }
        }
        last
    }

    /// Values this file stored into a container under one of `wanted` (all when `None`;
    /// stores under keys keel does not read always count), less those a later strong
    /// store replaced before `read`.
    fn stored_items(
        &mut self,
        container: Value,
        wanted: Option<&[Key]>,
        read: Option<(ScopeId, At)>,
    ) -> Values {
        self.read_slot(Slot::Item(container));
        let stores = self
            .item_stores
            .get(&container)
            .cloned()
            .unwrap_or_default();
        let cutoffs: Vec<(Key, Option<u32>)> = wanted
            .unwrap_or_default()
            .iter()
            .map(|key| (key.clone(), self.replaced(container, key, read)))
            .collect();
        let mut out = Set::default();
        for store in &stores {
            let key = store.key.map(|key| self.keys(CURRENT, key, &None));
            let matches = match (wanted, &key) {
                (None, _) | (_, None) => true,
                (Some(_), Some(keys)) => {
                    keys.is_empty()
                        || keys.iter().any(|k| match k {
                            None => true,
                            Some(k) => cutoffs.iter().any(|(wanted, cutoff)| {
                                wanted == k
                                    && cutoff.is_none_or(|cutoff| {
                                        store.scope != read.map_or(u32::MAX, |r| r.0)
                                            || store.at.pos >= cutoff
                                    })
                            }),
                        })
                }
            };
            if matches {
                let values = self.eval(CURRENT, store.value, &None);
                out.add(&values);
            }
        }
        out.done()
    }

    /// The elements iterating `iterable` gives.
    fn iterate(&mut self, iterable: Value) -> Values {
        if self.depth >= MAX_DEPTH {
            return none();
        }
        self.depth += 1;
        let values = self.iterate_inner(iterable);
        self.depth -= 1;
        values
    }

    fn iterate_inner(&mut self, iterable: Value) -> Values {
        match iterable {
            Value::Seq(..) | Value::Result(..) => self.item(iterable, Some(&[]), None),
            Value::Gen(m, s) => {
                let Some(model) = self.model(m) else {
                    return none();
                };
                let mut out = Set::default();
                for &y in &model.scope(s).yields {
                    let values = self.eval(m, y, &None);
                    out.add(&values);
                }
                out.done()
            }
            Value::Instance(m, c) => {
                let iterators = self.invoke_method(m, c, "__iter__");
                let mut out = Set::default();
                for &iterator in iterators.iter() {
                    match iterator {
                        Value::Instance(im, ic) => {
                            let values = self.invoke_method(im, ic, "__next__");
                            out.add(&values);
                        }
                        Value::Gen(..) => {
                            let values = self.iterate(iterator);
                            out.add(&values);
                        }
                        _ => {}
                    }
                }
                out.done()
            }
            Value::Dict(..) | Value::Const(..) => one(Value::External),
            value if external(value) => one(Value::External),
            _ => none(),
        }
    }

    // --- modules ---

    /// The module `module` (with `level` leading dots) imported from module `m`.
    fn import(&mut self, m: Mod, level: u32, module: &str) -> Target {
        let Some(from) = self.registered(m).map(|module| module.key.clone()) else {
            return Target::Missing;
        };
        if level > 0 {
            let mut dir = parent_dir(&from);
            for _ in 1..level {
                match dir.as_deref() {
                    Some("") | None => return Target::Missing,
                    Some(d) => dir = parent_dir(d.trim_end_matches('/')),
                }
            }
            let Some(dir) = dir else {
                return Target::Missing;
            };
            return match self.find_path(&dir, module) {
                Target::Module(k) => Target::Module(k),
                Target::External | Target::Missing => Target::Missing,
            };
        }
        for root in self.roots(&from).iter() {
            if let Target::Module(k) = self.find_path(root, module) {
                return Target::Module(k);
            }
        }
        Target::External
    }

    /// Where absolute imports of a file are looked for, in order: its script root (the
    /// nearest folder holding it that is not a package: Python's `sys.path[0]` for a
    /// script, pytest's rootdir insertion for a test), the repository root, and `src/`.
    fn roots(&mut self, from: &str) -> Rc<[String]> {
        let dir = parent_dir(from).unwrap_or_default();
        if let Some(roots) = self.roots.get(&dir) {
            return roots.clone();
        }
        let mut script = dir.clone();
        while !script.is_empty() && self.has_file(&format!("{script}__init__.py")) {
            script = parent_dir(script.trim_end_matches('/')).unwrap_or_default();
        }
        let mut roots = vec![script];
        for root in ["", "src/"] {
            if !roots.iter().any(|r| r == root) {
                roots.push(root.to_owned());
            }
        }
        let roots: Rc<[String]> = Rc::from(roots);
        self.roots.insert(dir, roots.clone());
        roots
    }

    /// Module `dotted` under folder `base`, looked for as Python's path finder does: the
    /// regular package `base/a/b/__init__.py`, then the module `base/a/b.py`, then the
    /// namespace package `base/a/b/`.
    fn find_path(&mut self, base: &str, dotted: &str) -> Target {
        let relative = dotted.replace('.', "/");
        let stem = if relative.is_empty() {
            base.trim_end_matches('/').to_owned()
        } else {
            format!("{base}{relative}")
        };
        let package = if stem.is_empty() {
            String::new()
        } else {
            format!("{stem}/")
        };
        let mut candidates = vec![
            format!("{package}__init__.py"),
            format!("{package}__init__.pyi"),
        ];
        if !relative.is_empty() {
            candidates.extend([format!("{stem}.py"), format!("{stem}.pyi")]);
        }
        for candidate in candidates {
            if self.has_file(&candidate) {
                return self
                    .module(&candidate)
                    .map_or(Target::Missing, Target::Module);
            }
        }
        if !package.is_empty() && self.has_prefix(&package) {
            return self
                .module(&package)
                .map_or(Target::Missing, Target::Module);
        }
        Target::Missing
    }

    fn has_file(&self, path: &str) -> bool {
        self.files
            .binary_search_by(|(known, _)| known.as_str().cmp(path))
            .is_ok()
    }

    fn has_prefix(&self, prefix: &str) -> bool {
        let at = self
            .files
            .partition_point(|(known, _)| known.as_str() < prefix);
        self.files
            .get(at)
            .is_some_and(|(known, _)| known.starts_with(prefix))
    }

    /// The module with key `key` (a file of the tree or a namespace folder), numbered
    /// from the tree alone, so that a module has one number in every evaluation: the
    /// current file 0, the file at index `i` of `files` `i + 1`, and a namespace folder a
    /// number past the files' from where its files sort (the index of its first file)
    /// and its depth — two folders that are not nested start at different files, and
    /// nested ones differ in depth. `None` for a folder too deep to number (256 levels).
    fn module(&mut self, key: &str) -> Option<Mod> {
        if key == self.facts_path() {
            return Some(CURRENT);
        }
        if let Ok(index) = self
            .files
            .binary_search_by(|(known, _)| known.as_str().cmp(key))
        {
            let m = Mod::try_from(index + 1).ok()?;
            let slot = self.modules.get_mut(m as usize)?;
            if slot.is_none() {
                *slot = Some(Module {
                    key: key.to_owned(),
                    model: Some(self.files[index].1.model()),
                    package: package_dir(key),
                });
            }
            return Some(m);
        }
        let first = self
            .files
            .partition_point(|(known, _)| known.as_str() < key);
        let depth = key.matches('/').count();
        if depth > 255 {
            return None;
        }
        let m = Mod::try_from(self.files.len() + 1 + first * 256 + depth).ok()?;
        self.folders.entry(m).or_insert_with(|| Module {
            key: key.to_owned(),
            model: None,
            package: Some(key.to_owned()),
        });
        Some(m)
    }

    /// The path of the file being resolved.
    fn facts_path(&self) -> &str {
        self.modules[CURRENT as usize]
            .as_ref()
            .map_or("", |module| module.key.as_str())
    }
}

/// Whether parameter `index` of `scope` is its `*args` or `**kwargs`: a tuple or a dict
/// of what the caller passed, never one of the values itself.
fn packed(scope: &super::facts::Scope, index: u32) -> bool {
    scope
        .params
        .get(index as usize)
        .is_some_and(|param| matches!(param.kind, ParamKind::Args | ParamKind::Kwargs))
}

/// The attributes every class has from `object` (and `type`).
fn is_object_attribute(name: &str) -> bool {
    matches!(
        name,
        "__class__"
            | "__delattr__"
            | "__dict__"
            | "__dir__"
            | "__doc__"
            | "__eq__"
            | "__format__"
            | "__ge__"
            | "__getattribute__"
            | "__getstate__"
            | "__gt__"
            | "__hash__"
            | "__init__"
            | "__init_subclass__"
            | "__le__"
            | "__lt__"
            | "__module__"
            | "__mro__"
            | "__name__"
            | "__ne__"
            | "__new__"
            | "__qualname__"
            | "__reduce__"
            | "__reduce_ex__"
            | "__repr__"
            | "__setattr__"
            | "__sizeof__"
            | "__str__"
            | "__subclasses__"
            | "__subclasshook__"
            | "__weakref__"
            | "mro"
    )
}

/// Whether a name (or dotted name) is bound only by imports (or not at all: a builtin).
fn imported_name(model: &Model, expr: ExprId) -> bool {
    match model.expr(expr) {
        Expr::Name { scope, name, .. } => model.reaching(*scope, name, None).iter().all(|&value| {
            matches!(
                model.expr(value),
                Expr::Module { .. } | Expr::ImportFrom { .. }
            )
        }),
        Expr::Attr { object, .. } => imported_name(model, *object),
        _ => false,
    }
}

/// Whether an annotation's name is bound to a type variable (`T = TypeVar("T")`).
fn type_variable(model: &Model, class: ExprId) -> bool {
    let Expr::Name { scope, name, .. } = model.expr(class) else {
        return false;
    };
    model.reaching(*scope, name, None).iter().any(|&value| {
        let Expr::Call { func, .. } = model.expr(value) else {
            return false;
        };
        matches!(
            model.expr(*func),
            Expr::Name { name, .. } | Expr::Attr { name, .. }
                if matches!(&**name, "TypeVar" | "ParamSpec" | "TypeVarTuple")
        )
    })
}

/// Whether a base class from outside the tree is one that gives its subclasses no
/// attributes of its own (`object`, `typing.Generic[T]`, `Protocol`, `abc.ABC`): keel
/// leaves it out of the MRO, so an attribute the tree does not define stays unresolved
/// rather than external.
fn provides_nothing(model: &Model, base: ExprId) -> bool {
    let mut expr = base;
    loop {
        match model.expr(expr) {
            Expr::Subscript { object, .. } => expr = *object,
            Expr::Name { name, .. } | Expr::Attr { name, .. } => {
                return matches!(&**name, "object" | "Generic" | "Protocol" | "ABC");
            }
            _ => return false,
        }
    }
}

/// The node id of a scope of the file at `path`: the scope's own when it is a node, the
/// module's otherwise (owners are nodes or the module by construction).
fn node_id(path: &str, scope: &super::facts::Scope) -> NodeId {
    if scope.node {
        NodeId::new(path, &scope.name)
    } else {
        NodeId::module(path)
    }
}

/// The folder of a path, with a trailing `/` (`""` at the root); `None` for `""`.
fn parent_dir(path: &str) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    Some(match path.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/"),
        None => String::new(),
    })
}

/// The folder holding a package's submodules, for an `__init__` file.
fn package_dir(path: &str) -> Option<String> {
    let file = path.rsplit('/').next().unwrap_or(path);
    matches!(file, "__init__.py" | "__init__.pyi").then(|| parent_dir(path).unwrap_or_default())
}

/// Which parameter each argument binds: (parameter index, argument value). `shift`
/// parameters are taken before the first positional argument (`self`).
fn match_args(params: &[super::facts::Param], args: &[Arg], shift: u32) -> Vec<(u32, ExprId)> {
    let positional: Vec<u32> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == ParamKind::Positional)
        .map(|(i, _)| i as u32)
        .collect();
    let mut next = shift as usize;
    let mut out = Vec::new();
    for arg in args {
        if arg.splat {
            // `*xs` fills the rest of the positional parameters in an unknown way.
            next = usize::MAX;
            continue;
        }
        match &arg.keyword {
            Some(keyword) => {
                if let Some(i) = params.iter().position(|p| {
                    *p.name == **keyword
                        && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly)
                }) {
                    out.push((i as u32, arg.value));
                }
            }
            None => {
                if let Some(&i) = positional.get(next) {
                    out.push((i, arg.value));
                }
                next = next.saturating_add(1);
            }
        }
    }
    out
}

/// The C3 merge of `sequences`, or `None` when they admit no linearization.
fn c3(mut sequences: Vec<Vec<Entry>>) -> Option<Vec<Entry>> {
    let mut out = Vec::new();
    loop {
        sequences.retain(|s| !s.is_empty());
        if sequences.is_empty() {
            return Some(out);
        }
        let head = sequences
            .iter()
            .map(|s| s[0])
            .find(|candidate| sequences.iter().all(|s| !s[1..].contains(candidate)))?;
        out.push(head);
        for sequence in &mut sequences {
            if sequence[0] == head {
                sequence.remove(0);
            }
        }
    }
}
