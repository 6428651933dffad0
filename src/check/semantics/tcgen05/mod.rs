//! tcgen05 (reference §8): asynchronous mma/cp/shift/ld/st agents, `commit`, `wait::*` and
//! the thread-sync fences (TMEM allocation: [`alloc`]).
//!
//! Model: an async tcgen05 op inherits, for ordinary memory, the issuer's own accesses by
//! program order and other agents' events only as far as its last
//! `fence::after_thread_sync` saw them (§8.4; its smem reads are async proxy); for tensor
//! memory, only the thread's tcgen05 view: what `fence::after_thread_sync`,
//! `wait::ld`/`wait::st` and pipelined predecessors (§8.2) put there. `fence::before_thread_sync` publishes completed ld/st and
//! in-flight pipelined producers to the thread's next synchronization, relaxed included.
//! A pipelined consumer (mma/cp/shift) waits for the producers it knows of.

mod alloc;

use crate::check::semantics::base::exec::{self, internal, Exec, Readiness};
use crate::check::semantics::base::{access, async_agent, completion, exit};
use crate::check::machine::{AgentKind, AsyncWhat, Filter, Knowledge, Layout, Machine, PeerHalf, ProxyKey, Stage, TcWhat};
use crate::model::{Instr, Scope, Space, TcOp};

/// §8.2: the pairs of one thread's asynchronous tcgen05 ops that are ordered without a wait
/// (all ops share the kernel's `cta_group`). Every other pair is unordered: `mma → cp`, `cp →
/// cp`, anything after `ld`/`st`... The cp shape is not modelled, so `shift → cp.4x256b` is
/// not recognised and reported as unordered (ARCHITECTURE.md lists this).
fn pipelined(earlier: &TcWhat, later: &TcWhat) -> bool {
    match (earlier, later) {
        // Same accumulator (the shape is not modelled).
        (TcWhat::Mma { d: first, .. }, TcWhat::Mma { d: second, .. }) => first == second,
        (TcWhat::Cp { .. } | TcWhat::Shift { .. }, TcWhat::Mma { .. }) | (TcWhat::Mma { .. }, TcWhat::Shift { .. }) => true,
        (TcWhat::Mma { .. } | TcWhat::Cp { .. } | TcWhat::Shift { .. } | TcWhat::Ld { .. } | TcWhat::St { .. } | TcWhat::Commit { .. } | TcWhat::Alloc, _) => false,
    }
}

fn tc_of(m: &Machine, id: u32) -> Option<(usize, &TcWhat, Stage)> {
    match &m.agents.get(id as usize)?.kind {
        AgentKind::Async { issuer, op } => match &op.what {
            AsyncWhat::Tc(t) => Some((issuer.thread(), t, op.stage)),
            _ => None,
        },
        AgentKind::Thread(_) => None,
    }
}

/// tcgen05 agents issued by `thread` that satisfy `pred`.
fn issued_by(m: &Machine, thread: usize, pred: impl Fn(&TcWhat, Stage) -> bool) -> Vec<u32> {
    (0..m.agents.len() as u32)
        .filter(|id| tc_of(m, *id).is_some_and(|(t, w, s)| t == thread && pred(w, s)))
        .collect()
}

fn thread_of(ex: &Exec) -> Result<usize, String> {
    ex.instr_ref().map(|r| r.thread()).ok_or_else(|| internal("tcgen05 without thread"))
}

/// Knowledge naming the accesses of `ids` (pipelined producers, run or not: a consumer
/// that knows of one not yet run waits for it).
fn promise(layout: &Layout, ids: &[u32]) -> Knowledge {
    let mut k = Knowledge::default();
    for id in ids {
        k.join(&Knowledge::new(layout.cells, *id).restrict(Filter::Tmem, layout));
    }
    k
}

/// What a new asynchronous op knows of tensor memory: the thread's tcgen05 view and the
/// pipelined producers it follows (§8.2, §8.4).
fn tmem_view(ex: &Exec, what: &TcWhat) -> Result<Knowledge, String> {
    let thread = thread_of(ex)?;
    let mut k = ex.me()?.asyncs.tc_view.clone();
    let producers = issued_by(ex.m, thread, |w, _| pipelined(w, what));
    k.join(&promise(ex.layout, &producers));
    // Ordering is transitive: shift → mma → shift orders the two shifts.
    for id in &producers {
        if let Some(a) = ex.m.agents.get(*id as usize) {
            k.join(&a.knowledge.restrict(Filter::Tmem, ex.layout));
        }
    }
    Ok(k)
}

/// What a new asynchronous op knows of ordinary memory (§8.4): the thread's knowledge, but
/// of other agents' events only those its last `fence::after_thread_sync` saw (the
/// `Filter::Memory` part of `tc_view`); its own earlier accesses count by program order.
fn memory_view(ex: &Exec) -> Result<Knowledge, String> {
    let me = ex.agent;
    let mut bound = crate::check::machine::VersionVec::default();
    for e in &ex.me()?.asyncs.tc_view.entries {
        if e.filter != Filter::Tmem {
            bound.join(&e.vv);
        }
    }
    let mut k = ex.me()?.knowledge.restrict(Filter::Memory, ex.layout);
    for e in &mut k.entries {
        for agent in (0..ex.m.agents.len() as u32).filter(|a| *a != me) {
            let seen = e.vv.get(agent).min(bound.get(agent));
            e.vv.set(agent, seen);
        }
    }
    Ok(k)
}

fn spawn(ex: &mut Exec, what: TcWhat, tmem: Knowledge) -> Result<u32, String> {
    let mut k = memory_view(ex)?;
    k.join(&tmem);
    let place = ex.place();
    let name = what.kind_name();
    let id = async_agent::spawn(ex, AsyncWhat::Tc(what), k, place)?;
    if ex.explain {
        ex.out.description = format!("issued {name} (agent #{id})");
    }
    Ok(id)
}

pub fn issue(ex: &mut Exec, op: &TcOp) -> Result<(), String> {
    let text = ex.op_text();
    let place = ex.place();
    let loc = |ex: &Exec, n: &str| ex.layout.loc(n);
    match op {
        TcOp::Alloc { dst, cols, .. } => {
            if !alloc::alloc(ex, &text, dst, *cols)? {
                return Ok(());
            }
        }
        TcOp::Dealloc { cols, cta_group } => {
            let in_flight = |own: bool| {
                (0..ex.m.agents.len() as u32).any(|id| {
                    tc_of(ex.m, id).is_some_and(|(_, w, s)| {
                        s != Stage::Completed
                            && if own {
                                ex.m.agents.get(id as usize).is_some_and(|a| a.place.cta == place.cta)
                            } else {
                                matches!(w, TcWhat::Mma { peer: Some(p), .. } if tmem_cta(ex.layout, p.d) == Some(place.cta))
                            }
                    })
                })
            };
            // The CTA's own ops, or a pair's mma (issued by the leader) writing its TMEM half.
            let busy = if in_flight(true) {
                Some("TMEM while tcgen05 operations of this CTA are still in flight")
            } else if in_flight(false) {
                Some("TMEM that the CTA pair's `tcgen05.mma`, still in flight, writes")
            } else {
                None
            };
            if *cta_group == 2 {
                alloc::pass_pair_dealloc(ex);
            }
            if !alloc::dealloc(ex, &text, *cols, busy) {
                return Ok(());
            }
        }
        TcOp::Relinquish { .. } => alloc::relinquish(ex),
        TcOp::Mma { d, a, b, .. } => {
            let what = TcWhat::Mma { d: loc(ex, d)?, a: loc(ex, a)?, b: loc(ex, b)?, peer: None };
            return spawn_in_tmem(ex, &text, what);
        }
        TcOp::MmaPair { leader, peer } => {
            let peer = PeerHalf { d: loc(ex, &peer.d)?, a: loc(ex, &peer.a)?, b: loc(ex, &peer.b)? };
            let what = TcWhat::Mma { d: loc(ex, &leader.d)?, a: loc(ex, &leader.a)?, b: loc(ex, &leader.b)?, peer: Some(peer) };
            return spawn_in_tmem(ex, &text, what);
        }
        TcOp::Cp { dst, src, .. } => {
            let what = TcWhat::Cp { dst: loc(ex, dst)?, src: loc(ex, src)? };
            return spawn_in_tmem(ex, &text, what);
        }
        TcOp::Shift { tmem, .. } => {
            let what = TcWhat::Shift { tmem: loc(ex, tmem)? };
            return spawn_in_tmem(ex, &text, what);
        }
        TcOp::Ld { dst, src } => {
            let what = TcWhat::Ld { dst: dst.clone(), src: loc(ex, src)? };
            return spawn_in_tmem(ex, &text, what);
        }
        TcOp::St { dst, src } => {
            let what = TcWhat::St { dst: loc(ex, dst)?, value: ex.eval(src) };
            return spawn_in_tmem(ex, &text, what);
        }
        TcOp::Commit { bar, multicast, .. } => {
            let thread = thread_of(ex)?;
            let after = issued_by(ex.m, thread, |w, _| w.is_pipelined_producer());
            let mut bars = vec![ex.layout.mbar(bar)?];
            for b in multicast {
                bars.push(ex.layout.mbar(b)?);
            }
            before_thread_sync(ex)?;
            let k = ex.me()?.knowledge.clone();
            let id = async_agent::spawn(ex, AsyncWhat::Tc(TcWhat::Commit { bars, after }), k, place)?;
            if ex.explain {
                ex.out.description = format!("tcgen05.commit (agent #{id}) arrives once this thread's mma/cp/shift complete");
            }
        }
        TcOp::WaitLd | TcOp::WaitSt => {
            let thread = thread_of(ex)?;
            let ld = matches!(op, TcOp::WaitLd);
            let ids = issued_by(ex.m, thread, |w, _| if ld { matches!(w, TcWhat::Ld { .. }) } else { matches!(w, TcWhat::St { .. }) });
            for id in ids {
                let k = async_agent::own_events(ex.layout, ex.m, id, false).restrict(Filter::Tmem, ex.layout);
                let a = &mut ex.me_mut()?.asyncs;
                a.tc_view.join(&k);
                a.tc_done.join(&k);
            }
            if ex.explain {
                ex.out.description = format!("this thread's tcgen05.{} complete", if ld { "ld" } else { "st" });
            }
        }
        TcOp::FenceBeforeThreadSync => before_thread_sync(ex)?,
        TcOp::FenceAfterThreadSync => {
            let mut k = ex.me()?.knowledge.restrict(Filter::Tmem, ex.layout);
            for msg in ex.me()?.pending_acquire.iter() {
                k.join(&msg.knowledge.restrict(Filter::Tmem, ex.layout));
            }
            // Ordinary memory too: the mma's smem operand reads follow the thread's prior
            // synchronization only through this fence (§8.4, §10 #30).
            k.join(&ex.me()?.knowledge.restrict(Filter::Memory, ex.layout));
            forget_own_in_flight(ex, &mut k)?;
            let me = ex.agent;
            let a = ex.me_mut()?;
            a.asyncs.tc_view.join(&k);
            a.knowledge.bump(me);
            if ex.explain {
                ex.out.description = "later tcgen05 ops are ordered after prior thread synchronization".into();
            }
        }
    }
    ex.next()
}

/// §8.4: `fence::after_thread_sync` orders later ops after *prior synchronization*. This
/// thread's own ops still in flight cannot have been observed by any (completion comes
/// first); what its own `before_thread_sync` (or the one `commit` implies) put in its
/// knowledge is no synchronization. So a fence placed before the wait orders nothing.
fn forget_own_in_flight(ex: &Exec, k: &mut Knowledge) -> Result<(), String> {
    let thread = thread_of(ex)?;
    for id in issued_by(ex.m, thread, |_, stage| stage != Stage::Completed) {
        k.entries.iter_mut().for_each(|e| e.vv.set(id, 0));
    }
    Ok(())
}

/// Issue an asynchronous op unless the TMEM it touches is not allocated (§8.5).
fn spawn_in_tmem(ex: &mut Exec, text: &str, what: TcWhat) -> Result<(), String> {
    let mut tmem: Vec<usize> = reads_of(ex.layout, &what).into_iter().map(|(l, _)| l).collect();
    tmem.extend(writes_of(&what));
    tmem.retain(|l| tmem_cta(ex.layout, *l).is_some());
    let view = tmem_view(ex, &what)?;
    if alloc::unallocated_access(ex, text, &tmem, &writes_of(&what), &view) {
        return Ok(());
    }
    spawn(ex, what, view)?;
    ex.next()
}

fn writes_of(t: &TcWhat) -> Vec<usize> {
    match t {
        TcWhat::Mma { d, peer, .. } => std::iter::once(*d).chain(peer.map(|p| p.d)).collect(),
        TcWhat::Cp { dst, .. } | TcWhat::St { dst, .. } => vec![*dst],
        TcWhat::Shift { tmem } => vec![*tmem],
        TcWhat::Ld { .. } | TcWhat::Commit { .. } | TcWhat::Alloc => Vec::new(),
    }
}

/// The CTA whose tensor memory `loc` is, if it is tensor memory.
fn tmem_cta(layout: &Layout, loc: usize) -> Option<usize> {
    match layout.locs.get(loc)?.space {
        Space::Tmem(cta) => Some(cta),
        Space::Shared(_) | Space::Global => None,
    }
}

/// §8.4: prior async tcgen05 ops (completed ld/st, in-flight pipelined producers) become
/// ordered before this thread's next synchronization, whatever its `.sem`.
fn before_thread_sync(ex: &mut Exec) -> Result<(), String> {
    let thread = thread_of(ex)?;
    let producers = issued_by(ex.m, thread, |w, _| w.is_pipelined_producer());
    let mut k = std::mem::take(&mut ex.me_mut()?.asyncs.tc_done);
    k.join(&promise(ex.layout, &producers));
    ex.me_mut()?.knowledge.join(&k);
    let published = ex.me()?.knowledge.restrict(Filter::Tmem, ex.layout);
    let via = exec::BEFORE_THREAD_SYNC.to_string();
    let msg = ex.release(Scope::Sys, via.clone(), published)?;
    let me = ex.me_mut()?;
    me.release_fences.retain(|m| *m.via != *via);
    me.release_fences.push(msg);
    if ex.explain {
        ex.out.description = "prior tcgen05 ops are ordered before the next thread synchronization".into();
    }
    Ok(())
}

/// Where a commit's arrive-on on barrier `bar` is performed when not in the issuer's CTA:
/// in pragmatic mode, the barrier's CTA, where it is waited for (reference §12 #1: CUTLASS's
/// 2-SM pipelines and DeepGEMM wait on a peer's `multicast::cluster` commit with
/// `.acquire.cta`, as for a TMA complete-tx). Strict mode: the issuer's.
fn arrive_place(ex: &Exec, bar: usize) -> Option<crate::check::machine::Place> {
    let me = ex.place();
    let cta = ex.layout.mbar_locs.get(bar).and_then(|l| match ex.layout.locs.get(*l)?.space {
        Space::Shared(c) | Space::Tmem(c) => Some(c),
        Space::Global => None,
    })?;
    (cta != me.cta && exec::pragmatic(ex)).then(|| crate::check::machine::Place {
        cta,
        cluster: ex.layout.cta_cluster.get(cta).copied().unwrap_or(me.cluster),
        gpu: me.gpu,
    })
}

pub use alloc::pair_dealloc_readiness;

/// Blocking `alloc`, and the true register dependency on a pending `tcgen05.ld` (§8.3).
pub fn thread_readiness(layout: &Layout, m: &Machine, agent: u32, instr: &Instr) -> Option<Readiness> {
    let a = m.agents.get(agent as usize)?;
    let AgentKind::Thread(thread) = a.kind else { return None };
    if let Instr::Tc(TcOp::Alloc { cols, .. }) = instr {
        if let Some(blocked) = alloc::alloc_readiness(m, a.place.cta, *cols) {
            return Some(blocked);
        }
    }
    if let Instr::Tc(TcOp::WaitLd | TcOp::WaitSt) = instr {
        let ld = matches!(instr, Instr::Tc(TcOp::WaitLd));
        let pending = issued_by(m, thread, |w, s| s != Stage::Completed && if ld { matches!(w, TcWhat::Ld { .. }) } else { matches!(w, TcWhat::St { .. }) });
        if let Some(p) = pending.first() {
            return Some(Readiness::Blocked(format!("waits for tcgen05 agent #{p}")));
        }
    }
    // The registers a `tcgen05.ld` still in flight delivers; the instruction's facts only
    // when there is one (most steps of most scenarios have none).
    let mut loading = (0..m.agents.len() as u32).filter_map(|id| match tc_of(m, id)? {
        (t, TcWhat::Ld { dst, .. }, stage) if t == thread && stage != Stage::Completed => Some((id, dst.as_str())),
        _ => None,
    });
    let first = loading.next()?;
    let reads = instr.facts().reads;
    let _ = layout;
    std::iter::once(first)
        .chain(loading)
        .find(|(_, dst)| reads.contains(dst))
        .map(|(p, _)| Readiness::Blocked(format!("waits for `tcgen05.ld` agent #{p} to deliver its register")))
}

fn key(layout: &Layout, loc: usize) -> ProxyKey {
    match layout.locs.get(loc).map(|l| (l.space, l.key)) {
        Some((Space::Tmem(_), k)) => k,
        _ => ProxyKey::Async,
    }
}

fn reads_of(layout: &Layout, t: &TcWhat) -> Vec<(usize, ProxyKey)> {
    let r = |l: usize| (l, key(layout, l));
    match t {
        TcWhat::Mma { d, a, b, peer: None } => vec![r(*a), r(*b), r(*d)],
        TcWhat::Mma { d, a, b, peer: Some(p) } => vec![r(*a), r(*b), r(*d), r(p.a), r(p.b), r(p.d)],
        TcWhat::Cp { src, .. } => vec![r(*src)],
        TcWhat::Shift { tmem } => vec![r(*tmem)],
        TcWhat::Ld { src, .. } => vec![r(*src)],
        TcWhat::St { .. } | TcWhat::Commit { .. } | TcWhat::Alloc => Vec::new(),
    }
}

/// A pipelined consumer waits for the producers it knows of (§8.2).
fn waits_for(m: &Machine, agent: u32, t: &TcWhat) -> Option<u32> {
    if !matches!(t, TcWhat::Mma { .. } | TcWhat::Cp { .. } | TcWhat::Shift { .. }) {
        return None;
    }
    let me = m.agents.get(agent as usize)?;
    (0..m.agents.len() as u32).find(|id| {
        *id != agent
            && tc_of(m, *id).is_some_and(|(_, w, s)| w.is_pipelined_producer() && s == Stage::Issued)
            && me.knowledge.entries.iter().any(|e| e.vv.get(*id) > 0)
    })
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, t: &TcWhat, stage: Stage, explain: bool) -> Readiness {
    match (t, stage) {
        (TcWhat::Commit { after, .. }, _) => {
            let waiting: Vec<String> = after.iter().filter(|id| !exec::all_reached(m, &[**id], Stage::Completed)).map(|id| format!("#{id}")).collect();
            if waiting.is_empty() {
                async_agent::one("arrive")
            } else {
                Readiness::Blocked(format!("waits for tcgen05 {}", waiting.join(", ")))
            }
        }
        (_, Stage::Issued) => match waits_for(m, agent, t) {
            Some(p) => Readiness::Blocked(format!("pipelined after tcgen05 agent #{p}")),
            None => async_agent::enabled_reads(layout, m, agent, &reads_of(layout, t), explain),
        },
        _ => async_agent::one("complete"),
    }
}

pub fn step(ex: &mut Exec, t: &TcWhat, stage: Stage, choice: u32) -> Result<(), String> {
    let tmem_write = |ex: &mut Exec, loc: usize, v: i64| {
        access::write(ex, &async_agent::access_to(ex.layout, loc, None, None), v, Vec::new())
    };
    if let TcWhat::Commit { bars, after } = t {
        // The arrive publishes the completed ops and what they were ordered after (they
        // follow the issuer's prior instructions for ordinary memory, §8.4): cumulativity
        // through the ops, which §12 #16 leaves open. Only pragmatic mode adds the
        // generic↔async proxy fence the spec does not state for tcgen05 completion.
        let fence = exec::pragmatic(ex);
        let mut k = Knowledge::default();
        for id in after {
            k.join(&async_agent::own_events(ex.layout, ex.m, *id, fence));
            if let Some(a) = ex.m.agents.get(*id as usize) {
                k.join(&a.knowledge.clone());
            }
        }
        let who = ex.text(|| ex.name_of(ex.agent));
        for bar in bars {
            let mut msg = async_agent::message(ex, Scope::Cluster, ex.text(|| format!("{who} arrive-on")), k.clone())?;
            msg.performed_in = arrive_place(ex, *bar);
            if !completion::signal(ex, *bar, 1, 0, Some(msg), &who)? {
                return Ok(());
            }
        }
        return async_agent::set_stage(ex, Stage::Completed);
    }
    if stage == Stage::Accessed {
        if let TcWhat::Ld { dst, .. } = t {
            let v = ex.reg("value");
            let issuer = ex.instr_ref().map(|r| r.thread()).ok_or_else(|| internal("ld issuer"))?;
            // The issuer's register, not this agent's: `set_reg` writes the executing one.
            let name = ex.layout.register_name(dst);
            if let Some(a) = ex.m.agents.get_mut(issuer) {
                a.regs.insert(name, v);
            }
        }
        if ex.explain {
            ex.out.description = "complete".into();
        }
        return async_agent::set_stage(ex, Stage::Completed);
    }
    let reads = reads_of(ex.layout, t);
    // A `cta_group::2` mma reads operands, and a pair's mma writes the accumulator half, in
    // the peer CTA (§2.2.2, §8.5: the peer must not have exited).
    for &(loc, _) in &reads {
        let name = ex.layout.locs.get(loc).map_or("?", |l| l.name.as_str());
        let exited = match t {
            TcWhat::Mma { d, peer: Some(p), .. } if loc == *d || loc == p.d => {
                exit::pair_access_into_exited_cta(ex, loc, true, || format!("updates `{name}`"))
            }
            TcWhat::Mma { peer: Some(_), .. } => exit::pair_access_into_exited_cta(ex, loc, false, || format!("reads `{name}`")),
            _ => exit::into_exited_cta(ex, loc, false, || format!("reads `{name}`")),
        };
        if exited {
            return Ok(());
        }
    }
    let v = async_agent::perform_reads(ex, &reads, choice)?;
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    match t {
        TcWhat::Mma { d, peer: None, .. } => {
            let out = at(2).wrapping_add(at(0).wrapping_mul(at(1)));
            tmem_write(ex, *d, out)?;
            if ex.explain {
                ex.out.description = format!("mma: accumulator = {out}");
            }
        }
        // Each CTA holds half the rows of A and D and half the columns of B: both rows of D
        // take their own A half times all of B (both B halves).
        TcWhat::Mma { d, peer: Some(p), .. } => {
            let b_all = at(1).wrapping_add(at(4));
            let out = at(2).wrapping_add(at(0).wrapping_mul(b_all));
            let out_peer = at(5).wrapping_add(at(3).wrapping_mul(b_all));
            tmem_write(ex, *d, out)?;
            tmem_write(ex, p.d, out_peer)?;
            ex.out.description = format!("pair mma: accumulator halves = {out} (leader), {out_peer} (peer)");
        }
        TcWhat::Cp { dst, .. } => {
            tmem_write(ex, *dst, at(0))?;
            if ex.explain {
                ex.out.description = format!("cp: copied {} into TMEM", at(0));
            }
        }
        TcWhat::Shift { tmem } => {
            tmem_write(ex, *tmem, at(0))?;
            if ex.explain {
                ex.out.description = "shift".into();
            }
        }
        TcWhat::Ld { .. } => {
            ex.set_reg("value", at(0))?;
            if ex.explain {
                ex.out.description = format!("ld: read {} from TMEM", at(0));
            }
        }
        TcWhat::St { dst, value } => {
            tmem_write(ex, *dst, *value)?;
            if ex.explain {
                ex.out.description = format!("st: wrote {value} to TMEM");
            }
        }
        TcWhat::Commit { .. } | TcWhat::Alloc => {}
    }
    async_agent::set_stage(ex, Stage::Accessed)
}
