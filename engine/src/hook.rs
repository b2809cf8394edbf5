//! The local candidate gate's footing in a repository: the `reference-transaction` hook
//! file keel writes and removes, which ref updates are plumbing, and which operation is
//! in progress when an update is refused.
//!
//! Owns: where hooks live (git's own answer, `git rev-parse --git-path
//! hooks/reference-transaction`: `core.hooksPath` as git reads it, else the common git
//! folder's `hooks/`; bare repositories alike), the hook script (marked as keel's, so keel
//! never overwrites or removes a hook it did not write; `--force` keeps the old one beside
//! it and runs it first, and never replaces a hook it kept; the script passes plumbing and
//! refuses only new branch commits when keel itself is gone), the seed's plumbing test
//! and its converse (the commits an update brings that no ref or reflog reaches yet; none
//! for plumbing), and the operation in progress (rebase, cherry-pick, revert, merge,
//! `git am`) with its continue and abort commands.
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
    #[error(
        "{path}: a hook keel did not write is installed, and keel already keeps an earlier one at {kept}; keel replaces neither; repair: merge the two hooks into {kept} (or remove the one you no longer want), then run `keel hook install --force` again"
    )]
    KeptAlready { path: PathBuf, kept: PathBuf },
    #[error(
        "core.hooksPath is set but empty, so git looks for the hook at {path}, in no hooks folder, and keel writes nothing there; repair: remove the empty setting (`git config --show-origin core.hooksPath` names its file; `git config --unset core.hooksPath` removes this repository's) or set it to a folder"
    )]
    EmptyHooksPath { path: PathBuf },
    #[error(
        "{folder}: git looks for hooks there (core.hooksPath, else the git folder's hooks/), but it is not a folder, so git runs no hook and keel installed nothing; repair: set core.hooksPath to a folder (`git config core.hooksPath DIR`), or leave hooks switched off (core.hooksPath=/dev/null does that)"
    )]
    HooksNotAFolder { folder: PathBuf },
    #[error(
        "cannot ask git where it runs hooks (`git rev-parse --git-path hooks/{HOOK_NAME}` in {dir}): {reason}; repair: put git on PATH (the hook runs only under git)"
    )]
    Git { dir: PathBuf, reason: String },
    #[error(
        "{path}: keel wrote its hook where git runs it, but it cannot be run ({reason}), so git would skip it; repair: make the file executable on a filesystem that runs programs (not mounted noexec), or set core.hooksPath to a folder that does"
    )]
    NotRunnable { path: PathBuf, reason: String },
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
    /// `git merge` (or `git pull`) fast-forwarding: git moved the working tree and the
    /// index to the target before the branch, and leaves them there when the ref update
    /// is refused.
    FastForward,
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
            Self::FastForward | Self::None => return None,
        })
    }
}

impl KeelDatabase {
    /// Where git runs this repository's hook, as git itself answers it (`git rev-parse
    /// --git-path hooks/reference-transaction`, asked of this repository's git folder and
    /// working tree): `core.hooksPath` is read as git reads it (`~/` expanded, a relative
    /// path taken from the working tree's root, or from the git folder of a bare
    /// repository, every config file and setting git sees), else the common git folder's
    /// `hooks/`. An empty `core.hooksPath` is refused: git then looks for the hook outside
    /// any folder meant for hooks (git 2.47: at the filesystem root).
    pub fn hook_path(&self) -> Result<PathBuf, HookError> {
        let repo = self.repo_handle()?;
        // git runs a hook in the working tree's root, or in a bare repository's git folder,
        // and answers a relative `core.hooksPath` relative to that folder.
        let base = repo.workdir().unwrap_or(repo.git_dir()).to_owned();
        let failed = |reason: String| HookError::Git {
            dir: base.clone(),
            reason,
        };
        let mut git = std::process::Command::new("git");
        git.current_dir(&base)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_COMMON_DIR")
            .arg(flag("--git-dir=", repo.git_dir()));
        if let Some(workdir) = repo.workdir() {
            git.arg(flag("--work-tree=", workdir));
        }
        let output = git
            .args(["rev-parse", "--git-path", &format!("hooks/{HOOK_NAME}")])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|err| failed(err.to_string()))?;
        if !output.status.success() {
            return Err(failed(
                String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            ));
        }
        let answer = output.stdout.strip_suffix(b"\n").unwrap_or(&output.stdout);
        let answer = gix::path::from_byte_slice(answer)
            .map_err(|_| failed("git named a path that is not UTF-8".to_owned()))?;
        let path = base.join(answer);
        let empty = repo
            .config_snapshot()
            .string("core.hooksPath")
            .is_some_and(|value| value.is_empty());
        if empty {
            return Err(HookError::EmptyHooksPath { path });
        }
        Ok(path)
    }

    /// Writes keel's hook where git runs it ([`Self::hook_path`]), which runs `keel` (the
    /// program at `program`, else `keel` on `PATH`), then runs it once as git would (with
    /// [`PROBE`], which it answers at once) so a hook git would skip is an error, not
    /// "installed". Refuses a hook keel did not write unless `force`, which keeps it
    /// beside keel's and runs it first; refuses even with `force` when keel already keeps
    /// an earlier one, which it never replaces. Writes nothing when git's hooks path is
    /// not a folder (`core.hooksPath=/dev/null` switches hooks off).
    pub fn install_hook(&self, program: &Path, force: bool) -> Result<Installed, HookError> {
        let path = self.hook_path()?;
        let io = |err: std::io::Error| HookError::Io {
            path: path.clone(),
            reason: err.to_string(),
        };
        if let Some(folder) = path.parent()
            && folder.exists()
            && !folder.is_dir()
        {
            return Err(HookError::HooksNotAFolder {
                folder: folder.to_owned(),
            });
        }
        let kept = chained_path(&path);
        let kept_before = kept.symlink_metadata().is_ok();
        let mut chained = None;
        match std::fs::read(&path) {
            Ok(existing) if is_ours(&existing) => {}
            Ok(_) if force && kept_before => {
                return Err(HookError::KeptAlready { path, kept });
            }
            Ok(_) if force => {
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
        let chain = chained.is_some() || kept_before;
        write_executable(&path, &script(program, chain)).map_err(io)?;
        probe(&path)?;
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

    /// For each of `objects` (the targets of one ref transaction), the commits an update
    /// to it brings: those reachable from it that no ref under `refs/` and no entry of
    /// their reflogs reaches, newest first (the refs and reflogs are read once). Empty for
    /// structural plumbing (reset, branch, checkout, a rewrite that landed); for a commit,
    /// amend, merge, rebase or push, every commit it adds, not only the target.
    pub fn new_commits(&self, objects: &[Oid]) -> Result<Vec<Vec<Oid>>, EngineError> {
        let repo = self.repo_handle()?;
        let held = self.ref_and_reflog_commits(&repo)?;
        let graph = repo
            .commit_graph_if_enabled()
            .map_err(|err| self.unreadable(&err))?;
        let mut brought = Vec::with_capacity(objects.len());
        for object in objects {
            if held.contains(object) {
                brought.push(Vec::new());
                continue;
            }
            let new = crate::reach::new_commits(
                &repo,
                graph.as_ref(),
                object.0,
                held.iter().map(|oid| oid.0),
            )
            .map_err(|err| self.unreadable(&err))?;
            brought.push(new.into_iter().map(Oid).collect());
        }
        Ok(brought)
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
            } else if is_merging(std::env::var_os("GIT_REFLOG_ACTION").as_deref()) {
                // `git merge` and `git pull` name themselves in GIT_REFLOG_ACTION (no
                // other command that moves a branch does): with no MERGE_HEAD, it is a
                // fast-forward.
                Operation::FastForward
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

/// `FLAG` followed by `path`, as one argument.
fn flag(flag: &str, path: &Path) -> std::ffi::OsString {
    let mut arg = std::ffi::OsString::from(flag);
    arg.push(path);
    arg
}

/// The argument keel's hook answers at once with success, doing nothing: `keel hook
/// install` runs the hook with it to check that git can run it. git never passes it (a
/// `reference-transaction` hook's one argument is its phase).
pub const PROBE: &str = "--keel-probe";

/// Runs the hook at `path` as git runs it (by its path, `/bin/sh` reading its first line)
/// with [`PROBE`]: a hook that is not executable, on a folder mounted `noexec`, or whose
/// interpreter is missing fails here as it would under git, where git skips it.
#[cfg(unix)]
fn probe(path: &Path) -> Result<(), HookError> {
    let not_runnable = |reason: String| HookError::NotRunnable {
        path: path.to_owned(),
        reason,
    };
    let output = std::process::Command::new(path)
        .arg(PROBE)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|err| not_runnable(err.to_string()))?;
    if output.status.success() {
        return Ok(());
    }
    Err(not_runnable(format!(
        "it ended with {}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr).trim()
    )))
}

/// Outside unix git runs hooks through its own shell; nothing to check here.
#[cfg(not(unix))]
fn probe(_path: &Path) -> Result<(), HookError> {
    Ok(())
}

/// Was this hook file written by keel?
/// Is git's reflog action (`GIT_REFLOG_ACTION`, as the hook inherits it) a merge's or a
/// pull's?
fn is_merging(action: Option<&std::ffi::OsStr>) -> bool {
    action
        .and_then(|action| action.to_str())
        .is_some_and(|action| {
            action == "merge" || action.starts_with("merge ") || action.starts_with("pull")
        })
}

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
/// keel for the prepared phase. `KEEL_SKIP_LINT=1` is honoured first (after the kept
/// hook, which is not keel's to skip), before keel is looked for, so a bypass works with
/// keel gone; keel honours it too. Without a kept hook, no process but keel's is started,
/// and keel only in the prepared phase: the other phases' input (and [`PROBE`]'s) is
/// drained by the shell's own `read` (git writes every phase's input), and keel reads the
/// prepared phase's from the hook's stdin. When keel cannot be run (the program keel was
/// installed from is gone, no `keel` on `PATH`), [`WITHOUT_KEEL`] judges instead.
fn script(program: &Path, chain: bool) -> String {
    let program = program.display().to_string().replace('\'', "'\\''");
    let mut text = format!(
        "#!/bin/sh\n{MARKER}\n# Remove with `keel hook uninstall`; skip once with KEEL_SKIP_LINT=1.\n"
    );
    let find = format!(
        "program='{program}'\nkeel=$program\nif [ ! -f \"$keel\" ] || [ ! -x \"$keel\" ]; then\n  if command -v keel >/dev/null 2>&1; then keel=keel; else keel=; fi\nfi\n"
    );
    if chain {
        text.push_str(&format!(
            "[ \"$1\" = {PROBE} ] && exit 0\ninput=$(cat)\nkept=\"$0{CHAINED_SUFFIX}\"\nif [ -x \"$kept\" ]; then\n  printf '%s\\n' \"$input\" | \"$kept\" \"$@\" || exit $?\nfi\n[ \"$1\" = prepared ] || exit 0\n[ \"${{KEEL_SKIP_LINT-}}\" = 1 ] && exit 0\n"
        ));
        text.push_str(&find);
        text.push_str(&without_keel());
        text.push_str(
            "if [ -n \"$keel\" ]; then\n  printf '%s\\n' \"$input\" | \"$keel\" hook run \"$1\"\nelse\n  printf '%s\\n' \"$input\" | keel_missing\nfi\n",
        );
        return text;
    }
    text.push_str(
        "if [ \"$1\" != prepared ] || [ \"${KEEL_SKIP_LINT-}\" = 1 ]; then\n  while read -r _; do :; done\n  exit 0\nfi\n",
    );
    text.push_str(&find);
    text.push_str("[ -z \"$keel\" ] || exec \"$keel\" hook run \"$1\"\n");
    text.push_str(&without_keel());
    text.push_str("keel_missing\n");
    text
}

/// [`WITHOUT_KEEL`] with the kept hook's suffix filled in.
fn without_keel() -> String {
    WITHOUT_KEEL.replace("@CHAINED@", CHAINED_SUFFIX)
}

/// The hook's judgement when keel cannot be run, in POSIX sh and git alone (reading the
/// prepared phase's `<old> <new> <ref>` lines on stdin), so removing keel never locks the
/// repository: an update of a `refs/heads/*` branch to a commit that no ref under `refs/`
/// and no reflog holds yet (during a rebase, no ref: its commits are in HEAD's reflog) is
/// a new branch commit — commit, amend, merge, cherry-pick, revert, rebase, a push of new
/// commits — and is refused with one message naming `KEEL_SKIP_LINT=1`, the program that
/// is gone and how to remove the hook; everything else passes: checkout, reset (to any
/// commit a ref or reflog holds), branch creation and deletion, tags, fetch. It cannot
/// tell a governed commit from an ungoverned one, so it refuses both.
const WITHOUT_KEEL: &str = r#"keel_missing() {
  git_dir=$(git rev-parse --git-dir 2>/dev/null) || return 0
  reflogs=--reflog
  if [ -d "$git_dir/rebase-merge" ] || [ -d "$git_dir/rebase-apply" ]; then
    reflogs=
  fi
  refused=
  while read -r _ new ref; do
    case $ref in refs/heads/*) ;; *) continue ;; esac
    case $new in *[!0]*) ;; *) continue ;; esac
    [ "$(git cat-file -t "$new" 2>/dev/null)" = commit ] || continue
    [ -n "$(git rev-list -n 1 "$new" --not --exclude=HEAD --all $reflogs 2>/dev/null)" ] || continue
    [ -n "$refused" ] || refused=$ref
  done
  [ -n "$refused" ] || return 0
  case $0 in /*) hook=$0 ;; *) hook=$PWD/$0 ;; esac
  if [ -e "$hook@CHAINED@" ]; then
    remove="mv '$hook@CHAINED@' '$hook' (puts back the hook keel kept)"
  else
    remove="rm '$hook'"
  fi
  printf '%s\n' \
    "keel: refused to move $refused: this hook cannot run keel ($program cannot be run and no keel is on PATH), so it cannot judge the new commit." \
    "Without keel, this hook refuses only new branch commits; checkout, reset, branch, tag and every other ref update pass." \
    "  To let this one update through unjudged: KEEL_SKIP_LINT=1 and the same git command." \
    "  To remove the gate: $remove" \
    "  To judge again: install keel, then run \`keel hook install\`." >&2
  return 1
}
"#;

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
