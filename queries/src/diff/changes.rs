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
            let unchanged = unmarked_run(&self.removed, old).min(unmarked_run(&self.added, new));
            old += unchanged;
            new += unchanged;
            if old == self.removed.len() && new == self.added.len() {
                return hunks;
            }
            let (old_end, new_end) = (run_end(&self.removed, old), run_end(&self.added, new));
            if (old_end, new_end) == (old, new) {
                // Only marks whose unchanged lines do not pair up end here.
                return hunks;
            }
            hunks.push(Hunk {
                before: line_number(old)..line_number(old_end),
                after: line_number(new)..line_number(new_end),
            });
            (old, new) = (old_end, new_end);
        }
    }
}

/// How many unmarked lines start at `start`.
pub(super) fn unmarked_run(marks: &[bool], start: usize) -> usize {
    let mut end = start;
    while marks.get(end) == Some(&false) {
        end += 1;
    }
    end - start
}

/// The first index at or after `start` that is not marked (or the length).
pub(super) fn run_end(marks: &[bool], start: usize) -> usize {
    let mut end = start;
    while marks.get(end) == Some(&true) {
        end += 1;
    }
    end
}

/// The first index of the run of marks that ends right before `end`.
pub(super) fn run_start(marks: &[bool], end: usize) -> usize {
    let mut start = end;
    while start > 0 && marks[start - 1] {
        start -= 1;
    }
    start
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index).expect("a diffed image has fewer than 2^32 lines")
}
