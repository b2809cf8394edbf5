//! `replay-bench REPO [--tips N] [--runs R] [--keep DIR]`: `keel replay` through the newest N
//! first-parent tips of a real history in one process, against a cold `keel lint` of the
//! newest tip, with both answers checked.
//!
//! REPO is a `lint-bench prepare`d repository (its spec nodes merged onto the default
//! branch); it is only read. The bench clones it and rewrites the clone's history so that
//! the spec files stand in every commit from the N-th first-parent commit back to the
//! pre-merge tip (`git filter-branch --index-filter`), so every replayed tip has nodes to
//! judge, with windows that grow tip by tip. Then R rounds, the on-disk memo cleared
//! before each run: a cold `keel lint --format json` of the tip, then `keel replay --last
//! N --first-parent` with a pinned control (`--expect` of an anchor-hit the cold lint
//! reports at the tip); alternating, a slow spell of the machine falls on both sides, and
//! the ratio is of the two medians. Checked: the replay exits 0 (the control held) with N
//! lines of `keel.replay.v1`, oldest first, the last at the tip, the same lines (but
//! `stats`) in every round; the last line's nodes, findings by code, debt and blocked
//! equal the cold report's, counted here from its JSON.
//! `--keep DIR` rewrites into DIR instead of a temporary folder and leaves it there; a DIR
//! an earlier `--keep` rewrote (it has branch `replay`) is reused as it is, so a profile
//! of `keel replay` can run on the same history.
//! Owns: the rewrite, the timing and the checks; the numbers belong in a closing note.
//! Needs the release `keel` binary next to this one (`cargo build --release` builds both).

use keel_benches::{
    KeelRun, check, count_arg, git_stdout, keel_run, median_of, ms, release_keel, spread_specs,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;
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
        let value = count_arg(args.next(), usage)?;
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
    // Rounds of one cold lint then one replay, so a machine's slow spell falls on both.
    let mut colds: Vec<KeelRun> = Vec::new();
    let mut replays: Vec<KeelRun> = Vec::new();
    let (mut report, mut expect) = (Value::Null, String::new());
    let tips = options.tips.to_string();
    for _ in 0..options.runs.max(1) {
        keel_run(&keel, &repo, &["cache", "clear"])?;
        let cold = keel_run(&keel, &repo, &["lint", "--format", "json"])?;
        report = serde_json::from_str(&cold.stdout).map_err(|e| format!("lint JSON: {e}"))?;
        expect = control(&report)?;
        colds.push(cold);
        keel_run(&keel, &repo, &["cache", "clear"])?;
        let args = [
            "replay",
            "--last",
            &tips,
            "--first-parent",
            "--expect",
            &expect,
        ];
        replays.push(keel_run(&keel, &repo, &args)?);
    }
    let same_lines = replays
        .windows(2)
        .all(|pair| without_stats(&pair[0].stdout) == without_stats(&pair[1].stdout));
    let (Some(cold), Some(replayed)) = (colds.last(), replays.last()) else {
        return Err("no round ran".to_owned());
    };
    let cold_code = cold.code;
    let (replay_code, stdout, stderr) = (replayed.code, &replayed.stdout, &replayed.stderr);
    let lines: Vec<Value> = stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("replay line: {e}"))?;
    let mut ok = check(
        "replay-bench",
        same_lines,
        "the replay's lines differ between runs",
    );
    ok &= check(
        "replay-bench",
        replay_code == 0,
        &format!("replay exit {replay_code}: {stderr}"),
    );
    ok &= check(
        "replay-bench",
        lines.len() == options.tips,
        &format!("{} lines for {} tips", lines.len(), options.tips),
    );
    ok &= check(
        "replay-bench",
        lines.iter().all(|line| line["schema"] == "keel.replay.v1"),
        "a line without the schema",
    );
    let last = lines.last().cloned().unwrap_or(Value::Null);
    ok &= check(
        "replay-bench",
        last["tip"] == tip.as_str(),
        "the last line is not the tip",
    );
    let (nodes, codes, debt) = tally(&report);
    let replayed: BTreeMap<String, u64> =
        serde_json::from_value(last["findings"].clone()).unwrap_or_default();
    ok &= check(
        "replay-bench",
        last["nodes"] == nodes,
        "nodes differ from the cold lint's",
    );
    ok &= check(
        "replay-bench",
        replayed == codes,
        "findings differ from the cold lint's",
    );
    ok &= check(
        "replay-bench",
        last["debt"] == debt as u64,
        "debt differs from the cold lint's",
    );
    ok &= check(
        "replay-bench",
        last["blocked"] == (cold_code == 1),
        "blocked differs from the cold lint's exit",
    );
    let sum = |key: &str| -> u64 {
        lines
            .iter()
            .map(|line| line["stats"][key].as_u64().unwrap_or(0))
            .sum()
    };
    let median = median_of(colds.iter().map(|run| run.time));
    let replay_time = median_of(replays.iter().map(|run| run.time));
    println!(
        "keel lint, cold, tip:        {:8.1} ms (median of {})",
        ms(median),
        colds.len()
    );
    println!(
        "keel replay, {} tips:      {:8.1} ms (median of {}) = {:.2} ms a tip; {} images parsed, {} hunk sets diffed in all",
        options.tips,
        ms(replay_time),
        replays.len(),
        ms(replay_time) / options.tips as f64,
        sum("images_parsed"),
        sum("hunk_sets_diffed")
    );
    println!(
        "replay / cold lint:          {:8.2}× (medians)",
        replay_time.as_secs_f64() / median.as_secs_f64()
    );
    let cpu = |runs: &[KeelRun]| -> Option<Duration> {
        Some(median_of(
            runs.iter().map(|run| run.cpu).collect::<Option<Vec<_>>>()?,
        ))
    };
    if let (Some(cold), Some(replay)) = (cpu(&colds), cpu(&replays)) {
        println!(
            "CPU time (user + system):    {:8.1} ms cold lint, {:.1} ms replay: {:.2}× (medians; both run on every core: the cold lint warms its windows side by side, the replay judges its later tips side by side)",
            ms(cold),
            ms(replay),
            replay.as_secs_f64() / cold.as_secs_f64()
        );
    }
    println!(
        "at the tip: {nodes} nodes, debt {debt}, findings {codes:?}; control {expect} held: {}",
        replay_code == 0
    );
    Ok(ok)
}

/// The pinned control: the first anchor-hit of a cold report, at HEAD.
fn control(report: &Value) -> Result<String, String> {
    let node = report["findings"]
        .as_array()
        .and_then(|findings| findings.iter().find(|f| f["code"] == "anchor-hit"))
        .and_then(|f| f["node"].as_str())
        .ok_or("the cold lint reports no anchor-hit to pin as a control")?;
    Ok(format!("HEAD:{node}:anchor-hit"))
}

/// Replay lines without their `stats`: the answers, which every run must repeat.
fn without_stats(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|mut line| {
            if let Some(fields) = line.as_object_mut() {
                fields.remove("stats");
            }
            line
        })
        .collect()
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
