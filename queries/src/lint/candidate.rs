//! Candidate lint (`keel lint --pending`, and the hook's judgement of a ref update): the
//! tip is a commit no ref points at yet, or the last of several.
//!
//! Owns: the candidate's scope — the paths it changed against ANY parent (the union over
//! all parents for a merge, both sides of a rename; over every new commit of a ref
//! update, so an early commit of a rebase or push is not hidden behind a harmless tip)
//! and the nodes that govern them (an
//! entry covering a changed path or a moved submodule, a changed file in the node's own
//! folder; a changed `keel.toml` brings every node) — and the seed's governor-transition check: a candidate
//! that deletes a spec node must delete each file that node's `code:` entries governed,
//! or leave it governed by another node of the same tree. `Spec-OK` cannot waive it.
//! Changed paths narrow which nodes are judged, never which events exist: a node in scope
//! is judged by the same code as full lint. The gate's fast classification
//! ([`claims_nothing`]) lets a candidate whose scope is empty through without reading any
//! history.
//! Does not own: judging a node (`judge`), reading nodes (`nodes`).

use super::nodes::spec_node;
use super::report::{Finding, Severity};
use crate::drift::PathPattern;
use crate::images::Image;
use crate::spec::{Entry, NodeId, Relation, SPEC_FILE, SPEC_ROOT, SpecNode, Target, glob_pattern};
use crate::tree::{files_under, tree_diff};
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;
use keel_engine::settings::SETTINGS_FILE;
use keel_engine::{Db, Oid};
use std::collections::BTreeSet;

/// Every path the candidate changed against any of its parents (every file, for a root),
/// and apart from them every submodule it moved.
pub fn changed_paths(db: &dyn Db, candidate: Commit) -> Result<Changed, ObjectError> {
    let tree = candidate.tree(db);
    let parents = candidate.parents(db);
    let olds: Vec<Option<keel_engine::Oid>> = if parents.is_empty() {
        vec![None]
    } else {
        parents.iter().map(|p| Some(p.tree(db))).collect()
    };
    let mut changed = Changed::default();
    for old in olds {
        let diff = tree_diff(db, old, tree).as_ref().map_err(Clone::clone)?;
        changed
            .files
            .extend(diff.iter().map(|change| change.path.clone()));
        changed
            .gitlinks
            .extend(diff.gitlinks().iter().map(|link| link.path.clone()));
    }
    Ok(changed)
}

/// The paths a candidate changed: files, and submodules moved (added, removed).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changed {
    pub files: BTreeSet<String>,
    pub gitlinks: BTreeSet<String>,
}

/// Does `entry` cover the submodule at `link`: its path is the submodule or lies inside
/// it, its folder holds it, or its glob matches it or could match a path inside it?
pub fn covers_submodule(entry: &Entry, link: &str) -> bool {
    match &entry.target {
        Target::Scoped { path, .. } | Target::Path(path) => {
            PathPattern::Folder(path.clone()).covers_submodule(link)
        }
        Target::Folder(folder) => PathPattern::Folder(folder.clone()).covers_submodule(link),
        Target::Glob(glob) => {
            PathPattern::Folder(glob.clone()).covers_submodule(link)
                || PathPattern::Glob(glob_pattern(glob)).covers_submodule(link)
        }
    }
}

/// Does `entry` cover the file at `path`?
pub fn covers(entry: &Entry, path: &str) -> bool {
    let under = |folder: &str| path.starts_with(&format!("{}/", folder.trim_end_matches('/')));
    match &entry.target {
        Target::Scoped { path: file, .. } | Target::Path(file) => file == path || under(file),
        Target::Folder(folder) => under(folder),
        Target::Glob(glob) => {
            glob == path || under(glob) || PathPattern::Glob(glob_pattern(glob)).matcher()(path)
        }
    }
}

/// Does `node` govern `path`: an entry covers it, or it lies in the node's own folder?
fn governs(node: &SpecNode, path: &str) -> bool {
    let folder = format!("{SPEC_ROOT}/{}/", node.id.0);
    path.starts_with(&folder) || node.entries.iter().any(|entry| covers(entry, path))
}

/// The seed's one fast classification, decided from two trees and no history: a
/// single-parent candidate (`parent_tree` → `tree`) that changes no governance metadata
/// (nothing under `.spec/`, not `keel.toml`) and no path any entry — `code:` or
/// `related:` — of the candidate's spec nodes covers changes no governed subject, so no
/// node is in its scope and the candidate lint would judge nothing. A spec that does not
/// parse is governance keel cannot read: the candidate is not cleared (its lint says why).
pub fn claims_nothing(db: &dyn Db, parent_tree: Oid, tree: Oid) -> Result<bool, ObjectError> {
    let changes = tree_diff(db, Some(parent_tree), tree).clone()?;
    let spec_folder = format!("{SPEC_ROOT}/");
    if changes
        .iter()
        .any(|change| change.path == SETTINGS_FILE || change.path.starts_with(&spec_folder))
    {
        return Ok(false);
    }
    let mut entries = Vec::new();
    for (path, blob) in files_under(db, tree, SPEC_ROOT)? {
        if path.rsplit('/').next() != Some(SPEC_FILE) {
            continue;
        }
        match spec_node(db, Image::at(db, blob, path)).clone()? {
            Ok(node) => entries.extend(node.entries),
            Err(_) => return Ok(false),
        }
    }
    let moved = changes.gitlinks().iter().any(|link| {
        entries
            .iter()
            .any(|entry| covers_submodule(entry, &link.path))
    });
    Ok(!moved
        && !changes
            .iter()
            .any(|change| entries.iter().any(|entry| covers(entry, &change.path))))
}

/// The commits of a ref update ending at `tip` that the database knows, given their ids
/// (every commit no ref or reflog held before the update): found walking from `tip`
/// through parents among them only — every commit between the tip and a new commit is
/// new too, so none is missed. Newest first.
pub fn update_commits(db: &dyn Db, tip: Commit, new: &[Oid]) -> Vec<Commit> {
    let new: BTreeSet<Oid> = new.iter().copied().collect();
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    let mut next = vec![tip];
    while let Some(commit) = next.pop() {
        if !new.contains(&commit.id(db)) || !seen.insert(commit.id(db)) {
            continue;
        }
        found.push(commit);
        next.extend(commit.parents(db).iter().rev());
    }
    found
}

/// The ids of the nodes the `candidates` (a candidate commit, or a ref update's new
/// commits) touch, given the nodes of the tip's tree: those governing a path any of them
/// changed.
pub fn nodes_in_scope(
    db: &dyn Db,
    candidates: &[Commit],
    nodes: &[SpecNode],
) -> Result<BTreeSet<NodeId>, ObjectError> {
    let mut changed = Changed::default();
    for &candidate in candidates {
        let one = changed_paths(db, candidate)?;
        changed.files.extend(one.files);
        changed.gitlinks.extend(one.gitlinks);
    }
    let everything = changed.files.contains(SETTINGS_FILE);
    let moves = |node: &SpecNode| {
        changed.gitlinks.iter().any(|link| {
            node.entries
                .iter()
                .any(|entry| covers_submodule(entry, link))
        })
    };
    Ok(nodes
        .iter()
        .filter(|node| {
            everything || changed.files.iter().any(|path| governs(node, path)) || moves(node)
        })
        .map(|node| node.id.clone())
        .collect())
}

/// The governor-transition findings: one error per node that one of the `candidates`
/// (the tip first) deleted and the tip still lacks, which leaves files it governed in
/// the tip's tree with no other node governing them.
pub fn governor_transition(
    db: &dyn Db,
    candidates: &[Commit],
    nodes: &[SpecNode],
) -> Result<Vec<Finding>, ObjectError> {
    let Some(&tip) = candidates.first() else {
        return Ok(Vec::new());
    };
    let mut former: Vec<SpecNode> = Vec::new();
    for candidate in candidates {
        let Some(&before) = candidate.parents(db).first() else {
            continue;
        };
        for old in former_nodes(db, before)? {
            if !former.iter().any(|known| known.id == old.id) {
                former.push(old);
            }
        }
    }
    let files: Vec<String> = files_under(db, tip.tree(db), "")?
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    let mut findings = Vec::new();
    for old in former {
        if nodes.iter().any(|node| node.id == old.id) {
            continue;
        }
        let orphans: Vec<&str> = files
            .iter()
            .map(String::as_str)
            .filter(|path| {
                old.entries
                    .iter()
                    .any(|e| e.relation == Relation::Code && covers(e, path))
            })
            .filter(|path| !nodes.iter().any(|node| governs(node, path)))
            .collect();
        if orphans.is_empty() {
            continue;
        }
        let spec = old.id.spec_path();
        findings.push(Finding {
            node: old.id.0.clone(),
            severity: Severity::Error,
            code: "governor-removed",
            path: spec.clone(),
            selectors: Vec::new(),
            hits: Vec::new(),
            message: format!(
                "the candidate deletes {spec}, but {} it governed stay in the tree with no node governing them: {}",
                if orphans.len() == 1 { "a file" } else { "files" },
                orphans.join(", ")
            ),
            repair: "in the same commit, delete those files or list them under `code:` of another node; a `Spec-OK` trailer cannot waive a removed governor".to_owned(),
        });
    }
    Ok(findings)
}

/// The nodes of a commit's tree that parse (a node that did not parse governed nothing
/// keel could read).
fn former_nodes(db: &dyn Db, commit: Commit) -> Result<Vec<SpecNode>, ObjectError> {
    let mut nodes = Vec::new();
    for (path, blob) in files_under(db, commit.tree(db), SPEC_ROOT)? {
        if path.rsplit('/').next() != Some(SPEC_FILE) {
            continue;
        }
        if let Ok(node) = spec_node(db, Image::at(db, blob, path)).clone()? {
            nodes.push(node);
        }
    }
    Ok(nodes)
}
