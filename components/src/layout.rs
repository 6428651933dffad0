//! Where things go in the machine view: GPU ⊃ cluster ⊃ CTA, with each location, mbarrier
//! and thread in the box that owns it. Pure, so it is tested natively; components draw it.

use fencelab::model::{Instr, Scenario, Space, TcOp};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MachineLayout {
    pub gpus: Vec<GpuBox>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuBox {
    pub index: u32,
    /// Global locations. Global memory is shown with the first GPU.
    pub globals: Vec<String>,
    pub clusters: Vec<ClusterBox>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterBox {
    pub name: String,
    /// A CTA declared without a cluster gets a cluster of one; drawn lightly.
    pub implicit: bool,
    pub ctas: Vec<CtaBox>,
    /// The cluster's CTA pairs (ranks 2k, 2k+1) when the scenario uses `cta_group::2`;
    /// empty otherwise. They hold the same CTAs as `ctas`.
    pub pairs: Vec<PairBox>,
}

/// A `cta_group::2` CTA pair: the leader (even rank), its peer, and the accumulators the
/// pair's MMAs spread over both CTAs' tensor memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairBox {
    pub leader: CtaBox,
    /// `None` for the last CTA of a cluster of odd size (the verifier rejects the pair).
    pub peer: Option<CtaBox>,
    /// `(leader's half, peer's half)` of each accumulator a pair's MMA writes.
    pub accumulators: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtaBox {
    pub name: String,
    pub threads: Vec<String>,
    pub shared: Vec<String>,
    pub tmem: Vec<String>,
    pub mbarriers: Vec<String>,
}

impl MachineLayout {
    pub fn of(scenario: &Scenario) -> MachineLayout {
        let mut gpu_ids: Vec<u32> = scenario.clusters.iter().map(|c| c.gpu).collect();
        fencelab::sort::sort(&mut gpu_ids);
        gpu_ids.dedup();
        if gpu_ids.is_empty() {
            gpu_ids.push(0);
        }
        let globals: Vec<String> = scenario
            .locations
            .iter()
            .filter(|l| l.space == Space::Global)
            .map(|l| l.name.clone())
            .collect();
        let gpus = gpu_ids
            .iter()
            .enumerate()
            .map(|(n, &gpu)| GpuBox {
                index: gpu,
                globals: if n == 0 { globals.clone() } else { Vec::new() },
                clusters: scenario
                    .clusters
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.gpu == gpu)
                    .map(|(ci, c)| cluster_box(scenario, ci, &c.name))
                    .collect(),
            })
            .collect();
        MachineLayout { gpus }
    }
}

fn cluster_box(scenario: &Scenario, cluster: usize, name: &str) -> ClusterBox {
    let ctas: Vec<CtaBox> = scenario
        .ctas
        .iter()
        .enumerate()
        .filter(|(_, cta)| cta.cluster == cluster)
        .map(|(i, cta)| cta_box(scenario, i, &cta.name))
        .collect();
    let implicit = ctas.len() == 1 && ctas.first().is_some_and(|c| c.name == name);
    let pairs = if uses_pairs(scenario) { pair_boxes(scenario, &ctas) } else { Vec::new() };
    ClusterBox { name: name.to_string(), implicit, ctas, pairs }
}

fn uses_pairs(scenario: &Scenario) -> bool {
    scenario.threads.iter().flat_map(|t| &t.program).any(|i| matches!(i, Instr::Tc(op) if op.cta_group() == Some(2)))
}

/// The cluster's CTAs two by two, in rank order, with the accumulator halves of the pair
/// MMAs that the leader's threads issue.
fn pair_boxes(scenario: &Scenario, ctas: &[CtaBox]) -> Vec<PairBox> {
    ctas.chunks(2)
        .filter_map(|two| {
            let leader = two.first()?.clone();
            let accumulators = scenario
                .threads
                .iter()
                .filter(|t| leader.threads.contains(&t.name))
                .flat_map(|t| &t.program)
                .filter_map(|i| match i {
                    Instr::Tc(TcOp::MmaPair { leader, peer }) => Some((leader.d.clone(), peer.d.clone())),
                    _ => None,
                })
                .fold(Vec::new(), |mut acc, halves| {
                    if !acc.contains(&halves) {
                        acc.push(halves);
                    }
                    acc
                });
            Some(PairBox { leader, peer: two.get(1).cloned(), accumulators })
        })
        .collect()
}

fn cta_box(scenario: &Scenario, cta: usize, name: &str) -> CtaBox {
    let in_space = |space: Space| {
        scenario.locations.iter().filter(|l| l.space == space).map(|l| l.name.clone()).collect()
    };
    CtaBox {
        name: name.to_string(),
        threads: scenario.threads.iter().filter(|t| t.cta == cta).map(|t| t.name.clone()).collect(),
        shared: in_space(Space::Shared(cta)),
        tmem: in_space(Space::Tmem(cta)),
        mbarriers: scenario.mbarriers.iter().filter(|m| m.cta == cta).map(|m| m.name.clone()).collect(),
    }
}

/// Width of a gauge fill in percent, clamped to 0..=100 (a bad count never overflows the bar).
pub fn gauge_percent(done: i64, total: i64) -> f64 {
    if total <= 0 {
        return if done > 0 { 100.0 } else { 0.0 };
    }
    (done as f64 / total as f64 * 100.0).clamp(0.0, 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(src: &str) -> MachineLayout {
        let loaded = fencelab::load(src);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        MachineLayout::of(&loaded.scenario)
    }

    #[test]
    fn single_cta_sits_in_an_implicit_cluster_on_gpu_0() {
        let l = layout(crate::state::STARTER_SCENARIO);
        assert_eq!(l.gpus.len(), 1);
        let gpu = &l.gpus[0];
        assert_eq!(gpu.index, 0);
        assert!(gpu.globals.is_empty());
        assert_eq!(gpu.clusters.len(), 1);
        let cluster = &gpu.clusters[0];
        assert!(cluster.implicit, "cluster of one is implicit: {cluster:?}");
        let cta = &cluster.ctas[0];
        assert_eq!(cta.name, "A");
        assert_eq!(cta.threads, vec!["producer", "consumer"]);
        assert_eq!(cta.shared, vec!["x"]);
        assert_eq!(cta.mbarriers, vec!["bar"]);
    }

    #[test]
    fn cluster_of_two_ctas_and_globals() {
        let l = layout(
            "cluster C\ncta A in C\ncta B in C\nglobal g = 0\nshared s @B = 0\n\
             thread t @A:\n    ld.global r0, [g]\nthread u @B:\n    ld.shared r1, [s]\n",
        );
        let gpu = &l.gpus[0];
        assert_eq!(gpu.globals, vec!["g"]);
        let cluster = &gpu.clusters[0];
        assert!(!cluster.implicit);
        let names: Vec<&str> = cluster.ctas.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["A", "B"]);
        assert_eq!(cluster.ctas[1].shared, vec!["s"]);
        assert_eq!(cluster.ctas[0].threads, vec!["t"]);
    }

    #[test]
    fn a_pair_scenario_groups_its_ctas_into_pairs_with_their_accumulator() {
        let l = layout(
            "cluster C\ncta L in C\ncta P in C\nshared a0 @L = 0\nshared a1 @P = 0\ntmem acc0 @L = 0\ntmem acc1 @P = 0\n\
             thread mma @L:\n    tcgen05.mma.cta_group::2 [acc0], [a0], [a0], ([acc1], [a1], [a1])\n",
        );
        let cluster = &l.gpus[0].clusters[0];
        assert_eq!(cluster.pairs.len(), 1);
        let pair = &cluster.pairs[0];
        assert_eq!(pair.leader.name, "L");
        assert_eq!(pair.peer.as_ref().map(|p| p.name.as_str()), Some("P"));
        assert_eq!(pair.accumulators, vec![("acc0".to_string(), "acc1".to_string())]);
        let single = layout("cluster C\ncta A in C\ncta B in C\nthread t @A:\n    mov r0, 1\n");
        assert!(single.gpus[0].clusters[0].pairs.is_empty(), "no cta_group::2, no pairs");
    }

    #[test]
    fn gauges_clamp() {
        assert_eq!(gauge_percent(1, 2), 50.0);
        assert_eq!(gauge_percent(3, 2), 100.0);
        assert_eq!(gauge_percent(-1, 2), 0.0);
        assert_eq!(gauge_percent(0, 0), 0.0);
        assert_eq!(gauge_percent(5, 0), 100.0);
    }
}
