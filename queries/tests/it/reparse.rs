//! Incremental reparsing never changes an answer: on randomized Python and TypeScript file
//! histories, the units of every version reparsed from its neighbour (old → new and
//! new → old, with either edit script, and along a whole chain of reparses as a lint does)
//! equal those of a parse from scratch, and so do Python versions spliced from the previous
//! outline (`splice` holds the splice to adversarial histories). The histories add and delete functions, classes
//! and methods, change decorators, rename, move declarations, break the syntax and fix it
//! again, and switch between LF and CRLF line ends and a missing final newline, around
//! non-ASCII text. A test checks that `image_units` really reparses incrementally
//! during a lint, so the optimization cannot silently turn off, and one that a version
//! decoded from a coding cookie's encoding is parsed from scratch and never kept as a hint.

use crate::support::{commit, repo, spec};
use keel_engine::{Db as _, KeelDatabase};
use keel_fixtures::rng::SeededRng as Rng;
use keel_queries::extract::{
    EditScript, ExtractError, Language, ParseCache, Unit, extract_as, thread_parse_counts,
};
use keel_queries::lint::lint;
use std::sync::Arc;

/// Versions per history.
const STEPS: usize = 60;

/// A named block of body lines (relative indentation, `\n` inside an entry is a line
/// break at the same depth).
#[derive(Clone)]
struct Block {
    name: String,
    decorators: Vec<String>,
    body: Vec<String>,
}

/// A top-level item: a function, or a class with methods.
#[derive(Clone)]
enum Item {
    Function(Block),
    Class(Block, Vec<Block>),
}

/// How lines end in one version.
#[derive(Clone, Copy)]
pub(crate) enum Ends {
    Lf,
    Crlf,
    /// Every third line CRLF, the others LF.
    Mixed,
}

/// The lines joined with `ends`, the last one without its end unless `final_newline`.
pub(crate) fn join_lines(lines: Vec<String>, ends: Ends, final_newline: bool) -> Vec<u8> {
    let mut text = String::new();
    let count = lines.len();
    for (index, line) in lines.into_iter().enumerate() {
        text.push_str(&line);
        if index + 1 == count && !final_newline {
            break;
        }
        let crlf = match ends {
            Ends::Lf => false,
            Ends::Crlf => true,
            Ends::Mixed => index % 3 == 0,
        };
        text.push_str(if crlf { "\r\n" } else { "\n" });
    }
    text.into_bytes()
}

/// One file in one language, mutated step by step.
struct Model {
    dialect: Dialect,
    items: Vec<Item>,
    /// A line that breaks the syntax, and where it goes (index into the rendered lines).
    broken: Option<(usize, String)>,
    ends: Ends,
    final_newline: bool,
    serial: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Python,
    TypeScript,
}

const PY_BODY: &[&str] = &[
    "return x",
    "x = x + {n}",
    "s = \"héllo wörld {n}\"",
    "# 日本語のコメント {n}",
    "if x > {n}:\n    x -= 1",
    "for i in range({n}):\n    x += i\n    continue",
    "emoji = '🦀 {n}'",
    "def helper_{n}(y):\n    return y * {n}",
    "\"\"\"Doc {n}: ünïcödé.\"\"\"",
    "with open(\"f{n}\") as handle:\n    pass",
    "match x:\n    case {n}:\n        x = 0\n    case _:\n        pass",
    "try:\n    x = 1 / x\nexcept ZeroDivisionError:\n    x = {n}",
    "größe_{n} = [\n    1,\n    2,\n]",
];

const PY_DECORATORS: &[&str] = &[
    "@staticmethod",
    "@property",
    "@functools.cache",
    "@app.route(\"/ß/{n}\")",
    "@overload",
];

const PY_BREAKS: &[&str] = &[
    "def broken(:",
    "x = (1,",
    "s = \"\"\"never closed",
    "class Half",
    "    return ]",
    "if x ==",
];

const TS_BODY: &[&str] = &[
    "return x;",
    "x = x + {n};",
    "const s = `héllo ${x} wörld {n}`;",
    "// 日本語のコメント {n}",
    "if (x > {n}) {\n  x -= 1;\n}",
    "for (const i of [1, 2, {n}]) {\n  x += i;\n}",
    "const helper{n} = (y: number): number => y * {n};",
    "let emoji = '🦀 {n}';",
    "/* block ümlaut {n} */",
    "function inner{n}(y: number) {\n  return y;\n}",
    "const obj = {\n  key: {n},\n  nested: { deep: 'ß' },\n};",
];

const TS_DECORATORS: &[&str] = &[
    "@Component({ selector: \"app-{n}\" })",
    "@Injectable()",
    "@sealed",
];

const TS_BREAKS: &[&str] = &[
    "function broken( {",
    "const z = (1,",
    "let t = `never ${closed",
    "if (x) {",
    "class {",
    "}}",
];

impl Model {
    fn new(dialect: Dialect, rng: &mut Rng) -> Self {
        let mut model = Self {
            dialect,
            items: Vec::new(),
            broken: None,
            ends: Ends::Lf,
            final_newline: true,
            serial: 0,
        };
        for _ in 0..4 {
            let item = model.item(rng);
            model.items.push(item);
        }
        model
    }

    fn next(&mut self) -> usize {
        self.serial += 1;
        self.serial
    }

    fn pick(&mut self, rng: &mut Rng, from: &[&str]) -> String {
        let n = self.next();
        from[rng.below(from.len())].replace("{n}", &n.to_string())
    }

    fn body_line(&mut self, rng: &mut Rng) -> String {
        match self.dialect {
            Dialect::Python => self.pick(rng, PY_BODY),
            Dialect::TypeScript => self.pick(rng, TS_BODY),
        }
    }

    fn decorator(&mut self, rng: &mut Rng) -> String {
        match self.dialect {
            Dialect::Python => self.pick(rng, PY_DECORATORS),
            Dialect::TypeScript => self.pick(rng, TS_DECORATORS),
        }
    }

    fn block(&mut self, rng: &mut Rng, prefix: &str) -> Block {
        let n = self.next();
        let body = (0..=rng.below(3)).map(|_| self.body_line(rng)).collect();
        Block {
            name: format!("{prefix}{n}"),
            decorators: Vec::new(),
            body,
        }
    }

    fn item(&mut self, rng: &mut Rng) -> Item {
        if rng.below(3) == 0 {
            let head = self.block(rng, "Klass");
            let methods = (0..=rng.below(3))
                .map(|_| self.block(rng, "méthode_"))
                .collect();
            Item::Class(head, methods)
        } else {
            Item::Function(self.block(rng, "func_"))
        }
    }

    /// A random block: a function, a class head or a method.
    fn any_block(&mut self, rng: &mut Rng) -> Option<&mut Block> {
        if self.items.is_empty() {
            return None;
        }
        let at = rng.below(self.items.len());
        let use_method = rng.below(2) == 0;
        let pick = rng.next_u64() as usize;
        match &mut self.items[at] {
            Item::Class(head, methods) => {
                if use_method && !methods.is_empty() {
                    let m = pick % methods.len();
                    Some(&mut methods[m])
                } else {
                    Some(head)
                }
            }
            Item::Function(block) => Some(block),
        }
    }

    fn mutate(&mut self, rng: &mut Rng) {
        if self.broken.is_some() && rng.below(2) == 0 {
            self.broken = None;
        }
        for _ in 0..=rng.below(3) {
            match rng.below(13) {
                0 | 1 => {
                    let line = self.body_line(rng);
                    if let Some(block) = self.any_block(rng) {
                        let at = rng.below(block.body.len() + 1);
                        block.body.insert(at, line);
                    }
                }
                2 => {
                    if let Some(block) = self.any_block(rng).filter(|b| b.body.len() > 1) {
                        let at = rng.below(block.body.len());
                        block.body.remove(at);
                    }
                }
                3 => {
                    let line = self.body_line(rng);
                    if let Some(block) = self.any_block(rng) {
                        let at = rng.below(block.body.len());
                        block.body[at] = line;
                    }
                }
                4 => {
                    let item = self.item(rng);
                    let at = rng.below(self.items.len() + 1);
                    self.items.insert(at, item);
                }
                5 => {
                    let method = self.block(rng, "méthode_");
                    let classes: Vec<usize> = (0..self.items.len())
                        .filter(|&i| matches!(self.items[i], Item::Class(..)))
                        .collect();
                    if !classes.is_empty() {
                        let at = classes[rng.below(classes.len())];
                        if let Item::Class(_, methods) = &mut self.items[at] {
                            let position = rng.below(methods.len() + 1);
                            methods.insert(position, method);
                        }
                    }
                }
                6 if self.items.len() > 1 => {
                    let at = rng.below(self.items.len());
                    match &mut self.items[at] {
                        Item::Class(_, methods) if methods.len() > 1 && rng.below(2) == 0 => {
                            let m = rng.below(methods.len());
                            methods.remove(m);
                        }
                        _ => {
                            self.items.remove(at);
                        }
                    }
                }
                7 => {
                    let decorator = self.decorator(rng);
                    if let Some(block) = self.any_block(rng) {
                        if block.decorators.is_empty() || rng.below(3) == 0 {
                            block.decorators.push(decorator);
                        } else if rng.below(2) == 0 {
                            block.decorators.pop();
                        } else {
                            block.decorators[0] = decorator;
                        }
                    }
                }
                8 => {
                    let n = self.next();
                    if let Some(block) = self.any_block(rng) {
                        block.name = format!("{}_{n}", block.name);
                    }
                }
                9 if self.broken.is_none() => {
                    let line = match self.dialect {
                        Dialect::Python => self.pick(rng, PY_BREAKS),
                        Dialect::TypeScript => self.pick(rng, TS_BREAKS),
                    };
                    self.broken = Some((rng.below(200), line));
                }
                10 => {
                    self.ends = match rng.below(3) {
                        0 => Ends::Lf,
                        1 => Ends::Crlf,
                        _ => Ends::Mixed,
                    };
                }
                11 => self.final_newline = !self.final_newline,
                _ if self.items.len() > 1 => {
                    let from = rng.below(self.items.len());
                    let item = self.items.remove(from);
                    let to = rng.below(self.items.len() + 1);
                    self.items.insert(to, item);
                }
                _ => {}
            }
        }
    }

    fn render(&self) -> Vec<u8> {
        let mut lines: Vec<String> = match self.dialect {
            Dialect::Python => vec!["# ünïcode header".to_owned(), "import functools".to_owned()],
            Dialect::TypeScript => vec!["import { x as y } from \"./ü\";".to_owned()],
        };
        for item in &self.items {
            lines.push(String::new());
            match (self.dialect, item) {
                (Dialect::Python, Item::Function(block)) => python_def(&mut lines, block, ""),
                (Dialect::Python, Item::Class(head, methods)) => {
                    decorate(&mut lines, &head.decorators, "");
                    lines.push(format!("class {}:", head.name));
                    indent(&mut lines, &head.body, "    ");
                    for method in methods {
                        lines.push(String::new());
                        python_def(&mut lines, method, "    ");
                    }
                }
                (Dialect::TypeScript, Item::Function(block)) => {
                    let export = if block.name.len() % 2 == 0 {
                        "export "
                    } else {
                        ""
                    };
                    lines.push(format!(
                        "{export}function {}(x: number): number {{",
                        block.name
                    ));
                    indent(&mut lines, &block.body, "  ");
                    lines.push("}".to_owned());
                }
                (Dialect::TypeScript, Item::Class(head, methods)) => {
                    decorate(&mut lines, &head.decorators, "");
                    lines.push(format!("export class {} {{", head.name));
                    lines.push(format!("  field{} = 1;", head.body.len()));
                    for (index, method) in methods.iter().enumerate() {
                        decorate(&mut lines, &method.decorators, "  ");
                        let modifier = ["", "static ", "async ", "get "][index % 4];
                        let params = if modifier == "get " { "" } else { "x: number" };
                        lines.push(format!("  {modifier}{}({params}) {{", method.name));
                        indent(&mut lines, &method.body, "    ");
                        lines.push("  }".to_owned());
                    }
                    lines.push("}".to_owned());
                }
            }
        }
        if let Some((at, line)) = &self.broken {
            lines.insert(at % (lines.len() + 1), line.clone());
        }
        join_lines(lines, self.ends, self.final_newline)
    }
}

fn decorate(lines: &mut Vec<String>, decorators: &[String], at: &str) {
    lines.extend(
        decorators
            .iter()
            .map(|decorator| format!("{at}{decorator}")),
    );
}

/// Body entries under `at`, each entry's inner lines at the same depth.
fn indent(lines: &mut Vec<String>, body: &[String], at: &str) {
    for entry in body {
        lines.extend(entry.split('\n').map(|line| format!("{at}{line}")));
    }
}

fn python_def(lines: &mut Vec<String>, block: &Block, at: &str) {
    decorate(lines, &block.decorators, at);
    lines.push(format!("{at}def {}(x):", block.name));
    indent(lines, &block.body, &format!("{at}    "));
}

/// One randomized history of one file; every version without a breaking line must parse
/// (so the generator writes valid code and the unparseable versions are the intended ones).
fn history(dialect: Dialect, seed: u64) -> Vec<Arc<[u8]>> {
    let mut rng = Rng::new(seed);
    let mut model = Model::new(dialect, &mut rng);
    let mut versions = Vec::new();
    for _ in 0..=STEPS {
        let version: Arc<[u8]> = Arc::from(model.render());
        if model.broken.is_none() {
            let language = match dialect {
                Dialect::Python => Language::Python,
                Dialect::TypeScript => Language::TypeScript,
            };
            let parsed = extract_as(language, &version);
            assert!(parsed.is_ok(), "{parsed:?}\n{}", show(&version));
        }
        versions.push(version);
        model.mutate(&mut rng);
    }
    versions
}

type Answer = Result<Vec<Unit>, ExtractError>;

/// `to`'s units reparsed from `from` with a fresh cache (splicing Python or not).
fn reparsed(
    language: Language,
    script: EditScript,
    splice: bool,
    from: &Arc<[u8]>,
    to: &Arc<[u8]>,
) -> Answer {
    let mut cache = ParseCache::new(script).splicing(splice);
    let _ = cache.extract(language, "file", from);
    cache.extract(language, "file", to)
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every consecutive pair in both directions, and the whole chain in both directions,
/// against the full parse. Returns (pairs checked, unparseable versions).
fn check_history(language: Language, versions: &[Arc<[u8]>]) -> (usize, usize) {
    let full: Vec<Answer> = versions.iter().map(|v| extract_as(language, v)).collect();
    let mut pairs = 0;
    let modes = [
        (EditScript::LineHunks, false),
        (EditScript::CommonEnds, false),
        (EditScript::LineHunks, true),
    ];
    for (script, splice) in modes {
        for (index, pair) in versions.windows(2).enumerate() {
            let (old, new) = (&pair[0], &pair[1]);
            assert_eq!(
                reparsed(language, script, splice, old, new),
                full[index + 1],
                "{language:?} {script:?} (splice {splice}) old → new at step {index}\n--- old\n{}\n--- new\n{}",
                show(old),
                show(new)
            );
            assert_eq!(
                reparsed(language, script, splice, new, old),
                full[index],
                "{language:?} {script:?} (splice {splice}) new → old at step {index}\n--- old\n{}\n--- new\n{}",
                show(new),
                show(old)
            );
            pairs += 2;
        }
        for backwards in [false, true] {
            let mut cache = ParseCache::new(script).splicing(splice);
            let order: Vec<usize> = if backwards {
                (0..versions.len()).rev().collect()
            } else {
                (0..versions.len()).collect()
            };
            for index in order {
                assert_eq!(
                    cache.extract(language, "file", &versions[index]),
                    full[index],
                    "{language:?} {script:?} chain (backwards: {backwards}) at version {index}\n{}",
                    show(&versions[index])
                );
            }
            let counts = cache.counts();
            assert!(
                counts.incremental + counts.spliced >= versions.len() as u64 / 2,
                "the chain should reparse incrementally or splice: {counts:?}"
            );
        }
    }
    let broken = full.iter().filter(|answer| answer.is_err()).count();
    (pairs, broken)
}

#[test]
fn incremental_units_equal_full_parse_units_on_random_python_histories() {
    let (mut pairs, mut broken, mut total) = (0, 0, 0);
    for seed in 0..6 {
        let versions = history(Dialect::Python, 0x5EED_0000 + seed);
        let (checked, unparseable) = check_history(Language::Python, &versions);
        pairs += checked;
        broken += unparseable;
        total += versions.len();
    }
    assert!(pairs > 1000, "{pairs}");
    // Both parseable and unparseable versions must be exercised.
    assert!(broken > 0 && broken < total / 2, "{broken} of {total}");
}

#[test]
fn incremental_units_equal_full_parse_units_on_random_typescript_histories() {
    let (mut pairs, mut broken, mut total) = (0, 0, 0);
    for seed in 0..6 {
        let versions = history(Dialect::TypeScript, 0x7500_0000 + seed);
        for language in [Language::TypeScript, Language::Tsx] {
            let (checked, unparseable) = check_history(language, &versions);
            pairs += checked;
            broken += unparseable;
            total += versions.len();
        }
    }
    assert!(pairs > 2000, "{pairs}");
    assert!(broken > 0 && broken < total / 2, "{broken} of {total}");
}

#[test]
fn histories_include_crlf_and_non_ascii_versions() {
    for (dialect, seed) in [
        (Dialect::Python, 0x5EED_0000),
        (Dialect::TypeScript, 0x7500_0000),
    ] {
        let versions = history(dialect, seed);
        let crlf = versions
            .iter()
            .filter(|v| v.windows(2).any(|w| w == b"\r\n"));
        assert!(crlf.count() > 0);
        assert!(versions.iter().all(|v| !v.is_ascii()));
    }
}

/// A lint reparses historical images incrementally: `image_units` goes through the
/// database's parse cache of this thread (lint on one thread runs on this one), which
/// splices Python.
#[test]
fn a_lint_reparses_historical_images_incrementally() {
    let mut repo = repo();
    let mut rng = Rng::new(42);
    let mut model = Model::new(Dialect::Python, &mut rng);
    model.broken = None;
    let node = spec(&["app.py#func_1"], &[]);
    commit(
        &mut repo,
        &[
            ("app.py", &show(&model.render())),
            (".spec/node/spec.md", &node),
        ],
        "v1",
    );
    for step in 0..12 {
        model.mutate(&mut rng);
        commit(
            &mut repo,
            &[("app.py", &show(&model.render()))],
            &format!("step {step}"),
        );
    }
    let db = KeelDatabase::open(repo.path()).expect("fixture repository opens");
    let _ = lint(&db).expect("fixture specs are valid");
    let after = thread_parse_counts(db.hints());
    assert!(
        after.spliced >= 6,
        "historical images should be spliced: {after:?}"
    );
}

#[test]
fn a_version_decoded_from_its_coding_cookie_is_parsed_from_scratch_and_never_kept() {
    let versions: [&[u8]; 3] = [
        b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    return 1\n",
        b"# -*- coding: latin-1 -*-\ndef caf\xe9():\n    return 2\n",
        // ASCII: its text is its bytes, so it may be parsed with a hint (there is none).
        b"# -*- coding: latin-1 -*-\ndef cafe():\n    return 2\n",
    ];
    let mut cache = ParseCache::default();
    for version in versions {
        let content: Arc<[u8]> = Arc::from(version);
        let units = cache.extract(Language::Python, "m.py", &content);
        assert_eq!(
            units,
            extract_as(Language::Python, &content),
            "{}",
            show(version)
        );
        assert!(
            matches!(units, Ok(ref units) if units.len() == 1),
            "{units:?}"
        );
    }
    let counts = cache.counts();
    assert_eq!(
        (counts.full, counts.incremental, counts.spliced),
        (3, 0, 0),
        "{counts:?}"
    );
}
