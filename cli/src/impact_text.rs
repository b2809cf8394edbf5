//! `keel impact --format text`: the impact report for people, readable in 80 columns.
//!
//! Owns: the wording and layout of the text report — the changed callables with their
//! lines, the callers by depth with the lines they make their calls on, every unresolved
//! call site the JSON counts (listed, not only counted), and what the bounds left out with
//! the option that shows it.
//! Does not own: what the report selects. The text is read back from the JSON document
//! `keel_queries::impact::render` wrote, so both formats show one selection; the graphs
//! (`keel_queries::callgraph`) only give the lines.

use crate::render::counted;
use keel_queries::callgraph::{CallGraph, CallNode, NodeId, UnresolvedSite};
use keel_queries::impact::Affected;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The width the text is laid out for.
const WIDTH: usize = 80;

/// The longest callee text shown for an unresolved site (longer ones are cut with `…`).
const CALLEE_TEXT_MAX: usize = 60;

/// The base's and the candidate's call graphs (the candidate: the base with the patch
/// applied), where the lines come from.
#[derive(Clone, Copy)]
pub(crate) struct Graphs<'g> {
    pub(crate) base: &'g CallGraph,
    pub(crate) candidate: &'g CallGraph,
}

/// The text of the report `json` (as `render` wrote it) over `graphs`; `closure` is the
/// complete closure, whose names decide which unresolved sites the JSON counted.
pub(crate) fn impact_text(json: &str, graphs: Graphs<'_>, closure: &[Affected]) -> String {
    // Invariant: `json` is the document `keel_queries::impact::render` just wrote, which
    // always holds these members with these types (the CLI tests read both formats).
    let report: Report = serde_json::from_str(json).expect("keel's own impact report");
    let sites = unresolved_sites(graphs, closure);
    // Every part is written into this String with `writeln!`, which cannot fail.
    let mut out = String::new();
    header(&mut out, &report);
    changed(&mut out, &report, graphs);
    callers(&mut out, &report, graphs);
    unresolved(&mut out, &sites);
    left_out(&mut out, &report, graphs);
    out
}

/// The parts of the JSON report the text shows.
#[derive(Deserialize)]
struct Report {
    base_revision: String,
    operations: Vec<Operation>,
    changes: Vec<Change>,
    unresolved: Count,
    query: Query,
    truncation: Truncation,
    frontier: Vec<Node>,
    affected_functions: Vec<Node>,
}

#[derive(Deserialize)]
struct Operation {
    kind: String,
    path: String,
    old_path: Option<String>,
    old_start: u32,
    old_lines: u32,
    new_start: u32,
    new_lines: u32,
}

impl Operation {
    /// A file patch as a whole (a rename, or a file git wrote no lines for): all four
    /// numbers 0, which no hunk has.
    fn whole_file(&self) -> bool {
        [
            self.old_start,
            self.old_lines,
            self.new_start,
            self.new_lines,
        ] == [0; 4]
    }

    /// What a whole-file operation does, as a sentence.
    fn sentence(&self) -> String {
        let path = &self.path;
        match (self.kind.as_str(), &self.old_path) {
            ("rename", Some(old)) => format!(
                "It renames {old} to {path}: each callable of {old} is removed, each of {path} added."
            ),
            ("add", _) => format!("It adds {path} without lines (empty, or binary)."),
            ("delete", _) => format!("It deletes {path} without lines (empty, or binary)."),
            _ => format!("It changes {path} without lines (binary, or its mode only)."),
        }
    }
}

#[derive(Deserialize)]
struct Change {
    id: String,
    kind: String,
    change: String,
}

#[derive(Deserialize)]
struct Count {
    count: u64,
}

#[derive(Deserialize)]
struct Query {
    depth: u64,
    max_bytes: u64,
    max_nodes: u64,
}

#[derive(Deserialize)]
struct Truncation {
    truncated: bool,
    reasons: Vec<String>,
    omitted_known_nodes: u64,
    deferred_known_nodes: u64,
}

#[derive(Deserialize)]
struct Node {
    id: String,
    kind: String,
    depth: u64,
}

/// Which file image a line number is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Image {
    /// The files with the patch applied (the candidate).
    Patched,
    /// The files before the patch (the base): what the patch removed.
    Base,
}

impl Image {
    /// What a line number read in this image needs said about it.
    fn note(self) -> &'static str {
        match self {
            Self::Patched => "",
            Self::Base => " before the patch",
        }
    }
}

/// A callable's lines and the image they are read in.
struct Place {
    start: u32,
    end: u32,
    image: Image,
}

impl<'g> Graphs<'g> {
    /// `id`'s lines: in the patched files, or before the patch when it only exists there
    /// (or `removed`, which prefers the base).
    fn place(self, id: &NodeId, removed: bool) -> Option<Place> {
        let patched = || self.candidate.node(id).map(|n| place(n, Image::Patched));
        let base = || self.base.node(id).map(|n| place(n, Image::Base));
        if removed {
            base().or_else(patched)
        } else {
            patched().or_else(base)
        }
    }

    /// The lines `caller` calls `callee` on: in the patched files, or before the patch
    /// when only the base has the call.
    fn call_lines(self, caller: &NodeId, callee: &NodeId) -> Option<(&'g [u32], Image)> {
        let find = |graph: &'g CallGraph| {
            graph
                .edges
                .binary_search_by(|edge| (&edge.caller, &edge.callee).cmp(&(caller, callee)))
                .ok()
                .map(|at| graph.edges[at].sites.as_slice())
        };
        find(self.candidate)
            .map(|lines| (lines, Image::Patched))
            .or_else(|| find(self.base).map(|lines| (lines, Image::Base)))
    }
}

fn place(node: &CallNode, image: Image) -> Place {
    Place {
        start: node.start_line,
        end: node.end_line,
        image,
    }
}

/// The unresolved sites the JSON counts — in either graph, whose callee's last name is the
/// name of a node of the complete closure — each once, in file and line order.
fn unresolved_sites<'g>(
    graphs: Graphs<'g>,
    closure: &[Affected],
) -> Vec<(&'g UnresolvedSite, Image)> {
    let names: BTreeSet<&str> = closure.iter().map(|node| node.id.last_name()).collect();
    let mut sites: BTreeMap<&UnresolvedSite, Image> = BTreeMap::new();
    for (graph, image) in [
        (graphs.base, Image::Base),
        (graphs.candidate, Image::Patched),
    ] {
        for site in &graph.unresolved {
            if names.contains(site.last_name()) {
                sites.insert(site, image);
            }
        }
    }
    let mut listed: Vec<(&UnresolvedSite, Image)> = sites.into_iter().collect();
    listed.sort_by(|(a, _), (b, _)| {
        (a.caller.path(), a.line, &a.callee_text, &a.caller).cmp(&(
            b.caller.path(),
            b.line,
            &b.callee_text,
            &b.caller,
        ))
    });
    listed
}

/// What the report holds, what the patch was applied to, and how lines are read.
fn header(out: &mut String, report: &Report) {
    let unresolved = usize::try_from(report.unresolved.count).unwrap_or(usize::MAX);
    let callers = report
        .affected_functions
        .iter()
        .filter(|node| node.depth > 0)
        .count();
    let _ = writeln!(
        out,
        "keel impact: {} changed, {} shown, {}",
        counted(report.changes.len(), "callable"),
        counted(callers, "caller"),
        counted(unresolved, "unresolved call site"),
    );
    let files: BTreeSet<&str> = report
        .operations
        .iter()
        .map(|op| op.path.as_str())
        .collect();
    let base = match report.base_revision.strip_prefix("git:") {
        Some(commit) => format!("commit {}", commit.get(..12).unwrap_or(commit)),
        None => "the working tree".to_owned(),
    };
    let hunks = report
        .operations
        .iter()
        .filter(|op| !op.whole_file())
        .count();
    let _ = writeln!(
        out,
        "The patch ({} in {}) applied in memory to {base}.",
        counted(hunks, "hunk"),
        counted(files.len(), "file"),
    );
    for op in report.operations.iter().filter(|op| op.whole_file()) {
        wrapped(out, &op.sentence());
    }
    let _ = writeln!(
        out,
        "Lines are those of the patched files unless marked before the patch."
    );
}

/// The changed callables (depth 0): lines, name, kind and how the patch changed them.
fn changed(out: &mut String, report: &Report, graphs: Graphs<'_>) {
    let _ = writeln!(out, "\nChanged ({})", report.changes.len());
    if report.changes.is_empty() {
        let _ = writeln!(out, "  no callable: the patch changes no code keel reads");
    }
    for change in &report.changes {
        let id = node_id(&change.id);
        let place = graphs.place(&id, change.change == "removed");
        let detail = format!("{}, {}", kind_text(&change.kind), change.change);
        entry(out, &id, place.as_ref(), &detail);
    }
}

/// The callers the report shows, by depth, each with the lines it calls the callables
/// one level down on.
fn callers(out: &mut String, report: &Report, graphs: Graphs<'_>) {
    let shown = &report.affected_functions;
    let deepest = shown.iter().map(|node| node.depth).max().unwrap_or(0);
    if deepest == 0 {
        let none = if report.truncation.truncated {
            "\nCallers: none shown (see what was left out, below)"
        } else {
            "\nCallers: none known"
        };
        let _ = writeln!(out, "{none}");
        return;
    }
    for depth in 1..=deepest {
        let level: Vec<&Node> = shown.iter().filter(|node| node.depth == depth).collect();
        let _ = writeln!(out, "\nCallers at depth {depth} ({})", level.len());
        let below: Vec<NodeId> = shown
            .iter()
            .filter(|node| node.depth + 1 == depth)
            .map(|node| node_id(&node.id))
            .collect();
        for node in level {
            let id = node_id(&node.id);
            entry(
                out,
                &id,
                graphs.place(&id, false).as_ref(),
                kind_text(&node.kind),
            );
            for callee in &below {
                if let Some((lines, image)) = graphs.call_lines(&id, callee) {
                    calls(out, &id, callee, lines, image);
                }
            }
        }
    }
}

/// One `calls NAME on line N` line under a caller.
fn calls(out: &mut String, caller: &NodeId, callee: &NodeId, lines: &[u32], image: Image) {
    let name = if callee.path() == caller.path() {
        callee.qualified()
    } else {
        callee.as_str()
    };
    let listed: Vec<String> = lines.iter().map(u32::to_string).collect();
    let (verb, noun) = match (image, lines.len()) {
        (Image::Patched, 1) => ("calls", "line"),
        (Image::Patched, _) => ("calls", "lines"),
        (Image::Base, 1) => ("called", "line"),
        (Image::Base, _) => ("called", "lines"),
    };
    let place = format!("on {noun} {}{}", listed.join(", "), image.note());
    let one = format!("      {verb} {name} {place}");
    if one.chars().count() <= WIDTH {
        let _ = writeln!(out, "{one}");
    } else {
        let _ = writeln!(out, "      {verb} {name}\n        {place}");
    }
}

/// Every unresolved call site the JSON counts, listed.
fn unresolved(out: &mut String, sites: &[(&UnresolvedSite, Image)]) {
    if sites.is_empty() {
        let _ = writeln!(
            out,
            "\nUnresolved call sites: none named like a callable of the closure."
        );
        return;
    }
    let _ = writeln!(
        out,
        "\nUnresolved call sites ({}): keel found no target for these calls, and each is\nnamed like a callable of the closure; each may be a caller not listed above.",
        sites.len()
    );
    for (site, image) in sites {
        let location = format!("{}:{}", site.caller.path(), site.line);
        let detail = format!("in {}{}", site.caller.qualified(), image.note());
        fitted(out, &location, &callee_text(&site.callee_text), &detail);
    }
}

/// The callee's text on one line, cut to [`CALLEE_TEXT_MAX`] characters.
fn callee_text(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= CALLEE_TEXT_MAX {
        return flat;
    }
    let cut: String = flat.chars().take(CALLEE_TEXT_MAX - 1).collect();
    format!("{cut}…")
}

/// What the bounds left out — the first omitted depth's callers by name, how many lie
/// deeper — and the option that shows them; or that nothing was.
fn left_out(out: &mut String, report: &Report, graphs: Graphs<'_>) {
    let query = &report.query;
    let limits = format!(
        "--depth {}, --max-nodes {}, --max-bytes {}",
        query.depth, query.max_nodes, query.max_bytes
    );
    let truncation = &report.truncation;
    if !truncation.truncated {
        let _ = writeln!(out, "\nNothing left out (limits: {limits}).");
        return;
    }
    let omitted = usize::try_from(truncation.omitted_known_nodes).unwrap_or(usize::MAX);
    let _ = writeln!(
        out,
        "\nLeft out: {} (limits reached: {}).",
        counted(omitted, "known caller"),
        truncation.reasons.join(", ")
    );
    if let Some(depth) = report.frontier.first().map(|node| node.depth) {
        let _ = writeln!(out, "Next, at depth {depth}:");
    }
    for node in &report.frontier {
        let id = node_id(&node.id);
        entry(
            out,
            &id,
            graphs.place(&id, false).as_ref(),
            kind_text(&node.kind),
        );
    }
    if truncation.deferred_known_nodes > 0 {
        let deferred = usize::try_from(truncation.deferred_known_nodes).unwrap_or(usize::MAX);
        let _ = writeln!(
            out,
            "And {} deeper.",
            counted(deferred, "more known caller")
        );
    }
    let _ = writeln!(out, "To see them: {}.", raise(report));
    let _ = writeln!(out, "Limits: {limits}.");
}

/// The options to raise for what was left out (`reasons` in the JSON's order).
fn raise(report: &Report) -> String {
    let query = &report.query;
    let options: Vec<String> = report
        .truncation
        .reasons
        .iter()
        .map(|reason| match reason.as_str() {
            "depth" => format!("a --depth above {}", query.depth),
            "max_nodes" => format!("a --max-nodes above {}", query.max_nodes),
            _ => format!("a --max-bytes above {}", query.max_bytes),
        })
        .collect();
    format!("run again with {}", options.join(" and "))
}

/// How a callable kind reads.
fn kind_text(kind: &str) -> &str {
    match kind {
        "module" => "top-level code",
        other => other,
    }
}

/// One callable: `path:start-end  name  (detail)`, on two lines when one would pass
/// [`WIDTH`].
fn entry(out: &mut String, id: &NodeId, place: Option<&Place>, detail: &str) {
    let (location, note) = match place {
        Some(place) if place.start == place.end => {
            (format!("{}:{}", id.path(), place.start), place.image.note())
        }
        Some(place) => (
            format!("{}:{}-{}", id.path(), place.start, place.end),
            place.image.note(),
        ),
        None => (id.path().to_owned(), ""),
    };
    let detail = if note.is_empty() {
        detail.to_owned()
    } else {
        format!("{detail}; lines{note}")
    };
    fitted(out, &location, id.qualified(), &detail);
}

/// `  location  name  (detail)` on one line, or the name and detail on a second line
/// when one would pass [`WIDTH`].
fn fitted(out: &mut String, location: &str, name: &str, detail: &str) {
    let one = format!("  {location}  {name}  ({detail})");
    if one.chars().count() <= WIDTH {
        let _ = writeln!(out, "{one}");
    } else {
        let _ = writeln!(out, "  {location}\n    {name}  ({detail})");
    }
}

/// `text` in lines of at most [`WIDTH`] columns, broken between words (a word wider
/// than that keeps its own line), each line after the first indented by two spaces.
fn wrapped(out: &mut String, text: &str) {
    let mut line = String::new();
    for word in text.split(' ') {
        let started = !line.trim_start().is_empty();
        if started && line.chars().count() + 1 + word.chars().count() > WIDTH {
            let _ = writeln!(out, "{line}");
            line = "  ".to_owned();
        } else if started {
            line.push(' ');
        }
        line.push_str(word);
    }
    let _ = writeln!(out, "{line}");
}

/// A report's node id (`path#Qualified.name`) as the graph's [`NodeId`].
fn node_id(id: &str) -> NodeId {
    let (path, qualified) = id.split_once('#').unwrap_or((id, ""));
    NodeId::new(path, qualified)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_too_wide_for_80_columns_takes_two_lines() {
        let mut out = String::new();
        fitted(&mut out, "a.py:1-2", "f", "function, modified");
        assert_eq!(out, "  a.py:1-2  f  (function, modified)\n");
        let long = "pkg/".repeat(16) + "m.py:10-20";
        let mut out = String::new();
        fitted(&mut out, &long, "Store.save_all", "method");
        assert_eq!(out, format!("  {long}\n    Store.save_all  (method)\n"));
    }

    #[test]
    fn a_sentence_wider_than_80_columns_is_broken_between_words() {
        let mut out = String::new();
        wrapped(&mut out, "It renames a.py to b.py.");
        assert_eq!(out, "It renames a.py to b.py.\n");
        let long = "pkg/".repeat(12) + "m.py";
        let mut out = String::new();
        wrapped(
            &mut out,
            &format!("It changes {long} without lines (binary)."),
        );
        assert_eq!(
            out,
            format!("It changes {long} without lines\n  (binary).\n")
        );
        assert!(out.lines().all(|line| line.chars().count() <= WIDTH));
    }

    #[test]
    fn a_callee_text_is_one_line_and_cut_past_its_width() {
        assert_eq!(callee_text("self.store\n    .save"), "self.store .save");
        let long = "a.".repeat(40) + "f";
        let shown = callee_text(&long);
        assert_eq!(shown.chars().count(), CALLEE_TEXT_MAX);
        assert!(shown.ends_with('…') && long.starts_with(shown.trim_end_matches('…')));
    }

    #[test]
    fn a_report_id_reads_back_as_the_graph_s_id() {
        for id in ["a.py#f", "lib.ts#Store.#secret", "b.py#<module>"] {
            assert_eq!(node_id(id).as_str(), id);
        }
        assert_eq!(node_id("lib.ts#Store.#secret").qualified(), "Store.#secret");
    }
}
