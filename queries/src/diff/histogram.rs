//! The histogram line diff: git's `--histogram` search, without trimming common ends.
//!
//! Owns: the recursive anchor search described for JGit's `HistogramDiff` and used by
//! `git diff --histogram`. For a region of both files, index the old side's lines with
//! their occurrence counts; scan the new side from the top; every new line that also
//! occurs in the old region, no more often than the rarest anchor found so far, seeds a
//! common block at each of its old occurrences, grown as far up and down as the lines stay
//! equal. A block replaces the current anchor when it is longer, or when its rarest line
//! is rarer. The scan resumes after the end of the furthest block it found. The regions
//! above and below the anchor are diffed the same way. A region with no common line is
//! all change; a region whose common lines all occur more than [`MAX_OCCURRENCES`] times
//! goes to the classic diff ([`super::classic`]). The whole files are the first region:
//! git does not strip a common prefix or suffix for this algorithm, and stripping changes
//! which anchor wins.
//! Does not own: sliding the resulting groups ([`super::compact`]) or reading them as hunks.

use super::changes::Changes;
use super::classic;
use super::equal::{equal_head, equal_tail};
use gix_imara_diff::Token;
use std::ops::Range;

/// A line occurring more often than this in a region's old side never anchors the region.
const MAX_OCCURRENCES: u32 = 64;

/// End of an occurrence chain.
const NO_LINE: u32 = u32::MAX;

/// Marks the lines changed between `before` and `after` (token ids below `num_tokens`).
pub(super) fn diff(before: &[Token], after: &[Token], num_tokens: u32, changes: &mut Changes) {
    let mut index = OccurrenceIndex::new(before.len(), num_tokens);
    let mut pending = Vec::with_capacity(16);
    pending.push(Region {
        old: 0..before.len(),
        new: 0..after.len(),
    });
    while let Some(region) = pending.pop() {
        if region.old.is_empty() || region.new.is_empty() {
            changes.remove(region.old);
            changes.add(region.new);
            continue;
        }
        match find_anchor(&mut index, before, after, &region) {
            Outcome::Anchor(anchor) => pending.extend(region.split_around(&anchor)),
            Outcome::NothingCommon => {
                changes.remove(region.old);
                changes.add(region.new);
            }
            Outcome::AllTooCommon => classic::diff(
                &before[region.old.clone()],
                &after[region.new.clone()],
                (region.old.start, region.new.start),
                changes,
            ),
        }
    }
}

/// A part of the old file and the part of the new file it is diffed against.
#[derive(Debug, Clone)]
struct Region {
    old: Range<usize>,
    new: Range<usize>,
}

impl Region {
    /// The regions above and below a common block.
    fn split_around(&self, anchor: &Block) -> [Region; 2] {
        [
            Region {
                old: self.old.start..anchor.old,
                new: self.new.start..anchor.new,
            },
            Region {
                old: anchor.old + anchor.len..self.old.end,
                new: anchor.new + anchor.len..self.new.end,
            },
        ]
    }
}

/// Equal lines: `len` old lines from `old` equal `len` new lines from `new`.
#[derive(Debug, Clone, Copy)]
struct Block {
    old: usize,
    new: usize,
    len: usize,
    /// The smallest old-region occurrence count among the block's lines.
    rarity: u32,
}

/// What the anchor search found in a region.
enum Outcome {
    Anchor(Block),
    NothingCommon,
    AllTooCommon,
}

/// Occurrences of each line in the old side of the region being searched.
///
/// Rebuilt per region. A token's slot counts only when it carries the current region's
/// stamp, so the per-token table is reused without clearing it.
struct OccurrenceIndex {
    /// Per token: its occurrences in the indexed old range.
    slots: Vec<Slot>,
    /// Per old line of the range: the next old line in the range holding the same token
    /// (or [`NO_LINE`]); written for the whole range by [`Self::fill`].
    next: Vec<u32>,
    stamp: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// The region this slot was last filled for.
    stamp: u32,
    /// How often the token occurs in that region's old side.
    count: u32,
    /// Its first old line there.
    first: u32,
}

impl OccurrenceIndex {
    fn new(old_lines: usize, num_tokens: u32) -> Self {
        // Old lines are stored as u32 below [`NO_LINE`].
        assert!(
            old_lines < NO_LINE as usize,
            "a diffed image has fewer than 2^32 - 1 lines"
        );
        Self {
            slots: vec![Slot::default(); num_tokens as usize],
            next: vec![NO_LINE; old_lines],
            stamp: 0,
        }
    }

    /// Indexes `before[range]`, walking upwards so each chain ends up in file order.
    fn fill(&mut self, before: &[Token], range: Range<usize>) {
        self.stamp = self
            .stamp
            .checked_add(1)
            .expect("a diff has fewer regions than lines");
        for line in range.rev() {
            let slot = &mut self.slots[before[line].0 as usize];
            if slot.stamp == self.stamp {
                self.next[line] = slot.first;
                slot.count += 1;
            } else {
                self.next[line] = NO_LINE;
                *slot = Slot {
                    stamp: self.stamp,
                    count: 1,
                    first: 0,
                };
            }
            slot.first = line as u32;
        }
    }

    fn count(&self, token: Token) -> u32 {
        let slot = self.slots[token.0 as usize];
        if slot.stamp == self.stamp {
            slot.count
        } else {
            0
        }
    }

    /// The token's first old line in the range (only for a token that occurs there).
    fn first(&self, token: Token) -> usize {
        self.slots[token.0 as usize].first as usize
    }

    /// The first occurrence after `line` of the same token that starts at or after `from`.
    fn next_from(&self, line: usize, from: usize) -> Option<usize> {
        let mut next = self.next[line];
        while next != NO_LINE && (next as usize) < from {
            next = self.next[next as usize];
        }
        (next != NO_LINE).then_some(next as usize)
    }
}

fn find_anchor(
    index: &mut OccurrenceIndex,
    before: &[Token],
    after: &[Token],
    region: &Region,
) -> Outcome {
    index.fill(before, region.old.clone());
    let mut search = AnchorSearch {
        index,
        before,
        after,
        region,
        best: None,
        saw_common_line: false,
    };
    let mut new_line = region.new.start;
    while new_line < region.new.end {
        new_line = search.try_new_line(new_line);
    }
    search.outcome()
}

/// The state of one scan of a region's new side.
struct AnchorSearch<'a> {
    index: &'a OccurrenceIndex,
    before: &'a [Token],
    after: &'a [Token],
    region: &'a Region,
    best: Option<Block>,
    saw_common_line: bool,
}

impl AnchorSearch<'_> {
    /// Tries every old occurrence of new line `new_line`; returns the next new line to try.
    fn try_new_line(&mut self, new_line: usize) -> usize {
        let token = self.after[new_line];
        let count = self.index.count(token);
        let mut resume = new_line + 1;
        if count == 0 {
            return resume;
        }
        self.saw_common_line = true;
        if count > self.rarity_to_beat() {
            return resume;
        }
        let mut occurrence = self.index.first(token);
        loop {
            let block = self.grow(occurrence, new_line, count);
            resume = resume.max(block.new + block.len);
            if self.is_better(&block) {
                self.best = Some(block);
            }
            match self.index.next_from(occurrence, block.old + block.len) {
                Some(next) => occurrence = next,
                None => return resume,
            }
        }
    }

    /// The largest block of equal lines through old line `old` and new line `new`.
    fn grow(&self, old: usize, new: usize, count: u32) -> Block {
        let Region {
            old: old_range,
            new: new_range,
        } = self.region;
        let above = equal_tail(
            &self.before[old_range.start..old],
            &self.after[new_range.start..new],
        );
        let below = equal_head(
            &self.before[old + 1..old_range.end],
            &self.after[new + 1..new_range.end],
        );
        let start = old - above;
        let len = above + 1 + below;
        Block {
            old: start,
            new: new - above,
            len,
            rarity: self.rarest(&self.before[start..start + len], count),
        }
    }

    /// The smallest occurrence count among `lines`, starting from `count`.
    fn rarest(&self, lines: &[Token], count: u32) -> u32 {
        lines
            .iter()
            .fold(count, |rarest, &line| rarest.min(self.index.count(line)))
    }

    /// Lines occurring more often than this cannot improve the anchor.
    fn rarity_to_beat(&self) -> u32 {
        self.best.map_or(MAX_OCCURRENCES + 1, |best| best.rarity)
    }

    /// A block wins when it is longer than the anchor (a single line never is, before the
    /// first anchor) or when its rarest line is rarer.
    fn is_better(&self, block: &Block) -> bool {
        let len_to_beat = self.best.map_or(1, |best| best.len);
        block.len > len_to_beat || block.rarity < self.rarity_to_beat()
    }

    fn outcome(&self) -> Outcome {
        match self.best {
            Some(best) if best.rarity <= MAX_OCCURRENCES => Outcome::Anchor(best),
            _ if self.saw_common_line => Outcome::AllTooCommon,
            _ => Outcome::NothingCommon,
        }
    }
}
