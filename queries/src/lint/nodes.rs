//! The spec nodes at the tip: every `.spec/**/spec.md`, parsed once per image.
//!
//! Owns: discovery under `.spec/`, the memoized parse, and the refusals that need the
//! tip's tree (a selector on a folder). Does not own: the entry grammar (`spec`).

use super::LintError;
use crate::images::{Image, image_bytes};
use crate::spec::{NodeId, SPEC_FILE, SPEC_ROOT, SpecError, SpecNode, Target, parse_spec};
use crate::tree::{RepoPath, entry_at, files_under};
use keel_engine::Db;
use keel_engine::inputs::Commit;
use keel_engine::objects::{EntryKind, ObjectError};

/// Every node at the tip, parsed, sorted by id; all spec errors at once.
pub fn spec_nodes(db: &dyn Db, tip: Commit) -> Result<Vec<SpecNode>, LintError> {
    let mut nodes = Vec::new();
    let mut errors = Vec::new();
    for (path, blob) in files_under(db, tip.tree(db), SPEC_ROOT)? {
        if path.rsplit('/').next() != Some(SPEC_FILE) {
            continue;
        }
        match spec_node(db, Image::new(db, blob, path)).clone() {
            Ok(Ok(node)) => match check_against_tree(db, tip, &node) {
                Ok(()) => nodes.push(node),
                Err(error) => errors.push(error),
            },
            Ok(Err(error)) => errors.push(error),
            Err(err) => return Err(err.into()),
        }
    }
    if !errors.is_empty() {
        errors.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        return Err(LintError::Specs(errors));
    }
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(nodes)
}

/// One `spec.md` image parsed, memoized per image.
#[salsa::tracked(returns(ref))]
pub fn spec_node<'db>(
    db: &'db dyn Db,
    image: Image<'db>,
) -> Result<Result<SpecNode, SpecError>, ObjectError> {
    let path = image.path(db);
    let bytes = image_bytes(db, image)?;
    let Some(id) = NodeId::from_spec_path(path) else {
        return Ok(Err(SpecError {
            file: path.clone(),
            line: 1,
            message: "spec.md is not inside a node folder".to_owned(),
            repair: "move it to `.spec/<node-id>/spec.md`".to_owned(),
        }));
    };
    Ok(parse_spec(&id, &bytes))
}

/// Refusals that need the tip's tree: a selector on a path that is a folder.
fn check_against_tree(db: &dyn Db, tip: Commit, node: &SpecNode) -> Result<(), SpecError> {
    for entry in &node.entries {
        let Target::Scoped { path, .. } = &entry.target else {
            continue;
        };
        let at_tip = entry_at(db, tip, RepoPath::new(db, path.clone()))
            .ok()
            .flatten();
        if at_tip.is_some_and(|e| e.kind == EntryKind::Tree) {
            return Err(SpecError {
                file: node.id.spec_path(),
                line: entry.line,
                message: format!("`{}` puts selectors on a folder", entry.raw.trim()),
                repair: "selectors name units of one file: write `folder/file.py#name`, or drop the `#...` part".to_owned(),
            });
        }
    }
    Ok(())
}
