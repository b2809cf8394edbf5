//! Records and the summary: L-subject, L-decided, L-revert, L-split and L-cost.
//!
//! Owns: the subject of a record, the latest decision per subject, reverts per repository,
//! one record per (session, repository) memoized on its own (so a decision re-runs only
//! the record of its subject), and the report `keel.sessions.v1` with its summary.
//! Does not own: who got which commit (`links`) or rendering (`keel`).

use super::exact::Exact;
use super::links::{
    LinkKind, TrailerError, assigned, in_scope_sessions, linked_pairs, repo_label, trailer_table,
};
use super::rules::{LINK_OPTIONS, MIN_P, OUTSIDE_P};
use keel_engine::Db;
use keel_engine::oid::Oid;
use keel_engine::sessions::{Instant, Session, SessionRepo, SessionWorld};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The schema name of the JSON report.
pub const SCHEMA: &str = "keel.sessions.v1";

/// L-subject: `<session_id>:<sha256(",".join(sorted shas))[:8]>`.
pub fn subject_of(session_id: &str, sorted_shas: &[String]) -> String {
    let digest: [u8; 32] = Sha256::digest(sorted_shas.join(",").as_bytes()).into();
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{session_id}:{hex}")
}

/// A decision subject, interned so per-subject queries can be keyed by it.
#[salsa::interned(debug)]
pub struct Subject<'db> {
    #[returns(ref)]
    pub text: String,
}

/// The latest `commit_link` decision per subject: latest `ts` as an instant, a later line
/// winning an exact tie; its `yes` probability (missing → 0) as a decimal.
#[salsa::tracked(returns(ref))]
pub fn decision_index(db: &dyn Db, world: SessionWorld) -> HashMap<String, String> {
    let mut latest: HashMap<String, (Instant, usize, String)> = HashMap::new();
    for decision in world.decisions(db) {
        let p = decision
            .yes
            .as_ref()
            .map_or_else(|| "0".to_owned(), |p| p.as_str().to_owned());
        let key = (decision.ts, decision.line);
        match latest.get(&decision.subject) {
            Some((ts, line, _)) if (*ts, *line) > key => {}
            _ => {
                latest.insert(decision.subject.clone(), (decision.ts, decision.line, p));
            }
        }
    }
    latest
        .into_iter()
        .map(|(subject, (_, _, p))| (subject, p))
        .collect()
}

/// The decided `yes` probability of one subject (a decimal), `None` when undecided.
#[salsa::tracked(returns(clone))]
pub fn link_probability<'db>(
    db: &'db dyn Db,
    world: SessionWorld,
    subject: Subject<'db>,
) -> Option<String> {
    decision_index(db, world).get(subject.text(db)).cloned()
}

/// Reverts among one repository's scanned commits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reverts {
    /// Commits whose body names a sha they revert.
    pub revert_commits: HashSet<Oid>,
    /// Commits some scanned commit reverts (with the first such revert).
    pub reverted_by: HashMap<Oid, Oid>,
}

/// L-revert for one repository: X is reverted when a scanned commit names a prefix of X.
#[salsa::tracked(returns(ref))]
pub fn reverts(db: &dyn Db, repo: SessionRepo) -> Reverts {
    let commits = repo.commits(db);
    let mut shas: Vec<(String, Oid)> = commits
        .iter()
        .map(|c| (c.id(db).to_string(), c.id(db)))
        .collect();
    shas.sort();
    let mut out = Reverts::default();
    for &commit in commits {
        let Some(prefix) = super::links::revert_target(db, commit) else {
            continue;
        };
        out.revert_commits.insert(commit.id(db));
        let from = shas.partition_point(|(sha, _)| sha.as_str() < prefix.as_str());
        for (sha, id) in &shas[from..] {
            if !sha.starts_with(&prefix) {
                break;
            }
            out.reverted_by.entry(*id).or_insert(commit.id(db));
        }
    }
    out
}

/// One record before money: everything that does not need the session's other records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordDraft {
    pub session: Session,
    pub repo: SessionRepo,
    pub link: LinkKind,
    /// `None`: pending; `Some(p)`: linked with `link_p` = p (a decimal).
    pub link_p: Option<String>,
    pub subject: String,
    pub commits: Vec<String>,
    pub added: u64,
    pub deleted: u64,
    pub commits_kept: u64,
    pub commits_reverted: u64,
    /// Lines added by the kept commits (L-cost's `lines_added` share).
    pub kept_added: u64,
}

/// The record of one (session, repository) pair: `None` when unlinked or dropped by a
/// decision below `MIN_P`.
#[salsa::tracked(returns(clone))]
pub fn session_record(
    db: &dyn Db,
    world: SessionWorld,
    session: Session,
    repo: SessionRepo,
) -> Option<RecordDraft> {
    let link = assigned(db, world, session, repo)?;
    let commits: Vec<String> = link.commits.iter().map(|c| c.id(db).to_string()).collect();
    let subject = subject_of(&session.data(db).session_id, &commits);
    let link_p = match link.kind {
        LinkKind::Trailer => Some("1".to_owned()),
        LinkKind::TrailerOutside => Some(OUTSIDE_P.to_owned()),
        LinkKind::Window => match link_probability(db, world, Subject::new(db, subject.clone())) {
            None => None,
            Some(p) if Exact::decimal(&p) >= Exact::decimal(MIN_P) => Some(p),
            Some(_) => return None,
        },
    };
    let reverts = reverts(db, repo);
    let mut draft = RecordDraft {
        session,
        repo,
        link: link.kind,
        link_p,
        subject,
        commits,
        added: 0,
        deleted: 0,
        commits_kept: 0,
        commits_reverted: 0,
        kept_added: 0,
    };
    for commit in &link.commits {
        let id = commit.id(db);
        if reverts.revert_commits.contains(&id) {
            continue;
        }
        let stat = commit.numstat(db);
        draft.added += stat.added;
        draft.deleted += stat.deleted;
        if reverts.reverted_by.contains_key(&id) {
            draft.commits_reverted += 1;
        } else {
            draft.commits_kept += 1;
            draft.kept_added += stat.added;
        }
    }
    Some(draft)
}

/// One record of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub session_id: String,
    pub harness: String,
    pub repo_label: String,
    pub link: &'static str,
    pub link_p: Option<f64>,
    pub commits: Vec<String>,
    pub added: u64,
    pub deleted: u64,
    pub commits_kept: u64,
    pub commits_reverted: u64,
    /// `None` (null) when the session's cost is unknown.
    pub cost: Option<f64>,
    /// What the record's commits changed among the units its repository's specs pin
    /// (`keel touched` over them as a set, at the repository's HEAD); absent for a
    /// pending record, or when the projection was not made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub touched: Option<SessionTouched>,
    /// The repository's real path (where the projection reads specs and history).
    #[serde(skip)]
    pub repo_path: std::path::PathBuf,
}

/// A record's projection, counted: the spec nodes its commits touched, the units
/// (selectors, and bare entries) among them, and the nodes whose spec the same commits
/// updated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionTouched {
    pub nodes: usize,
    pub units: usize,
    pub spec_updated: usize,
    /// Commits or nodes the projection could not read (never counted as untouched).
    pub unavailable: usize,
    /// Each touched node and whether its spec was updated, by id.
    pub by_node: Vec<NodeTouched>,
}

/// One node a session touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeTouched {
    pub node: String,
    pub spec_updated: bool,
}

impl SessionTouched {
    /// The counts of one projection.
    pub fn of(report: &crate::touched::TouchedReport) -> Self {
        let by_node: Vec<NodeTouched> = report
            .nodes
            .iter()
            .map(|node| NodeTouched {
                node: node.node.clone(),
                spec_updated: node.spec_updated,
            })
            .collect();
        Self {
            nodes: by_node.len(),
            units: report.units(),
            spec_updated: by_node.iter().filter(|node| node.spec_updated).count(),
            unavailable: report.unavailable.len(),
            by_node,
        }
    }
}

impl SessionsReport {
    /// Gives each record its projection (`touched`, aligned with `records`; `None` where
    /// none was made) and adds them up per repository and per harness.
    pub fn with_touched(&mut self, touched: Vec<Option<SessionTouched>>) {
        for (record, touched) in self.records.iter_mut().zip(touched) {
            let Some(touched) = touched else {
                continue;
            };
            let groups = [
                self.summary.by_repo.get_mut(&record.repo_label),
                self.summary.by_harness.get_mut(&record.harness),
            ];
            for group in groups.into_iter().flatten() {
                group.specs_touched += touched.nodes as u64;
                group.specs_touched_without_update += (touched.nodes - touched.spec_updated) as u64;
            }
            record.touched = Some(touched);
        }
    }
}

/// One open `commit_link` question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub subject: String,
    pub session_id: String,
    pub repo_label: String,
    pub commits: Vec<String>,
    pub options: Vec<String>,
}

/// The numbers of one group (a repository label or a harness).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// `None` (null) when a session of the group has an unknown cost: an unknown is never
    /// summed as 0.
    pub cost: Option<f64>,
    /// Sessions of the group whose cost is unknown.
    pub unpriced_sessions: u64,
    pub lines_added: u64,
    pub commits_kept: u64,
    pub commits_reverted: u64,
    pub cost_per_kept_commit: Option<f64>,
    pub cost_per_100_lines: Option<f64>,
    pub revert_rate: Option<f64>,
    /// Spec nodes the group's sessions touched (one per session and node).
    pub specs_touched: u64,
    /// Of those, the ones whose spec the same session did not update.
    pub specs_touched_without_update: u64,
}

/// The summary of the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub sessions_total: usize,
    pub linked: usize,
    /// `None` (null) when an unlinked session's cost is unknown.
    pub unlinked_cost: Option<f64>,
    /// In-scope sessions whose cost is unknown.
    pub unpriced_sessions: usize,
    pub by_repo: BTreeMap<String, Group>,
    pub by_harness: BTreeMap<String, Group>,
}

/// The whole answer, serialized as `keel.sessions.v1`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionsReport {
    pub schema: &'static str,
    pub records: Vec<Record>,
    pub pending: Vec<Pending>,
    pub summary: Summary,
}

/// Why a report could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportError {
    /// A `[trailers]` regex of `keel.toml` does not compile.
    Trailer(TrailerError),
}

struct GroupSum {
    cost: Option<Exact>,
    unpriced: HashSet<Session>,
    lines_added: u64,
    kept: u64,
    reverted: u64,
}

impl Default for GroupSum {
    fn default() -> Self {
        Self {
            cost: Some(Exact::zero()),
            unpriced: HashSet::new(),
            lines_added: 0,
            kept: 0,
            reverted: 0,
        }
    }
}

impl GroupSum {
    fn add(&mut self, cost: Option<&Exact>, draft: &RecordDraft) {
        match cost {
            Some(cost) => self.cost = self.cost.as_ref().map(|sum| sum + cost),
            None => {
                self.cost = None;
                self.unpriced.insert(draft.session);
            }
        }
        self.lines_added += draft.kept_added;
        self.kept += draft.commits_kept;
        self.reverted += draft.commits_reverted;
    }

    fn finish(&self) -> Group {
        let hundred = Exact::int(100);
        let cost = self.cost.as_ref();
        Group {
            cost: cost.map(Exact::round6),
            unpriced_sessions: self.unpriced.len() as u64,
            lines_added: self.lines_added,
            commits_kept: self.kept,
            commits_reverted: self.reverted,
            cost_per_kept_commit: cost
                .and_then(|cost| cost.ratio(&Exact::int(self.kept)))
                .map(|x| x.round6()),
            cost_per_100_lines: cost
                .and_then(|cost| (&hundred * cost).ratio(&Exact::int(self.lines_added)))
                .map(|x| x.round6()),
            revert_rate: Exact::int(self.reverted)
                .ratio(&Exact::int(self.kept + self.reverted))
                .map(|x| x.round6()),
            specs_touched: 0,
            specs_touched_without_update: 0,
        }
    }
}

/// The report of the run (L-split and L-cost over every record).
#[salsa::tracked(returns(ref))]
pub fn sessions_report(db: &dyn Db, world: SessionWorld) -> Result<SessionsReport, ReportError> {
    if let Err(err) = trailer_table(db, world) {
        return Err(ReportError::Trailer(err.clone()));
    }
    let drafts: Vec<RecordDraft> = linked_pairs(db, world)
        .iter()
        .filter_map(|&(session, repo)| session_record(db, world, session, repo))
        .collect();
    // L-split: a session's cost is shared by commit count over its linked records; a
    // session with none shares it over its pending records.
    let mut linked_commits: HashMap<Session, u64> = HashMap::new();
    let mut pending_commits: HashMap<Session, u64> = HashMap::new();
    for draft in &drafts {
        let n = draft.commits.len() as u64;
        let bucket = if draft.link_p.is_some() {
            &mut linked_commits
        } else {
            &mut pending_commits
        };
        *bucket.entry(draft.session).or_default() += n;
    }
    let mut records = Vec::with_capacity(drafts.len());
    let mut pending = Vec::new();
    let mut by_repo: BTreeMap<String, GroupSum> = BTreeMap::new();
    let mut by_harness: BTreeMap<String, GroupSum> = BTreeMap::new();
    for draft in &drafts {
        let data = draft.session.data(db);
        let total = data.cost.as_ref().map(Exact::of);
        let n = Exact::int(draft.commits.len() as u64);
        let share = match (&draft.link_p, linked_commits.get(&draft.session)) {
            (Some(_), Some(&all)) => Some(all),
            (Some(_), None) => None,
            (None, Some(_)) => Some(0),
            (None, None) => pending_commits.get(&draft.session).copied(),
        };
        // A session with an unknown cost shares an unknown, except where its share is 0.
        let cost = match share {
            Some(0) | None => Some(Exact::zero()),
            Some(all) => total
                .as_ref()
                .map(|total| (total * &n).ratio(&Exact::int(all)).unwrap_or_default()),
        };
        let label = repo_label(draft.repo.path(db));
        let link = match draft.link {
            LinkKind::Trailer | LinkKind::TrailerOutside => "trailer",
            LinkKind::Window => "window",
        };
        if draft.link_p.is_some() {
            by_repo
                .entry(label.clone())
                .or_default()
                .add(cost.as_ref(), draft);
            by_harness
                .entry(data.harness.clone())
                .or_default()
                .add(cost.as_ref(), draft);
        } else {
            pending.push(Pending {
                subject: draft.subject.clone(),
                session_id: data.session_id.clone(),
                repo_label: label.clone(),
                commits: draft.commits.clone(),
                options: LINK_OPTIONS.iter().map(|&o| o.to_owned()).collect(),
            });
        }
        records.push(Record {
            session_id: data.session_id.clone(),
            harness: data.harness.clone(),
            repo_label: label,
            link,
            link_p: draft.link_p.as_deref().map(|p| Exact::decimal(p).round6()),
            commits: draft.commits.clone(),
            added: draft.added,
            deleted: draft.deleted,
            commits_kept: draft.commits_kept,
            commits_reverted: draft.commits_reverted,
            cost: cost.as_ref().map(Exact::round6),
            touched: None,
            repo_path: draft.repo.path(db).clone(),
        });
    }
    let in_scope = in_scope_sessions(db, world);
    let unlinked_cost: Option<Exact> = in_scope
        .iter()
        .filter(|s| !linked_commits.contains_key(s))
        .map(|s| s.data(db).cost.as_ref().map(Exact::of))
        .sum();
    let unpriced_sessions = in_scope
        .iter()
        .filter(|s| s.data(db).cost.is_none())
        .count();
    Ok(SessionsReport {
        schema: SCHEMA,
        records,
        pending,
        summary: Summary {
            sessions_total: in_scope.len(),
            linked: linked_commits.len(),
            unlinked_cost: unlinked_cost.as_ref().map(Exact::round6),
            unpriced_sessions,
            by_repo: by_repo
                .iter()
                .map(|(k, g)| (k.clone(), g.finish()))
                .collect(),
            by_harness: by_harness
                .iter()
                .map(|(k, g)| (k.clone(), g.finish()))
                .collect(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_hashes_the_sorted_shas_joined_by_commas() {
        // `printf 'a,b' | sha256sum` starts 1eb7c54d.
        assert_eq!(
            subject_of("s1", &["a".to_owned(), "b".to_owned()]),
            "s1:1eb7c54d"
        );
    }
}
