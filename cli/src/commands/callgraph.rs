//! `keel callgraph`: the repository's call graph — nodes, edges and the call sites keel
//! could not resolve.
//!
//! Owns: choosing the source tree (the working tree, or `--rev`), printing the graph.
//! Does not own: building it (`keel_queries::callgraph`).

use super::{CommandError, Format, write_stdout};
use crate::exit::ExitStatus;
use keel_engine::settings::{SETTINGS_FILE, Settings};
use keel_engine::{Db, KeelDatabase, Oid};
use keel_queries::callgraph::{
    CallGraph, call_graph_on_threads, callgraph_json, graph_inputs, is_graph_input,
};
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
    let base = Base::of(&db, args.rev.as_deref())?;
    let files = match base.commit {
        Some((_, tree)) => tree_graph_files(&db, tree)?,
        None => db.worktree_files(is_graph_input)?,
    };
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
    Ok(ExitStatus::Clean)
}

/// What the base is read from: the working tree, or the commit `--rev` names (its id
/// and root tree), resolved once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Base {
    pub(crate) commit: Option<(Oid, Oid)>,
}

impl Base {
    pub(crate) fn of(db: &KeelDatabase, rev: Option<&str>) -> Result<Self, CommandError> {
        let commit = rev
            .map(|rev| {
                let id = db.resolve_commit(rev)?;
                Ok::<_, CommandError>((id, db.commit_tree(id)?))
            })
            .transpose()?;
        Ok(Self { commit })
    }

    /// The bytes of the base's file at `path`; `None` when the base has no such file.
    pub(crate) fn read(
        self,
        db: &KeelDatabase,
        path: &str,
    ) -> Result<Option<Vec<u8>>, CommandError> {
        let fsck = |err: keel_engine::objects::ObjectError| CommandError::objects(&err);
        match self.commit {
            Some((_, tree)) => keel_queries::tree::lookup(db, tree, path)
                .map_err(fsck)?
                .map(|entry| db.objects().blob(entry.oid).map(|bytes| bytes.to_vec()))
                .transpose()
                .map_err(fsck),
            None => Ok(db
                .work_dir()
                .map(|root| root.join(path))
                .filter(|path| path.is_file())
                .map(std::fs::read)
                .transpose()?),
        }
    }
}

/// The base tree's `keel.toml`, read and checked once: its bytes (`None` without one: the
/// settings are then the defaults), for naming the line of a value a command refuses, and
/// its settings. `[lint] max_file_bytes` is the largest source file the graph parses.
pub(crate) fn base_settings(
    db: &KeelDatabase,
    base: Base,
) -> Result<(Option<Vec<u8>>, Settings), CommandError> {
    let Some(bytes) = base.read(db, SETTINGS_FILE)? else {
        return Ok((None, Settings::default()));
    };
    let settings = Settings::from_bytes(&bytes)?;
    Ok((Some(bytes), settings))
}

/// The files a graph reads of the tree `tree`.
pub(crate) fn tree_graph_files(
    db: &KeelDatabase,
    tree: Oid,
) -> Result<Vec<(String, Oid)>, CommandError> {
    let files =
        keel_queries::tree::files_under(db, tree, "").map_err(|err| CommandError::objects(&err))?;
    Ok(files
        .into_iter()
        .filter(|(path, _)| is_graph_input(path))
        .collect())
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
