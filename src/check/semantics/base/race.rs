//! Explaining a race: which synchronization is missing (issue 4's `RaceReason`).
//!
//! Order of questions: is there an edge that only lacks a proxy fence, or only a state
//! space? Did a synchronization attempt fail (scope, phase, no release/acquire)? Else
//! nothing synchronizes the two agents at all.

use super::exec::{op_of, Exec};
use super::tc_explain;
use crate::check::machine::{needed, EventId, Filter, ProxyKey, Via};
use crate::check::report::RaceReason;

/// The steps of a failed synchronization: its release end (none for an edge from nobody)
/// and its acquire end.
pub type FailedEdge = Option<(Option<usize>, usize)>;

/// Why `event` (an access to `loc` through `from`) is not ordered before the executing
/// agent's access through `to`, with a sentence for the learner, and the failed
/// synchronization that explains it, when one does.
pub fn classify(ex: &Exec, event: EventId, loc: usize, from: Via, to: Via) -> (RaceReason, String, FailedEdge) {
    let Ok(me) = ex.me() else {
        return (RaceReason::NoSynchronization, String::new(), None);
    };
    // Texts only when explaining (`Exec::text`): the explorer meets a race in many states
    // and keeps each by its reason; the names and sentences are rebuilt on replay.
    let writer = || ex.name_of(event.agent);
    let reader = || ex.name_of(ex.agent);
    let loc_name = ex.layout.locs.get(loc).map_or("?", |l| l.name.as_str());
    if let Some((reason, text)) = tc_explain::classify(ex, event, loc) {
        return (reason, text, None);
    }
    let from_cta = ex.m.agents.get(event.agent as usize).map_or(ex.place().cta, |a| a.place.cta);
    let crossing = needed(from, from_cta, to, ex.place().cta);
    if let Some((issuer, text)) = tc_explain::unfenced_operand(ex, event, loc) {
        // The issuer's synchronization reached the write; the op did not inherit it.
        let proxy_too = !crossing.steps.is_empty()
            && !ex.m.agents.get(issuer).is_some_and(|a| a.knowledge.orders(ex.layout, event, loc, &crossing));
        let text = if proxy_too { ex.text(|| format!("{text}; the path also lacks {}", fence_names(from, to))) } else { text };
        return (RaceReason::MissingTcgen05Fence, text, None);
    }
    // An edge that reaches the location and lacks only proxy fences: name the fences, whatever
    // filtered entries (tensor-memory-only, restricted fences) the knowledge also holds.
    if !crossing.steps.is_empty() && me.knowledge.orders_ignoring_proxies(ex.layout, event, loc) {
        let text = ex.text(|| {
            let (fences, reader) = (fence_names(from, to), reader());
            if event.agent == ex.agent {
                format!(
                    "`{reader}`'s {} access comes first in program order, but program order reaches its {} \
                     access only across {fences} (reference §1.8); add it between the two",
                    describe_via(ex, from),
                    describe_via(ex, to),
                )
            } else {
                format!(
                    "`{}`'s {} access is ordered before `{reader}`'s {} access, but the path \
                     lacks {fences}; add it after that access, before the release",
                    writer(),
                    describe_via(ex, from),
                    describe_via(ex, to),
                )
            }
        });
        return (RaceReason::MissingProxyFence, text, None);
    }
    if let Some(filter) = me.knowledge.orders_ignoring(event) {
        if !filter.contains(ex.layout, loc) && filter != Filter::All {
            return (
                RaceReason::StateSpaceRestriction,
                ex.text(|| format!(
                    "`{}` did synchronize with `{}`, but through a restricted fence \
                     ({}) that does not cover `{loc_name}`; use an unrestricted release/acquire",
                    writer(),
                    reader(),
                    describe(filter, ex)
                )),
                None,
            );
        }
    }
    let priority = [
        RaceReason::ScopeMismatch,
        RaceReason::WrongPhase,
        RaceReason::AsyncNotObserved,
        RaceReason::StateSpaceRestriction,
        RaceReason::ExecutionOrderOnly,
    ];
    // An async agent inherited its issuer's knowledge: failures into the issuer count.
    let issuer = op_of(ex.m, ex.agent).map(|(i, _)| i.thread);
    // A parity wait that passed on a fresh barrier records an edge from nobody that would
    // have carried everything. It explains a race only with an agent this one never
    // synchronized with: after synchronizing with the other agent (a producer started at
    // parity 1 on its empty barrier, then acquiring a consumer's release), the valid
    // start-up wait is a bystander and the access simply follows that release.
    let synced_with_other = me.knowledge.main().is_some_and(|m| m.vv.get(event.agent) > 0);
    for reason in priority {
        // Read side: an edge into this agent that would have carried the write. Write side:
        // an edge into the earlier reader that this agent (or nobody) failed to form.
        let hit = ex.m.trace.0.failed().chain(&ex.out.failed).find(|f| {
            f.reason == reason
                && !(f.from_agent == u32::MAX && synced_with_other)
                && (((f.to_agent == ex.agent || Some(f.to_agent) == issuer) && f.carried.contains(event))
                    || (f.to_agent == event.agent && (f.from_agent == ex.agent || f.from_agent == u32::MAX)))
        });
        if let Some(f) = hit {
            return (reason, f.text.clone(), Some((f.from_step, f.to_step)));
        }
    }
    if let Some(why) = unobserved(ex, event.agent) {
        return (RaceReason::AsyncNotObserved, why, None);
    }
    if me.knowledge.main().is_some_and(|m| m.vv.get(event.agent) > 0) {
        return (
            RaceReason::NoSynchronization,
            ex.text(|| {
                let (reader, writer) = (reader(), writer());
                format!(
                    "`{reader}` synchronized with `{writer}` only up to an earlier point of `{writer}`'s \
                     program; this access comes after it, and a release covers only what precedes it: \
                     move the access before that release, or release after it"
                )
            }),
            None,
        );
    }
    (
        RaceReason::NoSynchronization,
        ex.text(|| {
            format!(
                "nothing orders `{}`'s access before `{}`'s: no release/acquire pattern, \
                 barrier or mbarrier connects them",
                writer(),
                reader()
            )
        }),
        None,
    )
}

fn describe_via(ex: &Exec, via: Via) -> String {
    let name = ex.layout.locs.get(via.va).map_or("?", |l| l.name.as_str());
    format!("{} (address `{name}`)", via.proxy.name())
}

/// The proxy fences an access pair needs, e.g. "`fence.proxy.surface` and `fence.proxy.alias`".
fn fence_names(from: Via, to: Via) -> String {
    let mut names = Vec::new();
    for p in [from.proxy, to.proxy] {
        let name = match p {
            ProxyKey::Generic => continue,
            ProxyKey::Async => "`fence.proxy.async`",
            ProxyKey::Texture => "`fence.proxy.texture`",
            ProxyKey::Surface => "`fence.proxy.surface`",
            ProxyKey::Constant => "`fence.proxy.constant`",
            ProxyKey::Tensormap => "`fence.proxy.tensormap::generic`",
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if from.va != to.va {
        names.push("`fence.proxy.alias`");
    }
    if names.is_empty() {
        "a proxy fence".into()
    } else {
        names.join(" and ")
    }
}

fn describe(filter: Filter, ex: &Exec) -> String {
    match filter {
        Filter::All => "everything".into(),
        Filter::Global => "global memory only".into(),
        Filter::SharedCta(cta) => format!("shared memory of CTA `{}` only", ex.layout.cta_name(cta)),
        Filter::SharedCluster(_) => "shared memory of the cluster only".into(),
        Filter::MbarrierInit => "`mbarrier.init` only".into(),
        Filter::Tmem => "tensor memory only (`tcgen05.fence`)".into(),
        Filter::Memory => "everything but tensor memory".into(),
    }
}

/// Explains a race with an asynchronous agent's access: its completion was never observed.
pub fn unobserved(ex: &Exec, agent: u32) -> Option<String> {
    let (issuer, op) = op_of(ex.m, agent)?;
    Some(ex.text(|| {
        let name = ex.name_of(agent);
        let issuer = ex.layout.threads.get(issuer.thread()).map_or("?", |t| t.name.as_str());
        let how = op.what.observed_by();
        format!(
            "`{name}` (issued by `{issuer}`) is asynchronous: only its own completion mechanism orders it, \
             and nothing here observed that completion; use {how}"
        )
    }))
}
