//! Instruction semantics in layers; a module imports only from layers below its own
//! (`tests/semantics_layers.rs` keeps it so):
//! 1. [`base`]: the machinery every family shares (execution context, causality table,
//!    accesses and races, asynchronous agents, exit and completion, control flow);
//! 2. one module per instruction family: [`ld_st`], [`atom`], [`fence`], [`bar`],
//!    [`cluster`], [`mbarrier`], [`control`], [`tma`], [`cp_async`], [`st_async`],
//!    [`wgmma`], [`tcgen05`] (a folder); no family imports another;
//! 3. [`async_op`], which hands each asynchronous agent to its family, and this file, which
//!    hands each thread instruction to its family.
//!
//! What an asynchronous agent does (`AsyncOp`) is machine state (`machine/agents.rs`).
//! Adding a family = one module here and its arms below; one that spawns agents also adds
//! an `AsyncWhat` variant (with its name and what observes its completion) and its arms in
//! [`async_op`]. The explorer only calls [`readiness`] and [`step`].

pub mod async_op;
pub mod atom;
pub mod bar;
pub mod base;
pub mod cluster;
pub mod control;
pub mod cp_async;
pub mod fence;
pub mod ld_st;
pub mod mbarrier;
pub mod st_async;
pub mod tcgen05;
pub mod tma;
pub mod wgmma;

pub use base::exec::{self, Exec, RawFinding, Readiness, StepOutcome};

use base::async_agent;
use base::exec::all_reached;
use base::exit;
use crate::check::machine::{AgentKind, Layout, Machine, Stage, Status, StepFacts};
use crate::model::{Instr, MbarKind, TcOp, WgmmaOp};

/// The instruction at the agent's pc as the author wrote it (guard and byte offsets
/// included), if it is a thread: what traces show.
pub fn written_instr<'l>(layout: &'l Layout, m: &Machine, agent: u32) -> Option<&'l Instr> {
    let a = m.agents.get(agent as usize)?;
    match a.kind {
        AgentKind::Thread(t) => layout.threads.get(t)?.written.get(a.pc),
        AgentKind::Async { .. } => None,
    }
}

/// What a guarded instruction whose guard is false runs as: a step that only moves the pc.
static SKIPPED: Instr = Instr::Label(String::new());

/// The instruction at the agent's pc, if it is a thread. A guarded instruction is its
/// inner instruction when the guard holds and a no-op when it does not; the guard reads
/// the register as it is now, so a predicate that depends on a read follows whichever
/// value each explored path read.
pub fn current_instr<'l>(layout: &'l Layout, m: &Machine, agent: u32) -> Option<&'l Instr> {
    let a = m.agents.get(agent as usize)?;
    let mut instr = match a.kind {
        AgentKind::Thread(t) => layout.threads.get(t)?.program.get(a.pc)?,
        AgentKind::Async { .. } => return None,
    };
    while let Instr::Guarded { pred, negated, instr: inner } = instr {
        let value = a.regs.get(pred.as_str()).copied().unwrap_or(0);
        if (value != 0) == *negated {
            return Some(&SKIPPED);
        }
        instr = inner;
    }
    Some(instr)
}

/// The step facts of the instruction at the agent's pc, if it is a thread: a guard that
/// is false makes it the skip, which touches nothing but the pc.
pub fn current_step_facts(layout: &Layout, m: &Machine, agent: u32) -> Option<StepFacts> {
    let instr = current_instr(layout, m, agent)?;
    if std::ptr::eq(instr, &SKIPPED) {
        return Some(StepFacts::of(layout, instr));
    }
    let a = m.agents.get(agent as usize)?;
    let AgentKind::Thread(t) = a.kind else { return None };
    layout.step_facts.get(t)?.get(a.pc).copied()
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32) -> Result<Readiness, String> {
    readiness_for(layout, m, agent, true)
}

/// [`readiness`], with choice labels and blocked reasons left empty unless `explain`: the
/// explorer asks for every agent in every state and needs only the counts.
pub fn readiness_for(layout: &Layout, m: &Machine, agent: u32, explain: bool) -> Result<Readiness, String> {
    let Some(a) = m.agents.get(agent as usize) else { return Ok(Readiness::Done) };
    if m.undefined {
        return Ok(Readiness::Blocked("execution stopped at undefined behaviour".into()));
    }
    match a.status {
        Status::Done => return Ok(Readiness::Done),
        Status::InBarrier => return Ok(bar::readiness(layout, m, agent)),
        Status::Running => {}
    }
    if let AgentKind::Async { .. } = &a.kind {
        return async_op::readiness(layout, m, agent, explain);
    }
    let Some(instr) = current_instr(layout, m, agent) else { return Ok(Readiness::Done) };
    if let Instr::Tc(TcOp::Dealloc { cta_group: 2, .. }) = instr {
        let at_pair_dealloc = |cta: usize| {
            (0..m.agents.len() as u32).any(|id| {
                m.agents.get(id as usize).is_some_and(|p| p.place.cta == cta && p.status == Status::Running)
                    && matches!(current_instr(layout, m, id), Some(Instr::Tc(TcOp::Dealloc { cta_group: 2, .. })))
            })
        };
        if let Some(r) = tcgen05::pair_dealloc_readiness(layout, m, a.place.cta, at_pair_dealloc) {
            return Ok(r);
        }
    }
    if let Some(r) = tcgen05::thread_readiness(layout, m, agent, instr) {
        return Ok(r);
    }
    // Most instructions have the one choice; its label is for people (`explain`).
    let run = || Ok(Readiness::Enabled(vec![if explain { "run".into() } else { String::new() }]));
    match instr {
        Instr::BulkWait { n, read } => Ok(tma::wait_readiness(m, agent, *n, *read)),
        Instr::CpAsyncWait { n } => Ok(cp_async::wait_readiness(m, agent, Some(*n))),
        Instr::CpAsyncWaitAll => Ok(cp_async::wait_readiness(m, agent, None)),
        Instr::Wgmma(WgmmaOp::WaitGroup { n }) => Ok(wgmma_wait_readiness(m, agent, *n, explain)),
        Instr::Ld { .. } => ld_st::readiness(layout, m, agent, instr, None),
        Instr::Atom { .. } => atom::readiness(layout, m, agent, instr, None),
        Instr::ClusterWait => Ok(cluster::readiness(layout, m, agent)),
        Instr::Wait { instr: inner, until } => match inner.as_ref() {
            Instr::Ld { .. } => ld_st::readiness(layout, m, agent, inner, until.as_ref()),
            Instr::Atom { .. } => atom::readiness(layout, m, agent, inner, until.as_ref()),
            Instr::Mbar(op) if matches!(op.kind, MbarKind::Wait { .. }) => mbarrier::readiness(layout, m, agent, op, explain),
            other => Err(format!("`wait` cannot spin on `{}`", crate::check::text::instr(other))),
        },
        _ => run(),
    }
}

/// Perform one step of `ex.agent` with `choice`.
pub fn step(ex: &mut Exec, choice: u32) -> Result<(), String> {
    if base::exec::op_of(ex.m, ex.agent).is_some() {
        return async_op::step(ex, choice);
    }
    let Some(instr) = current_instr(ex.layout, ex.m, ex.agent) else {
        return Err(format!("agent {} has nothing to run", ex.agent));
    };
    if std::ptr::eq(instr, &SKIPPED) {
        if ex.explain {
            ex.out.description = "guard is false: skipped".into();
        }
        return ex.next();
    }
    if wgmma::hazard(ex, instr)? {
        return Ok(());
    }
    if let Some((loc, is_write)) = current_step_facts(ex.layout, ex.m, ex.agent).and_then(|f| f.thread_access) {
        let layout = ex.layout;
        let what = || {
            let verb = if layout.mbar_locs.contains(&loc) {
                "uses mbarrier"
            } else if is_write {
                "writes"
            } else {
                "reads"
            };
            format!("{verb} `{}`", layout.locs.get(loc).map_or("?", |l| l.name.as_str()))
        };
        if exit::into_exited_cta(ex, loc, is_write, what) {
            return Ok(());
        }
    }
    match instr {
        Instr::Bulk { .. } => tma::issue(ex, instr),
        Instr::BulkCommit => tma::commit(ex),
        Instr::BulkWait { n, read } => tma::wait(ex, *n, *read),
        Instr::CpAsync { .. } => cp_async::issue(ex, instr),
        Instr::CpAsyncCommit => cp_async::commit(ex),
        Instr::CpAsyncWait { n } => cp_async::wait(ex, Some(*n)),
        Instr::CpAsyncWaitAll => cp_async::wait(ex, None),
        Instr::CpAsyncMbarArrive { bar, noinc, .. } => cp_async::mbar_arrive(ex, bar, *noinc),
        Instr::StAsync { .. } => st_async::issue(ex, instr),
        Instr::Wgmma(op) => wgmma::issue(ex, op),
        Instr::Tc(op) => tcgen05::issue(ex, op),
        Instr::Ld { .. } | Instr::St { .. } => ld_st::step(ex, instr, None, choice),
        Instr::Atom { .. } => atom::step(ex, instr, None, choice),
        Instr::Fence(f) => fence::step(ex, f),
        Instr::Bar { .. } => bar::step(ex, instr),
        Instr::ClusterArrive { sem } => cluster::arrive(ex, *sem),
        Instr::ClusterWait => cluster::wait(ex),
        Instr::Mbar(op) => mbarrier::step(ex, op, false),
        Instr::Wait { instr: inner, until } => match inner.as_ref() {
            Instr::Ld { .. } => ld_st::step(ex, inner, until.as_ref(), choice),
            Instr::Atom { .. } => atom::step(ex, inner, until.as_ref(), choice),
            Instr::Mbar(op) => mbarrier::step(ex, op, true),
            other => Err(format!("`wait` cannot spin on `{}`", crate::check::text::instr(other))),
        },
        Instr::Label(_) | Instr::Branch { .. } | Instr::Mov { .. } | Instr::Add { .. } | Instr::SetP { .. } | Instr::Exit => {
            control::step(ex, instr)
        }
        // The layout strips byte ranges and `current_instr` resolves guards.
        Instr::Ranged { .. } | Instr::Guarded { .. } => Err(base::exec::internal("wrapped instruction at step")),
    }
}

fn wgmma_wait_readiness(m: &Machine, agent: u32, n: u32, explain: bool) -> Readiness {
    let Some(a) = m.agents.get(agent as usize) else { return Readiness::Done };
    let groups = &a.asyncs.wgmma_groups;
    let mut waiting = groups.iter().take(async_agent::covered(groups, n)).flatten().filter(|id| !all_reached(m, &[**id], Stage::Completed)).peekable();
    if waiting.peek().is_none() {
        async_agent::one("wait_group returns")
    } else if explain {
        Readiness::Blocked(format!("waits for wgmma {}", waiting.map(|id| format!("#{id}")).collect::<Vec<_>>().join(", ")))
    } else {
        Readiness::Blocked(String::new())
    }
}
