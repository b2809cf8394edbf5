//! The linear pre-scan that tells how deep a frontmatter nests, so that one past
//! `frontmatter::MAX_FRONTMATTER_DEPTH` is refused before the YAML reader (whose time grows
//! with the square of the nesting) sees it.
//!
//! Owns: as much of YAML's lexical structure as tells which brackets, indicators and
//! indents open a level: quoted strings, plain text, comments, tags and anchors, and
//! `|`/`>` blocks.
//! Does not own: the bound and its refusal (`frontmatter`) or reading the YAML.

/// What opened a block collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// `key:` (or `? key`).
    Mapping,
    /// `- item`.
    List,
}

/// Where [`Nesting`]'s scan stands in a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum At {
    /// Where a node may start: a quote opens a quoted string here, `[`/`{` a flow
    /// collection, `|`/`>` a block of text.
    #[default]
    NodeStart,
    /// Inside plain (unquoted) text: quotes are text, and outside `[...]` brackets too.
    Plain,
    /// Just after a quoted string or a flow collection closed.
    NodeEnd,
}

/// The linear pre-scan behind
/// [`MAX_FRONTMATTER_DEPTH`](super::frontmatter::MAX_FRONTMATTER_DEPTH): as much of
/// YAML's lexical structure as tells which brackets, indicators and indents open a level.
/// It reads line by line, keeping what spans lines (open brackets, an open quoted string,
/// plain text that may continue, a `|`/`>` block).
#[derive(Debug, Default)]
pub(super) struct Nesting {
    /// Open block collections, innermost last: column and kind.
    blocks: Vec<(usize, Block)>,
    /// Open flow collections.
    flow: usize,
    /// The quote of a quoted string still open.
    quote: Option<u8>,
    at: At,
    /// The column where the current node started: a key's, when `: ` follows.
    node_column: usize,
    /// Inside a `|`/`>` block: lines indented past the innermost collection are its text.
    literal: bool,
}

impl Nesting {
    fn depth(&self) -> usize {
        self.blocks.len() + self.flow
    }

    /// Whether a line indented to `column` sits inside the innermost block collection
    /// (so it continues plain text or a `|`/`>` block instead of starting a node).
    fn inside(&self, column: usize) -> bool {
        self.blocks.last().is_none_or(|&(open, _)| column > open)
    }

    /// A block collection of `kind` at `column`: closes the deeper ones, then opens it
    /// unless it is the innermost already. A list may sit under a key at the key's own
    /// column (`code:` then `- a`), one level deeper.
    fn enter(&mut self, column: usize, kind: Block) {
        while let Some(&(open, open_kind)) = self.blocks.last() {
            let ends_list = open == column && open_kind == Block::List && kind == Block::Mapping;
            if open <= column && !ends_list {
                break;
            }
            self.blocks.pop();
        }
        if self.blocks.last() != Some(&(column, kind)) {
            self.blocks.push((column, kind));
        }
    }

    /// Scans one line; returns the deepest nesting open on it.
    pub(super) fn scan_line(&mut self, line: &[u8]) -> usize {
        let indent = line.iter().take_while(|&&byte| byte == b' ').count();
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if self.quote.is_none() {
            if self.literal && (blank || self.inside(indent)) {
                return self.depth();
            }
            self.literal = false;
            if blank {
                return self.depth();
            }
            let continues_plain = self.at == At::Plain && self.inside(indent);
            if self.flow == 0 && !continues_plain {
                self.at = At::NodeStart;
            }
        }
        let mut deepest = self.depth();
        let mut index = 0;
        while index < line.len() {
            index += self.scan(line, index);
            deepest = deepest.max(self.depth());
        }
        deepest
    }

    /// Scans the byte at `index`; returns how many bytes it took (`line.len()` when the
    /// rest of the line is a comment or a `|`/`>` header).
    fn scan(&mut self, line: &[u8], index: usize) -> usize {
        let byte = line[index];
        if let Some(quote) = self.quote {
            return self.quoted(line, index, quote);
        }
        let space = |at: Option<&u8>| at.is_none_or(|byte| matches!(byte, b' ' | b'\t' | b'\r'));
        let space_after = space(line.get(index + 1));
        let space_before = index == 0 || space(line.get(index - 1));
        match byte {
            b' ' | b'\t' | b'\r' => 1,
            b'#' if space_before => {
                if self.at == At::Plain {
                    self.at = At::NodeEnd;
                }
                line.len()
            }
            b'!' | b'&' if self.at == At::NodeStart => property_len(&line[index..]),
            _ if self.flow > 0 => {
                self.flow_byte(byte, space_after);
                1
            }
            _ => self.block_byte(byte, index, space_after, line.len()),
        }
    }

    /// Inside a quoted string: an escape (`\"`, `''`) is text; the closing quote ends it.
    fn quoted(&mut self, line: &[u8], index: usize, quote: u8) -> usize {
        let byte = line[index];
        if quote == b'"' && byte == b'\\' {
            return 2;
        }
        if byte == quote {
            if quote == b'\'' && line.get(index + 1) == Some(&b'\'') {
                return 2;
            }
            self.quote = None;
            self.at = At::NodeEnd;
        }
        1
    }

    /// A byte inside `[...]`/`{...}`: brackets always count (plain text cannot hold
    /// them there); a quote opens a string only where a node starts.
    fn flow_byte(&mut self, byte: u8, space_after: bool) {
        match byte {
            b'[' | b'{' => {
                self.flow += 1;
                self.at = At::NodeStart;
            }
            b']' | b'}' => {
                self.flow -= 1;
                self.at = At::NodeEnd;
            }
            b',' => self.at = At::NodeStart,
            b':' if space_after || self.at == At::NodeEnd => self.at = At::NodeStart,
            b'?' | b'-' if space_after && self.at == At::NodeStart => {}
            b'"' | b'\'' if self.at == At::NodeStart => self.quote = Some(byte),
            _ if self.at == At::NodeStart => self.at = At::Plain,
            _ => {}
        }
    }

    /// A byte outside brackets; returns how many bytes it took.
    fn block_byte(&mut self, byte: u8, index: usize, space_after: bool, len: usize) -> usize {
        match (self.at, byte) {
            (At::NodeStart, b'-') if space_after => self.enter(index, Block::List),
            (At::NodeStart, b'?' | b':') if space_after => self.enter(index, Block::Mapping),
            (At::NodeStart, b'|' | b'>') => {
                self.literal = true;
                return len;
            }
            (At::NodeStart, _) => {
                self.node_column = index;
                match byte {
                    b'[' | b'{' => self.flow = 1,
                    b'"' | b'\'' => self.quote = Some(byte),
                    _ => self.at = At::Plain,
                }
            }
            (At::Plain, b':') if space_after => self.key(),
            (At::NodeEnd, b':') => self.key(),
            (At::NodeEnd, _) => self.at = At::Plain,
            (At::Plain, _) => {}
        }
        1
    }

    /// `: ` after the node that started at `node_column`: it was a key.
    fn key(&mut self) {
        self.enter(self.node_column, Block::Mapping);
        self.at = At::NodeStart;
    }
}

/// The length of a tag (`!!str`) or anchor (`&a`) at the start of `rest`: up to the next
/// space or flow indicator.
fn property_len(rest: &[u8]) -> usize {
    rest.iter()
        .position(|byte| {
            matches!(
                byte,
                b' ' | b'\t' | b'\r' | b',' | b'[' | b']' | b'{' | b'}'
            )
        })
        .unwrap_or(rest.len())
        .max(1)
}
