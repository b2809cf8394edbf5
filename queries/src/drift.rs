//! Drift: what one event did to one scoped entry's file.
//!
//! Owns: the per-event judgement. A non-merge event: added lines against the unit in the
//! commit's image, deleted lines against the unit in the parent's image (under the
//! rename's source path when the event is a rename, so a pure rename hits nothing). A
//! merge: only the lines it owns (`events::merge_owned`) — an owned added line against
//! the unit in the result, an owned lost line only when it lay inside the selector's unit
//! in every parent; a merge that owns nothing is untouched. Changed lines that cannot be
//! placed count as a conservative hit on their side: any changed line of an image in
//! which the selector's unit cannot be read (the file does not parse, or parsed only in
//! part without that unit), and a changed line that meets lines that did not parse; so
//! does a binary change, and an event with an image past the anchor's `FileBound`
//! (every selector hit; the images are neither parsed nor diffed). A lost line of a
//! merge placed outside the unit in some parent hits nothing. The paths a folder or glob
//! entry covers (`PathPattern`) are matched here too, and the submodules it covers.
//! Memoized per (commit, entry path, selectors, bound), so a re-lint after one new commit
//! judges only that commit.
//! Does not own: which events are in a window (`window`, `lineage`) or wording (`lint`).

use crate::anchors::{
    ImageUnits, LineRange, Selector, Side, Verdict, classify, hunk_side, touches,
};
use crate::cosmetic::{Cosmetic, cosmetic_change};
use crate::diff::combined::Owned;
use crate::diff::{Hunk, HunkSet};
use crate::events::{Ownership, event_images, merge_owned};
use crate::extract::Language;
use crate::history::path_changed;
use crate::images::{FileBound, Image, image_bytes, image_hunks, units_within};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;
use std::ops::Range;
use std::sync::Arc;

/// A scoped entry: one file and its selectors, and the size past which its images are
/// not read, interned as a query key (kept in the on-disk memo with [`scoped_change`]).
#[salsa::interned(debug, persist)]
pub struct Anchor<'db> {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub selectors: Vec<Selector>,
    #[returns(copy)]
    pub bound: FileBound,
}

/// Which paths a bare folder or glob entry covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PathPattern {
    /// Every file under this folder.
    Folder(String),
    /// Every file matching this glob (`*` stays inside one folder, `**` crosses them).
    Glob(String),
}

/// A predicate on repository paths.
pub type PathMatcher = Box<dyn Fn(&str) -> bool>;

impl PathPattern {
    /// A predicate on repository paths.
    pub fn matcher(&self) -> PathMatcher {
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

impl PathPattern {
    /// Does the pattern cover the submodule at `link`: a folder that holds it, is it or
    /// lies inside it; a glob that matches its path or could match a path inside it
    /// (`vendor/**/*.py` covers `vendor/lib`)? keel reads nothing inside a submodule, so
    /// covering one means being told when it moves.
    pub fn covers_submodule(&self, link: &str) -> bool {
        let inside = |outer: &str, inner: &str| {
            inner
                .strip_prefix(outer)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        };
        match self {
            Self::Folder(folder) => {
                let folder = folder.trim_end_matches('/');
                inside(folder, link) || inside(link, folder)
            }
            Self::Glob(glob) => {
                let globs: Vec<&str> = glob.split('/').collect();
                let parts: Vec<&str> = link.split('/').collect();
                self.matcher()(link) || reaches_inside(&globs, &parts)
            }
        }
    }
}

/// Could a path inside the folder whose parts are `parts` match the glob whose parts
/// are `globs` (`*`, `?` and classes stay inside one part, a `**` part spans any number)?
fn reaches_inside(globs: &[&str], parts: &[&str]) -> bool {
    match (globs.split_first(), parts.split_first()) {
        // The folder is spent: what is left of the glob names something inside it.
        (_, None) => !globs.is_empty(),
        (None, Some(_)) => false,
        (Some((&"**", rest)), Some((_, tail))) => {
            reaches_inside(rest, parts) || reaches_inside(globs, tail)
        }
        (Some((glob, rest)), Some((part, tail))) => {
            part_matches(glob, part) && reaches_inside(rest, tail)
        }
    }
}

/// Does one part of a glob match one part of a path?
fn part_matches(glob: &str, part: &str) -> bool {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .is_ok_and(|glob| glob.compile_matcher().is_match(part))
}

/// A selector hit by one commit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SelectorHit {
    pub selector: Selector,
    pub side: Side,
    /// The hit rests on changed lines that could not be placed (in an image, or lines of
    /// it, that did not parse), or on a binary change.
    pub conservative: bool,
    /// The unit stands on both sides and its tokens are equal once comments and
    /// whitespace (or docstrings too) are dropped: a cosmetic change. `None` for a merge,
    /// an added or deleted unit, or any real change.
    pub cosmetic: Option<Cosmetic>,
    /// The commit's change to the file, as `git patch-id` reads one: its removed and added
    /// lines, whitespace dropped, line numbers ignored — equal for the same patch
    /// cherry-picked elsewhere. `None` for a merge or a change keel did not diff.
    pub patch: Option<PatchId>,
}

/// A file change's identity apart from where it applies: see [`SelectorHit::patch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PatchId(pub u64);

impl PatchId {
    /// The identity of the change `hunks` make from `old` to `new` (FNV-1a over each
    /// hunk's removed then added lines, whitespace dropped, a marker between parts).
    fn of(hunks: &[Hunk], old: &[u8], new: &[u8]) -> Self {
        const PRIME: u64 = 0x0100_0000_01b3;
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut feed = |byte: u8| {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(PRIME);
        };
        let (old_lines, new_lines) = (line_starts(old), line_starts(new));
        for hunk in hunks {
            for (marker, text, starts, range) in [
                (b'-', old, &old_lines, &hunk.before),
                (b'+', new, &new_lines, &hunk.after),
            ] {
                for line in range.clone() {
                    feed(marker);
                    line_text(text, starts, line)
                        .iter()
                        .filter(|byte| !byte.is_ascii_whitespace())
                        .for_each(|&byte| feed(byte));
                }
            }
        }
        Self(hash)
    }
}

/// The byte offset where each line of `text` starts (line 1 first).
fn line_starts(text: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            text.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect()
}

/// Line `line` (0-based, as hunks count) of `text`; empty past its end.
fn line_text<'a>(text: &'a [u8], starts: &[usize], line: u32) -> &'a [u8] {
    let index = usize::try_from(line).unwrap_or(usize::MAX);
    let Some(&start) = starts.get(index) else {
        return &[];
    };
    let end = starts.get(index + 1).copied().unwrap_or(text.len());
    &text[start.min(text.len())..end.min(text.len())]
}

/// What one commit did to a scoped entry's file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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
                            seen.cosmetic = Cosmetic::both(seen.cosmetic, hit.cosmetic);
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
/// names in the event's images. Kept in the on-disk memo: a function of the commit (its
/// parents' and its own trees), the path, the selectors and the bound, whatever the tip,
/// so a later process judges every event it has met without reading its images again.
#[salsa::tracked(returns(ref), persist)]
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
    let bound = anchor.bound(db);
    if let Some(side) = past_bound(db, result, parents, bound) {
        return Ok(ScopedChange::Hit(
            anchor
                .selectors(db)
                .iter()
                .map(|selector| SelectorHit {
                    selector: selector.clone(),
                    side,
                    conservative: true,
                    cosmetic: None,
                    patch: None,
                })
                .collect(),
        ));
    }
    let owned = if parents.len() > 1 {
        match merge_owned(db, images).clone()? {
            Ownership::Text(owned) if owned.is_empty() => return Ok(ScopedChange::Untouched),
            Ownership::Text(owned) => Some(owned),
            Ownership::Binary => None,
        }
    } else {
        None
    };
    // A non-merge event's hunks and images, read once for all its selectors.
    let single = if parents.len() > 1 {
        None
    } else {
        let parent = parents.first().copied().flatten();
        let hunks = image_hunks(db, parent, result)
            .as_ref()
            .map_err(Clone::clone)?;
        let changed = changed_sides(hunks);
        // A side with no changed line is judged as if its file were absent, so its image
        // is never parsed: `touches` never meets an empty side and nothing there is
        // unplaced. A commit that only adds lines never reads its parent's units.
        let units = [(result, changed[0]), (parent, changed[1])]
            .map(|(image, changed)| units_within(db, image.filter(|_| changed), bound));
        Some((hunks, units))
    };
    let mut hits: Vec<SelectorHit> = Vec::new();
    let mut patch: Option<Option<PatchId>> = None;
    for selector in anchor.selectors(db) {
        let found = match (&owned, &single) {
            (Some(owned), _) => judge_merge(db, owned, result, parents, selector, bound),
            (None, Some((hunks, units))) => judge(hunks, *units, selector),
            (None, None) => Some((Side::Both, true)),
        };
        if let Some((side, conservative)) = found {
            let cosmetic = match (&single, conservative) {
                (Some(_), false) => {
                    let parent = parents.first().copied().flatten();
                    unit_cosmetic(db, anchor.path(db), [parent, result], selector, bound)?
                }
                _ => None,
            };
            let file_patch = match (patch, &single) {
                (Some(known), _) => known,
                (None, Some((HunkSet::Text(hunks), _))) => {
                    let parent = parents.first().copied().flatten();
                    let read = |image: Option<Image<'db>>| -> Result<Arc<[u8]>, ObjectError> {
                        image
                            .map_or_else(|| Ok(Arc::from(&b""[..])), |image| image_bytes(db, image))
                    };
                    let id = Some(PatchId::of(hunks, &read(parent)?, &read(result)?));
                    *patch.insert(id)
                }
                (None, _) => *patch.insert(None),
            };
            hits.push(SelectorHit {
                selector: selector.clone(),
                side,
                conservative,
                cosmetic,
                patch: file_patch,
            });
        }
    }
    Ok(if hits.is_empty() {
        ScopedChange::Missed
    } else {
        ScopedChange::Hit(hits)
    })
}

/// How cosmetic a one-parent event's change to `selector`'s unit is: `None` unless the
/// unit stands once in both `[parent, result]` images and their texts are token-equal
/// ([`cosmetic_change`]). Reads the parent's units even where the hit did not need them.
fn unit_cosmetic<'db>(
    db: &'db dyn Db,
    path: &str,
    [parent, result]: [Option<Image<'db>>; 2],
    selector: &Selector,
    bound: FileBound,
) -> Result<Option<Cosmetic>, ObjectError> {
    let (Some(parent), Some(result), Some(language)) = (parent, result, Language::for_path(path))
    else {
        return Ok(None);
    };
    let mut texts = Vec::with_capacity(2);
    for image in [parent, result] {
        let Verdict::Live(range) = classify(units_within(db, Some(image), bound), selector) else {
            return Ok(None);
        };
        let bytes = image_bytes(db, image)?;
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Ok(None);
        };
        texts.push(lines_of(text, range));
    }
    Ok(cosmetic_change(language, &texts[0], &texts[1]))
}

/// The lines `range` (1-based, inclusive) of `text`.
fn lines_of(text: &str, range: LineRange) -> String {
    let skip = usize::try_from(range.start.saturating_sub(1)).unwrap_or(usize::MAX);
    let take = usize::try_from((range.end + 1).saturating_sub(range.start)).unwrap_or(0);
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

/// Whether a hunk set changes lines on each side: `[added, deleted]` (a binary set
/// changes none that a unit could place).
fn changed_sides(hunks: &HunkSet) -> [bool; 2] {
    let HunkSet::Text(hunks) = hunks else {
        return [false, false];
    };
    [
        hunks.iter().any(|hunk| !hunk.after.is_empty()),
        hunks.iter().any(|hunk| !hunk.before.is_empty()),
    ]
}

/// The side an event hits when one of its images is past the bound: such an image is
/// neither parsed nor diffed, so every selector counts as hit, conservatively, on the
/// sides the file exists on. `None` when every image is within the bound.
fn past_bound<'db>(
    db: &'db dyn Db,
    result: Option<Image<'db>>,
    parents: &[Option<Image<'db>>],
    bound: FileBound,
) -> Option<Side> {
    let mut images = parents.iter().flatten().chain(result.as_ref());
    if !images.any(|&image| bound.excludes(db, image)) {
        return None;
    }
    let deleted = parents.iter().any(Option::is_some);
    Some(Side::from_flags(result.is_some(), deleted).unwrap_or(Side::Both))
}

/// Does this diff touch the selector's unit, given what the result's and the parent's
/// images yielded? Returns the side and whether the answer is conservative.
fn judge(
    hunks: &HunkSet,
    [result, parent]: [&ImageUnits; 2],
    selector: &Selector,
) -> Option<(Side, bool)> {
    let HunkSet::Text(hunks) = hunks else {
        return Some((Side::Both, true));
    };
    let result = Placed::of(result, selector);
    let parent = Placed::of(parent, selector);
    let exact = hunk_side(
        hunks,
        result.ranges.as_deref().unwrap_or_default(),
        parent.ranges.as_deref().unwrap_or_default(),
    );
    let unreadable = Side::from_flags(
        hunks.iter().any(|h: &Hunk| result.unplaced(&h.after)),
        hunks.iter().any(|h: &Hunk| parent.unplaced(&h.before)),
    );
    combine(exact, unreadable)
}

/// A selector's unit in one image, for judging changed lines of that image.
struct Placed<'a> {
    /// Its ranges; `None` when the unit cannot be read there (the file does not parse,
    /// or parsed only in part without it, or has no extractor).
    ranges: Option<Vec<LineRange>>,
    /// The lines that did not parse in an image that parsed in part.
    unparsed: &'a [LineRange],
}

impl<'a> Placed<'a> {
    fn of(image: &'a ImageUnits, selector: &Selector) -> Self {
        Self {
            ranges: classify(image, selector).hit_ranges(),
            unparsed: image.unparsed(),
        }
    }

    /// Whether these changed lines (0-based, half-open) cannot be placed for the
    /// selector: they are lines, and either its unit cannot be read or they meet lines
    /// that did not parse — a conservative hit.
    fn unplaced(&self, lines: &Range<u32>) -> bool {
        !lines.is_empty()
            && (self.ranges.is_none() || self.unparsed.iter().any(|&r| touches(lines, r)))
    }

    /// Whether these changed lines lie inside its unit.
    fn inside(&self, lines: &Range<u32>) -> bool {
        self.ranges
            .as_deref()
            .is_some_and(|ranges| ranges.iter().any(|&r| touches(lines, r)))
    }
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
    bound: FileBound,
) -> Option<(Side, bool)> {
    let result = Placed::of(units_within(db, result, bound), selector);
    let parents: Vec<Placed<'_>> = parents
        .iter()
        .map(|&parent| Placed::of(units_within(db, parent, bound), selector))
        .collect();
    let line = |at: u32| at..at + 1;
    let added = owned.added.iter().any(|&at| result.inside(&line(at)));
    let added_unplaced = owned.added.iter().any(|&at| result.unplaced(&line(at)));
    // A lost line, at its own line in each parent: inside the unit in every parent is a
    // hit; outside it in some parent (placed, not inside) is none; otherwise unplaced.
    let in_every = |lines: &Vec<u32>| {
        lines
            .iter()
            .zip(&parents)
            .all(|(&at, parent)| parent.inside(&line(at)))
    };
    let outside_one = |lines: &Vec<u32>| {
        lines
            .iter()
            .zip(&parents)
            .any(|(&at, parent)| !parent.inside(&line(at)) && !parent.unplaced(&line(at)))
    };
    let deleted = owned.deleted.iter().any(in_every);
    let deleted_unplaced = owned
        .deleted
        .iter()
        .any(|lines| !in_every(lines) && !outside_one(lines));
    let unreadable = Side::from_flags(added_unplaced, deleted_unplaced);
    combine(Side::from_flags(added, deleted), unreadable)
}

/// An exact side and a conservative side, as one answer: conservative only when the
/// conservative side adds a side the exact one lacks.
fn combine(exact: Option<Side>, unreadable: Option<Side>) -> Option<(Side, bool)> {
    match (exact, unreadable) {
        (None, None) => None,
        (Some(side), None) => Some((side, false)),
        (None, Some(side)) => Some((side, true)),
        (Some(exact), Some(unreadable)) => {
            let side = exact.join(unreadable);
            Some((side, side != exact))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PathPattern;

    #[test]
    fn a_pattern_covers_a_submodule_it_holds_is_or_could_match_inside() {
        let folder = |f: &str| PathPattern::Folder(f.to_owned());
        let glob = |g: &str| PathPattern::Glob(g.to_owned());
        let cases = [
            (folder("vendor"), "vendor/lib", true),
            (folder("vendor/lib"), "vendor/lib", true),
            (folder("vendor/lib/src"), "vendor/lib", true),
            (folder("vendor"), "vendorx/lib", false),
            (folder("src"), "vendor/lib", false),
            (glob("vendor/*"), "vendor/lib", true),
            (glob("vendor/**/*.py"), "vendor/lib", true),
            (glob("vendor/**"), "vendor/lib", true),
            (glob("**/*.py"), "vendor/lib", true),
            (glob("vendor/*/src/*.py"), "vendor/lib", true),
            (glob("vendor/lib/src/*.py"), "vendor/lib", true),
            (glob("vendor/*.py"), "vendor/lib", false),
            (glob("src/**/*.py"), "vendor/lib", false),
            (glob("vendor/l?b"), "vendor/lib", true),
            (glob("vendor/x*/a.py"), "vendor/lib", false),
        ];
        for (pattern, link, covered) in cases {
            assert_eq!(
                pattern.covers_submodule(link),
                covered,
                "{pattern:?} and {link}"
            );
        }
    }
}
