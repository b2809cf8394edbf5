//! Lint against an oracle built from the git CLI on randomized linear histories.
//!
//! The oracle shares only the extractor with keel (it asks keel for unit ranges of the
//! blobs git prints). Versions come from `git log -1 -- spec.md`, windows from
//! `git rev-list version..HEAD` minus `Spec-OK` trailers as `git log` reads them (an ack
//! checkpoint — one parent, that parent's tree — with everything `git rev-list` lists
//! from it), hunks
//! from `git diff --histogram --no-indent-heuristic -U0`, and the hunk∩range predicate is
//! written again here, independently, on git's 1-based header numbers. Before comparing,
//! a pinned case with known debt must show up on BOTH sides (the seed's positive control
//! for an equivalence run). A second test
//! checks keel's walk order against `git rev-list` on branchy histories whose committer
//! dates tie and run backwards, and each window walk against `git rev-list version..HEAD`.

use crate::support::{lint_repo, spec};
use keel_fixtures::FixtureRepo;
use keel_fixtures::rng::SeededRng as Rng;
use keel_queries::extract::{Unit, extract};
use std::collections::{BTreeMap, BTreeSet};

const FUNCTIONS: [&str; 5] = ["alpha", "beta", "gamma", "delta", "omega"];
const NODES: [(&str, &[&str]); 3] = [
    ("one", &["alpha", "beta"]),
    ("two", &["gamma"]),
    ("three", &["delta", "omega", "alpha"]),
];

/// The module as a list of functions, each a list of body lines.
fn render(bodies: &[Vec<String>]) -> String {
    let mut text = String::from("import os\n");
    for (name, body) in FUNCTIONS.iter().zip(bodies) {
        text.push_str(&format!("\n\ndef {name}(x):\n"));
        for line in body {
            text.push_str(&format!("    {line}\n"));
        }
    }
    text
}

fn mutate(rng: &mut Rng, bodies: &mut [Vec<String>], serial: &mut usize) {
    for _ in 0..=rng.below(2) {
        let body = &mut bodies[rng.below(FUNCTIONS.len())];
        *serial += 1;
        let line = format!("x = x + {}", *serial % 7);
        match rng.below(3) {
            0 if body.len() > 1 => {
                let at = rng.below(body.len() - 1);
                body.remove(at);
            }
            1 => {
                let at = rng.below(body.len());
                body[at] = line;
            }
            _ => {
                let at = rng.below(body.len());
                body.insert(at, line);
            }
        }
    }
}

/// Builds one random history; returns the repository.
fn build(seed: u64, commits: usize) -> FixtureRepo {
    let mut rng = Rng::new(seed);
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let mut bodies: Vec<Vec<String>> = FUNCTIONS
        .iter()
        .map(|_| vec!["return x".to_owned()])
        .collect();
    let mut serial = 0;
    repo.write("app.py", &render(&bodies)).expect("writable");
    for (node, selectors) in NODES {
        repo.write(
            &format!(".spec/{node}/spec.md"),
            &spec(&[&format!("app.py#{}", selectors.join(","))], &[]),
        )
        .expect("writable");
    }
    repo.commit("v1").expect("commit");
    for step in 0..commits {
        mutate(&mut rng, &mut bodies, &mut serial);
        repo.write("app.py", &render(&bodies)).expect("writable");
        let mut message = format!("step {step}");
        match rng.below(8) {
            0 => {
                let (node, selectors) = NODES[rng.below(NODES.len())];
                let text = spec(&[&format!("app.py#{}", selectors.join(","))], &[])
                    + &format!("version {step}\n");
                repo.write(&format!(".spec/{node}/spec.md"), &text)
                    .expect("writable");
            }
            1 => message.push_str(&format!("\n\nSpec-OK: {}", NODES[rng.below(NODES.len())].0)),
            _ => {}
        }
        repo.commit(&message).expect("commit");
    }
    repo
}

/// `(node, commit)` → (hit selectors, side) as the oracle sees it.
type Judgements = BTreeMap<(String, String), (Vec<String>, String)>;

fn git(repo: &FixtureRepo, args: &[&str]) -> String {
    repo.git(args).expect("git answers the oracle")
}

/// `(old_start, old_count, new_start, new_count)` from `@@ -a,b +c,d @@` headers.
pub(crate) fn hunk_headers(diff: &str) -> Vec<(u32, u32, u32, u32)> {
    diff.lines()
        .filter_map(|line| line.strip_prefix("@@ -"))
        .map(|rest| {
            let mut parts = rest.split(' ');
            let old = header_range(parts.next().expect("old side"));
            let new = header_range(parts.next().expect("new side").trim_start_matches('+'));
            (old.0, old.1, new.0, new.1)
        })
        .collect()
}

/// `a,b` or `a` (count 1) from one side of a hunk header.
pub(crate) fn header_range(text: &str) -> (u32, u32) {
    let (start, count) = text.split_once(',').unwrap_or((text, "1"));
    (
        start.parse().expect("git prints numbers"),
        count.parse().expect("git prints numbers"),
    )
}

/// The unit's 1-based inclusive range, from its first decorator line to its last line.
pub(crate) fn unit_range(units: &[Unit], name: &str) -> Option<(u32, u32)> {
    units
        .iter()
        .find(|u| u.name == name)
        .map(|u| (u.start_line, u.end_line))
}

/// Lines `[start, start + count)` (1-based) meet the unit `[s, e]`.
pub(crate) fn meets(start: u32, count: u32, unit: Option<(u32, u32)>) -> bool {
    unit.is_some_and(|(s, e)| count > 0 && start <= e && s < start + count)
}

/// The commits of `git rev-list TIP ^BASE` that `Spec-OK: <node>` acknowledges, as the
/// git CLI shows them: each commit whose trailer names the node, and for an ack checkpoint
/// among them (one parent, whose tree `git rev-parse` prints the same) every commit
/// `git rev-list CHECKPOINT ^BASE` lists.
pub(crate) fn acknowledged(
    repo: &FixtureRepo,
    tip: &str,
    base: &str,
    node: &str,
) -> BTreeSet<String> {
    let exclude = format!("^{base}");
    let log = git(
        repo,
        &[
            "log",
            "--format=%H %P;%(trailers:key=Spec-OK,valueonly,separator=|)",
            tip,
            &exclude,
        ],
    );
    let mut acked = BTreeSet::new();
    for line in log.lines() {
        let (ids, acks) = line.split_once(';').expect("the format has a `;`");
        if !acks.split('|').any(|ack| ack.trim() == node) {
            continue;
        }
        let ids: Vec<&str> = ids.split_whitespace().collect();
        acked.insert(ids[0].to_owned());
        if let [commit, parent] = ids[..] {
            let trees = git(
                repo,
                &[
                    "rev-parse",
                    &format!("{commit}^{{tree}}"),
                    &format!("{parent}^{{tree}}"),
                ],
            );
            let trees: Vec<&str> = trees.lines().collect();
            if trees[0] == trees[1] {
                let reached = git(repo, &["rev-list", commit, &exclude]);
                acked.extend(reached.lines().map(str::to_owned));
            }
        }
    }
    acked
}

/// The oracle's judgements and how many (node, window commit) cases it judged.
fn oracle(repo: &FixtureRepo) -> (Judgements, usize) {
    let mut judgements = Judgements::new();
    let mut cases = 0;
    for (node, selectors) in NODES {
        let spec_path = format!(".spec/{node}/spec.md");
        let version = git(repo, &["log", "-1", "--format=%H", "--", &spec_path])
            .trim()
            .to_owned();
        let acked = acknowledged(repo, "HEAD", &version, node);
        let log = git(repo, &["log", "--format=%H", &format!("{version}..HEAD")]);
        for commit in log.lines() {
            if acked.contains(commit) {
                continue;
            }
            cases += 1;
            let diff = git(
                repo,
                &[
                    "-c",
                    "color.ui=never",
                    "diff",
                    "--histogram",
                    "--no-indent-heuristic",
                    "-U0",
                    "--no-ext-diff",
                    "--no-textconv",
                    &format!("{commit}^"),
                    commit,
                    "--",
                    "app.py",
                ],
            );
            let new_units = extract(
                git(repo, &["show", &format!("{commit}:app.py")]).as_bytes(),
                "app.py",
            )
            .expect("python has an extractor")
            .expect("generated python parses");
            let old_units = extract(
                git(repo, &["show", &format!("{commit}^:app.py")]).as_bytes(),
                "app.py",
            )
            .expect("python has an extractor")
            .expect("generated python parses");
            let mut hit = Vec::new();
            let (mut added, mut deleted) = (false, false);
            for selector in selectors {
                let (mut a, mut d) = (false, false);
                for (old_start, old_count, new_start, new_count) in hunk_headers(&diff) {
                    a |= meets(new_start, new_count, unit_range(&new_units, selector));
                    d |= meets(old_start, old_count, unit_range(&old_units, selector));
                }
                if a || d {
                    hit.push((*selector).to_owned());
                }
                added |= a;
                deleted |= d;
            }
            let side = match (added, deleted) {
                (true, true) => "both",
                (true, false) => "added",
                (false, true) => "deleted",
                (false, false) => continue,
            };
            judgements.insert((node.to_owned(), commit.to_owned()), (hit, side.to_owned()));
        }
    }
    (judgements, cases)
}

fn keel(repo: &FixtureRepo) -> Judgements {
    let report = lint_repo(repo);
    let mut judgements = Judgements::new();
    for finding in report.findings.iter().filter(|f| f.code == "anchor-hit") {
        for hit in &finding.hits {
            let side = serde_json::to_value(hit.side).expect("a side serializes");
            judgements.insert(
                (finding.node.clone(), hit.commit.to_string()),
                (
                    hit.selectors.clone(),
                    side.as_str().unwrap_or_default().to_owned(),
                ),
            );
        }
    }
    judgements
}

#[test]
fn lint_agrees_with_the_git_cli_oracle_on_random_histories() {
    positive_control();
    let mut cases = 0;
    let mut hits = 0;
    for seed in 1..=20 {
        let repo = build(seed, 14);
        let (expected, judged) = oracle(&repo);
        assert_eq!(keel(&repo), expected, "seed {seed}");
        cases += judged;
        hits += expected.len();
    }
    assert!(
        hits > 40,
        "the histories must produce real hits to compare: {hits}"
    );
    eprintln!("agreement: {hits} hits over {cases} (node, commit) cases");
}

/// The measurement's own positive control: one pinned case with known debt that BOTH the
/// oracle and keel must report, so an agreement below cannot come from two harnesses that
/// both see nothing.
fn positive_control() {
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let mut bodies: Vec<Vec<String>> = FUNCTIONS
        .iter()
        .map(|_| vec!["return x".to_owned()])
        .collect();
    repo.write("app.py", &render(&bodies)).expect("writable");
    for (node, selectors) in NODES {
        let entry = format!("app.py#{}", selectors.join(","));
        repo.write(&format!(".spec/{node}/spec.md"), &spec(&[&entry], &[]))
            .expect("writable");
    }
    repo.commit("v1").expect("commit");
    bodies[0].insert(0, "x = x + 1".to_owned());
    repo.write("app.py", &render(&bodies)).expect("writable");
    let debt = repo.commit("change alpha").expect("commit");
    let alpha = (vec!["alpha".to_owned()], "added".to_owned());
    let expected: Judgements = [
        (("one".to_owned(), debt.clone()), alpha.clone()),
        (("three".to_owned(), debt), alpha),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        oracle(&repo).0,
        expected,
        "the oracle misses the control's known debt"
    );
    assert_eq!(
        keel(&repo),
        expected,
        "keel misses the control's known debt"
    );
}

/// Starts a merge of `branch` into the checked-out branch, leaving it for the next commit
/// to conclude (so the commit gets the caller's date).
pub(crate) fn start_merge(repo: &FixtureRepo, branch: &str) {
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "--no-commit",
        "-X",
        "theirs",
        branch,
    ])
    .expect("merge starts");
}

/// A random branchy history: commits on several branches at committer times that tie and
/// run backwards, and merges between the branches.
fn branchy(seed: u64, steps: usize) -> FixtureRepo {
    let mut rng = Rng::new(seed);
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let when = |rng: &mut Rng| keel_fixtures::FIXTURE_EPOCH + 60 * rng.below(40) as i64;
    repo.write("f.txt", "0\n").expect("writable");
    repo.commit_at(
        "root",
        keel_fixtures::FIXTURE_EMAIL,
        keel_fixtures::FIXTURE_EPOCH,
        keel_fixtures::FIXTURE_EPOCH,
    )
    .expect("commit");
    let branches = ["main", "b1", "b2", "b3"];
    for branch in &branches[1..] {
        repo.git(&["branch", branch]).expect("branch");
    }
    for step in 0..steps {
        let branch = branches[rng.below(branches.len())];
        repo.git(&["checkout", "-q", branch]).expect("checkout");
        let time = when(&mut rng);
        if rng.below(4) == 0 {
            let other = branches[rng.below(branches.len())];
            if other != branch {
                start_merge(&repo, other);
            }
        }
        repo.write(&format!("{branch}.txt"), &format!("{step}\n"))
            .expect("writable");
        repo.commit_at(
            &format!("step {step}"),
            keel_fixtures::FIXTURE_EMAIL,
            time,
            time,
        )
        .expect("commit");
    }
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    for branch in &branches[1..] {
        start_merge(&repo, branch);
        let time = when(&mut rng);
        repo.commit_at(
            &format!("merge {branch}"),
            keel_fixtures::FIXTURE_EMAIL,
            time,
            time,
        )
        .expect("commit");
    }
    repo
}

#[test]
fn the_walk_and_its_windows_equal_git_rev_list_on_branchy_histories() {
    for seed in 1..=8 {
        let repo = branchy(seed, 40);
        let db = keel_engine::KeelDatabase::open(repo.path()).expect("opens");
        let tip = keel_engine::inputs::Tip::get(&db)
            .commit(&db)
            .expect("a tip");
        let keel: Vec<String> = keel_queries::history::history(&db, tip)
            .iter()
            .map(|c| c.id(&db).to_string())
            .collect();
        let rev_list: Vec<String> = git(&repo, &["rev-list", "HEAD"])
            .lines()
            .map(str::to_owned)
            .collect();
        assert!(
            rev_list.len() > 20,
            "seed {seed}: the history is too small to mean much ({} commits):\n{}",
            rev_list.len(),
            git(&repo, &["log", "--graph", "--oneline", "--all"])
        );
        assert_eq!(keel, rev_list, "seed {seed}");
        let full = keel_queries::history::history(&db, tip);
        for version in full.iter().step_by(7) {
            let covered = keel_queries::history::ancestry(&db, *version);
            let window: Vec<String> = full
                .iter()
                .filter(|c| !covered.contains(*c))
                .map(|c| c.id(&db).to_string())
                .collect();
            let range = format!("{}..HEAD", version.id(&db));
            let expected: Vec<String> = git(&repo, &["rev-list", &range])
                .lines()
                .map(str::to_owned)
                .collect();
            assert_eq!(window, expected, "seed {seed}: rev-list {range}");
        }
    }
}
