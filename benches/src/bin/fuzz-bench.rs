//! `fuzz-bench`: the long run of keel's fuzz targets — millions of structure-aware random
//! inputs per reader of outside bytes, with the executions, crashes and speed reported.
//!
//! Owns: splitting each reader's executions over threads and into batches (each batch its
//! own seed, so a run is reproducible from `--seed`), the per-reader report (executions,
//! crashing executions and crash sites, executions per second), shrinking each crash's
//! input and writing it to `--crashes DIR`, replaying one file (`--replay FILE`: a
//! crash's reproducer, run once) and writing the seed corpora for cargo-fuzz
//! (`--write-corpus DIR`).
//! Does not own: the targets, the mutator or the driver (`keel-fuzzing`).
//!
//! Usage: `cargo run --release -p keel-benches --bin fuzz-bench -- [--executions N]
//! [--reader NAME]... [--threads N] [--seed N] [--crashes DIR] [--replay FILE]
//! [--write-corpus DIR]` (defaults: 10,000,000 executions per reader, every reader, one
//! thread per core, seed 1, crashes written nowhere). Exits 1 when anything crashed. A
//! crash that is no panic (a stack overflow, an abort) ends the process: cargo-fuzz
//! (`fuzz/`) catches those.
//! The numbers belong in a closing note, never in a test.

use keel_fuzzing::{Crash, READERS, Reader, RunReport, minimize, reader, replay, run};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Executions per thread between two progress lines.
const BATCH: u64 = 250_000;
/// Tries the shrinking of one crashing input may take.
const SHRINK_BUDGET: usize = 5_000;
/// A fuzzing thread's stack: a main thread's 8 MiB, so a reader's recursion fails here
/// only where it would fail in `keel` itself.
const STACK_BYTES: usize = 8 << 20;

struct Options {
    executions: u64,
    readers: Vec<&'static Reader>,
    threads: u64,
    seed: u64,
    crashes: Option<PathBuf>,
    write_corpus: Option<PathBuf>,
    replay: Option<PathBuf>,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        let mut options = Self {
            executions: 10_000_000,
            readers: Vec::new(),
            threads: cores,
            seed: 1,
            crashes: None,
            write_corpus: None,
            replay: None,
        };
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--executions" => options.executions = number(&arg, &value()?)?,
                "--threads" => options.threads = number(&arg, &value()?)?.max(1),
                "--seed" => options.seed = number(&arg, &value()?)?,
                "--crashes" => options.crashes = Some(PathBuf::from(value()?)),
                "--write-corpus" => options.write_corpus = Some(PathBuf::from(value()?)),
                "--replay" => options.replay = Some(PathBuf::from(value()?)),
                "--reader" => {
                    let name = value()?;
                    let known: Vec<&str> = READERS.iter().map(|r| r.name).collect();
                    let found = reader(&name).ok_or(format!(
                        "no reader {name:?}; the readers are {}",
                        known.join(", ")
                    ))?;
                    options.readers.push(found);
                }
                _ => return Err(format!("unknown argument {arg}")),
            }
        }
        if options.readers.is_empty() {
            options.readers = READERS.iter().collect();
        }
        Ok(options)
    }
}

fn number(flag: &str, text: &str) -> Result<u64, String> {
    text.replace('_', "")
        .parse()
        .map_err(|_| format!("{flag} needs a number"))
}

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!(
                "{message}\nusage: fuzz-bench [--executions N] [--reader NAME]... [--threads N] [--seed N] [--crashes DIR] [--write-corpus DIR] [--replay FILE]"
            );
            return ExitCode::from(2);
        }
    };
    let outcome = match (&options.write_corpus, &options.replay) {
        (Some(dir), _) => write_corpus(&options.readers, dir).map(|()| true),
        (None, Some(file)) => replay_file(&options.readers, file),
        (None, None) => long_run(&options),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("fuzz-bench: {message}");
            ExitCode::from(2)
        }
    }
}

/// Runs each reader's target once on the bytes of `file`; true when none crashed.
fn replay_file(readers: &[&Reader], file: &Path) -> Result<bool, String> {
    let bytes =
        std::fs::read(file).map_err(|err| format!("cannot read {}: {err}", file.display()))?;
    let mut clean = true;
    for reader in readers {
        match replay(reader.target, &bytes) {
            Some(crash) => {
                println!(
                    "{}: crash at {}: {}",
                    reader.name, crash.location, crash.message
                );
                clean = false;
            }
            None => println!("{}: no crash", reader.name),
        }
    }
    Ok(clean)
}

/// Writes each reader's seeds to `dir/<reader>/seed-<n>` (a cargo-fuzz corpus folder).
fn write_corpus(readers: &[&Reader], dir: &Path) -> Result<(), String> {
    for reader in readers {
        let folder = dir.join(reader.name);
        std::fs::create_dir_all(&folder)
            .map_err(|err| format!("cannot create {}: {err}", folder.display()))?;
        let seeds = (reader.seeds)();
        for (index, seed) in seeds.iter().enumerate() {
            let path = folder.join(format!("seed-{index:04}"));
            std::fs::write(&path, seed)
                .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        }
        println!(
            "{}: {} seeds in {}",
            reader.name,
            seeds.len(),
            folder.display()
        );
    }
    Ok(())
}

/// Runs every reader in turn; true when nothing crashed.
fn long_run(options: &Options) -> Result<bool, String> {
    println!(
        "{:<10} {:>12} {:>9} {:>6} {:>10} {:>9}",
        "reader", "executions", "crashes", "sites", "exec/s", "seconds"
    );
    let mut clean = true;
    for reader in &options.readers {
        let report = run_reader(reader, options)?;
        println!(
            "{:<10} {:>12} {:>9} {:>6} {:>10.0} {:>9.1}",
            report.reader,
            report.executions,
            report.crashing_executions(),
            report.crashes.len(),
            report.rate(),
            report.elapsed.as_secs_f64()
        );
        for (index, crash) in report.crashes.iter().enumerate() {
            report_crash(reader, index, crash, options.crashes.as_deref())?;
        }
        clean &= report.crashes.is_empty();
    }
    Ok(clean)
}

/// One reader's executions over the threads, batch by batch, each batch seeded from the
/// run's seed, the reader and the batch's index.
fn run_reader(reader: &Reader, options: &Options) -> Result<RunReport, String> {
    let started = Instant::now();
    let per_batch = BATCH * options.threads;
    let batches = options.executions.div_ceil(per_batch);
    let mut total: Option<RunReport> = None;
    for batch in 0..batches {
        let left = options.executions - batch * per_batch;
        let this_batch = left.min(per_batch);
        let report = run_batch(reader, this_batch, options, batch)?;
        let merged = match total.take() {
            Some(so_far) => so_far.merge(report),
            None => report,
        };
        eprintln!(
            "  {}: {} executions, {} crashing, {:.0} exec/s",
            reader.name,
            merged.executions,
            merged.crashing_executions(),
            merged.executions as f64 / started.elapsed().as_secs_f64().max(1e-9)
        );
        total = Some(merged);
    }
    let mut report = total.unwrap_or_else(|| run(reader, 0, options.seed));
    report.elapsed = started.elapsed();
    Ok(report)
}

/// `executions` split over the threads, run at once.
fn run_batch(
    reader: &Reader,
    executions: u64,
    options: &Options,
    batch: u64,
) -> Result<RunReport, String> {
    let threads = options.threads.min(executions.max(1));
    std::thread::scope(|scope| {
        let handles = (0..threads)
            .map(|thread| {
                let share = executions / threads + u64::from(thread < executions % threads);
                let seed = seed_of(options.seed, reader.name, batch * threads + thread);
                std::thread::Builder::new()
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(scope, move || run(reader, share, seed))
                    .map_err(|err| format!("cannot start a fuzzing thread: {err}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut reports = Vec::new();
        for handle in handles {
            // The driver catches a target's panics; one here is the driver's own.
            let report = handle
                .join()
                .map_err(|_| format!("a {} fuzzing thread panicked", reader.name))?;
            reports.push(report);
        }
        Ok(reports
            .into_iter()
            .reduce(RunReport::merge)
            .unwrap_or_else(|| run(reader, 0, options.seed)))
    })
}

/// The seed of one thread's batch: the run's seed, the reader's name and the index mixed.
fn seed_of(seed: u64, name: &str, index: u64) -> u64 {
    let name_hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ name_hash ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// At most 600 characters of `bytes` (lossily UTF-8), escaped as a Rust string.
fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let head: String = text.chars().take(600).collect();
    let more = text.chars().count().saturating_sub(600);
    if more == 0 {
        format!("{head:?}")
    } else {
        format!("{head:?} (and {more} characters more)")
    }
}

/// Prints one crash site with its shrunk input; writes the input under `dir` if given.
fn report_crash(
    reader: &Reader,
    index: usize,
    crash: &Crash,
    dir: Option<&Path>,
) -> Result<(), String> {
    let shrunk = minimize(reader.target, crash, SHRINK_BUDGET);
    println!(
        "  crash {} at {} ({} executions): {}",
        index + 1,
        crash.location,
        crash.hits,
        shown(shrunk.message.as_bytes())
    );
    println!(
        "    shrunk input ({} of {} bytes): {}",
        shrunk.input.len(),
        crash.input.len(),
        shown(&shrunk.input)
    );
    let Some(dir) = dir else {
        return Ok(());
    };
    std::fs::create_dir_all(dir)
        .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    for (suffix, bytes) in [("input", &crash.input), ("shrunk", &shrunk.input)] {
        let path = dir.join(format!("{}-{}.{suffix}", reader.name, index + 1));
        std::fs::write(&path, bytes)
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    }
    Ok(())
}
