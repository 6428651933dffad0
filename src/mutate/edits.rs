//! The single-point weakenings of one instruction. Every match over instruction kinds is
//! exhaustive, so a new instruction or modifier must decide its weakenings here.

use super::MutationKind::{self, ChangeBytes, ChangeCount, Drop, FlipParity, InvertGuard, NarrowScope, WeakenSem};
use crate::model::{Fence, FenceSem, Instr, MbarKind, MbarOp, Operand, Scope, Sem, TcOp, WgmmaOp};

/// An edit: its kind and the replacement instruction (`None` drops the instruction).
type Edit = (MutationKind, Option<Instr>);

/// The next narrower scope, if any.
fn narrower(scope: Scope) -> Option<Scope> {
    match scope {
        Scope::Sys => Some(Scope::Gpu),
        Scope::Gpu => Some(Scope::Cluster),
        Scope::Cluster => Some(Scope::Cta),
        Scope::Cta => None,
    }
}

/// Weaker semantics for a memory operation: acq_rel loses one half, acquire and release
/// become relaxed. Relaxed → weak is handled by the caller (it also drops the scope).
fn weaker_sems(sem: Sem) -> Vec<Sem> {
    match sem {
        Sem::AcqRel => vec![Sem::Acquire, Sem::Release],
        Sem::Acquire | Sem::Release => vec![Sem::Relaxed],
        // Weak has nothing below it; volatile and mmio are kept as the author chose them.
        Sem::Relaxed | Sem::Weak | Sem::Volatile | Sem::Mmio => Vec::new(),
    }
}

/// Label, branch and exit shape the program rather than its synchronization.
pub(super) fn is_control(instr: &Instr) -> bool {
    match instr {
        Instr::Label(_) | Instr::Branch { .. } | Instr::Exit => true,
        // A guard decides whether its instruction runs; the instruction decides the rest.
        Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => is_control(instr),
        Instr::Ld { .. }
        | Instr::St { .. }
        | Instr::Atom { .. }
        | Instr::Fence(_)
        | Instr::Bar { .. }
        | Instr::ClusterArrive { .. }
        | Instr::ClusterWait
        | Instr::Mbar(_)
        | Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::Bulk { .. }
        | Instr::BulkCommit
        | Instr::BulkWait { .. }
        | Instr::StAsync { .. }
        | Instr::Wgmma(_)
        | Instr::Tc(_)
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::SetP { .. }
        | Instr::Wait { .. } => false,
    }
}

/// Every single-point weakening of `instr`, in a fixed order.
pub(super) fn weakenings(instr: &Instr) -> Vec<Edit> {
    let mut out: Vec<Edit> = Vec::new();
    match instr {
        Instr::Ld { sem, scope, space, proxy, dst, addr } => {
            let with = |sem, scope| Instr::Ld { sem, scope, space: *space, proxy: *proxy, dst: dst.clone(), addr: addr.clone() };
            load_store(*sem, *scope, with, &mut out);
        }
        Instr::St { sem, scope, space, proxy, addr, src } => {
            let with = |sem, scope| Instr::St { sem, scope, space: *space, proxy: *proxy, addr: addr.clone(), src: src.clone() };
            load_store(*sem, *scope, with, &mut out);
        }
        Instr::Atom { op, sem, scope, space, dst, addr, args } => {
            let with = |sem: Option<Sem>, scope: Option<Scope>| Instr::Atom {
                op: *op,
                sem,
                scope,
                space: *space,
                dst: dst.clone(),
                addr: addr.clone(),
                args: args.clone(),
            };
            // Written without `.sem` an atom is relaxed, without a scope `.gpu` (§1.4).
            for weaker in sem.map(weaker_sems).unwrap_or_default() {
                out.push((WeakenSem, Some(with(Some(weaker), *scope))));
            }
            if let Some(narrow) = narrower(scope.unwrap_or(Scope::Gpu)) {
                out.push((NarrowScope, Some(with(*sem, Some(narrow)))));
            }
        }
        Instr::Fence(fence) => match fence {
            Fence::Thread { sem, scope, restrict, .. } => {
                // The sugar spellings name one fixed fence; a weakened one is written plainly.
                let with = |sem: Option<FenceSem>, scope: Scope| {
                    Instr::Fence(Fence::Thread { sem, scope, restrict: *restrict, sugar: None })
                };
                let weaker: Vec<FenceSem> = match sem {
                    Some(FenceSem::Sc) => vec![FenceSem::AcqRel],
                    None | Some(FenceSem::AcqRel) => vec![FenceSem::Release, FenceSem::Acquire],
                    Some(FenceSem::Acquire) | Some(FenceSem::Release) => Vec::new(),
                };
                for w in weaker {
                    out.push((WeakenSem, Some(with(Some(w), *scope))));
                }
                if let Some(narrow) = narrower(*scope) {
                    out.push((NarrowScope, Some(with(*sem, narrow))));
                }
                out.push((Drop, None));
            }
            Fence::MbarrierInit | Fence::Proxy(_) => out.push((Drop, None)),
        },
        Instr::Bar { .. } => out.push((Drop, None)),
        Instr::ClusterArrive { sem } => match sem {
            None | Some(Sem::Release) => out.push((WeakenSem, Some(Instr::ClusterArrive { sem: Some(Sem::Relaxed) }))),
            Some(Sem::Relaxed | Sem::Weak | Sem::Acquire | Sem::AcqRel | Sem::Volatile | Sem::Mmio) => {}
        },
        Instr::ClusterWait => out.push((Drop, None)),
        Instr::Mbar(op) => mbarrier(op, &mut out),
        Instr::CpAsyncWait { n } => {
            out.push((Drop, None));
            out.push((ChangeCount, Some(Instr::CpAsyncWait { n: n.saturating_add(1) })));
        }
        Instr::BulkWait { n, read } => {
            out.push((Drop, None));
            out.push((ChangeCount, Some(Instr::BulkWait { n: n.saturating_add(1), read: *read })));
        }
        Instr::CpAsyncCommit | Instr::CpAsyncWaitAll | Instr::CpAsyncMbarArrive { .. } | Instr::BulkCommit => {
            out.push((Drop, None))
        }
        Instr::Wgmma(op) => match op {
            WgmmaOp::Fence | WgmmaOp::CommitGroup => out.push((Drop, None)),
            WgmmaOp::WaitGroup { n } => {
                out.push((Drop, None));
                out.push((ChangeCount, Some(Instr::Wgmma(WgmmaOp::WaitGroup { n: n.saturating_add(1) }))));
            }
            WgmmaOp::MmaAsync { .. } => {}
        },
        Instr::Tc(op) => match op {
            TcOp::Commit { .. } | TcOp::WaitLd | TcOp::WaitSt | TcOp::FenceBeforeThreadSync | TcOp::FenceAfterThreadSync => {
                out.push((Drop, None))
            }
            TcOp::Alloc { .. }
            | TcOp::Dealloc { .. }
            | TcOp::Relinquish { .. }
            | TcOp::Mma { .. }
            | TcOp::MmaPair { .. }
            | TcOp::Cp { .. }
            | TcOp::Shift { .. }
            | TcOp::Ld { .. }
            | TcOp::St { .. } => {}
        },
        Instr::Wait { instr: inner, until } => {
            out.push((Drop, None));
            // The spin stays; what it spins on is weakened (never dropped: that is the above).
            for (kind, replacement) in weakenings(inner) {
                if let Some(new) = replacement {
                    out.push((kind, Some(Instr::Wait { instr: Box::new(new), until: until.clone() })));
                }
            }
        }
        // The same weakenings under the same byte range or guard.
        Instr::Ranged { instr: inner, at, src_at, width } => {
            let wrap = |new: Instr| Instr::Ranged { instr: Box::new(new), at: *at, src_at: *src_at, width: *width };
            out.extend(weakenings(inner).into_iter().map(|(kind, new)| (kind, new.map(wrap))));
        }
        Instr::Guarded { pred, negated, instr: inner } => {
            // A guard that lets the other path through (`@p` ↔ `@!p`).
            out.push((InvertGuard, Some(Instr::Guarded { pred: pred.clone(), negated: !negated, instr: inner.clone() })));
            let wrap = |new: Instr| Instr::Guarded { pred: pred.clone(), negated: *negated, instr: Box::new(new) };
            out.extend(weakenings(inner).into_iter().map(|(kind, new)| (kind, new.map(wrap))));
        }
        // Data movement, arithmetic and control flow are not synchronization.
        Instr::SetP { .. }
        | Instr::CpAsync { .. }
        | Instr::Bulk { .. }
        | Instr::StAsync { .. }
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::Exit => {}
    }
    out
}

/// `ld`/`st`: weaker semantics (a relaxed access may become weak, which drops its scope)
/// and a narrower scope; `with` rebuilds the instruction with new ones.
fn load_store(sem: Option<Sem>, scope: Option<Scope>, with: impl Fn(Option<Sem>, Option<Scope>) -> Instr, out: &mut Vec<Edit>) {
    if let Some(s) = sem {
        for weaker in weaker_sems(s) {
            out.push((WeakenSem, Some(with(Some(weaker), scope))));
        }
        if s == Sem::Relaxed {
            out.push((WeakenSem, Some(with(None, None))));
        }
    }
    if let Some(narrow) = scope.and_then(narrower) {
        out.push((NarrowScope, Some(with(sem, Some(narrow)))));
    }
}

fn mbarrier(op: &MbarOp, out: &mut Vec<Edit>) {
    let with_kind = |kind: MbarKind| Instr::Mbar(MbarOp { kind, ..op.clone() });
    let with_order = |sem: Option<Sem>, scope: Option<Scope>| Instr::Mbar(MbarOp { sem, scope, ..op.clone() });
    let halve_double = |bytes: u32| [bytes / 2, bytes.saturating_mul(2)].into_iter().filter(move |b| *b != bytes && *b > 0);
    match &op.kind {
        MbarKind::Init { count } => {
            for changed in [count.saturating_sub(1), count.saturating_add(1)] {
                if changed != *count && changed > 0 {
                    out.push((ChangeCount, Some(with_kind(MbarKind::Init { count: changed }))));
                }
            }
        }
        MbarKind::ExpectTx { bytes } => {
            out.push((Drop, None));
            for b in halve_double(*bytes) {
                out.push((ChangeBytes, Some(with_kind(MbarKind::ExpectTx { bytes: b }))));
            }
        }
        MbarKind::CompleteTx { bytes } => {
            for b in halve_double(*bytes) {
                out.push((ChangeBytes, Some(with_kind(MbarKind::CompleteTx { bytes: b }))));
            }
        }
        MbarKind::Arrive { count, expect_tx, no_complete, drop, state } => {
            let arrive = |count: Option<u32>, expect_tx: Option<u32>| MbarKind::Arrive {
                count,
                expect_tx,
                no_complete: *no_complete,
                drop: *drop,
                state: state.clone(),
            };
            // An arrive written without `.sem` releases (§4.2).
            if matches!(op.sem, None | Some(Sem::Release)) {
                out.push((WeakenSem, Some(with_order(Some(Sem::Relaxed), op.scope))));
            }
            if let Some(narrow) = op.scope.and_then(narrower) {
                out.push((NarrowScope, Some(with_order(op.sem, Some(narrow)))));
            }
            if let Some(bytes) = expect_tx {
                out.push((Drop, Some(with_kind(arrive(*count, None)))));
                for b in halve_double(*bytes) {
                    out.push((ChangeBytes, Some(with_kind(arrive(*count, Some(b))))));
                }
            }
            if let Some(n) = count {
                for changed in [n.saturating_sub(1), n.saturating_add(1)] {
                    if changed != *n && changed > 0 {
                        out.push((ChangeCount, Some(with_kind(arrive(Some(changed), *expect_tx)))));
                    }
                }
            }
        }
        MbarKind::Wait { blocking, parity, phase, dst } => {
            // A wait written without `.sem` acquires (§4.2).
            if matches!(op.sem, None | Some(Sem::Acquire)) {
                out.push((WeakenSem, Some(with_order(Some(Sem::Relaxed), op.scope))));
            }
            if let Some(narrow) = op.scope.and_then(narrower) {
                out.push((NarrowScope, Some(with_order(op.sem, Some(narrow)))));
            }
            if let (true, Operand::Imm(p)) = (parity, phase) {
                let flipped = MbarKind::Wait { blocking: *blocking, parity: true, phase: Operand::Imm(p ^ 1), dst: dst.clone() };
                out.push((FlipParity, Some(with_kind(flipped))));
            }
        }
        MbarKind::Inval | MbarKind::PendingCount { .. } => {}
    }
}
