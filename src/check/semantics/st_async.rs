//! `st.async` / `red.async` into a peer CTA's shared memory, completing with a complete-tx
//! that is a release at cluster scope (reference §6.5). The release publishes the op's
//! own write only.
//!
//! §12 #8/#9: the proxy of the write is unnamed (generic in both modes; pragmatic mode adds
//! the completion proxy fence), and whether `st.async` may target its own CTA is unclear
//! (strict: undefined, pragmatic: accepted). `red.async` must target another CTA.

use super::base::exec::{self, internal, Exec, Readiness};
use super::base::{access, async_agent, completion, exit};
use crate::check::machine::{AsyncOp, AsyncWhat, Stage};
use crate::model::{Instr, Scope, Space};

pub fn issue(ex: &mut Exec, instr: &Instr) -> Result<(), String> {
    let Instr::StAsync { addr, src, mbar, red } = instr else { return Err(internal("st.async issue")) };
    let text = crate::check::text::instr(instr);
    let loc = ex.layout.loc(addr)?;
    let bar = ex.layout.mbar(mbar)?;
    let cta_of = |l: usize| match ex.layout.locs.get(l).map(|i| i.space) {
        Some(Space::Shared(c)) => Some(c),
        _ => None,
    };
    let bar_loc = *ex.layout.mbar_locs.get(bar).ok_or_else(|| internal("mbar loc"))?;
    let (target, bar_cta) = (cta_of(loc), cta_of(bar_loc));
    let place = ex.place();
    let cluster_size = ex.layout.cta_cluster.iter().filter(|c| **c == place.cluster).count();
    let problem = if target.is_none() || target != bar_cta {
        Some("the data and the mbarrier must be in the same CTA (§9.7.9.12)")
    } else if cluster_size < 2 {
        Some("`st.async`/`red.async` need a cluster of more than one CTA (§9.7.9.12)")
    } else if target == Some(place.cta) && (red.is_some() || !exec::pragmatic(ex)) {
        Some("the target must be another CTA of the cluster (§9.7.13.7; for `st.async` the wording is unclear, reference §12 #9, strict mode requires it)")
    } else {
        None
    };
    if let Some(why) = problem {
        ex.undefined(format!("`{text}` breaks the target rules"), why.into());
        return Ok(());
    }
    let value = ex.eval(src);
    let bytes = ex.layout.locs.get(loc).map_or(4, |l| l.size);
    let k = ex.me()?.knowledge.clone();
    let id = async_agent::spawn(ex, AsyncWhat::StAsync { addr: loc, value, mbar: bar, bytes, red: *red }, k, place)?;
    if ex.explain {
        ex.out.description = format!("issued {} (agent #{id})", if red.is_some() { "red.async" } else { "st.async" });
    }
    ex.next()
}

pub fn readiness(op: &AsyncOp) -> Readiness {
    match (&op.what, op.stage) {
        (AsyncWhat::StAsync { .. }, Stage::Issued) => async_agent::one("write"),
        (AsyncWhat::StAsync { bytes, .. }, _) => async_agent::one(&format!("complete_tx {bytes} bytes")),
        _ => Readiness::Done,
    }
}

pub fn step(ex: &mut Exec, op: &AsyncOp) -> Result<(), String> {
    let AsyncWhat::StAsync { addr, value, mbar, bytes, red } = &op.what else { return Err(internal("st.async step")) };
    if op.stage == Stage::Issued {
        let layout = ex.layout;
        let what = || format!("writes `{}`", layout.locs.get(*addr).map_or("?", |l| l.name.as_str()));
        if exit::into_exited_cta(ex, *addr, true, what) {
            return Ok(());
        }
        let strong = red.map(|_| ex.layout.clamp(Scope::Cluster, *addr));
        let acc = async_agent::access_to(ex.layout, *addr, None, strong);
        let value = match red {
            Some(r) => {
                let cell = access::cell_of(ex.layout, *addr);
                let last = ex.m.cells.get(cell).map_or(0, |c| c.writes.len().saturating_sub(1));
                let old = access::read(ex, &acc, last)?.value;
                r.apply(old, &[*value])
            }
            None => *value,
        };
        access::write(ex, &acc, value, Vec::new())?;
        let name = ex.layout.locs.get(*addr).map_or("?", |l| l.name.as_str());
        if ex.explain {
            ex.out.description = format!("wrote {name} = {value}");
        }
        return async_agent::set_stage(ex, Stage::Accessed);
    }
    let fence = exec::pragmatic(ex);
    let k = async_agent::own_events(ex.layout, ex.m, ex.agent, fence);
    let who = ex.text(|| ex.name_of(ex.agent));
    let msg = async_agent::message(ex, Scope::Cluster, ex.text(|| format!("complete_tx of {who} (.release.cluster)")), k)?;
    if completion::signal(ex, *mbar, 0, i64::from(*bytes), Some(msg), &who)? {
        async_agent::set_stage(ex, Stage::Completed)?;
    }
    Ok(())
}
