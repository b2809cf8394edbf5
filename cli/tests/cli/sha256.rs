//! SHA-256 repositories (issue #38): a repository made with `git init
//! --object-format=sha256` gets the answers its SHA-1 twin gets — the same history built
//! with the same dates, so the two differ only in their ids.
//!
//! Owns: the twin comparison, command by command (lint cold and warm, the working tree,
//! impact, the call graph, units, the gate's refusal, `keel ack`), with every commit id of
//! the SHA-256 twin mapped to its SHA-1 twin's by subject. Does not own: the hashing of
//! objects keel builds itself (`engine/src/objects.rs`'s tests, against `git hash-object`
//! and `git mktree`).

use crate::support::{APP_PY, keel, redact_path, spec};
use crate::{APP_PY_F_CHANGED, APP_PY_G_CHANGED};
use keel_fixtures::{FIXTURE_EMAIL, FIXTURE_NAME, FixtureRepo, pinned_git};
use std::collections::HashMap;

/// `APP_PY_G_CHANGED` with `f` changed too: an edit left in the working tree.
const APP_PY_BOTH_CHANGED: &str =
    "def f(x):\n    y = x + 3\n    return y\n\n\ndef g():\n    return 1\n";

/// The date of every commit made after the fixture's own (by git through the gate, or by
/// `keel ack`), so both twins' commits differ only in their ids.
const PINNED_DATE: &str = "2020-01-01T00:10:00Z";

/// One twin: a repository in one object format and what keel said in it, step by step.
struct Twin {
    repo: FixtureRepo,
    /// (step, stdout, stderr and exit code as one block, the root shown as `[REPO]`).
    said: Vec<(String, String)>,
}

impl Twin {
    /// Runs `keel ARGS` in the repository and keeps what it said under `step`.
    fn keel(&mut self, step: &str, args: &[&str]) -> crate::support::Run {
        let ran: crate::support::Run = keel(self.repo.path())
            .env("GIT_AUTHOR_NAME", FIXTURE_NAME)
            .env("GIT_AUTHOR_EMAIL", FIXTURE_EMAIL)
            .env("GIT_COMMITTER_NAME", FIXTURE_NAME)
            .env("GIT_COMMITTER_EMAIL", FIXTURE_EMAIL)
            .env("GIT_AUTHOR_DATE", PINNED_DATE)
            .env("GIT_COMMITTER_DATE", PINNED_DATE)
            .args(args)
            .output()
            .expect("the keel binary runs")
            .into();
        ran.assert_no_panic();
        self.said
            .push((step.to_owned(), ran.render(Some(self.repo.path()))));
        ran
    }

    /// Runs `git ARGS` in the repository as the fixtures pin it, keeping its stderr and
    /// exit code (the gate's refusal is git's stderr).
    fn git(&mut self, step: &str, args: &[&str]) {
        let output = pinned_git(self.repo.path())
            .env("GIT_AUTHOR_DATE", PINNED_DATE)
            .env("GIT_COMMITTER_DATE", PINNED_DATE)
            .args(args)
            .output()
            .expect("git runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        self.said.push((
            step.to_owned(),
            format!(
                "{}exit: {}\n",
                redact_path(&stderr, self.repo.path()),
                output.status.code().unwrap_or(-1)
            ),
        ));
    }

    /// Every commit id the repository holds (the reflog too), by subject.
    fn ids_by_subject(&self) -> HashMap<String, String> {
        let log = self
            .repo
            .git(&["log", "--all", "--reflog", "--format=%H %s"])
            .expect("git log");
        log.lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(id, subject)| (subject.to_owned(), id.to_owned()))
            .collect()
    }
}

/// The same history and the same keel commands in a repository of `format`.
fn twin(format: &str) -> Twin {
    let mut repo = FixtureRepo::new_with_init(&[&format!("--object-format={format}")])
        .expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f,g"])))
        .and_then(|r| r.write(".spec/tools/spec.md", &spec(&["lib/util.py#helper"])))
        .and_then(|r| r.write("lib/util.py", "def helper():\n    return 1\n"))
        .expect("write the first version");
    repo.commit("Add app and its spec").expect("commit");
    repo.write("app.py", APP_PY_F_CHANGED).expect("write");
    repo.commit("Change f").expect("commit");
    repo.git(&["mv", "lib/util.py", "lib/tools.py"])
        .expect("git mv");
    repo.commit("Move util to tools").expect("commit");
    let change_f = repo.git(&["rev-parse", "HEAD~1"]).expect("rev-parse");
    repo.git(&["revert", "--no-edit", "--no-commit", change_f.trim()])
        .expect("revert");
    repo.commit(&format!(
        "Revert \"Change f\"\n\nThis reverts commit {}.",
        change_f.trim()
    ))
    .expect("commit the revert");

    let mut twin = Twin {
        repo,
        said: Vec::new(),
    };
    twin.keel("lint, cold", &["lint"]);
    twin.keel("lint --format json", &["lint", "--format", "json"]);
    twin.keel("lint, warm", &["lint"]);

    twin.repo
        .write("app.py", APP_PY_BOTH_CHANGED)
        .expect("edit");
    twin.keel("lint --worktree", &["lint", "--worktree"]);
    let patch = twin.repo.git(&["diff", "--full-index"]).expect("git diff");
    let patch_file = twin.repo.path().join(".git").join("change.patch");
    std::fs::write(&patch_file, patch).expect("write the patch");
    twin.repo
        .git(&["checkout", "--", "app.py"])
        .expect("restore");
    let patch_arg = patch_file.display().to_string();
    twin.keel("impact", &["impact", &patch_arg, "--format", "json"]);
    twin.keel("callgraph", &["callgraph"]);
    twin.keel(
        "units --rev HEAD~1",
        &["units", "app.py", "--rev", "HEAD~1"],
    );

    twin.keel("hook install", &["hook", "install"]);
    twin.repo.write("app.py", APP_PY_G_CHANGED).expect("edit g");
    twin.git("a commit the gate refuses", &["commit", "-qam", "Change g"]);
    twin.keel("ack", &["ack", "app"]);
    twin.git(
        "the same commit with a trailer",
        &["commit", "-qam", "Change g\n\nSpec-OK: app"],
    );
    twin.keel("lint after ack", &["lint", "--format", "json"]);
    twin
}

/// `text` with each run of 7 or more lower-case hex digits that starts a commit id of
/// `ids` replaced by the same-length start of the id `twin_ids` holds for that subject
/// (the full 64 digits by the full 40); a run that starts no listed id (a refused commit,
/// a blob) becomes `[ID]`.
fn mapped(text: &str, ids: &HashMap<String, String>, twin_ids: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let lower_hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    while let Some(start) = rest.find(lower_hex) {
        out.push_str(&rest[..start]);
        let run_len = rest[start..]
            .find(|c: char| !lower_hex(c))
            .unwrap_or(rest.len() - start);
        let run = &rest[start..start + run_len];
        let word_start = !out.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let word_end =
            !rest[start + run_len..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if run_len >= 7 && word_start && word_end && run.bytes().any(|b| b.is_ascii_digit()) {
            out.push_str(&twin_run(run, ids, twin_ids));
        } else {
            out.push_str(run);
        }
        rest = &rest[start + run_len..];
    }
    out.push_str(rest);
    out
}

/// The twin's spelling of `run` (see [`mapped`]).
fn twin_run(
    run: &str,
    ids: &HashMap<String, String>,
    twin_ids: &HashMap<String, String>,
) -> String {
    let subject = ids
        .iter()
        .find(|(_, id)| id.starts_with(run))
        .map(|(subject, _)| subject);
    let Some(twin_id) = subject.and_then(|subject| twin_ids.get(subject)) else {
        return "[ID]".to_owned();
    };
    match ids.values().find(|id| id.as_str() == run) {
        Some(_) => twin_id.clone(),
        None => twin_id[..run.len().min(twin_id.len())].to_owned(),
    }
}

#[test]
fn a_sha256_repository_gets_the_answers_its_sha1_twin_gets() {
    let sha1 = twin("sha1");
    let sha256 = twin("sha256");
    let ids1 = sha1.ids_by_subject();
    let ids256 = sha256.ids_by_subject();
    assert_eq!(
        ids1.len(),
        ids256.len(),
        "the same commits: {ids1:?} / {ids256:?}"
    );
    assert!(ids256.values().all(|id| id.len() == 64), "{ids256:?}");

    // The runs are not vacuous: the SHA-1 twin sees the hit, the rename, the refusal.
    let said1: HashMap<&str, &str> = sha1
        .said
        .iter()
        .map(|(step, text)| (step.as_str(), text.as_str()))
        .collect();
    assert!(
        said1["lint, cold"].contains("error[anchor-hit] app.py#f"),
        "{}",
        said1["lint, cold"]
    );
    assert!(
        said1["impact"].contains("\"app.py#f\""),
        "{}",
        said1["impact"]
    );
    assert!(said1["a commit the gate refuses"].contains("keel: refused to move refs/heads/main"));
    assert!(
        said1["the same commit with a trailer"].ends_with("exit: 0\n"),
        "{}",
        said1["the same commit with a trailer"]
    );
    let after_ack = said1["lint after ack"];
    assert!(
        !after_ack.contains("anchor-hit") && after_ack.contains("\"dead-anchor\""),
        "{after_ack}"
    );
    // The SHA-256 twin names its commits with 64 digits where the report gives whole ids.
    let json256 = &sha256.said[1].1;
    assert!(
        ids256.values().any(|id| json256.contains(id.as_str())),
        "{json256}"
    );

    for ((step, text1), (_, text256)) in sha1.said.iter().zip(&sha256.said) {
        assert_eq!(
            mapped(text1, &ids1, &ids1),
            mapped(text256, &ids256, &ids1),
            "{step}: the SHA-256 twin answers differently"
        );
    }
}
