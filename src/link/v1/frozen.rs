//! The serde shape format 1 wrote. Only the types whose shape changed since are copied;
//! every other field uses the live type, which still has its format-1 shape (the frozen
//! corpus `tests/links/v1/` fails otherwise, and then that type is copied here too).

use serde::{Deserialize, Serialize};

use crate::link::ViewState;
use crate::model::{self, Cluster, Cta, Expect, Expectation, FinalCondition, Location, Mbarrier, Thread};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharePayload {
    pub scenario: Scenario,
    pub view: ViewState,
}

/// Format 1's scenario: one optional `expect`, claimed in every mode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub title: Option<String>,
    pub clusters: Vec<Cluster>,
    pub ctas: Vec<Cta>,
    pub locations: Vec<Location>,
    pub mbarriers: Vec<Mbarrier>,
    pub threads: Vec<Thread>,
    pub expect: Option<Expect>,
    pub conditions: Vec<FinalCondition>,
}

impl From<SharePayload> for crate::link::SharePayload {
    fn from(old: SharePayload) -> Self {
        crate::link::SharePayload { scenario: old.scenario.into(), view: old.view }
    }
}

impl From<Scenario> for model::Scenario {
    fn from(old: Scenario) -> Self {
        model::Scenario {
            title: old.title,
            clusters: old.clusters,
            ctas: old.ctas,
            locations: old.locations,
            mbarriers: old.mbarriers,
            threads: old.threads,
            // Format 1 had no per-mode expectations: its one claim held in every mode.
            expect: old.expect.map(Expectation::every_mode).into_iter().collect(),
            conditions: old.conditions,
        }
    }
}
