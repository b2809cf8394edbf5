//! One-line messages: outside text that an error or warning echoes (a path, a key, a
//! selector) may hold line breaks or other control characters; escaped here, the message
//! stays the one line the refusal contract promises.
//!
//! Owns: that escape, and the two measures refusals share: the line a byte offset falls on
//! ([`line_of_offset`]) and how far a name is from a known one ([`edit_distance`], behind
//! every "did you mean"). Does not own: any message's wording (each reader's error type).

use std::borrow::Cow;

/// `text` with every control character written as its Rust escape (`\n`, `\r`, `\t`,
/// `\u{1b}`), so it prints on one line; unchanged (borrowed) when it has none.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// 1-based line holding byte `offset` of `bytes` (the last line for an offset past the end).
pub fn line_of_offset(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbours, each costing 1 (over chars). A swapped pair is one typo, so `cdoe` is
/// one edit from `code`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            let at = i * width + j;
            d[at] = if i == 0 {
                j
            } else if j == 0 {
                i
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (d[at - width] + 1)
                    .min(d[at - 1] + 1)
                    .min(d[at - width - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[at - 2 * width - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_borrowed() {
        assert_eq!(one_line("a.py \n#f\r\t\u{1b}"), "a.py \\n#f\\r\\t\\u{1b}");
        assert!(matches!(one_line("`a.py#f` ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_line_is_one_more_than_the_newlines_before_the_offset() {
        assert_eq!(line_of_offset(b"a\nb\nc", 0), 1);
        assert_eq!(line_of_offset(b"a\nb\nc", 2), 2);
        assert_eq!(line_of_offset(b"a\nb\nc", 1), 1);
        assert_eq!(line_of_offset(b"a\nb\n", 99), 3);
    }

    #[test]
    fn an_edit_is_an_insertion_deletion_substitution_or_swap() {
        assert_eq!(edit_distance("auth/login", "auth/login"), 0);
        assert_eq!(edit_distance("auth/logn", "auth/login"), 1);
        assert_eq!(edit_distance("auth/lgoin", "auth/login"), 1);
        assert_eq!(edit_distance("cdoe", "code"), 1);
        assert_eq!(edit_distance("created", "related"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("ünï", "uni"), 2);
    }
}
