//! Spec nodes: `.spec/<node-id>/spec.md` frontmatter, read strictly.
//!
//! Owns: the frontmatter's bounds (its size and nesting, checked by a linear pre-scan
//! before the YAML reader sees it: `MAX_FRONTMATTER_BYTES`, `MAX_FRONTMATTER_DEPTH`)
//! and shape (a mapping whose `code:`/`related:` are lists of strings; a number, boolean
//! or null item is not a path), the entry grammar (`path`, `folder/`, `glob/*`,
//! `path#sel1,sel2`) and path normalization (`src/../a.py` is `a.py`), the
//! `code:`/`related:` relations, the frontmatter keys (a case variant or a one-edit
//! near-miss of `code`/`related` is refused; any other key is prose), how a glob entry
//! compiles ([`compile_glob`]), and every loud refusal the seed names — each a
//! [`SpecError`] naming file, line and repair. A UTF-8 byte order mark before the
//! frontmatter is skipped.
//! Does not own: judging entries against a tree (`lint` sees the tree: a path that exists
//! literally at the tip is a path even when it holds `*`, `?` or `[`; a selector on a
//! folder or on a glob, and a glob that does not compile, are refused there), nor
//! selector syntax and resolution (`anchors`, which also reads a Python file's selector
//! names as Python reads identifiers).
//!
//! The reader, [`parse_spec`], is here; what it reads is split by job: a node and its
//! entries (`node`), the frontmatter's text and YAML (`frontmatter`, its nesting pre-scan
//! in `nesting`), the entry grammar (`entries`), and the refusals (`refusal`).

mod entries;
mod frontmatter;
mod nesting;
mod node;
mod refusal;

pub use entries::{compile_glob, glob_pattern, has_glob_chars, parse_code_entries};
pub use node::{Entry, NodeId, Relation, SPEC_FILE, SPEC_ROOT, SpecNode, Target};
pub use refusal::{EntryRefusal, SpecError};

use entries::{check_entry_set, parse_target};
use frontmatter::{
    BOM, check_depth, check_keys, check_size, frontmatter_lines, read_mapping, string_items,
};
use keel_engine::message::line_of_offset;
use refusal::LineRefusal;

/// Parses one node's `spec.md`: the node, or every refusal of it (never none). A file
/// whose frontmatter cannot be read stops at that one refusal; past it, each bad entry is
/// refused on its own line, so one read names them all.
pub fn parse_spec(id: &NodeId, content: &[u8]) -> Result<SpecNode, Vec<SpecError>> {
    let file = id.spec_path();
    let fail = |(line, message, repair): LineRefusal| SpecError {
        file: file.clone(),
        line: Some(line),
        message,
        repair,
    };
    let text = std::str::from_utf8(content).map_err(|err| {
        vec![fail((
            u32::try_from(line_of_offset(content, err.valid_up_to())).unwrap_or(u32::MAX),
            "spec.md is not UTF-8".to_owned(),
            "save the file as UTF-8".to_owned(),
        ))]
    })?;
    let first = |refusal: LineRefusal| vec![fail(refusal)];
    let body = frontmatter_lines(text.strip_prefix(BOM).unwrap_or(text)).map_err(first)?;
    check_size(&body).map_err(first)?;
    check_depth(&body).map_err(first)?;
    let mapping = read_mapping(&body).map_err(first)?;
    check_keys(&body, &mapping).map_err(first)?;
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for (relation, key) in [(Relation::Code, "code"), (Relation::Related, "related")] {
        let items = match string_items(&body, key, mapping.get(key)) {
            Ok(items) => items,
            Err(refusal) => {
                errors.push(fail(refusal));
                continue;
            }
        };
        for (raw, line) in items {
            match parse_target(&raw) {
                Ok(target) => entries.push(Entry {
                    relation,
                    target,
                    raw,
                    line,
                }),
                Err((message, repair)) => errors.push(fail((line, message, repair.to_owned()))),
            }
        }
    }
    if errors.is_empty()
        && let Err((line, message, repair)) = check_entry_set(&entries)
    {
        errors.push(fail((line, message, repair.to_owned())));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(SpecNode {
        id: id.clone(),
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchors::Selector;
    use frontmatter::{MAX_FRONTMATTER_BYTES, MAX_FRONTMATTER_DEPTH};
    use keel_engine::message::edit_distance;

    /// The node, or the first refusal (the tests of every refusal are below).
    fn parse(text: &str) -> Result<SpecNode, SpecError> {
        parse_spec(&NodeId("auth/login".to_owned()), text.as_bytes())
            .map_err(|mut errors| errors.swap_remove(0))
    }

    fn refusal(text: &str) -> (u32, String) {
        let err = parse(text).expect_err("the spec must be refused");
        assert_eq!(err.file, ".spec/auth/login/spec.md");
        assert!(!err.repair.is_empty());
        (err.line.expect("a parse refusal names a line"), err.message)
    }

    #[test]
    fn a_refusal_echoing_a_line_break_of_the_spec_stays_one_line() {
        // Found by fuzzing: a quoted entry or key holding `\n` was echoed raw.
        for text in [
            "---\ncode:\n- \"a.py \\n#f\"\n---\n",
            "---\n\"Cod\\ne\": [a.py]\n---\n",
        ] {
            let line = parse(text).expect_err("refused").to_string();
            assert!(!line.contains('\n'), "{line}");
            assert!(line.contains("\\n"), "the break is shown escaped: {line}");
        }
    }

    #[test]
    fn entries_keep_declaration_order_and_lines() {
        let node = parse(
            "---\ncode:\n  - a.py#f,C.m\n  - lib/\n  - src/*.ts\nrelated:\n  - b.ts\n---\nprose\n",
        )
        .expect("valid spec");
        let summary: Vec<(Relation, &str, u32)> = node
            .entries
            .iter()
            .map(|e| (e.relation, e.target.path(), e.line))
            .collect();
        assert_eq!(
            summary,
            vec![
                (Relation::Code, "a.py", 3),
                (Relation::Code, "lib", 4),
                (Relation::Code, "src/*.ts", 5),
                (Relation::Related, "b.ts", 7),
            ]
        );
        assert!(matches!(&node.entries[1].target, Target::Folder(_)));
        assert!(matches!(&node.entries[2].target, Target::Glob(_)));
        let Target::Scoped { selectors, .. } = &node.entries[0].target else {
            panic!("a.py#f,C.m is scoped");
        };
        let names: Vec<&str> = selectors.iter().map(Selector::as_str).collect();
        assert_eq!(names, vec!["f", "C.m"]);
    }

    #[test]
    fn items_with_trailing_comments_keep_their_lines() {
        let node =
            parse("---\ncode:\n  - a.py  # why\n  - \"b c.py\" # note\n  - 42.py\t# x\n---\n")
                .expect("valid spec");
        let summary: Vec<(&str, u32)> = node
            .entries
            .iter()
            .map(|e| (e.target.path(), e.line))
            .collect();
        assert_eq!(summary, [("a.py", 3), ("b c.py", 4), ("42.py", 5)]);
        let (line, message) = refusal("---\ncode:\n  - a.py\n  - 42  # the answer\n---\n");
        assert_eq!(line, 4);
        assert!(message.contains("is the number 42,"), "{message}");
    }

    #[test]
    fn a_path_may_hold_inner_spaces() {
        let node = parse("---\ncode:\n  - docs/User Guide.md\n---\n").expect("valid spec");
        assert_eq!(
            node.entries[0].target,
            Target::Path("docs/User Guide.md".to_owned())
        );
    }

    #[test]
    fn flow_lists_and_empty_frontmatter_are_read() {
        let node = parse("---\ncode: [a.py#f, b.py]\n---\n").expect("valid spec");
        assert_eq!(node.entries.len(), 2);
        assert_eq!(node.entries[1].line, 2);
        assert!(parse("---\n---\n").expect("valid").entries.is_empty());
        assert!(
            parse("---\ntitle: x\n---\n")
                .expect("other keys are prose")
                .entries
                .is_empty()
        );
    }

    #[test]
    fn every_loud_refusal_names_its_line() {
        let cases = [
            (
                "---\ncode:\n  - a.py#f\n  - a.py#f\n---\n",
                4,
                "listed twice",
            ),
            ("---\ncode:\n  - a.py#f,f\n---\n", 3, "listed twice"),
            (
                "---\ncode:\n  - a.py#f\n  - a.py\n---\n",
                4,
                "both bare and with selectors",
            ),
            (
                "---\ncode:\n  - a.py\n  - a.py#f\n---\n",
                4,
                "both bare and with selectors",
            ),
            (
                "---\ncode:\n  - a.py#f\n  - a.py#g\n---\n",
                4,
                "two selector entries",
            ),
            ("---\ncode:\n  - src/#f\n---\n", 3, "glob or folder"),
            ("---\ncode:\n  - a.py#\n---\n", 3, "empty selector"),
            ("---\ncode:\n  - a.py#f,,g\n---\n", 3, "empty selector"),
            ("---\ncode:\n  - a.py#f g\n---\n", 3, "not a selector"),
            (
                "---\ncode:\n  - ../x.py\n---\n",
                3,
                "outside the repository",
            ),
            (
                "---\ncode:\n  - /etc/passwd\n---\n",
                3,
                "outside the repository",
            ),
            ("---\ncode:\n  - a//b.py\n---\n", 3, "not a normalised"),
            (
                "---\ncode:\n  - \"a.py #f\"\n---\n",
                3,
                "ends with whitespace",
            ),
            ("no frontmatter\n", 1, "does not start"),
            ("---\ncode:\n  - a.py\n", 1, "never closed"),
            ("---\ncode: [a.py#f\n---\n", 2, "broken frontmatter"),
        ];
        for (text, line, needle) in cases {
            let (got_line, message) = refusal(text);
            assert_eq!(got_line, line, "{text:?}: {message}");
            assert!(message.contains(needle), "{text:?}: {message}");
        }
    }

    #[test]
    fn yaml_positions_are_reported_as_file_lines() {
        let (_, message) = refusal("---\ncode: [a.py#f\n---\n");
        assert!(message.contains("line 2"), "{message}");
    }

    #[test]
    fn every_bad_entry_of_a_spec_is_refused_on_its_own_line() {
        let errors = parse_spec(
            &NodeId("n".to_owned()),
            b"---\ncode:\n  - a.py#f\n  - ''\n  - b/#g\nrelated:\n  - ../out.py\n---\n",
        )
        .expect_err("three bad entries");
        let lines: Vec<Option<u32>> = errors.iter().map(|error| error.line).collect();
        assert_eq!(lines, [Some(4), Some(5), Some(7)]);
        assert!(errors[0].message.contains("empty entry"), "{errors:?}");
    }

    #[test]
    fn non_utf8_names_the_line_of_the_bad_byte() {
        let err = parse_spec(&NodeId("n".to_owned()), b"---\ncode:\n  - a\xff.py\n---\n")
            .expect_err("not UTF-8");
        assert_eq!(err.len(), 1);
        assert_eq!(err[0].line, Some(3));
    }

    #[test]
    fn case_variants_and_near_misses_of_the_keys_are_refused() {
        let cases = [
            (
                "---\nCode:\n  - a.py\n---\n",
                2,
                "`Code` is a case variant of `code`",
            ),
            ("---\nCODE: [a.py]\n---\n", 2, "case variant of `code`"),
            (
                "---\ntitle: x\ncodes:\n  - a.py\n---\n",
                3,
                "`codes` is a near-miss of `code`",
            ),
            ("---\ncdoe:\n  - a.py\n---\n", 2, "near-miss of `code`"),
            (
                "---\ncode: [a.py]\nrelate:\n  - b.py\n---\n",
                3,
                "near-miss of `related`",
            ),
            (
                "---\nRelated: [b.py]\n---\n",
                2,
                "case variant of `related`",
            ),
            ("---\n\"Code\": [a.py]\n---\n", 2, "case variant"),
            ("---\nrleated: ~\n---\n", 2, "near-miss of `related`"),
        ];
        for (text, line, needle) in cases {
            let err = parse(text).expect_err("a mistyped key must be refused");
            assert_eq!(err.line, Some(line), "{text:?}: {err}");
            assert!(err.message.contains(needle), "{text:?}: {err}");
            assert!(err.repair.contains(":` (lower case)"), "{text:?}: {err}");
        }
    }

    #[test]
    fn keys_two_edits_away_stay_prose() {
        for text in [
            "---\ntitle: x\ncreated: 2024-01-01\nowner: me\n---\n",
            "---\ncode: [a.py]\ndate: x\nrole: y\n---\n",
        ] {
            parse(text).expect("other keys are prose");
        }
        assert_eq!(edit_distance("cdoe", "code"), 1);
        assert_eq!(edit_distance("created", "related"), 2);
        assert_eq!(edit_distance("", "code"), 4);
    }

    #[test]
    fn a_null_or_empty_list_reads_as_no_entries() {
        for text in ["---\ncode:\n---\n", "---\ncode: []\nrelated: ~\n---\n"] {
            assert!(parse(text).expect("valid").entries.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn a_path_with_glob_characters_may_carry_selectors() {
        let node = parse("---\ncode:\n  - app/[slug]/page.tsx#Page\n  - app/[id]/x.ts\n---\n")
            .expect("lint decides whether the path exists");
        assert!(
            matches!(&node.entries[0].target, Target::Scoped { path, .. } if path == "app/[slug]/page.tsx")
        );
        assert_eq!(
            node.entries[1].target,
            Target::Glob("app/[id]/x.ts".to_owned())
        );
        let (line, message) = refusal("---\ncode:\n  - app/[slug]/#Page\n---\n");
        assert_eq!(line, 3);
        assert!(message.contains("glob or folder"), "{message}");
    }

    /// A frontmatter whose key `x` holds `levels` flow lists inside each other (the
    /// top-level mapping makes it `levels + 1` deep).
    fn flow_nesting(levels: usize) -> String {
        format!(
            "---\ncode: [a.py]\nx: {}{}\n---\n",
            "[".repeat(levels),
            "]".repeat(levels)
        )
    }

    /// `levels` mappings, each indented one column past the one before (`a0:`, ` a1:`, ...):
    /// `levels` deep.
    fn block_nesting(levels: usize) -> String {
        let keys: String = (0..levels)
            .map(|level| format!("{}a{level}:\n", " ".repeat(level)))
            .collect();
        format!("---\ncode: [a.py]\n{keys}---\n")
    }

    /// `x:` holding `levels` compact lists on one line (`- - - a`): `levels + 1` deep.
    fn compact_nesting(levels: usize) -> String {
        format!("---\ncode: [a.py]\nx:\n{}a\n---\n", "- ".repeat(levels))
    }

    #[test]
    fn frontmatter_nesting_is_bounded_in_every_form() {
        let deepest = MAX_FRONTMATTER_DEPTH;
        // (text at the bound, text one past it, the line that passes it)
        let forms = [
            (flow_nesting(deepest - 1), flow_nesting(deepest), 3),
            (
                block_nesting(deepest),
                block_nesting(deepest + 1),
                deepest as u32 + 3,
            ),
            (compact_nesting(deepest - 1), compact_nesting(deepest), 4),
        ];
        for (at_bound, past, line) in forms {
            parse(&at_bound).unwrap_or_else(|err| panic!("{deepest} levels read: {err}"));
            let err = parse(&past).expect_err("one level more is refused");
            assert_eq!(err.line, Some(line), "{err}");
            assert!(
                err.message
                    .contains("nests deeper than keel's bound of 64 levels"),
                "{err}"
            );
            assert!(err.repair.contains("flatten"), "{err}");
        }
    }

    #[test]
    fn a_frontmatter_nesting_a_hundred_thousand_levels_is_refused_before_yaml_reads_it() {
        let err = parse(&flow_nesting(100_000)).expect_err("refused");
        assert_eq!(err.line, Some(3), "{err}");
        let err = parse(&compact_nesting(100_000)).expect_err("refused");
        assert_eq!(err.line, Some(4), "{err}");
    }

    #[test]
    fn brackets_in_quotes_comments_and_text_do_not_count() {
        let many = "[{".repeat(MAX_FRONTMATTER_DEPTH);
        let texts = [
            format!("x: \"{many}\""),
            format!("x: '{many}'"),
            format!("x: \"a \\\" {many}\""),
            format!("x: 'it''s {many}'"),
            format!("x: [\"{many}\", '{many}']"),
            format!("x: \"a\n  {many}\n  b\""),
            format!("x: a{many}"),
            format!("x: it's {many}"),
            format!("x: a\n  \"{many}"),
            format!("x: 1 # {many}"),
            format!("# {many}"),
            format!("x: |\n  {many}\n  \"\ny: 1"),
            format!("x: >-\n  {many}\n\n  '"),
            format!("x: !!str \"{many}\""),
            format!("x: [!!str \"{many}\"]"),
        ];
        for text in texts {
            let spec = format!("---\ncode: [a.py]\n{text}\n---\n");
            parse(&spec).unwrap_or_else(|err| panic!("{spec:?}: {err}"));
        }
    }

    #[test]
    fn a_quote_inside_plain_text_hides_no_bracket_after_it() {
        let deep = format!("x: {}", "[".repeat(MAX_FRONTMATTER_DEPTH));
        for text in [
            format!("title: a\n  \"\n{deep}"),
            format!("title: it's\n{deep}"),
            format!("notes: |\n  \"\n{deep}"),
        ] {
            let spec = format!("---\ncode: [a.py]\n{text}\n---\n");
            let err = parse(&spec).expect_err("the brackets count");
            assert!(err.message.contains("nests deeper"), "{spec:?}: {err}");
        }
    }

    #[test]
    fn frontmatter_size_is_bounded() {
        // `code: [a.py]` and its line end are 13 bytes, `notes: ` and its line end 8.
        let sized = |bytes: usize| {
            format!(
                "---\ncode: [a.py]\nnotes: {}\n---\n",
                "x".repeat(bytes - 21)
            )
        };
        let node = parse(&sized(MAX_FRONTMATTER_BYTES)).expect("256 KiB is read");
        assert_eq!(node.entries.len(), 1);
        let err = parse(&sized(MAX_FRONTMATTER_BYTES + 1)).expect_err("one byte more is not");
        assert_eq!(err.line, Some(3), "{err}");
        assert!(
            err.message
                .contains("passes keel's bound of 256 KiB (262144 bytes) on line 3"),
            "{err}"
        );
        assert!(err.repair.contains("below the closing `---`"), "{err}");
    }

    #[test]
    fn a_byte_order_mark_before_the_frontmatter_is_skipped() {
        let node = parse("\u{feff}---\ncode:\n  - a.py#f\n---\n").expect("a BOM is no text");
        assert_eq!(node.entries[0].line, 3);
        assert_eq!(node.entries[0].target.path(), "a.py");
    }

    #[test]
    fn paths_with_dot_parts_inside_the_repository_are_normalized() {
        let node = parse(
            "---\ncode:\n  - src/../src/a.py\n  - ./b.py#f\n  - lib/./x/../\n  - src/./*.ts\n---\n",
        )
        .expect("these stay inside the repository");
        let targets: Vec<&Target> = node.entries.iter().map(|entry| &entry.target).collect();
        assert_eq!(
            targets,
            [
                &Target::Path("src/a.py".to_owned()),
                &Target::Scoped {
                    path: "b.py".to_owned(),
                    selectors: vec![Selector::parse("f").expect("selector")],
                },
                &Target::Folder("lib".to_owned()),
                &Target::Glob("src/*.ts".to_owned()),
            ]
        );
        assert_eq!(
            node.entries[0].raw, "src/../src/a.py",
            "raw stays as written"
        );
        let cases = [
            ("src/../../x.py", "outside the repository"),
            ("./../x.py", "outside the repository"),
            ("src/..", "names the repository root"),
            ("./", "names the repository root"),
        ];
        for (entry, needle) in cases {
            let (line, message) = refusal(&format!("---\ncode:\n  - {entry}\n---\n"));
            assert_eq!(line, 3, "{entry}: {message}");
            assert!(message.contains(needle), "{entry}: {message}");
        }
        let (line, message) = refusal("---\ncode:\n  - a.py\n  - ./a.py\n---\n");
        assert_eq!(line, 4);
        assert_eq!(message, "entry `./a.py` is listed twice (as `a.py`)");
    }

    #[test]
    fn numbers_booleans_and_nulls_are_not_paths() {
        let cases = [
            (
                "code:\n  - 42",
                3,
                "`code:` item on line 3 is the number 42, not a path",
                "- \"42\"",
            ),
            (
                "code:\n  - a.py\n  - 1.5",
                4,
                "is the number 1.5,",
                "- \"1.5\"",
            ),
            (
                "code:\n  - true",
                3,
                "is the boolean true, not a path",
                "- \"true\"",
            ),
            (
                "code:\n  - null",
                3,
                "is `null`, which YAML reads as no value",
                "- \"null\"",
            ),
            (
                "code:\n  - ~",
                3,
                "is `~`, which YAML reads as no value",
                "- \"~\"",
            ),
            (
                "code:\n  - a.py\n  -",
                4,
                "item on line 4 is empty, not a path",
                "after the `-`",
            ),
            (
                "code: [a.py, 42]",
                2,
                "item on line 2 is the number 42,",
                "- \"42\"",
            ),
            (
                "related:\n  - 7",
                3,
                "`related:` item on line 3 is the number 7",
                "- \"7\"",
            ),
        ];
        for (yaml, line, needle, repair) in cases {
            let err = parse(&format!("---\n{yaml}\n---\n")).expect_err("not a path");
            assert_eq!(err.line, Some(line), "{yaml:?}: {err}");
            assert!(err.message.contains(needle), "{yaml:?}: {err}");
            assert!(err.repair.contains(repair), "{yaml:?}: {err}");
        }
        let node =
            parse("---\ncode:\n  - \"42\"\n  - 'true'\n---\n").expect("quoted, they are paths");
        let paths: Vec<&str> = node.entries.iter().map(|e| e.target.path()).collect();
        assert_eq!(paths, ["42", "true"]);
    }

    #[test]
    fn a_frontmatter_of_the_wrong_shape_names_the_shape_in_words() {
        let cases = [
            (
                "code: foo",
                2,
                "`code:` must be a list of strings, but it is a string",
            ),
            (
                "code: {a: b}",
                2,
                "`code:` must be a list of strings, but it is a mapping",
            ),
            (
                "code: 3",
                2,
                "`code:` must be a list of strings, but it is the number 3",
            ),
            (
                "title: t\nrelated: x",
                3,
                "`related:` must be a list of strings, but it is a string",
            ),
            ("code: [[a]]", 2, "but its item on line 2 is a list"),
            (
                "code:\n  - a.py\n  - - b.py",
                4,
                "but its item on line 4 is a list",
            ),
            ("code:\n  - a: b", 3, "but its item on line 3 is a mapping"),
            (
                "- a.py",
                2,
                "the frontmatter must be a mapping of keys (`code:`, `related:`), but it is a list",
            ),
            (
                "# notes\njust words",
                3,
                "the frontmatter must be a mapping of keys (`code:`, `related:`), but it is a string",
            ),
        ];
        for (yaml, line, needle) in cases {
            let err = parse(&format!("---\n{yaml}\n---\n")).expect_err("the wrong shape");
            assert_eq!(err.line, Some(line), "{yaml:?}: {err}");
            assert!(err.message.contains(needle), "{yaml:?}: {err}");
            for jargon in ["sequence", "invalid type", "struct", "Vec<", "expected"] {
                assert!(!err.to_string().contains(jargon), "{yaml:?}: {err}");
            }
        }
    }

    #[test]
    fn python_selectors_are_nfkc_normalized_and_others_are_not() {
        let node = parse("---\ncode:\n  - a.py#\u{fb01}nd,\u{ff23}.m\n  - b.ts#\u{fb01}nd\n---\n")
            .expect("valid selectors");
        let names = |index: usize| -> Vec<String> {
            match &node.entries[index].target {
                Target::Scoped { selectors, .. } => {
                    selectors.iter().map(|s| s.as_str().to_owned()).collect()
                }
                other => panic!("scoped expected, got {other:?}"),
            }
        };
        assert_eq!(names(0), ["find", "C.m"]);
        assert_eq!(names(1), ["\u{fb01}nd"], "ECMAScript does not normalize");
        let (line, message) = refusal("---\ncode:\n  - a.py#find,\u{fb01}nd\n---\n");
        assert_eq!(line, 3);
        assert!(message.contains("listed twice"), "{message}");
    }
}
