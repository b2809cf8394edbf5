//! `extract-agree`: keel's extractors against the languages' own compilers on a real
//! repository — every unit the compiler finds is anchored, keel lints, and the two
//! verdicts are compared selector by selector.
//!
//! Usage: `extract-agree REPO [--work DIR] [--python PY] [--node-cache DIR] [--examples N]
//! [--threads N]`.
//!
//! 1. The tip of REPO (a git work tree; its committed `HEAD`, not uncommitted edits) is
//!    copied into a scratch repository (`workspace`): REPO is never written to.
//! 2. The compilers list every unit (`compilers`): CPython's `ast` for `.py`/`.pyi`
//!    (`python_units.py`), the TypeScript 5.9 compiler API for `.ts .mts .cts .tsx .js .jsx
//!    .mjs .cjs` (`typescript_units.cjs`; `typescript@5.9` is installed with npm into a
//!    cache folder beside the cargo target dir, only when such a file exists). Both scripts
//!    turn the compiler's declarations into the verdict keel should give each selector
//!    under keel's TARGET rules (overload and property groups, declaration spaces, block
//!    scope, tolerant extraction): the compiler is the oracle, never keel's grammar.
//! 3. One spec node per source file anchors every selectable name the compiler found, plus
//!    the names only keel's extractor finds (the compiler says there is no such unit), and
//!    is committed in the scratch copy (`workspace`).
//! 4. keel lints the copy in-process and the verdicts are tallied by class, with examples
//!    of each disagreement (`compare`); live selectors also compare their line ranges.
//!
//! Exit codes: 0 every selector agrees on the files the compiler parses; 1 some disagree;
//! 2 bad usage or input (REPO is not a git work tree with a commit, DIR exists); 3 a tool
//! the bench drives failed (git, python, node, npm, keel's lint).
//!
//! Owns: the command line, dispatch and exit codes. Does not own: the copy (`workspace`),
//! the compilers' side (`compilers`), or the comparison (`compare`). The numbers belong in
//! a closing note, never in a test.

mod compare;
mod compilers;
mod workspace;

use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: extract-agree REPO [--work DIR] [--python PY] [--node-cache DIR] [--examples N] [--threads N]";

/// Why a run stopped before it could compare.
#[derive(Debug)]
enum Failure {
    /// The command line is wrong (exit 2).
    Usage(String),
    /// The input cannot be used: REPO is not a git work tree with a commit, the work
    /// folder exists (exit 2).
    Input(String),
    /// A tool the bench drives failed: git, python, node, npm or keel's lint (exit 3).
    Tool(String),
}

impl Failure {
    fn exit_code(&self) -> u8 {
        match self {
            Self::Usage(_) | Self::Input(_) => 2,
            Self::Tool(_) => 3,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(message) => write!(f, "{message}\n{USAGE}"),
            Self::Input(message) | Self::Tool(message) => f.write_str(message),
        }
    }
}

/// What a run was asked for.
#[derive(Debug)]
struct Options {
    repo: PathBuf,
    /// The scratch copy; a temporary folder (removed afterwards) when not given.
    work: Option<PathBuf>,
    python: String,
    /// Where `typescript@5.9` is installed; beside the cargo target dir when not given.
    node_cache: Option<PathBuf>,
    examples: usize,
    threads: usize,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, Failure> {
        let mut repo = None;
        let mut options = Self {
            repo: PathBuf::new(),
            work: None,
            python: "python3".to_owned(),
            node_cache: None,
            examples: 5,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
        };
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            if !arg.starts_with("--") {
                if repo.replace(PathBuf::from(arg)).is_some() {
                    return Err(Failure::Usage("expected one repository".to_owned()));
                }
                continue;
            }
            let value = iter
                .next()
                .ok_or_else(|| Failure::Usage(format!("{arg} needs a value")))?;
            let number = || {
                value
                    .parse::<usize>()
                    .map_err(|_| Failure::Usage(format!("{arg}: not a number: {value}")))
            };
            match arg.as_str() {
                "--work" => options.work = Some(PathBuf::from(value)),
                "--python" => options.python.clone_from(value),
                "--node-cache" => options.node_cache = Some(PathBuf::from(value)),
                "--examples" => options.examples = number()?,
                "--threads" => options.threads = number()?.max(1),
                other => return Err(Failure::Usage(format!("unknown flag {other}"))),
            }
        }
        options.repo = repo.ok_or_else(|| Failure::Usage("no repository given".to_owned()))?;
        Ok(options)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match Options::parse(&args).and_then(|options| run(&options)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(failure) => {
            eprintln!("extract-agree: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}

/// The whole run; `Ok(true)` when every selector on a file the compiler parses agrees.
fn run(options: &Options) -> Result<bool, Failure> {
    let source = workspace::Source::check(&options.repo)?;
    let scratch = workspace::Scratch::create(&source, options.work.as_deref())?;
    let files = scratch.source_files()?;
    let node_cache = match &options.node_cache {
        Some(dir) => dir.clone(),
        None => compilers::default_node_cache()?,
    };
    let listing = compilers::list(scratch.root(), &files, &options.python, &node_cache)?;
    let plan = compare::Plan::build(scratch.root(), &listing)?;
    let nodes = scratch.commit_specs(&plan.spec_nodes())?;
    let report = compare::lint(scratch.root(), options.threads)?;
    let tally = plan.tally(&report)?;
    let mut text = tally.render(&source, &listing, &plan, nodes, options.examples);
    if let Some(kept) = scratch.kept() {
        text.push_str(&format!("\nscratch copy kept at {}\n", kept.display()));
    }
    // A reader that stops early (`| head`) is no failure.
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(Failure::Tool(format!("cannot print the report: {e}")));
        }
        _ => {}
    }
    Ok(tally.all_agree())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|&a| a.to_owned()).collect()
    }

    #[test]
    fn options_need_one_repository_and_known_flags() {
        assert!(matches!(Options::parse(&args(&[])), Err(Failure::Usage(_))));
        assert!(matches!(
            Options::parse(&args(&["a", "b"])),
            Err(Failure::Usage(_))
        ));
        assert!(matches!(
            Options::parse(&args(&["a", "--bogus", "1"])),
            Err(Failure::Usage(_))
        ));
        assert!(matches!(
            Options::parse(&args(&["a", "--examples", "x"])),
            Err(Failure::Usage(_))
        ));
        let parsed = Options::parse(&args(&[
            "repo",
            "--python",
            "python3.13",
            "--examples",
            "2",
        ]));
        assert!(
            matches!(parsed, Ok(ref o) if o.python == "python3.13" && o.examples == 2),
            "{parsed:?}"
        );
    }
}
