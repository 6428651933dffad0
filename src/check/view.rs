//! Plain view types for the UI: what a learner sees of the machine while stepping.
//!
//! Everything here is data with public fields and serde derives; no checker internals leak.
//! Step indices are positions in the stepper's history (0-based); agents are numbered as in
//! [`crate::schedule::Step`].

use serde::{Deserialize, Serialize};

/// One agent: a scenario thread or an asynchronous agent (TMA copy, wgmma group, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentView {
    pub id: u32,
    pub name: String,
    pub kind: AgentKindView,
    pub status: AgentStatusView,
    /// Index of the next instruction in the thread's program (the issuer's, for async agents).
    pub instr_index: Option<usize>,
    /// Text of that instruction.
    pub instr_text: Option<String>,
    /// Register values, sorted by name.
    pub registers: Vec<(String, i64)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AgentKindView {
    Thread { cta: String },
    /// `kind` names the family (`tma`, `st.async`, `wgmma`, ...); `issuer` is a thread name.
    Async { kind: String, issuer: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AgentStatusView {
    Enabled { choices: Vec<ChoiceView> },
    Blocked { reason: String },
    Done,
}

/// One way an enabled agent can move, e.g. `read x = 0 (stale: write by producer not visible)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChoiceView {
    pub choice: u32,
    pub label: String,
}

/// What one step did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventView {
    pub step: usize,
    pub agent: u32,
    pub agent_name: String,
    /// Instruction index in the (issuing) thread's program.
    pub instr_index: Option<usize>,
    pub instr_text: String,
    /// One line: what happened, e.g. `read x = 0 from the initial value`.
    pub description: String,
    /// Happens-before edges this step formed.
    pub edges: Vec<EdgeView>,
    /// Synchronization this step tried and failed to form.
    pub failed_edges: Vec<FailedEdgeView>,
    /// Problems this step exposed (races, undefined behaviour), one line each.
    pub findings: Vec<String>,
    /// The memory reads this step made: which write each returned and what it missed.
    pub reads: Vec<ReadView>,
    /// The mbarriers this step changed, before and after.
    pub mbarriers: Vec<MbarrierChangeView>,
}

/// One read: the write in the cell's history it returned and, when a newer write was
/// already in that history, the write it could not see and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadView {
    /// The step that read (its position in the stepper's history).
    pub step: usize,
    pub agent: u32,
    pub agent_name: String,
    /// The location as [`LocationView::name`] names it.
    pub location: String,
    /// The proxy the read went through (`generic`, `async`).
    pub proxy: String,
    pub value: i64,
    /// Index into [`LocationView::writes`] of the write returned.
    pub write: usize,
    pub from: WriteView,
    pub stale: Option<StaleView>,
}

/// The newest write a stale read could not see, and the one-line reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleView {
    /// Index into [`LocationView::writes`].
    pub missed: usize,
    pub missed_write: WriteView,
    /// The missing or failed edge, e.g. why the release did not reach the reader.
    pub reason: String,
}

/// An mbarrier before and after one step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MbarrierChangeView {
    pub name: String,
    pub phase_before: u32,
    pub phase_after: u32,
    /// Arrivals still owed.
    pub pending_before: i64,
    pub pending_after: i64,
    /// Signed tx-count: bytes expected and not yet landed.
    pub tx_before: i64,
    pub tx_after: i64,
}

impl MbarrierChangeView {
    /// The step completed a phase: the phase flipped (parity turned, waiters may go).
    pub fn completed_phase(&self) -> bool {
        self.phase_after != self.phase_before
    }
}

/// An mbarrier's debts in the phase the gauges show: bytes announced by `expect_tx`,
/// bytes landed by `complete_tx`, arrivals made. `phase` is the current phase, or the
/// phase the last step completed (`just_completed`), so its completing arrive shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MbarrierDebtView {
    pub name: String,
    pub phase: u32,
    pub just_completed: bool,
    pub tx_expected: i64,
    pub tx_landed: i64,
    pub arrivals_made: i64,
}

/// A synchronizes-with edge (or an edge class such as a barrier completion).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeView {
    /// Step that released (`None` for the initial state).
    pub from_step: Option<usize>,
    pub to_step: usize,
    pub from_agent: String,
    pub to_agent: String,
    /// `release/acquire`, `bar`, `barrier.cluster`, `mbarrier`, `fence.sc`.
    pub kind: String,
    /// The scope that made it morally strong, when one applies (`.cta`, `.cluster`, ...).
    pub scope: Option<String>,
}

/// Synchronization that was attempted (values matched) but did not form an edge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedEdgeView {
    pub from_step: Option<usize>,
    pub to_step: usize,
    pub from_agent: String,
    pub to_agent: String,
    pub reason: String,
    /// What failed, in a word or two: `scope`, `semantics`, `proxy`, `state space`,
    /// `mbarrier phase`, `async completion`, `tcgen05 fence`, `byte range`.
    pub cause: String,
}

/// The whole machine at the current step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineView {
    pub locations: Vec<LocationView>,
    pub mbarriers: Vec<MbarrierView>,
    pub named_barriers: Vec<NamedBarrierView>,
    pub cluster_barriers: Vec<ClusterBarrierView>,
    /// In-flight asynchronous operations (filled by the async semantics).
    pub async_ops: Vec<AsyncOpView>,
    pub edges: Vec<EdgeView>,
    pub failed_edges: Vec<FailedEdgeView>,
    /// Every read of the execution so far, oldest first (a [`super::Stepper`] fills it):
    /// the values each thread's reads returned, and which agent saw which write.
    pub reads: Vec<ReadView>,
    /// Per mbarrier, its debts in the phase shown (a [`super::Stepper`] fills it).
    pub debts: Vec<MbarrierDebtView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocationView {
    pub name: String,
    /// Writes in coherence order; index 0 is the initial value.
    pub writes: Vec<WriteView>,
    /// Per agent and proxy: which writes that agent could read right now.
    pub visibility: Vec<VisibilityView>,
    /// For a location that byte offsets split (`[x+OFFSET]`), each byte segment with its
    /// latest value, lowest bytes first; empty otherwise (`writes` is then the whole story;
    /// for a split location `writes` are those of its first segment).
    pub ranges: Vec<RangeView>,
}

/// One byte segment of a location and the coherence-latest write it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeView {
    /// Bytes `start..end` of the location.
    pub start: u32,
    pub end: u32,
    pub latest: WriteView,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteView {
    pub value: i64,
    /// Agent name, or `init` for the initial value.
    pub writer: String,
    pub step: Option<usize>,
    /// `generic`, `async`, ...
    pub proxy: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisibilityView {
    pub agent: u32,
    pub agent_name: String,
    pub proxy: String,
    /// Indices into [`LocationView::writes`] a read by this agent could return now.
    pub readable: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MbarrierView {
    pub name: String,
    pub cta: String,
    pub initialized: bool,
    /// Not valid because `mbarrier.inval` ran.
    pub invalidated: bool,
    pub phase: u32,
    pub parity: u32,
    pub pending: i64,
    pub expected: i64,
    /// Arrivals the gauge shows, never negative, out of `arrivals_of`.
    pub arrived: i64,
    pub arrivals_of: i64,
    /// The gauge's caption, e.g. `arrivals: 1 of 2 (1 pending)`.
    pub arrivals_caption: String,
    /// Signed tx-count of the current phase.
    pub tx: i64,
    pub waiters: Vec<WaiterView>,
    /// e.g. `next arrive completes phase 0 (pending 1 → 0, tx 0)`.
    pub next_arrive: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaiterView {
    pub thread: String,
    /// Parity (or token phase) the thread waits for.
    pub parity: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedBarrierView {
    pub cta: String,
    pub id: u32,
    /// Threads that arrived in the current instance.
    pub arrived: Vec<String>,
    /// PTX threads arrived / expected.
    pub arrived_count: u32,
    pub expected_count: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterBarrierView {
    pub cluster: String,
    pub instance: u32,
    pub arrived: Vec<String>,
    pub not_arrived: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AsyncOpState {
    Issued,
    Accessing,
    Completed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsyncOpView {
    pub agent: u32,
    pub name: String,
    pub issuer: String,
    pub state: AsyncOpState,
    pub description: String,
}
