//! TMA: `cp{.reduce}.async.bulk` with mbarrier complete-tx or bulk async-groups
//! (reference §6.2, §6.3). Data accesses are weak and in the async proxy; element
//! reductions are `.relaxed.gpu`.

use super::base::exec::{self, internal, Exec, Readiness};
use super::base::{access, async_agent, completion, exit};
use crate::check::machine::{AsyncOp, AsyncWhat, Layout, Machine, Place, ProxyKey, Stage};
use crate::model::{AtomOp, BulkDir, Instr, Scope, Space};

fn cta_of(layout: &Layout, loc: usize) -> Option<usize> {
    match layout.locs.get(loc)?.space {
        Space::Shared(c) | Space::Tmem(c) => Some(c),
        Space::Global => None,
    }
}

/// Where the agent delivering into `dst` and signalling `mbar` performs its signal: the
/// issuer's CTA (strict), or the CTA that waits (pragmatic; reference §12 #1, CUTLASS waits
/// with `.acquire.cta`): the destination CTA, or for a CTA pair's copy (`pair`,
/// `.cta_group::2`) the barrier's, which may be the destination's pair peer.
fn signal_place(ex: &Exec, dst: usize, mbar: usize, pair: bool) -> Place {
    let me = ex.place();
    let waiter = if pair { ex.layout.mbar_locs.get(mbar).copied() } else { Some(dst) };
    match waiter.and_then(|l| cta_of(ex.layout, l)) {
        Some(cta) if cta != me.cta && exec::pragmatic(ex) => Place {
            cta,
            cluster: ex.layout.cta_cluster.get(cta).copied().unwrap_or(me.cluster),
            gpu: me.gpu,
        },
        _ => me,
    }
}

/// A thread issues `cp.async.bulk`: one agent per destination (multicast delivers to each
/// destination CTA with its own complete-tx).
pub fn issue(ex: &mut Exec, instr: &Instr) -> Result<(), String> {
    let Instr::Bulk { dir, dst, src, bytes, mbar, multicast, reduce, .. } = instr else {
        return Err(internal("bulk issue"));
    };
    let src = ex.layout.loc(src)?;
    match mbar {
        Some(bar) => {
            let mut targets = vec![(dst.clone(), bar.clone())];
            targets.extend(multicast.iter().cloned());
            let mut ids = Vec::new();
            for (d, b) in targets {
                let dst = ex.layout.loc(&d)?;
                let mbar = ex.layout.mbar(&b)?;
                let k = ex.me()?.knowledge.clone();
                let place = signal_place(ex, dst, mbar, *dir == BulkDir::GlobalToSharedClusterPair);
                ids.push(async_agent::spawn(ex, AsyncWhat::Bulk { dst, src, bytes: *bytes, mbar, reduce: *reduce }, k, place)?);
            }
            if ex.explain {
                ex.out.description = format!("issued {} bulk cop{} (agent{} {})", ids.len(), if ids.len() == 1 { "y" } else { "ies" }, if ids.len() == 1 { "" } else { "s" }, list(&ids));
            }
        }
        None => {
            let dst = ex.layout.loc(dst)?;
            let k = ex.me()?.knowledge.clone();
            let place = ex.place();
            let id = async_agent::spawn(ex, AsyncWhat::BulkGroup { dst, src, reduce: *reduce }, k, place)?;
            ex.me_mut()?.asyncs.bulk_open.push(id);
            if ex.explain {
                ex.out.description = format!("issued bulk copy (agent {id}) into the open bulk async-group");
            }
        }
    }
    ex.next()
}

fn list(ids: &[u32]) -> String {
    ids.iter().map(|i| format!("#{i}")).collect::<Vec<_>>().join(", ")
}

pub fn commit(ex: &mut Exec) -> Result<(), String> {
    let a = &mut ex.me_mut()?.asyncs;
    let group = std::mem::take(&mut a.bulk_open);
    let n = group.len();
    a.bulk_groups.push(group);
    if ex.explain {
        ex.out.description = format!("committed a bulk async-group of {n} cop{}", if n == 1 { "y" } else { "ies" });
    }
    ex.next()
}

pub fn wait_readiness(m: &Machine, agent: u32, n: u32, read: bool) -> Readiness {
    let Some(a) = m.agents.get(agent as usize) else { return Readiness::Done };
    let groups = &a.asyncs.bulk_groups;
    let need = if read { Stage::Accessed } else { Stage::Completed };
    let waiting: Vec<u32> = groups
        .iter()
        .take(async_agent::covered(groups, n))
        .flatten()
        .copied()
        .filter(|id| !exec::all_reached(m, &[*id], need))
        .collect();
    if waiting.is_empty() {
        return async_agent::one("wait_group returns");
    }
    Readiness::Blocked(format!(
        "waits until bulk cop{} {} {}",
        if waiting.len() == 1 { "y" } else { "ies" },
        list(&waiting),
        if read { "finished reading their source" } else { "completed" }
    ))
}

/// `cp.async.bulk.wait_group{.read} n`: the covered copies' accesses (their source reads
/// for `.read`) become ordered before the thread's later accesses, across proxies (§3.3).
pub fn wait(ex: &mut Exec, n: u32, read: bool) -> Result<(), String> {
    let groups = ex.me()?.asyncs.bulk_groups.clone();
    let upto = async_agent::covered(&groups, n);
    for id in groups.iter().take(upto).flatten() {
        let k = async_agent::own_events(ex.layout, ex.m, *id, true);
        ex.me_mut()?.knowledge.join(&k);
    }
    if !read {
        ex.me_mut()?.asyncs.bulk_groups.drain(..upto);
    }
    if ex.explain {
        ex.out.description = format!(
            "{} of {upto} bulk async-group{} observed",
            if read { "source reads" } else { "completion" },
            if upto == 1 { "" } else { "s" }
        );
    }
    ex.next()
}

pub fn readiness(layout: &Layout, m: &Machine, agent: u32, op: &AsyncOp, explain: bool) -> Readiness {
    match (&op.what, op.stage) {
        (AsyncWhat::Bulk { src, .. } | AsyncWhat::BulkGroup { src, .. }, Stage::Issued) => {
            async_agent::enabled_reads(layout, m, agent, &[(*src, ProxyKey::Async)], explain)
        }
        (AsyncWhat::Bulk { bytes, .. }, _) => async_agent::one(&format!("complete_tx {bytes} bytes")),
        (AsyncWhat::BulkGroup { dst, .. }, _) => {
            async_agent::one(&format!("write {}", layout.locs.get(*dst).map_or("?", |l| l.name.as_str())))
        }
        _ => Readiness::Done,
    }
}

/// Write `value` into `dst` through the async proxy; a reduction combines it with the
/// coherence-latest value as a `.relaxed.gpu` read-modify-write.
fn deliver(ex: &mut Exec, dst: usize, value: i64, reduce: Option<AtomOp>) -> Result<i64, String> {
    let layout = ex.layout;
    let what = || format!("writes `{}`", layout.locs.get(dst).map_or("?", |l| l.name.as_str()));
    if exit::into_exited_cta(ex, dst, true, what) {
        return Ok(value);
    }
    let strong = reduce.map(|_| ex.layout.clamp(Scope::Gpu, dst));
    let acc = async_agent::access_to(ex.layout, dst, Some(ProxyKey::Async), strong);
    let value = match reduce {
        Some(op) => {
            let cell = access::cell_of(ex.layout, dst);
            let last = ex.m.cells.get(cell).map_or(0, |c| c.writes.len().saturating_sub(1));
            let old = access::read(ex, &acc, last)?.value;
            op.apply(old, &[value])
        }
        None => value,
    };
    access::write(ex, &acc, value, Vec::new())?;
    Ok(value)
}

pub fn step(ex: &mut Exec, op: &AsyncOp, choice: u32) -> Result<(), String> {
    let name = |ex: &Exec, loc: usize| ex.layout.locs.get(loc).map_or("?".to_string(), |l| l.name.clone());
    match (&op.what, op.stage) {
        (AsyncWhat::Bulk { dst, src, reduce, .. }, Stage::Issued) => {
            let v = async_agent::perform_reads(ex, &[(*src, ProxyKey::Async)], choice)?;
            let value = deliver(ex, *dst, v.first().copied().unwrap_or(0), *reduce)?;
            if ex.m.undefined {
                return Ok(());
            }
            if ex.explain {
                ex.out.description = format!("copied {} → {} = {value} (async proxy)", name(ex, *src), name(ex, *dst));
            }
            async_agent::set_stage(ex, Stage::Accessed)
        }
        (AsyncWhat::Bulk { bytes, mbar, .. }, _) => {
            let k = async_agent::own_events(ex.layout, ex.m, ex.agent, true);
            let who = ex.text(|| ex.name_of(ex.agent));
            let msg = async_agent::message(ex, Scope::Cluster, ex.text(|| format!("complete_tx of {who}")), k)?;
            if completion::signal(ex, *mbar, 0, i64::from(*bytes), Some(msg), &who)? {
                async_agent::set_stage(ex, Stage::Completed)?;
            }
            Ok(())
        }
        (AsyncWhat::BulkGroup { src, .. }, Stage::Issued) => {
            let v = async_agent::perform_reads(ex, &[(*src, ProxyKey::Async)], choice)?;
            let value = v.first().copied().unwrap_or(0);
            ex.set_reg("value", value)?;
            if ex.explain {
                ex.out.description = format!("read source {} = {value} (async proxy)", name(ex, *src));
            }
            async_agent::set_stage(ex, Stage::Accessed)
        }
        (AsyncWhat::BulkGroup { dst, reduce, .. }, _) => {
            let v = ex.reg("value");
            let value = deliver(ex, *dst, v, *reduce)?;
            if ex.m.undefined {
                return Ok(());
            }
            if ex.explain {
                ex.out.description = format!("wrote {} = {value} (async proxy); copy complete", name(ex, *dst));
            }
            async_agent::set_stage(ex, Stage::Completed)
        }
        _ => Err(internal("tma step")),
    }
}
