//! The drift board: every spec node judged or named by a finding, sorted by id, as a card
//! with its status (the worst of its findings), its findings with their hit commits, and
//! its unverified anchors; and the counts of nodes in each status.
//!
//! Owns: how a node stands (blocked, warning, clean), what the board's text filter
//! matches, and how findings, hits and unverified anchors read.
//! Does not own: the page around it or its filter script (`html`), or the hits drawn over
//! time (`timeline`).

use super::{escape, minute, or_dash, short};
use crate::render::counted;
use keel_queries::lint::Side;
use keel_queries::lint::{Finding, HitRecord, LintReport, Severity, Unverified};
use std::collections::BTreeMap;

/// How many nodes the board shows in each status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatusCounts {
    pub(crate) blocked: usize,
    pub(crate) warning: usize,
    pub(crate) clean: usize,
}

/// How many nodes of `report` the board shows blocked, warning and clean.
pub(crate) fn status_counts(report: &LintReport) -> StatusCounts {
    let statuses: Vec<Status> = nodes(report).iter().map(NodeView::status).collect();
    let count = |wanted: Status| statuses.iter().filter(|&&s| s == wanted).count();
    StatusCounts {
        blocked: count(Status::Blocked),
        warning: count(Status::Warning),
        clean: count(Status::Clean),
    }
}

/// How a node stands: the worst of its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Status {
    Clean,
    Warning,
    Blocked,
}

impl Status {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Clean => "clean",
            Self::Warning => "warning",
            Self::Blocked => "blocked",
        }
    }
}

/// One spec node with what lint says about it.
pub(super) struct NodeView<'a> {
    pub(super) id: &'a str,
    pub(super) findings: Vec<&'a Finding>,
    unverified: Vec<&'a Unverified>,
}

impl NodeView<'_> {
    /// Blocked by an error or an unverified anchor, warning for an advisory finding.
    fn status(&self) -> Status {
        let blocking = self.findings.iter().any(|f| f.severity == Severity::Error);
        if blocking || !self.unverified.is_empty() {
            Status::Blocked
        } else if self.findings.is_empty() {
            Status::Clean
        } else {
            Status::Warning
        }
    }

    /// What the text filter matches: the id and every path, lowercased.
    fn search_text(&self) -> String {
        let paths = self.findings.iter().map(|f| f.path.as_str());
        let unverified = self.unverified.iter().map(|u| u.path.as_str());
        std::iter::once(self.id)
            .chain(paths)
            .chain(unverified)
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    }
}

/// Every node judged or named by a finding, sorted by id, findings in report order.
pub(super) fn nodes(report: &LintReport) -> Vec<NodeView<'_>> {
    let mut by_id: BTreeMap<&str, NodeView<'_>> = BTreeMap::new();
    for id in &report.nodes {
        node_entry(&mut by_id, id);
    }
    for finding in &report.findings {
        node_entry(&mut by_id, &finding.node).findings.push(finding);
    }
    for item in &report.unverified {
        node_entry(&mut by_id, &item.node).unverified.push(item);
    }
    by_id.into_values().collect()
}

fn node_entry<'m, 'a>(
    by_id: &'m mut BTreeMap<&'a str, NodeView<'a>>,
    id: &'a str,
) -> &'m mut NodeView<'a> {
    by_id.entry(id).or_insert_with(|| NodeView {
        id,
        findings: Vec::new(),
        unverified: Vec::new(),
    })
}

pub(super) fn drift_board(nodes: &[NodeView<'_>], times: &BTreeMap<String, i64>) -> String {
    let cards: String = nodes.iter().map(|node| node_card(node, times)).collect();
    let empty = if nodes.is_empty() {
        "<p class=\"none\">No spec node at the tip (add one as <code>.spec/&lt;node-id&gt;/spec.md</code>).</p>\n"
    } else {
        ""
    };
    format!(
        "<section id=\"drift\">\n<h2>Drift board</h2>\n<div class=\"controls\">\
         <input id=\"filter\" type=\"search\" placeholder=\"Filter by node id or path\" aria-label=\"Filter by node id or path\">\
         <select id=\"status\" aria-label=\"Status\"><option value=\"\">every status</option>\
         <option value=\"blocked\">blocked</option><option value=\"warning\">warning</option>\
         <option value=\"clean\">clean</option></select>\
         <span id=\"shown\" aria-live=\"polite\">{}</span></div>\n\
         {empty}<div id=\"nodes\">\n{cards}</div>\n\
         <p id=\"none-shown\" class=\"none\" hidden>No node matches the filter.</p>\n</section>\n",
        counted(nodes.len(), "node"),
    )
}

fn node_card(node: &NodeView<'_>, times: &BTreeMap<String, i64>) -> String {
    let status = node.status();
    let findings: String = node
        .findings
        .iter()
        .map(|f| finding_block(f, times))
        .collect();
    let unverified: String = node
        .unverified
        .iter()
        .map(|u| unverified_block(u))
        .collect();
    let clean = if status == Status::Clean {
        "<p class=\"none\">No finding: no window commit changed what the node pins.</p>\n"
    } else {
        ""
    };
    format!(
        "<article class=\"node\" data-status=\"{s}\" data-search=\"{}\">\n\
         <h3><span class=\"badge {s}\">{s}</span> <span class=\"node-id\">{}</span></h3>\n\
         {clean}{findings}{unverified}</article>\n",
        escape(&node.search_text()),
        escape(node.id),
        s = status.name(),
    )
}

/// `path` or `path#sel1,sel2`.
fn target(path: &str, selectors: &[String]) -> String {
    if selectors.is_empty() {
        path.to_owned()
    } else {
        format!("{path}#{}", selectors.join(","))
    }
}

pub(super) fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// How many hits an advisory finding shows before its list is folded.
const HITS_SHOWN_OPEN: usize = 5;

fn finding_block(finding: &Finding, times: &BTreeMap<String, i64>) -> String {
    let hits = if finding.hits.is_empty() {
        String::new()
    } else {
        let open = finding.severity == Severity::Error || finding.hits.len() <= HITS_SHOWN_OPEN;
        let rows: String = finding.hits.iter().map(|h| hit_row(h, times)).collect();
        format!(
            "<details{}><summary>{}</summary>\n<table class=\"hits\"><thead><tr><th>commit</th>\
             <th>date</th><th>subject</th><th>selectors</th><th>side</th></tr></thead>\n\
             <tbody>\n{rows}</tbody></table>\n</details>\n",
            if open { " open" } else { "" },
            counted(finding.hits.len(), "commit"),
        )
    };
    format!(
        "<div class=\"finding {sev}\">\n<p class=\"finding-head\"><span class=\"code\">{sev}[{}]</span> \
         <code>{}</code></p>\n<p class=\"message\">{}</p>\n<p class=\"repair\">repair: {}</p>\n{hits}</div>\n",
        escape(finding.code),
        escape(&target(&finding.path, &finding.selectors)),
        escape(&finding.message),
        escape(&finding.repair),
        sev = severity_name(finding.severity),
    )
}

fn side_text(hit: &HitRecord) -> String {
    let side = match hit.side {
        Some(Side::Added) => "added",
        Some(Side::Deleted) => "deleted",
        Some(Side::Both) => "added and deleted",
        None => "",
    };
    match (side, hit.conservative) {
        ("", true) => "conservative".to_owned(),
        (side, true) => format!("{side}, conservative"),
        (side, false) => side.to_owned(),
    }
}

fn hit_row(hit: &HitRecord, times: &BTreeMap<String, i64>) -> String {
    let date = times
        .get(&*hit.commit)
        .map_or_else(|| "unknown".to_owned(), |&t| minute(t));
    let then = hit
        .path
        .as_ref()
        .map(|path| format!(" <span class=\"muted\">(as {})</span>", escape(path)))
        .unwrap_or_default();
    format!(
        "<tr><td><code title=\"{}\">{}</code></td><td class=\"date\">{}</td><td>{}{then}</td>\
         <td>{}</td><td>{}</td></tr>\n",
        escape(&hit.commit),
        escape(short(&hit.commit)),
        escape(&date),
        escape(&hit.subject),
        escape(&or_dash(hit.selectors.join(", "))),
        escape(&or_dash(side_text(hit))),
    )
}

fn unverified_block(item: &Unverified) -> String {
    format!(
        "<div class=\"finding error\">\n<p class=\"finding-head\"><span class=\"code\">unverified</span> \
         <code>{}</code></p>\n<p class=\"message\">{}</p>\n</div>\n",
        escape(&target(&item.path, &item.selectors)),
        escape(&item.reason),
    )
}
