//! L-scan tests on built repositories: numstat against `git log --numstat`, all refs and
//! no merges, the committer-date margin and the exact author-date filter, the default
//! branch, the hashed author email, and incremental rescans that read only new commits.
//! Then what loading says about its inputs: a relative `repo` read from the sessions
//! file's folder (named once when missing), an explicit repository that is a file or a
//! subfolder, and the warnings of decisions read by assumption.

use super::*;
use keel_fixtures::sessions::{
    CLAUDE_TRAILER, OTHER_EMAIL, SessionLine, at, lines, message, rfc, session_repo, write_file,
};
use keel_fixtures::{FIXTURE_EMAIL, FixtureRepo, pinned_git};
use std::collections::BTreeMap;

struct Case {
    dir: tempfile::TempDir,
    db: KeelDatabase,
    world: SessionWorld,
}

/// A sessions file with one session spanning 10:00–11:00 (so the scan starts 09:55) and a
/// database with the repository `name` planned from `since`.
fn case(dir: tempfile::TempDir, name: &str, since: Instant) -> Case {
    let sessions = dir.path().join("sessions.jsonl");
    let line = SessionLine::new("a", "claude-code", &rfc(10, 0), &rfc(11, 0), None);
    write_file(&sessions, &format!("{}\n", line.json())).expect("write sessions");
    let mut db = KeelDatabase::detached();
    let world = db
        .load_sessions(SessionSources {
            sessions: sessions.into(),
            decisions: None,
            now: Instant::parse_rfc3339("2026-01-16T00:00:00Z").expect("valid"),
            days: 30,
            repos: None,
            trailers: BTreeMap::new(),
        })
        .expect("load");
    let path = std::fs::canonicalize(dir.path().join(name)).expect("repo exists");
    db.plan_session_scan(ScanPlan {
        since: Some(since),
        repos: vec![PlannedRepo {
            path,
            origin: "test".to_owned(),
        }],
    })
    .expect("scan");
    Case { dir, db, world }
}

fn scan_start() -> Instant {
    Instant::from_secs(at(9, 55))
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

impl Case {
    fn repo(&self) -> SessionRepo {
        self.world.repos(&self.db)[0]
    }

    fn ids(&self) -> Vec<String> {
        self.repo()
            .commits(&self.db)
            .iter()
            .map(|c| c.id(&self.db).to_string())
            .collect()
    }

    fn numstat_of(&self, sha: &str) -> Numstat {
        self.repo()
            .commits(&self.db)
            .iter()
            .find(|c| c.id(&self.db).to_string() == sha)
            .map(|c| c.numstat(&self.db))
            .expect("the commit was scanned")
    }
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

/// `git log --all --no-merges --numstat` of the repository, summed per commit.
fn git_numstats(root: &std::path::Path) -> BTreeMap<String, Numstat> {
    let output = pinned_git(root)
        .args(["log", "--all", "--no-merges", "--numstat", "--format=@%H"])
        .output()
        .expect("git log");
    let text = String::from_utf8_lossy(&output.stdout);
    let mut stats: BTreeMap<String, Numstat> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(sha) = line.strip_prefix('@') {
            current = sha.to_owned();
            stats.insert(current.clone(), Numstat::default());
        } else if !line.is_empty() {
            let mut parts = line.split('\t');
            let stat = stats.get_mut(&current).expect("a commit line came first");
            stat.files += 1;
            stat.added += parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            stat.deleted += parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        }
    }
    stats
}

#[test]
fn numstat_equals_git_log_numstat() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let t = at(10, 0);
    let mut commits = Vec::new();
    let mut commit = |repo: &mut FixtureRepo, n: i64| {
        let id = repo
            .commit_at(
                &format!("step {n}\n"),
                FIXTURE_EMAIL,
                t + n * 60,
                t + n * 60,
            )
            .expect("commit");
        commits.push(id);
    };
    repo.write("a.py", &lines("a", 40)).expect("write");
    repo.write("keep.txt", &lines("keep", 30)).expect("write");
    repo.write_bytes("img.bin", b"PNG\0\x01\x02")
        .expect("write");
    commit(&mut repo, 0);
    // Modify in the middle, lose the final newline, change the binary.
    let mut text = lines("a", 40).replace("a line 7\n", "a line seven\nextra\n");
    text.push_str("tail without newline");
    repo.write("a.py", &text).expect("write");
    repo.write_bytes("img.bin", b"PNG\0\x09").expect("write");
    commit(&mut repo, 1);
    // Rename with an edit (git pairs it at >= 50 % similarity), delete, add empty.
    repo.remove("keep.txt").expect("remove");
    repo.write(
        "moved/kept.txt",
        &lines("keep", 30).replace("keep line 3\n", "changed\n"),
    )
    .expect("write");
    repo.write("empty.txt", "").expect("write");
    repo.remove("img.bin").expect("remove");
    commit(&mut repo, 2);
    // A pure mode change counts as a file with no lines.
    repo.git(&["update-index", "--chmod=+x", "a.py"])
        .expect("chmod");
    repo.commit_at("mode\n", FIXTURE_EMAIL, t + 180, t + 180)
        .expect("commit");
    commits.push(
        repo.git(&["rev-parse", "HEAD"])
            .expect("rev-parse")
            .trim()
            .to_owned(),
    );
    let case = case(dir, "r", scan_start());
    let from_git = git_numstats(&case.dir.path().join("r"));
    assert_eq!(from_git.len(), 4, "{from_git:?}");
    for sha in &commits {
        assert_eq!(case.numstat_of(sha), from_git[sha], "commit {sha}");
    }
    // Written by hand from the changes above, so the agreement is not vacuous.
    assert_eq!(
        case.numstat_of(&commits[0]),
        Numstat {
            files: 3,
            added: 70,
            deleted: 0
        },
        "the binary file counts as a file with 0 lines"
    );
    assert_eq!(
        case.numstat_of(&commits[2]),
        Numstat {
            files: 3,
            added: 1,
            deleted: 1
        },
        "a rename is one file with its edit; the deleted binary has 0 lines; the empty file counts"
    );
}

#[test]
fn all_refs_are_walked_and_merges_are_not_kept() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    repo.write("base.txt", "base\n").expect("write");
    let base = repo
        .commit_at("base\n", FIXTURE_EMAIL, at(10, 0), at(10, 0))
        .expect("commit");
    repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
    repo.write("side.txt", "side\n").expect("write");
    let side = repo
        .commit_at("side\n", FIXTURE_EMAIL, at(10, 10), at(10, 10))
        .expect("commit");
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    repo.write("main.txt", "main\n").expect("write");
    let main = repo
        .commit_at("main\n", FIXTURE_EMAIL, at(10, 20), at(10, 20))
        .expect("commit");
    repo.git(&["checkout", "-q", "-b", "merged"])
        .expect("branch");
    pinned_git(repo.path())
        .args(["merge", "-q", "--no-ff", "-m", "merge", "side"])
        .env("GIT_AUTHOR_DATE", format!("@{} +0000", at(10, 30)))
        .env("GIT_COMMITTER_DATE", format!("@{} +0000", at(10, 30)))
        .status()
        .expect("merge");
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    let case = case(dir, "r", scan_start());
    assert_eq!(
        case.ids(),
        sorted(vec![base.clone(), side.clone(), main.clone()]),
        "side is reached through its branch; the merge is not kept"
    );
    assert_eq!(
        case.repo().default_branch(&case.db).as_deref(),
        Some("refs/heads/main")
    );
    let on_main: Vec<String> = case
        .repo()
        .on_default_branch(&case.db)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(on_main, sorted(vec![base, main]), "side is not on main");
}

#[test]
fn origin_head_names_the_default_branch_before_main() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    repo.write("x.txt", "x\n").expect("write");
    let first = repo
        .commit_at("first\n", FIXTURE_EMAIL, at(10, 0), at(10, 0))
        .expect("commit");
    repo.write("y.txt", "y\n").expect("write");
    repo.commit_at("second\n", FIXTURE_EMAIL, at(10, 5), at(10, 5))
        .expect("commit");
    repo.git(&["update-ref", "refs/remotes/origin/dev", &first])
        .expect("ref");
    repo.git(&[
        "symbolic-ref",
        "refs/remotes/origin/HEAD",
        "refs/remotes/origin/dev",
    ])
    .expect("symref");
    let case = case(dir, "r", scan_start());
    assert_eq!(
        case.repo().default_branch(&case.db).as_deref(),
        Some("refs/remotes/origin/dev")
    );
    let on_default: Vec<String> = case
        .repo()
        .on_default_branch(&case.db)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        on_default,
        vec![first],
        "main's newer commit is not on origin/dev"
    );
}

#[test]
fn committer_margin_then_exact_author_filter() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let write = |repo: &FixtureRepo, name: &str| repo.write(name, name).map(|_| ());
    write(&repo, "old").expect("write");
    // Committed more than a day before the scan start: git's --since walk stops here.
    let too_old = repo
        .commit_at(
            "too old\n",
            FIXTURE_EMAIL,
            at(10, 30),
            at(9, 55) - 86_400 - 60,
        )
        .expect("commit");
    write(&repo, "early").expect("write");
    // Authored before the scan start (09:55), committed inside the range.
    let early = repo
        .commit_at("early\n", FIXTURE_EMAIL, at(9, 50), at(10, 5))
        .expect("commit");
    write(&repo, "skewed").expect("write");
    // Committed three hours BEFORE its author date and before the scan start: the margin
    // keeps it.
    let skewed = repo
        .commit_at("skewed\n", FIXTURE_EMAIL, at(10, 30), at(7, 30))
        .expect("commit");
    write(&repo, "future").expect("write");
    // Authored after now: it does not exist for this run.
    let future = repo
        .commit_at(
            "future\n",
            FIXTURE_EMAIL,
            at(10, 0) + 2 * 86_400,
            at(10, 40),
        )
        .expect("commit");
    let case = case(dir, "r", scan_start());
    let ids = case.ids();
    assert!(ids.contains(&skewed), "the committer-date margin keeps it");
    assert!(!ids.contains(&early), "author date before the scan start");
    assert!(!ids.contains(&future), "author date after now");
    assert!(!ids.contains(&too_old), "beyond the margin the walk stops");
    assert_eq!(ids.len(), 1);
}

#[test]
fn author_email_is_kept_only_as_sha256_prefix() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    repo.write("x", "x\n").expect("write");
    repo.commit_at("x\n", OTHER_EMAIL, at(10, 0), at(10, 0))
        .expect("commit");
    let case = case(dir, "r", scan_start());
    let commit = case.repo().commits(&case.db)[0];
    // `printf other@example.invalid | sha256sum` starts f9f8e80f54bb.
    assert_eq!(commit.author_email_sha(&case.db), "f9f8e80f54bb");
    // The repository's user.email, compared trimmed and without case.
    assert!(
        case.repo()
            .local_emails(&case.db)
            .contains(&email_sha(" Fixture@Keel.INVALID "))
    );
    assert_eq!(email_sha("fixture@keel.invalid").len(), 12);
}

#[test]
fn a_rescan_reads_only_new_commits() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    for i in 0..3 {
        repo.write("f.txt", &lines("f", i + 1)).expect("write");
        repo.commit_at(
            &message(&format!("c{i}"), Some(CLAUDE_TRAILER)),
            FIXTURE_EMAIL,
            at(10, 0) + i64::try_from(i).expect("small") * 60,
            at(10, 0) + i64::try_from(i).expect("small") * 60,
        )
        .expect("commit");
    }
    let mut case = case(dir, "r", scan_start());
    assert_eq!(
        case.db.scan_counters(),
        ScanCounters {
            commits_read: 3,
            numstats: 3
        }
    );
    let mut repo = FixtureRepo::create_in(&case.dir.path().join("r")).expect("reopen");
    repo.write("g.txt", "g\n").expect("write");
    repo.commit_at("new\n", FIXTURE_EMAIL, at(10, 40), at(10, 40))
        .expect("commit");
    let changed = case
        .db
        .apply_changes(&[crate::ChangeEvent::RepoMoved])
        .expect("rescan");
    assert!(changed.repos_changed);
    assert_eq!(
        case.db.scan_counters(),
        ScanCounters {
            commits_read: 4,
            numstats: 4
        },
        "one more commit read, one more numstat"
    );
    assert_eq!(case.ids().len(), 4);
    let again = case
        .db
        .apply_changes(&[crate::ChangeEvent::RepoMoved])
        .expect("rescan");
    assert!(!again.repos_changed, "nothing moved, nothing set");
    assert_eq!(case.db.scan_counters().commits_read, 4);
}

#[test]
fn numstat_agrees_with_git_on_a_seeded_random_history() {
    let dir = temp();
    let mut repo = session_repo(dir.path(), "r").expect("repo");
    let mut rng = keel_fixtures::rng::SeededRng::new(0x5E55);
    let words = ["a", "b", "c", "d", "{", "}", "x = 1", "return y", ""];
    let mut files: Vec<(String, Vec<String>)> = Vec::new();
    for step in 0..40i64 {
        let roll = rng.below(10);
        if files.len() < 3 || roll == 0 {
            let name = format!("d{}/f{step}.txt", rng.below(3));
            let body: Vec<String> = (0..5 + rng.below(30))
                .map(|_| words[rng.below(words.len())].to_owned())
                .collect();
            files.push((name, body));
        } else if roll == 1 {
            // Rename with a small edit.
            let index = rng.below(files.len());
            let (old, mut body) = files.remove(index);
            repo.remove(&old).expect("remove");
            if !body.is_empty() {
                let at = rng.below(body.len());
                body[at] = format!("edited {step}");
            }
            files.push((format!("moved/{step}.txt"), body));
        } else {
            let index = rng.below(files.len());
            let body = &mut files[index].1;
            for _ in 0..1 + rng.below(5) {
                let at = rng.below(body.len() + 1);
                match rng.below(3) {
                    0 if at < body.len() => {
                        body.remove(at);
                    }
                    1 if at < body.len() => body[at] = words[rng.below(words.len())].to_owned(),
                    _ => body.insert(at, format!("new {step}")),
                }
            }
        }
        for (name, body) in &files {
            let text: String = body.iter().map(|l| format!("{l}\n")).collect();
            repo.write(name, &text).expect("write");
        }
        repo.commit_at(
            &format!("step {step}\n"),
            FIXTURE_EMAIL,
            at(10, 0) + step * 60,
            at(10, 0) + step * 60,
        )
        .expect("commit");
    }
    let case = case(dir, "r", scan_start());
    let expected = git_numstats(&case.dir.path().join("r"));
    let mut checked = 0;
    for (sha, stat) in &expected {
        assert_eq!(&case.numstat_of(sha), stat, "commit {sha}");
        checked += 1;
    }
    assert_eq!(checked, 40);
}

/// Loads `dir/logs/sessions.jsonl` holding `sessions`, with `dir/logs/decisions.jsonl`
/// holding `decisions` (when given) and the explicit `repos` (when given).
fn load(
    dir: &std::path::Path,
    sessions: &[SessionLine],
    decisions: Option<&str>,
    repos: Option<Vec<PathBuf>>,
) -> Result<(KeelDatabase, SessionWorld), SessionsError> {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).expect("mkdir");
    let text: String = sessions.iter().map(|s| format!("{}\n", s.json())).collect();
    write_file(&logs.join("sessions.jsonl"), &text).expect("write sessions");
    if let Some(decisions) = decisions {
        write_file(&logs.join("decisions.jsonl"), decisions).expect("write decisions");
    }
    let mut db = KeelDatabase::detached();
    let world = db.load_sessions(SessionSources {
        sessions: logs.join("sessions.jsonl").into(),
        decisions: decisions.map(|_| logs.join("decisions.jsonl")),
        now: Instant::parse_rfc3339("2026-01-16T00:00:00Z").expect("valid"),
        days: 30,
        repos: repos.map(|paths| ExplicitRepos {
            origin: "--repo".to_owned(),
            paths,
        }),
        trailers: BTreeMap::new(),
    })?;
    Ok((db, world))
}

fn warning_lines(db: &KeelDatabase) -> Vec<String> {
    db.session_warnings()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_relative_repo_is_read_from_the_sessions_file_s_folder_and_named_once_when_missing() {
    let dir = temp();
    session_repo(dir.path(), "app").expect("repo");
    let line = |id: &str, repo: &str| {
        SessionLine::new(id, "codex", &rfc(10, 0), &rfc(11, 0), Some(Path::new(repo)))
    };
    let (mut db, world) = load(
        dir.path(),
        &[line("a", "../app"), line("b", "../gone")],
        None,
        None,
    )
    .expect("load");
    let real: Vec<PathBuf> = world
        .sessions(&db)
        .iter()
        .filter_map(|s| s.data(&db).repo_real.clone())
        .collect();
    let app = std::fs::canonicalize(dir.path().join("app")).expect("real");
    let gone = dir.path().join("logs/../gone");
    assert_eq!(
        real,
        [app, gone.clone()],
        "read from logs/, not the current folder"
    );
    let file = dir.path().join("logs/sessions.jsonl");
    let expected = format!(
        "{}:2: repo \"../gone\" is read from the folder of {} and names {}, which does not exist; the session matches no repository",
        file.display(),
        file.display(),
        gone.display()
    );
    assert_eq!(warning_lines(&db), std::slice::from_ref(&expected));
    db.plan_session_scan(ScanPlan {
        since: Some(scan_start()),
        repos: vec![PlannedRepo {
            path: gone,
            origin: format!("{}:2", file.display()),
        }],
    })
    .expect("scan");
    assert_eq!(
        warning_lines(&db),
        [expected],
        "the scan does not name it again"
    );
}

#[test]
fn an_explicit_repo_that_is_a_file_is_refused_and_a_subfolder_is_named_inside_its_repository() {
    let dir = temp();
    let repo = session_repo(dir.path(), "app").expect("repo");
    repo.write("sub/x.txt", "x\n").expect("write");
    let session = SessionLine::new("a", "codex", &rfc(10, 0), &rfc(11, 0), None);
    let file = dir.path().join("app/sub/x.txt");
    let Err(err) = load(
        dir.path(),
        std::slice::from_ref(&session),
        None,
        Some(vec![file.clone()]),
    ) else {
        panic!("a file is refused");
    };
    assert_eq!(
        err.to_string(),
        format!(
            "--repo: repo: {}: is a file, not a folder; repair: name the repository's folder (its work tree root), not a file in it",
            file.display()
        )
    );
    let sub = std::fs::canonicalize(dir.path().join("app/sub")).expect("real");
    let (mut db, _) = load(dir.path(), &[session], None, Some(vec![sub.clone()])).expect("load");
    db.plan_session_scan(ScanPlan {
        since: Some(scan_start()),
        repos: vec![PlannedRepo {
            path: sub.clone(),
            origin: "--repo".to_owned(),
        }],
    })
    .expect("scan");
    let app = std::fs::canonicalize(dir.path().join("app")).expect("real");
    assert_eq!(
        warning_lines(&db),
        [format!(
            "--repo: repo {}: a folder inside the repository {}, not a git top-level (name that folder instead); it contributes no commits",
            sub.display(),
            app.display()
        )]
    );
}

#[test]
fn decisions_read_by_assumption_warn_until_the_file_is_fixed() {
    let dir = temp();
    let session = SessionLine::new("a", "codex", &rfc(10, 0), &rfc(11, 0), None);
    let decision = |probabilities: &str| {
        format!(
            "{{\"ts\":\"2026-01-15T12:00:00Z\",\"point\":\"commit_link\",\"subject\":\"a:0123abcd\",\"probabilities\":{probabilities}}}\n"
        )
    };
    let (mut db, _) =
        load(dir.path(), &[session], Some(&decision(r#"{"no":1}"#)), None).expect("load");
    let file = dir.path().join("logs/decisions.jsonl");
    assert_eq!(
        warning_lines(&db),
        [format!(
            "{}:1: probabilities: no `yes`; read as yes = 0",
            file.display()
        )]
    );
    write_file(&file, &decision(r#"{"yes":1,"no":0}"#)).expect("write");
    assert!(db.sync_decisions().expect("sync"), "the decision changed");
    assert_eq!(warning_lines(&db), Vec::<String>::new());
}
