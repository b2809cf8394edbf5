//! Hits over time: one row per node with a dot per hit commit at its committer date, on
//! a time axis ([`Axis`], [`tick_marks`]). (The replay page draws its tips in order
//! instead, one step per tip: `replay_html`.)
//!
//! Owns: the dots (one per commit and node, of the worst severity among the node's
//! findings it is in), the timeline's geometry, and the time axis: its span, its steps
//! and the labels of its ticks.
//! Does not own: how a node stands (`drift_board`) or the page around it (`html`).

use super::drift_board::{NodeView, severity_name};
use super::{escape, minute, rfc3339, short, shorten};
use crate::render::counted;
use keel_queries::lint::Severity;
use std::collections::BTreeMap;

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

/// The time axis: `[start, end]` in seconds mapped onto `[left, right]` of a plot.
struct Axis {
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
    fn spanning(
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

    fn x(&self, time: i64) -> f64 {
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

pub(super) fn timeline(nodes: &[NodeView<'_>], times: &BTreeMap<String, i64>) -> String {
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
fn tick_marks(axis: &Axis, width: f64, top: f64, bottom: f64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
