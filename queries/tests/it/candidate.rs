//! Candidate lint (`--pending`): on every commit of a branchy history, judging the commit
//! as a candidate gives, for each node in its scope, exactly the findings full lint gives
//! at that commit; and the governor-transition check.

use crate::support::{commit, repo, spec};
use keel_engine::{ChangeEvent, KeelDatabase, Oid};
use keel_fixtures::FixtureRepo;
use keel_fixtures::rng::SeededRng as Rng;
use keel_queries::lint::{LintReport, Scope, lint_scope};

const FILES: [&str; 3] = ["a.py", "b.py", "c.py"];

fn module(tag: usize) -> String {
    format!(
        "def f():\n    return {tag}\n\n\ndef g():\n    return {}\n",
        tag * 7
    )
}

fn branchy(seed: u64) -> FixtureRepo {
    let mut rng = Rng::new(seed);
    let mut repo = repo();
    let mut files: Vec<(&str, String)> = FILES.iter().map(|f| (*f, module(0))).collect();
    files.push((".spec/one/spec.md", spec(&["a.py#f", "b.py"], &[])));
    files.push((".spec/two/spec.md", spec(&["b.py#g"], &["c.py#f"])));
    files.push((".spec/three/spec.md", spec(&["c.py"], &[])));
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    commit(&mut repo, &refs, "v1");
    let mut serial = 1;
    for round in 0..4 {
        repo.git(&["checkout", "-q", "-b", &format!("side{round}")])
            .expect("branch");
        for branch in ["side", "main"] {
            if branch == "main" {
                repo.git(&["checkout", "-q", "main"]).expect("checkout");
            }
            for _ in 0..3 {
                serial += 1;
                let file = FILES[rng.below(FILES.len())];
                let content = if rng.below(2) == 0 {
                    module(serial)
                } else {
                    module(serial).replace("return", "return 1 +")
                };
                let mut changes = vec![(file.to_owned(), content)];
                if rng.below(4) == 0 {
                    let node = ["one", "two", "three"][rng.below(3)];
                    let path = format!(".spec/{node}/spec.md");
                    let old = std::fs::read_to_string(repo.path().join(&path)).expect("spec");
                    changes.push((path, format!("{old}note {serial}\n")));
                }
                let refs: Vec<(&str, &str)> = changes
                    .iter()
                    .map(|(p, c)| (p.as_str(), c.as_str()))
                    .collect();
                commit(&mut repo, &refs, &format!("{branch} {serial}"));
            }
        }
        let merged = repo.git(&[
            "merge",
            "-q",
            "--no-ff",
            "-m",
            &format!("merge side{round}"),
            &format!("side{round}"),
        ]);
        if merged.is_err() {
            // A conflict: resolve it by hand, taking a fresh body for every file.
            for file in FILES {
                serial += 1;
                repo.write(file, &module(serial)).expect("writable");
            }
            for node in ["one", "two", "three"] {
                let path = format!(".spec/{node}/spec.md");
                let text = std::fs::read_to_string(repo.path().join(&path)).expect("spec");
                let clean: String = text
                    .lines()
                    .filter(|l| {
                        !l.starts_with("<<<<<<<")
                            && !l.starts_with("=======")
                            && !l.starts_with(">>>>>>>")
                    })
                    .map(|l| format!("{l}\n"))
                    .collect();
                repo.write(&path, &clean).expect("writable");
            }
            repo.commit(&format!("merge side{round} by hand"))
                .expect("commit");
        }
    }
    repo
}

fn report_at(db: &mut KeelDatabase, commit: Oid, scope: Scope) -> LintReport {
    db.apply_changes(&[ChangeEvent::TipAt(commit)])
        .expect("tip set");
    lint_scope(db, scope).expect("specs are valid")
}

#[test]
fn a_candidate_is_judged_as_full_lint_judges_its_nodes() {
    let mut narrowed = 0;
    let mut judged = 0;
    let mut owed = 0;
    for seed in 1..=3 {
        let repo = branchy(seed);
        let ids: Vec<String> = repo
            .git(&["rev-list", "HEAD"])
            .expect("rev-list")
            .lines()
            .map(str::to_owned)
            .collect();
        let mut db = KeelDatabase::open(repo.path()).expect("opens");
        for id in &ids {
            let oid = db.resolve_commit(id).expect("a commit");
            let pending = report_at(&mut db, oid, Scope::Pending);
            let full = report_at(&mut db, oid, Scope::Full);
            let in_scope: Vec<_> = full
                .findings
                .iter()
                .filter(|f| pending.nodes.contains(&f.node))
                .collect();
            let candidate: Vec<_> = pending.findings.iter().collect();
            assert_eq!(candidate, in_scope, "seed {seed}, commit {id}");
            assert!(pending.nodes.iter().all(|n| full.nodes.contains(n)));
            // A scope too narrow would drop the very debt the candidate brings: every node
            // whose full-lint findings name the candidate commit must be judged.
            for finding in &full.findings {
                if finding.hits.iter().any(|h| *h.commit == **id) {
                    assert!(
                        pending.nodes.contains(&finding.node),
                        "seed {seed}, commit {id}: {} owes this commit but is out of scope",
                        finding.node
                    );
                    owed += 1;
                }
            }
            judged += pending.nodes.len();
            narrowed += usize::from(pending.nodes.len() < full.nodes.len());
        }
    }
    assert!(
        judged > 0 && narrowed > 0 && owed > 0,
        "judged {judged}, narrowed {narrowed}, findings naming their candidate {owed}"
    );
}

#[test]
fn deleting_a_governor_must_take_its_files_or_hand_them_over() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", &module(1)),
            ("b.py", &module(2)),
            (".spec/keep/spec.md", &spec(&["b.py"], &[])),
            (".spec/gone/spec.md", &spec(&["a.py#f"], &[])),
        ],
        "v1",
    );
    repo.remove(".spec/gone/spec.md").expect("removable");
    let orphaning = repo
        .commit("drop the gone node\n\nSpec-OK: gone")
        .expect("commit");
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    let at = |db: &mut KeelDatabase, id: &str| {
        let oid = db.resolve_commit(id).expect("a commit");
        report_at(db, oid, Scope::Pending)
    };
    let report = at(&mut db, &orphaning);
    let codes: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (f.node.as_str(), f.code))
        .collect();
    assert_eq!(
        codes,
        vec![("gone", "governor-removed")],
        "a trailer cannot waive it"
    );
    assert!(report.findings[0].message.contains("a.py"));
    assert!(report.blocks());

    repo.git(&["reset", "-q", "--hard", "HEAD~1"])
        .expect("reset");
    repo.remove(".spec/gone/spec.md").expect("removable");
    repo.remove("a.py").expect("removable");
    let with_files = repo.commit("drop the node and its file").expect("commit");
    repo.git(&["reset", "-q", "--hard", "HEAD~1"])
        .expect("reset");
    repo.remove(".spec/gone/spec.md").expect("removable");
    repo.write(".spec/keep/spec.md", &spec(&["b.py", "a.py#f"], &[]))
        .expect("writable");
    let handed_over = repo.commit("hand a.py to keep").expect("commit");
    let mut db = KeelDatabase::open(repo.path()).expect("opens");
    for clean in [with_files, handed_over] {
        let report = at(&mut db, &clean);
        assert!(
            report.findings.iter().all(|f| f.code != "governor-removed"),
            "{clean}: {:?}",
            report.findings
        );
    }
}
