//! Compaction: where an ambiguous group of changed lines is placed, as `git diff` places it
//! when the indent heuristic is off.
//!
//! Owns: sliding. A group of removed (or added) lines can move one line up when the line
//! above it equals its last line, and one line down when the line below it equals its
//! first line; a move can merge it with a neighbouring group. Each group is slid as far up
//! as it goes, then as far down, again until its size stops growing; it then stays at the
//! bottom, unless some position in its range lines it up with a group of changes on the
//! other side, in which case it moves back up to the lowest such position. Removed lines
//! are compacted first (against the added ones), then added lines (against the result).
//! Does not own: choosing the changed lines (the algorithms) or reading hunks.

use super::changes::{Changes, run_end, run_start, unmarked_run};
use gix_imara_diff::Token;

/// Slides the removed groups, then the added groups, into git's positions.
pub(super) fn compact(before: &[Token], after: &[Token], changes: &mut Changes) {
    let Changes { removed, added } = changes;
    compact_side(before, removed, added);
    compact_side(after, added, removed);
}

/// A run of marked lines `start..end` of one side; empty between two unmarked lines.
///
/// Unmarked lines pair up in order between the sides, so the n-th group of one side sits
/// at the same place as the n-th group of the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Group {
    start: usize,
    end: usize,
}

impl Group {
    fn first(marks: &[bool]) -> Self {
        Self {
            start: 0,
            end: run_end(marks, 0),
        }
    }

    /// The empty group right before unmarked line `line`.
    fn empty_at(line: usize) -> Self {
        Self {
            start: line,
            end: line,
        }
    }

    fn is_empty(&self) -> bool {
        self.start == self.end
    }

    fn len(&self) -> usize {
        self.end - self.start
    }

    /// The group after the next unmarked line, if there is such a line.
    fn next(&self, marks: &[bool]) -> Option<Self> {
        (self.end < marks.len()).then(|| Self {
            start: self.end + 1,
            end: run_end(marks, self.end + 1),
        })
    }

    /// The group before the previous unmarked line, if there is such a line.
    fn previous(&self, marks: &[bool]) -> Option<Self> {
        (self.start > 0).then(|| Self {
            start: run_start(marks, self.start - 1),
            end: self.start - 1,
        })
    }

    /// Moves a non-empty group up one line (merging with a group it then touches).
    fn slide_up(&mut self, tokens: &[Token], marks: &mut [bool]) -> bool {
        if self.start == 0 || tokens[self.start - 1] != tokens[self.end - 1] {
            return false;
        }
        self.start -= 1;
        self.end -= 1;
        marks[self.start] = true;
        marks[self.end] = false;
        self.start = run_start(marks, self.start);
        true
    }

    /// Moves a non-empty group down one line (merging with a group it then touches).
    fn slide_down(&mut self, tokens: &[Token], marks: &mut [bool]) -> bool {
        if self.end == marks.len() || tokens[self.start] != tokens[self.end] {
            return false;
        }
        marks[self.start] = false;
        marks[self.end] = true;
        self.start += 1;
        self.end = run_end(marks, self.end + 1);
        true
    }
}

/// Walks the groups of `marks` and, in step, the groups of `other`, sliding each
/// non-empty group of `marks`.
fn compact_side(tokens: &[Token], marks: &mut [bool], other: &[bool]) {
    let mut group = Group::first(marks);
    let mut other_group = Group::first(other);
    loop {
        if !group.is_empty() {
            slide(tokens, marks, other, &mut group, &mut other_group);
        } else if other_group.is_empty() {
            // Both sides sit on a stretch of unchanged lines: go to its last line at once.
            let stretch =
                unmarked_run(marks, group.start).min(unmarked_run(other, other_group.start));
            if stretch > 1 {
                group = Group::empty_at(group.start + stretch - 1);
                other_group = Group::empty_at(other_group.start + stretch - 1);
            }
        }
        let Some(next) = group.next(marks) else {
            return;
        };
        group = next;
        other_group = other_group
            .next(other)
            .expect("both sides have as many unchanged lines");
    }
}

/// Slides one non-empty group (and, in step, the other side's group at the same place)
/// into git's position.
fn slide(
    tokens: &[Token],
    marks: &mut [bool],
    other: &[bool],
    group: &mut Group,
    other_group: &mut Group,
) {
    let (earliest_end, aligned_end) = loop {
        let size = group.len();
        while group.slide_up(tokens, marks) {
            *other_group = step_back(other_group, other);
        }
        let earliest_end = group.end;
        let mut aligned_end = (!other_group.is_empty()).then_some(group.end);
        while group.slide_down(tokens, marks) {
            *other_group = step_forward(other_group, other);
            if !other_group.is_empty() {
                aligned_end = Some(group.end);
            }
        }
        if group.len() == size {
            break (earliest_end, aligned_end);
        }
    };
    if group.end != earliest_end && aligned_end.is_some() {
        while other_group.is_empty() && group.slide_up(tokens, marks) {
            *other_group = step_back(other_group, other);
        }
    }
}

fn step_back(group: &Group, marks: &[bool]) -> Group {
    group
        .previous(marks)
        .expect("a group that slid up has a group above it on the other side")
}

fn step_forward(group: &Group, marks: &[bool]) -> Group {
    group
        .next(marks)
        .expect("a group that slid down has a group below it on the other side")
}
