//! `ld`, `st` and their spin form `wait ld ... == v` (reference §1.1, §1.5, §1.9).

use super::base::access::{self, observe, write_messages, Access};
use super::base::exec::{self, operand, Exec, Readiness};
use super::base::sync;
use crate::check::machine::{Layout, Machine};
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
    read_choice_iter(layout, m, agent, acc, until, map).collect()
}

/// [`read_choices`] one by one, for callers that only count them.
fn read_choice_iter<'a>(
    layout: &Layout,
    m: &'a Machine,
    agent: u32,
    acc: &Access,
    until: Option<(&'a WaitTarget, i64)>,
    map: impl Fn(i64) -> i64 + 'a,
) -> impl Iterator<Item = usize> + 'a {
    let cands = access::candidates(layout, m, agent, acc.loc, acc.key);
    let cell = m.cells.get(access::cell_of(layout, acc.loc));
    cands.filter(move |&i| match until {
        None => true,
        Some((t, rhs)) => cell.and_then(|c| c.writes.get(i)).is_some_and(|w| t.op.eval(map(w.value), rhs)),
    })
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, instr: &Instr, until: Option<&WaitTarget>) -> Result<Readiness, String> {
    let Instr::Ld { sem, scope, proxy, addr, .. } = instr else {
        return Err(exec::internal("ld readiness"));
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
        return Err(exec::internal("ld choice count"));
    };
    let op = sync::mem_op(*sem, *scope, false);
    let acc = access::resolve(layout, addr, *proxy, op.strong)?;
    let rhs = until.map(|t| operand(m, agent, &t.value));
    Ok(read_choice_iter(layout, m, agent, &acc, until.zip(rhs), |v| v).count())
}

pub fn step(ex: &mut Exec, instr: &Instr, until: Option<&WaitTarget>, choice: u32) -> Result<(), String> {
    match instr {
        Instr::Ld { sem, scope, proxy, dst, addr, .. } => {
            let op = sync::mem_op(*sem, *scope, false);
            let acc = access::resolve(ex.layout, addr, *proxy, op.strong)?;
            let rhs = until.map(|t| ex.eval(&t.value));
            let choices = read_choices(ex.layout, ex.m, ex.agent, &acc, until.zip(rhs), |v| v);
            let widx = *choices.get(choice as usize).ok_or_else(|| format!("no read choice {choice}"))?;
            let label = ex.text(|| access::labels(ex.layout, ex.m, acc.loc, &[widx]).pop().unwrap_or_default());
            let w = access::read(ex, &acc, widx)?;
            ex.set_reg(dst, w.value)?;
            observe(ex, &acc, &w, op, &ex.op_text(), false)?;
            if ex.explain {
                ex.out.description = label;
            }
            ex.next()
        }
        Instr::St { sem, scope, proxy, addr, src, .. } => {
            let op = sync::mem_op(*sem, *scope, false);
            let acc = access::resolve(ex.layout, addr, *proxy, op.strong)?;
            let value = ex.eval(src);
            let msgs = write_messages(ex, op, &ex.op_text(), &acc)?;
            access::write(ex, &acc, value, msgs)?;
            if ex.explain {
                ex.out.description = format!("wrote {addr} = {value}");
            }
            ex.next()
        }
        _ => Err(exec::internal("ld_st step")),
    }
}
