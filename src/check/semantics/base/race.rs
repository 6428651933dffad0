//! Explaining a race: which synchronization is missing (issue 4's `RaceReason`).
//!
//! Order of questions: is there an edge that only lacks a proxy fence, or only a state
//! space? Did a synchronization attempt fail (scope, phase, no release/acquire)? Else
//! nothing synchronizes the two agents at all.

use super::exec::{instr_text, op_of, Exec, FailedEdge};
use super::tc_explain;
use crate::check::machine::{needed, AsyncWhat, EventId, FailedRec, Filter, InstrRef, ProxyKey, Via};
use crate::check::report::RaceReason;

/// Why `event` (an access to `loc` through `from`) is not ordered before the executing
/// agent's access through `to`, with a sentence for the learner, and the synchronization
/// that explains it: the one that failed to form, or else the one that formed between the
/// two sides but did not carry this access (a release before it, a path lacking a proxy
/// fence or a state space, a phase completed before the access's completion).
pub fn classify(ex: &Exec, event: EventId, loc: usize, from: Via, to: Via) -> (RaceReason, String, FailedEdge) {
    let (reason, text, edge) = classify_failed(ex, event, loc, from, to);
    let unobserved = matches!(reason, RaceReason::AsyncNotObserved | RaceReason::NoSynchronization);
    let text = match [event.agent, ex.agent].into_iter().find_map(|a| read_only_wait(ex, a)).filter(|_| unobserved) {
        Some(wait) => ex.text(|| format!("{text}; `{}` waited only until the copy had read its source, not for its write", instr_text(ex.layout, wait))),
        None => text,
    };
    let text = match (reason, last_wait_before_issue(ex, event.agent)) {
        (RaceReason::MissingProxyFence, _) | (_, None) => text,
        (_, Some(wait)) => ex.text(|| {
            format!(
                "{text}; `{}` is the issuer's last wait before the issue: what it acquires must include the earlier access's end",
                instr_text(ex.layout, wait)
            )
        }),
    };
    (reason, text, edge.or_else(|| formed_between(ex, event.agent)))
}

/// For an asynchronous agent racing with another access of its own issuer's side (two
/// copies of one thread into one slot): the issuer's last wait before the issue, where it
/// should have learnt that the earlier access had ended (no edge joins the two sides).
fn last_wait_before_issue(ex: &Exec, other: u32) -> Option<InstrRef> {
    let (issue, _) = op_of(ex.m, ex.agent)?;
    if other == ex.agent || side_of(ex, other) != issue.thread() as u32 || op_of(ex.m, other).is_none() {
        return None;
    }
    let program = &ex.layout.threads.get(issue.thread())?.program;
    let pc = (0..issue.pc()).rev().find(|pc| program.get(*pc).is_some_and(|i| matches!(i.unwrapped(), crate::model::Instr::Wait { .. })))?;
    Some(InstrRef::new(issue.thread(), pc))
}

/// A `.bulk_group` copy's issuer waiting for it with `cp.async.bulk.wait_group.read` after
/// the issue: that wait retires the copy's source reads only, so it closed early for a
/// race with the copy's write.
fn read_only_wait(ex: &Exec, agent: u32) -> Option<InstrRef> {
    let (issue, op) = op_of(ex.m, agent)?;
    if !matches!(op.what, AsyncWhat::BulkGroup { .. }) {
        return None;
    }
    let program = &ex.layout.threads.get(issue.thread())?.program;
    let pc = program
        .iter()
        .enumerate()
        .skip(issue.pc() + 1)
        .find(|(_, i)| matches!(i.unwrapped(), crate::model::Instr::BulkWait { read: true, .. }))?
        .0;
    Some(InstrRef::new(issue.thread(), pc))
}

/// The thread an agent stands for: itself, or the thread that issued an asynchronous agent
/// (whose synchronization it inherits).
fn side_of(ex: &Exec, agent: u32) -> u32 {
    op_of(ex.m, agent).map_or(agent, |(issuer, _)| issuer.thread() as u32)
}

/// The latest synchronization formed between `other`'s side and the executing agent's, in
/// either direction, else the latest into the executing agent's side (the phase or barrier
/// it acquired through, completed before `other`'s access): where a race has no failed
/// edge, the fix belongs on this one. Every release into that acquire is an end.
fn formed_between(ex: &Exec, other: u32) -> FailedEdge {
    let (them, me) = (side_of(ex, other), side_of(ex, ex.agent));
    if them == me {
        return None;
    }
    let edges: Vec<_> = ex.m.trace.0.edges().chain(&ex.out.edges).collect();
    let between = |from: u32, to: u32| {
        let (from, to) = (side_of(ex, from), side_of(ex, to));
        (from == them && to == me) || (from == me && to == them)
    };
    let into_me = |from: u32, to: u32| side_of(ex, to) == me && side_of(ex, from) != me;
    let chosen = edges
        .iter()
        .rev()
        .find(|e| between(e.from_agent, e.to_agent))
        .or_else(|| edges.iter().rev().find(|e| into_me(e.from_agent, e.to_agent)))?;
    let mut releases: Vec<usize> = edges.iter().filter(|e| e.to_step == chosen.to_step).filter_map(|e| e.from_step).collect();
    crate::sort::short_by_key(&mut releases, |s| *s);
    releases.dedup();
    Some((releases, chosen.to_step))
}

/// For an asynchronous agent racing with its own issuer's access by `writer`: the issuing
/// instruction and the one before it, between which a missing proxy fence goes.
fn issued_after(ex: &Exec, writer: u32) -> Option<(InstrRef, InstrRef)> {
    let (issue, _) = op_of(ex.m, ex.agent)?;
    let before = InstrRef::new(issue.thread(), issue.pc().checked_sub(1)?);
    (side_of(ex, writer) == issue.thread() as u32).then_some((issue, before))
}

fn classify_failed(ex: &Exec, event: EventId, loc: usize, from: Via, to: Via) -> (RaceReason, String, FailedEdge) {
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
            } else if let Some((issue, before)) = issued_after(ex, event.agent) {
                // The issuing thread's own access: the fence goes into its program, after
                // the access and before the issue.
                format!(
                    "`{}`'s {} access comes before it issues `{reader}` in program order, but program \
                     order reaches the {} access only across {fences} (reference §1.8); add it after that \
                     access, before `{}` (after `{}`)",
                    writer(),
                    describe_via(ex, from),
                    describe_via(ex, to),
                    instr_text(ex.layout, issue),
                    instr_text(ex.layout, before),
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
    // Read side: an edge into this agent that would have carried the earlier access. Write
    // side: an edge into the earlier reader that this agent (or nobody) failed to form. The
    // read side names the release that should have carried it, so it comes first: which of
    // the two the witness failed first is the schedule's choice (bug 39: the reader's own
    // relaxed cluster arrive fails into the writer too).
    let read_side = |f: &FailedRec| (f.to_agent == ex.agent || Some(f.to_agent) == issuer) && f.carried.contains(event);
    let write_side = |f: &FailedRec| f.to_agent == event.agent && (f.from_agent == ex.agent || f.from_agent == u32::MAX);
    for reason in priority {
        let candidate = |f: &&FailedRec| f.reason == reason && !(f.from_agent == u32::MAX && synced_with_other);
        let failed = || ex.m.trace.0.failed().chain(&ex.out.failed).filter(candidate);
        let hit = failed().find(|f| read_side(f)).or_else(|| failed().find(|f| write_side(f)));
        if let Some(f) = hit {
            return (reason, f.text.clone(), Some((f.from_step.into_iter().collect(), f.to_step)));
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
