//! Checker speed: every scenario under `tests/scenarios/checker/`, and the scaling of the
//! partial-order reduction on k independent message-passing pairs (states printed per k),
//! and a 6-thread relaxed scenario that runs into the default 200,000-state cap.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use fencelab::check::{check, Options};
use fencelab::model::Scenario;

#[path = "../tests/support/mp_pairs.rs"]
mod mp_pairs;
#[path = "../tests/support/relaxed_threads.rs"]
mod relaxed_threads;

use mp_pairs::mp_pairs;
use relaxed_threads::relaxed_threads;

fn load_dir(dir: &Path) -> Vec<(String, Scenario)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "fence")) {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let loaded = fencelab::load(&src);
        if !loaded.has_errors() {
            let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            out.push((name, loaded.scenario));
        }
    }
    out
}

fn scenarios(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/checker");
    let mut group = c.benchmark_group("scenario");
    for (name, scenario) in load_dir(&dir) {
        group.bench_function(name, |b| b.iter(|| check(black_box(&scenario), &Options::default())));
    }
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("mp_pairs");
    for k in 1..=6 {
        let scenario = fencelab::load(&mp_pairs(k)).scenario;
        let report = check(&scenario, &Options::default());
        println!("mp_pairs k={k}: {} states, {} transitions, verdict {:?}", report.stats.states, report.stats.transitions, report.verdict);
        group.bench_function(format!("k{k}"), |b| b.iter(|| check(black_box(&scenario), &Options::default())));
    }
    group.finish();
}

fn at_the_cap(c: &mut Criterion) {
    let scenario = fencelab::load(&relaxed_threads(6, 12)).scenario;
    let report = check(&scenario, &Options::default());
    println!("relaxed 6x12: {} states, {} transitions, complete {}", report.stats.states, report.stats.transitions, report.stats.complete);
    let mut group = c.benchmark_group("cap");
    group.sample_size(10);
    group.bench_function("relaxed_6x12", |b| b.iter(|| check(black_box(&scenario), &Options::default())));
    group.finish();
}

criterion_group!(benches, scenarios, scaling, at_the_cap);
criterion_main!(benches);
