//! The gate's refusal as its author reads it: what the judged commit itself adds, the
//! debt the nodes it touches already carried (summarized), what stands in its tree, and
//! the repair that works for each.
//!
//! Owns: the wording and order of a refusal, for the hook (`keel hook run`) and for the
//! candidate lints a person runs before committing (`keel lint --worktree`, `--pending`).
//! Does not own: the split itself (`keel_queries::lint::Owed`), the findings, or the full
//! report (`render::lint_text`).

use crate::render::{counted, finding_target, hit_text, severity_label};
use keel_queries::lint::{Finding, LintReport, Owed, Severity};
use std::fmt::Write;

/// The environment variable that lets one ref update through unjudged.
pub(crate) const SKIP: &str = "KEEL_SKIP_LINT";

/// How the author goes on once the refusal is answered.
pub(crate) enum Retry {
    /// Commit again (the gate refused an ordinary commit).
    Commit,
    /// Commit (a candidate judged before it exists: `keel lint --worktree`, `--pending`).
    BeforeCommit,
    /// A git operation is in progress: its continue and abort commands, and whether it
    /// is a rebase (whose spec update is a commit of its own before it continues).
    Operation {
        go_on: &'static str,
        abort: &'static str,
        rebase: bool,
    },
    /// `git merge`/`git pull` fast-forwarding to `to` (a commit id): the working tree
    /// and index already hold it.
    FastForward { to: String },
}

/// The refusal of `commits` (the judged candidate, or a ref update's new commits: ids as
/// the report's hits name them, or `worktree`):
/// `headline` first, then each part of [`Owed`] with its repair, then how to go on.
pub(crate) fn refusal_text(
    report: &LintReport,
    commits: &[String],
    headline: &str,
    retry: &Retry,
) -> String {
    let owed = report.owed_by(commits);
    let judged = Judged(commits.len());
    let mut out = format!("{headline}\n");
    added_text(&mut out, &owed.added, judged);
    carried_text(&mut out, &owed.carried, judged);
    standing_text(&mut out, &owed.standing, report, judged);
    // Writing to a String cannot fail.
    let _ = writeln!(out);
    out.push_str(&go_on_text(retry));
    out
}

/// How to go on, and the bypass that works, for each way a refusal finds the repository:
/// each command was tried against git's own state after such a refusal (see the CLI
/// tests of the gate).
fn go_on_text(retry: &Retry) -> String {
    match retry {
        Retry::Commit => format!(
            "Then commit again (after a refused `git revert`, `git commit --no-edit` commits the revert with its message).\n\
             To let this one commit through unjudged: {SKIP}=1 on the same `git commit` (after a refused revert: `{SKIP}=1 git commit --no-edit`).\n"
        ),
        Retry::BeforeCommit => format!(
            "The gate (`keel hook install`) gives this verdict at commit; `{SKIP}=1` on the git command lets that one commit through unjudged.\n"
        ),
        Retry::Operation {
            go_on,
            abort,
            rebase: true,
        } => format!(
            "Then `git add` the spec and `git commit` it (a commit after the hits answers them), and run `{go_on}`; or `{abort}`.\n\
             To let the rebase finish unjudged: `{SKIP}=1 {go_on}`.\n"
        ),
        Retry::Operation { go_on, abort, .. } => format!(
            "Then stage the specs and run `{go_on}`; or `{abort}`.\n\
             To let this one update through unjudged: `{SKIP}=1 {go_on}`.\n"
        ),
        Retry::FastForward { to } => format!(
            "git fast-forwarded the working tree and index to {to} before moving the branch, and leaves them there; restore them (your own changes stay): `git read-tree -u -m {to} HEAD`.\n\
             Then update the spec in a commit after the hits: with your own changes committed or stashed, `git merge --no-ff --no-commit {to}`, update the spec, `git add` it, `git commit`.\n\
             To let the fast-forward through unjudged: `{SKIP}=1 git merge --ff-only {to}`.\n"
        ),
    }
}

/// How many commits a refusal judges: the one candidate, or a ref update's new commits.
#[derive(Clone, Copy)]
struct Judged(usize);

impl Judged {
    /// `this commit` or `these 3 new commits`.
    fn these(self) -> String {
        self.these_as("this", "these")
    }

    /// [`Judged::these`], capitalized.
    fn these_capitalized(self) -> String {
        self.these_as("This", "These")
    }

    fn these_as(self, this: &str, these: &str) -> String {
        match self.0 {
            1 => format!("{this} commit"),
            n => format!("{these} {n} new commits"),
        }
    }

    /// The verb after [`Judged::these`]: `changes` or `change`.
    fn verb(self, singular: &'static str, plural: &'static str) -> &'static str {
        if self.0 == 1 { singular } else { plural }
    }
}

/// What the judged commits themselves changed inside pinned units (blocking) or governed
/// paths (advisory), and the repairs that answer it: the spec in the same commit (or,
/// for several, a commit of the update after them), or a trailer on each.
fn added_text(out: &mut String, added: &[Finding], judged: Judged) {
    let (blocking, advisory): (Vec<&Finding>, Vec<&Finding>) = added
        .iter()
        .partition(|finding| finding.severity == Severity::Error);
    let these = judged.these_capitalized();
    if blocking.is_empty() {
        let leave = judged.verb("leaves", "leave");
        let _ = writeln!(
            out,
            "\n{these} {leave} no change to pinned code unanswered."
        );
    } else {
        let change = judged.verb("changes", "change");
        let _ = writeln!(out, "\n{these} {change} pinned code:");
        for finding in &blocking {
            finding_lines(out, finding);
        }
        let nodes = Owed::nodes(added);
        let (specs, trailer) = (spec_files(&nodes), trailers(&nodes));
        if judged.0 == 1 {
            let _ = writeln!(
                out,
                "  repair: update {specs} in this commit; or, if the spec still holds, add {trailer} to this commit's message (a trailer covers only the commit that carries it)"
            );
        } else {
            let _ = writeln!(
                out,
                "  repair: update {specs} in a commit of this update after them (the spec's new version starts its window after them); or, if the spec still holds, add {trailer} to the message of each commit listed (a trailer covers only the commit that carries it)"
            );
        }
    }
    if !advisory.is_empty() {
        let change = judged.verb("changes", "change");
        let _ = writeln!(
            out,
            "\n{} also {change} governed files (advisory, not blocking):",
            judged.verb("It", "They")
        );
        for finding in advisory {
            finding_head(out, finding);
        }
    }
}

/// The debt the touched nodes carried before the judged commits, summarized, and `keel
/// ack`.
fn carried_text(out: &mut String, carried: &[Finding], judged: Judged) {
    if carried.is_empty() {
        return;
    }
    let nodes = Owed::nodes(carried);
    let hits: usize = carried.iter().map(|finding| finding.hits.len()).sum();
    let these = judged.these();
    let _ = writeln!(
        out,
        "\nThe {} {these} {} already owed {} from {} before {}: {} (`keel lint` lists them).",
        if nodes.len() == 1 { "node" } else { "nodes" },
        judged.verb("touches", "touch"),
        counted(hits, "blocking hit"),
        counted(Owed::commits(carried).len(), "earlier commit"),
        judged.verb("it", "them"),
        nodes.join(", ")
    );
    let _ = writeln!(
        out,
        "  repair: `keel ack {}` acknowledges them in one checkpoint commit on the branch (run it with no rebase, merge or cherry-pick in progress); a `Spec-OK` trailer on {these} does not, it covers only the commit that carries it",
        nodes.join(" ")
    );
}

/// Blocking findings about the specs as the commit leaves them, and unverified anchors:
/// each with its own repair.
fn standing_text(out: &mut String, standing: &[Finding], report: &LintReport, judged: Judged) {
    if standing.is_empty() && report.unverified.is_empty() {
        return;
    }
    let leave = judged.verb("leaves", "leave");
    let _ = writeln!(out, "\nThe specs as {} {leave} them:", judged.these());
    for finding in standing {
        finding_head(out, finding);
        let _ = writeln!(out, "    {}", finding.message);
        let _ = writeln!(out, "    repair: {}", finding.repair);
    }
    for item in &report.unverified {
        let _ = writeln!(
            out,
            "  {}: unverified {}#{} ({})",
            item.node,
            item.path,
            item.selectors.join(","),
            item.reason
        );
    }
}

/// `  node: error[code] target` (or `warning[code]`).
fn finding_head(out: &mut String, finding: &Finding) {
    let _ = writeln!(
        out,
        "  {}: {} {}",
        finding.node,
        severity_label(finding, false),
        finding_target(finding)
    );
}

/// [`finding_head`] and one line per hit.
fn finding_lines(out: &mut String, finding: &Finding) {
    finding_head(out, finding);
    for hit in &finding.hits {
        let _ = writeln!(out, "    {}", hit_text(hit));
    }
}

/// `.spec/a/spec.md` or `.spec/a/spec.md and .spec/b/spec.md`.
fn spec_files(nodes: &[&str]) -> String {
    let files: Vec<String> = nodes
        .iter()
        .map(|node| format!("`.spec/{node}/spec.md`"))
        .collect();
    files.join(" and ")
}

/// `the trailer `Spec-OK: a`` or `the trailers `Spec-OK: a` and `Spec-OK: b``.
fn trailers(nodes: &[&str]) -> String {
    let lines: Vec<String> = nodes
        .iter()
        .map(|node| format!("`{}: {node}`", keel_queries::ack::SPEC_OK))
        .collect();
    format!(
        "the {} {}",
        if lines.len() == 1 {
            "trailer"
        } else {
            "trailers"
        },
        lines.join(" and ")
    )
}
