//! The strengthening edits the search tries: widen a scope, raise a semantics, insert a
//! fence (restricted and proxy forms too), a wait, a `wait_group.read` or a tcgen05 fence,
//! add an `expect_tx`, correct a byte count, a count or a parity, move an instruction
//! (an arrive past a read). Every match over instruction kinds is exhaustive.

use super::change::Change;
use crate::model::{
    AddrSpace, Fence, FenceSem, Instr, MbarKind, MbarOp, Operand, ProxyKind, Scenario, Scope, Sem, SyncRestrict, TcOp, WgmmaOp,
};

/// What the scenario uses, so only instructions that can matter are inserted.
struct Features {
    clusters: bool,
    cp_async: bool,
    bulk: bool,
    wgmma: bool,
    tcgen05: bool,
    async_proxy: bool,
    mbarrier_init: bool,
    /// Byte counts that could complete a transaction: copy sizes and their sums per barrier.
    tx_bytes: Vec<u32>,
}

fn features(scenario: &Scenario) -> Features {
    let mut f = Features {
        clusters: scenario.has_clusters(),
        cp_async: false,
        bulk: false,
        wgmma: false,
        tcgen05: false,
        async_proxy: false,
        mbarrier_init: false,
        tx_bytes: Vec::new(),
    };
    let mut per_bar: Vec<(String, u32)> = Vec::new();
    let add_tx = |bar: &str, bytes: u32, per_bar: &mut Vec<(String, u32)>| match per_bar.iter_mut().find(|(b, _)| b == bar) {
        Some((_, sum)) => *sum = sum.saturating_add(bytes),
        None => per_bar.push((bar.to_string(), bytes)),
    };
    for instr in scenario.threads.iter().flat_map(|t| &t.program) {
        let instr = match instr {
            Instr::Wait { instr, .. } => instr.as_ref(),
            other => other,
        };
        match instr {
            Instr::CpAsync { .. } | Instr::CpAsyncCommit | Instr::CpAsyncWait { .. } | Instr::CpAsyncWaitAll | Instr::CpAsyncMbarArrive { .. } => {
                f.cp_async = true;
                f.async_proxy = true;
            }
            Instr::Bulk { bytes, mbar, multicast, .. } => {
                f.bulk = true;
                f.async_proxy = true;
                f.tx_bytes.push(*bytes);
                if let Some(bar) = mbar {
                    add_tx(bar, *bytes, &mut per_bar);
                }
                for (_, bar) in multicast {
                    add_tx(bar, *bytes, &mut per_bar);
                }
            }
            Instr::BulkCommit | Instr::BulkWait { .. } => f.bulk = true,
            Instr::StAsync { addr, mbar, .. } => {
                f.async_proxy = true;
                let size = scenario.location(addr).and_then(|l| scenario.locations.get(l)).map_or(0, |l| l.size);
                f.tx_bytes.push(size);
                add_tx(mbar, size, &mut per_bar);
            }
            Instr::Wgmma(_) => {
                f.wgmma = true;
                f.async_proxy = true;
            }
            Instr::Tc(_) => {
                f.tcgen05 = true;
                f.async_proxy = true;
            }
            Instr::Mbar(MbarOp { kind: MbarKind::Init { .. }, .. }) => f.mbarrier_init = true,
            Instr::Mbar(MbarOp { kind: MbarKind::ExpectTx { bytes } | MbarKind::CompleteTx { bytes }, .. }) => f.tx_bytes.push(*bytes),
            Instr::Ld { proxy, .. } | Instr::St { proxy, .. } => f.async_proxy |= *proxy != crate::model::Proxy::Generic,
            Instr::Mbar(_)
            | Instr::Atom { .. }
            | Instr::Fence(_)
            | Instr::Bar { .. }
            | Instr::ClusterArrive { .. }
            | Instr::ClusterWait
            | Instr::Label(_)
            | Instr::Branch { .. }
            | Instr::Mov { .. }
            | Instr::Add { .. }
            | Instr::Wait { .. }
            | Instr::Exit => {}
        }
    }
    f.tx_bytes.extend(per_bar.into_iter().map(|(_, sum)| sum));
    f.tx_bytes.retain(|b| *b > 0);
    f.tx_bytes.sort_unstable();
    f.tx_bytes.dedup();
    f
}

fn thread_fence(sem: FenceSem, scope: Scope, restrict: Option<SyncRestrict>) -> Instr {
    Instr::Fence(Fence::Thread { sem: Some(sem), scope, restrict, sugar: None })
}

fn scopes(f: &Features) -> Vec<Scope> {
    if f.clusters {
        vec![Scope::Cta, Scope::Cluster, Scope::Gpu]
    } else {
        vec![Scope::Cta, Scope::Gpu]
    }
}

/// Instructions worth inserting into `thread` of `scenario`.
fn insertable(scenario: &Scenario, thread: usize, f: &Features) -> Vec<Instr> {
    let mut out = Vec::new();
    for scope in scopes(f) {
        for sem in [FenceSem::Release, FenceSem::Acquire, FenceSem::AcqRel, FenceSem::Sc] {
            out.push(thread_fence(sem, scope, None));
        }
    }
    if f.clusters {
        out.push(thread_fence(FenceSem::Release, Scope::Cluster, Some(SyncRestrict::SharedCta)));
        out.push(thread_fence(FenceSem::Acquire, Scope::Cluster, Some(SyncRestrict::SharedCluster)));
    }
    if f.async_proxy {
        let mut spaces = vec![None, Some(AddrSpace::Global), Some(AddrSpace::SharedCta)];
        if f.clusters {
            spaces.push(Some(AddrSpace::SharedCluster));
            out.push(Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { sem: FenceSem::Release, restrict: SyncRestrict::SharedCta })));
            out.push(Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { sem: FenceSem::Acquire, restrict: SyncRestrict::SharedCluster })));
        }
        out.extend(spaces.into_iter().map(|space| Instr::Fence(Fence::Proxy(ProxyKind::Async { space }))));
    }
    if f.mbarrier_init {
        out.push(Instr::Fence(Fence::MbarrierInit));
    }
    if f.tcgen05 {
        out.extend([TcOp::FenceBeforeThreadSync, TcOp::FenceAfterThreadSync, TcOp::WaitLd, TcOp::WaitSt].map(Instr::Tc));
    }
    if f.cp_async {
        out.extend([Instr::CpAsyncCommit, Instr::CpAsyncWait { n: 0 }, Instr::CpAsyncWaitAll]);
    }
    if f.bulk {
        out.extend([Instr::BulkCommit, Instr::BulkWait { n: 0, read: true }, Instr::BulkWait { n: 0, read: false }]);
    }
    if f.wgmma {
        out.extend([WgmmaOp::Fence, WgmmaOp::CommitGroup, WgmmaOp::WaitGroup { n: 0 }].map(Instr::Wgmma));
    }
    let cta = scenario.threads.get(thread).map(|t| t.cta);
    for bar in &scenario.mbarriers {
        let space = if Some(bar.cta) == cta { AddrSpace::SharedCta } else { AddrSpace::SharedCluster };
        for bytes in &f.tx_bytes {
            out.push(Instr::Mbar(MbarOp { kind: MbarKind::ExpectTx { bytes: *bytes }, sem: None, scope: None, space: Some(space), bar: bar.name.clone() }));
        }
    }
    out
}

/// Stronger (or differently placed) versions of a memory operation's ordering.
fn access_orders(sem: Option<Sem>, scope: Option<Scope>, sems: &[Sem], f: &Features) -> Vec<(Option<Sem>, Option<Scope>)> {
    let mut out = Vec::new();
    for s in sems {
        for sc in scopes(f) {
            if (Some(*s), Some(sc)) != (sem, scope) {
                out.push((Some(*s), Some(sc)));
            }
        }
    }
    out
}

/// Replacements for one instruction.
fn replacements(instr: &Instr, f: &Features) -> Vec<Instr> {
    let mut out = Vec::new();
    match instr {
        Instr::Ld { sem, scope, space, proxy, dst, addr } => {
            for (s, sc) in access_orders(*sem, *scope, &[Sem::Relaxed, Sem::Acquire], f) {
                out.push(Instr::Ld { sem: s, scope: sc, space: *space, proxy: *proxy, dst: dst.clone(), addr: addr.clone() });
            }
        }
        Instr::St { sem, scope, space, proxy, addr, src } => {
            for (s, sc) in access_orders(*sem, *scope, &[Sem::Relaxed, Sem::Release], f) {
                out.push(Instr::St { sem: s, scope: sc, space: *space, proxy: *proxy, addr: addr.clone(), src: src.clone() });
            }
        }
        Instr::Atom { op, sem, scope, space, dst, addr, args } => {
            let sems: &[Sem] = if dst.is_some() { &[Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel] } else { &[Sem::Relaxed, Sem::Release] };
            for (s, sc) in access_orders(*sem, *scope, sems, f) {
                out.push(Instr::Atom { op: *op, sem: s, scope: sc, space: *space, dst: dst.clone(), addr: addr.clone(), args: args.clone() });
            }
        }
        Instr::Fence(Fence::Thread { sem, scope, restrict, .. }) => {
            for s in [FenceSem::Release, FenceSem::Acquire, FenceSem::AcqRel, FenceSem::Sc] {
                for sc in scopes(f) {
                    if (Some(s), sc, None) != (*sem, *scope, *restrict) {
                        out.push(thread_fence(s, sc, None));
                    }
                }
            }
        }
        Instr::Fence(Fence::Proxy(ProxyKind::Async { space })) => {
            for other in [None, Some(AddrSpace::Global), Some(AddrSpace::SharedCta), Some(AddrSpace::SharedCluster)] {
                if other != *space {
                    out.push(Instr::Fence(Fence::Proxy(ProxyKind::Async { space: other })));
                }
            }
        }
        Instr::Fence(Fence::Proxy(
            ProxyKind::Alias | ProxyKind::Texture | ProxyKind::Surface | ProxyKind::Constant | ProxyKind::AsyncGeneric { .. } | ProxyKind::Tensormap { .. },
        ))
        | Instr::Fence(Fence::MbarrierInit) => {}
        Instr::ClusterArrive { sem } => {
            let other = if *sem == Some(Sem::Relaxed) { None } else { Some(Sem::Relaxed) };
            out.push(Instr::ClusterArrive { sem: other });
        }
        Instr::Mbar(op) => mbarrier(op, f, &mut out),
        Instr::CpAsyncWait { n } => out.extend((0..*n).map(|k| Instr::CpAsyncWait { n: k })),
        Instr::BulkWait { n, read } => {
            out.extend((0..*n).map(|k| Instr::BulkWait { n: k, read: *read }));
            if *read {
                out.push(Instr::BulkWait { n: *n, read: false });
            }
        }
        Instr::Wgmma(WgmmaOp::WaitGroup { n }) => out.extend((0..*n).map(|k| Instr::Wgmma(WgmmaOp::WaitGroup { n: k }))),
        Instr::Wgmma(WgmmaOp::Fence | WgmmaOp::MmaAsync { .. } | WgmmaOp::CommitGroup) => {}
        Instr::Bulk { dir, dst, src, bytes, mbar, multicast, reduce, tensor } => {
            for b in f.tx_bytes.iter().filter(|b| *b != bytes) {
                out.push(Instr::Bulk {
                    dir: *dir,
                    dst: dst.clone(),
                    src: src.clone(),
                    bytes: *b,
                    mbar: mbar.clone(),
                    multicast: multicast.clone(),
                    reduce: *reduce,
                    tensor: *tensor,
                });
            }
        }
        Instr::Wait { instr: inner, until } => {
            out.extend(replacements(inner, f).into_iter().map(|new| Instr::Wait { instr: Box::new(new), until: until.clone() }));
        }
        // Barriers, copies and tensor ops have nothing to strengthen in place.
        Instr::Bar { .. }
        | Instr::ClusterWait
        | Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::BulkCommit
        | Instr::StAsync { .. }
        | Instr::Tc(_)
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::Exit => {}
    }
    out
}

fn mbarrier(op: &MbarOp, f: &Features, out: &mut Vec<Instr>) {
    let with_kind = |kind: MbarKind| Instr::Mbar(MbarOp { kind, ..op.clone() });
    let with_order = |sem: Sem, scope: Scope| Instr::Mbar(MbarOp { sem: Some(sem), scope: Some(scope), ..op.clone() });
    let orders = |sems: [Sem; 2], out: &mut Vec<Instr>| {
        for s in sems {
            for sc in [Scope::Cta, Scope::Cluster] {
                if (sc == Scope::Cta || f.clusters) && (Some(s), Some(sc)) != (op.sem, op.scope) {
                    out.push(with_order(s, sc));
                }
            }
        }
    };
    let plus_minus = |n: u32| [n.saturating_sub(1), n.saturating_add(1)].into_iter().filter(move |m| *m != n && *m > 0);
    match &op.kind {
        MbarKind::Init { count } => out.extend(plus_minus(*count).map(|c| with_kind(MbarKind::Init { count: c }))),
        MbarKind::ExpectTx { bytes } => {
            out.extend(f.tx_bytes.iter().filter(|b| *b != bytes).map(|b| with_kind(MbarKind::ExpectTx { bytes: *b })))
        }
        MbarKind::CompleteTx { bytes } => {
            out.extend(f.tx_bytes.iter().filter(|b| *b != bytes).map(|b| with_kind(MbarKind::CompleteTx { bytes: *b })))
        }
        MbarKind::Arrive { count, expect_tx, no_complete, drop, state } => {
            orders([Sem::Release, Sem::Relaxed], out);
            let arrive = |count: Option<u32>, expect_tx: Option<u32>| {
                with_kind(MbarKind::Arrive { count, expect_tx, no_complete: *no_complete, drop: *drop, state: state.clone() })
            };
            for b in f.tx_bytes.iter().filter(|b| Some(**b) != *expect_tx) {
                out.push(arrive(*count, Some(*b)));
            }
            if let Some(n) = count {
                out.extend(plus_minus(*n).map(|c| arrive(Some(c), *expect_tx)));
            }
        }
        MbarKind::Wait { blocking, parity, phase, dst } => {
            orders([Sem::Acquire, Sem::Relaxed], out);
            if let (true, Operand::Imm(p)) = (parity, phase) {
                out.push(with_kind(MbarKind::Wait { blocking: *blocking, parity: true, phase: Operand::Imm(p ^ 1), dst: dst.clone() }));
            }
        }
        MbarKind::Inval | MbarKind::PendingCount { .. } => {}
    }
}

/// Whether swapping `a` with the next instruction `b` can change synchronization.
fn movable(a: &Instr, b: &Instr) -> bool {
    let control = |i: &Instr| matches!(i, Instr::Label(_) | Instr::Branch { .. } | Instr::Exit);
    a != b && !control(a) && !control(b)
}

/// The cost an edit adds on its own (an insert's or a replacement's lowering).
pub(super) fn added_cost(original: &Scenario, change: &Change) -> i64 {
    let price = |i: &crate::model::Instr| i64::from(crate::cost::lower(i).cost());
    let at = |t: usize, i: usize| original.threads.get(t).and_then(|th| th.program.get(i));
    match change {
        Change::Insert { instr, .. } => price(instr),
        Change::Replace { thread, at: i, with } => price(with) - at(*thread, *i).map_or(0, price),
        Change::Remove { thread, at: i } => -at(*thread, *i).map_or(0, price),
        Change::MoveDown { .. } => 0,
    }
}

/// Whether inserting `instr` before position `before` of `program` is a use the reference
/// documents. The uni-directional `fence.proxy.async::generic` halves are documented only as
/// a split around a cross-thread synchronization (§2.3): the release half before a signal,
/// the acquire half after an observation. The checker models each half as a full crossing
/// (a departure, ARCHITECTURE.md), so a fix resting on a half anywhere else would rest on
/// that departure, not on the reference.
fn documented_place(program: &[Instr], before: usize, instr: &Instr) -> bool {
    let sync_of = |i: &Instr| i.facts().sync;
    match instr {
        Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { sem: FenceSem::Release, .. })) => {
            program[before..].iter().any(|later| sync_of(later).is_some_and(|s| s.signals))
        }
        Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { .. })) => {
            program[..before].iter().any(|earlier| sync_of(earlier).is_some_and(|s| s.observes))
        }
        _ => true,
    }
}

/// Every candidate edit of `scenario` (the original), each with the thread and original
/// position it sits at, so the search can try those near a finding first. A replacement
/// never makes its instruction cheaper: a fix strengthens (it may trade a release for a
/// relaxed form at a wider scope, which costs the same).
pub(super) fn all(scenario: &Scenario) -> Vec<(Vec<Change>, usize)> {
    let f = features(scenario);
    let mut out = Vec::new();
    for (t, thread) in scenario.threads.iter().enumerate() {
        let inserts = insertable(scenario, t, &f);
        for (i, instr) in thread.program.iter().enumerate() {
            for with in replacements(instr, &f) {
                let change = Change::Replace { thread: t, at: i, with };
                if added_cost(scenario, &change) >= 0 {
                    out.push((vec![change], i));
                }
            }
            if f.clusters {
                if let Some(pair) = restricted_pair(t, i, instr) {
                    out.push((pair, i));
                }
            }
            if thread.program.get(i + 1).is_some_and(|next| movable(instr, next)) {
                out.push((vec![Change::MoveDown { thread: t, at: i }], i));
            }
        }
        if thread.program.is_empty() {
            continue;
        }
        for before in 0..=thread.program.len() {
            for instr in inserts.iter().filter(|instr| documented_place(&thread.program, before, instr)) {
                out.push((vec![Change::Insert { thread: t, before, instr: instr.clone() }], before));
            }
        }
    }
    out
}

/// The `sync_restrict` form of a cluster-scope mbarrier handoff, as one step: a restricted
/// release fence before a relaxed `.cluster` arrive, or a relaxed `.cluster` wait followed
/// by a restricted acquire fence (reference §2.2). On sm_90a it avoids the GPU-wide MEMBAR
/// a `.release.cluster` arrive costs.
fn restricted_pair(thread: usize, at: usize, instr: &Instr) -> Option<Vec<Change>> {
    let relaxed_cluster = |op: &MbarOp| Instr::Mbar(MbarOp { sem: Some(Sem::Relaxed), scope: Some(Scope::Cluster), ..op.clone() });
    match instr {
        Instr::Mbar(op @ MbarOp { kind: MbarKind::Arrive { .. }, .. }) if op.sem != Some(Sem::Relaxed) || op.scope != Some(Scope::Cluster) => Some(vec![
            Change::Insert { thread, before: at, instr: thread_fence(FenceSem::Release, Scope::Cluster, Some(SyncRestrict::SharedCta)) },
            Change::Replace { thread, at, with: relaxed_cluster(op) },
        ]),
        Instr::Wait { instr: inner, until } => match inner.as_ref() {
            Instr::Mbar(op @ MbarOp { kind: MbarKind::Wait { .. }, .. }) if op.sem != Some(Sem::Relaxed) || op.scope != Some(Scope::Cluster) => Some(vec![
                Change::Replace { thread, at, with: Instr::Wait { instr: Box::new(relaxed_cluster(op)), until: until.clone() } },
                Change::Insert { thread, before: at + 1, instr: thread_fence(FenceSem::Acquire, Scope::Cluster, Some(SyncRestrict::SharedCluster)) },
            ]),
            _ => None,
        },
        _ => None,
    }
}

/// What an edit does, so the search tries first the edits that answer the finding's reason.
pub(super) mod family {
    pub const SCOPE: u8 = 1;
    pub const ORDER: u8 = 2;
    pub const PROXY: u8 = 4;
    pub const TCGEN05: u8 = 8;
    pub const WAIT: u8 = 16;
    pub const COUNT: u8 = 32;
    pub const MOVE: u8 = 64;
    pub const ALL: u8 = 127;
}

fn scope_of(instr: &Instr) -> Option<Scope> {
    match instr {
        Instr::Ld { scope, .. } | Instr::St { scope, .. } | Instr::Atom { scope, .. } => *scope,
        Instr::Mbar(op) => op.scope,
        Instr::Fence(Fence::Thread { scope, .. }) => Some(*scope),
        Instr::Wait { instr, .. } => scope_of(instr),
        Instr::Fence(Fence::MbarrierInit | Fence::Proxy(_))
        | Instr::Bar { .. }
        | Instr::ClusterArrive { .. }
        | Instr::ClusterWait
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
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::Exit => None,
    }
}

/// The families of one instruction placed by an edit (inserted, or replacing `old`).
fn families_of(new: &Instr, old: Option<&Instr>) -> u8 {
    use family::*;
    let widened = match (old.and_then(scope_of), scope_of(new)) {
        (Some(a), Some(b)) => b > a,
        (None, Some(s)) => s >= Scope::Cluster,
        _ => false,
    };
    let scope = if widened { SCOPE } else { 0 };
    let kind = match new {
        Instr::Wait { instr, .. } => return families_of(instr, old.map(|o| if let Instr::Wait { instr, .. } = o { instr.as_ref() } else { o })),
        Instr::Fence(Fence::Thread { restrict: Some(_), .. }) => SCOPE | ORDER,
        Instr::Ld { .. } | Instr::St { .. } | Instr::Atom { .. } | Instr::ClusterArrive { .. } | Instr::Fence(Fence::Thread { .. } | Fence::MbarrierInit) => ORDER,
        Instr::Fence(Fence::Proxy(_)) => PROXY,
        Instr::Mbar(MbarOp { kind: MbarKind::Arrive { .. } | MbarKind::Wait { .. }, .. }) => {
            let same_kind = matches!((old, new), (Some(Instr::Mbar(a)), Instr::Mbar(b)) if std::mem::discriminant(&a.kind) == std::mem::discriminant(&b.kind) && a.kind != b.kind);
            if same_kind { COUNT } else { ORDER }
        }
        Instr::Mbar(_) | Instr::Bulk { .. } => COUNT,
        Instr::Tc(TcOp::FenceBeforeThreadSync | TcOp::FenceAfterThreadSync) => TCGEN05,
        Instr::Tc(TcOp::WaitLd | TcOp::WaitSt) => TCGEN05 | WAIT,
        Instr::CpAsyncCommit | Instr::CpAsyncWait { .. } | Instr::CpAsyncWaitAll | Instr::BulkCommit | Instr::BulkWait { .. } | Instr::Wgmma(_) => WAIT,
        Instr::Tc(_)
        | Instr::Bar { .. }
        | Instr::ClusterWait
        | Instr::CpAsync { .. }
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::StAsync { .. }
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::Exit => ORDER,
    };
    kind | scope
}

/// The families of an edit of `original`.
pub(super) fn families(original: &Scenario, change: &Change) -> u8 {
    let at = |t: usize, i: usize| original.threads.get(t).and_then(|th| th.program.get(i));
    match change {
        Change::Insert { instr, .. } => families_of(instr, None),
        Change::Replace { thread, at: i, with } => families_of(with, at(*thread, *i)),
        Change::MoveDown { .. } => family::MOVE,
        Change::Remove { .. } => 0,
    }
}

/// The families of a step of one or more edits.
pub(super) fn step_families(original: &Scenario, step: &[Change]) -> u8 {
    step.iter().fold(0, |acc, c| acc | families(original, c))
}

/// The families that answer a finding's reason; every family for a hang or undefined
/// behaviour, which name no missing edge.
pub(super) fn wanted(reason: Option<crate::check::RaceReason>) -> u8 {
    use crate::check::RaceReason::*;
    use family::*;
    match reason {
        Some(NoSynchronization) => ORDER | SCOPE | WAIT | MOVE | COUNT,
        Some(ExecutionOrderOnly) => ORDER | SCOPE,
        Some(ScopeMismatch) => SCOPE | ORDER,
        Some(MissingProxyFence) => PROXY,
        Some(StateSpaceRestriction) => SCOPE | ORDER | PROXY,
        Some(AsyncNotObserved) => WAIT | COUNT | ORDER | MOVE,
        Some(WrongPhase) => COUNT | MOVE,
        Some(MissingTcgen05Fence) => TCGEN05 | MOVE,
        None => ALL,
    }
}
