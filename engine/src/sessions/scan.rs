//! L-scan: one repository's commits in the scan range, read through gix.
//!
//! Owns: what `git log --all --no-merges --numstat --since=<start − SCAN_MARGIN>` walks —
//! every ref and HEAD, newest committer date first, a commit older than the margin ending
//! its path as git's `--since` does — then the exact filter `start ≤ author date ≤ now`;
//! per kept commit its author date, author email as sha256[:12], message and numstat
//! (computed once per commit id, in parallel on a cold scan); the default branch and which
//! scanned commits it reaches; the repository's `user.email` values (hashed). A repository's
//! already-read commits are kept in a [`RepoCache`] and never read again.
//! Does not own: deciding the range or the repositories (`keel-queries` plans the scan) or
//! any rule over the commits.

use super::inputs::{Instant, Numstat, RepoStatus, ScannedCommit};
use super::numstat::NumstatCounter;
use crate::oid::Oid;
use gix::ObjectId;
use salsa::Durability;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The seed's `SCAN_MARGIN`: extra committer-date slack before the scan start, because
/// the walk filters on committer date while the rules use author date.
pub const SCAN_MARGIN_MINUTES: i64 = 24 * 60;

/// The seed's `DEFAULT_BRANCHES`, in order; `HEAD` when none exists.
pub const DEFAULT_BRANCHES: [&str; 3] = [
    "refs/remotes/origin/HEAD",
    "refs/heads/main",
    "refs/heads/master",
];

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The range one scan covers (author date, inclusive at both ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScanRange {
    pub since: Instant,
    pub now: Instant,
}

impl ScanRange {
    /// The committer-date bound of the walk: `since − SCAN_MARGIN`.
    pub fn walk_cutoff(&self) -> Instant {
        self.since.plus_minutes(-SCAN_MARGIN_MINUTES)
    }
}

/// What the walk learnt of one commit object.
struct Node {
    parents: Vec<ObjectId>,
    tree: ObjectId,
    committer: Instant,
    author: Instant,
}

/// The fields a new scanned commit needs besides its numstat.
struct Details {
    email_sha: String,
    message: String,
}

/// Everything already read from one repository, kept across scans.
#[derive(Default)]
pub(crate) struct RepoCache {
    nodes: HashMap<ObjectId, Node>,
    scanned: HashMap<ObjectId, ScannedCommit>,
}

/// Work counters, for incrementality tests and `--stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanCounters {
    /// Commit objects read.
    pub commits_read: usize,
    /// Commits whose numstat was computed.
    pub numstats: usize,
}

/// One repository's scan result.
pub(crate) struct RepoScan {
    pub(crate) status: RepoStatus,
    pub(crate) local_emails: Vec<String>,
    pub(crate) commits: Vec<ScannedCommit>,
    pub(crate) default_branch: Option<String>,
    pub(crate) on_default_branch: Vec<Oid>,
}

impl RepoScan {
    fn empty(status: RepoStatus) -> Self {
        Self {
            status,
            local_emails: Vec::new(),
            commits: Vec::new(),
            default_branch: None,
            on_default_branch: Vec::new(),
        }
    }
}

/// sha256 of the trimmed, lower-cased email, first 12 hex digits.
pub fn email_sha(email: &str) -> String {
    let digest: [u8; 32] = Sha256::digest(email.trim().to_lowercase().as_bytes()).into();
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// Opens `path` if it is a git top-level (a work tree root or a bare repository).
fn open_top_level(path: &Path) -> Option<gix::Repository> {
    let repo = gix::open(path).ok()?;
    let top = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let same = std::fs::canonicalize(top).is_ok_and(|top| top == path);
    same.then_some(repo)
}

/// Scans the repository at `path` (a real path) over `range`, creating inputs for commits
/// not seen before.
pub(crate) fn scan_repo(
    db: &crate::KeelDatabase,
    path: &Path,
    range: Option<ScanRange>,
    cache: &mut RepoCache,
    counters: &mut ScanCounters,
) -> Result<RepoScan, BoxError> {
    if !path.exists() {
        return Ok(RepoScan::empty(RepoStatus::Missing));
    }
    let Some(mut repo) = open_top_level(path) else {
        return Ok(RepoScan::empty(RepoStatus::NotARepository));
    };
    repo.object_cache_size_if_unset(64 << 20);
    let mut local_emails: Vec<String> = repo
        .config_snapshot()
        .plumbing()
        .strings("user.email")
        .unwrap_or_default()
        .iter()
        .map(|email| email_sha(&String::from_utf8_lossy(email)))
        .collect();
    local_emails.sort();
    local_emails.dedup();
    let (default_branch, default_tip) = default_branch(&repo)?;
    let Some(range) = range else {
        return Ok(RepoScan {
            local_emails,
            default_branch,
            ..RepoScan::empty(RepoStatus::Scanned)
        });
    };
    let shallow: HashSet<ObjectId> = repo
        .shallow_commits()?
        .map(|commits| commits.iter().copied().collect())
        .unwrap_or_default();
    let tips = tips(&repo)?;
    let mut details: HashMap<ObjectId, Details> = HashMap::new();
    let visited = walk(&repo, &tips, range, &shallow, cache, &mut details, counters)?;
    let mut kept: Vec<ObjectId> = visited
        .iter()
        .copied()
        .filter(|id| {
            cache.nodes.get(id).is_some_and(|node| {
                node.parents.len() <= 1 && range.since <= node.author && node.author <= range.now
            })
        })
        .collect();
    kept.sort();
    let fresh: Vec<ObjectId> = kept
        .iter()
        .copied()
        .filter(|id| !cache.scanned.contains_key(id))
        .collect();
    let stats = numstats(&repo, &fresh, cache)?;
    counters.numstats += stats.len();
    for (id, numstat) in stats {
        let node = cache
            .nodes
            .get(&id)
            .ok_or_else(|| format!("commit {id} was walked but not kept"))?;
        let Details { email_sha, message } = match details.remove(&id) {
            Some(found) => found,
            None => {
                counters.commits_read += 1;
                read_details(&repo, id)?
            }
        };
        let input = ScannedCommit::builder(Oid(id), node.author, email_sha, message, numstat)
            .durability(Durability::HIGH)
            .new(db);
        cache.scanned.insert(id, input);
    }
    let commits = kept
        .iter()
        .filter_map(|id| cache.scanned.get(id).copied())
        .collect();
    let on_default_branch = match default_tip {
        Some(tip) => {
            let reached = reachable(tip, &visited, cache);
            kept.iter()
                .copied()
                .filter(|id| reached.contains(id))
                .map(Oid)
                .collect()
        }
        None => Vec::new(),
    };
    Ok(RepoScan {
        status: RepoStatus::Scanned,
        local_emails,
        commits,
        default_branch,
        on_default_branch,
    })
}

/// Every ref (and HEAD) that peels to a commit: `git log --all`'s starting points.
fn tips(repo: &gix::Repository) -> Result<Vec<ObjectId>, BoxError> {
    let mut tips = Vec::new();
    if let Ok(head) = repo.head_id() {
        tips.push(head.detach());
    }
    for reference in repo.references()?.all()? {
        let Ok(mut reference) = reference else {
            continue;
        };
        let Ok(id) = reference.peel_to_id() else {
            continue;
        };
        let id = id.detach();
        if repo
            .find_header(id)
            .is_ok_and(|h| h.kind() == gix::object::Kind::Commit)
        {
            tips.push(id);
        }
    }
    tips.sort();
    tips.dedup();
    Ok(tips)
}

/// The default branch's name and tip: `origin/HEAD`'s target, else `main`, `master`, else
/// `HEAD`.
fn default_branch(repo: &gix::Repository) -> Result<(Option<String>, Option<ObjectId>), BoxError> {
    for name in DEFAULT_BRANCHES {
        let Some(mut reference) = repo.try_find_reference(name)? else {
            continue;
        };
        let shown = match reference.target() {
            gix::refs::TargetRef::Symbolic(target) => target.as_bstr().to_string(),
            gix::refs::TargetRef::Object(_) => name.to_owned(),
        };
        if let Ok(id) = reference.peel_to_id() {
            return Ok((Some(shown), Some(id.detach())));
        }
    }
    match repo.head_id() {
        Ok(id) => Ok((Some("HEAD".to_owned()), Some(id.detach()))),
        Err(_) => Ok((None, None)),
    }
}

/// Reads what the walk needs of a commit.
fn read_node(
    repo: &gix::Repository,
    id: ObjectId,
    shallow: &HashSet<ObjectId>,
    range: ScanRange,
    details: &mut HashMap<ObjectId, Details>,
) -> Result<Node, BoxError> {
    let commit = repo.find_commit(id)?;
    let decoded = commit.decode()?;
    let parents: Vec<ObjectId> = if shallow.contains(&id) {
        Vec::new()
    } else {
        decoded.parents().collect()
    };
    let author_signature = decoded.author()?;
    let author = Instant::from_secs(author_signature.seconds());
    let committer = Instant::from_secs(decoded.committer()?.seconds());
    if parents.len() <= 1 && range.since <= author && author <= range.now {
        details.insert(
            id,
            Details {
                email_sha: email_sha(&String::from_utf8_lossy(author_signature.email)),
                message: String::from_utf8_lossy(decoded.message).into_owned(),
            },
        );
    }
    Ok(Node {
        parents,
        tree: decoded.tree(),
        committer,
        author,
    })
}

fn read_details(repo: &gix::Repository, id: ObjectId) -> Result<Details, BoxError> {
    let commit = repo.find_commit(id)?;
    let decoded = commit.decode()?;
    Ok(Details {
        email_sha: email_sha(&String::from_utf8_lossy(decoded.author()?.email)),
        message: String::from_utf8_lossy(decoded.message).into_owned(),
    })
}

/// The commits `git log --all --since=<cutoff>` visits: reachable from a tip through
/// commits whose committer date is at or after the cutoff. Merges are visited (their
/// parents matter) and filtered later.
fn walk(
    repo: &gix::Repository,
    tips: &[ObjectId],
    range: ScanRange,
    shallow: &HashSet<ObjectId>,
    cache: &mut RepoCache,
    details: &mut HashMap<ObjectId, Details>,
    counters: &mut ScanCounters,
) -> Result<HashSet<ObjectId>, BoxError> {
    let cutoff = range.walk_cutoff();
    let mut seen: HashSet<ObjectId> = tips.iter().copied().collect();
    let mut stack: Vec<ObjectId> = tips.to_vec();
    let mut visited = HashSet::new();
    while let Some(id) = stack.pop() {
        let node = match cache.nodes.entry(id) {
            std::collections::hash_map::Entry::Occupied(known) => known.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                counters.commits_read += 1;
                slot.insert(read_node(repo, id, shallow, range, details)?)
            }
        };
        if node.committer < cutoff {
            continue;
        }
        visited.insert(id);
        for &parent in &node.parents {
            if seen.insert(parent) {
                stack.push(parent);
            }
        }
    }
    Ok(visited)
}

/// The visited commits reachable from `tip` through visited commits.
fn reachable(tip: ObjectId, visited: &HashSet<ObjectId>, cache: &RepoCache) -> HashSet<ObjectId> {
    let mut reached = HashSet::new();
    let mut stack = vec![tip];
    while let Some(id) = stack.pop() {
        if !visited.contains(&id) || !reached.insert(id) {
            continue;
        }
        if let Some(node) = cache.nodes.get(&id) {
            stack.extend(node.parents.iter().copied());
        }
    }
    reached
}

/// The tree of the first parent of `node`, reading the parent when the walk did not.
fn parent_tree(
    repo: &gix::Repository,
    node: &Node,
    cache: &RepoCache,
) -> Result<Option<ObjectId>, BoxError> {
    let Some(parent) = node.parents.first() else {
        return Ok(None);
    };
    if let Some(known) = cache.nodes.get(parent) {
        return Ok(Some(known.tree));
    }
    Ok(Some(repo.find_commit(*parent)?.tree_id()?.detach()))
}

/// The numstat of each commit in `ids`, split over the machine's cores.
fn numstats(
    repo: &gix::Repository,
    ids: &[ObjectId],
    cache: &RepoCache,
) -> Result<Vec<(ObjectId, Numstat)>, BoxError> {
    let mut jobs = Vec::with_capacity(ids.len());
    for id in ids {
        let node = cache
            .nodes
            .get(id)
            .ok_or_else(|| format!("commit {id} was kept but not walked"))?;
        jobs.push((
            node.committer,
            *id,
            parent_tree(repo, node, cache)?,
            node.tree,
        ));
    }
    // History order keeps a commit next to its parent, so the blobs one commit adds are
    // still in the object cache when the next one diffs them; each worker takes one
    // contiguous stretch.
    jobs.sort_unstable_by_key(|&(time, id, _, _)| (time, id));
    let jobs: Vec<(ObjectId, Option<ObjectId>, ObjectId)> = jobs
        .into_iter()
        .map(|(_, id, parent, tree)| (id, parent, tree))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(8);
    if threads <= 1 || jobs.len() < 64 {
        let mut counter = NumstatCounter::new(repo)?;
        return jobs
            .iter()
            .map(|&(id, parent, tree)| Ok((id, counter.count(parent, tree)?)))
            .collect();
    }
    let shared = repo.clone().into_sync();
    let results: Vec<Result<Vec<(ObjectId, Numstat)>, BoxError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .chunks(jobs.len().div_ceil(threads))
            .map(|stretch| {
                let shared = &shared;
                scope.spawn(move || -> Result<Vec<(ObjectId, Numstat)>, BoxError> {
                    let mut repo = shared.to_thread_local();
                    repo.object_cache_size_if_unset(64 << 20);
                    let mut counter = NumstatCounter::new(&repo)?;
                    stretch
                        .iter()
                        .map(|&(id, parent, tree)| Ok((id, counter.count(parent, tree)?)))
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|_| Err("a numstat worker panicked".into()))
            })
            .collect()
    });
    let mut all = Vec::with_capacity(jobs.len());
    for part in results {
        all.extend(part?);
    }
    Ok(all)
}
