//! `keel lint` as data: every node's findings at the tip, in declaration order.
//!
//! Owns: the entry point [`lint`] and its error. The report types live in `report`,
//! reading the nodes at the tip in `nodes`, reading `keel.toml` at the tip in `settings`,
//! and the per-entry judgement with lint's own wording in `judge`.
//! Does not own: rendering or exit codes (`keel`), nor the per-commit judgement (`drift`).

pub mod candidate;
mod judge;
mod nodes;
mod report;
mod settings;

pub use nodes::{spec_node, spec_nodes};
pub use report::{
    Finding, HitRecord, LINT_SCHEMA, LintError, LintReport, Severity, Summary, Unverified,
};
pub use settings::tip_settings;

use crate::events::image_at;
use crate::extract::{ParseCounts, thread_parse_counts};
use crate::images::units_of;
use crate::spec::Target;
use crate::tree::RepoPath;
use crate::window::Node;
use judge::{NodeJudge, Share, scoped_window};
use keel_engine::Db;
use keel_engine::inputs::Tip;

/// Which nodes a lint judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every node at the tip (CI, dashboards).
    #[default]
    Full,
    /// The tip is a candidate commit: the nodes governing the paths it changed, plus the
    /// governor-transition check (see [`candidate`]).
    Pending,
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
    let mut nodes = spec_nodes(db, tip)?;
    if scope == Scope::Full {
        return Ok((nodes, Vec::new()));
    }
    let transition = candidate::governor_transition(db, tip, &nodes)?;
    let in_scope = candidate::nodes_in_scope(db, tip, &nodes)?;
    nodes.retain(|node| in_scope.contains(&node.id));
    Ok((nodes, transition))
}

/// Lints the tip, judging the nodes `scope` selects.
pub fn lint_scope(db: &dyn Db, scope: Scope) -> Result<LintReport, LintError> {
    let Some(tip) = Tip::get(db).commit(db) else {
        return Ok(LintReport {
            schema: LINT_SCHEMA,
            tip: None,
            findings: Vec::new(),
            unverified: Vec::new(),
            summary: Summary::default(),
            nodes: Vec::new(),
        });
    };
    let scoped_miss = tip_settings(db, tip)?
        .map_err(LintError::Settings)?
        .lint
        .scoped_code_miss;
    let (nodes, mut findings) = judged_nodes(db, tip, scope)?;
    let mut unverified = Vec::new();
    let mut anchors = 0;
    for node in &nodes {
        findings.extend(nodes::empty_node_finding(node));
        let mut judge = NodeJudge {
            db,
            tip,
            node,
            scoped_miss,
            findings: &mut findings,
            unverified: &mut unverified,
        };
        judge.shallow_history()?;
        for entry in &node.entries {
            if let Target::Scoped { selectors, .. } = &entry.target {
                anchors += selectors.len();
            }
            judge.entry(entry)?;
        }
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let summary = Summary {
        nodes: nodes.len(),
        anchors,
        errors,
        warnings: findings.len() - errors,
    };
    Ok(LintReport {
        schema: LINT_SCHEMA,
        tip: Some(tip.id(db).to_string()),
        findings,
        unverified,
        summary,
        nodes: nodes.iter().map(|n| n.id.0.clone()).collect(),
    })
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
    let threads = threads.min(MAX_THREADS);
    let mut parses = ParseCounts::default();
    if threads > 1 {
        std::thread::scope(|spawner| {
            let shares: Vec<_> = (0..threads)
                .map(|index| {
                    let clone = db.clone();
                    spawner.spawn(move || {
                        let before = thread_parse_counts();
                        warm_share(&clone, index, threads, scope);
                        thread_parse_counts().since(before)
                    })
                })
                .collect();
            for share in shares {
                // A share that panicked parsed what `lint_scope` below parses again.
                parses = parses.plus(share.join().unwrap_or_default());
            }
        });
    }
    let before = thread_parse_counts();
    let report = lint_scope(db, scope)?;
    Ok((report, parses.plus(thread_parse_counts().since(before))))
}

/// More threads than this only contend for the same few files.
pub const MAX_THREADS: usize = 8;

/// Does share `index` of `count` of the expensive part of a lint — parsing and diffing
/// the images of every scoped entry's window commits — and keeps only the memos. Run it
/// on `count` database clones in parallel before [`lint`], which then finds them warm.
/// Errors are left for [`lint`] to report.
pub fn warm_share(db: &dyn Db, index: usize, count: usize, scope: Scope) {
    let Some(tip) = Tip::get(db).commit(db) else {
        return;
    };
    // The tip index reads every commit's tree diff: each share takes every count-th commit
    // of the walk first, so the index is assembled from warm memos.
    for (position, commit) in crate::history::history(db, tip).into_iter().enumerate() {
        if position % count.max(1) == index {
            let _ = crate::history::commit_changes(db, commit);
        }
    }
    let Ok((nodes, _)) = judged_nodes(db, tip, scope) else {
        return;
    };
    let share = Share { index, count };
    let scoped = nodes.iter().flat_map(|node| {
        node.entries
            .iter()
            .filter_map(move |entry| match &entry.target {
                Target::Scoped { path, selectors } => Some((node, path, selectors)),
                _ => None,
            })
    });
    for (position, (node, path, selectors)) in scoped.enumerate() {
        // Errors here are object reads that lint will meet again and report.
        if position % count.max(1) == index {
            let _ =
                image_at(db, tip, RepoPath::new(db, path.clone())).map(|image| units_of(db, image));
        }
        let _ = scoped_window(
            db,
            tip,
            Node::new(db, node.id.clone()),
            path,
            selectors,
            share,
        );
    }
}
