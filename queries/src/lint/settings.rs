//! `keel.toml` as lint reads it: from the judged commit's tree, like the specs, so one
//! commit decides both what is judged and how.
//!
//! Owns: finding `keel.toml` at the root of the tip's tree (defaults when absent), the
//! refusal of one that is no regular file, and the parse memoized per blob.
//! Does not own: the schema or its errors (`keel_engine::settings`), nor `keel sessions`,
//! which judges no tree and reads the work tree's file (`keel_engine::sessions`).

use crate::images::{FileBound, Image, image_bytes};
use crate::tree::{TreeId, tree_items};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};
use keel_engine::settings::{SETTINGS_FILE, Settings, SettingsError};

/// The settings of the tree `tip` judges: its root `keel.toml`, or the defaults.
pub fn tip_settings(
    db: &dyn Db,
    tip: Commit,
) -> Result<Result<Settings, SettingsError>, ObjectError> {
    let items = tree_items(db, TreeId::new(db, tip.tree(db))).clone()?;
    let Some(item) = items.iter().find(|item| item.name == SETTINGS_FILE) else {
        return Ok(Ok(Settings::default()));
    };
    let what = match (item.kind, item.symlink) {
        (EntryKind::File, false) => {
            let image = Image::at(db, item.oid, SETTINGS_FILE.to_owned());
            return settings_image(db, image).clone();
        }
        (EntryKind::File, true) => {
            "a symbolic link (keel reads the committed file and follows no links)"
        }
        (EntryKind::Tree, _) => "a folder",
        (EntryKind::Submodule, _) => "a submodule",
    };
    Ok(Err(SettingsError {
        line: 1,
        message: format!("{SETTINGS_FILE} at the judged commit is {what}, not a file"),
        repair: format!(
            "commit {SETTINGS_FILE} as a regular file at the repository root, or remove it"
        ),
    }))
}

/// The tip's `[lint] max_file_bytes`: the default when the tip's `keel.toml` is absent
/// or refused (lint reports the refusal itself before it judges anything).
pub fn tip_file_bound(db: &dyn Db, tip: Commit) -> FileBound {
    match tip_settings(db, tip) {
        Ok(Ok(settings)) => FileBound(settings.lint.max_file_bytes),
        Ok(Err(_)) | Err(_) => FileBound::default(),
    }
}

/// One `keel.toml` image parsed, memoized per image (a tip move that leaves the file
/// alone reuses the parse).
#[salsa::tracked(returns(ref))]
pub fn settings_image<'db>(
    db: &'db dyn Db,
    image: Image<'db>,
) -> Result<Result<Settings, SettingsError>, ObjectError> {
    Ok(Settings::from_bytes(&image_bytes(db, image)?))
}
