//! The checker: explores every interleaving of a scenario and reports verdicts.
//!
//! Entry point: [`check`] ([`check_with_progress`] also reports how far it has got). The report types in [`report`] are the API the CLI, the
//! lessons, the conformance runner and the app consume; [`Stepper`] and [`view`] serve
//! the stepping UI.
//!
//! The model is operational: agents step one at a time, reads choose among the writes
//! coherence still allows (§1.9), and happens-before is vector clocks joined along
//! synchronizes-with edges (the table in `semantics/base/sync.rs`). Where the model
//! departs from the reference is listed once, in ARCHITECTURE.md ("Where the code departs
//! from the reference"), and commented where each departure is implemented.

mod ambiguity;
mod explore;
mod machine;
pub mod report;
mod semantics;
mod snapshot;
mod stated;
mod step;
mod text;
pub mod view;

pub use explore::{check, check_one_mode, check_with_progress, condition_text};
pub use report::{
    Access, Blocked, ConditionResult, EdgeEnd, ExpectationResult, Finding, FindingKind, Mode, Options, Outcome,
    Progress, RaceReason, Report, Stats, Verdict,
};
pub use stated::stated_modes;
pub use step::{StepError, Stepper};
