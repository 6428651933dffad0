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

impl<T> Part<T> {
    /// A part with nothing cached yet.
    fn fresh(value: T) -> Part<T> {
        Part { value, fingerprint: FingerprintCell::default(), renamed: RenamedCell::default() }
    }
}

impl<T: Clone> Clone for Part<T> {
    /// A copy is about to be changed: it starts without a fingerprint.
    fn clone(&self) -> Part<T> {
        Part::fresh(self.value.clone())
    }
}

/// A `u128` in two `u64` cells: a `Cell<u128>` would align every part to 16 bytes.
#[derive(Debug, Default)]
struct Halves {
    low: Cell<u64>,
    high: Cell<u64>,
}

impl Halves {
    fn get(&self) -> u128 {
        u128::from(self.low.get()) | u128::from(self.high.get()) << 64
    }

    fn set(&self, value: u128) {
        self.low.set(value as u64);
        self.high.set((value >> 64) as u64);
    }
}

/// A fingerprint computed at most once per part (a `OnceCell` cost more than the hashing
/// it saved). A low half of 0 means "not yet"; a fingerprint whose low half is 0 is never
/// kept, only recomputed (one part in 2^64).
#[derive(Debug, Default)]
struct FingerprintCell(Halves);

impl FingerprintCell {
    fn get_or_init(&self, compute: impl FnOnce() -> u128) -> u128 {
        if self.0.low.get() != 0 {
            return self.0.get();
        }
        let fingerprint = compute();
        self.0.set(fingerprint);
        fingerprint
    }

    fn forget(&self) {
        self.0.low.set(0);
    }
}

/// The fingerprint of the part's value under one renaming of async agents
/// ([`super::relabel`]), keyed by the low half of that renaming's fingerprint (0: none
/// yet). A state and its successors are mostly keyed under one renaming, and a part a
/// step did not change is shared between them, so it is renamed once.
#[derive(Debug, Default)]
struct RenamedCell {
    renaming: Cell<u64>,
    fingerprint: Halves,
}

impl RenamedCell {
    fn get_or_init(&self, renaming: u128, compute: impl FnOnce() -> u128) -> u128 {
        let tag = renaming as u64;
        if tag != 0 && self.renaming.get() == tag {
            return self.fingerprint.get();
        }
        let fingerprint = compute();
        self.fingerprint.set(fingerprint);
        self.renaming.set(tag);
        fingerprint
    }

    fn forget(&self) {
        self.renaming.set(0);
    }
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Rc::new(Part::fresh(value)))
    }
}

impl<T> Shared<T> {
    /// Bytes of one part's allocation: the value, its cached fingerprint and the counts.
    pub const ALLOCATION: usize = std::mem::size_of::<Part<T>>() + 2 * std::mem::size_of::<usize>();

    /// No other state holds this part: dropping this one frees it.
    pub fn is_unique(&self) -> bool {
        Rc::strong_count(&self.0) == 1
    }

    /// Where the part lives: equal for handles on one part while any of them is alive.
    pub fn address(&self) -> usize {
        Rc::as_ptr(&self.0) as usize
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
        part.fingerprint.forget();
        part.renamed.forget();
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
        self.0.renamed.get_or_init(renaming, || rename(&self.0.value))
    }
}

impl<T: Hash> Hash for Shared<T> {
    /// Feeds the value's cached fingerprint: equal values give equal fingerprints.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.fingerprint());
    }
}
