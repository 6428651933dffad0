//! 128-bit fingerprints: the explorer keeps these instead of whole states (see
//! [`super::relabel`] for the state key built from them).
//!
//! One pass feeds every word to two Fx-style multiply-rotate lanes with different seeds
//! and multipliers; collisions are negligible at the state caps we use. Shared parts of a
//! state (see [`super::shared`]) cache their own fingerprint, so a step rehashes only what
//! it changed.

use std::hash::{Hash, Hasher};

pub struct Fingerprinter {
    a: u64,
    b: u64,
}

impl Fingerprinter {
    pub fn new() -> Fingerprinter {
        Fingerprinter { a: 0, b: 0x9e37_79b9_7f4a_7c15 }
    }

    pub fn finish128(&self) -> u128 {
        (u128::from(self.a) << 64) | u128::from(self.b)
    }
}

impl Hasher for Fingerprinter {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut whole = [0u8; 8];
            whole.copy_from_slice(word);
            self.write_u64(u64::from_le_bytes(whole));
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            let mut word = [0u8; 8];
            word[..tail.len()].copy_from_slice(tail);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    /// Two words, not sixteen bytes through `write`: state keys are mostly the parts'
    /// cached fingerprints.
    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.a = (self.a.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        self.b = (self.b.rotate_left(7) ^ n).wrapping_mul(0x9e_37_79_b9_7f_4a_7c_15 | 1);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.a
    }
}

/// Fingerprint of `value` alone.
pub fn fingerprint_of<T: Hash + ?Sized>(value: &T) -> u128 {
    let mut f = Fingerprinter::new();
    value.hash(&mut f);
    f.finish128()
}


/// Hashes a fingerprint (or a tuple of them) by folding its words: they are already
/// uniformly mixed, so a table keyed by fingerprints needs no hashing of its own.
#[derive(Default)]
pub struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u128(&mut self, n: u128) {
        self.0 = self.0.rotate_left(17) ^ (n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// `HashMap` hashing for fingerprint keys.
pub type FingerprintHashing = std::hash::BuildHasherDefault<FingerprintHasher>;
