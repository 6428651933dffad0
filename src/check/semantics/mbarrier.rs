//! mbarrier: the state machine of reference §4 with a signed tx-count, and its
//! synchronization (§4.5): release arrivals → acquire waits whose scopes include each other.

use super::base::exec::{self, operand, Exec, Readiness};
use super::base::{async_agent, completion};
use super::base::sync::{self, bare_relaxed, defer, merge, synchronize};
use crate::check::machine::{covers, merge_bare, AsyncWhat, BareArrival, Stage, TcWhat, Carried, FailedRec, Filter, Knowledge, Layout, Machine, MbarState, Message, Meta, Place, VersionVec};
use crate::check::report::RaceReason;
use crate::model::{MbarKind, MbarOp, Scope, Sem};

const MAX_COUNT: i64 = (1 << 20) - 1;

/// One line on what a barrier still owes, e.g.
/// "`full`: phase 0, 0 arrivals pending, tx-count +1024: 1024 bytes were expected and never completed".
pub fn debt(name: &str, b: &MbarState) -> String {
    if !b.valid {
        return format!("`{name}` is {}", not_valid(b));
    }
    let mut s = format!("`{name}`: phase {}, {} arrival{} pending, tx-count {:+}", b.phase, b.pending, if b.pending == 1 { "" } else { "s" }, b.tx);
    if b.tx > 0 {
        s.push_str(&format!(": {} bytes were expected and never completed", b.tx));
    } else if b.tx < 0 {
        s.push_str(&format!(": {} bytes completed that no `expect_tx` declared", -b.tx));
    }
    s
}

/// Why a barrier is not valid: never initialized, or invalidated by `mbarrier.inval`.
pub fn not_valid(b: &MbarState) -> &'static str {
    if b.invalidated {
        "invalidated"
    } else {
        "not initialized"
    }
}

/// What the next plain arrive would do.
pub fn next_arrive(b: &MbarState) -> String {
    if !b.valid {
        return format!("next arrive is undefined behaviour ({})", not_valid(b));
    }
    if b.pending == 1 && b.tx == 0 {
        format!("next arrive completes phase {} (parity {})", b.phase, b.phase & 1)
    } else if b.pending == 1 {
        format!("next arrive leaves phase {} waiting for tx-count {:+} to reach 0", b.phase, b.tx)
    } else if b.pending <= 0 {
        // No arrival is pending (the phase waits on tx bytes): never show a negative count.
        format!("no arrival is pending in phase {}: another arrive is undefined behaviour", b.phase)
    } else {
        format!("next arrive leaves {} arrivals pending in phase {}", b.pending - 1, b.phase)
    }
}

fn wait_passes(m: &Machine, agent: u32, b: &MbarState, parity: bool, phase: &crate::model::Operand) -> bool {
    let v = operand(m, agent, phase);
    if parity {
        (v & 1) != i64::from(b.phase & 1)
    } else {
        i64::from(b.phase) > v
    }
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, op: &MbarOp, explain: bool) -> Result<Readiness, String> {
    let MbarKind::Wait { parity, phase, .. } = &op.kind else {
        return Ok(Readiness::Enabled(vec!["run".into()]));
    };
    let idx = layout.mbar(&op.bar)?;
    let b = m.mbars.get(idx).ok_or_else(|| exec::internal("mbar"))?;
    if !b.valid || wait_passes(m, agent, b, *parity, phase) {
        return Ok(Readiness::Enabled(vec![if explain { format!("wait on `{}` returns true", op.bar) } else { String::new() }]));
    }
    if !explain {
        return Ok(Readiness::Blocked(String::new()));
    }
    Ok(Readiness::Blocked(format!(
        "waits on `{}` for {} {}; {}",
        op.bar,
        if *parity { "parity" } else { "phase token" },
        operand(m, agent, phase),
        debt(&op.bar, b)
    )))
}

pub fn step(ex: &mut Exec, op: &MbarOp, spin: bool) -> Result<(), String> {
    let text = ex.op_text();
    // pending_count reads a state token, not a barrier, and the checker's tokens carry only
    // the phase: say so rather than fail on the (absent) barrier name.
    if matches!(op.kind, MbarKind::PendingCount { .. }) {
        return Err(format!("`{text}` is not modelled: fencelab's state tokens record the phase, not the pending count"));
    }
    let idx = ex.layout.mbar(&op.bar)?;
    let loc = *ex.layout.mbar_locs.get(idx).ok_or_else(|| exec::internal("mbar loc"))?;
    let owner = match ex.layout.locs.get(loc).map(|l| l.space) {
        Some(crate::model::Space::Shared(c)) => c,
        _ => return Err(exec::internal("mbar space")),
    };
    let place = ex.place();
    let remote = owner != place.cta;
    let ub = |ex: &mut Exec, msg: String, why: &str| ex.undefined(msg, why.to_string());
    if remote {
        if ex.layout.cta_cluster.get(owner) != Some(&place.cluster) {
            ub(ex, format!("`{text}` names a barrier outside this thread's cluster"), "only CTAs of the same cluster share shared memory");
            return Ok(());
        }
        if matches!(op.kind, MbarKind::Wait { .. }) {
            ub(ex, format!("`{text}` waits on a barrier in another CTA"), "no wait on a remote (shared::cluster) mbarrier: peers arrive, the owner CTA waits (§9.7.13.15.8)");
            return Ok(());
        }
        if !op.remote_form_allowed() {
            ub(ex, format!("`{text}` uses the local form on a barrier in another CTA"), "use the `.shared::cluster` form with the sink `_` for a remote barrier (§9.7.13.15.13)");
            return Ok(());
        }
    }
    let Some(state) = ex.m.mbars.get(idx).cloned() else { return Err(exec::internal("mbar state")) };
    if let MbarKind::Init { count } = op.kind {
        if state.valid {
            ub(ex, format!("`{text}` re-initializes a valid barrier"), "run `mbarrier.inval` before initializing the barrier again (§9.7.13.15.9)");
            return Ok(());
        }
        if !(1..=MAX_COUNT).contains(&i64::from(count)) {
            ub(ex, format!("arrival count {count} of `{text}` is out of range"), "the expected count must be between 1 and 2^20-1");
            return Ok(());
        }
        let epoch = ex.me()?.knowledge.own_epoch(ex.agent);
        let b = MbarState::fresh(Some(count), Some(crate::check::machine::EventId { agent: ex.agent, epoch }));
        *ex.m.mbars.get_mut(idx).ok_or_else(|| exec::internal("mbar"))? = b.into();
        if ex.explain {
            ex.out.description = format!("initialized `{}` with count {count}", op.bar);
        }
        return ex.next();
    }
    if !state.valid {
        let (what, fix) = if state.invalidated {
            ("invalidated", "after `mbarrier.inval` only a new `mbarrier.init` makes the barrier usable again (§9.7.13.15.9)")
        } else {
            ("uninitialized", "every mbarrier op except `init` needs a valid barrier (§9.7.13.15)")
        };
        // A barrier never initialized names its init (the other end a fix moves or publishes).
        let fix = if state.invalidated { fix.to_string() } else { completion::with_init_quoted(ex, &op.bar, fix.to_string()) };
        ex.undefined(format!("`{text}` on {what} mbarrier `{}`", op.bar), fix);
        return Ok(());
    }
    if let Some(init) = state.init_event {
        if !ex.me()?.knowledge.orders(ex.layout, init, loc, &crate::check::machine::Need::default()) {
            let me_name = ex.name_of(ex.agent);
            let fix = "publish the init: `bar.sync` inside the CTA, or `fence.mbarrier_init.release.cluster` plus a cluster barrier for peers (§4.2)";
            let fix = completion::with_init_quoted(ex, &op.bar, fix.to_string());
            ex.undefined(format!("`{me_name}` uses `{}` before its `mbarrier.init` is visible", op.bar), fix);
            return Ok(());
        }
    }
    let mut b = state;
    let scope = ex.layout.clamp(op.scope.unwrap_or(Scope::Cta), loc);
    // Waits run only in the owner CTA (§4.1), so whether an update of the barrier word is
    // morally strong with its waiters (§1.3) is known here. If not, earlier fences cannot
    // release through it (§1.6 rule 4 needs the observation link itself to be morally strong).
    let owner_place = Place { cta: owner, cluster: place.cluster, gpu: place.gpu };
    let reaches = covers(scope, place, owner_place);
    match &op.kind {
        MbarKind::Init { .. } => {}
        MbarKind::Inval => {
            b.valid = false;
            b.invalidated = true;
            if ex.explain {
                ex.out.description = format!("invalidated `{}`", op.bar);
            }
        }
        MbarKind::ExpectTx { bytes } => {
            b.tx += i64::from(*bytes);
            record_update(ex, &mut b, &text, (scope, owner, reaches), Vec::new())?;
            if ex.explain {
                ex.out.description = format!("`{}` tx-count {:+}", op.bar, b.tx);
            }
        }
        MbarKind::CompleteTx { bytes } => {
            b.tx -= i64::from(*bytes);
            record_update(ex, &mut b, &text, (scope, owner, reaches), Vec::new())?;
            if ex.explain {
                ex.out.description = format!("`{}` tx-count {:+}", op.bar, b.tx);
            }
        }
        MbarKind::Arrive { count, expect_tx, no_complete, drop, state: token } => {
            if b.unobserved {
                ub(ex, format!("`{text}` arrives on `{}` before any wait observed phase {}", op.bar, b.phase.saturating_sub(1)),
                   "lapping: in every phase a wait must return true before the next phase's arrivals (§9.7.13.15.4); use a full/empty barrier pair");
                return Ok(());
            }
            let n = i64::from(count.unwrap_or(1));
            b.tx += i64::from(expect_tx.unwrap_or(0));
            if *drop {
                b.expected -= n;
                if b.expected < 1 {
                    ub(ex, format!("`{text}` drops the expected count of `{}` to {}", op.bar, b.expected), "the expected count must stay at least 1");
                    return Ok(());
                }
            }
            b.pending -= n;
            if b.pending < 0 {
                ub(ex, format!("`{text}` arrives more often than `{}` expects", op.bar), "the pending count went below zero: count the arrivals per phase exactly");
                return Ok(());
            }
            if *no_complete && b.pending == 0 && b.tx == 0 {
                ub(ex, format!("`{text}` completes the phase"), "an `.noComplete` arrive must not complete the current phase (§9.7.13.15.13)");
                return Ok(());
            }
            if let Some(t) = token {
                ex.set_reg(t, i64::from(b.phase))?;
            }
            let own = if op.sem == Some(Sem::Relaxed) { Vec::new() } else { vec![ex.release_all(scope, text.clone())?] };
            record_update(ex, &mut b, &text, (scope, owner, reaches), own)?;
            if ex.explain {
                ex.out.description = format!("arrived on `{}`: {} pending, tx-count {:+}", op.bar, b.pending, b.tx);
            }
        }
        MbarKind::Wait { parity, phase, dst, .. } => {
            let ok = wait_passes(ex.m, ex.agent, &b, *parity, phase);
            if let Some(d) = dst {
                ex.set_reg(d, i64::from(ok))?;
            }
            if ok {
                observe_completion(ex, op, &mut b, *parity, &text)?;
            } else if spin {
                return Err(exec::internal("spin wait stepped while blocked"));
            }
            if ex.explain {
                ex.out.description = format!("wait on `{}` returned {ok}", op.bar);
            }
        }
        MbarKind::PendingCount { dst, .. } => {
            ex.set_reg(dst, b.pending)?;
        }
    }
    if b.tx.abs() > MAX_COUNT {
        ub(ex, format!("tx-count of `{}` left its range ({:+})", op.bar, b.tx), "tx-count must stay within ±(2^20-1)");
        return Ok(());
    }
    if b.valid && b.pending == 0 && b.tx == 0 {
        b.phase += 1;
        b.pending = b.expected;
        let cur = std::mem::take(&mut b.current);
        merge(&mut b.completed, cur);
        let bare = std::mem::take(&mut b.bare);
        merge_bare(&mut b.bare_completed, bare);
        b.unobserved = true;
        if ex.explain {
            ex.out.description.push_str(&format!("; phase {} completed", b.phase - 1));
        }
    }
    *ex.m.mbars.get_mut(idx).ok_or_else(|| exec::internal("mbar"))? = b;
    ex.next()
}

fn observe_completion(ex: &mut Exec, op: &MbarOp, b: &mut MbarState, parity: bool, text: &str) -> Result<(), String> {
    b.unobserved = false;
    if parity && b.phase == 0 {
        // Passing on parity 1 of a fresh barrier observes no phase: nothing is acquired.
        let mut all = VersionVec::default();
        for i in 0..ex.m.agents.len() as u32 {
            all.set(i, u32::MAX);
        }
        let mut k = Knowledge::new(ex.layout.cells, 0);
        if let Some(m) = k.main_mut() {
            m.vv = all;
        }
        ex.out.failed.push(FailedRec {
            from_agent: u32::MAX,
            from_step: None,
            to_agent: ex.agent,
            to_step: ex.step,
            reason: RaceReason::WrongPhase,
            text: format!("`{text}` returned true at once: `{}` is still in phase 0, so the wait observed no completed phase (start consumers at parity 0)", op.bar),
            carried: Carried::Knowledge(k.into()),
        });
        return Ok(());
    }
    let msgs = b.completed.clone();
    for arrival in &b.bare_completed {
        sync::fail_bare(ex, arrival);
    }
    let scope = op.scope.unwrap_or(Scope::Cta).min(Scope::Cluster);
    match op.sem {
        Some(Sem::Relaxed) => {
            // §1.6: a fence after the wait supplies the acquire, but the relaxed wait itself
            // must be morally strong with the arrivals it observes (mutual scope inclusion).
            let me = ex.place();
            let (linked, unlinked): (Vec<Message>, Vec<Message>) = msgs.into_iter().partition(|msg| {
                let from = sync::release_place(ex, msg);
                msg.from_agent == ex.agent || covers(scope, me, from)
            });
            for msg in &unlinked {
                let them = ex.name_of(msg.from_agent);
                let from = sync::release_place(ex, msg);
                let why = format!(
                    "`{text}` by `{}` has scope `{}`, which does not include `{them}` ({}): the relaxed wait and the arrive are not morally strong, so no fence after the wait can acquire through it",
                    ex.name_of(ex.agent),
                    crate::check::text::scope(scope),
                    ex.layout.describe_place(from)
                );
                sync::fail(ex, msg, RaceReason::ScopeMismatch, why);
            }
            for msg in &linked {
                let text = format!("`{text}` is relaxed: it observes the phase but acquires nothing unless a `fence.acquire` follows");
                sync::fail(ex, msg, RaceReason::ExecutionOrderOnly, text);
            }
            defer(ex, &linked)
        }
        _ => {
            for msg in &msgs {
                if !synchronize(ex, msg, scope, Filter::All, text, "mbarrier")? && msg.from_agent != ex.agent && exec::pragmatic(ex) {
                    retired_async_reads(ex, msg)?;
                }
            }
            Ok(())
        }
    }
}

/// Pragmatic mode's reading of §12 #17: an arrive that does not synchronize with this
/// acquire wait for lack of scope (CUTLASS's sm90 multicast `consumer_release`, a
/// `.release.cta` arrive on the peer producer's empty barrier) still orders the reads of
/// the asynchronous readers (wgmma, `tcgen05.mma`/`cp`) that had completed and whose
/// completion the arriver knew before it arrived: completion and the observed arrive order
/// a later write after those reads, and after the TMA writes those reads returned. Only
/// those agents' own events outside tensor memory are ordered, so a generic read, a read
/// still in flight, or data handed over through the arrive gain nothing. Strict mode:
/// nothing (§10 #1).
fn retired_async_reads(ex: &mut Exec, msg: &Message) -> Result<(), String> {
    let layout = ex.layout;
    let m = &*ex.m;
    let known = |id: u32, at_least: u32, k: &Knowledge| k.main().is_some_and(|e| e.vv.get(id) >= at_least.max(1));
    let mut retired = Knowledge::default();
    for (id, agent) in m.agents.iter().enumerate() {
        let crate::check::machine::AgentKind::Async { op, .. } = &agent.kind else { continue };
        let read: &[usize] = match &op.what {
            AsyncWhat::Wgmma { a, b, .. } | AsyncWhat::Tc(TcWhat::Mma { a, b, .. }) => &[*a, *b],
            AsyncWhat::Tc(TcWhat::Cp { src, .. }) => std::slice::from_ref(src),
            AsyncWhat::Bulk { .. }
            | AsyncWhat::BulkGroup { .. }
            | AsyncWhat::CpAsync { .. }
            | AsyncWhat::CpArrive { .. }
            | AsyncWhat::StAsync { .. }
            | AsyncWhat::Tc(TcWhat::Shift { .. } | TcWhat::Ld { .. } | TcWhat::St { .. } | TcWhat::Commit { .. } | TcWhat::Alloc) => &[],
        };
        let id = id as u32;
        if read.is_empty() || op.stage != Stage::Completed || !known(id, agent.knowledge.own_epoch(id), &msg.knowledge) {
            continue;
        }
        retired.join(&async_agent::own_events(layout, m, id, false));
        // The copies that delivered what it read, as far as the arriver acquired them.
        for (copy, c) in m.agents.iter().enumerate() {
            let crate::check::machine::AgentKind::Async { op: copy_op, .. } = &c.kind else { continue };
            if let AsyncWhat::Bulk { dst, .. } = copy_op.what {
                if read.contains(&dst) && known(copy as u32, 1, &msg.knowledge) {
                    retired.join(&async_agent::own_events(layout, m, copy as u32, false));
                }
            }
        }
    }
    if retired.entries.is_empty() {
        return Ok(());
    }
    ex.me_mut()?.knowledge.join_restricted(&retired, Filter::Memory, layout);
    ex.edge(msg, "retired async reads (§12 #17, pragmatic)", None);
    Ok(())
}

/// A thread's update of the barrier word (arrive, expect-tx, complete-tx: each an RMW of it,
/// §4.5) joins the current phase with its own releases `own` and, as release pattern 3
/// (§1.5), the release fences before it, unless its scope misses the waiters' CTA (§1.6).
/// An update that releases nothing is remembered, to explain later races.
fn record_update(ex: &mut Exec, b: &mut MbarState, text: &str, (scope, owner, reaches): (Scope, usize, bool), own: Vec<Message>) -> Result<(), String> {
    let mut msgs = own;
    if reaches {
        msgs.extend(ex.me()?.release_fences.iter().cloned());
    }
    if msgs.is_empty() {
        let bare = if reaches { bare_relaxed(ex, text) } else { unreached(ex, text, scope, owner) };
        merge_bare(&mut b.bare, [bare]);
    }
    merge(&mut b.current, msgs);
    Ok(())
}

/// An update whose scope does not include the barrier's CTA, where every wait runs.
fn unreached(ex: &Exec, text: &str, scope: Scope, owner: usize) -> BareArrival {
    let mut bare = bare_relaxed(ex, text);
    bare.why = Meta((
        RaceReason::ScopeMismatch,
        format!(
            "`{text}` by `{}` has scope `{}`, which does not include CTA `{}` where the barrier's waiters run: it and the wait are not morally strong, so a release fence before it cannot reach any waiter through it",
            ex.name_of(ex.agent),
            crate::check::text::scope(scope),
            ex.layout.cta_name(owner)
        ),
    ));
    bare
}
