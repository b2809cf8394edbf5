//! keel-queries end-to-end tests on repositories built by `keel-fixtures`.
//!
//! `positive_control` proves the harness can observe a known hit before any other
//! comparison means anything; `drift` pins the seed's judgement rules, `history` its rename, merge, ancestry-base and
//! shallow-clone rules, `commit_changes` what each commit authored to `git diff-tree`,
//! `checkpoint` its ack checkpoints; `no_silent_pass`
//! pins that odd or empty input gives a finding or a refusal, never a clean pass;
//! `incremental` proves which queries re-run, `kept_answer` that a kept lint state
//! extended by new commits reads only them; `agreement` compares lint with an oracle
//! built from the git CLI on linear histories, `agreement_history` with an independent
//! git-CLI oracle on branchy histories (renames, merge-owned lines, spec versions on both
//! sides of a merge); `candidate` holds `--pending` to full lint on its nodes and checks the
//! governor transition; `fresh` judges eval readings on their plain
//! ancestry windows; `renames` holds rename pairing to `git diff -M`; `reparse` holds
//! incremental parsing to the full parse's answers, `splice` the Python splice;
//! `callgraph_edits` holds a call graph moved through random edits to a fresh one's,
//! `callgraph_dispatch` its dispatch edges to a Python run's calls;
//! `touched_agrees_with_lint` holds `keel touched` since a node's base to lint's hits;
//! `buffers` holds an editor's unsaved buffers to the working tree's commit.

mod agent_logs;
mod agreement;
mod agreement_history;
mod buffers;
mod callgraph_dispatch;
mod callgraph_edits;
mod callgraph_python;
mod callgraph_python_reach;
mod callgraph_typescript;
mod candidate;
mod checkpoint;
mod commit_changes;
mod drift;
mod fresh;
mod history;
mod impact_incremental;
mod incremental;
mod kept_answer;
mod log_cache;
mod loop_events;
mod loop_property;
mod no_silent_pass;
mod positive_control;
mod python_runtime;
mod renames;
mod reparse;
mod replay;
mod splice;
mod support;
mod touched_agrees_with_lint;
