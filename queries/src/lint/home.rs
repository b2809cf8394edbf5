//! Where a dead anchor's unit went: the same qualified name in another file at the tip
//! (a unit moved between files), close names in the entry's own file (a typo, a renamed
//! class), and the same last name under a renamed parent in a file of the same file name
//! (moved and renamed) — the way forward a `dead-anchor` names in its repair.
//!
//! Owns: the search, its order, and what it memoizes (the tip's file list once per tip,
//! each file's words once per blob, so a watch's next lint reads no blob again). Does not own: deciding that an anchor is dead (the
//! one classifier, `anchors::classify`) or the finding's wording (`judge`).

use crate::anchors::{ImageUnits, Selector, Verdict, classify};
use crate::extract::Language;
use crate::images::{FileBound, Image, image_bytes, tip_units_within};
use crate::tree::files_under;
use keel_engine::inputs::Commit;
use keel_engine::message::edit_distance;
use keel_engine::objects::ObjectError;
use keel_engine::{Db, Oid};
use rustc_hash::FxHashSet;

/// How many homes, and how many close names, one selector's repair names.
const SHOWN: usize = 3;

/// At most this many files of the tip are read looking for a moved unit; a tree larger
/// than that is searched in path order up to it.
const MOST_FILES_READ: usize = 20_000;

/// The likely ways forward for one dead selector.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Homes {
    /// Entries (`path#Qualified.name`) naming a live unit of the same qualified name in
    /// another file of the tip, files with the dead path's file name first.
    pub(super) moved_to: Vec<String>,
    /// Qualified names in the entry's own file close to the selector (edit distance, or
    /// the same last name under another class); when no other file holds the same
    /// qualified name, also entries of files with the dead path's file name holding the
    /// same last name under a renamed parent.
    pub(super) close: Vec<String>,
}

impl Homes {
    /// The repair's words for `selector`, or `None` when keel knows no way forward.
    pub(super) fn advice(&self, selector: &Selector) -> Option<String> {
        let mut parts = Vec::new();
        if !self.moved_to.is_empty() {
            parts.push(format!(
                "{selector} has the same qualified name at {}",
                quoted(&self.moved_to)
            ));
        }
        if !self.close.is_empty() {
            parts.push(format!("did you mean {}?", quoted(&self.close)));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// `` `a` ``, `` `a` or `b` ``.
fn quoted(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| format!("`{item}`")).collect();
    items.join(" or ")
}

/// Where `selector` of the entry on `path` likely is now at `tip`; `here` is the tip's
/// units of `path` (absent when the file is gone).
pub(super) fn homes(
    db: &dyn Db,
    tip: Commit,
    bound: FileBound,
    path: &str,
    selector: &Selector,
    here: &ImageUnits,
) -> Result<Homes, ObjectError> {
    let elsewhere = elsewhere(db, tip, bound, path, selector)?;
    let mut close = close_names(here, selector);
    if elsewhere.same_name.is_empty() {
        close.extend(elsewhere.renamed);
        close.truncate(SHOWN);
    }
    Ok(Homes {
        moved_to: elsewhere.same_name,
        close,
    })
}

/// What other files of the tip hold for a dead selector, as entries (`path#Name`).
struct Elsewhere {
    /// A live unit of the same qualified name, files with the dead path's file name
    /// first; at most [`SHOWN`].
    same_name: Vec<String>,
    /// In files with the dead path's file name: a unit of the same last name under
    /// another parent of the same depth (moved and its class renamed, as flask's
    /// `app.py#Flask.route` became `sansio/app.py#App.route`); at most [`SHOWN`].
    renamed: Vec<String>,
}

/// The files of the tip, other than `path` and of its language, that hold `selector`'s
/// unit under its name or, in a file of the same name, under a renamed parent.
fn elsewhere(
    db: &dyn Db,
    tip: Commit,
    bound: FileBound,
    path: &str,
    selector: &Selector,
) -> Result<Elsewhere, ObjectError> {
    let mut found = Elsewhere {
        same_name: Vec::new(),
        renamed: Vec::new(),
    };
    let Some(language) = Language::for_path(path) else {
        return Ok(found);
    };
    let text = selector.to_string();
    let last = last_name(&text);
    let depth = text.matches('.').count();
    let name = file_name(path);
    let files = tip_files(db, tip).as_ref().map_err(Clone::clone)?;
    for (candidate, blob) in files.iter().take(MOST_FILES_READ) {
        if candidate == path || Language::for_path(candidate) != Some(language) {
            continue;
        }
        // Cheap first: a file whose text never spells the unit's own name cannot define it.
        let image = Image::at(db, *blob, candidate.clone());
        let words = image_words(db, image).as_ref().map_err(Clone::clone)?;
        if !words.contains(last) {
            continue;
        }
        let units = tip_units_within(db, Some(image), bound);
        if matches!(
            classify(units, selector),
            Verdict::Live(_) | Verdict::TypeOnly(_)
        ) {
            found.same_name.push(candidate.clone());
            continue;
        }
        let ImageUnits::Extracted(Ok(units)) = units else {
            continue;
        };
        if file_name(candidate) != name {
            continue;
        }
        found.renamed.extend(
            units
                .iter()
                .filter(|unit| {
                    last_name(&unit.name) == last && unit.name.matches('.').count() == depth
                })
                .map(|unit| format!("{candidate}#{}", unit.name)),
        );
    }
    found
        .same_name
        .sort_by_key(|candidate| (file_name(candidate) != name, candidate.clone()));
    found.same_name.truncate(SHOWN);
    found.same_name = found
        .same_name
        .into_iter()
        .map(|candidate| format!("{candidate}#{text}"))
        .collect();
    found.renamed.sort();
    found.renamed.dedup();
    found.renamed.truncate(SHOWN);
    Ok(found)
}

/// Every file of the tip with its blob, listed once per tip for all the searches.
#[salsa::tracked(returns(ref))]
fn tip_files(db: &dyn Db, tip: Commit) -> Result<Vec<(String, Oid)>, ObjectError> {
    files_under(db, tip.tree(db), "")
}

/// The identifier-like words of an image's text — runs of ASCII letters, digits, `_`
/// and `$`, and of non-ASCII bytes — read once per image, so a later lint (a watch's,
/// after the tip moved) reads no blob it read before.
#[salsa::tracked(returns(ref))]
fn image_words<'db>(
    db: &'db dyn Db,
    image: Image<'db>,
) -> Result<FxHashSet<Box<str>>, ObjectError> {
    let bytes = image_bytes(db, image)?;
    let is_word =
        |byte: &u8| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$') || *byte >= 0x80;
    Ok(bytes
        .split(|byte| !is_word(byte))
        .filter(|word| !word.is_empty())
        .map(|word| String::from_utf8_lossy(word).into())
        .collect())
}

/// The last name of a qualified name (`route` of `Scaffold.route`), without a private
/// method's `#`.
fn last_name(qualified: &str) -> &str {
    qualified
        .rsplit('.')
        .next()
        .unwrap_or(qualified)
        .trim_start_matches('#')
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Qualified names of `here` close to `selector`: within a few edits (a typo), or with
/// the same last name under another parent (a renamed class); nearest first.
fn close_names(here: &ImageUnits, selector: &Selector) -> Vec<String> {
    let ImageUnits::Extracted(Ok(units)) = here else {
        return Vec::new();
    };
    let text = selector.to_string();
    let last = text.rsplit('.').next().unwrap_or(&text);
    let allowed = (text.chars().count() / 10).clamp(1, 3);
    let mut ranked: Vec<(usize, &str)> = units
        .iter()
        .filter_map(|unit| {
            let distance = edit_distance(&text, &unit.name);
            let same_last = unit.name.rsplit('.').next() == Some(last);
            (distance <= allowed || same_last).then_some((distance, unit.name.as_str()))
        })
        .collect();
    ranked.sort_unstable();
    ranked.dedup_by(|a, b| a.1 == b.1);
    ranked
        .into_iter()
        .take(SHOWN)
        .map(|(_, name)| name.to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Homes, ImageUnits, Selector, close_names};
    use crate::extract::{Language, extract_as};

    fn units(source: &str) -> ImageUnits {
        ImageUnits::Extracted(extract_as(Language::Python, source.as_bytes()))
    }

    fn selector(text: &str) -> Selector {
        Selector::parse(text).expect("a selector")
    }

    #[test]
    fn close_names_are_typos_and_the_same_method_under_a_renamed_class() {
        let here = units(
            "class Blueprint:\n    def route(self):\n        pass\n\n    def add_url_rule(self):\n        pass\n\ndef register():\n    pass\n",
        );
        assert_eq!(
            close_names(&here, &selector("Scaffold.route")),
            ["Blueprint.route"]
        );
        assert_eq!(close_names(&here, &selector("regster")), ["register"]);
        assert!(close_names(&here, &selector("unrelated_name")).is_empty());
        assert!(close_names(&ImageUnits::Absent, &selector("register")).is_empty());
    }

    #[test]
    fn the_advice_names_the_moved_entry_then_the_close_names() {
        let homes = Homes {
            moved_to: vec!["src/b.py#C.m".to_owned()],
            close: vec!["C.n".to_owned(), "D.m".to_owned()],
        };
        assert_eq!(
            homes.advice(&selector("C.m")).as_deref(),
            Some("C.m has the same qualified name at `src/b.py#C.m`; did you mean `C.n` or `D.m`?")
        );
        assert_eq!(Homes::default().advice(&selector("C.m")), None);
    }
}
