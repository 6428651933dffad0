//! Enumerating candidate executions: one trace per thread, then reads-from, then the
//! Fence-SC order, then coherence, pruning as soon as an axiom fails.
//!
//! Coherence is built, not guessed: the edges the axioms force (initial writes first,
//! causality-ordered writes, cat:90) are taken, and only pairs of morally strong writes
//! left unordered (cat:92) are branched on. The remaining axioms only get harder to meet
//! as coherence grows (cat:99 and cat:106 read `co` and `fr = rf^-1;co` positively), so a
//! smallest coherence is consistent whenever any is. A location's final value is that of
//! a coherence-last write (Dat3M's `lastCo`, `PropertyEncoder`), any of them when several
//! are unordered; a larger coherence only has fewer last writes.

use std::collections::BTreeMap;

use super::events::{BarrierKind, Kind, Places, Trace};
use super::model::{Event, Inputs, Static};
use super::rel::{members, Rel};
use super::{AxiomError, Execution, Final, Limits, Race, Witness};
use crate::model::Scenario;

pub struct Found {
    pub finals: BTreeMap<Final, Witness>,
    pub candidates: u64,
    /// A racy execution, one an interleaving performs when there is such.
    pub race: Option<Race>,
}

/// Visits every combination of one trace per thread.
pub fn search(scenario: &Scenario, places: &Places, per_thread: &[Vec<Trace>], limits: &Limits) -> Result<Found, AxiomError> {
    let mut found = Found { finals: BTreeMap::new(), candidates: 0, race: None };
    if per_thread.iter().any(Vec::is_empty) {
        return Ok(found);
    }
    let mut pick = vec![0usize; per_thread.len()];
    loop {
        let combo: Vec<&Trace> = pick.iter().zip(per_thread).map(|(&i, ts)| &ts[i]).collect();
        if values_available(places, &combo) && barriers_complete(places, &combo) {
            combination(scenario, places, &combo, limits, &mut found)?;
        }
        // Next combination (odometer).
        let mut k = 0;
        loop {
            if k == pick.len() {
                return Ok(found);
            }
            pick[k] += 1;
            if pick[k] < per_thread[k].len() {
                break;
            }
            pick[k] = 0;
            k += 1;
        }
    }
}

/// Whether every value a read returns is an initial value or written by some write of
/// the combination: the cheap test before building any relation.
fn values_available(places: &Places, combo: &[&Trace]) -> bool {
    combo.iter().all(|t| {
        t.events.iter().filter(|e| e.kind == Kind::Read).all(|r| {
            places.init[r.phys] == r.value
                || combo.iter().any(|u| u.events.iter().any(|w| w.kind == Kind::Write && w.phys == r.phys && w.value == r.value && w.rmw_read.is_none_or(|own| !std::ptr::eq(&u.events[own], r))))
        })
    })
}

/// Whether the threads of a combination can all get past their barriers: a `bar.sync`
/// passes once every other thread of its CTA has arrived at that use or has finished its
/// run (an exited thread no longer holds a barrier back, as in the explorer), and a
/// `barrier.cluster.wait` likewise over the cluster's arrives. A combination that gets
/// stuck hangs: no final state, and liveness is the explorer's business.
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

fn combination(scenario: &Scenario, places: &Places, combo: &[&Trace], limits: &Limits, found: &mut Found) -> Result<(), AxiomError> {
    // Initial writes of the locations this combination touches, then each thread's events.
    let mut used: Vec<usize> = combo.iter().flat_map(|t| t.events.iter().filter(|e| matches!(e.kind, Kind::Read | Kind::Write)).map(|e| e.phys)).collect();
    used.sort_unstable();
    used.dedup();
    let total = used.len() + combo.iter().map(|t| t.events.len()).sum::<usize>();
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
    let mut rmw = Vec::new();
    let mut dep = Vec::new();
    for (t, trace) in combo.iter().enumerate() {
        let base = events.len();
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
            if let Some(r) = e.rmw_read {
                rmw.push((base + r, base + i));
            }
            for r in members(e.data | e.ctrl) {
                dep.push((base + r, base + i));
            }
        }
    }
    let covers = |a: usize, scope, b: usize| places.covers(a, scope, b);
    let place = |t: usize| (places.threads[t].0, places.threads[t].1);
    let strict = limits.mode == crate::model::Mode::Strict;
    let st = Static::new(&Inputs { events: &events, covers: &covers, place: &place, rmw: &rmw, dep: &dep, strict });

    // Reads-from candidates: same physical location, same value.
    let reads: Vec<usize> = members(st.r).collect();
    let mut candidates: Vec<Vec<usize>> = Vec::with_capacity(reads.len());
    for &r in &reads {
        let own_write = rmw.iter().find(|(a, _)| *a == r).map(|(_, w)| *w);
        let c: Vec<usize> = members(st.w)
            .filter(|&w| events[w].phys == events[r].phys && events[w].value == events[r].value && Some(w) != own_write)
            .collect();
        if c.is_empty() {
            return Ok(());
        }
        candidates.push(c);
    }
    let sc: Vec<usize> = members(st.sc_fences).collect();
    let mut sc_pairs = Vec::new();
    for (x, &a) in sc.iter().enumerate() {
        for &b in &sc[x + 1..] {
            if let (Some(ta), Some(tb), Some(sa), Some(sb)) = (events[a].thread, events[b].thread, events[a].scope, events[b].scope) {
                if places.covers(ta, sa, tb) && places.covers(tb, sb, ta) {
                    sc_pairs.push((a, b));
                }
            }
        }
    }
    let mut rf = Rel::empty(st.n);
    reads_from(&st, &reads, &candidates, 0, &mut rf, &mut |rf| {
        let mut sync_fence = Rel::empty(st.n);
        fence_orders(&st, rf, &sc_pairs, 0, &mut sync_fence, &mut |sf, cause, sync| {
            found.candidates += 1;
            if found.candidates > limits.max_candidates {
                return Err(AxiomError::TooLarge(format!("more than {} candidate executions", limits.max_candidates)));
            }
            let co = st.forced_co(cause).plus();
            if !co.is_irreflexive() {
                return Ok(());
            }
            let pairs = st.strong_write_pairs();
            coherence(&st, rf, cause, co, &pairs, &mut |co| {
                record(scenario, places, combo, &events, &st, rf, co, cause, sf, sync, found);
            });
            Ok(())
        })
    })
}

/// Chooses the write each read reads from, one read after another (threads in order, each
/// in program order), dropping a partial choice as soon as it breaks an axiom: every
/// relation the axioms test grows with reads-from, the Fence-SC order and coherence, so
/// a violation with some of them chosen (no Fence-SC order, only forced coherence) stays
/// one whatever the rest.
fn reads_from(
    st: &Static,
    reads: &[usize],
    candidates: &[Vec<usize>],
    k: usize,
    rf: &mut Rel,
    visit: &mut dyn FnMut(&Rel) -> Result<(), AxiomError>,
) -> Result<(), AxiomError> {
    let Some(&r) = reads.get(k) else {
        return visit(rf);
    };
    for &w in &candidates[k] {
        rf.add(w, r);
        if st.no_thin_air(rf) {
            let (cause, _) = st.cause(rf, &Rel::empty(st.n));
            let co = st.forced_co(&cause).plus();
            if co.is_irreflexive() && st.atomicity_and_causality(rf, &co, &cause) {
                reads_from(st, reads, candidates, k + 1, rf, visit)?;
            }
        }
        rf.remove(w, r);
    }
    Ok(())
}

type Visit<'a> = dyn FnMut(&Rel, &Rel, &Rel) -> Result<(), AxiomError> + 'a;

/// Every Fence-SC order: an acyclic orientation of the pairs of `fence.sc` whose scopes
/// cover each other (Dat3M orders them by clocks, `WmmEncoder.visitSyncFence`), kept
/// when axiom-FenceSC (cat:96) holds.
fn fence_orders(st: &Static, rf: &Rel, pairs: &[(usize, usize)], at: usize, sf: &mut Rel, visit: &mut Visit) -> Result<(), AxiomError> {
    if at == pairs.len() {
        let (cause, sync) = st.cause(rf, sf);
        if st.fence_sc(&cause, sf) {
            visit(sf, &cause, &sync)?;
        }
        return Ok(());
    }
    let (a, b) = pairs[at];
    for (x, y) in [(a, b), (b, a)] {
        let mut next = sf.clone();
        next.add(x, y);
        if next.is_acyclic() {
            fence_orders(st, rf, pairs, at + 1, &mut next, visit)?;
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
        let threads: Vec<usize> = events.iter().filter_map(|e| e.thread).collect();
        for u in threads.into_iter().filter(|&u| u != t && same_group(u)) {
            let arrival = events.iter().position(|x| x.thread == Some(u) && matches!(x.kind, Kind::Barrier(k) if matching(k)));
            let last = events.iter().rposition(|x| x.thread == Some(u));
            if let Some(a) = arrival.or(last) {
                order.add(a, b);
            }
        }
    }
    let mut placed = 0u128;
    let mut time = Vec::with_capacity(st.n);
    while time.len() < st.n {
        let Some(next) = (0..st.n).find(|&e| placed & (1 << e) == 0 && (0..st.n).all(|d| !order.has(d, e) || placed & (1 << d) != 0)) else {
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
    let mut total = co.clone();
    for (i, &a) in time.iter().enumerate() {
        for &b in &time[i + 1..] {
            if st.w & (1 << a) != 0 && st.w & (1 << b) != 0 && st.loc.has(a, b) {
                total.add(a, b);
            }
        }
    }
    st.atomicity_and_causality(rf, &total.plus(), cause).then_some(time)
}

#[allow(clippy::too_many_arguments)]
fn record(scenario: &Scenario, places: &Places, combo: &[&Trace], events: &[Event], st: &Static, rf: &Rel, co: &Rel, cause: &Rel, sf: &Rel, sync: &Rel, found: &mut Found) {
    let regs: Vec<BTreeMap<String, i64>> = combo.iter().map(|t| t.regs.clone()).collect();
    // Per location, the values of its coherence-last writes.
    let mut choices: Vec<Vec<i64>> = Vec::with_capacity(scenario.locations.len());
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
    let time = fits_in_time(st, places, events, rf, co, cause);
    let races: Vec<(usize, usize)> = st.data_races(cause).pairs().filter(|(a, b)| a < b).collect();
    // Built only for a new final state or a race worth keeping: most executions are neither.
    let execution = || Execution {
        events: events.to_vec(),
        rf: rf.pairs().collect(),
        co: co.pairs().collect(),
        sync: sync.union(sf).pairs().collect(),
        po: st.po.pairs().collect(),
        races: races.clone(),
    };
    if !races.is_empty() && found.race.as_ref().is_none_or(|r| !r.in_time && time.is_some()) {
        found.race = Some(Race { execution: execution(), in_time: time.is_some() });
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
    loop {
        let mem: Vec<i64> = pick.iter().zip(&choices).map(|(&i, c)| c[i]).collect();
        let in_time = &timed.as_ref().is_some_and(|last| *last == mem);
        let fin = Final { regs: regs.clone(), mem };
        let witness = found.finals.entry(fin).or_insert_with(|| Witness { execution: execution(), in_time: *in_time });
        witness.in_time |= *in_time;
        let mut k = 0;
        loop {
            if k == pick.len() {
                return;
            }
            pick[k] += 1;
            if pick[k] < choices[k].len() {
                break;
            }
            pick[k] = 0;
            k += 1;
        }
    }
}
