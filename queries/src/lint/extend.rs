//! Extending a kept lint answer to a tip a few commits past it: the answer at the new tip
//! from the kept state and what those commits did, without reading the history before
//! them — or `None` when the commits could change more than their own records.
//!
//! Why it is exact: a lint answer is a function of the tip commit alone (its tree, and
//! the history it reaches, both immutable). Past a kept tip `K` by commits of one parent
//! each, git's walk from the new tip is those commits, newest first, then `K`'s walk, so
//! every window grows by them at its newest end and keeps its order. Each window keeps
//! its base and acknowledgements when those commits
//! - change nothing under `.spec/` (no spec version, no new or moved node) and not
//!   `keel.toml` (the settings that word and bound the findings),
//! - carry no `Spec-OK` trailer,
//! - move no submodule (a move is drift of every entry covering the submodule, however it
//!   was written: rare enough to judge whole),
//! - and change every file an entry governs (its path, or under its folder, or matching
//!   its glob) in place, never adding or deleting one: so no lineage gains a rename and
//!   no entry's file appears, disappears or changes kind.
//!
//! Then an entry none of them touched keeps its state whole (its tip findings read the
//! same files), and a touched entry is judged at the new tip again (its tip findings) and
//! its window gains the records of those commits, judged by the same per-commit queries
//! the whole window uses (`scoped_change`, `authored`), before its kept records.
//! Owns: those conditions and that step. Does not own: judging (`judge`), the state
//! (`state`), nor the database of the new commits (`keel_engine::kept_lint`).

use super::judge::{EntryState, EntryWindow, Governed, NodeJudge};
use super::nodes::spec_nodes;
use super::settings::tip_settings;
use super::state::{LintState, NodeState};
use super::{LintError, LintReport, Repairs, Scope, scoped_nodes};
use crate::drift::{Anchor, PathMatcher, PathPattern, scoped_change};
use crate::events::authored;
use crate::history::{ChangeKind, commit_facts, path_changed};
use crate::images::FileBound;
use crate::spec::{Entry, SPEC_ROOT, glob_pattern, has_glob_chars};
use crate::tree::FileChange;
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::ObjectError;
use keel_engine::settings::SETTINGS_FILE;

/// The state at `tip`, which is `since` (newest first) on top of `kept`'s tip, and the
/// report of the nodes `scope` judges there; `None` when those commits could change more
/// than their own records (see the module doc), or when the tip's specs or settings are
/// refused (a whole lint reports that). The state is every node's, whatever the scope: a
/// candidate's scope only chooses which of them its report shows.
pub fn extend(
    db: &dyn Db,
    kept: &LintState,
    tip: Commit,
    since: &[Commit],
    scope: Scope,
) -> Result<Option<(LintState, LintReport)>, ObjectError> {
    // A candidate's scope reads the parents of its new commits, which this database
    // knows only for the commits since the kept tip (it knows no commit before that).
    let beyond = |id: &keel_engine::Oid| !since.iter().any(|commit| commit.id(db) == *id);
    match &scope {
        Scope::Pending if since.is_empty() => return Ok(None),
        Scope::Update(new) if new.iter().any(beyond) => return Ok(None),
        _ => {}
    }
    let settings = match tip_settings(db, tip)? {
        Ok(settings) => settings.lint,
        Err(_) => return Ok(None),
    };
    let nodes = match spec_nodes(db, tip) {
        Ok(nodes) => nodes,
        Err(LintError::Object(err)) => return Err(err),
        Err(_) => return Ok(None),
    };
    let same_nodes = nodes.len() == kept.nodes.len()
        && nodes.iter().zip(&kept.nodes).all(|(node, state)| {
            node.id.0 == state.id && node.entries.len() == state.entries.len()
        });
    if !same_nodes || !kept.leading.is_empty() {
        return Ok(None);
    }
    let mut changes: Vec<(Commit, &[FileChange])> = Vec::with_capacity(since.len());
    for &commit in since {
        let facts = commit_facts(db, commit);
        let Ok(changed) = &facts.changes else {
            return Ok(None);
        };
        if !facts.acks.is_empty()
            || !changed.gitlinks().is_empty()
            || changed.iter().any(|c| moves_judgement(&c.path))
        {
            return Ok(None);
        }
        changes.push((commit, &changed[..]));
    }
    let bound = FileBound(settings.max_file_bytes);
    let mut states = Vec::with_capacity(nodes.len());
    for (node, state) in nodes.iter().zip(&kept.nodes) {
        let mut judge = NodeJudge::new(db, tip, node, bound, Repairs::Full);
        let mut entries = Vec::with_capacity(node.entries.len());
        for (entry, judged) in node.entries.iter().zip(&state.entries) {
            let governs = Governs::new(entry);
            let touched: Vec<&FileChange> = changes
                .iter()
                .flat_map(|(_, changed)| changed.iter())
                .filter(|change| governs.path(&change.path))
                .collect();
            if touched.is_empty() {
                entries.push(judged.clone());
                continue;
            }
            if touched
                .iter()
                .any(|c| ChangeKind::of(c) != ChangeKind::Modified)
            {
                return Ok(None);
            }
            let governed = judge.entry_tip(entry)?;
            let (mut tip_findings, unverified) = judge.take();
            // Renames and new files end the extension above, so a reused path stays as
            // the kept answer judged it.
            tip_findings.extend(
                judged
                    .tip
                    .iter()
                    .filter(|finding| finding.code == "path-reused")
                    .cloned(),
            );
            let window = match (governed, &judged.window) {
                (None, None) => None,
                (Some(governed), Some(kept)) if governed == kept.governed => {
                    Some(extended(db, kept, since, bound)?)
                }
                _ => return Ok(None),
            };
            entries.push(EntryState {
                tip: tip_findings,
                unverified,
                window,
            });
        }
        states.push(NodeState {
            id: state.id.clone(),
            version: state.version.clone(),
            findings: state.findings.clone(),
            unverified: state.unverified.clone(),
            entries,
        });
    }
    let state = LintState {
        tip: tip.id(db).to_string(),
        leading: Vec::new(),
        nodes: states,
    };
    let (judged, leading) = scoped_nodes(db, tip, nodes, scope)?;
    let report = state.report_scoped(&judged, &leading, &settings);
    Ok(Some((state, report)))
}

/// Does a change at `path` move what lint judges beyond its own records: a spec or the
/// settings?
fn moves_judgement(path: &str) -> bool {
    path == SETTINGS_FILE || at_or_under(path, SPEC_ROOT)
}

/// Is `path` the path `root`, or a path under it?
fn at_or_under(path: &str, root: &str) -> bool {
    path.strip_prefix(root)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Which paths an entry governs, as its spec wrote it: the path itself, every path under
/// it (a folder), and every path its glob matches. A superset of what the tip resolves
/// the entry to, which is all the conditions need.
struct Governs<'e> {
    target: &'e str,
    glob: Option<PathMatcher>,
}

impl<'e> Governs<'e> {
    fn new(entry: &'e Entry) -> Self {
        let target = entry.target.path().trim_end_matches('/');
        let glob =
            has_glob_chars(target).then(|| PathPattern::Glob(glob_pattern(target)).matcher());
        Self { target, glob }
    }

    fn path(&self, path: &str) -> bool {
        at_or_under(path, self.target) || self.glob.as_ref().is_some_and(|matches| matches(path))
    }
}

/// `kept`'s window grown by the records of `since` (newest first), which precede its own.
fn extended(
    db: &dyn Db,
    kept: &EntryWindow,
    since: &[Commit],
    bound: FileBound,
) -> Result<EntryWindow, ObjectError> {
    let mut window = EntryWindow::new(kept.governed.clone());
    for &commit in since {
        match &kept.governed {
            Governed::Units { path, selectors } => {
                if path_changed(db, commit, path)? {
                    let anchor = Anchor::new(db, path.clone(), selectors.clone(), bound);
                    let change = scoped_change(db, commit, anchor).clone()?;
                    window.record(db, selectors, commit, None, change);
                }
            }
            Governed::File(path) => {
                if authored(db, commit, path)? {
                    window.record_authoring(db, commit, None);
                }
            }
            Governed::Files(pattern) => {
                if authored_any(db, commit, pattern)? {
                    window.record_authoring(db, commit, None);
                }
            }
        }
    }
    window.hits.extend(kept.hits.iter().cloned());
    window.missed.extend(kept.missed.iter().cloned());
    window.submodules.extend(kept.submodules.iter().cloned());
    Ok(window)
}

/// Did `commit` author a change to a file `pattern` covers?
fn authored_any(db: &dyn Db, commit: Commit, pattern: &PathPattern) -> Result<bool, ObjectError> {
    let matches = pattern.matcher();
    let changes = commit_facts(db, commit)
        .changes
        .as_ref()
        .map_err(Clone::clone)?;
    for change in changes.iter().filter(|c| matches(&c.path)) {
        if authored(db, commit, &change.path)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Relation, Target};

    fn entry(target: Target) -> Entry {
        Entry {
            relation: Relation::Code,
            target,
            raw: String::new(),
            line: 1,
        }
    }

    #[test]
    fn an_entry_governs_its_path_what_lies_under_it_and_what_its_glob_matches() {
        let file = entry(Target::Path("app.py".to_owned()));
        let folder = entry(Target::Folder("lib".to_owned()));
        let glob = entry(Target::Glob("tools/*.py".to_owned()));
        let cases: [(&Entry, &str, bool); 8] = [
            (&file, "app.py", true),
            (&file, "app.pyc", false),
            (&file, "app.py/x", true),
            (&folder, "lib/a.py", true),
            (&folder, "libx/a.py", false),
            (&folder, "lib", true),
            (&glob, "tools/t.py", true),
            (&glob, "tools/t.txt", false),
        ];
        for (entry, path, governed) in cases {
            let target = entry.target.path();
            assert_eq!(
                Governs::new(entry).path(path),
                governed,
                "{target} and {path}"
            );
        }
    }

    #[test]
    fn a_spec_or_the_settings_move_the_judgement_and_look_alikes_do_not() {
        for (path, moves) in [
            (".spec/app/spec.md", true),
            (".spec", true),
            ("keel.toml", true),
            (".specs/a.md", false),
            ("docs/keel.toml", false),
            ("docs/.spec/a/spec.md", false),
        ] {
            assert_eq!(moves_judgement(path), moves, "{path}");
        }
    }
}
