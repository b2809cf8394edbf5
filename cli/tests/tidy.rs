//! Tidy checks on the source tree: every Rust file opens with a `//!` doc saying what it
//! owns, and the crate dependency direction (cli → queries → engine) holds.

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
