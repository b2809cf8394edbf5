//! Spec nodes: `.spec/<node-id>/spec.md` frontmatter, read strictly.
//!
//! Owns: the entry grammar (`path`, `folder/`, `glob/*`, `path#sel1,sel2`), the
//! `code:`/`related:` relations, the frontmatter keys (a case variant or a one-edit
//! near-miss of `code`/`related` is refused; any other key is prose), how a glob entry
//! compiles ([`compile_glob`]), and every loud refusal the seed names — each a
//! [`SpecError`] naming file, line and repair.
//! Does not own: judging entries against a tree (`lint` sees the tree: a path that exists
//! literally at the tip is a path even when it holds `*`, `?` or `[`; a selector on a
//! folder or on a glob, and a glob that does not compile, are refused there), nor
//! selector resolution (`anchors`).

use crate::anchors::Selector;
use serde::Deserialize;
use std::collections::HashSet;
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

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: ", self.file)?,
            None => write!(f, "{}: ", self.file)?,
        }
        write!(f, "{}; repair: {}", self.message, self.repair)
    }
}

/// The keys keel reads from the frontmatter.
const KEYS: [&str; 2] = ["code", "related"];

#[derive(Deserialize)]
struct Frontmatter {
    #[serde(default)]
    code: Option<Vec<String>>,
    #[serde(default)]
    related: Option<Vec<String>>,
}

/// Parses one node's `spec.md`.
pub fn parse_spec(id: &NodeId, content: &[u8]) -> Result<SpecNode, SpecError> {
    let file = id.spec_path();
    let fail = |line: u32, message: String, repair: &str| SpecError {
        file: file.clone(),
        line: Some(line),
        message,
        repair: repair.to_owned(),
    };
    let text = std::str::from_utf8(content).map_err(|err| {
        let line = line_of_offset(content, err.valid_up_to());
        fail(
            line,
            "spec.md is not UTF-8".to_owned(),
            "save the file as UTF-8",
        )
    })?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err(fail(
            1,
            "spec.md does not start with a `---` frontmatter line".to_owned(),
            "open the file with a YAML frontmatter block between `---` lines",
        ));
    }
    let Some(close) = lines.iter().skip(1).position(|l| l.trim_end() == "---") else {
        return Err(fail(
            1,
            "the frontmatter opened on line 1 is never closed".to_owned(),
            "end the frontmatter with a `---` line",
        ));
    };
    let body = &lines[1..=close];
    let yaml = body.join("\n");
    let frontmatter: Frontmatter = if yaml.trim().is_empty() {
        Frontmatter {
            code: None,
            related: None,
        }
    } else {
        serde_norway::from_str(&yaml).map_err(|err| {
            let last_body_line = body.len() as u32 + 1;
            let line = err
                .location()
                .map_or(1, |loc| (loc.line() as u32 + 1).min(last_body_line));
            fail(
                line,
                format!("broken frontmatter: {}", file_relative(&err.to_string())),
                "make the frontmatter valid YAML where `code:` and `related:` are lists of strings",
            )
        })?
    };
    check_keys(body, &yaml).map_err(|(line, message, repair)| fail(line, message, &repair))?;
    let mut entries = Vec::new();
    for (relation, key, items) in [
        (Relation::Code, "code", frontmatter.code.unwrap_or_default()),
        (
            Relation::Related,
            "related",
            frontmatter.related.unwrap_or_default(),
        ),
    ] {
        let lines_of = entry_lines(body, key, &items);
        for (raw, line) in items.into_iter().zip(lines_of) {
            let target =
                parse_target(&raw).map_err(|(message, repair)| fail(line, message, repair))?;
            entries.push(Entry {
                relation,
                target,
                raw,
                line,
            });
        }
    }
    check_entry_set(&entries).map_err(|(line, message, repair)| fail(line, message, repair))?;
    Ok(SpecNode {
        id: id.clone(),
        entries,
    })
}

/// Refuses a top-level key that reads as a typo of `code` or `related`: a case variant
/// (`Code`), or any key one edit away (an insertion, deletion, substitution or swap of two
/// neighbours, compared case-insensitively: `codes`, `cdoe`, `relate`). Such a key would
/// otherwise be prose and its entries silently unjudged. Every other key stays prose.
fn check_keys(body: &[&str], yaml: &str) -> Result<(), (u32, String, String)> {
    // The frontmatter already parsed as the typed form; a second, untyped read only lists
    // its top-level keys. An empty or non-mapping frontmatter has none.
    let Ok(serde_norway::Value::Mapping(mapping)) = serde_norway::from_str(yaml) else {
        return Ok(());
    };
    for key in mapping.keys() {
        let serde_norway::Value::String(key) = key else {
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
    index as u32 + 2
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbours, each costing 1 (over chars).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            let at = i * width + j;
            d[at] = if i == 0 {
                j
            } else if j == 0 {
                i
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (d[at - width] + 1)
                    .min(d[at - 1] + 1)
                    .min(d[at - width - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[at - 2 * width - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * width + b.len()]
}

/// 1-based file lines of each item. A block item (`- item`, optionally quoted) is looked
/// for on the lines after the previous item's; a flow item (`[a, b]`) on the same line
/// or later; the key's line is the fallback. Body line `i` is file line `i + 2`.
fn entry_lines(body: &[&str], key: &str, items: &[String]) -> Vec<u32> {
    let key_prefix = format!("{key}:");
    let key_index = body
        .iter()
        .position(|l| l.starts_with(&key_prefix))
        .unwrap_or(0);
    let mut cursor = key_index;
    items
        .iter()
        .map(|item| {
            let block = body
                .iter()
                .enumerate()
                .skip(cursor + 1)
                .find(|(_, line)| block_item(line) == Some(item.trim()))
                .map(|(index, _)| index);
            let flow = || {
                body.iter()
                    .enumerate()
                    .skip(cursor)
                    .find(|(_, line)| line.contains(item.trim()))
                    .map(|(index, _)| index)
            };
            let index = block.or_else(flow).unwrap_or(key_index);
            cursor = index;
            index as u32 + 2
        })
        .collect()
}

/// The text of a YAML block-sequence item line (`  - "text"` → `text`).
fn block_item(line: &str) -> Option<&str> {
    let text = line.trim().strip_prefix('-')?.trim();
    Some(text.trim_matches(|c| c == '"' || c == '\''))
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

type Refusal = (String, &'static str);

/// An entry list keel refuses outside a spec: which entry (0-based), what is wrong, and
/// the repair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryRefusal {
    pub index: usize,
    pub message: String,
    pub repair: String,
}

/// Parses a `code:` list written outside a spec (an eval reading's `code` axis) with the
/// same grammar and the same loud refusals as a node's `code:` list: an empty entry or
/// selector, a path outside the repository, selectors on a folder, a duplicate entry or
/// selector, a file listed both bare and with selectors.
pub fn parse_code_entries(items: &[String]) -> Result<Vec<Target>, EntryRefusal> {
    let refuse = |index: usize, (message, repair): Refusal| EntryRefusal {
        index,
        message,
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
fn parse_target(raw: &str) -> Result<Target, Refusal> {
    let text = raw.trim();
    if text.is_empty() {
        return Err((
            "empty entry".to_owned(),
            "remove the empty list item or write a path",
        ));
    }
    let (path, selectors) = match text.split_once('#') {
        Some((path, selectors)) => (path, Some(selectors)),
        None => (text, None),
    };
    check_path(path)?;
    let is_glob = has_glob_chars(path);
    let is_folder = path.ends_with('/');
    let Some(selectors) = selectors else {
        return Ok(if is_glob {
            Target::Glob(path.to_owned())
        } else if is_folder {
            Target::Folder(path.trim_end_matches('/').to_owned())
        } else {
            Target::Path(path.to_owned())
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
        path: path.to_owned(),
        selectors: parse_selectors(text, selectors)?,
    })
}

fn parse_selectors(text: &str, list: &str) -> Result<Vec<Selector>, Refusal> {
    let mut selectors: Vec<Selector> = Vec::new();
    for part in list.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err((
                format!("`{text}` has an empty selector"),
                "write one unit name between commas, e.g. `file.py#login,Session.refresh`",
            ));
        }
        let selector = Selector::parse(part).ok_or_else(|| {
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

/// A repository-relative path that stays inside the repository.
fn check_path(path: &str) -> Result<(), Refusal> {
    let escapes = path.starts_with('/')
        || path.contains('\\')
        || path.split('/').any(|part| part == "..")
        || path.get(1..2) == Some(":");
    if escapes {
        return Err((
            format!("`{path}` is outside the repository"),
            "write the path relative to the repository root, without `..` or a leading `/`",
        ));
    }
    let inner = path.trim_end_matches('/');
    if inner.is_empty() || inner.split('/').any(|part| part.is_empty() || part == ".") {
        return Err((
            format!("`{path}` is not a normalised repository path"),
            "write the path relative to the repository root, e.g. `src/app.py`, without empty or `.` parts",
        ));
    }
    if path != path.trim() {
        return Err((
            format!("`{path}` starts or ends with whitespace"),
            "write the path and its selectors without spaces around them: `src/app.py#login`",
        ));
    }
    Ok(())
}

/// Refusals that need the whole node: duplicates and bare+scoped mixing.
fn check_entry_set(entries: &[Entry]) -> Result<(), (u32, String, &'static str)> {
    let mut seen: HashSet<(Relation, &str)> = HashSet::new();
    for entry in entries {
        if !seen.insert((entry.relation, entry.raw.trim())) {
            return Err((
                entry.line,
                format!("entry `{}` is listed twice", entry.raw.trim()),
                "remove the duplicate entry",
            ));
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

fn line_of_offset(bytes: &[u8], offset: usize) -> u32 {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
        + 1
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
            ("---\ncode: 3\n---\n", 2, "broken frontmatter"),
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
