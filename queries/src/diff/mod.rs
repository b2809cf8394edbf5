//! The pinned line diff: the ONE place keel turns two images into hunks.
//!
//! Owns: the diff semantics every reader of hunks relies on — the hunks equal those of
//! `git diff --histogram --no-indent-heuristic -U0` exactly: the common tail that git's
//! zero-context diff leaves unseen ([`common_tail_git_skips`]), histogram search without
//! trimming common ends ([`histogram`]), its classic fallback ([`classic`]), git's slider
//! compaction without the indent heuristic ([`compact`]), zero context, text only (an image
//! is binary only if it holds a NUL byte), and nothing read from git config or
//! `.gitattributes`. Lines keep their terminator, so `a` at end of file without a newline
//! differs from `a\n`, and `a\r\n` from `a\n`, as in git. The algorithms follow their
//! published descriptions and git's observable output; `tests/diff_against_git.rs` and
//! `keel-benches`' `diff-agree` hold them to git's CLI.
//! Does not own: which images are compared (the drift and impact queries decide), nor the
//! hunk∩range predicate (`anchors::touches`).

mod changes;
mod classic;
pub mod combined;
mod compact;
mod equal;
mod histogram;

use changes::Changes;
use gix_imara_diff::InternedInput;
use std::fmt;
use std::ops::Range;

/// One zero-context hunk: 0-based, half-open line ranges in the old and new image.
///
/// An empty `before` is a pure addition placed before old line `before.start`; an empty
/// `after` is a pure deletion placed before new line `after.start`, exactly as
/// `git diff -U0` positions them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Hunk {
    pub before: Range<u32>,
    pub after: Range<u32>,
}

impl Hunk {
    /// The hunk as git prints its `-U0` header, e.g. `@@ -3 +4,0 @@`.
    pub fn git_header(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Hunk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@@ -{} +{} @@",
            HeaderRange(&self.before),
            HeaderRange(&self.after)
        )
    }
}

/// One side of a `-U0` header: 1-based start (the line before, for an empty range) and a
/// count that git omits when it is 1.
struct HeaderRange<'a>(&'a Range<u32>);

impl fmt::Display for HeaderRange<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Range { start, end } = *self.0;
        match end - start {
            0 => write!(f, "{start},0"),
            1 => write!(f, "{}", start + 1),
            count => write!(f, "{},{count}", start + 1),
        }
    }
}

/// What comparing two images yields.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum HunkSet {
    /// Text on both sides: the hunks in order.
    Text(Vec<Hunk>),
    /// At least one side holds a NUL byte: git would print "Binary files differ" and no
    /// line is attributable, so readers treat the change conservatively.
    Binary,
}

/// True when git would treat these bytes as binary (a NUL byte anywhere).
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// How many lines a text has (a last line without a newline counts).
pub fn line_count(bytes: &[u8]) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    let partial = usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    u32::try_from(newlines + partial).unwrap_or(u32::MAX)
}

/// Diffs two images with keel's pinned semantics.
pub fn diff_images(old: &[u8], new: &[u8]) -> HunkSet {
    if is_binary(old) || is_binary(new) {
        return HunkSet::Binary;
    }
    HunkSet::Text(line_hunks(old, new))
}

/// Histogram line diff of two texts, zero context, no indent heuristic: the hunks of
/// `git diff --histogram --no-indent-heuristic -U0`.
pub fn line_hunks(old: &[u8], new: &[u8]) -> Vec<Hunk> {
    let unseen = common_tail_git_skips(old, new);
    let (old, new) = (&old[..old.len() - unseen], &new[..new.len() - unseen]);
    let input = InternedInput::new(old, new);
    let mut changes = Changes::unchanged(input.before.len(), input.after.len());
    histogram::diff(
        &input.before,
        &input.after,
        input.interner.num_tokens(),
        &mut changes,
    );
    compact::compact(&input.before, &input.after, &mut changes);
    changes.hunks()
}

/// A correct line diff of two texts that need not be git's: the common leading and
/// trailing lines are cut first, so only the changed stretch is diffed (with
/// [`line_hunks`]). For callers that need SOME exact edit script — a reparse hint — and
/// never for a verdict, whose hunks must be git's ([`line_hunks`], [`diff_images`]).
pub fn changed_stretch_hunks(old: &[u8], new: &[u8]) -> Vec<Hunk> {
    let at_line_start = |text: &[u8], at: usize| at == 0 || text[at - 1] == b'\n';
    let mut prefix = common_prefix(old, new);
    while !at_line_start(old, prefix) {
        prefix -= 1;
    }
    let (old_rest, new_rest) = (&old[prefix..], &new[prefix..]);
    let mut suffix = common_suffix(old_rest, new_rest);
    while suffix > 0
        && !(at_line_start(old_rest, old_rest.len() - suffix)
            && at_line_start(new_rest, new_rest.len() - suffix))
    {
        suffix -= 1;
    }
    let lines =
        u32::try_from(old[..prefix].iter().filter(|&&b| b == b'\n').count()).unwrap_or(u32::MAX);
    let shift = |range: Range<u32>| range.start + lines..range.end + lines;
    line_hunks(
        &old_rest[..old_rest.len() - suffix],
        &new_rest[..new_rest.len() - suffix],
    )
    .into_iter()
    .map(|hunk| Hunk {
        before: shift(hunk.before),
        after: shift(hunk.after),
    })
    .collect()
}

/// How many leading bytes two texts share (compared a block at a time).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let shorter = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= shorter && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    while at < shorter && a[at] == b[at] {
        at += 1;
    }
    at
}

/// How many trailing bytes two texts share (compared a block at a time).
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let shorter = a.len().min(b.len());
    let (a_end, b_end) = (a.len(), b.len());
    let mut at = 0;
    while at + BLOCK <= shorter
        && a[a_end - at - BLOCK..a_end - at] == b[b_end - at - BLOCK..b_end - at]
    {
        at += BLOCK;
    }
    while at < shorter && a[a_end - at - 1] == b[b_end - at - 1] {
        at += 1;
    }
    at
}

/// git skips whole 1 KiB blocks that both images end with.
const TAIL_BLOCK: usize = 1024;

/// How many trailing bytes git leaves out of a zero-context diff: with no context to
/// print, `git diff -U0` drops the longest common tail made of whole [`TAIL_BLOCK`]s,
/// then gives back the bytes up to and including the first newline in the dropped part,
/// so that both images still end on a line boundary. The dropped lines are common and
/// unchanged, but the diff never sees them: they neither anchor the histogram nor give
/// groups room to slide, so a change near them can land elsewhere.
fn common_tail_git_skips(old: &[u8], new: &[u8]) -> usize {
    let shorter = old.len().min(new.len());
    let mut dropped = 0;
    while dropped + TAIL_BLOCK <= shorter
        && old[old.len() - dropped - TAIL_BLOCK..old.len() - dropped]
            == new[new.len() - dropped - TAIL_BLOCK..new.len() - dropped]
    {
        dropped += TAIL_BLOCK;
    }
    let cut = old.len() - dropped;
    let given_back = old[cut..]
        .iter()
        .position(|&byte| byte == b'\n')
        .map_or(dropped, |newline| newline + 1);
    dropped - given_back
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modification_in_the_middle_is_one_hunk() {
        let hunks = line_hunks(b"a\nb\nc\n", b"a\nB\nc\n");
        assert_eq!(
            hunks,
            vec![Hunk {
                before: 1..2,
                after: 1..2
            }]
        );
    }

    #[test]
    fn the_changed_stretch_diff_is_an_exact_edit_script() {
        let old = b"a\nb\nc\nd\ne\n";
        let new = b"a\nb\nX\nd\ne\nf\n";
        let hunks = changed_stretch_hunks(old, new);
        assert_eq!(
            hunks,
            vec![
                Hunk {
                    before: 2..3,
                    after: 2..3
                },
                Hunk {
                    before: 5..5,
                    after: 5..6
                }
            ]
        );
        // Cut ends never split a line: "ab" vs "aX" share no whole line.
        assert_eq!(
            changed_stretch_hunks(b"ab\n", b"aX\n"),
            vec![Hunk {
                before: 0..1,
                after: 0..1
            }]
        );
    }

    #[test]
    fn common_ends_count_every_shared_byte_across_blocks() {
        let long = "x".repeat(150);
        let (a, b) = (format!("{long}A{long}"), format!("{long}BB{long}"));
        assert_eq!(common_prefix(a.as_bytes(), b.as_bytes()), 150);
        assert_eq!(common_suffix(a.as_bytes(), b.as_bytes()), 150);
        assert_eq!(common_prefix(b"abc", b"abc"), 3);
        assert_eq!(common_suffix(b"", b"abc"), 0);
    }

    #[test]
    fn nul_byte_makes_a_change_binary() {
        assert_eq!(diff_images(b"a\0", b"b"), HunkSet::Binary);
        assert!(matches!(diff_images(b"a\n", b"b\n"), HunkSet::Text(_)));
    }

    #[test]
    fn headers_are_printed_like_git_u0() {
        let header = |before, after| Hunk { before, after }.git_header();
        assert_eq!(header(1..1, 1..3), "@@ -1,0 +2,2 @@");
        assert_eq!(header(2..3, 3..3), "@@ -3 +3,0 @@");
        assert_eq!(header(0..4, 0..12), "@@ -1,4 +1,12 @@");
        assert_eq!(header(0..0, 0..1), "@@ -0,0 +1 @@");
    }
}
