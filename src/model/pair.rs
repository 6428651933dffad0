//! CTA pairs (reference §8; PTX `cta_group::2`): the CTAs of a cluster pair up by rank,
//! 0 with 1, 2 with 3 and so on; the even rank is the pair's leader. A rank is the CTA's
//! position among its cluster's CTAs in declaration order.

use super::Scenario;

impl Scenario {
    /// The CTA's rank in its cluster.
    pub fn cta_rank(&self, cta: usize) -> Option<usize> {
        let cluster = self.ctas.get(cta)?.cluster;
        Some(self.ctas.iter().take(cta).filter(|c| c.cluster == cluster).count())
    }

    /// The other CTA of `cta`'s pair: rank `r ^ 1` of the same cluster, if the cluster has it.
    pub fn pair_peer(&self, cta: usize) -> Option<usize> {
        pair_peer(cta, &self.ctas.iter().map(|c| c.cluster).collect::<Vec<_>>())
    }

    /// Whether `cta` leads its pair (even rank).
    pub fn is_pair_leader(&self, cta: usize) -> bool {
        self.cta_rank(cta).is_some_and(|r| r % 2 == 0)
    }
}

/// [`Scenario::pair_peer`] over the cluster index of each CTA, for callers that keep only
/// that (the checker's layout).
pub fn pair_peer(cta: usize, cta_cluster: &[usize]) -> Option<usize> {
    let cluster = *cta_cluster.get(cta)?;
    let members: Vec<usize> = (0..cta_cluster.len()).filter(|c| cta_cluster.get(*c) == Some(&cluster)).collect();
    let rank = members.iter().position(|c| *c == cta)?;
    members.get(rank ^ 1).copied()
}

#[cfg(test)]
mod tests {
    use crate::syntax::parse;

    #[test]
    fn ctas_pair_by_rank_within_their_cluster() {
        let src = "cluster C\ncluster D\ncta a in C\ncta x in D\ncta b in C\ncta c in C\ncta y in D\n";
        let s = parse(src).scenario;
        let idx = |n: &str| s.cta(n).unwrap();
        assert_eq!(s.pair_peer(idx("a")), Some(idx("b")));
        assert_eq!(s.pair_peer(idx("b")), Some(idx("a")));
        assert_eq!(s.pair_peer(idx("x")), Some(idx("y")));
        assert_eq!(s.pair_peer(idx("c")), None, "rank 2 of a 3-CTA cluster has no partner");
        assert!(s.is_pair_leader(idx("a")) && !s.is_pair_leader(idx("b")) && s.is_pair_leader(idx("c")));
    }
}
