//! Extractors: pure `(content, filename) → units` functions, one designated extractor per
//! file extension, no fallback between them.
//!
//! Owns: the extension → language registry, reading content as text (UTF-8, or the
//! encoding a Python coding cookie declares: `coding`), the unit vocabulary (qualified
//! names, kinds, 1-based inclusive line ranges), tolerant extraction (the units a file
//! that does not parse yields anyway: [`Partial`]), and the tree-sitter walks for Python
//! and TypeScript/TSX/JavaScript.
//! `reuse` adds incremental reparsing, and `splice` the Python splice (parsing only the
//! changed statements of a new version), as speed hints whose answers equal
//! [`extract_as`]'s.
//! Does not own: memoization (the `units` query in `images` keys it per image), selector
//! resolution (`anchors`), or any IO — these functions are importable without a database.

mod coding;
pub(crate) mod fields;
mod grammar_slots;
pub(crate) mod kinds;
mod python;
mod reuse;
#[cfg(test)]
pub(crate) use reuse::testing;
mod splice;
mod syntax;
mod typescript;

pub(crate) use python::python_identifier;
pub(crate) use reuse::python_tree;
pub use reuse::{
    EditScript, Hints, MAX_HINT_BYTES, MAX_HINTS, ParseCache, ParseCounts, adopt_hints,
    cached_tree, extract_reusing, history_only, remember_hunks, retire_thread, single_use,
    take_new_hints, thread_hints, thread_parse_counts,
};
pub use splice::{Level as SpliceLevel, Refusal as SpliceRefusal};
use std::borrow::Cow;
pub(crate) use syntax::qualify;
use tree_sitter::Tree;
pub(crate) use typescript::unwrap_expression;

/// The grammar crates keel parses with, as `Cargo.lock` pins them (a test checks).
const GRAMMAR_PYTHON: &str = "tree-sitter-python 0.25.0";
const GRAMMAR_TYPESCRIPT: &str = "tree-sitter-typescript 0.23.2";
const GRAMMAR_CORE: &str = "tree-sitter 0.27.1";

/// A language with a designated extractor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// `.py`, `.pyi`
    Python,
    /// `.ts`, `.mts`, `.cts` (the TypeScript grammar: `<T>x` casts parse)
    TypeScript,
    /// `.tsx`, `.js`, `.jsx`, `.mjs`, `.cjs` (the TSX grammar)
    Tsx,
}

impl Language {
    /// The designated extractor for a path, decided by its extension alone.
    pub fn for_path(path: &str) -> Option<Self> {
        let file = path.rsplit('/').next().unwrap_or(path);
        let (_, ext) = file.rsplit_once('.')?;
        match ext {
            "py" | "pyi" => Some(Self::Python),
            "ts" | "mts" | "cts" => Some(Self::TypeScript),
            "tsx" | "js" | "jsx" | "mjs" | "cjs" => Some(Self::Tsx),
            _ => None,
        }
    }

    /// Extractor identity that goes into every image key: name and schema version.
    pub fn extractor_id(self) -> &'static str {
        match self {
            Self::Python => "python-ts@3",
            Self::TypeScript => "typescript-ts@2",
            Self::Tsx => "tsx-ts@2",
        }
    }

    /// Everything that decides what this language's extractor reads from given bytes:
    /// the extractor's id and version and the grammar crates it parses with. Part of
    /// every image's key ([`crate::images::Image`]), in memory and on disk, so a new
    /// extractor or grammar never reuses an old answer.
    pub fn reader_id(self) -> String {
        let grammar = match self {
            Self::Python => GRAMMAR_PYTHON,
            Self::TypeScript | Self::Tsx => GRAMMAR_TYPESCRIPT,
        };
        format!("{} {grammar} {GRAMMAR_CORE}", self.extractor_id())
    }

    /// The tree-sitter grammar and its name in messages.
    fn grammar(self) -> (tree_sitter::Language, &'static str) {
        match self {
            Self::Python => python::grammar(),
            Self::TypeScript => typescript::grammar(typescript::Dialect::TypeScript),
            Self::Tsx => typescript::grammar(typescript::Dialect::Tsx),
        }
    }

    /// A parser for this language; a grammar that cannot load is
    /// [`ExtractError::Unavailable`].
    fn parser(self) -> Result<tree_sitter::Parser, ExtractError> {
        let (grammar, grammar_name) = self.grammar();
        syntax::parser_for(&grammar, grammar_name)
    }

    /// The text of `content`: UTF-8, or for Python the encoding its PEP 263 coding cookie
    /// declares (borrowed when that text is `content` itself, as it is for any ASCII
    /// content).
    pub(crate) fn text(self, content: &[u8]) -> Result<Cow<'_, str>, ExtractError> {
        match self {
            Self::Python => coding::python_text(content),
            Self::TypeScript | Self::Tsx => syntax::as_text(content).map(Cow::Borrowed),
        }
    }

    /// The units of a tree of `source`. A tree with an error is unparseable, carrying
    /// the units that parsed anyway ([`Partial`]).
    fn units(self, tree: &Tree, source: &str) -> Result<Vec<Unit>, ExtractError> {
        let units = match self {
            Self::Python => python::walk(tree, source),
            Self::TypeScript | Self::Tsx => typescript::walk(tree, source),
        };
        syntax::tolerate(tree, source, units)
    }
}

/// What kind of declaration a unit is. Kept in the on-disk memo as one byte (every unit
/// of every image carries one: its name would be a string each).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(into = "u8", try_from = "u8")]
pub enum UnitKind {
    /// A function (Python `def`/`async def`, TS function declaration or a `const`
    /// holding an arrow/function expression).
    Function,
    /// A class.
    Class,
    /// A method, constructor or accessor inside a class.
    Method,
    /// A top-level `const`/`let`/`var` holding data.
    Variable,
    /// A TS `enum`.
    Enum,
    /// A TS `type` alias or `interface`: resolves, but anchoring it warns.
    TypeOnly,
}

impl UnitKind {
    /// The kind as people read it (`keel units`, the extractor comparisons).
    pub fn name(self) -> &'static str {
        match self {
            Self::Function => "function",
            Self::Class => "class",
            Self::Method => "method",
            Self::Variable => "variable",
            Self::Enum => "enum",
            Self::TypeOnly => "type",
        }
    }
}

/// Every kind, in its byte's order.
const UNIT_KINDS: [UnitKind; 6] = [
    UnitKind::Function,
    UnitKind::Class,
    UnitKind::Method,
    UnitKind::Variable,
    UnitKind::Enum,
    UnitKind::TypeOnly,
];

impl From<UnitKind> for u8 {
    fn from(kind: UnitKind) -> Self {
        kind as u8
    }
}

impl TryFrom<u8> for UnitKind {
    type Error = String;

    fn try_from(byte: u8) -> Result<Self, Self::Error> {
        UNIT_KINDS
            .get(usize::from(byte))
            .copied()
            .ok_or_else(|| format!("no unit kind {byte}"))
    }
}

/// Lines of an image: 1-based, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct LineRange {
    pub start: u32,
    pub end: u32,
}

impl LineRange {
    /// Ranges as messages list them: `4-6, 12`.
    pub fn list(ranges: &[Self]) -> String {
        ranges
            .iter()
            .map(|r| {
                if r.start == r.end {
                    r.start.to_string()
                } else {
                    format!("{}-{}", r.start, r.end)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One code unit: a qualified name and the lines it covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Unit {
    /// Lexical qualified name joined with `.`: `login`, `Session.refresh`, `Class.#name`.
    pub name: String,
    pub kind: UnitKind,
    /// First line (1-based), including decorators and `export`.
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
}

/// Why an image does not yield all its units.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ExtractError {
    /// The content does not parse (its first syntax error is at `line`, 1-based), or is
    /// not text (not UTF-8, or not in the encoding a Python coding cookie declares, or in
    /// one keel cannot decode). `partial` holds what parsed anyway; when it holds no unit,
    /// the file is unparseable as a whole.
    Unparseable {
        line: u32,
        reason: String,
        partial: Partial,
    },
    /// The extractor cannot run on this host (its grammar could not be loaded).
    Unavailable { reason: String },
}

/// What a file that does not parse yields anyway: tolerant extraction. Empty (the
/// default) when nothing did, or the content is not text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Partial {
    /// Every unit such that neither it nor any unit enclosing it (a unit whose qualified
    /// name is a prefix of its own and whose lines hold its lines) is broken, in [`Unit`]
    /// order. A unit is broken when its lines meet a line in `unparsed`, or when an
    /// identifier in a region that did not parse spells its name (a declaration of that
    /// name may be hidden there). Groups (overloads, property accessors) are formed over
    /// every declaration the walk found first, so a group with one broken member is left
    /// out whole.
    pub units: Vec<Unit>,
    /// The lines that did not parse: those of every ERROR and MISSING node of the tree,
    /// sorted, merged where they meet or adjoin. Empty when `units` is.
    pub unparsed: Vec<LineRange>,
    /// The qualified names of the units found but left out, sorted, each once: a selector
    /// naming one of them is unparseable even if `units` holds a unit of that name too.
    pub left_out: Vec<String>,
}

/// Extracts the units of one image. Pure: the same `(content, filename)` always gives
/// the same answer. Returns `None` when no extractor is designated for the extension.
pub fn extract(content: &[u8], filename: &str) -> Option<Result<Vec<Unit>, ExtractError>> {
    let language = Language::for_path(filename)?;
    Some(extract_as(language, content))
}

/// Extracts with a known language, parsing from scratch: the reference answer every
/// incremental parse ([`ParseCache`]) must equal.
pub fn extract_as(language: Language, content: &[u8]) -> Result<Vec<Unit>, ExtractError> {
    let source = language.text(content)?;
    let mut parser = language.parser()?;
    let tree = syntax::run(&mut parser, source.as_bytes(), None, language.grammar().1)?;
    language.units(&tree, &source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_ids_name_the_grammar_versions_cargo_lock_pins() {
        let lock = include_str!("../../../Cargo.lock");
        for grammar in [GRAMMAR_PYTHON, GRAMMAR_TYPESCRIPT, GRAMMAR_CORE] {
            let (name, version) = grammar.split_once(' ').expect("name and version");
            let pinned = format!("name = \"{name}\"\nversion = \"{version}\"\n");
            assert!(
                lock.contains(&pinned),
                "Cargo.lock pins another {name} than {version}"
            );
        }
        assert!(Language::Python.reader_id().starts_with("python-ts@"));
        assert_ne!(Language::TypeScript.reader_id(), Language::Tsx.reader_id());
    }

    #[test]
    fn unit_kinds_round_trip_through_their_byte() {
        for kind in UNIT_KINDS {
            assert_eq!(UnitKind::try_from(u8::from(kind)), Ok(kind));
        }
        assert!(UnitKind::try_from(UNIT_KINDS.len() as u8).is_err());
    }

    #[test]
    fn for_path_decides_by_extension_alone() {
        let cases: &[(&str, Option<Language>)] = &[
            ("src/auth/session.py", Some(Language::Python)),
            ("stubs/types.pyi", Some(Language::Python)),
            ("web/api/client.ts", Some(Language::TypeScript)),
            ("lib/esm.mts", Some(Language::TypeScript)),
            ("lib/cjs.cts", Some(Language::TypeScript)),
            ("ui/App.tsx", Some(Language::Tsx)),
            ("ui/legacy.js", Some(Language::Tsx)),
            ("ui/legacy.jsx", Some(Language::Tsx)),
            ("ui/module.mjs", Some(Language::Tsx)),
            ("ui/common.cjs", Some(Language::Tsx)),
            ("types/index.d.ts", Some(Language::TypeScript)),
            ("README.md", None),
            ("Makefile", None),
            ("pkg.py/README", None),
            ("src/main.rs", None),
            ("SHOUT.PY", None),
        ];
        for &(path, expected) in cases {
            assert_eq!(Language::for_path(path), expected, "{path}");
        }
    }

    #[test]
    fn extract_has_no_fallback_for_unknown_extensions() {
        assert_eq!(extract(b"def f(): pass\n", "script.rb"), None);
    }

    #[test]
    fn extract_picks_the_grammar_by_extension() {
        let cast = b"let m = <number>value;\n";
        let as_ts = extract(cast, "a.ts");
        assert!(
            matches!(as_ts, Some(Ok(ref units)) if units.len() == 1),
            "{as_ts:?}"
        );
        for filename in ["a.tsx", "a.js"] {
            let got = extract(cast, filename);
            assert!(
                matches!(got, Some(Err(ExtractError::Unparseable { line: 1, .. }))),
                "{filename}: {got:?}"
            );
        }
        let stub = extract(b"def f() -> int: ...\n", "m.pyi");
        let expected = Unit {
            name: "f".to_owned(),
            kind: UnitKind::Function,
            start_line: 1,
            end_line: 1,
        };
        assert_eq!(stub, Some(Ok(vec![expected])));
    }

    #[test]
    fn javascript_files_with_jsx_use_the_tsx_grammar() {
        let source = b"export function App() {\n  return <main><Nav /></main>;\n}\n";
        let expected = Unit {
            name: "App".to_owned(),
            kind: UnitKind::Function,
            start_line: 1,
            end_line: 3,
        };
        for filename in ["src/app.js", "src/app.jsx", "src/app.mjs"] {
            assert_eq!(
                extract(source, filename),
                Some(Ok(vec![expected.clone()])),
                "{filename}"
            );
        }
    }

    #[test]
    fn typescript_files_that_parse_in_part_keep_their_standing_units() {
        let source = b"function ok() {}\n\nconst x = ;\nexport class K {\n  m() {}\n}\n";
        let unit = |name: &str, kind, start_line, end_line| Unit {
            name: name.to_owned(),
            kind,
            start_line,
            end_line,
        };
        let expected = Partial {
            units: vec![
                unit("ok", UnitKind::Function, 1, 1),
                unit("K", UnitKind::Class, 4, 6),
                unit("K.m", UnitKind::Method, 5, 5),
            ],
            unparsed: vec![LineRange { start: 3, end: 3 }],
            left_out: vec!["x".to_owned()],
        };
        for filename in ["a.ts", "a.tsx", "a.js"] {
            match extract(source, filename) {
                Some(Err(ExtractError::Unparseable {
                    line: 3, partial, ..
                })) => {
                    assert_eq!(partial, expected, "{filename}");
                }
                other => panic!("{filename}: {other:?}"),
            }
        }
    }

    #[test]
    fn typescript_shapes_the_grammar_rejects_cost_only_the_units_that_hold_them() {
        // (shape, the units it costs) — the grammar rejects each shape (see
        // `typescript::tests::shapes_the_grammar_still_rejects`); the units around it stand.
        for (shape, lost) in [
            (
                "interface ZodType<out Output = unknown, in Input = Output> {}",
                &["ZodType"][..],
            ),
            (
                "vi.mock(\"x\", async (importOriginal) => { \
                 const m = await importOriginal<typeof import(\"x\")>(); return m; });",
                &[][..],
            ),
            ("class A { static accessor x = 1; }", &["A"][..]),
            ("import defer * as ns from \"x\";", &[][..]),
            ("const ns = import.defer(\"x\");", &["ns"][..]),
        ] {
            let source = format!("function before() {{}}\n{shape}\nfunction after() {{}}\n");
            let Some(Err(ExtractError::Unparseable { partial, .. })) =
                extract(source.as_bytes(), "a.ts")
            else {
                panic!("{shape}: expected a partial parse");
            };
            let standing: Vec<&str> = partial.units.iter().map(|u| u.name.as_str()).collect();
            assert_eq!(standing, ["before", "after"], "{shape}");
            for name in lost {
                assert!(!standing.contains(name), "{shape}: {name} holds the error");
            }
            assert!(
                partial
                    .unparsed
                    .iter()
                    .all(|lines| lines.start == 2 && lines.end == 2),
                "{shape}: {:?}",
                partial.unparsed
            );
        }
    }

    #[test]
    fn extraction_is_deterministic() {
        let source = b"class B:\n    def b(self): ...\n    def a(self): ...\ndef a(): ...\n";
        let first = extract(source, "m.py");
        assert_eq!(first, extract(source, "m.py"));
        let names: Vec<String> = match first {
            Some(Ok(units)) => units.into_iter().map(|unit| unit.name).collect(),
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(names, ["B", "B.b", "B.a", "a"]);
    }
}
