//! The causality table: which operations release, which acquire, and when a
//! release/acquire pair synchronizes. Every cross-agent edge goes through this file.
//!
//! Rules (reference section numbers):
//! - §1.1: `ld`/`st` without `.sem` are weak; `.relaxed/.acquire/.release/.acq_rel` are
//!   strong; `.volatile`/`.mmio` are relaxed at `.sys`; `atom`/`red` default to
//!   `.relaxed.gpu`. A strong memory op without a scope gets `.gpu` (departure: PTX requires
//!   the scope to be written; the parser should enforce it).
//! - §1.2: scope is evaluated at the executing agent; a cluster of one CTA is that CTA;
//!   shared-memory ops clamp their scope to `.cluster` ([`Layout::clamp`]).
//! - §1.3: two accesses are morally strong iff same agent, or both strong, each one's scope
//!   covers the other's agent, same proxy and same location.
//! - §1.5 patterns: release = release op (1); release op on M po-before a strong write to
//!   M (2: the later write carries the earlier op's message, at that op's scope); or
//!   release/acq_rel fence po-before a strong write (3: the write carries the fence's
//!   message). Acquire = acquire op, or strong read po-before an acquire fence (the fence
//!   consumes the read's pending messages). `red` never reads for an acquire pattern (§8.8).
//! - §2.3: the halves of `fence.proxy.async::generic` are also the fences of those
//!   patterns: the release half releases (cluster scope, own CTA's shared memory) after its
//!   proxy crossing, the acquire half acquires (cluster scope, the cluster's shared memory)
//!   before it — the CLC write-after-read example.
//! - §1.6 rule 4: a pattern synchronizes iff the observation link is morally strong and the
//!   first op of the release pattern and the last op of the acquire pattern mutually
//!   include each other. For fence patterns that is the FENCE's scope ([`synchronize`]).
//! - §1.6 rules 1–3: `fence.sc` pairs in Fence-SC order (execution order of morally strong
//!   `fence.sc`), `bar` completion, `barrier.cluster` completion (see `flow.rs`).
//! - §1.7: composition is transitive through knowledge joins; each edge is tested at its
//!   own scope, so composition never upgrades a scope.
//! - §1.8/§2.3: proxy and alias crossings need proxy fences on the path
//!   ([`crate::check::machine::needed`]); same-proxy non-generic pairs need one across CTAs.
//! - §2.2: `sync_restrict` restricts the message ([`Filter`]) to the state space.
//! - §4.5: mbarrier arrive→wait synchronizes iff arriver and waiter mutually include;
//!   counting ignores `.sem`/`.scope`. Every thread update of the barrier word (arrive,
//!   expect-tx, complete-tx) is an RMW of it, so release fences before it travel with it
//!   (pattern 3). With fences around a relaxed update or wait (§1.6), the update and the
//!   wait themselves must still include each other: an update whose scope misses the
//!   barrier's CTA (where every wait runs) carries no fence's release, and a relaxed wait
//!   defers only arrivals its scope includes (`mbarrier.rs`).
//! - §5.2: `barrier.cluster` has no scope qualifier and spans the cluster, so its relaxed
//!   arrive is always morally strong with the wait; the fence before it decides (§1.6).
//! - §1.8 (iii): one agent's accesses through two virtual addresses or proxies are ordered
//!   by program order only across the proxy fences on the way (`access.rs`).

use super::exec::Exec;
use crate::check::machine::{covers, BareArrival, Carried, EventId, FailedRec, Filter, Message, Place, Via};
use crate::check::report::RaceReason;
use crate::check::text;
use crate::model::{FenceSem, Scope, Sem};

/// How a memory operation takes part in synchronization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpSem {
    /// The scope, when the operation is strong.
    pub strong: Option<Scope>,
    pub release: bool,
    pub acquire: bool,
}

/// §1.1 for `ld`, `st`, `atom`, `red`.
pub fn mem_op(sem: Option<Sem>, scope: Option<Scope>, atomic: bool) -> OpSem {
    let sem = sem.unwrap_or(if atomic { Sem::Relaxed } else { Sem::Weak });
    let scope = scope.unwrap_or(Scope::Gpu);
    let (strong, release, acquire) = match sem {
        Sem::Weak => (None, false, false),
        Sem::Relaxed => (Some(scope), false, false),
        Sem::Acquire => (Some(scope), false, true),
        Sem::Release => (Some(scope), true, false),
        Sem::AcqRel => (Some(scope), true, true),
        Sem::Volatile | Sem::Mmio => (Some(Scope::Sys), false, false),
    };
    OpSem { strong, release, acquire }
}

/// Fences: `(release, acquire, sc)`; no `.sem` means `.acq_rel` (§1.10).
pub fn fence_op(sem: Option<FenceSem>) -> (bool, bool, bool) {
    match sem.unwrap_or(FenceSem::AcqRel) {
        FenceSem::Sc => (true, true, true),
        FenceSem::AcqRel => (true, true, false),
        FenceSem::Acquire => (false, true, false),
        FenceSem::Release => (true, false, false),
    }
}

/// One side of a moral-strength test.
#[derive(Clone, Copy, Debug)]
pub struct Side {
    pub agent: u32,
    pub place: Place,
    pub strong: Option<Scope>,
    pub key: Via,
}

/// §1.3 (same location is the caller's business).
pub fn morally_strong(a: Side, b: Side) -> bool {
    if a.agent == b.agent {
        return true;
    }
    match (a.strong, b.strong) {
        (Some(sa), Some(sb)) => {
            a.key == b.key && covers(sa, a.place, b.place) && covers(sb, b.place, a.place)
        }
        _ => false,
    }
}

/// §1.6 rule 4 for one message: join it when the release's first op and the acquire's
/// last op include each other; otherwise record why not. Returns whether it synchronized.
pub fn synchronize(
    ex: &mut Exec,
    msg: &Message,
    acq_scope: Scope,
    acq_filter: Filter,
    acq_text: &str,
    kind: &str,
) -> Result<bool, String> {
    if msg.from_agent == ex.agent {
        return Ok(false);
    }
    let to = ex.place();
    let from = release_place(ex, msg);
    let release_covers = covers(msg.scope, from, to);
    let acquire_covers = covers(acq_scope, to, from);
    if release_covers && acquire_covers {
        let layout = ex.layout;
        ex.me_mut()?.knowledge.join_restricted(&msg.knowledge, acq_filter, layout);
        ex.acquired_for_tcgen05(msg, acq_filter)?;
        ex.edge(msg, kind, Some(msg.scope.min(acq_scope)));
        return Ok(true);
    }
    let me = ex.name_of(ex.agent);
    let them = ex.name_of(msg.from_agent);
    let text = if !release_covers {
        format!(
            "`{}` by `{them}` has scope `{}`, which does not include `{me}` ({})",
            msg.via,
            text::scope(msg.scope),
            ex.layout.describe_place(to)
        )
    } else {
        format!(
            "`{acq_text}` by `{me}` has scope `{}`, which does not include `{them}` ({})",
            text::scope(acq_scope),
            ex.layout.describe_place(from)
        )
    };
    fail(ex, msg, RaceReason::ScopeMismatch, text);
    Ok(false)
}

/// Where a release counts as performed for the mutual-scope test: where its agent runs,
/// unless the message says otherwise ([`Message::performed_in`]).
pub fn release_place(ex: &Exec, msg: &Message) -> Place {
    msg.performed_in.unwrap_or_else(|| ex.m.agents.get(msg.from_agent as usize).map_or(ex.place(), |a| a.place))
}

pub fn fail(ex: &mut Exec, msg: &Message, reason: RaceReason, text: String) {
    fail_carrying(ex, msg, reason, text, Carried::Knowledge(msg.knowledge.clone()));
}

/// [`fail`] for a write that is itself the release `msg` (`st.release`): one edge, which
/// would have carried what the release published and the write `write` too.
pub fn fail_release_write(ex: &mut Exec, msg: &Message, write: EventId, reason: RaceReason, text: String) {
    fail_carrying(ex, msg, reason, text, Carried::ReleaseWrite(msg.knowledge.clone(), write));
}

/// Records the failed edge from `msg`'s release to this step, which would have carried `carried`.
fn fail_carrying(ex: &mut Exec, msg: &Message, reason: RaceReason, text: String, carried: Carried) {
    ex.out.failed.push(FailedRec { from_agent: msg.from_agent, from_step: msg.step.0, to_agent: ex.agent, to_step: ex.step, reason, text, carried });
}

/// [`fail`] for an edge that would have carried `event` alone (a write that released
/// nothing, read by this agent), made at `step`.
pub fn fail_event(ex: &mut Exec, event: EventId, step: Option<usize>, reason: RaceReason, text: String) {
    ex.out.failed.push(FailedRec { from_agent: event.agent, from_step: step, to_agent: ex.agent, to_step: ex.step, reason, text, carried: Carried::Event(event) });
}

/// Add `msgs` to the agent's pending acquires (for a later acquire fence), deduplicated.
pub fn defer(ex: &mut Exec, msgs: &[Message]) -> Result<(), String> {
    let me = ex.me_mut()?;
    for msg in msgs {
        if !me.pending_acquire.iter().any(|p| p.origin == msg.origin && p.scope == msg.scope) {
            me.pending_acquire.push(msg.clone());
        }
    }
    crate::sort::short_by_key(&mut me.pending_acquire, |p| (p.origin, p.scope));
    Ok(())
}

/// Merge releases into a barrier-style list, one per origin and scope.
pub fn merge(into: &mut Vec<Message>, msgs: impl IntoIterator<Item = Message>) {
    for msg in msgs {
        if !into.iter().any(|p| p.origin == msg.origin && p.scope == msg.scope) {
            into.push(msg);
        }
    }
    crate::sort::short_by_key(into, |p| (p.origin, p.scope));
}

/// Explain, for later races, that an arrival reached the barrier without releasing anything
/// to this waiter.
pub fn fail_bare(ex: &mut Exec, bare: &BareArrival) {
    if bare.event.agent == ex.agent {
        return;
    }
    let (reason, text) = bare.why.0.clone();
    fail_event(ex, bare.event, bare.step.0, reason, text);
}

/// A relaxed arrival with no release fence before it: the waiter sees it, nothing more.
pub fn bare_relaxed(ex: &Exec, via: &str) -> BareArrival {
    let who = ex.name_of(ex.agent);
    let epoch = ex.me().map_or(0, |a| a.knowledge.own_epoch(ex.agent));
    BareArrival {
        event: crate::check::machine::EventId { agent: ex.agent, epoch },
        step: crate::check::machine::Meta(Some(ex.step)),
        why: crate::check::machine::Meta((
            RaceReason::ExecutionOrderOnly,
            format!("`{via}` by `{who}` is relaxed and no `fence.release` precedes it: the wait observes it, but nothing is released"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::machine::ProxyKey;

    fn side(agent: u32, cta: usize, cluster: usize, strong: Option<Scope>) -> Side {
        Side { agent, place: Place { cta, cluster, gpu: 0 }, strong, key: Via { proxy: ProxyKey::Generic, va: 0 } }
    }

    #[test]
    fn defaults_follow_reference_1_1() {
        assert_eq!(mem_op(None, None, false).strong, None);
        assert_eq!(mem_op(None, None, true), OpSem { strong: Some(Scope::Gpu), release: false, acquire: false });
        assert_eq!(mem_op(Some(Sem::Volatile), Some(Scope::Cta), false).strong, Some(Scope::Sys));
        assert_eq!(mem_op(Some(Sem::AcqRel), Some(Scope::Cta), true), OpSem { strong: Some(Scope::Cta), release: true, acquire: true });
        assert_eq!(fence_op(None), (true, true, false));
        assert_eq!(fence_op(Some(FenceSem::Sc)), (true, true, true));
    }

    #[test]
    fn moral_strength_needs_mutual_inclusion() {
        // Same thread: always; weak cross-thread: never.
        assert!(morally_strong(side(0, 0, 0, None), side(0, 0, 0, None)));
        assert!(!morally_strong(side(0, 0, 0, None), side(1, 0, 0, Some(Scope::Gpu))));
        // .cta in CTA 0 does not include CTA 1, whatever the other side says (§1.3 example).
        assert!(!morally_strong(side(0, 0, 0, Some(Scope::Cta)), side(1, 1, 0, Some(Scope::Gpu))));
        assert!(morally_strong(side(0, 0, 0, Some(Scope::Cluster)), side(1, 1, 0, Some(Scope::Cluster))));
        // A cluster of one CTA is the CTA.
        assert!(!morally_strong(side(0, 0, 0, Some(Scope::Cluster)), side(1, 1, 1, Some(Scope::Cluster))));
        // Different proxies are never morally strong.
        let mut async_side = side(1, 0, 0, Some(Scope::Gpu));
        async_side.key.proxy = ProxyKey::Async;
        assert!(!morally_strong(side(0, 0, 0, Some(Scope::Gpu)), async_side));
    }
}
