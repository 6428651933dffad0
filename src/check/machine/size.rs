//! An estimate of the heap a machine state holds on its own, for the explorer's memory cap.
//!
//! A part shared with another state ([`super::shared`]) counts only while this state is its
//! last holder, so adding a state's count when it is queued and taking it away when it is
//! dropped keeps a running total of the live states' heap. Elements count at their sizes
//! (capacity) plus the allocator's header per allocation; the explorer adds its own
//! per-state bookkeeping.

use std::mem::{size_of, size_of_val};

use super::knowledge::{Floors, Knowledge, Message};
use super::shared::Shared;
use super::state::{Agent, AgentKind, Cell, Machine, MbarState};
use super::agents::AsyncOp;

/// What the allocator keeps per allocation besides the bytes asked for (glibc's chunk
/// header, rounded).
const ALLOCATION_OVERHEAD: usize = 16;

/// An allocation of `bytes` (none when 0) with the allocator's header.
fn allocation(bytes: usize) -> usize {
    match bytes {
        0 => 0,
        bytes => bytes + ALLOCATION_OVERHEAD,
    }
}

fn vec<T>(v: &Vec<T>) -> usize {
    allocation(v.capacity() * size_of::<T>())
}

/// Bytes of `part`'s value when this holder is its last one, else nothing.
fn unique<T>(part: &Shared<T>, bytes: impl FnOnce(&T) -> usize) -> usize {
    if part.is_unique() {
        Shared::<T>::ALLOCATION + ALLOCATION_OVERHEAD + bytes(part)
    } else {
        0
    }
}

/// The floors' allocation (the slice and the two counts) when this entry is its last
/// holder, else nothing.
fn floors(f: &Floors) -> usize {
    if f.is_unique() {
        allocation(2 * size_of::<usize>() + size_of_val::<[u32]>(f))
    } else {
        0
    }
}

pub(super) fn knowledge(k: &Shared<Knowledge>) -> usize {
    unique(k, |k| {
        vec(&k.entries)
            + k.entries.iter().map(|e| e.vv.heap_bytes() + floors(&e.floor) + vec(&e.bridge.seq)).sum::<usize>()
    })
}

pub(super) fn carried(c: &super::state::Carried) -> usize {
    match c {
        super::state::Carried::Knowledge(k) | super::state::Carried::ReleaseWrite(k, _) => knowledge(k),
        super::state::Carried::Event(_) => 0,
    }
}

fn messages(msgs: &Vec<Message>) -> usize {
    vec(msgs) + msgs.iter().map(|m| knowledge(&m.knowledge)).sum::<usize>()
}

fn agent(a: &Agent) -> usize {
    // The names are shared with the state the list was copied from.
    let regs = unique(&a.regs, |r| allocation(r.heap_bytes()));
    let op = match a.kind {
        AgentKind::Async { .. } => size_of::<AsyncOp>() + ALLOCATION_OVERHEAD,
        AgentKind::Thread(_) => 0,
    };
    let asyncs = unique(&a.asyncs, |asyncs| {
        vec(&asyncs.cp_open)
            + vec(&asyncs.bulk_open)
            + vec(&asyncs.wgmma_open)
            + [&asyncs.cp_groups, &asyncs.bulk_groups, &asyncs.wgmma_groups].iter().map(|g| vec(g) + g.iter().map(vec).sum::<usize>()).sum::<usize>()
            + vec(&asyncs.dirty_regs)
            + asyncs.wgmma_fence.as_ref().map_or(0, knowledge)
    });
    regs + op + knowledge(&a.knowledge) + unique(&a.release_fences, messages) + unique(&a.pending_acquire, messages) + asyncs
}

fn cell(c: &Cell) -> usize {
    vec(&c.writes) + c.writes.iter().map(|w| unique(w, |w| messages(&w.msgs))).sum::<usize>() + vec(&c.reads)
}

fn mbar(b: &MbarState) -> usize {
    messages(&b.current) + messages(&b.completed) + vec(&b.bare) + vec(&b.bare_completed)
}

/// Heap bytes only `m` holds: freed when `m` is dropped.
pub fn own_bytes(m: &Machine) -> usize {
    let parts = vec(&m.agents)
        + m.agents.iter().map(|a| unique(a, agent)).sum::<usize>()
        + vec(&m.cells)
        + m.cells.iter().map(|c| unique(c, cell)).sum::<usize>()
        + vec(&m.mbars)
        + m.mbars.iter().map(|b| unique(b, mbar)).sum::<usize>();
    let barriers = unique(&m.bars, |bars| bars.values().map(|b| size_of::<(usize, u32)>() + size_of_val(b) + vec(&b.arrived) + messages(&b.msgs)).sum::<usize>())
        + unique(&m.cluster_bars, |bars| {
            vec(bars) + bars.iter().map(|b| vec(&b.arrived) + messages(&b.current) + messages(&b.completed) + vec(&b.bare)).sum::<usize>()
        });
    size_of::<Machine>() + parts + barriers + unique(&m.sc_fences, messages) + unique(&m.tmem, vec) + m.trace.0.own_bytes()
}
