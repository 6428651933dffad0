//! Talks to the checker worker: each new text goes out as soon as the worker can take it
//! (the policy is `coalesce`), progress and answers to stale requests are dropped, and
//! cancel terminates the worker and starts a fresh one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use fencelab::check::{Mode, Options, Progress, Report};
use fencelab::model::Scenario;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::analysis::Analysis;
use crate::coalesce::{Coalescer, Next};
pub(crate) use crate::worker::CheckerFetch;
use crate::lazy::ChunkGate;
use crate::perf::{self, measured, now_ms};
use crate::protocol::{decode_reply, encode_request, Answerer, CheckReply, CheckRequest, WorkerTiming};

/// Where the verdict panel is.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckState {
    /// The text has errors; nothing to check.
    Blocked,
    /// An edit waits for the checker (a burst of typing, or a check of an older text is
    /// still running); the last verdict is outdated.
    Queued,
    Running { request: u64 },
    Done { request: u64, report: Report },
    Cancelled,
    Failed(String),
}

/// When each stage of one request happened, on the page clock (ms), for the timing
/// script and the browser's profiler.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    pub request: u64,
    pub posted_at: f64,
    pub reply_at: f64,
    /// The first animation frame after the verdict was rendered: when it reaches the screen.
    pub shown_at: Option<f64>,
    /// The worker's clock; for the starter scenario's report, which the build made
    /// (`crate::starter`), the page's.
    pub worker: WorkerTiming,
}

/// The worker's loader (assets/check-worker-loader.js): it runs this very wasm, which
/// the page hands it at start (`crate::worker`). index.html starts the first worker.
const WORKER_URL: &str = "./check-worker-loader.js";

#[derive(PartialEq)]
struct Job {
    scenario: Scenario,
    options: Options,
}

struct Live {
    attached: Attached,
    ready: Rc<Cell<bool>>,
    /// The worker has the checker's code (`CheckReply::CheckerLoaded`). Until then it has
    /// checked nothing, and a newer request simply replaces the one it holds.
    has_checker: Rc<Cell<bool>>,
    queued: Rc<RefCell<Option<Vec<u8>>>>,
}

/// A worker with its message and error handlers (the checker's, or a fix search's).
pub(crate) struct Attached {
    pub worker: Worker,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

impl Attached {
    /// Attaches the handlers. The early worker's events from before it was adopted (its
    /// `Ready` among them) reach them first, in the order they came.
    pub fn new(worker: Worker, on_message: Closure<dyn Fn(MessageEvent)>, on_error: Closure<dyn Fn(ErrorEvent)>) -> Attached {
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let early = EARLY_MAILBOX.with(|m| {
            let mut mailbox = m.borrow_mut();
            let ours = mailbox.as_ref().is_some_and(|mailbox| mailbox.attached.worker == worker);
            if ours { mailbox.take().map(|mailbox| mailbox.events.take()) } else { None }
        });
        for event in early.into_iter().flatten() {
            let (handler, event): (&js_sys::Function, JsValue) = match event {
                EarlyEvent::Message(event) => (on_message.as_ref().unchecked_ref(), event.into()),
                EarlyEvent::Error(event) => (on_error.as_ref().unchecked_ref(), event.into()),
            };
            // A handler's own failure is the console's, as it would be for a live event.
            let _ = handler.call1(&JsValue::NULL, &event);
        }
        Attached { worker, _on_message: on_message, _on_error: on_error }
    }

    /// Stops the worker. Its handlers are detached first: an event already queued for
    /// them would otherwise call a closure that is about to be dropped.
    pub fn stop(self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// Handle the verdict panel uses. Copy; the worker itself stays in a local store.
#[derive(Clone, Copy)]
pub struct CheckClient {
    pub state: RwSignal<CheckState>,
    /// The running check's latest progress; `None` until the worker reports some.
    pub progress: RwSignal<Option<Progress>>,
    /// Stage times of the last verdict shown.
    pub timing: RwSignal<Option<Timing>>,
    live: StoredValue<Option<Live>, LocalStorage>,
    dispatch: StoredValue<Coalescer<Job>, LocalStorage>,
    /// The last job sent, to skip edits that leave it unchanged.
    last_sent: StoredValue<Option<Job>, LocalStorage>,
    timer: StoredValue<Option<TimeoutHandle>>,
    /// The request whose answer the panel waits for; every other reply is stale.
    wanted: StoredValue<Option<u64>>,
    /// The request the worker is checking (or will check next), whose answer makes it idle;
    /// `None` while it has nothing of the page's.
    in_flight: StoredValue<Option<u64>>,
    next_id: StoredValue<u64>,
    posted_at: StoredValue<f64>,
    /// The page's chunk fetches that wait for the worker's (`crate::lazy::ChunkGate`).
    chunks: Option<ChunkGate>,
}

impl CheckClient {
    /// Starts the worker and re-checks on every edit or mode change; `typing` says whether
    /// the latest edit was a keystroke. Call it from the root, so replies never arrive
    /// after their signals are gone. `chunks` is released once the worker has the checker's
    /// code or its first check has ended, whichever comes first.
    pub fn start(mode: RwSignal<Mode>, analysis: Memo<Analysis>, typing: impl Fn() -> bool + Send + Sync + 'static, chunks: ChunkGate) -> CheckClient {
        let client = CheckClient { chunks: Some(chunks), ..CheckClient::idle() };
        client.respawn(CheckerFetch::for_first_worker());
        let last_mode = StoredValue::new(None::<Mode>);
        // Immediate, not a deferred effect: the request is posted from the edit's own
        // event, before the page re-renders, so the worker checks while the page paints.
        ImmediateEffect::new_scoped(move || {
            let mode = mode.get();
            let scenario = analysis.with(|a| (!a.has_errors()).then(|| a.loaded.scenario.clone()));
            let typing = last_mode.get_value() == Some(mode) && typing();
            last_mode.set_value(Some(mode));
            let Some(scenario) = scenario else {
                client.dispatch.update_value(Coalescer::drop_waiting);
                client.wanted.set_value(None);
                client.state.set(CheckState::Blocked);
                return;
            };
            let job = Job { scenario, options: crate::search_caps::check_options(mode) };
            if typing && client.has_answer_for(&job) {
                return;
            }
            client.act(|d, now| d.edit(job, typing, now));
        });
        on_cleanup(move || client.live.update_value(|l| l.take().into_iter().for_each(|l| l.attached.stop())));
        if chunks.waits_for_worker() {
            Effect::new(move || {
                let state = client.state.get();
                // The build's answer on the starter, which a link's page shows before it
                // restores the link's text, is no check of the worker's: the worker may not
                // have begun to fetch the checker's code yet.
                let by_build = matches!(state, CheckState::Done { request, .. }
                    if client.timing.with_untracked(|t| t.is_some_and(|t| t.request == request && t.worker.answered_by == Answerer::Build)));
                if !matches!(state, CheckState::Running { .. } | CheckState::Queued) && !by_build {
                    chunks.release();
                }
            });
        }
        client
    }

    /// A client with no worker and no checks, for a lesson's own state (the card checks
    /// its scenario itself).
    pub fn idle() -> CheckClient {
        CheckClient {
            state: RwSignal::new(CheckState::Blocked),
            progress: RwSignal::new(None),
            timing: RwSignal::new(None),
            live: StoredValue::new_local(None),
            dispatch: StoredValue::new_local(Coalescer::default()),
            last_sent: StoredValue::new_local(None),
            timer: StoredValue::new(None),
            wanted: StoredValue::new(None),
            in_flight: StoredValue::new(None),
            next_id: StoredValue::new(0),
            posted_at: StoredValue::new(0.0),
            chunks: None,
        }
    }

    /// Whether `job` is what the checker last got, with its answer shown or coming: typing
    /// in a comment or spacing leaves the scenario unchanged and needs no new check.
    fn has_answer_for(self, job: &Job) -> bool {
        let answered = self.state.with_untracked(|s| match s {
            CheckState::Done { .. } => true,
            CheckState::Running { request } => self.wanted.get_value() == Some(*request),
            _ => false,
        });
        answered && self.last_sent.with_value(|sent| sent.as_ref() == Some(job))
    }

    /// Asks the dispatch policy what to do and does it.
    fn act(self, decide: impl FnOnce(&mut Coalescer<Job>, f64) -> Next<Job>) {
        let now = now_ms();
        match self.dispatch.try_update_value(|d| decide(d, now)) {
            Some(Next::Send(job)) => self.send(job),
            Some(Next::Restart(job)) => {
                // A worker still starting, or still fetching the checker's code, has checked
                // nothing yet: the new request simply replaces the one it holds, and what it
                // has loaded is not paid for twice.
                let unstarted = self.live.with_value(|l| l.as_ref().is_some_and(|l| !l.ready.get() || !l.has_checker.get()));
                if !unstarted {
                    self.respawn(CheckerFetch::Now);
                }
                self.send(job);
            }
            Some(Next::WakeAt(at)) => {
                // Whatever runs now is for an older text: its answer is not wanted.
                self.wanted.set_value(None);
                self.state.set(CheckState::Queued);
                self.wake_in(at - now);
            }
            Some(Next::Idle) | None => {}
        }
    }

    fn wake_in(self, delay_ms: f64) {
        if let Some(timer) = self.timer.get_value() {
            timer.clear();
        }
        let delay = Duration::from_secs_f64(delay_ms.max(0.0) / 1000.0);
        self.timer.set_value(set_timeout_with_handle(move || self.act(|d, now| d.wake(now)), delay).ok());
    }

    fn send(self, job: Job) {
        let id = self.next_id.get_value() + 1;
        self.next_id.set_value(id);
        self.wanted.set_value(Some(id));
        let posted_at = now_ms();
        self.posted_at.set_value(posted_at);
        self.progress.set(None);
        self.state.set(CheckState::Running { request: id });
        // The starter scenario's report is the build's (`crate::starter`): the worker, which
        // would first have to fetch the checker's chunk, is not asked. Decoded and shown in
        // a task of its own, so the page's first render is not held up by it.
        if crate::starter::answers(&job.scenario, &job.options) {
            self.last_sent.set_value(Some(job));
            // No checker is busy with it, so an edit made before the answer shows (a shared
            // link's scenario, restored as the page mounts) goes out at once, not after a
            // wait for a check that is not running. A request still waiting for the worker
            // to start is for an older text.
            self.dispatch.update_value(Coalescer::answered_elsewhere);
            self.in_flight.set_value(None);
            self.live.with_value(|live| live.as_ref().map(|l| l.queued.borrow_mut().take()));
            set_timeout(move || self.starter_answer(id), Duration::ZERO);
            return;
        }
        let request = CheckRequest { id, scenario: job.scenario, options: job.options };
        let bytes = measured("fencelab:request", || encode_request(&request));
        self.last_sent.set_value(Some(Job { scenario: request.scenario, options: request.options }));
        let Ok(bytes) = bytes else {
            self.state.set(CheckState::Failed("fencelab internal bug: request not serializable".into()));
            return;
        };
        self.in_flight.set_value(Some(id));
        self.live.with_value(|live| {
            let Some(live) = live.as_ref() else { return };
            if live.ready.get() {
                post_bytes(&live.attached.worker, &bytes);
            } else {
                // The worker is still starting (the first check of a visit): it gets the
                // request once it is ready.
                *live.queued.borrow_mut() = Some(bytes);
            }
        });
    }

    /// Shows the starter scenario's report as the answer to request `id`, unless a newer
    /// request has replaced it.
    fn starter_answer(self, id: u64) {
        if self.wanted.get_value() != Some(id) {
            return;
        }
        match measured("fencelab:starter-report", crate::starter::report) {
            Ok(report) => {
                // The wait for this task is the page's, not a check's: `reply_at - posted_at` has it.
                let timing = WorkerTiming { answered_by: Answerer::Build, ..WorkerTiming::default() };
                self.finish(id, report, timing, now_ms());
            }
            // `crate::starter`'s tests decode it: never expected.
            Err(err) => self.state.set(CheckState::Failed(format!("fencelab internal bug: the build's report on the starter scenario does not decode: {err}"))),
        }
    }

    /// Stops the running check.
    pub fn cancel(self) {
        if matches!(self.state.get_untracked(), CheckState::Running { .. } | CheckState::Queued) {
            self.respawn(CheckerFetch::Now);
            self.dispatch.update_value(Coalescer::cancelled);
            self.wanted.set_value(None);
            self.state.set(CheckState::Cancelled);
        }
    }

    /// Stops the worker (if any) and starts a fresh one.
    fn respawn(self, fetch_checker: CheckerFetch) {
        self.live.update_value(|l| l.take().into_iter().for_each(|l| l.attached.stop()));
        self.in_flight.set_value(None);
        // From spawning to the worker's Ready: what a fresh worker costs before its first check.
        perf::begin("fencelab:worker-start");
        let worker = match start_worker(fetch_checker) {
            Ok(w) => w,
            Err(err) => {
                self.state.set(CheckState::Failed(format!("could not start the checker worker: {}", crate::worker::error_text(&err))));
                return;
            }
        };
        let ready = Rc::new(Cell::new(false));
        let has_checker = Rc::new(Cell::new(false));
        let queued: Rc<RefCell<Option<Vec<u8>>>> = Rc::new(RefCell::new(None));
        let on_message = {
            let (ready, has_checker, queued, worker) = (ready.clone(), has_checker.clone(), queued.clone(), worker.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| {
                let reply_at = now_ms();
                let bytes = js_sys::Uint8Array::new(&ev.data()).to_vec();
                match measured("fencelab:decode-reply", || decode_reply(&bytes)) {
                    Ok(CheckReply::Ready) => {
                        perf::end("fencelab:worker-start");
                        ready.set(true);
                        if let Some(request) = queued.borrow_mut().take() {
                            post_bytes(&worker, &request);
                        }
                    }
                    Ok(CheckReply::Progress { id, progress }) => {
                        if self.wanted.get_value() == Some(id) {
                            self.progress.set(Some(progress));
                        }
                    }
                    Ok(CheckReply::CheckerLoaded) => {
                        has_checker.set(true);
                        self.chunks.into_iter().for_each(ChunkGate::release);
                    }
                    Ok(CheckReply::Done { id, report, timing }) => {
                        self.finish(id, report, timing, reply_at);
                        // The answer to a request the page has since replaced leaves the
                        // worker busy with the newer one.
                        if self.in_flight.get_value() == Some(id) {
                            self.in_flight.set_value(None);
                            self.act(|d, now| d.finished(now));
                        }
                    }
                    Ok(CheckReply::Invalid { message } | CheckReply::CheckerUnavailable { message }) => {
                        self.in_flight.set_value(None);
                        self.state.set(CheckState::Failed(message));
                        self.act(|d, now| d.finished(now));
                    }
                    // Fix searches run in their own worker (`crate::fix_panel`), never this one.
                    Ok(CheckReply::FixProgress { .. } | CheckReply::FixDone { .. } | CheckReply::FixLoading | CheckReply::FixUnavailable { .. }) => {}
                    Err(err) => self.state.set(CheckState::Failed(format!("unreadable checker reply: {err}"))),
                }
            })
        };
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |ev: ErrorEvent| {
            ev.prevent_default();
            self.state.set(CheckState::Failed(format!("the checker stopped: {}", ev.message())));
            self.act(|d, now| d.finished(now));
        });
        self.live.set_value(Some(Live { attached: Attached::new(worker, on_message, on_error), ready, has_checker, queued }));
    }

    fn finish(self, id: u64, report: Report, worker: WorkerTiming, reply_at: f64) {
        // Only the newest request's answer counts, or the engine's ranking of the report shown.
        if self.wanted.get_value() != Some(id) {
            self.show_ranked(id, report, worker);
            return;
        }
        self.wanted.set_value(None);
        let posted_at = self.posted_at.get_value();
        self.state.set(CheckState::Done { request: id, report });
        self.timing.set(Some(Timing { request: id, posted_at, reply_at, shown_at: None, worker }));
        // Signals render in microtasks; the next frame is the first to paint the verdict.
        request_animation_frame(move || {
            self.timing.update(|t| {
                if let Some(t) = t.as_mut().filter(|t| t.request == id) {
                    t.shown_at = Some(now_ms());
                }
            });
        });
    }

    /// The engine's answer to request `id`, whose report the app's own checker gave with
    /// its findings in discovery order (the worker asks the engine again once it has
    /// loaded, `crate::worker`): the same findings ranked by cause replace that report in
    /// place. No state in between, so the panel does not flash "checking", and the
    /// stepping session is not touched. Any other late answer is stale.
    fn show_ranked(self, id: u64, report: Report, worker: WorkerTiming) {
        let shown_unranked = self.state.with_untracked(|s| matches!(s, CheckState::Done { request, .. } if *request == id))
            && self.timing.with_untracked(|t| t.is_some_and(|t| t.request == id && t.worker.answered_by == Answerer::Worker));
        if worker.answered_by != Answerer::Engine || !shown_unranked {
            return;
        }
        self.state.set(CheckState::Done { request: id, report });
        self.timing.update(|t| {
            if let Some(t) = t.as_mut() {
                t.worker = worker;
            }
        });
    }
}

/// Where index.html leaves the worker it starts while the wasm loads.
const EARLY_WORKER: &str = "fencelabWorker";

/// Hands this page's compiled module to the worker index.html started, as soon as the
/// wasm runs (`crate::start`, before the app mounts): the worker then instantiates
/// (`crate::worker::serve`) while the page mounts. The worker stays where
/// index.html left it for `start_worker` to adopt. Nothing happens without one.
pub fn hand_module_to_early_worker() {
    if let Ok(worker) = js_sys::Reflect::get(&js_sys::global(), &EARLY_WORKER.into()).and_then(|w| w.dyn_into::<Worker>()) {
        // A worker that cannot take it is adopted all the same and reports its failure.
        let _ = post_start(&worker, CheckerFetch::for_first_worker());
        EARLY_MAILBOX.set(Some(EarlyMailbox::on(worker)));
    }
}

/// What a worker said before the page had handlers for it: it may instantiate and post
/// `Ready` before the app mounts and adopts it (the mount is a task of its own, which a
/// busy main thread delays), and an event with no handler is lost. Without this the
/// page never knew the worker was ready, and held its first check for it forever.
struct EarlyMailbox {
    /// The worker with handlers that only keep what it says.
    attached: Attached,
    events: Rc<RefCell<Vec<EarlyEvent>>>,
}

enum EarlyEvent {
    Message(MessageEvent),
    Error(ErrorEvent),
}

impl EarlyMailbox {
    /// Keeps `worker`'s events until `Attached::new` hands them to the real handlers.
    fn on(worker: Worker) -> EarlyMailbox {
        let events: Rc<RefCell<Vec<EarlyEvent>>> = Rc::default();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new({
            let events = events.clone();
            move |ev: MessageEvent| events.borrow_mut().push(EarlyEvent::Message(ev))
        });
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new({
            let events = events.clone();
            move |ev: ErrorEvent| {
                // Reported by the page's own handler once it has one, as the live handler does.
                ev.prevent_default();
                events.borrow_mut().push(EarlyEvent::Error(ev));
            }
        });
        EarlyMailbox { attached: Attached::new(worker, on_message, on_error), events }
    }
}

thread_local! {
    /// The early worker that has its module already (`hand_module_to_early_worker`) and is
    /// not yet adopted, with what it said meanwhile.
    static EARLY_MAILBOX: RefCell<Option<EarlyMailbox>> = const { RefCell::new(None) };
}

/// Starts a module worker on the loader (or adopts the one index.html started early, once)
/// and hands it this page's wasm module and glue, and when to fetch the checker's code.
pub(crate) fn start_worker(fetch_checker: CheckerFetch) -> Result<Worker, JsValue> {
    let window = js_sys::global();
    let early = js_sys::Reflect::get(&window, &EARLY_WORKER.into())?;
    let worker = match early.dyn_into::<Worker>() {
        Ok(worker) => {
            js_sys::Reflect::delete_property(window.unchecked_ref::<js_sys::Object>(), &EARLY_WORKER.into())?;
            // The loader takes one module; a second message would reach the checker as a
            // request it cannot read.
            if EARLY_MAILBOX.with(|m| m.borrow().is_some()) {
                return Ok(worker);
            }
            worker
        }
        Err(_) => {
            let options = WorkerOptions::new();
            options.set_type(WorkerType::Module);
            Worker::new_with_options(WORKER_URL, &options)?
        }
    };
    post_start(&worker, fetch_checker)?;
    Ok(worker)
}

/// Whether the page opened on a shared link (an embed too).
pub(crate) fn opened_on_link() -> bool {
    matches!(crate::current_route(), crate::route::Route::Shared(_))
}

/// Posts the glue's URL and this page's compiled module to a fresh worker's loader, and
/// when to fetch the checker's code.
fn post_start(worker: &Worker, fetch_checker: CheckerFetch) -> Result<(), JsValue> {
    let start = js_sys::Object::new();
    js_sys::Reflect::set(&start, &"glue".into(), &crate::worker::glue_url().into())?;
    js_sys::Reflect::set(&start, &"module".into(), &wasm_bindgen::module())?;
    js_sys::Reflect::set(&start, &"checker".into(), &fetch_checker.word().into())?;
    worker.post_message(&start)
}

/// Posts `bytes` to the worker; a worker that is gone answers nothing, which the page
/// already handles (a restart or an error event).
fn post_bytes(worker: &Worker, bytes: &[u8]) {
    let _ = worker.post_message(&js_sys::Uint8Array::from(bytes));
}
