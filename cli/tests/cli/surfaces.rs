//! Where teams look: `keel lint --format sarif` validated against the official SARIF 2.1.0
//! schema (`tests/data/`, with a tampered log as the control that the validator rejects),
//! its locations and fingerprints; `keel lint --format github` with a path and a message
//! that need GitHub's escaping; `--color`; `keel completions`.

use crate::support::{Run, lint, repo_with, run, snapshot_settings, spec};
use keel_fixtures::FixtureRepo;
use keel_fixtures::demo::{add_demo_followup, build_demo};
use serde_json::Value;

const SARIF_SCHEMA: &str = include_str!("../data/sarif-schema-2.1.0.json");

fn demo_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    build_demo(&mut repo).expect("the demo history");
    repo
}

fn sarif(repo: &FixtureRepo) -> Value {
    let run = lint(repo.path(), &["--format", "sarif"]);
    run.assert_no_panic();
    assert_eq!(run.code, 1, "the demo blocks: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("SARIF is JSON")
}

/// The published schema's `run.language` pattern ends in a lone `]`, a literal in the
/// ECMA-262 regular expressions JSON Schema uses but an error to the validator's stricter
/// engine; escaping it keeps the language the pattern matches.
const LANGUAGE_PATTERN: (&str, &str) = (
    r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#,
    r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#,
);

pub(crate) fn schema_errors(log: &Value) -> Vec<String> {
    let (published, escaped) = LANGUAGE_PATTERN;
    assert!(SARIF_SCHEMA.contains(published), "the schema changed");
    let schema: Value = serde_json::from_str(&SARIF_SCHEMA.replace(published, escaped))
        .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    validator
        .iter_errors(log)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect()
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

fn result<'a>(log: &'a Value, rule: &str) -> &'a Value {
    results(log)
        .iter()
        .find(|result| result["ruleId"] == rule)
        .unwrap_or_else(|| panic!("no {rule} result in {log:#}"))
}

/// The 1-based lines of the Python method `def NAME` in `text`: its `def` line through
/// the last line indented deeper than it (read from the text, not from keel).
fn method_lines(text: &str, name: &str) -> (u64, u64) {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|line| line.trim_start().starts_with(&format!("def {name}(")))
        .expect("the method is in the file");
    let indent = lines[start].len() - lines[start].trim_start().len();
    let body = lines[start + 1..]
        .iter()
        .take_while(|line| line.trim().is_empty() || line.len() - line.trim_start().len() > indent)
        .count();
    let last = (start + 1..=start + body)
        .rev()
        .find(|&index| !lines[index].trim().is_empty())
        .unwrap_or(start);
    (start as u64 + 1, last as u64 + 1)
}

#[test]
fn sarif_validates_against_the_official_schema_which_rejects_a_tampered_log() {
    let log = sarif(&demo_repo());
    assert_eq!(schema_errors(&log), Vec::<String>::new(), "{log:#}");
    let mut tampered = log.clone();
    tampered["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(
        !schema_errors(&tampered).is_empty(),
        "the validator must reject a level SARIF does not have"
    );
    let mut missing = log;
    missing["runs"][0]["tool"]["driver"]
        .as_object_mut()
        .expect("a driver")
        .remove("name");
    assert!(!schema_errors(&missing).is_empty(), "a driver needs a name");
}

#[test]
fn sarif_results_sit_at_the_units_tip_lines_with_one_rule_per_code() {
    let repo = demo_repo();
    let log = sarif(&repo);
    let json = lint(repo.path(), &["--format", "json"]).json();
    let findings = json["findings"].as_array().expect("findings");
    assert_eq!(results(&log).len(), findings.len());
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "keel");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().expect("rules");
    for (finding, result) in findings.iter().zip(results(&log)) {
        assert_eq!(result["ruleId"], finding["code"]);
        assert_eq!(result["level"], finding["severity"]);
        let index = result["ruleIndex"].as_u64().expect("a rule index") as usize;
        assert_eq!(rules[index]["id"], finding["code"]);
        let text = result["message"]["text"].as_str().expect("a message");
        assert!(text.contains(finding["message"].as_str().expect("message")));
        let related = result["relatedLocations"].as_array().expect("related");
        let spec = format!(".spec/{}/spec.md", finding["node"].as_str().expect("node"));
        assert_eq!(
            related.last().expect("the spec")["physicalLocation"]["artifactLocation"]["uri"],
            spec.as_str()
        );
    }
    let session = repo
        .git(&["show", "HEAD:src/auth/session.py"])
        .expect("the tip's file");
    let (start, end) = method_lines(&session, "refresh");
    let hit = result(&log, "anchor-hit");
    let place = &hit["locations"][0]["physicalLocation"];
    assert_eq!(place["artifactLocation"]["uri"], "src/auth/session.py");
    assert_eq!(place["region"]["startLine"], start);
    assert_eq!(place["region"]["endLine"], end);
    let drift = result(&log, "code-drift");
    assert!(
        drift["locations"][0]["physicalLocation"]
            .get("region")
            .is_none(),
        "a bare entry is about the whole file: {drift:#}"
    );
}

#[test]
fn a_debt_keeps_its_fingerprint_across_runs_and_new_hits() {
    let mut repo = demo_repo();
    let fingerprints = |log: &Value| -> Vec<(String, String)> {
        results(log)
            .iter()
            .map(|result| {
                (
                    result["ruleId"].as_str().expect("rule").to_owned(),
                    result["partialFingerprints"]["keelDebt/v1"]
                        .as_str()
                        .expect("a fingerprint")
                        .to_owned(),
                )
            })
            .collect()
    };
    let first = fingerprints(&sarif(&repo));
    assert_eq!(first, fingerprints(&sarif(&repo)));
    let distinct: std::collections::BTreeSet<&String> = first.iter().map(|(_, f)| f).collect();
    assert_eq!(
        distinct.len(),
        first.len(),
        "each debt has its own: {first:?}"
    );
    let login_hit = |log: &Value| {
        results(log)
            .iter()
            .find(|r| {
                r["ruleId"] == "anchor-hit"
                    && r["message"]["text"]
                        .as_str()
                        .is_some_and(|t| t.contains("session.py"))
            })
            .map(|r| r["partialFingerprints"]["keelDebt/v1"].clone())
    };
    let before = sarif(&repo);
    add_demo_followup(&mut repo).expect("a sixth commit");
    let after = sarif(&repo);
    assert_eq!(login_hit(&before), login_hit(&after));
    assert!(login_hit(&after).is_some());
    assert!(
        results(&after).len() > results(&before).len(),
        "the follow-up adds the billing debt"
    );
}

#[test]
fn github_annotations_escape_paths_and_messages() {
    let body = b"def pay(amount):\n    return amount\n";
    let mut repo = repo_with(&[
        ("src/50%,off:now.py", body),
        (
            ".spec/pay,ment/spec.md",
            spec(&["src/50%,off:now.py#pay"]).as_bytes(),
        ),
    ]);
    repo.write(
        "src/50%,off:now.py",
        "def pay(amount):\n    return amount * 2\n",
    )
    .expect("write");
    repo.commit("Double: 100% more\n\nbody line")
        .expect("commit");
    let run = lint(repo.path(), &["--format", "github"]);
    run.assert_no_panic();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let line = run.stdout.lines().next().expect("one annotation");
    assert!(
        line.starts_with("::error file=src/50%25%2Coff%3Anow.py,line=1,endLine=2,title=keel anchor-hit%3A pay%2Cment::"),
        "{line}"
    );
    assert!(line.contains("%0Arepair: "), "{line}");
    assert!(line.contains(" Double: 100%25 more"), "{line}");
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    snapshot_settings().bind(|| insta::assert_snapshot!("lint_github_escaping", run.stdout));
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let repo = demo_repo();
    let coloured = |run: &Run| run.stdout.contains("\u{1b}[");
    // `lint` runs keel with NO_COLOR=1 (the hermetic environment): `always` wins over it.
    let always = lint(repo.path(), &["--color", "always"]);
    assert!(coloured(&always), "{}", always.stdout);
    let never = lint(repo.path(), &["--color", "never"]);
    assert!(!coloured(&never));
    let auto = lint(repo.path(), &[]);
    assert!(!coloured(&auto), "a pipe is no terminal");
    let bad = lint(repo.path(), &["--color", "sometimes"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("sometimes"), "{}", bad.stderr);
    assert_eq!(bad.stdout, "");
}

#[test]
fn completions_name_keel_s_commands_for_each_shell() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let run = run(dir.path(), &["completions", shell]);
        run.assert_no_panic();
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        for word in ["lint", "sessions", "impact", "format", "sarif"] {
            assert!(run.stdout.contains(word), "{shell} lacks {word}");
        }
    }
    let bad = run(dir.path(), &["completions", "tcsh"]);
    assert_eq!(bad.code, 2);
}

/// The repository's own file `name` (the workspace root is the CLI crate's parent).
fn workspace_file(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

#[test]
fn the_pre_commit_entry_and_the_action_s_lint_commands_run_as_written() {
    let hooks = workspace_file(".pre-commit-hooks.yaml");
    let entry = hooks
        .lines()
        .find_map(|line| line.trim().strip_prefix("entry: "))
        .expect("the hook has an entry");
    let words: Vec<&str> = entry.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"keel"), "{entry}");
    let mut repo = demo_repo();
    let committed = run(repo.path(), &words[1..]);
    run_blocks_as_lint(&committed, 1, "the demo blocks");
    add_demo_followup(&mut repo).expect("a sixth commit");
    repo.write("src/billing/invoice.py", "# rewritten\n")
        .expect("an uncommitted edit");
    let dirty = run(repo.path(), &words[1..]);
    run_blocks_as_lint(&dirty, 1, "still blocks");
    assert!(dirty.stdout.contains("worktree"), "{}", dirty.stdout);
    let action = workspace_file("action.yml");
    let formats: Vec<&str> = action
        .lines()
        .filter(|line| line.contains("\"$keel\" lint"))
        .filter_map(|line| line.split("--format ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    assert_eq!(formats, ["github", "sarif"], "{action}");
    for format in formats {
        let run = lint(repo.path(), &["--format", format]);
        run_blocks_as_lint(&run, 1, format);
    }
}

fn run_blocks_as_lint(run: &Run, code: i32, what: &str) {
    run.assert_no_panic();
    assert_eq!(run.code, code, "{what}: {}", run.stderr);
    assert!(!run.stdout.is_empty(), "{what}: nothing printed");
}
