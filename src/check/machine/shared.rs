//! Copy-on-write sharing for the parts of a machine state.
//!
//! The explorer clones the whole machine for every transition, but a step changes one
//! agent and a cell or two: the rest stays shared between parent and child states, and is
//! copied only when a step writes to it. Each part caches its fingerprint, which a write
//! clears, so hashing a state rehashes only the parts a step changed.

use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::rc::Rc;

use super::fingerprint::fingerprint_of;

/// A value shared between machine states until one of them changes it.
///
/// Counted with `Rc`, not `Arc`: a transition clones and drops every part handle of a
/// state, and atomic counts cost wall time there that instruction counts do not show.
/// Machine states therefore stay on the thread that made them (the explorer is
/// single-threaded).
#[derive(Clone, Debug, Default)]
pub struct Shared<T>(Rc<Part<T>>);

#[derive(Debug, Default)]
struct Part<T> {
    value: T,
    fingerprint: FingerprintCell,
    renamed: RenamedCell,
}

impl<T: Clone> Clone for Part<T> {
    /// A copy is about to be changed: it starts without a fingerprint.
    fn clone(&self) -> Part<T> {
        Part { value: self.value.clone(), fingerprint: FingerprintCell::default(), renamed: RenamedCell::default() }
    }
}

/// A fingerprint computed at most once per part (a `OnceCell` cost more than the hashing
/// it saved). A low half of 0 means "not yet"; a fingerprint whose low half is 0 is never
/// kept, only recomputed (one part in 2^64).
#[derive(Debug, Default)]
struct FingerprintCell {
    low: Cell<u64>,
    high: Cell<u64>,
}

impl FingerprintCell {
    fn get_or_init(&self, compute: impl FnOnce() -> u128) -> u128 {
        let low = self.low.get();
        if low != 0 {
            return u128::from(low) | u128::from(self.high.get()) << 64;
        }
        let fingerprint = compute();
        self.high.set((fingerprint >> 64) as u64);
        self.low.set(fingerprint as u64);
        fingerprint
    }
}

/// The fingerprint of the part's value under one renaming of async agents
/// ([`super::relabel`]), keyed by the low half of that renaming's fingerprint (0: none
/// yet). A state and its successors are mostly keyed under one renaming, and a part a
/// step did not change is shared between them, so it is renamed once.
#[derive(Debug, Default)]
struct RenamedCell {
    renaming: Cell<u64>,
    low: Cell<u64>,
    high: Cell<u64>,
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Rc::new(Part { value, fingerprint: FingerprintCell::default(), renamed: RenamedCell::default() }))
    }
}

impl<T> Shared<T> {
    /// Bytes of one part's allocation: the value, its cached fingerprint and the counts.
    pub const ALLOCATION: usize = std::mem::size_of::<Part<T>>() + 2 * std::mem::size_of::<usize>();

    /// No other state holds this part: dropping this one frees it.
    pub fn is_unique(&self) -> bool {
        Rc::strong_count(&self.0) == 1
    }
}

impl<T> From<T> for Shared<T> {
    fn from(value: T) -> Shared<T> {
        Shared::new(value)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.value
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    /// Unshares (copies) the value if another state still holds it; forgets the cached
    /// fingerprint, since the caller may change the value.
    fn deref_mut(&mut self) -> &mut T {
        let part = Rc::make_mut(&mut self.0);
        part.fingerprint.low.set(0);
        part.renamed.renaming.set(0);
        &mut part.value
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || self.0.value == other.0.value
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T: Hash> Shared<T> {
    /// The value's fingerprint, computed once per part.
    pub fn fingerprint(&self) -> u128 {
        self.0.fingerprint.get_or_init(|| fingerprint_of(&self.0.value))
    }
}

impl<T> Shared<T> {
    /// The value's fingerprint under the renaming whose fingerprint is `renaming`, from
    /// `rename` (called once per part and renaming, unless another renaming came between).
    pub fn renamed_fingerprint(&self, renaming: u128, rename: impl FnOnce(&T) -> u128) -> u128 {
        let cell = &self.0.renamed;
        let tag = renaming as u64;
        if tag != 0 && cell.renaming.get() == tag {
            return u128::from(cell.low.get()) | u128::from(cell.high.get()) << 64;
        }
        let fingerprint = rename(&self.0.value);
        cell.low.set(fingerprint as u64);
        cell.high.set((fingerprint >> 64) as u64);
        cell.renaming.set(tag);
        fingerprint
    }
}

impl<T: Hash> Hash for Shared<T> {
    /// Feeds the value's cached fingerprint: equal values give equal fingerprints.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.fingerprint());
    }
}
