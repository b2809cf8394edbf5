//! Which commits a ref update brings: those reachable from its target that no held commit
//! (a ref's, a reflog entry's) reaches — `git rev-list TARGET --not HELD…`, exactly, at a
//! cost that follows the update rather than the history.
//!
//! Owns: the paint by generation. Commits are taken newest generation first (a child
//! always before its parents), each carrying whether the target and whether a held commit
//! reaches it; the walk ends as soon as no commit still waiting is reached by the target
//! alone. Generations come from git's commit-graph file where it lists a commit, else are
//! counted from the parents (1 + the largest parent's), so a graph written a while ago
//! still serves and a repository with none gets the exact answer by a walk of its history.
//! Does not own: which commits are held (`hook`), nor what the gate does with the answer.

use gix::ObjectId;
use gix::commitgraph::Graph;
use std::collections::{BinaryHeap, HashMap};

/// Reached from the update's target.
const TARGET: u8 = 1;
/// Reached from a held commit.
const HELD: u8 = 2;

/// Why the walk could not read a commit.
#[derive(Debug, thiserror::Error)]
#[error("commit {id}: {reason}")]
pub(crate) struct ReachError {
    pub(crate) id: ObjectId,
    pub(crate) reason: String,
}

/// The commits reachable from `target` that no commit of `held` reaches, newest
/// generation first; empty when a held commit reaches `target`.
pub(crate) fn new_commits(
    repo: &gix::Repository,
    graph: Option<&Graph>,
    target: ObjectId,
    held: impl IntoIterator<Item = ObjectId>,
) -> Result<Vec<ObjectId>, ReachError> {
    let mut paint = Paint {
        commits: Commits::new(repo, graph),
        marks: HashMap::new(),
        queue: BinaryHeap::new(),
        target_only: 0,
    };
    paint.mark(target, TARGET)?;
    for id in held {
        paint.mark(id, HELD)?;
    }
    let mut new = Vec::new();
    while paint.target_only > 0 {
        let Some(Waiting { id, .. }) = paint.queue.pop() else {
            break;
        };
        // Every queued commit was marked when queued.
        let marks = paint.marks.get(&id).copied().unwrap_or_default();
        if marks == TARGET {
            paint.target_only -= 1;
            new.push(id);
        }
        for parent in paint.commits.parents(id)? {
            paint.mark(parent, marks)?;
        }
    }
    Ok(new)
}

/// A commit waiting in the paint, ordered by generation (then id, for a stable order).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Waiting {
    generation: u32,
    id: ObjectId,
}

struct Paint<'r> {
    commits: Commits<'r>,
    /// Every commit seen, with who reaches it.
    marks: HashMap<ObjectId, u8>,
    queue: BinaryHeap<Waiting>,
    /// How many waiting commits only the target reaches so far.
    target_only: usize,
}

impl Paint<'_> {
    /// Adds `marks` to `id`: queues it when first seen, and keeps the count of waiting
    /// target-only commits. A commit is taken only after every commit of a higher
    /// generation, so its marks are final when it is taken.
    fn mark(&mut self, id: ObjectId, marks: u8) -> Result<(), ReachError> {
        match self.marks.get_mut(&id) {
            Some(known) => {
                if *known == TARGET && marks & HELD != 0 {
                    self.target_only -= 1;
                }
                *known |= marks;
            }
            None => {
                let generation = self.commits.generation(id)?;
                self.marks.insert(id, marks);
                if marks == TARGET {
                    self.target_only += 1;
                }
                self.queue.push(Waiting { generation, id });
            }
        }
        Ok(())
    }
}

/// Parents and generations, from the commit-graph where it lists a commit, else from the
/// objects (generations counted once and kept).
struct Commits<'r> {
    repo: &'r gix::Repository,
    graph: Option<&'r Graph>,
    counted: HashMap<ObjectId, u32>,
    /// Parents of commits the graph does not list, decoded once.
    decoded: HashMap<ObjectId, Vec<ObjectId>>,
}

impl<'r> Commits<'r> {
    fn new(repo: &'r gix::Repository, graph: Option<&'r Graph>) -> Self {
        Self {
            repo,
            graph,
            counted: HashMap::new(),
            decoded: HashMap::new(),
        }
    }

    fn parents(&mut self, id: ObjectId) -> Result<Vec<ObjectId>, ReachError> {
        if let Some(graph) = self.graph
            && let Some(commit) = graph.commit_by_id(id)
        {
            return commit
                .iter_parents()
                .map(|parent| {
                    parent
                        .map(|position| graph.id_at(position).to_owned())
                        .map_err(|err| unreadable(id, &err))
                })
                .collect();
        }
        if let Some(parents) = self.decoded.get(&id) {
            return Ok(parents.clone());
        }
        let commit = self
            .repo
            .find_commit(id)
            .map_err(|err| unreadable(id, &err))?;
        let parents: Vec<ObjectId> = commit.parent_ids().map(|parent| parent.detach()).collect();
        self.decoded.insert(id, parents.clone());
        Ok(parents)
    }

    /// The commit's generation: git's where the commit-graph has it, else 1 + its
    /// parents' largest (1 for a root), counted without recursion.
    fn generation(&mut self, id: ObjectId) -> Result<u32, ReachError> {
        let mut stack = vec![id];
        while let Some(&top) = stack.last() {
            if self.known_generation(top).is_some() {
                stack.pop();
                continue;
            }
            let parents = self.parents(top)?;
            let missing: Vec<ObjectId> = parents
                .iter()
                .copied()
                .filter(|parent| self.known_generation(*parent).is_none())
                .collect();
            if missing.is_empty() {
                let highest = parents
                    .iter()
                    .filter_map(|parent| self.known_generation(*parent))
                    .max()
                    .unwrap_or(0);
                self.counted.insert(top, highest + 1);
                stack.pop();
            } else {
                stack.extend(missing);
            }
        }
        // The loop above ends only once `id` has a generation.
        Ok(self.known_generation(id).unwrap_or(u32::MAX))
    }

    fn known_generation(&self, id: ObjectId) -> Option<u32> {
        self.graph
            .and_then(|graph| graph.commit_by_id(id))
            .map(|commit| commit.generation())
            .or_else(|| self.counted.get(&id).copied())
    }
}

fn unreadable(id: ObjectId, err: &dyn std::fmt::Display) -> ReachError {
    ReachError {
        id,
        reason: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::new_commits;
    use gix::ObjectId;
    use keel_fixtures::FixtureRepo;
    use std::collections::BTreeSet;

    fn id(hex: &str) -> ObjectId {
        ObjectId::from_hex(hex.trim().as_bytes()).expect("a commit id")
    }

    /// Every commit `git rev-list REV` lists: all of its ancestors, no cut-off.
    fn ancestors(repo: &FixtureRepo, rev: &str) -> BTreeSet<ObjectId> {
        repo.git(&["rev-list", rev])
            .expect("git rev-list")
            .lines()
            .map(id)
            .collect()
    }

    /// Branches `main` and `side` whose commit dates run backwards on `side` (a skewed
    /// clock), merged twice; returns every commit id in creation order.
    fn branchy() -> (FixtureRepo, Vec<String>) {
        fn at(repo: &mut FixtureRepo, name: &str, time: i64) -> String {
            repo.write(name, name).expect("write");
            repo.commit_at(name, "a@example.com", time, time)
                .expect("commit")
        }
        fn merge(repo: &FixtureRepo) -> String {
            repo.git(&["merge", "-q", "--no-edit", "side"])
                .expect("merge");
            repo.git(&["rev-parse", "HEAD"])
                .expect("rev-parse")
                .trim()
                .to_owned()
        }
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        let mut commits = vec![
            at(&mut repo, "root", 1_000_000),
            at(&mut repo, "m1", 1_000_100),
        ];
        repo.git(&["checkout", "-q", "-b", "side"]).expect("branch");
        commits.push(at(&mut repo, "s1", 900_000));
        commits.push(at(&mut repo, "s2", 800_000));
        repo.git(&["checkout", "-q", "main"]).expect("checkout");
        commits.push(at(&mut repo, "m2", 1_000_200));
        commits.push(merge(&repo));
        commits.push(at(&mut repo, "m3", 700_000));
        repo.git(&["checkout", "-q", "side"]).expect("checkout");
        commits.push(at(&mut repo, "s3", 1_100_000));
        repo.git(&["checkout", "-q", "main"]).expect("checkout");
        commits.push(merge(&repo));
        (repo, commits)
    }

    /// For every target and every held set of up to two commits, the walk gives what
    /// `git rev-list` of the target minus those of the held commits gives.
    fn agrees_with_rev_list(repo: &FixtureRepo, commits: &[String], graph: &str) {
        let handle = gix::open(repo.path()).expect("gix opens the fixture");
        let graph_file = handle.commit_graph_if_enabled().expect("the graph reads");
        assert_eq!(graph_file.is_some(), graph != "none", "{graph}");
        let mut held_sets: Vec<Vec<&String>> = vec![Vec::new()];
        for (i, a) in commits.iter().enumerate() {
            held_sets.push(vec![a]);
            for b in &commits[i + 1..] {
                held_sets.push(vec![a, b]);
            }
        }
        let of: std::collections::HashMap<&String, BTreeSet<ObjectId>> = commits
            .iter()
            .map(|commit| (commit, ancestors(repo, commit)))
            .collect();
        for target in commits {
            for held in &held_sets {
                let mut expected = of[target].clone();
                for h in held {
                    for gone in &of[h] {
                        expected.remove(gone);
                    }
                }
                let got: BTreeSet<ObjectId> = new_commits(
                    &handle,
                    graph_file.as_ref(),
                    id(target),
                    held.iter().map(|h| id(h)),
                )
                .expect("the walk reads every commit")
                .into_iter()
                .collect();
                assert_eq!(
                    got, expected,
                    "graph {graph}, target {target}, held {held:?}"
                );
            }
        }
    }

    #[test]
    fn the_new_commits_are_exactly_rev_list_minus_the_held_with_or_without_a_commit_graph() {
        let (mut repo, mut commits) = branchy();
        agrees_with_rev_list(&repo, &commits, "none");
        repo.git(&["commit-graph", "write", "--reachable"])
            .expect("git writes a commit-graph");
        agrees_with_rev_list(&repo, &commits, "fresh");
        // Commits after the graph was written: counted from their parents.
        repo.write("late", "late").expect("write");
        commits.push(repo.commit("late").expect("commit"));
        repo.git(&["checkout", "-q", "side"]).expect("checkout");
        repo.write("late-side", "x").expect("write");
        commits.push(repo.commit("late side").expect("commit"));
        agrees_with_rev_list(&repo, &commits, "stale");
    }
}
