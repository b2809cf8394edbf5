//! One-line messages: outside text that an error or warning echoes (a path, a key, a
//! selector) may hold line breaks or other control characters; escaped here, the message
//! stays the one line the refusal contract promises.
//!
//! Owns: that escape. Does not own: any message's wording (each reader's error type).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_borrowed() {
        assert_eq!(one_line("a.py \n#f\r\t\u{1b}"), "a.py \\n#f\\r\\t\\u{1b}");
        assert!(matches!(one_line("`a.py#f` ünïcode"), Cow::Borrowed(_)));
    }
}
