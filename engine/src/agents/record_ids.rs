//! The identities a log file's records carry — each record's `uuid`, each API call's id,
//! each tool call's id — as 64-bit fingerprints, and whether the file can be claimed
//! alone: what tells a sync which files share a record with another (a resumed session's
//! replay, a fork's copies) and must be held as lines, and which the user cache may keep
//! as the digest the claims made of that file by itself.
//!
//! A fingerprint is SipHash-1-3 with fixed keys (std's `DefaultHasher::new()`) of the
//! identity's kind and text: stable within a build, which is all the cache needs (an entry
//! is read only by the build that wrote it). Fingerprints only ever over-state sharing:
//! two different identities with one fingerprint make both files "shared", which costs a
//! read of their lines, never a different answer.
//!
//! Owns: the fingerprints and the "alone" test of one file, and finding the files that
//! share a fingerprint. Does not own: what a shared record counts for (the claims, in
//! `keel-queries::agents`) or the cache itself (`super::log_cache`).

use super::{LogEvent, LogLine};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One file's record identities and whether its records can be claimed without any
/// other file's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordIds {
    /// Sorted, each once.
    pub fingerprints: Vec<u64>,
    /// Every line is a record or an API call (no session header, message, step, usage row
    /// or model line: those tie a file to others by rule), and no identity is carried by
    /// records of two different sessions of the file.
    pub alone: bool,
}

/// The kinds of identity, hashed with the text so a uuid never meets a call id.
#[derive(Hash)]
enum Kind {
    Record,
    Call,
    Tool,
}

fn fingerprint(kind: Kind, id: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    kind.hash(&mut hasher);
    id.hash(&mut hasher);
    hasher.finish()
}

impl RecordIds {
    /// The identities of `lines` (a file's, in order), whose records name `file_session`
    /// when they name none.
    pub fn of<'a>(
        lines: impl Iterator<Item = &'a LogLine>,
        file_session: Option<&Arc<str>>,
    ) -> Self {
        let mut sessions: FxHashMap<u64, Option<&Arc<str>>> = FxHashMap::default();
        let mut alone = true;
        for line in lines {
            alone &= matches!(line.event, LogEvent::Call(_) | LogEvent::Plain);
            let session = line.session.as_ref().or(file_session);
            let call = match &line.event {
                LogEvent::Call(call) => Some(fingerprint(Kind::Call, &call.id)),
                _ => None,
            };
            let ids = line
                .uuid
                .iter()
                .map(|uuid| fingerprint(Kind::Record, uuid))
                .chain(call)
                .chain(
                    line.tools
                        .iter()
                        .map(|tool| fingerprint(Kind::Tool, &tool.id)),
                );
            for id in ids {
                let first = *sessions.entry(id).or_insert(session);
                alone &= first == session;
            }
        }
        let mut fingerprints: Vec<u64> = sessions.into_keys().collect();
        fingerprints.sort_unstable();
        Self {
            fingerprints,
            alone,
        }
    }
}

/// For each file (by index into `files`), whether a fingerprint of it is also another
/// file's. Each file's fingerprints are distinct, so a fingerprint met twice in all of
/// them together is two files' (one sort of every fingerprint, then a lookup per file in
/// the few met twice: no table of a million entries).
pub(crate) fn shared_files(files: &[&RecordIds]) -> Vec<bool> {
    let mut all: Vec<u64> = files
        .iter()
        .flat_map(|ids| ids.fingerprints.iter().copied())
        .collect();
    all.sort_unstable();
    let mut twice: Vec<u64> = all
        .windows(2)
        .filter(|pair| pair[0] == pair[1])
        .map(|pair| pair[0])
        .collect();
    twice.dedup();
    files
        .iter()
        .map(|ids| {
            !twice.is_empty()
                && ids
                    .fingerprints
                    .iter()
                    .any(|id| twice.binary_search(id).is_ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{Call, Tokens, ToolUse};

    fn line(session: &str, uuid: &str, call: Option<&str>, tool: Option<&str>) -> LogLine {
        LogLine {
            line: 1,
            session: Some(session.into()),
            uuid: Some(uuid.into()),
            timestamp: None,
            cwd: None,
            tools: tool
                .map(|id| ToolUse {
                    id: id.into(),
                    name: "Edit".into(),
                })
                .into_iter()
                .collect(),
            event: call.map_or(LogEvent::Plain, |id| {
                LogEvent::Call(Call {
                    id: id.into(),
                    model: "m".into(),
                    tokens: Tokens::default(),
                    fast: false,
                })
            }),
        }
    }

    #[test]
    fn a_file_is_alone_unless_two_of_its_sessions_carry_one_identity_or_it_holds_a_header() {
        let copies = [
            line("a", "u1", Some("m1"), None),
            line("a", "u2", Some("m1"), None),
        ];
        assert!(
            RecordIds::of(copies.iter(), None).alone,
            "one session's copies"
        );
        let replay = [
            line("a", "u1", Some("m1"), None),
            line("b", "u1", None, None),
        ];
        assert!(
            !RecordIds::of(replay.iter(), None).alone,
            "a uuid in two sessions"
        );
        let tools = [
            line("a", "u1", None, Some("t1")),
            line("b", "u2", None, Some("t1")),
        ];
        assert!(
            !RecordIds::of(tools.iter(), None).alone,
            "a tool id in two sessions"
        );
        let mut header = line("a", "u1", None, None);
        header.event = LogEvent::Model("m".into());
        assert!(!RecordIds::of([header].iter(), None).alone, "a model line");
        let distinct = [
            line("a", "u1", Some("m1"), Some("t1")),
            line("b", "u2", Some("m2"), None),
        ];
        let ids = RecordIds::of(distinct.iter(), None);
        assert!(ids.alone);
        assert_eq!(ids.fingerprints.len(), 5, "two uuids, two calls, one tool");
    }

    #[test]
    fn files_sharing_any_identity_are_shared_and_a_uuid_never_meets_a_call_id() {
        let a = RecordIds::of([line("a", "x", None, None)].iter(), None);
        let b = RecordIds::of([line("b", "y", Some("x"), None)].iter(), None);
        let c = RecordIds::of([line("c", "z", Some("x"), None)].iter(), None);
        assert_eq!(shared_files(&[&a, &b, &c]), [false, true, true]);
        assert_eq!(shared_files(&[&a, &b]), [false, false]);
    }
}
