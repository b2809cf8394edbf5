//! Where teams look, at scale and in detail: `keel lint --format github` within the
//! runner's ten error and ten warning annotations per step (errors first, a notice for the
//! rest) and the step summary it appends to `GITHUB_STEP_SUMMARY`; SARIF's rule
//! descriptions and links, the hit commits on each result, and the spec line of a finding
//! about an entry; the replay page's axis of tips in order and its pre-spec tips.
//!
//! Every expected value is written by hand from the fixture (node names, lines, commit
//! subjects), not read back from keel. Does not own: the escaping of annotations or the
//! schema check of the demo's log (`surfaces`).

use crate::support::{Run, keel, lint, run};
use crate::surfaces::schema_errors;
use keel_fixtures::FixtureRepo;
use serde_json::{Value, json};

/// Twelve nodes `n01`…`n12`, each pinning `f` of `src/mNN.py` (a blocking hit when it
/// changes) and the bare file `docs/bNN.txt` (advisory drift); a second commit changes
/// all 24 files. The report lists each node's error and warning side by side.
fn twelve_and_twelve() -> (FixtureRepo, String) {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    for n in 1..=12 {
        repo.write(&format!("src/m{n:02}.py"), "def f():\n    return 0\n")
            .and_then(|r| r.write(&format!("docs/b{n:02}.txt"), "first\n"))
            .and_then(|r| {
                r.write(
                    &format!(".spec/n{n:02}/spec.md"),
                    &format!("---\ncode:\n  - src/m{n:02}.py#f\n  - docs/b{n:02}.txt\n---\n"),
                )
            })
            .expect("write");
    }
    repo.commit("Add twelve nodes").expect("commit");
    for n in 1..=12 {
        repo.write(&format!("src/m{n:02}.py"), "def f():\n    return 1\n")
            .and_then(|r| r.write(&format!("docs/b{n:02}.txt"), "second\n"))
            .expect("write");
    }
    let changed = repo.commit("Change everything").expect("commit");
    (repo, changed)
}

/// `keel lint --format github` with `GITHUB_STEP_SUMMARY` set to `summary`.
fn github_with_summary(repo: &FixtureRepo, summary: &std::path::Path) -> Run {
    let run: Run = keel(repo.path())
        .args(["lint", "--repo", &repo.path().display().to_string()])
        .args(["--format", "github"])
        .env("GITHUB_STEP_SUMMARY", summary)
        .output()
        .expect("the keel binary runs")
        .into();
    run.assert_no_panic();
    run
}

/// The `title=` of an annotation line (escaped as the runner reads it).
fn title(line: &str) -> &str {
    line.split("title=")
        .nth(1)
        .and_then(|rest| rest.split("::").next())
        .unwrap_or("")
}

#[test]
fn github_shows_ten_errors_then_ten_warnings_and_a_notice_for_the_rest() {
    let (repo, _) = twelve_and_twelve();
    let run = lint(repo.path(), &["--format", "github"]);
    run.assert_no_panic();
    assert_eq!(run.code, 1, "twelve hits block: {}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 21, "{}", run.stdout);
    let titles: Vec<&str> = lines[..20].iter().map(|line| title(line)).collect();
    let mut expected: Vec<String> = (1..=10)
        .map(|n| format!("keel anchor-hit%3A n{n:02}"))
        .collect();
    expected.extend((1..=10).map(|n| format!("keel code-drift%3A n{n:02}")));
    assert_eq!(titles, expected, "errors first, each in report order");
    assert!(
        lines[..10]
            .iter()
            .all(|l| l.starts_with("::error file=src/m"))
    );
    assert!(
        lines[10..20]
            .iter()
            .all(|l| l.starts_with("::warning file=docs/b"))
    );
    assert_eq!(
        lines[0].split("::").nth(1),
        Some("error file=src/m01.py,line=1,endLine=2,title=keel anchor-hit%3A n01"),
        "f of src/m01.py is lines 1-2"
    );
    let notice = lines[20];
    assert!(
        notice.starts_with("::notice title=keel lint::2 more errors and 2 more warnings not shown"),
        "{notice}"
    );
    assert!(notice.contains("run `keel lint` for all"), "{notice}");
    assert!(
        !notice.contains("step summary"),
        "no summary was written: {notice}"
    );
}

#[test]
fn the_step_summary_lists_every_finding_with_its_commits_and_repair() {
    let (repo, changed) = twelve_and_twelve();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "An earlier step's summary.\n").expect("write");
    let run = github_with_summary(&repo, &summary);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stderr, "", "nothing to warn about");
    let notice = run.stdout.lines().last().expect("a notice");
    assert!(
        notice.ends_with("run `keel lint` for all, or see the step summary"),
        "{notice}"
    );
    let text = std::fs::read_to_string(&summary).expect("the summary");
    assert!(
        text.starts_with("An earlier step's summary.\n## keel lint at `"),
        "appended, not overwritten: {text}"
    );
    assert!(
        text.contains("**12 errors**, 12 warnings, 24 findings in 12 nodes"),
        "{text}"
    );
    assert!(
        text.contains(
            "| node | severity | code | target | commits | repair |\n|---|---|---|---|---|---|\n"
        ),
        "{text}"
    );
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| `n")).collect();
    assert_eq!(rows.len(), 24, "{text}");
    let short = &changed[..12];
    for n in 1..=12 {
        let error = format!(
            "| `n{n:02}` | error | `anchor-hit` | `src/m{n:02}.py#f` | `{short}` Change everything | "
        );
        let warning = format!(
            "| `n{n:02}` | warning | `code-drift` | `docs/b{n:02}.txt` | `{short}` Change everything | "
        );
        assert_eq!(rows[2 * (n - 1)].find(&error), Some(0), "{text}");
        assert_eq!(rows[2 * n - 1].find(&warning), Some(0), "{text}");
    }
    assert!(
        rows.iter().all(|row| row.ends_with(" |") && row.len() > 80),
        "each row ends with its repair: {text}"
    );
}

#[test]
fn a_step_summary_that_cannot_be_written_is_one_warning_not_a_failure() {
    let (repo, _) = twelve_and_twelve();
    let dir = tempfile::tempdir().expect("a temporary folder");
    // A folder is no file to append to.
    let run = github_with_summary(&repo, dir.path());
    assert_eq!(run.code, 1, "the verdict stands: {}", run.stderr);
    let warnings: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(
        warnings[0].starts_with("warning: GITHUB_STEP_SUMMARY"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout.lines().count(), 21, "{}", run.stdout);
    assert!(!run.stdout.contains("step summary"), "{}", run.stdout);
}

/// The node `dead` written by hand, one entry per line:
/// line 1 `---`, 2 a key keel does not read, 3 `code:`, 4 `app.py#f`,
/// 5 `other.py#vanished` (no such unit), 6 `nowhere.txt` (no such file), 7 `---`.
const DEAD_SPEC: &str = "---\ntitle: A node with dead entries\ncode:\n  - app.py#f\n  - other.py#vanished\n  - nowhere.txt\n---\n\nProse.\n";

fn dead_entries() -> (FixtureRepo, String) {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write(
        "app.py",
        "def f():\n    return 0\n\n\ndef g():\n    return 0\n",
    )
    .and_then(|r| r.write("other.py", "def here():\n    return 1\n"))
    .and_then(|r| r.write(".spec/dead/spec.md", DEAD_SPEC))
    .expect("write");
    repo.commit("Add the node").expect("commit");
    repo.write(
        "app.py",
        "def f():\n    return 1\n\n\ndef g():\n    return 0\n",
    )
    .expect("write");
    let changed = repo.commit("Change f").expect("commit");
    (repo, changed)
}

fn sarif_of(repo: &FixtureRepo) -> Value {
    let run = lint(repo.path(), &["--format", "sarif"]);
    run.assert_no_panic();
    assert_eq!(run.code, 1, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("SARIF is JSON")
}

fn result_of<'a>(log: &'a Value, rule: &str) -> &'a Value {
    log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|result| result["ruleId"] == rule)
        .unwrap_or_else(|| panic!("no {rule} result: {log:#}"))
}

/// The primary location's path and region (`None` for a whole file).
fn primary(result: &Value) -> (&str, Option<(u64, u64)>) {
    let place = &result["locations"][0]["physicalLocation"];
    let region = place.get("region").map(|r| {
        (
            r["startLine"].as_u64().expect("a start"),
            r["endLine"].as_u64().expect("an end"),
        )
    });
    (
        place["artifactLocation"]["uri"].as_str().expect("a uri"),
        region,
    )
}

/// The related location of the node's spec: the last one.
fn spec_region(result: &Value) -> Option<u64> {
    let related = result["relatedLocations"].as_array().expect("related");
    let spec = &related.last().expect("the spec")["physicalLocation"];
    assert_eq!(spec["artifactLocation"]["uri"], ".spec/dead/spec.md");
    spec.get("region")
        .map(|r| r["startLine"].as_u64().expect("a line"))
}

#[test]
fn sarif_rules_link_their_docs_and_results_carry_commits_and_lines() {
    let (repo, changed) = dead_entries();
    let log = sarif_of(&repo);
    assert_eq!(schema_errors(&log), Vec::<String>::new(), "{log:#}");
    let findings_doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/findings.md"),
    )
    .expect("docs/findings.md");
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    assert!(rules.len() >= 17, "{rules:#?}");
    for rule in rules {
        let id = rule["id"].as_str().expect("an id");
        let full = rule["fullDescription"]["text"]
            .as_str()
            .expect("a full description");
        let short = rule["shortDescription"]["text"]
            .as_str()
            .expect("a short one");
        assert!(
            full.starts_with(short) && full.len() > short.len(),
            "{rule:#}"
        );
        let link = format!("docs/findings.md#{id}");
        let markdown = rule["help"]["markdown"].as_str().expect("help in Markdown");
        assert!(markdown.ends_with(&format!("{link}).")), "{markdown}");
        // SARIF wants `helpUri` absolute: it is there when keel's Cargo.toml names its
        // repository (today it names none, and the link stays in the help, relative).
        match env!("CARGO_PKG_REPOSITORY") {
            "" => assert!(rule.get("helpUri").is_none(), "{rule:#}"),
            repository => assert_eq!(
                rule["helpUri"].as_str(),
                Some(format!("{}/blob/HEAD/{link}", repository.trim_end_matches('/')).as_str())
            ),
        }
        assert!(
            findings_doc.contains(&format!("<a id=\"{id}\"></a>`{id}`")),
            "the link lands on {id}'s row"
        );
    }
    // The hit: at f's lines (1-2), its commit with subject, and its entry on line 4.
    let hit = result_of(&log, "anchor-hit");
    assert_eq!(primary(hit), ("app.py", Some((1, 2))));
    let mut commits = hit["properties"]["commits"].clone();
    let patch_id = commits[0]
        .as_object_mut()
        .and_then(|commit| commit.remove("patchId"));
    assert!(
        patch_id
            .as_ref()
            .and_then(|id| id.as_str())
            .is_some_and(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit())),
        "{patch_id:?}"
    );
    assert_eq!(
        commits,
        json!([{"id": changed, "subject": "Change f", "selectors": ["f"]}])
    );
    assert_eq!(hit["properties"]["node"], "dead");
    assert_eq!(spec_region(hit), Some(4));
    // Findings about an entry, with no commit: at the entry's line of spec.md.
    let dead = result_of(&log, "dead-anchor");
    assert_eq!(primary(dead), (".spec/dead/spec.md", Some((5, 5))));
    assert_eq!(dead["properties"]["commits"], json!([]));
    assert_eq!(spec_region(dead), Some(5));
    let gone = result_of(&log, "dead-path");
    assert_eq!(primary(gone), (".spec/dead/spec.md", Some((6, 6))));
    assert_eq!(spec_region(gone), Some(6));
}

/// 2026-01-01T00:00:00Z.
const NEW_YEAR: i64 = 1_767_225_600;
const DAY: i64 = 24 * 60 * 60;

/// Five tips: two with no spec (a month apart), then a burst a second apart: the spec,
/// a hit on `f`, one more commit.
fn burst_repo() -> FixtureRepo {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    let email = "dev@example.org";
    let app = |body: &str| format!("def f():\n    return {body}\n\n\ndef g():\n    return 0\n");
    repo.write("app.py", &app("0")).expect("write");
    repo.commit_at("Add app", email, NEW_YEAR, NEW_YEAR)
        .expect("commit");
    repo.write("app.py", &app("1")).expect("write");
    let later = NEW_YEAR + 30 * DAY;
    repo.commit_at("Change app", email, later, later)
        .expect("commit");
    repo.write(".spec/app/spec.md", "---\ncode:\n  - app.py#f\n---\n")
        .expect("write");
    repo.commit_at("Add the spec", email, later + 1, later + 1)
        .expect("commit");
    repo.write("app.py", &app("2")).expect("write");
    repo.commit_at("Change f", email, later + 2, later + 2)
        .expect("commit");
    repo.write("notes.txt", "more\n").expect("write");
    repo.commit_at("Add notes", email, later + 3, later + 3)
        .expect("commit");
    repo
}

/// The `x` of each point of the first polyline of `class`.
fn xs(html: &str, class: &str) -> Vec<String> {
    let start = format!("<polyline class=\"{class}\" points=\"");
    let from = html.find(&start).expect("the line") + start.len();
    let points = &html[from..from + html[from..].find('"').expect("the end")];
    points
        .split(' ')
        .map(|pair| pair.split(',').next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn the_replay_page_steps_tip_by_tip_and_marks_tips_before_any_spec() {
    let repo = burst_repo();
    let repo_arg = repo.path().display().to_string();
    let run = run(
        repo.path(),
        &["replay", "--repo", &repo_arg, "--html", "out.html"],
    );
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = std::fs::read_to_string(repo.path().join("out.html")).expect("the page");
    // Five tips at an even step from x = 64 + 12 to x = 960 - 24 - 12: 848 / 4 = 212
    // apart, although four of them fall within three seconds.
    let even = ["76.0", "288.0", "500.0", "712.0", "924.0"];
    assert_eq!(xs(&html, "debt-line"), even, "{html}");
    assert_eq!(
        xs(&html, "series s0"),
        even,
        "the findings chart too: {html}"
    );
    // Labelled by date: the span is a month.
    for (i, date) in [
        "2026-01-01",
        "2026-01-31",
        "2026-01-31",
        "2026-01-31",
        "2026-01-31",
    ]
    .iter()
    .enumerate()
    {
        assert!(
            html.contains(&format!("data-tip=\"{i}\">{date}</text>")),
            "tip {i} is labelled {date}: {html}"
        );
    }
    let rows: Vec<&str> = html
        .lines()
        .filter(|l| l.starts_with("<tr id=\"tip-"))
        .collect();
    let badges: Vec<&str> = rows
        .iter()
        .map(|row| {
            let from = row.find("<span class=\"badge").expect("a badge");
            let text = &row[from..];
            &text[text.find('>').expect("a tag") + 1..text.find("</span>").expect("its end")]
        })
        .collect();
    assert_eq!(
        badges,
        ["no spec yet", "no spec yet", "ok", "blocked", "blocked"],
        "{html}"
    );
    assert_eq!(
        html.matches("<rect class=\"band nospec\"").count(),
        2,
        "{html}"
    );
    assert_eq!(
        html.matches("<circle class=\"dot-debt nospec\"").count(),
        2,
        "{html}"
    );
    assert!(html.contains(" · 2 tips before any spec</p>"), "{html}");
}
