//! Strict readers for `sessions.jsonl` and `decisions.jsonl`.
//!
//! Owns: turning the bytes of those files into [`SessionData`] and [`DecisionData`], the
//! one-line errors that refuse a bad line (file:line, field, what was expected, repair),
//! the warnings for a missing optional field (`cost`, `api_calls`, `tools`) and the one
//! warning per decision whose probabilities lack `yes` or do not sum to 1 (read as the
//! seed says all the same: `yes`, missing → 0).
//! Does not own: reading the files from disk or resolving paths (the caller passes bytes
//! and a resolver), nor what a session or decision means (`keel-queries`).

use super::inputs::{DecisionData, Instant, SessionData, TIME_RANGE};
use crate::decimal::Decimal;
use crate::jsonl::{object, refuse, required_string, text_lines};
use crate::refusal::{Refusal, RefusalCode};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::PathBuf;

/// The one point of `decisions.jsonl` keel reads.
pub const COMMIT_LINK_POINT: &str = "commit_link";

/// Input keel refuses (see [`Refusal`]).
pub type SessionsError = Refusal;

/// Something keel read but had to assume about; printed, never silent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionsWarning {
    pub location: String,
    pub message: String,
    /// The repository path the warning says does not exist, if it says so (so one path is
    /// not named missing twice).
    pub missing_repo: Option<PathBuf>,
}

impl SessionsWarning {
    /// A warning about something other than a missing repository.
    pub fn new(location: String, message: String) -> Self {
        Self {
            location,
            message,
            missing_repo: None,
        }
    }
}

impl fmt::Display for SessionsWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// A required RFC 3339 timestamp field.
fn required_instant(
    file: &str,
    line: usize,
    map: &Map<String, Value>,
    field: &str,
) -> Result<Instant, SessionsError> {
    let text = required_string(file, line, map, field)?;
    Instant::parse_rfc3339(&text).map_err(|err| {
        refuse(
            RefusalCode::Sessions,
            file,
            line,
            field,
            err.to_string(),
            &format!(
                "write `{field}` as RFC 3339 with an offset {TIME_RANGE}, e.g. \"2026-01-15T10:00:00Z\""
            ),
        )
    })
}

/// An optional string field: absent and null are both `None`.
fn nullable_string(
    file: &str,
    line: usize,
    map: &Map<String, Value>,
    field: &str,
) -> Result<Option<String>, SessionsError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(refuse(
            RefusalCode::Sessions,
            file,
            line,
            field,
            "expected a string or null",
            &format!("write `{field}` as a JSON string or null"),
        )),
    }
}

/// A JSON number as an exact decimal, refusing negatives.
fn non_negative_number(
    file: &str,
    line: usize,
    field: &str,
    value: &Value,
) -> Result<Decimal, SessionsError> {
    let number = value.as_f64().filter(|n| n.is_finite()).ok_or_else(|| {
        refuse(
            RefusalCode::Sessions,
            file,
            line,
            field,
            "expected a number",
            &format!("write `{field}` as a JSON number"),
        )
    })?;
    if number < 0.0 {
        return Err(refuse(
            RefusalCode::Sessions,
            file,
            line,
            field,
            format!("{number} is negative"),
            &format!("write `{field}` as a number >= 0"),
        ));
    }
    Ok(Decimal::from_f64(number))
}

/// A non-negative whole number.
fn count(file: &str, line: usize, field: &str, value: &Value) -> Result<u64, SessionsError> {
    value.as_u64().ok_or_else(|| {
        refuse(
            RefusalCode::Sessions,
            file,
            line,
            field,
            "expected a whole number >= 0",
            &format!("write `{field}` as a non-negative integer"),
        )
    })
}

/// Parses `sessions.jsonl`. `resolve` turns a `repo` as written into its real path.
pub fn parse_sessions(
    file: &str,
    bytes: &[u8],
    resolve: &dyn Fn(&str) -> PathBuf,
) -> Result<(Vec<SessionData>, Vec<SessionsWarning>), SessionsError> {
    let mut sessions = Vec::new();
    let mut warnings = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (line, text) in text_lines(file, bytes)? {
        let map = object(file, line, text, None)?;
        let session_id = required_string(file, line, &map, "session_id")?;
        if let Some(first) = seen.get(&session_id) {
            return Err(refuse(
                RefusalCode::Sessions,
                file,
                line,
                "session_id",
                format!("{session_id:?} already appears on line {first}"),
                "give each session one line with a unique session_id (remove or rename the duplicate)",
            ));
        }
        let harness = required_string(file, line, &map, "harness")?;
        let start = required_instant(file, line, &map, "start")?;
        let end = required_instant(file, line, &map, "end")?;
        if end < start {
            return Err(refuse(
                RefusalCode::Sessions,
                file,
                line,
                "end",
                format!(
                    "end {} is before start {}",
                    end.to_rfc3339(),
                    start.to_rfc3339()
                ),
                "fix the timestamps so that end >= start",
            ));
        }
        let repo = nullable_string(file, line, &map, "repo")?;
        let repo_real = repo.as_deref().map(resolve);
        let project = nullable_string(file, line, &map, "project")?;
        let missing = |field: &str, assumed: &str| {
            SessionsWarning::new(
                format!("{file}:{line}"),
                format!("{field}: optional field is missing; counted as {assumed}"),
            )
        };
        let cost = match map.get("cost") {
            None | Some(Value::Null) => {
                warnings.push(missing("cost", "0"));
                Some(Decimal::zero())
            }
            Some(Value::Object(cost)) => match cost.get("total") {
                // `null`: unknown (an unpriced model), never 0.
                Some(Value::Null) => None,
                Some(total) => Some(non_negative_number(file, line, "cost.total", total)?),
                None => {
                    return Err(refuse(
                        RefusalCode::Sessions,
                        file,
                        line,
                        "cost.total",
                        "required field is missing",
                        "write cost as {\"total\": <number>}",
                    ));
                }
            },
            Some(_) => {
                return Err(refuse(
                    RefusalCode::Sessions,
                    file,
                    line,
                    "cost",
                    "expected an object",
                    "write cost as {\"total\": <number>}",
                ));
            }
        };
        let api_calls = match map.get("api_calls") {
            None | Some(Value::Null) => {
                warnings.push(missing("api_calls", "0"));
                0
            }
            Some(value) => count(file, line, "api_calls", value)?,
        };
        let tools = match map.get("tools") {
            None | Some(Value::Null) => {
                warnings.push(missing("tools", "no tool used"));
                BTreeMap::new()
            }
            Some(Value::Object(tools)) => tools
                .iter()
                .map(|(name, calls)| {
                    count(file, line, &format!("tools.{name}"), calls).map(|c| (name.clone(), c))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(refuse(
                    RefusalCode::Sessions,
                    file,
                    line,
                    "tools",
                    "expected an object",
                    "write tools as {\"<tool>\": <calls>, ...}",
                ));
            }
        };
        seen.insert(session_id.clone(), line);
        sessions.push(SessionData {
            session_id,
            harness,
            start,
            end,
            repo,
            repo_real,
            project,
            cost,
            api_calls,
            tools,
            origin: format!("{file}:{line}"),
        });
    }
    Ok((sessions, warnings))
}

/// True for `<session_id>:<8 lowercase hex digits>`.
fn is_subject(subject: &str) -> bool {
    subject.rsplit_once(':').is_some_and(|(session, hash)| {
        !session.is_empty()
            && hash.len() == 8
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// How far from 1 the probabilities of a decision may sum before keel says so: a decider
/// that writes `p` and `1 - p` as binary floats is off by far less.
const SUM_TOLERANCE: f64 = 1e-9;

/// The warning for a decision whose probabilities lack `yes` or do not sum to 1 (`sum`),
/// if it needs one.
fn probabilities_warning(yes: Option<&Decimal>, sum: f64) -> Option<String> {
    let off = (sum - 1.0).abs() > SUM_TOLERANCE;
    // Rounded for the message only (0.1 + 0.2 reads 0.3).
    let sum = (sum * 1e9).round() / 1e9;
    match (yes, off) {
        (Some(_), false) => None,
        (None, false) => Some("probabilities: no `yes`; read as yes = 0".to_owned()),
        (Some(yes), true) => Some(format!(
            "probabilities: they sum to {sum}, not 1; yes = {} is read as written",
            yes.as_str()
        )),
        (None, true) => Some(format!(
            "probabilities: no `yes`, and they sum to {sum}, not 1; read as yes = 0"
        )),
    }
}

/// Parses `decisions.jsonl`, keeping the `commit_link` lines; one warning per decision
/// whose probabilities lack `yes` or do not sum to 1.
pub fn parse_decisions(
    file: &str,
    bytes: &[u8],
) -> Result<(Vec<DecisionData>, Vec<SessionsWarning>), SessionsError> {
    let mut decisions = Vec::new();
    let mut warnings = Vec::new();
    for (line, text) in text_lines(file, bytes)? {
        let map = object(file, line, text, None)?;
        let point = required_string(file, line, &map, "point")?;
        if point != COMMIT_LINK_POINT {
            continue;
        }
        let ts = required_instant(file, line, &map, "ts")?;
        let subject = required_string(file, line, &map, "subject")?;
        if !is_subject(&subject) {
            return Err(refuse(
                RefusalCode::Sessions,
                file,
                line,
                "subject",
                format!("{subject:?} is not <session_id>:<8 hex digits>"),
                "copy the subject from the `pending` list of `keel sessions --format json`",
            ));
        }
        let Some(Value::Object(probabilities)) = map.get("probabilities") else {
            return Err(refuse(
                RefusalCode::Sessions,
                file,
                line,
                "probabilities",
                "required object is missing",
                "write probabilities as {\"yes\": p, \"no\": 1-p}",
            ));
        };
        let mut yes = None;
        let mut sum = 0.0;
        for (option, value) in probabilities {
            let field = format!("probabilities.{option}");
            let p = non_negative_number(file, line, &field, value)?;
            // `non_negative_number` accepted it: a finite number.
            sum += value.as_f64().unwrap_or(0.0);
            if value.as_f64().is_some_and(|v| v > 1.0) {
                return Err(refuse(
                    RefusalCode::Sessions,
                    file,
                    line,
                    &field,
                    format!("{} is above 1", p.as_str()),
                    "write each probability between 0 and 1",
                ));
            }
            if option == "yes" {
                yes = Some(p);
            }
        }
        if let Some(message) = probabilities_warning(yes.as_ref(), sum) {
            warnings.push(SessionsWarning::new(format!("{file}:{line}"), message));
        }
        decisions.push(DecisionData {
            ts,
            subject,
            yes,
            line,
        });
    }
    Ok((decisions, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(path: &str) -> PathBuf {
        PathBuf::from(path)
    }

    const FULL: &str = r#"{"session_id":"a","harness":"claude-code","start":"2026-01-15T10:00:00Z","end":"2026-01-15T11:00:00+01:00","repo":"/r","project":null,"cost":{"total":2},"api_calls":12,"tools":{"Edit":3}}"#;

    #[test]
    fn a_full_line_is_read_exactly() {
        let (sessions, warnings) =
            parse_sessions("s.jsonl", FULL.as_bytes(), &resolve).expect("valid line");
        assert!(warnings.is_empty());
        let s = &sessions[0];
        assert_eq!(s.session_id, "a");
        assert_eq!(s.end.nanos() - s.start.nanos(), 0, "11:00+01:00 is 10:00Z");
        assert_eq!(s.cost.as_ref().map(Decimal::as_str), Some("2"));
        assert_eq!(s.api_calls, 12);
        assert_eq!(s.tools.get("Edit"), Some(&3));
        assert_eq!(s.repo_real, Some(PathBuf::from("/r")));
        assert_eq!(s.origin, "s.jsonl:1");
    }

    #[test]
    fn missing_optional_fields_warn_with_their_line() {
        let text = format!(
            "\n{}\n",
            r#"{"session_id":"a","harness":"h","start":"2026-01-15T10:00:00Z","end":"2026-01-15T10:00:00Z"}"#
        );
        let (sessions, warnings) =
            parse_sessions("s.jsonl", text.as_bytes(), &resolve).expect("valid line");
        assert_eq!(sessions[0].origin, "s.jsonl:2");
        let lines: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            vec![
                "s.jsonl:2: cost: optional field is missing; counted as 0",
                "s.jsonl:2: api_calls: optional field is missing; counted as 0",
                "s.jsonl:2: tools: optional field is missing; counted as no tool used",
            ]
        );
    }

    fn refusal(text: &str) -> String {
        parse_sessions("s.jsonl", text.as_bytes(), &resolve)
            .expect_err("the line must be refused")
            .to_string()
    }

    #[test]
    fn bad_lines_are_refused_naming_line_field_and_repair() {
        let err = refusal(&format!("{FULL}\n{{\"session_id\": \n"));
        assert!(err.starts_with("s.jsonl:2: line: not valid JSON"), "{err}");
        assert!(err.contains("repair:"), "{err}");
        let err = refusal(
            r#"{"harness":"h","start":"2026-01-15T10:00:00Z","end":"2026-01-15T10:00:00Z"}"#,
        );
        assert!(
            err.starts_with("s.jsonl:1: session_id: required field is missing"),
            "{err}"
        );
        let err = refusal(
            r#"{"session_id":"a","harness":"h","start":"2026-01-15T10:00:00Z","end":"2026-01-15T09:00:00Z"}"#,
        );
        assert!(err.starts_with("s.jsonl:1: end: end "), "{err}");
        let err = refusal(&format!("{FULL}\n{FULL}"));
        assert!(
            err.starts_with("s.jsonl:2: session_id: \"a\" already appears on line 1"),
            "{err}"
        );
        let err = refusal(
            r#"{"session_id":"a","harness":"h","start":"2026-01-15 10:00","end":"2026-01-15T10:00:00Z"}"#,
        );
        assert!(err.starts_with("s.jsonl:1: start: "), "{err}");
        let err = refusal(&FULL.replace("12", "-1"));
        assert!(err.starts_with("s.jsonl:1: api_calls: "), "{err}");
    }

    #[test]
    fn decisions_keep_commit_link_lines_and_check_subjects() {
        let text = concat!(
            r#"{"ts":"2026-01-15T10:00:00Z","point":"other","subject":"x"}"#,
            "\n",
            r#"{"ts":"2026-01-15T10:00:00Z","point":"commit_link","subject":"b:0123abcd","probabilities":{"yes":0.8,"no":0.2}}"#,
            "\n",
            r#"{"ts":"2026-01-15T10:00:00Z","point":"commit_link","subject":"b:0123abcd","probabilities":{"no":1}}"#,
        );
        let (decisions, _) = parse_decisions("d.jsonl", text.as_bytes()).expect("valid lines");
        assert_eq!(decisions.len(), 2);
        assert_eq!(decisions[0].yes.as_ref().map(Decimal::as_str), Some("0.8"));
        assert_eq!(decisions[0].line, 2);
        assert_eq!(decisions[1].yes, None);
        let bad = r#"{"ts":"2026-01-15T10:00:00Z","point":"commit_link","subject":"b","probabilities":{"yes":1}}"#;
        let err = parse_decisions("d.jsonl", bad.as_bytes()).expect_err("bad subject");
        assert!(err.to_string().starts_with("d.jsonl:1: subject: "), "{err}");
    }

    #[test]
    fn a_decision_without_yes_or_not_summing_to_1_is_read_as_the_seed_says_with_a_warning() {
        let line = |probabilities: &str| {
            format!(
                r#"{{"ts":"2026-01-15T10:00:00Z","point":"commit_link","subject":"b:0123abcd","probabilities":{probabilities}}}"#
            )
        };
        let text = [
            line(r#"{"yes":0.8,"no":0.2}"#),
            line(r#"{"yes":0.1,"no":0.2,"maybe":0.7}"#),
            line(r#"{"no":1}"#),
            line(r#"{"yes":0.6,"no":0.6}"#),
            line(r#"{"no":0.5}"#),
            line("{}"),
        ]
        .join("\n");
        let (decisions, warnings) =
            parse_decisions("d.jsonl", text.as_bytes()).expect("read, not refused");
        let yes: Vec<Option<&str>> = decisions
            .iter()
            .map(|d| d.yes.as_ref().map(Decimal::as_str))
            .collect();
        assert_eq!(
            yes,
            [Some("0.8"), Some("0.1"), None, Some("0.6"), None, None],
            "`yes` as written; a missing one stays None (0 in keel-queries)"
        );
        let lines: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "d.jsonl:3: probabilities: no `yes`; read as yes = 0",
                "d.jsonl:4: probabilities: they sum to 1.2, not 1; yes = 0.6 is read as written",
                "d.jsonl:5: probabilities: no `yes`, and they sum to 0.5, not 1; read as yes = 0",
                "d.jsonl:6: probabilities: no `yes`, and they sum to 0, not 1; read as yes = 0",
            ]
        );
    }

    #[test]
    fn a_timestamp_out_of_range_names_the_range_in_its_repair() {
        let err = refusal(&FULL.replace("2026-01-15T10:00:00Z", "99999-01-15T10:00:00Z"));
        assert!(
            err.starts_with("s.jsonl:1: start: \"99999-01-15T10:00:00Z\" is outside"),
            "{err}"
        );
        assert!(err.contains(TIME_RANGE), "{err}");
    }

    #[test]
    fn non_utf8_names_its_line() {
        let err = parse_sessions("s.jsonl", b"\n\n\xff\n", &resolve).expect_err("not UTF-8");
        assert!(
            err.to_string().starts_with("s.jsonl:3: line: not UTF-8"),
            "{err}"
        );
    }
}
