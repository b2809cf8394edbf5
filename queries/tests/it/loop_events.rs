//! The developer's loop, one input kind at a time: for each change a long-lived database
//! sees — a new commit, the tip moving backwards, a switch to a branch already judged, a
//! working-tree save, a committed spec edit, a committed `keel.toml` edit, an appended
//! session and an appended decision — which tracked queries re-ran (salsa's `WillExecute`
//! log, `KeelDatabase::take_executed_queries`), and that the warm answer equals a fresh
//! database's.
//!
//! Every query asserted to run 0 times is also shown running when it should (in the cold
//! run or in a companion step of the same test), so a renamed query cannot make an
//! assertion vacuous.
//!
//! `incremental.rs` already covers the demo's new commit, a relint without change, a
//! settings commit whose findings stay the same, the warming threads and a merge; the
//! unit tests in `queries/src/sessions/tests.rs`
//! (`appending_a_decision_reruns_only_the_record_of_its_subject`,
//! `appending_a_session_or_a_commit_does_not_rescan_old_commits`) cover the sessions'
//! re-runs. The sessions tests here add what those leave out: each zero is paired with a
//! cold run where the query ran, and the warm report is held to a fresh database's.

use crate::support::{commit, count, count_named, node_findings, query_name, repo, spec};
use keel_engine::sessions::{Instant, SessionSources, SessionWorld};
use keel_engine::{ChangeEvent, ChangeResult, KeelDatabase, WORKTREE};
use keel_fixtures::FixtureRepo;
use keel_fixtures::sessions::{
    CLAUDE_TRAILER, LEX_NOW, SessionLine, at, decision_line, lines, message, rfc, session_repo,
    write_file,
};
use keel_queries::drift::scoped_change;
use keel_queries::history::{change_index, commit_facts, path_changes, path_renames};
use keel_queries::images::{image_hunks, image_units};
use keel_queries::lineage::{projected_events, tip_lineage};
use keel_queries::lint::{LintReport, lint, settings_image, spec_node};
use keel_queries::sessions::links::{agent_harness, assignment, revert_target, trailer_lines};
use keel_queries::sessions::report::session_record;
use keel_queries::sessions::{SessionsReport, scan_plan, sessions_report};
use keel_queries::window::node_versions;
use std::collections::BTreeMap;
use std::path::Path;

/// `app.py`: `f` (anchored by node `app`), `g` and `h`.
const APP_V1: &str =
    "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n";
/// `lib.py`: `a` (anchored by node `lib`) and `b`.
const LIB_V1: &str = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
/// `util.py`: a bare entry of node `util`.
const UTIL_V1: &str = "LIMIT = 1\n";
/// `other.py`: anchored by no node (until a spec edit anchors `x`).
const OTHER_V1: &str = "def x():\n    return 1\n\n\ndef y():\n    return 2\n";

/// `app.py` with `g` changed (a scoped miss of `app.py#f`), the second commit's.
fn app_v2() -> String {
    APP_V1.replace("return 2", "return 20")
}

/// `app.py` with `f` changed as well (a hit on `app.py#f`).
fn app_v3() -> String {
    app_v2().replace("return 1\n", "return 10\n")
}

/// The spec of node `app`.
fn app_spec() -> String {
    spec(&["app.py#f"], &[])
}

/// A fixture repository judged by one long-lived database.
struct Loop {
    repo: FixtureRepo,
    db: KeelDatabase,
}

impl Loop {
    /// Three commits — everything; `g` changed (a miss for `app`); `a` changed (a hit for
    /// `lib`) — opened and linted cold. Returns the cold report and the cold run's log.
    fn start() -> (Self, LintReport, Vec<String>) {
        let mut repo = repo();
        commit(
            &mut repo,
            &[
                ("app.py", APP_V1),
                ("lib.py", LIB_V1),
                ("util.py", UTIL_V1),
                ("other.py", OTHER_V1),
                (".spec/app/spec.md", &app_spec()),
                (".spec/lib/spec.md", &spec(&["lib.py#a"], &[])),
                (".spec/util/spec.md", &spec(&["util.py"], &[])),
            ],
            "Add the code and its specs",
        );
        commit(&mut repo, &[("app.py", &app_v2())], "Change g");
        commit(
            &mut repo,
            &[("lib.py", &LIB_V1.replace("return 1", "return 10"))],
            "Change a",
        );
        let db = KeelDatabase::open(repo.path()).expect("the fixture opens");
        let cold = lint(&db).expect("the fixture's specs are valid");
        let log = db.take_executed_queries();
        (Self { repo, db }, cold, log)
    }

    /// Applies `event` to the long-lived database and lints it; returns what moved, the
    /// report and the queries that ran.
    fn step(&mut self, event: ChangeEvent) -> (ChangeResult, LintReport, Vec<String>) {
        let changes = self.db.apply_changes(&[event]).expect("the change is read");
        let report = lint(&self.db).expect("the specs stay valid");
        (changes, report, self.db.take_executed_queries())
    }

    /// A fresh database on the same repository, given `event` after opening (the
    /// working tree's event, say), linted.
    fn fresh(&self, event: Option<ChangeEvent>) -> LintReport {
        let mut db = KeelDatabase::open(self.repo.path()).expect("the fixture opens");
        if let Some(event) = event {
            db.apply_changes(&[event]).expect("the change is read");
        }
        lint(&db).expect("the specs stay valid")
    }

    fn git(&self, args: &[&str]) {
        self.repo.git(args).expect("git runs on the fixture");
    }
}

/// Asserts two reports are equal; when they are not, shows the JSON lines only one of
/// them holds, then both reports whole, after `what`.
#[track_caller]
pub(crate) fn assert_same(warm: &LintReport, fresh: &LintReport, what: &str) {
    if warm == fresh {
        return;
    }
    let json = |report: &LintReport| {
        let mut text = serde_json::to_string_pretty(report).expect("a report serializes");
        text.push_str(&format!("\nnodes: {:?}", report.nodes));
        text
    };
    let (warm, fresh) = (json(warm), json(fresh));
    let only = |one: &str, other: &str| -> Vec<String> {
        let lines: std::collections::BTreeSet<&str> = other.lines().collect();
        one.lines()
            .filter(|line| !lines.contains(line))
            .map(str::to_owned)
            .collect()
    };
    panic!(
        "the long-lived database's report differs from a fresh database's: {what}\n\
         only in the long-lived report:\n{}\nonly in the fresh report:\n{}\n\
         long-lived:\n{warm}\nfresh:\n{fresh}",
        only(&warm, &fresh).join("\n"),
        only(&fresh, &warm).join("\n"),
    );
}

/// The commits of node `node`'s `anchor-hit` findings.
pub(crate) fn hit_commits(report: &LintReport, node: &str) -> Vec<String> {
    node_findings(report, node)
        .into_iter()
        .filter(|(code, _, _)| code == "anchor-hit")
        .flat_map(|(_, _, commits)| commits)
        .collect()
}

#[test]
fn a_new_commit_parses_only_its_own_image_and_diffs_only_its_own_pair() {
    let (mut lp, cold, cold_run) = Loop::start();
    assert!(count(&cold_run, image_units) > 1, "{cold_run:?}");
    assert!(count(&cold_run, spec_node) > 0, "{cold_run:?}");
    assert!(hit_commits(&cold, "app").is_empty(), "no hit on f yet");

    let added = commit(&mut lp.repo, &[("app.py", &app_v3())], "Change f");
    let (changes, warm, run) = lp.step(ChangeEvent::TipMoved);
    assert!(changes.tip_moved);

    // The commit introduced one image (app.py's new blob). One parse, and it must be
    // that image (the tip verdict of app.py#f needs it), so no image of an untouched
    // file — lib.py, util.py, other.py, nor app.py's older blobs — was parsed again.
    assert_eq!(count(&run, image_units), 1, "{run:?}");
    assert_eq!(
        count(&run, image_hunks),
        1,
        "app.py's one new pair: {run:?}"
    );
    assert_eq!(count(&run, commit_facts), 1, "one new tree diff: {run:?}");
    assert_eq!(
        count(&run, scoped_change),
        1,
        "one entry judges it: {run:?}"
    );
    assert_eq!(count(&run, spec_node), 0, "no spec changed: {run:?}");
    assert_eq!(
        count(&run, change_index),
        1,
        "a commit was read: the history's change index is rebuilt once: {run:?}"
    );
    // Six lineage paths (app.py, lib.py, util.py and the three spec.md): each one's part
    // of the change index is read again; only app.py's changed, so only its renames and
    // its projection run again (the others are backdated).
    assert_eq!(count(&cold_run, path_changes), 6, "{cold_run:?}");
    assert_eq!(count(&cold_run, projected_events), 6, "{cold_run:?}");
    assert_eq!(count(&run, path_changes), 6, "{run:?}");
    assert_eq!(count(&run, path_renames), 1, "app.py's: {run:?}");
    assert_eq!(count(&run, projected_events), 1, "app.py's: {run:?}");

    assert_eq!(hit_commits(&warm, "app"), vec![added]);
    assert_same(&warm, &lp.fresh(None), "after a new commit");
}

#[test]
fn the_tip_moving_backwards_parses_nothing() {
    let (mut lp, cold, cold_run) = Loop::start();
    assert!(count(&cold_run, image_units) > 0, "{cold_run:?}");
    assert!(count(&cold_run, image_hunks) > 0, "{cold_run:?}");
    assert!(count(&cold_run, change_index) > 0, "{cold_run:?}");

    let added = commit(&mut lp.repo, &[("app.py", &app_v3())], "Change f");
    let (_, ahead, run) = lp.step(ChangeEvent::TipMoved);
    assert_eq!(hit_commits(&ahead, "app"), vec![added]);
    assert_eq!(count(&run, image_units), 1, "the new image: {run:?}");

    lp.git(&["reset", "--quiet", "--hard", "HEAD~1"]);
    let (changes, back, run) = lp.step(ChangeEvent::TipMoved);
    assert!(changes.tip_moved);
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(count(&run, image_hunks), 0, "{run:?}");
    assert!(
        count(&run, tip_lineage) > 0,
        "the old tip's lineages are checked against the grown change index: {run:?}"
    );
    assert_eq!(
        count(&run, change_index),
        0,
        "no commit was read: the change index stands: {run:?}"
    );
    assert_eq!(back, cold, "the old tip's answer again");
    assert_same(&back, &lp.fresh(None), "after git reset --hard HEAD~1");
}

#[test]
fn switching_to_a_branch_already_judged_parses_nothing() {
    let (mut lp, cold, cold_run) = Loop::start();
    assert!(count(&cold_run, image_units) > 0, "{cold_run:?}");
    assert!(count(&cold_run, image_hunks) > 0, "{cold_run:?}");

    // A side branch from the second commit that changes b: judging it the first time
    // parses its image.
    lp.git(&["checkout", "--quiet", "-b", "side", "HEAD~1"]);
    commit(
        &mut lp.repo,
        &[("lib.py", &LIB_V1.replace("return 2", "return 20"))],
        "Change b on side",
    );
    let (_, side, run) = lp.step(ChangeEvent::TipMoved);
    assert_eq!(count(&run, image_units), 1, "side's new lib.py: {run:?}");
    assert_same(&side, &lp.fresh(None), "side, first judged");

    lp.git(&["checkout", "--quiet", "main"]);
    let (changes, main, run) = lp.step(ChangeEvent::TipMoved);
    assert!(changes.tip_moved);
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(count(&run, image_hunks), 0, "{run:?}");
    assert_eq!(main, cold);
    assert_same(&main, &lp.fresh(None), "back on main");

    lp.git(&["checkout", "--quiet", "side"]);
    let (changes, again, run) = lp.step(ChangeEvent::TipMoved);
    assert!(changes.tip_moved);
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(count(&run, image_hunks), 0, "{run:?}");
    assert_eq!(again, side);
    assert_same(&again, &lp.fresh(None), "on side again");
}

#[test]
fn a_working_tree_save_parses_only_the_saved_image() {
    let (mut lp, cold, cold_run) = Loop::start();
    assert!(count(&cold_run, image_units) > 1, "{cold_run:?}");

    lp.repo
        .write("app.py", &app_v3())
        .expect("the working tree is writable");
    let (changes, mut saved, run) = lp.step(ChangeEvent::Worktree);
    let worktree = changes
        .worktree
        .expect("the working tree differs from HEAD");
    assert!(changes.tip_moved);
    assert_eq!(count(&run, image_units), 1, "the saved app.py: {run:?}");
    assert_eq!(
        count(&run, image_hunks),
        1,
        "HEAD's app.py → saved: {run:?}"
    );

    let mut fresh = lp.fresh(Some(ChangeEvent::Worktree));
    assert_same(&saved, &fresh, "the working tree");
    saved.name_commit(&worktree.to_string(), WORKTREE);
    fresh.name_commit(&worktree.to_string(), WORKTREE);
    assert_eq!(saved.tip.as_deref(), Some(WORKTREE));
    assert_eq!(hit_commits(&saved, "app"), vec![WORKTREE.to_owned()]);
    assert_same(&saved, &fresh, "the working tree, named");

    // The same save reported again moves nothing.
    let (changes, again, run) = lp.step(ChangeEvent::Worktree);
    assert!(!changes.tip_moved);
    assert_eq!(changes.worktree, Some(worktree));
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(again.tip, Some(worktree.to_string()));

    // Undoing the edit judges HEAD again, from memory.
    lp.git(&["checkout", "--quiet", "--", "app.py"]);
    let (changes, clean, run) = lp.step(ChangeEvent::Worktree);
    assert_eq!(changes.worktree, None, "a clean working tree is HEAD");
    assert!(changes.tip_moved);
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(clean, cold);
    assert_same(
        &clean,
        &lp.fresh(Some(ChangeEvent::Worktree)),
        "clean again",
    );
}

#[test]
fn a_spec_edit_rereads_that_spec_and_parses_no_code() {
    let (mut lp, cold, cold_run) = Loop::start();
    assert!(count(&cold_run, image_units) > 0, "{cold_run:?}");
    assert!(count(&cold_run, image_hunks) > 0, "{cold_run:?}");
    assert_eq!(count(&cold_run, spec_node), 3, "one per node: {cold_run:?}");
    assert!(
        node_findings(&cold, "app")
            .iter()
            .any(|(code, _, _)| code == "scoped-code-miss"),
        "the change to g is in app's window"
    );

    // A prose edit: a new version of app, the same anchored units.
    commit(
        &mut lp.repo,
        &[(".spec/app/spec.md", &format!("{}More prose.\n", app_spec()))],
        "Describe app further",
    );
    let (_, edited, run) = lp.step(ChangeEvent::TipMoved);
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(count(&run, image_hunks), 0, "{run:?}");
    assert_eq!(count(&run, spec_node), 1, "only app's new spec: {run:?}");
    assert!(
        count(&run, node_versions) >= 1,
        "app's versions are read again: {run:?}"
    );
    assert!(
        node_findings(&edited, "app").is_empty(),
        "app's window now starts at its new version"
    );
    assert_eq!(
        node_findings(&edited, "lib"),
        node_findings(&cold, "lib"),
        "lib is untouched"
    );
    assert_same(&edited, &lp.fresh(None), "after a prose edit");

    // A spec edit that anchors a unit of a file never parsed parses its tip image: the
    // zero above is not for want of a way to parse after a spec edit.
    commit(
        &mut lp.repo,
        &[(".spec/app/spec.md", &spec(&["app.py#f", "other.py#x"], &[]))],
        "Anchor other.x",
    );
    let (_, anchored, run) = lp.step(ChangeEvent::TipMoved);
    assert_eq!(count(&run, image_units), 1, "other.py at the tip: {run:?}");
    assert_eq!(count(&run, spec_node), 1, "{run:?}");
    assert_eq!(anchored.summary.anchors, cold.summary.anchors + 1);
    assert_same(&anchored, &lp.fresh(None), "after anchoring other.x");
}

#[test]
fn a_settings_commit_parses_no_code_and_changes_the_report() {
    let (mut lp, cold, cold_run) = Loop::start();
    assert!(count(&cold_run, image_units) > 0, "{cold_run:?}");
    assert!(count(&cold_run, image_hunks) > 0, "{cold_run:?}");
    let misses = |report: &LintReport| {
        report
            .findings
            .iter()
            .filter(|f| f.code == "scoped-code-miss")
            .count()
    };
    assert_eq!(misses(&cold), 1, "the change to g");

    commit(
        &mut lp.repo,
        &[("keel.toml", "[lint]\nscoped_code_miss = \"ignore\"\n")],
        "Ignore scoped misses",
    );
    let (_, ignored, run) = lp.step(ChangeEvent::TipMoved);
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(count(&run, image_hunks), 0, "{run:?}");
    assert_eq!(count(&run, settings_image), 1, "keel.toml is read: {run:?}");
    assert_eq!(misses(&ignored), 0, "the miss is silenced");
    assert_eq!(ignored.summary.warnings, cold.summary.warnings - 1);
    assert_eq!(hit_commits(&ignored, "lib"), hit_commits(&cold, "lib"));
    assert_same(&ignored, &lp.fresh(None), "with the miss ignored");

    commit(
        &mut lp.repo,
        &[("keel.toml", "[lint]\nscoped_code_miss = \"warn\"\n")],
        "Warn on scoped misses",
    );
    let (_, warned, run) = lp.step(ChangeEvent::TipMoved);
    assert_eq!(count(&run, image_units), 0, "{run:?}");
    assert_eq!(count(&run, settings_image), 1, "{run:?}");
    assert_eq!(misses(&warned), 1, "the miss is back");
    assert_same(&warned, &lp.fresh(None), "with the miss warned");
}

// ---------------------------------------------------------------- sessions

/// A `keel sessions` run kept alive: its folder (holding `sessions.jsonl`,
/// `decisions.jsonl` and the repository `r`), the database and the loaded world.
struct SessionsLoop {
    dir: tempfile::TempDir,
    db: KeelDatabase,
    world: SessionWorld,
}

/// Where the run reads, as `keel sessions --sessions … --decisions … --now LEX_NOW`
/// gives it (the repositories are the sessions' own).
fn session_sources(dir: &Path) -> SessionSources {
    SessionSources {
        sessions: dir.join("sessions.jsonl").into(),
        decisions: Some(dir.join("decisions.jsonl")),
        now: Instant::parse_rfc3339(LEX_NOW).expect("a valid instant"),
        days: 30,
        repos: None,
        trailers: BTreeMap::new(),
    }
}

/// Loads the session files in `dir` into a new database and scans as planned.
fn open_sessions(dir: &Path) -> (KeelDatabase, SessionWorld) {
    let mut db = KeelDatabase::detached();
    let world = db
        .apply_changes(&[ChangeEvent::SessionsFrom(Box::new(session_sources(dir)))])
        .expect("the session files are valid")
        .sessions_loaded
        .expect("a loaded world");
    let plan = scan_plan(&db, world);
    db.apply_changes(&[ChangeEvent::ScanPlanned(plan)])
        .expect("the repository scans");
    (db, world)
}

fn write_sessions(dir: &Path, sessions: &[SessionLine], decisions: &[String]) {
    let text: String = sessions.iter().map(|s| format!("{}\n", s.json())).collect();
    write_file(&dir.join("sessions.jsonl"), &text).expect("sessions.jsonl is writable");
    let text: String = decisions.iter().map(|d| format!("{d}\n")).collect();
    write_file(&dir.join("decisions.jsonl"), &text).expect("decisions.jsonl is writable");
}

impl SessionsLoop {
    /// Repository `r`: a Claude-trailer commit at 10:10, local commits at 12:30 and 14:10;
    /// sessions `s1` (claude-code 10:00–11:00) and `s2` (codex 14:00–15:00), no decision.
    /// Returns the loop, its cold report and log, the 12:30 commit and the sessions.
    fn start() -> (Self, SessionsReport, Vec<String>, String, Vec<SessionLine>) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut repo = session_repo(dir.path(), "r").expect("the repository builds");
        let at_commit = |repo: &mut FixtureRepo, file: &str, trailer, time| {
            repo.write(file, &lines(file, 3)).expect("writable");
            repo.commit_at(
                &message(file, trailer),
                keel_fixtures::FIXTURE_EMAIL,
                time,
                time,
            )
            .expect("git commits")
        };
        at_commit(&mut repo, "a.txt", Some(CLAUDE_TRAILER), at(10, 10));
        let noon = at_commit(&mut repo, "b.txt", None, at(12, 30));
        at_commit(&mut repo, "c.txt", None, at(14, 10));
        let path = repo.path().canonicalize().expect("the repository exists");
        let sessions = vec![
            SessionLine::new("s1", "claude-code", &rfc(10, 0), &rfc(11, 0), Some(&path)),
            SessionLine::new("s2", "codex", &rfc(14, 0), &rfc(15, 0), Some(&path)),
        ];
        write_sessions(dir.path(), &sessions, &[]);
        let (db, world) = open_sessions(dir.path());
        let lp = Self { dir, db, world };
        let report = lp.report();
        let log = lp.db.take_executed_queries();
        // The repository folder lives inside `dir`; `repo` only built it.
        drop(repo);
        (lp, report, log, noon, sessions)
    }

    fn report(&self) -> SessionsReport {
        sessions_report(&self.db, self.world)
            .clone()
            .expect("a sessions report")
    }

    /// Applies `event`, rescans as planned, and reports; returns the report and the
    /// queries that ran.
    fn step(&mut self, event: ChangeEvent) -> (SessionsReport, Vec<String>) {
        self.db
            .apply_changes(&[event])
            .expect("the session files are valid");
        let plan = scan_plan(&self.db, self.world);
        self.db
            .apply_changes(&[ChangeEvent::ScanPlanned(plan)])
            .expect("the repository scans");
        let report = self.report();
        (report, self.db.take_executed_queries())
    }

    /// A fresh database's report on the same files.
    fn fresh(&self) -> SessionsReport {
        let (db, world) = open_sessions(self.dir.path());
        sessions_report(&db, world)
            .clone()
            .expect("a sessions report")
    }
}

/// The names of the queries computed once per scanned commit.
fn per_commit() -> [&'static str; 3] {
    [
        query_name(agent_harness),
        query_name(trailer_lines),
        query_name(revert_target),
    ]
}

#[test]
fn an_appended_session_reads_no_commit_again() {
    let (mut lp, cold, cold_run, noon, mut sessions) = SessionsLoop::start();
    for query in per_commit() {
        assert!(count_named(&cold_run, query) > 0, "{query}: {cold_run:?}");
    }
    assert!(count(&cold_run, session_record) > 0, "{cold_run:?}");
    assert_eq!(cold.summary.sessions_total, 2);

    let path = lp.dir.path().join("r").canonicalize().expect("exists");
    sessions.push(SessionLine::new(
        "s3",
        "codex",
        &rfc(12, 0),
        &rfc(13, 0),
        Some(&path),
    ));
    write_sessions(lp.dir.path(), &sessions, &[]);
    let (warm, run) = lp.step(ChangeEvent::SessionsAppended);
    for query in per_commit() {
        assert_eq!(count_named(&run, query), 0, "{query}: {run:?}");
    }
    assert_eq!(
        count(&run, session_record),
        1,
        "s3's record only; s1's and s2's are reused: {run:?}"
    );
    assert_eq!(warm.summary.sessions_total, 3);
    let s3 = warm.pending.iter().find(|p| p.session_id == "s3");
    assert_eq!(
        s3.map(|p| p.commits.clone()),
        Some(vec![noon]),
        "s3 claims the 12:30 commit by its window"
    );
    assert_eq!(warm, lp.fresh(), "warm equals a fresh database's report");
}

#[test]
fn an_appended_decision_reruns_only_its_subjects_record() {
    let (mut lp, cold, cold_run, _, sessions) = SessionsLoop::start();
    assert!(count(&cold_run, assignment) > 0, "{cold_run:?}");
    assert!(count(&cold_run, session_record) > 1, "{cold_run:?}");
    for query in per_commit() {
        assert!(count_named(&cold_run, query) > 0, "{query}: {cold_run:?}");
    }
    let pending = cold
        .pending
        .iter()
        .find(|p| p.session_id == "s2")
        .expect("s2's window link waits for a decision");

    let line = decision_line("2026-01-15T20:00:00Z", &pending.subject, "0.9");
    write_sessions(lp.dir.path(), &sessions, &[line]);
    let (warm, run) = lp.step(ChangeEvent::DecisionsAppended);
    assert_eq!(count(&run, session_record), 1, "s2's record: {run:?}");
    assert_eq!(count(&run, assignment), 0, "{run:?}");
    for query in per_commit() {
        assert_eq!(count_named(&run, query), 0, "{query}: {run:?}");
    }
    let s2 = warm.records.iter().find(|r| r.session_id == "s2");
    assert_eq!(s2.and_then(|r| r.link_p), Some(0.9));
    assert!(warm.pending.iter().all(|p| p.session_id != "s2"));
    assert_eq!(warm, lp.fresh(), "warm equals a fresh database's report");
}
