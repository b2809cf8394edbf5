//! `keel sessions usage --format text`: the report as a table that fits an 80-column
//! terminal, whatever the names and numbers.
//!
//! Owns: the layout — one line per group, its models on indented lines beneath it (not
//! when the groups are models), the total, and a note for unknown costs and pending
//! commits; token counts in short form (`12.3k`, `4.5M`: exact below 10,000, else one
//! decimal of the unit), costs in dollars and cents (`<$0.01` for less than a cent, never
//! `$0.00` for a cost that is not 0; `unknown` for a cost keel cannot price). A name too
//! long for its column is printed on a line of its own (wrapped, if longer than a line),
//! its numbers on the next: the numbers never move right. The title puts the dates on a
//! line of their own when a long zone name leaves no room. JSON (`keel.sessions.usage.v1`) keeps every number exact.
//! Does not own: the grouping or any number (`keel_queries::sessions::usage`).

use keel_queries::sessions::exact::Exact;
use keel_queries::sessions::usage::{UsageBy, UsageNumbers, UsageReport, UsageRow};

/// The width every line keeps within.
pub(crate) const WIDTH: usize = 80;

/// The numeric columns' headers.
const HEADERS: [&str; 8] = [
    "input", "output", "cache w", "cache r", "total", "cost", "kept", "reverted",
];

/// The units of the short form, each 1000 times the one before.
const UNITS: [&str; 6] = ["k", "M", "B", "T", "P", "E"];

/// A token count in at most 6 characters: exact below 10,000, else one decimal of the
/// largest unit that keeps it below 1000 (rounded half up).
pub(crate) fn tokens(count: u64) -> String {
    if count < 10_000 {
        return count.to_string();
    }
    let mut unit: u128 = 1;
    for name in UNITS {
        unit *= 1000;
        let tenths = (u128::from(count) * 10 + unit / 2) / unit;
        if tenths < 10_000 {
            return format!("{}.{}{name}", tenths / 10, tenths % 10);
        }
    }
    // u64 stops at 18.4E, below 1000E: the loop always returns.
    count.to_string()
}

/// A cost in dollars and cents (half to even), `<$0.01` when it is positive but rounds
/// to 0, `unknown` when keel could not price it.
pub(crate) fn dollars(cost: Option<&Exact>) -> String {
    let Some(cost) = cost else {
        return "unknown".to_owned();
    };
    let cents = cost.to_decimal(2);
    let text = cents.as_str();
    if text == "0" && *cost > Exact::zero() {
        return "<$0.01".to_owned();
    }
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    format!("${whole}.{fraction:0<2}")
}

/// One line of the table: its name and its numeric cells (empty for none).
struct Line {
    name: String,
    cells: [String; 8],
}

fn numbers(usage: &UsageNumbers) -> [String; 6] {
    [
        tokens(usage.tokens.input),
        tokens(usage.tokens.output),
        tokens(usage.cache_creation()),
        tokens(usage.tokens.cache_read),
        tokens(usage.total_tokens()),
        dollars(usage.cost.as_ref()),
    ]
}

fn row_line(name: String, row: &UsageRow) -> Line {
    let [input, output, write, read, total, cost] = numbers(&row.usage);
    Line {
        name,
        cells: [
            input,
            output,
            write,
            read,
            total,
            cost,
            row.commits_kept.to_string(),
            row.commits_reverted.to_string(),
        ],
    }
}

/// The header of the name column.
fn name_header(by: UsageBy) -> &'static str {
    match by {
        UsageBy::Day => "day",
        UsageBy::Week => "week of",
        UsageBy::Month => "month",
        UsageBy::Session => "session",
        UsageBy::Model => "model",
        UsageBy::Repo => "repo",
        UsageBy::Harness => "harness",
    }
}

/// The lines, laid out: the name column as wide as its longest name, but no wider than
/// the numbers leave of [`WIDTH`]; a longer name stands on a line of its own.
fn layout(header: &str, lines: &[Line]) -> String {
    let mut widths: Vec<usize> = HEADERS.iter().map(|h| h.chars().count()).collect();
    for line in lines {
        for (width, cell) in widths.iter_mut().zip(&line.cells) {
            *width = (*width).max(cell.chars().count());
        }
    }
    // Two spaces of indent, then the name, then each number two spaces after the last.
    let numbers: usize = widths.iter().map(|w| w + 2).sum();
    let room = WIDTH
        .saturating_sub(2 + numbers)
        .max(header.chars().count());
    let longest = lines
        .iter()
        .map(|line| line.name.chars().count())
        .max()
        .unwrap_or(0);
    let name_width = longest.max(header.chars().count()).min(room);
    let render = |name: &str, cells: &[String]| {
        let mut out = format!("  {name:<name_width$}");
        for (cell, width) in cells.iter().zip(&widths) {
            out.push_str(&format!("  {cell:>width$}"));
        }
        format!("{}\n", out.trim_end())
    };
    let header_cells: Vec<String> = HEADERS.iter().map(|h| (*h).to_owned()).collect();
    let mut out = render(header, &header_cells);
    for line in lines {
        if line.name.chars().count() > name_width {
            for part in wrapped(&line.name, WIDTH - 2) {
                out.push_str(&format!("  {part}\n"));
            }
            out.push_str(&render("", &line.cells));
        } else {
            out.push_str(&render(&line.name, &line.cells));
        }
    }
    out
}

/// `text` cut into pieces of at most `width` characters (a name longer than a line).
fn wrapped(text: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(width.max(1))
        .map(|piece| piece.iter().collect())
        .collect()
}

/// The readable report.
pub(crate) fn text(report: &UsageReport) -> String {
    let mut out = format!(
        "keel sessions usage by {} ({})",
        report.by.name(),
        report.zone
    );
    let range = match (&report.since, &report.until) {
        (Some(since), Some(until)) => format!("{since} through {until}"),
        (Some(since), None) => format!("from {since}"),
        (None, Some(until)) => format!("through {until}"),
        (None, None) => String::new(),
    };
    if range.is_empty() {
        out.push('\n');
    } else if out.chars().count() + 2 + range.chars().count() <= WIDTH {
        out.push_str(&format!(", {range}\n"));
    } else {
        out.push_str(&format!(",\n  {range}\n"));
    }
    if report.rows.is_empty() {
        out.push_str("no API call or linked commit in range\n");
        return out;
    }
    let mut lines = Vec::new();
    for row in &report.rows {
        lines.push(row_line(row.key.clone(), row));
        if report.by == UsageBy::Model {
            continue;
        }
        for model in &row.models {
            let [input, output, write, read, total, cost] = numbers(&model.usage);
            lines.push(Line {
                name: format!("  {}", model.model),
                cells: [
                    input,
                    output,
                    write,
                    read,
                    total,
                    cost,
                    String::new(),
                    String::new(),
                ],
            });
        }
    }
    lines.push(row_line("total".to_owned(), &report.total));
    out.push_str(&layout(name_header(report.by), &lines));
    let total = &report.total;
    if total.usage.unpriced_calls > 0 {
        out.push_str(&format!(
            "unknown cost: {} call(s) of a model keel cannot price (see the warnings);\n  never counted as 0\n",
            total.usage.unpriced_calls
        ));
    }
    if total.commits_pending > 0 {
        out.push_str(&format!(
            "pending: {} commit(s) of window links wait for a decision (--decisions);\n  counted as neither kept nor reverted\n",
            total.commits_pending
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_engine::agents::Tokens;
    use keel_queries::sessions::usage::ModelUsage;

    #[test]
    fn token_counts_are_short_and_round_half_up_into_the_next_unit() {
        let cases = [
            (0, "0"),
            (9_999, "9999"),
            (10_000, "10.0k"),
            (12_345, "12.3k"),
            (12_350, "12.4k"),
            (999_949, "999.9k"),
            (999_950, "1.0M"),
            (1_250_000, "1.3M"),
            (4_500_000_000, "4.5B"),
            (u64::MAX, "18.4E"),
        ];
        for (count, text) in cases {
            assert_eq!(tokens(count), text, "{count}");
        }
    }

    #[test]
    fn dollars_round_half_to_even_and_never_show_a_cost_as_zero() {
        let cost = |text: &str| dollars(Some(&Exact::decimal(text)));
        assert_eq!(cost("2.75"), "$2.75");
        assert_eq!(cost("2"), "$2.00");
        assert_eq!(cost("0.5"), "$0.50");
        assert_eq!(cost("0.125"), "$0.12");
        assert_eq!(cost("0.135"), "$0.14");
        assert_eq!(cost("0.004"), "<$0.01");
        assert_eq!(cost("0"), "$0.00");
        assert_eq!(dollars(None), "unknown");
    }

    fn numbers(scale: u64, cost: Option<&str>) -> UsageNumbers {
        UsageNumbers {
            tokens: Tokens {
                input: scale,
                output: scale,
                cache_write_5m: scale,
                cache_write_1h: scale,
                cache_read: scale,
            },
            api_calls: 1,
            cost: cost.map(Exact::decimal),
            unpriced_calls: u64::from(cost.is_none()),
        }
    }

    fn row(key: &str, scale: u64, models: &[&str]) -> UsageRow {
        UsageRow {
            key: key.to_owned(),
            usage: numbers(scale, Some("123456.789")),
            commits_kept: 12_345,
            commits_reverted: 6_789,
            commits_pending: 0,
            models: models
                .iter()
                .map(|m| ModelUsage {
                    model: (*m).to_owned(),
                    usage: numbers(scale, None),
                })
                .collect(),
        }
    }

    #[test]
    fn every_line_fits_80_columns_with_long_names_and_huge_numbers() {
        // The widest cells there are: 6-character token counts (999.9k), a six-figure
        // cost, five-digit commit counts; names longer than the whole line.
        let long_model = "claude-sonnet-4-5-20250929-with-a-much-longer-gateway-suffix";
        let longer_than_a_line = "gateway/".repeat(12);
        let session = "0f6c1d6e-7a51-4d8e-9b0a-2b8f1c3d4e5f";
        for by in UsageBy::ALL {
            let report = UsageReport {
                by,
                zone: "America/Argentina/ComodRivadavia".to_owned(),
                since: Some("2026-01-01".to_owned()),
                until: Some("2026-12-31".to_owned()),
                rows: vec![
                    row(session, 999_949, &[long_model, "gpt-5"]),
                    row("2026-01-15", 999_949_999, &["claude-haiku-4-5"]),
                    row(&longer_than_a_line, 12_345, &[&longer_than_a_line]),
                ],
                total: row("total", u64::MAX / 5, &[long_model]),
            };
            let text = text(&report);
            let wide: Vec<&str> = text
                .lines()
                .filter(|line| line.chars().count() > WIDTH)
                .collect();
            assert!(wide.is_empty(), "{by:?}: lines over {WIDTH}:\n{text}");
            // Models are listed under each group, except when the groups are models.
            assert_eq!(
                text.contains(long_model),
                by != UsageBy::Model,
                "names are never cut:\n{text}"
            );
            let joined: String = text.lines().map(str::trim).collect();
            assert!(
                joined.contains(&longer_than_a_line),
                "only wrapped:\n{text}"
            );
            assert_eq!(text.contains("unknown"), by != UsageBy::Model, "{text}");
        }
    }
}
