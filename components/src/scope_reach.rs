//! A scope mismatch as a picture: the box the too-narrow side reached (its CTA, its
//! cluster, the GPU) with that side's agent in it, and the other agent outside. Pure, so
//! it is tested natively; the step dock (`step_effect.rs`) draws it.

use fencelab::check::view::{EventView, FailedEdgeView};
use fencelab::model::Scenario;

/// Which end of the attempted synchronization had the scope too narrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowSide {
    Release,
    Acquire,
}

/// What a failed edge's scope box shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeReach {
    pub side: NarrowSide,
    /// The scope as written, e.g. `.cta`.
    pub scope: String,
    /// The box the narrow side reached: `CTA A` or `cluster k0`.
    pub reached: String,
    /// The agent inside the box (the narrow side's) and the one left outside it.
    pub inside: String,
    pub outside: String,
    /// Where the outside agent runs, e.g. `CTA B`.
    pub outside_place: String,
}

impl ScopeReach {
    /// The box's caption, e.g. `the release's .cta scope reached CTA A`.
    pub fn caption(&self) -> String {
        let side = match self.side {
            NarrowSide::Release => "release",
            NarrowSide::Acquire => "acquire",
        };
        format!("the {side}'s {} scope reached {}", self.scope, self.reached)
    }
}

/// The scope box of `failed`, when it is a scope mismatch between two threads the
/// scenario places. `history` is the stepper's (the releasing and acquiring steps' texts
/// carry the scopes as written); `cta_of` names the CTA an agent runs in (`None` for
/// async agents).
pub fn scope_reach(failed: &FailedEdgeView, history: &[EventView], scenario: &Scenario, cta_of: impl Fn(&str) -> Option<String>) -> Option<ScopeReach> {
    if failed.cause != "scope" {
        return None;
    }
    let release = written_scope(&history.get(failed.from_step?)?.instr_text);
    let acquire = written_scope(&history.get(failed.to_step)?.instr_text);
    let (from_cta, to_cta) = (cta_of(&failed.from_agent)?, cta_of(&failed.to_agent)?);
    let cluster_of = |cta: &str| scenario.cta(cta).and_then(|i| scenario.clusters.get(scenario.ctas[i].cluster)).map(|c| c.name.clone());
    let covers = |scope: &str, a: &str, b: &str| match scope {
        "cta" => a == b,
        "cluster" => cluster_of(a) == cluster_of(b),
        _ => true,
    };
    let (side, scope, inside, outside, inside_cta, outside_cta) = match (release, acquire) {
        (Some(r), _) if !covers(r, &from_cta, &to_cta) => (NarrowSide::Release, r, &failed.from_agent, &failed.to_agent, from_cta, to_cta),
        (_, Some(a)) if !covers(a, &to_cta, &from_cta) => (NarrowSide::Acquire, a, &failed.to_agent, &failed.from_agent, to_cta, from_cta),
        _ => return None,
    };
    let (reached, outside_place) = match scope {
        "cta" => (format!("CTA {inside_cta}"), format!("CTA {outside_cta}")),
        _ => (format!("cluster {}", cluster_of(&inside_cta)?), format!("CTA {outside_cta}, cluster {}", cluster_of(&outside_cta)?)),
    };
    Some(ScopeReach { side, scope: format!(".{scope}"), reached, inside: inside.clone(), outside: outside.clone(), outside_place })
}

/// The scope qualifier an instruction's text carries (`st.release.cta.global` → `cta`);
/// `.gpu` and `.sys` reach every thread of a one-GPU scenario.
fn written_scope(instr: &str) -> Option<&'static str> {
    let opcode = instr.split_whitespace().find(|w| w.contains('.'))?;
    ["cta", "cluster", "gpu", "sys"].into_iter().find(|s| opcode.split('.').any(|part| part == *s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab::check::view::AgentKindView;
    use fencelab::check::{Mode, Stepper};
    use fencelab::schedule::Step;

    /// Steps `agents` in order (first choice each) and returns the history with the
    /// stepper's agents' CTAs.
    fn failed_after(src: &str, agents: &[u32]) -> (Scenario, Vec<EventView>, Vec<(String, String)>) {
        let loaded = fencelab::load(src);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let mut st = Stepper::new(&loaded.scenario, Mode::Pragmatic).expect("stepper");
        for &agent in agents {
            st.step(Step { agent, choice: 0 }).expect("step");
        }
        let history = st.history().to_vec();
        let ctas = st
            .agents()
            .into_iter()
            .filter_map(|a| match a.kind {
                AgentKindView::Thread { cta } => Some((a.name, cta)),
                AgentKindView::Async { .. } => None,
            })
            .collect();
        (loaded.scenario, history, ctas)
    }

    fn reach_of(src: &str, agents: &[u32]) -> Option<ScopeReach> {
        let (scenario, history, ctas) = failed_after(src, agents);
        let cta_of = |name: &str| ctas.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone());
        let failed = &history.last().expect("a step").failed_edges;
        assert!(!failed.is_empty(), "the last step failed to synchronize");
        failed.iter().find_map(|f| scope_reach(f, &history, &scenario, cta_of))
    }

    const CTA_RELEASE: &str = "cta A\ncta B\nglobal data = 0\nglobal flag = 0\n\
        thread producer @A:\n    st.global [data], 42\n    st.release.cta.global [flag], 1\n\
        thread consumer @B:\n    wait ld.acquire.gpu.global r1, [flag] == 1\n    ld.global r0, [data]\n";

    #[test]
    fn a_cta_release_reaches_its_own_cta_and_the_acquirer_is_outside() {
        let reach = reach_of(CTA_RELEASE, &[0, 0, 1]).expect("a scope mismatch at the acquire");
        assert_eq!(reach.side, NarrowSide::Release);
        assert_eq!(reach.caption(), "the release's .cta scope reached CTA A");
        assert_eq!((reach.inside.as_str(), reach.outside.as_str()), ("producer", "consumer"));
        assert_eq!(reach.outside_place, "CTA B");
    }

    #[test]
    fn a_narrow_acquire_draws_the_acquirers_box_with_the_releaser_outside() {
        let src = CTA_RELEASE.replace("st.release.cta", "st.release.gpu").replace("ld.acquire.gpu", "ld.acquire.cta");
        let reach = reach_of(&src, &[0, 0, 1]).expect("a scope mismatch at the acquire");
        assert_eq!(reach.side, NarrowSide::Acquire);
        assert_eq!(reach.caption(), "the acquire's .cta scope reached CTA B");
        assert_eq!((reach.inside.as_str(), reach.outside.as_str()), ("consumer", "producer"));
        assert_eq!(reach.outside_place, "CTA A");
    }

    #[test]
    fn a_cluster_release_reaches_its_cluster() {
        let src = "cluster k0\ncluster k1\ncta A in k0\ncta B in k1\nglobal data = 0\nglobal flag = 0\n\
            thread producer @A:\n    st.global [data], 42\n    st.release.cluster.global [flag], 1\n\
            thread consumer @B:\n    wait ld.acquire.gpu.global r1, [flag] == 1\n    ld.global r0, [data]\n";
        let reach = reach_of(src, &[0, 0, 1]).expect("a scope mismatch at the acquire");
        assert_eq!(reach.caption(), "the release's .cluster scope reached cluster k0");
        assert_eq!(reach.outside_place, "CTA B, cluster k1");
    }

    #[test]
    fn other_failures_draw_no_scope_box() {
        let mp = include_str!("../templates/mp-relaxed.fence");
        assert_eq!(reach_of(mp, &[0, 0, 1]), None);
    }
}
