//! The execution context every semantics module works in, and what a step reports.
//!
//! Moving the pc (`Exec::next`, `Exec::goto`) lives in [`super::flow`]: running off the end
//! of a program finishes the thread, which can complete barriers.

use crate::check::machine::{
    AgentKind, AsyncOp, EdgeRec, FailedRec, Filter, InstrRef, Knowledge, Layout, Machine, Message, Meta, Place, Shared,
    Stage, Status,
};
use crate::check::report::{FindingKind, Mode, RaceReason};
use std::rc::Rc;
use crate::model::{Operand, Scope};

/// One access named by a raw finding.
#[derive(Clone, Debug)]
pub struct RawAccess {
    /// Name at detection time (async agents do not exist in the initial machine).
    pub agent_name: String,
    pub instr: Option<InstrRef>,
    pub loc: usize,
    pub is_write: bool,
    pub step: Option<usize>,
}

/// The steps of the synchronization that explains a race: its release ends (none for an
/// edge from nobody) and its acquire end.
pub type FailedEdge = Option<(Vec<usize>, usize)>;

/// A finding as a step detects it; the explorer adds the witness.
#[derive(Clone, Debug)]
pub struct RawFinding {
    pub kind: FindingKind,
    pub reason: Option<RaceReason>,
    pub message: String,
    pub explanation: String,
    pub accesses: Vec<RawAccess>,
    /// Deduplication key: the instructions involved.
    pub key: Vec<InstrRef>,
    /// For a race: the steps of the synchronization that explains it (release ends, when
    /// any made it; acquire end).
    pub edge: FailedEdge,
}

#[derive(Clone, Debug, Default)]
pub struct StepOutcome {
    pub description: String,
    pub edges: Vec<EdgeRec>,
    pub failed: Vec<FailedRec>,
    pub findings: Vec<RawFinding>,
}

/// What an agent can do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// One label per choice.
    Enabled(Vec<String>),
    Blocked(String),
    Done,
}

pub struct Exec<'a> {
    pub layout: &'a Layout,
    pub mode: Mode,
    pub m: &'a mut Machine,
    pub agent: u32,
    pub step: usize,
    pub out: StepOutcome,
    /// Whether to write the texts a person reads: step descriptions, why a
    /// synchronization failed, finding messages. The explorer runs without them (formatting
    /// cost more than the semantics) and rebuilds a finding's texts by replaying its
    /// witness with them; nothing the semantics decides may depend on this flag.
    pub explain: bool,
}

impl Exec<'_> {
    pub fn me(&self) -> Result<&crate::check::machine::Agent, String> {
        self.m.agents.get(self.agent as usize).map(|a| &**a).ok_or_else(|| internal("agent out of range"))
    }

    pub fn me_mut(&mut self) -> Result<&mut crate::check::machine::Agent, String> {
        self.m.agents.get_mut(self.agent as usize).map(|a| &mut **a).ok_or_else(|| internal("agent out of range"))
    }

    pub fn place(&self) -> Place {
        self.m.agents.get(self.agent as usize).map_or(
            Place { cta: 0, cluster: 0, gpu: 0 },
            |a| a.place,
        )
    }

    /// The thread whose program this agent runs (the issuer, for async agents).
    pub fn instr_ref(&self) -> Option<InstrRef> {
        let a = self.m.agents.get(self.agent as usize)?;
        match a.kind {
            AgentKind::Thread(t) => Some(InstrRef::new(t, a.pc)),
            AgentKind::Async { issuer, .. } => Some(issuer),
        }
    }

    pub fn reg(&self, name: &str) -> i64 {
        self.me().ok().and_then(|a| a.regs.get(name).copied()).unwrap_or(0)
    }

    pub fn eval(&self, op: &Operand) -> i64 {
        operand(self.m, self.agent, op)
    }

    pub fn set_reg(&mut self, name: &str, value: i64) -> Result<(), String> {
        if name == "_" || self.me()?.regs.get(name) == Some(&value) {
            return Ok(());
        }
        let name = self.layout.register_name(name);
        let regs = &mut self.me_mut()?.regs;
        *regs = Shared::new(regs.with(name, value));
        Ok(())
    }

    /// Snapshot this agent's knowledge as a release and start a new epoch.
    pub fn release(&mut self, scope: Scope, via: impl Into<Rc<str>>, knowledge: impl Into<Shared<Knowledge>>) -> Result<Message, String> {
        let agent = self.agent;
        let step = self.step;
        let me = self.me_mut()?;
        let origin = crate::check::machine::EventId { agent, epoch: me.knowledge.own_epoch(agent) };
        me.knowledge.bump(agent);
        Ok(Message { origin, from_agent: agent, scope, via: via.into(), knowledge: knowledge.into(), step: Meta(Some(step)), performed_in: None })
    }

    /// Release everything this agent knows (with [`Exec::tc_completed`]).
    pub fn release_all(&mut self, scope: Scope, via: impl Into<Rc<str>>) -> Result<Message, String> {
        let mut k = self.me()?.knowledge.clone();
        if let Some(done) = self.tc_completed()? {
            k.join(done);
        }
        self.release(scope, via, k)
    }

    /// Pragmatic mode's reading of §12 #19: what a thread acquires through synchronization
    /// (an acquire wait, an acquire fence, a barrier) also orders its later tcgen05 ops, as
    /// if `tcgen05.fence::after_thread_sync` followed. A `tcgen05.fence::before_thread_sync`
    /// is no release pattern, so what it alone published does not count. Strict mode: only
    /// the fence orders them.
    pub fn acquired_for_tcgen05(&mut self, msg: &Message, filter: Filter) -> Result<(), String> {
        if self.mode != Mode::Pragmatic || &*msg.via == BEFORE_THREAD_SYNC || !matches!(self.me()?.kind, AgentKind::Thread(_)) {
            return Ok(());
        }
        let layout = self.layout;
        self.me_mut()?.asyncs.tc_view.join_restricted(&msg.knowledge, filter, layout);
        Ok(())
    }

    /// Pragmatic mode's reading of §12 #19: a thread's release also carries its tcgen05 ops
    /// known complete (`ld`/`st` it waited for, allocations), as if a
    /// `tcgen05.fence::before_thread_sync` preceded it. Strict mode: none.
    pub fn tc_completed(&self) -> Result<Option<&Knowledge>, String> {
        Ok((self.mode == Mode::Pragmatic).then_some(&self.me()?.asyncs.tc_done))
    }

    /// Text of the operation this agent runs: the current instruction (for an async agent,
    /// its issuer's), or the operation a `wait` spins on.
    pub fn op_text(&self) -> Rc<str> {
        self.instr_ref()
            .and_then(|at| self.layout.texts.get(at.thread()).and_then(|t| t.get(at.pc())))
            .map_or_else(|| "exit".into(), |t| t.op.clone())
    }

    /// `text()` when this step explains itself, else nothing (see [`Exec::explain`]).
    pub fn text(&self, text: impl FnOnce() -> String) -> String {
        if self.explain {
            text()
        } else {
            String::new()
        }
    }

    pub fn name_of(&self, agent: u32) -> String {
        agent_name(self.layout, self.m, agent)
    }

    pub fn edge(&mut self, msg: &Message, kind: &str, scope: Option<Scope>) {
        self.out.edges.push(EdgeRec {
            from_agent: msg.from_agent,
            from_step: msg.step.0,
            to_agent: self.agent,
            to_step: self.step,
            kind: kind.to_string(),
            scope,
        });
    }

    pub fn undefined(&mut self, message: String, explanation: String) {
        let key = self.instr_ref().into_iter().collect();
        self.undefined_at(key, message, explanation);
    }

    /// Undefined behaviour reported once per `key` rather than per current instruction.
    pub fn undefined_at(&mut self, key: Vec<InstrRef>, message: String, explanation: String) {
        self.m.undefined = true;
        // The witness's last step is this one: it must say what happened.
        if self.explain && self.out.description.is_empty() {
            self.out.description = format!("undefined behaviour: {message}");
        }
        self.out.findings.push(RawFinding {
            kind: FindingKind::Undefined,
            reason: None,
            message,
            explanation,
            accesses: Vec::new(),
            key,
            edge: None,
        });
    }

    pub fn set_status(&mut self, status: Status) -> Result<(), String> {
        self.me_mut()?.status = status;
        Ok(())
    }
}

pub fn internal(what: &str) -> String {
    format!("fencelab internal bug: {what}")
}

pub fn agent_name(layout: &Layout, m: &Machine, agent: u32) -> String {
    match m.agents.get(agent as usize).map(|a| &a.kind) {
        Some(AgentKind::Thread(t)) => layout.threads.get(*t).map_or("?".into(), |t| t.name.clone()),
        Some(AgentKind::Async { issuer, op }) => {
            let issuer = layout.threads.get(issuer.thread()).map_or("?", |t| t.name.as_str());
            format!("{}#{agent} ({issuer})", op.kind_name())
        }
        None => "?".into(),
    }
}

/// How the release `tcgen05.fence::before_thread_sync` publishes is named (§8.4).
pub const BEFORE_THREAD_SYNC: &str = "tcgen05.fence::before_thread_sync";

/// Text of the instruction at `at`, as the author wrote it.
pub fn instr_text(layout: &Layout, at: InstrRef) -> Rc<str> {
    layout.texts.get(at.thread()).and_then(|t| t.get(at.pc())).map_or_else(|| "exit".into(), |t| t.whole.clone())
}

/// The value of an operand in `agent`'s registers (0 for a register never written).
pub fn operand(m: &Machine, agent: u32, op: &Operand) -> i64 {
    match op {
        Operand::Imm(v) => *v,
        Operand::Reg(r) => m.agents.get(agent as usize).and_then(|a| a.regs.get(r.as_str())).copied().unwrap_or(0),
    }
}

/// Whether the mode takes the spec-silent reading (reference §12) the pragmatic way; the
/// points themselves are listed in `check::ambiguity`.
pub fn pragmatic(ex: &Exec) -> bool {
    ex.mode == Mode::Pragmatic
}

pub fn op_of(m: &Machine, agent: u32) -> Option<(InstrRef, &AsyncOp)> {
    match &m.agents.get(agent as usize)?.kind {
        AgentKind::Async { issuer, op } => Some((*issuer, &**op)),
        AgentKind::Thread(_) => None,
    }
}

pub fn stage_of(m: &Machine, agent: u32) -> Option<Stage> {
    op_of(m, agent).map(|(_, op)| op.stage)
}

pub fn all_reached(m: &Machine, agents: &[u32], stage: Stage) -> bool {
    agents.iter().all(|a| stage_of(m, *a).is_none_or(|s| s >= stage))
}
