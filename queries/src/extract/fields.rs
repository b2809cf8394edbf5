//! Grammar fields looked up by id: `node.field(&python::BODY)` is
//! `node.child_by_field_name("body")` without the name lookup, which compares the name
//! with every field name of the grammar on each call (a tenth of the Python facts walk).
//!
//! Owns: [`Field`], the [`ChildByField`] extension of tree-sitter's `Node`, and the fields
//! the Python and TypeScript readers (the extractors and the call-graph facts) ask for.
//! Does not own: what any reader does with a field's node.

use std::sync::OnceLock;
use tree_sitter::{Language, Node};

/// How many grammars a field keeps ids for: the TypeScript readers ask the same fields of
/// two (TypeScript and TSX).
const GRAMMARS: usize = 2;

/// A field of a grammar, named as the grammar names it. Its id is found the first time it
/// is asked of a node of a grammar, for up to [`GRAMMARS`] grammars; a node of any other
/// grammar is looked up by name, so the answer is `child_by_field_name`'s for every node.
pub(crate) struct Field {
    name: &'static str,
    /// Per grammar met: the grammar and the field's id in it (0: the grammar has no such
    /// field, which tree-sitter answers with no node).
    known: [OnceLock<(Language, u16)>; GRAMMARS],
}

impl Field {
    pub(crate) const fn new(name: &'static str) -> Self {
        Self {
            name,
            known: [const { OnceLock::new() }; GRAMMARS],
        }
    }

    /// The field's id in `language`, when one of the slots holds (or now takes) it.
    fn id_in(&self, language: &Language) -> Option<u16> {
        super::grammar_slots::slot_for(&self.known, language, || {
            language
                .field_id_for_name(self.name)
                .map_or(0, std::num::NonZeroU16::get)
        })
        .copied()
    }
}

/// `node.field(&FIELD)`: the child of a node in a field.
pub(crate) trait ChildByField<'t> {
    fn field(&self, field: &Field) -> Option<Node<'t>>;
}

impl<'t> ChildByField<'t> for Node<'t> {
    fn field(&self, field: &Field) -> Option<Node<'t>> {
        match field.id_in(&self.language()) {
            Some(id) => self.child_by_field_id(id),
            None => self.child_by_field_name(field.name),
        }
    }
}

/// The fields of the Python grammar that keel reads.
pub(crate) mod python {
    use super::Field;

    pub(crate) static ALIAS: Field = Field::new("alias");
    pub(crate) static ALTERNATIVE: Field = Field::new("alternative");
    pub(crate) static ARGUMENT: Field = Field::new("argument");
    pub(crate) static ARGUMENTS: Field = Field::new("arguments");
    pub(crate) static ATTRIBUTE: Field = Field::new("attribute");
    pub(crate) static BODY: Field = Field::new("body");
    pub(crate) static CONDITION: Field = Field::new("condition");
    pub(crate) static CONSEQUENCE: Field = Field::new("consequence");
    pub(crate) static DEFINITION: Field = Field::new("definition");
    pub(crate) static FUNCTION: Field = Field::new("function");
    pub(crate) static GUARD: Field = Field::new("guard");
    pub(crate) static KEY: Field = Field::new("key");
    pub(crate) static LEFT: Field = Field::new("left");
    pub(crate) static MODULE_NAME: Field = Field::new("module_name");
    pub(crate) static NAME: Field = Field::new("name");
    pub(crate) static OBJECT: Field = Field::new("object");
    pub(crate) static OPERATOR: Field = Field::new("operator");
    pub(crate) static PARAMETERS: Field = Field::new("parameters");
    pub(crate) static RETURN_TYPE: Field = Field::new("return_type");
    pub(crate) static RIGHT: Field = Field::new("right");
    pub(crate) static SUBJECT: Field = Field::new("subject");
    pub(crate) static SUPERCLASSES: Field = Field::new("superclasses");
    pub(crate) static TYPE: Field = Field::new("type");
    pub(crate) static VALUE: Field = Field::new("value");
}

/// The fields of the TypeScript and TSX grammars that keel reads.
pub(crate) mod typescript {
    use super::Field;

    pub(crate) static ALIAS: Field = Field::new("alias");
    pub(crate) static ALTERNATIVE: Field = Field::new("alternative");
    pub(crate) static ARGUMENTS: Field = Field::new("arguments");
    pub(crate) static BODY: Field = Field::new("body");
    pub(crate) static CONDITION: Field = Field::new("condition");
    pub(crate) static CONSEQUENCE: Field = Field::new("consequence");
    pub(crate) static CONSTRUCTOR: Field = Field::new("constructor");
    pub(crate) static DECLARATION: Field = Field::new("declaration");
    pub(crate) static FINALIZER: Field = Field::new("finalizer");
    pub(crate) static FUNCTION: Field = Field::new("function");
    pub(crate) static HANDLER: Field = Field::new("handler");
    pub(crate) static INCREMENT: Field = Field::new("increment");
    pub(crate) static INDEX: Field = Field::new("index");
    pub(crate) static INITIALIZER: Field = Field::new("initializer");
    pub(crate) static KEY: Field = Field::new("key");
    pub(crate) static KIND: Field = Field::new("kind");
    pub(crate) static LEFT: Field = Field::new("left");
    pub(crate) static MODULE: Field = Field::new("module");
    pub(crate) static NAME: Field = Field::new("name");
    pub(crate) static OBJECT: Field = Field::new("object");
    pub(crate) static PARAMETER: Field = Field::new("parameter");
    pub(crate) static PARAMETERS: Field = Field::new("parameters");
    pub(crate) static PATTERN: Field = Field::new("pattern");
    pub(crate) static PROPERTY: Field = Field::new("property");
    pub(crate) static RETURN_TYPE: Field = Field::new("return_type");
    pub(crate) static RIGHT: Field = Field::new("right");
    pub(crate) static SOURCE: Field = Field::new("source");
    pub(crate) static TYPE: Field = Field::new("type");
    pub(crate) static TYPE_PARAMETERS: Field = Field::new("type_parameters");
    pub(crate) static VALUE: Field = Field::new("value");
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::Parser;

    fn parse(language: Language, source: &str) -> tree_sitter::Tree {
        let mut parser = Parser::new();
        // The bundled grammars load: the extractors' own tests parse with them.
        parser.set_language(&language).expect("grammar loads");
        parser
            .parse(source, None)
            .expect("a parse without a timeout finishes")
    }

    /// Every node of a tree, depth first.
    fn nodes(tree: &tree_sitter::Tree) -> Vec<Node<'_>> {
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            out.push(node);
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        out
    }

    #[test]
    fn a_field_by_id_is_the_field_by_name_on_every_node_of_every_grammar() {
        let python = parse(
            tree_sitter_python::LANGUAGE.into(),
            "class A(B):\n    def f(self, x: int = 1) -> int:\n        return g(x).y if x else None\n",
        );
        // The same statics asked of more grammars than they keep ids for: TypeScript's
        // takes the second slot, TSX's finds both taken and is looked up by name; neither
        // may reuse an id found in another grammar.
        let source = "class A extends B { f(x: number): number { return g(x).y; } }\n";
        let typescript = parse(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), source);
        let tsx = parse(tree_sitter_typescript::LANGUAGE_TSX.into(), source);
        let fields = [
            &python::BODY,
            &python::NAME,
            &python::VALUE,
            &python::PARAMETERS,
            &python::FUNCTION,
            &python::OBJECT,
        ];
        let mut found = 0;
        for tree in [&python, &typescript, &tsx] {
            for node in nodes(tree) {
                for field in fields {
                    let by_id = node.field(field);
                    assert_eq!(
                        by_id,
                        node.child_by_field_name(field.name),
                        "{} of {}",
                        field.name,
                        node.kind()
                    );
                    found += usize::from(by_id.is_some());
                }
            }
        }
        // The positive control: the fields are there to be found, in every grammar.
        assert!(found >= 18, "found {found}");
    }
}
