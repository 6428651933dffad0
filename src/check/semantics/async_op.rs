//! Asynchronous agents (reference §9 item 1): an op spawned by a thread that performs its
//! memory accesses at a later step, then fires its completion mechanism at another step.
//!
//! An agent starts from the knowledge its issuer gives it (for its reads and WAR checks);
//! its completion signal publishes only the agent's own accesses, plus the implicit
//! generic↔async proxy fence where the spec states one (§3.3).

use super::access;
use super::exec::{internal, Exec, Readiness};
use crate::check::machine::{
    Agent, AgentKind, Filter, InstrRef, Knowledge, Layout, Machine, Message, Place, ProxyKey, Shared, Stage,
    Status, Via,
};
use crate::check::report::Mode;
use crate::model::{AtomOp, Scope};

/// The operation an asynchronous agent performs, and how far it got.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsyncOp {
    pub what: AsyncWhat,
    pub stage: Stage,
}

/// Locations are layout indices, barriers mbarrier indices, `after` lists agent ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AsyncWhat {
    /// `cp{.reduce}.async.bulk` with `mbarrier::complete_tx::bytes` (one agent per destination CTA).
    Bulk { dst: usize, src: usize, bytes: u32, mbar: usize, reduce: Option<AtomOp> },
    /// `cp{.reduce}.async.bulk` with `.bulk_group`: reads the source, then writes the destination.
    BulkGroup { dst: usize, src: usize, reduce: Option<AtomOp> },
    CpAsync { dst: usize, src: usize },
    /// The async arrive of `cp.async.mbarrier.arrive` once the `after` copies completed.
    CpArrive { mbar: usize, after: Vec<u32> },
    StAsync { addr: usize, value: i64, mbar: usize, bytes: u32, red: Option<AtomOp> },
    /// `acc_in` is the accumulator at issue; `after` the chained wgmma on the same accumulator.
    Wgmma { acc: String, a: usize, b: usize, acc_in: i64, after: Option<u32> },
    Tc(super::tcgen05::TcWhat),
}

pub fn kind_name(op: &AsyncOp) -> &'static str {
    match &op.what {
        AsyncWhat::Bulk { reduce: None, .. } | AsyncWhat::BulkGroup { reduce: None, .. } => "tma",
        AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } => "tma-reduce",
        AsyncWhat::CpAsync { .. } => "cp.async",
        AsyncWhat::CpArrive { .. } => "cp.async-arrive",
        AsyncWhat::StAsync { red: None, .. } => "st.async",
        AsyncWhat::StAsync { .. } => "red.async",
        AsyncWhat::Wgmma { .. } => "wgmma",
        AsyncWhat::Tc(t) => super::tcgen05::kind_name(t),
    }
}

pub fn op_of(m: &Machine, agent: u32) -> Option<(InstrRef, AsyncOp)> {
    match &m.agents.get(agent as usize)?.kind {
        AgentKind::Async { issuer, op } => Some((*issuer, op.clone())),
        AgentKind::Thread(_) => None,
    }
}

pub fn stage_of(m: &Machine, agent: u32) -> Option<Stage> {
    op_of(m, agent).map(|(_, op)| op.stage)
}

pub fn all_reached(m: &Machine, agents: &[u32], stage: Stage) -> bool {
    agents.iter().all(|a| stage_of(m, *a).is_none_or(|s| s >= stage))
}

/// Spawn an agent for the executing thread's current instruction. `knowledge` is what the
/// agent starts from; the issuer starts a new epoch so its later accesses are not ordered
/// before the agent's.
pub fn spawn(ex: &mut Exec, what: AsyncWhat, knowledge: impl Into<Shared<Knowledge>>, place: Place) -> Result<u32, String> {
    let mut knowledge = knowledge.into();
    let issuer = ex.instr_ref().ok_or_else(|| internal("spawn without issuer"))?;
    let id = ex.m.agents.len() as u32;
    knowledge.join(&Knowledge::new(ex.layout.cells, id));
    ex.m.agents.push(Agent {
        kind: AgentKind::Async { issuer, op: AsyncOp { what, stage: Stage::Issued } },
        place,
        pc: 0,
        regs: Default::default(),
        knowledge,
        status: Status::Running,
        release_fences: Vec::new(),
        pending_acquire: Vec::new(),
        cluster_arrived: None,
        asyncs: Default::default(),
    }.into());
    let me = ex.agent;
    ex.me_mut()?.knowledge.bump(me);
    Ok(id)
}

/// Move the executing agent to `stage` (Completed also finishes it).
pub fn set_stage(ex: &mut Exec, stage: Stage) -> Result<(), String> {
    // A finished agent makes no more accesses: keep only its own events, so that states
    // differing just in what it once inherited are the same state.
    // (tcgen05 mma/cp/shift keep theirs: `tcgen05.commit` publishes it.)
    let keeps = matches!(op_of(ex.m, ex.agent), Some((_, AsyncOp { what: AsyncWhat::Tc(t), .. })) if super::tcgen05::commit_publishes(&t));
    let own = (stage == Stage::Completed && !keeps).then(|| own_events(ex.layout, ex.m, ex.agent, false));
    let a = ex.me_mut()?;
    if let Some(k) = own {
        a.knowledge = k.into();
    }
    if let AgentKind::Async { op, .. } = &mut a.kind {
        op.stage = stage;
    }
    if stage == Stage::Completed {
        a.status = Status::Done;
    }
    Ok(())
}

/// The agent's own events only (what its completion may publish), with the implicit
/// generic↔async proxy fence when `proxy_fence`.
pub fn own_events(layout: &Layout, m: &Machine, agent: u32, proxy_fence: bool) -> Knowledge {
    let mut k = Knowledge::new(layout.cells, agent);
    let epoch = m.agents.get(agent as usize).map_or(1, |a| a.knowledge.own_epoch(agent));
    if let Some(main) = k.main_mut() {
        main.vv.set(agent, epoch);
        main.floor.iter_mut().for_each(|f| *f = 0);
    }
    if proxy_fence {
        let cta = m.agents.get(agent as usize).map_or(0, |a| a.place.cta);
        k.bridge(ProxyKey::Async.bit(), cta, Filter::All, layout);
    }
    k
}

/// A release message from the executing agent carrying `knowledge`.
pub fn message(ex: &mut Exec, scope: Scope, via: String, knowledge: Knowledge) -> Result<Message, String> {
    ex.release(scope, via, knowledge)
}

/// Read choices for several locations at once: the cartesian product of each one's candidates.
pub fn read_plan(layout: &Layout, m: &Machine, agent: u32, reads: &[(usize, ProxyKey)]) -> Vec<Vec<usize>> {
    let mut plans: Vec<Vec<usize>> = vec![Vec::new()];
    for &(loc, key) in reads {
        let cands = access::candidates(layout, m, agent, loc, via(layout, loc, Some(key)));
        plans = plans
            .iter()
            .flat_map(|p| cands.iter().map(move |c| p.iter().copied().chain(std::iter::once(*c)).collect()))
            .collect();
    }
    plans
}

pub fn plan_labels(layout: &Layout, m: &Machine, reads: &[(usize, ProxyKey)], plans: &[Vec<usize>]) -> Vec<String> {
    plans
        .iter()
        .map(|p| {
            let parts: Vec<String> = reads
                .iter()
                .zip(p)
                .flat_map(|(&(loc, _), &w)| access::labels(layout, m, loc, &[w]))
                .collect();
            parts.join("; ")
        })
        .collect()
}

/// Perform the reads of plan `choice`; returns the values read.
pub fn perform_reads(ex: &mut Exec, reads: &[(usize, ProxyKey)], choice: u32) -> Result<Vec<i64>, String> {
    let plans = read_plan(ex.layout, ex.m, ex.agent, reads);
    let plan = plans.get(choice as usize).cloned().ok_or_else(|| format!("no read choice {choice}"))?;
    let mut values = Vec::new();
    for (&(loc, key), widx) in reads.iter().zip(plan) {
        let acc = access_to(ex.layout, loc, Some(key), None);
        values.push(access::read(ex, &acc, widx)?.value);
    }
    Ok(values)
}

pub fn enabled_reads(layout: &Layout, m: &Machine, agent: u32, reads: &[(usize, ProxyKey)]) -> Readiness {
    let plans = read_plan(layout, m, agent, reads);
    Readiness::Enabled(plan_labels(layout, m, reads, &plans))
}

pub fn one(label: &str) -> Readiness {
    Readiness::Enabled(vec![label.to_string()])
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32) -> Result<Readiness, String> {
    let Some((_, op)) = op_of(m, agent) else { return Ok(Readiness::Done) };
    if op.stage == Stage::Completed {
        return Ok(Readiness::Done);
    }
    Ok(match &op.what {
        AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } => super::tma::readiness(layout, m, agent, &op),
        AsyncWhat::CpAsync { .. } | AsyncWhat::CpArrive { .. } => super::cp_async::readiness(layout, m, agent, &op),
        AsyncWhat::StAsync { .. } => super::st_async::readiness(&op),
        AsyncWhat::Wgmma { .. } => super::wgmma::readiness(layout, m, agent, &op),
        AsyncWhat::Tc(t) => super::tcgen05::readiness(layout, m, agent, t, op.stage),
    })
}

pub fn step(ex: &mut Exec, choice: u32) -> Result<(), String> {
    let (_, op) = op_of(ex.m, ex.agent).ok_or_else(|| internal("async step on a thread"))?;
    match &op.what {
        AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } => super::tma::step(ex, &op, choice),
        AsyncWhat::CpAsync { .. } | AsyncWhat::CpArrive { .. } => super::cp_async::step(ex, &op, choice),
        AsyncWhat::StAsync { .. } => super::st_async::step(ex, &op),
        AsyncWhat::Wgmma { .. } => super::wgmma::step(ex, &op, choice),
        AsyncWhat::Tc(t) => super::tcgen05::step(ex, t, op.stage, choice),
    }
}

/// Whether the mode takes the spec-silent reading (reference §12) the pragmatic way; the
/// points themselves are listed in `check::ambiguity`.
pub fn pragmatic(ex: &Exec) -> bool {
    ex.mode == Mode::Pragmatic
}

/// §12 #4: a generic read followed by an async write of the same location (WAR). Strict
/// mode asks for a proxy fence on the path (the CLC example); pragmatic mode accepts plain
/// causality, as production pipelines (CUTLASS) do.
pub fn war_generic_then_async(read: ProxyKey, write: ProxyKey) -> bool {
    read == ProxyKey::Generic && write == ProxyKey::Async
}

/// The in-flight and finished asynchronous agents, for the stepping UI.
pub fn views(layout: &Layout, m: &Machine) -> Vec<crate::check::view::AsyncOpView> {
    use crate::check::view::{AsyncOpState, AsyncOpView};
    (0..m.agents.len() as u32)
        .filter_map(|id| {
            let (issuer, op) = op_of(m, id)?;
            let state = match op.stage {
                Stage::Issued => AsyncOpState::Issued,
                Stage::Accessed => AsyncOpState::Accessing,
                Stage::Completed => AsyncOpState::Completed,
            };
            let description = match readiness(layout, m, id) {
                Ok(Readiness::Enabled(labels)) => format!("next: {}", labels.join(" | ")),
                Ok(Readiness::Blocked(why)) => why,
                Ok(Readiness::Done) | Err(_) => "done".into(),
            };
            Some(AsyncOpView {
                agent: id,
                name: super::exec::agent_name(layout, m, id),
                issuer: layout.threads.get(issuer.thread).map_or(String::new(), |t| t.name.clone()),
                state,
                description,
            })
        })
        .collect()
}

/// Explains a race with an asynchronous agent's access: its completion was never observed.
pub fn unobserved(ex: &Exec, agent: u32) -> Option<String> {
    let (issuer, op) = op_of(ex.m, agent)?;
    let name = ex.name_of(agent);
    let issuer = ex.layout.threads.get(issuer.thread).map_or("?", |t| t.name.as_str());
    let how = match &op.what {
        AsyncWhat::Bulk { .. } | AsyncWhat::StAsync { .. } => "an acquire wait on its mbarrier phase",
        AsyncWhat::BulkGroup { .. } => "`cp.async.bulk.wait_group` by the issuing thread, then synchronization with it",
        AsyncWhat::CpAsync { .. } | AsyncWhat::CpArrive { .. } => {
            "`cp.async.wait_group` by the issuing thread (then a barrier), or `cp.async.mbarrier.arrive` and a wait"
        }
        AsyncWhat::Wgmma { .. } => "`wgmma.wait_group` by the issuing warpgroup",
        AsyncWhat::Tc(_) => "`tcgen05.commit` and a wait, or `tcgen05.wait::*`, plus the tcgen05 thread-sync fences",
    };
    Some(format!(
        "`{name}` (issued by `{issuer}`) is asynchronous: only its own completion mechanism orders it, \
         and nothing here observed that completion; use {how}"
    ))
}

/// How an async agent reaches `loc`: through `proxy`, or the location's own proxy.
pub fn via(layout: &Layout, loc: usize, proxy: Option<ProxyKey>) -> Via {
    let info = layout.locs.get(loc);
    Via { proxy: proxy.or(info.map(|l| l.key)).unwrap_or(ProxyKey::Generic), va: info.map_or(loc, |l| l.va) }
}

pub fn access_to(layout: &Layout, loc: usize, proxy: Option<ProxyKey>, strong: Option<Scope>) -> access::Access {
    access::Access { loc, key: via(layout, loc, proxy), strong }
}
