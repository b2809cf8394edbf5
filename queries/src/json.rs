//! The canonical JSON writer: compact UTF-8 JSON whose object keys keep the order the
//! caller gives (the contracts fix key order; a map type would sort or scramble it).
//!
//! Owns: the [`Json`] value, its one serialization ([`Json::write`]) and its exact byte
//! length ([`Json::len`]) — the impact report sizes prefixes with it, so both agree by
//! construction. Strings escape `"`, `\` and control characters (`\n`, `\r`, `\t`, `\b`,
//! `\f`, others as `\u00XX`); everything else is written as UTF-8, unescaped. A decimal
//! number ([`Decimal`]: `-?digits(.digits)?`, already rounded by its maker) is written as
//! its digits.
//! Does not own: any schema (`callgraph`, `impact` build the values).

use keel_engine::decimal::Decimal;

/// A JSON value with ordered object keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(u64),
    /// A decimal number (a cost in USD), written as its digits.
    Decimal(Decimal),
    String(String),
    Array(Vec<Json>),
    /// Keys in the order written.
    Object(Vec<(&'static str, Json)>),
}

impl Json {
    /// A string value.
    pub fn string(text: impl Into<String>) -> Self {
        Self::String(text.into())
    }

    /// A number value from any unsigned count.
    pub fn number(value: impl Into<u64>) -> Self {
        Self::Number(value.into())
    }

    /// The compact serialization.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.len());
        self.write(&mut out);
        out
    }

    /// Appends the compact serialization to `out`.
    pub fn write(&self, out: &mut String) {
        match self {
            Self::Null => out.push_str("null"),
            Self::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Self::Number(value) => out.push_str(&value.to_string()),
            Self::Decimal(value) => out.push_str(value.as_str()),
            Self::String(text) => write_string(text, out),
            Self::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Self::Object(fields) => {
                out.push('{');
                for (index, (key, value)) in fields.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The byte length of the serialization, without writing it.
    pub fn len(&self) -> usize {
        match self {
            Self::Null => 4,
            Self::Bool(value) => {
                if *value {
                    4
                } else {
                    5
                }
            }
            Self::Number(value) => digits(*value),
            Self::Decimal(value) => value.as_str().len(),
            Self::String(text) => string_len(text),
            Self::Array(items) => {
                2 + items.iter().map(Self::len).sum::<usize>() + items.len().saturating_sub(1)
            }
            Self::Object(fields) => {
                2 + fields
                    .iter()
                    .map(|(key, value)| string_len(key) + 1 + value.len())
                    .sum::<usize>()
                    + fields.len().saturating_sub(1)
            }
        }
    }

    /// Never: every value serializes to at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Decimal digits of `value`.
pub fn digits(value: u64) -> usize {
    value.checked_ilog10().map_or(1, |log| log as usize + 1)
}

fn escape(c: char) -> Option<&'static str> {
    match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '\n' => Some("\\n"),
        '\r' => Some("\\r"),
        '\t' => Some("\\t"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        _ => None,
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match escape(c) {
            Some(escaped) => out.push_str(escaped),
            None if c < ' ' => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            None => out.push(c),
        }
    }
    out.push('"');
}

fn string_len(text: &str) -> usize {
    2 + text
        .chars()
        .map(|c| match escape(c) {
            Some(escaped) => escaped.len(),
            None if c < ' ' => 6,
            None => c.len_utf8(),
        })
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_in_the_given_key_order_and_escaped_as_serde_json_escapes() {
        let value = Json::Object(vec![
            ("z", Json::Number(10)),
            (
                "a",
                Json::Array(vec![Json::Null, Json::Bool(false), Json::Bool(true)]),
            ),
            ("s", Json::string("q\"b\\n\n\t\u{1}é€😀")),
            ("e", Json::Object(Vec::new())),
            (
                "d",
                Json::Array(vec![
                    Json::Decimal(Decimal::parse("0.006505").expect("a decimal")),
                    Json::Decimal(Decimal::parse("-2").expect("a decimal")),
                ]),
            ),
            ("l", Json::Array(Vec::new())),
        ]);
        let text = value.to_text();
        assert_eq!(
            text,
            r#"{"z":10,"a":[null,false,true],"s":"q\"b\\n\n\t\u0001é€😀","e":{},"d":[0.006505,-2],"l":[]}"#
        );
        assert_eq!(value.len(), text.len());
        // serde_json reads it back to the same string (an independent parser).
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(parsed["s"], "q\"b\\n\n\t\u{1}é€😀");
        assert_eq!(parsed["d"][0], 0.006505);
    }

    #[test]
    fn digits_count_decimal_places() {
        for value in [0, 9, 10, 99, 100, 12_345, u64::MAX] {
            assert_eq!(digits(value), value.to_string().len(), "{value}");
        }
    }
}
