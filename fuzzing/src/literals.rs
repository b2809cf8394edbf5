//! The string literals of a Rust source file, as the bytes they denote.
//!
//! Owns: a small lexer that finds `"…"`, `b"…"`, `r#"…"#` and `br"…"` literals (skipping
//! comments and character literals) and undoes their escapes, so the texts the tests
//! already feed a reader become its seeds. Does not own: choosing which literals seed
//! which reader ([`crate::corpus`]).

/// Every string literal of `source`, unescaped, in order.
pub(crate) fn string_literals(source: &str) -> Vec<Vec<u8>> {
    let bytes = source.as_bytes();
    let mut literals = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        at = match bytes[at] {
            b'/' if bytes.get(at + 1) == Some(&b'/') => skip_line(bytes, at),
            b'/' if bytes.get(at + 1) == Some(&b'*') => skip_block_comment(bytes, at),
            b'\'' => skip_char_literal(bytes, at),
            b'"' => {
                let (text, end) = cooked(bytes, at + 1);
                literals.push(text);
                end
            }
            b'r' | b'b' if starts_identifier(bytes, at) => match raw_start(bytes, at) {
                Some((hashes, open)) => {
                    let (text, end) = raw(bytes, open + 1, hashes);
                    literals.push(text);
                    end
                }
                None => at + 1,
            },
            _ => at + 1,
        };
    }
    literals
}

/// True when `at` is not inside an identifier (`bar"` is no raw string).
fn starts_identifier(bytes: &[u8], at: usize) -> bool {
    at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_')
}

fn skip_line(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |end| at + end + 1)
}

fn skip_block_comment(bytes: &[u8], at: usize) -> usize {
    bytes[at + 2..]
        .windows(2)
        .position(|pair| pair == b"*/")
        .map_or(bytes.len(), |end| at + 2 + end + 2)
}

/// Past a character literal (`'x'`, `'\n'`, `'\u{1F600}'`), or one byte past a lifetime.
fn skip_char_literal(bytes: &[u8], at: usize) -> usize {
    if bytes.get(at + 1) == Some(&b'\\') {
        // The escaped character itself may be a quote (`'\''`): look past it.
        let body = (at + 3).min(bytes.len());
        return bytes[body..]
            .iter()
            .position(|&b| b == b'\'')
            .map_or(bytes.len(), |end| body + end + 1);
    }
    let width = bytes.get(at + 1).map_or(1, |&lead| utf8_width(lead)).max(1);
    if bytes.get(at + 1 + width) == Some(&b'\'') {
        at + 2 + width
    } else {
        at + 1
    }
}

/// The length of the UTF-8 sequence a lead byte opens.
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// For `r"`, `r#"`, `br"`, `b"`: the number of `#` and the index of the opening quote.
/// A plain `b"` is a raw string with no hashes only in name: its escapes are cooked, so
/// it is answered as `None` here and lexed as `"` one byte later.
fn raw_start(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let after_b = if bytes[at] == b'b' { at + 1 } else { at };
    if bytes.get(after_b) != Some(&b'r') {
        return None;
    }
    let hashes = bytes[after_b + 1..]
        .iter()
        .take_while(|&&b| b == b'#')
        .count();
    let open = after_b + 1 + hashes;
    (bytes.get(open) == Some(&b'"')).then_some((hashes, open))
}

/// A raw literal's bytes from `start` to its `"` followed by `hashes` `#`, and the index
/// after it.
fn raw(bytes: &[u8], start: usize, hashes: usize) -> (Vec<u8>, usize) {
    let mut at = start;
    while at < bytes.len() {
        let closes = bytes[at] == b'"'
            && bytes.len() >= at + 1 + hashes
            && bytes[at + 1..at + 1 + hashes].iter().all(|&b| b == b'#');
        if closes {
            return (bytes[start..at].to_vec(), at + 1 + hashes);
        }
        at += 1;
    }
    (bytes[start..].to_vec(), bytes.len())
}

/// A cooked literal's bytes from `start` to its closing `"`, escapes undone, and the index
/// after it.
fn cooked(bytes: &[u8], start: usize) -> (Vec<u8>, usize) {
    let mut text = Vec::new();
    let mut at = start;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => return (text, at + 1),
            b'\\' => at = escape(bytes, at + 1, &mut text),
            byte => {
                text.push(byte);
                at += 1;
            }
        }
    }
    (text, bytes.len())
}

/// Appends the escape starting at `at` (just after its `\`); returns the index after it.
fn escape(bytes: &[u8], at: usize, text: &mut Vec<u8>) -> usize {
    let Some(&kind) = bytes.get(at) else {
        return at;
    };
    let simple = match kind {
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'0' => Some(0),
        b'\\' | b'"' | b'\'' => Some(kind),
        _ => None,
    };
    if let Some(byte) = simple {
        text.push(byte);
        return at + 1;
    }
    match kind {
        b'x' => hex_byte(bytes, at + 1, text),
        b'u' => unicode(bytes, at + 1, text),
        // A line continuation: the newline and the next line's leading whitespace vanish.
        b'\n' | b'\r' => {
            at + bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count()
        }
        _ => at,
    }
}

/// `\xNN`.
fn hex_byte(bytes: &[u8], at: usize, text: &mut Vec<u8>) -> usize {
    let digits = bytes
        .get(at..at + 2)
        .and_then(|d| std::str::from_utf8(d).ok());
    match digits.and_then(|d| u8::from_str_radix(d, 16).ok()) {
        Some(byte) => {
            text.push(byte);
            at + 2
        }
        None => at,
    }
}

/// `\u{…}`.
fn unicode(bytes: &[u8], at: usize, text: &mut Vec<u8>) -> usize {
    let Some(close) = bytes[at..].iter().position(|&b| b == b'}') else {
        return at;
    };
    let digits = std::str::from_utf8(&bytes[at..at + close])
        .ok()
        .map(|d| d.trim_start_matches('{').replace('_', ""));
    let char = digits
        .and_then(|d| u32::from_str_radix(&d, 16).ok())
        .and_then(char::from_u32);
    if let Some(char) = char {
        text.extend_from_slice(char.encode_utf8(&mut [0; 4]).as_bytes());
    }
    at + close + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_unescaped_and_comments_skipped() {
        let source = concat!(
            "// \"not a literal\"\n",
            "let a = 'x'; fn f<'a>() {}\n",
            "let b = \"one\\ntwo \\\"q\\\" \\u{e9}\\x41\";\n",
            "let c = r#\"raw \"inner\" \\n\"#;\n",
            "let d = b\"\\xff\";\n",
            "let e = \"joined \\\n      here\";\n",
            "let g = '\"';\n",
        );
        let found = string_literals(source);
        assert_eq!(
            found,
            vec![
                "one\ntwo \"q\" \u{e9}A".as_bytes().to_vec(),
                b"raw \"inner\" \\n".to_vec(),
                vec![0xff],
                b"joined here".to_vec(),
            ]
        );
    }
}
