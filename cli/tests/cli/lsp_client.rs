//! A scripted LSP client for the `keel lsp` tests: spawns the server in a fixture
//! repository and speaks `Content-Length`-framed JSON-RPC to it as an editor does.
//!
//! Owns: the framing, the reading thread and waiting for answers. Does not own: what the
//! server is asked (the tests).

use crate::support::keel;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `keel lsp` and the messages it sent, read on a thread.
pub(crate) struct Client {
    pub(crate) child: Child,
    stdin: ChildStdin,
    received: mpsc::Receiver<Value>,
    /// The diagnostics last published for each URI, of every message read so far (the
    /// server publishes a file's list only when it changed).
    latest: std::cell::RefCell<std::collections::BTreeMap<String, Value>>,
}

impl Client {
    pub(crate) fn start(dir: &Path) -> Self {
        let mut child = keel(dir)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("keel lsp starts");
        let stdin = child.stdin.take().expect("a piped stdin");
        let stdout = child.stdout.take().expect("a piped stdout");
        let (sender, received) = mpsc::channel();
        std::thread::spawn(move || read_messages(stdout, &sender));
        Self {
            child,
            stdin,
            received,
            latest: std::cell::RefCell::default(),
        }
    }

    /// `keel lsp` in `dir` after the handshake an editor makes (`initialize`, then
    /// `initialized`).
    pub(crate) fn initialized(dir: &Path) -> Self {
        let mut client = Self::start(dir);
        client.request(
            1,
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        client.notify("initialized", json!({}));
        client
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_together(std::slice::from_ref(message));
    }

    /// Sends `messages` in one write, as an editor's burst arrives.
    pub(crate) fn send_together(&mut self, messages: &[Value]) {
        let mut bytes = Vec::new();
        for message in messages {
            let body = message.to_string();
            bytes.extend_from_slice(
                format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes(),
            );
        }
        self.stdin.write_all(&bytes).expect("send");
        self.stdin.flush().expect("flush");
    }

    pub(crate) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next();
            if message["id"] == id {
                return message;
            }
        }
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message, waiting up to a minute (a slow machine's cold lint).
    pub(crate) fn next(&self) -> Value {
        let message = self
            .received
            .recv_timeout(Duration::from_secs(60))
            .expect("keel lsp answers");
        if message["method"] == "textDocument/publishDiagnostics" {
            let uri = message["params"]["uri"].as_str().expect("a URI").to_owned();
            let list = message["params"]["diagnostics"].clone();
            self.latest.borrow_mut().insert(uri, list);
        }
        message
    }

    /// The diagnostics last published for each URI once `settled` holds of them (read
    /// on until it does).
    pub(crate) fn published_until(
        &self,
        settled: impl Fn(&std::collections::BTreeMap<String, Value>) -> bool,
    ) -> std::collections::BTreeMap<String, Value> {
        while !settled(&self.latest.borrow()) {
            self.next();
        }
        self.latest.borrow().clone()
    }

    /// The diagnostics published next for each of `count` files, by URI.
    pub(crate) fn diagnostics(&self, count: usize) -> std::collections::BTreeMap<String, Value> {
        let mut files = std::collections::BTreeMap::new();
        while files.len() < count {
            let message = self.next();
            if message["method"] == "textDocument/publishDiagnostics" {
                let uri = message["params"]["uri"].as_str().expect("a URI").to_owned();
                files.insert(uri, message["params"]["diagnostics"].clone());
            }
        }
        files
    }
}

/// Reads `Content-Length`-framed JSON messages until the stream ends.
fn read_messages(stdout: ChildStdout, sender: &mpsc::Sender<Value>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse::<usize>().ok();
            }
        }
        let Some(length) = length else { return };
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let Ok(message) = serde_json::from_slice(&body) else {
            return;
        };
        if sender.send(message).is_err() {
            return;
        }
    }
}

/// `file://` and the real path of `path`.
pub(crate) fn uri(path: &Path) -> String {
    format!(
        "file://{}",
        path.canonicalize().expect("a real path").display()
    )
}
