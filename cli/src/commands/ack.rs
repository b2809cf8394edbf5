//! `keel ack NODE… | --all`: write one ack checkpoint that acknowledges the nodes' drift.
//!
//! Owns: the order of the checks (the repository's state, the message, then what the
//! checkpoint would acknowledge) and the report of what it acknowledged. Every refusal
//! happens before the write, so a refused run writes nothing.
//! Does not own: the write and its refusals (`keel_engine::ack`) or what a checkpoint
//! acknowledges and when it is refused (`keel_queries::ack`).

use super::helper::{lint_or_refuse, open_repo};
use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use crate::render::{self, counted};
use keel_engine::ack::{AckError as WriteError, checkpoint_message};
use keel_engine::inputs::Tip;
use keel_queries::ack::SPEC_OK;
use keel_queries::ack::{AckError, AckPlan, ack_plan, owing_nodes};
use keel_queries::lint::{LintReport, Scope, Severity};
use std::fmt::Write;
use std::path::PathBuf;

/// Acknowledge nodes' drift: commit one checkpoint that `keel lint` reads as reviewed
///
/// The checkpoint has HEAD's tree, HEAD as its one parent and one trailer `Spec-OK:
/// <node>` per node; it acknowledges every commit it reaches, for those nodes only.
///
/// Exit 0: written; 2: refused, nothing written.
#[derive(Debug, clap::Args)]
pub(crate) struct AckArgs {
    /// The spec nodes: the folder path of each `spec.md` under `.spec/` (`auth/login`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    nodes: Vec<String>,
    /// Every node that owes something: a finding with commits not yet acknowledged.
    #[arg(long)]
    all: bool,
    /// The checkpoint's subject (default: `Acknowledge spec drift for <nodes>`); the
    /// trailers are added after a blank line.
    #[arg(short, long, value_name = "MSG")]
    message: Option<String>,
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
}

/// How many acknowledged commits the report lists per node (newest first).
const COMMITS_SHOWN: usize = 5;

pub(crate) fn cmd_ack(args: &AckArgs) -> Result<ExitStatus, CommandError> {
    let db = open_repo(&args.repo)?;
    let target = db.prepare_ack()?;
    if args
        .message
        .as_deref()
        .is_some_and(|text| text.trim().is_empty())
    {
        return Err(WriteError::EmptyMessage.into());
    }
    let tip = Tip::get(&db)
        .commit(&db)
        .filter(|tip| tip.id(&db) == target.head)
        .ok_or_else(|| {
            CommandError::repairable("HEAD moved while keel ack read it", "run keel ack again")
        })?;
    // Lint refuses specs and a `keel.toml` it cannot read, as `keel lint` does; its
    // report names every node at HEAD and the findings the checkpoint will clear.
    let (report, _) = lint_or_refuse(&db, Scope::Full)?;
    let nodes = chosen_nodes(args, &report)?;
    let message = checkpoint_message(&nodes, args.message.as_deref())?;
    let plans = nodes
        .iter()
        .map(|node| {
            ack_plan(&db, tip, &report, node, &message).map_err(|err| match err {
                AckError::Refused(refusal) => {
                    CommandError::repairable(refusal.to_string(), refusal.repair())
                }
                AckError::Object(err) => CommandError::objects(&err),
            })
        })
        .collect::<Result<Vec<AckPlan>, CommandError>>()?;
    let checkpoint = target.write(&nodes, &message)?;
    let subject = message.lines().next().unwrap_or_default();
    let mut out = format!("[{} {}] {subject}\n", checkpoint.branch, checkpoint.commit);
    for (node, plan) in nodes.iter().zip(&plans) {
        out.push_str(&plan_text(node, plan));
    }
    write_stdout(&out)?;
    Ok(ExitStatus::Clean)
}

/// The nodes named on the command line (each once, in order), or with `--all` every node
/// that owes something; refused when `--all` finds none.
fn chosen_nodes(args: &AckArgs, report: &LintReport) -> Result<Vec<String>, CommandError> {
    if !args.all {
        let mut nodes: Vec<String> = Vec::new();
        for node in &args.nodes {
            if !nodes.contains(node) {
                nodes.push(node.clone());
            }
        }
        return Ok(nodes);
    }
    let nodes = owing_nodes(report);
    if nodes.is_empty() {
        return Err(CommandError::repairable(
            "no node owes anything at HEAD, so a checkpoint would acknowledge nothing",
            "none needed (`keel lint` judges every node)",
        ));
    }
    Ok(nodes)
}

/// What the checkpoint acknowledged and the findings it clears.
fn plan_text(node: &str, plan: &AckPlan) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "{SPEC_OK}: {node} acknowledges {} {}:",
        counted(plan.acknowledged.len(), "commit"),
        plan.since
    );
    for (commit, subject) in plan.acknowledged.iter().take(COMMITS_SHOWN) {
        let _ = writeln!(out, "  {} {subject}", commit.short(12));
    }
    if plan.acknowledged.len() > COMMITS_SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more",
            plan.acknowledged.len() - COMMITS_SHOWN
        );
    }
    if plan.cleared.is_empty() {
        let _ = writeln!(out, "no finding of the node came from them");
    } else {
        let _ = writeln!(out, "findings it clears:");
    }
    for finding in &plan.cleared {
        let target = render::finding_target(finding);
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
    out
}
