//! The catalogue of finding codes: each code lint can report, what it means in one line,
//! and the generic repair, for readers that describe rules apart from findings (SARIF's
//! `tool.driver.rules`).
//!
//! Owns: that list. Does not own: when a code is reported or a finding's own wording
//! (`judge`, `candidate`, `nodes`), which names the node and commits.

/// One finding code as a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeDoc {
    /// The kebab-case code findings carry.
    pub code: &'static str,
    /// What a finding of this code means, in one line.
    pub summary: &'static str,
    /// How to repair one, in general.
    pub help: &'static str,
}

/// Every code lint reports, in the order `docs/findings.md` lists them (generated from this).
pub const FINDING_CODES: [CodeDoc; 19] = [
    CodeDoc {
        code: "anchor-hit",
        summary: "A commit since the spec's last version changed an anchored code unit.",
        help: "Review the change against the spec; update the spec (a new version) or add a `Spec-OK: <node-id>` trailer to the commits that keep it true.",
    },
    CodeDoc {
        code: "dead-anchor",
        summary: "A selector names no unit at the tip, or its file is gone.",
        help: "Point the entry at the unit's new name or the file's new path, or remove it; the repair names where a unit of the same qualified name now is, and close names in the same file.",
    },
    CodeDoc {
        code: "ambiguous-anchor",
        summary: "Several units share the name a selector gives.",
        help: "Rename one of the units, or anchor a qualified name that only one of them has.",
    },
    CodeDoc {
        code: "unparseable-anchor",
        summary: "The file does not parse at the tip where the selector's unit would be.",
        help: "Fix the syntax error on the lines the message lists.",
    },
    CodeDoc {
        code: "no-extractor",
        summary: "Selectors on a file keel has no extractor for.",
        help: "List the file bare (whole-file drift), or anchor units in a Python or TypeScript/JavaScript file.",
    },
    CodeDoc {
        code: "too-large",
        summary: "The anchored file is larger than `max_file_bytes` at the tip, so keel does not parse it.",
        help: "Raise `max_file_bytes` under [lint] in keel.toml past the file's size, or anchor units of a smaller file.",
    },
    CodeDoc {
        code: "symlink-anchor",
        summary: "Selectors on a path that is a symbolic link; keel follows no links.",
        help: "Anchor the file the link points to, by its own path in the repository.",
    },
    CodeDoc {
        code: "extractor-unavailable",
        summary: "The file's extractor cannot run here; its anchors are unverified.",
        help: "Run keel where the extractor is available.",
    },
    CodeDoc {
        code: "dead-path",
        summary: "A bare path does not exist at the tip, or a folder or glob covers no file there.",
        help: "Point the entry at the file's new path, or remove it.",
    },
    CodeDoc {
        code: "type-only-anchor",
        summary: "A selector names a type or interface, not a value.",
        help: "Anchor the code that implements the type, or keep the advisory.",
    },
    CodeDoc {
        code: "code-drift",
        summary: "A bare entry's file (or folder or glob) changed since the spec's last version, or a submodule it covers moved (named with its old and new commit).",
        help: "Review the change against the spec; anchor units (`path#unit`) to make drift exact.",
    },
    CodeDoc {
        code: "scoped-code-miss",
        summary: "A file with anchored units changed outside them since the spec's last version.",
        help: "Review the change; `scoped_code_miss = \"ignore\"` under [lint] in keel.toml silences this advisory.",
    },
    CodeDoc {
        code: "path-reused",
        summary: "The entry's file was moved away in the window and a new file took its path: the window's commits to the file the spec was written against belong to the moved file.",
        help: "Point the entry at the moved file if the spec describes that code; otherwise update the spec for the new file at the old path.",
    },
    CodeDoc {
        code: "cosmetic-hit",
        summary: "With `cosmetic = \"warn\"` under [lint]: a hit whose units changed only in comments and whitespace (and docstrings, with `docstrings = \"cosmetic\"`).",
        help: "Nothing the spec says can have changed; `cosmetic = \"block\"` (the default) makes such hits block as `anchor-hit`, marked cosmetic.",
    },
    CodeDoc {
        code: "related-hit",
        summary: "A commit since the spec's last version changed a related unit.",
        help: "Check that the spec still reads true; related entries never block.",
    },
    CodeDoc {
        code: "related-drift",
        summary: "A bare related entry changed since the spec's last version.",
        help: "Check that the spec still reads true; related entries never block.",
    },
    CodeDoc {
        code: "shallow-history",
        summary: "The window reaches past a shallow clone's boundary; the node's anchors are unverified.",
        help: "Fetch the whole history: `git fetch --unshallow` (in CI, `fetch-depth: 0` on the checkout step).",
    },
    CodeDoc {
        code: "governor-removed",
        summary: "The candidate deletes a spec node but leaves files it governed ungoverned.",
        help: "In the same commit, delete those files or list them under `code:` of another node.",
    },
    CodeDoc {
        code: "empty-node",
        summary: "The spec node lists no entries, so it anchors nothing.",
        help: "List the files or units the spec describes under `code:` (or `related:`), or delete the node.",
    },
];

/// The catalogue entry of `code`.
pub fn code_doc(code: &str) -> Option<&'static CodeDoc> {
    FINDING_CODES.iter().find(|doc| doc.code == code)
}

/// A finding's code: one of [`FINDING_CODES`]. (A name of its own, not `&'static str`
/// written out: serde would borrow such a field from its input, and a kept answer is read
/// from a buffer that does not live for the program.)
pub type Code = &'static str;

/// Reads a finding's code back as the catalogue's own `&'static str`; a code the
/// catalogue does not hold is refused (an answer kept on disk by another build).
pub(super) fn known_code<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Code, D::Error> {
    let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
    FINDING_CODES
        .iter()
        .map(|doc| doc.code)
        .find(|code| *code == text)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown finding code `{text}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kebab-case string literal in the sources that make findings: the codes they
    /// report. A new code without a catalogue entry, or an entry no source reports,
    /// fails here.
    #[test]
    fn the_catalogue_is_exactly_the_codes_lint_reports() {
        let sources = [
            include_str!("judge.rs"),
            include_str!("candidate.rs"),
            include_str!("nodes.rs"),
        ];
        let kebab = |text: &str| {
            text.contains('-')
                && text
                    .split('-')
                    .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase()))
        };
        let mut reported: Vec<&str> = Vec::new();
        for source in sources {
            let unescaped = source.replace("\\\"", "");
            let literals: Vec<String> = unescaped
                .split('"')
                .skip(1)
                .step_by(2)
                .filter(|text| kebab(text))
                .map(str::to_owned)
                .collect();
            for literal in literals {
                let doc = code_doc(&literal).unwrap_or_else(|| panic!("{literal} has no entry"));
                reported.push(doc.code);
            }
        }
        for doc in &FINDING_CODES {
            assert!(
                reported.contains(&doc.code),
                "{} is never reported",
                doc.code
            );
        }
    }

    #[test]
    fn codes_are_unique_and_kebab_case() {
        for (index, doc) in FINDING_CODES.iter().enumerate() {
            assert!(
                doc.code
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                doc.code
            );
            assert!(
                FINDING_CODES[..index].iter().all(|d| d.code != doc.code),
                "{} twice",
                doc.code
            );
        }
    }
}
