//! Stepping one execution by hand: the UI's engine, and the explorer's too.

use std::fmt;
use std::rc::Rc;

use super::machine::{AgentKind, Layout, Machine};
use super::report::Mode;
use super::semantics::{self, exec::agent_name, Exec, Readiness, StepOutcome};
use super::view::{AgentKindView, AgentStatusView, AgentView, ChoiceView, EdgeView, EventView, FailedEdgeView, MachineView};
use crate::model::Scenario;
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

    /// The thread (its name) and instruction index that witness step `step` ran (the issuer's,
    /// for an async agent).
    pub(crate) fn instr_of_step(&self, step: usize) -> Option<(String, usize)> {
        let event = self.history.iter().find(|e| e.step == step)?;
        let thread = match self.machine.agents.get(event.agent as usize)?.kind {
            AgentKind::Thread(t) => t,
            AgentKind::Async { issuer, .. } => issuer.thread(),
        };
        Some((self.layout.threads.get(thread)?.name.clone(), event.instr_index?))
    }

    pub fn schedule(&self) -> Schedule {
        Schedule { steps: self.steps.clone() }
    }

    pub fn snapshot(&self) -> MachineView {
        super::snapshot::machine_view(&self.layout, &self.machine)
    }
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
    }
}
