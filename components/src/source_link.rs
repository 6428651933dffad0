//! Source ↔ execution: the editor line each instruction of the stepping session sits on,
//! the instruction a line holds, and which lines the current step and a finding touch.
//! Pure, so it tests natively. Lines are 1-based, as the editor's gutter numbers them.

use fencelab::check::view::{AgentKindView, AgentView, EventView};
use fencelab::diag::LineIndex;
use fencelab::Loaded;

use crate::finding_marks::Marked;
use crate::lazy::ChunkLoadFailed;
use crate::tape::Tape;

/// A loaded text and its line index.
pub struct SourceLines<'a> {
    loaded: &'a Loaded,
    index: LineIndex<'a>,
}

/// What the editor marks on its lines for the session on screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineMarks {
    /// The line of the step just taken (at the start: of the step `forward` takes next).
    pub current: Option<usize>,
    /// The line of the step just taken ("just ran"); none at the start.
    pub just_ran: Option<usize>,
    /// The line of the step `forward` takes next ("next"); none at the end.
    pub next: Option<usize>,
    /// Lines holding an access (or a stuck wait) of the finding shown, with what it is.
    pub accesses: Vec<(usize, String)>,
}

impl<'a> SourceLines<'a> {
    pub fn new(loaded: &'a Loaded, source: &'a str) -> SourceLines<'a> {
        SourceLines { loaded, index: LineIndex::new(source) }
    }

    /// The line of instruction `instr` of the thread named `thread`.
    pub fn line_of(&self, thread: &str, instr: usize) -> Option<usize> {
        let t = self.loaded.scenario.threads.iter().position(|th| th.name == thread)?;
        let span = self.loaded.source_map.instr(t, instr)?;
        Some(self.index.line_col(span.start).0)
    }

    /// The thread and instruction written on `line`, if an instruction starts there.
    pub fn instr_at(&self, line: usize) -> Option<(String, usize)> {
        self.loaded.source_map.instrs.iter().enumerate().find_map(|(t, spans)| {
            let instr = spans.iter().position(|span| self.index.line_col(span.start).0 == line)?;
            Some((self.loaded.scenario.threads.get(t)?.name.clone(), instr))
        })
    }

    /// The line an event's instruction sits on (an async agent's: its issuer's line, which
    /// its step does not record but its view, while it is at work, does).
    pub fn line_of_event(&self, agents: &[AgentView], event: &EventView) -> Option<usize> {
        let thread = issuing_thread(agents, event.agent)?;
        let issued_at = || agents.iter().find(|a| a.id == event.agent && matches!(a.kind, AgentKindView::Async { .. }))?.instr_index;
        self.line_of(&thread, event.instr_index.or_else(issued_at)?)
    }

    /// The current step's line and the shown finding's access lines for `tape`.
    pub fn marks(&self, tape: &Tape, shown: Option<&Marked>) -> LineMarks {
        let stepper = tape.stepper();
        let agents = stepper.agents();
        let just_ran = stepper.history().last().and_then(|event| {
            self.line_of_event(&agents, event).or_else(|| {
                // An async agent's last step leaves it done, and a done agent's view names no
                // instruction: its issuer's line is in its view from just before that step.
                let mut before = stepper.clone();
                before.undo();
                self.line_of_event(&before.agents(), event)
            })
        });
        let next = tape.next_step().and_then(|step| {
            let agent = agents.iter().find(|a| a.id == step.agent)?;
            let thread = issuing_thread(&agents, agent.id)?;
            self.line_of(&thread, agent.instr_index?)
        });
        let current = if stepper.history().is_empty() { next } else { just_ran };
        let accesses = shown.map_or_else(Vec::new, |m| {
            let mut lines: Vec<(usize, String)> = Vec::new();
            let touched = m
                .accesses
                .iter()
                .map(|a| (a.thread.as_str(), a.instr, if a.is_write { format!("write of {}", a.location) } else { format!("read of {}", a.location) }))
                .chain(m.blocked.iter().map(|b| (b.thread.as_str(), b.instr, "stuck here".to_string())));
            for (thread, instr, what) in touched {
                let Some(line) = self.line_of(thread, instr) else { continue };
                match lines.iter_mut().find(|(l, _)| *l == line) {
                    Some((_, text)) if !text.contains(&what) => *text = format!("{text}; {what}"),
                    Some(_) => {}
                    None => lines.push((line, what)),
                }
            }
            lines
        });
        LineMarks { current, just_ran, next, accesses }
    }
}

#[leptos::wasm_split::wasm_split(stepper, fallible, preload(preload_marks), wasm_split_path = ::leptos::wasm_split)]
pub(crate) fn marks_in_chunk(lines: &SourceLines<'_>, tape: &Tape, shown: Option<&Marked>) -> Result<LineMarks, ChunkLoadFailed> {
    Ok(lines.marks(tape, shown))
}

/// [`SourceLines::marks`], for the page: the stepper's code it runs is in the `stepper`
/// chunk (`crate::tape`). `None` only if that chunk is not here, which no session outlives.
pub fn marks(lines: &SourceLines<'_>, tape: &Tape, shown: Option<&Marked>) -> Option<LineMarks> {
    crate::lazy::if_loaded(marks_in_chunk(lines, tape, shown))
}

/// The thread whose program holds agent `agent`'s instructions: itself, or its issuer.
pub fn issuing_thread(agents: &[AgentView], agent: u32) -> Option<String> {
    let view = agents.iter().find(|a| a.id == agent)?;
    Some(match &view.kind {
        AgentKindView::Thread { .. } => view.name.clone(),
        AgentKindView::Async { issuer, .. } => issuer.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab::check::Mode;

    fn loaded(src: &str) -> Loaded {
        let loaded = fencelab::load(src);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded
    }

    #[test]
    fn instructions_map_to_their_lines_and_back() {
        let src = crate::state::STARTER_SCENARIO;
        let l = loaded(src);
        let lines = SourceLines::new(&l, src);
        // Line 7 is `st.shared [x], 42` (the comment is line 1).
        assert_eq!(lines.line_of("producer", 0), Some(7));
        assert_eq!(lines.line_of("consumer", 1), Some(12));
        assert_eq!(lines.instr_at(7), Some(("producer".into(), 0)));
        assert_eq!(lines.instr_at(12), Some(("consumer".into(), 1)));
        assert_eq!(lines.instr_at(1), None, "a comment holds no instruction");
        assert_eq!(lines.line_of("nobody", 0), None);
    }

    #[test]
    fn the_current_line_follows_the_step_just_taken() {
        let src = crate::state::STARTER_SCENARIO;
        let l = loaded(src);
        let lines = SourceLines::new(&l, src);
        let mut tape = Tape::new(l.scenario.clone(), Mode::Strict).expect("tape");
        assert_eq!(lines.marks(&tape, None).current, Some(7), "at the start: the step forward takes");
        tape.forward().expect("step");
        assert_eq!(lines.marks(&tape, None).current, Some(7), "the store was just taken");
        tape.forward().expect("step");
        assert_eq!(lines.marks(&tape, None).current, Some(8));
    }

    #[test]
    fn just_ran_and_next_are_two_lines_once_stepping() {
        let src = crate::state::STARTER_SCENARIO;
        let l = loaded(src);
        let lines = SourceLines::new(&l, src);
        let mut tape = Tape::new(l.scenario.clone(), Mode::Strict).expect("tape");
        let start = lines.marks(&tape, None);
        assert_eq!((start.just_ran, start.next), (None, Some(7)), "nothing ran yet");
        tape.forward().expect("step");
        let one = lines.marks(&tape, None);
        assert_eq!((one.just_ran, one.next), (Some(7), Some(8)), "the first step moves the next arrow");
    }

    #[test]
    fn every_step_of_every_template_marks_the_line_it_ran() {
        // An async agent's last step (its completion) leaves it done; it still marks its
        // issuer's line, so two steps in a row never look the same for want of a mark.
        for template in crate::templates::TEMPLATES {
            let l = loaded(template.source);
            let lines = SourceLines::new(&l, template.source);
            let mut tape = Tape::new(l.scenario.clone(), Mode::Strict).expect("tape");
            while tape.forward().expect("step") {
                let step = tape.position();
                assert!(lines.marks(&tape, None).just_ran.is_some(), "{} step {step} marks no just-ran line", template.id);
            }
        }
    }
}
