//! wgmma (reference §7): `mma_async` reads its shared-memory operands in the async proxy
//! and is not ordered after the thread's prior instructions, only after the last
//! `wgmma.fence` (which orders register accesses, not shared memory). Results reach the
//! registers at a covering `wait_group`, whose completion carries the implicit proxy fence.

use super::base::exec::{self, internal, Exec, Readiness};
use super::base::async_agent;
use crate::check::machine::{AgentKind, AsyncOp, AsyncWhat, Layout, Machine, ProxyKey, Stage};
use crate::model::{Instr, WgmmaOp};

pub fn issue(ex: &mut Exec, op: &WgmmaOp) -> Result<(), String> {
    match op {
        WgmmaOp::Fence => {
            let k = ex.me()?.knowledge.clone();
            let me = ex.agent;
            let t = ex.me_mut()?;
            t.asyncs.wgmma_fence = Some(k);
            t.asyncs.dirty_regs.clear();
            t.knowledge.bump(me);
            if ex.explain {
                ex.out.description = "register accesses so far are ordered before later wgmma".into();
            }
        }
        WgmmaOp::MmaAsync { acc, a, b } => {
            let text = ex.op_text();
            let asyncs = ex.me()?.asyncs.clone();
            let Some(k) = asyncs.wgmma_fence.clone() else {
                ex.undefined(format!("`{text}` without a prior `wgmma.fence`"), "`wgmma.fence.sync.aligned` must precede the first wgmma.mma_async (§9.7.15.7.1)".into());
                return Ok(());
            };
            if asyncs.dirty_regs.iter().any(|r| r == acc) {
                ex.undefined(
                    format!("`{text}` uses accumulator `{acc}` written since the last `wgmma.fence`"),
                    "add `wgmma.fence.sync.aligned` between the register write and the wgmma (§9.7.15.7.1)".into(),
                );
                return Ok(());
            }
            let (a, b) = (ex.layout.loc(a)?, ex.layout.loc(b)?);
            let after = in_flight(ex.m, ex.agent).into_iter().rev().find(|id| acc_of(ex.m, *id).as_deref() == Some(acc.as_str()));
            let acc_in = ex.reg(acc);
            let place = ex.place();
            let id = async_agent::spawn(ex, AsyncWhat::Wgmma { acc: acc.clone(), a, b, acc_in, after }, k, place)?;
            ex.me_mut()?.asyncs.wgmma_open.push(id);
            if ex.explain {
                ex.out.description = format!("issued wgmma (agent #{id}) into `{acc}`");
            }
        }
        WgmmaOp::CommitGroup => {
            let a = &mut ex.me_mut()?.asyncs;
            let g = std::mem::take(&mut a.wgmma_open);
            a.wgmma_groups.push(g);
            if ex.explain {
                ex.out.description = "committed a wgmma group".into();
            }
        }
        WgmmaOp::WaitGroup { n } => {
            let groups = ex.me()?.asyncs.wgmma_groups.clone();
            let upto = async_agent::covered(&groups, *n);
            for id in groups.iter().take(upto).flatten() {
                if let Some((acc, v)) = acc_of(ex.m, *id).zip(ex.m.agents.get(*id as usize).and_then(|a| a.regs.get("acc").copied())) {
                    ex.set_reg(&acc, v)?;
                }
                let k = async_agent::own_events(ex.layout, ex.m, *id, true);
                ex.me_mut()?.knowledge.join(&k);
            }
            ex.me_mut()?.asyncs.wgmma_groups.drain(..upto);
            if ex.explain {
                ex.out.description = format!("{upto} wgmma group{} complete", if upto == 1 { "" } else { "s" });
            }
        }
    }
    ex.next()
}

/// This thread's wgmma not yet retired by a `wait_group`, oldest first.
pub fn in_flight(m: &Machine, agent: u32) -> Vec<u32> {
    m.agents.get(agent as usize).map_or_else(Vec::new, |a| {
        a.asyncs.wgmma_groups.iter().flatten().chain(&a.asyncs.wgmma_open).copied().collect()
    })
}

fn acc_of(m: &Machine, id: u32) -> Option<String> {
    match &m.agents.get(id as usize)?.kind {
        AgentKind::Async { op, .. } => match &op.what {
            AsyncWhat::Wgmma { acc, .. } => Some(acc.clone()),
            _ => None,
        },
        AgentKind::Thread(_) => None,
    }
}

/// Touching an in-flight accumulator before a covering `wait_group` is undefined (§7).
pub fn hazard(ex: &mut Exec, instr: &Instr) -> Result<bool, String> {
    // Most steps run with no wgmma in flight and no `wgmma.fence` open: nothing to check.
    let in_flight = in_flight(ex.m, ex.agent);
    if in_flight.is_empty() && ex.me()?.asyncs.wgmma_fence.is_none() {
        return Ok(false);
    }
    let facts = instr.facts();
    if facts.reads.is_empty() && facts.writes.is_empty() {
        return Ok(false);
    }
    for id in in_flight {
        if let Some(acc) = acc_of(ex.m, id).filter(|acc| facts.touched().any(|t| t == acc.as_str())) {
            let text = crate::check::text::instr(instr);
            ex.undefined(
                format!("`{text}` touches accumulator `{acc}` of an in-flight wgmma"),
                "wait with `wgmma.wait_group.sync.aligned N` covering that wgmma before using its registers (§9.7.15.7.3)".into(),
            );
            return Ok(true);
        }
    }
    let asyncs = &ex.me()?.asyncs;
    if asyncs.wgmma_fence.is_none() || facts.writes.iter().all(|w| asyncs.dirty_regs.iter().any(|d| d == w)) {
        return Ok(false);
    }
    let a = &mut ex.me_mut()?.asyncs;
    for w in facts.writes {
        if !a.dirty_regs.iter().any(|d| d == w) {
            a.dirty_regs.push(w.to_string());
        }
    }
    crate::sort::sort(&mut a.dirty_regs);
    Ok(false)
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, op: &AsyncOp, explain: bool) -> Readiness {
    let AsyncWhat::Wgmma { a, b, after, .. } = &op.what else { return Readiness::Done };
    match op.stage {
        Stage::Issued => match after {
            Some(p) if !exec::all_reached(m, &[*p], Stage::Accessed) => {
                Readiness::Blocked(format!("accumulates after wgmma #{p}"))
            }
            _ => async_agent::enabled_reads(layout, m, agent, &[(*a, ProxyKey::Async), (*b, ProxyKey::Async)], explain),
        },
        _ => async_agent::one("complete"),
    }
}

pub fn step(ex: &mut Exec, op: &AsyncOp, choice: u32) -> Result<(), String> {
    let AsyncWhat::Wgmma { a, b, acc_in, after, acc } = &op.what else { return Err(internal("wgmma step")) };
    if op.stage == Stage::Issued {
        let v = async_agent::perform_reads(ex, &[(*a, ProxyKey::Async), (*b, ProxyKey::Async)], choice)?;
        let base = after.and_then(|p| ex.m.agents.get(p as usize)?.regs.get("acc").copied()).unwrap_or(*acc_in);
        let out = base.wrapping_add(v.first().copied().unwrap_or(0).wrapping_mul(v.get(1).copied().unwrap_or(0)));
        ex.set_reg("acc", out)?;
        if ex.explain {
            ex.out.description = format!("read operands (async proxy): {acc} will be {out}");
        }
        return async_agent::set_stage(ex, Stage::Accessed);
    }
    if ex.explain {
        ex.out.description = "wgmma complete".into();
    }
    async_agent::set_stage(ex, Stage::Completed)
}
