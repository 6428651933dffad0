//! Lookups shared by the verifier passes. Every index from the model is checked, so a
//! scenario deserialized from a link cannot make the verifier panic.

use std::collections::HashMap;

use crate::diag::{Diagnostic, Span};
use crate::model::{Instr, Location, Mbarrier, Scenario, Space};
use crate::syntax::SourceMap;

pub struct Ctx<'a> {
    pub s: &'a Scenario,
    pub map: &'a SourceMap,
    diags: Vec<Diagnostic>,
    /// Name lookups to indices in the scenario (first declaration wins), so large
    /// scenarios verify in linear time. One map type for all three: each type of hash map
    /// is its own copy of the hashing code in the wasm.
    locations: HashMap<&'a str, usize>,
    mbarriers: HashMap<&'a str, usize>,
    threads: HashMap<&'a str, usize>,
    cluster_sizes: Vec<usize>,
}

/// Where a memory object lives, relative to an accessing thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Own CTA's shared memory (or an own mbarrier).
    OwnCta,
    /// Another CTA of the same cluster.
    PeerCta,
    /// A CTA of another cluster: not addressable at all.
    OtherCluster,
    /// Global memory.
    Global,
    /// Tensor memory of some CTA.
    Tmem,
    Unknown,
}

impl<'a> Ctx<'a> {
    pub fn new(s: &'a Scenario, map: &'a SourceMap) -> Ctx<'a> {
        let mut locations = HashMap::new();
        for (i, l) in s.locations.iter().enumerate() {
            locations.entry(l.name.as_str()).or_insert(i);
        }
        let mut mbarriers = HashMap::new();
        for (i, m) in s.mbarriers.iter().enumerate() {
            mbarriers.entry(m.name.as_str()).or_insert(i);
        }
        let mut threads = HashMap::new();
        for (i, t) in s.threads.iter().enumerate() {
            threads.entry(t.name.as_str()).or_insert(i);
        }
        let mut cluster_sizes = vec![0; s.clusters.len()];
        for cta in &s.ctas {
            if let Some(n) = cluster_sizes.get_mut(cta.cluster) {
                *n += 1;
            }
        }
        Ctx { s, map, diags: Vec::new(), locations, mbarriers, threads, cluster_sizes }
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub fn into_diags(self) -> Vec<Diagnostic> {
        self.diags
    }

    pub fn at(&self, t: usize, i: usize) -> Option<Span> {
        self.map.instr(t, i)
    }

    pub fn operand(&self, t: usize, i: usize, k: usize) -> Option<Span> {
        self.map.operand(t, i, k).or_else(|| self.at(t, i))
    }

    /// Every instruction with its thread and index; the inner instruction of a `wait`, a
    /// guard or a byte range is yielded in its place.
    pub fn instrs(&self) -> impl Iterator<Item = (usize, usize, &'a Instr)> + 'a {
        self.s.threads.iter().enumerate().flat_map(|(t, th)| {
            th.program.iter().enumerate().map(move |(i, instr)| match instr.unwrapped() {
                Instr::Wait { instr, .. } => (t, i, instr.unwrapped()),
                other => (t, i, other),
            })
        })
    }

    pub fn thread_cta(&self, t: usize) -> Option<usize> {
        self.s.threads.get(t).map(|th| th.cta).filter(|c| *c < self.s.ctas.len())
    }

    pub fn cluster_of(&self, cta: usize) -> Option<usize> {
        self.s.ctas.get(cta).map(|c| c.cluster)
    }

    pub fn cluster_size(&self, cluster: usize) -> usize {
        self.cluster_sizes.get(cluster).copied().unwrap_or(0)
    }

    /// Whether some cluster holds more than one CTA.
    pub fn has_clusters(&self) -> bool {
        self.cluster_sizes.iter().any(|n| *n > 1)
    }

    pub fn location(&self, name: &str) -> Option<&'a Location> {
        self.locations.get(name).and_then(|&i| self.s.locations.get(i))
    }

    pub fn mbarrier(&self, name: &str) -> Option<&'a Mbarrier> {
        self.mbarriers.get(name).and_then(|&i| self.s.mbarriers.get(i))
    }

    pub fn thread_index(&self, name: &str) -> Option<usize> {
        self.threads.get(name).copied()
    }

    pub fn cta_name(&self, cta: usize) -> &'a str {
        self.s.ctas.get(cta).map_or("?", |c| c.name.as_str())
    }

    /// How thread `t` reaches an object owned by `owner` (a CTA index).
    pub fn reach_cta(&self, t: usize, owner: usize) -> Reach {
        match (self.thread_cta(t), self.cluster_of(owner)) {
            (Some(own), _) if own == owner => Reach::OwnCta,
            (Some(own), Some(cluster)) if self.cluster_of(own) == Some(cluster) => Reach::PeerCta,
            (Some(_), Some(_)) => Reach::OtherCluster,
            _ => Reach::Unknown,
        }
    }

    pub fn reach_location(&self, t: usize, loc: &Location) -> Reach {
        match loc.space {
            Space::Global => Reach::Global,
            Space::Shared(owner) => self.reach_cta(t, owner),
            Space::Tmem(_) => Reach::Tmem,
        }
    }
}

impl<'a> Ctx<'a> {
    /// The location `name` used by operand `k` of instruction `i`, reporting a missing or
    /// wrong-kind name.
    pub fn resolve_location(&mut self, t: usize, i: usize, k: usize, name: &str) -> Option<&'a Location> {
        if let Some(loc) = self.location(name) {
            return Some(loc);
        }
        let span = self.operand(t, i, k);
        if self.mbarrier(name).is_some() {
            self.push(
                Diagnostic::error("F0309", format!("`{name}` is an mbarrier, not a data location"))
                    .with_primary(span, "mbarrier used as data")
                    .with_note(
                        "ref §4.2: a non-mbarrier access to an initialised mbarrier object is undefined behaviour",
                    ),
            );
        } else {
            let help = crate::diag::closest(name, self.s.locations.iter().map(|l| l.name.as_str()))
                .map(|n| format!("did you mean `{n}`?"));
            self.push(
                Diagnostic::error("F0308", format!("unknown location `{name}`"))
                    .with_primary(span, "not declared")
                    .with_help(help.unwrap_or_else(|| format!("declare it, e.g. `global {name} = 0`"))),
            );
        }
        None
    }

    /// The mbarrier `name` used by operand `k` of instruction `i`.
    pub fn resolve_mbarrier(&mut self, t: usize, i: usize, k: usize, name: &str) -> Option<&'a Mbarrier> {
        if let Some(bar) = self.mbarrier(name) {
            return Some(bar);
        }
        let span = self.operand(t, i, k);
        if self.location(name).is_some() {
            self.push(
                Diagnostic::error("F0309", format!("`{name}` is a data location, not an mbarrier"))
                    .with_primary(span, "expected an mbarrier"),
            );
        } else {
            let help = crate::diag::closest(name, self.s.mbarriers.iter().map(|m| m.name.as_str()))
                .map(|n| format!("did you mean `{n}`?"));
            self.push(
                Diagnostic::error("F0308", format!("unknown mbarrier `{name}`"))
                    .with_primary(span, "not declared")
                    .with_help(help.unwrap_or_else(|| format!("declare it, e.g. `mbarrier {name} @A count 1`"))),
            );
        }
        None
    }
}
