//! TMEM allocation (reference §8.5): `tcgen05.alloc` may block until columns are free and
//! writes the address to shared memory with a weak store; `dealloc` must not free columns
//! in use; no `alloc` after the CTA relinquished its permit.

use crate::check::semantics::base::exec::{Exec, RawAccess, Readiness};
use crate::check::semantics::base::{access, async_agent, tc_explain};
use crate::check::machine::{AgentKind, AsyncWhat, EventId, Filter, InstrRef, Knowledge, Layout, Machine, Stage, TcWhat, TMEM_COLUMNS};
use crate::model::{Instr, TcOp};

/// An `alloc` blocks while the CTA lacks `cols` free columns.
pub fn alloc_readiness(m: &Machine, cta: usize, cols: u32) -> Option<Readiness> {
    let used = m.tmem.get(cta).map_or(0, |t| t.allocated);
    (used.saturating_add(cols) > TMEM_COLUMNS).then(|| {
        Readiness::Blocked(format!("`tcgen05.alloc` waits for {cols} free TMEM columns ({used} of {TMEM_COLUMNS} allocated)"))
    })
}

/// A CTA pair's `tcgen05.dealloc.cta_group::2` is one step of both CTAs' warps (§8.5: the
/// spec's example hangs when one CTA frees before a cluster barrier and the other after
/// it): a CTA's dealloc waits until its peer's warp stands at its own pair dealloc
/// (`peer_at_pair_dealloc`) or has passed one more than this CTA has. A CTA without a peer
/// is the verifier's business.
pub fn pair_dealloc_readiness(layout: &Layout, m: &Machine, cta: usize, peer_at_pair_dealloc: impl Fn(usize) -> bool) -> Option<Readiness> {
    let peer = crate::model::pair_peer(cta, &layout.cta_cluster)?;
    let passed = |c: usize| m.tmem.get(c).map_or(0, |t| t.pair_deallocs);
    if passed(peer) > passed(cta) || peer_at_pair_dealloc(peer) {
        return None;
    }
    Some(Readiness::Blocked(format!(
        "`tcgen05.dealloc.cta_group::2` waits for the pair's CTA `{}` to reach its own `tcgen05.dealloc.cta_group::2`",
        layout.cta_name(peer)
    )))
}

/// The executing CTA passes a pair dealloc ([`pair_dealloc_readiness`]).
pub fn pass_pair_dealloc(ex: &mut Exec) {
    let cta = ex.place().cta;
    if let Some(s) = ex.m.tmem.get_mut(cta) {
        s.pair_deallocs += 1;
    }
}

/// Returns false when the alloc was undefined behaviour (reported).
pub fn alloc(ex: &mut Exec, text: &str, dst: &str, cols: u32) -> Result<bool, String> {
    let cta = ex.place().cta;
    let t = ex.m.tmem.get(cta).cloned().unwrap_or_default();
    if t.relinquished {
        ex.undefined(format!("`{text}` after `tcgen05.relinquish_alloc_permit`"), "a CTA may not allocate once any of its threads relinquished the permit (§9.7.16.7.1)".into());
        return Ok(false);
    }
    let dst = ex.layout.loc(dst)?;
    access::write(ex, &async_agent::access_to(ex.layout, dst, None, None), i64::from(t.allocated), Vec::new())?;
    let point = alloc_point(ex)?;
    if let Some(s) = ex.m.tmem.get_mut(cta) {
        s.allocated += cols;
        s.ever_allocated = true;
        s.live_allocs.push(point);
    }
    if ex.explain {
        ex.out.description = format!("allocated {cols} TMEM columns; address written to smem (weak store)");
    }
    Ok(true)
}

/// `busy`: what still uses the CTA's TMEM (a tcgen05 op in flight). Returns false on
/// undefined behaviour.
pub fn dealloc(ex: &mut Exec, text: &str, cols: u32, busy: Option<&str>) -> bool {
    let cta = ex.place().cta;
    let allocated = ex.m.tmem.get(cta).map_or(0, |t| t.allocated);
    if busy.is_some() || cols > allocated {
        let why = busy.unwrap_or("more columns than are allocated");
        ex.undefined(format!("`{text}` frees {why}"), "complete (commit and wait for) every tcgen05 op before `dealloc`, and free exactly what was allocated (§9.7.16.7.1)".into());
        return false;
    }
    if let Some(s) = ex.m.tmem.get_mut(cta) {
        s.allocated -= cols;
        if s.allocated == 0 {
            s.live_allocs.clear();
        }
    }
    if ex.explain {
        ex.out.description = format!("freed {cols} TMEM columns");
    }
    true
}

/// A tcgen05 op reaching TMEM of a CTA that allocates TMEM, while none is allocated (before
/// the `tcgen05.alloc` or after the `dealloc`), or while the op, whose tensor-memory
/// knowledge is `view`, is not ordered after any live alloc (§8.4, §9.7.16.7.1; reference
/// §8.5, §10 #33–34). Scenarios whose CTA never allocates declare their TMEM as already
/// allocated (a departure listed in ARCHITECTURE.md). The model does not map locations to
/// columns: any allocated column counts. Returns true when it reported undefined behaviour.
pub fn unallocated_access(ex: &mut Exec, text: &str, tmem_locs: &[usize], written: &[usize], view: &Knowledge) -> bool {
    for &loc in tmem_locs {
        let Some(crate::model::Space::Tmem(cta)) = ex.layout.locs.get(loc).map(|l| l.space) else { continue };
        let allocates = ex.layout.threads.iter().any(|t| {
            t.place.cta == cta && t.program.iter().any(|i| matches!(i, Instr::Tc(TcOp::Alloc { .. })))
        });
        if !allocates {
            continue;
        }
        let state = ex.m.tmem.get(cta).cloned().unwrap_or_default();
        let cta_name = ex.layout.cta_name(cta).to_string();
        let (when, fix) = if state.allocated > 0 {
            let ordered = state.live_allocs.iter().any(|id| view.orders_ignoring_proxies(ex.layout, EventId { agent: *id, epoch: 1 }, loc));
            if ordered {
                continue;
            }
            (format!("not ordered after the `tcgen05.alloc` of CTA `{cta_name}`"), unordered_fix(ex, &state.live_allocs))
        } else if state.ever_allocated {
            // The other end: the CTA's deallocs, quoted whole so the reader finds the line.
            let deallocs: Vec<String> = ex
                .layout
                .threads
                .iter()
                .filter(|t| t.place.cta == cta)
                .flat_map(|t| t.program.iter().filter(|i| matches!(i.unwrapped(), Instr::Tc(TcOp::Dealloc { .. }))).map(move |i| (t, i)))
                .map(|(t, i)| format!("`{}` by `{}`", crate::check::text::instr(i), t.name))
                .collect();
            (
                "after `tcgen05.dealloc` freed it".to_string(),
                format!(
                    "free TMEM only after every tcgen05 op on it completed, and use it no more afterwards (it was freed by {})",
                    deallocs.join(", ")
                ),
            )
        } else {
            (format!("before any `tcgen05.alloc` of CTA `{cta_name}`"), "issue tcgen05 ops only after the `tcgen05.alloc` of their TMEM, ordered after it (same thread, or `tcgen05.fence::before_thread_sync` in the allocating thread, a thread synchronization, then `tcgen05.fence::after_thread_sync` in the issuing thread)".to_string())
        };
        let name = ex.layout.locs.get(loc).map_or("?", |l| l.name.as_str()).to_string();
        let who = ex.name_of(ex.agent);
        let access = RawAccess { agent_name: who.clone(), instr: ex.instr_ref(), loc, is_write: written.contains(&loc), step: Some(ex.step) };
        ex.undefined(
            format!("`{who}` issues `{text}` on TMEM `{name}` {when}"),
            format!("tensor memory exists only between `tcgen05.alloc` and `tcgen05.dealloc`; using it outside that window is undefined behaviour (§8.5): {fix}"),
        );
        if let Some(f) = ex.out.findings.last_mut() {
            f.accesses.push(access);
        }
        return true;
    }
    false
}

/// Why the executing thread's tcgen05 op does not follow the live allocs: another thread's
/// alloc reaches it only through `fence::before_thread_sync`, a synchronization and
/// `fence::after_thread_sync` (§8.4). Names the missing pieces the programs show.
fn unordered_fix(ex: &Exec, live_allocs: &[u32]) -> String {
    let chain = "the allocating thread runs `tcgen05.fence::before_thread_sync` after the alloc, then synchronizes with this thread, which runs `tcgen05.fence::after_thread_sync` before its first tcgen05 op";
    let Some((alloc_at, _)) = live_allocs.first().and_then(|id| alloc_issuer(ex.m, *id)) else {
        return format!("order it after the alloc: {chain}");
    };
    let synced = live_allocs.iter().filter_map(|id| alloc_issuer(ex.m, *id)).any(|(_, event)| {
        ex.me().is_ok_and(|me| me.knowledge.orders_ignoring(event).is_some())
    });
    let missing = ex.instr_ref().map(|at| tc_explain::alloc_handoff(ex, alloc_at, at)).unwrap_or_default();
    match (synced, missing.is_empty()) {
        (_, false) => format!("{} ({chain})", missing.join("; ")),
        (true, true) => format!("the thread synchronization that follows the alloc does not carry it: {chain}"),
        (false, true) => format!("no synchronization orders the alloc before this op: {chain}"),
    }
}

pub fn relinquish(ex: &mut Exec) {
    let cta = ex.place().cta;
    if let Some(s) = ex.m.tmem.get_mut(cta) {
        s.relinquished = true;
    }
    if ex.explain {
        ex.out.description = "relinquished the TMEM allocation permit".into();
    }
}

/// Record the executing thread's `tcgen05.alloc` as an agent completed at issue (§8.4,
/// §8.5). Like a completed `tcgen05.ld`, its event orders this thread's later tcgen05 ops
/// and reaches another thread's only through `fence::before_thread_sync`, a thread
/// synchronization and `fence::after_thread_sync`. The agent also remembers the thread's
/// epoch at the alloc, to tell a missing fence from a missing synchronization.
fn alloc_point(ex: &mut Exec) -> Result<u32, String> {
    let me = ex.agent;
    let epoch = ex.me()?.knowledge.own_epoch(me);
    let place = ex.place();
    let id = async_agent::spawn(ex, AsyncWhat::Tc(TcWhat::Alloc), Knowledge::default(), place)?;
    let own = async_agent::own_events(ex.layout, ex.m, id, false);
    if let Some(a) = ex.m.agents.get_mut(id as usize) {
        a.knowledge = own.clone().into();
        if let Some(main) = a.knowledge.main_mut() {
            main.vv.set(me, epoch);
        }
        a.status = crate::check::machine::Status::Done;
        if let AgentKind::Async { op, .. } = &mut a.kind {
            op.stage = Stage::Completed;
        }
    }
    let tmem = own.restrict(Filter::Tmem, ex.layout);
    let asyncs = &mut ex.me_mut()?.asyncs;
    asyncs.tc_view.join(&tmem);
    asyncs.tc_done.join(&tmem);
    Ok(id)
}

/// The thread that ran the alloc behind ordering point `id`, and its event at the alloc.
fn alloc_issuer(m: &Machine, id: u32) -> Option<(InstrRef, EventId)> {
    let agent = m.agents.get(id as usize)?;
    let AgentKind::Async { issuer, .. } = agent.kind else { return None };
    let thread_agent = issuer.thread;
    let epoch = agent.knowledge.main().map_or(0, |e| e.vv.get(thread_agent));
    Some((issuer, EventId { agent: thread_agent, epoch }))
}
