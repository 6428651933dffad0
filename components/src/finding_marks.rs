//! Which finding's accesses the lanes and the timeline mark: the one hovered or focused in
//! the verdict panel, else the one pinned by "Show me" / "Follow witness".

use fencelab::check::{Access, Blocked, Finding};
use fencelab::schedule::{Schedule, Step};

/// One finding, as far as marking goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marked {
    /// Index of the finding in the report.
    pub finding: usize,
    pub accesses: Vec<Access>,
    /// For a deadlock: who is stuck at which line.
    pub blocked: Vec<Blocked>,
    pub witness: Schedule,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FindingMarks {
    pinned: Option<Marked>,
    hovered: Option<Marked>,
}

impl FindingMarks {
    /// The finding shown now: the hovered one wins over the pinned one.
    pub fn shown(&self) -> Option<&Marked> {
        self.hovered.as_ref().or(self.pinned.as_ref())
    }

    pub fn hover(&mut self, marked: Marked) {
        self.hovered = Some(marked);
    }

    /// The pointer or focus left finding `finding`; another finding's hover stays.
    pub fn unhover(&mut self, finding: usize) {
        if self.hovered.as_ref().is_some_and(|m| m.finding == finding) {
            self.hovered = None;
        }
    }

    /// Keeps `marked` shown until another finding is pinned or the marks are cleared.
    pub fn pin(&mut self, marked: Marked) {
        self.pinned = Some(marked);
    }

    pub fn is_pinned(&self, finding: usize) -> bool {
        self.pinned.as_ref().is_some_and(|m| m.finding == finding)
    }

    /// Follows the marked findings to their places in `findings`, a report that replaced
    /// the one they were marked in (the same findings ranked by cause lists them in another
    /// order); one not listed there keeps its number. Says whether a number changed.
    pub fn renumber(&mut self, findings: &[Finding]) -> bool {
        let mut changed = false;
        for marked in [&mut self.pinned, &mut self.hovered].into_iter().flatten() {
            let place = findings.iter().position(|f| f.accesses == marked.accesses && f.blocked == marked.blocked && f.witness == marked.witness);
            if let Some(place) = place.filter(|&p| p != marked.finding) {
                marked.finding = place;
                changed = true;
            }
        }
        changed
    }
}

impl Marked {
    /// Markers for line `instr` of `thread`'s program, e.g. "◀ write of `data`".
    pub fn line_marks(&self, thread: &str, instr: usize) -> Vec<String> {
        self.accesses
            .iter()
            .filter(|a| a.thread == thread && a.instr == instr)
            .map(|a| {
                let what = if a.is_write { "write" } else { "read" };
                // An async agent's access sits on its issuer's line: say who made it.
                let by = if a.agent == a.thread { String::new() } else { format!(" by {}", a.agent) };
                format!("◀ {what} of `{}`{by}", a.location)
            })
            .chain(self.blocked.iter().filter(|b| b.thread == thread && b.instr == instr).map(|b| {
                let by = if b.agent == b.thread { String::new() } else { format!(" ({})", b.agent) };
                format!("◀ stuck here{by}")
            }))
            .collect()
    }

    /// Markers for an async agent's own lane: its accesses, e.g. "◀ write of `buf`".
    pub fn agent_marks(&self, agent: &str) -> Vec<String> {
        self.accesses
            .iter()
            .filter(|a| a.agent == agent && a.agent != a.thread)
            .map(|a| format!("◀ {} of `{}`", if a.is_write { "write" } else { "read" }, a.location))
            .collect()
    }

    /// Witness steps (0-based) of the accesses, when the tape is on the witness.
    pub fn ringed_steps(&self, tape_steps: &[Step]) -> Vec<usize> {
        if !tape_steps.starts_with(&self.witness.steps) {
            return Vec::new();
        }
        self.accesses.iter().map(|a| a.step).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(agent: &str, thread: &str, instr: usize, is_write: bool, step: usize) -> Access {
        Access { agent: agent.into(), thread: thread.into(), instr, location: "data".into(), is_write, step }
    }

    fn marked(finding: usize) -> Marked {
        Marked {
            finding,
            accesses: vec![access("producer", "producer", 0, true, 0), access("tma#2 (consumer)", "consumer", 1, false, 3)],
            blocked: Vec::new(),
            witness: Schedule { steps: vec![Step { agent: 0, choice: 0 }, Step { agent: 1, choice: 1 }] },
        }
    }

    #[test]
    fn hover_wins_over_pin_and_leaving_restores_the_pin() {
        let mut marks = FindingMarks::default();
        assert_eq!(marks.shown(), None);
        marks.pin(marked(0));
        marks.hover(marked(1));
        assert_eq!(marks.shown().map(|m| m.finding), Some(1));
        marks.unhover(0);
        assert_eq!(marks.shown().map(|m| m.finding), Some(1), "leaving another finding changes nothing");
        marks.unhover(1);
        assert_eq!(marks.shown().map(|m| m.finding), Some(0));
        assert!(marks.is_pinned(0) && !marks.is_pinned(1));
        marks.pin(marked(1));
        assert!(!marks.is_pinned(0), "choosing another finding replaces the pin");
    }

    fn finding_of(marked: &Marked) -> Finding {
        Finding {
            kind: fencelab::check::FindingKind::Race,
            reason: None,
            message: String::new(),
            explanation: String::new(),
            accesses: marked.accesses.clone(),
            blocked: marked.blocked.clone(),
            missing_edge: Vec::new(),
            witness: marked.witness.clone(),
        }
    }

    #[test]
    fn marks_follow_their_findings_into_a_reordered_report() {
        let first = marked(0);
        let mut second = marked(1);
        second.witness.steps.push(Step { agent: 0, choice: 1 });
        let mut marks = FindingMarks::default();
        marks.pin(first.clone());
        marks.hover(second.clone());
        // Ranked by cause: the second finding now comes first.
        assert!(marks.renumber(&[finding_of(&second), finding_of(&first)]));
        assert!(marks.is_pinned(1) && !marks.is_pinned(0));
        assert_eq!(marks.shown().map(|m| m.finding), Some(0), "the hovered finding moved to the top");
        assert!(!marks.renumber(&[finding_of(&second), finding_of(&first)]), "the same order changes nothing");
        // A report without the pinned finding leaves its number alone.
        assert!(!marks.renumber(&[]));
        assert!(marks.is_pinned(1));
    }

    #[test]
    fn line_marks_name_the_access_and_the_async_agent() {
        let m = marked(0);
        assert_eq!(m.line_marks("producer", 0), ["◀ write of `data`"]);
        assert_eq!(m.line_marks("consumer", 1), ["◀ read of `data` by tma#2 (consumer)"]);
        assert!(m.line_marks("producer", 1).is_empty());
        assert_eq!(m.agent_marks("tma#2 (consumer)"), ["◀ read of `data`"]);
        assert!(m.agent_marks("producer").is_empty(), "a thread's accesses are on its program lines");
    }

    #[test]
    fn a_deadlock_marks_where_each_agent_is_stuck_and_rings_no_step() {
        let stuck = |agent: &str, thread: &str, instr| Blocked { agent: agent.into(), thread: thread.into(), instr, waits_for: "waits".into() };
        let m = Marked {
            finding: 0,
            accesses: Vec::new(),
            blocked: vec![stuck("consumer", "consumer", 2), stuck("tma#3 (producer)", "producer", 1)],
            witness: Schedule { steps: vec![Step { agent: 0, choice: 0 }] },
        };
        assert_eq!(m.line_marks("consumer", 2), ["◀ stuck here"]);
        assert_eq!(m.line_marks("producer", 1), ["◀ stuck here (tma#3 (producer))"]);
        assert!(m.ringed_steps(&m.witness.steps).is_empty(), "a stuck agent performed no step to ring");
    }

    #[test]
    fn steps_are_ringed_only_on_the_witness() {
        let m = marked(0);
        let mut on = m.witness.steps.clone();
        on.push(Step { agent: 1, choice: 0 });
        assert_eq!(m.ringed_steps(&on), [0, 3]);
        assert!(m.ringed_steps(&on[..1]).is_empty(), "a tape shorter than the witness is not on it");
        assert!(m.ringed_steps(&[Step { agent: 1, choice: 0 }]).is_empty());
    }
}
