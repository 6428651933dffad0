//! What each instruction touches, in one exhaustive place: the locations, mbarriers and
//! tensor memory it names and how, the registers it reads and writes, whether it
//! synchronizes and through what, and its footprint for the partial-order reduction.
//!
//! [`Instr::facts`] is the only `match` that must learn a new instruction kind; the
//! verifier, the register analysis, the partial-order reduction, the palette's reference
//! finder and others read these facts instead of restating them. It has no wildcard arm,
//! so a new variant does not compile until its facts are written.

use super::{BarKind, Fence, FenceSem, Instr, MbarKind, Operand, Proxy, ProxyKind, Scope, Sem, TcOp, WgmmaOp};

/// What kind of declaration a name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// A `global` or `shared` location (or an alias of one).
    Location,
    /// A location that must be tensor memory (`tmem`).
    Tmem,
    Mbarrier,
}

/// How an instruction uses a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    Read,
    Write,
    /// Read-modify-write: atomics, reductions, accumulators.
    Update,
    /// The source of a copy.
    CopyFrom,
    /// The destination of a copy.
    CopyTo,
    Arrive,
    Wait,
    Init,
    Invalidate,
    /// `expect_tx` / `complete_tx`: changes the barrier's transaction count.
    Transaction,
}

/// Who performs the use: the thread when it executes the instruction, or the asynchronous
/// operation it issues, later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    Thread,
    Async,
}

/// One name an instruction uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named<'a> {
    pub name: &'a str,
    pub object: Object,
    pub how: Use,
    pub by: By,
    /// The proxy the memory access goes through (mbarrier operations: generic).
    pub proxy: Proxy,
}

/// Through what an instruction synchronizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// A strong (relaxed or stronger) access: release/acquire itself, or part of a fence pattern.
    Access,
    ThreadFence,
    /// A proxy fence (reference §2.3), or `fence.mbarrier_init`.
    ProxyFence,
    CtaBarrier,
    ClusterBarrier,
    Mbarrier,
    /// Waiting for, or signalling, the completion of asynchronous operations.
    AsyncCompletion,
    /// Orders the thread's asynchronous tensor operations (`wgmma.fence`, the tcgen05
    /// thread-sync fences).
    AsyncOrder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sync {
    pub via: Via,
    /// The scope it synchronizes at, written or by default (reference §1.1, §4.4, §5.2);
    /// `None` for forms that take no scope. Shared-memory clamping (§1.2) is not applied.
    pub scope: Option<Scope>,
    /// Whether it is itself an operation another thread can observe: an mbarrier or
    /// barrier arrive (whatever its semantics), a strong store, an atomic. A fence only
    /// orders, so it neither signals nor observes.
    pub signals: bool,
    /// Whether it is itself an operation that observes another thread (a wait, a
    /// blocking barrier, a strong load or atomic).
    pub observes: bool,
}

/// What else than named objects an instruction shares with other threads, for the
/// partial-order reduction: two steps that share nothing commute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shared {
    pub cta_barrier: bool,
    pub cluster_barrier: bool,
    /// `fence.sc` orders against every other `fence.sc`.
    pub sc_fences: bool,
    pub tensor_memory: TensorMemory,
}

/// How a step meets its CTA's tensor memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TensorMemory {
    /// Not a tcgen05 op.
    #[default]
    Untouched,
    /// A tcgen05 op: the TMEM it names must be allocated when it issues, and a `dealloc`
    /// finds it in flight until it completes. Uses commute with each other.
    Uses,
    /// `alloc`, `dealloc` and `relinquish_alloc_permit` change the allocator.
    Allocates,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Footprint {
    /// Reads and writes only the executing thread's registers, program counter and
    /// knowledge: it commutes with every other step.
    Local,
    /// Touches its named objects, its own asynchronous operations, and `Shared`.
    Shared(Shared),
}

/// Everything [`Instr::facts`] says about one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts<'a> {
    pub names: Vec<Named<'a>>,
    /// Registers the thread reads when it executes the instruction (`_` excluded).
    pub reads: Vec<&'a str>,
    /// Registers it writes (`_`, the sink, excluded), at once or when its async part completes.
    pub writes: Vec<&'a str>,
    /// A wgmma accumulator: read and written by the asynchronous operation, so it is
    /// neither a read nor a write of the issuing thread (chaining on it is allowed).
    pub accumulator: Option<&'a str>,
    /// Registers among `reads` and `writes` holding an mbarrier state token (an opaque
    /// 64-bit value, not a number).
    pub tokens: Vec<&'a str>,
    pub sync: Option<Sync>,
    pub footprint: Footprint,
}

impl Facts<'_> {
    /// Registers the thread itself reads or writes (the accumulator excluded).
    pub fn touched(&self) -> impl Iterator<Item = &str> + '_ {
        self.reads.iter().chain(&self.writes).copied()
    }

    /// Names of objects of kind `object` (TMEM counts as a location).
    pub fn named(&self, object: Object) -> impl Iterator<Item = &str> + '_ {
        self.names.iter().filter(move |n| n.object == object).map(|n| n.name)
    }

    /// Every location and TMEM name.
    pub fn locations(&self) -> impl Iterator<Item = &str> + '_ {
        self.names.iter().filter(|n| n.object != Object::Mbarrier).map(|n| n.name)
    }
}

fn reg(operand: &Operand) -> Option<&str> {
    match operand {
        Operand::Reg(r) if r != "_" => Some(r),
        Operand::Reg(_) | Operand::Imm(_) => None,
    }
}

fn sink(name: &str) -> Option<&str> {
    (name != "_").then_some(name)
}

const NOTHING: Shared = Shared { cta_barrier: false, cluster_barrier: false, sc_fences: false, tensor_memory: TensorMemory::Untouched };

impl<'a> Facts<'a> {
    fn new(footprint: Footprint) -> Facts<'a> {
        Facts { names: Vec::new(), reads: Vec::new(), writes: Vec::new(), accumulator: None, tokens: Vec::new(), sync: None, footprint }
    }

    fn name(mut self, name: &'a str, object: Object, how: Use, by: By, proxy: Proxy) -> Self {
        self.names.push(Named { name, object, how, by, proxy });
        self
    }

    fn loc(self, name: &'a str, how: Use, by: By, proxy: Proxy) -> Self {
        self.name(name, Object::Location, how, by, proxy)
    }

    fn tmem(self, name: &'a str, how: Use) -> Self {
        self.name(name, Object::Tmem, how, By::Async, Proxy::Async)
    }

    fn mbar(self, name: &'a str, how: Use, by: By) -> Self {
        self.name(name, Object::Mbarrier, how, by, Proxy::Generic)
    }

    fn read(mut self, operands: impl IntoIterator<Item = &'a Operand>) -> Self {
        self.reads.extend(operands.into_iter().filter_map(reg));
        self
    }

    fn read_reg(mut self, name: &'a str) -> Self {
        self.reads.extend(sink(name));
        self
    }

    fn write(mut self, name: &'a str) -> Self {
        self.writes.extend(sink(name));
        self
    }

    fn token(mut self, name: &'a str) -> Self {
        self.tokens.extend(sink(name));
        self
    }

    fn sync(mut self, via: Via, scope: Option<Scope>) -> Self {
        self.sync = Some(Sync { via, scope, signals: false, observes: false });
        self
    }

    /// Marks the synchronization set by [`Facts::sync`] as signalling and/or observing.
    fn sides(mut self, signals: bool, observes: bool) -> Self {
        if let Some(sync) = &mut self.sync {
            sync.signals = signals;
            sync.observes = observes;
        }
        self
    }
}

/// The scope a memory access synchronizes at; `None` for weak accesses.
fn access_scope(sem: Option<Sem>, scope: Option<Scope>, atomic: bool) -> Option<Scope> {
    match sem {
        None | Some(Sem::Weak) if !atomic => None,
        Some(Sem::Volatile | Sem::Mmio) => Some(Scope::Sys),
        None | Some(Sem::Weak | Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel) => Some(scope.unwrap_or(Scope::Gpu)),
    }
}

/// A strong access signals (a store) or observes (a load); weak and volatile ones do not.
fn is_strong(sem: Option<Sem>) -> bool {
    sem.is_some_and(|s| !matches!(s, Sem::Weak | Sem::Volatile))
}

fn with_access_sync<'a>(facts: Facts<'a>, scope: Option<Scope>) -> Facts<'a> {
    match scope {
        Some(scope) => facts.sync(Via::Access, Some(scope)),
        None => facts,
    }
}

impl Instr {
    /// What this instruction touches; see the module doc.
    pub fn facts(&self) -> Facts<'_> {
        let shared = |s: Shared| Footprint::Shared(s);
        let thread = By::Thread;
        match self {
            Instr::Ld { sem, scope, proxy, dst, addr, .. } => with_access_sync(
                Facts::new(shared(NOTHING)).loc(addr, Use::Read, thread, *proxy).write(dst),
                access_scope(*sem, *scope, false),
            )
            .sides(false, is_strong(*sem)),
            Instr::St { sem, scope, proxy, addr, src, .. } => with_access_sync(
                Facts::new(shared(NOTHING)).loc(addr, Use::Write, thread, *proxy).read([src]),
                access_scope(*sem, *scope, false),
            )
            .sides(is_strong(*sem), false),
            Instr::Atom { sem, scope, dst, addr, args, .. } => {
                let facts = Facts::new(shared(NOTHING)).loc(addr, Use::Update, thread, Proxy::Generic).read(args);
                let facts = match dst {
                    Some(d) => facts.write(d),
                    None => facts,
                };
                with_access_sync(facts, access_scope(*sem, *scope, true)).sides(true, true)
            }
            Instr::Fence(fence) => match fence {
                Fence::Thread { sem, scope, .. } => {
                    let sc = *sem == Some(FenceSem::Sc);
                    let footprint = if sc { shared(Shared { sc_fences: true, ..NOTHING }) } else { Footprint::Local };
                    Facts::new(footprint).sync(Via::ThreadFence, Some(*scope))
                }
                Fence::MbarrierInit => Facts::new(Footprint::Local).sync(Via::ProxyFence, Some(Scope::Cluster)),
                Fence::Proxy(kind) => {
                    let scope = match kind {
                        ProxyKind::Tensormap { scope, .. } => Some(*scope),
                        ProxyKind::AsyncGeneric { .. } => Some(Scope::Cluster),
                        ProxyKind::Alias
                        | ProxyKind::Texture
                        | ProxyKind::Surface
                        | ProxyKind::Constant
                        | ProxyKind::Async { .. } => None,
                    };
                    Facts::new(Footprint::Local).sync(Via::ProxyFence, scope)
                }
            },
            Instr::Bar { kind, id, count, .. } => Facts::new(shared(Shared { cta_barrier: true, ..NOTHING }))
                .read([id])
                .read(count)
                .sync(Via::CtaBarrier, None)
                .sides(true, matches!(kind, BarKind::Sync | BarKind::Red)),
            Instr::ClusterArrive { .. } => Facts::new(shared(Shared { cluster_barrier: true, ..NOTHING }))
                .sync(Via::ClusterBarrier, Some(Scope::Cluster))
                .sides(true, false),
            Instr::ClusterWait => Facts::new(shared(Shared { cluster_barrier: true, ..NOTHING }))
                .sync(Via::ClusterBarrier, Some(Scope::Cluster))
                .sides(false, true),
            Instr::Mbar(op) => {
                let facts = Facts::new(shared(NOTHING));
                let synchronizing = facts.clone().sync(Via::Mbarrier, Some(op.scope.unwrap_or(Scope::Cta)));
                match &op.kind {
                    MbarKind::Init { .. } => facts.mbar(&op.bar, Use::Init, thread),
                    MbarKind::Inval => facts.mbar(&op.bar, Use::Invalidate, thread),
                    MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. } => {
                        synchronizing.mbar(&op.bar, Use::Transaction, thread)
                    }
                    MbarKind::Arrive { state, .. } => {
                        let facts = synchronizing.sides(true, false).mbar(&op.bar, Use::Arrive, thread);
                        match state {
                            Some(s) => facts.write(s).token(s),
                            None => facts,
                        }
                    }
                    MbarKind::Wait { phase, dst, parity, .. } => {
                        let facts = synchronizing.sides(false, true).mbar(&op.bar, Use::Wait, thread).read([phase]);
                        // Without `.parity` the phase operand is a state token.
                        let facts = match reg(phase) {
                            Some(token) if !parity => facts.token(token),
                            Some(_) | None => facts,
                        };
                        match dst {
                            Some(d) => facts.write(d),
                            None => facts,
                        }
                    }
                    // Reads a state token, not the barrier: it names none.
                    MbarKind::PendingCount { dst, state } => facts.read_reg(state).token(state).write(dst),
                }
            }
            Instr::CpAsync { dst, src, .. } => Facts::new(shared(NOTHING))
                .loc(src, Use::CopyFrom, By::Async, Proxy::Generic)
                .loc(dst, Use::CopyTo, By::Async, Proxy::Generic),
            Instr::CpAsyncCommit | Instr::BulkCommit => Facts::new(shared(NOTHING)),
            Instr::CpAsyncWait { .. } | Instr::CpAsyncWaitAll | Instr::BulkWait { .. } => {
                Facts::new(shared(NOTHING)).sync(Via::AsyncCompletion, None)
            }
            Instr::CpAsyncMbarArrive { bar, .. } => {
                // The thread registers the arrive with the barrier at issue (`.noinc` aside,
                // it raises the pending count); the arrive itself comes at completion.
                Facts::new(shared(NOTHING)).mbar(bar, Use::Arrive, thread).sync(Via::AsyncCompletion, None)
            }
            Instr::Bulk { dst, src, mbar, multicast, reduce, .. } => {
                let to = if reduce.is_some() { Use::Update } else { Use::CopyTo };
                let mut facts = Facts::new(shared(NOTHING))
                    .loc(src, Use::CopyFrom, By::Async, Proxy::Async)
                    .loc(dst, to, By::Async, Proxy::Async);
                if let Some(m) = mbar {
                    facts = facts.mbar(m, Use::Transaction, By::Async);
                }
                for (d, m) in multicast {
                    facts = facts.loc(d, to, By::Async, Proxy::Async).mbar(m, Use::Transaction, By::Async);
                }
                facts.sync(Via::AsyncCompletion, None)
            }
            Instr::StAsync { addr, src, mbar, red } => {
                let how = if red.is_some() { Use::Update } else { Use::Write };
                Facts::new(shared(NOTHING))
                    .loc(addr, how, By::Async, Proxy::Generic)
                    .mbar(mbar, Use::Transaction, By::Async)
                    .read([src])
                    .sync(Via::AsyncCompletion, None)
            }
            Instr::Wgmma(op) => match op {
                WgmmaOp::Fence => Facts::new(shared(NOTHING)).sync(Via::AsyncOrder, None),
                WgmmaOp::MmaAsync { acc, a, b } => {
                    let mut facts = Facts::new(shared(NOTHING))
                        .loc(a, Use::Read, By::Async, Proxy::Async)
                        .loc(b, Use::Read, By::Async, Proxy::Async);
                    facts.accumulator = sink(acc);
                    facts
                }
                WgmmaOp::CommitGroup => Facts::new(shared(NOTHING)),
                WgmmaOp::WaitGroup { .. } => Facts::new(shared(NOTHING)).sync(Via::AsyncCompletion, None),
            },
            Instr::Tc(op) => tc_facts(op),
            Instr::Label(_) | Instr::Branch { cond: None, .. } => Facts::new(Footprint::Local),
            Instr::Branch { cond: Some((a, _, b)), .. } => Facts::new(Footprint::Local).read([a, b]),
            Instr::Mov { dst, src } => Facts::new(Footprint::Local).read([src]).write(dst),
            Instr::Add { dst, a, b } => Facts::new(Footprint::Local).read([a, b]).write(dst),
            Instr::Wait { instr, until } => {
                let inner = instr.facts();
                match until {
                    Some(target) => inner.read([&target.value]),
                    None => inner,
                }
            }
            // Ends the thread; CTA barriers and the CTA's lifetime count it (see `por`).
            Instr::Exit => Facts::new(shared(NOTHING)),
            // A byte range names the same location: conservative for the reduction, which
            // then treats every range of a location as one resource.
            Instr::Ranged { instr, .. } => instr.facts(),
            // A guard may skip the instruction, but what it may touch is what it touches
            // when it runs (conservative for the reduction and the register rules).
            Instr::Guarded { pred, instr, .. } => instr.facts().read_reg(pred),
            Instr::SetP { dst, a, b, .. } => Facts::new(Footprint::Local).read([a, b]).write(dst),
        }
    }
}

/// Points where the PTX specification is silent (reference §12), so that strict and
/// pragmatic mode may judge an instruction differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silence {
    /// #1: the scope a complete-tx signalled by another CTA's copy needs.
    RemoteCompleteTxScope,
    /// #4: write-after-read from a generic read to an async-proxy write.
    AsyncWriteAfterGenericRead,
    /// #8: the proxy of `cp.async` data writes.
    CpAsyncDataProxy,
    /// #8: the proxy of `st.async`/`red.async` data writes.
    StAsyncDataProxy,
    /// #9: whether `st.async` may target its own CTA.
    StAsyncOwnCta,
    /// #11: whether a relaxed `barrier.cluster.arrive` after a `.cta` release fence releases.
    RelaxedClusterArrive,
    /// #16: `tcgen05.commit`'s arrive and its missing proxy fence.
    Tcgen05Commit,
    /// #1: the scope a `tcgen05.commit` arrive-on on another CTA's barrier needs.
    RemoteCommitArriveScope,
    /// #17: write-after-read through an arrive on another CTA's barrier after awaited
    /// asynchronous reads.
    WarThroughRemoteArrive,
    /// #19: whether release/acquire synchronization stands in for the tcgen05
    /// thread-sync fences.
    Tcgen05ThreadSyncFences,
}

impl Instr {
    /// The §12 silences this instruction touches.
    pub fn silences(&self) -> &'static [Silence] {
        use crate::model::BulkDir;
        match self {
            Instr::Bulk { dir: BulkDir::SharedCtaToGlobal, .. } => &[],
            Instr::Bulk { multicast, .. } if !multicast.is_empty() => {
                &[Silence::RemoteCompleteTxScope, Silence::AsyncWriteAfterGenericRead]
            }
            Instr::Bulk {
                dir: BulkDir::GlobalToSharedCluster | BulkDir::GlobalToSharedClusterPair | BulkDir::SharedCtaToSharedCluster,
                ..
            } => {
                &[Silence::RemoteCompleteTxScope, Silence::AsyncWriteAfterGenericRead]
            }
            Instr::Bulk { dir: BulkDir::GlobalToSharedCta, .. } => &[Silence::AsyncWriteAfterGenericRead],
            Instr::CpAsync { .. } => &[Silence::CpAsyncDataProxy],
            Instr::StAsync { .. } => &[Silence::StAsyncDataProxy, Silence::StAsyncOwnCta],
            Instr::ClusterArrive { sem: Some(Sem::Relaxed) } => &[Silence::RelaxedClusterArrive],
            Instr::ClusterArrive { sem: None | Some(_) } => &[],
            Instr::Tc(op) => match op {
                TcOp::Commit { multicast, cta_group, .. } if !multicast.is_empty() || *cta_group == 2 => {
                    &[Silence::Tcgen05Commit, Silence::RemoteCommitArriveScope]
                }
                TcOp::Commit { .. } => &[Silence::Tcgen05Commit],
                // What a thread-sync fence orders: the async ops and the allocation.
                TcOp::Alloc { .. }
                | TcOp::Mma { .. }
                | TcOp::Cp { .. }
                | TcOp::Shift { .. }
                | TcOp::Ld { .. }
                | TcOp::St { .. }
                | TcOp::MmaPair { .. } => &[Silence::Tcgen05ThreadSyncFences],
                TcOp::Dealloc { .. }
                | TcOp::Relinquish { .. }
                | TcOp::WaitLd
                | TcOp::WaitSt
                | TcOp::FenceBeforeThreadSync
                | TcOp::FenceAfterThreadSync => &[],
            },
            Instr::Fence(fence) => match fence {
                Fence::Thread { .. } | Fence::MbarrierInit => &[],
                Fence::Proxy(kind) => match kind {
                    ProxyKind::Alias
                    | ProxyKind::Texture
                    | ProxyKind::Surface
                    | ProxyKind::Constant
                    | ProxyKind::Async { .. }
                    | ProxyKind::AsyncGeneric { .. }
                    | ProxyKind::Tensormap { .. } => &[],
                },
            },
            Instr::Mbar(op) => match op.kind {
                MbarKind::Arrive { .. } if op.space == Some(crate::model::AddrSpace::SharedCluster) => {
                    &[Silence::WarThroughRemoteArrive]
                }
                MbarKind::Init { .. }
                | MbarKind::Inval
                | MbarKind::ExpectTx { .. }
                | MbarKind::CompleteTx { .. }
                | MbarKind::Arrive { .. }
                | MbarKind::Wait { .. }
                | MbarKind::PendingCount { .. } => &[],
            },
            Instr::Wgmma(op) => match op {
                WgmmaOp::Fence | WgmmaOp::MmaAsync { .. } | WgmmaOp::CommitGroup | WgmmaOp::WaitGroup { .. } => &[],
            },
            Instr::Ld { .. }
            | Instr::St { .. }
            | Instr::Atom { .. }
            | Instr::Bar { .. }
            | Instr::ClusterWait
            | Instr::CpAsyncCommit
            | Instr::CpAsyncWait { .. }
            | Instr::CpAsyncWaitAll
            | Instr::CpAsyncMbarArrive { .. }
            | Instr::BulkCommit
            | Instr::BulkWait { .. }
            | Instr::Label(_)
            | Instr::Branch { .. }
            | Instr::Mov { .. }
            | Instr::Add { .. }
            | Instr::Wait { .. }
            | Instr::SetP { .. }
            | Instr::Exit => &[],
            Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => instr.silences(),
        }
    }
}

/// tcgen05 (reference §8): every op meets the CTA's tensor-memory allocator.
fn tc_facts(op: &TcOp) -> Facts<'_> {
    let allocator = match op {
        TcOp::Alloc { .. } | TcOp::Dealloc { .. } | TcOp::Relinquish { .. } => TensorMemory::Allocates,
        TcOp::Mma { .. }
        | TcOp::MmaPair { .. }
        | TcOp::Cp { .. }
        | TcOp::Shift { .. }
        | TcOp::Ld { .. }
        | TcOp::St { .. }
        | TcOp::Commit { .. }
        | TcOp::WaitLd
        | TcOp::WaitSt
        | TcOp::FenceBeforeThreadSync
        | TcOp::FenceAfterThreadSync => TensorMemory::Uses,
    };
    let facts = Facts::new(Footprint::Shared(Shared { tensor_memory: allocator, ..NOTHING }));
    match op {
        // The TMEM address is written into shared memory with a weak store (§8.2).
        TcOp::Alloc { dst, .. } => facts.loc(dst, Use::Write, By::Thread, Proxy::Generic),
        TcOp::Dealloc { .. } | TcOp::Relinquish { .. } => facts,
        TcOp::Mma { d, a, b, .. } => facts
            .tmem(d, Use::Update)
            .loc(a, Use::Read, By::Async, Proxy::Async)
            .loc(b, Use::Read, By::Async, Proxy::Async),
        TcOp::Cp { dst, src, .. } => facts.loc(src, Use::CopyFrom, By::Async, Proxy::Async).tmem(dst, Use::CopyTo),
        TcOp::Shift { tmem, .. } => facts.tmem(tmem, Use::Update),
        TcOp::Ld { dst, src } => facts.tmem(src, Use::Read).write(dst),
        TcOp::St { dst, src } => facts.tmem(dst, Use::Write).read([src]),
        TcOp::Commit { bar, multicast, .. } => {
            let facts = facts.mbar(bar, Use::Arrive, By::Async);
            multicast.iter().fold(facts, |f, m| f.mbar(m, Use::Arrive, By::Async)).sync(Via::AsyncCompletion, None)
        }
        TcOp::WaitLd | TcOp::WaitSt => facts.sync(Via::AsyncCompletion, None),
        TcOp::FenceBeforeThreadSync | TcOp::FenceAfterThreadSync => facts.sync(Via::AsyncOrder, None),
        // Both CTAs' halves: each accumulator half reads its A half and both B halves.
        TcOp::MmaPair { leader, peer } => [leader, peer].into_iter().fold(facts, |f, h| {
            f.tmem(&h.d, Use::Update).loc(&h.a, Use::Read, By::Async, Proxy::Async).loc(&h.b, Use::Read, By::Async, Proxy::Async)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instructions of a one-thread program, parsed from `.fence` text.
    fn program(body: &str) -> Vec<Instr> {
        let src = format!("cta A\nglobal g = 0\nshared s @A = 0\nmbarrier m @A count 1\n\nthread t @A:\n{body}\n");
        let parsed = crate::syntax::parse(&src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        parsed.scenario.threads.into_iter().flat_map(|t| t.program).collect()
    }

    fn one(line: &str) -> Instr {
        program(line).into_iter().next().unwrap_or(Instr::Exit)
    }

    #[test]
    fn a_wgmma_accumulator_is_the_async_op_s_not_a_thread_read_or_write() {
        let instr = one("    wgmma.mma_async.sync.aligned acc, [s], [s]");
        let facts = instr.facts();
        assert_eq!(facts.accumulator, Some("acc"));
        assert!(facts.reads.is_empty() && facts.writes.is_empty(), "{facts:?}");
        assert!(facts.names.iter().all(|n| n.by == By::Async && n.proxy == Proxy::Async && n.how == Use::Read));
    }

    #[test]
    fn the_sink_register_is_neither_read_nor_written() {
        let instr = one("    mov _, r1");
        let facts = instr.facts();
        assert_eq!((facts.reads, facts.writes), (vec!["r1"], Vec::<&str>::new()));
    }

    #[test]
    fn pending_count_reads_a_state_token_and_names_no_mbarrier() {
        let instr = one("    mbarrier.pending_count r0, st");
        let facts = instr.facts();
        assert!(facts.names.is_empty(), "{facts:?}");
        assert_eq!((facts.reads, facts.writes), (vec!["st"], vec!["r0"]));
    }

    #[test]
    fn a_spin_wait_has_its_inner_instruction_s_facts_and_reads_its_target() {
        let instr = one("    wait ld.acquire.gpu r0, [g] == r1");
        let facts = instr.facts();
        assert_eq!(facts.names.first().map(|n| (n.name, n.how)), Some(("g", Use::Read)));
        assert_eq!((facts.reads, facts.writes), (vec!["r1"], vec!["r0"]));
        assert_eq!(facts.sync, Some(Sync { via: Via::Access, scope: Some(Scope::Gpu), signals: false, observes: true }));
    }

    #[test]
    fn a_tma_load_copies_in_the_async_proxy_and_signals_its_mbarrier() {
        let instr = one("    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [g], 4, [m]");
        let facts = instr.facts();
        let uses: Vec<(&str, Object, Use)> = facts.names.iter().map(|n| (n.name, n.object, n.how)).collect();
        assert_eq!(
            uses,
            vec![("g", Object::Location, Use::CopyFrom), ("s", Object::Location, Use::CopyTo), ("m", Object::Mbarrier, Use::Transaction)]
        );
        assert!(facts.names.iter().all(|n| n.by == By::Async));
    }

    #[test]
    fn only_register_work_and_non_sc_fences_are_local() {
        let local = |line: &str| one(line).facts().footprint == Footprint::Local;
        assert!(local("    add r0, r1, 2"));
        assert!(local("    fence.acq_rel.gpu"));
        assert!(local("    fence.proxy.async"));
        assert!(!local("    fence.sc.gpu"));
        assert!(!local("    ld.relaxed.gpu r0, [g]"));
        assert!(!local("    bar.sync 0"));
        assert!(!local("    exit"));
    }
}
