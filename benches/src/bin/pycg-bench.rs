//! `pycg-bench`: keel's Python call graph against PyCG's micro-benchmark — outside ground
//! truth: 119 hand-written cases in 17 categories, each a folder with `main.py` (and the
//! modules it imports) and `callgraph.json`, PyCG's expected edges.
//!
//! Owns: building one in-memory source tree per case (blobs hashed into a detached
//! database, no repository), computing keel's graph, mapping keel's node ids to PyCG's
//! names (the module's dotted path, `pkg/__init__.py` as `pkg`; a node `path#Q.n` as
//! `module.Q.n`; the module node `path#<module>` as the bare module name, which is how
//! PyCG names a module's top-level code), and printing micro precision and recall per
//! category and overall.
//!
//! What is compared: edges whose two ends are nodes of keel's graph. PyCG's edges to
//! builtins (`<builtin>.len`, `<**PyStr**>.join`) and to modules outside the case
//! (`ext.Cls`) are external on keel's side too (no edge, not unresolved), so both sides
//! leave them out. PyCG gives lambdas their own nodes (`main.<lambda1>`); keel does not
//! (their calls belong to the nearest named callable), so a PyCG caller inside a lambda
//! is read as that callable, and an edge to a lambda is left out. Every expected edge
//! left out for another reason is listed (none is expected).
//! Does not own: the graph (`keel_queries::callgraph`); PyCG's cases, which keel never
//! vendors: the bench reads them from the path it is given.
//!
//! Usage: `cargo run --release -p keel-benches --bin pycg-bench -- SNIPPETS [--verbose]`
//! where SNIPPETS is PyCG's `micro-benchmark/snippets` folder, e.g. from a clone of
//! `github.com/vitsalis/PyCG`, or `git -C PyCG.git archive HEAD micro-benchmark | tar -x`.
//! `--verbose` lists each case's missed and extra edges. PyCG's own score on these cases
//! is precision 0.992, recall 0.699 (its paper); keel's goal is ≥ 0.99 and ≥ 0.85.

use keel_engine::settings::DEFAULT_MAX_FILE_BYTES;
use keel_engine::{Db, KeelDatabase};
use keel_queries::callgraph::{MODULE, call_graph, graph_inputs};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Edge = (String, String);

#[derive(Default, Clone, Copy)]
struct Score {
    cases: usize,
    expected: usize,
    found: usize,
    hits: usize,
    unresolved: usize,
}

impl Score {
    fn add(&mut self, other: Score) {
        self.cases += other.cases;
        self.expected += other.expected;
        self.found += other.found;
        self.hits += other.hits;
        self.unresolved += other.unresolved;
    }

    fn precision(&self) -> f64 {
        ratio(self.hits, self.found)
    }

    fn recall(&self) -> f64 {
        ratio(self.hits, self.expected)
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut snippets = None;
    let mut verbose = false;
    for arg in args.by_ref() {
        match arg.as_str() {
            "--verbose" => verbose = true,
            "--help" | "-h" => {
                println!("usage: pycg-bench SNIPPETS [--verbose]");
                return ExitCode::SUCCESS;
            }
            _ if snippets.is_none() => snippets = Some(PathBuf::from(arg)),
            _ => {
                eprintln!(
                    "pycg-bench: unexpected argument `{arg}`; usage: pycg-bench SNIPPETS [--verbose]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let Some(snippets) = snippets else {
        eprintln!(
            "pycg-bench: missing SNIPPETS (PyCG's micro-benchmark/snippets folder); usage: pycg-bench SNIPPETS [--verbose]"
        );
        return ExitCode::from(2);
    };
    match run(&snippets, verbose) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("pycg-bench: {err}");
            ExitCode::from(2)
        }
    }
}

fn run(snippets: &Path, verbose: bool) -> Result<(), String> {
    let mut categories: BTreeMap<String, Score> = BTreeMap::new();
    let mut left_out: Vec<String> = Vec::new();
    for category in sorted_dirs(snippets)? {
        let name = file_name(&category);
        for case in sorted_dirs(&category)? {
            let case_name = format!("{name}/{}", file_name(&case));
            let outcome = run_case(&case)?;
            for (edge, reason) in &outcome.left_out {
                left_out.push(format!("{case_name}: {} -> {} ({reason})", edge.0, edge.1));
            }
            if verbose {
                for edge in outcome.expected.difference(&outcome.found) {
                    println!("{case_name}: missed {} -> {}", edge.0, edge.1);
                }
                for edge in outcome.found.difference(&outcome.expected) {
                    println!("{case_name}: extra {} -> {}", edge.0, edge.1);
                }
                for site in &outcome.unresolved_sites {
                    println!("{case_name}: unresolved {site}");
                }
            }
            let hits = outcome.found.intersection(&outcome.expected).count();
            categories.entry(name.clone()).or_default().add(Score {
                cases: 1,
                expected: outcome.expected.len(),
                found: outcome.found.len(),
                hits,
                unresolved: outcome.unresolved,
            });
        }
    }
    if categories.is_empty() {
        return Err(format!(
            "{}: no cases (expected SNIPPETS/CATEGORY/CASE/callgraph.json)",
            snippets.display()
        ));
    }
    println!(
        "{:<14} {:>5} {:>8} {:>6} {:>5} {:>9} {:>7} {:>10}",
        "category", "cases", "expected", "found", "hits", "precision", "recall", "unresolved"
    );
    let mut total = Score::default();
    for (name, score) in &categories {
        print_row(name, score);
        total.add(*score);
    }
    print_row("overall", &total);
    let reasons: BTreeMap<&str, usize> = left_out.iter().fold(BTreeMap::new(), |mut acc, line| {
        let reason = line.rsplit('(').next().unwrap_or("").trim_end_matches(')');
        *acc.entry(reason).or_default() += 1;
        acc
    });
    println!(
        "expected edges left out: {}",
        reasons
            .iter()
            .map(|(reason, count)| format!("{count} {reason}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for line in left_out
        .iter()
        .filter(|line| line.ends_with("(not a node)"))
    {
        println!("  {line}");
    }
    Ok(())
}

fn print_row(name: &str, score: &Score) {
    println!(
        "{:<14} {:>5} {:>8} {:>6} {:>5} {:>9.3} {:>7.3} {:>10}",
        name,
        score.cases,
        score.expected,
        score.found,
        score.hits,
        score.precision(),
        score.recall(),
        score.unresolved
    );
}

struct Outcome {
    expected: BTreeSet<Edge>,
    found: BTreeSet<Edge>,
    left_out: Vec<(Edge, &'static str)>,
    unresolved: usize,
    unresolved_sites: Vec<String>,
}

fn run_case(case: &Path) -> Result<Outcome, String> {
    let json_path = case.join("callgraph.json");
    let json = std::fs::read_to_string(&json_path)
        .map_err(|err| format!("{}: {err}", json_path.display()))?;
    let expected_json: BTreeMap<String, Vec<String>> = serde_json::from_str(&json)
        .map_err(|err| format!("{}: not PyCG's callgraph.json: {err}", json_path.display()))?;
    let db = KeelDatabase::detached();
    let mut files = Vec::new();
    for path in python_files(case, case)? {
        let bytes = std::fs::read(case.join(&path))
            .map_err(|err| format!("{}: {err}", case.join(&path).display()))?;
        files.push((path, db.objects().insert_blob(&bytes)));
    }
    let tree = db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
    let graph = call_graph(&db, tree);
    let nodes: BTreeSet<String> = graph
        .nodes
        .iter()
        .map(|node| pycg_name(node.id.path(), node.id.qualified()))
        .collect();
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(path, _)| pycg_name(path, MODULE))
        .collect();
    let found: BTreeSet<Edge> = graph
        .edges
        .iter()
        .map(|edge| {
            (
                pycg_name(edge.caller.path(), edge.caller.qualified()),
                pycg_name(edge.callee.path(), edge.callee.qualified()),
            )
        })
        .collect();
    let mut expected = BTreeSet::new();
    let mut left_out = Vec::new();
    for (caller, callees) in &expected_json {
        let caller = without_lambdas(caller);
        for callee in callees {
            let edge = (caller.clone(), callee.clone());
            let reason = if callee.starts_with('<') {
                Some("builtin")
            } else if callee.contains("<lambda") {
                Some("to a lambda")
            } else if !modules
                .iter()
                .any(|m| callee == m || callee.starts_with(&format!("{m}.")))
            {
                Some("external")
            } else if !nodes.contains(&caller) || !nodes.contains(callee) {
                Some("not a node")
            } else {
                None
            };
            match reason {
                Some(reason) => left_out.push((edge, reason)),
                None => {
                    expected.insert(edge);
                }
            }
        }
    }
    Ok(Outcome {
        expected,
        found,
        left_out,
        unresolved: graph.unresolved.len(),
        unresolved_sites: graph
            .unresolved
            .iter()
            .map(|site| format!("{}:{} {}", site.caller, site.line, site.callee_text))
            .collect(),
    })
}

/// PyCG's name for node `qualified` of the file at `path`.
fn pycg_name(path: &str, qualified: &str) -> String {
    let stem = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyi"))
        .unwrap_or(path);
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    let module = stem.replace('/', ".");
    if qualified == MODULE {
        module
    } else {
        format!("{module}.{qualified}")
    }
}

/// A PyCG name with its lambda segments dropped: the named callable around them.
fn without_lambdas(name: &str) -> String {
    name.split('.')
        .filter(|segment| !segment.starts_with("<lambda"))
        .collect::<Vec<_>>()
        .join(".")
}

fn sorted_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|err| format!("{}: {err}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The `.py` files under `dir`, as paths relative to `root` with `/`, sorted.
fn python_files(root: &Path, dir: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()))? {
        let path = entry
            .map_err(|err| format!("{}: {err}", dir.display()))?
            .path();
        if path.is_dir() {
            out.extend(python_files(root, &path)?);
        } else if path.extension().is_some_and(|ext| ext == "py") {
            let relative = path
                .strip_prefix(root)
                .map_err(|err| format!("{}: {err}", path.display()))?;
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
    out.sort();
    Ok(out)
}
