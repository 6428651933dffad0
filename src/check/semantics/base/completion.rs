//! Completion mechanisms acting on an mbarrier: async complete-tx and async arrive-on
//! (reference §4.3), performed by asynchronous agents.

use super::exec::{instr_text, internal, Exec, RawAccess};
use super::exit::into_exited_cta;
use super::sync::merge;
use crate::check::machine::{InstrRef, Layout, Message};
use crate::model::{Instr, MbarKind, MbarOp};

const MAX_COUNT: i64 = (1 << 20) - 1;

fn mbar_name(layout: &Layout, idx: usize) -> &str {
    layout.mbar_locs.get(idx).and_then(|l| layout.locs.get(*l)).map_or("?", |l| l.name.as_str())
}

/// Every `mbarrier.init` of barrier `bar` in the programs, as (thread name, instruction).
fn inits<'l>(layout: &'l Layout, bar: &'l str) -> impl Iterator<Item = (&'l str, InstrRef)> + 'l {
    layout.threads.iter().enumerate().flat_map(move |(t, info)| {
        info.program.iter().enumerate().filter_map(move |(pc, instr)| match instr.unwrapped() {
            Instr::Mbar(MbarOp { kind: MbarKind::Init { .. }, bar: b, .. }) if b == bar => Some((info.name.as_str(), InstrRef::new(t, pc))),
            _ => None,
        })
    })
}

/// `explanation` quoting the other end of a use of barrier `bar` that is not (visibly)
/// initialized: its `mbarrier.init`s, which a fix publishes or moves.
pub fn with_init_quoted(ex: &Exec, bar: &str, explanation: String) -> String {
    let layout = ex.layout;
    match ex.text(|| inits(layout, bar).map(|(thread, i)| format!("`{}` by `{thread}`", instr_text(layout, i))).collect::<Vec<_>>().join(", ")) {
        quoted if !quoted.is_empty() => format!("{explanation}; its init is {quoted}"),
        _ => explanation,
    }
}

/// Undefined behaviour of a signal on barrier `bar` (at `loc`). An asynchronous agent's
/// step is no instruction of its own, so the finding names the instruction that issued
/// it as its access; for a barrier not (visibly) initialized the explanation also quotes
/// the other end, the barrier's `mbarrier.init`s, which a fix publishes or moves (the init
/// may not have run yet, so it is no access of the witness).
fn undefined_signal(ex: &mut Exec, loc: usize, bar: &str, with_inits: bool, message: String, explanation: String) {
    let me = RawAccess { agent_name: ex.text(|| ex.name_of(ex.agent)), instr: ex.instr_ref(), loc, is_write: true, step: Some(ex.step) };
    let explanation = if with_inits { with_init_quoted(ex, bar, explanation) } else { explanation };
    ex.undefined(message, explanation);
    if let Some(f) = ex.out.findings.last_mut() {
        f.accesses.push(me);
    }
}

/// `arrivals` arrive-ons and a complete-tx of `bytes` on barrier `idx`, carrying `msg`.
/// Returns false when the signal was undefined behaviour (already reported). `what` names
/// the signalling agent; it may be empty while exploring ([`Exec::text`]).
pub fn signal(ex: &mut Exec, idx: usize, arrivals: i64, bytes: i64, msg: Option<Message>, what: &str) -> Result<bool, String> {
    let bar = mbar_name(ex.layout, idx);
    let loc = *ex.layout.mbar_locs.get(idx).ok_or_else(|| internal("mbar loc"))?;
    let verb = if arrivals > 0 { "arrives on" } else { "signals complete-tx on" };
    if into_exited_cta(ex, loc, true, || format!("{verb} mbarrier `{bar}`")) {
        return Ok(false);
    }
    let mut b = ex.m.mbars.get(idx).cloned().ok_or_else(|| internal("mbar"))?;
    if !b.valid {
        let state = if b.invalidated { "invalidated" } else { "uninitialized" };
        let message = format!("{what} signals {state} mbarrier `{bar}`");
        let explanation = "the barrier must be valid (initialized, not invalidated) when an async op signals it (§9.7.13.15)".to_string();
        undefined_signal(ex, loc, bar, !b.invalidated, message, explanation);
        return Ok(false);
    }
    if let Some(init) = b.init_event {
        if !ex.me()?.knowledge.orders(ex.layout, init, loc, &Default::default()) {
            undefined_signal(
                ex,
                loc,
                bar,
                true,
                format!("{what} signals `{bar}` before its `mbarrier.init` is visible to the issuer"),
                "publish the init first: `bar.sync` inside the CTA, or `fence.mbarrier_init.release.cluster` plus a cluster barrier for peers (§4.2)".into(),
            );
            return Ok(false);
        }
    }
    if arrivals > 0 && b.unobserved {
        undefined_signal(
            ex,
            loc,
            bar,
            false,
            format!("{what} arrives on `{bar}` before any wait observed phase {}", b.phase.saturating_sub(1)),
            "lapping: in every phase a wait must return true before the next phase's arrivals (§9.7.13.15.4)".into(),
        );
        return Ok(false);
    }
    b.tx -= bytes;
    b.pending -= arrivals;
    if b.pending < 0 {
        let message = format!("{what} arrives on `{bar}` more often than it expects");
        undefined_signal(ex, loc, bar, false, message, "the pending count went below zero: count the arrivals per phase exactly".into());
        return Ok(false);
    }
    if b.tx.abs() > MAX_COUNT {
        let message = format!("tx-count of `{bar}` left its range ({:+})", b.tx);
        undefined_signal(ex, loc, bar, false, message, "tx-count must stay within ±(2^20-1)".into());
        return Ok(false);
    }
    merge(&mut b.current, msg);
    if ex.explain {
        ex.out.description = if arrivals > 0 {
            format!("{what}: arrive-on `{bar}`, {} pending, tx-count {:+}", b.pending, b.tx)
        } else {
            format!("{what}: complete_tx {bytes} bytes on `{bar}`, tx-count {:+}", b.tx)
        };
    }
    if b.pending == 0 && b.tx == 0 {
        b.phase += 1;
        b.pending = b.expected;
        let cur = std::mem::take(&mut b.current);
        merge(&mut b.completed, cur);
        b.unobserved = true;
        if ex.explain {
            ex.out.description.push_str(&format!("; phase {} completed", b.phase - 1));
        }
    }
    *ex.m.mbars.get_mut(idx).ok_or_else(|| internal("mbar"))? = b;
    Ok(true)
}

/// `cp.async.mbarrier.arrive` without `.noinc`: pending += 1 at issue (§4.3).
pub fn add_pending(ex: &mut Exec, idx: usize, what: &str) -> Result<bool, String> {
    let bar = mbar_name(ex.layout, idx);
    let b = ex.m.mbars.get_mut(idx).ok_or_else(|| internal("mbar"))?;
    if !b.valid {
        let state = if b.invalidated { "invalidated" } else { "uninitialized" };
        ex.undefined(format!("{what} on {state} mbarrier `{bar}`"), "the barrier must be valid: initialized and not invalidated (§9.7.13.15)".into());
        return Ok(false);
    }
    b.pending += 1;
    if b.pending > MAX_COUNT {
        ex.undefined(format!("{what} overflows the pending count of `{bar}`"), "the pending count must stay below 2^20 (§9.7.13.15.15)".into());
        return Ok(false);
    }
    Ok(true)
}
