//! The starter scenario's load and report, made by the build (`components/build.rs`) with
//! the same parser and checker the worker runs. A first visit's text and verdict come from
//! them, so the page links no checker of its own and runs no parser as it loads: the worker
//! loads the checker's code, a wasm chunk, when it has a scenario to check, and compiles the
//! parser for the page once the page has loaded (`crate::worker`, docs/loading.md).

use fencelab::check::{Options, Report};
use fencelab::link::{decode_postcard, LinkError};
use fencelab::model::Scenario;
use fencelab::Loaded;

use crate::state::STARTER_SCENARIO;

/// `fencelab::load` of the starter scenario's text.
const LOADED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/starter_loaded.postcard"));

/// The checker's report on the starter scenario under the default options.
const REPORT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/starter_report.postcard"));

thread_local! {
    /// The starter scenario as the build loaded it, decoded once. V8 compiles a wasm
    /// function on its first call, and the parser and verifier are the largest code a load
    /// calls: a visit's first render does without them. A bundle that does not decode (the
    /// tests decode it, so never expected) is parsed instead.
    static STARTER: Loaded = decode_postcard(LOADED).unwrap_or_else(|_| fencelab::load(STARTER_SCENARIO));
}

/// `fencelab::load(STARTER_SCENARIO)`, from the build's.
pub fn loaded() -> Loaded {
    STARTER.with(Loaded::clone)
}

/// Whether the build's report is the checker's on `scenario` under `options`: they are
/// the starter scenario and the default options, whatever the memory cap (the starter's
/// search holds a few KiB, under any cap the page sets, so the cap cannot change its
/// report). Anything else the worker must check.
pub fn answers(scenario: &Scenario, options: &Options) -> bool {
    let defaults = Options::default();
    Options { max_bytes: defaults.max_bytes, ..options.clone() } == defaults && STARTER.with(|starter| starter.scenario == *scenario)
}

/// The build's report (see [`answers`]). Decoding it is most of the cost of the first
/// verdict's answer, so the caller does it in a task of its own.
pub fn report() -> Result<Report, LinkError> {
    decode_postcard(REPORT)
}

#[cfg(test)]
mod tests {
    use fencelab::check::{check, Mode};

    use super::*;

    fn starter() -> Scenario {
        let loaded = fencelab::load(STARTER_SCENARIO);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded.scenario
    }

    #[test]
    fn the_bundled_load_is_the_parsers() {
        let bundled: Loaded = decode_postcard(LOADED).expect("the bundled load decodes");
        assert_eq!(bundled, fencelab::load(STARTER_SCENARIO));
        assert_eq!(loaded().scenario, starter());
    }

    #[test]
    fn the_bundled_report_is_the_checkers() {
        let scenario = starter();
        let options = Options::default();
        assert!(answers(&scenario, &options));
        assert_eq!(report().ok(), Some(check(&scenario, &options)));
    }

    #[test]
    fn any_other_scenario_or_option_is_left_to_the_worker() {
        let scenario = starter();
        assert_eq!(Options::default().mode, Mode::Pragmatic);
        assert!(!answers(&scenario, &Options { mode: Mode::Strict, ..Options::default() }));
        assert!(!answers(&scenario, &Options { max_states: 10, ..Options::default() }));
        assert!(answers(&scenario, &Options { max_bytes: 64 << 20, ..Options::default() }), "the memory cap does not matter");
        let weakened = fencelab::load(&STARTER_SCENARIO.replace("arrive.release", "arrive.relaxed")).scenario;
        assert_ne!(weakened, scenario);
        assert!(!answers(&weakened, &Options::default()));
    }
}
