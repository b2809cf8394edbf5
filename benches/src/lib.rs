//! keel-benches: what the benchmark binaries share.
//!
//! Owns: [`BlobReader`], one long-lived `git cat-file --batch` serving blobs to the
//! baselines that read many, [`quiet_git`], the git command every bench runs,
//! [`git_stdout`], [`release_keel`], the `keel` binary the process benches drive, and
//! [`count_arg`], how a bench reads a count flag's value.
//! Does not own: any measurement (each binary in `src/bin`).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

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
