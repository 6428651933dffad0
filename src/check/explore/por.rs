//! Partial-order reduction by ample sets.
//!
//! Threads are grouped into components that share nothing (no location, mbarrier, CTA
//! barrier, cluster barrier, `fence.sc`, TMEM allocator, or CTA lifetime: a CTA exits
//! with its last thread, which a peer touching its memory can observe). Steps of different components commute, so the
//! explorer runs the lowest component with an enabled agent first: k independent pairs
//! cost the sum, not the product, of their state spaces. Steps that touch only the
//! agent's own state (register ops, branches, non-SC fences) form singleton ample sets.
//! What a step touches comes from [`Instr::facts`], so no instruction kind can be missed.

use std::collections::HashMap;

use crate::check::machine::{AgentKind, Layout, Machine, Place};
use crate::check::semantics::current_step_facts;
use crate::model::{Footprint, Instr, Object, Shared, Space, TcOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Resource {
    Cell(usize),
    Mbar(usize),
    CtaBarrier(usize),
    ClusterBarrier(usize),
    FenceSc,
    /// A CTA's tensor memory allocator and in-flight tcgen05 ops (alloc blocks, dealloc checks).
    Tmem(usize),
    /// A CTA's lifetime: it ends when its last thread does, and a peer's access to its
    /// shared memory, mbarriers or TMEM afterwards is undefined behaviour.
    CtaLife(usize),
}

/// What `instr` shares with other threads, run by a thread placed at `place`: its named
/// objects and the shared resources its facts list. Nothing is left out by kind: an
/// instruction's facts are exhaustive, and only a [`Footprint::Local`] step shares nothing.
fn footprint(layout: &Layout, place: Place, instr: &Instr, out: &mut Vec<Resource>) {
    let facts = instr.facts();
    for named in &facts.names {
        let (resource, loc) = match named.object {
            Object::Location | Object::Tmem => {
                let loc = layout.loc(named.name).ok().and_then(|l| layout.locs.get(l));
                (loc.map(|l| Resource::Cell(l.cell)), loc)
            }
            Object::Mbarrier => {
                let bar = layout.mbar(named.name).ok();
                (bar.map(Resource::Mbar), bar.and_then(|b| layout.mbar_locs.get(b)).and_then(|l| layout.locs.get(*l)))
            }
        };
        out.extend(resource);
        let owner = loc.and_then(|l| match l.space {
            Space::Shared(cta) | Space::Tmem(cta) => Some(cta),
            Space::Global => None,
        });
        out.extend(owner.filter(|cta| *cta != place.cta).map(Resource::CtaLife));
    }
    match facts.footprint {
        Footprint::Local => {}
        Footprint::Shared(Shared { cta_barrier, cluster_barrier, sc_fences, tensor_memory }) => {
            let flagged = [
                (cta_barrier, Resource::CtaBarrier(place.cta)),
                (cluster_barrier, Resource::ClusterBarrier(place.cluster)),
                (sc_fences, Resource::FenceSc),
                (tensor_memory, Resource::Tmem(place.cta)),
            ];
            out.extend(flagged.into_iter().filter(|(on, _)| *on).map(|(_, r)| r));
        }
    }
    // A pair's deallocs meet (`tcgen05::pair_dealloc_readiness`): the peer's allocator too.
    if let Instr::Tc(TcOp::Dealloc { cta_group: 2, .. }) = instr.unwrapped() {
        out.extend(crate::model::pair_peer(place.cta, &layout.cta_cluster).map(Resource::Tmem));
    }
}

fn resources(layout: &Layout, thread: usize) -> Vec<Resource> {
    let Some(t) = layout.threads.get(thread) else { return Vec::new() };
    let mut out = Vec::new();
    for instr in &t.program {
        footprint(layout, t.place, instr, &mut out);
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
    // Its last step may end its CTA.
    implied.push(Resource::CtaLife(t.place.cta));
    out.extend(implied);
    out
}

/// CTAs whose memory a thread of another CTA names: their threads' ends are visible.
fn peer_touched(layout: &Layout) -> Vec<usize> {
    let mut out = Vec::new();
    for t in &layout.threads {
        for instr in &t.program {
            let mut rs = Vec::new();
            footprint(layout, t.place, instr, &mut rs);
            out.extend(rs.into_iter().filter_map(|r| match r {
                Resource::CtaLife(cta) => Some(cta),
                _ => None,
            }));
        }
    }
    crate::sort::sort(&mut out);
    out.dedup();
    out
}

/// Component id per thread (threads sharing a resource, transitively, share an id).
fn components(layout: &Layout) -> Vec<usize> {
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
    // A CTA/cluster barrier resource only links threads when some thread uses it, a
    // CTA's lifetime only when a thread of another CTA names its memory.
    let used: Vec<Resource> = layout
        .threads
        .iter()
        .flat_map(|t| t.program.iter().map(move |i| (t, i)))
        .flat_map(|(t, i)| {
            let mut rs = Vec::new();
            footprint(layout, t.place, i, &mut rs);
            rs.into_iter().filter(|r| matches!(r, Resource::CtaBarrier(_) | Resource::ClusterBarrier(_) | Resource::CtaLife(_)))
        })
        .collect();
    for (t, rs) in all.iter().enumerate() {
        for r in rs {
            if matches!(r, Resource::CtaBarrier(_) | Resource::ClusterBarrier(_) | Resource::CtaLife(_)) && !used.contains(r) {
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

/// What the explorer needs to pick ample sets, computed once per scenario.
pub struct Reduction {
    components: Vec<usize>,
    /// CTAs whose memory a thread of another CTA names (so their exits are visible).
    peer_touched: Vec<usize>,
}

impl Reduction {
    pub fn new(layout: &Layout) -> Reduction {
        Reduction { components: components(layout), peer_touched: peer_touched(layout) }
    }

    /// Steps that read and write only the agent's own state. A thread's last step is not
    /// one when a peer names its CTA's memory: it may end the CTA under the peer.
    pub fn is_local(&self, layout: &Layout, m: &Machine, agent: u32) -> bool {
        let Some(a) = m.agents.get(agent as usize) else { return false };
        let AgentKind::Thread(t) = a.kind else { return false };
        let Some(thread) = layout.threads.get(t) else { return false };
        let ends_visibly = a.pc + 1 >= thread.program.len() && self.peer_touched.contains(&thread.place.cta);
        !ends_visibly && current_step_facts(layout, m, agent).is_some_and(|facts| facts.local)
    }

    pub fn component_of(&self, m: &Machine, agent: u32) -> usize {
        match m.agents.get(agent as usize).map(|a| &a.kind) {
            Some(AgentKind::Thread(t)) => self.components.get(*t).copied().unwrap_or(0),
            Some(AgentKind::Async { issuer, .. }) => self.components.get(issuer.thread()).copied().unwrap_or(0),
            None => 0,
        }
    }
}
