//! Exact history on built repositories: renames (pure, with an edit, a directory move, a
//! path reused after a rename, a rename on one branch and an edit on the other), merges
//! (an `-s ours` merge, a merge that authors a spec version), the seed's
//! information-lower-bound case with its no-hit control, and a shallow clone. Every
//! expected value is derived by hand from the fixture.

use crate::support::{
    TWO_FUNCTIONS_PY, commit, edit, git, lint_repo, node_findings, repo, spec, strings,
};
use keel_engine::KeelDatabase;
use keel_fixtures::FixtureRepo;
use keel_queries::lint::lint;

const PY: &str = TWO_FUNCTIONS_PY;

/// Moves `from` to `to` in the work tree (with `git mv`, creating folders).
fn git_mv(repo: &FixtureRepo, from: &str, to: &str) {
    if let Some(folder) = std::path::Path::new(to).parent() {
        std::fs::create_dir_all(repo.path().join(folder)).expect("mkdir");
    }
    git(repo, &["mv", from, to]);
}

#[test]
fn a_pure_rename_hits_nothing_and_earlier_hits_follow_the_file() {
    let mut repo = repo();
    commit(&mut repo, &[("old.py", PY)], "add old.py");
    commit(
        &mut repo,
        &[(".spec/n/spec.md", &spec(&["new.py#f"], &["new.py"]))],
        "spec names the future path",
    );
    let before = commit(
        &mut repo,
        &[("old.py", &edit(PY, "a = 1", "a = 2"))],
        "hit f under the old path",
    );
    git_mv(&repo, "old.py", "new.py");
    let renamed = repo.commit("rename old.py to new.py").expect("commit");
    let report = lint_repo(&repo);
    let hit = &report.findings[0].hits[0];
    assert_eq!(
        (&*hit.commit, hit.path.as_deref()),
        (before.as_str(), Some("old.py")),
        "the hit says which path the file had then"
    );
    let findings = node_findings(&report, "n");
    assert_eq!(
        findings,
        vec![
            (
                "anchor-hit".to_owned(),
                strings(&["f"]),
                vec![before.clone()]
            ),
            ("scoped-code-miss".to_owned(), vec![], vec![renamed.clone()]),
            ("related-drift".to_owned(), vec![], vec![renamed, before]),
        ],
        "the edit under the old path is a hit of new.py#f; the pure rename changes no \
         unit (a miss for the scoped entry, drift for the bare one)"
    );
}

#[test]
fn a_rename_with_an_edit_is_judged_between_the_two_paths() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("old.py", PY),
            (".spec/n/spec.md", &spec(&["new.py#g"], &[])),
        ],
        "v1",
    );
    repo.remove("old.py").expect("removable");
    repo.write("new.py", &edit(PY, "return 2", "return 3"))
        .expect("writable");
    let moved = repo.commit("rename and edit g").expect("commit");
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "n"),
        vec![("anchor-hit".to_owned(), strings(&["g"]), vec![moved])],
        "one changed line, not a whole-file addition"
    );
    assert_eq!(
        report.findings[0].hits[0].side,
        Some(keel_queries::anchors::Side::Both)
    );
}

#[test]
fn a_directory_move_is_a_rename_of_every_file() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("pkg/a.py", PY),
            ("pkg/b.py", &edit(PY, "return 2", "return 20")),
            (
                ".spec/n/spec.md",
                &spec(&["src/pkg/a.py#f", "src/pkg/b.py#g"], &["src/pkg/"]),
            ),
        ],
        "v1",
    );
    let hit = commit(
        &mut repo,
        &[("pkg/b.py", &edit(PY, "return 2", "return 21"))],
        "hit g before the move",
    );
    git_mv(&repo, "pkg", "src/pkg");
    let moved = repo.commit("move pkg under src").expect("commit");
    let findings = node_findings(&lint_repo(&repo), "n");
    let of = |code: &str| -> Vec<_> {
        findings
            .iter()
            .filter(|(c, _, _)| c == code)
            .cloned()
            .collect()
    };
    assert_eq!(
        of("anchor-hit"),
        vec![("anchor-hit".to_owned(), strings(&["g"]), vec![hit.clone()])],
        "the move itself hits nothing; the earlier edit follows b.py to its new folder"
    );
    assert_eq!(
        of("related-drift"),
        vec![("related-drift".to_owned(), vec![], vec![moved, hit])],
        "the folder's files carry their history from the old folder"
    );
}

#[test]
fn a_path_reused_after_a_rename_is_another_lineage() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            (".spec/moved/spec.md", &spec(&["b.py#f"], &[])),
            (".spec/reused/spec.md", &spec(&["a.py#f"], &[])),
        ],
        "v1",
    );
    let old_hit = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "hit f before the rename",
    );
    git_mv(&repo, "a.py", "b.py");
    repo.commit("rename a.py to b.py").expect("commit");
    commit(&mut repo, &[("a.py", PY)], "a new a.py");
    let new_hit = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 3"))],
        "hit the new a.py",
    );
    let report = lint_repo(&repo);
    let hits = |node: &str| -> Vec<Vec<String>> {
        node_findings(&report, node)
            .into_iter()
            .filter(|(code, _, _)| code == "anchor-hit")
            .map(|(_, _, commits)| commits)
            .collect()
    };
    assert_eq!(
        hits("moved"),
        vec![vec![old_hit]],
        "b.py's lineage holds the edit made before the rename, not the new a.py's"
    );
    let reused = hits("reused");
    assert_eq!(reused.len(), 1, "{reused:?}");
    assert_eq!(
        reused[0].first(),
        Some(&new_hit),
        "the new a.py's edit is its own"
    );
    assert_eq!(
        reused[0].len(),
        2,
        "the reused path's lineage is the re-creation and its edit: the old edit moved away"
    );
}

#[test]
fn an_edit_on_one_branch_follows_a_rename_on_the_other() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["b.py#f"], &[]))],
        "v1",
    );
    git(&repo, &["checkout", "-q", "-b", "side"]);
    let side_hit = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "side edits f in a.py",
    );
    git(&repo, &["checkout", "-q", "main"]);
    git_mv(&repo, "a.py", "b.py");
    let renamed = repo.commit("main renames a.py to b.py").expect("commit");
    git(
        &repo,
        &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
    );
    assert!(
        std::fs::read_to_string(repo.path().join("b.py"))
            .expect("b.py")
            .contains("a = 2"),
        "git carried the side edit into b.py"
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![
            ("anchor-hit".to_owned(), strings(&["f"]), vec![side_hit]),
            ("scoped-code-miss".to_owned(), vec![], vec![renamed]),
        ],
        "the side edit of a.py projects to b.py; the merge owns no line and the rename \
         changes none (a miss)"
    );
}

#[test]
fn an_ours_merge_makes_side_debt_reachable_and_owns_nothing() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    git(&repo, &["checkout", "-q", "-b", "side"]);
    let side_hit = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "side hits f",
    );
    git(&repo, &["checkout", "-q", "main"]);
    commit(&mut repo, &[("other.txt", "x\n")], "main moves on");
    git(
        &repo,
        &[
            "merge",
            "-q",
            "--no-ff",
            "-s",
            "ours",
            "-m",
            "ours merge",
            "side",
        ],
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![("anchor-hit".to_owned(), strings(&["f"]), vec![side_hit])],
        "the side hit is reachable and not covered by the version: it is debt, and no \
         merge trailer or result tree washes it"
    );
}

#[test]
fn a_merge_that_owns_a_spec_line_is_a_version() {
    let base_spec = spec(&["a.py#f"], &[]) + "one\ntwo\nthree\n";
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &base_spec)],
        "v1",
    );
    git(&repo, &["checkout", "-q", "-b", "side"]);
    commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "side hits f",
    );
    git(&repo, &["checkout", "-q", "main"]);
    commit(&mut repo, &[("other.txt", "x\n")], "main moves on");
    git(&repo, &["merge", "-q", "--no-ff", "--no-commit", "side"]);
    commit(
        &mut repo,
        &[(".spec/n/spec.md", &edit(&base_spec, "two", "two, reviewed"))],
        "merge side and update the spec",
    );
    assert!(
        node_findings(&lint_repo(&repo), "n").is_empty(),
        "the merge authored a spec line, so it is the version and covers the side hit"
    );
}

/// The seed's information lower bound: branch B holds a hit `h` and then version vB,
/// branch A holds version vA; they merge without a new spec line. The base is the newest
/// maximal version in walk order.
fn lower_bound_case(with_hit: bool, a_is_newer: bool) -> (FixtureRepo, Option<String>) {
    let base_spec = spec(&["a.py#f"], &[]) + "one\ntwo\nthree\nfour\n";
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &base_spec)],
        "v0",
    );
    let spec_a = edit(&base_spec, "one", "one (A)");
    let spec_b = edit(&base_spec, "four", "four (B)");
    let branch_a = |repo: &mut FixtureRepo| {
        git(repo, &["checkout", "-q", "-b", "a", "main"]);
        commit(repo, &[(".spec/n/spec.md", &spec_a)], "vA");
    };
    let mut hit = None;
    let mut branch_b = |repo: &mut FixtureRepo| {
        git(repo, &["checkout", "-q", "-b", "b", "main"]);
        if with_hit {
            hit = Some(commit(
                repo,
                &[("a.py", &edit(PY, "a = 1", "a = 2"))],
                "h: hit f",
            ));
        } else {
            commit(repo, &[("notes.txt", "n\n")], "no hit");
        }
        commit(repo, &[(".spec/n/spec.md", &spec_b)], "vB");
    };
    if a_is_newer {
        branch_b(&mut repo);
        branch_a(&mut repo);
    } else {
        branch_a(&mut repo);
        branch_b(&mut repo);
    }
    git(&repo, &["checkout", "-q", "main"]);
    git(&repo, &["merge", "-q", "--no-ff", "-m", "merge a", "a"]);
    git(&repo, &["merge", "-q", "--no-ff", "-m", "merge b", "b"]);
    let merged = std::fs::read_to_string(repo.path().join(".spec/n/spec.md")).expect("spec");
    assert!(
        merged.contains("one (A)") && merged.contains("four (B)"),
        "the merges combine both versions without authoring a line"
    );
    (repo, hit)
}

#[test]
fn the_information_lower_bound_case_reports_the_hit_its_control_does_not() {
    let (repo, hit) = lower_bound_case(true, true);
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![(
            "anchor-hit".to_owned(),
            strings(&["f"]),
            vec![hit.expect("the hit case has a hit")]
        )],
        "vA is the newest maximal version; h is not reachable from it, so it is debt"
    );
    let (control, _) = lower_bound_case(false, true);
    assert!(
        node_findings(&lint_repo(&control), "n").is_empty(),
        "the no-hit control has the same parent states and no debt"
    );
    let (b_newer, _) = lower_bound_case(true, false);
    assert!(
        node_findings(&lint_repo(&b_newer), "n").is_empty(),
        "with vB the newest maximal version, h is covered"
    );
}

#[test]
fn a_shallow_clone_leaves_the_anchors_unverified() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    for n in 0..3 {
        commit(
            &mut repo,
            &[("a.py", &edit(PY, "a = 1", &format!("a = {n}")))],
            &format!("hit {n}"),
        );
    }
    let clone_root = tempfile::tempdir().expect("a temporary folder");
    let clone = clone_root.path().join("clone");
    let source = format!("file://{}", repo.path().display());
    let output = keel_fixtures::pinned_git(clone_root.path())
        .args(["clone", "-q", "--depth", "1", &source, "clone"])
        .output()
        .expect("git runs");
    assert!(output.status.success(), "{output:?}");
    let db = KeelDatabase::open(&clone).expect("the clone opens");
    let report = lint(&db).expect("lint runs");
    let codes: Vec<&str> = report.findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, vec!["shallow-history"]);
    assert_eq!(report.unverified.len(), 1);
    assert!(report.blocks(), "a shallow clone must not pass");
    assert!(report.findings[0].repair.contains("--unshallow"));

    let full = lint_repo(&repo);
    assert_eq!(
        full.findings.iter().map(|f| f.code).collect::<Vec<_>>(),
        vec!["anchor-hit"],
        "the full history shows the debt the shallow clone could not see"
    );
}
