//! The starter scenario's report, made by the build (`components/build.rs`) with the
//! same checker the worker runs. A first visit's verdict comes from it, so the page links
//! no checker of its own: the worker loads the checker's code, a wasm chunk, when it has a
//! scenario to check (`crate::worker`, docs/loading.md).

use fencelab::check::{Options, Report};
use fencelab::link::decode_postcard;
use fencelab::model::Scenario;

/// `(Scenario, Report)`: the starter scenario as the build loaded it, and its report under
/// the default options.
const BUNDLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/starter_report.postcard"));

/// The checker's report on `scenario` under `options`, when they are the starter scenario
/// and the default options: `None` for anything else, which the worker must check.
pub fn report_for(scenario: &Scenario, options: &Options) -> Option<Report> {
    if *options != Options::default() {
        return None;
    }
    let (starter, report): (Scenario, Report) = decode_postcard(BUNDLE).ok()?;
    (starter == *scenario).then_some(report)
}

#[cfg(test)]
mod tests {
    use fencelab::check::{check, Mode};

    use super::*;
    use crate::state::STARTER_SCENARIO;

    fn starter() -> Scenario {
        let loaded = fencelab::load(STARTER_SCENARIO);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded.scenario
    }

    #[test]
    fn the_bundled_report_is_the_checkers() {
        let scenario = starter();
        let options = Options::default();
        assert_eq!(report_for(&scenario, &options), Some(check(&scenario, &options)));
    }

    #[test]
    fn any_other_scenario_or_option_is_left_to_the_worker() {
        let scenario = starter();
        assert_eq!(Options::default().mode, Mode::Pragmatic);
        assert_eq!(report_for(&scenario, &Options { mode: Mode::Strict, ..Options::default() }), None);
        assert_eq!(report_for(&scenario, &Options { max_states: 10, ..Options::default() }), None);
        let weakened = fencelab::load(&STARTER_SCENARIO.replace("arrive.release", "arrive.relaxed")).scenario;
        assert_ne!(weakened, scenario);
        assert_eq!(report_for(&weakened, &Options::default()), None);
    }
}
