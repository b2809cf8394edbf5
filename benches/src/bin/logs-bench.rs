//! `logs-bench`: reading a large folder of Claude Code logs with keel against the least
//! work that gets the same totals, with both answers checked.
//!
//! Owns: generating a deterministic corpus of Claude Code session files (each assistant
//! message written as one line per content block, every copy repeating the message's
//! usage, with user lines carrying tool output between them — the shape real logs have),
//! then timing (a) keel's read (`ChangeEvent::AgentLogsFrom` + `agent_sessions`, cold), (b) the
//! baseline — every line parsed as a `serde_json::Value`, calls deduplicated by
//! `message.id` per file, tokens summed — and (c) keel again after one line is appended
//! to one file (the warm read). Both sides must report the generator's own call and
//! token totals; the tool exits non-zero when either differs.
//! With `--keel BIN` it times instead the release binary end to end, as users run it:
//! `BIN sessions export --claude-dir CORPUS` cold (each run a new process with a new,
//! empty user cache, `KEEL_CACHE_DIR`), then one line appended to one file and a second
//! process with the cache the last cold run wrote (the warm read: each run from a copy
//! of that cache, so each reads the appended file anew), then a process with nothing
//! changed since, then one with `--no-cache`; each answer summed from the exported
//! records and checked against the generator's totals, beside the baseline (in process,
//! as above). Each figure is the best of the runs, cold and warm alike.
//! Does not own: the reading (`keel_engine::agents`) or the pricing (`keel_queries`).
//!
//! Usage: `cargo run --release -p keel-benches --bin logs-bench -- [--files N]
//! [--messages N] [--runs N] [--keel BIN]` (defaults 1000 files × 250 messages, about 510 MB; best of
//! 3 runs). The numbers belong in a closing note, never in a test.

use keel_engine::agents::{AgentLogs, LogEnv, LogSources, LogSync};
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_queries::agents::{AgentSessions, agent_sessions};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

struct Options {
    files: usize,
    messages: usize,
    runs: usize,
    /// A `keel` binary to time end to end instead of the in-process read.
    keel: Option<PathBuf>,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Self {
            files: 1000,
            messages: 250,
            runs: 3,
            keel: None,
        };
        while let Some(arg) = args.next() {
            let mut number = || -> Result<usize, String> {
                let value = args.next().ok_or(format!("{arg} needs a value"))?;
                value.parse().map_err(|_| format!("{arg} needs a number"))
            };
            match arg.as_str() {
                "--files" => options.files = number()?,
                "--messages" => options.messages = number()?,
                "--runs" => options.runs = number()?.max(1),
                "--keel" => {
                    options.keel = Some(args.next().ok_or("--keel needs a value")?.into());
                }
                _ => return Err(format!("unknown argument {arg}")),
            }
        }
        Ok(options)
    }
}

/// What the generator wrote: the answer both sides must give.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Totals {
    calls: u64,
    tokens: u64,
}

/// A small deterministic generator (64-bit LCG), so every run writes the same corpus.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound
    }
}

#[global_allocator]
static ALLOCATOR: keel_engine::allocator::Allocator = keel_engine::allocator::Allocator;

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!(
                "{message}\nusage: logs-bench [--files N] [--messages N] [--runs N] [--keel BIN]"
            );
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("logs-bench: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(options: &Options) -> Result<bool, String> {
    let corpus = tempfile::tempdir().map_err(|error| error.to_string())?;
    let projects = corpus.path().join("projects");
    let started = Instant::now();
    let (truth, bytes) = generate(&projects, options).map_err(|error| error.to_string())?;
    println!(
        "corpus: {} files, {:.1} MB, {} calls, {} tokens (written in {:.1} s)",
        options.files,
        bytes as f64 / 1e6,
        truth.calls,
        truth.tokens,
        started.elapsed().as_secs_f64()
    );
    if let Some(keel) = &options.keel {
        return binary_runs(keel, corpus.path(), &projects, (truth, bytes), options.runs);
    }
    let mut ok = true;
    let (keel_time, keel_totals) = best_of(options.runs, || keel_read(&projects))?;
    ok &= check("keel", keel_totals, truth);
    let (baseline_time, baseline_totals) = best_of(options.runs, || baseline_read(&projects))?;
    ok &= check("baseline", baseline_totals, truth);
    let (warm_time, warm_ok) = warm_read(&projects, truth)?;
    ok &= warm_ok;
    let rate = |time: Duration| bytes as f64 / 1e6 / time.as_secs_f64();
    println!(
        "keel cold:      {:8.1} ms  {:7.1} MB/s",
        ms(keel_time),
        rate(keel_time)
    );
    println!(
        "baseline:       {:8.1} ms  {:7.1} MB/s  (serde_json::Value per line, dedupe by message.id)",
        ms(baseline_time),
        rate(baseline_time)
    );
    println!(
        "keel / baseline: {:.2}×",
        keel_time.as_secs_f64() / baseline_time.as_secs_f64()
    );
    println!(
        "keel warm (one line appended to one file): {:.1} ms = {:.2}% of cold",
        ms(warm_time),
        100.0 * warm_time.as_secs_f64() / keel_time.as_secs_f64()
    );
    Ok(ok)
}

/// The binary end to end: cold runs (each a new process with a new, empty user cache),
/// then one appended line and a second process with the last cold run's cache (the warm
/// read), then a process without the cache (`--no-cache`) as a check.
fn binary_runs(
    keel: &Path,
    home: &Path,
    projects: &Path,
    (truth, bytes): (Totals, u64),
    runs: usize,
) -> Result<bool, String> {
    let mut ok = true;
    let (baseline, baseline_totals) = best_of(runs, || baseline_read(projects))?;
    ok &= check("baseline", baseline_totals, truth);
    let cache = home.join("cache");
    let (cold, totals) = best_of(runs, || {
        if cache.exists() {
            std::fs::remove_dir_all(&cache).map_err(|error| error.to_string())?;
        }
        binary_export(keel, home, projects, Some(&cache))
    })?;
    ok &= check("keel cold (binary)", totals, truth);
    let written = home.join("cache-written");
    copy_folder(&cache, &written).map_err(|error| format!("copy the cache: {error}"))?;
    append_line(projects)?;
    // Each run from a copy of the cache the cold run wrote, the copy not timed.
    let mut warm = Duration::MAX;
    let mut totals = Totals::default();
    for _ in 0..runs {
        std::fs::remove_dir_all(&cache).map_err(|error| error.to_string())?;
        copy_folder(&written, &cache).map_err(|error| format!("copy the cache: {error}"))?;
        let started = Instant::now();
        totals = binary_export(keel, home, projects, Some(&cache))?;
        warm = warm.min(started.elapsed());
    }
    let expected = Totals {
        calls: truth.calls + 1,
        tokens: truth.tokens + APPENDED_TOKENS,
    };
    ok &= check("keel warm (binary)", totals, expected);
    let (unchanged, totals) = best_of(runs, || binary_export(keel, home, projects, Some(&cache)))?;
    ok &= check("keel, nothing changed (binary)", totals, expected);
    let started = Instant::now();
    let uncached = binary_export(keel, home, projects, None)?;
    let uncached_time = started.elapsed();
    ok &= check(
        "keel --no-cache after the append (binary)",
        uncached,
        expected,
    );
    let rate = |time: Duration| bytes as f64 / 1e6 / time.as_secs_f64();
    println!(
        "keel sessions export, cold (a new, empty cache, written):  {:8.1} ms  {:6.1} MB/s",
        ms(cold),
        rate(cold)
    );
    println!(
        "baseline (in process, serde_json::Value per line):          {:8.1} ms  {:6.1} MB/s",
        ms(baseline),
        rate(baseline)
    );
    println!(
        "keel sessions export --no-cache (after the append):       {:8.1} ms",
        ms(uncached_time)
    );
    println!(
        "keel sessions export, warm (a second process after one line appended to one file): {:.1} ms = {:.2}% of cold",
        ms(warm),
        100.0 * warm.as_secs_f64() / cold.as_secs_f64()
    );
    println!(
        "keel sessions export, nothing changed since the last process: {:.1} ms = {:.2}% of cold",
        ms(unchanged),
        100.0 * unchanged.as_secs_f64() / cold.as_secs_f64()
    );
    println!(
        "the user cache on disk: {:.1} MB ({:.1}% of the logs)",
        folder_bytes(&cache) as f64 / 1e6,
        100.0 * folder_bytes(&cache) as f64 / folder_bytes(projects) as f64
    );
    Ok(ok)
}

/// Copies the folder `from` (files and folders, recursively) to `to`, which must not exist.
fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_folder(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// The bytes of the files under `folder` (what can be read of them).
fn folder_bytes(folder: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => folder_bytes(&entry.path()),
            Ok(_) => entry.metadata().map_or(0, |meta| meta.len()),
            Err(_) => 0,
        })
        .sum()
}

/// One `keel sessions export` process over `projects`, its home (and every default log
/// folder) pointed at `home` so that only the corpus is read, its user cache `cache` (or
/// none: `--no-cache`); the totals of its records.
fn binary_export(
    keel: &Path,
    home: &Path,
    projects: &Path,
    cache: Option<&Path>,
) -> Result<Totals, String> {
    let mut command = std::process::Command::new(keel);
    command
        .args(["sessions", "export", "--claude-dir"])
        .arg(projects)
        .env("HOME", home)
        .env("CODEX_HOME", home.join("codex"))
        .env("GEMINI_CLI_HOME", home.join("gemini"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("XDG_CACHE_HOME")
        .stderr(std::process::Stdio::null());
    match cache {
        Some(cache) => command.env("KEEL_CACHE_DIR", cache),
        None => command.arg("--no-cache").env_remove("KEEL_CACHE_DIR"),
    };
    let output = command
        .output()
        .map_err(|error| format!("{}: {error}", keel.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} sessions export: {}",
            keel.display(),
            output.status
        ));
    }
    let mut totals = Totals::default();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let record: serde_json::Value =
            serde_json::from_str(line).map_err(|error| format!("an exported record: {error}"))?;
        totals.calls += record["api_calls"].as_u64().unwrap_or(0);
        totals.tokens += [
            "input",
            "output",
            "cache_write_5m",
            "cache_write_1h",
            "cache_read",
        ]
        .iter()
        .filter_map(|key| record["tokens"][key].as_u64())
        .sum::<u64>();
    }
    Ok(totals)
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1e3
}

fn check(side: &str, got: Totals, truth: Totals) -> bool {
    if got == truth {
        return true;
    }
    eprintln!("logs-bench: {side} read {got:?}, the corpus holds {truth:?}");
    false
}

fn best_of(
    runs: usize,
    mut measure: impl FnMut() -> Result<Totals, String>,
) -> Result<(Duration, Totals), String> {
    let mut best = Duration::MAX;
    let mut totals = Totals::default();
    for _ in 0..runs {
        let started = Instant::now();
        totals = measure()?;
        best = best.min(started.elapsed());
    }
    Ok((best, totals))
}

fn sources(projects: &Path) -> LogSources {
    LogSources {
        claude_dirs: vec![projects.to_path_buf()],
        codex_dirs: Vec::new(),
        gemini_dirs: Vec::new(),
        opencode_dirs: Vec::new(),
        env: LogEnv::default(),
        cache: None,
    }
}

fn totals_of(sessions: &AgentSessions) -> Totals {
    sessions
        .sessions
        .iter()
        .fold(Totals::default(), |sum, session| Totals {
            calls: sum.calls + session.api_calls,
            tokens: sum.tokens + session.tokens.total(),
        })
}

/// Reads the logs under `projects` into `db` through the one door: the logs input and
/// what the read saw.
fn read_logs(db: &mut KeelDatabase, projects: &Path) -> Result<(AgentLogs, LogSync), String> {
    let read = db
        .apply_changes(&[ChangeEvent::AgentLogsFrom(Box::new(sources(projects)))])
        .map_err(|error| error.to_string())?;
    let logs = db.agent_logs().ok_or("a read made no logs input")?;
    Ok((logs, read.agent_logs.unwrap_or_default()))
}

fn keel_read(projects: &Path) -> Result<Totals, String> {
    let mut db = KeelDatabase::detached();
    let started = Instant::now();
    let (logs, _) = read_logs(&mut db, projects)?;
    let read = started.elapsed();
    let totals = totals_of(agent_sessions(&db, logs));
    println!(
        "keel run: files read and lines parsed in {:.1} ms, sessions claimed and priced in {:.1} ms",
        ms(read),
        ms(started.elapsed() - read)
    );
    Ok(totals)
}

/// Reads cold, appends one assistant line to one file, and times the second read.
fn warm_read(projects: &Path, truth: Totals) -> Result<(Duration, bool), String> {
    let mut db = KeelDatabase::detached();
    let (logs, _) = read_logs(&mut db, projects)?;
    agent_sessions(&db, logs);
    append_line(projects)?;
    let started = Instant::now();
    let (logs, sync) = read_logs(&mut db, projects)?;
    let totals = totals_of(agent_sessions(&db, logs));
    let elapsed = started.elapsed();
    let expected = Totals {
        calls: truth.calls + 1,
        tokens: truth.tokens + APPENDED_TOKENS,
    };
    println!(
        "warm read: {} of {} files read, {} lines parsed",
        sync.files_read, sync.files, sync.lines_parsed
    );
    Ok((elapsed, check("keel warm", totals, expected)))
}

/// The tokens of the line [`append_line`] appends.
const APPENDED_TOKENS: u64 = 7 + 11;

/// Appends one assistant line (one new call) to one file.
fn append_line(projects: &Path) -> Result<(), String> {
    let file = projects.join("-w-app0").join("session-0.jsonl");
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .map_err(|error| format!("{}: {error}", file.display()))?;
    writeln!(
        log,
        "{}",
        assistant_line(
            0,
            "appended",
            "2026-01-01T23:59:59.000Z",
            "{\"type\":\"text\",\"text\":\"ok\"}",
            7,
            11
        )
    )
    .map_err(|error| error.to_string())?;
    Ok(())
}

fn baseline_read(projects: &Path) -> Result<Totals, String> {
    let mut totals = Totals::default();
    for folder in read_dir(projects)? {
        for file in read_dir(&folder)? {
            let text = std::fs::read_to_string(&file)
                .map_err(|error| format!("{}: {error}", file.display()))?;
            let mut seen = HashSet::new();
            for line in text.lines() {
                let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                let message = &value["message"];
                let Some(id) = message["id"].as_str() else {
                    continue;
                };
                if !seen.insert(id.to_owned()) {
                    continue;
                }
                let usage = &message["usage"];
                totals.calls += 1;
                totals.tokens += [
                    "input_tokens",
                    "output_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                ]
                .iter()
                .filter_map(|key| usage[key].as_u64())
                .sum::<u64>();
            }
        }
    }
    Ok(totals)
}

fn read_dir(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(folder).map_err(|error| format!("{}: {error}", folder.display()))?;
    let mut paths = Vec::new();
    for entry in entries {
        paths.push(entry.map_err(|error| error.to_string())?.path());
    }
    paths.sort();
    Ok(paths)
}

/// Writes the corpus: ten project folders, `files` sessions spread over them.
fn generate(projects: &Path, options: &Options) -> std::io::Result<(Totals, u64)> {
    let mut random = Lcg(0x6b65_656c);
    let mut truth = Totals::default();
    let mut bytes = 0;
    for index in 0..options.files {
        let folder = projects.join(format!("-w-app{}", index % 10));
        std::fs::create_dir_all(&folder)?;
        let mut text = String::new();
        for message in 0..options.messages {
            truth.tokens += write_message(&mut text, index, message, &mut random);
            truth.calls += 1;
        }
        bytes += text.len() as u64;
        std::fs::write(folder.join(format!("session-{}.jsonl", index / 10)), text)?;
    }
    Ok((truth, bytes))
}

/// Appends one user turn and one assistant message (one line per content block); returns
/// the message's tokens.
fn write_message(text: &mut String, session: usize, message: usize, random: &mut Lcg) -> u64 {
    let seconds = message * 7;
    let timestamp = format!(
        "2026-01-01T{:02}:{:02}:{:02}.000Z",
        seconds / 3600 % 24,
        seconds / 60 % 60,
        seconds % 60
    );
    let length = 200 + random.next(1500) as usize;
    let output = filler(random, length);
    text.push_str(&format!(
        "{{\"type\":\"user\",\"sessionId\":\"s{session}\",\"uuid\":\"u{session}-{message}\",\"timestamp\":\"{timestamp}\",\"cwd\":\"/w/app\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t{session}-{message}\",\"content\":\"{output}\"}}]}}}}\n"
    ));
    let input = 10 + random.next(5000);
    let output_tokens = 1 + random.next(800);
    let blocks = [
        format!("{{\"type\":\"text\",\"text\":\"{}\"}}", filler(random, 300)),
        format!(
            "{{\"type\":\"tool_use\",\"id\":\"t{session}-{message}\",\"name\":\"Bash\",\"input\":{{\"command\":\"{}\"}}}}",
            filler(random, 60)
        ),
    ];
    let copies = 1 + random.next(2) as usize;
    for block in &blocks[..copies] {
        text.push_str(&assistant_line(
            session,
            &format!("m{session}-{message}"),
            &timestamp,
            block,
            input,
            output_tokens,
        ));
        text.push('\n');
    }
    input + output_tokens
}

fn assistant_line(
    session: usize,
    id: &str,
    timestamp: &str,
    block: &str,
    input: u64,
    output: u64,
) -> String {
    format!(
        "{{\"type\":\"assistant\",\"sessionId\":\"s{session}\",\"uuid\":\"a-{id}-{}\",\"timestamp\":\"{timestamp}\",\"cwd\":\"/w/app\",\"requestId\":\"r-{id}\",\"message\":{{\"id\":\"{id}\",\"model\":\"claude-sonnet-4-5\",\"role\":\"assistant\",\"content\":[{block}],\"usage\":{{\"input_tokens\":{input},\"output_tokens\":{output},\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0}}}}}}",
        block.len()
    )
}

/// Lower-case words, JSON-safe, about `len` bytes.
fn filler(random: &mut Lcg, len: usize) -> String {
    const WORDS: [&str; 8] = [
        "return", "self", "value", "lint", "drift", "commit", "spec", "node",
    ];
    let mut text = String::with_capacity(len + 8);
    while text.len() < len {
        text.push_str(WORDS[random.next(8) as usize]);
        text.push(' ');
    }
    text
}
