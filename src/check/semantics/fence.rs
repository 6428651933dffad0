//! Thread fences, restricted fences, `fence.mbarrier_init` and proxy fences (§1.10, §2.2, §2.3).

use super::base::exec::Exec;
use super::base::sync::{self, fence_op};
use crate::check::machine::{covers, Filter, ProxyKey, ALIAS_BIT};
use crate::check::text;
use crate::model::{AddrSpace, Fence, FenceSem, ProxyKind, Scope, SyncRestrict};

pub fn step(ex: &mut Exec, fence: &Fence) -> Result<(), String> {
    let t = text::fence(fence);
    match fence {
        Fence::Thread { sem, scope, restrict, .. } => {
            let (release, acquire, sc) = fence_op(*sem);
            let place = ex.place();
            let rel_filter = match restrict {
                Some(SyncRestrict::SharedCta) => Filter::SharedCta(place.cta),
                _ => Filter::All,
            };
            let acq_filter = match restrict {
                Some(SyncRestrict::SharedCluster) => Filter::SharedCluster(place.cluster),
                _ => Filter::All,
            };
            if acquire {
                acquire_pending(ex, *scope, acq_filter, &t)?;
            }
            if sc {
                // Fence-SC order = execution order of morally strong fence.sc (§1.10).
                let earlier = ex.m.sc_fences.clone();
                for msg in earlier.iter() {
                    let from = ex.m.agents.get(msg.from_agent as usize).map_or(place, |a| a.place);
                    if msg.from_agent != ex.agent && covers(msg.scope, from, place) && covers(*scope, place, from) {
                        let k = msg.knowledge.clone();
                        ex.me_mut()?.knowledge.join(&k);
                        ex.edge(msg, "fence.sc", Some(*scope));
                    }
                }
            }
            if release {
                let msg = publish_release(ex, *scope, rel_filter, &t)?;
                if sc {
                    ex.m.sc_fences.retain(|m| m.from_agent != msg.from_agent || m.scope != msg.scope);
                    ex.m.sc_fences.push(msg);
                }
            }
            if ex.explain {
                ex.out.description = t;
            }
        }
        Fence::MbarrierInit => {
            publish_release(ex, Scope::Cluster, Filter::MbarrierInit, &t)?;
            if ex.explain {
                ex.out.description = "published prior `mbarrier.init` to the cluster".into();
            }
        }
        Fence::Proxy(kind) => {
            let place = ex.place();
            let (key, filter) = match kind {
                ProxyKind::Alias => (ALIAS_BIT, Filter::All),
                ProxyKind::Texture => (ProxyKey::Texture.bit(), Filter::All),
                ProxyKind::Surface => (ProxyKey::Surface.bit(), Filter::All),
                ProxyKind::Constant => (ProxyKey::Constant.bit(), Filter::All),
                ProxyKind::Async { space } => (
                    ProxyKey::Async.bit(),
                    match space {
                        None => Filter::All,
                        Some(AddrSpace::Global) => Filter::Global,
                        Some(AddrSpace::SharedCta) => Filter::SharedCta(place.cta),
                        Some(AddrSpace::SharedCluster) => Filter::SharedCluster(place.cluster),
                    },
                ),
                // Departure: the uni-directional halves are modelled as a bi-directional
                // async proxy fence over their state space (reference §2.3 gives no pairing rule).
                ProxyKind::AsyncGeneric { sem, restrict } => (
                    ProxyKey::Async.bit(),
                    match (sem, restrict) {
                        (FenceSem::Release, _) | (_, SyncRestrict::SharedCta) => Filter::SharedCta(place.cta),
                        _ => Filter::SharedCluster(place.cluster),
                    },
                ),
                ProxyKind::Tensormap { .. } => (ProxyKey::Tensormap.bit(), Filter::All),
            };
            // §2.3: the halves split one crossing around a cross-thread synchronization (the
            // CLC example), so each is also that synchronization's fence (§1.5 patterns 3):
            // the acquire half acquires what a relaxed read before it observed, then crosses;
            // the release half crosses, then releases with the next strong write.
            let (release_half, acquire_half) = match kind {
                ProxyKind::AsyncGeneric { sem, .. } => {
                    let (release, acquire, _) = fence_op(Some(*sem));
                    (release, acquire)
                }
                ProxyKind::Alias | ProxyKind::Texture | ProxyKind::Surface | ProxyKind::Constant | ProxyKind::Async { .. } | ProxyKind::Tensormap { .. } => (false, false),
            };
            if acquire_half {
                acquire_pending(ex, Scope::Cluster, Filter::SharedCluster(place.cluster), &t)?;
            }
            let layout = ex.layout;
            ex.me_mut()?.knowledge.bridge(key, place.cta, filter, layout);
            let agent = ex.agent;
            ex.me_mut()?.knowledge.bump(agent);
            if release_half {
                publish_release(ex, Scope::Cluster, filter, &t)?;
            }
            ex.out.description = if release_half {
                "orders earlier generic accesses with later async-proxy accesses and releases them with the next strong write".into()
            } else if acquire_half {
                "acquires what earlier relaxed reads observed and orders it with later async-proxy accesses".into()
            } else {
                "orders earlier accesses with later accesses through the other proxy".into()
            };
        }
    }
    ex.next()
}

/// The acquire side of fence patterns (§1.5 acquire 3): synchronize with the releases that
/// earlier relaxed reads observed.
fn acquire_pending(ex: &mut Exec, scope: Scope, filter: Filter, text: &str) -> Result<(), String> {
    let pending = ex.me()?.pending_acquire.clone();
    for msg in pending.iter() {
        sync::synchronize(ex, msg, scope, filter, text, "release/acquire (fence)")?;
    }
    Ok(())
}

/// The release side of fence patterns (§1.5 release 3): the next strong writes carry it.
fn publish_release(ex: &mut Exec, scope: Scope, filter: Filter, text: &str) -> Result<crate::check::machine::Message, String> {
    let mut k = ex.me()?.knowledge.restrict(filter, ex.layout);
    if filter == Filter::All {
        if let Some(done) = ex.tc_completed()? {
            k.join(done);
        }
    }
    let msg = ex.release(scope, text.to_string(), k)?;
    let me = ex.me_mut()?;
    me.release_fences.retain(|m| m.via != msg.via);
    me.release_fences.push(msg.clone());
    Ok(msg)
}
