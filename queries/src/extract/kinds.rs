//! Node kinds read from a table: `node.kind()` turns the grammar's C string into a `str`
//! on every call, checking its UTF-8 and length (a thirtieth of a TypeScript edit's
//! instructions); `node.kind_name()` reads the same name from a table made once per
//! grammar.
//!
//! Owns: [`KindName`] and the per-grammar tables. Does not own: what any reader does with
//! a kind.

use std::sync::OnceLock;
use tree_sitter::{Language, Node};

/// How many grammars get a table: Python, TypeScript and TSX. A node of any other grammar
/// is asked `kind()`.
const GRAMMARS: usize = 3;

/// A grammar's kind names, by kind id.
type Names = Box<[Box<str>]>;

/// Per grammar met: the grammar and its kind names.
static TABLES: [OnceLock<(Language, Names)>; GRAMMARS] = [const { OnceLock::new() }; GRAMMARS];

/// `node.kind_name()`: `node.kind()`, read from its grammar's table.
pub(crate) trait KindName<'t> {
    fn kind_name(&self) -> &'t str;
}

impl<'t> KindName<'t> for Node<'t> {
    fn kind_name(&self) -> &'t str {
        let language = self.language();
        super::grammar_slots::slot_for(&TABLES, &language, || table(&language))
            .and_then(|names| names.get(usize::from(self.kind_id())))
            .map_or_else(|| self.kind(), |name| &**name)
    }
}

/// Every kind name of `language`, by kind id.
fn table(language: &Language) -> Names {
    (0..language.node_kind_count())
        .map(|id| {
            u16::try_from(id)
                .ok()
                .and_then(|id| language.node_kind_for_id(id))
                .unwrap_or("")
                .into()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::KindName as _;

    #[test]
    fn kind_name_is_kind_for_every_node_of_each_grammar() {
        let sources: [(tree_sitter::Language, &str); 3] = [
            (
                tree_sitter_python::LANGUAGE.into(),
                "@d\nclass A(B):\n    def f(self, x=1):\n        return [y for y in x if y] or None\n",
            ),
            (
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
                "export class A<T> extends B { #p = 1; m(x: T): void { this.#p++; } }\n",
            ),
            (
                tree_sitter_typescript::LANGUAGE_TSX.into(),
                "const C = () => <div a={1}>{x}</div>;\nfunction f(this: Window) {}\n",
            ),
        ];
        for (language, source) in sources {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&language).expect("the grammar loads");
            let tree = parser.parse(source, None).expect("parses");
            let mut cursor = tree.walk();
            let mut seen = 0;
            loop {
                let node = cursor.node();
                assert_eq!(node.kind_name(), node.kind(), "{source:?}");
                seen += 1;
                if cursor.goto_first_child() || cursor.goto_next_sibling() {
                    continue;
                }
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        break;
                    }
                }
                if cursor.node() == tree.root_node() {
                    break;
                }
            }
            assert!(seen > 20, "{seen} nodes of {source:?}");
        }
    }
}
