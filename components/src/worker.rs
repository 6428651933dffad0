//! The checker's Web Worker side. The page and the worker run the same wasm: the page
//! posts its compiled `WebAssembly.Module` and the URL of its glue script to the worker
//! (`assets/check-worker-loader.js`), which instantiates them, so the checker is neither
//! shipped nor compiled twice. `main` tells the two apart by the global scope.
//!
//! That wasm is built for size (issue 19's first-load budget). Once the worker has
//! answered a request and the page has had time to load, it fetches the speed-built
//! checker engine (`engine/`, `fencelab-engine.js`) and, once that has instantiated and
//! warmed up, hands it every request; if it fails to load or to run, the worker goes on
//! answering with its own wasm (docs/performance.md).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use fencelab::check::Options;

use crate::analysis::Analysis;
use crate::protocol::{answer, answer_fix, encode, quick_check, Answerer, CheckReply};
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
        // A fix request comes wrapped as `{fix: bytes}`; a check request is the bytes.
        let (request, fix) = match js_sys::Reflect::get(&data, &"fix".into()).ok().filter(|f| !f.is_undefined()) {
            Some(fix) => (fix, true),
            None => (data, false),
        };
        if !engine::answered(&request, fix) {
            let now = || clock.as_ref().map_or(0.0, |p| p.now());
            // A closed port only means the page went away; there is no one left to tell.
            let mut post = |reply: Vec<u8>| {
                let _ = replier.post_message(&js_sys::Uint8Array::from(reply.as_slice()));
            };
            let bytes = js_sys::Uint8Array::new(&request).to_vec();
            match fix {
                true => answer_fix(&bytes, &now, &mut post),
                false => answer(&bytes, Answerer::Worker, &now, &mut post),
            }
        }
        engine::wanted(&replier);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    warm_up();
    engine::READY_AT.set(scope.performance().map_or(0.0, |p| p.now()));
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

/// The speed-built engine: fetched once the worker is wanted, used once it has loaded.
mod engine {
    use std::cell::Cell;

    use super::*;

    /// Where the engine's glue is, beside the app's glue (scripts/build-wasm-crate.sh).
    const ENGINE_URL: &str = "./fencelab-engine.js";

    /// The engine is fetched no sooner than this after the worker is ready (ms), so that a
    /// page's own load (first verdict, the rest of its first tasks) never shares the
    /// network or a core with it.
    const AFTER_READY_MS: f64 = 1000.0;

    /// How many warm-up checks the engine runs before it answers (`warm_up`). V8 runs a
    /// wasm function's baseline code until that function has done enough work, then
    /// optimises it on another thread; a check of a few milliseconds ends long before
    /// that, so the engine's first checks of a small pipeline ran several times slower
    /// than its later ones (docs/performance.md). These take well under a second of the
    /// worker's idle time, one check per task.
    const WARM_UP_RUNS: u32 = 40;

    thread_local! {
        pub(super) static READY_AT: Cell<f64> = const { Cell::new(0.0) };
        static ENGINE: RefCell<Stage> = const { RefCell::new(Stage::NotWanted) };
    }

    enum Stage {
        NotWanted,
        Loading,
        Loaded(Engine),
        /// It did not load or it failed a request: the worker's own wasm answers.
        Failed,
    }

    /// The engine module's exports, and the clock and reply port it is handed.
    #[derive(Clone)]
    struct Engine {
        answer: js_sys::Function,
        answer_fix: js_sys::Function,
        now: js_sys::Function,
        post: js_sys::Function,
    }

    /// Has the engine answer `request` if it has loaded; `false` when the caller must.
    /// An engine that throws (a trap) is dropped, and the caller answers the request.
    pub(super) fn answered(request: &JsValue, fix: bool) -> bool {
        let Some(engine) = ENGINE.with(|e| match &*e.borrow() {
            Stage::Loaded(engine) => Some(engine.clone()),
            _ => None,
        }) else {
            return false;
        };
        let run = if fix { &engine.answer_fix } else { &engine.answer };
        match run.call3(&JsValue::NULL, request, &engine.now, &engine.post) {
            Ok(_) => true,
            Err(err) => {
                give_up("failed a request", &err);
                false
            }
        }
    }

    /// Called after each request: the first one schedules the engine's fetch.
    pub(super) fn wanted(scope: &DedicatedWorkerGlobalScope) {
        let first = ENGINE.with(|e| {
            let mut stage = e.borrow_mut();
            let first = matches!(*stage, Stage::NotWanted);
            if first {
                *stage = Stage::Loading;
            }
            first
        });
        if !first {
            return;
        }
        let now = scope.performance().map_or(0.0, |p| p.now());
        let delay = (READY_AT.get() + AFTER_READY_MS - now).max(0.0);
        let fetch = Closure::once_into_js(|| wasm_bindgen_futures::spawn_local(load()));
        if scope.set_timeout_with_callback_and_timeout_and_arguments_0(fetch.unchecked_ref(), delay as i32).is_err() {
            give_up("could not be scheduled", &JsValue::UNDEFINED);
        }
    }

    async fn load() {
        match instantiate().await {
            Ok(engine) => ENGINE.with(|e| *e.borrow_mut() = Stage::Loaded(engine)),
            Err(err) => give_up("did not load", &err),
        }
    }

    async fn instantiate() -> Result<Engine, JsValue> {
        let url = web_sys::Url::new_with_base(ENGINE_URL, &glue_url())?.href();
        // wasm-bindgen has no dynamic import; a function built from text can use one.
        let import = js_sys::Function::new_with_args("url", "return import(url)");
        let module = JsFuture::from(import.call1(&JsValue::NULL, &url.into())?.unchecked_into::<js_sys::Promise>()).await?;
        let export = |name: &str| js_sys::Reflect::get(&module, &name.into())?.dyn_into::<js_sys::Function>();
        // The glue's default export fetches and instantiates the engine's wasm.
        JsFuture::from(export("default")?.call0(&JsValue::NULL)?.unchecked_into::<js_sys::Promise>()).await?;
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let warm_up = export("warm_up")?;
        for run in 0..WARM_UP_RUNS {
            warm_up.call1(&JsValue::NULL, &run.into())?;
            // One run per task: a request that comes meanwhile is answered between runs.
            let next_task = js_sys::Promise::new(&mut |resolve, _| {
                let _ = scope.set_timeout_with_callback(&resolve);
            });
            JsFuture::from(next_task).await?;
        }
        let performance = js_sys::Reflect::get(&scope, &"performance".into())?;
        let now = js_sys::Reflect::get(&performance, &"now".into())?.dyn_into::<js_sys::Function>()?.bind0(&performance);
        let post = js_sys::Reflect::get(&scope, &"postMessage".into())?.dyn_into::<js_sys::Function>()?.bind0(&scope);
        Ok(Engine { answer: export("answer")?, answer_fix: export("answer_fix")?, now, post })
    }

    fn give_up(why: &str, err: &JsValue) {
        ENGINE.with(|e| *e.borrow_mut() = Stage::Failed);
        web_sys::console::warn_2(&format!("fencelab: the speed-built checker engine {why}; the worker goes on with the app's own checker:").into(), err);
    }
}
