//! The checker: explores every interleaving of a scenario and reports verdicts.
//!
//! Entry point: [`check`]. The report types in [`report`] are the API the CLI, the
//! lessons, the conformance runner and the app consume; [`Stepper`] and [`view`] serve
//! the stepping UI.

mod ambiguity;
mod explore;
mod machine;
pub mod report;
mod semantics;
mod snapshot;
mod step;
mod text;
pub mod view;

pub use explore::{check, condition_text};
pub use report::{
    Access, ConditionResult, ExpectationResult, Finding, FindingKind, Mode, Options, Outcome,
    RaceReason, Report, Stats, Verdict,
};
pub use step::Stepper;
