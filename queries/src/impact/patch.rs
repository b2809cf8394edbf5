//! The patch `keel impact` previews: a unified diff as `git diff` writes it, parsed once
//! from its bytes and applied to the base in memory.
//!
//! Owns: parsing (`diff --git` headers with `new file`/`deleted file`/`rename from`/
//! `rename to`, or plain `---`/`+++` pairs; `a/` and `b/` prefixes; `@@ -l,s +l,s @@`
//! hunks; `\ No newline at end of file`; a binary file's `Binary files … differ` or
//! `GIT binary patch` data, read as a file patch with no hunks), refusing a path that
//! leaves the repository (as `git apply` does), checking each hunk's context and removed
//! lines against the base, and producing each file's candidate bytes.
//! Does not own: which files exist (the caller passes base contents) or what the changed
//! lines mean (`impact`).

/// One file's part of the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub kind: FileKind,
    /// The path before (absent for an added file).
    pub old_path: Option<String>,
    /// The path after (absent for a deleted file).
    pub new_path: Option<String>,
    /// Empty for a file git wrote no lines for: a pure rename, a mode change, an empty
    /// file, a binary file.
    pub hunks: Vec<PatchHunk>,
    /// The patch line its header starts on (1-based), for messages.
    pub header_line: usize,
    /// A binary file (`Binary files … differ`, or `GIT binary patch` and its data): the
    /// patch line that says so (1-based). git wrote no lines of it, so it has no hunks
    /// and nothing keel can check against the base.
    pub binary: Option<usize>,
    /// A copy (`git diff -C`: `copy from`, `copy to`): the file copied, whose content the
    /// hunks apply to. The copy is an added file; the file copied stays as it is.
    pub copied_from: Option<String>,
}

/// What a file patch does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Modify,
    Add,
    Delete,
    Rename,
}

impl FileKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::Modify => "modify",
            Self::Add => "add",
            Self::Delete => "delete",
            Self::Rename => "rename",
        }
    }
}

/// One hunk: its header numbers and lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchHunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<HunkLine>,
    /// The patch line of its `@@` header (1-based), for messages.
    pub header_line: usize,
}

/// One line of a hunk, with its line ending (none when `\ No newline` follows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(Vec<u8>),
    Removed(Vec<u8>),
    Added(Vec<u8>),
}

impl PatchHunk {
    /// The old line numbers it removes and the new line numbers it adds (1-based).
    pub fn changed_lines(&self) -> (Vec<u32>, Vec<u32>) {
        let (mut old, mut new) = (self.old_start.max(1), self.new_start.max(1));
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        for line in &self.lines {
            match line {
                HunkLine::Context(_) => {
                    old += 1;
                    new += 1;
                }
                HunkLine::Removed(_) => {
                    removed.push(old);
                    old += 1;
                }
                HunkLine::Added(_) => {
                    added.push(new);
                    new += 1;
                }
            }
        }
        (removed, added)
    }
}

/// A patch that cannot be read or applied: where, what, and the repair.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("{source_name}:{line}: {reason}; repair: pass a unified diff as `git diff` writes it")]
    Malformed {
        source_name: String,
        line: usize,
        reason: String,
    },
    #[error(
        "{source_name}:{line}: hunk {hunk} of {path} does not apply to the base at line {at} ({reason}); repair: regenerate the patch against the tree you preview it on (or pass --rev)"
    )]
    Mismatch {
        source_name: String,
        line: usize,
        hunk: usize,
        path: String,
        at: u32,
        reason: String,
    },
    #[error(
        "{source_name}:{line}: the patch's file `{path}` {reason} in the base; repair: regenerate the patch against the tree you preview it on (or pass --rev)"
    )]
    FileMismatch {
        source_name: String,
        line: usize,
        path: String,
        reason: String,
    },
    #[error(
        "{source_name}:{line}: the path `{path}` leaves the repository (absolute, `..`, `.` or an empty part, or inside `.git`); keel reads nothing outside it; repair: pass a patch of this repository's files, as `git diff` writes it"
    )]
    Outside {
        source_name: String,
        line: usize,
        path: String,
    },
    #[error(
        "{path}: the patch's path lies beyond a symbolic link (`{link}`) of the working tree; keel does not follow it out of the repository; repair: patch the file where it lives, or pass --rev to preview against a commit"
    )]
    BeyondLink { path: String, link: String },
    #[error(
        "{source_name}:{line}: the patch gives `{path}` as binary (git wrote none of its lines: `.gitattributes` marks it binary, or it holds a NUL byte), and keel reads it for callables, so it cannot tell which change; repair: write the patch with `git diff --text`"
    )]
    BinarySource {
        source_name: String,
        line: usize,
        path: String,
    },
    #[error("{source_name}: the patch changes no file; repair: pass the output of `git diff`")]
    Empty { source_name: String },
    #[error("{source_name}: a base file cannot be read ({reason}); repair: run `git fsck`")]
    Unreadable { source_name: String, reason: String },
}

/// Parses `bytes` (named `source_name` in messages) into its file patches, in order.
pub fn parse(source_name: &str, bytes: &[u8]) -> Result<Vec<FilePatch>, PatchError> {
    let mut parser = Parser {
        source_name,
        lines: split_lines(bytes),
        at: 0,
    };
    let mut files = Vec::new();
    while parser.at < parser.lines.len() {
        match parser.file()? {
            Some(file) => files.push(file),
            None => parser.at += 1,
        }
    }
    if files.is_empty() {
        return Err(PatchError::Empty {
            source_name: source_name.to_owned(),
        });
    }
    Ok(files)
}

/// Does `path` name a file inside the repository, as `git apply` reads one: relative,
/// with no empty, `.` or `..` component and no `.git` folder (any case)?
pub fn stays_inside(path: &str) -> bool {
    !path.starts_with('/')
        && path.split('/').all(|part| {
            !part.is_empty() && part != "." && part != ".." && !part.eq_ignore_ascii_case(".git")
        })
}

/// The lines of `bytes`, each with its `\n`.
fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

struct Parser<'a> {
    source_name: &'a str,
    lines: Vec<&'a [u8]>,
    at: usize,
}

impl<'a> Parser<'a> {
    fn malformed(&self, line: usize, reason: impl Into<String>) -> PatchError {
        PatchError::Malformed {
            source_name: self.source_name.to_owned(),
            line,
            reason: reason.into(),
        }
    }

    fn line(&self, at: usize) -> Option<&'a [u8]> {
        self.lines.get(at).copied()
    }

    /// A file patch starting at the current line, `None` when the line starts none
    /// (text before the first header is skipped, as `git apply` does).
    fn file(&mut self) -> Result<Option<FilePatch>, PatchError> {
        let Some(first) = self.line(self.at) else {
            return Ok(None);
        };
        let git = first.starts_with(b"diff --git ");
        if !git && !first.starts_with(b"--- ") {
            return Ok(None);
        }
        let header_at = self.at;
        let mut kind = FileKind::Modify;
        let (mut old_path, mut new_path) = (None, None);
        let mut binary = None;
        let mut copied_from = None;
        if git {
            self.at += 1;
            while let Some(line) = self.line(self.at) {
                let text = trim_end(line);
                if let Some(path) = text.strip_prefix(b"rename from ") {
                    kind = FileKind::Rename;
                    old_path = Some(self.path_text(path)?);
                } else if let Some(path) = text.strip_prefix(b"rename to ") {
                    kind = FileKind::Rename;
                    new_path = Some(self.path_text(path)?);
                } else if let Some(path) = text.strip_prefix(b"copy from ") {
                    kind = FileKind::Add;
                    copied_from = Some(self.path_text(path)?);
                } else if let Some(path) = text.strip_prefix(b"copy to ") {
                    kind = FileKind::Add;
                    new_path = Some(self.path_text(path)?);
                } else if text.starts_with(b"new file mode") {
                    kind = FileKind::Add;
                } else if text.starts_with(b"deleted file mode") {
                    kind = FileKind::Delete;
                } else if text.starts_with(b"Binary files ") {
                    // `git diff` without `--binary`: one line, and the file patch ends.
                    binary = Some(self.at + 1);
                    self.at += 1;
                    break;
                } else if text == b"GIT binary patch" {
                    binary = Some(self.at + 1);
                    self.at += 1;
                    self.binary_data()?;
                    break;
                } else if text.starts_with(b"--- ") || text.starts_with(b"diff --git ") {
                    break;
                } else if text.starts_with(b"@@") {
                    return Err(self.malformed(self.at + 1, "a hunk before the ---/+++ lines"));
                }
                self.at += 1;
            }
        }
        if binary.is_none() && self.line(self.at).is_some_and(|l| l.starts_with(b"--- ")) {
            let old = self.header_path(b"--- ", b"a/")?;
            let new = self.header_path(b"+++ ", b"b/")?;
            match (&old, &new) {
                // A copy's `---` names the file copied.
                _ if copied_from.is_some() => {}
                (None, Some(_)) => kind = FileKind::Add,
                (Some(_), None) => kind = FileKind::Delete,
                (None, None) => return Err(self.malformed(self.at, "both sides are /dev/null")),
                (Some(_), Some(_)) => {}
            }
            if kind != FileKind::Rename || old_path.is_none() {
                old_path = old.or(old_path);
            }
            if kind != FileKind::Rename || new_path.is_none() {
                new_path = new.or(new_path);
            }
        }
        // No `---`/`+++` lines and no rename (a binary file, a mode change, an empty
        // file): the path is the one `diff --git a/P b/P` names twice, as git reads it.
        if git && old_path.is_none() && new_path.is_none() {
            let path = self.git_header_path(header_at)?;
            old_path.clone_from(&path);
            new_path = path;
        }
        if kind == FileKind::Modify && old_path.is_some() && old_path != new_path {
            kind = FileKind::Rename;
        }
        let mut hunks = Vec::new();
        while binary.is_none() && self.line(self.at).is_some_and(|l| l.starts_with(b"@@")) {
            hunks.push(self.hunk()?);
        }
        let old_path = old_path.filter(|_| kind != FileKind::Add);
        let new_path = new_path.filter(|_| kind != FileKind::Delete);
        // An added file needs its new path, a deleted one its old path, any other both.
        let paths_present = match kind {
            FileKind::Add => new_path.is_some(),
            FileKind::Delete => old_path.is_some(),
            FileKind::Modify | FileKind::Rename => old_path.is_some() && new_path.is_some(),
        };
        if !paths_present {
            return Err(self.malformed(self.at, "a file header without paths"));
        }
        Ok(Some(FilePatch {
            kind,
            old_path,
            new_path,
            hunks,
            header_line: header_at + 1,
            binary,
            copied_from,
        }))
    }

    /// The path of the `diff --git a/P b/P` line at `at` when both halves name one path
    /// (`None` when they differ: only `rename from`/`rename to` or `---`/`+++` can tell
    /// where a space splits them).
    fn git_header_path(&self, at: usize) -> Result<Option<String>, PatchError> {
        let line = self.line(at).unwrap_or_default();
        let halves = trim_end(line.strip_prefix(b"diff --git ").unwrap_or_default());
        if halves.first() == Some(&b'"') {
            return self.path_text_at(halves, at + 1).map(Some);
        }
        let Some(rest) = halves.strip_prefix(b"a/") else {
            return Ok(None);
        };
        // `P b/P`: the two halves are each `(rest.len() - 3) / 2` bytes long.
        let Some(half) = rest
            .len()
            .checked_sub(3)
            .filter(|n| n % 2 == 0)
            .map(|n| n / 2)
        else {
            return Ok(None);
        };
        let (old, new) = rest.split_at(half);
        if new.strip_prefix(b" b/") != Some(old) {
            return Ok(None);
        }
        self.path_text_at(old, at + 1).map(Some)
    }

    /// The data after `GIT binary patch`, as `git diff --binary` writes it: a `literal N`
    /// or `delta N` block of base85 lines ended by a blank line, then (optionally) the
    /// reverse block alike. keel reads none of it, but a block out of shape is refused,
    /// as `git apply` refuses it.
    fn binary_data(&mut self) -> Result<(), PatchError> {
        for block in 0..2 {
            let text = self.line(self.at).map(trim_end);
            let is_header = text.is_some_and(|text| {
                let size = text
                    .strip_prefix(b"literal ")
                    .or_else(|| text.strip_prefix(b"delta "));
                size.is_some_and(|size| !size.is_empty() && size.iter().all(u8::is_ascii_digit))
            });
            if !is_header {
                if block == 0 {
                    return Err(self.malformed(
                        self.at + 1,
                        "a `GIT binary patch` without its `literal N` or `delta N` line",
                    ));
                }
                return Ok(());
            }
            self.at += 1;
            let mut lines = 0;
            while let Some(line) = self.line(self.at) {
                let text = trim_end(line);
                self.at += 1;
                if text.is_empty() {
                    break;
                }
                if !is_base85_line(text) {
                    return Err(self.malformed(self.at, "a binary patch line that is not base85"));
                }
                lines += 1;
            }
            if lines == 0 {
                return Err(self.malformed(self.at, "a binary patch block without data"));
            }
        }
        Ok(())
    }

    /// The path of a `--- ` or `+++ ` line (`None` for `/dev/null`), without `prefix`.
    fn header_path(&mut self, marker: &[u8], prefix: &[u8]) -> Result<Option<String>, PatchError> {
        let line_number = self.at + 1;
        let line = self
            .line(self.at)
            .filter(|l| l.starts_with(marker))
            .ok_or_else(|| {
                self.malformed(
                    line_number,
                    format!(
                        "expected a line starting {:?}",
                        String::from_utf8_lossy(marker)
                    ),
                )
            })?;
        let mut path = trim_end(&line[marker.len()..]);
        // `diff -u` appends a tab and a timestamp.
        if let Some(tab) = path.iter().position(|&b| b == b'\t') {
            path = &path[..tab];
        }
        let path = if path == b"/dev/null" {
            None
        } else {
            let path = path.strip_prefix(prefix).unwrap_or(path);
            Some(self.path_text(path)?)
        };
        self.at += 1;
        Ok(path)
    }

    fn path_text(&self, path: &[u8]) -> Result<String, PatchError> {
        self.path_text_at(path, self.at + 1)
    }

    /// `path` as text, read on patch line `line` (1-based): refused when quoted, not
    /// UTF-8, empty, or leaving the repository.
    fn path_text_at(&self, path: &[u8], line: usize) -> Result<String, PatchError> {
        let path = trim_end(path);
        if path.first() == Some(&b'"') {
            return Err(self.malformed(
                line,
                "a quoted path (set `core.quotePath=false` or rename the file)",
            ));
        }
        let path = String::from_utf8(path.to_vec())
            .map_err(|_| self.malformed(line, "a path that is not UTF-8"))?;
        if path.is_empty() {
            return Err(self.malformed(line, "an empty path"));
        }
        if !stays_inside(&path) {
            return Err(PatchError::Outside {
                source_name: self.source_name.to_owned(),
                line,
                path,
            });
        }
        Ok(path)
    }

    /// One hunk from its `@@` line to the line counts its header gives.
    fn hunk(&mut self) -> Result<PatchHunk, PatchError> {
        let header_line = self.at + 1;
        let header = self.line(self.at).unwrap_or_default();
        let (old_start, old_lines, new_start, new_lines) =
            hunk_header(header).ok_or_else(|| {
                self.malformed(header_line, "a hunk header that is not `@@ -l,s +l,s @@`")
            })?;
        self.at += 1;
        let (mut old_left, mut new_left) = (old_lines, new_lines);
        let mut lines: Vec<HunkLine> = Vec::new();
        while old_left > 0 || new_left > 0 {
            let number = self.at + 1;
            let line = self
                .line(self.at)
                .ok_or_else(|| self.malformed(number, "the patch ends inside a hunk"))?;
            let (marker, body) = match line.split_first() {
                Some((&marker, body)) => (marker, body.to_vec()),
                None => (b' ', Vec::new()),
            };
            // A blank line inside a hunk is an empty context line (some tools strip the space).
            let (marker, body) = if line == b"\n" {
                (b' ', b"\n".to_vec())
            } else {
                (marker, body)
            };
            match marker {
                b' ' if old_left > 0 && new_left > 0 => {
                    old_left -= 1;
                    new_left -= 1;
                    lines.push(HunkLine::Context(body));
                }
                b'-' if old_left > 0 => {
                    old_left -= 1;
                    lines.push(HunkLine::Removed(body));
                }
                b'+' if new_left > 0 => {
                    new_left -= 1;
                    lines.push(HunkLine::Added(body));
                }
                b'\\' => {}
                _ => {
                    return Err(self.malformed(
                        number,
                        format!(
                            "a hunk line that does not fit the header's counts (-{old_lines} +{new_lines})"
                        ),
                    ));
                }
            }
            self.at += 1;
            self.no_newline(&mut lines);
        }
        self.no_newline(&mut lines);
        Ok(PatchHunk {
            old_start,
            old_lines,
            new_start,
            new_lines,
            lines,
            header_line,
        })
    }

    /// `\ No newline at end of file` after a line: that line has no `\n`.
    fn no_newline(&mut self, lines: &mut [HunkLine]) {
        if self.line(self.at).is_some_and(|l| l.starts_with(b"\\")) {
            if let Some(HunkLine::Context(body) | HunkLine::Removed(body) | HunkLine::Added(body)) =
                lines.last_mut()
                && body.last() == Some(&b'\n')
            {
                body.pop();
            }
            self.at += 1;
        }
    }
}

/// A line of `git diff --binary` data: a length letter (`A`-`Z` 1-26 bytes, `a`-`z`
/// 27-52) and the base85 groups of five characters that hold that many bytes.
fn is_base85_line(text: &[u8]) -> bool {
    const BASE85: &[u8] =
        b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let Some((&letter, data)) = text.split_first() else {
        return false;
    };
    let bytes = match letter {
        b'A'..=b'Z' => usize::from(letter - b'A') + 1,
        b'a'..=b'z' => usize::from(letter - b'a') + 27,
        _ => return false,
    };
    data.len() % 5 == 0
        && data.len() / 5 == bytes.div_ceil(4)
        && data.iter().all(|b| BASE85.contains(b))
}

fn trim_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `@@ -l[,s] +l[,s] @@…` as (old start, old count, new start, new count).
fn hunk_header(line: &[u8]) -> Option<(u32, u32, u32, u32)> {
    let text = std::str::from_utf8(trim_end(line)).ok()?;
    let rest = text.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |text: &str| -> Option<(u32, u32)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
        // A range must end within line numbers: `start + count` is counted up to.
        .filter(|&(start, count): &(u32, u32)| start.checked_add(count).is_some())
    };
    let (old_start, old_lines) = range(old)?;
    let (new_start, new_lines) = range(new)?;
    Some((old_start, old_lines, new_start, new_lines))
}

/// The candidate bytes of `file` applied to `base` (`None` for an added file; the file
/// copied for a copy), or `None` for a deleted file. `source_name` and the file's index name the patch in messages.
pub fn apply(
    source_name: &str,
    file: &FilePatch,
    base: Option<&[u8]>,
) -> Result<Option<Vec<u8>>, PatchError> {
    let path = file
        .new_path
        .as_deref()
        .or(file.old_path.as_deref())
        .unwrap_or_default();
    let mismatch = |hunk: usize, at: u32, reason: &str| PatchError::Mismatch {
        source_name: source_name.to_owned(),
        line: file
            .hunks
            .get(hunk)
            .map_or(file.header_line, |h| h.header_line),
        hunk: hunk + 1,
        path: path.to_owned(),
        at,
        reason: reason.to_owned(),
    };
    // A file patch without hunks (a rename, a mode change, a binary or empty file) can
    // only be checked for being there, or not.
    let absent = |reason: &str| {
        if file.hunks.is_empty() {
            PatchError::FileMismatch {
                source_name: source_name.to_owned(),
                line: file.header_line,
                path: file
                    .old_path
                    .as_deref()
                    .or(file.new_path.as_deref())
                    .unwrap_or_default()
                    .to_owned(),
                reason: reason.to_owned(),
            }
        } else {
            mismatch(0, 1, &format!("the file {reason} in the base"))
        }
    };
    let creates = file.kind == FileKind::Add && file.copied_from.is_none();
    let base_lines: Vec<&[u8]> = match (creates, base) {
        (true, Some(_)) => return Err(absent("already exists")),
        (true, None) => Vec::new(),
        (_, None) => return Err(absent("does not exist")),
        (_, Some(bytes)) => split_lines(bytes),
    };
    let mut out: Vec<u8> = Vec::new();
    let mut next = 0usize;
    for (index, hunk) in file.hunks.iter().enumerate() {
        // A hunk that only adds starts after line `old_start`; others at it.
        let first_old = if hunk.old_lines == 0 {
            hunk.old_start as usize
        } else {
            (hunk.old_start as usize).saturating_sub(1)
        };
        if first_old < next || first_old > base_lines.len() {
            return Err(mismatch(
                index,
                hunk.old_start,
                "hunks overlap or run past the file",
            ));
        }
        for line in &base_lines[next..first_old] {
            out.extend_from_slice(line);
        }
        let mut at = first_old;
        for line in &hunk.lines {
            match line {
                HunkLine::Context(body) | HunkLine::Removed(body) => {
                    let number = u32::try_from(at + 1).unwrap_or(u32::MAX);
                    let Some(&real) = base_lines.get(at) else {
                        return Err(mismatch(index, number, "the base ends before the hunk"));
                    };
                    if real != body.as_slice() {
                        return Err(mismatch(index, number, "a context or removed line differs"));
                    }
                    if matches!(line, HunkLine::Context(_)) {
                        out.extend_from_slice(body);
                    }
                    at += 1;
                }
                HunkLine::Added(body) => out.extend_from_slice(body),
            }
        }
        next = at;
    }
    for line in base_lines.get(next..).unwrap_or_default() {
        out.extend_from_slice(line);
    }
    Ok(match file.kind {
        FileKind::Delete => None,
        _ => Some(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "\
diff --git a/m.py b/m.py
index 1111111..2222222 100644
--- a/m.py
+++ b/m.py
@@ -1,3 +1,3 @@
 def f():
-    return 1
+    return 2
 x = f()
@@ -5 +5,2 @@ def g():
 y = 1
+z = 2
diff --git a/new.py b/new.py
new file mode 100644
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+print(1)
\\ No newline at end of file
diff --git a/old.py b/renamed.py
similarity index 90%
rename from old.py
rename to renamed.py
--- a/old.py
+++ b/renamed.py
@@ -1 +1 @@
-a = 1
+a = 2
";

    #[test]
    fn parses_and_applies_git_patches() {
        let files = parse("p.diff", PATCH.as_bytes()).unwrap_or_default();
        assert_eq!(
            shape(&files),
            [
                (FileKind::Modify, Some("m.py"), Some("m.py"), 2, None),
                (FileKind::Add, None, Some("new.py"), 1, None),
                (
                    FileKind::Rename,
                    Some("old.py"),
                    Some("renamed.py"),
                    1,
                    None
                ),
            ]
        );
        let base = b"def f():\n    return 1\nx = f()\ndef g():\ny = 1\n";
        assert_eq!(
            apply("p.diff", &files[0], Some(base)),
            Ok(Some(
                b"def f():\n    return 2\nx = f()\ndef g():\ny = 1\nz = 2\n".to_vec()
            ))
        );
        assert_eq!(
            apply("p.diff", &files[1], None),
            Ok(Some(b"print(1)".to_vec()))
        );
        assert_eq!(files[0].hunks[0].changed_lines(), (vec![2], vec![2]));
        assert_eq!(files[0].hunks[1].changed_lines(), (vec![], vec![6]));
    }

    #[test]
    fn a_patch_that_does_not_match_the_base_is_refused_naming_file_and_hunk() {
        let files = parse("p.diff", PATCH.as_bytes()).unwrap_or_default();
        let stale = b"def f():\n    return 7\nx = f()\ndef g():\ny = 1\n";
        let message = apply("p.diff", &files[0], Some(stale)).map_err(|e| e.to_string());
        assert_eq!(
            message,
            Err("p.diff:5: hunk 1 of m.py does not apply to the base at line 2 (a context or removed line differs); repair: regenerate the patch against the tree you preview it on (or pass --rev)".to_owned())
        );
        assert!(apply("p.diff", &files[1], Some(b"x")).is_err());
    }

    #[test]
    fn a_path_stays_inside_only_when_relative_plain_and_outside_git() {
        for inside in [
            "a.py",
            "src/a.py",
            "a..b/c.py",
            ".github/x.yml",
            "x/.gitignore",
        ] {
            assert!(super::stays_inside(inside), "{inside}");
        }
        for outside in [
            "../a.py",
            "src/../../a.py",
            "/etc/passwd",
            "./a.py",
            "a//b.py",
            "src/",
            ".git/config",
            "x/.GIT/hooks/pre-commit",
            "..",
        ] {
            assert!(!super::stays_inside(outside), "{outside}");
        }
    }

    /// What `git diff` (and `git diff --binary`) write for a binary file changed, added,
    /// deleted and renamed with a change, between two text files.
    const BINARY: &str = "\
diff --git a/m.py b/m.py
--- a/m.py
+++ b/m.py
@@ -1 +1 @@
-a = 1
+a = 2
diff --git a/img.png b/img.png
index 029ace0..3cbbfb2 100644
Binary files a/img.png and b/img.png differ
diff --git a/new.dat b/new.dat
new file mode 100644
index 0000000000000000000000000000000000000000..bdc955b7b2e610ad5a72302b139a2e6cb325519a
GIT binary patch
literal 2
JcmZQz1ONa700IC2

literal 0
HcmV?d00001

diff --git a/old.png b/old.png
deleted file mode 100644
index 3cbbfb2..0000000
Binary files a/old.png and /dev/null differ
diff --git a/big.bin b/big2.bin
similarity index 98%
rename from big.bin
rename to big2.bin
index d1b82f458bd8323e290dd406deddf5b5d2bf0c0b..d2ed8091ea9ee548fe4b03e0bd91e95b77bbff85 100644
GIT binary patch
delta 9
QcmdlXzEga|4sON@0293fi~s-t

delta 7
OcmdlfzC(P&4sHMq9|IEr

diff --git a/n.py b/n.py
--- a/n.py
+++ b/n.py
@@ -1 +1 @@
-b = 1
+b = 2
";

    /// A file patch's kind, paths, hunk count and binary line.
    type Shape<'f> = (
        FileKind,
        Option<&'f str>,
        Option<&'f str>,
        usize,
        Option<usize>,
    );

    /// Each file patch's [`Shape`].
    fn shape(files: &[FilePatch]) -> Vec<Shape<'_>> {
        files
            .iter()
            .map(|f| {
                (
                    f.kind,
                    f.old_path.as_deref(),
                    f.new_path.as_deref(),
                    f.hunks.len(),
                    f.binary,
                )
            })
            .collect()
    }

    #[test]
    fn binary_files_are_file_patches_without_hunks_between_text_ones() {
        let files = parse("p.diff", BINARY.as_bytes()).unwrap_or_default();
        assert_eq!(
            shape(&files),
            [
                (FileKind::Modify, Some("m.py"), Some("m.py"), 1, None),
                (
                    FileKind::Modify,
                    Some("img.png"),
                    Some("img.png"),
                    0,
                    Some(9)
                ),
                (FileKind::Add, None, Some("new.dat"), 0, Some(13)),
                (FileKind::Delete, Some("old.png"), None, 0, Some(23)),
                (
                    FileKind::Rename,
                    Some("big.bin"),
                    Some("big2.bin"),
                    0,
                    Some(29)
                ),
                (FileKind::Modify, Some("n.py"), Some("n.py"), 1, None),
            ]
        );
        // No hunk: applying checks only that the file is there (or not, when added).
        assert_eq!(
            apply("p.diff", &files[1], Some(b"\x89PNG")),
            Ok(Some(b"\x89PNG".to_vec()))
        );
        assert_eq!(
            apply("p.diff", &files[1], None).map_err(|e| e.to_string()),
            Err("p.diff:7: the patch's file `img.png` does not exist in the base; repair: regenerate the patch against the tree you preview it on (or pass --rev)".to_owned())
        );
        assert!(apply("p.diff", &files[2], Some(b"x")).is_err());
        // The last block may end the patch without its blank line.
        let last = "diff --git a/x.bin b/x.bin\nGIT binary patch\nliteral 0\nHcmV?d00001\n";
        let files = parse("p.diff", last.as_bytes()).unwrap_or_default();
        assert_eq!(
            shape(&files),
            [(FileKind::Modify, Some("x.bin"), Some("x.bin"), 0, Some(2))]
        );
    }

    #[test]
    fn a_file_git_wrote_no_lines_for_takes_its_path_from_the_diff_git_line() {
        let patch = "\
diff --git a/a.py b/b.py
similarity index 100%
rename from a.py
rename to b.py
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/e.py b/e.py
new file mode 100644
index 0000000..e69de29
diff --git a/my file.py b/my file.py
deleted file mode 100644
index e69de29..0000000
";
        let files = parse("p.diff", patch.as_bytes()).unwrap_or_default();
        assert_eq!(
            shape(&files),
            [
                (FileKind::Rename, Some("a.py"), Some("b.py"), 0, None),
                (FileKind::Modify, Some("run.sh"), Some("run.sh"), 0, None),
                (FileKind::Add, None, Some("e.py"), 0, None),
                (FileKind::Delete, Some("my file.py"), None, 0, None),
            ]
        );
        // A path that leaves the repository is refused there too, naming its line.
        let outside = "diff --git a/../x b/../x\nold mode 100644\nnew mode 100755\n";
        assert!(matches!(
            parse("p.diff", outside.as_bytes()),
            Err(PatchError::Outside { line: 1, .. })
        ));
    }

    #[test]
    fn malformed_patches_name_their_line() {
        for (text, line) in [
            ("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n", 6),
            ("--- a/x\n+++ b/x\n@@ nonsense @@\n", 3),
            // A `GIT binary patch` out of shape: no `literal`/`delta` line, a line that is
            // not base85 (or whose length letter does not fit its data), no data.
            ("diff --git a/x b/x\nGIT binary patch\nHcmV?d00001\n", 3),
            (
                "diff --git a/x b/x\nGIT binary patch\nliteral 2\nJcmZQz1ONa7 0IC2\n",
                4,
            ),
            (
                "diff --git a/x b/x\nGIT binary patch\nliteral 0\nIcmV?d00001\n",
                4,
            ),
            ("diff --git a/x b/x\nGIT binary patch\nliteral 0\n\n", 4),
            // A header whose halves differ, with nothing else naming its paths.
            ("diff --git a/x b/y\nold mode 100644\nnew mode 100755\n", 3),
            // Found by fuzzing: a new file whose header names no path, a deleted file
            // likewise (each an empty path, at its line), and a range past the last line
            // number u32 can count to.
            ("diff --git \nrename from \nnew file mode", 2),
            ("diff --git \nrename to \ndeleted file mode", 2),
            ("--- a/x\n+++ b/x\n@@ -4294967295,2 +2 @@\n-\n-\n+", 3),
            ("--- \n+++ b/x\n", 1),
        ] {
            match parse("p.diff", text.as_bytes()) {
                Err(PatchError::Malformed { line: at, .. }) => assert_eq!(at, line, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(
            parse("p.diff", b"hello\n"),
            Err(PatchError::Empty { .. })
        ));
    }
}
