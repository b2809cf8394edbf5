//! scan-vs-git: keel's L-scan against `git log --all --no-merges --numstat`, side by side
//! on one generated repository, reported as a ratio.
//!
//! Owns: generating a deterministic history with `git fast-import` (default 10,000
//! commits on main plus merged side branches; edits, additions, deletions, renames and
//! binary files), timing both sides (best of N cold runs: a fresh database each time),
//! and checking that keel's per-commit numstat agrees with git's.
//! Does not own: the scan itself (`keel_engine::sessions`).
//!
//! Usage: `cargo run --release -p keel-benches --bin scan-vs-git -- [COMMITS] [RUNS]`

use keel_engine::sessions::{Instant, Numstat, SessionSources};
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::pinned_git;
use keel_fixtures::rng::SeededRng;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error>;

/// 2025-06-01T00:00:00Z: the first generated commit.
const BASE: i64 = 1_748_736_000;

const WORDS: [&str; 16] = [
    "alpha", "beta", "gamma", "delta", "let", "return", "if", "else", "value", "count", "self",
    "data", "{", "}", "(x)", "# note",
];

fn line(rng: &mut SeededRng) -> String {
    let n = 2 + rng.below(6);
    let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
    format!("{}{}\n", "    ".repeat(rng.below(3)), words.join(" "))
}

struct Generator {
    rng: SeededRng,
    files: BTreeMap<String, Vec<String>>,
    next_file: usize,
    out: Vec<u8>,
    mark: usize,
    time: i64,
}

impl Generator {
    fn data(&mut self, bytes: &[u8]) {
        self.out
            .extend_from_slice(format!("data {}\n", bytes.len()).as_bytes());
        self.out.extend_from_slice(bytes);
        self.out.push(b'\n');
    }

    fn new_file(&mut self) -> String {
        self.next_file += 1;
        let dir = self.rng.below(20);
        format!("src/mod{dir}/file{}.py", self.next_file)
    }

    /// One commit's file operations on the current tree.
    fn changes(&mut self) -> Vec<u8> {
        let mut ops = Vec::new();
        let roll = self.rng.below(100);
        if roll < 3 || self.files.len() < 30 {
            let path = self.new_file();
            let n = 5 + self.rng.below(60);
            let lines: Vec<String> = (0..n).map(|_| line(&mut self.rng)).collect();
            ops.push((path.clone(), Some(lines.concat().into_bytes())));
            self.files.insert(path, lines);
        } else if roll < 4 {
            let index = self.rng.below(self.files.len());
            if let Some(path) = self.files.keys().nth(index).cloned() {
                self.files.remove(&path);
                ops.push((path, None));
            }
        } else if roll < 5 {
            let index = self.rng.below(self.files.len());
            if let Some(path) = self.files.keys().nth(index).cloned()
                && let Some(mut lines) = self.files.remove(&path)
            {
                let new_path = self.new_file();
                if !lines.is_empty() {
                    let at = self.rng.below(lines.len());
                    lines[at] = line(&mut self.rng);
                }
                ops.push((path, None));
                ops.push((new_path.clone(), Some(lines.concat().into_bytes())));
                self.files.insert(new_path, lines);
            }
        } else if roll < 6 {
            let mut bytes = vec![0u8; 64 + self.rng.below(256)];
            for b in &mut bytes {
                *b = (self.rng.next_u64() & 0xff) as u8;
            }
            bytes[0] = 0;
            ops.push((format!("assets/blob{}.bin", self.rng.below(8)), Some(bytes)));
        } else {
            for _ in 0..1 + self.rng.below(3) {
                let index = self.rng.below(self.files.len());
                let Some(path) = self.files.keys().nth(index).cloned() else {
                    continue;
                };
                let mut lines = self.files.remove(&path).unwrap_or_default();
                for _ in 0..1 + self.rng.below(6) {
                    let at = self.rng.below(lines.len() + 1);
                    match self.rng.below(3) {
                        0 if at < lines.len() => {
                            lines.remove(at);
                        }
                        1 if at < lines.len() => lines[at] = line(&mut self.rng),
                        _ => lines.insert(at, line(&mut self.rng)),
                    }
                }
                ops.push((path.clone(), Some(lines.concat().into_bytes())));
                self.files.insert(path, lines);
            }
        }
        let mut text = Vec::new();
        for (path, content) in ops {
            match content {
                Some(bytes) => {
                    text.extend_from_slice(format!("M 100644 inline {path}\n").as_bytes());
                    text.extend_from_slice(format!("data {}\n", bytes.len()).as_bytes());
                    text.extend_from_slice(&bytes);
                    text.push(b'\n');
                }
                None => text.extend_from_slice(format!("D {path}\n").as_bytes()),
            }
        }
        text
    }

    fn commit(&mut self, branch: &str, from: Option<usize>, merge: Option<usize>) -> usize {
        self.mark += 1;
        self.time += 60;
        let mark = self.mark;
        let stamp = format!("Bench <bench@keel.invalid> {} +0000", self.time);
        self.out.extend_from_slice(
            format!(
                "commit refs/heads/{branch}\nmark :{mark}\nauthor {stamp}\ncommitter {stamp}\n"
            )
            .as_bytes(),
        );
        let message = if self.rng.below(4) == 0 {
            format!("change {mark}\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n")
        } else {
            format!("change {mark}\n")
        };
        self.data(message.as_bytes());
        if let Some(from) = from {
            self.out
                .extend_from_slice(format!("from :{from}\n").as_bytes());
        }
        if let Some(merge) = merge {
            self.out
                .extend_from_slice(format!("merge :{merge}\n").as_bytes());
        } else {
            let changes = self.changes();
            self.out.extend_from_slice(&changes);
        }
        self.out.push(b'\n');
        mark
    }
}

/// Writes a history of `commits` non-merge commits into a new repository at `root`.
fn generate(root: &Path, commits: usize) -> Result<(), BoxError> {
    std::fs::create_dir_all(root)?;
    run(pinned_git(root).args(["init", "-q", "--initial-branch=main"]))?;
    let mut generator = Generator {
        rng: SeededRng::new(0x5CA9),
        files: BTreeMap::new(),
        next_file: 0,
        out: Vec::new(),
        mark: 0,
        time: BASE,
    };
    let mut main = generator.commit("main", None, None);
    let mut made = 1;
    let mut side = 0;
    while made < commits {
        if made % 400 == 0 {
            // A side branch of three commits, merged back with a merge commit. Side
            // branches edit only their own new file so the merge needs no tree merge.
            side += 1;
            let branch = format!("side{side}");
            let mut tip = generator.commit(&branch, Some(main), None);
            tip = generator.commit(&branch, Some(tip), None);
            tip = generator.commit(&branch, Some(tip), None);
            made += 3;
            // fast-import's merge keeps the tree of `from` plus what the commit lists; the
            // files the branch touched are re-listed by the next main commit anyway.
            main = generator.commit("main", Some(main), Some(tip));
            continue;
        }
        main = generator.commit("main", Some(main), None);
        made += 1;
    }
    let mut child = pinned_git(root)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("fast-import has no stdin")?
        .write_all(&generator.out)?;
    if !child.wait()?.success() {
        return Err("git fast-import failed".into());
    }
    run(pinned_git(root).args(["repack", "-adq"]))?;
    run(pinned_git(root).args(["checkout", "-q", "-f", "main"]))?;
    Ok(())
}

fn run(command: &mut std::process::Command) -> Result<Vec<u8>, BoxError> {
    let output = command.output()?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(output.stdout)
}

fn git_log(root: &Path) -> Result<Vec<u8>, BoxError> {
    run(pinned_git(root).args(["log", "--all", "--no-merges", "--numstat", "--format=@%H"]))
}

fn parse_git(text: &[u8]) -> HashMap<String, Numstat> {
    let mut out: HashMap<String, Numstat> = HashMap::new();
    let mut current = String::new();
    for line in String::from_utf8_lossy(text).lines() {
        if let Some(sha) = line.strip_prefix('@') {
            current = sha.to_owned();
            out.insert(current.clone(), Numstat::default());
        } else if !line.is_empty()
            && let Some(stat) = out.get_mut(&current)
        {
            let mut parts = line.split('\t');
            stat.files += 1;
            stat.added += parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            stat.deleted += parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        }
    }
    out
}

/// One cold keel scan: a fresh database, the sessions file, the planned scan.
fn keel_scan(
    root: &Path,
    sessions: &Path,
    now: Instant,
) -> Result<(Duration, HashMap<String, Numstat>), BoxError> {
    let start = std::time::Instant::now();
    let mut db = KeelDatabase::detached();
    let sources = SessionSources {
        sessions: sessions.to_owned().into(),
        decisions: None,
        now,
        days: 3650,
        repos: Some(keel_engine::sessions::ExplicitRepos {
            origin: "bench".to_owned(),
            paths: vec![root.to_owned()],
        }),
        trailers: BTreeMap::new(),
    };
    let loaded = db.apply_changes(&[ChangeEvent::SessionsFrom(Box::new(sources))])?;
    let world = loaded
        .sessions_loaded
        .ok_or("the sessions file made no world")?;
    let plan = keel_queries::sessions::scan_plan(&db, world);
    db.apply_changes(&[ChangeEvent::ScanPlanned(plan)])?;
    let elapsed = start.elapsed();
    let repo = world.repos(&db)[0];
    let stats = repo
        .commits(&db)
        .iter()
        .map(|c| (c.id(&db).to_string(), c.numstat(&db)))
        .collect();
    Ok((elapsed, stats))
}

#[global_allocator]
static ALLOCATOR: keel_engine::allocator::Allocator = keel_engine::allocator::Allocator;

fn main() -> Result<(), BoxError> {
    let mut args = std::env::args().skip(1);
    let commits: usize = args.next().map_or(Ok(10_000), |a| a.parse())?;
    let runs: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("history");
    let started = std::time::Instant::now();
    generate(&root, commits)?;
    let root = root.canonicalize()?;
    eprintln!(
        "generated {commits} commits in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    let sessions = dir.path().join("sessions.jsonl");
    let end = BASE + 60 * (commits as i64 + 2000);
    let to_rfc = |secs: i64| Instant::from_secs(secs).to_rfc3339();
    std::fs::write(
        &sessions,
        format!(
            "{{\"session_id\":\"bench\",\"harness\":\"claude-code\",\"start\":\"{}\",\"end\":\"{}\",\"repo\":null,\"project\":null,\"cost\":{{\"total\":1}},\"api_calls\":1,\"tools\":{{}}}}\n",
            to_rfc(BASE - 3600),
            to_rfc(end)
        ),
    )?;
    let now = Instant::from_secs(end + 3600);
    let mut git_best = Duration::MAX;
    let mut keel_best = Duration::MAX;
    let mut git_stats = HashMap::new();
    let mut keel_stats = HashMap::new();
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let out = git_log(&root)?;
        git_best = git_best.min(start.elapsed());
        git_stats = parse_git(&out);
        let (elapsed, stats) = keel_scan(&root, &sessions, now)?;
        keel_best = keel_best.min(elapsed);
        keel_stats = stats;
    }
    let agree = git_stats
        .iter()
        .filter(|(sha, stat)| keel_stats.get(*sha) == Some(stat))
        .count();
    let ratio = keel_best.as_secs_f64() / git_best.as_secs_f64();
    println!(
        "scan-vs-git: {} non-merge commits; git log --all --no-merges --numstat {:.3}s; keel L-scan {:.3}s ({} threads); ratio keel/git {ratio:.2} (goal <= 0.80); numstat agreement {agree}/{} commits (keel scanned {})",
        git_stats.len(),
        git_best.as_secs_f64(),
        keel_best.as_secs_f64(),
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        git_stats.len(),
        keel_stats.len(),
    );
    Ok(())
}
