//! The app state every panel reads, provided once at the root.

use std::task::Poll;
use std::time::Duration;

use fencelab::check::{Mode, StepError};
use fencelab::schedule::Schedule;
use leptos::prelude::*;

use crate::analysis::Analysis;
use crate::check_client::{CheckClient, CheckState};
use crate::finding_marks::FindingMarks;
use crate::history::EditHistory;
use crate::instr_notes::InstrNotes;
use crate::lazy::{ChunkGate, ChunkLoadFailed};
use crate::perf::measured;
use crate::tape::{start_session, Move, Tape};

/// The scenario shown when the app opens: the intra-CTA handoff from `docs/syntax.md`.
/// The build checks it (`components/build.rs`), so its first verdict needs no checker on
/// the page (`crate::starter`).
pub const STARTER_SCENARIO: &str = include_str!("../templates/starter.fence");

/// Why a text that parses has no stepping session.
#[derive(Clone, Debug)]
pub enum NoSession {
    /// The checker cannot run the scenario (it says why).
    Unrunnable(StepError),
    /// The stepper's code, a chunk the page fetches, did not load: nothing is wrong with
    /// the scenario, and the next edit tries again.
    StepperNotLoaded,
}

/// A pause in typing longer than this starts a new undo step.
const TYPING_PAUSE_MS: f64 = 1000.0;

/// Shared, root-owned signals. Panels read them; only the explorer page writes.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The `.fence` text in the editor: the user's work, never rewritten behind their back.
    pub source: RwSignal<String>,
    /// Undo/redo snapshots of `source`.
    pub history: RwSignal<EditHistory>,
    /// When the last keystroke edit happened (ms), so a burst of typing is one undo step.
    last_typing_ms: StoredValue<Option<f64>>,
    /// How the checker treats points where the PTX spec is silent.
    pub mode: RwSignal<Mode>,
    /// Parse + verify of `source`.
    pub analysis: Memo<Analysis>,
    /// The stepping session; `None` while the text has errors or the first session waits
    /// for the stepper's code (`awaits_stepper`), `Err` when there can be none (why).
    /// Local storage: the checker's machine states share their parts through `Rc` and
    /// never leave the main thread.
    pub tape: RwSignal<Option<Result<Tape, NoSession>>, LocalStorage>,
    /// Why the last stepping action failed, shown until the next one.
    pub step_error: RwSignal<Option<String>>,
    /// Auto-stepping on/off and its delay per step.
    pub playing: RwSignal<bool>,
    pub speed_ms: RwSignal<u32>,
    /// A schedule to put on the tape once the next session starts (from a shared link).
    pub pending_schedule: RwSignal<Option<Schedule>>,
    /// The checker worker and its latest answer.
    pub check: CheckClient,
    /// The finding whose accesses the lanes and the timeline mark.
    pub marks: RwSignal<FindingMarks>,
    /// The 1-based editor line a lane instruction or a timeline dot under the pointer runs.
    pub hover_line: RwSignal<Option<usize>>,
    /// Where "Back to the lesson" leads after a lesson opened a scenario here: (hash, title).
    pub return_to: RwSignal<Option<(String, String)>>,
    /// Step marks and cost chips beside the instructions.
    pub notes: InstrNotes,
    /// The header's "Tour" asks the explorer's guided start to tour again.
    pub tour_requested: RwSignal<bool>,
}

impl AppState {
    /// Replaces the text, recording the old one for undo. `typing` joins a run of
    /// keystrokes into one undo step.
    pub fn edit(self, text: String, typing: bool) {
        let before = self.source.get_untracked();
        if before == text {
            return;
        }
        let now = js_sys::Date::now();
        let recent = self.last_typing_ms.get_value().is_some_and(|at| now - at < TYPING_PAUSE_MS);
        self.history.update(|h| h.record(&before, typing && recent));
        self.last_typing_ms.set_value(typing.then_some(now));
        // Includes what runs at once on a new text: parsing, and posting it to the checker.
        measured("fencelab:edit", || self.source.set(text));
    }

    /// Makes stepping moves on the session, if there is one, and keeps their error.
    /// Returns what the last move answered (`tape::apply`), or `None` without a session.
    pub fn with_tape(self, moves: &[Move<'_>]) -> Option<bool> {
        let mut outcome = None;
        self.tape.update(|tape| {
            if let Some(Ok(tape)) = tape {
                outcome = crate::tape::apply(tape, moves);
            }
        });
        match outcome {
            Some(Ok(value)) => {
                self.step_error.set(None);
                Some(value)
            }
            Some(Err(err)) => {
                self.playing.set(false);
                self.step_error.set(Some(err.to_string()));
                None
            }
            None => None,
        }
    }

    /// Reads the session; `None` without one.
    pub fn read_tape<T>(self, read: impl FnOnce(&Tape) -> T) -> Option<T> {
        self.tape.with(|tape| match tape {
            Some(Ok(tape)) => Some(read(tape)),
            _ => None,
        })
    }

    pub fn undo(self) {
        let current = self.source.get_untracked();
        if let Some(text) = self.history.try_update(|h| h.undo(&current)).flatten() {
            self.last_typing_ms.set_value(None);
            self.source.set(text);
        }
    }

    pub fn redo(self) {
        let current = self.source.get_untracked();
        if let Some(text) = self.history.try_update(|h| h.redo(&current)).flatten() {
            self.last_typing_ms.set_value(None);
            self.source.set(text);
        }
    }
}

pub fn provide_app_state() {
    let chunks = ChunkGate::new(crate::check_client::opened_on_link());
    provide_context(chunks);
    let state = AppState::build(STARTER_SCENARIO.to_string(), Mode::default(), true, |mode, analysis, typing| {
        CheckClient::start(mode, analysis, typing, chunks)
    });
    provide_context(state);
}

impl AppState {
    /// A state of its own for a lesson's scenario or exercise: the same editor and lanes
    /// work on it, and the checker runs in the card itself, so there is no worker.
    pub fn local(source: String, mode: Mode) -> AppState {
        AppState::build(source, mode, false, |_, _, _| CheckClient::idle())
    }

    /// `remember`: the explorer's state, whose display choices are kept in storage.
    fn build(
        source: String,
        mode: Mode,
        remember: bool,
        start_check: impl FnOnce(RwSignal<Mode>, Memo<Analysis>, Box<dyn Fn() -> bool + Send + Sync>) -> CheckClient,
    ) -> AppState {
        let source = RwSignal::new(source);
        let mode = RwSignal::new(mode);
        let analysis = Memo::new(move |_| source.with(|s| measured("fencelab:parse", || Analysis::for_editor(s))));
        let last_typing_ms = StoredValue::new(None);
        let check = start_check(mode, analysis, Box::new(move || last_typing_ms.get_value().is_some()));
        let tape = RwSignal::new_local(None::<Result<Tape, NoSession>>);
        let chunks = use_context::<ChunkGate>();
        // Counts the sessions started, so a first one that waited for the stepper's chunk is
        // dropped if a newer one has started meanwhile.
        let sessions = StoredValue::new(0_u64);
        let pending_schedule = RwSignal::new(None::<Schedule>);
        let marks = RwSignal::new(FindingMarks::default());
        // A report replaced in place (ranked by cause, `CheckClient`) lists the marked
        // findings elsewhere: the marks follow them, so the finding chosen stays chosen.
        Effect::new(move |_| {
            check.state.with(|s| {
                if let CheckState::Done { report, .. } = s {
                    marks.maybe_update(|m| m.renumber(&report.findings));
                }
            })
        });
        // A new text or mode starts a fresh session from the initial state (or on the
        // schedule a shared link carried).
        Effect::new(move |_| {
            let mode = mode.get();
            // Typing in a comment or spacing leaves the scenario as it was: keep the session,
            // and the learner's place in it, rather than rebuild every panel that shows it.
            // Any other edit (a template, undo) starts afresh. A text with errors keeps the
            // last good session on screen (dimmed), so the panels do not jump while typing.
            let typing = last_typing_ms.get_value().is_some();
            let has_errors = analysis.with(Analysis::has_errors);
            let has_session = tape.with_untracked(|t| matches!(t, Some(Ok(_))));
            if has_errors && has_session {
                return;
            }
            let unchanged = analysis.with(|a| {
                typing
                    && !a.has_errors()
                    && pending_schedule.with_untracked(Option::is_none)
                    && tape.with_untracked(|t| matches!(t, Some(Ok(t)) if t.mode() == mode && *t.scenario() == a.loaded.scenario))
            });
            if unchanged {
                return;
            }
            let session = sessions.get_value() + 1;
            sessions.set_value(session);
            let Some(scenario) = analysis.with(|a| (!a.has_errors()).then(|| a.loaded.scenario.clone())) else {
                tape.set(None);
                marks.set(FindingMarks::default());
                return;
            };
            let schedule = pending_schedule.try_update_untracked(Option::take).flatten();
            let show = move |started: Result<Result<Tape, StepError>, ChunkLoadFailed>| {
                // A newer text or mode has started its own session meanwhile, or the state is gone.
                if sessions.try_get_value() != Some(session) {
                    return;
                }
                let started = match started {
                    Ok(started) => started.map_err(NoSession::Unrunnable),
                    Err(ChunkLoadFailed) => Err(NoSession::StepperNotLoaded),
                };
                tape.try_set(Some(started));
                // The findings belong to the old text or mode.
                marks.try_set(FindingMarks::default());
            };
            if crate::tape::stepper_is_here() {
                // Ready at its first poll: the session starts in this effect, as the panels expect.
                let mut started = Box::pin(start_session(scenario, mode, schedule));
                match measured("fencelab:tape", || crate::lazy::poll_now(&mut started)) {
                    Poll::Ready(result) => show(result),
                    Poll::Pending => leptos::task::spawn_local_scoped_with_cancellation(async move { show(started.await) }),
                }
                return;
            }
            // The first session of a visit fetches the stepper's chunk, once a frame has shown
            // the verdict (`crate::explore` renders it first) and the worker has what it needs
            // (`ChunkGate`), so that neither the fetch nor the chunks' compiles hold up the
            // first verdict.
            // A retry after a failed fetch says it is loading again.
            tape.set(None);
            let owner = Owner::current();
            request_animation_frame(move || {
                set_timeout(
                    move || {
                        let start = move || {
                            leptos::task::spawn_local_scoped_with_cancellation(async move {
                                ChunkGate::pass(chunks).await;
                                show(start_session(scenario, mode, schedule).await)
                            })
                        };
                        match owner {
                            Some(owner) => owner.with(start),
                            None => start(),
                        }
                    },
                    Duration::ZERO,
                )
            });
        });
        AppState {
            source,
            history: RwSignal::new(EditHistory::default()),
            last_typing_ms,
            mode,
            analysis,
            tape,
            step_error: RwSignal::new(None),
            playing: RwSignal::new(false),
            speed_ms: RwSignal::new(DEFAULT_SPEED_MS),
            pending_schedule,
            check,
            marks,
            hover_line: RwSignal::new(None),
            return_to: RwSignal::new(None),
            notes: InstrNotes::new(source, analysis, remember),
            tour_requested: RwSignal::new(false),
        }
    }

    /// Whether the text parses and its session waits for the stepper's code (the first
    /// session of a visit, or a retry after the code did not load).
    pub fn awaits_stepper(self) -> bool {
        self.tape.with(Option::is_none) && !self.analysis.with(Analysis::has_errors)
    }

    /// Whether the panels show the last good session of a text that now has errors.
    pub fn is_stale(self) -> bool {
        self.analysis.with(Analysis::has_errors) && self.tape.with(|t| matches!(t, Some(Ok(_))))
    }
}

/// Auto-play's delay per step at "normal" speed.
pub const DEFAULT_SPEED_MS: u32 = 600;

pub fn use_app_state() -> AppState {
    // Provided by `App` before any page mounts; a missing context is a wiring bug.
    expect_context::<AppState>()
}
