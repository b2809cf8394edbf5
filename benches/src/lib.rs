//! keel-benches: what the benchmark binaries share.
//!
//! Owns: [`BlobReader`], one long-lived `git cat-file --batch` serving blobs to the
//! baselines that read many, [`quiet_git`], the git command every bench runs,
//! [`git_stdout`], [`release_keel`], the `keel` binary the process benches drive, and
//! [`count_arg`], how a bench reads a count flag's value, and what the benches that time the
//! release binary share: [`keel_run`] (wall and CPU time, [`children_cpu`]), [`own_cpu`] (the
//! same work's CPU time in process), [`median_of`],
//! [`ms`], [`check`], and [`spread_specs`] (a prepared repository's specs in every tip).
//! Does not own: any measurement (each binary in `src/bin`).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A pinned git command in `repo` (`keel_fixtures::pinned_git`) with colour off, paths
/// unquoted, and no hook or signing the repository's own config may ask for.
pub fn quiet_git(repo: &Path) -> Command {
    let mut command = keel_fixtures::pinned_git(repo);
    command.args([
        "-c",
        "color.ui=never",
        "-c",
        "core.quotepath=false",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "commit.gpgsign=false",
    ]);
    command
}

/// `git ARGS` in `dir` under the fixtures' pinned environment: its stdout, or its stderr
/// as the error.
pub fn git_stdout(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = keel_fixtures::pinned_git(dir)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| e.to_string())
}

/// The release `keel` binary beside the running bench (`cargo build --release` builds
/// both).
pub fn release_keel() -> Result<PathBuf, String> {
    let keel = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .with_file_name("keel");
    if !keel.exists() {
        return Err(format!(
            "{} is missing; run `cargo build --release` first",
            keel.display()
        ));
    }
    Ok(keel)
}

/// A running `git cat-file --batch`: one request, one answer.
pub struct BlobReader {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl BlobReader {
    /// Starts `git cat-file --batch` from `git`, a `git` command already pinned to the
    /// repository and the caller's configuration.
    pub fn spawn(mut git: Command) -> Result<Self, String> {
        let mut child = git
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|error| format!("cannot run git cat-file: {error}"))?;
        let input = child.stdin.take().ok_or("git cat-file has no stdin")?;
        let output = child.stdout.take().ok_or("git cat-file has no stdout")?;
        Ok(Self {
            child,
            input: Some(input),
            output: BufReader::new(output),
        })
    }

    /// The object id and bytes of the blob `name` (an id or `rev:path`), `None` when git
    /// reports it missing.
    pub fn read(&mut self, name: &str) -> Result<Option<(String, Vec<u8>)>, String> {
        let failed = |error: std::io::Error| format!("git cat-file {name}: {error}");
        let input = self.input.as_mut().ok_or("git cat-file was finished")?;
        writeln!(input, "{name}").map_err(failed)?;
        input.flush().map_err(failed)?;
        let mut header = String::new();
        self.output.read_line(&mut header).map_err(failed)?;
        if header.trim_end().ends_with(" missing") {
            return Ok(None);
        }
        let fields: Vec<&str> = header.split_whitespace().collect();
        let [oid, "blob", size] = fields.as_slice() else {
            return Err(format!(
                "git cat-file: unexpected answer {header:?} for {name}"
            ));
        };
        let size: usize = size
            .parse()
            .map_err(|_| format!("git cat-file: bad header {header:?}"))?;
        let mut bytes = vec![0; size + 1];
        self.output.read_exact(&mut bytes).map_err(failed)?;
        bytes.pop();
        Ok(Some(((*oid).to_owned(), bytes)))
    }

    /// Closes git's input and waits for it to end well.
    pub fn finish(mut self) -> Result<(), String> {
        drop(self.input.take());
        let status = self
            .child
            .wait()
            .map_err(|error| format!("git cat-file: {error}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("git cat-file failed: {status}"))
        }
    }
}

impl Drop for BlobReader {
    fn drop(&mut self) {
        drop(self.input.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A count flag's value (`--runs 9`): a whole number above zero, or the usage line.
pub fn count_arg(value: Option<String>, usage: &str) -> Result<usize, String> {
    value
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| usage.to_owned())
}

/// One `keel` run: its wall and CPU time, exit code and output.
#[derive(Clone)]
pub struct KeelRun {
    pub time: Duration,
    /// `None` where the OS does not tell (see [`children_cpu`]).
    pub cpu: Option<Duration>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs keel in `repo`, timing it; exit 2 (or a signal) is an error.
pub fn keel_run(keel: &Path, repo: &Path, args: &[&str]) -> Result<KeelRun, String> {
    let cpu_before = children_cpu();
    let started = Instant::now();
    let output = Command::new(keel)
        .args(args)
        .current_dir(repo)
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| e.to_string())?;
    let time = started.elapsed();
    let cpu = children_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let code = output.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if code == 2 || code < 0 {
        return Err(format!("keel {}: exit {code}: {stderr}", args.join(" ")));
    }
    Ok(KeelRun {
        time,
        cpu,
        code,
        stdout,
        stderr,
    })
}

/// The CPU time of this process's waited-for children (user + system, to the
/// microsecond): `None` where the OS does not tell.
pub fn children_cpu() -> Option<Duration> {
    cpu_of(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
}

/// The CPU time of this process so far, every thread's (user + system, to the
/// microsecond): `None` where the OS does not tell.
pub fn own_cpu() -> Option<Duration> {
    cpu_of(nix::sys::resource::UsageWho::RUSAGE_SELF)
}

fn cpu_of(who: nix::sys::resource::UsageWho) -> Option<Duration> {
    let usage = nix::sys::resource::getrusage(who).ok()?;
    let time = |value: nix::sys::time::TimeVal| {
        Some(Duration::new(
            u64::try_from(value.tv_sec()).ok()?,
            u32::try_from(value.tv_usec()).ok()? * 1000,
        ))
    };
    Some(time(usage.user_time())? + time(usage.system_time())?)
}

/// The median of some durations (the upper one of an even count).
pub fn median_of(times: impl IntoIterator<Item = Duration>) -> Duration {
    let mut times: Vec<Duration> = times.into_iter().collect();
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// A duration in milliseconds.
pub fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1e3
}

/// `holds`, saying on stderr which check of `bench` failed when it does not.
pub fn check(bench: &str, holds: bool, what: &str) -> bool {
    if !holds {
        eprintln!("{bench}: check failed: {what}");
    }
    holds
}

/// Puts the tip's `.spec/` files into every commit from the `tips`-th first-parent
/// commit of the pre-merge tip onwards (a `lint-bench prepare`d repository has them at
/// its last merge only), on branch `replay`, checked out: every tip then holds the specs.
pub fn spread_specs(repo: &Path, tips: usize) -> Result<(), String> {
    let specs = git_stdout(repo, &["ls-tree", "-r", "HEAD", ".spec"])?;
    if specs.is_empty() {
        return Err("the repository has no .spec/ at HEAD: run `lint-bench prepare` first".into());
    }
    let index_info = repo.join(".git").join("bench-specs");
    std::fs::write(&index_info, &specs).map_err(|e| e.to_string())?;
    git_stdout(repo, &["checkout", "-q", "-b", "replay", "HEAD^1"])?;
    let chain = git_stdout(repo, &["rev-list", "--first-parent", "HEAD"])?;
    let start = chain.lines().nth(tips - 1).ok_or(format!(
        "the history has fewer than {tips} first-parent commits"
    ))?;
    let filter = format!(
        "git update-index --add --index-info < '{}'",
        index_info.display()
    );
    let range = format!("{start}^..HEAD");
    let output = keel_fixtures::pinned_git(repo)
        .env("FILTER_BRANCH_SQUELCH_WARNING", "1")
        .args([
            "filter-branch",
            "-f",
            "--index-filter",
            &filter,
            "--",
            &range,
        ])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "git filter-branch: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    git_stdout(repo, &["reset", "-q", "--hard", "HEAD"])?;
    Ok(())
}
