//! Images: one file's content as read under one path — the unit of parsing and diffing.
//!
//! Owns: [`Image`] identity (blob id + path + reader: the path's extension picks the
//! extractor, so the same bytes under `.ts` and `.tsx` are two images, and the
//! extractor's and grammars' versions are part of the key) and the two memoized costs of a
//! lint: [`image_units`] (one parse per image) and [`image_hunks`] (one diff per ORDERED
//! pair of images, never per commit id), with the size check before either
//! ([`FileBound`], reading [`image_size`] once per image), and the units of an image at a
//! tip ([`tip_units`], the one of these kept on disk).
//! Does not own: extraction rules (`extract`) or diff semantics (`diff`).

use crate::anchors::ImageUnits;
use crate::diff::{HunkSet, diff_images};
use crate::extract::{Language, extract_reusing, remember_hunks};
use keel_engine::objects::ObjectError;
use keel_engine::{Db, Oid};
use std::sync::Arc;

/// A blob read under a path, by the reader the path's extension designates. Kept in the
/// on-disk memo (`persist`), as the key of its size and of its units at a tip.
#[salsa::interned(debug, persist)]
pub struct Image<'db> {
    #[returns(copy)]
    pub blob: Oid,
    #[returns(ref)]
    pub path: String,
    /// The designated extractor's identity and grammar versions
    /// ([`Language::reader_id`]); empty for a file no extractor reads.
    #[returns(ref)]
    pub reader: String,
}

impl<'db> Image<'db> {
    /// The image of `blob` read at `path`: the one constructor, so the reader is always
    /// part of the key.
    pub fn at(db: &'db dyn Db, blob: Oid, path: String) -> Self {
        let reader = Language::for_path(&path).map_or_else(String::new, Language::reader_id);
        Self::new(db, blob, path, reader)
    }
}

/// The bytes of an image's blob.
pub fn image_bytes(db: &dyn Db, image: Image<'_>) -> Result<Arc<[u8]>, ObjectError> {
    db.objects().blob(image.blob(db))
}

/// The units of one image, parsed once per image for the life of the database. Not kept
/// in the on-disk memo: what a later process needs of a historical image is the per-event
/// judgement (`drift::scoped_change`, kept), and of an image at a tip its [`tip_units`]
/// (kept), so the memo holds no unit of an image that only history reads.
///
/// The parse reuses the tree this thread last parsed for the same path when there is one
/// (`extract::extract_reusing`): consecutive historical images of a file differ by small
/// edits, so this is much cheaper than parsing from scratch, and its value is exactly
/// `extract_as(language, bytes)` whatever was parsed before (see `extract/reuse.rs`).
///
/// A blob that cannot be read is reported as unparseable: the reader then treats any
/// change to it conservatively, which over-warns rather than misses.
#[salsa::tracked(returns(ref))]
pub fn image_units<'db>(db: &'db dyn Db, image: Image<'db>) -> ImageUnits {
    let path = image.path(db);
    let Some(language) = Language::for_path(path) else {
        return ImageUnits::NoExtractor;
    };
    let extracted = image_bytes(db, image)
        .map_err(|err| crate::extract::ExtractError::Unparseable {
            line: 1,
            reason: err.to_string(),
            partial: crate::extract::Partial::default(),
        })
        .and_then(|bytes| {
            extract_reusing(db.hints(), language, path, &bytes, Some(image.blob(db)))
        });
    ImageUnits::Extracted(extracted)
}

/// The hunks between two images (`None`: the file is absent on that side), diffed once
/// per ordered pair.
///
/// Not kept in the on-disk memo, for the reason [`image_units`] is not: what reads old
/// hunks (`drift::scoped_change`, `events::merge_owned`) is kept itself.
#[salsa::tracked(returns(ref))]
pub fn image_hunks<'db>(
    db: &'db dyn Db,
    old: Option<Image<'db>>,
    new: Option<Image<'db>>,
) -> Result<HunkSet, ObjectError> {
    let read = |image: Option<Image<'db>>| -> Result<Arc<[u8]>, ObjectError> {
        image.map_or_else(|| Ok(Arc::from(&b""[..])), |image| image_bytes(db, image))
    };
    let hunks = diff_images(&read(old)?, &read(new)?);
    if let (Some(old), Some(new), HunkSet::Text(text)) = (old, new, &hunks) {
        // Exact hunks between the two blobs: the splice of one from the other's outline,
        // which usually comes next, takes them instead of diffing again.
        remember_hunks(db.hints(), old.blob(db), new.blob(db), text);
    }
    Ok(hunks)
}

/// The largest blob, in bytes, whose units keel reads (`[lint] max_file_bytes`): past
/// it an image is neither parsed nor diffed, so one hostile file costs a size lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileBound(pub u64);

impl Default for FileBound {
    fn default() -> Self {
        Self(keel_engine::settings::DEFAULT_MAX_FILE_BYTES)
    }
}

impl FileBound {
    /// Whether the image's blob is past the bound. A blob whose size cannot be read is
    /// not: parsing it then reports the read error (an unparseable image).
    pub fn excludes(self, db: &dyn Db, image: Image<'_>) -> bool {
        image_size(db, image).is_some_and(|size| size > self.0)
    }
}

/// The size in bytes of an image's blob, read from the object's header (never its
/// content); `None` when it cannot be read. Memoized and kept in the on-disk memo, so a
/// lint pays one header lookup per image for the life of the memo, not one per run.
#[salsa::tracked(returns(copy), persist)]
pub fn image_size<'db>(db: &'db dyn Db, image: Image<'db>) -> Option<u64> {
    db.objects().blob_size(image.blob(db)).ok()
}

/// What an optional image yields for the classifier within `bound`: an absent file is
/// [`ImageUnits::Absent`], a blob past the bound [`ImageUnits::TooLarge`] (not parsed).
pub fn units_within<'db>(
    db: &'db dyn Db,
    image: Option<Image<'db>>,
    bound: FileBound,
) -> &'db ImageUnits {
    within(db, image, bound, image_units)
}

/// The units of an image judged at a tip — its selectors' verdicts, the lines a finding
/// names, a reading's anchors: [`image_units`]' answer, kept in the on-disk memo, so a
/// later process judges the tip's unchanged files without parsing them.
#[salsa::tracked(returns(ref), persist)]
pub fn tip_units<'db>(db: &'db dyn Db, image: Image<'db>) -> ImageUnits {
    image_units(db, image).clone()
}

/// [`units_within`] for an image at a tip, through [`tip_units`].
pub fn tip_units_within<'db>(
    db: &'db dyn Db,
    image: Option<Image<'db>>,
    bound: FileBound,
) -> &'db ImageUnits {
    within(db, image, bound, tip_units)
}

/// The one rule for an optional image within `bound`; `units` reads an image that is there.
fn within<'db>(
    db: &'db dyn Db,
    image: Option<Image<'db>>,
    bound: FileBound,
    units: fn(&'db dyn Db, Image<'db>) -> &'db ImageUnits,
) -> &'db ImageUnits {
    static ABSENT: ImageUnits = ImageUnits::Absent;
    static TOO_LARGE: ImageUnits = ImageUnits::TooLarge;
    match image {
        None => &ABSENT,
        Some(image) if bound.excludes(db, image) => &TOO_LARGE,
        Some(image) => units(db, image),
    }
}
