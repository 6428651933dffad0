//! The relations and axioms of Dat3M's `cat/ptx-v7.5.cat` (commit 30640123), over one
//! candidate execution. Comments cite the cat file's lines as `cat:N`.
//!
//! Two readings go beyond the cat file, both from the reference
//! (`ptx-sync.md` §1.10): `fence.sc` also counts as an acquire-release fence in the
//! patterns (Dat3M tags it `SC` only), and `fence.acquire`/`fence.release` are the halves
//! of `fence.acq_rel`. mbarrier arrivals are RMWs on the barrier's counter and waits are
//! reads of it (`events.rs`), so the cat's release/acquire patterns and RMW observation
//! chains give mbarrier phases their synchronization.

use std::cell::RefCell;
use std::collections::HashMap;

use super::events::{BarrierKind, FenceKind, Kind, Order, Px};
use super::rel::{bit, members, Rel, Set, Words};

/// One event of a candidate execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// `None` for an initial write.
    pub thread: Option<usize>,
    pub kind: Kind,
    pub instr: usize,
    pub phys: usize,
    pub virt: usize,
    pub value: i64,
    pub proxy: Option<Px>,
    pub order: Order,
    pub scope: Option<crate::model::Scope>,
}

/// What does not depend on reads-from, coherence or the Fence-SC order.
pub struct Static {
    pub n: usize,
    pub w: Set,
    pub r: Set,
    pub sc_fences: Set,
    pub init: Set,
    pub po: Rel,
    pub loc: Rel,
    pub ms: Rel,
    pub rmw: Rel,
    pub dep: Rel,
    po_opt: Rel,
    /// cat:74-75 without `cb`: `cb & plain_proxy_order` is what those lines add.
    plain_proxy_order: Rel,
    release_pattern: Rel,
    acquire_pattern: Rel,
    sync_barrier: Rel,
    gen: Set,
    mem: Set,
    alias_fences: Set,
    vloc: Rel,
    proxy_fence_ops: Rel,
    /// `cause` by its inputs: it reads reads-from only through its morally strong part,
    /// which many choices share (every read from a weak access adds nothing).
    causes: RefCell<HashMap<Vec<Set>, (Rel, Rel), Words>>,
}

/// Entries [`Static::cause`]'s memo keeps before it starts over.
const CAUSES_KEPT: usize = 4096;

pub struct Inputs<'a> {
    pub events: &'a [Event],
    /// `(a, b)`: thread `a`'s `scope` covers thread `b`.
    pub covers: &'a dyn Fn(usize, crate::model::Scope, usize) -> bool,
    /// `(cta, cluster)` per thread.
    pub place: &'a dyn Fn(usize) -> (usize, usize),
    pub rmw: &'a [(usize, usize)],
    /// Strict mode (reference §12): only a `.cluster` fence makes a relaxed
    /// `barrier.cluster.arrive` release; pragmatic mode takes any fence whose scope covers
    /// the waiter (§12 #11).
    pub strict: bool,
    pub dep: &'a [(usize, usize)],
}

fn set_of(events: &[Event], f: impl Fn(&Event) -> bool) -> Set {
    events.iter().enumerate().filter(|(_, e)| f(e)).fold(0, |s, (i, _)| s | bit(i))
}

impl Static {
    pub fn new(input: &Inputs) -> Static {
        let ev = input.events;
        let n = ev.len();
        let w = set_of(ev, |e| e.kind == Kind::Write);
        let r = set_of(ev, |e| e.kind == Kind::Read);
        let mem = w | r;
        let fences = set_of(ev, |e| matches!(e.kind, Kind::Fence(_) | Kind::Barrier(_)));
        let init = set_of(ev, |e| e.thread.is_none());
        let is_fence = |e: &Event, f: &dyn Fn(FenceKind) -> bool| matches!(e.kind, Kind::Fence(k) if f(k));
        let sc_fences = set_of(ev, |e| is_fence(e, &|k| k == FenceKind::Sc));
        // `F & ACQ_REL` in cat:62/64, with fence.sc and the half fences added (module doc).
        let release_fences = set_of(ev, |e| is_fence(e, &|k| matches!(k, FenceKind::Sc | FenceKind::AcqRel | FenceKind::Release)));
        let acquire_fences = set_of(ev, |e| is_fence(e, &|k| matches!(k, FenceKind::Sc | FenceKind::AcqRel | FenceKind::Acquire)));
        let alias_fences = set_of(ev, |e| is_fence(e, &|k| k == FenceKind::Alias));
        let gen = set_of(ev, |e| e.proxy == Some(Px::Gen));
        // cat:41-44
        let strong_write = set_of(ev, |e| e.kind == Kind::Write && matches!(e.order, Order::Relaxed | Order::Release));
        let strong_read = set_of(ev, |e| e.kind == Kind::Read && matches!(e.order, Order::Relaxed | Order::Acquire));
        let strong_operation = strong_write | strong_read | fences;
        let rel_writes = set_of(ev, |e| e.kind == Kind::Write && e.order == Order::Release);
        let acq_reads = set_of(ev, |e| e.kind == Kind::Read && e.order == Order::Acquire);

        let po = Rel::from_fn(n, |i, j| match (ev[i].thread, ev[j].thread) {
            (Some(a), Some(b)) => a == b && i < j,
            _ => false,
        });
        let vloc = Rel::from_fn(n, |i, j| mem & bit(i) != 0 && mem & bit(j) != 0 && ev[i].virt == ev[j].virt);
        let loc = Rel::from_fn(n, |i, j| mem & bit(i) != 0 && mem & bit(j) != 0 && ev[i].phys == ev[j].phys);
        let scta = Rel::from_fn(n, |i, j| match (ev[i].thread, ev[j].thread) {
            (Some(a), Some(b)) => (input.place)(a).0 == (input.place)(b).0,
            _ => false,
        });
        // Dat3M's `sr` (`visitSameScope`): both carry a scope, and each covers the other's thread.
        let sr = Rel::from_fn(n, |i, j| match (ev[i].thread, ev[j].thread, ev[i].scope, ev[j].scope) {
            (Some(a), Some(b), Some(sa), Some(sb)) => (input.covers)(a, sa, b) && (input.covers)(b, sb, a),
            _ => false,
        });
        // cat:47
        let same_proxy = Rel::from_fn(n, |i, j| ev[i].proxy.is_some() && ev[i].proxy == ev[j].proxy);
        // cat:48
        let po_vloc = po.inter(&vloc);
        // cat:53-58
        let ms1 = po.union(&po.inverse()).union(&sr.restrict(strong_operation, strong_operation));
        let ms3 = vloc.union(&Rel::all_but_product(n, mem, mem));
        let ms = ms1.inter(&same_proxy).inter(&ms3).irreflexive_part();
        // cat:62
        let release_pattern = Rel::id_on(n, rel_writes)
            .seq(&po_vloc.opt())
            .restrict(rel_writes, strong_write)
            .union(&po.restrict(release_fences, strong_write));
        // cat:64
        let acquire_pattern = po_vloc
            .opt()
            .restrict(strong_read, acq_reads)
            .union(&po.restrict(strong_read, acquire_fences));
        // cat:33 `sync_barrier = syncbar & scta`: a barrier use to a waiting use of the same
        // barrier and generation (`NativeRelationAnalysis.visitSyncBarrier`: the target is
        // not an arrive). Extended to `barrier.cluster`: a releasing arrive to the waits of
        // the same generation in its cluster (reference §5.2).
        let sync_barrier = Rel::from_fn(n, |i, j| match (ev[i].kind, ev[j].kind, ev[i].thread, ev[j].thread) {
            (
                Kind::Barrier(BarrierKind::Cta { id: a, generation: ga, .. }),
                Kind::Barrier(BarrierKind::Cta { id: b, generation: gb, arrive_only: false }),
                Some(_),
                Some(_),
            ) => a == b && ga == gb && scta.has(i, j),
            (
                Kind::Barrier(BarrierKind::Cluster { generation: ga, wait: false, release: true }),
                Kind::Barrier(BarrierKind::Cluster { generation: gb, wait: true, .. }),
                Some(t),
                Some(u),
            ) => ga == gb && (input.place)(t).1 == (input.place)(u).1,
            _ => false,
        });
        // A release fence before a relaxed `barrier.cluster.arrive` releases to the waits
        // of that generation (fence pattern, reference §1.5 and §12 #11).
        let mut sync_barrier = sync_barrier;
        for (a, arrive) in ev.iter().enumerate() {
            let (Kind::Barrier(BarrierKind::Cluster { generation, wait: false, release: false }), Some(t)) = (arrive.kind, arrive.thread) else {
                continue;
            };
            for f in members(release_fences) {
                let (Some(scope), true) = (ev[f].scope, po.has(f, a)) else { continue };
                for (j, waiter) in ev.iter().enumerate() {
                    let (Kind::Barrier(BarrierKind::Cluster { generation: g, wait: true, .. }), Some(u)) = (waiter.kind, waiter.thread) else {
                        continue;
                    };
                    let wide_enough = if input.strict { scope >= crate::model::Scope::Cluster } else { (input.covers)(t, scope, u) };
                    if g == generation && (input.place)(t).1 == (input.place)(u).1 && wide_enough {
                        sync_barrier.add(f, j);
                    }
                }
            }
        }
        let mut rmw = Rel::empty(n);
        for &(a, b) in input.rmw {
            rmw.add(a, b);
        }
        let mut dep = Rel::empty(n);
        for &(a, b) in input.dep {
            dep.add(a, b);
        }
        // cat:72
        let same_proxy_scta = same_proxy.inter(&scta);
        let fence_only = set_of(ev, |e| matches!(e.kind, Kind::Fence(_)));
        let proxy_fence_ops = same_proxy_scta.restrict(fence_only, mem);
        let plain_proxy_order = vloc.restrict(gen, gen).union(&same_proxy_scta.inter(&vloc).restrict(mem, mem));
        Static {
            po_opt: po.opt(),
            plain_proxy_order,
            n,
            w,
            r,
            sc_fences,
            init,
            po,
            loc,
            ms,
            rmw,
            dep,
            release_pattern,
            acquire_pattern,
            sync_barrier,
            gen,
            mem,
            alias_fences,
            vloc,
            proxy_fence_ops,
            causes: RefCell::new(HashMap::default()),
        }
    }

    /// `cause` (cat:83) for reads-from `rf` and Fence-SC order `sync_fence`, and the
    /// synchronizes-with edges of patterns and barriers (for drawing).
    pub fn cause(&self, rf: &Rel, sync_fence: &Rel) -> (Rel, Rel) {
        let strong_rf = self.ms.inter(rf);
        // The non-empty rows of each, as (index, row), the two parts split by an index no
        // event has: most are empty, and the key is hashed on every call.
        let mut key: Vec<Set> = Vec::with_capacity(8);
        for rel in [&strong_rf, sync_fence] {
            for i in (0..self.n).filter(|&i| rel.row(i) != 0) {
                key.extend([i as Set, rel.row(i)]);
            }
            key.push(super::rel::MAX_EVENTS as Set);
        }
        if let Some(known) = self.causes.borrow().get(&key) {
            return known.clone();
        }
        let computed = self.compute_cause(strong_rf, sync_fence);
        let mut causes = self.causes.borrow_mut();
        if causes.len() >= CAUSES_KEPT {
            causes.clear();
        }
        causes.insert(key, computed.clone());
        computed
    }

    /// [`Static::cause`] for the morally strong part of reads-from, `strong_rf`.
    fn compute_cause(&self, strong_rf: Rel, sync_fence: &Rel) -> (Rel, Rel) {
        let n = self.n;
        // cat:60
        let mut observation = strong_rf;
        observation.union_with(&self.rmw);
        // cat:66
        let mut sync = self.release_pattern.seq(&observation.plus()).seq(&self.acquire_pattern);
        sync.inter_with(&self.ms);
        // cat:67
        let mut step = sync.union(sync_fence);
        step.union_with(&self.sync_barrier);
        let step = step.seq(&self.po_opt).plus();
        let mut cb = self.po_opt.seq(&step);
        cb.union_with(&self.po);
        // cat:73-82
        let all = if n == super::rel::MAX_EVENTS { Set::MAX } else { bit(n) - 1 };
        let gen = self.gen;
        let pfo = &self.proxy_fence_ops;
        // cat:74 `vloc & cb & (gen * gen)` and cat:75 `same_proxy & scta & vloc & cb & (M * M)`.
        let mut ppcb = cb.inter(&self.plain_proxy_order);
        // Lines 76-82 each go through a proxy fence or an alias fence: most executions
        // have neither, and then those lines add nothing.
        if !pfo.is_empty() || self.alias_fences != 0 {
            let cb_pfo_inv = cb.inter(&pfo.inverse());
            let cb_pfo = cb.inter(pfo);
            if !pfo.is_empty() {
                ppcb = ppcb.union(&self.vloc.inter(&cb_pfo_inv.seq(&cb).restrict(all, gen))); // cat:76
                ppcb = ppcb.union(&self.vloc.inter(&cb.restrict(gen, all).seq(&cb_pfo))); // cat:77
                ppcb = ppcb.union(&self.vloc.inter(&cb_pfo_inv.seq(&cb).seq(&cb_pfo))); // cat:78
            }
            if self.alias_fences != 0 {
                let via_alias = cb.restrict(all, self.alias_fences).seq(&cb);
                ppcb = ppcb.union(&self.loc.inter(&via_alias.restrict(gen, gen))); // cat:79
                ppcb = ppcb.union(&self.loc.inter(&cb_pfo_inv.seq(&via_alias).restrict(all, gen))); // cat:80
                ppcb = ppcb.union(&self.loc.inter(&via_alias.restrict(gen, all).seq(&cb_pfo))); // cat:81
                ppcb = ppcb.union(&self.loc.inter(&cb_pfo_inv.seq(&via_alias).seq(&cb_pfo))); // cat:82
            }
        }
        // cat:83
        (observation.opt().seq(&ppcb), sync.union(&self.sync_barrier))
    }

    /// The coherence edges the axioms force before any choice: initial writes first
    /// (Dat3M's must-set, `visitCoherence`) and causality-ordered same-location writes
    /// (axiom-Coherence, cat:90).
    pub fn forced_co(&self, cause: &Rel) -> Rel {
        let mut co = Rel::empty(self.n);
        for i in members(self.w) {
            let init_first = if self.init & bit(i) != 0 { self.w & !self.init } else { 0 };
            co.set_row(i, (cause.row(i) | init_first) & self.w & self.loc.row(i));
        }
        co
    }

    /// Pairs axiom-Coherence2 (cat:92) wants ordered one way or the other.
    pub fn strong_write_pairs(&self) -> Vec<(usize, usize)> {
        self.ms
            .restrict(self.w, self.w)
            .inter(&self.loc)
            .pairs()
            .filter(|(i, j)| i < j)
            .collect()
    }

    /// axiom-FenceSC (cat:96).
    pub fn fence_sc(&self, cause: &Rel, sync_fence: &Rel) -> bool {
        members(self.sc_fences).all(|f| cause.row(f) & self.sc_fences & !sync_fence.row(f) == 0)
    }

    /// axiom-Atomicity (cat:99) and axiom-Causality (cat:106) for a transitive `co`.
    /// Walks each reads-from edge `w -> r` and `r`'s from-reads edges (`fr = rf^-1;co`,
    /// cat:38: `r` to every write coherence-after `w`) instead of building `fr`.
    pub fn atomicity_and_causality(&self, rf: &Rel, co: &Rel, cause: &Rel) -> bool {
        (0..self.n).all(|w| members(rf.row(w)).all(|r| self.read_consistent(w, r, co, cause)))
    }

    /// The terms of axiom-Atomicity and axiom-Causality that reads-from's edge `w -> r`
    /// adds: all of them hold for every edge exactly when the two axioms do.
    pub fn read_consistent(&self, w: usize, r: usize, co: &Rel, cause: &Rel) -> bool {
        let after = co.row(w);
        // Causality, `(rf | fr) ; cause` irreflexive: rf's edge, then fr's.
        if cause.has(r, w) || members(after).any(|x| cause.has(x, r)) {
            return false;
        }
        // Atomicity, `(ms & fr) ; (ms & co) & rmw` empty.
        members(self.rmw.row(r)).all(|own| !members(after & self.ms.row(r)).any(|x| co.has(x, own) && self.ms.has(x, own)))
    }

    /// Data races (reference §1.4): overlapping accesses, one of them a write, neither
    /// morally strong nor ordered by causality either way. Initial writes race with nothing.
    pub fn data_races(&self, cause: &Rel) -> Rel {
        let accesses = self.mem & !self.init;
        let writes = self.w & !self.init;
        let mut races = Rel::empty(self.n);
        for a in members(accesses) {
            let conflicting = if writes & bit(a) != 0 { accesses } else { writes };
            let unordered = self.loc.row(a) & conflicting & !self.ms.row(a) & !cause.row(a) & !bit(a);
            for b in members(unordered).filter(|&b| !cause.has(b, a)) {
                races.add(a, b);
            }
        }
        races
    }

    /// axiom-NoThinAir (cat:103) for `rf` with the edge `w -> r` added, where `rf` meets it:
    /// the edge closes a cycle exactly when `r` already leads to `w`.
    pub fn no_thin_air_with(&self, rf: &Rel, w: usize, r: usize) -> bool {
        w != r && !rf.union_reaches(&self.dep, r, w)
    }
}
