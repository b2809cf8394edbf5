//! `git log --numstat` with git's default options, read through gix.
//!
//! Owns: the per-commit file and line counts L-scan keeps: a tree diff against the first
//! parent (the empty tree for a root commit) with git's default rename detection (50 %
//! similarity, limit 1000, no copies), and line counts from a Myers diff (git's default
//! algorithm). A binary file (a NUL byte in its first 8000 bytes, git's test) counts as a
//! file with 0 lines; a submodule reads as git prints it (`Subproject commit <id>`).
//! Does not own: which commits are counted ([`super::scan`]).

use super::inputs::Numstat;
use gix::ObjectId;
use gix::diff::tree_with_rewrites::{ChangeRef, Options};
use gix_imara_diff::{Algorithm, Diff, InternedInput};
use std::ops::ControlFlow;

/// How many leading bytes git inspects to call a blob binary.
const BINARY_PROBE: usize = 8000;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// One side of a file change: its object and what kind of entry it is.
#[derive(Clone, Copy)]
struct Side {
    id: ObjectId,
    submodule: bool,
}

/// Counts commits of one repository, reusing gix's caches between commits.
pub(crate) struct NumstatCounter<'repo> {
    repo: &'repo gix::Repository,
    resources: gix::diff::blob::Platform,
    state: gix::diff::tree::State,
}

impl<'repo> NumstatCounter<'repo> {
    pub(crate) fn new(repo: &'repo gix::Repository) -> Result<Self, BoxError> {
        Ok(Self {
            repo,
            resources: repo.diff_resource_cache_for_tree_diff()?,
            state: gix::diff::tree::State::default(),
        })
    }

    /// The numstat of `tree` against `parent_tree` (`None`: the empty tree).
    pub(crate) fn count(
        &mut self,
        parent_tree: Option<ObjectId>,
        tree: ObjectId,
    ) -> Result<Numstat, BoxError> {
        let empty = ObjectId::empty_tree(self.repo.object_hash());
        let old = self.repo.find_tree(parent_tree.unwrap_or(empty))?;
        let new = self.repo.find_tree(tree)?;
        let mut pairs: Vec<(Option<Side>, Option<Side>)> = Vec::new();
        let side = |mode: gix::object::tree::EntryMode, id: ObjectId| {
            (!mode.is_tree()).then_some(Side {
                id,
                submodule: mode.is_commit(),
            })
        };
        gix::diff::tree_with_rewrites(
            gix::objs::TreeRefIter::from_bytes(&old.data, old.id.kind()),
            gix::objs::TreeRefIter::from_bytes(&new.data, new.id.kind()),
            &mut self.resources,
            &mut self.state,
            &self.repo.objects,
            |change| {
                let pair = match change {
                    ChangeRef::Addition { entry_mode, id, .. } => (None, side(entry_mode, id)),
                    ChangeRef::Deletion { entry_mode, id, .. } => (side(entry_mode, id), None),
                    ChangeRef::Modification {
                        previous_entry_mode,
                        previous_id,
                        entry_mode,
                        id,
                        ..
                    } => (side(previous_entry_mode, previous_id), side(entry_mode, id)),
                    ChangeRef::Rewrite {
                        source_entry_mode,
                        source_id,
                        entry_mode,
                        id,
                        copy,
                        ..
                    } => {
                        let source = (!copy).then(|| side(source_entry_mode, source_id));
                        (source.flatten(), side(entry_mode, id))
                    }
                };
                if pair.0.is_some() || pair.1.is_some() {
                    pairs.push(pair);
                }
                Ok(ControlFlow::Continue(()))
            },
            Options {
                location: Some(gix::diff::tree::recorder::Location::Path),
                rewrites: Some(gix::diff::Rewrites::default()),
            },
        )?;
        self.resources.clear_resource_cache_keep_allocation();
        let mut stat = Numstat::default();
        for (old, new) in pairs {
            stat.files += 1;
            let before = old.map(|s| self.content(s)).transpose()?;
            let after = new.map(|s| self.content(s)).transpose()?;
            let (added, deleted) = line_counts(
                before.as_deref().unwrap_or_default(),
                after.as_deref().unwrap_or_default(),
            );
            stat.added += added;
            stat.deleted += deleted;
        }
        Ok(stat)
    }

    fn content(&self, side: Side) -> Result<Vec<u8>, BoxError> {
        if side.submodule {
            return Ok(format!("Subproject commit {}\n", side.id).into_bytes());
        }
        Ok(self.repo.find_blob(side.id)?.detach().data)
    }
}

/// Whether git would call these bytes binary.
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_PROBE)].contains(&0)
}

/// Lines added and deleted from `before` to `after`, as git's numstat counts them
/// (0 and 0 when either side is binary).
pub(crate) fn line_counts(before: &[u8], after: &[u8]) -> (u64, u64) {
    if is_binary(before) || is_binary(after) {
        return (0, 0);
    }
    if before.is_empty() {
        return (line_count(after), 0);
    }
    if after.is_empty() {
        return (0, line_count(before));
    }
    let input = InternedInput::new(before, after);
    let diff = Diff::compute(Algorithm::Myers, &input);
    (
        u64::from(diff.count_additions()),
        u64::from(diff.count_removals()),
    )
}

/// Lines of a text, the last one counted even without its newline.
fn line_count(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_git() {
        assert_eq!(line_counts(b"", b"a\nb\n"), (2, 0));
        assert_eq!(line_counts(b"a\nb", b""), (0, 2));
        assert_eq!(line_counts(b"a\nb\nc\n", b"a\nx\nc\n"), (1, 1));
        assert_eq!(
            line_counts(b"a\n", b"a"),
            (1, 1),
            "a lost newline changes the line"
        );
        assert_eq!(
            line_counts(b"a\n", b"a\0b"),
            (0, 0),
            "binary counts no lines"
        );
    }

    #[test]
    fn binary_probe_is_git_s_first_8000_bytes() {
        let mut late = vec![b'a'; BINARY_PROBE];
        late.push(0);
        assert!(!is_binary(&late));
        late[BINARY_PROBE - 1] = 0;
        assert!(is_binary(&late));
    }
}
