//! The grammar-independent half of both extractors: the UTF-8 check, running a tree-sitter
//! grammar (from scratch or over an edited old tree), locating the first syntax error and
//! the lines that did not parse, tolerant extraction ([`tolerate`]: which units of a tree
//! with errors still stand), node → line arithmetic, and the collector that merges
//! declarations the language treats as one symbol (overloads, accessors) into one unit.
//!
//! Does not own: which nodes are declarations, how they are named, or which role a
//! declaration plays in a group — each language's walk decides that.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Parser, Tree};

use super::kinds::KindName as _;
use super::{ExtractError, LineRange, Partial, Unit, UnitKind};

/// The offset where each line of `text` starts, as keel's diff splits lines (after each
/// `\n`; a last line without one is a line; an empty text has none), then the length.
pub(super) fn line_starts(text: &[u8]) -> Vec<usize> {
    if text.is_empty() {
        return vec![0];
    }
    let mut starts = Vec::with_capacity(text.len() / 32 + 2);
    starts.push(0);
    starts.extend(
        memchr::memchr_iter(b'\n', text)
            .map(|newline| newline + 1)
            .filter(|&start| start < text.len()),
    );
    starts.push(text.len());
    starts
}

/// A parser set to `grammar`; the grammar's failure to load is [`ExtractError::Unavailable`].
pub(super) fn parser_for(
    grammar: &tree_sitter::Language,
    grammar_name: &str,
) -> Result<Parser, ExtractError> {
    let mut parser = Parser::new();
    parser
        .set_language(grammar)
        .map_err(|error| ExtractError::Unavailable {
            reason: format!("the {grammar_name} grammar cannot be loaded: {error}"),
        })?;
    Ok(parser)
}

/// Runs `parser` over `content`, reusing `old` (already edited to match `content`) when
/// given. The tree may hold errors: [`check`] and [`tolerate`] decide.
pub(super) fn run(
    parser: &mut Parser,
    content: &[u8],
    old: Option<&Tree>,
    grammar_name: &str,
) -> Result<Tree, ExtractError> {
    parser
        .parse(content, old)
        .ok_or_else(|| ExtractError::Unavailable {
            reason: format!("the {grammar_name} parser returned no tree"),
        })
}

/// A tree holding an ERROR or MISSING node is unparseable at the first one, with nothing
/// of it kept: the whole-tree check the splice needs of an isolated parse.
pub(super) fn check(tree: &Tree) -> Result<(), ExtractError> {
    let root = tree.root_node();
    if root.has_error() {
        return Err(unparseable_at(first_error(root), Partial::default()));
    }
    Ok(())
}

/// The units of a tree that still stand: all of `units` (the walk of `tree` over
/// `source`) when the tree is error-free. Otherwise the file is unparseable at its first
/// error, and [`Partial`] carries every unit that is not broken and not enclosed by a
/// broken one — none when no unit stands, so a file that yields nothing is unparseable as
/// a whole. A unit is broken when its lines meet a line that did not parse, or when an
/// identifier inside an ERROR node spells its name (the last segment of its qualified
/// name): a declaration of that name may be hidden there, another member of its group
/// or a second unit of that name, so neither its range nor its uniqueness can be trusted.
/// (Both grammars name their identifier tokens `…identifier`.)
pub(super) fn tolerate(
    tree: &Tree,
    source: &str,
    units: Vec<Unit>,
) -> Result<Vec<Unit>, ExtractError> {
    let root = tree.root_node();
    if !root.has_error() {
        return Ok(units);
    }
    let errors = Errors::of(root, source);
    let broken: Vec<&Unit> = units.iter().filter(|unit| errors.breaks(unit)).collect();
    let (standing, left): (Vec<&Unit>, Vec<&Unit>) = units.iter().partition(|unit| {
        !errors.breaks(unit) && !broken.iter().any(|outer| encloses(outer, unit))
    });
    let partial = if standing.is_empty() {
        Partial::default()
    } else {
        let mut left_out: Vec<String> = left.iter().map(|unit| unit.name.clone()).collect();
        left_out.sort();
        left_out.dedup();
        Partial {
            units: standing.into_iter().cloned().collect(),
            unparsed: errors.lines,
            left_out,
        }
    };
    Err(unparseable_at(first_error(root), partial))
}

/// Whether `outer` lexically encloses `inner`: its qualified name is a prefix of
/// `inner`'s (up to a `.`) and its lines hold `inner`'s.
fn encloses(outer: &Unit, inner: &Unit) -> bool {
    inner
        .name
        .strip_prefix(outer.name.as_str())
        .is_some_and(|rest| rest.starts_with('.'))
        && outer.start_line <= inner.start_line
        && inner.end_line <= outer.end_line
}

/// What did not parse in a tree.
struct Errors<'s> {
    /// The lines of every ERROR and MISSING node (an ERROR node's whole extent: what it
    /// holds did not parse as what it seems), sorted, merged where they meet or adjoin.
    lines: Vec<LineRange>,
    /// The text of every identifier token inside an ERROR node.
    names: HashSet<&'s str>,
}

impl<'s> Errors<'s> {
    fn of(root: Node<'_>, source: &'s str) -> Self {
        let mut found = Vec::new();
        let mut names = HashSet::new();
        let mut pending = vec![root];
        while let Some(node) = pending.pop() {
            if node.is_error() || node.is_missing() {
                found.push(LineRange {
                    start: first_line(node),
                    end: last_line(node),
                });
                if node.is_error() {
                    names.extend(identifiers(node, source));
                }
            } else if node.has_error() {
                let mut cursor = node.walk();
                pending.extend(node.children(&mut cursor));
            }
        }
        found.sort_by_key(|lines| (lines.start, lines.end));
        let mut lines: Vec<LineRange> = Vec::with_capacity(found.len());
        for range in found {
            match lines.last_mut() {
                Some(last) if range.start <= last.end.saturating_add(1) => {
                    last.end = last.end.max(range.end);
                }
                _ => lines.push(range),
            }
        }
        Self { lines, names }
    }

    /// Whether `unit` is broken: its lines meet a line that did not parse, or an
    /// identifier that did not parse spells its name.
    fn breaks(&self, unit: &Unit) -> bool {
        let own = unit.name.rsplit('.').next().unwrap_or(&unit.name);
        self.names.contains(own)
            || self
                .lines
                .iter()
                .any(|lines| lines.start <= unit.end_line && unit.start_line <= lines.end)
    }
}

/// The identifier tokens of `node`'s subtree.
fn identifiers<'s>(node: Node<'_>, source: &'s str) -> Vec<&'s str> {
    let mut found = Vec::new();
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        if node.child_count() == 0 {
            if node.kind_name().ends_with("identifier")
                && let Some(name) = text(node, source)
            {
                found.push(name);
            }
        } else {
            let mut cursor = node.walk();
            pending.extend(node.children(&mut cursor));
        }
    }
    found
}

/// Content that is not UTF-8 is unparseable at the line of its first invalid byte.
pub(super) fn as_text(content: &[u8]) -> Result<&str, ExtractError> {
    std::str::from_utf8(content).map_err(|error| ExtractError::Unparseable {
        line: line_of(content, error.valid_up_to()),
        reason: format!("not UTF-8 (invalid byte at offset {})", error.valid_up_to()),
        partial: Partial::default(),
    })
}

/// The 1-based line holding byte `offset` of `content` (lines end at `\n`).
pub(super) fn line_of(content: &[u8], offset: usize) -> u32 {
    let before = content.get(..offset).unwrap_or(content);
    to_line(before.iter().filter(|&&byte| byte == b'\n').count())
}

/// The first ERROR or MISSING node in document order, found by descending into the first
/// child that carries an error. Falls back to the deepest node reached when no child
/// carries it.
fn first_error(root: Node<'_>) -> Node<'_> {
    let mut node = root;
    loop {
        if node.is_error() || node.is_missing() {
            return node;
        }
        let mut cursor = node.walk();
        let erroneous = node
            .children(&mut cursor)
            .find(|child| child.has_error() || child.is_missing());
        match erroneous {
            Some(child) => node = child,
            None => return node,
        }
    }
}

fn unparseable_at(node: Node<'_>, partial: Partial) -> ExtractError {
    let column = node.start_position().column + 1;
    let reason = if node.is_missing() {
        format!("missing `{}` at column {column}", node.kind_name())
    } else {
        format!("syntax error at column {column}")
    };
    ExtractError::Unparseable {
        line: first_line(node),
        reason,
        partial,
    }
}

/// A 0-based row as a 1-based line number.
fn to_line(row: usize) -> u32 {
    u32::try_from(row.saturating_add(1)).unwrap_or(u32::MAX)
}

/// The 1-based line a node starts on.
pub(super) fn first_line(node: Node<'_>) -> u32 {
    to_line(node.start_position().row)
}

/// The 1-based line a node ends on (inclusive): a node whose end sits at column 0 of a
/// later line ends on the line before.
pub(super) fn last_line(node: Node<'_>) -> u32 {
    let (start, end) = (node.start_position(), node.end_position());
    if end.column == 0 && end.row > start.row {
        to_line(end.row - 1)
    } else {
        to_line(end.row)
    }
}

/// The source text of a node; `None` only if the node's bytes are not a `str` slice.
pub(super) fn text<'s>(node: Node<'_>, source: &'s str) -> Option<&'s str> {
    source.get(node.byte_range())
}

/// 1-based inclusive line range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lines {
    pub(super) start: u32,
    pub(super) end: u32,
}

impl Lines {
    pub(super) fn of(node: Node<'_>) -> Self {
        Self {
            start: first_line(node),
            end: last_line(node),
        }
    }

    /// The smallest range covering both.
    pub(super) fn union(self, other: Self) -> Self {
        Self {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// How a declaration combines with other declarations of the same qualified name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// An ordinary declaration. If an overload group of its name and kind is waiting for its
    /// implementation, this declaration is that implementation and closes the group;
    /// otherwise it is a unit of its own.
    Plain,
    /// An overload signature or stub: joins the waiting overload group of its name and
    /// kind, or opens one.
    Overload,
    /// One accessor of a property, named by a bit (language-defined): joins the open
    /// accessor group of its name and kind while that bit is still free there, else opens
    /// a new group.
    Accessor(u8),
    /// A declaration that rebinds the last unit of its name, whatever that unit's own
    /// role (Python `@name.setter`): joins the last unit of its name and kind, or opens a
    /// unit of its own when there is none. Leaves what that unit still accepts unchanged.
    Extends,
}

/// A declaration found by a language walk, in document order.
#[derive(Debug, Clone)]
pub(super) struct Declaration {
    pub(super) name: String,
    pub(super) kind: UnitKind,
    pub(super) lines: Lines,
    pub(super) role: Role,
}

/// What the last unit of a name still accepts.
#[derive(Debug, Clone, Copy)]
enum Open {
    /// An overload group without its implementation yet.
    Overload,
    /// An accessor group; the bits of the accessors it already has.
    Accessors(u8),
}

/// Collects declarations (in document order) into units, merging groups.
#[derive(Debug, Default)]
pub(super) struct Collector {
    units: Vec<Unit>,
    /// Qualified name → (index into `units`, what that unit still accepts).
    open: HashMap<String, (usize, Open)>,
    /// Qualified name → index into `units` of the last unit of that name.
    last: HashMap<String, usize>,
}

impl Collector {
    pub(super) fn add(&mut self, declaration: Declaration) {
        let kind = declaration.kind;
        if declaration.role == Role::Extends {
            let last = self.last.get(&declaration.name).copied();
            match last.filter(|&index| self.units[index].kind == kind) {
                Some(index) => self.extend(index, declaration.lines),
                None => self.start(declaration, Role::Extends),
            }
            return;
        }
        let open = self.open.get(&declaration.name).copied();
        let target = open.filter(|&(index, _)| self.units[index].kind == kind);
        match (declaration.role, target) {
            (Role::Overload, Some((index, Open::Overload))) => {
                self.extend(index, declaration.lines);
            }
            (Role::Plain, Some((index, Open::Overload))) => {
                self.extend(index, declaration.lines);
                self.open.remove(&declaration.name);
            }
            (Role::Accessor(bit), Some((index, Open::Accessors(bits)))) if bits & bit == 0 => {
                self.extend(index, declaration.lines);
                self.open
                    .insert(declaration.name, (index, Open::Accessors(bits | bit)));
            }
            (role, _) => self.start(declaration, role),
        }
    }

    /// The units, ordered by start line, then name (then end line and kind, so the order
    /// is total).
    pub(super) fn finish(self) -> Vec<Unit> {
        let mut units = self.units;
        units.sort_by(|a, b| {
            (a.start_line, &a.name, a.end_line, a.kind).cmp(&(
                b.start_line,
                &b.name,
                b.end_line,
                b.kind,
            ))
        });
        units
    }

    fn extend(&mut self, index: usize, lines: Lines) {
        let unit = &mut self.units[index];
        let merged = Lines {
            start: unit.start_line,
            end: unit.end_line,
        }
        .union(lines);
        unit.start_line = merged.start;
        unit.end_line = merged.end;
    }

    fn start(&mut self, declaration: Declaration, role: Role) {
        let index = self.units.len();
        self.units.push(Unit {
            name: declaration.name.clone(),
            kind: declaration.kind,
            start_line: declaration.lines.start,
            end_line: declaration.lines.end,
        });
        self.last.insert(declaration.name.clone(), index);
        match role {
            Role::Plain | Role::Extends => {
                self.open.remove(&declaration.name);
            }
            Role::Overload => {
                self.open.insert(declaration.name, (index, Open::Overload));
            }
            Role::Accessor(bit) => {
                self.open
                    .insert(declaration.name, (index, Open::Accessors(bit)));
            }
        }
    }
}

/// `prefix.name`, or `name` at the top level (empty prefix).
pub(crate) fn qualify(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_starts_follow_keels_line_split() {
        // (text, starts): a `\n` ending the text starts no line; the length comes last.
        let table: [(&[u8], &[usize]); 6] = [
            (b"", &[0]),
            (b"a", &[0, 1]),
            (b"a\n", &[0, 2]),
            (b"a\nb", &[0, 2, 3]),
            (b"\n\n", &[0, 1, 2]),
            (b"one\r\ntwo\n\nthree", &[0, 5, 9, 10, 15]),
        ];
        for (text, starts) in table {
            assert_eq!(
                line_starts(text),
                starts,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    fn declaration(name: &str, start: u32, end: u32, role: Role) -> Declaration {
        Declaration {
            name: name.to_owned(),
            kind: UnitKind::Function,
            lines: Lines { start, end },
            role,
        }
    }

    fn collect(declarations: Vec<Declaration>) -> Vec<(String, u32, u32)> {
        let mut collector = Collector::default();
        for declaration in declarations {
            collector.add(declaration);
        }
        collector
            .finish()
            .into_iter()
            .map(|unit| (unit.name, unit.start_line, unit.end_line))
            .collect()
    }

    fn expected(rows: &[(&str, u32, u32)]) -> Vec<(String, u32, u32)> {
        rows.iter()
            .map(|&(name, start, end)| (name.to_owned(), start, end))
            .collect()
    }

    #[test]
    fn overloads_close_at_their_implementation() {
        let got = collect(vec![
            declaration("f", 1, 1, Role::Overload),
            declaration("f", 2, 2, Role::Overload),
            declaration("f", 3, 5, Role::Plain),
            declaration("f", 6, 7, Role::Plain),
        ]);
        assert_eq!(got, expected(&[("f", 1, 5), ("f", 6, 7)]));
    }

    #[test]
    fn accessors_join_while_their_slot_is_free() {
        let got = collect(vec![
            declaration("x", 1, 2, Role::Accessor(1)),
            declaration("x", 3, 4, Role::Accessor(2)),
            declaration("x", 5, 6, Role::Accessor(2)),
        ]);
        assert_eq!(got, expected(&[("x", 1, 4), ("x", 5, 6)]));
    }

    #[test]
    fn extensions_join_the_last_unit_of_their_name_whatever_its_role() {
        let got = collect(vec![
            declaration("a", 1, 2, Role::Extends),
            declaration("p", 3, 4, Role::Plain),
            declaration("q", 5, 6, Role::Plain),
            declaration("p", 7, 8, Role::Extends),
            declaration("p", 9, 10, Role::Extends),
            declaration("p", 11, 12, Role::Plain),
            declaration("p", 13, 14, Role::Extends),
        ]);
        assert_eq!(
            got,
            expected(&[("a", 1, 2), ("p", 3, 10), ("q", 5, 6), ("p", 11, 14)])
        );
        let mut collector = Collector::default();
        collector.add(Declaration {
            kind: UnitKind::Class,
            ..declaration("c", 1, 2, Role::Plain)
        });
        collector.add(declaration("c", 3, 4, Role::Extends));
        assert_eq!(collector.finish().len(), 2, "groups need the same kind");
    }

    #[test]
    fn plain_repeats_stay_separate() {
        let got = collect(vec![
            declaration("g", 3, 4, Role::Plain),
            declaration("g", 1, 2, Role::Plain),
        ]);
        assert_eq!(got, expected(&[("g", 1, 2), ("g", 3, 4)]));
    }

    #[test]
    fn groups_need_the_same_kind() {
        let mut collector = Collector::default();
        collector.add(declaration("f", 1, 1, Role::Overload));
        collector.add(Declaration {
            kind: UnitKind::Class,
            ..declaration("f", 2, 3, Role::Plain)
        });
        assert_eq!(collector.finish().len(), 2);
    }

    #[test]
    fn invalid_utf8_names_the_line_of_the_first_bad_byte() {
        let got = as_text(b"ok\nstill ok\nbad \xff here\n");
        assert!(
            matches!(got, Err(ExtractError::Unparseable { line: 3, .. })),
            "{got:?}"
        );
    }
}
