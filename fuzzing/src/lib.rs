//! keel-fuzzing: a fuzz target for every reader of outside bytes, and the structure-aware
//! random testing that drives them on the stable toolchain.
//!
//! Owns: the list of readers ([`READERS`]: `spec.md` frontmatter, `keel.toml`,
//! `sessions.jsonl`, `decisions.jsonl`, `READINGS.jsonl`, Claude Code, Codex, Gemini CLI
//! and OpenCode logs, the unified-diff patch, git trailers), each with its target
//! ([`targets`]: the reader plus the invariants it must keep), its seed corpus ([`corpus`]: the tests' own inputs and
//! fixtures) and its format's tokens ([`mutate`]); the driver [`run`], which mutates seeds
//! deterministically, catches every panic and keeps one input per crash site, and
//! [`minimize`], which shrinks a crashing input.
//! Does not own: the readers (`keel-engine`, `keel-queries`); the long run and its report
//! (`keel-benches`' `fuzz-bench`); coverage-guided fuzzing (the cargo-fuzz crate in
//! `fuzz/`, which calls the same targets).

pub mod corpus;
mod literals;
pub mod mutate;
mod panics;
pub mod targets;

use mutate::{Mutator, Tokens};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// One reader of outside bytes, as a fuzz target.
#[derive(Clone, Copy)]
pub struct Reader {
    /// The name `fuzz-bench --reader` and the cargo-fuzz target use.
    pub name: &'static str,
    /// Reads one input and checks its invariants; a panic is a crash.
    pub target: fn(&[u8]),
    /// The seed corpus.
    pub seeds: fn() -> Vec<Vec<u8>>,
    /// The format's tokens the mutator inserts.
    pub tokens: Tokens,
}

/// Every reader of outside bytes.
pub const READERS: [Reader; 11] = [
    Reader {
        name: "spec",
        target: targets::spec,
        seeds: corpus::spec,
        tokens: mutate::SPEC,
    },
    Reader {
        name: "settings",
        target: targets::settings,
        seeds: corpus::settings,
        tokens: mutate::SETTINGS,
    },
    Reader {
        name: "sessions",
        target: targets::sessions,
        seeds: corpus::sessions,
        tokens: mutate::SESSIONS,
    },
    Reader {
        name: "decisions",
        target: targets::decisions,
        seeds: corpus::decisions,
        tokens: mutate::SESSIONS,
    },
    Reader {
        name: "readings",
        target: targets::readings,
        seeds: corpus::readings,
        tokens: mutate::READINGS,
    },
    Reader {
        name: "claude",
        target: targets::claude,
        seeds: corpus::claude,
        tokens: mutate::CLAUDE,
    },
    Reader {
        name: "codex",
        target: targets::codex,
        seeds: corpus::codex,
        tokens: mutate::CODEX,
    },
    Reader {
        name: "gemini",
        target: targets::gemini,
        seeds: corpus::gemini,
        tokens: mutate::GEMINI,
    },
    Reader {
        name: "opencode",
        target: targets::opencode,
        seeds: corpus::opencode,
        tokens: mutate::OPENCODE,
    },
    Reader {
        name: "patch",
        target: targets::patch,
        seeds: corpus::patch,
        tokens: mutate::PATCH,
    },
    Reader {
        name: "trailers",
        target: targets::trailers,
        seeds: corpus::trailers,
        tokens: mutate::TRAILERS,
    },
];

/// The reader called `name`.
pub fn reader(name: &str) -> Option<&'static Reader> {
    READERS.iter().find(|reader| reader.name == name)
}

/// Every input that panicked at one place with one kind of message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// Where the panic was raised (`file:line:column`).
    pub location: String,
    /// The message's words that do not come from the input ([`kind`]): with the location,
    /// what tells two crashes apart.
    pub kind: String,
    /// The panic's message for the shortest input.
    pub message: String,
    /// The shortest input seen panicking there.
    pub input: Vec<u8>,
    /// How many executions panicked there.
    pub hits: u64,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub reader: &'static str,
    pub executions: u64,
    /// One per crash site (location and kind), in that order.
    pub crashes: Vec<Crash>,
    pub elapsed: Duration,
}

impl RunReport {
    /// How many executions crashed, over every site.
    pub fn crashing_executions(&self) -> u64 {
        self.crashes.iter().map(|crash| crash.hits).sum()
    }

    /// Executions per second.
    pub fn rate(&self) -> f64 {
        self.executions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Two runs of one reader (on two threads) as one: executions add up, crashes merge
    /// by site, the time is the longer one.
    pub fn merge(self, other: RunReport) -> RunReport {
        let mut sites = Sites::default();
        for crash in self.crashes.into_iter().chain(other.crashes) {
            sites.add(crash);
        }
        RunReport {
            reader: self.reader,
            executions: self.executions + other.executions,
            crashes: sites.into_crashes(),
            elapsed: self.elapsed.max(other.elapsed),
        }
    }
}

/// A panic message's words that do not come from the input, as far as a message shows:
/// up to 12 words outside backtick spans holding no quote and no digit. One check that
/// fails on two kinds of reader message (a near-miss key, a path outside the repository)
/// raises two kinds of crash at one location.
pub fn kind(message: &str) -> String {
    let mut in_backticks = false;
    let mut words = Vec::new();
    for word in message.split_whitespace() {
        let ticks = word.matches('`').count();
        let quoted = ticks > 0 || word.contains(['"', '\'', '\\']);
        if !in_backticks && !quoted && !word.contains(|c: char| c.is_ascii_digit()) {
            words.push(word);
        }
        in_backticks ^= ticks % 2 == 1;
        if words.len() == 12 {
            break;
        }
    }
    words.join(" ")
}

/// Crashes by location and kind, keeping the shortest input of each.
#[derive(Default)]
struct Sites(BTreeMap<(String, String), Crash>);

impl Sites {
    fn add(&mut self, crash: Crash) {
        let site = (crash.location.clone(), crash.kind.clone());
        match self.0.get_mut(&site) {
            Some(known) => {
                known.hits += crash.hits;
                if crash.input.len() < known.input.len() {
                    known.input = crash.input;
                    known.message = crash.message;
                }
            }
            None => {
                self.0.insert(site, crash);
            }
        }
    }

    fn into_crashes(self) -> Vec<Crash> {
        self.0.into_values().collect()
    }
}

/// Runs `reader`'s target `executions` times: first each seed as written, then mutated
/// seeds (sometimes the previous input mutated again), all determined by `seed`.
pub fn run(reader: &Reader, executions: u64, seed: u64) -> RunReport {
    let seeds = (reader.seeds)();
    let mut mutator = Mutator::new(seed);
    let mut sites = Sites::default();
    let mut previous = Vec::new();
    let started = Instant::now();
    for execution in 0..executions {
        let input = next_input(execution, &seeds, &previous, &mut mutator, reader.tokens);
        if let Some(crash) = replay(reader.target, &input) {
            sites.add(crash);
        }
        previous = input;
    }
    RunReport {
        reader: reader.name,
        executions,
        crashes: sites.into_crashes(),
        elapsed: started.elapsed(),
    }
}

fn next_input(
    execution: u64,
    seeds: &[Vec<u8>],
    previous: &[u8],
    mutator: &mut Mutator,
    tokens: Tokens,
) -> Vec<u8> {
    if let Some(seed) = usize::try_from(execution).ok().and_then(|n| seeds.get(n)) {
        return seed.clone();
    }
    let base = if mutator.below(4) == 0 {
        previous
    } else {
        seeds
            .get(mutator.below(seeds.len()))
            .map_or(&[][..], Vec::as_slice)
    };
    mutator.mutate(base, seeds, tokens)
}

/// Runs `target` once on `input`: the crash, if it panics (one hit).
pub fn replay(target: fn(&[u8]), input: &[u8]) -> Option<Crash> {
    let panic = panics::catch(target, input).err()?;
    Some(Crash {
        location: panic.location,
        kind: kind(&panic.message),
        message: panic.message,
        input: input.to_vec(),
        hits: 1,
    })
}

/// The crash with its input shrunk while `target` still panics there with the same kind
/// of message (and that panic's message): chunks are deleted, halving their size when
/// none can go, within `budget` tries.
pub fn minimize(target: fn(&[u8]), crash: &Crash, budget: usize) -> Crash {
    let same_site =
        |candidate: &Crash| candidate.location == crash.location && candidate.kind == crash.kind;
    let mut shrunk = crash.clone();
    let mut chunk = shrunk.input.len().div_ceil(2);
    let mut tries = 0;
    while chunk > 0 && tries < budget {
        let mut removed = false;
        let mut at = 0;
        while at < shrunk.input.len() && tries < budget {
            let end = (at + chunk).min(shrunk.input.len());
            let candidate = [&shrunk.input[..at], &shrunk.input[end..]].concat();
            tries += 1;
            match replay(target, &candidate) {
                Some(smaller) if same_site(&smaller) => {
                    shrunk.input = smaller.input;
                    shrunk.message = smaller.message;
                    removed = true;
                }
                _ => at += chunk,
            }
        }
        if !removed {
            chunk /= 2;
        }
    }
    shrunk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_keeps_the_words_that_do_not_come_from_the_input() {
        let near_miss = |key: &str| {
            kind(&format!(
                "spec: an error spans lines: \"x.md:2: frontmatter key `{key}` is a near-miss of it\""
            ))
        };
        assert_eq!(near_miss("Co\\ne"), near_miss("a b\\nc d"));
        assert_eq!(
            near_miss("k"),
            "spec: an error spans lines: frontmatter key is a near-miss of"
        );
        assert_ne!(
            near_miss("k"),
            kind("spec: an error spans lines: \"x.md:2: `a\\nb` is outside the repository\"")
        );
    }
}
