//! `barrier.cluster.arrive` / `barrier.cluster.wait` (reference §5.2, §1.6 rule 3).
//!
//! A `.relaxed` arrive releases nothing by itself; earlier release fences travel with it,
//! each at its own scope (§5.2 [I]; the pattern-3 rule generalised to every fence scope).

use super::base::exec::{self, Exec, Readiness};
use super::base::flow::{cluster_members, recheck_cluster};
use super::base::sync::{self, merge, synchronize};
use crate::check::machine::{Filter, Layout, Machine};
use crate::check::report::Mode;
use crate::model::{Scope, Sem};

pub fn readiness(layout: &Layout, m: &Machine, agent: u32) -> Readiness {
    let Some(a) = m.agents.get(agent as usize) else { return Readiness::Done };
    let Some(cb) = m.cluster_bars.get(a.place.cluster) else { return Readiness::Done };
    match a.cluster_arrived {
        Some(i) if cb.instance > i => Readiness::Enabled(vec!["pass barrier.cluster.wait".into()]),
        Some(_) => {
            let missing: Vec<String> = cluster_members(m, a.place.cluster)
                .into_iter()
                .filter(|x| !cb.arrived.contains(x))
                .map(|x| exec::agent_name(layout, m, x))
                .collect();
            Readiness::Blocked(format!("waits at `barrier.cluster.wait` for {}", missing.join(", ")))
        }
        None => Readiness::Blocked("waits at `barrier.cluster.wait` without having arrived: the barrier can never complete".into()),
    }
}

pub fn arrive(ex: &mut Exec, sem: Option<Sem>) -> Result<(), String> {
    let text = match sem {
        Some(Sem::Relaxed) => "barrier.cluster.arrive.relaxed",
        _ => "barrier.cluster.arrive",
    };
    if ex.me()?.cluster_arrived.is_some() {
        ex.undefined(
            format!("`{}` arrives at the cluster barrier twice without waiting", ex.name_of(ex.agent)),
            "each thread arrives once per cluster-barrier instance (§9.7.13.3)".into(),
        );
        return Ok(());
    }
    let mut msgs = ex.me()?.release_fences.to_vec();
    let narrower = msgs.iter().find(|m| m.scope < Scope::Cluster).map(|m| (m.via.clone(), m.scope));
    if sem == Some(Sem::Relaxed) && narrower.is_some() {
        // §12.11: the spec does not say whether a relaxed cluster arrive after a narrower
        // fence releases anything. Strict: only cluster-or-wider fences count (reference
        // §5.2 [I]); pragmatic: each fence synchronizes at its own scope (same CTA only).
        if ex.mode == Mode::Strict {
            msgs.retain(|m| m.scope >= Scope::Cluster);
        }
    }
    if sem != Some(Sem::Relaxed) {
        msgs.push(ex.release_all(Scope::Cluster, text)?);
    }
    let cluster = ex.place().cluster;
    let agent = ex.agent;
    let bare = msgs.is_empty().then(|| {
        let mut bare = sync::bare_relaxed(ex, text);
        if let Some((fence, scope)) = narrower {
            let why = format!(
                "`{fence}` before `{text}` by `{}` has scope `{}`: strict mode lets a relaxed cluster arrive release only after a fence of cluster scope or wider (reference §5.2, §12 #11)",
                ex.name_of(agent),
                crate::check::text::scope(scope)
            );
            bare.why = crate::check::machine::Meta((crate::check::report::RaceReason::ScopeMismatch, why));
        }
        bare
    });
    let cb = ex.m.cluster_bars.get_mut(cluster).ok_or_else(|| exec::internal("cluster"))?;
    crate::check::machine::merge_bare(&mut cb.bare, bare);
    // A set: kept sorted, so arrival orders that end alike are one state.
    if let Err(at) = cb.arrived.binary_search(&agent) {
        cb.arrived.insert(at, agent);
    }
    merge(&mut cb.current, msgs);
    let instance = cb.instance;
    ex.me_mut()?.cluster_arrived = Some(instance);
    if ex.explain {
        ex.out.description = "arrived at the cluster barrier".into();
    }
    ex.next()?;
    recheck_cluster(ex, cluster)
}

pub fn wait(ex: &mut Exec) -> Result<(), String> {
    let cluster = ex.place().cluster;
    let msgs = ex.m.cluster_bars.get(cluster).map(|c| c.completed.clone()).unwrap_or_default();
    let bare = ex.m.cluster_bars.get(cluster).map(|c| c.bare_completed.clone()).unwrap_or_default();
    for arrival in &bare {
        sync::fail_bare(ex, arrival);
    }
    for msg in &msgs {
        synchronize(ex, msg, Scope::Cluster, Filter::All, "barrier.cluster.wait", "barrier.cluster")?;
    }
    ex.me_mut()?.cluster_arrived = None;
    if ex.explain {
        ex.out.description = "passed the cluster barrier".into();
    }
    ex.next()
}

