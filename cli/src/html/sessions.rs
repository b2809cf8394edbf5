//! The sessions section: cost and survival per harness and per repository as bar charts
//! and tables, and the records of linked sessions — or, without session flags, a note that
//! the section is omitted.
//!
//! Owns: the metrics charted, the bar charts' geometry, and the wording of money and rates
//! (an unknown value is "unknown", never 0).
//! Does not own: the figures (`keel_queries::sessions`) or the page around it (`html`).

use super::{escape, shorten};
use crate::render::counted;
use keel_queries::sessions::{Group, SessionTouched, SessionsReport};
use std::collections::BTreeMap;

pub(super) fn sessions_section(sessions: Option<&SessionsReport>) -> String {
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
                format!(
                    "{} ({} not updated)",
                    g.specs_touched, g.specs_touched_without_update
                ),
            ];
            table_row(&cells)
        })
        .collect();
    format!(
        "<table class=\"groups\"><thead><tr><th>{}</th><th>cost</th><th>kept</th><th>reverted</th>\
         <th>lines added</th><th>cost / kept commit</th><th>cost / 100 lines</th><th>revert rate</th>\
         <th>specs touched</th></tr></thead>\n<tbody>\n{rows}</tbody></table>\n",
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
                specs_touched(r.touched.as_ref()),
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
         <th>reverted</th><th>cost</th><th>specs touched</th></tr></thead>\n<tbody>\n{rows}</tbody></table>\n{pending}"
    )
}

/// The nodes a record's commits touched, each marked `updated` or `spec unchanged`;
/// `—` when none was projected (a pending record), `none` when none was touched.
fn specs_touched(touched: Option<&SessionTouched>) -> String {
    let Some(touched) = touched else {
        return "—".to_owned();
    };
    if touched.by_node.is_empty() {
        return "none".to_owned();
    }
    touched
        .by_node
        .iter()
        .map(|node| {
            let state = if node.spec_updated {
                "updated"
            } else {
                "spec unchanged"
            };
            format!("{} ({state})", node.node)
        })
        .collect::<Vec<_>>()
        .join(", ")
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

#[cfg(test)]
mod tests {
    use super::*;

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
