//! Lineages: which historical (commit, path) events belong to a file at the tip.
//!
//! Owns: the seed's rename projection. An event is a commit that authored a change at a
//! path (a rename is ONE event at its target that keeps both paths). It projects to the
//! tip through the renames of its path, each judged three ways against the event: a
//! rename before the event means the old path was reused (ignored); the event before a
//! rename moves its lineage to the target (the nearest such renames); a rename on an
//! incomparable branch keeps the event's path AND follows the target, so one lineage can
//! fork across current paths. A deletion moves nothing: a path deleted and created again
//! keeps its events. The lineage of a tip path is every event whose projection reaches it.
//! Memoized per (tip, path); answers are lookups in the tip's history plus ancestry checks of
//! the few rename commits involved.
//! Does not own: which events a node's window holds (`window`), nor what an event did to
//! lines (`drift`).

use crate::history::{ChangeKind, Order, TipHistory, ancestry, order, renames_at, tip_history};
use crate::tree::RepoPath;
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// One historical event: `commit` authored a change at `path` (its result-side path).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Event {
    pub commit: Commit,
    pub path: String,
}

/// The events of the tip file at `path`, newest first in walk order.
#[salsa::tracked(returns(ref))]
pub fn lineage<'db>(
    db: &'db dyn Db,
    tip: Commit,
    path: RepoPath<'db>,
) -> Result<Vec<Event>, ObjectError> {
    let index = tip_history(db, tip)?;
    let target = path.text(db).clone();
    let mut projector = Projector {
        db,
        index,
        renames_from: FxHashMap::default(),
    };
    let mut events = Vec::new();
    let mut pending = vec![target.clone()];
    let mut seen = FxHashSet::from_iter([target.clone()]);
    while let Some(path) = pending.pop() {
        let renames = renames_at(db, &path)?;
        for (commit, kind) in index.changes(&path) {
            // A rename away from `path` is one event, at its target: not an event here.
            if renames.away.iter().any(|(rename, _)| *rename == commit) {
                continue;
            }
            if kind == ChangeKind::Added
                && let Some((_, source)) = renames.into.iter().find(|(into, _)| *into == commit)
                && seen.insert(source.clone())
            {
                pending.push(source.clone());
            }
            if projector.reaches(commit, &path, &target, &mut FxHashSet::default())? {
                events.push(Event {
                    commit,
                    path: path.clone(),
                });
            }
        }
    }
    events.sort_by(|a, b| {
        (index.position(a.commit), &a.path).cmp(&(index.position(b.commit), &b.path))
    });
    events.dedup();
    Ok(events)
}

/// Projects events through the renames of one tip's history.
struct Projector<'a, 'db> {
    db: &'db dyn Db,
    index: TipHistory<'a>,
    renames_from: FxHashMap<String, Rc<[(Commit, String)]>>,
}

impl Projector<'_, '_> {
    /// The authored renames away from `path` in the tip's history: (commit, target).
    fn renames_from(&mut self, path: &str) -> Result<Rc<[(Commit, String)]>, ObjectError> {
        if let Some(known) = self.renames_from.get(path) {
            return Ok(Rc::clone(known));
        }
        let known = renames_at(self.db, path)?;
        let reached: Rc<[(Commit, String)]> = known
            .away
            .iter()
            .filter(|(commit, _)| self.index.reaches(*commit))
            .cloned()
            .collect();
        self.renames_from
            .insert(path.to_owned(), Rc::clone(&reached));
        Ok(reached)
    }

    /// Does the event (`commit`, `path`) project to `target` at the tip?
    fn reaches(
        &mut self,
        commit: Commit,
        path: &str,
        target: &str,
        visiting: &mut FxHashSet<(Commit, String)>,
    ) -> Result<bool, ObjectError> {
        let renames = self.renames_from(path)?;
        // No rename moves `path` anywhere: the event keeps its path (the common case,
        // answered without the bookkeeping below).
        if renames.is_empty() {
            return Ok(path == target);
        }
        if !visiting.insert((commit, path.to_owned())) {
            return Ok(false);
        }
        let mut before = Vec::new();
        let mut parallel = Vec::new();
        for pair @ (rename, _) in renames.iter() {
            if *rename == commit {
                continue;
            }
            match order(self.db, commit, *rename) {
                Order::Before => before.push(pair),
                Order::Incomparable => parallel.push(pair),
                Order::After => {}
            }
        }
        let nearest: Vec<&(Commit, String)> = before
            .iter()
            .copied()
            .filter(|(rename, _)| {
                let above = ancestry(self.db, *rename);
                !before
                    .iter()
                    .any(|(other, _)| other != rename && above.contains(other))
            })
            .collect();
        let keeps_path = nearest.is_empty() || !parallel.is_empty();
        if keeps_path && path == target {
            return Ok(true);
        }
        for (rename, to) in nearest.into_iter().chain(parallel) {
            if self.reaches(*rename, to, target, visiting)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
