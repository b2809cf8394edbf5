//! `diff-agree`: keel's pinned line diff against the git CLI over a repository's history.
//!
//! Owns: walking every non-merge commit reachable from a revision (default `HEAD`), taking
//! every modified file whose both sides are blobs holding no NUL byte, and comparing
//! `keel_queries::diff::line_hunks` with the hunks of
//! `git diff --histogram --no-indent-heuristic -U0` for the same pair. git is the
//! baseline: ONE `git log --raw -p` prints the pairs and git's hunks, one
//! `git cat-file --batch` serves the blobs; git's ambient configuration and attributes are
//! pinned away. Prints `agreement: N/M file pairs` and the first disagreements; exits
//! non-zero unless N = M.
//! Does not own: the diff algorithm, or the differential tests on built cases
//! (`keel-queries`' `diff_against_git`).
//!
//! Usage: `cargo run --release -p keel-benches --bin diff-agree -- --repo DIR [--rev REV] [--show N]`

use keel_benches::BlobReader;
use keel_fixtures::pinned_git;
use keel_queries::diff::{Hunk, is_binary, line_hunks};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// git's well-known empty tree: reading attributes from it means reading none.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// Marks a commit line in the `git log` output; no diff line starts with it.
const COMMIT_MARK: u8 = 0x01;

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\nusage: diff-agree --repo DIR [--rev REV] [--show N]");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(tally) => {
            tally.print(options.show);
            if tally.agreed == tally.compared {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            eprintln!("diff-agree: {message}");
            ExitCode::from(2)
        }
    }
}

struct Options {
    repo: PathBuf,
    rev: String,
    show: usize,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let (mut repo, mut rev, mut show) = (None, "HEAD".to_string(), 10);
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--repo" => repo = Some(PathBuf::from(value()?)),
                "--rev" => rev = value()?,
                "--show" => show = value()?.parse().map_err(|_| "--show needs a number")?,
                _ => return Err(format!("unknown argument {arg}")),
            }
        }
        Ok(Self {
            repo: repo.ok_or("--repo is required")?,
            rev,
            show,
        })
    }
}

/// A `git` command in `repo` with ambient configuration and attributes pinned away.
fn git(repo: &Path) -> Command {
    let mut command = pinned_git(repo);
    command
        .env("GIT_ATTR_NOSYSTEM", "1")
        .args(["-c", "color.ui=never", "-c", "core.quotepath=false"])
        .args(["-c", "core.attributesFile=/dev/null"])
        .args(["-c", &format!("attr.tree={EMPTY_TREE}")]);
    command
}

/// One modified path of one commit, as the raw diff names it.
struct Pair {
    old_mode: String,
    new_mode: String,
    old_oid: String,
    new_oid: String,
    path: String,
    /// git's hunks, from the patch section of the same index.
    git_hunks: Vec<Hunk>,
    git_says_binary: bool,
}

impl Pair {
    fn parse_raw(line: &str) -> Option<Self> {
        let (meta, path) = line.strip_prefix(':')?.split_once('\t')?;
        let mut fields = meta.split(' ');
        Some(Self {
            old_mode: fields.next()?.to_string(),
            new_mode: fields.next()?.to_string(),
            old_oid: fields.next()?.to_string(),
            new_oid: fields.next()?.to_string(),
            path: path.to_string(),
            git_hunks: Vec::new(),
            git_says_binary: false,
        })
    }

    /// Both sides are blobs (regular files or symlinks, not submodules) and they differ.
    fn is_blob_change(&self) -> bool {
        let blob = |mode: &str| mode.starts_with("100") || mode == "120000";
        blob(&self.old_mode) && blob(&self.new_mode) && self.old_oid != self.new_oid
    }
}

/// What the walk found.
#[derive(Default)]
struct Tally {
    commits: usize,
    compared: usize,
    agreed: usize,
    skipped_binary: usize,
    skipped_not_blob: usize,
    disagreements: Vec<String>,
}

impl Tally {
    fn print(&self, show: usize) {
        println!("non-merge commits with modified files: {}", self.commits);
        println!(
            "skipped: {} pairs with a NUL byte, {} pairs not blob-to-blob changes",
            self.skipped_binary, self.skipped_not_blob
        );
        println!("agreement: {}/{} file pairs", self.agreed, self.compared);
        for disagreement in self.disagreements.iter().take(show) {
            println!("{disagreement}");
        }
    }
}

fn run(options: &Options) -> Result<Tally, String> {
    let mut log = git(&options.repo)
        .args([
            "log",
            "--no-merges",
            "--no-color",
            "--format=%x01%H",
            "--raw",
            "--no-abbrev",
        ])
        .args([
            "-p",
            "--histogram",
            "--no-indent-heuristic",
            "-U0",
            "--inter-hunk-context=0",
        ])
        .args([
            "--no-textconv",
            "--no-ext-diff",
            "--no-renames",
            "--diff-filter=M",
        ])
        .arg(&options.rev)
        .arg("--")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run git log: {error}"))?;
    let stdout = log.stdout.take().ok_or("git log has no stdout")?;
    let mut blobs = BlobReader::spawn(git(&options.repo))?;
    let mut tally = Tally::default();
    let mut walk = LogWalk::default();
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|error| format!("reading git log: {error}"))?;
        if read == 0 {
            break;
        }
        if let Some(commit) = walk.feed(&line)? {
            compare_commit(&commit, &mut blobs, &mut tally)?;
        }
    }
    if let Some(commit) = walk.finish() {
        compare_commit(&commit, &mut blobs, &mut tally)?;
    }
    let status = log.wait().map_err(|error| format!("git log: {error}"))?;
    if !status.success() {
        return Err(format!("git log failed: {status}"));
    }
    Ok(tally)
}

/// One commit's modified pairs with git's hunks.
struct Commit {
    id: String,
    pairs: Vec<Pair>,
}

/// Parses `git log --raw -p` output line by line into commits.
///
/// Raw lines (`:mode mode oid oid M\tpath`) come first; patch sections follow in the same
/// order, each opening with `diff --git`.
#[derive(Default)]
struct LogWalk {
    current: Option<Commit>,
    /// Index of the pair whose patch section is being read.
    section: Option<usize>,
}

impl LogWalk {
    /// Consumes one line; returns the previous commit when a new one starts.
    fn feed(&mut self, line: &[u8]) -> Result<Option<Commit>, String> {
        if let Some(id) = line.strip_prefix(&[COMMIT_MARK]) {
            let id = String::from_utf8_lossy(id).trim_end().to_string();
            self.section = None;
            return Ok(self.current.replace(Commit {
                id,
                pairs: Vec::new(),
            }));
        }
        let Some(commit) = self.current.as_mut() else {
            return Ok(None);
        };
        if line.starts_with(b":") {
            let text = String::from_utf8_lossy(line);
            let pair = Pair::parse_raw(text.trim_end_matches('\n'))
                .ok_or_else(|| format!("unreadable raw line in {}: {text}", commit.id))?;
            commit.pairs.push(pair);
        } else if line.starts_with(b"diff --git ") {
            let next = self.section.map_or(0, |index| index + 1);
            if next >= commit.pairs.len() {
                return Err(format!("more patches than raw lines in {}", commit.id));
            }
            self.section = Some(next);
        } else if let Some(pair) = self.section.map(|index| &mut commit.pairs[index]) {
            if line.starts_with(b"@@ ") {
                let header = String::from_utf8_lossy(line);
                let hunk = parse_header(&header)
                    .ok_or_else(|| format!("unreadable hunk header in {}: {header}", commit.id))?;
                pair.git_hunks.push(hunk);
            } else if line.starts_with(b"Binary files ") {
                pair.git_says_binary = true;
            }
        }
        Ok(None)
    }

    fn finish(&mut self) -> Option<Commit> {
        self.current.take()
    }
}

/// `@@ -3 +4,0 @@ context` into 0-based half-open ranges.
fn parse_header(line: &str) -> Option<Hunk> {
    let mut fields = line.split(' ');
    let old = fields.nth(1)?.strip_prefix('-')?;
    let new = fields.next()?.strip_prefix('+')?;
    Some(Hunk {
        before: parse_range(old)?,
        after: parse_range(new)?,
    })
}

fn parse_range(text: &str) -> Option<std::ops::Range<u32>> {
    let (start, count) = match text.split_once(',') {
        Some((start, count)) => (start.parse::<u32>().ok()?, count.parse::<u32>().ok()?),
        None => (text.parse::<u32>().ok()?, 1),
    };
    Some(if count == 0 {
        start..start
    } else {
        start.checked_sub(1)?..start - 1 + count
    })
}

fn compare_commit(
    commit: &Commit,
    blobs: &mut BlobReader,
    tally: &mut Tally,
) -> Result<(), String> {
    if !commit.pairs.is_empty() {
        tally.commits += 1;
    }
    for pair in &commit.pairs {
        if !pair.is_blob_change() {
            tally.skipped_not_blob += 1;
            continue;
        }
        let old = blob(blobs, &pair.old_oid)?;
        let new = blob(blobs, &pair.new_oid)?;
        if is_binary(&old) || is_binary(&new) {
            tally.skipped_binary += 1;
            continue;
        }
        tally.compared += 1;
        let keel = line_hunks(&old, &new);
        if !pair.git_says_binary && keel == pair.git_hunks {
            tally.agreed += 1;
        } else {
            tally.disagreements.push(describe(commit, pair, &keel));
        }
    }
    Ok(())
}

fn describe(commit: &Commit, pair: &Pair, keel: &[Hunk]) -> String {
    let headers = |hunks: &[Hunk]| {
        hunks
            .iter()
            .map(Hunk::git_header)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let git = if pair.git_says_binary {
        "Binary files differ".to_string()
    } else {
        headers(&pair.git_hunks)
    };
    format!(
        "disagreement: {} {}\n  git:  {git}\n  keel: {}",
        commit.id,
        pair.path,
        headers(keel)
    )
}

/// The bytes of a blob the raw diff named: it must exist.
fn blob(blobs: &mut BlobReader, oid: &str) -> Result<Vec<u8>, String> {
    blobs
        .read(oid)?
        .map(|(_, bytes)| bytes)
        .ok_or_else(|| format!("git cat-file: {oid} is missing"))
}
