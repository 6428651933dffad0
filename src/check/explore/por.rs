//! Partial-order reduction by ample sets.
//!
//! Threads are grouped into components that share nothing (no location, mbarrier, CTA
//! barrier, cluster barrier or `fence.sc`). Steps of different components commute, so the
//! explorer runs the lowest component with an enabled agent first: k independent pairs
//! cost the sum, not the product, of their state spaces. Steps that touch only the
//! agent's own state (register ops, branches, non-SC fences) form singleton ample sets.

use std::collections::HashMap;

use crate::check::machine::{AgentKind, Layout, Machine};
use crate::check::semantics::current_instr;
use crate::model::{Fence, FenceSem, Instr, MbarOp, TcOp, WgmmaOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Resource {
    Cell(usize),
    Mbar(usize),
    CtaBarrier(usize),
    ClusterBarrier(usize),
    FenceSc,
    /// A CTA's tensor memory allocator and in-flight tcgen05 ops (alloc blocks, dealloc checks).
    Tmem(usize),
}

fn names(instr: &Instr, out: &mut Vec<String>, mbars: &mut Vec<String>) {
    let mut mb = |m: &MbarOp| mbars.push(m.bar.clone());
    match instr {
        Instr::Ld { addr, .. } | Instr::St { addr, .. } | Instr::Atom { addr, .. } => out.push(addr.clone()),
        Instr::Mbar(op) => mb(op),
        Instr::CpAsync { dst, src, .. } => out.extend([dst.clone(), src.clone()]),
        Instr::CpAsyncMbarArrive { bar, .. } => mbars.push(bar.clone()),
        Instr::Bulk { dst, src, mbar, multicast, .. } => {
            out.extend([dst.clone(), src.clone()]);
            mbars.extend(mbar.iter().cloned());
            for (d, b) in multicast {
                out.push(d.clone());
                mbars.push(b.clone());
            }
        }
        Instr::StAsync { addr, mbar, .. } => {
            out.push(addr.clone());
            mbars.push(mbar.clone());
        }
        Instr::Wgmma(WgmmaOp::MmaAsync { a, b, .. }) => out.extend([a.clone(), b.clone()]),
        Instr::Tc(t) => match t {
            TcOp::Alloc { dst, .. } => out.push(dst.clone()),
            TcOp::Mma { d, a, b, .. } => out.extend([d.clone(), a.clone(), b.clone()]),
            TcOp::Cp { dst, src, .. } | TcOp::Ld { dst, src } => out.extend([dst.clone(), src.clone()]),
            TcOp::Shift { tmem, .. } => out.push(tmem.clone()),
            TcOp::St { dst, .. } => out.push(dst.clone()),
            TcOp::Commit { bar, multicast, .. } => {
                mbars.push(bar.clone());
                mbars.extend(multicast.iter().cloned());
            }
            _ => {}
        },
        Instr::Wait { instr, .. } => names(instr, out, mbars),
        _ => {}
    }
}

fn resources(layout: &Layout, thread: usize) -> Vec<Resource> {
    let Some(t) = layout.threads.get(thread) else { return Vec::new() };
    let mut out = Vec::new();
    for instr in &t.program {
        let (mut locs, mut mbars) = (Vec::new(), Vec::new());
        names(instr, &mut locs, &mut mbars);
        out.extend(locs.iter().filter_map(|l| layout.loc(l).ok()).filter_map(|l| layout.locs.get(l)).map(|l| Resource::Cell(l.cell)));
        out.extend(mbars.iter().filter_map(|b| layout.mbar(b).ok()).map(Resource::Mbar));
        match instr {
            Instr::Bar { .. } => out.push(Resource::CtaBarrier(t.place.cta)),
            Instr::ClusterArrive { .. } | Instr::ClusterWait => out.push(Resource::ClusterBarrier(t.place.cluster)),
            Instr::Fence(Fence::Thread { sem: Some(FenceSem::Sc), .. }) => out.push(Resource::FenceSc),
            Instr::Tc(_) => out.push(Resource::Tmem(t.place.cta)),
            _ => {}
        }
    }
    // Barriers count every thread of their CTA / cluster (exits included).
    let mut implied = Vec::new();
    for (i, other) in layout.threads.iter().enumerate() {
        if i == thread {
            continue;
        }
        if other.place.cta == t.place.cta {
            implied.push(Resource::CtaBarrier(t.place.cta));
        }
        if other.place.cluster == t.place.cluster {
            implied.push(Resource::ClusterBarrier(t.place.cluster));
        }
    }
    out.extend(implied);
    out
}

/// Component id per thread (threads sharing a resource, transitively, share an id).
pub fn components(layout: &Layout) -> Vec<usize> {
    let n = layout.threads.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p.get(r).is_some_and(|&q| q != r) {
            r = p.get(r).copied().unwrap_or(r);
        }
        r
    }
    let mut owner: HashMap<Resource, usize> = HashMap::new();
    let all: Vec<Vec<Resource>> = (0..n).map(|t| resources(layout, t)).collect();
    // A CTA/cluster barrier resource only links threads when some thread uses it.
    let used: Vec<Resource> = layout
        .threads
        .iter()
        .flat_map(|t| t.program.iter().map(move |i| (t, i)))
        .filter_map(|(t, i)| match i {
            Instr::Bar { .. } => Some(Resource::CtaBarrier(t.place.cta)),
            Instr::ClusterArrive { .. } | Instr::ClusterWait => Some(Resource::ClusterBarrier(t.place.cluster)),
            _ => None,
        })
        .collect();
    for (t, rs) in all.iter().enumerate() {
        for r in rs {
            if matches!(r, Resource::CtaBarrier(_) | Resource::ClusterBarrier(_)) && !used.contains(r) {
                continue;
            }
            match owner.get(r) {
                Some(&o) => {
                    let (a, b) = (find(&mut parent, o), find(&mut parent, t));
                    if let Some(slot) = parent.get_mut(a.max(b)) {
                        *slot = a.min(b);
                    }
                }
                None => {
                    owner.insert(*r, t);
                }
            }
        }
    }
    (0..n).map(|t| find(&mut parent, t)).collect()
}

/// Steps that read and write only the agent's own state.
pub fn is_local(layout: &Layout, m: &Machine, agent: u32) -> bool {
    match current_instr(layout, m, agent) {
        Some(Instr::Mov { .. } | Instr::Add { .. } | Instr::Branch { .. } | Instr::Label(_)) => true,
        Some(Instr::Fence(Fence::Thread { sem, .. })) => *sem != Some(FenceSem::Sc),
        Some(Instr::Fence(_)) => true,
        _ => false,
    }
}

pub fn component_of(m: &Machine, comps: &[usize], agent: u32) -> usize {
    match m.agents.get(agent as usize).map(|a| &a.kind) {
        Some(AgentKind::Thread(t)) => comps.get(*t).copied().unwrap_or(0),
        Some(AgentKind::Async { issuer, .. }) => comps.get(issuer.thread).copied().unwrap_or(0),
        None => 0,
    }
}
