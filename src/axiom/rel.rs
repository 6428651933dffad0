//! Relations over at most [`MAX_EVENTS`] events as rows of bits (`u128`): the algebra the
//! cat model is written in (`;`, `|`, `&`, `\`, `^-1`, `+`, `[S]`).

use std::hash::{BuildHasherDefault, Hasher};

/// Most events one execution may hold; larger scenarios are outside the engine's reach.
pub const MAX_EVENTS: usize = 128;

/// A set of events.
pub type Set = u128;

pub fn bit(i: usize) -> Set {
    1u128 << i
}

/// The indices set in `s`, lowest first.
pub fn members(mut s: Set) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if s == 0 {
            return None;
        }
        let i = s.trailing_zeros() as usize;
        s &= s - 1;
        Some(i)
    })
}

/// FxHash's multiply-and-rotate over whole words, for maps keyed by bitsets and traces
/// (`Static::cause`'s memo, the traces already seen): SipHash took more time there than
/// the work the maps save.
#[derive(Default)]
pub struct WordHasher(u64);

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u128(&mut self, word: u128) {
        self.add(word as u64);
        self.add((word >> 64) as u64);
    }

    fn write_usize(&mut self, word: usize) {
        self.add(word as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map's hasher builder of [`WordHasher`]s.
pub type Words = BuildHasherDefault<WordHasher>;

/// A binary relation: `rows[i]` holds every `j` with `(i, j)` in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel {
    rows: Vec<Set>,
}

impl Rel {
    pub fn empty(n: usize) -> Rel {
        Rel { rows: vec![0; n] }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    fn all(&self) -> Set {
        match self.rows.len() {
            MAX_EVENTS => Set::MAX,
            n => bit(n) - 1,
        }
    }

    /// `[s]`: the identity on `s`.
    pub fn id_on(n: usize, s: Set) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(s) {
            r.rows[i] = bit(i);
        }
        r
    }

    /// `s * t`.
    pub fn product(n: usize, s: Set, t: Set) -> Rel {
        let mut r = Rel::empty(n);
        for i in members(s) {
            r.rows[i] = t;
        }
        r
    }

    /// The pairs `(i, j)` for which `f` holds.
    pub fn from_fn(n: usize, mut f: impl FnMut(usize, usize) -> bool) -> Rel {
        let mut r = Rel::empty(n);
        for i in 0..n {
            for j in 0..n {
                if f(i, j) {
                    r.rows[i] |= bit(j);
                }
            }
        }
        r
    }

    pub fn add(&mut self, i: usize, j: usize) {
        self.rows[i] |= bit(j);
    }

    pub fn set_row(&mut self, i: usize, row: Set) {
        self.rows[i] = row;
    }

    pub fn remove(&mut self, i: usize, j: usize) {
        self.rows[i] &= !bit(j);
    }

    pub fn has(&self, i: usize, j: usize) -> bool {
        self.rows[i] & bit(j) != 0
    }

    /// Every `j` with `(i, j)` in the relation.
    pub fn row(&self, i: usize) -> Set {
        self.rows[i]
    }

    /// The lowest `j` with `(i, j)` in the relation.
    pub fn row_of(&self, i: usize) -> Option<usize> {
        members(self.rows[i]).next()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| *r == 0)
    }

    /// Every pair, as `(from, to)`.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows.iter().enumerate().flat_map(|(i, r)| members(*r).map(move |j| (i, j)))
    }

    /// `self := self | o`, in place.
    pub fn union_with(&mut self, o: &Rel) {
        for (a, b) in self.rows.iter_mut().zip(&o.rows) {
            *a |= b;
        }
    }

    /// `self := self & o`, in place.
    pub fn inter_with(&mut self, o: &Rel) {
        for (a, b) in self.rows.iter_mut().zip(&o.rows) {
            *a &= b;
        }
    }

    pub fn union(&self, o: &Rel) -> Rel {
        Rel { rows: self.rows.iter().zip(&o.rows).map(|(a, b)| a | b).collect() }
    }

    pub fn inter(&self, o: &Rel) -> Rel {
        Rel { rows: self.rows.iter().zip(&o.rows).map(|(a, b)| a & b).collect() }
    }

    pub fn minus(&self, o: &Rel) -> Rel {
        Rel { rows: self.rows.iter().zip(&o.rows).map(|(a, b)| a & !b).collect() }
    }

    pub fn inverse(&self) -> Rel {
        let mut r = Rel::empty(self.len());
        for (i, j) in self.pairs() {
            r.rows[j] |= bit(i);
        }
        r
    }

    /// `self ; o`.
    pub fn seq(&self, o: &Rel) -> Rel {
        Rel {
            rows: self
                .rows
                .iter()
                .map(|row| members(*row).fold(0, |acc, k| acc | o.rows[k]))
                .collect(),
        }
    }

    /// `[s] ; self ; [t]`.
    pub fn restrict(&self, s: Set, t: Set) -> Rel {
        Rel {
            rows: self
                .rows
                .iter()
                .enumerate()
                .map(|(i, row)| if s & bit(i) != 0 { row & t } else { 0 })
                .collect(),
        }
    }

    /// `self?` (reflexive closure over every event).
    pub fn opt(&self) -> Rel {
        let mut r = self.clone();
        for (i, row) in r.rows.iter_mut().enumerate() {
            *row |= bit(i);
        }
        r
    }

    /// `self \ id`.
    pub fn irreflexive_part(&self) -> Rel {
        let mut r = self.clone();
        for (i, row) in r.rows.iter_mut().enumerate() {
            *row &= !bit(i);
        }
        r
    }

    /// `self+` (Warshall). Only events with both a predecessor and a successor can lie
    /// between two others: a row never gains a bit no row had, and an empty row stays empty.
    pub fn plus(&self) -> Rel {
        let mut r = self.clone();
        let targets = self.rows.iter().fold(0, |acc, row| acc | row);
        for k in members(targets).filter(|&k| self.rows[k] != 0) {
            let via = r.rows[k];
            let kb = bit(k);
            for row in r.rows.iter_mut() {
                if *row & kb != 0 {
                    *row |= via;
                }
            }
        }
        r
    }

    pub fn is_irreflexive(&self) -> bool {
        self.rows.iter().enumerate().all(|(i, row)| row & bit(i) == 0)
    }

    /// Whether a path of one or more edges of `self | o` leads from `from` to `to`.
    pub fn union_reaches(&self, o: &Rel, from: usize, to: usize) -> bool {
        let mut seen = 0;
        let mut frontier = bit(from);
        while frontier != 0 {
            let next = members(frontier).fold(0, |acc, i| acc | self.rows[i] | o.rows[i]);
            if next & bit(to) != 0 {
                return true;
            }
            seen |= frontier;
            frontier = next & !seen;
        }
        false
    }

    /// No cycle: peels off events with no successor left until none remain, or none can
    /// go (the rest hold a cycle). Highest index first, so a program-order chain goes in
    /// one pass.
    pub fn is_acyclic(&self) -> bool {
        let mut left = self.all();
        loop {
            let before = left;
            for (i, row) in self.rows.iter().enumerate().rev() {
                if left & bit(i) != 0 && row & left == 0 {
                    left &= !bit(i);
                }
            }
            if left == 0 {
                return true;
            }
            if left == before {
                return false;
            }
        }
    }

    /// The complement's "everything but" helper: `(_ * _) \ (s * t)`.
    pub fn all_but_product(n: usize, s: Set, t: Set) -> Rel {
        let full = Rel::product(n, Rel::empty(n).all(), Rel::empty(n).all());
        full.minus(&Rel::product(n, s, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_cycles() {
        let mut r = Rel::empty(4);
        r.add(0, 1);
        r.add(1, 2);
        assert!(r.plus().has(0, 2));
        assert!(r.is_acyclic());
        r.add(2, 0);
        assert!(!r.is_acyclic());
        assert!(r.plus().has(1, 1));
    }

    #[test]
    fn reachability_through_either_relation() {
        let mut a = Rel::empty(4);
        a.add(0, 1);
        let mut b = Rel::empty(4);
        b.add(1, 2);
        assert!(a.union_reaches(&b, 0, 2));
        assert!(!a.union_reaches(&b, 2, 0));
        assert!(!a.union_reaches(&b, 0, 3));
        b.add(2, 0);
        assert!(a.union_reaches(&b, 0, 0));
    }

    #[test]
    fn sequence_inverse_restrict() {
        let mut a = Rel::empty(3);
        a.add(0, 1);
        let mut b = Rel::empty(3);
        b.add(1, 2);
        assert_eq!(a.seq(&b).pairs().collect::<Vec<_>>(), vec![(0, 2)]);
        assert_eq!(a.inverse().pairs().collect::<Vec<_>>(), vec![(1, 0)]);
        assert!(a.restrict(bit(1), bit(1)).is_empty());
        assert_eq!(Rel::all_but_product(2, bit(0), bit(0)).pairs().count(), 3);
    }

    #[test]
    fn full_width_sets() {
        let r = Rel::product(MAX_EVENTS, bit(127), bit(0) | bit(127));
        assert!(r.has(127, 127));
        assert!(!r.is_irreflexive());
        assert_eq!(members(bit(127) | bit(3)).collect::<Vec<_>>(), vec![3, 127]);
    }
}
