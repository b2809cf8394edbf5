//! The Python splice: the units of a new version of a file from the OUTLINE of an older
//! one, parsing only the statements the change touches, in isolation.
//!
//! Owns: the [`Outline`] of an error-free Python source (its top-level statements as row
//! ranges, each with the raw declarations it produced, and for a top-level class the same
//! for its members), building it from a tree, and [`splice`]: mapping the line diff's
//! hunks onto the outline — a hunk inside the members of a top-level class whose header it
//! leaves alone goes to that class, any other to the top level; at each level the smallest
//! runs of touched statements ("middles") covering them, a changed row between statements
//! or a pure insertion at a boundary touching both neighbours, a middle whose new first
//! line starts no statement taking in the statement before it — parsing each middle alone,
//! checking that the isolated parse says what a full parse would, and reassembling
//! declarations and outline. A refused class is retried at the top level; any other doubt
//! is a [`Refusal`] of the whole version, and the caller then parses as before.
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
//! pinned the same way: the line after it (the suffix's first line) was a statement start
//! in the old outline and is unchanged, so the middle is parsed followed by the sentinel
//! `pass` at column 0 — a complete simple statement that nothing can continue into
//! (`pass` is no expression), so an unclosed bracket, string or block, or a trailing `\`,
//! makes the isolated parse fail rather than borrow from the suffix; the scanner, which
//! decides where a block and its trailing comments end by the indentation of the next
//! non-comment line, sees the same indentation as before the real suffix. The suffix then
//! starts in the reset state too and parses as it did, rows shifted.
//!
//! Middles are independent: each is bounded by statement starts of the new version, so
//! what lies between two middles starts and ends in the reset state too (top-level runs
//! that touch are merged into one, and so is a class whose members' middle reaches its
//! end when the next statement starts a top-level middle).
//!
//! Inside one top-level class the same holds one level down: the members of a class body
//! start at the body's indentation `I` with the indentation stack `[0, I]`. The middle is
//! parsed as `class _:` + its new lines + `<I>pass` (when a member follows) or `pass`
//! (when a top-level statement follows), and is accepted only if the isolated root is that
//! one class (plus the column-0 sentinel) and every statement of the middle is inside its
//! body, so nothing dedented out of the class.
//!
//! Only error-free isolated parses are accepted (an error means refusal, never an answer),
//! so an `Unparseable` answer always comes from a full parse. Declarations carry only
//! names, kinds, roles and rows, and the roles depend only on a declaration's own
//! decorators; grouping (`@overload`, property accessors) is global and runs afterwards
//! over the declarations of the whole file in document order, as the full walk feeds it.
//! `tests/it/splice.rs` checks splice == full parse on adversarial randomized histories.

use std::ops::Range;

use tree_sitter::{Node, Parser};

use super::python::{self, Enclosing};
use super::syntax::{self, Collector, Declaration};
use super::{ExtractError, Unit};
use crate::diff::{Hunk, changed_stretch_hunks};

/// One top-level statement or class member: its rows and its raw declarations.
#[derive(Debug, Clone)]
struct Segment {
    /// First and last row (0-based, inclusive).
    start: usize,
    end: usize,
    /// In document order; for a class with a [`Body`], only the class's own declaration.
    declarations: Vec<Declaration>,
    /// The members of a top-level class the splice may descend into.
    body: Option<Body>,
}

/// The members of a top-level class.
#[derive(Debug, Clone)]
struct Body {
    /// The whitespace before its first member.
    indent: Box<[u8]>,
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
            segments: segments(&children, source, Enclosing::Module, 0),
            lines: LineIndex::new(source.as_bytes()),
        }
    }

    /// The units: every declaration in document order, grouped.
    pub(super) fn units(&self) -> Vec<Unit> {
        let mut collector = Collector::default();
        for segment in &self.segments {
            for declaration in segment.declarations() {
                collector.add(declaration.clone());
            }
        }
        collector.finish()
    }
}

impl Segment {
    /// Its declarations in document order, members included.
    fn declarations(&self) -> impl Iterator<Item = &Declaration> {
        let members = self.body.iter().flat_map(|body| &body.members);
        self.declarations
            .iter()
            .chain(members.flat_map(|member| member.declarations.iter()))
    }

    /// The same segment `delta` rows further down.
    fn shifted(&self, delta: isize) -> Self {
        Self {
            start: moved(self.start, delta),
            end: moved(self.end, delta),
            declarations: self
                .declarations
                .iter()
                .map(|declaration| shifted(declaration, delta))
                .collect(),
            body: self.body.as_ref().map(|body| Body {
                indent: body.indent.clone(),
                members: body.members.iter().map(|m| m.shifted(delta)).collect(),
            }),
        }
    }
}

/// Why a splice was not done. The caller parses as before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// The changes do not all lie in the members of one top-level class (member level only).
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
    /// The isolated tree is not the middle followed by the sentinel (or, for members, not
    /// one class holding them all).
    Shape,
}

impl Refusal {
    /// A short label for benches and test messages.
    pub fn label(self) -> &'static str {
        match self {
            Self::NotOneClass => "not in one class",
            Self::Misaligned => "misaligned",
            Self::StartNotStatement => "start not a statement",
            Self::StartContinues => "start continues a clause",
            Self::SuffixStart => "suffix start",
            Self::SyntaxError => "syntax error",
            Self::Shape => "shape",
        }
    }
}

/// Which level a refusal happened at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The members of one top-level class (that class is then spliced at the top level).
    Member,
    /// Top-level statements (the version is then parsed as before).
    Top,
}

/// A successful splice.
pub(super) struct Spliced {
    pub(super) units: Vec<Unit>,
    pub(super) outline: Outline,
    /// Middles parsed at the top level (none: the whole change lay inside classes).
    pub(super) top_middles: usize,
    /// Classes whose member splice was refused (spliced at the top level instead).
    pub(super) refused: Vec<Refusal>,
}

/// The units and outline of `new`, from `outline` (of `old`) and isolated parses of what
/// changed: each run of touched members of a top-level class whose header is untouched,
/// and each run of touched top-level statements otherwise. `Err` holds the refusals.
pub(super) fn splice(
    outline: &Outline,
    old: &[u8],
    new: &[u8],
    parser: &mut Parser,
) -> Result<Spliced, Vec<(Level, Refusal)>> {
    if old == new {
        return Ok(Spliced {
            units: outline.units(),
            outline: outline.clone(),
            top_middles: 0,
            refused: Vec::new(),
        });
    }
    let old_lines = &outline.lines;
    if old_lines.len() != old.len() {
        return Err(vec![(Level::Top, Refusal::Misaligned)]);
    }
    let new_lines = LineIndex::new(new);
    let changes: Vec<Change> = changed_stretch_hunks(old, new)
        .iter()
        .map(Change::of)
        .collect();
    let text = Texts {
        old,
        new,
        old_lines,
        new_lines: &new_lines,
    };
    let mut refusals = Vec::new();
    match splice_changes(outline, &changes, &text, parser, &mut refusals) {
        Ok(mut spliced) => {
            spliced.refused = refusals.into_iter().map(|(_, refusal)| refusal).collect();
            Ok(spliced)
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

    /// How far rows before this change move (none of the earlier changes lies between).
    fn shift_before(&self) -> isize {
        signed(self.new_start) - signed(self.old_start)
    }

    /// How far rows after this change move (up to the next change).
    fn shift_after(&self) -> isize {
        signed(self.new_end) - signed(self.old_end)
    }
}

/// A run of touched segments of one block: segments `first..after` are replaced, and
/// `changes` (indices) are the changes inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    first: usize,
    after: usize,
    changes: Range<usize>,
}

/// The old and new rows of one middle: old rows `old` became new rows `new`.
#[derive(Debug, Clone)]
struct Rows {
    old: Range<usize>,
    new: Range<usize>,
}

/// The run of `segments` (statements of one block, all in old rows `zone`) that one change
/// touches: a changed row inside a segment touches it, one between two segments (blank,
/// comment) or a pure insertion at a boundary touches the segments on both sides. `None`
/// when the change is not inside `zone`.
fn touched(segments: &[Segment], change: &Change, zone: &Range<usize>) -> Option<(usize, usize)> {
    // Positions: 2i is the gap before segment i (2n after the last), 2i+1 segment i.
    let n = segments.len();
    let position = |row: usize| {
        let i = segments.partition_point(|segment| segment.start <= row);
        match i.checked_sub(1) {
            Some(inside) if row <= segments[inside].end => 2 * inside + 1,
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

/// The runs of `segments` that `changes` touch, overlapping or adjacent runs merged. A run
/// whose middle would begin with a line that starts no statement (`bad_start(first
/// segment, first change)`: the segment's first line was deleted or blanked) takes in the
/// segment before it, whose first line is unchanged.
fn runs(
    segments: &[Segment],
    changes: &[Change],
    offset: usize,
    zone: &Range<usize>,
    bad_start: impl Fn(usize, usize) -> bool,
) -> Option<Vec<Run>> {
    let mut out: Vec<Run> = Vec::new();
    for (index, change) in changes.iter().enumerate() {
        let (first, after) = touched(segments, change, zone)?;
        let at = offset + index;
        let mut run = Run {
            first,
            after,
            changes: at..at + 1,
        };
        loop {
            match out.last() {
                Some(last) if run.first <= last.after => {
                    run = Run {
                        first: last.first.min(run.first),
                        after: last.after.max(run.after),
                        changes: last.changes.start..run.changes.end,
                    };
                    out.pop();
                }
                _ if run.first > 0 && bad_start(run.first, run.changes.start) => run.first -= 1,
                _ => break,
            }
        }
        out.push(run);
    }
    Some(out)
}

/// Whether the middle of a run whose first segment starts at old row `start`, its first
/// change `change`, would begin with a line that is no statement start at `indent`.
fn bad_start(text: &Texts<'_>, start: usize, change: &Change, indent: &[u8], quote: bool) -> bool {
    let new_row = usize::try_from(signed(start) + change.shift_before()).ok();
    let line = new_row.and_then(|row| text.new_lines.line(text.new, row));
    line.is_none_or(|line| statement_start(line, indent, quote).is_err())
}

/// What one top-level stretch of the change becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Claim {
    /// Top-level statements spliced as one middle.
    Top(Run),
    /// The members of top-level class `at` spliced, its header untouched.
    Member { at: usize, changes: Range<usize> },
}

impl Claim {
    fn segments(&self) -> Range<usize> {
        match self {
            Self::Top(run) => run.first..run.after,
            Self::Member { at, .. } => *at..*at + 1,
        }
    }

    fn changes(&self) -> Range<usize> {
        match self {
            Self::Top(run) => run.changes.clone(),
            Self::Member { changes, .. } => changes.clone(),
        }
    }
}

/// The old rows of the members of top-level segment `at` and the top-level gap after
/// them: from its first member to the next top-level segment (or the end).
fn member_zone(outline: &Outline, at: usize, old_count: usize) -> Option<Range<usize>> {
    let first = outline
        .segments
        .get(at)?
        .body
        .as_ref()?
        .members
        .first()?
        .start;
    let end = outline
        .segments
        .get(at + 1)
        .map_or(old_count, |next| next.start);
    Some(first..end)
}

/// Assigns each change to the members of one class (when it lies in that class's member
/// zone and the class is not `forbidden`) or to a top-level run, then merges: top-level
/// runs that overlap or touch, a class inside a top-level run, and a class whose next
/// segment starts a top-level run (the class's last member would then be followed by a
/// changed line) all become one top-level run.
fn plan(
    outline: &Outline,
    changes: &[Change],
    text: &Texts<'_>,
    forbidden: &[usize],
) -> Result<Vec<Claim>, Refusal> {
    let old_count = text.old_lines.count();
    let segments = &outline.segments;
    let whole = 0..old_count;
    let mut out: Vec<Claim> = Vec::new();
    for (index, change) in changes.iter().enumerate() {
        let probe = if change.old_start < change.old_end {
            change.old_start
        } else {
            change.old_start.saturating_sub(1)
        };
        let class = segments
            .partition_point(|segment| segment.start <= probe)
            .checked_sub(1)
            .filter(|at| !forbidden.contains(at))
            .filter(|&at| {
                member_zone(outline, at, old_count).is_some_and(|zone| change.within(&zone))
            });
        let mut claim = match class {
            Some(at) => Claim::Member {
                at,
                changes: index..index + 1,
            },
            None => {
                let (first, after) =
                    touched(segments, change, &whole).ok_or(Refusal::Misaligned)?;
                Claim::Top(Run {
                    first,
                    after,
                    changes: index..index + 1,
                })
            }
        };
        loop {
            let Some(last) = out.last() else {
                match &mut claim {
                    Claim::Top(run)
                        if run.first > 0
                            && bad_start(
                                text,
                                segments[run.first].start,
                                &changes[run.changes.start],
                                b"",
                                false,
                            ) =>
                    {
                        run.first -= 1;
                        continue;
                    }
                    _ => break,
                }
            };
            let (previous, current) = (last.segments(), claim.segments());
            let merged_changes = last.changes().start..claim.changes().end;
            let merged = match (last, &claim) {
                (Claim::Member { at, .. }, Claim::Member { at: other, .. }) => {
                    if at == other {
                        Some(Claim::Member {
                            at: *at,
                            changes: merged_changes,
                        })
                    } else {
                        None
                    }
                }
                (Claim::Top(_), Claim::Top(_)) | (Claim::Member { .. }, Claim::Top(_))
                    if current.start <= previous.end =>
                {
                    Some(Claim::Top(Run {
                        first: previous.start.min(current.start),
                        after: previous.end.max(current.end),
                        changes: merged_changes,
                    }))
                }
                (Claim::Top(_), Claim::Member { .. }) if current.start < previous.end => {
                    Some(Claim::Top(Run {
                        first: previous.start.min(current.start),
                        after: previous.end.max(current.end),
                        changes: merged_changes,
                    }))
                }
                _ => None,
            };
            match merged {
                Some(merged) => {
                    out.pop();
                    claim = merged;
                }
                None => match &mut claim {
                    Claim::Top(run)
                        if run.first > 0
                            && bad_start(
                                text,
                                segments[run.first].start,
                                &changes[run.changes.start],
                                b"",
                                false,
                            ) =>
                    {
                        run.first -= 1;
                    }
                    _ => break,
                },
            }
        }
        out.push(claim);
    }
    Ok(out)
}

/// What splicing the members of one class gave.
struct MemberSplice {
    changes: Range<usize>,
    /// The class's new top-level segment.
    segment: Segment,
    middles: Vec<Rows>,
}

fn splice_changes(
    outline: &Outline,
    changes: &[Change],
    text: &Texts<'_>,
    parser: &mut Parser,
    refusals: &mut Vec<(Level, Refusal)>,
) -> Result<Spliced, Refusal> {
    let mut forbidden: Vec<usize> = Vec::new();
    let mut done: Vec<(usize, MemberSplice)> = Vec::new();
    let claims = loop {
        let claims = plan(outline, changes, text, &forbidden)?;
        let mut refused = false;
        for claim in &claims {
            let Claim::Member { at, changes: mine } = claim else {
                continue;
            };
            if done
                .iter()
                .any(|(known, splice)| known == at && splice.changes == *mine)
            {
                continue;
            }
            match splice_members(outline, *at, mine.clone(), changes, text, parser) {
                Ok(splice) => done.push((*at, splice)),
                Err(refusal) => {
                    refusals.push((Level::Member, refusal));
                    forbidden.push(*at);
                    refused = true;
                    break;
                }
            }
        }
        if !refused {
            break claims;
        }
    };
    let mut segments: Vec<Segment> = Vec::with_capacity(outline.segments.len() + 4);
    let mut middles: Vec<Rows> = Vec::new();
    let (mut next, mut shift) = (0, 0);
    let mut top_middles = 0;
    for claim in &claims {
        let range = claim.segments();
        let mine = claim.changes();
        let (Some(first_change), Some(last_change)) = (
            changes.get(mine.start),
            mine.end.checked_sub(1).and_then(|i| changes.get(i)),
        ) else {
            return Err(Refusal::Misaligned);
        };
        let before = first_change.shift_before();
        segments.extend(
            outline.segments[next..range.start]
                .iter()
                .map(|segment| segment.shifted(before)),
        );
        match claim {
            Claim::Top(run) => {
                let (new, rows) = splice_top(outline, run, changes, text, parser)?;
                segments.extend(new);
                middles.push(rows);
                top_middles += 1;
            }
            Claim::Member { at, changes: mine } => {
                let splice = done
                    .iter()
                    .find(|(known, splice)| known == at && splice.changes == *mine)
                    .map(|(_, splice)| splice)
                    .ok_or(Refusal::Misaligned)?;
                segments.push(splice.segment.clone());
                middles.extend(splice.middles.iter().cloned());
            }
        }
        next = range.end;
        shift = last_change.shift_after();
    }
    segments.extend(
        outline.segments[next..]
            .iter()
            .map(|segment| segment.shifted(shift)),
    );
    unchanged_between(&middles, text)?;
    let outline = Outline {
        segments,
        lines: text.new_lines.clone(),
    };
    Ok(Spliced {
        units: outline.units(),
        outline,
        top_middles,
        refused: Vec::new(),
    })
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

/// The old and new rows of the middle replacing segments `run.first..run.after` of a block
/// in old rows `zone`: from the first segment's start (`zone.start` when it is the block's
/// first) to the next segment's start (`zone.end` when none follows).
fn middle_rows(
    segments: &[Segment],
    run: &Run,
    changes: &[Change],
    zone: &Range<usize>,
) -> Result<Rows, Refusal> {
    let start = if run.first == 0 {
        zone.start
    } else {
        segments
            .get(run.first)
            .map_or(zone.end, |segment| segment.start)
    };
    let end = segments
        .get(run.after)
        .map_or(zone.end, |segment| segment.start);
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

/// Splices the members of top-level class `at` touched by `changes[mine]`.
fn splice_members(
    outline: &Outline,
    at: usize,
    mine: Range<usize>,
    changes: &[Change],
    text: &Texts<'_>,
    parser: &mut Parser,
) -> Result<MemberSplice, Refusal> {
    let class = outline.segments.get(at).ok_or(Refusal::NotOneClass)?;
    let body = class.body.as_ref().ok_or(Refusal::NotOneClass)?;
    let own = class.declarations.first().ok_or(Refusal::NotOneClass)?;
    let zone = member_zone(outline, at, text.old_lines.count()).ok_or(Refusal::NotOneClass)?;
    let top_follows = at + 1 < outline.segments.len();
    let my_changes = changes.get(mine.clone()).ok_or(Refusal::Misaligned)?;
    let indent: &[u8] = &body.indent;
    let runs = runs(
        &body.members,
        my_changes,
        mine.start,
        &zone,
        |first, change| {
            bad_start(
                text,
                body.members[first].start,
                &changes[change],
                indent,
                false,
            )
        },
    )
    .ok_or(Refusal::NotOneClass)?;
    let (Some(first_change), Some(last_change)) = (my_changes.first(), my_changes.last()) else {
        return Err(Refusal::Misaligned);
    };
    let mut members: Vec<Segment> = Vec::with_capacity(body.members.len() + 2);
    let mut middles = Vec::with_capacity(runs.len());
    let mut class_end = None;
    let mut next = 0;
    for run in &runs {
        let rows = middle_rows(&body.members, run, changes, &zone)?;
        let before = changes[run.changes.start].shift_before();
        members.extend(
            body.members[next..run.first]
                .iter()
                .map(|member| member.shifted(before)),
        );
        let member_follows = run.after < body.members.len();
        // The first line after the prefix: the middle's, or the suffix's when the middle
        // is empty (none at the end of the file: refused, to keep the context a statement).
        let line = text
            .new_lines
            .line(text.new, rows.new.start)
            .ok_or(Refusal::StartNotStatement)?;
        // Right after the class header the isolated context (`class _:`) is the real one,
        // so the first member may be a string (the docstring); see `statement_start`.
        statement_start(line, indent, run.first == 0).map_err(|refusal| match refusal {
            Refusal::SuffixStart => Refusal::StartNotStatement,
            other => other,
        })?;
        let sentinel: Option<&[u8]> = if member_follows {
            Some(indent)
        } else if top_follows {
            Some(b"")
        } else {
            None
        };
        if let Some(sentinel) = sentinel {
            let line = text
                .new_lines
                .line(text.new, rows.new.end)
                .ok_or(Refusal::SuffixStart)?;
            statement_start(line, sentinel, false).map_err(|_| Refusal::SuffixStart)?;
        }
        let mut isolated = b"class _:\n".to_vec();
        isolated.extend_from_slice(text.new_lines.slice(text.new, rows.new.clone()));
        if let Some(sentinel) = sentinel {
            isolated.extend_from_slice(sentinel);
            isolated.extend_from_slice(b"pass\n");
        }
        let source = std::str::from_utf8(&isolated).map_err(|_| Refusal::Misaligned)?;
        let tree = parse(parser, &isolated)?;
        // Isolated row r is new row r - 1 + rows.new.start.
        let sentinel_row = rows.new.len() + 1;
        let root = statements(tree.root_node());
        let (class_node, top_sentinel) = match (root.as_slice(), member_follows, sentinel) {
            ([class_node], _, None) | ([class_node], true, Some(_)) => (*class_node, None),
            ([class_node, pass], false, Some(_)) => (*class_node, Some(*pass)),
            _ => return Err(Refusal::Shape),
        };
        if class_node.kind() != "class_definition" || class_node.start_position().row != 0 {
            return Err(Refusal::Shape);
        }
        if let Some(pass) = top_sentinel {
            is_sentinel(pass, sentinel_row, 0)?;
        }
        let block = class_node
            .child_by_field_name("body")
            .ok_or(Refusal::Shape)?;
        let mut inside = statements(block);
        if member_follows {
            let pass = inside.pop().ok_or(Refusal::Shape)?;
            is_sentinel(pass, sentinel_row, indent.len())?;
        }
        if inside
            .iter()
            .any(|member| member.start_position().row == 0 || last_row(*member) >= sentinel_row)
        {
            return Err(Refusal::Shape);
        }
        let offset = signed(rows.new.start) - 1;
        members.extend(segments(
            &inside,
            source,
            Enclosing::Class(&own.name),
            offset,
        ));
        if !member_follows {
            class_end = Some(moved(last_row(class_node), offset));
        }
        middles.push(rows);
        next = run.after;
    }
    let after = last_change.shift_after();
    members.extend(
        body.members[next..]
            .iter()
            .map(|member| member.shifted(after)),
    );
    if members.is_empty() {
        // A class without members is no class the outline describes.
        return Err(Refusal::Shape);
    }
    let start = moved(class.start, first_change.shift_before());
    let end = class_end.unwrap_or_else(|| moved(class.end, after));
    let mut own = shifted(own, first_change.shift_before());
    own.lines.end = line_of(end);
    Ok(MemberSplice {
        changes: mine,
        segment: Segment {
            start,
            end,
            declarations: vec![own],
            body: Some(Body {
                indent: body.indent.clone(),
                members,
            }),
        },
        middles,
    })
}

/// Splices top-level statements `run.first..run.after`: their new segments and rows.
fn splice_top(
    outline: &Outline,
    run: &Run,
    changes: &[Change],
    text: &Texts<'_>,
    parser: &mut Parser,
) -> Result<(Vec<Segment>, Rows), Refusal> {
    let zone = 0..text.old_lines.count();
    let rows = middle_rows(&outline.segments, run, changes, &zone)?;
    let follows = run.after < outline.segments.len();
    // With no segment before it, the middle starts at row 0: the start of the file.
    if run.first > 0 {
        let line = text
            .new_lines
            .line(text.new, rows.new.start)
            .ok_or(Refusal::StartNotStatement)?;
        statement_start(line, b"", false).map_err(|refusal| match refusal {
            Refusal::SuffixStart => Refusal::StartNotStatement,
            other => other,
        })?;
    }
    if follows {
        let line = text
            .new_lines
            .line(text.new, rows.new.end)
            .ok_or(Refusal::SuffixStart)?;
        statement_start(line, b"", false).map_err(|_| Refusal::SuffixStart)?;
    }
    let mut isolated = text.new_lines.slice(text.new, rows.new.clone()).to_vec();
    if follows {
        isolated.extend_from_slice(b"pass\n");
    }
    let source = std::str::from_utf8(&isolated).map_err(|_| Refusal::Misaligned)?;
    let tree = parse(parser, &isolated)?;
    let sentinel_row = rows.new.len();
    let mut statements = statements(tree.root_node());
    if follows {
        let pass = statements.pop().ok_or(Refusal::Shape)?;
        is_sentinel(pass, sentinel_row, 0)?;
        if statements
            .iter()
            .any(|statement| last_row(*statement) >= sentinel_row)
        {
            return Err(Refusal::Shape);
        }
    }
    let new = segments(
        &statements,
        source,
        Enclosing::Module,
        signed(rows.new.start),
    );
    Ok((new, rows))
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
    if node.kind() == "pass_statement"
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
        .filter(|child| child.kind() != "comment")
        .collect()
}

/// The segments of `nodes` (consecutive statements of one block of `source`, walked in
/// `enclosing`), rows moved by `offset`. Statements sharing a row form one segment; a
/// top-level class statement alone on its rows, whose members start below its header,
/// gets a [`Body`].
fn segments(
    nodes: &[Node<'_>],
    source: &str,
    enclosing: Enclosing<'_>,
    offset: isize,
) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(nodes.len());
    for &node in nodes {
        let start = moved(node.start_position().row, offset);
        let end = moved(last_row(node), offset);
        if let Some(last) = out.last_mut().filter(|last| start <= last.end) {
            let mut declarations: Vec<Declaration> = last.declarations().cloned().collect();
            declarations.extend(
                python::declarations(node, source, enclosing)
                    .iter()
                    .map(|declaration| shifted(declaration, offset)),
            );
            last.end = last.end.max(end);
            last.declarations = declarations;
            last.body = None;
            continue;
        }
        let class = (enclosing == Enclosing::Module)
            .then(|| python::class_statement(node, source))
            .flatten();
        let segment = match class.and_then(|class| body(&class, source, offset).map(|b| (class, b)))
        {
            Some((class, body)) => Segment {
                start,
                end,
                declarations: vec![shifted(&class.own, offset)],
                body: Some(body),
            },
            None => Segment {
                start,
                end,
                declarations: python::declarations(node, source, enclosing)
                    .iter()
                    .map(|declaration| shifted(declaration, offset))
                    .collect(),
                body: None,
            },
        };
        out.push(segment);
    }
    out
}

/// The members of a class statement, when the splice may descend into them: the body has
/// a member, starts below the header's `:`, and its first member is indented by spaces or
/// tabs only.
fn body(class: &python::ClassStatement<'_>, source: &str, offset: isize) -> Option<Body> {
    let members = statements(class.body);
    let first = members.first()?;
    if first.start_position().row <= class.colon_row {
        return None;
    }
    let line_start = first
        .start_byte()
        .checked_sub(first.start_position().column)?;
    let indent = source.as_bytes().get(line_start..first.start_byte())?;
    if indent.is_empty() || !indent.iter().all(|&byte| byte == b' ' || byte == b'\t') {
        return None;
    }
    Some(Body {
        indent: indent.into(),
        members: segments(&members, source, Enclosing::Class(&class.own.name), offset),
    })
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

/// Pushes the start of the line after each `\n` of `bytes` (which start at `base`).
fn newlines(bytes: &[u8], base: usize, starts: &mut Vec<usize>) {
    for (index, &byte) in bytes.iter().enumerate() {
        if byte == b'\n' {
            starts.push(base + index + 1);
        }
    }
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
        // Eight bytes at a time: `word ^ NEWLINES` has a zero byte where `word` has a
        // `\n`, and `(x - ONES) & !x & HIGH` is non-zero exactly when `x` has a zero byte.
        const ONES: u64 = u64::from_le_bytes([1; 8]);
        const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
        const NEWLINES: u64 = u64::from_le_bytes([b'\n'; 8]);
        let mut starts = Vec::with_capacity(text.len() / 32 + 2);
        starts.push(0);
        let mut chunks = text.chunks_exact(8);
        let mut base = 0;
        for chunk in &mut chunks {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(chunk);
            let x = u64::from_le_bytes(bytes) ^ NEWLINES;
            if x.wrapping_sub(ONES) & !x & HIGH != 0 {
                newlines(chunk, base, &mut starts);
            }
            base += 8;
        }
        newlines(chunks.remainder(), base, &mut starts);
        // A `\n` ending the text starts no line.
        if starts.last() == Some(&text.len()) {
            starts.pop();
        }
        starts.push(text.len());
        Self { starts }
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

    #[test]
    fn a_class_header_edit_is_spliced_at_the_top_level() {
        let new = CLASS.replace("class A:", "class A(Base):");
        let (counts, refusals) = run(CLASS, &new);
        assert_eq!(
            (counts.spliced, counts.spliced_members),
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
        let new = CLASS.replace(
            "        return 2\n",
            "        return 2\ndef stray():\n    pass\n",
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
