//! Data-driven tests for the asynchronous agents: every `.fence` file under
//! `tests/scenarios/async/` must come out as its `expect` line and final conditions say,
//! in the mode its `# mode:` line names (pragmatic unless stated). `# reason: X` pins the
//! classification of a race; `# mode-note` requires the other mode to judge differently.

use std::path::Path;

use fencelab::check::{check, Mode, Options};

fn run(path: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let src = std::fs::read_to_string(path).unwrap_or_default();
    let loaded = fencelab::load(&src);
    if loaded.has_errors() {
        let msgs: Vec<String> = loaded.diagnostics.iter().map(|d| d.message.clone()).collect();
        return vec![format!("{}: does not load: {msgs:?}", path.display())];
    }
    let mode = if src.lines().any(|l| l.trim() == "# mode: strict") { Mode::Strict } else { Mode::Pragmatic };
    let report = check(&loaded.scenario, &Options { mode, max_states: 500_000 });
    if report.expectations.is_empty() {
        failures.push(format!("{} declares no expectation", path.display()));
    }
    if let Some(reason) = src.lines().find_map(|l| l.strip_prefix("# reason: ")) {
        let found: Vec<String> = report.findings.iter().filter_map(|f| f.reason).map(|r| format!("{r:?}")).collect();
        if !found.iter().any(|r| r == reason.trim()) {
            failures.push(format!("{}: expected a race classified {reason}, found {found:?}", path.display()));
        }
    }
    if let Some(text) = src.lines().find_map(|l| l.strip_prefix("# message: ")) {
        if !report.findings.iter().any(|f| f.message.contains(text.trim()) || f.explanation.contains(text.trim())) {
            failures.push(format!(
                "{}: no finding mentions `{}`: {:?}",
                path.display(),
                text.trim(),
                report.findings.iter().map(|f| (&f.message, &f.explanation)).collect::<Vec<_>>()
            ));
        }
    }
    if src.lines().any(|l| l.trim() == "# mode-note") && report.mode_note.is_none() {
        failures.push(format!("{}: the modes should differ, but there is no mode note", path.display()));
    }
    for e in &report.expectations {
        if !e.ok {
            failures.push(format!(
                "{}: `{}` failed: {} (verdict {:?}; findings: {:?})",
                path.display(),
                e.declared,
                e.actual,
                report.verdict,
                report.findings.iter().map(|f| &f.message).collect::<Vec<_>>()
            ));
        }
    }
    failures
}

fn run_dir(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![format!("{} is missing", dir.display())] };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    paths.iter().filter(|p| p.extension().is_some_and(|e| e == "fence")).flat_map(|p| run(p)).collect()
}

#[test]
fn async_scenarios_meet_their_expectations() {
    let failures = run_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/async"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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
