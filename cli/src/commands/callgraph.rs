//! `keel callgraph`: the repository's call graph — nodes, edges and the call sites keel
//! could not resolve.
//!
//! Owns: choosing the source tree (the working tree, or `--rev`), printing the graph, and
//! a warning on stderr naming each source file left out because its name is not UTF-8.
//! Does not own: building it (`keel_queries::callgraph`).

use super::graph_base::{Base, base_settings, graph_inputs_of, warn_not_in_graph};
use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use keel_engine::{Db as _, KeelDatabase};
use keel_queries::callgraph::{CallGraph, call_graph_on_threads, callgraph_json, graph_inputs};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Which callables call which, across the repository (Python and TS/JS).
///
/// Exit 0 with the graph; 2: bad usage or unreadable input.
#[derive(Debug, clap::Args)]
pub(crate) struct CallgraphArgs {
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Build the graph of this commit (an id or any revision) instead of the working tree.
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub(crate) fn cmd_callgraph(args: &CallgraphArgs) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(&args.repo)?;
    // One graph, then the process exits: no parse hint is read again.
    keel_queries::callgraph::single_use(db.hints());
    let base = Base::of(&db, args.rev.as_deref())?;
    let (files, not_utf8) = graph_inputs_of(&db, base)?;
    warn_not_in_graph(&not_utf8);
    let (_, settings) = base_settings(&db, base)?;
    let tree = db.sources(graph_inputs(&files), settings.lint.max_file_bytes);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let graph = call_graph_on_threads(&db, tree, threads);
    let text = match args.format {
        Format::Json => {
            let mut text = callgraph_json(graph).to_text();
            text.push('\n');
            text
        }
        Format::Text => callgraph_text(graph),
    };
    write_stdout(&text)?;
    // The process exits next: the OS takes the database's memory back at once, where
    // dropping it would free every parse tree, hint and memo one by one (a twentieth of
    // the command's time on click's tree).
    std::mem::forget(db);
    Ok(ExitStatus::Clean)
}

/// One line per node with its callers' count, then the edges, then what did not resolve.
fn callgraph_text(graph: &CallGraph) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} nodes, {} edges, {} unresolved call sites{}",
        graph.nodes.len(),
        graph.edges.len(),
        graph.unresolved.len(),
        if graph.partial.is_empty() {
            String::new()
        } else {
            format!(", {} files read in part", graph.partial.len())
        }
    );
    for edge in &graph.edges {
        let lines: Vec<String> = edge.sites.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "{} -> {} (line {})",
            edge.caller,
            edge.callee,
            lines.join(", ")
        );
    }
    for site in &graph.unresolved {
        let _ = writeln!(
            out,
            "unresolved: {}:{} {} (in {})",
            site.caller.path(),
            site.line,
            site.callee_text,
            site.caller
        );
    }
    for path in &graph.partial {
        let _ = writeln!(
            out,
            "read in part: {path} (it did not parse cleanly, or it is larger than max_file_bytes)"
        );
    }
    out
}
