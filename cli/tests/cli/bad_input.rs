//! Bad input: every refusal exits 2 with exactly one `error:` line on stderr naming the
//! file and line (where there is one) and a `repair:`, prints nothing on stdout, writes
//! nothing into the repository, and never panics.

use crate::support::{Run, lint, listing, redact_path, repo_with, repo_with_spec, spec, status};
use keel_fixtures::FixtureRepo;

/// Checks the one-line refusal and returns that line.
fn assert_one_error_line(run: &Run) -> String {
    run.assert_no_panic();
    assert_eq!(run.code, 2, "exit 2 expected:\n{}", run.render(None));
    assert!(run.stdout.is_empty(), "nothing on stdout:\n{}", run.stdout);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line on stderr:\n{}", run.stderr);
    let line = lines[0];
    assert!(line.starts_with("error: "), "an `error:` line: {line}");
    assert!(line.contains("repair: "), "a repair: {line}");
    line.to_owned()
}

/// Runs `keel lint ARGS` on `repo`, checks the refusal contract and that neither the work
/// tree, `git status` nor the set of files under `.git/` changed; returns the error line.
fn refused(repo: &FixtureRepo, args: &[&str]) -> String {
    let status_before = status(repo);
    let before = listing(repo.path());
    let run = lint(repo.path(), args);
    assert_eq!(
        listing(repo.path()),
        before,
        "keel wrote into the repository"
    );
    assert_eq!(status(repo), status_before, "keel changed `git status`");
    assert_one_error_line(&run)
}

/// A repository whose node `app` has `spec_text`; refused with the error line naming
/// `.spec/app/spec.md:<line>:` and every one of `mentions`.
fn assert_spec_refused(spec_text: &[u8], line: u32, mentions: &[&str]) {
    let repo = repo_with_spec(spec_text);
    let error = refused(&repo, &[]);
    let location = format!(" .spec/app/spec.md:{line}: ");
    assert!(
        error.contains(&location),
        "`{location}` expected in: {error}"
    );
    for mention in mentions {
        assert!(error.contains(mention), "`{mention}` expected in: {error}");
    }
}

/// A repository with `keel.toml` holding `settings`; refused naming `keel.toml:<line>:`.
fn assert_settings_refused(settings: &[u8], line: u32, mentions: &[&str]) {
    let repo = repo_with(&[
        (".spec/app/spec.md", spec(&["app.py#f"]).as_bytes()),
        ("keel.toml", settings),
    ]);
    let error = refused(&repo, &[]);
    let location = format!("keel.toml:{line}: ");
    assert!(
        error.contains(&location),
        "`{location}` expected in: {error}"
    );
    for mention in mentions {
        assert!(error.contains(mention), "`{mention}` expected in: {error}");
    }
}

#[test]
fn a_folder_that_is_not_a_git_repository_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let run = lint(dir.path(), &[]);
    assert!(listing(dir.path()).is_empty(), "keel wrote into the folder");
    let error = redact_path(&assert_one_error_line(&run), dir.path());
    assert!(error.contains("[REPO]"), "the folder is named: {error}");
    assert!(error.contains("not a git repository"), "{error}");
}

#[test]
fn a_repository_path_that_does_not_exist_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let missing = dir.path().join("missing");
    let run = crate::support::run(
        dir.path(),
        &["lint", "--repo", &missing.display().to_string()],
    );
    assert!(!missing.exists(), "keel created the missing folder");
    assert!(listing(dir.path()).is_empty(), "keel wrote next to it");
    let error = redact_path(&assert_one_error_line(&run), dir.path());
    assert!(
        error.contains("[REPO]/missing"),
        "the path is named: {error}"
    );
}

#[test]
fn a_spec_with_broken_yaml_is_refused_naming_its_line() {
    // The unclosed `[` is on line 2; line 3 is the frontmatter's closing `---`.
    assert_spec_refused(b"---\ncode: [app.py#f\n---\n\n# App\n", 2, &[]);
}

#[test]
fn a_spec_without_frontmatter_is_refused() {
    assert_spec_refused(b"# App\n\ncode: [app.py#f]\n", 1, &["---"]);
}

#[test]
fn an_unknown_key_in_keel_toml_is_refused_naming_its_line() {
    assert_settings_refused(
        b"[lint]\nscoped_code_miss = \"warn\"\nscoped_miss = 1\n",
        3,
        &["scoped_miss"],
    );
}

#[test]
fn a_bad_enum_value_in_keel_toml_is_refused_naming_its_line() {
    assert_settings_refused(b"\n[lint]\nscoped_code_miss = \"loud\"\n", 3, &["loud"]);
}

#[test]
fn a_selector_with_a_space_is_refused() {
    assert_spec_refused(spec(&["app.py#f g"]).as_bytes(), 3, &["f g"]);
}

#[test]
fn an_empty_selector_between_commas_is_refused() {
    assert_spec_refused(spec(&["app.py#f,,g"]).as_bytes(), 3, &["app.py#f,,g"]);
}

#[test]
fn a_hash_without_a_selector_is_refused() {
    assert_spec_refused(spec(&["app.py#"]).as_bytes(), 3, &["app.py#"]);
}

#[test]
fn a_duplicate_entry_is_refused_at_its_second_line() {
    assert_spec_refused(spec(&["app.py#f", "app.py#f"]).as_bytes(), 4, &["app.py#f"]);
}

#[test]
fn a_duplicate_selector_is_refused() {
    assert_spec_refused(spec(&["app.py#f,f"]).as_bytes(), 3, &["app.py#f,f"]);
}

#[test]
fn a_bare_and_a_scoped_entry_for_one_file_are_refused() {
    assert_spec_refused(spec(&["app.py", "app.py#f"]).as_bytes(), 4, &["app.py"]);
}

#[test]
fn a_scoped_then_a_bare_entry_for_one_file_are_refused_at_the_bare_line() {
    assert_spec_refused(spec(&["app.py#f", "app.py"]).as_bytes(), 4, &["app.py"]);
}

#[test]
fn a_selector_on_a_glob_is_refused() {
    assert_spec_refused(
        spec(&["app.py#f", "src/*.py#f"]).as_bytes(),
        4,
        &["src/*.py#f"],
    );
}

#[test]
fn a_selector_on_a_folder_is_refused() {
    let repo = repo_with(&[
        ("src/x.py", b"def f():\n    return 0\n"),
        (".spec/app/spec.md", spec(&["app.py#f", "src#f"]).as_bytes()),
    ]);
    let error = refused(&repo, &[]);
    assert!(error.contains(" .spec/app/spec.md:4: "), "{error}");
    assert!(error.contains("src#f"), "{error}");
}

#[test]
fn a_relative_path_that_escapes_the_repository_is_refused() {
    assert_spec_refused(spec(&["app.py#f", "../x.py"]).as_bytes(), 4, &["../x.py"]);
}

#[test]
fn an_absolute_path_is_refused() {
    assert_spec_refused(spec(&["/etc/passwd"]).as_bytes(), 3, &["/etc/passwd"]);
}

#[test]
fn a_spec_that_is_not_utf8_is_refused_naming_the_line() {
    let mut text = spec(&["app.py#f"]).into_bytes();
    text.extend_from_slice(b"Caf\xe9 au lait.\n");
    // spec(..) is 8 lines long; the invalid byte is on line 9.
    assert_spec_refused(&text, 9, &["UTF-8"]);
}

#[test]
fn a_keel_toml_that_is_not_utf8_is_refused_naming_the_line() {
    assert_settings_refused(b"[lint]\n# caf\xe9\n", 2, &["UTF-8"]);
}

#[test]
fn a_case_variant_of_a_frontmatter_key_is_refused_naming_the_right_key() {
    assert_spec_refused(
        b"---\nCode:\n  - app.py#f\n---\n",
        2,
        &["`Code`", "`code:`"],
    );
}

#[test]
fn a_near_miss_of_a_frontmatter_key_is_refused_naming_the_right_key() {
    assert_spec_refused(
        b"---\ncode:\n  - app.py#f\nrelate:\n  - app.py\n---\n",
        4,
        &["`relate`", "`related:`"],
    );
}

#[test]
fn a_glob_that_does_not_compile_is_refused() {
    assert_spec_refused(
        spec(&["app.py#f", "src/[z-a].py"]).as_bytes(),
        4,
        &["src/[z-a].py", "not a valid glob"],
    );
}

/// A repository holding `files` besides `app.py`; refused with the error line naming
/// `path` (no line: the fault is what the path is) and every one of `mentions`.
fn assert_path_refused(files: &[(&str, &[u8])], path: &str, mentions: &[&str]) {
    let repo = repo_with(files);
    let error = refused(&repo, &[]);
    assert!(
        error.starts_with(&format!("error: {path}: ")),
        "`{path}` expected in: {error}"
    );
    for mention in mentions {
        assert!(error.contains(mention), "`{mention}` expected in: {error}");
    }
}

#[test]
fn a_spec_root_that_is_a_file_is_refused() {
    assert_path_refused(&[(".spec", b"notes\n")], ".spec", &["a file"]);
}

#[test]
fn a_node_folder_without_a_spec_is_refused() {
    assert_path_refused(
        &[
            (".spec/app/spec.md", spec(&["app.py#f"]).as_bytes()),
            (".spec/draft/notes.md", b"no spec.md below\n"),
        ],
        ".spec/draft",
        &["holds no spec.md", ".spec/draft/spec.md"],
    );
}

#[test]
fn a_spec_md_that_is_a_folder_is_refused() {
    assert_path_refused(
        &[(".spec/app/spec.md/notes.md", b"a folder named spec.md\n")],
        ".spec/app/spec.md",
        &["a folder, not a file"],
    );
}

#[cfg(unix)]
#[test]
fn a_spec_md_that_is_a_symbolic_link_is_refused() {
    let mut repo = repo_with(&[("docs/app.md", spec(&["app.py#f"]).as_bytes())]);
    std::fs::create_dir_all(repo.path().join(".spec/app")).expect("mkdir");
    std::os::unix::fs::symlink("../../docs/app.md", repo.path().join(".spec/app/spec.md"))
        .expect("symlink");
    repo.commit("Link the spec").expect("commit");
    let error = refused(&repo, &[]);
    assert!(error.starts_with("error: .spec/app/spec.md: "), "{error}");
    assert!(error.contains("symbolic link"), "{error}");
}

#[test]
fn a_keel_toml_outside_the_judged_tree_is_not_read() {
    // The committed tree has no keel.toml; a broken one in the work tree changes nothing.
    let repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    repo.write("keel.toml", "[lint]\nbogus = 1\n")
        .expect("write keel.toml");
    let run = lint(repo.path(), &[]);
    run.assert_no_panic();
    assert_eq!(run.code, 0, "{}", run.render(Some(repo.path())));
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

/// Bad flags: clap refuses them with exit 2, its message on stderr (one `error:` line
/// plus usage), nothing on stdout, nothing written.
fn assert_bad_flag(args: &[&str], mentions: &str) {
    let repo = repo_with_spec(spec(&["app.py#f"]).as_bytes());
    let status_before = status(&repo);
    let before = listing(repo.path());
    let run = lint(repo.path(), args);
    assert_eq!(
        listing(repo.path()),
        before,
        "keel wrote into the repository"
    );
    assert_eq!(status(&repo), status_before);
    run.assert_no_panic();
    assert_eq!(run.code, 2, "{}", run.render(Some(repo.path())));
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "one `error:` line:\n{}", run.stderr);
    assert!(errors[0].contains(mentions), "{}", run.stderr);
}

#[test]
fn an_unknown_format_is_refused() {
    assert_bad_flag(&["--format", "yaml"], "yaml");
}

#[test]
fn an_unknown_flag_is_refused() {
    assert_bad_flag(&["--bogus"], "--bogus");
}
