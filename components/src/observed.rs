//! GPU observations bundled at build time (`components/build.rs`), matched to the
//! scenario on screen by its machine and programs: they belong to exactly that program.

use std::sync::OnceLock;

use fencelab::check::Report;
use fencelab::cuda::{compare, Comparison, Observation};
use fencelab::link::{decode_postcard, LinkError};
use fencelab::model::Scenario;

/// The observation files, checked by the build script and written as postcard.
const BUNDLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/observations.postcard"));

fn decode_bundle() -> Result<Vec<Observation>, LinkError> {
    decode_postcard(BUNDLE)
}

/// Every bundled observation (the bundle is checked by `bundled_observations_decode`).
fn all() -> &'static [Observation] {
    static PARSED: OnceLock<Vec<Observation>> = OnceLock::new();
    PARSED.get_or_init(|| decode_bundle().unwrap_or_default())
}

/// The observation of `scenario` with the checker's table beside it, if one was bundled.
pub fn for_scenario(scenario: &Scenario, report: &Report) -> Option<(&'static Observation, Comparison)> {
    let obs = all().iter().find(|o| o.is_for(scenario))?;
    Some((obs, compare(scenario, report, obs)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab::check::{check, Options};

    mod skipped {
        include!(concat!(env!("OUT_DIR"), "/observations_skipped.rs"));
    }

    #[test]
    fn bundled_observations_decode() {
        assert!(skipped::SKIPPED.is_empty(), "observation files that do not parse: {:?}", skipped::SKIPPED);
        let bundled = decode_bundle().expect("the bundle decodes");
        assert!(bundled.len() >= 15, "only {} observation files bundled", bundled.len());
    }

    #[test]
    fn a_lesson_scenario_finds_its_observation_and_an_edit_loses_it() {
        let (lesson, _) = fencelab::lesson::parse_lesson(include_str!("../../lessons/08-cluster-handoffs.md"));
        let scenario = lesson
            .blocks
            .iter()
            .filter_map(|b| match b {
                fencelab::lesson::Block::Scenario { source, .. } => Some(fencelab::load(source).scenario),
                _ => None,
            })
            .find(|s| s.title.as_deref().is_some_and(|t| t.starts_with("Push with a restricted release fence")))
            .expect("the push scenario of lesson 8");
        let report = check(&scenario, &Options::default());
        let (obs, cmp) = for_scenario(&scenario, &report).expect("bundled observation");
        assert_eq!(obs.gpu, "NVIDIA H200");
        assert_eq!(cmp.forbidden_but_observed, 0);
        assert!(cmp.rows.iter().any(|r| r.flagged && r.observed > 0), "the stale row was seen: {cmp:?}");
        let mut edited = scenario.clone();
        edited.threads[0].program.pop();
        let found = for_scenario(&edited, &check(&edited, &Options::default()));
        assert!(found.is_none(), "{:?}", found.map(|(o, _)| o.scenario.clone()));
    }
}
