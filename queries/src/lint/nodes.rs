//! The spec nodes at the tip: every `.spec/**/spec.md`, parsed once per image.
//!
//! Owns: discovery under `.spec/` (nothing there is skipped silently: `.spec` that is no
//! folder, a link or submodule where a node folder belongs, a folder directly under
//! `.spec/` with no `spec.md` anywhere below it, and a `spec.md` that is no regular file
//! are refused), the memoized parse, the refusals that need the tip's tree (a selector on
//! a folder or on a glob, a glob that does not compile), whether a glob entry's path
//! exists literally ([`literal_at`]), the warning for a node that anchors nothing, and the
//! line of the entry a finding is about ([`entry_line`], for readers that point at specs).
//! Does not own: the entry grammar (`spec`).

use super::{Finding, LintError, Severity};
use crate::events::tip_image;
use crate::images::{Image, image_bytes};
use crate::spec::{
    Entry, NodeId, Relation, SPEC_FILE, SPEC_ROOT, SpecError, SpecNode, Target, compile_glob,
    has_glob_chars, parse_spec,
};
use crate::tree::{PathEntry, RepoPath, TreeId, tip_entry, tree_items};
use keel_engine::Db;
use keel_engine::Oid;
use keel_engine::inputs::{Commit, Tip};
use keel_engine::objects::{EntryKind, ObjectError};

/// Every node at the tip, parsed, sorted by id; all spec errors at once.
pub fn spec_nodes(db: &dyn Db, tip: Commit) -> Result<Vec<SpecNode>, LintError> {
    let mut nodes = Vec::new();
    let mut errors = Vec::new();
    let mut files = Vec::new();
    spec_files(db, tip.tree(db), &mut files, &mut errors)?;
    for (path, blob) in files {
        match spec_node(db, Image::at(db, blob, path)).clone() {
            Ok(Ok(node)) => {
                let refused = check_against_tree(db, tip, &node);
                if refused.is_empty() {
                    nodes.push(node);
                }
                errors.extend(refused);
            }
            Ok(Err(refused)) => errors.extend(refused),
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

/// Collects the `spec.md` files under `.spec/` of the tree `root` into `files`, and a
/// refusal for everything discovery would otherwise skip silently into `errors`.
fn spec_files(
    db: &dyn Db,
    root: Oid,
    files: &mut Vec<(String, Oid)>,
    errors: &mut Vec<SpecError>,
) -> Result<(), ObjectError> {
    let items = tree_items(db, TreeId::new(db, root)).clone()?;
    let Some(item) = items.iter().find(|item| item.name == SPEC_ROOT) else {
        return Ok(());
    };
    let refuse = |what: &str, repair: &str| SpecError {
        file: SPEC_ROOT.to_owned(),
        line: None,
        message: format!("`{SPEC_ROOT}` is {what}, so no spec node is read"),
        repair: repair.to_owned(),
    };
    let repair =
        "make `.spec` a folder committed in this repository, holding `.spec/<node-id>/spec.md`";
    match (item.kind, item.symlink) {
        (EntryKind::Tree, _) => {
            walk_spec_folder(db, item.oid, SPEC_ROOT, true, files, errors)?;
        }
        (EntryKind::File, true) => errors.push(refuse(
            "a symbolic link (keel reads the committed tree and follows no links)",
            repair,
        )),
        (EntryKind::File, false) => errors.push(refuse("a file, not a folder", repair)),
        (EntryKind::Submodule, _) => errors.push(refuse(
            "a submodule (keel reads only this repository)",
            repair,
        )),
    }
    Ok(())
}

/// Walks one folder under `.spec/` (`top`: directly `.spec`); returns how many `spec.md`
/// entries it holds at any depth (refused ones included, so their folder is not also
/// reported as empty).
fn walk_spec_folder(
    db: &dyn Db,
    tree: Oid,
    path: &str,
    top: bool,
    files: &mut Vec<(String, Oid)>,
    errors: &mut Vec<SpecError>,
) -> Result<usize, ObjectError> {
    let mut found = 0;
    let items = tree_items(db, TreeId::new(db, tree)).clone()?;
    for item in items.iter() {
        let child = format!("{path}/{}", item.name);
        let refuse = |what: &str, repair: &str| SpecError {
            file: child.clone(),
            line: None,
            message: format!("`{child}` is {what}"),
            repair: repair.to_owned(),
        };
        if item.name == SPEC_FILE {
            found += 1;
            match (item.kind, item.symlink) {
                (EntryKind::File, false) => files.push((child, item.oid)),
                (EntryKind::File, true) => errors.push(refuse(
                    "a symbolic link; keel reads the committed tree and follows no links",
                    "replace the link with the spec's own text",
                )),
                (EntryKind::Tree, _) => errors.push(refuse(
                    "a folder, not a file",
                    "a node is the file `.spec/<node-id>/spec.md`: move the folder's contents elsewhere and write the node's spec there",
                )),
                (EntryKind::Submodule, _) => errors.push(refuse(
                    "a submodule, not a file",
                    "write the node's spec as the file `.spec/<node-id>/spec.md` in this repository",
                )),
            }
            continue;
        }
        match (item.kind, item.symlink) {
            (EntryKind::Tree, _) => {
                let below = walk_spec_folder(db, item.oid, &child, false, files, errors)?;
                if top && below == 0 {
                    errors.push(SpecError {
                        file: child.clone(),
                        line: None,
                        message: format!(
                            "`{child}` holds no {SPEC_FILE} at any depth, so it is no node and nothing in it is judged"
                        ),
                        repair: format!(
                            "write `{child}/{SPEC_FILE}` (or `{child}/<node>/{SPEC_FILE}`), or move the folder out of `.spec`"
                        ),
                    });
                }
                found += below;
            }
            (EntryKind::File, true) if top => errors.push(refuse(
                "a symbolic link where a node folder belongs; keel follows no links",
                "replace the link with the node folder itself, or remove it",
            )),
            (EntryKind::Submodule, _) if top => errors.push(refuse(
                "a submodule where a node folder belongs; keel reads only this repository",
                "commit the node folder in this repository, or remove the submodule",
            )),
            // Any other file is the node's prose or assets.
            _ => {}
        }
    }
    Ok(found)
}

/// What the tip holds at a bare glob entry's path read literally, if it fits how it was
/// written (a trailing `/` asks for a folder). A literal path wins over the glob:
/// `app/[slug]/page.tsx` names that file.
pub(crate) fn literal_at(
    db: &dyn Db,
    tip: Commit,
    glob: &str,
) -> Result<Option<PathEntry>, ObjectError> {
    let literal = glob.trim_end_matches('/');
    let at_tip = tip_entry(db, tip, RepoPath::new(db, literal.to_owned()))?;
    Ok(at_tip.filter(|e| !glob.ends_with('/') || e.kind == EntryKind::Tree))
}

/// The warning for a node whose frontmatter lists no entry (no keys, `code:` with no
/// value, empty lists): it anchors nothing, so it would pass clean whatever changes.
pub(super) fn empty_node_finding(node: &SpecNode) -> Option<Finding> {
    let spec = node.id.spec_path();
    node.entries.is_empty().then(|| Finding {
        node: node.id.0.clone(),
        severity: Severity::Warning,
        code: "empty-node",
        path: spec.clone(),
        selectors: Vec::new(),
        hits: Vec::new(),
        message: format!("{spec} lists no `code:` or `related:` entries, so nothing it describes is checked"),
        repair: format!("list the files or units the spec describes under `code:` (or `related:`) in {spec}, or delete the node"),
    })
}

/// One `spec.md` image parsed, memoized per image.
#[salsa::tracked(returns(ref))]
pub fn spec_node<'db>(
    db: &'db dyn Db,
    image: Image<'db>,
) -> Result<Result<SpecNode, Vec<SpecError>>, ObjectError> {
    let path = image.path(db);
    let bytes = image_bytes(db, image)?;
    let Some(id) = NodeId::from_spec_path(path) else {
        return Ok(Err(vec![SpecError {
            file: path.clone(),
            line: Some(1),
            message: "spec.md is not inside a node folder".to_owned(),
            repair: "move it to `.spec/<node-id>/spec.md`".to_owned(),
        }]));
    };
    Ok(parse_spec(&id, &bytes))
}

/// The 1-based line, in its node's `spec.md` at the tip, of the entry `finding` is about:
/// of the entries naming the finding's path, the one whose selectors include the
/// finding's, then the one whose relation fits its code (`related-*` for `related:`),
/// then the first. `None` when there is no such entry: a finding about the spec as a
/// whole (its path is the spec), a spec gone or refused at the tip, no commits.
pub fn entry_line(db: &dyn Db, finding: &Finding) -> Result<Option<u32>, ObjectError> {
    let Some(tip) = Tip::get(db).commit(db) else {
        return Ok(None);
    };
    let spec = NodeId(finding.node.clone()).spec_path();
    if finding.path == spec {
        return Ok(None);
    }
    let Some(image) = tip_image(db, tip, RepoPath::new(db, spec))? else {
        return Ok(None);
    };
    let node = match spec_node(db, image) {
        Ok(Ok(node)) => node,
        Ok(Err(_)) => return Ok(None),
        Err(err) => return Err(err.clone()),
    };
    let related = finding.code.starts_with("related-");
    let holds_selectors = |entry: &Entry| match &entry.target {
        Target::Scoped { selectors, .. } => finding
            .selectors
            .iter()
            .all(|wanted| selectors.iter().any(|s| s.as_str() == wanted)),
        _ => finding.selectors.is_empty(),
    };
    let fits_relation = |entry: &Entry| (entry.relation == Relation::Related) == related;
    Ok(node
        .entries
        .iter()
        .filter(|entry| entry.target.path() == finding.path)
        .max_by_key(|entry| {
            // `max_by_key` keeps the last of equal keys: rank the declaration order
            // down so the first entry wins a tie.
            (
                holds_selectors(entry),
                fits_relation(entry),
                std::cmp::Reverse(entry.line),
            )
        })
        .map(|entry| entry.line))
}

/// Refusals that need the tip's tree: a selector on a path that is a folder, or on a
/// glob (a path with glob characters that names no file at the tip), and a bare glob that
/// does not compile (unless its path exists literally). After this, every glob lint
/// matches with compiles. Every entry refused, in declaration order.
fn check_against_tree(db: &dyn Db, tip: Commit, node: &SpecNode) -> Vec<SpecError> {
    let mut errors = Vec::new();
    let refuse = |line: u32, message: String, repair: String| SpecError {
        file: node.id.spec_path(),
        line: Some(line),
        message,
        repair,
    };
    for entry in &node.entries {
        let raw = entry.raw.trim();
        // An object read that fails here fails again, and is reported, when lint judges.
        match &entry.target {
            Target::Scoped { path, .. } => {
                let at_tip = tip_entry(db, tip, RepoPath::new(db, path.clone()))
                    .ok()
                    .flatten();
                let problem = match at_tip {
                    Some(e) if e.kind == EntryKind::Tree => Some("a folder"),
                    None if has_glob_chars(path) => {
                        Some("a glob (no file of that exact name exists at the tip)")
                    }
                    _ => None,
                };
                if let Some(problem) = problem {
                    errors.push(refuse(
                        entry.line,
                        format!("`{raw}` puts selectors on {problem}"),
                        "selectors name units of one file: write `folder/file.py#name`, or drop the `#...` part".to_owned(),
                    ));
                }
            }
            Target::Glob(glob) => {
                if literal_at(db, tip, glob).ok().flatten().is_some() {
                    continue;
                }
                if let Err(reason) = compile_glob(glob) {
                    errors.push(refuse(
                        entry.line,
                        format!("`{raw}` is not a valid glob ({reason}), and no path of that exact name exists at the tip"),
                        "fix the pattern (`*` and `?` match inside one folder, `**` across folders, `[a-z]` one character of a set with ranges running low to high, `{a,b}` either), or name an existing path".to_owned(),
                    ));
                }
            }
            Target::Path(_) | Target::Folder(_) => {}
        }
    }
    errors
}
