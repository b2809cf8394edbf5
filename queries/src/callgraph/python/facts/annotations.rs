//! Type annotations as the walk reads them: the classes an annotation names, through
//! `Optional`, `Union`, `X | None`, `Annotated`, `ClassVar`, `type[X]`, `Self` and string
//! forward references.
//!
//! Owns: what an annotation declares a value to be (instances of the classes it names,
//! the classes themselves, a tuple of such items: `tuple[A, B]`, `tuple[A, ...]`, or a
//! builtin container of them: `list[A]`, `Iterable[A]`, `dict[K, V]`, `Mapping[K, V]`…),
//! and the annotations that say nothing of a class.
//! Does not own: where annotations are written (`definitions`, `assignments`).

use super::model::{Expr, ExprId, ScopeKind};
use super::{Builder, Ctx, compact};
use crate::extract::fields::{ChildByField as _, python as fields};
use crate::extract::kinds::KindName as _;
use tree_sitter::Node;

impl Builder<'_> {
    /// The values an annotation declares: instances of the classes it names (through
    /// `Optional`, `Union`, `X | None`, `Annotated`, `ClassVar`, string forward
    /// references), the classes themselves for `type[X]`, an instance of the enclosing
    /// class for `Self`. Names are read at the end of their scope (annotations may be
    /// evaluated late, and forward references are). `None` when it names nothing keel
    /// reads.
    pub(super) fn annotation(&mut self, node: Node<'_>, ctx: Ctx) -> Option<ExprId> {
        let mut out = Vec::new();
        self.annotation_into(node, ctx, &mut out, 0);
        self.one_of(out)
    }

    /// The values declared, as one expression.
    fn one_of(&mut self, declared: Vec<ExprId>) -> Option<ExprId> {
        match declared.as_slice() {
            [] => None,
            [one] => Some(*one),
            _ => Some(self.push(Expr::Union(declared.into()))),
        }
    }

    fn annotation_into(&mut self, node: Node<'_>, ctx: Ctx, out: &mut Vec<ExprId>, depth: u32) {
        if depth > 8 {
            return;
        }
        match node.kind_name() {
            "type" | "parenthesized_expression" | "type_parameter" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in children {
                    self.annotation_into(child, ctx, out, depth + 1);
                }
            }
            "identifier" | "attribute" => {
                let text = compact(self.text(node));
                self.annotated_name(&text, ctx, out, false);
            }
            "binary_operator" => {
                for field in [&fields::LEFT, &fields::RIGHT] {
                    if let Some(side) = node.field(field) {
                        self.annotation_into(side, ctx, out, depth + 1);
                    }
                }
            }
            "string" => {
                let mut cursor = node.walk();
                let content: String = node
                    .named_children(&mut cursor)
                    .filter(|child| child.kind_name() == "string_content")
                    .map(|child| self.text(child))
                    .collect();
                self.annotation_text(&content, ctx, out, depth + 1);
            }
            "generic_type" | "subscript" => {
                let mut cursor = node.walk();
                let (head, params): (Option<Node<'_>>, Vec<Node<'_>>) =
                    if node.kind_name() == "subscript" {
                        let params = node
                            .children_by_field_name("subscript", &mut cursor)
                            .collect();
                        (node.field(&fields::VALUE), params)
                    } else {
                        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                        let params = children
                            .iter()
                            .filter(|child| child.kind_name() == "type_parameter")
                            .flat_map(|parameter| {
                                let mut inner = parameter.walk();
                                parameter.named_children(&mut inner).collect::<Vec<_>>()
                            })
                            .collect();
                        (children.first().copied(), params)
                    };
                let Some(head) = head else { return };
                let head_text = compact(self.text(head));
                let last = head_text.rsplit('.').next().unwrap_or("");
                match last {
                    "Optional" | "Union" => {
                        for param in params {
                            self.annotation_into(param, ctx, out, depth + 1);
                        }
                    }
                    "Annotated" | "ClassVar" | "Final" | "Required" | "NotRequired"
                    | "ReadOnly" => {
                        if let Some(param) = params.first() {
                            self.annotation_into(*param, ctx, out, depth + 1);
                        }
                    }
                    "type" | "Type" => {
                        for param in params {
                            let mut classes = Vec::new();
                            self.annotation_into(param, ctx, &mut classes, depth + 1);
                            for typed in classes {
                                if let Expr::Typed(class) = self.model.expr(typed) {
                                    out.push(*class);
                                }
                            }
                        }
                    }
                    "tuple" | "Tuple" => {
                        let tuple = self.tuple_annotation(&params, ctx);
                        out.push(tuple);
                    }
                    _ => match Container::of(last) {
                        Some(container) => {
                            let declared: Vec<Option<ExprId>> = params
                                .iter()
                                .map(|&param| self.annotation(param, ctx))
                                .collect();
                            out.push(self.container_annotation(container, &declared));
                        }
                        // A user generic (`Box[T]`) is its class; other builtin ones are
                        // external.
                        None => self.annotated_name(&head_text, ctx, out, false),
                    },
                }
            }
            _ => {}
        }
    }

    /// `tuple[A, B]`: a tuple whose items are what each annotation declares (an item
    /// that names no class is unknown); `tuple[A, ...]`: a tuple of `A`s. Its methods
    /// are a tuple's.
    fn tuple_annotation(&mut self, params: &[Node<'_>], ctx: Ctx) -> ExprId {
        let item = |builder: &mut Self, param: Node<'_>| {
            builder
                .annotation(param, ctx)
                .unwrap_or_else(|| builder.push(Expr::Unknown))
        };
        // `...` as written, or wrapped in a `type` node by the grammar.
        let ellipsis = |node: Node<'_>| {
            node.kind_name() == "ellipsis"
                || (node.kind_name() == "type"
                    && node
                        .named_child(0)
                        .is_some_and(|inner| inner.kind_name() == "ellipsis"))
        };
        if let [element, rest] = params
            && ellipsis(*rest)
        {
            let element = item(self, *element);
            return self.push(Expr::Comprehension { element });
        }
        let items: Box<[ExprId]> = params.iter().map(|&param| item(self, param)).collect();
        self.push(Expr::Seq(items))
    }

    /// A builtin container of declared items: `list[A]` and the other iterables a tuple
    /// of `A`s (its methods are external, iterating or indexing it gives `A`s),
    /// `dict[K, V]` and the other mappings a dict whose keys are `K`s and values `V`s,
    /// `ContextVar[T]` and queues a dict of `T`s (what `.get()` gives).
    /// An item that names no class is unknown.
    fn container_annotation(
        &mut self,
        container: Container,
        declared: &[Option<ExprId>],
    ) -> ExprId {
        let item = |builder: &mut Self, at: usize| {
            declared
                .get(at)
                .copied()
                .flatten()
                .unwrap_or_else(|| builder.push(Expr::Unknown))
        };
        match container {
            Container::Items => {
                let element = item(self, 0);
                self.push(Expr::Comprehension { element })
            }
            Container::Mapping => {
                let key = item(self, 0);
                let value = item(self, 1);
                self.push(Expr::Dict(Box::new([(Some(key), value)])))
            }
            Container::Cell => {
                let key = self.push(Expr::Unknown);
                let value = item(self, 0);
                self.push(Expr::Dict(Box::new([(Some(key), value)])))
            }
        }
    }

    /// What one annotation written as a string declares, as [`Self::annotation`] gives it.
    fn annotation_text_one(&mut self, text: &str, ctx: Ctx, depth: u32) -> Option<ExprId> {
        let mut out = Vec::new();
        self.annotation_text(text, ctx, &mut out, depth);
        self.one_of(out)
    }

    /// An annotation written as a string (`"Foo"`, `"Optional[mod.Foo]"`, `"A | None"`).
    fn annotation_text(&mut self, text: &str, ctx: Ctx, out: &mut Vec<ExprId>, depth: u32) {
        if depth > 8 {
            return;
        }
        for part in split_top(text, '|') {
            let part = part.trim();
            match part.split_once('[') {
                Some((head, rest)) if rest.ends_with(']') => {
                    let inner = &rest[..rest.len() - 1];
                    let last = head.trim().rsplit('.').next().unwrap_or("");
                    match last {
                        "Optional" | "Union" => {
                            for item in split_top(inner, ',') {
                                self.annotation_text(item, ctx, out, depth + 1);
                            }
                        }
                        "Annotated" | "ClassVar" | "Final" | "Required" | "NotRequired"
                        | "ReadOnly" => {
                            if let Some(item) = split_top(inner, ',').first() {
                                self.annotation_text(item, ctx, out, depth + 1);
                            }
                        }
                        _ => match Container::of(last) {
                            Some(container) => {
                                let declared: Vec<Option<ExprId>> = split_top(inner, ',')
                                    .into_iter()
                                    .map(|item| self.annotation_text_one(item, ctx, depth + 1))
                                    .collect();
                                out.push(self.container_annotation(container, &declared));
                            }
                            None => self.annotated_name(head.trim(), ctx, out, false),
                        },
                    }
                }
                _ => self.annotated_name(part, ctx, out, false),
            }
        }
    }

    /// `Typed(name)` for a dotted name (`Foo`, `mod.Foo`); `class_only` pushes the class.
    fn annotated_name(&mut self, text: &str, ctx: Ctx, out: &mut Vec<ExprId>, class_only: bool) {
        let segments: Vec<&str> = text.split('.').map(str::trim).collect();
        let valid = segments.iter().all(|segment| {
            segment
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && segment.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
        let Some(last) = segments.last().filter(|_| valid) else {
            return;
        };
        // Annotations that say nothing about a class: what a `Callable` parameter calls
        // is what is passed.
        if matches!(
            *last,
            "None" | "Any" | "object" | "Callable" | "Awaitable" | "Coroutine" | "Protocol"
        ) {
            return;
        }
        if *last == "Self" {
            let mut scope = Some(ctx.scope);
            while let Some(id) = scope {
                let s = &self.model.scopes[id as usize];
                if s.kind == ScopeKind::Class {
                    let class = self.push(Expr::Def(id));
                    out.push(if class_only {
                        class
                    } else {
                        self.push(Expr::Typed(class))
                    });
                    return;
                }
                scope = s.parent;
            }
            return;
        }
        let mut expr = self.push(Expr::Name {
            scope: ctx.scope,
            name: segments[0].into(),
            at: None,
        });
        for segment in &segments[1..] {
            expr = self.push(Expr::Attr {
                object: expr,
                name: (*segment).into(),
            });
        }
        out.push(if class_only {
            expr
        } else {
            self.push(Expr::Typed(expr))
        });
    }
}

/// `text` split at `separator` outside brackets.
fn split_top(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0_i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            c if c == separator && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The builtin and `typing`/`collections.abc` generics whose parameters declare their
/// items.
#[derive(Debug, Clone, Copy)]
enum Container {
    /// Iterables of their one parameter (a generator's first: what it yields).
    Items,
    /// Mappings of keys (first parameter) to values (second).
    Mapping,
    /// Holders of one parameter's values read by `.get()` (`ContextVar[T]`, `Queue[T]`):
    /// read as a mapping of unknown keys to them.
    Cell,
}

impl Container {
    fn of(head: &str) -> Option<Self> {
        Some(match head {
            "list" | "List" | "set" | "Set" | "frozenset" | "FrozenSet" | "Sequence"
            | "MutableSequence" | "Iterable" | "Iterator" | "Collection" | "AbstractSet"
            | "MutableSet" | "Reversible" | "deque" | "Deque" | "KeysView" | "ValuesView"
            | "Generator" | "AsyncIterable" | "AsyncIterator" | "AsyncGenerator" => Self::Items,
            "dict" | "Dict" | "Mapping" | "MutableMapping" | "defaultdict" | "DefaultDict"
            | "OrderedDict" | "ChainMap" => Self::Mapping,
            "ContextVar" | "Queue" | "SimpleQueue" | "LifoQueue" | "PriorityQueue" => Self::Cell,
            _ => return None,
        })
    }
}
