//! The axiomatic engine on Dat3M's PTX corpus (`../shared/conformance/dat3m-ptx`, or
//! `$FENCELAB_CONFORMANCE_DIR`): criterion times the whole visible corpus (every test of
//! `expected.csv`, imported once) and a few single tests (IRIW1, LB-dlb-no-fence-1, the slowest); before
//! that, each test's median over 21 runs is printed, slowest first, against the issue's
//! targets (each test <= 1 ms, the corpus <= 2 s). The hang search (`axiom::hang`) is
//! timed the same way on every test of `liveness-expected.csv`, and criterion times it on
//! `Manual/XF-Barrier-weak`, the hang only it finds.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fencelab::axiom::{allowed, hang, Limits};
use fencelab::model::{Mode, Scenario};

/// The tests `csv` (a file of the corpus directory) lists, imported.
fn corpus(csv: &str) -> Vec<(String, Scenario)> {
    let dir = std::env::var_os("FENCELAB_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/dat3m-ptx"));
    let csv = std::fs::read_to_string(dir.join(csv)).unwrap_or_default();
    csv.lines()
        .filter_map(|line| line.rsplit_once(',').map(|(path, _)| path.trim().to_string()))
        .filter_map(|path| {
            let src = std::fs::read_to_string(dir.join(&path)).ok()?;
            Some((path, fencelab::litmus::import(&src).ok()?))
        })
        .collect()
}

fn limits() -> Limits {
    Limits { mode: Mode::Strict, ..Limits::default() }
}

fn median(run: impl Fn()) -> Duration {
    let mut times: Vec<Duration> = (0..21)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Prints each test's median, slowest first, and returns them; with
/// `$FENCELAB_BENCH_JSONL` set, also appends one JSON line per test to that file.
fn report<'a>(what: &str, tests: &'a [(String, Scenario)], run: impl Fn(&Scenario)) -> Vec<(Duration, &'a str)> {
    let mut medians: Vec<(Duration, &str)> = tests.iter().map(|(name, s)| (median(|| run(s)), name.as_str())).collect();
    if let Some(path) = std::env::var_os("FENCELAB_BENCH_JSONL") {
        let lines: String = medians
            .iter()
            .map(|(d, name)| format!("{}\n", serde_json::json!({ "search": what, "test": name, "median_us": (d.as_secs_f64() * 1e7).round() / 10.0 })))
            .collect();
        let written = std::fs::OpenOptions::new().create(true).append(true).open(&path).and_then(|mut f| std::io::Write::write_all(&mut f, lines.as_bytes()));
        if let Err(e) = written {
            println!("cannot write {}: {e}", path.to_string_lossy());
        }
    }
    medians.sort_by(|a, b| b.cmp(a));
    let over = medians.iter().filter(|(d, _)| *d > Duration::from_millis(1)).count();
    println!("{what}: {} tests; {} with a median over 1 ms; slowest:", medians.len(), over);
    for (d, name) in medians.iter().take(8) {
        println!("  {:>10.3} ms  {name}", d.as_secs_f64() * 1000.0);
    }
    let mut sorted: Vec<Duration> = medians.iter().map(|(d, _)| *d).collect();
    sorted.sort();
    let total: Duration = sorted.iter().sum();
    println!("median of medians {:.3} ms; sum of medians {:.3} ms", sorted[sorted.len() / 2].as_secs_f64() * 1000.0, total.as_secs_f64() * 1000.0);
    medians
}

fn axiom(c: &mut Criterion) {
    let tests = corpus("expected.csv");
    if tests.is_empty() {
        println!("no Dat3M corpus found; set FENCELAB_CONFORMANCE_DIR");
        return;
    }
    let medians = report("outcomes", &tests, |s| {
        let _ = std::hint::black_box(allowed(s, &limits()));
    });
    let live = corpus("liveness-expected.csv");
    if !live.is_empty() {
        report("hang search", &live, |s| {
            let _ = std::hint::black_box(hang(s, &limits()));
        });
        if let Some((_, s)) = live.iter().find(|(n, _)| n == "Manual/XF-Barrier-weak.litmus") {
            c.bench_function("axiom hang Manual/XF-Barrier-weak.litmus", |b| b.iter(|| hang(s, &limits())));
        }
    }
    c.bench_function("axiom dat3m corpus", |b| {
        b.iter(|| tests.iter().map(|(_, s)| allowed(s, &limits()).map(|a| a.finals.len()).unwrap_or(0)).sum::<usize>())
    });
    let slowest = medians[0].1;
    for name in ["Memalloy/IRIW1.litmus", "Manual/LB-dlb-no-fence-1.litmus", slowest] {
        if let Some((_, s)) = tests.iter().find(|(n, _)| n == name) {
            c.bench_function(&format!("axiom {name}"), |b| b.iter(|| allowed(s, &limits())));
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3));
    targets = axiom
}
criterion_main!(benches);
