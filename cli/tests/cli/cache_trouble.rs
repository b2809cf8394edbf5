//! A `.git/keel/` keel cannot use, through the real binary (issue #38, item 2 and the
//! crash's temporary files): the memo and the kept answer are optional, so a stray file at
//! that path, a folder keel may not read or write (after a `sudo` or container run), or a
//! cache file that is a folder gives one warning naming the path, what is wrong and the
//! repair, and the cold answer with a lint's own exit status — for `keel lint`, `keel
//! fresh` and the hook alike. `keel cache clear` names each path it could not remove with
//! the OS's reason and exits 2; `keel cache info` says what is wrong with the folder; the
//! temporary files a crash at the rename left are counted by `cache info` and removed by
//! `cache clear`, and nothing else of the folder is.
//!
//! Mode 000 does not stop root: the permission cases first check whether this process
//! still reads a file of mode 000, and are skipped with a printed note when it does. The
//! stray-file and folder-in-the-way cases hold for root too and always run.

use super::support::{APP_PY, Run, keel, lint, repo_with_spec, run, spec};
use crate::{APP_PY_F_CHANGED, APP_PY_G_CHANGED};
use keel_fixtures::{FixtureRepo, pinned_git};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// A repository with `app.py` and node `app` anchoring `app.py#f`, and a second commit
/// that changes `f`: a blocking hit, so a lint exits 1.
fn hit_repo() -> FixtureRepo {
    let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    repo
}

/// The cache folder of `repo`.
fn cache(repo: &FixtureRepo) -> PathBuf {
    repo.path().join(".git/keel")
}

/// `keel lint --format json` and the lines it printed on stderr.
fn lint_json(repo: &FixtureRepo) -> (Run, serde_json::Value, Vec<String>) {
    let run = lint(repo.path(), &["--format", "json"]);
    run.assert_no_panic();
    let report = run.json();
    let warnings = run.stderr.lines().map(str::to_owned).collect();
    (run, report, warnings)
}

/// Removes whatever is at the cache folder's path.
fn remove_cache(repo: &FixtureRepo) {
    let path = cache(repo);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path).expect("remove the folder"),
        Ok(_) => std::fs::remove_file(&path).expect("remove the file"),
        Err(_) => {}
    }
}

/// Asserts `warnings` is exactly one warning naming `path`, `what` and `repair`.
fn assert_one_warning(warnings: &[String], path: &Path, what: &str, repair: &str, case: &str) {
    assert_eq!(warnings.len(), 1, "{case}: one warning line: {warnings:#?}");
    let warning = &warnings[0];
    assert!(warning.starts_with("warning: "), "{case}: {warning}");
    for part in [&path.display().to_string(), what, repair] {
        assert!(warning.contains(part), "{case}: names {part:?}: {warning}");
    }
    assert!(
        !warning.contains("git fsck"),
        "{case}: the repository is fine, the cache is not: {warning}"
    );
}

/// Does mode 000 stop this process from reading a file? Not for root (tests may run as
/// root in a container): then the permission cases cannot be built and are skipped.
fn permissions_bind() -> bool {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let probe = dir.path().join("probe");
    std::fs::write(&probe, "x").expect("write the probe");
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let bound = std::fs::read(&probe).is_err();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    bound
}

/// Gives `path` `mode` until dropped, then mode 755 back (so the fixture can be removed).
struct Mode(PathBuf);

impl Mode {
    fn set(path: &Path, mode: u32) -> Self {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        Self(path.to_owned())
    }
}

impl Drop for Mode {
    fn drop(&mut self) {
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
    }
}

#[test]
fn a_stray_file_at_the_cache_folder_gives_one_warning_and_the_cold_answer() {
    let mut repo = hit_repo();
    let (cold, expected, warnings) = lint_json(&repo);
    assert_eq!(cold.code, 1, "the hit blocks:\n{}", cold.render(None));
    assert!(warnings.is_empty(), "{warnings:?}");

    remove_cache(&repo);
    std::fs::write(cache(&repo), "left by someone\n").expect("a stray file");
    let folder = std::fs::canonicalize(cache(&repo)).expect("the stray file");
    for case in ["the first lint", "the next lint"] {
        let (run, report, warnings) = lint_json(&repo);
        assert_eq!(run.code, 1, "{case}: a lint's own status:\n{}", run.stderr);
        assert_eq!(report, expected, "{case}: the cold answer");
        assert_one_warning(&warnings, &folder, "not a folder", "rm ", case);
    }
    // A candidate no node governs exits 0 all the same.
    repo.write("README.md", "docs\n").expect("write");
    repo.commit("Docs").expect("commit");
    let clean = run(repo.path(), &["lint", "--pending", "HEAD"]);
    clean.assert_no_panic();
    assert_eq!(clean.code, 0, "{}", clean.render(None));
    let warnings: Vec<String> = clean.stderr.lines().map(str::to_owned).collect();
    assert_one_warning(&warnings, &folder, "not a folder", "rm ", "--pending");

    // keel fresh: one warning, its own answer.
    let head = repo.git(&["rev-parse", "HEAD"]).expect("HEAD");
    let readings = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        readings.path().join("readings.jsonl"),
        format!(
            "{{\"id\": \"r1\", \"commit\": \"{}\", \"code\": [\"app.py#f\"]}}\n",
            head.trim()
        ),
    )
    .expect("write readings");
    let repo_arg = repo.path().display().to_string();
    let fresh = run(
        readings.path(),
        &["fresh", "readings.jsonl", "--repo", &repo_arg],
    );
    fresh.assert_no_panic();
    assert_eq!(fresh.code, 0, "{}", fresh.render(None));
    assert_eq!(fresh.stdout, "fresh r1\n");
    let warnings: Vec<String> = fresh.stderr.lines().map(str::to_owned).collect();
    assert_one_warning(&warnings, &folder, "not a folder", "rm ", "keel fresh");

    assert_eq!(
        std::fs::read_to_string(cache(&repo)).expect("still a file"),
        "left by someone\n",
        "keel leaves a file it did not write alone"
    );
}

#[test]
fn a_cache_file_keel_cannot_read_or_replace_gives_one_warning_and_the_cold_answer() {
    // A folder where the memo should be: no read, write or remove of it works, for root
    // too.
    let repo = hit_repo();
    let (_, expected, _) = lint_json(&repo);
    let memo = cache(&repo).join("memo.bin");
    std::fs::remove_file(&memo).expect("the memo");
    std::fs::remove_file(cache(&repo).join("lint.bin")).expect("the kept answer");
    std::fs::create_dir_all(memo.join("inside")).expect("a folder in the way");
    let memo = std::fs::canonicalize(&memo).expect("the folder");
    let (run, report, warnings) = lint_json(&repo);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(report, expected, "the cold answer");
    assert_one_warning(
        &warnings,
        &memo,
        "Is a directory",
        "rm -rf",
        "memo.bin a folder",
    );
}

#[test]
fn an_unreadable_or_unwritable_cache_folder_gives_one_warning_and_the_cold_answer() {
    if !permissions_bind() {
        println!(
            "note: skipped: this process reads files of mode 000 (root?), so a folder it may \
             not read cannot be built; the stray-file cases cover the same path"
        );
        return;
    }
    let repo = hit_repo();
    let (_, expected, _) = lint_json(&repo);
    let folder = std::fs::canonicalize(cache(&repo)).expect("the cache folder");
    {
        let _mode = Mode::set(&folder, 0o000);
        for case in ["mode 000, the first lint", "mode 000, the next lint"] {
            let (run, report, warnings) = lint_json(&repo);
            assert_eq!(run.code, 1, "{case}: {}", run.stderr);
            assert_eq!(report, expected, "{case}: the cold answer");
            assert_one_warning(&warnings, &folder, "Permission denied", "chown", case);
        }
        let cleared = run(repo.path(), &["cache", "clear"]);
        assert_eq!(cleared.code, 2, "{}", cleared.render(None));
        assert!(
            cleared.stderr.contains(&folder.display().to_string())
                && cleared.stderr.contains("Permission denied"),
            "names what it could not remove and why: {}",
            cleared.stderr
        );
        let info = run(repo.path(), &["cache", "info"]);
        assert!(
            info.stdout.contains("Permission denied"),
            "says what is wrong: {}",
            info.stdout
        );
    }
    {
        // Readable but not writable (a folder another user owns): the memo is read, the
        // writes are skipped with one warning.
        // Without a kept answer, so the lint keeps one.
        std::fs::remove_file(folder.join("lint.bin")).ok();
        let _mode = Mode::set(&folder, 0o555);
        let (run, report, warnings) = lint_json(&repo);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert_eq!(report, expected);
        assert_one_warning(&warnings, &folder, "Permission denied", "chown", "mode 555");
    }
}

#[test]
fn cache_clear_names_what_it_could_not_remove_and_exits_2() {
    let repo = hit_repo();
    lint(repo.path(), &[]);
    // A folder where the memo should be cannot be removed as a file, even by root.
    let memo = cache(&repo).join("memo.bin");
    std::fs::remove_file(&memo).expect("the memo");
    std::fs::create_dir_all(memo.join("inside")).expect("a folder in the way");
    let memo = std::fs::canonicalize(&memo).expect("the folder");
    let cleared = run(repo.path(), &["cache", "clear"]);
    cleared.assert_no_panic();
    assert_eq!(cleared.code, 2, "{}", cleared.render(None));
    assert!(
        cleared.stderr.contains(&memo.display().to_string())
            && cleared.stderr.contains("Is a directory"),
        "names the path and the OS's reason: {}",
        cleared.stderr
    );
    assert!(!cleared.stderr.contains("git fsck"), "{}", cleared.stderr);
    assert!(
        !cache(&repo).join("lint.bin").exists(),
        "what it could remove is removed: {}",
        cleared.stdout
    );

    // A stray file at the folder's path: named, left alone, exit 2.
    remove_cache(&repo);
    std::fs::write(cache(&repo), "left by someone\n").expect("a stray file");
    let folder = std::fs::canonicalize(cache(&repo)).expect("the stray file");
    let cleared = run(repo.path(), &["cache", "clear"]);
    cleared.assert_no_panic();
    assert_eq!(cleared.code, 2, "{}", cleared.render(None));
    assert!(
        cleared.stderr.contains(&folder.display().to_string())
            && cleared.stderr.contains("Not a directory")
            && cleared.stderr.contains("rm "),
        "names the path, the OS's reason and the repair: {}",
        cleared.stderr
    );
    assert!(!cleared.stderr.contains("git fsck"), "{}", cleared.stderr);
    assert!(cache(&repo).is_file(), "a file keel did not write stays");

    let info = run(repo.path(), &["cache", "info"]);
    info.assert_no_panic();
    assert!(
        info.stdout.contains(&folder.display().to_string()) && info.stdout.contains("not a folder"),
        "says what is wrong with the folder: {}",
        info.stdout
    );
    assert!(
        !info.stdout.contains("none yet"),
        "no memo is not the whole story: {}",
        info.stdout
    );
}

#[test]
fn cache_clear_removes_the_temporary_files_a_crash_left_and_info_counts_them() {
    let repo = hit_repo();
    lint(repo.path(), &[]);
    let folder = std::fs::canonicalize(cache(&repo)).expect("the cache folder");
    // A crash between the write and the rename leaves the temporary file: as the writer
    // names it (`.keel-XXXXXX.tmp`), and as builds before it named it (`tempfile`'s
    // default, `.tmpXXXXXX`).
    let left = [folder.join(".keel-a1B2c3.tmp"), folder.join(".tmpZ9y8X7")];
    for path in &left {
        std::fs::write(path, vec![b'x'; 4096]).expect("a temporary file");
    }
    // Files that only look alike are not keel's temporary files.
    let kept = [
        folder.join("notes.txt"),
        folder.join(".tmpfoo.txt"),
        folder.join(".keel-ab.tmp"),
    ];
    for path in &kept {
        std::fs::write(path, "mine\n").expect("a file of someone else");
    }

    let info = run(repo.path(), &["cache", "info"]);
    info.assert_no_panic();
    assert_eq!(info.code, 0, "{}", info.render(None));
    assert!(
        info.stdout.lines().any(|line| line.starts_with("temp")
            && line.contains("2 file")
            && line.contains("8192 bytes")),
        "counts the two temporary files and their bytes: {}",
        info.stdout
    );

    let cleared = run(repo.path(), &["cache", "clear"]);
    cleared.assert_no_panic();
    assert_eq!(cleared.code, 0, "{}", cleared.render(None));
    for path in &left {
        assert!(!path.exists(), "{} is removed", path.display());
        assert!(
            cleared
                .stdout
                .contains(&format!("removed {}", path.display())),
            "reported: {}",
            cleared.stdout
        );
    }
    for path in &kept {
        assert!(path.exists(), "{} stays", path.display());
    }
    let info = run(repo.path(), &["cache", "info"]);
    assert!(
        info.stdout
            .lines()
            .any(|line| line.starts_with("temp") && line.contains("none")),
        "{}",
        info.stdout
    );
}

/// `git ARGS` in `dir` as the hook sees it.
fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    pinned_git(dir).args(args).output().expect("git runs")
}

#[test]
fn the_hook_judges_governed_commits_with_a_stray_file_at_the_cache_folder() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    let dir = repo.path().to_owned();
    let installed = keel(&dir)
        .args(["hook", "install", "--repo", &dir.display().to_string()])
        .output()
        .expect("keel runs");
    assert!(installed.status.success(), "{installed:?}");
    remove_cache(&repo);
    std::fs::write(cache(&repo), "left by someone\n").expect("a stray file");

    repo.write("app.py", APP_PY_G_CHANGED).expect("edit g");
    let passed = git(&dir, &["commit", "-qam", "Change g"]);
    let stderr = String::from_utf8_lossy(&passed.stderr);
    assert!(
        passed.status.success(),
        "a harmless commit passes: {stderr}"
    );
    assert!(
        stderr.contains("not a folder") && !stderr.contains("git fsck"),
        "{stderr}"
    );

    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let refused = git(&dir, &["commit", "-qam", "Change f"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "a hit is refused: {stderr}");
    assert!(stderr.contains("error[anchor-hit] app.py#f"), "{stderr}");
}
