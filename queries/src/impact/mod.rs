//! `keel impact`: which callables a patch changes and who calls them, transitively — a
//! bounded, canonical, byte-exact JSON report (DESIGN "Semantic impact").
//!
//! Owns: the report's parts ([`Operation`], [`Change`], [`Affected`]), the reverse
//! closure over base and candidate edges together ([`closure`]: breadth first, ordered by
//! id per depth, each node once at its minimum depth with the union of the provenance
//! reaching it there), the patch digest, and [`render`]: the complete closure cut to the
//! literal largest prefix that fits every limit, with frontier and deferred counts and
//! `used_bytes` equal to the document's length.
//! Does not own: parsing options (`options`) or the patch (`patch`), building graphs
//! (`callgraph`), reading sources or re-checking them (the engine; `keel impact`).

pub mod options;
pub mod patch;
pub mod unified;

use crate::callgraph::{NodeId, NodeKind};
use crate::json::Json;
use options::{Limits, OptionError};
use std::collections::{BTreeMap, BTreeSet};

/// The report's schema name.
pub const SCHEMA: &str = "keel.semantic-impact.v1";

/// One hunk of the patch, in authored order; or a file patch as a whole (all four
/// numbers 0, which no hunk has): a rename (before its hunks, if it has any), or a file
/// git wrote no lines for (a binary file, a mode change, an empty file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub index: usize,
    pub kind: patch::FileKind,
    pub path: String,
    /// The path before, for a rename only.
    pub old_path: Option<String>,
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
}

/// Whether a changed callable exists on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    Modified,
    Added,
    Removed,
}

impl ChangeKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::Modified => "modified",
            Self::Added => "added",
            Self::Removed => "removed",
        }
    }
}

/// A callable the patch's lines touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub id: NodeId,
    pub kind: NodeKind,
    pub change: ChangeKind,
    /// Ascending.
    pub operation_indices: Vec<usize>,
}

/// A node of the reverse closure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Affected {
    pub id: NodeId,
    pub kind: NodeKind,
    pub depth: u64,
    /// Ascending: the operations whose changes reach it at its minimum depth.
    pub operation_indices: Vec<usize>,
}

/// The complete reverse closure of `changes`: depth 0 holds the changed callables, depth
/// d+1 every caller of a depth-d node not met before. Breadth first, ordered by id within
/// a depth; a node appears once, at its minimum depth, with the union of the provenance of
/// the depth-(d) callers that reach it (longer paths through cycles or diamonds add none).
pub fn closure(
    changes: &[Change],
    callers: impl Fn(&NodeId) -> Vec<NodeId>,
    kind_of: impl Fn(&NodeId) -> NodeKind,
) -> Vec<Affected> {
    let mut seen: BTreeSet<NodeId> = BTreeSet::new();
    let mut level: BTreeMap<NodeId, (NodeKind, BTreeSet<usize>)> = BTreeMap::new();
    for change in changes {
        let entry = level
            .entry(change.id.clone())
            .or_insert_with(|| (change.kind, BTreeSet::new()));
        entry.1.extend(change.operation_indices.iter().copied());
    }
    let mut out = Vec::new();
    let mut depth = 0;
    while !level.is_empty() {
        seen.extend(level.keys().cloned());
        let mut next: BTreeMap<NodeId, (NodeKind, BTreeSet<usize>)> = BTreeMap::new();
        for (id, (_, provenance)) in &level {
            for caller in callers(id) {
                if seen.contains(&caller) {
                    continue;
                }
                let kind = kind_of(&caller);
                next.entry(caller)
                    .or_insert_with(|| (kind, BTreeSet::new()))
                    .1
                    .extend(provenance.iter().copied());
            }
        }
        out.extend(level.into_iter().map(|(id, (kind, provenance))| Affected {
            id,
            kind,
            depth,
            operation_indices: provenance.into_iter().collect(),
        }));
        level = next;
        depth += 1;
    }
    out
}

/// `SHA-256("keel.semantic-impact.patch-digest.v1\0" || le_u64(len) || bytes)`, lowercase
/// hex: the digest that binds the exact patch bytes processed.
pub fn patch_digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"keel.semantic-impact.patch-digest.v1\0");
    hash.update(u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
    hash.update(bytes);
    hex(&hash.finalize())
}

/// `SHA-256` over the sorted lines `path NUL blob-id LF`: the revision of a tree that no
/// commit names (`worktree:<hex>`).
pub fn tree_digest(files: &[(String, String)]) -> String {
    use sha2::{Digest, Sha256};
    let mut lines: Vec<&(String, String)> = files.iter().collect();
    lines.sort();
    let mut hash = Sha256::new();
    for (path, blob) in lines {
        hash.update(path.as_bytes());
        hash.update([0]);
        hash.update(blob.as_bytes());
        hash.update(b"\n");
    }
    hex(&hash.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The operations (one per hunk, files in patch order; a file's own operation first when
/// it is renamed or has no hunk) and the callables they touch: a removed line seeds the
/// innermost node holding it in the base, an added line the innermost node holding it in
/// the candidate (the module node at top level). A rename, and an added or deleted file
/// without hunks, seeds every node of its old path in the base and of its new path in
/// the candidate: a node's id names its file, so each of them is removed or added (and
/// a caller that imports the old module now calls nothing).
pub fn operations_and_changes(
    db: &dyn keel_engine::Db,
    base: crate::callgraph::Sources,
    candidate: crate::callgraph::Sources,
    files: &[patch::FilePatch],
) -> (Vec<Operation>, Vec<Change>) {
    use crate::callgraph::{file_graph, innermost, is_graph_input};
    let mut operations = Vec::new();
    let mut seeds: BTreeMap<NodeId, (usize, NodeKind, BTreeSet<usize>)> = BTreeMap::new();
    let nodes_of = |tree, path: Option<&String>| {
        path.filter(|path| is_graph_input(path))
            .map(|path| file_graph(db, tree, path.clone()).nodes.clone())
            .unwrap_or_default()
    };
    let mut seed = |node: &crate::callgraph::CallNode, index: usize| {
        seeds
            .entry(node.id.clone())
            .or_insert_with(|| (index, node.kind, BTreeSet::new()))
            .2
            .insert(index);
    };
    for file in files {
        let base_nodes = nodes_of(base, file.old_path.as_ref());
        let candidate_nodes = nodes_of(candidate, file.new_path.as_ref());
        let operation =
            |index: usize, [old_start, old_lines, new_start, new_lines]: [u32; 4]| Operation {
                index,
                kind: file.kind,
                path: file
                    .new_path
                    .clone()
                    .or_else(|| file.old_path.clone())
                    .unwrap_or_default(),
                old_path: (file.kind == patch::FileKind::Rename)
                    .then(|| file.old_path.clone())
                    .flatten(),
                old_start,
                old_lines,
                new_start,
                new_lines,
            };
        // A rename, a copy and a file git wrote no lines for are whole-file operations:
        // every callable of the paths they change is a change (a copy only adds).
        if file.kind == patch::FileKind::Rename
            || file.copied_from.is_some()
            || file.hunks.is_empty()
        {
            let index = operations.len();
            operations.push(operation(index, [0; 4]));
            if file.kind != patch::FileKind::Modify {
                for node in base_nodes.iter().chain(&candidate_nodes) {
                    seed(node, index);
                }
            }
        }
        for hunk in &file.hunks {
            let index = operations.len();
            operations.push(operation(
                index,
                [
                    hunk.old_start,
                    hunk.old_lines,
                    hunk.new_start,
                    hunk.new_lines,
                ],
            ));
            let (removed, added) = hunk.changed_lines();
            let touched = removed
                .iter()
                .filter_map(|&line| innermost(&base_nodes, line))
                .chain(
                    added
                        .iter()
                        .filter_map(|&line| innermost(&candidate_nodes, line)),
                );
            for node in touched {
                seed(node, index);
            }
        }
    }
    let graph_has = |tree, id: &NodeId| crate::callgraph::call_graph(db, tree).node(id).is_some();
    let mut changes: Vec<(usize, Change)> = seeds
        .into_iter()
        .map(|(id, (first, kind, operations))| {
            let change = match (graph_has(base, &id), graph_has(candidate, &id)) {
                (true, false) => ChangeKind::Removed,
                (false, true) => ChangeKind::Added,
                _ => ChangeKind::Modified,
            };
            (
                first,
                Change {
                    id,
                    kind,
                    change,
                    operation_indices: operations.into_iter().collect(),
                },
            )
        })
        .collect();
    changes.sort_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.id.cmp(&y.id)));
    (
        operations,
        changes.into_iter().map(|(_, change)| change).collect(),
    )
}

/// The complete closure of `changes` over the base's and the candidate's edges together,
/// and the count of unresolved sites (in either) whose callee's last name is that of a
/// closure node.
pub fn closure_over(
    db: &dyn keel_engine::Db,
    base: crate::callgraph::Sources,
    candidate: crate::callgraph::Sources,
    changes: &[Change],
) -> (Vec<Affected>, u64) {
    use crate::callgraph::{call_graph, callers};
    let (base_callers, candidate_callers) = (callers(db, base), callers(db, candidate));
    let (base_graph, candidate_graph) = (call_graph(db, base), call_graph(db, candidate));
    let affected = closure(
        changes,
        |id| {
            let mut all: Vec<NodeId> = base_callers
                .get(id)
                .into_iter()
                .chain(candidate_callers.get(id))
                .flatten()
                .cloned()
                .collect();
            all.sort();
            all.dedup();
            all
        },
        |id| {
            candidate_graph
                .node(id)
                .or_else(|| base_graph.node(id))
                .map_or(NodeKind::Function, |node| node.kind)
        },
    );
    let names: BTreeSet<&str> = affected.iter().map(|node| node.id.last_name()).collect();
    let sites: BTreeSet<&crate::callgraph::UnresolvedSite> = base_graph
        .unresolved
        .iter()
        .chain(&candidate_graph.unresolved)
        .filter(|site| names.contains(site.last_name()))
        .collect();
    (affected, u64::try_from(sites.len()).unwrap_or(u64::MAX))
}

/// The base's graph files with the patch applied in memory: each patched file's bytes
/// hashed into the object store's memory (never written), deleted and renamed-away paths
/// removed. Files the graph does not read are not applied; one it reads that the patch
/// gives as binary is refused ([`patch::PatchError::BinarySource`]): its lines, and so
/// its callables, are unknown.
pub fn candidate_files(
    db: &dyn keel_engine::Db,
    source_name: &str,
    base: &[(String, keel_engine::Oid)],
    files: &[patch::FilePatch],
) -> Result<Vec<(String, keel_engine::Oid)>, patch::PatchError> {
    use crate::callgraph::is_graph_input;
    let mut out: Vec<(String, keel_engine::Oid)> = base.to_vec();
    for file in files {
        let Some(graph_path) = [&file.new_path, &file.old_path]
            .into_iter()
            .flatten()
            .find(|path| is_graph_input(path))
        else {
            continue;
        };
        if let Some(line) = file.binary {
            return Err(patch::PatchError::BinarySource {
                source_name: source_name.to_owned(),
                line,
                path: graph_path.clone(),
            });
        }
        let in_base = |path: &String| base.iter().find(|(known, _)| known == path);
        if file.copied_from.is_some()
            && let Some(path) = file
                .new_path
                .as_ref()
                .filter(|path| in_base(path).is_some())
        {
            return Err(patch::PatchError::FileMismatch {
                source_name: source_name.to_owned(),
                line: file.header_line,
                path: path.clone(),
                reason: "already exists".to_owned(),
            });
        }
        // A copy's hunks apply to the file copied, which stays.
        let old = file
            .old_path
            .as_ref()
            .or(file.copied_from.as_ref())
            .and_then(in_base)
            .map(|(_, oid)| db.objects().blob(*oid))
            .transpose()
            .map_err(|err| patch::PatchError::Unreadable {
                source_name: source_name.to_owned(),
                reason: err.to_string(),
            })?;
        let new = patch::apply(source_name, file, old.as_deref())?;
        if let Some(path) = &file.old_path {
            out.retain(|(known, _)| known != path);
        }
        if let (Some(path), Some(bytes)) = (&file.new_path, new) {
            out.retain(|(known, _)| known != path);
            out.push((path.clone(), db.objects().insert_blob(&bytes)));
        }
    }
    out.sort();
    Ok(out)
}

/// Everything a report states before selection.
#[derive(Debug, Clone)]
pub struct Facts {
    pub base_revision: String,
    pub candidate_revision: String,
    pub digest: String,
    pub operations: Vec<Operation>,
    pub changes: Vec<Change>,
    /// Call sites keel could not resolve whose callee's last name is that of a node in
    /// the complete closure.
    pub unresolved: u64,
    /// The complete closure ([`closure`]).
    pub closure: Vec<Affected>,
}

impl Facts {
    /// The facts of the patch `bytes` (read as `files`) over the source trees `base` and
    /// `candidate` (the base with the patch applied, whose files `candidate_files` lists):
    /// what `keel impact` and `keel lsp`'s `keel.impact` both report.
    pub fn of(
        db: &dyn keel_engine::Db,
        (base, candidate): (crate::callgraph::Sources, crate::callgraph::Sources),
        (bytes, files): (&[u8], &[patch::FilePatch]),
        base_revision: String,
        candidate_files: &[(String, keel_engine::Oid)],
    ) -> Self {
        let (operations, changes) = operations_and_changes(db, base, candidate, files);
        let (closure, unresolved) = closure_over(db, base, candidate, &changes);
        Self {
            base_revision,
            candidate_revision: worktree_revision(candidate_files),
            digest: patch_digest(bytes),
            operations,
            changes,
            unresolved,
            closure,
        }
    }
}

/// The revision of files no commit names: `worktree:` and their [`tree_digest`].
pub fn worktree_revision(files: &[(String, keel_engine::Oid)]) -> String {
    let listed: Vec<(String, String)> = files
        .iter()
        .map(|(path, oid)| (path.clone(), oid.to_string()))
        .collect();
    format!("worktree:{}", tree_digest(&listed))
}

/// Why a node was left out, in the closed order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    Depth,
    MaxNodes,
    MaxBytes,
}

impl Reason {
    fn label(self) -> &'static str {
        match self {
            Self::Depth => "depth",
            Self::MaxNodes => "max_nodes",
            Self::MaxBytes => "max_bytes",
        }
    }
}

/// The report: the largest prefix of the closure that fits every limit (tried from the
/// top: byte size is not monotone in the prefix length), or KEEL-G109 when even the
/// mandatory envelope with its first frontier does not fit. Each prefix's length is
/// computed from precomputed part lengths, so trying every prefix is linear.
pub fn render(facts: &Facts, limits: Limits) -> Result<String, OptionError> {
    let selection = Selection::new(facts, limits);
    for emitted in (0..=selection.most).rev() {
        let Some(used) = selection.self_stating_length(emitted) else {
            continue;
        };
        if used > limits.max_bytes {
            continue;
        }
        let text = selection.document(emitted, used).to_text();
        if u64::try_from(text.len()).ok() == Some(used) {
            return Ok(text);
        }
    }
    Err(OptionError::Envelope(format!(
        "the report's mandatory part (operations, changes, the first frontier) does not fit --max-bytes {}; repair: raise --max-bytes",
        limits.max_bytes
    )))
}

/// The closure with each node's reasons for being left out, the limits, and the lengths
/// of the document's parts.
struct Selection<'f> {
    facts: &'f Facts,
    limits: Limits,
    /// The most nodes depth and max-nodes allow.
    most: usize,
    /// Per closure node, the reasons it would be omitted at all (depth, max_nodes) — and
    /// max_bytes when it is within `most`.
    reasons: Vec<Vec<Reason>>,
    /// Per closure node, the reasons of it and every node after it.
    reasons_from: Vec<BTreeSet<Reason>>,
    /// Per closure node, the end of the run of nodes at its depth.
    depth_end: Vec<usize>,
    /// Prefix sums of the serialized lengths of affected entries and frontier entries.
    affected_sums: Vec<usize>,
    frontier_sums: Vec<usize>,
    /// The document's length without its budget, truncation, frontier and affected
    /// entries (their empty forms included).
    fixed: usize,
}

impl<'f> Selection<'f> {
    fn new(facts: &'f Facts, limits: Limits) -> Self {
        let closure = &facts.closure;
        let within_depth = closure
            .iter()
            .take_while(|node| node.depth <= limits.depth)
            .count();
        let max_nodes = usize::try_from(limits.max_nodes).unwrap_or(usize::MAX);
        let most = within_depth.min(max_nodes);
        let reasons: Vec<Vec<Reason>> = closure
            .iter()
            .enumerate()
            .map(|(index, node)| {
                let mut reasons = Vec::new();
                if node.depth > limits.depth {
                    reasons.push(Reason::Depth);
                }
                if index >= max_nodes {
                    reasons.push(Reason::MaxNodes);
                }
                if index < most {
                    reasons.push(Reason::MaxBytes);
                }
                reasons
            })
            .collect();
        let mut reasons_from = vec![BTreeSet::new(); closure.len() + 1];
        let mut depth_end = vec![closure.len(); closure.len()];
        for index in (0..closure.len()).rev() {
            let mut union = reasons_from[index + 1].clone();
            union.extend(reasons[index].iter().copied());
            reasons_from[index] = union;
            if closure
                .get(index + 1)
                .is_some_and(|next| next.depth == closure[index].depth)
            {
                depth_end[index] = depth_end[index + 1];
            } else {
                depth_end[index] = index + 1;
            }
        }
        let mut selection = Self {
            facts,
            limits,
            most,
            reasons,
            reasons_from,
            depth_end,
            affected_sums: Vec::new(),
            frontier_sums: Vec::new(),
            fixed: 0,
        };
        selection.affected_sums = prefix_sums(closure.iter().map(|node| affected_json(node).len()));
        selection.frontier_sums =
            prefix_sums((0..closure.len()).map(|i| selection.frontier_entry(i).len()));
        let empty = selection.document_with(0, 0, &[], 0);
        selection.fixed =
            empty.len() - selection.budget(0, 0).len() - selection.truncation(0, 0).len();
        selection
    }

    /// The nodes of the frontier when `emitted` nodes are emitted: those at the first
    /// omitted depth.
    fn frontier(&self, emitted: usize) -> std::ops::Range<usize> {
        match self.depth_end.get(emitted) {
            Some(&end) => emitted..end,
            None => emitted..emitted,
        }
    }

    /// The length of the document emitting `emitted` nodes and stating `used` bytes.
    fn length(&self, emitted: usize, used: u64) -> usize {
        let frontier = self.frontier(emitted);
        let array = |sums: &[usize], range: std::ops::Range<usize>| {
            sums[range.end] - sums[range.start] + range.len().saturating_sub(1)
        };
        self.fixed
            + self.budget(emitted, used).len()
            + self.truncation(emitted, frontier.len()).len()
            + array(&self.frontier_sums, frontier)
            + array(&self.affected_sums, 0..emitted)
    }

    /// The `used_bytes` that states the document's own length, if there is one.
    fn self_stating_length(&self, emitted: usize) -> Option<u64> {
        let mut used = 0;
        // Each round can only add digits, so this settles within a few rounds.
        for _ in 0..8 {
            let length = u64::try_from(self.length(emitted, used)).ok()?;
            if length == used {
                return Some(used);
            }
            used = length;
        }
        None
    }

    fn budget(&self, emitted: usize, used: u64) -> Json {
        let closure = &self.facts.closure;
        Json::Object(vec![
            ("used_bytes", Json::Number(used)),
            ("used_nodes", count(emitted)),
            (
                "max_depth_used",
                Json::Number(emitted.checked_sub(1).map_or(0, |last| closure[last].depth)),
            ),
        ])
    }

    fn truncation(&self, emitted: usize, frontier: usize) -> Json {
        let closure = &self.facts.closure;
        let reasons = self.reasons_from.get(emitted).into_iter().flatten();
        Json::Object(vec![
            ("truncated", Json::Bool(emitted < closure.len())),
            ("reasons", labels(reasons.copied())),
            ("omitted_known_nodes", count(closure.len() - emitted)),
            (
                "deferred_known_nodes",
                count(closure.len() - emitted - frontier),
            ),
        ])
    }

    fn frontier_entry(&self, index: usize) -> Json {
        let node = &self.facts.closure[index];
        Json::Object(vec![
            ("id", Json::string(node.id.as_str())),
            ("kind", Json::string(node.kind.label())),
            ("depth", Json::Number(node.depth)),
            ("reasons", labels(self.reasons[index].iter().copied())),
            ("operation_indices", indices(&node.operation_indices)),
        ])
    }

    /// The document emitting the first `emitted` closure nodes, stating `used` bytes.
    fn document(&self, emitted: usize, used: u64) -> Json {
        let frontier: Vec<Json> = self
            .frontier(emitted)
            .map(|i| self.frontier_entry(i))
            .collect();
        self.document_with(emitted, used, &frontier, emitted)
    }

    /// The document with these frontier entries and the first `affected` closure nodes
    /// (budget and truncation as `emitted` nodes emitted).
    fn document_with(&self, emitted: usize, used: u64, frontier: &[Json], affected: usize) -> Json {
        let facts = self.facts;
        Json::Object(vec![
            ("schema", Json::string(SCHEMA)),
            (
                "source_graph_schema",
                Json::string(crate::callgraph::CALLGRAPH_SCHEMA),
            ),
            ("base_revision", Json::string(facts.base_revision.as_str())),
            (
                "candidate_revision",
                Json::string(facts.candidate_revision.as_str()),
            ),
            (
                "patch",
                Json::Object(vec![
                    ("schema", Json::string("unified-diff")),
                    ("digest", Json::string(facts.digest.as_str())),
                ]),
            ),
            (
                "operations",
                Json::Array(facts.operations.iter().map(operation_json).collect()),
            ),
            (
                "changes",
                Json::Array(facts.changes.iter().map(change_json).collect()),
            ),
            (
                "unresolved",
                Json::Object(vec![("count", Json::Number(facts.unresolved))]),
            ),
            (
                "query",
                Json::Object(vec![
                    ("direction", Json::string("reverse")),
                    ("depth", Json::Number(self.limits.depth)),
                    ("max_bytes", Json::Number(self.limits.max_bytes)),
                    ("max_nodes", Json::Number(self.limits.max_nodes)),
                ]),
            ),
            ("budget", self.budget(emitted, used)),
            ("truncation", self.truncation(emitted, frontier.len())),
            ("frontier", Json::Array(frontier.to_vec())),
            (
                "affected_functions",
                Json::Array(
                    facts.closure[..affected]
                        .iter()
                        .map(affected_json)
                        .collect(),
                ),
            ),
        ])
    }
}

/// `0, a, a+b, …`: the sums of every prefix.
fn prefix_sums(lengths: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut sums = vec![0];
    for length in lengths {
        sums.push(sums[sums.len() - 1] + length);
    }
    sums
}

fn count(n: usize) -> Json {
    Json::number(u64::try_from(n).unwrap_or(u64::MAX))
}

fn indices(list: &[usize]) -> Json {
    Json::Array(list.iter().map(|&i| count(i)).collect())
}

fn labels(reasons: impl Iterator<Item = Reason>) -> Json {
    Json::Array(reasons.map(|r| Json::string(r.label())).collect())
}

fn change_json(change: &Change) -> Json {
    Json::Object(vec![
        ("id", Json::string(change.id.as_str())),
        ("kind", Json::string(change.kind.label())),
        ("change", Json::string(change.change.label())),
        ("operation_indices", indices(&change.operation_indices)),
    ])
}

fn operation_json(operation: &Operation) -> Json {
    Json::Object(vec![
        (
            "index",
            Json::number(u64::try_from(operation.index).unwrap_or(u64::MAX)),
        ),
        ("kind", Json::string(operation.kind.label())),
        ("path", Json::string(operation.path.as_str())),
        (
            "old_path",
            operation
                .old_path
                .as_deref()
                .map_or(Json::Null, Json::string),
        ),
        ("old_start", Json::number(operation.old_start)),
        ("old_lines", Json::number(operation.old_lines)),
        ("new_start", Json::number(operation.new_start)),
        ("new_lines", Json::number(operation.new_lines)),
    ])
}

fn affected_json(node: &Affected) -> Json {
    Json::Object(vec![
        ("id", Json::string(node.id.as_str())),
        ("kind", Json::string(node.kind.label())),
        ("depth", Json::Number(node.depth)),
        (
            "operation_indices",
            Json::Array(
                node.operation_indices
                    .iter()
                    .map(|&i| Json::number(u64::try_from(i).unwrap_or(u64::MAX)))
                    .collect(),
            ),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> NodeId {
        NodeId::new("m.py", name)
    }

    /// `a ← b ← d`, `a ← c ← d` (a diamond), `d ← e ← d` (a cycle), `c ← f`: callers of
    /// each callee.
    fn callers(node: &NodeId) -> Vec<NodeId> {
        let names: &[&str] = match node.qualified() {
            "a" => &["b", "c"],
            "b" | "c" => &["d"],
            "d" => &["e"],
            "e" => &["d", "f"],
            _ => &[],
        };
        let mut out: Vec<NodeId> = names.iter().map(|n| id(n)).collect();
        if node.qualified() == "c" {
            out.push(id("f"));
        }
        out
    }

    fn seeds() -> Vec<Change> {
        vec![
            Change {
                id: id("a"),
                kind: NodeKind::Function,
                change: ChangeKind::Modified,
                operation_indices: vec![0],
            },
            Change {
                id: id("c"),
                kind: NodeKind::Function,
                change: ChangeKind::Modified,
                operation_indices: vec![1],
            },
        ]
    }

    fn complete() -> Vec<Affected> {
        closure(&seeds(), callers, |_| NodeKind::Function)
    }

    #[test]
    fn cycles_and_diamonds_are_walked_once_with_minimum_depth_provenance() {
        let got: Vec<(String, u64, Vec<usize>)> = complete()
            .into_iter()
            .map(|n| (n.id.qualified().to_owned(), n.depth, n.operation_indices))
            .collect();
        let expected = [
            ("a", 0, vec![0]),
            ("c", 0, vec![1]),
            // b is reached from a only; d from c (depth 1) — and from b, but at depth 2.
            ("b", 1, vec![0]),
            ("d", 1, vec![1]),
            ("f", 1, vec![1]),
            ("e", 2, vec![1]),
        ];
        let expected: Vec<(String, u64, Vec<usize>)> = expected
            .into_iter()
            .map(|(n, d, p)| (n.to_owned(), d, p))
            .collect();
        assert_eq!(got, expected);
    }

    fn facts() -> Facts {
        Facts {
            base_revision: "git:0000".to_owned(),
            candidate_revision: "worktree:ffff".to_owned(),
            digest: patch_digest(b""),
            operations: Vec::new(),
            changes: seeds(),
            unresolved: 0,
            closure: complete(),
        }
    }

    fn report(limits: Limits) -> serde_json::Value {
        let text = render(&facts(), limits).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(value["budget"]["used_bytes"], text.len(), "{text}");
        value
    }

    fn ids(value: &serde_json::Value, key: &str) -> Vec<String> {
        value[key]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|item| item["id"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn depth_and_node_limits_cut_with_a_frontier_and_deferred_counts() {
        let limits = |depth, max_nodes| Limits {
            depth,
            max_bytes: 16 * 1024 * 1024,
            max_nodes,
        };
        let all = report(limits(1024, 65_536));
        assert_eq!(ids(&all, "affected_functions").len(), 6);
        assert_eq!(all["truncation"]["truncated"], false);
        let depth0 = report(limits(0, 65_536));
        assert_eq!(ids(&depth0, "affected_functions"), ["m.py#a", "m.py#c"]);
        assert_eq!(ids(&depth0, "frontier"), ["m.py#b", "m.py#d", "m.py#f"]);
        assert_eq!(
            depth0["truncation"]["reasons"],
            serde_json::json!(["depth"])
        );
        assert_eq!(depth0["truncation"]["omitted_known_nodes"], 4);
        assert_eq!(depth0["truncation"]["deferred_known_nodes"], 1);
        assert_eq!(depth0["budget"]["max_depth_used"], 0);
        let three = report(limits(1, 3));
        assert_eq!(
            ids(&three, "affected_functions"),
            ["m.py#a", "m.py#c", "m.py#b"]
        );
        assert_eq!(ids(&three, "frontier"), ["m.py#d", "m.py#f"]);
        assert_eq!(
            three["truncation"]["reasons"],
            serde_json::json!(["depth", "max_nodes"])
        );
        assert_eq!(three["budget"]["used_nodes"], 3);
        assert_eq!(three["budget"]["max_depth_used"], 1);
    }

    #[test]
    fn max_bytes_of_exactly_the_full_report_fits_and_one_byte_less_cuts() {
        let open = Limits {
            depth: 1024,
            max_bytes: 16 * 1024 * 1024,
            max_nodes: 65_536,
        };
        let full = render(&facts(), open).unwrap_or_default();
        let exact = Limits {
            max_bytes: full.len() as u64,
            ..open
        };
        // The stated limit is part of the document: with a limit of the same width the
        // report is the same length.
        let fitted = render(&facts(), exact).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&fitted).unwrap_or_default();
        assert!(fitted.len() as u64 <= exact.max_bytes);
        assert_eq!(value["truncation"]["truncated"], false, "{fitted}");
        let less = Limits {
            max_bytes: fitted.len() as u64 - 1,
            ..open
        };
        let cut = render(&facts(), less).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&cut).unwrap_or_default();
        assert!(cut.len() as u64 <= less.max_bytes);
        assert_eq!(value["truncation"]["truncated"], true, "{cut}");
        assert_eq!(
            value["truncation"]["reasons"],
            serde_json::json!(["max_bytes"])
        );
        assert_eq!(value["budget"]["used_bytes"], cut.len());
    }

    #[test]
    fn every_prefix_length_is_computed_exactly() {
        for limits in [
            Limits::default(),
            Limits {
                depth: 1024,
                max_bytes: 16 * 1024 * 1024,
                max_nodes: 2,
            },
            Limits {
                depth: 0,
                max_bytes: 2048,
                max_nodes: 65_536,
            },
        ] {
            let facts = facts();
            let selection = Selection::new(&facts, limits);
            for emitted in 0..=facts.closure.len() {
                for used in [0, 9, 10, 999, 1000, 123_456] {
                    assert_eq!(
                        selection.length(emitted, used),
                        selection.document(emitted, used).len(),
                        "{limits:?} emitted {emitted} used {used}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_envelope_that_cannot_fit_is_g109_and_no_report() {
        let mut facts = facts();
        facts.operations = (0..200)
            .map(|index| Operation {
                index,
                kind: patch::FileKind::Modify,
                path: "m.py".to_owned(),
                old_path: None,
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 1,
            })
            .collect();
        let tight = Limits {
            max_bytes: 1024,
            ..Limits::default()
        };
        let refused = render(&facts, tight).map_err(|e| e.to_string());
        assert!(
            refused
                .as_ref()
                .is_err_and(|m| m.starts_with("KEEL-G109: ")),
            "{refused:?}"
        );
    }

    /// `a.py` defines `f`; `c.py` imports it and calls it from `g`.
    const A_PY: &str = "def f():\n    return 1\n";
    const C_PY: &str = "from a import f\n\n\ndef g():\n    return f()\n";

    /// The operations (kind, path, old path, the four numbers), the changes (id, change,
    /// operation indices) and the closure (id, depth) of `patch` on `a.py` and `c.py`.
    #[expect(clippy::type_complexity, reason = "a test's flat view of the report")]
    fn impact_of(
        patch: &str,
    ) -> (
        Vec<(&'static str, String, Option<String>, [u32; 4])>,
        Vec<(String, &'static str, Vec<usize>)>,
        Vec<(String, u64)>,
    ) {
        use crate::callgraph::graph_inputs;
        use keel_engine::settings::DEFAULT_MAX_FILE_BYTES;
        use keel_engine::{Db as _, KeelDatabase};
        let db = KeelDatabase::detached();
        let files = vec![
            ("a.py".to_owned(), db.objects().insert_blob(A_PY.as_bytes())),
            ("c.py".to_owned(), db.objects().insert_blob(C_PY.as_bytes())),
        ];
        let parsed = patch::parse("p.diff", patch.as_bytes()).expect("a patch git writes");
        let after = candidate_files(&db, "p.diff", &files, &parsed).expect("it applies");
        let base = db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
        let candidate = db.sources(graph_inputs(&after), DEFAULT_MAX_FILE_BYTES);
        let (operations, changes) = operations_and_changes(&db, base, candidate, &parsed);
        let (closure, _) = closure_over(&db, base, candidate, &changes);
        (
            operations
                .into_iter()
                .map(|op| {
                    (
                        op.kind.label(),
                        op.path,
                        op.old_path,
                        [op.old_start, op.old_lines, op.new_start, op.new_lines],
                    )
                })
                .collect(),
            changes
                .into_iter()
                .map(|c| {
                    (
                        c.id.as_str().to_owned(),
                        c.change.label(),
                        c.operation_indices,
                    )
                })
                .collect(),
            closure
                .into_iter()
                .map(|n| (n.id.as_str().to_owned(), n.depth))
                .collect(),
        )
    }

    fn owned<T: Clone>(items: &[(&str, T)]) -> Vec<(String, T)> {
        items
            .iter()
            .map(|(id, value)| ((*id).to_owned(), value.clone()))
            .collect()
    }

    #[test]
    fn a_pure_rename_changes_every_callable_of_both_paths_and_reaches_the_old_importers() {
        let rename =
            "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n";
        let (operations, changes, closure) = impact_of(rename);
        assert_eq!(
            operations,
            [("rename", "b.py".to_owned(), Some("a.py".to_owned()), [0; 4])]
        );
        let changes: Vec<(String, &str)> = changes
            .into_iter()
            .map(|(id, change, indices)| {
                assert_eq!(indices, [0], "{id}");
                (id, change)
            })
            .collect();
        assert_eq!(
            changes,
            owned(&[
                ("a.py#<module>", "removed"),
                ("a.py#f", "removed"),
                ("b.py#<module>", "added"),
                ("b.py#f", "added"),
            ])
        );
        // c.py's `from a import f` named a.py#f in the base: its caller is one level up.
        assert!(closure.contains(&("c.py#g".to_owned(), 1)), "{closure:?}");
    }

    #[test]
    fn a_rename_with_edits_is_its_own_operation_before_its_hunks() {
        let rename = "\
diff --git a/a.py b/b.py
similarity index 60%
rename from a.py
rename to b.py
index 1111111..2222222 100644
--- a/a.py
+++ b/b.py
@@ -2 +2 @@ def f():
-    return 1
+    return 2
";
        let (operations, changes, _) = impact_of(rename);
        assert_eq!(
            operations,
            [
                ("rename", "b.py".to_owned(), Some("a.py".to_owned()), [0; 4]),
                (
                    "rename",
                    "b.py".to_owned(),
                    Some("a.py".to_owned()),
                    [2, 1, 2, 1]
                ),
            ]
        );
        // The hunk seeds f on both sides, as before; the rename seeds every callable.
        assert_eq!(
            changes,
            [
                ("a.py#<module>".to_owned(), "removed", vec![0]),
                ("a.py#f".to_owned(), "removed", vec![0, 1]),
                ("b.py#<module>".to_owned(), "added", vec![0]),
                ("b.py#f".to_owned(), "added", vec![0, 1]),
            ]
        );
    }

    #[test]
    fn a_binary_file_the_graph_does_not_read_is_one_operation_and_no_change() {
        let png = "diff --git a/img.png b/img.png\nindex 029ace0..3cbbfb2 100644\nBinary files a/img.png and b/img.png differ\n";
        let (operations, changes, closure) = impact_of(png);
        assert_eq!(operations, [("modify", "img.png".to_owned(), None, [0; 4])]);
        assert!(changes.is_empty() && closure.is_empty());
    }

    #[test]
    fn a_binary_source_file_is_refused_naming_it_and_the_repair() {
        use keel_engine::{Db as _, KeelDatabase};
        let db = KeelDatabase::detached();
        let files = vec![("a.py".to_owned(), db.objects().insert_blob(A_PY.as_bytes()))];
        let binary = "diff --git a/a.py b/a.py\nindex 7d4290a..625d174 100644\nBinary files a/a.py and b/a.py differ\n";
        let parsed = patch::parse("p.diff", binary.as_bytes()).unwrap_or_default();
        let refused = candidate_files(&db, "p.diff", &files, &parsed).map_err(|e| e.to_string());
        assert!(
            refused.as_ref().is_err_and(|m| m
                .starts_with("p.diff:3: the patch gives `a.py` as binary")
                && m.ends_with("repair: write the patch with `git diff --text`")),
            "{refused:?}"
        );
    }

    #[test]
    fn digests_are_known_answers() {
        // Computed independently with Python's hashlib over the same framing.
        assert_eq!(
            patch_digest(b""),
            "b4c2e177b0062c96490c31390fc73aa359c38e9c8a776077f31e34bb26f155b3"
        );
        assert_eq!(
            patch_digest(b"--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a\n+b\n"),
            "7650a6cb78af50e22c7f13146a8f2a499f2eb0eb2b8eed54f4c5dce5e78e2550"
        );
        let files = [
            ("b.py".to_owned(), "2".repeat(40)),
            ("a.py".to_owned(), "1".repeat(40)),
        ];
        assert_eq!(
            tree_digest(&files),
            "625d0e27173d548810e9f4f445d301174f60bbeed90453ce0e4e51a8ce5db673"
        );
    }
}
