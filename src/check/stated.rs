//! Which modes a scenario's own `expect` lines ask to be checked in.

use crate::check::ambiguity::touches_silent_points;
use crate::model::{Mode, Scenario};

/// The modes a check with no mode chosen by the caller runs `scenario` in, so that every
/// `expect` line is judged where it claims to hold: each mode an expectation names, and
/// for an expectation claimed in every mode (or none at all) the default mode, plus the
/// other mode where the scenario touches a point the spec leaves open (the only place
/// the two modes can disagree). Default mode first.
pub fn stated_modes(scenario: &Scenario) -> Vec<Mode> {
    let every_mode = scenario.expect.is_empty() || scenario.expect.iter().any(|e| e.mode.is_none());
    let both = every_mode && touches_silent_points(scenario);
    [Mode::Pragmatic, Mode::Strict]
        .into_iter()
        .filter(|&m| {
            let named = scenario.expect.iter().any(|e| e.mode == Some(m));
            named || both || (every_mode && m == Mode::default())
        })
        .collect()
}
