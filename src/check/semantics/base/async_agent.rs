//! Asynchronous agents (reference §9 item 1): an op spawned by a thread that performs its
//! memory accesses at a later step, then fires its completion mechanism at another step.
//! This is the machinery every async family shares; which family steps an agent is
//! decided in [`crate::check::semantics::async_op`].
//!
//! An agent starts from the knowledge its issuer gives it (for its reads and WAR checks);
//! its completion signal publishes only the agent's own accesses, plus the implicit
//! generic↔async proxy fence where the spec states one (§3.3).

use super::access;
use super::exec::{internal, op_of, Exec, Readiness};
use crate::check::machine::{
    Agent, AgentKind, AsyncOp, AsyncWhat, Filter, Knowledge, Layout, Machine, Message, Place, ProxyKey, Shared,
    Stage, Status, Via,
};
use crate::model::Scope;

/// Spawn an agent for the executing thread's current instruction. `knowledge` is what the
/// agent starts from; the issuer starts a new epoch so its later accesses are not ordered
/// before the agent's.
pub fn spawn(ex: &mut Exec, what: AsyncWhat, knowledge: impl Into<Shared<Knowledge>>, place: Place) -> Result<u32, String> {
    let mut knowledge = knowledge.into();
    let issuer = ex.instr_ref().ok_or_else(|| internal("spawn without issuer"))?;
    let id = ex.m.agents.len() as u32;
    knowledge.join_fresh(ex.layout.cells, id);
    ex.m.agents.push(Agent {
        kind: AgentKind::Async { issuer, op: Box::new(AsyncOp { what, stage: Stage::Issued }) },
        place,
        pc: 0,
        regs: Default::default(),
        knowledge,
        status: Status::Running,
        release_fences: Shared::default(),
        pending_acquire: Shared::default(),
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
    let keeps = matches!(op_of(ex.m, ex.agent), Some((_, AsyncOp { what: AsyncWhat::Tc(t), .. })) if t.is_pipelined_producer());
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
            .flat_map(|p| cands.clone().map(move |c| p.iter().copied().chain(std::iter::once(c)).collect()))
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

pub fn enabled_reads(layout: &Layout, m: &Machine, agent: u32, reads: &[(usize, ProxyKey)], explain: bool) -> Readiness {
    let plans = read_plan(layout, m, agent, reads);
    Readiness::Enabled(if explain { plan_labels(layout, m, reads, &plans) } else { vec![String::new(); plans.len()] })
}

pub fn one(label: &str) -> Readiness {
    Readiness::Enabled(vec![label.to_string()])
}

/// How an async agent reaches `loc`: through `proxy`, or the location's own proxy.
pub fn via(layout: &Layout, loc: usize, proxy: Option<ProxyKey>) -> Via {
    let info = layout.locs.get(loc);
    Via { proxy: proxy.or(info.map(|l| l.key)).unwrap_or(ProxyKey::Generic), va: info.map_or(loc, |l| l.va) }
}

pub fn access_to(layout: &Layout, loc: usize, proxy: Option<ProxyKey>, strong: Option<Scope>) -> access::Access {
    access::Access { loc, key: via(layout, loc, proxy), strong }
}

/// Groups a `wait_group n` waits for: all but the `n` most recent.
pub fn covered(groups: &[Vec<u32>], n: u32) -> usize {
    groups.len().saturating_sub(n as usize)
}
