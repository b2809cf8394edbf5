//! Events: the images one (commit, path) event compares, and what a merge owns of them.
//!
//! Owns: an event's ORDERED images — the result image at the event's path and each
//! parent's image at the path that parent holds the content under (a rename's source) —
//! and [`merge_owned`], the lines of a merge's dense combined diff that differ from
//! every parent, memoized per ordered image list (never per commit id). Whether an event
//! authored anything: a non-merge commit authors every change it makes (a pure rename
//! included); a merge authors a file only when it owns a line of it.
//! Does not own: the combined-diff rule itself (`diff::combined`), nor judging units
//! (`drift`).

use crate::diff::combined::{Owned, ParentDiff, owned_lines};
use crate::diff::{HunkSet, line_count};
use crate::history::{change_at, parent_paths};
use crate::images::{Image, image_bytes, image_hunks};
use crate::tree::{PathEntry, RepoPath, entry_at, tip_entry};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};

/// The image of `path` in `commit`, if it holds a file there.
pub fn image_at<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: RepoPath<'db>,
) -> Result<Option<Image<'db>>, ObjectError> {
    Ok(file_image(db, entry_at(db, commit, path)?, path))
}

/// The image of `path` in the judged `tip` (see [`tip_entry`]), if it holds a file there.
pub fn tip_image<'db>(
    db: &'db dyn Db,
    tip: Commit,
    path: RepoPath<'db>,
) -> Result<Option<Image<'db>>, ObjectError> {
    Ok(file_image(db, tip_entry(db, tip, path)?, path))
}

/// The image of the file `entry` (at `path`), if it is a file.
fn file_image<'db>(
    db: &'db dyn Db,
    entry: Option<PathEntry>,
    path: RepoPath<'db>,
) -> Option<Image<'db>> {
    entry
        .filter(|entry| entry.kind == EntryKind::File)
        .map(|entry| Image::at(db, entry.oid, path.text(db).clone()))
}

/// The images one event compares: the result, and one per parent (a root commit
/// compares against one absent parent).
#[salsa::interned(debug, persist)]
pub struct EventImages<'db> {
    #[returns(copy)]
    pub result: Option<Image<'db>>,
    #[returns(ref)]
    pub parents: Vec<Option<Image<'db>>>,
}

/// The images of the event (`commit`, `path`).
pub fn event_images<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: &str,
) -> Result<EventImages<'db>, ObjectError> {
    let at = RepoPath::new(db, path.to_owned());
    let result = image_at(db, commit, at)?;
    let parents = commit.parents(db);
    let mut images = Vec::with_capacity(parents.len().max(1));
    if parents.is_empty() {
        images.push(None);
    }
    let sources = parent_paths(db, commit, at)
        .as_ref()
        .map_err(Clone::clone)?;
    for (&parent, source) in parents.iter().zip(sources) {
        images.push(match source {
            Some(source) => image_at(db, parent, RepoPath::new(db, source.clone()))?,
            None => None,
        });
    }
    Ok(EventImages::new(db, result, images))
}

/// What a merge owns of one file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Ownership {
    /// Text on every side: the owned lines.
    Text(Owned),
    /// Some image holds a NUL byte: no line is attributable.
    Binary,
}

/// The lines a merge owns among `images` (see `diff::combined`), memoized per ordered
/// image list, in memory and on disk.
#[salsa::tracked(returns(ref), persist)]
pub fn merge_owned<'db>(
    db: &'db dyn Db,
    images: EventImages<'db>,
) -> Result<Ownership, ObjectError> {
    let result = images.result(db);
    let mut hunks = Vec::new();
    let mut bytes = Vec::new();
    for &parent in images.parents(db) {
        match image_hunks(db, parent, result).clone()? {
            HunkSet::Binary => return Ok(Ownership::Binary),
            HunkSet::Text(text) => hunks.push(text),
        }
        bytes.push(parent.map(|p| image_bytes(db, p)).transpose()?);
    }
    let result_bytes = result.map(|r| image_bytes(db, r)).transpose()?;
    let lines = line_count(result_bytes.as_deref().unwrap_or_default());
    let diffs: Vec<ParentDiff<'_>> = bytes
        .iter()
        .zip(&hunks)
        .map(|(bytes, hunks)| ParentDiff {
            bytes: bytes.as_deref().unwrap_or_default(),
            hunks,
        })
        .collect();
    Ok(Ownership::Text(owned_lines(&diffs, lines)))
}

/// Did the event (`commit`, `path`) author a change to the file? A non-merge commit
/// authors every change it made there (a pure rename too); a merge only the lines it
/// owns.
pub fn authored(db: &dyn Db, commit: Commit, path: &str) -> Result<bool, ObjectError> {
    if change_at(db, commit, path)?.is_none() {
        return Ok(false);
    }
    if commit.parents(db).len() < 2 {
        return Ok(true);
    }
    let images = event_images(db, commit, path)?;
    Ok(
        match merge_owned(db, images).as_ref().map_err(Clone::clone)? {
            Ownership::Binary => true,
            Ownership::Text(owned) => !owned.is_empty(),
        },
    )
}

/// Did the event author the file's CONTENT (a spec version)? As [`authored`], except that
/// a pure rename (the same blob under a new path) and a deletion author none. Memoized
/// per event: a node's versions ask it of the same spec events at every tip.
#[salsa::tracked(returns(clone))]
pub fn authored_content<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: RepoPath<'db>,
) -> Result<bool, ObjectError> {
    let path = path.text(db);
    let Some(change) = change_at(db, commit, path)? else {
        return Ok(false);
    };
    if change.new.is_none() {
        return Ok(false);
    }
    if commit.parents(db).len() >= 2 {
        return authored(db, commit, path);
    }
    // A file the parent held at the same path: the change is against that blob, which
    // differs from the new one (else there would be no change), so content was authored.
    // Only an added file needs the images: its parent side may be a rename's source.
    if change.old.is_some() {
        return Ok(true);
    }
    let images = event_images(db, commit, path)?;
    let parent = images.parents(db).first().copied().flatten();
    Ok(parent.map(|p| p.blob(db)) != change.new)
}
