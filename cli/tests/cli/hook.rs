//! `keel hook`: the local candidate gate run by the real git CLI. Each git operation that
//! brings a new branch commit (commit, `--amend`, `--no-verify`, cherry-pick, merge,
//! revert, rebase) is judged and refused when it leaves drift unanswered, with the ref,
//! the index and the operation's state left as they were; reset, checkout and branch pass
//! without a lint even when HEAD carries debt; `KEEL_SKIP_LINT=1` lets one update
//! through; a hook keel did not write is refused, kept with `--force` and put back; the
//! hook starts no process but keel's.

use super::support::{APP_PY, keel, spec};
use crate::{APP_PY_F_CHANGED, APP_PY_G_CHANGED};
use keel_fixtures::{FixtureRepo, pinned_git};
use std::path::Path;
use std::process::Output;

/// `git ARGS` in `dir`, with `KEEL_SKIP_LINT=1` when `skip`.
fn git(dir: &Path, args: &[&str], skip: bool) -> Output {
    let mut command = pinned_git(dir);
    if skip {
        command.env("KEEL_SKIP_LINT", "1");
    }
    command.args(args).output().expect("git runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn head(dir: &Path) -> String {
    text(&git(dir, &["rev-parse", "HEAD"], false).stdout)
        .trim()
        .to_owned()
}

fn status(dir: &Path) -> String {
    text(&git(dir, &["status", "--porcelain"], false).stdout)
}

/// Writes `text` to `path` as an executable script.
fn write_script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).expect("write a script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Runs `keel hook ACTION --repo DIR [extra]`.
fn hook(dir: &Path, action: &str, extra: &[&str]) -> Output {
    let repo = dir.display().to_string();
    keel(dir)
        .args(["hook", action, "--repo", &repo])
        .args(extra)
        .output()
        .expect("keel runs")
}

/// A repository with `app.py` and node `app` anchoring `app.py#f`, the hook installed.
fn gated_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    let installed = hook(repo.path(), "install", &[]);
    assert!(installed.status.success(), "{installed:?}");
    repo
}

/// Asserts `output` is a refusal by keel's gate that names the bypass.
fn assert_refused(output: &Output, what: &str) {
    let stderr = text(&output.stderr);
    assert!(
        !output.status.success(),
        "{what} must be refused:\n{stderr}"
    );
    assert!(
        stderr.contains("keel: refused to move refs/heads/") && stderr.contains("KEEL_SKIP_LINT=1"),
        "{what}: the refusal names the ref and the bypass:\n{stderr}"
    );
}

#[test]
fn a_commit_that_hits_an_anchor_is_refused_with_or_without_verify_and_skip_lets_it_through() {
    let repo = gated_repo();
    let dir = repo.path();
    let before = head(dir);
    // Positive control: a change outside the anchored unit passes.
    repo.write("app.py", APP_PY_G_CHANGED).expect("edit g");
    let outside = git(dir, &["commit", "-qam", "Change g"], false);
    assert!(outside.status.success(), "{}", text(&outside.stderr));
    let after_g = head(dir);
    assert_ne!(after_g, before);

    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    git(dir, &["add", "app.py"], false);
    let staged = status(dir);
    for args in [
        &["commit", "-qm", "Change f"][..],
        &["commit", "--no-verify", "-qm", "Change f"],
    ] {
        let refused = git(dir, args, false);
        assert_refused(&refused, &args.join(" "));
        assert!(text(&refused.stderr).contains("error[anchor-hit] app.py#f"));
        assert_eq!(head(dir), after_g, "the branch did not move");
        assert_eq!(status(dir), staged, "the index is untouched");
    }
    let skipped = git(dir, &["commit", "-qm", "Change f"], true);
    assert!(skipped.status.success(), "{}", text(&skipped.stderr));

    // HEAD now carries debt: plumbing passes without a lint.
    for args in [
        &["branch", "kept"][..],
        &["reset", "-q", "--hard", "HEAD~1"],
        &["reset", "-q", "--hard", "kept"],
        &["checkout", "-q", "-b", "elsewhere"],
        &["checkout", "-q", "main"],
    ] {
        let passed = git(dir, args, false);
        assert!(
            passed.status.success(),
            "{} passes: {}",
            args.join(" "),
            text(&passed.stderr)
        );
    }
    // An amend brings a new commit: judged.
    repo.write(
        "app.py",
        "def f(x):\n    y = x + 3\n    return y\n\n\ndef g():\n    return 1\n",
    )
    .expect("edit f again");
    let amend = git(dir, &["commit", "-qa", "--amend", "--no-edit"], false);
    assert_refused(&amend, "git commit --amend");
}

#[test]
fn cherry_pick_merge_revert_and_rebase_are_judged_and_keep_their_state() {
    let mut repo = gated_repo();
    let dir = repo.path().to_owned();
    let branch = git(&dir, &["checkout", "-q", "-b", "side"], false);
    assert!(branch.status.success(), "{}", text(&branch.stderr));
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    assert!(
        git(&dir, &["commit", "-qam", "Change f on side"], true)
            .status
            .success()
    );
    assert!(
        git(&dir, &["checkout", "-q", "main"], false)
            .status
            .success()
    );
    repo.write("other.py", "x = 1\n").expect("write");
    repo.commit("Unrelated work on main")
        .expect("an unrelated commit passes");
    let main_tip = head(&dir);

    let cases: [(&[&str], &str, &str); 2] = [
        (
            &["cherry-pick", "side"],
            "CHERRY_PICK_HEAD",
            "git cherry-pick --continue",
        ),
        (
            &["merge", "--no-ff", "-q", "-m", "Merge side", "side"],
            "MERGE_HEAD",
            "git merge --continue",
        ),
    ];
    for (args, state, go_on) in cases {
        let refused = git(&dir, args, false);
        assert_refused(&refused, &args.join(" "));
        assert!(text(&refused.stderr).contains(go_on), "names {go_on}");
        assert_eq!(head(&dir), main_tip);
        assert!(dir.join(".git").join(state).exists(), "{state} is kept");
        let abort = args[0].to_owned();
        assert!(git(&dir, &[&abort, "--abort"], false).status.success());
    }

    // Once the side is merged (let through), reverting its change is a new commit that
    // changes f: judged.
    let side_commit = text(&git(&dir, &["rev-parse", "side"], false).stdout)
        .trim()
        .to_owned();
    let merge = ["merge", "-q", "--no-ff", "-m", "Merge side", "side"];
    assert!(git(&dir, &merge, true).status.success());
    let merged = head(&dir);
    let revert = git(&dir, &["revert", "--no-edit", &side_commit], false);
    assert_refused(&revert, "git revert");
    assert_eq!(head(&dir), merged);
    let _ = git(&dir, &["revert", "--abort"], false);
    assert!(
        git(&dir, &["reset", "-q", "--hard", &main_tip], false)
            .status
            .success()
    );

    // Rebase the side onto main: its replayed commit is judged when the branch moves.
    assert!(
        git(&dir, &["checkout", "-q", "side"], false)
            .status
            .success()
    );
    let side_tip = head(&dir);
    let rebase = git(&dir, &["rebase", "-q", &main_tip], false);
    assert_refused(&rebase, "git rebase");
    assert!(text(&rebase.stderr).contains("git rebase --continue"));
    assert!(
        dir.join(".git/rebase-merge").exists(),
        "the rebase stays in progress"
    );
    assert!(git(&dir, &["rebase", "--abort"], false).status.success());
    assert_eq!(head(&dir), side_tip);
}

#[test]
fn install_refuses_a_foreign_hook_keeps_it_with_force_and_uninstall_puts_it_back() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY).expect("write");
    repo.commit("first").expect("commit");
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks folder");
    let foreign = hooks.join("reference-transaction");
    let marker = repo.path().join(".git/foreign-ran");
    write_script(
        &foreign,
        &format!(
            "#!/bin/sh\ncat >/dev/null\necho \"$1\" >> '{}'\n",
            marker.display()
        ),
    );
    let original = std::fs::read(&foreign).expect("read");

    let refused = hook(repo.path(), "install", &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("--force"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(
        std::fs::read(&foreign).expect("read"),
        original,
        "nothing written"
    );

    let forced = hook(repo.path(), "install", &["--force"]);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    repo.write("b.py", "b = 1\n").expect("write");
    repo.commit("second").expect("an ungoverned commit passes");
    let ran = std::fs::read_to_string(&marker).expect("the kept hook ran");
    assert!(
        ran.contains("prepared") && ran.contains("committed"),
        "{ran}"
    );

    let removed = hook(repo.path(), "uninstall", &[]);
    assert!(removed.status.success(), "{}", text(&removed.stderr));
    assert_eq!(
        std::fs::read(&foreign).expect("read"),
        original,
        "put back as it was"
    );
    let again = hook(repo.path(), "uninstall", &[]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "the foreign hook is not keel's to remove"
    );
}

#[test]
fn the_gate_works_in_a_bare_repository_receiving_a_push() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    let bare = tempfile::tempdir().expect("a temporary folder");
    let bare_path = bare.path().join("remote.git");
    let bare_arg = bare_path.display().to_string();
    let clone = git(
        repo.path(),
        &["clone", "-q", "--bare", ".", &bare_arg],
        false,
    );
    assert!(clone.status.success(), "{}", text(&clone.stderr));
    let installed = hook(&bare_path, "install", &[]);
    assert!(installed.status.success(), "{}", text(&installed.stderr));
    assert!(bare_path.join("hooks/reference-transaction").exists());

    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    assert!(
        git(repo.path(), &["commit", "-qam", "Change f"], false)
            .status
            .success()
    );
    let pushed = git(repo.path(), &["push", "-q", &bare_arg, "main"], false);
    assert!(
        !pushed.status.success(),
        "the receiving gate refuses the push"
    );
    assert!(
        text(&pushed.stderr).contains("KEEL_SKIP_LINT=1"),
        "{}",
        text(&pushed.stderr)
    );
}

#[test]
fn a_commit_no_spec_governs_passes_without_a_lint_and_a_governed_one_is_linted() {
    let repo = gated_repo();
    let dir = repo.path();
    let memo = dir.join(".git/keel/memo.bin");
    repo.write("README.md", "docs\n").expect("write");
    let docs = git(dir, &["add", "README.md"], false);
    assert!(docs.status.success());
    let ungoverned = git(dir, &["commit", "-qm", "Docs"], false);
    assert!(ungoverned.status.success(), "{}", text(&ungoverned.stderr));
    assert!(
        !memo.exists(),
        "no spec governs README.md: nothing was linted"
    );

    // Positive control: a change to the anchored file outside the unit is linted (and
    // passes), which leaves the lint's memo behind.
    repo.write("app.py", APP_PY_G_CHANGED).expect("edit g");
    let governed = git(dir, &["commit", "-qam", "Change g"], false);
    assert!(governed.status.success(), "{}", text(&governed.stderr));
    assert!(
        memo.exists(),
        "app.py is governed: the candidate was linted"
    );
}

/// Without a kept hook, a ref update starts no process but keel's (and keel only in the
/// prepared phase): `cat`, which an earlier script ran in every phase to read git's input,
/// is replaced on `PATH` by one that logs its calls, and none may be logged, while the
/// gate still judges and refuses.
#[test]
fn the_hook_starts_no_process_but_keel() {
    let repo = gated_repo();
    let dir = repo.path();
    let tools = tempfile::tempdir().expect("a temporary folder");
    let log = tools.path().join("cat.log");
    let cat = tools.path().join("cat");
    write_script(
        &cat,
        &format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec /bin/cat \"$@\"\n",
            log.display()
        ),
    );
    let path = format!(
        "{}:{}",
        tools.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        pinned_git(dir)
            .env("PATH", &path)
            .args(args)
            .output()
            .expect("git runs")
    };
    // The control: the logging `cat` is the one a shell on this PATH finds.
    let found = std::process::Command::new("sh")
        .args(["-c", "printf x | cat >/dev/null"])
        .env("PATH", &path)
        .status()
        .expect("sh runs");
    assert!(
        found.success() && log.exists(),
        "the logging cat is found first"
    );
    std::fs::remove_file(&log).expect("clear the log");

    let branch = run(&["update-ref", "refs/heads/plumbing", "HEAD"]);
    assert!(branch.status.success(), "{}", text(&branch.stderr));
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let refused = run(&["commit", "-qam", "Change f"]);
    assert_refused(&refused, "a commit changing the anchored f");
    assert!(
        !log.exists(),
        "the hook started cat: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// Commits `message` with everything staged, through the hook; the git output.
fn commit_all(dir: &Path, message: &str) -> Output {
    git(dir, &["add", "-A"], false);
    git(dir, &["commit", "-qm", message], false)
}

#[test]
fn a_refusal_tells_this_commits_change_from_the_debt_before_it_and_each_repair_works() {
    let repo = gated_repo();
    let dir = repo.path();
    repo.git(&["config", "user.name", "Gate Author"])
        .and_then(|_| repo.git(&["config", "user.email", "gate@keel.invalid"]))
        .expect("git config");
    // Debt: a change to the pinned `f`, let through unjudged.
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    git(dir, &["commit", "-qam", "Change f"], true);
    let debt = head(dir);

    // This commit changes only the unpinned `g`: it adds nothing, yet its node owes.
    repo.write("app.py", &APP_PY_F_CHANGED.replace("return 0", "return 7"))
        .expect("edit g");
    let refused = commit_all(dir, "Change g");
    assert_refused(&refused, "a commit to a node with debt");
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("This commit leaves no change to pinned code unanswered."),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "The node this commit touches already owed 1 blocking hit from 1 earlier commit before it: app"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("`keel ack app`"), "{stderr}");
    assert!(
        !stderr.contains(&debt[..12]),
        "the debt is summarized, not listed: {stderr}"
    );

    // A trailer covers only the commit carrying it: still refused, for the same debt.
    let trailer = git(dir, &["commit", "-qm", "Change g\n\nSpec-OK: app"], false);
    assert_refused(&trailer, "a trailer does not answer earlier debt");

    // The repair the refusal names works: acknowledge, then commit again.
    git(dir, &["stash", "-q"], false);
    let acked = keel(dir).args(["ack", "app"]).output().expect("keel runs");
    assert!(acked.status.success(), "{}", text(&acked.stderr));
    git(dir, &["stash", "pop", "-q"], false);
    let passed = commit_all(dir, "Change g");
    assert!(passed.status.success(), "{}", text(&passed.stderr));

    // This commit changes the pinned `f` itself: the refusal says so and names the spec
    // and the trailer, and the trailer answers it.
    repo.write("app.py", APP_PY).expect("edit f back");
    let own = commit_all(dir, "Put f back");
    assert_refused(&own, "a commit changing a pinned unit");
    let stderr = text(&own.stderr);
    assert!(
        stderr.contains("This commit changes pinned code:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("app: error[anchor-hit] app.py#f"),
        "{stderr}"
    );
    assert!(
        stderr.contains("update `.spec/app/spec.md` in this commit")
            && stderr.contains("the trailer `Spec-OK: app`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("already owed"),
        "no debt is left: {stderr}"
    );
    let answered = git(dir, &["commit", "-qm", "Put f back\n\nSpec-OK: app"], false);
    assert!(answered.status.success(), "{}", text(&answered.stderr));
}

#[test]
fn lint_worktree_judges_only_the_nodes_the_change_touches_and_explains_a_refusal() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write("README.md", "# app\n"))
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    let dir = repo.path();
    let lint = |args: &[&str]| {
        keel(dir)
            .arg("lint")
            .args(args)
            .output()
            .expect("keel runs")
    };

    repo.write("README.md", "# app\n\nMore words.\n")
        .expect("edit");
    let readme = lint(&["--worktree"]);
    assert!(
        readme.status.success(),
        "a README-only change is not refused for debt elsewhere: {}",
        text(&readme.stdout)
    );
    let every = lint(&["--worktree", "--all-nodes"]);
    assert_eq!(every.status.code(), Some(1), "{}", text(&every.stdout));

    repo.write("app.py", &APP_PY_F_CHANGED.replace("return 0", "return 7"))
        .expect("edit g");
    let governed = lint(&["--worktree"]);
    assert_eq!(
        governed.status.code(),
        Some(1),
        "{}",
        text(&governed.stdout)
    );
    let stdout = text(&governed.stdout);
    assert!(
        stdout.starts_with("keel lint --worktree: committing the working tree would be refused"),
        "{stdout}"
    );
    assert!(
        stdout.contains("This commit leaves no change to pinned code unanswered."),
        "{stdout}"
    );
    assert!(stdout.contains("`keel ack app`"), "{stdout}");
    let json = lint(&["--worktree", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(
        report["findings"][0]["node"], "app",
        "JSON stays the report"
    );
}
