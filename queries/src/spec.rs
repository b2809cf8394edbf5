//! Spec nodes: `.spec/<node-id>/spec.md` frontmatter, read strictly.
//!
//! Owns: the frontmatter's bounds (its size and nesting, checked by a linear pre-scan
//! before the YAML reader sees it: `MAX_FRONTMATTER_BYTES`, `MAX_FRONTMATTER_DEPTH`)
//! and shape (a mapping whose `code:`/`related:` are lists of strings; a number, boolean
//! or null item is not a path), the entry grammar (`path`, `folder/`, `glob/*`,
//! `path#sel1,sel2`) and path normalization (`src/../a.py` is `a.py`), the
//! `code:`/`related:` relations, the frontmatter keys (a case variant or a one-edit
//! near-miss of `code`/`related` is refused; any other key is prose), how a glob entry
//! compiles ([`compile_glob`]), and every loud refusal the seed names — each a
//! [`SpecError`] naming file, line and repair. A UTF-8 byte order mark before the
//! frontmatter is skipped.
//! Does not own: judging entries against a tree (`lint` sees the tree: a path that exists
//! literally at the tip is a path even when it holds `*`, `?` or `[`; a selector on a
//! folder or on a glob, and a glob that does not compile, are refused there), nor
//! selector syntax and resolution (`anchors`, which also reads a Python file's selector
//! names as Python reads identifiers).

use crate::anchors::Selector;
use keel_engine::message::{edit_distance, line_of_offset, one_line};
use keel_engine::refusal::{Refusal, RefusalCode};
use serde_norway::{Mapping, Value};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// The folder holding spec nodes.
pub const SPEC_ROOT: &str = ".spec";
/// The file name of a node.
pub const SPEC_FILE: &str = "spec.md";

/// A node id: the folder path under `.spec/`, e.g. `auth/login`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub String);

impl NodeId {
    /// The node's `spec.md` path in the repository.
    pub fn spec_path(&self) -> String {
        format!("{SPEC_ROOT}/{}/{SPEC_FILE}", self.0)
    }

    /// The node id of a repository path, if it is a node's `spec.md`.
    pub fn from_spec_path(path: &str) -> Option<Self> {
        let inner = path.strip_prefix(SPEC_ROOT)?.strip_prefix('/')?;
        let folder = inner.strip_suffix(SPEC_FILE)?.strip_suffix('/')?;
        (!folder.is_empty()).then(|| Self(folder.to_owned()))
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which list an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// `code:` — governed: hits block, changes drift.
    Code,
    /// `related:` — never blocks: a selector hit is a soft warning, a miss is silent.
    Related,
}

/// What an entry points at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A bare path: the whole file, advisory drift. (It may turn out to be a folder at the
    /// tip; lint decides.)
    Path(String),
    /// A bare entry with `*`, `?` or `[` in its path: a glob (advisory drift for every
    /// match; one ending in `/` covers every file under the folders it matches), unless
    /// the path exists literally at the tip — then lint judges it as a path or folder.
    Glob(String),
    /// A bare folder written with a trailing `/`.
    Folder(String),
    /// `path#sel,...`: named units of one file, OR-ed. The path may hold `*`, `?` or `[`
    /// (`app/[slug]/page.tsx`) only if it exists literally at the tip; lint refuses it
    /// otherwise.
    Scoped {
        path: String,
        selectors: Vec<Selector>,
    },
}

impl Target {
    /// The repository path or pattern the entry names.
    pub fn path(&self) -> &str {
        match self {
            Self::Path(p) | Self::Glob(p) | Self::Folder(p) | Self::Scoped { path: p, .. } => p,
        }
    }
}

/// One entry of a node, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry {
    pub relation: Relation,
    pub target: Target,
    /// The text as written.
    pub raw: String,
    /// 1-based line in `spec.md`.
    pub line: u32,
}

/// One parsed spec node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpecNode {
    pub id: NodeId,
    /// Entries in declaration order: all of `code:`, then all of `related:`.
    pub entries: Vec<Entry>,
}

/// A spec that keel refuses to read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpecError {
    /// The repository path at fault (`.spec/<node>/spec.md`, or `.spec` itself, a node
    /// folder, ...).
    pub file: String,
    /// 1-based line in `file`; `None` when the fault is what the path is (a folder where a
    /// file belongs, a symbolic link), not a line in it.
    pub line: Option<u32>,
    pub message: String,
    pub repair: String,
}

/// A spec refusal reads as the [`Refusal`] it converts into.
impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Refusal::from(self))
    }
}

impl From<&SpecError> for Refusal {
    fn from(err: &SpecError) -> Self {
        let file = one_line(&err.file);
        let location = match err.line {
            Some(line) => format!("{file}:{line}"),
            None => file.into_owned(),
        };
        Refusal::new(
            RefusalCode::Spec,
            location,
            None,
            err.message.as_str(),
            one_line(&err.repair),
        )
    }
}

/// The keys keel reads from the frontmatter.
const KEYS: [&str; 2] = ["code", "related"];

/// A UTF-8 byte order mark, which some editors write at the start of a file: not text.
const BOM: char = '\u{feff}';

/// The most bytes a frontmatter may hold: its lines between the `---` lines, each line end
/// counted as one byte. 256 KiB, far beyond any real spec's lists of paths.
///
/// This bound and [`MAX_FRONTMATTER_DEPTH`] exist because the YAML reader's time grows with
/// the square of the nesting (a 200 KB frontmatter nesting 100,000 levels under a key keel
/// ignores took 85 s); a linear pre-scan refuses what passes them before the YAML reader
/// sees it, so any spec reads in milliseconds.
const MAX_FRONTMATTER_BYTES: usize = 256 * 1024;

/// The deepest nesting a frontmatter may hold: 64 levels (a spec needs 2: the top-level
/// mapping and a list in it). Every collection counts: the top-level mapping, each flow
/// `[` or `{`, each block mapping or list (opened by indentation, or a list under a key at
/// the key's own column), and each compact `- ` or `? ` on one line (`- - - x` is three
/// lists). Brackets inside quoted strings, plain text, comments and `|`/`>` blocks do
/// not count. See [`MAX_FRONTMATTER_BYTES`] for why.
const MAX_FRONTMATTER_DEPTH: usize = 64;

/// A refusal of a spec's text: the file line, what is wrong, the repair.
type LineRefusal = (u32, String, String);

/// Parses one node's `spec.md`.
pub fn parse_spec(id: &NodeId, content: &[u8]) -> Result<SpecNode, SpecError> {
    let file = id.spec_path();
    let fail = |(line, message, repair): LineRefusal| SpecError {
        file: file.clone(),
        line: Some(line),
        message,
        repair,
    };
    let text = std::str::from_utf8(content).map_err(|err| {
        fail((
            u32::try_from(line_of_offset(content, err.valid_up_to())).unwrap_or(u32::MAX),
            "spec.md is not UTF-8".to_owned(),
            "save the file as UTF-8".to_owned(),
        ))
    })?;
    let body = frontmatter_lines(text.strip_prefix(BOM).unwrap_or(text)).map_err(fail)?;
    check_size(&body).map_err(fail)?;
    check_depth(&body).map_err(fail)?;
    let mapping = read_mapping(&body).map_err(fail)?;
    check_keys(&body, &mapping).map_err(fail)?;
    let mut entries = Vec::new();
    for (relation, key) in [(Relation::Code, "code"), (Relation::Related, "related")] {
        for (raw, line) in string_items(&body, key, mapping.get(key)).map_err(fail)? {
            let target = parse_target(&raw)
                .map_err(|(message, repair)| fail((line, message, repair.to_owned())))?;
            entries.push(Entry {
                relation,
                target,
                raw,
                line,
            });
        }
    }
    check_entry_set(&entries)
        .map_err(|(line, message, repair)| fail((line, message, repair.to_owned())))?;
    Ok(SpecNode {
        id: id.clone(),
        entries,
    })
}

/// The file line of frontmatter line `index` (0-based; the frontmatter starts on line 2).
fn file_line(index: usize) -> u32 {
    u32::try_from(index).map_or(u32::MAX, |index| index.saturating_add(2))
}

/// The frontmatter's lines: those between the file's first line, `---`, and the next
/// `---` line.
fn frontmatter_lines(text: &str) -> Result<Vec<&str>, LineRefusal> {
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
fn check_size(body: &[&str]) -> Result<(), LineRefusal> {
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
fn check_depth(body: &[&str]) -> Result<(), LineRefusal> {
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

/// What opened a block collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// `key:` (or `? key`).
    Mapping,
    /// `- item`.
    List,
}

/// Where [`Nesting`]'s scan stands in a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum At {
    /// Where a node may start: a quote opens a quoted string here, `[`/`{` a flow
    /// collection, `|`/`>` a block of text.
    #[default]
    NodeStart,
    /// Inside plain (unquoted) text: quotes are text, and outside `[...]` brackets too.
    Plain,
    /// Just after a quoted string or a flow collection closed.
    NodeEnd,
}

/// The linear pre-scan behind [`MAX_FRONTMATTER_DEPTH`]: as much of YAML's lexical
/// structure as tells which brackets, indicators and indents open a level. It reads
/// line by line, keeping what spans lines (open brackets, an open quoted string, plain
/// text that may continue, a `|`/`>` block).
#[derive(Debug, Default)]
struct Nesting {
    /// Open block collections, innermost last: column and kind.
    blocks: Vec<(usize, Block)>,
    /// Open flow collections.
    flow: usize,
    /// The quote of a quoted string still open.
    quote: Option<u8>,
    at: At,
    /// The column where the current node started: a key's, when `: ` follows.
    node_column: usize,
    /// Inside a `|`/`>` block: lines indented past the innermost collection are its text.
    literal: bool,
}

impl Nesting {
    fn depth(&self) -> usize {
        self.blocks.len() + self.flow
    }

    /// Whether a line indented to `column` sits inside the innermost block collection
    /// (so it continues plain text or a `|`/`>` block instead of starting a node).
    fn inside(&self, column: usize) -> bool {
        self.blocks.last().is_none_or(|&(open, _)| column > open)
    }

    /// A block collection of `kind` at `column`: closes the deeper ones, then opens it
    /// unless it is the innermost already. A list may sit under a key at the key's own
    /// column (`code:` then `- a`), one level deeper.
    fn enter(&mut self, column: usize, kind: Block) {
        while let Some(&(open, open_kind)) = self.blocks.last() {
            let ends_list = open == column && open_kind == Block::List && kind == Block::Mapping;
            if open <= column && !ends_list {
                break;
            }
            self.blocks.pop();
        }
        if self.blocks.last() != Some(&(column, kind)) {
            self.blocks.push((column, kind));
        }
    }

    /// Scans one line; returns the deepest nesting open on it.
    fn scan_line(&mut self, line: &[u8]) -> usize {
        let indent = line.iter().take_while(|&&byte| byte == b' ').count();
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if self.quote.is_none() {
            if self.literal && (blank || self.inside(indent)) {
                return self.depth();
            }
            self.literal = false;
            if blank {
                return self.depth();
            }
            let continues_plain = self.at == At::Plain && self.inside(indent);
            if self.flow == 0 && !continues_plain {
                self.at = At::NodeStart;
            }
        }
        let mut deepest = self.depth();
        let mut index = 0;
        while index < line.len() {
            index += self.scan(line, index);
            deepest = deepest.max(self.depth());
        }
        deepest
    }

    /// Scans the byte at `index`; returns how many bytes it took (`line.len()` when the
    /// rest of the line is a comment or a `|`/`>` header).
    fn scan(&mut self, line: &[u8], index: usize) -> usize {
        let byte = line[index];
        if let Some(quote) = self.quote {
            return self.quoted(line, index, quote);
        }
        let space = |at: Option<&u8>| at.is_none_or(|byte| matches!(byte, b' ' | b'\t' | b'\r'));
        let space_after = space(line.get(index + 1));
        let space_before = index == 0 || space(line.get(index - 1));
        match byte {
            b' ' | b'\t' | b'\r' => 1,
            b'#' if space_before => {
                if self.at == At::Plain {
                    self.at = At::NodeEnd;
                }
                line.len()
            }
            b'!' | b'&' if self.at == At::NodeStart => property_len(&line[index..]),
            _ if self.flow > 0 => {
                self.flow_byte(byte, space_after);
                1
            }
            _ => self.block_byte(byte, index, space_after, line.len()),
        }
    }

    /// Inside a quoted string: an escape (`\"`, `''`) is text; the closing quote ends it.
    fn quoted(&mut self, line: &[u8], index: usize, quote: u8) -> usize {
        let byte = line[index];
        if quote == b'"' && byte == b'\\' {
            return 2;
        }
        if byte == quote {
            if quote == b'\'' && line.get(index + 1) == Some(&b'\'') {
                return 2;
            }
            self.quote = None;
            self.at = At::NodeEnd;
        }
        1
    }

    /// A byte inside `[...]`/`{...}`: brackets always count (plain text cannot hold
    /// them there); a quote opens a string only where a node starts.
    fn flow_byte(&mut self, byte: u8, space_after: bool) {
        match byte {
            b'[' | b'{' => {
                self.flow += 1;
                self.at = At::NodeStart;
            }
            b']' | b'}' => {
                self.flow -= 1;
                self.at = At::NodeEnd;
            }
            b',' => self.at = At::NodeStart,
            b':' if space_after || self.at == At::NodeEnd => self.at = At::NodeStart,
            b'?' | b'-' if space_after && self.at == At::NodeStart => {}
            b'"' | b'\'' if self.at == At::NodeStart => self.quote = Some(byte),
            _ if self.at == At::NodeStart => self.at = At::Plain,
            _ => {}
        }
    }

    /// A byte outside brackets; returns how many bytes it took.
    fn block_byte(&mut self, byte: u8, index: usize, space_after: bool, len: usize) -> usize {
        match (self.at, byte) {
            (At::NodeStart, b'-') if space_after => self.enter(index, Block::List),
            (At::NodeStart, b'?' | b':') if space_after => self.enter(index, Block::Mapping),
            (At::NodeStart, b'|' | b'>') => {
                self.literal = true;
                return len;
            }
            (At::NodeStart, _) => {
                self.node_column = index;
                match byte {
                    b'[' | b'{' => self.flow = 1,
                    b'"' | b'\'' => self.quote = Some(byte),
                    _ => self.at = At::Plain,
                }
            }
            (At::Plain, b':') if space_after => self.key(),
            (At::NodeEnd, b':') => self.key(),
            (At::NodeEnd, _) => self.at = At::Plain,
            (At::Plain, _) => {}
        }
        1
    }

    /// `: ` after the node that started at `node_column`: it was a key.
    fn key(&mut self) {
        self.enter(self.node_column, Block::Mapping);
        self.at = At::NodeStart;
    }
}

/// The length of a tag (`!!str`) or anchor (`&a`) at the start of `rest`: up to the next
/// space or flow indicator.
fn property_len(rest: &[u8]) -> usize {
    rest.iter()
        .position(|byte| {
            matches!(
                byte,
                b' ' | b'\t' | b'\r' | b',' | b'[' | b']' | b'{' | b'}'
            )
        })
        .unwrap_or(rest.len())
        .max(1)
}

/// The frontmatter read as YAML: a mapping (an empty frontmatter, or one holding only
/// comments or `null`, is an empty one).
fn read_mapping(body: &[&str]) -> Result<Mapping, LineRefusal> {
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
fn string_items(
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
fn check_keys(body: &[&str], mapping: &Mapping) -> Result<(), LineRefusal> {
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

/// What is wrong with an entry, and its repair.
type Rejection = (String, &'static str);

/// An entry list keel refuses outside a spec: which entry (0-based), what is wrong, and
/// the repair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryRefusal {
    pub index: usize,
    pub message: String,
    pub repair: String,
}

/// Parses a `code:` list written outside a spec (an eval reading's `code` axis) with the
/// same grammar, the same path normalization and the same loud refusals as a node's
/// `code:` list: an empty entry or selector, a path outside the repository, selectors on
/// a folder, a duplicate entry or selector, a file listed both bare and with selectors.
pub fn parse_code_entries(items: &[String]) -> Result<Vec<Target>, EntryRefusal> {
    let refuse = |index: usize, (message, repair): Rejection| EntryRefusal {
        index,
        message: one_line(&message).into_owned(),
        repair: repair.to_owned(),
    };
    let mut entries = Vec::with_capacity(items.len());
    for (index, raw) in items.iter().enumerate() {
        let target = parse_target(raw).map_err(|refusal| refuse(index, refusal))?;
        entries.push(Entry {
            relation: Relation::Code,
            target,
            raw: raw.clone(),
            // The entry's position stands in for its line: `check_entry_set` reports it back.
            line: u32::try_from(index).unwrap_or(u32::MAX),
        });
    }
    check_entry_set(&entries)
        .map_err(|(index, message, repair)| refuse(index as usize, (message, repair)))?;
    Ok(entries.into_iter().map(|entry| entry.target).collect())
}

/// Parses one entry's text into a target.
fn parse_target(raw: &str) -> Result<Target, Rejection> {
    let text = raw.trim();
    if text.is_empty() {
        return Err((
            "empty entry".to_owned(),
            "remove the empty list item or write a path",
        ));
    }
    let (written, selectors) = match text.split_once('#') {
        Some((path, selectors)) => (path, Some(selectors)),
        None => (text, None),
    };
    let path = normal_path(written)?;
    let is_glob = has_glob_chars(&path);
    let is_folder = path.ends_with('/');
    let Some(selectors) = selectors else {
        return Ok(if is_glob {
            Target::Glob(path)
        } else if is_folder {
            Target::Folder(path.trim_end_matches('/').to_owned())
        } else {
            Target::Path(path)
        });
    };
    // A path with glob characters may still name one file (`app/[slug]/page.tsx`): lint
    // refuses the selectors when no such file exists at the tip.
    if is_folder {
        return Err((
            format!("`{text}` puts selectors on a glob or folder"),
            "selectors name units of one file: write `path/to/file.py#name`, or drop the `#...` part",
        ));
    }
    Ok(Target::Scoped {
        selectors: parse_selectors(text, &path, selectors)?,
        path,
    })
}

/// The selectors of `text`'s list on the file `path`, each read in that file's language
/// ([`Selector::parse_on`]).
fn parse_selectors(text: &str, path: &str, list: &str) -> Result<Vec<Selector>, Rejection> {
    let mut selectors: Vec<Selector> = Vec::new();
    for part in list.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err((
                format!("`{text}` has an empty selector"),
                "write one unit name between commas, e.g. `file.py#login,Session.refresh`",
            ));
        }
        let selector = Selector::parse_on(path, part).ok_or_else(|| {
            (
                format!("`{part}` is not a selector (in `{text}`)"),
                "a selector is a dotted qualified name without spaces, e.g. `Class.method`",
            )
        })?;
        if selectors.contains(&selector) {
            return Err((
                format!("selector `{part}` is listed twice in `{text}`"),
                "remove the duplicate selector",
            ));
        }
        selectors.push(selector);
    }
    Ok(selectors)
}

/// Whether a path holds a glob character (`*`, `?`, `[`).
pub fn has_glob_chars(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

/// The pattern a bare glob entry matches with: as written, with `**` after a trailing `/`
/// (a glob of folders covers every file under them).
pub fn glob_pattern(glob: &str) -> String {
    if glob.ends_with('/') {
        format!("{glob}**")
    } else {
        glob.to_owned()
    }
}

/// Compiles a bare glob entry exactly as lint matches it (`*` and `?` stay inside one
/// folder, `**` crosses them): lint refuses an entry this rejects (unless its path exists
/// literally at the tip), so `drift::PathPattern::matcher` never meets a bad glob.
pub fn compile_glob(glob: &str) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(&glob_pattern(glob))
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| err.kind().to_string())
}

/// The repository path `path` names: `.` parts dropped and each `..` taking back the
/// part before it (`src/../src/a.py` is `src/a.py`), a trailing `/` kept. Refused: a path
/// that leaves the repository (a leading `/`, a drive, a backslash, a `..` above the
/// root), one that names the root itself, an empty part (`a//b`), and spaces around it.
fn normal_path(path: &str) -> Result<String, Rejection> {
    let outside = || {
        Err((
            format!("`{path}` is outside the repository"),
            "write the path relative to the repository root: no leading `/`, and no `..` that climbs above the root",
        ))
    };
    if path.starts_with('/') || path.contains('\\') || path.get(1..2) == Some(":") {
        return outside();
    }
    if path != path.trim() {
        return Err((
            format!("`{path}` starts or ends with whitespace"),
            "write the path and its selectors without spaces around them: `src/app.py#login`",
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.trim_end_matches('/').split('/') {
        match part {
            "" => {
                return Err((
                    format!("`{path}` is not a normalised repository path"),
                    "write the path relative to the repository root, e.g. `src/app.py`, without empty parts",
                ));
            }
            "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return outside();
                }
            }
            part => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err((
            format!("`{path}` names the repository root, not a path in it"),
            "name a file or folder inside the repository, e.g. `src/app.py` or `src/`",
        ));
    }
    let mut normal = parts.join("/");
    if path.ends_with('/') {
        normal.push('/');
    }
    Ok(normal)
}

/// Refusals that need the whole node: duplicates and bare+scoped mixing.
fn check_entry_set(entries: &[Entry]) -> Result<(), (u32, String, &'static str)> {
    // Two entries are one when they name the same target (`a.py` and `./a.py`).
    let mut seen: HashMap<(Relation, &Target), &str> = HashMap::new();
    for entry in entries {
        let raw = entry.raw.trim();
        if let Some(first) = seen.insert((entry.relation, &entry.target), raw) {
            let message = if first == raw {
                format!("entry `{raw}` is listed twice")
            } else {
                format!("entry `{raw}` is listed twice (as `{first}`)")
            };
            return Err((entry.line, message, "remove the duplicate entry"));
        }
    }
    let mut bare: HashSet<(Relation, &str)> = HashSet::new();
    let mut scoped: HashSet<(Relation, &str)> = HashSet::new();
    for entry in entries {
        let key = (entry.relation, entry.target.path());
        match &entry.target {
            Target::Scoped { path, .. } => {
                if bare.contains(&key) {
                    return Err((
                        entry.line,
                        format!("`{path}` is listed both bare and with selectors"),
                        "keep either the bare path (whole file) or the `path#selectors` entry, not both",
                    ));
                }
                if !scoped.insert(key) {
                    return Err((
                        entry.line,
                        format!("`{path}` has two selector entries"),
                        "merge them into one entry: `path#sel1,sel2`",
                    ));
                }
            }
            _ => {
                if scoped.contains(&key) {
                    return Err((
                        entry.line,
                        format!(
                            "`{}` is listed both bare and with selectors",
                            entry.target.path()
                        ),
                        "keep either the bare path (whole file) or the `path#selectors` entry, not both",
                    ));
                }
                bare.insert(key);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SpecNode, SpecError> {
        parse_spec(&NodeId("auth/login".to_owned()), text.as_bytes())
    }

    fn refusal(text: &str) -> (u32, String) {
        let err = parse(text).expect_err("the spec must be refused");
        assert_eq!(err.file, ".spec/auth/login/spec.md");
        assert!(!err.repair.is_empty());
        (err.line.expect("a parse refusal names a line"), err.message)
    }

    #[test]
    fn a_refusal_echoing_a_line_break_of_the_spec_stays_one_line() {
        // Found by fuzzing: a quoted entry or key holding `\n` was echoed raw.
        for text in [
            "---\ncode:\n- \"a.py \\n#f\"\n---\n",
            "---\n\"Cod\\ne\": [a.py]\n---\n",
        ] {
            let line = parse(text).expect_err("refused").to_string();
            assert!(!line.contains('\n'), "{line}");
            assert!(line.contains("\\n"), "the break is shown escaped: {line}");
        }
    }

    #[test]
    fn entries_keep_declaration_order_and_lines() {
        let node = parse(
            "---\ncode:\n  - a.py#f,C.m\n  - lib/\n  - src/*.ts\nrelated:\n  - b.ts\n---\nprose\n",
        )
        .expect("valid spec");
        let summary: Vec<(Relation, &str, u32)> = node
            .entries
            .iter()
            .map(|e| (e.relation, e.target.path(), e.line))
            .collect();
        assert_eq!(
            summary,
            vec![
                (Relation::Code, "a.py", 3),
                (Relation::Code, "lib", 4),
                (Relation::Code, "src/*.ts", 5),
                (Relation::Related, "b.ts", 7),
            ]
        );
        assert!(matches!(&node.entries[1].target, Target::Folder(_)));
        assert!(matches!(&node.entries[2].target, Target::Glob(_)));
        let Target::Scoped { selectors, .. } = &node.entries[0].target else {
            panic!("a.py#f,C.m is scoped");
        };
        let names: Vec<&str> = selectors.iter().map(Selector::as_str).collect();
        assert_eq!(names, vec!["f", "C.m"]);
    }

    #[test]
    fn items_with_trailing_comments_keep_their_lines() {
        let node =
            parse("---\ncode:\n  - a.py  # why\n  - \"b c.py\" # note\n  - 42.py\t# x\n---\n")
                .expect("valid spec");
        let summary: Vec<(&str, u32)> = node
            .entries
            .iter()
            .map(|e| (e.target.path(), e.line))
            .collect();
        assert_eq!(summary, [("a.py", 3), ("b c.py", 4), ("42.py", 5)]);
        let (line, message) = refusal("---\ncode:\n  - a.py\n  - 42  # the answer\n---\n");
        assert_eq!(line, 4);
        assert!(message.contains("is the number 42,"), "{message}");
    }

    #[test]
    fn a_path_may_hold_inner_spaces() {
        let node = parse("---\ncode:\n  - docs/User Guide.md\n---\n").expect("valid spec");
        assert_eq!(
            node.entries[0].target,
            Target::Path("docs/User Guide.md".to_owned())
        );
    }

    #[test]
    fn flow_lists_and_empty_frontmatter_are_read() {
        let node = parse("---\ncode: [a.py#f, b.py]\n---\n").expect("valid spec");
        assert_eq!(node.entries.len(), 2);
        assert_eq!(node.entries[1].line, 2);
        assert!(parse("---\n---\n").expect("valid").entries.is_empty());
        assert!(
            parse("---\ntitle: x\n---\n")
                .expect("other keys are prose")
                .entries
                .is_empty()
        );
    }

    #[test]
    fn every_loud_refusal_names_its_line() {
        let cases = [
            (
                "---\ncode:\n  - a.py#f\n  - a.py#f\n---\n",
                4,
                "listed twice",
            ),
            ("---\ncode:\n  - a.py#f,f\n---\n", 3, "listed twice"),
            (
                "---\ncode:\n  - a.py#f\n  - a.py\n---\n",
                4,
                "both bare and with selectors",
            ),
            (
                "---\ncode:\n  - a.py\n  - a.py#f\n---\n",
                4,
                "both bare and with selectors",
            ),
            (
                "---\ncode:\n  - a.py#f\n  - a.py#g\n---\n",
                4,
                "two selector entries",
            ),
            ("---\ncode:\n  - src/#f\n---\n", 3, "glob or folder"),
            ("---\ncode:\n  - a.py#\n---\n", 3, "empty selector"),
            ("---\ncode:\n  - a.py#f,,g\n---\n", 3, "empty selector"),
            ("---\ncode:\n  - a.py#f g\n---\n", 3, "not a selector"),
            (
                "---\ncode:\n  - ../x.py\n---\n",
                3,
                "outside the repository",
            ),
            (
                "---\ncode:\n  - /etc/passwd\n---\n",
                3,
                "outside the repository",
            ),
            ("---\ncode:\n  - a//b.py\n---\n", 3, "not a normalised"),
            (
                "---\ncode:\n  - \"a.py #f\"\n---\n",
                3,
                "ends with whitespace",
            ),
            ("no frontmatter\n", 1, "does not start"),
            ("---\ncode:\n  - a.py\n", 1, "never closed"),
            ("---\ncode: [a.py#f\n---\n", 2, "broken frontmatter"),
        ];
        for (text, line, needle) in cases {
            let (got_line, message) = refusal(text);
            assert_eq!(got_line, line, "{text:?}: {message}");
            assert!(message.contains(needle), "{text:?}: {message}");
        }
    }

    #[test]
    fn yaml_positions_are_reported_as_file_lines() {
        let (_, message) = refusal("---\ncode: [a.py#f\n---\n");
        assert!(message.contains("line 2"), "{message}");
    }

    #[test]
    fn non_utf8_names_the_line_of_the_bad_byte() {
        let err = parse_spec(&NodeId("n".to_owned()), b"---\ncode:\n  - a\xff.py\n---\n")
            .expect_err("not UTF-8");
        assert_eq!(err.line, Some(3));
    }

    #[test]
    fn case_variants_and_near_misses_of_the_keys_are_refused() {
        let cases = [
            (
                "---\nCode:\n  - a.py\n---\n",
                2,
                "`Code` is a case variant of `code`",
            ),
            ("---\nCODE: [a.py]\n---\n", 2, "case variant of `code`"),
            (
                "---\ntitle: x\ncodes:\n  - a.py\n---\n",
                3,
                "`codes` is a near-miss of `code`",
            ),
            ("---\ncdoe:\n  - a.py\n---\n", 2, "near-miss of `code`"),
            (
                "---\ncode: [a.py]\nrelate:\n  - b.py\n---\n",
                3,
                "near-miss of `related`",
            ),
            (
                "---\nRelated: [b.py]\n---\n",
                2,
                "case variant of `related`",
            ),
            ("---\n\"Code\": [a.py]\n---\n", 2, "case variant"),
            ("---\nrleated: ~\n---\n", 2, "near-miss of `related`"),
        ];
        for (text, line, needle) in cases {
            let err = parse(text).expect_err("a mistyped key must be refused");
            assert_eq!(err.line, Some(line), "{text:?}: {err}");
            assert!(err.message.contains(needle), "{text:?}: {err}");
            assert!(err.repair.contains(":` (lower case)"), "{text:?}: {err}");
        }
    }

    #[test]
    fn keys_two_edits_away_stay_prose() {
        for text in [
            "---\ntitle: x\ncreated: 2024-01-01\nowner: me\n---\n",
            "---\ncode: [a.py]\ndate: x\nrole: y\n---\n",
        ] {
            parse(text).expect("other keys are prose");
        }
        assert_eq!(edit_distance("cdoe", "code"), 1);
        assert_eq!(edit_distance("created", "related"), 2);
        assert_eq!(edit_distance("", "code"), 4);
    }

    #[test]
    fn a_null_or_empty_list_reads_as_no_entries() {
        for text in ["---\ncode:\n---\n", "---\ncode: []\nrelated: ~\n---\n"] {
            assert!(parse(text).expect("valid").entries.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn a_path_with_glob_characters_may_carry_selectors() {
        let node = parse("---\ncode:\n  - app/[slug]/page.tsx#Page\n  - app/[id]/x.ts\n---\n")
            .expect("lint decides whether the path exists");
        assert!(
            matches!(&node.entries[0].target, Target::Scoped { path, .. } if path == "app/[slug]/page.tsx")
        );
        assert_eq!(
            node.entries[1].target,
            Target::Glob("app/[id]/x.ts".to_owned())
        );
        let (line, message) = refusal("---\ncode:\n  - app/[slug]/#Page\n---\n");
        assert_eq!(line, 3);
        assert!(message.contains("glob or folder"), "{message}");
    }

    #[test]
    fn globs_compile_as_lint_matches_them() {
        let star = compile_glob("src/*.py").expect("valid glob");
        assert!(star.is_match("src/a.py"));
        assert!(!star.is_match("src/x/a.py"), "`*` stays inside one folder");
        let deep = compile_glob("src/**/*.py").expect("valid glob");
        assert!(deep.is_match("src/x/y/a.py"));
        let folders = compile_glob("src/*/").expect("valid glob");
        assert!(
            folders.is_match("src/x/y/a.py"),
            "a glob of folders covers their files"
        );
        assert!(!folders.is_match("src/a.py"));
        for bad in ["src/[z-a].py", "src/a[b.py", "src/{a,b"] {
            let err = compile_glob(bad).expect_err("a glob that does not compile");
            assert!(!err.is_empty(), "{bad}");
        }
    }

    #[test]
    fn code_entries_outside_a_spec_get_the_same_grammar_and_refusals() {
        let list = |items: &[&str]| {
            parse_code_entries(&items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
        };
        let targets = list(&["a.py#f,C.m", "b.ts", "src/", "src/*.py"]).expect("valid entries");
        assert_eq!(
            targets,
            vec![
                Target::Scoped {
                    path: "a.py".to_owned(),
                    selectors: vec![
                        Selector::parse("f").expect("selector"),
                        Selector::parse("C.m").expect("selector"),
                    ],
                },
                Target::Path("b.ts".to_owned()),
                Target::Folder("src".to_owned()),
                Target::Glob("src/*.py".to_owned()),
            ]
        );
        let refused = |items: &[&str]| list(items).expect_err("refused");
        let err = refused(&["a.py#f", "b.py#"]);
        assert_eq!(
            (err.index, err.message.as_str()),
            (1, "`b.py#` has an empty selector")
        );
        let err = refused(&["a.py", "b.py", "a.py#f"]);
        assert_eq!(err.index, 2);
        assert!(
            err.message.contains("both bare and with selectors"),
            "{err:?}"
        );
        assert_eq!(refused(&["a.py", "a.py"]).index, 1);
        assert_eq!(refused(&["x", "src/#f"]).index, 1);
    }

    #[test]
    fn errors_without_a_line_name_only_the_path() {
        let err = SpecError {
            file: ".spec/x".to_owned(),
            line: None,
            message: "m".to_owned(),
            repair: "r".to_owned(),
        };
        assert_eq!(err.to_string(), ".spec/x: m; repair: r");
    }

    /// A frontmatter whose key `x` holds `levels` flow lists inside each other (the
    /// top-level mapping makes it `levels + 1` deep).
    fn flow_nesting(levels: usize) -> String {
        format!(
            "---\ncode: [a.py]\nx: {}{}\n---\n",
            "[".repeat(levels),
            "]".repeat(levels)
        )
    }

    /// `levels` mappings, each indented one column past the one before (`a0:`, ` a1:`, ...):
    /// `levels` deep.
    fn block_nesting(levels: usize) -> String {
        let keys: String = (0..levels)
            .map(|level| format!("{}a{level}:\n", " ".repeat(level)))
            .collect();
        format!("---\ncode: [a.py]\n{keys}---\n")
    }

    /// `x:` holding `levels` compact lists on one line (`- - - a`): `levels + 1` deep.
    fn compact_nesting(levels: usize) -> String {
        format!("---\ncode: [a.py]\nx:\n{}a\n---\n", "- ".repeat(levels))
    }

    #[test]
    fn frontmatter_nesting_is_bounded_in_every_form() {
        let deepest = MAX_FRONTMATTER_DEPTH;
        // (text at the bound, text one past it, the line that passes it)
        let forms = [
            (flow_nesting(deepest - 1), flow_nesting(deepest), 3),
            (
                block_nesting(deepest),
                block_nesting(deepest + 1),
                deepest as u32 + 3,
            ),
            (compact_nesting(deepest - 1), compact_nesting(deepest), 4),
        ];
        for (at_bound, past, line) in forms {
            parse(&at_bound).unwrap_or_else(|err| panic!("{deepest} levels read: {err}"));
            let err = parse(&past).expect_err("one level more is refused");
            assert_eq!(err.line, Some(line), "{err}");
            assert!(
                err.message
                    .contains("nests deeper than keel's bound of 64 levels"),
                "{err}"
            );
            assert!(err.repair.contains("flatten"), "{err}");
        }
    }

    #[test]
    fn a_frontmatter_nesting_a_hundred_thousand_levels_is_refused_before_yaml_reads_it() {
        let err = parse(&flow_nesting(100_000)).expect_err("refused");
        assert_eq!(err.line, Some(3), "{err}");
        let err = parse(&compact_nesting(100_000)).expect_err("refused");
        assert_eq!(err.line, Some(4), "{err}");
    }

    #[test]
    fn brackets_in_quotes_comments_and_text_do_not_count() {
        let many = "[{".repeat(MAX_FRONTMATTER_DEPTH);
        let texts = [
            format!("x: \"{many}\""),
            format!("x: '{many}'"),
            format!("x: \"a \\\" {many}\""),
            format!("x: 'it''s {many}'"),
            format!("x: [\"{many}\", '{many}']"),
            format!("x: \"a\n  {many}\n  b\""),
            format!("x: a{many}"),
            format!("x: it's {many}"),
            format!("x: a\n  \"{many}"),
            format!("x: 1 # {many}"),
            format!("# {many}"),
            format!("x: |\n  {many}\n  \"\ny: 1"),
            format!("x: >-\n  {many}\n\n  '"),
            format!("x: !!str \"{many}\""),
            format!("x: [!!str \"{many}\"]"),
        ];
        for text in texts {
            let spec = format!("---\ncode: [a.py]\n{text}\n---\n");
            parse(&spec).unwrap_or_else(|err| panic!("{spec:?}: {err}"));
        }
    }

    #[test]
    fn a_quote_inside_plain_text_hides_no_bracket_after_it() {
        let deep = format!("x: {}", "[".repeat(MAX_FRONTMATTER_DEPTH));
        for text in [
            format!("title: a\n  \"\n{deep}"),
            format!("title: it's\n{deep}"),
            format!("notes: |\n  \"\n{deep}"),
        ] {
            let spec = format!("---\ncode: [a.py]\n{text}\n---\n");
            let err = parse(&spec).expect_err("the brackets count");
            assert!(err.message.contains("nests deeper"), "{spec:?}: {err}");
        }
    }

    #[test]
    fn frontmatter_size_is_bounded() {
        // `code: [a.py]` and its line end are 13 bytes, `notes: ` and its line end 8.
        let sized = |bytes: usize| {
            format!(
                "---\ncode: [a.py]\nnotes: {}\n---\n",
                "x".repeat(bytes - 21)
            )
        };
        let node = parse(&sized(MAX_FRONTMATTER_BYTES)).expect("256 KiB is read");
        assert_eq!(node.entries.len(), 1);
        let err = parse(&sized(MAX_FRONTMATTER_BYTES + 1)).expect_err("one byte more is not");
        assert_eq!(err.line, Some(3), "{err}");
        assert!(
            err.message
                .contains("passes keel's bound of 256 KiB (262144 bytes) on line 3"),
            "{err}"
        );
        assert!(err.repair.contains("below the closing `---`"), "{err}");
    }

    #[test]
    fn a_byte_order_mark_before_the_frontmatter_is_skipped() {
        let node = parse("\u{feff}---\ncode:\n  - a.py#f\n---\n").expect("a BOM is no text");
        assert_eq!(node.entries[0].line, 3);
        assert_eq!(node.entries[0].target.path(), "a.py");
    }

    #[test]
    fn paths_with_dot_parts_inside_the_repository_are_normalized() {
        let node = parse(
            "---\ncode:\n  - src/../src/a.py\n  - ./b.py#f\n  - lib/./x/../\n  - src/./*.ts\n---\n",
        )
        .expect("these stay inside the repository");
        let targets: Vec<&Target> = node.entries.iter().map(|entry| &entry.target).collect();
        assert_eq!(
            targets,
            [
                &Target::Path("src/a.py".to_owned()),
                &Target::Scoped {
                    path: "b.py".to_owned(),
                    selectors: vec![Selector::parse("f").expect("selector")],
                },
                &Target::Folder("lib".to_owned()),
                &Target::Glob("src/*.ts".to_owned()),
            ]
        );
        assert_eq!(
            node.entries[0].raw, "src/../src/a.py",
            "raw stays as written"
        );
        let cases = [
            ("src/../../x.py", "outside the repository"),
            ("./../x.py", "outside the repository"),
            ("src/..", "names the repository root"),
            ("./", "names the repository root"),
        ];
        for (entry, needle) in cases {
            let (line, message) = refusal(&format!("---\ncode:\n  - {entry}\n---\n"));
            assert_eq!(line, 3, "{entry}: {message}");
            assert!(message.contains(needle), "{entry}: {message}");
        }
        let (line, message) = refusal("---\ncode:\n  - a.py\n  - ./a.py\n---\n");
        assert_eq!(line, 4);
        assert_eq!(message, "entry `./a.py` is listed twice (as `a.py`)");
    }

    #[test]
    fn numbers_booleans_and_nulls_are_not_paths() {
        let cases = [
            (
                "code:\n  - 42",
                3,
                "`code:` item on line 3 is the number 42, not a path",
                "- \"42\"",
            ),
            (
                "code:\n  - a.py\n  - 1.5",
                4,
                "is the number 1.5,",
                "- \"1.5\"",
            ),
            (
                "code:\n  - true",
                3,
                "is the boolean true, not a path",
                "- \"true\"",
            ),
            (
                "code:\n  - null",
                3,
                "is `null`, which YAML reads as no value",
                "- \"null\"",
            ),
            (
                "code:\n  - ~",
                3,
                "is `~`, which YAML reads as no value",
                "- \"~\"",
            ),
            (
                "code:\n  - a.py\n  -",
                4,
                "item on line 4 is empty, not a path",
                "after the `-`",
            ),
            (
                "code: [a.py, 42]",
                2,
                "item on line 2 is the number 42,",
                "- \"42\"",
            ),
            (
                "related:\n  - 7",
                3,
                "`related:` item on line 3 is the number 7",
                "- \"7\"",
            ),
        ];
        for (yaml, line, needle, repair) in cases {
            let err = parse(&format!("---\n{yaml}\n---\n")).expect_err("not a path");
            assert_eq!(err.line, Some(line), "{yaml:?}: {err}");
            assert!(err.message.contains(needle), "{yaml:?}: {err}");
            assert!(err.repair.contains(repair), "{yaml:?}: {err}");
        }
        let node =
            parse("---\ncode:\n  - \"42\"\n  - 'true'\n---\n").expect("quoted, they are paths");
        let paths: Vec<&str> = node.entries.iter().map(|e| e.target.path()).collect();
        assert_eq!(paths, ["42", "true"]);
    }

    #[test]
    fn a_frontmatter_of_the_wrong_shape_names_the_shape_in_words() {
        let cases = [
            (
                "code: foo",
                2,
                "`code:` must be a list of strings, but it is a string",
            ),
            (
                "code: {a: b}",
                2,
                "`code:` must be a list of strings, but it is a mapping",
            ),
            (
                "code: 3",
                2,
                "`code:` must be a list of strings, but it is the number 3",
            ),
            (
                "title: t\nrelated: x",
                3,
                "`related:` must be a list of strings, but it is a string",
            ),
            ("code: [[a]]", 2, "but its item on line 2 is a list"),
            (
                "code:\n  - a.py\n  - - b.py",
                4,
                "but its item on line 4 is a list",
            ),
            ("code:\n  - a: b", 3, "but its item on line 3 is a mapping"),
            (
                "- a.py",
                2,
                "the frontmatter must be a mapping of keys (`code:`, `related:`), but it is a list",
            ),
            (
                "# notes\njust words",
                3,
                "the frontmatter must be a mapping of keys (`code:`, `related:`), but it is a string",
            ),
        ];
        for (yaml, line, needle) in cases {
            let err = parse(&format!("---\n{yaml}\n---\n")).expect_err("the wrong shape");
            assert_eq!(err.line, Some(line), "{yaml:?}: {err}");
            assert!(err.message.contains(needle), "{yaml:?}: {err}");
            for jargon in ["sequence", "invalid type", "struct", "Vec<", "expected"] {
                assert!(!err.to_string().contains(jargon), "{yaml:?}: {err}");
            }
        }
    }

    #[test]
    fn python_selectors_are_nfkc_normalized_and_others_are_not() {
        let node = parse("---\ncode:\n  - a.py#\u{fb01}nd,\u{ff23}.m\n  - b.ts#\u{fb01}nd\n---\n")
            .expect("valid selectors");
        let names = |index: usize| -> Vec<String> {
            match &node.entries[index].target {
                Target::Scoped { selectors, .. } => {
                    selectors.iter().map(|s| s.as_str().to_owned()).collect()
                }
                other => panic!("scoped expected, got {other:?}"),
            }
        };
        assert_eq!(names(0), ["find", "C.m"]);
        assert_eq!(names(1), ["\u{fb01}nd"], "ECMAScript does not normalize");
        let (line, message) = refusal("---\ncode:\n  - a.py#find,\u{fb01}nd\n---\n");
        assert_eq!(line, 3);
        assert!(message.contains("listed twice"), "{message}");
    }

    #[test]
    fn node_ids_come_from_spec_paths() {
        assert_eq!(
            NodeId::from_spec_path(".spec/auth/login/spec.md"),
            Some(NodeId("auth/login".to_owned()))
        );
        assert_eq!(NodeId::from_spec_path(".spec/spec.md"), None);
        assert_eq!(NodeId::from_spec_path("spec/x/spec.md"), None);
        assert_eq!(NodeId("a/b".to_owned()).spec_path(), ".spec/a/b/spec.md");
    }
}
