//! Partial-order reduction by ample sets.
//!
//! Threads are grouped into components that share nothing (no location, mbarrier, CTA
//! barrier, cluster barrier, `fence.sc`, TMEM allocator, or CTA lifetime: a CTA exits
//! with its last thread, which a peer touching its memory can observe). Steps of different components commute, so the
//! explorer runs the lowest component with an enabled agent first: k independent pairs
//! cost the sum, not the product, of their state spaces. Steps that touch only the
//! agent's own state (register ops, branches, non-SC fences) form singleton ample sets.
//! What a step touches comes from [`Instr::facts`], so no instruction kind can be missed.
//!
//! Inside a component, [`Stubborn`] narrows further, state by state: an agent's group (a
//! thread and the asynchronous agents it issued) whose next steps touch nothing that
//! any other agent can still touch (its program from its pc, or its op) runs alone.
//! Reads of one location, and waits on one mbarrier, commute.

use std::collections::HashMap;

use super::seal::{self, Tally};
use crate::check::machine::{AgentKind, AsyncWhat, Layout, Machine, Place, Status, TcWhat};
use crate::check::semantics::current_step_facts;
use crate::model::{By, Footprint, Instr, Object, Shared, Space, TcOp, TensorMemory, Use, Via};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Resource {
    Cell(usize),
    Mbar(usize),
    CtaBarrier(usize),
    /// A named barrier of a CTA whose arrivals only count ([`seal::NamedBar`]).
    NamedBar(usize, u32),
    ClusterBarrier(usize),
    FenceSc,
    /// A CTA's tensor-memory allocator: alloc, dealloc and relinquish write it; a tcgen05
    /// op (checked at issue, and in flight until a dealloc finds it complete) reads it.
    Tmem(usize),
    /// A CTA's lifetime: it ends when its last thread does, and a peer's access to its
    /// shared memory, mbarriers or TMEM afterwards is undefined behaviour. Only threads'
    /// ends write it.
    CtaLife(usize),
    /// A thread's asynchronous operations in flight (`Stubborn` only): the steps that look
    /// at them (issues that chain or group ops, waits for them, fences ordering them,
    /// touching a wgmma accumulator) write it, a TMA or `st.async` op's own steps read it.
    Asyncs(usize),
}

/// How a step uses a resource: reads commute with reads; counts on an mbarrier commute
/// with counts and waits there while its phase is sealed (`seal`); writes with nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Touch {
    Read,
    /// A plain arrive, expect-tx or complete-tx ([`seal::Signal::Count`]).
    Count,
    Write,
}

/// What `instr` shares with other threads, run by a thread placed at `place`: its named
/// objects and the shared resources its facts list. Nothing is left out by kind: an
/// instruction's facts are exhaustive, and only a [`Footprint::Local`] step shares nothing.
fn footprint(layout: &Layout, place: Place, instr: &Instr, out: &mut Vec<Resource>) {
    let mut touched = Vec::new();
    footprint_touch(layout, &[], place, instr, &mut touched);
    out.extend(touched.into_iter().map(|(r, _)| r));
}

/// [`footprint`], each resource with how the step uses it; an arrival at one of `named`
/// counts there rather than writing its CTA's barriers.
fn footprint_touch(layout: &Layout, named: &[seal::NamedBar], place: Place, instr: &Instr, out: &mut Vec<(Resource, Touch)>) {
    let facts = instr.facts();
    let signals = seal::indexed(layout, instr);
    let counts = |name: &str| layout.mbar(name).is_ok_and(|b| signals.iter().any(|(bar, s)| *bar == b && matches!(s, seal::Signal::Count { .. })));
    for named in &facts.names {
        // A wait writes only the barrier's "observed" flag, which every wait sets alike.
        let touch = match (named.object, named.how) {
            (Object::Location | Object::Tmem, Use::Read | Use::CopyFrom) | (Object::Mbarrier, Use::Wait) => Touch::Read,
            (Object::Mbarrier, Use::Arrive | Use::Transaction) if counts(named.name) => Touch::Count,
            _ => Touch::Write,
        };
        let (resource, loc) = match named.object {
            Object::Location | Object::Tmem => {
                let loc = layout.loc(named.name).ok().and_then(|l| layout.locs.get(l));
                (loc.map(|l| Resource::Cell(l.cell)), loc)
            }
            Object::Mbarrier => {
                let bar = layout.mbar(named.name).ok();
                (bar.map(Resource::Mbar), bar.and_then(|b| layout.mbar_locs.get(b)).and_then(|l| layout.locs.get(*l)))
            }
        };
        out.extend(resource.map(|r| (r, touch)));
        // A tcgen05 op checks, as it issues, that the TMEM it names is allocated.
        if let Some(Space::Tmem(cta)) = loc.map(|l| l.space) {
            out.push((Resource::Tmem(cta), Touch::Read));
        }
        let owner = loc.and_then(|l| match l.space {
            Space::Shared(cta) | Space::Tmem(cta) => Some(cta),
            Space::Global => None,
        });
        // Reaching a peer CTA's memory reads its lifetime; its last thread's end writes it.
        out.extend(owner.filter(|cta| *cta != place.cta).map(|cta| (Resource::CtaLife(cta), Touch::Read)));
    }
    match facts.footprint {
        Footprint::Local => {}
        Footprint::Shared(Shared { cta_barrier, cluster_barrier, sc_fences, tensor_memory }) => {
            // A cluster arrive only adds to the instance and a wait only reads it: they
            // commute while a member of the set has not arrived (`Stubborn::outlook`).
            let on_cluster = match instr.unwrapped() {
                Instr::ClusterArrive { .. } => Touch::Count,
                Instr::ClusterWait => Touch::Read,
                _ => Touch::Write,
            };
            let (on_cta, cta_touch) = match seal::arrival(named, place.cta, instr).and_then(|(at, _)| named.get(at)) {
                Some(bar) => (Resource::NamedBar(place.cta, bar.id), Touch::Count),
                None => (Resource::CtaBarrier(place.cta), Touch::Write),
            };
            let flagged = [
                (cta_barrier, on_cta, cta_touch),
                (cluster_barrier, Resource::ClusterBarrier(place.cluster), on_cluster),
                (sc_fences, Resource::FenceSc, Touch::Write),
            ];
            out.extend(flagged.into_iter().filter(|(on, _, _)| *on).map(|(_, r, touch)| (r, touch)));
            // Uses of TMEM commute; the allocator's changes decide whether they are defined.
            // (The CTA's exit reads what is still allocated, but only its own threads change
            // that, and while one is live the exit cannot come.)
            match tensor_memory {
                TensorMemory::Untouched => {}
                TensorMemory::Uses => out.push((Resource::Tmem(place.cta), Touch::Read)),
                TensorMemory::Allocates => out.push((Resource::Tmem(place.cta), Touch::Write)),
            }
        }
    }
    // A pair's deallocs meet (`tcgen05::pair_dealloc_readiness`): the peer's allocator too.
    if let Instr::Tc(TcOp::Dealloc { cta_group: 2, .. }) = instr.unwrapped() {
        out.extend(crate::model::pair_peer(place.cta, &layout.cta_cluster).map(|cta| (Resource::Tmem(cta), Touch::Write)));
    }
}

fn resources(layout: &Layout, thread: usize) -> Vec<Resource> {
    let Some(t) = layout.threads.get(thread) else { return Vec::new() };
    let mut out = Vec::new();
    for instr in &t.program {
        footprint(layout, t.place, instr, &mut out);
    }
    // Barriers count every thread of their CTA / cluster (exits included).
    let mut implied = Vec::new();
    for (i, other) in layout.threads.iter().enumerate() {
        if i == thread {
            continue;
        }
        if other.place.cta == t.place.cta {
            implied.push(Resource::CtaBarrier(t.place.cta));
        }
        if other.place.cluster == t.place.cluster {
            implied.push(Resource::ClusterBarrier(t.place.cluster));
        }
    }
    // Its last step may end its CTA.
    implied.push(Resource::CtaLife(t.place.cta));
    out.extend(implied);
    out
}

/// CTAs whose memory a thread of another CTA names: their threads' ends are visible.
fn peer_touched(layout: &Layout) -> Vec<usize> {
    let mut out = Vec::new();
    for t in &layout.threads {
        for instr in &t.program {
            let mut rs = Vec::new();
            footprint(layout, t.place, instr, &mut rs);
            out.extend(rs.into_iter().filter_map(|r| match r {
                Resource::CtaLife(cta) => Some(cta),
                _ => None,
            }));
        }
    }
    crate::sort::sort(&mut out);
    out.dedup();
    out
}

/// Component id per thread (threads sharing a resource, transitively, share an id).
fn components(layout: &Layout) -> Vec<usize> {
    let n = layout.threads.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p.get(r).is_some_and(|&q| q != r) {
            r = p.get(r).copied().unwrap_or(r);
        }
        r
    }
    let mut owner: HashMap<Resource, usize> = HashMap::new();
    let all: Vec<Vec<Resource>> = (0..n).map(|t| resources(layout, t)).collect();
    // A CTA/cluster barrier resource only links threads when some thread uses it, a
    // CTA's lifetime only when a thread of another CTA names its memory.
    let used: Vec<Resource> = layout
        .threads
        .iter()
        .flat_map(|t| t.program.iter().map(move |i| (t, i)))
        .flat_map(|(t, i)| {
            let mut rs = Vec::new();
            footprint(layout, t.place, i, &mut rs);
            rs.into_iter().filter(|r| matches!(r, Resource::CtaBarrier(_) | Resource::ClusterBarrier(_) | Resource::CtaLife(_)))
        })
        .collect();
    for (t, rs) in all.iter().enumerate() {
        for r in rs {
            if matches!(r, Resource::CtaBarrier(_) | Resource::ClusterBarrier(_) | Resource::CtaLife(_)) && !used.contains(r) {
                continue;
            }
            match owner.get(r) {
                Some(&o) => {
                    let (a, b) = (find(&mut parent, o), find(&mut parent, t));
                    if let Some(slot) = parent.get_mut(a.max(b)) {
                        *slot = a.min(b);
                    }
                }
                None => {
                    owner.insert(*r, t);
                }
            }
        }
    }
    (0..n).map(|t| find(&mut parent, t)).collect()
}

/// What the explorer needs to pick ample sets, computed once per scenario.
pub struct Reduction {
    components: Vec<usize>,
    /// CTAs whose memory a thread of another CTA names (so their exits are visible).
    peer_touched: Vec<usize>,
}

impl Reduction {
    pub fn new(layout: &Layout) -> Reduction {
        Reduction { components: components(layout), peer_touched: peer_touched(layout) }
    }

    /// Steps that read and write only the agent's own state. A thread's last step is not
    /// one when a peer names its CTA's memory: it may end the CTA under the peer.
    pub fn is_local(&self, layout: &Layout, m: &Machine, agent: u32) -> bool {
        let Some(a) = m.agents.get(agent as usize) else { return false };
        let AgentKind::Thread(t) = a.kind else { return false };
        let Some(thread) = layout.threads.get(t) else { return false };
        let ends_visibly = thread.step_may_end(a.pc) && self.peer_touched.contains(&thread.place.cta);
        !ends_visibly && current_step_facts(layout, m, agent).is_some_and(|facts| facts.local)
    }

    pub fn component_of(&self, m: &Machine, agent: u32) -> usize {
        match m.agents.get(agent as usize).map(|a| &a.kind) {
            Some(AgentKind::Thread(t)) => self.components.get(*t).copied().unwrap_or(0),
            Some(AgentKind::Async { issuer, .. }) => self.components.get(issuer.thread()).copied().unwrap_or(0),
            None => 0,
        }
    }
}

/// Whether `instr` looks at its thread's asynchronous ops in flight: it issues one that
/// chains on or groups with earlier ones (all but a TMA copy completing on an mbarrier),
/// waits for or orders them, or touches a register a wgmma accumulates into.
fn observes_asyncs(instr: &Instr, accumulators: &[&str]) -> bool {
    let facts = instr.facts();
    let tma_on_mbarrier = matches!(instr.unwrapped(), Instr::Bulk { mbar: Some(_), .. });
    if tma_on_mbarrier {
        // Its copies complete on the mbarrier; issuing them reads no other op.
        return false;
    }
    let issues = facts.names.iter().any(|n| n.by == By::Async);
    let orders = facts.sync.is_some_and(|s| matches!(s.via, Via::AsyncCompletion | Via::AsyncOrder));
    let tensor = matches!(facts.footprint, Footprint::Shared(Shared { tensor_memory: TensorMemory::Uses | TensorMemory::Allocates, .. }));
    issues || orders || tensor || facts.accumulator.is_some() || facts.touched().any(|r| accumulators.contains(&r))
}

/// Resources as bit sets, by how they are touched (bit `r` of each: resource `r`).
#[derive(Clone, Debug, Default)]
struct Touches {
    reads: Vec<u64>,
    counts: Vec<u64>,
    writes: Vec<u64>,
}

impl Touches {
    fn empty(words: usize) -> Touches {
        Touches { reads: vec![0; words], counts: vec![0; words], writes: vec![0; words] }
    }

    fn add(&mut self, r: usize, touch: Touch) {
        let set = match touch {
            Touch::Read => &mut self.reads,
            Touch::Count => &mut self.counts,
            Touch::Write => &mut self.writes,
        };
        if let Some(word) = set.get_mut(r / 64) {
            *word |= 1 << (r % 64);
        }
    }

    fn forget_write(&mut self, r: usize) {
        if let Some(word) = self.writes.get_mut(r / 64) {
            *word &= !(1 << (r % 64));
        }
    }

    fn union(&mut self, other: &Touches) {
        for (mine, theirs) in [(&mut self.reads, &other.reads), (&mut self.counts, &other.counts), (&mut self.writes, &other.writes)] {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a |= b;
            }
        }
    }

    /// Whether these next steps may depend on steps that touch `ahead`: a write against any
    /// touch; a read (a wait) against a count unless the barrier is `sealed`; a count
    /// against a count or a wait unless it is `quiet` (`seal::quiet` for these counts).
    fn conflicts(&self, ahead: &Touches, sealed: &[u64], quiet: &[u64]) -> bool {
        #[cfg(test)]
        if tests::ALL_COMMUTE.get() {
            return false;
        }
        (0..self.writes.len()).any(|i| {
            let at = |v: &[u64]| v.get(i).copied().unwrap_or(0);
            let (r, c, w) = (at(&self.reads), at(&self.counts), at(&self.writes));
            let (or, oc, ow) = (at(&ahead.reads), at(&ahead.counts), at(&ahead.writes));
            w & (or | oc | ow) != 0 || (r | c) & ow != 0 || r & oc & !at(sealed) != 0 || c & (oc | or) & !at(quiet) != 0
        })
    }
}

/// The state-by-state reduction inside a component (stubborn sets over agent groups).
///
/// A group is a thread with the asynchronous agents it issued (they share its registers
/// and async bookkeeping, so they are never taken apart). Starting from one group, every
/// group some of whose agents may still touch (from its pc on, loops included, or by its
/// op) a resource the set's agents touch next (a write against any use) joins the set. No
/// step outside the set can then change what a step of the set does or whether it is
/// enabled, nor enable a blocked agent of the set, so exploring only the set's enabled
/// steps keeps every final state, deadlock, hang and finding reachable (a persistent set).
/// A step on a loop (or an op issued there) is never taken this way: every cycle of
/// states then passes a state expanded by the component rule, so no step is postponed
/// round a cycle forever.
pub struct Stubborn {
    /// Per thread and pc: what the instruction touches, with the thread's end where the
    /// step may end it (barriers count live threads, a CTA ends with its last thread).
    step: Vec<Vec<Touches>>,
    /// Per thread and pc: everything the thread and the ops it issues may touch from there
    /// on, its end included.
    future: Vec<Vec<Touches>>,
    /// Per thread and pc: the pc lies within a loop.
    looping: Vec<Vec<bool>>,
    /// Per thread: what a thread stopped at `bar.sync` waits on.
    in_barrier: Vec<Touches>,
    /// Per thread and pc: what a TMA or `st.async` op issued there touches (see
    /// [`Stubborn::apart`]).
    op: Vec<Vec<Touches>>,
    /// Per thread and pc, for a multicast copy: what each destination's op touches (its
    /// destination, by location index, its barrier and the source), rather than all of them.
    multicast: Vec<Vec<Vec<(usize, Touches)>>>,
    /// Per thread and pc: a `barrier.cluster.wait` that does not end the thread. Once it
    /// may pass, its instance has completed and the next cannot complete without it: it
    /// reads only that completed instance and writes only its thread.
    cluster_wait: Vec<Vec<bool>>,
    /// Per thread and pc: the instruction's counts and waits on mbarriers (an op it issues
    /// signals the same).
    signals: Vec<Vec<Vec<(usize, seal::Signal)>>>,
    /// Per thread and pc: what the thread and the ops it issues may still signal, by
    /// mbarrier, from there on (unbounded on loops).
    future_signals: Vec<Vec<Vec<(usize, Tally)>>>,
    /// Per thread and pc: the first blocking wait on an mbarrier parity the thread reaches
    /// from there with no branch between (`gate`), and what it touches and signals before
    /// it. While the barrier is sealed and the wait blocks, the thread goes no further.
    gates: Vec<Vec<Option<Gate>>>,
    /// Per mbarrier: its resource's bit, where some step touches it.
    mbar_bit: Vec<Option<usize>>,
    /// Per cluster: its barrier's resource's bit, where some step touches it.
    cluster_bit: Vec<Option<usize>>,
    /// Named barriers whose arrivals only count. Their tallies follow the mbarriers' in
    /// `signals`, `future_signals` and gates (index `mbars + k`), in PTX threads.
    named: Vec<seal::NamedBar>,
    mbars: usize,
    /// Per named barrier: the gate of a thread stopped there, its arrival behind it (it
    /// reads the barrier and signals nothing more in this instance).
    parked_gates: Vec<Gate>,
    /// Per named barrier: its resource's bit.
    named_bit: Vec<Option<usize>>,
    /// Per CTA: its lifetime's bit.
    life_bit: Vec<Option<usize>>,
    /// Per thread: the pcs of its blocking waits, in order, with what each waits on.
    waits: Vec<Vec<(usize, Gated)>>,
    /// Per thread and pc: the first pc from there whose step branches or may end the thread.
    straight: Vec<Vec<usize>>,
    /// The CTA barriers' bits: only threads' ends count there, and ends commute.
    ends_commute: Vec<u64>,
    /// Per thread and pc: the named barrier a `bar` there arrives at, and whether it blocks.
    arrives: Vec<Vec<Option<(usize, bool)>>>,
}

/// A wait ahead of a thread that blocks until a barrier completes, and what the thread
/// does before it.
#[derive(Clone, Debug)]
struct Gate {
    on: Gated,
    before: Touches,
    signals: Vec<(usize, Tally)>,
}

#[derive(Clone, Copy, Debug)]
enum Gated {
    /// A spin wait on an mbarrier's parity.
    Mbar { bar: usize, parity: bool },
    /// `barrier.cluster.wait` (after the thread's own arrive).
    Cluster,
    /// `bar.sync` on a named barrier whose arrivals only count (it arrives, then waits).
    Named(usize),
}

/// The threads of a CTA that keep it alive while outside steps run.
#[derive(Clone, Copy, Debug, Default)]
struct Keepers {
    all: u32,
    /// Members whose next step may end them.
    ending: u32,
}

/// What the groups outside a stubborn set can do on paths of their own steps: what they
/// may touch, the mbarriers whose phase they cannot complete (sealed), and those where the
/// members' next counts commute with them too (quiet).
struct Outlook {
    /// Per group, where it is live and outside.
    ahead: Vec<Option<Touches>>,
    sealed: Vec<u64>,
    quiet: Vec<u64>,
    /// Per CTA lifetime bit: how many of its threads stay live on every path of outside
    /// steps (members, and outside threads short of their end; a member whose next step
    /// may end it counts, but only for the others' ends).
    kept: Vec<(usize, Keepers)>,
}

impl Stubborn {
    pub fn new(layout: &Layout) -> Stubborn {
        let mut index: HashMap<Resource, usize> = HashMap::new();
        let mut intern = |r: Resource| {
            let next = index.len();
            *index.entry(r).or_insert(next)
        };
        // A thread's end leaves its barriers' expected counts (ends commute with each other
        // and complete an instance in either order, like arrivals) and may end its CTA.
        let ends = |place: Place| {
            [(Resource::CtaBarrier(place.cta), Touch::Count), (Resource::ClusterBarrier(place.cluster), Touch::Count), (Resource::CtaLife(place.cta), Touch::Write)]
        };
        let named = seal::named_bars(layout);
        let mbars = layout.mbar_locs.len();
        // Interned first, so the sets know their width.
        let mut raw: Vec<Vec<Vec<(usize, Touch)>>> = Vec::new();
        let mut exits: Vec<Vec<(usize, Touch)>> = Vec::new();
        for t in &layout.threads {
            let mut per_pc = Vec::new();
            for instr in &t.program {
                let mut rs = Vec::new();
                footprint_touch(layout, &named, t.place, instr, &mut rs);
                per_pc.push(rs.into_iter().map(|(r, touch)| (intern(r), touch)).collect());
            }
            raw.push(per_pc);
            exits.push(ends(t.place).into_iter().map(|(r, touch)| (intern(r), touch)).collect());
        }
        let asyncs: Vec<usize> = (0..layout.threads.len()).map(|t| intern(Resource::Asyncs(t))).collect();
        let words = index.len().div_ceil(64).max(1);
        let mut step = Vec::new();
        let mut future = Vec::new();
        let mut looping = Vec::new();
        let mut in_barrier = Vec::new();
        let mut op = Vec::new();
        let mut cluster_wait = Vec::new();
        let mut signals = Vec::new();
        let mut future_signals = Vec::new();
        let mut gates = Vec::new();
        let mut multicast = Vec::new();
        let mut arrives = Vec::new();
        let mut waits = Vec::new();
        let mut straight = Vec::new();
        for (((t, per_pc), exit), own_asyncs) in layout.threads.iter().zip(&raw).zip(&exits).zip(&asyncs) {
            let len = t.program.len();
            let accumulators: Vec<&str> = t.program.iter().filter_map(|i| i.facts().accumulator).collect();
            let mut ops = Vec::with_capacity(len);
            let target = |instr: &Instr| match instr.unwrapped() {
                Instr::Branch { target, .. } => Some(t.labels.get(target).copied().unwrap_or(len)),
                _ => None,
            };
            let mut own = Vec::with_capacity(len);
            for (pc, (instr, rs)) in t.program.iter().zip(per_pc).enumerate() {
                let mut set = Touches::empty(words);
                for (r, touch) in rs {
                    set.add(*r, *touch);
                }
                let ends_thread = t.step_may_end(pc);
                let mut issued = set.clone();
                issued.add(*own_asyncs, Touch::Read);
                ops.push(issued);
                if observes_asyncs(instr, &accumulators) {
                    set.add(*own_asyncs, Touch::Write);
                }
                if ends_thread {
                    for (r, touch) in exit {
                        set.add(*r, *touch);
                    }
                }
                own.push(set);
            }
            cluster_wait.push(t.program.iter().enumerate().map(|(pc, i)| pc + 1 < len && matches!(i.unwrapped(), Instr::ClusterWait)).collect());
            let mut loops = vec![false; len];
            for (pc, instr) in t.program.iter().enumerate() {
                if let Some(to) = target(instr).filter(|to| *to <= pc) {
                    for slot in loops.iter_mut().take(pc + 1).skip(to) {
                        *slot = true;
                    }
                }
            }
            // From pc on: the suffix, and everything a backward branch in it reaches.
            let mut suffix = vec![Touches::empty(words); len + 1];
            for pc in (0..len).rev() {
                let mut set = suffix.get(pc + 1).cloned().unwrap_or_default();
                if let Some(s) = own.get(pc) {
                    set.union(s);
                }
                if let Some(slot) = suffix.get_mut(pc) {
                    *slot = set;
                }
            }
            let own_arrivals: Vec<Option<(usize, bool)>> = t.program.iter().map(|i| seal::arrival(&named, t.place.cta, i)).collect();
            let own_signals: Vec<Vec<(usize, seal::Signal)>> = t
                .program
                .iter()
                .zip(&own_arrivals)
                .map(|(i, at)| {
                    let mut signals = seal::indexed(layout, i);
                    signals.extend(at.map(|(k, _)| (mbars + k, seal::Signal::Count { arrivals: t.lanes, tx: 0 })));
                    signals
                })
                .collect();
            let mut signal_suffix: Vec<Vec<Tally>> = vec![vec![Tally::default(); mbars + named.len()]; len + 1];
            for pc in (0..len).rev() {
                let mut sums = signal_suffix.get(pc + 1).cloned().unwrap_or_default();
                // Past a `bar.sync` the thread arrives only in later instances.
                if let Some(Some((k, true))) = own_arrivals.get(pc) {
                    if let Some(sum) = sums.get_mut(mbars + k) {
                        *sum = Tally::default();
                    }
                }
                for (bar, signal) in own_signals.get(pc).into_iter().flatten() {
                    if let Some(sum) = sums.get_mut(*bar) {
                        sum.add_signal(*signal);
                    }
                }
                if let Some(slot) = signal_suffix.get_mut(pc) {
                    *slot = sums;
                }
            }
            let mut reach = Vec::with_capacity(len);
            let mut reach_signals = Vec::with_capacity(len);
            for pc in 0..len {
                let mut lowest = pc;
                let mut loops_ahead = false;
                loop {
                    let back = t.program.iter().enumerate().skip(lowest).filter_map(|(j, i)| target(i).filter(|to| *to <= j)).min();
                    loops_ahead |= back.is_some();
                    match back {
                        Some(to) if to < lowest => lowest = to,
                        _ => break,
                    }
                }
                let mut set = suffix.get(lowest).cloned().unwrap_or_else(|| Touches::empty(words));
                for (r, touch) in exit {
                    set.add(*r, *touch);
                }
                reach.push(set);
                let sums = signal_suffix.get(lowest).map(Vec::as_slice).unwrap_or_default();
                let sparse = sums.iter().enumerate().filter(|(_, t)| **t != Tally::default());
                reach_signals.push(sparse.map(|(bar, t)| (bar, if loops_ahead { t.repeated() } else { *t })).collect());
            }
            let mut thread_gates: Vec<Option<Gate>> = vec![None; len + 1];
            let mut thread_waits = Vec::new();
            let mut thread_straight = vec![len; len + 1];
            for pc in (0..len).rev() {
                let Some(instr) = t.program.get(pc) else { continue };
                let gated = match (seal::gate(layout, instr), instr, own_arrivals.get(pc)) {
                    (Some((bar, parity)), _, _) => Some(Gated::Mbar { bar, parity }),
                    (None, Instr::ClusterWait, _) => Some(Gated::Cluster),
                    (None, _, Some(Some((k, true)))) => Some(Gated::Named(*k)),
                    (None, _, _) => None,
                };
                thread_waits.extend(gated.map(|on| (pc, on)));
                let turns = target(instr).is_some() || t.step_may_end(pc);
                let limit = if turns { pc } else { thread_straight.get(pc + 1).copied().unwrap_or(len) };
                if let Some(slot) = thread_straight.get_mut(pc) {
                    *slot = limit;
                }
                let gate = match gated {
                    // It arrives, then waits: its own arrival comes before the gate.
                    Some(on @ Gated::Named(_)) => {
                        let before = own.get(pc).cloned().unwrap_or_else(|| Touches::empty(words));
                        let signals = own_signals.get(pc).into_iter().flatten().map(|(bar, signal)| (*bar, Tally::of(*signal))).collect();
                        Some(Gate { on, before, signals })
                    }
                    Some(on) => Some(Gate { on, before: Touches::empty(words), signals: Vec::new() }),
                    None if target(instr).is_some() => None,
                    None => thread_gates.get(pc + 1).cloned().flatten().map(|mut g| {
                        if let Some(s) = own.get(pc) {
                            g.before.union(s);
                        }
                        for (bar, signal) in own_signals.get(pc).into_iter().flatten() {
                            g.signals.push((*bar, Tally::of(*signal)));
                        }
                        g
                    }),
                };
                if let Some(slot) = thread_gates.get_mut(pc) {
                    *slot = gate;
                }
            }
            thread_gates.truncate(len);
            gates.push(thread_gates);
            thread_waits.reverse();
            waits.push(thread_waits);
            straight.push(thread_straight);
            let parts = t.program.iter().map(|instr| {
                let Instr::Bulk { dst, mbar: Some(bar), multicast: peers, .. } = instr.unwrapped() else { return Vec::new() };
                if peers.is_empty() {
                    return Vec::new();
                }
                let targets = std::iter::once((dst.clone(), bar.clone())).chain(peers.iter().cloned());
                targets
                    .filter_map(|(to, on)| {
                        let mut single = instr.clone();
                        if let Instr::Bulk { dst, mbar, multicast, .. } = single.unwrapped_mut() {
                            (*dst, *mbar, *multicast) = (to.clone(), Some(on), Vec::new());
                        }
                        let mut rs = Vec::new();
                        footprint_touch(layout, &named, t.place, &single, &mut rs);
                        let mut set = Touches::empty(words);
                        for (r, touch) in rs {
                            set.add(*index.get(&r)?, touch);
                        }
                        set.add(*own_asyncs, Touch::Read);
                        Some((layout.loc(&to).ok()?, set))
                    })
                    .collect()
            });
            multicast.push(parts.collect());
            arrives.push(own_arrivals);
            signals.push(own_signals);
            future_signals.push(reach_signals);
            let mut waits = Touches::empty(words);
            if let Some(r) = index.get(&Resource::CtaBarrier(t.place.cta)) {
                waits.add(*r, Touch::Write);
            }
            step.push(own);
            future.push(reach);
            looping.push(loops);
            in_barrier.push(waits);
            op.push(ops);
        }
        let mbar_bit = (0..layout.mbar_locs.len()).map(|b| index.get(&Resource::Mbar(b)).copied()).collect();
        let clusters = layout.cta_cluster.iter().max().map_or(0, |c| c + 1);
        let cluster_bit = (0..clusters).map(|c| index.get(&Resource::ClusterBarrier(c)).copied()).collect();
        let named_bit: Vec<Option<usize>> = named.iter().map(|b| index.get(&Resource::NamedBar(b.cta, b.id)).copied()).collect();
        let parked_gates = named_bit
            .iter()
            .enumerate()
            .map(|(k, bit)| {
                let mut before = Touches::empty(words);
                if let Some(bit) = bit {
                    before.add(*bit, Touch::Read);
                }
                Gate { on: Gated::Named(k), before, signals: Vec::new() }
            })
            .collect();
        let life_bit = (0..layout.cta_names.len()).map(|c| index.get(&Resource::CtaLife(c)).copied()).collect();
        let mut ends_commute = Touches::empty(words);
        for (r, bit) in &index {
            if let Resource::CtaBarrier(_) = r {
                ends_commute.add(*bit, Touch::Count);
            }
        }
        let ends_commute = ends_commute.counts;
        Stubborn { step, future, looping, in_barrier, op, multicast, cluster_wait, signals, future_signals, gates, mbar_bit, cluster_bit, named, mbars, parked_gates, named_bit, life_bit, waits, straight, ends_commute, arrives }
    }

    /// The signals of a live agent's next step: its instruction's, or an async agent's op's.
    fn next_signals(&self, m: &Machine, agent: usize) -> Vec<(usize, seal::Signal)> {
        let Some(a) = m.agents.get(agent) else { return Vec::new() };
        match &a.kind {
            AgentKind::Thread(_) if a.status == Status::InBarrier => Vec::new(),
            AgentKind::Thread(t) => self.signals.get(*t).and_then(|s| s.get(a.pc)).cloned().unwrap_or_default(),
            AgentKind::Async { op, .. } => seal::of_op(op),
        }
    }

    /// The gate a live thread stands before, if its barrier is sealed (mbarriers by index
    /// in `sealed`, clusters in `clusters`) and the wait blocks in its current phase.
    fn closed_gate(&self, m: &Machine, agent: usize, sealed: &[bool], clusters: &[bool]) -> Option<&Gate> {
        let a = m.agents.get(agent)?;
        let AgentKind::Thread(t) = a.kind else { return None };
        if a.status == Status::InBarrier {
            let k = self.parked(m, agent)?;
            return sealed.get(self.mbars + k).copied().unwrap_or(false).then(|| self.parked_gates.get(k)).flatten();
        }
        let gate = self.gates.get(t)?.get(a.pc)?.as_ref()?;
        self.blocks(m, agent, gate.on, sealed, clusters).then_some(gate)
    }

    /// Whether a wait of `agent` on `on` blocks on every path of outside steps: its barrier
    /// is sealed (mbarriers and named barriers by index in `sealed`, clusters in
    /// `clusters`), so its phase or instance stays as it is now, and the wait blocks in it.
    fn blocks(&self, m: &Machine, agent: usize, on: Gated, sealed: &[bool], clusters: &[bool]) -> bool {
        let Some(a) = m.agents.get(agent) else { return false };
        match on {
            Gated::Mbar { bar, parity } => {
                let blocks = m.mbars.get(bar).is_some_and(|b| (b.phase & 1 == 1) == parity);
                blocks && sealed.get(bar).copied().unwrap_or(false)
            }
            // It waits for the instance it arrives in: the current one, unless it arrived
            // in one that has completed since (then the wait passes).
            Gated::Cluster => {
                let current = m.cluster_bars.get(a.place.cluster).map_or(0, |cb| cb.instance);
                a.cluster_arrived.is_none_or(|k| k >= current) && clusters.get(a.place.cluster).copied().unwrap_or(false)
            }
            // Sealed counting its own arrival, which therefore does not complete the instance.
            Gated::Named(k) => sealed.get(self.mbars + k).copied().unwrap_or(false),
        }
    }

    /// Whether a member thread stays live while outside steps run (it does: a member stopped
    /// at a barrier waits on it, so no outside arrival completes it), and if so whether its
    /// own next step may end it (or branch).
    fn member_keeps(&self, m: &Machine, agent: usize) -> Option<bool> {
        let a = m.agents.get(agent)?;
        let AgentKind::Thread(t) = a.kind else { return None };
        match a.status {
            Status::Done => None,
            Status::Running => Some(self.straight.get(t).and_then(|s| s.get(a.pc)).is_none_or(|&limit| limit == a.pc)),
            Status::InBarrier => Some(false),
        }
    }

    /// Whether a live thread stays short of its end on every path of outside steps: a wait
    /// ahead of it, with no branch and no possible end before, blocks there
    /// ([`Stubborn::blocks`]), or it stands at a named barrier that is sealed.
    fn short_of_end(&self, m: &Machine, agent: usize, sealed: &[bool], clusters: &[bool]) -> bool {
        let Some(a) = m.agents.get(agent) else { return false };
        let AgentKind::Thread(t) = a.kind else { return false };
        let from = match a.status {
            Status::Done => return false,
            Status::InBarrier if self.parked(m, agent).is_some_and(|k| sealed.get(self.mbars + k).copied().unwrap_or(false)) => return true,
            Status::InBarrier => a.pc + 1,
            Status::Running => a.pc,
        };
        let (Some(waits), Some(&limit)) = (self.waits.get(t), self.straight.get(t).and_then(|s| s.get(from))) else { return false };
        let first = waits.partition_point(|(pc, _)| *pc < from);
        waits.iter().skip(first).take_while(|(pc, _)| *pc <= limit).any(|(_, on)| self.blocks(m, agent, *on, sealed, clusters))
    }

    /// Per cluster: its barrier's current instance cannot complete by outside steps, as a
    /// live thread of a member group has not arrived in it (every live thread must).
    fn sealed_clusters(m: &Machine, member_agent: &dyn Fn(usize) -> bool) -> Vec<bool> {
        let mut sealed = vec![false; m.cluster_bars.len()];
        for (i, a) in m.agents.iter().enumerate() {
            let AgentKind::Thread(_) = a.kind else { continue };
            let Some(cb) = m.cluster_bars.get(a.place.cluster) else { continue };
            if a.status != Status::Done && member_agent(i) && a.cluster_arrived != Some(cb.instance) {
                if let Some(slot) = sealed.get_mut(a.place.cluster) {
                    *slot = true;
                }
            }
        }
        sealed
    }

    /// The named barrier a thread stopped at `bar.sync` waits at, where its arrivals only count.
    fn parked(&self, m: &Machine, agent: usize) -> Option<usize> {
        let a = m.agents.get(agent).filter(|a| a.status == Status::InBarrier)?;
        let AgentKind::Thread(t) = a.kind else { return None };
        self.arrives.get(t)?.get(a.pc)?.map(|(k, _)| k)
    }

    /// Adds what a live agent may still signal (up to its closed gate, if any) to `into`.
    /// A thread stopped at a named barrier adds nothing there: it arrives again only in a
    /// later instance.
    fn tally_ahead(&self, m: &Machine, agent: usize, gate: Option<&Gate>, into: &mut [Tally]) {
        let Some(a) = m.agents.get(agent) else { return };
        let waiting_at = self.parked(m, agent).map(|k| self.mbars + k);
        let mut add = |bar: usize, t: &Tally| {
            if let (Some(sum), false) = (into.get_mut(bar), waiting_at == Some(bar)) {
                sum.add(t);
            }
        };
        match (&a.kind, gate) {
            (_, Some(gate)) => gate.signals.iter().for_each(|(bar, t)| add(*bar, t)),
            (AgentKind::Thread(t), None) => {
                self.future_signals.get(*t).and_then(|f| f.get(a.pc)).into_iter().flatten().for_each(|(bar, t)| add(*bar, t));
            }
            (AgentKind::Async { op, .. }, None) => {
                for (bar, signal) in seal::of_op(op) {
                    add(bar, &Tally::of(signal));
                }
            }
        }
    }

    /// Per mbarrier, then per named barrier: the outside steps `outside` tallies cannot
    /// complete its current phase or instance.
    fn seals(&self, m: &Machine, outside: &[Tally]) -> Vec<bool> {
        let mbars = (0..self.mbars).map(|b| m.mbars.get(b).zip(outside.get(b)).is_some_and(|(state, out)| seal::sealed(state, out)));
        let named = self.named.iter().enumerate().map(|(k, bar)| {
            outside.get(self.mbars + k).is_some_and(|out| seal::named_sealed(bar, m.bars.get(&(bar.cta, bar.id)), out))
        });
        mbars.chain(named).collect()
    }

    /// The [`Outlook`] of the groups outside `member`. Gates close where their barrier is
    /// sealed, which shortens what the outside may do, which may seal more barriers: a few
    /// rounds, each sound (a gate closes only on a barrier the outside, gated as in that
    /// round, cannot complete, and closing more only lowers their counts).
    fn outlook(&self, m: &Machine, live: &[usize], outside_agent: &dyn Fn(usize) -> bool, member_agent: &dyn Fn(usize) -> bool, groups: usize, owner_of: &dyn Fn(usize) -> Option<usize>, words: usize) -> Outlook {
        let bars = self.mbars + self.named.len();
        let mut member_counts: Vec<Vec<(u32, i64)>> = vec![Vec::new(); bars];
        for &a in live.iter().filter(|&&a| member_agent(a)) {
            for (bar, signal) in self.next_signals(m, a) {
                if let (seal::Signal::Count { arrivals, tx }, Some(counts)) = (signal, member_counts.get_mut(bar)) {
                    counts.push((arrivals, tx));
                }
            }
        }
        let clusters = Stubborn::sealed_clusters(m, member_agent);
        // Gates close on `closing`; `sealed` is what the outside, so gated, cannot complete.
        // Each round closes the gates of the barriers the last one sealed.
        let mut closing = vec![false; bars];
        let mut outside = vec![Tally::default(); bars];
        let mut sealed;
        let mut round = 0;
        loop {
            outside.iter_mut().for_each(|t| *t = Tally::default());
            for &a in live.iter().filter(|&&a| outside_agent(a)) {
                self.tally_ahead(m, a, self.closed_gate(m, a, &closing, &clusters), &mut outside);
            }
            sealed = self.seals(m, &outside);
            round += 1;
            if sealed == closing || round == 3 {
                break;
            }
            closing = sealed.clone();
        }
        let mut outlook = Outlook { ahead: vec![None; groups], sealed: vec![0; words], quiet: self.ends_commute.clone(), kept: Vec::new() };
        let mark = |set: &mut Vec<u64>, bit: usize| {
            if let Some(word) = set.get_mut(bit / 64) {
                *word |= 1 << (bit % 64);
            }
        };
        let named = self.named.iter().enumerate().map(|(k, bar)| (self.mbars + k, self.named_bit.get(k).copied().flatten(), Some(bar)));
        let mbars = self.mbar_bit.iter().enumerate().map(|(b, bit)| (b, *bit, None));
        for (at, bit, named_bar) in mbars.chain(named) {
            let (Some(bit), Some(out), true) = (bit, outside.get(at), sealed.get(at).copied().unwrap_or(false)) else { continue };
            mark(&mut outlook.sealed, bit);
            let counts = member_counts.get(at).map(Vec::as_slice).unwrap_or_default();
            let quiet = match named_bar {
                Some(bar) => counts.iter().all(|(lanes, _)| seal::named_quiet(bar, m.bars.get(&(bar.cta, bar.id)), out, *lanes)),
                None => m.mbars.get(at).is_some_and(|state| counts.iter().all(|(arrivals, tx)| seal::quiet(state, out, *arrivals, *tx))),
            };
            if quiet {
                mark(&mut outlook.quiet, bit);
            }
        }
        // A cluster instance a member has not arrived in: arrivals commute with arrivals and
        // waits (the last arrival completes it in either order; no wait passes before).
        for (cluster, bit) in self.cluster_bit.iter().enumerate() {
            if let (Some(bit), true) = (bit, clusters.get(cluster).copied().unwrap_or(false)) {
                mark(&mut outlook.sealed, *bit);
                mark(&mut outlook.quiet, *bit);
            }
        }
        // A CTA outlives every path of outside steps while one of its threads is in the set,
        // or stays short of its end. An outside end is then not its last; nor does it make a
        // member's end the last, unless that member is the only one keeping it.
        let mut per_cta = vec![Keepers::default(); self.life_bit.len()];
        let mut keep = |a: usize, ending: bool| {
            let Some(keepers) = m.agents.get(a).and_then(|x| per_cta.get_mut(x.place.cta)) else { return };
            keepers.all += 1;
            keepers.ending += u32::from(ending);
        };
        for &a in live.iter().filter(|&&a| member_agent(a)) {
            if let Some(ending) = self.member_keeps(m, a) {
                keep(a, ending);
            }
        }
        for &a in live.iter().filter(|&&a| outside_agent(a)) {
            let Some(slot) = owner_of(a).and_then(|g| outlook.ahead.get_mut(g)) else { continue };
            let slot = slot.get_or_insert_with(|| Touches::empty(words));
            match self.closed_gate(m, a, &closing, &clusters) {
                Some(gate) => slot.union(&gate.before),
                None => {
                    if let Some(f) = self.ahead(m, a) {
                        slot.union(f);
                    }
                }
            }
            if self.short_of_end(m, a, &closing, &clusters) {
                keep(a, false);
            }
        }
        outlook.kept = self.life_bit.iter().zip(per_cta).filter(|(_, keepers)| keepers.all > 0).filter_map(|(bit, keepers)| Some(((*bit)?, keepers))).collect();
        for (bit, keepers) in &outlook.kept {
            if keepers.all >= 2 || keepers.ending == 0 {
                for slot in outlook.ahead.iter_mut().flatten() {
                    slot.forget_write(*bit);
                }
            }
        }
        outlook
    }

    /// TMA copies and `st.async` stand apart from their issuer: their steps touch only
    /// what their instruction names (and read that the issuer has ops in flight). Other
    /// ops chain on, or are tracked with, the issuer's other ops, so they stay with it.
    fn apart(op: &AsyncWhat) -> bool {
        match op {
            AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } | AsyncWhat::StAsync { .. } => true,
            AsyncWhat::CpAsync { .. } | AsyncWhat::CpArrive { .. } | AsyncWhat::Wgmma { .. } | AsyncWhat::Tc(_) => false,
        }
    }

    /// The agent's group: its thread's (threads first), or its own for an op apart.
    fn group(&self, m: &Machine, agent: usize) -> Option<usize> {
        match &m.agents.get(agent)?.kind {
            AgentKind::Thread(t) => Some(*t),
            AgentKind::Async { op, .. } if Stubborn::apart(&op.what) => Some(self.step.len() + agent),
            AgentKind::Async { issuer, .. } => Some(issuer.thread()),
        }
    }

    /// What a live agent touches with its next step: a thread its instruction at pc, an
    /// asynchronous agent what its issuing instruction names.
    fn next(&self, m: &Machine, agent: usize) -> Option<&Touches> {
        let a = m.agents.get(agent)?;
        match &a.kind {
            AgentKind::Thread(t) if a.status == Status::InBarrier => match self.parked(m, agent) {
                Some(k) => self.parked_gates.get(k).map(|g| &g.before),
                None => self.in_barrier.get(*t),
            },
            AgentKind::Thread(t) => self.step.get(*t)?.get(a.pc),
            AgentKind::Async { issuer, op } if Stubborn::apart(&op.what) => self.op_touches(issuer, &op.what),
            AgentKind::Async { issuer, .. } => self.step.get(issuer.thread())?.get(issuer.pc()),
        }
    }

    /// What an op apart touches: its own destination's part of a multicast copy, else all
    /// its instruction names.
    fn op_touches(&self, issuer: &crate::check::machine::InstrRef, what: &AsyncWhat) -> Option<&Touches> {
        let parts = self.multicast.get(issuer.thread())?.get(issuer.pc())?;
        let own = match what {
            AsyncWhat::Bulk { dst, .. } => parts.iter().find(|(to, _)| to == dst).map(|(_, t)| t),
            _ => None,
        };
        own.or_else(|| self.op.get(issuer.thread())?.get(issuer.pc()))
    }

    /// What a live agent may touch from now on.
    fn ahead(&self, m: &Machine, agent: usize) -> Option<&Touches> {
        let a = m.agents.get(agent)?;
        match &a.kind {
            AgentKind::Thread(t) => self.future.get(*t)?.get(a.pc),
            AgentKind::Async { issuer, op } if Stubborn::apart(&op.what) => self.op_touches(issuer, &op.what),
            AgentKind::Async { issuer, .. } => self.step.get(issuer.thread())?.get(issuer.pc()),
        }
    }

    fn passes_cluster_wait(&self, m: &Machine, agent: usize) -> bool {
        match m.agents.get(agent).map(|a| (&a.kind, a.pc)) {
            Some((AgentKind::Thread(t), pc)) => self.cluster_wait.get(*t).and_then(|w| w.get(pc)).copied().unwrap_or(false),
            _ => false,
        }
    }

    fn on_loop(&self, m: &Machine, agent: usize) -> bool {
        let at = m.agents.get(agent).map(|a| match &a.kind {
            AgentKind::Thread(t) => (*t, a.pc),
            AgentKind::Async { issuer, .. } => (issuer.thread(), issuer.pc()),
        });
        at.is_none_or(|(t, pc)| self.looping.get(t).and_then(|l| l.get(pc)).copied().unwrap_or(true))
    }

    /// The agents of the smallest closed set of groups that has an enabled agent and whose
    /// enabled agents are off loops, or `None` when no set is smaller than every group.
    /// `enabled` lists the enabled agents. Only groups whose agents are `in_scope` (the
    /// component the component rule runs, which shares nothing with the others) start or
    /// join a set.
    pub fn ample(&self, m: &Machine, enabled: &[u32], in_scope: impl Fn(u32) -> bool) -> Option<Vec<bool>> {
        let live: Vec<usize> = (0..m.agents.len()).filter(|&a| m.agents.get(a).is_some_and(|x| x.status != Status::Done)).collect();
        let owners: Vec<Option<usize>> = (0..m.agents.len()).map(|a| self.group(m, a)).collect();
        let owner_of = |a: usize| owners.get(a).copied().flatten();
        // An op waiting for another group's op would tie the two groups: not taken apart.
        let crossed = live.iter().any(|&a| {
            let after: &[u32] = match m.agents.get(a).map(|x| &x.kind) {
                Some(AgentKind::Async { op, .. }) => match &op.what {
                    AsyncWhat::CpArrive { after, .. } | AsyncWhat::Tc(TcWhat::Commit { after, .. }) => after,
                    AsyncWhat::Wgmma { after, .. } => after.as_slice(),
                    _ => &[],
                },
                _ => &[],
            };
            after.iter().any(|b| owner_of(*b as usize) != owner_of(a))
        });
        if crossed {
            return None;
        }
        let groups = self.step.len() + m.agents.len();
        let words = self.step.iter().flatten().next().map_or(1, |t| t.reads.len());
        // Per group: what its live agents touch next, whether one is live.
        let mut next = vec![Touches::empty(words); groups];
        let mut live_group = vec![false; groups];
        for &a in &live {
            let Some(g) = owner_of(a) else { return None };
            let (Some(n), Some(_)) = (self.next(m, a), self.ahead(m, a)) else { return None };
            let passing = enabled.contains(&(a as u32)) && self.passes_cluster_wait(m, a);
            if let (Some(gn), Some(l)) = (next.get_mut(g), live_group.get_mut(g)) {
                if !passing {
                    gn.union(n);
                }
                *l = true;
            }
        }
        let mut enabled_group = vec![false; groups];
        for &a in enabled {
            if let Some(slot) = owner_of(a as usize).and_then(|g| enabled_group.get_mut(g)) {
                *slot = true;
            }
        }
        let mut scoped = vec![false; groups];
        for &a in live.iter().filter(|&&a| in_scope(a as u32)) {
            if let Some(slot) = owner_of(a).and_then(|g| scoped.get_mut(g)) {
                *slot = true;
            }
        }
        let at = |v: &[bool], g: usize| v.get(g).copied().unwrap_or(false);
        let live_groups: Vec<usize> = (0..groups).filter(|g| at(&live_group, *g)).collect();
        let mut best: Option<Vec<bool>> = None;
        let mut best_size = (0..groups).filter(|g| at(&live_group, *g) && at(&scoped, *g)).count();
        for start in (0..groups).filter(|g| at(&enabled_group, *g) && at(&scoped, *g)) {
            let mut member = vec![false; groups];
            if let Some(slot) = member.get_mut(start) {
                *slot = true;
            }
            let mut size = 1;
            loop {
                let in_member = |a: usize| owner_of(a).is_some_and(|g| at(&member, g));
                let Outlook { ahead, sealed, quiet, kept } = self.outlook(m, &live, &|a| !in_member(a), &in_member, groups, &owner_of, words);
                let none = vec![0u64; words];
                // Outside groups with no enabled agent stay put on every path of outside
                // steps unless such a step writes what they wait on: dormant.
                // (A conflict with a union is a conflict with one of its parts.)
                let ahead_of = |k: usize| ahead.get(k).and_then(Option::as_ref);
                let mut dormant: Vec<bool> = (0..groups).map(|g| at(&live_group, g) && !at(&member, g) && !at(&enabled_group, g)).collect();
                loop {
                    let mut stirring = Touches::empty(words);
                    for &k in live_groups.iter().filter(|&&k| !at(&member, k) && !at(&dormant, k)) {
                        if let Some(f) = ahead_of(k) {
                            stirring.union(f);
                        }
                    }
                    let woken: Vec<usize> = live_groups.iter().copied().filter(|&h| at(&dormant, h) && next.get(h).is_none_or(|n| n.conflicts(&stirring, &sealed, &none))).collect();
                    if woken.is_empty() {
                        break;
                    }
                    for h in woken {
                        if let Some(slot) = dormant.get_mut(h) {
                            *slot = false;
                        }
                    }
                }
                let mut set_next = Touches::empty(words);
                for g in (0..groups).filter(|g| at(&member, *g)) {
                    if let Some(n) = next.get(g) {
                        set_next.union(n);
                    }
                }
                // A member's end is not its CTA's last while another thread keeps it alive.
                for (bit, _) in kept.iter().filter(|(_, keepers)| keepers.all >= 2) {
                    set_next.forget_write(*bit);
                }
                let joining: Vec<usize> = live_groups
                    .iter()
                    .copied()
                    .filter(|&k| at(&scoped, k) && !at(&member, k) && !at(&dormant, k))
                    .filter(|&k| ahead_of(k).is_some_and(|f| set_next.conflicts(f, &sealed, &quiet)))
                    .collect();
                if joining.is_empty() || size >= best_size {
                    break;
                }
                for k in joining {
                    if let Some(slot) = member.get_mut(k) {
                        *slot = true;
                    }
                    size += 1;
                }
            }
            if size >= best_size {
                continue;
            }
            let in_set = |a: u32| owner_of(a as usize).is_some_and(|g| at(&member, g));
            if enabled.iter().any(|&a| in_set(a) && self.on_loop(m, a as usize)) {
                continue;
            }
            best_size = size;
            best = Some(member);
            if size == 1 {
                break;
            }
        }
        let best = best?;
        Some((0..m.agents.len()).map(|a| owner_of(a).is_some_and(|g| best.get(g).copied().unwrap_or(false))).collect())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::cell::Cell;

    thread_local! {
        /// A deliberately wrong rule for the test that shows the comparison can fail:
        /// every step commutes with every other.
        pub(in crate::check::explore) static ALL_COMMUTE: Cell<bool> = const { Cell::new(false) };
    }
}
