//! A proptest strategy for structurally valid scenarios and share payloads, covering
//! every instruction kind and arbitrary (including hostile) names.

use fencelab::check::Mode;
use fencelab::link::{LessonRef, Panels, SharePayload, Theme, TraceRef, UiOptions, ViewState};
use fencelab::model::*;
use fencelab::schedule::{Schedule, Step};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::strategy::Union;

/// One boxed strategy per listed kind, so that kinds can be enumerated as well as mixed.
macro_rules! each_kind {
    ($($kind:expr),+ $(,)?) => { vec![$(Strategy::boxed($kind)),+] };
}

/// Any text, biased towards markup and quoting characters.
pub fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,6}",
        "[<>&\"'/ ;a-z()]{0,10}",
        ".{0,8}",
        Just("<script>alert(1)</script>".to_string()),
    ]
}

fn operand() -> impl Strategy<Value = Operand> {
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

fn proxy() -> impl Strategy<Value = Proxy> {
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

fn cmp_op() -> impl Strategy<Value = CmpOp> {
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
        (inner, option::of((cmp_op(), operand()))).prop_map(|(instr, until)| Instr::Wait {
            instr: Box::new(instr),
            until: until.map(|(op, value)| WaitTarget { op, value }),
        })
    })
}

fn term() -> impl Strategy<Value = Term> {
    prop_oneof![
        any::<i64>().prop_map(Term::Imm),
        (name(), name()).prop_map(|(thread, reg)| Term::Reg { thread, reg }),
        name().prop_map(Term::Mem),
    ]
}

fn cond() -> impl Strategy<Value = Cond> {
    let leaf = prop_oneof![
        Just(Cond::True),
        (term(), cmp_op(), term()).prop_map(|(a, op, b)| Cond::Cmp(a, op, b))
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| Cond::Not(Box::new(c))),
            vec(inner.clone(), 0..3).prop_map(Cond::And),
            vec(inner, 0..3).prop_map(Cond::Or),
        ]
    })
}

fn final_condition() -> impl Strategy<Value = FinalCondition> {
    let quantifier = prop_oneof![
        Just(Quantifier::Exists),
        Just(Quantifier::NotExists),
        Just(Quantifier::Forall)
    ];
    (quantifier, cond()).prop_map(|(quantifier, cond)| FinalCondition { quantifier, cond })
}

fn expect() -> impl Strategy<Value = Expect> {
    prop_oneof![
        Just(Expect::Correct),
        Just(Expect::Race),
        Just(Expect::Deadlock),
        Just(Expect::Undefined)
    ]
}

/// A scenario whose cluster and CTA indices are all in range.
pub fn scenario() -> impl Strategy<Value = Scenario> {
    (1usize..3, 1usize..4).prop_flat_map(|(clusters, ctas)| {
        let cluster = (name(), 0u32..2).prop_map(|(name, gpu)| Cluster { name, gpu });
        let cta = (name(), 0..clusters).prop_map(|(name, cluster)| Cta { name, cluster });
        let space = prop_oneof![
            Just(Space::Global),
            (0..ctas).prop_map(Space::Shared),
            (0..ctas).prop_map(Space::Tmem)
        ];
        let alias = (name(), proxy()).prop_map(|(target, proxy)| Alias { target, proxy });
        let location = (name(), space, any::<u32>(), any::<i64>(), option::of(alias)).prop_map(
            |(name, space, size, init, alias)| Location { name, space, size, init, alias },
        );
        let mbarrier = (name(), 0..ctas, option::of(any::<u32>()))
            .prop_map(|(name, cta, count)| Mbarrier { name, cta, count });
        let thread = (name(), 0..ctas, any::<u32>(), vec(instr(), 0..6))
            .prop_map(|(name, cta, lanes, program)| Thread { name, cta, lanes, program });
        (
            (option::of(name()), vec(cluster, clusters), vec(cta, ctas)),
            (vec(location, 0..4), vec(mbarrier, 0..3), vec(thread, 0..4)),
            (option::of(expect()), vec(final_condition(), 0..3)),
        )
            .prop_map(
                |(
                    (title, clusters, ctas),
                    (locations, mbarriers, threads),
                    (expect, conditions),
                )| {
                    Scenario {
                        title,
                        clusters,
                        ctas,
                        locations,
                        mbarriers,
                        threads,
                        expect,
                        conditions,
                    }
                },
            )
    })
}

fn view() -> impl Strategy<Value = ViewState> {
    let mode = prop_oneof![Just(Mode::Strict), Just(Mode::Pragmatic)];
    let step = (any::<u32>(), any::<u32>()).prop_map(|(agent, choice)| Step { agent, choice });
    let trace = prop_oneof![
        any::<u32>().prop_map(TraceRef::Finding),
        vec(step, 0..20).prop_map(|steps| TraceRef::Schedule(Schedule { steps })),
    ];
    let lesson = (name(), any::<u32>()).prop_map(|(id, block)| LessonRef { id, block });
    let theme = prop_oneof![Just(Theme::System), Just(Theme::Light), Just(Theme::Dark)];
    let panels = any::<u32>().prop_map(Panels::from_bits);
    (mode, option::of(trace), option::of(any::<u32>()), option::of(lesson), panels, theme).prop_map(
        |(mode, trace, step, lesson, panels, theme)| ViewState {
            mode,
            trace,
            step,
            lesson,
            ui: UiOptions { panels, theme },
        },
    )
}

pub fn payload() -> impl Strategy<Value = SharePayload> {
    (scenario(), view()).prop_map(|(scenario, view)| SharePayload { scenario, view })
}
