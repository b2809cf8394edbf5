//! A module's interface: the part of its facts other files' resolution may read, with
//! no line, position or call site in it, so that an edit which leaves it equal (a new
//! call in a body, a changed literal, moved lines, a comment) changes no other file's
//! resolution.
//!
//! Owns: what the interface holds — the export table (every module-level name with the
//! bindings that reach the end of the module, `__all__`, star imports), each class's
//! bases, members (class-level bindings reaching the end of the class body) and instance
//! attributes (`self.x = …`), each function's parameters, returns and yields, and the
//! local bindings and nested scopes those read, renumbered in a canonical order.
//!
//! Also owns reusing a file's last interface across an edit inside one fragment
//! ([`of`]): the interface is a function of the skeleton and of each fragment's chunk, and
//! reads a chunk only through what the chunk's own interface holds (its function's
//! parameters, returns and yields and what they read, and what it binds or stores in the
//! skeleton's scopes), so when the edited fragment's chunk has the same interface as
//! before and the text around it is equal, so is the file's.
//! Does not own: reading the facts (`facts`) or evaluating them (`resolve`).

use super::facts::{
    Binding, Block, Chunk, Expr, ExprId, Facts, Layout, MODULE_SCOPE, Model, Name, Scope, ScopeId,
    ScopeKind,
};
use super::kept::Kept;
use keel_engine::Db;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A module's interface, shared, with a digest so that interning a program of many
/// interfaces hashes each once.
#[derive(Clone)]
pub struct Interface {
    digest: u64,
    model: Arc<Model>,
    /// Its decorator applications by the names their decorators' heads may stand for
    /// and the calls made of the head ([`decorations`]), sorted: made with the model, so
    /// equal models have equal tables.
    decorations: Arc<[(Name, u32, ExprId)]>,
}

impl Interface {
    pub(crate) fn new(model: Model) -> Self {
        let mut hasher = rustc_hash::FxHasher::default();
        model.hash(&mut hasher);
        Self {
            digest: hasher.finish(),
            decorations: decorations(&model).into(),
            model: Arc::new(model),
        }
    }

    pub(crate) fn model(&self) -> &Model {
        &self.model
    }

    /// The decorator applications (`Expr::Decorate`) of this module whose decorator's
    /// head may be named `name` and is called `calls` times: `@name` and `@x.name` (0),
    /// `@name(...)` (1), `@name(...)(...)` (2); a name imported as `name` under another
    /// (`from m import name as other; @other`) counts as `name` too.
    pub(crate) fn decorated_by<'s>(
        &'s self,
        name: &'s str,
        calls: u32,
    ) -> impl Iterator<Item = ExprId> + 's {
        let first = self
            .decorations
            .partition_point(|(known, n, _)| (&**known, *n) < (name, calls));
        self.decorations[first..]
            .iter()
            .take_while(move |(known, n, _)| &**known == name && *n == calls)
            .map(|&(_, _, decorate)| decorate)
    }
}

/// Every decorator application of `model` under each name its decorator's head may
/// stand for, with the calls made of the head (see [`Interface::decorated_by`]), sorted.
fn decorations(model: &Model) -> Vec<(Name, u32, ExprId)> {
    let mut out = Vec::new();
    for (id, expr) in model.exprs.iter().enumerate() {
        let Expr::Decorate { decorator, .. } = expr else {
            continue;
        };
        let decorate = id as ExprId;
        let mut head = *decorator;
        let mut calls = 0;
        // `@f(a)(b)`: the head is `f`, called twice; `@a.b.f`: `f`, not called.
        let name = loop {
            match model.expr(head) {
                Expr::Call { func, .. } => {
                    head = *func;
                    calls += 1;
                }
                Expr::Attr { name, .. } => break Some((name.clone(), None)),
                Expr::Name { scope, name, .. } => break Some((name.clone(), Some(*scope))),
                _ => break None,
            }
        };
        let Some((name, scope)) = name else {
            continue;
        };
        // The name a module imports it under another from: `from m import f as g`.
        if let Some(scope) = scope {
            for binding in model.scope(scope).bindings_of(&name) {
                if let Expr::ImportFrom { name: imported, .. } = model.expr(binding.value)
                    && **imported != *name
                {
                    out.push((Name::from(&**imported), calls, decorate));
                }
            }
        }
        out.push((name, calls, decorate));
    }
    out.sort_unstable();
    out.dedup();
    out
}

impl PartialEq for Interface {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
            && (Arc::ptr_eq(&self.model, &other.model) || self.model == other.model)
    }
}

impl Eq for Interface {}

impl Hash for Interface {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.digest.hash(state);
    }
}

impl std::fmt::Debug for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Interface({:016x}: {} scopes, {} exprs)",
            self.digest,
            self.model.scopes.len(),
            self.model.exprs.len()
        )
    }
}

/// The interface of a module whose facts are `facts`.
pub(crate) fn build(model: &Model) -> Model {
    let mut builder = Builder {
        old: model,
        new: Model {
            all: model.all.clone(),
            stars: model.stars.clone(),
            blocks: vec![Block {
                parent: None,
                looped: false,
            }],
            ..Model::default()
        },
        scopes: HashMap::default(),
        exprs: HashMap::default(),
        pending: VecDeque::new(),
        requested: HashSet::default(),
    };
    // Module, classes and functions not nested in a function: always there, in document
    // order. Nested functions, lambdas and comprehensions: only when something reads them.
    for (index, scope) in model.scopes.iter().enumerate() {
        let id = index as ScopeId;
        if id == MODULE_SCOPE || builder.always(id) {
            builder.ensure(id);
        }
        let _ = scope;
    }
    while let Some(work) = builder.pending.pop_front() {
        match work {
            Work::Scope(old) => builder.fill(old),
            Work::Bindings(old, name) => builder.bindings(old, &name, false),
        }
    }
    // An interface's bindings all sit at position 0: they sort by name.
    for scope in &mut builder.new.scopes {
        scope.sort_bindings();
    }
    builder.new
}

/// The interface of `facts`, the file at `path`: the last one made for the path when the
/// file differs from that one inside one fragment only and the fragment's chunk has the
/// same interface as before; built otherwise.
pub(crate) fn of(db: &dyn Db, path: &str, facts: &Facts) -> Interface {
    let kept = Kept::<Record>::of(db);
    let reused = kept
        .recall(path)
        .into_iter()
        .find_map(|record| record.answer(&facts.layout));
    if reused.is_some() {
        super::kept::count(db, |counts| counts.interfaces_reused += 1);
    }
    let interface = reused.unwrap_or_else(|| Interface::new(build(&facts.model)));
    if !facts.layout.chunks.is_empty() {
        kept.remember(
            path,
            Record {
                layout: facts.layout.clone(),
                interface: interface.clone(),
            },
        );
    }
    interface
}

/// The interface last made for a path, with what it was made of.
struct Record {
    layout: Layout,
    interface: Interface,
}

impl Record {
    /// This interface, when it is the interface of the file of layout `layout`.
    fn answer(&self, layout: &Layout) -> Option<Interface> {
        let x = self.layout.single_change(layout)?;
        let (old, new) = (&self.layout.chunks[x].chunk, &layout.chunks[x].chunk);
        (chunk_interface(old) == chunk_interface(new)).then(|| self.interface.clone())
    }
}

/// The interface of one chunk alone: what a file's interface reads of it.
fn chunk_interface(chunk: &Chunk) -> Model {
    let mut model = chunk.model.clone();
    // The skeleton's scopes hold only what the fragment binds in them, in walk order.
    for scope in &mut model.scopes[..chunk.skeleton] {
        scope.sort_bindings();
    }
    build(&model)
}

enum Work {
    Scope(ScopeId),
    Bindings(ScopeId, Name),
}

struct Builder<'m> {
    old: &'m Model,
    new: Model,
    scopes: HashMap<ScopeId, ScopeId>,
    exprs: HashMap<ExprId, ExprId>,
    pending: VecDeque<Work>,
    requested: HashSet<(ScopeId, Name)>,
}

impl Builder<'_> {
    /// A class or function whose enclosing scopes are all the module or classes.
    fn always(&self, id: ScopeId) -> bool {
        let mut scope = self.old.scope(id);
        if !matches!(scope.kind, ScopeKind::Class | ScopeKind::Function) {
            return false;
        }
        while let Some(parent) = scope.parent {
            scope = self.old.scope(parent);
            if !matches!(scope.kind, ScopeKind::Class | ScopeKind::Module) {
                return false;
            }
        }
        true
    }

    /// The new id of old scope `old`, including it (and its parents) on first use.
    fn ensure(&mut self, old: ScopeId) -> ScopeId {
        if let Some(&new) = self.scopes.get(&old) {
            return new;
        }
        let source = self.old.scope(old);
        let parent = source.parent.map(|parent| self.ensure(parent));
        let new = self.new.scopes.len() as ScopeId;
        self.scopes.insert(old, new);
        self.new.scopes.push(Scope {
            kind: source.kind,
            name: source.name.clone(),
            parent,
            node: source.node,
            type_only: source.type_only,
            flavor: source.flavor,
            params: source.params.clone(),
            bindings: Vec::new(),
            names: Box::default(),
            returns: Vec::new(),
            yields: Vec::new(),
            bases: Vec::new(),
            self_stores: Vec::new(),
            top: 0,
        });
        self.pending.push_back(Work::Scope(old));
        new
    }

    fn fill(&mut self, old: ScopeId) {
        let source = self.old.scope(old);
        let new = self.scopes[&old] as usize;
        if matches!(source.kind, ScopeKind::Module | ScopeKind::Class) {
            let mut names: Vec<&str> = source.bindings.iter().map(|b| &*b.name).collect();
            names.dedup();
            for name in names {
                self.bindings(old, name, true);
            }
        }
        let returns: Vec<ExprId> = source.returns.iter().map(|&e| self.copy(e)).collect();
        let yields: Vec<ExprId> = source.yields.iter().map(|&e| self.copy(e)).collect();
        let bases: Vec<ExprId> = source.bases.iter().map(|&e| self.copy(e)).collect();
        let self_stores: Vec<(Box<str>, ExprId)> = source
            .self_stores
            .iter()
            .map(|(name, e)| (name.clone(), self.copy(*e)))
            .collect();
        let scope = &mut self.new.scopes[new];
        scope.returns = returns;
        scope.yields = yields;
        scope.bases = bases;
        scope.self_stores = self_stores;
        // Parameters are read by callers matching arguments: their bindings come along.
        let params: Vec<Name> = source.params.iter().map(|p| p.name.clone()).collect();
        for name in params {
            self.request(old, name);
        }
    }

    fn request(&mut self, old: ScopeId, name: Name) {
        if self.requested.insert((old, name.clone())) {
            self.pending.push_back(Work::Bindings(old, name));
        }
    }

    /// Copies the bindings of `name` in old scope `old`: those reaching the end of a
    /// module or class scope, all of them in a function scope.
    fn bindings(&mut self, old: ScopeId, name: &str, at_end: bool) {
        let new = self.ensure(old) as usize;
        let values: Vec<ExprId> = if at_end {
            self.old.reaching(old, name, None)
        } else {
            self.old
                .scope(old)
                .bindings_of(name)
                .iter()
                .filter(|b| !b.narrowed)
                .map(|b| b.value)
                .collect()
        };
        for value in values {
            let value = self.copy(value);
            self.new.scopes[new].bindings.push(Binding {
                name: name.into(),
                value,
                pos: 0,
                block: 0,
                floating: true,
                narrowed: false,
            });
        }
    }

    /// The new id of old expression `old` (copied with everything it reads).
    fn copy(&mut self, old: ExprId) -> ExprId {
        if let Some(&new) = self.exprs.get(&old) {
            return new;
        }
        let expr = match self.old.expr(old).clone() {
            Expr::Name { scope, name, .. } => {
                let kind = self.old.scope(scope).kind;
                if !matches!(kind, ScopeKind::Module | ScopeKind::Class) {
                    self.request(scope, name.clone());
                }
                Expr::Name {
                    scope: self.ensure(scope),
                    name,
                    at: None,
                }
            }
            Expr::Param { scope, index } => Expr::Param {
                scope: self.ensure(scope),
                index,
            },
            Expr::Attr { object, name } => Expr::Attr {
                object: self.copy(object),
                name,
            },
            Expr::Call { func, args } => {
                let func = self.copy(func);
                let args = args
                    .iter()
                    .map(|arg| {
                        let mut arg = arg.clone();
                        arg.value = self.copy(arg.value);
                        arg
                    })
                    .collect();
                Expr::Call { func, args }
            }
            Expr::Subscript { object, index, .. } => Expr::Subscript {
                object: self.copy(object),
                index: index.map(|index| self.copy(index)),
                read: None,
            },
            Expr::Seq(items) => Expr::Seq(items.iter().map(|&item| self.copy(item)).collect()),
            Expr::Starred(inner) => Expr::Starred(self.copy(inner)),
            Expr::Dict(entries) => Expr::Dict(
                entries
                    .iter()
                    .map(|&(key, value)| (key.map(|key| self.copy(key)), self.copy(value)))
                    .collect(),
            ),
            Expr::Comprehension { element } => Expr::Comprehension {
                element: self.copy(element),
            },
            Expr::Def(scope) => Expr::Def(self.ensure(scope)),
            Expr::Decorate { decorator, inner } => Expr::Decorate {
                decorator: self.copy(decorator),
                inner: self.copy(inner),
            },
            Expr::Iter(inner) => Expr::Iter(self.copy(inner)),
            Expr::SuperOf(class) => Expr::SuperOf(self.copy(class)),
            Expr::Typed(class) => Expr::Typed(self.copy(class)),
            Expr::Enter(inner) => Expr::Enter(self.copy(inner)),
            Expr::Super { function } => Expr::Super {
                function: self.ensure(function),
            },
            Expr::Union(items) => Expr::Union(items.iter().map(|&item| self.copy(item)).collect()),
            other @ (Expr::Module { .. }
            | Expr::ImportFrom { .. }
            | Expr::Const(_)
            | Expr::Builtin
            | Expr::Unknown) => other,
        };
        let new = self.new.exprs.len() as ExprId;
        self.new.exprs.push(expr);
        self.exprs.insert(old, new);
        new
    }
}
