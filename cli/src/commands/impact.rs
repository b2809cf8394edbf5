//! `keel impact PATCH`: which callables a patch changes and who calls them, as one
//! bounded, canonical JSON document (or, `--format text`, the same report for people).
//!
//! Owns: the command's options (clap knows each one, for `--help` and completions; keel
//! reads their occurrences strictly: KEEL-G109 for a missing value, a repeated or unknown
//! option, a second PATCH), the patch (read once; `-` is stdin), the base (the working
//! tree, or `--rev`), the candidate (the base with the patch applied in memory, never on
//! disk), and the final re-check of every working-tree source read (KEEL-I207: no
//! report, exit 1).
//! Does not own: the graph, closure and report (`keel_queries::impact`), the option
//! domains (`keel_queries::impact::options`) or the text layout (`crate::impact_text`).

use super::error::Code;
use super::graph_base::{Base, base_settings, graph_inputs_of, warn_not_in_graph};
use super::{CommandError, write_stdout};
use crate::exit::ExitStatus;
use crate::impact_text::{Graphs, impact_text};
use crate::streams::errln;
use clap::builder::PossibleValue;
use clap::{Arg, ArgAction, ArgMatches, Command, ValueHint};
use keel_engine::KeelDatabase;
use keel_engine::settings::{SETTINGS_FILE, Settings};
use keel_queries::callgraph::{call_graph_on_threads, graph_inputs, is_graph_input};
use keel_queries::impact::options::{Limits, OptionError};
use keel_queries::impact::patch;
use keel_queries::impact::{Facts, candidate_files, render, worktree_revision};
use std::ffi::{OsStr, OsString};
use std::io::Read as _;
use std::path::PathBuf;

const ABOUT: &str = "Which callables does a patch change, and who calls them (transitively)?";

const LONG_ABOUT: &str = "Which callables does a patch change, and who calls them (transitively)?

PATCH is a unified diff (`git diff` output), `-` for stdin; it is applied in memory, never \
on disk, to the working tree (or the --rev commit). Options go before or after PATCH, as \
`--opt VALUE` or `--opt=VALUE`, each once. Exit 0 with the report; 1: a source changed \
while keel read it (KEEL-I207); 2: bad options (KEEL-G109), a patch that does not apply, or \
unreadable input.";

/// clap's id of PATCH.
const PATCH: &str = "patch";
/// clap's id of the words after PATCH that are no option of `keel impact` (refused as
/// KEEL-G109, worded by keel rather than by clap).
const UNEXPECTED: &str = "unexpected";

/// The options of `keel impact`, each `--flag VALUE` or `--flag=VALUE`, at most once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flag {
    Repo,
    Rev,
    Format,
    Depth,
    MaxBytes,
    MaxNodes,
}

impl Flag {
    const ALL: [Self; 6] = [
        Self::Repo,
        Self::Rev,
        Self::Format,
        Self::Depth,
        Self::MaxBytes,
        Self::MaxNodes,
    ];

    /// The long name without its dashes (also clap's id).
    fn name(self) -> &'static str {
        match self {
            Self::Repo => "repo",
            Self::Rev => "rev",
            Self::Format => "format",
            Self::Depth => "depth",
            Self::MaxBytes => "max-bytes",
            Self::MaxNodes => "max-nodes",
        }
    }

    fn flag(self) -> String {
        format!("--{}", self.name())
    }

    fn value_name(self) -> &'static str {
        match self {
            Self::Repo => "DIR",
            Self::Rev => "REV",
            Self::Format => "FORMAT",
            Self::Depth | Self::MaxBytes | Self::MaxNodes => "N",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Repo => {
                "The repository (any folder inside its work tree; default: the current folder)"
            }
            Self::Rev => {
                "Read the base from this commit (an id or any revision) instead of the working tree"
            }
            Self::Format => "Output format (default: json)",
            Self::Depth => {
                "Caller levels to report, 0..=1024 (default 1, or [impact] depth in keel.toml)"
            }
            Self::MaxBytes => {
                "Largest JSON report, 1024..=16777216 bytes (default 65536, or [impact] max_bytes); the text shows the same selection"
            }
            Self::MaxNodes => {
                "Most callables reported, 1..=65536 (default 256, or [impact] max_nodes)"
            }
        }
    }

    /// clap's definition: for `--help` and completions; the values are read by keel.
    fn arg(self) -> Arg {
        let arg = Arg::new(self.name())
            .long(self.name())
            .value_name(self.value_name())
            .help(self.help())
            .action(ArgAction::Append);
        match self {
            Self::Repo => arg.allow_hyphen_values(true).value_hint(ValueHint::DirPath),
            // Without hyphen values: `--format --depth 2` leaves --format without one.
            Self::Format => arg.value_parser([
                PossibleValue::new("json")
                    .help("The canonical report (keel.semantic-impact.v1), one line"),
                PossibleValue::new("text").help(
                    "For people: changed callables, callers by depth, unresolved call sites, what was left out",
                ),
            ]),
            // Hyphen values reach keel's reading: `--depth -1` is refused there (a sign),
            // `--rev --depth 2` as a --rev without a value.
            Self::Rev | Self::Depth | Self::MaxBytes | Self::MaxNodes => {
                arg.allow_hyphen_values(true)
            }
        }
    }
}

/// `keel impact`'s command line as given: PATCH, the words after it that are no option,
/// and each option's occurrences. Read strictly by [`ImpactArgs::request`].
#[derive(Debug)]
pub(crate) struct ImpactArgs {
    patch: Option<OsString>,
    unexpected: Vec<OsString>,
    /// Per flag, in [`Flag::ALL`] order: each occurrence's value (`None`: it had none).
    given: Vec<(Flag, Vec<Option<OsString>>)>,
}

impl clap::Args for ImpactArgs {
    fn augment_args(cmd: Command) -> Command {
        let cmd = cmd
            .about(ABOUT)
            .long_about(LONG_ABOUT)
            .override_usage("keel impact PATCH [OPTIONS]")
            // keel reads the occurrences strictly itself (KEEL-G109): an option given
            // without its value reaches keel rather than being refused in clap's words.
            .ignore_errors(true)
            .arg(
                Arg::new(PATCH)
                    .value_name("PATCH")
                    .help("The patch: a unified diff as `git diff` writes it; `-` reads stdin")
                    .allow_hyphen_values(true)
                    .value_hint(ValueHint::FilePath),
            )
            .arg(
                Arg::new(UNEXPECTED)
                    .hide(true)
                    .num_args(0..)
                    .action(ArgAction::Append)
                    .allow_hyphen_values(true),
            );
        Flag::ALL
            .into_iter()
            .fold(cmd, |cmd, flag| cmd.arg(flag.arg()))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for ImpactArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let words = |id: &str| -> Result<Vec<OsString>, clap::Error> {
            Ok(occurrences(matches, id)?.into_iter().flatten().collect())
        };
        let mut given = Vec::new();
        for flag in Flag::ALL {
            let values = occurrences(matches, flag.name())?
                .into_iter()
                .map(|values| values.into_iter().next())
                .collect();
            given.push((flag, values));
        }
        Ok(Self {
            patch: words(PATCH)?.into_iter().next(),
            unexpected: words(UNEXPECTED)?,
            given,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// Each occurrence of the argument `id` with its values (none: given without a value).
fn occurrences(matches: &ArgMatches, id: &str) -> Result<Vec<Vec<OsString>>, clap::Error> {
    let raw = matches
        .try_get_raw_occurrences(id)
        .map_err(|err| clap::Error::raw(clap::error::ErrorKind::InvalidValue, err))?;
    Ok(raw
        .map(|all| {
            all.map(|values| values.map(OsStr::to_os_string).collect())
                .collect()
        })
        .unwrap_or_default())
}

/// The output formats of `keel impact`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ImpactFormat {
    /// The canonical JSON report.
    Json,
    /// The same report for people ([`crate::impact_text`]).
    Text,
}

/// What `keel impact` was asked, read strictly; the limits still to be read over the
/// `[impact]` defaults.
struct Request {
    patch: OsString,
    rev: Option<String>,
    repo: PathBuf,
    format: ImpactFormat,
    /// The limit options as `--flag=N` words (a bare `--flag` when given without a value).
    limit_words: Vec<String>,
}

/// A refusal of `keel impact`'s options: `KEEL-G109: what; repair: how`.
fn g109(what: &str, repair: &str) -> CommandError {
    CommandError::from_line(
        Code::ImpactOption,
        format!("KEEL-G109: {what}; repair: {repair}"),
    )
}

/// A value as given; `None` when the option had none, or took the next option for one.
fn given_value(value: Option<&OsString>) -> Option<&OsStr> {
    value
        .map(OsString::as_os_str)
        .filter(|value| !value.as_encoded_bytes().starts_with(b"--"))
}

impl ImpactArgs {
    fn request(&self) -> Result<Request, CommandError> {
        let repo = self
            .single(Flag::Repo)?
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        let rev = self
            .single(Flag::Rev)?
            .map(|rev| rev.to_string_lossy().into_owned());
        let format = match self.single(Flag::Format)? {
            Some(text) if text == "text" => ImpactFormat::Text,
            _ => ImpactFormat::Json,
        };
        let limit_words = self.limit_words();
        // Refuse bad option forms before anything is read, whatever the defaults.
        Limits::parse(Limits::default(), &limit_words)?;
        Ok(Request {
            patch: self.patch()?,
            rev,
            repo,
            format,
            limit_words,
        })
    }

    fn occurrences(&self, flag: Flag) -> &[Option<OsString>] {
        self.given
            .iter()
            .find(|(known, _)| *known == flag)
            .map_or(&[], |(_, values)| values.as_slice())
    }

    /// The one value of `flag`, if given; refused when given twice or without a value.
    fn single(&self, flag: Flag) -> Result<Option<&OsStr>, CommandError> {
        match self.occurrences(flag) {
            [] => Ok(None),
            [one] => given_value(one.as_ref())
                .filter(|value| !value.is_empty())
                .map(Some)
                .ok_or_else(|| {
                    g109(
                        &format!("{} needs a value", flag.flag()),
                        &format!("write {} {}", flag.flag(), flag.value_name()),
                    )
                }),
            _ => Err(g109(
                &format!("{} is given twice", flag.flag()),
                "give each option once",
            )),
        }
    }

    /// `--depth`, `--max-bytes` and `--max-nodes` as words [`Limits::parse`] reads.
    fn limit_words(&self) -> Vec<String> {
        let mut words = Vec::new();
        for flag in [Flag::Depth, Flag::MaxBytes, Flag::MaxNodes] {
            for value in self.occurrences(flag) {
                words.push(match given_value(value.as_ref()) {
                    Some(value) => format!("{}={}", flag.flag(), value.to_string_lossy()),
                    None => flag.flag(),
                });
            }
        }
        words
    }

    /// The one PATCH: refused when it is missing, is an option keel does not know, or is
    /// followed by words that are no option.
    fn patch(&self) -> Result<OsString, CommandError> {
        let looks_like_option =
            |word: &OsStr| word.len() > 1 && word.as_encoded_bytes().starts_with(b"-");
        let extra = self.patch.iter().filter(|word| looks_like_option(word));
        if let Some(word) = extra.chain(&self.unexpected).next() {
            let word = word.to_string_lossy().into_owned();
            if looks_like_option(OsStr::new(&word)) {
                return Err(OptionError::Unknown(word).into());
            }
            return Err(g109(
                &format!("unexpected argument {word:?}"),
                "give one PATCH",
            ));
        }
        self.patch
            .clone()
            .ok_or_else(|| g109("no PATCH given", "keel impact PATCH (or - for stdin)"))
    }
}

/// The `[impact]` defaults of `keel.toml` in the base's tree (`bytes`, `None` without
/// one), each checked against its option's domain; a value outside it is refused naming
/// its key and line.
fn impact_defaults(bytes: Option<&[u8]>, settings: &Settings) -> Result<Limits, CommandError> {
    let Some(bytes) = bytes else {
        return Ok(Limits::default());
    };
    Limits::of_settings(&settings.impact)
        .map_err(|refused| impact_key_error(bytes, refused.key, refused.value, &refused.error))
}

/// A `[impact]` value its option refuses, worded as the key in `keel.toml` (its line is
/// the first line that sets the key).
fn impact_key_error(bytes: &[u8], key: &str, value: u64, err: &OptionError) -> CommandError {
    let line = String::from_utf8_lossy(bytes)
        .lines()
        .position(|text| {
            text.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |index| index + 1);
    // A value written from a u64 is a plain decimal given once: only its range can fail.
    let OptionError::OutOfRange { low, high, .. } = err else {
        return CommandError::plain(format!("{SETTINGS_FILE}:{line}: [impact] {key}: {err}"));
    };
    CommandError::repairable(
        format!(
            "{SETTINGS_FILE}:{line}: KEEL-G109: [impact] {key} = {value} is outside {low}..={high}"
        ),
        "set a value in that range, or remove the key for the default",
    )
}

pub(crate) fn cmd_impact(args: &ImpactArgs) -> Result<ExitStatus, CommandError> {
    let request = args.request()?;
    let db = KeelDatabase::open_objects(&request.repo)?;
    let base_at = Base::of(&db, request.rev.as_deref())?;
    let (settings_bytes, settings) = base_settings(&db, base_at)?;
    let defaults = impact_defaults(settings_bytes.as_deref(), &settings)?;
    let limits = Limits::parse(defaults, &request.limit_words)?;
    let (name, bytes) = read_patch(&request.patch)?;
    let files = patch::parse(&name, &bytes)?;
    // The working tree's sources are snapshotted (content and identity) for the re-check.
    let (snapshot, base_files) = match base_at.commit {
        Some(_) => {
            let (files, not_utf8) = graph_inputs_of(&db, base_at)?;
            warn_not_in_graph(&not_utf8);
            (None, files)
        }
        None => {
            let listing = db.worktree_listing(is_graph_input)?;
            warn_not_in_graph(&listing.not_utf8);
            let snapshot = listing.files;
            let files = snapshot.iter().map(|f| (f.path.clone(), f.blob)).collect();
            (Some(snapshot), files)
        }
    };
    check_other_files(&db, &name, base_at, &files)?;
    let candidate_files = candidate_files(&db, &name, &base_files, &files)?;
    let bound = settings.lint.max_file_bytes;
    let base = db.sources(graph_inputs(&base_files), bound);
    let candidate_tree = db.sources(graph_inputs(&candidate_files), bound);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let graphs = Graphs {
        base: call_graph_on_threads(&db, base, threads),
        candidate: call_graph_on_threads(&db, candidate_tree, threads),
    };
    let base_revision = match base_at.commit {
        Some((id, _)) => format!("git:{id}"),
        None => worktree_revision(&base_files),
    };
    let facts = Facts::of(
        &db,
        (base, candidate_tree),
        (&bytes, &files),
        base_revision,
        &candidate_files,
    );
    let report = render(&facts, limits)?;
    let output = match request.format {
        ImpactFormat::Json => format!("{report}\n"),
        ImpactFormat::Text => impact_text(&report, graphs, &facts.closure),
    };
    failpoint_before_recheck();
    if let Some(before) = &snapshot
        && db.worktree_snapshot(is_graph_input)? != *before
    {
        errln!(
            "error: KEEL-I207: a source file changed while keel read it; no report; repair: run keel impact again once the working tree is quiet"
        );
        return Ok(ExitStatus::Blocked);
    }
    write_stdout(&output)?;
    // The process exits next: the OS takes the database's memory back at once, where
    // dropping it would free every parse tree, hint and memo one by one.
    std::mem::forget(db);
    Ok(ExitStatus::Clean)
}

/// Tests only (debug builds): `KEEL_TEST_TOUCH_BEFORE_RECHECK=FILE` appends a line to
/// FILE between building the report and the re-check, the one moment a concurrent edit
/// must be caught.
fn failpoint_before_recheck() {
    #[cfg(debug_assertions)]
    if let Some(path) = std::env::var_os("KEEL_TEST_TOUCH_BEFORE_RECHECK") {
        use std::io::Write as _;
        let _ = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .and_then(|mut file| file.write_all(b"# touched\n"));
    }
}

/// The patch's hunks on files the graph does not read (docs, configs) must apply to the
/// base too: each is checked against that file in the working tree (or the `--rev` tree).
/// A file without hunks (a binary file, a rename, a mode change) is checked for being
/// there, or not when added: keel has no lines of it to check.
fn check_other_files(
    db: &KeelDatabase,
    name: &str,
    base: Base,
    files: &[patch::FilePatch],
) -> Result<(), CommandError> {
    for file in files {
        let paths = [&file.old_path, &file.new_path];
        if paths.into_iter().flatten().any(|path| is_graph_input(path)) {
            continue;
        }
        let Some(path) = file
            .old_path
            .as_ref()
            .or(file.copied_from.as_ref())
            .or(file.new_path.as_ref())
        else {
            continue;
        };
        if file.copied_from.is_some()
            && let Some(copy) = &file.new_path
            && base.read(db, copy)?.is_some()
        {
            return Err(patch::PatchError::FileMismatch {
                source_name: name.to_owned(),
                line: file.header_line,
                path: copy.clone(),
                reason: "already exists".to_owned(),
            }
            .into());
        }
        let bytes = base.read(db, path)?;
        patch::apply(name, file, bytes.as_deref())?;
    }
    Ok(())
}

/// The patch's bytes, read once, and its name for messages.
fn read_patch(path: &OsStr) -> Result<(String, Vec<u8>), CommandError> {
    if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        return Ok(("<stdin>".to_owned(), bytes));
    }
    let name = path.to_string_lossy().into_owned();
    let bytes = std::fs::read(path).map_err(|err| {
        CommandError::repairable(
            format!("{name}: cannot read the patch: {err}"),
            "pass an existing file or - for stdin",
        )
    })?;
    Ok((name, bytes))
}
