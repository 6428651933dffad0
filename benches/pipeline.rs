//! The warp-specialized TMA + wgmma pipeline (tests/scenarios/async/pipeline_ws.fence):
//! time to check it in one mode, and in both (what `check` does when the scenario touches
//! a point the spec leaves open). States explored are printed once per variant.

use criterion::{criterion_group, criterion_main, Criterion};
use fencelab::check::{check, Mode, Options};

fn load(name: &str) -> fencelab::model::Scenario {
    let path = format!("{}/tests/scenarios/async/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    fencelab::load(&src).scenario
}

fn pipeline(c: &mut Criterion) {
    for name in ["pipeline_ws.fence", "pipeline_ws_missing_expect_tx.fence"] {
        let scenario = load(name);
        for mode in [Mode::Pragmatic, Mode::Strict] {
            let options = Options { mode, max_states: 1_000_000 };
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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = pipeline
}
criterion_main!(benches);
