//! Module specifiers to files of a [`Sources`]: relative paths with the extensions and
//! `index` files TypeScript tries, and `tsconfig.json` `baseUrl`/`paths` when the nearest
//! one sets them.
//!
//! Owns: a module's interface as a tree holds it ([`module_exports`]), what a specifier
//! names ([`Target`]), per file of a tree ([`module_specs`]), and reading `tsconfig.json`
//! (JSON with comments and trailing commas: [`ts_config`]).
//! Does not own: what a module exports (`facts`) or what a name in it resolves to
//! (`resolve`).
//!
//! A bare specifier (`react`, `@scope/pkg`, `fs`, `node:fs`) that no `paths` pattern or
//! `baseUrl` maps to a file of the tree names a package or a Node builtin: external. A
//! relative specifier of a non-JS/TS file (`./styles.css`, `./data.json`) is external
//! too (an asset or another language). A relative specifier that names no file of the
//! tree is [`Target::Missing`]: the calls through it are unresolved.

use super::facts::{ExportTable, ts_exports};
use crate::callgraph::TreeFiles as _;
use crate::callgraph::{Sources, tree_paths};
use crate::extract::Language;
use crate::images::{Image, image_bytes};
use keel_engine::Db;

/// What a specifier names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// The file at this path of the tree.
    Module(String),
    /// A package, a Node builtin or a non-code file.
    External,
    /// A relative path that names no file of the tree.
    Missing,
}

/// A module's interface as the tree holds it: [`ts_exports`] of the file at `path`. A
/// query per (tree, path), so that when the tree is set to new files, a file whose new
/// image has an equal interface backdates here and no other file's answers re-run. A file
/// past the tree's bound exports nothing (it is not parsed).
#[salsa::tracked(returns(ref))]
pub fn module_exports(db: &dyn Db, tree: Sources, path: String) -> Option<ExportTable> {
    tree.image(db, &path).map(|image| {
        if tree.past_bound(db, image) {
            ExportTable::default()
        } else {
            ts_exports(db, image).clone()
        }
    })
}

/// Every specifier the module at `path` names, with its target, sorted by specifier.
/// Memoized per (tree, path): the modules a resolution walks through share it.
#[salsa::tracked(returns(ref))]
pub fn module_specs(db: &dyn Db, tree: Sources, path: String) -> Vec<(String, Target)> {
    let Some(table) = module_exports(db, tree, path.clone()) else {
        return Vec::new();
    };
    let config = nearest_config(db, tree, &path);
    table
        .specs
        .iter()
        .map(|spec| {
            let target = resolve_spec(tree_paths(db, tree), &path, spec, config.as_ref());
            (spec.clone(), target)
        })
        .collect()
}

/// The target of `spec` in the module at `path` (memoized through [`module_specs`]).
pub(crate) fn target(db: &dyn Db, tree: Sources, path: &str, spec: &str) -> Target {
    let specs = module_specs(db, tree, path.to_owned());
    match specs.binary_search_by(|(known, _)| known.as_str().cmp(spec)) {
        Ok(at) => specs[at].1.clone(),
        Err(_) => {
            let config = nearest_config(db, tree, path);
            resolve_spec(tree_paths(db, tree), path, spec, config.as_ref())
        }
    }
}

/// What `tsconfig.json` says about module paths.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct TsConfig {
    /// `extends` (one or several), as written.
    pub(crate) extends: Vec<String>,
    /// `compilerOptions.baseUrl`, as written.
    pub(crate) base_url: Option<String>,
    /// `compilerOptions.paths`: pattern → substitutions, in file order.
    pub(crate) paths: Option<Vec<(String, Vec<String>)>>,
}

/// The module-path settings of one `tsconfig.json` image; unreadable or malformed
/// content reads as no settings (TypeScript would refuse the project; keel resolves
/// relative paths without them).
#[salsa::tracked(returns(ref))]
pub(crate) fn ts_config<'db>(db: &'db dyn Db, image: Image<'db>) -> TsConfig {
    image_bytes(db, image)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok())
        .and_then(|text| jsonc::parse(&text))
        .map(|json| config_of(&json))
        .unwrap_or_default()
}

fn config_of(json: &jsonc::Json) -> TsConfig {
    let extends = match json.get("extends") {
        Some(jsonc::Json::Str(one)) => vec![one.clone()],
        Some(jsonc::Json::Arr(several)) => several
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let options = json.get("compilerOptions");
    let base_url = options
        .and_then(|options| options.get("baseUrl"))
        .and_then(jsonc::Json::as_str)
        .map(str::to_owned);
    let paths = options
        .and_then(|options| options.get("paths"))
        .and_then(|paths| match paths {
            jsonc::Json::Obj(entries) => Some(
                entries
                    .iter()
                    .map(|(pattern, targets)| {
                        let targets = match targets {
                            jsonc::Json::Arr(items) => items
                                .iter()
                                .filter_map(|item| item.as_str().map(str::to_owned))
                                .collect(),
                            _ => Vec::new(),
                        };
                        (pattern.clone(), targets)
                    })
                    .collect(),
            ),
            _ => None,
        });
    TsConfig {
        extends,
        base_url,
        paths,
    }
}

/// The settings that apply to a file, `extends` followed (relative ones only: a package's
/// config is outside the tree), paths made repository-relative.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Effective {
    /// The folder `baseUrl` names.
    base_url: Option<String>,
    /// The `paths` patterns and the folder their substitutions are relative to.
    paths: Vec<(String, Vec<String>)>,
    paths_base: String,
}

/// The nearest `tsconfig.json` in the folders holding `path` (TypeScript picks the
/// project whose `include` holds the file; the nearest config is that project in the
/// usual layouts), with its `extends` chain applied.
fn nearest_config(db: &dyn Db, tree: Sources, path: &str) -> Option<Effective> {
    let mut dir = parent(path);
    loop {
        let candidate = join(dir, "tsconfig.json");
        if tree.blob(db, &candidate).is_some() {
            return Some(effective(db, tree, &candidate, 0));
        }
        if dir.is_empty() {
            return None;
        }
        dir = parent(dir);
    }
}

/// Deepest `extends` chain followed.
const MAX_EXTENDS: u32 = 8;

fn effective(db: &dyn Db, tree: Sources, config_path: &str, depth: u32) -> Effective {
    let Some(image) = tree.image(db, config_path) else {
        return Effective::default();
    };
    let config = ts_config(db, image);
    let dir = parent(config_path);
    let mut result = Effective::default();
    if depth < MAX_EXTENDS {
        for base in &config.extends {
            if !base.starts_with('.') {
                continue;
            }
            let Some(mut base_path) = normalize(&join(dir, base)) else {
                continue;
            };
            if tree.blob(db, &base_path).is_none() && !base_path.ends_with(".json") {
                base_path.push_str(".json");
            }
            if tree.blob(db, &base_path).is_some() {
                let inherited = effective(db, tree, &base_path, depth + 1);
                if inherited.base_url.is_some() {
                    result.base_url = inherited.base_url;
                }
                if !inherited.paths.is_empty() {
                    result.paths = inherited.paths;
                    result.paths_base = inherited.paths_base;
                }
            }
        }
    }
    if let Some(base_url) = &config.base_url {
        result.base_url = normalize(&join(dir, base_url));
    }
    if let Some(paths) = &config.paths {
        result.paths.clone_from(paths);
        result.paths_base = dir.to_owned();
    }
    // `paths` substitutions are relative to `baseUrl` when one is set.
    if let Some(base_url) = &result.base_url
        && !result.paths.is_empty()
    {
        result.paths_base.clone_from(base_url);
    }
    result
}

/// The target of `spec` written in the file at `from`, among `files` (sorted paths).
pub(crate) fn resolve_spec(
    paths: &[String],
    from: &str,
    spec: &str,
    config: Option<&Effective>,
) -> Target {
    let exists = |path: &str| {
        paths
            .binary_search_by(|known| known.as_str().cmp(path))
            .is_ok()
    };
    if spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../") {
        let Some(base) = normalize(&join(parent(from), spec)) else {
            return Target::Missing;
        };
        return match find_file(&base, &exists) {
            Some(found) => Target::Module(found),
            None if is_asset(&base) => Target::External,
            None => Target::Missing,
        };
    }
    if spec.starts_with('/') {
        return Target::Missing;
    }
    if let Some(config) = config {
        if let Some(found) = via_paths(config, spec, &exists) {
            return Target::Module(found);
        }
        if let Some(base_url) = &config.base_url
            && let Some(base) = normalize(&join(base_url, spec))
            && let Some(found) = find_file(&base, &exists)
        {
            return Target::Module(found);
        }
    }
    Target::External
}

/// The file a `paths` pattern maps `spec` to: exact patterns first, then the wildcard
/// pattern with the longest prefix, its substitutions in order.
fn via_paths(config: &Effective, spec: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut best: Option<(usize, &str, &[String])> = None;
    for (pattern, targets) in &config.paths {
        match pattern.split_once('*') {
            None if pattern == spec => {
                best = Some((usize::MAX, "", targets));
                break;
            }
            None => {}
            Some((prefix, suffix)) => {
                let matches = spec.len() >= prefix.len() + suffix.len()
                    && spec.starts_with(prefix)
                    && spec.ends_with(suffix);
                if matches && best.is_none_or(|(length, ..)| prefix.len() > length) {
                    let captured = &spec[prefix.len()..spec.len() - suffix.len()];
                    best = Some((prefix.len(), captured, targets));
                }
            }
        }
    }
    let (_, captured, targets) = best?;
    targets.iter().find_map(|target| {
        let substituted = target.replacen('*', captured, 1);
        let base = normalize(&join(&config.paths_base, &substituted))?;
        find_file(&base, exists)
    })
}

/// Extensions tried after a path without one, in order (code before declarations).
const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs", ".cts", ".cjs", ".d.ts",
];

/// The file a module path names: itself (with a source extension), the TypeScript file
/// a `.js` specifier stands for, the path with an extension, or its `index` file.
fn find_file(base: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    let base = base.trim_end_matches('/');
    if Language::for_path(base).is_some() && exists(base) {
        return Some(base.to_owned());
    }
    for (written, source) in [
        (".js", ".ts"),
        (".js", ".tsx"),
        (".jsx", ".tsx"),
        (".mjs", ".mts"),
        (".cjs", ".cts"),
    ] {
        if let Some(stem) = base.strip_suffix(written) {
            let candidate = format!("{stem}{source}");
            if exists(&candidate) {
                return Some(candidate);
            }
        }
    }
    for extension in EXTENSIONS {
        let candidate = format!("{base}{extension}");
        if exists(&candidate) {
            return Some(candidate);
        }
    }
    for extension in EXTENSIONS {
        let candidate = join(base, &format!("index{extension}"));
        if exists(&candidate) {
            return Some(candidate);
        }
    }
    None
}

/// A path whose last segment has an extension keel does not read as code.
fn is_asset(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.')
        .is_some_and(|(stem, _)| !stem.is_empty() && Language::for_path(file).is_none())
}

/// The folder of a path (`""` at the root).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn join(dir: &str, relative: &str) -> String {
    if dir.is_empty() {
        relative.to_owned()
    } else {
        format!("{dir}/{relative}")
    }
}

/// `a/./b/../c` → `a/c`; `None` when `..` leaves the repository.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// JSON with comments and trailing commas, as `tsconfig.json` is written.
mod jsonc {
    #[derive(Debug, Clone, PartialEq)]
    pub(super) enum Json {
        Null,
        Bool(bool),
        Num,
        Str(String),
        Arr(Vec<Json>),
        Obj(Vec<(String, Json)>),
    }

    impl Json {
        pub(super) fn get(&self, key: &str) -> Option<&Self> {
            match self {
                Self::Obj(entries) => entries
                    .iter()
                    .rev()
                    .find(|(known, _)| known == key)
                    .map(|(_, value)| value),
                _ => None,
            }
        }

        pub(super) fn as_str(&self) -> Option<&str> {
            match self {
                Self::Str(text) => Some(text),
                _ => None,
            }
        }
    }

    /// Deepest nesting read.
    const MAX_DEPTH: u32 = 64;

    /// The document, or `None` when it is not JSON (comments and trailing commas aside).
    pub(super) fn parse(text: &str) -> Option<Json> {
        let mut parser = Parser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = parser.value(0)?;
        parser.skip();
        (parser.at == parser.bytes.len()).then_some(value)
    }

    struct Parser<'t> {
        bytes: &'t [u8],
        at: usize,
    }

    impl Parser<'_> {
        fn peek(&self) -> Option<u8> {
            self.bytes.get(self.at).copied()
        }

        /// Skips whitespace and comments.
        fn skip(&mut self) {
            loop {
                match (self.peek(), self.bytes.get(self.at + 1).copied()) {
                    (Some(b' ' | b'\t' | b'\n' | b'\r'), _) => self.at += 1,
                    (Some(b'/'), Some(b'/')) => {
                        while self.peek().is_some_and(|byte| byte != b'\n') {
                            self.at += 1;
                        }
                    }
                    (Some(b'/'), Some(b'*')) => {
                        self.at += 2;
                        while self.at < self.bytes.len()
                            && !(self.peek() == Some(b'*')
                                && self.bytes.get(self.at + 1) == Some(&b'/'))
                        {
                            self.at += 1;
                        }
                        self.at = (self.at + 2).min(self.bytes.len());
                    }
                    _ => return,
                }
            }
        }

        fn value(&mut self, depth: u32) -> Option<Json> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.skip();
            match self.peek()? {
                b'{' => {
                    self.at += 1;
                    let mut entries = Vec::new();
                    loop {
                        self.skip();
                        if self.peek()? == b'}' {
                            self.at += 1;
                            return Some(Json::Obj(entries));
                        }
                        let key = self.string()?;
                        self.skip();
                        if self.peek()? != b':' {
                            return None;
                        }
                        self.at += 1;
                        let value = self.value(depth + 1)?;
                        entries.push((key, value));
                        self.skip();
                        match self.peek()? {
                            b',' => self.at += 1,
                            b'}' => {}
                            _ => return None,
                        }
                    }
                }
                b'[' => {
                    self.at += 1;
                    let mut items = Vec::new();
                    loop {
                        self.skip();
                        if self.peek()? == b']' {
                            self.at += 1;
                            return Some(Json::Arr(items));
                        }
                        items.push(self.value(depth + 1)?);
                        self.skip();
                        match self.peek()? {
                            b',' => self.at += 1,
                            b']' => {}
                            _ => return None,
                        }
                    }
                }
                b'"' => self.string().map(Json::Str),
                b't' => self.word("true", Json::Bool(true)),
                b'f' => self.word("false", Json::Bool(false)),
                b'n' => self.word("null", Json::Null),
                b'-' | b'0'..=b'9' => {
                    while self.peek().is_some_and(|byte| {
                        matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    }) {
                        self.at += 1;
                    }
                    Some(Json::Num)
                }
                _ => None,
            }
        }

        fn word(&mut self, word: &str, value: Json) -> Option<Json> {
            let end = self.at + word.len();
            (self.bytes.get(self.at..end) == Some(word.as_bytes())).then(|| {
                self.at = end;
                value
            })
        }

        fn string(&mut self) -> Option<String> {
            if self.peek()? != b'"' {
                return None;
            }
            self.at += 1;
            let mut out = Vec::new();
            loop {
                let byte = self.peek()?;
                self.at += 1;
                match byte {
                    b'"' => return String::from_utf8(out).ok(),
                    b'\\' => {
                        let escaped = self.peek()?;
                        self.at += 1;
                        match escaped {
                            b'n' => out.push(b'\n'),
                            b't' => out.push(b'\t'),
                            b'r' => out.push(b'\r'),
                            b'b' => out.push(0x08),
                            b'f' => out.push(0x0c),
                            b'u' => {
                                let hex = self.bytes.get(self.at..self.at + 4)?;
                                self.at += 4;
                                let code =
                                    u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                                let c = char::from_u32(code).unwrap_or('\u{fffd}');
                                let mut buffer = [0; 4];
                                out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                            }
                            other => out.push(other),
                        }
                    }
                    other => out.push(other),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(paths: &[&str]) -> Vec<String> {
        let mut files: Vec<String> = paths.iter().map(|path| (*path).to_owned()).collect();
        files.sort();
        files
    }

    #[test]
    fn relative_specifiers_try_extensions_then_index_files() {
        let files = files(&[
            "src/a.ts",
            "src/b.tsx",
            "src/c.js",
            "src/lib/index.ts",
            "src/esm.ts",
            "src/d.d.ts",
        ]);
        let cases = [
            ("./a", Target::Module("src/a.ts".to_owned())),
            ("./b", Target::Module("src/b.tsx".to_owned())),
            ("./c", Target::Module("src/c.js".to_owned())),
            ("./c.js", Target::Module("src/c.js".to_owned())),
            ("./esm.js", Target::Module("src/esm.ts".to_owned())),
            ("./lib", Target::Module("src/lib/index.ts".to_owned())),
            ("./lib/", Target::Module("src/lib/index.ts".to_owned())),
            ("../src/a", Target::Module("src/a.ts".to_owned())),
            ("./d", Target::Module("src/d.d.ts".to_owned())),
            ("./gone", Target::Missing),
            ("../../outside", Target::Missing),
            ("./styles.css", Target::External),
            ("react", Target::External),
            ("node:fs", Target::External),
            ("fs", Target::External),
        ];
        for (spec, expected) in cases {
            assert_eq!(
                resolve_spec(&files, "src/main.ts", spec, None),
                expected,
                "{spec}"
            );
        }
    }

    #[test]
    fn paths_and_base_url_map_bare_specifiers_into_the_tree() {
        let files = files(&["src/app/util.ts", "src/lib/core/index.ts", "shared/x.ts"]);
        let config = Effective {
            base_url: Some("src".to_owned()),
            paths: vec![
                ("@lib/*".to_owned(), vec!["lib/*".to_owned()]),
                ("@shared".to_owned(), vec!["../shared/x".to_owned()]),
            ],
            paths_base: "src".to_owned(),
        };
        let resolve = |spec| resolve_spec(&files, "src/app/main.ts", spec, Some(&config));
        assert_eq!(
            resolve("@lib/core"),
            Target::Module("src/lib/core/index.ts".to_owned())
        );
        assert_eq!(resolve("@shared"), Target::Module("shared/x.ts".to_owned()));
        assert_eq!(
            resolve("app/util"),
            Target::Module("src/app/util.ts".to_owned())
        );
        assert_eq!(resolve("@lib/none"), Target::External);
        assert_eq!(resolve("lodash"), Target::External);
    }

    #[test]
    fn tsconfig_reads_with_comments_and_trailing_commas() {
        let text = r#"{
  // a comment
  "extends": "./base.json",
  "compilerOptions": {
    /* block */ "baseUrl": ".",
    "paths": { "@/*": ["src/*",], },
    "strict": true, "target": -1.5e3, "lib": null,
  },
}"#;
        let config = config_of(&jsonc::parse(text).expect("parses"));
        assert_eq!(
            config,
            TsConfig {
                extends: vec!["./base.json".to_owned()],
                base_url: Some(".".to_owned()),
                paths: Some(vec![("@/*".to_owned(), vec!["src/*".to_owned()])]),
            }
        );
        assert_eq!(jsonc::parse("{\"a\": }"), None);
        assert_eq!(
            jsonc::parse("\"\\u00e9\\n\""),
            Some(jsonc::Json::Str("é\n".to_owned()))
        );
    }
}
