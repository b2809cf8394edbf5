//! Helpers shared by the CLI tests: running the real `keel` binary hermetically, building
//! small fixture repositories, rendering an output block for snapshots, checking that a
//! refused run wrote nothing, and rendering a written page in headless Chromium.

use keel_fixtures::FixtureRepo;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// What one `keel` process printed and how it ended.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// The exit code (`-1` when a signal ended the process).
    pub(crate) code: i32,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            code: output.status.code().unwrap_or(-1),
        }
    }
}

impl Run {
    /// stdout, stderr and the exit code as one block, with `root` shown as `[REPO]`.
    pub(crate) fn render(&self, root: Option<&Path>) -> String {
        let redact = |text: &str| match root {
            Some(root) => redact_path(text, root),
            None => text.to_owned(),
        };
        format!(
            "----- stdout -----\n{}----- stderr -----\n{}exit: {}\n",
            redact(&self.stdout),
            redact(&self.stderr),
            self.code
        )
    }

    /// The stdout parsed as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|err| panic!("stdout is not JSON ({err}):\n{}", self.stdout))
    }

    /// Fails unless the process did not panic.
    pub(crate) fn assert_no_panic(&self) {
        assert!(
            !self.stderr.contains("panicked"),
            "keel panicked:\n{}",
            self.stderr
        );
    }
}

/// insta settings that read and write the workspace's top-level `snapshots/` folder.
pub(crate) fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// Replaces every spelling of `root` (as given and canonical) with `[REPO]`.
pub(crate) fn redact_path(text: &str, root: &Path) -> String {
    let mut spellings = vec![root.display().to_string()];
    if let Ok(canonical) = root.canonicalize() {
        spellings.push(canonical.display().to_string());
    }
    spellings.sort_by_key(|s| std::cmp::Reverse(s.len()));
    spellings.iter().fold(text.to_owned(), |text, spelling| {
        text.replace(spelling, "[REPO]")
    })
}

/// `keel` in `cwd` with a hermetic environment: nothing inherited but `PATH`; no colour;
/// no system or global git config; `HOME` is `cwd`, so anything written there shows up in
/// the tests' before/after listings — all but the user cache of agent logs, which keel
/// keeps outside any repository and these runs keep in the target folder (a test of the
/// cache names its own).
pub(crate) fn keel(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_keel"));
    command
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", cwd)
        .env(
            "KEEL_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("keel-user-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .env("TZ", "UTC");
    command
}

/// Runs `keel ARGS` in `cwd` (see [`keel`]).
pub(crate) fn run(cwd: &Path, args: &[&str]) -> Run {
    keel(cwd)
        .args(args)
        .output()
        .expect("the keel binary runs")
        .into()
}

/// Runs `keel lint --repo REPO ARGS` from inside the repository.
pub(crate) fn lint(repo: &Path, args: &[&str]) -> Run {
    let repo_arg = repo.display().to_string();
    let mut all = vec!["lint", "--repo", repo_arg.as_str()];
    all.extend_from_slice(args);
    run(repo, &all)
}

/// The `--stats` line a run printed last on stderr, and stderr's lines before it.
pub(crate) fn stats_of(run: &Run) -> (serde_json::Value, Vec<String>) {
    let mut lines: Vec<String> = run.stderr.lines().map(str::to_owned).collect();
    let stats = lines.pop().expect("a stats line");
    let stats = serde_json::from_str(&stats)
        .unwrap_or_else(|err| panic!("stats are JSON ({err}):\n{}", run.stderr));
    (stats, lines)
}

/// `keel lint --stats --format json`: the report, the stats line, stderr's other lines.
pub(crate) fn lint_with_stats(dir: &Path) -> (serde_json::Value, serde_json::Value, Vec<String>) {
    let run = lint(dir, &["--stats", "--format", "json"]);
    run.assert_no_panic();
    let (stats, lines) = stats_of(&run);
    (run.json(), stats, lines)
}

/// Removes the kept lint answer, so the next `keel lint` reads the memo (with it, a lint
/// at the same tip or a few commits on reads neither history nor memo).
pub(crate) fn forget_answer(repo: &Path) {
    std::fs::remove_file(repo.join(".git/keel/lint.bin")).expect("a kept answer");
}

/// The text of a spec node whose `code:` lists `entries` (block style, one per line, so
/// entry `i` sits on file line `i + 3`).
pub(crate) fn spec(entries: &[&str]) -> String {
    let mut text = String::from("---\ncode:\n");
    for entry in entries {
        text.push_str(&format!("  - {entry}\n"));
    }
    text.push_str("---\n\n# A node\n\nProse keel does not read.\n");
    text
}

/// A Python file with two functions: `f` on lines 1-3, `g` on lines 6-7.
pub(crate) const APP_PY: &str =
    "def f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    return 0\n";

/// A repository whose one commit holds `app.py` ([`APP_PY`]) and `files`.
pub(crate) fn repo_with(files: &[(&str, &[u8])]) -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY).expect("write app.py");
    for (path, content) in files {
        repo.write_bytes(path, content)
            .expect("write a fixture file");
    }
    repo.commit("Add app and its spec").expect("commit");
    repo
}

/// A repository whose one commit holds `app.py` and the node `app` with `spec_text`.
pub(crate) fn repo_with_spec(spec_text: &[u8]) -> FixtureRepo {
    repo_with(&[(".spec/app/spec.md", spec_text)])
}

/// Every path under `root` (recursively, `.git/` included), with the content of each file
/// outside `.git/`. Files inside `.git/` are listed by path only: git itself may rewrite
/// them (the index on `git status`), but a new one means someone wrote into the repository.
/// `.git/keel/` is left out: keel's on-disk memo lives there, written by any run that
/// parsed something (the memo's own tests check it).
pub(crate) fn listing(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).expect("list a fixture folder");
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            let relative = path.strip_prefix(root).expect("inside root").to_owned();
            let in_git = relative.starts_with(".git");
            if relative.starts_with(".git/keel") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                out.insert(relative, None);
            } else {
                let content = (!in_git).then(|| std::fs::read(&path).expect("read a file"));
                out.insert(relative, content);
            }
        }
    }
    out
}

/// `git status --porcelain --untracked-files=all` under the pinned environment.
pub(crate) fn status(repo: &FixtureRepo) -> String {
    repo.git(&["status", "--porcelain", "--untracked-files=all"])
        .expect("git status")
}

/// Chromium, where the test looks for it.
pub(crate) fn chromium() -> Option<PathBuf> {
    let fixed = Path::new("/usr/bin/chromium");
    if fixed.is_file() {
        return Some(fixed.to_owned());
    }
    on_path("chromium")
}

/// The program `name` as `PATH` finds it.
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// How long one headless Chromium may take before it is killed.
const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs headless Chromium on `url` with `extra` flags and a fresh profile; returns what it
/// printed on stdout.
pub(crate) fn headless(chromium: &Path, url: &str, extra: &[String]) -> String {
    let profile = tempfile::tempdir().expect("a profile folder");
    let out_path = profile.path().join("stdout.html");
    let out = std::fs::File::create(&out_path).expect("a stdout file");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("data").display()
        ))
        .args(extra)
        .arg(url)
        .env("HOME", profile.path())
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            assert!(status.success(), "chromium failed: {status}");
            break;
        }
        if started.elapsed() > CHROMIUM_TIMEOUT {
            // The test fails either way; a failed kill leaves nothing more to do.
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium took more than {CHROMIUM_TIMEOUT:?} on {url}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(&out_path).expect("chromium's stdout")
}

/// Writes `target/NAME` (a PNG) of the page at `url` at 1280×2000.
pub(crate) fn screenshot(chromium: &Path, url: &str, name: &str) {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&target).expect("the target folder");
    let png = target.join(name);
    // A stale screenshot must not pass for this run's.
    let _ = std::fs::remove_file(&png);
    headless(
        chromium,
        url,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1280,2000".to_owned(),
            "--hide-scrollbars".to_owned(),
        ],
    );
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(
        bytes.len() > 20_000,
        "a blank screenshot: {} bytes",
        bytes.len()
    );
}
