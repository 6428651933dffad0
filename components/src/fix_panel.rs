//! "Fix it" under the verdict: for a scenario that is not correct, the ranked verified
//! fixes (`fencelab::fix::fix`); for a correct one, which synchronization steps matter and
//! the cheaper correct variants (`fencelab::fix::improve`). The search runs in a worker of
//! its own, so the checker keeps answering edits; cancel terminates that worker. The
//! search's mode and edit limit are the panel's own; "Which steps matter?" also marks the
//! steps in the lanes and the editor (`instr_notes`).
//!
//! Only the speed-built engine answers fix requests (the page's wasm has no fix search,
//! docs/loading.md): the worker fetches it for the first search and says so
//! (`FixLoading`), and the panel keeps that worker for the next searches, so they start at
//! once. If the engine cannot load, the panel says the search is unavailable and why, and
//! the next click tries again in a fresh worker.
//!
//! Apply puts a fix's text in the editor as an undoable edit; while that text stands, the
//! editor highlights the lines the fix changed and the panel offers "Undo fix N".
//!
//! The panel's own code is a wasm chunk too (`crate::lazy`, docs/loading.md): the first
//! load does not need it, since the panel shows only once a complete verdict is in.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use fencelab::check::{Mode, Verdict};
use fencelab::cost::MODEL_LABEL;
use fencelab::fix::Fix;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::check_client::{start_worker, Attached, CheckState, CheckerFetch};
use crate::decimal::fixed;
use crate::instr_notes::{variant_text, words, Applied, AppliedFix, StepMarks};
use crate::lazy::{lazy_panel, ChunkLoadFailed};
use crate::protocol::{decode_reply, encode_fix_request, CheckReply, FixOutcome, FixRequest, MAX_EDITS};
use crate::state::{use_app_state, AppState};

/// What the verdict of the checker's mode calls for (the worker decides again in the
/// search's mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FixKind {
    Repair,
    Improve,
}

#[derive(Clone, Debug, PartialEq)]
enum FixState {
    Idle,
    /// The worker is fetching the engine that runs the search (a worker's first search).
    Loading,
    Running { done: usize, total: usize },
    /// The answer and the worker's search time (ms).
    Done(FixOutcome, f64),
    Cancelled,
    Failed(String),
}

impl FixState {
    /// Whether a search is under way (its worker is busy with it).
    fn busy(&self) -> bool {
        matches!(self, FixState::Loading | FixState::Running { .. })
    }
}

/// What one search was asked: an edit or another setting makes its answer stale.
#[derive(Clone, Debug, PartialEq)]
struct Asked {
    source: String,
    mode: Mode,
    max_edits: usize,
}

/// The panel's worker, kept between searches once its engine has loaded.
struct FixWorker {
    attached: Attached,
    ready: Rc<Cell<bool>>,
    /// The request posted once the worker is ready.
    queued: Rc<RefCell<Option<Vec<u8>>>>,
    /// False once the worker said it cannot search or stopped: the next search starts a
    /// fresh one.
    usable: Rc<Cell<bool>>,
}

/// The panel's search: one at a time, for one text, mode and edit limit.
#[derive(Clone, Copy)]
struct FixSearch {
    state: RwSignal<FixState>,
    searched: RwSignal<Option<Asked>>,
    /// The search's mode: the checker's, until the learner picks another.
    mode: RwSignal<Mode>,
    max_edits: RwSignal<usize>,
    live: StoredValue<Option<FixWorker>, LocalStorage>,
    /// The current search's request id; replies to others are stale.
    id: StoredValue<u64>,
}

impl FixSearch {
    fn new(mode: Mode) -> FixSearch {
        FixSearch {
            state: RwSignal::new(FixState::Idle),
            searched: RwSignal::new(None),
            mode: RwSignal::new(mode),
            max_edits: RwSignal::new(fencelab::fix::Limits::default().max_edits),
            live: StoredValue::new_local(None),
            id: StoredValue::new(0),
        }
    }

    fn stop(self) {
        self.live.update_value(|l| l.take().into_iter().for_each(|w| w.attached.stop()));
    }

    fn cancel(self) {
        self.stop();
        self.state.set(FixState::Cancelled);
    }

    /// Drops the search shown (an edit or another setting made it stale); a search still
    /// running takes its worker with it, since a search cannot be interrupted.
    fn drop_stale(self) {
        if self.state.with_untracked(FixState::busy) {
            self.stop();
        }
        self.searched.set(None);
        self.state.set(FixState::Idle);
    }

    fn start(self, state: AppState, asked: Asked) {
        // The worker runs one search at a time: a running one is given up with its worker.
        let reusable = !self.state.with_untracked(FixState::busy) && self.live.with_value(|l| l.as_ref().is_some_and(|w| w.usable.get()));
        if !reusable {
            self.stop();
        }
        state.notes.set_steps(None);
        let id = self.id.get_value() + 1;
        self.id.set_value(id);
        self.searched.set(Some(asked.clone()));
        let Asked { source, mode, max_edits } = asked;
        let Ok(bytes) = encode_fix_request(&FixRequest { id, source, mode, max_edits }) else {
            self.state.set(FixState::Failed("fencelab internal bug: fix request not serializable".into()));
            return;
        };
        if !reusable {
            match self.spawn(state) {
                Ok(worker) => self.live.set_value(Some(worker)),
                Err(err) => {
                    self.state.set(FixState::Failed(format!("could not start the fix worker: {}", crate::worker::error_text(&err))));
                    return;
                }
            }
        }
        // A fresh worker has no engine yet: it loads (the worker says so too, `FixLoading`).
        self.state.set(if reusable { FixState::Running { done: 0, total: 0 } } else { FixState::Loading });
        let posted = self.live.with_value(|live| {
            let live = live.as_ref()?;
            if !live.ready.get() {
                *live.queued.borrow_mut() = Some(bytes);
                return Some(true);
            }
            Some(post_fix(&live.attached.worker, &bytes))
        });
        if posted != Some(true) {
            self.state.set(FixState::Failed("could not reach the fix worker".into()));
        }
    }

    /// A fresh worker whose replies drive the panel: it loads the engine on the first
    /// request and answers every later one at once.
    fn spawn(self, state: AppState) -> Result<FixWorker, JsValue> {
        let worker = start_worker(CheckerFetch::Never)?;
        let ready = Rc::new(Cell::new(false));
        let queued: Rc<RefCell<Option<Vec<u8>>>> = Rc::new(RefCell::new(None));
        let usable = Rc::new(Cell::new(true));
        let on_message = {
            let (worker, ready, queued, usable) = (worker.clone(), ready.clone(), queued.clone(), usable.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| {
                let bytes_in = js_sys::Uint8Array::new(&ev.data()).to_vec();
                let current = self.id.get_value();
                match decode_reply(&bytes_in) {
                    Ok(CheckReply::Ready) => {
                        ready.set(true);
                        if let Some(request) = queued.borrow_mut().take() {
                            if !post_fix(&worker, &request) {
                                self.state.set(FixState::Failed("could not reach the fix worker".into()));
                            }
                        }
                    }
                    // The worker holds one search, the current one: it fetches the engine first.
                    Ok(CheckReply::FixLoading) => self.state.set(FixState::Loading),
                    Ok(CheckReply::FixProgress { id, done, total }) if id == current => {
                        self.state.set(FixState::Running { done, total });
                    }
                    Ok(CheckReply::FixDone { id, outcome, search_ms }) if id == current => {
                        if let (Ok(FixOutcome::Improved(found)), Some(asked)) = (&outcome, self.searched.get_untracked()) {
                            state.notes.set_steps(Some(StepMarks::new(asked.source, found)));
                        }
                        self.state.set(match outcome {
                            Ok(outcome) => FixState::Done(outcome, search_ms),
                            Err(why) => FixState::Failed(why),
                        });
                    }
                    Ok(CheckReply::FixUnavailable { why }) => {
                        usable.set(false);
                        worker.terminate();
                        self.state.set(FixState::Failed(format!(
                            "The fix search is unavailable: {why}. Checking still works; the button above tries again."
                        )));
                    }
                    Ok(CheckReply::Invalid { message }) => self.state.set(FixState::Failed(message)),
                    // Replies to an older search, or check replies this worker never sends.
                    Ok(CheckReply::FixProgress { .. } | CheckReply::FixDone { .. } | CheckReply::Progress { .. } | CheckReply::Done { .. }) => {}
                    // Fix requests never load the app's checker: the engine answers them.
                    Ok(CheckReply::CheckerLoaded | CheckReply::CheckerUnavailable { .. }) => {}
                    Err(err) => self.state.set(FixState::Failed(format!("unreadable fix reply: {err}"))),
                }
            })
        };
        let on_error = {
            let usable = usable.clone();
            Closure::<dyn Fn(ErrorEvent)>::new(move |ev: ErrorEvent| {
                ev.prevent_default();
                usable.set(false);
                self.state.set(FixState::Failed(format!("the fix search stopped: {}", ev.message())));
            })
        };
        Ok(FixWorker { attached: Attached::new(worker, on_message, on_error), ready, queued, usable })
    }
}

/// Posts a fix request, wrapped as `{fix: bytes}` so the worker tells it from a check.
fn post_fix(worker: &Worker, request: &[u8]) -> bool {
    let wrapped = js_sys::Object::new();
    let payload = js_sys::Uint8Array::from(request);
    js_sys::Reflect::set(&wrapped, &"fix".into(), &payload).is_ok() && worker.post_message(&wrapped).is_ok()
}

/// Which search the current verdict calls for: none until a complete check has answered.
fn offered(state: AppState) -> Option<FixKind> {
    state.check.state.with(|s| match s {
        CheckState::Done { report, .. } if report.stats.complete => match report.verdict {
            Verdict::Correct => Some(FixKind::Improve),
            Verdict::Race | Verdict::Deadlock | Verdict::Undefined => Some(FixKind::Repair),
            Verdict::Partial => None,
        },
        _ => None,
    })
}

/// The fix panel's place under the verdict: empty until the first complete verdict, then
/// the panel from its chunk. Once there, it stays, as the panel itself hides while no
/// search is offered, so a search's state outlives the checks in between.
#[component]
pub fn FixPanelSlot() -> impl IntoView {
    let state = use_app_state();
    let wanted = RwSignal::new(false);
    Effect::new(move || {
        if !wanted.get_untracked() && offered(state).is_some() {
            wanted.set(true);
        }
    });
    move || wanted.get().then(|| lazy_panel("the fix panel", fix_panel()))
}

/// The fix panel, from its wasm chunk.
#[leptos::wasm_split::wasm_split(fix, fallible, wasm_split_path = ::leptos::wasm_split)]
fn fix_panel() -> Result<AnyView, ChunkLoadFailed> {
    Ok(view! { <FixPanel/> }.into_any())
}

#[component]
fn FixPanel() -> impl IntoView {
    let state = use_app_state();
    let search = FixSearch::new(state.mode.get_untracked());
    on_cleanup(move || {
        search.stop();
        state.notes.set_steps(None);
        state.notes.set_applied(None);
    });
    // The search follows the checker's mode switch; the learner may pick another after.
    Effect::new(move |_| search.mode.set(state.mode.get()));
    let asked = move || Asked { source: state.source.get(), mode: search.mode.get(), max_edits: search.max_edits.get() };
    // An edit or another setting makes the shown search stale: drop it (and stop its
    // worker if it is still searching), and the step marks with it.
    Effect::new(move || {
        let now = asked();
        if search.searched.with_untracked(|s| s.as_ref().is_some_and(|s| *s != now)) {
            search.drop_stale();
            state.notes.set_steps(None);
        }
    });
    let data_state = move || {
        search.state.with(|s| match s {
            FixState::Idle => "idle",
            FixState::Loading => "loading",
            FixState::Running { .. } => "running",
            FixState::Done(..) => "done",
            FixState::Cancelled => "cancelled",
            FixState::Failed(_) => "failed",
        })
    };
    move || {
        let applied = applied_bar(state);
        let kind = offered(state)?;
        let (label, help) = match kind {
            FixKind::Repair => ("Fix it", "Search for the cheapest edits that make this scenario correct"),
            FixKind::Improve => ("Which steps matter?", "Find the steps this scenario needs, the ones it can drop, and cheaper correct variants"),
        };
        let start = move |_| search.start(state, untrack(asked));
        let running = move || search.state.with(FixState::busy);
        let search_ms = move || match search.state.get() {
            FixState::Done(_, ms) => Some(fixed(ms, 1)),
            _ => None,
        };
        Some(view! {
            <section class="fix-panel" data-fix-panel="" data-fix-state=data_state data-fix-ms=search_ms aria-label=label>
                <div class="fix-head">
                    <button type="button" class="fix-start" data-fix-start="" title=help
                        disabled=running on:click=start>{label}</button>
                    <label class="fix-control" title="The mode the search checks its variants in">
                        "Mode "
                        <select data-fix-mode="" on:change:target=move |ev| {
                            search.mode.set(if ev.target().value() == "pragmatic" { Mode::Pragmatic } else { Mode::Strict });
                        }>
                            {[Mode::Strict, Mode::Pragmatic].map(|mode| view! {
                                <option value=mode.name() selected=move || search.mode.get() == mode>{mode.name()}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    {(kind == FixKind::Repair).then(|| view! {
                        <label class="fix-control" title="Most edits in one fix: more finds more, slower">
                            "Max edits "
                            <input type="number" data-fix-max-edits="" min="1" max=MAX_EDITS.to_string() step="1"
                                prop:value=move || search.max_edits.get().to_string()
                                on:change:target=move |ev| {
                                    let picked = ev.target().value().parse::<usize>().ok().map(|n| n.clamp(1, MAX_EDITS));
                                    // A bad entry goes back to the limit in force.
                                    match picked {
                                        Some(n) => search.max_edits.set(n),
                                        None => ev.target().set_value(&search.max_edits.get_untracked().to_string()),
                                    }
                                } />
                        </label>
                    })}
                    <span class="muted fix-model" title=MODEL_LABEL>"cost: sm_90a SASS"</span>
                </div>
                {applied}
                {move || fix_body(search, state)}
            </section>
        })
    }
}

fn fix_body(search: FixSearch, state: AppState) -> AnyView {
    match search.state.get() {
        FixState::Idle => ().into_any(),
        FixState::Loading => view! {
            <p class="checking fix-progress" role="status">
                <span class="spinner" aria-hidden="true"></span>"Loading the fix search (fetched on first use)…"
                <button type="button" class="fix-cancel" data-fix-cancel="" on:click=move |_| search.cancel()>"Cancel"</button>
            </p>
        }
        .into_any(),
        FixState::Running { done, total } => {
            let counted = if total == 0 { "Searching…".to_string() } else { format!("Searching… {done} of at most {total} checks") };
            view! {
                <p class="checking fix-progress" role="status">
                    <span class="spinner" aria-hidden="true"></span>{counted}
                    <button type="button" class="fix-cancel" data-fix-cancel="" on:click=move |_| search.cancel()>"Cancel"</button>
                </p>
            }
            .into_any()
        }
        FixState::Cancelled => view! { <p class="panel-empty">"Search cancelled."</p> }.into_any(),
        FixState::Failed(why) => view! { <p class="step-error" role="alert">{why}</p> }.into_any(),
        FixState::Done(FixOutcome::Repaired(found), _) => {
            let mode = found.mode.name();
            let summary = match found.fixes.len() {
                0 => format!("{} in {mode} mode; no fix found within the search bounds ({} checks).", found.verdict.name(), found.checks),
                1 => format!("1 verified fix in {mode} mode ({} checks).", found.checks),
                n => format!("{n} verified fixes in {mode} mode, cheapest first ({} checks).", found.checks),
            };
            view! {
                <p class="fix-summary">{summary}</p>
                {found.stopped_early.map(|why| view! { <p class="note warn-note">"Stopped early: "{why}</p> })}
                <ol class="fix-list">
                    {found.fixes.into_iter().enumerate().map(|(i, f)| fix_item(i + 1, f, found.cost, state)).collect_view()}
                </ol>
            }
            .into_any()
        }
        FixState::Done(FixOutcome::Improved(found), _) => {
            // The text the search ran on: the variants are edits of it.
            let searched = search.searched.with_untracked(|s| s.as_ref().map(|s| s.source.clone())).unwrap_or_default();
            view! {
            <p class="fix-summary">
                {format!("Correct in {} mode, cost {}.", found.mode.name(), found.cost)}
                {(!found.necessary.is_empty() || !found.redundant.is_empty()).then_some(" Each step is marked in the lanes and the editor.")}
            </p>
            <h3 class="fix-title">"Necessary"</h3>
            {found.necessary.is_empty().then(|| view! { <p class="muted">"No step whose weakening the checker notices."</p> })}
            <ul class="fix-steps">
                {found.necessary.into_iter().map(|n| {
                    let broken = n.breaks.first().map(|b| view! {
                        <span class="muted">{format!(" {}: ", words(&b.kind))}</span>
                        <code>{b.after.clone()}</code>
                        <span class="fix-breaks">{format!(" → {}", b.verdict.name())}</span>
                        {open_variant(state, &searched, n.line, &n.thread, n.instr, &b.kind, &b.after)}
                    });
                    view! {
                        <li data-necessary=n.line.to_string()>
                            <span class="fix-line">{format!("line {}", n.line)}</span>
                            <code>{n.text.clone()}</code>
                            {broken}
                        </li>
                    }
                }).collect_view()}
            </ul>
            <h3 class="fix-title">"Redundant"</h3>
            {found.redundant.is_empty().then(|| view! { <p class="muted">"Every step is needed."</p> })}
            <ul class="fix-steps">
                {found.redundant.into_iter().map(|r| view! {
                    <li data-redundant=r.line.to_string()>
                        <span class="fix-line">{format!("line {}", r.line)}</span>
                        <code>{r.text.clone()}</code>
                        <span class="muted">{format!(" {}: ", words(&r.kind))}</span>
                        <code>{r.after.clone()}</code>
                        <span class="fix-still">" still correct"</span>
                        {open_variant(state, &searched, r.line, &r.thread, r.instr, &r.kind, &r.after)}
                    </li>
                }).collect_view()}
            </ul>
            <h3 class="fix-title">"Cheaper and still correct"</h3>
            {found.cheaper.is_empty().then(|| view! { <p class="muted">"None found within the search bounds."</p> })}
            {found.stopped_early.map(|why| view! { <p class="note warn-note">"Stopped early: "{why}</p> })}
            <ol class="fix-list">
                {found.cheaper.into_iter().enumerate().map(|(i, f)| fix_item(i + 1, f, found.cost, state)).collect_view()}
            </ol>
            }
            .into_any()
        }
    }
}

/// "Fix N applied", the lines it changed (highlighted in the editor) and "Undo fix N",
/// while the editor holds the text that fix wrote.
fn applied_bar(state: AppState) -> impl IntoView {
    move || {
        let fix = state.notes.applied()?;
        let lines = match fix.lines.as_slice() {
            [] => "no line changed".to_string(),
            [one] => format!("line {one} changed"),
            many => format!("lines {} changed", many.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
        };
        let (said, undo, marker) = match fix.applied {
            Applied::Fix(number) => (format!("Fix {number} applied: {lines}, highlighted in the editor. "), format!("Undo fix {number}"), number.to_string()),
            Applied::Variant { line } => (
                format!("The variant of line {line} is in the editor ({lines}, highlighted): the verdict and the lanes are its own. "),
                "Back to the original".to_string(),
                format!("variant-{line}"),
            ),
        };
        Some(view! {
            <p class="fix-applied" role="status" data-fix-applied=marker>
                <span>{said}</span>
                <button type="button" class="fix-undo" data-fix-undo=""
                    title="Put back the text from before"
                    on:click=move |_| state.undo()>{undo}</button>
            </p>
        })
    }
}

/// "Open", beside a variant "Which steps matter?" tried on the step at `line`: puts that
/// variant in the editor (an undoable edit), to step through what the weakening breaks.
fn open_variant(state: AppState, searched: &str, line: usize, thread: &str, instr: usize, kind: &str, after: &str) -> Option<impl IntoView> {
    let text = variant_text(searched, thread, instr, kind, after)?;
    let open = move |_| {
        let before = state.source.get_untracked();
        state.notes.set_applied(Some(AppliedFix::new(Applied::Variant { line }, &before, text.clone())));
        state.edit(text.clone(), false);
    };
    Some(view! {
        <button type="button" class="fix-open-variant" data-variant-open=line.to_string()
            title="Open this variant in the explorer: its verdict, its witness, its lanes (Undo comes back)"
            on:click=open>"Open"</button>
    })
}

/// One verified variant, number `number` of its list: its price change, its edits as a
/// line diff, and Apply.
fn fix_item(number: usize, found: Fix, original_cost: u32, state: AppState) -> impl IntoView {
    let delta = found.cost as i64 - original_cost as i64;
    let change = if found.cost_change.is_empty() { "same SASS".to_string() } else { found.cost_change.join(", ") };
    let text = found.text;
    let apply = move |_| {
        let before = state.source.get_untracked();
        state.notes.set_applied(Some(AppliedFix::new(Applied::Fix(number), &before, text.clone())));
        state.edit(text.clone(), false);
    };
    view! {
        <li class="fix" data-fix=number.to_string() data-fix-cost=found.cost.to_string()>
            <div class="fix-cost">
                <span class="fix-cost-change">{change}</span>
                <span class="muted">{format!(" cost {original_cost} → {} ({delta:+})", found.cost)}</span>
                <button type="button" class="fix-apply" data-fix-apply=""
                    title="Replace the editor text with this fix; the changed lines are highlighted (Undo restores it)"
                    on:click=apply>"Apply"</button>
            </div>
            <ul class="fix-diff">
                {found.edits.into_iter().map(|e| view! {
                    <li>
                        <span class="fix-line">{format!("line {}", e.line)}</span>
                        {(!e.before.is_empty()).then(|| view! { <code class="fix-before">{e.before.clone()}</code><span aria-hidden="true">" → "</span> })}
                        {e.before.is_empty().then(|| view! { <span class="fix-insert">"insert above: "</span> })}
                        <code class="fix-after">{e.after.clone()}</code>
                    </li>
                }).collect_view()}
            </ul>
        </li>
    }
}
