//! What the engine's JSONL readers share (`sessions.jsonl`, `decisions.jsonl`, `keel
//! fresh`'s readings): the file's lines as text and the strict reading of one line's
//! object and its required string fields, every refusal naming file:line, the field, what
//! was expected and the repair. The agent-log reader (`agents::files`), which reads
//! incrementally, shares the byte order mark rule ([`without_bom`]).
//! Does not own: any file's schema (each reader's own module) or the refusal type
//! ([`crate::refusal`]).

use crate::message::line_of_offset;
use crate::refusal::{Refusal, RefusalCode};
use serde_json::{Map, Value};

/// A refusal of kind `code` at `file:line`, naming `field`.
pub(crate) fn refuse(
    code: RefusalCode,
    file: &str,
    line: usize,
    field: &str,
    message: impl Into<String>,
    repair: &str,
) -> Refusal {
    Refusal::new(code, format!("{file}:{line}"), Some(field), message, repair)
}

/// A JSONL file's bytes from its start without a UTF-8 byte order mark (editors on
/// Windows write one; it is not part of the first line).
pub(crate) fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// The file's non-blank lines with their 1-based numbers, refusing bytes that are not
/// UTF-8 (naming their line). A UTF-8 byte order mark before the first line is dropped.
pub(crate) fn text_lines<'a>(
    file: &str,
    bytes: &'a [u8],
) -> Result<Vec<(usize, &'a str)>, Refusal> {
    let bytes = without_bom(bytes);
    let text = std::str::from_utf8(bytes).map_err(|err| {
        let offset = err.valid_up_to();
        let line = line_of_offset(bytes, offset);
        refuse(
            RefusalCode::Jsonl,
            file,
            line,
            "line",
            format!("not UTF-8 (invalid byte at offset {offset})"),
            "save the file as UTF-8",
        )
    })?;
    Ok(text
        .split('\n')
        .enumerate()
        .map(|(index, line)| (index + 1, line.trim_end_matches('\r')))
        .filter(|(_, line)| !line.trim().is_empty())
        .collect())
}

/// One line parsed as a JSON object; a refusal's repair ends with `example` when given.
pub(crate) fn object(
    file: &str,
    line: usize,
    text: &str,
    example: Option<&str>,
) -> Result<Map<String, Value>, Refusal> {
    let for_example = example.map_or_else(String::new, |example| format!(", e.g. {example}"));
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(refuse(
            RefusalCode::Jsonl,
            file,
            line,
            "line",
            "expected a JSON object",
            &format!("write one JSON object per line{for_example}"),
        )),
        Err(err) => Err(refuse(
            RefusalCode::Jsonl,
            file,
            line,
            "line",
            format!("not valid JSON ({err})"),
            &format!("write one complete JSON object per line{for_example}"),
        )),
    }
}

/// A required non-empty string field.
pub(crate) fn required_string(
    file: &str,
    line: usize,
    map: &Map<String, Value>,
    field: &str,
) -> Result<String, Refusal> {
    match map.get(field) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
        Some(Value::String(_)) => Err(refuse(
            RefusalCode::Jsonl,
            file,
            line,
            field,
            "is empty",
            &format!("give `{field}` a non-empty string"),
        )),
        Some(_) => Err(refuse(
            RefusalCode::Jsonl,
            file,
            line,
            field,
            "expected a string",
            &format!("write `{field}` as a JSON string"),
        )),
        None => Err(refuse(
            RefusalCode::Jsonl,
            file,
            line,
            field,
            "required field is missing",
            &format!("add `{field}` to the line"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_drop_a_byte_order_mark_carriage_returns_and_blank_lines() {
        let lines = text_lines("f.jsonl", b"\xEF\xBB\xBF{\"a\": 1}\r\n\n  \n{\"b\": 2}\n")
            .expect("UTF-8 text");
        assert_eq!(lines, [(1, "{\"a\": 1}"), (4, "{\"b\": 2}")]);
        let refused = text_lines("f.jsonl", b"{}\n{\"a\": \"\xff\"}\n").expect_err("not UTF-8");
        assert_eq!(refused.location, "f.jsonl:2");
        assert_eq!(refused.repair, "save the file as UTF-8");
    }

    #[test]
    fn only_a_leading_byte_order_mark_is_dropped() {
        assert_eq!(without_bom(b"\xEF\xBB\xBF{}\n"), b"{}\n");
        assert_eq!(without_bom(b"{}\n\xEF\xBB\xBF{}"), b"{}\n\xEF\xBB\xBF{}");
        let lines = text_lines("f.jsonl", b"\xEF\xBB\xBF{}\n").expect("UTF-8 text");
        assert!(object("f.jsonl", 1, lines[0].1, None).is_ok(), "{lines:?}");
    }

    #[test]
    fn objects_and_string_fields_are_refused_with_their_repair() {
        let not_object = object("f", 3, "[1]", Some("{}")).expect_err("a list");
        assert_eq!(not_object.repair, "write one JSON object per line, e.g. {}");
        let broken = object("f", 3, "{", None).expect_err("not JSON");
        assert!(
            broken.message.starts_with("not valid JSON"),
            "{}",
            broken.message
        );
        let map = object("f", 1, r#"{"id": "", "n": 1}"#, None).expect("an object");
        let empty = required_string("f", 1, &map, "id").expect_err("empty");
        assert_eq!(
            (
                empty.field.as_deref().unwrap_or_default(),
                empty.message.as_str()
            ),
            ("id", "is empty")
        );
        let number = required_string("f", 1, &map, "n").expect_err("a number");
        assert_eq!(number.message, "expected a string");
        let missing = required_string("f", 1, &map, "x").expect_err("missing");
        assert_eq!(missing.repair, "add `x` to the line");
    }
}
