//! Explaining a race on tensor memory between tcgen05 ops (reference §8.2, §8.4): the
//! missing piece is usually not a release/acquire but a pipelined pair that is not one, or
//! a `tcgen05.fence::*_thread_sync` that is missing or on the wrong side of the
//! synchronization it must order (a fence placed before the wait orders nothing).

use super::exec::{instr_text, op_of, Exec};
use crate::check::machine::{AsyncWhat, EventId, InstrRef, TcWhat};
use crate::check::report::RaceReason;
use crate::model::{Instr, Space, TcOp};

/// The tcgen05 op an agent runs, and the instruction that issued it.
fn tc_op<'m>(ex: &'m Exec, agent: u32) -> Option<(InstrRef, &'m TcWhat)> {
    let (issuer, op) = op_of(ex.m, agent)?;
    match &op.what {
        AsyncWhat::Tc(t) => Some((issuer, t)),
        AsyncWhat::Bulk { .. }
        | AsyncWhat::BulkGroup { .. }
        | AsyncWhat::CpAsync { .. }
        | AsyncWhat::CpArrive { .. }
        | AsyncWhat::StAsync { .. }
        | AsyncWhat::Wgmma { .. } => None,
    }
}

/// Whether an instruction is a synchronization the tcgen05 thread-sync fences compose with
/// (§8.4: mbarrier ops, barriers, morally strong ld/st/atom), as `(release side, acquire
/// side)`: what `fence::before_thread_sync` orders prior tcgen05 ops before, and what
/// `fence::after_thread_sync` orders later ones after.
fn sync_sides(i: &Instr) -> (bool, bool) {
    i.facts().sync.map_or((false, false), |sync| (sync.signals, sync.observes))
}

fn is_release_side_sync(i: &Instr) -> bool {
    sync_sides(i).0
}

fn is_acquire_side_sync(i: &Instr) -> bool {
    sync_sides(i).1
}

fn is_tc(i: &Instr, want: &TcOp) -> bool {
    matches!(i, Instr::Tc(op) if op == want)
}

/// Why `event` (by another agent) and the executing agent's access to TMEM location `loc`
/// are unordered, when the tcgen05 rules say more than the general classification.
pub fn classify(ex: &Exec, event: EventId, loc: usize) -> Option<(RaceReason, String)> {
    if !matches!(ex.layout.locs.get(loc).map(|l| l.space), Some(Space::Tmem(_))) {
        return None;
    }
    let earlier = tc_op(ex, event.agent);
    let later = tc_op(ex, ex.agent);
    if let (Some((first_at, first)), Some((second_at, second))) = (&earlier, &later) {
        if first_at.thread == second_at.thread {
            // The thread waited in between (commit + wait) but did not fence after the wait.
            if let Some(missing) = consumer_side(ex, *second_at).filter(|(sync, _)| *sync > first_at.pc()) {
                return Some((RaceReason::MissingTcgen05Fence, missing.1));
            }
            let thread = ex.layout.threads.get(first_at.thread()).map_or("?", |t| t.name.as_str());
            let fix = match first {
                TcWhat::Ld { .. } => "`tcgen05.wait::ld`",
                TcWhat::St { .. } => "`tcgen05.wait::st`",
                TcWhat::Mma { .. } | TcWhat::Cp { .. } | TcWhat::Shift { .. } | TcWhat::Commit { .. } | TcWhat::Alloc => {
                    "`tcgen05.commit` and a wait on its mbarrier, then `tcgen05.fence::after_thread_sync`"
                }
            };
            return Some((
                RaceReason::AsyncNotObserved,
                format!(
                    "`{thread}` issues `{}` and then `{}`: asynchronous tcgen05 ops of one thread are ordered \
                     only as the pipelined pairs of §8.2 (mma→mma on one accumulator, cp→mma, shift→mma, \
                     mma→shift), and this pair is not one; wait for the first ({fix}) before issuing the second",
                    first.kind_name(),
                    second.kind_name()
                ),
            ));
        }
    }
    let mut problems = Vec::new();
    if let Some((at, first)) = &earlier {
        problems.extend(producer_side(ex, *at, first));
    }
    if let Some((at, _)) = &later {
        problems.extend(consumer_side(ex, *at).map(|(_, text)| text));
    }
    (!problems.is_empty()).then(|| (RaceReason::MissingTcgen05Fence, problems.join("; ")))
}

/// An async tcgen05 op (executing) reads ordinary memory written by `event`, which its
/// issuer's synchronization ordered but the op did not inherit: the issuer lacks a
/// `fence::after_thread_sync` between that synchronization and the op (§8.4, §10 #30).
/// Returns the issuer's agent index and the sentence.
pub fn unfenced_operand(ex: &Exec, event: EventId, loc: usize) -> Option<(usize, String)> {
    if matches!(ex.layout.locs.get(loc).map(|l| l.space), Some(Space::Tmem(_))) {
        return None;
    }
    let (at, _) = tc_op(ex, ex.agent)?;
    let issuer_knows = ex.m.agents.get(at.thread()).is_some_and(|a| a.knowledge.orders_ignoring_proxies(ex.layout, event, loc));
    if !issuer_knows {
        return None;
    }
    consumer_side(ex, at).map(|(_, text)| (at.thread(), text))
}

/// Which thread-sync fences are missing or misplaced between a `tcgen05.alloc` at
/// `alloc_at` and another thread's tcgen05 op at `op_at` (§8.4, §8.5).
pub fn alloc_handoff(ex: &Exec, alloc_at: InstrRef, op_at: InstrRef) -> Vec<String> {
    let mut problems: Vec<String> = producer_side(ex, alloc_at, &TcWhat::Alloc).into_iter().collect();
    problems.extend(consumer_side(ex, op_at).map(|(_, text)| text));
    problems
}

/// The issuer of an earlier tcgen05 op must, before its next synchronization, complete it
/// (ld/st: `wait::*`) and run `fence::before_thread_sync`.
fn producer_side(ex: &Exec, at: InstrRef, op: &TcWhat) -> Option<String> {
    let thread = ex.layout.threads.get(at.thread())?;
    let program = &thread.program;
    let sync = (at.pc() + 1..program.len()).find(|&pc| program.get(pc).is_some_and(is_release_side_sync))?;
    let between = |want: &TcOp| (at.pc() + 1..sync).any(|pc| program.get(pc).is_some_and(|i| is_tc(i, want)));
    let sync_text = instr_text(ex.layout, InstrRef::new(at.thread(), sync));
    let name = &thread.name;
    let op_name = op.kind_name();
    let wait = match op {
        TcWhat::Ld { .. } => Some(TcOp::WaitLd),
        TcWhat::St { .. } => Some(TcOp::WaitSt),
        TcWhat::Mma { .. } | TcWhat::Cp { .. } | TcWhat::Shift { .. } | TcWhat::Commit { .. } | TcWhat::Alloc => None,
    };
    if let Some(wait) = wait.filter(|w| !between(w)) {
        return Some(format!(
            "`{name}` synchronizes (`{sync_text}`) before its `{op_name}` completed: put `{}` and then \
             `tcgen05.fence::before_thread_sync` between them (§8.3, §8.4)",
            instr_text_of(&wait)
        ));
    }
    if between(&TcOp::FenceBeforeThreadSync) {
        return None;
    }
    let after = (sync + 1..program.len()).any(|pc| program.get(pc).is_some_and(|i| is_tc(i, &TcOp::FenceBeforeThreadSync)));
    Some(if after {
        format!(
            "`{name}`'s `tcgen05.fence::before_thread_sync` comes after `{sync_text}`, so it does not order \
             its `{op_name}` before that synchronization; move the fence before it (§8.4)"
        )
    } else {
        format!(
            "`{name}` has no `tcgen05.fence::before_thread_sync` between its `{op_name}` and `{sync_text}`, so \
             the synchronization does not carry the tcgen05 op (§8.4)"
        )
    })
}

/// The issuer of a later tcgen05 op must run `fence::after_thread_sync` after the
/// synchronization and before issuing it.
/// Returns the pc of the synchronization and the sentence.
fn consumer_side(ex: &Exec, at: InstrRef) -> Option<(usize, String)> {
    let thread = ex.layout.threads.get(at.thread())?;
    let program = &thread.program;
    let sync = (0..at.pc()).rev().find(|&pc| program.get(pc).is_some_and(is_acquire_side_sync))?;
    let fence = |range: std::ops::Range<usize>| range.into_iter().any(|pc| program.get(pc).is_some_and(|i| is_tc(i, &TcOp::FenceAfterThreadSync)));
    if fence(sync + 1..at.pc()) {
        return None;
    }
    let sync_text = instr_text(ex.layout, InstrRef::new(at.thread(), sync));
    let op_text = instr_text(ex.layout, at);
    let name = &thread.name;
    let text = if fence(0..sync) {
        format!(
            "`{name}`'s `tcgen05.fence::after_thread_sync` comes before `{sync_text}`, so it orders nothing; \
             move it after the wait, before `{op_text}` (§8.4)"
        )
    } else {
        format!(
            "`{name}` waits (`{sync_text}`) but has no `tcgen05.fence::after_thread_sync` after it, so \
             `{op_text}` is not ordered after the wait; add the fence between them (§8.4)"
        )
    };
    // A fence in another thread is a common misreading: it orders only that thread's ops.
    let elsewhere: Vec<String> = ex
        .layout
        .threads
        .iter()
        .enumerate()
        .filter(|(t, info)| *t != at.thread() && info.program.iter().any(|i| is_tc(i, &TcOp::FenceAfterThreadSync)))
        .map(|(_, info)| format!("`{}`", info.name))
        .collect();
    let text = if elsewhere.is_empty() {
        text
    } else {
        format!("{text}; the `after_thread_sync` in {} orders only that thread's own tcgen05 ops", elsewhere.join(", "))
    };
    Some((sync, text))
}

fn instr_text_of(op: &TcOp) -> String {
    crate::check::text::instr(&Instr::Tc(op.clone()))
}
