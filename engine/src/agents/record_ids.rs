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
//! A file's fingerprints are kept as one string of little-endian bytes (MessagePack `bin`),
//! so a cache entry's thousands of them load as one copy, not one integer each.
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
    #[serde(with = "fingerprint_bytes")]
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
/// file's. Only a `fresh` file (read in this sync) can bring a sharing not known before:
/// two files neither of which was read since they last met were compared then (a file
/// found sharing keeps `alone` false in its entry). So the fresh files' fingerprints are
/// sorted (each file's are distinct: one met twice there is two files'), and every other
/// file's are looked up in a table of them: nothing fresh, nothing to do.
pub(crate) fn shared_files(files: &[(&RecordIds, bool)]) -> Vec<bool> {
    let mut shared = vec![false; files.len()];
    let mut fresh: Vec<(u64, usize)> = files
        .iter()
        .enumerate()
        .filter(|(_, (_, fresh))| *fresh)
        .flat_map(|(index, (ids, _))| ids.fingerprints.iter().map(move |&id| (id, index)))
        .collect();
    if fresh.is_empty() {
        return shared;
    }
    fresh.sort_unstable();
    for pair in fresh.windows(2) {
        if pair[0].0 == pair[1].0 {
            shared[pair[0].1] = true;
            shared[pair[1].1] = true;
        }
    }
    let mut others = files
        .iter()
        .enumerate()
        .filter(|(_, (_, fresh))| !*fresh)
        .peekable();
    if others.peek().is_none() {
        return shared;
    }
    let owners: FxHashMap<u64, usize> = fresh.into_iter().collect();
    for (index, (ids, _)) in others {
        for id in &ids.fingerprints {
            if let Some(&owner) = owners.get(id) {
                shared[owner] = true;
                shared[index] = true;
            }
        }
    }
    shared
}

/// Fingerprints as one byte string, 8 little-endian bytes each.
mod fingerprint_bytes {
    use serde::de::Error as _;

    pub(super) fn serialize<S: serde::Serializer>(
        fingerprints: &[u64],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = fingerprints
            .iter()
            .flat_map(|id| id.to_le_bytes())
            .collect();
        serializer.serialize_bytes(&bytes)
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u64>, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Vec<u64>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("fingerprints as 8 bytes each")
            }
            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Vec<u64>, E> {
                let ids = bytes.chunks_exact(8);
                if !ids.remainder().is_empty() {
                    return Err(E::custom("a torn fingerprint"));
                }
                Ok(ids
                    .map(|id| u64::from_le_bytes(std::array::from_fn(|at| id[at])))
                    .collect())
            }
        }
        deserializer
            .deserialize_bytes(Bytes)
            .map_err(|err| D::Error::custom(format!("fingerprints: {err}")))
    }
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
        let all_fresh = |files: &[&RecordIds]| -> Vec<bool> {
            shared_files(&files.iter().map(|&ids| (ids, true)).collect::<Vec<_>>())
        };
        assert_eq!(all_fresh(&[&a, &b, &c]), [false, true, true]);
        assert_eq!(all_fresh(&[&a, &b]), [false, false]);
    }

    #[test]
    fn only_a_fresh_file_brings_a_new_sharing_with_fresh_and_old_files_alike() {
        let ids = |session: &str, calls: &[&str]| {
            let lines: Vec<LogLine> = calls
                .iter()
                .map(|call| line(session, &format!("{session}-{call}"), Some(call), None))
                .collect();
            RecordIds::of(lines.iter(), None)
        };
        let (old_a, old_b, new_c, new_d) = (
            ids("a", &["x", "y"]),
            ids("b", &["y"]),
            ids("c", &["z", "x"]),
            ids("d", &["w"]),
        );
        assert_eq!(
            shared_files(&[
                (&old_a, false),
                (&old_b, false),
                (&new_c, true),
                (&new_d, true)
            ]),
            [true, false, true, false],
            "c shares x with a; a and b share y but neither is fresh (their entries say so)"
        );
        assert_eq!(
            shared_files(&[(&old_a, false), (&old_b, false)]),
            [false, false],
            "nothing fresh: nothing new"
        );
        let again = ids("e", &["w"]);
        assert_eq!(
            shared_files(&[(&new_d, true), (&again, true), (&old_b, false)]),
            [true, true, false],
            "two fresh files"
        );
    }

    #[test]
    fn fingerprints_are_kept_as_bytes_and_a_torn_one_is_refused() {
        let ids = RecordIds::of([line("a", "u1", Some("m1"), Some("t1"))].iter(), None);
        let bytes = rmp_serde::to_vec(&ids).expect("ids encode");
        assert_eq!(
            rmp_serde::from_slice::<RecordIds>(&bytes).expect("ids decode"),
            ids
        );
        let raw = ids
            .fingerprints
            .iter()
            .flat_map(|id| id.to_le_bytes())
            .collect::<Vec<u8>>();
        assert!(
            bytes.windows(raw.len()).any(|window| window == raw),
            "one byte string"
        );
        let torn = rmp_serde::to_vec(&(serde_bytes_of(&raw[..raw.len() - 1]), true))
            .expect("a torn tuple encodes");
        assert!(rmp_serde::from_slice::<RecordIds>(&torn).is_err());
    }

    /// `bytes` as MessagePack `bin`.
    fn serde_bytes_of(bytes: &[u8]) -> impl Serialize + '_ {
        struct Bin<'a>(&'a [u8]);
        impl Serialize for Bin<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(self.0)
            }
        }
        Bin(bytes)
    }
}
