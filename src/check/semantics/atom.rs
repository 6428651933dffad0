//! `atom`, `red` and `wait atom ...` (reference §1.1, §1.9 RMW atomicity, §8.8 `red`).
//!
//! The explorer appends every write at the end of coherence, so an RMW's write follows
//! every write made so far. RMW atomicity (§1.9; cat:99: no write morally strong with the
//! RMW between the write it reads and its own) then lets it read only the latest write
//! morally strong with it or a later (weak, other-proxy, out-of-scope) one: one that is
//! morally strong with no write (e.g. `atom.cta` across CTAs, §1.3) may read any visible
//! write: lost update.

use super::base::access::{self, observe, write_messages, Access};
use super::base::exec::{self, operand, Exec, Readiness};
use super::base::sync::{self, morally_strong, Side};
use crate::check::machine::{Layout, Machine};
use crate::model::{AtomOp, Instr, Operand, Proxy, WaitTarget};

/// `(op, semantics, destination register, address, arguments)` of an `atom`/`red`.
type AtomParts<'a> = (AtomOp, sync::OpSem, &'a Option<String>, &'a String, &'a Vec<Operand>);

fn parts(instr: &Instr) -> Option<AtomParts<'_>> {
    match instr {
        Instr::Atom { op, sem, scope, dst, addr, args, .. } => Some((*op, sync::mem_op(*sem, *scope, true), dst, addr, args)),
        _ => None,
    }
}

fn choices(layout: &Layout, m: &Machine, agent: u32, acc: &Access, until: Option<(&WaitTarget, i64)>) -> Vec<usize> {
    let cands = access::candidates(layout, m, agent, acc.loc, acc.key);
    let cell = access::cell_of(layout, acc.loc);
    let Some(c) = m.cells.get(cell) else { return Vec::new() };
    let place_of = |a: u32| m.agents.get(a as usize).map(|x| x.place);
    let me = place_of(agent).map(|p| Side { agent, place: p, strong: acc.strong, key: acc.key });
    let last = c.writes.len().saturating_sub(1);
    // The newest write this RMW is morally strong with: reading anything older would put
    // that write between the RMW's read and its write (the initial value counts as strong).
    let oldest_readable = match me {
        Some(me) => c
            .writes
            .iter()
            .rposition(|w| {
                place_of(w.event.agent).is_none_or(|p| {
                    let strong = w.strong.or(if w.instr.is_none() { acc.strong } else { None });
                    morally_strong(me, Side { agent: w.event.agent, place: p, strong, key: w.key })
                })
            })
            .unwrap_or(0),
        None => last,
    };
    cands
        .into_iter()
        .filter(|&i| i >= oldest_readable)
        .filter(|&i| match until {
            None => true,
            Some((t, rhs)) => c.writes.get(i).is_some_and(|w| t.op.eval(w.value, rhs)),
        })
        .collect()
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, instr: &Instr, until: Option<&WaitTarget>) -> Result<Readiness, String> {
    let (_, op, _, addr, _) = parts(instr).ok_or_else(|| exec::internal("atom readiness"))?;
    let acc = access::resolve(layout, addr, Proxy::Generic, op.strong)?;
    let rhs = until.map(|t| operand(m, agent, &t.value));
    let ch = choices(layout, m, agent, &acc, until.zip(rhs));
    if ch.is_empty() {
        return Ok(Readiness::Blocked(format!(
            "spins on `{}`; no visible value satisfies the condition yet",
            crate::check::text::instr(instr)
        )));
    }
    Ok(Readiness::Enabled(access::labels(layout, m, acc.loc, &ch)))
}

/// How many read choices an `atom`/`red` (or its spin form) has now, without labels.
pub fn choice_count(layout: &Layout, m: &Machine, agent: u32, instr: &Instr, until: Option<&WaitTarget>) -> Result<usize, String> {
    let (_, op, _, addr, _) = parts(instr).ok_or_else(|| exec::internal("atom choice count"))?;
    let acc = access::resolve(layout, addr, Proxy::Generic, op.strong)?;
    let rhs = until.map(|t| operand(m, agent, &t.value));
    Ok(choices(layout, m, agent, &acc, until.zip(rhs)).len())
}

pub fn step(ex: &mut Exec, instr: &Instr, until: Option<&WaitTarget>, choice: u32) -> Result<(), String> {
    let (aop, op, dst, addr, args) = parts(instr).ok_or_else(|| exec::internal("atom step"))?;
    let acc = access::resolve(ex.layout, addr, Proxy::Generic, op.strong)?;
    let rhs = until.map(|t| ex.eval(&t.value));
    let ch = choices(ex.layout, ex.m, ex.agent, &acc, until.zip(rhs));
    let widx = *ch.get(choice as usize).ok_or_else(|| format!("no read choice {choice}"))?;
    let text = ex.op_text();
    let w = access::read(ex, &acc, widx)?;
    let red = dst.is_none();
    observe(ex, &acc, &w, op, &text, red)?;
    let argv: Vec<i64> = args.iter().map(|a| ex.eval(a)).collect();
    let new = aop.apply(w.value, &argv);
    // Departure: a failed `atom.cas` is treated as a read only (the spec does not say
    // whether it writes); this keeps CAS spin loops from growing the state.
    let failed_cas = aop == AtomOp::Cas && argv.first() != Some(&w.value);
    if !failed_cas {
        let mut msgs = write_messages(ex, op, &text, &acc)?;
        // Observation order runs through RMW chains (§1.6): the releases the read saw travel on.
        sync::merge(&mut msgs, w.msgs.iter().cloned());
        access::write(ex, &acc, new, msgs)?;
    }
    if let Some(d) = dst {
        ex.set_reg(d, w.value)?;
    }
    if ex.explain {
        ex.out.description = format!("{addr}: {} → {new}", w.value);
    }
    ex.next()
}
