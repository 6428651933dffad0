//! App state ⇄ share payload: what a link captures and how opening it puts it back.

use fencelab::check::Report;
use fencelab::link::{Decoded, SharePayload, TraceRef, ViewState};
use fencelab::syntax::Comment;
use fencelab::schedule::Schedule;
use leptos::prelude::*;

use crate::check_client::CheckState;
use crate::finding_marks::Marked;
use crate::state::AppState;
use crate::tape::Move;

/// What a link carries: the scenario on screen, its comments and the text as written.
pub struct Shared {
    pub payload: SharePayload,
    pub comments: Vec<Comment>,
    pub source: String,
}

/// The scenario on screen (and with `at_step`, the whole line of play on the tape, a
/// witness included, and the step shown) as a payload, with the text as written. Fails
/// when the program has errors: a link carries a checked model beside its text.
pub fn payload_of(state: AppState, at_step: bool) -> Result<Shared, String> {
    let loaded = state.analysis.with_untracked(|a| {
        (!a.has_errors()).then(|| (a.loaded.scenario.clone(), a.loaded.source_map.comments.clone(), a.source.clone()))
    });
    let (scenario, comments, source) = loaded.ok_or("fix the errors in the program before sharing it")?;
    let mut view = ViewState { mode: state.mode.get_untracked(), ..ViewState::default() };
    if at_step {
        // The steps ahead of the one shown travel too: "Link to this step" on a witness
        // opens the whole witness at that step, not its first part.
        let (line, at) = state.read_tape(|t| (Schedule { steps: t.steps().to_vec() }, t.position())).unwrap_or_default();
        view.step = u32::try_from(at).ok();
        view.trace = Some(TraceRef::Schedule(line));
    }
    Ok(Shared { payload: SharePayload { scenario, view }, comments, source })
}

/// Shows a link in the explorer: its text as the sender wrote it (`Decoded::text`, an
/// undoable edit), its mode, and once the stepping session for that scenario exists, its
/// schedule and step.
pub fn restore(state: AppState, decoded: Decoded) {
    let text = decoded.text();
    let payload = decoded.payload;
    // One check for both writes: a second check of the link's scenario, posted as the
    // first reaches the worker, would have the worker restarted before it had answered.
    leptos::reactive::effect::batch(|| {
        state.edit(text, false);
        state.mode.set(payload.view.mode);
    });
    let step = payload.view.step.map_or(0, |s| s as usize);
    let schedule = match payload.view.trace {
        Some(TraceRef::Schedule(schedule)) => schedule,
        Some(TraceRef::Finding(index)) => return open_finding(state, payload.scenario, index as usize, step),
        None => return,
    };
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
    let shorter = state.read_tape(|t| t.len() < schedule.steps.len()).unwrap_or(false);
    let moves = [Move::Load(schedule), Move::Jump(step)];
    state.with_tape(if shorter { &moves } else { &moves[1..] });
}

/// A link naming a finding rather than its steps: the witness is known only once the
/// checker has answered for the link's scenario, so wait for that verdict, then follow it.
fn open_finding(state: AppState, scenario: fencelab::model::Scenario, index: usize, step: usize) {
    let pending = StoredValue::new(true);
    let mode = state.mode.get_untracked();
    Effect::new(move |_| {
        let on_scenario = state.tape.with(|t| matches!(t, Some(Ok(tape)) if *tape.scenario() == scenario));
        let witness = state.check.state.with(|s| match s {
            CheckState::Done { report, .. } if on_scenario && report.mode == mode => Some(finding_marks(report, index)),
            _ => None,
        });
        let Some(witness) = witness else { return };
        if !pending.get_value() {
            return;
        }
        pending.set_value(false);
        match witness {
            Ok(marked) => {
                apply_steps(state, &marked.witness, step);
                state.marks.update(|m| m.pin(marked));
            }
            Err(why) => state.step_error.set(Some(why)),
        }
    });
}

/// Finding `index` (0-based) with its witness and accesses, or why the link cannot show it.
fn finding_marks(report: &Report, index: usize) -> Result<Marked, String> {
    let finding = report.findings.get(index);
    let marked = finding.map(|f| Marked { finding: index, accesses: f.accesses.clone(), blocked: f.blocked.clone(), witness: f.witness.clone() });
    marked.ok_or_else(|| {
        format!(
            "the link opens on finding {} of this scenario, but the checker reports {}; showing the start instead",
            index + 1,
            match report.findings.len() {
                0 => "none".to_string(),
                n => format!("only {n}"),
            }
        )
    })
}
