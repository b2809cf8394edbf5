//! The developer's loop as a property: one long-lived database, driven through
//! `apply_changes` by a seeded random walk of moves on a generated repository, answers
//! what a fresh database answers.
//!
//! The walk (seed [`SEED`], [`MOVES`] moves) commits edits inside and outside anchored
//! units and new files, resets the branch `git reset --hard HEAD~k`, merges another branch
//! `--no-ff` (conflicts resolved `-X theirs`, else an `-s ours` merge), switches branches,
//! edits specs (prose, or which units they anchor), renames files with `git mv` (with or
//! without an edit), toggles `keel.toml`, and saves the working tree uncommitted (an edit
//! inside or outside an anchored unit, a spec, `keel.toml`, a new untracked file, a
//! deletion), judged with `ChangeEvent::Worktree`; a later commit takes the saves along
//! or they are dropped first. After every move the long-lived database gets the move's
//! event (`TipMoved`, or `Worktree` for a save) and is linted, and its tip is checked
//! against HEAD (or the working tree's commit). Every [`FRESH_EVERY`]-th move, and the
//! first move of each kind, a fresh `KeelDatabase::open` of the same repository (given
//! the same event for a save) is linted too and the two reports must be equal; then the
//! long-lived database writes its on-disk memo and a new database opened on that memo
//! (`KeelDatabase::open_with_memo`, as the next process opens it) must answer the same. A fresh
//! database re-reads and re-parses the whole history, so a comparison after every one of
//! the 1,000 moves would take minutes in a debug build; the long-lived database is still
//! linted after every move, and a stale memo stays stale until a comparison finds it. A
//! reset takes the branch far back once the tip's history passes [`MAX_HISTORY`] commits,
//! so what each lint costs stays bounded over the walk.
//!
//! Positive controls, asserted on every move they apply to: a committed edit inside an
//! anchored unit is an `anchor-hit` for that commit, and a saved one for the working
//! tree's commit. At the end, every kind of move must have happened and the reports must
//! have shown each finding kind the walk is built to produce, so a generator regression
//! cannot make the comparison vacuous. Nothing is printed on success; a failure names the
//! seed, the move and the moves before it.

use crate::loop_events::{assert_same, hit_commits};
use crate::support::repo;
use keel_engine::Oid;
use keel_engine::inputs::Tip;
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::FixtureRepo;
use keel_fixtures::rng::SeededRng;
use keel_queries::lint::{KeptLint, LintReport, Scope, extend, lint, lint_at, lint_state_at};
use std::collections::{BTreeMap, BTreeSet};

/// The build name the walk's memo is written and read under.
const MEMO_BUILD: &str = "loop-property";

/// The walk's seed.
const SEED: u64 = 0x6b65_656c_6c6f_6f70;
/// How many moves the walk makes.
const MOVES: usize = 1_000;
/// A fresh database is compared every this many moves (and at each kind's first move).
const FRESH_EVERY: usize = 10;
/// A reset takes a tip with a longer history than this three quarters of the way back
/// along its first parents.
const MAX_HISTORY: usize = 80;
/// The code files: slot `i` is `m{i}.py`, or `m{i}_moved.py` after a rename.
const SLOTS: usize = 4;
/// Functions per code file: `f0` … `f4`.
const FUNCTIONS: usize = 5;
/// The branches the walk moves between.
const BRANCHES: [&str; 3] = ["main", "side", "topic"];
/// The nodes whose anchors a spec edit may change (`extra` keeps its folder entry).
const CODE_NODES: [&str; 4] = ["n0", "n1", "n2", "n3"];

/// One kind of move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    EditInside,
    EditOutside,
    AddFile,
    Reset,
    Merge,
    Switch,
    SpecEdit,
    Rename,
    Settings,
    Worktree,
}

/// The kinds with their weights out of 100.
const WEIGHTS: [(Kind, usize); 10] = [
    (Kind::EditInside, 16),
    (Kind::EditOutside, 10),
    (Kind::AddFile, 5),
    (Kind::Reset, 8),
    (Kind::Merge, 9),
    (Kind::Switch, 8),
    (Kind::SpecEdit, 10),
    (Kind::Rename, 6),
    (Kind::Settings, 5),
    (Kind::Worktree, 23),
];

/// A spec node's entries, as the walk writes them.
#[derive(Debug, Clone, Default)]
struct Spec {
    code: Vec<String>,
    related: Vec<String>,
}

impl Spec {
    fn new(code: &[&str], related: &[&str]) -> Self {
        let own = |entries: &[&str]| entries.iter().map(|e| (*e).to_owned()).collect();
        Self {
            code: own(code),
            related: own(related),
        }
    }

    /// `spec.md` with `revision` in its prose. Each list is one flow-style line, so a
    /// merge of two sides' specs takes one side's list whole (git sees adjacent changed
    /// lines as one conflict, which `-X theirs` resolves to one side) and never mixes two
    /// lists into one that keel would refuse.
    fn text(&self, revision: usize) -> String {
        let list = |entries: &[String]| {
            let quoted: Vec<String> = entries.iter().map(|e| format!("\"{e}\"")).collect();
            format!("[{}]", quoted.join(", "))
        };
        format!(
            "---\ncode: {}\nrelated: {}\n---\n# A node\n\nRevision {revision}.\n",
            list(&self.code),
            list(&self.related)
        )
    }

    /// The entries of a `spec.md` the walk wrote (possibly merged by git).
    fn parse(text: &str) -> Self {
        let list = |key: &str| -> Vec<String> {
            let line = text
                .lines()
                .find_map(|line| line.strip_prefix(key))
                .unwrap_or_else(|| panic!("`{key}` in:\n{text}"));
            let inner = line
                .strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .unwrap_or_else(|| panic!("a flow list in `{line}`"));
            inner
                .split(", ")
                .filter(|e| !e.is_empty())
                .map(|e| e.trim_matches('"').to_owned())
                .collect()
        };
        Self {
            code: list("code: "),
            related: list("related: "),
        }
    }
}

/// Edited return values start here; generated ones stay below.
const EDITED: usize = 1_000_000;

/// A Python file of `FUNCTIONS` functions returning `seed`, `seed + 1`, ….
fn module(seed: usize) -> String {
    (0..FUNCTIONS)
        .map(|k| format!("def f{k}():\n    return {}\n", seed + k))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `text` with function `function`'s body changed: its return value set to a value no
/// generated module holds (above [`EDITED`]), or a statement inserted at its top (which
/// shifts every later unit).
fn edit_function(text: &str, function: &str, serial: usize, insert: bool) -> String {
    let header = format!("def {function}():");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = lines
        .iter()
        .position(|line| *line == header)
        .unwrap_or_else(|| panic!("{function} is defined in:\n{text}"));
    if insert {
        lines.insert(at + 1, format!("    step_{serial} = {serial}"));
    } else {
        let body_end = (at + 1..lines.len())
            .find(|&i| !lines[i].starts_with("    "))
            .unwrap_or(lines.len());
        lines[body_end - 1] = format!("    return {}", EDITED + serial);
    }
    let edited = lines.join("\n") + "\n";
    assert_ne!(edited, text, "an edit changes the file");
    edited
}

/// The walk's state beside the repository: what git does not say cheaply.
struct Walk {
    repo: FixtureRepo,
    rng: SeededRng,
    serial: usize,
    branch: &'static str,
    /// Nodes whose spec the working tree changed since HEAD (uncommitted).
    dirty_specs: BTreeSet<String>,
    /// Whether the working tree differs from HEAD.
    dirty: bool,
    /// The moves so far, for a failure's message.
    log: Vec<String>,
}

impl Walk {
    fn git(&self, args: &[&str]) -> String {
        self.repo
            .git(args)
            .unwrap_or_else(|err| panic!("{err}\n{}", self.history()))
    }

    fn try_git(&self, args: &[&str]) -> bool {
        self.repo.git(args).is_ok()
    }

    /// HEAD's commit, read from the repository's files (git's `rev-parse` when the ref
    /// is packed): one spawn less per move.
    fn head(&self) -> String {
        let git_dir = self.repo.path().join(".git");
        let head = std::fs::read_to_string(git_dir.join("HEAD")).expect("HEAD is readable");
        let loose = head
            .trim()
            .strip_prefix("ref: ")
            .and_then(|name| std::fs::read_to_string(git_dir.join(name)).ok());
        loose.map_or_else(
            || self.git(&["rev-parse", "HEAD"]).trim().to_owned(),
            |id| id.trim().to_owned(),
        )
    }

    /// A branch other than the current one, picked at random.
    fn other_branch(&mut self) -> &'static str {
        let others: Vec<&'static str> = BRANCHES
            .iter()
            .copied()
            .filter(|b| *b != self.branch)
            .collect();
        self.pick::<&'static str>(&others).to_owned()
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.below(items.len())]
    }

    fn next_serial(&mut self) -> usize {
        self.serial += 1;
        self.serial
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.repo.path().join(path))
            .unwrap_or_else(|err| panic!("{path}: {err}\n{}", self.history()))
    }

    fn exists(&self, path: &str) -> bool {
        self.repo.path().join(path).is_file()
    }

    fn write(&self, path: &str, text: &str) {
        self.repo
            .write(path, text)
            .expect("the work tree is writable");
    }

    fn commit(&mut self, message: &str) -> String {
        let id = self
            .repo
            .commit(message)
            .unwrap_or_else(|err| panic!("{err}\n{}", self.history()));
        self.dirty = false;
        self.dirty_specs.clear();
        id
    }

    /// The last moves, newest last.
    fn history(&self) -> String {
        let start = self.log.len().saturating_sub(30);
        format!(
            "seed {SEED:#x}, moves {start}..{}:\n{}",
            self.log.len(),
            self.log[start..].join("\n")
        )
    }

    /// The Python files of the working tree (outside `.spec/`), sorted.
    fn python_files(&self) -> Vec<String> {
        let mut files = Vec::new();
        let mut folders = vec![String::new()];
        while let Some(folder) = folders.pop() {
            let entries = std::fs::read_dir(self.repo.path().join(&folder)).expect("listable");
            for entry in entries {
                let entry = entry.expect("a folder entry");
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = format!("{folder}{name}");
                if entry.file_type().expect("a file type").is_dir() {
                    if name != ".git" && name != ".spec" {
                        folders.push(format!("{path}/"));
                    }
                } else if name.ends_with(".py") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }

    /// Every node's spec as the working tree holds it.
    fn specs(&self) -> BTreeMap<String, Spec> {
        let mut specs = BTreeMap::new();
        for node in CODE_NODES.iter().chain(&["extra"]) {
            let path = format!(".spec/{node}/spec.md");
            specs.insert((*node).to_owned(), Spec::parse(&self.read(&path)));
        }
        specs
    }

    /// The `(node, path, function)` triples anchored in `code:` whose file exists.
    fn anchored(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for (node, spec) in self.specs() {
            for entry in &spec.code {
                let Some((path, selectors)) = entry.split_once('#') else {
                    continue;
                };
                if self.exists(path) {
                    for selector in selectors.split(',') {
                        out.push((node.clone(), path.to_owned(), selector.to_owned()));
                    }
                }
            }
        }
        out
    }

    /// Edits a function no `code:` entry anchors in its file, or appends a top-level
    /// line; returns what it did.
    fn edit_outside(&mut self) -> String {
        let files = self.python_files();
        let path = self.pick(&files).clone();
        let anchored: BTreeSet<String> = self
            .anchored()
            .into_iter()
            .filter(|(_, p, _)| *p == path)
            .map(|(_, _, f)| f)
            .collect();
        let text = self.read(&path);
        let free: Vec<String> = (0..FUNCTIONS)
            .map(|k| format!("f{k}"))
            .filter(|f| !anchored.contains(f) && text.contains(&format!("def {f}():")))
            .collect();
        let serial = self.next_serial();
        if free.is_empty() || self.rng.below(4) == 0 {
            self.write(&path, &format!("{text}\n\nLIMIT_{serial} = {serial}\n"));
            format!("top-level line in {path}")
        } else {
            let function = self.pick(&free).clone();
            let insert = self.rng.below(2) == 0;
            self.write(&path, &edit_function(&text, &function, serial, insert));
            format!("{path}#{function} (outside)")
        }
    }

    /// Edits an anchored unit whose node's spec is not dirty; returns the node and what
    /// it did, or `None` when no such unit exists.
    fn edit_inside(&mut self) -> Option<(String, String)> {
        let candidates: Vec<(String, String, String)> = self
            .anchored()
            .into_iter()
            .filter(|(node, _, _)| !self.dirty_specs.contains(node))
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let (node, path, function) = self.pick(&candidates).clone();
        let serial = self.next_serial();
        let insert = self.rng.below(2) == 0;
        let text = edit_function(&self.read(&path), &function, serial, insert);
        self.write(&path, &text);
        let what = format!("{path}#{function} (inside, node {node})");
        Some((node, what))
    }

    /// A slot and an entry naming units of it (by its canonical name, or where it is now).
    fn random_entry(&mut self) -> (usize, String) {
        let slot = self.rng.below(SLOTS);
        let moved = format!("m{slot}_moved.py");
        let path = if self.rng.below(4) == 0 && self.exists(&moved) {
            moved
        } else {
            format!("m{slot}.py")
        };
        let first = self.rng.below(FUNCTIONS);
        let second = self.rng.below(FUNCTIONS);
        let entry = if first == second {
            format!("{path}#f{first}")
        } else {
            format!("{path}#f{first},f{second}")
        };
        (slot, entry)
    }

    /// Writes a new spec for a node: prose only, or new anchors; returns the node and
    /// what it did.
    fn edit_spec(&mut self) -> (String, String) {
        let node = if self.rng.below(6) == 0 {
            "extra"
        } else {
            *self.pick(&CODE_NODES)
        };
        let mut spec = self.specs().remove(node).expect("every node has a spec");
        let what = if node == "extra" || self.rng.below(3) == 0 {
            "prose".to_owned()
        } else {
            let (slot, entry) = self.random_entry();
            spec.code = vec![entry];
            let bare = self.rng.below(SLOTS);
            if bare != slot && self.rng.below(3) == 0 {
                spec.code.push(format!("m{bare}.py"));
            }
            spec.related.clear();
            if self.rng.below(3) == 0 {
                let (_, entry) = self.random_entry();
                spec.related.push(entry);
            }
            format!("code {:?} related {:?}", spec.code, spec.related)
        };
        let serial = self.next_serial();
        self.write(&format!(".spec/{node}/spec.md"), &spec.text(serial));
        (node.to_owned(), format!("spec {node}: {what}"))
    }

    /// Toggles `keel.toml`: absent → ignore → warn or absent.
    fn toggle_settings(&mut self) -> String {
        let current = self.exists("keel.toml").then(|| self.read("keel.toml"));
        match current {
            None => {
                self.write("keel.toml", "[lint]\nscoped_code_miss = \"ignore\"\n");
                "keel.toml: ignore".to_owned()
            }
            Some(text) if text.contains("ignore") && self.rng.below(2) == 0 => {
                self.write("keel.toml", "[lint]\nscoped_code_miss = \"warn\"\n");
                "keel.toml: warn".to_owned()
            }
            Some(_) => {
                self.repo.remove("keel.toml").expect("removable");
                "keel.toml: removed".to_owned()
            }
        }
    }

    /// Drops uncommitted changes.
    fn discard(&mut self) {
        if self.dirty {
            self.git(&["reset", "--quiet", "--hard"]);
            self.git(&["clean", "--quiet", "-fd"]);
            self.dirty = false;
            self.dirty_specs.clear();
        }
    }
}

/// The generated repository: four modules, an `extra/` folder, five nodes, three branches
/// at the root commit.
fn build() -> Walk {
    let mut repo = repo();
    for slot in 0..SLOTS {
        repo.write(&format!("m{slot}.py"), &module(10 * slot))
            .expect("writable");
    }
    repo.write("extra/seed.py", &module(100)).expect("writable");
    let specs = [
        ("n0", Spec::new(&["m0.py#f0,f1"], &[])),
        ("n1", Spec::new(&["m1.py#f2", "m2.py"], &[])),
        ("n2", Spec::new(&["m2.py#f0"], &["m0.py#f3"])),
        ("n3", Spec::new(&["m3.py#f4"], &[])),
        ("extra", Spec::new(&["extra/"], &[])),
    ];
    for (node, spec) in &specs {
        repo.write(&format!(".spec/{node}/spec.md"), &spec.text(0))
            .expect("writable");
    }
    repo.commit("Generated modules and specs")
        .expect("git commits");
    for branch in &BRANCHES[1..] {
        repo.git(&["branch", branch]).expect("git branches");
    }
    Walk {
        repo,
        rng: SeededRng::new(SEED),
        serial: 0,
        branch: "main",
        dirty_specs: BTreeSet::new(),
        dirty: false,
        log: Vec::new(),
    }
}

/// What a move expects of the long-lived report.
enum Expect {
    Nothing,
    /// Node's anchor-hit names this commit.
    Hit {
        node: String,
        commit: String,
    },
    /// Node's anchor-hit names the working tree's commit.
    WorktreeHit {
        node: String,
    },
}

/// Makes one move of `kind`; returns the event to apply, what it did and what the
/// report must show.
fn make_move(walk: &mut Walk, kind: Kind) -> (ChangeEvent, String, Expect) {
    let committing = matches!(
        kind,
        Kind::EditInside
            | Kind::EditOutside
            | Kind::AddFile
            | Kind::SpecEdit
            | Kind::Rename
            | Kind::Settings
    );
    // A commit may take along what was saved; anything else starts from a clean tree.
    if kind != Kind::Worktree && !(committing && walk.rng.below(2) == 0) {
        walk.discard();
    }
    let mut expect = Expect::Nothing;
    let what = match kind {
        Kind::EditInside => match walk.edit_inside() {
            Some((node, what)) => {
                let commit = walk.commit("Edit inside an anchored unit");
                expect = Expect::Hit { node, commit };
                what
            }
            None => {
                let what = walk.edit_outside();
                walk.commit("Edit outside (nothing anchored is live)");
                what
            }
        },
        Kind::EditOutside => {
            let what = walk.edit_outside();
            walk.commit("Edit outside anchored units");
            what
        }
        Kind::AddFile => {
            let serial = walk.next_serial();
            let path = if walk.rng.below(2) == 0 {
                format!("extra/n{serial}.py")
            } else {
                format!("top{serial}.py")
            };
            walk.write(&path, &module(serial));
            walk.commit("Add a file");
            format!("add {path}")
        }
        Kind::Reset => {
            // Far back when the tip's history grew long, so it (and what every lint
            // costs) stays bounded over the walk.
            let count =
                |args: &[&str]| -> usize { walk.git(args).trim().parse().expect("a count") };
            let k = if count(&["rev-list", "--count", "HEAD"]) > MAX_HISTORY {
                count(&["rev-list", "--count", "--first-parent", "HEAD"]) * 3 / 4
            } else {
                1 + walk.rng.below(3)
            };
            let target = format!("HEAD~{k}");
            if walk.try_git(&["rev-parse", "--quiet", "--verify", &target]) {
                walk.git(&["reset", "--quiet", "--hard", &target]);
                format!("reset --hard {target} on {}", walk.branch)
            } else {
                format!("reset {target} skipped: too shallow")
            }
        }
        Kind::Merge => {
            let other = walk.other_branch();
            let message = format!("Merge {other} into {}", walk.branch);
            let before = walk.head();
            let how = if walk.try_git(&[
                "merge", "--quiet", "--no-ff", "-X", "theirs", "-m", &message, other,
            ]) {
                "-X theirs"
            } else {
                if !walk.try_git(&["merge", "--abort"]) {
                    walk.git(&["reset", "--quiet", "--hard"]);
                }
                walk.git(&[
                    "merge", "--quiet", "--no-ff", "-s", "ours", "-m", &message, other,
                ]);
                "-s ours"
            };
            let merged = walk.head() != before;
            format!(
                "merge {how} {other} into {} (new commit: {merged})",
                walk.branch
            )
        }
        Kind::Switch => {
            let other = walk.other_branch();
            walk.git(&["checkout", "--quiet", other]);
            walk.branch = other;
            format!("switch to {other}")
        }
        Kind::SpecEdit => {
            let (_, what) = walk.edit_spec();
            walk.commit("Edit a spec");
            what
        }
        Kind::Rename => {
            let slot = walk.rng.below(SLOTS);
            let (from, to) = (format!("m{slot}.py"), format!("m{slot}_moved.py"));
            let (from, to) = if walk.exists(&from) {
                (from, to)
            } else {
                (to, from)
            };
            // `-f`: a merge may have brought both names back; the rename replaces one.
            walk.git(&["mv", "-f", &from, &to]);
            let mut what = format!("git mv {from} {to}");
            if walk.rng.below(2) == 0 {
                let serial = walk.next_serial();
                let function = format!("f{}", walk.rng.below(FUNCTIONS));
                let text = edit_function(&walk.read(&to), &function, serial, false);
                walk.write(&to, &text);
                what.push_str(&format!(" and edit {function}"));
            }
            walk.commit("Rename a module");
            what
        }
        Kind::Settings => {
            let what = walk.toggle_settings();
            walk.commit("Toggle settings");
            what
        }
        Kind::Worktree => {
            walk.dirty = true;
            match walk.rng.below(8) {
                0 => {
                    let (node, what) = walk.edit_spec();
                    walk.dirty_specs.insert(node);
                    format!("save {what}")
                }
                1 => format!("save {}", walk.toggle_settings()),
                2 | 3 => match walk.edit_inside() {
                    Some((node, what)) => {
                        expect = Expect::WorktreeHit { node };
                        format!("save {what}")
                    }
                    None => format!("save {}", walk.edit_outside()),
                },
                5 => {
                    let serial = walk.next_serial();
                    let path = format!("extra/w{serial}.py");
                    walk.write(&path, &module(serial));
                    format!("save untracked {path}")
                }
                6 => {
                    // Any file but a slot's, whose deletion a later commit may keep.
                    let removable: Vec<String> = walk
                        .python_files()
                        .into_iter()
                        .filter(|path| path.contains('/') || !path.starts_with('m'))
                        .collect();
                    if removable.is_empty() {
                        format!("save {}", walk.edit_outside())
                    } else {
                        let path = walk.pick(&removable).clone();
                        walk.repo.remove(&path).expect("removable");
                        format!("save deletion of {path}")
                    }
                }
                _ => format!("save {}", walk.edit_outside()),
            }
        }
    };
    let event = if kind == Kind::Worktree {
        ChangeEvent::Worktree
    } else {
        ChangeEvent::TipMoved
    };
    (event, what, expect)
}

/// The reports' finding kinds the walk is built to produce, each of which must show up.
const FINDING_KINDS: [&str; 5] = [
    "anchor-hit",
    "scoped-code-miss",
    "code-drift",
    "dead-anchor",
    "related-hit",
];

#[test]
fn a_long_lived_database_answers_what_a_fresh_one_answers_after_every_move() {
    let mut walk = build();
    let mut db = KeelDatabase::open(walk.repo.path()).expect("the generated repository opens");
    lint(&db).expect("the generated specs are valid");

    let mut kinds: BTreeMap<Kind, usize> = BTreeMap::new();
    let mut findings: BTreeMap<&'static str, usize> = BTreeMap::new();
    let (mut hits, mut worktree_hits, mut fresh_checks, mut merges) = (0, 0, 0, 0);
    let (mut memo_checks, mut extended, mut extended_candidates, mut judged_whole) = (0, 0, 0, 0);
    for step in 0..MOVES {
        let roll = walk.rng.below(100);
        let mut kind = WEIGHTS[0].0;
        let mut bound = 0;
        for (candidate, weight) in WEIGHTS {
            bound += weight;
            if roll < bound {
                kind = candidate;
                break;
            }
        }
        let first_of_kind = !kinds.contains_key(&kind);
        *kinds.entry(kind).or_default() += 1;
        let before = walk.head();
        let (event, what, expect) = make_move(&mut walk, kind);
        walk.log.push(format!("{step}: {what}"));
        if kind == Kind::Merge && walk.head() != before {
            merges += 1;
        }

        let changes = db
            .apply_changes(std::slice::from_ref(&event))
            .unwrap_or_else(|err| panic!("{err}\n{}", walk.history()));
        let (state, report) = lint_state_at(&db, Tip::get(&db).commit(&db), Scope::Full)
            .unwrap_or_else(|err| panic!("lint refused: {err:?}\n{}", walk.history()));
        let tip = changes
            .worktree
            .map_or_else(|| walk.head(), |commit| commit.to_string());
        assert_eq!(
            report.tip.as_deref(),
            Some(tip.as_str()),
            "the long-lived tip\n{}",
            walk.history()
        );
        for finding in &report.findings {
            if let Some(kind) = FINDING_KINDS.iter().find(|k| **k == finding.code) {
                *findings.entry(kind).or_default() += 1;
            }
        }
        match &expect {
            Expect::Nothing => {}
            Expect::Hit { node, commit } => {
                assert!(
                    hit_commits(&report, node).contains(commit),
                    "the positive control: {commit} edits a unit node {node} anchors\n{}",
                    walk.history()
                );
                hits += 1;
            }
            Expect::WorktreeHit { node } => {
                assert!(
                    changes.worktree.is_some() && hit_commits(&report, node).contains(&tip),
                    "the positive control: the saved edit is a unit node {node} anchors\n{}",
                    walk.history()
                );
                worktree_hits += 1;
            }
        }

        if event != ChangeEvent::Worktree {
            match extended_answer(&walk.repo, Scope::Full) {
                Some(answer) => {
                    let context = format!("the kept answer extended, after {}", walk.history());
                    assert_same(&answer, &report, &context);
                    extended += 1;
                    // A candidate's scope extends unless it is the kept tip itself.
                    if let Some(pending) = extended_answer(&walk.repo, Scope::Pending) {
                        let whole = lint_at(&db, Tip::get(&db).commit(&db), Scope::Pending)
                            .unwrap_or_else(|err| panic!("{err:?}\n{}", walk.history()));
                        let context = format!("the candidate's scope, after {}", walk.history());
                        assert_same(&pending, &whole, &context);
                        extended_candidates += 1;
                    }
                }
                None => judged_whole += 1,
            }
            let state = state.expect("a committed tip has a state");
            db.write_kept_lint(MEMO_BUILD, &KeptLint::of(state))
                .expect("the answer is kept");
        }

        if first_of_kind || step % FRESH_EVERY == FRESH_EVERY - 1 {
            let mut fresh = KeelDatabase::open(walk.repo.path()).expect("the repository opens");
            if event == ChangeEvent::Worktree {
                fresh
                    .apply_changes(std::slice::from_ref(&event))
                    .expect("the working tree is read");
            }
            let fresh = lint(&fresh)
                .unwrap_or_else(|err| panic!("fresh lint refused: {err:?}\n{}", walk.history()));
            assert_same(&report, &fresh, &format!("after {}", walk.history()));
            fresh_checks += 1;

            db.save_memo(MEMO_BUILD).expect("the memo is written");
            let (mut next, discarded) = KeelDatabase::open_with_memo(walk.repo.path(), MEMO_BUILD)
                .expect("the repository opens");
            assert_eq!(discarded, None, "the memo is read back");
            if event == ChangeEvent::Worktree {
                next.apply_changes(std::slice::from_ref(&event))
                    .expect("the working tree is read");
            }
            let next = lint(&next)
                .unwrap_or_else(|err| panic!("memo lint refused: {err:?}\n{}", walk.history()));
            assert_same(
                &next,
                &fresh,
                &format!("a new process on the memo, after {}", walk.history()),
            );
            memo_checks += 1;
        }
    }

    let missing: Vec<Kind> = WEIGHTS
        .iter()
        .map(|(kind, _)| *kind)
        .filter(|kind| kinds.get(kind).copied().unwrap_or(0) < 10)
        .collect();
    assert!(
        missing.is_empty(),
        "kinds made under 10 times: {missing:?} ({kinds:?})"
    );
    let unseen: Vec<&str> = FINDING_KINDS
        .iter()
        .copied()
        .filter(|kind| !findings.contains_key(kind))
        .collect();
    assert!(
        unseen.is_empty(),
        "finding kinds never reported: {unseen:?}"
    );
    assert!(hits >= 50, "committed positive controls: {hits}");
    assert!(
        worktree_hits >= 20,
        "saved positive controls: {worktree_hits}"
    );
    assert!(merges >= 20, "merges that made a commit: {merges}");
    assert!(
        fresh_checks >= MOVES / FRESH_EVERY,
        "fresh comparisons: {fresh_checks}"
    );
    assert_eq!(
        memo_checks, fresh_checks,
        "every fresh comparison checks the memo too"
    );
    assert!(
        extended >= 200 && extended_candidates >= 200 && judged_whole >= 100,
        "committed moves answered by extending the kept answer: {extended} ({extended_candidates} \
         as candidates), judged whole: {judged_whole}"
    );
}

/// What a new process answers from the answer the walk kept on disk, extended by the
/// commits since it (`keel lint` at HEAD, or `--pending HEAD` for `Scope::Pending`), or
/// `None` when it would judge the whole history instead.
fn extended_answer(repo: &FixtureRepo, scope: Scope) -> Option<LintReport> {
    let next = KeelDatabase::open_objects(repo.path()).expect("the repository opens");
    let kept: KeptLint = next
        .read_kept_lint(MEMO_BUILD)
        .expect("the kept answer is read")?
        .expect("the kept answer is this build's");
    let kept = kept.into_state();
    let kept_tip = Oid::from_hex(kept.tip()).expect("a commit id");
    let (next, since) = next.open_since(None, kept_tip, 64).expect("HEAD is read")?;
    let tip = Tip::get(&next).commit(&next)?;
    extend(&next, &kept, tip, &since, scope)
        .expect("the new commits are read")
        .map(|(_, report)| report)
}
