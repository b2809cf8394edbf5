//! Drift: what one event did to one scoped entry's file.
//!
//! Owns: the per-event judgement. A non-merge event: added lines against the unit in the
//! commit's image, deleted lines against the unit in the parent's image (under the
//! rename's source path when the event is a rename, so a pure rename hits nothing). A
//! merge: only the lines it owns (`events::merge_owned`) — an owned added line against
//! the unit in the result, an owned lost line only when it lay inside the selector's unit
//! in every parent; a merge that owns nothing is untouched. An image that cannot be read
//! as units, or a binary change, counts as a conservative hit on each side that has
//! changed lines. The paths a folder or glob entry covers (`PathPattern`) are matched
//! here too. Memoized per (commit, entry path, selectors), so a re-lint after one new
//! commit judges only that commit.
//! Does not own: which events are in a window (`window`, `lineage`) or wording (`lint`).

use crate::anchors::{LineRange, Selector, Side, classify, hunk_side, touches};
use crate::diff::combined::Owned;
use crate::diff::{Hunk, HunkSet};
use crate::events::{Ownership, event_images, merge_owned};
use crate::history::path_changed;
use crate::images::{Image, image_hunks, units_of};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;

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
                    // Cannot happen in lint: `lint::nodes` refuses, as a spec error, every
                    // bare glob that `spec::compile_glob` (this same builder) rejects and whose
                    // path does not exist literally. Were it to happen, matching nothing
                    // still reads as a loud `dead-path`, never a silent pass.
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
    /// The hit rests on an image that could not be read as units, or on a binary change.
    pub conservative: bool,
}

/// What one commit did to a scoped entry's file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ScopedChange {
    /// The commit authored no line of the file: it left it alone, or it is a merge that
    /// owns none of the file's lines (a clean or transport merge).
    Untouched,
    /// The file changed, outside every selector's unit (a pure rename too).
    Missed,
    /// These selectors were hit (in the entry's order).
    Hit(Vec<SelectorHit>),
}

impl ScopedChange {
    /// Both answers for one commit met under two paths (a lineage that forks): hits
    /// join per selector, a miss outweighs untouched.
    pub fn join(self, other: Self) -> Self {
        match (self, other) {
            (Self::Hit(mut hits), Self::Hit(more)) => {
                for hit in more {
                    match hits.iter_mut().find(|h| h.selector == hit.selector) {
                        Some(seen) => {
                            seen.side = seen.side.join(hit.side);
                            seen.conservative |= hit.conservative;
                        }
                        None => hits.push(hit),
                    }
                }
                Self::Hit(hits)
            }
            (hit @ Self::Hit(_), _) | (_, hit @ Self::Hit(_)) => hit,
            (Self::Missed, _) | (_, Self::Missed) => Self::Missed,
            (Self::Untouched, Self::Untouched) => Self::Untouched,
        }
    }
}

/// Judges one event — `commit`'s change at the anchor's path, which is the event's own
/// (historical) path — against the anchor's selectors, looked up by the same qualified
/// names in the event's images.
#[salsa::tracked(returns(ref))]
pub fn scoped_change<'db>(
    db: &'db dyn Db,
    commit: Commit,
    anchor: Anchor<'db>,
) -> Result<ScopedChange, ObjectError> {
    if !path_changed(db, commit, anchor.path(db))? {
        return Ok(ScopedChange::Untouched);
    }
    let images = event_images(db, commit, anchor.path(db))?;
    let result = images.result(db);
    let parents = images.parents(db);
    let owned = if parents.len() > 1 {
        match merge_owned(db, images).clone()? {
            Ownership::Text(owned) if owned.is_empty() => return Ok(ScopedChange::Untouched),
            Ownership::Text(owned) => Some(owned),
            Ownership::Binary => None,
        }
    } else {
        None
    };
    let mut hits: Vec<SelectorHit> = Vec::new();
    for selector in anchor.selectors(db) {
        let found = match &owned {
            Some(owned) => judge_merge(db, owned, result, parents, selector),
            None if parents.len() > 1 => Some((Side::Both, true)),
            None => {
                let parent = parents.first().copied().flatten();
                let hunks = image_hunks(db, parent, result).clone()?;
                judge(db, &hunks, result, parent, selector)
            }
        };
        if let Some((side, conservative)) = found {
            hits.push(SelectorHit {
                selector: selector.clone(),
                side,
                conservative,
            });
        }
    }
    Ok(if hits.is_empty() {
        ScopedChange::Missed
    } else {
        ScopedChange::Hit(hits)
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
    combine(exact, unreadable)
}

/// Does what a merge owns touch the selector's unit? An owned added line is judged
/// against the unit in the result; an owned lost line must lie inside the selector's
/// unit in EVERY parent, each at its own line.
fn judge_merge<'db>(
    db: &'db dyn Db,
    owned: &Owned,
    result: Option<Image<'db>>,
    parents: &[Option<Image<'db>>],
    selector: &Selector,
) -> Option<(Side, bool)> {
    let result_ranges = classify(units_of(db, result), selector).hit_ranges();
    let parent_ranges: Vec<Option<Vec<LineRange>>> = parents
        .iter()
        .map(|&parent| classify(units_of(db, parent), selector).hit_ranges())
        .collect();
    let line = |at: u32| at..at + 1;
    let added = result_ranges.as_deref().is_some_and(|ranges| {
        owned
            .added
            .iter()
            .any(|&at| ranges.iter().any(|&r| touches(&line(at), r)))
    });
    let readable = parent_ranges.iter().all(Option::is_some);
    let deleted = readable
        && owned.deleted.iter().any(|lines| {
            lines.iter().zip(&parent_ranges).all(|(&at, ranges)| {
                ranges
                    .as_deref()
                    .is_some_and(|ranges| ranges.iter().any(|&r| touches(&line(at), r)))
            })
        });
    let unreadable = Side::from_flags(
        result_ranges.is_none() && !owned.added.is_empty(),
        !readable && !owned.deleted.is_empty(),
    );
    combine(Side::from_flags(added, deleted), unreadable)
}

/// An exact side and a conservative side, as one answer.
fn combine(exact: Option<Side>, unreadable: Option<Side>) -> Option<(Side, bool)> {
    match (exact, unreadable) {
        (None, None) => None,
        (Some(side), None) => Some((side, false)),
        (None, Some(side)) => Some((side, true)),
        (Some(a), Some(b)) => Some((a.join(b), true)),
    }
}
