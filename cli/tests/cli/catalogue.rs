//! The catalogue of bad input (issue #13 item 4): every input keel refuses or must accept,
//! from every command that reads outside input, as one table. A row names its input (a
//! builder of a fixture repository or folder), the argv, the exit code and the first line
//! of stderr, written out literally (temporary paths shown as `[REPO]` or `[DIR]`).
//!
//! One test runs every row and checks: the exit code; the first stderr line, exactly; no
//! panic; for a refusal (exit 2), nothing on stdout and one `error:` line, which is all of
//! stderr when it is keel's own (a line with a `repair:`; clap's usage errors add usage
//! lines); and nothing written (the folder's listing and the repository's `git status` as
//! they were). Every failing row is reported at once.
//!
//! Owns: the table and its runner. Does not own: the snapshots of whole outputs
//! (`messages_spec`, `messages_inputs`) or the behaviour behind an accepted input.

use crate::APP_PY_F_CHANGED;
use crate::impact::PATCH_F;
use crate::support::{APP_PY, Run, keel, listing, redact_path, repo_with, repo_with_spec, spec};
use keel_fixtures::FixtureRepo;
use keel_fixtures::sessions::LEX_NOW;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The folder one row runs keel in, and the repository whose `git status` it must leave
/// alone (the folder itself, or one inside it).
struct Input {
    root: PathBuf,
    /// How `root` is shown in the expected line: `[REPO]` or `[DIR]`.
    mark: &'static str,
    repo: Option<FixtureRepo>,
    /// Keeps a plain temporary folder alive (dropped after `repo`).
    _dir: Option<tempfile::TempDir>,
}

impl From<FixtureRepo> for Input {
    fn from(repo: FixtureRepo) -> Self {
        Self {
            root: repo.path().to_owned(),
            mark: "[REPO]",
            repo: Some(repo),
            _dir: None,
        }
    }
}

impl From<tempfile::TempDir> for Input {
    fn from(dir: tempfile::TempDir) -> Self {
        Self {
            root: dir.path().to_owned(),
            mark: "[DIR]",
            repo: None,
            _dir: Some(dir),
        }
    }
}

impl Input {
    /// The listing of the folder and the repository's `git status`.
    fn state(&self) -> (String, Option<String>) {
        let status = self.repo.as_ref().map(crate::support::status);
        (format!("{:?}", listing(&self.root)), status)
    }

    /// `text` with `root` shown as [`Input::mark`].
    fn redact(&self, text: &str) -> String {
        redact_path(text, &self.root).replace("[REPO]", self.mark)
    }
}

/// One bad (or accepted) input and what keel must answer.
struct Row {
    name: &'static str,
    build: fn() -> Input,
    /// The argv after `keel`; `[ROOT]` stands for the row's folder.
    args: &'static [&'static str],
    stdin: Option<&'static str>,
    code: i32,
    /// The first line of stderr (`""`: nothing on stderr), root redacted.
    first: &'static str,
}

/// A row read from no stdin.
fn row(
    name: &'static str,
    build: fn() -> Input,
    args: &'static [&'static str],
    code: i32,
    first: &'static str,
) -> Row {
    Row {
        name,
        build,
        args,
        stdin: None,
        code,
        first,
    }
}

impl Row {
    /// The same row with `text` on keel's stdin.
    fn stdin(self, text: &'static str) -> Self {
        Self {
            stdin: Some(text),
            ..self
        }
    }
}

// ---------------------------------------------------------------------------------------
// Builders

/// A partial clone (`--filter=blob:none`, in `[ROOT]/clone`) of [`hit_repo`]: the blob
/// of `app.py`'s first version, which lint diffs, was never fetched.
fn partial_clone() -> Input {
    let dir = tempfile::tempdir().expect("a temporary folder");
    hit_repo()
        .partial_clone(dir.path())
        .expect("a partial clone");
    dir.into()
}

/// An empty temporary folder.
fn folder() -> Input {
    tempfile::tempdir().expect("a temporary folder").into()
}

/// A temporary folder holding `files`.
fn folder_with(files: &[(&str, &str)]) -> Input {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
        std::fs::write(path, text).expect("write a fixture file");
    }
    dir.into()
}

/// The repository of node `app` with `spec_text`.
fn node_text(spec_text: &[u8]) -> Input {
    repo_with_spec(spec_text).into()
}

/// The repository of node `app` whose `code:` lists `entries`.
fn node(entries: &[&str]) -> Input {
    node_text(spec(entries).as_bytes())
}

/// The repository of node `app` (`app.py#f`), nothing else: clean.
fn clean() -> Input {
    node(&["app.py#f"])
}

/// A repository holding `app.py` and `files` in its one commit.
fn files(files: &[(&str, &[u8])]) -> Input {
    repo_with(files).into()
}

/// A spec node whose frontmatter is `yaml`, then prose.
fn frontmatter(yaml: &str) -> String {
    format!("---\n{yaml}\n---\n\n# A node\n")
}

/// The repository of node `app` (`app.py#f`) with `keel.toml` holding `settings`.
fn settings(settings: &[u8]) -> Input {
    files(&[
        (".spec/app/spec.md", spec(&["app.py#f"]).as_bytes()),
        ("keel.toml", settings),
    ])
}

/// The clean repository with git configuration `key = value` for each pair.
fn configured(pairs: &[(&str, &str)]) -> FixtureRepo {
    let repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    for (key, value) in pairs {
        repo.git(&["config", key, value]).expect("git config");
    }
    repo
}

/// The author identity `keel ack` writes checkpoints as.
const IDENTITY: [(&str, &str); 2] = [
    ("user.name", "Ack Author"),
    ("user.email", "ack@keel.invalid"),
];

/// The repository of node `app` (`app.py#f`) whose second commit changes `f`, with an
/// identity: `keel lint` blocks on the hit.
fn hit_repo() -> FixtureRepo {
    let mut repo = configured(&IDENTITY);
    repo.write("app.py", APP_PY_F_CHANGED).expect("write");
    repo.commit("Change f").expect("commit");
    repo
}

/// [`hit_repo`] after `git ARGS`.
fn hit_then(args: &[&str]) -> Input {
    let repo = hit_repo();
    repo.git(args).expect("git");
    repo.into()
}

/// The clean repository on a new branch `fresh` with no commits yet.
fn orphan() -> Input {
    let repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.git(&["checkout", "--quiet", "--orphan", "fresh"])
        .expect("an orphan branch");
    repo.into()
}

/// A folder holding `bare.git`, a bare clone of the clean repository.
fn bare() -> Input {
    let source = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    let dir = tempfile::tempdir().expect("a temporary folder");
    let target = dir.path().join("bare.git");
    let target = target.to_str().expect("a UTF-8 temporary path");
    source
        .git(&["clone", "--quiet", "--bare", ".", target])
        .expect("a bare clone");
    dir.into()
}

/// A repository without commits.
fn unborn() -> Input {
    FixtureRepo::new().expect("a fixture repository").into()
}

/// The clean repository with `path` written after the commit (untracked).
fn clean_with(path: &str, text: &str) -> Input {
    let repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.write(path, text).expect("write");
    repo.into()
}

/// A session line of keel's format: codex, 10:00-11:00 on L-ex's day, no repository.
const SESSION: &str = r#"{"session_id":"a","harness":"codex","start":"2026-01-15T10:00:00Z","end":"2026-01-15T11:00:00Z","repo":null,"project":null,"cost":{"total":1},"api_calls":3,"tools":{}}"#;

/// A folder holding `sessions.jsonl` with `text`.
fn sessions_file(text: &str) -> Input {
    folder_with(&[("sessions.jsonl", text)])
}

/// A folder holding `sessions.jsonl` ([`SESSION`]) and `decisions.jsonl` with `text`.
fn decisions_file(text: &str) -> Input {
    folder_with(&[
        ("sessions.jsonl", &format!("{SESSION}\n")),
        ("decisions.jsonl", text),
    ])
}

/// The clean repository with `readings.jsonl` (untracked) holding `text`, where `[HEAD]`
/// stands for HEAD's commit id.
fn readings(text: &str) -> Input {
    let repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    let head = repo.git(&["rev-parse", "HEAD"]).expect("HEAD");
    repo.write("readings.jsonl", &text.replace("[HEAD]", head.trim()))
        .expect("write");
    repo.into()
}

/// A repository holding `app.py` and `change.diff` with `patch`.
fn patch(patch: &str) -> Input {
    files(&[("change.diff", patch.as_bytes())])
}

/// A repository with `.git/hooks/reference-transaction`, a hook keel did not write.
fn foreign_hook() -> Input {
    let repo = repo_with(&[]);
    repo.write(".git/hooks/reference-transaction", "#!/bin/sh\nexit 0\n")
        .expect("write a foreign hook");
    repo.into()
}

// ---------------------------------------------------------------------------------------
// Rows

fn lint_spec_rows() -> Vec<Row> {
    vec![
        row(
            "lint: broken YAML",
            || node_text(b"---\ncode: [app.py#f\n---\n\n# App\n"),
            &["lint"],
            2,
            "error: .spec/app/spec.md:2: broken frontmatter: did not find expected ',' or ']' at line 3 column 1, while parsing a flow sequence at line 2 column 7; repair: make the frontmatter valid YAML where `code:` and `related:` are lists of strings",
        ),
        row(
            "lint: no frontmatter",
            || node_text(b"# App\n\ncode: [app.py#f]\n"),
            &["lint"],
            2,
            "error: .spec/app/spec.md:1: spec.md does not start with a `---` frontmatter line; repair: open the file with a YAML frontmatter block between `---` lines",
        ),
        row(
            "lint: a selector with a space",
            || node(&["app.py#f g"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: `f g` is not a selector (in `app.py#f g`); repair: a selector is a dotted qualified name without spaces, e.g. `Class.method`",
        ),
        row(
            "lint: an empty selector between commas",
            || node(&["app.py#f,,g"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: `app.py#f,,g` has an empty selector; repair: write one unit name between commas, e.g. `file.py#login,Session.refresh`",
        ),
        row(
            "lint: a hash without a selector",
            || node(&["app.py#"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: `app.py#` has an empty selector; repair: write one unit name between commas, e.g. `file.py#login,Session.refresh`",
        ),
        row(
            "lint: a duplicate entry",
            || node(&["app.py#f", "app.py#f"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: entry `app.py#f` is listed twice; repair: remove the duplicate entry",
        ),
        row(
            "lint: a duplicate selector",
            || node(&["app.py#f,f"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: selector `f` is listed twice in `app.py#f,f`; repair: remove the duplicate selector",
        ),
        row(
            "lint: a bare then a scoped entry for one file",
            || node(&["app.py", "app.py#f"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: `app.py` is listed both bare and with selectors; repair: keep either the bare path (whole file) or the `path#selectors` entry, not both",
        ),
        row(
            "lint: a scoped then a bare entry for one file",
            || node(&["app.py#f", "app.py"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: `app.py` is listed both bare and with selectors; repair: keep either the bare path (whole file) or the `path#selectors` entry, not both",
        ),
        row(
            "lint: a selector on a glob",
            || node(&["app.py#f", "src/*.py#f"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: `src/*.py#f` puts selectors on a glob (no file of that exact name exists at the tip); repair: selectors name units of one file: write `folder/file.py#name`, or drop the `#...` part",
        ),
        row(
            "lint: a selector on a folder",
            || {
                files(&[
                    ("src/x.py", b"def f():\n    return 0\n"),
                    (".spec/app/spec.md", spec(&["app.py#f", "src#f"]).as_bytes()),
                ])
            },
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: `src#f` puts selectors on a folder; repair: selectors name units of one file: write `folder/file.py#name`, or drop the `#...` part",
        ),
        row(
            "lint: a relative path escaping the repository",
            || node(&["app.py#f", "../x.py"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: `../x.py` is outside the repository; repair: write the path relative to the repository root: no leading `/`, and no `..` that climbs above the root",
        ),
        row(
            "lint: dot parts climbing out of the repository",
            || node(&["src/../../app.py#f"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: `src/../../app.py` is outside the repository; repair: write the path relative to the repository root: no leading `/`, and no `..` that climbs above the root",
        ),
        row(
            "lint: an absolute path",
            || node(&["/etc/passwd"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: `/etc/passwd` is outside the repository; repair: write the path relative to the repository root: no leading `/`, and no `..` that climbs above the root",
        ),
        row(
            "lint: a glob that does not compile",
            || node(&["app.py#f", "src/[z-a].py"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: `src/[z-a].py` is not a valid glob (invalid range; 'z' > 'a'), and no path of that exact name exists at the tip; repair: fix the pattern (`*` and `?` match inside one folder, `**` across folders, `[a-z]` one character of a set with ranges running low to high, `{a,b}` either), or name an existing path",
        ),
        row(
            "lint: a spec that is not UTF-8",
            || {
                let mut text = spec(&["app.py#f"]).into_bytes();
                text.extend_from_slice(b"Caf\xe9 au lait.\n");
                node_text(&text)
            },
            &["lint"],
            2,
            "error: .spec/app/spec.md:9: spec.md is not UTF-8; repair: save the file as UTF-8",
        ),
        row(
            "lint: a case variant of a frontmatter key",
            || node_text(b"---\nCode:\n  - app.py#f\n---\n"),
            &["lint"],
            2,
            "error: .spec/app/spec.md:2: frontmatter key `Code` is a case variant of `code`; keel reads only `code:` and `related:`; repair: write `code:` (lower case); if `Code` is not meant as `code`, rename it so it is not one edit from `code` or `related`",
        ),
        row(
            "lint: a near miss of a frontmatter key",
            || node_text(b"---\ncode:\n  - app.py#f\nrelate:\n  - app.py\n---\n"),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: frontmatter key `relate` is a near-miss of `related`; keel reads only `code:` and `related:`; repair: write `related:` (lower case); if `relate` is not meant as `related`, rename it so it is not one edit from `code` or `related`",
        ),
        row(
            "lint: a frontmatter nesting past the bound",
            || {
                let levels = 100_000;
                let yaml = format!(
                    "code:\n  - app.py#f\nx: {}{}",
                    "[".repeat(levels),
                    "]".repeat(levels)
                );
                node_text(frontmatter(&yaml).as_bytes())
            },
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: the frontmatter nests deeper than keel's bound of 64 levels on line 4; repair: keel reads `code:` and `related:` as lists of strings (2 levels): flatten the deeper data, or move it below the closing `---`, where prose belongs",
        ),
        row(
            "lint: a frontmatter larger than the bound",
            || {
                let yaml = format!("code:\n  - app.py#f\nnotes: \"{}\"", "x".repeat(300 * 1024));
                node_text(frontmatter(&yaml).as_bytes())
            },
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: the frontmatter passes keel's bound of 256 KiB (262144 bytes) on line 4; repair: keep the frontmatter to `code:`, `related:` and short keys; move longer text below the closing `---`, where prose belongs",
        ),
        row(
            "lint: a number in code",
            || node(&["app.py#f", "42"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:4: `code:` item on line 4 is the number 42, not a path; repair: quote it (`- \"42\"`) if it is a file named 42, or remove it",
        ),
        row(
            "lint: a null in code",
            || node(&["null"]),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: `code:` item on line 3 is `null`, which YAML reads as no value, not a path; repair: quote it (`- \"null\"`) if it is a file named null, or remove it",
        ),
        row(
            "lint: a boolean in related",
            || node_text(frontmatter("code:\n  - app.py#f\nrelated:\n  - true").as_bytes()),
            &["lint"],
            2,
            "error: .spec/app/spec.md:5: `related:` item on line 5 is the boolean true, not a path; repair: quote it (`- \"true\"`) if it is a file named true, or remove it",
        ),
        row(
            "lint: code that is a string",
            || node_text(frontmatter("code: app.py#f").as_bytes()),
            &["lint"],
            2,
            "error: .spec/app/spec.md:2: `code:` must be a list of strings, but it is a string; repair: write one entry per line under `code:`, each as `  - path` or `  - path#selector`",
        ),
        row(
            "lint: code that is a mapping",
            || node_text(frontmatter("code: {app.py: f}").as_bytes()),
            &["lint"],
            2,
            "error: .spec/app/spec.md:2: `code:` must be a list of strings, but it is a mapping; repair: write one entry per line under `code:`, each as `  - path` or `  - path#selector`",
        ),
        row(
            "lint: code holding a list",
            || node_text(frontmatter("code: [[app.py#f]]").as_bytes()),
            &["lint"],
            2,
            "error: .spec/app/spec.md:2: `code:` must be a list of strings, but its item on line 2 is a list; repair: write one entry per line under `code:`, each as `  - path` or `  - path#selector`",
        ),
        row(
            "lint: a frontmatter that is a list",
            || node_text(frontmatter("- app.py#f").as_bytes()),
            &["lint"],
            2,
            "error: .spec/app/spec.md:2: the frontmatter must be a mapping of keys (`code:`, `related:`), but it is a list; repair: write the frontmatter as `key:` lines: `code:`, then one `  - path` line per entry",
        ),
        row(
            "lint: a frontmatter that is text",
            || node_text(frontmatter("# notes\napp.py, f").as_bytes()),
            &["lint"],
            2,
            "error: .spec/app/spec.md:3: the frontmatter must be a mapping of keys (`code:`, `related:`), but it is a string; repair: write the frontmatter as `key:` lines: `code:`, then one `  - path` line per entry",
        ),
        row(
            "lint: a byte order mark before the frontmatter is accepted",
            || node_text(format!("\u{feff}{}", spec(&["app.py#f"])).as_bytes()),
            &["lint"],
            0,
            "",
        ),
        row(
            "lint: dot parts inside the repository are accepted",
            || {
                files(&[
                    ("src/a.py", APP_PY.as_bytes()),
                    (".spec/app/spec.md", spec(&["src/../src/a.py#f"]).as_bytes()),
                ])
            },
            &["lint"],
            0,
            "",
        ),
    ]
}

fn lint_tree_rows() -> Vec<Row> {
    vec![
        row(
            "lint: a spec root that is a file",
            || files(&[(".spec", b"notes\n")]),
            &["lint"],
            2,
            "error: .spec: `.spec` is a file, not a folder, so no spec node is read; repair: make `.spec` a folder committed in this repository, holding `.spec/<node-id>/spec.md`",
        ),
        row(
            "lint: a node folder without a spec",
            || {
                files(&[
                    (".spec/app/spec.md", spec(&["app.py#f"]).as_bytes()),
                    (".spec/draft/notes.md", b"no spec.md below\n"),
                ])
            },
            &["lint"],
            2,
            "error: .spec/draft: `.spec/draft` holds no spec.md at any depth, so it is no node and nothing in it is judged; repair: write `.spec/draft/spec.md` (or `.spec/draft/<node>/spec.md`), or move the folder out of `.spec`",
        ),
        row(
            "lint: a spec.md that is a folder",
            || files(&[(".spec/app/spec.md/notes.md", b"a folder named spec.md\n")]),
            &["lint"],
            2,
            "error: .spec/app/spec.md: `.spec/app/spec.md` is a folder, not a file; repair: a node is the file `.spec/<node-id>/spec.md`: move the folder's contents elsewhere and write the node's spec there",
        ),
        row(
            "lint: an anchored file past max_file_bytes is a finding",
            || {
                let padded: String = (0..100).map(|i| format!("PAD_{i} = {i}\n")).collect();
                files(&[
                    ("app.py", format!("{APP_PY}{padded}").as_bytes()),
                    (".spec/app/spec.md", spec(&["app.py#f,g"]).as_bytes()),
                    ("keel.toml", b"[lint]\nmax_file_bytes = 500\n"),
                ])
            },
            &["lint"],
            1,
            "",
        ),
    ]
}

/// The rows whose input holds a symbolic link (none off unix, where none is made).
fn symlink_rows() -> Vec<Row> {
    if !cfg!(unix) {
        return Vec::new();
    }
    vec![
        row(
            "lint: a spec.md that is a symbolic link",
            linked_spec,
            &["lint"],
            2,
            "error: .spec/app/spec.md: `.spec/app/spec.md` is a symbolic link; keel reads the committed tree and follows no links; repair: replace the link with the spec's own text",
        ),
        row(
            "lint: an anchored symbolic link is a finding",
            linked_anchor,
            &["lint"],
            1,
            "",
        ),
    ]
}

/// A repository whose `.spec/app/spec.md` is a symbolic link to `docs/app.md`.
fn linked_spec() -> Input {
    let mut repo = repo_with(&[("docs/app.md", spec(&["app.py#f"]).as_bytes())]);
    std::fs::create_dir_all(repo.path().join(".spec/app")).expect("mkdir");
    symlink("../../docs/app.md", &repo.path().join(".spec/app/spec.md"));
    repo.commit("Link the spec").expect("commit");
    repo.into()
}

/// A repository whose node anchors `link.py#f`, a symbolic link to `app.py`.
fn linked_anchor() -> Input {
    let mut repo = repo_with(&[(".spec/app/spec.md", spec(&["link.py#f"]).as_bytes())]);
    symlink("app.py", &repo.path().join("link.py"));
    repo.commit("Link app").expect("commit");
    repo.into()
}

/// Makes `link` a symbolic link to `target`.
fn symlink(target: &str, link: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, link).expect("symlink");
    #[cfg(not(unix))]
    panic!("symbolic links need unix: {target} {}", link.display());
}

fn lint_settings_rows() -> Vec<Row> {
    vec![
        row(
            "lint: an unknown key in keel.toml",
            || settings(b"[lint]\nscoped_code_miss = \"warn\"\nscoped_miss = 1\n"),
            &["lint"],
            2,
            "error: keel.toml:3: unknown field `scoped_miss`, expected one of `scoped_code_miss`, `cosmetic`, `docstrings`, `governed_roots`, `max_file_bytes`; repair: fix that line; the keys and their values are documented in docs/settings.md",
        ),
        row(
            "lint: a bad enum value in keel.toml",
            || settings(b"\n[lint]\nscoped_code_miss = \"loud\"\n"),
            &["lint"],
            2,
            "error: keel.toml:3: unknown variant `loud`, expected `warn` or `ignore`; repair: fix that line; the keys and their values are documented in docs/settings.md",
        ),
        row(
            "lint: a keel.toml that is not UTF-8",
            || settings(b"[lint]\n# caf\xe9\n"),
            &["lint"],
            2,
            "error: keel.toml:2: not UTF-8 (invalid byte at offset 12); repair: save the file as UTF-8",
        ),
        row(
            "lint: a keel.toml that is not TOML",
            || settings(b"[lint\n"),
            &["lint"],
            2,
            "error: keel.toml:1: unclosed table, expected `]`; repair: fix that line; the keys and their values are documented in docs/settings.md",
        ),
        row(
            "lint: a max_file_bytes that is text",
            || settings(b"[lint]\nmax_file_bytes = \"big\"\n"),
            &["lint"],
            2,
            "error: keel.toml:2: invalid type: string \"big\", expected u64; repair: fix that line; the keys and their values are documented in docs/settings.md",
        ),
        row(
            "lint: a keel.toml outside the judged tree is not read",
            || clean_with("keel.toml", "[lint]\nbogus = 1\n"),
            &["lint"],
            0,
            "",
        ),
    ]
}

fn lint_flag_rows() -> Vec<Row> {
    vec![
        row(
            "lint: a folder that is not a git repository",
            folder,
            &["lint", "--repo", "[ROOT]"],
            2,
            "error: [DIR]: not a git repository (or any parent up to the file system root); repair: run keel inside a git work tree or pass --repo DIR",
        ),
        row(
            "lint: a partial clone missing a blob lint reads",
            partial_clone,
            &["lint", "--repo", "[ROOT]/clone"],
            2,
            "error: cannot read git object f32d8e72b78806fb51a44b7f3e0882c8ad0a9b3c: it is missing from this partial clone (git fetches such objects from the promisor remote `origin` when a git command needs them; keel reads objects itself and does not); repair: fetch every missing object: `git -C [DIR]/clone rev-list --objects --all --missing=print | sed -n 's/^?//p' | git -C [DIR]/clone fetch --stdin origin`",
        ),
        row(
            "lint: a --repo that does not exist",
            folder,
            &["lint", "--repo", "[ROOT]/missing"],
            2,
            "error: [DIR]/missing: no such folder; repair: pass an existing folder inside a git work tree with --repo",
        ),
        row(
            "lint: a --repo naming a file",
            clean,
            &["lint", "--repo", "app.py"],
            2,
            "error: app.py: is a file, not a folder; repair: pass the repository's folder with --repo, e.g. --repo .",
        ),
        row(
            "lint: an unknown --format",
            clean,
            &["lint", "--format", "yaml"],
            2,
            "error: invalid value 'yaml' for '--format <FORMAT>'",
        ),
        row(
            "lint: an unknown flag",
            clean,
            &["lint", "--bogus"],
            2,
            "error: unexpected argument '--bogus' found",
        ),
        row(
            "lint: an unknown --color",
            clean,
            &["lint", "--color", "sometimes"],
            2,
            "error: invalid value 'sometimes' for '--color <COLOR>'",
        ),
        row(
            "lint: a --rev naming no commit",
            clean,
            &["lint", "--rev", "no-such-rev"],
            2,
            "error: no-such-rev: names no commit in this repository (couldn't parse revision, input=\"no-such-rev\"); repair: pass a commit id or a ref, e.g. the output of `git rev-parse HEAD`",
        ),
        row(
            "lint: --worktree in a bare repository",
            bare,
            &["lint", "--worktree", "--repo", "bare.git"],
            2,
            "error: [DIR]/bare.git: a bare repository has no working tree to judge or watch; repair: run without --worktree",
        ),
        row(
            "watch: --worktree in a bare repository",
            bare,
            &["watch", "--worktree", "--repo", "bare.git"],
            2,
            "error: [DIR]/bare.git: a bare repository has no working tree to judge or watch; repair: run without --worktree",
        ),
        row(
            "lint: --rev with --worktree",
            clean,
            &["lint", "--rev", "HEAD", "--worktree"],
            2,
            "error: the argument '--rev <REV>' cannot be used with '--worktree'",
        ),
        row(
            "lint: a --pending naming no commit",
            clean,
            &["lint", "--pending", "nope"],
            2,
            "error: nope: names no commit in this repository (couldn't parse revision, input=\"nope\"); repair: pass a commit id or a ref, e.g. the output of `git rev-parse HEAD`",
        ),
        row(
            "lint: --rev HEAD on a branch with no commits",
            orphan,
            &["lint", "--rev", "HEAD"],
            2,
            "error: HEAD: names no commit: HEAD's branch `fresh` has no commits yet; repair: commit on `fresh` first, or name a branch that has commits instead (e.g. `main`), or switch to it (`git switch main`)",
        ),
        row(
            "lint: --rev HEAD~1 on a branch with no commits",
            orphan,
            &["lint", "--rev", "HEAD~1"],
            2,
            "error: HEAD~1: names no commit: HEAD's branch `fresh` has no commits yet; repair: commit on `fresh` first, or name a branch that has commits instead (e.g. `main`), or switch to it (`git switch main`)",
        ),
        row(
            "lint: --rev HEAD in a repository without commits",
            unborn,
            &["lint", "--rev", "HEAD"],
            2,
            "error: HEAD: names no commit: HEAD's branch `main` has no commits yet; repair: commit first",
        ),
    ]
}

fn callgraph_rows() -> Vec<Row> {
    vec![
        row(
            "callgraph: a --repo naming a file",
            clean,
            &["callgraph", "--repo", "app.py"],
            2,
            "error: app.py: is a file, not a folder; repair: pass the repository's folder with --repo, e.g. --repo .",
        ),
        row(
            "callgraph: a --rev naming no commit",
            clean,
            &["callgraph", "--rev", "nope"],
            2,
            "error: nope: names no commit in this repository (couldn't parse revision, input=\"nope\"); repair: pass a commit id or a ref, e.g. the output of `git rev-parse HEAD`",
        ),
        row(
            "callgraph: a folder that is not a git repository",
            folder,
            &["callgraph"],
            2,
            "error: .: not a git repository (or any parent up to the file system root); repair: run keel inside a git work tree or pass --repo DIR",
        ),
        row(
            "callgraph: an unknown --format",
            clean,
            &["callgraph", "--format", "yaml"],
            2,
            "error: invalid value 'yaml' for '--format <FORMAT>'",
        ),
    ]
}

/// `keel sessions --sessions sessions.jsonl --now LEX_NOW` and `$extra`.
macro_rules! sessions {
    ($($extra:expr),*) => {
        &["sessions", "--sessions", "sessions.jsonl", "--now", LEX_NOW, $($extra),*]
    };
}

fn sessions_rows() -> Vec<Row> {
    vec![
        row(
            "sessions: a line that is not JSON",
            || sessions_file(&format!("{SESSION}\n{{\"session_id\": \"b\",\n")),
            sessions!(),
            2,
            "error: sessions.jsonl:2: line: not valid JSON (EOF while parsing a value at line 1 column 19); repair: write one complete JSON object per line",
        ),
        row(
            "sessions: a required field missing",
            || sessions_file(&SESSION.replace(r#""harness":"codex","#, "")),
            sessions!(),
            2,
            "error: sessions.jsonl:1: harness: required field is missing; repair: add `harness` to the line",
        ),
        row(
            "sessions: an end before the start",
            || sessions_file(&SESSION.replace("T11:00:00Z", "T09:00:00Z")),
            sessions!(),
            2,
            "error: sessions.jsonl:1: end: end 2026-01-15T09:00:00Z is before start 2026-01-15T10:00:00Z; repair: fix the timestamps so that end >= start",
        ),
        row(
            "sessions: a session id twice",
            || sessions_file(&format!("{SESSION}\n\n{SESSION}\n")),
            sessions!(),
            2,
            "error: sessions.jsonl:3: session_id: \"a\" already appears on line 1; repair: give each session one line with a unique session_id (remove or rename the duplicate)",
        ),
        row(
            "sessions: a --sessions file that does not exist",
            folder,
            sessions!(),
            2,
            "error: sessions.jsonl: file: cannot read it: No such file or directory (os error 2); repair: pass an existing, readable file with --sessions",
        ),
        row(
            "sessions: a --repo that does not exist",
            || sessions_file(SESSION),
            sessions!("--repo", "no/such/repo"),
            2,
            "error: --repo: repo: no/such/repo: cannot read it: No such file or directory (os error 2); repair: name an existing repository folder (its work tree root)",
        ),
        row(
            "sessions: a --repo naming a file",
            || clean_with("sessions.jsonl", SESSION),
            sessions!("--repo", "app.py"),
            2,
            "error: --repo: repo: app.py: is a file, not a folder; repair: name the repository's folder (its work tree root), not a file in it",
        ),
        row(
            "sessions: a --decisions file that does not exist",
            || sessions_file(SESSION),
            sessions!("--decisions", "missing.jsonl"),
            2,
            "error: missing.jsonl: file: cannot read it: No such file or directory (os error 2); repair: pass an existing, readable file with --decisions",
        ),
        row(
            "sessions: a decision line that is not JSON",
            || decisions_file("{\"ts\": \n"),
            sessions!("--decisions", "decisions.jsonl"),
            2,
            "error: decisions.jsonl:1: line: not valid JSON (EOF while parsing a value at line 1 column 7); repair: write one complete JSON object per line",
        ),
        row(
            "sessions: a decision without yes is read as 0, with a warning",
            || decisions_file(&decision(r#"{"no":1}"#)),
            sessions!("--decisions", "decisions.jsonl"),
            0,
            "warning: decisions.jsonl:1: probabilities: no `yes`; read as yes = 0",
        ),
        row(
            "sessions: --now that is no time",
            || sessions_file(SESSION),
            &[
                "sessions",
                "--sessions",
                "sessions.jsonl",
                "--now",
                "yesterday",
            ],
            2,
            "error: --now: \"yesterday\" is not an RFC 3339 timestamp with an offset; repair: pass an RFC 3339 time with an offset between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z, e.g. --now 2026-01-16T00:00:00Z",
        ),
        row(
            "sessions: --now past keel's range",
            || sessions_file(SESSION),
            &[
                "sessions",
                "--sessions",
                "sessions.jsonl",
                "--now",
                "99999-01-01T00:00:00Z",
            ],
            2,
            "error: --now: \"99999-01-01T00:00:00Z\" is outside the times keel reads; repair: pass an RFC 3339 time with an offset between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z, e.g. --now 2026-01-16T00:00:00Z",
        ),
        row(
            "sessions: --now before keel's range",
            || sessions_file(SESSION),
            &[
                "sessions",
                "--sessions",
                "sessions.jsonl",
                "--now=-009999-01-01T00:00:00Z",
            ],
            2,
            "error: --now: \"-009999-01-01T00:00:00Z\" is outside the times keel reads; repair: pass an RFC 3339 time with an offset between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z, e.g. --now 2026-01-16T00:00:00Z",
        ),
        row(
            "sessions: --now with month 13",
            || sessions_file(SESSION),
            &[
                "sessions",
                "--sessions",
                "sessions.jsonl",
                "--now",
                "2026-13-01T00:00:00Z",
            ],
            2,
            "error: --now: \"2026-13-01T00:00:00Z\" is not an RFC 3339 timestamp with an offset; repair: pass an RFC 3339 time with an offset between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z, e.g. --now 2026-01-16T00:00:00Z",
        ),
        row(
            "sessions: --days -1",
            || sessions_file(SESSION),
            sessions!("--days", "-1"),
            2,
            "error: --days: -1 must be ≥ 0; repair: pass a whole number of days, e.g. --days 30",
        ),
        row(
            "sessions: --days=-30",
            || sessions_file(SESSION),
            sessions!("--days=-30"),
            2,
            "error: --days: -30 must be ≥ 0; repair: pass a whole number of days, e.g. --days 30",
        ),
        row(
            "sessions: --days that is no number",
            || sessions_file(SESSION),
            sessions!("--days", "week"),
            2,
            "error: invalid value 'week' for '--days <N>': invalid digit found in string",
        ),
        row(
            "sessions: a relative repo that names nothing is a warning",
            || sessions_file(&SESSION.replace("\"repo\":null", "\"repo\":\"../gone\"")),
            sessions!(),
            0,
            "warning: sessions.jsonl:1: repo \"../gone\" is read from the folder of sessions.jsonl and names [DIR]/../gone, which does not exist; the session matches no repository",
        ),
        row(
            "sessions: a byte order mark before sessions and decisions is accepted",
            || {
                folder_with(&[
                    ("sessions.jsonl", &format!("\u{feff}{SESSION}\n")),
                    (
                        "decisions.jsonl",
                        &format!("\u{feff}{}", decision(r#"{"yes":0.8,"no":0.2}"#)),
                    ),
                ])
            },
            sessions!("--decisions", "decisions.jsonl"),
            0,
            "",
        ),
        row(
            "sessions: an unknown --format",
            || sessions_file(SESSION),
            sessions!("--format", "yaml"),
            2,
            "error: invalid value 'yaml' for '--format <FORMAT>'",
        ),
        row(
            "sessions: a --claude-dir that does not exist",
            folder,
            &[
                "sessions",
                "--claude-dir",
                "no-such-folder",
                "--now",
                LEX_NOW,
            ],
            2,
            "error: --claude-dir no-such-folder: no such folder; repair: name an existing folder of logs, or drop the flag to use the default locations",
        ),
        row(
            "sessions export: a --claude-dir that does not exist",
            folder,
            &["sessions", "export", "--claude-dir", "no-such-folder"],
            2,
            "error: --claude-dir no-such-folder: no such folder; repair: name an existing folder of logs, or drop the flag to use the default locations",
        ),
        row(
            "sessions export: a --codex-dir that does not exist",
            folder,
            &["sessions", "export", "--codex-dir", "no-such-folder"],
            2,
            "error: --codex-dir no-such-folder: no such folder; repair: name an existing folder of logs, or drop the flag to use the default locations",
        ),
        row(
            "sessions export: a --since that is no date",
            folder,
            &["sessions", "export", "--since", "last week"],
            2,
            "error: --since: \"last week\" is not an RFC 3339 timestamp with an offset; repair: pass a date (2026-01-15) or RFC 3339 with an offset",
        ),
        row(
            "sessions export: a byte order mark before a Claude log is accepted",
            || folder_with(&[("claude/proj/c1.jsonl", &format!("\u{feff}{CLAUDE_LINE}\n"))]),
            &["sessions", "export", "--claude-dir", "claude"],
            0,
            "",
        ),
    ]
}

/// One line of a Claude Code log.
const CLAUDE_LINE: &str = r#"{"type":"user","sessionId":"c1","uuid":"u1","timestamp":"2026-01-15T10:00:00Z","cwd":"/home/dev/proj","message":{"role":"user","content":"hi"}}"#;

/// One line of decisions.jsonl for a commit link, with `probabilities`.
fn decision(probabilities: &str) -> String {
    format!(
        "{{\"ts\":\"2026-01-15T12:00:00Z\",\"point\":\"commit_link\",\"subject\":\"a:0123abcd\",\"probabilities\":{probabilities}}}\n"
    )
}

fn fresh_rows() -> Vec<Row> {
    vec![
        row(
            "fresh: a line that is not JSON",
            || {
                readings(
                    "{\"id\":\"ok\",\"commit\":\"[HEAD]\",\"code\":[\"app.py#f\"]}\n\n{\"id\": \"broken\", \"commit\": \n",
                )
            },
            &["fresh", "readings.jsonl"],
            2,
            "error: readings.jsonl:3: line: not valid JSON (EOF while parsing a value at line 1 column 27); repair: write one complete JSON object per line, e.g. {\"id\": \"eval-1\", \"commit\": \"<40 hex digits>\", \"code\": [\"src/app.py#login\"]}",
        ),
        row(
            "fresh: a commit id that names no commit",
            || {
                readings(
                    "{\"id\":\"x\",\"commit\":\"ffffffffffffffffffffffffffffffffffffffff\",\"code\":[\"app.py#f\"]}\n",
                )
            },
            &["fresh", "readings.jsonl"],
            2,
            "error: readings.jsonl:1: commit: ffffffffffffffffffffffffffffffffffffffff names no commit in this repository; repair: write the full id of a commit of this repository (`git log` lists them), or remove the line",
        ),
        row(
            "fresh: a glob in code",
            || readings("{\"id\":\"g\",\"commit\":\"[HEAD]\",\"code\":[\"*.py\"]}\n"),
            &["fresh", "readings.jsonl"],
            2,
            "error: readings.jsonl:1: code[0]: `*.py` is a glob; a reading measures files and units; repair: list the files it measures, each as a bare path or `path#selector`",
        ),
        row(
            "fresh: a reading without an id",
            || readings("{\"commit\":\"[HEAD]\",\"code\":[\"app.py#f\"]}\n"),
            &["fresh", "readings.jsonl"],
            2,
            "error: readings.jsonl:1: id: required field is missing; repair: add `id` to the line",
        ),
        row(
            "fresh: an empty code list",
            || readings("{\"id\":\"e\",\"commit\":\"[HEAD]\",\"code\":[]}\n"),
            &["fresh", "readings.jsonl"],
            2,
            "error: readings.jsonl:1: code: is empty: nothing could ever stale this reading; repair: list the code the reading measures: `path#selector` entries or bare paths",
        ),
        row(
            "fresh: a readings file that does not exist",
            clean,
            &["fresh", "readings.jsonl"],
            2,
            "error: readings.jsonl: file: cannot read it: No such file or directory (os error 2); repair: pass an existing, readable readings file (JSON lines)",
        ),
        row(
            "fresh: a --repo that does not exist",
            || folder_with(&[("readings.jsonl", "")]),
            &["fresh", "readings.jsonl", "--repo", "missing"],
            2,
            "error: missing: no such folder; repair: pass an existing folder inside a git work tree with --repo",
        ),
        row(
            "fresh: no readings file named",
            clean,
            &["fresh"],
            2,
            "error: the following required arguments were not provided:",
        ),
        row(
            "fresh: a byte order mark before the readings is accepted",
            || {
                readings(
                    "\u{feff}{\"id\":\"eval-1\",\"commit\":\"[HEAD]\",\"code\":[\"app.py#f\"]}\n",
                )
            },
            &["fresh", "readings.jsonl"],
            0,
            "",
        ),
    ]
}

fn impact_rows() -> Vec<Row> {
    let with_patch = || patch(PATCH_F);
    vec![
        row(
            "impact: --depth without a value",
            with_patch,
            &["impact", "change.diff", "--depth"],
            2,
            "error: KEEL-G109: --depth needs a value; repair: write --depth N",
        ),
        row(
            "impact: --depth with a leading zero",
            with_patch,
            &["impact", "change.diff", "--depth", "01"],
            2,
            "error: KEEL-G109: --depth \"01\" is not a plain decimal number (no sign, no leading zero, digits only); repair: write e.g. --depth 1",
        ),
        row(
            "impact: --depth below zero",
            with_patch,
            &["impact", "change.diff", "--depth", "-1"],
            2,
            "error: KEEL-G109: --depth \"-1\" is not a plain decimal number (no sign, no leading zero, digits only); repair: write e.g. --depth 1",
        ),
        row(
            "impact: --depth past its range",
            with_patch,
            &["impact", "change.diff", "--depth", "1025"],
            2,
            "error: KEEL-G109: --depth 1025 is outside 0..=1024; repair: pick a value in that range",
        ),
        row(
            "impact: --max-bytes below its range",
            with_patch,
            &["impact", "change.diff", "--max-bytes", "1023"],
            2,
            "error: KEEL-G109: --max-bytes 1023 is outside 1024..=16777216; repair: pick a value in that range",
        ),
        row(
            "impact: --max-nodes 0",
            with_patch,
            &["impact", "change.diff", "--max-nodes", "0"],
            2,
            "error: KEEL-G109: --max-nodes 0 is outside 1..=65536; repair: pick a value in that range",
        ),
        row(
            "impact: --depth twice",
            with_patch,
            &["impact", "change.diff", "--depth", "1", "--depth", "2"],
            2,
            "error: KEEL-G109: --depth is given twice; repair: give each option once",
        ),
        row(
            "impact: an unknown option",
            with_patch,
            &["impact", "change.diff", "--colour", "1"],
            2,
            "error: KEEL-G109: unknown option \"--colour\"; repair: use --depth, --max-bytes or --max-nodes (and --rev, --repo)",
        ),
        row(
            "impact: two patches",
            with_patch,
            &["impact", "change.diff", "other.diff"],
            2,
            "error: KEEL-G109: unexpected argument \"other.diff\"; repair: give one PATCH",
        ),
        row(
            "impact: no patch",
            with_patch,
            &["impact"],
            2,
            "error: KEEL-G109: no PATCH given; repair: keel impact PATCH (or - for stdin)",
        ),
        row(
            "impact: a patch that does not exist",
            clean,
            &["impact", "missing.diff"],
            2,
            "error: missing.diff: cannot read the patch: No such file or directory (os error 2); repair: pass an existing file or - for stdin",
        ),
        row(
            "impact: a [impact] depth in keel.toml outside its range",
            || {
                files(&[
                    ("change.diff", PATCH_F.as_bytes()),
                    ("keel.toml", b"[impact]\nmax_nodes = 9\ndepth = 5000\n"),
                ])
            },
            &["impact", "change.diff"],
            2,
            "error: keel.toml:3: KEEL-G109: [impact] depth = 5000 is outside 0..=1024; repair: set a value in that range, or remove the key for the default",
        ),
        row(
            "impact: a patch that does not apply",
            || patch(&PATCH_F.replace("     y = x + 1", "     y = x + 5")),
            &["impact", "change.diff"],
            2,
            "error: change.diff:4: hunk 1 of app.py does not apply to the base at line 2 (a context or removed line differs); repair: regenerate the patch against the tree you preview it on (or pass --rev)",
        ),
        row(
            "impact: a file that is no diff",
            || patch("just some notes\n"),
            &["impact", "change.diff"],
            2,
            "error: change.diff: the patch changes no file; repair: pass the output of `git diff`",
        ),
        row(
            "impact: a hunk header that does not parse",
            || patch(&PATCH_F.replace("@@ -2,2 +2,2 @@", "@@ -x +y @@")),
            &["impact", "change.diff"],
            2,
            "error: change.diff:4: a hunk header that is not `@@ -l,s +l,s @@`; repair: pass a unified diff as `git diff` writes it",
        ),
        row(
            "impact: garbage on stdin",
            clean,
            &["impact", "-"],
            2,
            "error: <stdin>: the patch changes no file; repair: pass the output of `git diff`",
        )
        .stdin("@@ -1 +1 @@\n"),
        row(
            "impact: a --rev naming no commit",
            with_patch,
            &["impact", "change.diff", "--rev", "nope"],
            2,
            "error: nope: names no commit in this repository (couldn't parse revision, input=\"nope\"); repair: pass a commit id or a ref, e.g. the output of `git rev-parse HEAD`",
        ),
    ]
}

fn replay_rows() -> Vec<Row> {
    let two = || Input::from(hit_repo());
    vec![
        row(
            "replay: an --expect that is not TIP:NODE:CODE",
            two,
            &["replay", "--expect", "HEAD:app"],
            2,
            "error: --expect HEAD:app: not TIP:NODE:CODE; repair: e.g. --expect HEAD~3:auth/login:anchor-hit",
        ),
        row(
            "replay: an --expect with no finding code",
            two,
            &["replay", "--expect", "HEAD:app:hit"],
            2,
            "error: --expect HEAD:app:hit: hit is no finding code; repair: one of anchor-hit, dead-anchor, ambiguous-anchor, unparseable-anchor, no-extractor, too-large, symlink-anchor, extractor-unavailable, dead-path, type-only-anchor, code-drift, scoped-code-miss, path-reused, cosmetic-hit, related-hit, related-drift, shallow-history, governor-removed, empty-node",
        ),
        row(
            "replay: an --expect outside the replayed tips",
            two,
            &["replay", "--last", "1", "--expect", "HEAD~1:app:anchor-hit"],
            2,
            "error: --expect HEAD~1:app:anchor-hit: 92ea1eae69da is not among the replayed tips; repair: widen --range or --last, or drop --every",
        ),
        row(
            "replay: a --range that is not A..B",
            two,
            &["replay", "--range", "main"],
            2,
            "error: --range main: not A..B; repair: name two revisions, e.g. --range v1.0..main",
        ),
        row(
            "replay: a symmetric --range",
            two,
            &["replay", "--range", "HEAD~1...main"],
            2,
            "error: --range HEAD~1...main: A...B (a symmetric difference) is not a range of tips; repair: use A..B",
        ),
        row(
            "replay: --every 0",
            two,
            &["replay", "--every", "0"],
            2,
            "error: invalid value '0' for '--every <K>': 0 is not in 1..18446744073709551615",
        ),
        row(
            "replay: an --html in a folder that does not exist",
            two,
            &["replay", "--html", "missing/out.html"],
            2,
            "error: --html missing/out.html: the folder missing does not exist; repair: create it or name a file in an existing folder",
        ),
        row(
            "replay: a branch with no commits",
            orphan,
            &["replay", "--last", "1"],
            2,
            "error: HEAD: names no commit: HEAD's branch `fresh` has no commits yet; repair: commit on `fresh` first, or name a branch that has commits instead (e.g. `main`), or switch to it (`git switch main`)",
        ),
    ]
}

fn report_rows() -> Vec<Row> {
    vec![
        row(
            "report: --now that is no time",
            clean,
            &["report", "--html", "out.html", "--now", "yesterday"],
            2,
            "error: --now: \"yesterday\" is not an RFC 3339 timestamp with an offset; repair: pass an RFC 3339 time with an offset between 1678-01-01T00:00:00Z and 2261-12-31T23:59:59Z, e.g. --now 2026-01-16T00:00:00Z",
        ),
        row(
            "report: an --html in a folder that does not exist",
            clean,
            &["report", "--html", "missing/out.html"],
            2,
            "error: --html missing/out.html: the folder missing does not exist; repair: create it or name a file in an existing folder",
        ),
        row(
            "report: an --html that is a folder",
            clean,
            &["report", "--html", ".spec"],
            2,
            "error: --html .spec: is a folder; repair: name a file, e.g. --html .spec/report.html",
        ),
        row(
            "report: no --html",
            clean,
            &["report"],
            2,
            "error: the following required arguments were not provided:",
        ),
        row(
            "report: a --sessions file that does not exist",
            clean,
            &[
                "report",
                "--html",
                "out.html",
                "--sessions",
                "missing.jsonl",
            ],
            2,
            "error: missing.jsonl: file: cannot read it: No such file or directory (os error 2); repair: pass an existing, readable file with --sessions",
        ),
    ]
}

fn ack_rows() -> Vec<Row> {
    vec![
        row(
            "ack: an unknown node",
            || {
                let repo = configured(&IDENTITY);
                repo.into()
            },
            &["ack", "apq"],
            2,
            "error: `apq` is no spec node at HEAD (closest known: app); repair: pass a node id — the folder path of a `spec.md` under `.spec/`, e.g. `keel ack app`",
        ),
        row(
            "ack: staged changes",
            || {
                let repo = hit_repo();
                repo.write("app.py", "x = 1\n").expect("write");
                repo.git(&["add", "app.py"]).expect("git add");
                repo.into()
            },
            &["ack", "app"],
            2,
            "error: the index holds changes staged against HEAD (app.py), and a checkpoint records HEAD's tree unchanged; repair: commit or unstage them first (`git restore --staged .` unstages everything)",
        ),
        row(
            "ack: a detached HEAD",
            || hit_then(&["checkout", "-q", "--detach"]),
            &["ack", "app"],
            2,
            "error: HEAD is detached at 4a22afb59f2b, so there is no branch to acknowledge on; repair: switch to the branch the checkpoint belongs on (`git switch BRANCH`), then run keel ack again",
        ),
        row(
            "ack: a branch with no commits",
            || {
                let repo = FixtureRepo::new().expect("a fixture repository");
                for (key, value) in IDENTITY {
                    repo.git(&["config", key, value]).expect("git config");
                }
                repo.into()
            },
            &["ack", "app"],
            2,
            "error: branch main has no commits yet, so there is nothing to acknowledge; repair: commit the specs and the code first",
        ),
        row(
            "ack: no identity",
            || {
                let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
                repo.write("app.py", APP_PY_F_CHANGED).expect("write");
                repo.commit("Change f").expect("commit");
                repo.into()
            },
            &["ack", "app"],
            2,
            "error: no author identity: user.name or user.email is not set in git config; repair: `git config user.email you@example.com` and `git config user.name \"Your Name\"`",
        ),
        row(
            "ack: nothing left to acknowledge",
            || {
                let mut repo = hit_repo();
                repo.commit("Acknowledge\n\nSpec-OK: app").expect("commit");
                repo.into()
            },
            &["ack", "app"],
            2,
            "error: app: every commit since the spec's last version 92ea1eae69da is acknowledged already, so a checkpoint would acknowledge nothing; repair: none needed (`keel lint` judges the node)",
        ),
        row(
            "ack: no commit since the spec's last version",
            || configured(&IDENTITY).into(),
            &["ack", "app"],
            2,
            "error: app: no commit has come since the spec's last version 92ea1eae69da, so a checkpoint would acknowledge nothing; repair: none needed (`keel lint` judges the node)",
        ),
        row(
            "ack: an empty message",
            || hit_repo().into(),
            &["ack", "app", "-m", ""],
            2,
            "error: the checkpoint message is empty; repair: pass a subject with -m, or leave -m out for the default",
        ),
        row(
            "ack: no node",
            clean,
            &["ack"],
            2,
            "error: the following required arguments were not provided:",
        ),
    ]
}

fn hook_rows() -> Vec<Row> {
    vec![
        row(
            "hook install: a hook keel did not write",
            foreign_hook,
            &["hook", "install"],
            2,
            "error: [REPO]/.git/hooks/reference-transaction: a hook keel did not write is installed; repair: pass --force to keep it and run it before keel's, or remove it",
        ),
        row(
            "hook uninstall: a hook keel did not write",
            foreign_hook,
            &["hook", "uninstall"],
            2,
            "error: [REPO]/.git/hooks/reference-transaction: the hook installed there is not keel's, so keel has nothing to remove and left it as it is; repair: none needed (delete the file yourself if that hook should go)",
        ),
        row(
            "hook install: a --repo that does not exist",
            folder,
            &["hook", "install", "--repo", "missing"],
            2,
            "error: missing: no such folder; repair: pass an existing folder inside a git work tree with --repo",
        ),
        row("hook run: no phase", clean, &["hook", "run"], 2, "error: the following required arguments were not provided:"),
        row(
            "hook run: a line that names no commits",
            clean,
            &["hook", "run", "prepared"],
            2,
            "error: hook input line 1: expected `<old> <new> <ref>`, got \"not a ref update\"; repair: keel hook run reads what git gives a reference-transaction hook",
        )
        .stdin("not a ref update\n"),
    ]
}

fn other_rows() -> Vec<Row> {
    vec![
        row(
            "cache info: a --repo that does not exist",
            folder,
            &["cache", "info", "--repo", "missing"],
            2,
            "error: missing: no such folder; repair: pass an existing folder inside a git work tree with --repo",
        ),
        row(
            "cache info: a folder that is not a git repository",
            folder,
            &["cache", "info"],
            2,
            "error: .: not a git repository (or any parent up to the file system root); repair: run keel inside a git work tree or pass --repo DIR",
        ),
        row(
            "cache clear: a --repo naming a file",
            clean,
            &["cache", "clear", "--repo", "app.py"],
            2,
            "error: app.py: is a file, not a folder; repair: pass the repository's folder with --repo, e.g. --repo .",
        ),
        row(
            "cache: an unknown subcommand",
            clean,
            &["cache", "bogus"],
            2,
            "error: unrecognized subcommand 'bogus'",
        ),
        row(
            "cache: no subcommand",
            clean,
            &["cache"],
            2,
            "error: `keel cache` needs a subcommand; repair: run one of `keel cache info`, `keel cache clear`",
        ),
        row(
            "hook: no subcommand",
            clean,
            &["hook"],
            2,
            "error: `keel hook` needs a subcommand; repair: run one of `keel hook install`, `keel hook uninstall`, `keel hook run`",
        ),
        row(
            "watch: an unknown flag",
            clean,
            &["watch", "--bogus"],
            2,
            "error: unexpected argument '--bogus' found",
        ),
        row(
            "watch: an unknown --format",
            clean,
            &["watch", "--format", "yaml"],
            2,
            "error: invalid value 'yaml' for '--format <FORMAT>'",
        ),
        row(
            "watch: a --repo that does not exist",
            folder,
            &["watch", "--repo", "missing"],
            2,
            "error: missing: no such folder; repair: pass an existing folder inside a git work tree with --repo",
        ),
        row(
            "completions: an unknown shell",
            folder,
            &["completions", "tcsh"],
            2,
            "error: invalid value 'tcsh' for '<SHELL>'",
        ),
        row(
            "completions: no shell",
            folder,
            &["completions"],
            2,
            "error: the following required arguments were not provided:",
        ),
        row(
            "keel: an unknown command",
            folder,
            &["bogus"],
            2,
            "error: unrecognized subcommand 'bogus'",
        ),
    ]
}

/// Every row, by command.
fn rows() -> Vec<Row> {
    [
        lint_spec_rows(),
        lint_tree_rows(),
        symlink_rows(),
        lint_settings_rows(),
        lint_flag_rows(),
        callgraph_rows(),
        sessions_rows(),
        fresh_rows(),
        impact_rows(),
        replay_rows(),
        report_rows(),
        ack_rows(),
        hook_rows(),
        other_rows(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

// ---------------------------------------------------------------------------------------
// Runner

/// How long one run may take before it is killed (no row may start a watch loop).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs the row's argv in `root` (`[ROOT]` replaced), with its stdin, under a deadline.
fn run_row(row: &Row, root: &Path) -> Run {
    let out = tempfile::tempdir().expect("a folder for the output");
    let (stdout, stderr) = (out.path().join("stdout"), out.path().join("stderr"));
    let root_arg = root.display().to_string();
    let args: Vec<String> = row
        .args
        .iter()
        .map(|arg| arg.replace("[ROOT]", &root_arg))
        .collect();
    let mut child = keel(root)
        .args(&args)
        .stdin(if row.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(std::fs::File::create(&stdout).expect("a stdout file"))
        .stderr(std::fs::File::create(&stderr).expect("a stderr file"))
        .spawn()
        .expect("the keel binary runs");
    if let (Some(text), Some(mut pipe)) = (row.stdin, child.stdin.take()) {
        // keel may refuse before reading stdin; a closed pipe is no failure here.
        let _ = pipe.write_all(text.as_bytes());
    }
    let code = wait(&mut child);
    let read =
        |path: &Path| String::from_utf8_lossy(&std::fs::read(path).expect("read")).into_owned();
    Run {
        stdout: read(&stdout),
        stderr: read(&stderr),
        code,
    }
}

/// Waits for `child` up to [`RUN_TIMEOUT`]; its exit code, `-1` when killed.
fn wait(child: &mut Child) -> i32 {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for keel") {
            return status.code().unwrap_or(-1);
        }
        if started.elapsed() > RUN_TIMEOUT {
            // The row fails either way; a failed kill leaves nothing more to do.
            let _ = child.kill();
            let _ = child.wait();
            return -1;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs one row; the ways it broke its contract (none: it holds).
fn check(row: &Row) -> Vec<String> {
    let input = (row.build)();
    let before = input.state();
    let run = run_row(row, &input.root);
    let mut faults = answer_faults(row, &run, &input.redact(&run.stderr));
    if input.state() != before {
        faults.push("keel wrote something (listing or `git status` changed)".to_owned());
    }
    if !faults.is_empty() {
        let shown = input.redact(&run.render(None));
        faults.push(format!("the run:\n{}", shown.trim_end()));
    }
    faults
}

/// How `run` (its stderr redacted) differs from what `row` expects.
fn answer_faults(row: &Row, run: &Run, stderr: &str) -> Vec<String> {
    let first = stderr.lines().next().unwrap_or("");
    let refused = run.code == 2;
    let errors = stderr.lines().filter(|l| l.starts_with("error:")).count();
    let mut faults = Vec::new();
    if stderr.contains("panicked") {
        faults.push("keel panicked".to_owned());
    }
    if run.code != row.code {
        faults.push(format!("exit {} (expected {})", run.code, row.code));
    }
    if first != row.first {
        let expected = row.first;
        faults.push(format!(
            "first stderr line:\n    {first:?}\n  expected:\n    {expected:?}"
        ));
    }
    if refused && !run.stdout.is_empty() {
        faults.push("a refusal printed on stdout".to_owned());
    }
    if refused && errors != 1 {
        faults.push(format!("{errors} `error:` lines, not one"));
    }
    if refused && first.contains("; repair: ") && stderr.lines().count() != 1 {
        faults.push("a refusal of keel's own is more than one line".to_owned());
    }
    faults
}

/// How many rows run at once.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4))
}

/// Runs one row, a panic in its builder or runner included; the ways it broke its
/// contract.
fn faults(row: &Row) -> Vec<String> {
    std::panic::catch_unwind(|| check(row)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        vec![format!("the test itself panicked: {message}")]
    })
}

/// The report of every failing row, in table order; rows run on a few threads.
fn failures(rows: &[Row]) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers() {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(row) = rows.get(index) else { break };
                    let faults = faults(row);
                    if !faults.is_empty() {
                        let report = format!("[{}] {}", row.name, faults.join("\n  "));
                        found
                            .lock()
                            .expect("a worker panicked")
                            .push((index, report));
                    }
                }
            });
        }
    });
    let mut found = found.into_inner().expect("a worker panicked");
    found.sort();
    found.into_iter().map(|(_, report)| report).collect()
}

#[test]
fn every_bad_input_of_the_catalogue_is_answered_as_written() {
    let rows = rows();
    assert!(rows.len() >= 60, "the catalogue holds {} rows", rows.len());
    let failures = failures(&rows);
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n\n")
    );
}
