//! `touched-bench REPO [--windows 50] [--tips 1000] [--seed 1]`: `keel touched A..B` on
//! random windows of a real history, cold and after a `keel lint`, against a cold `keel
//! lint` of the tip, with both answers checked.
//!
//! REPO is a `lint-bench prepare`d repository (its spec nodes merged onto the default
//! branch); it is only read. The bench makes two local clones of it in a temporary folder:
//! - the plain clone, where the spec commit `prepare` made (the `--no-ff` merge's second
//!   parent, which `git log -1 -- .spec` must name too) is every node's version: there
//!   the (node, commit) pairs `keel touched SPEC..HEAD --format json` reports for `code:`
//!   entries with selectors must equal the (node, commit) pairs of `keel lint --format
//!   json`'s `anchor-hit` findings (the scenario has no `Spec-OK` and no `keel ack`);
//! - the spread clone, rewritten as `replay-bench` rewrites it (`git filter-branch
//!   --index-filter`) so that the spec files stand in every commit from the N-th
//!   first-parent commit to the pre-merge tip: `touched` reads the specs at a window's
//!   tip, which must hold them. From its newest N first-parent tips, W distinct windows
//!   `A..B` (A older than B) are drawn with a fixed seed (`keel_fixtures::rng`).
//!
//! Timed, each a `keel` process, wall and CPU time, on the spread clone: one cold `keel lint
//! --format json` of the tip (HEAD) as the baseline; then per window, `.git/keel/` removed
//! before each cold run, a cold `keel touched A..B --format json`, a cold `keel lint
//! --format json` of the tip (counted with the baseline), and `keel touched A..B --format
//! json --stats` after it (warm: its images parsed are read from stderr's last line).
//! Checked per window: the warm JSON is byte-identical to the cold one; every commit it
//! names (a touching commit or a spec version) is in `git rev-list A..B`, and its window
//! counts equal `git rev-list --count [--merges] A..B`; it read every node B holds and
//! reports nothing unavailable (exit 0). Over all windows, at least one node is touched
//! (the positive control). Exits 1 when a check fails, 2 on an error.
//! Owns: the clones, the rewrite, the draw, the timing and the checks. Does not own:
//! preparing REPO (`lint-bench prepare`); the numbers belong in benches/README.md.
//! Needs the release `keel` binary next to this one (`cargo build --release` builds both).

use keel_benches::{
    KeelRun, check, count_arg, git_stdout, keel_run, median_of, ms, release_keel, spread_specs,
};
use keel_fixtures::rng::SeededRng;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("touched-bench: {message}");
            ExitCode::from(2)
        }
    }
}

struct Options {
    source: PathBuf,
    windows: usize,
    tips: usize,
    seed: u64,
}

fn options() -> Result<Options, String> {
    let usage = "usage: touched-bench REPO [--windows 50] [--tips 1000] [--seed 1]";
    let mut args = std::env::args().skip(1);
    let source = PathBuf::from(args.next().ok_or(usage)?);
    let mut options = Options {
        source,
        windows: 50,
        tips: 1000,
        seed: 1,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--windows" => options.windows = count_arg(args.next(), usage)?,
            "--tips" => options.tips = count_arg(args.next(), usage)?,
            "--seed" => {
                options.seed = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or(usage.to_owned())?;
            }
            _ => return Err(usage.to_owned()),
        }
    }
    if options.tips < 2 {
        return Err(format!("a window needs two tips\n{usage}"));
    }
    let pairs = options.tips * (options.tips - 1) / 2;
    if options.windows > pairs {
        return Err(format!("{} tips hold only {pairs} windows", options.tips));
    }
    Ok(options)
}

/// The figures and checks of the windows, gathered as they run.
#[derive(Default)]
struct Tally {
    touched_cold: Vec<KeelRun>,
    lint_cold: Vec<KeelRun>,
    touched_warm: Vec<KeelRun>,
    /// Images parsed by each warm `touched` run.
    warm_parsed: Vec<u64>,
    nodes: usize,
    units: usize,
    windows_touching: usize,
    commits: usize,
    ok: bool,
}

fn run() -> Result<bool, String> {
    let options = options()?;
    let keel = release_keel()?;
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let source = options.source.display().to_string();
    let plain = scratch.path().join("plain");
    let spread = scratch.path().join("spread");
    for clone in [&plain, &spread] {
        let target = clone.display().to_string();
        git_stdout(scratch.path(), &["clone", "-q", &source, &target])?;
    }
    println!(
        "repository  {source} (two local clones); {} windows among the newest {} first-parent tips, seed {}",
        options.windows, options.tips, options.seed
    );
    let mut ok = spec_window_check(&keel, &plain)?;

    let started = Instant::now();
    spread_specs(&spread, options.tips)?;
    println!(
        "history rewritten in {:.1} s: the spec files stand in the newest {} first-parent tips",
        started.elapsed().as_secs_f64(),
        options.tips
    );
    let chain = git_stdout(&spread, &["rev-list", "--first-parent", "HEAD"])?;
    let chain: Vec<&str> = chain.lines().take(options.tips).collect();
    let windows = draw_windows(chain.len(), options.windows, options.seed);

    clear_memo(&spread)?;
    let baseline = keel_run(&keel, &spread, &["lint", "--format", "json"])?;
    let mut tally = Tally {
        ok: true,
        ..Tally::default()
    };
    println!(
        "window (first-parent ages)  commits merges  nodes units  touched cold  lint cold  touched warm  parsed"
    );
    for &(newer, older) in &windows {
        measure_window(&keel, &spread, (chain[older], chain[newer]), &mut tally)?;
        if let (Some(cold), Some(lint), Some(warm), Some(parsed)) = (
            tally.touched_cold.last(),
            tally.lint_cold.last(),
            tally.touched_warm.last(),
            tally.warm_parsed.last(),
        ) {
            let window: Value = serde_json::from_str(&warm.stdout).unwrap_or(Value::Null);
            println!(
                "{:>4}..{:<4}                 {:>7} {:>6}  {:>5} {:>5}  {:>9.1} ms {:>7.1} ms {:>10.1} ms  {parsed:>6}",
                older,
                newer,
                window["window"]["commits"].as_u64().unwrap_or_default(),
                window["window"]["merges"].as_u64().unwrap_or_default(),
                window["nodes"].as_array().map_or(0, Vec::len),
                units(&window),
                ms(cold.time),
                ms(lint.time),
                ms(warm.time),
            );
        }
    }
    ok &= tally.ok;
    ok &= check(
        "touched-bench",
        tally.windows_touching > 0,
        "positive control: no window touched any node",
    );
    report(&baseline, &tally, windows.len());
    Ok(ok)
}

/// Prints the medians, the ratios and the counts.
fn report(baseline: &KeelRun, tally: &Tally, windows: usize) {
    let wall = |runs: &[KeelRun]| median_of(runs.iter().map(|run| run.time));
    let cpu = |runs: &[KeelRun]| -> Option<Duration> {
        Some(median_of(
            runs.iter().map(|run| run.cpu).collect::<Option<Vec<_>>>()?,
        ))
    };
    let mut lints: Vec<KeelRun> = tally.lint_cold.clone();
    lints.push(baseline.clone());
    let (cold, lint, warm) = (
        wall(&tally.touched_cold),
        wall(&lints),
        wall(&tally.touched_warm),
    );
    println!(
        "keel lint, cold, tip (baseline): {:8.1} ms; median of it and the {} per window: {:.1} ms",
        ms(baseline.time),
        tally.lint_cold.len(),
        ms(lint)
    );
    println!(
        "keel touched, cold:              {:8.1} ms median of {windows}",
        ms(cold)
    );
    println!(
        "keel touched, after a lint:      {:8.1} ms median of {windows}",
        ms(warm)
    );
    println!(
        "ratios (medians): touched cold / lint cold {:.3}, touched after lint / lint cold {:.3}",
        cold.as_secs_f64() / lint.as_secs_f64(),
        warm.as_secs_f64() / lint.as_secs_f64()
    );
    if let (Some(cold_cpu), Some(lint_cpu), Some(warm_cpu)) = (
        cpu(&tally.touched_cold),
        cpu(&lints),
        cpu(&tally.touched_warm),
    ) {
        println!(
            "CPU time (user + system), medians: touched cold {:.1} ms, lint cold {:.1} ms, touched after lint {:.1} ms: {:.3} and {:.3}",
            ms(cold_cpu),
            ms(lint_cpu),
            ms(warm_cpu),
            cold_cpu.as_secs_f64() / lint_cpu.as_secs_f64(),
            warm_cpu.as_secs_f64() / lint_cpu.as_secs_f64()
        );
    }
    let mut parsed = tally.warm_parsed.clone();
    parsed.sort_unstable();
    println!(
        "images parsed by touched after lint: {} in all, median {}, max {} ({} of {windows} windows parsed none)",
        parsed.iter().sum::<u64>(),
        parsed.get(parsed.len() / 2).copied().unwrap_or_default(),
        parsed.last().copied().unwrap_or_default(),
        parsed.iter().filter(|&&n| n == 0).count()
    );
    println!(
        "over {windows} windows ({} commits): {} touched some node; {} nodes and {} units touched in all",
        tally.commits, tally.windows_touching, tally.nodes, tally.units
    );
}

/// `count` distinct windows among `tips` first-parent tips (index 0 the newest), as
/// (newer, older) index pairs, drawn with `seed`.
fn draw_windows(tips: usize, count: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut rng = SeededRng::new(seed);
    let mut drawn = BTreeSet::new();
    let mut windows = Vec::new();
    while windows.len() < count {
        let (x, y) = (rng.below(tips), rng.below(tips));
        if x == y {
            continue;
        }
        let pair = (x.min(y), x.max(y));
        if drawn.insert(pair) {
            windows.push(pair);
        }
    }
    windows
}

/// One window `A..B` (`older`, `newer`): touched cold, a cold lint of the tip, touched
/// after it; both answers checked.
fn measure_window(
    keel: &Path,
    repo: &Path,
    (older, newer): (&str, &str),
    tally: &mut Tally,
) -> Result<(), String> {
    let range = format!("{older}..{newer}");
    clear_memo(repo)?;
    let cold = keel_run(keel, repo, &["touched", &range, "--format", "json"])?;
    clear_memo(repo)?;
    tally
        .lint_cold
        .push(keel_run(keel, repo, &["lint", "--format", "json"])?);
    let touched = ["touched", &range, "--format", "json", "--stats"];
    let warm = keel_run(keel, repo, &touched)?;
    let stats = warm.stderr.lines().last().unwrap_or_default();
    let stats: Value = serde_json::from_str(stats).map_err(|e| format!("--stats: {e}"))?;
    tally
        .warm_parsed
        .push(stats["images_parsed"].as_u64().ok_or("no images_parsed")?);

    let mut ok = check(
        "touched-bench",
        cold.stdout == warm.stdout,
        &format!("{range}: the warm JSON differs from the cold JSON"),
    );
    ok &= check(
        "touched-bench",
        cold.code == 0 && warm.code == 0,
        &format!("{range}: exit {} cold, {} warm", cold.code, warm.code),
    );
    let answer: Value = serde_json::from_str(&cold.stdout).map_err(|e| format!("{range}: {e}"))?;
    let listed = git_stdout(repo, &["rev-list", &range])?;
    let listed: BTreeSet<&str> = listed.lines().collect();
    let merges = git_stdout(repo, &["rev-list", "--count", "--merges", &range])?;
    ok &= check(
        "touched-bench",
        answer["window"]["commits"] == listed.len()
            && answer["window"]["merges"].as_u64() == merges.trim().parse().ok(),
        &format!(
            "{range}: window {} against git's {} commits, {} merges",
            answer["window"],
            listed.len(),
            merges.trim()
        ),
    );
    let named = named_commits(&answer);
    let outside: Vec<&String> = named
        .iter()
        .filter(|c| !listed.contains(c.as_str()))
        .collect();
    ok &= check(
        "touched-bench",
        outside.is_empty(),
        &format!("{range}: commits outside `git rev-list`: {outside:?}"),
    );
    let specs = git_stdout(repo, &["ls-tree", "-r", "--name-only", newer, ".spec"])?;
    let held = specs.lines().filter(|p| p.ends_with("/spec.md")).count();
    ok &= check(
        "touched-bench",
        held > 0 && answer["nodes_read"] == held,
        &format!(
            "{range}: read {} nodes, the tip holds {held}",
            answer["nodes_read"]
        ),
    );
    ok &= check(
        "touched-bench",
        answer["unavailable"].as_array().is_some_and(Vec::is_empty),
        &format!("{range}: unavailable {}", answer["unavailable"]),
    );
    let nodes = answer["nodes"].as_array().map_or(0, Vec::len);
    tally.nodes += nodes;
    tally.units += units(&answer);
    tally.windows_touching += usize::from(nodes > 0);
    tally.commits += listed.len();
    tally.ok &= ok;
    tally.touched_cold.push(cold);
    tally.touched_warm.push(warm);
    Ok(())
}

/// The units a `keel.touched.v1` answer reports touched: each selector changed, and each
/// bare entry changed (`TouchedReport::units`, counted from the JSON).
fn units(answer: &Value) -> usize {
    entries(answer)
        .map(|(_, entry)| entry["selectors"].as_array().map_or(0, Vec::len).max(1))
        .sum()
}

/// Every (node, entry) of a `keel.touched.v1` answer.
fn entries(answer: &Value) -> impl Iterator<Item = (&Value, &Value)> {
    answer["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|node| {
            node["entries"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |entry| (node, entry))
        })
}

/// Every commit a `keel.touched.v1` answer names: touching commits and spec versions.
fn named_commits(answer: &Value) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for node in answer["nodes"].as_array().into_iter().flatten() {
        for version in node["spec_versions"].as_array().into_iter().flatten() {
            named.insert(version.as_str().unwrap_or_default().to_owned());
        }
    }
    for (_, entry) in entries(answer) {
        for commit in entry["commits"].as_array().into_iter().flatten() {
            named.insert(commit["commit"].as_str().unwrap_or_default().to_owned());
        }
    }
    named
}

/// On the plain clone: `touched SPEC..HEAD` against lint's anchor hits, as (node, commit)
/// pairs of `code:` entries with selectors.
fn spec_window_check(keel: &Path, repo: &Path) -> Result<bool, String> {
    let spec = git_stdout(repo, &["rev-parse", "HEAD^2"])?
        .trim()
        .to_owned();
    let logged = git_stdout(repo, &["log", "-1", "--format=%H", "--", ".spec"])?;
    let mut ok = check(
        "touched-bench",
        logged.trim() == spec,
        &format!("the merge's second parent {spec} is not the last .spec commit {logged}"),
    );
    let range = format!("{spec}..HEAD");
    let touched = keel_run(keel, repo, &["touched", &range, "--format", "json"])?;
    let answer: Value =
        serde_json::from_str(&touched.stdout).map_err(|e| format!("touched JSON: {e}"))?;
    let lint = keel_run(keel, repo, &["lint", "--format", "json"])?;
    let report: Value =
        serde_json::from_str(&lint.stdout).map_err(|e| format!("lint JSON: {e}"))?;
    let mut from_touched = BTreeSet::new();
    for (node, entry) in entries(&answer) {
        let scoped = entry["entry"].as_str().is_some_and(|e| e.contains('#'));
        if entry["relation"] != "code" || !scoped {
            continue;
        }
        for commit in entry["commits"].as_array().into_iter().flatten() {
            from_touched.insert((node["node"].to_string(), commit["commit"].to_string()));
        }
    }
    let mut from_lint = BTreeSet::new();
    let findings = report["findings"].as_array().into_iter().flatten();
    for finding in findings.filter(|f| f["code"] == "anchor-hit") {
        for hit in finding["hits"].as_array().into_iter().flatten() {
            from_lint.insert((finding["node"].to_string(), hit["commit"].to_string()));
        }
    }
    let nodes = |pairs: &BTreeSet<(String, String)>| {
        pairs.iter().map(|(n, _)| n).collect::<BTreeSet<_>>().len()
    };
    let commits = |pairs: &BTreeSet<(String, String)>| {
        pairs.iter().map(|(_, c)| c).collect::<BTreeSet<_>>().len()
    };
    println!(
        "{}..HEAD ({} commits): touched {} (node, commit) pairs on code selectors ({} nodes, {} commits), lint's anchor hits {} ({} nodes, {} commits); touched exit {}",
        &spec[..12.min(spec.len())],
        answer["window"]["commits"],
        from_touched.len(),
        nodes(&from_touched),
        commits(&from_touched),
        from_lint.len(),
        nodes(&from_lint),
        commits(&from_lint),
        touched.code
    );
    let only_touched: Vec<_> = from_touched.difference(&from_lint).take(5).collect();
    let only_lint: Vec<_> = from_lint.difference(&from_touched).take(5).collect();
    ok &= check(
        "touched-bench",
        only_touched.is_empty() && only_lint.is_empty() && !from_lint.is_empty(),
        &format!(
            "spec window: {} pairs only in touched (first {only_touched:?}), {} only in lint (first {only_lint:?})",
            from_touched.difference(&from_lint).count(),
            from_lint.difference(&from_touched).count()
        ),
    );
    ok &= check(
        "touched-bench",
        touched.code == 0,
        &format!("touched {range}: exit {}", touched.code),
    );
    Ok(ok)
}

/// Removes `.git/keel/` (the memo and the kept answer): the next run is cold.
fn clear_memo(repo: &Path) -> Result<(), String> {
    let memo = repo.join(".git").join("keel");
    match std::fs::remove_dir_all(&memo) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("{}: {e}", memo.display()))
        }
        _ => Ok(()),
    }
}
