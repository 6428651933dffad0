//! The checker's Web Worker side. The page and the worker run the same wasm: the page
//! posts its compiled `WebAssembly.Module` and the URL of its glue script to the worker
//! (`assets/check-worker-loader.js`), which instantiates them, so the checker is neither
//! shipped nor compiled twice. `main` tells the two apart by the global scope.

use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use fencelab::check::Options;

use crate::analysis::Analysis;
use crate::protocol::{answer, answer_fix, encode, quick_check, CheckReply};
use crate::state::STARTER_SCENARIO;
use crate::tape::Tape;

#[wasm_bindgen]
extern "C" {
    /// `import.meta.url` of the wasm-bindgen glue module: the script the worker imports.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: js_sys::JsString;
}

/// The URL of the glue script this wasm was loaded by.
pub fn glue_url() -> String {
    GLUE_URL.with(|url| String::from(url))
}

/// Whether this instance runs in the checker worker rather than the page.
pub fn in_worker() -> bool {
    js_sys::global().is_instance_of::<DedicatedWorkerGlobalScope>()
}

/// Answers check requests (postcard bytes) with progress and reports, for as long as
/// the worker lives.
pub fn serve() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replier = scope.clone();
    let clock = scope.performance();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let now = || clock.as_ref().map_or(0.0, |p| p.now());
        // A closed port only means the page went away; there is no one left to tell.
        let mut post = |reply: Vec<u8>| {
            let _ = replier.post_message(&js_sys::Uint8Array::from(reply.as_slice()));
        };
        // A fix request comes wrapped as `{fix: bytes}`; a check request is the bytes.
        match js_sys::Reflect::get(&data, &"fix".into()).ok().filter(|f| !f.is_undefined()) {
            Some(fix) => answer_fix(&js_sys::Uint8Array::new(&fix).to_vec(), &now, &mut post),
            None => answer(&js_sys::Uint8Array::new(&data).to_vec(), &now, &mut post),
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    warm_up();
    let _ = scope.post_message(&js_sys::Uint8Array::from(encode(&CheckReply::Ready).as_slice()));
}

/// Runs the starter scenario through what the page runs on its first load: the parse, the
/// stepping session and the quick check. V8 compiles a wasm function on its first call,
/// and the page and this worker share one compiled module, so what compiles here is
/// compiled for the page too: the worker does it on another core while the page mounts,
/// and the page's first check no longer waits for the compiler (docs/loading.md).
fn warm_up() {
    let analysis = Analysis::of(STARTER_SCENARIO);
    let scenario = &analysis.loaded.scenario;
    let options = Options::default();
    let _ = Tape::new(scenario.clone(), options.mode);
    let _ = quick_check(scenario, &options);
}
