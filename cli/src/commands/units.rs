//! `keel units FILE`: the units keel's extractor sees in one file, each with the selector
//! a spec writes to pin it.
//!
//! Owns: resolving FILE (relative to the current folder, as a user types it) to its
//! repository path, reading it from the working tree or the commit `--rev` names,
//! refusing what keel would not read (no such file, a folder, a link, a file past `[lint]
//! max_file_bytes`, no extractor, nothing parses), and the text and `keel.units.v1` JSON.
//! Does not own: extraction and the verdict on each selector (`keel_queries::units`), or
//! the base tree and its `keel.toml` (`graph_base`).

use super::error::Code;
use super::graph_base::{Base, base_settings};
use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use crate::streams::errln;
use keel_engine::objects::EntryKind;
use keel_engine::{Db as _, KeelDatabase};
use keel_queries::units::{FileUnit, FileUnits, LineRange, Standing, UnitsError, units_of};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The JSON schema `keel units --format json` prints.
const UNITS_SCHEMA: &str = "keel.units.v1";

/// List the units keel sees in FILE, each with the selector a spec writes to pin it.
///
/// FILE is relative to the current folder (or absolute) and must lie in the repository's
/// work tree; it is read from the working tree, or from the commit --rev names. Each unit is
/// a line: kind (function, class, method, variable, enum, type), qualified name, line range
/// (1-based, inclusive, decorators and `export` included) and the selector to write under
/// `code:` in `.spec/<node>/spec.md` (`path#Qualified.name`). A type, a name several units
/// share (lint refuses it as ambiguous) and, in a file that parses only in part, a name lint
/// cannot resolve until it parses are flagged. `--format json` prints `{"schema":
/// "keel.units.v1", "path", "units": [{"selector", "kind", "name", "start_line",
/// "end_line"}]}`, units in document order (an enclosing unit before its members).
///
/// Exit 0 with the list (a file that parses only in part lists the units that stand and
/// warns on stderr); 2: no such file, a folder or a link, no extractor for its extension,
/// nothing of it parses, or past `[lint] max_file_bytes`.
#[derive(Debug, clap::Args)]
pub(crate) struct UnitsArgs {
    /// The file, relative to the current folder (or absolute), inside the repository.
    file: PathBuf,
    /// The repository (any folder inside its work tree).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// Read FILE as the commit REV holds it (an id or any revision) instead of the working
    /// tree.
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = UnitsFormat::Text)]
    format: UnitsFormat,
}

/// How `keel units` prints the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum UnitsFormat {
    /// One line per unit: kind, qualified name, lines, selector.
    Text,
    /// `keel.units.v1` JSON (one document on stdout).
    Json,
}

pub(crate) fn cmd_units(args: &UnitsArgs) -> Result<ExitStatus, CommandError> {
    let db = KeelDatabase::open_objects(&args.repo)?;
    let path = match db.work_dir() {
        Some(root) => repo_path(root, &args.file)?,
        None => bare_path(&args.file)?,
    };
    let base = Base::of(&db, args.rev.as_deref())?;
    let at = match (&args.rev, base.commit) {
        (Some(rev), Some((commit, _))) => {
            let id = commit.to_string();
            format!("at {rev} ({})", &id[..id.len().min(12)])
        }
        _ => "in the working tree".to_owned(),
    };
    let content = read_file(&db, base, &path, &at)?;
    let (_, settings) = base_settings(&db, base)?;
    let bound = settings.lint.max_file_bytes;
    if content.len() as u64 > bound {
        return Err(CommandError::repairable(
            format!(
                "{path}: {} bytes {at}, past `[lint] max_file_bytes` ({bound}), so keel does not read its units (lint reports its selectors as `too-large`)",
                content.len()
            ),
            format!(
                "raise `[lint] max_file_bytes` in keel.toml, or pin the whole file with the bare entry `{path}`"
            ),
        ));
    }
    let units = units_of(&path, &content).map_err(|err| refusal(&path, &at, &err))?;
    if !units.unparsed.is_empty() {
        errln!("{}", partial_warning(&path, &units));
    }
    let text = match args.format {
        UnitsFormat::Text => units_text(&path, &at, &units),
        UnitsFormat::Json => units_json(&path, &units.units),
    };
    write_stdout(&text)?;
    Ok(ExitStatus::Clean)
}

/// FILE (relative to the current folder, or absolute) as a path of the work tree at
/// `root`: `/`-separated, relative to the root. The folders that exist are read through
/// their links, as `root` is; FILE's own name is kept as typed, so a link is named, not
/// followed.
fn repo_path(root: &Path, file: &Path) -> Result<String, CommandError> {
    let cwd = std::env::current_dir()?;
    let root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    let typed = file.display();
    let full = normalize(&cwd.join(file));
    let Some(name) = full.file_name() else {
        return Err(CommandError::repairable(
            format!("{typed}: names a folder, not a file"),
            "pass a Python or TypeScript/JavaScript file, e.g. `keel units src/app.py`",
        ));
    };
    let parent = full.parent().map_or_else(PathBuf::new, real_ancestors);
    let full = parent.join(name);
    let outside = || {
        CommandError::repairable(
            format!(
                "{typed}: lies outside the repository's work tree {}",
                root.display()
            ),
            "pass a file inside the repository, relative to the current folder (or absolute); --repo names the repository",
        )
    };
    let relative = full.strip_prefix(&root).map_err(|_| outside())?;
    let mut parts = Vec::new();
    for component in relative.components() {
        let Component::Normal(part) = component else {
            return Err(outside());
        };
        let Some(part) = part.to_str() else {
            return Err(CommandError::repairable(
                format!("{typed}: the path is not UTF-8"),
                "rename the file to a UTF-8 name; git paths keel reads are UTF-8",
            ));
        };
        parts.push(part);
    }
    if parts.is_empty() {
        return Err(CommandError::repairable(
            format!("{typed}: names the repository's root folder, not a file"),
            "pass a Python or TypeScript/JavaScript file, e.g. `keel units src/app.py`",
        ));
    }
    Ok(parts.join("/"))
}

/// FILE in a repository without a work tree: a repository path as typed.
fn bare_path(file: &Path) -> Result<String, CommandError> {
    let text = file.to_str().unwrap_or_default();
    let clean = !text.is_empty()
        && file
            .components()
            .all(|component| matches!(component, Component::Normal(_)));
    if !clean {
        return Err(CommandError::repairable(
            format!(
                "{}: a bare repository has no working tree to resolve it in",
                file.display()
            ),
            "pass the file's path in the repository (`src/app.py`) with --rev",
        ));
    }
    Ok(text.replace('\\', "/"))
}

/// `path` without `.` and with each `..` taking its folder away, read as written.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `folder` with its longest existing ancestor read through links (as the work tree's
/// root is), and the rest as written.
fn real_ancestors(folder: &Path) -> PathBuf {
    let mut existing = folder;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |path, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return folder.to_owned(),
        }
    }
}

/// The bytes of the file at `path` in `base`, refusing what keel would not read as a
/// file's units: nothing there, a folder, a submodule or a symbolic link.
fn read_file(db: &KeelDatabase, base: Base, path: &str, at: &str) -> Result<Vec<u8>, CommandError> {
    let missing = || {
        CommandError::from_line(
            Code::NoSuchPath,
            format!(
                "{path}: no such file {at}; repair: check the path (FILE is relative to the current folder){}",
                if base.commit.is_some() {
                    ", or drop --rev to read the working tree"
                } else {
                    ", or pass --rev REV to read it as a commit holds it"
                }
            ),
        )
    };
    let folder = || {
        CommandError::repairable(
            format!("{path}: is a folder {at}, not a file"),
            format!("pass one file of it, e.g. `keel units {path}/FILE.py`"),
        )
    };
    let link = || {
        CommandError::repairable(
            format!("{path}: is a symbolic link {at}; keel does not follow links"),
            "pass the file the link points to, by its own path in the repository",
        )
    };
    match base.commit {
        Some((_, tree)) => {
            let entry = keel_queries::callgraph::lookup(db, tree, path)
                .map_err(|err| CommandError::objects(&err))?
                .ok_or_else(missing)?;
            match entry.kind {
                EntryKind::Tree => return Err(folder()),
                EntryKind::Submodule => {
                    return Err(CommandError::repairable(
                        format!("{path}: is a submodule {at}, not a file"),
                        "run keel units inside the submodule's own repository",
                    ));
                }
                EntryKind::File if entry.symlink => return Err(link()),
                EntryKind::File => {}
            }
            let bytes = db
                .objects()
                .blob(entry.oid)
                .map_err(|err| CommandError::objects(&err))?;
            Ok(bytes.to_vec())
        }
        None => {
            // `work_dir` is set: `repo_path` resolved `path` against it.
            let full = db.work_dir().unwrap_or(Path::new("")).join(path);
            let metadata = match std::fs::symlink_metadata(&full) {
                Ok(metadata) => metadata,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Err(missing()),
                Err(err) => return Err(err.into()),
            };
            if metadata.is_symlink() {
                return Err(link());
            }
            if metadata.is_dir() {
                return Err(folder());
            }
            Ok(std::fs::read(&full)?)
        }
    }
}

/// The one `error:` line for a file that yields no units.
fn refusal(path: &str, at: &str, err: &UnitsError) -> CommandError {
    let repair = match err {
        UnitsError::NoExtractor => {
            format!("pin the whole file with the bare entry `{path}`, or pass a source file")
        }
        UnitsError::Unparseable { .. } => format!(
            "fix the syntax error (or pass --rev REV to read a commit where the file parses); a bare entry `{path}` pins the whole file meanwhile"
        ),
        UnitsError::Unavailable { .. } => {
            "report it: keel's grammars should load on every host it builds for".to_owned()
        }
    };
    CommandError::repairable(format!("{path} {at}: {err}"), repair)
}

/// The warning for a file that parses only in part.
fn partial_warning(path: &str, units: &FileUnits) -> String {
    let mut line = format!(
        "warning: {path} parses only in part (lines {} did not parse): the units that stand are listed",
        LineRange::list(&units.unparsed)
    );
    if !units.left_out.is_empty() {
        let _ = write!(
            line,
            "; left out: {} (lint reports their selectors as unparseable until the file parses)",
            units.left_out.join(", ")
        );
    }
    line
}

/// One unit per line: kind, name, lines, selector, and how lint reads it when it does
/// not simply pin the unit.
fn units_text(path: &str, at: &str, units: &FileUnits) -> String {
    let mut out = String::new();
    if units.units.is_empty() {
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "{path} {at}: no units; the bare entry `{path}` pins the whole file"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "{path} {at}: {}",
        crate::render::counted(units.units.len(), "unit")
    );
    let lines: Vec<String> = units.units.iter().map(lines_of).collect();
    let kind_width = units.units.iter().map(|u| u.kind.len()).max().unwrap_or(0);
    let name_width = units
        .units
        .iter()
        .map(|u| u.name.chars().count())
        .max()
        .unwrap_or(0);
    let lines_width = lines.iter().map(String::len).max().unwrap_or(0);
    for (unit, lines) in units.units.iter().zip(&lines) {
        let row = format!(
            "  {:kind_width$}  {:name_width$}  {:lines_width$}  {}{}",
            unit.kind,
            unit.name,
            lines,
            unit.selector,
            flag(unit.standing)
        );
        let _ = writeln!(out, "{}", row.trim_end());
    }
    let _ = writeln!(
        out,
        "\nTo pin a unit, write its selector under `code:` in .spec/<node>/spec.md: a commit\n\
         that changes a line inside it then blocks `keel lint`. The bare entry `{path}`\n\
         pins the whole file (a change only warns)."
    );
    out
}

/// `4-6`, or `5` for a one-line unit.
fn lines_of(unit: &FileUnit) -> String {
    LineRange::list(&[LineRange {
        start: unit.start_line,
        end: unit.end_line,
    }])
}

/// What the text says after a selector lint does not read as a plain pin.
fn flag(standing: Standing) -> String {
    match standing {
        Standing::Pins => String::new(),
        Standing::TypeOnly => "  (a type: pinning it warns)".to_owned(),
        Standing::Ambiguous { units } => {
            format!("  (ambiguous: {units} units share this name; lint refuses the selector)")
        }
        Standing::Unparseable => {
            "  (unparseable: lint cannot resolve it until the file parses)".to_owned()
        }
    }
}

/// `keel.units.v1`: the schema, the repository path, the units in document order.
fn units_json(path: &str, units: &[FileUnit]) -> String {
    #[derive(serde::Serialize)]
    struct Document<'a> {
        schema: &'static str,
        path: &'a str,
        units: Vec<Unit<'a>>,
    }
    #[derive(serde::Serialize)]
    struct Unit<'a> {
        selector: &'a str,
        kind: &'a str,
        name: &'a str,
        start_line: u32,
        end_line: u32,
    }
    let document = Document {
        schema: UNITS_SCHEMA,
        path,
        units: units
            .iter()
            .map(|unit| Unit {
                selector: &unit.selector,
                kind: unit.kind,
                name: &unit.name,
                start_line: unit.start_line,
                end_line: unit.end_line,
            })
            .collect(),
    };
    // Strings and numbers only: serialization cannot fail.
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}
