//! Compound steps that add a synchronization path the program does not have yet, each one
//! candidate: a handoff on a new mbarrier (declared, signalled, waited on), and one more
//! arrival on an existing barrier from another CTA of its cluster (the count it expects
//! raised, its owner's waits widened to the cluster). Every match over instruction kinds
//! is exhaustive.

use super::outcome::Change;
use crate::palette::fresh_memory;
use crate::model::{AddrSpace, Instr, MbarKind, MbarOp, Operand, Scenario, Scope, Sem, TcOp};

fn mbar(bar: &str, kind: MbarKind, sem: Option<Sem>, scope: Option<Scope>, space: AddrSpace) -> Instr {
    Instr::Mbar(MbarOp { kind, sem, scope, space: Some(space), bar: bar.to_string() })
}

/// A thread's arrive on `bar` (one arrival, no transaction bytes).
fn arrive(bar: &str, sem: Option<Sem>, scope: Option<Scope>, space: AddrSpace) -> Instr {
    mbar(bar, MbarKind::Arrive { count: None, expect_tx: None, no_complete: false, drop: false, state: None }, sem, scope, space)
}

/// A wait for phase 0 of the thread's own CTA's `bar` (a new barrier's first phase).
fn wait_first_phase(bar: &str) -> Instr {
    let kind = MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None };
    Instr::Wait { instr: Box::new(mbar(bar, kind, None, None, AddrSpace::SharedCta)), until: None }
}

/// What arrives on a new barrier `bar` (count 1) once the asynchronous operation `instr`
/// issues has completed, written right after it: `tcgen05.commit` for a tcgen05 op (§7),
/// for a `cp.async` its `cp.async.mbarrier.arrive` with the thread's own arrive, or the
/// `.noinc` form alone, whose completion is the one arrival (§6.1). Operations that
/// already complete on an mbarrier or a group, and instructions that issue nothing, have
/// none.
fn completion_signals(instr: &Instr, bar: &str) -> Vec<Vec<Instr>> {
    let cp_async_arrive = |noinc: bool| Instr::CpAsyncMbarArrive { bar: bar.to_string(), noinc, space: Some(AddrSpace::SharedCta) };
    match instr {
        Instr::Tc(op @ (TcOp::Mma { .. } | TcOp::Cp { .. } | TcOp::Shift { .. })) => {
            op.cta_group().map(|cta_group| vec![vec![Instr::Tc(TcOp::Commit { bar: bar.to_string(), multicast: Vec::new(), cta_group })]]).unwrap_or_default()
        }
        Instr::CpAsync { .. } => vec![vec![cp_async_arrive(false), arrive(bar, None, None, AddrSpace::SharedCta)], vec![cp_async_arrive(true)]],
        Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => completion_signals(instr, bar),
        // A pair MMA's commit must reach both CTAs' barriers (a multicast commit): a new
        // barrier in one CTA is not its repair.
        Instr::Tc(
            TcOp::MmaPair { .. }
            | TcOp::Alloc { .. }
            | TcOp::Dealloc { .. }
            | TcOp::Relinquish { .. }
            | TcOp::Ld { .. }
            | TcOp::St { .. }
            | TcOp::Commit { .. }
            | TcOp::WaitLd
            | TcOp::WaitSt
            | TcOp::FenceBeforeThreadSync
            | TcOp::FenceAfterThreadSync,
        )
        | Instr::Ld { .. }
        | Instr::St { .. }
        | Instr::Atom { .. }
        | Instr::Fence(_)
        | Instr::Bar { .. }
        | Instr::ClusterArrive { .. }
        | Instr::ClusterWait
        | Instr::Mbar(_)
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::Bulk { .. }
        | Instr::BulkCommit
        | Instr::BulkWait { .. }
        | Instr::StAsync { .. }
        | Instr::Wgmma(_)
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::SetP { .. }
        | Instr::Wait { .. }
        | Instr::Exit => Vec::new(),
    }
}

/// Whether a scenario speaks mbarriers, so that a thread-to-thread handoff on a new one
/// fits it (message passing between plain threads is repaired by release/acquire).
fn uses_mbarriers(scenario: &Scenario) -> bool {
    !scenario.mbarriers.is_empty() || scenario.threads.iter().flat_map(|t| &t.program).any(|i| matches!(i.unwrapped(), Instr::Mbar(_)))
}

/// A handoff on a new mbarrier of one CTA, as one step: its declaration (count 1), the
/// signal, and a wait for its first phase (reference §4) right before an instruction the
/// finding names on the side that needs its synchronization before it (`waits`: thread
/// and original index). The signal is the completion mechanism of an asynchronous
/// operation, right after an instruction of the CTA that issues one (bug 34's commit
/// before `dealloc`, bug 24's `cp.async.mbarrier.arrive`); or, in a scenario that uses
/// mbarriers, a thread's arrive (release, CTA scope by default) at any place of another
/// thread of the CTA (bug 20's empty barrier). Linear in the CTA's program lengths per
/// wait place.
pub(super) fn handoffs(scenario: &Scenario, waits: &[(usize, usize)]) -> Vec<(Vec<Change>, usize)> {
    let mut out = Vec::new();
    let (done, handoff) = (fresh_memory(scenario, "done"), fresh_memory(scenario, "handoff"));
    let thread_handoffs = uses_mbarriers(scenario);
    for &(w, q) in waits {
        let Some(cta) = scenario.threads.get(w).map(|th| th.cta) else { continue };
        let declare = |name: &str| Change::Declare { cta, name: name.to_string(), count: 1 };
        for (s, signaller) in scenario.threads.iter().enumerate().filter(|(_, th)| th.cta == cta) {
            // In the waiting thread itself, only what it issued before the wait.
            let issued = if s == w { signaller.program.get(..q).unwrap_or_default() } else { &signaller.program[..] };
            for (i, instr) in issued.iter().enumerate() {
                for signal in completion_signals(instr, &done) {
                    let mut step = vec![declare(&done)];
                    step.extend(signal.iter().map(|instr| Change::Insert { thread: s, before: i + 1, instr: instr.clone() }));
                    step.push(Change::Insert { thread: w, before: q, instr: wait_first_phase(&done) });
                    out.push((step, q));
                }
            }
            if s == w || !thread_handoffs {
                continue;
            }
            for p in 0..=signaller.program.len() {
                let step = vec![
                    declare(&handoff),
                    Change::Insert { thread: s, before: p, instr: arrive(&handoff, None, None, AddrSpace::SharedCta) },
                    Change::Insert { thread: w, before: q, instr: wait_first_phase(&handoff) },
                ];
                out.push((step, q));
            }
        }
    }
    out
}

/// `instr` as an acquire at cluster scope when it is a wait on `bar` that is not one yet
/// (through a `wait` loop, a byte range or a guard).
fn cluster_wait(instr: &Instr, bar: &str) -> Option<Instr> {
    let mut widened = instr.clone();
    let core = match widened.unwrapped_mut() {
        Instr::Wait { instr, .. } => instr.unwrapped_mut(),
        other => other,
    };
    let Instr::Mbar(op @ MbarOp { kind: MbarKind::Wait { .. }, .. }) = core else { return None };
    if op.bar != bar || (op.sem, op.scope) == (Some(Sem::Acquire), Some(Scope::Cluster)) {
        return None;
    }
    (op.sem, op.scope) = (Some(Sem::Acquire), Some(Scope::Cluster));
    Some(widened)
}

/// One more arrival on a barrier declared initialised, from a thread of another CTA of its
/// cluster, as one step of three linked edits: the declared count one higher, the remote
/// arrive (release at cluster scope, §4.4) at one place of that thread, and every wait on
/// the barrier in its own CTA widened to an acquire at cluster scope, which the remote
/// release needs to synchronize with. Bug 29's twin: B's reader tells A it is done with the
/// slot A multicasts into.
pub(super) fn remote_arrivals(scenario: &Scenario) -> Vec<(Vec<Change>, usize)> {
    let mut out = Vec::new();
    for (b, bar) in scenario.mbarriers.iter().enumerate() {
        let (Some(count), Some(cluster)) = (bar.count, scenario.cluster_of(bar.cta)) else { continue };
        let widened: Vec<Change> = scenario
            .threads
            .iter()
            .enumerate()
            .filter(|(_, th)| th.cta == bar.cta)
            .flat_map(|(t, th)| th.program.iter().enumerate().filter_map(move |(at, instr)| Some(Change::Replace { thread: t, at, with: cluster_wait(instr, &bar.name)? })))
            .collect();
        let remote = scenario.threads.iter().enumerate().filter(|(_, th)| th.cta != bar.cta && scenario.cluster_of(th.cta) == Some(cluster) && !th.program.is_empty());
        for (t, thread) in remote {
            for before in 0..=thread.program.len() {
                let signal = arrive(&bar.name, Some(Sem::Release), Some(Scope::Cluster), AddrSpace::SharedCluster);
                let mut step = vec![Change::DeclaredCount { bar: b, count: count.saturating_add(1) }, Change::Insert { thread: t, before, instr: signal }];
                step.extend(widened.iter().cloned());
                out.push((step, before));
            }
        }
    }
    out
}
