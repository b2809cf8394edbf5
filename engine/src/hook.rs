//! The local candidate gate's footing in a repository: the `reference-transaction` hook
//! file keel writes and removes, which ref updates are plumbing, and which operation is
//! in progress when an update is refused.
//!
//! Owns: where hooks live (`core.hooksPath`, else the common git folder's `hooks/`; bare
//! repositories alike), the hook script (marked as keel's, so keel never overwrites or
//! removes a hook it did not write; `--force` keeps the old one beside it and runs it
//! first), the seed's plumbing test and its converse (the commits an update brings that
//! no ref or reflog reaches yet; none for plumbing), and the operation in progress
//! (rebase, cherry-pick, revert, merge, `git am`) with its continue and abort commands.
//! Does not own: judging a candidate (`keel lint --pending`) or the wording of a refusal.
//!
//! Reachability reads every ref under `refs/` and every entry of their reflogs, not HEAD
//! and its reflog: a rebase replays its commits on a detached HEAD and only then moves
//! the branch, so counting HEAD would pass every rebase as plumbing. A reset, checkout or
//! new branch moves a branch to a commit some ref or reflog already holds and passes at
//! once; a commit, amend, cherry-pick, revert, merge or rebase brings a commit no ref
//! holds yet and is judged.

use crate::database::{EngineError, KeelDatabase};
use crate::oid::Oid;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The hook keel installs.
pub const HOOK_NAME: &str = "reference-transaction";

/// The line that marks a hook file as keel's.
const MARKER: &str = "# keel: local candidate gate (written by `keel hook install`)";

/// Where `--force` keeps the hook keel replaced (run first by keel's).
const CHAINED_SUFFIX: &str = ".keel-chained";

/// Why a hook could not be installed or removed.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error(
        "{path}: a hook keel did not write is installed; repair: pass --force to keep it and run it before keel's, or remove it"
    )]
    NotOurs { path: PathBuf },
    #[error(
        "{path}: the hook installed there is not keel's, so keel has nothing to remove and left it as it is; repair: none needed (delete the file yourself if that hook should go)"
    )]
    NotOursToRemove { path: PathBuf },
    #[error("{path}: no hook keel wrote is installed; nothing to remove")]
    NotInstalled { path: PathBuf },
    #[error("{path}: {reason}; repair: check the folder's permissions")]
    Io { path: PathBuf, reason: String },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// What `install` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub path: PathBuf,
    /// The hook that was there, kept and run first (`--force`).
    pub chained: Option<PathBuf>,
}

/// What `uninstall` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uninstalled {
    pub path: PathBuf,
    /// The chained hook put back in place.
    pub restored: bool,
}

/// A git operation that a refused ref update interrupts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Rebase,
    CherryPick,
    Revert,
    Merge,
    Am,
    /// No operation is in progress (a commit).
    None,
}

impl Operation {
    /// The commands that continue and abort the operation, if one is in progress.
    pub fn commands(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Self::Rebase => ("git rebase --continue", "git rebase --abort"),
            Self::CherryPick => ("git cherry-pick --continue", "git cherry-pick --abort"),
            Self::Revert => ("git revert --continue", "git revert --abort"),
            Self::Merge => ("git merge --continue", "git merge --abort"),
            Self::Am => ("git am --continue", "git am --abort"),
            Self::None => return None,
        })
    }
}

impl KeelDatabase {
    /// The hook file's path in this repository.
    pub fn hook_path(&self) -> Result<PathBuf, EngineError> {
        let repo = self.repo_handle()?;
        let configured = repo
            .config_snapshot()
            .string("core.hooksPath")
            .map(|value| PathBuf::from(value.to_string()));
        let folder = match configured {
            Some(path) if path.is_absolute() => path,
            Some(path) => repo.workdir().unwrap_or(repo.git_dir()).join(path),
            None => repo.common_dir().join("hooks"),
        };
        Ok(folder.join(HOOK_NAME))
    }

    /// Writes keel's hook, which runs `keel` (the program at `program`, else `keel` on
    /// `PATH`). Refuses a hook keel did not write unless `force`, which keeps it beside
    /// keel's and runs it first.
    pub fn install_hook(&self, program: &Path, force: bool) -> Result<Installed, HookError> {
        let path = self.hook_path()?;
        let io = |err: std::io::Error| HookError::Io {
            path: path.clone(),
            reason: err.to_string(),
        };
        let mut chained = None;
        match std::fs::read(&path) {
            Ok(existing) if is_ours(&existing) => {}
            Ok(_) if force => {
                let kept = chained_path(&path);
                std::fs::rename(&path, &kept).map_err(io)?;
                chained = Some(kept);
            }
            Ok(_) => return Err(HookError::NotOurs { path }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(io(err)),
        }
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io)?;
        }
        let chain = chained.is_some() || chained_path(&path).exists();
        write_executable(&path, &script(program, chain)).map_err(io)?;
        Ok(Installed { path, chained })
    }

    /// Removes keel's hook, putting back the hook `--force` kept. Refuses a hook keel did
    /// not write.
    pub fn uninstall_hook(&self) -> Result<Uninstalled, HookError> {
        let path = self.hook_path()?;
        let io = |err: std::io::Error| HookError::Io {
            path: path.clone(),
            reason: err.to_string(),
        };
        match std::fs::read(&path) {
            Ok(existing) if is_ours(&existing) => {}
            Ok(_) => return Err(HookError::NotOursToRemove { path }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(HookError::NotInstalled { path });
            }
            Err(err) => return Err(io(err)),
        }
        let kept = chained_path(&path);
        let restored = kept.exists();
        if restored {
            std::fs::rename(&kept, &path).map_err(io)?;
        } else {
            std::fs::remove_file(&path).map_err(io)?;
        }
        Ok(Uninstalled { path, restored })
    }

    /// The commits a ref update to `object` brings: those reachable from it that no ref
    /// under `refs/` and no entry of their reflogs reaches, newest first. Empty for
    /// structural plumbing (reset, branch, checkout, a rewrite that landed); for a commit,
    /// amend, merge, rebase or push, every commit it adds, not only `object`.
    pub fn new_commits(&self, object: Oid) -> Result<Vec<Oid>, EngineError> {
        let repo = self.repo_handle()?;
        let held = self.ref_and_reflog_commits(&repo)?;
        if held.contains(&object) {
            return Ok(Vec::new());
        }
        let walk = repo
            .rev_walk([object.0])
            .with_hidden(held.iter().map(|oid| oid.0))
            .all()
            .map_err(|err| self.unreadable(&err))?;
        let mut new = Vec::new();
        for info in walk {
            let info = info.map_err(|err| self.unreadable(&err))?;
            new.push(Oid(info.id));
        }
        Ok(new)
    }

    /// Is `object` a commit of this repository?
    pub fn is_commit(&self, object: Oid) -> Result<bool, EngineError> {
        let repo = self.repo_handle()?;
        Ok(repo
            .find_header(object.0)
            .is_ok_and(|header| header.kind() == gix::object::Kind::Commit))
    }

    /// The operation in progress in this repository.
    pub fn operation_in_progress(&self) -> Result<Operation, EngineError> {
        let repo = self.repo_handle()?;
        let git_dir = repo.git_dir();
        let has = |name: &str| git_dir.join(name).exists();
        Ok(
            if has("rebase-merge") || (has("rebase-apply") && !has("rebase-apply/applying")) {
                Operation::Rebase
            } else if has("rebase-apply") {
                Operation::Am
            } else if has("CHERRY_PICK_HEAD") {
                Operation::CherryPick
            } else if has("REVERT_HEAD") {
                Operation::Revert
            } else if has("MERGE_HEAD") {
                Operation::Merge
            } else {
                Operation::None
            },
        )
    }

    /// The commits every ref under `refs/` points at (peeled) and every reflog entry of
    /// those refs names.
    fn ref_and_reflog_commits(&self, repo: &gix::Repository) -> Result<HashSet<Oid>, EngineError> {
        let mut commits = HashSet::new();
        let platform = repo.references().map_err(|err| self.unreadable(&err))?;
        let refs = platform.all().map_err(|err| self.unreadable(&err))?;
        for reference in refs {
            let mut reference = reference.map_err(|err| self.unreadable(&err))?;
            if !reference.name().as_bstr().starts_with(b"refs/") {
                continue;
            }
            if let Ok(id) = reference.peel_to_id() {
                commits.insert(Oid(id.detach()));
            }
            let mut log = reference.log_iter();
            let Ok(Some(lines)) = log.all() else {
                continue;
            };
            for line in lines.flatten() {
                for id in [line.previous_oid(), line.new_oid()] {
                    if !id.is_null() {
                        commits.insert(Oid(id));
                    }
                }
            }
        }
        commits.retain(|oid| {
            repo.find_header(oid.0)
                .is_ok_and(|header| header.kind() == gix::object::Kind::Commit)
        });
        Ok(commits)
    }

    fn repo_handle(&self) -> Result<gix::Repository, EngineError> {
        self.objects_store()
            .fresh_handle()
            .ok_or_else(|| self.unreadable(&"no repository is open"))
    }
}

/// Was this hook file written by keel?
fn is_ours(content: &[u8]) -> bool {
    String::from_utf8_lossy(content)
        .lines()
        .any(|line| line == MARKER)
}

fn chained_path(hook: &Path) -> PathBuf {
    let mut name = hook.as_os_str().to_owned();
    name.push(CHAINED_SUFFIX);
    PathBuf::from(name)
}

/// The hook script: the kept hook first (every phase, same arguments and input), then
/// keel for the prepared phase. `KEEL_SKIP_LINT=1` is honoured by keel itself, so the
/// refusal that names it is the one place it is explained. Without a kept hook, no
/// process but keel's is started, and keel only in the prepared phase: the other phases'
/// input is drained by the shell's own `read` (git writes every phase's input), and keel
/// reads the prepared phase's from the hook's stdin.
fn script(program: &Path, chain: bool) -> String {
    let program = program.display().to_string().replace('\'', "'\\''");
    let mut text = format!(
        "#!/bin/sh\n{MARKER}\n# Remove with `keel hook uninstall`; skip once with KEEL_SKIP_LINT=1.\nkeel='{program}'\n[ -x \"$keel\" ] || keel=keel\n"
    );
    if chain {
        text.push_str(&format!(
            "input=$(cat)\nkept=\"$0{CHAINED_SUFFIX}\"\nif [ -x \"$kept\" ]; then\n  printf '%s\\n' \"$input\" | \"$kept\" \"$@\" || exit $?\nfi\n[ \"$1\" = prepared ] || exit 0\nprintf '%s\\n' \"$input\" | exec \"$keel\" hook run \"$1\"\n"
        ));
        return text;
    }
    text.push_str(
        "if [ \"$1\" != prepared ]; then\n  while read -r _; do :; done\n  exit 0\nfi\nexec \"$keel\" hook run \"$1\"\n",
    );
    text
}

#[cfg(unix)]
fn write_executable(path: &Path, text: &str) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn write_executable(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}
