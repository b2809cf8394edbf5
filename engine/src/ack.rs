//! `keel ack`: writing an ack checkpoint commit through gix — the one place keel writes
//! into a repository.
//!
//! A checkpoint is a commit whose tree is HEAD's tree, whose one parent is HEAD, and whose
//! message ends with the trailer paragraph `Spec-OK: <node>`; lint reads it as
//! acknowledging itself and every commit it reaches for that node (`keel-queries`'
//! `window`). It is written like `git commit --allow-empty`: author and committer from the
//! repository's git configuration (and git's environment variables), the current branch
//! moved with a reflog entry for the branch and for HEAD.
//!
//! Owns: the refusals that keep the write safe — an operation in progress (a rebase, a
//! merge, a cherry-pick, a revert, `git am`, a bisect), a detached HEAD, an unborn
//! branch, an index that differs from HEAD's tree, no identity, an empty message — each
//! naming its repair, all checked before anything is written ([`KeelDatabase::prepare_ack`]),
//! and the write itself ([`AckTarget::write`]), which moves the branch only if it still
//! names the commit checked.
//! Does not own: which node ids exist or what the checkpoint acknowledges (the CLI asks
//! `keel-queries`), nor the trailer grammar (`keel-queries`' `trailers`).

use crate::database::KeelDatabase;
use crate::oid::Oid;
use gix::bstr::{BStr, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage};
use gix::refs::Target;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::state::InProgress;

/// The trailer key a checkpoint carries.
const SPEC_OK: &str = "Spec-OK";

/// Why `keel ack` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum AckError {
    #[error(
        "a rebase is in progress (HEAD is detached while it runs), so there is no branch to acknowledge on; repair: finish it with `git rebase --continue` or undo it with `git rebase --abort`, then run keel ack again"
    )]
    RebaseInProgress,
    #[error(
        "a merge is in progress (MERGE_HEAD exists); repair: conclude it with `git commit` or undo it with `git merge --abort`, then run keel ack again"
    )]
    MergeInProgress,
    #[error(
        "{operation} is in progress; repair: finish it with `{continue_with}` or undo it with `{abort_with}`, then run keel ack again"
    )]
    OperationInProgress {
        operation: &'static str,
        continue_with: &'static str,
        abort_with: &'static str,
    },
    #[error(
        "HEAD is detached at {commit}, so there is no branch to acknowledge on; repair: switch to the branch the checkpoint belongs on (`git switch BRANCH`), then run keel ack again"
    )]
    DetachedHead { commit: String },
    #[error(
        "branch {branch} has no commits yet, so there is nothing to acknowledge; repair: commit the specs and the code first"
    )]
    UnbornBranch { branch: String },
    #[error(
        "the index holds changes staged against HEAD ({first}{more}), and a checkpoint records HEAD's tree unchanged; repair: commit or unstage them first (`git restore --staged .` unstages everything)"
    )]
    StagedChanges { first: String, more: String },
    #[error(
        "no {role} identity: user.name or user.email is not set in git config; repair: `git config user.email you@example.com` and `git config user.name \"Your Name\"`"
    )]
    NoIdentity { role: &'static str },
    #[error(
        "the checkpoint message is empty; repair: pass a subject with -m, or leave -m out for the default"
    )]
    EmptyMessage,
    #[error(
        "cannot read the repository: {reason}; repair: check the repository with `git status` and `git fsck`"
    )]
    Unreadable { reason: String },
    #[error(
        "cannot write the checkpoint: {reason}; repair: make sure no other git command is running (a `.lock` file under the git folder) and that HEAD did not move, then run keel ack again"
    )]
    Write { reason: String },
}

/// Where a checkpoint goes: checked by [`KeelDatabase::prepare_ack`], written by
/// [`AckTarget::write`].
pub struct AckTarget {
    repo: gix::Repository,
    /// The branch HEAD names, short (`main`).
    pub branch: String,
    /// The commit the branch names: the checkpoint's parent.
    pub head: Oid,
    /// HEAD's tree: the checkpoint's tree.
    pub tree: Oid,
}

/// A checkpoint written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub commit: Oid,
    pub parent: Oid,
    /// The branch moved to it, short (`main`).
    pub branch: String,
    /// The whole commit message.
    pub message: String,
}

/// The message of a checkpoint for `nodes` (one or more ids): `subject` (or `Acknowledge
/// spec drift for <nodes>`), a blank line, and one `Spec-OK: <node>` line per node. The
/// trailers are then the last paragraph and never the first, so git and keel read them
/// as trailers.
pub fn checkpoint_message(nodes: &[String], subject: Option<&str>) -> Result<String, AckError> {
    let text = match subject {
        Some(text) => text.trim().to_owned(),
        None => format!("Acknowledge spec drift for {}", nodes_named(nodes)),
    };
    if text.is_empty() || nodes.is_empty() {
        return Err(AckError::EmptyMessage);
    }
    let trailers: String = nodes
        .iter()
        .map(|node| format!("{SPEC_OK}: {node}\n"))
        .collect();
    Ok(format!("{text}\n\n{trailers}"))
}

/// How many node ids a default subject or a reflog entry names before `and N more`.
const NODES_NAMED: usize = 3;

/// `a`, `a, b`, or `a, b, c and 2 more`.
fn nodes_named(nodes: &[String]) -> String {
    let shown = nodes[..nodes.len().min(NODES_NAMED)].join(", ");
    match nodes.len().checked_sub(NODES_NAMED) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    }
}

impl KeelDatabase {
    /// Checks that a checkpoint can be written on top of HEAD: no operation in progress,
    /// HEAD on a branch with a commit, the index equal to HEAD's tree, an identity.
    /// Reads only; nothing is written.
    pub fn prepare_ack(&self) -> Result<AckTarget, AckError> {
        let Some(repo) = self.objects_store().fresh_handle() else {
            return Err(unreadable(&"no repository is open"));
        };
        refuse_operation_in_progress(&repo)?;
        let head = repo.head().map_err(|e| unreadable(&e))?;
        let branch = match &head.kind {
            gix::head::Kind::Symbolic(reference) => reference.name.shorten().to_string(),
            gix::head::Kind::Unborn(name) => {
                return Err(AckError::UnbornBranch {
                    branch: name.shorten().to_string(),
                });
            }
            gix::head::Kind::Detached { target, .. } => {
                return Err(AckError::DetachedHead {
                    commit: target.to_hex_with_len(12).to_string(),
                });
            }
        };
        let head_id = repo.head_id().map_err(|e| unreadable(&e))?.detach();
        let tree = repo
            .find_commit(head_id)
            .map_err(|e| unreadable(&e))?
            .tree_id()
            .map_err(|e| unreadable(&e))?
            .detach();
        let staged = staged_paths(&repo, tree)?;
        if let Some(first) = staged.first() {
            let more = match staged.len() {
                1 => String::new(),
                n => format!(" and {} more path(s)", n - 1),
            };
            return Err(AckError::StagedChanges {
                first: first.clone(),
                more,
            });
        }
        identity(&repo)?;
        Ok(AckTarget {
            repo,
            branch,
            head: Oid(head_id),
            tree: Oid(tree),
        })
    }
}

impl AckTarget {
    /// Writes the checkpoint for `nodes` with `message` (see [`checkpoint_message`]) and
    /// moves the branch to it, only if the branch still names [`Self::head`]. The reflog
    /// entry (the branch's and HEAD's) reads `keel ack: <nodes>`.
    pub fn write(&self, nodes: &[String], message: &str) -> Result<Checkpoint, AckError> {
        let (author, committer) = identity(&self.repo)?;
        let commit = self
            .repo
            .new_commit_as(committer, author, message, self.tree.0, [self.head.0])
            .map_err(|e| write_failed(&e))?;
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: format!("keel ack: {}", nodes_named(nodes)).into(),
                },
                expected: PreviousValue::MustExistAndMatch(Target::Object(self.head.0)),
                new: Target::Object(commit.id),
            },
            name: "HEAD".try_into().map_err(|e| write_failed(&e))?,
            deref: true,
        };
        let edits = self
            .repo
            .edit_references_as([edit], Some(committer))
            .map_err(|e| write_failed(&e))?;
        let branch = edits
            .iter()
            .find(|edit| edit.name.as_bstr() != "HEAD")
            .map_or_else(
                || self.branch.clone(),
                |edit| edit.name.shorten().to_string(),
            );
        Ok(Checkpoint {
            commit: Oid(commit.id),
            parent: self.head,
            branch,
            message: message.to_owned(),
        })
    }
}

/// Refuses while git is in the middle of an operation that owns HEAD or the index.
fn refuse_operation_in_progress(repo: &gix::Repository) -> Result<(), AckError> {
    let operation = |operation, continue_with, abort_with| AckError::OperationInProgress {
        operation,
        continue_with,
        abort_with,
    };
    match repo.state() {
        None => Ok(()),
        Some(
            InProgress::Rebase | InProgress::RebaseInteractive | InProgress::ApplyMailboxRebase,
        ) => Err(AckError::RebaseInProgress),
        Some(InProgress::Merge) => Err(AckError::MergeInProgress),
        Some(InProgress::CherryPick | InProgress::CherryPickSequence) => Err(operation(
            "a cherry-pick",
            "git cherry-pick --continue",
            "git cherry-pick --abort",
        )),
        Some(InProgress::Revert | InProgress::RevertSequence) => Err(operation(
            "a revert",
            "git revert --continue",
            "git revert --abort",
        )),
        Some(InProgress::ApplyMailbox) => {
            Err(operation("`git am`", "git am --continue", "git am --abort"))
        }
        Some(InProgress::Bisect) => Err(operation(
            "a bisect",
            "git bisect good|bad",
            "git bisect reset",
        )),
    }
}

/// The author and committer git would record, or the refusal naming `git config`.
fn identity(
    repo: &gix::Repository,
) -> Result<(gix::actor::SignatureRef<'_>, gix::actor::SignatureRef<'_>), AckError> {
    let author = repo
        .author()
        .ok_or(AckError::NoIdentity { role: "author" })?
        .map_err(|e| unreadable(&e))?;
    let committer = repo
        .committer()
        .ok_or(AckError::NoIdentity { role: "committer" })?
        .map_err(|e| unreadable(&e))?;
    Ok((author, committer))
}

/// One index entry as it is compared: path, stage, mode and object id.
type Row<'a> = (&'a BStr, Stage, Mode, gix::ObjectId);

/// The paths at which the index differs from the tree `tree` (what `git diff --cached`
/// lists), in index order. An intent-to-add entry (`git add -N`) stages no content and
/// is skipped; a sparse-index folder entry is compared with the tree's folder. A bare
/// repository has no index to differ.
fn staged_paths(repo: &gix::Repository, tree: gix::ObjectId) -> Result<Vec<String>, AckError> {
    if repo.workdir().is_none() {
        return Ok(Vec::new());
    }
    let index = repo.index_or_empty().map_err(|e| unreadable(&e))?;
    let expected = repo.index_from_tree(&tree).map_err(|e| unreadable(&e))?;
    let head_tree = repo.find_tree(tree).map_err(|e| unreadable(&e))?;
    let (actual, wanted) = (rows(&index), rows(&expected));
    let mut differ: Vec<String> = Vec::new();
    let (mut a, mut w) = (0, 0);
    while a < actual.len() || w < wanted.len() {
        match (actual.get(a), wanted.get(w)) {
            (Some(&(folder, _, mode, id)), _) if mode == Mode::DIR => {
                // A sparse-index folder entry (`dir/`) stands for the whole folder.
                while wanted.get(w).is_some_and(|row| row.0.starts_with(folder)) {
                    w += 1;
                }
                let path = folder.to_str_lossy();
                let at_head = head_tree
                    .lookup_entry_by_path(path.trim_end_matches('/'))
                    .map_err(|e| unreadable(&e))?
                    .map(|entry| entry.object_id());
                if at_head != Some(id) {
                    differ.push(path.into_owned());
                }
                a += 1;
            }
            (Some(ours), Some(theirs)) if ours == theirs => {
                a += 1;
                w += 1;
            }
            (Some(ours), Some(theirs)) => match (ours.0, ours.1).cmp(&(theirs.0, theirs.1)) {
                std::cmp::Ordering::Less => {
                    differ.push(ours.0.to_string());
                    a += 1;
                }
                std::cmp::Ordering::Greater => {
                    differ.push(theirs.0.to_string());
                    w += 1;
                }
                std::cmp::Ordering::Equal => {
                    differ.push(ours.0.to_string());
                    a += 1;
                    w += 1;
                }
            },
            (Some(ours), None) => {
                differ.push(ours.0.to_string());
                a += 1;
            }
            (None, Some(theirs)) => {
                differ.push(theirs.0.to_string());
                w += 1;
            }
            (None, None) => break,
        }
    }
    differ.dedup();
    Ok(differ)
}

/// The rows of an index, intent-to-add entries left out, in index order.
fn rows(file: &gix::index::File) -> Vec<Row<'_>> {
    file.entries()
        .iter()
        .filter(|entry| !entry.flags.contains(Flags::INTENT_TO_ADD))
        .map(|entry| (entry.path(file), entry.stage(), entry.mode, entry.id))
        .collect()
}

fn unreadable(err: &dyn std::fmt::Display) -> AckError {
    AckError::Unreadable {
        reason: err.to_string(),
    }
}

fn write_failed(err: &dyn std::fmt::Display) -> AckError {
    AckError::Write {
        reason: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_fixtures::FixtureRepo;

    /// A repository with files in two folders, one commit, and an identity.
    fn two_folders() -> FixtureRepo {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        repo.write("a/one.txt", "1\n")
            .and_then(|r| r.write("b/two.txt", "2\n"))
            .and_then(|r| r.write("top.txt", "t\n"))
            .expect("write");
        repo.commit("files").expect("commit");
        repo.git(&["config", "user.name", "A"])
            .and_then(|_| repo.git(&["config", "user.email", "a@keel.invalid"]))
            .expect("git config");
        repo
    }

    fn prepared(repo: &FixtureRepo) -> Result<AckTarget, AckError> {
        KeelDatabase::open(repo.path())
            .expect("the repository opens")
            .prepare_ack()
    }

    #[test]
    fn an_index_equal_to_head_is_clean_and_a_staged_mode_change_is_not() {
        let repo = two_folders();
        assert!(prepared(&repo).is_ok());
        repo.git(&["update-index", "--chmod=+x", "top.txt"])
            .expect("git update-index");
        assert!(matches!(
            prepared(&repo),
            Err(AckError::StagedChanges { first, .. }) if first == "top.txt"
        ));
    }

    #[test]
    fn a_sparse_index_folder_entry_is_compared_with_heads_folder() {
        let repo = two_folders();
        repo.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "a"])
            .expect("git sparse-checkout");
        let listed = repo.git(&["ls-files", "--sparse"]).expect("git ls-files");
        assert!(
            listed.lines().any(|l| l == "b/"),
            "b/ is one sparse entry: {listed}"
        );
        assert!(
            prepared(&repo).is_ok(),
            "the sparse index equals HEAD's tree"
        );
        repo.write("a/one.txt", "changed\n").expect("write");
        repo.git(&["add", "a/one.txt"]).expect("git add");
        assert!(matches!(
            prepared(&repo),
            Err(AckError::StagedChanges { first, .. }) if first == "a/one.txt"
        ));
    }

    #[test]
    fn the_trailer_is_the_last_paragraph_of_the_message() {
        let ids = |ids: &[&str]| ids.iter().map(|id| (*id).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            checkpoint_message(&ids(&["auth/login"]), None).expect("a message"),
            "Acknowledge spec drift for auth/login\n\nSpec-OK: auth/login\n"
        );
        assert_eq!(
            checkpoint_message(&ids(&["n"]), Some("  Reviewed: still true\n\n"))
                .expect("a message"),
            "Reviewed: still true\n\nSpec-OK: n\n"
        );
        assert_eq!(
            checkpoint_message(&ids(&["a", "b"]), None).expect("a message"),
            "Acknowledge spec drift for a, b\n\nSpec-OK: a\nSpec-OK: b\n"
        );
        assert_eq!(
            checkpoint_message(&ids(&["a", "b", "c", "d", "e"]), None)
                .expect("a message")
                .lines()
                .next(),
            Some("Acknowledge spec drift for a, b, c and 2 more")
        );
    }

    #[test]
    fn an_empty_message_is_refused() {
        assert!(matches!(
            checkpoint_message(&["n".to_owned()], Some(" \n ")),
            Err(AckError::EmptyMessage)
        ));
    }
}
