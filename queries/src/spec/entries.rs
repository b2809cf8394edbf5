//! The entry grammar: `path`, `folder/`, `glob/*`, `path#sel1,sel2`, with path
//! normalization (`src/../a.py` is `a.py`), how a glob entry compiles, and the refusals
//! that need a whole list (duplicates, a file listed both bare and with selectors) — for
//! a node's lists and for a `code:` list written outside a spec alike.
//!
//! Owns: what an entry's text means and every refusal of it.
//! Does not own: selector syntax (`anchors`), where the entries come from (`frontmatter`),
//! or judging them against a tree (`lint`).

use super::node::{Entry, Relation, Target};
use super::refusal::{EntryRefusal, Rejection};
use crate::anchors::Selector;
use keel_engine::message::one_line;
use std::collections::{HashMap, HashSet};

/// Parses a `code:` list written outside a spec (an eval reading's `code` axis) with the
/// same grammar, the same path normalization and the same loud refusals as a node's
/// `code:` list: an empty entry or selector, a path outside the repository, selectors on
/// a folder, a duplicate entry or selector, a file listed both bare and with selectors.
pub fn parse_code_entries(items: &[String]) -> Result<Vec<Target>, EntryRefusal> {
    let refuse = |index: usize, (message, repair): Rejection| EntryRefusal {
        index,
        message: one_line(&message).into_owned(),
        repair: repair.to_owned(),
    };
    let mut entries = Vec::with_capacity(items.len());
    for (index, raw) in items.iter().enumerate() {
        let target = parse_target(raw).map_err(|refusal| refuse(index, refusal))?;
        entries.push(Entry {
            relation: Relation::Code,
            target,
            raw: raw.clone(),
            // The entry's position stands in for its line: `check_entry_set` reports it back.
            line: u32::try_from(index).unwrap_or(u32::MAX),
        });
    }
    check_entry_set(&entries)
        .map_err(|(index, message, repair)| refuse(index as usize, (message, repair)))?;
    Ok(entries.into_iter().map(|entry| entry.target).collect())
}

/// Parses one entry's text into a target.
pub(super) fn parse_target(raw: &str) -> Result<Target, Rejection> {
    let text = raw.trim();
    if text.is_empty() {
        return Err((
            "empty entry".to_owned(),
            "remove the empty list item or write a path",
        ));
    }
    let (written, selectors) = match text.split_once('#') {
        Some((path, selectors)) => (path, Some(selectors)),
        None => (text, None),
    };
    let path = normal_path(written)?;
    let is_glob = has_glob_chars(&path);
    let is_folder = path.ends_with('/');
    let Some(selectors) = selectors else {
        return Ok(if is_glob {
            Target::Glob(path)
        } else if is_folder {
            Target::Folder(path.trim_end_matches('/').to_owned())
        } else {
            Target::Path(path)
        });
    };
    // A path with glob characters may still name one file (`app/[slug]/page.tsx`): lint
    // refuses the selectors when no such file exists at the tip.
    if is_folder {
        return Err((
            format!("`{text}` puts selectors on a glob or folder"),
            "selectors name units of one file: write `path/to/file.py#name`, or drop the `#...` part",
        ));
    }
    Ok(Target::Scoped {
        selectors: parse_selectors(text, &path, selectors)?,
        path,
    })
}

/// The selectors of `text`'s list on the file `path`, each read in that file's language
/// ([`Selector::parse_on`]).
fn parse_selectors(text: &str, path: &str, list: &str) -> Result<Vec<Selector>, Rejection> {
    let mut selectors: Vec<Selector> = Vec::new();
    for part in list.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err((
                format!("`{text}` has an empty selector"),
                "write one unit name between commas, e.g. `file.py#login,Session.refresh`",
            ));
        }
        let selector = Selector::parse_on(path, part).ok_or_else(|| {
            (
                format!("`{part}` is not a selector (in `{text}`)"),
                "a selector is a dotted qualified name without spaces, e.g. `Class.method`",
            )
        })?;
        if selectors.contains(&selector) {
            return Err((
                format!("selector `{part}` is listed twice in `{text}`"),
                "remove the duplicate selector",
            ));
        }
        selectors.push(selector);
    }
    Ok(selectors)
}

/// Whether a path holds a glob character (`*`, `?`, `[`).
pub fn has_glob_chars(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

/// The pattern a bare glob entry matches with: as written, with `**` after a trailing `/`
/// (a glob of folders covers every file under them).
pub fn glob_pattern(glob: &str) -> String {
    if glob.ends_with('/') {
        format!("{glob}**")
    } else {
        glob.to_owned()
    }
}

/// Compiles a bare glob entry exactly as lint matches it (`*` and `?` stay inside one
/// folder, `**` crosses them): lint refuses an entry this rejects (unless its path exists
/// literally at the tip), so `drift::PathPattern::matcher` never meets a bad glob.
pub fn compile_glob(glob: &str) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(&glob_pattern(glob))
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| err.kind().to_string())
}

/// The repository path `path` names: `.` parts dropped and each `..` taking back the
/// part before it (`src/../src/a.py` is `src/a.py`), a trailing `/` kept. Refused: a path
/// that leaves the repository (a leading `/`, a drive, a backslash, a `..` above the
/// root), one that names the root itself, an empty part (`a//b`), and spaces around it.
fn normal_path(path: &str) -> Result<String, Rejection> {
    let outside = || {
        Err((
            format!("`{path}` is outside the repository"),
            "write the path relative to the repository root: no leading `/`, and no `..` that climbs above the root",
        ))
    };
    if path.starts_with('/') || path.contains('\\') || path.get(1..2) == Some(":") {
        return outside();
    }
    if path != path.trim() {
        return Err((
            format!("`{path}` starts or ends with whitespace"),
            "write the path and its selectors without spaces around them: `src/app.py#login`",
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.trim_end_matches('/').split('/') {
        match part {
            "" => {
                return Err((
                    format!("`{path}` is not a normalised repository path"),
                    "write the path relative to the repository root, e.g. `src/app.py`, without empty parts",
                ));
            }
            "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return outside();
                }
            }
            part => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err((
            format!("`{path}` names the repository root, not a path in it"),
            "name a file or folder inside the repository, e.g. `src/app.py` or `src/`",
        ));
    }
    let mut normal = parts.join("/");
    if path.ends_with('/') {
        normal.push('/');
    }
    Ok(normal)
}

/// Refusals that need the whole node: duplicates and bare+scoped mixing.
pub(super) fn check_entry_set(entries: &[Entry]) -> Result<(), (u32, String, &'static str)> {
    // Two entries are one when they name the same target (`a.py` and `./a.py`).
    let mut seen: HashMap<(Relation, &Target), &str> = HashMap::new();
    for entry in entries {
        let raw = entry.raw.trim();
        if let Some(first) = seen.insert((entry.relation, &entry.target), raw) {
            let message = if first == raw {
                format!("entry `{raw}` is listed twice")
            } else {
                format!("entry `{raw}` is listed twice (as `{first}`)")
            };
            return Err((entry.line, message, "remove the duplicate entry"));
        }
    }
    let mut bare: HashSet<(Relation, &str)> = HashSet::new();
    let mut scoped: HashSet<(Relation, &str)> = HashSet::new();
    for entry in entries {
        let key = (entry.relation, entry.target.path());
        match &entry.target {
            Target::Scoped { path, .. } => {
                if bare.contains(&key) {
                    return Err((
                        entry.line,
                        format!("`{path}` is listed both bare and with selectors"),
                        "keep either the bare path (whole file) or the `path#selectors` entry, not both",
                    ));
                }
                if !scoped.insert(key) {
                    return Err((
                        entry.line,
                        format!("`{path}` has two selector entries"),
                        "merge them into one entry: `path#sel1,sel2`",
                    ));
                }
            }
            _ => {
                if scoped.contains(&key) {
                    return Err((
                        entry.line,
                        format!(
                            "`{}` is listed both bare and with selectors",
                            entry.target.path()
                        ),
                        "keep either the bare path (whole file) or the `path#selectors` entry, not both",
                    ));
                }
                bare.insert(key);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_compile_as_lint_matches_them() {
        let star = compile_glob("src/*.py").expect("valid glob");
        assert!(star.is_match("src/a.py"));
        assert!(!star.is_match("src/x/a.py"), "`*` stays inside one folder");
        let deep = compile_glob("src/**/*.py").expect("valid glob");
        assert!(deep.is_match("src/x/y/a.py"));
        let folders = compile_glob("src/*/").expect("valid glob");
        assert!(
            folders.is_match("src/x/y/a.py"),
            "a glob of folders covers their files"
        );
        assert!(!folders.is_match("src/a.py"));
        for bad in ["src/[z-a].py", "src/a[b.py", "src/{a,b"] {
            let err = compile_glob(bad).expect_err("a glob that does not compile");
            assert!(!err.is_empty(), "{bad}");
        }
    }

    #[test]
    fn code_entries_outside_a_spec_get_the_same_grammar_and_refusals() {
        let list = |items: &[&str]| {
            parse_code_entries(&items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
        };
        let targets = list(&["a.py#f,C.m", "b.ts", "src/", "src/*.py"]).expect("valid entries");
        assert_eq!(
            targets,
            vec![
                Target::Scoped {
                    path: "a.py".to_owned(),
                    selectors: vec![
                        Selector::parse("f").expect("selector"),
                        Selector::parse("C.m").expect("selector"),
                    ],
                },
                Target::Path("b.ts".to_owned()),
                Target::Folder("src".to_owned()),
                Target::Glob("src/*.py".to_owned()),
            ]
        );
        let refused = |items: &[&str]| list(items).expect_err("refused");
        let err = refused(&["a.py#f", "b.py#"]);
        assert_eq!(
            (err.index, err.message.as_str()),
            (1, "`b.py#` has an empty selector")
        );
        let err = refused(&["a.py", "b.py", "a.py#f"]);
        assert_eq!(err.index, 2);
        assert!(
            err.message.contains("both bare and with selectors"),
            "{err:?}"
        );
        assert_eq!(refused(&["a.py", "a.py"]).index, 1);
        assert_eq!(refused(&["x", "src/#f"]).index, 1);
    }
}
