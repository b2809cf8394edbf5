//! The classic (Myers) diff that git's histogram search falls back to.
//!
//! Owns: diffing one region whose common lines are all too frequent to anchor a histogram
//! split, as git's default diff engine diffs a standalone pair of files: strip the common
//! first and last lines; set aside lines that have no match on the other side, and
//! frequent lines sitting among such unmatched lines; then run Myers' bidirectional
//! O(ND) search on what is left (linear space, "An O(ND) Difference Algorithm and Its
//! Variations", 1986), with the usual cut-offs that keep expensive searches bounded (see
//! [`Search`]). Every set-aside line counts as changed.
//! Does not own: deciding when to fall back ([`super::histogram`]), compaction, hunks.

use super::changes::Changes;
use super::equal::{equal_head, equal_tail};
use gix_imara_diff::Token;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

/// Marks the changes between the region `before` and the region `after`, which start at
/// old and new line `offsets`.
pub(super) fn diff(
    before: &[Token],
    after: &[Token],
    offsets: (usize, usize),
    changes: &mut Changes,
) {
    let (old_offset, new_offset) = offsets;
    let common = common_ends(before, after);
    let counts = Counts::of(before, after);
    let old_kept = KeptLines::select(before, common, |token| counts.in_new(token));
    let new_kept = KeptLines::select(after, common, |token| counts.in_old(token));
    let mut search = Search::new(&old_kept.tokens, &new_kept.tokens);
    search.run();
    old_kept.mark(
        &search.removed,
        &mut changes.removed[old_offset..][..before.len()],
    );
    new_kept.mark(
        &search.added,
        &mut changes.added[new_offset..][..after.len()],
    );
}

/// How often each line occurs on each side of the region.
struct Counts(HashMap<Token, (usize, usize), BuildHasherDefault<TokenHasher>>);

impl Counts {
    fn of(before: &[Token], after: &[Token]) -> Self {
        let mut counts: HashMap<Token, (usize, usize), _> =
            HashMap::with_capacity_and_hasher(before.len(), BuildHasherDefault::default());
        for &token in before {
            counts.entry(token).or_default().0 += 1;
        }
        for &token in after {
            counts.entry(token).or_default().1 += 1;
        }
        Self(counts)
    }

    fn in_old(&self, token: Token) -> usize {
        self.0.get(&token).map_or(0, |counts| counts.0)
    }

    fn in_new(&self, token: Token) -> usize {
        self.0.get(&token).map_or(0, |counts| counts.1)
    }
}

/// How many leading and trailing lines the two sides share: the leading run first, then
/// the trailing run within what is left of the shorter side.
fn common_ends(before: &[Token], after: &[Token]) -> (usize, usize) {
    let leading = equal_head(before, after);
    let trailing = equal_tail(&before[leading..], &after[leading..]);
    (leading, trailing)
}

/// Hashes a token id (already a dense, interned number) by one multiplication.
#[derive(Default)]
struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u32(&mut self, id: u32) {
        self.write_u64(u64::from(id));
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0 ^ value).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// How a line relates to the other side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Matching {
    /// No equal line on the other side: certainly changed.
    None,
    /// Some equal lines on the other side.
    Few,
    /// Many equal lines on the other side: kept only when not lost among unmatched lines.
    Many,
}

/// The lines of one side that enter the search, and the line each came from.
struct KeptLines {
    /// All lines of the side: whether each is changed for sure (set aside).
    set_aside: Vec<bool>,
    tokens: Vec<Token>,
    origin: Vec<usize>,
}

impl KeptLines {
    /// Chooses the lines of `side` between the common ends that the search sees, given
    /// how often a line occurs on the other side.
    fn select(
        side: &[Token],
        common: (usize, usize),
        count_in_other: impl Fn(Token) -> usize,
    ) -> Self {
        let middle = common.0..side.len() - common.1;
        let matching = classify(side, middle.clone(), count_in_other);
        let neighbourhoods = Neighbourhoods::new(&matching);
        let mut kept = KeptLines {
            set_aside: vec![false; side.len()],
            tokens: Vec::new(),
            origin: Vec::new(),
        };
        for line in middle.clone() {
            let keep = match matching[line - middle.start] {
                Matching::None => false,
                Matching::Few => true,
                Matching::Many => !neighbourhoods.is_lost_among_unmatched(line - middle.start),
            };
            if keep {
                kept.tokens.push(side[line]);
                kept.origin.push(line);
            } else {
                kept.set_aside[line] = true;
            }
        }
        kept
    }

    /// Writes the side's change marks: set-aside lines, then the kept lines' marks.
    fn mark(&self, kept_changed: &[bool], marks: &mut [bool]) {
        marks.copy_from_slice(&self.set_aside);
        for (&line, &changed) in self.origin.iter().zip(kept_changed) {
            marks[line] = changed;
        }
    }
}

/// Lines matched this many times on the other side count as [`Matching::Many`]; the
/// threshold grows like the square root of the side's length, capped.
fn many_threshold(side_len: usize) -> usize {
    rough_sqrt(side_len).min(1024)
}

/// A power of two near the square root of `n` (at least 1): two to the number of base-4
/// digits of `n`.
fn rough_sqrt(n: usize) -> usize {
    let digits = (usize::BITS - n.leading_zeros()).div_ceil(2);
    1 << digits
}

fn classify(
    side: &[Token],
    middle: Range<usize>,
    count_in_other: impl Fn(Token) -> usize,
) -> Vec<Matching> {
    let many = many_threshold(side.len());
    side[middle]
        .iter()
        .map(|&token| match count_in_other(token) {
            0 => Matching::None,
            count if count >= many => Matching::Many,
            _ => Matching::Few,
        })
        .collect()
}

/// How far to either side a frequent line looks for its neighbourhood.
const NEIGHBOURHOOD: usize = 100;

/// Where each line's neighbourhood runs end, and running counts of unmatched lines, so
/// that each frequent line's neighbourhood is tallied in constant time.
struct Neighbourhoods {
    /// Per line: the line after the closest [`Matching::Few`] line above it (or 0).
    run_start: Vec<usize>,
    /// Per line: the closest [`Matching::Few`] line below it (or the length).
    run_end: Vec<usize>,
    /// `unmatched_before[i]`: how many of the lines before `i` are unmatched.
    unmatched_before: Vec<usize>,
}

impl Neighbourhoods {
    fn new(matching: &[Matching]) -> Self {
        let len = matching.len();
        let mut run_start = vec![0; len];
        let mut unmatched_before = vec![0; len + 1];
        let mut start = 0;
        for (line, &kind) in matching.iter().enumerate() {
            run_start[line] = start;
            if kind == Matching::Few {
                start = line + 1;
            }
            unmatched_before[line + 1] =
                unmatched_before[line] + usize::from(kind == Matching::None);
        }
        let mut run_end = vec![len; len];
        let mut end = len;
        for (line, &kind) in matching.iter().enumerate().rev() {
            run_end[line] = end;
            if kind == Matching::Few {
                end = line;
            }
        }
        Self {
            run_start,
            run_end,
            unmatched_before,
        }
    }

    /// A frequent line is set aside when the runs of not-[`Matching::Few`] lines right
    /// above and right below it (each at most [`NEIGHBOURHOOD`] lines) both contain
    /// unmatched lines and, across both runs, frequent lines (the line itself counted once
    /// per side) are fewer than a quarter of all lines counted.
    fn is_lost_among_unmatched(&self, line: usize) -> bool {
        let above = self.run_start[line].max(line.saturating_sub(NEIGHBOURHOOD))..line;
        let unmatched_above = self.unmatched_in(&above);
        if unmatched_above == 0 {
            return false;
        }
        let below = line + 1..self.run_end[line].min(line + 1 + NEIGHBOURHOOD);
        let unmatched_below = self.unmatched_in(&below);
        if unmatched_below == 0 {
            return false;
        }
        let unmatched = unmatched_above + unmatched_below;
        let frequent = (above.len() - unmatched_above) + (below.len() - unmatched_below) + 2;
        frequent * 4 < frequent + unmatched
    }

    fn unmatched_in(&self, lines: &Range<usize>) -> usize {
        self.unmatched_before[lines.end] - self.unmatched_before[lines.start]
    }
}

/// Snakes longer than this mark a search round as productive.
const GOOD_SNAKE: isize = 20;
/// Past this edit cost a productive round may cut the search at a promising diagonal.
const CUT_OFF_COST: isize = 256;
/// A promising diagonal has advanced more than this many times the edit cost.
const ADVANCE_FACTOR: isize = 4;

/// A box of the edit graph: old lines `old`, new lines `new`.
#[derive(Debug, Clone)]
struct EditBox {
    old: Range<isize>,
    new: Range<isize>,
    /// Whether this box must be solved without the cost cut-offs.
    minimal: bool,
}

/// Where a box is cut in two, and whether each half must be solved minimally.
#[derive(Debug, Clone, Copy)]
struct Cut {
    old: isize,
    new: isize,
    minimal_above: bool,
    minimal_below: bool,
}

/// Myers' divide-and-conquer search over the kept lines.
///
/// Cut-offs (outside boxes that must be minimal): past [`CUT_OFF_COST`], a round with a
/// snake longer than [`GOOD_SNAKE`] may cut at the diagonal that advanced most, if it
/// advanced more than [`ADVANCE_FACTOR`] times the cost and ends (forward) or starts
/// (backward) a run of [`GOOD_SNAKE`] equal lines; past a cost near the square root of
/// the input size, the search cuts at the furthest point either direction reached.
struct Search<'a> {
    old: &'a [Token],
    new: &'a [Token],
    /// Furthest old line reached on each diagonal by the forward search.
    forward: Diagonals,
    /// Smallest old line reached on each diagonal by the backward search.
    backward: Diagonals,
    max_cost: isize,
    removed: Vec<bool>,
    added: Vec<bool>,
}

/// Per-diagonal values, indexed by `old - new`, with room for a sentinel on each end.
struct Diagonals {
    values: Vec<isize>,
    zero: isize,
}

impl Diagonals {
    fn new(old_len: usize, new_len: usize) -> Self {
        Self {
            values: vec![0; old_len + new_len + 3],
            zero: new_len as isize + 1,
        }
    }

    fn get(&self, diagonal: isize) -> isize {
        self.values[(diagonal + self.zero) as usize]
    }

    fn set(&mut self, diagonal: isize, value: isize) {
        self.values[(diagonal + self.zero) as usize] = value;
    }
}

/// The range of diagonals one direction has reached, stepping by two.
#[derive(Debug, Clone, Copy)]
struct Frontier {
    low: isize,
    high: isize,
    middle: isize,
}

impl Frontier {
    fn at(middle: isize) -> Self {
        Self {
            low: middle,
            high: middle,
            middle,
        }
    }

    /// Widens by one diagonal each way, or narrows where the box ends, keeping the parity
    /// of the diagonals in reach. Returns the diagonals just outside a newly widened end,
    /// which need a sentinel.
    fn widen(&mut self, limits: (isize, isize)) -> [Option<isize>; 2] {
        let mut reached = [None, None];
        if self.low > limits.0 {
            self.low -= 1;
            reached[0] = Some(self.low - 1);
        } else {
            self.low += 1;
        }
        if self.high < limits.1 {
            self.high += 1;
            reached[1] = Some(self.high + 1);
        } else {
            self.high -= 1;
        }
        reached
    }

    /// The diagonals in reach, highest first.
    fn diagonals(&self) -> EveryOther {
        EveryOther {
            next: self.high,
            low: self.low,
        }
    }

    fn contains(&self, diagonal: isize) -> bool {
        self.low <= diagonal && diagonal <= self.high
    }
}

/// Diagonals from `next` down to `low`, two apart.
struct EveryOther {
    next: isize,
    low: isize,
}

impl Iterator for EveryOther {
    type Item = isize;

    fn next(&mut self) -> Option<isize> {
        let diagonal = self.next;
        self.next -= 2;
        (diagonal >= self.low).then_some(diagonal)
    }
}

impl<'a> Search<'a> {
    fn new(old: &'a [Token], new: &'a [Token]) -> Self {
        let diagonals = old.len() + new.len() + 3;
        Self {
            old,
            new,
            forward: Diagonals::new(old.len(), new.len()),
            backward: Diagonals::new(old.len(), new.len()),
            max_cost: (rough_sqrt(diagonals) as isize).max(CUT_OFF_COST),
            removed: vec![false; old.len()],
            added: vec![false; new.len()],
        }
    }

    fn run(&mut self) {
        let mut boxes = vec![EditBox {
            old: 0..self.old.len() as isize,
            new: 0..self.new.len() as isize,
            minimal: false,
        }];
        while let Some(edit_box) = boxes.pop() {
            let edit_box = self.shrink(edit_box);
            if edit_box.old.is_empty() {
                self.added[as_index(edit_box.new.start)..as_index(edit_box.new.end)].fill(true);
            } else if edit_box.new.is_empty() {
                self.removed[as_index(edit_box.old.start)..as_index(edit_box.old.end)].fill(true);
            } else {
                let cut = self.find_cut(&edit_box);
                boxes.push(EditBox {
                    old: edit_box.old.start..cut.old,
                    new: edit_box.new.start..cut.new,
                    minimal: cut.minimal_above,
                });
                boxes.push(EditBox {
                    old: cut.old..edit_box.old.end,
                    new: cut.new..edit_box.new.end,
                    minimal: cut.minimal_below,
                });
            }
        }
    }

    fn same(&self, old: isize, new: isize) -> bool {
        self.old[as_index(old)] == self.new[as_index(new)]
    }

    /// Drops the equal lines at the start and then at the end of the box.
    fn shrink(&self, mut edit_box: EditBox) -> EditBox {
        let leading = self.run_from(edit_box.old.start, edit_box.new.start, &edit_box);
        edit_box.old.start += leading;
        edit_box.new.start += leading;
        let trailing = self.run_before(edit_box.old.end, edit_box.new.end, &edit_box);
        edit_box.old.end -= trailing;
        edit_box.new.end -= trailing;
        edit_box
    }

    /// Searches from both corners, one edit at a time, until the paths meet or a cut-off
    /// applies.
    fn find_cut(&mut self, edit_box: &EditBox) -> Cut {
        let EditBox { old, new, minimal } = edit_box;
        let limits = (old.start - new.end, old.end - new.start);
        let mut forward = Frontier::at(old.start - new.start);
        let mut backward = Frontier::at(old.end - new.end);
        let odd = (forward.middle - backward.middle) & 1 == 1;
        self.forward.set(forward.middle, old.start);
        self.backward.set(backward.middle, old.end);
        let mut cost = 0;
        loop {
            cost += 1;
            let mut productive = false;
            for outer in forward.widen(limits).into_iter().flatten() {
                self.forward.set(outer, -1);
            }
            for diagonal in forward.diagonals() {
                let (end, snake) = self.forward_step(edit_box, diagonal);
                productive |= snake > GOOD_SNAKE;
                if odd && backward.contains(diagonal) && self.backward.get(diagonal) <= end {
                    return Cut::meeting(end, end - diagonal);
                }
            }
            for outer in backward.widen(limits).into_iter().flatten() {
                self.backward.set(outer, isize::MAX);
            }
            for diagonal in backward.diagonals() {
                let (start, snake) = self.backward_step(edit_box, diagonal);
                productive |= snake > GOOD_SNAKE;
                if !odd && forward.contains(diagonal) && start <= self.forward.get(diagonal) {
                    return Cut::meeting(start, start - diagonal);
                }
            }
            if *minimal {
                continue;
            }
            if productive && cost > CUT_OFF_COST {
                if let Some(cut) = self.promising_forward(edit_box, &forward, cost) {
                    return cut;
                }
                if let Some(cut) = self.promising_backward(edit_box, &backward, cost) {
                    return cut;
                }
            }
            if cost >= self.max_cost {
                return self.furthest(edit_box, &forward, &backward);
            }
        }
    }

    /// Extends the forward path on `diagonal` by one edit and the snake after it.
    /// Returns the old line reached and the snake length.
    fn forward_step(&mut self, edit_box: &EditBox, diagonal: isize) -> (isize, isize) {
        let (from_above, from_left) = (
            self.forward.get(diagonal - 1),
            self.forward.get(diagonal + 1),
        );
        let start = if from_above >= from_left {
            from_above + 1
        } else {
            from_left
        };
        let old = start + self.run_from(start, start - diagonal, edit_box);
        self.forward.set(diagonal, old);
        (old, old - start)
    }

    /// Extends the backward path on `diagonal` by one edit and the snake before it.
    /// Returns the old line reached and the snake length.
    fn backward_step(&mut self, edit_box: &EditBox, diagonal: isize) -> (isize, isize) {
        let (from_below, from_right) = (
            self.backward.get(diagonal - 1),
            self.backward.get(diagonal + 1),
        );
        let start = if from_below < from_right {
            from_below
        } else {
            from_right - 1
        };
        let old = start - self.run_before(start, start - diagonal, edit_box);
        self.backward.set(diagonal, old);
        (old, start - old)
    }

    /// How many equal lines start at old line `old` and new line `new`, within the box.
    fn run_from(&self, old: isize, new: isize, edit_box: &EditBox) -> isize {
        let old_lines = slice(self.old, old, edit_box.old.end);
        let new_lines = slice(self.new, new, edit_box.new.end);
        equal_head(old_lines, new_lines) as isize
    }

    /// How many equal lines end right before old line `old` and new line `new`, within
    /// the box.
    fn run_before(&self, old: isize, new: isize, edit_box: &EditBox) -> isize {
        let old_lines = slice(self.old, edit_box.old.start, old);
        let new_lines = slice(self.new, edit_box.new.start, new);
        equal_tail(old_lines, new_lines) as isize
    }

    /// The forward diagonal that advanced most, if it advanced far enough and ends a run of
    /// equal lines; the part above it must then be solved minimally.
    fn promising_forward(
        &self,
        edit_box: &EditBox,
        frontier: &Frontier,
        cost: isize,
    ) -> Option<Cut> {
        let mut best: Option<Point> = None;
        for diagonal in frontier.diagonals() {
            let old = self.forward.get(diagonal);
            let new = old - diagonal;
            let advance = (old - edit_box.old.start) + (new - edit_box.new.start)
                - (diagonal - frontier.middle).abs();
            let inside = edit_box.old.start + GOOD_SNAKE <= old
                && old < edit_box.old.end
                && edit_box.new.start + GOOD_SNAKE <= new
                && new < edit_box.new.end;
            if advance > ADVANCE_FACTOR * cost
                && best.is_none_or(|best| advance > best.advance)
                && inside
                && (1..=GOOD_SNAKE).all(|back| self.same(old - back, new - back))
            {
                best = Some(Point { advance, old, new });
            }
        }
        best.map(|point| Cut {
            old: point.old,
            new: point.new,
            minimal_above: true,
            minimal_below: false,
        })
    }

    /// The backward diagonal that advanced most, if it advanced far enough and starts a run
    /// of equal lines; the part below it must then be solved minimally.
    fn promising_backward(
        &self,
        edit_box: &EditBox,
        frontier: &Frontier,
        cost: isize,
    ) -> Option<Cut> {
        let mut best: Option<Point> = None;
        for diagonal in frontier.diagonals() {
            let old = self.backward.get(diagonal);
            let new = old - diagonal;
            let advance = (edit_box.old.end - old) + (edit_box.new.end - new)
                - (diagonal - frontier.middle).abs();
            let inside = edit_box.old.start < old
                && old <= edit_box.old.end - GOOD_SNAKE
                && edit_box.new.start < new
                && new <= edit_box.new.end - GOOD_SNAKE;
            if advance > ADVANCE_FACTOR * cost
                && best.is_none_or(|best| advance > best.advance)
                && inside
                && (0..GOOD_SNAKE).all(|ahead| self.same(old + ahead, new + ahead))
            {
                best = Some(Point { advance, old, new });
            }
        }
        best.map(|point| Cut {
            old: point.old,
            new: point.new,
            minimal_above: false,
            minimal_below: true,
        })
    }

    /// The furthest point either search reached, measured along anti-diagonals (old + new)
    /// and clamped to the box; ties go to the backward search.
    fn furthest(&self, edit_box: &EditBox, forward: &Frontier, backward: &Frontier) -> Cut {
        let mut ahead = (-1, -1);
        for diagonal in forward.diagonals() {
            let mut old = self.forward.get(diagonal).min(edit_box.old.end);
            let mut new = old - diagonal;
            if new > edit_box.new.end {
                old = edit_box.new.end + diagonal;
                new = edit_box.new.end;
            }
            if old + new > ahead.0 {
                ahead = (old + new, old);
            }
        }
        let mut behind = (isize::MAX, isize::MAX);
        for diagonal in backward.diagonals() {
            let mut old = self.backward.get(diagonal).max(edit_box.old.start);
            let mut new = old - diagonal;
            if new < edit_box.new.start {
                old = edit_box.new.start + diagonal;
                new = edit_box.new.start;
            }
            if old + new < behind.0 {
                behind = (old + new, old);
            }
        }
        let forward_progress = ahead.0 - (edit_box.old.start + edit_box.new.start);
        let backward_progress = (edit_box.old.end + edit_box.new.end) - behind.0;
        if backward_progress < forward_progress {
            Cut {
                old: ahead.1,
                new: ahead.0 - ahead.1,
                minimal_above: true,
                minimal_below: false,
            }
        } else {
            Cut {
                old: behind.1,
                new: behind.0 - behind.1,
                minimal_above: false,
                minimal_below: true,
            }
        }
    }
}

/// A diagonal's end point and how far it advanced.
#[derive(Debug, Clone, Copy)]
struct Point {
    advance: isize,
    old: isize,
    new: isize,
}

impl Cut {
    /// The paths met: both halves are solved minimally.
    fn meeting(old: isize, new: isize) -> Self {
        Self {
            old,
            new,
            minimal_above: true,
            minimal_below: true,
        }
    }
}

/// `lines[start..end]`, empty where the bounds leave the lines.
fn slice(lines: &[Token], start: isize, end: isize) -> &[Token] {
    if start < 0 || end < start {
        return &[];
    }
    lines.get(start as usize..end as usize).unwrap_or_default()
}

fn as_index(line: isize) -> usize {
    usize::try_from(line).expect("a line inside the edit box is not negative")
}
