//! One fuzz target per reader of outside bytes: `fn(&[u8])`, calling the reader and
//! checking what must hold beyond "no panic".
//!
//! Owns: the invariants, each a panic with a message naming the reader and what broke:
//! a parse is deterministic; every line a reader names (in an error, a warning or a
//! record) lies in the input; every message keel prints is one line; what a reader
//! promises of a value holds (a cost is a plain non-negative decimal, a subject is
//! `<session>:<8 hex>`, a hunk's lines fit its header's counts); and round trips
//! (a byte order mark or CRLF line endings change nothing, a spec written back
//! canonically reads as the same entries, an append read in two chunks gives what one
//! read gives, a patch's one hunk applied to its own old side gives its new side).
//! Does not own: the readers (`keel-engine`, `keel-queries`) or generating inputs.

use keel_engine::agents::claude::ClaudeCode;
use keel_engine::agents::codex::Codex;
use keel_engine::agents::gemini::GeminiCli;
use keel_engine::agents::opencode::OpenCode;
use keel_engine::agents::{Connector, LogLine, LogSync, ReadMark, parse_chunk};
use keel_engine::readings::parse_readings;
use keel_engine::sessions::Decimal;
use keel_engine::sessions::jsonl::{parse_decisions, parse_sessions};
use keel_engine::settings::{ModelPrices, Rate, Settings};
use keel_queries::impact::patch::{self, FileKind, FilePatch, HunkLine, PatchError, PatchHunk};
use keel_queries::spec::{NodeId, Relation, SpecNode, parse_code_entries, parse_spec};
use keel_queries::trailers::parse_trailers;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The highest line number a reader may name: the last line of `bytes` (an empty input
/// and a final `\n` leave one more, empty, line).
fn line_bound(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count() + 1
}

#[track_caller]
fn check_line(reader: &str, what: &str, line: usize, bound: usize) {
    assert!(
        (1..=bound).contains(&line),
        "{reader}: {what} names line {line}, outside the input's lines 1..={bound}"
    );
}

#[track_caller]
fn one_line(reader: &str, what: &str, text: &str) {
    assert!(
        !text.contains('\n'),
        "{reader}: {what} spans lines: {text:?}"
    );
}

/// Checks a `file:line` location against the input's lines; returns the line.
#[track_caller]
fn check_location(reader: &str, file: &str, location: &str, bound: usize) -> usize {
    let line = location
        .strip_prefix(file)
        .and_then(|rest| rest.strip_prefix(':'))
        .and_then(|number| number.parse().ok());
    let Some(line) = line else {
        panic!("{reader}: location {location:?} is not {file}:<line>");
    };
    check_line(reader, location, line, bound);
    line
}

/// A plain non-negative decimal, as [`Decimal`] promises (`-?digits(.digits)?`, and no
/// sign here).
#[track_caller]
fn check_non_negative(reader: &str, what: &str, decimal: &Decimal) {
    let text = decimal.as_str();
    assert!(
        Decimal::parse(text).is_some() && !text.starts_with('-'),
        "{reader}: {what} {text:?} is not a plain non-negative decimal"
    );
}

/// `bytes` with a byte order mark before it.
fn with_bom(bytes: &[u8]) -> Vec<u8> {
    [BOM, bytes].concat()
}

/// `bytes` with every `\n` written `\r\n`.
fn crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    for &byte in bytes {
        if byte == b'\n' {
            out.push(b'\r');
        }
        out.push(byte);
    }
    out
}

/// The node every spec input is read as.
const NODE: &str = "fuzz/node";

/// `spec.md`: `keel_queries::spec::parse_spec`.
pub fn spec(bytes: &[u8]) {
    let id = NodeId(NODE.to_owned());
    let parsed = parse_spec(&id, bytes);
    assert_eq!(
        parsed,
        parse_spec(&id, bytes),
        "spec: two parses of one input differ"
    );
    let bound = line_bound(bytes);
    match parsed {
        Err(errors) => {
            assert!(!errors.is_empty(), "spec: refused with no error");
            for err in errors {
                assert_eq!(
                    err.file,
                    id.spec_path(),
                    "spec: an error names another file"
                );
                let Some(line) = err.line else {
                    panic!("spec: an error of the file's text names no line: {err}");
                };
                check_line("spec", "an error", line as usize, bound);
                one_line("spec", "an error", &err.to_string());
            }
        }
        Ok(node) => check_spec_node(&id, &node, bound),
    }
}

fn check_spec_node(id: &NodeId, node: &SpecNode, bound: usize) {
    assert_eq!(&node.id, id, "spec: the node names another id");
    for entry in &node.entries {
        check_line("spec", "an entry", entry.line as usize, bound);
    }
    assert!(
        node.entries
            .windows(2)
            .all(|pair| pair[0].relation == Relation::Code || pair[1].relation == Relation::Related),
        "spec: a `code:` entry follows a `related:` entry"
    );
    let canonical = canonical_spec(node);
    let again = parse_spec(id, canonical.as_bytes()).unwrap_or_else(|errors| {
        panic!("spec: the entries written back canonically are refused: {errors:?}\n{canonical}")
    });
    let entries = |node: &SpecNode| {
        node.entries
            .iter()
            .map(|entry| (entry.relation, entry.target.clone(), entry.raw.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        entries(node),
        entries(&again),
        "spec: the entries written back canonically read differently:\n{canonical}"
    );
}

/// The node's entries as a spec writes them, each a YAML double-quoted string.
fn canonical_spec(node: &SpecNode) -> String {
    let mut text = String::from("---\n");
    for (relation, key) in [(Relation::Code, "code"), (Relation::Related, "related")] {
        let items: Vec<&str> = node
            .entries
            .iter()
            .filter(|entry| entry.relation == relation)
            .map(|entry| entry.raw.as_str())
            .collect();
        if items.is_empty() {
            text.push_str(&format!("{key}: []\n"));
        }
        for (index, item) in items.iter().enumerate() {
            if index == 0 {
                text.push_str(&format!("{key}:\n"));
            }
            text.push_str(&format!("  - {}\n", yaml_quoted(item)));
        }
    }
    text.push_str("---\n");
    text
}

/// `text` as a YAML double-quoted scalar: every character outside YAML's printable set,
/// and every one a YAML 1.1 reader takes for a line break or a byte order mark, escaped.
fn yaml_quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for char in text.chars() {
        let plain = matches!(char, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
            && !matches!(char, '\u{2028}' | '\u{2029}' | '\u{feff}');
        match char {
            '"' | '\\' => {
                out.push('\\');
                out.push(char);
            }
            _ if plain => out.push(char),
            _ if u32::from(char) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", u32::from(char))),
            _ => out.push_str(&format!("\\U{:08X}", u32::from(char))),
        }
    }
    out.push('"');
    out
}

/// `keel.toml`: `keel_engine::settings::Settings::from_bytes`.
pub fn settings(bytes: &[u8]) {
    let parsed = Settings::from_bytes(bytes);
    assert_eq!(
        parsed,
        Settings::from_bytes(bytes),
        "settings: two parses of one input differ"
    );
    match parsed {
        Err(err) => {
            check_line("settings", "an error", err.line, line_bound(bytes));
            one_line("settings", "an error", &err.to_string());
        }
        Ok(settings) => {
            for (model, prices) in &settings.prices {
                for rate in rates(prices) {
                    check_non_negative("settings", &format!("a rate of {model:?}"), &rate.0);
                }
            }
        }
    }
}

/// Every rate of one model, its `above_200k` tier's included.
fn rates(prices: &ModelPrices) -> Vec<&Rate> {
    let mut all = vec![&prices.input, &prices.output];
    all.extend(
        [
            &prices.cache_write_5m,
            &prices.cache_write_1h,
            &prices.cache_read,
            &prices.fast_multiplier,
        ]
        .into_iter()
        .flatten(),
    );
    if let Some(tier) = &prices.above_200k {
        all.extend(rates(tier));
    }
    all
}

const SESSIONS_FILE: &str = "sessions.jsonl";

fn resolve(repo: &str) -> PathBuf {
    PathBuf::from(repo)
}

/// `sessions.jsonl`: `keel_engine::sessions::jsonl::parse_sessions`.
pub fn sessions(bytes: &[u8]) {
    let parsed = parse_sessions(SESSIONS_FILE, bytes, &resolve);
    assert_eq!(
        parsed,
        parse_sessions(SESSIONS_FILE, bytes, &resolve),
        "sessions: two parses of one input differ"
    );
    if !bytes.starts_with(BOM) {
        assert_eq!(
            parsed,
            parse_sessions(SESSIONS_FILE, &with_bom(bytes), &resolve),
            "sessions: a byte order mark changes what is read"
        );
    }
    let bound = line_bound(bytes);
    match &parsed {
        Err(err) => {
            check_location("sessions", SESSIONS_FILE, &err.location, bound);
            one_line("sessions", "an error", &err.to_string());
        }
        Ok((sessions, warnings)) => {
            assert_eq!(
                &parsed,
                &parse_sessions(SESSIONS_FILE, &crlf(bytes), &resolve),
                "sessions: CRLF line endings change what is read"
            );
            let mut ids = HashSet::new();
            let mut last = 0;
            for session in sessions {
                let line = check_location("sessions", SESSIONS_FILE, &session.origin, bound);
                assert!(line > last, "sessions: sessions out of line order");
                last = line;
                assert!(
                    ids.insert(session.session_id.clone()),
                    "sessions: session_id {:?} read twice",
                    session.session_id
                );
                assert!(session.end >= session.start, "sessions: end before start");
                if let Some(cost) = &session.cost {
                    check_non_negative("sessions", "a cost", cost);
                }
            }
            for warning in warnings {
                check_location("sessions", SESSIONS_FILE, &warning.location, bound);
                one_line("sessions", "a warning", &warning.to_string());
            }
        }
    }
}

const DECISIONS_FILE: &str = "decisions.jsonl";

/// `decisions.jsonl`: `keel_engine::sessions::jsonl::parse_decisions`.
pub fn decisions(bytes: &[u8]) {
    let parsed = parse_decisions(DECISIONS_FILE, bytes);
    assert_eq!(
        parsed,
        parse_decisions(DECISIONS_FILE, bytes),
        "decisions: two parses of one input differ"
    );
    if !bytes.starts_with(BOM) {
        assert_eq!(
            parsed,
            parse_decisions(DECISIONS_FILE, &with_bom(bytes)),
            "decisions: a byte order mark changes what is read"
        );
    }
    let bound = line_bound(bytes);
    match &parsed {
        Err(err) => {
            check_location("decisions", DECISIONS_FILE, &err.location, bound);
            one_line("decisions", "an error", &err.to_string());
        }
        Ok((decisions, warnings)) => {
            assert_eq!(
                &parsed,
                &parse_decisions(DECISIONS_FILE, &crlf(bytes)),
                "decisions: CRLF line endings change what is read"
            );
            let mut last = 0;
            for decision in decisions {
                check_line("decisions", "a decision", decision.line, bound);
                assert!(
                    decision.line > last,
                    "decisions: decisions out of line order"
                );
                last = decision.line;
                let subject_ok = decision.subject.rsplit_once(':').is_some_and(|(s, h)| {
                    !s.is_empty()
                        && h.len() == 8
                        && h.bytes()
                            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                });
                assert!(
                    subject_ok,
                    "decisions: subject {:?} is not <session_id>:<8 hex digits>",
                    decision.subject
                );
                if let Some(yes) = &decision.yes {
                    check_non_negative("decisions", "a probability", yes);
                    let at_most_one = yes.as_str().parse::<f64>().is_ok_and(|p| p <= 1.0);
                    assert!(at_most_one, "decisions: probability {yes:?} is above 1");
                }
            }
            for warning in warnings {
                check_location("decisions", DECISIONS_FILE, &warning.location, bound);
                one_line("decisions", "a warning", &warning.to_string());
            }
        }
    }
}

const READINGS_FILE: &str = "READINGS.jsonl";

/// `READINGS.jsonl`: `keel_engine::readings::parse_readings`, then each reading's `code`
/// list through `keel_queries::spec::parse_code_entries` as `keel fresh` reads it.
pub fn readings(bytes: &[u8]) {
    let parsed = parse_readings(READINGS_FILE, bytes);
    assert_eq!(
        parsed,
        parse_readings(READINGS_FILE, bytes),
        "readings: two parses of one input differ"
    );
    if !bytes.starts_with(BOM) {
        assert_eq!(
            parsed,
            parse_readings(READINGS_FILE, &with_bom(bytes)),
            "readings: a byte order mark changes what is read"
        );
    }
    let bound = line_bound(bytes);
    match &parsed {
        Err(err) => {
            check_location("readings", READINGS_FILE, &err.location, bound);
            one_line("readings", "an error", &err.to_string());
        }
        Ok(readings) => {
            let mut ids = HashSet::new();
            let mut last = 0;
            for reading in readings {
                check_line("readings", "a reading", reading.line, bound);
                assert!(reading.line > last, "readings: readings out of line order");
                last = reading.line;
                assert!(
                    ids.insert(reading.id.clone()),
                    "readings: id {:?} read twice",
                    reading.id
                );
                let commit_ok = (4..=64).contains(&reading.commit.len())
                    && reading
                        .commit
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
                assert!(
                    commit_ok,
                    "readings: commit {:?} is not lower-case hex",
                    reading.commit
                );
                assert!(
                    !reading.code.is_empty(),
                    "readings: an empty code list was read"
                );
                check_code_entries(&reading.code);
            }
        }
    }
}

fn check_code_entries(code: &[String]) {
    match parse_code_entries(code) {
        Ok(targets) => assert_eq!(
            targets.len(),
            code.len(),
            "readings: code entries and targets differ in number"
        ),
        Err(refusal) => {
            assert!(
                refusal.index < code.len(),
                "readings: a refusal names entry {} of {}",
                refusal.index,
                code.len()
            );
            one_line("readings", "a code entry refusal", &refusal.message);
        }
    }
}

/// The file name agent-log warnings carry.
const LOG_FILE: &str = "log.jsonl";

/// Claude Code session files: `keel_engine::agents::parse_chunk` with the Claude Code
/// connector.
pub fn claude(bytes: &[u8]) {
    agent_log("claude", &ClaudeCode, bytes);
}

/// Codex rollouts: `keel_engine::agents::parse_chunk` with the Codex connector.
pub fn codex(bytes: &[u8]) {
    agent_log("codex", &Codex, bytes);
}

/// Gemini CLI chats: JSON lines through `keel_engine::agents::parse_chunk`, and the older
/// whole-document form through `Connector::read_document`.
pub fn gemini(bytes: &[u8]) {
    agent_log("gemini", &GeminiCli, bytes);
    log_document("gemini", &GeminiCli, bytes);
}

/// OpenCode storage documents (a session, a message, a part) through
/// `Connector::read_document`.
pub fn opencode(bytes: &[u8]) {
    log_document("opencode", &OpenCode, bytes);
}

/// A whole log document: read twice the same; its records in line order inside it; an
/// error names a line of it in one line of text.
fn log_document(reader: &str, connector: &dyn Connector, bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let read = connector.read_document(text);
    assert_eq!(
        read,
        connector.read_document(text),
        "{reader}: two reads of one document differ"
    );
    let bound = line_bound(bytes);
    match read {
        Ok(lines) => {
            let mut last = 0;
            for line in &lines {
                check_line(reader, "a document's record", line.line as usize, bound);
                assert!(
                    line.line >= last,
                    "{reader}: document records out of line order"
                );
                last = line.line;
            }
        }
        Err(err) => {
            check_line(reader, "a document error", err.line as usize, bound);
            one_line(reader, "a document error", &err.message);
        }
    }
}

/// What one read of a log's bytes gives: its lines, the bytes consumed, the next line's
/// number, and the sync's counters and warnings.
type LogRead = (Vec<LogLine>, u64, u32, LogSync);

fn read_log(connector: &dyn Connector, bytes: &[u8], mark: &ReadMark) -> LogRead {
    let mut sync = LogSync::default();
    let (lines, consumed, next_line) =
        parse_chunk(connector, Path::new(LOG_FILE), bytes, mark, &mut sync);
    (lines, consumed, next_line, sync)
}

fn agent_log(reader: &str, connector: &dyn Connector, bytes: &[u8]) {
    let whole = read_log(connector, bytes, &ReadMark::default());
    assert_eq!(
        whole,
        read_log(connector, bytes, &ReadMark::default()),
        "{reader}: two reads of one input differ"
    );
    let bound = line_bound(bytes);
    let (lines, consumed, next_line, sync) = &whole;
    assert!(
        *consumed <= bytes.len() as u64,
        "{reader}: consumed {consumed} of {} bytes",
        bytes.len()
    );
    check_line(reader, "the next line", *next_line as usize, bound + 1);
    let mut last = 0;
    for line in lines {
        check_line(reader, "a record", line.line as usize, bound);
        assert!(line.line > last, "{reader}: records out of line order");
        last = line.line;
    }
    for warning in &sync.warnings {
        check_location(reader, LOG_FILE, &warning.location, bound);
        one_line(reader, "a warning", &warning.to_string());
    }
    check_append_read(reader, connector, bytes, &whole);
}

/// Reading the bytes up to a middle line end, then the rest from that mark, gives what one
/// read gives: an append is read as if the file were read whole.
fn check_append_read(reader: &str, connector: &dyn Connector, bytes: &[u8], whole: &LogRead) {
    let ends: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b'\n').collect();
    let Some(&end) = ends.get(ends.len() / 2) else {
        return;
    };
    let (first_lines, first_consumed, first_next, first_sync) =
        read_log(connector, &bytes[..=end], &ReadMark::default());
    assert_eq!(
        first_consumed,
        end as u64 + 1,
        "{reader}: whole lines were left unconsumed"
    );
    let mark = ReadMark {
        consumed: first_consumed,
        next_line: first_next,
        ..ReadMark::default()
    };
    let (rest_lines, consumed, next_line, rest_sync) =
        read_log(connector, &bytes[end + 1..], &mark);
    let lines: Vec<LogLine> = first_lines.into_iter().chain(rest_lines).collect();
    let warnings: Vec<_> = first_sync
        .warnings
        .into_iter()
        .chain(rest_sync.warnings)
        .collect();
    assert_eq!(
        (&lines, consumed, next_line, &warnings),
        (&whole.0, whole.1, whole.2, &whole.3.warnings),
        "{reader}: a read in two chunks differs from one read"
    );
    assert_eq!(
        first_sync.lines_parsed + rest_sync.lines_parsed,
        whole.3.lines_parsed,
        "{reader}: a read in two chunks parses another number of lines"
    );
}

const PATCH_FILE: &str = "change.diff";

/// Unified diffs: `keel_queries::impact::patch::parse`, and `apply` of what it parsed.
pub fn patch(bytes: &[u8]) {
    let parsed = patch::parse(PATCH_FILE, bytes);
    assert_eq!(
        parsed,
        patch::parse(PATCH_FILE, bytes),
        "patch: two parses of one input differ"
    );
    // A hunk that runs out names the line after the last.
    let bound = bytes.split_inclusive(|&b| b == b'\n').count() + 1;
    match &parsed {
        // A path that leaves the repository is refused where it is read, as is a
        // malformed line.
        Err(err @ (PatchError::Malformed { line, .. } | PatchError::Outside { line, .. })) => {
            check_line("patch", "an error", *line, bound);
            one_line("patch", "an error", &err.to_string());
        }
        Err(PatchError::Empty { .. }) => {
            let starts_file = bytes
                .split_inclusive(|&b| b == b'\n')
                .any(|line| line.starts_with(b"diff --git ") || line.starts_with(b"--- "));
            assert!(!starts_file, "patch: a file header was read as no file");
        }
        Err(err) => panic!("patch: parsing reported {err:?}, which only applying can"),
        Ok(files) => {
            let mut last_header = 0;
            for file in files {
                check_file_patch(file, bound, &mut last_header);
                check_apply(file, bytes);
            }
        }
    }
}

fn check_file_patch(file: &FilePatch, bound: usize, last_header: &mut usize) {
    match file.kind {
        FileKind::Add => assert!(
            file.old_path.is_none() && file.new_path.is_some(),
            "patch: an added file with paths {:?} -> {:?}",
            file.old_path,
            file.new_path
        ),
        FileKind::Delete => assert!(
            file.old_path.is_some() && file.new_path.is_none(),
            "patch: a deleted file with paths {:?} -> {:?}",
            file.old_path,
            file.new_path
        ),
        FileKind::Modify => assert!(
            file.old_path.is_some() && file.old_path == file.new_path,
            "patch: a modified file with paths {:?} -> {:?}",
            file.old_path,
            file.new_path
        ),
        FileKind::Rename => {}
    }
    for hunk in &file.hunks {
        check_line("patch", "a hunk header", hunk.header_line, bound);
        assert!(
            hunk.header_line > *last_header,
            "patch: hunks out of line order"
        );
        *last_header = hunk.header_line;
        check_hunk(hunk);
    }
}

fn check_hunk(hunk: &PatchHunk) {
    let count = |keep: fn(&HunkLine) -> bool| hunk.lines.iter().filter(|l| keep(l)).count();
    let context = count(|l| matches!(l, HunkLine::Context(_)));
    let removed = count(|l| matches!(l, HunkLine::Removed(_)));
    let added = count(|l| matches!(l, HunkLine::Added(_)));
    assert_eq!(
        (context + removed, context + added),
        (hunk.old_lines as usize, hunk.new_lines as usize),
        "patch: the hunk at line {} does not hold the lines its header counts",
        hunk.header_line
    );
    let (old, new) = hunk.changed_lines();
    assert_eq!(
        (old.len(), new.len()),
        (removed, added),
        "patch: changed_lines miscounts the hunk at line {}",
        hunk.header_line
    );
    assert!(
        old.windows(2).all(|p| p[0] < p[1]) && new.windows(2).all(|p| p[0] < p[1]),
        "patch: changed_lines of the hunk at line {} are not increasing",
        hunk.header_line
    );
}

/// Applying never panics, a file patch with no hunks leaves any base as it is, and a
/// file's single hunk at the start applies to its own old side, giving its new side.
fn check_apply(file: &FilePatch, bytes: &[u8]) {
    let applied = patch::apply(PATCH_FILE, file, Some(bytes));
    let _ = patch::apply(PATCH_FILE, file, None);
    if file.hunks.is_empty() && matches!(file.kind, FileKind::Modify | FileKind::Rename) {
        assert_eq!(
            applied,
            Ok(Some(bytes.to_vec())),
            "patch: a file patch without hunks changed its base"
        );
    }
    let [hunk] = file.hunks.as_slice() else {
        return;
    };
    let side = |keep: fn(&HunkLine) -> Option<&[u8]>| -> Vec<&[u8]> {
        hunk.lines.iter().filter_map(keep).collect()
    };
    let old = side(|line| match line {
        HunkLine::Context(body) | HunkLine::Removed(body) => Some(body.as_slice()),
        HunkLine::Added(_) => None,
    });
    let new = side(|line| match line {
        HunkLine::Context(body) | HunkLine::Added(body) => Some(body.as_slice()),
        HunkLine::Removed(_) => None,
    });
    // The old side reads back as these lines only if each but the last ends its line.
    let lines_split = old.iter().all(|body| !body.is_empty())
        && old.iter().rev().skip(1).all(|body| body.ends_with(b"\n"));
    let at_start = if hunk.old_lines == 0 {
        hunk.old_start == 0
    } else {
        hunk.old_start <= 1
    };
    if !(lines_split && at_start) {
        return;
    }
    let (base, expected) = match file.kind {
        FileKind::Add => (None, Some(new.concat())),
        FileKind::Delete => (Some(old.concat()), None),
        FileKind::Modify | FileKind::Rename => (Some(old.concat()), Some(new.concat())),
    };
    if file.kind == FileKind::Add && !old.is_empty() {
        return;
    }
    assert_eq!(
        patch::apply(PATCH_FILE, file, base.as_deref()),
        Ok(expected),
        "patch: the hunk at line {} does not apply to its own old side",
        hunk.header_line
    );
}

/// Commit messages (from any bytes, lossily as UTF-8):
/// `keel_queries::trailers::parse_trailers`.
pub fn trailers(bytes: &[u8]) {
    let message = String::from_utf8_lossy(bytes);
    let trailers = parse_trailers(&message);
    assert_eq!(
        trailers,
        parse_trailers(&message),
        "trailers: two parses of one message differ"
    );
    for trailer in &trailers {
        let key_ok = !trailer.key.is_empty()
            && trailer
                .key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-');
        assert!(
            key_ok,
            "trailers: key {:?} is not a trailer key",
            trailer.key
        );
        one_line("trailers", "a value", &trailer.value);
    }
    assert_eq!(
        parse_trailers(&String::from_utf8_lossy(&crlf(message.as_bytes()))),
        trailers,
        "trailers: CRLF line endings change the trailers"
    );
    assert_eq!(
        parse_trailers(&format!("{message}\n\n \n")),
        trailers,
        "trailers: blank lines after the message change the trailers"
    );
    if !trailers.is_empty() && trailers.iter().all(|t| t.value == t.value.trim()) {
        let rebuilt: String = std::iter::once("Subject\n\n".to_owned())
            .chain(trailers.iter().map(|t| format!("{}: {}\n", t.key, t.value)))
            .collect();
        assert_eq!(
            parse_trailers(&rebuilt),
            trailers,
            "trailers: the trailers written back read differently:\n{rebuilt}"
        );
    }
}
