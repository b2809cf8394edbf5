//! Decorators applied in other files: what a decorator of this file receives from the
//! functions other files decorate with it.
//!
//! Owns: the values of a parameter of this file's function that other files' decorator
//! applications pass (`@logged def fetch()`, `@retry(3) def sync()` where `retry(n)`
//! returns `decorate`, `@setupmethod` on another file's methods), so that a wrapper's
//! call of the function it closes over (`fn(*args)`, `f(self, ...)`) reaches each
//! function the decorator is applied to. An application is found by the names its
//! decorator's head may stand for ([`Interface::decorated_by`]) among the segments of
//! the function's qualified name (`retry.decorate` is reached by `@retry(...)`), then
//! confirmed by evaluating the decorator: only one that evaluates to this very function
//! passes anything.
//! Does not own: this file's own applications, which are arguments like any other
//! (`record_arguments`, the parameter slots), nor what a decorated name is bound to
//! (`Eval::decorate`).
//!
//! What it reads: the other files' interfaces (an application a module binds at its end
//! or in a class body; one inside a function body is not in an interface and is not
//! followed, as arguments passed in a body are not), and through evaluation, whatever of
//! this file the decorator's value reads (marked as any evaluation marks it), so a
//! group's run stays a function of what it read.
//!
//! [`Interface::decorated_by`]: super::super::interface::Interface::decorated_by

use super::{CURRENT, Eval, Mod, Set, Values, match_args, none};
use crate::callgraph::python::facts::{Arg, Expr, ExprId, ScopeId, ScopeKind};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

/// What one file's resolution keeps of other files' applications.
#[derive(Default)]
pub(super) struct Applications {
    /// Per function of this file, the applications that may pass it something: found
    /// once per resolution (a function of the program and the function's name).
    candidates: HashMap<ScopeId, Rc<[(Mod, ExprId)]>>,
    /// Per parameter, what the applications pass: found once per group (cleared with
    /// the group's other caches, [`Applications::new_group`]).
    passed: HashMap<(ScopeId, u32), Values>,
    /// The parameters whose applications are being evaluated, and how many times one
    /// was met again (an answer found past such a cut is not kept).
    active: HashSet<(ScopeId, u32)>,
    cuts: u32,
}

impl Applications {
    /// Forgets what the applications passed: the next group evaluates them again, with
    /// caches of its own, as it evaluates everything else.
    pub(super) fn new_group(&mut self) {
        self.passed.clear();
    }
}

impl Eval<'_> {
    /// What other files' decorator applications pass for parameter `index` of function
    /// `s` of this file: the decorated values, when the decorator evaluates to `s`.
    ///
    /// Evaluated apart from the evaluation that asks (a memo and an active set of their
    /// own, the budget and depth shared), then kept for the group: the applications lead
    /// through other files back into this one, and an answer cut short by an evaluation
    /// still under way around it must not be kept in the group's memo.
    pub(super) fn applied_elsewhere(&mut self, s: ScopeId, index: u32) -> Values {
        let facts = self.facts;
        if facts.model.scope(s).kind != ScopeKind::Function {
            return none();
        }
        let applications = self.applications_of(s);
        if applications.is_empty() {
            return none();
        }
        if let Some(known) = self.applications.passed.get(&(s, index)) {
            return known.clone();
        }
        if !self.applications.active.insert((s, index)) {
            self.applications.cuts += 1;
            return none();
        }
        let cuts = self.applications.cuts;
        let memo = std::mem::take(&mut self.memo);
        let active = std::mem::take(&mut self.active);
        let values = self.passed_by(s, index, &applications);
        self.memo = memo;
        self.active = active;
        self.applications.active.remove(&(s, index));
        if self.applications.cuts == cuts {
            self.applications.passed.insert((s, index), values.clone());
        }
        values
    }

    /// The values `applications` pass for parameter `index` of `s`.
    fn passed_by(&mut self, s: ScopeId, index: u32, applications: &[(Mod, ExprId)]) -> Values {
        let facts = self.facts;
        let mut out = Set::default();
        for &(m, decorate) in applications {
            let Some(Expr::Decorate { decorator, inner }) =
                self.model(m).map(|model| model.expr(decorate).clone())
            else {
                continue;
            };
            let decorators = self.eval(m, decorator, &None);
            let mut passes = false;
            for &value in decorators.iter() {
                for (cm, cs, shift) in self.callables(value) {
                    if (cm, cs) != (CURRENT, s) {
                        continue;
                    }
                    let params = &facts.model.scope(s).params;
                    let arg = [Arg {
                        keyword: None,
                        value: inner,
                        splat: false,
                    }];
                    passes |= match_args(params, &arg, shift)
                        .iter()
                        .any(|&(i, _)| i == index);
                }
            }
            if passes {
                let values = self.eval(m, inner, &None);
                out.add(&values);
            }
        }
        out.done()
    }

    /// The applications in other files that may apply `s`, each once, in file order
    /// (found once per resolution): those whose decorator's head is named like the last
    /// segment of `s`'s qualified name and not called (`@logged` for `logged`), like the
    /// one before it and called once (`@retry(3)` for `retry.decorate`), and so on up.
    fn applications_of(&mut self, s: ScopeId) -> Rc<[(Mod, ExprId)]> {
        if let Some(known) = self.applications.candidates.get(&s) {
            return known.clone();
        }
        let facts = self.facts;
        let name = &facts.model.scope(s).name;
        let current = self.facts_path().to_owned();
        let mut found: Vec<(usize, ExprId)> = Vec::new();
        for (index, (path, interface)) in self.files.iter().enumerate() {
            if *path == current {
                continue;
            }
            for (calls, segment) in name.rsplit('.').enumerate() {
                // A qualified name has far fewer than 2^32 segments.
                let calls = u32::try_from(calls).unwrap_or(u32::MAX);
                found.extend(interface.decorated_by(segment, calls).map(|e| (index, e)));
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut applications = Vec::with_capacity(found.len());
        for (index, decorate) in found {
            let key = self.files[index].0.clone();
            if let Some(m) = self.module(&key) {
                applications.push((m, decorate));
            }
        }
        let applications: Rc<[(Mod, ExprId)]> = Rc::from(applications);
        self.applications.candidates.insert(s, applications.clone());
        applications
    }
}
