//! What an agent knows: which events are causality-ordered before its next access.
//!
//! Knowledge is a small set of version vectors, each valid for a subset of locations
//! (a [`Filter`], from `sync_restrict` fences) and for one proxy crossing (a [`Bridge`],
//! from proxy fences). The unfiltered, unbridged entry is plain happens-before.

use super::layout::{Layout, ProxyKey};
use super::vv::{EventId, Meta, VersionVec};
use crate::model::{Scope, Space};

/// Which locations an entry speaks for (reference §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Filter {
    All,
    Global,
    /// Shared memory of one CTA (`.sync_restrict::shared::cta`).
    SharedCta(usize),
    /// Shared memory of every CTA of one cluster (`.sync_restrict::shared::cluster`).
    SharedCluster(usize),
    /// Only `mbarrier.init` effects (`fence.mbarrier_init`).
    MbarrierInit,
    /// Tensor memory only: what `tcgen05.fence::*` order (reference §8.4).
    Tmem,
    /// Everything but tensor memory: what a `tcgen05` op inherits through program order.
    Memory,
}

impl Filter {
    pub fn contains(self, layout: &Layout, loc: usize) -> bool {
        let Some(info) = layout.locs.get(loc) else { return false };
        match self {
            Filter::All => true,
            Filter::Global => info.space == Space::Global,
            Filter::SharedCta(cta) => info.space == Space::Shared(cta),
            Filter::SharedCluster(c) => {
                matches!(info.space, Space::Shared(_)) && info.cluster == Some(c)
            }
            Filter::MbarrierInit => info.mbarrier.is_some(),
            Filter::Tmem => matches!(info.space, Space::Tmem(_)),
            Filter::Memory => !matches!(info.space, Space::Tmem(_)),
        }
    }

    pub fn intersect(self, other: Filter, layout: &Layout) -> Option<Filter> {
        use Filter::*;
        match (self, other) {
            (All, f) | (f, All) => Some(f),
            (a, b) if a == b => Some(a),
            (SharedCta(k), SharedCluster(c)) | (SharedCluster(c), SharedCta(k)) => {
                (layout.cta_cluster.get(k) == Some(&c)).then_some(SharedCta(k))
            }
            // Barrier words live in shared memory: keep the init-only restriction.
            (MbarrierInit, SharedCta(_) | SharedCluster(_))
            | (SharedCta(_) | SharedCluster(_), MbarrierInit) => Some(MbarrierInit),
            (Memory, f) | (f, Memory) if f != Tmem => Some(f),
            _ => None,
        }
    }
}

/// The proxy crossing an entry orders (`None`: same proxy only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bridge {
    None,
    /// Between the generic proxy and this one.
    To(ProxyKey),
}

impl Bridge {
    /// The crossing needed to order an access through `from` before one through `to`;
    /// `None` when no proxy fence can order them.
    pub fn needed(from: ProxyKey, to: ProxyKey) -> Option<Bridge> {
        match (from, to) {
            (a, b) if a == b => Some(Bridge::None),
            (ProxyKey::Generic, other) | (other, ProxyKey::Generic) => Some(Bridge::To(other)),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub filter: Filter,
    pub bridge: Bridge,
    pub vv: VersionVec,
    /// Per memory cell: one past the highest coherence index observed (CoRR, §1.9).
    pub floor: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Knowledge {
    /// Sorted by `(filter, bridge)`, at most one entry per key.
    pub entries: Vec<Entry>,
}

impl Knowledge {
    /// Fresh knowledge of `agent`: its own epoch 1 and the initial values.
    pub fn new(cells: usize, agent: u32) -> Knowledge {
        let mut vv = VersionVec::default();
        vv.set(agent, 1);
        Knowledge {
            entries: vec![Entry { filter: Filter::All, bridge: Bridge::None, vv, floor: vec![0; cells] }],
        }
    }

    pub fn main(&self) -> Option<&Entry> {
        self.entries.iter().find(|e| e.filter == Filter::All && e.bridge == Bridge::None)
    }

    pub fn main_mut(&mut self) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.filter == Filter::All && e.bridge == Bridge::None)
    }

    /// Is `event` (an access to `loc` through `from`) ordered before this agent's next
    /// access to `loc` through `to`?
    pub fn orders(&self, layout: &Layout, event: EventId, loc: usize, from: ProxyKey, to: ProxyKey) -> bool {
        let Some(bridge) = Bridge::needed(from, to) else { return false };
        self.entries.iter().any(|e| {
            e.bridge == bridge && e.filter.contains(layout, loc) && e.vv.contains(event)
        })
    }

    /// Would `event` be ordered before us if filters and proxies were ignored? (Used to
    /// explain races: the edge exists, something else is missing.)
    pub fn orders_ignoring(&self, event: EventId) -> Option<(Filter, Bridge)> {
        self.entries.iter().find(|e| e.vv.contains(event)).map(|e| (e.filter, e.bridge))
    }

    /// Highest coherence floor for `cell` through `key` (observations are same-proxy).
    pub fn floor(&self, layout: &Layout, loc: usize, cell: usize) -> u32 {
        self.entries
            .iter()
            .filter(|e| e.bridge == Bridge::None && e.filter.contains(layout, loc))
            .map(|e| e.floor.get(cell).copied().unwrap_or(0))
            .max()
            .unwrap_or(0)
    }

    pub fn raise_floor(&mut self, cell: usize, floor: u32) {
        if let Some(slot) = self.main_mut().and_then(|m| m.floor.get_mut(cell)) {
            *slot = (*slot).max(floor);
        }
    }

    pub fn own_epoch(&self, agent: u32) -> u32 {
        self.main().map_or(0, |m| m.vv.get(agent))
    }

    /// Start a new epoch for `agent` after a snapshot of this knowledge left it.
    pub fn bump(&mut self, agent: u32) {
        let next = self.own_epoch(agent) + 1;
        for e in &mut self.entries {
            if e.bridge == Bridge::None && e.filter == Filter::All {
                e.vv.set(agent, next);
            }
        }
    }

    /// The part of this knowledge that speaks for locations in `filter`.
    pub fn restrict(&self, filter: Filter, layout: &Layout) -> Knowledge {
        let mut out = Knowledge::default();
        for e in &self.entries {
            if let Some(f) = e.filter.intersect(filter, layout) {
                let mut floor = e.floor.clone();
                for (loc, slot) in floor.iter_mut().enumerate() {
                    if !f.contains(layout, loc) {
                        *slot = 0;
                    }
                }
                out.add(Entry { filter: f, bridge: e.bridge, vv: e.vv.clone(), floor });
            }
        }
        out
    }

    pub fn join(&mut self, other: &Knowledge) {
        for e in &other.entries {
            self.add(e.clone());
        }
    }

    /// A proxy fence: what is ordered now becomes ordered across `bridge` for `filter`.
    pub fn bridge(&mut self, to: ProxyKey, filter: Filter, layout: &Layout) {
        let crossed: Vec<Entry> = self
            .entries
            .iter()
            .filter(|e| e.bridge == Bridge::None)
            .filter_map(|e| {
                let f = e.filter.intersect(filter, layout)?;
                Some(Entry { filter: f, bridge: Bridge::To(to), vv: e.vv.clone(), floor: e.floor.clone() })
            })
            .collect();
        for e in crossed {
            self.add(e);
        }
    }

    fn add(&mut self, entry: Entry) {
        match self.entries.binary_search_by(|e| (e.filter, e.bridge).cmp(&(entry.filter, entry.bridge))) {
            Ok(i) => {
                if let Some(e) = self.entries.get_mut(i) {
                    e.vv.join(&entry.vv);
                    for (mine, theirs) in e.floor.iter_mut().zip(&entry.floor) {
                        *mine = (*mine).max(*theirs);
                    }
                }
            }
            Err(i) => self.entries.insert(i, entry),
        }
        self.prune();
    }

    /// Drop filtered entries a broader entry already implies (keeps states canonical).
    fn prune(&mut self) {
        let snapshot = self.entries.clone();
        self.entries.retain(|e| {
            e.filter == Filter::All
                || !snapshot.iter().any(|o| {
                    o.filter == Filter::All
                        && o.bridge == e.bridge
                        && e.vv <= o.vv
                        && e.floor.iter().zip(&o.floor).all(|(a, b)| a <= b)
                })
        });
    }
}

/// A release published by an agent: what it knew, and the scope the pattern's first
/// operation gives it (reference §1.5–§1.6).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    pub origin: EventId,
    /// Agent whose first op of the pattern decides scope inclusion.
    pub from_agent: u32,
    pub scope: Scope,
    /// How the release was formed, for explanations (`st.release.cta`, `fence.release.cta`).
    pub via: String,
    pub knowledge: Knowledge,
    pub step: Meta<Option<usize>>,
}
