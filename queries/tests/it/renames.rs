//! keel's rename pairing against `git diff -M --name-status` on seeded random histories.
//!
//! Every commit of each history moves, copies, edits, duplicates and deletes files so
//! that exact renames with several identical sources, basename matches, fuzzy renames
//! near the 50 % line, CRLF conversions and directory moves all occur. For each commit,
//! the (source, target, score) triples keel finds between the parent's tree and the
//! commit's must equal git's, whose scores are printed as whole percents.

use keel_engine::KeelDatabase;
use keel_engine::inputs::Tip;
use keel_fixtures::FixtureRepo;
use keel_fixtures::rng::SeededRng as Rng;
use keel_queries::history::history;
use keel_queries::renames::tree_renames;

const WORDS: [&str; 12] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu",
];
const FOLDERS: [&str; 3] = ["", "pkg/", "src/pkg/"];
const NAMES: [&str; 6] = [
    "core.py",
    "util.py",
    "core_test.py",
    "readme.txt",
    "data.json",
    "notes.md",
];

fn text(rng: &mut Rng, lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "{} {} {}\n",
                WORDS[rng.below(WORDS.len())],
                WORDS[rng.below(WORDS.len())],
                i % 7
            )
        })
        .collect()
}

/// Rewrites roughly `percent` of the lines of `content`.
fn edit(rng: &mut Rng, content: &str, percent: usize) -> String {
    content
        .lines()
        .map(|line| {
            if rng.below(100) < percent {
                format!("{} edited\n", WORDS[rng.below(WORDS.len())])
            } else {
                format!("{line}\n")
            }
        })
        .collect()
}

/// The files in the work tree (staged first, so the listing is current).
fn files(repo: &FixtureRepo) -> Vec<String> {
    repo.git(&["add", "--all"]).expect("add");
    repo.git(&["ls-files"])
        .expect("ls-files")
        .lines()
        .map(str::to_owned)
        .collect()
}

fn read(repo: &FixtureRepo, path: &str) -> String {
    std::fs::read_to_string(repo.path().join(path)).unwrap_or_default()
}

fn fresh_path(rng: &mut Rng, taken: &[String]) -> String {
    loop {
        let path = format!(
            "{}{}{}",
            FOLDERS[rng.below(FOLDERS.len())],
            if rng.below(3) == 0 { "x_" } else { "" },
            NAMES[rng.below(NAMES.len())]
        );
        if !taken
            .iter()
            .any(|t| *t == path || t.starts_with(&format!("{path}/")))
        {
            return path;
        }
    }
}

fn step(rng: &mut Rng, repo: &FixtureRepo) {
    let existing = files(repo);
    for _ in 0..=rng.below(3) {
        let existing = files(repo);
        let Some(pick) =
            (!existing.is_empty()).then(|| existing[rng.below(existing.len())].clone())
        else {
            let path = fresh_path(rng, &existing);
            let body = text(rng, 12);
            repo.write(&path, &body).expect("writable");
            continue;
        };
        let content = read(repo, &pick);
        match rng.below(8) {
            0 => {
                let to = fresh_path(rng, &existing);
                repo.remove(&pick).expect("removable");
                repo.write(&to, &content).expect("writable");
            }
            1 | 2 => {
                let to = fresh_path(rng, &existing);
                let percent = [10, 30, 45, 55, 70][rng.below(5)];
                repo.remove(&pick).expect("removable");
                repo.write(&to, &edit(rng, &content, percent))
                    .expect("writable");
            }
            3 => {
                let to = fresh_path(rng, &existing);
                repo.write(&to, &content).expect("writable");
            }
            4 => {
                repo.remove(&pick).expect("removable");
            }
            5 => {
                let crlf = content.replace('\n', "\r\n");
                let to = fresh_path(rng, &existing);
                repo.remove(&pick).expect("removable");
                repo.write(&to, &crlf).expect("writable");
            }
            _ => {
                let percent = [5, 20][rng.below(2)];
                repo.write(&pick, &edit(rng, &content, percent))
                    .expect("writable");
            }
        }
    }
    if rng.below(6) == 0 && existing.iter().any(|f| f.starts_with("pkg/")) {
        for file in files(repo).iter().filter(|f| f.starts_with("pkg/")) {
            let to = format!("moved/{file}");
            let content = read(repo, file);
            repo.remove(file).expect("removable");
            repo.write(&to, &content).expect("writable");
        }
    }
}

fn build(seed: u64, commits: usize) -> FixtureRepo {
    let mut rng = Rng::new(seed);
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    for _ in 0..6 {
        let path = fresh_path(&mut rng, &files(&repo));
        let lines = 10 + rng.below(20);
        let body = text(&mut rng, lines);
        repo.write(&path, &body).expect("writable");
    }
    repo.commit("start").expect("commit");
    for n in 0..commits {
        step(&mut rng, &repo);
        repo.commit(&format!("step {n}")).expect("commit");
    }
    repo
}

/// git's renames between `parent` and `commit`: (source, target, percent).
fn git_renames(repo: &FixtureRepo, parent: &str, commit: &str) -> Vec<(String, String, u32)> {
    let out = repo
        .git(&[
            "-c",
            "diff.renameLimit=0",
            "diff",
            "-M",
            "--name-status",
            "-z",
            parent,
            commit,
        ])
        .expect("git diff");
    let mut fields = out.split('\0').filter(|f| !f.is_empty());
    let mut renames = Vec::new();
    while let Some(status) = fields.next() {
        if let Some(score) = status.strip_prefix('R') {
            let from = fields.next().expect("a source").to_owned();
            let to = fields.next().expect("a target").to_owned();
            renames.push((from, to, score.parse().expect("a percent")));
        } else {
            fields.next();
        }
    }
    renames.sort();
    renames
}

#[test]
fn renames_equal_git_diff_m_on_random_histories() {
    let mut compared = 0;
    let mut renamed = 0;
    let mut fuzzy = 0;
    for seed in 1..=6 {
        let repo = build(seed, 30);
        let db = KeelDatabase::open(repo.path()).expect("opens");
        let tip = Tip::get(&db).commit(&db).expect("a tip");
        for commit in history(&db, tip) {
            let Some(&parent) = commit.parents(&db).first() else {
                continue;
            };
            let keel_found = tree_renames(&db, Some(parent.tree(&db)), commit.tree(&db))
                .clone()
                .expect("objects read");
            let mut keel: Vec<(String, String, u32)> = keel_found
                .iter()
                .map(|r| (r.from.clone(), r.to.clone(), r.score * 100 / 60_000))
                .collect();
            keel.sort();
            let git = git_renames(
                &repo,
                &parent.id(&db).to_string(),
                &commit.id(&db).to_string(),
            );
            assert_eq!(keel, git, "seed {seed}, commit {}", commit.id(&db));
            compared += 1;
            renamed += git.len();
            fuzzy += git.iter().filter(|(_, _, p)| *p < 100).count();
        }
    }
    eprintln!("renames: {compared} commits compared, {renamed} renames, {fuzzy} fuzzy");
    assert!(
        renamed > 40 && fuzzy > 10,
        "the histories must exercise renames: {renamed} renames, {fuzzy} fuzzy"
    );
}
