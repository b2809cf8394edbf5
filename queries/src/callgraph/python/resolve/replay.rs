//! Replaying a file's resolution across an edit of one fragment: what each group of the
//! file's sites did in each round of the previous resolution of the same file, kept so
//! that the next resolution evaluates only the groups the edit can change.
//!
//! Owns: the groups of a file's sites and stores ([`groups`]: a fragment's, or the
//! skeleton's run between two fragments), the record of one resolution ([`Record`]: per
//! round and group, the chunks the group read, the flow slots it read, the entries it
//! tried to add to slots, and its sites' outcomes), which groups of a new resolution a
//! record answers ([`Replay`]), the translation of a record's ids into the edited file's
//! ids, and the records kept (the latest few of each file path, [`remember`],
//! [`recall`]): hints beside salsa's memos, as the parse hints are, which never change an
//! answer.
//! Does not own: evaluating a group (`resolve::Eval`).
//!
//! Why a replayed group's run equals the run a fresh resolution makes: each group is
//! evaluated with caches of its own, from its sites, the facts it reads, the other files'
//! interfaces and the flow slots it reads, so its run is a function of those. A record
//! answers a group when the new file's text differs from the recorded one only inside
//! one fragment (`x`), whose chunk adds the same names and stores to the skeleton
//! (`Chunk::adds_to_skeleton_as`; what reaches the module's or a class's end is in the
//! file's interface too, so the program's equality already holds most of it), and the
//! other files' interfaces are equal: then the two files' facts are equal outside
//! `x`'s ids, the ids after it shifted. And the group must have read nothing of `x` (its
//! expressions and scopes are reached only by evaluating `x`'s expressions, which marks
//! it; looking through every class of the file counts as reading `x` when `x` holds a
//! class), and no slot it read
//! may hold anything else than it held in the recorded run (every group before it in the
//! run was replayed, or was evaluated again and tried to add the same entries to that
//! slot, `x`'s own ids aside: a reader of an entry evaluates it and so reads `x`).
//! `tests/it/callgraph_edits.rs` checks replayed answers against fresh ones over random
//! edits, and `tests/it/callgraph_python.rs` the cases that need each rule: an argument
//! read through `x`, an attribute store renamed in `x`, ids shifted by `x`'s growth.

use super::super::Program;
use super::super::facts::{ExprId, Facts, Layout, ScopeId, Site};
use super::dispatch::Receivers;
use super::{ItemStore, Mod, Value};
use crate::callgraph::NodeId;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::ops::Range;
use std::sync::Arc;

/// The module number of the file being resolved (as in `resolve`).
const CURRENT: Mod = 0;

/// One group of a file's sites and stores.
#[derive(Debug, Clone)]
pub(super) struct Group {
    /// The fragment's ordinal in the layout; `None` for the skeleton's.
    pub(super) chunk: Option<usize>,
    pub(super) sites: Range<usize>,
    pub(super) stores: Range<usize>,
}

/// The groups of `facts`: for each fragment in order, the skeleton's sites and stores
/// before it, then its own; then the skeleton's after the last. Facts walked whole are
/// one group.
pub(super) fn groups(facts: &Facts) -> Vec<Group> {
    let chunks = &facts.layout.chunks;
    if chunks.is_empty() {
        return vec![Group {
            chunk: None,
            sites: 0..facts.sites.len(),
            stores: 0..facts.stores.len(),
        }];
    }
    let mut groups = Vec::with_capacity(2 * chunks.len() + 1);
    let (mut site, mut store) = (0, 0);
    for (ordinal, chunk) in chunks.iter().enumerate() {
        groups.push(Group {
            chunk: None,
            sites: site..chunk.sites.start as usize,
            stores: store..chunk.stores.start as usize,
        });
        groups.push(Group {
            chunk: Some(ordinal),
            sites: chunk.sites.start as usize..chunk.sites.end as usize,
            stores: chunk.stores.start as usize..chunk.stores.end as usize,
        });
        (site, store) = (chunk.sites.end as usize, chunk.stores.end as usize);
    }
    groups.push(Group {
        chunk: None,
        sites: site..facts.sites.len(),
        stores: store..facts.stores.len(),
    });
    groups
}

/// A flow slot a group read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Slot {
    /// The arguments the file passes to parameter `index` of one of its functions.
    Param(ScopeId, u32),
    /// `obj.name = value` stores on a class (or its instances).
    Attr(Mod, ScopeId),
    /// `obj[key] = value` stores into a container.
    Item(Value),
}

/// An entry a group tried to add to a slot (added when new).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Attempt {
    Arg {
        function: ScopeId,
        index: u32,
        arg: ExprId,
    },
    Attr {
        class: (Mod, ScopeId),
        name: Box<str>,
        value: ExprId,
    },
    Item {
        container: Value,
        store: ItemStore,
    },
}

impl Attempt {
    fn slot(&self) -> Slot {
        match self {
            Self::Arg {
                function, index, ..
            } => Slot::Param(*function, *index),
            Self::Attr { class, .. } => Slot::Attr(class.0, class.1),
            Self::Item { container, .. } => Slot::Item(*container),
        }
    }
}

/// The virtual sites of `facts` with their receivers, as the runs of one round of its
/// groups (in [`groups`] order) read them.
pub(super) fn virtual_sites<'a>(
    facts: &'a Facts,
    runs: &'a [Arc<GroupRun>],
) -> Vec<(&'a Site, &'a Receivers)> {
    let mut out = Vec::new();
    for (group, run) in groups(facts).iter().zip(runs) {
        let sites = facts.sites[group.sites.clone()].iter();
        for (site, receivers) in sites.zip(run.receivers.iter()) {
            if let Some(receivers) = receivers {
                out.push((site, receivers));
            }
        }
    }
    out
}

/// What one group's evaluation did in one round.
#[derive(Debug, Clone, Default)]
pub(super) struct GroupRun {
    /// The chunks whose expressions it evaluated, by ordinal (a bit set).
    pub(super) read: Vec<u64>,
    /// Whether it looked through every class of the file (`subclass_attr`).
    pub(super) scanned: bool,
    pub(super) slots: Vec<Slot>,
    pub(super) attempts: Vec<Attempt>,
    /// Per site of the group: the nodes it calls, and whether it is settled without them.
    pub(super) outcomes: Arc<[(Vec<NodeId>, bool)]>,
    /// Per site of the group: its receivers when it is a virtual call (`dispatch`).
    pub(super) receivers: Arc<[Option<Receivers>]>,
}

impl GroupRun {
    fn reads_chunk(&self, ordinal: usize) -> bool {
        self.read
            .get(ordinal / 64)
            .is_some_and(|word| word & (1 << (ordinal % 64)) != 0)
    }
}

/// One resolution of one file.
pub(super) struct Record {
    /// Every Python file of the tree with its interface.
    program: Program,
    layout: Layout,
    /// Per round, per group.
    rounds: Vec<Vec<Arc<GroupRun>>>,
}

impl Record {
    pub(super) fn new(program: &Program, facts: &Facts, rounds: Vec<Vec<Arc<GroupRun>>>) -> Self {
        Self {
            program: Arc::clone(program),
            layout: facts.layout.clone(),
            rounds,
        }
    }
}

/// The kinds of id a record holds.
#[derive(Debug, Clone, Copy)]
enum IdKind {
    Expr,
    Scope,
    Block,
    Position,
}

/// Stands for an id of the edited fragment's own when two runs' attempts are compared.
const BLANK: u32 = u32::MAX;

/// `value` with its ids of this file mapped by `map`.
fn map_value(value: Value, map: &impl Fn(IdKind, u32) -> u32) -> Value {
    let scope = |s: ScopeId| map(IdKind::Scope, s);
    let expr = |e: ExprId| map(IdKind::Expr, e);
    match value {
        Value::Func(CURRENT, s) => Value::Func(CURRENT, scope(s)),
        Value::Bound(CURRENT, s) => Value::Bound(CURRENT, scope(s)),
        Value::Behind(CURRENT, s) => Value::Behind(CURRENT, scope(s)),
        Value::BoundBehind(CURRENT, s) => Value::BoundBehind(CURRENT, scope(s)),
        Value::Class(CURRENT, s) => Value::Class(CURRENT, scope(s)),
        Value::Instance(CURRENT, s) => Value::Instance(CURRENT, scope(s)),
        Value::Gen(CURRENT, s) => Value::Gen(CURRENT, scope(s)),
        Value::Super(CURRENT, s) => Value::Super(CURRENT, scope(s)),
        Value::Seq(CURRENT, e, skip) => Value::Seq(CURRENT, expr(e), skip),
        Value::Dict(CURRENT, e) => Value::Dict(CURRENT, expr(e)),
        Value::Const(CURRENT, e) => Value::Const(CURRENT, expr(e)),
        Value::Result(CURRENT, e, builtin) => Value::Result(CURRENT, expr(e), builtin),
        other => other,
    }
}

/// Old ids mapped to new ones across a change of one chunk: ids before it are equal,
/// ids after it shift by its change in size, its own have no counterpart.
#[derive(Debug, Clone)]
struct Shift {
    old: Range<u32>,
    new_len: u32,
}

impl Shift {
    fn keeps_size(&self) -> bool {
        self.old.end - self.old.start == self.new_len
    }

    fn map(&self, id: u32) -> Option<u32> {
        if id < self.old.start {
            Some(id)
        } else if id < self.old.end {
            None
        } else {
            Some(id - (self.old.end - self.old.start) + self.new_len)
        }
    }
}

/// A record applied to a new resolution of its file, edited inside one fragment.
pub(super) struct Replay {
    record: Arc<Record>,
    /// The edited fragment's ordinal, and whether it holds a class scope (old or new).
    x: usize,
    x_classes: bool,
    exprs: Shift,
    scopes: Shift,
    blocks: Shift,
    positions: Shift,
    /// Slots whose entries may differ from the recorded run's.
    changed: HashSet<Slot>,
    /// Whether `x` keeps its numbers of ids and positions, so that no id moves.
    same_size: bool,
}

impl Replay {
    /// The replay of `record` for `facts`, the file `path` of text `source` against
    /// `program`, when its text differs from the recorded one inside exactly one
    /// fragment whose chunk adds the same to the skeleton, and the program is equal.
    pub(super) fn new(record: Arc<Record>, program: &Program, facts: &Facts) -> Option<Self> {
        let x = record.layout.single_change(&facts.layout)?;
        let (old_x, new_x) = (&record.layout.chunks[x], &facts.layout.chunks[x]);
        if !old_x.chunk.adds_to_skeleton_as(&new_x.chunk)
            || !(Arc::ptr_eq(&record.program, program) || *record.program == **program)
        {
            return None;
        }
        let shift = |old: &Range<u32>, new: &Range<u32>| Shift {
            old: old.clone(),
            new_len: new.end - new.start,
        };
        let exprs = shift(&old_x.exprs, &new_x.exprs);
        let scopes = shift(&old_x.scopes, &new_x.scopes);
        let blocks = shift(&old_x.blocks, &new_x.blocks);
        let positions = shift(&old_x.positions, &new_x.positions);
        Some(Self {
            x,
            x_classes: old_x.chunk.holds_class() || new_x.chunk.holds_class(),
            same_size: [&exprs, &scopes, &blocks, &positions]
                .iter()
                .all(|shift| shift.keeps_size()),
            exprs,
            scopes,
            blocks,
            positions,
            changed: HashSet::default(),
            record,
        })
    }

    /// The recorded run of group `group` in round `round`, in the new file's ids, when it
    /// is the run a fresh evaluation would make.
    pub(super) fn reusable(
        &self,
        round: usize,
        group: &Group,
        index: usize,
    ) -> Option<Arc<GroupRun>> {
        if group.chunk == Some(self.x) {
            return None;
        }
        let old = self.record.rounds.get(round)?.get(index)?;
        if old.reads_chunk(self.x) || (old.scanned && self.x_classes) {
            return None;
        }
        if self.same_size {
            // Every id outside `x` keeps its number: the run is the recorded one.
            return (!old.slots.iter().any(|slot| self.changed.contains(slot)))
                .then(|| Arc::clone(old));
        }
        let slots = old
            .slots
            .iter()
            .map(|slot| self.slot(slot))
            .collect::<Option<Vec<Slot>>>()?;
        if slots.iter().any(|slot| self.changed.contains(slot)) {
            return None;
        }
        let attempts = old
            .attempts
            .iter()
            .map(|attempt| self.attempt(attempt))
            .collect::<Option<Vec<Attempt>>>()?;
        Some(Arc::new(GroupRun {
            read: old.read.clone(),
            scanned: old.scanned,
            slots,
            attempts,
            outcomes: Arc::clone(&old.outcomes),
            receivers: Arc::clone(&old.receivers),
        }))
    }

    /// Notes a group evaluated again: the slots where its attempts differ from the
    /// recorded ones (`x`'s own ids aside) may now hold other entries.
    pub(super) fn evaluated(&mut self, round: usize, index: usize, run: &GroupRun) {
        let old: &[Attempt] = self
            .record
            .rounds
            .get(round)
            .and_then(|runs| runs.get(index))
            .map_or(&[], |old| &old.attempts);
        // Per slot, how many times each entry was tried, with `x`'s own ids blanked: a
        // reader of such an entry evaluates it and so reads `x`, but what else the entry
        // says (an attribute's name, a store's key and place outside `x`) must match.
        let mut counts: HashMap<Slot, HashMap<Attempt, i64>> = HashMap::default();
        for attempt in old {
            let Some(slot) = self.slot(&attempt.slot()) else {
                // A slot of `x`'s own: whoever reads it evaluates `x`.
                continue;
            };
            let blanked = self.map_attempt(attempt, |kind, id| self.old_id(kind, id));
            *counts.entry(slot).or_default().entry(blanked).or_default() += 1;
        }
        for attempt in &run.attempts {
            let slot = attempt.slot();
            if self.new_in_x_slot(&slot) {
                continue;
            }
            let blanked = self.map_attempt(attempt, |kind, id| self.new_id(kind, id));
            *counts.entry(slot).or_default().entry(blanked).or_default() -= 1;
        }
        for (slot, entries) in counts {
            if entries.values().any(|&count| count != 0) {
                self.changed.insert(slot);
            }
        }
    }

    /// An old id in the new file's numbering, `BLANK` for one of `x`'s own.
    fn old_id(&self, kind: IdKind, id: u32) -> u32 {
        self.shift(kind).map(id).unwrap_or(BLANK)
    }

    /// A new id, `BLANK` for one of `x`'s own.
    fn new_id(&self, kind: IdKind, id: u32) -> u32 {
        let shift = self.shift(kind);
        let start = shift.old.start;
        match id >= start && id < start + shift.new_len {
            true => BLANK,
            false => id,
        }
    }

    fn shift(&self, kind: IdKind) -> &Shift {
        match kind {
            IdKind::Expr => &self.exprs,
            IdKind::Scope => &self.scopes,
            IdKind::Block => &self.blocks,
            IdKind::Position => &self.positions,
        }
    }

    /// `attempt` with each of its ids of this file mapped by `map`.
    fn map_attempt(&self, attempt: &Attempt, map: impl Fn(IdKind, u32) -> u32) -> Attempt {
        let value = |value: Value| map_value(value, &map);
        match attempt {
            Attempt::Arg {
                function,
                index,
                arg,
            } => Attempt::Arg {
                function: map(IdKind::Scope, *function),
                index: *index,
                arg: map(IdKind::Expr, *arg),
            },
            Attempt::Attr { class, name, value } => Attempt::Attr {
                class: match class {
                    (CURRENT, s) => (CURRENT, map(IdKind::Scope, *s)),
                    other => *other,
                },
                name: name.clone(),
                value: map(IdKind::Expr, *value),
            },
            Attempt::Item { container, store } => Attempt::Item {
                container: value(*container),
                store: ItemStore {
                    key: store.key.map(|key| map(IdKind::Expr, key)),
                    value: map(IdKind::Expr, store.value),
                    scope: map(IdKind::Scope, store.scope),
                    at: super::super::facts::At {
                        block: map(IdKind::Block, store.at.block),
                        pos: map(IdKind::Position, store.at.pos),
                    },
                    strong: store.strong,
                },
            },
        }
    }

    /// An old slot in the new file's ids; `None` for one of `x`'s own.
    fn slot(&self, slot: &Slot) -> Option<Slot> {
        let missed = std::cell::Cell::new(false);
        let map = |kind, id| self.translated(kind, id, &missed);
        let slot = match slot {
            Slot::Param(s, index) => Slot::Param(map(IdKind::Scope, *s), *index),
            Slot::Attr(CURRENT, s) => Slot::Attr(CURRENT, map(IdKind::Scope, *s)),
            Slot::Attr(m, s) => Slot::Attr(*m, *s),
            Slot::Item(value) => Slot::Item(map_value(*value, &map)),
        };
        (!missed.get()).then_some(slot)
    }

    /// An old attempt in the new file's ids; `None` when it names one of `x`'s own.
    fn attempt(&self, attempt: &Attempt) -> Option<Attempt> {
        let missed = std::cell::Cell::new(false);
        let attempt = self.map_attempt(attempt, |kind, id| self.translated(kind, id, &missed));
        (!missed.get()).then_some(attempt)
    }

    /// An old id in the new file's numbering; one of `x`'s own sets `missed`.
    fn translated(&self, kind: IdKind, id: u32, missed: &std::cell::Cell<bool>) -> u32 {
        self.shift(kind).map(id).unwrap_or_else(|| {
            missed.set(true);
            BLANK
        })
    }

    /// Whether a slot of the new file is one of `x`'s own.
    fn new_in_x_slot(&self, slot: &Slot) -> bool {
        let blanked = std::cell::Cell::new(false);
        let map = |kind, id| {
            let mapped = self.new_id(kind, id);
            blanked.set(blanked.get() || mapped == BLANK);
            mapped
        };
        match slot {
            Slot::Param(s, _) | Slot::Attr(CURRENT, s) => {
                map(IdKind::Scope, *s);
            }
            Slot::Attr(..) => {}
            Slot::Item(value) => {
                map_value(*value, &map);
            }
        }
        blanked.get()
    }
}
