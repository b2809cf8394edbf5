//! The one funnel for outside change: [`ChangeEvent`] and [`KeelDatabase::apply_changes`].
//!
//! Owns: the vocabulary of what moved and which inputs each event re-reads. Every caller —
//! a one-shot CLI run, `keel watch`, the tests, the benchmarks — enters here.
//! Does not own: noticing change (the caller or a watcher does) or any derived answer.

use crate::database::{EngineError, KeelDatabase};

/// Something outside may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeEvent {
    /// A ref moved (a commit, reset, checkout): HEAD is re-read and any new commits
    /// become inputs. Old commits are never re-read: an object id names fixed content.
    TipMoved,
    /// `keel.toml` may have been written, created or removed.
    SettingsChanged,
    /// Anything may have changed: re-read everything that can move.
    Rescan,
}

/// Which inputs an `apply_changes` call actually set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChangeResult {
    pub tip_moved: bool,
    pub settings_changed: bool,
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
        if rescan || events.contains(&ChangeEvent::SettingsChanged) {
            result.settings_changed = self.sync_settings()?;
        }
        Ok(result)
    }
}
