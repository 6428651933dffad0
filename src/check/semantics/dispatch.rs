//! What the explorer and the stepper call: readiness of an agent and one step of it,
//! dispatched to the module of the instruction's family.

use super::{atom, bar, cluster, control, exec, fence, ld_st, mbarrier, Exec, Readiness};
use crate::check::machine::{AgentKind, Layout, Machine, Status};
use crate::model::{Instr, MbarKind};

/// The instruction at the agent's pc, if it is a thread.
pub fn current_instr<'l>(layout: &'l Layout, m: &Machine, agent: u32) -> Option<&'l Instr> {
    let a = m.agents.get(agent as usize)?;
    match a.kind {
        AgentKind::Thread(t) => layout.threads.get(t)?.program.get(a.pc),
        AgentKind::Async { .. } => None,
    }
}

/// Whether an instruction needs the asynchronous semantics (not built yet).
pub fn unsupported(instr: &Instr) -> Option<String> {
    match instr {
        Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::Bulk { .. }
        | Instr::BulkCommit
        | Instr::BulkWait { .. }
        | Instr::StAsync { .. }
        | Instr::Wgmma(_)
        | Instr::Tc(_) => Some(format!(
            "`{}` needs the asynchronous-agent semantics, which this build does not have yet",
            crate::check::text::instr(instr)
        )),
        Instr::Wait { instr, .. } => unsupported(instr),
        _ => None,
    }
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32) -> Result<Readiness, String> {
    let Some(a) = m.agents.get(agent as usize) else { return Ok(Readiness::Done) };
    if m.undefined {
        return Ok(Readiness::Blocked("execution stopped at undefined behaviour".into()));
    }
    match a.status {
        Status::Done => return Ok(Readiness::Done),
        Status::InBarrier => return Ok(bar::readiness(layout, m, agent)),
        Status::Running => {}
    }
    if let AgentKind::Async { op, .. } = &a.kind {
        match *op {}
    }
    let Some(instr) = current_instr(layout, m, agent) else { return Ok(Readiness::Done) };
    let run = || Ok(Readiness::Enabled(vec!["run".into()]));
    match instr {
        Instr::Ld { .. } => ld_st::readiness(layout, m, agent, instr, None),
        Instr::Atom { .. } => atom::readiness(layout, m, agent, instr, None),
        Instr::ClusterWait => Ok(cluster::readiness(layout, m, agent)),
        Instr::Wait { instr: inner, until } => match inner.as_ref() {
            Instr::Ld { .. } => ld_st::readiness(layout, m, agent, inner, until.as_ref()),
            Instr::Atom { .. } => atom::readiness(layout, m, agent, inner, until.as_ref()),
            Instr::Mbar(op) if matches!(op.kind, MbarKind::Wait { .. }) => mbarrier::readiness(layout, m, agent, op),
            other => Err(format!("`wait` cannot spin on `{}`", crate::check::text::instr(other))),
        },
        _ => run(),
    }
}

/// Perform one step of `ex.agent` with `choice`.
pub fn step(ex: &mut Exec, choice: u32) -> Result<(), String> {
    let Some(instr) = current_instr(ex.layout, ex.m, ex.agent).cloned() else {
        return Err(format!("agent {} has nothing to run", ex.agent));
    };
    if let Some(why) = unsupported(&instr) {
        return Err(why);
    }
    match &instr {
        Instr::Ld { .. } | Instr::St { .. } => ld_st::step(ex, &instr, None, choice),
        Instr::Atom { .. } => atom::step(ex, &instr, None, choice),
        Instr::Fence(f) => fence::step(ex, f),
        Instr::Bar { .. } => bar::step(ex, &instr),
        Instr::ClusterArrive { sem } => cluster::arrive(ex, *sem),
        Instr::ClusterWait => cluster::wait(ex),
        Instr::Mbar(op) => mbarrier::step(ex, op, false),
        Instr::Wait { instr: inner, until } => match inner.as_ref() {
            Instr::Ld { .. } => ld_st::step(ex, inner, until.as_ref(), choice),
            Instr::Atom { .. } => atom::step(ex, inner, until.as_ref(), choice),
            Instr::Mbar(op) => mbarrier::step(ex, op, true),
            other => Err(format!("`wait` cannot spin on `{}`", crate::check::text::instr(other))),
        },
        Instr::Label(_) | Instr::Branch { .. } | Instr::Mov { .. } | Instr::Add { .. } | Instr::Exit => {
            control::step(ex, &instr)
        }
        _ => Err(exec::internal("unhandled instruction")),
    }
}
