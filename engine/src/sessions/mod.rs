//! Session impact, the engine's side: reading sessions, decisions and repositories into
//! salsa inputs for `keel sessions`.
//!
//! ### Flow
//! 1. [`crate::ChangeEvent::SessionsFrom`] reads `sessions.jsonl` (and `decisions.jsonl`)
//!    strictly into a [`SessionWorld`] input; explicit repositories are checked here. A
//!    relative `repo` in `sessions.jsonl` is read from the folder holding that file (as a
//!    path in a settings file is), with a warning when it names nothing.
//! 2. The caller asks `keel-queries` for the scan plan (which repositories, from when) and
//!    hands it back as [`crate::ChangeEvent::ScanPlanned`], which runs L-scan ([`scan`]).
//! 3. Later changes enter through the same door: `SessionsAppended`,
//!    `DecisionsAppended`, `RepoMoved` (each sets only the inputs that differ).
//!
//! Owns: those three steps and the per-repository caches that make a rescan read only new
//! commits. Does not own: any rule of the seed (`keel-queries::sessions`) or rendering.

pub mod inputs;
pub mod jsonl;
mod numstat;
pub mod scan;

pub use crate::decimal::Decimal;
pub use inputs::{
    DecisionData, Instant, Numstat, RepoStatus, ScannedCommit, Session, SessionData, SessionParams,
    SessionRepo, SessionWorld, TIME_RANGE, TimeError,
};
pub use jsonl::{SessionsError, SessionsWarning};
pub use scan::{ScanCounters, ScanRange, email_sha};

use crate::KeelDatabase;
use crate::paths::real_path;
use crate::refusal::{Refusal, RefusalCode};
use crate::settings::{SETTINGS_FILE, Settings};
use salsa::Setter;
use scan::RepoCache;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Repositories named explicitly, and where they were named (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplicitRepos {
    /// `--repo` or `keel.toml [sessions] repos`.
    pub origin: String,
    pub paths: Vec<PathBuf>,
}

/// Where the sessions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionInput {
    /// A `sessions.jsonl` file, as given (messages show it so); re-read on change.
    File(PathBuf),
    /// Sessions read elsewhere (agent logs), and what to call their source in messages.
    Records {
        origin: String,
        sessions: Vec<SessionData>,
    },
}

impl From<PathBuf> for SessionInput {
    fn from(path: PathBuf) -> Self {
        Self::File(path)
    }
}

impl SessionInput {
    /// How messages name the source.
    fn origin(&self) -> String {
        match self {
            Self::File(path) => path.display().to_string(),
            Self::Records { origin, .. } => origin.clone(),
        }
    }
}

/// Where a `keel sessions` run reads from, and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSources {
    pub sessions: SessionInput,
    /// The decisions file, if any.
    pub decisions: Option<PathBuf>,
    pub now: Instant,
    pub days: u32,
    /// `None`: the repositories are the in-scope sessions' own.
    pub repos: Option<ExplicitRepos>,
    /// `[trailers]` of `keel.toml`.
    pub trailers: BTreeMap<String, String>,
}

/// Which repositories to scan and from when, as `keel-queries` plans it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScanPlan {
    /// The scan start (`None`: no session in scope, nothing to scan).
    pub since: Option<Instant>,
    pub repos: Vec<PlannedRepo>,
}

/// One repository to scan.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlannedRepo {
    /// Its real path.
    pub path: PathBuf,
    /// Where it was named (`sessions.jsonl:3`, `--repo`), for warnings.
    pub origin: String,
}

/// The engine's session state, shared by the database's clones.
#[derive(Clone, Default)]
pub(crate) struct SessionState(Arc<Mutex<Option<Loaded>>>);

impl SessionState {
    fn lock(&self) -> MutexGuard<'_, Option<Loaded>> {
        // Every update below replaces whole values, so a poisoned lock is still consistent.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

struct Loaded {
    sources: SessionSources,
    world: SessionWorld,
    by_id: HashMap<String, Session>,
    file_warnings: Vec<SessionsWarning>,
    decision_warnings: Vec<SessionsWarning>,
    scan_warnings: Vec<SessionsWarning>,
    plan: Option<ScanPlan>,
    repos: HashMap<PathBuf, (SessionRepo, RepoCache)>,
    counters: ScanCounters,
}

/// The folder a sessions file's relative `repo`s are read from: the file's own.
fn repo_base(sessions_file: &Path) -> &Path {
    sessions_file.parent().unwrap_or(Path::new(""))
}

/// One warning per session whose relative `repo` names no existing path, with the path it
/// resolved to.
fn missing_relative_repos(sessions_file: &Path, sessions: &[SessionData]) -> Vec<SessionsWarning> {
    sessions
        .iter()
        .filter_map(|session| {
            let written = session.repo.as_deref()?;
            let real = session.repo_real.as_ref()?;
            (Path::new(written).is_relative() && !real.exists()).then(|| SessionsWarning {
                location: session.origin.clone(),
                message: format!(
                    "repo {written:?} is read from the folder of {} and names {}, which does not exist; the session matches no repository",
                    sessions_file.display(),
                    real.display()
                ),
                missing_repo: Some(real.clone()),
            })
        })
        .collect()
}

fn read_file(path: &Path, flag: &str) -> Result<Vec<u8>, SessionsError> {
    std::fs::read(path).map_err(|err| {
        Refusal::new(
            RefusalCode::Sessions,
            path.display().to_string(),
            Some("file"),
            format!("cannot read it: {err}"),
            format!("pass an existing, readable file with {flag}"),
        )
    })
}

fn read_sessions(
    input: &SessionInput,
) -> Result<(Vec<SessionData>, Vec<SessionsWarning>), SessionsError> {
    match input {
        SessionInput::File(path) => {
            let bytes = read_file(path, "--sessions")?;
            let base = repo_base(path);
            let resolve = |repo: &str| real_path(&base.join(repo));
            let (sessions, mut warnings) =
                jsonl::parse_sessions(&path.display().to_string(), &bytes, &resolve)?;
            warnings.extend(missing_relative_repos(path, &sessions));
            Ok((sessions, warnings))
        }
        SessionInput::Records { sessions, .. } => Ok((sessions.clone(), Vec::new())),
    }
}

fn read_decisions(
    path: Option<&Path>,
) -> Result<(Vec<DecisionData>, Vec<SessionsWarning>), SessionsError> {
    match path {
        Some(path) => {
            let bytes = read_file(path, "--decisions")?;
            jsonl::parse_decisions(&path.display().to_string(), &bytes)
        }
        None => Ok((Vec::new(), Vec::new())),
    }
}

/// The explicit repositories as real paths, refusing one that cannot be read.
fn resolve_explicit(repos: &ExplicitRepos) -> Result<Vec<PathBuf>, SessionsError> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in &repos.paths {
        let real = std::fs::canonicalize(path).map_err(|err| {
            Refusal::new(
                RefusalCode::Sessions,
                repos.origin.clone(),
                Some("repo"),
                format!("{}: cannot read it: {err}", path.display()),
                "name an existing repository folder (its work tree root)",
            )
        })?;
        if !real.is_dir() {
            return Err(Refusal::new(
                RefusalCode::Sessions,
                repos.origin.clone(),
                Some("repo"),
                format!("{}: is a file, not a folder", path.display()),
                "name the repository's folder (its work tree root), not a file in it",
            ));
        }
        std::fs::read_dir(&real).map_err(|err| {
            Refusal::new(
                RefusalCode::Sessions,
                repos.origin.clone(),
                Some("repo"),
                format!("{}: cannot list it: {err}", path.display()),
                "name a readable repository folder (its work tree root)",
            )
        })?;
        if !out.contains(&real) {
            out.push(real);
        }
    }
    Ok(out)
}

/// The settings that apply to a run started in `dir`: the `keel.toml` at the root of the
/// git work tree holding `dir` (defaults when there is none). Returns the root too, so
/// relative `[sessions] repos` can be resolved against it.
pub fn settings_near(dir: &Path) -> Result<(Option<PathBuf>, Settings), SessionsError> {
    let Some(root) = gix::discover(dir)
        .ok()
        .and_then(|repo| repo.workdir().map(Path::to_owned))
    else {
        return Ok((None, Settings::default()));
    };
    let path = root.join(SETTINGS_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok((Some(root), Settings::default()));
        }
        Err(err) => {
            return Err(Refusal::new(
                RefusalCode::Settings,
                SETTINGS_FILE,
                Some("file"),
                format!("cannot read it: {err}"),
                "make the file readable",
            ));
        }
    };
    let text = String::from_utf8(bytes).map_err(|err| {
        Refusal::new(
            RefusalCode::Settings,
            SETTINGS_FILE,
            Some("file"),
            format!(
                "not UTF-8 (invalid byte at offset {})",
                err.utf8_error().valid_up_to()
            ),
            "save the file as UTF-8",
        )
    })?;
    let settings = Settings::parse(&text).map_err(|err| {
        Refusal::new(
            RefusalCode::Settings,
            format!("{SETTINGS_FILE}:{}", err.line),
            Some("settings"),
            err.message,
            err.repair,
        )
    })?;
    Ok((Some(root), settings))
}

/// Why `path` (an existing real path) is not scanned: not a git top-level, naming the
/// work tree it sits in when it is inside one.
fn not_top_level(path: &Path) -> String {
    let enclosing = gix::discover(path).ok().and_then(|repo| {
        repo.workdir()
            .and_then(|dir| std::fs::canonicalize(dir).ok())
    });
    match enclosing {
        Some(root) => format!(
            "a folder inside the repository {}, not a git top-level (name that folder instead)",
            root.display()
        ),
        None => "not a git top-level (a work tree root or a bare repository)".to_owned(),
    }
}

impl KeelDatabase {
    /// Reads the sessions and decisions files into a fresh [`SessionWorld`]. Refuses bad
    /// input (nothing is set then); missing optional fields become warnings.
    pub(crate) fn load_sessions(
        &mut self,
        sources: SessionSources,
    ) -> Result<SessionWorld, SessionsError> {
        let explicit_repos = sources.repos.as_ref().map(resolve_explicit).transpose()?;
        let (data, file_warnings) = read_sessions(&sources.sessions)?;
        let (decisions, decision_warnings) = read_decisions(sources.decisions.as_deref())?;
        let params = SessionParams {
            now: sources.now,
            days: sources.days,
            explicit_repos,
            repos_origin: sources
                .repos
                .as_ref()
                .map(|r| r.origin.clone())
                .unwrap_or_default(),
            sessions_file: sources.sessions.origin(),
            trailers: sources.trailers.clone(),
        };
        let mut by_id = HashMap::new();
        let sessions: Vec<Session> = data
            .into_iter()
            .map(|data| {
                let id = data.session_id.clone();
                let session = Session::new(&*self, data);
                by_id.insert(id, session);
                session
            })
            .collect();
        let world = SessionWorld::new(&*self, params, sessions, decisions, Vec::new());
        *self.sessions.lock() = Some(Loaded {
            sources,
            world,
            by_id,
            file_warnings,
            decision_warnings,
            scan_warnings: Vec::new(),
            plan: None,
            repos: HashMap::new(),
            counters: ScanCounters::default(),
        });
        Ok(world)
    }

    /// The loaded session world, if a [`crate::ChangeEvent::SessionsFrom`] loaded one.
    pub fn session_world(&self) -> Option<SessionWorld> {
        self.sessions.lock().as_ref().map(|loaded| loaded.world)
    }

    /// Warnings of the last reads: missing optional fields, relative `repo`s naming
    /// nothing, decisions read by assumption, repositories that gave no commits.
    pub fn session_warnings(&self) -> Vec<SessionsWarning> {
        self.sessions
            .lock()
            .as_ref()
            .map_or_else(Vec::new, |loaded| {
                loaded
                    .file_warnings
                    .iter()
                    .chain(&loaded.decision_warnings)
                    .chain(&loaded.scan_warnings)
                    .cloned()
                    .collect()
            })
    }

    /// Scan work done since the sessions were loaded.
    pub fn scan_counters(&self) -> ScanCounters {
        self.sessions
            .lock()
            .as_ref()
            .map_or_else(ScanCounters::default, |loaded| loaded.counters)
    }

    /// Sets the scan plan and scans when it differs from the last one. Returns whether it
    /// scanned.
    pub(crate) fn plan_session_scan(&mut self, plan: ScanPlan) -> Result<bool, SessionsError> {
        {
            let mut state = self.sessions.lock();
            let Some(loaded) = state.as_mut() else {
                return Ok(false);
            };
            if loaded.plan.as_ref() == Some(&plan) {
                return Ok(false);
            }
            loaded.plan = Some(plan);
        }
        self.sync_session_repos()?;
        Ok(true)
    }

    /// Re-reads the sessions file; sets only the sessions that changed. Returns whether
    /// anything did.
    pub(crate) fn sync_sessions(&mut self) -> Result<bool, SessionsError> {
        let Some(path) = self
            .sessions
            .lock()
            .as_ref()
            .map(|l| l.sources.sessions.clone())
        else {
            return Ok(false);
        };
        let (data, warnings) = read_sessions(&path)?;
        let state = self.sessions.clone();
        let mut guard = state.lock();
        let Some(loaded) = guard.as_mut() else {
            return Ok(false);
        };
        loaded.file_warnings = warnings;
        let mut sessions = Vec::with_capacity(data.len());
        for data in data {
            let session = match loaded.by_id.get(&data.session_id) {
                Some(&known) => {
                    if known.data(&*self) != &data {
                        known.set_data(self).to(data);
                    }
                    known
                }
                None => {
                    let id = data.session_id.clone();
                    let session = Session::new(&*self, data);
                    loaded.by_id.insert(id, session);
                    session
                }
            };
            sessions.push(session);
        }
        let world = loaded.world;
        if world.sessions(&*self) == &sessions {
            return Ok(false);
        }
        world.set_sessions(self).to(sessions);
        Ok(true)
    }

    /// Re-reads the decisions file; sets the input only if it changed.
    pub(crate) fn sync_decisions(&mut self) -> Result<bool, SessionsError> {
        let Some((path, world)) = self
            .sessions
            .lock()
            .as_ref()
            .map(|l| (l.sources.decisions.clone(), l.world))
        else {
            return Ok(false);
        };
        let (decisions, warnings) = read_decisions(path.as_deref())?;
        if let Some(loaded) = self.sessions.lock().as_mut() {
            loaded.decision_warnings = warnings;
        }
        if world.decisions(&*self) == &decisions {
            return Ok(false);
        }
        world.set_decisions(self).to(decisions);
        Ok(true)
    }

    /// Re-scans the planned repositories (refs may have moved); sets only what changed.
    pub(crate) fn sync_session_repos(&mut self) -> Result<bool, SessionsError> {
        let state = self.sessions.clone();
        let mut guard = state.lock();
        let Some(loaded) = guard.as_mut() else {
            return Ok(false);
        };
        let Some(plan) = loaded.plan.clone() else {
            return Ok(false);
        };
        let range = plan.since.map(|since| ScanRange {
            since,
            now: loaded.world.params(&*self).now,
        });
        let mut scans = Vec::with_capacity(plan.repos.len());
        let mut warnings = Vec::new();
        for planned in &plan.repos {
            let entry = loaded.repos.remove(&planned.path);
            let (existing, mut cache) = match entry {
                Some((input, cache)) => (Some(input), cache),
                None => (None, RepoCache::default()),
            };
            let scanned =
                scan::scan_repo(self, &planned.path, range, &mut cache, &mut loaded.counters)
                    .map_err(|err| {
                        Refusal::new(
                            RefusalCode::Sessions,
                            planned.path.display().to_string(),
                            Some("repo"),
                            format!("cannot read the repository: {err}"),
                            "check the path and its permissions, or run `git fsck` there",
                        )
                    })?;
            let named_missing = loaded
                .file_warnings
                .iter()
                .any(|w| w.missing_repo.as_ref() == Some(&planned.path));
            let problem = match scanned.status {
                RepoStatus::Scanned => None,
                RepoStatus::Missing if named_missing => None,
                RepoStatus::Missing => Some("no such folder".to_owned()),
                RepoStatus::NotARepository => Some(not_top_level(&planned.path)),
            };
            if let Some(problem) = problem {
                warnings.push(SessionsWarning::new(
                    planned.origin.clone(),
                    format!(
                        "repo {}: {problem}; it contributes no commits",
                        planned.path.display()
                    ),
                ));
            }
            scans.push((planned.path.clone(), existing, cache, scanned));
        }
        let mut labels: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for planned in &plan.repos {
            if let Some(name) = planned.path.file_name() {
                labels
                    .entry(name.to_string_lossy().into_owned())
                    .or_default()
                    .push(planned.path.display().to_string());
            }
        }
        for (label, paths) in labels.into_iter().filter(|(_, p)| p.len() > 1) {
            warnings.push(SessionsWarning::new(
                plan.repos[0].origin.clone(),
                format!(
                    "repos {} share the label {label:?}; their numbers are grouped together",
                    paths.join(" and ")
                ),
            ));
        }
        loaded.scan_warnings = warnings;
        let mut repos = Vec::with_capacity(scans.len());
        let mut changed = false;
        for (path, existing, cache, scanned) in scans {
            let input = match existing {
                Some(input) => {
                    if input.status(&*self) != scanned.status {
                        input.set_status(self).to(scanned.status);
                        changed = true;
                    }
                    if input.local_emails(&*self) != &scanned.local_emails {
                        input.set_local_emails(self).to(scanned.local_emails);
                        changed = true;
                    }
                    if input.commits(&*self) != &scanned.commits {
                        input.set_commits(self).to(scanned.commits);
                        changed = true;
                    }
                    if input.default_branch(&*self) != &scanned.default_branch {
                        input.set_default_branch(self).to(scanned.default_branch);
                        changed = true;
                    }
                    if input.on_default_branch(&*self) != &scanned.on_default_branch {
                        input
                            .set_on_default_branch(self)
                            .to(scanned.on_default_branch);
                        changed = true;
                    }
                    input
                }
                None => SessionRepo::new(
                    &*self,
                    path.clone(),
                    scanned.status,
                    scanned.local_emails,
                    scanned.commits,
                    scanned.default_branch,
                    scanned.on_default_branch,
                ),
            };
            loaded.repos.insert(path, (input, cache));
            repos.push(input);
        }
        let world = loaded.world;
        if world.repos(&*self) == &repos {
            return Ok(changed);
        }
        world.set_repos(self).to(repos);
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
