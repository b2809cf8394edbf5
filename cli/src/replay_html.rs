//! The page of `keel replay --html`: drift over the replayed tips, in date order, on one
//! self-contained page.
//!
//! Owns: what the page is made from, one [`ReplayedTip`] per judged tip
//! (`commands::replay` makes them, and its `keel.replay.v1` lines from them too), and the
//! page — debt per tip as a line with each tip's verdict as a band under it, the count of
//! each finding code per tip as one line per code with a legend, both on an axis of the
//! tips in order (one even step per tip, whatever the time between them, labelled with
//! dates), and a table of the tips — marking every tip keel refused (its `error`) and every
//! tip judged before any spec existed ("no spec yet", not "ok"), and escaping every text
//! it inserts. Pure: the judged tips in, `String` out, the same bytes for the same tips;
//! the page loads nothing and names no URL.
//! Does not own: judging the tips or what a tip adds up to (`commands::replay`), writing
//! the file (`commands::page_file`), or the shared styles and escaping (`html`).

use crate::html::{escape, head, or_dash, short};
use crate::render::counted;
use keel_queries::replay::TipTally;
use std::collections::BTreeSet;

/// The charts' geometry, in SVG user units.
const WIDTH: f64 = 960.0;
/// Room left of the plot for the count labels.
const LEFT: f64 = 64.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 12.0;
const PLOT_HEIGHT: f64 = 160.0;
/// Room between the plot's edges and the first and last tip, so their dots stay whole.
const AXIS_PAD: f64 = 12.0;
/// The blocked band: its distance under the debt plot and its height.
const BAND_GAP: f64 = 10.0;
const BAND_HEIGHT: f64 = 14.0;
/// Half the width of the band's segment beyond the oldest and the newest tip.
const BAND_EDGE: f64 = 4.0;
/// Room under a plot for the date labels.
const AXIS_ROOM: f64 = 30.0;
/// At most this many tips carry a date label on the axis.
const MAX_LABELS: usize = 8;
/// A replay spanning less than this many seconds labels its tips by day and minute
/// (`01-15 10:30`), a longer one by date (`2026-01-15`).
const DATE_LABEL_SPAN: i64 = 2 * 24 * 60 * 60;
/// The width a date label takes, at most (`01-15 10:30` in the charts' 12 px type).
const LABEL_WIDTH: f64 = 80.0;
/// Room a label needs on either side of its tip, so one at an edge is not cut.
const LABEL_ROOM: f64 = 36.0;
/// At most this many steps up a count axis.
const MAX_COUNT_STEPS: usize = 5;
/// How many colours the lines of finding codes take before they repeat dashed.
const SERIES_COLOURS: usize = 10;

/// One judged tip: what its line of `keel.replay.v1` and its part of the `--html` page
/// are both made from.
pub(crate) struct ReplayedTip {
    /// The full commit id.
    pub(crate) tip: String,
    /// The committer time, seconds since the epoch.
    pub(crate) time: i64,
    /// `time` in RFC 3339 (UTC).
    pub(crate) date: String,
    /// Empty and blocked when the tip has an `error`.
    pub(crate) tally: TipTally,
    /// Why keel refused the tip's specs or `keel.toml`.
    pub(crate) error: Option<String>,
}

/// How a tip stands on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// `keel lint` would exit 1 (an error, or a refused tip).
    Blocked,
    /// Judged, nothing blocks.
    Ok,
    /// No spec node yet: no tip up to this one had any, so there was nothing to judge.
    NoSpecYet,
    /// No spec node any more: an earlier tip had some.
    NoSpec,
}

impl Verdict {
    /// The verdicts of `tips` (in page order): a tip with no node and no error is "no spec
    /// yet" until a tip has a node, "no spec" after.
    fn of(tips: &[&ReplayedTip]) -> Vec<Self> {
        let mut specs_seen = false;
        tips.iter()
            .map(|tip| {
                specs_seen |= tip.tally.nodes > 0;
                if tip.tally.blocked {
                    Self::Blocked
                } else if tip.tally.nodes > 0 {
                    Self::Ok
                } else if specs_seen {
                    Self::NoSpec
                } else {
                    Self::NoSpecYet
                }
            })
            .collect()
    }

    /// The class the page styles it by.
    fn class(self) -> &'static str {
        match self {
            Self::Blocked => "blocked",
            Self::Ok => "ok",
            Self::NoSpecYet | Self::NoSpec => "nospec",
        }
    }

    /// How it reads.
    fn label(self) -> &'static str {
        match self {
            Self::Blocked => "blocked",
            Self::Ok => "ok",
            Self::NoSpecYet => "no spec yet",
            Self::NoSpec => "no spec",
        }
    }
}

/// The tips axis: tip `i` of `count` at an even step from the plot's left to its right,
/// so a burst of tips a second apart stays as readable as tips a year apart.
struct Tips {
    count: usize,
}

impl Tips {
    fn x(&self, index: usize) -> f64 {
        let (left, right) = (LEFT + AXIS_PAD, WIDTH - RIGHT - AXIS_PAD);
        if self.count < 2 {
            return (left + right) / 2.0;
        }
        left + index as f64 / (self.count - 1) as f64 * (right - left)
    }

    /// The tips that carry a label: every one when they are few, else every k-th from the
    /// oldest and always the newest, at most [`MAX_LABELS`].
    fn labelled(&self) -> Vec<usize> {
        let Some(last) = self.count.checked_sub(1) else {
            return Vec::new();
        };
        let step = last.div_ceil(MAX_LABELS - 1).max(1);
        let mut indices: Vec<usize> = (0..last).step_by(step).collect();
        // The newest replaces a label too close before it to be read beside it.
        if indices
            .last()
            .is_some_and(|&i| i > 0 && self.x(last) - self.x(i) < LABEL_WIDTH)
        {
            indices.pop();
        }
        indices.push(last);
        indices
    }
}

/// A tip's date as an axis label: `2026-01-15`, or `01-15 10:30` when `by_minute`.
fn date_label(date: &str, by_minute: bool) -> String {
    let label = if by_minute {
        date.get(5..16).map(|text| text.replace('T', " "))
    } else {
        date.get(..10).map(str::to_owned)
    };
    label.unwrap_or_else(|| date.to_owned())
}

/// The whole page of the tips of a replay of `repo` (a folder name).
pub(crate) fn page(repo: &str, tips: &[ReplayedTip]) -> String {
    let mut tips: Vec<&ReplayedTip> = tips.iter().collect();
    // Stable: tips of one second keep the replay's order (oldest first).
    tips.sort_by_key(|tip| tip.time);
    let verdicts = Verdict::of(&tips);
    let axis = Tips { count: tips.len() };
    let body = if tips.is_empty() {
        "<p class=\"none\">No tip was replayed: the range lists no commit.</p>\n".to_owned()
    } else {
        [
            debt_section(&tips, &verdicts, &axis),
            findings_section(&tips, &axis),
            tips_table(&tips, &verdicts),
        ]
        .concat()
    };
    [
        head(&format!("keel replay: {repo}"), STYLE),
        header(repo, &tips, &verdicts),
        format!("<main>\n{body}</main>\n</body>\n</html>\n"),
    ]
    .concat()
}

fn header(repo: &str, tips: &[&ReplayedTip], verdicts: &[Verdict]) -> String {
    let span = match (tips.first(), tips.last()) {
        (Some(oldest), Some(newest)) => format!(
            " from {} to {} · debt {} at the oldest, {} at the newest",
            escape(&oldest.date),
            escape(&newest.date),
            oldest.tally.debt,
            newest.tally.debt
        ),
        _ => String::new(),
    };
    let blocked = tips.iter().filter(|tip| tip.tally.blocked).count();
    let refused = tips.iter().filter(|tip| tip.error.is_some()).count();
    let before_specs = verdicts
        .iter()
        .filter(|verdict| **verdict == Verdict::NoSpecYet)
        .count();
    let before_specs = if before_specs > 0 {
        format!(" · {} before any spec", counted(before_specs, "tip"))
    } else {
        String::new()
    };
    format!(
        "<header>\n<h1>keel replay <span class=\"repo\">{}</span></h1>\n\
         <p class=\"meta\">{}{span} · {blocked} blocked · {} with an error{before_specs}</p>\n\
         <nav><a href=\"#debt\">Debt</a><a href=\"#findings\">Findings by code</a><a href=\"#tips\">Tips</a></nav>\n\
         </header>\n",
        escape(repo),
        counted(tips.len(), "tip"),
        counted(refused, "tip"),
    )
}

/// A count axis from 0 to `top` (at least 1), labelled every `step`: 1, 2 or 5 times a
/// power of ten, at most [`MAX_COUNT_STEPS`] steps.
struct Counts {
    top: usize,
    step: usize,
}

impl Counts {
    fn up_to(max: usize) -> Self {
        let step = std::iter::successors(Some(1_usize), |power| power.checked_mul(10))
            .flat_map(|power| {
                [1, 2, 5]
                    .into_iter()
                    .filter_map(move |m| power.checked_mul(m))
            })
            .find(|step| max.div_ceil(*step) <= MAX_COUNT_STEPS)
            .unwrap_or(usize::MAX);
        Self {
            top: max.div_ceil(step).max(1).saturating_mul(step),
            step,
        }
    }

    /// The height of `count` in a plot whose bottom is `bottom`.
    fn y(&self, count: usize, bottom: f64) -> f64 {
        bottom - count as f64 / self.top as f64 * PLOT_HEIGHT
    }

    /// Horizontal grid lines, each labelled left of the plot.
    fn marks(&self, bottom: f64) -> String {
        (0..=self.top)
            .step_by(self.step)
            .map(|count| {
                let y = self.y(count, bottom);
                format!(
                    "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\"/>\
                     <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{count}</text>\n",
                    WIDTH - RIGHT,
                    LEFT - 8.0,
                    y + 4.0
                )
            })
            .collect()
    }
}

/// `12ab34cd56ef 2026-01-15T10:30:00Z`: how a tip is named in a chart's tooltip.
fn tip_name(tip: &ReplayedTip) -> String {
    format!("{} {}", short(&tip.tip), tip.date)
}

/// A dashed line through the whole plot at every tip keel refused.
fn error_marks(tips: &[&ReplayedTip], axis: &Tips, bottom: f64) -> String {
    tips.iter()
        .enumerate()
        .filter_map(|(i, tip)| {
            let error = tip.error.as_deref()?;
            let x = axis.x(i);
            Some(format!(
                "<line class=\"error-mark\" x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\">\
                 <title>{} — error: {}</title></line>\n",
                escape(&tip_name(tip)),
                escape(error)
            ))
        })
        .collect()
}

/// The opening of a chart's SVG, `height` high.
fn svg_open(class: &str, height: f64, label: &str) -> String {
    format!(
        "<svg class=\"replay {class}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{}\">\n",
        escape(label)
    )
}

fn debt_section(tips: &[&ReplayedTip], verdicts: &[Verdict], axis: &Tips) -> String {
    let bottom = TOP + PLOT_HEIGHT;
    let band_top = bottom + BAND_GAP;
    let band_bottom = band_top + BAND_HEIGHT;
    let counts = Counts::up_to(tips.iter().map(|tip| tip.tally.debt).max().unwrap_or(0));
    let points: Vec<(f64, f64)> = tips
        .iter()
        .enumerate()
        .map(|(i, tip)| (axis.x(i), counts.y(tip.tally.debt, bottom)))
        .collect();
    let dots: String = tips
        .iter()
        .zip(verdicts)
        .zip(&points)
        .map(|((tip, &verdict), &at)| debt_dot(tip, verdict, at))
        .collect();
    format!(
        "<section id=\"debt\">\n<h2>Debt and verdict per tip</h2>\n\
         <p class=\"legend\"><span class=\"swatch debt\"></span>debt: distinct (node, selector, commit) of the blocking hits \
         <span class=\"swatch band-blocked\"></span>blocked <span class=\"swatch band-ok\"></span>ok \
         <span class=\"swatch band-nospec\"></span>no spec yet: no spec node existed, nothing was judged \
         <span class=\"swatch refused\"></span>error: keel refused the tip's specs or keel.toml \
         (drawn as no debt and no finding) · the tips in order, one step each, labelled with \
         their committer date (UTC); a dot links to its row</p>\n\
         {}{}{}{}<polyline class=\"debt-line\" points=\"{}\"/>\n{dots}{}\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\"/>\n</svg>\n</section>\n",
        svg_open(
            "debt-chart",
            band_bottom + AXIS_ROOM,
            "Debt and verdict per tip, the tips in order"
        ),
        counts.marks(bottom),
        axis_marks(tips, axis, band_bottom),
        error_marks(tips, axis, bottom),
        polyline_points(&points),
        verdict_band(tips, verdicts, axis, band_top),
        WIDTH - RIGHT,
    )
}

/// `x,y x,y …`, one pair per point.
fn polyline_points(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A tip's dot on the debt line, linked to its row of the table.
fn debt_dot(tip: &ReplayedTip, verdict: Verdict, (x, y): (f64, f64)) -> String {
    let (class, error) = match (tip.error.as_deref(), verdict) {
        (Some(error), _) => (" refused", format!(" — error: {error}")),
        (None, Verdict::NoSpecYet | Verdict::NoSpec) => (" nospec", String::new()),
        (None, _) => ("", String::new()),
    };
    let verdict = verdict.label();
    format!(
        "<a href=\"#tip-{}\"><circle class=\"dot-debt{class}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\">\
         <title>{}: debt {}, {verdict}{}</title></circle></a>\n",
        escape(&tip.tip),
        escape(&tip_name(tip)),
        tip.tally.debt,
        escape(&error),
    )
}

/// One segment per tip, from halfway to the tip before it to halfway to the one after,
/// coloured by its verdict.
fn verdict_band(tips: &[&ReplayedTip], verdicts: &[Verdict], axis: &Tips, top: f64) -> String {
    let edge = |i: usize| match (i.checked_sub(1), i < tips.len()) {
        (Some(before), true) => (axis.x(before) + axis.x(i)) / 2.0,
        (None, _) => axis.x(0) - BAND_EDGE,
        (Some(last), false) => axis.x(last) + BAND_EDGE,
    };
    let segments: String = tips
        .iter()
        .zip(verdicts)
        .enumerate()
        .map(|(i, (tip, verdict))| {
            let (from, to) = (edge(i), edge(i + 1));
            format!(
                "<rect class=\"band {}\" x=\"{from:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{BAND_HEIGHT}\">\
                 <title>{}: {}</title></rect>\n",
                verdict.class(),
                to - from,
                escape(&tip_name(tip)),
                verdict.label(),
            )
        })
        .collect();
    format!(
        "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">verdict</text>\n{segments}",
        LEFT - 8.0,
        top + BAND_HEIGHT - 3.0,
    )
}

/// A grid line at every labelled tip from `TOP` to `bottom`, its date under `bottom`; a
/// label near an edge ends (or starts) at its tip, so it is not cut.
fn axis_marks(tips: &[&ReplayedTip], axis: &Tips, bottom: f64) -> String {
    let span = match (tips.first(), tips.last()) {
        (Some(oldest), Some(newest)) => newest.time - oldest.time,
        _ => 0,
    };
    let by_minute = span < DATE_LABEL_SPAN;
    axis.labelled()
        .into_iter()
        .filter_map(|i| Some((i, tips.get(i)?)))
        .map(|(i, tip)| {
            let x = axis.x(i);
            let anchor = if WIDTH - x < LABEL_ROOM {
                "end"
            } else if x < LABEL_ROOM {
                "start"
            } else {
                "middle"
            };
            format!(
                "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{bottom}\"/>\
                 <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" data-tip=\"{i}\">{}</text>\n",
                bottom + 18.0,
                escape(&date_label(&tip.date, by_minute))
            )
        })
        .collect()
}

fn findings_section(tips: &[&ReplayedTip], axis: &Tips) -> String {
    let codes: BTreeSet<&'static str> = tips
        .iter()
        .flat_map(|tip| tip.tally.findings.keys().copied())
        .collect();
    if codes.is_empty() {
        return "<section id=\"findings\">\n<h2>Findings by code</h2>\n\
                <p class=\"none\">No tip has a finding.</p>\n</section>\n"
            .to_owned();
    }
    let bottom = TOP + PLOT_HEIGHT;
    let max = tips
        .iter()
        .flat_map(|tip| tip.tally.findings.values().copied())
        .max()
        .unwrap_or(0);
    let counts = Counts::up_to(max);
    let legend: String = codes
        .iter()
        .enumerate()
        .map(|(i, code)| {
            format!(
                "<span class=\"swatch key {}\"></span>{}",
                series_class(i),
                escape(code)
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let lines: String = codes
        .iter()
        .enumerate()
        .map(|(i, code)| code_line(tips, axis, &counts, (i, code)))
        .collect();
    format!(
        "<section id=\"findings\">\n<h2>Findings by code</h2>\n\
         <p class=\"legend\">{legend} · findings per tip</p>\n\
         {}{}{}{}{lines}<line class=\"axis\" x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\"/>\n</svg>\n</section>\n",
        svg_open(
            "findings-chart",
            bottom + AXIS_ROOM,
            "Findings by code per tip, the tips in order"
        ),
        counts.marks(bottom),
        axis_marks(tips, axis, bottom),
        error_marks(tips, axis, bottom),
        WIDTH - RIGHT,
    )
}

/// `s3`, or `s3 dashed` once the colours repeat.
fn series_class(index: usize) -> String {
    let dashed = if index >= SERIES_COLOURS {
        " dashed"
    } else {
        ""
    };
    format!("s{}{dashed}", index % SERIES_COLOURS)
}

/// The line of code number `index` (a tip without it counts 0), a dot on every tip.
fn code_line(
    tips: &[&ReplayedTip],
    axis: &Tips,
    counts: &Counts,
    (index, code): (usize, &str),
) -> String {
    let bottom = TOP + PLOT_HEIGHT;
    let class = series_class(index);
    let at = |tip: &ReplayedTip| tip.tally.findings.get(code).copied().unwrap_or(0);
    let points: Vec<(f64, f64)> = tips
        .iter()
        .enumerate()
        .map(|(i, tip)| (axis.x(i), counts.y(at(tip), bottom)))
        .collect();
    let dots: String = tips
        .iter()
        .zip(&points)
        .map(|(tip, (x, y))| {
            format!(
                "<circle class=\"dot-code {class}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\">\
                 <title>{}: {} {}</title></circle>",
                escape(&tip_name(tip)),
                at(tip),
                escape(code),
            )
        })
        .collect();
    format!(
        "<g class=\"code\" data-code=\"{}\"><polyline class=\"series {class}\" points=\"{}\"/>{dots}</g>\n",
        escape(code),
        polyline_points(&points),
    )
}

fn tips_table(tips: &[&ReplayedTip], verdicts: &[Verdict]) -> String {
    let rows: String = tips
        .iter()
        .zip(verdicts)
        .map(|(tip, verdict)| tip_row(tip, *verdict))
        .collect();
    format!(
        "<section id=\"tips\">\n<h2>Tips</h2>\n<table class=\"tips\"><thead><tr><th>tip</th><th>date</th>\
         <th class=\"num\">nodes</th><th class=\"num\">debt</th><th>verdict</th><th>findings</th>\
         <th>error</th></tr></thead>\n<tbody>\n{rows}</tbody></table>\n</section>\n"
    )
}

fn tip_row(tip: &ReplayedTip, verdict: Verdict) -> String {
    let findings: Vec<String> = tip
        .tally
        .findings
        .iter()
        .map(|(code, n)| format!("{code} {n}"))
        .collect();
    let (class, verdict) = match verdict {
        Verdict::Blocked => ("blocked", verdict.label()),
        Verdict::Ok => ("clean", verdict.label()),
        Verdict::NoSpecYet | Verdict::NoSpec => ("nospec", verdict.label()),
    };
    let (refused, error) = match &tip.error {
        Some(error) => (
            " class=\"refused\"",
            format!("<td class=\"error-text\">{}</td>", escape(error)),
        ),
        None => ("", "<td>—</td>".to_owned()),
    };
    format!(
        "<tr id=\"tip-{id}\"{refused}><td><code title=\"{id}\">{}</code></td><td class=\"date\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td><span class=\"badge {class}\">{verdict}</span></td>\
         <td class=\"findings\">{}</td>{error}</tr>\n",
        escape(short(&tip.tip)),
        escape(&tip.date),
        tip.tally.nodes,
        tip.tally.debt,
        escape(&or_dash(findings.join(", "))),
        id = escape(&tip.tip),
    )
}

/// The page's own styles, after the report's shared ones.
const STYLE: &str = r#"svg.replay{background:var(--card);border:1px solid var(--line);border-radius:8px;margin-top:8px}
.debt-line{fill:none;stroke:var(--accent);stroke-width:2;stroke-linejoin:round}
.dot-debt{fill:var(--accent);stroke:#fff;stroke-width:1.5}
.dot-debt.refused{fill:#fff;stroke:var(--blocked);stroke-width:2.5}
.error-mark{stroke:var(--blocked);stroke-width:1.5;stroke-dasharray:4 3}
.band{shape-rendering:crispEdges}
.band.blocked{fill:var(--blocked)}
.band.ok{fill:var(--clean)}
.band.nospec{fill:#c9ced8}
.dot-debt.nospec{fill:#fff;stroke:var(--muted);stroke-width:2}
.badge.nospec{background:#8a93a5}
.legend .swatch.band-nospec{background:#c9ced8;border-radius:2px}
.legend .swatch.debt{background:var(--accent)}
.legend .swatch.band-blocked{background:var(--blocked);border-radius:2px}
.legend .swatch.band-ok{background:var(--clean);border-radius:2px}
.legend .swatch.refused{background:#fff;border:2px solid var(--blocked)}
.series{fill:none;stroke:var(--c);stroke-width:2;stroke-linejoin:round}
.series.dashed{stroke-dasharray:6 3}
.dot-code{fill:var(--c)}
.legend .swatch.key{background:var(--c)}
.legend .swatch.key.dashed{background:none;border:2px dashed var(--c)}
.s0{--c:#3b63d1}.s1{--c:#e07b00}.s2{--c:#138a8a}.s3{--c:#8e44ad}.s4{--c:#c2185b}
.s5{--c:#7a8b1f}.s6{--c:#8d5a2b}.s7{--c:#56657e}.s8{--c:#0891b2}.s9{--c:#2e7d32}
table.tips{margin-top:4px}
td.findings{min-width:16em}
.num{text-align:right;font-variant-numeric:tabular-nums}
tr.refused td{background:#fdf0f0}
tr:target td{background:#fff6d6}
.error-text{color:var(--blocked)}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// 2026-01-15 10:30 (UTC).
    const T0: i64 = 1_768_473_000;

    fn tip(id: char, minutes: i64, debt: usize, findings: &[(&'static str, usize)]) -> ReplayedTip {
        let time = T0 + 60 * minutes;
        ReplayedTip {
            tip: id.to_string().repeat(40),
            time,
            date: keel_engine::sessions::Instant::from_secs(time).to_rfc3339(),
            tally: TipTally {
                nodes: 3,
                findings: findings.iter().copied().collect::<BTreeMap<_, _>>(),
                debt,
                blocked: debt > 0,
            },
            error: None,
        }
    }

    /// The part of `html` from `start` up to the next `end` after it.
    fn between<'h>(html: &'h str, start: &str, end: &str) -> &'h str {
        let from = html.find(start).unwrap_or_else(|| panic!("no {start:?}"));
        let rest = &html[from..];
        &rest[..rest.find(end).map_or(rest.len(), |to| to + end.len())]
    }

    /// The `points` of the first polyline of class `class`, as numbers.
    fn points(html: &str, class: &str) -> Vec<(f64, f64)> {
        let line = between(
            html,
            &format!("<polyline class=\"{class}\" points=\""),
            "\"/>",
        );
        line.split('"')
            .nth(3)
            .expect("the points")
            .split(' ')
            .map(|pair| {
                let (x, y) = pair.split_once(',').expect("x,y");
                (x.parse().expect("x"), y.parse().expect("y"))
            })
            .collect()
    }

    #[test]
    fn an_evil_code_and_error_come_out_escaped() {
        let evil = "<script>alert(1)</script>";
        let mut refused = tip('b', 1, 0, &[]);
        refused.tally.blocked = true;
        refused.error = Some(format!(".spec/{evil}/spec.md: \"bad\" & <b>worse</b>"));
        let html = page(
            "<repo>",
            &[tip('a', 0, 2, &[(evil, 1), ("anchor-hit", 2)]), refused],
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
        assert!(html.contains(&format!("data-code=\"{escaped}\"")), "{html}");
        assert!(
            html.contains(&format!("</span>{escaped}")),
            "the legend: {html}"
        );
        assert!(
            html.contains(&format!(
                "<td class=\"error-text\">.spec/{escaped}/spec.md: &quot;bad&quot; &amp; &lt;b&gt;worse&lt;/b&gt;</td>"
            )),
            "{html}"
        );
        assert!(html.contains("<h1>keel replay <span class=\"repo\">&lt;repo&gt;</span>"));
        // The refused tip is marked on both charts and in the table.
        assert_eq!(
            html.matches("<line class=\"error-mark\"").count(),
            2,
            "{html}"
        );
        assert!(
            html.contains("<circle class=\"dot-debt refused\""),
            "{html}"
        );
        assert!(html.contains(&format!(
            "<tr id=\"tip-{}\" class=\"refused\">",
            "b".repeat(40)
        )));
    }

    #[test]
    fn an_empty_replay_says_so_and_draws_nothing() {
        let html = page("repo", &[]);
        assert!(html.contains("No tip was replayed"), "{html}");
        assert!(
            html.contains("<p class=\"meta\">0 tips · 0 blocked · 0 tips with an error</p>"),
            "{html}"
        );
        assert!(!html.contains("<svg"), "{html}");
        assert!(!html.contains("<table"), "{html}");
        assert!(html.ends_with("</html>\n"), "{html}");
    }

    #[test]
    fn the_debt_line_has_one_point_per_tip_in_date_order() {
        // Replayed out of date order: the page sorts by committer time.
        let tips = [
            tip('a', 0, 0, &[]),
            tip('c', 20, 4, &[("anchor-hit", 2), ("code-drift", 1)]),
            tip('b', 10, 2, &[("anchor-hit", 1)]),
        ];
        let html = page("repo", &tips);
        let debt = points(&html, "debt-line");
        assert_eq!(debt.len(), tips.len(), "{html}");
        assert!(
            debt.windows(2).all(|w| w[0].0 < w[1].0),
            "left to right: {debt:?}"
        );
        let ys: Vec<f64> = debt.iter().map(|(_, y)| *y).collect();
        assert!(
            ys[0] > ys[1] && ys[1] > ys[2],
            "debt 0, 2, 4 climbs: {ys:?}"
        );
        assert_eq!(html.matches("<circle class=\"dot-debt\"").count(), 3);
        assert_eq!(html.matches("<rect class=\"band ").count(), 3);
        // One line per code; a tip without a code counts 0 on its line.
        assert_eq!(html.matches("<polyline class=\"series ").count(), 2);
        assert_eq!(points(&html, "series s1").len(), 3, "code-drift: {html}");
        assert_eq!(html.matches("<tr id=\"tip-").count(), 3);
        let rows = between(&html, "<tbody>", "</tbody>");
        let at = |id: char| rows.find(&format!("tip-{}", id.to_string().repeat(40)));
        assert!(at('a') < at('b') && at('b') < at('c'), "{rows}");
        assert_eq!(page("repo", &tips), html, "the same bytes every time");
    }

    #[test]
    fn the_page_loads_nothing_and_names_no_url() {
        let html = page("repo", &[tip('a', 0, 1, &[("anchor-hit", 1)])]);
        for outside in [
            "://", " src=", "<link", "url(", "@import", "<img", "<iframe", "<script",
        ] {
            assert!(!html.contains(outside), "{outside}: {html}");
        }
        assert!(html.starts_with("<!DOCTYPE html>\n"), "{html}");
    }

    #[test]
    fn many_tips_carry_at_most_eight_labels_from_the_oldest_to_the_newest() {
        let labelled = |count| Tips { count }.labelled();
        assert_eq!(labelled(0), Vec::<usize>::new());
        assert_eq!(labelled(1), [0]);
        assert_eq!(labelled(5), [0, 1, 2, 3, 4]);
        // 99 gaps of 848 / 99 ≈ 8.6 units, labelled every 15: 0, 15, …, 90; 99 is 9 gaps
        // (77 units) after 90, too close, so it takes 90's label.
        assert_eq!(labelled(100), [0, 15, 30, 45, 60, 75, 99]);
        // 9 gaps of 848 / 9 ≈ 94 units, labelled every 2; 9 is one gap after 8: room.
        assert_eq!(labelled(10), [0, 2, 4, 6, 8, 9]);
        let one = Tips { count: 1 };
        assert!((one.x(0) - (LEFT + WIDTH - RIGHT) / 2.0).abs() < 0.01);
        assert_eq!(date_label("2026-01-15T10:30:00Z", false), "2026-01-15");
        assert_eq!(date_label("2026-01-15T10:30:00Z", true), "01-15 10:30");
    }

    #[test]
    fn tips_with_no_node_are_no_spec_yet_until_a_spec_then_no_spec() {
        let mut bare = tip('a', 0, 0, &[]);
        bare.tally.nodes = 0;
        let mut again = tip('c', 2, 0, &[]);
        again.tally.nodes = 0;
        let tips = [bare, tip('b', 1, 0, &[]), again];
        let tips: Vec<&ReplayedTip> = tips.iter().collect();
        assert_eq!(
            Verdict::of(&tips),
            [Verdict::NoSpecYet, Verdict::Ok, Verdict::NoSpec]
        );
    }

    #[test]
    fn a_count_axis_steps_by_one_two_or_five() {
        let steps = |max| {
            let counts = Counts::up_to(max);
            (counts.top, counts.step)
        };
        assert_eq!(steps(0), (1, 1));
        assert_eq!(steps(3), (3, 1));
        assert_eq!(steps(7), (8, 2));
        assert_eq!(steps(201), (250, 50));
        assert_eq!(
            steps(usize::MAX).0,
            usize::MAX,
            "saturates, never overflows"
        );
    }
}
