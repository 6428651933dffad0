//! Instruction → SASS, from `reference/sass-lowering-sm90a.md` (and `sm100a.md` for
//! tcgen05). Forms the tables do not list are inferred from the nearest measured form and
//! marked `measured: false`. Data movement (loads, stores, copies, mma) is not priced: only
//! the synchronization a form adds is.

use super::Sass::{self, *};
use crate::model::{AddrSpace, Fence, FenceSem, Instr, MbarKind, MbarOp, ProxyKind, Scope, Sem, SyncRestrict, TcOp, WgmmaOp, BarKind};

/// The SASS one instruction lowers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowering {
    pub sass: Vec<Sass>,
    /// False when no measurement covers this exact form.
    pub measured: bool,
}

impl Lowering {
    pub fn cost(&self) -> u32 {
        self.sass.iter().map(|s| s.weight()).sum()
    }
}

fn measured(sass: Vec<Sass>) -> Lowering {
    Lowering { sass, measured: true }
}

fn inferred(sass: Vec<Sass>) -> Lowering {
    Lowering { sass, measured: false }
}

/// A release at `scope`: what `st.release` / `fence.release` emit before the operation.
fn release(scope: Scope) -> Vec<Sass> {
    match scope {
        Scope::Cta => vec![MembarAllCta],
        // sm_90a gives a cluster-scope release the GPU-wide MEMBAR (seeds 000 and 003).
        Scope::Cluster | Scope::Gpu => vec![MembarAllGpu, Errbar, CgaErrbar],
        Scope::Sys => vec![MembarAllSys, Errbar, CgaErrbar],
    }
}

/// An acquire at `scope`: an L1 invalidate beyond the CTA, nothing within it.
fn acquire(scope: Scope) -> Vec<Sass> {
    match scope {
        Scope::Cta => Vec::new(),
        Scope::Cluster | Scope::Gpu | Scope::Sys => vec![CctlIvall],
    }
}

/// Whether a scope's lowering was measured (`.sys` forms were only measured for fences).
fn scope_measured(scope: Scope) -> bool {
    scope != Scope::Sys
}

/// `ld`/`st`/`atom` ordering: release half first, acquire half after.
fn access(sem: Option<Sem>, scope: Scope, writes: bool, reads: bool) -> Lowering {
    let (rel, acq) = match sem {
        Some(Sem::Release) => (writes, false),
        Some(Sem::Acquire) => (false, reads),
        Some(Sem::AcqRel) => (writes, reads),
        None | Some(Sem::Weak | Sem::Relaxed | Sem::Volatile | Sem::Mmio) => (false, false),
    };
    let mut sass = Vec::new();
    if rel {
        sass.extend(release(scope));
    }
    if acq {
        sass.extend(acquire(scope));
    }
    Lowering { measured: sass.is_empty() || scope_measured(scope), sass }
}

fn thread_fence(sem: Option<FenceSem>, scope: Scope, restrict: Option<SyncRestrict>) -> Lowering {
    match (sem.unwrap_or(FenceSem::AcqRel), restrict) {
        (FenceSem::Release, Some(SyncRestrict::SharedCta)) => measured(vec![MembarAllCta, FenceViewAsyncS]),
        (FenceSem::Acquire, Some(SyncRestrict::SharedCluster)) => measured(Vec::new()),
        // The verifier rejects the other restricted pairings; priced as unrestricted.
        (sem, Some(_)) => Lowering { measured: false, ..thread_fence(Some(sem), scope, None) },
        (FenceSem::Sc, None) => match scope {
            Scope::Cta => measured(vec![MembarScCta]),
            Scope::Cluster => inferred(vec![MembarScGpu, Errbar, CgaErrbar, CctlIvall]),
            Scope::Gpu => measured(vec![MembarScGpu, Errbar, CgaErrbar, CctlIvall]),
            Scope::Sys => inferred(vec![MembarScSys, Errbar, CgaErrbar, CctlIvall]),
        },
        (FenceSem::AcqRel, None) => {
            let mut sass = release(scope);
            sass.extend(acquire(scope));
            measured(sass)
        }
        (FenceSem::Release, None) => Lowering { sass: release(scope), measured: scope_measured(scope) },
        (FenceSem::Acquire, None) => Lowering { sass: acquire(scope), measured: scope_measured(scope) },
    }
}

fn proxy_fence(kind: &ProxyKind) -> Lowering {
    match kind {
        ProxyKind::Async { space: None } => measured(vec![MembarAllGpu, FenceViewAsyncS]),
        ProxyKind::Async { space: Some(AddrSpace::SharedCta) } => measured(vec![MembarAllCta, FenceViewAsyncS]),
        ProxyKind::Async { space: Some(AddrSpace::Global) } => measured(vec![FenceViewAsyncG]),
        // Not measured: priced as the `.shared::cta` form plus the cluster's GPU-wide MEMBAR,
        // the way every cluster-scope ordering lowers on sm_90a.
        ProxyKind::Async { space: Some(AddrSpace::SharedCluster) } => inferred(vec![MembarAllGpu, FenceViewAsyncS]),
        ProxyKind::AsyncGeneric { sem: FenceSem::Release, restrict: SyncRestrict::SharedCta } => {
            measured(vec![MembarAllCta, FenceViewAsyncS])
        }
        ProxyKind::AsyncGeneric { sem: FenceSem::Acquire, restrict: SyncRestrict::SharedCluster } => measured(Vec::new()),
        ProxyKind::AsyncGeneric { .. } => inferred(vec![MembarAllCta, FenceViewAsyncS]),
        // Not measured: priced as the full async proxy fence.
        ProxyKind::Alias | ProxyKind::Texture | ProxyKind::Surface | ProxyKind::Constant | ProxyKind::Tensormap { .. } => {
            inferred(vec![MembarAllGpu, FenceViewAsyncS])
        }
    }
}

fn mbarrier(op: &MbarOp) -> Lowering {
    let remote = op.space == Some(AddrSpace::SharedCluster);
    let scope = op.scope.unwrap_or(Scope::Cta);
    match &op.kind {
        MbarKind::Init { .. } => measured(vec![SyncsExch64]),
        MbarKind::Inval => inferred(vec![SyncsExch64]),
        MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. } => inferred(vec![SyncsArriveTrans64]),
        MbarKind::Arrive { expect_tx, .. } => {
            // A `.release.cta` arrive has its release built in; a wider one adds both MEMBARs.
            let mut sass = match (op.sem.unwrap_or(Sem::Release), scope) {
                (Sem::Release | Sem::AcqRel, Scope::Cluster | Scope::Gpu | Scope::Sys) => vec![MembarAllCta, MembarAllGpu, Errbar, CgaErrbar],
                _ => Vec::new(),
            };
            sass.push(match (expect_tx.is_some(), remote) {
                (true, _) => SyncsArriveTrans64,
                (false, true) => SyncsArriveRedA1T0,
                (false, false) => SyncsArriveA1T0,
            });
            Lowering { sass, measured: scope != Scope::Gpu && scope != Scope::Sys }
        }
        MbarKind::Wait { .. } => {
            let mut sass = vec![SyncsPhaseCheck];
            if op.sem.unwrap_or(Sem::Acquire) == Sem::Acquire {
                sass.extend(acquire(scope));
            }
            Lowering { sass, measured: scope_measured(scope) }
        }
        MbarKind::PendingCount { .. } => measured(Vec::new()),
    }
}

/// The SASS `instr` lowers to on sm_90a (tcgen05: sm_100a).
pub fn lower(instr: &Instr) -> Lowering {
    match instr {
        Instr::Ld { sem, scope, .. } => access(*sem, scope.unwrap_or(Scope::Gpu), false, true),
        Instr::St { sem, scope, .. } => access(*sem, scope.unwrap_or(Scope::Gpu), true, false),
        Instr::Atom { sem, scope, .. } => access(*sem, scope.unwrap_or(Scope::Gpu), true, true),
        Instr::Fence(Fence::Thread { sem, scope, restrict, .. }) => thread_fence(*sem, *scope, *restrict),
        // `mbarrier.init` carries the SYNCS op; the init fence adds no MEMBAR.
        Instr::Fence(Fence::MbarrierInit) => measured(Vec::new()),
        Instr::Fence(Fence::Proxy(kind)) => proxy_fence(kind),
        Instr::Bar { kind: BarKind::Sync, .. } => measured(vec![BarSync]),
        Instr::Bar { kind: BarKind::Arrive, .. } => measured(vec![BarArrive]),
        Instr::Bar { kind: BarKind::Red, .. } => inferred(vec![BarRed]),
        Instr::ClusterArrive { sem } => match sem {
            Some(Sem::Relaxed) => measured(vec![ClusterBarArrive]),
            None | Some(Sem::Release | Sem::Weak | Sem::Acquire | Sem::AcqRel | Sem::Volatile | Sem::Mmio) => {
                measured(vec![MembarAllGpu, Errbar, CgaErrbar, ClusterBarArrive])
            }
        },
        // The acquire half of `barrier.cluster` keeps its L1 invalidate even after a relaxed arrive.
        Instr::ClusterWait => measured(vec![ClusterBarWait, CctlIvall]),
        Instr::Mbar(op) => mbarrier(op),
        Instr::CpAsync { .. } => measured(Vec::new()),
        Instr::CpAsyncCommit => measured(vec![LdgDepBar]),
        Instr::CpAsyncWait { .. } => measured(vec![DepBar]),
        Instr::CpAsyncWaitAll => inferred(vec![LdgDepBar, DepBar]),
        Instr::CpAsyncMbarArrive { .. } => measured(vec![ArrivesLdgstsBar]),
        Instr::Bulk { .. } => measured(Vec::new()),
        Instr::BulkCommit => measured(vec![TmaCmdFlush]),
        // A full wait (not `.read`) also invalidates L1 so the copied data is seen.
        Instr::BulkWait { read: true, .. } => measured(vec![DepBar]),
        Instr::BulkWait { read: false, .. } => measured(vec![DepBar, CctlIvall]),
        Instr::StAsync { .. } => measured(Vec::new()),
        Instr::Wgmma(op) => match op {
            WgmmaOp::Fence => measured(vec![WarpgroupArrive]),
            WgmmaOp::MmaAsync { .. } | WgmmaOp::CommitGroup => measured(Vec::new()),
            WgmmaOp::WaitGroup { .. } => measured(vec![WarpgroupDepBar]),
        },
        Instr::Tc(op) => match op {
            TcOp::Alloc { .. } | TcOp::Dealloc { .. } | TcOp::Relinquish { .. } => measured(vec![Elect, TcAtomSws]),
            TcOp::Commit { .. } => measured(vec![Elect, TcBar]),
            TcOp::WaitSt => measured(vec![FenceViewAsyncT]),
            // The thread-sync fences are compiler ordering points: nothing of their own.
            TcOp::WaitLd | TcOp::FenceBeforeThreadSync | TcOp::FenceAfterThreadSync => measured(Vec::new()),
            TcOp::Mma { .. } | TcOp::MmaPair { .. } | TcOp::Cp { .. } | TcOp::Shift { .. } | TcOp::Ld { .. } | TcOp::St { .. } => {
                measured(Vec::new())
            }
        },
        Instr::Wait { instr, .. } | Instr::Ranged { instr, .. } => lower(instr),
        // A guard adds a predicated issue, not an instruction of its own.
        Instr::Guarded { instr, .. } => lower(instr),
        Instr::Label(_) | Instr::Branch { .. } | Instr::Mov { .. } | Instr::Add { .. } | Instr::SetP { .. } | Instr::Exit => {
            measured(Vec::new())
        }
    }
}
