//! Strict vs pragmatic (reference §9 item 7, §12): when a scenario touches a point where
//! the spec is silent, the checker also runs the other mode and says when it differs.

use crate::check::report::{Mode, Options, Report, Verdict};
use crate::model::{Instr, Scenario, Silence, TcOp, WgmmaOp};

/// The words for a §12 point.
fn phrase(silence: Silence) -> &'static str {
    match silence {
        Silence::RemoteCompleteTxScope => "which scope a complete-tx signalled by another CTA's TMA needs (§12 #1)",
        Silence::AsyncWriteAfterGenericRead => "WAR from a generic read to an async write (§12 #4)",
        Silence::CpAsyncDataProxy => "the proxy of `cp.async` data writes (§12 #8)",
        Silence::StAsyncDataProxy => "the proxy of `st.async`/`red.async` data writes (§12 #8)",
        Silence::StAsyncOwnCta => "whether `st.async` may target its own CTA (§12 #9)",
        Silence::RelaxedClusterArrive => {
            "whether a relaxed `barrier.cluster.arrive` after a `.cta` release fence releases to the CTA (§12 #11)"
        }
        Silence::Tcgen05Commit => "the semantics of `tcgen05.commit`'s arrive and its missing proxy fence (§12 #16)",
        Silence::RemoteCommitArriveScope => {
            "which scope the arrive-on a `tcgen05.commit` performs on another CTA's barrier needs (§12 #1)"
        }
        Silence::WarThroughRemoteArrive => {
            "whether an arrive on another CTA's barrier after awaited asynchronous reads orders a later write after them (§12 #17)"
        }
        Silence::Tcgen05ThreadSyncFences => {
            "whether release/acquire synchronization stands in for `tcgen05.fence::before_thread_sync`/`::after_thread_sync` (§12 #19)"
        }
    }
}

/// Whether an instruction reads shared memory through the async proxy and completes
/// asynchronously: what §12 #17's leniency is about.
fn async_reader(instr: &Instr) -> bool {
    matches!(instr.unwrapped(), Instr::Wgmma(WgmmaOp::MmaAsync { .. }) | Instr::Tc(TcOp::Mma { .. } | TcOp::MmaPair { .. } | TcOp::Cp { .. }))
}

/// The §12 points a scenario's instructions touch, as short phrases. An arrive on another
/// CTA's barrier touches §12 #17 only where an asynchronous reader could have retired
/// before it.
fn points(scenario: &Scenario) -> Vec<&'static str> {
    let mut out = Vec::new();
    let instrs = || scenario.threads.iter().flat_map(|t| &t.program);
    let readers = instrs().any(async_reader);
    for instr in instrs() {
        let touched = instr.silences().iter().filter(|s| readers || **s != Silence::WarThroughRemoteArrive);
        for p in touched.map(|s| phrase(*s)) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Correct => "correct",
        Verdict::Race => "a race",
        Verdict::Deadlock => "a deadlock",
        Verdict::Undefined => "undefined behaviour",
        Verdict::Partial => "undecided",
    }
}

/// Whether `check` may run the scenario a second time, in the other mode.
pub fn touches_silent_points(scenario: &Scenario) -> bool {
    !points(scenario).is_empty()
}

/// Run the other mode when the scenario touches a §12 point, and note a different verdict.
pub fn with_mode_note(scenario: &Scenario, options: &Options, mut report: Report, run: impl FnOnce(&Options) -> Report) -> Report {
    let touched = points(scenario);
    if report.mode_note.is_some() || touched.is_empty() || !report.stats.complete {
        return report;
    }
    let other_mode = match options.mode {
        Mode::Strict => Mode::Pragmatic,
        Mode::Pragmatic => Mode::Strict,
    };
    let other = run(&Options { mode: other_mode, ..options.clone() });
    if other.verdict != report.verdict && other.verdict != Verdict::Partial {
        let name = |m: Mode| if m == Mode::Strict { "strict" } else { "pragmatic" };
        let why = other.findings.first().map_or(String::new(), |f| format!(" ({})", f.message));
        report.mode_note = Some(format!(
            "{} mode judges this {}, {} mode {}{why}; the spec is silent on {}",
            name(options.mode),
            verdict_text(report.verdict),
            name(other_mode),
            verdict_text(other.verdict),
            touched.join("; ")
        ));
    }
    report
}
