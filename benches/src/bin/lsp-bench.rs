//! `lsp-bench REPO [--edits 200]`: `keel lsp` in an editor's session on a real history —
//! how long each one-line edit of an anchored Python file takes from `didChange` to every
//! diagnostic of it published, against a cold `keel lint --worktree --all-nodes` of the
//! same state, and the server's memory after the first edit and after the last.
//!
//! Works on a local clone of REPO (made and removed here; REPO is never written): a clone
//! of a `lint-bench prepare`d repository carries its spec nodes. The edited file is
//! `--file`, else the Python file (with a `return` line) the most spec entries pin; each
//! edit appends a comment (`# edit N`) to a
//! `return` line, in file order, cycling, so some edits land inside pinned units and some
//! outside. The server answers requests after it has linted and published what the
//! notifications before them moved, so the clock stops at the answer to a
//! `textDocument/documentSymbol` sent right after the `didChange`. The cold baseline
//! writes the last edit to the clone's disk and runs the CLI with no `.git/keel/`; its
//! findings are checked against the server's (per node and code, from the diagnostics
//! the server published on each `spec.md`).
//! Owns: the command line, the session, the timing and the table. Needs the release
//! `keel` binary next to this one (`cargo build --release` builds both).

use keel_benches::{count_arg, git_stdout, release_keel};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("lsp-bench: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let usage = "usage: lsp-bench REPO [--edits N] [--file PATH]";
    let mut args = std::env::args().skip(1);
    let source = PathBuf::from(args.next().ok_or(usage)?);
    let mut edits = 200usize;
    let mut chosen: Option<String> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--edits" => edits = count_arg(args.next(), usage)?,
            "--file" => chosen = Some(args.next().ok_or(usage)?),
            _ => return Err(usage.to_owned()),
        }
    }
    let keel = release_keel()?;
    let temp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let repo = temp.path().join("clone");
    git_stdout(
        temp.path(),
        &["clone", "--quiet", &source.display().to_string(), "clone"],
    )?;
    let file = match chosen {
        Some(file) => file,
        None => most_pinned_python_file(&repo)?,
    };
    let original = std::fs::read_to_string(repo.join(&file)).map_err(|e| e.to_string())?;
    let returns = return_lines(&original);
    if returns.is_empty() {
        return Err(format!("{file} has no return line to edit"));
    }
    println!("repository  {} (a clone)", source.display());
    println!("edited      {file} ({edits} one-line edits, a comment appended to a return line)");

    let mut server = Server::start(&keel, &repo)?;
    let started = Instant::now();
    server.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    )?;
    server.notify("initialized", json!({}))?;
    let uri = format!(
        "file://{}",
        repo.join(&file)
            .canonicalize()
            .map_err(|e| e.to_string())?
            .display()
    );
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "python", "version": 0, "text": original}}),
    )?;
    server.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    )?;
    println!(
        "start       {} ms (initialize, first lint, open)",
        started.elapsed().as_millis()
    );

    let mut text = original.clone();
    let mut latencies = Vec::with_capacity(edits);
    let mut rss_first = 0;
    for edit in 0..edits {
        let line = returns[edit % returns.len()];
        text = with_comment(&text, line, edit);
        let clock = Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": edit + 1}, "contentChanges": [{"text": text}]}),
        )?;
        server.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )?;
        latencies.push(clock.elapsed());
        if edit == 0 {
            rss_first = rss_kib(server.child.id())?;
        }
    }
    let rss_last = rss_kib(server.child.id())?;
    let served = server.spec_findings();
    server.request("shutdown", Value::Null)?;
    server.notify("exit", Value::Null)?;
    let _ = server.child.wait();

    std::fs::write(repo.join(&file), &text).map_err(|e| e.to_string())?;
    let clock = Instant::now();
    let cold = Command::new(&keel)
        .args(["lint", "--worktree", "--all-nodes", "--format", "json"])
        .current_dir(&repo)
        .output()
        .map_err(|e| e.to_string())?;
    let cold_time = clock.elapsed();
    let report: Value = serde_json::from_slice(&cold.stdout)
        .map_err(|e| format!("keel lint --worktree printed no report ({e})"))?;
    let linted = findings_by_node(&report);
    if linted != served {
        return Err(format!(
            "the server's findings differ from the CLI's at the last edit:\nserver {served:?}\ncli    {linted:?}"
        ));
    }
    if linted.is_empty() {
        return Err("no finding at the last edit: the comparison proves nothing".to_owned());
    }

    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "checked     {} findings on {} nodes equal between the server and the cold CLI",
        linted.values().map(BTreeMap::len).sum::<usize>(),
        linted.len()
    );
    println!(
        "didChange → diagnostics  p50 {:.1} ms  p95 {:.1} ms  max {:.1} ms",
        ms(at(0.5)),
        ms(at(0.95)),
        ms(at(1.0))
    );
    println!(
        "cold keel lint --worktree --all-nodes  {:.1} ms  (p95 = {:.1}% of it)",
        ms(cold_time),
        100.0 * ms(at(0.95)) / ms(cold_time)
    );
    println!(
        "server RSS  {} KiB after the first edit, {} KiB after {edits} ({:+.1}%)",
        rss_first,
        rss_last,
        100.0 * (rss_last as f64 - rss_first as f64) / rss_first as f64
    );
    Ok(())
}

/// `text` with `  # edit N` appended to 0-based line `line`.
fn with_comment(text: &str, line: usize, edit: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (at, content) in text.split_inclusive('\n').enumerate() {
        if at == line {
            let body = content.trim_end_matches('\n');
            out.push_str(body);
            out.push_str(&format!("  # edit {edit}"));
            out.push_str(&content[body.len()..]);
        } else {
            out.push_str(content);
        }
    }
    out
}

/// The 0-based lines of `text` that are `return` statements (none continued by `\`).
fn return_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with("return ") && !line.ends_with('\\'))
        .map(|(at, _)| at)
        .collect()
}

/// The `.py` file with a `return` line that the most `path#selector` entries of the
/// specs pin.
fn most_pinned_python_file(repo: &Path) -> Result<String, String> {
    let listing = git_stdout(repo, &["ls-files", ".spec"])?;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for spec in listing.lines().filter(|p| p.ends_with("spec.md")) {
        let text = std::fs::read_to_string(repo.join(spec)).map_err(|e| e.to_string())?;
        for line in text.lines() {
            let entry = line.trim().trim_start_matches("- ").trim();
            if let Some((path, _)) = entry.split_once(".py#") {
                *counts.entry(format!("{path}.py")).or_default() += 1;
            }
        }
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    ranked
        .into_iter()
        .map(|(path, _)| path)
        .find(|path| {
            std::fs::read_to_string(repo.join(path))
                .is_ok_and(|text| !return_lines(&text).is_empty())
        })
        .ok_or_else(|| "no spec pins a Python unit of a file with a return line".to_owned())
}

/// A lint report's findings: per node, the count of each code.
fn findings_by_node(report: &Value) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut out: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for finding in report["findings"].as_array().into_iter().flatten() {
        let node = finding["node"].as_str().unwrap_or_default().to_owned();
        let code = finding["code"].as_str().unwrap_or_default().to_owned();
        *out.entry(node).or_default().entry(code).or_default() += 1;
    }
    out
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| "no VmRSS".to_owned())
}

/// A running `keel lsp`, the messages it sent, and the diagnostics it last published per
/// URI.
struct Server {
    child: Child,
    stdin: ChildStdin,
    received: Receiver<Value>,
    next_id: u64,
    diagnostics: BTreeMap<String, Value>,
}

impl Server {
    fn start(keel: &Path, repo: &Path) -> Result<Self, String> {
        let mut child = Command::new(keel)
            .arg("lsp")
            .current_dir(repo)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (sender, received) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Ok(Self {
            child,
            stdin,
            received,
            next_id: 1,
            diagnostics: BTreeMap::new(),
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| e.to_string())
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and waits for its answer, keeping the diagnostics published before.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let message = self
                .received
                .recv_timeout(Duration::from_secs(120))
                .map_err(|_| format!("no answer to {method}"))?;
            if message["method"] == "textDocument/publishDiagnostics" {
                let uri = message["params"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                self.diagnostics
                    .insert(uri, message["params"]["diagnostics"].clone());
            } else if message["id"] == id {
                return Ok(message);
            }
        }
    }

    /// The findings the server last published on the specs: per node, each code's count.
    fn spec_findings(&self) -> BTreeMap<String, BTreeMap<String, usize>> {
        let mut out: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        for (uri, list) in &self.diagnostics {
            let Some(node) = uri
                .split_once("/.spec/")
                .and_then(|(_, rest)| rest.strip_suffix("/spec.md"))
            else {
                continue;
            };
            for diagnostic in list.as_array().into_iter().flatten() {
                let code = diagnostic["code"].as_str().unwrap_or_default().to_owned();
                *out.entry(node.to_owned())
                    .or_default()
                    .entry(code)
                    .or_default() += 1;
            }
        }
        out
    }
}

/// One `Content-Length`-framed JSON message.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}
