//! The scratch copy `extract-agree` anchors and lints: REPO's committed tip, fetched at
//! depth 1 into a fresh repository, with the generated spec nodes committed there as one
//! root commit (so every node's window is empty and lint judges only the tip's units).
//!
//! Owns: checking REPO (a git work tree with a commit), creating the copy (a temporary
//! folder, or `--work DIR` that must not exist yet), listing the tip's source files (regular
//! blobs with a keel extension), and committing the nodes under the pinned fixture identity
//! with no hooks or signing. REPO itself is only read (`git fetch` from it). A `.spec/` or
//! `keel.toml` of REPO's own is dropped from the copy, so only the bench's nodes and keel's
//! default settings are judged.
//! Does not own: what the nodes say (`compare`), nor the compilers (`compilers`).

use crate::Failure;
use keel_queries::extract::Language;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The branch of the scratch copy's one commit.
const BRANCH: &str = "extract-agree";

/// The bench's git command in `dir` ([`keel_benches::quiet_git`]).
fn git(dir: &Path) -> Command {
    keel_benches::quiet_git(dir)
}

/// Runs git in `dir`: `Ok(Err(message))` when git ran and failed.
fn attempt(dir: &Path, args: &[&str]) -> Result<Result<String, String>, Failure> {
    let output = git(dir)
        .args(args)
        .output()
        .map_err(|e| Failure::Tool(format!("cannot run git (is it installed?): {e}")))?;
    Ok(if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
    })
}

/// Runs git in `dir`; its stdout, or a tool failure naming the command.
fn run(dir: &Path, args: &[&str]) -> Result<String, Failure> {
    attempt(dir, args)?.map_err(|message| {
        Failure::Tool(format!(
            "git {} failed in {}: {message}",
            args.join(" "),
            dir.display()
        ))
    })
}

/// REPO, checked: the top of a git work tree and its tip commit.
pub(crate) struct Source {
    pub(crate) top: PathBuf,
    pub(crate) head: String,
}

impl Source {
    pub(crate) fn check(repo: &Path) -> Result<Self, Failure> {
        if !repo.is_dir() {
            return Err(Failure::Input(format!(
                "{} is not a folder; pass a git work tree",
                repo.display()
            )));
        }
        let top = attempt(repo, &["rev-parse", "--show-toplevel"])?.map_err(|_| {
            Failure::Input(format!(
                "{} is not a git work tree; pass the folder of a clone",
                repo.display()
            ))
        })?;
        let top = PathBuf::from(top.trim());
        let head = attempt(&top, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])?
            .map_err(|_| Failure::Input(format!("{} has no commit at HEAD", top.display())))?;
        Ok(Self {
            top,
            head: head.trim().to_owned(),
        })
    }

    /// The tip's first 12 hex digits.
    pub(crate) fn short_head(&self) -> &str {
        self.head.get(..12).unwrap_or(&self.head)
    }
}

/// A source file at the tip, with keel's designated language for it.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile {
    pub(crate) path: String,
    pub(crate) language: Language,
}

/// Where the scratch copy lives: a temporary folder removed on drop, or a kept one.
enum Folder {
    Temporary(tempfile::TempDir),
    Kept(PathBuf),
}

/// The scratch copy.
pub(crate) struct Scratch {
    folder: Folder,
}

impl Scratch {
    /// Fetches REPO's tip (depth 1) into a new repository and checks it out there.
    pub(crate) fn create(source: &Source, work: Option<&Path>) -> Result<Self, Failure> {
        let folder = match work {
            Some(dir) => {
                if dir.exists() {
                    return Err(Failure::Input(format!(
                        "{} exists; --work names a new folder",
                        dir.display()
                    )));
                }
                std::fs::create_dir_all(dir)
                    .map_err(|e| Failure::Input(format!("cannot create {}: {e}", dir.display())))?;
                let dir = std::path::absolute(dir)
                    .map_err(|e| Failure::Input(format!("{}: {e}", dir.display())))?;
                Folder::Kept(dir)
            }
            None => Folder::Temporary(
                tempfile::Builder::new()
                    .prefix("extract-agree-")
                    .tempdir()
                    .map_err(|e| Failure::Tool(format!("cannot create a temporary folder: {e}")))?,
            ),
        };
        let scratch = Self { folder };
        let root = scratch.root();
        let url = format!("file://{}", source.top.display());
        run(root, &["init", "--quiet", "--initial-branch", BRANCH, "."])?;
        run(
            root,
            &[
                "fetch",
                "--quiet",
                "--no-tags",
                "--depth",
                "1",
                &url,
                &source.head,
            ],
        )?;
        let fetched = run(root, &["rev-parse", "FETCH_HEAD"])?;
        if fetched.trim() != source.head {
            return Err(Failure::Tool(format!(
                "fetched {} but REPO's tip is {}",
                fetched.trim(),
                source.head
            )));
        }
        run(root, &["read-tree", "--reset", "-u", "FETCH_HEAD"])?;
        Ok(scratch)
    }

    pub(crate) fn root(&self) -> &Path {
        match &self.folder {
            Folder::Temporary(dir) => dir.path(),
            Folder::Kept(dir) => dir,
        }
    }

    /// The folder when it is kept after the run (`--work`).
    pub(crate) fn kept(&self) -> Option<&Path> {
        match &self.folder {
            Folder::Temporary(_) => None,
            Folder::Kept(dir) => Some(dir),
        }
    }

    /// The tip's regular files with a keel extension, outside `.spec/`, sorted by path.
    pub(crate) fn source_files(&self) -> Result<Vec<SourceFile>, Failure> {
        let listing = run(self.root(), &["ls-tree", "-r", "-z", "FETCH_HEAD"])?;
        let mut files: Vec<SourceFile> = listing
            .split('\0')
            .filter_map(|record| {
                let (meta, path) = record.split_once('\t')?;
                let regular = meta.starts_with("100644 blob") || meta.starts_with("100755 blob");
                let language = Language::for_path(path)?;
                (regular && !path.starts_with(".spec/")).then(|| SourceFile {
                    path: path.to_owned(),
                    language,
                })
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// Writes the nodes (`(node id, spec.md text)`) and commits them with the tip's tree
    /// as the copy's one root commit; returns how many were committed.
    pub(crate) fn commit_specs(&self, nodes: &[(String, String)]) -> Result<usize, Failure> {
        let root = self.root();
        for own in [".spec", "keel.toml"] {
            run(
                root,
                &["rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", own],
            )?;
            let path = root.join(own);
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else if path.exists() {
                std::fs::remove_file(&path)
            } else {
                Ok(())
            };
            removed.map_err(|e| Failure::Tool(format!("cannot remove {}: {e}", path.display())))?;
        }
        for (node, text) in nodes {
            let path = root.join(".spec").join(node).join("spec.md");
            let folder = path
                .parent()
                .ok_or_else(|| Failure::Tool("a spec path has a folder".to_owned()))?;
            std::fs::create_dir_all(folder)
                .map_err(|e| Failure::Tool(format!("cannot create {}: {e}", folder.display())))?;
            std::fs::write(&path, text)
                .map_err(|e| Failure::Tool(format!("cannot write {}: {e}", path.display())))?;
        }
        if !nodes.is_empty() {
            run(root, &["add", "--force", "--", ".spec"])?;
        }
        let message = format!(
            "extract-agree: the tip and {} spec nodes anchoring every unit the compilers list",
            nodes.len()
        );
        run(
            root,
            &[
                "commit",
                "--quiet",
                "--no-verify",
                "--allow-empty",
                "-m",
                &message,
            ],
        )?;
        Ok(nodes.len())
    }
}
