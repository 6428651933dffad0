//! Deriving every single-point weakening of a scenario.

use super::{edits, MutationKind, DROPPED};
use crate::model::{Instr, Scenario};
use crate::syntax::{instr_text, print};

/// One single-point weakening of a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    pub kind: MutationKind,
    /// Index of the thread whose program is edited.
    pub thread: usize,
    /// Index of the edited instruction in the original program.
    pub instr: usize,
    /// The instruction as written (canonical text).
    pub before: String,
    /// What replaces it: the new instruction, `(dropped)`, or for a move both lines in
    /// their new order.
    pub after: String,
    /// The whole mutated scenario, as loaded back from its canonical text.
    pub scenario: Scenario,
    /// Its canonical text.
    pub text: String,
}

impl Mutant {
    /// `thread[instr]`, the key tables use: stable while the program is not edited.
    pub fn site(&self, original: &Scenario) -> String {
        let name = original.threads.get(self.thread).map_or("?", |t| t.name.as_str());
        format!("{name}[{}]", self.instr)
    }
}

/// Every single-point weakening of `scenario` that still loads without errors, in program
/// order. Expectations and final conditions are kept: they are what the mutant is judged by.
pub fn mutants(scenario: &Scenario) -> Vec<Mutant> {
    let mut out = Vec::new();
    for (t, thread) in scenario.threads.iter().enumerate() {
        for (i, instr) in thread.program.iter().enumerate() {
            let before = instr_text(instr);
            for (kind, replacement) in edits::weakenings(instr) {
                let after = replacement.as_ref().map_or_else(|| DROPPED.to_string(), instr_text);
                let mut mutated = scenario.clone();
                let Some(program) = mutated.threads.get_mut(t).map(|th| &mut th.program) else { continue };
                match replacement {
                    Some(new) => program[i] = new,
                    None => {
                        program.remove(i);
                    }
                }
                push_valid(&mut out, kind, t, i, before.clone(), after, mutated);
            }
            if let Some(next) = thread.program.get(i + 1).filter(|next| movable(instr, next)) {
                let mut mutated = scenario.clone();
                let Some(program) = mutated.threads.get_mut(t).map(|th| &mut th.program) else { continue };
                program.swap(i, i + 1);
                let after = format!("{} / {}", instr_text(next), before);
                push_valid(&mut out, MutationKind::MoveDown, t, i, before.clone(), after, mutated);
            }
        }
    }
    out
}

/// Whether swapping `a` with the `b` after it is a meaningful reordering: two different
/// instructions, neither of them control flow (moving a label or branch changes the
/// program's shape, not its synchronization).
fn movable(a: &Instr, b: &Instr) -> bool {
    a != b && !edits::is_control(a) && !edits::is_control(b)
}

fn push_valid(out: &mut Vec<Mutant>, kind: MutationKind, thread: usize, instr: usize, before: String, after: String, mutated: Scenario) {
    let text = print(&mutated);
    let loaded = crate::load(&text);
    if loaded.has_errors() {
        return;
    }
    out.push(Mutant { kind, thread, instr, before, after, scenario: loaded.scenario, text });
}
