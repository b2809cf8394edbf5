//! The on-disk memo, through the real binary: a second process after one new commit parses
//! only that commit's images (its own, and its parent's only where it deleted lines) and
//! diffs only its hunk set, and answers as a cold run does;
//! a truncated, corrupt, foreign or garbage memo is discarded with one warning and the
//! answer is the cold answer; two processes at once leave a readable memo; `keel cache
//! info` and `keel cache clear` say and do what they claim.

use super::support::{APP_PY, forget_answer, lint, lint_with_stats, run, spec};
use crate::APP_PY_F_CHANGED;
use keel_fixtures::FixtureRepo;
use std::path::PathBuf;

/// A repository with `app.py`, `other.py` and node `app` anchoring `app.py#f`.
fn anchored_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write("other.py", "def h():\n    return 1\n"))
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    repo.write("other.py", "def h():\n    return 2\n")
        .expect("write");
    repo.commit("Change other").expect("commit");
    repo
}

fn memo(repo: &FixtureRepo) -> PathBuf {
    repo.path().join(".git/keel/memo.bin")
}

#[test]
fn a_second_process_parses_only_the_new_commits_images_and_answers_as_cold() {
    let mut repo = anchored_repo();
    let (first, cold_stats, warnings) = lint_with_stats(repo.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(
        cold_stats["images_parsed"].as_u64() >= Some(1),
        "{cold_stats}"
    );
    assert!(memo(&repo).exists(), "the first run writes the memo");

    forget_answer(repo.path());
    let (again, stats, warnings) = lint_with_stats(repo.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(again, first);
    assert_eq!(stats["images_parsed"], 0, "{stats}");
    assert_eq!(stats["hunk_sets_diffed"], 0, "{stats}");

    // A changed line is judged on both sides: the commit's two images of app.py are
    // parsed (the memo keeps judgements and the tip's units, not history's parses), one
    // of them from the other's tree.
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let changed = repo.commit("Change f").expect("commit");
    forget_answer(repo.path());
    let (warm, stats, _) = lint_with_stats(repo.path());
    assert_eq!(
        stats["images_parsed"], 2,
        "the commit's two app.py images: {stats}"
    );
    assert_eq!(stats["parsed_from_scratch"], 1, "one from scratch: {stats}");
    assert_eq!(stats["hunk_sets_diffed"], 1, "only its hunks: {stats}");
    assert_eq!(warm["findings"][0]["hits"][0]["commit"], changed.as_str());

    // A commit that only adds lines is judged on its own image alone.
    repo.write(
        "app.py",
        &format!("{APP_PY_F_CHANGED}\n\ndef k():\n    return 3\n"),
    )
    .expect("add k");
    let added = repo.commit("Add k").expect("commit");
    forget_answer(repo.path());
    let (warm, stats, _) = lint_with_stats(repo.path());
    assert_eq!(stats["images_parsed"], 1, "only the new app.py: {stats}");
    assert_eq!(stats["hunk_sets_diffed"], 1, "only its hunks: {stats}");
    let misses = crate::findings_of(&warm, "scoped-code-miss");
    let missed: Vec<&str> = misses[0]["hits"]
        .as_array()
        .expect("a miss lists its commits")
        .iter()
        .filter_map(|hit| hit["commit"].as_str())
        .collect();
    assert_eq!(missed, [added.as_str()], "k is outside f: {warm}");

    let cleared = run(repo.path(), &["cache", "clear"]);
    assert!(cleared.stdout.starts_with("removed "), "{}", cleared.stdout);
    assert!(!memo(&repo).exists());
    let (cold, stats, _) = lint_with_stats(repo.path());
    assert_eq!(cold, warm, "the memo's answer is the cold answer");
    assert!(
        stats["images_parsed"].as_u64() >= Some(3),
        "the three app.py images: {stats}"
    );
}

#[test]
fn an_unusable_memo_is_discarded_with_one_warning_and_the_cold_answer() {
    let repo = anchored_repo();
    let (cold, _, _) = lint_with_stats(repo.path());
    let good = std::fs::read(memo(&repo)).expect("the memo was written");
    let newline = good
        .iter()
        .position(|&b| b == b'\n')
        .expect("a header line");
    let header = String::from_utf8(good[..newline].to_vec()).expect("an ASCII header");
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0xff;
    let foreign = {
        let words: Vec<&str> = header.split(' ').collect();
        let mut bytes = format!(
            "{} {} 0000000000000000 {} {}",
            words[0], words[1], words[3], words[4]
        )
        .into_bytes();
        bytes.extend_from_slice(&good[newline..]);
        bytes
    };
    let cases: [(&str, Vec<u8>, &str); 4] = [
        (
            "truncated",
            good[..good.len() / 2].to_vec(),
            "truncated or corrupt",
        ),
        ("one byte flipped", flipped, "truncated or corrupt"),
        ("another build", foreign, "another keel build"),
        (
            "not a memo",
            b"hello\n".to_vec(),
            "not a keel file of format keel-memo",
        ),
    ];
    for (what, bytes, reason) in cases {
        std::fs::write(memo(&repo), &bytes).expect("spoil the memo");
        forget_answer(repo.path());
        let (report, stats, warnings) = lint_with_stats(repo.path());
        assert_eq!(report, cold, "{what}: the cold answer");
        assert_eq!(warnings.len(), 1, "{what}: one warning: {warnings:?}");
        assert!(warnings[0].contains(reason), "{what}: {}", warnings[0]);
        assert!(stats["images_parsed"].as_u64() > Some(0), "{what}: {stats}");
        let info = run(repo.path(), &["cache", "info"]);
        assert!(
            info.stdout.contains("readable by this build"),
            "{what}: rewritten: {}",
            info.stdout
        );
    }
}

#[test]
fn two_processes_at_once_leave_a_readable_memo() {
    let repo = anchored_repo();
    let repo_arg = repo.path().display().to_string();
    for _ in 0..3 {
        let _ = std::fs::remove_file(memo(&repo));
        let children: Vec<_> = (0..2)
            .map(|_| {
                super::support::keel(repo.path())
                    .args(["lint", "--repo", &repo_arg, "--format", "json"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("keel starts")
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().expect("keel runs");
            assert!(output.stderr.is_empty(), "{output:?}");
        }
        let (_, stats, warnings) = lint_with_stats(repo.path());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(stats["images_parsed"], 0, "{stats}");
    }
}

#[test]
fn cache_info_names_the_file_its_size_and_entries() {
    let repo = anchored_repo();
    let none = run(repo.path(), &["cache", "info"]);
    assert!(none.stdout.contains("none yet"), "{}", none.stdout);
    lint(repo.path(), &[]);
    let info = run(repo.path(), &["cache", "info"]);
    assert_eq!(info.code, 0);
    let size = std::fs::metadata(memo(&repo)).expect("memo").len();
    assert!(
        info.stdout.contains(&format!("size     {size} bytes")),
        "{}",
        info.stdout
    );
    let entries: usize = info
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("entries  "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("an entry count");
    assert!(
        entries >= 3,
        "commits, images, their units and judged events: {}",
        info.stdout
    );
    let cleared = run(repo.path(), &["cache", "clear"]);
    assert_eq!(cleared.code, 0);
    let again = run(repo.path(), &["cache", "clear"]);
    assert!(again.stdout.starts_with("no memo at"), "{}", again.stdout);
}

#[test]
fn a_replace_ref_discards_the_memo() {
    let repo = anchored_repo();
    let (_, _, warnings) = lint_with_stats(repo.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    let (_, _, warnings) = lint_with_stats(repo.path());
    assert!(warnings.is_empty(), "the memo is read back: {warnings:?}");
    repo.git(&["replace", "HEAD~1", "HEAD"])
        .expect("a replace ref");
    let (_, stats, warnings) = lint_with_stats(repo.path());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("object replacements changed"),
        "{}",
        warnings[0]
    );
    assert!(stats["images_parsed"].as_u64() >= Some(1), "{stats}");
}

#[test]
fn cache_info_and_hook_install_name_real_absolute_paths_however_the_repository_is_named() {
    let repo = anchored_repo();
    lint(repo.path(), &[]);
    let real = std::fs::canonicalize(repo.path()).expect("the fixture exists");
    let sub = repo.path().join("sub");
    std::fs::create_dir_all(&sub).expect("a subfolder");
    let link = tempfile::tempdir().expect("a temporary folder");
    let linked = link.path().join("linked");
    std::os::unix::fs::symlink(repo.path(), &linked).expect("a symlink to the repository");
    let memo_line = format!("memo     {}", real.join(".git/keel/memo.bin").display());
    let hook_line = format!(
        "installed {}",
        real.join(".git/hooks/reference-transaction").display()
    );
    for (what, cwd, repo_flag) in [
        ("inside, no --repo", repo.path().to_owned(), None),
        ("a relative --repo", repo.path().to_owned(), Some(".")),
        ("from a subfolder", sub.clone(), None),
        ("through a symlink", link.path().to_owned(), Some("linked")),
    ] {
        let with_repo = |action: &[&str]| {
            let mut args = action.to_vec();
            args.extend(repo_flag.map(|flag| ["--repo", flag]).into_iter().flatten());
            run(&cwd, &args)
        };
        let info = with_repo(&["cache", "info"]);
        assert!(
            info.stdout.lines().any(|line| line == memo_line),
            "{what}: {}",
            info.stdout
        );
        let installed = with_repo(&["hook", "install"]);
        assert!(
            installed.stdout.lines().any(|line| line == hook_line),
            "{what}: {}",
            installed.stdout
        );
    }
}

/// `keel lint --format json` in `repo` with `env` set; its exit code and findings' codes.
fn lint_with_env(repo: &FixtureRepo, env: &[(&str, &str)]) -> (i32, Vec<String>) {
    let mut command = super::support::keel(repo.path());
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command
        .args(["lint", "--format", "json"])
        .output()
        .expect("keel runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let codes = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| finding["code"].as_str().unwrap_or_default().to_owned())
        .collect();
    (output.status.code().unwrap_or(-1), codes)
}

#[test]
fn turning_replacements_off_is_a_history_the_memo_and_kept_answer_were_not_written_under() {
    let mut repo = anchored_repo();
    let parent = repo.git(&["rev-parse", "HEAD"]).expect("rev-parse");
    repo.write("app.py", APP_PY_F_CHANGED).expect("write");
    let hit = repo.commit("Change f").expect("commit");
    // The replacement: the same parent, f untouched.
    let tree = repo
        .git(&["rev-parse", &format!("{}^{{tree}}", parent.trim())])
        .expect("rev-parse");
    let harmless = repo
        .git(&[
            "commit-tree",
            tree.trim(),
            "-p",
            parent.trim(),
            "-m",
            "Harmless",
        ])
        .expect("commit-tree");
    repo.git(&["replace", &hit, harmless.trim()])
        .expect("git replace");

    let off = [("GIT_NO_REPLACE_OBJECTS", "1")];
    let (replaced_code, replaced) = lint_with_env(&repo, &[]);
    assert_eq!(
        replaced_code, 0,
        "git shows the harmless replacement: {replaced:?}"
    );
    let (code, findings) = lint_with_env(&repo, &off);
    run(repo.path(), &["cache", "clear"]);
    let (cold_code, cold) = lint_with_env(&repo, &off);
    assert_eq!(cold_code, 1, "without replacements f changed: {cold:?}");
    assert_eq!((code, findings), (cold_code, cold), "warm equals cold");
    let (back, _) = lint_with_env(&repo, &[]);
    assert_eq!(
        back, 0,
        "and the memo written without replacements is not read with them"
    );
}
