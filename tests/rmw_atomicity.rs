//! RMW atomicity (reference §1.9, Dat3M cat:99): no write morally strong with an RMW may
//! sit in coherence between the write the RMW reads and its own. Each program below once
//! let two morally strong RMWs read one write because a weak or other-proxy write sat
//! between them (`docs/fuzzing.md`, "Axiomatic differential"); the explorer must not reach
//! the forbidden row, and must agree with the axioms on the whole program.

use fencelab::axiom::differ::mismatches;
use fencelab::check::{check, Mode, Options, Verdict};

fn scenario(src: &str) -> fencelab::model::Scenario {
    let loaded = fencelab::load(src);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    loaded.scenario
}

/// Checks `src` in `mode`: `forbidden` (the `(term, value)` row) is never reached, some
/// outcome is, and the axiomatic engine finds no mismatch.
fn never_reaches(src: &str, mode: Mode, forbidden: &[(&str, i64)]) {
    let scenario = scenario(src);
    let options = Options { mode, ..Options::default() };
    let report = check(&scenario, &options);
    assert_ne!(report.verdict, Verdict::Partial);
    assert!(!report.outcomes.is_empty(), "no outcome reached");
    let forbidden: Vec<(String, i64)> = forbidden.iter().map(|(t, v)| (t.to_string(), *v)).collect();
    let rows: Vec<&Vec<(String, i64)>> = report.outcomes.iter().map(|o| &o.values).collect();
    assert!(!rows.contains(&&forbidden), "{} mode reaches {forbidden:?}, which RMW atomicity forbids", mode.name());
    let problems = mismatches(&scenario, &options).expect("inside the axiomatic fragment");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn two_exchanges_never_read_one_write_across_a_weak_store() {
    let src = "cta A\nglobal x = 0\n\
thread t0 @A:\n    atom.acq_rel.sys.global.exch r0, [x], 1\n    st.global [x], 2\n\
thread t1 @A:\n    atom.relaxed.sys.global.exch r0, [x], 1\n    ld.global r1, [x]\n\
exists (t0:r0 == 0 && t1:r0 == 0 && x == 1)\n";
    for mode in [Mode::Strict, Mode::Pragmatic] {
        never_reaches(src, mode, &[("t0:r0", 0), ("t1:r0", 0), ("x", 1)]);
    }
}

#[test]
fn a_red_never_reads_past_a_morally_strong_store_behind_a_weak_one() {
    let src = "cta A\nglobal x = 0\n\
thread t0 @A:\n    red.release.sys.global.add [x], 1\n    ld.relaxed.cluster.global r2, [x]\n    bar.sync 0\n\
thread t1 @A:\n    st.release.cta.global [x], 2\n    bar.sync 0\n\
thread t2 @A:\n    st.global [x], 2\n    bar.sync 0\n\
exists (x == 1)\n";
    for mode in [Mode::Strict, Mode::Pragmatic] {
        never_reaches(src, mode, &[("x", 1)]);
    }
}

#[test]
fn two_rmws_never_read_one_write_across_a_surface_store() {
    let src = "cta A\nglobal x = 0\nalias xs = x via surface\n\
thread t0 @A:\n    atom.relaxed.cta.global.add r1, [x], 1\n\
thread t2 @A:\n    atom.relaxed.cta.global.exch r0, [x], 1\n    sust [xs], 1\n\
exists (t0:r1 == 0 && t2:r0 == 0)\n";
    for mode in [Mode::Strict, Mode::Pragmatic] {
        never_reaches(src, mode, &[("t0:r1", 0), ("t2:r0", 0)]);
    }
}
