//! Renames: which deleted file became which added file between two trees, exactly as
//! `git diff -M` pairs them (git's default rename detection, pinned in code).
//!
//! Owns: the similarity score (git's span-hash estimate: lines, or 64-byte pieces of
//! longer lines, hashed and counted, CR before LF ignored in text; score = bytes the
//! destination shares with the source over the larger size), and the pairing order git
//! uses — exact renames first (an unused source with the same basename preferred), then
//! sources and destinations whose basename is unique on both sides at 75 % similarity,
//! then the best-four-candidates matrix at 50 %, most similar first, ties to the pair
//! with the same basename, in git's stable order. Nothing is read from git config: no
//! rename limit (every candidate is compared), no copies, no break detection. Every
//! file is treated as a regular file (symbolic links are compared by their target text).
//! [`tree_renames`] memoizes the answer per ordered pair of trees.
//! Does not own: the file-level tree diff (`tree`), nor what a rename means for a
//! lineage (`history`).

use crate::tree::{FileChange, tree_diff};
use keel_engine::objects::ObjectError;
use keel_engine::{Db, Oid};
use std::cmp::Ordering;
use std::sync::Arc;

/// git's full similarity score (100 %).
const MAX_SCORE: u64 = 60_000;
/// git's default `-M` threshold: 50 %.
const MIN_SCORE: u64 = 30_000;
/// The threshold for a pair found by basename alone: halfway from 50 % to 100 %.
const BASENAME_SCORE: u64 = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;
/// How many best sources git remembers per destination in the similarity matrix.
const CANDIDATES_PER_DESTINATION: usize = 4;
/// git hashes a line, or a piece of a line at most this long.
const SPAN_BYTES: usize = 64;
/// The modulus of git's span hash (a prime between 2^16 and 2^17).
const SPAN_HASH_BASE: u32 = 107_927;
/// git calls a blob binary when a NUL byte is in its first this many bytes.
const BINARY_PROBE_BYTES: usize = 8000;
/// git compares at most this many identical sources for one destination.
const IDENTICAL_CANDIDATES: usize = 100;

/// One detected rename.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Rename {
    pub from: String,
    pub to: String,
    /// Similarity out of 60,000 (git's scale; 60,000 is an exact rename).
    pub score: u32,
}

/// The renames between two trees (`old = None`: the empty tree, which has none), in
/// destination path order. Memoized per ordered pair of tree ids, in memory and on disk.
#[salsa::tracked(returns(ref), persist)]
pub fn tree_renames(db: &dyn Db, old: Option<Oid>, new: Oid) -> Result<Arc<[Rename]>, ObjectError> {
    if old.is_none() {
        return Ok(Arc::from([]));
    }
    let changes = tree_diff(db, old, new).clone()?;
    let side = |pick: fn(&FileChange) -> Option<Oid>, other: fn(&FileChange) -> Option<Oid>| {
        changes
            .iter()
            .filter(|c| other(c).is_none())
            .filter_map(|c| pick(c).map(|oid| (c.path.clone(), oid)))
            .collect::<Vec<_>>()
    };
    let deleted = side(|c| c.old, |c| c.new);
    let added = side(|c| c.new, |c| c.old);
    if deleted.is_empty() || added.is_empty() {
        return Ok(Arc::from([]));
    }
    pair_renames(&deleted, &added, |oid| db.objects().blob(oid)).map(Arc::from)
}

/// A file taking part in rename detection.
struct Candidate {
    path: String,
    oid: Oid,
    /// Filled on first use: the blob's size and span counts.
    spans: Option<Spans>,
    used: bool,
}

/// Pairs `deleted` sources with `added` destinations (each sorted by path) the way git's
/// `diffcore_rename` does for `-M` with no limit; `read` gives a blob's bytes.
pub fn pair_renames(
    deleted: &[(String, Oid)],
    added: &[(String, Oid)],
    read: impl Fn(Oid) -> Result<Arc<[u8]>, ObjectError>,
) -> Result<Vec<Rename>, ObjectError> {
    let candidate = |(path, oid): &(String, Oid)| Candidate {
        path: path.clone(),
        oid: *oid,
        spans: None,
        used: false,
    };
    let mut sources: Vec<Candidate> = deleted.iter().map(candidate).collect();
    let mut destinations: Vec<Candidate> = added.iter().map(candidate).collect();
    let mut found: Vec<(usize, Rename)> = Vec::new();
    exact_renames(&mut sources, &mut destinations, &mut found);
    sources.retain(|s| !s.used);
    basename_renames(&mut sources, &mut destinations, &read, &mut found)?;
    sources.retain(|s| !s.used);
    matrix_renames(&mut sources, &mut destinations, &read, &mut found)?;
    found.sort_by_key(|(destination, _)| *destination);
    Ok(found.into_iter().map(|(_, rename)| rename).collect())
}

fn record(
    found: &mut Vec<(usize, Rename)>,
    source: &mut Candidate,
    destination: &mut Candidate,
    index: usize,
    score: u64,
) {
    source.used = true;
    destination.used = true;
    found.push((
        index,
        Rename {
            from: source.path.clone(),
            to: destination.path.clone(),
            // A score never exceeds MAX_SCORE, which fits in u32.
            score: u32::try_from(score).unwrap_or(u32::MAX),
        },
    ));
}

/// Destinations whose blob equals an unused source's: the first source (in path order)
/// that shares the basename, else the first unused one.
fn exact_renames(
    sources: &mut [Candidate],
    destinations: &mut [Candidate],
    found: &mut Vec<(usize, Rename)>,
) {
    let mut by_blob: rustc_hash::FxHashMap<Oid, Vec<usize>> = Default::default();
    for (s, source) in sources.iter().enumerate() {
        by_blob.entry(source.oid).or_default().push(s);
    }
    for (index, destination) in destinations.iter_mut().enumerate() {
        let Some(same_blob) = by_blob.get(&destination.oid) else {
            continue;
        };
        let mut best: Option<(usize, u8)> = None;
        let mut compared = 0;
        for &s in same_blob {
            let source = &sources[s];
            if source.used {
                continue;
            }
            let score = 1 + u8::from(basename_same(&source.path, &destination.path));
            if best.is_none_or(|(_, seen)| score > seen) {
                best = Some((s, score));
                if score == 2 {
                    break;
                }
            }
            compared += 1;
            if compared == IDENTICAL_CANDIDATES {
                break;
            }
        }
        if let Some((s, _)) = best {
            record(found, &mut sources[s], destination, index, MAX_SCORE);
        }
    }
}

/// Sources and destinations whose basename is unique among the remaining ones on both
/// sides, paired when at least [`BASENAME_SCORE`] similar.
fn basename_renames(
    sources: &mut [Candidate],
    destinations: &mut [Candidate],
    read: &impl Fn(Oid) -> Result<Arc<[u8]>, ObjectError>,
    found: &mut Vec<(usize, Rename)>,
) -> Result<(), ObjectError> {
    let unique = |names: Vec<(usize, &str)>| {
        let mut map: rustc_hash::FxHashMap<String, Option<usize>> = Default::default();
        for (index, name) in names {
            map.entry(name.to_owned())
                .and_modify(|slot| *slot = None)
                .or_insert(Some(index));
        }
        map
    };
    let source_names = unique(
        sources
            .iter()
            .enumerate()
            .map(|(i, s)| (i, basename(&s.path)))
            .collect(),
    );
    let destination_names = unique(
        destinations
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.used)
            .map(|(i, d)| (i, basename(&d.path)))
            .collect(),
    );
    for source in sources.iter_mut() {
        let name = basename(&source.path).to_owned();
        let (Some(Some(_)), Some(&Some(d))) =
            (source_names.get(&name), destination_names.get(&name))
        else {
            continue;
        };
        let destination = &mut destinations[d];
        if destination.used {
            continue;
        }
        let score = similarity(source, destination, BASENAME_SCORE, read)?;
        if score >= BASENAME_SCORE {
            record(found, source, destination, d, score);
        }
    }
    Ok(())
}

/// One cell of git's similarity matrix (`dst = None`: an empty slot).
#[derive(Debug, Clone, Copy)]
struct Score {
    source: usize,
    destination: Option<usize>,
    score: u64,
    same_name: bool,
}

/// git's `score_compare`: empty slots last, then higher score, then same basename first.
fn score_order(a: &Score, b: &Score) -> Ordering {
    match (a.destination, b.destination) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        _ => b
            .score
            .cmp(&a.score)
            .then_with(|| b.same_name.cmp(&a.same_name)),
    }
}

/// The remaining pairs: each destination keeps its four best sources; all kept cells,
/// most similar first, are taken while both sides are still free.
fn matrix_renames(
    sources: &mut [Candidate],
    destinations: &mut [Candidate],
    read: &impl Fn(Oid) -> Result<Arc<[u8]>, ObjectError>,
    found: &mut Vec<(usize, Rename)>,
) -> Result<(), ObjectError> {
    if sources.is_empty() || destinations.iter().all(|d| d.used) {
        return Ok(());
    }
    let mut cells: Vec<Score> = Vec::new();
    for (d, destination) in destinations.iter_mut().enumerate() {
        if destination.used {
            continue;
        }
        let mut slots = [Score {
            source: 0,
            destination: None,
            score: 0,
            same_name: false,
        }; CANDIDATES_PER_DESTINATION];
        for (s, source) in sources.iter_mut().enumerate() {
            let cell = Score {
                source: s,
                destination: Some(d),
                score: similarity(source, destination, MIN_SCORE, read)?,
                same_name: basename_same(&source.path, &destination.path),
            };
            let mut worst = 0;
            for i in 1..CANDIDATES_PER_DESTINATION {
                if score_order(&slots[i], &slots[worst]) == Ordering::Greater {
                    worst = i;
                }
            }
            if score_order(&slots[worst], &cell) == Ordering::Greater {
                slots[worst] = cell;
            }
        }
        cells.extend(slots);
    }
    cells.sort_by(score_order);
    for cell in cells {
        let Some(d) = cell.destination else { break };
        if cell.score < MIN_SCORE {
            break;
        }
        if destinations[d].used || sources[cell.source].used {
            continue;
        }
        record(
            found,
            &mut sources[cell.source],
            &mut destinations[d],
            d,
            cell.score,
        );
    }
    Ok(())
}

/// The part of a path after its last `/`.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// git's `basename_same`: do the two paths end in the same file name?
fn basename_same(a: &str, b: &str) -> bool {
    basename(a) == basename(b)
}

/// A blob's size and git's span counts: (hash, bytes) sorted by hash.
struct Spans {
    size: u64,
    counts: Vec<(u32, u64)>,
}

/// git's `estimate_similarity` of two candidates, reading and hashing each blob once.
fn similarity(
    source: &mut Candidate,
    destination: &mut Candidate,
    minimum: u64,
    read: &impl Fn(Oid) -> Result<Arc<[u8]>, ObjectError>,
) -> Result<u64, ObjectError> {
    for candidate in [&mut *source, &mut *destination] {
        if candidate.spans.is_none() {
            candidate.spans = Some(spans(&read(candidate.oid)?));
        }
    }
    let (Some(a), Some(b)) = (&source.spans, &destination.spans) else {
        return Ok(0);
    };
    Ok(score(a, b, minimum))
}

/// The similarity of two span-counted blobs: 0 when their sizes differ too much for
/// `minimum`, else the bytes the destination shares with the source, scaled by the
/// larger size.
fn score(source: &Spans, destination: &Spans, minimum: u64) -> u64 {
    let max = source.size.max(destination.size);
    let delta = max - source.size.min(destination.size);
    if max * (MAX_SCORE - minimum) < delta * MAX_SCORE {
        return 0;
    }
    if destination.size == 0 {
        return 0;
    }
    let copied = shared_bytes(&source.counts, &destination.counts);
    copied * MAX_SCORE / max
}

/// Σ min(source count, destination count) over hashes present in both.
fn shared_bytes(source: &[(u32, u64)], destination: &[(u32, u64)]) -> u64 {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < source.len() && j < destination.len() {
        match source[i].0.cmp(&destination[j].0) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                shared += source[i].1.min(destination[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// git's `hash_chars`: each line (or 64-byte piece of a longer one) hashed, bytes counted
/// per hash; in text, a CR right before a LF is skipped.
fn spans(bytes: &[u8]) -> Spans {
    let text = !bytes[..bytes.len().min(BINARY_PROBE_BYTES)].contains(&0);
    let mut counts: rustc_hash::FxHashMap<u32, u64> = Default::default();
    let (mut accum1, mut accum2, mut n) = (0u32, 0u32, 0u64);
    let mut flush = |accum1: u32, accum2: u32, n: u64| {
        let hash = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % SPAN_HASH_BASE;
        *counts.entry(hash).or_default() += n;
    };
    for (i, &c) in bytes.iter().enumerate() {
        if text && c == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            continue;
        }
        let old1 = accum1;
        accum1 = (accum1 << 7) ^ (accum2 >> 25);
        accum2 = (accum2 << 7) ^ (old1 >> 25);
        accum1 = accum1.wrapping_add(u32::from(c));
        n += 1;
        if n < SPAN_BYTES as u64 && c != b'\n' {
            continue;
        }
        flush(accum1, accum2, n);
        (accum1, accum2, n) = (0, 0, 0);
    }
    if n > 0 {
        flush(accum1, accum2, n);
    }
    let mut counts: Vec<(u32, u64)> = counts.into_iter().collect();
    counts.sort_unstable();
    Spans {
        size: bytes.len() as u64,
        counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pct(a: &str, b: &str) -> u64 {
        score(&spans(a.as_bytes()), &spans(b.as_bytes()), MIN_SCORE) * 100 / MAX_SCORE
    }

    #[test]
    fn identical_text_scores_full_and_unrelated_text_scores_nothing() {
        let text = "alpha\nbeta\ngamma\ndelta\n";
        assert_eq!(pct(text, text), 100);
        assert_eq!(pct(text, "one\ntwo\nthree\nfour\n"), 0);
    }

    #[test]
    fn score_is_shared_bytes_over_the_larger_size() {
        // 4 of 5 equal-length lines shared: 80 % of the bytes.
        let a = "line1\nline2\nline3\nline4\nline5\n";
        let b = "line1\nline2\nline3\nline4\nlineX\n";
        assert_eq!(pct(a, b), 80);
    }

    #[test]
    fn crlf_is_ignored_in_text_but_not_in_binary() {
        let lf = "alpha\nbeta\ngamma\n";
        let crlf = "alpha\r\nbeta\r\ngamma\r\n";
        // Sizes differ by the CRs; every span is shared.
        assert!(pct(crlf, lf) >= 80);
        let binary_lf = "alpha\nbeta\0\ngamma\n";
        let binary_crlf = "alpha\r\nbeta\0\r\ngamma\r\n";
        assert_eq!(pct(binary_crlf, binary_lf), 0);
    }

    #[test]
    fn long_lines_are_hashed_in_64_byte_pieces() {
        let long = "x".repeat(200) + "\n";
        let spans = spans(long.as_bytes());
        let total: u64 = spans.counts.iter().map(|(_, n)| n).sum();
        assert_eq!(total, 201);
        // three full 64-byte pieces share one hash; the 9-byte tail has its own
        assert_eq!(spans.counts.len(), 2);
    }

    fn oid(n: u8) -> Oid {
        // 40 hex digits always spell an object id.
        Oid::from_hex(&format!("{n:040x}")).expect("a 40-digit hex id")
    }

    fn blobs(list: &[(u8, &str)]) -> impl Fn(Oid) -> Result<Arc<[u8]>, ObjectError> + use<> {
        let table: Vec<(Oid, Arc<[u8]>)> = list
            .iter()
            .map(|(n, text)| (oid(*n), Arc::from(text.as_bytes())))
            .collect();
        move |wanted| {
            table
                .iter()
                .find(|(o, _)| *o == wanted)
                .map(|(_, bytes)| bytes.clone())
                .ok_or(ObjectError {
                    oid: wanted,
                    reason: "missing".to_owned(),
                })
        }
    }

    fn paths(renames: &[Rename]) -> Vec<(&str, &str)> {
        renames
            .iter()
            .map(|r| (r.from.as_str(), r.to.as_str()))
            .collect()
    }

    #[test]
    fn exact_renames_prefer_the_same_basename() {
        let deleted = vec![("a/x.py".to_owned(), oid(1)), ("b/y.py".to_owned(), oid(1))];
        let added = vec![("c/y.py".to_owned(), oid(1))];
        let found = pair_renames(&deleted, &added, blobs(&[(1, "same\n")]))
            .expect("every blob is in the table");
        assert_eq!(paths(&found), [("b/y.py", "c/y.py")]);
    }

    #[test]
    fn each_source_is_used_once_and_the_best_pair_wins() {
        let base = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";
        let close = "one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n";
        let far = "one\ntwo\nthree\nfour\nFIVE\nSIX\nSEVEN\nEIGHT\n";
        let deleted = vec![("old.txt".to_owned(), oid(1))];
        let added = vec![("p.txt".to_owned(), oid(2)), ("q.txt".to_owned(), oid(3))];
        let found = pair_renames(&deleted, &added, blobs(&[(1, base), (2, far), (3, close)]))
            .expect("every blob is in the table");
        assert_eq!(paths(&found), [("old.txt", "q.txt")]);
    }

    #[test]
    fn below_half_similar_is_no_rename() {
        let deleted = vec![("a.txt".to_owned(), oid(1))];
        let added = vec![("b.txt".to_owned(), oid(2))];
        let found = pair_renames(
            &deleted,
            &added,
            blobs(&[(1, "a\nb\nc\nd\n"), (2, "a\nx\ny\nz\n")]),
        )
        .expect("every blob is in the table");
        assert!(found.is_empty());
    }
}
