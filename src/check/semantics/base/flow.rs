//! Control flow every family shares: moving a thread's pc, the end of a thread (§5.3:
//! exited threads no longer count at barriers), and completing `bar` and
//! `barrier.cluster` instances, which an arrival or an exit can trigger (§5.1, §5.2).
//!
//! `Exec::next` and `Exec::goto` are defined here rather than in [`super::exec`] because
//! running off the end of a program finishes the thread.

use super::exec::{internal, Exec};
use super::exit::tmem_held_at_exit;
use super::sync::fail;
use crate::check::machine::{AgentKind, Layout, Machine, Status};
use crate::check::report::RaceReason;
use crate::model::Instr;

impl Exec<'_> {
    /// Move to `pc`, skipping labels; running off the end exits.
    pub fn goto(&mut self, pc: usize) -> Result<(), String> {
        let thread = match self.me()?.kind {
            AgentKind::Thread(t) => t,
            AgentKind::Async { .. } => return Err(internal("goto on an async agent")),
        };
        let program = &self.layout.threads.get(thread).ok_or_else(|| internal("thread"))?.program;
        let mut pc = pc;
        while matches!(program.get(pc), Some(Instr::Label(_))) {
            pc += 1;
        }
        self.me_mut()?.pc = pc;
        if pc >= program.len() {
            finish(self)?;
        }
        Ok(())
    }

    pub fn next(&mut self) -> Result<(), String> {
        let pc = self.me()?.pc;
        self.goto(pc + 1)
    }
}

/// The agent finished: barriers waiting only on it may now complete.
pub fn finish(ex: &mut Exec) -> Result<(), String> {
    if ex.me()?.status == Status::Done {
        return Ok(());
    }
    ex.set_status(Status::Done)?;
    let place = ex.place();
    if matches!(ex.me()?.kind, AgentKind::Thread(_)) {
        tmem_held_at_exit(ex, place.cta);
    }
    recheck_cta(ex, place.cta)?;
    recheck_cluster(ex, place.cluster)
}

/// PTX threads a barrier instance waits for: its count, or every non-exited thread of the CTA.
pub fn bar_expected(layout: &Layout, m: &Machine, cta: usize, count: Option<u32>) -> u32 {
    count.unwrap_or_else(|| {
        m.agents
            .iter()
            .filter(|a| a.place.cta == cta && a.status != Status::Done)
            .filter_map(|a| match a.kind {
                AgentKind::Thread(t) => layout.threads.get(t).map(|t| t.lanes),
                AgentKind::Async { .. } => None,
            })
            .sum()
    })
}

/// An exit may complete barriers that counted the exiting thread.
fn recheck_cta(ex: &mut Exec, cta: usize) -> Result<(), String> {
    let ids: Vec<u32> = ex.m.bars.keys().filter(|(c, _)| *c == cta).map(|(_, id)| *id).collect();
    for id in ids {
        complete_if_ready(ex, cta, id)?;
    }
    Ok(())
}

/// Complete barrier `id` of `cta` once every PTX thread it waits for arrived: waiters
/// acquire every other arriver's release and move on.
pub fn complete_if_ready(ex: &mut Exec, cta: usize, id: u32) -> Result<(), String> {
    let Some(state) = ex.m.bars.get(&(cta, id)).cloned() else { return Ok(()) };
    if state.lanes < bar_expected(ex.layout, ex.m, cta, state.count) {
        return Ok(());
    }
    ex.m.bars.remove(&(cta, id));
    let me = ex.agent;
    for (agent, waits) in &state.arrived {
        if !waits {
            // An arrive-only participant acquires nothing (§5.1); remember why, for races.
            ex.agent = *agent;
            let who = ex.name_of(*agent);
            for msg in state.msgs.iter().filter(|m| m.from_agent != *agent) {
                let text = format!("`{who}` only arrived at barrier {id} (`bar.arrive`): an arrive releases but never acquires; use `bar.sync` to wait");
                fail(ex, msg, RaceReason::ExecutionOrderOnly, text);
            }
            continue;
        }
        ex.agent = *agent;
        for msg in &state.msgs {
            if msg.from_agent != *agent {
                ex.me_mut()?.knowledge.join(&msg.knowledge);
                ex.acquired_for_tcgen05(msg, crate::check::machine::Filter::All)?;
                ex.edge(msg, "bar", None);
            }
        }
        ex.set_status(Status::Running)?;
        if ex.me()?.status == Status::Running {
            ex.next()?;
        }
    }
    ex.agent = me;
    if ex.explain {
        ex.out.description.push_str(&format!("; barrier {id} completed"));
    }
    Ok(())
}

/// The non-exited threads of `cluster`: those a cluster barrier instance waits for.
pub fn cluster_members(m: &Machine, cluster: usize) -> Vec<u32> {
    m.agents
        .iter()
        .enumerate()
        .filter(|(_, a)| a.place.cluster == cluster && a.status != Status::Done)
        .filter(|(_, a)| matches!(a.kind, AgentKind::Thread(_)))
        .map(|(i, _)| i as u32)
        .collect()
}

/// Complete the current instance once every non-exited thread of the cluster arrived.
pub fn recheck_cluster(ex: &mut Exec, cluster: usize) -> Result<(), String> {
    let live = cluster_members(ex.m, cluster);
    let Some(cb) = ex.m.cluster_bars.get_mut(cluster) else { return Ok(()) };
    if cb.arrived.is_empty() || !live.iter().all(|a| cb.arrived.contains(a)) {
        return Ok(());
    }
    cb.instance += 1;
    cb.arrived.clear();
    cb.completed = std::mem::take(&mut cb.current);
    cb.bare_completed = std::mem::take(&mut cb.bare);
    ex.out.description.push_str("; cluster barrier completed");
    Ok(())
}
