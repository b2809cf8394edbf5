//! The repository call graph: callable nodes, resolved call edges and the call sites keel
//! could not resolve, for Python and TS/JS, over one [`Sources`].
//!
//! Owns: the graph's vocabulary ([`NodeId`], [`NodeKind`], [`CallNode`], [`Edge`],
//! [`UnresolvedSite`]), the tree a graph is built from ([`Sources`]), the per-file
//! answer every language gives ([`FileGraph`], one query per file: [`file_graph`]), the
//! whole graph ([`call_graph`]) and its reverse adjacency ([`callers`]).
//! Does not own: reading call sites and resolving them — each language does that
//! (`python`, `typescript`) with its own per-file queries (facts, export tables) — the
//! edges a method call makes through the overrides of subtypes (`dispatch`, a pass over
//! every file's classes and virtual calls that the assembly runs), nor the impact report
//! (`impact`).
//!
//! A node is a callable unit of an image (`function`, `method`, `class`) or the module
//! node `path#<module>` that owns a file's top-level code. Calls from anonymous functions
//! belong to the nearest named callable. A call resolves to a node of the tree (an
//! [`Edge`]), to code outside the repository (standard library, packages, builtins: no
//! edge, not unresolved), or to nothing keel could prove ([`UnresolvedSite`], never
//! dropped).

pub mod dispatch;
pub mod python;
pub mod typescript;

use crate::extract::Language;
/// For a command that builds one graph and exits: its parse caches keep only the latest
/// hints (see the function).
pub use crate::extract::single_use;
use crate::images::Image;
/// A tree's entry at a path and its files: how a front end reads the base a graph is
/// built from.
pub use crate::tree::{files_under, lookup};
/// The source tree a graph is built from: the engine's input (created with
/// `KeelDatabase::sources`, moved with `ChangeEvent::SourcesChanged`), read per file through [`file_blob`]
/// so an edit elsewhere in the tree re-runs only that lookup.
pub use keel_engine::inputs::Sources;
use keel_engine::{Db, Oid};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A callable's id: `path#Qualified.name`, or `path#<module>` for a file's top-level code.
/// Shared text: a graph holds each id in its node, its edges and its sites, and
/// assembling a graph after an edit copies every file's ids, so a copy is a count.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(Arc<str>);

/// The module node's name after `#`.
pub const MODULE: &str = "<module>";

impl NodeId {
    /// The node `qualified` of the file at `path`.
    pub fn new(path: &str, qualified: &str) -> Self {
        Self(format!("{path}#{qualified}").into())
    }

    /// The module node of the file at `path`.
    pub fn module(path: &str) -> Self {
        Self::new(path, MODULE)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file part (before the first `#`: a qualified name may hold one, as TS
    /// `Class.#private` does).
    pub fn path(&self) -> &str {
        self.0.split_once('#').map_or(&*self.0, |(path, _)| path)
    }

    /// The qualified name (after the first `#`).
    pub fn qualified(&self) -> &str {
        self.0.split_once('#').map_or("", |(_, name)| name)
    }

    /// The last segment of the qualified name (`m` of `C.m`; the whole name otherwise).
    pub fn last_name(&self) -> &str {
        let qualified = self.qualified();
        qualified
            .rsplit_once('.')
            .map_or(qualified, |(_, last)| last)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKind {
    Module,
    Function,
    /// Constructors, accessors, static and class methods included.
    Method,
    Class,
}

impl NodeKind {
    /// Its name in reports.
    pub fn label(self) -> &'static str {
        match self {
            Self::Module => "module",
            Self::Function => "function",
            Self::Method => "method",
            Self::Class => "class",
        }
    }
}

/// One node of the graph.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallNode {
    pub id: NodeId,
    pub kind: NodeKind,
    /// First and last line (1-based, inclusive); a module node spans its whole file.
    pub start_line: u32,
    pub end_line: u32,
}

/// One resolved call: `caller` calls `callee` at line `line`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Call {
    pub caller: NodeId,
    pub callee: NodeId,
    pub line: u32,
}

/// The calls from one caller to one callee, with the lines of their sites (ascending).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edge {
    pub caller: NodeId,
    pub callee: NodeId,
    pub sites: Vec<u32>,
    /// Every site reaches the callee only as an override: a method call resolved to
    /// another method (or to an interface's) whose receiver may be an instance of a
    /// subtype that defines the callee ([`dispatch`]).
    pub dispatch: bool,
}

/// A call keel could not resolve: its caller, line and the callee as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnresolvedSite {
    pub caller: NodeId,
    pub line: u32,
    pub callee_text: String,
}

impl UnresolvedSite {
    /// The last name the callee expression ends with (`m` of `self.obj.m`), the name a
    /// missed callee would have.
    pub fn last_name(&self) -> &str {
        let text = self.callee_text.trim_end_matches("()");
        text.rsplit(['.', ' ']).next().unwrap_or(text)
    }
}

/// What one file contributes: its nodes (the module node first, then in document order),
/// the calls made from them that resolved inside the tree, and the ones that did not.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FileGraph {
    pub nodes: Vec<CallNode>,
    pub calls: Vec<Call>,
    pub unresolved: Vec<UnresolvedSite>,
    /// The file did not parse cleanly: only its well-formed parts count.
    pub partial: bool,
    /// Its classes and interfaces, for [`dispatch`].
    pub types: Vec<dispatch::TypeDecl>,
    /// Its method calls a subtype of the receiver may take over, for [`dispatch`].
    pub virtual_calls: Vec<dispatch::VirtualCall>,
}

/// The blob at `path` in `tree`: the one read of a tree's file list a per-file answer
/// makes, so an edit elsewhere in the tree re-runs only this lookup.
#[salsa::tracked(returns(copy))]
pub fn file_blob(db: &dyn Db, tree: Sources, path: String) -> Option<Oid> {
    let files = tree.files(db);
    files
        .binary_search_by(|(known, _)| known.as_str().cmp(&path))
        .ok()
        .map(|at| files[at].1)
}

/// The paths of `tree`'s files, sorted: what an answer that asks only whether a file
/// exists reads (module paths), so an edit that changes a file's content and no path
/// re-runs this once and backdates it, and none of those answers runs again.
#[salsa::tracked(returns(ref))]
pub fn tree_paths(db: &dyn Db, tree: Sources) -> Vec<String> {
    tree.files(db)
        .iter()
        .map(|(path, _)| path.clone())
        .collect()
}

/// A source tree's files, read the way the graph's queries read them.
pub trait TreeFiles {
    /// The blob at `path`, if the tree has that file (through [`file_blob`]).
    fn blob(self, db: &dyn Db, path: &str) -> Option<Oid>;
    /// The image of the file at `path`, if the tree has it.
    fn image<'db>(self, db: &'db dyn Db, path: &str) -> Option<Image<'db>>;
    /// The paths of the files a language reads (`.py`, `.ts`, …), in order.
    fn source_paths(self, db: &dyn Db) -> impl Iterator<Item = &str>;
    /// Whether `image` is larger than the tree's `max_file_bytes`: then it is not parsed,
    /// its graph is its module node alone ([`file_graph`]) and other files read nothing
    /// of it (an import of one of its names is unresolved).
    fn past_bound(self, db: &dyn Db, image: Image<'_>) -> bool;
}

impl TreeFiles for Sources {
    fn blob(self, db: &dyn Db, path: &str) -> Option<Oid> {
        file_blob(db, self, path.to_owned())
    }

    fn image<'db>(self, db: &'db dyn Db, path: &str) -> Option<Image<'db>> {
        self.blob(db, path)
            .map(|blob| Image::at(db, blob, path.to_owned()))
    }

    fn source_paths(self, db: &dyn Db) -> impl Iterator<Item = &str> {
        self.files(db)
            .iter()
            .map(|(path, _)| path.as_str())
            .filter(|path| Language::for_path(path).is_some())
    }

    fn past_bound(self, db: &dyn Db, image: Image<'_>) -> bool {
        crate::images::FileBound(self.max_file_bytes(db)).excludes(db, image)
    }
}

/// The graph of one file of `tree`: dispatched by language. Memoized per (tree, path);
/// the languages' own per-image queries make a new tree cheap where files did not change.
/// A file past the tree's bound is not parsed: its module node alone, listed as partial.
#[salsa::tracked(returns(ref))]
pub fn file_graph(db: &dyn Db, tree: Sources, path: String) -> FileGraph {
    if let Some(image) = tree.image(db, &path)
        && tree.past_bound(db, image)
    {
        return FileGraph {
            nodes: vec![module_node(db, image)],
            partial: true,
            ..FileGraph::default()
        };
    }
    match Language::for_path(&path) {
        Some(Language::Python) => python::file_graph(db, tree, &path),
        Some(Language::TypeScript | Language::Tsx) => typescript::file_graph(db, tree, &path),
        None => FileGraph::default(),
    }
}

/// The whole graph of a tree: nodes sorted by id, edges by (caller, callee), unresolved
/// sites by (caller, line, text), partial files by path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CallGraph {
    pub nodes: Vec<CallNode>,
    pub edges: Vec<Edge>,
    pub unresolved: Vec<UnresolvedSite>,
    pub partial: Vec<String>,
}

impl CallGraph {
    /// The node with id `id`.
    pub fn node(&self, id: &NodeId) -> Option<&CallNode> {
        self.nodes
            .binary_search_by(|node| node.id.cmp(id))
            .ok()
            .map(|at| &self.nodes[at])
    }
}

#[salsa::tracked(returns(ref))]
pub fn call_graph(db: &dyn Db, tree: Sources) -> CallGraph {
    let mut graph = CallGraph::default();
    let mut calls: Vec<&Call> = Vec::new();
    let mut types: Vec<&dispatch::TypeDecl> = Vec::new();
    let mut virtual_calls: Vec<&dispatch::VirtualCall> = Vec::new();
    for path in tree.source_paths(db) {
        let file = file_graph(db, tree, path.to_owned());
        graph.nodes.extend(file.nodes.iter().cloned());
        calls.extend(&file.calls);
        graph.unresolved.extend(file.unresolved.iter().cloned());
        types.extend(&file.types);
        virtual_calls.extend(&file.virtual_calls);
        if file.partial {
            graph.partial.push(path.to_owned());
        }
    }
    graph.nodes.sort_by(|a, b| a.id.cmp(&b.id));
    graph.nodes.dedup_by(|a, b| a.id == b.id);
    let dispatched = dispatch::dispatch(types.into_iter(), &virtual_calls, &graph.nodes);
    graph.edges = edges(&calls, &dispatched.calls);
    graph.unresolved.sort();
    if !dispatched.settled.is_empty() {
        graph
            .unresolved
            .retain(|site| dispatched.settled.binary_search(site).is_err());
    }
    graph
}

/// The edges of the direct `calls` and the `dispatched` ones, sorted by (caller, callee):
/// one per (caller, callee), with the lines of its sites, a dispatch edge when no direct
/// call makes it.
fn edges(calls: &[&Call], dispatched: &[Call]) -> Vec<Edge> {
    let mut all: Vec<(&Call, bool)> = calls
        .iter()
        .map(|&call| (call, false))
        .chain(dispatched.iter().map(|call| (call, true)))
        .collect();
    all.sort_unstable();
    all.chunk_by(|(a, _), (b, _)| a.caller == b.caller && a.callee == b.callee)
        // `chunk_by` yields no empty group, so `group[0]` is there.
        .map(|group| {
            let mut sites: Vec<u32> = group.iter().map(|(call, _)| call.line).collect();
            sites.dedup();
            Edge {
                caller: group[0].0.caller.clone(),
                callee: group[0].0.callee.clone(),
                sites,
                dispatch: group.iter().all(|&(_, dispatched)| dispatched),
            }
        })
        .collect()
}

/// [`call_graph`] built on `threads` database clones: first every file's own work
/// (parsing, facts, interface) is shared out, then every file's resolution, and the graph
/// is assembled from the warm memos. The answer does not depend on `threads`. A tree that
/// the last setting changed in fewer files than there are threads (an edit) is answered
/// on this thread: there is no parse to share, and helpers would only re-check every
/// file's memos twice over. The helpers
/// start from this thread's parse hints and hand back the ones they make
/// ([`crate::extract::Hints`]), so a graph of an edited tree asked later on this thread
/// reparses the edited files incrementally, whichever thread takes them.
pub fn call_graph_on_threads<D: Db + Clone + Send>(
    db: &D,
    tree: Sources,
    threads: usize,
) -> &CallGraph {
    if threads > 1 && tree.changed_files(db) >= threads {
        let paths: Vec<String> = tree.source_paths(db).map(str::to_owned).collect();
        for phase in [warm_file, resolved_file] {
            let start = crate::extract::thread_hints(db.hints());
            let next = std::sync::atomic::AtomicUsize::new(0);
            let made: Vec<crate::extract::Hints> = std::thread::scope(|spawner| {
                let helpers: Vec<_> = (0..threads)
                    .map(|_| {
                        let clone = db.clone();
                        let (next, paths, start) = (&next, &paths, &start);
                        spawner.spawn(move || {
                            crate::extract::adopt_hints(clone.hints(), start.clone());
                            while let Some(path) =
                                paths.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                            {
                                phase(&clone, tree, path);
                            }
                            crate::extract::retire_thread(clone.hints())
                        })
                    })
                    .collect();
                helpers
                    .into_iter()
                    .map(|helper| {
                        helper
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect()
            });
            crate::extract::adopt_hints(db.hints(), crate::extract::Hints::largest_last(made));
        }
    }
    call_graph(db, tree)
}

/// The work on one file that reads no other file (none for a file past the bound).
fn warm_file(db: &dyn Db, tree: Sources, path: &str) {
    let Some(image) = tree.image(db, path) else {
        return;
    };
    if tree.past_bound(db, image) {
        return;
    }
    match Language::for_path(path) {
        Some(Language::Python) => python::warm(db, image),
        Some(Language::TypeScript | Language::Tsx) => typescript::warm(db, image),
        None => {}
    }
}

/// One file's graph (its resolution reads the others' warm answers).
fn resolved_file(db: &dyn Db, tree: Sources, path: &str) {
    let _ = file_graph(db, tree, path.to_owned());
}

/// For every callee, its callers (sorted, each once): the reverse adjacency the impact
/// closure walks.
#[salsa::tracked(returns(ref))]
pub fn callers(db: &dyn Db, tree: Sources) -> BTreeMap<NodeId, Vec<NodeId>> {
    let mut reverse: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
    for edge in &call_graph(db, tree).edges {
        reverse
            .entry(edge.callee.clone())
            .or_default()
            .push(edge.caller.clone());
    }
    for callers in reverse.values_mut() {
        callers.sort();
        callers.dedup();
    }
    reverse
}

/// The nodes of one image as both languages derive them from its units: the module node
/// spanning the file, then every function, method and class unit (variables, enums and
/// type-only units call nothing and are called by nothing). A file that parsed in part
/// yields the nodes of its standing units and is `partial`.
pub fn unit_nodes(db: &dyn Db, image: Image<'_>) -> (Vec<CallNode>, bool) {
    use crate::anchors::ImageUnits;
    use crate::extract::{ExtractError, UnitKind};
    let path = image.path(db);
    let mut nodes = vec![module_node(db, image)];
    let (units, partial) = match crate::images::image_units(db, image) {
        ImageUnits::Extracted(Ok(units)) => (units.as_slice(), false),
        ImageUnits::Extracted(Err(ExtractError::Unparseable { partial, .. })) => {
            (partial.units.as_slice(), true)
        }
        ImageUnits::Extracted(Err(ExtractError::Unavailable { .. })) => (&[][..], true),
        ImageUnits::Absent | ImageUnits::NoExtractor | ImageUnits::TooLarge => (&[][..], false),
    };
    nodes.extend(units.iter().filter_map(|unit| {
        let kind = match unit.kind {
            UnitKind::Function => NodeKind::Function,
            UnitKind::Method => NodeKind::Method,
            UnitKind::Class => NodeKind::Class,
            UnitKind::Variable | UnitKind::Enum | UnitKind::TypeOnly => return None,
        };
        Some(CallNode {
            id: NodeId::new(path, &unit.name),
            kind,
            start_line: unit.start_line,
            end_line: unit.end_line,
        })
    }));
    (nodes, partial)
}

/// The module node of an image: its top-level code, spanning the file.
fn module_node(db: &dyn Db, image: Image<'_>) -> CallNode {
    let lines = crate::images::image_bytes(db, image).map_or(1, |bytes| line_count(&bytes));
    CallNode {
        id: NodeId::module(image.path(db)),
        kind: NodeKind::Module,
        start_line: 1,
        end_line: lines,
    }
}

/// Lines in a text as the diff counts them (at least 1: an empty file's module node
/// spans line 1).
fn line_count(bytes: &[u8]) -> u32 {
    crate::diff::line_count(bytes).max(1)
}

/// The innermost node of `nodes` (one file's) whose lines hold `line`: the caller of a
/// site at that line. The module node when no other holds it; on equal spans the later
/// start wins, then a unit over the module node.
pub fn innermost(nodes: &[CallNode], line: u32) -> Option<&CallNode> {
    nodes
        .iter()
        .filter(|node| node.start_line <= line && line <= node.end_line)
        .min_by_key(|node| {
            (
                node.end_line - node.start_line,
                std::cmp::Reverse(node.start_line),
                node.kind == NodeKind::Module,
            )
        })
}

/// Whether a file of a tree is read to build its graph: a source file of a language keel
/// reads, or a `tsconfig*.json` (module paths; a config may extend another).
pub fn is_graph_input(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    Language::for_path(path).is_some() || (name.starts_with("tsconfig") && name.ends_with(".json"))
}

/// The files of a list a graph reads (`is_graph_input`), for `KeelDatabase::sources`.
pub fn graph_inputs(files: &[(String, Oid)]) -> Vec<(String, Oid)> {
    files
        .iter()
        .filter(|(path, _)| is_graph_input(path))
        .cloned()
        .collect()
}

/// `keel callgraph --format json`: `{"schema", "nodes", "edges", "unresolved",
/// "partial"}`, compact and canonical (DESIGN "Semantic impact"). An edge only dispatch
/// makes carries `"dispatch": true` after its sites; no other edge has the key.
pub fn callgraph_json(graph: &CallGraph) -> crate::json::Json {
    use crate::json::Json;
    let node = |node: &CallNode| {
        Json::Object(vec![
            ("id", Json::string(node.id.as_str())),
            ("kind", Json::string(node.kind.label())),
            ("path", Json::string(node.id.path())),
            ("start_line", Json::number(node.start_line)),
            ("end_line", Json::number(node.end_line)),
        ])
    };
    let edge = |edge: &Edge| {
        let mut fields = vec![
            ("caller", Json::string(edge.caller.as_str())),
            ("callee", Json::string(edge.callee.as_str())),
            (
                "sites",
                Json::Array(edge.sites.iter().map(|&line| Json::number(line)).collect()),
            ),
        ];
        if edge.dispatch {
            fields.push(("dispatch", Json::Bool(true)));
        }
        Json::Object(fields)
    };
    let site = |site: &UnresolvedSite| {
        Json::Object(vec![
            ("caller", Json::string(site.caller.as_str())),
            ("line", Json::number(site.line)),
            ("callee_text", Json::string(site.callee_text.as_str())),
        ])
    };
    Json::Object(vec![
        ("schema", Json::string(CALLGRAPH_SCHEMA)),
        ("nodes", Json::Array(graph.nodes.iter().map(node).collect())),
        ("edges", Json::Array(graph.edges.iter().map(edge).collect())),
        (
            "unresolved",
            Json::Array(graph.unresolved.iter().map(site).collect()),
        ),
        (
            "partial",
            Json::Array(graph.partial.iter().map(Json::string).collect()),
        ),
    ])
}

/// The call graph document's schema name.
pub const CALLGRAPH_SCHEMA: &str = "keel.callgraph.v1";

#[cfg(test)]
mod tests {
    use super::*;

    fn node(qualified: &str, kind: NodeKind, start_line: u32, end_line: u32) -> CallNode {
        CallNode {
            id: NodeId::new("src/a.ts", qualified),
            kind,
            start_line,
            end_line,
        }
    }

    #[test]
    fn ids_split_at_the_first_hash() {
        let id = NodeId::new("src/a.ts", "Svc.#p");
        assert_eq!(
            (id.path(), id.qualified(), id.last_name()),
            ("src/a.ts", "Svc.#p", "#p")
        );
        assert_eq!(NodeId::module("a.py").qualified(), MODULE);
    }

    #[test]
    fn the_innermost_node_holds_the_line_and_a_unit_beats_the_module_on_a_tie() {
        let nodes = [
            node(MODULE, NodeKind::Module, 1, 9),
            node("whole", NodeKind::Function, 1, 9),
            node("C", NodeKind::Class, 2, 6),
            node("C.m", NodeKind::Method, 3, 4),
        ];
        let at = |line| innermost(&nodes, line).map(|n| n.id.qualified());
        assert_eq!(at(3), Some("C.m"));
        assert_eq!(at(5), Some("C"));
        assert_eq!(at(8), Some("whole"));
        assert_eq!(at(10), None);
    }

    #[test]
    fn graph_inputs_are_sources_and_tsconfigs() {
        for (path, read) in [
            ("a.py", true),
            ("web/x.tsx", true),
            ("tsconfig.json", true),
            ("pkg/tsconfig.base.json", true),
            ("package.json", false),
            ("README.md", false),
        ] {
            assert_eq!(is_graph_input(path), read, "{path}");
        }
    }
}
