//! `workspace/executeCommand` `keel.impact`: `keel impact`'s report for the editor's
//! unsaved change — the working tree as the buffers hold it, against HEAD — bounded by the
//! `[impact]` settings of that working tree's `keel.toml`, or by the limits the command's
//! one optional argument gives (`{"depth": N, "max_bytes": N, "max_nodes": N}`, each
//! checked as `keel impact` checks its options).
//!
//! Owns: reading the command's argument, the patch of HEAD's call-graph files against the
//! working tree's (`keel_queries::impact::unified`: the sources the call graph reads;
//! other files cannot change a callable), and that the result is the report `keel
//! impact --rev HEAD` gives that patch. Does not own: the report (`keel_queries::impact`)
//! or which source trees the graphs are memoized on (`super`).

use keel_engine::inputs::Commit;
use keel_engine::{Db, Oid};
use keel_queries::callgraph::{Sources, graph_inputs};
use keel_queries::impact::options::Limits;
use keel_queries::impact::unified::unified_patch;
use keel_queries::impact::{Facts, candidate_files, patch, render, worktree_revision};
use keel_queries::lint::tip_settings;
use keel_queries::units::tree_files;

/// The command's name.
pub(super) const COMMAND: &str = "keel.impact";

/// How the patch is named in a refusal.
const PATCH_NAME: &str = "<unsaved buffers>";

/// Why no report was made: a message for the editor.
#[derive(Debug, thiserror::Error)]
pub(super) enum ImpactError {
    /// The command's argument is not what it takes.
    #[error("{0}")]
    Argument(String),
    /// The working tree's `keel.toml` or a file keel reads refuses the report.
    #[error("{0}")]
    Refused(String),
}

/// The two file lists a report compares, and the patch between them.
pub(super) struct Sides {
    /// The commit compared against (HEAD; `None` when HEAD is unborn).
    base_commit: Option<Commit>,
    /// The working tree as the buffers hold it (HEAD itself while they agree).
    candidate_commit: Commit,
    /// HEAD's call-graph files (none when HEAD is unborn).
    pub(super) base: Vec<(String, Oid)>,
    /// The base with the patch applied: the working tree's call-graph files.
    pub(super) candidate: Vec<(String, Oid)>,
    /// The patch, and its file patches read back.
    patch: (Vec<u8>, Vec<patch::FilePatch>),
}

/// The patch between `base` (HEAD) and `candidate` (the working tree's commit).
pub(super) fn sides(
    db: &dyn Db,
    base: Option<Commit>,
    candidate: Commit,
) -> Result<Sides, ImpactError> {
    let refused = |err: &dyn std::fmt::Display| ImpactError::Refused(err.to_string());
    let files_of = |commit: Commit| -> Result<Vec<(String, Oid)>, ImpactError> {
        tree_files(db, commit)
            .map(|files| graph_inputs(&files))
            .map_err(|err| refused(&err))
    };
    let (base_commit, candidate_commit) = (base, candidate);
    let base = match base_commit {
        Some(head) => files_of(head)?,
        None => Vec::new(),
    };
    let bytes =
        unified_patch(db, &base, &files_of(candidate_commit)?).map_err(|err| refused(&err))?;
    let files = if bytes.is_empty() {
        Vec::new()
    } else {
        patch::parse(PATCH_NAME, &bytes).map_err(|err| refused(&err))?
    };
    let candidate = candidate_files(db, PATCH_NAME, &base, &files).map_err(|err| refused(&err))?;
    Ok(Sides {
        base_commit,
        candidate_commit,
        base,
        candidate,
        patch: (bytes, files),
    })
}

/// The report over the source trees `base` and `candidate` holding `sides`' files, as
/// JSON.
pub(super) fn report(
    db: &dyn Db,
    sides: &Sides,
    (base, candidate): (Sources, Sources),
    argument: Option<&serde_json::Value>,
) -> Result<serde_json::Value, ImpactError> {
    let limits = limits(db, sides.candidate_commit, argument)?;
    let base_revision = match sides.base_commit {
        Some(head) => format!("git:{}", head.id(db)),
        None => worktree_revision(&sides.base),
    };
    let facts = Facts::of(
        db,
        (base, candidate),
        (&sides.patch.0, &sides.patch.1),
        base_revision,
        &sides.candidate,
    );
    let report = render(&facts, limits).map_err(|err| ImpactError::Refused(err.to_string()))?;
    // The report is canonical JSON keel wrote: reading it back cannot fail.
    serde_json::from_str(&report).map_err(|err| ImpactError::Refused(err.to_string()))
}

/// The `[impact]` settings of the working tree's `keel.toml`, overridden by the
/// argument's limits.
fn limits(
    db: &dyn Db,
    worktree: Commit,
    argument: Option<&serde_json::Value>,
) -> Result<Limits, ImpactError> {
    let settings = tip_settings(db, worktree)
        .map_err(|err| ImpactError::Refused(err.to_string()))?
        .map_err(|err| ImpactError::Refused(format!("keel.toml: {err}")))?;
    let defaults = Limits::of_settings(&settings.impact).map_err(|refused| {
        ImpactError::Refused(format!(
            "keel.toml: [impact] {} = {}: {}",
            refused.key, refused.value, refused.error
        ))
    })?;
    Limits::parse(defaults, &limit_words(argument)?)
        .map_err(|err| ImpactError::Argument(err.to_string()))
}

/// The argument's limits as `--flag=N` words; anything else in it is refused.
fn limit_words(argument: Option<&serde_json::Value>) -> Result<Vec<String>, ImpactError> {
    let Some(argument) = argument.filter(|argument| !argument.is_null()) else {
        return Ok(Vec::new());
    };
    let wrong = |what: String| {
        ImpactError::Argument(format!(
            "{COMMAND}: {what}; repair: pass no argument, or {{\"depth\": N, \"max_bytes\": N, \"max_nodes\": N}}"
        ))
    };
    let fields = argument
        .as_object()
        .ok_or_else(|| wrong(format!("the argument {argument} is not an object")))?;
    let mut words = Vec::new();
    for (key, value) in fields {
        let flag = match key.as_str() {
            "depth" => "--depth",
            "max_bytes" => "--max-bytes",
            "max_nodes" => "--max-nodes",
            _ => return Err(wrong(format!("unknown limit {key:?}"))),
        };
        let number = value
            .as_u64()
            .ok_or_else(|| wrong(format!("{key} {value} is not a whole number")))?;
        words.push(format!("{flag}={number}"));
    }
    Ok(words)
}
