//! `callgraph-bench REPO [--under DIR] [--runs N] [--edits N] [--threads N] [--pycg]`: keel's call graph of a real
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
//! answers it), the run's edit time being their median. The last warm answer is checked
//! against a fresh database's. Both sides answer the same question,
//! and both answers are checked (node and edge counts printed side by side).
//! Owns: the command line, the timing and the table. The numbers belong in a closing
//! note, never in a test.

use keel_engine::settings::DEFAULT_MAX_FILE_BYTES;
use keel_engine::{Db as _, KeelDatabase};
use keel_queries::callgraph::{
    CallGraph, call_graph, call_graph_on_threads, graph_inputs, is_graph_input,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

struct Options {
    repo: PathBuf,
    under: String,
    runs: usize,
    edits: usize,
    threads: usize,
    pycg: bool,
}

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
    let usage =
        "usage: callgraph-bench REPO [--under DIR] [--runs N] [--edits N] [--threads N] [--pycg]";
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        repo: PathBuf::new(),
        under: String::new(),
        runs: 5,
        edits: 1,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        pycg: false,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--under" => options.under = args.next().ok_or(usage)?,
            "--runs" => {
                options.runs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or(usage)?;
            }
            "--edits" => {
                options.edits = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or(usage)?;
            }
            "--threads" => {
                options.threads = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or(usage)?;
            }
            "--pycg" => options.pycg = true,
            _ if options.repo.as_os_str().is_empty() => options.repo = PathBuf::from(arg),
            _ => return Err(usage.to_owned()),
        }
    }
    if options.repo.as_os_str().is_empty() {
        return Err(usage.to_owned());
    }
    Ok(options)
}

/// One run's times, and the cold graph's shape.
struct Run {
    cold: Duration,
    warm: Duration,
    answer: (usize, usize, usize),
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
    let mut largest: Option<(String, Vec<u8>)> = None;
    for (path, oid) in &files {
        let bytes = probe.objects().blob(*oid).map_err(|e| e.to_string())?;
        lines += bytes.iter().filter(|&&b| b == b'\n').count();
        if largest.as_ref().is_none_or(|(_, b)| b.len() < bytes.len()) {
            largest = Some((path.clone(), bytes.to_vec()));
        }
    }
    let (edited_path, original) = largest.ok_or("no source files under that folder")?;
    let edits = (0..options.edits)
        .map(|value| with_statement(&edited_path, &original, value))
        .collect::<Option<Vec<_>>>()
        .ok_or("no function body to edit")?;
    let kloc = lines as f64 / 1000.0;
    println!(
        "repository  {} ({} files, {lines} lines under {:?})",
        options.repo.display(),
        files.len(),
        options.under
    );
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut answer = (0, 0, 0);
    for _ in 0..options.runs {
        // Each run on a new thread: the parse hints are per thread, so a cold run on a
        // thread that already parsed these files would not be cold.
        let run = std::thread::scope(|scope| {
            scope
                .spawn(|| one_run(options, &edited_path, &edits))
                .join()
                .map_err(|_| "a run panicked".to_owned())
        })??;
        cold.push(run.cold);
        warm.push(run.warm);
        answer = run.answer;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = |samples: &mut Vec<Duration>| {
        samples.sort();
        samples[samples.len() / 2]
    };
    let (cold, warm) = (median(&mut cold), median(&mut warm));
    println!(
        "keel cold        {:>9.1} ms   {:>6.2} ms/kLoC   nodes {}, edges {}, unresolved {}",
        ms(cold),
        ms(cold) / kloc,
        answer.0,
        answer.1,
        answer.2
    );
    println!(
        "keel one edit    {:>9.1} ms   {:>6.1} % of cold   ({edited_path}; answer equals a fresh database's)",
        ms(warm),
        100.0 * ms(warm) / ms(cold)
    );
    if options.pycg {
        pycg(options, &files)?;
    }
    Ok(())
}

/// One cold graph of the working tree's sources in a fresh database, then the graph
/// after `edited_path` becomes each of `edits` in turn in the same database (the median
/// time); the last warm answer is checked against a fresh database's.
fn one_run(options: &Options, edited_path: &str, edits: &[Vec<u8>]) -> Result<Run, String> {
    let wanted = |path: &str| is_graph_input(path) && path.starts_with(&options.under);
    let mut db = KeelDatabase::open_objects(&options.repo).map_err(|e| e.to_string())?;
    let files = db.worktree_files(wanted).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let tree = db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
    let answer = shape(call_graph_on_threads(&db, tree, options.threads));
    let cold = started.elapsed();
    let mut next = files.clone();
    let mut times = Vec::with_capacity(edits.len());
    let mut edited_answer = answer;
    for edited in edits {
        let blob = db.objects().insert_blob(edited);
        for (path, oid) in &mut next {
            if *path == edited_path {
                *oid = blob;
            }
        }
        let started = Instant::now();
        db.set_sources(tree, graph_inputs(&next));
        edited_answer = shape(call_graph_on_threads(&db, tree, options.threads));
        times.push(started.elapsed());
    }
    times.sort();
    let warm = times[times.len() / 2];
    let fresh = KeelDatabase::open_objects(&options.repo).map_err(|e| e.to_string())?;
    if let Some(last) = edits.last() {
        fresh.objects().insert_blob(last);
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
    Ok(Run { cold, warm, answer })
}

/// The bytes of `path` with a statement setting `value` added to the first function body:
/// after the first line ending with `:` that starts with `def`/`function`, at the next
/// line's indentation.
fn with_statement(path: &str, bytes: &[u8], value: usize) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let python = path.ends_with(".py");
    let mut out = String::with_capacity(text.len() + 32);
    let mut lines = text.split_inclusive('\n').peekable();
    let mut done = false;
    while let Some(line) = lines.next() {
        out.push_str(line);
        let trimmed = line.trim();
        let opens = if python {
            trimmed.starts_with("def ") && trimmed.ends_with(':')
        } else {
            trimmed.starts_with("function ") && trimmed.ends_with('{')
        };
        if !done && opens {
            let next = lines.peek()?;
            let indent: String = next.chars().take_while(|c| c.is_whitespace()).collect();
            let indent = indent.trim_end_matches(['\n', '\r']);
            out.push_str(indent);
            out.push_str(&if python {
                format!("_keel_bench = {value}\n")
            } else {
                format!("const keelBench = {value};\n")
            });
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
