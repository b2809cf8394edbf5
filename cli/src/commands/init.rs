//! `keel init`: start a repository on keel — an example spec node, a commented
//! `keel.toml` listing every setting at its default, and (with `--hook`) the local gate.
//!
//! Owns: refusing a repository that already has `.spec/` or `keel.toml` (nothing written),
//! picking the example's anchor (a real unit of a Python or TS/JS file at HEAD, through
//! `keel_queries::units`; else the whole of `keel.toml`), the two files' text, undoing
//! what it wrote when a later step fails, and telling the next steps.
//! Does not own: the settings schema and its defaults (`keel_engine::settings`, which the
//! written `keel.toml` is checked against by the CLI tests), extraction
//! (`keel_queries::units`), or the hook file (`KeelDatabase::install_hook`).

use super::CommandError;
use super::error::Code;
use crate::exit::ExitStatus;
use keel_engine::settings::{
    CosmeticHits, Docstrings, ImpactSettings, LintSettings, SETTINGS_FILE, ScopedCodeMiss,
    SessionSettings, Settings,
};
use keel_engine::{Db as _, KeelDatabase, Oid};
use keel_queries::callgraph::{files_under, is_graph_input};
use keel_queries::units::{FileUnit, Standing, units_of};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The folder of spec nodes, at the work tree's root.
const SPEC_ROOT: &str = ".spec";
/// The example node's id, and so its folder under `.spec/`.
const EXAMPLE_NODE: &str = "example";
/// At most this many source files are read looking for a unit the example can pin.
const FILES_TRIED: usize = 32;

/// Start a repository on keel: write an example spec node and a commented keel.toml.
///
/// Writes `.spec/example/spec.md` (a node whose frontmatter pins a real unit of a Python or
/// TypeScript/JavaScript file at HEAD, or the whole of keel.toml when there is none) and
/// `keel.toml` (every setting keel reads, at its default, each explained). With --hook it
/// also installs the local gate, as `keel hook install` does. Refuses (exit 2, nothing
/// written) a repository that already has `.spec` or `keel.toml`: keel init never
/// overwrites. Commit the two files, then `keel lint` judges the node.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// The repository (any folder inside its work tree); the files go to its root.
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Also install the hook that refuses commits adding blocking drift (`keel hook
    /// install`).
    #[arg(long)]
    hook: bool,
}

pub(crate) fn cmd_init(args: &InitArgs) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(&args.repo)?;
    let Some(root) = db.work_dir().map(Path::to_owned) else {
        return Err(CommandError::from_line(
            Code::NoWorkTree,
            format!(
                "{}: a bare repository has no working tree to write spec nodes into; repair: run keel init in a clone with a working tree",
                args.repo.display()
            ),
        ));
    };
    refuse_existing(&root)?;
    let example = example_anchor(&db)?;
    let spec_path = format!("{SPEC_ROOT}/{EXAMPLE_NODE}/spec.md");
    let written = Written::new(&root);
    written
        .create(&spec_path, &example_spec(example.as_ref()))
        .and_then(|()| written.create(SETTINGS_FILE, &settings_text()))
        .inspect_err(|_| written.undo())?;
    let hook = if args.hook {
        Some(install_hook(&db).inspect_err(|_| written.undo())?)
    } else {
        None
    };
    print_done(&root, &spec_path, example.as_ref(), hook.as_deref())?;
    Ok(ExitStatus::Clean)
}

/// Refuses a repository that has `.spec` or `keel.toml` at its root already (a file, a
/// folder or a link alike): keel init writes only where nothing of keel's is.
fn refuse_existing(root: &Path) -> Result<(), CommandError> {
    let exists = |name: &str| std::fs::symlink_metadata(root.join(name)).is_ok();
    let (spec, settings) = (exists(SPEC_ROOT), exists(SETTINGS_FILE));
    let (what, repair) = match (spec, settings) {
        (false, false) => return Ok(()),
        (true, false) => (
            format!("`{SPEC_ROOT}` already exists"),
            format!(
                "this repository already has spec nodes: run `keel lint` to judge them, and write a new node as {SPEC_ROOT}/<node>/spec.md (`keel units FILE` lists what it can pin)"
            ),
        ),
        (false, true) => (
            format!("`{SETTINGS_FILE}` already exists"),
            format!(
                "move {SETTINGS_FILE} aside and run keel init again (then merge your settings back), or write {SPEC_ROOT}/<node>/spec.md by hand"
            ),
        ),
        (true, true) => (
            format!("`{SPEC_ROOT}` and `{SETTINGS_FILE}` already exist"),
            "this repository is already set up for keel: run `keel lint`".to_owned(),
        ),
    };
    Err(CommandError::repairable(
        format!(
            "{}: {what}; keel init writes nothing over existing files",
            root.display()
        ),
        repair,
    ))
}

/// The unit the example node pins, and the repository path of its file.
struct Example {
    path: String,
    unit: FileUnit,
}

/// The unit the example pins: in the Python and TS/JS files at HEAD (the working tree's
/// when HEAD has no commits yet), shallowest path first, the first top-level function or
/// class a selector pins, else the first unit a selector pins. `None` when none of the
/// first [`FILES_TRIED`] files gives one.
fn example_anchor(db: &KeelDatabase) -> Result<Option<Example>, CommandError> {
    let fsck = |err: keel_engine::objects::ObjectError| CommandError::objects(&err);
    let files: Vec<(String, Oid)> = if db.unborn_head().is_some() {
        db.worktree_files(is_graph_input)?
    } else {
        let head = db.resolve_commit("HEAD")?;
        files_under(db, db.commit_tree(head)?, "").map_err(fsck)?
    };
    let mut candidates: Vec<(String, Oid)> = files
        .into_iter()
        .filter(|(path, _)| {
            is_graph_input(path)
                && !path.ends_with(".json")
                && !path.split('/').any(|part| part.starts_with('.'))
        })
        .collect();
    candidates
        .sort_by(|(a, _), (b, _)| (a.matches('/').count(), a).cmp(&(b.matches('/').count(), b)));
    for (path, oid) in candidates.into_iter().take(FILES_TRIED) {
        if db.objects().blob_size(oid).map_err(fsck)? > LintSettings::default().max_file_bytes {
            continue;
        }
        let content = db.objects().blob(oid).map_err(fsck)?;
        let Ok(units) = units_of(&path, &content) else {
            continue;
        };
        let pinned: Vec<&FileUnit> = units
            .units
            .iter()
            .filter(|unit| unit.standing == Standing::Pins)
            .collect();
        let top_level = pinned
            .iter()
            .find(|unit| !unit.name.contains('.') && matches!(unit.kind, "function" | "class"));
        if let Some(unit) = top_level.or(pinned.first()) {
            return Ok(Some(Example {
                unit: (*unit).clone(),
                path,
            }));
        }
    }
    Ok(None)
}

/// `text` as a YAML scalar: plain when every character is one a plain scalar keeps as
/// is, else double-quoted.
fn yaml_scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "/._-#$".contains(c))
        && !text.starts_with(['#', '-', '.']);
    if plain {
        text.to_owned()
    } else {
        let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
        format!("\"{escaped}\"")
    }
}

/// The example node: frontmatter that pins `anchor` (else the whole of keel.toml), every
/// line of it explained in YAML comments, and prose keel does not read.
fn example_spec(anchor: Option<&Example>) -> String {
    let (entry, prose) = match anchor {
        Some(Example { unit, .. }) => (
            unit.selector.clone(),
            format!(
                "What {} must do, and why: keel does not read this prose.\n\
                 \n\
                 This example pins that {} (lines {}-{} when keel init ran). A commit that\n\
                 changes a line inside it blocks `keel lint` until this spec changes too (a new\n\
                 version) or the change is acknowledged.",
                unit.selector, unit.kind, unit.start_line, unit.end_line
            ),
        ),
        None => (
            SETTINGS_FILE.to_owned(),
            format!(
                "What this node's code must do, and why: keel does not read this prose.\n\
                 \n\
                 keel init found no Python or TypeScript/JavaScript unit to pin, so this example\n\
                 pins the whole of {SETTINGS_FILE} (a bare path: a change to it is advisory drift,\n\
                 a warning). Replace it with the code this spec describes."
            ),
        ),
    };
    format!(
        "---\n\
         # An example spec node, written by `keel init`. keel reads only this frontmatter;\n\
         # the node's id is its folder under .spec/ (`{EXAMPLE_NODE}`): rename or copy the\n\
         # folder for each part of the code you describe.\n\
         #\n\
         # `code:` pins the code this spec describes. `path#name` names units of one file\n\
         # (`name`, `Class.method`, `outer.inner`; several: `path#a,B.c`): a commit that\n\
         # changes a line inside one blocks `keel lint` until this spec is updated or the\n\
         # drift acknowledged (`keel ack {EXAMPLE_NODE}`). A bare path, folder or glob pins\n\
         # whole files, and a change to them only warns.\n\
         # `keel units FILE` lists a file's units with the selector to write for each.\n\
         code:\n  \
           - {}\n\
         # `related:` entries are named here but never block:\n\
         # related:\n\
         #   - docs/\n\
         ---\n\
         # Example\n\
         \n\
         {prose}\n",
        yaml_scalar(&entry)
    )
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML array of strings.
fn toml_strings(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| toml_string(item)).collect();
    format!("[{}]", items.join(", "))
}

/// `keel.toml` with every key keel reads at its default value ([`Settings::default`]),
/// each explained. The destructuring names every field: a setting added to the schema
/// does not compile here until it is written too.
fn settings_text() -> String {
    let Settings {
        lint,
        sessions,
        trailers,
        impact,
        prices: _,
    } = Settings::default();
    let LintSettings {
        scoped_code_miss,
        cosmetic,
        docstrings,
        governed_roots,
        max_file_bytes,
    } = lint;
    let SessionSettings { repos, days } = sessions;
    let ImpactSettings {
        depth,
        max_bytes,
        max_nodes,
    } = impact;
    let scoped_code_miss = match scoped_code_miss {
        ScopedCodeMiss::Warn => "warn",
        ScopedCodeMiss::Ignore => "ignore",
    };
    let cosmetic = match cosmetic {
        CosmeticHits::Block => "block",
        CosmeticHits::Warn => "warn",
        CosmeticHits::Ignore => "ignore",
    };
    let docstrings = match docstrings {
        Docstrings::Code => "code",
        Docstrings::Cosmetic => "cosmetic",
    };
    let mut trailer_lines = String::new();
    for (harness, pattern) in &trailers {
        let _ = writeln!(
            trailer_lines,
            "{} = {}",
            toml_string(harness),
            toml_string(pattern)
        );
    }
    format!(
        "# keel's settings for this repository, written by `keel init`: every key keel reads,\n\
         # at its default value. Every key is optional (delete what you do not change) and a\n\
         # key keel does not know is refused. `keel lint` reads this file from the commit it\n\
         # judges, as it reads the specs: an edit counts once it is committed.\n\
         # Reference: docs/settings.md in keel's repository.\n\
         \n\
         [lint]\n\
         # What a commit that changes a pinned file outside every selector of its entry\n\
         # reports: \"warn\" (an advisory scoped-code-miss) or \"ignore\".\n\
         scoped_code_miss = \"{scoped_code_miss}\"\n\
         # What a hit that changed only comments and whitespace reports: \"block\" (a hit like\n\
         # any other, marked cosmetic), \"warn\" (an advisory cosmetic-hit) or \"ignore\".\n\
         cosmetic = \"{cosmetic}\"\n\
         # Whether a change to docstrings alone is \"code\" or \"cosmetic\".\n\
         docstrings = \"{docstrings}\"\n\
         # Roots of source discovery, e.g. [\"src\"] (accepted; no check reads it yet).\n\
         governed_roots = {}\n\
         # The largest file, in bytes, whose units keel reads; past it an anchored file is\n\
         # `too-large`, and the call graph sees only its module.\n\
         max_file_bytes = {max_file_bytes}\n\
         \n\
         [sessions]\n\
         # The repositories `keel sessions` scans when no --repo is given (paths).\n\
         repos = {}\n\
         # How many days back `keel sessions` counts a session (--days overrides).\n\
         days = {days}\n\
         \n\
         [trailers]\n\
         # Extra agent trailers, added to the built-in ones: harness id = a regex matched\n\
         # case-insensitively against each line of a commit's trailer block, e.g.\n\
         # my-bot = \"^co-authored-by:.*bot@example\\\\.com\"\n\
         {trailer_lines}\
         \n\
         [impact]\n\
         # `keel impact`'s defaults: how many levels of callers to walk (--depth), and the\n\
         # report's bounds in bytes (--max-bytes) and in callables (--max-nodes).\n\
         depth = {depth}\n\
         max_bytes = {max_bytes}\n\
         max_nodes = {max_nodes}\n\
         \n\
         [prices]\n\
         # Model prices over the bundled table, in USD per million tokens; input and output\n\
         # are required, a missing cache rate leaves calls that use it unpriced, e.g.\n\
         # \"my-model\" = {{ input = 3.0, output = 15.0, cache_write_5m = 3.75, cache_write_1h = 6.0, cache_read = 0.3, above_200k = {{ input = 6.0, output = 22.5 }}, fast_multiplier = 6 }}\n",
        toml_strings(&governed_roots),
        toml_strings(&repos),
    )
}

/// What keel init created in one run, so a failure after it leaves nothing behind.
struct Written {
    root: PathBuf,
    /// The entries at the root that did not exist before and that keel init created
    /// (`.spec`, `keel.toml`).
    created: std::cell::RefCell<Vec<PathBuf>>,
}

impl Written {
    fn new(root: &Path) -> Self {
        Self {
            root: root.to_owned(),
            created: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// Creates `path` (relative to the root; its folders too) holding `text`; refuses a
    /// file that appeared since [`refuse_existing`] looked.
    fn create(&self, path: &str, text: &str) -> Result<(), CommandError> {
        let full = self.root.join(path);
        let top = self.root.join(path.split('/').next().unwrap_or(path));
        let failed = |at: &Path, err: std::io::Error| {
            CommandError::from(std::io::Error::new(
                err.kind(),
                format!("{}: {err}", at.display()),
            ))
        };
        if top != full {
            if std::fs::symlink_metadata(&top).is_err() {
                self.created.borrow_mut().push(top.clone());
            }
            if let Some(folder) = full.parent() {
                std::fs::create_dir_all(folder).map_err(|err| failed(folder, err))?;
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&full)
            .map_err(|err| failed(&full, err))?;
        if top == full {
            self.created.borrow_mut().push(top);
        }
        file.write_all(text.as_bytes())
            .map_err(|err| failed(&full, err))
    }

    /// Removes what keel init created: none of it existed before.
    fn undo(&self) {
        for top in self.created.borrow().iter() {
            // Best effort: the error that made keel init undo is the one it reports.
            let _ = match std::fs::symlink_metadata(top) {
                Ok(metadata) if metadata.is_dir() => std::fs::remove_dir_all(top),
                Ok(_) => std::fs::remove_file(top),
                Err(_) => Ok(()),
            };
        }
    }
}

/// Installs the hook as `keel hook install` does (without `--force`): a hook keel did not
/// write is refused with a repair that names keel init's own way out.
fn install_hook(db: &KeelDatabase) -> Result<PathBuf, CommandError> {
    let program = std::env::current_exe()
        .map_err(|err| CommandError::plain(format!("cannot find keel's own path: {err}")))?;
    match db.install_hook(&program, false) {
        Ok(installed) => Ok(installed.path),
        Err(keel_engine::hook::HookError::NotOurs { path }) => Err(CommandError::from_line(
            Code::HookRefused,
            format!(
                "{}: a hook keel did not write is installed, so keel init wrote nothing; repair: run `keel init` without --hook, then `keel hook install --force` to keep that hook and run it before keel's",
                path.display()
            ),
        )),
        Err(err) => Err(err.into()),
    }
}

/// `path` (relative to `root`) as the user types it from the current folder: relative to
/// it when it lies inside the work tree, else absolute.
fn shown(root: &Path, path: &str) -> String {
    let full = root.join(path);
    let Ok(cwd) = std::env::current_dir() else {
        return full.display().to_string();
    };
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    let Ok(below) = cwd.strip_prefix(root) else {
        return full.display().to_string();
    };
    let here: Vec<String> = below
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    let there: Vec<&str> = path.split('/').collect();
    let common = here
        .iter()
        .zip(&there)
        .take_while(|(a, b)| a.as_str() == **b)
        .count()
        .min(there.len().saturating_sub(1));
    let mut out: Vec<&str> = vec![".."; here.len() - common];
    out.extend(&there[common..]);
    out.join("/")
}

/// What keel init wrote, and what to do next.
fn print_done(
    root: &Path,
    spec_path: &str,
    anchor: Option<&Example>,
    hook: Option<&Path>,
) -> Result<(), CommandError> {
    let mut out = String::new();
    let pinned = match anchor {
        Some(Example { unit, .. }) => format!(
            "{} ({}, lines {}-{})",
            unit.selector, unit.kind, unit.start_line, unit.end_line
        ),
        None => format!("the whole of {SETTINGS_FILE} (no Python or TS/JS unit found to pin)"),
    };
    let _ = writeln!(
        out,
        "wrote {}: an example spec node pinning {pinned}",
        shown(root, spec_path)
    );
    let _ = writeln!(
        out,
        "wrote {}: every setting keel reads, at its default",
        shown(root, SETTINGS_FILE)
    );
    if let Some(hook) = hook {
        let _ = writeln!(
            out,
            "installed {}: new branch commits are judged before the branch moves",
            hook.display()
        );
    }
    let file = anchor.map_or_else(|| "FILE".to_owned(), |example| shown(root, &example.path));
    let mut steps = vec![
        (
            format!("keel units {file}"),
            "a file's units and the selector that pins each: edit the spec to pin yours",
        ),
        (
            format!(
                "git add {} {} && git commit -m \"Add keel\"",
                shown(root, SPEC_ROOT),
                shown(root, SETTINGS_FILE)
            ),
            "keel lint reads the specs from commits",
        ),
        (
            "keel lint".to_owned(),
            "judge every node: exit 0 when nothing blocks",
        ),
    ];
    if hook.is_none() {
        steps.push((
            "keel hook install".to_owned(),
            "(optional) refuse commits that add blocking drift",
        ));
    }
    let width = steps
        .iter()
        .map(|(command, _)| command.chars().count())
        .max()
        .unwrap_or(0);
    let _ = writeln!(out, "\nnext:");
    for (command, why) in steps {
        let _ = writeln!(out, "  {command:width$}    # {why}");
    }
    super::write_stdout(&out)
}
