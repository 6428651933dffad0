//! The checker worker's request answering (`fencelab_protocol::answer`, `answer_fix`)
//! as a wasm of its own, built for speed (`[profile.wasm-speed]`, scripts/build-engine.sh).
//! The app's wasm is built for size, which the checker's inner loop pays for; the worker
//! answers with the app's wasm until it has fetched this one after load, then hands its
//! requests here (components/src/worker.rs, docs/performance.md).
//!
//! JavaScript passes the request's postcard bytes, the clock (`() => ms`) and where to
//! post each reply (`(Uint8Array) => void`), so the engine knows nothing of the worker.

use fencelab::check::Options;
use fencelab_protocol::Answerer;
use js_sys::{Function, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsValue;

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

/// Checks a small asynchronous pipeline once. The browser compiles a wasm function on its
/// first call; the worker runs this while it is idle, before it hands requests here, so
/// that no user's check waits for those compiles.
#[wasm_bindgen]
pub fn warm_up() {
    let loaded = fencelab::load(WARM_UP_SCENARIO);
    let _ = fencelab::check::check(&loaded.scenario, &Options::default());
}

/// A TMA producer and a consumer through mbarriers: the async path's semantics, the
/// renaming state key and the fences' rules, in a few hundred states.
const WARM_UP_SCENARIO: &str = include_str!("../../tests/scenarios/async/pipeline_ws.fence");

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
    fn the_warm_up_scenario_is_an_async_pipeline_that_loads_cleanly() {
        let loaded = fencelab::load(WARM_UP_SCENARIO);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let report = fencelab::check::check(&loaded.scenario, &Options::default());
        assert!(report.stats.complete && report.stats.states > 100, "{:?}", report.stats);
    }
}
