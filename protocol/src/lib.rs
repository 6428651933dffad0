//! Messages between the page and the checker worker, and the worker's answering of them:
//! postcard bytes both ways (the page already links postcard for share links, so this
//! costs no JSON code), so the worker needs no shared memory and a malformed message is
//! just an error reply. A crate of its own because two wasms answer requests: the app's
//! own (components/, built for size) and the speed-built engine the worker fetches after
//! load (engine/); both are built from one tree, so the encoding never crosses versions.
//! Only the engine answers fix requests (the `fix` feature), so the page's wasm carries
//! the fix search's answer types but not the search.

#[cfg(feature = "fix")]
use fencelab::check::Verdict;
use fencelab::check::{check_with_progress, Mode, Options, Progress, Report};
#[cfg(feature = "fix")]
use fencelab::fix::{fix, improve, Limits};
use fencelab::fix::{Improvement, Search};
use fencelab::link::{decode_postcard, LinkError};
use fencelab::model::Scenario;
use serde::{Deserialize, Serialize};

/// The worker posts progress at most this often (ms), and not at all for shorter runs.
pub const PROGRESS_EVERY_MS: f64 = 100.0;

/// Page → worker: check this scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckRequest {
    /// Echoed in the replies, so the page can drop answers to stale requests.
    pub id: u64,
    pub scenario: Scenario,
    pub options: Options,
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum CheckReply {
    /// The worker has loaded and listens; requests sent before this would be lost.
    Ready,
    /// How far the check of request `id` has got; zero or more come before its `Done`.
    Progress { id: u64, progress: Progress },
    Done { id: u64, report: Report, timing: WorkerTiming },
    /// The request could not be read (a bug in the page, never the user's fault).
    Invalid { message: String },
    /// How many checker runs fix request `id` has made, of at most `total`.
    FixProgress { id: u64, done: usize, total: usize },
    /// The fix search's answer, or why it could not run, and how long it took by the
    /// worker's clock (ms).
    FixDone { id: u64, outcome: Result<FixOutcome, String>, search_ms: f64 },
    /// The fix search runs only in the engine, which this worker is still fetching: the
    /// request waits for it.
    FixLoading,
    /// No fix search can run in this worker: its engine did not load or stopped (why).
    FixUnavailable { why: String },
    /// The checker's code (a chunk the worker fetches) is here: from now on a request is
    /// checked as soon as it comes, so one that replaces it needs a fresh worker.
    CheckerLoaded,
    /// The checker's code did not load, so the newest request was not checked (why, for
    /// the verdict panel); the next request tries again.
    CheckerUnavailable { message: String },
}

/// Page → worker: search fixes (a scenario that is not correct in `mode`) or necessity and
/// cheaper equivalents (a correct one), as `fencelab fix` does. Sent wrapped as
/// `{fix: bytes}`, so a plain check request keeps its encoding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixRequest {
    pub id: u64,
    /// The editor text: fixes are edits of it, and their `text` replaces it.
    pub source: String,
    /// The mode searched in, which may differ from the checker panel's.
    pub mode: Mode,
    /// Most edits in one fix (`--max-edits`).
    pub max_edits: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FixOutcome {
    Repaired(Search),
    Improved(Improvement),
}

/// The worker's answer to a fix request: a first `FixProgress` at once (the search has
/// started), throttled progress, then one `FixDone`. Like the
/// CLI, it repairs a scenario that is not correct in the request's mode and otherwise says
/// which steps matter: the panel's choice was made on the verdict of the checker's mode.
#[cfg(feature = "fix")]
pub fn answer_fix(request: &[u8], now: &dyn Fn() -> f64, post: &mut dyn FnMut(Vec<u8>)) {
    let started = now();
    let req = match decode_postcard::<FixRequest>(request) {
        Ok(req) => req,
        Err(err) => {
            post(encode(&CheckReply::Invalid { message: format!("unreadable fix request: {err}") }));
            return;
        }
    };
    post(encode(&CheckReply::FixProgress { id: req.id, done: 0, total: 0 }));
    let mut throttle = Throttle { every_ms: PROGRESS_EVERY_MS, last_ms: started };
    // The page cancels by terminating the worker, so the search itself never stops early here.
    let mut on_progress = |done: usize, total: usize| {
        if throttle.due(now()) {
            post(encode(&CheckReply::FixProgress { id: req.id, done, total }));
        }
        true
    };
    let limits = Limits { max_edits: req.max_edits.clamp(1, MAX_EDITS), ..Limits::default() };
    let outcome = match fix(&req.source, req.mode, &limits, &mut on_progress) {
        Ok(search) if search.verdict == Verdict::Correct => improve(&req.source, req.mode, &limits, &mut on_progress).map(FixOutcome::Improved),
        found => found.map(FixOutcome::Repaired),
    };
    let search_ms = now() - started;
    post(encode(&CheckReply::FixDone { id: req.id, outcome: outcome.map_err(|err| err.to_string()), search_ms }));
}

/// The most edits per fix the page may ask for: each one more multiplies the search.
pub const MAX_EDITS: usize = 6;

/// Where the worker spent its time on one request, by its own clock (ms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerTiming {
    /// Reading the request text.
    pub decode_ms: f64,
    /// The checker itself.
    pub check_ms: f64,
    pub answered_by: Answerer,
    /// The answering wasm's linear memory (bytes) when the request came and when the
    /// report was ready. A wasm memory never shrinks, so the second is the most it has held
    /// so far; what the memory cap bounds (benches/results/2026-12-05-worker-memory.md).
    /// 0 outside wasm.
    pub memory_before: u64,
    pub memory_after: u64,
}

/// This wasm's linear memory in bytes (0 outside wasm): what the tab really holds for it.
pub fn linear_memory_bytes() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size(0) as u64 * 65536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// Which build of the checker answered a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answerer {
    /// The build, which checked the starter scenario (the app's `starter`): the page shows
    /// that report while its worker starts.
    Build,
    /// The worker, with the app's own wasm (built for size).
    #[default]
    Worker,
    /// The worker, with the speed-built engine it fetched after load (engine/).
    Engine,
}

impl Answerer {
    /// The name the verdict panel shows the timing scripts (`data-worker-answered-by`).
    pub fn name(self) -> &'static str {
        match self {
            Answerer::Build => "build",
            Answerer::Worker => "worker",
            Answerer::Engine => "engine",
        }
    }
}

/// The worker's whole job: one request in, progress and one reply out through `post`.
/// `now` is the worker's clock (ms); the checker itself reads none. `answered_by` names
/// the build running this, for the reply's timing.
pub fn answer(request: &[u8], answered_by: Answerer, now: &dyn Fn() -> f64, post: &mut dyn FnMut(Vec<u8>)) {
    let started = now();
    let memory_before = linear_memory_bytes();
    let req = match decode_postcard::<CheckRequest>(request) {
        Ok(req) => req,
        Err(err) => {
            post(encode(&CheckReply::Invalid { message: format!("unreadable check request: {err}") }));
            return;
        }
    };
    let decoded = now();
    let mut throttle = Throttle { every_ms: PROGRESS_EVERY_MS, last_ms: decoded };
    let mut report = check_with_progress(&req.scenario, &req.options, &mut |progress| {
        if throttle.due(now()) {
            post(encode(&CheckReply::Progress { id: req.id, progress }));
        }
    });
    // The cause first, as `fencelab check` orders it (the engine carries the fix search);
    // before the axioms add findings the re-checks cannot see.
    #[cfg(feature = "fix")]
    fencelab::fix::order_by_cause(&req.scenario, &mut report);
    fencelab::axiom::table::complete_outcomes(&req.scenario, &mut report);
    let timing = WorkerTiming {
        decode_ms: decoded - started,
        check_ms: now() - decoded,
        answered_by,
        memory_before,
        memory_after: linear_memory_bytes(),
    };
    post(encode(&CheckReply::Done { id: req.id, report, timing }));
}

/// Lets one event through per `every_ms`, the first one `every_ms` after the start.
struct Throttle {
    every_ms: f64,
    last_ms: f64,
}

impl Throttle {
    fn due(&mut self, now_ms: f64) -> bool {
        let due = now_ms - self.last_ms >= self.every_ms;
        if due {
            self.last_ms = now_ms;
        }
        due
    }
}

pub fn encode(reply: &CheckReply) -> Vec<u8> {
    // Serializing plain data into a growing buffer cannot fail; fall back to a readable error.
    postcard::to_allocvec(reply).unwrap_or_else(|err| {
        let message = format!("fencelab internal bug: reply not serializable: {err}");
        postcard::to_allocvec(&CheckReply::Invalid { message }).unwrap_or_default()
    })
}

/// Reads a reply the worker posted (through the share links' decoder: see `decode_postcard`).
pub fn decode_reply(bytes: &[u8]) -> Result<CheckReply, LinkError> {
    decode_postcard(bytes)
}

/// Writes a fix request for the worker.
pub fn encode_fix_request(request: &FixRequest) -> Result<Vec<u8>, postcard::Error> {
    postcard::to_allocvec(request)
}

/// Writes a request for the worker.
pub fn encode_request(request: &CheckRequest) -> Result<Vec<u8>, postcard::Error> {
    postcard::to_allocvec(request)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    // The app's two templates (the fix search's tests take the racy one).
    const MESSAGE_PASSING: &str = include_str!("../../components/templates/mp-release-acquire.fence");
    #[cfg(feature = "fix")]
    const RACY_MESSAGE_PASSING: &str = include_str!("../../components/templates/mp-relaxed.fence");

    fn decode(bytes: &[u8]) -> CheckReply {
        decode_reply(bytes).expect("reply decodes")
    }

    /// Runs `answer` with a clock that advances `tick_ms` on every reading.
    fn replies(request: &[u8], tick_ms: f64) -> Vec<CheckReply> {
        let clock = Cell::new(0.0);
        let now = || {
            clock.set(clock.get() + tick_ms);
            clock.get()
        };
        let mut out = Vec::new();
        answer(request, Answerer::Engine, &now, &mut |bytes| out.push(decode(&bytes)));
        out
    }

    fn request(id: u64, max_states: u64) -> Vec<u8> {
        let scenario = fencelab::load(MESSAGE_PASSING).scenario;
        encode_request(&CheckRequest { id, scenario, options: Options { max_states, ..Options::default() } })
            .expect("request serializes")
    }

    #[test]
    fn garbage_request_gets_an_invalid_reply() {
        let out = replies(b"\xff\xff\xff", 1.0);
        assert!(matches!(out.as_slice(), [CheckReply::Invalid { message }] if message.contains("unreadable")));
    }

    /// The replies to a fix request after the first, which says at once that the search
    /// started (the page shows "Searching…" from it, no longer that the engine loads).
    #[cfg(feature = "fix")]
    fn fix_replies(source: &str, max_edits: usize) -> Vec<CheckReply> {
        let bytes = encode_fix_request(&FixRequest { id: 4, source: source.to_string(), mode: Mode::Strict, max_edits })
            .expect("request serializes");
        let mut out = Vec::new();
        answer_fix(&bytes, &|| 0.0, &mut |b| out.push(decode(&b)));
        assert_eq!(out.first(), Some(&CheckReply::FixProgress { id: 4, done: 0, total: 0 }), "{out:?}");
        out.split_off(1)
    }

    #[cfg(feature = "fix")]
    #[test]
    fn a_fix_request_on_racy_message_passing_answers_verified_fixes() {
        let out = fix_replies(RACY_MESSAGE_PASSING, 4);
        let [CheckReply::FixDone { id: 4, outcome: Ok(FixOutcome::Repaired(search)), .. }] = out.as_slice() else { panic!("one FixDone: {out:?}") };
        assert!(!search.fixes.is_empty(), "{search:?}");
        for found in &search.fixes {
            assert!(!found.edits.is_empty() && found.text.contains("expect correct"), "{found:?}");
        }
    }

    #[cfg(feature = "fix")]
    #[test]
    fn the_edit_limit_reaches_the_search() {
        // Racy message passing is repaired cheaply by a release and an acquire: two search
        // steps, which a limit of two reaches as well as four does. One step only reaches
        // the dearer `bar.sync` in both threads (one compound step).
        let source = RACY_MESSAGE_PASSING;
        let cheapest = |max_edits| match fix_replies(source, max_edits).as_slice() {
            [CheckReply::FixDone { outcome: Ok(FixOutcome::Repaired(search)), .. }] => search.fixes.iter().map(|f| f.cost).min(),
            out => panic!("one FixDone: {out:?}"),
        };
        let (one, two, four) = (cheapest(1), cheapest(2), cheapest(4));
        assert!(matches!((one, four), (Some(a), Some(b)) if b < a), "cheapest with one step {one:?}, with four {four:?}");
        assert_eq!(two, four, "two steps reach the release/acquire pair");
    }

    #[cfg(feature = "fix")]
    #[test]
    fn a_correct_scenario_is_told_which_steps_matter() {
        let out = fix_replies(MESSAGE_PASSING, 4);
        let [CheckReply::FixDone { outcome: Ok(FixOutcome::Improved(found)), .. }] = out.as_slice() else { panic!("one FixDone: {out:?}") };
        assert!(found.necessary.len() >= 2, "the release and the acquire: {found:?}");
    }

    #[test]
    fn ready_round_trips() {
        assert_eq!(decode(&encode(&CheckReply::Ready)), CheckReply::Ready);
    }

    #[test]
    fn the_checker_code_replies_round_trip_and_keep_older_variants_encoded_as_they_were() {
        for reply in [CheckReply::CheckerLoaded, CheckReply::CheckerUnavailable { message: "offline".into() }] {
            assert_eq!(decode(&encode(&reply)), reply);
        }
        // Added last, so a reply the page already knew has the same bytes as before.
        assert_eq!(encode(&CheckReply::Ready), [0]);
    }

    #[test]
    fn progress_round_trips() {
        let progress = Progress { states: 1024, transitions: 2000, max_states: 200_000, pass: 2, passes: 2 };
        let reply = CheckReply::Progress { id: 7, progress };
        assert_eq!(decode(&encode(&reply)), reply);
    }

    #[test]
    fn a_fast_clock_run_answers_once_with_its_own_timing() {
        let out = replies(&request(3, 200_000), 0.001);
        let [CheckReply::Done { id, report, timing }] = out.as_slice() else { panic!("one Done: {out:?}") };
        assert_eq!(*id, 3);
        assert_eq!(timing.answered_by, Answerer::Engine, "the reply names the build that answered");
        assert!(report.stats.complete && report.stats.states > 1, "{:?}", report.stats);
        assert!(timing.decode_ms > 0.0 && timing.check_ms > 0.0, "{timing:?}");
    }

    /// Three threads racing on one location: thousands of states.
    const SLOW_SCENARIO: &str = "cta A\nglobal x = 0\n\
            thread a @A:\n    st.relaxed.gpu.global [x], 1\n    st.relaxed.gpu.global [x], 2\n    ld.relaxed.gpu.global r0, [x]\n\
            thread b @A:\n    st.relaxed.gpu.global [x], 3\n    st.relaxed.gpu.global [x], 4\n    ld.relaxed.gpu.global r0, [x]\n\
            thread c @A:\n    st.relaxed.gpu.global [x], 5\n    ld.relaxed.gpu.global r0, [x]\n    ld.relaxed.gpu.global r1, [x]\n";

    #[test]
    fn a_slow_clock_run_reports_progress_for_its_request_before_the_answer() {
        // Each clock reading is 60 ms later, so every other progress call is let through.
        let loaded = fencelab::load(SLOW_SCENARIO);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let bytes = encode_request(&CheckRequest { id: 9, scenario: loaded.scenario, options: Options::default() })
            .expect("request serializes");
        let out = replies(&bytes, 60.0);
        let Some((CheckReply::Done { id: 9, report, .. }, progress)) = out.split_last() else { panic!("ends in Done: {out:?}") };
        assert!(!progress.is_empty(), "a run of {} states reports progress", report.stats.states);
        for reply in progress {
            let CheckReply::Progress { id: 9, progress } = reply else { panic!("only progress before Done: {reply:?}") };
            assert!(progress.states <= report.stats.states);
        }
    }

    /// The engine orders findings by cause as `fencelab check` does: the payload's race,
    /// whose mend also mends the header's, before the header's (discovered first).
    #[cfg(feature = "fix")]
    #[test]
    fn the_engine_lists_the_cause_first_as_the_cli_does() {
        let src = include_str!("../../tests/scenarios/checker/header_early_payload_late_relaxed_flag.fence");
        let request = CheckRequest { id: 3, scenario: fencelab::load(src).scenario, options: Options::default() };
        let bytes = encode_request(&request).expect("the request encodes");
        let report = replies(&bytes, 1.0)
            .into_iter()
            .find_map(|reply| match reply {
                CheckReply::Done { report, .. } => Some(report),
                _ => None,
            })
            .expect("a report");
        let locations: Vec<&str> = report.findings.iter().filter_map(|f| f.accesses.first().map(|a| a.location.as_str())).collect();
        assert_eq!(locations, ["payload", "header"]);
        assert!(report.findings[0].explanation.contains("Listed first: writing `st.release.gpu.global [flag], 1`"), "{}", report.findings[0].explanation);
    }
}
