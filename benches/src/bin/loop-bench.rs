//! `loop-bench REPO [--runs N]`: keel in the developer's loop on a real history — how long
//! `keel watch` takes from a ref update to the printed verdict, against a cold `keel lint`
//! of the same tip, and what the installed hook adds to a plumbing ref update, against the
//! same update with no hook.
//!
//! Works on a local clone of REPO (made and removed here; REPO is never written): a clone
//! of a `lint-bench prepare`d repository carries its spec nodes. Each watch run commits a
//! change to a random-free, fixed line of the first anchored Python file with `git
//! commit-tree` and then moves the branch with `git update-ref`; the clock starts before
//! `update-ref` and stops when keel prints a verdict whose tip is that commit (checked), so
//! the figure includes the watcher's debounce (`keel_engine::watch::QUIET`, reported
//! beside it). The cold baseline is `keel lint --format json` of the same tip with the
//! on-disk memo cleared first, whose `tip` is checked too. The memo rows time a second
//! `keel lint` process after one new commit — extending the answer the previous process kept,
//! and again with that answer removed, reading the memo it wrote — against a cold process on
//! the same tip, and require the reports to be equal. The hook rows time `git update-ref refs/heads/bench-N HEAD`
//! (plumbing: HEAD is already on a branch) with keel's hook installed and with none.
//! Owns: the command line, the timing and the table; the numbers belong in a closing note.
//! Needs the release `keel` binary next to this one (`cargo build --release` builds both).

use keel_benches::{count_arg, git_stdout, release_keel};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("loop-bench: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let usage = "usage: loop-bench REPO [--runs N]";
    let mut args = std::env::args().skip(1);
    let source = PathBuf::from(args.next().ok_or(usage)?);
    let mut runs = 9usize;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = count_arg(args.next(), usage)?,
            _ => return Err(usage.to_owned()),
        }
    }
    let keel = release_keel()?;
    let temp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let repo = temp.path().join("clone");
    git(
        temp.path(),
        &["clone", "--quiet", &source.display().to_string(), "clone"],
    )?;
    let file = anchored_python_file(&repo)?;
    println!("repository  {} (a clone)", source.display());
    println!("edited      {file} (one line appended per run)");
    watch_rows(&keel, &repo, &file, runs)?;
    memo_rows(&keel, &repo, &file, runs)?;
    hook_rows(&keel, &repo, runs)
}

/// `git ARGS` in `dir`; its stdout, trimmed.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    git_stdout(dir, args).map(|out| out.trim().to_owned())
}

/// The first `.py` path a spec node anchors (`path#selector` in a `code:` list).
fn anchored_python_file(repo: &Path) -> Result<String, String> {
    let listing = git(repo, &["ls-files", ".spec"])?;
    for spec in listing.lines().filter(|p| p.ends_with("spec.md")) {
        let text = std::fs::read_to_string(repo.join(spec)).map_err(|e| e.to_string())?;
        for line in text.lines() {
            let entry = line.trim().trim_start_matches("- ").trim();
            if let Some((path, _)) = entry.split_once(".py#") {
                return Ok(format!("{path}.py"));
            }
        }
    }
    Err("no spec node anchors a Python file; prepare the repository with lint-bench".to_owned())
}

/// A new commit on HEAD with one more line at the end of `file` (`git commit-tree`, so
/// no ref moves yet).
fn next_commit(repo: &Path, file: &str, run: usize) -> Result<String, String> {
    let path = repo.join(file);
    let mut text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    text.push_str(&format!("_loop_bench_{run} = {run}\n"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    git(repo, &["add", file])?;
    let tree = git(repo, &["write-tree"])?;
    git(
        repo,
        &[
            "commit-tree",
            &tree,
            "-p",
            "HEAD",
            "-m",
            &format!("bench {run}"),
        ],
    )
}

/// `keel watch` started on `repo`, its stdout lines on a channel.
fn start_watch(keel: &Path, repo: &Path) -> Result<(Child, Receiver<String>), String> {
    let mut child = Command::new(keel)
        .args([
            "watch",
            "--repo",
            &repo.display().to_string(),
            "--format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    Ok((child, lines))
}

/// The tip of the next verdict.
fn verdict_tip(lines: &Receiver<String>) -> Result<String, String> {
    let line = lines
        .recv_timeout(Duration::from_secs(120))
        .map_err(|_| "keel watch printed no verdict")?;
    let report: serde_json::Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
    Ok(report["tip"].as_str().unwrap_or_default().to_owned())
}

fn watch_rows(keel: &Path, repo: &Path, file: &str, runs: usize) -> Result<(), String> {
    let branch = git(repo, &["symbolic-ref", "HEAD"])?;
    let (mut child, lines) = start_watch(keel, repo)?;
    verdict_tip(&lines)?;
    let mut watch = Vec::new();
    let mut cold = Vec::new();
    for run in 0..runs {
        let commit = next_commit(repo, file, run)?;
        let started = Instant::now();
        git(repo, &["update-ref", &branch, &commit])?;
        let tip = verdict_tip(&lines)?;
        watch.push(started.elapsed());
        if tip != commit {
            let _ = child.kill();
            return Err(format!("watch judged {tip}, not the new tip {commit}"));
        }
        clear_memo(keel, repo)?;
        let (output, _, took) = lint_process(keel, repo)?;
        cold.push(took);
        let report: serde_json::Value = serde_json::from_str(&output).map_err(|e| e.to_string())?;
        if report["tip"] != commit.as_str() {
            let _ = child.kill();
            return Err(format!("cold lint judged {}, not {commit}", report["tip"]));
        }
    }
    let _ = child.kill();
    let (watch, cold) = (median(&mut watch), median(&mut cold));
    let quiet = keel_engine::watch::QUIET;
    println!(
        "keel watch, ref update → verdict   {:>8.1} ms median ({:.1} ms after the {} ms debounce)",
        ms(watch),
        ms(watch.saturating_sub(quiet)),
        quiet.as_millis()
    );
    println!(
        "keel lint, cold, same tip         {:>8.1} ms median",
        ms(cold)
    );
    println!(
        "ratio watch / cold                {:>8.3}   (each verdict's tip checked: {runs}/{runs})",
        ms(watch) / ms(cold)
    );
    Ok(())
}

/// `keel cache clear`: the next lint starts cold.
fn clear_memo(keel: &Path, repo: &Path) -> Result<(), String> {
    let cleared = Command::new(keel)
        .args(["cache", "clear", "--repo"])
        .arg(repo)
        .output()
        .map_err(|e| e.to_string())?;
    if !cleared.status.success() {
        return Err(String::from_utf8_lossy(&cleared.stderr).into_owned());
    }
    Ok(())
}

/// `keel lint --stats --format json` in its own process: the report, the stats, the time.
fn lint_process(keel: &Path, repo: &Path) -> Result<(String, serde_json::Value, Duration), String> {
    let started = Instant::now();
    let output = Command::new(keel)
        .args(["lint", "--stats", "--format", "json", "--repo"])
        .arg(repo)
        .output()
        .map_err(|e| e.to_string())?;
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stats = stderr.lines().last().unwrap_or_default();
    let stats = serde_json::from_str(stats).map_err(|e| format!("{e}: {stderr}"))?;
    Ok((
        String::from_utf8_lossy(&output.stdout).into_owned(),
        stats,
        took,
    ))
}

/// A second process after one new commit, two ways: extending the answer the previous
/// run kept (`.git/keel/lint.bin`, what `keel lint` at HEAD does), and with that answer
/// removed, reading the memo the previous run wrote. Each against a cold process (memo
/// and answer cleared) on the same tip; every report must equal the cold one, and the
/// first way must have extended the kept answer by exactly the one commit.
fn memo_rows(keel: &Path, repo: &Path, file: &str, runs: usize) -> Result<(), String> {
    let branch = git(repo, &["symbolic-ref", "HEAD"])?;
    lint_process(keel, repo)?;
    let (mut kept, mut memo, mut cold, mut parsed, mut diffed) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        for via_memo in [false, true] {
            let serial = runs + 2 * run + usize::from(via_memo);
            let commit = next_commit(repo, file, serial)?;
            git(repo, &["update-ref", &branch, &commit])?;
            if via_memo {
                std::fs::remove_file(repo.join(".git/keel/lint.bin")).map_err(|e| e.to_string())?;
            }
            let (warm_report, stats, took) = lint_process(keel, repo)?;
            let extended_by = stats["kept_answer_extended_by"].as_u64();
            if extended_by != (!via_memo).then_some(1) {
                return Err(format!("run {run}: extended by {extended_by:?}: {stats}"));
            }
            if via_memo {
                memo.push(took);
            } else {
                kept.push(took);
            }
            parsed.push(stats["images_parsed"].as_u64().unwrap_or(u64::MAX));
            diffed.push(stats["hunk_sets_diffed"].as_u64().unwrap_or(u64::MAX));
            clear_memo(keel, repo)?;
            let (cold_report, _, took) = lint_process(keel, repo)?;
            cold.push(took);
            if warm_report != cold_report || !warm_report.contains(&commit) {
                return Err(format!(
                    "run {run}: the second process's report differs from the cold report"
                ));
            }
        }
    }
    let (kept, memo, cold) = (median(&mut kept), median(&mut memo), median(&mut cold));
    parsed.sort_unstable();
    diffed.sort_unstable();
    println!(
        "keel lint, 2nd process, +1 commit {:>8.1} ms median (the kept answer extended)",
        ms(kept)
    );
    println!(
        "  the same, from the memo alone   {:>8.1} ms median (images parsed {:?}, hunk sets diffed {:?})",
        ms(memo),
        parsed,
        diffed
    );
    println!(
        "keel lint, cold process           {:>8.1} ms median",
        ms(cold)
    );
    println!(
        "ratio 2nd process / cold          {:>8.3}   (from the memo alone {:.3}; reports equal: {n}/{n})",
        ms(kept) / ms(cold),
        ms(memo) / ms(cold),
        n = 2 * runs
    );
    for name in ["memo.bin", "lint.bin"] {
        let path = repo.join(".git/keel").join(name);
        let bytes = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
        println!("{name:<8} size                     {bytes:>8} bytes");
    }
    Ok(())
}

fn hook_rows(keel: &Path, repo: &Path, runs: usize) -> Result<(), String> {
    let time_updates = |label: &str| -> Result<Duration, String> {
        let mut samples = Vec::new();
        for run in 0..runs {
            let name = format!("refs/heads/bench-{label}-{run}");
            let started = Instant::now();
            git(repo, &["update-ref", &name, "HEAD"])?;
            samples.push(started.elapsed());
        }
        Ok(median(&mut samples))
    };
    let bare = time_updates("none")?;
    let installed = Command::new(keel)
        .args(["hook", "install", "--repo", &repo.display().to_string()])
        .output()
        .map_err(|e| e.to_string())?;
    if !installed.status.success() {
        return Err(String::from_utf8_lossy(&installed.stderr).into_owned());
    }
    let hooked = time_updates("hooked")?;
    println!(
        "git update-ref (plumbing), no hook {:>8.1} ms median",
        ms(bare)
    );
    println!(
        "git update-ref (plumbing), keel's hook {:>4.1} ms median",
        ms(hooked)
    );
    println!(
        "the hook's pass-through cost      {:>8.1} ms",
        ms(hooked.saturating_sub(bare))
    );
    Ok(())
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
