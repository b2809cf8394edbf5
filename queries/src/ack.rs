//! What an ack checkpoint acknowledges: the checks `keel ack NODE` makes before it writes
//! and the commits and findings the checkpoint covers.
//!
//! Owns: refusing an unknown node (naming the closest known ids), a message whose
//! `Spec-OK` trailer would not read back as the node's id, and a checkpoint that would
//! acknowledge nothing; the node's window at the tip (the commits acknowledged) and the
//! lint findings whose hits they are.
//! Does not own: the checkpoint's message and write (`keel_engine::ack`), the window's
//! rules (`crate::window`), the findings (`crate::lint`), or printing (`keel`).

/// The trailer key a checkpoint carries.
pub use crate::history::SPEC_OK;
use crate::lint::{Finding, LintReport};
use crate::spec::NodeId;
use crate::trailers::{parse_trailers, subject};
use crate::window::{Node, node_base, window};
use keel_engine::inputs::Commit;
use keel_engine::message::edit_distance;
use keel_engine::objects::ObjectError;
use keel_engine::{Db, Oid};

/// How many known node ids an unknown-node refusal suggests.
const SUGGESTIONS: usize = 3;

/// What a checkpoint for one node acknowledges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AckPlan {
    /// The commits it acknowledges (the node's window at the tip), newest first, each with
    /// its subject.
    pub acknowledged: Vec<(Oid, String)>,
    /// Where the window starts, for messages: "since the spec's last version <id>", or
    /// "reachable from HEAD" when the node has no version yet.
    pub since: String,
    /// The node's findings at the tip with hits: what the checkpoint clears.
    pub cleared: Vec<Finding>,
}

/// Why no checkpoint is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AckRefusal {
    #[error("`{id}` is no spec node at HEAD, which has none")]
    NoNodes { id: String },
    #[error("`{id}` is no spec node at HEAD (closest known: {})", closest.join(", "))]
    UnknownNode { id: String, closest: Vec<String> },
    #[error("a trailer `{SPEC_OK}: {id}` would not read back as this node's id")]
    TrailerMismatch { id: String },
    #[error("{id}: {state}, so a checkpoint would acknowledge nothing")]
    NothingToAcknowledge { id: String, state: String },
}

impl AckRefusal {
    /// How to repair it.
    pub fn repair(&self) -> String {
        match self {
            Self::NoNodes { id } => format!("commit `.spec/{id}/spec.md` first"),
            Self::UnknownNode { closest, .. } => format!(
                "pass a node id — the folder path of a `spec.md` under `.spec/`, e.g. `keel ack {}`",
                closest.first().map_or("", String::as_str)
            ),
            Self::TrailerMismatch { .. } => {
                "rename the node's folder so its id has no leading or trailing spaces".to_owned()
            }
            Self::NothingToAcknowledge { .. } => {
                "none needed (`keel lint` judges the node)".to_owned()
            }
        }
    }
}

/// Why [`ack_plan`] gave no plan.
#[derive(Debug, thiserror::Error)]
pub enum AckError {
    #[error(transparent)]
    Refused(#[from] AckRefusal),
    #[error(transparent)]
    Object(#[from] ObjectError),
}

/// What a checkpoint with `message` for node `id` on top of `tip` acknowledges, given the
/// lint `report` at `tip` (which names every node there); refused when the node is
/// unknown, the trailer would not read back, or nothing is left to acknowledge.
pub fn ack_plan(
    db: &dyn Db,
    tip: Commit,
    report: &LintReport,
    id: &str,
    message: &str,
) -> Result<AckPlan, AckError> {
    known_node(&report.nodes, id)?;
    let carries_trailer = parse_trailers(message)
        .iter()
        .any(|t| t.has_key(SPEC_OK) && t.value == id);
    if !carries_trailer {
        return Err(AckRefusal::TrailerMismatch { id: id.to_owned() }.into());
    }
    let node = Node::new(db, NodeId(id.to_owned()));
    let base = node_base(db, tip, node)?;
    let acknowledged = window(db, tip, node)?.commits();
    let since = match base {
        Some(base) => format!("since the spec's last version {}", base.id(db).short(12)),
        None => "reachable from HEAD".to_owned(),
    };
    if acknowledged.is_empty() {
        let state = if base == Some(tip) {
            format!("no commit has come {since}")
        } else {
            format!("every commit {since} is acknowledged already")
        };
        return Err(AckRefusal::NothingToAcknowledge {
            id: id.to_owned(),
            state,
        }
        .into());
    }
    let cleared = report
        .findings
        .iter()
        .filter(|f| f.node == id && !f.hits.is_empty())
        .cloned()
        .collect();
    Ok(AckPlan {
        acknowledged: acknowledged
            .into_iter()
            .map(|commit| (commit.id(db), subject(db, commit)))
            .collect(),
        since,
        cleared,
    })
}

/// The nodes of `report` that owe something a checkpoint would clear: a finding with
/// hits (window commits not yet acknowledged), sorted, each once (`keel ack --all`).
pub fn owing_nodes(report: &LintReport) -> Vec<String> {
    let mut nodes: Vec<String> = report
        .findings
        .iter()
        .filter(|finding| !finding.hits.is_empty())
        .map(|finding| finding.node.clone())
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

/// Refuses `id` unless it is one of `nodes` (the node ids at HEAD), suggesting the
/// closest known ids.
fn known_node(nodes: &[String], id: &str) -> Result<(), AckRefusal> {
    if nodes.iter().any(|node| node == id) {
        return Ok(());
    }
    if nodes.is_empty() {
        return Err(AckRefusal::NoNodes { id: id.to_owned() });
    }
    let mut ranked: Vec<(usize, &str)> = nodes
        .iter()
        .map(|node| (edit_distance(id, node), node.as_str()))
        .collect();
    ranked.sort_unstable();
    Err(AckRefusal::UnknownNode {
        id: id.to_owned(),
        closest: ranked
            .iter()
            .take(SUGGESTIONS)
            .map(|&(_, id)| id.to_owned())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::{AckRefusal, known_node};

    #[test]
    fn an_unknown_node_names_the_closest_known_ids_first_to_last() {
        let nodes = ["auth/login", "auth/logout", "billing", "search"].map(str::to_owned);
        assert_eq!(known_node(&nodes, "auth/login"), Ok(()));
        let refusal = known_node(&nodes, "auth/logn").expect_err("unknown");
        assert_eq!(
            refusal,
            AckRefusal::UnknownNode {
                id: "auth/logn".to_owned(),
                closest: vec![
                    "auth/login".to_owned(),
                    "auth/logout".to_owned(),
                    "billing".to_owned()
                ],
            }
        );
        assert_eq!(
            refusal.repair(),
            "pass a node id — the folder path of a `spec.md` under `.spec/`, e.g. `keel ack auth/login`"
        );
        assert_eq!(
            known_node(&[], "auth"),
            Err(AckRefusal::NoNodes {
                id: "auth".to_owned()
            })
        );
    }
}
