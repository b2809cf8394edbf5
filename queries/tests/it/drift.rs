//! Drift rules on built histories: versions, windows, acknowledgements, sides, scoped
//! misses, related entries, bare entries, unparseable history and merges. Every expected
//! value is derived by hand from the fixture.

use crate::support::{commit, edit, lint_repo, node_findings, repo, spec, strings};
use keel_queries::anchors::Side;
use keel_queries::lint::Severity;

const PY: &str = "import os\n\n\ndef f():\n    a = 1\n    return a\n\n\nclass C:\n    @property\n    def m(self):\n        return 1\n\n\ndef g():\n    return 2\n";

#[test]
fn a_new_spec_version_closes_the_window() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    commit(&mut repo, &[("a.py", &edit(PY, "a = 1", "a = 2"))], "hit f");
    commit(
        &mut repo,
        &[(
            ".spec/n/spec.md",
            &(spec(&["a.py#f"], &[]) + "f now sets 2\n"),
        )],
        "spec v2",
    );
    assert!(node_findings(&lint_repo(&repo), "n").is_empty());
}

#[test]
fn spec_ok_trailer_acknowledges_only_its_node() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            (".spec/n/spec.md", &spec(&["a.py#f"], &[])),
            (".spec/other/spec.md", &spec(&["a.py#f"], &[])),
        ],
        "v1",
    );
    let acked = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "hit f\n\nSpec-OK: n",
    );
    let report = lint_repo(&repo);
    assert!(
        node_findings(&report, "n").is_empty(),
        "the trailer acknowledges n"
    );
    assert_eq!(
        node_findings(&report, "other"),
        vec![("anchor-hit".to_owned(), strings(&["f"]), vec![acked])]
    );
}

#[test]
fn spec_ok_in_the_subject_or_a_prefix_of_the_id_does_not_acknowledge() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            (".spec/auth/login/spec.md", &spec(&["a.py#f"], &[])),
        ],
        "v1",
    );
    let subject_only = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "Spec-OK: auth/login",
    );
    let prefix = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 3"))],
        "hit again\n\nSpec-OK: auth",
    );
    let findings = node_findings(&lint_repo(&repo), "auth/login");
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].2,
        vec![prefix, subject_only],
        "newest first, both unacknowledged"
    );
}

#[test]
fn added_lines_are_judged_in_the_result_and_deleted_lines_in_the_parent() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    let added = edit(PY, "    return a\n", "    a += 1\n    return a\n");
    commit(&mut repo, &[("a.py", &added)], "add a line inside f");
    let deleted = edit(&added, "    a = 1\n", "");
    commit(&mut repo, &[("a.py", &deleted)], "delete a line of f");
    let report = lint_repo(&repo);
    let finding = &report.findings[0];
    let sides: Vec<Option<Side>> = finding.hits.iter().map(|h| h.side).collect();
    assert_eq!(
        sides,
        vec![Some(Side::Deleted), Some(Side::Added)],
        "newest first"
    );
    assert!(finding.hits.iter().all(|h| !h.conservative));
}

#[test]
fn a_decorator_line_belongs_to_its_unit() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#C.m"], &[]))],
        "v1",
    );
    let hit = commit(
        &mut repo,
        &[(
            "a.py",
            &edit(PY, "    @property\n", "    @cached_property\n"),
        )],
        "decorator",
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![("anchor-hit".to_owned(), strings(&["C.m"]), vec![hit])]
    );
}

#[test]
fn a_scoped_miss_warns_unless_settings_ignore_it() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    let miss = commit(
        &mut repo,
        &[("a.py", &edit(PY, "return 2", "return 3"))],
        "change g only",
    );
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "n"),
        vec![("scoped-code-miss".to_owned(), vec![], vec![miss])]
    );
    assert_eq!(report.findings[0].severity, Severity::Warning);
    assert!(!report.blocks());

    commit(
        &mut repo,
        &[("keel.toml", "[lint]\nscoped_code_miss = \"ignore\"\n")],
        "settings",
    );
    assert!(
        node_findings(&lint_repo(&repo), "n").is_empty(),
        "ignore (committed: settings come from the tip) silences only the miss"
    );
}

#[test]
fn ignoring_scoped_misses_keeps_hits_and_bare_drift() {
    let mut repo = repo();
    repo.write("keel.toml", "[lint]\nscoped_code_miss = \"ignore\"\n")
        .expect("writable");
    commit(
        &mut repo,
        &[
            ("a.py", PY),
            ("b.txt", "x\n"),
            (".spec/n/spec.md", &spec(&["a.py#f", "b.txt"], &[])),
        ],
        "v1",
    );
    let hit = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 5")), ("b.txt", "y\n")],
        "both",
    );
    let findings = node_findings(&lint_repo(&repo), "n");
    assert_eq!(
        findings,
        vec![
            ("anchor-hit".to_owned(), strings(&["f"]), vec![hit.clone()]),
            ("code-drift".to_owned(), vec![], vec![hit]),
        ],
        "findings follow declaration order"
    );
}

#[test]
fn related_selectors_warn_on_a_hit_and_stay_silent_on_a_miss() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&[], &["a.py#g"]))],
        "v1",
    );
    commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "miss g",
    );
    assert!(node_findings(&lint_repo(&repo), "n").is_empty());
    let hit = commit(
        &mut repo,
        &[(
            "a.py",
            &edit(&edit(PY, "a = 1", "a = 2"), "return 2", "return 4"),
        )],
        "hit g",
    );
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "n"),
        vec![("related-hit".to_owned(), strings(&["g"]), vec![hit])]
    );
    assert!(!report.blocks(), "related never blocks");
}

#[test]
fn bare_files_folders_and_globs_drift_as_warnings() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("docs/guide.md", "guide\n"),
            ("src/x/one.py", PY),
            ("src/y/two.py", PY),
            ("README.txt", "r\n"),
            (
                ".spec/n/spec.md",
                &spec(&["README.txt", "docs/", "src/*/one.py"], &[]),
            ),
        ],
        "v1",
    );
    let readme = commit(&mut repo, &[("README.txt", "r2\n")], "readme");
    let docs = commit(&mut repo, &[("docs/new.md", "new\n")], "docs");
    commit(
        &mut repo,
        &[("src/y/two.py", &edit(PY, "a = 1", "a = 2"))],
        "two: outside the glob",
    );
    let one = commit(
        &mut repo,
        &[("src/x/one.py", &edit(PY, "a = 1", "a = 2"))],
        "one",
    );
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "n"),
        vec![
            ("code-drift".to_owned(), vec![], vec![readme]),
            ("code-drift".to_owned(), vec![], vec![docs]),
            ("code-drift".to_owned(), vec![], vec![one]),
        ]
    );
    assert!(!report.blocks());
}

#[test]
fn an_unparseable_historical_image_is_a_conservative_hit() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    let broken = edit(PY, "return 2", "return (2");
    let breaks = commit(&mut repo, &[("a.py", &broken)], "break g");
    let fixes = commit(&mut repo, &[("a.py", PY)], "fix g");
    let report = lint_repo(&repo);
    let finding = &report.findings[0];
    assert_eq!(finding.code, "anchor-hit");
    let hits: Vec<(&str, Option<Side>, bool)> = finding
        .hits
        .iter()
        .map(|h| (&*h.commit, h.side, h.conservative))
        .collect();
    assert_eq!(
        hits,
        vec![
            (fixes.as_str(), Some(Side::Deleted), true),
            (breaks.as_str(), Some(Side::Added), true),
        ],
        "the broken image is the result of one commit and the parent of the next"
    );
}

#[test]
fn a_partly_parsing_image_is_conservative_only_where_it_did_not_parse() {
    // `g`'s header lacks its `)` (line 15): the rest of the file parses.
    let broken = edit(PY, "def g():", "def g(:");
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("a.py", &broken),
            (".spec/f/spec.md", &spec(&["a.py#f"], &[])),
            (".spec/g/spec.md", &spec(&["a.py#g"], &[])),
        ],
        "v1",
    );
    let in_f = edit(&broken, "a = 1", "a = 2");
    let hit_f = commit(&mut repo, &[("a.py", &in_f)], "change f");
    let outside = edit(&in_f, "import os", "import sys");
    let import = commit(&mut repo, &[("a.py", &outside)], "change the import");
    let body = edit(&outside, "return 2", "return 3");
    let in_g = commit(&mut repo, &[("a.py", &body)], "change g's body");
    let header = edit(&body, "def g(:", "def g(x:");
    let on_error = commit(&mut repo, &[("a.py", &header)], "change the broken line");
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "f"),
        vec![
            (
                "anchor-hit".to_owned(),
                strings(&["f"]),
                vec![on_error.clone(), hit_f.clone()]
            ),
            (
                "scoped-code-miss".to_owned(),
                vec![],
                vec![in_g.clone(), import.clone()]
            ),
        ],
        "f stands in every image: a change inside it hits exactly, a change to the line \
         that did not parse hits conservatively, any other change misses"
    );
    let f_hit = report
        .findings
        .iter()
        .find(|f| f.node == "f" && f.code == "anchor-hit")
        .expect("f is hit");
    let conservative: Vec<(&str, bool)> = f_hit
        .hits
        .iter()
        .map(|h| (&*h.commit, h.conservative))
        .collect();
    assert_eq!(
        conservative,
        vec![(on_error.as_str(), true), (hit_f.as_str(), false)]
    );
    assert_eq!(
        node_findings(&report, "g"),
        vec![
            ("unparseable-anchor".to_owned(), strings(&["g"]), vec![]),
            (
                "anchor-hit".to_owned(),
                strings(&["g"]),
                vec![on_error, in_g, import, hit_f]
            ),
        ],
        "g's unit does not parse: every change to the file is a conservative hit on it"
    );
    let unparseable = report
        .findings
        .iter()
        .find(|f| f.node == "g" && f.code == "unparseable-anchor")
        .expect("g is unparseable");
    assert!(
        unparseable.message.contains("line 15 did not parse"),
        "{}",
        unparseable.message
    );
}

#[test]
fn dead_ambiguous_and_type_only_verdicts_at_the_tip() {
    let ts = "export interface Shape { area(): number }\n\nexport function area(s: Shape) {\n  return s.area();\n}\n";
    let py_twice = "def h():\n    return 1\n\n\ndef h():\n    return 2\n";
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("shape.ts", ts),
            ("twice.py", py_twice),
            ("notes.txt", "n\n"),
            (
                ".spec/n/spec.md",
                &spec(
                    &["shape.ts#Shape,area,gone", "twice.py#h", "notes.txt#x"],
                    &[],
                ),
            ),
        ],
        "v1",
    );
    let report = lint_repo(&repo);
    let codes: Vec<(String, Vec<String>)> = node_findings(&report, "n")
        .into_iter()
        .map(|(c, s, _)| (c, s))
        .collect();
    assert_eq!(
        codes,
        vec![
            ("dead-anchor".to_owned(), strings(&["gone"])),
            ("type-only-anchor".to_owned(), strings(&["Shape"])),
            ("ambiguous-anchor".to_owned(), strings(&["h"])),
            ("no-extractor".to_owned(), strings(&["x"])),
        ]
    );
    assert_eq!(report.summary.errors, 3);
    assert_eq!(report.summary.warnings, 1);
}

#[test]
fn a_deleted_file_is_a_dead_anchor_and_its_deletion_a_hit() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    repo.remove("a.py").expect("removable");
    let gone = repo.commit("remove a.py").expect("commit");
    let findings = node_findings(&lint_repo(&repo), "n");
    assert_eq!(
        findings,
        vec![
            ("dead-anchor".to_owned(), strings(&["f"]), vec![]),
            ("anchor-hit".to_owned(), strings(&["f"]), vec![gone]),
        ]
    );
}

#[test]
fn a_clean_merge_owns_nothing_and_an_evil_merge_owns_its_own_lines() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#f"], &[]))],
        "v1",
    );
    repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
    let side_hit = commit(
        &mut repo,
        &[("a.py", &edit(PY, "a = 1", "a = 2"))],
        "side hits f",
    );
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    commit(&mut repo, &[("other.txt", "o\n")], "main moves");
    repo.git(&["merge", "-q", "--no-ff", "-m", "clean merge", "side"])
        .expect("merge");
    let report = lint_repo(&repo);
    assert_eq!(
        node_findings(&report, "n"),
        vec![(
            "anchor-hit".to_owned(),
            strings(&["f"]),
            vec![side_hit.clone()]
        )],
        "a clean merge transports the side commit's hit and adds none of its own"
    );

    repo.git(&["checkout", "-q", "side"])
        .expect("checkout side");
    commit(
        &mut repo,
        &[(
            "a.py",
            &edit(&edit(PY, "a = 1", "a = 2"), "return 2", "return 4"),
        )],
        "side changes g",
    );
    repo.git(&["checkout", "-q", "main"])
        .expect("checkout main");
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "side"])
        .expect("merge starts");
    let resolved = edit(&edit(PY, "a = 1", "a = 9"), "return 2", "return 4");
    let evil = commit(
        &mut repo,
        &[("a.py", &resolved)],
        "merge with an edit of its own",
    );
    let report = lint_repo(&repo);
    let finding = &report.findings[0];
    assert_eq!(finding.code, "anchor-hit");
    let hits: Vec<(&str, bool)> = finding
        .hits
        .iter()
        .map(|h| (&*h.commit, h.conservative))
        .collect();
    assert_eq!(
        hits,
        vec![(evil.as_str(), false), (side_hit.as_str(), false)],
        "the merge owns `a = 9` (neither parent has it) inside f, exactly; `return 4` came \
         from the side and is charged there (a miss of f), never again at the merge"
    );
}

#[test]
fn a_typescript_export_line_belongs_to_its_unit() {
    let ts = "export interface User {\n  id: string;\n}\n\nexport async function load(id: string) {\n  return fetch(id);\n}\n";
    let mut repo = repo();
    commit(
        &mut repo,
        &[
            ("api.ts", ts),
            (".spec/n/spec.md", &spec(&["api.ts#load"], &[])),
        ],
        "v1",
    );
    let miss = commit(
        &mut repo,
        &[("api.ts", &edit(ts, "  id: string;", "  id: number;"))],
        "type only",
    );
    let hit = commit(
        &mut repo,
        &[(
            "api.ts",
            &edit(
                &edit(ts, "  id: string;", "  id: number;"),
                "export async function",
                "export function",
            ),
        )],
        "export line",
    );
    assert_eq!(
        node_findings(&lint_repo(&repo), "n"),
        vec![
            ("anchor-hit".to_owned(), strings(&["load"]), vec![hit]),
            ("scoped-code-miss".to_owned(), vec![], vec![miss]),
        ]
    );
}

#[test]
fn a_binary_change_to_an_anchored_file_is_a_conservative_hit() {
    let mut repo = repo();
    commit(
        &mut repo,
        &[("a.py", PY), (".spec/n/spec.md", &spec(&["a.py#g"], &[]))],
        "v1",
    );
    repo.write_bytes("a.py", b"def g():\n    return 2\n\0")
        .expect("writable");
    let binary = repo.commit("a NUL byte makes it binary").expect("commit");
    let report = lint_repo(&repo);
    let hit = report
        .findings
        .iter()
        .find(|f| f.code == "anchor-hit")
        .expect("a hit");
    let hits: Vec<(&str, Option<Side>, bool)> = hit
        .hits
        .iter()
        .map(|h| (&*h.commit, h.side, h.conservative))
        .collect();
    assert_eq!(hits, vec![(binary.as_str(), Some(Side::Both), true)]);
}
