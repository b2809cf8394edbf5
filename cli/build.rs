//! Names this exact keel build for the on-disk memo (`KEEL_BUILD_ID`): a hash of every
//! source file of the crates that decide an answer (`engine`, `queries`, `cli`), the
//! workspace's `Cargo.lock` and manifests, the compiler's version and the profile. salsa
//! numbers its ingredients in registration order, so a memo is only readable by the build
//! that wrote it; any change here gives another id, and the next run starts cold.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let cli = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let workspace = cli.parent().map(Path::to_owned).unwrap_or_default();
    let mut files = Vec::new();
    for krate in ["engine", "queries", "cli"] {
        let source = workspace.join(krate).join("src");
        println!("cargo:rerun-if-changed={}", source.display());
        collect(&source, &mut files);
        files.push(workspace.join(krate).join("Cargo.toml"));
    }
    for file in ["Cargo.lock", "Cargo.toml"] {
        let path = workspace.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        files.push(path);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        file.strip_prefix(&workspace)
            .unwrap_or(file)
            .hash(&mut hasher);
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
    }
    compiler_version().hash(&mut hasher);
    std::env::var("PROFILE")
        .unwrap_or_default()
        .hash(&mut hasher);
    std::env::var("TARGET")
        .unwrap_or_default()
        .hash(&mut hasher);
    println!("cargo:rustc-env=KEEL_BUILD_ID={:016x}", hasher.finish());
}

/// Every file under `folder`, recursively.
fn collect(folder: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// `rustc -V` of the compiler building keel.
fn compiler_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    std::process::Command::new(rustc)
        .arg("-V")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default()
}
