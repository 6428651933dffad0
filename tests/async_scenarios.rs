//! Data-driven tests for the asynchronous agents: every `.fence` file under
//! `tests/scenarios/async/`, `tests/scenarios/pairs/` and `tests/scenarios/production/` must come out as it declares (directives: `support/scenario_files.rs`),
//! and the stepping API shows an async agent's life.

#[path = "support/scenario_files.rs"]
mod scenario_files;

use std::path::Path;

use fencelab::check::Mode;

#[test]
fn async_scenarios_meet_their_expectations() {
    let failures = scenario_files::check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/async"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// CTA pairs (`cta_group::2`): the pair's MMA, its TMEM, its TMA loads and seed 003.
#[test]
fn pair_scenarios_meet_their_expectations() {
    let failures = scenario_files::check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/pairs"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Synchronization as production kernels (CUTLASS, DeepGEMM) write it, where pragmatic mode
/// follows the reference's §12 #1, #17 and #19 readings, with the near misses that stay races.
#[test]
fn production_scenarios_meet_their_expectations() {
    let failures = scenario_files::check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/production"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The three shapes production kernels rely on are correct in pragmatic mode only, and the
/// report's mode note names the §12 point that decides it.
#[test]
fn production_shapes_differ_by_mode_and_say_why() {
    use fencelab::check::{check, Options, Verdict};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/production");
    for (file, point) in [
        ("commit_2sm_peer_waits_cta.fence", "§12 #1"),
        ("sm90_multicast_consumer_release.fence", "§12 #17"),
        ("sm100_mainloop_epilogue_no_thread_sync_fences.fence", "§12 #19"),
    ] {
        let scenario = fencelab::load(&std::fs::read_to_string(dir.join(file)).unwrap_or_default()).scenario;
        let pragmatic = check(&scenario, &Options { mode: Mode::Pragmatic, ..Options::default() });
        let strict = check(&scenario, &Options { mode: Mode::Strict, ..Options::default() });
        assert_eq!((pragmatic.verdict, strict.verdict), (Verdict::Correct, Verdict::Race), "{file}");
        for report in [&pragmatic, &strict] {
            let note = report.mode_note.as_deref().unwrap_or_else(|| panic!("{file}: no mode note"));
            assert!(note.contains("strict mode") && note.contains(point), "{file}: {note}");
        }
    }
}

/// The stepping API shows an async agent from issue to completion: its view, its state in
/// the machine snapshot, and the consumer it unblocks.
#[test]
fn stepper_shows_a_tma_agent_through_its_life() {
    use fencelab::check::view::{AgentKindView, AgentStatusView, AsyncOpState};
    use fencelab::check::Stepper;
    use fencelab::schedule::Step;

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/async/seed000_2_3_tma_to_cuda_core.fence");
    let scenario = fencelab::load(&std::fs::read_to_string(path).unwrap_or_default()).scenario;
    let mut s = Stepper::new(&scenario, Mode::Pragmatic).expect("the scenario runs");
    let step = |s: &mut Stepper, agent: u32| s.step(Step { agent, choice: 0 }).expect("step is possible");
    step(&mut s, 0); // arrive.expect_tx
    step(&mut s, 0); // issue the copy
    let agents = s.agents();
    let tma = agents.iter().find(|a| matches!(&a.kind, AgentKindView::Async { kind, issuer } if kind == "tma" && issuer == "producer"));
    let tma = tma.expect("the copy is an agent").id;
    let consumer = agents.iter().find(|a| a.name == "consumer").expect("consumer").id;
    let state = |s: &Stepper| s.snapshot().async_ops.iter().find(|o| o.agent == tma).map(|o| o.state);
    let blocked = |s: &Stepper| s.agents().iter().any(|a| a.id == consumer && matches!(a.status, AgentStatusView::Blocked { .. }));
    assert_eq!(state(&s), Some(AsyncOpState::Issued));
    assert!(blocked(&s));
    step(&mut s, tma); // the copy's async-proxy write
    assert_eq!(state(&s), Some(AsyncOpState::Accessing));
    assert!(blocked(&s), "the data landed but the complete_tx has not fired");
    let done = step(&mut s, tma); // complete_tx
    assert!(done.description.contains("phase 0 completed"), "{}", done.description);
    assert_eq!(state(&s), Some(AsyncOpState::Completed));
    assert!(!blocked(&s));
    let mbar = s.snapshot().mbarriers.into_iter().find(|b| b.name == "full").expect("barrier");
    assert_eq!((mbar.phase, mbar.tx), (1, 0));
}

/// `cp.async.mbarrier.arrive` without `.noinc` raises the pending count above the init
/// count: the gauge then counts against the raised total and never shows a negative number.
#[test]
fn mbarrier_gauge_never_shows_negative_arrivals() {
    use fencelab::check::Stepper;
    use fencelab::schedule::Step;

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/async/bug25_counted_without_noinc.fence");
    let scenario = fencelab::load(&std::fs::read_to_string(path).unwrap_or_default()).scenario;
    let mut s = Stepper::new(&scenario, Mode::Pragmatic).expect("the scenario runs");
    let gauge = |s: &Stepper| {
        let b = s.snapshot().mbarriers.into_iter().find(|b| b.name == "bar").expect("barrier");
        (b.arrived, b.arrivals_of, b.arrivals_caption)
    };
    assert_eq!(gauge(&s), (0, 2, "arrivals: 0 of 2 (2 pending)".to_string()));
    s.step(Step { agent: 0, choice: 0 }).expect("cp.async");
    s.step(Step { agent: 0, choice: 0 }).expect("cp.async.mbarrier.arrive");
    let (arrived, of, caption) = gauge(&s);
    assert_eq!((arrived, of), (0, 3));
    assert!(!caption.contains('-'), "{caption}");
    assert!(caption.contains("3 pending") && caption.contains("raised by 1"), "{caption}");
}
