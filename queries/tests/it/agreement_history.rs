//! Lint against an independent git-CLI oracle on BRANCHY histories: merges, renames and
//! spec versions on both sides of a merge.
//!
//! The oracle shares only the extractor with keel (`keel_queries::extract::extract` gives
//! unit ranges of the blobs git prints); everything else is the git CLI under the fixture's
//! pinned environment, with git's diff flags pinned on every call (`--histogram
//! --no-indent-heuristic -U0 --no-color --no-ext-diff --no-textconv -M`), and the
//! hunk∩range predicate written again on git's 1-based numbers. The rules, as keel reads
//! the seed ("Judgment", "Renames add the same cost-conservation boundary"):
//!
//! - order and reachability are `git rev-list <tip>`;
//! - a tip path's lineage is walked children before parents (`git rev-list --topo-order`):
//!   a commit's path set is the union over its children of what `git diff -M
//!   --name-status <commit> <child>` maps each child path back to (a rename target to its
//!   source, an addition to nothing, anything else to itself), so an event before a rename
//!   follows the rename, a rename before an event means the old path was reused, and
//!   incomparable branches fork;
//! - an event is a commit whose path set holds a path it changed: for a non-merge commit a
//!   modification, an addition or a rename target (a pure rename included); for a merge only
//!   the lines of its dense combined diff (`git show --cc --combined-all-paths`) whose
//!   prefix is `+` for every parent (judged in the result) or `-` for every parent (inside
//!   the unit in EVERY parent image, at each parent's own line number); a mixed prefix is
//!   inherited and never owned, a merge owning no line is neutral, never a first-parent diff;
//! - a node's versions are the events of its spec.md's lineage that author spec content;
//!   the base is the first, in `git rev-list` order, of the maximal versions (`git
//!   merge-base --is-ancestor`), the window `git rev-list <tip> ^<base>` minus `Spec-OK`
//!   trailers as `git log` reads them (an ack checkpoint — one parent, that parent's tree —
//!   with everything `git rev-list` lists from it).
//!
//! `the_history_oracle_reads_hand_built_histories_as_stated` checks the oracle alone on small
//! histories whose findings are stated by hand (renames, owned and inherited merge lines,
//! the seed's information lower bound and its no-hit control).
//! `lint_agrees_with_the_history_oracle_on_branchy_histories` runs the seed's positive
//! control (a known debt through a rename and one through a merge-owned line must show up
//! on BOTH sides), then compares keel and the oracle on the hand-built histories and on
//! seeded random branchy ones, counting the cases by kind so a fixture regression cannot
//! make it vacuous.

use crate::agreement::{header_range, hunk_headers, meets, start_merge, unit_range};
use crate::support::{lint_repo, spec};
use keel_fixtures::rng::SeededRng as Rng;
use keel_fixtures::{FIXTURE_EMAIL, FIXTURE_EPOCH, FixtureRepo};
use keel_queries::extract::{Unit, extract};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

/// git's diff semantics, pinned on every oracle call that diffs.
const DIFF: [&str; 7] = [
    "--histogram",
    "--no-indent-heuristic",
    "-U0",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "-M",
];
/// The parent side of a root commit.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

// ---------------------------------------------------------------------------------------
// Fixture content
// ---------------------------------------------------------------------------------------

/// One Python module's lineage: its first and its final path and its units.
struct Module {
    old: &'static str,
    new: &'static str,
    functions: &'static [&'static str],
    class: &'static str,
    methods: &'static [&'static str],
}

/// `main.py → app.py` is a pure `git mv`, `lib.py → core.py` a rename with an edit in the
/// same commit, `pkg/ → src/pkg/` a directory move of two files.
const MODULES: [Module; 4] = [
    Module {
        old: "main.py",
        new: "app.py",
        functions: &["alpha", "beta", "gamma"],
        class: "Store",
        methods: &["get", "put"],
    },
    Module {
        old: "lib.py",
        new: "core.py",
        functions: &["beta", "delta"],
        class: "Cache",
        methods: &["put", "drop"],
    },
    Module {
        old: "pkg/models.py",
        new: "src/pkg/models.py",
        functions: &["gamma", "epsilon"],
        class: "Model",
        methods: &["save", "load"],
    },
    Module {
        old: "pkg/util.py",
        new: "src/pkg/util.py",
        functions: &["helper", "clamp"],
        class: "Util",
        methods: &["run"],
    },
];

/// The random histories' nodes: one scoped entry per file lineage (some selectors in
/// classes) and one bare file entry.
const NODES: [(&str, &[&str]); 4] = [
    ("one", &["app.py#alpha,Store.get"]),
    ("two", &["core.py#beta,Cache.put"]),
    (
        "three",
        &["src/pkg/models.py#Model.save,gamma", "src/pkg/util.py"],
    ),
    ("four", &["app.py#gamma,Store.put", "core.py#delta"]),
];

/// A module: a docstring, `VERSION` at module level (outside every unit), functions (the
/// first decorated) and a class with methods. Every unit carries stable lines (so renames
/// stay well above git's similarity threshold) and one `x = x + 0  # <unit>` line that
/// hand-built cases edit by name; random edits only add, replace or delete `x = …` lines,
/// so every image parses.
fn module(m: &Module) -> String {
    let mut text = format!(
        "\"\"\"{} module.\"\"\"\nimport functools\n\nVERSION = 0\n",
        m.old
    );
    for (i, name) in m.functions.iter().enumerate() {
        text.push_str("\n\n");
        if i == 0 {
            text.push_str("@functools.cache\n");
        }
        text.push_str(&format!(
            "def {name}(x):\n    \"\"\"{old} {name}.\"\"\"\n    y = len(\"{name}\")\n    x = x + 0  # {name}\n    return x + y\n",
            old = m.old
        ));
    }
    let class = m.class;
    text.push_str(&format!(
        "\n\nclass {class}:\n    \"\"\"{old} {class}.\"\"\"\n",
        old = m.old
    ));
    for method in m.methods {
        text.push_str(&format!(
            "\n    def {method}(self, x):\n        \"\"\"{class}.{method}.\"\"\"\n        y = len(\"{method}\")\n        x = x + 0  # {class}.{method}\n        return x + y\n"
        ));
    }
    text
}

/// One random edit: a module-level `VERSION` line (outside every unit), or an `x = …` line
/// added, replaced or deleted inside a unit.
fn mutate(rng: &mut Rng, text: &str, serial: &mut usize) -> String {
    *serial += 1;
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let is_body = |l: &String| l.trim_start().starts_with("x = x + ");
    let bodies: Vec<usize> = (0..lines.len()).filter(|&i| is_body(&lines[i])).collect();
    let anchors: Vec<usize> = (0..lines.len())
        .filter(|&i| is_body(&lines[i]) || lines[i].trim() == "return x + y")
        .collect();
    let op = if bodies.len() > 14 { 3 } else { rng.below(6) };
    match op {
        0 => {
            let at = lines
                .iter()
                .position(|l| l.starts_with("VERSION = "))
                .expect("a module has VERSION");
            lines[at] = format!("VERSION = {serial}");
        }
        3 if !bodies.is_empty() => {
            lines.remove(bodies[rng.below(bodies.len())]);
        }
        4 | 5 if !bodies.is_empty() => {
            let at = bodies[rng.below(bodies.len())];
            let indent = lines[at].len() - lines[at].trim_start().len();
            lines[at] = format!("{}x = x + {serial}", " ".repeat(indent));
        }
        _ => {
            let at = anchors[rng.below(anchors.len())];
            let indent = lines[at].len() - lines[at].trim_start().len();
            lines.insert(at, format!("{}x = x + {serial}", " ".repeat(indent)));
        }
    }
    lines.join("\n") + "\n"
}

fn spec_path(node: &str) -> String {
    format!(".spec/{node}/spec.md")
}

fn spec_text(entries: &[&str], version: &str) -> String {
    spec(entries, &[]) + &format!("version {version}\n")
}

fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "fixture edit must apply once: {from}"
    );
    text.replacen(from, to, 1)
}

fn read(repo: &FixtureRepo, path: &str) -> String {
    std::fs::read_to_string(repo.path().join(path)).expect("fixture file is readable")
}

fn exists(repo: &FixtureRepo, path: &str) -> bool {
    repo.path().join(path).is_file()
}

fn git(repo: &FixtureRepo, args: &[&str]) -> String {
    repo.git(args)
        .unwrap_or_else(|e| panic!("the oracle's git fails: {e}"))
}

fn is_ancestor(repo: &FixtureRepo, a: &str, b: &str) -> bool {
    repo.git(&["merge-base", "--is-ancestor", a, b]).is_ok()
}

// ---------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------

/// `(node, tip path, commit)`.
type Key = (String, String, String);

/// Findings normalized the same way on both sides.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Findings {
    /// `anchor-hit`: hit selectors (sorted) and side.
    hits: BTreeMap<Key, (Vec<String>, String)>,
    /// `scoped-code-miss`.
    misses: BTreeSet<Key>,
    /// `code-drift`.
    drift: BTreeSet<Key>,
    /// Every other finding as `(node, code, path)`: the fixtures keep every anchor live, so
    /// both sides must leave this empty.
    other: BTreeSet<(String, String, String)>,
}

/// Cases judged, by kind.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    /// Scoped (entry, merge) events: merges owning at least one line of the file.
    merge_events: usize,
    /// Of those, hits.
    merge_hits: usize,
    /// Merge hits through an owned deleted line (inside the unit in every parent).
    merge_deleted_hits: usize,
    /// Window merges that changed the file relative to a parent but own no line of it
    /// (neutral transports: neither hit nor miss).
    transport_merges: usize,
    /// Scoped non-merge events through a rename (the parent-side path differs).
    rename_events: usize,
    /// Of those, pure renames (no hunk: a miss).
    pure_renames: usize,
    /// Scoped non-merge events on one path (or an addition).
    plain_events: usize,
    /// Nodes whose base was chosen among two or more maximal versions.
    wide_bases: usize,
    hits: usize,
    misses: usize,
    drift: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.merge_events += o.merge_events;
        self.merge_hits += o.merge_hits;
        self.merge_deleted_hits += o.merge_deleted_hits;
        self.transport_merges += o.transport_merges;
        self.rename_events += o.rename_events;
        self.pure_renames += o.pure_renames;
        self.plain_events += o.plain_events;
        self.wide_bases += o.wide_bases;
        self.hits += o.hits;
        self.misses += o.misses;
        self.drift += o.drift;
    }
}

/// One line of `git diff --name-status -M -z`.
#[derive(Debug, Clone)]
struct Change {
    status: String,
    from: Option<String>,
    to: String,
}

fn parse_name_status(out: &str) -> Vec<Change> {
    let mut tokens = out.split('\0').filter(|t| !t.is_empty());
    let mut changes = Vec::new();
    while let Some(status) = tokens.next() {
        let first = tokens.next().expect("a path follows a status").to_owned();
        if status.starts_with('R') || status.starts_with('C') {
            let to = tokens.next().expect("a rename names its target").to_owned();
            changes.push(Change {
                status: status.to_owned(),
                from: Some(first),
                to,
            });
        } else {
            changes.push(Change {
                status: status.to_owned(),
                from: None,
                to: first,
            });
        }
    }
    changes
}

/// What a parent→child diff says about the child's path `y`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Back {
    /// Not changed: the same path in the parent.
    Same,
    /// Changed; the parent-side path (none for an addition) and whether it is a pure
    /// rename (`R100`).
    Changed { from: Option<String>, pure: bool },
}

impl Back {
    fn parent_path(&self, y: &str) -> Option<String> {
        match self {
            Back::Same => Some(y.to_owned()),
            Back::Changed { from, .. } => from.clone(),
        }
    }
}

fn back(changes: &[Change], y: &str) -> Back {
    match changes
        .iter()
        .find(|c| c.to == y && !c.status.starts_with('D'))
    {
        None => Back::Same,
        Some(c) if c.status.starts_with('A') => Back::Changed {
            from: None,
            pure: false,
        },
        Some(c) if c.status.starts_with('R') => Back::Changed {
            from: c.from.clone(),
            pure: c.status == "R100",
        },
        Some(_) => Back::Changed {
            from: Some(y.to_owned()),
            pure: false,
        },
    }
}

/// Line `n` (1-based) lies in the unit.
fn inside(n: u32, unit: Option<(u32, u32)>) -> bool {
    unit.is_some_and(|(s, e)| s <= n && n <= e)
}

/// One file of a merge's dense combined diff.
#[derive(Debug, Default)]
struct Section {
    result: String,
    result_blob: String,
    /// Per parent: its path (`None` for `/dev/null`) and blob.
    parent_paths: Vec<Option<String>>,
    parent_blobs: Vec<String>,
    lines: Vec<CombinedLine>,
    /// git's text of this section, for failure messages.
    raw: String,
}

#[derive(Debug)]
struct CombinedLine {
    prefix: Vec<u8>,
    text: String,
    /// The result line number, for a line that exists in the result.
    result: Option<u32>,
    /// Per parent, the line number in that parent's image, if the line exists there.
    parents: Vec<Option<u32>>,
}

impl CombinedLine {
    fn owned_added(&self) -> bool {
        self.prefix.iter().all(|&c| c == b'+')
    }
    fn owned_deleted(&self) -> bool {
        self.prefix.iter().all(|&c| c == b'-')
    }
}

/// Parses `git show --cc --combined-all-paths --full-index` of a merge with `n` parents,
/// tracking per-parent line counters: a line with `-` in column i exists in parent i; a line
/// with no `-` is a result line and exists in parent i iff column i is a space.
fn parse_combined(out: &str, n: usize) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let mut in_hunk = false;
    let mut next_parent: Vec<u32> = Vec::new();
    let mut next_result = 0;
    let at = "@".repeat(n + 1);
    for raw in out.split('\n') {
        if let Some(rest) = raw.strip_prefix("diff --cc ") {
            sections.push(Section {
                result: rest.to_owned(),
                ..Section::default()
            });
            in_hunk = false;
            continue;
        }
        let Some(section) = sections.last_mut() else {
            continue;
        };
        section.raw.push_str(raw);
        section.raw.push('\n');
        if raw.starts_with(&at) {
            let ranges: Vec<(u32, u32)> = raw
                .trim_start_matches('@')
                .split_whitespace()
                .take(n + 1)
                .map(|r| header_range(r.trim_start_matches(['-', '+'])))
                .collect();
            next_parent = ranges[..n].iter().map(|r| r.0).collect();
            next_result = ranges[n].0;
            in_hunk = true;
            continue;
        }
        if in_hunk {
            if raw.is_empty() || raw.starts_with('\\') {
                continue;
            }
            let prefix = raw.as_bytes()[..n].to_vec();
            let text = raw[n..].to_owned();
            let deleted = prefix.contains(&b'-');
            let mut parents = Vec::with_capacity(n);
            for (i, &c) in prefix.iter().enumerate() {
                let present = if deleted { c == b'-' } else { c == b' ' };
                parents.push(present.then(|| {
                    next_parent[i] += 1;
                    next_parent[i] - 1
                }));
            }
            let result = (!deleted).then(|| {
                next_result += 1;
                next_result - 1
            });
            section.lines.push(CombinedLine {
                prefix,
                text,
                result,
                parents,
            });
        } else if let Some(rest) = raw.strip_prefix("index ") {
            let (parents, result) = rest.split_once("..").expect("index a,b..c");
            section.parent_blobs = parents.split(',').map(str::to_owned).collect();
            section.result_blob = result.split(' ').next().expect("a result blob").to_owned();
        } else if let Some(path) = raw.strip_prefix("--- ") {
            section
                .parent_paths
                .push(path.strip_prefix("a/").map(str::to_owned));
        } else if let Some(path) = raw.strip_prefix("+++ ") {
            section.result = path.strip_prefix("b/").unwrap_or(path).to_owned();
        }
    }
    sections
}

/// What one window commit did to one entry (union over the paths of its lineage there).
#[derive(Debug, Default)]
struct Judged {
    event: bool,
    hit: BTreeSet<String>,
    added: bool,
    deleted: bool,
    kind: Option<Kind>,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Plain,
    Rename {
        pure: bool,
    },
    Merge {
        deleted_hit: bool,
    },
    /// A merge that owns no line of a file it changed relative to some parent.
    Transport,
}

impl Judged {
    fn absorb(&mut self, other: Judged) {
        self.event |= other.event;
        self.hit.extend(other.hit);
        self.added |= other.added;
        self.deleted |= other.deleted;
        self.kind = other.kind.or(self.kind);
    }
}

/// The git-CLI oracle for one tip.
struct Oracle<'r> {
    repo: &'r FixtureRepo,
    tip: String,
    /// `git rev-list <tip>`.
    order: Vec<String>,
    /// `git rev-list --topo-order --parents <tip>`: children before parents.
    topo: Vec<(String, Vec<String>)>,
    parents: HashMap<String, Vec<String>>,
    changes: HashMap<(String, String), Vec<Change>>,
    combined: HashMap<String, std::rc::Rc<Vec<Section>>>,
    blobs: HashMap<String, String>,
    units: HashMap<(String, String), Vec<Unit>>,
    lineages: HashMap<String, std::rc::Rc<HashMap<String, BTreeSet<String>>>>,
    counts: Counts,
}

impl<'r> Oracle<'r> {
    fn new(repo: &'r FixtureRepo, tip: &str) -> Self {
        let tip = git(repo, &["rev-parse", tip]).trim().to_owned();
        let order = git(repo, &["rev-list", &tip])
            .lines()
            .map(str::to_owned)
            .collect();
        let topo: Vec<(String, Vec<String>)> =
            git(repo, &["rev-list", "--topo-order", "--parents", &tip])
                .lines()
                .map(|line| {
                    let mut ids = line.split(' ').map(str::to_owned);
                    let commit = ids.next().expect("a commit id");
                    (commit, ids.collect())
                })
                .collect();
        let parents = topo.iter().cloned().collect();
        Self {
            repo,
            tip,
            order,
            topo,
            parents,
            changes: HashMap::new(),
            combined: HashMap::new(),
            blobs: HashMap::new(),
            units: HashMap::new(),
            lineages: HashMap::new(),
            counts: Counts::default(),
        }
    }

    fn git(&self, args: &[&str]) -> String {
        git(self.repo, args)
    }

    /// `git diff -M --name-status parent child`, once per ordered pair.
    fn changes(&mut self, parent: &str, child: &str) -> Vec<Change> {
        let key = (parent.to_owned(), child.to_owned());
        if let Some(c) = self.changes.get(&key) {
            return c.clone();
        }
        let out = self.git(&[
            "diff",
            "-M",
            "--no-ext-diff",
            "--no-textconv",
            "--name-status",
            "-z",
            parent,
            child,
        ]);
        let changes = parse_name_status(&out);
        self.changes.insert(key, changes.clone());
        changes
    }

    /// The parents of `commit`, or the empty tree for a root.
    fn parent_sides(&self, commit: &str) -> Vec<String> {
        let parents = self.parents[commit].clone();
        if parents.is_empty() {
            vec![EMPTY_TREE.to_owned()]
        } else {
            parents
        }
    }

    /// `git cat-file blob <object>`, cached.
    fn blob(&mut self, object: &str) -> String {
        if let Some(b) = self.blobs.get(object) {
            return b.clone();
        }
        let text = self.git(&["cat-file", "blob", object]);
        self.blobs.insert(object.to_owned(), text.clone());
        text
    }

    /// The units of an image (`<commit>:<path>` or a blob id) named `path`.
    fn units_of(&mut self, object: &str, path: &str) -> Vec<Unit> {
        let key = (object.to_owned(), path.to_owned());
        if let Some(u) = self.units.get(&key) {
            return u.clone();
        }
        let text = self.blob(object);
        let units = extract(text.as_bytes(), path)
            .expect("python has an extractor")
            .unwrap_or_else(|e| {
                panic!("fixture image {object} ({path}) must parse: {e:?}\n{text}")
            });
        self.units.insert(key, units.clone());
        units
    }

    /// The lineage of tip path `t`: for each reachable commit, the paths that become `t`.
    fn lineage(&mut self, t: &str) -> std::rc::Rc<HashMap<String, BTreeSet<String>>> {
        if let Some(l) = self.lineages.get(t) {
            return l.clone();
        }
        let mut sets: HashMap<String, BTreeSet<String>> = HashMap::new();
        sets.insert(self.tip.clone(), BTreeSet::from([t.to_owned()]));
        for (commit, parents) in self.topo.clone() {
            let Some(paths) = sets.get(&commit).cloned() else {
                continue;
            };
            for parent in parents {
                let changes = self.changes(&parent, &commit);
                for y in &paths {
                    if let Some(x) = back(&changes, y).parent_path(y) {
                        sets.entry(parent.clone()).or_default().insert(x);
                    }
                }
            }
        }
        let sets = std::rc::Rc::new(sets);
        self.lineages.insert(t.to_owned(), sets.clone());
        sets
    }

    /// The merge's dense combined diff, parsed once.
    fn combined(&mut self, merge: &str) -> std::rc::Rc<Vec<Section>> {
        if let Some(s) = self.combined.get(merge) {
            return s.clone();
        }
        let n = self.parents[merge].len();
        let mut args = vec![
            "show",
            "--format=",
            "--cc",
            "--combined-all-paths",
            "--full-index",
        ];
        // One context line: with `-U0` git's combined output leaves out the result line that
        // deleted lines hang on while its header still counts it, so line numbers could not
        // be followed; context lines are all-space (never owned) and the dense `--cc` hunk
        // filter keeps every hunk holding an all-parent line at any context, so the owned
        // lines are the same.
        args.extend(
            DIFF.iter()
                .map(|&flag| if flag == "-U0" { "-U1" } else { flag }),
        );
        args.push(merge);
        let out = self.git(&args);
        let sections = std::rc::Rc::new(parse_combined(&out, n));
        self.combined.insert(merge.to_owned(), sections.clone());
        sections
    }

    /// What `commit` did to its path `y`, judged for `selectors` (none: a bare entry).
    fn judge(&mut self, commit: &str, y: &str, selectors: &[&str]) -> Judged {
        if self.parents[commit].len() >= 2 {
            return self.judge_merge(commit, y, selectors);
        }
        let parent = self.parent_sides(commit).remove(0);
        let Back::Changed { from, pure } = back(&self.changes(&parent, commit), y) else {
            return Judged::default();
        };
        let kind = match &from {
            Some(x) if x != y => Kind::Rename { pure },
            _ => Kind::Plain,
        };
        let mut args: Vec<&str> = vec!["diff"];
        args.extend(DIFF);
        args.extend([parent.as_str(), commit, "--"]);
        if let Some(x) = &from
            && x != y
        {
            args.push(x);
        }
        args.push(y);
        let diff = self.git(&args);
        assert!(
            diff.matches("diff --git ").count() <= 1,
            "one file pair per event diff:\n{diff}"
        );
        if let Some(x) = &from
            && x != y
        {
            assert!(
                diff.contains(&format!("rename from {x}\n")),
                "git pairs the rename {x} → {y} in {commit}:\n{diff}"
            );
        }
        let hunks = hunk_headers(&diff);
        assert!(
            pure == hunks.is_empty(),
            "a pure rename and only it has no hunk"
        );
        let mut judged = Judged {
            event: true,
            kind: Some(kind),
            ..Judged::default()
        };
        if selectors.is_empty() {
            return judged;
        }
        let new_units = self.units_of(&format!("{commit}:{y}"), y);
        let old_units = match &from {
            Some(x) => self.units_of(&format!("{parent}:{x}"), x),
            None => Vec::new(),
        };
        for selector in selectors {
            let (mut a, mut d) = (false, false);
            for &(old_start, old_count, new_start, new_count) in &hunks {
                a |= meets(new_start, new_count, unit_range(&new_units, selector));
                d |= meets(old_start, old_count, unit_range(&old_units, selector));
            }
            if a || d {
                judged.hit.insert((*selector).to_owned());
            }
            judged.added |= a;
            judged.deleted |= d;
        }
        judged
    }

    fn judge_merge(&mut self, merge: &str, y: &str, selectors: &[&str]) -> Judged {
        let parents = self.parents[merge].clone();
        // A merge that owns no line of a file some parent holds differently is a neutral
        // transport (counted, never judged).
        let transports = parents
            .iter()
            .any(|p| back(&self.changes(p, merge), y) != Back::Same);
        let neutral = Judged {
            kind: transports.then_some(Kind::Transport),
            ..Judged::default()
        };
        let sections = self.combined(merge);
        let Some(section) = sections.iter().find(|s| s.result == y) else {
            return neutral;
        };
        // git's combined rename detection must agree with the pairwise one the lineage uses.
        for (i, parent) in parents.iter().enumerate() {
            let expected = back(&self.changes(parent, merge), y).parent_path(y);
            assert_eq!(
                section.parent_paths[i], expected,
                "merge {merge}: parent {i}'s path for {y}"
            );
        }
        // Every line sits where the per-parent counters say (a check on the parse itself).
        let result_text = self.blob(&section.result_blob);
        let result_lines: Vec<&str> = result_text.lines().collect();
        let parent_texts: Vec<String> = section
            .parent_blobs
            .iter()
            .map(|b| {
                if b.bytes().all(|c| c == b'0') {
                    String::new()
                } else {
                    self.blob(b)
                }
            })
            .collect();
        for line in &section.lines {
            if let Some(n) = line.result {
                assert_eq!(
                    result_lines[n as usize - 1],
                    line.text,
                    "{merge} result {n}:\n{}",
                    section.raw
                );
            }
            for (i, at) in line.parents.iter().enumerate() {
                if let Some(n) = at {
                    assert_eq!(
                        parent_texts[i].lines().nth(*n as usize - 1),
                        Some(line.text.as_str()),
                        "{merge} parent {i} line {n}:\n{}",
                        section.raw
                    );
                }
            }
        }
        let owned: Vec<&CombinedLine> = section
            .lines
            .iter()
            .filter(|l| l.owned_added() || l.owned_deleted())
            .collect();
        if owned.is_empty() {
            return neutral;
        }
        let mut judged = Judged {
            event: true,
            kind: Some(Kind::Merge { deleted_hit: false }),
            ..Judged::default()
        };
        if selectors.is_empty() {
            return judged;
        }
        let result_units = self.units_of(&section.result_blob, y);
        let parent_units: Vec<Vec<Unit>> = (0..parents.len())
            .map(|i| match &section.parent_paths[i] {
                Some(x) => self.units_of(&section.parent_blobs[i], x),
                None => Vec::new(),
            })
            .collect();
        for selector in selectors {
            let a = owned.iter().any(|l| {
                l.owned_added()
                    && inside(
                        l.result.expect("an added line is in the result"),
                        unit_range(&result_units, selector),
                    )
            });
            let d = owned.iter().any(|l| {
                l.owned_deleted()
                    && l.parents.iter().zip(&parent_units).all(|(at, units)| {
                        inside(
                            at.expect("an all-parent deletion is in every parent"),
                            unit_range(units, selector),
                        )
                    })
            });
            if a || d {
                judged.hit.insert((*selector).to_owned());
            }
            judged.added |= a;
            judged.deleted |= d;
        }
        judged.kind = Some(Kind::Merge {
            deleted_hit: judged.deleted,
        });
        judged
    }

    /// Whether `commit` authored spec content at its path `y`.
    fn authors(&mut self, commit: &str, y: &str) -> bool {
        if self.parents[commit].len() >= 2 {
            let sections = self.combined(commit);
            return sections
                .iter()
                .filter(|s| s.result == y)
                .any(|s| s.lines.iter().any(|l| l.owned_added() || l.owned_deleted()));
        }
        let parent = self.parent_sides(commit).remove(0);
        matches!(
            back(&self.changes(&parent, commit), y),
            Back::Changed { pure: false, .. }
        )
    }

    /// A node's base: the first maximal version in `git rev-list` order.
    fn base(&mut self, node: &str) -> String {
        let lineage = self.lineage(&spec_path(node));
        let mut versions = Vec::new();
        for commit in self.order.clone() {
            let Some(paths) = lineage.get(&commit) else {
                continue;
            };
            if paths.iter().any(|y| self.authors(&commit, y)) {
                versions.push(commit);
            }
        }
        let maximal: Vec<&String> = versions
            .iter()
            .filter(|v| {
                !versions
                    .iter()
                    .any(|w| w != *v && is_ancestor(self.repo, v, w))
            })
            .collect();
        assert!(!maximal.is_empty(), "node {node} has a version");
        if maximal.len() >= 2 {
            self.counts.wide_bases += 1;
        }
        maximal[0].clone()
    }

    /// The node's window: `git rev-list <tip> ^<base>` minus what `Spec-OK: <node>`
    /// acknowledges (a checkpoint with what it reaches).
    fn window(&self, node: &str, base: &str) -> Vec<String> {
        let exclude = format!("^{base}");
        let acked = crate::agreement::acknowledged(self.repo, &self.tip, base, node);
        self.git(&["rev-list", &self.tip, &exclude])
            .lines()
            .filter(|c| !acked.contains(*c))
            .map(str::to_owned)
            .collect()
    }

    /// Every node's findings.
    fn findings(&mut self, nodes: &[(&str, &[&str])]) -> Findings {
        let mut findings = Findings::default();
        for &(node, entries) in nodes {
            let base = self.base(node);
            let window = self.window(node, &base);
            for entry in entries {
                let (path, selectors): (&str, Vec<&str>) = match entry.split_once('#') {
                    Some((p, s)) => (p, s.split(',').collect()),
                    None => (entry, Vec::new()),
                };
                let tip_image = format!("{}:{path}", self.tip);
                let tip_units = self.units_of(&tip_image, path);
                for selector in &selectors {
                    assert_eq!(
                        tip_units.iter().filter(|u| u.name == *selector).count(),
                        1,
                        "fixture keeps {path}#{selector} live at the tip"
                    );
                }
                let lineage = self.lineage(path);
                for commit in &window {
                    let Some(paths) = lineage.get(commit) else {
                        continue;
                    };
                    let mut judged = Judged::default();
                    for y in paths {
                        judged.absorb(self.judge(commit, y, &selectors));
                    }
                    let key = (node.to_owned(), path.to_owned(), commit.clone());
                    if !selectors.is_empty() {
                        match judged.kind {
                            Some(Kind::Transport) if !judged.event => {
                                self.counts.transport_merges += 1;
                            }
                            Some(Kind::Merge { deleted_hit }) if judged.event => {
                                self.counts.merge_events += 1;
                                self.counts.merge_hits += usize::from(!judged.hit.is_empty());
                                self.counts.merge_deleted_hits += usize::from(deleted_hit);
                            }
                            Some(Kind::Rename { pure }) => {
                                self.counts.rename_events += 1;
                                self.counts.pure_renames += usize::from(pure);
                            }
                            Some(Kind::Plain) => self.counts.plain_events += 1,
                            _ => {}
                        }
                    }
                    if !judged.event {
                        continue;
                    }
                    if selectors.is_empty() {
                        findings.drift.insert(key);
                    } else if judged.hit.is_empty() {
                        findings.misses.insert(key);
                    } else {
                        let side = match (judged.added, judged.deleted) {
                            (true, true) => "both",
                            (true, false) => "added",
                            _ => "deleted",
                        };
                        findings
                            .hits
                            .insert(key, (judged.hit.into_iter().collect(), side.to_owned()));
                    }
                }
            }
        }
        self.counts.hits += findings.hits.len();
        self.counts.misses += findings.misses.len();
        self.counts.drift += findings.drift.len();
        findings
    }
}

/// The oracle's findings at `tip`, and its case counts.
fn oracle_at(repo: &FixtureRepo, tip: &str, nodes: &[(&str, &[&str])]) -> (Findings, Counts) {
    let mut oracle = Oracle::new(repo, tip);
    let findings = oracle.findings(nodes);
    (findings, oracle.counts)
}

/// keel's lint at HEAD, normalized.
fn keel(repo: &FixtureRepo) -> Findings {
    let report = lint_repo(repo);
    let mut findings = Findings::default();
    for f in &report.findings {
        let key = |commit: &str| (f.node.clone(), f.path.clone(), commit.to_owned());
        match f.code {
            "anchor-hit" => {
                for hit in &f.hits {
                    let mut selectors = hit.selectors.clone();
                    selectors.sort();
                    let side = serde_json::to_value(hit.side).expect("a side serializes");
                    findings.hits.insert(
                        key(&hit.commit),
                        (selectors, side.as_str().unwrap_or("none").to_owned()),
                    );
                }
            }
            "scoped-code-miss" => findings
                .misses
                .extend(f.hits.iter().map(|h| key(&h.commit))),
            "code-drift" => findings.drift.extend(f.hits.iter().map(|h| key(&h.commit))),
            other => {
                findings
                    .other
                    .insert((f.node.clone(), other.to_owned(), f.path.clone()));
            }
        }
    }
    findings
}

/// A readable account of where two normalized finding sets differ, or `None`.
fn difference(
    repo: &FixtureRepo,
    (left, keel): (&str, &Findings),
    (right, oracle): (&str, &Findings),
) -> Option<String> {
    let describe = |commit: &str| {
        let line = git(repo, &["log", "-1", "--format=%p|%s", commit]);
        let (parents, subject) = line.trim().split_once('|').unwrap_or(("", ""));
        let kind = if parents.contains(' ') {
            "merge"
        } else {
            "commit"
        };
        format!("{kind} {} \"{subject}\"", &commit[..10])
    };
    let mut out = String::new();
    let keys: BTreeSet<&Key> = keel.hits.keys().chain(oracle.hits.keys()).collect();
    for key in keys {
        let (k, o) = (keel.hits.get(key), oracle.hits.get(key));
        if k != o {
            let _ = writeln!(
                out,
                "  anchor-hit {}/{} {}: {left} {k:?}, {right} {o:?}",
                key.0,
                key.1,
                describe(&key.2)
            );
        }
    }
    for (code, k, o) in [
        ("scoped-code-miss", &keel.misses, &oracle.misses),
        ("code-drift", &keel.drift, &oracle.drift),
    ] {
        for key in k.symmetric_difference(o) {
            let side = if k.contains(key) { left } else { right };
            let _ = writeln!(
                out,
                "  {code} {}/{} {}: {side} only",
                key.0,
                key.1,
                describe(&key.2)
            );
        }
    }
    for other in keel.other.symmetric_difference(&oracle.other) {
        let _ = writeln!(out, "  other finding {other:?}");
    }
    (!out.is_empty()).then_some(out)
}

// ---------------------------------------------------------------------------------------
// Hand-built histories (findings stated by hand)
// ---------------------------------------------------------------------------------------

const APP: Module = Module {
    old: "main.py",
    new: "app.py",
    functions: &["alpha", "beta", "gamma"],
    class: "Store",
    methods: &["get", "put"],
};

/// A hand-built history, its nodes and the findings stated by hand.
struct Case {
    name: &'static str,
    repo: FixtureRepo,
    nodes: Vec<(&'static str, &'static [&'static str])>,
    expected: Findings,
}

fn key(node: &str, path: &str, commit: &str) -> Key {
    (node.to_owned(), path.to_owned(), commit.to_owned())
}

fn hit(selectors: &[&str], side: &str) -> (Vec<String>, String) {
    (
        selectors.iter().map(|s| (*s).to_owned()).collect(),
        side.to_owned(),
    )
}

fn write_commit(repo: &mut FixtureRepo, files: &[(&str, &str)], message: &str) -> String {
    for (path, text) in files {
        repo.write(path, text).expect("writable");
    }
    repo.commit(message).expect("commit")
}

/// Renames: an edit before a rename follows it, a rename with an edit inside a unit, a
/// pure rename (a miss), an edit after it, a `Spec-OK` for one node only, and a new file
/// at the old path (reused: not the lineage).
fn renames_case() -> Case {
    const NODES: [(&str, &[&str]); 2] = [("one", &["app.py#alpha,beta"]), ("whole", &["app.py"])];
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let mut text = module(&APP);
    let mut files: Vec<(String, String)> = vec![("main.py".to_owned(), text.clone())];
    for (node, entries) in NODES {
        files.push((spec_path(node), spec_text(entries, "0")));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_commit(&mut repo, &refs, "v1");
    text = edit(&text, "x = x + 0  # alpha\n", "x = x + 7  # alpha\n");
    let c1 = write_commit(&mut repo, &[("main.py", &text)], "edit alpha in main.py");
    text = edit(&text, "x = x + 0  # gamma\n", "x = x + 7  # gamma\n");
    let c2 = write_commit(
        &mut repo,
        &[("main.py", &text)],
        "edit gamma\n\nSpec-OK: one",
    );
    repo.git(&["mv", "main.py", "mid.py"]).expect("mv");
    text = edit(&text, "    x = x + 7  # alpha\n", "");
    let c3 = write_commit(
        &mut repo,
        &[("mid.py", &text)],
        "rename to mid.py, drop alpha's line",
    );
    repo.git(&["mv", "mid.py", "app.py"]).expect("mv");
    let c4 = repo.commit("pure rename to app.py").expect("commit");
    text = edit(
        &text,
        "x = x + 0  # beta\n",
        "x = x + 0  # beta\n    x = x + 9\n",
    );
    let c5 = write_commit(&mut repo, &[("app.py", &text)], "insert into beta");
    let reused = edit(&module(&APP), "VERSION = 0", "VERSION = 1");
    write_commit(&mut repo, &[("main.py", &reused)], "a new main.py");
    let reused = edit(&reused, "x = x + 0  # alpha\n", "x = x + 3  # alpha\n");
    write_commit(&mut repo, &[("main.py", &reused)], "edit the new main.py");
    let expected = Findings {
        hits: [
            (key("one", "app.py", &c1), hit(&["alpha"], "both")),
            (key("one", "app.py", &c3), hit(&["alpha"], "deleted")),
            (key("one", "app.py", &c5), hit(&["beta"], "added")),
        ]
        .into_iter()
        .collect(),
        misses: [key("one", "app.py", &c4)].into_iter().collect(),
        drift: [&c1, &c2, &c3, &c4, &c5]
            .into_iter()
            .map(|c| key("whole", "app.py", c))
            .collect(),
        other: BTreeSet::new(),
    };
    Case {
        name: "renames",
        repo,
        nodes: NODES.to_vec(),
        expected,
    }
}

/// Merges: an owned line outside every unit in the same combined hunk as an inherited line
/// inside alpha (a miss), an evil merge adding a line in beta and deleting a line both
/// parents hold in alpha, a clean merge, an `-s ours` merge whose side commit is still
/// reachable, and a conflict resolved by hand with a line neither parent has.
fn merges_case() -> Case {
    const NODES: [(&str, &[&str]); 2] = [("one", &["app.py#alpha,beta"]), ("whole", &["app.py"])];
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let mut text = module(&APP);
    let mut files: Vec<(String, String)> = vec![("app.py".to_owned(), text.clone())];
    for (node, entries) in NODES {
        files.push((spec_path(node), spec_text(entries, "0")));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_commit(&mut repo, &refs, "v1");
    let branch = |repo: &FixtureRepo, name: &str| {
        repo.git(&["checkout", "-q", "-b", name, "main"])
            .expect("branch");
    };
    let main = |repo: &FixtureRepo| {
        repo.git(&["checkout", "-q", "main"]).expect("checkout");
    };

    // M1: side changes alpha's last line; the merge adds a module-level line right after it.
    branch(&repo, "side1");
    let side = edit(
        &text,
        "    return x + y\n\n\ndef beta",
        "    return x + y + 1\n\n\ndef beta",
    );
    let s1 = write_commit(&mut repo, &[("app.py", &side)], "side1: alpha's return");
    main(&repo);
    start_merge(&repo, "side1");
    text = edit(
        &side,
        "    return x + y + 1\n",
        "    return x + y + 1\nMERGED = 1\n",
    );
    let m1 = write_commit(&mut repo, &[("app.py", &text)], "merge side1, add MERGED");

    // M2: side edits gamma; the merge adds a line in beta and deletes alpha's line.
    branch(&repo, "side2");
    let side = edit(&text, "x = x + 0  # gamma\n", "x = x + 2  # gamma\n");
    let s2 = write_commit(&mut repo, &[("app.py", &side)], "side2: gamma");
    main(&repo);
    start_merge(&repo, "side2");
    text = edit(
        &side,
        "x = x + 0  # beta\n",
        "x = x + 0  # beta\n    x = x + 42\n",
    );
    text = edit(&text, "    x = x + 0  # alpha\n", "");
    let m2 = write_commit(&mut repo, &[("app.py", &text)], "evil merge side2");

    // M3: a clean merge of a VERSION edit.
    branch(&repo, "side3");
    let side = edit(&text, "VERSION = 0", "VERSION = 3");
    let s3 = write_commit(&mut repo, &[("app.py", &side)], "side3: VERSION");
    main(&repo);
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "side3"])
        .expect("merge");
    text = side;
    let m3 = repo.commit("clean merge side3").expect("commit");

    // M4: `-s ours` keeps main's app.py; the side's beta edit stays reachable.
    branch(&repo, "side4");
    let side = edit(&text, "x = x + 42\n", "x = x + 43\n");
    let s4 = write_commit(&mut repo, &[("app.py", &side)], "side4: beta");
    main(&repo);
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "--no-commit",
        "-s",
        "ours",
        "side4",
    ])
    .expect("merge");
    let m4 = repo.commit("ours merge side4").expect("commit");

    // M5: both sides edit beta's line; the conflict is resolved by hand with a third value.
    branch(&repo, "side5");
    let side = edit(&text, "x = x + 0  # beta\n", "x = x + 6  # beta\n");
    let s5 = write_commit(&mut repo, &[("app.py", &side)], "side5: beta");
    main(&repo);
    text = edit(&text, "x = x + 0  # beta\n", "x = x + 5  # beta\n");
    let c5 = write_commit(&mut repo, &[("app.py", &text)], "main: beta");
    assert!(
        repo.git(&["merge", "-q", "--no-ff", "--no-commit", "side5"])
            .is_err(),
        "the beta edits conflict"
    );
    text = edit(&text, "x = x + 5  # beta\n", "x = x + 77  # beta\n");
    let m5 = write_commit(&mut repo, &[("app.py", &text)], "merge side5 by hand");
    let _ = (m3, m4);

    let one = |c: &str| key("one", "app.py", c);
    let expected = Findings {
        hits: [
            (one(&s1), hit(&["alpha"], "both")),
            (one(&m2), hit(&["alpha", "beta"], "both")),
            (one(&s4), hit(&["beta"], "both")),
            (one(&s5), hit(&["beta"], "both")),
            (one(&c5), hit(&["beta"], "both")),
            (one(&m5), hit(&["beta"], "added")),
        ]
        .into_iter()
        .collect(),
        misses: [one(&m1), one(&s2), one(&s3)].into_iter().collect(),
        drift: [&s1, &m1, &s2, &m2, &s3, &s4, &s5, &c5, &m5]
            .into_iter()
            .map(|c| key("whole", "app.py", c))
            .collect(),
        other: BTreeSet::new(),
    };
    Case {
        name: "merges",
        repo,
        nodes: NODES.to_vec(),
        expected,
    }
}

/// The seed's information lower bound: branch 1 has a commit `h` then version vB, branch 2
/// version vA (newer in walk order); a merge authors no spec line, so vA is the base and `h`
/// is debt at the merge. With `hit_alpha` false, `h` edits gamma instead (the no-hit
/// control: the same parent states, no debt). Returns the case and the two parent tips.
fn lower_bound_case(hit_alpha: bool) -> (Case, String, String) {
    const NODES: [(&str, &[&str]); 1] = [("one", &["app.py#alpha"])];
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let at = |repo: &mut FixtureRepo, message: &str, minutes: i64| {
        let time = FIXTURE_EPOCH + 60 * minutes;
        repo.commit_at(message, FIXTURE_EMAIL, time, time)
            .expect("commit")
    };
    let text = module(&APP);
    repo.write("app.py", &text).expect("writable");
    repo.write(&spec_path("one"), &spec_text(NODES[0].1, "0"))
        .expect("writable");
    at(&mut repo, "v0", 0);
    repo.git(&["checkout", "-q", "-b", "b1"]).expect("branch");
    let unit = if hit_alpha { "alpha" } else { "gamma" };
    repo.write(
        "app.py",
        &edit(
            &text,
            &format!("x = x + 0  # {unit}\n"),
            &format!("x = x + 1  # {unit}\n"),
        ),
    )
    .expect("writable");
    let h = at(&mut repo, "h", 1);
    repo.write(&spec_path("one"), &spec_text(NODES[0].1, "B"))
        .expect("writable");
    let v_b = at(&mut repo, "vB", 2);
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    repo.write(&spec_path("one"), &spec_text(NODES[0].1, "A"))
        .expect("writable");
    let v_a = at(&mut repo, "vA", 5);
    start_merge(&repo, "b1");
    at(&mut repo, "merge b1 (takes vB's spec line)", 6);
    let mut expected = Findings::default();
    if hit_alpha {
        expected
            .hits
            .insert(key("one", "app.py", &h), hit(&["alpha"], "both"));
    } else {
        expected.misses.insert(key("one", "app.py", &h));
    }
    let case = Case {
        name: if hit_alpha {
            "information lower bound"
        } else {
            "information lower bound, no-hit control"
        },
        repo,
        nodes: NODES.to_vec(),
        expected,
    };
    (case, v_b, v_a)
}

/// The comparison's positive control: known debt through a rename (an alpha edit on
/// `main.py`, then `git mv main.py app.py`) and through a merge-owned line (an evil line in
/// beta).
fn control_case() -> Case {
    const NODES: [(&str, &[&str]); 1] = [("one", &["app.py#alpha,beta"])];
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let mut text = module(&APP);
    let spec = spec_text(NODES[0].1, "0");
    write_commit(
        &mut repo,
        &[("main.py", &text), (&spec_path("one"), &spec)],
        "v1",
    );
    text = edit(&text, "x = x + 0  # alpha\n", "x = x + 7  # alpha\n");
    let before_rename = write_commit(&mut repo, &[("main.py", &text)], "edit alpha");
    repo.git(&["mv", "main.py", "app.py"]).expect("mv");
    let rename = repo.commit("rename").expect("commit");
    repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
    let side = edit(&text, "x = x + 0  # gamma\n", "x = x + 1  # gamma\n");
    let s = write_commit(&mut repo, &[("app.py", &side)], "side: gamma");
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    start_merge(&repo, "side");
    let merged = edit(
        &side,
        "x = x + 0  # beta\n",
        "x = x + 0  # beta\n    x = x + 8\n",
    );
    let merge = write_commit(&mut repo, &[("app.py", &merged)], "evil merge");
    let one = |c: &str| key("one", "app.py", c);
    let expected = Findings {
        hits: [
            (one(&before_rename), hit(&["alpha"], "both")),
            (one(&merge), hit(&["beta"], "added")),
        ]
        .into_iter()
        .collect(),
        misses: [one(&rename), one(&s)].into_iter().collect(),
        ..Findings::default()
    };
    Case {
        name: "positive control",
        repo,
        nodes: NODES.to_vec(),
        expected,
    }
}

fn hand_cases() -> Vec<Case> {
    vec![
        control_case(),
        renames_case(),
        merges_case(),
        lower_bound_case(true).0,
        lower_bound_case(false).0,
    ]
}

#[test]
fn the_history_oracle_reads_hand_built_histories_as_stated() {
    for case in hand_cases() {
        let (found, _) = oracle_at(&case.repo, "HEAD", &case.nodes);
        if let Some(diff) = difference(&case.repo, ("oracle", &found), ("stated", &case.expected)) {
            panic!(
                "{}: the oracle differs from the stated findings:\n{diff}",
                case.name
            );
        }
    }
    for hit_alpha in [true, false] {
        let (case, v_b, v_a) = lower_bound_case(hit_alpha);
        for parent in [v_b, v_a] {
            let (found, counts) = oracle_at(&case.repo, &parent, &case.nodes);
            assert_eq!(
                found,
                Findings::default(),
                "{}: each parent tip reports nothing",
                case.name
            );
            assert_eq!(counts.wide_bases, 0, "one maximal version at a parent tip");
        }
        let (_, counts) = oracle_at(&case.repo, "HEAD", &case.nodes);
        assert_eq!(
            counts.wide_bases, 1,
            "vA and vB are both maximal at the merge"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Random branchy histories
// ---------------------------------------------------------------------------------------

/// Starts a merge of `other` with `args` (e.g. `-X theirs`); false if git refused.
fn try_merge(repo: &FixtureRepo, other: &str, args: &[&str]) -> bool {
    let mut all = vec!["merge", "-q", "--no-ff", "--no-commit"];
    all.extend_from_slice(args);
    all.push(other);
    repo.git(&all).is_ok()
}

fn abort_merge(repo: &FixtureRepo) {
    repo.git(&["merge", "--abort"]).expect("merge aborts");
}

/// Resolves content conflicts by hand: each conflict takes one side at random, and one
/// resolved file may get a line neither parent has. False if a conflict has no markers
/// (not a content conflict).
fn resolve_by_hand(repo: &FixtureRepo, rng: &mut Rng, serial: &mut usize) -> bool {
    let unmerged = git(repo, &["diff", "--name-only", "--diff-filter=U"]);
    let paths: Vec<&str> = unmerged.lines().collect();
    if paths.is_empty() {
        return false;
    }
    for path in &paths {
        if !exists(repo, path) {
            return false;
        }
        let text = read(repo, path);
        if !text.contains("<<<<<<< ") {
            return false;
        }
        let mut out = Vec::new();
        let (mut ours, mut theirs, mut state) = (Vec::new(), Vec::new(), 0);
        for line in text.lines() {
            match state {
                0 if line.starts_with("<<<<<<< ") => state = 1,
                0 => out.push(line.to_owned()),
                1 if line == "=======" => state = 2,
                1 => ours.push(line.to_owned()),
                _ if line.starts_with(">>>>>>> ") => {
                    let pick = if rng.below(2) == 0 { &ours } else { &theirs };
                    out.extend(pick.iter().cloned());
                    ours.clear();
                    theirs.clear();
                    state = 0;
                }
                _ => theirs.push(line.to_owned()),
            }
        }
        let mut resolved = out.join("\n") + "\n";
        if path.ends_with(".py") && rng.below(2) == 0 {
            resolved = mutate(rng, &resolved, serial);
        }
        repo.write(path, &resolved).expect("writable");
    }
    true
}

/// A scheduled rename, done once on whichever branch reaches its step first.
struct Rename {
    at: usize,
    modules: &'static [usize],
    with_edit: bool,
    done: bool,
}

/// The current path of a module's lineage in the work tree.
fn current(repo: &FixtureRepo, m: &Module) -> &'static str {
    if exists(repo, m.new) { m.new } else { m.old }
}

/// One random branchy history: four branches, commits at committer times that tie and run
/// backwards, merges (`-X theirs`, conflicts resolved by hand, `-s ours`, some evil: an
/// edit or a spec line of the merge's own), spec versions and `Spec-OK` trailers on every
/// branch, and the three scheduled renames. Every branch is merged into main at the end.
pub(crate) fn build(seed: u64, steps: usize) -> FixtureRepo {
    let mut rng = Rng::new(seed);
    let mut repo = FixtureRepo::new().expect("git builds fixtures");
    let mut serial = 0;
    for m in &MODULES {
        repo.write(m.old, &module(m)).expect("writable");
    }
    for (node, entries) in NODES {
        repo.write(&spec_path(node), &spec_text(entries, "0"))
            .expect("writable");
    }
    repo.commit_at("root", FIXTURE_EMAIL, FIXTURE_EPOCH, FIXTURE_EPOCH)
        .expect("commit");
    let branches = ["main", "b1", "b2", "b3"];
    for branch in &branches[1..] {
        repo.git(&["branch", branch]).expect("branch");
    }
    let mut renames = [
        (&[0usize][..], false),
        (&[1usize][..], true),
        (&[2usize, 3][..], rng.below(2) == 0),
    ]
    .map(|(modules, with_edit)| Rename {
        at: steps / 6 + rng.below(steps / 2),
        modules,
        with_edit,
        done: false,
    });
    let when = |rng: &mut Rng| FIXTURE_EPOCH + 60 * (1 + rng.below(steps)) as i64;
    for step in 0..steps {
        let branch = branches[rng.below(branches.len())];
        repo.git(&["checkout", "-q", branch]).expect("checkout");
        let time = when(&mut rng);
        let other = branches[rng.below(branches.len())];
        let mut message = format!("step {step} on {branch}");
        let due = renames.iter().position(|r| !r.done && r.at <= step);
        if rng.below(3) == 0 && other != branch && !is_ancestor(&repo, other, "HEAD") {
            message = format!("step {step}: merge {other} into {branch}");
            let started = match rng.below(8) {
                0 => false,
                1 | 2 => {
                    try_merge(&repo, other, &[]) || resolve_by_hand(&repo, &mut rng, &mut serial)
                }
                _ => try_merge(&repo, other, &["-X", "theirs"]),
            };
            if !started {
                if exists(&repo, ".git/MERGE_HEAD") {
                    abort_merge(&repo);
                }
                assert!(try_merge(&repo, other, &["-s", "ours"]), "-s ours merges");
                message.push_str(" (-s ours)");
            }
            if rng.below(2) == 0 {
                if rng.below(4) == 0 {
                    let (node, entries) = NODES[rng.below(NODES.len())];
                    repo.write(
                        &spec_path(node),
                        &spec_text(entries, &format!("merge {step}")),
                    )
                    .expect("writable");
                } else {
                    let path = current(&repo, &MODULES[rng.below(MODULES.len())]);
                    let text = mutate(&mut rng, &read(&repo, path), &mut serial);
                    repo.write(path, &text).expect("writable");
                }
                message.push_str(" (evil)");
            }
        } else if let Some(i) = due {
            let rename = &mut renames[i];
            rename.done = true;
            let movable = rename
                .modules
                .iter()
                .all(|&m| exists(&repo, MODULES[m].old) && !exists(&repo, MODULES[m].new));
            if movable {
                if rename.modules.len() > 1 {
                    std::fs::create_dir_all(repo.path().join("src")).expect("mkdir");
                    git(&repo, &["mv", "pkg", "src/pkg"]);
                } else {
                    let m = &MODULES[rename.modules[0]];
                    git(&repo, &["mv", m.old, m.new]);
                }
                if rename.with_edit {
                    let m = &MODULES[rename.modules[0]];
                    let text = mutate(&mut rng, &read(&repo, m.new), &mut serial);
                    repo.write(m.new, &text).expect("writable");
                }
                message.push_str(" (rename)");
            }
        } else {
            for _ in 0..=rng.below(2) {
                let path = current(&repo, &MODULES[rng.below(MODULES.len())]);
                let text = mutate(&mut rng, &read(&repo, path), &mut serial);
                repo.write(path, &text).expect("writable");
            }
            if rng.below(6) == 0 {
                let (node, entries) = NODES[rng.below(NODES.len())];
                repo.write(&spec_path(node), &spec_text(entries, &format!("{step}")))
                    .expect("writable");
                message.push_str(" (version)");
            }
        }
        if rng.below(8) == 0 {
            message.push_str(&format!("\n\nSpec-OK: {}", NODES[rng.below(NODES.len())].0));
        }
        repo.commit_at(&message, FIXTURE_EMAIL, time, time)
            .expect("commit");
    }
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    for branch in &branches[1..] {
        if is_ancestor(&repo, branch, "HEAD") {
            continue;
        }
        if !try_merge(&repo, branch, &["-X", "theirs"]) {
            abort_merge(&repo);
            assert!(try_merge(&repo, branch, &["-s", "ours"]), "-s ours merges");
        }
        let time = when(&mut rng);
        repo.commit_at(&format!("merge {branch}"), FIXTURE_EMAIL, time, time)
            .expect("commit");
    }
    // A rename an `-s ours` merge dropped is done again on main.
    let mut fixed = false;
    for m in &MODULES {
        if !exists(&repo, m.new) {
            assert!(exists(&repo, m.old), "{} or {} exists", m.old, m.new);
            let parent = std::path::Path::new(m.new)
                .parent()
                .expect("a parent folder");
            std::fs::create_dir_all(repo.path().join(parent)).expect("mkdir");
            git(&repo, &["mv", m.old, m.new]);
            fixed = true;
        }
    }
    if fixed {
        let time = when(&mut rng);
        repo.commit_at("redo renames", FIXTURE_EMAIL, time, time)
            .expect("commit");
    }
    repo
}

#[test]
fn lint_agrees_with_the_history_oracle_on_branchy_histories() {
    const SEEDS: u64 = 5;
    // The positive control: both sides must report the known debt before any comparison.
    let control = control_case();
    let (found, _) = oracle_at(&control.repo, "HEAD", &control.nodes);
    let keel_found = keel(&control.repo);
    for (side, findings) in [("oracle", &found), ("keel", &keel_found)] {
        for (key, value) in &control.expected.hits {
            assert_eq!(
                findings.hits.get(key),
                Some(value),
                "the {side} misses the control's known debt {key:?}: {findings:#?}"
            );
        }
    }
    let mut mismatches = String::new();
    let mut counts = Counts::default();
    let mut commits = 0;
    let mut compare = |label: &str, repo: &FixtureRepo, nodes: &[(&str, &[&str])]| {
        let (expected, judged) = oracle_at(repo, "HEAD", nodes);
        if let Some(diff) = difference(repo, ("keel", &keel(repo)), ("oracle", &expected)) {
            let _ = writeln!(mismatches, "{label}:\n{diff}");
        }
        judged
    };
    for case in hand_cases() {
        compare(case.name, &case.repo, &case.nodes);
    }
    for seed in 1..=SEEDS {
        let repo = build(seed, 56);
        commits += git(&repo, &["rev-list", "--count", "HEAD"])
            .trim()
            .parse::<usize>()
            .expect("a count");
        counts.add(compare(&format!("seed {seed}"), &repo, &NODES));
    }
    eprintln!("agreement_history: {commits} commits over {SEEDS} seeds; {counts:?}");
    assert!(
        mismatches.is_empty(),
        "keel and the git-CLI oracle disagree:\n{mismatches}"
    );
    for (kind, n) in [
        ("merge events", counts.merge_events),
        ("merge hits", counts.merge_hits),
        (
            "merge hits through an owned deleted line",
            counts.merge_deleted_hits,
        ),
        ("neutral transport merges", counts.transport_merges),
        ("rename events", counts.rename_events),
        ("pure renames", counts.pure_renames),
        ("plain events", counts.plain_events),
        ("bases among several maximal versions", counts.wide_bases),
        ("hits", counts.hits),
        ("misses", counts.misses),
        ("drift", counts.drift),
    ] {
        assert!(
            n > 0,
            "the random histories must produce {kind}: {counts:?}"
        );
    }
}

/// The parse contract on these histories: for every file, its images parsed in
/// the order lint walks them (newest first, each reusing the previous image's tree) give
/// exactly the units of a full parse of each image.
#[test]
fn reused_parses_equal_full_parses_on_every_image_pair_of_these_histories() {
    use keel_queries::extract::{Language, ParseCache, extract_as};
    let mut compared = 0;
    for seed in 1..=3 {
        let repo = build(seed, 40);
        let listing = git(
            &repo,
            &["log", "--format=%H", "--name-only", "--no-renames"],
        );
        let mut by_path: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        let mut commit = String::new();
        for line in listing.lines().filter(|l| !l.is_empty()) {
            if line.len() == 40 && line.bytes().all(|b| b.is_ascii_hexdigit()) {
                commit = line.to_owned();
            } else if Language::for_path(line).is_some() {
                by_path
                    .entry(line.to_owned())
                    .or_default()
                    .push(commit.clone());
            }
        }
        let mut cache = ParseCache::default();
        for (path, commits) in &by_path {
            let language = Language::for_path(path).expect("filtered above");
            for commit in commits {
                let Ok(text) = repo.git(&["show", &format!("{commit}:{path}")]) else {
                    continue; // the commit deleted the file
                };
                let bytes: std::sync::Arc<[u8]> = std::sync::Arc::from(text.as_bytes());
                assert_eq!(
                    cache.extract(language, path, &bytes),
                    extract_as(language, &bytes),
                    "seed {seed}, {commit}:{path}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "only {compared} images compared");
}
