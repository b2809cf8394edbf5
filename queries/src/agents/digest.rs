//! The bytes a log's [`FileDigest`] is kept as in the user cache: its sessions' facts with
//! their calls counted and summed ([`KeptCalls`]) but not listed, then every call as a
//! fixed-width record. A warm `keel sessions export` decodes the facts alone; the records
//! are decoded only when a call's own figures are asked for (`[prices]` overriding one of
//! its models, `keel sessions usage`'s buckets).
//!
//! Layout: the facts' MessagePack length (8 bytes, little-endian), the MessagePack, then
//! [`RECORD`] bytes per call, the sessions' calls in the digest's session order: the
//! model's index among its session's [`KeptCalls::models`] (`u32`), flags (bit 0 a fast
//! request, bit 1 a time follows), the time (`i64` nanoseconds), then the five token
//! counts (`u64`, [`Tokens`] field order). Decoding the facts checks every record (their
//! number, flags and model indexes), so decoding the calls after cannot fail.
//!
//! Owns: this layout. Does not own: what the facts mean (`super::claims`) or where the
//! bytes are kept (the engine's user cache).

use super::claims::{CountedCall, FileDigest, KeptCalls};
use keel_engine::agents::Tokens;
use keel_engine::sessions::Instant;
use std::sync::Arc;

/// The bytes of one call's record.
const RECORD: usize = 4 + 1 + 8 + 5 * 8;

const FAST: u8 = 1;
const TIMED: u8 = 2;

/// Why a kept digest cannot be used (its log's records are then not counted, said so).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestTrouble {
    #[error("its facts cannot be decoded ({0})")]
    Facts(String),
    #[error("its call records do not match its facts")]
    Records,
}

/// `digest`'s bytes. Its sessions' calls are listed in `calls` (a digest made from lines
/// counts nothing in `kept`).
pub(crate) fn encode(digest: &FileDigest) -> Result<Vec<u8>, rmp_serde::encode::Error> {
    let mut facts = digest.clone();
    let mut records = Vec::new();
    for session in &mut facts.sessions {
        let calls = std::mem::take(&mut session.facts.calls);
        let mut kept = KeptCalls::default();
        kept.add_calls(&calls);
        let models: Vec<&Arc<str>> = kept.models.iter().collect();
        for call in &calls {
            let model = models.binary_search(&&call.model).unwrap_or_default();
            records.extend_from_slice(&record(model, call));
        }
        session.facts.kept = kept;
    }
    Ok(keel_engine::prefixed(&rmp_serde::to_vec(&facts)?, &records))
}

fn record(model: usize, call: &CountedCall) -> [u8; RECORD] {
    let mut out = [0u8; RECORD];
    out[..4].copy_from_slice(&u32::try_from(model).unwrap_or(u32::MAX).to_le_bytes());
    out[4] = (u8::from(call.fast) * FAST) | (u8::from(call.at.is_some()) * TIMED);
    out[5..13].copy_from_slice(&call.at.map_or(0, Instant::nanos).to_le_bytes());
    let tokens = call.tokens;
    let counts = [
        tokens.input,
        tokens.output,
        tokens.cache_write_5m,
        tokens.cache_write_1h,
        tokens.cache_read,
    ];
    for (at, count) in counts.into_iter().enumerate() {
        out[13 + 8 * at..21 + 8 * at].copy_from_slice(&count.to_le_bytes());
    }
    out
}

/// The facts of a kept digest (each session's calls counted in `kept`, not listed),
/// with every call record checked.
pub(crate) fn decode(bytes: &[u8]) -> Result<FileDigest, DigestTrouble> {
    let (head, records) = keel_engine::split_prefixed(bytes).ok_or(DigestTrouble::Records)?;
    let digest: FileDigest =
        rmp_serde::from_slice(head).map_err(|err| DigestTrouble::Facts(err.to_string()))?;
    let mut records = records.chunks_exact(RECORD);
    if !records.remainder().is_empty() {
        return Err(DigestTrouble::Records);
    }
    for session in &digest.sessions {
        let kept = &session.facts.kept;
        for _ in 0..kept.count {
            let record = records.next().ok_or(DigestTrouble::Records)?;
            let model = usize::try_from(le_u32(record)).unwrap_or(usize::MAX);
            if model >= kept.models.len() || record[4] & !(FAST | TIMED) != 0 {
                return Err(DigestTrouble::Records);
            }
        }
    }
    match records.next() {
        Some(_) => Err(DigestTrouble::Records),
        None => Ok(digest),
    }
}

/// Each session's calls, in the digest's session order, from `bytes` whose facts
/// [`decode`] made `digest`.
pub(crate) fn calls(bytes: &[u8], digest: &FileDigest) -> Vec<Vec<CountedCall>> {
    let records = keel_engine::split_prefixed(bytes).map_or(&[][..], |(_, records)| records);
    let mut records = records.chunks_exact(RECORD);
    digest
        .sessions
        .iter()
        .map(|session| {
            let models: Vec<&Arc<str>> = session.facts.kept.models.iter().collect();
            records
                .by_ref()
                .take(usize::try_from(session.facts.kept.count).unwrap_or(usize::MAX))
                .filter_map(|record| call(record, &models))
                .collect()
        })
        .collect()
}

/// One record's call; `None` only for a record [`decode`] refused.
fn call(record: &[u8], models: &[&Arc<str>]) -> Option<CountedCall> {
    let model = models.get(usize::try_from(le_u32(record)).ok()?)?;
    let count = |at: usize| le_u64(&record[13 + 8 * at..]);
    Some(CountedCall {
        model: Arc::clone(model),
        tokens: Tokens {
            input: count(0),
            output: count(1),
            cache_write_5m: count(2),
            cache_write_1h: count(3),
            cache_read: count(4),
        },
        fast: record[4] & FAST != 0,
        at: (record[4] & TIMED != 0)
            .then(|| Instant::from_nanos(i64::from_le_bytes(le_bytes(&record[5..])))),
    })
}

/// The first `N` bytes of `bytes` (callers pass a slice of a whole record, which holds
/// them: [`RECORD`] covers every field read).
fn le_bytes<const N: usize>(bytes: &[u8]) -> [u8; N] {
    std::array::from_fn(|at| bytes[at])
}

fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(le_bytes(bytes))
}

fn le_u64(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::claims::{DigestSession, SessionFacts};

    fn call(model: &str, input: u64, fast: bool, at: Option<i64>) -> CountedCall {
        CountedCall {
            model: model.into(),
            tokens: Tokens {
                input,
                output: input + 1,
                cache_write_5m: input + 2,
                cache_write_1h: input + 3,
                cache_read: input + 4,
            },
            fast,
            at: at.map(Instant::from_nanos),
        }
    }

    fn digest() -> FileDigest {
        let session = |id: &str, calls: Vec<CountedCall>| {
            let mut facts = SessionFacts::default();
            facts.calls = calls;
            DigestSession {
                id: id.into(),
                first: Some(Instant::from_nanos(5)),
                facts,
            }
        };
        FileDigest {
            sessions: vec![
                session(
                    "a",
                    vec![
                        call("opus", 10, false, Some(-7)),
                        call("haiku", u64::MAX - 4, true, None),
                        call("opus", 0, true, Some(i64::MAX)),
                    ],
                ),
                session("empty", Vec::new()),
                session("b", vec![call("sonnet", 3, false, Some(1))]),
            ],
            warnings: vec!["w".into()],
        }
    }

    #[test]
    fn the_facts_decode_with_calls_counted_and_the_calls_decode_as_written() {
        let written = digest();
        let bytes = encode(&written).expect("a digest encodes");
        let facts = decode(&bytes).expect("its own bytes decode");
        let kept: Vec<(u64, Vec<&str>)> = facts
            .sessions
            .iter()
            .map(|session| {
                let kept = &session.facts.kept;
                (kept.count, kept.models.iter().map(|m| &**m).collect())
            })
            .collect();
        assert_eq!(
            kept,
            [(3, vec!["haiku", "opus"]), (0, vec![]), (1, vec!["sonnet"])]
        );
        assert!(facts.sessions.iter().all(|s| s.facts.calls.is_empty()));
        // 10 + (u64::MAX - 4) + 0 input tokens: the sum saturates, as a session's does.
        assert_eq!(facts.sessions[0].facts.kept.tokens.input, u64::MAX);
        assert_eq!(facts.sessions[2].facts.kept.tokens.cache_read, 7);
        let lists: Vec<Vec<CountedCall>> = written
            .sessions
            .iter()
            .map(|session| session.facts.calls.clone())
            .collect();
        assert_eq!(calls(&bytes, &facts), lists);
        assert_eq!(facts.warnings, written.warnings);
    }

    #[test]
    fn records_that_do_not_match_the_facts_are_refused() {
        let bytes = encode(&digest()).expect("a digest encodes");
        let head = 8 + usize::try_from(u64::from_le_bytes(le_bytes(&bytes))).unwrap_or(0);
        let short = &bytes[..bytes.len() - RECORD];
        assert_eq!(decode(short), Err(DigestTrouble::Records), "a call missing");
        let long = [&bytes[..], &[0u8; RECORD][..]].concat();
        assert_eq!(
            decode(&long),
            Err(DigestTrouble::Records),
            "a call too many"
        );
        let torn = &bytes[..bytes.len() - 1];
        assert_eq!(decode(torn), Err(DigestTrouble::Records), "a torn record");
        let mut model = bytes.clone();
        model[head..head + 4].copy_from_slice(&2u32.to_le_bytes());
        assert_eq!(
            decode(&model),
            Err(DigestTrouble::Records),
            "a model index past the session's two models"
        );
        let mut flags = bytes.clone();
        flags[head + 4] = 4;
        assert_eq!(decode(&flags), Err(DigestTrouble::Records), "unknown flags");
        assert!(matches!(
            decode(&bytes[..20]),
            Err(DigestTrouble::Records | DigestTrouble::Facts(_))
        ));
    }
}
