use super::*;
use crate::check::{Mode, Verdict};
use crate::model::Scenario;

const HANDOFF: &str = "cta A
global data = 0
global flag = 0
thread producer @A:
    st.global [data], 42
    st.release.gpu.global [flag], 1
thread consumer @A:
    wait ld.acquire.gpu.global r0, [flag] == 1
    ld.global r1, [data]
expect correct
";

fn handoff() -> Scenario {
    let loaded = crate::load(HANDOFF);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    loaded.scenario
}

#[test]
fn a_release_acquire_handoff_has_the_expected_weakenings() {
    let found: Vec<(MutationKind, String)> = mutants(&handoff()).into_iter().map(|m| (m.kind, m.after)).collect();
    let expected = [
        (MutationKind::MoveDown, "st.release.gpu.global [flag], 1 / st.global [data], 42"),
        (MutationKind::WeakenSem, "st.relaxed.gpu.global [flag], 1"),
        (MutationKind::NarrowScope, "st.release.cluster.global [flag], 1"),
        (MutationKind::Drop, "(dropped)"),
        (MutationKind::WeakenSem, "wait ld.relaxed.gpu.global r0, [flag] == 1"),
        (MutationKind::NarrowScope, "wait ld.acquire.cluster.global r0, [flag] == 1"),
        (MutationKind::MoveDown, "ld.global r1, [data] / wait ld.acquire.gpu.global r0, [flag] == 1"),
    ];
    let expected: Vec<(MutationKind, String)> = expected.iter().map(|(k, t)| (*k, t.to_string())).collect();
    assert_eq!(found, expected);
}

#[test]
fn every_mutant_is_canonical_scenario_text() {
    for m in mutants(&handoff()) {
        assert_eq!(crate::syntax::print(&m.scenario), m.text, "{} did not round-trip", m.after);
        assert_ne!(m.scenario, handoff());
    }
}

#[test]
fn the_checker_kills_weakened_sync_and_spares_a_cluster_scope_inside_one_cta() {
    let judged = judge(&handoff(), Mode::Pragmatic, 10_000, mutants(&handoff()));
    let fate = |after: &str| judged.iter().find(|j| j.mutant.after == after).map(|j| (j.fate, j.verdict));
    assert_eq!(fate("st.relaxed.gpu.global [flag], 1"), Some((Fate::Killed, Verdict::Race)));
    assert_eq!(fate("wait ld.relaxed.gpu.global r0, [flag] == 1"), Some((Fate::Killed, Verdict::Race)));
    // Both threads share CTA `A`, so `.cluster` still covers them (§1.3): harmless.
    assert_eq!(fate("st.release.cluster.global [flag], 1"), Some((Fate::Survived, Verdict::Correct)));
}
