//! What the checker reports: plain, serializable data for the CLI, lessons and the app.

use serde::{Deserialize, Serialize};

pub use crate::model::Mode;
use crate::schedule::Schedule;

/// Caps and mode for one run. The core never reads a clock (wasm32 has none), so time
/// limits are the caller's business; `max_states` bounds the work and `max_bytes` the
/// memory the explored states hold (an estimate: see [`crate::check::machine::own_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub mode: Mode,
    pub max_states: u64,
    #[serde(default = "default_max_bytes")]
    pub max_bytes: u64,
    /// Forget writes nobody can observe any more, so loops that write converge. Off only
    /// to compare against the full search (the results are the same where both finish).
    #[serde(default = "default_collapse")]
    pub collapse: bool,
}

fn default_collapse() -> bool {
    true
}

/// 1 GiB: well inside a browser worker's wasm memory (4 GiB at most, often less).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

fn default_max_bytes() -> u64 {
    DEFAULT_MAX_BYTES
}

impl Default for Options {
    fn default() -> Self {
        Options { mode: Mode::default(), max_states: 200_000, max_bytes: DEFAULT_MAX_BYTES, collapse: true }
    }
}

/// The overall verdict class, worst first when several findings exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Verdict {
    Correct,
    Race,
    Deadlock,
    Undefined,
    /// The caps were hit before exploration finished; nothing was proven.
    Partial,
}

impl Verdict {
    /// The lowercase name the CLI, its JSON and `expect` lines use.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Race => "race",
            Verdict::Deadlock => "deadlock",
            Verdict::Undefined => "undefined",
            Verdict::Partial => "partial",
        }
    }

    /// The `expect` word this verdict satisfies; a partial run proves nothing.
    pub fn expect(self) -> Option<crate::model::Expect> {
        use crate::model::Expect;
        match self {
            Verdict::Correct => Some(Expect::Correct),
            Verdict::Race => Some(Expect::Race),
            Verdict::Deadlock => Some(Expect::Deadlock),
            Verdict::Undefined => Some(Expect::Undefined),
            Verdict::Partial => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FindingKind {
    /// Conflicting accesses neither morally strong nor causality-ordered (a stale read is
    /// the visible symptom of one).
    Race,
    Deadlock,
    Undefined,
}

/// Which synchronization is missing, for a race (issue 4's classification).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RaceReason {
    NoSynchronization,
    ExecutionOrderOnly,
    ScopeMismatch,
    MissingProxyFence,
    StateSpaceRestriction,
    AsyncNotObserved,
    WrongPhase,
    /// A `tcgen05.fence::before_thread_sync`/`after_thread_sync` missing, or on the wrong
    /// side of the synchronization it must order (reference §8.4).
    MissingTcgen05Fence,
    /// Two strong accesses of partly overlapping byte ranges (`[x+OFFSET]`): only
    /// accesses of exactly the same bytes are morally strong (reference §1.3, §1.4).
    MixedSize,
}

/// One access named by a finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// Thread name, or an async agent's name such as `tma#0 (producer)`.
    pub agent: String,
    /// Thread whose program holds the instruction (the issuer, for async agents).
    pub thread: String,
    /// Index of the instruction in that thread's program.
    pub instr: usize,
    pub location: String,
    pub is_write: bool,
    /// Index of the step in the witness that performed it.
    pub step: usize,
}

/// An agent a deadlock leaves stuck, at the instruction it cannot pass.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocked {
    /// Thread name, or an async agent's name such as `tma#0 (producer)`.
    pub agent: String,
    /// Thread whose program holds the instruction (the issuer, for async agents).
    pub thread: String,
    /// Index of the instruction in that thread's program.
    pub instr: usize,
    /// What it waits for, e.g. "waits on `full` for parity 0; ...".
    pub waits_for: String,
}

/// One end of the synchronization a finding lacks: the instruction of the step that released
/// or tried to acquire (or, for a deadlock, paid into the phase a wait needs), so the reader
/// knows what to change when the racing accesses or the stuck wait themselves are not it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeEnd {
    /// Thread whose program holds the instruction (the issuer, for async agents).
    pub thread: String,
    /// Index of the instruction in that thread's program.
    pub instr: usize,
    /// Index of the step in the witness.
    pub step: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub reason: Option<RaceReason>,
    /// One line, rustc style: lowercase, no trailing period.
    pub message: String,
    /// Why, in plain words, and what would fix it.
    pub explanation: String,
    /// The memory accesses involved (races, and undefined behaviour at an access). Each
    /// names a location and a step of the witness.
    pub accesses: Vec<Access>,
    /// For a deadlock: who is stuck where (a stuck agent made no access, so it is no
    /// [`Access`]).
    #[serde(default)]
    pub blocked: Vec<Blocked>,
    /// For a race: the ends of the synchronization that explains it, release first (a
    /// release end is missing when nothing released), then the acquire: the one that failed
    /// to form, or else the one that formed between the two sides without carrying the
    /// access. For a deadlock on mbarriers: the unmet obligation, the steps that paid into
    /// the phase the stuck waits need and the last steps of the threads that used the
    /// barrier and finished without completing it.
    #[serde(default)]
    pub missing_edge: Vec<EdgeEnd>,
    /// Shortest schedule that reaches the finding.
    pub witness: Schedule,
}

/// One reachable final state, projected on the terms the conditions mention.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// `(term, value)` pairs, e.g. `("consumer:r0", 42)`.
    pub values: Vec<(String, i64)>,
    /// How many explored executions ended here.
    pub count: u64,
    /// Allowed by the PTX axioms but reached by no interleaving the explorer runs (load
    /// buffering, coherence against execution order); `count` is then 0. Set by
    /// `axiom::table::complete_outcomes`, never by the explorer.
    #[serde(default)]
    pub unreached: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionResult {
    /// Index into `Scenario::conditions`.
    pub index: usize,
    /// `exists`: the condition is reachable. `~exists`/`forall`: it holds in every execution.
    pub holds: bool,
    /// An execution showing the answer (reaching it, or violating it), when there is one.
    pub witness: Option<Schedule>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectationResult {
    /// What was declared, e.g. `expect correct` or `forall (consumer:r0 == 42)`.
    pub declared: String,
    pub ok: bool,
    /// What was found instead, when not ok; when ok, empty or how it holds (a final
    /// condition only states no interleaving reaches satisfy: `axiom::table`).
    pub actual: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    pub states: u64,
    pub transitions: u64,
    /// False when a cap stopped exploration.
    pub complete: bool,
    /// The memory cap, not the state cap, stopped exploration. (Always serialized: the
    /// worker's replies are postcard, which cannot skip a field.)
    #[serde(default)]
    pub memory_cap: bool,
}

impl Stats {
    /// Why exploration stopped early, for messages: `None` when it finished.
    pub fn stopped_by(&self) -> Option<&'static str> {
        match (self.complete, self.memory_cap) {
            (true, _) => None,
            (false, true) => Some("the memory cap"),
            (false, false) => Some("the state cap"),
        }
    }
}

/// How far a running check has got, for callers that show progress. The checker runs
/// the scenario once per pass: a second pass, in the other mode, only when the scenario
/// touches a point where the spec is silent (and the first pass finished).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Distinct states found so far in this pass.
    pub states: u64,
    pub transitions: u64,
    /// The pass stops (partial) at this many states.
    pub max_states: u64,
    /// 1-based pass number, at most `passes`.
    pub pass: u8,
    /// Passes planned; a second one is skipped when the first stops at the cap.
    pub passes: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub mode: Mode,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    pub outcomes: Vec<Outcome>,
    pub conditions: Vec<ConditionResult>,
    pub expectations: Vec<ExpectationResult>,
    /// Whether some reachable state hangs (for liveness checks).
    pub hangs: bool,
    /// Set when the other mode gives a different verdict, saying how and why; for a
    /// scenario the checker could not run, why not ([`Report::not_run`]).
    pub mode_note: Option<String>,
    pub stats: Stats,
}

impl Report {
    /// Why the checker could not run the scenario at all (a partial run with no state
    /// explored), as opposed to stopping at the state cap.
    pub fn not_run(&self) -> Option<&str> {
        (self.verdict == Verdict::Partial && self.stats.states == 0).then(|| self.mode_note.as_deref().unwrap_or("no reason given"))
    }
}
