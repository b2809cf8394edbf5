//! `keel ack <node>`: write an ack checkpoint that acknowledges the node's drift.
//!
//! Owns: the order of the checks (the repository's state, then the node, then whether
//! anything is left to acknowledge), the refusal of an unknown node with the closest known
//! ids, and the report of what the checkpoint acknowledged. Every refusal happens before
//! the write, so a refused run writes nothing.
//! Does not own: the write and its refusals (`keel_engine::ack`), the window
//! (`keel_queries::window`) or the findings (`keel_queries::lint`).

use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use crate::render::counted;
use keel_engine::ack::checkpoint_message;
use keel_engine::inputs::Tip;
use keel_engine::message::edit_distance;
use keel_queries::history::SPEC_OK;
use keel_queries::lint::{Finding, Scope, Severity};
use keel_queries::spec::NodeId;
use keel_queries::trailers::parse_trailers;
use keel_queries::window::{Node, node_base, window};
use std::fmt::Write;
use std::path::PathBuf;

/// Acknowledge a node's drift: commit a checkpoint that `keel lint` reads as reviewed
///
/// The checkpoint has HEAD's tree, HEAD as its one parent and the trailer `Spec-OK:
/// <node>`; it acknowledges every commit it reaches, for that node only.
///
/// Exit 0: written; 2: refused, nothing written.
#[derive(Debug, clap::Args)]
pub(crate) struct AckArgs {
    /// The spec node: the folder path of its `spec.md` under `.spec/` (`auth/login`).
    node: String,
    /// The checkpoint's subject (default: `Acknowledge spec drift for <node>`); the
    /// trailer is added after a blank line.
    #[arg(short, long, value_name = "MSG")]
    message: Option<String>,
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
}

/// How many acknowledged commits the report lists (newest first).
const COMMITS_SHOWN: usize = 5;

/// How many known node ids an unknown-node refusal suggests.
const SUGGESTIONS: usize = 3;

pub(crate) fn cmd_ack(args: &AckArgs) -> Result<ExitStatus, CommandError> {
    let db = super::cache::open_repo(&args.repo)?;
    let target = db.prepare_ack()?;
    let message = checkpoint_message(&args.node, args.message.as_deref())?;
    let tip = Tip::get(&db)
        .commit(&db)
        .filter(|tip| tip.id(&db) == target.head)
        .ok_or_else(|| {
            CommandError::repairable("HEAD moved while keel ack read it", "run keel ack again")
        })?;
    // Lint refuses specs and a `keel.toml` it cannot read, as `keel lint` does; its
    // report names every node at HEAD and the findings the checkpoint will clear.
    let (report, _) = super::lint::lint_or_refuse(&db, Scope::Full)?;
    known_node(&report.nodes, &args.node)?;
    let carries_trailer = parse_trailers(&message)
        .iter()
        .any(|t| t.has_key(SPEC_OK) && t.value == args.node);
    if !carries_trailer {
        return Err(CommandError::repairable(
            format!(
                "a trailer `{SPEC_OK}: {}` would not read back as this node's id",
                args.node
            ),
            "rename the node's folder so its id has no leading or trailing spaces",
        ));
    }

    let node = Node::new(&db, NodeId(args.node.clone()));
    let base = node_base(&db, tip, node)?;
    let acknowledged = window(&db, tip, node)?.commits();
    let since = match base {
        Some(base) => format!("since the spec's last version {}", base.id(&db).short(12)),
        None => "reachable from HEAD".to_owned(),
    };
    if acknowledged.is_empty() {
        let state = if base == Some(tip) {
            format!("no commit has come {since}")
        } else {
            format!("every commit {since} is acknowledged already")
        };
        return Err(CommandError::repairable(
            format!(
                "{}: {state}, so a checkpoint would acknowledge nothing",
                args.node
            ),
            "none needed (`keel lint` judges the node)",
        ));
    }
    let cleared: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.node == args.node && !f.hits.is_empty())
        .collect();

    let checkpoint = target.write(&args.node, &message)?;
    let mut out = String::new();
    let subject = message.lines().next().unwrap_or_default();
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "[{} {}] {subject}",
        checkpoint.branch, checkpoint.commit
    );
    let _ = writeln!(
        out,
        "{SPEC_OK}: {} acknowledges {} {since}:",
        args.node,
        counted(acknowledged.len(), "commit")
    );
    for &commit in acknowledged.iter().take(COMMITS_SHOWN) {
        let _ = writeln!(
            out,
            "  {} {}",
            commit.id(&db).short(12),
            keel_queries::trailers::subject(&db, commit)
        );
    }
    if acknowledged.len() > COMMITS_SHOWN {
        let _ = writeln!(out, "  … and {} more", acknowledged.len() - COMMITS_SHOWN);
    }
    if cleared.is_empty() {
        let _ = writeln!(out, "no finding of the node came from them");
    } else {
        let _ = writeln!(out, "findings it clears:");
    }
    for finding in cleared {
        let target = if finding.selectors.is_empty() {
            finding.path.clone()
        } else {
            format!("{}#{}", finding.path, finding.selectors.join(","))
        };
        let _ = writeln!(
            out,
            "  {}[{}] {target} ({})",
            match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            finding.code,
            counted(finding.hits.len(), "commit")
        );
    }
    write_stdout(&out)?;
    Ok(ExitStatus::Clean)
}

/// Refuses `id` unless it is one of `nodes` (the node ids at HEAD), suggesting the
/// closest known ids.
fn known_node(nodes: &[String], id: &str) -> Result<(), CommandError> {
    if nodes.iter().any(|node| node == id) {
        return Ok(());
    }
    if nodes.is_empty() {
        return Err(CommandError::repairable(
            format!("`{id}` is no spec node at HEAD, which has none"),
            format!("commit `.spec/{id}/spec.md` first"),
        ));
    }
    let mut ranked: Vec<(usize, &str)> = nodes
        .iter()
        .map(|node| (edit_distance(id, node), node.as_str()))
        .collect();
    ranked.sort_unstable();
    let closest: Vec<&str> = ranked.iter().take(SUGGESTIONS).map(|&(_, id)| id).collect();
    Err(CommandError::repairable(
        format!(
            "`{id}` is no spec node at HEAD (closest known: {})",
            closest.join(", ")
        ),
        format!(
            "pass a node id — the folder path of a `spec.md` under `.spec/`, e.g. `keel ack {}`",
            closest[0]
        ),
    ))
}
