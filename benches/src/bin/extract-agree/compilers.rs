//! The compilers' side of `extract-agree`: CPython's `ast` and the TypeScript compiler API,
//! each driven by a small script that lists every unit of each file and the verdict keel
//! should give its selector under keel's target rules.
//!
//! Owns: the two scripts (`python_units.py`, `typescript_units.cjs`, files beside this
//! module, embedded at build time and written into the scratch copy's `.git/` to run),
//! installing `typescript@5.9` with npm into a cache folder (by default
//! `<cargo target dir>/extract-agree/node`, never inside the repository's sources; only
//! when a TypeScript or JavaScript file is present), running them, and reading their
//! tab-separated records into a [`Listing`]. Neither compiler is ever a dependency of keel.
//! Does not own: the rules themselves (the scripts' docs state them), keel's side or the
//! comparison (`compare`).

use crate::Failure;
use crate::workspace::SourceFile;
use keel_queries::extract::Language;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PYTHON_SCRIPT: &str = include_str!("python_units.py");
const TYPESCRIPT_SCRIPT: &str = include_str!("typescript_units.cjs");
/// The npm package spec the TypeScript side runs on.
const TYPESCRIPT_PACKAGE: &str = "typescript@5.9";
const TYPESCRIPT_VERSION_PREFIX: &str = "5.9.";

/// How the compiler read one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileStatus {
    /// No syntax error.
    Parsed,
    /// The parser recovered from syntax errors (TypeScript); the first is at `line`.
    Errors { line: u32, message: String },
    /// No tree at all (a Python `SyntaxError`, content that is not UTF-8).
    Rejected { line: u32, message: String },
}

/// The verdict the compiler side expects keel to give a selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Expect {
    Live,
    TypeOnly,
    Ambiguous,
    /// The unit holds (or sits in a unit that holds) a syntax error.
    Unparseable,
    /// No such unit: a name only keel's extractor lists (filled in by `compare`).
    Dead,
}

impl Expect {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "live" => Self::Live,
            "type-only" => Self::TypeOnly,
            "ambiguous" => Self::Ambiguous,
            "unparseable" => Self::Unparseable,
            _ => return None,
        })
    }
}

/// One selector as the compiler side sees it.
#[derive(Debug, Clone)]
pub(crate) struct Expected {
    pub(crate) name: String,
    pub(crate) verdict: Expect,
    /// How the unit was formed, `+`-joined: plain, overload, property, accessor,
    /// decl-space, type-merge, global, block-var (keel-only for names only keel lists).
    pub(crate) group: String,
    /// function, method, class, variable, enum, type (`+`-joined when ambiguous).
    pub(crate) kind: String,
    /// 1-based inclusive line ranges, one per unit.
    pub(crate) ranges: Vec<(u32, u32)>,
}

/// One file as the compiler read it, with its selectors.
#[derive(Debug, Clone)]
pub(crate) struct FileListing {
    pub(crate) path: String,
    pub(crate) language: Language,
    pub(crate) status: FileStatus,
    pub(crate) selectors: Vec<Expected>,
}

/// Everything the compilers said.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// `CPython 3.11.7`, `TypeScript 5.9.3`: the compilers that ran.
    pub(crate) compilers: Vec<String>,
    pub(crate) files: Vec<FileListing>,
    /// Paths no script can be handed (a tab or newline in the name).
    pub(crate) skipped: Vec<String>,
}

/// `<cargo target dir>/extract-agree/node`, found from this binary's own path
/// (`target/<profile>/extract-agree`).
pub(crate) fn default_node_cache() -> Result<PathBuf, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Tool(format!("cannot find this binary: {e}")))?;
    let target = exe.parent().and_then(Path::parent).ok_or_else(|| {
        Failure::Usage("cannot place the npm cache; pass --node-cache DIR".to_owned())
    })?;
    Ok(target.join("extract-agree").join("node"))
}

/// Runs the compilers over `files` (paths relative to `root`).
pub(crate) fn list(
    root: &Path,
    files: &[SourceFile],
    python: &str,
    node_cache: &Path,
) -> Result<Listing, Failure> {
    let mut listing = Listing::default();
    let (mut py, mut ts): (Vec<&SourceFile>, Vec<&SourceFile>) = (Vec::new(), Vec::new());
    for file in files {
        if file.path.contains(['\t', '\n', '\r']) {
            listing.skipped.push(file.path.clone());
        } else if file.language == Language::Python {
            py.push(file);
        } else {
            ts.push(file);
        }
    }
    let scripts = root.join(".git").join("extract-agree");
    std::fs::create_dir_all(&scripts)
        .map_err(|e| Failure::Tool(format!("cannot create {}: {e}", scripts.display())))?;
    if !py.is_empty() {
        let script = write_script(&scripts, "python_units.py", PYTHON_SCRIPT)?;
        let mut command = Command::new(python);
        command.arg(&script).arg(root);
        let output = run_script(command, python, &py)?;
        read_records(&output, &py, &mut listing)?;
    }
    if !ts.is_empty() {
        let module = ensure_typescript(node_cache)?;
        let script = write_script(&scripts, "typescript_units.cjs", TYPESCRIPT_SCRIPT)?;
        let mut command = Command::new("node");
        command.arg(&script).arg(&module).arg(root);
        let output = run_script(command, "node", &ts)?;
        read_records(&output, &ts, &mut listing)?;
    }
    Ok(listing)
}

fn write_script(folder: &Path, name: &str, text: &str) -> Result<PathBuf, Failure> {
    let path = folder.join(name);
    std::fs::write(&path, text)
        .map_err(|e| Failure::Tool(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// The TypeScript module folder in `cache`, installed with npm unless a 5.9 is there.
fn ensure_typescript(cache: &Path) -> Result<PathBuf, Failure> {
    let module = cache.join("node_modules").join("typescript");
    if installed_version(&module).is_some_and(|v| v.starts_with(TYPESCRIPT_VERSION_PREFIX)) {
        return Ok(module);
    }
    std::fs::create_dir_all(cache)
        .map_err(|e| Failure::Tool(format!("cannot create {}: {e}", cache.display())))?;
    let manifest = cache.join("package.json");
    if !manifest.exists() {
        std::fs::write(
            &manifest,
            "{\"private\": true, \"description\": \"extract-agree's TypeScript compiler\"}\n",
        )
        .map_err(|e| Failure::Tool(format!("cannot write {}: {e}", manifest.display())))?;
    }
    eprintln!(
        "extract-agree: installing {TYPESCRIPT_PACKAGE} into {}",
        cache.display()
    );
    let output = Command::new("npm")
        .current_dir(cache)
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            TYPESCRIPT_PACKAGE,
        ])
        .output()
        .map_err(|e| Failure::Tool(format!("cannot run npm (is it installed?): {e}")))?;
    if !output.status.success() {
        return Err(Failure::Tool(format!(
            "npm install {TYPESCRIPT_PACKAGE} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    match installed_version(&module) {
        Some(v) if v.starts_with(TYPESCRIPT_VERSION_PREFIX) => Ok(module),
        other => Err(Failure::Tool(format!(
            "npm installed typescript {} into {}, expected {TYPESCRIPT_VERSION_PREFIX}x",
            other.unwrap_or_else(|| "(nothing)".to_owned()),
            cache.display()
        ))),
    }
}

/// The `"version"` of an installed npm package, read from its `package.json`.
fn installed_version(module: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(module.join("package.json")).ok()?;
    let after = manifest.split("\"version\"").nth(1)?;
    let value = after.split('"').nth(1)?;
    Some(value.to_owned())
}

/// Runs a script with the NUL-separated paths on stdin; its stdout.
fn run_script(
    mut command: Command,
    program: &str,
    files: &[&SourceFile],
) -> Result<String, Failure> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::Tool(format!("cannot run {program} (is it installed?): {e}")))?;
    let mut input = Vec::new();
    for file in files {
        input.extend_from_slice(file.path.as_bytes());
        input.push(0);
    }
    // The scripts read all of stdin before writing anything, so this cannot deadlock.
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| Failure::Tool(format!("{program} has no stdin")))?;
    stdin
        .write_all(&input)
        .map_err(|e| Failure::Tool(format!("cannot feed {program}: {e}")))?;
    drop(stdin);
    let output = child
        .wait_with_output()
        .map_err(|e| Failure::Tool(format!("{program} did not finish: {e}")))?;
    if !output.status.success() {
        return Err(Failure::Tool(format!(
            "{program} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| Failure::Tool(format!("{program} printed something that is not UTF-8")))
}

/// Reads a script's records into `listing`; every file handed over must be answered.
fn read_records(output: &str, files: &[&SourceFile], listing: &mut Listing) -> Result<(), Failure> {
    let bad =
        |line: &str| Failure::Tool(format!("unexpected line from a compiler script: {line:?}"));
    let first = listing.files.len();
    for line in output.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["V", compiler] => listing.compilers.push((*compiler).to_owned()),
            ["F", path, rest @ ..] => {
                let status = match rest {
                    ["parsed"] => FileStatus::Parsed,
                    [kind @ ("errors" | "rejected"), line_no, message] => {
                        let line_no = line_no.parse().map_err(|_| bad(line))?;
                        let message = (*message).to_owned();
                        if *kind == "errors" {
                            FileStatus::Errors {
                                line: line_no,
                                message,
                            }
                        } else {
                            FileStatus::Rejected {
                                line: line_no,
                                message,
                            }
                        }
                    }
                    _ => return Err(bad(line)),
                };
                let language = files
                    .iter()
                    .find(|f| f.path == *path)
                    .map(|f| f.language)
                    .ok_or_else(|| bad(line))?;
                listing.files.push(FileListing {
                    path: (*path).to_owned(),
                    language,
                    status,
                    selectors: Vec::new(),
                });
            }
            ["S", path, name, verdict, group, kind, ranges] => {
                let file = listing.files[first..]
                    .iter_mut()
                    .rev()
                    .find(|f| f.path == *path)
                    .ok_or_else(|| bad(line))?;
                file.selectors.push(Expected {
                    name: (*name).to_owned(),
                    verdict: Expect::parse(verdict).ok_or_else(|| bad(line))?,
                    group: (*group).to_owned(),
                    kind: (*kind).to_owned(),
                    ranges: parse_ranges(ranges).ok_or_else(|| bad(line))?,
                });
            }
            _ => return Err(bad(line)),
        }
    }
    let answered = listing.files.len() - first;
    if answered != files.len() {
        return Err(Failure::Tool(format!(
            "a compiler script answered for {answered} of {} files",
            files.len()
        )));
    }
    Ok(())
}

/// `3-5;9-9` → `[(3, 5), (9, 9)]`.
fn parse_ranges(text: &str) -> Option<Vec<(u32, u32)>> {
    text.split(';')
        .map(|range| {
            let (start, end) = range.split_once('-')?;
            Some((start.parse().ok()?, end.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_read_per_file() {
        let files = [SourceFile {
            path: "a.py".to_owned(),
            language: Language::Python,
        }];
        let refs: Vec<&SourceFile> = files.iter().collect();
        let mut listing = Listing::default();
        let output = "V\tCPython 3.11.7\nF\ta.py\tparsed\nS\ta.py\tC.p\tlive\tproperty\tmethod\t2-9\nS\ta.py\tf\tambiguous\tplain\tfunction\t1-1;10-12\n";
        assert!(read_records(output, &refs, &mut listing).is_ok());
        assert_eq!(listing.compilers, ["CPython 3.11.7"]);
        let file = &listing.files[0];
        assert_eq!(file.status, FileStatus::Parsed);
        assert_eq!(file.selectors[1].ranges, [(1, 1), (10, 12)]);
        assert_eq!(file.selectors[1].verdict, Expect::Ambiguous);
        let mut again = Listing::default();
        assert!(read_records("F\tb.py\tparsed\n", &refs, &mut again).is_err());
        assert!(read_records("V\tx\n", &refs, &mut Listing::default()).is_err());
    }
}
