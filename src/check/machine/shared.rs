//! Copy-on-write sharing for the parts of a machine state.
//!
//! The explorer clones the whole machine for every transition, but a step changes one
//! agent and a cell or two: the rest stays shared between parent and child states, and is
//! copied only when a step writes to it. Each part caches its fingerprint, which a write
//! clears, so hashing a state rehashes only the parts a step changed.

use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::fingerprint::fingerprint_of;

/// A value shared between machine states until one of them changes it.
#[derive(Clone, Debug, Default)]
pub struct Shared<T>(Arc<Part<T>>);

#[derive(Debug, Default)]
struct Part<T> {
    value: T,
    fingerprint: FingerprintCell,
}

impl<T: Clone> Clone for Part<T> {
    /// A copy is about to be changed: it starts without a fingerprint.
    fn clone(&self) -> Part<T> {
        Part { value: self.value.clone(), fingerprint: FingerprintCell::default() }
    }
}

/// A fingerprint computed at most once per part (a `OnceLock` cost more than the hashing
/// it saved). A low half of 0 means "not yet": the high half is stored first and the low
/// one releases it, so a reader that sees a low half also sees its high half. Two threads
/// may both compute it, but they compute the same value. A fingerprint whose low half is
/// 0 is never kept, only recomputed (one part in 2^64).
#[derive(Debug, Default)]
struct FingerprintCell {
    low: AtomicU64,
    high: AtomicU64,
}

impl FingerprintCell {
    fn get_or_init(&self, compute: impl FnOnce() -> u128) -> u128 {
        let low = self.low.load(Ordering::Acquire);
        if low != 0 {
            return u128::from(low) | u128::from(self.high.load(Ordering::Relaxed)) << 64;
        }
        let fingerprint = compute();
        self.high.store((fingerprint >> 64) as u64, Ordering::Relaxed);
        self.low.store(fingerprint as u64, Ordering::Release);
        fingerprint
    }
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(Part { value, fingerprint: FingerprintCell::default() }))
    }
}

impl<T> Shared<T> {
    /// Bytes of one part's allocation: the value, its cached fingerprint and the counts.
    pub const ALLOCATION: usize = std::mem::size_of::<Part<T>>() + 2 * std::mem::size_of::<usize>();

    /// No other state holds this part: dropping this one frees it.
    pub fn is_unique(&self) -> bool {
        Arc::strong_count(&self.0) == 1
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
        let part = Arc::make_mut(&mut self.0);
        *part.fingerprint.low.get_mut() = 0;
        &mut part.value
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.value == other.0.value
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T: Hash> Shared<T> {
    /// The value's fingerprint, computed once per part.
    pub fn fingerprint(&self) -> u128 {
        self.0.fingerprint.get_or_init(|| fingerprint_of(&self.0.value))
    }
}

impl<T: Hash> Hash for Shared<T> {
    /// Feeds the value's cached fingerprint: equal values give equal fingerprints.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.fingerprint());
    }
}
