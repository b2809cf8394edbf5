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
//! A projection depends on the tip only through the renames it reaches, so it is computed
//! once per (path, reachable renames) over every known event ([`projected_events`]); a
//! tip then keeps the events it reaches, in its walk order ([`tip_lineage`], memoized per
//! (tip, path)). Moving the tip past commits that rename nothing the lineage touches costs
//! a filter and a sort, not a projection.
//! Does not own: which events a node's window holds (`window`), nor what an event did to
//! lines (`drift`).

use crate::history::{
    ChangeKind, Order, TipHistory, ancestry, order, path_changes, path_renames, renames_at,
    tip_history,
};
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

/// A tip path and the renames a tip reaches among those that can move events into its
/// lineage: all a projection depends on, so the tips that reach the same renames share
/// one ([`projected_events`]).
#[salsa::interned(debug)]
pub struct Projection<'db> {
    pub path: RepoPath<'db>,
    /// Sorted by [`id_bits`].
    #[returns(ref)]
    pub renames: Vec<Commit>,
}

/// Every known event (reachable from the tip or not) that projects to the projection's
/// path through its renames, newest known first. Tip-independent: a tip keeps the events
/// it reaches ([`lineage`]).
#[salsa::tracked(returns(ref))]
pub fn projected_events<'db>(
    db: &'db dyn Db,
    projection: Projection<'db>,
) -> Result<Vec<Event>, ObjectError> {
    let target = projection.path(db).text(db).clone();
    let reachable = projection.renames(db);
    let mut projector = Projector {
        db,
        reachable,
        renames_from: FxHashMap::default(),
    };
    let mut events = Vec::new();
    let mut pending = vec![target.clone()];
    let mut seen = FxHashSet::from_iter([target.clone()]);
    while let Some(path) = pending.pop() {
        let at = RepoPath::new(db, path.clone());
        let renames = path_renames(db, at).as_ref().map_err(Clone::clone)?;
        let changes = path_changes(db, at).as_ref().map_err(Clone::clone)?;
        for &(commit, kind) in changes.iter().rev() {
            // A rename away from `path` is one event, at its target: not an event here.
            if renames.away.iter().any(|(rename, _)| *rename == commit) {
                continue;
            }
            if kind == ChangeKind::Added
                && projector.reached(commit)
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
    Ok(events)
}

/// The renames `tip` reaches that can move an event into the lineage of `path`: those at
/// every path linked to it by reachable renames, either way.
fn reachable_renames(
    db: &dyn Db,
    index: &TipHistory<'_>,
    path: &str,
) -> Result<Vec<Commit>, ObjectError> {
    let mut renames = Vec::new();
    let mut pending = vec![path.to_owned()];
    let mut seen = FxHashSet::from_iter([path.to_owned()]);
    while let Some(path) = pending.pop() {
        let known = renames_at(db, &path)?;
        for (commit, other) in known.away.iter().chain(&known.into) {
            if !index.reaches(*commit) {
                continue;
            }
            renames.push(*commit);
            if seen.insert(other.clone()) {
                pending.push(other.clone());
            }
        }
    }
    renames.sort_unstable_by_key(|&commit| id_bits(commit));
    renames.dedup();
    Ok(renames)
}

/// A commit's database id, which orders a set of commits canonically.
fn id_bits(commit: Commit) -> u64 {
    salsa::plumbing::AsId::as_id(&commit).as_bits()
}

/// The lineage of the tip file at `path`: its events the tip reaches, in walk order.
#[derive(Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct TipLineage<'db> {
    projection: Projection<'db>,
    /// Indexes into the projection's events, newest first in walk order.
    order: Vec<u32>,
}

/// The lineage of the tip file at `path` (see [`lineage`]).
#[salsa::tracked(returns(ref))]
pub fn tip_lineage<'db>(
    db: &'db dyn Db,
    tip: Commit,
    path: RepoPath<'db>,
) -> Result<TipLineage<'db>, ObjectError> {
    let index = tip_history(db, tip)?;
    let target = path.text(db);
    let projection = Projection::new(db, path, reachable_renames(db, &index, target)?);
    let events = projected_events(db, projection)
        .as_ref()
        .map_err(Clone::clone)?;
    let mut kept: Vec<(usize, u32)> = events
        .iter()
        .enumerate()
        // A projection holds fewer events than a database holds commits (u32 ids).
        .filter_map(|(at, event)| Some((index.position(event.commit)?, at as u32)))
        .collect();
    kept.sort_by(|a, b| (a.0, &events[a.1 as usize].path).cmp(&(b.0, &events[b.1 as usize].path)));
    Ok(TipLineage {
        projection,
        order: kept.into_iter().map(|(_, at)| at).collect(),
    })
}

/// The events of the tip file at `path`, newest first in walk order.
pub fn lineage<'db>(
    db: &'db dyn Db,
    tip: Commit,
    path: RepoPath<'db>,
) -> Result<impl Iterator<Item = &'db Event> + 'db, ObjectError> {
    let lineage = tip_lineage(db, tip, path).as_ref().map_err(Clone::clone)?;
    let events = projected_events(db, lineage.projection)
        .as_ref()
        .map_err(Clone::clone)?;
    Ok(lineage.order.iter().map(|&at| &events[at as usize]))
}

/// Projects events through the renames a tip reaches.
struct Projector<'a, 'db> {
    db: &'db dyn Db,
    /// The renames the tip reaches (sorted).
    reachable: &'a [Commit],
    renames_from: FxHashMap<String, Rc<[(Commit, String)]>>,
}

impl Projector<'_, '_> {
    /// Is `rename` one the tip reaches?
    fn reached(&self, rename: Commit) -> bool {
        self.reachable
            .binary_search_by_key(&id_bits(rename), |&commit| id_bits(commit))
            .is_ok()
    }

    /// The authored renames away from `path` in the tip's history: (commit, target).
    fn renames_from(&mut self, path: &str) -> Result<Rc<[(Commit, String)]>, ObjectError> {
        if let Some(known) = self.renames_from.get(path) {
            return Ok(Rc::clone(known));
        }
        let known = renames_at(self.db, path)?;
        let reached: Rc<[(Commit, String)]> = known
            .away
            .iter()
            .filter(|(commit, _)| self.reached(*commit))
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
