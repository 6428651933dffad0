//! Replayable schedules: the record of an execution that witnesses, links and the UI share.

use serde::{Deserialize, Serialize};

/// One step of an execution: which agent moves, and which of its choices it takes.
///
/// Agents are numbered threads first (in scenario order), then asynchronous agents in the
/// order they are spawned. `choice` is 0 for a deterministic step; for a read it indexes
/// the candidate writes in the explorer's deterministic order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    pub agent: u32,
    pub choice: u32,
}

/// A whole execution prefix, replayable from the initial state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Schedule {
    pub steps: Vec<Step>,
}
