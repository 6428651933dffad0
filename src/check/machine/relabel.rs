//! The explorer's state key, blind to the order asynchronous agents were spawned in.
//!
//! An async agent's id is its spawn position, so two schedules that issue the same copies
//! and wgmmas in a different interleaving reach states that differ only in those ids:
//! the same machine up to a renaming. Nothing the semantics decides depends on an id's
//! value (ids are compared for equality, and lists kept sorted by id are re-sorted
//! here), so such states have the same futures, up to the same renaming. Keying states by
//! their canonical renaming merges them. The explorer still keeps and replays the concrete
//! state it reached first, so witnesses and their texts name agents as that schedule
//! spawned them.
//!
//! Canonical order: threads keep their ids; async agents are ordered by issuing
//! instruction, then by how many agents that instruction spawned before (an instruction's
//! spawns are in program order, so this count is the same in every schedule).
//!
//! An async completion's message names its agent (`complete_tx of tma#5 (producer)`), so
//! that text is built only when a step explains itself (`Exec::explain`): while exploring
//! it is empty and holds no id.
//!
//! Every id-bearing field is renamed below with its struct destructured in full, so a new
//! field must be decided here: a field left out would let two different states share a key.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use super::agents::{AsyncOp, AsyncWhat, TcWhat, ThreadAsync, TmemState};
use super::fingerprint::{fingerprint_of, FingerprintHashing, Fingerprinter};
use super::knowledge::{Entry, Knowledge, Message};
use super::state::{Agent, AgentKind, InstrRef, BareArrival, BarState, Cell, ClusterBarState, Machine, MbarState, ReadRec, WriteRec};
use super::vv::{EventId, VersionVec};
use super::shared::Shared;

/// Computes state keys. A step changes few parts, and its successor usually has the same
/// renaming, so most parts are renamed once: a part keeps its fingerprint under the last
/// renaming it was keyed with (`Shared::renamed_fingerprint`), and a part a step built
/// afresh is looked up here by its content, since most such parts were seen before.
#[derive(Default)]
pub struct StateKeys {
    /// (part's own fingerprint, renaming's fingerprint) -> the renamed part's fingerprint.
    renamed: HashMap<(u128, u128), u128, FingerprintHashing>,
    /// Renaming per spawn order (the fingerprint of each agent's issuer, in id order), or
    /// `None` where that order is already canonical: only a spawn changes a state's
    /// renaming, so most keys find theirs here.
    renamings: HashMap<u128, Option<Renaming>, FingerprintHashing>,
}

/// Entries kept before the memo starts over (bounds its memory; a miss only costs time).
const MEMO_ENTRIES: usize = 1 << 18;

impl StateKeys {
    /// The key the explorer remembers `m` under: equal for states equal up to a renaming
    /// of their async agents.
    pub fn key(&mut self, m: &Machine) -> u128 {
        let Machine { agents, cells, mbars, bars, cluster_bars, sc_fences, undefined, tmem, trace: _ } = m;
        let StateKeys { renamed, renamings } = self;
        if renamed.len() > MEMO_ENTRIES {
            renamed.clear();
        }
        if renamings.len() > MEMO_ENTRIES {
            renamings.clear();
        }
        let map = match spawn_order(m) {
            None => None,
            Some(order_key) => renamings.entry(order_key).or_insert_with(|| Renaming::canonical(m)).as_ref(),
        };
        let mut f = Fingerprinter::new();
        f.write_usize(agents.len());
        match map {
            None => agents.iter().for_each(|a| f.write_u128(a.fingerprint())),
            Some(map) => {
                for old in &map.old_id {
                    let part = agents.get(*old as usize).map_or(0, |a| renamed_part(renamed, a, map));
                    f.write_u128(part);
                }
            }
        }
        f.write_usize(cells.len());
        for cell in cells {
            f.write_u128(part_under(renamed, cell, map));
        }
        f.write_usize(mbars.len());
        for mbar in mbars {
            f.write_u128(part_under(renamed, mbar, map));
        }
        f.write_u128(part_under(renamed, cluster_bars, map));
        f.write_u128(part_under(renamed, tmem, map));
        f.write_u128(part_under(renamed, bars, map));
        // Kept in the order the fences ran, not by id: renamed in place, not re-sorted.
        f.write_u128(part_under(renamed, sc_fences, map));
        undefined.hash(&mut f);
        f.finish128()
    }
}

/// `part`'s fingerprint under `map`: its own where no renaming is needed.
fn part_under<T: Relabel + Clone + Hash>(memo: &mut Memo, part: &Shared<T>, map: Option<&Renaming>) -> u128 {
    match map {
        None => part.fingerprint(),
        Some(map) => renamed_part(memo, part, map),
    }
}

type Memo = HashMap<(u128, u128), u128, FingerprintHashing>;

fn renamed_part<T: Relabel + Clone + Hash>(memo: &mut Memo, part: &Shared<T>, map: &Renaming) -> u128 {
    part.renamed_fingerprint(map.fingerprint, |value| {
        *memo.entry((part.fingerprint(), map.fingerprint)).or_insert_with(|| {
            let mut value = T::clone(value);
            value.relabel(map);
            fingerprint_of(&value)
        })
    })
}

struct Renaming {
    new_id: Vec<u32>,
    /// The agent at each canonical position.
    old_id: Vec<u32>,
    fingerprint: u128,
    /// Ids below this keep their number: a clock no longer than it needs no renaming.
    first_moved: usize,
}

/// The fingerprint of which instruction issued each agent, in id order: all a renaming
/// depends on. `None` when no agent is asynchronous (most states of most scenarios).
fn spawn_order(m: &Machine) -> Option<u128> {
    let mut f = Fingerprinter::new();
    let mut any_async = false;
    for a in &m.agents {
        match &a.kind {
            AgentKind::Thread(_) => f.write_u64(0),
            AgentKind::Async { issuer, .. } => {
                any_async = true;
                f.write_u64((u64::from(issuer.thread() as u32) << 32 | u64::from(issuer.pc() as u32)) + 1);
            }
        }
    }
    any_async.then(|| f.finish128())
}

impl Renaming {
    /// The renaming that puts `m`'s agents in canonical order; `None` when they already are.
    fn canonical(m: &Machine) -> Option<Renaming> {
        let mut order: Vec<(u32, Option<(InstrRef, u32)>)> = Vec::with_capacity(m.agents.len());
        // Spawns so far per issuing instruction: a handful of instructions issue, so a list
        // searched in place costs less than a map.
        let mut spawned: Vec<(InstrRef, u32)> = Vec::new();
        for (id, a) in m.agents.iter().enumerate() {
            let key = match &a.kind {
                AgentKind::Thread(_) => None,
                AgentKind::Async { issuer, .. } => {
                    let nth = match spawned.iter_mut().find(|(i, _)| i == issuer) {
                        Some((_, n)) => {
                            *n += 1;
                            *n
                        }
                        None => {
                            spawned.push((*issuer, 1));
                            1
                        }
                    };
                    Some((*issuer, nth))
                }
            };
            order.push((id as u32, key));
        }
        // Threads come first and stay put (`None` sorts first, and the sort is stable).
        if order.windows(2).all(|w| matches!(w, [(_, a), (_, b)] if a <= b)) {
            return None;
        }
        crate::sort::short_by_key(&mut order, |(_, key)| *key);
        let mut new_id = vec![0u32; order.len()];
        for (new, (old, _)) in order.iter().enumerate() {
            if let Some(slot) = new_id.get_mut(*old as usize) {
                *slot = new as u32;
            }
        }
        let first_moved = new_id.iter().enumerate().position(|(old, new)| old as u32 != *new).unwrap_or(new_id.len());
        let old_id = order.iter().map(|(old, _)| *old).collect();
        Some(Renaming { fingerprint: fingerprint_of(&new_id), new_id, old_id, first_moved })
    }

    fn id(&self, old: u32) -> u32 {
        self.new_id.get(old as usize).copied().unwrap_or(old)
    }
}

trait Relabel {
    fn relabel(&mut self, map: &Renaming);
}

impl<T: Relabel + Clone> Relabel for Shared<T> {
    fn relabel(&mut self, map: &Renaming) {
        T::relabel(&mut **self, map);
    }
}

impl<T: Relabel> Relabel for Vec<T> {
    fn relabel(&mut self, map: &Renaming) {
        self.iter_mut().for_each(|x| x.relabel(map));
    }
}

impl<K, V: Relabel> Relabel for BTreeMap<K, V> {
    fn relabel(&mut self, map: &Renaming) {
        self.values_mut().for_each(|v| v.relabel(map));
    }
}

impl<T: Relabel> Relabel for Option<T> {
    fn relabel(&mut self, map: &Renaming) {
        if let Some(x) = self {
            x.relabel(map);
        }
    }
}

impl Relabel for u32 {
    fn relabel(&mut self, map: &Renaming) {
        *self = map.id(*self);
    }
}

impl Relabel for EventId {
    fn relabel(&mut self, map: &Renaming) {
        // The initial writes' pseudo-agent (u32::MAX) is no agent and maps to itself.
        self.agent = map.id(self.agent);
    }
}

impl Relabel for VersionVec {
    fn relabel(&mut self, map: &Renaming) {
        if self.width() <= map.first_moved {
            return;
        }
        *self = self.renamed(|agent| map.id(agent));
    }
}

impl Relabel for Knowledge {
    fn relabel(&mut self, map: &Renaming) {
        let Knowledge { entries } = self;
        for Entry { filter: _, bridge: _, vv, floor: _ } in entries {
            vv.relabel(map);
        }
    }
}

impl Relabel for Message {
    fn relabel(&mut self, map: &Renaming) {
        let Message { origin, from_agent, scope: _, via: _, knowledge, step: _, performed_in: _ } = self;
        origin.relabel(map);
        from_agent.relabel(map);
        knowledge.relabel(map);
    }
}

impl Relabel for BareArrival {
    fn relabel(&mut self, map: &Renaming) {
        let BareArrival { event, step: _, why: _ } = self;
        event.relabel(map);
    }
}

impl Relabel for ThreadAsync {
    fn relabel(&mut self, map: &Renaming) {
        let ThreadAsync {
            cp_open,
            cp_groups,
            bulk_open,
            bulk_groups,
            wgmma_open,
            wgmma_groups,
            wgmma_fence,
            dirty_regs: _,
            tc_view,
            tc_done,
        } = self;
        cp_open.relabel(map);
        cp_groups.relabel(map);
        bulk_open.relabel(map);
        bulk_groups.relabel(map);
        wgmma_open.relabel(map);
        wgmma_groups.relabel(map);
        wgmma_fence.relabel(map);
        tc_view.relabel(map);
        tc_done.relabel(map);
    }
}

impl Relabel for AsyncOp {
    fn relabel(&mut self, map: &Renaming) {
        let AsyncOp { what, stage: _ } = self;
        match what {
            AsyncWhat::CpArrive { mbar: _, after } => after.relabel(map),
            AsyncWhat::Wgmma { acc: _, a: _, b: _, acc_in: _, after } => after.relabel(map),
            AsyncWhat::Tc(tc) => match tc {
                TcWhat::Commit { bars: _, after } => after.relabel(map),
                TcWhat::Mma { .. } | TcWhat::Cp { .. } | TcWhat::Shift { .. } | TcWhat::Ld { .. } | TcWhat::St { .. } | TcWhat::Alloc => {}
            },
            AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } | AsyncWhat::CpAsync { .. } | AsyncWhat::StAsync { .. } => {}
        }
    }
}

impl Relabel for Agent {
    fn relabel(&mut self, map: &Renaming) {
        let Agent {
            kind,
            place: _,
            pc: _,
            regs: _,
            knowledge,
            status: _,
            release_fences,
            pending_acquire,
            cluster_arrived: _,
            asyncs,
        } = self;
        match kind {
            AgentKind::Thread(_) => {}
            AgentKind::Async { issuer: _, op } => op.relabel(map),
        }
        knowledge.relabel(map);
        release_fences.relabel(map);
        pending_acquire.relabel(map);
        crate::sort::short_by_key(pending_acquire, |p| (p.origin, p.scope));
        asyncs.relabel(map);
    }
}

impl Relabel for Cell {
    fn relabel(&mut self, map: &Renaming) {
        let Cell { writes, reads } = self;
        for w in writes.iter_mut() {
            let WriteRec { value: _, event, loc: _, key: _, strong: _, msgs, instr: _, step: _ } = &mut **w;
            event.relabel(map);
            msgs.relabel(map);
        }
        for ReadRec { event, loc: _, key: _, strong: _, instr: _, step: _ } in reads.iter_mut() {
            event.relabel(map);
        }
        crate::sort::short_by_key(reads, |r| (r.event, r.key));
    }
}

/// Message lists kept one per origin and scope, sorted (`sync::merge`).
fn relabel_merged(msgs: &mut Vec<Message>, map: &Renaming) {
    msgs.relabel(map);
    crate::sort::short_by_key(msgs, |p| (p.origin, p.scope));
}

fn relabel_bare(arrivals: &mut Vec<BareArrival>, map: &Renaming) {
    arrivals.relabel(map);
    crate::sort::short_by_key(arrivals, |b| b.event);
}

impl Relabel for MbarState {
    fn relabel(&mut self, map: &Renaming) {
        let MbarState {
            valid: _,
            invalidated: _,
            init_event,
            phase: _,
            pending: _,
            expected: _,
            tx: _,
            current,
            completed,
            unobserved: _,
            bare,
            bare_completed,
        } = self;
        init_event.relabel(map);
        relabel_merged(current, map);
        relabel_merged(completed, map);
        relabel_bare(bare, map);
        relabel_bare(bare_completed, map);
    }
}

impl Relabel for BarState {
    fn relabel(&mut self, map: &Renaming) {
        let BarState { arrived, lanes: _, count: _, msgs } = self;
        for (agent, _) in arrived.iter_mut() {
            agent.relabel(map);
        }
        crate::sort::short_by_key(arrived, |(agent, _)| *agent);
        relabel_merged(msgs, map);
    }
}

impl Relabel for ClusterBarState {
    fn relabel(&mut self, map: &Renaming) {
        let ClusterBarState { instance: _, arrived, current, completed, bare, bare_completed } = self;
        arrived.relabel(map);
        crate::sort::short_by_key(arrived, |agent| *agent);
        relabel_merged(current, map);
        relabel_merged(completed, map);
        relabel_bare(bare, map);
        relabel_bare(bare_completed, map);
    }
}

impl Relabel for TmemState {
    fn relabel(&mut self, map: &Renaming) {
        let TmemState { allocated: _, ever_allocated: _, relinquished: _, live_allocs, pair_deallocs: _ } = self;
        live_allocs.relabel(map);
    }
}

#[cfg(test)]
mod tests {
    use super::StateKeys;
    use crate::check::report::Mode;
    use crate::check::step::{apply, start};
    use crate::schedule::Step;

    /// Two producers, each issuing one bulk copy: their copies get ids in issue order.
    const TWO_COPIES: &str = "cta A
global g0 = 1 size 16
global g1 = 2 size 16
shared a0 @A = 0 size 16
shared a1 @A = 0 size 16
mbarrier full0 @A count 1
mbarrier full1 @A count 1
thread p0 @A:
    mbarrier.arrive.expect_tx.shared::cta [full0], 16
    cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [a0], [g0], 16, [full0]
thread p1 @A:
    mbarrier.arrive.expect_tx.shared::cta [full1], 16
    cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [a1], [g1], 16, [full1]
";

    fn key_after(src: &str, agents: &[u32]) -> u128 {
        let loaded = crate::load(src);
        let (layout, mut m) = start(&loaded.scenario).expect("scenario starts");
        for &agent in agents {
            apply(&layout, Mode::Pragmatic, &mut m, Step { agent, choice: 0 }).expect("step runs");
        }
        StateKeys::default().key(&m)
    }

    #[test]
    fn copies_issued_in_either_order_reach_one_key() {
        // p0 issues first (its copy is agent 2), or p1 does (its copy is agent 2).
        let p0_first = key_after(TWO_COPIES, &[0, 0, 1, 1]);
        let p1_first = key_after(TWO_COPIES, &[1, 1, 0, 0]);
        assert_eq!(p0_first, p1_first);
        // One copy further along: after the copy of p0 wrote `a0` (agent 2 or 3).
        assert_eq!(key_after(TWO_COPIES, &[0, 0, 1, 1, 2]), key_after(TWO_COPIES, &[1, 1, 0, 0, 3]));
    }

    #[test]
    fn renamed_states_that_differ_keep_different_keys() {
        // Which copy has written is a real difference, whatever the ids.
        assert_ne!(key_after(TWO_COPIES, &[0, 0, 1, 1, 2]), key_after(TWO_COPIES, &[1, 1, 0, 0, 2]));
        assert_ne!(key_after(TWO_COPIES, &[0, 0, 1, 1]), key_after(TWO_COPIES, &[0, 0, 1]));
    }

    #[test]
    fn the_memo_gives_the_key_a_fresh_computation_gives() {
        let loaded = crate::load(TWO_COPIES);
        let (layout, mut m) = start(&loaded.scenario).expect("scenario starts");
        let mut keys = StateKeys::default();
        for agent in [1, 1, 0, 0, 3, 2] {
            apply(&layout, Mode::Pragmatic, &mut m, Step { agent, choice: 0 }).expect("step runs");
            assert_eq!(keys.key(&m), StateKeys::default().key(&m));
        }
    }
}
