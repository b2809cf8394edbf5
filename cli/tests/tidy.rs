//! Tidy checks on the source tree: every Rust file opens with a `//!` doc saying what it
//! owns, the crate dependency direction (cli → queries → engine) holds, git tracks no
//! binary file, and no two files of a crate import from each other, directly or around a
//! circle.
//!
//! Does not own: formatting and lints (`cargo fmt`, `cargo clippy` in `.ci/run`), or the
//! snapshots' upkeep (`.ci/run` checks every snapshot file is asserted).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives inside the workspace")
        .to_owned()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_source_file_opens_with_a_module_doc() {
    let root = workspace();
    let mut files = Vec::new();
    for krate in ["engine", "queries", "cli", "fixtures", "benches"] {
        for folder in ["src", "tests", "benches"] {
            rust_files(&root.join(krate).join(folder), &mut files);
        }
    }
    assert!(
        files.len() > 20,
        "the walk found the sources: {}",
        files.len()
    );
    let missing: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).expect("sources are UTF-8");
            !text.trim_start().starts_with("//!")
        })
        .map(|path| {
            path.strip_prefix(&root)
                .unwrap_or(path)
                .display()
                .to_string()
        })
        .collect();
    assert!(
        missing.is_empty(),
        "files without a `//!` opening doc: {missing:?}"
    );
}

/// The names under `[dependencies]` of a crate's manifest.
fn dependencies(krate: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(workspace().join(krate).join("Cargo.toml"))
        .expect("every crate has a manifest");
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && let Some((name, _)) = line.split_once('=') {
            names.push(name.trim().trim_end_matches(".workspace").to_owned());
        }
    }
    names
}

#[test]
fn dependencies_point_from_cli_to_queries_to_engine() {
    let queries = dependencies("queries");
    assert!(queries.contains(&"keel-engine".to_owned()), "{queries:?}");
    assert!(
        !queries.iter().any(|d| d == "gix" || d == "keel"),
        "keel-queries reads git only through keel-engine and never depends on the CLI: {queries:?}"
    );
    let engine = dependencies("engine");
    assert!(
        !engine.iter().any(|d| d.starts_with("keel")),
        "keel-engine depends on no other keel crate: {engine:?}"
    );
}

/// Whether a file's bytes are binary, as git guesses it: a NUL byte in the first 8 KiB.
fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8 * 1024).any(|b| *b == 0)
}

#[test]
fn no_tracked_file_is_binary() {
    let cases: [(&[u8], bool); 5] = [
        (b"fn main() {}\n", false),
        ("caf\u{e9} \u{2014} \u{1f600}\n".as_bytes(), false),
        (b"", false),
        (b"PK\x03\x04\x14\x00\x00\x00", true),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", true),
    ];
    for (bytes, binary) in cases {
        assert_eq!(is_binary(bytes), binary, "{bytes:?}");
    }
    let mut late = vec![b'a'; 8 * 1024];
    late.push(0);
    assert!(
        !is_binary(&late),
        "only the first 8 KiB are read, as git does"
    );

    let root = workspace();
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&root)
        .output()
        .expect("git runs in the workspace");
    assert!(listed.status.success(), "git ls-files: {listed:?}");
    let paths: Vec<&[u8]> = listed
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .collect();
    assert!(paths.len() > 100, "git lists the sources: {}", paths.len());
    let binary: Vec<String> = paths
        .into_iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|path| {
            // A path deleted from the working tree but still in the index has no bytes.
            std::fs::read(root.join(path)).is_ok_and(|bytes| is_binary(&bytes))
        })
        .collect();
    assert!(
        binary.is_empty(),
        "binary files are tracked (build them in tests, or keep them out of git): {binary:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Import circles between files.
//
// A textual reading of each crate's `src/`, good enough for this codebase and no more:
// - modules come from `mod name;` declarations followed from `lib.rs`/`main.rs` to
//   `name.rs` or `name/mod.rs` (no `#[path]`), and inline `mod name { … }` blocks belong to
//   the file that holds them;
// - `#[cfg(test)]` items (test modules, inline or in their own file) are left out, as are
//   the `tests/` folders: test code is not part of the house;
// - an import edge is a `use` line (with its `{…}` groups expanded) or a path written in
//   code, that starts with `crate::`, `super::`, `self::` or a child module declared in the
//   same file; it points at the file of the longest prefix of the path that is a module
//   with a file (`use crate::x::y::Z` → `x/y.rs` or `x/y/mod.rs`, else `x.rs`, …). Paths
//   through a name brought in by another `use` (`syntax::text` after `use super::syntax`)
//   are already counted by that `use`; `use` and `super` inside an inline module are read
//   as if they were at the file's level; macros' token trees are read like code;
// - `mod` declarations are not edges, and neither is a file's import from its own parent or
//   another ancestor (`use super::Thing`, `use crate::Thing` from the crate root's file):
//   a folder module's file is the face of its children, and they may use what it holds.
//   So a face that re-exports (`pub use`) from a child that imports from the face is not
//   counted on its own (every crate root does so, and most folder modules); a circle that
//   leaves the folder and comes back through its face is (`commands/mod.rs` →
//   `commands/replay.rs` → `replay_html.rs` → `commands/mod.rs`);
// - an import points at the file that names the item, not followed through re-exports:
//   `crate::Oid` is the crate root's file, so a circle closed only through a re-export of
//   the crate root or a folder's face (`crate::ChangeEvent` from `database.rs`, which
//   `changes.rs` imports from) is not seen.
// ---------------------------------------------------------------------------------------

/// `text` with comments, string and character literals blanked out (newlines kept), so
/// what remains is code to search for paths and braces.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && next == Some('r')))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
            && {
                let start = if c == 'b' { i + 2 } else { i + 1 };
                let hashes = chars[start..].iter().take_while(|h| **h == '#').count();
                chars.get(start + hashes) == Some(&'"')
            }
        {
            // A raw string: r"…", r#"…"#, br"…".
            let start = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = chars[start..].iter().take_while(|h| **h == '#').count();
            let body = start + hashes + 1;
            out.extend(std::iter::repeat_n(' ', body - i));
            i = body;
            while i < chars.len() {
                if chars[i] == '"'
                    && chars[i + 1..].iter().take_while(|h| **h == '#').count() >= hashes
                {
                    out.extend(std::iter::repeat_n(' ', 1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' || (c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')))
        {
            // A string, or a character literal ('x', '\n', '\u{7f}'); a lifetime has no
            // closing quote.
            i = blank_quoted(&chars, i, &mut out);
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `c` blanked: a line break stays, so lines keep their numbers.
fn blank(c: char) -> char {
    if c == '\n' { '\n' } else { ' ' }
}

/// Blanks the quoted literal opening at `chars[start]` (a `"` string or a `'` character,
/// escapes included) into `out`; the index after its closing quote.
fn blank_quoted(chars: &[char], start: usize, out: &mut String) -> usize {
    let quote = chars[start];
    out.push(' ');
    let mut i = start + 1;
    while i < chars.len() && chars[i] != quote {
        if chars[i] == '\\' {
            out.push(' ');
            i += 1;
        }
        if i < chars.len() {
            out.push(blank(chars[i]));
            i += 1;
        }
    }
    out.push(' ');
    i + 1
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The byte index just past the item that starts at `from`: its matching `}` when a `{`
/// comes before any `;`, else its `;`.
fn item_end(code: &str, from: usize) -> usize {
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    for (at, &b) in bytes.iter().enumerate().skip(from) {
        match b {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && b == b'}' {
                    return at + 1;
                }
            }
            b';' if depth == 0 => return at + 1,
            _ => {}
        }
    }
    code.len()
}

/// The byte index just past the `]` that closes the attribute starting at `from` (`#[`).
fn attribute_end(code: &str, from: usize) -> usize {
    let mut depth = 0usize;
    for (at, b) in code.bytes().enumerate().skip(from + 1) {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// `code` without its `#[cfg(test)]` items (blanked, newlines kept).
fn without_test_items(code: &str) -> String {
    let mut code = code.to_owned();
    while let Some(start) = code.find("#[cfg(test)]") {
        let mut end = start + "#[cfg(test)]".len();
        // Further attributes on the same item.
        while code[end..].trim_start().starts_with("#[") {
            let at = end + code[end..].find("#[").unwrap_or(0);
            end = attribute_end(&code, at);
        }
        let end = item_end(&code, end);
        let blanked: String = code[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        code.replace_range(start..end, &blanked);
    }
    code
}

/// The full paths a `use` tree names: `a::{b, c::{d as e, self}}` → `a::b`, `a::c::d`,
/// `a::c`. A glob keeps the path up to it.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in tree.chars() {
        if is_ident(c) {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if matches!(c, '{' | '}' | ',' | '*') {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    fn tree_at(tokens: &[String], at: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        while *at < tokens.len() {
            let token = tokens[*at].as_str();
            *at += 1;
            match token {
                "{" => {
                    loop {
                        tree_at(tokens, at, &path, out);
                        match tokens.get(*at).map(String::as_str) {
                            Some(",") => *at += 1,
                            Some("}") => {
                                *at += 1;
                                break;
                            }
                            _ => break,
                        }
                        if tokens.get(*at).map(String::as_str) == Some("}") {
                            *at += 1;
                            break;
                        }
                    }
                    return;
                }
                "," | "}" => {
                    *at -= 1;
                    break;
                }
                "*" => {}
                "as" => *at += 1,
                "self" if !path.is_empty() => {}
                _ => path.push(token.to_owned()),
            }
        }
        if !path.is_empty() {
            out.push(path);
        }
    }
    let mut out = Vec::new();
    let mut at = 0;
    tree_at(&tokens, &mut at, &[], &mut out);
    out
}

/// One file of a crate's module tree.
struct ModuleFile {
    /// Relative to the workspace root, with `/` separators.
    name: String,
    /// Its module path from the crate root (`["commands", "replay"]`).
    module: Vec<String>,
    /// Its code without comments, literals and test items.
    code: String,
}

/// The (non-test) module files of one crate's `src/`, from its root file down.
fn module_files(root: &Path, krate: &str) -> Vec<ModuleFile> {
    let src = root.join(krate).join("src");
    let top = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .find(|f| f.is_file())
        .expect("a crate has lib.rs or main.rs");
    let mut files = Vec::new();
    let mut pending = vec![(top, src.clone(), Vec::new())];
    while let Some((file, dir, module)) = pending.pop() {
        let text = std::fs::read_to_string(&file).expect("sources are UTF-8");
        let code = without_test_items(&code_only(&text));
        for line in code.lines() {
            let line = line.trim();
            let decl = line
                .strip_prefix("pub ")
                .or_else(|| line.strip_prefix("pub(crate) "))
                .or_else(|| line.strip_prefix("pub(super) "))
                .unwrap_or(line);
            let Some(name) = decl.strip_prefix("mod ").and_then(|d| d.strip_suffix(';')) else {
                continue;
            };
            let name = name.trim();
            let child = [
                dir.join(format!("{name}.rs")),
                dir.join(name).join("mod.rs"),
            ]
            .into_iter()
            .find(|f| f.is_file())
            .unwrap_or_else(|| panic!("`mod {name};` in {} has a file", file.display()));
            let mut child_module = module.clone();
            child_module.push(name.to_owned());
            pending.push((child, dir.join(name), child_module));
        }
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        files.push(ModuleFile { name, module, code });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

/// The child modules a file's code declares (`mod name;` or inline `mod name {`).
fn declared_children(code: &str) -> Vec<String> {
    let mut children = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("mod ") {
        let before = rest[..at].chars().last();
        let after = &rest[at + 4..];
        rest = after;
        if before.is_some_and(is_ident) {
            continue;
        }
        let name: String = after.chars().take_while(|c| is_ident(*c)).collect();
        let tail = after[name.len()..].trim_start();
        if !name.is_empty() && (tail.starts_with(';') || tail.starts_with('{')) {
            children.push(name);
        }
    }
    children
}

/// The paths one file's `use` items name, and `code` with those items blanked.
fn use_items(code: &str) -> (Vec<Vec<String>>, String) {
    let mut paths = Vec::new();
    let mut rest = code.to_owned();
    let mut search = 0;
    while let Some(found) = rest[search..].find("use ") {
        let at = search + found;
        search = at + 4;
        if rest[..at].chars().last().is_some_and(is_ident) {
            continue;
        }
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e + 1);
        paths.extend(use_paths(&rest[at + 4..end - 1]));
        let blanked: String = rest[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        rest.replace_range(at..end, &blanked);
    }
    (paths, rest)
}

/// The paths written in code: `word::word…` where the first word is not itself the tail of
/// a longer path.
fn code_paths(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = is_ident(chars[i])
            && !(i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == '$' || chars[i - 1] == ':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut path = Vec::new();
        loop {
            let word: String = chars[i..].iter().take_while(|c| is_ident(**c)).collect();
            i += word.chars().count();
            path.push(word);
            if chars.get(i) == Some(&':')
                && chars.get(i + 1) == Some(&':')
                && chars.get(i + 2).is_some_and(|c| is_ident(*c))
            {
                i += 2;
            } else {
                break;
            }
        }
        if path.len() > 1 {
            paths.push(path);
        }
    }
    paths
}

/// One import of one file from another.
struct Import {
    from: usize,
    to: usize,
    /// The path as written, for the report.
    path: String,
}

/// Every import between different files of one crate, and the files.
fn imports(root: &Path, krate: &str) -> (Vec<ModuleFile>, Vec<Import>) {
    let files = module_files(root, krate);
    let by_module: BTreeMap<&[String], usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.as_slice(), i))
        .collect();
    let mut imports = Vec::new();
    for (from, file) in files.iter().enumerate() {
        let children = declared_children(&file.code);
        let (uses, code) = use_items(&file.code);
        for path in uses.into_iter().chain(code_paths(&code)) {
            let mut absolute: Vec<String> = match path[0].as_str() {
                "crate" => Vec::new(),
                "self" | "super" => file.module.clone(),
                first if children.iter().any(|c| c == first) => file.module.clone(),
                _ => continue,
            };
            for segment in path.iter().skip_while(|s| *s == "crate" || *s == "self") {
                if segment == "super" {
                    absolute.pop();
                } else {
                    absolute.push(segment.clone());
                }
            }
            let to = (0..=absolute.len())
                .rev()
                .find_map(|n| by_module.get(&absolute[..n]).copied())
                .expect("the crate root has a file");
            if to != from {
                let path = path.join("::");
                imports.push(Import { from, to, path });
            }
        }
    }
    (files, imports)
}

/// The edges that count for circles: every import but a file's from its own ancestor.
fn circle_edges(files: &[ModuleFile], imports: &[Import]) -> BTreeMap<(usize, usize), String> {
    let mut edges = BTreeMap::new();
    for import in imports {
        let to_ancestor = files[import.from]
            .module
            .starts_with(&files[import.to].module);
        if !to_ancestor {
            edges
                .entry((import.from, import.to))
                .or_insert_with(|| import.path.clone());
        }
    }
    edges
}

/// The strongly connected components of more than one node (Tarjan).
fn circles(nodes: usize, edges: &BTreeMap<(usize, usize), String>) -> Vec<Vec<usize>> {
    struct Walk<'a> {
        next: Vec<Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        found: &'a mut Vec<Vec<usize>>,
    }
    fn visit(walk: &mut Walk<'_>, node: usize) {
        walk.index[node] = Some(walk.counter);
        walk.low[node] = walk.counter;
        walk.counter += 1;
        walk.stack.push(node);
        walk.on_stack[node] = true;
        for next in walk.next[node].clone() {
            match walk.index[next] {
                None => {
                    visit(walk, next);
                    walk.low[node] = walk.low[node].min(walk.low[next]);
                }
                Some(index) if walk.on_stack[next] => walk.low[node] = walk.low[node].min(index),
                Some(_) => {}
            }
        }
        if Some(walk.low[node]) == walk.index[node] {
            let mut component = Vec::new();
            while let Some(member) = walk.stack.pop() {
                walk.on_stack[member] = false;
                component.push(member);
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort_unstable();
                walk.found.push(component);
            }
        }
    }
    let mut next = vec![Vec::new(); nodes];
    for &(from, to) in edges.keys() {
        next[from].push(to);
    }
    let mut found = Vec::new();
    let mut walk = Walk {
        next,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        counter: 0,
        found: &mut found,
    };
    for node in 0..nodes {
        if walk.index[node].is_none() {
            visit(&mut walk, node);
        }
    }
    found.sort();
    found
}

#[test]
fn no_file_imports_itself_in_a_circle() {
    let root = workspace();
    let mut report = Vec::new();
    let mut counted = 0;
    for krate in ["engine", "queries", "cli"] {
        let (files, imports) = imports(&root, krate);
        counted += imports.len();
        let edges = circle_edges(&files, &imports);
        for circle in circles(files.len(), &edges) {
            let mut lines = vec![format!("a circle in {krate}:")];
            for ((from, to), path) in &edges {
                if circle.contains(from) && circle.contains(to) {
                    let (from, to) = (&files[*from].name, &files[*to].name);
                    lines.push(format!("  {from} -> {to} ({path})"));
                }
            }
            report.push(lines.join("\n"));
        }
    }
    assert!(counted > 200, "the walk read the imports: {counted}");
    assert!(
        report.is_empty(),
        "files that import from each other, through the files between them:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_import_reader_sees_what_it_claims() {
    let code = code_only(
        "use crate::a::{b::C, d as e, self};\n\
         // use crate::commented::Out;\n\
         let s = \"crate::in_a::string\"; let c = '{';\n\
         #[cfg(test)]\n#[allow(unused)]\nmod tests { use super::*; fn f() { crate::t::x(); } }\n\
         fn g<'a>(x: &'a str) { super::super::up::f(x); child::go(); }\n\
         mod child;\n",
    );
    let code = without_test_items(&code);
    assert!(!code.contains("commented") && !code.contains("in_a") && !code.contains("t::x"));
    let (uses, rest) = use_items(&code);
    let uses: Vec<String> = uses.into_iter().map(|p| p.join("::")).collect();
    assert_eq!(uses, ["crate::a::b::C", "crate::a::d", "crate::a"]);
    let written: Vec<String> = code_paths(&rest)
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(written, ["super::super::up::f", "child::go"]);
    assert_eq!(declared_children(&code), ["child"]);
    let edges: BTreeMap<(usize, usize), String> = [(0, 1), (1, 2), (2, 0), (2, 3)]
        .into_iter()
        .map(|e| (e, String::new()))
        .collect();
    assert_eq!(circles(4, &edges), [vec![0, 1, 2]]);
}

/// The facade of `keel-queries`: the names its `lib.rs` makes public without hiding them
/// from the docs (`pub mod` and `pub use` items not under `#[doc(hidden)]`).
fn queries_facade(root: &Path) -> BTreeSet<String> {
    let lib = std::fs::read_to_string(root.join("queries/src/lib.rs")).expect("lib.rs reads");
    let code = code_only(&lib);
    let mut facade = BTreeSet::new();
    let mut hidden = false;
    for line in code.lines().map(str::trim) {
        if line == "#[doc(hidden)]" {
            hidden = true;
            continue;
        }
        if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(';'))
        {
            if !hidden {
                facade.insert(name.to_owned());
            }
        } else if let Some(tree) = line
            .strip_prefix("pub use ")
            .and_then(|l| l.strip_suffix(';'))
        {
            facade.extend(
                use_paths(tree)
                    .into_iter()
                    .filter_map(|p| p.last().cloned()),
            );
        }
        hidden = false;
    }
    facade
}

#[test]
fn the_cli_names_only_the_facade_of_keel_queries() {
    let root = workspace();
    let facade = queries_facade(&root);
    for family in ["lint", "callgraph", "impact", "sessions"] {
        assert!(facade.contains(family), "the facade reads: {facade:?}");
    }
    assert!(
        !facade.contains("diff") && !facade.contains("extract"),
        "white-box modules are hidden: {facade:?}"
    );
    let mut named = 0;
    let mut outside = Vec::new();
    for file in module_files(&root, "cli") {
        let (uses, code) = use_items(&file.code);
        for path in uses.into_iter().chain(code_paths(&code)) {
            if path[0] != "keel_queries" {
                continue;
            }
            named += 1;
            if !path.get(1).is_some_and(|item| facade.contains(item)) {
                outside.push(format!("{}: {}", file.name, path.join("::")));
            }
        }
    }
    assert!(named > 20, "the walk read the CLI's paths: {named}");
    assert!(
        outside.is_empty(),
        "the CLI names keel-queries outside its facade {facade:?}:\n{}",
        outside.join("\n")
    );
}
