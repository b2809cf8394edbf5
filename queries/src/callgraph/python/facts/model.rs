//! The expression graph one Python image is read into ([`Model`]): its expressions,
//! scopes with their parameters and bindings, and blocks; and the call sites ([`Site`])
//! and stores ([`Store`]) that point into it. A file's own facts and the interfaces of the
//! others have this one shape.
//!
//! Owns: the types, and reading the graph: a scope's bindings of a name, the bindings
//! that reach a read (flow-sensitive as far as blocks go).
//! Does not own: building the graph from a syntax tree (the walk: `facts`) or evaluating
//! it (`resolve`).

pub(crate) type ExprId = u32;
pub(crate) type ScopeId = u32;
pub(crate) type BlockId = u32;

/// The module scope: always scope 0.
pub(crate) const MODULE_SCOPE: ScopeId = 0;

/// Where a name is read: the statement's position in document order and its block,
/// for reaching-definition lookups within one scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct At {
    pub(crate) pos: u32,
    pub(crate) block: BlockId,
}

/// A name as an expression reads it: shared, since a file's facts spliced from its
/// fragments' copy every expression of every fragment.
pub(crate) type Name = std::sync::Arc<str>;

/// A constant usable as a container key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Key {
    Int(i64),
    Str(Box<str>),
    /// `[start:]` or `[start:stop]` with a constant start (no step).
    Slice(i64),
}

/// One argument of a call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Arg {
    pub(crate) keyword: Option<Box<str>>,
    pub(crate) value: ExprId,
    /// `*x` or `**x`: spread over parameters keel does not match.
    pub(crate) splat: bool,
}

/// An expression, as far as values flow through it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Expr {
    /// A name read: `scope` is the scope that defines it (resolved lexically when the
    /// facts are built; the module scope when nothing encloses a binding, then builtins
    /// and star imports). `at` is set when the read is in that same scope (then only the
    /// bindings that reach it count); `None` reads the bindings that reach the end of
    /// that scope (module and class scopes) or all of them (function scopes).
    Name {
        scope: ScopeId,
        name: Name,
        at: Option<At>,
    },
    /// The value passed for parameter `index` of function `scope`.
    Param {
        scope: ScopeId,
        index: u32,
    },
    Attr {
        object: ExprId,
        name: Name,
    },
    Call {
        func: ExprId,
        args: Box<[Arg]>,
    },
    /// `object[index]`; `None`: a slice or a key keel does not read. `read`: the scope
    /// and place of a subscript written in the source (for stores that replace an item).
    Subscript {
        object: ExprId,
        index: Option<ExprId>,
        read: Option<(ScopeId, At)>,
    },
    /// A tuple or list display.
    Seq(Box<[ExprId]>),
    Starred(ExprId),
    /// A dict display: `(key, value)`; a `**x` entry has no key.
    Dict(Box<[(Option<ExprId>, ExprId)]>),
    /// A list, set or generator comprehension: its elements are `element`.
    Comprehension {
        element: ExprId,
    },
    /// The undecorated value of a `def`, `class` or `lambda`.
    Def(ScopeId),
    /// `decorator(inner)`, applied when a definition runs.
    Decorate {
        decorator: ExprId,
        inner: ExprId,
    },
    /// `import a.b` binds `a` (dotted `a`); `import a.b as c` binds `c` (dotted `a.b`).
    Module {
        level: u32,
        dotted: Box<str>,
    },
    /// `from module import name` (`level` leading dots).
    ImportFrom {
        level: u32,
        module: Box<str>,
        name: Box<str>,
    },
    /// The elements iterating `iterable` yields.
    Iter(ExprId),
    /// What `with value as x` binds to `x`.
    Enter(ExprId),
    /// `super()` inside function `function`.
    Super {
        function: ScopeId,
    },
    /// `super(C, obj)`: the MRO after class `C`.
    SuperOf(ExprId),
    /// An instance of the classes an annotation names (`x: Foo`, `-> Foo`).
    Typed(ExprId),
    /// One of several (`a if c else b`, `a or b`).
    Union(Box<[ExprId]>),
    Const(Key),
    /// A value of a builtin type (a number, a string, a set, an operator's result).
    Builtin,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ScopeKind {
    Module,
    Class,
    Function,
    Lambda,
    Comprehension,
}

/// How a function defined in a class binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Flavor {
    Plain,
    Static,
    ClassMethod,
    /// A property's getter (`@property`, `@cached_property`, `@x.getter`).
    Property,
    /// A property's setter (`@x.setter`): called by `obj.x = value`.
    Setter,
    /// A property's deleter (`@x.deleter`).
    Deleter,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ParamKind {
    Positional,
    KeywordOnly,
    Args,
    Kwargs,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Param {
    pub(crate) name: Name,
    pub(crate) kind: ParamKind,
}

/// `name = value` in a scope. `floating` bindings (made from another scope through
/// `global`/`nonlocal`, or read from an interface) reach every read; `narrowed` ones
/// (what an `isinstance` says of a name in the block it guards) reach only the later
/// reads of their own block and the blocks in it, never a read at the end of the scope
/// nor an interface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Binding {
    pub(crate) name: Name,
    pub(crate) value: ExprId,
    pub(crate) pos: u32,
    pub(crate) block: BlockId,
    pub(crate) floating: bool,
    pub(crate) narrowed: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Scope {
    pub(crate) kind: ScopeKind,
    /// The qualified name (keel's unit name) of a class or function; empty otherwise.
    pub(crate) name: Box<str>,
    pub(crate) parent: Option<ScopeId>,
    /// A class or function that is a standing unit (a node of the graph).
    pub(crate) node: bool,
    pub(crate) flavor: Flavor,
    pub(crate) params: Vec<Param>,
    /// Sorted by (name, pos).
    pub(crate) bindings: Vec<Binding>,
    /// Each name's bindings in `bindings` (hash of the name, start, count), sorted: a
    /// read finds them without comparing names. Set with the order of `bindings` by
    /// [`Scope::sort_bindings`].
    pub(crate) names: Box<[(u64, u32, u32)]>,
    pub(crate) returns: Vec<ExprId>,
    pub(crate) yields: Vec<ExprId>,
    /// A class's bases, in order.
    pub(crate) bases: Vec<ExprId>,
    /// A class's instance attributes: `self.name = value` in its methods.
    pub(crate) self_stores: Vec<(Box<str>, ExprId)>,
    pub(crate) top: BlockId,
    /// A class defined under `if TYPE_CHECKING:`: it informs types, and its methods
    /// never run (no call reaches them).
    pub(crate) type_only: bool,
}

impl Scope {
    pub(super) fn new(
        kind: ScopeKind,
        name: Box<str>,
        parent: Option<ScopeId>,
        top: BlockId,
    ) -> Self {
        Self {
            kind,
            name,
            parent,
            node: false,
            flavor: Flavor::Plain,
            params: Vec::new(),
            bindings: Vec::new(),
            names: Box::default(),
            returns: Vec::new(),
            yields: Vec::new(),
            bases: Vec::new(),
            self_stores: Vec::new(),
            top,
            type_only: false,
        }
    }

    /// Sorts `bindings` by (name, position), keeping the order of equal ones, and indexes
    /// them for [`Scope::bindings_of`].
    pub(crate) fn sort_bindings(&mut self) {
        self.bindings
            .sort_by(|a, b| a.name.cmp(&b.name).then(a.pos.cmp(&b.pos)));
        let mut names = Vec::new();
        let mut start = 0;
        while let Some(first) = self.bindings.get(start) {
            let count = self.bindings[start..]
                .iter()
                .take_while(|b| b.name == first.name)
                .count();
            // Positions and counts fit in u32: a scope has far fewer than 2^32 bindings.
            names.push((
                name_hash(&first.name),
                u32::try_from(start).unwrap_or(u32::MAX),
                u32::try_from(count).unwrap_or(u32::MAX),
            ));
            start += count;
        }
        names.sort_unstable();
        self.names = names.into();
    }

    /// The bindings of `name`, in position order.
    pub(crate) fn bindings_of(&self, name: &str) -> &[Binding] {
        debug_assert!(
            self.bindings.is_empty() || !self.names.is_empty(),
            "bindings read before they were sorted"
        );
        let hash = name_hash(name);
        let first = self.names.partition_point(|&(h, ..)| h < hash);
        for &(h, start, count) in &self.names[first..] {
            if h != hash {
                break;
            }
            let bindings = &self.bindings[start as usize..(start + count) as usize];
            if bindings.first().is_some_and(|b| &*b.name == name) {
                return bindings;
            }
        }
        &[]
    }

    pub(crate) fn is_callable(&self) -> bool {
        matches!(self.kind, ScopeKind::Function | ScopeKind::Lambda)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Block {
    pub(crate) parent: Option<BlockId>,
    /// The body of a `for` or `while`: what is bound late in it reaches reads early in it.
    pub(crate) looped: bool,
}

/// The value graph of one module: what the resolver evaluates. A file's own facts and
/// the interfaces of the others have this one shape.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Model {
    pub(crate) exprs: Vec<Expr>,
    pub(crate) scopes: Vec<Scope>,
    pub(crate) blocks: Vec<Block>,
    /// `__all__` when the module spells it with literals.
    pub(crate) all: Option<Vec<Box<str>>>,
    /// `from module import *`: (level, module), in order.
    pub(crate) stars: Vec<(u32, Box<str>)>,
}

impl Model {
    pub(crate) fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id as usize]
    }

    pub(crate) fn scope(&self, id: ScopeId) -> &Scope {
        &self.scopes[id as usize]
    }

    /// The bindings of `name` in `scope` that reach a read at `at` (`None`: the end of
    /// the scope). Flow-sensitive only as far as blocks go: the last binding that
    /// dominates the read (an earlier statement of the read's block or of a block around
    /// it) kills those before it; conditional ones after it stay; in a loop, bindings
    /// later in the loop reach reads earlier in it.
    pub(crate) fn reaching(&self, scope: ScopeId, name: &str, at: Option<At>) -> Vec<ExprId> {
        self.reaching_among(scope, self.scope(scope).bindings_of(name), at)
    }

    /// [`Model::reaching`] for `bindings`, the bindings of one name in `scope`.
    pub(crate) fn reaching_among(
        &self,
        scope: ScopeId,
        bindings: &[Binding],
        at: Option<At>,
    ) -> Vec<ExprId> {
        let scope = self.scope(scope);
        if bindings.iter().all(|b| b.floating) {
            return bindings.iter().map(|b| b.value).collect();
        }
        let read = at.is_some();
        let at = at.unwrap_or(At {
            pos: u32::MAX,
            block: scope.top,
        });
        let dominating = bindings
            .iter()
            .filter(|b| !b.floating && b.pos < at.pos && self.encloses(b.block, at.block))
            .map(|b| b.pos)
            .max();
        bindings
            .iter()
            .filter(|b| !b.narrowed || (read && b.pos < at.pos && self.encloses(b.block, at.block)))
            .filter(|b| {
                b.floating
                    || (b.pos < at.pos && dominating.is_none_or(|d| b.pos >= d))
                    || (b.pos >= at.pos && self.share_loop(b.block, at.block))
            })
            .map(|b| b.value)
            .collect()
    }

    /// Whether block `outer` is `inner` or holds it.
    pub(crate) fn encloses(&self, outer: BlockId, inner: BlockId) -> bool {
        let mut block = Some(inner);
        while let Some(id) = block {
            if id == outer {
                return true;
            }
            block = self.blocks.get(id as usize).and_then(|b| b.parent);
        }
        false
    }

    /// Whether some loop body holds both blocks.
    fn share_loop(&self, a: BlockId, b: BlockId) -> bool {
        let mut block = Some(a);
        while let Some(id) = block {
            let Some(info) = self.blocks.get(id as usize) else {
                return false;
            };
            if info.looped && self.encloses(id, b) {
                return true;
            }
            block = info.parent;
        }
        false
    }
}

/// What a call site is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SiteKind {
    /// `f(args)`: the site's expression is the `Call`.
    Call,
    /// `@decorator` applied to a definition: the expression is the `Decorate`.
    Decorator,
    /// `raise C`: a class raised without a call is instantiated (implicit: an edge to its
    /// constructor, never unresolved).
    Raise,
    /// `for x in obj`: `obj.__iter__()` and its `__next__()` (implicit).
    Iterate,
    /// `with obj:`: `obj.__enter__()` and `obj.__exit__()` (implicit).
    Enter,
    /// `obj.name` read, not called: the getter when `name` is a property (implicit). The
    /// expression is the `Attr`. A called `obj.name()` is its call's site.
    Attribute,
    /// `obj.name = value` (and `obj.name += value`): the setter when `name` is a property
    /// (implicit). The expression is an `Attr` of the target.
    Assign,
    /// `obj[key]` read: `obj.__getitem__`, or on a class `__class_getitem__` (`Base[T]`
    /// in a class's bases) (implicit). The expression is the `Subscript`.
    Subscript,
}

impl SiteKind {
    /// Implicit sites give edges when they resolve and are never unresolved.
    pub(crate) fn implicit(self) -> bool {
        matches!(
            self,
            Self::Raise
                | Self::Iterate
                | Self::Enter
                | Self::Attribute
                | Self::Assign
                | Self::Subscript
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Site {
    pub(crate) kind: SiteKind,
    pub(crate) expr: ExprId,
    pub(crate) line: u32,
    /// The scope that makes the call (a node, or the module).
    pub(crate) owner: ScopeId,
    /// The callee as written.
    pub(crate) text: Box<str>,
}

/// `object.attr = value` or `object[index] = value` (also `append`/`extend`/`update`/
/// `insert`/`setdefault` on `object`), other than `self.attr = value` in a method.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Store {
    pub(crate) object: ExprId,
    pub(crate) target: StoreTarget,
    pub(crate) value: ExprId,
    /// The scope and place of the store.
    pub(crate) scope: ScopeId,
    pub(crate) at: At,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum StoreTarget {
    Attr(Box<str>),
    Item(Option<ExprId>),
}

/// The hash a scope's name index sorts by.
fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = rustc_hash::FxHasher::default();
    name.hash(&mut hasher);
    hasher.finish()
}
