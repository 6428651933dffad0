//! Forgetting writes of a cell (issue 49): the explorer decides which writes nobody can
//! observe any more (`explore/collapse.rs`); this removes them and renumbers every
//! coherence floor that names the cell, wherever a state keeps a knowledge, so that the
//! remaining writes are numbered as if the forgotten ones had never been made.
//!
//! Every knowledge-bearing field is visited with its struct destructured in full, so a
//! new field must be decided here: a floor left unrenumbered would point past its write.

use std::collections::HashMap;

use super::agents::ThreadAsync;
use super::knowledge::{Knowledge, Message};
use super::shared::Shared;
use super::state::{Agent, AgentKind, BarState, Cell, ClusterBarState, Machine, MbarState, WriteRec};

/// A floor after the writes at `gone` (ascending) left its cell. A floor is one past the
/// coherence index a knowledge has observed; a forgotten observed write becomes the first
/// write kept after it, which every reader of the cell has passed anyway (that is why it
/// could be forgotten).
pub fn renumbered(floor: u32, gone: &[usize]) -> u32 {
    let Some(observed) = (floor as usize).checked_sub(1) else { return 0 };
    let before = gone.partition_point(|&g| g < observed);
    (observed - before + 1) as u32
}

/// One forgetting: the cell, the indices gone, and the knowledges already renumbered
/// (by the address of the part they replace, which is kept alive here so that the address
/// cannot be reused within this pass).
struct Renumber<'g> {
    cell: usize,
    gone: &'g [usize],
    done: HashMap<usize, (Shared<Knowledge>, Shared<Knowledge>)>,
}

impl Renumber<'_> {
    fn changes(&self, k: &Knowledge) -> bool {
        k.entries.iter().any(|e| e.floor.get(self.cell).is_some_and(|&f| renumbered(f, self.gone) != f))
    }

    fn knowledge(&self, k: &mut Knowledge) {
        for e in &mut k.entries {
            let Some(&f) = e.floor.get(self.cell) else { continue };
            let new = renumbered(f, self.gone);
            if new != f {
                if let Some(slot) = e.floor.make_mut().get_mut(self.cell) {
                    *slot = new;
                }
            }
        }
    }

    fn shared(&mut self, k: &mut Shared<Knowledge>) {
        if !self.changes(k) {
            return;
        }
        let address = k.address();
        if let Some((_, new)) = self.done.get(&address) {
            *k = new.clone();
            return;
        }
        let mut copy = Knowledge::clone(k);
        self.knowledge(&mut copy);
        let new = Shared::new(copy);
        self.done.insert(address, (k.clone(), new.clone()));
        *k = new;
    }

    fn messages_change(&self, msgs: &[Message]) -> bool {
        msgs.iter().any(|m| self.changes(&m.knowledge))
    }

    fn messages(&mut self, msgs: &mut [Message]) {
        for m in msgs {
            let Message { origin: _, from_agent: _, scope: _, via: _, knowledge, step: _, performed_in: _ } = m;
            self.shared(knowledge);
        }
    }

    fn shared_messages(&mut self, msgs: &mut Shared<Vec<Message>>) {
        if self.messages_change(msgs) {
            self.messages(msgs);
        }
    }

    fn agent(&mut self, agent: &mut Shared<Agent>) {
        let needs = {
            let Agent { kind: _, place: _, pc: _, regs: _, knowledge, status: _, release_fences, pending_acquire, cluster_arrived: _, asyncs } =
                &**agent;
            let ThreadAsync { cp_open: _, cp_groups: _, bulk_open: _, bulk_groups: _, wgmma_open: _, wgmma_groups: _, wgmma_fence, dirty_regs: _, tc_view, tc_done } =
                &**asyncs;
            self.changes(knowledge)
                || self.messages_change(release_fences)
                || self.messages_change(pending_acquire)
                || wgmma_fence.as_ref().is_some_and(|k| self.changes(k))
                || self.changes(tc_view)
                || self.changes(tc_done)
        };
        if !needs {
            return;
        }
        let Agent { kind, place: _, pc: _, regs: _, knowledge, status: _, release_fences, pending_acquire, cluster_arrived: _, asyncs } =
            &mut **agent;
        // An asynchronous agent's operation holds no floor of a plain cell's reader: the
        // explorer forgets writes only in states without asynchronous agents.
        debug_assert!(matches!(kind, AgentKind::Thread(_)));
        self.shared(knowledge);
        self.shared_messages(release_fences);
        self.shared_messages(pending_acquire);
        let async_needs = {
            let ThreadAsync { wgmma_fence, tc_view, tc_done, .. } = &**asyncs;
            wgmma_fence.as_ref().is_some_and(|k| self.changes(k)) || self.changes(tc_view) || self.changes(tc_done)
        };
        if async_needs {
            let ThreadAsync { wgmma_fence, tc_view, tc_done, .. } = &mut **asyncs;
            if let Some(k) = wgmma_fence {
                self.shared(k);
            }
            self.knowledge(tc_view);
            self.knowledge(tc_done);
        }
    }

    fn cell(&mut self, cell: &mut Shared<Cell>) {
        if !cell.writes.iter().any(|w| self.messages_change(&w.msgs)) {
            return;
        }
        let Cell { writes, reads: _ } = &mut **cell;
        for w in writes.iter_mut() {
            if !self.messages_change(&w.msgs) {
                continue;
            }
            let WriteRec { value: _, event: _, loc: _, key: _, strong: _, msgs, instr: _, step: _ } = &mut **w;
            self.messages(msgs);
        }
    }

    fn mbar(&mut self, mbar: &mut Shared<MbarState>) {
        if !self.messages_change(&mbar.current) && !self.messages_change(&mbar.completed) {
            return;
        }
        let MbarState { valid: _, invalidated: _, init_event: _, phase: _, pending: _, expected: _, tx: _, current, completed, unobserved: _, bare: _, bare_completed: _ } =
            &mut **mbar;
        self.messages(current);
        self.messages(completed);
    }
}

impl Machine {
    /// Removes the writes at coherence indices `gone` (ascending, never the last) from
    /// `cell` and renumbers every floor naming that cell. The caller has shown that no
    /// agent can read, race with or release through them any more.
    pub fn forget_writes(&mut self, cell: usize, gone: &[usize]) {
        if gone.is_empty() {
            return;
        }
        let Machine { agents, cells, mbars, bars, cluster_bars, sc_fences, undefined: _, tmem: _, trace: _ } = self;
        if let Some(c) = cells.get_mut(cell) {
            let Cell { writes, reads: _ } = &mut **c;
            let mut index = 0;
            writes.retain(|_| {
                let keep = gone.binary_search(&index).is_err();
                index += 1;
                keep
            });
        }
        let mut r = Renumber { cell, gone, done: HashMap::new() };
        agents.iter_mut().for_each(|a| r.agent(a));
        cells.iter_mut().for_each(|c| r.cell(c));
        mbars.iter_mut().for_each(|b| r.mbar(b));
        if bars.values().any(|b| r.messages_change(&b.msgs)) {
            for BarState { arrived: _, lanes: _, count: _, msgs } in bars.values_mut() {
                r.messages(msgs);
            }
        }
        if cluster_bars.iter().any(|b| r.messages_change(&b.current) || r.messages_change(&b.completed)) {
            for ClusterBarState { instance: _, arrived: _, current, completed, bare: _, bare_completed: _ } in cluster_bars.iter_mut() {
                r.messages(current);
                r.messages(completed);
            }
        }
        r.shared_messages(sc_fences);
    }
}

#[cfg(test)]
mod tests {
    use super::renumbered;

    #[test]
    fn floors_move_down_past_forgotten_writes() {
        // Writes 0..5, 1 and 3 forgotten: 0, 2, 4 become 0, 1, 2.
        let gone = [1, 3];
        assert_eq!(renumbered(0, &gone), 0);
        assert_eq!(renumbered(1, &gone), 1); // observed 0, kept at 0
        assert_eq!(renumbered(2, &gone), 2); // observed 1 (gone): next kept is 2, now 1
        assert_eq!(renumbered(3, &gone), 2); // observed 2, now 1
        assert_eq!(renumbered(5, &gone), 3); // observed 4, now 2
    }
}
