//! `fencelab import` speed (issue 51: a 5 MB PTX in at most 0.5 s native): reading a 5 MB
//! module (the CUTLASS example-48 fixture, its entries renamed and repeated) and listing
//! its entries, and importing each fixture kernel (example 70 with its cluster shape).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use fencelab::import::{entries, import, ImportOptions, ParamValue};

fn gunzip(bytes: &[u8]) -> String {
    let body = &bytes[10..bytes.len() - 8];
    String::from_utf8(miniz_oxide::inflate::decompress_to_vec(body).unwrap_or_default()).unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let ex48 = gunzip(include_bytes!("../tests/import/cutlass_sm90_ex48_cluster2x1.ptx.gz"));
    let header_end = ex48.find(".extern").unwrap_or(0);
    let body = &ex48[header_end..];
    let mut big = ex48[..header_end].to_string();
    let mut copy = 0;
    while big.len() < 5 << 20 {
        // Each copy's symbols get a suffix so the module stays valid PTX.
        big.push_str(&body.replace("_ZN", &format!("_ZN{copy}x")));
        copy += 1;
    }
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    group.bench_function(format!("entries of a {} MB module", big.len() >> 20), |b| b.iter(|| black_box(entries(black_box(&big)).map(|e| e.len()))));
    let relay = include_str!("../tests/import/relay_pipeline.ptx");
    group.bench_function("relay_pipeline", |b| b.iter(|| black_box(import(relay, &ImportOptions::default()).map(|i| i.text.len()))));
    let store = include_str!("../tests/import/tma_store_epilogue.ptx");
    group.bench_function("tma_store_epilogue", |b| b.iter(|| black_box(import(store, &ImportOptions::default()).map(|i| i.text.len()))));
    let trampoline = include_str!("../tests/import/pair_trampoline.ptx");
    group.bench_function("pair_trampoline", |b| b.iter(|| black_box(import(trampoline, &ImportOptions::default()).map(|i| i.text.len()))));
    let push = include_str!("../tests/import/st_async_push.ptx");
    group.bench_function("st_async_push", |b| b.iter(|| black_box(import(push, &ImportOptions::default()).map(|i| i.text.len()))));
    let params = [(0, 256), (4, 128), (8, 64), (12, 1)].into_iter().map(|(offset, value)| ParamValue { name: "0".into(), offset, value }).collect();
    let options = ImportOptions { entry: Some("GemmUniversal".into()), cluster: Some([2, 1, 1]), params, ..ImportOptions::default() };
    group.bench_function("cutlass_sm90_ex48 (2 CTAs x 384 threads)", |b| b.iter(|| black_box(import(&ex48, &options).map(|i| i.text.len()))));
    let ex70 = gunzip(include_bytes!("../tests/import/cutlass_sm100_ex70_2sm.ptx.gz"));
    let params = [1296, 1288].into_iter().map(|offset| ParamValue { name: "0".into(), offset, value: 1 }).collect();
    let options = ImportOptions { entry: Some("GemmUniversal".into()), cluster: Some([2, 2, 1]), params, ..ImportOptions::default() };
    group.bench_function("cutlass_sm100_ex70 (4 CTAs x 256 threads)", |b| b.iter(|| black_box(import(&ex70, &options).map(|i| i.text.len()))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
