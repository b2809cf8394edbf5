//! The frontmatter of `spec.md`: its lines between the `---` lines, its bounds (size and
//! nesting, checked before the YAML reader sees it), the YAML mapping, its keys (a case
//! variant or a one-edit near-miss of `code`/`related` is refused; any other key is
//! prose), and the items of its lists, each with its file line (a number, boolean or null
//! item is not a path).
//!
//! Owns: every refusal of the frontmatter's text and shape, each with its line and repair.
//! Does not own: what an item says (the entry grammar: `entries`) or the nesting
//! pre-scan's reading of YAML (`nesting`).

use super::nesting::Nesting;
use super::refusal::LineRefusal;
use keel_engine::message::edit_distance;
use serde_norway::{Mapping, Value};

/// The keys keel reads from the frontmatter.
const KEYS: [&str; 2] = ["code", "related"];

/// A UTF-8 byte order mark, which some editors write at the start of a file: not text.
pub(super) const BOM: char = '\u{feff}';

/// The most bytes a frontmatter may hold: its lines between the `---` lines, each line end
/// counted as one byte. 256 KiB, far beyond any real spec's lists of paths.
///
/// This bound and [`MAX_FRONTMATTER_DEPTH`] exist because the YAML reader's time grows with
/// the square of the nesting (a 200 KB frontmatter nesting 100,000 levels under a key keel
/// ignores took 85 s); a linear pre-scan refuses what passes them before the YAML reader
/// sees it, so any spec reads in milliseconds.
pub(super) const MAX_FRONTMATTER_BYTES: usize = 256 * 1024;

/// The deepest nesting a frontmatter may hold: 64 levels (a spec needs 2: the top-level
/// mapping and a list in it). Every collection counts: the top-level mapping, each flow
/// `[` or `{`, each block mapping or list (opened by indentation, or a list under a key at
/// the key's own column), and each compact `- ` or `? ` on one line (`- - - x` is three
/// lists). Brackets inside quoted strings, plain text, comments and `|`/`>` blocks do
/// not count. See [`MAX_FRONTMATTER_BYTES`] for why.
pub(super) const MAX_FRONTMATTER_DEPTH: usize = 64;

/// The file line of frontmatter line `index` (0-based; the frontmatter starts on line 2).
fn file_line(index: usize) -> u32 {
    u32::try_from(index).map_or(u32::MAX, |index| index.saturating_add(2))
}

/// The frontmatter's lines: those between the file's first line, `---`, and the next
/// `---` line.
pub(super) fn frontmatter_lines(text: &str) -> Result<Vec<&str>, LineRefusal> {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err((
            1,
            "spec.md does not start with a `---` frontmatter line".to_owned(),
            "open the file with a YAML frontmatter block between `---` lines".to_owned(),
        ));
    }
    let mut body = Vec::new();
    for line in lines {
        if line.trim_end() == "---" {
            return Ok(body);
        }
        body.push(line);
    }
    Err((
        1,
        "the frontmatter opened on line 1 is never closed".to_owned(),
        "end the frontmatter with a `---` line".to_owned(),
    ))
}

/// Refuses a frontmatter larger than [`MAX_FRONTMATTER_BYTES`], at the line that passes it.
pub(super) fn check_size(body: &[&str]) -> Result<(), LineRefusal> {
    let mut bytes = 0;
    for (index, line) in body.iter().enumerate() {
        bytes += line.len() + 1;
        if bytes > MAX_FRONTMATTER_BYTES {
            let line = file_line(index);
            return Err((
                line,
                format!(
                    "the frontmatter passes keel's bound of {} KiB ({MAX_FRONTMATTER_BYTES} bytes) on line {line}",
                    MAX_FRONTMATTER_BYTES / 1024
                ),
                "keep the frontmatter to `code:`, `related:` and short keys; move longer text below the closing `---`, where prose belongs".to_owned(),
            ));
        }
    }
    Ok(())
}

/// Refuses a frontmatter nesting deeper than [`MAX_FRONTMATTER_DEPTH`], at the line that
/// opens the level past it.
pub(super) fn check_depth(body: &[&str]) -> Result<(), LineRefusal> {
    let mut nesting = Nesting::default();
    for (index, text) in body.iter().enumerate() {
        if nesting.scan_line(text.as_bytes()) > MAX_FRONTMATTER_DEPTH {
            let line = file_line(index);
            return Err((
                line,
                format!(
                    "the frontmatter nests deeper than keel's bound of {MAX_FRONTMATTER_DEPTH} levels on line {line}"
                ),
                "keel reads `code:` and `related:` as lists of strings (2 levels): flatten the deeper data, or move it below the closing `---`, where prose belongs".to_owned(),
            ));
        }
    }
    Ok(())
}

/// The frontmatter read as YAML: a mapping (an empty frontmatter, or one holding only
/// comments or `null`, is an empty one).
pub(super) fn read_mapping(body: &[&str]) -> Result<Mapping, LineRefusal> {
    let yaml = body.join("\n");
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    let value: Value = serde_norway::from_str(&yaml).map_err(|err| {
        // The YAML reader's line 1 is the frontmatter's first line; an error at its end
        // is placed on its last line.
        let last = file_line(body.len().saturating_sub(1));
        let line = err
            .location()
            .map_or(1, |loc| file_line(loc.line().saturating_sub(1)).min(last));
        (
            line,
            format!("broken frontmatter: {}", file_relative(&err.to_string())),
            "make the frontmatter valid YAML where `code:` and `related:` are lists of strings"
                .to_owned(),
        )
    })?;
    match value {
        Value::Mapping(mapping) => Ok(mapping),
        Value::Null => Ok(Mapping::new()),
        other => Err((
            first_content_line(body),
            format!(
                "the frontmatter must be a mapping of keys (`code:`, `related:`), but it is {}",
                shape(&other)
            ),
            "write the frontmatter as `key:` lines: `code:`, then one `  - path` line per entry"
                .to_owned(),
        )),
    }
}

/// The file line of the frontmatter's first line that is neither blank nor a comment.
fn first_content_line(body: &[&str]) -> u32 {
    let content = |line: &&str| {
        let line = line.trim();
        !line.is_empty() && !line.starts_with('#')
    };
    file_line(body.iter().position(content).unwrap_or(0))
}

/// A YAML value's shape in words, for messages.
fn shape(value: &Value) -> String {
    match value {
        Value::Null => "empty".to_owned(),
        Value::Bool(value) => format!("the boolean {value}"),
        Value::Number(value) => format!("the number {value}"),
        Value::String(_) => "a string".to_owned(),
        Value::Sequence(_) => "a list".to_owned(),
        Value::Mapping(_) => "a mapping".to_owned(),
        Value::Tagged(tagged) => format!("a value tagged `{}`", tagged.tag),
    }
}

/// The repair of a `key:` that is not a list of strings.
fn list_repair(key: &str) -> String {
    format!("write one entry per line under `{key}:`, each as `  - path` or `  - path#selector`")
}

/// The items of the list under `key`, each with its file line. YAML reads `42`, `true`
/// and `null` as a number, a boolean and no value: such an item is refused as not a path
/// (quoted, it is one), never read as the path its digits spell.
pub(super) fn string_items(
    body: &[&str],
    key: &str,
    value: Option<&Value>,
) -> Result<Vec<(String, u32)>, LineRefusal> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Sequence(items)) => items,
        Some(other) => {
            return Err((
                key_line(body, key),
                format!(
                    "`{key}:` must be a list of strings, but it is {}",
                    shape(other)
                ),
                list_repair(key),
            ));
        }
    };
    let mut lines = ItemLines::new(body, key);
    items
        .iter()
        .map(|item| {
            let index = lines.next(item);
            let line = file_line(index);
            match item {
                Value::String(text) => Ok((text.clone(), line)),
                Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => Err((
                    line,
                    format!(
                        "`{key}:` must be a list of strings, but its item on line {line} is {}",
                        shape(item)
                    ),
                    list_repair(key),
                )),
                scalar => {
                    let written = body
                        .get(index)
                        .and_then(|text| block_item(text))
                        .filter(|text| spells(text, scalar));
                    Err(not_a_path(key, line, scalar, written))
                }
            }
        })
        .collect()
}

/// The refusal of a list item YAML reads as a number, a boolean or null, written
/// `written` (when its line shows it).
fn not_a_path(key: &str, line: u32, item: &Value, written: Option<&str>) -> LineRefusal {
    if written == Some("") {
        return (
            line,
            format!("`{key}:` item on line {line} is empty, not a path"),
            "write a path after the `-`, or remove the item".to_owned(),
        );
    }
    let text = written.map_or_else(|| scalar_text(item), str::to_owned);
    let what = match item {
        Value::Number(_) => format!("the number {text}"),
        Value::Bool(_) => format!("the boolean {text}"),
        _ => format!("`{text}`, which YAML reads as no value"),
    };
    (
        line,
        format!("`{key}:` item on line {line} is {what}, not a path"),
        format!("quote it (`- \"{text}\"`) if it is a file named {text}, or remove it"),
    )
}

/// A scalar's text as YAML writes it (`42`, `true`, `null`).
fn scalar_text(item: &Value) -> String {
    match item {
        Value::Bool(value) => value.to_string(),
        Value::Number(value) => value.to_string(),
        Value::String(value) => value.clone(),
        _ => "null".to_owned(),
    }
}

/// Refuses a top-level key that reads as a typo of `code` or `related`: a case variant
/// (`Code`), or any key one edit away (an insertion, deletion, substitution or swap of two
/// neighbours, compared case-insensitively: `codes`, `cdoe`, `relate`). Such a key would
/// otherwise be prose and its entries silently unjudged. Every other key stays prose.
pub(super) fn check_keys(body: &[&str], mapping: &Mapping) -> Result<(), LineRefusal> {
    for key in mapping.keys() {
        let Value::String(key) = key else {
            continue;
        };
        if KEYS.contains(&key.as_str()) {
            continue;
        }
        let lower = key.to_lowercase();
        let Some(meant) = KEYS
            .iter()
            .find(|k| lower == **k || edit_distance(&lower, k) <= 1)
        else {
            continue;
        };
        let kind = if lower == *meant {
            "a case variant"
        } else {
            "a near-miss"
        };
        return Err((
            key_line(body, key),
            format!(
                "frontmatter key `{key}` is {kind} of `{meant}`; keel reads only `code:` and `related:`"
            ),
            format!(
                "write `{meant}:` (lower case); if `{key}` is not meant as `{meant}`, rename it so it is not one edit from `code` or `related`"
            ),
        ));
    }
    Ok(())
}

/// The file line of a top-level key (`key:` or a quoted `"key":` at the start of a line);
/// the first line holding the key, else the frontmatter's first line.
fn key_line(body: &[&str], key: &str) -> u32 {
    let declares = |line: &str| {
        let (quote, rest) = match line.strip_prefix(['"', '\'']) {
            Some(rest) => (&line[..1], rest),
            None => ("", line),
        };
        rest.strip_prefix(key)
            .and_then(|rest| rest.strip_prefix(quote))
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    };
    let index = body
        .iter()
        .position(|line| declares(line))
        .or_else(|| body.iter().position(|line| line.contains(key)))
        .unwrap_or(0);
    file_line(index)
}

/// The frontmatter line (0-based) of each item of one list, in order. A block item
/// (`- item`, optionally quoted) is looked for on the lines after the previous item's; a
/// flow item (`[a, b]`) on the same line or later; the key's line is the fallback.
struct ItemLines<'a> {
    body: &'a [&'a str],
    key_index: usize,
    cursor: usize,
}

impl<'a> ItemLines<'a> {
    fn new(body: &'a [&'a str], key: &str) -> Self {
        let key_prefix = format!("{key}:");
        let key_index = body
            .iter()
            .position(|l| l.starts_with(&key_prefix))
            .unwrap_or(0);
        Self {
            body,
            key_index,
            cursor: key_index,
        }
    }

    fn next(&mut self, item: &Value) -> usize {
        let block = self
            .body
            .iter()
            .enumerate()
            .skip(self.cursor + 1)
            .find(|(_, line)| block_item(line).is_some_and(|text| spells(text, item)))
            .map(|(index, _)| index);
        let flow = || {
            let needle = match item {
                Value::String(text) => text.trim().to_owned(),
                Value::Bool(_) | Value::Number(_) => scalar_text(item),
                _ => return None,
            };
            self.body
                .iter()
                .enumerate()
                .skip(self.cursor)
                .find(|(_, line)| line.contains(needle.as_str()))
                .map(|(index, _)| index)
        };
        let index = block.or_else(flow).unwrap_or(self.key_index);
        self.cursor = index;
        index
    }
}

/// The text of a YAML block-sequence item line (`  - "text"` → `text`), without a
/// trailing comment (`  - a.py  # why` → `a.py`: else every item after it is looked for
/// to the frontmatter's end, quadratic in a long list).
fn block_item(line: &str) -> Option<&str> {
    let text = line.trim().strip_prefix('-')?.trim();
    if let Some(quote) = text.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        let inner = &text[1..];
        return Some(inner.find(quote).map_or(inner, |end| &inner[..end]));
    }
    let comment = text.find(" #").or_else(|| text.find("\t#"));
    Some(text[..comment.unwrap_or(text.len())].trim_end())
}

/// Whether a block item's text spells `item` as YAML reads it: a string as written, `42`
/// the number 42, `~` null; an empty item may open a list or mapping on the next lines.
fn spells(text: &str, item: &Value) -> bool {
    match item {
        Value::String(value) => text == value.trim(),
        Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) if text.is_empty() => true,
        _ => serde_norway::from_str::<Value>(text).is_ok_and(|value| value == *item),
    }
}

/// A YAML error's message with its frontmatter-relative `line N` numbers shifted to
/// file lines (the frontmatter starts after line 1).
fn file_relative(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        let (head, tail) = rest.split_at(at + "line ".len());
        out.push_str(head);
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        match digits.parse::<u32>() {
            Ok(n) => out.push_str(&(n + 1).to_string()),
            Err(_) => out.push_str(&digits),
        }
        rest = &tail[digits.len()..];
    }
    out.push_str(rest);
    out
}
