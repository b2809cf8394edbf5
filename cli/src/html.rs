//! The HTML report: one self-contained page built from a lint report, the committer
//! dates of its hit commits and, when session flags were given, a sessions report.
//!
//! Owns: the page — its inline styles, its filter script and its inline SVG charts (the
//! drift board, hits over time per node, cost and survival bars per harness and per
//! repository) — escaping every text it inserts, and the wording of numbers (a null is
//! "unknown", never drawn as 0). Pure: data in, `String` out, the same bytes for the same
//! data; the page loads nothing and names no URL. The pieces `replay_html` shares come
//! from here: the head with its policy and styles, escaping, and the time axis.
//! Does not own: any answer (`keel_queries`), reading the database, or writing the file
//! (`commands::page_file`).

use crate::render::counted;
use keel_engine::sessions::Instant;
use keel_queries::anchors::Side;
use keel_queries::lint::{Finding, HitRecord, LintReport, Severity, Unverified};
use keel_queries::sessions::{Group, SessionsReport};
use std::collections::BTreeMap;

/// What the page shows.
pub(crate) struct Page<'a> {
    /// The repository's folder name (never its full path).
    pub(crate) repo: &'a str,
    pub(crate) lint: &'a LintReport,
    /// Committer time (seconds since the epoch) of the hit commits, by full id.
    pub(crate) commit_times: &'a BTreeMap<String, i64>,
    /// `None` when no session flag was given: the section says so.
    pub(crate) sessions: Option<&'a SessionsReport>,
    /// The `--now` clock, shown when it was given.
    pub(crate) now: Option<&'a str>,
}

/// `text` with the five characters HTML gives meaning to replaced by references, safe in
/// element content and in quoted attribute values alike.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The whole page.
pub(crate) fn page(page: &Page<'_>) -> String {
    let nodes = nodes(page.lint);
    [
        head(&format!("keel report: {}", page.repo), ""),
        header(page, &nodes),
        "<main>\n".to_owned(),
        drift_board(&nodes, page.commit_times),
        timeline(&nodes, page.commit_times),
        sessions_section(page.sessions),
        "</main>\n".to_owned(),
        format!("<script>\n{SCRIPT}</script>\n</body>\n</html>\n"),
    ]
    .concat()
}

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
enum Status {
    Clean,
    Warning,
    Blocked,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Self::Clean => "clean",
            Self::Warning => "warning",
            Self::Blocked => "blocked",
        }
    }
}

/// One spec node with what lint says about it.
struct NodeView<'a> {
    id: &'a str,
    findings: Vec<&'a Finding>,
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
fn nodes(report: &LintReport) -> Vec<NodeView<'_>> {
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

/// The page up to `<body>`: the title, a policy that lets the page load nothing, the
/// shared styles and then `style`, a page's own.
pub(crate) fn head(title: &str, style: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <title>{}</title>\n<style>\n{STYLE}{style}</style>\n</head>\n<body>\n",
        escape(title)
    )
}

fn header(page: &Page<'_>, nodes: &[NodeView<'_>]) -> String {
    let report = page.lint;
    let s = &report.summary;
    let verdict = if report.blocks() {
        Status::Blocked
    } else {
        Status::Clean
    };
    let tip = report.tip.as_deref().map_or_else(
        || "no commits yet".to_owned(),
        |tip| {
            format!(
                "tip <code title=\"{}\">{}</code>",
                escape(tip),
                escape(short(tip))
            )
        },
    );
    let now = page
        .now
        .map(|now| format!(" · as of {}", escape(now)))
        .unwrap_or_default();
    format!(
        "<header>\n<h1>keel report <span class=\"repo\">{}</span></h1>\n\
         <p class=\"meta\">{tip} · {} · {} · {} · {} <span class=\"badge {}\">{}</span>{now}</p>\n\
         <nav><a href=\"#drift\">Drift board</a><a href=\"#timeline\">Hits over time</a><a href=\"#sessions\">Sessions</a></nav>\n\
         </header>\n",
        escape(page.repo),
        counted(nodes.len(), "node"),
        counted(s.anchors, "anchor"),
        counted(s.errors, "error"),
        counted(s.warnings, "warning"),
        verdict.name(),
        if report.blocks() { "blocked" } else { "ok" },
    )
}

/// The first 12 characters of a commit id.
pub(crate) fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

fn drift_board(nodes: &[NodeView<'_>], times: &BTreeMap<String, i64>) -> String {
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

fn severity_name(severity: Severity) -> &'static str {
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

/// `text`, or `—` when it is empty (a whole-file change names no selector and no side).
pub(crate) fn or_dash(text: String) -> String {
    if text.is_empty() {
        "—".to_owned()
    } else {
        text
    }
}

fn unverified_block(item: &Unverified) -> String {
    format!(
        "<div class=\"finding error\">\n<p class=\"finding-head\"><span class=\"code\">unverified</span> \
         <code>{}</code></p>\n<p class=\"message\">{}</p>\n</div>\n",
        escape(&target(&item.path, &item.selectors)),
        escape(&item.reason),
    )
}

/// `2026-01-15T10:30:00Z` for seconds since the epoch.
fn rfc3339(secs: i64) -> String {
    Instant::from_secs(secs).to_rfc3339()
}

/// `2026-01-15 10:30` (UTC).
fn minute(secs: i64) -> String {
    let text = rfc3339(secs).replacen('T', " ", 1);
    text.get(..16).unwrap_or(&text).to_owned()
}

/// One dot of the timeline: a commit that hit a node, with the worst severity among the
/// node's findings it appears in.
struct Dot<'a> {
    commit: &'a str,
    subject: &'a str,
    time: i64,
    severity: Severity,
    codes: Vec<&'static str>,
}

/// A node's hit commits with a known date, oldest first, and how many had none.
fn dots<'a>(node: &NodeView<'a>, times: &BTreeMap<String, i64>) -> (Vec<Dot<'a>>, usize) {
    let mut by_commit: BTreeMap<&str, Dot<'a>> = BTreeMap::new();
    let mut undated = 0;
    for finding in &node.findings {
        for hit in &finding.hits {
            let Some(&time) = times.get(&*hit.commit) else {
                undated += 1;
                continue;
            };
            let dot = by_commit.entry(&hit.commit).or_insert_with(|| Dot {
                commit: &hit.commit,
                subject: &hit.subject,
                time,
                severity: Severity::Warning,
                codes: Vec::new(),
            });
            if finding.severity == Severity::Error {
                dot.severity = Severity::Error;
            }
            if !dot.codes.contains(&finding.code) {
                dot.codes.push(finding.code);
            }
        }
    }
    let mut dots: Vec<Dot<'a>> = by_commit.into_values().collect();
    dots.sort_by(|a, b| (a.time, a.commit).cmp(&(b.time, b.commit)));
    (dots, undated)
}

/// The timeline's geometry, in SVG user units.
const TL_WIDTH: f64 = 960.0;
const TL_LABEL: f64 = 220.0;
const TL_RIGHT: f64 = 24.0;
const TL_ROW: f64 = 26.0;
const TL_TOP: f64 = 6.0;
const TL_AXIS: f64 = 34.0;
/// At most this many ticks on the time axis.
const TL_MAX_TICKS: i64 = 6;
/// Room a tick's label needs on either side of it, so one at an edge is not cut.
const TL_TICK_ROOM: f64 = 36.0;
const MINUTE: i64 = 60;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;
const YEAR: i64 = 365 * DAY;
/// The steps the time axis may tick at.
const TICK_STEPS: [i64; 20] = [
    MINUTE,
    2 * MINUTE,
    5 * MINUTE,
    10 * MINUTE,
    15 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    2 * DAY,
    3 * DAY,
    7 * DAY,
    14 * DAY,
    28 * DAY,
    91 * DAY,
    182 * DAY,
    YEAR,
];
/// How many characters of a node id the timeline's label column holds (the rest of the
/// column holds the row's commit count).
const TL_LABEL_CHARS: usize = 24;

/// A shared time axis: `[start, end]` in seconds mapped onto `[left, right]` of a plot.
pub(crate) struct Axis {
    start: i64,
    end: i64,
    left: f64,
    right: f64,
}

impl Axis {
    /// The timeline's axis over `times`; a span shorter than a day is widened to the day
    /// around its middle.
    fn over(times: impl Iterator<Item = i64>) -> Option<Self> {
        Self::spanning(times, DAY, TL_LABEL, TL_WIDTH - TL_RIGHT)
    }

    /// The span of `times` on `[left, right]`, padded so the edges keep their dots whole;
    /// a span shorter than `min_span` seconds is widened to `min_span` around its middle.
    pub(crate) fn spanning(
        times: impl Iterator<Item = i64>,
        min_span: i64,
        left: f64,
        right: f64,
    ) -> Option<Self> {
        let (min, max) = times.fold(None, |span: Option<(i64, i64)>, t| {
            Some(span.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))))
        })?;
        let (start, end) = if max - min < min_span {
            let middle = min + (max - min) / 2;
            (middle - min_span / 2, middle + min_span / 2)
        } else {
            let pad = (max - min) / 30;
            (min - pad, max + pad)
        };
        Some(Self {
            start,
            end,
            left,
            right,
        })
    }

    pub(crate) fn x(&self, time: i64) -> f64 {
        let span = (self.end - self.start).max(1) as f64;
        self.left + (time - self.start) as f64 / span * (self.right - self.left)
    }

    /// The smallest step of [`TICK_STEPS`] (or a whole number of years) that puts at
    /// most [`TL_MAX_TICKS`] ticks on the axis.
    fn step(&self) -> i64 {
        let span = self.end - self.start;
        TICK_STEPS
            .iter()
            .copied()
            .find(|step| span / step < TL_MAX_TICKS)
            .unwrap_or_else(|| YEAR * (span / (YEAR * TL_MAX_TICKS) + 1))
    }

    /// Ticks on the multiples of the step since the epoch (midnight UTC for whole days),
    /// labelled by date, or by date and time for steps shorter than a day.
    fn ticks(&self) -> Vec<(i64, String)> {
        let step = self.step();
        let first = (self.start + step - 1).div_euclid(step) * step;
        std::iter::successors(Some(first), |t| Some(t + step))
            .take_while(|&t| t <= self.end)
            .map(|t| {
                let label = if step < DAY {
                    minute(t).get(5..).unwrap_or_default().to_owned()
                } else {
                    rfc3339(t).get(..10).unwrap_or_default().to_owned()
                };
                (t, label)
            })
            .collect()
    }
}

/// `text` cut to `max` characters, with `…` when it was longer.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

fn timeline(nodes: &[NodeView<'_>], times: &BTreeMap<String, i64>) -> String {
    let rows: Vec<(&str, Vec<Dot<'_>>)> = nodes
        .iter()
        .map(|node| (node.id, dots(node, times)))
        .filter(|(_, (dots, _))| !dots.is_empty())
        .map(|(id, (dots, _))| (id, dots))
        .collect();
    let undated: usize = nodes.iter().map(|node| dots(node, times).1).sum();
    let quiet = nodes.len() - rows.len();
    let mut notes = Vec::new();
    if quiet > 0 {
        notes.push(format!(
            "{} with no hit commit not drawn",
            counted(quiet, "node")
        ));
    }
    if undated > 0 {
        notes.push(format!(
            "{} without a known date not drawn",
            counted(undated, "hit")
        ));
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!("<p class=\"none\">{}.</p>\n", escape(&notes.join("; ")))
    };
    let axis = Axis::over(
        rows.iter()
            .flat_map(|(_, dots)| dots.iter().map(|d| d.time)),
    );
    let chart = match axis {
        None => "<p class=\"none\">No window commit hit any node.</p>\n".to_owned(),
        Some(axis) => timeline_svg(&rows, &axis),
    };
    format!(
        "<section id=\"timeline\">\n<h2>Hits over time</h2>\n\
         <p class=\"legend\"><span class=\"swatch error\"></span>blocking hit \
         <span class=\"swatch warning\"></span>advisory change · one dot per commit and node, \
         at its committer date (UTC)</p>\n{chart}{notes}</section>\n"
    )
}

fn timeline_svg(rows: &[(&str, Vec<Dot<'_>>)], axis: &Axis) -> String {
    let plot_bottom = TL_TOP + TL_ROW * rows.len() as f64;
    let height = plot_bottom + TL_AXIS;
    let mut svg = format!(
        "<svg class=\"timeline\" viewBox=\"0 0 {TL_WIDTH} {height}\" role=\"img\" \
         aria-label=\"Hit commits per node over time\">\n"
    );
    for index in (0..rows.len()).step_by(2) {
        svg.push_str(&format!(
            "<rect class=\"stripe\" x=\"0\" y=\"{}\" width=\"{TL_WIDTH}\" height=\"{TL_ROW}\"/>\n",
            TL_TOP + TL_ROW * index as f64
        ));
    }
    svg.push_str(&tick_marks(axis, TL_WIDTH, TL_TOP, plot_bottom));
    for (i, (id, dots)) in rows.iter().enumerate() {
        svg.push_str(&timeline_row(i, id, dots, axis));
    }
    svg.push_str(&format!(
        "<line class=\"axis\" x1=\"{TL_LABEL}\" y1=\"{plot_bottom}\" x2=\"{}\" y2=\"{plot_bottom}\"/>\n</svg>\n",
        TL_WIDTH - TL_RIGHT
    ));
    svg
}

/// The axis's ticks as grid lines from `top` to `bottom`, each labelled under `bottom`; a
/// label near the right edge of a `width`-wide chart ends at its tick, so it is not cut.
pub(crate) fn tick_marks(axis: &Axis, width: f64, top: f64, bottom: f64) -> String {
    axis.ticks()
        .into_iter()
        .map(|(t, label)| {
            let x = axis.x(t);
            let anchor = if width - x < TL_TICK_ROOM {
                "end"
            } else {
                "middle"
            };
            format!(
                "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{bottom}\"/>\
                 <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{}</text>\n",
                bottom + 18.0,
                escape(&label)
            )
        })
        .collect()
}

fn timeline_row(index: usize, id: &str, dots: &[Dot<'_>], axis: &Axis) -> String {
    let y = TL_TOP + TL_ROW * index as f64 + TL_ROW / 2.0;
    let circles: String = dots
        .iter()
        .map(|dot| {
            format!(
                "<circle class=\"dot {}\" cx=\"{:.1}\" cy=\"{y}\" r=\"5.5\"><title>{} {} — {} ({})</title></circle>",
                severity_name(dot.severity),
                axis.x(dot.time),
                escape(short(dot.commit)),
                escape(&minute(dot.time)),
                escape(dot.subject),
                escape(&dot.codes.join(", ")),
            )
        })
        .collect();
    format!(
        "<g class=\"row\" data-node=\"{id}\"><text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" \
         text-anchor=\"end\"><title>{id}</title>{}</text>{circles}<text class=\"count\" x=\"{:.1}\" \
         y=\"{:.1}\" text-anchor=\"end\">{}</text></g>\n",
        TL_LABEL - 40.0,
        y + 4.0,
        escape(&shorten(id, TL_LABEL_CHARS)),
        TL_LABEL - 12.0,
        y + 4.0,
        dots.len(),
        id = escape(id),
    )
}

fn sessions_section(sessions: Option<&SessionsReport>) -> String {
    let body = match sessions {
        None => "<p class=\"none\">No session data was given, so this section is omitted. \
                 Pass <code>--sessions FILE</code>, <code>--claude-dir DIR</code> or \
                 <code>--codex-dir DIR</code> (any flag of <code>keel sessions</code>) to add \
                 cost and survival per harness and repository.</p>\n"
            .to_owned(),
        Some(report) => sessions_body(report),
    };
    format!("<section id=\"sessions\">\n<h2>Sessions</h2>\n{body}</section>\n")
}

fn sessions_body(report: &SessionsReport) -> String {
    let s = &report.summary;
    let unpriced = if s.unpriced_sessions > 0 {
        format!(
            ", {} with an unknown cost (an unpriced model)",
            counted(s.unpriced_sessions, "session")
        )
    } else {
        String::new()
    };
    format!(
        "<p>{} in scope, {} linked to commits, unlinked cost {}{}.</p>\n{}{}{}",
        counted(s.sessions_total, "session"),
        s.linked,
        escape(&usd(s.unlinked_cost)),
        escape(&unpriced),
        groups_block("By harness", "harness", &s.by_harness),
        groups_block("By repository", "repository", &s.by_repo),
        records_table(report),
    )
}

/// One metric a bar chart draws from a group.
struct Metric {
    title: &'static str,
    value: fn(&Group) -> Option<f64>,
    text: fn(f64) -> String,
}

const METRICS: [Metric; 3] = [
    Metric {
        title: "Cost per kept commit",
        value: |g| g.cost_per_kept_commit,
        text: usd_value,
    },
    Metric {
        title: "Cost per 100 lines added",
        value: |g| g.cost_per_100_lines,
        text: usd_value,
    },
    Metric {
        title: "Revert rate",
        value: |g| g.revert_rate,
        text: percent,
    },
];

fn groups_block(title: &str, key: &str, groups: &BTreeMap<String, Group>) -> String {
    if groups.is_empty() {
        return format!(
            "<h3>{}</h3>\n<p class=\"none\">No linked session.</p>\n",
            escape(title)
        );
    }
    let charts: String = METRICS
        .iter()
        .map(|metric| bar_chart(metric, groups))
        .collect();
    format!(
        "<h3>{}</h3>\n<div class=\"charts\">\n{charts}</div>\n{}",
        escape(title),
        groups_table(key, groups)
    )
}

/// The bar chart's geometry, in SVG user units.
const BAR_WIDTH: f64 = 360.0;
const BAR_LABEL: f64 = 112.0;
const BAR_VALUE: f64 = 78.0;
const BAR_ROW: f64 = 26.0;
const BAR_THICK: f64 = 16.0;
/// How many characters of a group's name the bar chart's label column holds.
const BAR_LABEL_CHARS: usize = 15;

fn bar_chart(metric: &Metric, groups: &BTreeMap<String, Group>) -> String {
    let max = groups
        .values()
        .filter_map(metric.value)
        .fold(0.0_f64, f64::max);
    let height = BAR_ROW * groups.len() as f64 + 4.0;
    let rows: String = groups
        .iter()
        .enumerate()
        .map(|(i, (name, group))| bar_row(i, name, (metric.value)(group), max, metric.text))
        .collect();
    format!(
        "<figure class=\"chart\"><figcaption>{t}</figcaption>\n<svg viewBox=\"0 0 {BAR_WIDTH} {height}\" \
         role=\"img\" aria-label=\"{t}\">\n{rows}</svg></figure>\n",
        t = escape(metric.title),
    )
}

/// Row `index` of a bar chart whose largest value is `max`: the group's name, then its
/// bar and value, or the word "unknown" and no bar.
fn bar_row(
    index: usize,
    name: &str,
    value: Option<f64>,
    max: f64,
    text: fn(f64) -> String,
) -> String {
    let top = 2.0 + BAR_ROW * index as f64;
    let y = top + BAR_ROW / 2.0 + 4.0;
    let label = format!(
        "<text class=\"label\" x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"end\"><title>{n}</title>{}</text>",
        BAR_LABEL - 8.0,
        escape(&shorten(name, BAR_LABEL_CHARS)),
        n = escape(name),
    );
    let bar = match value {
        None => format!(
            "<text class=\"unknown\" x=\"{:.1}\" y=\"{y:.1}\">unknown</text>",
            BAR_LABEL + 4.0
        ),
        Some(value) => {
            let area = BAR_WIDTH - BAR_LABEL - BAR_VALUE;
            let width = if max > 0.0 { value / max * area } else { 0.0 };
            format!(
                "<rect class=\"bar\" x=\"{BAR_LABEL}\" y=\"{:.1}\" width=\"{width:.1}\" height=\"{BAR_THICK}\" rx=\"2\"/>\
                 <line class=\"zero\" x1=\"{BAR_LABEL}\" y1=\"{:.1}\" x2=\"{BAR_LABEL}\" y2=\"{:.1}\"/>\
                 <text class=\"value\" x=\"{:.1}\" y=\"{y:.1}\">{}</text>",
                top + (BAR_ROW - BAR_THICK) / 2.0,
                top + 3.0,
                top + BAR_ROW - 3.0,
                BAR_LABEL + width + 6.0,
                escape(&text(value)),
            )
        }
    };
    format!("<g class=\"bar-row\">{label}{bar}</g>\n")
}

fn groups_table(key: &str, groups: &BTreeMap<String, Group>) -> String {
    let rows: String = groups
        .iter()
        .map(|(name, g)| {
            let cells = [
                name.clone(),
                usd(g.cost),
                g.commits_kept.to_string(),
                g.commits_reverted.to_string(),
                g.lines_added.to_string(),
                usd(g.cost_per_kept_commit),
                usd(g.cost_per_100_lines),
                g.revert_rate.map_or_else(|| "unknown".to_owned(), percent),
            ];
            table_row(&cells)
        })
        .collect();
    format!(
        "<table class=\"groups\"><thead><tr><th>{}</th><th>cost</th><th>kept</th><th>reverted</th>\
         <th>lines added</th><th>cost / kept commit</th><th>cost / 100 lines</th><th>revert rate</th>\
         </tr></thead>\n<tbody>\n{rows}</tbody></table>\n",
        escape(key)
    )
}

fn table_row(cells: &[String]) -> String {
    let cells: String = cells
        .iter()
        .map(|cell| {
            let class = if cell == "unknown" {
                " class=\"unknown-cell\""
            } else {
                ""
            };
            format!("<td{class}>{}</td>", escape(cell))
        })
        .collect();
    format!("<tr>{cells}</tr>\n")
}

fn records_table(report: &SessionsReport) -> String {
    if report.records.is_empty() {
        return "<h3>Records</h3>\n<p class=\"none\">No session is linked to a commit.</p>\n"
            .to_owned();
    }
    let rows: String = report
        .records
        .iter()
        .map(|r| {
            table_row(&[
                r.session_id.clone(),
                r.harness.clone(),
                r.repo_label.clone(),
                r.link.to_owned(),
                r.link_p
                    .map_or_else(|| "pending".to_owned(), |p| format!("{p}")),
                r.commits.len().to_string(),
                format!("+{} −{}", r.added, r.deleted),
                r.commits_kept.to_string(),
                r.commits_reverted.to_string(),
                usd(r.cost),
            ])
        })
        .collect();
    let pending = if report.pending.is_empty() {
        String::new()
    } else {
        format!(
            "<p class=\"none\">{} pending: answer them in <code>--decisions</code> (point commit_link).</p>\n",
            counted(report.pending.len(), "window link")
        )
    };
    format!(
        "<h3>Records</h3>\n<table class=\"records\"><thead><tr><th>session</th><th>harness</th>\
         <th>repository</th><th>link</th><th>p</th><th>commits</th><th>lines</th><th>kept</th>\
         <th>reverted</th><th>cost</th></tr></thead>\n<tbody>\n{rows}</tbody></table>\n{pending}"
    )
}

/// US dollars, `unknown` for null (an unknown is never shown as 0).
fn usd(value: Option<f64>) -> String {
    value.map_or_else(|| "unknown".to_owned(), usd_value)
}

/// `$2.00`, `$0.006515`: at least two decimals, at most the six keel rounds to.
fn usd_value(value: f64) -> String {
    let text = format!("{value:.6}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let fraction = fraction.trim_end_matches('0');
    format!("${whole}.{fraction:0<2}")
}

/// `50%`, `33.3%`.
fn percent(value: f64) -> String {
    let text = format!("{:.1}", value * 100.0);
    format!("{}%", text.strip_suffix(".0").unwrap_or(&text))
}

const STYLE: &str = r#":root{--fg:#1c2230;--muted:#5d6678;--line:#dde2ea;--bg:#f5f6f8;--card:#fff;--blocked:#c0262d;--warning:#b36b00;--clean:#1a7f4b;--accent:#3b63d1}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
header{background:#1c2230;color:#fff;padding:18px 32px 0}
header h1{margin:0 0 4px;font-size:21px;font-weight:600}
header .repo{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#9fb7ff}
header .meta{margin:0;color:#c8cfdc}
header code{color:#fff}
nav{display:flex;gap:20px;margin-top:12px}
nav a{color:#c8cfdc;text-decoration:none;padding:6px 0;border-bottom:2px solid transparent}
nav a:hover{color:#fff;border-bottom-color:#9fb7ff}
main{max-width:1180px;margin:0 auto;padding:4px 32px 48px}
section{margin-top:26px}
h2{font-size:18px;margin:0 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:18px 0 8px}
.controls{display:flex;gap:12px;align-items:center;flex-wrap:wrap;margin-bottom:14px}
.controls input{flex:1 1 260px;max-width:420px;padding:7px 10px;border:1px solid var(--line);border-radius:6px;font:inherit;background:#fff}
.controls select{padding:6px 8px;border:1px solid var(--line);border-radius:6px;font:inherit;background:#fff}
#shown{color:var(--muted)}
.node{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--clean);border-radius:8px;padding:12px 16px;margin-bottom:12px}
.node[data-status=blocked]{border-left-color:var(--blocked)}
.node[data-status=warning]{border-left-color:var(--warning)}
.node h3{margin:0;display:flex;gap:10px;align-items:center}
.node-id{font:600 14px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;color:#fff;background:var(--clean)}
.badge.blocked{background:var(--blocked)}
.badge.warning{background:var(--warning)}
.finding{margin-top:10px;padding-top:10px;border-top:1px dashed var(--line)}
.finding p{margin:3px 0}
.code{font-weight:600}
.finding.error .code{color:var(--blocked)}
.finding.warning .code{color:var(--warning)}
.repair,.muted,.none,.legend{color:var(--muted)}
.none{margin:6px 0}
details{margin-top:6px}
summary{cursor:pointer;color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:13px;margin-top:4px;background:var(--card)}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600}
td.date{white-space:nowrap}
.unknown-cell{color:var(--muted);font-style:italic}
.legend .swatch{display:inline-block;width:10px;height:10px;border-radius:50%;margin:0 5px 0 10px;vertical-align:-1px}
.legend .swatch:first-child{margin-left:0}
.swatch.error{background:var(--blocked)}
.swatch.warning{background:var(--warning)}
svg{display:block;width:100%;height:auto}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:var(--fg)}
svg .label{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
svg .tick,svg .count{fill:var(--muted)}
svg.timeline{background:var(--card);border:1px solid var(--line);border-radius:8px}
.stripe{fill:#f3f5f9}
.grid{stroke:var(--line)}
.axis{stroke:var(--muted)}
.dot{stroke:#fff;stroke-width:1.5}
.dot.error{fill:var(--blocked)}
.dot.warning{fill:var(--warning)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:14px}
.chart{margin:0;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.chart figcaption{font-weight:600;font-size:13px;margin-bottom:6px}
.bar{fill:var(--accent)}
.zero{stroke:var(--muted)}
svg .unknown{fill:var(--muted);font-style:italic}
svg .value{fill:var(--muted)}
table.groups,table.records{margin-top:12px}
"#;

/// The drift board's filter: a text box over node ids and paths and a status select, both
/// preset from the page's fragment (`#q=auth&status=blocked`). It marks the body
/// `data-rendered="yes"` once it ran.
const SCRIPT: &str = r#"(function () {
  var filter = document.getElementById('filter');
  var status = document.getElementById('status');
  var shown = document.getElementById('shown');
  var none = document.getElementById('none-shown');
  var nodes = Array.prototype.slice.call(document.querySelectorAll('#nodes .node'));
  var preset = new URLSearchParams(location.hash.slice(1));
  if (preset.has('q')) { filter.value = preset.get('q'); }
  if (preset.has('status')) { status.value = preset.get('status'); }
  function apply() {
    var text = filter.value.trim().toLowerCase();
    var wanted = status.value;
    var count = 0;
    nodes.forEach(function (node) {
      var match = (!wanted || node.getAttribute('data-status') === wanted) &&
        (!text || node.getAttribute('data-search').indexOf(text) !== -1);
      node.hidden = !match;
      if (match) { count += 1; }
    });
    shown.textContent = count + ' of ' + nodes.length + (nodes.length === 1 ? ' node' : ' nodes') + ' shown';
    none.hidden = count !== 0 || nodes.length === 0;
  }
  filter.addEventListener('input', apply);
  status.addEventListener('change', apply);
  apply();
  document.body.setAttribute('data-rendered', 'yes');
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use keel_queries::lint::{LINT_SCHEMA, Summary};
    use keel_queries::sessions::Summary as SessionsSummary;

    const TIP: &str = "0123456789abcdef0123456789abcdef01234567";
    const C1: &str = "1111111111111111111111111111111111111111";
    const C2: &str = "2222222222222222222222222222222222222222";

    fn hit(commit: &str, subject: &str) -> HitRecord {
        HitRecord {
            commit: commit.into(),
            path: None,
            subject: subject.into(),
            selectors: vec!["f".to_owned()],
            side: Some(Side::Both),
            conservative: false,
        }
    }

    fn finding(
        node: &str,
        severity: Severity,
        code: &'static str,
        hits: Vec<HitRecord>,
    ) -> Finding {
        Finding {
            node: node.to_owned(),
            severity,
            code,
            path: "a.py".to_owned(),
            selectors: vec!["f".to_owned()],
            hits,
            message: "a message".to_owned(),
            repair: "a repair".to_owned(),
        }
    }

    fn lint(nodes: &[&str], findings: Vec<Finding>, unverified: Vec<Unverified>) -> LintReport {
        let errors = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        LintReport {
            schema: LINT_SCHEMA,
            tip: Some(TIP.to_owned()),
            summary: Summary {
                nodes: nodes.len(),
                anchors: nodes.len(),
                errors,
                warnings: findings.len() - errors,
            },
            findings,
            unverified,
            nodes: nodes.iter().map(|n| (*n).to_owned()).collect(),
        }
    }

    /// Committer times: C1 on 2026-01-12 12:00, C2 on 2026-01-15 10:30 (UTC).
    fn times() -> BTreeMap<String, i64> {
        BTreeMap::from([
            (C1.to_owned(), 1_768_219_200),
            (C2.to_owned(), 1_768_473_000),
        ])
    }

    fn render(lint: &LintReport, sessions: Option<&SessionsReport>) -> String {
        page(&Page {
            repo: "repo",
            lint,
            commit_times: &times(),
            sessions,
            now: None,
        })
    }

    fn group(per_kept: Option<f64>, revert_rate: Option<f64>) -> Group {
        Group {
            cost: per_kept,
            unpriced_sessions: 0,
            lines_added: 10,
            commits_kept: 1,
            commits_reverted: 0,
            cost_per_kept_commit: per_kept,
            cost_per_100_lines: per_kept,
            revert_rate,
        }
    }

    fn sessions(by_harness: BTreeMap<String, Group>) -> SessionsReport {
        SessionsReport {
            schema: keel_queries::sessions::SCHEMA,
            records: Vec::new(),
            pending: Vec::new(),
            summary: SessionsSummary {
                sessions_total: 3,
                linked: 2,
                unlinked_cost: None,
                unpriced_sessions: 1,
                by_repo: BTreeMap::new(),
                by_harness,
            },
        }
    }

    /// The part of `html` from `start` up to the next `end` after it.
    fn between<'h>(html: &'h str, start: &str, end: &str) -> &'h str {
        let from = html.find(start).unwrap_or_else(|| panic!("no {start:?}"));
        let rest = &html[from..];
        &rest[..rest.find(end).map_or(rest.len(), |to| to + end.len())]
    }

    #[test]
    fn escape_replaces_the_five_characters_html_reads() {
        assert_eq!(
            escape("<a title=\"x\">&'</a>"),
            "&lt;a title=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("plain · text"), "plain · text");
    }

    #[test]
    fn an_evil_node_id_and_subject_come_out_escaped() {
        let evil = "<script>alert(1)</script>";
        let subject = "Fix \"quotes\" <script>alert(2)</script> & more";
        let report = lint(
            &[evil],
            vec![finding(
                evil,
                Severity::Error,
                "anchor-hit",
                vec![hit(C2, subject)],
            )],
            Vec::new(),
        );
        let html = render(&report, None);
        assert!(!html.contains("<script>alert"), "{html}");
        assert_eq!(
            html.matches("<script>").count(),
            1,
            "only the page's own script"
        );
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
        assert!(
            html.contains(&format!("<span class=\"node-id\">{escaped}</span>")),
            "{html}"
        );
        assert!(
            html.contains(&format!("data-search=\"{escaped} a.py\"")),
            "{html}"
        );
        assert!(html.contains(&format!("data-node=\"{escaped}\"")), "{html}");
        assert!(
            html.contains(
                "Fix &quot;quotes&quot; &lt;script&gt;alert(2)&lt;/script&gt; &amp; more"
            ),
            "{html}"
        );
    }

    #[test]
    fn a_node_stands_as_its_worst_finding() {
        let report = lint(
            &["blocked", "clean", "unverified", "warned"],
            vec![
                finding(
                    "blocked",
                    Severity::Warning,
                    "code-drift",
                    vec![hit(C1, "a")],
                ),
                finding("blocked", Severity::Error, "anchor-hit", vec![hit(C2, "b")]),
                finding(
                    "warned",
                    Severity::Warning,
                    "code-drift",
                    vec![hit(C1, "a")],
                ),
            ],
            vec![Unverified {
                node: "unverified".to_owned(),
                path: "a.py".to_owned(),
                selectors: vec!["f".to_owned()],
                reason: "no grammar".to_owned(),
            }],
        );
        let html = render(&report, None);
        for (node, status) in [
            ("blocked", "blocked"),
            ("clean", "clean"),
            ("unverified", "blocked"),
            ("warned", "warning"),
        ] {
            assert!(
                html.contains(&format!("data-status=\"{status}\" data-search=\"{node}")),
                "{node}: {html}"
            );
        }
        assert_eq!(
            status_counts(&report),
            StatusCounts {
                blocked: 2,
                warning: 1,
                clean: 1
            }
        );
        // Node order is by id, whatever the order of the findings.
        let at = |id: &str| html.find(&format!("<span class=\"node-id\">{id}</span>"));
        assert!(at("blocked") < at("clean") && at("clean") < at("unverified"));
    }

    #[test]
    fn a_commit_in_two_findings_of_a_node_is_one_dot_of_the_worst_severity() {
        let report = lint(
            &["n"],
            vec![
                finding(
                    "n",
                    Severity::Warning,
                    "code-drift",
                    vec![hit(C1, "a"), hit(C2, "b")],
                ),
                finding("n", Severity::Error, "anchor-hit", vec![hit(C2, "b")]),
            ],
            Vec::new(),
        );
        let html = render(&report, None);
        let svg = between(&html, "<svg class=\"timeline\"", "</svg>");
        assert_eq!(svg.matches("<circle").count(), 2, "{svg}");
        let older = between(svg, "<circle class=\"dot warning\"", "</circle>");
        let newer = between(svg, "<circle class=\"dot error\"", "</circle>");
        assert!(
            older.contains("111111111111 2026-01-12 12:00 — a (code-drift)"),
            "{older}"
        );
        assert!(
            newer.contains("222222222222 2026-01-15 10:30 — b (code-drift, anchor-hit)"),
            "{newer}"
        );
        let cx = |circle: &str| {
            between(circle, "cx=\"", "\" ")
                .trim_start_matches("cx=\"")
                .trim_end_matches("\" ")
                .parse::<f64>()
                .expect("a number")
        };
        assert!(cx(older) < cx(newer), "older dots sit further left");
    }

    #[test]
    fn day_ticks_fall_on_midnight_and_a_short_span_ticks_by_the_hour() {
        // 2026-01-10 09:00 to 2026-01-15 10:30: five days, ticked daily.
        let axis = Axis::over([1_768_035_600, 1_768_473_000].into_iter()).expect("an axis");
        let ticks = axis.ticks();
        let labels: Vec<&str> = ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "2026-01-11",
                "2026-01-12",
                "2026-01-13",
                "2026-01-14",
                "2026-01-15"
            ]
        );
        assert!(ticks.iter().all(|(t, _)| t % DAY == 0));
        let lone = Axis::over(std::iter::once(1_768_473_000)).expect("an axis");
        let labels: Vec<String> = lone.ticks().into_iter().map(|(_, l)| l).collect();
        // A lone commit at 10:30 sits mid-day in a day-wide axis, ticked every 6 hours.
        assert_eq!(
            labels,
            ["01-15 00:00", "01-15 06:00", "01-15 12:00", "01-15 18:00"]
        );
        assert!((lone.x(1_768_473_000) - (TL_LABEL + TL_WIDTH - TL_RIGHT) / 2.0).abs() < 0.01);
        assert!(Axis::over(std::iter::empty()).is_none());
    }

    #[test]
    fn an_unknown_value_is_drawn_as_unknown_never_as_zero() {
        let report = sessions(BTreeMap::from([
            ("known".to_owned(), group(Some(2.0), Some(0.25))),
            ("unknown".to_owned(), group(None, None)),
            ("zero".to_owned(), group(Some(0.0), Some(0.0))),
        ]));
        let html = render(&lint(&[], Vec::new(), Vec::new()), Some(&report));
        let chart = between(
            &html,
            "<figcaption>Cost per kept commit</figcaption>",
            "</figure>",
        );
        let unknown = between(chart, "<title>unknown</title>", "</g>");
        assert!(unknown.contains(">unknown</text>"), "{unknown}");
        assert!(!unknown.contains("<rect"), "{unknown}");
        let zero = between(chart, "<title>zero</title>", "</g>");
        assert!(zero.contains("width=\"0.0\""), "{zero}");
        assert!(zero.contains(">$0.00</text>"), "{zero}");
        let known = between(chart, "<title>known</title>", "</g>");
        assert!(
            known.contains("width=\"170.0\""),
            "the largest fills the area: {known}"
        );
        let rate = between(&html, "<figcaption>Revert rate</figcaption>", "</figure>");
        assert!(rate.contains(">25%</text>"), "{rate}");
        let table = between(&html, "<table class=\"groups\">", "</table>");
        assert!(
            table.contains("<td class=\"unknown-cell\">unknown</td>"),
            "{table}"
        );
        assert!(html.contains("unlinked cost unknown"), "{html}");
        assert!(
            html.contains("No linked session."),
            "by repository is empty: {html}"
        );
    }

    #[test]
    fn without_sessions_the_section_says_it_is_omitted() {
        let html = render(&lint(&["n"], Vec::new(), Vec::new()), None);
        let section = between(&html, "<section id=\"sessions\">", "</section>");
        assert!(section.contains("No session data was given"), "{section}");
        assert!(!section.contains("<svg"), "{section}");
    }

    #[test]
    fn the_page_loads_nothing_and_names_no_url() {
        let report = lint(
            &["n"],
            vec![finding(
                "n",
                Severity::Error,
                "anchor-hit",
                vec![hit(C1, "a")],
            )],
            Vec::new(),
        );
        let html = render(&report, Some(&sessions(BTreeMap::new())));
        for outside in [
            "://", " src=", "<link", "url(", "@import", "<img", "<iframe",
        ] {
            assert!(!html.contains(outside), "{outside}: {html}");
        }
        assert!(html.starts_with("<!DOCTYPE html>\n"), "{html}");
        assert!(html.ends_with("</html>\n"), "{html}");
    }

    #[test]
    fn money_and_rates_are_worded_once() {
        assert_eq!(usd_value(2.0), "$2.00");
        assert_eq!(usd_value(20.5), "$20.50");
        assert_eq!(usd_value(0.006515), "$0.006515");
        assert_eq!(usd(None), "unknown");
        assert_eq!(percent(0.5), "50%");
        assert_eq!(percent(0.333333), "33.3%");
        assert_eq!(percent(0.0), "0%");
    }
}
