//! The checker: explores every interleaving of a scenario and reports verdicts.
//!
//! Entry point: [`check`]. The report types in [`report`] are the API the CLI, the
//! lessons, the conformance runner and the app consume.

pub mod report;

pub use report::{
    Access, ConditionResult, ExpectationResult, Finding, FindingKind, Mode, Options, Outcome,
    RaceReason, Report, Stats, Verdict,
};

use crate::model::Scenario;

/// Explores `scenario` exhaustively (within `options`' caps) and reports what it found.
pub fn check(scenario: &Scenario, options: &Options) -> Report {
    let _ = (scenario, options);
    unimplemented!("the explorer lands with issue 4")
}
