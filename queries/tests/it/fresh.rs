//! `keel fresh` end to end on built repositories: the positive control first, then every
//! verdict of the fresh scenario (`keel_fixtures::fresh`), acknowledgements that never
//! vindicate a reading, the existence scan's early stop measured by parse counters (with a
//! fresh reading's full scan beside it, so the comparison cannot be vacuous), and the
//! refusals of entries a reading cannot use.

use crate::support::{commit, count, lint_repo, node_findings, repo};
use keel_engine::readings::Readings;
use keel_engine::{ChangeEvent, EngineError, KeelDatabase};
use keel_fixtures::FixtureRepo;
use keel_fixtures::fresh::{FreshScenario, build_fresh};
use keel_queries::fresh::{FreshError, FreshReport, Stale, StaleKind, fresh, fresh_json};
use keel_queries::images::image_units;

/// Judges `readings` (the text of a readings file) at HEAD of `repo`, on a new database;
/// also returns the queries the judgement executed.
fn judge(repo: &FixtureRepo, readings: &str) -> (Result<FreshReport, FreshError>, Vec<String>) {
    let mut db = KeelDatabase::open(repo.path()).expect("fixture repository opens");
    let (read, _file) = read_readings(&mut db, readings);
    let readings = read.expect("the readings file is well-formed");
    db.take_executed_queries();
    let report = fresh(&db, readings, None);
    (report, db.take_executed_queries())
}

/// Reads `text` as a readings file (written to a temporary folder) into `db` through
/// the one door; also returns the folder, which holds the file as long as it lives.
fn read_readings(
    db: &mut KeelDatabase,
    text: &str,
) -> (Result<Readings, EngineError>, tempfile::TempDir) {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("readings.jsonl");
    std::fs::write(&path, text).expect("the readings file is writable");
    let read = db
        .apply_changes(&[ChangeEvent::ReadingsFrom(path)])
        .map(|read| read.readings.expect("a read made the readings input"));
    (read, folder)
}

fn scenario() -> (FixtureRepo, FreshScenario) {
    let mut repo = repo();
    let scenario = build_fresh(&mut repo).expect("the fresh scenario builds");
    (repo, scenario)
}

/// The verdict of reading `id`.
fn verdict<'a>(report: &'a FreshReport, id: &str) -> Option<&'a Stale> {
    report
        .readings
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("reading {id} is reported"))
        .stale
        .as_ref()
}

/// `(kind, commit, selector)` of a stale reading.
fn stale(report: &FreshReport, id: &str) -> (StaleKind, Option<String>, Option<String>) {
    let stale = verdict(report, id).unwrap_or_else(|| panic!("{id} should be stale"));
    (stale.kind, stale.commit.clone(), stale.selector.clone())
}

fn hit(commit: &str, selector: &str) -> (StaleKind, Option<String>, Option<String>) {
    (
        StaleKind::Hit,
        Some(commit.to_owned()),
        Some(selector.to_owned()),
    )
}

#[test]
fn a_known_hit_stales_its_reading_and_a_known_miss_does_not() {
    let (repo, scenario) = scenario();
    let (report, _) = judge(&repo, &scenario.readings());
    let report = report.expect("the readings judge");
    assert_eq!(
        stale(&report, "control"),
        hit(&scenario.change_g, "app.py#g"),
        "the control hit is missing: no other verdict means anything"
    );
    assert_eq!(verdict(&report, "other-unit"), None);
}

#[test]
fn every_rule_of_the_scenario_gives_its_verdict() {
    let (repo, s) = scenario();
    let (report, _) = judge(&repo, &s.readings());
    let report = report.expect("the readings judge");
    assert_eq!(report.tip.as_deref(), Some(s.change_f.as_str()));
    // Commits that changed other units of the same file leave a reading fresh; so does
    // an empty window, and a pure rename.
    for id in ["other-unit", "at-tip", "rename-only"] {
        assert_eq!(verdict(&report, id), None, "{id} is fresh");
    }
    // The file moved to lib/ and then `parse` changed: the lineage follows the rename.
    assert_eq!(
        stale(&report, "renamed-then-edited"),
        hit(&s.change_parse, "lib/util.py#parse")
    );
    // `fmt` changed under the old path, before the move.
    assert_eq!(
        stale(&report, "edited-then-renamed"),
        hit(&s.change_fmt, "lib/util.py#fmt")
    );
    let reason = &verdict(&report, "edited-then-renamed")
        .expect("stale")
        .reason;
    assert_eq!(
        reason,
        &format!(
            "lib/util.py#fmt changed in {} Change fmt (as util.py)",
            &s.change_fmt[..12]
        )
    );
    assert_eq!(stale(&report, "acked"), hit(&s.change_f, "app.py#f"));
    assert_eq!(
        stale(&report, "dead-selector"),
        (StaleKind::Unresolved, None, Some("app.py#gone".to_owned()))
    );
    assert_eq!(
        verdict(&report, "dead-selector").expect("stale").reason,
        "app.py#gone is dead: app.py has no unit gone at the tip (deleted or renamed)"
    );
    assert_eq!(
        stale(&report, "old-path"),
        (
            StaleKind::Unresolved,
            None,
            Some("util.py#parse".to_owned())
        )
    );
    assert_eq!(
        stale(&report, "whole-file"),
        hit(&s.change_parse, "lib/util.py")
    );
    assert_eq!(
        stale(&report, "side-branch"),
        (StaleKind::NotAncestor, None, None)
    );
    assert_eq!(report.stale(), 8);
    let json = fresh_json(&report).to_text();
    assert!(
        json.ends_with(r#""summary":{"fresh":3,"stale":8}}"#),
        "{json}"
    );
}

#[test]
fn an_acknowledgement_never_vindicates_a_reading() {
    let (repo, s) = scenario();
    // Lint leaves the acknowledged commit out of node `app`'s window: no hit on `f`...
    let lint = lint_repo(&repo);
    let app: Vec<String> = node_findings(&lint, "app")
        .into_iter()
        .map(|(code, _, _)| code)
        .collect();
    assert!(!app.contains(&"anchor-hit".to_owned()), "{app:?}");
    // ...and the same commit stales a reading of `f`.
    let (report, _) = judge(&repo, &s.readings());
    assert_eq!(
        stale(&report.expect("the readings judge"), "acked"),
        hit(&s.change_f, "app.py#f")
    );
}

/// `app.py` with `f`, `g` and `h`; `g` returns `n`, `f` adds `k`.
fn app(n: u32, k: u32) -> String {
    format!(
        "def f(x):\n    return x + {k}\n\n\ndef g():\n    return {n}\n\n\ndef h():\n    return 0\n"
    )
}

#[test]
fn the_existence_scan_stops_at_the_first_hit_and_scans_a_fresh_window_whole() {
    // Nine commits after the reading: eight change `g`, then the newest changes `f`.
    let mut repo = repo();
    let first = commit(&mut repo, &[("app.py", &app(0, 1))], "Add app");
    for n in 1..=8 {
        commit(
            &mut repo,
            &[("app.py", &app(n, 1))],
            &format!("g returns {n}"),
        );
    }
    let newest = commit(&mut repo, &[("app.py", &app(8, 2))], "Change f");
    let reading = |id: &str, selector: &str| {
        format!(
            "{{\"id\": \"{id}\", \"commit\": \"{first}\", \"code\": [\"app.py#{selector}\"]}}\n"
        )
    };

    // Positive control: the full scan of a fresh reading over the same window parses every
    // image of the file's ten versions, in four rounds (1 + 2 + 4 + 2 of its 9 commits).
    let (full, log) = judge(&repo, &reading("fresh-h", "h"));
    let full = full.expect("the reading judges");
    assert_eq!(verdict(&full, "fresh-h"), None);
    assert_eq!((full.rounds, full.judged), (4, 9));
    let full_parsed = count(&log, image_units);
    assert_eq!(full_parsed, 10, "the whole window's images: {log:?}");

    // The reading hit by the newest commit settles in the first round, after parsing only
    // that commit's two images (the newer one is the tip's).
    let (early, log) = judge(&repo, &reading("hit-f", "f"));
    let early = early.expect("the reading judges");
    assert_eq!(stale(&early, "hit-f"), hit(&newest, "app.py#f"));
    assert_eq!((early.rounds, early.judged), (1, 1));
    let early_parsed = count(&log, image_units);
    assert_eq!(early_parsed, 2, "{log:?}");
    assert!(early_parsed < full_parsed);

    // Together, in one run: each reading's scan is its own, and the rounds are the
    // deepest one's, not one per reading.
    let both = format!("{}{}", reading("hit-f", "f"), reading("fresh-h", "h"));
    let (together, log) = judge(&repo, &both);
    let together = together.expect("the readings judge");
    assert_eq!(together.rounds, 4);
    assert_eq!(together.judged, 10);
    assert_eq!(count(&log, image_units), 10);
}

#[test]
fn many_readings_hit_by_the_newest_commit_take_one_round() {
    let mut repo = repo();
    let first = commit(&mut repo, &[("app.py", &app(0, 1))], "Add app");
    for n in 1..=4 {
        commit(
            &mut repo,
            &[("app.py", &app(n, 1))],
            &format!("g returns {n}"),
        );
    }
    commit(&mut repo, &[("app.py", &app(4, 2))], "Change f");
    let readings: String = (0..20)
        .map(|i| {
            format!("{{\"id\": \"r{i}\", \"commit\": \"{first}\", \"code\": [\"app.py#f\"]}}\n")
        })
        .collect();
    let (report, _) = judge(&repo, &readings);
    let report = report.expect("the readings judge");
    assert_eq!(report.stale(), 20);
    assert_eq!((report.rounds, report.judged), (1, 20));
}

#[test]
fn entries_a_reading_cannot_use_are_refused_naming_line_and_entry() {
    let (repo, s) = scenario();
    let refusal = |code: &str| {
        let text = format!(
            "{{\"id\": \"ok\", \"commit\": \"{}\", \"code\": [\"app.py#f\"]}}\n\n{{\"id\": \"bad\", \"commit\": \"{}\", \"code\": {code}}}\n",
            s.added, s.added
        );
        let err = match judge(&repo, &text).0 {
            Err(err @ FreshError::Entry { .. }) => err.to_string(),
            other => panic!("{code} must be refused: {other:?}"),
        };
        // The file is named as given: its temporary folder, then `readings.jsonl`.
        let (folder, named) = err.split_once("/readings.jsonl:").expect("names the file");
        assert!(
            !folder.contains(": "),
            "the message starts with the file: {err}"
        );
        format!("readings.jsonl:{named}")
    };
    let err = refusal(r#"["app.py#f", "*.py"]"#);
    assert!(
        err.starts_with("readings.jsonl:3: code[1]: `*.py` is a glob; a reading measures files and units; repair: "),
        "{err}"
    );
    let err = refusal(r#"["lib/"]"#);
    assert!(
        err.starts_with("readings.jsonl:3: code[0]: `lib/` is a folder"),
        "{err}"
    );
    let err = refusal(r#"["app.py#f,f"]"#);
    assert!(
        err.starts_with("readings.jsonl:3: code[0]: selector `f` is listed twice"),
        "{err}"
    );
    let err = refusal(r#"["app.py", "app.py#f"]"#);
    assert!(
        err.starts_with(
            "readings.jsonl:3: code[1]: `app.py` is listed both bare and with selectors"
        ),
        "{err}"
    );
    let err = refusal(r#"["../app.py"]"#);
    assert!(err.contains("is outside the repository"), "{err}");
}

#[test]
fn an_unknown_commit_is_refused_naming_its_line() {
    let (repo, _) = scenario();
    let mut db = KeelDatabase::open(repo.path()).expect("fixture repository opens");
    let text = "\n{\"id\": \"a\", \"commit\": \"0123456789abcdef0123456789abcdef01234567\", \"code\": [\"app.py\"]}\n";
    let (read, folder) = read_readings(&mut db, text);
    let err = read.expect_err("no such commit").to_string();
    let file = folder.path().join("readings.jsonl");
    assert!(
        err.starts_with(&format!("{}:2: commit: 0123456789abcdef0123456789abcdef01234567 names no commit in this repository", file.display())),
        "{err}"
    );
}

#[test]
fn a_window_past_a_shallow_boundary_is_stale_and_one_inside_it_is_judged() {
    // main: Add app, g returns 1, Merge side; side (from Add app): Side work.
    let mut repo = repo();
    commit(&mut repo, &[("app.py", &app(0, 1))], "Add app");
    repo.git(&["checkout", "--quiet", "-b", "side"])
        .expect("branch");
    commit(&mut repo, &[("side.py", "x = 1\n")], "Side work");
    repo.git(&["checkout", "--quiet", "main"])
        .expect("checkout");
    let main = commit(&mut repo, &[("app.py", &app(1, 1))], "g returns 1");
    repo.git(&["merge", "--quiet", "--no-ff", "-m", "Merge side", "side"])
        .expect("merge");
    let merge = repo.git(&["rev-parse", "HEAD"]).expect("rev-parse");
    // Two levels deep: the merge and both its parents, which are the shallow boundary.
    let clone_root = tempfile::tempdir().expect("a temporary folder");
    let clone = clone_root.path().join("clone");
    let source = format!("file://{}", repo.path().display());
    let output = keel_fixtures::pinned_git(clone_root.path())
        .args(["clone", "-q", "--depth", "2", &source, "clone"])
        .output()
        .expect("git runs");
    assert!(output.status.success(), "{output:?}");
    let mut db = KeelDatabase::open(&clone).expect("the clone opens");
    let text = format!(
        "{{\"id\": \"past\", \"commit\": \"{main}\", \"code\": [\"app.py#f\"]}}\n{{\"id\": \"inside\", \"commit\": \"{}\", \"code\": [\"app.py#f\"]}}\n",
        merge.trim()
    );
    let (read, _file) = read_readings(&mut db, &text);
    let readings = read.expect("both commits are in the clone");
    let report = fresh(&db, readings, None).expect("the readings judge");
    // From `g returns 1`, the window holds `Side work`, whose history the clone cut off.
    assert_eq!(stale(&report, "past"), (StaleKind::Shallow, None, None));
    assert!(
        verdict(&report, "past")
            .expect("stale")
            .reason
            .contains("git fetch --unshallow")
    );
    // At the merge itself the window is empty, though the merge's parents are shallow.
    assert_eq!(verdict(&report, "inside"), None);
}
