//! Hits worth reading (issue #37, item 3): the line predicate still decides what a hit
//! is; a hit whose unit is token-equal on both images once comments and whitespace are
//! dropped is marked `cosmetic` (`layout`; `docstring` when only docstrings differ too),
//! and `[lint] cosmetic = "block" | "warn" | "ignore"` with `docstrings = "code" |
//! "cosmetic"` decide what it weighs.

use crate::findings_of;
use crate::support::{lint, spec};
use keel_fixtures::FixtureRepo;

const F: &str = "def f(x):\n    \"\"\"Add one.\"\"\"\n    y = x + 1\n    return y\n";

/// Node `app` pins `app.py#f`; then one commit per `(subject, new f)`, and `keel.toml`
/// holding `settings` in the first commit.
fn repo_with_changes(settings: &str, changes: &[(&str, String)]) -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", F)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .and_then(|r| r.write("keel.toml", settings))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    for (subject, text) in changes {
        repo.write("app.py", text).expect("write");
        repo.commit(subject).expect("commit");
    }
    repo
}

fn changes() -> Vec<(&'static str, String)> {
    vec![
        (
            "Comment f",
            F.replace("y = x + 1", "y = x + 1  # pyright: ignore"),
        ),
        (
            "Reword the docstring",
            F.replace("y = x + 1", "y = x + 1  # pyright: ignore")
                .replace("Add one.", "Return x plus one."),
        ),
        (
            "Change f",
            F.replace("y = x + 1", "y = x + 2  # pyright: ignore")
                .replace("Add one.", "Return x plus one."),
        ),
    ]
}

/// The `cosmetic` marks of the hits of `code` findings, newest first.
fn hit_marks(report: &serde_json::Value, code: &str) -> Vec<serde_json::Value> {
    findings_of(report, code)
        .iter()
        .flat_map(|f| f["hits"].as_array().expect("hits").clone())
        .map(|hit| hit["cosmetic"].clone())
        .collect()
}

#[test]
fn each_hit_is_marked_by_how_cosmetic_it_is_and_blocks_by_default() {
    let repo = repo_with_changes("", &changes());
    let run = lint(repo.path(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    // Newest first: the real change, the docstring rewording, the comment.
    assert_eq!(
        hit_marks(&report, "anchor-hit"),
        [
            serde_json::Value::Null,
            serde_json::json!("docstring"),
            serde_json::json!("layout")
        ]
    );
    let sarif = lint(repo.path(), &["--format", "sarif"]).json();
    let sarif_marks: Vec<serde_json::Value> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|result| result["ruleId"] == "anchor-hit")
        .flat_map(|result| {
            result["properties"]["commits"]
                .as_array()
                .expect("commits")
                .clone()
        })
        .map(|commit| commit["cosmetic"].clone())
        .collect();
    assert_eq!(
        sarif_marks,
        hit_marks(&report, "anchor-hit"),
        "SARIF carries the marks"
    );
    let text = lint(repo.path(), &[]);
    assert!(
        text.stdout.contains(
            "Comment f — f: added and deleted lines, cosmetic (comments and whitespace only)"
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn cosmetic_warn_moves_cosmetic_hits_to_an_advisory_and_ignore_drops_them() {
    let warn = repo_with_changes("[lint]\ncosmetic = \"warn\"\n", &changes()[..2]);
    let run = lint(warn.path(), &["--format", "json"]);
    let report = run.json();
    assert_eq!(
        hit_marks(&report, "cosmetic-hit"),
        [serde_json::json!("layout")]
    );
    assert_eq!(
        hit_marks(&report, "anchor-hit"),
        [serde_json::json!("docstring")],
        "a docstring is code unless `docstrings = \"cosmetic\"`"
    );
    assert_eq!(run.code, 1);

    let docstrings = repo_with_changes(
        "[lint]\ncosmetic = \"warn\"\ndocstrings = \"cosmetic\"\n",
        &changes()[..2],
    );
    let run = lint(docstrings.path(), &["--format", "json"]);
    assert_eq!(run.code, 0, "only advisories: {}", run.stdout);
    assert_eq!(hit_marks(&run.json(), "cosmetic-hit").len(), 2);

    let ignore = repo_with_changes("[lint]\ncosmetic = \"ignore\"\n", &changes());
    let run = lint(ignore.path(), &["--format", "json"]);
    let report = run.json();
    assert_eq!(
        hit_marks(&report, "anchor-hit"),
        [serde_json::Value::Null, serde_json::json!("docstring")],
        "the comment-only hit is gone; the real one stays"
    );
    assert!(findings_of(&report, "cosmetic-hit").is_empty());
}

#[test]
fn the_same_patch_cherry_picked_is_grouped_in_text_and_kept_apart_in_json() {
    let mut repo = repo_with_changes("", &[]);
    repo.write("other.py", "x = 1\n").expect("write");
    repo.commit("Add other").expect("commit");
    repo.git(&["branch", "maint", "HEAD"]).expect("git branch");
    repo.write("app.py", &F.replace("x + 1", "x + 5"))
        .expect("write");
    let fix = repo.commit("Fix f").expect("commit");
    repo.git(&["checkout", "-q", "maint"])
        .expect("git checkout");
    repo.git(&["cherry-pick", &fix]).expect("git cherry-pick");
    let picked = repo
        .git(&["rev-parse", "HEAD"])
        .expect("rev-parse")
        .trim()
        .to_owned();
    repo.git(&["checkout", "-q", "main"]).expect("git checkout");
    repo.git(&["merge", "-q", "--no-ff", "-m", "Merge maint", "maint"])
        .expect("git merge");
    // A control: a different change to f is no copy.
    repo.write("app.py", &F.replace("x + 1", "x + 6"))
        .expect("write");
    let other = repo.commit("Change f again").expect("commit");

    let report = lint(repo.path(), &["--format", "json"]).json();
    let hits = findings_of(&report, "anchor-hit")[0]["hits"]
        .as_array()
        .expect("hits")
        .clone();
    let patch_of = |commit: &str| {
        hits.iter()
            .find(|hit| hit["commit"] == commit)
            .unwrap_or_else(|| panic!("a hit by {commit}: {hits:?}"))["patch_id"]
            .clone()
    };
    assert_eq!(hits.len(), 3, "each copy stays a hit of its own: {hits:?}");
    assert_eq!(patch_of(&fix), patch_of(&picked));
    assert_ne!(patch_of(&fix), patch_of(&other));

    let text = lint(repo.path(), &[]).stdout;
    let (first, copy) = if text.find(&fix[..12]) < text.find(&picked[..12]) {
        (&fix, &picked)
    } else {
        (&picked, &fix)
    };
    assert!(
        text.contains(&format!("      also as {} Fix f", &copy[..12])),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|line| line.starts_with(&format!("    {}", &first[..12]))),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|line| line.starts_with(&format!("    {}", &copy[..12]))),
        "the copy is not listed again: {text}"
    );
}
