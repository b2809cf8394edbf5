//! `lint-bench prepare SOURCE DEST`: a real repository made lintable without committing
//! anyone's code into keel.
//!
//! Owns: cloning SOURCE into DEST (its default branch cut back to `--tip` when given),
//! picking the first-parent commit just before the base date (or the `--spec-at`
//! commit: a scale scenario's nodes written at an old commit, their window the whole
//! history since), generating spec nodes deterministically from the tip's code (keel's own
//! extractor; only file paths and unit names unique at the tip), committing them on a
//! branch from that commit with the pinned identity and date, and merging that branch into
//! the default branch with `--no-ff` (a clean merge that owns no code line). Every node's
//! version is then the spec commit, and its window every commit since the base date.
//! Does not own: measuring (`measure`), nor checking answers (`checks`).

use crate::git;
use keel_engine::KeelDatabase;
use keel_fixtures::rng::SeededRng;
use keel_queries::anchors::Selector;
use keel_queries::extract::{UnitKind, extract};
use keel_queries::lint::{Scope, lint_on_threads};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The branch the spec nodes are committed on.
const SPEC_BRANCH: &str = "keel-bench-specs";
/// Node ids: `lint-bench-00`, `lint-bench-01`, …
const NODE_PREFIX: &str = "lint-bench-";

/// What `prepare` was asked for.
pub(crate) struct PrepareArgs {
    pub(crate) source: String,
    pub(crate) dest: PathBuf,
    pub(crate) nodes: usize,
    /// `YYYY-MM-DD`, midnight UTC.
    pub(crate) base_date: String,
    /// The commit the spec branch starts from, instead of the base date's; the spec
    /// commit is dated a minute after it.
    pub(crate) spec_at: Option<String>,
    /// The default branch is reset to this commit first: the scenario cut at an older tip.
    pub(crate) tip: Option<String>,
}

/// One tip file with the units a selector may name.
struct CodeFile {
    path: String,
    /// Unique qualified names of functions, methods and classes, in file order.
    units: Vec<String>,
}

/// Prepares DEST; prints what was prepared.
pub(crate) fn prepare(args: &PrepareArgs) -> Result<(), String> {
    let mut base_time = midnight_utc(&args.base_date)?;
    if args.dest.exists() {
        return Err(format!(
            "{} exists; prepare clones into a new folder",
            args.dest.display()
        ));
    }
    let dest = absolute(&args.dest)?;
    let source = if Path::new(&args.source).exists() {
        absolute(Path::new(&args.source))?.display().to_string()
    } else {
        args.source.clone()
    };
    let parent = dest
        .parent()
        .ok_or_else(|| format!("{} has no parent folder", dest.display()))?;
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let dest_arg = dest.display().to_string();
    git::run(
        parent,
        &["clone", "--quiet", "--no-hardlinks", &source, &dest_arg],
    )?;
    let dest = dest.as_path();
    let branch = git::run(dest, &["symbolic-ref", "--short", "HEAD"])?
        .trim()
        .to_owned();
    if let Some(tip) = &args.tip {
        let commit = format!("{tip}^{{commit}}");
        git::run(dest, &["reset", "--quiet", "--hard", &commit])?;
    }
    let tip = git::run(dest, &["rev-parse", "HEAD"])?.trim().to_owned();
    let tip_time: i64 = git::run(dest, &["log", "-1", "--format=%ct", "HEAD"])?
        .trim()
        .parse()
        .map_err(|e| format!("tip committer time: {e}"))?;
    let base = match &args.spec_at {
        Some(rev) => {
            let base = git::run(
                dest,
                &["rev-parse", "--verify", &format!("{rev}^{{commit}}")],
            )?
            .trim()
            .to_owned();
            git::run(dest, &["merge-base", "--is-ancestor", &base, "HEAD"])
                .map_err(|_| format!("--spec-at {rev} is not an ancestor of the tip"))?;
            base_time = git::run(dest, &["log", "-1", "--format=%ct", &base])?
                .trim()
                .parse::<i64>()
                .map_err(|e| format!("--spec-at committer time: {e}"))?
                + 60;
            base
        }
        None => {
            let before = format!("--before={} 00:00:00 +0000", args.base_date);
            git::run(dest, &["rev-list", "-1", "--first-parent", &before, "HEAD"])?
                .trim()
                .to_owned()
        }
    };
    if base.is_empty() {
        return Err(format!(
            "no first-parent commit before {}; pick a later --base-date",
            args.base_date
        ));
    }
    if tip_time <= base_time {
        return Err(format!(
            "the tip is older than {}; pick an earlier --base-date",
            args.base_date
        ));
    }

    let files = code_files(dest)?;
    if files.is_empty() {
        return Err(
            "the tip has no Python or TypeScript file with a uniquely named unit".to_owned(),
        );
    }
    let specs = generate(&files, args.nodes);

    git::run(dest, &["checkout", "--quiet", "-b", SPEC_BRANCH, &base])?;
    for (node, text) in &specs {
        let path = dest.join(".spec").join(node).join("spec.md");
        let folder = path.parent().ok_or("a spec path has a folder")?;
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    git::run(dest, &["add", "--all", ".spec"])?;
    let message = format!(
        "lint-bench: {} spec nodes generated from the tip's code",
        specs.len()
    );
    commit_at(
        dest,
        &["commit", "--quiet", "--no-verify", "-m", &message],
        base_time,
    )?;
    let spec_commit = git::run(dest, &["rev-parse", "HEAD"])?.trim().to_owned();
    git::run(dest, &["checkout", "--quiet", &branch])?;
    commit_at(
        dest,
        &[
            "merge",
            "--quiet",
            "--no-ff",
            "--no-verify",
            "-m",
            "Merge the lint-bench spec nodes",
            SPEC_BRANCH,
        ],
        tip_time + 60,
    )?;
    let merge = git::run(dest, &["rev-parse", "HEAD"])?.trim().to_owned();
    let outside = git::run(
        dest,
        &["diff", "--name-only", &tip, &merge, "--", ".", ":!.spec"],
    )?;
    if !outside.trim().is_empty() {
        return Err(format!("the spec merge changed code: {}", outside.trim()));
    }

    let window = git::run(
        dest,
        &["rev-list", "--count", &format!("{spec_commit}..HEAD")],
    )?;
    let non_merge = git::run(
        dest,
        &[
            "rev-list",
            "--count",
            "--no-merges",
            &format!("{spec_commit}..HEAD"),
        ],
    )?;
    let mut anchored: Vec<&str> = Vec::new();
    let (mut scoped, mut bare, mut selectors) = (0, 0, 0);
    for (_, spec) in &specs {
        for entry in spec.lines().filter_map(|l| l.strip_prefix("  - ")) {
            let (path, sels) = entry.split_once('#').unwrap_or((entry, ""));
            if sels.is_empty() {
                bare += 1;
            } else {
                scoped += 1;
                selectors += sels.split(',').count();
            }
            anchored.push(path);
        }
    }
    anchored.sort_unstable();
    anchored.dedup();
    println!("prepared {}", dest.display());
    println!(
        "  source {source}, default branch {branch}, tip {}",
        short(&tip)
    );
    match &args.spec_at {
        Some(rev) => println!("  base   {} (--spec-at {rev})", short(&base)),
        None => println!(
            "  base   {} (the first-parent commit before {})",
            short(&base),
            args.base_date
        ),
    }
    println!(
        "  specs  {} on branch {SPEC_BRANCH}: {} nodes, {scoped} scoped entries with {selectors} selectors, {bare} bare entries",
        short(&spec_commit),
        specs.len()
    );
    println!(
        "  merge  {} (--no-ff into {branch}; changes nothing outside .spec/)",
        short(&merge)
    );
    println!(
        "  window {} commits (`git rev-list --count {}..HEAD`), {} of them non-merge",
        window.trim(),
        short(&spec_commit),
        non_merge.trim()
    );
    println!(
        "  {} anchored paths (of {} code files with unique units at the tip):",
        anchored.len(),
        files.len()
    );
    for path in &anchored {
        println!("    {path}");
    }
    verify(dest)?;
    println!(
        "next: cargo run --release -p keel-benches --bin lint-bench -- {}",
        dest.display()
    );
    Ok(())
}

/// Lints the prepared tip once: every anchor must resolve (a generator bug otherwise).
fn verify(dest: &Path) -> Result<(), String> {
    let db = KeelDatabase::open(dest).map_err(|e| format!("keel cannot open DEST: {e:?}"))?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let report = lint_on_threads(&db, threads, Scope::Full)
        .map_err(|e| format!("keel cannot lint DEST: {e:?}"))?;
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for finding in &report.findings {
        *by_code.entry(finding.code).or_default() += 1;
    }
    let counts: Vec<String> = by_code.iter().map(|(c, n)| format!("{c} {n}")).collect();
    println!("  keel lint at the tip: {}", counts.join(", "));
    let broken: Vec<&str> = [
        "dead-anchor",
        "ambiguous-anchor",
        "unparseable-anchor",
        "no-extractor",
        "dead-path",
    ]
    .into_iter()
    .filter(|code| by_code.contains_key(code))
    .collect();
    if broken.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "generated anchors do not resolve at the tip ({})",
            broken.join(", ")
        ))
    }
}

/// Runs a committing git command with the pinned identity and both dates at `time`.
fn commit_at(dest: &Path, args: &[&str], time: i64) -> Result<String, String> {
    let stamp = format!("@{time} +0000");
    git::run_with(
        git::git(dest)
            .args(args)
            .env("GIT_AUTHOR_DATE", &stamp)
            .env("GIT_COMMITTER_DATE", &stamp),
        args,
    )
}

/// The tip's Python and TypeScript files (regular blobs, sorted by path, outside
/// `.spec/`) that hold at least one uniquely named function, method or class.
fn code_files(dest: &Path) -> Result<Vec<CodeFile>, String> {
    let listing = git::run(dest, &["ls-tree", "-r", "-z", "HEAD"])?;
    let mut files = Vec::new();
    for record in listing.split('\0').filter(|r| !r.is_empty()) {
        let Some((meta, path)) = record.split_once('\t') else {
            continue;
        };
        let regular = meta.starts_with("100644 blob") || meta.starts_with("100755 blob");
        if !regular || path.starts_with(".spec/") || !plain_path(path) {
            continue;
        }
        let content = std::fs::read(dest.join(path))
            .map_err(|e| format!("cannot read {path} in the clone: {e}"))?;
        let Some(Ok(units)) = extract(&content, path) else {
            continue;
        };
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for unit in &units {
            *seen.entry(unit.name.as_str()).or_default() += 1;
        }
        let names: Vec<String> = units
            .iter()
            .filter(|u| {
                matches!(
                    u.kind,
                    UnitKind::Function | UnitKind::Method | UnitKind::Class
                )
            })
            .filter(|u| seen.get(u.name.as_str()) == Some(&1))
            .filter(|u| plain_name(&u.name) && Selector::parse(&u.name).is_some())
            .map(|u| u.name.clone())
            .collect();
        if !names.is_empty() {
            files.push(CodeFile {
                path: path.to_owned(),
                units: names,
            });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The spec nodes: node i anchors 1–3 units of one file, spread evenly over the files
/// (file i·F/N, or i mod F when there are more nodes than files); every 4th node also
/// lists another file bare. Deterministic: a fixed seed per node.
fn generate(files: &[CodeFile], nodes: usize) -> Vec<(String, String)> {
    let count = files.len();
    (0..nodes)
        .map(|i| {
            let index = if nodes <= count { i * count / nodes } else { i % count };
            let file = &files[index];
            let mut rng = SeededRng::new(0x4B45_454C ^ i as u64);
            let wanted = (1 + i % 3).min(file.units.len());
            let mut picked: Vec<usize> = Vec::new();
            while picked.len() < wanted {
                let pick = rng.below(file.units.len());
                if !picked.contains(&pick) {
                    picked.push(pick);
                }
            }
            picked.sort_unstable();
            let selectors: Vec<&str> = picked.iter().map(|&p| file.units[p].as_str()).collect();
            let mut text = format!("---\ncode:\n  - {}#{}\n", file.path, selectors.join(","));
            if i % 4 == 3 && count > 1 {
                let other = &files[(index + count / 2).max(index + 1) % count];
                text.push_str(&format!("  - {}\n", other.path));
            }
            text.push_str(&format!(
                "---\n# lint-bench node {i}\n\nGenerated by `lint-bench prepare` from the tip's code; keel reads only the frontmatter.\n"
            ));
            (format!("{NODE_PREFIX}{i:02}"), text)
        })
        .collect()
}

/// A path that needs no quoting in YAML or in a spec entry.
fn plain_path(path: &str) -> bool {
    path.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
        && !path.starts_with('-')
}

/// A qualified name of plain identifiers.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        })
}

/// Seconds since the epoch of `YYYY-MM-DD` at midnight UTC.
fn midnight_utc(date: &str) -> Result<i64, String> {
    let bad = || format!("--base-date {date}: expected YYYY-MM-DD");
    let mut parts = date.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let (y, m, d): (i64, i64, i64) = (
        y.parse().map_err(|_| bad())?,
        m.parse().map_err(|_| bad())?,
        d.parse().map_err(|_| bad())?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    // Days from civil (Howard Hinnant's algorithm), proleptic Gregorian.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Ok((era * 146_097 + doe - 719_468) * 86_400)
}

fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// A commit id's first 12 characters.
pub(crate) fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midnight_is_utc_seconds() {
        assert_eq!(midnight_utc("1970-01-01"), Ok(0));
        assert_eq!(midnight_utc("2019-06-01"), Ok(1_559_347_200));
        assert!(midnight_utc("2019-13-01").is_err());
    }

    #[test]
    fn nodes_are_deterministic_and_name_unique_units() {
        let files = vec![
            CodeFile {
                path: "a.py".into(),
                units: vec!["f".into(), "g".into(), "C.m".into()],
            },
            CodeFile {
                path: "b.ts".into(),
                units: vec!["h".into()],
            },
        ];
        let specs = generate(&files, 5);
        assert_eq!(specs, generate(&files, 5));
        assert!(specs[3].1.contains("  - b.ts\n") || specs[3].1.contains("  - a.py\n"));
        assert!(
            specs
                .iter()
                .all(|(_, text)| text.starts_with("---\ncode:\n  - "))
        );
    }
}
