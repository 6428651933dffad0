//! Machine edits: add, place and remove clusters, CTAs, threads, locations and mbarriers.
//! Items are named as in the text; new ones get fresh readable names. A removal refuses
//! while something still uses the item and says who. Placements that make instructions
//! illegal (a `.shared::cta` access across CTAs) are allowed: the verifier flags them.

use super::error::EditError;
use super::machine_refs::{fresh, fresh_cta, fresh_memory, numbered, stem};
use super::machine_remove::{drop_implicit_cluster, remove};
use crate::model::{Cluster, Cta, Location, Mbarrier, Scenario, Space, Thread};
use crate::syntax::{is_implicit_cluster, Anchor, Comment, SourceMap};

/// Where a location lives: global memory or the shared memory of the named CTA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Memory {
    Global,
    Shared(String),
}

/// A declaration of the machine, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Cluster(String),
    Cta(String),
    Thread(String),
    Location(String),
    Mbarrier(String),
}

/// One change the machine panel makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MachineEdit {
    /// An empty cluster on GPU 0.
    AddCluster,
    /// A CTA in the named cluster, or in a cluster of its own when `None`.
    AddCta { cluster: Option<String> },
    /// A thread with an empty program.
    AddThread { cta: String },
    /// A location of 4 bytes, initially 0.
    AddLocation { memory: Memory },
    /// An mbarrier already initialised with `count` expected arrivals.
    AddMbarrier { cta: String, count: u32 },
    MoveThread { thread: String, cta: String },
    /// Moves a CTA into the named cluster, or into a cluster of its own when `None`.
    MoveCta { cta: String, cluster: Option<String> },
    /// Moves a location between global and shared memory or to another CTA (tensor
    /// memory moves to the named CTA's tensor memory).
    MoveLocation { location: String, memory: Memory },
    MoveMbarrier { mbarrier: String, cta: String },
    /// Removes an item nothing uses (a CTA or cluster must be empty).
    Remove(Item),
}

/// Applies `edit` to the model; `src` is the text `map` came from (for line numbers).
/// The comments above the first declaration describe the file, so they stay on top
/// when a new or removed cluster changes which declaration prints first.
pub(super) fn apply(s: &mut Scenario, map: &mut SourceMap, src: &str, edit: &MachineEdit) -> Result<(), EditError> {
    let header: Vec<Comment> = match first_printed(s) {
        Some(first) => map.comments.iter().filter(|c| c.anchor == first && !c.trailing).cloned().collect(),
        None => Vec::new(),
    };
    map.comments.retain(|c| !header.contains(c));
    let applied = apply_inner(s, map, src, edit);
    let top = first_printed(s).unwrap_or(Anchor::End);
    let header = header.into_iter().map(|c| Comment { anchor: top, ..c });
    // Leading comments print in map order: the header goes before any the item had.
    map.comments.splice(0..0, header);
    applied
}

/// The declaration the printer writes first (a declared cluster, else the first CTA, …).
fn first_printed(s: &Scenario) -> Option<Anchor> {
    let declared = (0..s.clusters.len()).find(|&i| !is_implicit_cluster(s, i));
    declared.map(Anchor::Cluster).or_else(|| {
        [
            (!s.ctas.is_empty()).then_some(Anchor::Cta(0)),
            (!s.locations.is_empty()).then_some(Anchor::Location(0)),
            (!s.mbarriers.is_empty()).then_some(Anchor::Mbarrier(0)),
            (!s.threads.is_empty()).then_some(Anchor::Thread(0)),
        ]
        .into_iter()
        .flatten()
        .next()
    })
}

fn apply_inner(s: &mut Scenario, map: &mut SourceMap, src: &str, edit: &MachineEdit) -> Result<(), EditError> {
    match edit {
        MachineEdit::AddCluster => {
            let last = s.clusters.iter().rev().find(|c| s.cta(&c.name).is_none()).map(|c| c.name.as_str());
            let name = fresh(stem(last, "C"), |n| s.clusters.iter().any(|c| c.name == n) || s.cta(n).is_some());
            s.clusters.push(Cluster { name, gpu: 0 });
        }
        MachineEdit::AddCta { cluster } => {
            let name = fresh_cta(s);
            let cluster = match cluster {
                Some(c) => cluster_index(s, c)?,
                None => {
                    s.clusters.push(Cluster { name: name.clone(), gpu: 0 });
                    s.clusters.len() - 1
                }
            };
            s.ctas.push(Cta { name, cluster });
        }
        MachineEdit::AddThread { cta } => {
            let cta = cta_index(s, cta)?;
            let last = s.threads.last().map(|t| t.name.as_str()).filter(|n| n.ends_with(|c: char| c.is_ascii_digit()));
            let name = numbered(stem(last, "t"), s.threads.len(), |n| s.thread(n).is_some());
            s.threads.push(Thread { name, cta, lanes: 32, program: Vec::new() });
        }
        MachineEdit::AddLocation { memory } => {
            let space = match memory {
                Memory::Global => Space::Global,
                Memory::Shared(cta) => Space::Shared(cta_index(s, cta)?),
            };
            let last = s.locations.iter().rev().find(|l| l.alias.is_none()).map(|l| l.name.as_str());
            let name = fresh_memory(s, stem(last, "x"));
            s.locations.push(Location { name, space, size: 4, init: 0, alias: None });
        }
        MachineEdit::AddMbarrier { cta, count } => {
            if *count == 0 {
                return Err(EditError::ZeroArrivals);
            }
            let cta = cta_index(s, cta)?;
            let name = fresh_memory(s, stem(s.mbarriers.last().map(|m| m.name.as_str()), "bar"));
            s.mbarriers.push(Mbarrier { name, cta, count: Some(*count) });
        }
        MachineEdit::MoveThread { thread, cta } => {
            let to = cta_index(s, cta)?;
            let t = s.thread(thread).and_then(|t| s.threads.get_mut(t)).ok_or_else(|| EditError::Unknown(Item::Thread(thread.clone())))?;
            if t.cta == to {
                return Err(EditError::AlreadyIn { name: thread.clone(), place: cta.clone() });
            }
            t.cta = to;
        }
        MachineEdit::MoveCta { cta, cluster } => move_cta(s, map, cta, cluster.as_deref())?,
        MachineEdit::MoveLocation { location, memory } => move_location(s, location, memory)?,
        MachineEdit::MoveMbarrier { mbarrier, cta } => {
            let to = cta_index(s, cta)?;
            let m = s.mbarrier(mbarrier).and_then(|m| s.mbarriers.get_mut(m)).ok_or_else(|| EditError::Unknown(Item::Mbarrier(mbarrier.clone())))?;
            if m.cta == to {
                return Err(EditError::AlreadyIn { name: mbarrier.clone(), place: cta.clone() });
            }
            m.cta = to;
        }
        MachineEdit::Remove(item) => remove(s, map, src, item)?,
    }
    Ok(())
}

fn move_cta(s: &mut Scenario, map: &mut SourceMap, name: &str, cluster: Option<&str>) -> Result<(), EditError> {
    let cta = cta_index(s, name)?;
    let from = s.cluster_of(cta).ok_or_else(|| EditError::Unknown(Item::Cta(name.to_string())))?;
    let to = match cluster {
        Some(c) => cluster_index(s, c)?,
        None if is_own_cluster(s, cta, from) => return Err(EditError::AlreadyOwnCluster { cta: name.to_string() }),
        None if s.clusters.iter().any(|c| c.name == name) => {
            return Err(EditError::ClusterNameTaken { cta: name.to_string() })
        }
        None => {
            s.clusters.push(Cluster { name: name.to_string(), gpu: 0 });
            s.clusters.len() - 1
        }
    };
    if to == from {
        return Err(EditError::AlreadyIn { name: name.to_string(), place: cluster.unwrap_or(name).to_string() });
    }
    if let Some(c) = s.ctas.get_mut(cta) {
        c.cluster = to;
    }
    drop_implicit_cluster(s, map, from, name);
    Ok(())
}

/// Whether CTA `cta` sits alone in cluster `cluster` named after it (printed `cta A`).
fn is_own_cluster(s: &Scenario, cta: usize, cluster: usize) -> bool {
    let alone = s.ctas.iter().enumerate().all(|(i, c)| c.cluster != cluster || i == cta);
    alone && s.clusters.get(cluster).is_some_and(|c| s.ctas.get(cta).is_some_and(|t| t.name == c.name))
}

fn move_location(s: &mut Scenario, name: &str, memory: &Memory) -> Result<(), EditError> {
    let unknown = || EditError::Unknown(Item::Location(name.to_string()));
    let location = s.location(name).and_then(|at| s.locations.get(at)).ok_or_else(unknown)?;
    if let Some(alias) = &location.alias {
        return Err(EditError::AliasMoved { alias: name.to_string(), target: alias.target.clone() });
    }
    let space = match (memory, location.space) {
        (Memory::Global, Space::Tmem(_)) => {
            return Err(EditError::TmemToGlobal { location: name.to_string() })
        }
        (Memory::Global, _) => Space::Global,
        (Memory::Shared(cta), Space::Tmem(_)) => Space::Tmem(cta_index(s, cta)?),
        (Memory::Shared(cta), _) => Space::Shared(cta_index(s, cta)?),
    };
    if space == location.space {
        return Err(EditError::AlreadyThere { location: name.to_string() });
    }
    // An alias names the same memory, so it moves along.
    for l in &mut s.locations {
        if l.name == name || l.alias.as_ref().is_some_and(|a| a.target == name) {
            l.space = space;
        }
    }
    Ok(())
}

pub(super) fn cta_index(s: &Scenario, name: &str) -> Result<usize, EditError> {
    s.cta(name).ok_or_else(|| EditError::Unknown(Item::Cta(name.to_string())))
}

pub(super) fn cluster_index(s: &Scenario, name: &str) -> Result<usize, EditError> {
    s.clusters.iter().position(|c| c.name == name).ok_or_else(|| EditError::Unknown(Item::Cluster(name.to_string())))
}
