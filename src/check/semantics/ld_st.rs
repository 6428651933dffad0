//! `ld`, `st` and their spin form `wait ld ... == v` (reference §1.1, §1.5, §1.9).

use super::access::{self, Access};
use super::exec::{Exec, Readiness};
use super::sync::{self, morally_strong, OpSem, Side};
use crate::check::machine::{Filter, Knowledge, Layout, Machine, Message, WriteRec};
use crate::check::report::RaceReason;
use crate::model::{Instr, WaitTarget};

/// The read choices of a load (filtered by `until` for a spin).
pub fn read_choices(
    layout: &Layout,
    m: &Machine,
    agent: u32,
    acc: &Access,
    until: Option<(&WaitTarget, i64)>,
    map: impl Fn(i64) -> i64,
) -> Vec<usize> {
    let cands = access::candidates(layout, m, agent, acc.loc, acc.key);
    let cell = layout.locs.get(acc.loc).map_or(acc.loc, |l| l.cell);
    cands
        .into_iter()
        .filter(|&i| match until {
            None => true,
            Some((t, rhs)) => m
                .cells
                .get(cell)
                .and_then(|c| c.writes.get(i))
                .is_some_and(|w| t.op.eval(map(w.value), rhs)),
        })
        .collect()
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, instr: &Instr, until: Option<&WaitTarget>) -> Result<Readiness, String> {
    let Instr::Ld { sem, scope, proxy, addr, .. } = instr else {
        return Err(super::exec::internal("ld readiness"));
    };
    let op = sync::mem_op(*sem, *scope, false);
    let acc = access::resolve(layout, addr, *proxy, op.strong)?;
    let rhs = until.map(|t| operand(m, agent, &t.value));
    let choices = read_choices(layout, m, agent, &acc, until.zip(rhs), |v| v);
    if choices.is_empty() {
        return Ok(Readiness::Blocked(format!(
            "spins on `{}` until the value satisfies the condition; no visible write does yet",
            crate::check::text::instr(instr)
        )));
    }
    Ok(Readiness::Enabled(access::labels(layout, m, acc.loc, &choices)))
}

/// How many read choices a load (or its spin form) has now, without building labels.
pub fn choice_count(layout: &Layout, m: &Machine, agent: u32, instr: &Instr, until: Option<&WaitTarget>) -> Result<usize, String> {
    let Instr::Ld { sem, scope, proxy, addr, .. } = instr else {
        return Err(super::exec::internal("ld choice count"));
    };
    let op = sync::mem_op(*sem, *scope, false);
    let acc = access::resolve(layout, addr, *proxy, op.strong)?;
    let rhs = until.map(|t| operand(m, agent, &t.value));
    Ok(read_choices(layout, m, agent, &acc, until.zip(rhs), |v| v).len())
}

pub fn operand(m: &Machine, agent: u32, op: &crate::model::Operand) -> i64 {
    match op {
        crate::model::Operand::Imm(v) => *v,
        crate::model::Operand::Reg(r) => m.agents.get(agent as usize).and_then(|a| a.regs.get(r)).copied().unwrap_or(0),
    }
}

pub fn step(ex: &mut Exec, instr: &Instr, until: Option<&WaitTarget>, choice: u32) -> Result<(), String> {
    match instr {
        Instr::Ld { sem, scope, proxy, dst, addr, .. } => {
            let op = sync::mem_op(*sem, *scope, false);
            let acc = access::resolve(ex.layout, addr, *proxy, op.strong)?;
            let rhs = until.map(|t| ex.eval(&t.value));
            let choices = read_choices(ex.layout, ex.m, ex.agent, &acc, until.zip(rhs), |v| v);
            let widx = *choices.get(choice as usize).ok_or_else(|| format!("no read choice {choice}"))?;
            let label = access::labels(ex.layout, ex.m, acc.loc, &[widx]).pop().unwrap_or_default();
            let w = access::read(ex, &acc, widx)?;
            ex.set_reg(dst, w.value)?;
            observe(ex, &acc, &w, op, &crate::check::text::instr(instr), false)?;
            ex.out.description = label;
            ex.next()
        }
        Instr::St { sem, scope, proxy, addr, src, .. } => {
            let op = sync::mem_op(*sem, *scope, false);
            let acc = access::resolve(ex.layout, addr, *proxy, op.strong)?;
            let value = ex.eval(src);
            let msgs = write_messages(ex, op, &crate::check::text::instr(instr), &acc)?;
            access::write(ex, &acc, value, msgs)?;
            ex.out.description = format!("wrote {addr} = {value}");
            ex.next()
        }
        _ => Err(super::exec::internal("ld_st step")),
    }
}

/// The releases a strong write to `acc` carries (§1.5): its own (pattern 1), earlier release
/// ops of this agent on the same location (pattern 2, each at its own scope) and earlier
/// release fences (pattern 3).
pub fn write_messages(ex: &mut Exec, op: OpSem, text: &str, acc: &Access) -> Result<Vec<Message>, String> {
    let mut msgs = Vec::new();
    if let Some(scope) = op.strong {
        msgs.extend(ex.me()?.release_fences.iter().cloned());
        let me = ex.agent;
        let cell = ex.layout.locs.get(acc.loc).map_or(acc.loc, |l| l.cell);
        let earlier = ex.m.cells.get(cell).map(|c| c.writes.as_slice()).unwrap_or_default();
        let own = earlier.iter().filter(|w| w.event.agent == me && w.key == acc.key).flat_map(|w| &w.msgs);
        sync::merge(&mut msgs, own.filter(|m| m.from_agent == me).cloned().collect::<Vec<_>>());
        if op.release {
            msgs.push(ex.release_all(scope, text.to_string())?);
        }
    }
    Ok(msgs)
}

/// A read observed write `w`: form the acquire side of a pattern, or record why not.
pub fn observe(ex: &mut Exec, acc: &Access, w: &WriteRec, op: OpSem, text: &str, red: bool) -> Result<(), String> {
    if w.instr.is_none() || w.event.agent == ex.agent {
        return Ok(());
    }
    let place_of = |a: u32| ex.m.agents.get(a as usize).map_or(ex.place(), |x| x.place);
    let me = Side { agent: ex.agent, place: ex.place(), strong: acc.strong, key: acc.key };
    let them = Side { agent: w.event.agent, place: place_of(w.event.agent), strong: w.strong, key: w.key };
    let writer = ex.name_of(w.event.agent);
    let reader = ex.name_of(ex.agent);
    let wtext = w.instr.map_or_else(String::new, |i| super::exec::instr_text(ex.layout, i));
    let mut just_write = Knowledge::new(ex.layout.cells, w.event.agent);
    if let Some(m) = just_write.main_mut() {
        m.vv.set(w.event.agent, w.event.epoch);
    }
    let just = Message { origin: w.event, from_agent: w.event.agent, scope: acc.strong.unwrap_or(crate::model::Scope::Cta), via: wtext.clone(), knowledge: just_write.into(), step: w.step.clone() };
    // A write already ordered before this read (the data read after a successful acquire)
    // needed no synchronization here: recording a failed edge would only mislead.
    let already_ordered = super::access::ordered_before(ex, w.event, acc.loc, w.key, acc.key)?;
    if !morally_strong(me, them) {
        if already_ordered {
            return Ok(());
        }
        let (reason, why) = if acc.strong.is_none() {
            (RaceReason::ExecutionOrderOnly, format!("`{text}` by `{reader}` is weak: a weak read never takes part in synchronization"))
        } else if w.strong.is_none() {
            (RaceReason::ExecutionOrderOnly, format!("`{wtext}` by `{writer}` is weak: a weak write never takes part in synchronization"))
        } else {
            (RaceReason::ScopeMismatch, format!("`{wtext}` by `{writer}` and `{text}` by `{reader}` are not morally strong: their scopes do not include each other's threads"))
        };
        for msg in w.msgs.iter().chain(std::iter::once(&just)) {
            sync::fail(ex, msg, reason, why.clone());
        }
        return Ok(());
    }
    if w.msgs.is_empty() {
        if already_ordered {
            return Ok(());
        }
        let why = format!("`{wtext}` by `{writer}` is not a release and no `fence.release` precedes it: `{reader}` sees the value but gets no ordering (execution order only)");
        sync::fail(ex, &just, RaceReason::ExecutionOrderOnly, why);
        return Ok(());
    }
    if red {
        for msg in &w.msgs {
            sync::fail(ex, msg, RaceReason::ExecutionOrderOnly, "`red` never forms an acquire pattern (§8.8); use `atom` or `ld.acquire`".into());
        }
        return Ok(());
    }
    match (op.acquire, op.strong) {
        (true, Some(scope)) => {
            for msg in w.msgs.clone() {
                sync::synchronize(ex, &msg, scope, Filter::All, text, "release/acquire")?;
            }
        }
        _ => {
            sync::defer(ex, &w.msgs)?;
            for msg in w.msgs.clone() {
                let why = format!("`{text}` by `{reader}` is relaxed and no `fence.acquire` follows it: it observes the release but acquires nothing");
                sync::fail(ex, &msg, RaceReason::ExecutionOrderOnly, why);
            }
        }
    }
    Ok(())
}
