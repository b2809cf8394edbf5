//! The last lint answer kept on disk, and a database of the commits since it: what lets a
//! `keel lint` after a few new commits judge only those commits, without reading the
//! history or the memo.
//!
//! Owns: the file (`<git common folder>/keel/lint.bin`, or `lint-<name>.bin` for a linked
//! work tree, beside the memo and written the same way: a header line naming the format, the build, the body's CRC-32 and length,
//! then the body, through a temporary file and a rename), the history fingerprint it is
//! checked against (as the memo is), and [`KeelDatabase::open_since`]: a database whose
//! tip is HEAD and which knows only HEAD's commits since the kept tip. A cache folder
//! keel cannot use is a [`crate::cache::CacheTrouble`], as for the memo: the answer is
//! not read or not kept, and the caller says so once.
//! Does not own: what the answer is or how it is extended (`keel_queries::lint`), nor
//! when to use it (the command).

use crate::cache::KEPT_LINT_STEM;
use crate::cache::{CacheError, read_file, write_atomically};
use crate::database::{EngineError, KeelDatabase};
use crate::inputs::Commit;
use crate::memo::{MemoDiscard, checked_body, header};
use crate::oid::Oid;
use salsa::Durability;
use std::path::PathBuf;

/// The header's first word and the format's version.
const FORMAT: &str = "keel-lint 1";

/// What the file's body holds: the history fingerprint it was judged under, and the
/// answer (MessagePack, fields by name).
#[derive(serde::Serialize, serde::Deserialize)]
struct Body<T> {
    history: String,
    answer: T,
}

impl KeelDatabase {
    /// The kept answer's path: beside the memo, one per work tree (each has its own HEAD):
    /// `lint.bin` for the main one, `lint-<name>.bin` for a linked one (its folder's name
    /// under `.git/worktrees/`).
    pub fn kept_lint_path(&self) -> Result<PathBuf, EngineError> {
        let Some(repo) = self.objects_store().fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let name = match repo.git_dir().file_name() {
            Some(linked) if repo.git_dir() != repo.common_dir() => {
                format!("{KEPT_LINT_STEM}-{}.bin", linked.to_string_lossy())
            }
            _ => format!("{KEPT_LINT_STEM}.bin"),
        };
        Ok(self.memo_path()?.with_file_name(name))
    }

    /// Keeps `answer` for `build`, atomically.
    pub fn write_kept_lint<T: serde::Serialize>(
        &self,
        build: &str,
        answer: &T,
    ) -> Result<(), CacheError> {
        let path = self.kept_lint_path()?;
        let body = Body {
            history: self.history_fingerprint()?,
            answer,
        };
        // Named fields: the answer's types skip empty fields (as `keel.lint.v1` does),
        // which MessagePack's positional structs could not read back.
        let body = rmp_serde::to_vec_named(&body).map_err(|err| self.unreadable(&err))?;
        Ok(write_atomically(
            &path,
            &header(FORMAT, build, &body),
            &body,
        )?)
    }

    /// The kept answer `build` wrote under this repository's history: `None` when there
    /// is none, the reason when it cannot be used.
    pub fn read_kept_lint<T: serde::de::DeserializeOwned>(
        &self,
        build: &str,
    ) -> Result<Option<Result<T, MemoDiscard>>, CacheError> {
        let path = self.kept_lint_path()?;
        let Some(bytes) = read_file(&path)? else {
            return Ok(None);
        };
        let body = match checked_body(FORMAT, build, &bytes) {
            Ok(body) => body,
            Err(reason) => return Ok(Some(Err(reason))),
        };
        let body: Body<T> = match rmp_serde::from_slice(body) {
            Ok(body) => body,
            Err(err) => return Ok(Some(Err(MemoDiscard::Unreadable(err.to_string())))),
        };
        if body.history != self.history_fingerprint()? {
            return Ok(Some(Err(MemoDiscard::OtherHistory)));
        }
        Ok(Some(Ok(body.answer)))
    }

    /// The kept-answer database: this database, opened for objects only
    /// ([`KeelDatabase::open_objects`]), made into one that knows only the commits since
    /// `kept`, with `tip` (`None`: HEAD) as its tip — when the tip is `kept` or descends
    /// from it through at most `most` commits of one parent each. Gives those commits
    /// (newest first) with it; otherwise `None`, and the database is dropped unchanged.
    ///
    /// `kept` stands in as a commit whose parents are not read (marked shallow): the
    /// stand-in commit. Nothing may judge history past it in this database; it serves what
    /// the commits since did to `kept`'s tree, which is what extending a kept lint answer
    /// reads. Taking the database by value means no half-open handle outlives the
    /// constructor.
    pub fn open_since(
        mut self,
        tip: Option<Oid>,
        kept: Oid,
        most: usize,
    ) -> Result<Option<(Self, Vec<Commit>)>, EngineError> {
        if !self.commits.is_empty() {
            return Err(self.unreadable(&"the database already knows commits"));
        }
        let target = match tip {
            Some(tip) => tip,
            None => match self.read_head()? {
                Some(head) => head,
                None => return Ok(None),
            },
        };
        let Some(since) = self.one_parent_walk(target, kept, most) else {
            return Ok(None);
        };
        if !self.stand_in(kept)? {
            return Ok(None);
        }
        self.set_tip(Some(target))?;
        let commits = since
            .iter()
            .map(|oid| self.commits.get(oid).copied())
            .collect::<Option<Vec<Commit>>>()
            .ok_or_else(|| self.unreadable(&"a commit since the kept answer was not indexed"))?;
        Ok(Some((self, commits)))
    }

    /// The commits from `from` back to `to` (`to` excluded, newest first) when each has
    /// one parent and there are at most `most`; `None` otherwise. A commit that cannot be
    /// read (past a shallow boundary, pruned) ends the walk as a merge does: the whole
    /// lint reads it and says what is wrong.
    fn one_parent_walk(&self, from: Oid, to: Oid, most: usize) -> Option<Vec<Oid>> {
        let mut walked = Vec::new();
        let mut at = from;
        while at != to {
            if walked.len() == most {
                return None;
            }
            let (parents, _) = self.commit_shape(at).ok()?;
            let [parent] = parents.as_slice() else {
                return None;
            };
            walked.push(at);
            at = *parent;
        }
        Some(walked)
    }

    /// Makes the input of commit `kept` with no parents read (marked shallow); `false`
    /// when it cannot be read.
    fn stand_in(&mut self, kept: Oid) -> Result<bool, EngineError> {
        let Some(repo) = self.objects_store().fresh_handle() else {
            return Err(self.unreadable(&"no repository is open"));
        };
        let Ok(raw) = crate::ancestors::read_commit(&repo, kept, &Default::default()) else {
            return Ok(false);
        };
        let stand_in = Commit::builder(
            kept,
            Vec::new(),
            raw.tree,
            raw.message,
            raw.committer_time,
            true,
        )
        .durability(Durability::HIGH)
        .new(&*self);
        std::sync::Arc::make_mut(&mut self.commits).insert(kept, stand_in);
        self.remember_commits(&[stand_in]);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_fixtures::FixtureRepo;

    /// `open_since` on a fresh objects-only database of `repo`, as commit ids.
    fn since(repo: &FixtureRepo, kept: &str, most: usize) -> Option<Vec<String>> {
        let db = KeelDatabase::open_objects(repo.path()).expect("open");
        let kept = Oid::from_hex(kept).expect("an id");
        let (db, commits) = db.open_since(None, kept, most).expect("HEAD reads")?;
        Some(commits.iter().map(|c| c.id(&db).to_string()).collect())
    }

    fn commit(repo: &mut FixtureRepo, n: usize) -> String {
        repo.write("a.txt", &format!("{n}\n")).expect("write");
        repo.commit(&format!("Commit {n}")).expect("commit")
    }

    #[test]
    fn the_commits_since_the_kept_tip_are_one_parent_commits_newest_first_within_the_bound() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        let kept = commit(&mut repo, 0);
        assert_eq!(
            since(&repo, &kept, 4),
            Some(Vec::new()),
            "HEAD is the kept tip"
        );
        let (one, two) = (commit(&mut repo, 1), commit(&mut repo, 2));
        assert_eq!(since(&repo, &kept, 4), Some(vec![two.clone(), one]));
        assert_eq!(
            since(&repo, &kept, 1),
            None,
            "two commits past a bound of one"
        );
        assert_eq!(since(&repo, &two, 4), Some(Vec::new()));

        repo.git(&["checkout", "--quiet", "-b", "side", &kept])
            .expect("branch");
        commit(&mut repo, 3);
        assert_eq!(
            since(&repo, &two, 64),
            None,
            "no descendant of the kept tip"
        );
        repo.git(&["checkout", "--quiet", "-"]).expect("back");
        repo.git(&[
            "merge", "--quiet", "--no-ff", "-X", "theirs", "-m", "Merge", "side",
        ])
        .expect("merge");
        assert_eq!(since(&repo, &two, 64), None, "a merge has two parents");
    }

    #[test]
    fn a_walk_that_meets_a_commit_it_cannot_read_ends_without_an_answer() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        let kept = commit(&mut repo, 0);
        let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).expect("a tree");
        let orphan = format!(
            "tree {}\nparent {}\nauthor A <a@example.com> 0 +0000\ncommitter A <a@example.com> 0 +0000\n\nLost parent\n",
            tree.trim(),
            "1".repeat(40)
        );
        let path = repo.path().join("orphan.txt");
        std::fs::write(&path, orphan).expect("write");
        let id = repo
            .git(&["hash-object", "-t", "commit", "-w", "orphan.txt"])
            .expect("a commit whose parent is missing");
        repo.git(&["update-ref", "HEAD", id.trim()])
            .expect("HEAD moves");
        assert_eq!(
            since(&repo, &kept, 8),
            None,
            "the missing parent ends the walk"
        );
    }

    #[test]
    fn a_kept_answer_is_read_back_only_by_its_build() {
        let mut repo = FixtureRepo::new().expect("a fixture repository");
        commit(&mut repo, 0);
        let db = KeelDatabase::open_objects(repo.path()).expect("open");
        assert_eq!(db.read_kept_lint::<Vec<String>>("b1").expect("reads"), None);
        let answer = vec!["one".to_owned(), "two".to_owned()];
        db.write_kept_lint("b1", &answer).expect("written");
        assert_eq!(db.read_kept_lint("b1").expect("reads"), Some(Ok(answer)));
        assert!(matches!(
            db.read_kept_lint::<Vec<String>>("b2").expect("reads"),
            Some(Err(MemoDiscard::OtherBuild(build))) if build == "b1"
        ));
        let path = db.kept_lint_path().expect("a path");
        let cleared = db.clear_cache().expect("removed");
        assert_eq!(cleared.kept, [path]);
        assert!(cleared.troubles.is_empty(), "{cleared:?}");
        assert!(db.clear_cache().expect("nothing to remove").kept.is_empty());
    }
}
