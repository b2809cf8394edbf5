//! The Python splice: the units of a new version of a file from the OUTLINE of an older
//! one, parsing only the statements the change touches, in isolation.
//!
//! Owns: the [`Outline`] of an error-free Python source (its top-level statements as row
//! ranges, each with the raw declarations it produced, and for a `def` or `class` the
//! same for the statements of its body, down to [`MAX_DEPTH`] bodies), building it from a
//! tree, and [`splice`]: mapping the line diff's hunks onto the outline — at each level, a
//! hunk inside the body of a definition goes one level down, one inside its header (the
//! rows up to its body's first statement) is parsed with that header alone, one strictly
//! inside a docstring that brings no quote or backslash is not parsed at all (the string
//! still ends at its unchanged closing delimiter), any other stays at that level; at each
//! level the smallest runs of touched statements ("middles") covering them, a changed
//! row between statements or a pure insertion at a boundary touching both neighbours, a
//! middle whose new first line starts no statement taking in the statement before it —
//! parsing each middle alone, checking that the isolated parse says what a full parse
//! would, and reassembling declarations and outline.
//! A refused body is retried one level up; a refusal at the top level is a [`Refusal`] of
//! the whole version, and the caller then parses as before.
//! Does not own: the walk (`python`), grouping declarations into units (`Collector`),
//! when to splice or what to do on refusal (`reuse`).
//!
//! ### Why a splice equals a full parse
//! Python's lexical state is reset at the start of a line that begins a statement at
//! column 0 outside brackets and strings: no open bracket, no open string, indentation
//! stack `[0]`. A top-level statement of an error-free old parse ends before such a line
//! (its successor), so the rows up to it (the prefix, byte-equal in the new version) parse
//! the same whatever follows them, PROVIDED the next line is again a statement start that
//! cannot continue them: not blank, not a comment, at column 0, not an `else`/`elif`/
//! `except`/`finally`/`case` clause, and (for the scanner's dedent rule) not a quote. The
//! middle then starts from that reset state, which is exactly the state at the start of a
//! file: parsing its new lines alone gives the tree a full parse gives them. Its end is
//! pinned the same way: the line after it (the suffix's first line) is a statement start
//! in the new version, so the middle is parsed followed by the sentinel `pass` at that
//! line's indentation — a complete simple statement that nothing can continue into
//! (`pass` is no expression), so an unclosed bracket, string or block, or a trailing `\`,
//! makes the isolated parse fail rather than borrow from the suffix; the scanner, which
//! decides where a block and its trailing comments end by the indentation of the next
//! non-comment line, sees the same indentation as before the real suffix. The suffix then
//! starts in the reset state too and parses as it did, rows shifted.
//!
//! Middles are independent: each is bounded by statement starts of the new version, so
//! what lies between two middles starts and ends in the reset state too (runs that
//! overlap are merged into one; runs that only touch stay apart, the line between them
//! checked as the end of one and the start of the other).
//!
//! Inside a body the same holds one level down: the statements of a body `d` levels deep
//! start at its indentation `I_d` with the indentation stack `[0, I_1, …, I_d]`. The middle
//! is parsed inside `d` wrapper headers (`class _:` at `I_0 = ""`, …, `I_{d-1}`) — the
//! same indentation stack — followed by `pass` at the indentation of the level where the
//! next statement of the file sits (none at the end of the file), and is accepted only if
//! the isolated tree is that chain of wrappers, one per level (each followed only by the
//! sentinel at its level), with every statement of the middle inside the innermost, so
//! nothing dedented out of the body. Where the middle reaches the end of a body, each
//! definition that ends with it takes its new last row from its wrapper.
//!
//! A header is parsed the same way, followed by a stand-in body (`def _(): pass` at the
//! body's indentation) that nothing on the header's logical line can absorb; it must come
//! back as one definition of the same name and kind whose body is the stand-in, and no
//! line of the header may end with `\` (neither in the new version nor in the one the
//! outline describes: a body after a continued header is not described at all). The
//! header then ends with its `:` and a new line that opens the body as before, so the
//! unchanged body parses as it did, its rows moved by what the header grew.
//!
//! Only error-free isolated parses are accepted (an error means refusal, never an answer),
//! so an `Unparseable` answer always comes from a full parse. Declarations carry only
//! names, kinds, roles and rows, and the roles depend only on a declaration's own
//! decorators; grouping (`@overload`, property accessors) is global and runs afterwards
//! over the declarations of the whole file in document order, as the full walk feeds it.
//! `tests/it/splice.rs` checks splice == full parse on adversarial randomized histories.

use std::ops::Range;
use std::sync::Arc;

use tree_sitter::{Node, Parser};

use super::kinds::KindName as _;
use super::python::{self, Enclosing};
use super::syntax::{self, Collector, Declaration};
use super::{ExtractError, Unit};
use crate::diff::{Hunk, changed_stretch_hunks};

/// One statement of a block, with its raw declarations. Its rows (and its declarations'
/// lines) are relative to the start of the definition whose body holds it — absolute for
/// a top-level statement — so moving a definition leaves its body's outline shared.
#[derive(Debug, Clone)]
struct Segment {
    /// First and last row (0-based, inclusive).
    start: usize,
    end: usize,
    /// In document order; for a definition with a [`Body`], only its own declaration.
    declarations: Vec<Declaration>,
    /// The statements of a `def` or `class` body the splice may descend into.
    body: Option<Arc<Body>>,
    /// For a statement that is one triple-quoted string alone (a docstring; no f-string):
    /// the quote its delimiter repeats.
    quote: Option<u8>,
}

/// The statements of one `def` or `class` body, rows relative to the definition's start.
#[derive(Debug)]
struct Body {
    /// The whitespace before its first statement (it extends the definition's own).
    indent: Box<[u8]>,
    /// Whether the definition is a class (its functions are methods).
    class: bool,
    /// Never empty.
    members: Vec<Segment>,
}

/// The top-level statements of one error-free Python source with their declarations: what
/// the splice needs of the previous version instead of its tree.
#[derive(Debug, Clone)]
pub(super) struct Outline {
    segments: Vec<Segment>,
    /// Where the source's lines start.
    lines: LineIndex,
}

impl Outline {
    /// The outline of an error-free tree of `source`.
    pub(super) fn of(tree: &tree_sitter::Tree, source: &str) -> Self {
        let children = statements(tree.root_node());
        Self {
            segments: segments(&children, source, Enclosing::Module, b"", 0, 0),
            lines: LineIndex::new(source.as_bytes()),
        }
    }

    /// The units: every declaration in document order, grouped.
    pub(super) fn units(&self) -> Vec<Unit> {
        let mut collector = Collector::default();
        for declaration in flattened(&self.segments, 0) {
            collector.add(declaration);
        }
        collector.finish()
    }
}

/// Every declaration of `segments` and their bodies in document order, moved `base` rows.
fn flattened(segments: &[Segment], base: isize) -> Vec<Declaration> {
    let mut out = Vec::new();
    let mut pending: Vec<(&[Segment], isize)> = vec![(segments, base)];
    // Depth first in document order: a body's declarations follow its owner's own.
    while let Some((block, base)) = pending.pop() {
        let Some((segment, rest)) = block.split_first() else {
            continue;
        };
        pending.push((rest, base));
        out.extend(segment.declarations.iter().map(|d| shifted(d, base)));
        if let Some(body) = &segment.body {
            pending.push((&body.members, base + signed(segment.start)));
        }
    }
    out
}

impl Segment {
    /// The same segment `delta` rows further down (its body moves with it).
    fn shifted(&self, delta: isize) -> Self {
        Self {
            start: moved(self.start, delta),
            end: moved(self.end, delta),
            declarations: self
                .declarations
                .iter()
                .map(|declaration| shifted(declaration, delta))
                .collect(),
            body: self.body.clone(),
            quote: self.quote,
        }
    }
}

/// Why a splice was not done. The caller parses as before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// The changes do not all lie in the statements of one body (body level only).
    NotOneClass,
    /// A change lies outside the outline's rows, or the unchanged ends differ.
    Misaligned,
    /// The middle's first line is blank, a comment, a quote or at another indentation.
    StartNotStatement,
    /// The middle's first line is an `else`/`elif`/`except`/`finally`/`case` clause.
    StartContinues,
    /// The suffix's first line is no statement start at the segment indentation.
    SuffixStart,
    /// The middle alone does not parse.
    SyntaxError,
    /// The isolated tree is not the middle inside its wrappers followed by the sentinel.
    Shape,
    /// A line of a definition's new header ends with `\`, which would join the body's
    /// first line to it.
    Continuation,
}

impl Refusal {
    /// A short label for benches and test messages.
    pub fn label(self) -> &'static str {
        match self {
            Self::NotOneClass => "not in one body",
            Self::Misaligned => "misaligned",
            Self::StartNotStatement => "start not a statement",
            Self::StartContinues => "start continues a clause",
            Self::SuffixStart => "suffix start",
            Self::SyntaxError => "syntax error",
            Self::Shape => "shape",
            Self::Continuation => "line continuation",
        }
    }
}

/// Which level a refusal happened at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The statements of a `def` or `class` body (that definition is then spliced one
    /// level up).
    Member,
    /// Top-level statements (the version is then parsed as before).
    Top,
}

/// A successful splice.
pub(super) struct Spliced {
    pub(super) units: Vec<Unit>,
    pub(super) outline: Outline,
    /// How many bodies down the shallowest middle was parsed: 0 at the top level, 1 in
    /// the body of a top-level `def` or `class`, and so on; `None` when nothing changed.
    pub(super) shallowest: Option<usize>,
    /// Bodies whose splice was refused (spliced one level up instead).
    pub(super) refused: Vec<Refusal>,
}

/// The units and outline of `new`, from `outline` (of `old`) and isolated parses of what
/// changed: at each level, runs of touched statements, descending into the body of a
/// `def` or `class` whose header a change leaves alone. `Err` holds the refusals;
/// `parsed` grows by the bytes parsed in isolation either way.
pub(super) fn splice(
    outline: &Outline,
    old: &[u8],
    new: &[u8],
    known: Option<&[Hunk]>,
    parser: &mut Parser,
    parsed: &mut u64,
) -> Result<Spliced, Vec<(Level, Refusal)>> {
    if old == new {
        return Ok(Spliced {
            units: outline.units(),
            outline: outline.clone(),
            shallowest: None,
            refused: Vec::new(),
        });
    }
    let old_lines = &outline.lines;
    if old_lines.len() != old.len() {
        return Err(vec![(Level::Top, Refusal::Misaligned)]);
    }
    let new_lines = LineIndex::new(new);
    let changes: Vec<Change> = match known {
        Some(hunks) => hunks.iter().map(Change::of).collect(),
        None => changed_stretch_hunks(old, new)
            .iter()
            .map(Change::of)
            .collect(),
    };
    let text = Texts {
        old,
        new,
        old_lines,
        new_lines: &new_lines,
    };
    let mut refusals = Vec::new();
    let top = Block {
        members: &outline.segments,
        origin: 0,
        zone: 0..old_lines.count(),
        indents: vec![b""],
        follower: None,
        enclosing: Enclosing::Module,
        grown: 0,
    };
    let mut splicer = Splicer {
        text: &text,
        parser,
        refusals: &mut refusals,
        parsed,
    };
    let done = splicer.block(&top, &changes);
    match done.and_then(|done| unchanged_between(&done.middles, &text).map(|()| done)) {
        Ok(done) => {
            let outline = Outline {
                segments: done.members,
                lines: new_lines.clone(),
            };
            Ok(Spliced {
                units: outline.units(),
                outline,
                shallowest: done.shallowest,
                refused: refusals.into_iter().map(|(_, refusal)| refusal).collect(),
            })
        }
        Err(refusal) => {
            refusals.push((Level::Top, refusal));
            Err(refusals)
        }
    }
}

/// Both versions and where their lines start.
struct Texts<'a> {
    old: &'a [u8],
    new: &'a [u8],
    old_lines: &'a LineIndex,
    new_lines: &'a LineIndex,
}

/// One hunk of the line diff, in rows: old rows `old_start..old_end` became new rows
/// `new_start..new_end`.
#[derive(Debug, Clone, Copy)]
struct Change {
    old_start: usize,
    old_end: usize,
    new_start: usize,
    new_end: usize,
}

impl Change {
    fn of(hunk: &Hunk) -> Self {
        Self {
            old_start: row(hunk.before.start),
            old_end: row(hunk.before.end),
            new_start: row(hunk.after.start),
            new_end: row(hunk.after.end),
        }
    }

    /// Whether the change lies in old rows `zone` (a pure insertion may sit at its end).
    fn within(&self, zone: &Range<usize>) -> bool {
        zone.start <= self.old_start
            && if self.old_start < self.old_end {
                self.old_end <= zone.end
            } else {
                self.old_start <= zone.end
            }
    }

    /// Whether the change lies strictly in old rows `zone`: a modification inside it, or a
    /// pure insertion between two of its rows (one at either edge belongs to a neighbour).
    fn inside(&self, zone: &Range<usize>) -> bool {
        if self.old_start < self.old_end {
            zone.start <= self.old_start && self.old_end <= zone.end
        } else {
            zone.start < self.old_start && self.old_start < zone.end
        }
    }

    /// How far rows before this change move (none of the earlier changes lies between).
    fn shift_before(&self) -> isize {
        signed(self.new_start) - signed(self.old_start)
    }

    /// How far rows after this change move (up to the next change).
    fn shift_after(&self) -> isize {
        signed(self.new_end) - signed(self.old_end)
    }
}

/// A run of touched statements of one block: `first..after` are replaced, and `changes`
/// (indices into the block's changes) are the changes inside it. `from`: the old row its
/// middle starts at when that is not statement `first`'s start (a run of no statements
/// inserted in the gap before it, see [`inserted_between`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    first: usize,
    after: usize,
    changes: Range<usize>,
    from: Option<usize>,
}

/// The old and new rows of one middle: old rows `old` became new rows `new`.
#[derive(Debug, Clone)]
struct Rows {
    old: Range<usize>,
    new: Range<usize>,
}

/// The first and last old row of a statement (absolute).
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

/// The run of statements (`spans`, all in old rows `zone`) that one change touches: a
/// changed row inside a statement touches it, one between two statements (blank, comment)
/// or a pure insertion at a boundary touches the statements on both sides. `None` when the
/// change is not inside `zone`.
fn touched(spans: &[Span], change: &Change, zone: &Range<usize>) -> Option<(usize, usize)> {
    // Positions: 2i is the gap before statement i (2n after the last), 2i+1 statement i.
    let n = spans.len();
    let position = |row: usize| {
        let i = spans.partition_point(|span| span.start <= row);
        match i.checked_sub(1) {
            Some(inside) if row <= spans[inside].end => 2 * inside + 1,
            _ => 2 * i,
        }
    };
    let (a, b) = (change.old_start, change.old_end);
    let (low, high) = if a < b {
        if a < zone.start || b > zone.end {
            return None;
        }
        (position(a), position(b - 1))
    } else {
        if a < zone.start || a > zone.end {
            return None;
        }
        let low = if a > zone.start {
            position(a - 1)
        } else {
            position(a)
        };
        let high = if a < zone.end { position(a) } else { 2 * n };
        (low, high)
    };
    let first = if low % 2 == 1 {
        low / 2
    } else {
        (low / 2).saturating_sub(1)
    };
    let after = if high % 2 == 1 {
        high / 2 + 1
    } else {
        (high / 2 + 1).min(n)
    };
    Some((first, after))
}

/// What one stretch of a block's changes becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Claim {
    /// Statements spliced as one middle.
    Run(Run),
    /// Definition `at` spliced in two parts: the changes inside its header (its rows up
    /// to its body's first statement) by parsing the new header alone, those in its body
    /// one level down.
    Descend { at: usize, changes: Range<usize> },
    /// Changes strictly inside the string of statement `at` (a docstring, not the last
    /// statement of its block) that bring no quote or backslash: nothing is parsed.
    Text { at: usize, changes: Range<usize> },
}

impl Claim {
    fn statements(&self) -> Range<usize> {
        match self {
            Self::Run(run) => run.first..run.after,
            Self::Descend { at, .. } | Self::Text { at, .. } => *at..*at + 1,
        }
    }

    fn changes(&self) -> Range<usize> {
        match self {
            Self::Run(run) => run.changes.clone(),
            Self::Descend { changes, .. } | Self::Text { changes, .. } => changes.clone(),
        }
    }
}

/// One block of statements being spliced and where it sits.
struct Block<'o> {
    /// Its statements, rows relative to `origin`.
    members: &'o [Segment],
    /// The old row the members' rows count from.
    origin: usize,
    /// The old rows its changes may lie in: from its first statement to the next
    /// statement of an enclosing block (or the end).
    zone: Range<usize>,
    /// The indentation of each block from the top level (empty) down to this one.
    indents: Vec<&'o [u8]>,
    /// The innermost enclosing level (an index into `indents`, this block's excluded) at
    /// which a statement follows this block; `None` when the file ends with it.
    follower: Option<usize>,
    /// What its statements are walked in.
    enclosing: Enclosing<'o>,
    /// How many rows its owner's header grew (a body's rows count from its owner's start,
    /// which a header change leaves in place).
    grown: isize,
}

impl Block<'_> {
    fn depth(&self) -> usize {
        self.indents.len() - 1
    }

    fn indent(&self) -> &[u8] {
        self.indents.last().copied().unwrap_or_default()
    }

    /// The wrapper headers an isolated parse of this block's statements starts with: one
    /// `class _:` per enclosing level, at that level's indentation.
    fn wrappers(&self) -> Vec<u8> {
        let mut isolated = Vec::new();
        for wrapper in &self.indents[..self.depth()] {
            isolated.extend_from_slice(wrapper);
            isolated.extend_from_slice(b"class _:\n");
        }
        isolated
    }

    /// New row `row` starts a statement of this block (a string allowed when `quote`), or
    /// why not.
    fn starts_statement(&self, text: &Texts<'_>, row: usize, quote: bool) -> Result<(), Refusal> {
        let line = text
            .new_lines
            .line(text.new, row)
            .ok_or(Refusal::StartNotStatement)?;
        statement_start(line, self.indent(), quote).map_err(|refusal| match refusal {
            Refusal::SuffixStart => Refusal::StartNotStatement,
            other => other,
        })
    }

    /// The absolute old rows of its statements.
    fn spans(&self) -> Vec<Span> {
        let origin = signed(self.origin);
        self.members
            .iter()
            .map(|member| Span {
                start: moved(member.start, origin),
                end: moved(member.end, origin),
            })
            .collect()
    }

    /// The old rows of the header of definition `at` (decorators, signature, and any
    /// comment before its body): from its first row to its body's first statement.
    fn header_zone(&self, spans: &[Span], at: usize) -> Option<Range<usize>> {
        let body = self.members.get(at)?.body.as_ref()?;
        let start = spans.get(at)?.start;
        Some(start..start + body.members.first()?.start)
    }

    /// The old rows of the body of statement `at` and the gap after it: from its first
    /// statement to the next statement of this block (or this block's zone end).
    fn body_zone(&self, spans: &[Span], at: usize) -> Option<Range<usize>> {
        let body = self.members.get(at)?.body.as_ref()?;
        let first = spans.get(at)?.start + body.members.first()?.start;
        let end = spans.get(at + 1).map_or(self.zone.end, |next| next.start);
        Some(first..end)
    }
}

/// What splicing one block gave.
struct BlockSplice {
    /// The changes it took (indices into its parent block's changes).
    changes: Range<usize>,
    /// Its new statements, rows relative to its owner's new start.
    members: Vec<Segment>,
    /// Every middle parsed inside it, in document order.
    middles: Vec<Rows>,
    /// How many bodies down its shallowest middle was parsed (see [`Spliced`]).
    shallowest: Option<usize>,
    /// When the change reaches this block's end: the new last rows (absolute) of the
    /// definitions that end with it, innermost (this block's owner) first.
    tails: Vec<usize>,
    /// The owner's new header, when a change lies in it.
    header: Option<Header>,
}

/// A definition's header parsed alone.
struct Header {
    /// The definition's own declaration, lines in absolute new rows (its end is the
    /// stand-in body's).
    own: Declaration,
    /// Its old and new rows.
    rows: Rows,
}

impl Header {
    /// How many rows longer the header became (its body moved that far down within it).
    fn grown(&self) -> isize {
        signed(self.rows.new.len()) - signed(self.rows.old.len())
    }
}

/// The state one splice threads through its levels.
struct Splicer<'a, 'p> {
    text: &'a Texts<'a>,
    parser: &'p mut Parser,
    refusals: &'p mut Vec<(Level, Refusal)>,
    /// Bytes parsed in isolation so far.
    parsed: &'p mut u64,
}

impl Splicer<'_, '_> {
    /// Splices `block`, whose changes are `changes` (all inside its zone, at least one).
    fn block(&mut self, block: &Block<'_>, changes: &[Change]) -> Result<BlockSplice, Refusal> {
        let spans = block.spans();
        let mut forbidden: Vec<usize> = Vec::new();
        let mut done: Vec<(usize, BlockSplice)> = Vec::new();
        let claims = 'plan: loop {
            let claims = plan(block, &spans, changes, self.text, &forbidden)?;
            for claim in &claims {
                let Claim::Descend { at, changes: mine } = claim else {
                    continue;
                };
                if done
                    .iter()
                    .any(|(known, splice)| known == at && splice.changes == *mine)
                {
                    continue;
                }
                let my_changes = changes.get(mine.clone()).ok_or(Refusal::Misaligned)?;
                match self.descend(block, &spans, *at, my_changes) {
                    Ok(mut splice) => {
                        splice.changes = mine.clone();
                        done.push((*at, splice));
                    }
                    Err(refusal) => {
                        self.refusals.push((Level::Member, refusal));
                        forbidden.push(*at);
                        continue 'plan;
                    }
                }
            }
            break claims;
        };
        self.assemble(block, &spans, changes, &claims, done)
    }

    /// Splices definition `at` of `block`: the changes inside its header by parsing the
    /// new header alone ([`Splicer::header`]), the rest in its body one level down.
    fn descend(
        &mut self,
        block: &Block<'_>,
        spans: &[Span],
        at: usize,
        changes: &[Change],
    ) -> Result<BlockSplice, Refusal> {
        let owner = block.members.get(at).ok_or(Refusal::NotOneClass)?;
        let body = owner.body.as_ref().ok_or(Refusal::NotOneClass)?;
        let own = owner.declarations.first().ok_or(Refusal::NotOneClass)?;
        let header_zone = block.header_zone(spans, at).ok_or(Refusal::NotOneClass)?;
        let in_header = changes
            .iter()
            .take_while(|change| change.inside(&header_zone))
            .count();
        let (header_changes, body_changes) = changes.split_at(in_header);
        let header = match header_changes {
            [] => None,
            _ => Some(self.header(block, &header_zone, own, body, header_changes)?),
        };
        let grown = header.as_ref().map_or(0, Header::grown);
        let mut splice = if body_changes.is_empty() {
            BlockSplice {
                changes: 0..0,
                members: body
                    .members
                    .iter()
                    .map(|member| member.shifted(grown))
                    .collect(),
                middles: Vec::new(),
                shallowest: None,
                tails: Vec::new(),
                header: None,
            }
        } else {
            let zone = block.body_zone(spans, at).ok_or(Refusal::NotOneClass)?;
            let mut indents = block.indents.clone();
            indents.push(&body.indent);
            let inner = Block {
                members: &body.members,
                origin: spans[at].start,
                zone,
                indents,
                follower: if at + 1 < block.members.len() {
                    Some(block.depth())
                } else {
                    block.follower
                },
                enclosing: if body.class {
                    Enclosing::Class(&own.name)
                } else {
                    Enclosing::Function(&own.name)
                },
                grown,
            };
            self.block(&inner, body_changes)?
        };
        if let Some(header) = header {
            splice.middles.insert(0, header.rows.clone());
            splice.shallowest = Some(
                splice
                    .shallowest
                    .map_or(block.depth(), |depth| depth.min(block.depth())),
            );
            splice.header = Some(header);
        }
        Ok(splice)
    }

    /// Parses the new header of a definition (old rows `zone`, its `changes` all inside)
    /// alone: inside the wrappers of `block`, followed by the stand-in `def _(): pass` at
    /// its body's indentation for the body. Accepted only if the isolated tree is one
    /// definition of the same name and kind (its body's declarations are named after it)
    /// starting where the header does, whose body is exactly the stand-in. A `def` cannot
    /// share its header's logical line (a trailing `\` would join them), so the header
    /// then ends, as before, with its `:` and a new line whose indentation opens the
    /// body, and the unchanged body after it parses as it did — provided no line of the
    /// header ends with `\` (which the stand-in would accept where the body's first line
    /// may not continue it).
    fn header(
        &mut self,
        block: &Block<'_>,
        zone: &Range<usize>,
        own: &Declaration,
        body: &Body,
        changes: &[Change],
    ) -> Result<Header, Refusal> {
        let text = self.text;
        let (Some(first), Some(last)) = (changes.first(), changes.last()) else {
            return Err(Refusal::Misaligned);
        };
        let new_start = usize::try_from(signed(zone.start) + first.shift_before())
            .map_err(|_| Refusal::Misaligned)?;
        let new_end = usize::try_from(signed(zone.end) + last.shift_after())
            .map_err(|_| Refusal::Misaligned)?;
        if new_start >= new_end {
            return Err(Refusal::Shape);
        }
        block.starts_statement(text, new_start, false)?;
        let header_text = text.new_lines.slice(text.new, new_start..new_end);
        if header_text.split(|&byte| byte == b'\n').any(continued) {
            return Err(Refusal::Continuation);
        }
        let depth = block.depth();
        let mut isolated = block.wrappers();
        isolated.extend_from_slice(header_text);
        isolated.extend_from_slice(&body.indent);
        isolated.extend_from_slice(b"def _(): pass\n");
        let source = std::str::from_utf8(&isolated).map_err(|_| Refusal::Misaligned)?;
        *self.parsed += u64::try_from(isolated.len()).unwrap_or(u64::MAX);
        let tree = parse(self.parser, &isolated)?;
        let isolated_rows = Isolated {
            indents: &block.indents,
            sentinel: None,
        };
        let (inside, _) = isolated_rows.unwrap(tree.root_node())?;
        let [node] = inside.as_slice() else {
            return Err(Refusal::Shape);
        };
        let start = node.start_position();
        if start.row != depth || start.column != block.indent().len() {
            return Err(Refusal::Shape);
        }
        let definition =
            python::definition_statement(*node, source, block.enclosing).ok_or(Refusal::Shape)?;
        if definition.class != body.class || definition.own.name != own.name {
            return Err(Refusal::Shape);
        }
        let body_statements = statements(definition.body);
        let [stand_in] = body_statements.as_slice() else {
            return Err(Refusal::Shape);
        };
        let at = stand_in.start_position();
        if stand_in.kind_name() != "function_definition"
            || at.row != depth + (new_end - new_start)
            || at.column != body.indent.len()
        {
            return Err(Refusal::Shape);
        }
        Ok(Header {
            own: shifted(&definition.own, signed(new_start) - signed(depth)),
            rows: Rows {
                old: zone.clone(),
                new: new_start..new_end,
            },
        })
    }

    /// The new statements of `block` from its claims, the bodies in `done` spliced.
    fn assemble(
        &mut self,
        block: &Block<'_>,
        spans: &[Span],
        changes: &[Change],
        claims: &[Claim],
        mut done: Vec<(usize, BlockSplice)>,
    ) -> Result<BlockSplice, Refusal> {
        // How far the owner's start moves: as far as the rows before the first change,
        // less what the owner's header grew. Rows relative to it move by the difference.
        let base = changes.first().ok_or(Refusal::Misaligned)?.shift_before() - block.grown;
        let new_origin = moved(block.origin, base);
        let mut out = BlockSplice {
            changes: 0..changes.len(),
            members: Vec::with_capacity(block.members.len() + 2),
            middles: Vec::new(),
            shallowest: None,
            tails: Vec::new(),
            header: None,
        };
        let mut next = 0;
        let mut shift = base;
        for claim in claims {
            let range = claim.statements();
            let mine = claim.changes();
            let (Some(first_change), Some(last_change)) = (
                changes.get(mine.start),
                mine.end.checked_sub(1).and_then(|i| changes.get(i)),
            ) else {
                return Err(Refusal::Misaligned);
            };
            let before = first_change.shift_before() - base;
            out.members.extend(
                block.members[next..range.start]
                    .iter()
                    .map(|member| member.shifted(before)),
            );
            let reaches_end = range.end == block.members.len();
            match claim {
                Claim::Run(run) => {
                    let (new, rows, tails) = self.run(block, spans, run, changes, new_origin)?;
                    out.members.extend(new);
                    out.middles.push(rows);
                    out.shallowest = Some(block.depth());
                    if reaches_end {
                        out.tails = tails;
                    }
                }
                Claim::Text { at, .. } => {
                    let owner = &block.members[*at];
                    out.members.push(Segment {
                        start: moved(owner.start, before),
                        end: moved(owner.end, last_change.shift_after() - base),
                        declarations: owner
                            .declarations
                            .iter()
                            .map(|declaration| shifted(declaration, before))
                            .collect(),
                        body: None,
                        quote: owner.quote,
                    });
                    // The changed rows, which `inside_text` vouched for, are its only
                    // middles: every other row of the string is checked unchanged.
                    out.middles
                        .extend(changes[mine.clone()].iter().map(|change| Rows {
                            old: change.old_start..change.old_end,
                            new: change.new_start..change.new_end,
                        }));
                    out.shallowest = Some(
                        out.shallowest
                            .map_or(block.depth(), |depth| depth.min(block.depth())),
                    );
                }
                Claim::Descend { at, changes: mine } => {
                    let position = done
                        .iter()
                        .position(|(known, splice)| known == at && splice.changes == *mine)
                        .ok_or(Refusal::Misaligned)?;
                    let (_, inner) = done.swap_remove(position);
                    let owner = &block.members[*at];
                    let mut tails = inner.tails.into_iter();
                    let end = match tails.next() {
                        Some(end) => end.checked_sub(new_origin).ok_or(Refusal::Misaligned)?,
                        None => moved(owner.end, last_change.shift_after() - base),
                    };
                    if reaches_end {
                        out.tails = tails.collect();
                    }
                    let mut declarations: Vec<Declaration> = match inner.header {
                        Some(header) => vec![shifted(&header.own, -signed(new_origin))],
                        None => owner
                            .declarations
                            .iter()
                            .map(|declaration| shifted(declaration, before))
                            .collect(),
                    };
                    let own = declarations.first_mut().ok_or(Refusal::NotOneClass)?;
                    own.lines.end = line_of(end);
                    let body = owner.body.as_ref().ok_or(Refusal::NotOneClass)?;
                    out.members.push(Segment {
                        start: moved(owner.start, before),
                        end,
                        declarations,
                        body: Some(Arc::new(Body {
                            indent: body.indent.clone(),
                            class: body.class,
                            members: inner.members,
                        })),
                        quote: None,
                    });
                    out.middles.extend(inner.middles);
                    out.shallowest = match (out.shallowest, inner.shallowest) {
                        (Some(mine), Some(theirs)) => Some(mine.min(theirs)),
                        (mine, theirs) => mine.or(theirs),
                    };
                }
            }
            next = range.end;
            shift = last_change.shift_after();
        }
        out.members.extend(
            block.members[next..]
                .iter()
                .map(|member| member.shifted(shift - base)),
        );
        if out.members.is_empty() {
            // A body without statements is no body the outline describes.
            return Err(Refusal::Shape);
        }
        Ok(out)
    }

    /// Parses the middle of `run` alone inside wrappers standing for its enclosing
    /// definitions, checks the isolated tree says what a full parse would, and returns its
    /// statements (rows relative to `new_origin`), its rows, and the new last rows of the
    /// definitions that end with it when it reaches the block's end.
    fn run(
        &mut self,
        block: &Block<'_>,
        spans: &[Span],
        run: &Run,
        changes: &[Change],
        new_origin: usize,
    ) -> Result<(Vec<Segment>, Rows, Vec<usize>), Refusal> {
        let text = self.text;
        let rows = middle_rows(spans, run, changes, &block.zone)?;
        let depth = block.depth();
        let at_file_start = depth == 0 && run.first == 0;
        if !at_file_start {
            // The first line after the prefix: the middle's, or the suffix's when the
            // middle is empty (none at the end of the file: refused, to keep the context
            // a statement). Right after a header the isolated context (the wrapper) is the
            // real one, so a body's first statement may be a string (its docstring).
            block.starts_statement(text, rows.new.start, depth > 0 && run.first == 0)?;
        }
        let sentinel = if run.after < block.members.len() {
            Some(depth)
        } else {
            block.follower
        };
        if let Some(level) = sentinel {
            let line = text
                .new_lines
                .line(text.new, rows.new.end)
                .ok_or(Refusal::SuffixStart)?;
            statement_start(line, block.indents[level], false).map_err(|_| Refusal::SuffixStart)?;
        }
        let mut isolated = block.wrappers();
        isolated.extend_from_slice(text.new_lines.slice(text.new, rows.new.clone()));
        if let Some(level) = sentinel {
            isolated.extend_from_slice(block.indents[level]);
            isolated.extend_from_slice(b"pass\n");
        }
        let source = std::str::from_utf8(&isolated).map_err(|_| Refusal::Misaligned)?;
        *self.parsed += u64::try_from(isolated.len()).unwrap_or(u64::MAX);
        let tree = parse(self.parser, &isolated)?;
        // Isolated row r is new row r - depth + rows.new.start.
        let sentinel_row = depth + rows.new.len();
        let isolated_rows = Isolated {
            indents: &block.indents,
            sentinel: sentinel.map(|level| (level, sentinel_row)),
        };
        let (inside, wrappers) = isolated_rows.unwrap(tree.root_node())?;
        let to_new = signed(rows.new.start) - signed(depth);
        let offset = to_new - signed(new_origin);
        let new = segments(
            &inside,
            source,
            block.enclosing,
            block.indent(),
            depth,
            offset,
        );
        // The wrappers below the sentinel's level end with the middle, as the definitions
        // they stand for do.
        let from = sentinel.unwrap_or(0);
        let tails = wrappers
            .iter()
            .enumerate()
            .rev()
            .filter(|(level, _)| *level >= from)
            .map(|(_, wrapper)| moved(last_row(*wrapper), to_new))
            .collect();
        Ok((new, rows, tails))
    }
}

/// The shape an isolated parse must have: a chain of one wrapper class per enclosing
/// level, the middle's statements in the innermost, and the sentinel at its level.
struct Isolated<'i, 'o> {
    indents: &'i [&'o [u8]],
    /// The sentinel's level and row.
    sentinel: Option<(usize, usize)>,
}

impl Isolated<'_, '_> {
    /// The middle's statements and the wrappers (outermost first), or `Shape`.
    fn unwrap<'t>(&self, root: Node<'t>) -> Result<(Vec<Node<'t>>, Vec<Node<'t>>), Refusal> {
        let depth = self.indents.len() - 1;
        let sentinel_row = self.sentinel.map(|(_, row)| row);
        let mut wrappers = Vec::with_capacity(depth);
        let mut level_statements = statements(root);
        for level in 0..=depth {
            if let Some((_, row)) = self.sentinel.filter(|(at, _)| *at == level) {
                let pass = level_statements.pop().ok_or(Refusal::Shape)?;
                is_sentinel(pass, row, self.indents[level].len())?;
            }
            if level == depth {
                break;
            }
            let [wrapper] = level_statements.as_slice() else {
                return Err(Refusal::Shape);
            };
            let start = wrapper.start_position();
            if wrapper.kind_name() != "class_definition"
                || start.row != level
                || start.column != self.indents[level].len()
            {
                return Err(Refusal::Shape);
            }
            wrappers.push(*wrapper);
            let body = wrapper.child_by_field_name("body").ok_or(Refusal::Shape)?;
            level_statements = statements(body);
        }
        let outside = |statement: &Node<'_>| {
            statement.start_position().row < depth
                || sentinel_row.is_some_and(|row| last_row(*statement) >= row)
        };
        if level_statements.iter().any(outside) {
            return Err(Refusal::Shape);
        }
        Ok((level_statements, wrappers))
    }
}

/// Assigns each change of `block` to one of its definitions (when it lies in that body's
/// zone or strictly inside its header, and the definition is not `forbidden`), to the
/// text of a docstring ([`inside_text`]), or to a run of statements, then
/// merges: runs that overlap or touch, a body inside a run, and a body whose next
/// statement starts a run (its last statement would then be followed by a changed line)
/// all become one run. A run whose middle would begin with a line that starts no
/// statement (its first statement's first line was deleted or blanked) takes in the
/// statement before it.
fn plan(
    block: &Block<'_>,
    spans: &[Span],
    changes: &[Change],
    text: &Texts<'_>,
    forbidden: &[usize],
) -> Result<Vec<Claim>, Refusal> {
    let mut out: Vec<Claim> = Vec::new();
    let widen = |claim: &mut Claim| match claim {
        Claim::Run(run)
            if run.first > 0
                && run.from.is_none()
                && bad_start(
                    text,
                    spans[run.first].start,
                    &changes[run.changes.start],
                    block.indent(),
                ) =>
        {
            run.first -= 1;
            true
        }
        _ => false,
    };
    for (index, change) in changes.iter().enumerate() {
        let probe = if change.old_start < change.old_end {
            change.old_start
        } else {
            change.old_start.saturating_sub(1)
        };
        // The statement the change starts in (or, for an insertion, right after).
        let container = spans
            .partition_point(|span| span.start <= probe)
            .checked_sub(1);
        let owner = container
            .filter(|at| !forbidden.contains(at))
            .filter(|&at| {
                block
                    .body_zone(spans, at)
                    .is_some_and(|zone| change.within(&zone))
                    || block
                        .header_zone(spans, at)
                        .is_some_and(|zone| change.inside(&zone))
            });
        let docstring = container.filter(|&at| inside_text(block, spans, at, change, text));
        // Lines inserted at this block's indentation would dedent out of the body of the
        // definition before them: they go between the two statements, not into it.
        let between = inserted_between(block, spans, change, text)
            .filter(|&at| out.last().is_none_or(|last| last.statements().end < at));
        let mut claim = match (between, owner, docstring) {
            (Some(at), _, _) => Claim::Run(Run {
                first: at,
                after: at,
                changes: index..index + 1,
                from: Some(change.old_start),
            }),
            (None, Some(at), _) => Claim::Descend {
                at,
                changes: index..index + 1,
            },
            (None, None, Some(at)) => Claim::Text {
                at,
                changes: index..index + 1,
            },
            (None, None, None) => {
                let (first, after) =
                    touched(spans, change, &block.zone).ok_or(Refusal::Misaligned)?;
                Claim::Run(Run {
                    first,
                    after,
                    changes: index..index + 1,
                    from: None,
                })
            }
        };
        loop {
            let Some(last) = out.last() else {
                if widen(&mut claim) {
                    continue;
                }
                break;
            };
            let (previous, current) = (last.statements(), claim.statements());
            let merged_changes = last.changes().start..claim.changes().end;
            let merged = match (last, &claim) {
                (Claim::Descend { at, .. }, Claim::Descend { at: other, .. }) => (at == other)
                    .then_some(Claim::Descend {
                        at: *at,
                        changes: merged_changes,
                    }),
                (Claim::Text { at, .. }, Claim::Text { at: other, .. }) if at == other => {
                    Some(Claim::Text {
                        at: *at,
                        changes: merged_changes,
                    })
                }
                _ if current.start < previous.end => Some(Claim::Run(Run {
                    first: previous.start.min(current.start),
                    after: previous.end.max(current.end),
                    changes: merged_changes,
                    from: None,
                })),
                _ => None,
            };
            match merged {
                Some(merged) => {
                    out.pop();
                    claim = merged;
                }
                None if widen(&mut claim) => {}
                None => break,
            }
        }
        out.push(claim);
    }
    Ok(out)
}

/// Whether `change` lies strictly inside the string of statement `at` of `block` (one
/// triple-quoted string alone, followed by another statement of the block) — after its
/// first row, before its last, so both delimiters stay — and its new lines hold no quote
/// of the delimiter's kind and no backslash. The string then still ends at its closing
/// delimiter (only a quote could end it early, only a backslash change what a character
/// means), so the statement is the same string, its last row moved.
fn inside_text(
    block: &Block<'_>,
    spans: &[Span],
    at: usize,
    change: &Change,
    text: &Texts<'_>,
) -> bool {
    let (Some(quote), Some(span)) = (block.members.get(at).and_then(|m| m.quote), spans.get(at))
    else {
        return false;
    };
    let strictly_inside = if change.old_start < change.old_end {
        span.start < change.old_start && change.old_end <= span.end
    } else {
        span.start < change.old_start && change.old_start <= span.end
    };
    let new = text
        .new_lines
        .slice(text.new, change.new_start..change.new_end);
    at + 1 < block.members.len()
        && strictly_inside
        && !new.iter().any(|&byte| byte == quote || byte == b'\\')
}

/// The statement `at` of `block` before which `change` only inserts lines that start with
/// a statement: a pure insertion strictly between two statements of the block (after the
/// end of one, at or before the start of the next) whose first new line starts a
/// statement at the block's indentation. It then touches neither neighbour: the prefix
/// ends before a statement start as before, and the middle (the inserted lines and the
/// gap rows after them) ends before statement `at`, which starts a statement as before.
fn inserted_between(
    block: &Block<'_>,
    spans: &[Span],
    change: &Change,
    text: &Texts<'_>,
) -> Option<usize> {
    if change.old_start != change.old_end || change.new_start == change.new_end {
        return None;
    }
    let row = change.old_start;
    let at = spans.partition_point(|span| span.start < row);
    let (before, next) = (spans.get(at.checked_sub(1)?)?, spans.get(at)?);
    let between = before.end < row && row <= next.start;
    (between
        && block
            .starts_statement(text, change.new_start, false)
            .is_ok())
    .then_some(at)
}

/// Whether the middle of a run whose first statement starts at old row `start`, its first
/// change `change`, would begin with a line that is no statement start at `indent`.
fn bad_start(text: &Texts<'_>, start: usize, change: &Change, indent: &[u8]) -> bool {
    let new_row = usize::try_from(signed(start) + change.shift_before()).ok();
    let line = new_row.and_then(|row| text.new_lines.line(text.new, row));
    line.is_none_or(|line| statement_start(line, indent, false).is_err())
}

/// The splice stands on the diff only for WHERE things changed; this checks that what lies
/// between the middles (and before the first and after the last) is byte for byte the same
/// in both versions, so the new version is the old one with the middles replaced.
fn unchanged_between(middles: &[Rows], text: &Texts<'_>) -> Result<(), Refusal> {
    let ends = Rows {
        old: text.old_lines.count()..text.old_lines.count(),
        new: text.new_lines.count()..text.new_lines.count(),
    };
    let mut old_from = 0;
    let mut new_from = 0;
    for rows in middles.iter().chain([&ends]) {
        if rows.old.start < old_from || rows.new.start < new_from {
            return Err(Refusal::Misaligned);
        }
        let old = text.old_lines.slice(text.old, old_from..rows.old.start);
        let new = text.new_lines.slice(text.new, new_from..rows.new.start);
        if rows.old.start - old_from != rows.new.start - new_from || old != new {
            return Err(Refusal::Misaligned);
        }
        old_from = rows.old.end;
        new_from = rows.new.end;
    }
    Ok(())
}

/// The old and new rows of the middle replacing statements `run.first..run.after` of a
/// block in old rows `zone`: from the first statement's start (`zone.start` when it is the
/// block's first) to the next statement's start (`zone.end` when none follows).
fn middle_rows(
    spans: &[Span],
    run: &Run,
    changes: &[Change],
    zone: &Range<usize>,
) -> Result<Rows, Refusal> {
    let start = match run.from {
        Some(row) => row,
        None if run.first == 0 => zone.start,
        None => spans.get(run.first).map_or(zone.end, |span| span.start),
    };
    let end = spans.get(run.after).map_or(zone.end, |span| span.start);
    let (Some(first), Some(last)) = (
        changes.get(run.changes.start),
        run.changes.end.checked_sub(1).and_then(|i| changes.get(i)),
    ) else {
        return Err(Refusal::Misaligned);
    };
    if start > first.old_start || end < last.old_end {
        return Err(Refusal::Misaligned);
    }
    let new_start = usize::try_from(signed(start) + first.shift_before());
    let new_end = usize::try_from(signed(end) + last.shift_after());
    match (new_start, new_end) {
        (Ok(new_start), Ok(new_end)) if new_start <= new_end => Ok(Rows {
            old: start..end,
            new: new_start..new_end,
        }),
        _ => Err(Refusal::Misaligned),
    }
}

fn parse(parser: &mut Parser, isolated: &[u8]) -> Result<tree_sitter::Tree, Refusal> {
    let tree = syntax::run(parser, isolated, None, "Python").map_err(|_| Refusal::SyntaxError)?;
    match syntax::check(&tree) {
        Ok(()) => Ok(tree),
        Err(ExtractError::Unparseable { .. } | ExtractError::Unavailable { .. }) => {
            Err(Refusal::SyntaxError)
        }
    }
}

/// `node` is the sentinel: a `pass` statement alone at `row`, `column`.
fn is_sentinel(node: Node<'_>, row: usize, column: usize) -> Result<(), Refusal> {
    let start = node.start_position();
    let end = node.end_position();
    if node.kind_name() == "pass_statement"
        && start.row == row
        && start.column == column
        && end.row == row
    {
        Ok(())
    } else {
        Err(Refusal::Shape)
    }
}

/// A line that starts a statement at exactly `indent`: the indentation is `indent` and
/// what follows it is no whitespace, comment or line continuation, no quote unless
/// `quote` (the scanner's dedent rule looks at whether the next line starts with one), and
/// no clause keyword that continues the statement before it. `SuffixStart` for a line
/// that is no statement start, `StartContinues` for a clause.
fn statement_start(line: &[u8], indent: &[u8], quote: bool) -> Result<(), Refusal> {
    let rest = line.strip_prefix(indent).ok_or(Refusal::SuffixStart)?;
    match rest.first() {
        None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'#' | b'\\') => {
            return Err(Refusal::SuffixStart);
        }
        Some(b'"' | b'\'' | b'`') if !quote => return Err(Refusal::SuffixStart),
        Some(_) => {}
    }
    let word_end = rest
        .iter()
        .position(|&byte| !(byte.is_ascii_alphanumeric() || byte == b'_'))
        .unwrap_or(rest.len());
    match &rest[..word_end] {
        b"else" | b"elif" | b"except" | b"finally" | b"case" => Err(Refusal::StartContinues),
        _ => Ok(()),
    }
}

/// The named children of `node` that are not comments.
fn statements(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|child| child.kind_name() != "comment")
        .collect()
}

/// How deep the outline describes bodies: a definition nested deeper is one statement (so
/// no recursion over the outline can go deeper than this).
const MAX_DEPTH: usize = 8;

/// The segments of `nodes` (consecutive statements of one block of `source` whose
/// indentation is `indent`, `depth` bodies down, walked in `enclosing`), rows moved by
/// `offset`. Statements sharing a row form one segment; a `def` or `class` alone on its
/// rows, whose body starts below its header at a deeper indentation, gets a [`Body`].
fn segments(
    nodes: &[Node<'_>],
    source: &str,
    enclosing: Enclosing<'_>,
    indent: &[u8],
    depth: usize,
    offset: isize,
) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(nodes.len());
    for &node in nodes {
        let start = moved(node.start_position().row, offset);
        let end = moved(last_row(node), offset);
        if let Some(last) = out.last_mut().filter(|last| start <= last.end) {
            let mut declarations = flattened(std::slice::from_ref(last), 0);
            declarations.extend(
                python::declarations(node, source, enclosing)
                    .iter()
                    .map(|declaration| shifted(declaration, offset)),
            );
            last.end = last.end.max(end);
            last.declarations = declarations;
            last.body = None;
            last.quote = None;
            continue;
        }
        let definition = (depth < MAX_DEPTH)
            .then(|| python::definition_statement(node, source, enclosing))
            .flatten();
        let with_body = definition.and_then(|definition| {
            let body = body(node, &definition, source, indent, depth)?;
            Some((definition, body))
        });
        let segment = match with_body {
            Some((definition, body)) => Segment {
                start,
                end,
                declarations: vec![shifted(&definition.own, offset)],
                body: Some(Arc::new(body)),
                quote: None,
            },
            None => Segment {
                start,
                end,
                declarations: python::declarations(node, source, enclosing)
                    .iter()
                    .map(|declaration| shifted(declaration, offset))
                    .collect(),
                body: None,
                quote: string_quote(node, source),
            },
        };
        out.push(segment);
    }
    out
}

/// The statements of the body of `definition` (statement `node`, in a block indented by
/// `outer`), when the splice may descend into them: the body has a statement, starts
/// below the header's `:`, and its first statement is indented by spaces or tabs that
/// extend `outer`, and no line of its header is [`continued`]. Their rows count from
/// `node`'s first row.
fn body(
    node: Node<'_>,
    definition: &python::DefinitionStatement<'_>,
    source: &str,
    outer: &[u8],
    depth: usize,
) -> Option<Body> {
    let members = statements(definition.body);
    let first = members.first()?;
    if first.start_position().row <= definition.colon_row {
        return None;
    }
    let line_start = first
        .start_byte()
        .checked_sub(first.start_position().column)?;
    let indent = source.as_bytes().get(line_start..first.start_byte())?;
    let header_start = node
        .start_byte()
        .checked_sub(node.start_position().column)?;
    let header = source.as_bytes().get(header_start..line_start)?;
    if header.split(|&byte| byte == b'\n').any(continued) {
        return None;
    }
    if indent.len() <= outer.len()
        || !indent.starts_with(outer)
        || !indent.iter().all(|&byte| byte == b' ' || byte == b'\t')
    {
        return None;
    }
    let name = definition.own.name.as_str();
    let enclosing = if definition.class {
        Enclosing::Class(name)
    } else {
        Enclosing::Function(name)
    };
    let origin = signed(node.start_position().row);
    Some(Body {
        indent: indent.into(),
        class: definition.class,
        members: segments(&members, source, enclosing, indent, depth + 1, -origin),
    })
}

/// The quote of `statement` when it is one triple-quoted string alone whose prefix is at
/// most `r`/`u` (no f-string: its text holds no expressions, so it ends only at its
/// closing delimiter, or early at a quote or after a backslash).
fn string_quote(statement: Node<'_>, source: &str) -> Option<u8> {
    if statement.kind_name() != "expression_statement" || statement.named_child_count() != 1 {
        return None;
    }
    let string = statement.named_child(0)?;
    if string.kind_name() != "string" || string.byte_range() != statement.byte_range() {
        return None;
    }
    let opening = source.as_bytes().get(string.child(0)?.byte_range())?;
    let delimiter = match opening {
        [b'r' | b'R' | b'u' | b'U', rest @ ..] => rest,
        _ => opening,
    };
    match delimiter {
        b"\"\"\"" => Some(b'"'),
        b"'''" => Some(b'\''),
        _ => None,
    }
}

/// Whether `line` ends with `\` (trailing whitespace aside): a header with such a line may
/// have its body's first line joined to it, so neither its body is described nor a new
/// header spliced.
fn continued(line: &[u8]) -> bool {
    line.trim_ascii_end().ends_with(b"\\")
}

/// The last row a node covers (a node ending at column 0 ends on the row before).
fn last_row(node: Node<'_>) -> usize {
    let (start, end) = (node.start_position(), node.end_position());
    if end.column == 0 && end.row > start.row {
        end.row - 1
    } else {
        end.row
    }
}

/// A hunk line number as a row.
fn row(line: u32) -> usize {
    usize::try_from(line).unwrap_or(usize::MAX)
}

fn signed(value: usize) -> isize {
    isize::try_from(value).unwrap_or(isize::MAX)
}

/// `row` moved by `delta`. Rows moved are those of unchanged statements after the middle
/// (or of the isolated tree into the file), whose targets are rows of the new version, so
/// the sum is never negative; saturating keeps the arithmetic total.
fn moved(row: usize, delta: isize) -> usize {
    row.saturating_add_signed(delta)
}

/// The 1-based line of a row.
fn line_of(row: usize) -> u32 {
    u32::try_from(row.saturating_add(1)).unwrap_or(u32::MAX)
}

/// `declaration` with its lines moved by `delta` rows.
fn shifted(declaration: &Declaration, delta: isize) -> Declaration {
    let mut declaration = declaration.clone();
    let by = |line: u32| {
        let moved = i64::from(line) + i64::try_from(delta).unwrap_or(0);
        u32::try_from(moved).unwrap_or(0)
    };
    declaration.lines.start = by(declaration.lines.start);
    declaration.lines.end = by(declaration.lines.end);
    declaration
}

/// Where each line of a text starts, as keel's diff splits lines (after each `\n`; a last
/// line without one is a line), then the length.
#[derive(Debug, Clone)]
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &[u8]) -> Self {
        Self {
            starts: super::syntax::line_starts(text),
        }
    }

    /// The length of the text indexed.
    fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    /// How many lines.
    fn count(&self) -> usize {
        self.starts.len() - 1
    }

    /// Where line `line` starts (`line == count` is the end).
    fn offset(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// Line `line` of `text`, `None` past the last.
    fn line<'t>(&self, text: &'t [u8], line: usize) -> Option<&'t [u8]> {
        let start = *self.starts.get(line)?;
        let end = *self.starts.get(line + 1)?;
        text.get(start..end)
    }

    /// Lines `lines` of `text` (empty when out of range).
    fn slice<'t>(&self, text: &'t [u8], lines: Range<usize>) -> &'t [u8] {
        match (self.offset(lines.start), self.offset(lines.end)) {
            (Some(start), Some(end)) if start <= end => &text[start..end],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{Language, ParseCache, ParseCounts, extract_as};
    use std::sync::Arc;

    type Refusals = Vec<(Level, Refusal, u64)>;

    /// `new` extracted after `old` through a fresh cache: asserts the answer equals the full
    /// parse, and returns the second extraction's counts and the refusals.
    fn run(old: &str, new: &str) -> (ParseCounts, Refusals) {
        let mut cache = ParseCache::default();
        let (old, new): (Arc<[u8]>, Arc<[u8]>) =
            (Arc::from(old.as_bytes()), Arc::from(new.as_bytes()));
        let first = cache.extract(Language::Python, "m.py", &old);
        assert_eq!(first, extract_as(Language::Python, &old));
        let before = cache.counts();
        let got = cache.extract(Language::Python, "m.py", &new);
        assert_eq!(
            got,
            extract_as(Language::Python, &new),
            "{}",
            String::from_utf8_lossy(&new)
        );
        let after = cache.counts();
        (after.since(before), cache.splice_refusals())
    }

    fn refused(refusals: &Refusals, level: Level, refusal: Refusal) -> bool {
        refusals
            .iter()
            .any(|&(at, why, count)| at == level && why == refusal && count > 0)
    }

    const CLASS: &str = "\
import os

class A:
    def f(self):
        return 1

    def g(self):
        return 2

def h():
    pass
";

    #[test]
    fn an_edit_inside_a_method_is_spliced_inside_its_class() {
        let new = CLASS.replace("return 1", "return 10\n        # more");
        let (counts, refusals) = run(CLASS, &new);
        assert_eq!(
            (counts.spliced, counts.spliced_members),
            (1, 1),
            "{refusals:?}"
        );
        assert!(refusals.is_empty(), "{refusals:?}");
    }

    const NESTED: &str = "\
class A:
    def f(self):
        x = 1

        def inner():
            return x

        return inner

    def g(self):
        return 2


def h():
    y = 1
    return y
";

    #[test]
    fn an_edit_inside_a_method_body_is_spliced_two_bodies_down() {
        for (old, new) in [
            ("        x = 1\n", "        x = 10\n        x += 1\n"),
            ("            return x\n", "            return x + 1\n"),
            ("        return 2\n", "        return 20\n"),
        ] {
            let edited = NESTED.replace(old, new);
            let (counts, refusals) = run(NESTED, &edited);
            assert_eq!(
                (counts.spliced, counts.spliced_members, counts.spliced_deep),
                (1, 1, 1),
                "{refusals:?}\n{edited}"
            );
            assert!(refusals.is_empty(), "{refusals:?}");
        }
        // A top-level function's body is one body down.
        let edited = NESTED.replace("    y = 1\n", "    y = 2\n");
        let (counts, refusals) = run(NESTED, &edited);
        assert_eq!(
            (counts.spliced, counts.spliced_members, counts.spliced_deep),
            (1, 1, 0),
            "{refusals:?}"
        );
    }

    #[test]
    fn a_nested_def_added_in_a_method_body_is_a_unit_of_the_splice() {
        let edited = NESTED.replace(
            "        return 2\n",
            "        def added():\n            pass\n\n        return added\n",
        );
        let (counts, refusals) = run(NESTED, &edited);
        assert_eq!(counts.spliced_deep, 1, "{refusals:?}");
    }

    #[test]
    fn a_method_body_middle_that_dedents_is_spliced_one_level_up() {
        // The new lines (a comment in `f`'s body first, so they are no statement inserted
        // between two members) end with a method: the middle leaves `f`'s body, so `f` is
        // spliced as a member of `A`.
        let edited = NESTED.replace(
            "        return inner\n",
            "        return inner\n        # end of f\n    def between(self):\n        pass\n",
        );
        let (counts, refusals) = run(NESTED, &edited);
        assert!(
            refused(&refusals, Level::Member, Refusal::Shape),
            "{refusals:?}"
        );
        assert_eq!(
            (counts.spliced, counts.spliced_members, counts.spliced_deep),
            (1, 1, 0),
            "{refusals:?}"
        );
    }

    #[test]
    fn a_middle_ending_every_body_moves_the_end_of_each() {
        // `h` is the last statement: its body's last line grows, and so must `h`'s unit.
        let edited = NESTED.replace("    return y\n", "    y += 1\n    return y\n");
        let (counts, refusals) = run(NESTED, &edited);
        assert_eq!(counts.spliced_members, 1, "{refusals:?}");
        // `g` ends `A`, which ends with it, three bodies deep in a file that ends there.
        let last = "class A:\n    class B:\n        def g(self):\n            return 2\n";
        let longer = last.replace("return 2\n", "x = 2\n            return x\n");
        let (counts, refusals) = run(last, &longer);
        assert_eq!(counts.spliced_deep, 1, "{refusals:?}");
        let shorter = "class A:\n    class B:\n        def g(self):\n            pass\n";
        let (counts, refusals) = run(&longer, shorter);
        assert_eq!(counts.spliced_deep, 1, "{refusals:?}");
        // A line added after a blank one: every body now ends two rows further down, not
        // the one row the diff added.
        let gap = "class A:\n    def f(self):\n        return 2\n\n";
        let (counts, refusals) = run(gap, &format!("{gap}        x = 3\n"));
        assert_eq!(counts.spliced_members, 1, "{refusals:?}");
    }

    #[test]
    fn a_statement_inserted_between_two_parses_neither_neighbour() {
        let body = |name: &str| {
            (0..12)
                .map(|i| format!("        {name}_{i} = {i}\n"))
                .collect::<String>()
        };
        let old = format!(
            "class A:\n    def f(self):\n{}    def g(self):\n{}",
            body("f"),
            body("g")
        );
        let inserted = "    def new(self):\n        return 0\n";
        let new = old.replace("    def g", &format!("{inserted}    def g"));
        let (counts, refusals) = run(&old, &new);
        assert_eq!(counts.spliced, 1, "{refusals:?}");
        assert!(counts.spliced_bytes < 100, "{counts:?}");
        // Inserted lines that do not start with a statement (a comment first): the
        // neighbours are parsed with them, as before.
        let commented = old.replace("    def g", &format!("    # new\n{inserted}    def g"));
        let (counts, refusals) = run(&old, &commented);
        assert_eq!(counts.spliced, 1, "{refusals:?}");
        assert!(counts.spliced_bytes > 150, "{counts:?}");
    }

    #[test]
    fn changes_in_neighbouring_statements_are_spliced_apart() {
        let edited = NESTED
            .replace("        return 2\n", "        return 3\n")
            .replace("def h():\n", "def h2():\n");
        let (counts, refusals) = run(NESTED, &edited);
        assert_eq!(
            (counts.spliced, counts.spliced_members),
            (1, 0),
            "{refusals:?}"
        );
        // `g`'s line and `h`'s header: not the whole class with them.
        let class_a = NESTED.find("def h").unwrap_or_default();
        assert!(
            counts.spliced_bytes < u64::try_from(class_a).unwrap_or_default(),
            "{counts:?}"
        );
    }

    #[test]
    fn a_class_header_edit_is_spliced_at_the_top_level() {
        let new = CLASS.replace("class A:", "class A(Base):");
        let (counts, refusals) = run(CLASS, &new);
        assert_eq!(
            (counts.spliced, counts.spliced_members),
            (1, 0),
            "{refusals:?}"
        );
        // The header alone, not the class with its methods.
        let class = &new[new.find("class A").unwrap_or(0)..new.find("def h").unwrap_or(0)];
        assert!(counts.spliced_bytes < class.len() as u64 / 2, "{counts:?}");
    }

    const SIGNATURE: &str = "\
class A:
    @property
    def f(
        self,
        x: int,
    ) -> int:
        # what f does
        y = x + 1
        z = y * 2
        return z

    def g(self):
        return 2
";

    /// The text of method `f` in `source`, decorators included.
    fn method_f(source: &str) -> &str {
        let start = source.find("    @").unwrap_or(0);
        let end = source.find("\n\n    def g").unwrap_or(source.len());
        &source[start..end]
    }

    #[test]
    fn a_header_edit_parses_the_header_alone() {
        for (from, to) in [
            ("x: int,", "x: str,"),
            ("x: int,\n", "x: int,\n        y: int = 0,\n"),
            (") -> int:", ") -> str:"),
            ("@property", "@functools.cached_property"),
            ("@property\n", "@property\n    @other(\n        1,\n    )\n"),
            ("# what f does", "# what f really does"),
        ] {
            let new = SIGNATURE.replace(from, to);
            let (counts, refusals) = run(SIGNATURE, &new);
            assert_eq!(
                (counts.spliced, counts.spliced_members),
                (1, 1),
                "{to}: {refusals:?}"
            );
            assert!(refusals.is_empty(), "{to}: {refusals:?}");
            // The header, its wrapper and the stand-in are shorter than the method: the
            // body was not parsed.
            assert!(
                counts.spliced_bytes < method_f(&new).len() as u64,
                "{to}: {counts:?}"
            );
        }
    }

    #[test]
    fn a_header_and_a_body_edit_are_spliced_in_their_two_parts() {
        let filler: String = (0..10).map(|i| format!("        q{i} = {i}\n")).collect();
        let old = SIGNATURE.replace(
            "        z = y * 2\n",
            &format!("{filler}        z = y * 2\n"),
        );
        let new = old
            .replace("x: int,\n", "x: int,\n        w: int,\n")
            .replace("z = y * 2", "z = y * w");
        let (counts, refusals) = run(&old, &new);
        assert_eq!(
            (counts.spliced, counts.spliced_members, counts.spliced_deep),
            (1, 1, 0),
            "{refusals:?}"
        );
        assert!(refusals.is_empty(), "{refusals:?}");
        // The header and one body statement, not the whole method.
        assert!(
            counts.spliced_bytes < method_f(&new).len() as u64,
            "{counts:?}"
        );
    }

    #[test]
    fn a_renamed_definition_is_spliced_whole() {
        // Its body's declarations are named after it.
        let new = NESTED.replace("def f(self):", "def f2(self):");
        let (counts, refusals) = run(NESTED, &new);
        assert_eq!(counts.spliced, 1, "{refusals:?}");
        assert!(
            refused(&refusals, Level::Member, Refusal::Shape),
            "{refusals:?}"
        );
    }

    const DOCSTRING: &str = "\
class A:
    \"\"\"What A is.

    More about it.
    \"\"\"

    def f(self):
        r'''What f does.

        Details.
        '''
        return 1
";

    #[test]
    fn an_edit_inside_a_docstring_parses_nothing() {
        for (from, to) in [
            ("More about it.", "More about it, reworded."),
            ("More about it.\n", "More about it.\n    And a line more.\n"),
            ("\n    More about it.", ""),
            ("Details.", "Other {details}."),
        ] {
            let new = DOCSTRING.replace(from, to);
            let (counts, refusals) = run(DOCSTRING, &new);
            assert_eq!(counts.spliced, 1, "{to}: {refusals:?}");
            assert_eq!(counts.spliced_bytes, 0, "{to}: {counts:?}");
        }
    }

    #[test]
    fn a_docstring_edit_that_could_end_or_change_the_string_is_parsed() {
        for (from, to) in [
            // A quote of the delimiter's kind, a backslash, the delimiter's lines.
            ("More about it.", "More \"about\" it."),
            ("More about it.", "More about it. \\"),
            ("Details.", "It's."),
            ("\"\"\"What A is.", "\"\"\"What A was."),
            ("\n    \"\"\"\n\n    def f", "\n    \"\"\"  \n\n    def f"),
        ] {
            let new = DOCSTRING.replace(from, to);
            let (counts, refusals) = run(DOCSTRING, &new);
            assert_eq!(counts.spliced, 1, "{to}: {refusals:?}");
            assert!(counts.spliced_bytes > 0, "{to}: {counts:?}");
        }
        // A docstring that ends its block: the block's end moves with it.
        let alone = "class B:\n    \"\"\"B.\n\n    Text.\n    \"\"\"\n\n\nx = 1\n";
        let new = alone.replace("Text.", "Text.\n    More.");
        let (counts, _) = run(alone, &new);
        assert!(counts.spliced_bytes > 0, "{counts:?}");
    }

    #[test]
    fn a_header_line_continued_into_the_body_is_refused() {
        for (from, to) in [(") -> int:", ") -> int: \\"), ("# what f does", "\\")] {
            let new = SIGNATURE.replace(from, to);
            let (_, refusals) = run(SIGNATURE, &new);
            assert!(
                refused(&refusals, Level::Member, Refusal::Continuation),
                "{to}: {refusals:?}"
            );
        }
        // A body that followed a continued header is not described: an edit in it is
        // spliced with the whole method.
        let continued = SIGNATURE.replace(") -> int:", ") -> int: \\");
        let new = continued.replace("z = y * 2", "z = y * 3");
        let (counts, refusals) = run(&continued, &new);
        assert_eq!(
            (counts.spliced, counts.spliced_deep),
            (1, 0),
            "{refusals:?}"
        );
    }

    #[test]
    fn an_isolated_middle_with_an_error_falls_back_to_a_full_parse_answer() {
        for broken in ["return (1,", "return \"\"\"never closed", "return 1 +"] {
            let new = CLASS.replace("return 1", broken);
            let (counts, refusals) = run(CLASS, &new);
            assert_eq!(
                (counts.spliced, counts.splice_fallbacks),
                (0, 1),
                "{broken}"
            );
            assert!(
                refused(&refusals, Level::Top, Refusal::SyntaxError),
                "{refusals:?}"
            );
            assert!(
                refused(&refusals, Level::Member, Refusal::SyntaxError),
                "{refusals:?}"
            );
        }
    }

    #[test]
    fn a_trailing_backslash_cannot_borrow_the_next_statement() {
        // Without the sentinel, `return 1 \` would end the isolated text and parse.
        let old = "def f():\n    return 1\ndef g():\n    pass\n";
        let new = "def f():\n    return 1 \\\ndef g():\n    pass\n";
        let (counts, refusals) = run(old, new);
        assert_eq!(counts.splice_fallbacks, 1, "{refusals:?}");
    }

    #[test]
    fn a_member_middle_that_dedents_out_of_its_class_is_spliced_at_the_top_level() {
        // A comment first: no statement inserted between two top-level statements.
        let new = CLASS.replace(
            "        return 2\n",
            "        return 2\n        # then\ndef stray():\n    pass\n",
        );
        let (counts, refusals) = run(CLASS, &new);
        assert!(
            refused(&refusals, Level::Member, Refusal::Shape),
            "{refusals:?}"
        );
        assert_eq!(
            (counts.spliced, counts.spliced_members),
            (1, 0),
            "{refusals:?}"
        );
    }

    #[test]
    fn a_middle_starting_with_a_comment_or_blank_widens_to_the_statement_before() {
        // The deep comment replacing `import sys` would join class A's body in a full
        // parse: the middle may not start with it, so it takes in class A.
        let old = "class A:\n    def f(self):\n        pass\nimport sys\ndef g():\n    pass\n";
        let new =
            "class A:\n    def f(self):\n        pass\n            # deep\ndef g():\n    pass\n";
        let (counts, refusals) = run(old, new);
        assert_eq!(counts.spliced, 1, "{refusals:?}");
        let blank = old.replace("import sys\n", "\n");
        let (counts, refusals) = run(old, &blank);
        assert_eq!(counts.spliced, 1, "{refusals:?}");
        // Right after a class header there is nothing to widen to inside the class.
        let first = CLASS.replace("    def f(self):\n", "# note\n    def f(self):\n");
        let first = first.replacen("class A:\n# note\n", "class A:\n  # note\n", 1);
        let (counts, refusals) = run(CLASS, &first);
        assert!(
            refused(&refusals, Level::Member, Refusal::StartNotStatement),
            "{refusals:?}"
        );
        assert_eq!(
            (counts.spliced, counts.spliced_members),
            (1, 0),
            "{refusals:?}"
        );
    }

    #[test]
    fn a_middle_starting_with_a_clause_widens_to_its_statement() {
        let old = "if X:\n    pass\ndef f():\n    pass\n";
        let new = "if X:\n    pass\nelse:\n    pass\n";
        let (counts, refusals) = run(old, new);
        assert_eq!(counts.spliced, 1, "{refusals:?}");
        for clause in [
            "else:",
            "elif x:",
            "except E:",
            "except* E:",
            "finally:",
            "case 1:",
        ] {
            assert_eq!(
                statement_start(format!("{clause}\n").as_bytes(), b"", false),
                Err(Refusal::StartContinues),
                "{clause}"
            );
        }
        assert_eq!(statement_start(b"elsewhere = 1\n", b"", false), Ok(()));
        assert_eq!(
            statement_start(b"    def f(self):\n", b"    ", false),
            Ok(())
        );
    }

    #[test]
    fn a_statement_start_is_at_exactly_the_indentation() {
        for (line, indent) in [
            (&b"  def f(self):\n"[..], &b"    "[..]),
            (b"      def f(self):\n", b"    "),
            (b"\tdef f(self):\n", b"    "),
            (b" x = 1\n", b""),
            (b"\n", b""),
            (b"\r\n", b""),
            (b"# comment\n", b""),
            (b"\\\n", b""),
        ] {
            assert_eq!(
                statement_start(line, indent, false),
                Err(Refusal::SuffixStart),
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn a_suffix_starting_with_a_quote_falls_back() {
        // The scanner's dedent rule looks at whether the next line starts with a quote.
        let old = "def f():\n    return 1\n\"\"\"A module string.\"\"\"\n";
        let new = old.replace("return 1", "return 2");
        let (counts, refusals) = run(old, &new);
        assert!(
            refused(&refusals, Level::Top, Refusal::SuffixStart),
            "{refusals:?}"
        );
        assert_eq!(counts.splice_fallbacks, 1, "{refusals:?}");
    }

    #[test]
    fn groups_split_across_a_splice_boundary_are_merged_over_the_whole_file() {
        let old = "\
class P:
    @property
    def x(self):
        return 1

    def other(self):
        pass

    @x.setter
    def x(self, v):
        pass

@overload
def f(a: int) -> int: ...

def g():
    pass

def f(a):
    return a
";
        for new in [
            old.replace("    @x.setter\n", "    @x.deleter\n"),
            old.replace("        return 1\n", "        return 2\n"),
            old.replace("def g():\n    pass\n", "def g():\n    return 3\n"),
            old.replace("@overload\n", ""),
        ] {
            let (counts, refusals) = run(old, &new);
            assert_eq!(counts.spliced, 1, "{refusals:?}\n{new}");
        }
    }

    #[test]
    fn crlf_lines_splice() {
        let old = CLASS.replace('\n', "\r\n");
        let new = old.replace("return 1", "return 11");
        let (counts, refusals) = run(&old, &new);
        assert_eq!(
            (counts.spliced, counts.spliced_members),
            (1, 1),
            "{refusals:?}"
        );
    }

    #[test]
    fn misaligned_middles_are_refused() {
        let old = b"a = 1\nb = 2\nc = 3\n";
        let new = b"a = 1\nB = 2\nc = 4\n";
        let (old_lines, new_lines) = (LineIndex::new(old), LineIndex::new(new));
        let text = Texts {
            old,
            new,
            old_lines: &old_lines,
            new_lines: &new_lines,
        };
        // Claiming only line 2 changed misses line 3.
        let middles = [Rows {
            old: 1..2,
            new: 1..2,
        }];
        assert_eq!(unchanged_between(&middles, &text), Err(Refusal::Misaligned));
        let middles = [Rows {
            old: 1..3,
            new: 1..3,
        }];
        assert_eq!(unchanged_between(&middles, &text), Ok(()));
    }

    #[test]
    fn line_index_splits_as_the_diff_does() {
        for text in [
            "",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\n",
            "0123456789abcdef\n0123456\n",
        ] {
            let index = LineIndex::new(text.as_bytes());
            let lines: Vec<&[u8]> = (0..index.count())
                .filter_map(|line| index.line(text.as_bytes(), line))
                .collect();
            let expected: Vec<&[u8]> = text.split_inclusive('\n').map(str::as_bytes).collect();
            assert_eq!(lines, expected, "{text:?}");
            assert_eq!(index.len(), text.len());
        }
    }
}
