//! Enumerating candidate executions: one shape of run per thread, then reads-from (which
//! picks the values read, and so the runs of that shape), then the Fence-SC order, then
//! coherence, pruning as soon as an axiom fails.
//!
//! Runs of a thread that differ only in the values they read and write have one shape:
//! the same events, hence the same relations that read no value ([`Static`]), built once.
//! Choosing a read's write fixes the value both carry, which keeps only the runs of each
//! thread with that value there: combinations of runs are never enumerated one by one,
//! and a reads-from choice that breaks an axiom is dropped for all of them at once.
//!
//! Coherence is built, not guessed: the edges the axioms force (initial writes first,
//! causality-ordered writes, cat:90) are taken, and only pairs of morally strong writes
//! left unordered (cat:92) are branched on. The remaining axioms only get harder to meet
//! as coherence grows (cat:99 and cat:106 read `co` and `fr = rf^-1;co` positively), so a
//! smallest coherence is consistent whenever any is. A location's final value is that of
//! a coherence-last write (Dat3M's `lastCo`, `PropertyEncoder`), any of them when several
//! are unordered; a larger coherence only has fewer last writes.
//!
//! [`Goal::Hang`] searches the same way over combinations with a stuck run, and stops at the
//! first execution whose stuck rounds read only coherence-last writes.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

use super::events::{BarrierKind, End, Ev, Kind, Places, Trace};
use super::model::{Event, Inputs, Static};
use super::rel::{members, Rel, Words};
use super::{AxiomError, Execution, Final, Hang, Limits, Race, Stay, Witness};

/// What the search looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Every final state, and a race (the runs are all [`End::Finished`]).
    Outcomes,
    /// One consistent execution in which some run spins for ever (Dat3M's non-termination
    /// for side-effect-free loops, `NonTerminationEncoder`): combinations with a stuck run.
    Hang,
}

pub struct Found {
    pub finals: BTreeMap<Final, Witness>,
    pub candidates: u64,
    /// A racy execution, one an interleaving performs when there is such.
    pub race: Option<Race>,
    /// With [`Goal::Hang`], the first hanging execution found.
    pub hang: Option<Hang>,
}

/// Where an execution comes in the order of enumerating one combination of runs after
/// another (the first thread's run changing fastest), each combination's reads-from,
/// Fence-SC and coherence choices in turn: the order the witnesses are chosen by, the
/// first found being kept, whatever order the search visits them in.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    /// The runs' indices, last thread first.
    runs: Vec<usize>,
    /// Executions recorded before this one.
    seq: u64,
}

/// What the search has found so far, with the ranks of the kept witnesses.
struct Kept {
    /// Hashed, not ordered, while the search runs: comparing final states (registers by
    /// name) took more time than the search itself on programs with many runs.
    finals: HashMap<Final, (Rank, Witness), Words>,
    candidates: u64,
    race: Option<(Rank, Race)>,
    hang: Option<Hang>,
    seq: u64,
}

impl Kept {
    fn found(self) -> Found {
        Found {
            finals: self.finals.into_iter().map(|(fin, (_, witness))| (fin, witness)).collect(),
            candidates: self.candidates,
            race: self.race.map(|(_, race)| race),
            hang: self.hang,
        }
    }
}

/// Visits every combination of one shape of run per thread.
pub fn search(places: &Places, per_thread: &[Vec<Trace>], limits: &Limits, goal: Goal) -> Result<Found, AxiomError> {
    let mut kept = Kept { finals: HashMap::default(), candidates: 0, race: None, hang: None, seq: 0 };
    if per_thread.iter().any(Vec::is_empty) {
        return Ok(kept.found());
    }
    let shapes: Vec<Vec<Vec<usize>>> = per_thread.iter().map(|traces| shape_classes(traces)).collect();
    let mut pick = vec![0usize; per_thread.len()];
    loop {
        let runs: Vec<&[usize]> = pick.iter().zip(&shapes).map(|(&i, classes)| classes[i].as_slice()).collect();
        let first: Vec<&Trace> = runs.iter().zip(per_thread).map(|(r, ts)| &ts[r[0]]).collect();
        let viable = match goal {
            Goal::Outcomes => barriers_complete(places, &first),
            Goal::Hang => first.iter().any(|t| matches!(t.end, End::Stuck { .. })) && barriers_hang(places, &first),
        };
        if viable {
            combination(places, per_thread, &runs, limits, goal, &mut kept)?;
        }
        if kept.hang.is_some() || !next_pick(&mut pick, |k| shapes[k].len()) {
            return Ok(kept.found());
        }
    }
}

/// The thread's runs grouped by shape (the same events but for the values, and the same
/// end), each group's indices ascending, groups in the order of their first run.
fn shape_classes(traces: &[Trace]) -> Vec<Vec<usize>> {
    let mut index: HashMap<(Vec<Ev>, End), usize> = HashMap::new();
    let mut classes: Vec<Vec<usize>> = Vec::new();
    for (i, t) in traces.iter().enumerate() {
        let shape = (t.events.iter().map(|e| Ev { value: 0, ..e.clone() }).collect(), t.end);
        let next = classes.len();
        let class = *index.entry(shape).or_insert(next);
        if class == next {
            classes.push(Vec::new());
        }
        classes[class].push(i);
    }
    classes
}

/// Whether the threads of a combination can all get past their barriers: a `bar.sync`
/// passes once every other thread of its CTA has arrived at that use or has finished its
/// run (an exited thread no longer holds a barrier back, as in the explorer), and a
/// `barrier.cluster.wait` likewise over the cluster's arrives. A combination that gets
/// stuck hangs: no final state, and liveness is the explorer's business. Barriers are
/// part of a run's shape.
fn barriers_complete(places: &Places, combo: &[&Trace]) -> bool {
    let barriers: Vec<Vec<BarrierKind>> = combo
        .iter()
        .map(|t| t.events.iter().filter_map(|e| if let Kind::Barrier(b) = e.kind { Some(b) } else { None }).collect())
        .collect();
    let mut at = vec![0usize; combo.len()];
    // Whether thread `u` has reached (or passed) a barrier event matching `want`, or finished.
    let reached = |at: &[usize], u: usize, want: &dyn Fn(BarrierKind) -> bool| {
        at[u] == barriers[u].len() || barriers[u][..=at[u]].iter().any(|&b| want(b))
    };
    loop {
        let mut moved = false;
        for t in 0..combo.len() {
            let Some(&b) = barriers[t].get(at[t]) else { continue };
            let passes = match b {
                BarrierKind::Cta { id, generation, arrive_only: false } => (0..combo.len())
                    .filter(|&u| u != t && places.threads[u].0 == places.threads[t].0)
                    .all(|u| reached(&at, u, &|x| matches!(x, BarrierKind::Cta { id: i, generation: g, .. } if i == id && g == generation))),
                BarrierKind::Cluster { generation, wait: true, .. } => (0..combo.len())
                    .filter(|&u| places.threads[u].1 == places.threads[t].1)
                    .all(|u| reached(&at, u, &|x| matches!(x, BarrierKind::Cluster { generation: g, wait: false, .. } if g == generation))),
                BarrierKind::Cta { .. } | BarrierKind::Cluster { .. } => true,
            };
            if passes {
                at[t] += 1;
                moved = true;
            }
        }
        if at.iter().zip(&barriers).all(|(a, b)| *a == b.len()) {
            return true;
        }
        if !moved {
            return false;
        }
    }
}

/// Whether a combination with runs that never end can happen: every run but a blocked one
/// gets past all its barriers, and each blocked run's last barrier never completes. A
/// finished run holds no barrier back (as in [`barriers_complete`]); a run stuck in a spin
/// never arrives anywhere again, so it holds back every barrier it has not reached.
fn barriers_hang(places: &Places, combo: &[&Trace]) -> bool {
    let barriers: Vec<Vec<BarrierKind>> = combo
        .iter()
        .map(|t| t.events.iter().filter_map(|e| if let Kind::Barrier(b) = e.kind { Some(b) } else { None }).collect())
        .collect();
    let mut at = vec![0usize; combo.len()];
    // Whether thread `u` has arrived at (or passed) a barrier event matching `want`, or finished.
    let reached = |at: &[usize], u: usize, want: &dyn Fn(BarrierKind) -> bool| {
        let len = barriers[u].len();
        (combo[u].end == End::Finished && at[u] == len) || barriers[u][..(at[u] + 1).min(len)].iter().any(|&b| want(b))
    };
    loop {
        let mut moved = false;
        for t in 0..combo.len() {
            let Some(&b) = barriers[t].get(at[t]) else { continue };
            let passes = match b {
                BarrierKind::Cta { id, generation, arrive_only: false } => (0..combo.len())
                    .filter(|&u| u != t && places.threads[u].0 == places.threads[t].0)
                    .all(|u| reached(&at, u, &|x| matches!(x, BarrierKind::Cta { id: i, generation: g, .. } if i == id && g == generation))),
                BarrierKind::Cluster { generation, wait: true, .. } => (0..combo.len())
                    .filter(|&u| places.threads[u].1 == places.threads[t].1)
                    .all(|u| reached(&at, u, &|x| matches!(x, BarrierKind::Cluster { generation: g, wait: false, .. } if g == generation))),
                BarrierKind::Cta { .. } | BarrierKind::Cluster { .. } => true,
            };
            if passes {
                at[t] += 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    combo.iter().zip(&at).zip(&barriers).all(|((trace, &at), barriers)| match trace.end {
        End::Blocked => at + 1 == barriers.len(),
        End::Finished | End::Stuck { .. } => at == barriers.len(),
    })
}

/// One combination of shapes: its events (values aside), their relations, and the runs of
/// each shape (`runs[t]`, indices into `per_thread[t]`).
struct Shaped<'a> {
    per_thread: &'a [Vec<Trace>],
    /// Per thread, the index of its first event.
    base: Vec<usize>,
    /// Per event, its thread and place in that thread's run (`None`: an initial write).
    origin: Vec<Option<(usize, usize)>>,
    events: Vec<Event>,
    /// Per thread, how its runs end.
    ends: Vec<End>,
    st: Static,
    /// The empty relation: reads-from's choices come before any Fence-SC order.
    no_fence_order: Rel,
    /// Program order as pairs, for drawing each witness.
    po_pairs: Vec<(usize, usize)>,
}

impl Shaped<'_> {
    /// One past the index of thread `t`'s last event.
    fn end_of(&self, t: usize) -> usize {
        self.base.get(t + 1).copied().unwrap_or(self.st.n)
    }

    /// The value event `e` carries in thread `t`'s run `run`.
    fn value(&self, t: usize, run: usize, at: usize) -> i64 {
        self.per_thread[t][run].events[at].value
    }
}

fn combination(places: &Places, per_thread: &[Vec<Trace>], runs: &[&[usize]], limits: &Limits, goal: Goal, kept: &mut Kept) -> Result<(), AxiomError> {
    let first: Vec<&Trace> = runs.iter().zip(per_thread).map(|(r, ts)| &ts[r[0]]).collect();
    // Initial writes of the locations this combination touches, then each thread's events.
    let mut used: Vec<usize> = first.iter().flat_map(|t| t.events.iter().filter(|e| matches!(e.kind, Kind::Read | Kind::Write)).map(|e| e.phys)).collect();
    used.sort_unstable();
    used.dedup();
    let total = used.len() + first.iter().map(|t| t.events.len()).sum::<usize>();
    if total > super::rel::MAX_EVENTS {
        return Err(AxiomError::TooLarge(format!("an execution has {total} events, more than {}", super::rel::MAX_EVENTS)));
    }
    let mut events: Vec<Event> = used
        .iter()
        .map(|&p| Event {
            thread: None,
            kind: Kind::Write,
            instr: 0,
            phys: p,
            virt: p,
            value: places.init[p],
            proxy: None,
            order: super::events::Order::Weak,
            scope: None,
        })
        .collect();
    let mut origin = vec![None; events.len()];
    let mut base = Vec::with_capacity(first.len());
    let mut rmw = Vec::new();
    let mut dep = Vec::new();
    for (t, trace) in first.iter().enumerate() {
        let start = events.len();
        base.push(start);
        for (i, e) in trace.events.iter().enumerate() {
            events.push(Event {
                thread: Some(t),
                kind: e.kind,
                instr: e.instr,
                phys: e.phys,
                virt: e.virt,
                value: e.value,
                proxy: e.proxy,
                order: e.order,
                scope: e.scope,
            });
            origin.push(Some((t, i)));
            if let Some(r) = e.rmw_read {
                rmw.push((start + r, start + i));
            }
            for r in members(e.data | e.ctrl) {
                dep.push((start + r, start + i));
            }
        }
    }
    let covers = |a: usize, scope, b: usize| places.covers(a, scope, b);
    let place = |t: usize| (places.threads[t].0, places.threads[t].1);
    let strict = limits.mode == crate::model::Mode::Strict;
    let st = Static::new(&Inputs { events: &events, covers: &covers, place: &place, rmw: &rmw, dep: &dep, strict });
    let ends = first.iter().map(|t| t.end).collect();
    let no_fence_order = Rel::empty(st.n);
    let po_pairs = st.po.pairs().collect();
    let shaped = Shaped { per_thread, base, origin, events, ends, st, no_fence_order, po_pairs };
    let st = &shaped.st;

    // Reads-from candidates: same physical location, not the read's own RMW write. The
    // values are settled as each is chosen.
    let reads: Vec<usize> = members(st.r).collect();
    let mut candidates: Vec<Vec<usize>> = Vec::with_capacity(reads.len());
    for &r in &reads {
        let own_write = rmw.iter().find(|(a, _)| *a == r).map(|(_, w)| *w);
        let c: Vec<usize> = members(st.w).filter(|&w| shaped.events[w].phys == shaped.events[r].phys && Some(w) != own_write).collect();
        if c.is_empty() {
            return Ok(());
        }
        candidates.push(c);
    }
    let sc: Vec<usize> = members(st.sc_fences).collect();
    let mut sc_pairs = Vec::new();
    for (x, &a) in sc.iter().enumerate() {
        for &b in &sc[x + 1..] {
            if let (Some(ta), Some(tb), Some(sa), Some(sb)) = (shaped.events[a].thread, shaped.events[b].thread, shaped.events[a].scope, shaped.events[b].scope) {
                if places.covers(ta, sa, tb) && places.covers(tb, sb, ta) {
                    sc_pairs.push((a, b));
                }
            }
        }
    }
    let alive: Vec<Vec<usize>> = runs.iter().map(|r| r.to_vec()).collect();
    let mut rf = Rel::empty(st.n);
    let start = Settled::of(st, &rf, &shaped.no_fence_order);
    if !start.co.is_irreflexive() {
        return Ok(());
    }
    let pairs = st.strong_write_pairs();
    // Set once a hang is found: the search wants one.
    let done = Cell::new(false);
    reads_from(&shaped, &reads, &candidates, 0, &mut rf, &alive, &start, &done, &mut |rf, alive, settled| {
        let mut sync_fence = Rel::empty(st.n);
        fence_orders(st, rf, settled, &sc_pairs, 0, &mut sync_fence, &mut |sf, Settled { cause, sync, co }| {
            if done.get() {
                return Ok(());
            }
            // One candidate per combination of runs, as if each were enumerated alone.
            let combinations = alive.iter().fold(1u64, |n, a| n.saturating_mul(a.len() as u64));
            kept.candidates = kept.candidates.saturating_add(combinations);
            if kept.candidates > limits.max_candidates {
                return Err(AxiomError::TooLarge(format!("more than {} candidate executions", limits.max_candidates)));
            }
            if !co.is_irreflexive() {
                return Ok(());
            }
            coherence(st, rf, cause, co.clone(), &pairs, &mut |co| match goal {
                Goal::Outcomes => record_all(places, &shaped, alive, rf, co, cause, sf, sync, kept),
                Goal::Hang => {
                    if !done.get() && stuck_reads_see_newest(&shaped, rf, co) {
                        kept.hang = Some(hang_of(&shaped, alive, rf, co, cause, &sync.union(sf)));
                        done.set(true);
                    }
                }
            });
            Ok(())
        })
    })
}

/// What reads-from and a Fence-SC order settle before coherence is branched on.
struct Settled {
    /// cat:83.
    cause: Rel,
    /// Synchronizes-with edges of patterns and barriers (for drawing).
    sync: Rel,
    /// The coherence the axioms force ([`Static::forced_co`]), transitive; cyclic when
    /// no coherence fits.
    co: Rel,
}

impl Settled {
    fn of(st: &Static, rf: &Rel, sync_fence: &Rel) -> Settled {
        let (cause, sync) = st.cause(rf, sync_fence);
        let co = st.forced_co(&cause).plus();
        Settled { cause, sync, co }
    }
}

type Leaf<'a> = dyn FnMut(&Rel, &[Vec<usize>], &Settled) -> Result<(), AxiomError> + 'a;

/// Chooses the write each read reads from, one read after another (threads in order, each
/// in program order), dropping a partial choice as soon as it breaks an axiom: every
/// relation the axioms test grows with reads-from, the Fence-SC order and coherence, so
/// a violation with some of them chosen (no Fence-SC order, only forced coherence) stays
/// one whatever the rest. The axioms read no value, so a choice is tested once for every
/// value it may carry; each value then keeps the runs (`alive`) that read it there and,
/// for a write of a thread, that write it there. Once `done` is set, it stops.
///
/// `settled` is the choice so far's, which meets the axioms. `cause` reads reads-from only
/// through its morally strong part, so a weak read leaves it and the forced coherence as
/// they were, and only the new edge's terms of axiom-Atomicity and axiom-Causality are new.
#[allow(clippy::too_many_arguments)]
fn reads_from(
    shaped: &Shaped,
    reads: &[usize],
    candidates: &[Vec<usize>],
    k: usize,
    rf: &mut Rel,
    alive: &[Vec<usize>],
    settled: &Settled,
    done: &Cell<bool>,
    visit: &mut Leaf,
) -> Result<(), AxiomError> {
    if done.get() {
        return Ok(());
    }
    let Some(&r) = reads.get(k) else {
        return visit(rf, alive, settled);
    };
    let st = &shaped.st;
    let Some((t, at)) = shaped.origin[r] else { return Ok(()) };
    for &w in &candidates[k] {
        // The values the write may carry, ascending.
        let mut values: Vec<i64> = match shaped.origin[w] {
            None => vec![shaped.events[w].value],
            Some((u, wat)) => alive[u].iter().map(|&run| shaped.value(u, run, wat)).collect(),
        };
        values.sort_unstable();
        values.dedup();
        values.retain(|&v| alive[t].iter().any(|&run| shaped.value(t, run, at) == v));
        if values.is_empty() {
            continue;
        }
        if st.no_thin_air_with(rf, w, r) {
            rf.add(w, r);
            let strong;
            let (here, consistent) = if st.ms.has(w, r) {
                strong = Settled::of(st, rf, &shaped.no_fence_order);
                (&strong, strong.co.is_irreflexive() && st.atomicity_and_causality(rf, &strong.co, &strong.cause))
            } else {
                (settled, st.read_consistent(w, r, &settled.co, &settled.cause))
            };
            if consistent {
                for v in values {
                    let keeps = |u: usize, at: usize| alive[u].iter().all(|&run| shaped.value(u, run, at) == v);
                    if keeps(t, at) && shaped.origin[w].is_none_or(|(u, wat)| keeps(u, wat)) {
                        reads_from(shaped, reads, candidates, k + 1, rf, alive, here, done, visit)?;
                        continue;
                    }
                    let mut next = alive.to_vec();
                    next[t].retain(|&run| shaped.value(t, run, at) == v);
                    if let Some((u, wat)) = shaped.origin[w] {
                        next[u].retain(|&run| shaped.value(u, run, wat) == v);
                    }
                    if next.iter().all(|runs| !runs.is_empty()) {
                        reads_from(shaped, reads, candidates, k + 1, rf, &next, here, done, visit)?;
                    }
                }
            }
            rf.remove(w, r);
        }
    }
    Ok(())
}

type Visit<'a> = dyn FnMut(&Rel, &Settled) -> Result<(), AxiomError> + 'a;

/// Every Fence-SC order: an acyclic orientation of the pairs of `fence.sc` whose scopes
/// cover each other (Dat3M orders them by clocks, `WmmEncoder.visitSyncFence`), kept
/// when axiom-FenceSC (cat:96) holds. `settled` is reads-from's, without a Fence-SC order.
#[allow(clippy::too_many_arguments)]
fn fence_orders(st: &Static, rf: &Rel, settled: &Settled, pairs: &[(usize, usize)], at: usize, sf: &mut Rel, visit: &mut Visit) -> Result<(), AxiomError> {
    if pairs.is_empty() {
        if st.fence_sc(&settled.cause, sf) {
            visit(sf, settled)?;
        }
        return Ok(());
    }
    if at == pairs.len() {
        let ordered = Settled::of(st, rf, sf);
        if st.fence_sc(&ordered.cause, sf) {
            visit(sf, &ordered)?;
        }
        return Ok(());
    }
    let (a, b) = pairs[at];
    for (x, y) in [(a, b), (b, a)] {
        let mut next = sf.clone();
        next.add(x, y);
        if next.is_acyclic() {
            fence_orders(st, rf, settled, pairs, at + 1, &mut next, visit)?;
        }
    }
    Ok(())
}

/// Orders each morally strong pair of writes still unordered, both ways, keeping `co` a
/// strict partial order; visits each result meeting axiom-Atomicity and axiom-Causality.
fn coherence(st: &Static, rf: &Rel, cause: &Rel, co: Rel, pairs: &[(usize, usize)], visit: &mut dyn FnMut(&Rel)) {
    match pairs.iter().find(|&&(a, b)| !co.has(a, b) && !co.has(b, a)) {
        None => {
            if st.atomicity_and_causality(rf, &co, cause) {
                visit(&co);
            }
        }
        Some(&(a, b)) => {
            for (x, y) in [(a, b), (b, a)] {
                let mut next = co.clone();
                next.add(x, y);
                let next = next.plus();
                if next.is_irreflexive() {
                    coherence(st, rf, cause, next, pairs, visit);
                }
            }
        }
    }
}

/// The order in which the explorer could perform this execution, if any: `po | rf | co`
/// acyclic, each RMW reading the write performed last (the explorer's RMWs do, where the
/// axioms bind only morally strong ones), and coherence extended to that order (total, as
/// the explorer's is) still meeting the axioms. Only the first such order is tried, so `false` can be wrong
/// where another order would do; the differential tests then check less, never more.
fn fits_in_time(st: &Static, places: &Places, events: &[Event], rf: &Rel, co: &Rel, cause: &Rel) -> Option<Vec<usize>> {
    let mut order = st.po.union(rf).union(co);
    let mut threads: Vec<usize> = events.iter().filter_map(|e| e.thread).collect();
    threads.dedup();
    // A thread leaves a barrier after the others arrive there, or finish without arriving.
    for (b, e) in events.iter().enumerate() {
        let (Kind::Barrier(kind), Some(t)) = (e.kind, e.thread) else { continue };
        let (same_group, matching): (Box<dyn Fn(usize) -> bool>, Box<dyn Fn(BarrierKind) -> bool>) = match kind {
            BarrierKind::Cta { id, generation, arrive_only: false } => (
                Box::new(move |u| places.threads[u].0 == places.threads[t].0),
                Box::new(move |x| matches!(x, BarrierKind::Cta { id: i, generation: g, .. } if i == id && g == generation)),
            ),
            BarrierKind::Cluster { generation, wait: true, .. } => (
                Box::new(move |u| places.threads[u].1 == places.threads[t].1),
                Box::new(move |x| matches!(x, BarrierKind::Cluster { generation: g, wait: false, .. } if g == generation)),
            ),
            BarrierKind::Cta { .. } | BarrierKind::Cluster { .. } => continue,
        };
        for u in threads.iter().copied().filter(|&u| u != t && same_group(u)) {
            let arrival = events.iter().position(|x| x.thread == Some(u) && matches!(x.kind, Kind::Barrier(k) if matching(k)));
            let last = events.iter().rposition(|x| x.thread == Some(u));
            if let Some(a) = arrival.or(last) {
                order.add(a, b);
            }
        }
    }
    // The first event, by index, all of whose predecessors are placed, one after another.
    let before = order.inverse();
    let everything = if st.n == super::rel::MAX_EVENTS { u128::MAX } else { (1u128 << st.n) - 1 };
    let mut placed = 0u128;
    let mut time = Vec::with_capacity(st.n);
    while time.len() < st.n {
        let Some(next) = members(everything & !placed).find(|&e| before.row(e) & !placed == 0) else {
            return None;
        };
        placed |= 1 << next;
        time.push(next);
    }
    // The explorer's RMW reads the write to its location performed last.
    for (i, &r) in time.iter().enumerate() {
        if st.rmw.row_of(r).is_none() {
            continue;
        }
        let source = (0..st.n).find(|&x| rf.has(x, r));
        let latest = time[..i].iter().rev().find(|&&x| st.w & (1 << x) != 0 && st.loc.has(x, r));
        if source != latest.copied() {
            return None;
        }
    }
    // Each write before every later write to its location.
    let mut total = co.clone();
    let mut later = 0u128;
    for &a in time.iter().rev() {
        if st.w & (1 << a) != 0 {
            total.set_row(a, total.row(a) | (later & st.w & st.loc.row(a)));
        }
        later |= 1 << a;
    }
    st.atomicity_and_causality(rf, &total.plus(), cause).then_some(time)
}

/// Whether every read of each stuck run's last round reads a coherence-maximal write
/// (Dat3M's `lastCo`): a write no other is coherence-after. Under fair memory a newer write
/// would eventually be seen, so only then does the round repeat for ever with the same
/// values (`NonTerminationEncoder.encodeStrongSuffixExtension`, rule 3: a side-effect-free
/// round writes nothing, so every write it may read is in the prefix and must be last).
/// `co` is the smallest coherence of its branch, so no coherence the axioms allow with the
/// same orientation has more maximal writes.
fn stuck_reads_see_newest(shaped: &Shaped, rf: &Rel, co: &Rel) -> bool {
    let st = &shaped.st;
    shaped.ends.iter().enumerate().all(|(t, end)| {
        let End::Stuck { round, .. } = *end else { return true };
        let (from, to) = (shaped.base[t] + round, shaped.end_of(t));
        (from..to).filter(|&e| st.r & (1 << e) != 0).all(|r| (0..st.n).find(|&w| rf.has(w, r)).is_some_and(|w| co.row(w) == 0))
    })
}

/// The hanging execution for the first runs left (`alive`), and where each thread stays.
fn hang_of(shaped: &Shaped, alive: &[Vec<usize>], rf: &Rel, co: &Rel, cause: &Rel, sync: &Rel) -> Hang {
    let st = &shaped.st;
    let mut events = shaped.events.clone();
    for (t, runs) in alive.iter().enumerate() {
        for (at, e) in shaped.per_thread[t][runs[0]].events.iter().enumerate() {
            events[shaped.base[t] + at].value = e.value;
        }
    }
    let threads = shaped
        .ends
        .iter()
        .enumerate()
        .map(|(t, end)| match *end {
            End::Finished => Stay::Finished,
            End::Stuck { round, at } => {
                let reads = (shaped.base[t] + round..shaped.end_of(t)).filter(|&e| st.r & (1 << e) != 0).collect();
                Stay::Spins { instr: at, reads }
            }
            End::Blocked => Stay::Waits { instr: shaped.end_of(t).checked_sub(1).map_or(0, |e| events[e].instr) },
        })
        .collect();
    let execution = Execution {
        events,
        rf: rf.pairs().collect(),
        co: co.pairs().collect(),
        sync: sync.pairs().collect(),
        po: shaped.po_pairs.clone(),
        races: st.data_races(cause).pairs().filter(|(a, b)| a < b).collect(),
    };
    Hang { execution, threads }
}

/// Records the execution `rf`, `co` for every combination of the runs left (`alive`):
/// the relations and their order in time do not depend on the values, the final states do.
#[allow(clippy::too_many_arguments)]
fn record_all(places: &Places, shaped: &Shaped, alive: &[Vec<usize>], rf: &Rel, co: &Rel, cause: &Rel, sf: &Rel, sync: &Rel, kept: &mut Kept) {
    let st = &shaped.st;
    let time = fits_in_time(st, places, &shaped.events, rf, co, cause);
    let races: Vec<(usize, usize)> = st.data_races(cause).pairs().filter(|(a, b)| a < b).collect();
    let mut pick = vec![0usize; alive.len()];
    let mut events = shaped.events.clone();
    loop {
        let runs: Vec<usize> = pick.iter().zip(alive).map(|(&i, a)| a[i]).collect();
        for (t, &run) in runs.iter().enumerate() {
            for (at, e) in shaped.per_thread[t][run].events.iter().enumerate() {
                events[shaped.base[t] + at].value = e.value;
            }
        }
        let rank = Rank { runs: runs.iter().rev().copied().collect(), seq: kept.seq };
        kept.seq += 1;
        let regs: Vec<BTreeMap<String, i64>> = runs.iter().enumerate().map(|(t, &run)| shaped.per_thread[t][run].regs.clone()).collect();
        record(places, &events, shaped, (rf, co, sf, sync), (time.as_deref(), &races), regs, rank, kept);
        if !next_pick(&mut pick, |k| alive[k].len()) {
            return;
        }
    }
}

/// Records one execution of one combination of runs (`events` carry its values): its
/// final states, and its race. A witness already kept is replaced by one of lower rank,
/// and a race by one an interleaving performs, or one of lower rank of the same kind.
#[allow(clippy::too_many_arguments)]
fn record(
    places: &Places,
    events: &[Event],
    shaped: &Shaped,
    (rf, co, sf, sync): (&Rel, &Rel, &Rel, &Rel),
    (time, races): (Option<&[usize]>, &[(usize, usize)]),
    regs: Vec<BTreeMap<String, i64>>,
    rank: Rank,
    kept: &mut Kept,
) {
    let st = &shaped.st;
    // Per location, the values of its coherence-last writes.
    let mut choices: Vec<Vec<i64>> = Vec::with_capacity(places.locations.len());
    for &(phys, _) in &places.locations {
        let writes: Vec<usize> = members(st.w).filter(|&w| events[w].phys == phys).collect();
        let mut last: Vec<i64> = writes.iter().filter(|&&w| writes.iter().all(|&v| !co.has(w, v))).map(|&w| events[w].value).collect();
        last.sort_unstable();
        last.dedup();
        if last.is_empty() {
            last.push(places.init[phys]);
        }
        choices.push(last);
    }
    // Built only for a new final state or a race worth keeping: most executions are neither.
    let execution = || Execution {
        events: events.to_vec(),
        rf: rf.pairs().collect(),
        co: co.pairs().collect(),
        sync: sync.union(sf).pairs().collect(),
        po: shaped.po_pairs.clone(),
        races: races.to_vec(),
    };
    let in_time = time.is_some();
    let better_race = kept.race.as_ref().is_none_or(|(kept_rank, race)| (in_time && !race.in_time) || (in_time == race.in_time && rank < *kept_rank));
    if !races.is_empty() && better_race {
        kept.race = Some((rank.clone(), Race { execution: execution(), in_time }));
    }
    // In time, each location ends with the value of its last write in that order.
    let timed: Option<Vec<i64>> = time.map(|time| {
        places
            .locations
            .iter()
            .map(|&(phys, _)| time.iter().rev().find(|&&e| st.w & (1 << e) != 0 && events[e].phys == phys).map_or(places.init[phys], |&e| events[e].value))
            .collect()
    });
    let mut pick = vec![0usize; choices.len()];
    let mut fin = Final { regs, mem: Vec::new() };
    loop {
        fin.mem = pick.iter().zip(&choices).map(|(&i, c)| c[i]).collect();
        let in_time = timed.as_ref().is_some_and(|last| *last == fin.mem);
        match kept.finals.get_mut(&fin) {
            Some((kept_rank, witness)) if *kept_rank <= rank => witness.in_time |= in_time,
            Some((kept_rank, witness)) => {
                *kept_rank = rank.clone();
                *witness = Witness { execution: execution(), in_time: in_time || witness.in_time };
            }
            None => {
                kept.finals.insert(fin.clone(), (rank.clone(), Witness { execution: execution(), in_time }));
            }
        }
        if !next_pick(&mut pick, |k| choices[k].len()) {
            return;
        }
    }
}

/// Advances `pick` like an odometer over digits `0..len(k)`; false once every
/// combination has been visited.
fn next_pick(pick: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for k in 0..pick.len() {
        pick[k] += 1;
        if pick[k] < len(k) {
            return true;
        }
        pick[k] = 0;
    }
    false
}
