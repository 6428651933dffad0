//! A stepping session: the core's `Stepper` plus the steps ahead of it, so the learner can
//! go back and forward, jump, and replay a witness. Plain data, testable natively.
//!
//! The stepper's code is a wasm chunk (`stepper`), not in the first load: the page starts a
//! session through `start_session`, which fetches it, and from then on does everything to
//! a session through `apply`, `next_step_of` and the editor's `crate::source_link::marks`,
//! which find the chunk loaded (a session exists only once it is). The lazy panels call
//! the tape's methods directly: their code is in chunks already.

use std::cell::Cell;

use fencelab::check::view::{AgentStatusView, AgentView};
use fencelab::check::{Mode, StepError, Stepper};
use fencelab::model::Scenario;
use fencelab::schedule::{Schedule, Step};

use crate::lazy::{if_loaded, ChunkLoadFailed};

/// How far `run_to` steps past the tape's end looking for an instruction.
const MAX_SEARCH: usize = 500;

#[derive(Clone, Debug)]
pub struct Tape {
    scenario: Scenario,
    mode: Mode,
    stepper: Stepper,
    /// Every step of the current line of play; `stepper` has taken the first `position()`.
    steps: Vec<Step>,
}

impl Tape {
    pub fn new(scenario: Scenario, mode: Mode) -> Result<Tape, StepError> {
        let stepper = Stepper::new(&scenario, mode)?;
        Ok(Tape { scenario, mode, stepper, steps: Vec::new() })
    }

    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Steps taken so far.
    pub fn position(&self) -> usize {
        self.stepper.history().len()
    }

    /// Steps on the tape, taken or ahead.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Takes `step` now. A step other than the one the tape had next starts a new line of play.
    pub fn take(&mut self, step: Step) -> Result<(), StepError> {
        let at = self.position();
        self.stepper.step(step)?;
        if self.steps.get(at) != Some(&step) {
            self.steps.truncate(at);
            self.steps.push(step);
        }
        Ok(())
    }

    /// The step `forward` would take: the tape's next one, else the first enabled agent's
    /// first choice. `None` when every agent is done or blocked.
    pub fn next_step(&self) -> Option<Step> {
        if let Some(step) = self.steps.get(self.position()) {
            return Some(*step);
        }
        self.stepper.agents().iter().find_map(first_choice)
    }

    /// One step forward; false when nothing can move.
    pub fn forward(&mut self) -> Result<bool, StepError> {
        match self.next_step() {
            Some(step) => self.take(step).map(|()| true),
            None => Ok(false),
        }
    }

    /// One step back, keeping the undone step ahead on the tape.
    pub fn back(&mut self) -> bool {
        self.stepper.undo()
    }

    /// Goes to just after step `n` (0 = the start), staying on the tape.
    pub fn jump(&mut self, n: usize) -> Result<(), StepError> {
        let target = n.min(self.steps.len());
        while self.position() > target {
            if !self.back() {
                break;
            }
        }
        while self.position() < target {
            let Some(step) = self.steps.get(self.position()).copied() else { break };
            self.stepper.step(step)?;
        }
        Ok(())
    }

    /// Every step on the tape, taken or ahead.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// A stepper that has taken every step on the tape, the ones ahead included, so a view
    /// can show the whole line of play and fade what is still ahead.
    pub fn whole_line(&self) -> Result<Stepper, StepError> {
        let mut stepper = self.stepper.clone();
        for step in self.steps.iter().skip(self.position()) {
            stepper.step(*step)?;
        }
        Ok(stepper)
    }

    /// Goes to just after the first step on the line of play that runs instruction `instr`
    /// of `thread` (not counting async agents it issued). When the tape does not reach it,
    /// steps forward from the tape's end until it runs, at most `MAX_SEARCH` steps. Returns
    /// false, staying put, when it never runs on this line of play.
    pub fn run_to(&mut self, thread: &str, instr: usize) -> Result<bool, StepError> {
        let runs = |event: &fencelab::check::view::EventView| event.agent_name == thread && event.instr_index == Some(instr);
        let whole = self.whole_line()?;
        if let Some(event) = whole.history().iter().find(|e| runs(e)) {
            let after = event.step + 1;
            self.jump(after)?;
            return Ok(true);
        }
        let back_to = self.position();
        self.jump(self.steps.len())?;
        for _ in 0..MAX_SEARCH {
            if !self.forward()? {
                break;
            }
            if self.stepper.history().last().is_some_and(runs) {
                return Ok(true);
            }
        }
        self.jump(back_to)?;
        Ok(false)
    }

    /// Puts `schedule` on the tape and rewinds to the start, ready to follow it.
    pub fn load(&mut self, schedule: &Schedule) -> Result<(), StepError> {
        // Check the whole schedule replays before throwing away the current line of play.
        Stepper::replay(&self.scenario, self.mode, schedule)?;
        self.stepper = Stepper::new(&self.scenario, self.mode)?;
        self.steps = schedule.steps.clone();
        Ok(())
    }
}

/// One thing the page does to a session (`AppState::with_tape`).
#[derive(Clone, Copy, Debug)]
pub enum Move<'a> {
    /// To just after step `n` (`Tape::jump`).
    Jump(usize),
    /// One step forward (`Tape::forward`): whether anything moved.
    Forward,
    /// One step back (`Tape::back`): whether there was one.
    Back,
    /// This step now (`Tape::take`).
    Take(Step),
    /// This schedule on the tape, back at the start (`Tape::load`).
    Load(&'a Schedule),
    /// To the first step that runs instruction `instr` of the thread (`Tape::run_to`):
    /// whether it runs on this line of play.
    RunTo(&'a str, usize),
}

/// A session on `scenario` from its initial state, on `schedule` if one is given and it
/// replays (one that does not is dropped; the scenario still opens). The first one fetches
/// the `stepper` chunk; once that is here, it is ready at its first poll.
pub async fn start_session(scenario: Scenario, mode: Mode, schedule: Option<Schedule>) -> Result<Result<Tape, StepError>, ChunkLoadFailed> {
    // Each split function has a loader of its own, which learns of the chunk only once it
    // is asked: ask them all here, so a session's later calls find theirs ready at once.
    preload_start().await?;
    preload_apply().await?;
    preload_next_step().await?;
    crate::source_link::preload_marks().await?;
    STEPPER_IS_HERE.set(true);
    start_in_chunk(scenario, mode, schedule).await
}

thread_local! {
    static STEPPER_IS_HERE: Cell<bool> = const { Cell::new(false) };
}

/// Whether the `stepper` chunk has loaded (a `start_session` has got past its loaders), so
/// that `start_session` is ready at its first poll.
pub fn stepper_is_here() -> bool {
    STEPPER_IS_HERE.get()
}

#[leptos::wasm_split::wasm_split(stepper, fallible, preload(preload_start), wasm_split_path = ::leptos::wasm_split)]
fn start_in_chunk(scenario: Scenario, mode: Mode, schedule: Option<Schedule>) -> Result<Result<Tape, StepError>, ChunkLoadFailed> {
    Ok(Tape::new(scenario, mode).map(|mut tape| {
        if let Some(schedule) = schedule {
            let _ = tape.load(&schedule);
        }
        tape
    }))
}

#[leptos::wasm_split::wasm_split(stepper, fallible, preload(preload_apply), wasm_split_path = ::leptos::wasm_split)]
fn apply_in_chunk(tape: &mut Tape, moves: &[Move<'_>]) -> Result<Result<bool, StepError>, ChunkLoadFailed> {
    let make = |tape: &mut Tape, one: Move<'_>| match one {
        Move::Jump(n) => tape.jump(n).map(|()| true),
        Move::Forward => tape.forward(),
        Move::Back => Ok(tape.back()),
        Move::Take(step) => tape.take(step).map(|()| true),
        Move::Load(schedule) => tape.load(schedule).map(|()| true),
        Move::RunTo(thread, instr) => tape.run_to(thread, instr),
    };
    let mut answer = Ok(true);
    for one in moves {
        answer = make(tape, *one);
        if answer.is_err() {
            break;
        }
    }
    Ok(answer)
}

/// Makes `moves` in turn, stopping at the first that fails; what the last one answered.
/// `None` only if the stepper's chunk is not here, which no session outlives.
pub fn apply(tape: &mut Tape, moves: &[Move<'_>]) -> Option<Result<bool, StepError>> {
    if_loaded(apply_in_chunk(tape, moves))
}

#[leptos::wasm_split::wasm_split(stepper, fallible, preload(preload_next_step), wasm_split_path = ::leptos::wasm_split)]
fn next_step_in_chunk(tape: &Tape) -> Result<Option<Step>, ChunkLoadFailed> {
    Ok(tape.next_step())
}

/// [`Tape::next_step`], for the page.
pub fn next_step_of(tape: &Tape) -> Option<Step> {
    if_loaded(next_step_in_chunk(tape)).flatten()
}

fn first_choice(agent: &AgentView) -> Option<Step> {
    match &agent.status {
        AgentStatusView::Enabled { choices } => {
            choices.first().map(|c| Step { agent: agent.id, choice: c.choice })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tape(src: &str) -> Tape {
        let loaded = fencelab::load(src);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        Tape::new(loaded.scenario, Mode::Strict).expect("stepper starts")
    }

    #[test]
    fn forward_runs_to_the_end_and_back_returns_to_the_start() {
        let mut t = tape(crate::state::STARTER_SCENARIO);
        let mut taken = 0;
        while t.forward().expect("step") {
            taken += 1;
            assert!(taken < 50, "runs to an end");
        }
        assert_eq!(taken, 4, "store, arrive, wait, load");
        assert_eq!(t.len(), 4);
        while t.back() {}
        assert_eq!(t.position(), 0);
        assert_eq!(t.len(), 4, "undone steps stay ahead on the tape");
        t.jump(3).expect("jump");
        assert_eq!(t.position(), 3);
        t.jump(99).expect("jump clamps");
        assert_eq!(t.position(), 4);
    }

    #[test]
    fn a_different_step_starts_a_new_line_of_play() {
        let mut t = tape(crate::state::STARTER_SCENARIO);
        while t.forward().expect("step") {}
        t.jump(0).expect("rewind");
        // The tape starts with the producer (agent 0); take the consumer's first move instead
        // if it can move, else the producer's: either way the tape keeps one consistent line.
        let first = t.next_step().expect("someone can move");
        t.take(first).expect("same step");
        assert_eq!(t.len(), 4, "taking the tape's own step keeps it");
        t.back();
        let other = t.stepper().agents().iter().rev().find_map(first_choice).expect("an enabled agent");
        t.take(other).expect("step");
        if other != first {
            assert_eq!(t.len(), 1, "a new line of play drops the old future");
        }
    }

    #[test]
    fn the_whole_line_includes_the_steps_ahead() {
        let mut t = tape(crate::state::STARTER_SCENARIO);
        while t.forward().expect("step") {}
        t.jump(1).expect("back");
        let whole = t.whole_line().expect("replays");
        assert_eq!(whole.history().len(), 4, "taken and ahead");
        assert_eq!(t.position(), 1, "the tape itself stays put");
        assert_eq!(t.steps().len(), 4);
    }

    #[test]
    fn run_to_goes_to_the_step_that_runs_an_instruction() {
        let mut t = tape(crate::state::STARTER_SCENARIO);
        assert!(t.run_to("consumer", 1).expect("runs"), "the load runs once the wait passes");
        assert_eq!(t.position(), 4, "store, arrive, wait, load");
        assert!(t.run_to("producer", 0).expect("runs"));
        assert_eq!(t.position(), 1, "back to just after the store, on the same tape");
        assert_eq!(t.len(), 4);
        assert!(!t.run_to("producer", 9).expect("no such instruction"));
        assert_eq!(t.position(), 1, "stays put");
    }

    #[test]
    fn load_rejects_a_schedule_that_does_not_replay() {
        let mut t = tape(crate::state::STARTER_SCENARIO);
        let bad = Schedule { steps: vec![Step { agent: 7, choice: 0 }] };
        assert!(t.load(&bad).is_err());
        let good = Schedule { steps: vec![Step { agent: 0, choice: 0 }, Step { agent: 0, choice: 0 }] };
        t.load(&good).expect("replays");
        assert_eq!((t.position(), t.len()), (0, 2));
        t.jump(2).expect("follow");
        assert_eq!(t.position(), 2);
    }

    #[test]
    fn moves_are_made_in_turn_and_stop_at_the_first_that_fails() {
        let scenario = fencelab::load(crate::state::STARTER_SCENARIO).scenario;
        let started = crate::lazy::if_loaded(start_session(scenario, Mode::Strict, None)).expect("no chunk natively");
        let mut t = started.expect("stepper starts");
        let good = Schedule { steps: vec![Step { agent: 0, choice: 0 }, Step { agent: 0, choice: 0 }] };
        assert!(matches!(apply(&mut t, &[Move::Load(&good), Move::Jump(2)]), Some(Ok(true))));
        assert_eq!((t.position(), t.len()), (2, 2));
        assert!(matches!(apply(&mut t, &[Move::Back, Move::Back, Move::Back]), Some(Ok(false))), "the last answers: no step left to undo");
        assert_eq!(t.position(), 0);

        let bad = Schedule { steps: vec![Step { agent: 7, choice: 0 }] };
        assert!(matches!(apply(&mut t, &[Move::Forward, Move::Load(&bad), Move::Forward]), Some(Err(_))));
        assert_eq!(t.position(), 1, "the move after the failing load is not made");
        // The wrapper hands back the tape's own answer, not `None` for a chunk it has.
        assert!(t.next_step().is_some());
        assert_eq!(next_step_of(&t), t.next_step());
        assert!(matches!(apply(&mut t, &[Move::RunTo("consumer", 1)]), Some(Ok(true))));
        assert_eq!(t.position(), 4);
    }

    #[test]
    fn a_session_starts_on_a_schedule_that_replays_and_drops_one_that_does_not() {
        let scenario = || fencelab::load(crate::state::STARTER_SCENARIO).scenario;
        let start = |schedule| crate::lazy::if_loaded(start_session(scenario(), Mode::Strict, Some(schedule))).expect("no chunk natively").expect("starts");
        let good = start(Schedule { steps: vec![Step { agent: 0, choice: 0 }] });
        assert_eq!((good.position(), good.len()), (0, 1));
        let dropped = start(Schedule { steps: vec![Step { agent: 7, choice: 0 }] });
        assert_eq!(dropped.len(), 0);
    }
}
