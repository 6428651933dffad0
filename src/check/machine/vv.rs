//! Version vectors (vector clocks) over agents, as in loom's `rt/vv.rs`.
//!
//! Agents bump their own component only when a snapshot of their knowledge leaves them
//! (a release, a barrier arrival, a proxy fence): events between two bumps share an epoch,
//! which keeps spin loops from growing the state.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// Provenance that does not make a state different (ignored by `Eq` and `Hash`).
#[derive(Clone, Debug, Default)]
pub struct Meta<T>(pub T);

impl<T> PartialEq for Meta<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<T> Eq for Meta<T> {}
impl<T> Hash for Meta<T> {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// An event is named by its agent and that agent's epoch when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    pub agent: u32,
    pub epoch: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VersionVec {
    /// Trailing zeros are trimmed so equal clocks compare and hash equal.
    clock: Vec<u32>,
}

impl VersionVec {
    /// Heap bytes of the clock (for the explorer's memory estimate).
    pub fn heap_bytes(&self) -> usize {
        self.clock.capacity() * std::mem::size_of::<u32>()
    }

    /// One past the highest agent this clock has an event of.
    pub fn width(&self) -> usize {
        self.clock.len()
    }

    /// `(agent, epoch)` for every agent this clock has an event of.
    pub fn entries(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.clock.iter().enumerate().filter(|(_, e)| **e != 0).map(|(agent, e)| (agent as u32, *e))
    }

    /// This clock with each agent's entry moved to `new_id(agent)` (a renaming of agents),
    /// built in one allocation.
    pub fn renamed(&self, new_id: impl Fn(u32) -> u32) -> VersionVec {
        let width = self.entries().map(|(agent, _)| new_id(agent) as usize + 1).max().unwrap_or(0);
        let mut clock = vec![0; width];
        for (agent, epoch) in self.entries() {
            if let Some(slot) = clock.get_mut(new_id(agent) as usize) {
                *slot = epoch;
            }
        }
        VersionVec { clock }
    }

    pub fn get(&self, agent: u32) -> u32 {
        self.clock.get(agent as usize).copied().unwrap_or(0)
    }

    pub fn set(&mut self, agent: u32, value: u32) {
        let i = agent as usize;
        if self.clock.len() <= i {
            self.clock.resize(i + 1, 0);
        }
        if let Some(slot) = self.clock.get_mut(i) {
            *slot = value;
        }
        self.trim();
    }

    /// Whether `event` happened before (or is) the point this clock describes.
    pub fn contains(&self, event: EventId) -> bool {
        event.epoch <= self.get(event.agent)
    }

    pub fn join(&mut self, other: &VersionVec) {
        if self.clock.len() < other.clock.len() {
            self.clock.resize(other.clock.len(), 0);
        }
        for (mine, theirs) in self.clock.iter_mut().zip(&other.clock) {
            *mine = (*mine).max(*theirs);
        }
        self.trim();
    }

    fn trim(&mut self) {
        while self.clock.last() == Some(&0) {
            self.clock.pop();
        }
    }
}

impl PartialOrd for VersionVec {
    /// `None` when the clocks are concurrent.
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        let len = self.clock.len().max(other.clock.len());
        let mut ord = Ordering::Equal;
        for i in 0..len as u32 {
            match (self.get(i).cmp(&other.get(i)), ord) {
                (Ordering::Equal, _) => {}
                (c, Ordering::Equal) => ord = c,
                (c, o) if c != o => return None,
                _ => {}
            }
        }
        Some(ord)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vv(values: &[u32]) -> VersionVec {
        let mut v = VersionVec::default();
        for (i, x) in values.iter().enumerate() {
            v.set(i as u32, *x);
        }
        v
    }

    #[test]
    fn concurrent_clocks_are_unordered() {
        assert_eq!(vv(&[1, 0]).partial_cmp(&vv(&[0, 1])), None);
        assert_eq!(vv(&[1, 1]).partial_cmp(&vv(&[0, 1])), Some(Ordering::Greater));
        assert_eq!(vv(&[1, 0, 0]), vv(&[1]));
    }

    #[test]
    fn join_takes_the_maximum() {
        let mut a = vv(&[3, 0, 1]);
        a.join(&vv(&[1, 2]));
        assert_eq!(a, vv(&[3, 2, 1]));
        assert!(a.contains(EventId { agent: 1, epoch: 2 }));
        assert!(!a.contains(EventId { agent: 1, epoch: 3 }));
    }

    #[test]
    fn renaming_moves_entries_and_trims() {
        // Agents 1 and 3 swap; agent 2's zero entry stays out of the clock.
        let swap = |a: u32| match a {
            1 => 3,
            3 => 1,
            other => other,
        };
        assert_eq!(vv(&[5, 0, 0, 7]).renamed(swap), vv(&[5, 7]));
        assert_eq!(vv(&[5, 2]).renamed(swap), vv(&[5, 0, 0, 2]));
        assert_eq!(VersionVec::default().renamed(swap), VersionVec::default());
    }
}
