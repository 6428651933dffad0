//! Relations over at most [`MAX_EVENTS`] events as rows of bits (`u128`): the algebra the
//! cat model is written in (`;`, `|`, `&`, `\`, `^-1`, `+`, `[S]`).

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

    /// `self+` (Warshall).
    pub fn plus(&self) -> Rel {
        let mut r = self.clone();
        for k in 0..r.len() {
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

    pub fn is_acyclic(&self) -> bool {
        self.plus().is_irreflexive()
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
