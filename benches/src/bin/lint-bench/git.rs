//! The git CLI side of `lint-bench`: pinned git commands, the baseline `git log -p`, and a
//! parser of its zero-context patches into per-commit, per-file hunk lists.
//!
//! Owns: how the bench runs git (under `keel_fixtures::pinned_git`: no system or global
//! config, the fixture identity, `TZ=UTC`, `LC_ALL=C`, plus `-c color.ui=never
//! -c core.quotepath=false`, no hooks, no signing; the baseline adds `--no-ext-diff
//! --no-textconv`) and what it reads back.
//! Does not own: keel's answer or the comparison of the two (`checks`), nor timing
//! (`measure`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Marks a commit line in the baseline's output (`--format=%x01%H`); no diff line starts
/// with it.
const COMMIT_MARK: &str = "\u{1}";

/// The bench's git command in `repo` ([`keel_benches::quiet_git`]).
pub(crate) fn git(repo: &Path) -> Command {
    keel_benches::quiet_git(repo)
}

/// Runs a pinned git command; returns its stdout, or an error naming the command.
pub(crate) fn run(repo: &Path, args: &[&str]) -> Result<String, String> {
    run_with(git(repo).args(args), args)
}

/// Runs a prepared git command (extra environment already set); returns its stdout.
pub(crate) fn run_with(command: &mut Command, args: &[&str]) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|e| format!("cannot run git (is it installed?): {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// One `git log` over a window: the revisions and the paths it reads.
#[derive(Debug, Clone)]
pub(crate) struct LogRange {
    /// `HEAD` and `^<version>` (none when the nodes have no version yet).
    pub(crate) revisions: Vec<String>,
    /// The anchored paths of the nodes with that version, sorted, de-duplicated.
    pub(crate) paths: Vec<String>,
}

impl LogRange {
    /// The baseline command: every non-merge commit of the window, its zero-context
    /// histogram patch of the anchored paths (no rename detection: the patch of each path
    /// as named at that commit). `--full-history`, because keel judges every window
    /// commit: git's default simplification drops side branches whose changes a merge
    /// discarded or made twice (a revert of a revert, a cherry-picked fix).
    pub(crate) fn command(&self, repo: &Path) -> Command {
        let mut command = git(repo);
        command.args([
            "log",
            "--no-merges",
            "--full-history",
            "-p",
            "--histogram",
            "--no-indent-heuristic",
            "-U0",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--format=%x01%H",
        ]);
        command.args(&self.revisions).arg("--").args(&self.paths);
        command
    }

    /// The command line as a reader would type it (for the printed report).
    pub(crate) fn display(&self) -> String {
        format!(
            "git log --no-merges --full-history -p --histogram --no-indent-heuristic -U0 --no-renames --no-ext-diff --no-textconv {} -- <{} paths>",
            self.revisions.join(" "),
            self.paths.len()
        )
    }
}

/// One `-U0` hunk header: 1-based starts and counts, as git prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GitHunk {
    pub(crate) old_start: u32,
    pub(crate) old_len: u32,
    pub(crate) new_start: u32,
    pub(crate) new_len: u32,
}

/// One file's patch in one commit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FilePatch {
    /// `--- /dev/null`: the path did not exist in the parent.
    pub(crate) created: bool,
    /// `+++ /dev/null`: the path does not exist in the commit.
    pub(crate) deleted: bool,
    /// git printed "Binary files … differ".
    pub(crate) binary: bool,
    pub(crate) hunks: Vec<GitHunk>,
}

/// The baseline's answer: commit id → path → its patch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Patches {
    pub(crate) commits: BTreeMap<String, BTreeMap<String, FilePatch>>,
}

impl Patches {
    /// The patch of `path` in `commit`, when git printed one.
    pub(crate) fn get(&self, commit: &str, path: &str) -> Option<&FilePatch> {
        self.commits.get(commit)?.get(path)
    }

    /// File patches over all commits.
    pub(crate) fn file_patches(&self) -> usize {
        self.commits.values().map(BTreeMap::len).sum()
    }

    /// Hunks over all file patches.
    pub(crate) fn hunks(&self) -> usize {
        self.commits
            .values()
            .flat_map(BTreeMap::values)
            .map(|p| p.hunks.len())
            .sum()
    }

    /// Adds another range's answer (ranges of different versions may share commits).
    pub(crate) fn merge(&mut self, other: Patches) {
        for (commit, files) in other.commits {
            self.commits.entry(commit).or_default().extend(files);
        }
    }
}

/// Where the parser is inside one file's patch.
#[derive(PartialEq, Eq)]
enum State {
    /// Between a commit line and the first `diff --git`.
    Commit,
    /// In a file's extended header (before its first `@@`): `---`/`+++` name the paths.
    Header,
    /// In hunks: lines start with `+`, `-` or `\`.
    Hunks,
}

/// Parses the baseline's output into per-commit, per-file hunk lists.
pub(crate) fn parse(stdout: &str) -> Result<Patches, String> {
    let mut patches = Patches::default();
    let mut commit: Option<String> = None;
    let mut current: Option<(String, FilePatch)> = None;
    let mut state = State::Commit;
    let mut flush = |commit: &Option<String>, current: &mut Option<(String, FilePatch)>| {
        if let (Some(commit), Some((path, patch))) = (commit, current.take()) {
            patches
                .commits
                .entry(commit.clone())
                .or_default()
                .insert(path, patch);
        }
    };
    for line in stdout.lines() {
        if let Some(id) = line.strip_prefix(COMMIT_MARK) {
            flush(&commit, &mut current);
            commit = Some(id.trim().to_owned());
            state = State::Commit;
            continue;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            flush(&commit, &mut current);
            if commit.is_none() {
                return Err("a patch before any commit line".to_owned());
            }
            current = Some((header_path(rest), FilePatch::default()));
            state = State::Header;
            continue;
        }
        let Some((path, patch)) = current.as_mut() else {
            continue;
        };
        if line.starts_with("@@") {
            patch
                .hunks
                .push(parse_hunk(line).ok_or_else(|| format!("not a -U0 hunk header: {line:?}"))?);
            state = State::Hunks;
        } else if state == State::Header {
            if let Some(old) = line.strip_prefix("--- ") {
                patch.created = old == "/dev/null";
                if let Some(old) = old.strip_prefix("a/") {
                    old.clone_into(path);
                }
            } else if let Some(new) = line.strip_prefix("+++ ") {
                patch.deleted = new == "/dev/null";
                if let Some(new) = new.strip_prefix("b/") {
                    new.clone_into(path);
                }
            } else if line.starts_with("Binary files ") {
                patch.binary = true;
            } else if line.starts_with("new file mode") {
                patch.created = true;
            } else if line.starts_with("deleted file mode") {
                patch.deleted = true;
            }
        }
    }
    flush(&commit, &mut current);
    Ok(patches)
}

/// The path of `a/P b/P` (no rename detection, so both sides name the same path).
fn header_path(rest: &str) -> String {
    let half = rest.len().saturating_sub(5) / 2;
    rest.get(2..2 + half).unwrap_or(rest).to_owned()
}

/// `@@ -a[,b] +c[,d] @@…` → the four numbers (a count git omits is 1).
fn parse_hunk(line: &str) -> Option<GitHunk> {
    let mut fields = line.split(' ');
    let (_, old, new) = (fields.next()?, fields.next()?, fields.next()?);
    let side = |text: &str, sign: char| -> Option<(u32, u32)> {
        let text = text.strip_prefix(sign)?;
        match text.split_once(',') {
            Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let (old_start, old_len) = side(old, '-')?;
    let (new_start, new_len) = side(new, '+')?;
    Some(GitHunk {
        old_start,
        old_len,
        new_start,
        new_len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commits_files_and_hunks() {
        let out = "\u{1}aaa\n\ndiff --git a/src/x.py b/src/x.py\nindex 1..2 100644\n--- a/src/x.py\n+++ b/src/x.py\n@@ -3 +3,2 @@ def f():\n--- a/not/a/header\n+x\n+y\ndiff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+z\n\u{1}bbb\n\ndiff --git a/b.bin b/b.bin\nBinary files a/b.bin and b/b.bin differ\n";
        let patches = parse(out).expect("well-formed");
        let x = patches.get("aaa", "src/x.py").expect("x patched");
        assert_eq!(
            x.hunks,
            vec![GitHunk {
                old_start: 3,
                old_len: 1,
                new_start: 3,
                new_len: 2
            }]
        );
        assert!(!x.created);
        assert!(patches.get("aaa", "n.py").expect("n patched").created);
        assert!(patches.get("bbb", "b.bin").expect("binary").binary);
        assert_eq!(patches.file_patches(), 3);
        assert_eq!(patches.hunks(), 2);
    }
}
