//! The lines a merge owns: the lines of its dense combined diff (`git diff --cc`) that
//! differ from EVERY parent.
//!
//! Owns: turning each parent's pinned zero-context hunks against the merge result into
//! git's combined view — a result line is owned when every parent's diff adds it; a line
//! lost from the parents is owned when every parent lost it at the same place, matched
//! across parents the way git's combined diff matches them (lost lines attach to the
//! result line that follows them, or to the first added line of their hunk, and the
//! parents' lists at one place are merged by a longest common subsequence with git's tie
//! order). A mixed line (added against one parent, inherited from another) is never
//! owned, even inside a hunk that holds owned lines. Owned lost lines carry their line in
//! each parent, so a reader can ask whether that line sat inside a unit in every parent.
//! Does not own: which images are compared (`drift`), nor the per-parent hunks
//! ([`super::line_hunks`]).

use super::Hunk;

/// What a merge owns of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Owned {
    /// Result lines (0-based) added against every parent, ascending.
    pub added: Vec<u32>,
    /// Lines every parent lost at one place: each entry holds the line's 0-based number
    /// in each parent, in parent order.
    pub deleted: Vec<Vec<u32>>,
}

impl Owned {
    /// Does the merge own no line of the file (a clean or transport merge)?
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.deleted.is_empty()
    }
}

/// One parent's side of the combined diff: its bytes and its hunks against the result.
pub struct ParentDiff<'a> {
    pub bytes: &'a [u8],
    pub hunks: &'a [Hunk],
}

/// A line lost from one or more parents, before the result line it is attached to.
#[derive(Debug, Clone)]
struct Lost<'a> {
    text: &'a [u8],
    parents: u64,
}

/// The lines the merge owns, given each parent's hunks against a result of
/// `result_lines` lines. At most 64 parents are told apart (git's own limit is lower).
pub fn owned_lines(parents: &[ParentDiff<'_>], result_lines: u32) -> Owned {
    let count = parents.len().min(64);
    let all: u64 = if count == 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    };
    let slots = result_lines as usize + 1;
    let mut added_by = vec![0u64; slots];
    let mut lost: Vec<Vec<Lost<'_>>> = vec![Vec::new(); slots];
    for (n, parent) in parents.iter().take(count).enumerate() {
        let bit = 1u64 << n;
        let lines = split_lines(parent.bytes);
        let mut pending: Vec<Vec<Lost<'_>>> = vec![Vec::new(); slots];
        for hunk in parent.hunks {
            let attach = (hunk.after.start as usize).min(slots - 1);
            for line in hunk.before.clone() {
                let text = lines.get(line as usize).copied().unwrap_or_default();
                pending[attach].push(Lost { text, parents: bit });
            }
            for line in hunk.after.clone() {
                if let Some(flag) = added_by.get_mut(line as usize) {
                    *flag |= bit;
                }
            }
        }
        for (slot, new) in lost.iter_mut().zip(pending) {
            if !new.is_empty() {
                let base = std::mem::take(slot);
                *slot = coalesce(base, new, bit);
            }
        }
    }
    let added = (0..result_lines)
        .filter(|&line| added_by[line as usize] & all == all)
        .collect();
    Owned {
        added,
        deleted: owned_losses(&added_by, &lost, count, all),
    }
}

/// Each owned lost line's number in every parent: git's per-parent line counter, which
/// advances over the lost lines a parent had and over result lines it did not add.
fn owned_losses(added_by: &[u64], lost: &[Vec<Lost<'_>>], count: usize, all: u64) -> Vec<Vec<u32>> {
    let mut next = vec![0u32; count];
    let mut owned = Vec::new();
    for (slot, lines) in lost.iter().enumerate() {
        for line in lines {
            if line.parents & all == all {
                owned.push(next.clone());
            }
            for (n, at) in next.iter_mut().enumerate() {
                if line.parents & (1 << n) != 0 {
                    *at += 1;
                }
            }
        }
        if slot + 1 < added_by.len() {
            for (n, at) in next.iter_mut().enumerate() {
                if added_by[slot] & (1 << n) == 0 {
                    *at += 1;
                }
            }
        }
    }
    owned
}

/// The lines of a text without their terminating newline.
fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.ends_with(b"\n") || bytes.is_empty() {
        lines.pop();
    }
    lines
}

/// Which way a cell of git's coalescing table points.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Match,
    New,
    Base,
}

/// git's `coalesce_lines`: merges one parent's lost lines into those already at a place
/// by a longest common subsequence on their text; matched lines gain the parent's bit,
/// the rest of the new lines are inserted in order.
fn coalesce<'a>(base: Vec<Lost<'a>>, new: Vec<Lost<'a>>, bit: u64) -> Vec<Lost<'a>> {
    if base.is_empty() {
        return new;
    }
    let (b, n) = (base.len(), new.len());
    let mut length = vec![vec![0u32; n + 1]; b + 1];
    let mut step = vec![vec![Step::Base; n + 1]; b + 1];
    for cell in step[0].iter_mut().skip(1) {
        *cell = Step::New;
    }
    for i in 1..=b {
        for j in 1..=n {
            (length[i][j], step[i][j]) = if base[i - 1].text == new[j - 1].text {
                (length[i - 1][j - 1] + 1, Step::Match)
            } else if length[i][j - 1] >= length[i - 1][j] {
                (length[i][j - 1], Step::New)
            } else {
                (length[i - 1][j], Step::Base)
            };
        }
    }
    let mut merged = Vec::with_capacity(b + n);
    let (mut i, mut j) = (b, n);
    while i != 0 || j != 0 {
        match step[i][j] {
            Step::Match => {
                let mut line = base[i - 1].clone();
                line.parents |= bit;
                merged.push(line);
                i -= 1;
                j -= 1;
            }
            Step::New => {
                merged.push(new[j - 1].clone());
                j -= 1;
            }
            Step::Base => {
                merged.push(base[i - 1].clone());
                i -= 1;
            }
        }
    }
    merged.reverse();
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::line_hunks;

    fn owned(parents: &[&str], result: &str) -> Owned {
        let hunks: Vec<Vec<Hunk>> = parents
            .iter()
            .map(|p| line_hunks(p.as_bytes(), result.as_bytes()))
            .collect();
        let diffs: Vec<ParentDiff<'_>> = parents
            .iter()
            .zip(&hunks)
            .map(|(p, h)| ParentDiff {
                bytes: p.as_bytes(),
                hunks: h,
            })
            .collect();
        let lines = u32::try_from(split_lines(result.as_bytes()).len()).unwrap_or(u32::MAX);
        owned_lines(&diffs, lines)
    }

    #[test]
    fn a_clean_merge_owns_nothing() {
        // each side changed its own line; the result takes both
        let found = owned(&["A\nb\nc\n", "a\nb\nC\n"], "A\nb\nC\n");
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn an_evil_line_is_owned_and_inherited_lines_are_not() {
        // `git show --cc`: ` -a`, ` -b`, ` +A`, `- b`, `- c`, `++EVIL`, `+ C`
        let found = owned(&["A\nb\nc\n", "a\nb\nC\n"], "A\nEVIL\nC\n");
        assert_eq!(found.added, vec![1]);
        // "b" left both parents, but at different places (each parent's hunk starts at
        // its own result line), so git shows it twice, once per parent: not owned
        assert!(found.deleted.is_empty(), "{found:?}");
    }

    #[test]
    fn a_line_lost_by_one_parent_only_is_not_owned() {
        // parent 2 never had "x"; the result drops it as parent 2 did
        let found = owned(&["a\nx\nb\n", "a\nb\n"], "a\nb\n");
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn owned_losses_carry_each_parents_own_line_number() {
        // `git show --cc`: `- p`, `--q`, `--gone`, `++Q`: "q" and "gone" are owned, at
        // lines 2-3 of parent 1 and 1-2 of parent 2 (0-based below)
        let found = owned(&["p\nq\ngone\nz\n", "q\ngone\nz\n"], "Q\nz\n");
        assert_eq!(found.added, vec![0]);
        assert_eq!(found.deleted, vec![vec![1, 0], vec![2, 1]]);
    }

    #[test]
    fn coalescing_follows_git_tie_order() {
        // identical lost lines from two parents match one to one, in order
        let a = vec![
            Lost {
                text: b"x",
                parents: 1,
            },
            Lost {
                text: b"y",
                parents: 1,
            },
        ];
        let b = vec![
            Lost {
                text: b"y",
                parents: 2,
            },
            Lost {
                text: b"x",
                parents: 2,
            },
        ];
        let merged = coalesce(a, b, 2);
        let shape: Vec<(&[u8], u64)> = merged.iter().map(|l| (l.text, l.parents)).collect();
        // git keeps the base's "x", matches "y", and inserts the new "x" after "y"
        assert_eq!(shape, vec![(&b"x"[..], 1), (&b"y"[..], 3), (&b"x"[..], 2)]);
    }
}
