//! GPU observations bundled at build time (`components/build.rs`), matched to the
//! scenario on screen by its machine and programs: they belong to exactly that program.
//! The bundle (about 37 KB) and its decoder are in a wasm chunk of their own
//! (`crate::lazy`), fetched with the first outcome table, not in the first load.

use std::sync::OnceLock;

use fencelab::cuda::Observation;
use fencelab::link::{decode_postcard, LinkError};
use fencelab::model::Scenario;

use crate::lazy::ChunkLoadFailed;

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

/// The observation of `scenario`'s program, if one was bundled.
fn bundled_for(scenario: &Scenario) -> Option<&'static Observation> {
    all().iter().find(|o| o.is_for(scenario))
}

/// [`bundled_for`] from the observations' wasm chunk. Only this reads the bundle, so
/// the bundle's bytes go with the chunk.
#[leptos::wasm_split::wasm_split(observed, fallible, wasm_split_path = ::leptos::wasm_split)]
pub fn observation_for(scenario: Scenario) -> Result<Option<Observation>, ChunkLoadFailed> {
    Ok(bundled_for(&scenario).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab::check::{check, Options};
    use fencelab::cuda::compare;

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
        let obs = bundled_for(&scenario).expect("bundled observation");
        let cmp = compare(&scenario, &report, obs);
        assert_eq!(obs.gpu, "NVIDIA H200");
        assert_eq!(cmp.forbidden_but_observed, 0);
        assert!(cmp.rows.iter().any(|r| r.flagged && r.observed > 0), "the stale row was seen: {cmp:?}");
        let mut edited = scenario.clone();
        edited.threads[0].program.pop();
        let found = bundled_for(&edited);
        assert!(found.is_none(), "{:?}", found.map(|o| o.scenario.clone()));
    }
}
