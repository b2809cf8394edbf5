//! Anchors: selectors, the ONE verdict classifier, and the ONE hunk∩range predicate.
//!
//! Owns: [`Selector`] syntax, [`classify`] (live | type-only | dead | ambiguous |
//! unparseable | no-extractor | extractor-unavailable) for every reader — lint's tip
//! check, historical hit ranges, and any later consumer — and [`touches`].
//! Does not own: wording (each reader words its own findings) or extraction (`extract`).

use crate::diff::Hunk;
pub use crate::extract::LineRange;
use crate::extract::{ExtractError, Partial, Unit, UnitKind, python_identifier};
use std::fmt;

/// A dotted qualified unit name: `login`, `Session.refresh`, `Widget.#secret`.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Selector(String);

impl Selector {
    /// Parses a selector: non-empty `.`-separated identifiers (a segment may start with
    /// `#` for a private class member), no whitespace.
    pub fn parse(text: &str) -> Option<Self> {
        let valid = text.split('.').all(|segment| {
            let ident = segment.strip_prefix('#').unwrap_or(segment);
            let mut chars = ident.chars();
            chars
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        });
        valid.then(|| Self(text.to_owned()))
    }

    /// Parses a selector on the file `path`: in a Python file its names are read as
    /// Python reads identifiers ([`python_identifier`]), so `ﬁnd` names `def find`. In
    /// TS/JS they stay as written: ECMAScript does not normalize identifiers.
    pub fn parse_on(path: &str, text: &str) -> Option<Self> {
        match crate::extract::Language::for_path(path) {
            Some(crate::extract::Language::Python) => Self::parse(&python_identifier(text)),
            _ => Self::parse(text),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl LineRange {
    fn of(unit: &Unit) -> Self {
        Self {
            start: unit.start_line,
            end: unit.end_line,
        }
    }
}

/// What reading one image gave: the input every verdict is classified from. Packed in the
/// on-disk memo (`keel_engine::packed`): it is most of what the memo holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(remote = "Self")]
pub enum ImageUnits {
    /// The file does not exist in that tree.
    Absent,
    /// No extractor is designated for the file's extension.
    NoExtractor,
    /// The blob is past `[lint] max_file_bytes`: not parsed.
    TooLarge,
    /// The designated extractor ran.
    Extracted(Result<Vec<Unit>, ExtractError>),
}

keel_engine::packed_serde!(ImageUnits);

impl ImageUnits {
    /// The lines that did not parse in an image that parsed in part; empty when it parsed
    /// whole, or not at all (then no line of it can be placed).
    pub fn unparsed(&self) -> &[LineRange] {
        match self {
            Self::Extracted(Err(ExtractError::Unparseable { partial, .. })) => &partial.unparsed,
            _ => &[],
        }
    }
}

/// The verdict on one selector in one image.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Exactly one unit of that name.
    Live(LineRange),
    /// Exactly one unit, and it is a type or interface: resolves, with a warning.
    TypeOnly(LineRange),
    /// No unit of that name (the file exists).
    Dead,
    /// The file does not exist.
    FileMissing,
    /// Several units share the name (and are not one overload/property group).
    Ambiguous(Vec<LineRange>),
    /// The selector's unit cannot be read: the file does not parse (its first error at
    /// `line`). `unparsed` is empty when nothing of the file parsed; otherwise the rest of
    /// it did, the selector names no unit of that rest, and these lines did not parse.
    Unparseable {
        line: u32,
        reason: String,
        unparsed: Vec<LineRange>,
    },
    /// No extractor for the file's language.
    NoExtractor,
    /// The file is past `[lint] max_file_bytes`, so keel did not parse it.
    TooLarge,
    /// The designated extractor cannot run here.
    ExtractorUnavailable { reason: String },
}

impl Verdict {
    /// The ranges a hunk must touch to hit this selector; `None` when the image could
    /// not be read as units, so a change to it counts as a conservative hit.
    pub fn hit_ranges(&self) -> Option<Vec<LineRange>> {
        match self {
            Self::Live(range) | Self::TypeOnly(range) => Some(vec![*range]),
            Self::Ambiguous(ranges) => Some(ranges.clone()),
            Self::Dead | Self::FileMissing => Some(Vec::new()),
            Self::Unparseable { .. }
            | Self::NoExtractor
            | Self::TooLarge
            | Self::ExtractorUnavailable { .. } => None,
        }
    }
}

/// The one classifier: the verdict on `selector` given what an image yielded. In a file
/// that parsed only in part, a selector resolves among the units that stand
/// ([`Partial`]); one that names none of them, or names a unit left out, is unparseable
/// (its unit may lie in what did not parse), never dead.
pub fn classify(image: &ImageUnits, selector: &Selector) -> Verdict {
    let units = match image {
        ImageUnits::Absent => return Verdict::FileMissing,
        ImageUnits::NoExtractor => return Verdict::NoExtractor,
        ImageUnits::TooLarge => return Verdict::TooLarge,
        ImageUnits::Extracted(Err(ExtractError::Unavailable { reason })) => {
            return Verdict::ExtractorUnavailable {
                reason: reason.clone(),
            };
        }
        ImageUnits::Extracted(Err(ExtractError::Unparseable {
            line,
            reason,
            partial,
        })) => {
            let Partial {
                units,
                unparsed,
                left_out,
            } = partial;
            let named = |unit: &Unit| unit.name == selector.as_str();
            let left = left_out.iter().any(|name| name == selector.as_str());
            if left || !units.iter().any(named) {
                return Verdict::Unparseable {
                    line: *line,
                    reason: reason.clone(),
                    unparsed: unparsed.clone(),
                };
            }
            units
        }
        ImageUnits::Extracted(Ok(units)) => units,
    };
    let matching: Vec<&Unit> = units
        .iter()
        .filter(|unit| unit.name == selector.as_str())
        .collect();
    match matching.as_slice() {
        [] => Verdict::Dead,
        [unit] if unit.kind == UnitKind::TypeOnly => Verdict::TypeOnly(LineRange::of(unit)),
        [unit] => Verdict::Live(LineRange::of(unit)),
        several => Verdict::Ambiguous(several.iter().map(|u| LineRange::of(u)).collect()),
    }
}

/// Which side of a hunk touched a unit.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Added lines, judged against the unit in the result image.
    Added,
    /// Deleted lines, judged against the unit in the parent image.
    Deleted,
    Both,
}

impl Side {
    /// The side named by which kinds of lines were touched, if any.
    pub fn from_flags(added: bool, deleted: bool) -> Option<Self> {
        match (added, deleted) {
            (true, true) => Some(Self::Both),
            (true, false) => Some(Self::Added),
            (false, true) => Some(Self::Deleted),
            (false, false) => None,
        }
    }

    /// Combines two observations of one commit.
    pub fn join(self, other: Self) -> Self {
        if self == other { self } else { Self::Both }
    }
}

/// The ONE hunk∩range predicate: do these 0-based half-open lines of a hunk side meet
/// the 1-based inclusive unit range? An empty side (a pure insertion or deletion point)
/// owns no line and touches nothing.
pub fn touches(lines: &std::ops::Range<u32>, unit: LineRange) -> bool {
    !lines.is_empty() && lines.start < unit.end && unit.start.saturating_sub(1) < lines.end
}

/// The side on which any of `hunks` touches the ranges: added lines against
/// `result` (the unit in the commit's image), deleted lines against `parent`.
pub fn hunk_side(hunks: &[Hunk], result: &[LineRange], parent: &[LineRange]) -> Option<Side> {
    let added = hunks
        .iter()
        .any(|h| result.iter().any(|r| touches(&h.after, *r)));
    let deleted = hunks
        .iter()
        .any(|h| parent.iter().any(|r| touches(&h.before, *r)));
    Side::from_flags(added, deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(name: &str, kind: UnitKind, start: u32, end: u32) -> Unit {
        Unit {
            name: name.to_owned(),
            kind,
            start_line: start,
            end_line: end,
        }
    }

    fn sel(text: &str) -> Selector {
        Selector::parse(text).expect("test selector is valid")
    }

    #[test]
    fn selector_syntax() {
        assert!(Selector::parse("login").is_some());
        assert!(Selector::parse("Outer.Inner.method").is_some());
        assert!(Selector::parse("Widget.#secret").is_some());
        assert!(Selector::parse("$store").is_some());
        assert!(Selector::parse("a b").is_none());
        assert!(Selector::parse("").is_none());
        assert!(Selector::parse("a..b").is_none());
        assert!(Selector::parse("1abc").is_none());
    }

    #[test]
    fn classifier_covers_every_verdict() {
        let units = ImageUnits::Extracted(Ok(vec![
            unit("f", UnitKind::Function, 1, 3),
            unit("T", UnitKind::TypeOnly, 5, 6),
            unit("g", UnitKind::Function, 8, 9),
            unit("g", UnitKind::Function, 11, 12),
        ]));
        let range = |start, end| LineRange { start, end };
        assert_eq!(classify(&units, &sel("f")), Verdict::Live(range(1, 3)));
        assert_eq!(classify(&units, &sel("T")), Verdict::TypeOnly(range(5, 6)));
        assert_eq!(classify(&units, &sel("h")), Verdict::Dead);
        assert_eq!(
            classify(&units, &sel("g")),
            Verdict::Ambiguous(vec![range(8, 9), range(11, 12)])
        );
        assert_eq!(
            classify(&ImageUnits::Absent, &sel("f")),
            Verdict::FileMissing
        );
        assert_eq!(
            classify(&ImageUnits::NoExtractor, &sel("f")),
            Verdict::NoExtractor
        );
        let too_large = classify(&ImageUnits::TooLarge, &sel("f"));
        assert_eq!(too_large, Verdict::TooLarge);
        assert_eq!(
            too_large.hit_ranges(),
            None,
            "any change to it is conservative"
        );
        let broken = ImageUnits::Extracted(Err(ExtractError::Unparseable {
            line: 4,
            reason: "syntax error".to_owned(),
            partial: Partial::default(),
        }));
        assert!(matches!(
            classify(&broken, &sel("f")),
            Verdict::Unparseable { line: 4, ref unparsed, .. } if unparsed.is_empty()
        ));
        let unavailable = ImageUnits::Extracted(Err(ExtractError::Unavailable {
            reason: "abi".to_owned(),
        }));
        assert!(matches!(
            classify(&unavailable, &sel("f")),
            Verdict::ExtractorUnavailable { .. }
        ));
    }

    #[test]
    fn a_partial_image_resolves_only_the_units_that_stand() {
        let range = |start, end| LineRange { start, end };
        let image = ImageUnits::Extracted(Err(ExtractError::Unparseable {
            line: 5,
            reason: "syntax error at column 3".to_owned(),
            partial: Partial {
                units: vec![
                    unit("f", UnitKind::Function, 1, 3),
                    unit("h", UnitKind::Function, 9, 9),
                    unit("h", UnitKind::Function, 10, 10),
                    unit("k", UnitKind::Function, 11, 11),
                ],
                unparsed: vec![range(5, 6)],
                left_out: vec!["g".to_owned(), "k".to_owned()],
            },
        }));
        assert_eq!(classify(&image, &sel("f")), Verdict::Live(range(1, 3)));
        assert_eq!(
            classify(&image, &sel("h")),
            Verdict::Ambiguous(vec![range(9, 9), range(10, 10)])
        );
        let unparseable = Verdict::Unparseable {
            line: 5,
            reason: "syntax error at column 3".to_owned(),
            unparsed: vec![range(5, 6)],
        };
        for name in ["g", "gone", "k"] {
            assert_eq!(classify(&image, &sel(name)), unparseable, "{name}");
        }
        assert_eq!(image.unparsed(), [range(5, 6)]);
        assert_eq!(unparseable.hit_ranges(), None);
    }

    #[test]
    fn touches_uses_inclusive_one_based_units() {
        let unit = LineRange { start: 3, end: 5 };
        assert!(touches(&(2..3), unit), "0-based line 2 is line 3");
        assert!(touches(&(4..5), unit), "0-based line 4 is line 5");
        assert!(!touches(&(5..6), unit), "line 6 is after the unit");
        assert!(!touches(&(0..2), unit), "lines 1-2 are before the unit");
        assert!(!touches(&(3..3), unit), "an insertion point owns no line");
    }

    #[test]
    fn hunk_side_judges_each_side_in_its_own_image() {
        let hunk = Hunk {
            before: 0..1,
            after: 9..10,
        };
        let result = [LineRange { start: 10, end: 12 }];
        let parent = [LineRange { start: 5, end: 6 }];
        assert_eq!(
            hunk_side(std::slice::from_ref(&hunk), &result, &parent),
            Some(Side::Added)
        );
        let parent_hit = [LineRange { start: 1, end: 2 }];
        assert_eq!(hunk_side(&[hunk], &result, &parent_hit), Some(Side::Both));
    }
}
