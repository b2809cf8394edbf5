//! The measured run: keel cold (N threads and 1 thread, each run in a child process),
//! keel warm (one new commit, the same database), the release binary end to end (cold,
//! and a second process after one commit; `binary`), and the git baseline, side by side,
//! with both answers checked (the binary's JSON report against the in-process report).
//!
//! Owns: the plan (nodes, anchored paths, each node's version and the git ranges), the
//! timings and counters, the per-run peak RSS (each cold run is a fresh child process —
//! this binary re-executed as `cold-once` — which reads its own `VmHWM` from
//! `/proc/self/status` after linting), the warm commits and the restore of the repository
//! (`git reset --hard` to the original tip, also on a panic), and the printed table.
//! Does not own: parsing git's patches (`git`), nor the cross-check (`checks`).

use crate::binary::{self, Measured};
use crate::checks::{CrossCheck, cross_check};
use crate::git::{self, LogRange, Patches};
use crate::prepare::short;
use keel_engine::inputs::Tip;
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_queries::extract::{Language, extract};
use keel_queries::lint::{LintReport, Scope, lint_counting_parses, lint_on_threads, spec_nodes};
use keel_queries::spec::{Relation, Target};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the measured run was asked for.
pub(crate) struct Options {
    pub(crate) repo: PathBuf,
    pub(crate) runs: usize,
    pub(crate) threads: usize,
    /// The release `keel` timed end to end.
    pub(crate) keel: PathBuf,
}

/// Work counters from salsa's executed-query log (as `keel lint --stats` counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    images: usize,
    hunks: usize,
    queries: usize,
}

impl Counts {
    fn take(db: &KeelDatabase) -> Self {
        let executed = db.take_executed_queries();
        let count = |name: &str| executed.iter().filter(|n| n.as_str() == name).count();
        Self {
            images: count("image_units"),
            hunks: count("image_hunks"),
            queries: executed.len(),
        }
    }
}

/// One cold lint in a fresh process.
#[derive(Debug, Clone)]
struct ColdSample {
    wall: Duration,
    peak_kib: Option<u64>,
    counts: Counts,
    fingerprint: u64,
}

/// The hidden `cold-once REPO THREADS` child: a fresh database, one lint, one line on
/// stdout (`ms= hwm_kib= images= hunks= queries= report=`).
pub(crate) fn cold_once(repo: &Path, threads: usize) -> Result<(), String> {
    let start = Instant::now();
    let db = KeelDatabase::open(repo).map_err(|e| format!("keel cannot open: {e:?}"))?;
    let report = lint_on_threads(&db, threads, Scope::Full)
        .map_err(|e| format!("keel cannot lint: {e:?}"))?;
    let wall = start.elapsed();
    let counts = Counts::take(&db);
    println!(
        "ms={} hwm_kib={} images={} hunks={} queries={} report={:016x}",
        wall.as_secs_f64() * 1000.0,
        peak_rss_kib().map_or_else(|| "-".to_owned(), |k| k.to_string()),
        counts.images,
        counts.hunks,
        counts.queries,
        fingerprint(&report)
    );
    Ok(())
}

/// This process's peak resident set (`VmHWM`), in KiB; `None` off Linux.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A stable digest of a whole report (FNV-1a over its `Debug` form): equal digests, equal
/// answers, across processes of the same binary.
fn fingerprint(report: &LintReport) -> u64 {
    fnv(format!("{report:?}").as_bytes())
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Runs one cold lint in a child process.
fn spawn_cold(repo: &Path, threads: usize) -> Result<ColdSample, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let output = Command::new(exe)
        .arg("cold-once")
        .arg(repo)
        .arg(threads.to_string())
        .output()
        .map_err(|e| format!("cannot start the cold-once child: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "the cold-once child failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let fields: BTreeMap<&str, &str> = stdout
        .split_whitespace()
        .filter_map(|f| f.split_once('='))
        .collect();
    let field = |key: &str| -> Result<&str, String> {
        fields
            .get(key)
            .copied()
            .ok_or_else(|| format!("the cold-once child printed no {key}: {stdout}"))
    };
    let number = |key: &str| -> Result<usize, String> {
        field(key)?
            .parse()
            .map_err(|_| format!("cold-once {key}: not a number"))
    };
    let ms: f64 = field("ms")?
        .parse()
        .map_err(|_| "cold-once ms: not a number".to_owned())?;
    Ok(ColdSample {
        wall: Duration::from_secs_f64(ms / 1000.0),
        peak_kib: field("hwm_kib")?.parse().ok(),
        counts: Counts {
            images: number("images")?,
            hunks: number("hunks")?,
            queries: number("queries")?,
        },
        fingerprint: u64::from_str_radix(field("report")?, 16)
            .map_err(|_| "cold-once report: not hex".to_owned())?,
    })
}

/// What is judged and what git reads: found once, untimed.
struct Plan {
    tip: String,
    tip_time: i64,
    nodes: usize,
    scoped_entries: usize,
    selectors: usize,
    bare_entries: usize,
    /// Every path named by a spec entry, de-duplicated.
    anchored: Vec<String>,
    /// One git log per distinct node version.
    ranges: Vec<LogRange>,
    /// Node id → index into `ranges`.
    node_range: BTreeMap<String, usize>,
    /// The scoped entry the warm commits edit: (path, selector).
    warm_target: (String, String),
}

fn plan(repo: &Path) -> Result<Plan, String> {
    let db = KeelDatabase::open(repo).map_err(|e| format!("keel cannot open: {e:?}"))?;
    let tip_commit = Tip::get(&db)
        .commit(&db)
        .ok_or("the repository has no commits")?;
    let nodes =
        spec_nodes(&db, tip_commit).map_err(|e| format!("keel cannot read the specs: {e:?}"))?;
    if nodes.is_empty() {
        return Err("the repository has no spec nodes; run `lint-bench prepare` first".to_owned());
    }
    let tip = git::run(repo, &["rev-parse", "HEAD"])?.trim().to_owned();
    let tip_time = git::run(repo, &["log", "-1", "--format=%ct", "HEAD"])?
        .trim()
        .parse()
        .map_err(|e| format!("tip committer time: {e}"))?;
    // Each node's version: the newest commit (git log order) that changed its spec.md.
    let log = git::run(
        repo,
        &[
            "log",
            "--format=%x01%H",
            "--name-only",
            "HEAD",
            "--",
            ".spec",
        ],
    )?;
    let mut versions: BTreeMap<String, String> = BTreeMap::new();
    let mut current = "";
    for line in log.lines() {
        if let Some(id) = line.strip_prefix('\u{1}') {
            current = id;
        } else if !line.is_empty() {
            versions
                .entry(line.to_owned())
                .or_insert_with(|| current.to_owned());
        }
    }
    let mut by_version: BTreeMap<Option<String>, Vec<String>> = BTreeMap::new();
    let mut node_version: BTreeMap<String, Option<String>> = BTreeMap::new();
    let (mut scoped_entries, mut selectors, mut bare_entries) = (0, 0, 0);
    let mut anchored: Vec<String> = Vec::new();
    let mut warm_target = None;
    for node in &nodes {
        let version = versions.get(&node.id.spec_path()).cloned();
        node_version.insert(node.id.0.clone(), version.clone());
        let paths = by_version.entry(version).or_default();
        for entry in &node.entries {
            match &entry.target {
                Target::Scoped { path, selectors: s } => {
                    scoped_entries += 1;
                    selectors += s.len();
                    if warm_target.is_none() && entry.relation == Relation::Code {
                        warm_target = s
                            .iter()
                            .find(|sel| unit_lines(repo, path, sel.as_str()).is_some())
                            .map(|sel| (path.clone(), sel.to_string()));
                    }
                }
                _ => bare_entries += 1,
            }
            let path = entry.target.path().to_owned();
            paths.push(path.clone());
            anchored.push(path);
        }
    }
    anchored.sort();
    anchored.dedup();
    let mut ranges = Vec::new();
    let mut range_of: BTreeMap<Option<String>, usize> = BTreeMap::new();
    for (version, mut paths) in by_version {
        paths.sort();
        paths.dedup();
        let mut revisions = vec!["HEAD".to_owned()];
        revisions.extend(version.as_ref().map(|v| format!("^{v}")));
        range_of.insert(version, ranges.len());
        ranges.push(LogRange { revisions, paths });
    }
    let node_range = node_version
        .into_iter()
        // Every version in `node_version` was given a range just above.
        .map(|(node, version)| (node, range_of[&version]))
        .collect();
    Ok(Plan {
        tip,
        tip_time,
        nodes: nodes.len(),
        scoped_entries,
        selectors,
        bare_entries,
        anchored,
        ranges,
        node_range,
        warm_target: warm_target
            .ok_or("no scoped code entry names a multi-line unit in the work tree")?,
    })
}

/// The 1-based (first, last) lines of the unit `selector` in the work-tree file `path`,
/// when it spans more than one line.
fn unit_lines(repo: &Path, path: &str, selector: &str) -> Option<(u32, u32)> {
    let content = std::fs::read(repo.join(path)).ok()?;
    let units = extract(&content, path)?.ok()?;
    let mut named = units.iter().filter(|u| u.name == selector);
    let unit = named.next()?;
    (named.next().is_none() && unit.end_line > unit.start_line)
        .then_some((unit.start_line, unit.end_line))
}

/// Restores the repository to its original tip when dropped (also on a panic).
struct Restore<'a> {
    repo: &'a Path,
    tip: String,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        if let Err(e) = git::run(self.repo, &["reset", "--quiet", "--hard", &self.tip]) {
            eprintln!("lint-bench: could not restore the repository: {e}");
        }
    }
}

/// One warm re-lint.
struct WarmSample {
    wall: Duration,
    counts: Counts,
    /// The new commit is reported as an anchor hit on the edited entry.
    hit_reported: bool,
}

/// Appends one comment line inside the warm target's unit and commits it with the pinned
/// identity; returns the new commit id.
fn warm_commit(repo: &Path, plan: &Plan, step: usize) -> Result<String, String> {
    let (path, selector) = &plan.warm_target;
    let (_, last) = unit_lines(repo, path, selector)
        .ok_or_else(|| format!("{path}#{selector} no longer resolves in the work tree"))?;
    let full = repo.join(path);
    let text = std::fs::read_to_string(&full).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = (last as usize - 1).min(lines.len().saturating_sub(1));
    let indent: String = lines
        .get(at)
        .map(|l| l.chars().take_while(|c| *c == ' ' || *c == '\t').collect())
        .unwrap_or_default();
    let marker = match Language::for_path(path) {
        Some(Language::Python) => "#",
        _ => "//",
    };
    let added = format!("{indent}{marker} lint-bench warm edit {step}\n");
    lines.insert(at, &added);
    std::fs::write(&full, lines.concat()).map_err(|e| format!("cannot write {path}: {e}"))?;
    git::run(repo, &["add", "--", path])?;
    let stamp = format!("@{} +0000", plan.tip_time + 60 * (step as i64 + 1));
    let message = format!("lint-bench warm edit {step}");
    let args = ["commit", "--quiet", "--no-verify", "-m", &message];
    git::run_with(
        git::git(repo)
            .args(args)
            .env("GIT_AUTHOR_DATE", &stamp)
            .env("GIT_COMMITTER_DATE", &stamp),
        &args,
    )?;
    Ok(git::run(repo, &["rev-parse", "HEAD"])?.trim().to_owned())
}

/// Runs the baseline once: every range's log, stdout consumed; returns the output.
fn run_git_baseline(repo: &Path, plan: &Plan) -> Result<(Duration, Vec<String>), String> {
    let start = Instant::now();
    let mut outputs = Vec::new();
    for range in &plan.ranges {
        let mut child = range
            .command(repo)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot run git: {e}"))?;
        let mut out = String::new();
        child
            .stdout
            .take()
            .ok_or("git's stdout is piped")?
            .read_to_string(&mut out)
            .map_err(|e| format!("cannot read git's output: {e}"))?;
        let status = child.wait().map_err(|e| format!("git did not end: {e}"))?;
        if !status.success() {
            return Err(format!("{} failed", range.display()));
        }
        outputs.push(out);
    }
    Ok((start.elapsed(), outputs))
}

/// The issue's own yardstick, timed beside the window baseline: `git log --no-merges -p
/// --histogram -U0 -- <anchored paths>` over the whole history (no range, default history
/// simplification), stdout consumed, under a `peak-once` child (its time and peak RSS).
fn run_whole_history_log(repo: &Path, plan: &Plan) -> Result<Measured, String> {
    let mut command = git::git(repo);
    command
        .args([
            "log",
            "--no-merges",
            "-p",
            "--histogram",
            "-U0",
            "--no-ext-diff",
            "--no-textconv",
            "--",
        ])
        .args(&plan.anchored);
    let measured = binary::measure(&command)?;
    if measured.stdout.is_empty() {
        return Err("the whole-history git log printed nothing".to_owned());
    }
    Ok(measured)
}

/// The release binary's cold `keel lint`: `.git/keel/` removed first.
fn run_binary_cold(keel: &Path, repo: &Path) -> Result<Measured, String> {
    binary::clear_cache(repo)?;
    binary::measure(&binary::keel_lint(keel, repo))
}

/// Median and minimum.
fn stats(samples: &[Duration]) -> (Duration, Duration) {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let n = sorted.len();
    let median = if n == 0 {
        Duration::ZERO
    } else if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    };
    (median, sorted.first().copied().unwrap_or_default())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The measured run; returns whether every check passed.
pub(crate) fn run(options: &Options) -> Result<bool, String> {
    let repo = options.repo.as_path();
    if !repo.is_dir() {
        return Err(format!("{} is not a folder", repo.display()));
    }
    let dirty = git::run(repo, &["status", "--porcelain", "--untracked-files=no"])?;
    if !dirty.trim().is_empty() {
        return Err(format!(
            "{} has uncommitted changes; the warm runs commit and then `git reset --hard`, so commit or stash them first",
            repo.display()
        ));
    }
    let plan = plan(repo)?;
    let threads = options.threads.max(1);
    let runs = options.runs.max(1);
    let count = |extra: &[&str]| -> Result<String, String> {
        let mut args = vec!["rev-list", "--count"];
        args.extend_from_slice(extra);
        args.extend(plan.ranges[0].revisions.iter().map(String::as_str));
        Ok(git::run(repo, &args)?.trim().to_owned())
    };
    let window = count(&[])?;
    let window_nm = count(&["--no-merges"])?;
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned());
    println!("repository  {} at {}", repo.display(), short(&plan.tip));
    println!(
        "specs       {} nodes: {} scoped entries ({} selectors), {} bare entries, {} anchored paths",
        plan.nodes,
        plan.scoped_entries,
        plan.selectors,
        plan.bare_entries,
        plan.anchored.len()
    );
    println!(
        "window      {} commits ({} non-merge) in {}{}",
        window,
        window_nm,
        plan.ranges[0].revisions.join(" "),
        if plan.ranges.len() > 1 {
            format!(" (first of {} distinct versions)", plan.ranges.len())
        } else {
            String::new()
        }
    );
    for range in &plan.ranges {
        println!("git         {}", range.display());
    }
    println!(
        "host        {} cores available, load average {load} at start; {runs} runs each",
        std::thread::available_parallelism().map_or(1, usize::from)
    );

    // Warm-up, untimed: the file-system cache holds the repository for both sides.
    run_git_baseline(repo, &plan)?;
    spawn_cold(repo, threads)?;

    let thread_counts: Vec<usize> = if threads == 1 {
        vec![1]
    } else {
        vec![threads, 1]
    };
    let mut cold: BTreeMap<usize, Vec<ColdSample>> = BTreeMap::new();
    let mut git_times = Vec::new();
    let mut git_outputs: Option<Vec<String>> = None;
    let mut git_identical = true;
    let mut whole: Vec<Measured> = Vec::new();
    let mut binary_cold: Vec<Measured> = Vec::new();
    for _ in 0..runs {
        for &t in &thread_counts {
            cold.entry(t).or_default().push(spawn_cold(repo, t)?);
        }
        let (time, outputs) = run_git_baseline(repo, &plan)?;
        git_times.push(time);
        binary_cold.push(run_binary_cold(&options.keel, repo)?);
        whole.push(run_whole_history_log(repo, &plan)?);
        match &git_outputs {
            None => git_outputs = Some(outputs),
            Some(first) => git_identical &= *first == outputs,
        }
    }
    let git_outputs = git_outputs.ok_or("no git run")?;
    let mut per_range = Vec::new();
    let mut all = Patches::default();
    let mut git_bytes = 0;
    for out in &git_outputs {
        git_bytes += out.len();
        let patches = git::parse(out)?;
        all.merge(patches.clone());
        per_range.push(patches);
    }

    // In-process cold lint, then warm re-lints on the same database.
    let start = Instant::now();
    let mut db = KeelDatabase::open(repo).map_err(|e| format!("keel cannot open: {e:?}"))?;
    let (report, parses) = lint_counting_parses(&db, threads, Scope::Full)
        .map_err(|e| format!("keel cannot lint: {e:?}"))?;
    let in_process_cold = start.elapsed();
    let in_process_counts = Counts::take(&db);
    let cold_print = fingerprint(&report);
    let cold_json =
        serde_json::to_value(&report).map_err(|e| format!("the report as JSON: {e}"))?;
    let mut binary_agrees = 0;
    for measured in &binary_cold {
        binary_agrees += usize::from(binary::report(measured)? == cold_json);
    }
    // `node_range` holds indices into the ranges, one parsed output each.
    let cross = cross_check(&db, &report, &|node: &str| {
        plan.node_range.get(node).map(|&i| &per_range[i])
    })?;
    let mut warm = Vec::new();
    let warm_equals_fresh;
    let mut binary_second = None;
    {
        let _restore = Restore {
            repo,
            tip: plan.tip.clone(),
        };
        let mut last = None;
        for step in 0..runs {
            let commit = warm_commit(repo, &plan, step)?;
            let second = (step == 0)
                .then(|| binary::measure(&binary::keel_lint(&options.keel, repo)))
                .transpose()?;
            db.take_executed_queries();
            let start = Instant::now();
            db.apply_changes(&[ChangeEvent::TipMoved])
                .map_err(|e| format!("the tip cannot move: {e:?}"))?;
            let report = lint_on_threads(&db, threads, Scope::Full)
                .map_err(|e| format!("keel cannot lint: {e:?}"))?;
            let wall = start.elapsed();
            let counts = Counts::take(&db);
            let hit_reported = report.findings.iter().any(|f| {
                f.code == "anchor-hit"
                    && f.path == plan.warm_target.0
                    && f.hits.iter().any(|h| *h.commit == *commit)
            });
            if let Some(second) = second {
                let json = serde_json::to_value(&report)
                    .map_err(|e| format!("the report as JSON: {e}"))?;
                binary_second = Some((binary::report(&second)? == json, second));
            }
            warm.push(WarmSample {
                wall,
                counts,
                hit_reported,
            });
            last = Some(report);
        }
        let fresh = KeelDatabase::open(repo).map_err(|e| format!("keel cannot open: {e:?}"))?;
        let fresh_report = lint_on_threads(&fresh, threads, Scope::Full)
            .map_err(|e| format!("keel cannot lint: {e:?}"))?;
        warm_equals_fresh = last.as_ref() == Some(&fresh_report);
    }

    // The table.
    let (git_median, git_min) = stats(&git_times);
    println!();
    println!(
        "{:<30} {:>10} {:>10} {:>8} {:>9} {:>8} {:>10}",
        "", "median", "min", "images", "hunk sets", "queries", "peak RSS"
    );
    let mut cold_medians = BTreeMap::new();
    for &t in &thread_counts {
        // Every thread count ran `runs` ≥ 1 times above.
        let samples = &cold[&t];
        let (median, min) = stats(&samples.iter().map(|s| s.wall).collect::<Vec<_>>());
        cold_medians.insert(t, median);
        let counts = samples[0].counts;
        let peak = samples.iter().filter_map(|s| s.peak_kib).max();
        println!(
            "{:<30} {:>7.1} ms {:>7.1} ms {:>8} {:>9} {:>8} {:>10}",
            format!("keel cold, {t} thread{}", if t == 1 { "" } else { "s" }),
            ms(median),
            ms(min),
            counts.images,
            counts.hunks,
            counts.queries,
            peak.map_or_else(
                || "-".to_owned(),
                |k| format!("{:.1} MiB", k as f64 / 1024.0)
            )
        );
    }
    let (warm_median, warm_min) = stats(&warm.iter().map(|s| s.wall).collect::<Vec<_>>());
    // `runs` ≥ 1 warm commits were made above.
    let warm_counts = warm[0].counts;
    println!(
        "{:<30} {:>7.1} ms {:>7.1} ms {:>8} {:>9} {:>8} {:>10}",
        format!("keel warm, {threads} threads, +1 commit"),
        ms(warm_median),
        ms(warm_min),
        warm_counts.images,
        warm_counts.hunks,
        warm_counts.queries,
        "-"
    );
    println!(
        "{:<30} {:>7.1} ms {:>7.1} ms {:>8} {:>9} {:>8} {:>10}",
        "git log -p (baseline)",
        ms(git_median),
        ms(git_min),
        "-",
        "-",
        "-",
        "-"
    );
    let (whole_median, whole_min) = stats(&whole.iter().map(|m| m.wall).collect::<Vec<_>>());
    let whole_peak = whole.iter().map(|m| m.peak_kib).max().unwrap_or(0);
    let whole_bytes = whole.first().map_or(0, |m| m.stdout.len());
    println!(
        "{:<30} {:>7.1} ms {:>7.1} ms {:>8} {:>9} {:>8} {:>10}",
        "git log -p, whole history",
        ms(whole_median),
        ms(whole_min),
        "-",
        "-",
        "-",
        mib(whole_peak)
    );
    let (binary_median, binary_min) =
        stats(&binary_cold.iter().map(|m| m.wall).collect::<Vec<_>>());
    let binary_peak = binary_cold.iter().map(|m| m.peak_kib).max().unwrap_or(0);
    println!(
        "{:<30} {:>7.1} ms {:>7.1} ms {:>8} {:>9} {:>8} {:>10}",
        "keel lint (binary), cold",
        ms(binary_median),
        ms(binary_min),
        "-",
        "-",
        "-",
        mib(binary_peak)
    );
    if let Some((_, second)) = &binary_second {
        println!(
            "{:<30} {:>7.1} ms {:>10} {:>8} {:>9} {:>8} {:>10}",
            "keel lint (binary), +1 commit",
            ms(second.wall),
            "-",
            "-",
            "-",
            "-",
            mib(second.peak_kib)
        );
    }
    println!(
        "(the second git row is the issue's yardstick, `git log --no-merges -p --histogram -U0 -- <{} anchored paths>` over all history: {:.1} MiB of patches)",
        plan.anchored.len(),
        whole_bytes as f64 / (1024.0 * 1024.0)
    );
    println!(
        "(the binary rows: `{} lint --format json`, each its own process; cold = no .git/keel/ before it, its memo write included; +1 commit = a second process after the first warm commit; peak RSS of every process = its ru_maxrss)",
        options.keel.display()
    );
    println!(
        "(keel cold in-process, before the warm runs: {:.1} ms, {} images, {} hunk sets, {} queries)",
        ms(in_process_cold),
        in_process_counts.images,
        in_process_counts.hunks,
        in_process_counts.queries
    );
    println!(
        "(its images: {} parsed from scratch, {} reparsed incrementally, {} spliced — {} of them inside definition bodies, {} two or more bodies down)",
        parses.full,
        parses.incremental - parses.retried,
        parses.spliced,
        parses.spliced_members,
        parses.spliced_deep
    );
    let ratio = |a: Duration| ms(a) / ms(git_median);
    println!();
    println!(
        "ratios (medians)  keel cold {threads}t / git {:.2}   keel warm / git {:.4}   keel cold 1t / git {:.2}",
        ratio(cold_medians[&threads]),
        ratio(warm_median),
        ratio(cold_medians[&1])
    );
    println!(
        "                  keel cold {threads}t / whole-history git log {:.2}",
        ms(cold_medians[&threads]) / ms(whole_median)
    );
    println!(
        "binary            keel lint cold / whole-history git log {:.2}   peak RSS keel / git {:.2}{}",
        ms(binary_median) / ms(whole_median),
        binary_peak as f64 / whole_peak.max(1) as f64,
        binary_second
            .as_ref()
            .map_or_else(String::new, |(_, second)| format!(
                "   +1 commit / cold {:.1}%",
                100.0 * ms(second.wall) / ms(binary_median)
            ))
    );

    // The checks.
    let mut ok = true;
    println!();
    println!("checks");
    let prints: Vec<u64> = cold
        .values()
        .flatten()
        .map(|s| s.fingerprint)
        .chain([cold_print])
        .collect();
    let same_answer = prints.iter().all(|&p| p == cold_print);
    ok &= same_answer;
    let per_threads: Vec<String> = thread_counts
        .iter()
        .map(|t| {
            let n = cold[t]
                .iter()
                .filter(|s| s.fingerprint == cold_print)
                .count();
            format!(
                "{t} thread{}: {n}/{}",
                if *t == 1 { "" } else { "s" },
                cold[t].len()
            )
        })
        .collect();
    println!(
        "  keel's answer identical across runs and threads: {} ({}, in-process 1/1; report {cold_print:016x})",
        yes(same_answer),
        per_threads.join(", ")
    );
    let counters_stable = cold
        .values()
        .all(|samples| samples.iter().all(|s| s.counts == samples[0].counts));
    println!(
        "  keel's counters identical across runs: {}",
        yes(counters_stable)
    );
    let mut by_code: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for finding in &report.findings {
        let slot = by_code.entry(finding.code).or_default();
        slot.0 += 1;
        slot.1 += finding.hits.len();
    }
    let codes: Vec<String> = by_code
        .iter()
        .map(|(code, (n, commits))| format!("{code} {n} ({commits} commits)"))
        .collect();
    println!("  keel findings by code: {}", codes.join(", "));
    let git_nonempty = all.hunks() > 0;
    ok &= git_nonempty && git_identical;
    println!(
        "  git's output: {:.1} MiB, {} commits, {} file patches, {} hunks; non-empty: {}; identical across runs: {}",
        git_bytes as f64 / (1024.0 * 1024.0),
        all.commits.len(),
        all.file_patches(),
        all.hunks(),
        yes(git_nonempty),
        yes(git_identical)
    );
    print_cross_check(&cross);
    ok &= cross.mismatches.is_empty();
    let second_agrees = binary_second.as_ref().is_some_and(|(same, _)| *same);
    ok &= binary_agrees == binary_cold.len() && second_agrees;
    println!(
        "  the binary's JSON report equals the in-process report: cold {binary_agrees}/{}, +1 commit {}",
        binary_cold.len(),
        yes(second_agrees)
    );
    let hits = warm.iter().filter(|s| s.hit_reported).count();
    ok &= hits == warm.len() && warm_equals_fresh;
    println!(
        "  warm: each new commit reported as an anchor hit on {}#{}: {hits}/{}; last warm answer equals a fresh database's: {}",
        plan.warm_target.0,
        plan.warm_target.1,
        warm.len(),
        yes(warm_equals_fresh)
    );
    let restored = git::run(repo, &["rev-parse", "HEAD"])?.trim() == plan.tip;
    ok &= restored;
    println!(
        "  repository restored to {}: {}",
        short(&plan.tip),
        yes(restored)
    );
    println!();
    println!(
        "{}",
        if ok {
            "all checks passed"
        } else {
            "CHECKS FAILED"
        }
    );
    Ok(ok)
}

fn print_cross_check(cross: &CrossCheck) {
    let checked: usize = cross.checked.values().sum();
    let by: Vec<String> = cross
        .checked
        .iter()
        .map(|(code, n)| format!("{code} {n}"))
        .collect();
    println!(
        "  keel ⊆ git: {}/{checked} keel commits found in git's patch of the path ({}); left out: {} merge commits, {} met under an older path",
        cross.agreed,
        by.join(", "),
        cross.skipped_merges,
        cross.skipped_renamed
    );
    println!(
        "  git ⊆ keel: {}/{} git modifications of a scoped tip path reported by keel as a hit or a miss; left out: {} creations or binary patches",
        cross.converse_agreed, cross.converse_checked, cross.converse_skipped
    );
    for line in cross.mismatches.iter().take(20) {
        println!("    mismatch: {line}");
    }
    if cross.mismatches.len() > 20 {
        println!("    … and {} more mismatches", cross.mismatches.len() - 20);
    }
}

/// KiB as MiB, one decimal.
fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn yes(value: bool) -> &'static str {
    if value { "yes" } else { "NO" }
}
