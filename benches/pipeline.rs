//! The warp-specialized TMA + wgmma pipeline (tests/scenarios/async/pipeline_ws.fence):
//! time to check it in one mode, and in both (what `check` does when the scenario touches
//! a point the spec leaves open), its missing-proxy-fence mutant, and a larger pipeline
//! (benches/data/pipeline_ws_3x3.fence: 3 stages, 3 iterations, two consumer warps),
//! completely, with its one-bug mutants up to 20,000 states (where each has its first
//! finding). States explored are printed once per variant.

use criterion::{criterion_group, criterion_main, Criterion};
use fencelab::check::{check, Mode, Options};

fn load(name: &str) -> fencelab::model::Scenario {
    let dir = if name.contains("3x3") { "benches/data" } else { "tests/scenarios/async" };
    let path = format!("{}/{dir}/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    fencelab::load(&src).scenario
}

fn pipeline(c: &mut Criterion) {
    for name in ["pipeline_ws.fence", "pipeline_ws_missing_expect_tx.fence", "pipeline_ws_missing_proxy_fence.fence"] {
        let scenario = load(name);
        for mode in [Mode::Pragmatic, Mode::Strict] {
            let options = Options { mode, max_states: 1_000_000, ..Options::default() };
            let report = check(&scenario, &options);
            println!(
                "{name} ({mode:?}): {:?}, {} states, {} transitions{}",
                report.verdict,
                report.stats.states,
                report.stats.transitions,
                if report.mode_note.is_some() { " (+ the other mode for the mode note)" } else { "" }
            );
            c.bench_function(&format!("check {name} {mode:?}"), |b| b.iter(|| check(&scenario, &options)));
        }
    }
}

fn larger_pipeline(c: &mut Criterion) {
    let variants = [
        ("pipeline_ws_3x3.fence", Options::default()),
        ("pipeline_ws_3x3_missing_proxy_fence.fence", Options { max_states: 20_000, ..Options::default() }),
        ("pipeline_ws_3x3_missing_expect_tx.fence", Options { max_states: 20_000, ..Options::default() }),
        ("pipeline_ws_3x3_arrive_before_wgmma_wait.fence", Options { max_states: 20_000, ..Options::default() }),
        ("pipeline_ws_3x3_parity_not_flipped.fence", Options { max_states: 20_000, ..Options::default() }),
        ("pipeline_ws_3x3_empty_count_one_consumer.fence", Options { max_states: 20_000, ..Options::default() }),
    ];
    for (name, options) in variants {
        let scenario = load(name);
        let report = check(&scenario, &options);
        println!("{name}: {:?}, {} states, complete {}", report.verdict, report.stats.states, report.stats.complete);
        c.bench_function(&format!("check {name}"), |b| b.iter(|| check(&scenario, &options)));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = pipeline, larger_pipeline
}
criterion_main!(benches);
