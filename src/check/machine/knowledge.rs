//! What an agent knows: which events are causality-ordered before its next access.
//!
//! Knowledge is a small set of version vectors, each valid for a subset of locations
//! (a [`Filter`], from `sync_restrict` fences) and for a set of proxy crossings ([`Crossings`],
//! from proxy fences). The unfiltered, unbridged entry is plain happens-before.

use std::borrow::Cow;
use std::rc::Rc;

use super::layout::{Layout, Via, ALIAS_BIT};
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

/// The proxy fences on the path to an entry, in order, with the CTA that ran each
/// (§1.8 (iii)). Order matters: a surface write reaches a texture read through
/// `fence.proxy.surface` then `fence.proxy.texture`, and an alias read through the proxy
/// fence then `fence.proxy.alias`. Non-generic proxies are CTA-local (§1.8 (ii)), so the
/// fence leaving the writer's proxy runs in the writer's CTA and the one entering the
/// reader's proxy in the reader's CTA (this matches the mixed-proxy litmus corpus and is
/// stricter than reference §1.8's "one of the accesses").
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Crossings {
    /// `(fence bit, cta)`, oldest first, consecutive repeats merged, at most 8 kept.
    pub seq: Vec<(u8, usize)>,
}

const MAX_CROSSINGS: usize = 8;

impl Crossings {
    pub fn is_plain(&self) -> bool {
        self.seq.is_empty()
    }

    fn then(&self, bit: u8, cta: usize) -> Crossings {
        let mut seq = self.seq.clone();
        if seq.last() != Some(&(bit, cta)) {
            seq.push((bit, cta));
        }
        if seq.len() > MAX_CROSSINGS {
            seq.remove(0);
        }
        Crossings { seq }
    }

    fn covers(&self, need: &Need) -> bool {
        let mut wanted = need.steps.iter().peekable();
        for (bit, cta) in &self.seq {
            if let Some((w_bit, w_cta)) = wanted.peek() {
                if w_bit == bit && w_cta.is_none_or(|c| c == *cta) {
                    wanted.next();
                }
            }
        }
        wanted.peek().is_none()
    }

    /// Every need this path meets, the other meets too.
    fn dominates(&self, other: &Crossings) -> bool {
        let mut mine = self.seq.iter();
        other.seq.iter().all(|step| mine.any(|m| m == step))
    }
}

/// The fences a pair of accesses needs on the path between them, in order; `None` CTA
/// means any CTA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Need {
    pub steps: Vec<(u8, Option<usize>)>,
}

/// What orders an access `from` (by an agent in CTA `from_cta`) before an access `to`
/// (CTA `to_cta`), reference §1.8: same address and proxy needs nothing when generic or
/// in one CTA; otherwise leave the writer's proxy, cross addresses with an alias fence,
/// enter the reader's proxy.
pub fn needed(from: Via, from_cta: usize, to: Via, to_cta: usize) -> Need {
    let alias = from.va != to.va;
    if from.proxy == to.proxy && !alias && (from_cta == to_cta || from.proxy.bit() == 0) {
        return Need::default();
    }
    let mut steps = Vec::new();
    if from.proxy.bit() != 0 {
        steps.push((from.proxy.bit(), Some(from_cta)));
    }
    if alias {
        steps.push((ALIAS_BIT, None));
    }
    if to.proxy.bit() != 0 {
        // Entering the async proxy across CTAs (a DSMEM operand, seed 003): reference §1.8
        // accepts a fence in the CTA of either access; `None` (any CTA) over-approximates
        // that slightly, as `Need` names one CTA per step.
        let any = to.proxy == super::layout::ProxyKey::Async && from_cta != to_cta;
        steps.push((to.proxy.bit(), (!any).then_some(to_cta)));
    }
    Need { steps }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub filter: Filter,
    pub bridge: Crossings,
    pub vv: VersionVec,
    /// Per memory cell: one past the highest coherence index observed (CoRR, §1.9).
    pub floor: Floors,
}

/// An entry's coherence floors, one per memory cell. Copies of an entry share them until
/// one raises a floor: most copies change the clock and leave the floors alone, so
/// copying a knowledge allocates once per entry, not twice. Hashes and compares as the
/// slice does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Floors(Rc<[u32]>);

impl Floors {
    pub fn zeros(cells: usize) -> Floors {
        // Collected straight into the shared allocation (a `Vec` would be copied into it).
        Floors(std::iter::repeat_n(0, cells).collect())
    }

    /// The floors to change, copied first if another entry still holds them.
    pub fn make_mut(&mut self) -> &mut [u32] {
        Rc::make_mut(&mut self.0)
    }

    /// No other entry holds these floors: dropping this one frees them.
    pub fn is_unique(&self) -> bool {
        Rc::strong_count(&self.0) == 1
    }
}

impl std::ops::Deref for Floors {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.0
    }
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
            entries: vec![Entry { filter: Filter::All, bridge: Crossings::default(), vv, floor: Floors::zeros(cells) }],
        }
    }

    pub fn main(&self) -> Option<&Entry> {
        self.entries.iter().find(|e| e.filter == Filter::All && e.bridge.is_plain())
    }

    pub fn main_mut(&mut self) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.filter == Filter::All && e.bridge.is_plain())
    }

    /// Is `event` (an access to `loc` needing `need`) ordered before this agent's
    /// next access to `loc`?
    pub fn orders(&self, layout: &Layout, event: EventId, loc: usize, need: &Need) -> bool {
        self.entries.iter().any(|e| e.bridge.covers(need) && e.filter.contains(layout, loc) && e.vv.contains(event))
    }

    /// Would `event` be ordered before our access to `loc` if proxies were ignored? (Used
    /// to explain races: the edge reaches the location, only proxy fences are missing.)
    pub fn orders_ignoring_proxies(&self, layout: &Layout, event: EventId, loc: usize) -> bool {
        self.entries.iter().any(|e| e.filter.contains(layout, loc) && e.vv.contains(event))
    }

    /// Would `event` be ordered before us if filters and proxies were ignored? (Used to
    /// explain races: the edge exists, something else is missing.)
    pub fn orders_ignoring(&self, event: EventId) -> Option<Filter> {
        self.entries.iter().find(|e| e.vv.contains(event)).map(|e| e.filter)
    }

    /// Highest coherence floor for `cell` through `key` (observations are same-proxy).
    pub fn floor(&self, layout: &Layout, loc: usize, cell: usize) -> u32 {
        self.entries
            .iter()
            .filter(|e| e.bridge.is_plain() && e.filter.contains(layout, loc))
            .map(|e| e.floor.get(cell).copied().unwrap_or(0))
            .max()
            .unwrap_or(0)
    }

    pub fn raise_floor(&mut self, cell: usize, floor: u32) {
        let Some(main) = self.main_mut() else { return };
        if main.floor.get(cell).is_some_and(|&slot| slot < floor) {
            if let Some(slot) = main.floor.make_mut().get_mut(cell) {
                *slot = floor;
            }
        }
    }

    pub fn own_epoch(&self, agent: u32) -> u32 {
        self.main().map_or(0, |m| m.vv.get(agent))
    }

    /// Start a new epoch for `agent` after a snapshot of this knowledge left it.
    pub fn bump(&mut self, agent: u32) {
        let next = self.own_epoch(agent) + 1;
        for e in &mut self.entries {
            if e.bridge.is_plain() && e.filter == Filter::All {
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
                // A floor is per memory cell: the filter asks about the location the cell
                // belongs to (a byte segment's cell is numbered after every location).
                let outside = |cell: usize| !f.contains(layout, layout.cell_owner.get(cell).copied().unwrap_or(cell));
                if floor.iter().enumerate().any(|(cell, &slot)| slot != 0 && outside(cell)) {
                    for (cell, slot) in floor.make_mut().iter_mut().enumerate() {
                        if outside(cell) {
                            *slot = 0;
                        }
                    }
                }
                out.add(Cow::Owned(Entry { filter: f, bridge: e.bridge.clone(), vv: e.vv.clone(), floor }));
            }
        }
        out
    }

    /// `self.join(&other.restrict(filter, layout))`, without building the restricted copy
    /// when it holds `other`'s own entries: unfiltered ones, restricted to everything.
    pub fn join_restricted(&mut self, other: &Knowledge, filter: Filter, layout: &Layout) {
        if filter == Filter::All && other.entries.iter().all(|e| e.filter == Filter::All) {
            // Restricting unfiltered entries to everything keeps each as it is and drops
            // those the others imply (`prune`).
            for e in other.entries.iter().filter(|e| !prunable(e, &other.entries)) {
                self.add(Cow::Borrowed(e));
            }
        } else {
            self.join(&other.restrict(filter, layout));
        }
    }

    pub fn join(&mut self, other: &Knowledge) {
        for e in &other.entries {
            self.add(Cow::Borrowed(e));
        }
    }

    /// `self.join(&Knowledge::new(cells, agent))` without building that knowledge: the
    /// plain entry learns `agent`'s first epoch (a spawn does this once per agent).
    pub fn join_fresh(&mut self, cells: usize, agent: u32) {
        let Some(main) = self.main_mut() else {
            return self.join(&Knowledge::new(cells, agent));
        };
        if main.vv.get(agent) < 1 {
            main.vv.set(agent, 1);
        }
        self.prune();
    }

    /// A proxy fence: what is ordered now also crosses `bit` for locations in `filter`.
    /// Fences compose: a surface fence then an alias fence crosses both (§1.8 (iii)).
    pub fn bridge(&mut self, bit: u8, cta: usize, filter: Filter, layout: &Layout) {
        let crossed: Vec<Entry> = self
            .entries
            .iter()
            .filter_map(|e| {
                let f = e.filter.intersect(filter, layout)?;
                Some(Entry { filter: f, bridge: e.bridge.then(bit, cta), vv: e.vv.clone(), floor: e.floor.clone() })
            })
            .collect();
        for e in crossed {
            self.add(Cow::Owned(e));
        }
    }

    /// Joins `entry` into the entry of its key, or inserts it (copied only then).
    fn add(&mut self, entry: Cow<'_, Entry>) {
        match self.entries.binary_search_by(|e| (e.filter, &e.bridge).cmp(&(entry.filter, &entry.bridge))) {
            Ok(i) => {
                if let Some(e) = self.entries.get_mut(i) {
                    e.vv.join(&entry.vv);
                    if e.floor.iter().zip(entry.floor.iter()).any(|(mine, theirs)| theirs > mine) {
                        for (mine, theirs) in e.floor.make_mut().iter_mut().zip(entry.floor.iter()) {
                            *mine = (*mine).max(*theirs);
                        }
                    }
                }
            }
            Err(i) => self.entries.insert(i, entry.into_owned()),
        }
        self.prune();
    }

    /// Drop filtered entries a broader entry already implies (keeps states canonical).
    fn prune(&mut self) {
        // One at a time, in place: implication is a strict order (no two entries imply
        // each other, and it is transitive), so an entry implied by one dropped before it
        // is implied by what implied that one, and the result is what dropping all at once
        // would leave.
        let mut i = 0;
        while let Some(e) = self.entries.get(i) {
            if prunable(e, &self.entries) {
                self.entries.remove(i);
            } else {
                i += 1;
            }
        }
    }
}

/// `e` is not the plain entry, and another of `entries` implies it: an unfiltered entry
/// whose crossings, clock and floors are at least `e`'s.
fn prunable(e: &Entry, entries: &[Entry]) -> bool {
    let implied_by = |o: &Entry| {
        o.filter == Filter::All
            && (o.filter, &o.bridge) != (e.filter, &e.bridge)
            && o.bridge.dominates(&e.bridge)
            && e.vv <= o.vv
            && e.floor.iter().zip(o.floor.iter()).all(|(a, b)| a <= b)
    };
    !(e.filter == Filter::All && e.bridge.is_plain()) && entries.iter().any(implied_by)
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
    /// An async completion's is empty while exploring (it names the agent, see `relabel`).
    pub via: std::rc::Rc<str>,
    /// Shared: a message is copied into every write, barrier and agent it reaches.
    pub knowledge: super::shared::Shared<Knowledge>,
    pub step: Meta<Option<usize>>,
    /// Where the release counts as performed for scope inclusion when that is not where
    /// `from_agent` runs: pragmatic mode's `tcgen05.commit` arrive-on on another CTA's
    /// barrier, performed in that CTA (reference §12 #1).
    pub performed_in: Option<super::layout::Place>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::machine::ProxyKey;

    fn via(proxy: ProxyKey, va: usize) -> Via {
        Via { proxy, va }
    }

    #[test]
    fn proxy_crossings_compose_in_order() {
        let (surface, texture) = (ProxyKey::Surface.bit(), ProxyKey::Texture.bit());
        let need = needed(via(ProxyKey::Surface, 0), 0, via(ProxyKey::Texture, 0), 0);
        let right = Crossings::default().then(surface, 0).then(texture, 0);
        let wrong = Crossings::default().then(texture, 0).then(surface, 0);
        assert!(right.covers(&need));
        assert!(!wrong.covers(&need));
        // Generic write, alias read: one alias fence anywhere.
        let alias = needed(via(ProxyKey::Generic, 0), 0, via(ProxyKey::Generic, 1), 1);
        assert!(Crossings::default().then(ALIAS_BIT, 3).covers(&alias));
        // Same non-generic proxy in two CTAs: leave in the writer's CTA, enter in the reader's.
        let across = needed(via(ProxyKey::Surface, 0), 0, via(ProxyKey::Surface, 0), 1);
        assert!(!Crossings::default().then(surface, 0).covers(&across));
        assert!(Crossings::default().then(surface, 0).then(surface, 1).covers(&across));
        assert_eq!(needed(via(ProxyKey::Async, 0), 2, via(ProxyKey::Async, 0), 2), Need::default());
    }

    #[test]
    fn restricted_knowledge_speaks_only_for_its_space() {
        let mut layout_src = crate::model::Scenario {
            title: None,
            clusters: vec![crate::model::Cluster { name: "C".into(), gpu: 0 }],
            ctas: vec![crate::model::Cta { name: "A".into(), cluster: 0 }],
            locations: Vec::new(),
            mbarriers: Vec::new(),
            threads: vec![crate::model::Thread { name: "t".into(), cta: 0, lanes: 32, program: Vec::new() }],
            expect: Vec::new(),
            conditions: Vec::new(),
        };
        for (name, space) in [("g", crate::model::Space::Global), ("s", crate::model::Space::Shared(0))] {
            layout_src.locations.push(crate::model::Location { name: name.into(), space, size: 4, init: 0, alias: None });
        }
        let layout = Layout::new(&layout_src).unwrap_or_else(|e| panic!("{e}"));
        let k = Knowledge::new(layout.cells, 0).restrict(Filter::SharedCta(0), &layout);
        let event = EventId { agent: 0, epoch: 1 };
        assert!(k.orders(&layout, event, 1, &Need::default()));
        assert!(!k.orders(&layout, event, 0, &Need::default()));
    }

    /// Overlapping byte ranges split `x` into four cells, so `x`'s last segment is cell 4
    /// while the layout has four entries (x, s, x+0, x+2): a floor is kept or cleared by
    /// the space of the location its cell belongs to, not by the entry its number names.
    const SPLIT: &str = "cta A
global x = 0 size 8
shared s @A = 0
thread t @A:
    st.b32 [x+0], 1
    st.b32 [x+2], 2
    st.shared.u32 [s], 3
";

    #[test]
    fn restricted_floors_follow_the_location_each_cell_belongs_to() {
        let loaded = crate::load(SPLIT);
        let layout = Layout::new(&loaded.scenario).unwrap_or_else(|e| panic!("{e}"));
        let (last_segment, shared) = (4, 1);
        assert_eq!((layout.cells, layout.locs.len()), (5, 4));
        assert_eq!(layout.cell_owner.get(last_segment), Some(&0));
        let mut k = Knowledge::new(layout.cells, 0);
        k.raise_floor(last_segment, 3);
        k.raise_floor(shared, 2);
        let floors = |k: &Knowledge| k.main().or(k.entries.first()).map(|e| e.floor.to_vec()).unwrap_or_default();
        assert_eq!(floors(&k.restrict(Filter::All, &layout)), vec![0, 2, 0, 0, 3]);
        assert_eq!(floors(&k.restrict(Filter::Global, &layout)), vec![0, 0, 0, 0, 3]);
        assert_eq!(floors(&k.restrict(Filter::SharedCta(0), &layout)), vec![0, 2, 0, 0, 0]);
    }

    #[test]
    fn joining_restricted_to_everything_skips_only_the_copy() {
        let loaded = crate::load(SPLIT);
        let layout = Layout::new(&loaded.scenario).unwrap_or_else(|e| panic!("{e}"));
        let mut other = Knowledge::new(layout.cells, 1);
        other.raise_floor(4, 3);
        other.bridge(ProxyKey::Async.bit(), 0, Filter::All, &layout);
        other.bridge(ProxyKey::Async.bit(), 0, Filter::SharedCta(0), &layout);
        // Unfiltered entries only, built directly and so not pruned: the middle one is
        // implied by the last.
        let async_bit = ProxyKey::Async.bit();
        let entry = |seq: Vec<(u8, usize)>, epoch: u32| {
            let mut vv = VersionVec::default();
            vv.set(1, epoch);
            Entry { filter: Filter::All, bridge: Crossings { seq }, vv, floor: Floors(vec![0, 1, 0, 0, 3].into()) }
        };
        let unfiltered = Knowledge { entries: vec![entry(vec![], 1), entry(vec![(async_bit, 0)], 1), entry(vec![(async_bit, 0), (ALIAS_BIT, 0)], 2)] };
        // The joining side has an entry of the implied one's key: joining that entry
        // anyway would grow it past what the restricted copy gives.
        let start = || {
            let mut k = Knowledge::new(layout.cells, 0);
            k.bridge(async_bit, 0, Filter::All, &layout);
            k
        };
        for (other, filter) in [(&other, Filter::All), (&other, Filter::SharedCta(0)), (&unfiltered, Filter::All), (&unfiltered, Filter::Global)] {
            let mut fast = start();
            fast.join_restricted(other, filter, &layout);
            let mut copied = start();
            copied.join(&other.restrict(filter, &layout));
            assert_eq!(fast, copied, "{filter:?}");
        }
    }

    #[test]
    fn joining_a_fresh_agent_matches_joining_its_new_knowledge() {
        let loaded = crate::load(SPLIT);
        let layout = Layout::new(&loaded.scenario).unwrap_or_else(|e| panic!("{e}"));
        let clock = |pairs: &[(u32, u32)]| {
            let mut vv = VersionVec::default();
            pairs.iter().for_each(|&(agent, epoch)| vv.set(agent, epoch));
            vv
        };
        let entry = |filter, vv| Entry { filter, bridge: Crossings::default(), vv, floor: Floors::zeros(layout.cells) };
        let mut bridged = Knowledge::new(layout.cells, 0);
        bridged.bridge(ProxyKey::Async.bit(), 0, Filter::SharedCta(0), &layout);
        // Built directly, so not pruned: the filtered entry is implied by the plain one,
        // and joining drops it.
        let unpruned = Knowledge { entries: vec![entry(Filter::All, clock(&[(0, 2)])), entry(Filter::SharedCta(0), clock(&[(0, 1)]))] };
        let cases = [
            ("plain", Knowledge::new(layout.cells, 0)),
            ("bridged", bridged),
            ("no plain entry", Knowledge::new(layout.cells, 0).restrict(Filter::Global, &layout)),
            ("already at epoch 2", Knowledge { entries: vec![entry(Filter::All, clock(&[(0, 1), (3, 2)]))] }),
            ("unpruned", unpruned),
        ];
        for (name, start) in cases {
            let mut fast = start.clone();
            fast.join_fresh(layout.cells, 3);
            let mut joined = start;
            joined.join(&Knowledge::new(layout.cells, 3));
            assert_eq!(fast, joined, "{name}");
        }
    }
}
