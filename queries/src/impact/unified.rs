//! The patch between two sets of files, written as the unified diff `keel impact` reads:
//! what `keel lsp` previews for the editor's unsaved buffers against HEAD.
//!
//! Owns: writing it as `git diff --no-renames --histogram --no-indent-heuristic -U0`
//! writes it, with two differences a reader of the patch never needs: no `index` lines
//! and no function context after a hunk's `@@ … @@`; modes are written `100644` (keel's
//! file lists carry no modes, and impact reads none). Paths are written unquoted
//! (`core.quotePath=false`), sorted as git sorts them; a side holding a NUL byte is a
//! `Binary files … differ` line, as git writes it without `--binary`.
//! Does not own: the hunks (`crate::diff`, git's own) or reading the patch back
//! (`patch`).

use crate::diff::{Hunk, is_binary, line_hunks};
use keel_engine::objects::ObjectError;
use keel_engine::{Db, Oid};
use std::collections::BTreeMap;

/// The mode written for an added or deleted file.
const MODE: &str = "100644";

/// The patch that turns `base` into `candidate` (each a file list of paths and blobs):
/// one file patch per path whose blob differs, in path order. Empty when they agree.
pub fn unified_patch(
    db: &dyn Db,
    base: &[(String, Oid)],
    candidate: &[(String, Oid)],
) -> Result<Vec<u8>, ObjectError> {
    let mut sides: BTreeMap<&str, (Option<Oid>, Option<Oid>)> = BTreeMap::new();
    for (path, oid) in base {
        sides.entry(path).or_default().0 = Some(*oid);
    }
    for (path, oid) in candidate {
        sides.entry(path).or_default().1 = Some(*oid);
    }
    let mut out = Vec::new();
    for (path, (old, new)) in sides {
        if old == new {
            continue;
        }
        let read = |oid: Option<Oid>| -> Result<Vec<u8>, ObjectError> {
            oid.map_or_else(
                || Ok(Vec::new()),
                |oid| Ok(db.objects().blob(oid)?.to_vec()),
            )
        };
        file_patch(
            &mut out,
            path,
            old.is_some(),
            new.is_some(),
            &read(old)?,
            &read(new)?,
        );
    }
    Ok(out)
}

/// One file's patch: its header, then its hunks (or its binary line).
fn file_patch(out: &mut Vec<u8>, path: &str, in_old: bool, in_new: bool, old: &[u8], new: &[u8]) {
    let (before, after) = (
        if in_old {
            format!("a/{path}")
        } else {
            "/dev/null".to_owned()
        },
        if in_new {
            format!("b/{path}")
        } else {
            "/dev/null".to_owned()
        },
    );
    out.extend_from_slice(format!("diff --git a/{path} b/{path}\n").as_bytes());
    if !in_old {
        out.extend_from_slice(format!("new file mode {MODE}\n").as_bytes());
    }
    if !in_new {
        out.extend_from_slice(format!("deleted file mode {MODE}\n").as_bytes());
    }
    if is_binary(old) || is_binary(new) {
        out.extend_from_slice(format!("Binary files {before} and {after} differ\n").as_bytes());
        return;
    }
    if old.is_empty() && new.is_empty() {
        return;
    }
    out.extend_from_slice(format!("--- {before}\n+++ {after}\n").as_bytes());
    let (old_lines, new_lines) = (lines_of(old), lines_of(new));
    for hunk in line_hunks(old, new) {
        write_hunk(out, &hunk, &old_lines, &new_lines);
    }
}

/// A hunk's header and lines; a line without its newline is followed by git's
/// `\ No newline at end of file`.
fn write_hunk(out: &mut Vec<u8>, hunk: &Hunk, old: &[&[u8]], new: &[&[u8]]) {
    out.extend_from_slice(hunk.git_header().as_bytes());
    out.push(b'\n');
    let lines = |range: &std::ops::Range<u32>, of: &[&[u8]]| -> Vec<Vec<u8>> {
        let (start, end) = (range.start as usize, range.end as usize);
        of.get(start..end)
            .unwrap_or_default()
            .iter()
            .map(|line| line.to_vec())
            .collect()
    };
    for (sign, text) in lines(&hunk.before, old)
        .into_iter()
        .map(|line| (b'-', line))
        .chain(lines(&hunk.after, new).into_iter().map(|line| (b'+', line)))
    {
        out.push(sign);
        out.extend_from_slice(&text);
        if !text.ends_with(b"\n") {
            out.extend_from_slice(b"\n\\ No newline at end of file\n");
        }
    }
}

/// The lines of `bytes`, each with its terminator.
fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch_of(old: Option<&str>, new: Option<&str>) -> String {
        let mut out = Vec::new();
        file_patch(
            &mut out,
            "src/m.py",
            old.is_some(),
            new.is_some(),
            old.unwrap_or_default().as_bytes(),
            new.unwrap_or_default().as_bytes(),
        );
        String::from_utf8(out).expect("text in, text out")
    }

    #[test]
    fn each_kind_of_file_patch_is_written_as_git_writes_it() {
        let cases = [
            (
                Some("a\nb\nc\n"),
                Some("a\nB\nc\nd"),
                "diff --git a/src/m.py b/src/m.py\n--- a/src/m.py\n+++ b/src/m.py\n\
                 @@ -2 +2 @@\n-b\n+B\n@@ -3,0 +4 @@\n+d\n\\ No newline at end of file\n",
            ),
            (
                None,
                Some("x\n"),
                "diff --git a/src/m.py b/src/m.py\nnew file mode 100644\n--- /dev/null\n\
                 +++ b/src/m.py\n@@ -0,0 +1 @@\n+x\n",
            ),
            (
                Some("x\ny\n"),
                None,
                "diff --git a/src/m.py b/src/m.py\ndeleted file mode 100644\n--- a/src/m.py\n\
                 +++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
            ),
            (
                None,
                Some(""),
                "diff --git a/src/m.py b/src/m.py\nnew file mode 100644\n",
            ),
            (
                Some("a\0"),
                Some("b\0"),
                "diff --git a/src/m.py b/src/m.py\nBinary files a/src/m.py and b/src/m.py differ\n",
            ),
        ];
        for (old, new, expected) in cases {
            assert_eq!(patch_of(old, new), expected, "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn the_written_patch_reads_back_and_applies_to_the_new_text() {
        let (old, new) = (
            "def f():\n    return 1\n\n\ndef g():\n    pass\n",
            "def f():\n    return 2\n\n\ndef g():\n    pass\n    pass",
        );
        let text = patch_of(Some(old), Some(new));
        let files = super::super::patch::parse("p", text.as_bytes()).expect("it parses");
        let applied =
            super::super::patch::apply("p", &files[0], Some(old.as_bytes())).expect("it applies");
        assert_eq!(applied.as_deref(), Some(new.as_bytes()));
    }
}
