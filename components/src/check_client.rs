//! Talks to the checker worker: debounced requests, stale replies dropped, cancel by
//! terminating the worker and starting a fresh one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use fencelab::check::{Options, Report};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use fencelab::check::Mode;

use crate::analysis::Analysis;
use crate::protocol::{CheckReply, CheckRequest};

/// Where the verdict panel is.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckState {
    /// The text has errors; nothing to check.
    Blocked,
    /// An edit is waiting out the debounce; the last verdict is outdated.
    Queued,
    Running { request: u64 },
    Done { request: u64, report: Report, elapsed_ms: f64 },
    Cancelled,
    Failed(String),
}

/// Edits this close together make one check.
const DEBOUNCE_MS: u64 = 250;
/// Our loader (assets/check-worker-loader.js) for the Cargo bin `check-worker`.
const WORKER_URL: &str = "./check-worker-loader.js";

struct Live {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    queued: Rc<RefCell<Option<String>>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

/// Handle the verdict panel uses. Copy; the worker itself stays in a local store.
#[derive(Clone, Copy)]
pub struct CheckClient {
    pub state: RwSignal<CheckState>,
    live: StoredValue<Option<Live>, LocalStorage>,
    next_id: StoredValue<u64>,
    started_ms: StoredValue<f64>,
}

impl CheckClient {
    /// Starts the worker and re-checks on every edit or mode change. Call it from the
    /// root, so replies never arrive after their signals are gone.
    pub fn start(mode: RwSignal<Mode>, analysis: Memo<Analysis>) -> CheckClient {
        let client = CheckClient {
            state: RwSignal::new(CheckState::Blocked),
            live: StoredValue::new_local(None),
            next_id: StoredValue::new(0),
            started_ms: StoredValue::new(0.0),
        };
        client.respawn();
        let timer = StoredValue::new(None::<TimeoutHandle>);
        Effect::new(move |_| {
            let mode = mode.get();
            let scenario = analysis.with(|a| (!a.has_errors()).then(|| a.loaded.scenario.clone()));
            if let Some(t) = timer.get_value() {
                t.clear();
            }
            let Some(scenario) = scenario else {
                client.state.set(CheckState::Blocked);
                return;
            };
            if !matches!(client.state.get_untracked(), CheckState::Running { .. }) {
                client.state.set(CheckState::Queued);
            }
            let send = move || {
                let options = Options { mode, ..Options::default() };
                client.send(scenario.clone(), options);
            };
            timer.set_value(set_timeout_with_handle(send, std::time::Duration::from_millis(DEBOUNCE_MS)).ok());
        });
        on_cleanup(move || client.live.update_value(|l| if let Some(l) = l.take() { l.worker.terminate() }));
        client
    }

    fn send(self, scenario: fencelab::model::Scenario, options: Options) {
        if matches!(self.state.get_untracked(), CheckState::Running { .. }) {
            // The old run is for an outdated text: stop it rather than wait.
            self.respawn();
        }
        let id = self.next_id.get_value() + 1;
        self.next_id.set_value(id);
        let Ok(text) = serde_json::to_string(&CheckRequest { id, scenario, options }) else {
            self.state.set(CheckState::Failed("fencelab internal bug: request not serializable".into()));
            return;
        };
        self.started_ms.set_value(now_ms());
        self.state.set(CheckState::Running { request: id });
        self.live.with_value(|live| {
            if let Some(live) = live {
                if live.ready.get() {
                    let _ = live.worker.post_message(&JsValue::from_str(&text));
                } else {
                    *live.queued.borrow_mut() = Some(text);
                }
            }
        });
    }

    /// Stops the running check.
    pub fn cancel(self) {
        if matches!(self.state.get_untracked(), CheckState::Running { .. }) {
            self.respawn();
            self.state.set(CheckState::Cancelled);
        }
    }

    fn respawn(self) {
        self.live.update_value(|l| {
            if let Some(old) = l.take() {
                old.worker.terminate();
            }
        });
        let worker = match Worker::new(WORKER_URL) {
            Ok(w) => w,
            Err(err) => {
                self.state.set(CheckState::Failed(format!("could not start the checker worker: {err:?}")));
                return;
            }
        };
        let ready = Rc::new(Cell::new(false));
        let queued: Rc<RefCell<Option<String>>> = Rc::new(RefCell::new(None));
        let on_message = {
            let (ready, queued, worker) = (ready.clone(), queued.clone(), worker.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| {
                let text = ev.data().as_string().unwrap_or_default();
                match serde_json::from_str::<CheckReply>(&text) {
                    Ok(CheckReply::Ready) => {
                        ready.set(true);
                        if let Some(request) = queued.borrow_mut().take() {
                            let _ = worker.post_message(&JsValue::from_str(&request));
                        }
                    }
                    Ok(CheckReply::Done { id, report }) => self.finish(id, report),
                    Ok(CheckReply::Invalid { message }) => self.state.set(CheckState::Failed(message)),
                    Err(err) => self.state.set(CheckState::Failed(format!("unreadable checker reply: {err}"))),
                }
            })
        };
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |ev: ErrorEvent| {
            ev.prevent_default();
            self.state.set(CheckState::Failed(format!("the checker stopped: {}", ev.message())));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.live.set_value(Some(Live { worker, ready, queued, _on_message: on_message, _on_error: on_error }));
    }

    fn finish(self, id: u64, report: Report) {
        // Only the newest request's answer counts.
        if id != self.next_id.get_value() {
            return;
        }
        let elapsed_ms = now_ms() - self.started_ms.get_value();
        self.state.set(CheckState::Done { request: id, report, elapsed_ms });
    }
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}
