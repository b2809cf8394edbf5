//! The HTML report: one self-contained page built from a lint report, the committer
//! dates of its hit commits and, when session flags were given, a sessions report.
//!
//! Owns: the page — its inline styles, its filter script and its inline SVG charts (the
//! drift board, hits over time per node, cost and survival bars per harness and per
//! repository) — escaping every text it inserts, and the wording of numbers (a null is
//! "unknown", never drawn as 0). Pure: data in, `String` out, the same bytes for the same
//! data; the page loads nothing and names no URL. The pieces `replay_html` shares come
//! from here: the head with its policy and styles, and escaping.
//! This file holds the page's shell — its head, header and end, the styles
//! (`page.css`) and script (`page.js`) it inlines — and the wording its sections share
//! (escaping, short ids, dates); the sections are `drift_board`, `timeline` (with the
//! time axis) and `sessions`.
//! Does not own: any answer (`keel_queries`), reading the database, or writing the file
//! (`commands::page_file`).

mod drift_board;
mod sessions;
mod timeline;

pub(crate) use drift_board::status_counts;

use crate::render::counted;
use drift_board::{NodeView, Status, drift_board, nodes};
use keel_engine::sessions::Instant;
use keel_queries::lint::LintReport;
use keel_queries::sessions::SessionsReport;
use sessions::sessions_section;
use std::collections::BTreeMap;
use timeline::timeline;

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

pub(crate) use crate::render::short;

/// `text`, or `—` when it is empty (a whole-file change names no selector and no side).
pub(crate) fn or_dash(text: String) -> String {
    if text.is_empty() {
        "—".to_owned()
    } else {
        text
    }
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

/// `text` cut to `max` characters, with `…` when it was longer.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// The styles every page of keel shares.
const STYLE: &str = include_str!("page.css");

/// The drift board's filter: a text box over node ids and paths and a status select, both
/// preset from the page's fragment (`#q=auth&status=blocked`). It marks the body
/// `data-rendered="yes"` once it ran.
const SCRIPT: &str = include_str!("page.js");

#[cfg(test)]
mod tests {
    use super::drift_board::StatusCounts;
    use super::*;
    use keel_queries::lint::Side;
    use keel_queries::lint::{Finding, HitRecord, LINT_SCHEMA, Severity, Summary, Unverified};
    use keel_queries::sessions::{Group, Summary as SessionsSummary};

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
            cosmetic: None,
            patch_id: None,
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
            specs_touched: 0,
            specs_touched_without_update: 0,
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
}
