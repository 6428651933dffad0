//! Data-driven checker tests: every `.fence` file under `tests/scenarios/checker/` and
//! `tests/scenarios/seeds/` must come out as its `expect` line and final conditions say.

#[path = "support/scenario_files.rs"]
mod scenario_files;

use std::path::Path;

#[test]
fn checker_scenarios_meet_their_expectations() {
    let failures = scenario_files::check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/checker"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seed_scenarios_meet_their_expectations() {
    let failures = scenario_files::check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/seeds"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
