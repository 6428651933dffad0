//! The checker worker's request answering (`fencelab_protocol::answer`, `answer_fix`)
//! as a wasm of its own, built for speed (`[profile.wasm-speed]`, scripts/build-wasm-crate.sh).
//! The app's wasm is built for size, which the checker's inner loop pays for; the worker
//! answers with the app's wasm until it has fetched this one after load, then hands its
//! requests here (components/src/worker.rs, docs/performance.md).
//!
//! JavaScript passes the request's postcard bytes, the clock (`() => ms`) and where to
//! post each reply (`(Uint8Array) => void`), so the engine knows nothing of the worker.

use fencelab::check::Options;
use fencelab_protocol::{encode_request, Answerer, CheckRequest};
use js_sys::{Function, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsValue;

#[cfg(any(target_arch = "wasm32", test))]
mod alloc;

/// Small blocks from per-size free lists (see `alloc`); wasm only, where the standard
/// allocator is dlmalloc.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: alloc::SizeClasses = alloc::SizeClasses::new();

/// Answers one check request: progress replies, then one `Done` that names the engine.
#[wasm_bindgen]
pub fn answer(request: &[u8], now: &Function, post: &Function) {
    fencelab_protocol::answer(request, Answerer::Engine, &|| clock(now), &mut |reply| send(post, &reply));
}

/// Answers one fix request: progress replies, then one `FixDone`.
#[wasm_bindgen]
pub fn answer_fix(request: &[u8], now: &Function, post: &Function) {
    fencelab_protocol::answer_fix(request, &|| clock(now), &mut |reply| send(post, &reply));
}

/// Answers a check request for one of the warm-up scenarios (`run` picks which), as the
/// worker would, and posts nothing. The browser runs a wasm function's baseline code until
/// the function has done enough work and only then optimises it, on another thread; the
/// worker calls this in idle tasks, many times, before it hands requests here, so that
/// users' checks find the checker optimised (docs/performance.md). Going through
/// `answer` warms exactly the code a request runs.
#[wasm_bindgen]
pub fn warm_up(run: u32) {
    let source = warm_up_scenario(run);
    let request = CheckRequest { id: 0, scenario: fencelab::load(&source).scenario, options: Options::default() };
    if let Ok(bytes) = encode_request(&request) {
        fencelab_protocol::answer(&bytes, Answerer::Engine, &|| 0.0, &mut |_| {});
    }
}

/// Warp-specialized pipelines (TMA, wgmma, mbarriers, proxy fences) with a race and with
/// undefined behaviour: the async path's semantics, the renaming state key, and the
/// findings' witnesses and explanations, in a few hundred states each; and three threads
/// of relaxed loads and stores over three locations (3,556 states): the synchronous path,
/// which the pipelines' threads take too rarely to get it optimised.
fn warm_up_scenario(run: u32) -> String {
    const PIPELINES: [&str; 2] = [
        include_str!("../../tests/scenarios/async/pipeline_ws_arrive_before_last_read.fence"),
        include_str!("../../tests/scenarios/async/pipeline_ws_parity_not_flipped.fence"),
    ];
    match PIPELINES.get(run as usize % 3) {
        Some(pipeline) => pipeline.to_string(),
        None => bench_scenarios::relaxed_threads(3, 4),
    }
}

/// The benches' generated synchronous scenario.
#[path = "../../tests/support/relaxed_threads.rs"]
mod bench_scenarios;

fn clock(now: &Function) -> f64 {
    now.call0(&JsValue::NULL).ok().and_then(|ms| ms.as_f64()).unwrap_or(0.0)
}

/// A reply nobody can take (the page went away) needs no answer.
fn send(post: &Function, reply: &[u8]) {
    let _ = post.call1(&JsValue::NULL, &Uint8Array::from(reply));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_up_scenarios_are_two_async_pipelines_with_findings_and_relaxed_threads() {
        let reports: Vec<_> = (0..3)
            .map(|run| {
                let loaded = fencelab::load(&warm_up_scenario(run));
                assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
                fencelab::check::check(&loaded.scenario, &Options::default())
            })
            .collect();
        for report in &reports[..2] {
            assert!(report.stats.complete && report.stats.states > 100, "{:?}", report.stats);
            assert!(!report.findings.is_empty(), "a finding's witness and texts are warmed too");
        }
        assert_eq!(reports[2].stats.states, 2770, "the third is relaxed_threads(3, 4)");
    }
}
