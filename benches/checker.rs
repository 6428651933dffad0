//! Checker speed: every scenario under `tests/scenarios/checker/`, and the scaling of the
//! partial-order reduction on k independent message-passing pairs (states printed per k),
//! and a 6-thread relaxed scenario that runs into the default 200,000-state cap. Loops that
//! write (issue 49): every scenario under `tests/scenarios/loops/` (target: the
//! test-and-set lock in <= 50 ms) and every CADP test of `dat3m-ptx-2026` (from
//! `$FENCELAB_CONFORMANCE_DIR`, or `../shared/conformance`; target: each <= 1 s, its
//! single run printed first).

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

fn loops(c: &mut Criterion) {
    let mut group = c.benchmark_group("loops");
    for (name, scenario) in load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/loops")) {
        group.bench_function(name, |b| b.iter(|| check(black_box(&scenario), &Options::default())));
    }
    let dir = std::env::var_os("FENCELAB_CONFORMANCE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"))
        .join("dat3m-ptx-2026");
    let csv = std::fs::read_to_string(dir.join("liveness-expected.csv")).unwrap_or_default();
    let mut slowest = std::time::Duration::ZERO;
    let mut cadp = Vec::new();
    for path in csv.lines().filter_map(|l| l.rsplit_once(',').map(|(p, _)| p.trim().to_string())) {
        let Some(scenario) = std::fs::read_to_string(dir.join(&path)).ok().and_then(|src| fencelab::litmus::import(&src).ok()) else { continue };
        let options = Options { mode: fencelab::check::Mode::Strict, ..Options::default() };
        let started = std::time::Instant::now();
        let report = check(&scenario, &options);
        slowest = slowest.max(started.elapsed());
        println!("{path}: {:?}, {} states in {:?}", report.verdict, report.stats.states, started.elapsed());
        cadp.push(scenario);
    }
    println!("CADP: {} tests, slowest {slowest:?}", cadp.len());
    let strict = Options { mode: fencelab::check::Mode::Strict, ..Options::default() };
    group.bench_function("cadp_all", |b| b.iter(|| cadp.iter().for_each(|s| drop(check(black_box(s), &strict)))));
    group.finish();
}

criterion_group!(benches, scenarios, scaling, at_the_cap, loops);
criterion_main!(benches);
