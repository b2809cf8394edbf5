//! One test per rule of `seeds/impact-specs.txt` (and per reading of
//! `notes/impact-rules.md`), each on built repositories, each with a case that fails when
//! the rule is dropped or misread; then the worked example L-ex and incrementality.
//! Expected values are written by hand from the rules.

use super::*;
use keel_engine::sessions::{ExplicitRepos, Instant, SessionSources, SessionWorld};
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::query_log::{count, count_named, query_name};
use keel_fixtures::sessions::{
    CLAUDE_TRAILER, CODEX_TRAILER, LEX_NOW, Lex, OTHER_EMAIL, SessionLine, at, decision_line,
    lines, message, rfc, session_repo, write_file,
};
use keel_fixtures::{FIXTURE_EMAIL, FixtureRepo};
use links::{agent_harness, assignment, revert_target, trailer_lines};
use report::session_record;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

struct Run {
    db: KeelDatabase,
    world: SessionWorld,
}

fn sources(dir: &Path, explicit: Option<Vec<PathBuf>>) -> SessionSources {
    SessionSources {
        sessions: dir.join("sessions.jsonl").into(),
        decisions: Some(dir.join("decisions.jsonl")),
        now: Instant::parse_rfc3339(LEX_NOW).expect("valid"),
        days: 30,
        repos: explicit.map(|paths| ExplicitRepos {
            origin: "--repo".to_owned(),
            paths,
        }),
        trailers: BTreeMap::new(),
    }
}

fn write_inputs(dir: &Path, sessions: &[SessionLine], decisions: &[String]) {
    let text: String = sessions.iter().map(|s| format!("{}\n", s.json())).collect();
    write_file(&dir.join("sessions.jsonl"), &text).expect("write sessions");
    let text: String = decisions.iter().map(|d| format!("{d}\n")).collect();
    write_file(&dir.join("decisions.jsonl"), &text).expect("write decisions");
}

fn run_with(dir: &Path, sources: SessionSources) -> Run {
    let mut db = KeelDatabase::detached();
    let world = db
        .apply_changes(&[ChangeEvent::SessionsFrom(Box::new(sources))])
        .expect("load")
        .sessions_loaded
        .expect("a loaded world");
    let plan = scan_plan(&db, world);
    db.apply_changes(&[ChangeEvent::ScanPlanned(plan)])
        .expect("scan");
    let _ = dir;
    Run { db, world }
}

fn run(
    dir: &Path,
    sessions: &[SessionLine],
    decisions: &[String],
    explicit: Option<Vec<PathBuf>>,
) -> Run {
    write_inputs(dir, sessions, decisions);
    run_with(dir, sources(dir, explicit))
}

impl Run {
    fn report(&self) -> SessionsReport {
        sessions_report(&self.db, self.world)
            .clone()
            .expect("a report")
    }

    /// Re-reads what changed and rescans per the (possibly new) plan.
    fn refresh(&mut self, events: &[keel_engine::ChangeEvent]) {
        self.db.apply_changes(events).expect("apply");
        let plan = scan_plan(&self.db, self.world);
        self.db
            .apply_changes(&[ChangeEvent::ScanPlanned(plan)])
            .expect("scan");
    }
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn real(path: &Path) -> PathBuf {
    path.canonicalize().expect("exists")
}

/// Commits `file` with `n` lines at `time` (author = committer date).
fn commit(
    repo: &mut FixtureRepo,
    file: &str,
    n: usize,
    trailer: Option<&str>,
    email: &str,
    time: i64,
) -> String {
    repo.write(file, &lines(file, n)).expect("write");
    repo.commit_at(&message(file, trailer), email, time, time)
        .expect("commit")
}

fn record<'r>(report: &'r SessionsReport, session: &str) -> Option<&'r Record> {
    report.records.iter().find(|r| r.session_id == session)
}

fn sorted(mut shas: Vec<String>) -> Vec<String> {
    shas.sort();
    shas
}

/// L-subject by hand: `<id>:` + sha256 of the sorted shas joined by commas, 8 hex.
fn hand_subject(id: &str, shas: &[&str]) -> String {
    let mut shas: Vec<&str> = shas.to_vec();
    shas.sort_unstable();
    let digest = Sha256::digest(shas.join(",").as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{id}:{hex}")
}

fn claude(id: &str, start: (i64, i64), end: (i64, i64), repo: Option<&Path>) -> SessionLine {
    SessionLine::new(
        id,
        "claude-code",
        &rfc(start.0, start.1),
        &rfc(end.0, end.1),
        repo,
    )
}

// ---------------------------------------------------------------- L-ex

fn lex_run(decisions: &[String]) -> (Lex, Run) {
    let lex = Lex::build().expect("L-ex builds");
    let text: String = decisions.iter().map(|d| format!("{d}\n")).collect();
    write_file(&lex.dir.path().join("decisions.jsonl"), &text).expect("write decisions");
    let run = run_with(lex.dir.path(), sources(lex.dir.path(), None));
    (lex, run)
}

#[test]
fn lex_pass_1_without_decisions() {
    let (lex, run) = lex_run(&[]);
    let report = run.report();
    let [c1, c2, _c3, c4, _c5, _c6] = &lex.commits;
    let a = record(&report, "a").expect("a is linked");
    assert_eq!((a.link, a.link_p), ("trailer", Some(1.0)));
    assert_eq!(a.commits, sorted(vec![c1.clone(), c2.clone()]));
    assert_eq!((a.added, a.commits_kept, a.commits_reverted), (15, 1, 1));
    assert_eq!(a.cost, Some(2.0));
    let b = record(&report, "b").expect("b has a window record");
    assert_eq!((b.link, b.link_p), ("window", None));
    assert_eq!(b.commits, vec![c4.clone()]);
    assert!(record(&report, "c").is_none());
    assert_eq!(report.pending.len(), 1);
    assert_eq!(report.pending[0].subject, hand_subject("b", &[c4]));
    let s = &report.summary;
    assert_eq!(
        (s.sessions_total, s.linked, s.unlinked_cost),
        (3, 1, Some(1.5))
    );
    let lex_group = &s.by_repo["lex"];
    assert_eq!(lex_group.cost, Some(2.0));
    assert_eq!(lex_group.lines_added, 10);
    assert_eq!(lex_group.cost_per_kept_commit, Some(2.0));
    assert_eq!(lex_group.cost_per_100_lines, Some(20.0));
    assert_eq!(lex_group.revert_rate, Some(0.5));
    assert_eq!(s.by_repo.len(), 1);
    assert_eq!(s.by_harness.keys().collect::<Vec<_>>(), vec!["claude-code"]);
}

#[test]
fn lex_pass_2_with_b_decided_yes_0_8() {
    let lex = Lex::build().expect("L-ex builds");
    let subject = hand_subject("b", &[&lex.commits[3]]);
    drop(lex);
    let (lex, run) = lex_run(&[decision_line("2026-01-15T23:00:00Z", &subject, "0.8")]);
    assert_eq!(
        hand_subject("b", &[&lex.commits[3]]),
        subject,
        "fixtures are pinned"
    );
    let report = run.report();
    let b = record(&report, "b").expect("b is linked");
    assert_eq!((b.link, b.link_p, b.cost), ("window", Some(0.8), Some(1.0)));
    assert!(report.pending.is_empty());
    let s = &report.summary;
    assert_eq!((s.linked, s.unlinked_cost), (2, Some(0.5)));
    assert_eq!(
        (s.by_repo["lex"].cost, s.by_repo["lex"].lines_added),
        (Some(3.0), 17)
    );
    assert_eq!(s.by_harness["codex"].cost, Some(1.0));
    assert_eq!(s.by_harness["claude-code"].cost, Some(2.0));
}

#[test]
fn lex_pass_3_with_b_decided_yes_0_3_drops_b() {
    let lex = Lex::build().expect("L-ex builds");
    let subject = hand_subject("b", &[&lex.commits[3]]);
    drop(lex);
    let (_lex, run) = lex_run(&[decision_line("2026-01-15T23:00:00Z", &subject, "0.3")]);
    let report = run.report();
    assert!(record(&report, "b").is_none(), "b is dropped");
    assert!(report.pending.is_empty());
    let s = &report.summary;
    assert_eq!((s.linked, s.unlinked_cost), (1, Some(1.5)));
    assert_eq!(s.by_repo["lex"].cost, Some(2.0));
}

// ---------------------------------------------------------------- L-repo

#[test]
fn l_repo_membership_by_real_path_or_null_repo_with_project() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "app").expect("repo");
    let path = real(repo.path());
    let c = commit(
        &mut repo,
        "x",
        2,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 30),
    );
    std::os::unix::fs::symlink(&path, dir.path().join("link")).expect("symlink");
    let via_link = dir.path().join("link");
    let sessions = [
        claude("by-link", (10, 0), (11, 0), Some(&via_link)),
        claude("by-project", (12, 0), (13, 0), None).project("app"),
        claude("other-project", (14, 0), (15, 0), None).project("web"),
    ];
    let c2 = commit(
        &mut repo,
        "y",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(12, 30),
    );
    let c3 = commit(
        &mut repo,
        "z",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(14, 30),
    );
    let report = run(dir.path(), &sessions, &[], Some(vec![path])).report();
    assert_eq!(
        record(&report, "by-link").map(|r| r.commits.clone()),
        Some(vec![c])
    );
    let by_project = record(&report, "by-project").expect("project == basename(R)");
    assert_eq!(by_project.commits, vec![c2]);
    assert_eq!(by_project.link_p, Some(1.0), "a member, not an outsider");
    let other = record(&report, "other-project").expect("L-outside with explicit repos");
    assert_eq!((other.commits.clone(), other.link_p), (vec![c3], Some(0.9)));
    assert_eq!(other.repo_label, "app");
}

// ---------------------------------------------------------------- L-outside

#[test]
fn l_outside_only_with_explicit_repos_and_only_for_trailer_commits() {
    let dir = temp();
    let parent = dir.path().join("projects");
    let mut repo = session_repo(&parent, "v002").expect("repo");
    let path = real(repo.path());
    let t = commit(
        &mut repo,
        "t",
        3,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 30),
    );
    let _w = commit(&mut repo, "w", 2, None, FIXTURE_EMAIL, at(10, 40));
    let sessions = [claude("s", (10, 0), (11, 0), Some(&real(&parent)))];
    let report = run(dir.path(), &sessions, &[], Some(vec![path.clone()])).report();
    let s = record(&report, "s").expect("a parent-dir session links by trailer");
    assert_eq!(
        s.commits,
        vec![t],
        "the window commit never goes to an outsider"
    );
    assert_eq!((s.link, s.link_p), ("trailer", Some(0.9)));
    assert!(report.pending.is_empty());
    // Without explicit repos the same session is unlinked, although the repository is
    // scanned (a member session names it).
    let dir2 = temp();
    let sessions = [
        claude("s", (10, 0), (11, 0), Some(&real(&parent))),
        SessionLine::new("m", "codex", &rfc(20, 0), &rfc(20, 10), Some(&path)),
    ];
    let report = run(dir2.path(), &sessions, &[], None).report();
    assert!(report.records.is_empty(), "{report:?}");
    // A string prefix is not a parent folder: `.../v00` is not a parent of `.../v002`.
    let dir3 = temp();
    let not_parent = parent.join("v00");
    let sessions = [claude("s", (10, 0), (11, 0), Some(&not_parent))];
    let report = run(dir3.path(), &sessions, &[], Some(vec![path])).report();
    assert!(report.records.is_empty(), "{report:?}");
}

// ---------------------------------------------------------------- L-window

#[test]
fn l_window_is_inclusive_from_start_minus_5_to_end_plus_30() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    let first = commit(
        &mut repo,
        "a",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(9, 55),
    );
    let last = commit(
        &mut repo,
        "b",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(11, 30),
    );
    let _late = commit(
        &mut repo,
        "c",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(11, 30) + 1,
    );
    let _early = commit(
        &mut repo,
        "d",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(9, 55) - 1,
    );
    let sessions = [
        claude("s", (10, 0), (11, 0), Some(&path)),
        // Moves the scan start early enough that the 09:54:59 commit is scanned.
        SessionLine::new("early", "none", &rfc(9, 0), &rfc(9, 1), Some(&path)),
    ];
    let report = run(dir.path(), &sessions, &[], None).report();
    assert_eq!(
        record(&report, "s").expect("linked").commits,
        sorted(vec![first, last])
    );
}

// ---------------------------------------------------------------- L-trailer

#[test]
fn l_trailer_links_only_the_same_harness_and_only_trailer_commits() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    let claude_commit = commit(
        &mut repo,
        "a",
        2,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 30),
    );
    // A local commit without trailer inside a's window: a has a trailer link, so not a's.
    let _plain = commit(&mut repo, "b", 2, None, FIXTURE_EMAIL, at(10, 40));
    // A Claude trailer commit inside only the codex session's window: no window record.
    let _outside = commit(
        &mut repo,
        "c",
        2,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(14, 10),
    );
    let sessions = [
        claude("a", (10, 0), (11, 0), Some(&path)),
        // Fewer calls than a: without the rule, a would win the plain commit.
        SessionLine::new("x", "codex", &rfc(10, 0), &rfc(11, 0), Some(&path)).calls(10),
        SessionLine::new("b", "codex", &rfc(14, 0), &rfc(14, 30), Some(&path)),
    ];
    let report = run(dir.path(), &sessions, &[], None).report();
    let a = record(&report, "a").expect("a linked");
    assert_eq!(a.commits, vec![claude_commit], "only its trailer commits");
    let x = record(&report, "x").expect("x gets the plain local commit by window");
    assert_eq!(x.link, "window");
    assert!(
        record(&report, "b").is_none(),
        "a trailer commit is never a window candidate"
    );
}

#[test]
fn l_trailer_first_matching_line_names_the_harness_and_only_the_last_paragraph_counts() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    repo.write("a", "a\n").expect("write");
    let both = repo
        .commit_at(
            &format!("both\n\nbody\n\n{CODEX_TRAILER}\n{CLAUDE_TRAILER}\n"),
            FIXTURE_EMAIL,
            at(10, 30),
            at(10, 30),
        )
        .expect("commit");
    repo.write("b", "b\n").expect("write");
    let middle = repo
        .commit_at(
            &format!("middle\n\n{CLAUDE_TRAILER}\n\nNot a trailer block.\n"),
            FIXTURE_EMAIL,
            at(10, 40),
            at(10, 40),
        )
        .expect("commit");
    let sessions = [
        claude("claude", (10, 0), (11, 0), Some(&path)),
        SessionLine::new("codex", "codex", &rfc(10, 0), &rfc(11, 0), Some(&path)),
    ];
    let report = run(dir.path(), &sessions, &[], None).report();
    assert_eq!(record(&report, "codex").expect("codex").commits, vec![both]);
    let claude = record(&report, "claude").expect("the middle commit is a window candidate");
    assert_eq!(
        (claude.link, claude.link_p, claude.commits.clone()),
        ("window", None, vec![middle]),
        "a Co-authored-by line in a middle paragraph is prose, not a trailer"
    );
}

// ---------------------------------------------------------------- L-assign

/// One Claude trailer commit at 10:30 and two sessions; returns the winner's id.
fn winner(a: SessionLine, b: SessionLine) -> String {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    commit(
        &mut repo,
        "x",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 30),
    );
    let with_repo = |mut s: SessionLine| {
        s.repo = Some(path.clone());
        s
    };
    let report = run(dir.path(), &[with_repo(a), with_repo(b)], &[], None).report();
    assert_eq!(report.records.len(), 1, "a commit is never counted twice");
    report.records[0].session_id.clone()
}

#[test]
fn l_assign_min_calls_beats_distance() {
    // The tiny 1-call session holds the commit; the real one ended 20 minutes before.
    let tiny = claude("tiny", (10, 25), (10, 35), None).calls(1);
    let real_one = claude("real", (9, 0), (10, 10), None).calls(40);
    assert_eq!(winner(tiny, real_one), "real");
}

#[test]
fn l_assign_write_tool_beats_distance() {
    let reader = claude("reader", (10, 0), (11, 0), None).tools(&[("Read", 9), ("Edit", 0)]);
    let shell = claude("shell", (9, 0), (10, 20), None).tools(&[("Bash", 1)]);
    assert_eq!(winner(reader, shell), "shell");
}

#[test]
fn l_assign_distance_beats_calls() {
    let near = claude("near", (10, 0), (11, 0), None).calls(20);
    let far = claude("far", (9, 0), (10, 25), None).calls(30);
    assert_eq!(winner(near, far), "near");
}

#[test]
fn l_assign_most_calls_beats_latest_start() {
    let busy = claude("busy", (10, 0), (11, 0), None).calls(30);
    let later = claude("later", (10, 10), (11, 0), None).calls(20);
    assert_eq!(winner(busy, later), "busy");
}

#[test]
fn l_assign_latest_start_beats_session_id() {
    let z = claude("z", (10, 10), (11, 0), None);
    let a = claude("a", (10, 0), (11, 0), None);
    assert_eq!(winner(z, a), "z");
}

#[test]
fn l_assign_session_id_breaks_the_last_tie() {
    let x2 = claude("x2", (10, 0), (11, 0), None);
    let x1 = claude("x1", (10, 0), (11, 0), None);
    assert_eq!(winner(x2, x1), "x1");
}

// ---------------------------------------------------------------- L-candidate

#[test]
fn l_candidate_needs_a_local_author_compared_trimmed_without_case() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    repo.git(&["config", "user.email", " Fixture@KEEL.invalid "])
        .expect("config");
    let path = real(repo.path());
    let mine = commit(&mut repo, "a", 1, None, FIXTURE_EMAIL, at(10, 10));
    let _theirs = commit(&mut repo, "b", 1, None, OTHER_EMAIL, at(10, 20));
    let sessions = [SessionLine::new(
        "s",
        "gemini-cli",
        &rfc(10, 0),
        &rfc(11, 0),
        Some(&path),
    )];
    let report = run(dir.path(), &sessions, &[], None).report();
    let s = record(&report, "s").expect("window record");
    assert_eq!((s.link, s.link_p), ("window", None));
    assert_eq!(s.commits, vec![mine.clone()], "the other author is ignored");
    assert_eq!(report.pending[0].subject, hand_subject("s", &[&mine]));
    assert_eq!(report.pending[0].options, vec!["yes", "no"]);
}

// ---------------------------------------------------------------- L-subject, L-decided

/// A session with two local window commits, and its hand-made subject.
fn decided(decisions: &[(&str, &str, &str)]) -> SessionsReport {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    let c1 = commit(&mut repo, "a", 1, None, FIXTURE_EMAIL, at(10, 10));
    let c2 = commit(&mut repo, "b", 1, None, FIXTURE_EMAIL, at(10, 20));
    let subject = hand_subject("s", &[&c2, &c1]);
    let lines: Vec<String> = decisions
        .iter()
        .map(|(ts, subject_or_star, p)| {
            let subject = if *subject_or_star == "*" {
                subject.as_str()
            } else {
                subject_or_star
            };
            decision_line(ts, subject, p)
        })
        .collect();
    let sessions = [SessionLine::new(
        "s",
        "codex",
        &rfc(10, 0),
        &rfc(11, 0),
        Some(&path),
    )];
    let report = run(dir.path(), &sessions, &lines, None).report();
    if let Some(p) = report.pending.first() {
        assert_eq!(
            p.subject, subject,
            "L-subject: sorted shas joined by commas"
        );
    }
    report
}

fn link_p(report: &SessionsReport) -> Option<Option<f64>> {
    record(report, "s").map(|r| r.link_p)
}

#[test]
fn l_decided_latest_ts_wins_as_an_instant() {
    // 12:00+02:00 is 10:00Z: EARLIER than 11:00Z although its text sorts later.
    let report = decided(&[
        ("2026-01-15T11:00:00Z", "*", "0.9"),
        ("2026-01-15T12:00:00+02:00", "*", "0.1"),
    ]);
    assert_eq!(link_p(&report), Some(Some(0.9)));
}

#[test]
fn l_decided_an_exact_tie_goes_to_the_later_line() {
    let report = decided(&[
        ("2026-01-15T11:00:00Z", "*", "0.9"),
        ("2026-01-15T11:00:00Z", "*", "0.2"),
    ]);
    assert_eq!(link_p(&report), None, "0.2 < MIN_P drops the record");
}

#[test]
fn l_decided_p_exactly_min_p_is_kept() {
    let report = decided(&[("2026-01-15T11:00:00Z", "*", "0.5")]);
    assert_eq!(link_p(&report), Some(Some(0.5)));
    assert_eq!(report.summary.linked, 1);
}

#[test]
fn l_decided_missing_yes_is_zero_and_other_subjects_do_not_apply() {
    let report = decided(&[("2026-01-15T11:00:00Z", "s:00000000", "0.9")]);
    assert_eq!(
        link_p(&report),
        Some(None),
        "another subject: still pending"
    );
    assert_eq!(
        report.summary.unlinked_cost,
        Some(1.0),
        "pending counts as unlinked"
    );
    let dir = temp();
    let line = r#"{"ts":"2026-01-15T11:00:00Z","point":"commit_link","subject":"s:SUBJECT","probabilities":{"no":1}}"#;
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    let c1 = commit(&mut repo, "a", 1, None, FIXTURE_EMAIL, at(10, 10));
    let subject = hand_subject("s", &[&c1]);
    let line = line.replace("s:SUBJECT", &subject);
    let sessions = [SessionLine::new(
        "s",
        "codex",
        &rfc(10, 0),
        &rfc(11, 0),
        Some(&path),
    )];
    let report = run(dir.path(), &sessions, &[line], None).report();
    assert!(report.records.is_empty(), "no yes → p = 0 → dropped");
}

// ---------------------------------------------------------------- L-revert

#[test]
fn l_revert_a_revert_of_a_revert_keeps_x_reverted_and_adds_no_lines() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    let x = commit(
        &mut repo,
        "x",
        6,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 10),
    );
    repo.remove("x").expect("remove");
    let r1 = repo
        .commit_at(
            &format!(
                "Revert x\n\nThis reverts commit {}.\n\n{CLAUDE_TRAILER}\n",
                &x[..12]
            ),
            FIXTURE_EMAIL,
            at(10, 20),
            at(10, 20),
        )
        .expect("commit");
    repo.write("x", &lines("x", 6)).expect("write");
    let r2 = repo
        .commit_at(
            &format!("Revert revert\n\nThis reverts commit {r1}.\n\n{CLAUDE_TRAILER}\n"),
            FIXTURE_EMAIL,
            at(10, 30),
            at(10, 30),
        )
        .expect("commit");
    let keep = commit(
        &mut repo,
        "k",
        2,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 40),
    );
    let sessions = [claude("s", (10, 0), (11, 0), Some(&path))];
    let report = run(dir.path(), &sessions, &[], None).report();
    let s = record(&report, "s").expect("linked");
    assert_eq!(
        s.commits,
        sorted(vec![x, r1, r2, keep]),
        "reverts stay in commits"
    );
    assert_eq!(
        (s.added, s.deleted),
        (8, 0),
        "x's 6 and k's 2; reverts add nothing"
    );
    assert_eq!((s.commits_kept, s.commits_reverted), (1, 1));
    let group = &report.summary.by_repo["r"];
    assert_eq!(group.lines_added, 2);
    assert_eq!(group.revert_rate, Some(0.5));
}

// ---------------------------------------------------------------- L-split, L-cost

#[test]
fn l_split_one_session_in_two_repos_shares_its_cost_by_commits() {
    let dir = temp();
    let mut one = session_repo(dir.path(), "one").expect("repo");
    let mut two = session_repo(dir.path(), "two").expect("repo");
    commit(
        &mut one,
        "a",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 10),
    );
    commit(
        &mut one,
        "b",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 20),
    );
    commit(
        &mut two,
        "c",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 30),
    );
    let sessions = [claude("s", (10, 0), (11, 0), None).cost("1")];
    let repos = vec![real(one.path()), real(two.path())];
    let report = run(dir.path(), &sessions, &[], Some(repos)).report();
    let costs: Vec<(String, Option<f64>)> = report
        .records
        .iter()
        .map(|r| (r.repo_label.clone(), r.cost))
        .collect();
    assert_eq!(
        costs,
        vec![
            ("one".to_owned(), Some(0.666667)),
            ("two".to_owned(), Some(0.333333))
        ]
    );
    let s = &report.summary;
    assert_eq!(
        s.by_harness["claude-code"].cost,
        Some(1.0),
        "no double count, rounded once"
    );
    assert_eq!((s.linked, s.unlinked_cost), (1, Some(0.0)));
}

#[test]
fn l_cost_null_denominators_and_scope() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    let x = commit(
        &mut repo,
        "x",
        3,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 10),
    );
    repo.remove("x").expect("remove");
    repo.commit_at(
        &format!("Revert\n\nThis reverts commit {x}.\n"),
        FIXTURE_EMAIL,
        at(12, 0),
        at(12, 0),
    )
    .expect("commit");
    let sessions = [
        claude("s", (10, 0), (11, 0), Some(&path)).cost("3"),
        // Ends just before now: in scope, unlinked.
        claude("future", (23, 0), (23, 59), Some(&path)).cost("100"),
        // Ends one second after now: out of scope.
        SessionLine::new(
            "late",
            "codex",
            "2026-01-15T23:00:00Z",
            "2026-01-16T00:00:01Z",
            Some(&path),
        )
        .cost("100"),
        // Ended more than 30 days before now.
        SessionLine::new(
            "old",
            "codex",
            "2025-12-16T23:00:00Z",
            "2025-12-16T23:59:59Z",
            Some(&path),
        )
        .cost("100"),
        // In scope, no commits: unlinked.
        SessionLine::new("idle", "codex", &rfc(18, 0), &rfc(19, 0), Some(&path)).cost("0.25"),
    ];
    let report = run(dir.path(), &sessions, &[], None).report();
    let s = &report.summary;
    assert_eq!(s.sessions_total, 3, "s, future (ends 23:59 < now) and idle");
    assert_eq!(s.unlinked_cost, Some(100.25), "future and idle");
    let group = &s.by_repo["r"];
    assert_eq!(
        (
            group.commits_kept,
            group.commits_reverted,
            group.lines_added
        ),
        (0, 1, 0)
    );
    assert_eq!(group.cost_per_kept_commit, None);
    assert_eq!(group.cost_per_100_lines, None);
    assert_eq!(group.revert_rate, Some(1.0));
}

// ---------------------------------------------------------------- incrementality

#[test]
fn appending_a_decision_reruns_only_the_record_of_its_subject() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    let c1 = commit(&mut repo, "a", 1, None, FIXTURE_EMAIL, at(10, 10));
    commit(&mut repo, "b", 1, None, FIXTURE_EMAIL, at(14, 10));
    commit(
        &mut repo,
        "c",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(18, 10),
    );
    let sessions = [
        SessionLine::new("s1", "codex", &rfc(10, 0), &rfc(11, 0), Some(&path)),
        SessionLine::new("s2", "codex", &rfc(14, 0), &rfc(15, 0), Some(&path)),
        claude("s3", (18, 0), (19, 0), Some(&path)),
    ];
    let mut run = run(dir.path(), &sessions, &[], None);
    assert_eq!(run.report().pending.len(), 2);
    let cold = run.db.take_executed_queries();
    for query in [
        query_name(session_record),
        query_name(assignment),
        query_name(agent_harness),
    ] {
        assert!(
            count_named(&cold, query) > 0,
            "the cold run runs {query}: {cold:?}"
        );
    }
    let line = decision_line("2026-01-15T20:00:00Z", &hand_subject("s1", &[&c1]), "0.7");
    write_file(&dir.path().join("decisions.jsonl"), &format!("{line}\n")).expect("append");
    run.refresh(&[keel_engine::ChangeEvent::DecisionsAppended]);
    let report = run.report();
    assert_eq!(record(&report, "s1").and_then(|r| r.link_p), Some(0.7));
    let names = run.db.take_executed_queries();
    assert_eq!(count(&names, session_record), 1, "{names:?}");
    assert_eq!(count(&names, assignment), 0, "{names:?}");
    assert_eq!(count(&names, agent_harness), 0, "{names:?}");
    assert_eq!(count(&names, sessions_report), 1, "{names:?}");
}

#[test]
fn appending_a_session_or_a_commit_does_not_rescan_old_commits() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let path = real(repo.path());
    commit(
        &mut repo,
        "a",
        1,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 10),
    );
    commit(&mut repo, "b", 1, None, FIXTURE_EMAIL, at(10, 20));
    let mut sessions = vec![claude("s1", (10, 0), (11, 0), Some(&path))];
    let mut run = run(dir.path(), &sessions, &[], None);
    run.report();
    let _ = run.db.take_executed_queries();
    let counters = run.db.scan_counters();
    // A new session (later start: the scan start does not move).
    sessions.push(SessionLine::new(
        "s2",
        "codex",
        &rfc(12, 0),
        &rfc(13, 0),
        Some(&path),
    ));
    write_inputs(dir.path(), &sessions, &[]);
    run.refresh(&[keel_engine::ChangeEvent::SessionsAppended]);
    let report = run.report();
    assert_eq!(report.summary.sessions_total, 2);
    let names = run.db.take_executed_queries();
    for per_commit in [
        query_name(agent_harness),
        query_name(trailer_lines),
        query_name(revert_target),
    ] {
        assert_eq!(
            count_named(&names, per_commit),
            0,
            "{per_commit}: {names:?}"
        );
    }
    assert_eq!(run.db.scan_counters(), counters, "no commit read again");
    // A new commit: only it is read and only its per-commit queries run.
    let c = commit(&mut repo, "c", 1, None, FIXTURE_EMAIL, at(12, 30));
    run.refresh(&[keel_engine::ChangeEvent::RepoMoved]);
    let report = run.report();
    assert_eq!(
        record(&report, "s2").map(|r| r.commits.clone()),
        Some(vec![c])
    );
    let names = run.db.take_executed_queries();
    assert_eq!(count(&names, agent_harness), 1, "{names:?}");
    assert_eq!(count(&names, trailer_lines), 1, "{names:?}");
    assert_eq!(count(&names, revert_target), 1, "{names:?}");
    assert_eq!(run.db.scan_counters().numstats, counters.numstats + 1);
}

#[test]
fn repositories_sharing_a_label_are_grouped_with_a_warning() {
    let dir = temp();
    let mut one = session_repo(&dir.path().join("x"), "app").expect("repo");
    let mut two = session_repo(&dir.path().join("y"), "app").expect("repo");
    commit(
        &mut one,
        "a",
        2,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 10),
    );
    commit(
        &mut two,
        "b",
        3,
        Some(CLAUDE_TRAILER),
        FIXTURE_EMAIL,
        at(10, 20),
    );
    let sessions = [claude("s", (10, 0), (11, 0), None)];
    let repos = vec![real(one.path()), real(two.path())];
    let run = run(dir.path(), &sessions, &[], Some(repos));
    let report = run.report();
    assert_eq!(report.summary.by_repo.len(), 1, "basename(R) is the label");
    assert_eq!(report.summary.by_repo["app"].lines_added, 5);
    let warnings: Vec<String> = run
        .db
        .session_warnings()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("share the label \"app\"")),
        "{warnings:?}"
    );
}
