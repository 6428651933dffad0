//! The axiomatic engine: which outcomes the PTX memory model's axioms allow, decided over
//! candidate executions rather than interleavings (issue 48).
//!
//! It ports Dat3M's `cat/ptx-v7.5.cat` (`model.rs`, lines cited as `cat:N`) over events
//! built from a scenario (`events.rs`): `ld`/`st`/`atom`/`red` with semantics, scopes and
//! the generic, surface, texture and constant proxies; `fence.sc`, `fence.acq_rel`,
//! `fence.acquire`/`fence.release`, `fence.proxy.{alias,surface,texture,constant}`;
//! `bar.sync`/`bar.arrive`, `barrier.cluster` and mbarrier arrive/wait as synchronization;
//! aliases. `search.rs` enumerates reads-from, Fence-SC and coherence choices; [`hang`]
//! searches them for an execution in which a spin goes round for ever. Anything
//! else (asynchronous agents, async and tensormap proxy fences, restricted fences, byte
//! ranges, counted barriers) is [`AxiomError::Outside`], naming the instruction: there the
//! explorer is the only judge. No IO, no clock, no panics: limits are [`Limits`].

pub mod differ;
mod events;
pub mod graph;
mod model;
mod rel;
mod search;
pub mod table;

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

pub use events::{BarrierKind, FenceKind, Kind, Order, Px};
pub use model::Event;
pub use rel::MAX_EVENTS;

use crate::model::{Cond, FinalCondition, Quantifier, Scenario, Term};

/// Bounds on the work one question may take, and the reading of spec silences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How to read the points where the spec is silent (reference §12), as the explorer's
    /// `Options::mode`.
    pub mode: crate::model::Mode,
    /// Times one instruction may run in one trace (loop unrolling).
    pub max_visits: u32,
    /// Traces per thread.
    pub max_traces: usize,
    /// Values one location may hold.
    pub max_values: usize,
    /// Candidate executions (reads-from and Fence-SC choices) examined.
    pub max_candidates: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { mode: crate::model::Mode::Pragmatic, max_visits: 3, max_traces: 4096, max_values: 32, max_candidates: 2_000_000 }
    }
}

/// Why the engine gives no answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum AxiomError {
    /// An instruction the axioms' fragment does not cover (`index` counts from 0 in the
    /// thread's program).
    Outside { thread: String, index: usize, instr: String, why: String },
    /// A declaration the fragment does not cover.
    OutsideMachine(String),
    /// A limit was reached.
    TooLarge(String),
    /// The scenario names something that does not exist.
    Invalid(String),
}

impl AxiomError {
    pub(crate) fn outside_decl(why: String) -> AxiomError {
        AxiomError::OutsideMachine(why)
    }

    /// Whether the scenario lies outside the fragment (as opposed to a limit or bad input).
    pub fn is_outside(&self) -> bool {
        matches!(self, AxiomError::Outside { .. } | AxiomError::OutsideMachine(_))
    }
}

impl fmt::Display for AxiomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxiomError::Outside { thread, index, instr, why } => {
                write!(f, "outside the axioms' fragment: `{instr}` (thread {thread}, instruction {}): {why}", index + 1)
            }
            AxiomError::OutsideMachine(why) => write!(f, "outside the axioms' fragment: {why}"),
            AxiomError::TooLarge(why) => write!(f, "too large for the axiomatic engine: {why}"),
            AxiomError::Invalid(why) => write!(f, "invalid scenario: {why}"),
        }
    }
}

impl std::error::Error for AxiomError {}

/// A final state: each thread's registers and each location's value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Final {
    /// Per thread (scenario order), the registers its run assigned.
    pub regs: Vec<BTreeMap<String, i64>>,
    /// Per scenario location (aliases read their physical location).
    pub mem: Vec<i64>,
}

/// One consistent execution, for drawing: events (initial writes first, then each
/// thread's in program order) and the relations between them by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    pub events: Vec<Event>,
    pub po: Vec<(usize, usize)>,
    pub rf: Vec<(usize, usize)>,
    pub co: Vec<(usize, usize)>,
    /// Synchronizes-with: release/acquire patterns, Fence-SC order, barriers.
    pub sync: Vec<(usize, usize)>,
    /// Data races (reference §1.4), each pair once, lower index first.
    pub races: Vec<(usize, usize)>,
}

/// A consistent execution with a data race, and whether an interleaving could perform it
/// (as [`Witness::in_time`]). One that does not is a race the explorer cannot find.
#[derive(Clone, Debug)]
pub struct Race {
    pub execution: Execution,
    pub in_time: bool,
}

/// One execution reaching a final state, and whether any execution found reaching it
/// fits in time: `po | rf | co` acyclic, so an interleaving could perform its events in
/// that order. A final state none of whose executions fits needs a read of a later write
/// (load buffering) or coherence against execution order: the explorer never produces it.
#[derive(Clone, Debug)]
pub struct Witness {
    pub execution: Execution,
    pub in_time: bool,
}

/// Every final state the axioms allow, each with one execution reaching it.
#[derive(Clone, Debug)]
pub struct Allowed {
    pub finals: BTreeMap<Final, Witness>,
    /// Some loop ran into [`Limits::max_visits`]: outcomes needing more iterations are missing.
    pub cut: bool,
    /// Candidate executions examined.
    pub candidates: u64,
    /// A racy consistent execution, one an interleaving performs when there is such.
    pub race: Option<Race>,
}

/// How a thread's run ends in a [`Hang`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stay {
    /// It ran to its end.
    Finished,
    /// It goes round a side-effect-free spin loop (or retries a `wait`) for ever at
    /// instruction `instr` (the loop's backward branch, or the `wait`): every read of its
    /// last round (`reads`, events of the execution) reads a coherence-maximal write.
    Spins { instr: usize, reads: Vec<usize> },
    /// It waits for ever at the barrier at instruction `instr`, which a spinning thread
    /// never reaches.
    Waits { instr: usize },
}

/// A consistent execution that never ends: some thread spins for ever, seeing the newest
/// writes, and every other thread finished, spins too, or waits at a barrier that never
/// completes. It assumes fair scheduling and fair memory (every write eventually visible):
/// a spin that could see a newer write is not stuck, as in Dat3M's liveness check.
#[derive(Clone, Debug)]
pub struct Hang {
    pub execution: Execution,
    /// Per thread (scenario order).
    pub threads: Vec<Stay>,
}

impl Hang {
    /// Who stays where, in words: "`P1` spins at `bra LC10` for ever, reading `f` = 1, a
    /// coherence-last write; `P2` waits at `bar.sync 2`".
    pub fn describe(&self, scenario: &Scenario) -> String {
        let instr = |t: usize, at: usize| {
            scenario.threads[t].program.get(at).map_or_else(|| format!("instruction {}", at + 1), |i| format!("`{}`", crate::syntax::instr_text(i)))
        };
        let parts: Vec<String> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(t, stay)| {
                let name = &scenario.threads.get(t)?.name;
                match stay {
                    Stay::Finished => None,
                    Stay::Spins { instr: at, reads } => {
                        let seen: Vec<String> = reads
                            .iter()
                            .filter_map(|&r| self.execution.events.get(r))
                            .map(|e| format!("`{}` = {}", scenario.locations.get(e.virt).map_or("?", |l| l.name.as_str()), e.value))
                            .collect();
                        Some(if seen.is_empty() {
                            format!("`{name}` spins at {} for ever", instr(t, *at))
                        } else {
                            format!("`{name}` spins at {} for ever, reading {}, which no write is coherence-after", instr(t, *at), seen.join(" and "))
                        })
                    }
                    Stay::Waits { instr: at } => Some(format!("`{name}` waits at {} for ever", instr(t, *at))),
                }
            })
            .collect();
        parts.join("; ")
    }
}

/// The outcomes the axioms allow for `scenario`.
pub fn allowed(scenario: &Scenario, limits: &Limits) -> Result<Allowed, AxiomError> {
    let (places, per_thread, cut) = runs(scenario, limits, false)?;
    let found = search::search(&places, &per_thread, limits, search::Goal::Outcomes)?;
    Ok(Allowed { finals: found.finals, cut, candidates: found.candidates, race: found.race })
}

/// A hanging execution the axioms allow, if any is found within the unrolling bound (a
/// hang found is one; none found with a loop cut proves nothing for runs past the bound).
pub fn hang(scenario: &Scenario, limits: &Limits) -> Result<Option<Hang>, AxiomError> {
    // Every check asks: most programs have no spin to be stuck in, and need no runs built.
    if !scenario.threads.iter().any(|t| events::may_spin(&t.program)) {
        return Ok(None);
    }
    let (places, per_thread, _) = runs(scenario, limits, true)?;
    // Only a run stuck in a spin makes a hang here; without one there is nothing to search.
    if !per_thread.iter().flatten().any(|t| matches!(t.end, events::End::Stuck { .. })) {
        return Ok(None);
    }
    Ok(search::search(&places, &per_thread, limits, search::Goal::Hang)?.hang)
}

/// Where the names live and every run of each thread (with `hangs`, the runs that never
/// end too), and whether some loop was cut.
fn runs(scenario: &Scenario, limits: &Limits, hangs: bool) -> Result<(events::Places, Vec<Vec<events::Trace>>, bool), AxiomError> {
    let places = events::Places::of(scenario)?;
    // The values each location may hold: what the threads' writes write when their reads
    // return values already known, round after round. In a consistent execution a value
    // comes through a chain of distinct writes (rf|dep is acyclic, cat:103), so as many
    // rounds as a run may perform writes find every value one can read.
    let mut domains: events::Domains = places.init.iter().map(|v| vec![(*v, 0)]).collect();
    let bits = events::write_bits(scenario);
    // Only a write whose value is computed (from a register, or an RMW's) makes a chain
    // longer; one inside a loop may run `max_visits` times.
    let write_events: usize = scenario.threads.iter().map(|t| events::computed_writes(&t.program, limits)).sum::<usize>() + 1;
    let mut rounds = 0;
    // Per thread, its runs and the domains they were built from. A thread's runs depend on
    // nothing else: while those are unchanged its runs are the same, and the values they
    // write are in the domains already (or a shorter chain for them is).
    let mut built: Vec<Option<(events::Domains, events::Traces)>> = scenario.threads.iter().map(|_| None).collect();
    let (per_thread, cut) = loop {
        let mut grown = false;
        let mut cut = false;
        for (t, known) in built.iter_mut().enumerate() {
            if let Some((_, traces)) = known.as_ref().filter(|(from, _)| *from == domains) {
                cut |= traces.cut;
                continue;
            }
            let from = domains.clone();
            let traces = events::traces(scenario, &places, &domains, limits, t, &bits[t], hangs)?;
            cut |= traces.cut;
            for (p, values) in traces.written.iter().enumerate() {
                for &(v, chain) in values {
                    // Keep the shortest chains only: a longer one for the same value is
                    // subsumed (whatever it allows, the shorter allows too).
                    if domains[p].iter().any(|&(u, c)| u == v && c & !chain == 0) {
                        continue;
                    }
                    domains[p].retain(|&(u, c)| !(u == v && chain & !c == 0));
                    domains[p].push((v, chain));
                    grown = true;
                }
            }
            *known = Some((from, traces));
        }
        if domains.iter().any(|d| d.len() > limits.max_values) {
            return Err(AxiomError::TooLarge(format!("a location may hold more than {} values", limits.max_values)));
        }
        if !grown || rounds >= write_events {
            break (built.into_iter().flatten().map(|(_, traces)| traces.traces).collect::<Vec<_>>(), cut);
        }
        rounds += 1;
    };
    Ok((places, per_thread, cut))
}

/// A term's value in a final state (a register never written, or a name that does not
/// exist, reads 0, as in the explorer).
pub fn term_value(scenario: &Scenario, fin: &Final, term: &Term) -> i64 {
    match term {
        Term::Imm(v) => *v,
        Term::Reg { thread, reg } => scenario
            .thread(thread)
            .and_then(|t| fin.regs.get(t))
            .and_then(|regs| regs.get(reg))
            .copied()
            .unwrap_or(0),
        Term::Mem(name) => scenario.location(name).and_then(|l| fin.mem.get(l)).copied().unwrap_or(0),
    }
}

/// The term an outcome table's column names (`thread:reg` or a location), as
/// `syntax::term_text` writes it.
pub fn term_of(text: &str) -> Term {
    match text.split_once(':') {
        Some((thread, reg)) => Term::Reg { thread: thread.to_string(), reg: reg.to_string() },
        None => Term::Mem(text.to_string()),
    }
}

/// A final state's values for the columns `terms` (an outcome row's shape).
pub fn project(scenario: &Scenario, fin: &Final, terms: &[String]) -> Vec<(String, i64)> {
    terms.iter().map(|t| (t.clone(), term_value(scenario, fin, &term_of(t)))).collect()
}

pub fn eval(scenario: &Scenario, fin: &Final, cond: &Cond) -> bool {
    match cond {
        Cond::True => true,
        Cond::Cmp(a, op, b) => op.eval(term_value(scenario, fin, a), term_value(scenario, fin, b)),
        Cond::Not(c) => !eval(scenario, fin, c),
        Cond::And(cs) => cs.iter().all(|c| eval(scenario, fin, c)),
        Cond::Or(cs) => cs.iter().any(|c| eval(scenario, fin, c)),
    }
}

impl Allowed {
    /// Whether [`Allowed::holds`] is the model's answer: always when no loop was cut;
    /// otherwise only when a final state found settles it (an `exists` reached, a
    /// `~exists` or `forall` violated), since more rounds only add final states.
    pub fn decides(&self, scenario: &Scenario, condition: &FinalCondition) -> bool {
        !self.cut
            || match condition.quantifier {
                Quantifier::Exists => self.holds(scenario, condition),
                Quantifier::NotExists | Quantifier::Forall => !self.holds(scenario, condition),
            }
    }

    /// The condition's bit as the explorer's `ConditionResult::holds` means it: `exists`,
    /// some allowed final state satisfies it; `~exists`, none does; `forall`, all do.
    pub fn holds(&self, scenario: &Scenario, condition: &FinalCondition) -> bool {
        let mut finals = self.finals.keys();
        match condition.quantifier {
            Quantifier::Exists => finals.any(|f| eval(scenario, f, &condition.cond)),
            Quantifier::NotExists => !finals.any(|f| eval(scenario, f, &condition.cond)),
            Quantifier::Forall => finals.all(|f| eval(scenario, f, &condition.cond)),
        }
    }
}

#[cfg(test)]
mod tests;
