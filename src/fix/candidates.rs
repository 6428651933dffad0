//! The strengthening edits the search tries: widen a scope, raise a semantics, insert a
//! fence (restricted and proxy forms too), a wait, a `wait_group.read` or a tcgen05 fence,
//! add an `expect_tx`, correct a byte count, a count or a parity, move an instruction
//! (an arrive past a read). Every match over instruction kinds is exhaustive.

use super::outcome::Change;
use crate::model::{
    AddrSpace, Fence, FenceSem, Instr, MbarKind, MbarOp, Object, Operand, ProxyKind, Scenario, Scope, Sem, SyncRestrict, TcOp, Use, WgmmaOp,
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
    for outer in scenario.threads.iter().flat_map(|t| &t.program) {
        // A ranged `st.async` completes the bytes of its range, not of its location.
        let width = outer.access_width();
        let instr = match outer.unwrapped() {
            Instr::Wait { instr, .. } => instr.unwrapped(),
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
                let size = width.unwrap_or_else(|| scenario.location(addr).and_then(|l| scenario.locations.get(l)).map_or(0, |l| l.size));
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
            | Instr::SetP { .. }
            | Instr::Wait { .. }
            | Instr::Ranged { .. }
            | Instr::Guarded { .. }
            | Instr::Exit => {}
        }
    }
    f.tx_bytes.extend(per_bar.into_iter().map(|(_, sum)| sum));
    f.tx_bytes.retain(|b| *b > 0);
    crate::sort::sort(&mut f.tx_bytes);
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
        Instr::Ranged { instr: inner, at, src_at, width } => out.extend(replacements(inner, f).into_iter().map(|new| {
            Instr::Ranged { instr: Box::new(new), at: *at, src_at: *src_at, width: *width }
        })),
        Instr::Guarded { pred, negated, instr: inner } => out.extend(
            replacements(inner, f).into_iter().map(|new| Instr::Guarded { pred: pred.clone(), negated: *negated, instr: Box::new(new) }),
        ),
        // Barriers, copies and tensor ops have nothing to strengthen in place.
        // `.noinc` decides whether the copy's arrive counts against the init count (§6.1):
        // either form can be the one the count was written for.
        Instr::CpAsyncMbarArrive { bar, noinc, space } => out.push(Instr::CpAsyncMbarArrive { bar: bar.clone(), noinc: !noinc, space: *space }),
        // The two tcgen05 thread-sync fences written on the wrong sides of a barrier (§7).
        Instr::Tc(TcOp::FenceBeforeThreadSync) => out.push(Instr::Tc(TcOp::FenceAfterThreadSync)),
        Instr::Tc(TcOp::FenceAfterThreadSync) => out.push(Instr::Tc(TcOp::FenceBeforeThreadSync)),
        Instr::Bar { .. }
        | Instr::ClusterWait
        | Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWaitAll
        | Instr::BulkCommit
        | Instr::StAsync { .. }
        | Instr::Tc(_)
        | Instr::SetP { .. }
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

/// A count one lower and one higher than `n`, never zero.
fn plus_minus(n: u32) -> impl Iterator<Item = u32> {
    [n.saturating_sub(1), n.saturating_add(1)].into_iter().filter(move |m| *m != n && *m > 0)
}

/// Labels, branches and exits: no move crosses them.
fn control(i: &Instr) -> bool {
    matches!(i, Instr::Label(_) | Instr::Branch { .. } | Instr::Exit)
}

/// Whether swapping `a` with the next instruction `b` can change synchronization, and
/// only that.
fn movable(a: &Instr, b: &Instr) -> bool {
    a != b && !control(a) && !control(b) && !reorders_data(a, b)
}

/// Whether putting `later` before `earlier` changes what the program computes, not only
/// how it synchronizes: a read carried above a wait no longer reads what the wait made
/// visible, and a write carried below an arrive or barrier is no longer published by it.
/// A fix may reorder synchronization around data (an arrive moved after the read it
/// releases), never data flow: bug 35's reader, its load moved above the cluster barrier,
/// re-checked correct because it read the initial value instead of the owner's.
fn reorders_data(earlier: &Instr, later: &Instr) -> bool {
    (blocks(earlier) && touches(later, |how| matches!(how, Use::Read | Use::Update | Use::CopyFrom)))
        || (touches(earlier, |how| matches!(how, Use::Write | Use::Update | Use::CopyTo)) && publishes(later))
}

/// Whether `instr` uses a location (or tensor memory) as `how` says.
fn touches(instr: &Instr, how: impl Fn(Use) -> bool) -> bool {
    instr.facts().names.iter().any(|n| n.object != Object::Mbarrier && how(n.how))
}

/// A wait: a spin loop, or a step that observes other threads without reading a location
/// (an mbarrier wait, a barrier), unlike a strong load.
fn blocks(instr: &Instr) -> bool {
    matches!(instr.unwrapped(), Instr::Wait { .. })
        || instr.facts().sync.is_some_and(|s| s.observes) && !touches(instr, |_| true)
}

/// An arrive or barrier: a signal that publishes what came before it without writing a
/// location itself, unlike a strong store.
fn publishes(instr: &Instr) -> bool {
    instr.facts().sync.is_some_and(|s| s.signals) && !touches(instr, |_| true)
}

/// Farthest a move takes an instruction, in places.
const MAX_MOVE: usize = 4;

/// Where instruction `at` can move to, two to [`MAX_MOVE`] places up or down (one place is
/// a [`Change::MoveDown`]), never across a label, branch or exit.
fn longer_moves(program: &[Instr], at: usize) -> impl Iterator<Item = usize> + '_ {
    let instr = program.get(at);
    let free = move |lo: usize, hi: usize| instr.is_some_and(|i| !control(i)) && program.get(lo..hi).is_some_and(|span| !span.iter().any(control));
    let keeps_data = move |lo: usize, hi: usize, down: bool| {
        instr.is_some_and(|i| {
            program.get(lo..hi).is_some_and(|span| !span.iter().any(|c| if down { reorders_data(i, c) } else { reorders_data(c, i) }))
        })
    };
    let down = (at + 3..=(at + 1 + MAX_MOVE).min(program.len())).filter(move |to| free(at + 1, *to) && keeps_data(at + 1, *to, true));
    let up = (at.saturating_sub(MAX_MOVE)..at.saturating_sub(1)).filter(move |to| free(*to, at) && keeps_data(*to, at, false));
    down.chain(up)
}

/// The cost an edit adds on its own (an insert's or a replacement's lowering).
pub(super) fn added_cost(original: &Scenario, change: &Change) -> i64 {
    let price = |i: &crate::model::Instr| i64::from(crate::cost::lower(i).cost());
    let at = |t: usize, i: usize| original.threads.get(t).and_then(|th| th.program.get(i));
    match change {
        Change::Insert { instr, .. } | Change::InsertAfter { instr, .. } => price(instr),
        Change::Replace { thread, at: i, with } => price(with) - at(*thread, *i).map_or(0, price),
        Change::Remove { thread, at: i } => -at(*thread, *i).map_or(0, price),
        Change::MoveDown { .. } | Change::Move { .. } | Change::DeclaredCount { .. } | Change::Declare { .. } => 0,
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
            out.extend(longer_moves(&thread.program, i).map(|to| (vec![Change::Move { thread: t, from: i, to }], to)));
            if let Some(commit) = commit_instead(&thread.program[..i], instr) {
                out.push((vec![Change::Replace { thread: t, at: i, with: commit }], i));
            }
            if let Some(spin) = spin_instead(scenario, t, i, instr) {
                out.push((spin, i));
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
    out.extend(barrier_sets(scenario, &f));
    out.extend(mbarrier_waits(scenario, &f));
    out.extend(super::handoffs::remote_arrivals(scenario));
    out.extend(deallocs(scenario));
    out.extend(tc_fences_turned(scenario));
    out.extend(cluster_instances_closed(scenario));
    // A barrier declared initialised gets its arrival count corrected where it is
    // declared, as an init's count is where it is written (one more or one fewer).
    for (bar, declared) in scenario.mbarriers.iter().enumerate() {
        let Some(count) = declared.count else { continue };
        for other in plus_minus(count) {
            out.push((vec![Change::DeclaredCount { bar, count: other }], 0));
        }
    }
    out
}

/// A `barrier.cluster.wait` after the last arrive of every thread that arrives more often
/// than it waits, in one step: an arrive alone does not keep its CTA alive until the
/// others are done with its shared memory (§5.2, §2.2.2).
fn cluster_instances_closed(scenario: &Scenario) -> Vec<(Vec<Change>, usize)> {
    let mut step = Vec::new();
    for (t, thread) in scenario.threads.iter().enumerate() {
        let arrives = thread.program.iter().filter(|i| matches!(i, Instr::ClusterArrive { .. })).count();
        let waits = thread.program.iter().filter(|i| matches!(i, Instr::ClusterWait)).count();
        let last_arrive = thread.program.iter().rposition(|i| matches!(i, Instr::ClusterArrive { .. }));
        if let (true, Some(at)) = (arrives > waits, last_arrive) {
            step.push(Change::InsertAfter { thread: t, after: at, instr: Instr::ClusterWait });
        }
    }
    let at = step.first().map_or(0, Change::position);
    if step.is_empty() { Vec::new() } else { vec![(step, at)] }
}

/// Every tcgen05 thread-sync fence written on the wrong side of its thread sync, turned
/// round in one step: `before_thread_sync` belongs before the signal, `after_thread_sync`
/// after the observation (§7). Swapped in two threads, turning one alone changes nothing.
fn tc_fences_turned(scenario: &Scenario) -> Vec<(Vec<Change>, usize)> {
    let sync = |i: Option<&Instr>| i.and_then(|i| i.facts().sync);
    let mut step = Vec::new();
    for (t, thread) in scenario.threads.iter().enumerate() {
        for (i, instr) in thread.program.iter().enumerate() {
            let turned = match instr {
                Instr::Tc(TcOp::FenceAfterThreadSync) if sync(thread.program.get(i + 1)).is_some_and(|s| s.signals) => TcOp::FenceBeforeThreadSync,
                Instr::Tc(TcOp::FenceBeforeThreadSync) if sync(i.checked_sub(1).and_then(|p| thread.program.get(p))).is_some_and(|s| s.observes) => {
                    TcOp::FenceAfterThreadSync
                }
                _ => continue,
            };
            step.push(Change::Replace { thread: t, at: i, with: Instr::Tc(turned) });
        }
    }
    let at = step.first().map_or(0, Change::position);
    if step.len() > 1 { vec![(step, at)] } else { Vec::new() }
}

/// A thread `mbarrier.arrive` that frees a stage the thread's own tcgen05 ops still read
/// becomes `tcgen05.commit` on that barrier: the commit arrives only once they completed
/// (§7; a thread arrive orders only the thread's own accesses).
fn commit_instead(earlier: &[Instr], instr: &Instr) -> Option<Instr> {
    let Instr::Mbar(MbarOp { kind: MbarKind::Arrive { count: None, expect_tx: None, no_complete: false, drop: false, state: None }, bar, .. }) = instr else {
        return None;
    };
    let cta_group = earlier.iter().rev().find_map(|i| match i.unwrapped() {
        Instr::Tc(op @ (TcOp::Mma { .. } | TcOp::Cp { .. } | TcOp::Shift { .. } | TcOp::MmaPair { .. })) => op.cta_group(),
        _ => None,
    })?;
    Some(Instr::Tc(TcOp::Commit { bar: bar.clone(), multicast: Vec::new(), cta_group }))
}

/// A `red` that was meant to observe a flag reads nothing (§1.6): it becomes a relaxed
/// `atom.cas` spin until the flag holds a value another thread stores there, the loop
/// bug 40's fixed twin writes (label, `atom.cas`, branch back while it differs).
fn spin_instead(scenario: &Scenario, thread: usize, at: usize, instr: &Instr) -> Option<Vec<Change>> {
    let Instr::Atom { dst: None, scope, space, addr, .. } = instr else { return None };
    let program = &scenario.threads.get(thread)?.program;
    // Every register the thread reads or writes (from the instruction facts) and every label.
    let registers = program.iter().flat_map(|i| i.facts().touched().map(str::to_string).collect::<Vec<_>>());
    let labels = program.iter().filter_map(|i| if let Instr::Label(l) = i { Some(l.clone()) } else { None });
    let names: Vec<String> = registers.chain(labels).collect();
    let fresh = |stem: &str| (0..).map(|k| format!("{stem}{k}")).find(|n| !names.contains(n)).unwrap_or_default();
    let (label, reg) = (fresh("spin"), fresh("r"));
    let stored = scenario.threads.iter().enumerate().filter(|(t, _)| *t != thread).flat_map(|(_, th)| &th.program).find_map(|i| match i.unwrapped() {
        Instr::St { addr: a, src: Operand::Imm(v), .. } if a == addr => Some(*v),
        _ => None,
    })?;
    let cas = Instr::Atom {
        op: crate::model::AtomOp::Cas,
        sem: Some(Sem::Relaxed),
        scope: *scope,
        space: *space,
        dst: Some(reg.clone()),
        addr: addr.clone(),
        args: vec![Operand::Imm(stored), Operand::Imm(stored)],
    };
    let back = Instr::Branch { target: label.clone(), cond: Some((Operand::Reg(reg), crate::model::CmpOp::Ne, Operand::Imm(stored))) };
    Some(vec![
        Change::Insert { thread, before: at, instr: Instr::Label(label) },
        Change::Replace { thread, at, with: cas },
        Change::Insert { thread, before: at + 1, instr: back },
    ])
}

/// A wait on an mbarrier in a thread of the CTA that owns it, so that CTA cannot exit
/// while a peer's arrive or async write still targets its barrier (§5.3, §2.2.2) and its
/// threads observe what the barrier completes: the wait alone, after an arrive, or after
/// an arrive that expects the bytes in flight.
fn mbarrier_waits(scenario: &Scenario, f: &Features) -> Vec<(Vec<Change>, usize)> {
    let mut out = Vec::new();
    let scope = f.clusters.then_some(Scope::Cluster);
    for bar in scenario.mbarriers.iter().filter(|b| b.count.is_some()) {
        let op = |kind: MbarKind, sem: Option<Sem>, scope: Option<Scope>| Instr::Mbar(MbarOp { kind, sem, scope, space: Some(AddrSpace::SharedCta), bar: bar.name.clone() });
        let wait = Instr::Wait {
            instr: Box::new(op(MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None }, scope.map(|_| Sem::Acquire), scope)),
            until: None,
        };
        let arrive = |expect_tx: Option<u32>| op(MbarKind::Arrive { count: None, expect_tx, no_complete: false, drop: false, state: None }, None, None);
        let mut forms = vec![vec![wait.clone()], vec![arrive(None), wait.clone()]];
        forms.extend(f.tx_bytes.iter().map(|b| vec![arrive(Some(*b)), wait.clone()]));
        for (t, thread) in scenario.threads.iter().enumerate().filter(|(_, th)| th.cta == bar.cta && !th.program.is_empty()) {
            for before in 0..=thread.program.len() {
                for form in &forms {
                    // The arrive sorts before the wait at one place (it signals, the wait observes).
                    let step = form.iter().map(|instr| Change::Insert { thread: t, before, instr: instr.clone() }).collect();
                    out.push((step, before));
                }
            }
        }
    }
    out
}

/// `tcgen05.dealloc` of an allocation its thread never frees, at the thread's end (§7:
/// TMEM must be freed before the CTA exits; the checker calls holding it undefined). A
/// resource edit rather than synchronization, but the only repair of that verdict.
fn deallocs(scenario: &Scenario) -> Vec<(Vec<Change>, usize)> {
    let mut out = Vec::new();
    for (t, thread) in scenario.threads.iter().enumerate() {
        let frees: Vec<u32> = thread.program.iter().filter_map(|i| match i.unwrapped() {
            Instr::Tc(TcOp::Dealloc { cols, .. }) => Some(*cols),
            _ => None,
        }).collect();
        for instr in &thread.program {
            if let Instr::Tc(TcOp::Alloc { cols, cta_group, .. }) = instr.unwrapped() {
                if !frees.contains(cols) {
                    let end = match thread.program.last() {
                        Some(Instr::Exit) => thread.program.len() - 1,
                        _ => thread.program.len(),
                    };
                    out.push((vec![Change::Insert { thread: t, before: end, instr: Instr::Tc(TcOp::Dealloc { cols: *cols, cta_group: *cta_group }) }], end));
                }
            }
        }
    }
    out
}

/// Most placements of one barrier set; past it each thread gets only its start and end.
const MAX_PLACEMENTS: usize = 256;

/// A barrier every thread of a group takes, as one step: `bar.sync` on a free id in every
/// thread of a CTA, and `barrier.cluster.arrive` (release or relaxed) + `barrier.cluster.wait`
/// in every thread of a cluster (reference §5.1, §5.2), with `fence.mbarrier_init` before
/// it where the scenario initializes mbarriers. One thread alone cannot add a
/// barrier: the others would never arrive. With tcgen05 in the scenario a variant brackets
/// the barrier with `tcgen05.fence::before_thread_sync`/`after_thread_sync` (§7), whose
/// unneeded halves the search's minimizing drops. Every placement is a candidate; the
/// search tries those nearest the finding first.
fn barrier_sets(scenario: &Scenario, f: &Features) -> Vec<(Vec<Change>, usize)> {
    let mut out = Vec::new();
    let used: Vec<i64> = scenario
        .threads
        .iter()
        .flat_map(|t| &t.program)
        .filter_map(|i| match i.unwrapped() {
            Instr::Bar { id: Operand::Imm(id), .. } => Some(*id),
            _ => None,
        })
        .collect();
    let free_id = (0..16).find(|id| !used.contains(id));
    let fenced = |bars: Vec<Instr>| {
        let mut v = vec![Instr::Tc(TcOp::FenceBeforeThreadSync)];
        v.extend(bars);
        v.push(Instr::Tc(TcOp::FenceAfterThreadSync));
        v
    };
    let forms_for = |members: Vec<usize>, forms: Vec<Vec<Instr>>, out: &mut Vec<(Vec<Change>, usize)>| {
        let members: Vec<usize> = members.into_iter().filter(|t| scenario.threads.get(*t).is_some_and(|th| !th.program.is_empty())).collect();
        if members.len() < 2 {
            return;
        }
        for placement in placements(scenario, &members) {
            for form in &forms {
                let mut step: Vec<Change> = members
                    .iter()
                    .zip(&placement)
                    .flat_map(|(t, at)| form.iter().map(|instr| Change::Insert { thread: *t, before: *at, instr: instr.clone() }))
                    .collect();
                if form.contains(&Instr::ClusterWait) {
                    // A thread with an arrive that has no wait yet closes that instance
                    // first (one arrive per instance, §5.2): its wait follows that arrive,
                    // ahead of a new round placed right after it.
                    step.extend(cluster_instances_closed(scenario).into_iter().flat_map(|(c, _)| c));
                }
                out.push((step, placement.iter().copied().min().unwrap_or(0)));
            }
        }
    };
    if let Some(id) = free_id {
        for cta in 0..scenario.ctas.len() {
            let members: Vec<usize> = (0..scenario.threads.len()).filter(|t| scenario.threads[*t].cta == cta).collect();
            let bar = vec![Instr::Bar { kind: crate::model::BarKind::Sync, id: Operand::Imm(id), count: None, sugar: None }];
            let mut forms = vec![bar.clone()];
            if f.tcgen05 {
                forms.insert(0, fenced(bar));
            }
            forms_for(members, forms, &mut out);
        }
    }
    if f.clusters {
        for cluster in 0..scenario.clusters.len() {
            let members: Vec<usize> = (0..scenario.threads.len()).filter(|t| scenario.cluster_of(scenario.threads[*t].cta) == Some(cluster)).collect();
            let mut forms = Vec::new();
            for sem in [Some(Sem::Relaxed), None] {
                let bar = vec![Instr::ClusterArrive { sem }, Instr::ClusterWait];
                if f.tcgen05 {
                    forms.push(fenced(bar.clone()));
                }
                if f.mbarrier_init {
                    // The init-publishing pattern (§4.2): the barrier alone does not make
                    // an init visible to other CTAs, nor does the fence without it.
                    forms.push([vec![Instr::Fence(Fence::MbarrierInit)], bar.clone()].concat());
                }
                forms.push(bar);
            }
            forms_for(members, forms, &mut out);
        }
    }
    out
}

/// Every choice of one insertion point per member thread, or only each thread's start and
/// end when that would exceed [`MAX_PLACEMENTS`].
fn placements(scenario: &Scenario, members: &[usize]) -> Vec<Vec<usize>> {
    let lens: Vec<usize> = members.iter().map(|t| scenario.threads.get(*t).map_or(0, |th| th.program.len())).collect();
    let all = lens.iter().try_fold(1usize, |n, len| n.checked_mul(len + 1)).is_some_and(|n| n <= MAX_PLACEMENTS);
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for len in lens {
        let points: Vec<usize> = if all { (0..=len).collect() } else { vec![0, len] };
        let mut longer = Vec::with_capacity(out.len() * points.len());
        for prefix in &out {
            for p in &points {
                let mut placed = prefix.clone();
                placed.push(*p);
                longer.push(placed);
            }
        }
        out = longer;
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
        Instr::Wait { instr, .. } | Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => scope_of(instr),
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
        | Instr::SetP { .. }
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
        Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => return families_of(instr, old.map(Instr::unwrapped)),
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
        | Instr::SetP { .. }
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
        Change::Insert { instr, .. } | Change::InsertAfter { instr, .. } => families_of(instr, None),
        Change::Replace { thread, at: i, with } => families_of(with, at(*thread, *i)),
        Change::MoveDown { .. } | Change::Move { .. } => family::MOVE,
        Change::DeclaredCount { .. } => family::COUNT,
        // A new barrier does nothing alone; its step's arrive and wait say what it answers.
        Change::Remove { .. } | Change::Declare { .. } => 0,
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
        // Equal byte ranges are a source edit the search does not make; ordering the two
        // accesses is the fix it can find.
        Some(MixedSize) => ORDER | WAIT | MOVE,
        None => ALL,
    }
}
