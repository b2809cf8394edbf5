//! The units of one file as a spec names them: what `keel units` lists, and what
//! `keel init` picks its example anchor from.
//!
//! Owns: running the designated extractor on one file's bytes and giving each unit its
//! selector text (`path#Qualified.name`), its kind's name, its lines, and how lint would
//! read that selector — the one classifier's verdict ([`classify`]), so a type-only or
//! ambiguous name is flagged here exactly as lint flags it.
//! Also the file paths a commit holds ([`tree_files`]).
//! Does not own: reading the file (the caller reads the working tree or a commit),
//! extraction itself (`extract`), the verdicts (`anchors`), or printing (`keel`).

use crate::anchors::{ImageUnits, Selector, Verdict, classify};
pub use crate::extract::LineRange;
use crate::extract::{ExtractError, Partial, extract};

/// One unit of a file, as a spec's `code:` entry names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUnit {
    /// What a `code:` entry writes to pin this unit: `path#Qualified.name`.
    pub selector: String,
    /// The lexical qualified name: `login`, `Session.refresh`, `Widget.#secret`.
    pub name: String,
    /// `function`, `class`, `method`, `variable`, `enum` or `type`.
    pub kind: &'static str,
    /// First line (1-based), decorators and `export` included.
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// How `keel lint` reads the selector at this image.
    pub standing: Standing,
}

/// How `keel lint` reads a unit's selector, by the one classifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// The selector pins this unit: a change inside it is a blocking hit.
    Pins,
    /// A type or interface: it resolves, and anchoring it warns (`type-only-anchor`).
    TypeOnly,
    /// `units` units share the name: lint refuses the selector as ambiguous.
    Ambiguous { units: usize },
    /// The file parses only in part and a declaration of this name was left out, so the
    /// selector is unparseable until the file parses.
    Unparseable,
}

/// Every unit of one file, and what did not parse of it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileUnits {
    /// In the extractor's order (document order, an enclosing unit before its members).
    pub units: Vec<FileUnit>,
    /// The lines that did not parse, for a file that parses only in part (empty when it
    /// parses whole).
    pub unparsed: Vec<LineRange>,
    /// The names of the units the extractor found there but left out (their selectors are
    /// unparseable), sorted.
    pub left_out: Vec<String>,
}

/// Why a file yields no units to list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitsError {
    /// No extractor is designated for the file's extension.
    #[error(
        "keel has no extractor for this file's extension (it reads .py .pyi .ts .mts .cts .tsx .js .jsx .mjs .cjs)"
    )]
    NoExtractor,
    /// Nothing of the file parses (or it is not text in its encoding).
    #[error("does not parse: line {line}: {reason}")]
    Unparseable { line: u32, reason: String },
    /// The extractor cannot run on this host.
    #[error("the extractor cannot run here: {reason}")]
    Unavailable { reason: String },
}

/// The units of the file at `path` (a repository path: its extension picks the
/// extractor, and it starts every selector) holding `content`. A file that parses only
/// in part gives the units that stand ([`FileUnits::unparsed`] says which lines did
/// not parse); one of which nothing stands is [`UnitsError::Unparseable`].
pub fn units_of(path: &str, content: &[u8]) -> Result<FileUnits, UnitsError> {
    let extracted = extract(content, path).ok_or(UnitsError::NoExtractor)?;
    let (units, unparsed, left_out) = match &extracted {
        Ok(units) => (units.clone(), Vec::new(), Vec::new()),
        Err(ExtractError::Unavailable { reason }) => {
            return Err(UnitsError::Unavailable {
                reason: reason.clone(),
            });
        }
        Err(ExtractError::Unparseable {
            line,
            reason,
            partial:
                Partial {
                    units,
                    unparsed,
                    left_out,
                },
        }) => {
            if units.is_empty() {
                return Err(UnitsError::Unparseable {
                    line: *line,
                    reason: reason.clone(),
                });
            }
            (units.clone(), unparsed.clone(), left_out.clone())
        }
    };
    let image = ImageUnits::Extracted(extracted);
    let units = units
        .into_iter()
        .map(|unit| {
            let standing = match Selector::parse_on(path, &unit.name) {
                Some(selector) => standing(&classify(&image, &selector)),
                // A name no selector can spell is no unit lint can resolve.
                None => Standing::Unparseable,
            };
            FileUnit {
                selector: format!("{path}#{}", unit.name),
                kind: unit.kind.name(),
                start_line: unit.start_line,
                end_line: unit.end_line,
                name: unit.name,
                standing,
            }
        })
        .collect();
    Ok(FileUnits {
        units,
        unparsed,
        left_out,
    })
}

/// The standing of a selector that names a unit the extractor listed.
fn standing(verdict: &Verdict) -> Standing {
    match verdict {
        Verdict::Live(_) => Standing::Pins,
        Verdict::TypeOnly(_) => Standing::TypeOnly,
        Verdict::Ambiguous(ranges) => Standing::Ambiguous {
            units: ranges.len(),
        },
        // A listed unit's name always matches it, so these mean the file could not be
        // read as units: lint would call the selector unparseable too.
        Verdict::Unparseable { .. }
        | Verdict::Dead
        | Verdict::FileMissing
        | Verdict::NoExtractor
        | Verdict::TooLarge
        | Verdict::ExtractorUnavailable { .. } => Standing::Unparseable,
    }
}

/// Every file `commit`'s tree holds, with its blob, sorted by path: what a spec's
/// `code:` entry can name (an editor completes paths from it), and what a call graph of
/// the commit reads.
pub fn tree_files(
    db: &dyn keel_engine::Db,
    commit: keel_engine::inputs::Commit,
) -> Result<Vec<(String, keel_engine::Oid)>, keel_engine::objects::ObjectError> {
    let mut files = crate::tree::files_under(db, commit.tree(db), "")?;
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(units: &FileUnits) -> Vec<(&str, &str, u32, u32, Standing)> {
        units
            .units
            .iter()
            .map(|u| {
                (
                    u.selector.as_str(),
                    u.kind,
                    u.start_line,
                    u.end_line,
                    u.standing,
                )
            })
            .collect()
    }

    #[test]
    fn python_units_carry_their_selectors_and_lines() {
        let source = b"import os\n\n\nclass Cart:\n    def add(self, item):\n        return item\n\n\ndef total(cart):\n    return 0\n";
        let units = units_of("shop/cart.py", source).expect("parses");
        assert_eq!(
            listed(&units),
            [
                ("shop/cart.py#Cart", "class", 4, 6, Standing::Pins),
                ("shop/cart.py#Cart.add", "method", 5, 6, Standing::Pins),
                ("shop/cart.py#total", "function", 9, 10, Standing::Pins),
            ]
        );
        assert!(units.unparsed.is_empty() && units.left_out.is_empty());
    }

    #[test]
    fn types_and_repeated_names_are_flagged_as_lint_reads_them() {
        let source = b"export interface Shape {}\nfunction f() {}\nfunction f() {}\n";
        let units = units_of("a.ts", source).expect("parses");
        assert_eq!(
            listed(&units),
            [
                ("a.ts#Shape", "type", 1, 1, Standing::TypeOnly),
                ("a.ts#f", "function", 2, 2, Standing::Ambiguous { units: 2 }),
                ("a.ts#f", "function", 3, 3, Standing::Ambiguous { units: 2 }),
            ]
        );
    }

    #[test]
    fn a_file_of_which_nothing_stands_or_no_extractor_reads_is_an_error() {
        assert_eq!(units_of("notes.md", b"# x\n"), Err(UnitsError::NoExtractor));
        assert!(matches!(
            units_of("broken.py", b"def (:\n"),
            Err(UnitsError::Unparseable { line: 1, .. })
        ));
        let partial = units_of("a.ts", b"function ok() {}\n\nconst x = ;\n").expect("ok stands");
        assert_eq!(
            listed(&partial),
            [("a.ts#ok", "function", 1, 1, Standing::Pins)]
        );
        assert_eq!(partial.unparsed, [LineRange { start: 3, end: 3 }]);
        assert_eq!(partial.left_out, ["x"]);
    }
}
