//! App state ⇄ share payload: what a link captures and how opening it puts it back.

use fencelab::link::{SharePayload, TraceRef, ViewState};
use fencelab::schedule::Schedule;
use leptos::prelude::*;

use crate::state::AppState;

/// The scenario on screen (and with `at_step`, the steps taken so far) as a payload.
/// Fails when the program has errors: a link carries a checked model, not text.
pub fn payload_of(state: AppState, at_step: bool) -> Result<SharePayload, String> {
    let scenario = state.analysis.with_untracked(|a| (!a.has_errors()).then(|| a.loaded.scenario.clone()));
    let scenario = scenario.ok_or("fix the errors in the program before sharing it")?;
    let mut view = ViewState { mode: state.mode.get_untracked(), ..ViewState::default() };
    if at_step {
        let taken = state.read_tape(|t| t.stepper().schedule()).unwrap_or_default();
        view.step = u32::try_from(taken.steps.len()).ok();
        view.trace = Some(TraceRef::Schedule(taken));
    }
    Ok(SharePayload { scenario, view })
}

/// Shows `payload` in the explorer: its scenario as text (an undoable edit), its mode, and
/// once the stepping session for that scenario exists, its schedule and step.
pub fn restore(state: AppState, payload: SharePayload) {
    let text = fencelab::syntax::print(&payload.scenario);
    state.edit(text, false);
    state.mode.set(payload.view.mode);
    let Some(TraceRef::Schedule(schedule)) = payload.view.trace else { return };
    let step = payload.view.step.map_or(0, |s| s as usize);
    let scenario = payload.scenario;
    // The app rebuilds the session after the edit and puts `pending_schedule` on it; then
    // this moves to the link's step. When the text did not change there is no rebuild, so
    // the schedule is loaded here instead.
    state.pending_schedule.set(Some(schedule.clone()));
    let pending = StoredValue::new(Some((schedule, step)));
    Effect::new(move |_| {
        let ready = state.tape.with(|t| matches!(t, Some(Ok(tape)) if *tape.scenario() == scenario));
        if !ready {
            return;
        }
        if let Some((schedule, step)) = pending.try_update_value(Option::take).flatten() {
            apply_steps(state, &schedule, step);
        }
    });
}

fn apply_steps(state: AppState, schedule: &Schedule, step: usize) {
    state.pending_schedule.set(None);
    // A schedule that does not replay (a stale link) leaves the session at the start,
    // and the lanes show the reason through `step_error`.
    state.with_tape(|t| {
        if t.len() < schedule.steps.len() {
            t.load(schedule)?;
        }
        t.jump(step)
    });
}
