//! `parse-bench`: parsing a file's whole history from scratch against reparsing it
//! incrementally, with the same answers checked.
//!
//! Owns: reading every historical version of a few files (`git log --follow` names the
//! path at each commit, one `git cat-file --batch` serves the blobs; consecutive equal
//! blobs count once), then timing, newest first as a lint walks them, each version parsed
//! from scratch (`extract_as`) against the same sequence through a fresh `ParseCache` for
//! each edit script (`LineHunks`, the default, and `CommonEnds`) with splicing off, and
//! through the default cache (`LineHunks`, Python versions spliced). Every cached answer
//! is compared with the full parse's; the tool exits non-zero on any difference. The
//! splice's refusals are listed by level and reason.
//! Does not own: the parsing or the cache (`keel_queries::extract`).
//!
//! Usage: `cargo run --release -p keel-benches --bin parse-bench -- [--repo DIR]
//! [--file PATH]... [--top N] [--runs N]`. Without `--file`, it takes the `--top`
//! (default 5) files at HEAD with an extractor that the most commits touched. Times are
//! the best of `--runs` (default 3). The numbers belong in a closing note, never in a test.

use keel_benches::BlobReader;
use keel_fixtures::pinned_git;
use keel_queries::extract::{
    EditScript, ExtractError, Language, ParseCache, ParseCounts, Unit, extract_as,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Options {
    repo: PathBuf,
    files: Vec<String>,
    top: usize,
    runs: usize,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Self {
            repo: PathBuf::from("."),
            files: Vec::new(),
            top: 5,
            runs: 3,
        };
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--repo" => options.repo = PathBuf::from(value()?),
                "--file" => options.files.push(value()?),
                "--top" => options.top = value()?.parse().map_err(|_| "--top needs a number")?,
                "--runs" => {
                    options.runs = value()?.parse().map_err(|_| "--runs needs a number")?;
                }
                _ => return Err(format!("unknown argument {arg}")),
            }
        }
        options.runs = options.runs.max(1);
        Ok(options)
    }
}

#[global_allocator]
static ALLOCATOR: keel_engine::allocator::Allocator = keel_engine::allocator::Allocator;

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!(
                "{message}\nusage: parse-bench [--repo DIR] [--file PATH]... [--top N] [--runs N]"
            );
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("parse-bench: {message}");
            ExitCode::from(2)
        }
    }
}

/// One version of a file: the path it had and its bytes.
struct Version {
    path: String,
    bytes: Arc<[u8]>,
}

/// What one way of parsing a sequence cost.
#[derive(Default, Clone, Copy)]
struct Timing {
    best: Option<Duration>,
    counts: ParseCounts,
}

impl Timing {
    fn record(&mut self, elapsed: Duration, counts: ParseCounts) {
        self.best = Some(self.best.map_or(elapsed, |best| best.min(elapsed)));
        self.counts = counts;
    }

    fn millis(&self) -> f64 {
        self.best.unwrap_or_default().as_secs_f64() * 1e3
    }
}

/// The cached ways to parse a history: an edit script, and whether Python is spliced.
const MODES: [(EditScript, bool); 3] = [
    (EditScript::LineHunks, false),
    (EditScript::CommonEnds, false),
    (EditScript::LineHunks, true),
];

fn run(options: &Options) -> Result<bool, String> {
    let files = if options.files.is_empty() {
        busiest_files(&options.repo, options.top)?
    } else {
        options.files.clone()
    };
    let mut blobs = BlobReader::spawn(git(&options.repo))?;
    let mut agree = true;
    let (mut total_full, mut total_modes) = (Duration::ZERO, [Duration::ZERO; MODES.len()]);
    let mut total_versions = 0;
    let mut refusals: BTreeMap<String, u64> = BTreeMap::new();
    println!(
        "{:<28} {:>8} {:>8} {:>10} {:>12} {:>7} {:>12} {:>7} {:>10} {:>7}  counts (splice: spliced/in bodies/deep/fallbacks bytes parsed alone; incremental/full/retried)",
        "file",
        "versions",
        "avg KB",
        "full ms",
        "LineHunks ms",
        "ratio",
        "CommonEnds ms",
        "ratio",
        "splice ms",
        "ratio"
    );
    for file in &files {
        let versions = history(&options.repo, file, &mut blobs)?;
        let Some(language) = Language::for_path(file) else {
            println!("{file}: no extractor, skipped");
            continue;
        };
        let (full, reference) = time_full(language, &versions, options.runs);
        let mut modes = [Timing::default(); MODES.len()];
        for (timing, (script, splice)) in modes.iter_mut().zip(MODES) {
            for run in 0..options.runs {
                let mut cache = ParseCache::new(script).splicing(splice);
                let started = Instant::now();
                let answers: Vec<_> = versions
                    .iter()
                    .map(|version| cache.extract(language, &version.path, &version.bytes))
                    .collect();
                timing.record(started.elapsed(), cache.counts());
                if splice && run == 0 {
                    for (level, refusal, count) in cache.splice_refusals() {
                        *refusals
                            .entry(format!("{level:?}: {}", refusal.label()))
                            .or_default() += count;
                    }
                }
                if let Some(index) = (0..answers.len()).find(|&i| answers[i] != reference[i]) {
                    agree = false;
                    println!(
                        "DISAGREEMENT {file} ({script:?}, splice {splice}) at version {index} ({}):\n  full {:?}\n  cached {:?}",
                        versions[index].path, reference[index], answers[index]
                    );
                }
            }
        }
        let bytes: usize = versions.iter().map(|version| version.bytes.len()).sum();
        let average_kb = bytes as f64 / versions.len().max(1) as f64 / 1024.0;
        let counts = modes[2].counts;
        println!(
            "{:<28} {:>8} {:>8.1} {:>10.1} {:>12.1} {:>6.1}x {:>12.1} {:>6.1}x {:>10.1} {:>6.1}x  {}/{}/{}/{} {} KB; {}/{}/{}",
            short(file),
            versions.len(),
            average_kb,
            full.millis(),
            modes[0].millis(),
            full.millis() / modes[0].millis().max(1e-9),
            modes[1].millis(),
            full.millis() / modes[1].millis().max(1e-9),
            modes[2].millis(),
            full.millis() / modes[2].millis().max(1e-9),
            counts.spliced,
            counts.spliced_members,
            counts.spliced_deep,
            counts.splice_fallbacks,
            counts.spliced_bytes / 1024,
            counts.incremental,
            counts.full,
            counts.retried,
        );
        total_versions += versions.len();
        total_full += full.best.unwrap_or_default();
        for (total, timing) in total_modes.iter_mut().zip(&modes) {
            *total += timing.best.unwrap_or_default();
        }
    }
    let millis = |duration: Duration| duration.as_secs_f64() * 1e3;
    println!(
        "{:<28} {:>8} {:>8} {:>10.1} {:>12.1} {:>6.1}x {:>12.1} {:>6.1}x {:>10.1} {:>6.1}x",
        "TOTAL",
        total_versions,
        "",
        millis(total_full),
        millis(total_modes[0]),
        millis(total_full) / millis(total_modes[0]).max(1e-9),
        millis(total_modes[1]),
        millis(total_full) / millis(total_modes[1]).max(1e-9),
        millis(total_modes[2]),
        millis(total_full) / millis(total_modes[2]).max(1e-9),
    );
    if !refusals.is_empty() {
        println!(
            "splice refusals (level: reason count; a member refusal may still splice at the top):"
        );
        for (reason, count) in &refusals {
            println!("  {reason}: {count}");
        }
    }
    if let Some(peak) = peak_rss_kb() {
        println!("peak RSS: {:.1} MB", peak as f64 / 1024.0);
    }
    println!(
        "answers: {}",
        if agree {
            "incremental == spliced == full for every version"
        } else {
            "DIFFER"
        }
    );
    blobs.finish()?;
    Ok(agree)
}

type Answer = Result<Vec<Unit>, ExtractError>;

/// Parses every version from scratch `runs` times; the best time and the answers.
fn time_full(language: Language, versions: &[Version], runs: usize) -> (Timing, Vec<Answer>) {
    let mut timing = Timing::default();
    let mut answers = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        answers = versions
            .iter()
            .map(|version| extract_as(language, &version.bytes))
            .collect();
        let counts = ParseCounts {
            full: versions.len() as u64,
            ..ParseCounts::default()
        };
        timing.record(started.elapsed(), counts);
    }
    (timing, answers)
}

/// The last 28 characters of a path, for the table.
fn short(path: &str) -> &str {
    let skip = path.chars().count().saturating_sub(28);
    path.char_indices()
        .nth(skip)
        .map_or(path, |(at, _)| &path[at..])
}

/// Peak resident set of this process (Linux), in KiB.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A `git` command in `repo` with ambient configuration pinned away.
fn git(repo: &Path) -> std::process::Command {
    let mut command = pinned_git(repo);
    command.args(["-c", "core.quotepath=false"]);
    command
}

fn git_output(repo: &Path, args: &[&str]) -> Result<String, String> {
    let output = git(repo)
        .args(args)
        .output()
        .map_err(|error| format!("cannot run git {}: {error}", args[0]))?;
    if !output.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| format!("git {} printed non-UTF-8", args[0]))
}

/// The `top` files at HEAD with an extractor that the most non-merge commits touched.
fn busiest_files(repo: &Path, top: usize) -> Result<Vec<String>, String> {
    let at_head = git_output(repo, &["ls-tree", "-r", "--name-only", "HEAD"])?;
    let mut touched: BTreeMap<&str, usize> = at_head
        .lines()
        .filter(|path| Language::for_path(path).is_some())
        .map(|path| (path, 0))
        .collect();
    let log = git_output(
        repo,
        &["log", "--no-merges", "--format=", "--name-only", "HEAD"],
    )?;
    for path in log.lines() {
        if let Some(count) = touched.get_mut(path) {
            *count += 1;
        }
    }
    let mut ranked: Vec<(&str, usize)> = touched.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    Ok(ranked
        .into_iter()
        .take(top)
        .map(|(path, _)| path.to_owned())
        .collect())
}

/// Every version of `file` from HEAD back, following renames, newest first; consecutive
/// equal blobs once.
fn history(repo: &Path, file: &str, blobs: &mut BlobReader) -> Result<Vec<Version>, String> {
    let log = git_output(
        repo,
        &[
            "log",
            "--no-merges",
            "--follow",
            "--format=%x01%H",
            "--name-only",
            "HEAD",
            "--",
            file,
        ],
    )?;
    let mut versions: Vec<Version> = Vec::new();
    let mut last_oid = String::new();
    let mut commit = None;
    for line in log.lines() {
        if let Some(hash) = line.strip_prefix('\u{1}') {
            commit = Some(hash.to_owned());
            continue;
        }
        let (Some(hash), false) = (commit.as_ref(), line.is_empty()) else {
            continue;
        };
        // The path as this commit left it; a deletion has no blob there.
        let Some((oid, bytes)) = blobs.read(&format!("{hash}:{line}"))? else {
            continue;
        };
        if oid != last_oid {
            versions.push(Version {
                path: line.to_owned(),
                bytes: Arc::from(bytes),
            });
            last_oid = oid;
        }
    }
    if versions.is_empty() {
        return Err(format!("{file} has no history at HEAD"));
    }
    Ok(versions)
}
