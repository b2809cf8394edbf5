//! What an editor asks about a position: go to the unit a spec entry pins, hover and code
//! lenses over a pinned unit (the nodes that pin it and their state), a spec's entries as
//! document symbols, and completion in `spec.md` (a file's units after `path#`, the
//! repository's paths after `- `).
//!
//! Owns: those answers, read from the open buffers (or the files on disk), the specs and
//! the last lint report of the working tree. Does not own: units (`keel_queries::units`),
//! specs (`keel_queries::spec`), findings (`keel_queries::lint`), nor the protocol
//! (`super`).

use super::lines;
use keel_queries::lint::{LintReport, Severity};
use keel_queries::spec::{Entry, NodeId, Relation, SpecNode, Target, parse_spec};
use keel_queries::units::{FileUnit, units_of};
use lsp_types::{
    CodeLens, Command, CompletionItem, CompletionItemKind, DocumentSymbol, Hover, HoverContents,
    MarkupContent, MarkupKind, Position, Range, SymbolKind,
};

/// What the answers read: the text of a repository path, the nodes at the working tree,
/// the last report, the paths the working tree holds.
pub(super) struct View<'a> {
    pub(super) text: &'a dyn Fn(&str) -> Option<String>,
    pub(super) nodes: &'a [SpecNode],
    pub(super) report: Option<&'a LintReport>,
    pub(super) files: &'a dyn Fn() -> Vec<String>,
    /// The id the report names the working tree's commit by.
    pub(super) worktree: &'a str,
    /// `[lint] max_file_bytes`: a larger file is not parsed (lint does not read it either).
    pub(super) max_file_bytes: u64,
}

/// Where go-to-definition goes: a repository path and the lines there.
pub(super) struct Destination {
    pub(super) path: String,
    pub(super) range: Range,
}

impl View<'_> {
    /// The unit (or file) the spec entry under `position` in the spec at `path` pins.
    pub(super) fn definition(&self, path: &str, position: Position) -> Option<Destination> {
        let entry = self.entry_at(path, position.line)?;
        let line_text = (self.text)(path)?
            .lines()
            .nth(position.line as usize)?
            .to_owned();
        match &entry.target {
            Target::Scoped { path, selectors } => {
                let column = byte_column(&line_text, position.character);
                let name = selector_at(&line_text, column)
                    .or_else(|| selectors.first().map(ToString::to_string))?;
                let unit = self.units(path)?.into_iter().find(|u| u.name == name)?;
                Some(Destination {
                    path: path.clone(),
                    range: lines(unit.start_line, unit.end_line),
                })
            }
            Target::Path(file) => Some(Destination {
                path: file.clone(),
                range: lines(1, 1),
            }),
            Target::Folder(_) | Target::Glob(_) => None,
        }
    }

    /// The nodes that pin the innermost unit under `position` in the file at `path`, and
    /// their state.
    pub(super) fn hover(&self, path: &str, position: Position) -> Option<Hover> {
        let line = position.line + 1;
        let unit = self
            .units(path)?
            .into_iter()
            .filter(|u| u.start_line <= line && line <= u.end_line)
            .min_by_key(|u| u.end_line - u.start_line)?;
        let pins = self.pinners(path, &unit.name);
        if pins.is_empty() {
            return None;
        }
        let mut text = format!("**`{}`** ({}) — pinned by:\n", unit.name, unit.kind);
        for (node, relation) in pins {
            let state = self.state(node, path, &unit.name);
            text.push_str(&format!("- `{node}` ({relation}): {state}\n"));
        }
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(lines(unit.start_line, unit.end_line)),
        })
    }

    /// A lens over each pinned unit of the file at `path`: `pinned by auth, billing`.
    pub(super) fn code_lenses(&self, path: &str) -> Vec<CodeLens> {
        let Some(units) = self.units(path) else {
            return Vec::new();
        };
        units
            .into_iter()
            .filter_map(|unit| {
                let pins = self.pinners(path, &unit.name);
                if pins.is_empty() {
                    return None;
                }
                let nodes: Vec<&str> = pins.iter().map(|(node, _)| *node).collect();
                Some(CodeLens {
                    range: lines(unit.start_line, unit.start_line),
                    command: Some(Command {
                        title: format!("pinned by {}", nodes.join(", ")),
                        command: String::new(),
                        arguments: None,
                    }),
                    data: None,
                })
            })
            .collect()
    }

    /// The entries of the spec at `path`, one symbol each.
    #[allow(
        deprecated,
        reason = "DocumentSymbol's `deprecated` field must be given"
    )]
    pub(super) fn symbols(&self, path: &str) -> Vec<DocumentSymbol> {
        let Some(node) = self.spec(path) else {
            return Vec::new();
        };
        node.entries
            .iter()
            .map(|entry| DocumentSymbol {
                name: entry.raw.clone(),
                detail: Some(relation(entry).to_owned()),
                kind: match entry.target {
                    Target::Scoped { .. } => SymbolKind::FUNCTION,
                    _ => SymbolKind::FILE,
                },
                tags: None,
                deprecated: None,
                range: lines(entry.line, entry.line),
                selection_range: lines(entry.line, entry.line),
                children: None,
            })
            .collect()
    }

    /// Completion in a spec at `position`: after `- path#`, the file's units; after
    /// `- `, the repository's paths starting with what is typed.
    pub(super) fn completion(&self, path: &str, position: Position) -> Vec<CompletionItem> {
        let Some(text) = (self.text)(path) else {
            return Vec::new();
        };
        let Some(line) = text.lines().nth(position.line as usize) else {
            return Vec::new();
        };
        let typed = &line[..byte_column(line, position.character)];
        let Some(item) = typed.trim_start().strip_prefix('-').map(str::trim_start) else {
            return Vec::new();
        };
        match item.split_once('#') {
            Some((file, _)) => self
                .units(file)
                .unwrap_or_default()
                .into_iter()
                .map(|unit| CompletionItem {
                    label: unit.name.clone(),
                    kind: Some(unit_kind(unit.kind)),
                    detail: Some(format!(
                        "{} (lines {}-{})",
                        unit.kind, unit.start_line, unit.end_line
                    )),
                    ..CompletionItem::default()
                })
                .collect(),
            None => (self.files)()
                .into_iter()
                .filter(|file| file.starts_with(item) && !file.starts_with(".spec/"))
                .take(MOST_PATHS)
                .map(|file| CompletionItem {
                    label: file,
                    kind: Some(CompletionItemKind::FILE),
                    ..CompletionItem::default()
                })
                .collect(),
        }
    }

    /// The entry of the spec at `path` on 0-based line `line`.
    fn entry_at(&self, path: &str, line: u32) -> Option<Entry> {
        self.spec(path)?
            .entries
            .into_iter()
            .find(|entry| entry.line == line + 1)
    }

    /// The spec at `path` as its buffer (or disk) holds it.
    fn spec(&self, path: &str) -> Option<SpecNode> {
        let id = NodeId::from_spec_path(path)?;
        parse_spec(&id, (self.text)(path)?.as_bytes()).ok()
    }

    fn units(&self, path: &str) -> Option<Vec<FileUnit>> {
        let text = (self.text)(path)?;
        if text.len() as u64 > self.max_file_bytes {
            return None;
        }
        Some(units_of(path, text.as_bytes()).ok()?.units)
    }

    /// The nodes whose entries pin unit `name` of the file at `path`, with the relation.
    fn pinners(&self, path: &str, name: &str) -> Vec<(&str, &'static str)> {
        self.nodes
            .iter()
            .flat_map(|node| node.entries.iter().map(move |entry| (node, entry)))
            .filter(|(_, entry)| match &entry.target {
                Target::Scoped {
                    path: pinned,
                    selectors,
                } => pinned == path && selectors.iter().any(|s| s.to_string() == name),
                _ => false,
            })
            .map(|(node, entry)| (node.id.0.as_str(), relation(entry)))
            .collect()
    }

    /// How the last report stands on `node`'s pin of unit `name` in `path`.
    fn state(&self, node: &str, path: &str, name: &str) -> String {
        let Some(report) = self.report else {
            return "not judged yet".to_owned();
        };
        let hits: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.node == node && f.path == path)
            .flat_map(|f| f.hits.iter().map(move |hit| (f.severity, hit)))
            .filter(|(_, hit)| hit.selectors.iter().any(|s| s == name))
            .collect();
        let edit = hits.iter().find(|(_, hit)| &*hit.commit == self.worktree);
        let earlier = hits
            .iter()
            .filter(|(_, hit)| &*hit.commit != self.worktree)
            .count();
        let mut states = Vec::new();
        if let Some((severity, _)) = edit {
            states.push(
                match severity {
                    Severity::Error => {
                        "your unsaved change changes it: the gate would refuse the commit"
                    }
                    Severity::Warning => "your unsaved change changes it (advisory)",
                }
                .to_owned(),
            );
        }
        if earlier > 0 {
            states.push(format!(
                "owes {} since the spec's last version (`keel ack {node}`)",
                crate::render::counted(earlier, "commit")
            ));
        }
        if states.is_empty() {
            "clean".to_owned()
        } else {
            states.join("; ")
        }
    }
}

/// At most this many paths are offered at once.
const MOST_PATHS: usize = 200;

fn relation(entry: &Entry) -> &'static str {
    match entry.relation {
        Relation::Code => "code",
        Relation::Related => "related",
    }
}

fn unit_kind(kind: &str) -> CompletionItemKind {
    match kind {
        "class" => CompletionItemKind::CLASS,
        "method" => CompletionItemKind::METHOD,
        "variable" => CompletionItemKind::VARIABLE,
        "enum" => CompletionItemKind::ENUM,
        "type" => CompletionItemKind::INTERFACE,
        _ => CompletionItemKind::FUNCTION,
    }
}

/// The selector under byte `column` of a spec line `- path#a,b.c`.
fn selector_at(line: &str, column: usize) -> Option<String> {
    let hash = line.find('#')?;
    if column <= hash {
        return None;
    }
    let mut start = hash + 1;
    for part in line[hash + 1..].split(',') {
        let end = start + part.len();
        if column <= end {
            return Some(part.trim().to_owned());
        }
        start = end + 1;
    }
    None
}

/// The byte offset in `line` of the LSP `character` (UTF-16 code units), clamped to the
/// line's end.
fn byte_column(line: &str, character: u32) -> usize {
    let mut units = 0;
    for (at, c) in line.char_indices() {
        if units >= character as usize {
            return at;
        }
        units += c.len_utf16();
    }
    line.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selector_under_the_cursor_is_the_one_between_its_commas() {
        let line = "  - src/auth.py#login,Session.refresh";
        let at = |text: &str| line.find(text).expect("in the line");
        assert_eq!(selector_at(line, at("login") + 2).as_deref(), Some("login"));
        assert_eq!(
            selector_at(line, at("refresh")).as_deref(),
            Some("Session.refresh")
        );
        assert_eq!(selector_at(line, at("auth")), None, "on the path");
        assert_eq!(byte_column("é#x", 1), 2, "a UTF-16 unit of a two-byte char");
        assert_eq!(byte_column("ab", 9), 2, "clamped to the line");
    }
}
