//! The palette: one default [`Instr`] per entry, grouped by family. Operands name the
//! scenario's own declarations where one fits, so a dropped block usually verifies.

use crate::model::{
    AddrSpace, AtomOp, BarKind, BulkDir, CmpOp, Fence, FenceSem, Instr, MbarKind, MbarOp, Operand, Proxy, ProxyKind,
    MmaHalf, Scenario, Scope, Sem, Space, SyncRestrict, TcOp, WaitTarget, WgmmaOp,
};

/// Instruction families, in palette order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Memory,
    Fences,
    ProxyFences,
    CtaBarriers,
    ClusterBarriers,
    Mbarrier,
    Tma,
    CpAsync,
    StAsync,
    Wgmma,
    Tcgen05,
}

impl Family {
    pub const ALL: [Family; 11] = [
        Family::Memory,
        Family::Fences,
        Family::ProxyFences,
        Family::CtaBarriers,
        Family::ClusterBarriers,
        Family::Mbarrier,
        Family::Tma,
        Family::CpAsync,
        Family::StAsync,
        Family::Wgmma,
        Family::Tcgen05,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Family::Memory => "Memory ops",
            Family::Fences => "Fences",
            Family::ProxyFences => "Proxy fences",
            Family::CtaBarriers => "CTA barriers",
            Family::ClusterBarriers => "Cluster barriers",
            Family::Mbarrier => "mbarrier",
            Family::Tma => "TMA (cp.async.bulk)",
            Family::CpAsync => "cp.async",
            Family::StAsync => "st.async",
            Family::Wgmma => "wgmma",
            Family::Tcgen05 => "tcgen05",
        }
    }

    /// Stable id for drag payloads and test selectors.
    pub fn id(self) -> &'static str {
        match self {
            Family::Memory => "memory",
            Family::Fences => "fences",
            Family::ProxyFences => "proxy-fences",
            Family::CtaBarriers => "cta-barriers",
            Family::ClusterBarriers => "cluster-barriers",
            Family::Mbarrier => "mbarrier",
            Family::Tma => "tma",
            Family::CpAsync => "cp-async",
            Family::StAsync => "st-async",
            Family::Wgmma => "wgmma",
            Family::Tcgen05 => "tcgen05",
        }
    }
}

/// One palette block: a short label and the instruction it inserts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub label: &'static str,
    pub instr: Instr,
}

/// Declared names the defaults refer to, chosen for the thread the block goes into.
struct Names {
    global: String,
    shared: String,
    tmem: String,
    mbar: String,
    /// Shared memory and mbarrier of another CTA, for `st.async` (which must go to a peer).
    peer_shared: String,
    peer_mbar: String,
    /// The other CTA of the thread's `cta_group::2` pair: its shared memory, TMEM and
    /// mbarrier; and an mbarrier of the pair's leader (even rank), which pair copies signal.
    pair_shared: String,
    pair_tmem: String,
    pair_mbar: String,
    leader_mbar: String,
    reg: String,
}

impl Names {
    fn for_thread(s: &Scenario, thread: usize) -> Names {
        let cta = s.threads.get(thread).map(|t| t.cta);
        let find = |pick: &dyn Fn(Space) -> bool, fallback: &str| {
            s.locations
                .iter()
                .filter(|l| l.alias.is_none() && pick(l.space))
                .map(|l| l.name.clone())
                .next()
                .unwrap_or_else(|| fallback.to_string())
        };
        let own_shared = find(&|sp| matches!(sp, Space::Shared(c) if Some(c) == cta), "");
        let shared = if own_shared.is_empty() { find(&|sp| matches!(sp, Space::Shared(_)), "x") } else { own_shared };
        let mbar = s
            .mbarriers
            .iter()
            .find(|m| Some(m.cta) == cta)
            .or(s.mbarriers.first())
            .map_or_else(|| "bar".to_string(), |m| m.name.clone());
        // A register name the thread does not use yet, so a new load never clobbers one.
        let used: Vec<&str> = s
            .threads
            .get(thread)
            .into_iter()
            .flat_map(|t| &t.program)
            .flat_map(|instr| {
                let facts = instr.facts();
                facts.reads.into_iter().chain(facts.writes).chain(facts.accumulator)
            })
            .collect();
        let reg = (0..).map(|n| format!("r{n}")).find(|r| !used.contains(&r.as_str())).unwrap_or_default();
        let peer_shared = find(&|sp| matches!(sp, Space::Shared(c) if Some(c) != cta), &shared);
        let peer_mbar = s.mbarriers.iter().find(|m| Some(m.cta) != cta).map_or_else(|| mbar.clone(), |m| m.name.clone());
        let pair = cta.and_then(|c| s.pair_peer(c));
        let pair_mbar = s.mbarriers.iter().find(|m| Some(m.cta) == pair).map_or_else(|| peer_mbar.clone(), |m| m.name.clone());
        let leads = cta.is_some_and(|c| s.is_pair_leader(c));
        Names {
            pair_shared: find(&|sp| matches!(sp, Space::Shared(c) if Some(c) == pair), &peer_shared),
            pair_tmem: find(&|sp| matches!(sp, Space::Tmem(c) if Some(c) == pair), "t"),
            leader_mbar: if leads { mbar.clone() } else { pair_mbar.clone() },
            pair_mbar,
            peer_shared,
            peer_mbar,
            global: find(&|sp| sp == Space::Global, "g"),
            shared,
            tmem: find(&|sp| matches!(sp, Space::Tmem(_)), "t"),
            mbar,
            reg,
        }
    }
}

/// Every family with its entries, defaults filled in for thread `thread` of `s`.
pub fn catalog(s: &Scenario, thread: usize) -> Vec<(Family, Vec<Entry>)> {
    let n = Names::for_thread(s, thread);
    Family::ALL.iter().map(|&f| (f, entries(f, &n))).collect()
}

fn entry(label: &'static str, instr: Instr) -> Entry {
    Entry { label, instr }
}

fn mbar(kind: MbarKind, n: &Names) -> Instr {
    Instr::Mbar(MbarOp { kind, sem: None, scope: None, space: Some(AddrSpace::SharedCta), bar: n.mbar.clone() })
}

/// A 16-byte TMA load from global memory into this CTA's shared memory.
fn bulk_load(n: &Names) -> Instr {
    Instr::Bulk {
        dir: BulkDir::GlobalToSharedCluster,
        dst: n.shared.clone(),
        src: n.global.clone(),
        bytes: 16,
        mbar: Some(n.mbar.clone()),
        multicast: Vec::new(),
        reduce: None,
        tensor: false,
    }
}

fn entries(family: Family, n: &Names) -> Vec<Entry> {
    let ld = |sem, scope| Instr::Ld {
        sem,
        scope,
        space: None,
        proxy: Proxy::Generic,
        dst: n.reg.clone(),
        addr: n.shared.clone(),
    };
    let st = |sem, scope| Instr::St {
        sem,
        scope,
        space: None,
        proxy: Proxy::Generic,
        addr: n.shared.clone(),
        src: Operand::Imm(1),
    };
    let thread_fence = |sem, scope, restrict| Instr::Fence(Fence::Thread { sem, scope, restrict, sugar: None });
    match family {
        Family::Memory => vec![
            entry("ld", ld(None, None)),
            entry("st", st(None, None)),
            entry("ld.acquire", ld(Some(Sem::Acquire), Some(Scope::Gpu))),
            entry("st.release", st(Some(Sem::Release), Some(Scope::Gpu))),
            entry(
                "atom.add",
                Instr::Atom {
                    op: AtomOp::Add,
                    sem: None,
                    scope: None,
                    space: None,
                    dst: Some(n.reg.clone()),
                    addr: n.shared.clone(),
                    args: vec![Operand::Imm(1)],
                },
            ),
            entry(
                "red.add",
                Instr::Atom {
                    op: AtomOp::Add,
                    sem: None,
                    scope: None,
                    space: None,
                    dst: None,
                    addr: n.shared.clone(),
                    args: vec![Operand::Imm(1)],
                },
            ),
            entry(
                "ld.b32 [x+OFFSET]",
                Instr::Ranged { instr: Box::new(ld(None, None)), at: Some(0), src_at: None, width: Some(4) },
            ),
            entry(
                "st.b32 [x+OFFSET]",
                Instr::Ranged { instr: Box::new(st(None, None)), at: Some(0), src_at: None, width: Some(4) },
            ),
            entry(
                "setp.eq",
                Instr::SetP { dst: "p".into(), op: CmpOp::Eq, a: Operand::Reg(n.reg.clone()), b: Operand::Imm(1) },
            ),
            entry("@p ld (guarded)", Instr::Guarded { pred: "p".into(), negated: false, instr: Box::new(ld(None, None)) }),
            entry(
                "wait ld (spin)",
                Instr::Wait {
                    instr: Box::new(ld(Some(Sem::Acquire), Some(Scope::Gpu))),
                    until: Some(WaitTarget { op: CmpOp::Eq, value: Operand::Imm(1) }),
                },
            ),
        ],
        Family::Fences => vec![
            entry("fence", thread_fence(None, Scope::Gpu, None)),
            entry("fence.sc", thread_fence(Some(FenceSem::Sc), Scope::Gpu, None)),
            entry(
                "fence.release (sync_restrict)",
                thread_fence(Some(FenceSem::Release), Scope::Cluster, Some(SyncRestrict::SharedCta)),
            ),
            entry("fence.mbarrier_init", Instr::Fence(Fence::MbarrierInit)),
        ],
        Family::ProxyFences => vec![
            entry("fence.proxy.async", Instr::Fence(Fence::Proxy(ProxyKind::Async { space: None }))),
            entry(
                "fence.proxy.async::generic",
                Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric {
                    sem: FenceSem::Release,
                    restrict: SyncRestrict::SharedCta,
                })),
            ),
            entry("fence.proxy.alias", Instr::Fence(Fence::Proxy(ProxyKind::Alias))),
            entry(
                "fence.proxy.tensormap",
                Instr::Fence(Fence::Proxy(ProxyKind::Tensormap { sem: FenceSem::Acquire, scope: Scope::Gpu })),
            ),
        ],
        Family::CtaBarriers => vec![
            entry("bar.sync", Instr::Bar { kind: BarKind::Sync, id: Operand::Imm(0), count: None, sugar: None }),
            entry("bar.arrive", Instr::Bar {
                    kind: BarKind::Arrive,
                    id: Operand::Imm(1),
                    count: Some(Operand::Imm(64)),
                    sugar: None,
                }),
        ],
        Family::ClusterBarriers => vec![
            entry("barrier.cluster.arrive", Instr::ClusterArrive { sem: None }),
            entry("barrier.cluster.wait", Instr::ClusterWait),
        ],
        Family::Mbarrier => vec![
            entry("mbarrier.init", mbar(MbarKind::Init { count: 1 }, n)),
            entry(
                "mbarrier.arrive",
                mbar(
                    MbarKind::Arrive { count: None, expect_tx: None, no_complete: false, drop: false, state: None },
                    n,
                ),
            ),
            entry(
                "arrive.expect_tx",
                mbar(
                    MbarKind::Arrive { count: None, expect_tx: Some(4), no_complete: false, drop: false, state: None },
                    n,
                ),
            ),
            entry("mbarrier.expect_tx", mbar(MbarKind::ExpectTx { bytes: 4 }, n)),
            entry(
                "wait try_wait.parity",
                Instr::Wait {
                    instr: Box::new(mbar(
                        MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None },
                        n,
                    )),
                    until: None,
                },
            ),
            entry("mbarrier.inval", mbar(MbarKind::Inval, n)),
        ],
        Family::Tma => vec![
            entry("cp.async.bulk g→s", bulk_load(n)),
            entry(
                "cp.async.bulk g→s [x+OFFSET]",
                Instr::Ranged { instr: Box::new(bulk_load(n)), at: Some(0), src_at: None, width: None },
            ),
            entry(
                "cp.async.bulk s→g",
                Instr::Bulk {
                    dir: BulkDir::SharedCtaToGlobal,
                    dst: n.global.clone(),
                    src: n.shared.clone(),
                    bytes: 16,
                    mbar: None,
                    multicast: Vec::new(),
                    reduce: None,
                    tensor: false,
                },
            ),
            entry(
                "cp.async.bulk.tensor pair",
                Instr::Bulk {
                    dir: BulkDir::GlobalToSharedClusterPair,
                    dst: n.shared.clone(),
                    src: n.global.clone(),
                    bytes: 16,
                    mbar: Some(n.leader_mbar.clone()),
                    multicast: Vec::new(),
                    reduce: None,
                    tensor: true,
                },
            ),
            entry("commit_group", Instr::BulkCommit),
            entry("wait_group", Instr::BulkWait { n: 0, read: false }),
        ],
        Family::CpAsync => vec![
            entry("cp.async", Instr::CpAsync { dst: n.shared.clone(), src: n.global.clone(), bytes: 4 }),
            entry("commit_group", Instr::CpAsyncCommit),
            entry("wait_group", Instr::CpAsyncWait { n: 0 }),
            entry("wait_all", Instr::CpAsyncWaitAll),
            entry(
                "cp.async.mbarrier.arrive",
                Instr::CpAsyncMbarArrive { bar: n.mbar.clone(), noinc: false, space: Some(AddrSpace::SharedCta) },
            ),
        ],
        Family::StAsync => vec![
            entry(
                "st.async",
                Instr::StAsync {
                    addr: n.peer_shared.clone(),
                    src: Operand::Imm(1),
                    mbar: n.peer_mbar.clone(),
                    red: None,
                },
            ),
            entry(
                "red.async.add",
                Instr::StAsync {
                    addr: n.peer_shared.clone(),
                    src: Operand::Imm(1),
                    mbar: n.peer_mbar.clone(),
                    red: Some(AtomOp::Add),
                },
            ),
        ],
        Family::Wgmma => vec![
            entry("wgmma.fence", Instr::Wgmma(WgmmaOp::Fence)),
            entry(
                "wgmma.mma_async",
                Instr::Wgmma(WgmmaOp::MmaAsync { acc: "acc".into(), a: n.shared.clone(), b: n.shared.clone() }),
            ),
            entry("commit_group", Instr::Wgmma(WgmmaOp::CommitGroup)),
            entry("wait_group", Instr::Wgmma(WgmmaOp::WaitGroup { n: 0 })),
        ],
        Family::Tcgen05 => vec![
            entry(
                "tcgen05.mma",
                Instr::Tc(TcOp::Mma { d: n.tmem.clone(), a: n.shared.clone(), b: n.shared.clone(), cta_group: 1 }),
            ),
            entry("tcgen05.commit", Instr::Tc(TcOp::Commit { bar: n.mbar.clone(), multicast: Vec::new(), cta_group: 1 })),
            entry(
                "tcgen05.mma pair",
                Instr::Tc(TcOp::MmaPair {
                    leader: MmaHalf { d: n.tmem.clone(), a: n.shared.clone(), b: n.shared.clone() },
                    peer: MmaHalf { d: n.pair_tmem.clone(), a: n.pair_shared.clone(), b: n.pair_shared.clone() },
                }),
            ),
            entry(
                "tcgen05.commit pair",
                Instr::Tc(TcOp::Commit { bar: n.mbar.clone(), multicast: vec![n.pair_mbar.clone()], cta_group: 2 }),
            ),
            entry("tcgen05.ld", Instr::Tc(TcOp::Ld { dst: n.reg.clone(), src: n.tmem.clone() })),
            entry("tcgen05.wait::ld", Instr::Tc(TcOp::WaitLd)),
            entry("fence::before_thread_sync", Instr::Tc(TcOp::FenceBeforeThreadSync)),
            entry("fence::after_thread_sync", Instr::Tc(TcOp::FenceAfterThreadSync)),
        ],
    }
}
