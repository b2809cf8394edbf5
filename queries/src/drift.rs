//! Drift: what one window commit did to one scoped entry's file.
//!
//! Owns: the per-commit judgement — for a scoped entry, added lines against the unit in
//! the commit's image and deleted lines against the unit in the parent image; an image
//! that cannot be read as units counts as a conservative hit on each side that has
//! changed lines. The paths a folder or glob entry covers (`PathPattern`) are matched
//! here too; which window commits changed a bare path is a lookup in `history`'s tip index.
//! Merge commits are judged against every parent and flagged conservative until exact
//! merge semantics land. Memoized per (commit, entry), so a re-lint after one new commit
//! judges only that commit.
//! Does not own: which commits are in a window (`history`) or wording (`lint`).

use crate::anchors::{Selector, Side, classify, hunk_side};
use crate::diff::{Hunk, HunkSet};
use crate::history::path_changed;
use crate::images::{Image, image_hunks, units_of};
use crate::tree::{RepoPath, entry_at};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};

/// A scoped entry: one file and its selectors, interned as a query key.
#[salsa::interned(debug)]
pub struct Anchor<'db> {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub selectors: Vec<Selector>,
}

/// Which paths a bare folder or glob entry covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathPattern {
    /// Every file under this folder.
    Folder(String),
    /// Every file matching this glob (`*` stays inside one folder, `**` crosses them).
    Glob(String),
}

impl PathPattern {
    /// A predicate on repository paths.
    pub fn matcher(&self) -> Box<dyn Fn(&str) -> bool> {
        match self {
            Self::Folder(folder) => {
                let prefix = format!("{folder}/");
                Box::new(move |path: &str| path.starts_with(&prefix))
            }
            Self::Glob(glob) => {
                let compiled = globset::GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .map(|g| g.compile_matcher());
                match compiled {
                    Ok(matcher) => Box::new(move |path: &str| matcher.is_match(path)),
                    Err(_) => Box::new(|_: &str| false),
                }
            }
        }
    }
}

/// A selector hit by one commit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SelectorHit {
    pub selector: Selector,
    pub side: Side,
    /// The hit rests on an image that could not be read as units, on a binary change,
    /// or on a merge judged against each parent.
    pub conservative: bool,
}

/// What one commit did to a scoped entry's file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ScopedChange {
    /// The file is unchanged.
    Untouched,
    /// The file changed, outside every selector's unit.
    Missed,
    /// These selectors were hit (in the entry's order).
    Hit { hits: Vec<SelectorHit>, merge: bool },
}

/// The image of `path` in `commit`, if it holds a file there.
pub fn image_at<'db>(
    db: &'db dyn Db,
    commit: Commit,
    path: RepoPath<'db>,
) -> Result<Option<Image<'db>>, ObjectError> {
    Ok(entry_at(db, commit, path)?
        .filter(|entry| entry.kind == EntryKind::File)
        .map(|entry| Image::new(db, entry.oid, path.text(db).clone())))
}

/// Judges one commit against one scoped entry.
#[salsa::tracked(returns(ref))]
pub fn scoped_change<'db>(
    db: &'db dyn Db,
    commit: Commit,
    anchor: Anchor<'db>,
) -> Result<ScopedChange, ObjectError> {
    if !path_changed(db, commit, anchor.path(db))? {
        return Ok(ScopedChange::Untouched);
    }
    let path = RepoPath::new(db, anchor.path(db).clone());
    let result = image_at(db, commit, path)?;
    let parents = commit.parents(db);
    let merge = parents.len() > 1;
    let parent_images: Vec<Option<Image<'db>>> = if parents.is_empty() {
        vec![None]
    } else {
        parents
            .iter()
            .map(|&parent| image_at(db, parent, path))
            .collect::<Result<_, _>>()?
    };
    let mut hits: Vec<SelectorHit> = Vec::new();
    for selector in anchor.selectors(db) {
        let mut found: Option<(Side, bool)> = None;
        for &parent in &parent_images {
            let hunks = image_hunks(db, parent, result).clone()?;
            if let Some((side, conservative)) = judge(db, &hunks, result, parent, selector) {
                found = Some(match found {
                    Some((seen, was)) => (seen.join(side), was || conservative),
                    None => (side, conservative),
                });
            }
        }
        if let Some((side, conservative)) = found {
            hits.push(SelectorHit {
                selector: selector.clone(),
                side,
                conservative: conservative || merge,
            });
        }
    }
    Ok(if hits.is_empty() {
        ScopedChange::Missed
    } else {
        ScopedChange::Hit { hits, merge }
    })
}

/// Does this diff touch the selector's unit? Returns the side and whether the answer is
/// conservative.
fn judge<'db>(
    db: &'db dyn Db,
    hunks: &HunkSet,
    result: Option<Image<'db>>,
    parent: Option<Image<'db>>,
    selector: &Selector,
) -> Option<(Side, bool)> {
    let HunkSet::Text(hunks) = hunks else {
        return Some((Side::Both, true));
    };
    let result_ranges = classify(units_of(db, result), selector).hit_ranges();
    let parent_ranges = classify(units_of(db, parent), selector).hit_ranges();
    let exact = hunk_side(
        hunks,
        result_ranges.as_deref().unwrap_or_default(),
        parent_ranges.as_deref().unwrap_or_default(),
    );
    let unreadable = Side::from_flags(
        result_ranges.is_none() && hunks.iter().any(|h: &Hunk| !h.after.is_empty()),
        parent_ranges.is_none() && hunks.iter().any(|h: &Hunk| !h.before.is_empty()),
    );
    match (exact, unreadable) {
        (None, None) => None,
        (Some(side), None) => Some((side, false)),
        (None, Some(side)) => Some((side, true)),
        (Some(a), Some(b)) => Some((a.join(b), true)),
    }
}
