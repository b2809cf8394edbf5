//! `callgraph-bench REPO [--under DIR] [--runs N] [--edits N] [--each-file] [--threads N] [--keel BIN] [--pycg]`: keel's call graph of a real
//! repository's sources, cold and after a one-file edit, in milliseconds per 1,000 lines —
//! beside PyCG's time on the same Python files when `--pycg` is given (`python3 -m pycg`:
//! the caller installs PyCG, `pip install pycg==0.0.7` or `pip install <checkout>` — PyPI's
//! newest wheel, 0.0.8, does not import; it is never a dependency of keel).
//!
//! Cold: a fresh database builds the whole graph of the working tree's sources under DIR,
//! each run on a new thread, so that no parse hint an earlier run left on its thread helps.
//! Edit: in the same database, one function body of the largest source file gains a
//! statement (hashed in memory, the tree input set to it) and the graph is asked again; with
//! `--edits N`, N times in a row, each edit a new value of that statement (so no memo
//! answers it), the run's edit time being their median. With `--each-file`, every source
//! file with a function body is edited so in turn (after the largest), one table row
//! each. The last warm answer is checked against a fresh database's. Both sides answer the same question,
//! and both answers are checked (node and edge counts printed side by side).
//! End to end (with `--keel BIN`, or without `--under`: the release binary beside this
//! bench): `BIN callgraph --format json` in REPO, as a user runs it, beside the same work
//! in process — opening the repository, listing and hashing the working tree's sources,
//! the graph, the JSON — each phase timed, wall and CPU (user + system: the child's from
//! `getrusage(RUSAGE_CHILDREN)`, this process's from `RUSAGE_SELF`). `keel callgraph` has
//! no scope flag, so both sides graph every source file of the working tree, whatever
//! `--under` says (the lines per 1,000 are theirs). The binary runs cold — the cache
//! folder (`.git/keel/`) removed before it, so that whatever it writes there is timed —
//! then warm, a second process at once. Its JSON must be byte for byte the in-process
//! JSON (so the same nodes, edges and unresolved sites).
//! Owns: the command line, the timing and the table. The numbers belong in a closing
//! note, never in a test.

use keel_benches::{check, count_arg, keel_run, median_of, ms, own_cpu, release_keel};
use keel_engine::settings::DEFAULT_MAX_FILE_BYTES;
use keel_engine::{ChangeEvent, Db as _, KeelDatabase};
use keel_queries::callgraph::python::{ReuseCounts, reuse_counts};
use keel_queries::callgraph::{
    CallGraph, call_graph, call_graph_on_threads, graph_inputs, is_graph_input,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

struct Options {
    repo: PathBuf,
    under: String,
    runs: usize,
    edits: usize,
    each_file: bool,
    threads: usize,
    /// The binary timed end to end (`--keel BIN`).
    keel: Option<PathBuf>,
    pycg: bool,
}

#[global_allocator]
static ALLOCATOR: keel_engine::allocator::Allocator = keel_engine::allocator::Allocator;

fn main() -> ExitCode {
    match options().and_then(|options| run(&options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("callgraph-bench: {message}");
            ExitCode::from(2)
        }
    }
}

fn options() -> Result<Options, String> {
    let usage = "usage: callgraph-bench REPO [--under DIR] [--runs N] [--edits N] [--each-file] \
                 [--threads N] [--keel BIN] [--pycg]";
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        repo: PathBuf::new(),
        under: String::new(),
        runs: 5,
        edits: 1,
        each_file: false,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        keel: None,
        pycg: false,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--under" => options.under = args.next().ok_or(usage)?,
            "--runs" => options.runs = count_arg(args.next(), usage)?,
            "--edits" => options.edits = count_arg(args.next(), usage)?,
            "--threads" => options.threads = count_arg(args.next(), usage)?,
            // Absolute: the binary runs in REPO.
            "--keel" => {
                let keel = PathBuf::from(args.next().ok_or(usage)?);
                options.keel = Some(
                    std::path::absolute(&keel)
                        .map_err(|e| format!("--keel {}: {e}", keel.display()))?,
                );
            }
            "--pycg" => options.pycg = true,
            "--each-file" => options.each_file = true,
            _ if options.repo.as_os_str().is_empty() => options.repo = PathBuf::from(arg),
            _ => return Err(usage.to_owned()),
        }
    }
    if options.repo.as_os_str().is_empty() {
        return Err(usage.to_owned());
    }
    Ok(options)
}

/// One run's times (an edit's per edited file, in [`Target`] order), and the cold
/// graph's shape.
struct Run {
    cold: Duration,
    warm: Vec<Duration>,
    answer: (usize, usize, usize),
    /// What kept values answered during the first target's edits.
    reuse: ReuseCounts,
}

/// A file to edit: its path, its line count and its edited versions.
struct Target {
    path: String,
    lines: usize,
    edits: Vec<Vec<u8>>,
}

/// The graph's size, to compare two answers.
fn shape(graph: &CallGraph) -> (usize, usize, usize) {
    (graph.nodes.len(), graph.edges.len(), graph.unresolved.len())
}

fn run(options: &Options) -> Result<(), String> {
    let wanted = |path: &str| is_graph_input(path) && path.starts_with(&options.under);
    let probe = KeelDatabase::open_objects(&options.repo).map_err(|e| e.to_string())?;
    let files = probe.worktree_files(wanted).map_err(|e| e.to_string())?;
    let mut lines = 0usize;
    let mut sources = Vec::new();
    for (path, oid) in &files {
        let bytes = probe.objects().blob(*oid).map_err(|e| e.to_string())?;
        lines += bytes.iter().filter(|&&b| b == b'\n').count();
        sources.push((path.clone(), bytes.to_vec()));
    }
    // The largest first: the default's one target.
    sources.sort_by_key(|(path, bytes)| (std::cmp::Reverse(bytes.len()), path.clone()));
    let largest = sources.first().ok_or("no source files under that folder")?;
    let targets: Vec<Target> = sources
        .iter()
        .take(if options.each_file { sources.len() } else { 1 })
        .filter_map(|(path, bytes)| {
            let edits = (0..options.edits)
                .map(|value| with_statement(path, bytes, value))
                .collect::<Option<Vec<_>>>()?;
            Some(Target {
                path: path.clone(),
                lines: bytes.iter().filter(|&&b| b == b'\n').count(),
                edits,
            })
        })
        .collect();
    if targets
        .first()
        .is_none_or(|target| target.path != largest.0)
    {
        return Err(format!("no function body to edit in {}", largest.0));
    }
    let kloc = lines as f64 / 1000.0;
    println!(
        "repository  {} ({} files, {lines} lines under {:?})",
        options.repo.display(),
        files.len(),
        options.under
    );
    let mut cold = Vec::new();
    let mut warm: Vec<Vec<Duration>> = targets.iter().map(|_| Vec::new()).collect();
    let mut answer = (0, 0, 0);
    let mut reuse = ReuseCounts::default();
    for _ in 0..options.runs {
        // Each run on a new thread: the parse hints are per thread, so a cold run on a
        // thread that already parsed these files would not be cold.
        let run = std::thread::scope(|scope| {
            scope
                .spawn(|| one_run(options, &targets))
                .join()
                .map_err(|_| "a run panicked".to_owned())
        })??;
        cold.push(run.cold);
        for (samples, time) in warm.iter_mut().zip(run.warm) {
            samples.push(time);
        }
        answer = run.answer;
        reuse = run.reuse;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = |samples: &mut Vec<Duration>| {
        samples.sort();
        samples[samples.len() / 2]
    };
    let cold = median(&mut cold);
    let warm: Vec<Duration> = warm.iter_mut().map(median).collect();
    println!(
        "keel cold        {:>9.1} ms   {:>6.2} ms/kLoC   nodes {}, edges {}, unresolved {}",
        ms(cold),
        ms(cold) / kloc,
        answer.0,
        answer.1,
        answer.2
    );
    println!(
        "keel one edit    {:>9.1} ms   {:>6.1} % of cold   ({}; answer equals a fresh database's)",
        ms(warm[0]),
        100.0 * ms(warm[0]) / ms(cold),
        targets[0].path
    );
    let edits = targets[0].edits.len().max(1) as u64;
    if reuse.groups_evaluated + reuse.groups_replayed > 0 {
        println!(
            "  Python groups of sites per edit: {} evaluated, {} replayed from the last resolution; interface reused in {} of {edits} edits",
            reuse.groups_evaluated / edits,
            reuse.groups_replayed / edits,
            reuse.interfaces_reused
        );
    }
    if options.each_file {
        each_file_table(&targets, &warm, cold);
    }
    if let Some(keel) = &options.keel {
        end_to_end(options, keel)?;
    } else if options.under.is_empty() {
        end_to_end(options, &release_keel()?)?;
    }
    if options.pycg {
        pycg(options, &files)?;
    }
    Ok(())
}

/// The phases of one in-process run of what `keel callgraph --format json` does.
struct Phases {
    /// Opening the repository, listing and hashing the working tree's sources.
    listing: Duration,
    graph: Duration,
    json: Duration,
    /// This process's CPU time over the three.
    cpu: Option<Duration>,
    /// The JSON, as the binary prints it.
    text: String,
    lines: usize,
    files: usize,
}

/// The command's work in process, on a new thread (no parse hint of an earlier run).
fn in_process(options: &Options) -> Result<Phases, String> {
    let cpu_before = own_cpu();
    let phases = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let started = Instant::now();
                let db = KeelDatabase::open_objects(&options.repo).map_err(|e| e.to_string())?;
                let files = db
                    .worktree_files(is_graph_input)
                    .map_err(|e| e.to_string())?;
                let listed = Instant::now();
                let tree = db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
                let graph = call_graph_on_threads(&db, tree, options.threads);
                let built = Instant::now();
                let mut text = keel_queries::callgraph::callgraph_json(graph).to_text();
                text.push('\n');
                let written = Instant::now();
                let mut lines = 0;
                for (_, oid) in &files {
                    let bytes = db.objects().blob(*oid).map_err(|e| e.to_string())?;
                    lines += bytes.iter().filter(|&&b| b == b'\n').count();
                }
                Ok::<_, String>(Phases {
                    listing: listed - started,
                    graph: built - listed,
                    json: written - built,
                    cpu: None,
                    text,
                    lines,
                    files: files.len(),
                })
            })
            .join()
            .map_err(|_| "a run panicked".to_owned())?
    })?;
    // The CPU time includes counting the lines (after the clock stopped): a few
    // milliseconds at most, against the graph's tens.
    let cpu = own_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    Ok(Phases { cpu, ..phases })
}

/// One process's wall and CPU time.
struct Timed {
    wall: Duration,
    cpu: Option<Duration>,
}

/// The binary end to end — cold (no cache folder) then warm — beside the same work in
/// process, `options.runs` times each, alternating; medians. Both sides graph every
/// source file of the working tree; the binary's JSON must equal the in-process JSON.
fn end_to_end(options: &Options, keel: &Path) -> Result<(), String> {
    let cache = KeelDatabase::open_objects(&options.repo)
        .and_then(|db| db.cache_folder())
        .map_err(|e| e.to_string())?;
    let args = ["callgraph", "--format", "json"];
    let (mut cold, mut warm, mut phases) = (Vec::new(), Vec::new(), Vec::new());
    let mut cache_written = false;
    for _ in 0..options.runs {
        if cache.exists() {
            std::fs::remove_dir_all(&cache)
                .map_err(|e| format!("cannot remove {}: {e}", cache.display()))?;
        }
        let first = keel_run(keel, &options.repo, &args)?;
        cache_written |= cache.exists();
        let second = keel_run(keel, &options.repo, &args)?;
        let here = in_process(options)?;
        for run in [&first, &second] {
            if !check(
                "callgraph-bench",
                run.stdout == here.text,
                "the binary's JSON is the in-process JSON, byte for byte",
            ) {
                return Err(format!(
                    "the two answers differ: the binary's {:?}, in process {:?} (nodes, edges, unresolved)",
                    counts(&run.stdout),
                    counts(&here.text)
                ));
            }
        }
        cold.push(Timed {
            wall: first.time,
            cpu: first.cpu,
        });
        warm.push(Timed {
            wall: second.time,
            cpu: second.cpu,
        });
        phases.push(here);
    }
    let (files, lines) = phases.last().map_or((0, 0), |p| (p.files, p.lines));
    let kloc = lines as f64 / 1000.0;
    let (nodes, edges, unresolved) = phases.last().map_or((0, 0, 0), |p| counts(&p.text));
    println!(
        "end to end: every source file of the working tree ({files} files, {lines} lines; \
         `keel callgraph` has no scope flag), {nodes} nodes, {edges} edges, {unresolved} unresolved; \
         the binary's JSON equals the in-process JSON"
    );
    let listing = median_of(phases.iter().map(|p| p.listing));
    let graph = median_of(phases.iter().map(|p| p.graph));
    let json = median_of(phases.iter().map(|p| p.json));
    let total = median_of(phases.iter().map(|p| p.listing + p.graph + p.json));
    let cpu = median_of(phases.iter().filter_map(|p| p.cpu));
    println!(
        "in process       {:>9.1} ms   {:>6.2} ms/kLoC   CPU {:>7.1} ms, {:>6.2} ms/kLoC   (open and list {:.1}, graph {:.1} = {:.2} ms/kLoC, JSON {:.1})",
        ms(total),
        ms(total) / kloc,
        ms(cpu),
        ms(cpu) / kloc,
        ms(listing),
        ms(graph),
        ms(graph) / kloc,
        ms(json)
    );
    for (name, runs) in [("keel cold", &cold), ("keel warm", &warm)] {
        let wall = median_of(runs.iter().map(|r| r.wall));
        let run_cpu = median_of(runs.iter().filter_map(|r| r.cpu));
        println!(
            "{name:<16} {:>9.1} ms   {:>6.2} ms/kLoC   CPU {:>7.1} ms, {:>6.2} ms/kLoC   {:.2}x in process (CPU {:.2}x; {:.2}x its graph alone)",
            ms(wall),
            ms(wall) / kloc,
            ms(run_cpu),
            ms(run_cpu) / kloc,
            ms(wall) / ms(total),
            ms(run_cpu) / ms(cpu),
            ms(wall) / ms(graph),
        );
    }
    println!(
        "  ({} {}; the cold run's cache folder {})",
        keel.display(),
        args.join(" "),
        if cache_written {
            "was written, and its time is the cold run's"
        } else {
            "was not written: the command keeps nothing"
        }
    );
    Ok(())
}

/// The node, edge and unresolved-site counts of a `keel callgraph --format json` text.
fn counts(text: &str) -> (usize, usize, usize) {
    let json: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let count = |key: &str| json[key].as_array().map_or(0, Vec::len);
    (count("nodes"), count("edges"), count("unresolved"))
}

/// Each edited file's edit time as a share of cold, then their median and largest.
fn each_file_table(targets: &[Target], warm: &[Duration], cold: Duration) {
    let share = |time: &Duration| 100.0 * time.as_secs_f64() / cold.as_secs_f64();
    println!(
        "edit of each file ({} files with a function body):",
        targets.len()
    );
    for (target, time) in targets.iter().zip(warm) {
        println!(
            "  {:>7} lines {:>8.2} ms {:>6.1} %   {}",
            target.lines,
            time.as_secs_f64() * 1e3,
            share(time),
            target.path
        );
    }
    let mut shares: Vec<f64> = warm.iter().map(share).collect();
    shares.sort_by(f64::total_cmp);
    println!(
        "  median {:.1} % of cold, largest {:.1} %",
        shares[shares.len() / 2],
        shares[shares.len() - 1]
    );
}

/// One cold graph of the working tree's sources in a fresh database, then the graph
/// after each target's path becomes each of its edits in turn in the same database (the
/// median time per target); the last warm answer is checked against a fresh database's.
fn one_run(options: &Options, targets: &[Target]) -> Result<Run, String> {
    let wanted = |path: &str| is_graph_input(path) && path.starts_with(&options.under);
    let mut db = KeelDatabase::open_objects(&options.repo).map_err(|e| e.to_string())?;
    let files = db.worktree_files(wanted).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let tree = db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
    let answer = shape(call_graph_on_threads(&db, tree, options.threads));
    let cold = started.elapsed();
    let mut next = files.clone();
    let mut warm = Vec::with_capacity(targets.len());
    let mut edited_answer = answer;
    let mut reuse = ReuseCounts::default();
    let fresh = KeelDatabase::open_objects(&options.repo).map_err(|e| e.to_string())?;
    for target in targets {
        let mut times = Vec::with_capacity(target.edits.len());
        let start = reuse_counts(&db);
        for edited in &target.edits {
            let blob = db.objects().insert_blob(edited);
            for (path, oid) in &mut next {
                if *path == target.path {
                    *oid = blob;
                }
            }
            let started = Instant::now();
            db.apply_changes(&[ChangeEvent::SourcesChanged {
                tree,
                files: graph_inputs(&next),
            }])
            .map_err(|e| e.to_string())?;
            edited_answer = shape(call_graph_on_threads(&db, tree, options.threads));
            times.push(started.elapsed());
        }
        if warm.is_empty() {
            reuse = reuse_counts(&db).since(start);
        }
        times.sort();
        warm.push(times[times.len() / 2]);
        if let Some(last) = target.edits.last() {
            fresh.objects().insert_blob(last);
        }
    }
    let fresh_answer = shape(call_graph(
        &fresh,
        fresh.sources(graph_inputs(&next), DEFAULT_MAX_FILE_BYTES),
    ));
    if fresh_answer != edited_answer {
        return Err(format!(
            "the warm answer {edited_answer:?} differs from a fresh database's {fresh_answer:?}"
        ));
    }
    Ok(Run {
        cold,
        warm,
        answer,
        reuse,
    })
}

/// The bytes of `path` with a statement setting `value` added to the first function body:
/// after the first line ending with `:` that starts with `def` (Python) or ending with
/// `{` that starts with `function` (TS/JS), at the next line's indentation. A TS/JS file
/// with no such line (methods and arrow functions only) takes it in its first `if (…) {`
/// block instead, which is in a body or at top level, where a statement is as valid.
fn with_statement(path: &str, bytes: &[u8], value: usize) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(bytes).ok()?;
    if path.ends_with(".py") {
        let opens = |line: &str| line.starts_with("def ") && line.ends_with(':');
        return after_first(text, opens, &format!("_keel_bench = {value}\n"));
    }
    let statement = format!("const keelBench = {value};\n");
    let function = |line: &str| line.starts_with("function ") && line.ends_with('{');
    let block = |line: &str| line.starts_with("if (") && line.ends_with('{');
    after_first(text, function, &statement).or_else(|| after_first(text, block, &statement))
}

/// `text` with `statement` inserted after the first line whose trimmed text `opens`, at
/// the next line's indentation.
fn after_first(text: &str, opens: impl Fn(&str) -> bool, statement: &str) -> Option<Vec<u8>> {
    let mut out = String::with_capacity(text.len() + statement.len() + 8);
    let mut lines = text.split_inclusive('\n').peekable();
    let mut done = false;
    while let Some(line) = lines.next() {
        out.push_str(line);
        if !done && opens(line.trim()) {
            let next = lines.peek()?;
            let indent: String = next.chars().take_while(|c| c.is_whitespace()).collect();
            out.push_str(indent.trim_end_matches(['\n', '\r']));
            out.push_str(statement);
            done = true;
        }
    }
    done.then(|| out.into_bytes())
}

/// PyCG on the same Python files, timed once (it takes the entry files and a package root).
fn pycg(options: &Options, files: &[(String, keel_engine::Oid)]) -> Result<(), String> {
    let python: Vec<String> = files
        .iter()
        .filter(|(path, _)| path.ends_with(".py"))
        .map(|(path, _)| path.clone())
        .collect();
    let root = options.repo.join(&options.under);
    let started = Instant::now();
    let output = std::process::Command::new("python3")
        .current_dir(&options.repo)
        .args(["-m", "pycg", "--package"])
        .arg(&root)
        .args(&python)
        .output()
        .map_err(|e| format!("cannot run python3 -m pycg: {e}"))?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        return Err(format!(
            "pycg failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let graph: std::collections::BTreeMap<String, Vec<String>> =
        serde_json_lite(&output.stdout).unwrap_or_default();
    let edges: usize = graph.values().map(Vec::len).sum();
    println!(
        "pycg (once)      {:>9.1} ms   ({} callers, {edges} edges)",
        elapsed.as_secs_f64() * 1e3,
        graph.len()
    );
    Ok(())
}

/// PyCG's `{caller: [callee, …]}` output.
fn serde_json_lite(bytes: &[u8]) -> Option<std::collections::BTreeMap<String, Vec<String>>> {
    serde_json::from_slice(bytes).ok()
}
