//! `check_with_progress`: the callback is called while exploring, its counts only grow
//! within a pass, and each pass's last call matches what the report says.

use fencelab::check::{check, check_with_progress, Mode, Options, Progress, Verdict};

fn scenario(src: &str) -> fencelab::model::Scenario {
    let loaded = fencelab::load(src);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    loaded.scenario
}

/// Three threads storing to and loading from one location with weak accesses: with
/// forgetting off (it merges this program's histories), the state space runs to thousands
/// of states.
const CONTENDED: &str = "cta A\nglobal x = 0\n\
thread a @A:\n    st.relaxed.gpu.global [x], 1\n    st.relaxed.gpu.global [x], 2\n    ld.relaxed.gpu.global r0, [x]\n\
thread b @A:\n    st.relaxed.gpu.global [x], 3\n    st.relaxed.gpu.global [x], 4\n    ld.relaxed.gpu.global r0, [x]\n\
thread c @A:\n    st.relaxed.gpu.global [x], 5\n    ld.relaxed.gpu.global r0, [x]\n    ld.relaxed.gpu.global r1, [x]\n";

fn run(src: &str, options: &Options) -> (fencelab::check::Report, Vec<Progress>) {
    let mut seen = Vec::new();
    let report = check_with_progress(&scenario(src), options, &mut |p| seen.push(p));
    (report, seen)
}

#[test]
fn progress_grows_and_ends_at_the_reported_stats() {
    let options = Options { collapse: false, ..Options::default() };
    let (report, seen) = run(CONTENDED, &options);
    assert!(report.stats.complete);
    assert!(seen.len() >= 3, "{} states give several calls: {seen:?}", report.stats.states);
    for pair in seen.windows(2) {
        let [a, b] = pair else { continue };
        assert!(a.states <= b.states && a.transitions <= b.transitions, "{a:?} then {b:?}");
    }
    let last = seen.last().expect("a call");
    assert_eq!((last.states, last.transitions), (report.stats.states, report.stats.transitions));
    assert!(seen.iter().all(|p| p.max_states == options.max_states && p.pass == 1 && p.passes == 1));
}

#[test]
fn the_report_is_the_same_as_without_progress() {
    let options = Options { collapse: false, ..Options::default() };
    assert_eq!(run(CONTENDED, &options).0, check(&scenario(CONTENDED), &options));
}

#[test]
fn a_capped_run_reports_the_cap_and_stops_there() {
    let options = Options { max_states: 1000, collapse: false, ..Options::default() };
    let (report, seen) = run(CONTENDED, &options);
    assert_eq!(report.verdict, Verdict::Partial);
    let last = seen.last().expect("a call");
    assert_eq!(last.states, 1000);
    assert_eq!(last.states, report.stats.states);
    assert!(seen.iter().all(|p| p.states <= 1000 && p.max_states == 1000));
}

#[test]
fn a_scenario_the_spec_is_silent_on_runs_two_passes() {
    // `cp.async.bulk` into shared memory: the WAR question of reference §12 #4, so the
    // other mode runs too.
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scenarios/templates/tma-load.fence"))
        .expect("template exists");
    let (report, seen) = run(&src, &Options { mode: Mode::Pragmatic, ..Options::default() });
    assert!(report.stats.complete);
    assert!(seen.iter().all(|p| p.passes == 2), "{seen:?}");
    let first: Vec<&Progress> = seen.iter().filter(|p| p.pass == 1).collect();
    let second: Vec<&Progress> = seen.iter().filter(|p| p.pass == 2).collect();
    assert!(!first.is_empty() && !second.is_empty(), "{seen:?}");
    assert!(seen.iter().position(|p| p.pass == 2) > seen.iter().rposition(|p| p.pass == 1), "pass 1 ends before pass 2");
    let end_of_first = first.last().expect("pass 1");
    assert_eq!((end_of_first.states, end_of_first.transitions), (report.stats.states, report.stats.transitions));
}
