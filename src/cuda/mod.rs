//! The hardware lens: a scenario as a self-contained CUDA C++ litmus harness for Hopper
//! (sm_90a), and observations of such runs set beside the checker's outcome table.
//!
//! `generate` is pure (scenario in, source text out). The harness runs many independent
//! instances of the scenario per launch: each scenario CTA is a CTA of a hardware cluster
//! (`__cluster_dims__`), each scenario thread a warp (four for a wgmma warpgroup) whose
//! lane 0 runs the program in inline PTX, exactly as written. Around it: L1 priming of
//! the global locations a thread reads, a per-instance start rendezvous, random start
//! delays, memory-stress CTAs, and bounded spins (a timeout is reported as an outcome,
//! never a hang). `docs/hardware.md` describes the harness and the result format.

mod emit;
mod host;
mod observed;
mod plan;

pub use observed::{compare, Comparison, ObservedOutcome, Observation, ObservationError, OutcomeRow};

use std::fmt;

use crate::check::{check, Options};
use crate::model::{BarKind, Instr, Scenario};

/// States the hang check may explore before it gives up and refuses.
const HANG_CHECK_STATES: u64 = 200_000;

/// Largest cluster the harness launches (the portable limit, no opt-in attribute).
pub const MAX_CLUSTER: u32 = 8;

/// How many trials the generated program runs unless told otherwise on its command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HarnessOptions {
    /// Total trials (instances × launches).
    pub trials: u64,
    /// Independent instances per launch.
    pub instances: u32,
}

impl Default for HarnessOptions {
    fn default() -> Self {
        HarnessOptions { trials: 307_200, instances: 1024 }
    }
}

/// Something the generator cannot map to the GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// `(thread index, instruction index)` when one instruction is the cause.
    pub at: Option<(usize, usize)>,
    /// The location whose declaration is the cause, by name.
    pub location: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn scenario(message: impl Into<String>) -> Problem {
        Problem { at: None, location: None, message: message.into() }
    }

    pub fn location(name: &str, message: impl Into<String>) -> Problem {
        Problem { at: None, location: Some(name.to_string()), message: message.into() }
    }

    pub fn instr(thread: usize, index: usize, message: impl Into<String>) -> Problem {
        Problem { at: Some((thread, index)), location: None, message: message.into() }
    }
}

/// Every reason a scenario could not be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaError {
    pub problems: Vec<Problem>,
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<&str> = self.problems.iter().map(|p| p.message.as_str()).collect();
        write!(f, "{}", texts.join("; "))
    }
}

impl std::error::Error for CudaError {}

/// The CUDA C++ source of a litmus harness for `scenario`.
pub fn generate(scenario: &Scenario, options: &HarnessOptions) -> Result<String, CudaError> {
    if options.instances == 0 || options.trials == 0 {
        return Err(CudaError { problems: vec![Problem::scenario("trials and instances must be at least 1")] });
    }
    refuse_hangs(scenario)?;
    let blackwell = blackwell_only(scenario);
    let plan = plan::plan(scenario).map_err(|mut problems| {
        problems.extend(blackwell.iter().cloned());
        CudaError { problems }
    })?;
    let kernel = emit::kernel(scenario, &plan).map_err(|problems| CudaError { problems })?;
    Ok(host::program(scenario, &plan, &kernel, options))
}

/// `bar.sync` and `barrier.cluster.wait` cannot be bounded from software: a scenario that
/// can hang on one would hang the GPU, so it is refused (spins on flags and mbarriers are
/// bounded and report timeouts instead).
fn refuse_hangs(scenario: &Scenario) -> Result<(), CudaError> {
    let unbounded = |i: &Instr| matches!(i, Instr::Bar { kind: BarKind::Sync | BarKind::Red, .. } | Instr::ClusterWait);
    let mut problems = Vec::new();
    for (ti, t) in scenario.threads.iter().enumerate() {
        let exits = t.program.iter().position(|i| matches!(i, Instr::Exit));
        if let Some(k) = exits.filter(|_| t.program.iter().any(|i| unbounded(i) || matches!(i, Instr::ClusterArrive { .. }))) {
            problems.push(Problem::instr(ti, k, "`exit` in a thread that also uses a CTA or cluster barrier could leave the barrier one short and hang the GPU"));
        }
    }
    if !problems.is_empty() {
        return Err(CudaError { problems });
    }
    if scenario.threads.iter().any(|t| t.program.iter().any(unbounded)) {
        // Bounded, so generation stays quick; an undecided exploration counts as a risk.
        let report = check(scenario, &Options { max_states: HANG_CHECK_STATES, ..Options::default() });
        if report.hangs || !report.stats.complete {
            return Err(CudaError {
                problems: vec![Problem::scenario(
                    "the checker finds (or cannot rule out) an execution that hangs, and this scenario waits on `bar.sync` or `barrier.cluster`, which cannot time out: it could hang the GPU",
                )],
            });
        }
    }
    Ok(())
}

/// Every tcgen05 instruction, each named: Hopper has no tensor memory.
fn blackwell_only(scenario: &Scenario) -> Vec<Problem> {
    let mut out = Vec::new();
    for (ti, t) in scenario.threads.iter().enumerate() {
        for (k, i) in t.program.iter().enumerate() {
            if matches!(i, Instr::Tc(_)) {
                out.push(Problem::instr(ti, k, emit::TCGEN05_REFUSAL));
            }
        }
    }
    out
}
