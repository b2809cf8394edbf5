//! The call hierarchy an editor asks for, from keel's call graph of the working tree as the
//! editor holds it (unsaved buffers included): the callable under the cursor, its callers
//! and its callees, each with the lines of the calls. What keel could not resolve is never
//! hidden: an item's detail says how many of its own call sites did not resolve
//! (`+3 unresolved`).
//!
//! Owns: that mapping. Does not own: the graph (`keel_queries::callgraph`), nor which
//! tree it is built from (`super`).

use super::lines;
use keel_queries::callgraph::{CallGraph, CallNode, Edge, NodeId, NodeKind, innermost};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, Range, SymbolKind, Uri,
};

/// The graph, and how an item names its file.
pub(super) struct Calls<'a> {
    pub(super) graph: &'a CallGraph,
    pub(super) uri: &'a dyn Fn(&str) -> Option<Uri>,
}

impl Calls<'_> {
    /// The callable whose lines hold 1-based `line` of the file at `path`.
    pub(super) fn prepare(&self, path: &str, line: u32) -> Option<CallHierarchyItem> {
        let nodes: Vec<CallNode> = self
            .graph
            .nodes
            .iter()
            .filter(|node| node.id.path() == path)
            .cloned()
            .collect();
        self.item(innermost(&nodes, line)?)
    }

    /// Who calls the item's callable, with the lines of their calls.
    pub(super) fn incoming(&self, item: &CallHierarchyItem) -> Vec<CallHierarchyIncomingCall> {
        self.edges_of(item, |edge| &edge.callee, |edge| &edge.caller)
            .map(|(from, from_ranges)| CallHierarchyIncomingCall { from, from_ranges })
            .collect()
    }

    /// What the item's callable calls, with the lines of the calls (in its own file).
    pub(super) fn outgoing(&self, item: &CallHierarchyItem) -> Vec<CallHierarchyOutgoingCall> {
        self.edges_of(item, |edge| &edge.caller, |edge| &edge.callee)
            .map(|(to, from_ranges)| CallHierarchyOutgoingCall { to, from_ranges })
            .collect()
    }

    /// The edges whose `this` end is the item's callable: the `other` end as an item,
    /// with the lines of the calls.
    fn edges_of<'s>(
        &'s self,
        item: &CallHierarchyItem,
        this: impl Fn(&Edge) -> &NodeId + 's,
        other: impl Fn(&Edge) -> &NodeId + 's,
    ) -> impl Iterator<Item = (CallHierarchyItem, Vec<Range>)> + 's {
        let id = node_id(item);
        self.graph
            .edges
            .iter()
            .filter(move |edge| id.as_ref() == Some(this(edge)))
            .filter_map(move |edge| {
                Some((
                    self.item(self.graph.node(other(edge))?)?,
                    sites(&edge.sites),
                ))
            })
    }

    fn item(&self, node: &CallNode) -> Option<CallHierarchyItem> {
        let unresolved = self
            .graph
            .unresolved
            .iter()
            .filter(|site| site.caller == node.id)
            .count();
        let mut detail = node.id.path().to_owned();
        if unresolved > 0 {
            detail.push_str(&format!(" (+{unresolved} unresolved)"));
        }
        Some(CallHierarchyItem {
            name: node.id.qualified().to_owned(),
            kind: match node.kind {
                NodeKind::Module => SymbolKind::MODULE,
                NodeKind::Function => SymbolKind::FUNCTION,
                NodeKind::Method => SymbolKind::METHOD,
                NodeKind::Class => SymbolKind::CLASS,
            },
            tags: None,
            detail: Some(detail),
            uri: (self.uri)(node.id.path())?,
            range: lines(node.start_line, node.end_line),
            selection_range: lines(node.start_line, node.start_line),
            data: Some(serde_json::Value::String(node.id.as_str().to_owned())),
        })
    }
}

/// The graph id an item carries (as `data`, where [`Calls::item`] put it).
fn node_id(item: &CallHierarchyItem) -> Option<NodeId> {
    let (path, qualified) = item.data.as_ref()?.as_str()?.split_once('#')?;
    Some(NodeId::new(path, qualified))
}

/// The call sites' lines as ranges.
fn sites(lines_of: &[u32]) -> Vec<Range> {
    lines_of.iter().map(|&line| lines(line, line)).collect()
}
