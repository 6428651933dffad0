//! Stepping one execution by hand: the UI's engine, and the explorer's too.

use std::fmt;
use std::rc::Rc;

use super::machine::{AgentKind, Layout, Machine};
use super::report::Mode;
use super::semantics::{self, exec::agent_name, Exec, Readiness, StepOutcome};
use super::machine::WriteRec;
use super::semantics::base::access;
use super::view::{
    AgentKindView, AgentStatusView, AgentView, ChoiceView, EdgeView, EventView, FailedEdgeView, MachineView, MbarrierChangeView,
    MbarrierDebtView, ReadView, StaleView, WriteView,
};
use crate::model::{Instr, Scenario};
use crate::schedule::{Schedule, Step};

/// Build the static layout and the initial machine; rejects scenarios the checker cannot run.
pub(crate) fn start(scenario: &Scenario) -> Result<(Rc<Layout>, Machine), String> {
    let layout = Layout::new(scenario)?;
    let preinit: Vec<Option<u32>> = scenario.mbarriers.iter().map(|m| m.count).collect();
    let mut m = Machine::new(&layout, &preinit);
    // Threads whose program starts with labels (or is empty) start past them.
    for agent in 0..m.agents.len() as u32 {
        let mut ex = Exec { layout: &layout, mode: Mode::Strict, m: &mut m, agent, step: 0, out: StepOutcome::default(), explain: true };
        ex.goto(0)?;
    }
    Ok((Rc::new(layout), m))
}

/// Why a [`Stepper`] cannot start, or cannot take a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The checker cannot run this scenario (one the verifier never saw, e.g. from a
    /// link): why, in words.
    Unrunnable(String),
    /// No agent has this number.
    NoSuchAgent { agent: u32 },
    /// The agent is enabled but offers only `choices` choices; `choice` is 0-based.
    NoSuchChoice { agent: String, choices: usize, choice: u32 },
    Blocked { agent: String, reason: String },
    Finished { agent: String },
    /// The semantics refused an enabled step (a form the checker cannot run, or an
    /// internal invariant: the reason then says "fencelab internal bug").
    Refused { agent: String, reason: String },
    /// Replaying a schedule failed at its `step`-th step (1-based).
    Replay { step: usize, error: Box<StepError> },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Unrunnable(reason) => write!(f, "{reason}"),
            StepError::NoSuchAgent { agent } => write!(f, "there is no agent {agent}"),
            StepError::NoSuchChoice { agent, choices, choice } => {
                write!(f, "{agent} has {choices} choices, not {}", u64::from(*choice) + 1)
            }
            StepError::Blocked { agent, reason } => write!(f, "{agent} is blocked: {reason}"),
            StepError::Finished { agent } => write!(f, "{agent} has finished"),
            StepError::Refused { agent, reason } => write!(f, "{agent}: {reason}"),
            StepError::Replay { step, error } => write!(f, "step {step}: {error}"),
        }
    }
}

impl std::error::Error for StepError {}

/// Apply one step to `m`, recording its edges in the machine's trace.
pub(crate) fn apply(layout: &Layout, mode: Mode, m: &mut Machine, step: Step) -> Result<StepOutcome, StepError> {
    if step.agent as usize >= m.agents.len() {
        return Err(StepError::NoSuchAgent { agent: step.agent });
    }
    let agent = || agent_name(layout, m, step.agent);
    let refused = |reason| StepError::Refused { agent: agent(), reason };
    match semantics::readiness(layout, m, step.agent).map_err(refused)? {
        Readiness::Enabled(choices) if (step.choice as usize) < choices.len() => {}
        Readiness::Enabled(choices) => {
            return Err(StepError::NoSuchChoice { agent: agent(), choices: choices.len(), choice: step.choice })
        }
        Readiness::Blocked(reason) => return Err(StepError::Blocked { agent: agent(), reason }),
        Readiness::Done => return Err(StepError::Finished { agent: agent() }),
    }
    let agent = agent();
    perform(layout, mode, m, step, true).map_err(|reason| StepError::Refused { agent, reason })
}

/// [`apply`] for a step already known to be enabled (the explorer takes its steps from
/// the readiness it just computed, so checking again would only repeat that work), with
/// or without the texts a person reads ([`Exec::explain`]).
pub(crate) fn perform(layout: &Layout, mode: Mode, m: &mut Machine, step: Step, explain: bool) -> Result<StepOutcome, String> {
    let index = m.trace.0.steps;
    let mut ex = Exec { layout, mode, m, agent: step.agent, step: index, out: StepOutcome::default(), explain };
    semantics::step(&mut ex, step.choice)?;
    let out = ex.out;
    // Formed edges are for the timeline; races are explained from failed ones alone.
    m.trace.0.record(if explain { &out.edges } else { &[] }, &out.failed);
    Ok(out)
}

/// Interactive execution of one scenario: step agents, undo, inspect.
#[derive(Clone, Debug)]
pub struct Stepper {
    layout: Rc<Layout>,
    mode: Mode,
    machine: Machine,
    undo: Vec<Machine>,
    history: Vec<EventView>,
    steps: Vec<Step>,
}

impl Stepper {
    pub fn new(scenario: &Scenario, mode: Mode) -> Result<Stepper, StepError> {
        let (layout, machine) = start(scenario).map_err(StepError::Unrunnable)?;
        Ok(Stepper { layout, mode, machine, undo: Vec::new(), history: Vec::new(), steps: Vec::new() })
    }

    /// Start and replay `schedule`; fails on the first step that is not possible.
    pub fn replay(scenario: &Scenario, mode: Mode, schedule: &Schedule) -> Result<Stepper, StepError> {
        let mut s = Stepper::new(scenario, mode)?;
        for (i, step) in schedule.steps.iter().enumerate() {
            s.step(*step).map_err(|error| StepError::Replay { step: i + 1, error: Box::new(error) })?;
        }
        Ok(s)
    }

    pub fn agents(&self) -> Vec<AgentView> {
        (0..self.machine.agents.len() as u32).map(|i| self.agent_view(i)).collect()
    }

    fn agent_view(&self, id: u32) -> AgentView {
        let layout = &self.layout;
        let m = &self.machine;
        let a = m.agents.get(id as usize);
        let kind = match a.map(|a| &a.kind) {
            Some(AgentKind::Async { issuer, op }) => AgentKindView::Async {
                kind: op.kind_name().to_string(),
                issuer: layout.threads.get(issuer.thread()).map_or(String::new(), |t| t.name.clone()),
            },
            _ => AgentKindView::Thread { cta: a.map_or(String::new(), |a| layout.cta_name(a.place.cta).to_string()) },
        };
        let status = match semantics::readiness(layout, m, id) {
            Ok(Readiness::Enabled(labels)) => AgentStatusView::Enabled {
                choices: labels.into_iter().enumerate().map(|(i, label)| ChoiceView { choice: i as u32, label }).collect(),
            },
            Ok(Readiness::Blocked(reason)) => AgentStatusView::Blocked { reason },
            Ok(Readiness::Done) => AgentStatusView::Done,
            Err(reason) => AgentStatusView::Blocked { reason },
        };
        let (instr_index, instr_text) = match (a, &status) {
            (_, AgentStatusView::Done) => (None, None),
            (Some(a), _) => match a.kind {
                AgentKind::Thread(t) => (Some(a.pc), layout.threads.get(t).and_then(|t| t.program.get(a.pc)).map(super::text::instr)),
                AgentKind::Async { issuer, .. } => (Some(issuer.pc()), Some(semantics::exec::instr_text(layout, issuer).to_string())),
            },
            (None, _) => (None, None),
        };
        AgentView {
            id,
            name: agent_name(layout, m, id),
            kind,
            status,
            instr_index,
            instr_text,
            registers: a.map_or_else(Vec::new, |a| a.regs.iter().map(|(k, v)| (k.to_string(), *v)).collect()),
        }
    }

    pub fn step(&mut self, step: Step) -> Result<EventView, StepError> {
        let before = self.machine.clone();
        let (instr_index, instr_text) = match semantics::written_instr(&self.layout, &self.machine, step.agent) {
            Some(i) => (self.machine.agents.get(step.agent as usize).map(|a| a.pc), super::text::instr(i)),
            None => (None, String::new()),
        };
        let out = apply(&self.layout, self.mode, &mut self.machine, step)?;
        let index = self.history.len();
        let reads = reads_of_step(&self.layout, &before, &self.machine, step, index, &out);
        let mbarriers = mbarrier_changes(&self.layout, &before, &self.machine);
        let event = EventView {
            step: index,
            agent: step.agent,
            agent_name: agent_name(&self.layout, &before, step.agent),
            instr_index,
            instr_text,
            description: out.description,
            edges: out.edges.iter().map(|e| edge_view(&self.layout, &self.machine, e)).collect(),
            failed_edges: out.failed.iter().map(|f| failed_view(&self.layout, &self.machine, f)).collect(),
            findings: out.findings.iter().map(|f| f.message.clone()).collect(),
            reads,
            mbarriers,
        };
        self.undo.push(before);
        self.history.push(event.clone());
        self.steps.push(step);
        Ok(event)
    }

    pub fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(m) => {
                self.machine = m;
                self.history.pop();
                self.steps.pop();
                true
            }
            None => false,
        }
    }

    pub fn history(&self) -> &[EventView] {
        &self.history
    }

    /// The thread (its name) and instruction index that witness step `step` ran (for an
    /// async agent's step, which runs no instruction of its own, the issuing one).
    pub(crate) fn instr_of_step(&self, step: usize) -> Option<(String, usize)> {
        let event = self.history.iter().find(|e| e.step == step)?;
        let (thread, pc) = match self.machine.agents.get(event.agent as usize)?.kind {
            AgentKind::Thread(t) => (t, event.instr_index?),
            AgentKind::Async { issuer, .. } => (issuer.thread(), event.instr_index.unwrap_or(issuer.pc())),
        };
        Some((self.layout.threads.get(thread)?.name.clone(), pc))
    }

    /// The steps that paid into the phase each of `mbarriers` (by name) is in now: its
    /// arrivals, `expect_tx` and `complete_tx` since the last phase completed; and the last
    /// step of each finished thread that used one of them, where what it still owed went
    /// unpaid; and every step that changed one of `astray`. A deadlock on those barriers
    /// names these as its unmet obligation.
    pub(crate) fn obligation_steps(&self, mbarriers: &[&str], astray: &[&str]) -> Vec<usize> {
        let current_phase = |name: &str| {
            self.history.iter().flat_map(|e| &e.mbarriers).filter(|c| c.name == name).map(|c| c.phase_after).last()
        };
        let touches = |e: &EventView| e.mbarriers.iter().any(|c| mbarriers.contains(&c.name.as_str()));
        let mut steps: Vec<usize> = self
            .history
            .iter()
            .filter(|e| {
                e.mbarriers.iter().any(|c| {
                    (mbarriers.contains(&c.name.as_str()) && Some(c.phase_before) == current_phase(&c.name)) || astray.contains(&c.name.as_str())
                })
            })
            .map(|e| e.step)
            .collect();
        for (agent, a) in self.machine.agents.iter().enumerate() {
            let finished_thread = matches!(a.kind, AgentKind::Thread(_)) && a.status == super::machine::Status::Done;
            let used = self.history.iter().any(|e| e.agent as usize == agent && touches(e));
            if finished_thread && used {
                steps.extend(self.history.iter().filter(|e| e.agent as usize == agent).map(|e| e.step).last());
            }
        }
        crate::sort::short_by_key(&mut steps, |s| *s);
        steps.dedup();
        steps
    }

    pub fn schedule(&self) -> Schedule {
        Schedule { steps: self.steps.clone() }
    }

    pub fn snapshot(&self) -> MachineView {
        let mut view = super::snapshot::machine_view(&self.layout, &self.machine);
        view.reads = self.history.iter().flat_map(|e| e.reads.iter().cloned()).collect();
        view.debts = view.mbarriers.iter().map(|b| debts(&self.history, &b.name, b.phase)).collect();
        view
    }
}

/// A write as the UI names it.
fn write_view(layout: &Layout, m: &Machine, w: &WriteRec) -> WriteView {
    WriteView {
        value: w.value,
        writer: if w.instr.is_none() { "init".into() } else { agent_name(layout, m, w.event.agent) },
        step: w.step.0,
        proxy: w.key.proxy.name().into(),
    }
}

/// The reads step `index` made: each read the step left in a cell's history, with the
/// write it returned. The write is found among the writes the reader could return before
/// the step ([`access::candidates`]): a plain load's choice numbers them; for the other
/// readers (a spin, an atomic, an asynchronous copy) the one holding the value read, the
/// newest if several do. A read whose write cannot be told is left out.
fn reads_of_step(layout: &Layout, before: &Machine, after: &Machine, step: Step, index: usize, out: &StepOutcome) -> Vec<ReadView> {
    let instr = semantics::current_instr(layout, before, step.agent).map(Instr::unwrapped);
    let register_read = |dst: &str| after.agents.get(step.agent as usize).and_then(|a| a.regs.get(dst).copied());
    // The value a thread's read put in its register, when the instruction names one.
    let value_read = match instr {
        Some(Instr::Wait { instr, .. }) => match instr.unwrapped() {
            Instr::Ld { dst, .. } => register_read(dst),
            Instr::Atom { dst: Some(dst), .. } => register_read(dst),
            _ => None,
        },
        Some(Instr::Ld { dst, .. }) => register_read(dst),
        Some(Instr::Atom { dst: Some(dst), .. }) => register_read(dst),
        _ => None,
    };
    let plain_load = matches!(instr, Some(Instr::Ld { .. }));
    // An asynchronous copy reads what it then writes: the values its writes of this step hold.
    let written_now: Vec<i64> = after
        .cells
        .iter()
        .filter_map(|c| c.writes.last())
        .filter(|w| w.event.agent == step.agent && w.step.0 == Some(index))
        .map(|w| w.value)
        .collect();
    // A bulk-group copy reads in one step and writes in a later one, keeping what it read
    // in its `value` register (`semantics::tma::step`).
    let value_read = value_read.or_else(|| if instr.is_none() && written_now.is_empty() { register_read("value") } else { None });
    let mut reads = Vec::new();
    for (loc, info) in layout.locs.iter().enumerate() {
        if info.mbarrier.is_some() || info.range.is_some() {
            continue;
        }
        let cell = access::cell_of(layout, loc);
        let Some(c) = after.cells.get(cell) else { continue };
        let recs = c.reads.iter().filter(|r| r.event.agent == step.agent && r.step.0 == Some(index));
        for rec in recs.filter(|r| access::cell_of(layout, r.loc) == cell) {
            let candidates = access::candidates(layout, before, step.agent, rec.loc, rec.key);
            let holds = |i: &usize, v: i64| c.writes.get(*i).is_some_and(|w| w.value == v);
            let widx = if plain_load {
                Some(candidates.start + step.choice as usize).filter(|i| candidates.contains(i))
            } else if let Some(v) = value_read {
                candidates.clone().rev().find(|i| holds(i, v))
            } else if candidates.len() == 1 {
                Some(candidates.start)
            } else {
                let mut matching = candidates.clone().filter(|i| written_now.iter().any(|v| holds(i, *v)));
                matching.next().filter(|_| matching.next().is_none())
            };
            let Some((widx, w)) = widx.and_then(|i| Some((i, c.writes.get(i)?))) else { continue };
            // The newest write the read could have seen: an RMW's own write of this step
            // comes after its read, so it is never the write the read missed.
            let Some(newest) = c.writes.iter().rposition(|n| !(n.event.agent == step.agent && n.step.0 == Some(index))) else { continue };
            let stale = (widx < newest && c.writes.get(newest).is_some_and(|n| n.value != w.value)).then(|| {
                let missed = &c.writes[newest];
                StaleView {
                    missed: newest,
                    missed_write: write_view(layout, after, missed),
                    reason: stale_reason(layout, after, step.agent, missed, out),
                }
            });
            reads.push(ReadView {
                step: index,
                agent: step.agent,
                agent_name: agent_name(layout, before, step.agent),
                location: info.name.clone(),
                proxy: rec.key.proxy.name().into(),
                value: w.value,
                write: widx,
                from: write_view(layout, after, w),
                stale,
            });
        }
    }
    reads
}

/// Why `reader` could not see `missed`, in one line: the synchronization this step tried
/// and failed to form, else the latest failed attempt towards the reader (the writer's
/// first), else the race the step found, else that nothing orders the write before it.
fn stale_reason(layout: &Layout, m: &Machine, reader: u32, missed: &WriteRec, out: &StepOutcome) -> String {
    let writer = missed.event.agent;
    if let Some(f) = out.failed.iter().find(|f| f.from_agent == writer).or_else(|| out.failed.first()) {
        return f.text.clone();
    }
    let towards_reader = || m.trace.0.failed().filter(|f| f.to_agent == reader);
    let earlier = towards_reader().filter(|f| f.from_agent == writer).max_by_key(|f| f.to_step).or_else(|| towards_reader().max_by_key(|f| f.to_step));
    if let Some(f) = earlier {
        return format!("step {}: {}", f.to_step + 1, f.text);
    }
    if let Some(finding) = out.findings.first() {
        return finding.message.clone();
    }
    let when = missed.step.0.map_or(String::new(), |s| format!(" (step {})", s + 1));
    format!(
        "nothing orders {}'s write of {}{when} before this read: no synchronizes-with edge reached the reader",
        agent_name(layout, m, writer),
        missed.value
    )
}

/// The mbarriers a step changed: phase, arrivals owed and tx-count, before and after.
fn mbarrier_changes(layout: &Layout, before: &Machine, after: &Machine) -> Vec<MbarrierChangeView> {
    layout
        .mbar_locs
        .iter()
        .enumerate()
        .filter_map(|(idx, &loc)| {
            let (b, a, info) = (before.mbars.get(idx)?, after.mbars.get(idx)?, layout.locs.get(loc)?);
            let changed = (b.phase, b.pending, b.tx) != (a.phase, a.pending, a.tx);
            changed.then(|| MbarrierChangeView {
                name: info.name.clone(),
                phase_before: b.phase,
                phase_after: a.phase,
                pending_before: b.pending,
                pending_after: a.pending,
                tx_before: b.tx,
                tx_after: a.tx,
            })
        })
        .collect()
}

/// mbarrier `name`'s debts in the phase the gauges show: the one the last step completed,
/// else the current one (`phase`), summed over the steps taken in it. A phase ends with
/// its tx-count and owed arrivals at zero, so the completing step's share is what it paid.
fn debts(history: &[EventView], name: &str, phase: u32) -> MbarrierDebtView {
    let change = |e: &EventView| e.mbarriers.iter().find(|c| c.name == name).cloned();
    let last = history.last().and_then(change);
    let just_completed = last.as_ref().is_some_and(MbarrierChangeView::completed_phase);
    let shown = if just_completed { last.map_or(phase, |c| c.phase_before) } else { phase };
    let mut debt = MbarrierDebtView { name: name.to_string(), phase: shown, just_completed, tx_expected: 0, tx_landed: 0, arrivals_made: 0 };
    for c in history.iter().filter_map(change) {
        // What this step did to phase `shown`: a step that completed it ended it at zero.
        let (tx_after, pending_after) = match (c.phase_before == shown, c.phase_after == shown) {
            (true, true) => (c.tx_after, c.pending_after),
            (true, false) => (0, 0),
            (false, true) => continue, // the step that opened it: fresh debts
            (false, false) => continue,
        };
        let tx = tx_after - c.tx_before;
        if tx > 0 {
            debt.tx_expected += tx;
        } else {
            debt.tx_landed -= tx;
        }
        debt.arrivals_made += (c.pending_before - pending_after).max(0);
    }
    debt
}

pub(crate) fn edge_view(layout: &Layout, m: &Machine, e: &super::machine::EdgeRec) -> EdgeView {
    EdgeView {
        from_step: e.from_step,
        to_step: e.to_step,
        from_agent: agent_name(layout, m, e.from_agent),
        to_agent: agent_name(layout, m, e.to_agent),
        kind: e.kind.clone(),
        scope: e.scope.map(|s| super::text::scope(s).to_string()),
    }
}

pub(crate) fn failed_view(layout: &Layout, m: &Machine, f: &super::machine::FailedRec) -> FailedEdgeView {
    FailedEdgeView {
        from_step: f.from_step,
        to_step: f.to_step,
        from_agent: if f.from_agent == u32::MAX { "(none)".into() } else { agent_name(layout, m, f.from_agent) },
        to_agent: agent_name(layout, m, f.to_agent),
        reason: f.text.clone(),
        cause: cause_word(f.reason).to_string(),
    }
}

/// What a failed synchronization lacked, as the machine view names it.
fn cause_word(reason: super::report::RaceReason) -> &'static str {
    use super::report::RaceReason;
    match reason {
        RaceReason::NoSynchronization | RaceReason::ExecutionOrderOnly => "semantics",
        RaceReason::ScopeMismatch => "scope",
        RaceReason::MissingProxyFence => "proxy",
        RaceReason::StateSpaceRestriction => "state space",
        RaceReason::AsyncNotObserved => "async completion",
        RaceReason::WrongPhase => "mbarrier phase",
        RaceReason::MissingTcgen05Fence => "tcgen05 fence",
        RaceReason::MixedSize => "byte range",
    }
}
