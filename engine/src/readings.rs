//! `keel fresh`'s readings file: a strict reader for `READINGS.jsonl` and the [`Readings`]
//! input it becomes.
//!
//! Owns: turning the file's bytes into readings — one JSON object per line, `{"id": str,
//! "commit": sha, "code": [entry, ...]}`; blank lines skipped, a UTF-8 byte order mark at
//! the start accepted, unknown keys ignored — and resolving each `commit` in the
//! repository. Every refusal is one [`ReadingsError`] naming file:line, the field, what was
//! expected and the repair, so the caller prints it and exits 2 before anything is judged.
//! Does not own: the entry grammar (`keel-queries`' `spec` parses each `code` entry, with
//! the same refusals a spec's `code:` list gets) or what a reading's verdict is
//! (`keel-queries`' `fresh`).

use crate::database::{EngineError, KeelDatabase};
use crate::jsonl::{object, refuse, required_string, text_lines};
use crate::refusal::{Refusal, RefusalCode};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

pub use crate::inputs::{Reading, Readings};

/// Input keel refuses (see [`Refusal`]).
pub type ReadingsError = Refusal;

/// A reading before its commit is resolved in a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawReading {
    pub id: String,
    /// The commit id as written: 4 to 64 hexadecimal digits (a SHA-1 id has 40, a SHA-256 one 64).
    pub commit: String,
    pub code: Vec<String>,
    pub line: usize,
}

/// The example every refusal of a whole line points at.
const EXAMPLE: &str =
    r#"{"id": "eval-1", "commit": "<40 hex digits>", "code": ["src/app.py#login"]}"#;

/// Parses `READINGS.jsonl` (named `file` in messages) without a repository: the JSON shape
/// of every line, unique ids, commit ids spelled as hexadecimal, non-empty `code` lists of
/// strings.
pub fn parse_readings(file: &str, bytes: &[u8]) -> Result<Vec<RawReading>, ReadingsError> {
    let mut readings = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (line, text) in text_lines(file, bytes)? {
        let map = object(file, line, text, Some(EXAMPLE))?;
        let id = required_string(file, line, &map, "id")?;
        if let Some(first) = seen.get(&id) {
            return Err(refuse(
                RefusalCode::Readings,
                file,
                line,
                "id",
                format!("{id:?} already appears on line {first}"),
                "give each reading a unique id (remove or rename the duplicate)",
            ));
        }
        let commit = required_string(file, line, &map, "commit")?;
        let hex = (4..=64).contains(&commit.len()) && commit.bytes().all(|b| b.is_ascii_hexdigit());
        if !hex {
            return Err(refuse(
                RefusalCode::Readings,
                file,
                line,
                "commit",
                format!("{commit:?} is not a commit id (4 to 64 hexadecimal digits)"),
                "write the id of the commit the reading was taken at, e.g. the output of `git rev-parse HEAD` then",
            ));
        }
        let code = match map.get("code") {
            Some(Value::Array(items)) if items.is_empty() => {
                return Err(refuse(
                    RefusalCode::Readings,
                    file,
                    line,
                    "code",
                    "is empty: nothing could ever stale this reading",
                    "list the code the reading measures: `path#selector` entries or bare paths",
                ));
            }
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(index, item)| match item {
                    Value::String(entry) => Ok(entry.clone()),
                    _ => Err(refuse(
                        RefusalCode::Readings,
                        file,
                        line,
                        &format!("code[{index}]"),
                        "expected a string",
                        "write each entry as a JSON string: \"path#selector\" or \"path\"",
                    )),
                })
                .collect::<Result<Vec<String>, ReadingsError>>()?,
            Some(_) => {
                return Err(refuse(
                    RefusalCode::Readings,
                    file,
                    line,
                    "code",
                    "expected a list of strings",
                    "write `code` as a JSON list, e.g. [\"src/app.py#login\", \"src/util.py\"]",
                ));
            }
            None => {
                return Err(refuse(
                    RefusalCode::Readings,
                    file,
                    line,
                    "code",
                    "required field is missing",
                    "add `code`: the list of `path#selector` entries or bare paths the reading measures",
                ));
            }
        };
        seen.insert(id.clone(), line);
        readings.push(RawReading {
            id,
            commit: commit.to_ascii_lowercase(),
            code,
            line,
        });
    }
    Ok(readings)
}

impl KeelDatabase {
    /// Reads the readings file at `path` (named as given in messages) into a [`Readings`]
    /// input, resolving every commit in this repository.
    pub(crate) fn load_readings(&self, path: &Path) -> Result<Readings, ReadingsError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|err| {
            Refusal::new(
                RefusalCode::Readings,
                file.clone(),
                Some("file"),
                format!("cannot read it: {err}"),
                "pass an existing, readable readings file (JSON lines)",
            )
        })?;
        self.readings_from(&file, &bytes)
    }

    /// [`Self::load_readings`] on bytes already read, named `file` in messages.
    pub(crate) fn readings_from(
        &self,
        file: &str,
        bytes: &[u8],
    ) -> Result<Readings, ReadingsError> {
        let mut readings = Vec::new();
        for raw in parse_readings(file, bytes)? {
            let unknown = |reason: Option<String>| {
                let why = reason.map_or_else(String::new, |reason| format!(" ({reason})"));
                refuse(
                    RefusalCode::Readings,
                    file,
                    raw.line,
                    "commit",
                    format!("{} names no commit in this repository{why}", raw.commit),
                    "write the full id of a commit of this repository (`git log` lists them), or remove the line",
                )
            };
            // An id that names nothing needs no second message of its own inside this one.
            let commit = self.resolve_commit(&raw.commit).map_err(|err| match err {
                EngineError::NoSuchCommit { .. } => unknown(None),
                other => unknown(Some(other.to_string())),
            })?;
            // A hexadecimal string could also be read as a ref name: only an object id
            // that starts with it names the reading's commit.
            if !commit.to_string().starts_with(&raw.commit) {
                return Err(unknown(Some(format!(
                    "it resolves to {commit}, a ref's commit"
                ))));
            }
            readings.push(Reading {
                id: raw.id,
                commit,
                code: raw.code,
                line: raw.line,
            });
        }
        Ok(Readings::new(self, file.to_owned(), readings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"id":"a","commit":"0123456789abcdef0123456789abcdef01234567","code":["app.py#f","util.py"],"extra":1}"#;

    fn refusal(text: &str) -> String {
        parse_readings("r.jsonl", text.as_bytes())
            .expect_err("the line must be refused")
            .to_string()
    }

    #[test]
    fn a_line_is_read_and_unknown_keys_are_ignored() {
        let readings = parse_readings("r.jsonl", LINE.as_bytes()).expect("a valid line");
        assert_eq!(
            readings,
            vec![RawReading {
                id: "a".to_owned(),
                commit: "0123456789abcdef0123456789abcdef01234567".to_owned(),
                code: vec!["app.py#f".to_owned(), "util.py".to_owned()],
                line: 1,
            }]
        );
    }

    #[test]
    fn blank_lines_count_and_a_byte_order_mark_is_accepted() {
        let text = format!("\u{feff}\n  \r\n{LINE}\r\n\n");
        let readings = parse_readings("r.jsonl", text.as_bytes()).expect("valid lines");
        assert_eq!(readings.len(), 1);
        assert_eq!(readings[0].line, 3, "blank lines keep their numbers");
        assert!(parse_readings("r.jsonl", b"").expect("empty").is_empty());
    }

    #[test]
    fn bad_lines_are_refused_naming_line_field_and_repair() {
        let err = refusal(&format!("{LINE}\n{{\"id\": \n"));
        assert!(err.starts_with("r.jsonl:2: line: not valid JSON"), "{err}");
        assert!(
            err.contains("repair: write one complete JSON object per line"),
            "{err}"
        );
        let err = refusal("[1, 2]");
        assert!(
            err.starts_with("r.jsonl:1: line: expected a JSON object"),
            "{err}"
        );
        let err = refusal(&LINE.replace(r#""id":"a","#, ""));
        assert!(
            err.starts_with("r.jsonl:1: id: required field is missing"),
            "{err}"
        );
        let err = refusal(&format!("{LINE}\n\n{LINE}"));
        assert!(
            err.starts_with(r#"r.jsonl:3: id: "a" already appears on line 1"#),
            "{err}"
        );
        let err = refusal(&LINE.replace("0123456789abcdef0123456789abcdef01234567", "HEAD"));
        assert!(
            err.starts_with("r.jsonl:1: commit: \"HEAD\" is not a commit id"),
            "{err}"
        );
        let err = refusal(&LINE.replace(r#"["app.py#f","util.py"]"#, "[]"));
        assert!(err.starts_with("r.jsonl:1: code: is empty"), "{err}");
        let err = refusal(&LINE.replace(r#""util.py""#, "3"));
        assert!(
            err.starts_with("r.jsonl:1: code[1]: expected a string"),
            "{err}"
        );
        let err = refusal(&LINE.replace(r#"["app.py#f","util.py"]"#, r#""app.py""#));
        assert!(
            err.starts_with("r.jsonl:1: code: expected a list of strings"),
            "{err}"
        );
    }

    #[test]
    fn non_utf8_names_its_line() {
        let err = parse_readings("r.jsonl", b"\n\n\xff\n").expect_err("not UTF-8");
        assert!(
            err.to_string().starts_with("r.jsonl:3: line: not UTF-8"),
            "{err}"
        );
    }
}
