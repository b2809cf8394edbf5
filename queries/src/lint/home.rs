//! Where a dead anchor's unit went: the same qualified name in another file at the tip
//! (a unit moved between files), and close names in the entry's own file (a typo, a
//! renamed class) — the way forward a `dead-anchor` names in its repair.
//!
//! Owns: the search and its order. Does not own: deciding that an anchor is dead (the
//! one classifier, `anchors::classify`) or the finding's wording (`judge`).

use crate::anchors::{ImageUnits, Selector, Verdict, classify};
use crate::events::tip_image;
use crate::extract::Language;
use crate::images::{FileBound, tip_units_within};
use crate::tree::{RepoPath, files_under};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::message::edit_distance;
use keel_engine::objects::ObjectError;

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
    /// the same last name under another class).
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
    Ok(Homes {
        moved_to: moved_to(db, tip, bound, path, selector)?,
        close: close_names(here, selector),
    })
}

/// Files of the tip, other than `path` and of its language, where `selector` names one
/// live unit.
fn moved_to(
    db: &dyn Db,
    tip: Commit,
    bound: FileBound,
    path: &str,
    selector: &Selector,
) -> Result<Vec<String>, ObjectError> {
    let Some(language) = Language::for_path(path) else {
        return Ok(Vec::new());
    };
    let text = selector.to_string();
    let last = text
        .rsplit('.')
        .next()
        .unwrap_or(&text)
        .trim_start_matches('#');
    let mut found = Vec::new();
    let files = files_under(db, tip.tree(db), "")?;
    for (candidate, blob) in files.into_iter().take(MOST_FILES_READ) {
        if candidate == path || Language::for_path(&candidate) != Some(language) {
            continue;
        }
        // Cheap first: a file whose text never spells the unit's own name cannot define it.
        let bytes = db.objects().blob(blob)?;
        if !contains(&bytes, last.as_bytes()) {
            continue;
        }
        let image = tip_image(db, tip, RepoPath::new(db, candidate.clone()))?;
        let units = tip_units_within(db, image, bound);
        if matches!(
            classify(units, selector),
            Verdict::Live(_) | Verdict::TypeOnly(_)
        ) {
            found.push(candidate);
        }
    }
    let name = file_name(path);
    found.sort_by_key(|candidate| (file_name(candidate) != name, candidate.clone()));
    Ok(found
        .into_iter()
        .take(SHOWN)
        .map(|candidate| format!("{candidate}#{text}"))
        .collect())
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || haystack
            .windows(needle.len())
            .any(|window| window == needle)
}

/// Qualified names of `here` close to `selector`: within a few edits (a typo), or with
/// the same last name under another parent (a renamed class); nearest first.
fn close_names(here: &ImageUnits, selector: &Selector) -> Vec<String> {
    let ImageUnits::Extracted(Ok(units)) = here else {
        return Vec::new();
    };
    let text = selector.to_string();
    let last = text.rsplit('.').next().unwrap_or(&text);
    let allowed = (text.chars().count() / 4).max(2);
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
