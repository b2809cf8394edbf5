//! `hostile-bench [--runs R] [--depths D,..] [--megabytes M,..]`: keel's cost on hostile
//! input as the input grows, each row beside a baseline doing the same work.
//!
//! Two tables:
//! - **Deep frontmatter.** A spec whose frontmatter nests D flow levels (`x: [[[…]]]`)
//!   under an ignored key, against the same repository with a flat frontmatter of the same
//!   size. Checked: the deep one is refused (exit 2, naming `.spec/app/spec.md`), the flat
//!   one lints clean (exit 0). Bounded means the refusal's time stays flat as D grows.
//! - **A huge anchored file.** `big.py` of M megabytes anchored at `big.py#f`, then two
//!   commits changing a line each, linted with the default `[lint] max_file_bytes`, beside
//!   `git log -p --histogram` of the same two commits (git's own diff walk, for scale: keel
//!   deliberately neither parses nor diffs such a file, so no ratio is printed). Checked: keel
//!   reports `too-large` at the tip and one `anchor-hit` with both commits, conservative;
//!   git's walk shows the same two commits. Peak RSS comes from `/usr/bin/time` when the
//!   host has it.
//!
//! Owns: building those repositories, timing and checking. Needs the release `keel`
//! binary next to this one (`cargo build --release` builds both).

use keel_benches::{quiet_git, release_keel};
use keel_fixtures::FixtureRepo;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, ExitCode, Output};
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hostile-bench: {message}");
            ExitCode::from(2)
        }
    }
}

struct Options {
    runs: usize,
    depths: Vec<usize>,
    megabytes: Vec<usize>,
}

fn options() -> Result<Options, String> {
    let usage = "usage: hostile-bench [--runs R] [--depths D,..] [--megabytes M,..]";
    let mut options = Options {
        runs: 3,
        depths: vec![1_000, 10_000, 100_000],
        megabytes: vec![5, 10, 25, 50],
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(usage)?;
        let list = || -> Result<Vec<usize>, String> {
            value
                .split(',')
                .map(|n| n.parse::<usize>().ok().filter(|&n| n > 0).ok_or(usage))
                .collect::<Result<_, _>>()
                .map_err(str::to_owned)
        };
        match flag.as_str() {
            "--runs" => options.runs = list()?.first().copied().ok_or(usage)?,
            "--depths" => options.depths = list()?,
            "--megabytes" => options.megabytes = list()?,
            _ => return Err(usage.to_owned()),
        }
    }
    Ok(options)
}

fn run() -> Result<(), String> {
    let options = options()?;
    let keel = release_keel()?;
    println!("deep frontmatter (best of {} runs)", options.runs);
    println!("| nesting | spec bytes | keel, deep (refused) | keel, flat (judged) | ratio |");
    println!("|---|---|---|---|---|");
    for &depth in &options.depths {
        deep_row(&keel, depth, options.runs)?;
    }
    println!();
    println!("huge anchored file (best of {} runs)", options.runs);
    println!("| file | keel lint | keel peak RSS | git log -p (git's diff walk, for scale) |");
    println!("|---|---|---|---|");
    for &megabytes in &options.megabytes {
        large_row(&keel, megabytes, options.runs)?;
    }
    Ok(())
}

/// A repository holding `app.py` and the node `app` with `spec`.
fn spec_repo(spec: &str) -> Result<FixtureRepo, String> {
    let mut repo = FixtureRepo::new().map_err(|e| e.to_string())?;
    repo.write("app.py", "def f():\n    return 0\n")
        .and_then(|r| r.write(".spec/app/spec.md", spec))
        .map_err(|e| e.to_string())?;
    repo.commit("Add app and its spec")
        .map_err(|e| e.to_string())?;
    Ok(repo)
}

fn deep_row(keel: &Path, depth: usize, runs: usize) -> Result<(), String> {
    let deep_value = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let flat_value = format!("\"{}\"", "a".repeat(deep_value.len() - 2));
    let spec = |value: &str| format!("---\nx: {value}\ncode:\n  - app.py#f\n---\n");
    let deep = spec_repo(&spec(&deep_value))?;
    let flat = spec_repo(&spec(&flat_value))?;
    let (deep_time, output) = best_of(runs, || lint(keel, deep.path(), &[]))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() != Some(2) || !stderr.contains(".spec/app/spec.md:") {
        return Err(format!(
            "the {depth}-deep spec was not refused naming it: {stderr}"
        ));
    }
    let (flat_time, output) = best_of(runs, || lint(keel, flat.path(), &[]))?;
    if output.status.code() != Some(0) {
        return Err(format!(
            "the flat spec did not lint clean: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    println!(
        "| {depth} | {} | {} | {} | {:.2}× |",
        spec(&deep_value).len(),
        millis(deep_time),
        millis(flat_time),
        deep_time.as_secs_f64() / flat_time.as_secs_f64()
    );
    Ok(())
}

/// A repository whose first commit anchors `big.py#f` in a file of about `megabytes`
/// MB, then two commits that each change one line far from `f`.
fn large_repo(megabytes: usize) -> Result<FixtureRepo, String> {
    let mut text = String::from("def f(x):\n    return x\n\n");
    let mut index = 0;
    while text.len() < megabytes * 1_000_000 {
        text.push_str(&format!(
            "def g{index}(a, b):\n    c = a + b * {index}\n    return c\n\n"
        ));
        index += 1;
    }
    let mut repo = FixtureRepo::new().map_err(|e| e.to_string())?;
    repo.write("big.py", &text)
        .and_then(|r| r.write(".spec/app/spec.md", "---\ncode:\n  - big.py#f\n---\n"))
        .map_err(|e| e.to_string())?;
    repo.commit("Add big and its spec")
        .map_err(|e| e.to_string())?;
    for (number, at) in [(1, index / 3), (2, 2 * index / 3)] {
        let from = format!("    c = a + b * {at}\n");
        text = text.replacen(&from, &format!("    c = a - b * {at}\n"), 1);
        repo.write("big.py", &text).map_err(|e| e.to_string())?;
        repo.commit(&format!("Change big {number}"))
            .map_err(|e| e.to_string())?;
    }
    Ok(repo)
}

fn large_row(keel: &Path, megabytes: usize, runs: usize) -> Result<(), String> {
    let repo = large_repo(megabytes)?;
    let (keel_time, output) = best_of(runs, || lint(keel, repo.path(), &["--format", "json"]))?;
    check_large_report(&output)?;
    let rss = peak_rss(keel, repo.path()).map_or_else(|| "n/a".to_owned(), mib);
    let (git_time, output) = best_of(runs, || {
        quiet_git(repo.path())
            .args([
                "log",
                "-p",
                "--histogram",
                "--format=commit %H",
                "-2",
                "--",
                "big.py",
            ])
            .output()
            .map_err(|e| e.to_string())
    })?;
    let walked = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| line.starts_with("commit "))
        .count();
    if walked != 2 {
        return Err(format!("git's walk shows {walked} commits, not 2"));
    }
    println!(
        "| {megabytes} MB | {} | {rss} | {} |",
        millis(keel_time),
        millis(git_time)
    );
    Ok(())
}

/// keel's answer on a huge file: `too-large` at the tip, both commits conservative hits.
fn check_large_report(output: &Output) -> Result<(), String> {
    let report: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("keel's report is not JSON ({e})"))?;
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let of = |code: &str| findings.iter().filter(|f| f["code"] == code).count();
    let hits: Vec<&Value> = findings
        .iter()
        .filter(|f| f["code"] == "anchor-hit")
        .flat_map(|f| f["hits"].as_array().into_iter().flatten())
        .collect();
    let conservative = hits.iter().filter(|h| h["conservative"] == true).count();
    if of("too-large") != 1 || hits.len() != 2 || conservative != 2 {
        return Err(format!("unexpected report on the huge file: {report}"));
    }
    Ok(())
}

/// A cold `keel lint`: the on-disk memo (`.git/keel/`) is removed first.
fn lint(keel: &Path, repo: &Path, args: &[&str]) -> Result<Output, String> {
    clear_memo(repo)?;
    Command::new(keel)
        .arg("lint")
        .arg("--repo")
        .arg(repo)
        .args(args)
        .output()
        .map_err(|e| e.to_string())
}

fn clear_memo(repo: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(repo.join(".git").join("keel")) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err.to_string()),
        _ => Ok(()),
    }
}

/// The fastest of `runs` runs, with that run's output.
fn best_of(
    runs: usize,
    mut once: impl FnMut() -> Result<Output, String>,
) -> Result<(Duration, Output), String> {
    let mut best: Option<(Duration, Output)> = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let output = once()?;
        let took = start.elapsed();
        if best.as_ref().is_none_or(|(fastest, _)| took < *fastest) {
            best = Some((took, output));
        }
    }
    best.ok_or_else(|| "no run".to_owned())
}

/// Peak resident set of one `keel lint` run in KiB, from `/usr/bin/time -f %M`.
fn peak_rss(keel: &Path, repo: &Path) -> Option<u64> {
    clear_memo(repo).ok()?;
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(keel)
        .arg("lint")
        .arg("--repo")
        .arg(repo)
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn mib(kib: u64) -> String {
    format!("{:.0} MiB", kib as f64 / 1024.0)
}
