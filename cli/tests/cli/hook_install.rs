//! `keel hook install` where real git looks, and the installed hook when keel is gone.
//!
//! Owns: the hook landing where git itself runs hooks (`core.hooksPath` as git resolves
//! it: unset, `~/`, relative to the working tree from a subfolder, absolute), checked by a
//! commit git refuses through it; an empty `core.hooksPath` or one that is not a folder
//! refused with nothing written; `--force` never overwriting the hook it kept earlier; a
//! hook whose keel is gone letting checkout, reset and branch through and refusing only
//! new branch commits, with `KEEL_SKIP_LINT=1` and the hook's removal named; and a closed
//! stdout ending `hook install|uninstall` and `cache info|clear` quietly.
//! Does not own: the gate's judgement (`hook`), the cache's contents (`memo`).

use super::support::{APP_PY, keel, listing, repo_with_spec, spec};
use crate::APP_PY_F_CHANGED;
use keel_fixtures::{FixtureRepo, pinned_git};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `git ARGS` in `dir` with `HOME` at `home`.
fn git(dir: &Path, home: &Path, args: &[&str]) -> Output {
    pinned_git(dir)
        .env("HOME", home)
        .args(args)
        .output()
        .expect("git runs")
}

/// A repository with `app.py` and node `app` anchoring `app.py#f`.
fn anchored_repo() -> FixtureRepo {
    repo_with_spec(spec(&["app.py#f"]).as_bytes())
}

/// Where git itself runs the `reference-transaction` hook of the repository at `dir`.
fn git_hook_path(dir: &Path, home: &Path) -> PathBuf {
    let output = git(
        dir,
        home,
        &["rev-parse", "--git-path", "hooks/reference-transaction"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    dir.join(text(&output.stdout).trim_end_matches('\n'))
}

/// The path `keel hook install` says it wrote (`installed PATH`).
fn installed_path(output: &Output) -> PathBuf {
    let stdout = text(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("installed "))
        .unwrap_or_else(|| panic!("no `installed` line:\n{stdout}"));
    PathBuf::from(line)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[test]
fn install_writes_the_hook_where_git_runs_it_however_core_hooks_path_is_set() {
    let home = tempfile::tempdir().expect("a home folder");
    let outside = tempfile::tempdir().expect("a folder outside the repository");
    let absolute = outside.path().join("hooks").display().to_string();
    for (what, value, from_sub) in [
        ("unset", None, false),
        ("~/hooks", Some("~/hooks"), false),
        (
            "relative, installed from a subfolder",
            Some("team-hooks"),
            true,
        ),
        ("absolute", Some(absolute.as_str()), false),
    ] {
        let repo = anchored_repo();
        let dir = repo.path().to_owned();
        if let Some(value) = value {
            repo.git(&["config", "core.hooksPath", value])
                .expect("git config");
        }
        let cwd = if from_sub {
            dir.join("sub")
        } else {
            dir.clone()
        };
        std::fs::create_dir_all(&cwd).expect("the folder keel runs in");
        let keel_here = |action: &str| {
            keel(&cwd)
                .env("HOME", home.path())
                .args(["hook", action])
                .output()
                .expect("keel runs")
        };

        let installed = keel_here("install");
        assert!(
            installed.status.success(),
            "{what}: {}",
            text(&installed.stderr)
        );
        let expected = git_hook_path(&dir, home.path());
        assert!(
            expected.is_file(),
            "{what}: git runs {}, which keel did not write; keel said:\n{}",
            expected.display(),
            text(&installed.stdout)
        );
        assert!(
            same_file(&installed_path(&installed), &expected),
            "{what}: keel names the file git runs:\n{}",
            text(&installed.stdout)
        );
        assert!(
            !dir.join("~").exists() && !cwd.join("~").exists(),
            "{what}: no literal `~` folder"
        );

        // git runs it: a commit changing the pinned f is refused by the gate.
        repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
        let refused = git(&dir, home.path(), &["commit", "-qam", "Change f"]);
        assert!(
            !refused.status.success()
                && text(&refused.stderr).contains("keel: refused to move refs/heads/"),
            "{what}: git ran keel's hook: {}",
            text(&refused.stderr)
        );

        let removed = keel_here("uninstall");
        assert!(
            removed.status.success(),
            "{what}: {}",
            text(&removed.stderr)
        );
        assert!(
            !expected.exists(),
            "{what}: uninstall removes what git runs"
        );
    }
}

#[test]
fn install_refuses_a_hooks_path_git_runs_no_hook_from_and_writes_nothing() {
    let root_hook = Path::new("/reference-transaction");
    let root_hook_before = root_hook.exists();
    for (value, says) in [
        ("", "core.hooksPath is set but empty"),
        ("/dev/null", "is not a folder"),
    ] {
        let repo = anchored_repo();
        let dir = repo.path();
        repo.git(&["config", "core.hooksPath", value])
            .expect("git config");
        let before = listing(dir);
        let refused = keel(dir)
            .args(["hook", "install"])
            .output()
            .expect("keel runs");
        let stderr = text(&refused.stderr);
        assert_eq!(
            refused.status.code(),
            Some(2),
            "core.hooksPath={value:?}: {stderr}{}",
            text(&refused.stdout)
        );
        assert!(
            stderr.contains(says) && stderr.contains("core.hooksPath") && stderr.contains("repair"),
            "core.hooksPath={value:?}: {stderr}"
        );
        assert!(
            !text(&refused.stdout).contains("installed"),
            "core.hooksPath={value:?}: nothing is said to be installed"
        );
        assert_eq!(
            listing(dir),
            before,
            "core.hooksPath={value:?}: nothing written"
        );
        assert_eq!(root_hook.exists(), root_hook_before, "nothing written at /");
    }
}

#[test]
fn install_force_twice_never_overwrites_the_hook_it_kept() {
    let repo = anchored_repo();
    let dir = repo.path();
    let hooks = dir.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks folder");
    let hook = hooks.join("reference-transaction");
    let kept = hooks.join("reference-transaction.keel-chained");
    let write_foreign = |name: &str| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(&hook, format!("#!/bin/sh\n# {name}\ncat >/dev/null\n")).expect("write");
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    let install = || {
        keel(dir)
            .args(["hook", "install", "--force"])
            .output()
            .expect("keel runs")
    };
    write_foreign("first foreign hook");
    let first = std::fs::read(&hook).expect("read");
    for round in ["first --force", "second --force"] {
        let installed = install();
        assert!(
            installed.status.success(),
            "{round}: {}",
            text(&installed.stderr)
        );
        assert_eq!(
            std::fs::read(&kept).expect("the kept hook"),
            first,
            "{round}: the first foreign hook is kept"
        );
    }

    // Another tool writes its hook over keel's: --force refuses rather than lose either.
    write_foreign("second foreign hook");
    let second = std::fs::read(&hook).expect("read");
    let refused = install();
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("reference-transaction.keel-chained") && stderr.contains("repair"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&kept).expect("read"),
        first,
        "the kept hook stays"
    );
    assert_eq!(
        std::fs::read(&hook).expect("read"),
        second,
        "the new one stays"
    );
}

/// `PATH` without any folder that holds a `keel`.
fn path_without_keel() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|folder| !folder.join("keel").exists())
        .collect();
    std::env::join_paths(kept)
        .expect("PATH entries join")
        .to_string_lossy()
        .into_owned()
}

/// The hook installed by a keel that is then deleted, and no keel on `PATH`: checkout,
/// reset (also back to a commit only a reflog holds) and branch pass; a new branch commit
/// is refused with a message naming `KEEL_SKIP_LINT=1` and how to remove the hook, and
/// `KEEL_SKIP_LINT=1` lets it through.
#[test]
fn a_hook_whose_keel_is_gone_passes_plumbing_and_refuses_only_new_branch_commits() {
    let repo = anchored_repo();
    let dir = repo.path().to_owned();
    let home = dir.clone();
    let bin = tempfile::tempdir().expect("a folder for a keel that goes away");
    let program = bin.path().join("keel");
    let built = Path::new(env!("CARGO_BIN_EXE_keel"));
    if std::fs::hard_link(built, &program).is_err() {
        std::fs::copy(built, &program).expect("copy keel");
    }
    let installed = Command::new(&program)
        .current_dir(&dir)
        .env_clear()
        .env("PATH", path_without_keel())
        .env("HOME", &dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["hook", "install"])
        .output()
        .expect("the copy of keel runs");
    assert!(installed.status.success(), "{}", text(&installed.stderr));
    let hook = installed_path(&installed);
    let path = path_without_keel();
    let run = |args: &[&str], skip: bool| {
        let mut command = pinned_git(&dir);
        command.env("HOME", &home).env("PATH", &path);
        if skip {
            command.env("KEEL_SKIP_LINT", "1");
        }
        command.args(args).output().expect("git runs")
    };
    let head = || {
        text(&run(&["rev-parse", "HEAD"], false).stdout)
            .trim()
            .to_owned()
    };

    // Positive control: while keel is there, the gate judges and refuses.
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let judged = run(&["commit", "-qam", "Change f"], false);
    assert!(
        text(&judged.stderr).contains("keel: refused to move refs/heads/main"),
        "{}",
        text(&judged.stderr)
    );
    let skipped = run(&["commit", "-qam", "Change f"], true);
    assert!(skipped.status.success(), "{}", text(&skipped.stderr));
    let debt = head();

    std::fs::remove_file(&program).expect("keel goes away");
    for args in [
        &["checkout", "-q", "-b", "side"][..],
        &["branch", "other"],
        &["checkout", "-q", "main"],
        &["reset", "-q", "--hard", "HEAD~1"],
        &["reset", "-q", "--hard", &debt],
        &["branch", "-D", "other"],
        &["tag", "v1"],
        &["update-ref", "refs/heads/plumbing", "HEAD"],
    ] {
        let passed = run(args, false);
        assert!(
            passed.status.success(),
            "{} passes without keel: {}",
            args.join(" "),
            text(&passed.stderr)
        );
    }
    assert_eq!(head(), debt, "the resets moved the branch");

    repo.write("app.py", APP_PY).expect("edit f back");
    let refused = run(&["commit", "-qam", "Put f back"], false);
    let stderr = text(&refused.stderr);
    assert!(!refused.status.success(), "a new branch commit is refused");
    assert_eq!(head(), debt, "the branch did not move");
    assert!(
        stderr.contains("KEEL_SKIP_LINT=1")
            && stderr.contains(&program.display().to_string())
            && stderr.contains(&hook.display().to_string()),
        "the refusal names the bypass, the missing keel and the hook to remove:\n{stderr}"
    );
    assert!(
        !stderr.contains("not found\n"),
        "not the shell's error:\n{stderr}"
    );
    let passed = run(&["commit", "-qam", "Put f back"], true);
    assert!(
        passed.status.success(),
        "KEEL_SKIP_LINT=1 lets it through: {}",
        text(&passed.stderr)
    );
    assert_ne!(head(), debt);
}

/// `keel ARGS` with stdout (or stderr, when `stderr`) a pipe whose reading end is
/// already closed.
fn with_closed_pipe(dir: &Path, args: &[&str], stderr: bool) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut command = keel(dir);
    command.args(args);
    if stderr {
        command.stderr(writer);
    } else {
        command.stdout(writer);
    }
    command.output().expect("keel runs")
}

#[test]
fn a_closed_stdout_ends_hook_and_cache_actions_quietly() {
    let repo = anchored_repo();
    let dir = repo.path();
    let lint = keel(dir).arg("lint").output().expect("keel runs");
    assert!(lint.status.code().is_some(), "a memo to report and clear");
    for args in [
        &["hook", "install"][..],
        &["hook", "uninstall"],
        &["cache", "info"],
        &["cache", "clear"],
    ] {
        let run = with_closed_pipe(dir, args, false);
        let stderr = text(&run.stderr);
        assert!(
            !stderr.contains("panicked") && run.status.code() == Some(0),
            "keel {} with stdout closed: {:?}\n{stderr}",
            args.join(" "),
            run.status
        );
    }
    // The actions were done though no one read their lines.
    assert!(!dir.join(".git/hooks/reference-transaction").exists());
    assert!(!dir.join(".git/keel/memo.bin").exists());
}

#[test]
fn a_closed_stderr_ends_refusals_and_warnings_quietly_with_their_exit_codes() {
    let repo = anchored_repo();
    let dir = repo.path();
    let missing = dir.join("no-such-folder").display().to_string();
    for (args, code) in [
        (&["lint", "--repo", missing.as_str()][..], 2),
        (&["lint", "--no-such-flag"], 2),
        (&["units", "no-such-file.py"], 2),
        (&["lint", "--stats"], 0),
        (&["impact", "no-such.patch"], 2),
    ] {
        // With stderr open, each writes there (the control: a write to close).
        let open = keel(dir).args(args).output().expect("keel runs");
        assert!(
            !open.stderr.is_empty() && open.status.code() == Some(code),
            "keel {}: {open:?}",
            args.join(" ")
        );
        let closed = with_closed_pipe(dir, args, true);
        assert_eq!(
            closed.status.code(),
            Some(code),
            "keel {} with stderr closed ends with its own exit code, not a panic's 101",
            args.join(" ")
        );
    }
}
