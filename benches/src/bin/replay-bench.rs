//! `replay-bench REPO [--tips N] [--runs R] [--keep DIR]`: `keel replay` through the newest N
//! first-parent tips of a real history in one process, against one cold `keel lint` of the
//! newest tip, with both answers checked.
//!
//! REPO is a `lint-bench prepare`d repository (its spec nodes merged onto the default
//! branch); it is only read. The bench clones it and rewrites the clone's history so that
//! the spec files stand in every commit from the N-th first-parent commit back to the
//! pre-merge tip (`git filter-branch --index-filter`), so every replayed tip has nodes to
//! judge, with windows that grow tip by tip. Then, with the on-disk memo cleared before
//! each run: R cold `keel lint --format json` runs of the tip, and one `keel replay --last
//! N --first-parent` with a pinned control (`--expect` of an anchor-hit the cold lint
//! reports at the tip). Checked: the replay exits 0 (the control held) with N lines of
//! `keel.replay.v1`, oldest first, the last at the tip; the last line's nodes, findings
//! by code, debt and blocked equal the cold report's, counted here from its JSON.
//! `--keep DIR` rewrites into DIR instead of a temporary folder and leaves it there; a DIR
//! an earlier `--keep` rewrote (it has branch `replay`) is reused as it is, so a profile
//! of `keel replay` can run on the same history.
//! Owns: the rewrite, the timing and the checks; the numbers belong in a closing note.
//! Needs the release `keel` binary next to this one (`cargo build --release` builds both).

use keel_benches::{git_stdout, release_keel};
use keel_fixtures::pinned_git;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("replay-bench: {message}");
            ExitCode::from(2)
        }
    }
}

struct Options {
    source: PathBuf,
    tips: usize,
    runs: usize,
    keep: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let usage = "usage: replay-bench REPO [--tips N] [--runs R] [--keep DIR]";
    let mut args = std::env::args().skip(1);
    let source = PathBuf::from(args.next().ok_or(usage)?);
    let mut options = Options {
        source,
        tips: 1000,
        runs: 3,
        keep: None,
    };
    while let Some(arg) = args.next() {
        if arg == "--keep" {
            options.keep = Some(PathBuf::from(args.next().ok_or(usage)?));
            continue;
        }
        let value = args
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .ok_or(usage)?;
        match arg.as_str() {
            "--tips" => options.tips = value,
            "--runs" => options.runs = value,
            _ => return Err(usage.to_owned()),
        }
    }
    Ok(options)
}

fn run() -> Result<bool, String> {
    let options = options()?;
    let keel = release_keel()?;
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let repo = options
        .keep
        .clone()
        .unwrap_or_else(|| scratch.path().join("repo"));
    let rewritten = repo.join(".git/refs/heads/replay").exists();
    if rewritten {
        println!("reusing {}: rewritten by an earlier --keep", repo.display());
    } else {
        let source = options.source.display().to_string();
        let target = repo.display().to_string();
        git_stdout(scratch.path(), &["clone", "-q", &source, &target])?;
        let started = Instant::now();
        spread_specs(&repo, options.tips)?;
        println!(
            "history rewritten in {:.1} s: the spec files stand in the newest {} first-parent tips",
            started.elapsed().as_secs_f64(),
            options.tips
        );
    }
    let tip = git_stdout(&repo, &["rev-parse", "HEAD"])?.trim().to_owned();
    let mut cold_times = Vec::new();
    let mut cold = (Value::Null, 0);
    for _ in 0..options.runs {
        keel_run(&keel, &repo, &["cache", "clear"])?;
        let (time, code, stdout, _) = keel_run(&keel, &repo, &["lint", "--format", "json"])?;
        cold_times.push(time);
        let report: Value = serde_json::from_str(&stdout).map_err(|e| format!("lint JSON: {e}"))?;
        cold = (report, code);
    }
    let (report, cold_code) = cold;
    let control = report["findings"]
        .as_array()
        .and_then(|findings| findings.iter().find(|f| f["code"] == "anchor-hit"))
        .and_then(|f| f["node"].as_str())
        .ok_or("the cold lint reports no anchor-hit to pin as a control")?
        .to_owned();
    let expect = format!("HEAD:{control}:anchor-hit");
    keel_run(&keel, &repo, &["cache", "clear"])?;
    let tips = options.tips.to_string();
    let (replay_time, replay_code, stdout, stderr) = keel_run(
        &keel,
        &repo,
        &[
            "replay",
            "--last",
            &tips,
            "--first-parent",
            "--expect",
            &expect,
        ],
    )?;
    let lines: Vec<Value> = stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("replay line: {e}"))?;
    let mut ok = check(
        replay_code == 0,
        &format!("replay exit {replay_code}: {stderr}"),
    );
    ok &= check(
        lines.len() == options.tips,
        &format!("{} lines for {} tips", lines.len(), options.tips),
    );
    ok &= check(
        lines.iter().all(|line| line["schema"] == "keel.replay.v1"),
        "a line without the schema",
    );
    let last = lines.last().cloned().unwrap_or(Value::Null);
    ok &= check(last["tip"] == tip.as_str(), "the last line is not the tip");
    let (nodes, codes, debt) = tally(&report);
    let replayed: BTreeMap<String, u64> =
        serde_json::from_value(last["findings"].clone()).unwrap_or_default();
    ok &= check(last["nodes"] == nodes, "nodes differ from the cold lint's");
    ok &= check(replayed == codes, "findings differ from the cold lint's");
    ok &= check(
        last["debt"] == debt as u64,
        "debt differs from the cold lint's",
    );
    ok &= check(
        last["blocked"] == (cold_code == 1),
        "blocked differs from the cold lint's exit",
    );
    let sum = |key: &str| -> u64 {
        lines
            .iter()
            .map(|line| line["stats"][key].as_u64().unwrap_or(0))
            .sum()
    };
    cold_times.sort();
    let median = cold_times[cold_times.len() / 2];
    println!(
        "keel lint, cold, tip:        {:8.1} ms (median of {})",
        ms(median),
        options.runs
    );
    println!(
        "keel replay, {} tips:      {:8.1} ms = {:.2} ms a tip; {} images parsed, {} hunk sets diffed in all",
        options.tips,
        ms(replay_time),
        ms(replay_time) / options.tips as f64,
        sum("images_parsed"),
        sum("hunk_sets_diffed")
    );
    println!(
        "replay / cold lint:          {:8.2}×",
        replay_time.as_secs_f64() / median.as_secs_f64()
    );
    println!(
        "at the tip: {nodes} nodes, debt {debt}, findings {codes:?}; control {expect} held: {}",
        replay_code == 0
    );
    Ok(ok)
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1e3
}

fn check(holds: bool, what: &str) -> bool {
    if !holds {
        eprintln!("replay-bench: check failed: {what}");
    }
    holds
}

/// Puts the tip's `.spec/` files into every commit from the `tips`-th first-parent
/// commit of the pre-merge tip onwards, on branch `replay`, checked out.
fn spread_specs(repo: &Path, tips: usize) -> Result<(), String> {
    let specs = git_stdout(repo, &["ls-tree", "-r", "HEAD", ".spec"])?;
    if specs.is_empty() {
        return Err("the repository has no .spec/ at HEAD: run `lint-bench prepare` first".into());
    }
    let index_info = repo.join(".git").join("replay-bench-specs");
    std::fs::write(&index_info, &specs).map_err(|e| e.to_string())?;
    git_stdout(repo, &["checkout", "-q", "-b", "replay", "HEAD^1"])?;
    let chain = git_stdout(repo, &["rev-list", "--first-parent", "HEAD"])?;
    let start = chain.lines().nth(tips - 1).ok_or(format!(
        "the history has fewer than {tips} first-parent commits"
    ))?;
    let filter = format!(
        "git update-index --add --index-info < '{}'",
        index_info.display()
    );
    let range = format!("{start}^..HEAD");
    let output = pinned_git(repo)
        .env("FILTER_BRANCH_SQUELCH_WARNING", "1")
        .args([
            "filter-branch",
            "-f",
            "--index-filter",
            &filter,
            "--",
            &range,
        ])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "git filter-branch: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    git_stdout(repo, &["reset", "-q", "--hard", "HEAD"])?;
    Ok(())
}

/// Runs keel in `repo`: (time, exit code, stdout, stderr); exit 2 is an error.
fn keel_run(
    keel: &Path,
    repo: &Path,
    args: &[&str],
) -> Result<(Duration, i32, String, String), String> {
    let started = Instant::now();
    let output = Command::new(keel)
        .args(args)
        .current_dir(repo)
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| e.to_string())?;
    let time = started.elapsed();
    let code = output.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if code == 2 || code < 0 {
        return Err(format!("keel {}: exit {code}: {stderr}", args.join(" ")));
    }
    Ok((time, code, stdout, stderr))
}

/// A `keel.lint.v1` report's nodes, findings by code and distinct (node, selector,
/// commit) of its anchor hits, counted from the JSON.
fn tally(report: &Value) -> (u64, BTreeMap<String, u64>, usize) {
    let mut codes = BTreeMap::new();
    let mut debt = BTreeSet::new();
    for finding in report["findings"].as_array().into_iter().flatten() {
        let code = finding["code"].as_str().unwrap_or_default().to_owned();
        *codes.entry(code.clone()).or_insert(0) += 1;
        if code != "anchor-hit" {
            continue;
        }
        for hit in finding["hits"].as_array().into_iter().flatten() {
            for selector in hit["selectors"].as_array().into_iter().flatten() {
                debt.insert((
                    finding["node"].to_string(),
                    selector.to_string(),
                    hit["commit"].to_string(),
                ));
            }
        }
    }
    (
        report["summary"]["nodes"].as_u64().unwrap_or(0),
        codes,
        debt.len(),
    )
}
