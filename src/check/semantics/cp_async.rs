//! Non-bulk `cp.async` (reference §6.1): weak generic-proxy copies in per-thread groups.
//! `wait_group` orders them before the waiting thread only; `cp.async.mbarrier.arrive`
//! hands their completion to an mbarrier (§4.3).
//!
//! §12 #8: the spec never names the proxy of these writes. Both modes take it as generic;
//! pragmatic mode also lets their completion act as a generic↔async proxy fence (as for
//! `cp.async.bulk`), strict mode does not, so async readers (wgmma, tcgen05.mma) then need
//! an explicit `fence.proxy.async`.

use super::base::exec::{self, internal, Exec, Readiness};
use super::base::{access, async_agent, completion};
use crate::check::machine::{AgentKind, AsyncOp, AsyncWhat, Knowledge, Layout, Machine, ProxyKey, Stage};
use crate::model::Instr;

pub fn issue(ex: &mut Exec, instr: &Instr) -> Result<(), String> {
    let Instr::CpAsync { dst, src, .. } = instr else { return Err(internal("cp.async issue")) };
    let (dst, src) = (ex.layout.loc(dst)?, ex.layout.loc(src)?);
    let k = ex.me()?.knowledge.clone();
    let place = ex.place();
    let id = async_agent::spawn(ex, AsyncWhat::CpAsync { dst, src }, k, place)?;
    ex.me_mut()?.asyncs.cp_open.push(id);
    if ex.explain {
        ex.out.description = format!("issued cp.async (agent #{id})");
    }
    ex.next()
}

pub fn commit(ex: &mut Exec) -> Result<(), String> {
    let a = &mut ex.me_mut()?.asyncs;
    let group = std::mem::take(&mut a.cp_open);
    a.cp_groups.push(group);
    if ex.explain {
        ex.out.description = "committed a cp.async group".into();
    }
    ex.next()
}

/// Copies `wait_group n` (or `wait_all` when `n` is `None`) waits for.
fn covered(m: &Machine, agent: u32, n: Option<u32>) -> Vec<u32> {
    let Some(a) = m.agents.get(agent as usize) else { return Vec::new() };
    let groups = &a.asyncs.cp_groups;
    match n {
        Some(n) => groups.iter().take(async_agent::covered(groups, n)).flatten().copied().collect(),
        None => groups.iter().flatten().chain(&a.asyncs.cp_open).copied().collect(),
    }
}

pub fn wait_readiness(m: &Machine, agent: u32, n: Option<u32>) -> Readiness {
    let waiting: Vec<String> = covered(m, agent, n)
        .into_iter()
        .filter(|id| !exec::all_reached(m, &[*id], Stage::Completed))
        .map(|id| format!("#{id}"))
        .collect();
    if waiting.is_empty() {
        async_agent::one("wait returns")
    } else {
        Readiness::Blocked(format!("waits for cp.async {}", waiting.join(", ")))
    }
}

/// The completed copies become visible to this thread only (§6.1).
pub fn wait(ex: &mut Exec, n: Option<u32>) -> Result<(), String> {
    let ids = covered(ex.m, ex.agent, n);
    let fence = exec::pragmatic(ex);
    for id in &ids {
        let k = async_agent::own_events(ex.layout, ex.m, *id, fence);
        ex.me_mut()?.knowledge.join(&k);
    }
    let a = &mut ex.me_mut()?.asyncs;
    match n {
        Some(n) => {
            let upto = async_agent::covered(&a.cp_groups, n);
            a.cp_groups.drain(..upto);
        }
        None => {
            a.cp_groups.clear();
            a.cp_open.clear();
        }
    }
    if ex.explain {
        ex.out.description = format!("{} cp.async cop{} visible to this thread", ids.len(), if ids.len() == 1 { "y is" } else { "ies are" });
    }
    ex.next()
}

/// `cp.async.mbarrier.arrive{.noinc}`: pending += 1 now (not with `.noinc`), and an async
/// arrive-on once every prior `cp.async` of this thread completed.
pub fn mbar_arrive(ex: &mut Exec, bar: &str, noinc: bool) -> Result<(), String> {
    let mbar = ex.layout.mbar(bar)?;
    let me = ex.instr_ref().map(|r| r.thread);
    let after: Vec<u32> = ex
        .m
        .agents
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!(&a.kind, AgentKind::Async { issuer, op } if Some(issuer.thread) == me && matches!(op.what, AsyncWhat::CpAsync { .. })))
        .map(|(i, _)| i as u32)
        .collect();
    let text = if noinc { "cp.async.mbarrier.arrive.noinc" } else { "cp.async.mbarrier.arrive" };
    if !noinc && !completion::add_pending(ex, mbar, text)? {
        return Ok(());
    }
    let place = ex.place();
    let k = ex.me()?.knowledge.clone();
    let id = async_agent::spawn(ex, AsyncWhat::CpArrive { mbar, after }, k, place)?;
    if ex.explain {
        ex.out.description = format!("{text} on `{bar}`: async arrive-on (agent #{id}) once this thread's copies complete");
    }
    ex.next()
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, op: &AsyncOp, explain: bool) -> Readiness {
    match &op.what {
        AsyncWhat::CpAsync { src, .. } => async_agent::enabled_reads(layout, m, agent, &[(*src, ProxyKey::Generic)], explain),
        AsyncWhat::CpArrive { after, .. } => {
            let waiting: Vec<String> = after
                .iter()
                .filter(|id| !exec::all_reached(m, &[**id], Stage::Completed))
                .map(|id| format!("#{id}"))
                .collect();
            if waiting.is_empty() {
                async_agent::one("arrive")
            } else {
                Readiness::Blocked(format!("waits for cp.async {}", waiting.join(", ")))
            }
        }
        _ => Readiness::Done,
    }
}

pub fn step(ex: &mut Exec, op: &AsyncOp, choice: u32) -> Result<(), String> {
    match &op.what {
        AsyncWhat::CpAsync { dst, src } => {
            let v = async_agent::perform_reads(ex, &[(*src, ProxyKey::Generic)], choice)?;
            let value = v.first().copied().unwrap_or(0);
            access::write(ex, &async_agent::access_to(ex.layout, *dst, None, None), value, Vec::new())?;
            let name = |l: usize| ex.layout.locs.get(l).map_or("?".to_string(), |x| x.name.clone());
            if ex.explain {
                ex.out.description = format!("copied {} → {} = {value}; copy complete", name(*src), name(*dst));
            }
            async_agent::set_stage(ex, Stage::Completed)
        }
        AsyncWhat::CpArrive { mbar, after } => {
            let fence = exec::pragmatic(ex);
            let mut k = Knowledge::default();
            for id in after {
                k.join(&async_agent::own_events(ex.layout, ex.m, *id, fence));
            }
            let who = ex.text(|| ex.name_of(ex.agent));
            let msg = async_agent::message(ex, crate::model::Scope::Cta, ex.text(|| format!("{who} arrive-on")), k)?;
            if completion::signal(ex, *mbar, 1, 0, Some(msg), &who)? {
                async_agent::set_stage(ex, Stage::Completed)?;
            }
            Ok(())
        }
        _ => Err(internal("cp.async step")),
    }
}
