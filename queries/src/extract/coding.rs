//! PEP 263 coding cookies: the text of a Python file in the encoding it declares.
//!
//! Owns: finding the declaration — a comment on the first line, or on the second when the
//! first is blank or a comment only (as CPython reads it), matching PEP 263's
//! `^[ \t\f]*#.*?coding[:=][ \t]*([-_.a-zA-Z0-9]+)` — and decoding the content from it.
//! The name is compared as Python normalizes it (case-insensitive, `_` as `-`, `utf-8-*`
//! is UTF-8 and `latin-1-*` latin-1). UTF-8, declared or not, is read as it is; latin-1 and
//! ASCII are decoded exactly as Python decodes them; any other name through the WHATWG
//! encoding of that label (`encoding_rs`, with a few CPython-only spellings such as `cp932`
//! mapped onto theirs), if that encoding keeps ASCII bytes as ASCII. An encoding keel
//! cannot decode, or content that is not valid in the declared one, is unparseable with a
//! message naming the encoding.
//!
//! Lines stay put: every accepted encoding turns each `\n` byte into one `\n` and makes no
//! other, so the rows tree-sitter counts in the text are the lines the line diff counts in
//! the bytes. Content that is ASCII decodes to itself in all of them, and is borrowed.
//! Does not own: UTF-8 validation (`syntax::as_text`) or what is done with the text.

use std::borrow::Cow;

use encoding_rs::{DecoderResult, Encoding};

use super::syntax::{as_text, line_of};
use super::{ExtractError, Partial};

/// How keel decodes a declared encoding.
#[derive(Debug, Clone, Copy)]
enum Codec {
    Utf8,
    /// ISO-8859-1: each byte is the code point of its value.
    Latin1,
    /// Bytes above 0x7F are errors.
    Ascii,
    /// A WHATWG encoding that keeps ASCII bytes as ASCII.
    Whatwg(&'static Encoding),
}

/// The text of Python `content`: as declared by its coding cookie, else UTF-8.
pub(super) fn python_text(content: &[u8]) -> Result<Cow<'_, str>, ExtractError> {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let bom = content.starts_with(BOM);
    let Some((line, name)) = declared(content.strip_prefix(BOM).unwrap_or(content)) else {
        return as_text(content).map(Cow::Borrowed);
    };
    let unparseable = |line, reason| ExtractError::Unparseable {
        line,
        reason,
        partial: Partial::default(),
    };
    let Some(codec) = codec(name) else {
        let reason = format!("declares the encoding `{name}`, which keel cannot decode");
        return Err(unparseable(line, reason));
    };
    if bom && !matches!(codec, Codec::Utf8) {
        let reason = format!("declares the encoding `{name}` after a UTF-8 byte order mark");
        return Err(unparseable(line, reason));
    }
    if content.is_ascii() {
        return as_text(content).map(Cow::Borrowed);
    }
    let invalid = |offset: usize| {
        let reason = format!("not valid `{name}`, the declared encoding (byte offset {offset})");
        unparseable(line_of(content, offset), reason)
    };
    match codec {
        Codec::Utf8 => as_text(content).map(Cow::Borrowed),
        Codec::Latin1 => Ok(Cow::Owned(
            content.iter().copied().map(char::from).collect(),
        )),
        Codec::Ascii => Err(invalid(
            content
                .iter()
                .position(|byte| !byte.is_ascii())
                .unwrap_or(0),
        )),
        Codec::Whatwg(encoding) => decode(encoding, content).map(Cow::Owned).map_err(invalid),
    }
}

/// The 1-based line of the coding cookie and the encoding name it declares.
fn declared(content: &[u8]) -> Option<(u32, &str)> {
    let (first, rest) = split_line(content);
    if let Some(name) = cookie(first) {
        return Some((1, name));
    }
    let blank_or_comment = matches!(trim_start(first).first(), None | Some(b'#'));
    let (second, _) = split_line(rest);
    blank_or_comment
        .then(|| cookie(second))
        .flatten()
        .map(|name| (2, name))
}

/// The first line (without its end: `\n`, `\r\n` or `\r`, as Python ends lines) and what
/// follows it.
fn split_line(text: &[u8]) -> (&[u8], &[u8]) {
    match text.iter().position(|&byte| byte == b'\n' || byte == b'\r') {
        Some(end) => {
            let next = match text.get(end..end + 2) {
                Some(b"\r\n") => end + 2,
                _ => end + 1,
            };
            (&text[..end], &text[next..])
        }
        None => (text, &[]),
    }
}

/// `line` without its leading spaces, tabs and form feeds.
fn trim_start(line: &[u8]) -> &[u8] {
    let blank = line
        .iter()
        .take_while(|&&byte| matches!(byte, b' ' | b'\t' | b'\x0c'))
        .count();
    &line[blank..]
}

/// The encoding name a line declares, by PEP 263's regular expression: the first
/// `coding` after the line's leading `#` that is followed by `:` or `=`, optional spaces
/// or tabs, and a name of letters, digits, `-`, `_` or `.`.
fn cookie(line: &[u8]) -> Option<&str> {
    let comment = trim_start(line).strip_prefix(b"#")?;
    (0..comment.len())
        .filter(|&at| comment[at..].starts_with(b"coding"))
        .find_map(|at| {
            let after = &comment[at + b"coding".len()..];
            let after = after
                .strip_prefix(b":")
                .or_else(|| after.strip_prefix(b"="))?;
            let after = &after[after
                .iter()
                .take_while(|&&byte| byte == b' ' || byte == b'\t')
                .count()..];
            let length = after
                .iter()
                .take_while(|&&byte| byte.is_ascii_alphanumeric() || b"-_.".contains(&byte))
                .count();
            // The name is ASCII, so always a `str`.
            (length > 0)
                .then(|| std::str::from_utf8(&after[..length]).ok())
                .flatten()
        })
}

/// How keel decodes the encoding `name`, if it can.
fn codec(name: &str) -> Option<Codec> {
    let lower = name.to_ascii_lowercase();
    let normal = lower.replace('_', "-");
    let prefixed = |base: &str| {
        normal == base
            || normal
                .strip_prefix(base)
                .is_some_and(|rest| rest.starts_with('-'))
    };
    if prefixed("utf-8") || matches!(normal.as_str(), "utf8" | "u8" | "utf" | "cp65001") {
        return Some(Codec::Utf8);
    }
    if prefixed("latin-1")
        || prefixed("iso-8859-1")
        || prefixed("iso-latin-1")
        || matches!(
            normal.as_str(),
            "latin1" | "latin" | "l1" | "iso8859-1" | "iso8859" | "8859" | "cp819" | "iso-ir-100"
        )
    {
        return Some(Codec::Latin1);
    }
    if matches!(
        normal.as_str(),
        "ascii" | "us-ascii" | "646" | "us" | "iso646-us" | "ansi-x3.4-1968" | "cp367"
    ) {
        return Some(Codec::Ascii);
    }
    // CPython spellings WHATWG does not list, for encodings it has under another label.
    let label = match normal.as_str() {
        "cp932" => "shift_jis",
        "cp936" => "gbk",
        "cp949" => "euc-kr",
        "cp950" => "big5",
        "mac-roman" | "macroman" => "macintosh",
        _ => lower.as_str(),
    };
    let encoding = Encoding::for_label(label.as_bytes())
        .or_else(|| Encoding::for_label(normal.as_bytes()))
        .filter(|encoding| {
            encoding.is_ascii_compatible() && *encoding != encoding_rs::X_USER_DEFINED
        })?;
    Some(if encoding == encoding_rs::UTF_8 {
        Codec::Utf8
    } else {
        Codec::Whatwg(encoding)
    })
}

/// `content` decoded from `encoding` (no byte order mark handling, no replacement); the
/// byte offset of the first malformed sequence otherwise.
fn decode(encoding: &'static Encoding, content: &[u8]) -> Result<String, usize> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::new();
    let mut read = 0;
    loop {
        let left = content.len() - read;
        let room = decoder
            .max_utf8_buffer_length_without_replacement(left)
            .unwrap_or(left);
        // At least one character's worth, so every round makes progress.
        text.reserve(room.max(4));
        let (result, consumed) =
            decoder.decode_to_string_without_replacement(&content[read..], &mut text, true);
        read += consumed;
        match result {
            DecoderResult::InputEmpty => return Ok(text),
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(length, after) => {
                return Err(read.saturating_sub(usize::from(length) + usize::from(after)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(content: &[u8]) -> Result<Cow<'_, str>, ExtractError> {
        python_text(content)
    }

    fn refusal(content: &[u8]) -> (u32, String) {
        match text(content) {
            Err(ExtractError::Unparseable { line, reason, .. }) => (line, reason),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn the_cookie_is_read_as_pep_263_says() {
        type Case = (&'static [u8], Option<(u32, &'static str)>);
        let cases: &[Case] = &[
            (b"# -*- coding: latin-1 -*-\n", Some((1, "latin-1"))),
            (
                b"#!/usr/bin/env python\n# coding=cp1252\n",
                Some((2, "cp1252")),
            ),
            (
                b"\n  # vim: set fileencoding=koi8-r :\n",
                Some((2, "koi8-r")),
            ),
            (
                b"\t\x0c# coding:\tshift_jis\r\nx = 1\n",
                Some((1, "shift_jis")),
            ),
            (b"# encoding coding: latin-1\n", Some((1, "latin-1"))),
            (b"#!python\r# coding: latin-1\r", Some((2, "latin-1"))),
            (b"x = 1\n# coding: latin-1\n", None),
            (b"# one\n# two\n# coding: latin-1\n", None),
            (b"x = 1  # coding: latin-1\n", None),
            (b"# coding latin-1\n", None),
            (b"# coding: \n", None),
            (b"", None),
        ];
        for &(content, expected) in cases {
            assert_eq!(
                declared(content),
                expected,
                "{}",
                String::from_utf8_lossy(content)
            );
        }
    }

    #[test]
    fn latin_1_is_decoded_with_lines_kept() {
        let content = b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    return '\xb5'\n";
        let decoded = text(content).expect("latin-1 decodes");
        assert_eq!(
            decoded,
            "# -*- coding: latin-1 -*-\ndef café():\n    return 'µ'\n"
        );
        assert!(matches!(decoded, Cow::Owned(_)));
    }

    #[test]
    fn other_encodings_decode_through_their_whatwg_label() {
        let cp1252 = b"# coding: cp1252\ns = '\x80'\n";
        assert_eq!(
            text(cp1252).expect("cp1252 decodes"),
            "# coding: cp1252\ns = '€'\n"
        );
        let sjis = b"# -*- coding: cp932 -*-\ns = '\x82\xa0'\n";
        assert_eq!(
            text(sjis).expect("cp932 decodes"),
            "# -*- coding: cp932 -*-\ns = 'あ'\n"
        );
    }

    #[test]
    fn ascii_content_and_utf_8_are_borrowed() {
        for content in [
            &b"# -*- coding: latin-1 -*-\nx = 1\n"[..],
            b"# -*- coding: utf-8-unix -*-\ns = '\xc3\xa9'\n",
            b"\xef\xbb\xbf# coding: UTF_8\nx = 1\n",
            b"s = '\xc3\xa9'\n",
        ] {
            assert!(
                matches!(text(content), Ok(Cow::Borrowed(_))),
                "{}",
                String::from_utf8_lossy(content)
            );
        }
    }

    #[test]
    fn what_keel_cannot_decode_is_refused_by_name() {
        let (line, reason) = refusal(b"#!python\n# coding: klingon\n");
        assert_eq!(line, 2);
        assert!(reason.contains("`klingon`"), "{reason}");
        let (line, reason) = refusal(b"# coding: utf-16\nx = 1\n");
        assert_eq!(line, 1);
        assert!(reason.contains("`utf-16`"), "{reason}");
        let (_, reason) = refusal(b"\xef\xbb\xbf# coding: latin-1\n");
        assert!(reason.contains("byte order mark"), "{reason}");
    }

    #[test]
    fn content_invalid_in_its_encoding_names_its_line() {
        let (line, reason) = refusal(b"# coding: ascii\nx = 1\ns = '\xe9'\n");
        assert_eq!(line, 3);
        assert!(reason.contains("`ascii`"), "{reason}");
        let (line, _) = refusal(b"# coding: shift_jis\n\ns = '\x82'\n");
        assert_eq!(line, 3);
        let (line, reason) = refusal(b"x = 1\ns = '\xe9'\n");
        assert_eq!(line, 2);
        assert!(reason.contains("not UTF-8"), "{reason}");
    }
}
