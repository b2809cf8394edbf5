//! Incremental reparsing: a hint that makes parsing the next image of a file cheaper and
//! never changes what is extracted from it.
//!
//! Owns: [`ParseCache`] — per (language, lineage) at most one hint: the most recently
//! parsed error-free tree with the exact bytes it was parsed from, and for Python the
//! OUTLINE of the latest error-free version with its bytes — one parser per language, the
//! description of an old-bytes → new-bytes change as tree-sitter `InputEdit`s
//! ([`EditScript`]), the order of attempts (splice, else incremental reparse, else full
//! parse), the per-thread caches of a database behind [`extract_reusing`] (a hint of the
//! database's store, `Db::hints`, so no other database sees them), which
//! `images::image_units` calls, and the hand-off of a thread's hints to another
//! ([`Hints`]: helper threads start from the caller's and give back what they made). A lineage is a name the caller gives to a succession of
//! versions of one file (`image_units` uses the path); a lineage with no hint borrows the
//! most recent hint of a lineage with the same file name (a file moved to another folder,
//! as a directory move moves every file), since any error-free hint gives the right answer
//! and a similar one gives it cheaply.
//! Does not own: what a unit is (the language walks), the splice itself (`splice`), the
//! reference full parse ([`super::extract_as`]), nor memoization (salsa keys units per
//! image).
//!
//! ### Why the cache cannot change an answer
//! It is a hint, like an object cache: it decides how much work a parse does, never what
//! it yields, so which image a thread happened to parse before (call order, thread count)
//! changes only the time.
//! - A cached tree is kept together with the bytes it is the parse of, and the edits are
//!   computed from THOSE bytes to the new ones — never from ids, paths or diffs of other
//!   images — so they describe the change exactly. Edits are line-aligned; their
//!   positions count rows at `\n` only and columns in bytes, as tree-sitter does, so `\r`
//!   and multibyte characters sit inside columns like any other byte. tree-sitter's
//!   contract for `parse(new, Some(edited_old))` is the tree of `new`; it only reuses the
//!   old subtrees the edits leave untouched.
//! - Where that contract is known to be weakest — error recovery, whose result can depend
//!   on the reused tree — nothing is reused: only error-free trees become hints, and an
//!   incremental result holding any error is dropped and the content parsed from scratch,
//!   so every `Unparseable` answer (line, reason, and the units that parsed anyway)
//!   comes from a full parse. Content decoded from a Python coding cookie's encoding is
//!   not the bytes a tree would be kept with: it is parsed from scratch and kept as no
//!   hint.
//! - The walks read only node kinds, fields, byte ranges and rows, which equal trees share.
//! - A Python version is first SPLICED: the outline of the previous error-free version (its
//!   top-level statements and class members as row ranges with the raw declarations each
//!   produced) is kept with the exact bytes it describes; the line diff from THOSE bytes
//!   says which statements changed, only they are parsed, alone, and the declarations are
//!   reassembled and grouped over the whole file. `splice`'s module doc gives the argument
//!   that this equals the full parse: a change is spliced only where it starts and ends at
//!   a statement boundary that Python's lexical state cannot cross (checked on the new
//!   lines and by parsing the middle followed by a sentinel `pass`), the bytes outside the
//!   middles are checked equal, and any doubt refuses the splice and falls back to the
//!   path above. An isolated middle holding an error is a refusal, never an answer, so
//!   every `Unparseable` answer still comes from a full parse; a splice also needs the
//!   content to be UTF-8 first, as `extract_as` does. After a splice the kept tree is
//!   older than the outline; it stays paired with its own bytes, so a later incremental
//!   reparse computes its edits from them.
//! - `tests/it/reparse.rs` checks incremental (and spliced) == full on every consecutive
//!   pair of randomized Python and TypeScript histories, in both directions;
//!   `tests/it/splice.rs` does the same for the splice on adversarial Python histories
//!   and checks it is really taken; `parse-bench` checks all of them over real histories.
//!
//! ### Bounds
//! At most [`MAX_HINTS`] hints per thread's cache (and at most `MAX_THREAD_CACHES` caches
//! per database), whose sources total at most [`MAX_HINT_BYTES`]
//! (a tree's source and a different outline source both count); a larger hint drops its
//! tree, and a source larger still is parsed but never kept. An outline is small (rows
//! and declarations, a few KB for click's `core.py`). A tree costs about 18 times its source
//! (click's `core.py`: 144 KB of source, 2.5 MB of tree), so one thread holds at most
//! about 18 MB and a lint's eight warming threads about 150 MB at worst; a lint usually
//! walks one file at a time, so it holds far less, and its warming threads keep no tree
//! beside a Python outline ([`history_only`]). A store whose database answers once keeps
//! [`SINGLE_USE_HINTS`] per thread ([`single_use`]).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;

use tree_sitter::{InputEdit, Parser, Point, Tree};

use super::splice::{self, Level, Outline, Refusal};
use super::{ExtractError, Language, Unit, syntax};
use crate::diff::{Hunk, changed_stretch_hunks};
use keel_engine::{HintStore, Oid};

/// Trees kept per cache (per thread for [`extract_reusing`]). The byte bound below is
/// what bounds memory; this one is high enough that a call graph of a source folder
/// (click's `src/`: 17 files) keeps every file's tree, so an edit reparses incrementally
/// (4 evicted most of them: an edit of `core.py` then cost a full parse).
pub const MAX_HINTS: usize = 32;

/// Total source bytes of the trees kept per cache.
pub const MAX_HINT_BYTES: usize = 1 << 20;

/// How the change from a cached source to the new content is told to tree-sitter. Both
/// are exact; they differ only in how much of the old tree the parser may reuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EditScript {
    /// One edit from the first to the last changed line (common prefix and suffix,
    /// widened to whole lines): everything between them is reparsed.
    CommonEnds,
    /// One edit per hunk of keel's line diff, so unchanged lines between hunks are
    /// reused too.
    #[default]
    LineHunks,
}

/// How many parses a cache did, by kind. For tests and benches: proves the hint is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParseCounts {
    /// Parses from scratch (first versions, other lineages, and retries).
    pub full: u64,
    /// Parses that reused an edited old tree (retried ones included).
    pub incremental: u64,
    /// Incremental results that held an error and were parsed again from scratch.
    pub retried: u64,
    /// Python versions answered by a splice.
    pub spliced: u64,
    /// Of those, splices with every middle inside the body of a `def` or `class`.
    pub spliced_members: u64,
    /// Of those, splices with every middle at least two bodies down (inside a method's
    /// or a nested definition's body).
    pub spliced_deep: u64,
    /// Splices tried and refused at both levels: parsed incrementally or from scratch.
    pub splice_fallbacks: u64,
    /// Bytes the splices parsed in isolation (refused attempts included).
    pub spliced_bytes: u64,
}

impl ParseCounts {
    /// The parses between two readings of one counter (`before` taken first).
    pub fn since(self, before: Self) -> Self {
        Self {
            full: self.full - before.full,
            incremental: self.incremental - before.incremental,
            retried: self.retried - before.retried,
            spliced: self.spliced - before.spliced,
            spliced_members: self.spliced_members - before.spliced_members,
            spliced_deep: self.spliced_deep - before.spliced_deep,
            splice_fallbacks: self.splice_fallbacks - before.splice_fallbacks,
            spliced_bytes: self.spliced_bytes - before.spliced_bytes,
        }
    }

    /// Two counts (of two threads) together.
    pub fn plus(self, other: Self) -> Self {
        Self {
            full: self.full + other.full,
            incremental: self.incremental + other.incremental,
            retried: self.retried + other.retried,
            spliced: self.spliced + other.spliced,
            spliced_members: self.spliced_members + other.spliced_members,
            spliced_deep: self.spliced_deep + other.spliced_deep,
            splice_fallbacks: self.splice_fallbacks + other.splice_fallbacks,
            spliced_bytes: self.spliced_bytes + other.spliced_bytes,
        }
    }
}

/// What a cache keeps of one lineage.
#[derive(Clone)]
struct Hint {
    language: Language,
    lineage: String,
    /// The last error-free tree, with the exact bytes it is the parse of. After a splice
    /// it is older than `outline`; `None` when it no longer fits the bounds, and beside an
    /// outline on a thread that reads only history ([`history_only`]).
    tree: Option<(Arc<[u8]>, Tree)>,
    /// Python: the outline of the latest error-free version, with its bytes.
    outline: Option<(Arc<[u8]>, Outline)>,
    /// The blob the outline's bytes are, when the caller said.
    outline_blob: Option<Oid>,
    /// Made (or brought up to date) by a parse on this thread and not yet handed to
    /// another one; an adopted hint is not fresh.
    fresh: bool,
}

/// Hunks some reader already computed between two blobs (`diff::line_hunks`, exact), so a
/// splice between them need not diff again.
struct KnownDiff {
    old: Oid,
    new: Oid,
    hunks: Vec<Hunk>,
}

/// Known diffs kept per cache: a lint diffs an event's images right before reading their
/// units, so the last few are the ones a splice asks for.
const MAX_KNOWN_DIFFS: usize = 4;

impl Hint {
    /// The source bytes it holds (a source shared by tree and outline counts once).
    fn bytes(&self) -> usize {
        let tree = self.tree.as_ref().map_or(0, |(source, _)| source.len());
        let outline = match (&self.tree, &self.outline) {
            (Some((parsed, _)), Some((outlined, _))) if Arc::ptr_eq(parsed, outlined) => 0,
            (_, Some((outlined, _))) => outlined.len(),
            (_, None) => 0,
        };
        tree + outline
    }
}

/// Recently parsed trees to reparse from, and a parser per language. See the module doc
/// for why using it never changes an answer.
pub struct ParseCache {
    /// Least recently used first.
    hints: VecDeque<Hint>,
    parsers: Vec<(Language, Parser)>,
    script: EditScript,
    /// Whether Python versions are spliced from the previous outline.
    splice: bool,
    /// Whether a hint that holds an outline keeps its tree too (see [`history_only`]).
    outlined_trees: bool,
    /// How many hints it keeps: [`MAX_HINTS`], or [`SINGLE_USE_HINTS`] in a store that
    /// answers once ([`single_use`]).
    max_hints: usize,
    counts: ParseCounts,
    /// Refused splices by level and reason.
    refusals: Vec<(Level, Refusal, u64)>,
    /// Most recent last.
    known: VecDeque<KnownDiff>,
}

impl Default for ParseCache {
    fn default() -> Self {
        Self::new(EditScript::default())
    }
}

impl ParseCache {
    /// An empty cache describing changes with `script`, splicing Python versions.
    pub fn new(script: EditScript) -> Self {
        Self {
            hints: VecDeque::new(),
            parsers: Vec::new(),
            script,
            splice: true,
            outlined_trees: true,
            max_hints: MAX_HINTS,
            counts: ParseCounts::default(),
            refusals: Vec::new(),
            known: VecDeque::new(),
        }
    }

    /// The same cache splicing Python versions (`true`, the default) or only reparsing
    /// them incrementally (`false`).
    pub fn splicing(mut self, splice: bool) -> Self {
        self.splice = splice;
        self
    }

    /// The parses done so far.
    pub fn counts(&self) -> ParseCounts {
        self.counts
    }

    /// How often a splice was refused, by level and reason (a version refused at the member
    /// level may still be spliced at the top level).
    pub fn splice_refusals(&self) -> Vec<(Level, Refusal, u64)> {
        let mut refusals = self.refusals.clone();
        refusals.sort();
        refusals
    }

    /// Extracts the units of `content`, a version of `lineage` in `language`. Equals
    /// [`super::extract_as`]`(language, content)` whatever was parsed before.
    pub fn extract(
        &mut self,
        language: Language,
        lineage: &str,
        content: &Arc<[u8]>,
    ) -> Result<Vec<Unit>, ExtractError> {
        self.extract_blob(language, lineage, content, None)
    }

    /// [`Self::extract`] of `content` known as `blob`: a splice from a version whose hunks
    /// to this one were [remembered](Self::remember) takes them instead of diffing.
    pub fn extract_blob(
        &mut self,
        language: Language,
        lineage: &str,
        content: &Arc<[u8]>,
        blob: Option<Oid>,
    ) -> Result<Vec<Unit>, ExtractError> {
        // The same checks in the same order as `extract_as`, so errors are the same.
        let source = match language.text(content)? {
            Cow::Borrowed(source) => source,
            // Decoded from a declared encoding: a hint's tree must be the parse of the
            // bytes it is kept with, so this one is parsed from scratch and never kept.
            Cow::Owned(_) => {
                self.counts.full += 1;
                return super::extract_as(language, content);
            }
        };
        let (_, grammar_name) = language.grammar();
        let hint = self.hint_for(language, lineage);
        if let Some(index) = hint.filter(|_| self.splice && language == Language::Python)
            && let Some(units) = self.splice(index, content, blob)?
        {
            return Ok(units);
        }
        let parser = parser_in(&mut self.parsers, language)?;
        let edited = hint
            .and_then(|index| self.hints[index].tree.as_ref())
            .map(|(old, tree)| {
                let mut tree = tree.clone();
                for edit in edits(old, content, self.script) {
                    tree.edit(&edit);
                }
                tree
            });
        let mut tree = syntax::run(parser, content, edited.as_ref(), grammar_name)?;
        if edited.is_some() {
            self.counts.incremental += 1;
            if tree.root_node().has_error() {
                self.counts.retried += 1;
                self.counts.full += 1;
                tree = syntax::run(parser, content, None, grammar_name)?;
            }
        } else {
            self.counts.full += 1;
        }
        let units = language.units(&tree, source);
        if units.is_ok() {
            let outline = (self.splice && language == Language::Python)
                .then(|| (Arc::clone(content), Outline::of(&tree, source)));
            self.keep(Hint {
                language,
                lineage: lineage.to_owned(),
                tree: Some((Arc::clone(content), tree)),
                outline_blob: outline.as_ref().and(blob),
                outline,
                fresh: true,
            });
        }
        units
    }

    /// The hint to reparse a version of `lineage` from: its own, else the most recent one
    /// of a lineage with the same file name.
    fn hint_for(&self, language: Language, lineage: &str) -> Option<usize> {
        let same = |hint: &Hint| hint.language == language;
        let file_name = |path: &str| path.rsplit('/').next().map(str::to_owned);
        self.hints
            .iter()
            .position(|hint| same(hint) && hint.lineage == lineage)
            .or_else(|| {
                self.hints
                    .iter()
                    .rposition(|hint| same(hint) && file_name(&hint.lineage) == file_name(lineage))
            })
    }

    /// The units of `content` spliced from the outline of hint `index` (a Python one), its
    /// outline then kept; `None` when there is no outline or the splice was refused.
    fn splice(
        &mut self,
        index: usize,
        content: &Arc<[u8]>,
        blob: Option<Oid>,
    ) -> Result<Option<Vec<Unit>>, ExtractError> {
        let parser = parser_in(&mut self.parsers, Language::Python)?;
        let Some(hint) = self.hints.get(index) else {
            return Ok(None);
        };
        let Some((old, outline)) = hint.outline.as_ref() else {
            return Ok(None);
        };
        let known = hint
            .outline_blob
            .zip(blob)
            .and_then(|(from, to)| known_hunks(&self.known, from, to));
        match splice::splice(
            outline,
            old,
            content,
            known.as_deref(),
            parser,
            &mut self.counts.spliced_bytes,
        ) {
            Ok(spliced) => {
                self.counts.spliced += 1;
                if spliced.shallowest.is_none_or(|depth| depth >= 1) {
                    self.counts.spliced_members += 1;
                }
                if spliced.shallowest.is_none_or(|depth| depth >= 2) {
                    self.counts.spliced_deep += 1;
                }
                for refusal in spliced.refused {
                    count_refusal(&mut self.refusals, Level::Member, refusal);
                }
                if let Some(mut hint) = self.hints.remove(index) {
                    hint.outline = Some((Arc::clone(content), spliced.outline));
                    hint.outline_blob = blob;
                    hint.fresh = true;
                    self.keep(hint);
                }
                Ok(Some(spliced.units))
            }
            Err(refusals) => {
                self.counts.splice_fallbacks += 1;
                for (level, refusal) in refusals {
                    count_refusal(&mut self.refusals, level, refusal);
                }
                Ok(None)
            }
        }
    }

    /// Remembers the exact line hunks from blob `old` to blob `new` (either way round a
    /// later splice may ask for them), forgetting the oldest beyond [`MAX_KNOWN_DIFFS`].
    pub fn remember(&mut self, old: Oid, new: Oid, hunks: &[Hunk]) {
        if self.known.len() == MAX_KNOWN_DIFFS {
            self.known.pop_front();
        }
        self.known.push_back(KnownDiff {
            old,
            new,
            hunks: hunks.to_vec(),
        });
    }

    /// Keeps `hint` for its lineage (replacing the older one), evicting the least recently
    /// used beyond the bounds. A hint over the byte bound drops its (older) tree first.
    fn keep(&mut self, mut hint: Hint) {
        self.hints
            .retain(|old| !(old.language == hint.language && old.lineage == hint.lineage));
        if hint.outline.is_some() && (!self.outlined_trees || hint.bytes() > MAX_HINT_BYTES) {
            hint.tree = None;
        }
        if hint.bytes() > MAX_HINT_BYTES {
            return;
        }
        self.hints.push_back(hint);
        let mut bytes: usize = self.hints.iter().map(Hint::bytes).sum();
        while self.hints.len() > self.max_hints || bytes > MAX_HINT_BYTES {
            let Some(evicted) = self.hints.pop_front() else {
                break;
            };
            bytes -= evicted.bytes();
        }
    }
}

/// Adds one refusal of `level` for `refusal`.
fn count_refusal(refusals: &mut Vec<(Level, Refusal, u64)>, level: Level, refusal: Refusal) {
    match refusals
        .iter_mut()
        .find(|(known_level, known, _)| (*known_level, *known) == (level, refusal))
    {
        Some((_, _, count)) => *count += 1,
        None => refusals.push((level, refusal, 1)),
    }
}

/// The language's parser in `parsers`, made on first use.
fn parser_in(
    parsers: &mut Vec<(Language, Parser)>,
    language: Language,
) -> Result<&mut Parser, ExtractError> {
    let index = match parsers.iter().position(|(known, _)| *known == language) {
        Some(index) => index,
        None => {
            parsers.push((language, language.parser()?));
            parsers.len() - 1
        }
    };
    Ok(&mut parsers[index].1)
}

/// How many threads' caches one database keeps; the one used longest ago is dropped
/// first. Helpers that share out a job hand their hints back and leave
/// ([`retire_thread`]); the bound keeps memory in check when one does not.
const MAX_THREAD_CACHES: usize = 16;

/// A database's parse caches, one per thread that parses in it (a hint of its store,
/// `Db::hints`): a thread checks its cache out while it parses and puts it back after, so
/// threads never wait on each other's parses, and no other database sees them.
#[derive(Default)]
struct ThreadCaches {
    caches: Mutex<Vec<(ThreadId, ParseCache)>>,
    /// Set by [`single_use`].
    single_use: std::sync::atomic::AtomicBool,
}

impl ThreadCaches {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(ThreadId, ParseCache)>> {
        // Every update moves one whole cache in or out.
        self.caches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// This thread's cache, out of the store (an empty one if it has none).
    fn check_out(&self) -> ParseCache {
        let thread = std::thread::current().id();
        let mut caches = self.lock();
        let mut cache = match caches.iter().position(|(owner, _)| *owner == thread) {
            Some(index) => caches.remove(index).1,
            None => ParseCache::default(),
        };
        if self.single_use.load(std::sync::atomic::Ordering::Relaxed) {
            cache.max_hints = SINGLE_USE_HINTS;
        }
        cache
    }

    /// Puts this thread's cache back as the most recently used.
    fn check_in(&self, cache: ParseCache) {
        let thread = std::thread::current().id();
        let mut caches = self.lock();
        // A parse nested in another (none today) checked in an empty cache first.
        caches.retain(|(owner, _)| *owner != thread);
        if caches.len() >= MAX_THREAD_CACHES {
            caches.remove(0);
        }
        caches.push((thread, cache));
    }
}

/// Runs `work` with this thread's parse cache in `store`.
fn with_cache<R>(store: &HintStore, work: impl FnOnce(&mut ParseCache) -> R) -> R {
    let caches = store.get::<ThreadCaches>();
    let mut cache = caches.check_out();
    let result = work(&mut cache);
    caches.check_in(cache);
    result
}

/// The hints a thread's cache keeps in a store that answers once ([`single_use`]): the
/// parse just made, whose tree the call graph's facts read next, and the one before.
const SINGLE_USE_HINTS: usize = 2;

/// Makes every thread's cache in `store` keep at most two hints (`SINGLE_USE_HINTS`), for
/// a database that answers one question and is dropped (`keel callgraph`): no later parse
/// reuses a hint of another file, and the trees of the last [`MAX_HINTS`] files kept by
/// each thread only grew the process (a cold call graph of a TypeScript repository
/// faulted in 30% fewer pages and took 9-15% less CPU). A database that answers again (a
/// watch loop, the language server, `keel impact`'s patched tree) keeps the default.
pub fn single_use(store: &HintStore) {
    store
        .get::<ThreadCaches>()
        .single_use
        .store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Makes this thread's cache in `store` keep no tree beside an outline, for a thread that
/// reads only history (a lint's warming share): it splices each Python version from the
/// last one's outline, and no reader asks it for a tree again (the call graph's facts
/// reread trees of the files they read at a tip, on the thread that read them). A tree
/// costs about 18 times its source, an outline a few KB: a cold lint of click peaked
/// 12 MB lower. A refused splice then parses from scratch instead of incrementally (11
/// of pytest's 1,324 historical images in its scale scenario).
pub fn history_only(store: &HintStore) {
    with_cache(store, |cache| cache.outlined_trees = false);
}

/// [`ParseCache::extract_blob`] with this thread's cache in `store`: what `image_units`
/// parses with.
pub fn extract_reusing(
    store: &HintStore,
    language: Language,
    lineage: &str,
    content: &Arc<[u8]>,
    blob: Option<Oid>,
) -> Result<Vec<Unit>, ExtractError> {
    with_cache(store, |cache| {
        cache.extract_blob(language, lineage, content, blob)
    })
}

/// A Python tree of `source` parsed from scratch with this thread's parser in `store`
/// (`None` if the grammar cannot be loaded or the parse was cancelled).
pub(crate) fn python_tree(store: &HintStore, source: &str) -> Option<Tree> {
    with_cache(store, |cache| {
        parser_in(&mut cache.parsers, Language::Python)
            .ok()?
            .parse(source, None)
    })
}

/// A thread's parse hints, handed to another thread. Threads that share out one job (the
/// call graph's files, a replay's tips) start from the hints of the thread that started
/// them, or of each other, and hand back the ones they made, so the next parse on the
/// receiving thread reparses incrementally what a helper parsed. A hint never changes an
/// answer (module doc), so which thread holds it changes only the time.
#[derive(Clone, Default)]
pub struct Hints(Vec<Hint>);

impl Hints {
    /// The hints several threads made for one job, as one, the smallest sources first:
    /// adopted in that order, a cache too small for all of them keeps the trees that
    /// cost the most to parse again (a tree's parse time grows with its source), and a
    /// later edit of a large file reparses it incrementally.
    pub fn largest_last(made: Vec<Hints>) -> Hints {
        let mut all: Vec<Hint> = made.into_iter().flat_map(|hints| hints.0).collect();
        all.sort_by_key(Hint::bytes);
        Hints(all)
    }
}

/// This thread's hints in `store`, least recently used first (trees are
/// reference-counted: copying them is cheap).
pub fn thread_hints(store: &HintStore) -> Hints {
    with_cache(store, |cache| Hints(cache.hints.iter().cloned().collect()))
}

/// The hints this thread's parses in `store` made since they were last taken (none that
/// it adopted), least recently used first; they are no longer fresh here.
pub fn take_new_hints(store: &HintStore) -> Hints {
    with_cache(store, ParseCache::take_fresh)
}

/// A helper thread is done with `store`'s database: its cache leaves the store, and the
/// hints it made are handed back (to be adopted by the thread that shared out the job).
pub fn retire_thread(store: &HintStore) -> Hints {
    store.get::<ThreadCaches>().check_out().take_fresh()
}

/// Keeps `hints` in this thread's cache in `store`, in their order, each replacing the
/// thread's hint of its lineage, within the cache's bounds, as hints it did not make.
pub fn adopt_hints(store: &HintStore, hints: Hints) {
    with_cache(store, |cache| {
        for mut hint in hints.0 {
            hint.fresh = false;
            cache.keep(hint);
        }
    });
}

/// [`ParseCache::remember`] with this thread's cache in `store`: `image_hunks` tells it
/// the hunks it computed, which the next splice between the same two blobs takes.
pub fn remember_hunks(store: &HintStore, old: Oid, new: Oid, hunks: &[Hunk]) {
    with_cache(store, |cache| cache.remember(old, new, hunks));
}

/// The hunks from blob `from` to blob `to` among `known`, turned round if they were
/// remembered the other way.
fn known_hunks(known: &VecDeque<KnownDiff>, from: Oid, to: Oid) -> Option<Vec<Hunk>> {
    known.iter().rev().find_map(|diff| {
        if (diff.old, diff.new) == (from, to) {
            Some(diff.hunks.clone())
        } else if (diff.old, diff.new) == (to, from) {
            Some(
                diff.hunks
                    .iter()
                    .map(|hunk| Hunk {
                        before: hunk.after.clone(),
                        after: hunk.before.clone(),
                    })
                    .collect(),
            )
        } else {
            None
        }
    })
}

/// An error-free tree of `content` (a version of `lineage`) for a second reader of the
/// same image — the call graph's facts: the tree this thread's cache holds for exactly
/// these bytes (the parse [`extract_reusing`] just did), else the cache's last tree of the
/// lineage reparsed incrementally (kept as the lineage's tree when error-free). `None`
/// when the cache has neither or the reparse has an error; the caller then parses.
pub fn cached_tree(
    store: &HintStore,
    language: Language,
    lineage: &str,
    content: &Arc<[u8]>,
) -> Option<Tree> {
    with_cache(store, |cache| cache.tree_of(language, lineage, content))
}

impl ParseCache {
    /// The hints this cache made since they were last taken; no longer fresh here.
    fn take_fresh(&mut self) -> Hints {
        let fresh = self.hints.iter_mut().filter(|hint| hint.fresh);
        Hints(
            fresh
                .map(|hint| {
                    hint.fresh = false;
                    hint.clone()
                })
                .collect(),
        )
    }

    /// See [`cached_tree`].
    fn tree_of(&mut self, language: Language, lineage: &str, content: &Arc<[u8]>) -> Option<Tree> {
        let index = self
            .hints
            .iter()
            .position(|hint| hint.language == language && hint.lineage == lineage)?;
        let (old, tree) = self.hints[index].tree.as_ref()?;
        if old.as_ref() == content.as_ref() {
            return Some(tree.clone());
        }
        let mut edited = tree.clone();
        for edit in edits(old, content, self.script) {
            edited.edit(&edit);
        }
        let (_, grammar_name) = language.grammar();
        let parser = parser_in(&mut self.parsers, language).ok()?;
        let tree = syntax::run(parser, content, Some(&edited), grammar_name).ok()?;
        if tree.root_node().has_error() {
            return None;
        }
        self.counts.incremental += 1;
        self.hints[index].tree = Some((Arc::clone(content), tree.clone()));
        Some(tree)
    }
}

/// The parses this thread's [`extract_reusing`] cache in `store` has done.
pub fn thread_parse_counts(store: &HintStore) -> ParseCounts {
    with_cache(store, |cache| cache.counts())
}

/// The edits that turn `old` into `new`, in the order to apply them (last in the file
/// first, so each edit's positions are still those of `old`).
fn edits(old: &[u8], new: &[u8], script: EditScript) -> Vec<InputEdit> {
    let mut rows = Rows::default();
    let mut edits: Vec<InputEdit> = changes(old, new, script)
        .into_iter()
        .map(|change| {
            let start_position = rows.at(old, change.start);
            let old_end_position = advance(start_position, &old[change.start..change.old_end]);
            let new_end_position = advance(start_position, &new[change.new_start..change.new_end]);
            InputEdit {
                start_byte: change.start,
                old_end_byte: change.old_end,
                new_end_byte: change.start + (change.new_end - change.new_start),
                start_position,
                old_end_position,
                new_end_position,
            }
        })
        .collect();
    edits.reverse();
    edits
}

/// `old[start..old_end]` became `new[new_start..new_end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    start: usize,
    old_end: usize,
    new_start: usize,
    new_end: usize,
}

/// The changes from `old` to `new` as `script` finds them, [`narrowed`], in file order.
fn changes(old: &[u8], new: &[u8], script: EditScript) -> Vec<Change> {
    let found = match script {
        EditScript::CommonEnds => common_ends(old, new).into_iter().collect(),
        EditScript::LineHunks => hunk_changes(old, new),
    };
    narrowed(old, new, found).collect()
}

/// Each of `changes` told as tightly as tree-sitter reuses best: the bytes its two sides
/// share at the start and at the end are left out, and an insertion or deletion of whole
/// lines (after a `\n`, ending with one) is told one byte earlier, from just before that
/// `\n` to just before its last one — the same bytes, moved across the newline. An edit
/// that touches a line's start makes tree-sitter re-lex the next statement's indentation
/// and reparse the rest of the enclosing Python block (click's `core.py`, a line added to
/// a method: 13 ms, against 0.9 ms told before the newline, about what changing one
/// character costs). Every byte outside the changes is still equal on both sides, so
/// the edits stay exact; they stay disjoint because a line diff's hunks are separated by
/// a common line.
fn narrowed(old: &[u8], new: &[u8], changes: Vec<Change>) -> impl Iterator<Item = Change> {
    let mut previous_end = 0;
    changes.into_iter().map(move |change| {
        let (gone, come) = (
            &old[change.start..change.old_end],
            &new[change.new_start..change.new_end],
        );
        let head = gone.iter().zip(come).take_while(|(a, b)| a == b).count();
        let room = gone.len().min(come.len()) - head;
        let tail = gone
            .iter()
            .rev()
            .zip(come.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        let mut narrow = Change {
            start: change.start + head,
            old_end: change.old_end - tail,
            new_start: change.new_start + head,
            new_end: change.new_end - tail,
        };
        let whole_lines =
            |text: &[u8], start: usize, end: usize| start == end || text[end - 1] == b'\n';
        let one_side_empty = narrow.start == narrow.old_end || narrow.new_start == narrow.new_end;
        if one_side_empty
            && narrow.start > previous_end
            && old[narrow.start - 1] == b'\n'
            && whole_lines(old, narrow.start, narrow.old_end)
            && whole_lines(new, narrow.new_start, narrow.new_end)
        {
            narrow = Change {
                start: narrow.start - 1,
                old_end: narrow.old_end - 1,
                new_start: narrow.new_start - 1,
                new_end: narrow.new_end - 1,
            };
        }
        previous_end = change.old_end;
        narrow
    })
}

/// One change spanning every differing byte, widened to whole lines: its start follows a
/// `\n` (or is 0) and what follows its end is a common suffix starting after a `\n` (or
/// empty). `None` when the contents are equal.
fn common_ends(old: &[u8], new: &[u8]) -> Option<Change> {
    let same = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    if same == old.len() && same == new.len() {
        return None;
    }
    let start = line_start_at_or_before(old, same);
    let room = old.len().min(new.len()) - start;
    let tail = old[start..]
        .iter()
        .rev()
        .zip(new[start..].iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    // The common suffix, shortened to begin just after its first `\n` (the same byte in
    // both, so the remaining suffix starts a line on both sides).
    let suffix = &old[old.len() - tail..];
    let tail = suffix
        .iter()
        .position(|&byte| byte == b'\n')
        .map_or(0, |newline| tail - newline - 1);
    Some(Change {
        start,
        old_end: old.len() - tail,
        new_start: start,
        new_end: new.len() - tail,
    })
}

/// The offset of the start of the line holding `offset` (just after the previous `\n`).
fn line_start_at_or_before(text: &[u8], offset: usize) -> usize {
    text[..offset]
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |newline| newline + 1)
}

/// One change per hunk of keel's line diff, in file order.
fn hunk_changes(old: &[u8], new: &[u8]) -> Vec<Change> {
    let (old_lines, new_lines) = (syntax::line_starts(old), syntax::line_starts(new));
    // Hunk lines lie within 0..=line count and `line_starts` holds one more entry than
    // there are lines (the end), so the lookup hits; the fallback (the end) is not taken.
    let offset = |starts: &[usize], end: usize, line: u32| {
        usize::try_from(line)
            .ok()
            .and_then(|line| starts.get(line).copied())
            .unwrap_or(end)
    };
    changed_stretch_hunks(old, new)
        .into_iter()
        .map(|hunk| Change {
            start: offset(&old_lines, old.len(), hunk.before.start),
            old_end: offset(&old_lines, old.len(), hunk.before.end),
            new_start: offset(&new_lines, new.len(), hunk.after.start),
            new_end: offset(&new_lines, new.len(), hunk.after.end),
        })
        .collect()
}

/// Converts increasing byte offsets of one text to tree-sitter points in one pass.
#[derive(Default)]
struct Rows {
    offset: usize,
    point: Point,
}

impl Rows {
    /// The point of `offset` (not before the previous one asked).
    fn at(&mut self, text: &[u8], offset: usize) -> Point {
        self.point = advance(self.point, &text[self.offset..offset]);
        self.offset = offset;
        self.point
    }
}

/// Where a text ends that starts at `start`: rows advance at `\n` only, columns count
/// bytes (tree-sitter's `Point`), so `\r` and multibyte characters are ordinary bytes.
fn advance(start: Point, text: &[u8]) -> Point {
    match text.iter().rposition(|&byte| byte == b'\n') {
        Some(last) => Point {
            row: start.row + text.iter().filter(|&&byte| byte == b'\n').count(),
            column: text.len() - last - 1,
        },
        None => Point {
            row: start.row,
            column: start.column + text.len(),
        },
    }
}

/// What tests of the hints' hand-off between threads share: two versions of one Python
/// file, the second of which splices from the first's outline, and a parse on a thread of
/// its own (whose parse cache starts empty).
#[cfg(test)]
pub(crate) mod testing {
    use super::{HintStore, Language, ParseCounts, extract_reusing, thread_parse_counts};
    use std::sync::Arc;

    /// The first version of the file.
    pub(crate) const FIRST: &str = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
    /// The second: one function's body edited, so it splices from [`FIRST`]'s outline.
    pub(crate) const SECOND: &str =
        "def f():\n    x = 1\n    return x\n\n\ndef g():\n    return 2\n";

    pub(crate) fn bytes(text: &str) -> Arc<[u8]> {
        Arc::from(text.as_bytes())
    }

    /// `work`'s answer, run on a new thread (whose parse cache starts empty).
    pub(crate) fn on_new_thread<T: Send>(work: impl FnOnce() -> T + Send) -> T {
        std::thread::scope(|scope| scope.spawn(work).join().expect("the helper ran"))
    }

    /// On a new thread: `before`, then a parse of `text` as `lineage` in `store` (equal to
    /// a full parse); the thread's parse counts.
    pub(crate) fn parsed_on_new_thread(
        store: &HintStore,
        lineage: &str,
        text: &str,
        before: impl FnOnce() + Send,
    ) -> ParseCounts {
        on_new_thread(|| {
            before();
            let content = bytes(text);
            let units = extract_reusing(store, Language::Python, lineage, &content, None);
            assert_eq!(
                units,
                crate::extract::extract_as(Language::Python, &content)
            );
            thread_parse_counts(store)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{FIRST, SECOND, bytes, on_new_thread, parsed_on_new_thread};
    use super::*;
    use crate::extract::extract_as;

    /// The point of `offset` counted naively: rows at `\n`, columns in bytes.
    fn naive_point(text: &[u8], offset: usize) -> Point {
        let before = &text[..offset];
        let row = before.iter().filter(|&&byte| byte == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |newline| newline + 1);
        Point {
            row,
            column: offset - line_start,
        }
    }

    /// Applies the edits' byte ranges to `old`, taking inserted bytes from `new` through
    /// `changes`, and checks every point against the text as it stands at that edit.
    fn check_edits(old: &str, new: &str, script: EditScript) {
        let (old, new) = (old.as_bytes(), new.as_bytes());
        let changes = changes(old, new, script);
        let edits = edits(old, new, script);
        assert_eq!(edits.len(), changes.len());
        let mut text = old.to_vec();
        for (edit, change) in edits.iter().zip(changes.iter().rev()) {
            assert_eq!(edit.start_position, naive_point(&text, edit.start_byte));
            assert_eq!(edit.old_end_position, naive_point(&text, edit.old_end_byte));
            text.splice(
                edit.start_byte..edit.old_end_byte,
                new[change.new_start..change.new_end].iter().copied(),
            );
            assert_eq!(edit.new_end_position, naive_point(&text, edit.new_end_byte));
        }
        assert_eq!(text, new, "the edits rebuild the new text");
    }

    #[test]
    fn edit_points_count_rows_at_newlines_and_columns_in_bytes() {
        let cases = [
            ("a\r\nb\r\nc\r\n", "a\r\nbé\r\nc\r\n"),
            ("x = 'ü'\r\ny = 1\r\n", "x = 'ü'\r\nz = '日本'\r\ny = 1\r\n"),
            ("def f():\n    pass", "def f():\n    return 'ß'"),
            ("a\nb\nc\nd\ne\n", "A\nb\nc\nD\ne\nf"),
            ("one\r\ntwo\nthree", "one\ntwo\r\nthree\n"),
            ("", "new\r\n"),
            ("gone\n", ""),
            ("🦀\n🦀\n", "🦀\n🦀🦀\n"),
            ("same\n", "same\n"),
        ];
        for (old, new) in cases {
            for script in [EditScript::LineHunks, EditScript::CommonEnds] {
                check_edits(old, new, script);
                check_edits(new, old, script);
            }
        }
    }

    #[test]
    fn a_splice_takes_remembered_hunks_either_way_round_and_stays_exact() {
        let methods: String = (0..40)
            .map(|i| format!("    def m{i}(self):\n        return {i}\n\n"))
            .collect();
        let old = bytes(&format!("class A:\n{methods}"));
        let new = bytes(&format!(
            "class A:\n{}",
            methods.replace("return 7\n", "return 8\n")
        ));
        let (a, b) = (
            Oid::from_hex(&"a".repeat(40)),
            Oid::from_hex(&"b".repeat(40)),
        );
        let (Some(a), Some(b)) = (a, b) else {
            panic!("forty hex digits are an id");
        };
        let lines = |text: &[u8]| text.iter().filter(|&&byte| byte == b'\n').count() as u32;
        // An exact but coarse script: everything changed. Taken, the splice parses the
        // whole class; diffing itself, it parses one statement.
        let coarse = [Hunk {
            before: 0..lines(&old),
            after: 0..lines(&new),
        }];
        let coarse_reversed: Vec<Hunk> = coarse
            .iter()
            .map(|hunk| Hunk {
                before: hunk.after.clone(),
                after: hunk.before.clone(),
            })
            .collect();
        let spliced_bytes = |remember: Option<(Oid, Oid, &[Hunk])>| {
            let mut cache = ParseCache::default();
            let _ = cache.extract_blob(Language::Python, "m.py", &old, Some(a));
            if let Some((from, to, hunks)) = remember {
                cache.remember(from, to, hunks);
            }
            let before = cache.counts();
            let units = cache.extract_blob(Language::Python, "m.py", &new, Some(b));
            assert_eq!(units, extract_as(Language::Python, &new));
            let counts = cache.counts().since(before);
            assert_eq!(counts.spliced, 1, "{counts:?}");
            counts.spliced_bytes
        };
        let own = spliced_bytes(None);
        assert!(own < 100, "{own}");
        // Remembered from `a` to `b`, or from `b` to `a` (turned round).
        assert!(spliced_bytes(Some((a, b, &coarse))) > old.len() as u64 / 2);
        assert!(spliced_bytes(Some((b, a, &coarse_reversed))) > old.len() as u64 / 2);
        // Hunks of other blobs are not taken.
        assert_eq!(spliced_bytes(Some((b, b, &coarse))), own);
    }

    #[test]
    fn changes_leave_out_shared_bytes_and_tell_whole_lines_before_their_newline() {
        let change = |start, old_end, new_start, new_end| Change {
            start,
            old_end,
            new_start,
            new_end,
        };
        let changed = |old: &str, new: &str| {
            let hunks = changes(old.as_bytes(), new.as_bytes(), EditScript::LineHunks);
            let common = changes(old.as_bytes(), new.as_bytes(), EditScript::CommonEnds);
            assert_eq!(hunks, common, "one change: both scripts agree");
            hunks
        };
        // One character of a line: only it.
        assert_eq!(
            changed("a\nx = 1\nb\n", "a\nx = 2\nb\n"),
            [change(6, 7, 6, 7)]
        );
        // A line added after a `\n`: told from that `\n` to just before the new one.
        assert_eq!(changed("a\nb\n", "a\nnew\nb\n"), [change(1, 1, 1, 5)]);
        // A line removed likewise; at the start of the file there is no `\n` before it.
        assert_eq!(changed("a\ngone\nb\n", "a\nb\n"), [change(1, 6, 1, 1)]);
        assert_eq!(changed("gone\nb\n", "b\n"), [change(0, 5, 0, 0)]);
        // A last line without a `\n` is not whole: it stays where the diff put it.
        assert_eq!(changed("a\n", "a\nend"), [change(2, 2, 2, 5)]);
    }

    #[test]
    fn common_ends_widen_to_whole_lines() {
        let change = common_ends(b"ab\ncd\nef\n", b"ab\ncX\nef\n");
        let expected = Change {
            start: 3,
            old_end: 6,
            new_start: 3,
            new_end: 6,
        };
        assert_eq!(change, Some(expected));
        assert_eq!(common_ends(b"same", b"same"), None);
    }

    #[test]
    fn a_single_use_store_keeps_only_the_latest_hints() {
        let (once, kept) = (HintStore::default(), HintStore::default());
        single_use(&once);
        let files: Vec<(String, Arc<[u8]>)> = (0..=SINGLE_USE_HINTS)
            .map(|n| {
                (
                    format!("f{n}.ts"),
                    bytes(&format!("function f{n}() {{}}\n")),
                )
            })
            .collect();
        for store in [&once, &kept] {
            for (path, content) in &files {
                let _ = extract_reusing(store, Language::TypeScript, path, content, None);
            }
        }
        let tree_of = |store: &HintStore, (path, content): &(String, Arc<[u8]>)| {
            cached_tree(store, Language::TypeScript, path, content).is_some()
        };
        let (first, last) = (&files[0], &files[SINGLE_USE_HINTS]);
        assert!(
            tree_of(&once, last),
            "the latest parse's tree is there for the facts"
        );
        assert!(!tree_of(&once, first), "the oldest hint went");
        assert!(tree_of(&kept, first), "a store answering again keeps it");
    }

    #[test]
    fn a_history_thread_keeps_outlines_without_trees_and_answers_alike() {
        let versions = [
            "class A:\n    def f(self):\n        return 1\n",
            "class A:\n    def f(self):\n        return 2\n\n    def g(self): ...\n",
            "class A:\n    def f(self:\n        return 2\n",
            "class A:\n    @property\n    def f(self):\n        return 2\n",
        ];
        let lineage = "a_history_thread_keeps_outlines_without_trees.py";
        let (history, tip) = (HintStore::default(), HintStore::default());
        history_only(&history);
        for version in versions {
            let content = bytes(version);
            for store in [&history, &tip] {
                assert_eq!(
                    extract_reusing(store, Language::Python, lineage, &content, None),
                    extract_as(Language::Python, &content),
                    "{version}"
                );
            }
        }
        let (kept, made) = (thread_parse_counts(&history), thread_parse_counts(&tip));
        // Both spliced the second and fourth versions from an outline; the broken third
        // was refused by both, and only the cache that kept a tree reparsed it
        // incrementally: the history thread parsed it from scratch.
        assert_eq!((kept.spliced, made.spliced), (2, 2), "{kept:?} {made:?}");
        assert_eq!(
            (kept.incremental, made.incremental),
            (0, 1),
            "{kept:?} {made:?}"
        );
        assert_eq!((kept.full, made.full), (2, 2), "{kept:?} {made:?}");
        let last = bytes(versions[3]);
        assert!(cached_tree(&history, Language::Python, lineage, &last).is_none());
        assert!(cached_tree(&tip, Language::Python, lineage, &last).is_some());
        // A TypeScript lineage has no outline: its tree is kept on a history thread too.
        let ts = bytes("function f() {}\n");
        let _ = extract_reusing(&history, Language::TypeScript, "a.ts", &ts, None);
        assert!(cached_tree(&history, Language::TypeScript, "a.ts", &ts).is_some());
    }

    #[test]
    fn the_thread_cache_reparses_incrementally_with_full_parse_answers() {
        let versions = [
            "class A:\n    def f(self):\n        return 1\n",
            "class A:\n    def f(self):\n        return 2\n\n    def g(self): ...\n",
            "class A:\n    def f(self:\n        return 2\n",
            "class A:\n    @property\n    def f(self):\n        return 2\n",
        ];
        let lineage = "the_thread_cache_reparses_incrementally_with_full_parse_answers.py";
        let store = HintStore::default();
        let before = thread_parse_counts(&store);
        for version in versions {
            let content = bytes(version);
            assert_eq!(
                extract_reusing(&store, Language::Python, lineage, &content, None),
                extract_as(Language::Python, &content),
                "{version}"
            );
        }
        let after = thread_parse_counts(&store);
        // The second and fourth versions were spliced (the fourth from the second's
        // outline); the broken third one was refused, reparsed incrementally, came out with
        // an error and was parsed again from scratch, as was the first version.
        assert_eq!(after.spliced - before.spliced, 2, "{after:?}");
        assert_eq!(
            after.splice_fallbacks - before.splice_fallbacks,
            1,
            "{after:?}"
        );
        assert_eq!(after.incremental - before.incremental, 1, "{after:?}");
        assert_eq!(after.retried - before.retried, 1, "{after:?}");
        assert_eq!(after.full - before.full, 2, "{after:?}");
    }

    #[test]
    fn hints_handed_back_by_a_helper_thread_make_the_next_parse_a_splice() {
        let lineage = "hints_handed_back_by_a_helper_thread.py";
        let store = HintStore::default();
        let made = on_new_thread(|| {
            extract_reusing(&store, Language::Python, lineage, &bytes(FIRST), None)
                .expect("parses");
            let made = take_new_hints(&store);
            assert!(take_new_hints(&store).0.is_empty(), "taken once");
            made
        });
        assert_eq!(made.0.len(), 1, "the helper made one hint");
        let handed_back = on_new_thread(|| {
            adopt_hints(&store, made.clone());
            (thread_hints(&store).0.len(), take_new_hints(&store))
        });
        assert_eq!(handed_back.0, 1, "the hint was adopted");
        assert!(
            handed_back.1.0.is_empty(),
            "a thread that parsed nothing made nothing"
        );
        // Without the hints the second version is parsed from scratch (the control); with
        // them it is spliced from the first one's outline.
        let cold = parsed_on_new_thread(&store, lineage, SECOND, || {});
        let adopted = parsed_on_new_thread(&store, lineage, SECOND, || {
            adopt_hints(&store, made.clone());
        });
        assert_eq!((cold.full, cold.spliced), (1, 0), "{cold:?}");
        assert_eq!((adopted.full, adopted.spliced), (0, 1), "{adopted:?}");
    }

    #[test]
    fn a_database_never_parses_with_another_ones_hints() {
        let lineage = "a_database_never_parses_with_another_ones_hints.py";
        let (first, second) = (bytes(FIRST), bytes(SECOND));
        let (one, other) = (HintStore::default(), HintStore::default());
        extract_reusing(&one, Language::Python, lineage, &first, None).expect("parses");
        let units = extract_reusing(&other, Language::Python, lineage, &second, None);
        assert_eq!(units, extract_as(Language::Python, &second));
        let counts = thread_parse_counts(&other);
        assert_eq!((counts.full, counts.spliced), (1, 0), "{counts:?}");
        // The control: the same second parse in the first store is a splice.
        extract_reusing(&one, Language::Python, lineage, &second, None).expect("parses");
        assert_eq!(thread_parse_counts(&one).spliced, 1);
    }

    #[test]
    fn a_retired_thread_hands_back_its_hints_and_leaves_the_store() {
        let lineage = "a_retired_thread_hands_back_its_hints.py";
        let store = HintStore::default();
        let made = on_new_thread(|| {
            extract_reusing(&store, Language::Python, lineage, &bytes("x = 1\n"), None)
                .expect("parses");
            retire_thread(&store)
        });
        assert_eq!(made.0.len(), 1, "the helper's hint came back");
        assert!(
            store.get::<ThreadCaches>().lock().is_empty(),
            "the helper's cache left the store"
        );
    }

    #[test]
    fn a_lineage_or_language_never_borrows_another_ones_tree() {
        let mut cache = ParseCache::default();
        let source = bytes("function f() {}\n");
        let _ = cache.extract(Language::TypeScript, "a.ts", &source);
        let _ = cache.extract(Language::TypeScript, "b.ts", &source);
        let _ = cache.extract(Language::Tsx, "a.ts", &source);
        assert_eq!(cache.counts().incremental, 0);
        let _ = cache.extract(Language::TypeScript, "a.ts", &bytes("function g() {}\n"));
        assert_eq!(cache.counts().incremental, 1);
    }

    #[test]
    fn a_moved_file_reparses_from_the_hint_of_its_old_folder() {
        let mut cache = ParseCache::default();
        let old = bytes("def f():\n    return 1\n\n\ndef g():\n    return 2\n");
        let moved = bytes("def f():\n    return 1\n\n\ndef g():\n    return 3\n");
        let _ = cache.extract(Language::Python, "click/core.py", &old);
        let before = cache.counts();
        let units = cache.extract(Language::Python, "src/click/core.py", &moved);
        assert_eq!(units, extract_as(Language::Python, &moved));
        let after = cache.counts();
        assert_eq!(after.full, before.full, "no parse from scratch: {after:?}");
        assert_eq!(after.spliced, before.spliced + 1, "{after:?}");
    }

    #[test]
    fn the_cache_stays_within_its_bounds() {
        let mut cache = ParseCache::default();
        for index in 0..3 * MAX_HINTS {
            let source = bytes(&format!("def f{index}(): ...\n"));
            let _ = cache.extract(Language::Python, &format!("file{index}.py"), &source);
            assert!(cache.hints.len() <= MAX_HINTS);
        }
        let large = Arc::from(vec![b'\n'; MAX_HINT_BYTES + 1]);
        let _ = cache.extract(Language::Python, "large.py", &large);
        assert!(cache.hints.iter().all(|hint| hint.lineage != "large.py"));
        let total: usize = cache.hints.iter().map(Hint::bytes).sum();
        assert!(total <= MAX_HINT_BYTES);
    }

    #[test]
    fn hints_of_several_threads_are_adopted_so_the_largest_sources_stay() {
        // Two threads' hints, more than one cache holds; the large file was parsed first.
        let mut first = ParseCache::default();
        let large = bytes(&"def f():\n    return 1\n".repeat(200));
        let _ = first.extract(Language::Python, "large.py", &large);
        let mut second = ParseCache::default();
        for index in 0..MAX_HINTS {
            let small = bytes(&format!("def f{index}(): ...\n"));
            let _ = second.extract(Language::Python, &format!("small{index}.py"), &small);
        }
        let made = vec![Hints(first.hints.into()), Hints(second.hints.into())];
        let in_made_order: Vec<Hint> = made.iter().flat_map(|hints| hints.0.clone()).collect();

        let mut naive = ParseCache::default();
        in_made_order.into_iter().for_each(|hint| naive.keep(hint));
        assert!(
            naive.hints.iter().all(|hint| hint.lineage != "large.py"),
            "the control: adopted in the order made, the large tree is evicted"
        );

        let mut receiver = ParseCache::default();
        Hints::largest_last(made)
            .0
            .into_iter()
            .for_each(|hint| receiver.keep(hint));
        assert_eq!(receiver.hints.len(), MAX_HINTS);
        assert!(receiver.hints.iter().any(|hint| hint.lineage == "large.py"));
    }

    #[test]
    fn errors_come_in_the_full_parse_order() {
        let mut cache = ParseCache::default();
        let _ = cache.extract(Language::Python, "m.py", &bytes("x = 1\n"));
        let not_utf8: Arc<[u8]> = Arc::from(&b"x = 1\n\xff\n"[..]);
        assert_eq!(
            cache.extract(Language::Python, "m.py", &not_utf8),
            extract_as(Language::Python, &not_utf8)
        );
    }
}
