//! The checker's public API: determinism, witness replay, the stepper, and the
//! partial-order reduction's scaling on independent pairs.

use std::path::Path;

use fencelab::check::view::AgentStatusView;
use fencelab::check::{check, FindingKind, Mode, Options, StepError, Stepper, Verdict};
use fencelab::schedule::Step;

#[path = "support/mp_pairs.rs"]
mod mp_pairs;

use mp_pairs::mp_pairs;

fn scenario(src: &str) -> fencelab::model::Scenario {
    let loaded = fencelab::load(src);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    loaded.scenario
}

const MP_RELAXED: &str = "cta A\ncta B\nglobal data = 0\nglobal flag = 0\n\
thread producer @A:\n    st.global [data], 42\n    st.relaxed.gpu.global [flag], 1\n\
thread consumer @B:\n    ld.relaxed.gpu.global r0, [flag]\n    ld.global r1, [data]\n";


#[test]
fn independent_pairs_cost_the_sum_of_their_states() {
    let states: Vec<u64> = (1..=5)
        .map(|k| {
            let r = check(&scenario(&mp_pairs(k)), &Options::default());
            assert_eq!(r.verdict, Verdict::Correct, "k = {k}");
            r.stats.states
        })
        .collect();
    let per_pair = states[1] - states[0];
    for (k, pair) in states.windows(2).enumerate() {
        assert_eq!(pair[1] - pair[0], per_pair, "growth from k = {} to {} is not linear: {states:?}", k + 1, k + 2);
    }
}

#[test]
fn exploration_is_deterministic() {
    let s = scenario(MP_RELAXED);
    let a = serde_json::to_string(&check(&s, &Options::default())).unwrap_or_default();
    let b = serde_json::to_string(&check(&s, &Options::default())).unwrap_or_default();
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn state_cap_gives_a_partial_verdict() {
    let r = check(&scenario(&mp_pairs(3)), &Options { mode: Mode::Pragmatic, max_states: 5, ..Options::default() });
    assert_eq!(r.verdict, Verdict::Partial);
    assert!(!r.stats.complete);
}

#[path = "support/relaxed_threads.rs"]
mod relaxed_threads;

#[test]
fn memory_cap_stops_exploration_cleanly_and_says_so() {
    let s = scenario(&relaxed_threads::relaxed_threads(4, 8));
    let capped = check(&s, &Options { mode: Mode::Pragmatic, max_bytes: 2 << 20, ..Options::default() });
    assert_eq!(capped.verdict, Verdict::Partial);
    assert!(capped.stats.memory_cap, "{:?}", capped.stats);
    assert!(capped.stats.states < Options::default().max_states);
    let expectation = capped.expectations.first().map(|e| e.actual.clone()).unwrap_or_default();
    assert!(expectation.contains("memory cap"), "{expectation}");
    // A larger budget explores further, and the state cap is still told apart.
    let roomier = check(&s, &Options { mode: Mode::Pragmatic, max_bytes: 8 << 20, ..Options::default() });
    assert!(roomier.stats.states > capped.stats.states, "{} vs {}", roomier.stats.states, capped.stats.states);
    let by_states = check(&s, &Options { mode: Mode::Pragmatic, max_states: 50, ..Options::default() });
    assert!(!by_states.stats.memory_cap && !by_states.stats.complete);
    assert_eq!(by_states.stats.stopped_by(), Some("the state cap"));
}

#[test]
fn every_witness_replays_to_its_finding() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/checker");
    let mut checked = 0;
    // Only scenarios: GPU observations (`*.observed.json`) sit beside them.
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten().filter(|e| e.path().extension().is_some_and(|x| x == "fence")) {
        let src = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let s = scenario(&src);
        let report = check(&s, &Options::default());
        for f in report.findings.iter().filter(|f| f.kind != FindingKind::Deadlock) {
            let stepper = Stepper::replay(&s, Mode::Pragmatic, &f.witness)
                .unwrap_or_else(|e| panic!("{}: witness does not replay: {e}", entry.path().display()));
            let last = stepper.history().last().map(|e| e.findings.clone()).unwrap_or_default();
            assert!(last.contains(&f.message), "{}: last step of the witness shows {last:?}, not {}", entry.path().display(), f.message);
            checked += 1;
        }
        for f in report.findings.iter().filter(|f| f.kind == FindingKind::Deadlock && f.message.starts_with("deadlock")) {
            let stepper = Stepper::replay(&s, Mode::Pragmatic, &f.witness).unwrap_or_else(|e| panic!("{e}"));
            assert!(stepper.agents().iter().all(|a| !matches!(a.status, AgentStatusView::Enabled { .. })));
        }
    }
    assert!(checked > 10);
}

#[test]
fn stepper_shows_stale_read_choices_and_undoes() {
    let s = scenario(MP_RELAXED);
    let mut st = Stepper::new(&s, Mode::Pragmatic).unwrap_or_else(|e| panic!("{e}"));
    let agents = st.agents();
    assert_eq!(agents.len(), 2);
    assert_eq!(agents[0].name, "producer");
    for _ in 0..2 {
        st.step(Step { agent: 0, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    }
    // Consumer reads the flag: either value is possible (relaxed, not yet ordered).
    let choices = match &st.agents()[1].status {
        AgentStatusView::Enabled { choices } => choices.clone(),
        other => panic!("consumer not enabled: {other:?}"),
    };
    assert_eq!(choices.len(), 2);
    assert!(choices[0].label.contains("stale"), "{}", choices[0].label);
    st.step(Step { agent: 1, choice: 1 }).unwrap_or_else(|e| panic!("{e}"));
    // The data read may still return the initial value: executed is not visible.
    let view = st.snapshot();
    let data = view.locations.iter().find(|l| l.name == "data").unwrap_or_else(|| panic!("no data"));
    assert_eq!(data.writes.len(), 2);
    let consumer_generic = data.visibility.iter().find(|v| v.agent_name == "consumer" && v.proxy == "generic");
    assert_eq!(consumer_generic.map(|v| v.readable.clone()), Some(vec![0, 1]));
    let ev = st.step(Step { agent: 1, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    assert!(ev.description.contains("data = 0"));
    assert!(ev.findings.iter().any(|f| f.contains("data race on `data`")));
    assert_eq!(st.schedule().steps.len(), 4);
    assert!(st.undo());
    assert_eq!(st.history().len(), 3);
    let err = st.step(Step { agent: 1, choice: 7 }).unwrap_err();
    assert_eq!(err, StepError::NoSuchChoice { agent: "consumer".into(), choices: 2, choice: 7 });
    assert_eq!(err.to_string(), "consumer has 2 choices, not 8");
    assert_eq!(st.step(Step { agent: 9, choice: 0 }).unwrap_err(), StepError::NoSuchAgent { agent: 9 });
}

#[test]
fn stepper_errors_name_the_agent_and_the_failing_step() {
    let src = "cta A\nglobal x = 0\nmbarrier bar @A count 1\n\
thread p @A:\n    st [x], 1\n\
thread q @A:\n    wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0\n";
    let s = scenario(src);
    let mut st = Stepper::new(&s, Mode::Pragmatic).unwrap_or_else(|e| panic!("{e}"));
    match st.step(Step { agent: 1, choice: 0 }) {
        Err(StepError::Blocked { agent, reason }) => assert!(agent == "q" && !reason.is_empty(), "{agent}: {reason}"),
        other => panic!("the waiter is not blocked: {other:?}"),
    }
    st.step(Step { agent: 0, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(st.step(Step { agent: 0, choice: 0 }).unwrap_err(), StepError::Finished { agent: "p".into() });
    let stuck = fencelab::schedule::Schedule { steps: vec![Step { agent: 0, choice: 0 }, Step { agent: 0, choice: 0 }] };
    let err = Stepper::replay(&s, Mode::Pragmatic, &stuck).unwrap_err();
    assert_eq!(err, StepError::Replay { step: 2, error: Box::new(StepError::Finished { agent: "p".into() }) });
    assert_eq!(err.to_string(), "step 2: p has finished");
    let mut empty = s.clone();
    empty.threads.clear();
    assert!(matches!(Stepper::new(&empty, Mode::Pragmatic), Err(StepError::Unrunnable(_))));
}

#[test]
fn stepper_reports_formed_and_failed_edges() {
    let src = "cta A\ncta B\nglobal data = 0\nglobal flag = 0\n\
thread producer @A:\n    st.global [data], 42\n    st.release.cta.global [flag], 1\n\
thread consumer @B:\n    ld.acquire.gpu.global r0, [flag]\n";
    let s = scenario(src);
    let mut st = Stepper::new(&s, Mode::Pragmatic).unwrap_or_else(|e| panic!("{e}"));
    st.step(Step { agent: 0, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    st.step(Step { agent: 0, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    let ev = st.step(Step { agent: 1, choice: 1 }).unwrap_or_else(|e| panic!("{e}"));
    assert!(ev.edges.is_empty());
    assert!(!ev.failed_edges.is_empty());
    assert!(ev.failed_edges[0].reason.contains("not morally strong"), "{}", ev.failed_edges[0].reason);
    assert_eq!(st.snapshot().failed_edges.len(), ev.failed_edges.len());
}

/// Lesson 3's shape: `st.release.cta` read by `ld.acquire.gpu` in another CTA. The write is
/// itself the release, so the one edge that failed to form is listed once, from the write.
#[test]
fn a_write_that_is_its_own_release_lists_its_failed_edge_once() {
    let src = "cta A\ncta B\nglobal data = 0\nglobal flag = 0\n\
thread producer @A:\n    st.global [data], 42\n    st.release.cta.global [flag], 1\n\
thread consumer @B:\n    wait ld.acquire.gpu.global r1, [flag] == 1\n    ld.global r0, [data]\n";
    let mut st = Stepper::new(&scenario(src), Mode::Pragmatic).unwrap_or_else(|e| panic!("{e}"));
    for agent in [0, 0] {
        st.step(Step { agent, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    }
    let ev = st.step(Step { agent: 1, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    let from_steps: Vec<Option<usize>> = ev.failed_edges.iter().map(|f| f.from_step).collect();
    assert_eq!(from_steps, vec![Some(1)], "{:?}", ev.failed_edges);
    assert!(ev.failed_edges[0].reason.contains("not morally strong"), "{}", ev.failed_edges[0].reason);
    assert_eq!(st.snapshot().failed_edges, ev.failed_edges);
}

#[test]
fn reading_data_already_ordered_is_not_a_failed_edge() {
    let handoff = |arrive_sem: &str| {
        format!(
            "cta A\nshared x @A = 0\nmbarrier bar @A count 1\n\
thread producer @A:\n    st.shared [x], 42\n    mbarrier.arrive{arrive_sem}.shared::cta [bar]\n\
thread consumer @A:\n    wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0\n    ld.shared r0, [x]\n"
        )
    };
    let run_to_end = |src: &str| {
        let mut st = Stepper::new(&scenario(src), Mode::Pragmatic).unwrap_or_else(|e| panic!("{e}"));
        for agent in [0, 0, 1, 1] {
            st.step(Step { agent, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
        }
        st.snapshot()
    };
    let correct = run_to_end(&handoff(".release.cta"));
    assert_eq!(correct.edges.len(), 1, "the arrive synchronizes with the wait");
    assert_eq!(correct.failed_edges, vec![], "the load reads data the wait already ordered");
    let relaxed = run_to_end(&handoff(".relaxed.cta"));
    assert!(relaxed.edges.is_empty());
    assert!(!relaxed.failed_edges.is_empty(), "the weak load of unordered data explains the race");
}

#[test]
fn mbarrier_view_tracks_phase_and_tx() {
    let src = "cta A\nmbarrier full @A count 1\n\
thread p @A:\n    mbarrier.expect_tx.shared::cta [full], 64\n    mbarrier.arrive.shared::cta [full]\n\
thread c @A:\n    wait mbarrier.try_wait.parity.shared::cta [full], 0\n";
    let s = scenario(src);
    let mut st = Stepper::new(&s, Mode::Pragmatic).unwrap_or_else(|e| panic!("{e}"));
    st.step(Step { agent: 0, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    st.step(Step { agent: 0, choice: 0 }).unwrap_or_else(|e| panic!("{e}"));
    let v = st.snapshot();
    let b = &v.mbarriers[0];
    assert_eq!((b.phase, b.pending, b.tx), (0, 0, 64));
    assert_eq!(b.waiters.len(), 1);
    assert!(matches!(&st.agents()[1].status, AgentStatusView::Blocked { reason } if reason.contains("tx-count +64")));
    let r = check(&s, &Options::default());
    assert_eq!(r.verdict, Verdict::Deadlock);
    assert!(r.hangs);
}

/// A scenario the checker cannot run says why, and its expect line blames that reason,
/// not the state cap.
#[test]
fn pending_count_is_reported_as_not_modelled_not_as_a_state_cap() {
    let s = scenario(
        "cta A\nmbarrier m @A count 2\n\nthread t @A:\n    mbarrier.arrive.shared::cta st, [m]\n    mbarrier.pending_count r0, st\n\nexpect correct\n",
    );
    let report = check(&s, &Options::default());
    assert_eq!(report.verdict, Verdict::Partial);
    assert_eq!(report.stats.states, 0);
    let note = report.mode_note.clone().unwrap_or_default();
    assert!(note.contains("pending_count") && note.contains("not modelled"), "{note}");
    let actual = &report.expectations[0].actual;
    assert!(!actual.contains("state cap") && actual.contains("not modelled"), "{actual}");
}
