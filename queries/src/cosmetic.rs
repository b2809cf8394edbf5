//! Whether a hit changed a unit only cosmetically: the unit's text on both images, read
//! as tokens with comments and whitespace dropped, is the same sequence — and, a step
//! further, the same once Python docstrings are dropped too.
//!
//! Owns: the two lexers (Python; the TypeScript/JavaScript family) and the comparison.
//! Does not own: which lines a unit spans (the extractors) or whether a change is a hit
//! at all (the line predicate in `drift`, which stays the definition of a hit).

use crate::extract::Language;
use serde::{Deserialize, Serialize};

/// How far a change to a unit is only cosmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cosmetic {
    /// Token-equal once comments and whitespace are dropped.
    Layout,
    /// Token-equal only once docstrings are dropped too.
    Docstring,
}

impl Cosmetic {
    /// Two answers for one change joined: cosmetic only as far as both are.
    pub fn both(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a?, b?) {
            (Self::Layout, Self::Layout) => Some(Self::Layout),
            _ => Some(Self::Docstring),
        }
    }
}

/// How `before` and `after` (one unit's text on the parent and the result image) differ:
/// `None` when their tokens differ (or the text is no text keel can lex).
pub fn cosmetic_change(language: Language, before: &str, after: &str) -> Option<Cosmetic> {
    let (old, new) = (tokens(language, before), tokens(language, after));
    if texts(&old, false) == texts(&new, false) {
        return Some(Cosmetic::Layout);
    }
    (texts(&old, true) == texts(&new, true)).then_some(Cosmetic::Docstring)
}

/// One token: its text and whether it is a docstring.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token<'a> {
    text: &'a str,
    docstring: bool,
}

/// The tokens' texts, docstrings left out when `drop_docstrings`.
fn texts<'a>(tokens: &[Token<'a>], drop_docstrings: bool) -> Vec<&'a str> {
    tokens
        .iter()
        .filter(|token| !(drop_docstrings && token.docstring))
        .map(|token| token.text)
        .collect()
}

fn tokens(language: Language, text: &str) -> Vec<Token<'_>> {
    match language {
        Language::Python => python_tokens(text),
        Language::TypeScript | Language::Tsx => script_tokens(text),
    }
}

/// A lexer's cursor over one text.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.at += c.len_utf8();
        }
    }

    /// Skips to the end of the line (not past the line break).
    fn skip_line(&mut self) {
        self.at += self.rest().find('\n').unwrap_or(self.rest().len());
    }

    /// A run of identifier characters (letters, digits, `_`, `$`, any non-ASCII).
    fn word(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii())
        {
            self.bump();
        }
    }

    /// A quoted string from its opening quote (`quote`, repeated three times when
    /// `triple`) to its closing one, escapes skipped; to the end when unterminated.
    fn string(&mut self, quote: char, triple: bool) {
        let close: String = std::iter::repeat_n(quote, if triple { 3 } else { 1 }).collect();
        self.at += close.len();
        while let Some(c) = self.peek() {
            if c == '\\' {
                self.bump();
                self.bump();
                continue;
            }
            if self.rest().starts_with(&close) {
                self.at += close.len();
                return;
            }
            if c == '\n' && !triple && quote != '`' {
                return;
            }
            self.bump();
        }
    }
}

/// Python: `#` comments dropped; strings (with prefixes, triple quotes) one token each; a
/// string standing alone on the line after a `def`/`class` header is a docstring.
fn python_tokens(text: &str) -> Vec<Token<'_>> {
    let mut cursor = Cursor { text, at: 0 };
    let mut tokens: Vec<Token<'_>> = Vec::new();
    let mut line_start = true;
    let mut depth = 0usize;
    let mut header = false;
    let mut expect_docstring = false;
    let mut pending_docstring: Option<usize> = None;
    while let Some(c) = cursor.peek() {
        if c == '\n' {
            if let Some(index) = pending_docstring.take() {
                tokens[index].docstring = true;
            }
            if depth == 0 {
                line_start = true;
            }
            cursor.bump();
            continue;
        }
        if c.is_whitespace() || (c == '\\' && cursor.rest()[1..].starts_with('\n')) {
            cursor.bump();
            continue;
        }
        if c == '#' {
            cursor.skip_line();
            continue;
        }
        let start = cursor.at;
        let first_on_line = std::mem::take(&mut line_start);
        pending_docstring = None;
        let string = python_string_start(cursor.rest());
        if let Some((prefix, quote, triple)) = string {
            cursor.at += prefix;
            cursor.string(quote, triple);
        } else if c.is_alphanumeric() || c == '_' || !c.is_ascii() {
            cursor.word();
        } else {
            cursor.bump();
        }
        let token = &text[start..cursor.at];
        match token {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
        if first_on_line {
            header = matches!(token, "def" | "class" | "async");
        }
        if string.is_some() && first_on_line && expect_docstring {
            pending_docstring = Some(tokens.len());
        }
        expect_docstring = header && depth == 0 && token == ":";
        tokens.push(Token {
            text: token,
            docstring: false,
        });
    }
    if let Some(index) = pending_docstring {
        tokens[index].docstring = true;
    }
    tokens
}

/// Where a Python string starts in `rest`: the prefix's length (`r`, `b`, `f`, `rb`, …),
/// the quote and whether it is tripled; `None` when `rest` starts no string.
fn python_string_start(rest: &str) -> Option<(usize, char, bool)> {
    let prefix = rest
        .chars()
        .take_while(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'f' | 'u'))
        .count();
    if prefix > 2 {
        return None;
    }
    let quote = rest[prefix..].chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let triple = rest[prefix..].starts_with(&std::iter::repeat_n(quote, 3).collect::<String>());
    Some((prefix, quote, triple))
}

/// TypeScript and JavaScript: `//` and `/* */` comments dropped; `'`, `"` and template
/// strings one token each. There are no docstrings (JSDoc is a comment).
fn script_tokens(text: &str) -> Vec<Token<'_>> {
    let mut cursor = Cursor { text, at: 0 };
    let mut tokens = Vec::new();
    while let Some(c) = cursor.peek() {
        if c.is_whitespace() {
            cursor.bump();
            continue;
        }
        let rest = cursor.rest();
        if rest.starts_with("//") {
            cursor.skip_line();
            continue;
        }
        if let Some(body) = rest.strip_prefix("/*") {
            cursor.at += body.find("*/").map_or(rest.len(), |end| end + 4);
            continue;
        }
        let start = cursor.at;
        if matches!(c, '"' | '\'' | '`') {
            cursor.string(c, false);
        } else if c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii() {
            cursor.word();
        } else {
            cursor.bump();
        }
        tokens.push(Token {
            text: &text[start..cursor.at],
            docstring: false,
        });
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::{Cosmetic, Language, cosmetic_change};

    const F: &str =
        "def f(x):\n    \"\"\"Add one.\"\"\"\n    y = x + 1  # the step\n    return y\n";

    #[test]
    fn python_changes_are_told_by_their_tokens() {
        let py = |before: &str, after: &str| cosmetic_change(Language::Python, before, after);
        let cases = [
            // (what, after, expected)
            ("identical", F.to_owned(), Some(Cosmetic::Layout)),
            (
                "a comment reworded",
                F.replace("# the step", "# pyright: ignore"),
                Some(Cosmetic::Layout),
            ),
            (
                "parenthesized over lines: a token more",
                F.replace("y = x + 1", "y = (\n        x\n        + 1\n    )"),
                None,
            ),
            ("spacing", F.replace("x + 1", "x+1"), Some(Cosmetic::Layout)),
            (
                "a docstring reworded",
                F.replace("Add one.", "Return x plus one."),
                Some(Cosmetic::Docstring),
            ),
            ("a constant changed", F.replace("x + 1", "x + 2"), None),
            (
                "a `#` inside a string is no comment",
                F.replace("return y", "return \"#a\""),
                None,
            ),
            (
                "a new statement",
                F.replace("return y", "print(y)\n    return y"),
                None,
            ),
        ];
        for (what, after, expected) in cases {
            assert_eq!(py(F, &after), expected, "{what}");
        }
        assert_eq!(
            py(
                "def g():\n    return max(y, 0)\n",
                "def g():\n    return max(\n        y,\n        0\n    )  # split\n"
            ),
            Some(Cosmetic::Layout),
            "a call split over lines"
        );
        assert_eq!(
            py("x = {'a':\n 'b'}\n", "x = {'a':\n 'c'}\n"),
            None,
            "a dict value is no docstring"
        );
        assert_eq!(
            py("x = 1\n", "x = 1 \\\n\n"),
            Some(Cosmetic::Layout),
            "a line continuation is whitespace"
        );
    }

    #[test]
    fn script_comments_drop_and_strings_stay_whole() {
        let ts = |before: &str, after: &str| cosmetic_change(Language::TypeScript, before, after);
        let base = "function f(a: number) {\n  // step\n  return a + 1;\n}\n";
        assert_eq!(
            ts(base, &base.replace("// step", "/* the\n step */")),
            Some(Cosmetic::Layout)
        );
        assert_eq!(
            ts(base, &base.replace("return a + 1;", "return a+1 ;")),
            Some(Cosmetic::Layout)
        );
        assert_eq!(ts(base, &base.replace("a + 1", "a + 2")), None);
        assert_eq!(
            ts("const u = \"http://x\";\n", "const u = \"http://y\";\n"),
            None,
            "`//` inside a string is no comment"
        );
        assert_eq!(ts("const t = `a ${b}`;\n", "const t = `a  ${b}`;\n"), None);
    }
}
