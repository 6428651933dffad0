//! Proptest strategies for instructions: one per leaf kind, so that tests can mix them
//! uniformly or draw a sample of each.

use fencelab::model::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::strategy::Union;

use crate::arb_scenario::name;

/// One boxed strategy per listed kind, so that kinds can be enumerated as well as mixed.
macro_rules! each_kind {
    ($($kind:expr),+ $(,)?) => { vec![$(Strategy::boxed($kind)),+] };
}

pub fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![any::<i64>().prop_map(Operand::Imm), name().prop_map(Operand::Reg)]
}

fn sem() -> impl Strategy<Value = Sem> {
    prop_oneof![
        Just(Sem::Weak),
        Just(Sem::Relaxed),
        Just(Sem::Acquire),
        Just(Sem::Release),
        Just(Sem::AcqRel),
        Just(Sem::Volatile),
        Just(Sem::Mmio),
    ]
}

fn scope() -> impl Strategy<Value = Scope> {
    prop_oneof![Just(Scope::Cta), Just(Scope::Cluster), Just(Scope::Gpu), Just(Scope::Sys)]
}

fn addr_space() -> impl Strategy<Value = AddrSpace> {
    prop_oneof![Just(AddrSpace::Global), Just(AddrSpace::SharedCta), Just(AddrSpace::SharedCluster)]
}

pub fn proxy() -> impl Strategy<Value = Proxy> {
    prop_oneof![
        Just(Proxy::Generic),
        Just(Proxy::Async),
        Just(Proxy::Texture),
        Just(Proxy::Surface),
        Just(Proxy::Constant),
        Just(Proxy::Tensormap),
    ]
}

fn atom_op() -> impl Strategy<Value = AtomOp> {
    prop_oneof![
        Just(AtomOp::Add),
        Just(AtomOp::Inc),
        Just(AtomOp::Dec),
        Just(AtomOp::Exch),
        Just(AtomOp::Max),
        Just(AtomOp::Min),
        Just(AtomOp::And),
        Just(AtomOp::Or),
        Just(AtomOp::Xor),
        Just(AtomOp::Cas),
    ]
}

fn fence_sem() -> impl Strategy<Value = FenceSem> {
    prop_oneof![
        Just(FenceSem::Sc),
        Just(FenceSem::AcqRel),
        Just(FenceSem::Acquire),
        Just(FenceSem::Release)
    ]
}

fn restrict() -> impl Strategy<Value = SyncRestrict> {
    prop_oneof![Just(SyncRestrict::SharedCta), Just(SyncRestrict::SharedCluster)]
}

fn sugar() -> impl Strategy<Value = Sugar> {
    prop_oneof![
        Just(Sugar::SyncThreads),
        Just(Sugar::ThreadFence),
        Just(Sugar::ThreadFenceBlock),
        Just(Sugar::Membar)
    ]
}

pub fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ]
}

fn fences() -> Vec<BoxedStrategy<Fence>> {
    let proxy_kinds: Vec<BoxedStrategy<ProxyKind>> = each_kind![
        Just(ProxyKind::Alias),
        Just(ProxyKind::Texture),
        Just(ProxyKind::Surface),
        Just(ProxyKind::Constant),
        option::of(addr_space()).prop_map(|space| ProxyKind::Async { space }),
        (fence_sem(), restrict())
            .prop_map(|(sem, restrict)| ProxyKind::AsyncGeneric { sem, restrict }),
        (fence_sem(), scope()).prop_map(|(sem, scope)| ProxyKind::Tensormap { sem, scope }),
    ];
    let mut kinds = each_kind![
        (option::of(fence_sem()), scope(), option::of(restrict()), option::of(sugar())).prop_map(
            |(sem, scope, restrict, sugar)| Fence::Thread { sem, scope, restrict, sugar }
        ),
        Just(Fence::MbarrierInit),
    ];
    kinds.extend(proxy_kinds.into_iter().map(|kind| kind.prop_map(Fence::Proxy).boxed()));
    kinds
}

fn mbar_kinds() -> Vec<BoxedStrategy<MbarKind>> {
    each_kind![
        any::<u32>().prop_map(|count| MbarKind::Init { count }),
        Just(MbarKind::Inval),
        any::<u32>().prop_map(|bytes| MbarKind::ExpectTx { bytes }),
        any::<u32>().prop_map(|bytes| MbarKind::CompleteTx { bytes }),
        (option::of(any::<u32>()), option::of(any::<u32>()), any::<bool>(), any::<bool>())
            .prop_flat_map(|(count, expect_tx, no_complete, drop)| {
                option::of(name()).prop_map(move |state| MbarKind::Arrive {
                    count,
                    expect_tx,
                    no_complete,
                    drop,
                    state,
                })
            }),
        (any::<bool>(), any::<bool>(), operand(), option::of(name())).prop_map(
            |(blocking, parity, phase, dst)| MbarKind::Wait { blocking, parity, phase, dst }
        ),
        (name(), name()).prop_map(|(dst, state)| MbarKind::PendingCount { dst, state }),
    ]
}

fn bulk_dir() -> impl Strategy<Value = BulkDir> {
    prop_oneof![
        Just(BulkDir::GlobalToSharedCta),
        Just(BulkDir::GlobalToSharedCluster),
        Just(BulkDir::SharedCtaToSharedCluster),
        Just(BulkDir::SharedCtaToGlobal),
        Just(BulkDir::GlobalToSharedClusterPair),
    ]
}

fn wgmma_ops() -> Vec<BoxedStrategy<WgmmaOp>> {
    each_kind![
        Just(WgmmaOp::Fence),
        (name(), name(), name()).prop_map(|(acc, a, b)| WgmmaOp::MmaAsync { acc, a, b }),
        Just(WgmmaOp::CommitGroup),
        any::<u32>().prop_map(|n| WgmmaOp::WaitGroup { n }),
    ]
}

fn tc_ops() -> Vec<BoxedStrategy<TcOp>> {
    let group = 1u8..=2;
    each_kind![
        (name(), any::<u32>(), group.clone()).prop_map(|(dst, cols, cta_group)| TcOp::Alloc {
            dst,
            cols,
            cta_group
        }),
        (any::<u32>(), group.clone())
            .prop_map(|(cols, cta_group)| TcOp::Dealloc { cols, cta_group }),
        group.clone().prop_map(|cta_group| TcOp::Relinquish { cta_group }),
        (name(), name(), name(), group.clone()).prop_map(|(d, a, b, cta_group)| TcOp::Mma {
            d,
            a,
            b,
            cta_group
        }),
        (name(), name(), group.clone()).prop_map(|(dst, src, cta_group)| TcOp::Cp {
            dst,
            src,
            cta_group
        }),
        (name(), group.clone()).prop_map(|(tmem, cta_group)| TcOp::Shift { tmem, cta_group }),
        ((name(), name(), name()), (name(), name(), name())).prop_map(|((d, a, b), (pd, pa, pb))| TcOp::MmaPair {
            leader: MmaHalf { d, a, b },
            peer: MmaHalf { d: pd, a: pa, b: pb }
        }),
        (name(), name()).prop_map(|(dst, src)| TcOp::Ld { dst, src }),
        (name(), operand()).prop_map(|(dst, src)| TcOp::St { dst, src }),
        (name(), vec(name(), 0..3), group).prop_map(|(bar, multicast, cta_group)| TcOp::Commit {
            bar,
            multicast,
            cta_group
        }),
        Just(TcOp::WaitLd),
        Just(TcOp::WaitSt),
        Just(TcOp::FenceBeforeThreadSync),
        Just(TcOp::FenceAfterThreadSync),
    ]
}

fn memory_instrs() -> Vec<BoxedStrategy<Instr>> {
    let qualifiers = || (option::of(sem()), option::of(scope()), option::of(addr_space()));
    each_kind![
        (qualifiers(), proxy(), name(), name()).prop_map(
            |((sem, scope, space), proxy, dst, addr)| {
                Instr::Ld { sem, scope, space, proxy, dst, addr }
            }
        ),
        (qualifiers(), proxy(), name(), operand()).prop_map(
            |((sem, scope, space), proxy, addr, src)| Instr::St {
                sem,
                scope,
                space,
                proxy,
                addr,
                src
            }
        ),
        (qualifiers(), atom_op(), option::of(name()), name(), vec(operand(), 0..3)).prop_map(
            |((sem, scope, space), op, dst, addr, args)| Instr::Atom {
                op,
                sem,
                scope,
                space,
                dst,
                addr,
                args
            }
        ),
    ]
}

fn sync_instrs() -> Vec<BoxedStrategy<Instr>> {
    let bar_kind = prop_oneof![Just(BarKind::Sync), Just(BarKind::Arrive), Just(BarKind::Red)];
    let mut kinds = each_kind![
        (bar_kind, operand(), option::of(operand()), option::of(sugar()))
            .prop_map(|(kind, id, count, sugar)| Instr::Bar { kind, id, count, sugar }),
        option::of(sem()).prop_map(|sem| Instr::ClusterArrive { sem }),
        Just(Instr::ClusterWait),
    ];
    kinds.extend(fences().into_iter().map(|fence| fence.prop_map(Instr::Fence).boxed()));
    kinds.extend(mbar_kinds().into_iter().map(|kind| {
        (kind, option::of(sem()), option::of(scope()), option::of(addr_space()), name())
            .prop_map(|(kind, sem, scope, space, bar)| {
                Instr::Mbar(MbarOp { kind, sem, scope, space, bar })
            })
            .boxed()
    }));
    kinds
}

fn async_instrs() -> Vec<BoxedStrategy<Instr>> {
    let mut kinds = each_kind![
        (name(), name(), any::<u32>()).prop_map(|(dst, src, bytes)| Instr::CpAsync {
            dst,
            src,
            bytes
        }),
        Just(Instr::CpAsyncCommit),
        any::<u32>().prop_map(|n| Instr::CpAsyncWait { n }),
        Just(Instr::CpAsyncWaitAll),
        (name(), any::<bool>(), option::of(addr_space()))
            .prop_map(|(bar, noinc, space)| Instr::CpAsyncMbarArrive { bar, noinc, space }),
        (
            (bulk_dir(), name(), name(), any::<u32>()),
            (option::of(name()), vec((name(), name()), 0..3), option::of(atom_op()), any::<bool>())
        )
            .prop_map(|((dir, dst, src, bytes), (mbar, multicast, reduce, tensor))| {
                Instr::Bulk { dir, dst, src, bytes, mbar, multicast, reduce, tensor }
            }),
        Just(Instr::BulkCommit),
        (any::<u32>(), any::<bool>()).prop_map(|(n, read)| Instr::BulkWait { n, read }),
        (name(), operand(), name(), option::of(atom_op()))
            .prop_map(|(addr, src, mbar, red)| Instr::StAsync { addr, src, mbar, red }),
    ];
    kinds.extend(wgmma_ops().into_iter().map(|op| op.prop_map(Instr::Wgmma).boxed()));
    kinds.extend(tc_ops().into_iter().map(|op| op.prop_map(Instr::Tc).boxed()));
    kinds
}

fn control_instrs() -> Vec<BoxedStrategy<Instr>> {
    each_kind![
        name().prop_map(Instr::Label),
        (name(), option::of((operand(), cmp_op(), operand())))
            .prop_map(|(target, cond)| Instr::Branch { target, cond }),
        (name(), operand()).prop_map(|(dst, src)| Instr::Mov { dst, src }),
        (name(), operand(), operand()).prop_map(|(dst, a, b)| Instr::Add { dst, a, b }),
        Just(Instr::Exit),
        (name(), cmp_op(), operand(), operand()).prop_map(|(dst, op, a, b)| Instr::SetP { dst, op, a, b }),
    ]
}

/// One strategy per leaf instruction kind (nested kinds such as each `tcgen05` op count
/// separately): every kind is equally likely, and a sample of each can be drawn.
pub fn instr_kinds() -> Vec<BoxedStrategy<Instr>> {
    let mut kinds = memory_instrs();
    kinds.extend(sync_instrs());
    kinds.extend(async_instrs());
    kinds.extend(control_instrs());
    kinds
}

pub fn instr() -> impl Strategy<Value = Instr> {
    Union::new(instr_kinds()).prop_recursive(2, 4, 1, |inner| {
        prop_oneof![
            (inner.clone(), option::of((cmp_op(), operand()))).prop_map(|(instr, until)| Instr::Wait {
                instr: Box::new(instr),
                until: until.map(|(op, value)| WaitTarget { op, value }),
            }),
            (inner.clone(), option::of(any::<u32>()), option::of(any::<u32>()), option::of(any::<u32>())).prop_map(
                |(instr, at, src_at, width)| Instr::Ranged { instr: Box::new(instr), at, src_at, width }
            ),
            (inner, name(), any::<bool>())
                .prop_map(|(instr, pred, negated)| Instr::Guarded { pred, negated, instr: Box::new(instr) }),
        ]
    })
}
