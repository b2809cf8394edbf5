//! keel's pinned line diff against the git CLI: every expected hunk here is printed by
//! `git diff --histogram --no-indent-heuristic -U0`, never computed by keel.
//!
//! Owns: built fixture cases (the histogram example that myers and imara get "wrong",
//! occurrence-limit fallbacks, runs of equal lines, missing final newline, CRLF, empty and
//! one-line files, rewrites, the common tail a zero-context diff leaves unseen) and seeded
//! randomized edits (small line alphabets; files past 1 KiB; long files whose common
//! lines are all too frequent, reaching the classic fallback and its cut-offs), each
//! batch diffed by ONE `git diff --no-index` over two temporary directories, with git's
//! ambient configuration and attributes pinned away. Does not own: the algorithm (`keel_queries::diff`)
//! or whole-history agreement on real repositories (`keel-benches`' `diff-agree`).

use keel_fixtures::pinned_git;
use keel_fixtures::rng::SeededRng;
use keel_queries::diff::{Hunk, line_hunks};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// One pair of images to diff.
struct Case {
    name: String,
    old: Vec<u8>,
    new: Vec<u8>,
}

impl Case {
    fn new(name: impl Into<String>, old: impl Into<Vec<u8>>, new: impl Into<Vec<u8>>) -> Self {
        Self {
            name: name.into(),
            old: old.into(),
            new: new.into(),
        }
    }

    /// A case whose sides are lists of lines, each given a `\n`.
    fn lines(name: &str, old: &[&str], new: &[&str]) -> Self {
        Self::new(name, join_lines(old), join_lines(new))
    }
}

fn join_lines(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|line| [line.as_bytes(), b"\n"].concat())
        .collect()
}

fn repeat(line: &str, times: usize) -> Vec<&str> {
    vec![line; times]
}

/// A scratch directory removed on drop.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let unique = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "keel-diff-against-git-{}-{unique}",
            std::process::id()
        ));
        std::fs::create_dir_all(dir.join("old")).expect("create scratch dir");
        std::fs::create_dir_all(dir.join("new")).expect("create scratch dir");
        Self(dir)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn file_name(case_index: usize) -> String {
    format!("c{case_index:06}")
}

/// Attributes come from git's well-known empty tree, that is from nowhere.
const EMPTY_ATTR_TREE: &str = "attr.tree=4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// git's hunks for every case, from one `git diff --no-index old new`.
fn git_hunks(cases: &[Case]) -> Vec<Vec<Hunk>> {
    let dir = ScratchDir::new();
    for (index, case) in cases.iter().enumerate() {
        std::fs::write(dir.0.join("old").join(file_name(index)), &case.old).expect("write old");
        std::fs::write(dir.0.join("new").join(file_name(index)), &case.new).expect("write new");
    }
    let output = run_git_diff(&dir.0);
    parse_git_output(&output, cases.len())
}

fn run_git_diff(dir: &Path) -> String {
    let output = pinned_git(dir)
        .env("GIT_ATTR_NOSYSTEM", "1")
        .args(["-c", "color.ui=never", "-c", "core.quotepath=false"])
        .args(["-c", "core.attributesFile=/dev/null", "-c", EMPTY_ATTR_TREE])
        .args([
            "diff",
            "--no-index",
            "--no-color",
            "--no-textconv",
            "--no-ext-diff",
        ])
        .args([
            "--no-renames",
            "--histogram",
            "--no-indent-heuristic",
            "-U0",
        ])
        .args(["--inter-hunk-context=0", "old", "new"])
        .output()
        .expect("git runs");
    // `--no-index` exits 1 when the files differ and 0 when they do not.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "git diff failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the cases are ASCII")
}

fn parse_git_output(output: &str, cases: usize) -> Vec<Vec<Hunk>> {
    let mut hunks = vec![Vec::new(); cases];
    let mut current = None;
    for line in output.lines() {
        if let Some(paths) = line.strip_prefix("diff --git a/old/c") {
            let digits = paths.split_once(' ').expect("two paths").0;
            current = Some(digits.parse::<usize>().expect("a case number"));
        } else if line.starts_with("@@ ") {
            let case = current.expect("a hunk follows a file header");
            hunks[case].push(parse_header(line));
        }
    }
    hunks
}

/// `@@ -3 +4,0 @@` into 0-based half-open ranges.
fn parse_header(line: &str) -> Hunk {
    let mut fields = line.split(' ');
    let old = fields
        .nth(1)
        .and_then(|f| f.strip_prefix('-'))
        .expect("old range");
    let new = fields
        .next()
        .and_then(|f| f.strip_prefix('+'))
        .expect("new range");
    Hunk {
        before: parse_range(old),
        after: parse_range(new),
    }
}

fn parse_range(text: &str) -> std::ops::Range<u32> {
    let (start, count) = match text.split_once(',') {
        Some((start, count)) => (start, count.parse::<u32>().expect("a count")),
        None => (text, 1),
    };
    let start = start.parse::<u32>().expect("a start");
    if count == 0 {
        start..start
    } else {
        start - 1..start - 1 + count
    }
}

/// Asserts keel's hunks equal git's for every case, listing every disagreement.
fn assert_agrees_with_git(cases: &[Case]) {
    let expected = git_hunks(cases);
    let mut report = String::new();
    let mut disagreements = 0;
    for (case, git) in cases.iter().zip(&expected) {
        let keel = line_hunks(&case.old, &case.new);
        if &keel != git {
            disagreements += 1;
            if disagreements <= 5 {
                describe(&mut report, case, git, &keel);
            }
        }
    }
    assert!(
        disagreements == 0,
        "{disagreements} of {} cases disagree with git:\n{report}",
        cases.len()
    );
}

fn describe(report: &mut String, case: &Case, git: &[Hunk], keel: &[Hunk]) {
    let headers = |hunks: &[Hunk]| hunks.iter().map(Hunk::git_header).collect::<Vec<_>>();
    let _ = writeln!(report, "case {}:", case.name);
    let _ = writeln!(report, "  old: {:?}", String::from_utf8_lossy(&case.old));
    let _ = writeln!(report, "  new: {:?}", String::from_utf8_lossy(&case.new));
    let _ = writeln!(report, "  git:  {:?}", headers(git));
    let _ = writeln!(report, "  keel: {:?}", headers(keel));
}

#[test]
fn histogram_example_authors_new_lines_two_and_three() {
    let case = Case::lines("c a c a", &["c", "a", "c", "a"], &["c", "c", "a", "a", "a"]);
    let git = git_hunks(std::slice::from_ref(&case));
    let headers: Vec<String> = git[0].iter().map(Hunk::git_header).collect();
    // The example the design rests on: if git itself stops printing this, say so first.
    assert_eq!(headers, ["@@ -1,0 +2,2 @@", "@@ -3 +4,0 @@"]);
    assert_eq!(line_hunks(&case.old, &case.new), git[0]);
}

#[test]
fn lines_repeated_beyond_the_occurrence_limit() {
    let mut cases = Vec::new();
    for times in [63, 64, 65, 66, 100] {
        let a = repeat("a", times);
        let b = repeat("b", times);
        cases.push(Case::lines(
            &format!("swap-{times}"),
            &[a.clone(), b.clone()].concat(),
            &[b.clone(), a.clone(), vec!["c"]].concat(),
        ));
        cases.push(Case::lines(
            &format!("blank-run-{times}"),
            &[vec!["x"], repeat("", times), vec!["y"]].concat(),
            &[vec!["z"], repeat("", times + 3), vec!["w"]].concat(),
        ));
        let spaced_old: Vec<String> = (0..times)
            .flat_map(|i| [format!("u{i}"), String::new()])
            .collect();
        let spaced_new: Vec<String> = (0..times)
            .flat_map(|i| [String::new(), format!("v{i}"), String::new()])
            .collect();
        cases.push(Case::new(
            format!("unique-among-blanks-{times}"),
            join_lines(&spaced_old.iter().map(String::as_str).collect::<Vec<_>>()),
            join_lines(&spaced_new.iter().map(String::as_str).collect::<Vec<_>>()),
        ));
    }
    cases.extend(around_the_limit());
    let frequent: Vec<&str> = (0..200)
        .map(|i| if i % 3 == 0 { "}" } else { "" })
        .collect();
    let mut shifted = frequent.clone();
    shifted.insert(50, "new");
    shifted.drain(120..140);
    cases.push(Case::lines("braces-and-blanks", &frequent, &shifted));
    cases.extend(common_ends_bound_the_neighbourhood());
    assert_agrees_with_git(&cases);
}

/// Blank lines among lines of each side's own, below and above runs of common blank
/// lines: whether a blank line is set aside depends on which lines its neighbourhood
/// counts, and the classic fallback excludes the common first and last lines.
fn common_ends_bound_the_neighbourhood() -> Vec<Case> {
    let mut cases = Vec::new();
    for (every, ends) in [(2, 70), (3, 70), (3, 20), (4, 90), (5, 100)] {
        let side = |own: &str| {
            let mut lines = vec![String::new(); ends];
            lines.extend((0..60).map(|i| {
                if i % every == 0 {
                    String::new()
                } else {
                    format!("{own}{i}")
                }
            }));
            lines.extend(vec![String::new(); ends]);
            lines
        };
        let name = format!("blank every {every} between {ends} blank lines");
        cases.push(Case::new(
            name,
            join_owned(&side("o")),
            join_owned(&side("n")),
        ));
    }
    cases
}

/// Files whose rarest line occurs 62 to 67 times: at most 64 occurrences anchor a
/// histogram split, more send the whole file to the classic diff, and the two answers
/// differ on shuffled lines.
fn around_the_limit() -> Vec<Case> {
    let mut rng = Rng::seeded(0x006c_696d_6974);
    let alphabet = ["a".to_string(), "b".to_string()];
    let mut cases = Vec::new();
    for rare in 62..=67 {
        for sample in 0..25 {
            let mut old: Vec<String> = vec![alphabet[0].clone(); rare];
            old.extend(vec![alphabet[1].clone(); rare + 5 + rng.below(20)]);
            shuffle(&mut rng, &mut old);
            let new = random_edit(&mut rng, &alphabet, &old);
            let name = format!("rare {rare} sample {sample}");
            cases.push(Case::new(name, join_owned(&old), join_owned(&new)));
        }
    }
    cases
}

fn shuffle(rng: &mut Rng, lines: &mut [String]) {
    for i in (1..lines.len()).rev() {
        lines.swap(i, rng.below(i + 1));
    }
}

fn join_owned(lines: &[String]) -> Vec<u8> {
    join_lines(&lines.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn common_tail_in_whole_kib_blocks() {
    // With no context, git drops the common tail in whole 1 KiB blocks (keeping through
    // the first newline in it) before diffing, so an added blank line can no longer
    // slide down into the dropped part.
    let mut cases = Vec::new();
    for tail_len in [1020, 1021, 1022, 1023, 1024, 2046, 3070] {
        let tail = tail_of(tail_len);
        let old = [b"x = 1\n\n".as_slice(), &tail].concat();
        let new = [b"x = 1\n\n\n".as_slice(), &tail].concat();
        cases.push(Case::new(
            format!("blank before a {tail_len}-byte tail"),
            old,
            new,
        ));
        let old = [b"a\nb\nc\n".as_slice(), &tail].concat();
        let new = [b"a\nB\nc\n".as_slice(), &tail].concat();
        cases.push(Case::new(
            format!("edit before a {tail_len}-byte tail"),
            old,
            new,
        ));
        let old = [b"a\nb\n".as_slice(), &tail, b"end\n"].concat();
        let new = [b"a\nb\nb\n".as_slice(), &tail, b"end\n"].concat();
        cases.push(Case::new(
            format!("repeat before a {tail_len}-byte tail and end"),
            old,
            new,
        ));
    }
    assert_agrees_with_git(&cases);
}

/// `len` bytes of distinct lines, ending in a newline.
fn tail_of(len: usize) -> Vec<u8> {
    let mut tail = Vec::new();
    let mut line = 0;
    while tail.len() + 12 < len {
        tail.extend(format!("line {line:05}\n").bytes());
        line += 1;
    }
    let pad = len - tail.len() - 1;
    tail.extend(std::iter::repeat_n(b'-', pad));
    tail.push(b'\n');
    tail
}

#[test]
fn runs_of_blank_and_identical_lines() {
    let cases = vec![
        Case::lines(
            "insert-blank-in-run",
            &["a", "", "", "b"],
            &["a", "", "", "", "b"],
        ),
        Case::lines(
            "delete-blank-in-run",
            &["a", "", "", "", "b"],
            &["a", "", "b"],
        ),
        Case::lines(
            "insert-same-line",
            &["x", "x", "x"],
            &["x", "x", "x", "x", "x"],
        ),
        Case::lines("delete-same-line", &["x", "x", "x", "x"], &["x"]),
        Case::lines(
            "duplicate-function",
            &["def f():", "    pass", "", "def g():", "    pass", ""],
            &[
                "def f():", "    pass", "", "def h():", "    pass", "", "def g():", "    pass", "",
            ],
        ),
        Case::lines(
            "remove-between-braces",
            &["if a {", "  x", "}", "if b {", "  y", "}", "z"],
            &["if a {", "  x", "}", "z"],
        ),
        Case::lines(
            "slide-to-align-with-change",
            &["a", "b", "a", "b", "c"],
            &["a", "b", "a", "b", "a", "b", "d"],
        ),
    ];
    assert_agrees_with_git(&cases);
}

#[test]
fn missing_final_newline() {
    let cases = vec![
        Case::new("gains-newline", "a\nb", "a\nb\n"),
        Case::new("loses-newline", "a\nb\n", "a\nb"),
        Case::new("changes-last-line", "a\nb", "a\nc"),
        Case::new("appends-after-unterminated", "a", "a\nb"),
        Case::new("same-unterminated", "a\nb\nc", "a\nx\nc"),
        Case::new("unterminated-repeat", "x\nx\nx", "x\nx\nx\nx"),
    ];
    assert_agrees_with_git(&cases);
}

#[test]
fn crlf_line_endings() {
    let cases = vec![
        Case::new("crlf-to-lf", "a\r\nb\r\nc\r\n", "a\nb\nc\n"),
        Case::new("one-line-to-lf", "a\r\nb\r\nc\r\n", "a\r\nb\nc\r\n"),
        Case::new("crlf-edit", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"),
        Case::new("lone-cr", "a\rb\nc\n", "a\nb\nc\n"),
        Case::new("crlf-unterminated", "a\r\nb\r", "a\r\nb\r\n"),
    ];
    assert_agrees_with_git(&cases);
}

#[test]
fn empty_and_one_line_files() {
    let cases = vec![
        Case::new("empty-to-line", "", "a\n"),
        Case::new("line-to-empty", "a\n", ""),
        Case::new("empty-to-lines", "", "a\nb\nc\n"),
        Case::new("lines-to-empty", "a\nb\n", ""),
        Case::new("one-line-edit", "a\n", "b\n"),
        Case::new("unterminated-to-empty", "a", ""),
        Case::new("empty-to-unterminated", "", "a"),
        Case::new("both-empty", "", ""),
        Case::new("one-line-same", "a\n", "a\n"),
    ];
    assert_agrees_with_git(&cases);
}

#[test]
fn whole_file_rewrite() {
    let old: Vec<String> = (0..300).map(|i| format!("old line {i}")).collect();
    let new: Vec<String> = (0..250).map(|i| format!("new line {i}")).collect();
    let mut braces_old = Vec::new();
    let mut braces_new = Vec::new();
    for i in 0..120 {
        braces_old.extend([
            format!("fn old_{i}() {{"),
            format!("    old_{i}();"),
            "}".into(),
            String::new(),
        ]);
    }
    for i in 0..90 {
        braces_new.extend([
            format!("fn new_{i}() {{"),
            format!("    new_{i}();"),
            "}".into(),
            String::new(),
        ]);
    }
    let text = |lines: &[String]| join_lines(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let cases = vec![
        Case::new("disjoint", text(&old), text(&new)),
        Case::new(
            "shared-braces-and-blanks",
            text(&braces_old),
            text(&braces_new),
        ),
        Case::new(
            "shared-braces-small",
            text(&braces_old[..40]),
            text(&braces_new[..48]),
        ),
    ];
    assert_agrees_with_git(&cases);
}

/// Shared seeded generator with the two draws these tests need.
struct Rng(SeededRng);

impl Rng {
    fn seeded(seed: u64) -> Self {
        Self(SeededRng::new(seed))
    }

    /// Uniform in `0..bound` (bound > 0).
    fn below(&mut self, bound: usize) -> usize {
        self.0.below(bound)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Lines drawn from a small alphabet so that repeats are common.
fn random_lines(rng: &mut Rng, alphabet: &[String], len: usize) -> Vec<String> {
    (0..len)
        .map(|_| alphabet[rng.below(alphabet.len())].clone())
        .collect()
}

/// A few random edits: insert, delete, replace or move a short run of lines.
fn random_edit(rng: &mut Rng, alphabet: &[String], old: &[String]) -> Vec<String> {
    let mut new = old.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(new.len() + 1);
        let len = 1 + rng.below(4);
        match rng.below(4) {
            0 => {
                let run = random_lines(rng, alphabet, len);
                new.splice(at..at, run);
            }
            1 => {
                new.drain(at..(at + len).min(new.len()));
            }
            2 => {
                let run = random_lines(rng, alphabet, len);
                new.splice(at..(at + len).min(new.len()), run);
            }
            _ => {
                let moved: Vec<String> = new.drain(at..(at + len).min(new.len())).collect();
                let to = rng.below(new.len() + 1);
                new.splice(to..to, moved);
            }
        }
    }
    new
}

/// Joins lines; sometimes leaves the last one unterminated.
fn render(rng: &mut Rng, lines: &[String]) -> Vec<u8> {
    let mut text: Vec<u8> = lines
        .iter()
        .flat_map(|line| [line.as_bytes(), b"\n"].concat())
        .collect();
    if !text.is_empty() && rng.chance(10) {
        text.pop();
    }
    text
}

/// Distinct lines, some of them blank and some ending in CRLF once rendered.
fn alphabet(rng: &mut Rng, size: usize) -> Vec<String> {
    (0..size)
        .map(|i| match rng.below(8) {
            0 => String::new(),
            1 => format!("l{i}\r"),
            _ => format!("l{i}"),
        })
        .collect()
}

fn random_cases(
    seed: u64,
    count: usize,
    lengths: std::ops::Range<usize>,
    alphabet_sizes: std::ops::Range<usize>,
) -> Vec<Case> {
    let mut rng = Rng::seeded(seed);
    (0..count)
        .map(|index| {
            let size = alphabet_sizes.start + rng.below(alphabet_sizes.len());
            let alphabet = alphabet(&mut rng, size);
            let len = lengths.start + rng.below(lengths.len());
            let old = random_lines(&mut rng, &alphabet, len);
            let new = random_edit(&mut rng, &alphabet, &old);
            Case::new(
                format!("seed {seed} #{index}"),
                render(&mut rng, &old),
                render(&mut rng, &new),
            )
        })
        .collect()
}

#[test]
fn random_small_edits_agree_with_git() {
    assert_agrees_with_git(&random_cases(0x6b65_656c, 3000, 0..40, 2..8));
}

#[test]
fn random_edits_of_files_longer_than_a_kib_agree_with_git() {
    // Long lines make most files exceed 1 KiB, so git's common-tail cut usually applies.
    let mut cases = random_cases(0x7461_696c, 600, 20..60, 2..8);
    for case in &mut cases {
        case.old = lengthen_lines(&case.old);
        case.new = lengthen_lines(&case.new);
    }
    assert_agrees_with_git(&cases);
}

/// Pads every line to about 40 bytes, keeping equal lines equal.
fn lengthen_lines(text: &[u8]) -> Vec<u8> {
    let pad = b" ...................................";
    text.split_inclusive(|&byte| byte == b'\n')
        .flat_map(|line| {
            let (body, end) = line.split_at(
                line.iter()
                    .position(|&b| b == b'\r' || b == b'\n')
                    .unwrap_or(line.len()),
            );
            [body, pad.as_slice(), end].concat()
        })
        .collect()
}

#[test]
fn random_edits_of_long_repetitive_files_agree_with_git() {
    // 150..400 lines over 2..5 distinct lines: every line repeats past the occurrence
    // limit, so whole regions go to the classic fallback.
    assert_agrees_with_git(&random_cases(0x6869_7374, 300, 150..400, 2..5));
}

/// A long file of frequent lines (blank, `}`, `return`) among lines of its own, and a new
/// version that keeps some stretches and rewrites others with lines of its own: rewritten
/// stretches share only frequent lines, so they reach the classic fallback, some long
/// enough for its cost cut-offs, some with frequent lines lost among unmatched ones.
fn rewrite_among_frequent_lines(rng: &mut Rng, index: usize) -> Case {
    let frequent = &["", "}", "return"][..1 + rng.below(3)];
    let share = [5, 10, 20, 40, 70, 90][rng.below(6)];
    // Enough lines for each frequent line to pass the occurrence limit.
    let len = (300 + rng.below(3000)).max(80 * frequent.len() * 100 / share);
    let switch_per_mille = [0, 0, 1, 3, 10, 30][rng.below(6)];
    let pick = |rng: &mut Rng, own: String| {
        if rng.chance(share) {
            frequent[rng.below(frequent.len())].to_string()
        } else {
            own
        }
    };
    let old: Vec<String> = (0..len).map(|i| pick(rng, format!("o{i}"))).collect();
    let mut new = Vec::new();
    let mut rewriting = switch_per_mille == 0 || rng.chance(50);
    for (i, line) in old.iter().enumerate() {
        if rng.below(1000) < switch_per_mille {
            rewriting = !rewriting;
        }
        if rewriting {
            new.push(pick(rng, format!("n{i}")));
        } else {
            new.push(line.clone());
        }
    }
    Case::new(
        format!("rewrite #{index}"),
        join_owned(&old),
        join_owned(&new),
    )
}

/// Two unrelated files built of chunks: runs of 21 to 40 blank lines, and stretches of
/// frequent lines mixed with lines of their own. Only frequent lines are common, so the
/// classic fallback diffs the whole files, at an edit cost past its cut-offs, where long
/// runs of equal lines make some search rounds productive.
fn chunky_rewrite(rng: &mut Rng, index: usize) -> Case {
    let chunky = |rng: &mut Rng, own: &str| {
        let mut lines = Vec::new();
        for chunk in 0..20 + rng.below(60) {
            if rng.chance(30) {
                lines.extend(vec![String::new(); 21 + rng.below(20)]);
                continue;
            }
            for line in 0..10 + rng.below(50) {
                lines.push(match rng.below(10) {
                    0 | 1 => format!("{own}{chunk}.{line}"),
                    2..=5 => "}".to_string(),
                    6 | 7 => "return".to_string(),
                    _ => String::new(),
                });
            }
        }
        lines
    };
    let old = chunky(rng, "o");
    let new = chunky(rng, "n");
    Case::new(
        format!("chunky #{index}"),
        join_owned(&old),
        join_owned(&new),
    )
}

/// A long file of frequent lines only, and a copy with hundreds of small scattered edits:
/// the classic fallback diffs the whole files, and the search runs past its cost cut-offs
/// while long stretches still match, where it may cut at a promising diagonal.
fn scattered_edits(rng: &mut Rng, index: usize, len: usize) -> Case {
    let frequent = ["", "}", "return", "pass"];
    let pick = |rng: &mut Rng| frequent[rng.below(frequent.len())].to_string();
    let old: Vec<String> = (0..len).map(|_| pick(rng)).collect();
    let spacing = [8, 15, 25, 40][rng.below(4)];
    let mut new = Vec::new();
    let mut line = 0;
    while line < old.len() {
        let keep = 1 + rng.below(2 * spacing);
        new.extend(old[line..(line + keep).min(old.len())].iter().cloned());
        line += keep + rng.below(3);
        for _ in 0..rng.below(4) {
            new.push(if rng.chance(30) {
                format!("n{line}")
            } else {
                pick(rng)
            });
        }
    }
    Case::new(
        format!("scattered #{index}"),
        join_owned(&old),
        join_owned(&new),
    )
}

#[test]
fn random_rewrites_among_frequent_lines_agree_with_git() {
    let mut rng = Rng::seeded(0x7265_7772);
    let mut cases: Vec<Case> = (0..60)
        .map(|index| rewrite_among_frequent_lines(&mut rng, index))
        .collect();
    cases.extend((0..30).map(|index| chunky_rewrite(&mut rng, index)));
    cases.extend((0..30).map(|index| {
        let len = 3000 + rng.below(4000);
        scattered_edits(&mut rng, index, len)
    }));
    // Past 2^16 lines in all, the search may run long enough to cut at a promising diagonal.
    cases.extend((30..33).map(|index| scattered_edits(&mut rng, index, 34_000)));
    assert_agrees_with_git(&cases);
}
