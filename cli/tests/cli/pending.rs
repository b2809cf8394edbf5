//! `keel lint --pending COMMIT`: a candidate commit no ref points at yet is judged as the
//! tip; HEAD and the work tree are left as they were.

use crate::support::{APP_PY, lint, listing, repo_with_spec, spec, status};

/// A commit that edits `app.py` inside `f`, parented on HEAD, with no branch pointing at
/// it (as a hook sees a commit before its ref moves); HEAD and the work tree stay put.
fn dangling_candidate(repo: &mut keel_fixtures::FixtureRepo, message: &str) -> String {
    repo.git(&["checkout", "-q", "-b", "candidate"])
        .expect("branch");
    repo.write("app.py", &APP_PY.replace("x + 1", "x + 2"))
        .expect("write");
    let candidate = repo.commit(message).expect("commit");
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    repo.git(&["branch", "-q", "-D", "candidate"])
        .expect("delete branch");
    candidate
}

#[test]
fn a_candidate_that_hits_an_anchor_blocks_and_changes_nothing() {
    let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    let candidate = dangling_candidate(&mut repo, "edit f");
    let before = (listing(repo.path()), status(&repo));
    let run = lint(repo.path(), &["--pending", &candidate, "--format", "json"]);
    run.assert_no_panic();
    assert_eq!(run.code, 1, "{}", run.render(None));
    let report = run.json();
    assert_eq!(report["tip"], candidate.as_str());
    assert_eq!(report["findings"][0]["code"], "anchor-hit");
    assert_eq!(
        report["findings"][0]["hits"][0]["commit"],
        candidate.as_str()
    );
    assert_eq!((listing(repo.path()), status(&repo)), before);

    let head = lint(repo.path(), &[]);
    assert_eq!(head.code, 0, "HEAD itself is clean: {}", head.render(None));
}

#[test]
fn a_candidate_outside_every_governed_path_judges_no_node() {
    let mut repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.write("README.md", "docs\n").expect("write");
    let docs = repo.commit("docs only").expect("commit");
    let run = lint(repo.path(), &["--pending", &docs, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.render(None));
    assert_eq!(run.json()["summary"]["nodes"], 0);
}

#[test]
fn an_unknown_revision_is_refused_with_a_repair() {
    let repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    let run = lint(repo.path(), &["--pending", "no-such-rev"]);
    run.assert_no_panic();
    assert_eq!(run.code, 2, "{}", run.render(None));
    assert!(run.stdout.is_empty());
    let line = run.stderr.trim();
    assert!(
        line.starts_with("error: no-such-rev: names no commit"),
        "{line}"
    );
    assert!(line.contains("repair: "), "{line}");
}
