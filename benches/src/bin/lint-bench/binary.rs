//! The binary end to end: the release `keel lint` timed as users run it, beside git's diff
//! walk, each with its own peak resident set.
//!
//! Owns: the hidden `peak-once PROGRAM ARGS…` child — this binary re-executed between the
//! bench and the measured program, so that its `RUSAGE_CHILDREN` maximum resident set is
//! that one program's (the bench itself waits for many children) — which times its child
//! from spawn to exit and tells both on its last stderr line; the cold `keel lint --format
//! json` process (no `.git/keel/` before it, its memo and kept-answer writes inside the
//! time); the second process after one commit; reading a measured run back.
//! Does not own: the scenario (`prepare`), the plan, the in-process rows and the checks of
//! the answers (`measure`), nor git's command (`git`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Starts the `peak-once` child's closing stderr line.
const PEAK_MARK: &str = "lint-bench-peak";

/// One measured process.
pub(crate) struct Measured {
    pub(crate) wall: Duration,
    /// Its peak resident set in KiB (`ru_maxrss`).
    pub(crate) peak_kib: u64,
    pub(crate) stdout: Vec<u8>,
}

/// The hidden `peak-once PROGRAM ARGS…` child: runs PROGRAM (stdout and stderr shared with
/// this process), then prints `lint-bench-peak ms=… kib=… code=…` on stderr.
pub(crate) fn peak_once(args: &[String]) -> Result<(), String> {
    let (program, rest) = args.split_first().ok_or("peak-once PROGRAM ARGS…")?;
    let start = Instant::now();
    let status = Command::new(program)
        .args(rest)
        .status()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let wall = start.elapsed();
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map_err(|e| format!("getrusage: {e}"))?;
    eprintln!(
        "{PEAK_MARK} ms={} kib={} code={}",
        wall.as_secs_f64() * 1000.0,
        usage.max_rss(),
        status.code().unwrap_or(-1)
    );
    Ok(())
}

/// Runs `command` under a `peak-once` child: its environment (`command`'s variables over a
/// cleared one, plus the bench's `PATH` and `HOME` when `command` sets none), folder and
/// arguments. Exit codes other than 0 and 1 are errors (`keel lint` exits 1 on an error
/// finding).
pub(crate) fn measure(command: &Command) -> Result<Measured, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let mut wrapped = Command::new(exe);
    wrapped
        .arg("peak-once")
        .arg(command.get_program())
        .args(command.get_args())
        .env_clear();
    for key in ["PATH", "HOME"] {
        if let Some(value) = std::env::var_os(key) {
            wrapped.env(key, value);
        }
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapped.env(key, value),
            None => wrapped.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        wrapped.current_dir(dir);
    }
    let output = wrapped
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start the peak-once child: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(PEAK_MARK))
        .ok_or_else(|| format!("the peak-once child failed: {}", stderr.trim()))?;
    let field = |key: &str| -> Result<&str, String> {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
            .ok_or_else(|| format!("peak-once printed no {key}: {line}"))
    };
    let ms: f64 = field("ms")?
        .parse()
        .map_err(|_| "peak-once ms: not a number".to_owned())?;
    let code: i32 = field("code")?
        .parse()
        .map_err(|_| "peak-once code: not a number".to_owned())?;
    if !matches!(code, 0 | 1) {
        return Err(format!(
            "{} exited {code}: {}",
            command.get_program().to_string_lossy(),
            stderr.trim()
        ));
    }
    Ok(Measured {
        wall: Duration::from_secs_f64(ms / 1000.0),
        peak_kib: field("kib")?
            .parse()
            .map_err(|_| "peak-once kib: not a number".to_owned())?,
        stdout: output.stdout,
    })
}

/// `keel lint --format json` of `repo` as a user runs it.
pub(crate) fn keel_lint(keel: &Path, repo: &Path) -> Command {
    let mut command = Command::new(keel);
    command
        .args(["lint", "--format", "json", "--repo"])
        .arg(repo)
        .current_dir(repo)
        .env("NO_COLOR", "1");
    command
}

/// Removes `repo`'s `.git/keel/` (memo and kept answer): the next process is cold.
pub(crate) fn clear_cache(repo: &Path) -> Result<(), String> {
    let cache = repo.join(".git").join("keel");
    match std::fs::remove_dir_all(&cache) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", cache.display())),
    }
}

/// The report a `keel lint --format json` process printed.
pub(crate) fn report(measured: &Measured) -> Result<serde_json::Value, String> {
    serde_json::from_slice(&measured.stdout)
        .map_err(|e| format!("keel lint printed no JSON report: {e}"))
}
