//! `bar`/`barrier.cta` named barriers (reference §5.1, §1.6 rule 2).
//!
//! A scenario thread is a warp of `lanes` PTX threads. `sync`/`red` wait and acquire;
//! `arrive` only releases. Completion joins every arriver's knowledge into the waiters.

use super::base::exec::{self, operand, Exec, Readiness};
use super::base::flow::{bar_expected, complete_if_ready};
use super::base::sync::merge;
use crate::check::machine::{AgentKind, BarState, Layout, Machine, Status};
use crate::model::{BarKind, Instr, Scope};

pub fn readiness(layout: &Layout, m: &Machine, agent: u32) -> Readiness {
    let Some(a) = m.agents.get(agent as usize) else { return Readiness::Done };
    let AgentKind::Thread(t) = a.kind else { return Readiness::Done };
    let instr = layout.threads.get(t).and_then(|t| t.program.get(a.pc));
    let Some(Instr::Bar { id, .. }) = instr else {
        return Readiness::Blocked("waits at a barrier".into());
    };
    let id = operand(m, agent, id) as u32;
    let (arrived, count, names) = match m.bars.get(&(a.place.cta, id)) {
        Some(b) => (b.lanes, b.count, b.arrived.iter().map(|(x, _)| exec::agent_name(layout, m, *x)).collect::<Vec<_>>()),
        None => (0, None, Vec::new()),
    };
    Readiness::Blocked(format!(
        "waits at `bar.sync {id}`: {arrived} of {} threads arrived ({})",
        bar_expected(layout, m, a.place.cta, count),
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    ))
}

pub fn step(ex: &mut Exec, instr: &Instr) -> Result<(), String> {
    let Instr::Bar { kind, id, count, .. } = instr else {
        return Err(exec::internal("bar step"));
    };
    let id = ex.eval(id);
    let text = crate::check::text::instr(instr);
    if !(0..16).contains(&id) {
        ex.undefined(format!("barrier id {id} out of range in `{text}`"), "named barriers are numbered 0 to 15".into());
        return Ok(());
    }
    let id = id as u32;
    let count = count.as_ref().map(|c| ex.eval(c));
    // Counts are in PTX threads and whole warps; scenarios whose threads stand for fewer
    // lanes (litmus imports use one) only need a positive count.
    let full_warps = ex.layout.threads.iter().all(|t| t.lanes % 32 == 0);
    if let Some(c) = count {
        if c <= 0 || (full_warps && c % 32 != 0) {
            ex.undefined(
                format!("thread count {c} of `{text}` is not a positive multiple of 32"),
                "barrier thread counts are in PTX threads and count whole warps".into(),
            );
            return Ok(());
        }
    }
    // Saturate: a count past u32 can never be met, so it must not wrap to a small one.
    let count = count.map(|c| u32::try_from(c).unwrap_or(u32::MAX));
    let cta = ex.place().cta;
    let lanes = match ex.me()?.kind {
        AgentKind::Thread(t) => ex.layout.threads.get(t).map_or(32, |t| t.lanes),
        AgentKind::Async { .. } => return Err(exec::internal("bar in async agent")),
    };
    let state = ex.m.bars.get(&(cta, id)).cloned().unwrap_or_default();
    if state.arrived.iter().any(|(a, _)| *a == ex.agent) {
        ex.undefined(
            format!("`{}` reaches `{text}` again before barrier {id} completed", ex.name_of(ex.agent)),
            "a warp must not re-arrive at a named barrier before it resets (§9.7.13.1)".into(),
        );
        return Ok(());
    }
    if !state.arrived.is_empty() && state.count != count {
        ex.undefined(
            format!("`{text}` disagrees with earlier arrivals on the thread count of barrier {id}"),
            "every participant of a barrier instance must give the same thread count".into(),
        );
        return Ok(());
    }
    let waits = *kind != BarKind::Arrive;
    let msg = ex.release_all(Scope::Cta, text.clone())?;
    let mut state = BarState { count, ..state };
    // Sorted, so arrival orders that end alike are one state.
    let at = state.arrived.partition_point(|(a, _)| *a < ex.agent);
    state.arrived.insert(at, (ex.agent, waits));
    state.lanes += lanes;
    merge(&mut state.msgs, [msg]);
    ex.m.bars.insert((cta, id), state);
    if waits {
        ex.set_status(Status::InBarrier)?;
        if ex.explain {
            ex.out.description = format!("arrived at barrier {id} and waits");
        }
    } else {
        if ex.explain {
            ex.out.description = format!("arrived at barrier {id} (no wait)");
        }
        ex.next()?;
    }
    complete_if_ready(ex, cta, id)
}

