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
use gix_imara_diff::Token;
use std::ops::Range;

/// Marks the changes between the region `before` and the region `after`, which start at
/// old and new line `offsets`.
pub(super) fn diff(
    before: &[Token],
    after: &[Token],
    offsets: (usize, usize),
    num_tokens: u32,
    changes: &mut Changes,
) {
    let (old_offset, new_offset) = offsets;
    let common = common_ends(before, after);
    let old_kept = KeptLines::select(before, after, common.clone(), num_tokens);
    let new_kept = KeptLines::select(after, before, common, num_tokens);
    let mut search = Search::new(&old_kept.tokens, &new_kept.tokens);
    search.run();
    for (line, removed) in old_kept.changed_lines(&search.removed) {
        changes.removed[old_offset + line] = removed;
    }
    for (line, added) in new_kept.changed_lines(&search.added) {
        changes.added[new_offset + line] = added;
    }
}

/// How many leading and trailing lines the two sides share: the leading run first, then
/// the trailing run within what is left of the shorter side.
fn common_ends(before: &[Token], after: &[Token]) -> (usize, usize) {
    let shorter = before.len().min(after.len());
    let leading = before
        .iter()
        .zip(after)
        .take_while(|(old, new)| old == new)
        .count();
    let trailing = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take(shorter - leading)
        .take_while(|(old, new)| old == new)
        .count();
    (leading, trailing)
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
    /// Chooses the lines of `side` between the common ends that the search sees.
    fn select(side: &[Token], other: &[Token], common: (usize, usize), num_tokens: u32) -> Self {
        let middle = common.0..side.len() - common.1;
        let matching = classify(side, other, middle.clone(), num_tokens);
        let mut kept = KeptLines {
            set_aside: vec![false; side.len()],
            tokens: Vec::new(),
            origin: Vec::new(),
        };
        for line in middle.clone() {
            let keep = match matching[line - middle.start] {
                Matching::None => false,
                Matching::Few => true,
                Matching::Many => !is_lost_among_unmatched(&matching, line - middle.start),
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

    /// Every line of the side with its change mark, given the marks of the kept lines.
    fn changed_lines(&self, kept_changed: &[bool]) -> Vec<(usize, bool)> {
        let mut changed: Vec<(usize, bool)> = self
            .set_aside
            .iter()
            .enumerate()
            .map(|(line, &aside)| (line, aside))
            .collect();
        for (&line, &mark) in self.origin.iter().zip(kept_changed) {
            changed[line].1 = mark;
        }
        changed
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
    other: &[Token],
    middle: Range<usize>,
    num_tokens: u32,
) -> Vec<Matching> {
    let mut count_in_other = vec![0usize; num_tokens as usize];
    for token in other {
        count_in_other[token.0 as usize] += 1;
    }
    let many = many_threshold(side.len());
    side[middle]
        .iter()
        .map(|token| match count_in_other[token.0 as usize] {
            0 => Matching::None,
            count if count >= many => Matching::Many,
            _ => Matching::Few,
        })
        .collect()
}

/// How far to either side a frequent line looks for its neighbourhood.
const NEIGHBOURHOOD: usize = 100;

/// A frequent line is set aside when both neighbouring runs of not-[`Matching::Few`] lines
/// contain unmatched lines and, across both runs, frequent lines (the line itself counted
/// once per side) are fewer than a quarter of all lines counted.
fn is_lost_among_unmatched(matching: &[Matching], line: usize) -> bool {
    let above = (line.saturating_sub(NEIGHBOURHOOD)..line).rev();
    let (unmatched_above, frequent_above) = tally_run(matching, above);
    if unmatched_above == 0 {
        return false;
    }
    let below = line + 1..(line + NEIGHBOURHOOD + 1).min(matching.len());
    let (unmatched_below, frequent_below) = tally_run(matching, below);
    if unmatched_below == 0 {
        return false;
    }
    let unmatched = unmatched_above + unmatched_below;
    let frequent = frequent_above + frequent_below + 2;
    frequent * 4 < frequent + unmatched
}

/// Counts unmatched and frequent lines along `lines` up to the first [`Matching::Few`].
fn tally_run(matching: &[Matching], lines: impl Iterator<Item = usize>) -> (usize, usize) {
    let (mut unmatched, mut frequent) = (0, 0);
    for line in lines {
        match matching[line] {
            Matching::None => unmatched += 1,
            Matching::Many => frequent += 1,
            Matching::Few => break,
        }
    }
    (unmatched, frequent)
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
    /// of the diagonals in reach. Returns the newly reached outer diagonals.
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
    fn diagonals(&self) -> impl Iterator<Item = isize> + use<> {
        let (low, high) = (self.low, self.high);
        (0..)
            .map(move |step| high - 2 * step)
            .take_while(move |&d| d >= low)
    }

    fn contains(&self, diagonal: isize) -> bool {
        self.low <= diagonal && diagonal <= self.high
    }
}

impl<'a> Search<'a> {
    fn new(old: &'a [Token], new: &'a [Token]) -> Self {
        let size = (old.len() + new.len() + 3) as isize;
        Self {
            old,
            new,
            forward: Diagonals::new(old.len(), new.len()),
            backward: Diagonals::new(old.len(), new.len()),
            max_cost: (rough_sqrt(size as usize) as isize).max(CUT_OFF_COST),
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

    /// Drops the equal lines at the start and at the end of the box.
    fn shrink(&self, mut edit_box: EditBox) -> EditBox {
        let (old, new) = (&mut edit_box.old, &mut edit_box.new);
        while old.start < old.end && new.start < new.end && self.same(old.start, new.start) {
            old.start += 1;
            new.start += 1;
        }
        while old.start < old.end && new.start < new.end && self.same(old.end - 1, new.end - 1) {
            old.end -= 1;
            new.end -= 1;
        }
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
        for cost in 1.. {
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
        unreachable!("the forward and backward paths meet within the box")
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
        let mut old = start;
        while old < edit_box.old.end
            && old - diagonal < edit_box.new.end
            && self.same(old, old - diagonal)
        {
            old += 1;
        }
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
        let mut old = start;
        while old > edit_box.old.start
            && old - diagonal > edit_box.new.start
            && self.same(old - 1, old - diagonal - 1)
        {
            old -= 1;
        }
        self.backward.set(diagonal, old);
        (old, start - old)
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

fn as_index(line: isize) -> usize {
    usize::try_from(line).expect("a line inside the edit box is not negative")
}
