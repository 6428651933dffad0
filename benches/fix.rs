//! Fix search speed (`fencelab::fix`) with the CLI's default limits, on the reference bugs
//! that have a fixed twin and that a lesson would show, plus seed 003's relay bug and the
//! cheaper-variant search on its cluster-scope fix; and the ordering of findings by cause
//! (`fix::order_by_cause`) that `fencelab check` runs on reports with several findings.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use fencelab::check::{check, Mode, Options};
use fencelab::fix::{fix, improve, order_by_cause, Limits};

const BUGS: &[&str] = &[
    "checker/bug1_relay_default_release_cta",
    "checker/bug3_fence_scope_cta",
    "checker/bug4_restricted_fence_peer_payload",
    "checker/bug18_producer_starts_parity_0",
    "checker/bug18_consumer_starts_parity_1",
    "async/bug11_missing_wgmma_fence",
    "async/bug12_accumulator_read_before_wait",
    "async/bug14_arrive_without_expect_tx",
    "async/bug15_expect_tx_after_arrive",
    "async/bug16_bytes_too_low",
    "async/bug21_wait_group_read_then_publish",
    "async/bug30_smem_operands_no_after_fence",
    // Compound and kind-changing edits: a cluster barrier in every thread, bar.sync with
    // tcgen05 fences, the init-publishing barrier, an owner's mbarrier wait, a longer move.
    "async/bug35_red_after_owner_exit",
    "async/bug33_tmem_address_unsynchronized",
    "checker/bug27_init_not_published",
    "async/bug35_remote_arrive_after_owner_exit",
    "async/bug34_ld_after_dealloc",
    "seeds/003-relay-warp-as-seed",
];

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/scenarios/{name}.fence", env!("CARGO_MANIFEST_DIR"))).unwrap_or_default()
}

fn searches(c: &mut Criterion) {
    let mut group = c.benchmark_group("fix");
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    for name in BUGS {
        let src = read(name);
        group.bench_function(*name, |b| b.iter(|| fix(black_box(&src), Mode::Strict, &Limits::default(), &mut |_, _| true)));
    }
    let fully_fixed = read("seeds/003-relay-warp-fully-fixed");
    group.bench_function("improve/seeds/003-relay-warp-fully-fixed", |b| {
        b.iter(|| improve(black_box(&fully_fixed), Mode::Strict, &Limits::default(), &mut |_, _| true))
    });
    group.finish();
}

/// Reports with several findings, from two findings on a few states to five on about 500.
const SEVERAL_FINDINGS: &[&str] = &[
    "checker/header_early_payload_late_relaxed_flag",
    "checker/bug18_consumer_starts_parity_1",
    "async/bug20_reuse_without_release",
    "production/sm90_multicast_release_before_wait_group",
    "async/bug29_multicast_war",
];

fn cause_order(c: &mut Criterion) {
    let mut group = c.benchmark_group("order_by_cause");
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    for name in SEVERAL_FINDINGS {
        let scenario = fencelab::load(&read(name)).scenario;
        let report = check(&scenario, &Options::default());
        group.bench_function(*name, |b| b.iter(|| order_by_cause(black_box(&scenario), &mut report.clone())));
    }
    group.finish();
}

criterion_group!(benches, searches, cause_order);
criterion_main!(benches);
