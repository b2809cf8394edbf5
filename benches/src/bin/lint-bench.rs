//! `lint-bench`: keel lint, cold and warm, against the git CLI doing the same reads.
//!
//! Builds a synthetic Python history with `git fast-import` (deterministic: a seeded
//! generator, fixed dates), pins units with spec nodes, then measures side by side:
//! - keel cold: open a database and lint HEAD;
//! - keel warm: one more commit lands, the same database re-lints;
//! - git baseline: what a git-CLI linter runs for the same answer — per node, the version
//!   (`git log -1 -- spec.md`) and the window's zero-context histogram patches of the
//!   anchored file (`git log -p --histogram -U0 version..HEAD -- file`).
//!
//! Usage: `cargo run --release -p keel-benches --bin lint-bench -- [--commits N]
//! [--files N] [--nodes N] [--runs N]`. Prints times and ratios; the numbers belong in a
//! closing note, never in a test.

use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::pinned_git;
use keel_fixtures::rng::SeededRng;
use keel_queries::lint::{lint, lint_on_threads};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

struct Shape {
    commits: usize,
    files: usize,
    nodes: usize,
    runs: usize,
}

const FUNCTIONS: usize = 12;

fn parse_args() -> Result<Shape, String> {
    let mut shape = Shape {
        commits: 3000,
        files: 40,
        nodes: 30,
        runs: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let n: usize = value
            .parse()
            .map_err(|_| format!("{flag}: not a number: {value}"))?;
        match flag.as_str() {
            "--commits" => shape.commits = n,
            "--files" => shape.files = n,
            "--nodes" => shape.nodes = n,
            "--runs" => shape.runs = n.max(1),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(shape)
}

/// One module: `FUNCTIONS` functions, each a few body lines.
fn render(bodies: &[Vec<u32>]) -> String {
    let mut text = String::from("import os\n");
    for (index, body) in bodies.iter().enumerate() {
        text.push_str(&format!("\n\ndef f{index}(x):\n"));
        for value in body {
            text.push_str(&format!("    x = x + {value}\n"));
        }
        text.push_str("    return x\n");
    }
    text
}

fn spec(file: usize, a: usize, b: usize, version: usize) -> String {
    format!("---\ncode:\n  - src/m{file}.py#f{a},f{b}\n---\nversion {version}\n")
}

/// A fast-import stream for the whole history.
fn history(shape: &Shape) -> String {
    let mut rng = SeededRng::new(0x5EED);
    let mut files: Vec<Vec<Vec<u32>>> = (0..shape.files)
        .map(|_| (0..FUNCTIONS).map(|_| vec![1, 2, 3]).collect())
        .collect();
    let nodes: Vec<(usize, usize, usize)> = (0..shape.nodes)
        .map(|i| {
            let a = rng.below(FUNCTIONS);
            (
                i % shape.files,
                a,
                (a + 1 + rng.below(FUNCTIONS - 1)) % FUNCTIONS,
            )
        })
        .collect();
    let mut stream = String::new();
    for commit in 0..shape.commits {
        let when = 1_767_225_600 + 60 * commit;
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :{}\ncommitter Bench <bench@keel.invalid> {when} +0000\ndata <<EOM\nstep {commit}\nEOM\n",
            commit + 1
        ));
        if commit > 0 {
            stream.push_str(&format!("from :{commit}\n"));
        }
        let touched: Vec<usize> = if commit == 0 {
            (0..shape.files).collect()
        } else {
            let file = rng.below(shape.files);
            let body = &mut files[file][rng.below(FUNCTIONS)];
            let line = rng.below(body.len());
            body[line] = (commit % 97) as u32;
            vec![file]
        };
        for file in touched {
            let text = render(&files[file]);
            stream.push_str(&format!(
                "M 100644 inline src/m{file}.py\ndata {}\n{text}\n",
                text.len()
            ));
        }
        for (index, &(file, a, b)) in nodes.iter().enumerate() {
            if commit == 0 || rng.below(shape.commits / 4 + 1) == 0 {
                let text = spec(file, a, b, commit);
                stream.push_str(&format!(
                    "M 100644 inline .spec/n{index}/spec.md\ndata {}\n{text}\n",
                    text.len()
                ));
            }
        }
    }
    stream
}

fn run_git(dir: &Path, args: &[&str]) -> String {
    let output = pinned_git(dir).args(args).output().expect("git runs");
    assert!(output.status.success(), "git {args:?} failed");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn build(dir: &Path, shape: &Shape) {
    run_git(dir, &["init", "-q", "--initial-branch=main"]);
    let mut child = pinned_git(dir)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(history(shape).as_bytes())
        .expect("fast-import reads the stream");
    assert!(child.wait().expect("fast-import ends").success());
    run_git(dir, &["reset", "-q", "--hard", "main"]);
}

/// The git CLI doing lint's reads: per node, its version and its window's patches.
fn git_baseline(dir: &Path, shape: &Shape) -> usize {
    let mut patch_bytes = 0;
    for index in 0..shape.nodes {
        let spec_path = format!(".spec/n{index}/spec.md");
        let version = run_git(dir, &["log", "-1", "--format=%H", "--", &spec_path]);
        let file = format!("src/m{}.py", index % shape.files);
        let range = format!("{}..HEAD", version.trim());
        patch_bytes += run_git(
            dir,
            &[
                "-c",
                "color.ui=never",
                "log",
                "-p",
                "--histogram",
                "--no-indent-heuristic",
                "-U0",
                "--format=%H %(trailers:key=Spec-OK,valueonly)",
                &range,
                "--",
                &file,
            ],
        )
        .len();
    }
    patch_bytes
}

fn best(runs: usize, mut measure: impl FnMut() -> Duration) -> Duration {
    (0..runs).map(|_| measure()).min().unwrap_or_default()
}

fn main() {
    let shape = match parse_args() {
        Ok(shape) => shape,
        Err(message) => {
            eprintln!(
                "error: {message}; usage: lint-bench [--commits N] [--files N] [--nodes N] [--runs N]"
            );
            std::process::exit(2);
        }
    };
    let temp = tempfile::tempdir().expect("a temporary folder can be created");
    let dir = temp.path();
    build(dir, &shape);
    println!(
        "history: {} commits, {} files, {} nodes",
        shape.commits, shape.files, shape.nodes
    );

    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut findings = 0;
    let cold = best(shape.runs, || {
        let start = Instant::now();
        let db = KeelDatabase::open(dir).expect("the bench repository opens");
        findings = lint_on_threads(&db, threads, keel_queries::lint::Scope::Full)
            .expect("bench specs are valid")
            .findings
            .len();
        start.elapsed()
    });
    let git = best(shape.runs, || {
        let start = Instant::now();
        git_baseline(dir, &shape);
        start.elapsed()
    });

    let mut db = KeelDatabase::open(dir).expect("the bench repository opens");
    lint(&db).expect("bench specs are valid");
    let cold_queries = count_queries(&db);
    let mut warm_total = Duration::ZERO;
    let mut warm_queries = BTreeMap::<String, usize>::new();
    for step in 0..shape.runs {
        let file = format!("src/m{}.py", step % shape.files);
        let mut text = std::fs::read_to_string(dir.join(&file)).expect("bench file reads");
        text = text.replacen("    x = x + ", &format!("    x = x * {step} + "), 1);
        std::fs::write(dir.join(&file), text).expect("bench file writes");
        run_git(dir, &["commit", "-q", "-am", "one more"]);
        let start = Instant::now();
        db.apply_changes(&[ChangeEvent::TipMoved])
            .expect("the tip moves");
        db.take_executed_queries();
        lint(&db).expect("bench specs are valid");
        warm_total += start.elapsed();
        for (name, count) in count_queries(&db) {
            *warm_queries.entry(name).or_default() += count;
        }
    }
    let warm = warm_total / shape.runs as u32;

    println!("findings at HEAD: {findings}");
    println!(
        "keel cold lint:          {:>9.2} ms ({threads} threads)",
        ms(cold)
    );
    println!("git CLI baseline:        {:>9.2} ms", ms(git));
    println!(
        "keel warm re-lint:       {:>9.2} ms (after one new commit)",
        ms(warm)
    );
    println!("ratio cold / git:        {:>9.3}", ms(cold) / ms(git));
    println!("ratio warm / git:        {:>9.4}", ms(warm) / ms(git));
    println!("ratio warm / cold:       {:>9.4}", ms(warm) / ms(cold));
    println!("queries executed by a cold lint / per warm re-lint:");
    for (name, cold) in cold_queries {
        let warm = warm_queries.get(&name).copied().unwrap_or_default() / shape.runs;
        println!("  {name:<24} {cold:>8} {warm:>6}");
    }
}

/// Executed queries by name since the last count.
fn count_queries(db: &KeelDatabase) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for name in db.take_executed_queries() {
        *counts.entry(name).or_default() += 1;
    }
    counts
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
