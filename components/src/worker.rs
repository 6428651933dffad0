//! The checker's Web Worker side. The page and the worker run the same wasm: the page
//! posts its compiled `WebAssembly.Module` and the URL of its glue script to the worker
//! (`assets/check-worker-loader.js`), which instantiates them, so the checker is neither
//! shipped nor compiled twice. `main` tells the two apart by the global scope.
//!
//! The checker's own code is a wasm chunk (`checker`) that only the worker runs
//! (`answer_with_checker`): the page shows the starter scenario's report from the build
//! (`crate::starter`) and steps with the `Stepper` alone, so the first load does without
//! the search. The worker fetches the chunk as it starts when a request is sure to come
//! (`CheckerFetch::Now`: a page opened on a shared link, a restart), otherwise with its
//! first request or a second after it is ready, whichever comes first, and tells the page
//! once it is here (`CheckerLoaded`). Of the requests that waited for it,
//! only the newest is checked: the page wants no other.
//!
//! That wasm is built for size (issue 19's first-load budget). Once the worker has
//! answered a request and the page has had time to load, it fetches the speed-built
//! checker engine (`engine/`, `fencelab-engine.js`) and, once that has instantiated and
//! warmed up, hands it every request; if it fails to load or to run, the worker goes on
//! answering checks with its own wasm (docs/performance.md). The app's wasm has no fix
//! search, so its report lists findings in discovery order, not ranked by cause: when it
//! listed several, the engine answers that request again once it has loaded (unless a
//! newer one came), and the page shows the ranked report in place.
//!
//! Fix requests (the fix panel's own worker) are answered by the engine alone: the page's
//! wasm is built without the fix search (docs/loading.md). A fix request that comes before
//! the engine has loaded fetches it at once, without the warm-up, and waits for it
//! (`FixLoading`); if the engine cannot load or stops, the worker says so
//! (`FixUnavailable`) instead of answering.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::analysis::Analysis;
use crate::lazy::ChunkLoadFailed;
use crate::protocol::{answer, decode_reply, encode, Answerer, CheckReply};
use crate::state::STARTER_SCENARIO;

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

/// A thrown value as one line: an `Error`'s name and message, or the value's text. (Not
/// `Debug`: the release wasm is built with `-Zfmt-debug=none`, which prints nothing.)
pub(crate) fn error_text(err: &JsValue) -> String {
    match err.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.to_string()),
        None => err.as_string().unwrap_or_else(|| "no reason given".to_string()),
    }
}

/// Answers check requests (postcard bytes) with progress and reports, and hands fix
/// requests to the engine, for as long as the worker lives.
pub fn serve() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replier = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let request = event.data();
        // A fix request comes wrapped as `{fix: bytes}`, for the engine alone; a check
        // request is the bytes.
        if let Some(fix) = js_sys::Reflect::get(&request, &"fix".into()).ok().filter(|f| !f.is_undefined()) {
            return engine::fix(fix);
        }
        // The kernel import's worker (`crate::open_kernel`) sends `{import: bytes}`.
        if let Some(import) = js_sys::Reflect::get(&request, &"import".into()).ok().filter(|i| !i.is_undefined()) {
            return crate::open_kernel::serve_import(import, replier.clone());
        }
        if !engine::answered(&request) {
            let bytes = js_sys::Uint8Array::new(&request).to_vec();
            let number = NEWEST_REQUEST.with(|n| n.get() + 1);
            NEWEST_REQUEST.set(number);
            let replier = replier.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let answered = async {
                    load_checker(&replier).await?;
                    // A newer request came while the code loaded: it replaces this one.
                    if NEWEST_REQUEST.get() != number {
                        return Ok(());
                    }
                    // Kept only for a report the engine would order differently.
                    if answer_with_checker(bytes.clone()).await? {
                        engine::rank_once_loaded(number, bytes);
                    }
                    Ok::<(), ChunkLoadFailed>(())
                };
                if answered.await.is_err() {
                    let message = "the checker's code did not load (the browser's console says why): edit the text to try again, or reload the page".to_string();
                    post(&replier, &encode(&CheckReply::CheckerUnavailable { message }));
                }
            });
        }
        engine::wanted(&replier);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    // When a request is sure to come, the checker's code is fetched now, beside the
    // warm-up (`warm_up`); otherwise (the starter's verdict is the build's) once the page
    // has loaded, with the warm-up after it, so that the first edit is checked at once
    // rather than after a fetch, and parsed with compiled code.
    let when = js_sys::Reflect::get(&scope, &"fencelabCheckerFetch".into()).ok().and_then(|w| w.as_string());
    // A loader that says nothing gets the explorer's choice.
    let when = when.as_deref().and_then(CheckerFetch::from_word).unwrap_or(CheckerFetch::AfterLoad);
    let prefetch = {
        let scope = scope.clone();
        // A failure is the console's; the request's own load tries again.
        move || {
            wasm_bindgen_futures::spawn_local(async move {
                let _ = load_checker(&scope).await;
            })
        }
    };
    match when {
        CheckerFetch::Now => {
            prefetch();
            // In a task of its own, so the checker's fetches go out first. Not scheduled
            // only when the worker is closing.
            let _ = run_later(&scope, 0, warm_up);
        }
        CheckerFetch::Never => {}
        CheckerFetch::AfterLoad => {
            // A request that came first has fetched it already (or tried to).
            // Not scheduled only when the worker is closing; a request then loads the code itself.
            let _ = run_later(&scope, CHECKER_AFTER_READY_MS, {
                let scope = scope.clone();
                move || {
                    if NEWEST_REQUEST.get() == 0 {
                        prefetch();
                    }
                    let _ = run_later(&scope, 0, warm_up);
                }
            });
        }
    }
    engine::READY_AT.set(scope.performance().map_or(0.0, |p| p.now()));
    post(&scope, &encode(&CheckReply::Ready));
}

/// When the worker of a page that needs no check yet fetches the checker's code: after the
/// page's own load (its first verdict and panels), as the engine waits too (ms).
const CHECKER_AFTER_READY_MS: i32 = 1000;

/// When a worker fetches the checker's code (the page says, `crate::check_client`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum CheckerFetch {
    /// As it starts: a request is sure to come (a shared link's scenario, a restart).
    Now,
    /// Once the page has loaded: the first verdict needs none (the starter's is the build's),
    /// and the first edit's will.
    AfterLoad,
    /// Never: a fix search's worker, which only the engine answers.
    Never,
}

impl CheckerFetch {
    /// For the page's first worker: at once when the page opened on a shared link (an embed
    /// too), whose first check is of a scenario other than the starter.
    pub(crate) fn for_first_worker() -> CheckerFetch {
        if crate::check_client::opened_on_link() { CheckerFetch::Now } else { CheckerFetch::AfterLoad }
    }

    /// The loader's `checker` field (`assets/check-worker-loader.js`).
    pub(crate) fn word(self) -> &'static str {
        match self {
            CheckerFetch::Now => "now",
            CheckerFetch::AfterLoad => "after-load",
            CheckerFetch::Never => "never",
        }
    }

    fn from_word(word: &str) -> Option<CheckerFetch> {
        [CheckerFetch::Now, CheckerFetch::AfterLoad, CheckerFetch::Never].into_iter().find(|when| when.word() == word)
    }
}

thread_local! {
    /// How many check requests have come: the number of the newest.
    static NEWEST_REQUEST: Cell<u64> = const { Cell::new(0) };
    /// Whether the page has been told that the checker's code is here.
    static TOLD_CHECKER_LOADED: Cell<bool> = const { Cell::new(false) };
}

/// Fetches the checker's chunk (once; a failed fetch is tried again by the next call) and
/// tells the page, the first time, that it is here.
async fn load_checker(scope: &DedicatedWorkerGlobalScope) -> Result<(), ChunkLoadFailed> {
    preload_checker().await?;
    if !TOLD_CHECKER_LOADED.replace(true) {
        post(scope, &encode(&CheckReply::CheckerLoaded));
    }
    Ok(())
}

/// Answers one check request with the app's own checker, whose code is the `checker`
/// chunk (`load_checker`). Says whether its report lists several findings: this wasm has
/// no fix search, so they are in discovery order, not ranked by cause as the engine ranks
/// them (`protocol::answer`).
#[leptos::wasm_split::wasm_split(checker, fallible, preload(preload_checker), wasm_split_path = ::leptos::wasm_split)]
fn answer_with_checker(request: Vec<u8>) -> Result<bool, ChunkLoadFailed> {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let clock = scope.performance();
    let now = || clock.as_ref().map_or(0.0, |p| p.now());
    let mut last = Vec::new();
    answer(&request, Answerer::Worker, &now, &mut |reply| {
        post(&scope, &reply);
        last = reply;
    });
    Ok(lists_several_findings(&last))
}

/// Whether `reply` is a report with two or more findings: the only order ranking can change.
fn lists_several_findings(reply: &[u8]) -> bool {
    matches!(decode_reply(reply), Ok(CheckReply::Done { report, .. }) if report.findings.len() >= 2)
}

/// Runs `work` once, in a task `delay_ms` from now.
fn run_later(scope: &DedicatedWorkerGlobalScope, delay_ms: i32, work: impl FnOnce() + 'static) -> Result<i32, JsValue> {
    let work = Closure::once_into_js(work);
    scope.set_timeout_with_callback_and_timeout_and_arguments_0(work.unchecked_ref(), delay_ms)
}

/// Posts one reply to the page. A closed port only means the page went away; there is no
/// one left to tell.
fn post(scope: &DedicatedWorkerGlobalScope, reply: &[u8]) {
    let _ = scope.post_message(&js_sys::Uint8Array::from(reply));
}

/// Parses the starter scenario, so that V8, which compiles a wasm function on its first
/// call, compiles the parser and verifier here rather than in a task of the page (the page
/// and this worker share one compiled module), and the model's code that parse and check
/// share. A shared link's worker does it while the checker's code is on its way. The
/// explorer takes its first text's load and verdict from the build and parses nothing as
/// it loads (`crate::starter`), so its worker does it once the page has loaded, before a
/// first edit would have the page compile the parser: earlier, it only competed with the
/// page's load for this machine's two cores
/// (benches/results/2026-11-25-loading-rounds.md).
fn warm_up() {
    let _ = Analysis::of(STARTER_SCENARIO);
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
        /// A fix request that came before the engine had loaded: answered once it has.
        static PENDING_FIX: RefCell<Option<JsValue>> = const { RefCell::new(None) };
        /// The newest check request the app's own checker answered with several findings,
        /// with its number: the engine answers it again once it has loaded, so the page can
        /// show those findings ranked by cause (`crate::check_client`).
        static TO_RANK: RefCell<Option<(u64, Vec<u8>)>> = const { RefCell::new(None) };
    }

    enum Stage {
        NotWanted,
        /// Its fetch waits for the page's load to be over (`AFTER_READY_MS`).
        Scheduled,
        Loading,
        Loaded(Engine),
        /// It did not load or it failed a request (why): the worker's own wasm answers
        /// checks, and fix requests are told that the fix search is unavailable.
        Failed(String),
    }

    /// The engine module's exports, and the clock and reply port it is handed.
    #[derive(Clone)]
    struct Engine {
        answer: js_sys::Function,
        answer_fix: js_sys::Function,
        now: js_sys::Function,
        post: js_sys::Function,
    }

    fn loaded() -> Option<Engine> {
        ENGINE.with(|e| match &*e.borrow() {
            Stage::Loaded(engine) => Some(engine.clone()),
            _ => None,
        })
    }

    /// Has the engine answer check `request` if it has loaded; `false` when the caller
    /// must. An engine that throws (a trap) is dropped, and the caller answers the request.
    pub(super) fn answered(request: &JsValue) -> bool {
        let Some(engine) = loaded() else {
            return false;
        };
        match engine.answer.call3(&JsValue::NULL, request, &engine.now, &engine.post) {
            Ok(_) => true,
            Err(err) => {
                give_up("failed a request", &err);
                false
            }
        }
    }

    /// Has the engine answer check request `number` (its `bytes`) again, now if it has
    /// loaded, else once it has; a newer request by then replaces it.
    pub(super) fn rank_once_loaded(number: u64, bytes: Vec<u8>) {
        TO_RANK.set(Some((number, bytes)));
        if let Some(engine) = loaded() {
            rank_waiting(&engine);
        }
    }

    /// Answers the request waiting to be ranked, unless a newer one has come since: its
    /// answer is the one the page shows.
    fn rank_waiting(engine: &Engine) {
        let Some((number, bytes)) = TO_RANK.take() else { return };
        if super::NEWEST_REQUEST.get() != number {
            return;
        }
        let request = js_sys::Uint8Array::from(bytes.as_slice());
        if let Err(err) = engine.answer.call3(&JsValue::NULL, &request, &engine.now, &engine.post) {
            give_up("failed a request", &err);
        }
    }

    /// Has the engine answer fix `request`: at once if it has loaded; otherwise the request
    /// waits for the engine, which is fetched now (a newer request replaces it).
    pub(super) fn fix(request: JsValue) {
        if let Some(engine) = loaded() {
            return run_fix(&engine, &request);
        }
        let start = ENGINE.with(|e| {
            let mut stage = e.borrow_mut();
            match &*stage {
                Stage::Failed(why) => Err(why.clone()),
                Stage::NotWanted | Stage::Scheduled => {
                    *stage = Stage::Loading;
                    Ok(true)
                }
                Stage::Loading | Stage::Loaded(_) => Ok(false),
            }
        });
        match start {
            Err(why) => unavailable(&why),
            Ok(start) => {
                PENDING_FIX.with(|p| *p.borrow_mut() = Some(request));
                post(&js_sys::global().unchecked_into(), &encode(&CheckReply::FixLoading));
                // A fix search makes thousands of checks, which optimise the engine's code
                // as it goes: no warm-up stands between the learner and the search.
                if start {
                    wasm_bindgen_futures::spawn_local(load(0));
                }
            }
        }
    }

    fn run_fix(engine: &Engine, request: &JsValue) {
        if let Err(err) = engine.answer_fix.call3(&JsValue::NULL, request, &engine.now, &engine.post) {
            unavailable(&give_up("stopped during a fix search", &err));
        }
    }

    /// Tells the page that this worker cannot search for fixes, and why.
    fn unavailable(why: &str) {
        post(&js_sys::global().unchecked_into(), &encode(&CheckReply::FixUnavailable { why: why.to_string() }));
    }

    /// Called after each check request: the first one schedules the engine's fetch.
    pub(super) fn wanted(scope: &DedicatedWorkerGlobalScope) {
        let first = ENGINE.with(|e| {
            let mut stage = e.borrow_mut();
            let first = matches!(*stage, Stage::NotWanted);
            if first {
                *stage = Stage::Scheduled;
            }
            first
        });
        if !first {
            return;
        }
        let now = scope.performance().map_or(0.0, |p| p.now());
        let delay = (READY_AT.get() + AFTER_READY_MS - now).max(0.0);
        let fetch = || {
            // A fix request may have fetched it meanwhile.
            let due = ENGINE.with(|e| {
                let mut stage = e.borrow_mut();
                let due = matches!(*stage, Stage::Scheduled);
                if due {
                    *stage = Stage::Loading;
                }
                due
            });
            if due {
                wasm_bindgen_futures::spawn_local(load(WARM_UP_RUNS));
            }
        };
        if run_later(scope, delay as i32, fetch).is_err() {
            give_up("could not be scheduled", &JsValue::UNDEFINED);
        }
    }

    async fn load(warm_up_runs: u32) {
        let pending = match instantiate(warm_up_runs).await {
            Ok(engine) => {
                ENGINE.with(|e| *e.borrow_mut() = Stage::Loaded(engine.clone()));
                rank_waiting(&engine);
                Ok(engine)
            }
            Err(err) => Err(give_up("did not load", &err)),
        };
        let Some(request) = PENDING_FIX.with(|p| p.borrow_mut().take()) else { return };
        match pending {
            Ok(engine) => run_fix(&engine, &request),
            Err(why) => unavailable(&why),
        }
    }

    async fn instantiate(warm_up_runs: u32) -> Result<Engine, JsValue> {
        let url = web_sys::Url::new_with_base(ENGINE_URL, &glue_url())?.href();
        // wasm-bindgen has no dynamic import; a function built from text can use one.
        let import = js_sys::Function::new_with_args("url", "return import(url)");
        let module = JsFuture::from(import.call1(&JsValue::NULL, &url.into())?.unchecked_into::<js_sys::Promise>()).await?;
        let export = |name: &str| js_sys::Reflect::get(&module, &name.into())?.dyn_into::<js_sys::Function>();
        // The glue's default export fetches and instantiates the engine's wasm.
        JsFuture::from(export("default")?.call0(&JsValue::NULL)?.unchecked_into::<js_sys::Promise>()).await?;
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let warm_up = export("warm_up")?;
        for run in 0..warm_up_runs {
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

    /// Drops the engine for good; returns why, as the fix panel shows it.
    fn give_up(what: &str, err: &JsValue) -> String {
        let why = format!("its engine {what}: {}", error_text(err));
        ENGINE.with(|e| *e.borrow_mut() = Stage::Failed(why.clone()));
        web_sys::console::warn_2(
            &format!("fencelab: the speed-built checker engine {what}; checks go on with the app's own checker, fix searches are unavailable:").into(),
            err,
        );
        why
    }
}

#[cfg(test)]
mod tests {
    use super::CheckerFetch;

    #[test]
    fn each_checker_fetch_word_reads_back_and_no_other_does() {
        for when in [CheckerFetch::Now, CheckerFetch::AfterLoad, CheckerFetch::Never] {
            assert_eq!(CheckerFetch::from_word(when.word()), Some(when));
        }
        assert_eq!(CheckerFetch::from_word("soon"), None);
    }
}
