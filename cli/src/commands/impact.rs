//! `keel impact PATCH`: which callables a patch changes and who calls them, as one
//! bounded, canonical JSON document.
//!
//! Owns: reading argv strictly (KEEL-G109 for any option form outside the contract), the
//! patch (read once; `-` is stdin), the base (the working tree, or `--rev`), the candidate
//! (the base with the patch applied in memory, never on disk), and the final re-check of
//! every working-tree source read (KEEL-I207: no report, exit 1).
//! Does not own: the graph, closure and report (`keel_queries::impact`).

use super::graph_base::{Base, base_settings, tree_graph_files};
use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use keel_engine::settings::{SETTINGS_FILE, Settings};
use keel_engine::{KeelDatabase, Oid};
use keel_queries::callgraph::{call_graph_on_threads, graph_inputs, is_graph_input};
use keel_queries::impact::options::{Limits, OptionError};
use keel_queries::impact::patch;
use keel_queries::impact::{
    Facts, candidate_files, closure_over, operations_and_changes, patch_digest, render, tree_digest,
};
use std::io::Read as _;
use std::path::PathBuf;

/// Which callables does a patch change, and who calls them (transitively)?
///
/// Usage: keel impact PATCH [--rev REV] [--repo DIR] [--depth N] [--max-bytes N]
/// [--max-nodes N]. PATCH is a unified diff (`git diff` output), `-` for stdin. Exit 0
/// with the report; 1: a source changed while keel read it (KEEL-I207); 2: bad options
/// (KEEL-G109), a patch that does not apply, or unreadable input.
#[derive(Debug, clap::Args)]
pub(crate) struct ImpactArgs {
    /// PATCH, then options; read strictly by keel (see the usage line).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 0..,
        value_name = "PATCH [OPTIONS]"
    )]
    words: Vec<String>,
}

/// The words of `keel impact`; the limits still to be read over the `[impact]` defaults.
struct Pending {
    patch: String,
    rev: Option<String>,
    repo: PathBuf,
    limit_words: Vec<String>,
}

fn read_words(words: &[String]) -> Result<Pending, CommandError> {
    let mut patch = None;
    let mut rev = None;
    let mut repo = None;
    let mut limit_words = Vec::new();
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        let mut take = |slot: &mut Option<String>, flag: &str| -> Result<(), CommandError> {
            if slot.is_some() {
                return Err(CommandError::repairable(
                    format!("KEEL-G109: {flag} is given twice"),
                    "give each option once",
                ));
            }
            let value = rest
                .next()
                .filter(|v| !v.starts_with("--"))
                .ok_or_else(|| {
                    CommandError::repairable(
                        format!("KEEL-G109: {flag} needs a value"),
                        format!("write {flag} VALUE"),
                    )
                })?;
            *slot = Some(value.clone());
            Ok(())
        };
        match word.as_str() {
            "--rev" => take(&mut rev, "--rev")?,
            "--repo" => take(&mut repo, "--repo")?,
            w if w.starts_with("--") => {
                limit_words.push(word.clone());
                if !w.contains('=')
                    && let Some(value) = rest.next()
                {
                    limit_words.push(value.clone());
                }
            }
            _ if patch.is_none() => patch = Some(word.clone()),
            _ => {
                return Err(CommandError::repairable(
                    format!("KEEL-G109: unexpected argument {word:?}"),
                    "give one PATCH",
                ));
            }
        }
    }
    // Refuse bad option forms before anything is read, whatever the defaults.
    Limits::parse(Limits::default(), &limit_words)?;
    let patch = patch.ok_or_else(|| {
        CommandError::repairable(
            "KEEL-G109: no PATCH given",
            "keel impact PATCH (or - for stdin)",
        )
    })?;
    Ok(Pending {
        patch,
        rev,
        repo: repo.map_or_else(|| PathBuf::from("."), PathBuf::from),
        limit_words,
    })
}

/// The `[impact]` defaults of `keel.toml` in the base's tree (`bytes`, `None` without
/// one), each checked against its option's domain; a value outside it is refused naming
/// its key and line.
fn impact_defaults(bytes: Option<&[u8]>, settings: &Settings) -> Result<Limits, CommandError> {
    let Some(bytes) = bytes else {
        return Ok(Limits::default());
    };
    let settings = &settings.impact;
    let mut limits = Limits::default();
    for (key, flag, value) in [
        ("depth", "--depth", u64::from(settings.depth)),
        ("max_bytes", "--max-bytes", settings.max_bytes),
        ("max_nodes", "--max-nodes", u64::from(settings.max_nodes)),
    ] {
        limits = Limits::parse(limits, &[format!("{flag}={value}")])
            .map_err(|err| impact_key_error(bytes, key, value, &err))?;
    }
    Ok(limits)
}

/// A `[impact]` value its option refuses, worded as the key in `keel.toml` (its line is
/// the first line that sets the key).
fn impact_key_error(bytes: &[u8], key: &str, value: u64, err: &OptionError) -> CommandError {
    let line = String::from_utf8_lossy(bytes)
        .lines()
        .position(|text| {
            text.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |index| index + 1);
    // A value written from a u64 is a plain decimal given once: only its range can fail.
    let OptionError::OutOfRange { low, high, .. } = err else {
        return CommandError::plain(format!("{SETTINGS_FILE}:{line}: [impact] {key}: {err}"));
    };
    CommandError::repairable(
        format!(
            "{SETTINGS_FILE}:{line}: KEEL-G109: [impact] {key} = {value} is outside {low}..={high}"
        ),
        "set a value in that range, or remove the key for the default",
    )
}

pub(crate) fn cmd_impact(args: &ImpactArgs) -> Result<ExitStatus, CommandError> {
    let words = read_words(&args.words)?;
    let db = KeelDatabase::open_objects(&words.repo)?;
    let base_at = Base::of(&db, words.rev.as_deref())?;
    let (settings_bytes, settings) = base_settings(&db, base_at)?;
    let defaults = impact_defaults(settings_bytes.as_deref(), &settings)?;
    let limits = Limits::parse(defaults, &words.limit_words)?;
    let (name, bytes) = read_patch(&words.patch)?;
    let files = patch::parse(&name, &bytes)?;
    // The working tree's sources are snapshotted (content and identity) for the re-check.
    let (snapshot, base_files) = match base_at.commit {
        Some((_, tree)) => (None, tree_graph_files(&db, tree)?),
        None => {
            let snapshot = db.worktree_snapshot(is_graph_input)?;
            let files = snapshot.iter().map(|f| (f.path.clone(), f.blob)).collect();
            (Some(snapshot), files)
        }
    };
    check_other_files(&db, &name, base_at, &files)?;
    let candidate_files = candidate_files(&db, &name, &base_files, &files)?;
    let bound = settings.lint.max_file_bytes;
    let base = db.sources(graph_inputs(&base_files), bound);
    let candidate_tree = db.sources(graph_inputs(&candidate_files), bound);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    for tree in [base, candidate_tree] {
        call_graph_on_threads(&db, tree, threads);
    }
    let (operations, changes) = operations_and_changes(&db, base, candidate_tree, &files);
    let (closure, unresolved) = closure_over(&db, base, candidate_tree, &changes);
    let revision = |files: &[(String, Oid)]| {
        let listed: Vec<(String, String)> = files
            .iter()
            .map(|(path, oid)| (path.clone(), oid.to_string()))
            .collect();
        format!("worktree:{}", tree_digest(&listed))
    };
    let base_revision = match base_at.commit {
        Some((id, _)) => format!("git:{id}"),
        None => revision(&base_files),
    };
    let facts = Facts {
        base_revision,
        candidate_revision: revision(&candidate_files),
        digest: patch_digest(&bytes),
        operations,
        changes,
        unresolved,
        closure,
    };
    let report = render(&facts, limits)?;
    failpoint_before_recheck();
    if let Some(before) = &snapshot
        && db.worktree_snapshot(is_graph_input)? != *before
    {
        eprintln!(
            "error: KEEL-I207: a source file changed while keel read it; no report; repair: run keel impact again once the working tree is quiet"
        );
        return Ok(ExitStatus::Blocked);
    }
    write_stdout(&format!("{report}\n"))?;
    Ok(ExitStatus::Clean)
}

/// Tests only (debug builds): `KEEL_TEST_TOUCH_BEFORE_RECHECK=FILE` appends a line to
/// FILE between building the report and the re-check, the one moment a concurrent edit
/// must be caught.
fn failpoint_before_recheck() {
    #[cfg(debug_assertions)]
    if let Some(path) = std::env::var_os("KEEL_TEST_TOUCH_BEFORE_RECHECK") {
        use std::io::Write as _;
        let _ = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .and_then(|mut file| file.write_all(b"# touched\n"));
    }
}

/// The patch's hunks on files the graph does not read (docs, configs) must apply to the
/// base too: each is checked against that file in the working tree (or the `--rev` tree).
fn check_other_files(
    db: &KeelDatabase,
    name: &str,
    base: Base,
    files: &[patch::FilePatch],
) -> Result<(), CommandError> {
    for file in files {
        let paths = [&file.old_path, &file.new_path];
        if paths.into_iter().flatten().any(|path| is_graph_input(path)) {
            continue;
        }
        let Some(path) = file.old_path.as_ref().or(file.new_path.as_ref()) else {
            continue;
        };
        let bytes = base.read(db, path)?;
        patch::apply(name, file, bytes.as_deref())?;
    }
    Ok(())
}

/// The patch's bytes, read once, and its name for messages.
fn read_patch(path: &str) -> Result<(String, Vec<u8>), CommandError> {
    if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        return Ok(("<stdin>".to_owned(), bytes));
    }
    let bytes = std::fs::read(path).map_err(|err| {
        CommandError::repairable(
            format!("{path}: cannot read the patch: {err}"),
            "pass an existing file or - for stdin",
        )
    })?;
    Ok((path.to_owned(), bytes))
}
