//! Per-line change marks of one diff, and their reading as zero-context hunks.
//!
//! Owns: the mark vectors the algorithms write (`removed` per old line, `added` per new
//! line) and the grouping of maximal runs of marks into [`Hunk`]s the way `git diff -U0`
//! groups them. Does not own: deciding which lines are marked (the algorithms and the
//! compaction do).

use super::Hunk;
use std::ops::Range;

/// Which old lines were removed and which new lines were added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Changes {
    pub(super) removed: Vec<bool>,
    pub(super) added: Vec<bool>,
}

impl Changes {
    /// No line changed yet.
    pub(super) fn unchanged(old_lines: usize, new_lines: usize) -> Self {
        Self {
            removed: vec![false; old_lines],
            added: vec![false; new_lines],
        }
    }

    /// Marks every old line in `lines` as removed.
    pub(super) fn remove(&mut self, lines: Range<usize>) {
        self.removed[lines].fill(true);
    }

    /// Marks every new line in `lines` as added.
    pub(super) fn add(&mut self, lines: Range<usize>) {
        self.added[lines].fill(true);
    }

    /// The hunks: each maximal run of removed old lines together with the maximal run of
    /// added new lines at the same place. Unchanged lines pair up in order, so walking both
    /// sides in step finds the places.
    pub(super) fn hunks(&self) -> Vec<Hunk> {
        let mut hunks = Vec::new();
        let (mut old, mut new) = (0, 0);
        loop {
            let old_end = run_end(&self.removed, old);
            let new_end = run_end(&self.added, new);
            if old_end > old || new_end > new {
                hunks.push(Hunk {
                    before: line_number(old)..line_number(old_end),
                    after: line_number(new)..line_number(new_end),
                });
            }
            if old_end >= self.removed.len() || new_end >= self.added.len() {
                return hunks;
            }
            // Both sides now sit on an unchanged line: the pair is common, step over it.
            old = old_end + 1;
            new = new_end + 1;
        }
    }
}

/// The first index at or after `start` that is not marked (or the length).
pub(super) fn run_end(marks: &[bool], start: usize) -> usize {
    marks[start..]
        .iter()
        .position(|&marked| !marked)
        .map_or(marks.len(), |offset| start + offset)
}

/// The first index of the run of marks that ends right before `end`.
pub(super) fn run_start(marks: &[bool], end: usize) -> usize {
    marks[..end]
        .iter()
        .rposition(|&marked| !marked)
        .map_or(0, |last| last + 1)
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index).expect("a diffed image has fewer than 2^32 lines")
}
