//! keel's side of `extract-agree` and the comparison: the spec nodes that anchor what the
//! compilers listed, keel's lint of them, and the agreement tally.
//!
//! Owns: which selectors are anchored (every name the compiler lists that is a valid
//! selector, plus — on files the compiler parses cleanly — every name only keel's own
//! extractor lists, expected dead), the node texts (one node per file, one scoped entry),
//! reading lint's findings back into one keel verdict per selector (no finding = live),
//! the classes the tally is kept by, the line-range comparison of selectors both sides
//! call live (keel's ranges from `keel_queries::extract` on the same bytes), and the
//! printed report with examples of each disagreement's shape.
//! Does not own: the compilers' verdicts (`compilers`), nor the scratch copy
//! (`workspace`).

use crate::Failure;
use crate::compilers::{Expect, Expected, FileStatus, Listing};
use crate::workspace::Source;
use keel_engine::KeelDatabase;
use keel_queries::anchors::Selector;
use keel_queries::extract::{ExtractError, Language, Unit, extract};
use keel_queries::lint::{LintReport, Scope, lint_on_threads};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// Appends one formatted line to the report.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {{
        $out.push_str(&format!($($arg)*));
        $out.push('\n');
    }};
}

/// Appends formatted text to the report.
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {
        $out.push_str(&format!($($arg)*))
    };
}

/// Node ids: `extract-agree-00000`, one per anchored file.
const NODE_PREFIX: &str = "extract-agree-";

/// The positive control: a selector no file has, anchored in the first node whose file
/// keel's extractor reads. keel must call it dead, or findings are not being read back
/// and every "agreement" is void.
const CONTROL: &str = "extract_agree_control_no_such_unit";

/// keel's verdict on one selector, as its lint reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Keel {
    /// No integrity finding names the selector.
    Live,
    TypeOnly,
    Ambiguous,
    Dead,
    Unparseable,
    /// Any other finding (no-extractor, extractor-unavailable, ...).
    Other,
}

impl Keel {
    const ALL: [Self; 6] = [
        Self::Live,
        Self::TypeOnly,
        Self::Ambiguous,
        Self::Dead,
        Self::Unparseable,
        Self::Other,
    ];

    fn from_code(code: &str) -> Self {
        match code {
            "type-only-anchor" => Self::TypeOnly,
            "ambiguous-anchor" => Self::Ambiguous,
            "dead-anchor" => Self::Dead,
            "unparseable-anchor" => Self::Unparseable,
            _ => Self::Other,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Live => "live",
            Self::TypeOnly => "type-only",
            Self::Ambiguous => "ambiguous",
            Self::Dead => "dead",
            Self::Unparseable => "unparseable",
            Self::Other => "other",
        }
    }

    fn agrees(self, expect: Expect) -> bool {
        matches!(
            (expect, self),
            (Expect::Live, Self::Live)
                | (Expect::TypeOnly, Self::TypeOnly)
                | (Expect::Ambiguous, Self::Ambiguous)
                | (Expect::Unparseable, Self::Unparseable)
                | (Expect::Dead, Self::Dead)
        )
    }
}

/// The row a selector is counted under: the compiler's verdict and how its unit formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Class {
    Live,
    Overload,
    Property,
    DeclarationSpace,
    GlobalAugmentation,
    BlockVar,
    TypeOnly,
    Ambiguous,
    TypeRepeat,
    Unparseable,
    KeelOnly,
}

impl Class {
    fn of(expected: &Expected) -> Self {
        let has = |group: &str| expected.group.split('+').any(|g| g == group);
        match expected.verdict {
            Expect::Live if has("decl-space") => Self::DeclarationSpace,
            Expect::Live if has("overload") => Self::Overload,
            Expect::Live if has("property") || has("accessor") => Self::Property,
            Expect::Live if has("global") => Self::GlobalAugmentation,
            Expect::Live if has("block-var") => Self::BlockVar,
            Expect::Live => Self::Live,
            Expect::TypeOnly => Self::TypeOnly,
            Expect::Ambiguous if has("type-merge") => Self::TypeRepeat,
            Expect::Ambiguous => Self::Ambiguous,
            Expect::Unparseable => Self::Unparseable,
            Expect::Dead => Self::KeelOnly,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Live => "live",
            Self::Overload => "live: overload group",
            Self::Property => "live: property/accessor group",
            Self::DeclarationSpace => "live: value over type (decl. spaces)",
            Self::GlobalAugmentation => "live: in `declare global`",
            Self::BlockVar => "live: `var` in a module-level block",
            Self::TypeOnly => "type-only",
            Self::Ambiguous => "ambiguous",
            Self::TypeRepeat => "ambiguous: only type declarations",
            Self::Unparseable => "unparseable (holds a syntax error)",
            Self::KeelOnly => "no unit (only keel lists it)",
        }
    }
}

/// One anchored file.
struct PlannedFile {
    path: String,
    language: Language,
    node: String,
    /// The compiler read it without a syntax error.
    clean: bool,
    selectors: Vec<Expected>,
    /// keel's extractor on the same bytes, in-process.
    keel_units: Result<Vec<Unit>, ExtractError>,
    /// The file's lines (lossy UTF-8), to tell why a range differs.
    lines: Vec<String>,
}

/// A file the compiler rejected outright, with what keel's extractor makes of it.
struct RejectedFile {
    path: String,
    line: u32,
    message: String,
    keel: String,
}

/// What is anchored, and what could not be.
pub(crate) struct Plan {
    files: Vec<PlannedFile>,
    /// (path, name): names that are no valid selector (`'quoted-name'`, `0`, `@scope/pkg`).
    not_selectable: Vec<(String, String)>,
    /// Paths a scoped entry cannot name (a `#`, surrounding whitespace, a control
    /// character).
    unanchorable: Vec<String>,
    rejected: Vec<RejectedFile>,
    /// The file whose node also anchors [`CONTROL`].
    control: Option<usize>,
}

impl Plan {
    pub(crate) fn build(root: &Path, listing: &Listing) -> Result<Self, Failure> {
        let mut plan = Self {
            files: Vec::new(),
            not_selectable: Vec::new(),
            unanchorable: Vec::new(),
            rejected: Vec::new(),
            control: None,
        };
        for file in &listing.files {
            let bytes = std::fs::read(root.join(&file.path)).map_err(|e| {
                Failure::Tool(format!("cannot read {} in the copy: {e}", file.path))
            })?;
            let keel_units = extract(&bytes, &file.path).unwrap_or_else(|| {
                Err(ExtractError::Unavailable {
                    reason: "no extractor".to_owned(),
                })
            });
            let clean = match &file.status {
                FileStatus::Parsed => true,
                FileStatus::Errors { .. } => false,
                FileStatus::Rejected { line, message } => {
                    plan.rejected.push(RejectedFile {
                        path: file.path.clone(),
                        line: *line,
                        message: message.clone(),
                        keel: describe(&keel_units),
                    });
                    continue;
                }
            };
            if !anchorable(&file.path) {
                plan.unanchorable.push(file.path.clone());
                continue;
            }
            let mut selectors = Vec::new();
            for expected in &file.selectors {
                if Selector::parse(&expected.name).is_some() {
                    selectors.push(expected.clone());
                } else {
                    plan.not_selectable
                        .push((file.path.clone(), expected.name.clone()));
                }
            }
            if let (true, Ok(units)) = (clean, &keel_units) {
                selectors.extend(keel_only(&file.selectors, units));
            }
            if selectors.is_empty() {
                continue;
            }
            plan.files.push(PlannedFile {
                path: file.path.clone(),
                language: file.language,
                node: format!("{NODE_PREFIX}{:05}", plan.files.len()),
                clean,
                selectors,
                keel_units,
                lines: String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(str::to_owned)
                    .collect(),
            });
        }
        plan.control = plan.files.iter().position(|f| f.keel_units.is_ok());
        Ok(plan)
    }

    /// `(node id, spec.md text)` for every anchored file.
    pub(crate) fn spec_nodes(&self) -> Vec<(String, String)> {
        self.files
            .iter()
            .enumerate()
            .map(|(index, file)| {
                let mut names: Vec<&str> =
                    file.selectors.iter().map(|s| s.name.as_str()).collect();
                if Some(index) == self.control {
                    names.push(CONTROL);
                }
                let entry = format!("{}#{}", file.path, names.join(","));
                let text = format!(
                    "---\ncode:\n  - \"{}\"\n---\n# {}\n\nGenerated by extract-agree: every unit the compiler lists in this file; keel reads only the frontmatter.\n",
                    entry.replace('\\', "\\\\").replace('"', "\\\""),
                    file.path
                );
                (file.node.clone(), text)
            })
            .collect()
    }

    /// Reads lint's findings back into one keel verdict per selector and counts; fails
    /// when the positive control does not come back dead.
    pub(crate) fn tally(&self, report: &LintReport) -> Result<Tally, Failure> {
        let mut tally = Tally::default();
        let mut verdicts: HashMap<(&str, &str), (Keel, &str)> = HashMap::new();
        for finding in &report.findings {
            let keel = Keel::from_code(finding.code);
            if keel == Keel::Other || finding.selectors.is_empty() {
                *tally.other_findings.entry(finding.code).or_default() += 1;
            }
            for selector in &finding.selectors {
                verdicts.insert(
                    (finding.node.as_str(), selector.as_str()),
                    (keel, finding.message.as_str()),
                );
            }
        }
        if let Some(file) = self.control.map(|index| &self.files[index]) {
            let control = verdicts.get(&(file.node.as_str(), CONTROL)).map(|v| v.0);
            if control != Some(Keel::Dead) {
                return Err(Failure::Tool(format!(
                    "positive control failed: keel's verdict on {}#{CONTROL} is {}, not dead; lint's findings are not read back",
                    file.path,
                    control.unwrap_or(Keel::Live).label()
                )));
            }
        }
        for file in &self.files {
            for expected in &file.selectors {
                let (keel, message) = verdicts
                    .get(&(file.node.as_str(), expected.name.as_str()))
                    .copied()
                    .unwrap_or((Keel::Live, ""));
                let class = Class::of(expected);
                *tally
                    .matrix
                    .entry((file.clean, class))
                    .or_default()
                    .entry(keel)
                    .or_default() += 1;
                let line = expected.ranges.first().map_or(0, |r| r.0);
                tally
                    .class_examples
                    .entry((file.clean, class))
                    .or_default()
                    .add(format!(
                        "{}:{line}  {}  ({}, lines {})",
                        file.path,
                        expected.name,
                        expected.kind,
                        ranges_text(&expected.ranges)
                    ));
                if !keel.agrees(expected.verdict) {
                    let keel_says = match keel {
                        Keel::Live => keel_range(file, &expected.name).map_or_else(
                            || "live".to_owned(),
                            |(s, e)| format!("live, lines {s}-{e}"),
                        ),
                        _ => message.to_owned(),
                    };
                    let shape = Shape {
                        clean: file.clean,
                        class,
                        language: language_label(file.language),
                        kind: expected.kind.clone(),
                        keel,
                    };
                    tally.shapes.entry(shape).or_default().add(format!(
                        "{}:{line}  {}  (compiler: {}; lines {})  keel: {keel_says}",
                        file.path,
                        expected.name,
                        expected.group,
                        ranges_text(&expected.ranges)
                    ));
                } else if keel == Keel::Live && file.clean {
                    tally.compare_range(file, expected);
                }
            }
        }
        Ok(tally)
    }
}

/// Names only keel's extractor lists in a cleanly parsed file: expected dead.
fn keel_only(compiler: &[Expected], units: &[Unit]) -> Vec<Expected> {
    let known: BTreeSet<&str> = compiler.iter().map(|e| e.name.as_str()).collect();
    let mut extra: BTreeMap<&str, Vec<&Unit>> = BTreeMap::new();
    for unit in units {
        if !known.contains(unit.name.as_str()) && Selector::parse(&unit.name).is_some() {
            extra.entry(unit.name.as_str()).or_default().push(unit);
        }
    }
    extra
        .into_iter()
        .map(|(name, units)| Expected {
            name: name.to_owned(),
            verdict: Expect::Dead,
            group: "keel-only".to_owned(),
            kind: units[0].kind.name().to_owned(),
            ranges: units.iter().map(|u| (u.start_line, u.end_line)).collect(),
        })
        .collect()
}

/// keel's one unit of that name in the file (among the units that stand, when the file
/// parses only in part), if it has exactly one.
fn keel_range(file: &PlannedFile, name: &str) -> Option<(u32, u32)> {
    let units = match &file.keel_units {
        Ok(units) => units,
        Err(ExtractError::Unparseable { partial, .. }) => &partial.units,
        Err(ExtractError::Unavailable { .. }) => return None,
    };
    let mut matching = units.iter().filter(|u| u.name == name);
    let unit = matching.next()?;
    matching
        .next()
        .is_none()
        .then_some((unit.start_line, unit.end_line))
}

/// A path a scoped entry can name, written inside a double-quoted YAML string.
fn anchorable(path: &str) -> bool {
    !path.contains('#') && path.trim() == path && !path.chars().any(char::is_control)
}

fn describe(units: &Result<Vec<Unit>, ExtractError>) -> String {
    match units {
        Ok(units) => format!("keel parses it ({} units)", units.len()),
        Err(ExtractError::Unparseable { line, reason, .. }) => {
            format!("keel: unparseable at line {line} ({reason})")
        }
        Err(ExtractError::Unavailable { reason }) => format!("keel: unavailable ({reason})"),
    }
}

fn language_label(language: Language) -> &'static str {
    match language {
        Language::Python => "py",
        Language::TypeScript => "ts",
        Language::Tsx => "tsx/js",
    }
}

fn ranges_text(ranges: &[(u32, u32)]) -> String {
    let parts: Vec<String> = ranges.iter().map(|(s, e)| format!("{s}-{e}")).collect();
    parts.join(", ")
}

/// Lints the scratch copy in-process.
pub(crate) fn lint(root: &Path, threads: usize) -> Result<LintReport, Failure> {
    let db = KeelDatabase::open(root)
        .map_err(|e| Failure::Tool(format!("keel cannot open the copy: {e}")))?;
    lint_on_threads(&db, threads, Scope::Full)
        .map_err(|e| Failure::Tool(format!("keel cannot lint the copy: {e:?}")))
}

/// A disagreement's shape.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Shape {
    /// On a file the compiler parsed cleanly.
    clean: bool,
    class: Class,
    language: &'static str,
    kind: String,
    keel: Keel,
}

/// How a live range differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum RangeShape {
    /// keel's range runs on over lines that hold only comments or nothing (the compiler's
    /// tree has no comments; tree-sitter's block keeps indented trailing comments).
    TrailingComments,
    Start,
    End,
    Both,
}

impl RangeShape {
    fn label(self) -> &'static str {
        match self {
            Self::TrailingComments => "keel's end runs on over comment lines",
            Self::Start => "start line differs",
            Self::End => "end line differs",
            Self::Both => "start and end differ",
        }
    }
}

/// A line holding only a comment, or nothing.
fn comment_or_blank(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || ["#", "//", "/*", "*"].iter().any(|p| line.starts_with(p))
}

/// A count and its first examples.
#[derive(Debug, Default)]
struct Examples {
    count: usize,
    lines: Vec<String>,
}

/// How many examples a shape keeps at most (`--examples` prints fewer).
const KEPT_EXAMPLES: usize = 50;

impl Examples {
    fn add(&mut self, line: String) {
        self.count += 1;
        if self.lines.len() < KEPT_EXAMPLES {
            self.lines.push(line);
        }
    }
}

/// The counts.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// (clean file, class) → keel's verdict → selectors.
    matrix: BTreeMap<(bool, Class), BTreeMap<Keel, usize>>,
    /// (clean file, class) → the first selectors counted there, whatever keel said.
    class_examples: BTreeMap<(bool, Class), Examples>,
    shapes: BTreeMap<Shape, Examples>,
    ranges_same: usize,
    ranges_differ: BTreeMap<(&'static str, String, RangeShape), Examples>,
    /// Findings that are no selector verdict (none expected: every window is empty).
    other_findings: BTreeMap<&'static str, usize>,
}

impl Tally {
    fn compare_range(&mut self, file: &PlannedFile, expected: &Expected) {
        let (Some(&compiler), Some(keel)) =
            (expected.ranges.first(), keel_range(file, &expected.name))
        else {
            return;
        };
        let shape = match (compiler.0 == keel.0, compiler.1 == keel.1) {
            (true, true) => {
                self.ranges_same += 1;
                return;
            }
            (false, true) => RangeShape::Start,
            (true, false)
                if keel.1 > compiler.1
                    && file
                        .lines
                        .get(compiler.1 as usize..keel.1 as usize)
                        .is_some_and(|extra| extra.iter().all(|l| comment_or_blank(l))) =>
            {
                RangeShape::TrailingComments
            }
            (true, false) => RangeShape::End,
            (false, false) => RangeShape::Both,
        };
        self.ranges_differ
            .entry((language_label(file.language), expected.kind.clone(), shape))
            .or_default()
            .add(format!(
                "{}:{}  {}  compiler {}-{}, keel {}-{}",
                file.path, compiler.0, expected.name, compiler.0, compiler.1, keel.0, keel.1
            ));
    }

    fn counts(&self, clean: bool) -> (usize, usize) {
        let mut total = 0;
        let mut agree = 0;
        for ((on_clean, class), row) in &self.matrix {
            if *on_clean != clean {
                continue;
            }
            for (keel, n) in row {
                total += n;
                if keel.agrees(expect_of(*class)) {
                    agree += n;
                }
            }
        }
        (agree, total)
    }

    /// Every selector on a cleanly parsed file agrees, and lint said nothing else.
    pub(crate) fn all_agree(&self) -> bool {
        let (agree, total) = self.counts(true);
        agree == total && self.other_findings.is_empty()
    }

    /// The printed report.
    pub(crate) fn render(
        &self,
        source: &Source,
        listing: &Listing,
        plan: &Plan,
        nodes: usize,
        examples: usize,
    ) -> String {
        let mut out = String::new();
        say!(
            out,
            "extract-agree: {} at {}",
            source.top.display(),
            source.short_head()
        );
        say!(out, "compilers: {}", listing.compilers.join(", "));
        for (label, python) in [("Python", true), ("TypeScript/JavaScript", false)] {
            let files: Vec<_> = listing
                .files
                .iter()
                .filter(|f| (f.language == Language::Python) == python)
                .collect();
            if files.is_empty() {
                continue;
            }
            let errors = files
                .iter()
                .filter(|f| matches!(f.status, FileStatus::Errors { .. }))
                .count();
            let rejected = files
                .iter()
                .filter(|f| matches!(f.status, FileStatus::Rejected { .. }))
                .count();
            say!(
                out,
                "files: {} {label}: {} parsed cleanly, {errors} with syntax errors the parser recovered from, {rejected} rejected",
                files.len(),
                files.len() - errors - rejected
            );
        }
        let anchored: usize = plan.files.iter().map(|f| f.selectors.len()).sum();
        let keel_only: usize = plan
            .files
            .iter()
            .flat_map(|f| &f.selectors)
            .filter(|s| s.verdict == Expect::Dead)
            .count();
        say!(
            out,
            "anchored: {anchored} selectors in {nodes} nodes ({} the compiler lists, {keel_only} only keel lists); {} names are no selector; {} paths cannot carry selectors; {} paths skipped",
            anchored - keel_only,
            plan.not_selectable.len(),
            plan.unanchorable.len(),
            listing.skipped.len()
        );
        match plan.control.map(|index| &plan.files[index]) {
            Some(file) => say!(
                out,
                "positive control: keel calls {}#{CONTROL} dead, as it must",
                file.path
            ),
            None => say!(
                out,
                "positive control: none (keel's extractor reads no anchored file)"
            ),
        }
        let (agree, total) = self.counts(true);
        say!(
            out,
            "\nAGREEMENT on files the compiler parses cleanly: {agree} / {total} selectors ({} disagree)",
            total - agree
        );
        self.render_matrix(&mut out, true);
        let (agree_e, total_e) = self.counts(false);
        if total_e > 0 {
            say!(
                out,
                "\nfiles with syntax errors (the compiler recovered; expected: units holding an error are unparseable, the rest resolve): {agree_e} / {total_e} agree"
            );
            self.render_matrix(&mut out, false);
        }
        if !self.other_findings.is_empty() {
            let other: Vec<String> = self
                .other_findings
                .iter()
                .map(|(code, n)| format!("{code} {n}"))
                .collect();
            say!(out, "\nother findings: {}", other.join(", "));
        }
        let shown = examples.min(2);
        if shown > 0 {
            say!(out, "\nexamples by class:");
        }
        for ((clean, class), found) in &self.class_examples {
            for line in found.lines.iter().take(shown) {
                say!(
                    out,
                    "  [{}{}] {line}",
                    if *clean { "" } else { "error file, " },
                    class.label()
                );
            }
        }
        let differ: usize = self.ranges_differ.values().map(|e| e.count).sum();
        say!(
            out,
            "\nlive ranges (both sides live, keel's unit from its extractor): {} same, {differ} differ",
            self.ranges_same
        );
        for ((language, kind, shape), found) in &self.ranges_differ {
            say!(
                out,
                "  [{language} {kind}: {}] {}",
                shape.label(),
                found.count
            );
            for line in found.lines.iter().take(examples) {
                say!(out, "      {line}");
            }
        }
        if !self.shapes.is_empty() {
            say!(
                out,
                "\ndisagreements by shape (compiler's class → keel's verdict):"
            );
        }
        for (shape, found) in &self.shapes {
            say!(
                out,
                "  [{}{} {}: {} → keel {}] {}",
                if shape.clean { "" } else { "error file, " },
                shape.language,
                shape.kind,
                shape.class.label(),
                shape.keel.label(),
                found.count
            );
            for line in found.lines.iter().take(examples) {
                say!(out, "      {line}");
            }
        }
        if !plan.rejected.is_empty() {
            say!(
                out,
                "\nfiles the compiler rejects ({}; not anchored):",
                plan.rejected.len()
            );
            for file in plan.rejected.iter().take(examples.max(1) * 4) {
                say!(
                    out,
                    "  {}:{}  {}  — {}",
                    file.path,
                    file.line,
                    file.message,
                    file.keel
                );
            }
        }
        if !plan.not_selectable.is_empty() {
            say!(
                out,
                "\nnames that are no selector ({}), e.g.:",
                plan.not_selectable.len()
            );
            for (path, name) in plan.not_selectable.iter().take(examples) {
                say!(out, "  {path}  {name}");
            }
        }
        for path in plan
            .unanchorable
            .iter()
            .chain(&listing.skipped)
            .take(examples)
        {
            say!(out, "  not anchored (path): {path}");
        }
        out
    }

    fn render_matrix(&self, out: &mut String, clean: bool) {
        put!(
            out,
            "  {:<40} {:>8} {:>8}",
            "compiler's class",
            "n",
            "agree"
        );
        for keel in Keel::ALL {
            put!(out, " {:>11}", keel.label());
        }
        out.push('\n');
        for ((on_clean, class), row) in &self.matrix {
            if *on_clean != clean {
                continue;
            }
            let total: usize = row.values().sum();
            let agree: usize = row
                .iter()
                .filter(|(keel, _)| keel.agrees(expect_of(*class)))
                .map(|(_, n)| n)
                .sum();
            put!(out, "  {:<40} {total:>8} {agree:>8}", class.label());
            for keel in Keel::ALL {
                put!(out, " {:>11}", row.get(&keel).copied().unwrap_or(0));
            }
            out.push('\n');
        }
    }
}

/// The verdict a class expects.
fn expect_of(class: Class) -> Expect {
    match class {
        Class::Live
        | Class::Overload
        | Class::Property
        | Class::DeclarationSpace
        | Class::GlobalAugmentation
        | Class::BlockVar => Expect::Live,
        Class::TypeOnly => Expect::TypeOnly,
        Class::Ambiguous | Class::TypeRepeat => Expect::Ambiguous,
        Class::Unparseable => Expect::Unparseable,
        Class::KeelOnly => Expect::Dead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_queries::extract::UnitKind;

    fn expected(name: &str, verdict: Expect, group: &str) -> Expected {
        Expected {
            name: name.to_owned(),
            verdict,
            group: group.to_owned(),
            kind: "function".to_owned(),
            ranges: vec![(1, 2)],
        }
    }

    #[test]
    fn classes_follow_verdict_then_group() {
        let cases = [
            (Expect::Live, "plain", Class::Live),
            (Expect::Live, "overload", Class::Overload),
            (Expect::Live, "decl-space+overload", Class::DeclarationSpace),
            (Expect::Live, "property", Class::Property),
            (Expect::TypeOnly, "plain", Class::TypeOnly),
            (Expect::Ambiguous, "type-merge", Class::TypeRepeat),
            (Expect::Ambiguous, "overload", Class::Ambiguous),
            (Expect::Dead, "keel-only", Class::KeelOnly),
        ];
        for (verdict, group, class) in cases {
            assert_eq!(Class::of(&expected("f", verdict, group)), class, "{group}");
            assert_eq!(expect_of(class), verdict);
        }
    }

    #[test]
    fn keel_only_names_are_expected_dead() {
        let unit = |name: &str, start| Unit {
            name: name.to_owned(),
            kind: UnitKind::Variable,
            start_line: start,
            end_line: start,
        };
        let units = [
            unit("a", 1),
            unit("b", 2),
            unit("b", 3),
            unit("quoted-name", 4),
        ];
        let extra = keel_only(&[expected("a", Expect::Live, "plain")], &units);
        assert_eq!(extra.len(), 1);
        assert_eq!(extra[0].name, "b");
        assert_eq!(extra[0].verdict, Expect::Dead);
        assert_eq!(extra[0].ranges, [(2, 2), (3, 3)]);
    }

    #[test]
    fn entries_need_a_plain_path() {
        assert!(anchorable("src/app/[slug]/page.tsx"));
        assert!(!anchorable("docs/a#b.py"));
        assert!(!anchorable(" lead.py"));
    }
}
