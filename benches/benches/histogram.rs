//! Benchmark: keel's pinned histogram diff against imara-diff's histogram on the same
//! file pairs.
//!
//! Owns: the speed comparison of `keel_queries::diff::line_hunks` (git-exact histogram,
//! compaction, hunks) with `gix_imara_diff` doing the same job (histogram, slider
//! postprocessing without heuristic, hunks), on seeded generated pairs of two kinds:
//! code-like files with scattered edits, and repetitive files whose lines mostly occur
//! past the histogram's occurrence limit (both diffs then fall back to Myers).
//! Does not own: correctness (`diff_against_git`, `diff-agree`).
//!
//! Run: `cargo bench -p keel-benches --bench histogram`.

use divan::{Bencher, black_box};
use gix_imara_diff::{Algorithm, Diff, InternedInput};
use keel_fixtures::rng::SeededRng as Rng;
use keel_queries::diff::{Hunk, line_hunks};

fn main() {
    divan::main();
}

/// Lines per old file.
const SIZES: &[usize] = &[100, 1_000, 10_000];

/// Pairs per corpus, so one sample covers several shapes of edit.
const PAIRS: usize = 8;

struct Pair {
    old: Vec<u8>,
    new: Vec<u8>,
}

fn keel_hunks(pairs: &[Pair]) -> usize {
    pairs
        .iter()
        .map(|pair| black_box(line_hunks(&pair.old, &pair.new)).len())
        .sum()
}

fn imara_hunks(pairs: &[Pair]) -> usize {
    pairs
        .iter()
        .map(|pair| {
            let input = InternedInput::new(pair.old.as_slice(), pair.new.as_slice());
            let mut diff = Diff::compute(Algorithm::Histogram, &input);
            diff.postprocess_no_heuristic(&input);
            let hunks: Vec<Hunk> = diff
                .hunks()
                .map(|hunk| Hunk {
                    before: hunk.before,
                    after: hunk.after,
                })
                .collect();
            black_box(hunks).len()
        })
        .sum()
}

mod code {
    use super::*;

    #[divan::bench(args = SIZES)]
    fn keel(bencher: Bencher, lines: usize) {
        let pairs = corpus(lines, Shape::Code);
        bencher.bench(|| keel_hunks(&pairs));
    }

    #[divan::bench(args = SIZES)]
    fn imara(bencher: Bencher, lines: usize) {
        let pairs = corpus(lines, Shape::Code);
        bencher.bench(|| imara_hunks(&pairs));
    }
}

mod repetitive {
    use super::*;

    #[divan::bench(args = SIZES)]
    fn keel(bencher: Bencher, lines: usize) {
        let pairs = corpus(lines, Shape::Repetitive);
        bencher.bench(|| keel_hunks(&pairs));
    }

    #[divan::bench(args = SIZES)]
    fn imara(bencher: Bencher, lines: usize) {
        let pairs = corpus(lines, Shape::Repetitive);
        bencher.bench(|| imara_hunks(&pairs));
    }
}

#[derive(Clone, Copy)]
enum Shape {
    /// Functions of a few distinct statements, blank lines and closing lines between.
    Code,
    /// Lines drawn from a handful of distinct lines.
    Repetitive,
}

fn corpus(lines: usize, shape: Shape) -> Vec<Pair> {
    let mut rng = Rng::new(lines as u64 ^ 0x6469_6666);
    (0..PAIRS)
        .map(|_| {
            let old = match shape {
                Shape::Code => code_file(&mut rng, lines),
                Shape::Repetitive => repetitive_file(&mut rng, lines),
            };
            let new = edit(&mut rng, &old, shape);
            Pair {
                old: join(&old),
                new: join(&new),
            }
        })
        .collect()
}

fn code_file(rng: &mut Rng, lines: usize) -> Vec<String> {
    let mut file = Vec::with_capacity(lines);
    let mut function = 0;
    while file.len() < lines {
        file.push(format!("def function_{function}(value):"));
        for statement in 0..1 + rng.below(8) {
            file.push(code_line(rng, function, statement));
        }
        file.push("    return value".to_string());
        file.push(String::new());
        function += 1;
    }
    file.truncate(lines);
    file
}

fn code_line(rng: &mut Rng, function: usize, statement: usize) -> String {
    match rng.below(6) {
        0 => "    value = value + 1".to_string(),
        1 => "        pass".to_string(),
        _ => format!("    value = transform_{statement}(value, {function})"),
    }
}

fn repetitive_file(rng: &mut Rng, lines: usize) -> Vec<String> {
    let alphabet = ["", "}", "    return;", "    break;", "{"];
    (0..lines)
        .map(|_| alphabet[rng.below(alphabet.len())].to_string())
        .collect()
}

/// Replaces, inserts, deletes and moves short runs: about one edit per 25 lines.
fn edit(rng: &mut Rng, old: &[String], shape: Shape) -> Vec<String> {
    let mut new = old.to_vec();
    for edit in 0..1 + old.len() / 25 {
        let at = rng.below(new.len() + 1);
        let end = (at + 1 + rng.below(6)).min(new.len());
        let fresh = |rng: &mut Rng| match shape {
            Shape::Code => {
                let statement = rng.below(50);
                code_line(rng, 100_000 + edit, statement)
            }
            Shape::Repetitive => repetitive_file(rng, 1).remove(0),
        };
        match rng.below(4) {
            0 => new[at..end].iter_mut().for_each(|line| *line = fresh(rng)),
            1 => {
                let run: Vec<String> = (0..1 + rng.below(6)).map(|_| fresh(rng)).collect();
                new.splice(at..at, run);
            }
            2 => {
                new.drain(at..end);
            }
            _ => {
                let run: Vec<String> = new.drain(at..end).collect();
                let to = rng.below(new.len() + 1);
                new.splice(to..to, run);
            }
        }
    }
    new
}

fn join(lines: &[String]) -> Vec<u8> {
    let mut text = Vec::new();
    for line in lines {
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
    }
    text
}
