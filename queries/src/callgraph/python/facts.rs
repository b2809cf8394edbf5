//! What one Python image says, read once per image: its scopes (the module, classes,
//! functions, lambdas and comprehensions), the values its names are bound to, its call
//! sites and its stores, as a small expression graph ([`Model`], [`Facts`]).
//!
//! Owns: the tree-sitter walk (tolerant: ERROR regions are skipped, the rest counts), the
//! scope rules (a name is local to the scope that binds it, `global`/`nonlocal` move it,
//! class scopes are invisible to the functions inside them, default arguments, decorators
//! and base classes are evaluated in the enclosing scope), the naming of scopes (equal to
//! keel's unit names, `extract::python`), and where a call belongs (the nearest named
//! scope that is a standing unit; the module otherwise). A file that parses cleanly is
//! walked in fragments: each function of the module's body or of a top-level class's body
//! (directly or in a block there) is walked alone and spliced (`chunk`), the rest in
//! place; the facts are equal.
//! Does not own: what the values are (`resolve`), what other files may read (`interface`),
//! memoizing fragments (`fragments`).

mod chunk;

pub(crate) use chunk::{Chunk, Fragment, Fragments, walk_alone, walk_in_tree};

use crate::extract::Language;
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use keel_engine::HintStore;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tree_sitter::{Node, Tree};

pub(crate) type ExprId = u32;
pub(crate) type ScopeId = u32;
pub(crate) type BlockId = u32;

/// The module scope: always scope 0.
pub(crate) const MODULE_SCOPE: ScopeId = 0;
/// The owner of the code inside a left-out unit: its sites are not recorded.
const DROPPED: ScopeId = ScopeId::MAX;

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
    Property,
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
/// `global`/`nonlocal`, or read from an interface) reach every read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Binding {
    pub(crate) name: Name,
    pub(crate) value: ExprId,
    pub(crate) pos: u32,
    pub(crate) block: BlockId,
    pub(crate) floating: bool,
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
}

impl Scope {
    fn new(kind: ScopeKind, name: Box<str>, parent: Option<ScopeId>, top: BlockId) -> Self {
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
}

impl SiteKind {
    /// Implicit sites give edges when they resolve and are never unresolved.
    pub(crate) fn implicit(self) -> bool {
        matches!(self, Self::Raise | Self::Iterate | Self::Enter)
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

/// One image's facts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Facts {
    pub(crate) model: Model,
    pub(crate) sites: Vec<Site>,
    pub(crate) stores: Vec<Store>,
    /// The source did not parse cleanly (or is not text): ERROR regions were skipped.
    pub(crate) partial: bool,
    /// Where the fragments' chunks lie in these facts: empty when they were walked whole.
    pub(crate) layout: Layout,
}

/// The fragments spliced into a file's facts. Two versions of a file whose texts are
/// equal but inside one fragment, whose chunks add the same to the skeleton, have equal
/// facts outside that fragment's ids, the ids after it shifted by its change in size
/// (`resolve` replays a resolution across such an edit).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Layout {
    /// The text the chunks' byte ranges index (the file's, decoded when it declares an
    /// encoding); empty when nothing was spliced.
    pub(crate) source: std::sync::Arc<[u8]>,
    /// In file order.
    pub(crate) chunks: Vec<ChunkSpan>,
}

impl Layout {
    /// The one fragment whose text differs between this layout and `new`, when their
    /// texts are equal outside it and they have as many fragments.
    pub(crate) fn single_change(&self, new: &Layout) -> Option<usize> {
        if self.chunks.is_empty() || self.chunks.len() != new.chunks.len() {
            return None;
        }
        let (old, source) = (&self.source, &new.source);
        let mut differing = self
            .chunks
            .iter()
            .zip(&new.chunks)
            .enumerate()
            .filter(|(_, (was, now))| old.get(was.bytes.clone()) != source.get(now.bytes.clone()));
        let (x, (was, now)) = differing.next()?;
        let equal_outside = differing.next().is_none()
            && old.get(..was.bytes.start) == source.get(..now.bytes.start)
            && old.get(was.bytes.end..) == source.get(now.bytes.end..);
        equal_outside.then_some(x)
    }
}

/// One fragment's place in its file's text and facts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ChunkSpan {
    /// Its text in the file's: from its first line's start to its end.
    pub(crate) bytes: std::ops::Range<usize>,
    /// Its chunk (shared with its memo).
    pub(crate) chunk: std::sync::Arc<Chunk>,
    pub(crate) exprs: std::ops::Range<ExprId>,
    pub(crate) scopes: std::ops::Range<ScopeId>,
    pub(crate) blocks: std::ops::Range<BlockId>,
    pub(crate) sites: std::ops::Range<u32>,
    pub(crate) stores: std::ops::Range<u32>,
    /// The statement positions it takes.
    pub(crate) positions: std::ops::Range<u32>,
}

/// Nesting beyond this depth is not read (its calls are lost, never a stack overflow).
const MAX_DEPTH: u32 = 400;
/// Callee texts are cut to this many characters.
const MAX_TEXT: usize = 160;

/// What keel's extraction says of an image's units.
pub(crate) struct Standing<'a> {
    /// The qualified names of its standing units: the scopes that are graph nodes.
    pub(crate) units: HashSet<&'a str>,
    /// The units a partial parse left out: their calls (decorators and defaults
    /// included) are not read, since their lines cannot be trusted.
    pub(crate) left_out: HashSet<&'a str>,
}

/// The facts of `content`, the image at `path` (whose tree the extractor may have just
/// parsed on this thread: reused then, see [`crate::extract::cached_tree`]). With
/// `fragments`, a file that parses cleanly takes each fragment's facts from it
/// ([`Fragments`]) instead of walking it: the facts are equal.
pub(crate) fn read(
    store: &HintStore,
    path: &str,
    content: &std::sync::Arc<[u8]>,
    standing: &Standing<'_>,
    fragments: Option<&dyn Fragments>,
) -> Facts {
    let Ok(source) = Language::Python.text(content) else {
        return unread();
    };
    let cached = (source.as_bytes() == content.as_ref())
        .then(|| crate::extract::cached_tree(store, Language::Python, path, content))
        .flatten();
    let Some(tree) = cached.or_else(|| parse(store, &source)) else {
        return unread();
    };
    let partial = tree.root_node().has_error();
    let mut builder = Builder::new(&source, standing);
    // Room for the expressions at once (Python source averages 20 to 45 bytes per
    // expression): splicing fragments into a vector grown many times copied it again
    // and again.
    builder.model.exprs.reserve(source.len() / 16);
    if !partial && standing.left_out.is_empty() {
        builder.fragments = fragments.map(|fragments| (fragments, &tree));
    }
    builder.module(tree.root_node());
    let mut facts = builder.finish();
    facts.partial = partial;
    if !facts.layout.chunks.is_empty() {
        // The decoded text is most often the content itself: shared, not copied.
        facts.layout.source = match source.as_bytes() == content.as_ref() {
            true => std::sync::Arc::clone(content),
            false => std::sync::Arc::from(source.as_bytes()),
        };
    }
    facts
}

/// The facts of a file keel does not read (its text cannot be decoded or its blob read,
/// or it is past the tree's bound): an empty module — its scope and nothing in it, so
/// every name read of it is unresolved — marked partial.
pub(crate) fn unread() -> Facts {
    let standing = Standing {
        units: HashSet::default(),
        left_out: HashSet::default(),
    };
    Facts {
        partial: true,
        ..Builder::new("", &standing).finish()
    }
}

/// The ids below `len` outside `ranges` (ascending, disjoint), as ranges.
fn complement(
    ranges: impl Iterator<Item = std::ops::Range<u32>> + Clone,
    len: u32,
) -> impl Iterator<Item = std::ops::Range<u32>> {
    let starts = std::iter::once(0).chain(ranges.clone().map(|range| range.end));
    let ends = ranges.map(|range| range.start).chain(std::iter::once(len));
    starts
        .zip(ends)
        .filter(|(start, end)| start < end)
        .map(|(start, end)| start..end)
}

/// The id of the next element of a vector of `len` elements.
fn id_of(len: usize) -> u32 {
    // Ids are u32 throughout the facts: a file has far fewer than 2^32 expressions.
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// A tree of `source` parsed from scratch, with this thread's Python parser in `store`.
fn parse(store: &HintStore, source: &str) -> Option<Tree> {
    crate::extract::python_tree(store, source)
}

/// Where the walk is: the scope names are read in, the scope calls belong to, the block.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    scope: ScopeId,
    owner: ScopeId,
    block: BlockId,
}

struct Builder<'s> {
    src: &'s str,
    /// Where `src` starts in the tree's text, in bytes and rows: 0 for a file, the
    /// fragment's first line for a fragment walked in its file's tree.
    byte_base: usize,
    row_base: usize,
    standing: &'s Standing<'s>,
    /// Where fragments' facts come from, and the tree they are read in; `None` walks
    /// every statement.
    fragments: Option<(&'s dyn Fragments, &'s Tree)>,
    model: Model,
    sites: Vec<Site>,
    stores: Vec<Store>,
    pos: u32,
    depth: u32,
    /// Names each scope binds (locals), for lexical resolution.
    binds: Vec<HashSet<Box<str>>>,
    globals: Vec<HashSet<Box<str>>>,
    nonlocals: Vec<HashSet<Box<str>>>,
    /// The `self` parameter's name of each plain method scope.
    self_name: HashMap<ScopeId, Box<str>>,
    all_unknown: bool,
    /// Names spliced chunks read in their class's body (decorators, defaults), which
    /// only the whole class resolves.
    pending_names: Vec<ExprId>,
    /// The spliced chunks' places, in splice order: a chunk resolved its expressions'
    /// names and sorted its scopes' bindings already.
    chunk_spans: Vec<ChunkSpan>,
}

impl<'s> Builder<'s> {
    fn new(src: &'s str, standing: &'s Standing<'s>) -> Self {
        let mut builder = Self {
            src,
            byte_base: 0,
            row_base: 0,
            standing,
            fragments: None,
            model: Model::default(),
            sites: Vec::new(),
            stores: Vec::new(),
            pos: 0,
            depth: 0,
            binds: Vec::new(),
            globals: Vec::new(),
            nonlocals: Vec::new(),
            self_name: HashMap::default(),
            all_unknown: false,
            pending_names: Vec::new(),
            chunk_spans: Vec::new(),
        };
        builder.new_scope(ScopeKind::Module, "".into(), None);
        builder
    }

    fn finish(mut self) -> Facts {
        if self.all_unknown {
            self.model.all = None;
        }
        let spans = std::mem::take(&mut self.chunk_spans);
        let spliced_exprs = spans.iter().map(|span| span.exprs.clone());
        for range in complement(spliced_exprs, id_of(self.model.exprs.len())) {
            for expr in range {
                self.resolve_name(expr);
            }
        }
        for expr in std::mem::take(&mut self.pending_names) {
            self.resolve_name(expr);
        }
        let spliced_scopes = spans.iter().map(|span| span.scopes.clone());
        for range in complement(spliced_scopes, id_of(self.model.scopes.len())) {
            for scope in &mut self.model.scopes[range.start as usize..range.end as usize] {
                scope.sort_bindings();
            }
        }
        Facts {
            model: self.model,
            sites: self.sites,
            stores: self.stores,
            partial: false,
            layout: Layout {
                source: std::sync::Arc::from([]),
                chunks: spans,
            },
        }
    }

    /// Rewrites a `Name` to the scope that defines it (Python's LEGB rule, with class
    /// scopes visible only to code directly in them).
    fn resolve_name(&mut self, expr: ExprId) {
        let Expr::Name { scope, name, .. } = &self.model.exprs[expr as usize] else {
            return;
        };
        let defining = self.defining_scope(*scope, name);
        if defining != *scope {
            // Read from another scope: the bindings reaching that scope's end.
            let name = name.clone();
            self.model.exprs[expr as usize] = Expr::Name {
                scope: defining,
                name,
                at: None,
            };
        }
    }

    fn defining_scope(&self, from: ScopeId, name: &str) -> ScopeId {
        let mut scope = from;
        let mut first = true;
        loop {
            let index = scope as usize;
            if self.globals[index].contains(name) {
                return MODULE_SCOPE;
            }
            let kind = self.model.scopes[index].kind;
            if !self.nonlocals[index].contains(name)
                && (first || kind != ScopeKind::Class)
                && self.binds[index].contains(name)
            {
                return scope;
            }
            match self.model.scopes[index].parent {
                Some(parent) => {
                    scope = parent;
                    first = false;
                }
                None => return MODULE_SCOPE,
            }
        }
    }

    fn new_scope(&mut self, kind: ScopeKind, name: Box<str>, parent: Option<ScopeId>) -> ScopeId {
        let top = self.new_block(None, false);
        let id = self.model.scopes.len() as ScopeId;
        let mut scope = Scope::new(kind, name, parent, top);
        scope.node = matches!(kind, ScopeKind::Class | ScopeKind::Function)
            && self.standing.units.contains(&*scope.name);
        self.model.scopes.push(scope);
        self.binds.push(HashSet::default());
        self.globals.push(HashSet::default());
        self.nonlocals.push(HashSet::default());
        id
    }

    fn new_block(&mut self, parent: Option<BlockId>, looped: bool) -> BlockId {
        let id = self.model.blocks.len() as BlockId;
        self.model.blocks.push(Block { parent, looped });
        id
    }

    fn push(&mut self, expr: Expr) -> ExprId {
        let id = self.model.exprs.len() as ExprId;
        self.model.exprs.push(expr);
        id
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        let start = node.start_byte().saturating_sub(self.byte_base);
        let end = node.end_byte().saturating_sub(self.byte_base);
        self.src.get(start..end).unwrap_or("")
    }

    /// The 1-based line of `row`, counted from `src`'s first line.
    fn line(&self, row: usize) -> u32 {
        u32::try_from(row.saturating_sub(self.row_base) + 1).unwrap_or(u32::MAX)
    }

    /// The qualified-name prefix of the nearest class or function around `scope`.
    fn prefix(&self, mut scope: ScopeId) -> Box<str> {
        loop {
            let s = &self.model.scopes[scope as usize];
            match s.kind {
                ScopeKind::Class | ScopeKind::Function | ScopeKind::Module => {
                    return s.name.clone();
                }
                ScopeKind::Lambda | ScopeKind::Comprehension => match s.parent {
                    Some(parent) => scope = parent,
                    None => return "".into(),
                },
            }
        }
    }

    /// Binds `name` in the walk's scope (or where `global`/`nonlocal` send it).
    fn bind(&mut self, ctx: Ctx, name: &str, value: ExprId) {
        let mut scope = ctx.scope;
        // Walrus targets in comprehensions bind in the enclosing scope: callers pass that.
        let index = scope as usize;
        let floating = if self.globals[index].contains(name) {
            scope = MODULE_SCOPE;
            true
        } else if self.nonlocals[index].contains(name) {
            let mut parent = self.model.scopes[index].parent;
            while let Some(p) = parent {
                let s = &self.model.scopes[p as usize];
                if s.kind == ScopeKind::Function && self.binds[p as usize].contains(name) {
                    break;
                }
                parent = s.parent;
            }
            match parent {
                Some(p) => scope = p,
                None => return,
            }
            true
        } else {
            false
        };
        self.binds[scope as usize].insert(name.into());
        self.model.scopes[scope as usize].bindings.push(Binding {
            name: name.into(),
            value,
            pos: self.pos,
            block: ctx.block,
            floating,
        });
    }

    fn module(&mut self, root: Node<'_>) {
        let ctx = Ctx {
            scope: MODULE_SCOPE,
            owner: MODULE_SCOPE,
            block: self.model.scopes[0].top,
        };
        self.statements(root, ctx);
    }

    fn statements(&mut self, block: Node<'_>, ctx: Ctx) {
        let mut cursor = block.walk();
        let children: Vec<Node<'_>> = block.named_children(&mut cursor).collect();
        for child in children {
            self.statement(child, ctx);
        }
    }

    /// A nested block (a clause's body) in a new block id.
    fn sub_block(&mut self, node: Option<Node<'_>>, ctx: Ctx, looped: bool) {
        let Some(node) = node else { return };
        let block = self.new_block(Some(ctx.block), looped);
        self.statements(node, Ctx { block, ..ctx });
    }

    fn statement(&mut self, node: Node<'_>, ctx: Ctx) {
        if let Some(chunk) = self.fragment_chunk(node, ctx) {
            self.splice(chunk, node, ctx);
            return;
        }
        self.pos += 1;
        match node.kind_name() {
            "expression_statement" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "assignment" => self.assignment(child, ctx),
                        "augmented_assignment" => self.augmented(child, ctx),
                        _ => {
                            self.expr(child, ctx);
                        }
                    }
                }
            }
            "function_definition" | "class_definition" => self.definition(node, &[], ctx),
            "decorated_definition" => {
                let mut cursor = node.walk();
                let decorators: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "decorator")
                    .collect();
                if let Some(definition) = node.field(&fields::DEFINITION) {
                    self.definition(definition, &decorators, ctx);
                }
            }
            "return_statement" => {
                let value = self.opt_expr(node.named_child(0), Expr::Builtin, ctx);
                let function = self.callable_scope(ctx.scope);
                if let Some(function) = function {
                    self.model.scopes[function as usize].returns.push(value);
                }
            }
            "if_statement" => {
                if let Some(condition) = node.field(&fields::CONDITION) {
                    self.expr(condition, ctx);
                }
                self.sub_block(node.field(&fields::CONSEQUENCE), ctx, false);
                let mut cursor = node.walk();
                let alternatives: Vec<Node<'_>> = node
                    .children_by_field_name("alternative", &mut cursor)
                    .collect();
                for alternative in alternatives {
                    if let Some(condition) = alternative.field(&fields::CONDITION) {
                        self.expr(condition, ctx);
                    }
                    let body = alternative
                        .field(&fields::CONSEQUENCE)
                        .or_else(|| alternative.field(&fields::BODY));
                    self.sub_block(body, ctx, false);
                }
            }
            "for_statement" => {
                let iterable = self.opt_expr(node.field(&fields::RIGHT), Expr::Unknown, ctx);
                self.implicit_site(SiteKind::Iterate, iterable, node, ctx);
                let element = self.push(Expr::Iter(iterable));
                let body_block = self.new_block(Some(ctx.block), true);
                let body_ctx = Ctx {
                    block: body_block,
                    ..ctx
                };
                if let Some(left) = node.field(&fields::LEFT) {
                    self.target(left, element, body_ctx);
                }
                if let Some(body) = node.field(&fields::BODY) {
                    self.statements(body, body_ctx);
                }
                if let Some(alternative) = node.field(&fields::ALTERNATIVE) {
                    self.sub_block(alternative.field(&fields::BODY), ctx, false);
                }
            }
            "while_statement" => {
                let body_block = self.new_block(Some(ctx.block), true);
                let body_ctx = Ctx {
                    block: body_block,
                    ..ctx
                };
                if let Some(condition) = node.field(&fields::CONDITION) {
                    self.expr(condition, body_ctx);
                }
                if let Some(body) = node.field(&fields::BODY) {
                    self.statements(body, body_ctx);
                }
                if let Some(alternative) = node.field(&fields::ALTERNATIVE) {
                    self.sub_block(alternative.field(&fields::BODY), ctx, false);
                }
            }
            "try_statement" => {
                self.sub_block(node.field(&fields::BODY), ctx, false);
                let mut cursor = node.walk();
                let clauses: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for clause in clauses {
                    match clause.kind_name() {
                        "except_clause" | "except_group_clause" => self.except(clause, ctx),
                        "else_clause" => {
                            self.sub_block(clause.field(&fields::BODY), ctx, false);
                        }
                        "finally_clause" => {
                            let mut inner = clause.walk();
                            let body = clause
                                .named_children(&mut inner)
                                .find(|child| child.kind_name() == "block");
                            self.sub_block(body, ctx, false);
                        }
                        _ => {}
                    }
                }
            }
            "with_statement" => {
                let block = self.new_block(Some(ctx.block), false);
                let inner = Ctx { block, ..ctx };
                let mut cursor = node.walk();
                let clauses: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "with_clause")
                    .collect();
                for clause in clauses {
                    let mut items_cursor = clause.walk();
                    let items: Vec<Node<'_>> = clause
                        .named_children(&mut items_cursor)
                        .filter(|child| child.kind_name() == "with_item")
                        .collect();
                    for item in items {
                        self.with_item(item, ctx, inner);
                    }
                }
                if let Some(body) = node.field(&fields::BODY) {
                    self.statements(body, inner);
                }
            }
            "match_statement" => {
                if let Some(subject) = node.field(&fields::SUBJECT) {
                    self.expr(subject, ctx);
                }
                let mut cursor = node.walk();
                let bodies: Vec<Node<'_>> =
                    node.children_by_field_name("body", &mut cursor).collect();
                for body in bodies {
                    let mut inner = body.walk();
                    let cases: Vec<Node<'_>> = body
                        .named_children(&mut inner)
                        .filter(|child| child.kind_name() == "case_clause")
                        .collect();
                    for case in cases {
                        if let Some(guard) = case.field(&fields::GUARD) {
                            self.children_exprs(guard, ctx);
                        }
                        self.sub_block(case.field(&fields::CONSEQUENCE), ctx, false);
                    }
                }
            }
            "import_statement" => self.import(node, ctx),
            "import_from_statement" => self.import_from(node, ctx),
            "global_statement" | "nonlocal_statement" => {
                let global = node.kind_name() == "global_statement";
                let mut cursor = node.walk();
                let names: Vec<Box<str>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "identifier")
                    .map(|child| self.text(child).into())
                    .collect();
                let index = ctx.scope as usize;
                for name in names {
                    if global {
                        self.globals[index].insert(name);
                    } else {
                        self.nonlocals[index].insert(name);
                    }
                }
            }
            "raise_statement" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for (index, child) in children.into_iter().enumerate() {
                    let value = self.expr(child, ctx);
                    if index == 0 && child.kind_name() != "call" {
                        self.implicit_site(SiteKind::Raise, value, child, ctx);
                    }
                }
            }
            "future_import_statement"
            | "pass_statement"
            | "break_statement"
            | "continue_statement"
            | "comment"
            | "ERROR"
            | "type_alias_statement" => {}
            "block" => self.statements(node, ctx),
            _ => self.children_exprs(node, ctx),
        }
    }

    /// The nearest function or lambda scope (returns and yields belong to it).
    fn callable_scope(&self, mut scope: ScopeId) -> Option<ScopeId> {
        loop {
            let s = &self.model.scopes[scope as usize];
            match s.kind {
                ScopeKind::Function | ScopeKind::Lambda => return Some(scope),
                ScopeKind::Comprehension => scope = s.parent?,
                ScopeKind::Module | ScopeKind::Class => return None,
            }
        }
    }

    /// The nearest scope that is not a comprehension (walrus targets bind there).
    fn binding_scope(&self, mut scope: ScopeId) -> ScopeId {
        loop {
            let s = &self.model.scopes[scope as usize];
            match (s.kind, s.parent) {
                (ScopeKind::Comprehension, Some(parent)) => scope = parent,
                _ => return scope,
            }
        }
    }

    fn except(&mut self, clause: Node<'_>, ctx: Ctx) {
        let block = self.new_block(Some(ctx.block), false);
        let inner = Ctx { block, ..ctx };
        let mut cursor = clause.walk();
        let children: Vec<Node<'_>> = clause.named_children(&mut cursor).collect();
        let alias = clause.field(&fields::ALIAS);
        let mut caught = None;
        for child in children {
            if child.kind_name() == "block" {
                self.statements(child, inner);
            } else if Some(child) == alias {
                if let Some(caught) = caught {
                    let instance = self.push(Expr::Call {
                        func: caught,
                        args: Box::new([]),
                    });
                    self.target(child, instance, inner);
                }
            } else if child.kind_name() == "as_pattern" {
                // `except E as e` in grammars that wrap it.
                let value = self.opt_expr(child.named_child(0), Expr::Unknown, ctx);
                let instance = self.push(Expr::Call {
                    func: value,
                    args: Box::new([]),
                });
                if let Some(target) = child.field(&fields::ALIAS) {
                    self.alias_target(target, instance, inner);
                }
            } else if child.kind_name() != "comment" {
                caught = Some(self.expr(child, ctx));
            }
        }
    }

    fn with_item(&mut self, item: Node<'_>, outer: Ctx, inner: Ctx) {
        let Some(value) = item.field(&fields::VALUE) else {
            return;
        };
        if value.kind_name() == "as_pattern" {
            let managed = self.opt_expr(value.named_child(0), Expr::Unknown, outer);
            self.implicit_site(SiteKind::Enter, managed, item, outer);
            let entered = self.push(Expr::Enter(managed));
            if let Some(target) = value.field(&fields::ALIAS) {
                self.alias_target(target, entered, inner);
            }
        } else {
            let managed = self.expr(value, outer);
            self.implicit_site(SiteKind::Enter, managed, item, outer);
        }
    }

    /// An `as_pattern_target` (or the pattern itself).
    fn alias_target(&mut self, target: Node<'_>, value: ExprId, ctx: Ctx) {
        if target.kind_name() == "as_pattern_target" {
            if let Some(inner) = target.named_child(0) {
                self.target(inner, value, ctx);
            }
        } else {
            self.target(target, value, ctx);
        }
    }

    fn import(&mut self, node: Node<'_>, ctx: Ctx) {
        let mut cursor = node.walk();
        let names: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            match name.kind_name() {
                "dotted_name" => {
                    let dotted = self.text(name).to_owned();
                    let first = dotted.split('.').next().unwrap_or("").trim().to_owned();
                    let value = self.push(Expr::Module {
                        level: 0,
                        dotted: first.as_str().into(),
                    });
                    self.bind(ctx, &first, value);
                }
                "aliased_import" => {
                    let (Some(dotted), Some(alias)) =
                        (name.field(&fields::NAME), name.field(&fields::ALIAS))
                    else {
                        continue;
                    };
                    let dotted = compact(self.text(dotted));
                    let value = self.push(Expr::Module {
                        level: 0,
                        dotted: dotted.into(),
                    });
                    let alias = self.text(alias);
                    self.bind(ctx, alias, value);
                }
                _ => {}
            }
        }
    }

    fn import_from(&mut self, node: Node<'_>, ctx: Ctx) {
        let Some(module) = node.field(&fields::MODULE_NAME) else {
            return;
        };
        let (level, dotted) = if module.kind_name() == "relative_import" {
            let mut cursor = module.walk();
            let mut level = 0;
            let mut dotted = String::new();
            for child in module.named_children(&mut cursor) {
                match child.kind_name() {
                    "import_prefix" => {
                        level = u32::try_from(self.text(child).matches('.').count()).unwrap_or(0);
                    }
                    "dotted_name" => dotted = compact(self.text(child)),
                    _ => {}
                }
            }
            (level, dotted)
        } else {
            (0, compact(self.text(module)))
        };
        let mut cursor = node.walk();
        let wildcard = node
            .named_children(&mut cursor)
            .any(|child| child.kind_name() == "wildcard_import");
        if wildcard {
            if ctx.scope == MODULE_SCOPE {
                self.model.stars.push((level, dotted.into()));
            }
            return;
        }
        let mut cursor = node.walk();
        let names: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            let (imported, alias) = match name.kind_name() {
                "dotted_name" => (compact(self.text(name)), None),
                "aliased_import" => {
                    let Some(imported) = name.field(&fields::NAME) else {
                        continue;
                    };
                    (
                        compact(self.text(imported)),
                        name.field(&fields::ALIAS)
                            .map(|alias| self.text(alias).to_owned()),
                    )
                }
                _ => continue,
            };
            let value = self.push(Expr::ImportFrom {
                level,
                module: dotted.as_str().into(),
                name: imported.as_str().into(),
            });
            let bound = alias.unwrap_or(imported);
            self.bind(ctx, &bound, value);
        }
    }

    /// A `def` or `class` with its decorators (outermost first).
    fn definition(&mut self, node: Node<'_>, decorators: &[Node<'_>], ctx: Ctx) {
        let Some(name_node) = node.field(&fields::NAME) else {
            return;
        };
        let name = self.text(name_node).to_owned();
        let qualified: Box<str> = {
            let prefix = self.prefix(ctx.scope);
            if prefix.is_empty() {
                name.as_str().into()
            } else {
                format!("{prefix}.{name}").into()
            }
        };
        // A unit a partial parse left out: nothing in it (its header included) is a call
        // keel can place.
        let ctx = if self.standing.left_out.contains(&*qualified) {
            Ctx {
                owner: DROPPED,
                ..ctx
            }
        } else {
            ctx
        };
        // Decorators run in the enclosing scope, before the definition binds.
        let decorator_exprs: Vec<(ExprId, Node<'_>)> = decorators
            .iter()
            .filter_map(|decorator| {
                let expr = decorator.named_child(0)?;
                Some((self.expr(expr, ctx), expr))
            })
            .collect();
        let class = node.kind_name() == "class_definition";
        let scope = self.new_scope(
            if class {
                ScopeKind::Class
            } else {
                ScopeKind::Function
            },
            qualified,
            Some(ctx.scope),
        );
        let in_class = self.model.scopes[ctx.scope as usize].kind == ScopeKind::Class;
        if !class && in_class {
            self.model.scopes[scope as usize].flavor =
                flavor(decorators.iter().filter_map(|d| d.named_child(0)), |n| {
                    self.text(n)
                });
        }
        let owner = if self.model.scopes[scope as usize].node {
            scope
        } else {
            ctx.owner
        };
        let body_ctx = Ctx {
            scope,
            owner,
            block: self.model.scopes[scope as usize].top,
        };
        if class {
            if let Some(superclasses) = node.field(&fields::SUPERCLASSES) {
                let mut cursor = superclasses.walk();
                let children: Vec<Node<'_>> = superclasses.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "keyword_argument" => {
                            if let Some(value) = child.field(&fields::VALUE) {
                                self.expr(value, ctx);
                            }
                        }
                        "comment" => {}
                        _ => {
                            let base = self.expr(child, ctx);
                            self.model.scopes[scope as usize].bases.push(base);
                        }
                    }
                }
            }
        } else if let Some(parameters) = node.field(&fields::PARAMETERS) {
            self.parameters(parameters, scope, ctx, in_class);
        }
        if let Some(body) = node.field(&fields::BODY) {
            self.statements(body, body_ctx);
        }
        // `-> T`: what a function returns, besides what its body returns (not for a
        // generator, whose annotation names the iterator).
        let returns = node
            .field(&fields::RETURN_TYPE)
            .and_then(|annotation| self.annotation(annotation, ctx));
        if let Some(returns) = returns {
            let function = &mut self.model.scopes[scope as usize];
            if function.yields.is_empty() {
                function.returns.push(returns);
            }
        }
        // The definition binds after its body is built, at the statement's position.
        let mut value = self.push(Expr::Def(scope));
        for (decorator, decorator_node) in decorator_exprs.into_iter().rev() {
            value = self.push(Expr::Decorate {
                decorator,
                inner: value,
            });
            self.site(SiteKind::Decorator, value, decorator_node, ctx);
        }
        self.bind(ctx, &name, value);
    }

    /// A function's or lambda's parameters: defaults are evaluated in `outer`; each
    /// parameter is bound in `scope` before its body.
    fn parameters(&mut self, parameters: Node<'_>, scope: ScopeId, outer: Ctx, in_class: bool) {
        let mut cursor = parameters.walk();
        let children: Vec<Node<'_>> = parameters.named_children(&mut cursor).collect();
        let mut keyword_only = false;
        let inner = Ctx {
            scope,
            owner: outer.owner,
            block: self.model.scopes[scope as usize].top,
        };
        for child in children {
            let (name_node, default, kind) = match child.kind_name() {
                "identifier" => (Some(child), None, None),
                "typed_parameter" => {
                    let inner = child.named_child(0);
                    match inner.map(|n| n.kind_name()) {
                        Some("list_splat_pattern") => (
                            inner.and_then(|n| n.named_child(0)),
                            None,
                            Some(ParamKind::Args),
                        ),
                        Some("dictionary_splat_pattern") => (
                            inner.and_then(|n| n.named_child(0)),
                            None,
                            Some(ParamKind::Kwargs),
                        ),
                        _ => (inner, None, None),
                    }
                }
                "default_parameter" | "typed_default_parameter" => (
                    child.field(&fields::NAME),
                    child.field(&fields::VALUE),
                    None,
                ),
                "list_splat_pattern" => (child.named_child(0), None, Some(ParamKind::Args)),
                "dictionary_splat_pattern" => (child.named_child(0), None, Some(ParamKind::Kwargs)),
                "keyword_separator" => {
                    keyword_only = true;
                    continue;
                }
                _ => continue,
            };
            let kind = kind.unwrap_or(if keyword_only {
                ParamKind::KeywordOnly
            } else {
                ParamKind::Positional
            });
            if kind == ParamKind::Args {
                keyword_only = true;
            }
            let default = default.map(|value| self.expr(value, outer));
            let annotation = child
                .field(&fields::TYPE)
                .and_then(|annotation| self.annotation(annotation, outer));
            let Some(name_node) = name_node.filter(|n| n.kind_name() == "identifier") else {
                continue;
            };
            let name = self.text(name_node);
            let index = self.model.scopes[scope as usize].params.len() as u32;
            self.model.scopes[scope as usize].params.push(Param {
                name: name.into(),
                kind,
            });
            if index == 0 && in_class && self.model.scopes[scope as usize].flavor == Flavor::Plain {
                self.self_name.insert(scope, name.into());
            }
            let param = self.push(Expr::Param { scope, index });
            let value = match (default, annotation) {
                (None, None) => param,
                (default, annotation) => {
                    let items: Box<[ExprId]> = [Some(param), default, annotation]
                        .into_iter()
                        .flatten()
                        .collect();
                    self.push(Expr::Union(items))
                }
            };
            self.bind(inner, name, value);
        }
        self.pos += 1;
    }

    fn assignment(&mut self, node: Node<'_>, ctx: Ctx) {
        // `a = b = value`: the right side nests.
        let mut targets = Vec::new();
        let mut current = node;
        let value = loop {
            if let Some(left) = current.field(&fields::LEFT) {
                targets.push(left);
            }
            match current.field(&fields::RIGHT) {
                Some(right) if right.kind_name() == "assignment" => current = right,
                Some(right) => break Some(self.expr(right, ctx)),
                None => break None,
            }
        };
        let annotation = node
            .field(&fields::TYPE)
            .and_then(|annotation| self.annotation(annotation, ctx));
        // `name: T` in a class body declares an instance attribute (dataclass and model
        // fields), with or without a value.
        let in_class = self.model.scopes[ctx.scope as usize].kind == ScopeKind::Class;
        let declared = targets
            .first()
            .filter(|target| in_class && target.kind_name() == "identifier")
            .zip(annotation);
        if let Some((target, annotation)) = declared {
            let name: Box<str> = self.text(*target).into();
            self.model.scopes[ctx.scope as usize]
                .self_stores
                .push((name, annotation));
        }
        let value = match (value, annotation) {
            (Some(value), Some(annotation)) => {
                Some(self.push(Expr::Union(Box::new([value, annotation]))))
            }
            (value, _) => value,
        };
        let Some(value) = value else {
            // An annotation without a value binds nothing.
            return;
        };
        for target in targets {
            if ctx.scope == MODULE_SCOPE && self.text(target) == "__all__" {
                self.set_all(value, false);
            }
            self.target(target, value, ctx);
        }
    }

    fn augmented(&mut self, node: Node<'_>, ctx: Ctx) {
        let (Some(left), Some(right)) = (node.field(&fields::LEFT), node.field(&fields::RIGHT))
        else {
            return;
        };
        let value = self.expr(right, ctx);
        if left.kind_name() == "identifier" {
            let name = self.text(left);
            if ctx.scope == MODULE_SCOPE && name == "__all__" {
                self.set_all(value, true);
            }
            let old = self.name(name, ctx);
            let union = self.push(Expr::Union(Box::new([old, value])));
            self.bind(ctx, name, union);
        } else {
            self.expr(left, ctx);
        }
    }

    /// `__all__ = [...]` (or `+=`, `extend`, `append`): string literals only.
    fn set_all(&mut self, value: ExprId, extend: bool) {
        let names: Option<Vec<Box<str>>> = match self.model.expr(value) {
            Expr::Seq(items) => items
                .iter()
                .map(|&item| match self.model.expr(item) {
                    Expr::Const(Key::Str(name)) => Some(name.clone()),
                    _ => None,
                })
                .collect(),
            Expr::Const(Key::Str(name)) if extend => Some(vec![name.clone()]),
            _ => None,
        };
        match names {
            Some(names) => {
                let all = self.model.all.get_or_insert_with(Vec::new);
                if !extend {
                    all.clear();
                }
                all.extend(names);
            }
            None => self.all_unknown = true,
        }
    }

    /// Binds a target pattern to `value`.
    fn target(&mut self, target: Node<'_>, value: ExprId, ctx: Ctx) {
        match target.kind_name() {
            "identifier" => {
                let name = self.text(target);
                self.bind(ctx, name, value);
            }
            "attribute" => {
                let (Some(object), Some(attribute)) = (
                    target.field(&fields::OBJECT),
                    target.field(&fields::ATTRIBUTE),
                ) else {
                    return;
                };
                let name: Box<str> = self.text(attribute).into();
                let self_store = object.kind_name() == "identifier"
                    && self
                        .self_name
                        .get(&ctx.scope)
                        .is_some_and(|own| **own == *self.text(object));
                if let Some(class) = self.model.scopes[ctx.scope as usize]
                    .parent
                    .filter(|_| self_store)
                {
                    self.model.scopes[class as usize]
                        .self_stores
                        .push((name, value));
                    return;
                }
                let object = self.expr(object, ctx);
                self.store(ctx, object, StoreTarget::Attr(name), value);
            }
            "subscript" => {
                let Some(object) = target.field(&fields::VALUE) else {
                    return;
                };
                let object = self.expr(object, ctx);
                let index = self.index(target, ctx);
                self.store(ctx, object, StoreTarget::Item(index), value);
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" | "expression_list" | "tuple"
            | "list" => self.destructure(target, value, ctx),
            "parenthesized_expression" => {
                if let Some(inner) = target.named_child(0) {
                    self.target(inner, value, ctx);
                }
            }
            "list_splat_pattern" | "list_splat" => {
                if let Some(inner) = target.named_child(0) {
                    let rest = self.push(Expr::Comprehension { element: value });
                    self.target(inner, rest, ctx);
                }
            }
            _ => {
                self.expr(target, ctx);
            }
        }
    }

    /// `a, (b, *c), d = value`: element-wise when `value` is a display of the same shape,
    /// by index otherwise.
    fn destructure(&mut self, target: Node<'_>, value: ExprId, ctx: Ctx) {
        let mut cursor = target.walk();
        let targets: Vec<Node<'_>> = target
            .named_children(&mut cursor)
            .filter(|child| child.kind_name() != "comment")
            .collect();
        let star = targets
            .iter()
            .position(|t| matches!(t.kind_name(), "list_splat_pattern" | "list_splat"));
        let elements = match self.model.expr(value) {
            Expr::Seq(items)
                if !items
                    .iter()
                    .any(|&item| matches!(self.model.expr(item), Expr::Starred(_))) =>
            {
                Some(items.clone())
            }
            _ => None,
        };
        let count = targets.len();
        for (i, t) in targets.into_iter().enumerate() {
            let element = match (&elements, star) {
                (Some(items), None) if items.len() == count => items[i],
                (Some(items), Some(s)) if items.len() + 1 >= count => {
                    let after = count - s - 1;
                    if i < s {
                        items[i]
                    } else if i > s {
                        items[items.len() - (count - i)]
                    } else {
                        let middle: Box<[ExprId]> = items[s..items.len() - after].into();
                        let seq = self.push(Expr::Seq(middle));
                        if let Some(inner) = t.named_child(0) {
                            self.target(inner, seq, ctx);
                        }
                        continue;
                    }
                }
                _ => {
                    let key = match star {
                        Some(s) if i == s => None,
                        Some(s) if i > s => {
                            Some(Key::Int(-(i64::try_from(count - i).unwrap_or(i64::MAX))))
                        }
                        _ => Some(Key::Int(i64::try_from(i).unwrap_or(i64::MAX))),
                    };
                    match key {
                        Some(key) => {
                            let index = self.push(Expr::Const(key));
                            self.push(Expr::Subscript {
                                object: value,
                                index: Some(index),
                                read: None,
                            })
                        }
                        None => {
                            let element = self.push(Expr::Subscript {
                                object: value,
                                index: None,
                                read: None,
                            });
                            let rest = self.push(Expr::Comprehension { element });
                            if let Some(inner) = t.named_child(0) {
                                self.target(inner, rest, ctx);
                            }
                            continue;
                        }
                    }
                }
            };
            self.target(t, element, ctx);
        }
    }

    /// The index of a subscript: one expression (a constant or anything else), `None`
    /// for slices and tuples of indexes.
    fn index(&mut self, subscript: Node<'_>, ctx: Ctx) -> Option<ExprId> {
        let mut cursor = subscript.walk();
        let indexes: Vec<Node<'_>> = subscript
            .children_by_field_name("subscript", &mut cursor)
            .collect();
        let mut result = None;
        for (i, index) in indexes.iter().enumerate() {
            if index.kind_name() == "slice" {
                self.children_exprs(*index, ctx);
                if let Some(start) = self.slice_start(*index).filter(|_| indexes.len() == 1) {
                    result = Some(self.push(Expr::Const(Key::Slice(start))));
                }
                continue;
            }
            let expr = self.expr(*index, ctx);
            if i == 0 && indexes.len() == 1 {
                result = Some(expr);
            }
        }
        result
    }

    /// The constant start of a slice without a step (`[1:]`, `[:2]` starts at 0).
    fn slice_start(&self, slice: Node<'_>) -> Option<i64> {
        let text: String = self
            .text(slice)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let mut parts = text.split(':');
        let start = parts.next()?;
        let _stop = parts.next()?;
        if parts.next().is_some() {
            return None;
        }
        if start.is_empty() {
            Some(0)
        } else {
            parse_int(start).filter(|&start| start >= 0)
        }
    }

    fn store(&mut self, ctx: Ctx, object: ExprId, target: StoreTarget, value: ExprId) {
        self.stores.push(Store {
            object,
            target,
            value,
            scope: ctx.scope,
            at: At {
                pos: self.pos,
                block: ctx.block,
            },
        });
    }

    /// The values an annotation declares: instances of the classes it names (through
    /// `Optional`, `Union`, `X | None`, `Annotated`, `ClassVar`, string forward
    /// references), the classes themselves for `type[X]`, an instance of the enclosing
    /// class for `Self`. Names are read at the end of their scope (annotations may be
    /// evaluated late, and forward references are). `None` when it names nothing keel
    /// reads.
    fn annotation(&mut self, node: Node<'_>, ctx: Ctx) -> Option<ExprId> {
        let mut out = Vec::new();
        self.annotation_into(node, ctx, &mut out, 0);
        match out.as_slice() {
            [] => None,
            [one] => Some(*one),
            _ => Some(self.push(Expr::Union(out.into()))),
        }
    }

    fn annotation_into(&mut self, node: Node<'_>, ctx: Ctx, out: &mut Vec<ExprId>, depth: u32) {
        if depth > 8 {
            return;
        }
        match node.kind_name() {
            "type" | "parenthesized_expression" | "type_parameter" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in children {
                    self.annotation_into(child, ctx, out, depth + 1);
                }
            }
            "identifier" | "attribute" => {
                let text = compact(self.text(node));
                self.annotated_name(&text, ctx, out, false);
            }
            "binary_operator" => {
                for field in [&fields::LEFT, &fields::RIGHT] {
                    if let Some(side) = node.field(field) {
                        self.annotation_into(side, ctx, out, depth + 1);
                    }
                }
            }
            "string" => {
                let mut cursor = node.walk();
                let content: String = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "string_content")
                    .map(|child| self.text(child))
                    .collect();
                self.annotation_text(&content, ctx, out, depth + 1);
            }
            "generic_type" | "subscript" => {
                let mut cursor = node.walk();
                let (head, params): (Option<Node<'_>>, Vec<Node<'_>>) =
                    if node.kind_name() == "subscript" {
                        let params = node
                            .children_by_field_name("subscript", &mut cursor)
                            .collect();
                        (node.field(&fields::VALUE), params)
                    } else {
                        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                        let params = children
                            .iter()
                            .filter(|child| child.kind_name() == "type_parameter")
                            .flat_map(|parameter| {
                                let mut inner = parameter.walk();
                                parameter.named_children(&mut inner).collect::<Vec<_>>()
                            })
                            .collect();
                        (children.first().copied(), params)
                    };
                let Some(head) = head else { return };
                let head_text = compact(self.text(head));
                let last = head_text.rsplit('.').next().unwrap_or("");
                match last {
                    "Optional" | "Union" => {
                        for param in params {
                            self.annotation_into(param, ctx, out, depth + 1);
                        }
                    }
                    "Annotated" | "ClassVar" | "Final" | "Required" | "NotRequired"
                    | "ReadOnly" => {
                        if let Some(param) = params.first() {
                            self.annotation_into(*param, ctx, out, depth + 1);
                        }
                    }
                    "type" | "Type" => {
                        for param in params {
                            let mut classes = Vec::new();
                            self.annotation_into(param, ctx, &mut classes, depth + 1);
                            for typed in classes {
                                if let Expr::Typed(class) = self.model.expr(typed) {
                                    out.push(*class);
                                }
                            }
                        }
                    }
                    // A user generic (`Box[T]`) is its class; builtin ones are external.
                    _ => self.annotated_name(&head_text, ctx, out, false),
                }
            }
            _ => {}
        }
    }

    /// An annotation written as a string (`"Foo"`, `"Optional[mod.Foo]"`, `"A | None"`).
    fn annotation_text(&mut self, text: &str, ctx: Ctx, out: &mut Vec<ExprId>, depth: u32) {
        if depth > 8 {
            return;
        }
        for part in split_top(text, '|') {
            let part = part.trim();
            match part.split_once('[') {
                Some((head, rest)) if rest.ends_with(']') => {
                    let inner = &rest[..rest.len() - 1];
                    let last = head.trim().rsplit('.').next().unwrap_or("");
                    match last {
                        "Optional" | "Union" => {
                            for item in split_top(inner, ',') {
                                self.annotation_text(item, ctx, out, depth + 1);
                            }
                        }
                        "Annotated" | "ClassVar" | "Final" | "Required" | "NotRequired"
                        | "ReadOnly" => {
                            if let Some(item) = split_top(inner, ',').first() {
                                self.annotation_text(item, ctx, out, depth + 1);
                            }
                        }
                        _ => self.annotated_name(head.trim(), ctx, out, false),
                    }
                }
                _ => self.annotated_name(part, ctx, out, false),
            }
        }
    }

    /// `Typed(name)` for a dotted name (`Foo`, `mod.Foo`); `class_only` pushes the class.
    fn annotated_name(&mut self, text: &str, ctx: Ctx, out: &mut Vec<ExprId>, class_only: bool) {
        let segments: Vec<&str> = text.split('.').map(str::trim).collect();
        let valid = segments.iter().all(|segment| {
            segment
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && segment.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
        let Some(last) = segments.last().filter(|_| valid) else {
            return;
        };
        // Annotations that say nothing about a class: what a `Callable` parameter calls
        // is what is passed.
        if matches!(
            *last,
            "None" | "Any" | "object" | "Callable" | "Awaitable" | "Coroutine" | "Protocol"
        ) {
            return;
        }
        if *last == "Self" {
            let mut scope = Some(ctx.scope);
            while let Some(id) = scope {
                let s = &self.model.scopes[id as usize];
                if s.kind == ScopeKind::Class {
                    let class = self.push(Expr::Def(id));
                    out.push(if class_only {
                        class
                    } else {
                        self.push(Expr::Typed(class))
                    });
                    return;
                }
                scope = s.parent;
            }
            return;
        }
        let mut expr = self.push(Expr::Name {
            scope: ctx.scope,
            name: segments[0].into(),
            at: None,
        });
        for segment in &segments[1..] {
            expr = self.push(Expr::Attr {
                object: expr,
                name: (*segment).into(),
            });
        }
        out.push(if class_only {
            expr
        } else {
            self.push(Expr::Typed(expr))
        });
    }

    /// The expression of an optional node (`fallback` when absent).
    fn opt_expr(&mut self, node: Option<Node<'_>>, fallback: Expr, ctx: Ctx) -> ExprId {
        match node {
            Some(node) => self.expr(node, ctx),
            None => self.push(fallback),
        }
    }

    fn name(&mut self, name: &str, ctx: Ctx) -> ExprId {
        self.push(Expr::Name {
            scope: ctx.scope,
            name: name.into(),
            at: Some(At {
                pos: self.pos,
                block: ctx.block,
            }),
        })
    }

    /// Visits every named child as an expression (for the calls inside).
    fn children_exprs(&mut self, node: Node<'_>, ctx: Ctx) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children {
            if matches!(child.kind_name(), "comment" | "ERROR" | "type") {
                continue;
            }
            self.expr(child, ctx);
        }
    }

    fn expr(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        if self.depth >= MAX_DEPTH {
            return self.push(Expr::Unknown);
        }
        self.depth += 1;
        let expr = self.expr_inner(node, ctx);
        self.depth -= 1;
        expr
    }

    fn expr_inner(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        match node.kind_name() {
            "identifier" => {
                let name = self.text(node);
                self.name(name, ctx)
            }
            "attribute" => {
                let object = self.opt_expr(node.field(&fields::OBJECT), Expr::Unknown, ctx);
                let name = node
                    .field(&fields::ATTRIBUTE)
                    .map(|attribute| self.text(attribute))
                    .unwrap_or("");
                self.push(Expr::Attr {
                    object,
                    name: name.into(),
                })
            }
            "call" => self.call(node, ctx),
            "subscript" => {
                let object = self.opt_expr(node.field(&fields::VALUE), Expr::Unknown, ctx);
                let index = self.index(node, ctx);
                let read = Some((
                    ctx.scope,
                    At {
                        pos: self.pos,
                        block: ctx.block,
                    },
                ));
                self.push(Expr::Subscript {
                    object,
                    index,
                    read,
                })
            }
            "parenthesized_expression" => {
                let mut cursor = node.walk();
                let inner = node
                    .named_children(&mut cursor)
                    .find(|child| child.kind_name() != "comment");
                match inner {
                    Some(inner) => self.expr(inner, ctx),
                    None => self.push(Expr::Builtin),
                }
            }
            "list" | "tuple" | "expression_list" | "pattern_list" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() != "comment")
                    .collect();
                let items: Box<[ExprId]> = children
                    .into_iter()
                    .map(|child| self.expr(child, ctx))
                    .collect();
                self.push(Expr::Seq(items))
            }
            "list_splat" | "parenthesized_list_splat" => {
                let inner = self.opt_expr(node.named_child(0), Expr::Unknown, ctx);
                self.push(Expr::Starred(inner))
            }
            "dictionary" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                let mut entries = Vec::new();
                for child in children {
                    match child.kind_name() {
                        "pair" => {
                            let key = child.field(&fields::KEY).map(|k| self.expr(k, ctx));
                            let value =
                                self.opt_expr(child.field(&fields::VALUE), Expr::Unknown, ctx);
                            if let Some(key) = key {
                                entries.push((Some(key), value));
                            }
                        }
                        "dictionary_splat" => {
                            let value = self.opt_expr(child.named_child(0), Expr::Unknown, ctx);
                            entries.push((None, value));
                        }
                        _ => {}
                    }
                }
                self.push(Expr::Dict(entries.into()))
            }
            "list_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "dictionary_comprehension" => self.comprehension(node, ctx),
            "lambda" => self.lambda(node, ctx),
            "conditional_expression" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                let values: Vec<ExprId> = children
                    .into_iter()
                    .map(|child| self.expr(child, ctx))
                    .collect();
                match values.as_slice() {
                    [then, _, otherwise] => self.push(Expr::Union(Box::new([*then, *otherwise]))),
                    _ => self.push(Expr::Unknown),
                }
            }
            "boolean_operator" => {
                let left = self.opt_expr(node.field(&fields::LEFT), Expr::Unknown, ctx);
                let right = self.opt_expr(node.field(&fields::RIGHT), Expr::Unknown, ctx);
                self.push(Expr::Union(Box::new([left, right])))
            }
            "await" => match node.named_child(0) {
                Some(inner) => self.expr(inner, ctx),
                None => self.push(Expr::Unknown),
            },
            "named_expression" => {
                let value = self.opt_expr(node.field(&fields::VALUE), Expr::Unknown, ctx);
                if let Some(name) = node.field(&fields::NAME) {
                    let scope = self.binding_scope(ctx.scope);
                    let name = self.text(name);
                    let block = if scope == ctx.scope {
                        ctx.block
                    } else {
                        self.model.scopes[scope as usize].top
                    };
                    self.bind(
                        Ctx {
                            scope,
                            owner: ctx.owner,
                            block,
                        },
                        name,
                        value,
                    );
                }
                value
            }
            "yield" => {
                let mut cursor = node.walk();
                let from = node
                    .children(&mut cursor)
                    .any(|child| child.kind_name() == "from");
                let value = node.named_child(0).map(|inner| self.expr(inner, ctx));
                if let Some(function) = self.callable_scope(ctx.scope) {
                    let yielded = match value {
                        Some(value) if from => self.push(Expr::Iter(value)),
                        Some(value) => value,
                        None => self.push(Expr::Builtin),
                    };
                    self.model.scopes[function as usize].yields.push(yielded);
                }
                self.push(Expr::Unknown)
            }
            "string" => {
                let mut cursor = node.walk();
                let mut constant = true;
                let mut text = String::new();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "interpolation" => {
                            constant = false;
                            self.children_exprs(child, ctx);
                        }
                        "string_content" => text.push_str(self.text(child)),
                        "string_start" => {
                            let start = self.text(child).to_ascii_lowercase();
                            if start.contains('f') || start.contains('b') {
                                constant = false;
                            }
                        }
                        _ => {}
                    }
                }
                if constant {
                    self.push(Expr::Const(Key::Str(text.into())))
                } else {
                    self.push(Expr::Builtin)
                }
            }
            "integer" => match parse_int(self.text(node)) {
                Some(value) => self.push(Expr::Const(Key::Int(value))),
                None => self.push(Expr::Builtin),
            },
            "unary_operator" => {
                let operand = node.field(&fields::ARGUMENT);
                let negative = node
                    .field(&fields::OPERATOR)
                    .is_some_and(|op| self.text(op) == "-");
                let literal = operand
                    .filter(|operand| negative && operand.kind_name() == "integer")
                    .and_then(|operand| parse_int(self.text(operand)));
                if let Some(value) = literal {
                    return self.push(Expr::Const(Key::Int(-value)));
                }
                self.children_exprs(node, ctx);
                self.push(Expr::Builtin)
            }
            "ERROR" | "comment" | "type" => self.push(Expr::Unknown),
            "keyword_argument" => {
                if let Some(value) = node.field(&fields::VALUE) {
                    self.expr(value, ctx)
                } else {
                    self.push(Expr::Unknown)
                }
            }
            "as_pattern" => match node.named_child(0) {
                Some(inner) => self.expr(inner, ctx),
                None => self.push(Expr::Unknown),
            },
            _ => {
                // Operators, comparisons, sets, numbers, f-strings: builtin values; the
                // calls inside still count.
                self.children_exprs(node, ctx);
                self.push(Expr::Builtin)
            }
        }
    }

    fn call(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        let Some(function) = node.field(&fields::FUNCTION) else {
            self.children_exprs(node, ctx);
            return self.push(Expr::Unknown);
        };
        let func = self.expr(function, ctx);
        let mut args = Vec::new();
        if let Some(arguments) = node.field(&fields::ARGUMENTS) {
            if arguments.kind_name() == "generator_expression" {
                let value = self.expr(arguments, ctx);
                args.push(Arg {
                    keyword: None,
                    value,
                    splat: false,
                });
            } else {
                let mut cursor = arguments.walk();
                let children: Vec<Node<'_>> = arguments.named_children(&mut cursor).collect();
                for child in children {
                    match child.kind_name() {
                        "keyword_argument" => {
                            let keyword = child
                                .field(&fields::NAME)
                                .map(|name| Box::<str>::from(self.text(name)));
                            let value =
                                self.opt_expr(child.field(&fields::VALUE), Expr::Unknown, ctx);
                            args.push(Arg {
                                keyword,
                                value,
                                splat: false,
                            });
                        }
                        "list_splat" | "dictionary_splat" => {
                            let value = self.opt_expr(child.named_child(0), Expr::Unknown, ctx);
                            args.push(Arg {
                                keyword: None,
                                value,
                                splat: true,
                            });
                        }
                        "comment" => {}
                        _ => {
                            let value = self.expr(child, ctx);
                            args.push(Arg {
                                keyword: None,
                                value,
                                splat: false,
                            });
                        }
                    }
                }
            }
        }
        self.container_store(func, &args, ctx);
        let call = self.push(Expr::Call {
            func,
            args: args.into(),
        });
        self.site(SiteKind::Call, call, function, ctx);
        if function.kind_name() != "identifier" || self.text(function) != "super" {
            return call;
        }
        let explicit = match self.model.expr(call) {
            Expr::Call { args, .. } => args
                .iter()
                .find(|arg| arg.keyword.is_none() && !arg.splat)
                .map(|arg| arg.value),
            _ => None,
        };
        match (explicit, self.callable_scope(ctx.scope)) {
            (Some(class), _) => self.push(Expr::SuperOf(class)),
            (None, Some(method)) => self.push(Expr::Super { function: method }),
            (None, None) => call,
        }
    }

    /// `x.append(v)`, `x.extend([...])`, `x.insert(i, v)`, `x.update({...})`,
    /// `x.setdefault(k, v)`: stores into the container `x`.
    fn container_store(&mut self, func: ExprId, args: &[Arg], ctx: Ctx) {
        let Expr::Attr { object, name } = self.model.expr(func) else {
            return;
        };
        let object = *object;
        let positional: Vec<ExprId> = args
            .iter()
            .filter(|arg| arg.keyword.is_none() && !arg.splat)
            .map(|arg| arg.value)
            .collect();
        match (&**name, positional.as_slice()) {
            ("append" | "add", [value]) => {
                self.store(ctx, object, StoreTarget::Item(None), *value);
            }
            ("insert" | "setdefault", [index, value]) => {
                self.store(ctx, object, StoreTarget::Item(Some(*index)), *value);
            }
            ("extend", [values]) => {
                let element = self.push(Expr::Iter(*values));
                self.store(ctx, object, StoreTarget::Item(None), element);
            }
            ("update", [values]) => {
                if let Expr::Dict(entries) = self.model.expr(*values) {
                    let entries = entries.clone();
                    for (key, value) in entries.iter() {
                        self.store(ctx, object, StoreTarget::Item(*key), *value);
                    }
                }
            }
            _ => {}
        }
        // `__all__.extend([...])`, `__all__.append("name")` at module level.
        let all = matches!(
            self.model.expr(object),
            Expr::Name { scope, name, .. } if *scope == MODULE_SCOPE && &**name == "__all__"
        );
        if all && positional.len() == 1 {
            self.set_all(positional[0], true);
        }
    }

    fn comprehension(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        let scope = self.new_scope(ScopeKind::Comprehension, "".into(), Some(ctx.scope));
        let inner = Ctx {
            scope,
            owner: ctx.owner,
            block: self.model.scopes[scope as usize].top,
        };
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut first = true;
        for child in &children {
            match child.kind_name() {
                "for_in_clause" => {
                    let iterable = self.opt_expr(
                        child.field(&fields::RIGHT),
                        Expr::Unknown,
                        if first { ctx } else { inner },
                    );
                    first = false;
                    self.pos += 1;
                    let element = self.push(Expr::Iter(iterable));
                    if let Some(left) = child.field(&fields::LEFT) {
                        self.target(left, element, inner);
                    }
                    self.pos += 1;
                }
                "if_clause" => self.children_exprs(*child, inner),
                _ => {}
            }
        }
        self.pos += 1;
        let element = match node.field(&fields::BODY) {
            Some(body) if body.kind_name() == "pair" => {
                self.children_exprs(body, inner);
                None
            }
            Some(body) => Some(self.expr(body, inner)),
            None => None,
        };
        match element {
            Some(element) if node.kind_name() != "set_comprehension" => {
                self.push(Expr::Comprehension { element })
            }
            _ => self.push(Expr::Builtin),
        }
    }

    fn lambda(&mut self, node: Node<'_>, ctx: Ctx) -> ExprId {
        let scope = self.new_scope(ScopeKind::Lambda, "".into(), Some(ctx.scope));
        if let Some(parameters) = node.field(&fields::PARAMETERS) {
            self.parameters(parameters, scope, ctx, false);
        }
        let inner = Ctx {
            scope,
            owner: ctx.owner,
            block: self.model.scopes[scope as usize].top,
        };
        if let Some(body) = node.field(&fields::BODY) {
            let value = self.expr(body, inner);
            self.model.scopes[scope as usize].returns.push(value);
        }
        self.push(Expr::Def(scope))
    }

    fn site(&mut self, kind: SiteKind, expr: ExprId, callee: Node<'_>, ctx: Ctx) {
        if ctx.owner == DROPPED {
            return;
        }
        let line = self.line(callee.end_position().row);
        let text = compact(self.text(callee));
        let text: Box<str> = if text.chars().count() > MAX_TEXT {
            text.chars().take(MAX_TEXT).collect::<String>().into()
        } else {
            text.into()
        };
        self.sites.push(Site {
            kind,
            expr,
            line,
            owner: ctx.owner,
            text,
        });
    }

    fn implicit_site(&mut self, kind: SiteKind, expr: ExprId, node: Node<'_>, ctx: Ctx) {
        if ctx.owner == DROPPED {
            return;
        }
        let line = self.line(node.start_position().row);
        let text = compact(self.text(node));
        let text: Box<str> = text.chars().take(MAX_TEXT).collect::<String>().into();
        self.sites.push(Site {
            kind,
            expr,
            line,
            owner: ctx.owner,
            text,
        });
    }
}

/// The hash a scope's name index sorts by.
fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = rustc_hash::FxHasher::default();
    name.hash(&mut hasher);
    hasher.finish()
}

/// How decorators make a method bind.
fn flavor<'t, 's>(
    decorators: impl Iterator<Item = Node<'t>>,
    text_of: impl Fn(Node<'t>) -> &'s str,
) -> Flavor {
    let mut flavor = Flavor::Plain;
    for decorator in decorators {
        let text = text_of(decorator);
        let last = text.rsplit('.').next().unwrap_or(text);
        match last {
            "staticmethod" => flavor = Flavor::Static,
            "classmethod" => flavor = Flavor::ClassMethod,
            "property" | "cached_property" | "setter" | "getter" | "deleter"
                if flavor == Flavor::Plain =>
            {
                flavor = Flavor::Property;
            }
            _ => {}
        }
    }
    flavor
}

/// `text` split at `separator` outside brackets.
fn split_top(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0_i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            c if c == separator && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Source text with runs of whitespace (newlines, indentation) as one space.
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() || c == '\\' {
            space = true;
        } else {
            if space
                && !out.is_empty()
                && !matches!(c, '.' | ')' | ']' | ',')
                && !out.ends_with(['(', '[', '.'])
            {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

fn parse_int(text: &str) -> Option<i64> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    digits.parse().ok()
}
