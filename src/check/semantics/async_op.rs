//! Dispatch for asynchronous agents: the family whose op an agent runs decides what it can
//! do next and performs its step. The shared agent machinery (spawning, stages, what a
//! completion publishes) is [`super::base::async_agent`].

use super::base::exec::{agent_name, internal, op_of, Exec, Readiness};
use crate::check::machine::{AsyncWhat, Layout, Machine, Stage};

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, explain: bool) -> Result<Readiness, String> {
    let Some((_, op)) = op_of(m, agent) else { return Ok(Readiness::Done) };
    if op.stage == Stage::Completed {
        return Ok(Readiness::Done);
    }
    Ok(match &op.what {
        AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } => super::tma::readiness(layout, m, agent, op, explain),
        AsyncWhat::CpAsync { .. } | AsyncWhat::CpArrive { .. } => super::cp_async::readiness(layout, m, agent, op, explain),
        AsyncWhat::StAsync { .. } => super::st_async::readiness(op),
        AsyncWhat::Wgmma { .. } => super::wgmma::readiness(layout, m, agent, op, explain),
        AsyncWhat::Tc(t) => super::tcgen05::readiness(layout, m, agent, t, op.stage, explain),
    })
}

pub fn step(ex: &mut Exec, choice: u32) -> Result<(), String> {
    // A copy: the step changes the machine the op lives in.
    let op = op_of(ex.m, ex.agent).map(|(_, op)| op.clone()).ok_or_else(|| internal("async step on a thread"))?;
    match &op.what {
        AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } => super::tma::step(ex, &op, choice),
        AsyncWhat::CpAsync { .. } | AsyncWhat::CpArrive { .. } => super::cp_async::step(ex, &op, choice),
        AsyncWhat::StAsync { .. } => super::st_async::step(ex, &op),
        AsyncWhat::Wgmma { .. } => super::wgmma::step(ex, &op, choice),
        AsyncWhat::Tc(t) => super::tcgen05::step(ex, t, op.stage, choice),
    }
}

/// The in-flight and finished asynchronous agents, for the stepping UI.
pub fn views(layout: &Layout, m: &Machine) -> Vec<crate::check::view::AsyncOpView> {
    use crate::check::view::{AsyncOpState, AsyncOpView};
    (0..m.agents.len() as u32)
        .filter_map(|id| {
            let (issuer, op) = op_of(m, id)?;
            let state = match op.stage {
                Stage::Issued => AsyncOpState::Issued,
                Stage::Accessed => AsyncOpState::Accessing,
                Stage::Completed => AsyncOpState::Completed,
            };
            let description = match readiness(layout, m, id, true) {
                Ok(Readiness::Enabled(labels)) => format!("next: {}", labels.join(" | ")),
                Ok(Readiness::Blocked(why)) => why,
                Ok(Readiness::Done) | Err(_) => "done".into(),
            };
            Some(AsyncOpView {
                agent: id,
                name: agent_name(layout, m, id),
                issuer: layout.threads.get(issuer.thread()).map_or(String::new(), |t| t.name.clone()),
                state,
                description,
            })
        })
        .collect()
}
