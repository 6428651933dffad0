//! What the machine panel's "Move to…" lists offer: every other place an item may go,
//! each with the core edit that puts it there. Pure, so it is tested natively.

use fencelab::model::{Scenario, Space};
use fencelab::palette::{MachineEdit, Memory};

/// One entry of a "Move to…" list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub label: String,
    pub edit: MachineEdit,
}

/// Every other CTA.
pub fn thread_targets(s: &Scenario, thread: &str) -> Vec<Target> {
    let Some(here) = s.thread(thread).and_then(|t| s.threads.get(t)).map(|t| t.cta) else { return Vec::new() };
    other_ctas(s, Some(here))
        .map(|cta| Target {
            label: format!("CTA {cta}"),
            edit: MachineEdit::MoveThread { thread: thread.to_string(), cta },
        })
        .collect()
}

/// Every other cluster, and a cluster of its own unless the CTA already has one.
pub fn cta_targets(s: &Scenario, cta: &str) -> Vec<Target> {
    let Some(here) = s.cta(cta).and_then(|c| s.cluster_of(c)) else { return Vec::new() };
    let alone = s.ctas.iter().filter(|c| c.cluster == here).count() == 1;
    let own = alone && s.clusters.get(here).is_some_and(|c| c.name == cta);
    let move_to = |cluster: Option<String>| MachineEdit::MoveCta { cta: cta.to_string(), cluster };
    let mut out: Vec<Target> = s
        .clusters
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != here)
        .map(|(_, c)| Target { label: format!("cluster {}", c.name), edit: move_to(Some(c.name.clone())) })
        .collect();
    let name_free = !s.clusters.iter().any(|c| c.name == cta);
    if !own && name_free {
        out.push(Target { label: "a cluster of its own".into(), edit: move_to(None) });
    }
    out
}

/// Global memory (not for tensor memory) and every other CTA's shared (or tensor) memory.
/// Aliases move with the location they alias, so they offer nothing.
pub fn location_targets(s: &Scenario, location: &str) -> Vec<Target> {
    let Some(loc) = s.location(location).and_then(|l| s.locations.get(l)) else { return Vec::new() };
    if loc.alias.is_some() {
        return Vec::new();
    }
    let move_to = |memory: Memory| MachineEdit::MoveLocation { location: location.to_string(), memory };
    let (here, kind) = match loc.space {
        Space::Global => (None, "shared memory"),
        Space::Shared(c) => (Some(c), "shared memory"),
        Space::Tmem(c) => (Some(c), "tensor memory"),
    };
    let mut out = Vec::new();
    if matches!(loc.space, Space::Shared(_)) {
        out.push(Target { label: "global memory".into(), edit: move_to(Memory::Global) });
    }
    out.extend(other_ctas(s, here).map(|cta| Target {
        label: format!("{kind} of {cta}"),
        edit: move_to(Memory::Shared(cta)),
    }));
    out
}

/// Every other CTA.
pub fn mbarrier_targets(s: &Scenario, mbarrier: &str) -> Vec<Target> {
    let Some(here) = s.mbarrier(mbarrier).and_then(|m| s.mbarriers.get(m)).map(|m| m.cta) else { return Vec::new() };
    other_ctas(s, Some(here))
        .map(|cta| Target {
            label: format!("CTA {cta}"),
            edit: MachineEdit::MoveMbarrier { mbarrier: mbarrier.to_string(), cta },
        })
        .collect()
}

fn other_ctas(s: &Scenario, here: Option<usize>) -> impl Iterator<Item = String> + '_ {
    s.ctas.iter().enumerate().filter(move |(i, _)| Some(*i) != here).map(|(_, c)| c.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(src: &str) -> Scenario {
        let parsed = fencelab::syntax::parse(src);
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        parsed.scenario
    }

    fn labels(targets: &[Target]) -> Vec<&str> {
        targets.iter().map(|t| t.label.as_str()).collect()
    }

    const SRC: &str = "cluster C\ncta A in C\ncta B in C\ncta D\nglobal g = 0\nshared s @A = 0\n\
        tmem t @A = 0\nalias v = g via surface\nmbarrier m @B count 1\nthread p @A:\n";

    #[test]
    fn threads_and_mbarriers_go_to_every_other_cta() {
        let s = scenario(SRC);
        assert_eq!(labels(&thread_targets(&s, "p")), ["CTA B", "CTA D"]);
        assert_eq!(labels(&mbarrier_targets(&s, "m")), ["CTA A", "CTA D"]);
        let first = thread_targets(&s, "p").remove(0).edit;
        assert_eq!(first, MachineEdit::MoveThread { thread: "p".into(), cta: "B".into() });
        assert!(thread_targets(&s, "nobody").is_empty());
    }

    #[test]
    fn ctas_go_to_other_clusters_or_their_own() {
        let s = scenario(SRC);
        assert_eq!(labels(&cta_targets(&s, "A")), ["cluster D", "a cluster of its own"]);
        assert_eq!(labels(&cta_targets(&s, "D")), ["cluster C"], "D already has its own cluster");
    }

    #[test]
    fn locations_switch_space_and_tensor_memory_stays_tensor_memory() {
        let s = scenario(SRC);
        assert_eq!(labels(&location_targets(&s, "s")), ["global memory", "shared memory of B", "shared memory of D"]);
        assert_eq!(labels(&location_targets(&s, "g")), ["shared memory of A", "shared memory of B", "shared memory of D"]);
        assert_eq!(labels(&location_targets(&s, "t")), ["tensor memory of B", "tensor memory of D"]);
        assert!(location_targets(&s, "v").is_empty(), "an alias moves with its target");
    }

    #[test]
    fn every_offered_move_applies() {
        let s = scenario(SRC);
        let all = ["p"].iter().flat_map(|t| thread_targets(&s, t))
            .chain(["A", "B", "D"].iter().flat_map(|c| cta_targets(&s, c)))
            .chain(["g", "s", "t"].iter().flat_map(|l| location_targets(&s, l)))
            .chain(mbarrier_targets(&s, "m"));
        for target in all {
            let out = fencelab::palette::apply(SRC, &fencelab::palette::Edit::Machine(target.edit.clone()));
            let out = out.unwrap_or_else(|e| panic!("{}: {e}", target.label));
            assert!(!fencelab::syntax::parse(&out).has_errors(), "{}: {out}", target.label);
        }
    }
}
