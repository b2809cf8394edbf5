//! `keel lint` as data: every node's findings at the tip, in declaration order.
//!
//! Owns: the entry points ([`lint`], [`lint_scope`] for a [`Scope`], and the parallel
//! [`lint_on_threads`] with its warm-up, which hands out stretches of window events from a
//! shared counter) and their error. The report types live in `report`, reading the nodes
//! at the tip in `nodes`, reading `keel.toml` at the tip in `settings`, the per-entry
//! judgement with lint's own wording in `judge`, the state a report is assembled from in
//! `state` ([`lint_state_at`] gives it), extending a kept state by new commits in `extend`,
//! and the candidate scopes (`--pending`, a ref update's) and the governor-transition
//! check in `candidate`.
//! Does not own: rendering or exit codes (`keel`), nor the per-commit judgement (`drift`).

pub mod candidate;
pub mod codes;
mod extend;
mod home;
mod judge;
mod nodes;
mod report;
mod settings;
mod state;

/// The line ranges and sides a report's hits and units are told in.
pub use crate::anchors::{LineRange, Side};
/// How far a hit's change was only cosmetic.
pub use crate::cosmetic::Cosmetic;
/// Every commit reachable from a tip, in `git rev-list` order (a report's hits are in it).
pub use crate::history::history;
pub use nodes::{entry_line, spec_node, spec_nodes};
pub use report::{
    Finding, HitRecord, LINT_SCHEMA, LintError, LintReport, Owed, Severity, Summary, Unverified,
    selector_lines, unit_lines,
};
pub use settings::{settings_image, tip_file_bound, tip_settings};

use crate::events::tip_image;
use crate::extract::{ParseCounts, thread_parse_counts};
use crate::images::{FileBound, tip_units_within};
use crate::spec::Target;
use crate::tree::RepoPath;
use crate::window::Node;
pub use extend::extend;
pub(crate) use judge::{Governed, entry_window, path_now};
use judge::{NodeJudge, Share, Wording, scoped_window};
use keel_engine::Db;
use keel_engine::inputs::Tip;
use keel_engine::objects::ObjectError;
pub(crate) use nodes::literal_at;
use state::NodeState;
pub use state::{KeptLint, LintState};

/// Which nodes a lint judges.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every node at the tip (CI, dashboards).
    #[default]
    Full,
    /// The tip is a candidate commit: the nodes governing the paths it changed, plus the
    /// governor-transition check (see [`candidate`]).
    Pending,
    /// The tip ends a ref update that brings these commits (every one no ref or reflog
    /// held before it, the tip among them): the nodes governing the paths any of them
    /// changed, plus the governor-transition check across them (see [`candidate`]).
    Update(std::sync::Arc<[keel_engine::Oid]>),
}

/// Lints the tip, judging every node.
pub fn lint(db: &dyn Db) -> Result<LintReport, LintError> {
    lint_scope(db, Scope::Full)
}

/// The nodes `scope` judges at `tip`, sorted by id.
fn judged_nodes(
    db: &dyn Db,
    tip: keel_engine::inputs::Commit,
    scope: Scope,
) -> Result<(Vec<crate::spec::SpecNode>, Vec<Finding>), LintError> {
    let nodes = spec_nodes(db, tip)?;
    Ok(scoped_nodes(db, tip, nodes, scope)?)
}

/// Of the tip's `nodes`, those `scope` judges, and the findings before theirs (a
/// candidate's governor-transition check).
fn scoped_nodes(
    db: &dyn Db,
    tip: keel_engine::inputs::Commit,
    mut nodes: Vec<crate::spec::SpecNode>,
    scope: Scope,
) -> Result<(Vec<crate::spec::SpecNode>, Vec<Finding>), ObjectError> {
    let candidates = match scope {
        Scope::Full => return Ok((nodes, Vec::new())),
        Scope::Pending => vec![tip],
        Scope::Update(new) => candidate::update_commits(db, tip, &new),
    };
    let transition = candidate::governor_transition(db, &candidates, &nodes)?;
    let in_scope = candidate::nodes_in_scope(db, &candidates, &nodes)?;
    nodes.retain(|node| in_scope.contains(&node.id));
    Ok((nodes, transition))
}

/// Lints the tip, judging the nodes `scope` selects.
pub fn lint_scope(db: &dyn Db, scope: Scope) -> Result<LintReport, LintError> {
    lint_at(db, Tip::get(db).commit(db), scope)
}

/// Lints `tip` as the tip (`None`: a repository without commits), whatever the tip input
/// says: every query below is keyed by the judged commit, so threads may judge different
/// tips of one database at once (a replay does).
pub fn lint_at(
    db: &dyn Db,
    tip: Option<keel_engine::inputs::Commit>,
    scope: Scope,
) -> Result<LintReport, LintError> {
    Ok(lint_state_at(db, tip, scope)?.1)
}

/// How fully a lint words its repairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repairs {
    /// Every repair as `keel lint` prints it: a dead anchor's names where its unit
    /// likely went, found by reading the tip's other files (`home`).
    Full,
    /// A dead anchor's repair without that search (the rest of the report is the
    /// same): for a caller that tallies findings and prints no repair (`keel replay`).
    Tally,
}

/// [`lint_at`] for a caller that only tallies the report: the same findings, debt and
/// verdicts, but a dead anchor's repair does not search the tip's files for where its
/// unit went ([`Repairs::Tally`]).
pub fn lint_tally_at(
    db: &dyn Db,
    tip: Option<keel_engine::inputs::Commit>,
    scope: Scope,
) -> Result<LintReport, LintError> {
    Ok(judged_state(db, tip, scope, Repairs::Tally)?.1)
}

/// [`lint_at`], also giving the state the report was assembled from (`None` without a
/// tip), which a later process can extend ([`extend`]).
pub fn lint_state_at(
    db: &dyn Db,
    tip: Option<keel_engine::inputs::Commit>,
    scope: Scope,
) -> Result<(Option<LintState>, LintReport), LintError> {
    judged_state(db, tip, scope, Repairs::Full)
}

/// The lint of `tip` and its state, with repairs worded as `repairs` says.
fn judged_state(
    db: &dyn Db,
    tip: Option<keel_engine::inputs::Commit>,
    scope: Scope,
    repairs: Repairs,
) -> Result<(Option<LintState>, LintReport), LintError> {
    let Some(tip) = tip else {
        let report = LintReport {
            schema: LINT_SCHEMA,
            tip: None,
            findings: Vec::new(),
            unverified: Vec::new(),
            summary: Summary::default(),
            nodes: Vec::new(),
        };
        return Ok((None, report));
    };
    let lint_settings = tip_settings(db, tip)?.map_err(LintError::Settings)?.lint;
    let bound = FileBound(lint_settings.max_file_bytes);
    let (nodes, leading) = judged_nodes(db, tip, scope)?;
    let mut judged = Vec::with_capacity(nodes.len());
    for node in &nodes {
        let mut judge = NodeJudge::new(db, tip, node, bound, repairs);
        let mut findings: Vec<Finding> = nodes::empty_node_finding(node).into_iter().collect();
        judge.shallow_history()?;
        let (shallow, unverified) = judge.take();
        findings.extend(shallow);
        let entries = node
            .entries
            .iter()
            .map(|entry| judge.entry(entry))
            .collect::<Result<_, _>>()?;
        judged.push(NodeState {
            id: node.id.0.clone(),
            version: Wording::version_of(db, tip, node)?,
            findings,
            unverified,
            entries,
        });
    }
    let state = LintState {
        tip: tip.id(db).to_string(),
        leading,
        nodes: judged,
    };
    let report = state.report(&nodes, &lint_settings);
    Ok((Some(state), report))
}

/// Lints the tip after warming the expensive memos on up to `threads` threads (capped at
/// [`MAX_THREADS`]): each thread takes its share through its own database clone (salsa
/// shares the storage, and a query two threads want runs once). The answer equals
/// [`lint`]'s; only the wall-clock time differs.
pub fn lint_on_threads<D: Db + Clone + Send>(
    db: &D,
    threads: usize,
    scope: Scope,
) -> Result<LintReport, LintError> {
    lint_counting_parses(db, threads, scope).map(|(report, _)| report)
}

/// [`lint_on_threads`], also telling how the images it parsed were parsed (from
/// scratch, incrementally, spliced), summed over its threads.
pub fn lint_counting_parses<D: Db + Clone + Send>(
    db: &D,
    threads: usize,
    scope: Scope,
) -> Result<(LintReport, ParseCounts), LintError> {
    lint_state_counting_parses(db, threads, scope).map(|(_, report, parses)| (report, parses))
}

/// [`lint_counting_parses`], also giving the state the report was assembled from.
pub fn lint_state_counting_parses<D: Db + Clone + Send>(
    db: &D,
    threads: usize,
    scope: Scope,
) -> Result<(Option<LintState>, LintReport, ParseCounts), LintError> {
    judged_on_threads(db, threads, scope, Repairs::Full)
}

/// [`lint_counting_parses`] for a caller that only tallies the report (as
/// [`lint_tally_at`]).
pub fn lint_tally_counting_parses<D: Db + Clone + Send>(
    db: &D,
    threads: usize,
    scope: Scope,
) -> Result<(LintReport, ParseCounts), LintError> {
    judged_on_threads(db, threads, scope, Repairs::Tally)
        .map(|(_, report, parses)| (report, parses))
}

/// The tip's lint after warming on `threads` threads, with repairs worded as `repairs`
/// says, its state, and how its images were parsed.
fn judged_on_threads<D: Db + Clone + Send>(
    db: &D,
    threads: usize,
    scope: Scope,
    repairs: Repairs,
) -> Result<(Option<LintState>, LintReport, ParseCounts), LintError> {
    let threads = threads.min(MAX_THREADS);
    let mut parses = ParseCounts::default();
    if threads > 1 {
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|spawner| {
            let shares: Vec<_> = (0..threads)
                .map(|index| {
                    let clone = db.clone();
                    let scope = scope.clone();
                    let next = &next;
                    spawner.spawn(move || {
                        let before = thread_parse_counts(clone.hints());
                        crate::extract::history_only(clone.hints());
                        warm_share(&clone, index, threads, scope, next);
                        let parsed = thread_parse_counts(clone.hints()).since(before);
                        // A warming thread's hints are of files the lint below finds
                        // memoized: it leaves nothing behind.
                        crate::extract::retire_thread(clone.hints());
                        parsed
                    })
                })
                .collect();
            for share in shares {
                // A share that panicked parsed what `lint_scope` below parses again.
                parses = parses.plus(share.join().unwrap_or_default());
            }
        });
    }
    let before = thread_parse_counts(db.hints());
    let (state, report) = judged_state(db, Tip::get(db).commit(db), scope, repairs)?;
    Ok((
        state,
        report,
        parses.plus(thread_parse_counts(db.hints()).since(before)),
    ))
}

/// How many neighbouring commits of the walk one warming share diffs in a row.
const WARM_RUN: usize = 64;

/// More threads than this only contend for the same few files.
pub const MAX_THREADS: usize = 8;

/// Does share `index` of `count` of the expensive part of a lint — parsing and diffing
/// the images of every scoped entry's window events — and keeps only the memos. Run it
/// on `count` database clones in parallel before [`lint`], which then finds them warm;
/// `next` (shared by the shares, starting at 0) hands out the stretches of work, so a
/// share that finishes early takes more. Errors are left for [`lint`] to report.
pub fn warm_share(
    db: &dyn Db,
    index: usize,
    count: usize,
    scope: Scope,
    next: &std::sync::atomic::AtomicUsize,
) {
    let Some(tip) = Tip::get(db).commit(db) else {
        return;
    };
    // The tip index reads every commit's tree diff: each share takes every count-th run
    // of the walk first, so the index is assembled from warm memos. A run of neighbours
    // diffs a commit's trees against its parent's, which the next diff in the run reads
    // again: taken together, the second read finds them in the share's object cache.
    let walk = crate::history::history(db, tip);
    for (position, run) in walk.chunks(WARM_RUN).enumerate() {
        if position % count.max(1) == index {
            for &commit in run {
                let _ = crate::history::commit_changes(db, commit);
            }
        }
    }
    let Ok((nodes, _)) = judged_nodes(db, tip, scope) else {
        return;
    };
    let bound = tip_file_bound(db, tip);
    let scoped: Vec<ScopedEntry<'_>> = nodes
        .iter()
        .flat_map(|node| {
            node.entries
                .iter()
                .filter_map(move |entry| match &entry.target {
                    Target::Scoped { path, selectors } => Some((node, path, selectors)),
                    _ => None,
                })
        })
        .collect();
    let stretches = warm_stretches(db, tip, &scoped, count);
    loop {
        let taken = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(stretch) = stretches.get(taken) else {
            // The last stretch's blobs are not read again.
            db.objects().plan_reads(Vec::new());
            return;
        };
        db.objects()
            .plan_reads(stretch_blobs(db, tip, &scoped, stretch, bound));
        for &(node, path, selectors) in scoped.iter().filter(|(_, p, _)| **p == stretch.path) {
            // The first stretch starts at the newest event, whose image is usually the
            // tip's: parsed first, it is the reparse hint for the next. Errors here are
            // object reads that lint meets again and reports.
            if stretch.share.index == 0 {
                let _ = tip_image(db, tip, RepoPath::new(db, path.clone()))
                    .map(|image| tip_units_within(db, image, bound));
            }
            let node = Node::new(db, node.id.clone());
            let _ = scoped_window(db, tip, node, path, selectors, bound, stretch.share);
        }
    }
}

/// The blobs a stretch's events change (each event's first-parent diff at its path, both
/// sides) within the file bound (an image past it is never read), for the thread to read
/// in pack order (`ObjectStore::plan_reads`): read in history order, each version of a
/// file decodes its delta chain anew. Reads only memoized commit facts and sizes; an
/// event it cannot place is left to its own reads.
fn stretch_blobs(
    db: &dyn Db,
    tip: keel_engine::inputs::Commit,
    scoped: &[ScopedEntry<'_>],
    stretch: &Stretch,
    bound: FileBound,
) -> Vec<keel_engine::Oid> {
    let mut blobs = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for &(node, path, _) in scoped.iter().filter(|(_, p, _)| **p == stretch.path) {
        let Ok(window) = crate::window::window(db, tip, Node::new(db, node.id.clone())) else {
            continue;
        };
        let Ok(events) = window.events(path) else {
            continue;
        };
        for event in stretch.share.of(&events) {
            let Ok(Some(change)) = crate::history::change_at(db, event.commit, &event.path) else {
                continue;
            };
            for oid in [change.old, change.new].into_iter().flatten() {
                let image = crate::images::Image::at(db, oid, event.path.clone());
                if !bound.excludes(db, image) && seen.insert(oid) {
                    blobs.push(oid);
                }
            }
        }
    }
    blobs
}

/// A scoped entry: its node, path and selectors.
type ScopedEntry<'a> = (
    &'a crate::spec::SpecNode,
    &'a String,
    &'a Vec<crate::anchors::Selector>,
);

/// One stretch of warm-up work: a contiguous share of the window events of every scoped
/// entry on one file, walked newest first from one reparse hint.
struct Stretch {
    path: String,
    share: Share,
}

/// Cuts the anchored files' work (window events times the file's size at the tip) into
/// stretches of about a fourth of a thread's part, heaviest first, so `count` threads
/// taking them in turn finish together while each file is cut as little as possible
/// (every stretch starts with one parse from scratch). Deterministic: every share
/// computes the same list.
fn warm_stretches(
    db: &dyn Db,
    tip: keel_engine::inputs::Commit,
    scoped: &[ScopedEntry<'_>],
    count: usize,
) -> Vec<Stretch> {
    let mut weights: std::collections::BTreeMap<&str, usize> = Default::default();
    for &(node, path, _) in scoped {
        let events = crate::window::window(db, tip, Node::new(db, node.id.clone()))
            .and_then(|window| window.events(path))
            .map_or(0, |events| events.len());
        let size = tip_image(db, tip, RepoPath::new(db, path.clone()))
            .ok()
            .flatten()
            .and_then(|image| crate::images::image_size(db, image))
            .map_or(1, |size| usize::try_from(size).unwrap_or(usize::MAX).max(1));
        let weight = weights.entry(path.as_str()).or_default();
        *weight = (*weight).max(events * size);
    }
    let total: usize = weights.values().sum();
    let piece = (total / (4 * count.max(1))).max(1);
    let mut stretches: Vec<(usize, Stretch)> = Vec::new();
    for (path, weight) in weights {
        let parts = weight.div_ceil(piece).clamp(1, 4 * count.max(1));
        for index in 0..parts {
            stretches.push((
                weight / parts,
                Stretch {
                    path: path.to_owned(),
                    share: Share {
                        index,
                        count: parts,
                    },
                },
            ));
        }
    }
    stretches.sort_by(|(a, x), (b, y)| {
        b.cmp(a)
            .then_with(|| x.path.cmp(&y.path))
            .then(x.share.index.cmp(&y.share.index))
    });
    stretches.into_iter().map(|(_, stretch)| stretch).collect()
}
