//! The one door for outside change: [`ChangeEvent`] and [`KeelDatabase::apply_changes`].
//!
//! Owns: the vocabulary of what moved and which inputs each event (re-)reads. Every input
//! change after a database is opened — the tip, commits, the working tree, sessions and
//! their repositories, agent logs and their prices, readings, source trees — is an event
//! here; a one-shot CLI run, `keel watch`, the tests and the benchmarks all enter through
//! it. (Two constructors make inputs without changing any: [`KeelDatabase::sources`]
//! makes a new source tree, and [`KeelDatabase::open_since`] the kept-answer database.)
//! Does not own: noticing change (the caller or a watcher does) or any derived answer.

use crate::Oid;
use crate::agents::{AgentLogs, LogSources, LogSync};
use crate::database::{EngineError, KeelDatabase};
use crate::inputs::{Readings, Sources};
use crate::sessions::{ScanPlan, SessionSources, SessionWorld};
use crate::settings::ModelPrices;
use crate::worktree_commit::DiskRead;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Something outside may have changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeEvent {
    /// A ref moved (a commit, reset, checkout): HEAD is re-read and any new commits
    /// become inputs. Old commits are never re-read: an object id names fixed content.
    /// A committed `keel.toml` change is a tip move too: lint reads it from the tip's tree.
    TipMoved,
    /// Anything may have changed: re-read everything that can move.
    Rescan,
    /// Judge this commit instead of HEAD (a candidate no ref points at yet). A later
    /// `TipMoved` or `Rescan` returns to HEAD.
    TipAt(Oid),
    /// Judge the working tree: HEAD is re-read and the tip becomes an in-memory commit on
    /// top of it holding the working tree (HEAD itself when nothing differs; see
    /// [`crate::worktree_commit`]). Re-sent after every save; a later `TipMoved` or
    /// `Rescan` returns to HEAD.
    Worktree,
    /// An editor's unsaved buffer: the working tree as [`ChangeEvent::Worktree`] reads it
    /// holds these bytes at `path` (a repository path) instead of the file on disk, until
    /// a later `Buffer` with `None` (the buffer closed, or saved and equal to the disk).
    /// Takes effect at the next `Worktree`.
    Buffer {
        path: String,
        text: Option<std::sync::Arc<[u8]>>,
    },
    /// [`ChangeEvent::Worktree`] after keystrokes: only the buffers moved, so the files on
    /// disk are taken as the last `Worktree` read them (read anyway the first time, or
    /// when HEAD moved). A save, a close or an outside change is a `Worktree`. The
    /// commit it makes is one input set again at every keystroke, so a database that
    /// took it writes no memo (`save_memo`).
    WorktreeBuffers,
    /// `keel sessions`: read the sessions and decisions of these sources into a new
    /// [`SessionWorld`] (replacing any loaded one). Bad input is refused and nothing is set.
    SessionsFrom(Box<SessionSources>),
    /// `keel sessions`: the sessions file grew or changed; it is re-read and only the
    /// sessions that differ are set.
    SessionsAppended,
    /// `keel sessions`: the decisions file grew or changed; it is re-read.
    DecisionsAppended,
    /// `keel sessions`: scan these repositories from these instants (the plan
    /// `keel-queries` makes from the world); nothing happens when it is the last plan.
    ScanPlanned(ScanPlan),
    /// `keel sessions`: a ref of a scanned repository moved; the planned repositories are
    /// rescanned, reading only commits not read before.
    RepoMoved,
    /// Source tree `tree` (made by [`KeelDatabase::sources`]) now holds `files`; set only
    /// when they differ.
    SourcesChanged {
        tree: Sources,
        files: Vec<(String, Oid)>,
    },
    /// Agent logs: find the log files of these folders and read what is new (a new file
    /// wholly, a grown one from its previous end, an unchanged one not at all).
    AgentLogsFrom(Box<LogSources>),
    /// Agent logs: `[prices]` of `keel.toml` (model id → rates) over the bundled table.
    PricesChanged(BTreeMap<String, ModelPrices>),
    /// `keel fresh`: read the readings file at this path (named as given in messages).
    ReadingsFrom(PathBuf),
}

/// Which inputs an `apply_changes` call actually set, and what the reads saw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangeResult {
    pub tip_moved: bool,
    /// The working tree's in-memory commit, when a [`ChangeEvent::Worktree`] found the
    /// working tree different from HEAD.
    pub worktree: Option<Oid>,
    /// The world a [`ChangeEvent::SessionsFrom`] loaded.
    pub sessions_loaded: Option<SessionWorld>,
    pub sessions_changed: bool,
    pub decisions_changed: bool,
    /// A [`ChangeEvent::ScanPlanned`] or [`ChangeEvent::RepoMoved`] scanned.
    pub repos_changed: bool,
    pub sources_changed: bool,
    /// What a [`ChangeEvent::AgentLogsFrom`] read (files, bytes, warnings).
    pub agent_logs: Option<LogSync>,
    pub prices_changed: bool,
    /// The readings a [`ChangeEvent::ReadingsFrom`] read.
    pub readings: Option<Readings>,
}

impl KeelDatabase {
    /// Applies outside changes, in order; an input is set only when its value differs, so
    /// nothing derived is invalidated by an event that changed nothing.
    pub fn apply_changes(&mut self, events: &[ChangeEvent]) -> Result<ChangeResult, EngineError> {
        self.apply_changes_with_progress(events, &mut |_, _| {})
    }

    /// [`Self::apply_changes`], telling `progress` (files done, files total) while agent
    /// logs are read.
    pub fn apply_changes_with_progress(
        &mut self,
        events: &[ChangeEvent],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ChangeResult, EngineError> {
        let mut result = ChangeResult::default();
        let rescan = events.contains(&ChangeEvent::Rescan);
        if rescan || events.contains(&ChangeEvent::TipMoved) {
            result.tip_moved = self.sync_tip()?;
        }
        for event in events {
            self.apply_one(event, &mut result, progress)?;
        }
        if rescan {
            result.sessions_changed |= self.sync_sessions()?;
            result.decisions_changed |= self.sync_decisions()?;
            result.repos_changed |= self.sync_session_repos()?;
        }
        Ok(result)
    }

    /// One event's reads (the tip moves and rescans are read once, before all others).
    fn apply_one(
        &mut self,
        event: &ChangeEvent,
        result: &mut ChangeResult,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), EngineError> {
        match event {
            ChangeEvent::TipMoved | ChangeEvent::Rescan => {}
            ChangeEvent::TipAt(oid) => result.tip_moved |= self.set_tip(Some(*oid))?,
            ChangeEvent::Worktree | ChangeEvent::WorktreeBuffers => {
                let disk = match event {
                    ChangeEvent::WorktreeBuffers => DiskRead::AsLast,
                    _ => DiskRead::Again,
                };
                let before = self.worktree_files.tip;
                result.worktree = self.worktree_commit(disk)?;
                let tip = match result.worktree {
                    Some(commit) => Some(commit),
                    None => self.read_head()?,
                };
                // The working tree's commit is one input set again: another one moved the
                // tip even where the tip input names the same commit input.
                let rewritten = result.worktree.is_some() && result.worktree != before;
                result.tip_moved |= self.set_tip(tip)? | rewritten;
            }
            ChangeEvent::Buffer { path, text } => match text {
                Some(text) => {
                    self.buffers.insert(path.clone(), text.clone());
                }
                None => {
                    self.buffers.remove(path);
                }
            },
            ChangeEvent::SessionsFrom(sources) => {
                result.sessions_loaded = Some(self.load_sessions(sources.as_ref().clone())?);
            }
            ChangeEvent::SessionsAppended => result.sessions_changed |= self.sync_sessions()?,
            ChangeEvent::DecisionsAppended => result.decisions_changed |= self.sync_decisions()?,
            ChangeEvent::ScanPlanned(plan) => {
                result.repos_changed |= self.plan_session_scan(plan.clone())?;
            }
            ChangeEvent::RepoMoved => result.repos_changed |= self.sync_session_repos()?,
            ChangeEvent::SourcesChanged { tree, files } => {
                result.sources_changed |= self.set_sources(*tree, files.clone());
            }
            ChangeEvent::AgentLogsFrom(sources) => {
                result.agent_logs = Some(self.sync_agent_logs(sources, progress)?);
            }
            ChangeEvent::PricesChanged(prices) => {
                result.prices_changed |= self.set_agent_prices(prices.clone());
            }
            ChangeEvent::ReadingsFrom(path) => result.readings = Some(self.load_readings(path)?),
        }
        Ok(())
    }

    /// The agent logs read so far (by [`ChangeEvent::AgentLogsFrom`] or
    /// [`ChangeEvent::PricesChanged`]), if any.
    pub fn agent_logs(&self) -> Option<AgentLogs> {
        self.agent_logs
    }
}
