//! `lint-bench`: keel lint on a real repository — cold, warm, and on one thread —
//! against the git CLI reading the same window's patches, with both answers checked.
//!
//! Usage:
//! - `lint-bench prepare SOURCE DEST [--nodes 39] [--base-date 2019-06-01] [--spec-at REV]
//!   [--tip REV]`: clone a repository and add generated spec nodes on a merged branch
//!   (`prepare`);
//! - `lint-bench REPO [--runs N] [--threads N] [--keel BIN]`: the measured run (`measure`;
//!   the release binary's rows in `binary`), printed as a table with ratios and the checks;
//!   exits 1 when a check fails.
//!
//! Owns: the command line and dispatch. Does not own: preparing (`prepare`), measuring
//! (`measure`, `binary`), git's side (`git`) or the cross-check (`checks`). The numbers
//! belong in a closing note, never in a test.

mod binary;
mod checks;
mod git;
mod measure;
mod prepare;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: lint-bench REPO [--runs N] [--threads N] [--keel BIN]\n       lint-bench prepare SOURCE DEST [--nodes N] [--base-date YYYY-MM-DD] [--spec-at REV] [--tip REV]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("prepare") => {
            parse_prepare(&args[1..]).and_then(|a| prepare::prepare(&a).map(|()| true))
        }
        Some("cold-once") => parse_cold_once(&args[1..]).map(|()| true),
        Some("peak-once") => binary::peak_once(&args[1..]).map(|()| true),
        Some(_) => parse_measure(&args).and_then(|o| measure::run(&o)),
        None => Err(format!("no repository given\n{USAGE}")),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("lint-bench: {message}");
            ExitCode::from(2)
        }
    }
}

/// `--flag value` pairs, in order.
type Flags = Vec<(String, String)>;

/// Splits `--flag value` pairs from positional arguments.
fn split(args: &[String]) -> Result<(Vec<String>, Flags), String> {
    let mut positional = Vec::new();
    let mut flags = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg.starts_with("--") {
            let value = iter
                .next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))?;
            flags.push((arg.clone(), value.clone()));
        } else {
            positional.push(arg.clone());
        }
    }
    Ok((positional, flags))
}

fn number(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{flag}: not a number: {value}"))
}

fn parse_measure(args: &[String]) -> Result<measure::Options, String> {
    let (positional, flags) = split(args)?;
    let [repo] = positional.as_slice() else {
        return Err(format!("expected one repository\n{USAGE}"));
    };
    let mut options = measure::Options {
        repo: PathBuf::from(repo),
        runs: 5,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        keel: PathBuf::new(),
    };
    let mut keel = None;
    for (flag, value) in &flags {
        match flag.as_str() {
            "--runs" => options.runs = number(flag, value)?.max(1),
            "--threads" => options.threads = number(flag, value)?.max(1),
            "--keel" => keel = Some(PathBuf::from(value)),
            other => return Err(format!("unknown flag {other}\n{USAGE}")),
        }
    }
    options.keel = match keel {
        Some(keel) => keel,
        None => keel_benches::release_keel()?,
    };
    Ok(options)
}

fn parse_prepare(args: &[String]) -> Result<prepare::PrepareArgs, String> {
    let (positional, flags) = split(args)?;
    let [source, dest] = positional.as_slice() else {
        return Err(format!("prepare needs SOURCE and DEST\n{USAGE}"));
    };
    let mut prepared = prepare::PrepareArgs {
        source: source.clone(),
        dest: PathBuf::from(dest),
        nodes: 39,
        base_date: "2019-06-01".to_owned(),
        spec_at: None,
        tip: None,
    };
    for (flag, value) in &flags {
        match flag.as_str() {
            "--nodes" => prepared.nodes = number(flag, value)?.max(1),
            "--base-date" => prepared.base_date.clone_from(value),
            "--spec-at" => prepared.spec_at = Some(value.clone()),
            "--tip" => prepared.tip = Some(value.clone()),
            other => return Err(format!("unknown flag {other}\n{USAGE}")),
        }
    }
    Ok(prepared)
}

/// The hidden child of a cold measurement: `cold-once REPO THREADS`.
fn parse_cold_once(args: &[String]) -> Result<(), String> {
    let [repo, threads] = args else {
        return Err("cold-once REPO THREADS".to_owned());
    };
    measure::cold_once(&PathBuf::from(repo), number("THREADS", threads)?)
}
