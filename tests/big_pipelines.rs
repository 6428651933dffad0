//! The larger pipeline (benches/data/pipeline_ws_3x3.fence: 3 stages, 3 iterations, two
//! consumer warps) checks completely and correct in both modes, and each of its one-bug
//! mutants beside it is caught with the right cause; CUTLASS example 48 as imported
//! (benches/data/cutlass_sm90_ex48_imported.fence) decides completely in both modes.
//! Optimised builds only (`make test` runs `cargo test --release --test big_pipelines`):
//! a debug build takes minutes here.

use std::path::PathBuf;

use fencelab::check::{check, check_one_mode, FindingKind, Mode, Options, RaceReason, Verdict};

fn data(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "benches", "data", name].iter().collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
#[cfg_attr(debug_assertions, ignore = "run optimised: cargo test --release --test big_pipelines")]
fn the_3x3_pipeline_checks_completely_and_correct_in_both_modes() {
    let scenario = fencelab::load(&data("pipeline_ws_3x3.fence")).scenario;
    for mode in [Mode::Pragmatic, Mode::Strict] {
        let report = check(&scenario, &Options { mode, ..Options::default() });
        assert!(report.stats.complete, "{mode:?}: stopped after {} states", report.stats.states);
        assert_eq!(report.verdict, Verdict::Correct, "{mode:?}: {:?}", report.findings.first().map(|f| &f.message));
        assert!(report.expectations.iter().all(|e| e.ok), "{mode:?}: {:?}", report.expectations);
    }
}

/// Example 48's two CTAs each run a producer and two consumer warpgroups over three stages
/// with multicast copies. Pragmatic mode accepts its consumer release (reference §12 #17)
/// and its full-barrier waits at `.cta` scope; strict mode finds the copy into the peer
/// CTA unordered with the peer's wgmma reads (§12 #1). Both need the whole space, which
/// the stubborn sets bring to a few hundred thousand states by letting counts on an
/// mbarrier commute while its phase is sealed.
#[test]
#[cfg_attr(debug_assertions, ignore = "run optimised: cargo test --release --test big_pipelines")]
fn cutlass_example_48_decides_completely_in_both_modes() {
    let scenario = fencelab::load(&data("cutlass_sm90_ex48_imported.fence")).scenario;
    let options = |mode| Options { mode, max_states: 2_000_000, max_bytes: 4 << 30, ..Options::default() };
    let pragmatic = check_one_mode(&scenario, &options(Mode::Pragmatic));
    assert!(pragmatic.stats.complete, "pragmatic: stopped after {} states", pragmatic.stats.states);
    assert_eq!(pragmatic.verdict, Verdict::Correct, "pragmatic: {:?}", pragmatic.findings.first().map(|f| &f.message));
    let strict = check_one_mode(&scenario, &options(Mode::Strict));
    assert!(strict.stats.complete, "strict: stopped after {} states", strict.stats.states);
    assert_eq!(strict.verdict, Verdict::Race, "strict: {:?}", strict.stats);
    let race = strict.findings.iter().find(|f| f.kind == FindingKind::Race).expect("a race");
    assert!(race.accesses.iter().any(|a| a.location == "tile3_c1"), "{}", race.message);
}

/// Each mutant, and the first finding it must name.
const MUTANTS: &[(&str, FindingKind, Option<RaceReason>)] = &[
    ("pipeline_ws_3x3_missing_proxy_fence.fence", FindingKind::Race, Some(RaceReason::MissingProxyFence)),
    ("pipeline_ws_3x3_missing_expect_tx.fence", FindingKind::Race, Some(RaceReason::AsyncNotObserved)),
    ("pipeline_ws_3x3_arrive_before_wgmma_wait.fence", FindingKind::Race, Some(RaceReason::AsyncNotObserved)),
    ("pipeline_ws_3x3_parity_not_flipped.fence", FindingKind::Race, Some(RaceReason::AsyncNotObserved)),
    ("pipeline_ws_3x3_empty_count_one_consumer.fence", FindingKind::Undefined, None),
];

#[test]
#[cfg_attr(debug_assertions, ignore = "run optimised: cargo test --release --test big_pipelines")]
fn every_3x3_mutant_is_caught_with_its_cause() {
    for (name, kind, reason) in MUTANTS {
        let scenario = fencelab::load(&data(name)).scenario;
        for mode in [Mode::Pragmatic, Mode::Strict] {
            // The first finding comes early in breadth-first order; a complete run of the
            // data-dependent mutants is far larger (see docs/performance.md).
            let report = check(&scenario, &Options { mode, max_states: 20_000, ..Options::default() });
            assert_ne!(report.verdict, Verdict::Correct, "{name} {mode:?}");
            let causes: Vec<_> = report.findings.iter().map(|f| (f.kind, f.reason)).collect();
            assert!(causes.contains(&(*kind, *reason)), "{name} {mode:?}: {causes:?}");
            // The wrong parity lets the consumer run ahead: its lapping arrive on the empty
            // barrier has a shorter witness than the race in the reduced search, so it comes
            // first (and ranking by cause ties the two: one edit repairs both).
            let first = report.findings.first().map(|f| (f.kind, f.reason));
            if *name != "pipeline_ws_3x3_parity_not_flipped.fence" {
                assert_eq!(first, Some((*kind, *reason)), "{name} {mode:?}");
            }
            assert!(report.expectations.iter().all(|e| e.ok), "{name} {mode:?}: {:?}", report.expectations);
        }
    }
}

#[test]
fn every_3x3_file_is_listed_here() {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "benches", "data"].iter().collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("pipeline_ws_3x3_") && n.ends_with(".fence"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = MUTANTS.iter().map(|(n, _, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}
