//! Fragments: a file's facts in pieces that an edit elsewhere in the file leaves equal.
//!
//! Owns: which statements are fragments (a `def`, decorated or not, in the module's body
//! or in the body of a class whose scope is the module's, directly or in a block there:
//! an `if`, a `try`, a loop), the walk
//! of one fragment alone into a [`Chunk`] (ids local to it: the module and the class
//! around it stand in as a skeleton of the scopes it may bind into; its lines count from
//! its first line), and the splice of a chunk at its place in a file's walk: scopes,
//! blocks, expressions, statement positions and lines relocated, what it binds in the
//! skeleton's scopes moved to the real ones. A file's facts spliced from its fragments'
//! chunks equal its facts walked whole (the tests below).
//! Does not own: memoizing chunks (`callgraph::python::fragments`, keyed by a fragment's
//! text and what of its file its walk reads), the walk itself (`facts`).

use super::{
    Arg, At, Block, BlockId, Builder, ChunkSpan, Ctx, DROPPED, Expr, ExprId, MODULE_SCOPE, Model,
    Scope, ScopeId, ScopeKind, Site, Standing, Store, StoreTarget, id_of, parse,
};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use keel_engine::HintStore;
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;
use tree_sitter::{Node, Tree};

/// A fragment as its file's walk meets it.
pub(crate) struct Fragment<'a> {
    /// From the start of the fragment's first line to its end.
    pub(crate) text: &'a str,
    /// The class whose body holds it, and whether that class is a node; `None` in the
    /// module's body.
    pub(crate) class: Option<(&'a str, bool)>,
    /// Its qualified name (keel's unit name).
    pub(crate) qualified: &'a str,
    pub(crate) tree: &'a Tree,
    pub(crate) node: Node<'a>,
    /// Where `text` starts in the tree's text: its byte and its row.
    pub(crate) byte_base: usize,
    pub(crate) row_base: usize,
}

/// Where a file's walk takes its fragments' chunks from.
pub(crate) trait Fragments {
    fn chunk(&self, fragment: &Fragment<'_>) -> &Arc<Chunk>;
}

/// The names one scope binds, declares `global` and declares `nonlocal`, sorted.
type ScopeNames = [Box<[Box<str>]>; 3];

/// What walking one fragment adds to its file's facts, with ids local to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// The skeleton's scopes first (the module, then the class when there is one), each
    /// with its top block, then the fragment's own.
    pub(crate) model: Model,
    /// How many of `model`'s scopes are the skeleton's.
    pub(crate) skeleton: usize,
    sites: Vec<Site>,
    stores: Vec<Store>,
    /// Per skeleton scope: what the fragment bound and declared in it.
    names: Vec<ScopeNames>,
    /// The names read in the class's body (its decorators', defaults' and annotations'),
    /// which the whole class resolves when the chunk is spliced; every other name is
    /// resolved in the chunk, and its own scopes' bindings are sorted.
    class_names: Vec<ExprId>,
    /// How many statement positions it takes.
    statements: u32,
    /// Whether it extends `__all__` with something other than literals.
    all_unknown: bool,
}

impl Chunk {
    /// Whether splicing this chunk adds to the skeleton what splicing `other` adds, its
    /// own ids aside: per skeleton scope, the names bound there (and whether each floats,
    /// as `global` makes it), the `self` attributes stored, the names declared; and the
    /// extension of `__all__`. Two such chunks differ only in what their own ids hold,
    /// which only an evaluation of their expressions reads (`resolve::replay`).
    pub(crate) fn adds_to_skeleton_as(&self, other: &Chunk) -> bool {
        let same_scope = |(a, b): (&Scope, &Scope)| {
            a.bindings.len() == b.bindings.len()
                && a.bindings
                    .iter()
                    .zip(&b.bindings)
                    .all(|(a, b)| a.name == b.name && a.floating == b.floating)
                && a.self_stores.len() == b.self_stores.len()
                && a.self_stores
                    .iter()
                    .zip(&b.self_stores)
                    .all(|((a, _), (b, _))| a == b)
        };
        self.skeleton == other.skeleton
            && self.names == other.names
            && self.model.all == other.model.all
            && self.all_unknown == other.all_unknown
            && self
                .skeleton_scopes()
                .iter()
                .zip(other.skeleton_scopes())
                .all(same_scope)
    }

    /// The module's stand-in, then the class's: what the fragment adds to them.
    fn skeleton_scopes(&self) -> &[Scope] {
        &self.model.scopes[..self.skeleton]
    }

    /// Whether a class is defined inside the fragment.
    pub(crate) fn holds_class(&self) -> bool {
        self.model.scopes[self.skeleton..]
            .iter()
            .any(|scope| scope.kind == ScopeKind::Class)
    }
}

/// The chunk of a fragment walked in its file's tree: `node` is the fragment, `text`
/// starts at byte `byte_base` and row `row_base` of the tree's text.
pub(crate) fn walk_in_tree(
    text: &str,
    class: Option<(&str, bool)>,
    units: &[String],
    node: Node<'_>,
    byte_base: usize,
    row_base: usize,
) -> Chunk {
    walk(text, class, units, Some(node), byte_base, row_base)
}

/// The chunk of a fragment's text parsed alone (a member in a class of its own; an
/// indented module-level one, which sits in a block, in an `if` of its own): equal to
/// [`walk_in_tree`]'s.
pub(crate) fn walk_alone(
    store: &HintStore,
    text: &str,
    class: Option<(&str, bool)>,
    units: &[String],
) -> Chunk {
    let indented = text.starts_with([' ', '\t']);
    let (source, row_base) = match (class, indented) {
        (Some(_), _) => (format!("class _:\n{text}"), 1),
        (None, true) => (format!("if _:\n{text}"), 1),
        (None, false) => (text.to_owned(), 0),
    };
    let tree = parse(store, &source);
    let node = tree.as_ref().and_then(|tree| {
        let first = tree.root_node().named_child(0)?;
        match (class, indented) {
            (Some(_), _) => first.field(&fields::BODY)?.named_child(0),
            (None, true) => first.field(&fields::CONSEQUENCE)?.named_child(0),
            (None, false) => Some(first),
        }
    });
    walk(&source, class, units, node, 0, row_base)
}

fn walk(
    src: &str,
    class: Option<(&str, bool)>,
    units: &[String],
    node: Option<Node<'_>>,
    byte_base: usize,
    row_base: usize,
) -> Chunk {
    let standing = Standing {
        units: units.iter().map(String::as_str).collect(),
        left_out: HashSet::default(),
    };
    let mut builder = Builder::new(src, &standing);
    builder.byte_base = byte_base;
    builder.row_base = row_base;
    let mut ctx = Ctx {
        scope: MODULE_SCOPE,
        owner: MODULE_SCOPE,
        block: builder.model.scopes[MODULE_SCOPE as usize].top,
    };
    if let Some((name, node)) = class {
        let scope = builder.new_scope(ScopeKind::Class, name.into(), Some(MODULE_SCOPE));
        builder.model.scopes[scope as usize].node = node;
        ctx = Ctx {
            scope,
            owner: if node { scope } else { MODULE_SCOPE },
            block: builder.model.scopes[scope as usize].top,
        };
    }
    let skeleton = builder.model.scopes.len();
    match node {
        Some(node) => builder.statement(node, ctx),
        None => builder.pos += 1,
    }
    let names: Vec<ScopeNames> = (0..skeleton)
        .map(|index| {
            [
                sorted(&builder.binds[index]),
                sorted(&builder.globals[index]),
                sorted(&builder.nonlocals[index]),
            ]
        })
        .collect();
    let class_names = builder.resolve_own_names(class.map(|_| ctx.scope));
    for scope in &mut builder.model.scopes[skeleton..] {
        scope.sort_bindings();
    }
    Chunk {
        model: builder.model,
        skeleton,
        sites: builder.sites,
        stores: builder.stores,
        names,
        class_names,
        statements: builder.pos,
        all_unknown: builder.all_unknown,
    }
}

fn sorted(names: &HashSet<Box<str>>) -> Box<[Box<str>]> {
    let mut names: Vec<Box<str>> = names.iter().cloned().collect();
    names.sort_unstable();
    names.into()
}

impl<'s> Builder<'s> {
    /// Resolves the names a fragment's walk read, but those read in `class`'s body: the
    /// rest resolve alike in the chunk and in its file. A name read in the fragment's
    /// scopes that none of them binds is the module's either way (a class body is
    /// invisible to its methods, the module is the last scope), and so is one read in the
    /// module's body. Returns the names left to the class.
    fn resolve_own_names(&mut self, class: Option<ScopeId>) -> Vec<ExprId> {
        let mut left = Vec::new();
        for expr in 0..id_of(self.model.exprs.len()) {
            match &self.model.exprs[expr as usize] {
                Expr::Name { scope, .. } if Some(*scope) == class => left.push(expr),
                _ => self.resolve_name(expr),
            }
        }
        left
    }

    /// The chunk of `node` when the walk takes fragments and `node`, read in `ctx`, is
    /// one.
    pub(super) fn fragment_chunk(&self, node: Node<'_>, ctx: Ctx) -> Option<&'s Arc<Chunk>> {
        let (fragments, tree) = self.fragments?;
        let definition = match node.kind_name() {
            "function_definition" => node,
            "decorated_definition" => node
                .field(&fields::DEFINITION)
                .filter(|definition| definition.kind_name() == "function_definition")?,
            _ => return None,
        };
        let scope = &self.model.scopes[ctx.scope as usize];
        if ctx.owner == DROPPED {
            return None;
        }
        let class = match (scope.kind, scope.parent) {
            (ScopeKind::Module, _) => None,
            (ScopeKind::Class, Some(MODULE_SCOPE)) => Some((&*scope.name, scope.node)),
            _ => return None,
        };
        let name = self.text(definition.field(&fields::NAME)?);
        let qualified = match class {
            Some((class, _)) => format!("{class}.{name}"),
            None => name.to_owned(),
        };
        // A statement of a block starts its line (after its indentation).
        let byte_base = self.src[..node.start_byte()]
            .rfind('\n')
            .map_or(0, |newline| newline + 1);
        let fragment = Fragment {
            text: self.src.get(byte_base..node.end_byte())?,
            class,
            qualified: &qualified,
            tree,
            node,
            byte_base,
            row_base: node.start_position().row,
        };
        Some(fragments.chunk(&fragment))
    }

    /// Adds `chunk`, the fragment `node` read in `ctx`, as if its statement were walked
    /// here.
    pub(super) fn splice(&mut self, chunk: &Arc<Chunk>, node: Node<'_>, ctx: Ctx) {
        let skeleton = [MODULE_SCOPE, ctx.scope];
        let skeleton = &skeleton[..chunk.skeleton];
        // The skeleton's scopes' top blocks, but the fragment's own statement sits in
        // `ctx.block`: its scope's top block, or a block in it (an `if`, a `try`).
        let mut blocks: Vec<BlockId> = skeleton
            .iter()
            .map(|&scope| self.model.scopes[scope as usize].top)
            .collect();
        if let Some(last) = blocks.last_mut() {
            *last = ctx.block;
        }
        let relocation = Relocation {
            scopes: skeleton,
            blocks: &blocks,
            first_scope: id_of(self.model.scopes.len()),
            first_block: id_of(self.model.blocks.len()),
            first_expr: id_of(self.model.exprs.len()),
            pos: self.pos,
        };
        let own_scopes = id_of(chunk.model.scopes.len() - chunk.skeleton);
        self.pending_names.extend(
            chunk
                .class_names
                .iter()
                .map(|&expr| relocation.expr_id(expr)),
        );
        let sites = id_of(self.sites.len());
        let stores = id_of(self.stores.len());
        let start = node.start_byte().saturating_sub(self.byte_base);
        let line_start = self.src[..start]
            .rfind('\n')
            .map_or(0, |newline| newline + 1);
        let end = node.end_byte().saturating_sub(self.byte_base);
        self.chunk_spans.push(ChunkSpan {
            bytes: line_start..end,
            chunk: Arc::clone(chunk),
            exprs: relocation.first_expr..relocation.first_expr + id_of(chunk.model.exprs.len()),
            scopes: relocation.first_scope..relocation.first_scope + own_scopes,
            blocks: relocation.first_block
                ..relocation.first_block + id_of(chunk.model.blocks.len() - chunk.skeleton),
            sites: sites..sites + id_of(chunk.sites.len()),
            stores: stores..stores + id_of(chunk.stores.len()),
            positions: self.pos..self.pos + chunk.statements,
        });
        self.model
            .exprs
            .extend(chunk.model.exprs.iter().map(|expr| relocation.expr(expr)));
        self.model.blocks.extend(
            chunk.model.blocks[chunk.skeleton..]
                .iter()
                .map(|block| Block {
                    parent: block.parent.map(|parent| relocation.block(parent)),
                    looped: block.looped,
                }),
        );
        for ((scope, names), &real) in chunk.model.scopes.iter().zip(&chunk.names).zip(skeleton) {
            self.merge_into(real, relocation.scope_of(scope), names);
        }
        for scope in &chunk.model.scopes[chunk.skeleton..] {
            // Its names are resolved and nothing resolves a name through it again: the
            // lexical sets of its scopes stay empty.
            self.model.scopes.push(relocation.scope_of(scope));
            self.binds.push(HashSet::default());
            self.globals.push(HashSet::default());
            self.nonlocals.push(HashSet::default());
        }
        let row_base = u32::try_from(node.start_position().row).unwrap_or(u32::MAX);
        self.sites.extend(chunk.sites.iter().map(|site| Site {
            kind: site.kind,
            expr: relocation.expr_id(site.expr),
            line: site.line.saturating_add(row_base),
            owner: relocation.scope(site.owner),
            text: site.text.clone(),
        }));
        self.stores.extend(chunk.stores.iter().map(|store| Store {
            object: relocation.expr_id(store.object),
            target: match &store.target {
                StoreTarget::Attr(name) => StoreTarget::Attr(name.clone()),
                StoreTarget::Item(index) => {
                    StoreTarget::Item(index.map(|index| relocation.expr_id(index)))
                }
            },
            value: relocation.expr_id(store.value),
            scope: relocation.scope(store.scope),
            at: relocation.at(store.at),
        }));
        if let Some(all) = &chunk.model.all {
            self.model
                .all
                .get_or_insert_with(Vec::new)
                .extend(all.iter().cloned());
        }
        self.all_unknown |= chunk.all_unknown;
        self.pos += chunk.statements;
    }

    /// What a fragment bound or stored in a skeleton scope (its own name, a `global`
    /// name, `self` attributes), added to the real scope. Nothing else of a skeleton
    /// scope changes: the fragment's statements are in its own scopes, and what it reads
    /// in the skeleton's (decorators, defaults, annotations) are expressions.
    fn merge_into(&mut self, real: ScopeId, scope: Scope, names: &ScopeNames) {
        let target = &mut self.model.scopes[real as usize];
        target.bindings.extend(scope.bindings);
        target.self_stores.extend(scope.self_stores);
        let [binds, ..] = names;
        self.binds[real as usize].extend(binds.iter().cloned());
    }
}

/// A chunk's local ids mapped to the file's.
struct Relocation<'a> {
    /// The real scopes (and their top blocks) of the skeleton's.
    scopes: &'a [ScopeId],
    blocks: &'a [BlockId],
    first_scope: ScopeId,
    first_block: BlockId,
    first_expr: ExprId,
    /// The statement position before the fragment.
    pos: u32,
}

impl Relocation<'_> {
    fn scope(&self, scope: ScopeId) -> ScopeId {
        if scope == DROPPED {
            return scope;
        }
        match self.scopes.get(scope as usize) {
            Some(&real) => real,
            None => self.first_scope + scope - id_of(self.scopes.len()),
        }
    }

    fn block(&self, block: BlockId) -> BlockId {
        match self.blocks.get(block as usize) {
            Some(&real) => real,
            None => self.first_block + block - id_of(self.blocks.len()),
        }
    }

    fn expr_id(&self, expr: ExprId) -> ExprId {
        self.first_expr + expr
    }

    fn at(&self, at: At) -> At {
        At {
            pos: self.pos + at.pos,
            block: self.block(at.block),
        }
    }

    fn exprs(&self, exprs: &[ExprId]) -> Box<[ExprId]> {
        exprs.iter().map(|&expr| self.expr_id(expr)).collect()
    }

    fn expr(&self, expr: &Expr) -> Expr {
        match expr {
            Expr::Name { scope, name, at } => Expr::Name {
                scope: self.scope(*scope),
                name: name.clone(),
                at: at.map(|at| self.at(at)),
            },
            Expr::Param { scope, index } => Expr::Param {
                scope: self.scope(*scope),
                index: *index,
            },
            Expr::Attr { object, name } => Expr::Attr {
                object: self.expr_id(*object),
                name: name.clone(),
            },
            Expr::Call { func, args } => Expr::Call {
                func: self.expr_id(*func),
                args: args
                    .iter()
                    .map(|arg| Arg {
                        keyword: arg.keyword.clone(),
                        value: self.expr_id(arg.value),
                        splat: arg.splat,
                    })
                    .collect(),
            },
            Expr::Subscript {
                object,
                index,
                read,
            } => Expr::Subscript {
                object: self.expr_id(*object),
                index: index.map(|index| self.expr_id(index)),
                read: read.map(|(scope, at)| (self.scope(scope), self.at(at))),
            },
            Expr::Seq(items) => Expr::Seq(self.exprs(items)),
            Expr::Starred(inner) => Expr::Starred(self.expr_id(*inner)),
            Expr::Dict(entries) => Expr::Dict(
                entries
                    .iter()
                    .map(|(key, value)| (key.map(|key| self.expr_id(key)), self.expr_id(*value)))
                    .collect(),
            ),
            Expr::Comprehension { element } => Expr::Comprehension {
                element: self.expr_id(*element),
            },
            Expr::Def(scope) => Expr::Def(self.scope(*scope)),
            Expr::Decorate { decorator, inner } => Expr::Decorate {
                decorator: self.expr_id(*decorator),
                inner: self.expr_id(*inner),
            },
            Expr::Iter(inner) => Expr::Iter(self.expr_id(*inner)),
            Expr::Enter(inner) => Expr::Enter(self.expr_id(*inner)),
            Expr::Super { function } => Expr::Super {
                function: self.scope(*function),
            },
            Expr::SuperOf(inner) => Expr::SuperOf(self.expr_id(*inner)),
            Expr::Typed(inner) => Expr::Typed(self.expr_id(*inner)),
            Expr::Union(items) => Expr::Union(self.exprs(items)),
            Expr::Module { .. }
            | Expr::ImportFrom { .. }
            | Expr::Const(_)
            | Expr::Builtin
            | Expr::Unknown => expr.clone(),
        }
    }

    /// A chunk's scope with its ids relocated.
    fn scope_of(&self, scope: &Scope) -> Scope {
        Scope {
            kind: scope.kind,
            name: scope.name.clone(),
            parent: scope.parent.map(|parent| self.scope(parent)),
            node: scope.node,
            type_only: scope.type_only,
            flavor: scope.flavor,
            params: scope.params.clone(),
            bindings: scope
                .bindings
                .iter()
                .map(|binding| super::Binding {
                    name: binding.name.clone(),
                    value: self.expr_id(binding.value),
                    pos: self.pos + binding.pos,
                    block: self.block(binding.block),
                    floating: binding.floating,
                    narrowed: binding.narrowed,
                })
                .collect(),
            names: scope.names.clone(),
            returns: scope.returns.iter().map(|&e| self.expr_id(e)).collect(),
            yields: scope.yields.iter().map(|&e| self.expr_id(e)).collect(),
            bases: scope.bases.iter().map(|&e| self.expr_id(e)).collect(),
            self_stores: scope
                .self_stores
                .iter()
                .map(|(name, value)| (name.clone(), self.expr_id(*value)))
                .collect(),
            top: self.block(scope.top),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Facts, read};
    use super::{Chunk, Fragment, Fragments, walk_alone, walk_in_tree};
    use crate::extract::{Language, extract_as};
    use keel_engine::HintStore;
    use rustc_hash::FxHashSet as HashSet;
    use std::cell::Cell;
    use std::sync::Arc;

    /// Every construct whose facts reach outside its own function: bindings made in the
    /// module through `global`, defaults and decorators read in the enclosing scope (a
    /// class's own names among them),
    /// `self` stores into the class, `__all__` extended from a default, nested scopes,
    /// lambdas and comprehensions, a class inside an `if`, a nested class, and
    /// functions inside blocks (not fragments).
    const SOURCE: &str = r#"import os
from . import helpers as h
__all__ = ["run"]
counter = 0

def register(f):
    global counter
    counter = counter + 1
    return f

@register
def run(x, y=os.getcwd(), *args, key=lambda v: v.strip(), **kw):
    items = [h.clean(i) for i in args if i]
    def inner(z):
        nonlocal x
        x = z
        return helpers_call(z)
    with open(x) as handle:
        for line in handle:
            inner(line)
    return Base(items)

class Base(object):
    size: int = 0
    mode = os.environ.get("MODE")

    def __init__(self, items, extra=__all__.append("Base")):
        self.items = items
        self.total = len(items)

    @staticmethod
    def make(*a):
        return Base(list(a))

    maker = make

    @property
    def first(self):
        return self.items[0]

    def wrap(f):
        return f

    @wrap
    def wrapped(self, level=size, how=mode):
        return level

    class Inner:
        def go(self):
            return run(1)

    if mode:
        def maybe(self):
            return self.make()

    async def fetch(self, *, wait=True):
        async with self.lock() as held:
            await held.wait()
        yield self.first

if os.name == "nt":
    class Windows(Base):
        def __init__(self):
            super().__init__([])
            Base.make(self)

    def platform():
        return Windows()

def tail():
    try:
        run(1)
    except ValueError as error:
        raise RuntimeError(error) from error
    finally:
        counter
    return [lambda: tail() for _ in range(2)]
"#;

    /// Takes each fragment's chunk by walking it in the tree (or alone), leaking it so
    /// that the walk can borrow it; counts them. `units`: the source's units.
    struct Walked {
        alone: bool,
        count: Cell<usize>,
        units: Vec<String>,
    }

    impl Walked {
        fn new(alone: bool, source: &str) -> Self {
            Self {
                alone,
                count: Cell::new(0),
                units: units_of(source),
            }
        }
    }

    impl Fragments for Walked {
        fn chunk(&self, fragment: &Fragment<'_>) -> &Arc<Chunk> {
            self.count.set(self.count.get() + 1);
            let units: Vec<String> = self
                .units
                .iter()
                .filter(|unit| {
                    unit.strip_prefix(fragment.qualified)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
                })
                .cloned()
                .collect();
            let chunk = if self.alone {
                walk_alone(&HintStore::default(), fragment.text, fragment.class, &units)
            } else {
                walk_in_tree(
                    fragment.text,
                    fragment.class,
                    &units,
                    fragment.node,
                    fragment.byte_base,
                    fragment.row_base,
                )
            };
            Box::leak(Box::new(Arc::new(chunk)))
        }
    }

    fn units_of(source: &str) -> Vec<String> {
        // The source parses: its units are extracted whole.
        let units = extract_as(Language::Python, source.as_bytes()).expect("parses");
        units.into_iter().map(|unit| unit.name).collect()
    }

    fn facts(source: &str, fragments: Option<&dyn Fragments>) -> Facts {
        let names = units_of(source);
        let standing = super::Standing {
            units: names.iter().map(String::as_str).collect(),
            left_out: HashSet::default(),
        };
        let content: Arc<[u8]> = source.as_bytes().into();
        let facts = read(
            &HintStore::default(),
            "pkg/mod.py",
            &content,
            &standing,
            fragments,
        );
        // A walk that spliced fragments says where; the facts proper must be equal.
        Facts {
            layout: Default::default(),
            ..facts
        }
    }

    #[test]
    fn facts_spliced_from_fragments_equal_facts_walked_whole() {
        let whole = facts(SOURCE, None);
        for alone in [false, true] {
            let walked = Walked::new(alone, SOURCE);
            let spliced = facts(SOURCE, Some(&walked));
            // register, run, tail; Base's __init__, make, first, wrap, wrapped, fetch;
            // Windows's __init__ (a class in an `if` is still the module's); `maybe` and
            // `platform`, in an `if` in the class's and the module's bodies. Not
            // Inner.go: its class is not the module's.
            assert_eq!(walked.count.get(), 12, "fragments taken (alone: {alone})");
            assert_eq!(spliced, whole, "alone: {alone}");
        }
    }

    #[test]
    fn a_chunk_adds_to_the_skeleton_what_it_binds_and_stores_there_only() {
        let class = Some(("C", true));
        let method = |body: &str| {
            walk_alone(
                &HintStore::default(),
                &format!("    def f(self):\n{body}"),
                class,
                &[],
            )
        };
        let base = method("        self.a = g()\n");
        // A body edit that binds and stores the same outside the method.
        let same = method("        x = 1\n        self.a = h(x)\n");
        assert!(base.adds_to_skeleton_as(&same));
        // Another attribute stored on `self`, a name made global and bound.
        let other_store = method("        self.b = g()\n");
        assert!(!base.adds_to_skeleton_as(&other_store));
        let global = method("        global g\n        g = 1\n        self.a = g\n");
        assert!(!base.adds_to_skeleton_as(&global));
        // A class defined inside the method is the fragment's own.
        let nested = method("        class K:\n            pass\n        self.a = K()\n");
        assert!(nested.holds_class() && !base.holds_class());
        assert!(base.adds_to_skeleton_as(&nested));
    }

    #[test]
    fn a_chunk_does_not_depend_on_where_its_fragment_sits() {
        let walked = Walked::new(false, SOURCE);
        let shifted = format!("import sys\n\n\n{SOURCE}");
        let plain = facts(SOURCE, Some(&walked));
        let moved = facts(&shifted, Some(&walked));
        let lines = |facts: &Facts| facts.sites.iter().map(|site| site.line).collect::<Vec<_>>();
        let expected: Vec<u32> = lines(&plain).iter().map(|line| line + 3).collect();
        assert_eq!(lines(&moved), expected);
        let texts = |facts: &Facts| {
            facts
                .sites
                .iter()
                .map(|site| site.text.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(&moved), texts(&plain));
        assert!(
            lines(&plain).contains(&21),
            "a call inside `run` keeps its line"
        );
    }

    /// Statements a generated body draws from: each reaches outside its own line in some
    /// way (a module name, a `global`, a nested scope, a `self` store, a block, a name
    /// narrowed by `isinstance`, attributes read and assigned).
    const BODY: [&str; 14] = [
        "return helpers.clean(x)",
        "global counter\ncounter = counter + 1",
        "items = [h.clean(i) for i in x if i]",
        "key = lambda v: v.strip()\nkey(x)",
        "def inner(z):\n    nonlocal x\n    x = z\n    return run(z)\ninner(x)",
        "with open(x) as handle:\n    for line in handle:\n        run(line)",
        "try:\n    run(x)\nexcept ValueError as error:\n    raise RuntimeError(error) from error",
        "y = Base(x)\ny.make()",
        "if x:\n    return tail()\nelse:\n    pass",
        "__all__.append(\"late\")",
        "class Local:\n    def go(self):\n        return run(1)\nLocal().go()",
        "yield x",
        "if isinstance(x, (Base, str)) and x:\n    x.make()\nelif isinstance(x, int):\n    return x.real",
        "assert isinstance(x, Base)\nx.total += 1\nx.items = x.first",
    ];
    /// Lines a generated method adds to a body.
    const METHOD: [&str; 3] = [
        "self.items = list(x)",
        "return self.make()",
        "self.total = len(self.items)",
    ];
    const DECORATORS: [&str; 5] = [
        "",
        "@register\n",
        "@staticmethod\n",
        "@property\n",
        "@register(os.sep)\n",
    ];

    /// `text` indented by `by` spaces on every line.
    fn indented(text: &str, by: usize) -> String {
        text.lines()
            .map(|line| format!("{}{line}\n", " ".repeat(by)))
            .collect()
    }

    /// A generated module: imports, then functions and classes (some inside an `if`).
    fn generated(rng: &mut keel_fixtures::rng::SeededRng) -> String {
        let mut text = String::from(
            "import os\nfrom . import helpers as h\nimport helpers\n__all__ = [\"run\"]\ncounter = 0\n",
        );
        for item in 0..1 + rng.below(6) {
            let guarded = rng.below(5) == 0;
            let base = if guarded { 4 } else { 0 };
            if guarded {
                text.push_str("if os.name == \"nt\":\n");
            }
            let function = |rng: &mut keel_fixtures::rng::SeededRng,
                            name: String,
                            indent: usize,
                            method: bool| {
                let mut def = String::from(DECORATORS[rng.below(DECORATORS.len())]);
                let receiver = if method { "self, x" } else { "x" };
                let default = [
                    "",
                    ", y=os.getcwd()",
                    ", z=__all__.append(\"d\")",
                    ", w=__all__.extend(os.sep)",
                ][rng.below(4)];
                def.push_str(&format!("def {name}({receiver}{default}):\n"));
                let mut body = String::new();
                for _ in 0..1 + rng.below(3) {
                    body.push_str(BODY[rng.below(BODY.len())]);
                    body.push('\n');
                }
                if method {
                    body.push_str(METHOD[rng.below(METHOD.len())]);
                    body.push('\n');
                }
                let mut out = indented(&def, indent);
                out.push_str(&indented(&body, indent + 4));
                out
            };
            if rng.below(2) == 0 {
                text.push_str(&function(rng, format!("f{item}"), base, false));
            } else {
                text.push_str(&indented(
                    &format!("class C{item}(Base):\n    size: int = 0\n"),
                    base,
                ));
                for method in 0..1 + rng.below(3) {
                    text.push_str(&function(rng, format!("m{method}"), base + 4, true));
                }
            }
        }
        text
    }

    #[test]
    fn generated_modules_spliced_equal_them_walked_whole() {
        let mut rng = keel_fixtures::rng::SeededRng::new(0x6672_6167);
        let mut fragments = 0;
        for case in 0..200 {
            let source = generated(&mut rng);
            let whole = facts(&source, None);
            assert!(!whole.partial, "case {case} parses:\n{source}");
            for alone in [false, true] {
                let walked = Walked::new(alone, &source);
                assert_eq!(
                    facts(&source, Some(&walked)),
                    whole,
                    "case {case}, alone {alone}:\n{source}"
                );
                fragments += walked.count.get();
            }
        }
        assert!(fragments > 400, "{fragments} fragments spliced");
    }
}
