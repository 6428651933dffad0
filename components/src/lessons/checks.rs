//! Checks the lesson cards' scenarios in a checker worker of their own, so a lesson full of
//! scenarios never holds up the page: on the main thread each card's check was one task,
//! and a lesson's heavier scenarios took the page's clicks and scrolling with them.
//!
//! The worker is the explorer's kind (`crate::worker`: the page's wasm, the checker's
//! chunk, then the speed-built engine), started on the first card of a visit and kept for
//! the next lesson. Cards are sent one at a time, in the order they asked: a worker
//! still fetching the checker's code answers only the newest request it holds, so a second
//! one waiting would be dropped. A card whose check the worker cannot give (its code did
//! not load, the worker stopped) is checked on the page, as before, so it still answers.

use std::cell::RefCell;
use std::collections::VecDeque;

use fencelab::check::{Mode, Options};
use fencelab::model::Scenario;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent};

use super::scenario_card::{check_source, Checked};
use crate::check_client::{start_worker, Attached, CheckerFetch};
use crate::protocol::{decode_reply, encode_request, CheckReply, CheckRequest};

/// One card's check: what it sends, where the answer goes, and the text to check on the
/// page if the worker cannot.
struct Job {
    id: u64,
    scenario: Scenario,
    mode: Mode,
    source: String,
    answer: RwSignal<Option<Checked>>,
}

#[derive(Default)]
struct Checks {
    /// `None` until the first card asks, and again after the worker failed.
    worker: Option<Attached>,
    ready: bool,
    /// The job the worker has, whose `Done` sends the next.
    in_flight: Option<Job>,
    waiting: VecDeque<Job>,
    next_id: u64,
}

thread_local! {
    static CHECKS: RefCell<Checks> = RefCell::new(Checks::default());
}

/// Checks `source` in `mode` as the CLI's `lessons check` does and puts the answer in
/// `answer`: a text that does not load at once (its parse is quick), a report once the
/// worker has one. A card gone by then is not written to.
pub fn check_in_worker(source: String, mode: Mode, answer: RwSignal<Option<Checked>>) {
    let loaded = fencelab::load(&source);
    if loaded.has_errors() {
        answer.set(Some(check_source(&source, mode)));
        return;
    }
    let has_worker = CHECKS.with(|c| {
        let mut checks = c.borrow_mut();
        checks.next_id += 1;
        let id = checks.next_id;
        checks.waiting.push_back(Job { id, scenario: loaded.scenario, mode, source, answer });
        checks.worker.is_some()
    });
    if has_worker {
        return send_next();
    }
    // Not while `CHECKS` is borrowed: an adopted early worker's messages reach the handlers
    // as they are attached.
    match start() {
        Ok(attached) => {
            CHECKS.with(|c| c.borrow_mut().worker = Some(attached));
            send_next();
        }
        // No worker can start here (never expected in a browser that ran the page's own).
        Err(_) => check_all_on_page(),
    }
}

fn start() -> Result<Attached, JsValue> {
    // Cards are sure to ask: the checker's code is fetched at once.
    let worker = start_worker(CheckerFetch::Now)?;
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(|ev: MessageEvent| {
        let bytes = js_sys::Uint8Array::new(&ev.data()).to_vec();
        match decode_reply(&bytes) {
            Ok(CheckReply::Ready) => {
                CHECKS.with(|c| c.borrow_mut().ready = true);
                send_next();
            }
            Ok(CheckReply::Done { id, report, .. }) => {
                let job = CHECKS.with(|c| {
                    let mut checks = c.borrow_mut();
                    // A later answer to the same request (the engine's ranking) finds none.
                    checks.in_flight.take_if(|job| job.id == id)
                });
                if let Some(job) = job {
                    let _ = job.answer.try_set(Some(Checked::Ran(Box::new(report))));
                }
                send_next();
            }
            // Only the job in flight was lost: it is checked here, the next tries the worker.
            Ok(CheckReply::CheckerUnavailable { .. } | CheckReply::Invalid { .. }) | Err(_) => {
                if let Some(job) = CHECKS.with(|c| c.borrow_mut().in_flight.take()) {
                    check_on_page(job);
                }
                send_next();
            }
            Ok(CheckReply::Progress { .. } | CheckReply::CheckerLoaded) => {}
            // Fix searches run in the fix panel's own worker, never this one.
            Ok(CheckReply::FixProgress { .. } | CheckReply::FixDone { .. } | CheckReply::FixLoading | CheckReply::FixUnavailable { .. }) => {}
        }
    });
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(|ev: ErrorEvent| {
        ev.prevent_default();
        web_sys::console::warn_1(&format!("fencelab: the lessons' checker worker stopped ({}); the cards are checked on the page", ev.message()).into());
        check_all_on_page();
    });
    Ok(Attached::new(worker, on_message, on_error))
}

/// Hands the worker the oldest waiting job, if it is ready and has none.
fn send_next() {
    let sent = CHECKS.with(|c| {
        let mut checks = c.borrow_mut();
        if !checks.ready || checks.in_flight.is_some() {
            return Ok(());
        }
        let Some(job) = checks.waiting.pop_front() else { return Ok(()) };
        let request = CheckRequest { id: job.id, scenario: job.scenario.clone(), options: Options { mode: job.mode, ..Options::default() } };
        let posted = match (encode_request(&request), checks.worker.as_ref()) {
            (Ok(bytes), Some(attached)) => attached.worker.post_message(&js_sys::Uint8Array::from(bytes.as_slice())).is_ok(),
            _ => false,
        };
        if posted {
            checks.in_flight = Some(job);
            Ok(())
        } else {
            Err(job)
        }
    });
    if let Err(job) = sent {
        check_on_page(job);
        send_next();
    }
}

/// Stops the worker and checks every card it had on the page; the next card starts a
/// fresh worker.
fn check_all_on_page() {
    let (worker, jobs) = CHECKS.with(|c| {
        let mut checks = c.borrow_mut();
        let jobs: Vec<Job> = checks.in_flight.take().into_iter().chain(checks.waiting.drain(..)).collect();
        checks.ready = false;
        (checks.worker.take(), jobs)
    });
    // Stopped from a task of its own: this may run inside the worker's own handler.
    if let Some(worker) = worker {
        super::scenario_card::later(0, move || worker.stop());
    }
    jobs.into_iter().for_each(check_on_page);
}

/// The card's check on the main thread, in a task of its own.
fn check_on_page(job: Job) {
    super::scenario_card::later(0, move || {
        let _ = job.answer.try_set(Some(check_source(&job.source, job.mode)));
    });
}
