//! The one funnel for outside change: [`ChangeEvent`] and [`KeelDatabase::apply_changes`].
//!
//! Owns: the vocabulary of what moved and which inputs each event re-reads. Every caller —
//! a one-shot CLI run, `keel watch`, the tests, the benchmarks — enters here once the
//! database is open. The two other doors are the sessions' own: `load_sessions` creates
//! the sessions inputs (their `open`), and `plan_session_scan` runs the same repository
//! sync as [`ChangeEvent::RepoMoved`] when the CLI hands back a new scan plan.
//! Does not own: noticing change (the caller or a watcher does) or any derived answer.

use crate::database::{EngineError, KeelDatabase};

/// Something outside may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeEvent {
    /// A ref moved (a commit, reset, checkout): HEAD is re-read and any new commits
    /// become inputs. Old commits are never re-read: an object id names fixed content.
    /// A committed `keel.toml` change is a tip move too: lint reads it from the tip's tree.
    TipMoved,
    /// Anything may have changed: re-read everything that can move.
    Rescan,
    /// Judge this commit instead of HEAD (a candidate no ref points at yet). A later
    /// `TipMoved` or `Rescan` returns to HEAD.
    TipAt(crate::Oid),
    /// Judge the working tree: HEAD is re-read and the tip becomes an in-memory commit on
    /// top of it holding the working tree (HEAD itself when nothing differs; see
    /// [`crate::worktree_commit`]). Re-sent after every save; a later `TipMoved` or
    /// `Rescan` returns to HEAD.
    Worktree,
    /// `keel sessions`: the sessions file grew or changed; it is re-read and only the
    /// sessions that differ are set.
    SessionsAppended,
    /// `keel sessions`: the decisions file grew or changed; it is re-read.
    DecisionsAppended,
    /// `keel sessions`: a ref of a scanned repository moved; the planned repositories are
    /// rescanned, reading only commits not read before.
    RepoMoved,
}

/// Which inputs an `apply_changes` call actually set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChangeResult {
    pub tip_moved: bool,
    /// The working tree's in-memory commit, when a [`ChangeEvent::Worktree`] found the
    /// working tree different from HEAD.
    pub worktree: Option<crate::Oid>,
    pub sessions_changed: bool,
    pub decisions_changed: bool,
    pub repos_changed: bool,
}

impl KeelDatabase {
    /// Applies outside changes; an input is set only when its value differs, so nothing
    /// derived is invalidated by an event that changed nothing.
    pub fn apply_changes(&mut self, events: &[ChangeEvent]) -> Result<ChangeResult, EngineError> {
        let mut result = ChangeResult::default();
        let rescan = events.contains(&ChangeEvent::Rescan);
        if rescan || events.contains(&ChangeEvent::TipMoved) {
            result.tip_moved = self.sync_tip()?;
        }
        for event in events {
            match event {
                ChangeEvent::TipAt(oid) => result.tip_moved |= self.set_tip(Some(*oid))?,
                ChangeEvent::Worktree => {
                    result.worktree = self.worktree_commit()?;
                    let tip = match result.worktree {
                        Some(commit) => Some(commit),
                        None => self.read_head()?,
                    };
                    result.tip_moved |= self.set_tip(tip)?;
                }
                _ => {}
            }
        }
        if rescan || events.contains(&ChangeEvent::SessionsAppended) {
            result.sessions_changed = self.sync_sessions()?;
        }
        if rescan || events.contains(&ChangeEvent::DecisionsAppended) {
            result.decisions_changed = self.sync_decisions()?;
        }
        if rescan || events.contains(&ChangeEvent::RepoMoved) {
            result.repos_changed = self.sync_session_repos()?;
        }
        Ok(result)
    }
}
