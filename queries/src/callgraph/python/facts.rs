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
//! This file holds the entry ([`read`], [`unread`]), the [`Facts`] with the layout of
//! their fragments, and the walk's state with the scope rules. The expression graph's
//! types are in `model`; the walk reads statements and imports (`statements`), `def` and
//! `class` definitions with their parameters (`definitions`), assignment targets and
//! stores (`assignments`), annotations (`annotations`), expressions (`expressions`),
//! calls (`calls`) and `isinstance` narrowing (`narrowing`).
//! Does not own: what the values are (`resolve`), what other files may read (`interface`),
//! memoizing fragments (`fragments`).

mod annotations;
mod assignments;
mod calls;
mod chunk;
mod definitions;
mod expressions;
mod model;
mod narrowing;
mod statements;

pub(crate) use chunk::{Chunk, Fragment, Fragments, walk_alone, walk_in_tree};
pub(crate) use model::{
    Arg, At, Binding, Block, Expr, ExprId, Flavor, Key, MODULE_SCOPE, Model, Name, Param,
    ParamKind, Scope, ScopeId, ScopeKind, Site, SiteKind, Store, StoreTarget,
};

use crate::extract::Language;
use keel_engine::HintStore;
use model::BlockId;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tree_sitter::{Node, Tree};

/// One image's facts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Facts {
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

/// The owner of the code inside a left-out unit: its sites are not recorded.
const DROPPED: ScopeId = ScopeId::MAX;

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
    /// How many `if TYPE_CHECKING:` blocks the walk is in.
    type_checking: u32,
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
            type_checking: 0,
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
        // Only where fragments are not walked alone (a class inside a `def` is part of
        // the def's fragment, which is walked without the `if` around it).
        let in_function =
            std::iter::successors(parent, |&id| self.model.scopes[id as usize].parent).any(|id| {
                matches!(
                    self.model.scopes[id as usize].kind,
                    ScopeKind::Function | ScopeKind::Lambda
                )
            });
        scope.type_only = kind == ScopeKind::Class && self.type_checking > 0 && !in_function;
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
            narrowed: false,
        });
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
