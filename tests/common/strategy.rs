//! A proptest strategy for scenarios in the canonical shape the printer writes: every
//! instruction family, names from small pools, clusters and aliases as the parser builds
//! them. Generated scenarios are syntactically valid (they parse without errors); they are
//! not required to pass the verifier.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use fencelab::model::*;

const REGS: &[&str] = &["r0", "r1", "p", "state"];
const LOCS: &[&str] = &["g0", "g1", "s0", "t0"];
const BARS: &[&str] = &["m0", "m1"];
const LABELS: &[&str] = &["L0", "L1"];

fn pick(pool: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::sample::select(pool).prop_map(str::to_string)
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![any::<i64>().prop_map(Operand::Imm), pick(REGS).prop_map(Operand::Reg)]
}

fn sem() -> impl Strategy<Value = Sem> {
    proptest::sample::select(vec![
        Sem::Weak,
        Sem::Relaxed,
        Sem::Acquire,
        Sem::Release,
        Sem::AcqRel,
        Sem::Volatile,
        Sem::Mmio,
    ])
}

fn mbar_sem() -> impl Strategy<Value = Sem> {
    proptest::sample::select(vec![Sem::Release, Sem::Relaxed, Sem::Acquire, Sem::AcqRel])
}

fn scope() -> impl Strategy<Value = Scope> {
    proptest::sample::select(vec![Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys])
}

fn space() -> impl Strategy<Value = AddrSpace> {
    proptest::sample::select(vec![AddrSpace::Global, AddrSpace::SharedCta, AddrSpace::SharedCluster])
}

fn shared_space() -> impl Strategy<Value = AddrSpace> {
    proptest::sample::select(vec![AddrSpace::SharedCta, AddrSpace::SharedCluster])
}

fn atom_op() -> impl Strategy<Value = AtomOp> {
    proptest::sample::select(vec![
        AtomOp::Add,
        AtomOp::Inc,
        AtomOp::Dec,
        AtomOp::Exch,
        AtomOp::Max,
        AtomOp::Min,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
        AtomOp::Cas,
    ])
}

fn cmp() -> impl Strategy<Value = CmpOp> {
    proptest::sample::select(vec![CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge])
}

fn fence_sem() -> impl Strategy<Value = FenceSem> {
    proptest::sample::select(vec![FenceSem::Sc, FenceSem::AcqRel, FenceSem::Acquire, FenceSem::Release])
}

fn half_sem() -> impl Strategy<Value = FenceSem> {
    proptest::sample::select(vec![FenceSem::Acquire, FenceSem::Release])
}

fn restrict() -> impl Strategy<Value = SyncRestrict> {
    proptest::sample::select(vec![SyncRestrict::SharedCta, SyncRestrict::SharedCluster])
}

fn memory() -> impl Strategy<Value = Instr> {
    let ld = (option::of(sem()), option::of(scope()), option::of(space()), pick(REGS), pick(LOCS), any::<bool>())
        .prop_map(|(sem, scope, space, dst, addr, constant)| {
            let proxy = if constant { Proxy::Constant } else { Proxy::Generic };
            Instr::Ld { sem, scope, space, proxy, dst, addr }
        });
    let tex = (pick(REGS), pick(LOCS), proptest::sample::select(vec![Proxy::Texture, Proxy::Surface]))
        .prop_map(|(dst, addr, proxy)| Instr::Ld { sem: None, scope: None, space: None, proxy, dst, addr });
    let st = (option::of(sem()), option::of(scope()), option::of(space()), pick(LOCS), operand())
        .prop_map(|(sem, scope, space, addr, src)| Instr::St { sem, scope, space, proxy: Proxy::Generic, addr, src });
    let sust = (pick(LOCS), operand()).prop_map(|(addr, src)| Instr::St {
        sem: None,
        scope: None,
        space: None,
        proxy: Proxy::Surface,
        addr,
        src,
    });
    let atom = (
        atom_op(),
        option::of(sem()),
        option::of(scope()),
        option::of(space()),
        option::of(pick(REGS)),
        pick(LOCS),
        operand(),
        operand(),
    )
        .prop_map(|(op, sem, scope, space, dst, addr, a, b)| {
            let op = if dst.is_none() && op == AtomOp::Cas { AtomOp::Add } else { op };
            let args = if op == AtomOp::Cas { vec![a, b] } else { vec![a] };
            Instr::Atom { op, sem, scope, space, dst, addr, args }
        });
    prop_oneof![ld, tex, st, sust, atom]
}

fn fence() -> impl Strategy<Value = Instr> {
    let thread = (option::of(fence_sem()), scope(), option::of(restrict()))
        .prop_map(|(sem, scope, restrict)| Fence::Thread { sem, scope, restrict, sugar: None });
    let sugar = proptest::sample::select(vec![
        (Scope::Gpu, Sugar::ThreadFence),
        (Scope::Cta, Sugar::ThreadFenceBlock),
        (Scope::Cta, Sugar::Membar),
        (Scope::Gpu, Sugar::Membar),
        (Scope::Sys, Sugar::Membar),
    ])
    .prop_map(|(scope, sugar)| Fence::Thread {
        sem: Some(FenceSem::Sc),
        scope,
        restrict: None,
        sugar: Some(sugar),
    });
    let proxy = prop_oneof![
        Just(ProxyKind::Alias),
        Just(ProxyKind::Texture),
        Just(ProxyKind::Surface),
        Just(ProxyKind::Constant),
        option::of(space()).prop_map(|space| ProxyKind::Async { space }),
        (half_sem(), restrict()).prop_map(|(sem, restrict)| ProxyKind::AsyncGeneric { sem, restrict }),
        (half_sem(), scope()).prop_map(|(sem, scope)| ProxyKind::Tensormap { sem, scope }),
    ]
    .prop_map(Fence::Proxy);
    prop_oneof![thread, sugar, Just(Fence::MbarrierInit), proxy].prop_map(Instr::Fence)
}

fn barrier() -> impl Strategy<Value = Instr> {
    let kind = proptest::sample::select(vec![BarKind::Sync, BarKind::Arrive, BarKind::Red]);
    let bar = (kind, operand(), option::of(operand()), operand()).prop_map(|(kind, id, count, arrive_count)| {
        let count = if kind == BarKind::Arrive { Some(count.unwrap_or(arrive_count)) } else { count };
        Instr::Bar { kind, id, count, sugar: None }
    });
    prop_oneof![
        bar,
        Just(Instr::Bar { kind: BarKind::Sync, id: Operand::Imm(0), count: None, sugar: Some(Sugar::SyncThreads) }),
        option::of(proptest::sample::select(vec![Sem::Release, Sem::Relaxed]))
            .prop_map(|sem| Instr::ClusterArrive { sem }),
        Just(Instr::ClusterWait),
    ]
}

fn mbar_wait() -> impl Strategy<Value = MbarKind> {
    (any::<bool>(), any::<bool>(), operand(), option::of(pick(REGS)))
        .prop_map(|(blocking, parity, phase, dst)| MbarKind::Wait { blocking, parity, phase, dst })
}

fn mbarrier() -> impl Strategy<Value = Instr> {
    let arrive =
        (option::of(any::<u32>()), option::of(any::<u32>()), any::<bool>(), any::<bool>(), option::of(pick(REGS)))
            .prop_map(|(count, expect_tx, no_complete, drop, state)| {
                let count = if expect_tx.is_some() { None } else { count };
                MbarKind::Arrive { count, expect_tx, no_complete, drop, state }
            });
    let timed = prop_oneof![
        any::<u32>().prop_map(|bytes| MbarKind::ExpectTx { bytes }),
        any::<u32>().prop_map(|bytes| MbarKind::CompleteTx { bytes }),
        arrive,
        mbar_wait(),
    ];
    let with_sem = (timed, option::of(mbar_sem()), option::of(scope()), option::of(shared_space()), pick(BARS))
        .prop_map(|(kind, sem, scope, space, bar)| Instr::Mbar(MbarOp { kind, sem, scope, space, bar }));
    let plain = (
        prop_oneof![any::<u32>().prop_map(|count| MbarKind::Init { count }), Just(MbarKind::Inval)],
        option::of(shared_space()),
        pick(BARS),
    )
        .prop_map(|(kind, space, bar)| Instr::Mbar(MbarOp { kind, sem: None, scope: None, space, bar }));
    let pending = (pick(REGS), pick(REGS)).prop_map(|(dst, state)| {
        Instr::Mbar(MbarOp {
            kind: MbarKind::PendingCount { dst, state },
            sem: None,
            scope: None,
            space: None,
            bar: String::new(),
        })
    });
    prop_oneof![with_sem, plain, pending]
}

fn copies() -> impl Strategy<Value = Instr> {
    let dir = proptest::sample::select(vec![
        BulkDir::GlobalToSharedCta,
        BulkDir::GlobalToSharedCluster,
        BulkDir::SharedCtaToSharedCluster,
        BulkDir::SharedCtaToGlobal,
    ]);
    let reduce_op = proptest::sample::select(vec![
        AtomOp::Add,
        AtomOp::Min,
        AtomOp::Max,
        AtomOp::Inc,
        AtomOp::Dec,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
    ]);
    let bulk = (
        dir,
        pick(LOCS),
        pick(LOCS),
        any::<u32>(),
        option::of(pick(BARS)),
        vec((pick(LOCS), pick(BARS)), 0..3),
        option::of(reduce_op),
        any::<bool>(),
    )
        .prop_map(|(dir, dst, src, bytes, mbar, multicast, reduce, tensor)| {
            let multicast = if mbar.is_some() { multicast } else { Vec::new() };
            Instr::Bulk { dir, dst, src, bytes, mbar, multicast, reduce, tensor }
        });
    prop_oneof![
        (pick(LOCS), pick(LOCS), any::<u32>()).prop_map(|(dst, src, bytes)| Instr::CpAsync { dst, src, bytes }),
        Just(Instr::CpAsyncCommit),
        any::<u32>().prop_map(|n| Instr::CpAsyncWait { n }),
        Just(Instr::CpAsyncWaitAll),
        (pick(BARS), any::<bool>(), option::of(shared_space()))
            .prop_map(|(bar, noinc, space)| Instr::CpAsyncMbarArrive { bar, noinc, space }),
        bulk,
        Just(Instr::BulkCommit),
        (any::<u32>(), any::<bool>()).prop_map(|(n, read)| Instr::BulkWait { n, read }),
        (pick(LOCS), operand(), pick(BARS), option::of(atom_op())).prop_map(|(addr, src, mbar, red)| Instr::StAsync {
            addr,
            src,
            mbar,
            red
        }),
    ]
}

fn tensor() -> impl Strategy<Value = Instr> {
    let group = proptest::sample::select(vec![1u8, 2]);
    let wgmma = prop_oneof![
        Just(WgmmaOp::Fence),
        (pick(REGS), pick(LOCS), pick(LOCS)).prop_map(|(acc, a, b)| WgmmaOp::MmaAsync { acc, a, b }),
        Just(WgmmaOp::CommitGroup),
        any::<u32>().prop_map(|n| WgmmaOp::WaitGroup { n }),
    ]
    .prop_map(Instr::Wgmma);
    let tc = prop_oneof![
        (pick(LOCS), any::<u32>(), group.clone()).prop_map(|(dst, cols, cta_group)| TcOp::Alloc {
            dst,
            cols,
            cta_group
        }),
        (any::<u32>(), group.clone()).prop_map(|(cols, cta_group)| TcOp::Dealloc { cols, cta_group }),
        group.clone().prop_map(|cta_group| TcOp::Relinquish { cta_group }),
        (pick(LOCS), pick(LOCS), pick(LOCS), group.clone()).prop_map(|(d, a, b, cta_group)| TcOp::Mma {
            d,
            a,
            b,
            cta_group
        }),
        (pick(LOCS), pick(LOCS), group.clone()).prop_map(|(dst, src, cta_group)| TcOp::Cp { dst, src, cta_group }),
        (pick(LOCS), group.clone()).prop_map(|(tmem, cta_group)| TcOp::Shift { tmem, cta_group }),
        (pick(REGS), pick(LOCS)).prop_map(|(dst, src)| TcOp::Ld { dst, src }),
        (pick(LOCS), operand()).prop_map(|(dst, src)| TcOp::St { dst, src }),
        (pick(BARS), vec(pick(BARS), 0..3), group).prop_map(|(bar, multicast, cta_group)| TcOp::Commit {
            bar,
            multicast,
            cta_group
        }),
        Just(TcOp::WaitLd),
        Just(TcOp::WaitSt),
        Just(TcOp::FenceBeforeThreadSync),
        Just(TcOp::FenceAfterThreadSync),
    ]
    .prop_map(Instr::Tc);
    prop_oneof![wgmma, tc]
}

fn control() -> impl Strategy<Value = Instr> {
    prop_oneof![
        pick(LABELS).prop_map(Instr::Label),
        (pick(LABELS), option::of((operand(), cmp(), operand())))
            .prop_map(|(target, cond)| Instr::Branch { target, cond }),
        (pick(REGS), operand()).prop_map(|(dst, src)| Instr::Mov { dst, src }),
        (pick(REGS), operand(), operand()).prop_map(|(dst, a, b)| Instr::Add { dst, a, b }),
        Just(Instr::Exit),
    ]
}

fn spin() -> impl Strategy<Value = Instr> {
    let on_barrier = (mbar_wait(), option::of(mbar_sem()), option::of(scope()), option::of(shared_space()), pick(BARS))
        .prop_map(|(kind, sem, scope, space, bar)| Instr::Wait {
            instr: Box::new(Instr::Mbar(MbarOp { kind, sem, scope, space, bar })),
            until: None,
        });
    let on_load = (option::of(sem()), option::of(scope()), pick(REGS), pick(LOCS), cmp(), operand()).prop_map(
        |(sem, scope, dst, addr, op, value)| Instr::Wait {
            instr: Box::new(Instr::Ld { sem, scope, space: None, proxy: Proxy::Generic, dst, addr }),
            until: Some(WaitTarget { op, value }),
        },
    );
    prop_oneof![on_barrier, on_load]
}

pub fn instr() -> impl Strategy<Value = Instr> {
    prop_oneof![memory(), fence(), barrier(), mbarrier(), copies(), tensor(), control(), spin()]
}

fn term() -> impl Strategy<Value = Term> {
    prop_oneof![
        any::<i64>().prop_map(Term::Imm),
        (pick(&["t0", "t1"]), pick(REGS)).prop_map(|(thread, reg)| Term::Reg { thread, reg }),
        pick(LOCS).prop_map(Term::Mem),
    ]
}

pub fn cond() -> impl Strategy<Value = Cond> {
    let leaf = prop_oneof![Just(Cond::True), (term(), cmp(), term()).prop_map(|(a, op, b)| Cond::Cmp(a, op, b))];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| Cond::Not(Box::new(c))),
            vec(inner.clone(), 2..4).prop_map(Cond::And),
            vec(inner, 2..4).prop_map(Cond::Or),
        ]
    })
}

/// Builds the machine the way the parser does: explicit clusters first, then one
/// implicit cluster (named after its CTA) per CTA declared without `in`.
fn machine(explicit: Vec<u32>, placements: Vec<Option<usize>>) -> (Vec<Cluster>, Vec<Cta>) {
    let mut clusters: Vec<Cluster> =
        explicit.iter().enumerate().map(|(i, gpu)| Cluster { name: format!("C{i}"), gpu: *gpu }).collect();
    let explicit_count = clusters.len();
    let mut ctas = Vec::new();
    for (i, place) in placements.into_iter().enumerate() {
        let name = format!("A{i}");
        let cluster = match place.filter(|_| explicit_count > 0) {
            Some(c) => c % explicit_count,
            None => {
                clusters.push(Cluster { name: name.clone(), gpu: 0 });
                clusters.len() - 1
            }
        };
        ctas.push(Cta { name, cluster });
    }
    (clusters, ctas)
}

#[derive(Clone, Debug)]
enum LocKind {
    Global,
    Shared(usize),
    Tmem(usize),
    Alias(usize, Proxy),
}

pub fn scenario() -> impl Strategy<Value = Scenario> {
    let title = option::of("[A-Za-z][A-Za-z0-9 ,()-]{0,30}[A-Za-z0-9)]");
    let machine_parts = (vec(0u32..3, 0..3), vec(option::of(0usize..3), 1..4));
    let loc_kind = prop_oneof![
        Just(LocKind::Global),
        (0usize..4).prop_map(LocKind::Shared),
        (0usize..4).prop_map(LocKind::Tmem),
        (0usize..4, proptest::sample::select(vec![Proxy::Generic, Proxy::Texture, Proxy::Surface, Proxy::Constant]))
            .prop_map(|(t, p)| LocKind::Alias(t, p)),
    ];
    let locations = vec((loc_kind, any::<i64>(), any::<u32>()), 0..4);
    let mbarriers = vec((0usize..4, option::of(any::<u32>())), 0..3);
    let threads = vec((0usize..4, any::<u32>(), vec(instr(), 0..12)), 0..3);
    let verdict = || proptest::sample::select(vec![Expect::Correct, Expect::Race, Expect::Deadlock, Expect::Undefined]);
    // What the parser accepts: nothing, one line for every mode, or one per mode.
    let expect = prop_oneof![
        Just(Vec::new()),
        verdict().prop_map(|v| vec![Expectation::every_mode(v)]),
        (verdict(), verdict()).prop_map(|(s, p)| vec![
            Expectation { mode: Some(Mode::Strict), verdict: s },
            Expectation { mode: Some(Mode::Pragmatic), verdict: p },
        ]),
    ];
    let quantifier = proptest::sample::select(vec![Quantifier::Exists, Quantifier::NotExists, Quantifier::Forall]);
    let conditions = vec((quantifier, cond()).prop_map(|(quantifier, cond)| FinalCondition { quantifier, cond }), 0..3);
    (title, machine_parts, locations, mbarriers, threads, expect, conditions).prop_map(
        |(title, (explicit, placements), locs, bars, threads, expect, conditions)| {
            let (clusters, ctas) = machine(explicit, placements);
            let cta = |i: usize| i % ctas.len();
            let mut locations: Vec<Location> = Vec::new();
            for (i, (kind, init, size)) in locs.into_iter().enumerate() {
                let name = LOCS.get(i).map_or_else(|| format!("x{i}"), |n| n.to_string());
                let plain = |space| Location { name: name.clone(), space, size, init, alias: None };
                let loc = match kind {
                    LocKind::Global => plain(Space::Global),
                    LocKind::Shared(c) => plain(Space::Shared(cta(c))),
                    LocKind::Tmem(c) => plain(Space::Tmem(cta(c))),
                    LocKind::Alias(t, proxy) => {
                        match locations.iter().filter(|l| l.alias.is_none()).nth(t % locations.len().max(1)) {
                            Some(target) => Location {
                                name: name.clone(),
                                space: target.space,
                                size: target.size,
                                init: target.init,
                                alias: Some(Alias { target: target.name.clone(), proxy }),
                            },
                            None => plain(Space::Global),
                        }
                    }
                };
                locations.push(loc);
            }
            let mbarriers = bars
                .into_iter()
                .enumerate()
                .map(|(i, (c, count))| Mbarrier { name: format!("m{i}"), cta: cta(c), count })
                .collect();
            let threads = threads
                .into_iter()
                .enumerate()
                .map(|(i, (c, lanes, program))| Thread { name: format!("t{i}"), cta: cta(c), lanes, program })
                .collect();
            Scenario { title, clusters, ctas, locations, mbarriers, threads, expect, conditions }
        },
    )
}
