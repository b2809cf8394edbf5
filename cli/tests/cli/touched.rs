//! `keel touched REVSPEC` end to end: the real binary on repositories built by
//! `keel_fixtures::FixtureRepo`, each answer held to what the git CLI says the range did.
//!
//! Owns: the answer's shape per history (renames before and after an edit, a deletion, a
//! fork whose sides rename and edit, a merge that owns lines and a transport merge, a
//! `Spec-OK` trailer, a spec version inside the range or not), the shallow clone's
//! unavailable answer and its full-clone control, the text layout (a snapshot), the
//! refusal of a bad REVSPEC, and the memo a cold `keel lint` leaves being enough for
//! `touched`. The expected commits are computed here from `git rev-list` and `git diff
//! -U0` hunks between the blobs of each commit and its parents, intersected with the unit
//! lines the test reads off the files it wrote ([`unit_lines`]); a merge owns an added
//! line only when it is added against every parent (the dense combined-diff rule; the
//! merges built here own no deleted line). Does not own: the projection's agreement with
//! lint over random histories (`keel-queries`' `touched_agrees_with_lint`), nor lint.

use crate::support::{APP_PY, Run, lint, run, snapshot_settings, spec, stats_of};
use crate::{APP_PY_F_CHANGED, APP_PY_G_CHANGED};
use keel_fixtures::FixtureRepo;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The node every history here pins: `f` and `g` of the app file.
const NODE: &str = "app";
/// The selectors of its entry, in the spec's order.
const SELECTORS: [&str; 2] = ["f", "g"];

/// `APP_PY` with both `f` and `g` changed.
const APP_PY_BOTH_CHANGED: &str =
    "def f(x):\n    y = x + 2\n    return y\n\n\ndef g():\n    return 1\n";

// ---------------------------------------------------------------------------------------
// The git-CLI oracle
// ---------------------------------------------------------------------------------------

/// The lines (1-based, inclusive) of the top-level function `name` in `text`: from its
/// `def name(` line to the last non-blank line before the next top-level line. The files
/// here are written by these tests, so this reading is exact for them.
fn unit_lines(text: &str, name: &str) -> Option<(u32, u32)> {
    let lines: Vec<&str> = text.lines().collect();
    let header = format!("def {name}(");
    let start = lines.iter().position(|line| line.starts_with(&header))?;
    let mut end = start;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            break;
        }
        end = i;
    }
    Some((start as u32 + 1, end as u32 + 1))
}

/// Runs git in the fixture, which must succeed; its stdout.
fn git(repo: &FixtureRepo, args: &[&str]) -> String {
    repo.git(args)
        .unwrap_or_else(|err| panic!("the oracle's git fails: {err}"))
}

/// The lineage's file at `commit`: the one of `names` its tree holds (the histories here
/// never hold two at once), with its text.
fn file_at(repo: &FixtureRepo, commit: &str, names: &[&str]) -> Option<(String, String)> {
    let held = git(repo, &["ls-tree", "--name-only", commit, "--"]);
    let held: BTreeSet<&str> = held.lines().collect();
    let path = names.iter().find(|name| held.contains(**name))?;
    let text = git(repo, &["show", &format!("{commit}:{path}")]);
    Some(((*path).to_owned(), text))
}

/// The lines `git diff -U0` adds (numbered in `new`) and deletes (numbered in `old`)
/// between two blobs `REV:PATH`; a missing side is the empty file.
fn changed_lines(
    repo: &FixtureRepo,
    old: Option<(&str, &str)>,
    new: Option<(&str, &str)>,
) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let all = |text: &str| (1..=text.lines().count() as u32).collect::<BTreeSet<u32>>();
    let (old, new) = match (old, new) {
        (None, None) => return Default::default(),
        (None, Some((_, text))) => return (all(text), BTreeSet::new()),
        (Some((_, text)), None) => return (BTreeSet::new(), all(text)),
        (Some(old), Some(new)) => (old.0, new.0),
    };
    let diff = git(
        repo,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--histogram",
            "--no-indent-heuristic",
            "-U0",
            old,
            new,
        ],
    );
    let (mut added, mut deleted) = (BTreeSet::new(), BTreeSet::new());
    for header in diff.lines().filter(|line| line.starts_with("@@ ")) {
        let mut ranges = header.split_whitespace().skip(1).take(2);
        let mut span = |sign: char| -> (u32, u32) {
            let range = ranges.next().expect("a hunk range");
            let range = range.strip_prefix(sign).expect("a signed range");
            let (start, count) = range.split_once(',').unwrap_or((range, "1"));
            (
                start.parse().expect("a line number"),
                count.parse().expect("a line count"),
            )
        };
        let (old_start, old_count) = span('-');
        let (new_start, new_count) = span('+');
        deleted.extend(old_start..old_start + old_count);
        added.extend(new_start..new_start + new_count);
    }
    (added, deleted)
}

/// What the git CLI says the commits `git rev-list RANGE…` lists did to `selectors` of the
/// file whose names over the history are `names`: each commit that hit, with the
/// selectors it hit in `selectors`' order. A commit with one parent hits a unit when a
/// line it added lies in the unit in its image, or a line it deleted lies in the unit in
/// its parent's image; a merge hits a unit when a line added against every parent lies in
/// the unit in its image.
fn oracle(
    repo: &FixtureRepo,
    range: &[&str],
    names: &[&str],
    selectors: &[&str],
) -> BTreeMap<String, Vec<String>> {
    let mut args = vec!["rev-list"];
    args.extend_from_slice(range);
    let mut hits = BTreeMap::new();
    for commit in git(repo, &args).lines() {
        let parents = git(repo, &["log", "-1", "--format=%P", commit]);
        let parents: Vec<&str> = parents.split_whitespace().collect();
        let new = file_at(repo, commit, names);
        let new_rev = new.as_ref().map(|(path, _)| format!("{commit}:{path}"));
        let new_blob = new
            .as_ref()
            .zip(new_rev.as_deref())
            .map(|((_, text), rev)| (rev, text.as_str()));
        let mut per_parent = Vec::new();
        for parent in &parents {
            let old = file_at(repo, parent, names);
            let old_rev = old.as_ref().map(|(path, _)| format!("{parent}:{path}"));
            let old_blob = old
                .as_ref()
                .zip(old_rev.as_deref())
                .map(|((_, text), rev)| (rev, text.as_str()));
            let (added, deleted) = changed_lines(repo, old_blob, new_blob);
            per_parent.push((old.map(|(_, text)| text), added, deleted));
        }
        let meets = |lines: &BTreeSet<u32>, text: Option<&str>, unit: &str| {
            text.and_then(|text| unit_lines(text, unit))
                .is_some_and(|(start, end)| lines.range(start..=end).next().is_some())
        };
        let new_text = new.as_ref().map(|(_, text)| text.as_str());
        let hit: Vec<String> = match per_parent.as_slice() {
            [(old_text, added, deleted)] => selectors
                .iter()
                .filter(|unit| {
                    meets(added, new_text, unit) || meets(deleted, old_text.as_deref(), unit)
                })
                .map(|unit| (*unit).to_owned())
                .collect(),
            [first, rest @ ..] => {
                let owned: BTreeSet<u32> = first
                    .1
                    .iter()
                    .copied()
                    .filter(|line| rest.iter().all(|(_, added, _)| added.contains(line)))
                    .collect();
                selectors
                    .iter()
                    .filter(|unit| meets(&owned, new_text, unit))
                    .map(|unit| (*unit).to_owned())
                    .collect()
            }
            [] => panic!("the histories here judge no root commit"),
        };
        if !hit.is_empty() {
            hits.insert(commit.to_owned(), hit);
        }
    }
    hits
}

/// `git rev-parse REV`.
fn rev_parse(repo: &FixtureRepo, rev: &str) -> String {
    git(repo, &["rev-parse", rev]).trim().to_owned()
}

// ---------------------------------------------------------------------------------------
// Reading keel's answer
// ---------------------------------------------------------------------------------------

/// `keel touched REVSPEC --format json` in `dir`: the run and its document.
fn touched_json(dir: &Path, revspec: &str) -> (Run, Value) {
    let ran = run(dir, &["touched", revspec, "--format", "json"]);
    ran.assert_no_panic();
    assert!(
        ran.code == 0 || ran.code == 1,
        "touched {revspec} answers:\n{}",
        ran.render(Some(dir))
    );
    let json = ran.json();
    assert_eq!(json["schema"], "keel.touched.v1", "{}", ran.stdout);
    (ran, json)
}

/// The touched node `node` of a report (`None`: not touched).
fn node_of<'a>(report: &'a Value, node: &str) -> Option<&'a Value> {
    report["nodes"]
        .as_array()
        .expect("`nodes` is a list")
        .iter()
        .find(|n| n["node"] == node)
}

/// The one touched entry of node `node`, which the report must list.
fn only_entry<'a>(report: &'a Value, node: &str) -> &'a Value {
    let touched = node_of(report, node).unwrap_or_else(|| panic!("{node} is touched: {report}"));
    let entries = touched["entries"].as_array().expect("`entries` is a list");
    assert_eq!(entries.len(), 1, "one touched entry: {report}");
    &entries[0]
}

/// An entry's commits as `commit → selectors`.
fn hits_of(entry: &Value) -> BTreeMap<String, Vec<String>> {
    entry["commits"]
        .as_array()
        .expect("`commits` is a list")
        .iter()
        .map(|c| {
            let commit = c["commit"].as_str().expect("a commit id").to_owned();
            let selectors = c["selectors"]
                .as_array()
                .expect("`selectors` is a list")
                .iter()
                .map(|s| s.as_str().expect("a selector").to_owned())
                .collect();
            (commit, selectors)
        })
        .collect()
}

/// The `path` of `commit` in an entry's commits (`None`: absent, the entry's path).
fn commit_path<'a>(entry: &'a Value, commit: &str) -> Option<&'a str> {
    entry["commits"]
        .as_array()
        .expect("`commits` is a list")
        .iter()
        .find(|c| c["commit"] == commit)
        .unwrap_or_else(|| panic!("{commit} is listed: {entry}"))
        .get("path")
        .map(|p| p.as_str().expect("a path"))
}

/// The strings of a JSON list.
fn strings(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect()
}

/// The head, base and window counts `git` gives for `A..B`, held to the report's.
fn assert_range_shape(repo: &FixtureRepo, report: &Value, from: &str, to: &str) {
    let range = format!("{from}..{to}");
    assert_eq!(report["head"], rev_parse(repo, to), "{report}");
    assert_eq!(report["base"], serde_json::json!([rev_parse(repo, from)]));
    let count = |extra: &[&str]| -> u64 {
        let mut args = vec!["rev-list", "--count"];
        args.extend_from_slice(extra);
        args.push(&range);
        git(repo, &args).trim().parse().expect("a count")
    };
    assert_eq!(report["window"]["commits"], count(&[]), "{report}");
    assert_eq!(report["window"]["merges"], count(&["--merges"]), "{report}");
}

/// A repository whose first commit holds `app.py` ([`APP_PY`]) and node `app` pinning
/// `app.py#f,g`; returns it and that commit.
fn base_repo() -> (FixtureRepo, String) {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f,g"])))
        .expect("write the first version");
    let base = repo.commit("Add app and its spec").expect("commit");
    (repo, base)
}

/// Points node `app` at `entry`, with `prose` as its heading.
fn write_spec(repo: &FixtureRepo, entry: &str, prose: &str) {
    let text = spec(&[entry]).replace("# A node", &format!("# {prose}"));
    repo.write(".spec/app/spec.md", &text).expect("write spec");
}

// ---------------------------------------------------------------------------------------
// Renames and deletions
// ---------------------------------------------------------------------------------------

#[test]
fn a_pure_rename_hits_nothing_and_a_later_edit_is_reported_under_the_new_path() {
    let (mut repo, base) = base_repo();
    repo.git(&["mv", "app.py", "main.py"]).expect("git mv");
    let renamed = repo.commit("Move app.py to main.py").expect("commit");
    write_spec(&repo, "main.py#f,g", "A node");
    repo.commit("Point the spec at main.py").expect("commit");
    repo.write("main.py", APP_PY_F_CHANGED).expect("edit f");
    let edited = repo.commit("Change f").expect("commit");

    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{base}")],
        &["app.py", "main.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([(edited.clone(), vec!["f".to_owned()])]),
        "the oracle: the edit alone changed f"
    );

    let (ran, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    assert_range_shape(&repo, &report, &base, "HEAD");
    let entry = only_entry(&report, NODE);
    assert_eq!(entry["entry"], "main.py#f,g");
    assert_eq!(entry["path"], "main.py");
    assert_eq!(hits_of(entry), expected, "{report}");
    assert!(
        !hits_of(entry).contains_key(&renamed),
        "the pure rename changed no line: {report}"
    );
    assert_eq!(commit_path(entry, &edited), None, "under the entry's path");
    assert_eq!(entry["historical_paths"], serde_json::json!([]));
    assert_eq!(entry["deleted"], false);
    assert_eq!(entry["selectors"], serde_json::json!(["f"]));
}

#[test]
fn an_edit_before_a_rename_is_reported_under_the_current_path_with_the_old_one() {
    let (mut repo, base) = base_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let edited = repo.commit("Change f").expect("commit");
    repo.git(&["mv", "app.py", "main.py"]).expect("git mv");
    let renamed = repo.commit("Move app.py to main.py").expect("commit");
    write_spec(&repo, "main.py#f,g", "A node");
    let pointed = repo.commit("Point the spec at main.py").expect("commit");

    // At `renamed` the spec still names app.py: touched follows the rename to main.py.
    // At `pointed` the spec names main.py: the edit lies in its lineage under app.py.
    for (tip, written) in [(&renamed, "app.py#f,g"), (&pointed, "main.py#f,g")] {
        let expected = oracle(
            &repo,
            &[tip, &format!("^{base}")],
            &["app.py", "main.py"],
            &SELECTORS,
        );
        assert_eq!(
            expected,
            BTreeMap::from([(edited.clone(), vec!["f".to_owned()])]),
            "the oracle at {tip}"
        );
        let (ran, report) = touched_json(repo.path(), &format!("{base}..{tip}"));
        assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
        assert_range_shape(&repo, &report, &base, tip);
        let entry = only_entry(&report, NODE);
        assert_eq!(entry["entry"], written, "{report}");
        assert_eq!(entry["path"], "main.py", "the path at the tip: {report}");
        assert_eq!(hits_of(entry), expected, "{report}");
        assert_eq!(
            commit_path(entry, &edited),
            Some("app.py"),
            "the edit's path then: {report}"
        );
        assert_eq!(entry["historical_paths"], serde_json::json!(["app.py"]));
        assert_eq!(entry["deleted"], false);
    }
}

#[test]
fn a_deleted_file_is_reported_deleted_under_its_last_path_and_its_deletion_hits_every_selector() {
    let (mut repo, base) = base_repo();
    repo.write("app.py", APP_PY_G_CHANGED).expect("edit g");
    let edited = repo.commit("Change g").expect("commit");
    repo.remove("app.py").expect("remove app.py");
    repo.write("other.py", "def h():\n    return 1\n")
        .expect("write");
    let deleted = repo.commit("Delete app.py").expect("commit");

    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{base}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([
            (edited.clone(), vec!["g".to_owned()]),
            (deleted.clone(), vec!["f".to_owned(), "g".to_owned()]),
        ]),
        "the oracle"
    );

    let (ran, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    let entry = only_entry(&report, NODE);
    assert_eq!(entry["entry"], "app.py#f,g");
    assert_eq!(entry["path"], "app.py", "its last path: {report}");
    assert_eq!(entry["deleted"], true, "{report}");
    assert_eq!(hits_of(entry), expected, "{report}");
    assert_eq!(entry["selectors"], serde_json::json!(["f", "g"]));
}

/// `base`; `side` edits f in app.py; `main` moves app.py to main.py and then points the
/// spec at it; `main` merges `side` (git carries the edit across the rename). Returns the
/// repository, the base and the edit.
fn fork_history() -> (FixtureRepo, String, String) {
    let (mut repo, base) = base_repo();
    repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let edited = repo.commit("Change f").expect("commit");
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    repo.git(&["mv", "app.py", "main.py"]).expect("git mv");
    repo.commit("Move app.py to main.py").expect("commit");
    write_spec(&repo, "main.py#f,g", "The app, moved");
    repo.commit("Point the spec at main.py").expect("commit");
    repo.git(&["merge", "-q", "--no-ff", "-m", "Merge side", "side"])
        .expect("a clean merge across the rename");
    assert_eq!(
        std::fs::read_to_string(repo.path().join("main.py")).expect("main.py"),
        APP_PY_F_CHANGED,
        "git carried the edit to main.py"
    );
    (repo, base, edited)
}

#[test]
fn an_edit_on_one_side_of_a_fork_whose_other_side_renames_is_reported_under_the_current_path() {
    let (repo, base, edited) = fork_history();
    let merge = rev_parse(&repo, "HEAD");
    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{base}")],
        &["app.py", "main.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([(edited.clone(), vec!["f".to_owned()])]),
        "the oracle: the edit alone, the transport merge owns no line"
    );

    let (ran, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    assert_range_shape(&repo, &report, &base, "HEAD");
    let entry = only_entry(&report, NODE);
    assert_eq!(entry["path"], "main.py", "{report}");
    assert_eq!(hits_of(entry), expected, "{report}");
    assert!(!hits_of(entry).contains_key(&merge), "{report}");
    assert_eq!(commit_path(entry, &edited), Some("app.py"), "{report}");
    assert_eq!(entry["historical_paths"], serde_json::json!(["app.py"]));
    let spec_log = git(
        &repo,
        &[
            "log",
            "--format=%H",
            &format!("{base}..HEAD"),
            "--",
            ".spec/app/spec.md",
        ],
    );
    let node = node_of(&report, NODE).expect("touched");
    assert_eq!(node["spec_updated"], true, "{report}");
    assert_eq!(
        strings(&node["spec_versions"]),
        spec_log.lines().map(str::to_owned).collect::<Vec<_>>(),
        "the one commit that pointed the spec at main.py"
    );

    // `A...B` is B's side since the fork: the same commits as `A..B`, the same answer.
    let (_, symmetric) = touched_json(repo.path(), &format!("{base}...HEAD"));
    assert_eq!(symmetric, report);
}

// ---------------------------------------------------------------------------------------
// Merges
// ---------------------------------------------------------------------------------------

#[test]
fn a_merge_that_resolves_a_conflict_with_a_new_line_inside_the_unit_is_listed() {
    let (mut repo, base) = base_repo();
    repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let theirs = repo.commit("Change f on side").expect("commit");
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    let ours_text = APP_PY.replace("x + 1", "x + 3");
    repo.write("app.py", &ours_text).expect("edit f");
    let ours = repo.commit("Change f on main").expect("commit");
    assert!(
        repo.git(&["merge", "-q", "--no-ff", "side"]).is_err(),
        "the two edits of line 2 conflict"
    );
    // Ours, and a line neither parent has, inside f.
    let resolved = ours_text.replace("    return y\n", "    y = y * 2\n    return y\n");
    repo.write("app.py", &resolved).expect("resolve");
    let merge = repo.commit("Merge side").expect("commit the merge");
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%P", &merge]).trim(),
        format!("{ours} {theirs}"),
        "a merge commit"
    );

    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{base}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([
            (theirs.clone(), vec!["f".to_owned()]),
            (ours.clone(), vec!["f".to_owned()]),
            (merge.clone(), vec!["f".to_owned()]),
        ]),
        "the oracle: both edits and the merge's own line"
    );
    let (ran, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    assert_range_shape(&repo, &report, &base, "HEAD");
    assert_eq!(hits_of(only_entry(&report, NODE)), expected, "{report}");

    // One commit: the merge alone (its parents excluded), by the lines it owns.
    let (ran, alone) = touched_json(repo.path(), &merge);
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    let expected = oracle(
        &repo,
        &[&merge, "--not", &format!("{merge}^@")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([(merge.clone(), vec!["f".to_owned()])])
    );
    assert_eq!(alone["window"]["commits"], 1, "{alone}");
    assert_eq!(alone["window"]["merges"], 1, "{alone}");
    assert_eq!(alone["base"], serde_json::json!([ours, theirs]), "{alone}");
    assert_eq!(hits_of(only_entry(&alone, NODE)), expected, "{alone}");
}

#[test]
fn a_clean_transport_merge_is_not_listed_but_the_side_commit_it_brings_is() {
    let (mut repo, base) = base_repo();
    repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
    repo.write("app.py", APP_PY_G_CHANGED).expect("edit g");
    let side = repo.commit("Change g on side").expect("commit");
    repo.git(&["checkout", "-q", "main"]).expect("checkout");
    repo.write("README.md", "An app.\n").expect("write");
    repo.commit("Add a readme").expect("commit");
    repo.git(&["merge", "-q", "--no-ff", "-m", "Merge side", "side"])
        .expect("a clean merge");
    let merge = rev_parse(&repo, "HEAD");

    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{base}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([(side.clone(), vec!["g".to_owned()])]),
        "the oracle: the merge owns no line"
    );
    let (ran, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    assert_range_shape(&repo, &report, &base, "HEAD");
    let entry = only_entry(&report, NODE);
    assert_eq!(hits_of(entry), expected, "{report}");
    assert!(!hits_of(entry).contains_key(&merge), "{report}");

    // The merge alone touched nothing.
    let owned = oracle(
        &repo,
        &[&merge, "--not", &format!("{merge}^@")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(owned, BTreeMap::new(), "the oracle: the merge owns no line");
    let (ran, alone) = touched_json(repo.path(), &merge);
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    assert_eq!(alone["window"]["commits"], 1, "{alone}");
    assert_eq!(alone["nodes"], serde_json::json!([]), "{alone}");
    assert_eq!(alone["nodes_read"], 1, "{alone}");
}

// ---------------------------------------------------------------------------------------
// Acknowledgements and spec versions
// ---------------------------------------------------------------------------------------

#[test]
fn a_commit_with_a_spec_ok_trailer_is_still_reported() {
    let (mut repo, base) = base_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let acked = repo
        .commit(&format!("Change f\n\nSpec-OK: {NODE}"))
        .expect("commit");
    let trailer = git(
        &repo,
        &[
            "log",
            "-1",
            "--format=%(trailers:key=Spec-OK,valueonly)",
            &acked,
        ],
    );
    assert_eq!(trailer.trim(), NODE, "git reads the trailer");

    // Lint subtracts the trailer: no anchor-hit names the commit.
    let linted = lint(repo.path(), &["--format", "json"]);
    linted.assert_no_panic();
    let linted_json = linted.json();
    let named = linted_json["findings"]
        .as_array()
        .expect("`findings` is a list")
        .iter()
        .flat_map(|f| f["hits"].as_array().into_iter().flatten())
        .any(|hit| hit["commit"] == acked.as_str());
    assert!(
        !named && linted.code == 0,
        "lint drops the acknowledged commit:\n{}",
        linted.render(Some(repo.path()))
    );

    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{base}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([(acked.clone(), vec!["f".to_owned()])])
    );
    let (ran, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    assert_eq!(hits_of(only_entry(&report, NODE)), expected, "{report}");
}

#[test]
fn a_spec_version_inside_the_range_marks_the_node_updated_and_one_outside_does_not() {
    let (mut repo, base) = base_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let edit_f = repo.commit("Change f").expect("commit");
    write_spec(&repo, "app.py#f,g", "The app, reviewed");
    let version = repo.commit("Review the spec").expect("commit");
    repo.write("app.py", APP_PY_BOTH_CHANGED).expect("edit g");
    let edit_g = repo.commit("Change g").expect("commit");

    // Inside: the range holds the one commit git lists for the spec.
    let spec_log = git(
        &repo,
        &[
            "log",
            "--format=%H",
            &format!("{base}..HEAD"),
            "--",
            ".spec/app/spec.md",
        ],
    );
    assert_eq!(spec_log.trim(), version, "git's spec versions in the range");
    let (ran, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    let node = node_of(&report, NODE).expect("touched");
    assert_eq!(node["spec_updated"], true, "{report}");
    assert_eq!(strings(&node["spec_versions"]), vec![version.clone()]);
    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{base}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([
            (edit_f.clone(), vec!["f".to_owned()]),
            (edit_g.clone(), vec!["g".to_owned()]),
        ])
    );
    assert_eq!(hits_of(only_entry(&report, NODE)), expected, "{report}");

    // Outside: since the version, the spec is unchanged, and the node still touched.
    let spec_log = git(
        &repo,
        &[
            "log",
            "--format=%H",
            &format!("{version}..HEAD"),
            "--",
            ".spec/app/spec.md",
        ],
    );
    assert_eq!(spec_log.trim(), "", "git: no spec change since the version");
    let (ran, report) = touched_json(repo.path(), &format!("{version}..HEAD"));
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    let node = node_of(&report, NODE).expect("touched");
    assert_eq!(node["spec_updated"], false, "{report}");
    assert_eq!(node["spec_versions"], serde_json::json!([]), "{report}");
    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{version}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([(edit_g.clone(), vec!["g".to_owned()])])
    );
    assert_eq!(hits_of(only_entry(&report, NODE)), expected, "{report}");
}

// ---------------------------------------------------------------------------------------
// A shallow clone
// ---------------------------------------------------------------------------------------

#[test]
fn a_range_past_a_shallow_clones_boundary_is_unavailable_and_the_full_clone_answers_it() {
    // `old` stays at `base`'s child; `main` goes three commits further.
    let (mut repo, _) = base_repo();
    repo.write("README.md", "An app.\n").expect("write");
    let old = repo.commit("Add a readme").expect("commit");
    repo.git(&["branch", "old"]).expect("branch");
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    let edit_f = repo.commit("Change f").expect("commit");
    repo.write("app.py", APP_PY_BOTH_CHANGED).expect("edit g");
    let edit_g = repo.commit("Change g").expect("commit");
    repo.write("README.md", "An app, documented.\n")
        .expect("write");
    repo.commit("Document the app").expect("commit");

    let folder = tempfile::tempdir().expect("a temporary folder");
    let shallow = folder.path().join("shallow");
    let full = folder.path().join("full");
    let source = format!("file://{}", repo.path().display());
    git(
        &repo,
        &[
            "clone",
            "--quiet",
            "--depth",
            "2",
            "--no-single-branch",
            &source,
            &shallow.display().to_string(),
        ],
    );
    git(
        &repo,
        &["clone", "--quiet", &source, &full.display().to_string()],
    );
    // Two commits of `main` fetched: the boundary is `edit_g`, whose parent `edit_f`
    // (a commit of the range) the clone does not hold.
    let shallow_file = std::fs::read_to_string(shallow.join(".git/shallow")).expect("shallow");
    assert!(
        shallow_file.lines().any(|line| line == edit_g),
        "the boundary lies inside the range: {shallow_file}"
    );
    let shallow_arg = shallow.display().to_string();
    assert!(
        repo.git(&["-C", &shallow_arg, "cat-file", "-e", &edit_f])
            .is_err(),
        "the shallow clone lacks the range's first commit"
    );
    assert!(
        git(&repo, &["-C", &shallow_arg, "cat-file", "-e", &old]).is_empty(),
        "the shallow clone holds the range's excluded commit"
    );
    let range = format!("{old}..main");

    let (ran, report) = touched_json(&shallow, &range);
    assert_eq!(ran.code, 1, "{}", ran.render(Some(&shallow)));
    assert_eq!(report["nodes"], serde_json::json!([]), "{report}");
    let unavailable = report["unavailable"].as_array().expect("a list");
    assert!(!unavailable.is_empty(), "{report}");
    assert!(
        unavailable.iter().any(|u| u["node"] == NODE),
        "the node is named: {report}"
    );

    // The control: the same range on the full clone reports the hits git sees.
    let (ran, report) = touched_json(&full, &range);
    assert_eq!(ran.code, 0, "{}", ran.render(Some(&full)));
    assert_eq!(report["unavailable"], serde_json::json!([]), "{report}");
    let expected = oracle(
        &repo,
        &["main", &format!("^{old}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(
        expected,
        BTreeMap::from([
            (edit_f.clone(), vec!["f".to_owned()]),
            (edit_g.clone(), vec!["g".to_owned()]),
        ])
    );
    assert_eq!(hits_of(only_entry(&report, NODE)), expected, "{report}");
}

// ---------------------------------------------------------------------------------------
// Text, refusals, work
// ---------------------------------------------------------------------------------------

#[test]
fn the_text_report_names_each_touched_unit_and_its_commits() {
    let (repo, base, _) = fork_history();
    let ran = run(repo.path(), &["touched", &format!("{base}..HEAD")]);
    ran.assert_no_panic();
    assert_eq!(ran.code, 0, "{}", ran.render(Some(repo.path())));
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_touched_text", ran.render(Some(repo.path())));
    });
}

#[test]
fn a_bad_revspec_is_refused_with_one_error_line_and_nothing_on_stdout() {
    let (mut repo, _) = base_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    let blob = format!("{}:app.py", rev_parse(&repo, "HEAD"));
    for revspec in [
        "no-such-ref..HEAD",
        "HEAD..no-such-ref",
        "no-such-ref",
        "HEAD~9..HEAD",
        "HEAD...no-such-ref",
        "",
        blob.as_str(),
        "HEAD^{tree}",
    ] {
        for format in ["text", "json"] {
            let ran = run(repo.path(), &["touched", revspec, "--format", format]);
            ran.assert_no_panic();
            assert_eq!(ran.code, 2, "[{revspec}] {}", ran.render(Some(repo.path())));
            assert_eq!(ran.stdout, "", "[{revspec}] nothing on stdout");
            let lines: Vec<&str> = ran.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "[{revspec}] one line:\n{}", ran.stderr);
            assert!(lines[0].starts_with("error: "), "[{revspec}] {}", lines[0]);
        }
    }
}

#[test]
fn after_a_cold_lint_touched_since_the_spec_version_parses_no_image_and_a_fresh_clone_does() {
    let (mut repo, _) = base_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("edit f");
    repo.commit("Change f").expect("commit");
    repo.write("app.py", APP_PY_BOTH_CHANGED).expect("edit g");
    repo.commit("Change g").expect("commit");
    let version = git(
        &repo,
        &["log", "-1", "--format=%H", "--", ".spec/app/spec.md"],
    )
    .trim()
    .to_owned();
    let range = format!("{version}..HEAD");

    // A fresh clone: no `.git/keel`, so the same question parses images.
    let folder = tempfile::tempdir().expect("a temporary folder");
    let clone = folder.path().join("clone");
    git(
        &repo,
        &["clone", "--quiet", ".", &clone.display().to_string()],
    );
    assert!(!clone.join(".git/keel").exists(), "a clone without a memo");
    let control = run(&clone, &["touched", &range, "--stats", "--format", "json"]);
    control.assert_no_panic();
    assert_eq!(control.code, 0, "{}", control.render(Some(&clone)));
    let (control_stats, _) = stats_of(&control);
    assert!(
        control_stats["images_parsed"].as_u64() > Some(0),
        "the control parses: {control_stats}"
    );

    let cold = lint(repo.path(), &[]);
    cold.assert_no_panic();
    assert_eq!(cold.code, 1, "the hits block:\n{}", cold.render(None));
    let warm = run(
        repo.path(),
        &["touched", &range, "--stats", "--format", "json"],
    );
    warm.assert_no_panic();
    assert_eq!(warm.code, 0, "{}", warm.render(Some(repo.path())));
    let (warm_stats, _) = stats_of(&warm);
    assert_eq!(warm_stats["images_parsed"], 0, "{warm_stats}");
    assert_eq!(warm.stdout, control.stdout, "the same answer either way");
    let expected = oracle(
        &repo,
        &["HEAD", &format!("^{version}")],
        &["app.py"],
        &SELECTORS,
    );
    assert_eq!(expected.len(), 2, "{expected:?}");
    assert_eq!(hits_of(only_entry(&warm.json(), NODE)), expected);
}

#[test]
fn an_object_a_partial_clone_lacks_makes_the_entry_unavailable_naming_the_fetch() {
    let (mut repo, base) = base_repo();
    repo.write("app.py", APP_PY_F_CHANGED).expect("write");
    repo.commit("Change f").expect("commit");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let clone = repo.partial_clone(folder.path()).expect("a partial clone");

    // The full repository answers the range: the control.
    let (full, report) = touched_json(repo.path(), &format!("{base}..HEAD"));
    assert_eq!(full.code, 0, "{}", full.render(None));
    assert!(node_of(&report, NODE).is_some(), "{report}");

    // The clone never fetched app.py's first version, which the hit is judged against.
    let (partial, report) = touched_json(&clone, &format!("{base}..HEAD"));
    assert_eq!(partial.code, 1, "{}", partial.render(None));
    assert_eq!(report["nodes"], serde_json::json!([]), "{report}");
    let unavailable = &report["unavailable"][0];
    assert_eq!(unavailable["node"], NODE);
    assert_eq!(unavailable["entry"], "app.py#f,g");
    let reason = unavailable["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("missing from this partial clone")
            && reason.contains("fetch --stdin origin"),
        "{reason}"
    );
}
