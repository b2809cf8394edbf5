//! No silent pass: inputs that once read as clean give a finding or a refusal — a node
//! that anchors nothing, a folder or glob that covers nothing, a literal path holding
//! glob characters, a glob that does not compile, odd shapes under `.spec/`, and
//! settings that are not the judged tree's. Every expected value is derived by hand from
//! the fixture.

use crate::support::{commit, lint_repo, node_findings, repo, spec, strings};
use keel_engine::KeelDatabase;
use keel_fixtures::FixtureRepo;
use keel_queries::lint::{LintError, Severity, lint};
use keel_queries::spec::SpecError;

const PY: &str = "def f():\n    a = 1\n    return a\n\n\ndef g():\n    return 2\n";
const PAGE: &str = "export function Page() {\n  return 1;\n}\n";

/// The spec errors lint refuses `repo` with.
fn spec_errors(repo: &FixtureRepo) -> Vec<SpecError> {
    let db = KeelDatabase::open(repo.path()).expect("fixture repository opens");
    match lint(&db) {
        Err(LintError::Specs(errors)) => errors,
        other => panic!("spec errors expected, got {other:?}"),
    }
}

/// `(file, line)` of each spec error.
fn located(errors: &[SpecError]) -> Vec<(String, Option<u32>)> {
    errors.iter().map(|e| (e.file.clone(), e.line)).collect()
}

#[test]
fn a_node_that_anchors_nothing_warns() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            (".spec/bare/spec.md", "---\n---\n# nothing\n"),
            (".spec/null/spec.md", "---\ncode:\n---\n"),
            (
                ".spec/lists/spec.md",
                "---\ncode: []\nrelated: ~\ntitle: x\n---\n",
            ),
            (".spec/ok/spec.md", &spec(&["a.py#f"], &[])),
        ],
        "v1",
    );
    let report = lint_repo(&repo);
    for node in ["bare", "null", "lists"] {
        assert_eq!(
            node_findings(&report, node),
            vec![("empty-node".to_owned(), vec![], vec![])],
            "{node}"
        );
    }
    assert!(node_findings(&report, "ok").is_empty());
    let empty = &report.findings[0];
    assert_eq!(empty.severity, Severity::Warning);
    assert_eq!(empty.path, ".spec/bare/spec.md");
    assert!(empty.repair.contains("code:"), "{}", empty.repair);
    assert!(!report.blocks(), "an empty node warns, it does not block");
    assert_eq!(report.summary.warnings, 3);
}

#[test]
fn a_literal_path_with_glob_characters_is_a_path() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("app/[slug]/page.tsx", PAGE),
            // The glob `app/[slug]/page.tsx` would match this file, the literal path does not.
            ("app/s/page.tsx", PAGE),
            (
                ".spec/scoped/spec.md",
                &spec(&["app/[slug]/page.tsx#Page"], &[]),
            ),
            (".spec/bare/spec.md", &spec(&["app/[slug]/page.tsx"], &[])),
            (".spec/folder/spec.md", &spec(&["app/[slug]/"], &[])),
        ],
        "v1",
    );
    commit(
        &mut repo,
        &[("app/s/page.tsx", &PAGE.replace("return 1", "return 2"))],
        "the other route",
    );
    let report = lint_repo(&repo);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(report.summary.anchors, 1);

    let hit = commit(
        &mut repo,
        &[("app/[slug]/page.tsx", &PAGE.replace("return 1", "return 3"))],
        "the slug route",
    );
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "scoped"),
        vec![(
            "anchor-hit".to_owned(),
            strings(&["Page"]),
            vec![hit.clone()]
        )]
    );
    assert_eq!(
        node_findings(&report, "bare"),
        vec![("code-drift".to_owned(), vec![], vec![hit.clone()])]
    );
    assert_eq!(
        node_findings(&report, "folder"),
        vec![("code-drift".to_owned(), vec![], vec![hit])]
    );
}

#[test]
fn a_folder_or_glob_that_covers_nothing_is_a_dead_path() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            ("src/x.py", PY),
            (
                ".spec/n/spec.md",
                &spec(
                    &["gone/", "src/*.rs", "a.py/", "src/*/", "src/*.py"],
                    &["lib/**/*.py"],
                ),
            ),
        ],
        "v1",
    );
    let report = lint_repo(&repo);
    let dead: Vec<(&str, Severity)> = report
        .findings
        .iter()
        .map(|f| {
            assert_eq!(f.code, "dead-path", "{f:?}");
            (f.path.as_str(), f.severity)
        })
        .collect();
    assert_eq!(
        dead,
        vec![
            ("gone", Severity::Error),
            ("src/*.rs", Severity::Error),
            ("a.py", Severity::Error),
            ("src/*/", Severity::Error),
            ("lib/**/*.py", Severity::Warning),
        ],
        "`src/*.py` covers src/x.py; a related dead path only warns"
    );
    assert!(report.blocks());
}

#[test]
fn a_glob_that_does_not_compile_is_refused_unless_its_path_exists() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            (".spec/n/spec.md", &spec(&["a.py", "src/[z-a].py"], &[])),
            (".spec/s/spec.md", &spec(&["src/*.py#f"], &[])),
        ],
        "v1",
    );
    let errors = spec_errors(&repo);
    assert_eq!(
        located(&errors),
        vec![
            (".spec/n/spec.md".to_owned(), Some(4)),
            (".spec/s/spec.md".to_owned(), Some(3)),
        ]
    );
    assert!(
        errors[0].message.contains("not a valid glob"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].message.contains("selectors on a glob"),
        "{}",
        errors[1]
    );

    // `[post-id]` holds the range `t-i`, which runs backwards: no glob, but a real route.
    let route = "app/[post-id]/page.tsx";
    assert!(keel_queries::spec::compile_glob(route).is_err());
    let mut repo = crate::support::repo();
    commit(
        &mut repo,
        &[
            (route, PAGE),
            (".spec/n/spec.md", &spec(&[route], &[])),
            (
                ".spec/s/spec.md",
                &spec(&["app/[post-id]/page.tsx#Page"], &[]),
            ),
        ],
        "v1",
    );
    let edit = commit(
        &mut repo,
        &[(route, &PAGE.replace("return 1", "return 2"))],
        "edit",
    );
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "n"),
        vec![("code-drift".to_owned(), vec![], vec![edit.clone()])]
    );
    assert_eq!(
        node_findings(&report, "s"),
        vec![("anchor-hit".to_owned(), strings(&["Page"]), vec![edit])]
    );
}

#[test]
fn a_spec_root_that_is_a_file_is_refused() {
    let mut repo = repo();
    commit(&mut repo, &[("a.py", PY), (".spec", "notes\n")], "v1");
    let errors = spec_errors(&repo);
    assert_eq!(located(&errors), vec![(".spec".to_owned(), None)]);
    assert!(errors[0].message.contains("a file"), "{}", errors[0]);
}

#[test]
fn folders_without_a_spec_and_spec_md_folders_are_refused() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            (".spec/README.md", "what the nodes are\n"),
            (".spec/ok/spec.md", &spec(&["a.py"], &[])),
            (".spec/ok/assets/diagram.txt", "allowed: inside a node\n"),
            (".spec/group/inner/spec.md", &spec(&["a.py"], &[])),
            (".spec/notes/draft.md", "no spec.md anywhere below\n"),
            (".spec/odd/spec.md/inside.md", "a folder named spec.md\n"),
        ],
        "v1",
    );
    let errors = spec_errors(&repo);
    assert_eq!(
        located(&errors),
        vec![
            (".spec/notes".to_owned(), None),
            (".spec/odd/spec.md".to_owned(), None),
        ]
    );
    assert!(
        errors[0].message.contains("holds no spec.md"),
        "{}",
        errors[0]
    );
    assert!(
        errors[0].repair.contains(".spec/notes/spec.md"),
        "{}",
        errors[0]
    );
    assert!(errors[1].message.contains("a folder"), "{}", errors[1]);
}

#[cfg(unix)]
#[test]
fn symbolic_links_under_spec_are_refused() {
    use std::os::unix::fs::symlink;
    let mut repo = repo();
    repo.write("docs/login.md", &spec(&["a.py"], &[]))
        .expect("writable");
    repo.write(".spec/real/spec.md", &spec(&["a.py"], &[]))
        .expect("writable");
    repo.write(".spec/linked/README.md", "a node folder\n")
        .expect("writable");
    symlink(
        "../../docs/login.md",
        repo.path().join(".spec/linked/spec.md"),
    )
    .expect("symlink");
    symlink("real", repo.path().join(".spec/alias")).expect("symlink");
    commit(&mut repo, &[("a.py", PY)], "v1");
    let errors = spec_errors(&repo);
    assert_eq!(
        located(&errors),
        vec![
            (".spec/alias".to_owned(), None),
            (".spec/linked/spec.md".to_owned(), None),
        ]
    );
    for error in &errors {
        assert!(error.message.contains("symbolic link"), "{error}");
    }

    let mut repo = crate::support::repo();
    repo.write("specs/n/spec.md", &spec(&["a.py"], &[]))
        .expect("writable");
    symlink("specs", repo.path().join(".spec")).expect("symlink");
    commit(&mut repo, &[("a.py", PY)], "v1");
    let errors = spec_errors(&repo);
    assert_eq!(located(&errors), vec![(".spec".to_owned(), None)]);
    assert!(errors[0].message.contains("symbolic link"), "{}", errors[0]);
}

#[test]
fn settings_come_from_the_tip_tree_not_the_work_tree() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    let miss = commit(
        &mut repo,
        &[("a.py", &PY.replace("return 2", "return 3"))],
        "change g only",
    );
    let expected = vec![("scoped-code-miss".to_owned(), vec![], vec![miss])];

    repo.write("keel.toml", "[lint]\nscoped_code_miss = \"ignore\"\n")
        .expect("writable");
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        expected,
        "an uncommitted keel.toml is not the judged tree's"
    );
    repo.write("keel.toml", "[lint]\nbogus = 1\n")
        .expect("writable");
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        expected,
        "nor is an uncommitted broken one"
    );

    commit(&mut repo, &[], "commit the broken keel.toml");
    let db = KeelDatabase::open(repo.path()).expect("opens");
    let Err(LintError::Settings(err)) = lint(&db) else {
        panic!("a broken keel.toml at the tip must be refused");
    };
    assert_eq!(err.line, 2, "{err}");
    assert!(err.to_string().starts_with("keel.toml:2: "), "{err}");
    assert!(err.message.contains("bogus"), "{err}");

    repo.remove("keel.toml").expect("removable");
    repo.write("keel.toml/x", "a folder\n").expect("writable");
    commit(&mut repo, &[], "keel.toml becomes a folder");
    let db = KeelDatabase::open(repo.path()).expect("opens");
    let Err(LintError::Settings(err)) = lint(&db) else {
        panic!("a keel.toml folder at the tip must be refused");
    };
    assert!(err.message.contains("a folder"), "{err}");
}
