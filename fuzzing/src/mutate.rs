//! A structure-aware mutator: one seed in, a nearby input out, deterministically.
//!
//! Owns: the mutations (bit and byte flips, inserts of the reader's format tokens and of
//! tokens every text reader meets — line endings, byte order marks, bad UTF-8, extreme
//! numbers —, deletes and duplicates of ranges and lines, long runs, deep nesting,
//! splices between seeds) and the token sets per format. Does not own: the seeds
//! ([`crate::corpus`]) or running a target ([`crate::run`]).

use keel_fixtures::rng::SeededRng;

/// Inputs grow no longer than this: a reader's cost is per byte, and 64 KiB already
/// covers every structure a mutation can build.
pub const MAX_LEN: usize = 64 * 1024;

/// Tokens every text format meets.
const COMMON: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b" ",
    b"\0",
    b"\xEF\xBB\xBF",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xe2\x80\xa8",
    b"\xc2\xa0",
    b"\xf0\x9f\x92\xa5",
    b"\"",
    b"'",
    b"\\",
    b"\\n",
    b"\\\"",
    b"\\u0000",
    b"\\ud800",
];

/// Numbers at the edges of the integer and float types readers convert to.
const NUMBERS: &[&[u8]] = &[
    b"0",
    b"-1",
    b"-0",
    b"1.5",
    b"1e309",
    b"-1e-400",
    b"4294967295",
    b"4294967296",
    b"9223372036854775807",
    b"18446744073709551615",
    b"18446744073709551616",
    b"99999999999999999999999999999999",
    b"0.1000000000000000055511151231257827",
];

/// YAML frontmatter of `spec.md`.
const SPEC_TOKENS: &[&[u8]] = &[
    b"---",
    b"---\n",
    b"\n---\n",
    b"code:",
    b"code:\n",
    b"related:",
    b"Code:",
    b"cdoe:",
    b"relate:",
    b"\"code\":",
    b"- ",
    b"\n  - ",
    b"#",
    b",",
    b"*",
    b"**/",
    b"?",
    b"[",
    b"]",
    b"{",
    b"}",
    b": ",
    b"&a ",
    b"*a",
    b"<<: *a",
    b"!!str ",
    b"!!binary ",
    b"!!map ",
    b"|\n",
    b">-\n",
    b"...\n",
    b"%YAML 1.2\n",
    b"? ",
    b"~",
    b"null",
    b"..",
    b"/",
    b"./",
    b"src/a.py#f,C.m",
    b"a.py#",
    b"C:",
];

/// TOML of `keel.toml`.
const SETTINGS_TOKENS: &[&[u8]] = &[
    b"[lint]\n",
    b"[sessions]\n",
    b"[trailers]\n",
    b"[impact]\n",
    b"[prices]\n",
    b"[prices.\"m\"]\n",
    b"[prices.\"m\".above_200k]\n",
    b"scoped_code_miss = ",
    b"\"ignore\"",
    b"\"warn\"",
    b"governed_roots = ",
    b"repos = ",
    b"days = ",
    b"depth = ",
    b"max_bytes = ",
    b"max_nodes = ",
    b"input = ",
    b"output = ",
    b"cache_write_5m = ",
    b"cache_write_1h = ",
    b"cache_read = ",
    b"fast_multiplier = ",
    b"above_200k = ",
    b"\"m\" = { input = 1, output = 2 }",
    b" = ",
    b"=",
    b".",
    b"\"\"\"",
    b"'''",
    b"[[",
    b"]]",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"#",
    b"inf",
    b"-inf",
    b"nan",
    b"1979-05-27T07:32:00Z",
    b"0x1f",
    b"0o7",
    b"1_000",
    b"true",
];

/// Keys and values shared by the JSONL readers.
const JSON_TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"null",
    b"true",
    b"{}",
    b"[]",
    b"\"\"",
    b"\" \"",
    b"\"2026-01-15T10:00:00Z\"",
    b"\"2026-01-15T10:00:00.123456789+14:00\"",
    b"\"9999-12-31T23:59:59Z\"",
    b"\"1677-09-21T00:12:43Z\"",
    b"\"2262-04-11T23:47:17Z\"",
    b"\"2026-01-15T10:00:00\"",
    b"\"2026-02-30T10:00:00Z\"",
    b"-00:00",
];

/// `sessions.jsonl` and `decisions.jsonl`.
const SESSIONS_TOKENS: &[&[u8]] = &[
    b"\"session_id\"",
    b"\"harness\"",
    b"\"start\"",
    b"\"end\"",
    b"\"repo\"",
    b"\"project\"",
    b"\"cost\"",
    b"\"total\"",
    b"\"api_calls\"",
    b"\"tools\"",
    b"\"ts\"",
    b"\"point\"",
    b"\"commit_link\"",
    b"\"subject\"",
    b"\"probabilities\"",
    b"\"yes\"",
    b"\"no\"",
    b"\"s1:0123abcd\"",
    b"\":0123abcd\"",
    b"{\"total\":null}",
];

/// Claude Code's session files.
const CLAUDE_TOKENS: &[&[u8]] = &[
    b"\"type\"",
    b"\"assistant\"",
    b"\"user\"",
    b"\"sessionId\"",
    b"\"uuid\"",
    b"\"timestamp\"",
    b"\"cwd\"",
    b"\"requestId\"",
    b"\"message\"",
    b"\"id\"",
    b"\"model\"",
    b"\"<synthetic>\"",
    b"\"content\"",
    b"\"usage\"",
    b"\"input_tokens\"",
    b"\"output_tokens\"",
    b"\"cache_creation_input_tokens\"",
    b"\"cache_read_input_tokens\"",
    b"\"cache_creation\"",
    b"\"ephemeral_5m_input_tokens\"",
    b"\"ephemeral_1h_input_tokens\"",
    b"\"speed\"",
    b"\"fast\"",
    b"\"tool_use\"",
    b"\"name\"",
    b"{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"Edit\"}",
];

/// Codex rollouts.
const CODEX_TOKENS: &[&[u8]] = &[
    b"\"timestamp\"",
    b"\"type\"",
    b"\"payload\"",
    b"\"session_meta\"",
    b"\"turn_context\"",
    b"\"event_msg\"",
    b"\"response_item\"",
    b"\"token_count\"",
    b"\"info\"",
    b"\"total_token_usage\"",
    b"\"input_tokens\"",
    b"\"cached_input_tokens\"",
    b"\"output_tokens\"",
    b"\"total_tokens\"",
    b"\"function_call\"",
    b"\"custom_tool_call\"",
    b"\"local_shell_call\"",
    b"\"web_search_call\"",
    b"\"name\"",
    b"\"functions.\"",
    b"\"call_id\"",
    b"\"id\"",
    b"\"cwd\"",
    b"\"model\"",
    b"\"source\"",
    b"{\"subagent\":{\"parent_thread_id\":\"p\"}}",
    b"\"parent_thread_id\"",
];

/// Gemini CLI chats (JSON lines and older documents).
const GEMINI_TOKENS: &[&[u8]] = &[
    b"\"sessionId\"",
    b"\"startTime\"",
    b"\"kind\"",
    b"\"messages\"",
    b"\"type\"",
    b"\"gemini\"",
    b"\"user\"",
    b"\"model\"",
    b"\"tokens\"",
    b"\"input\"",
    b"\"output\"",
    b"\"cached\"",
    b"\"thoughts\"",
    b"\"tool\"",
    b"\"toolCalls\"",
    b"\"$set\"",
    b"\"$rewindTo\"",
    b"\"id\"",
    b"\"timestamp\"",
];

/// OpenCode storage documents.
const OPENCODE_TOKENS: &[&[u8]] = &[
    b"\"id\"",
    b"\"sessionID\"",
    b"\"messageID\"",
    b"\"parentID\"",
    b"\"directory\"",
    b"\"role\"",
    b"\"assistant\"",
    b"\"modelID\"",
    b"\"providerID\"",
    b"\"tokens\"",
    b"\"reasoning\"",
    b"\"cache\"",
    b"\"read\"",
    b"\"write\"",
    b"\"time\"",
    b"\"created\"",
    b"\"type\"",
    b"\"step-finish\"",
    b"\"tool\"",
    b"\"callID\"",
];

/// Unified diffs.
const PATCH_TOKENS: &[&[u8]] = &[
    b"diff --git a/x.py b/x.py\n",
    b"diff --git ",
    b"--- a/x.py\n",
    b"+++ b/x.py\n",
    b"--- /dev/null\n",
    b"+++ /dev/null\n",
    b"--- ",
    b"+++ ",
    b"@@ -1,2 +1,3 @@\n",
    b"@@ -0,0 +1 @@\n",
    b"@@ -1 +0,0 @@\n",
    b"@@ -1 +1 @@ def f():\n",
    b"@@ -4294967295,1 +4294967295,1 @@\n",
    b"@@ -1,4294967295 +1,0 @@\n",
    b"@@",
    b" @@",
    b"\\ No newline at end of file\n",
    b"new file mode 100644\n",
    b"deleted file mode 100644\n",
    b"rename from a.py\n",
    b"rename to b.py\n",
    b"similarity index 90%\n",
    b"Binary files a/x and b/x differ\n",
    b"GIT binary patch\n",
    b"index 1111111..2222222 100644\n",
    b"\n+",
    b"\n-",
    b"\n ",
    b"\n\\",
    b"\t2026-01-01 00:00:00\n",
    b"a/",
    b"b/",
    b"\"a b.py\"",
    b",",
];

/// Commit messages.
const TRAILERS_TOKENS: &[&[u8]] = &[
    b"\n\n",
    b"Spec-OK: ",
    b"spec-ok:",
    b"Signed-off-by: ",
    b"signed-off-by: A <a@x>\n",
    b"(cherry picked from commit ",
    b"Co-authored-by: ",
    b"Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>",
    b": ",
    b":",
    b"\n ",
    b"\n\t",
    b"Key",
    b"-",
    b" :",
    b"\xc2\xa0",
    b"\xe3\x80\x80",
];

/// `READINGS.jsonl`.
const READINGS_TOKENS: &[&[u8]] = &[
    b"\"id\"",
    b"\"commit\"",
    b"\"code\"",
    b"\"0123456789abcdef0123456789abcdef01234567\"",
    b"\"ABCD\"",
    b"\"abc\"",
    b"\"src/app.py#login\"",
    b"\"a.py#f,f\"",
    b"\"a.py#\"",
    b"\"../x\"",
    b"\"/abs\"",
    b"\"lib/\"",
    b"\"lib/#f\"",
    b"\"src/**/*.py\"",
    b"\" a.py\"",
    b"\"a.py\", \"a.py#f\"",
];

/// The token sets of one reader's format.
pub type Tokens = &'static [&'static [&'static [u8]]];

/// `spec.md`'s tokens.
pub const SPEC: Tokens = &[SPEC_TOKENS];
/// `keel.toml`'s tokens.
pub const SETTINGS: Tokens = &[SETTINGS_TOKENS];
/// `sessions.jsonl`'s and `decisions.jsonl`'s tokens.
pub const SESSIONS: Tokens = &[JSON_TOKENS, SESSIONS_TOKENS];
/// Claude Code logs' tokens.
pub const CLAUDE: Tokens = &[JSON_TOKENS, CLAUDE_TOKENS];
/// Codex rollouts' tokens.
pub const CODEX: Tokens = &[JSON_TOKENS, CODEX_TOKENS];
/// Gemini CLI chats' tokens.
pub const GEMINI: Tokens = &[JSON_TOKENS, GEMINI_TOKENS];
/// OpenCode storage documents' tokens.
pub const OPENCODE: Tokens = &[JSON_TOKENS, OPENCODE_TOKENS];
/// Unified diffs' tokens.
pub const PATCH: Tokens = &[PATCH_TOKENS];
/// Commit messages' tokens.
pub const TRAILERS: Tokens = &[TRAILERS_TOKENS];
/// `READINGS.jsonl`'s tokens.
pub const READINGS: Tokens = &[JSON_TOKENS, READINGS_TOKENS];

/// What opens and closes one level of nesting, per format.
const NESTING: &[(&[u8], &[u8])] = &[
    (b"[", b"]"),
    (b"{\"a\":", b"}"),
    (b"{", b"}"),
    (b"- ", b""),
    (b"  ", b""),
    (b"a: ", b""),
    (b"a = {a = ", b"}"),
    (b"above_200k = { input = 1, output = 1, above_200k = ", b"}"),
    (b"[[", b"]]"),
    (b"\"", b"\""),
];

/// Bytes that often sit on a boundary of some grammar.
const INTERESTING: &[u8] = b"\n\r\t \0\"'\\:,-#{}[]@+~*?/=.\x7f\x80\xff";

/// A deterministic mutator: the same seed gives the same sequence of inputs.
pub struct Mutator {
    rng: SeededRng,
}

impl Mutator {
    /// A mutator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            rng: SeededRng::new(seed),
        }
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    /// `input` changed by a stack of 1 to 16 mutations (mostly few), using the reader's
    /// `tokens` and splicing from `seeds`; never longer than [`MAX_LEN`].
    pub fn mutate(&mut self, input: &[u8], seeds: &[Vec<u8>], tokens: Tokens) -> Vec<u8> {
        let mut out = input.to_vec();
        let stack = 1 << self.below(5);
        for _ in 0..=self.below(stack) {
            self.one(&mut out, seeds, tokens);
        }
        out.truncate(MAX_LEN);
        out
    }

    /// One mutation.
    fn one(&mut self, out: &mut Vec<u8>, seeds: &[Vec<u8>], tokens: Tokens) {
        let format = tokens
            .get(self.below(tokens.len()))
            .copied()
            .unwrap_or(COMMON);
        match self.below(16) {
            0 => self.flip_bit(out),
            1 => self.set_byte(out),
            2..=4 => self.insert_token(out, format),
            5 => {
                let set = if self.below(2) == 0 { COMMON } else { NUMBERS };
                self.insert_token(out, set);
            }
            6 => self.insert_at_line_start(out, format),
            7 => self.delete_range(out),
            8 => self.duplicate_range(out),
            9 => self.long_run(out, format),
            10 => self.nest(out),
            11 => self.splice(out, seeds),
            12 => self.shuffle_lines(out),
            13 => self.replace_number(out),
            14 => self.truncate(out),
            _ => self.replace_token(out, format),
        }
    }

    fn pick<'t>(&mut self, tokens: &[&'t [u8]]) -> &'t [u8] {
        tokens.get(self.below(tokens.len())).copied().unwrap_or(b"")
    }

    /// A position in `0..=len`.
    fn position(&mut self, out: &[u8]) -> usize {
        self.below(out.len() + 1)
    }

    fn flip_bit(&mut self, out: &mut [u8]) {
        if !out.is_empty() {
            let at = self.below(out.len());
            out[at] ^= 1 << self.below(8);
        }
    }

    fn set_byte(&mut self, out: &mut [u8]) {
        if !out.is_empty() {
            let at = self.below(out.len());
            out[at] = INTERESTING[self.below(INTERESTING.len())];
        }
    }

    fn insert_token(&mut self, out: &mut Vec<u8>, tokens: &[&[u8]]) {
        let token = self.pick(tokens);
        let at = self.position(out);
        out.splice(at..at, token.iter().copied());
    }

    fn insert_at_line_start(&mut self, out: &mut Vec<u8>, tokens: &[&[u8]]) {
        let token = self.pick(tokens);
        let at = self.line_start(out);
        out.splice(at..at, token.iter().copied());
    }

    /// The start of a random line of `out`.
    fn line_start(&mut self, out: &[u8]) -> usize {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                out.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        starts[self.below(starts.len())]
    }

    /// A range `start..end` of `out` at most `max` long.
    fn range(&mut self, out: &[u8], max: usize) -> (usize, usize) {
        let start = self.below(out.len() + 1);
        let len = self.below(max.min(out.len() - start) + 1);
        (start, start + len)
    }

    fn delete_range(&mut self, out: &mut Vec<u8>) {
        let (start, end) = if self.below(2) == 0 {
            self.line(out)
        } else {
            self.range(out, 64)
        };
        out.drain(start..end);
    }

    /// A random line of `out` with its `\n`.
    fn line(&mut self, out: &[u8]) -> (usize, usize) {
        let start = self.line_start(out);
        let end = out[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(out.len(), |end| start + end + 1);
        (start, end)
    }

    fn duplicate_range(&mut self, out: &mut Vec<u8>) {
        let (start, end) = if self.below(2) == 0 {
            self.line(out)
        } else {
            self.range(out, 256)
        };
        let copy = out[start..end].to_vec();
        let at = self.position(out);
        out.splice(at..at, copy);
    }

    /// A byte or token repeated up to a few thousand times.
    fn long_run(&mut self, out: &mut Vec<u8>, tokens: &[&[u8]]) {
        let unit: Vec<u8> = match self.below(3) {
            0 => vec![INTERESTING[self.below(INTERESTING.len())]],
            1 => b"a".to_vec(),
            _ => self.pick(tokens).to_vec(),
        };
        let longest = if self.below(4) == 0 { 5000 } else { 300 };
        let count = 1 + self.below(longest);
        let at = self.position(out);
        out.splice(at..at, unit.repeat(count));
    }

    /// Nesting deeper than parsers' recursion limits (or just short of them).
    fn nest(&mut self, out: &mut Vec<u8>) {
        let (open, close) = NESTING[self.below(NESTING.len())];
        let deepest = if self.below(2) == 0 { 200 } else { 2000 };
        let depth = 1 + self.below(deepest);
        let at = self.position(out);
        let mut inner = open.repeat(depth);
        inner.extend(close.repeat(depth));
        out.splice(at..at, inner);
    }

    /// A piece of another seed replaces a piece of this input.
    fn splice(&mut self, out: &mut Vec<u8>, seeds: &[Vec<u8>]) {
        let Some(other) = seeds.get(self.below(seeds.len())) else {
            return;
        };
        let (from, to) = self.range(other, 1024);
        let (start, end) = self.range(out, 1024);
        out.splice(start..end, other[from..to].iter().copied());
    }

    /// Two lines swap places.
    fn shuffle_lines(&mut self, out: &mut Vec<u8>) {
        let (a_start, a_end) = self.line(out);
        let line = out[a_start..a_end].to_vec();
        out.drain(a_start..a_end);
        let at = self.line_start(out);
        out.splice(at..at, line);
    }

    /// A run of digits becomes an extreme number.
    fn replace_number(&mut self, out: &mut Vec<u8>) {
        let digits: Vec<usize> = (0..out.len())
            .filter(|&i| out[i].is_ascii_digit() && (i == 0 || !out[i - 1].is_ascii_digit()))
            .collect();
        let Some(&start) = digits.get(self.below(digits.len())) else {
            return;
        };
        let end = start
            + out[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        let number = self.pick(NUMBERS);
        out.splice(start..end, number.iter().copied());
    }

    fn truncate(&mut self, out: &mut Vec<u8>) {
        let at = self.position(out);
        out.truncate(at);
    }

    /// A token found in the input becomes another token of the format.
    fn replace_token(&mut self, out: &mut Vec<u8>, tokens: &[&[u8]]) {
        let old = self.pick(tokens);
        let new = self.pick(tokens);
        if old.is_empty() {
            return;
        }
        if let Some(at) = out.windows(old.len()).position(|window| window == old) {
            out.splice(at..at + old.len(), new.iter().copied());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_one_sequence_of_inputs() {
        let seeds = vec![b"---\ncode:\n  - a.py\n---\n".to_vec(), Vec::new()];
        let run = |seed| {
            let mut mutator = Mutator::new(seed);
            (0..200)
                .map(|i| mutator.mutate(&seeds[i % 2], &seeds, SPEC))
                .collect::<Vec<_>>()
        };
        let first = run(7);
        assert_eq!(first, run(7));
        assert_ne!(first, run(8));
        assert!(first.iter().all(|input| input.len() <= MAX_LEN));
        assert!(first.iter().any(|input| input != &seeds[0]));
    }
}
