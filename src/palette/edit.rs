//! Block edits: change one thread's program in the model, and rewrite only the lines of
//! the text the edit touches (`splice.rs`); where a line edit cannot say it, keep the
//! source comments next to the instructions they belong to and print the canonical text.

use super::error::EditError;
use super::machine::{self, MachineEdit};
use crate::model::{Instr, Scenario, Thread};
use crate::syntax::{parse, print_with_comments, Anchor, SourceMap};

/// One change the block view makes. Positions are `(thread, instruction)` indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Inserts `instr` into `thread` before position `at` (the end when `at` is past it).
    Insert { thread: usize, at: usize, instr: Instr },
    /// Replaces one instruction (a modifier choice).
    Replace { thread: usize, at: usize, instr: Instr },
    Remove { thread: usize, at: usize },
    Duplicate { thread: usize, at: usize },
    /// Moves an instruction to `to_thread` before position `to` (counted before the move).
    Move { thread: usize, at: usize, to_thread: usize, to: usize },
    /// Adds a thread in the same CTA as the last one, with an empty program.
    AddThread,
    /// A change to the machine: clusters, CTAs, threads, locations, mbarriers.
    Machine(MachineEdit),
}

/// Applies `edit` to the scenario written in `src` and returns the new text. Fails,
/// leaving the text to the caller untouched, when `src` has syntax errors or the edit
/// names a thread or instruction that is not there.
pub fn apply(src: &str, edit: &Edit) -> Result<String, EditError> {
    let parsed = parse(src);
    if parsed.has_errors() {
        return Err(EditError::Unparsable);
    }
    let before = parsed.scenario.clone();
    let written = parsed.source_map.clone();
    let mut scenario = parsed.scenario;
    let mut map = parsed.source_map;
    apply_to(&mut scenario, &mut map, src, edit)?;
    // The learner's text, changed only where the edit is; printed whole only when a line
    // edit cannot say it (a machine edit, two instructions on a line).
    let spliced = super::splice::splice(src, &written, &before, &scenario, edit).filter(|text| {
        let back = parse(text);
        !back.has_errors() && back.scenario == scenario
    });
    Ok(spliced.unwrap_or_else(|| print_with_comments(&scenario, &map)))
}

fn apply_to(s: &mut Scenario, map: &mut SourceMap, src: &str, edit: &Edit) -> Result<(), EditError> {
    match edit {
        Edit::Insert { thread, at, instr } => {
            let program = program(s, *thread)?;
            let at = (*at).min(program.len());
            program.insert(at, instr.clone());
            shift_comments(map, *thread, at, 1);
        }
        Edit::Replace { thread, at, instr } => {
            let slot = program(s, *thread)?.get_mut(*at).ok_or_else(|| no_instr(*thread, *at))?;
            *slot = instr.clone();
        }
        Edit::Remove { thread, at } => {
            let program = program(s, *thread)?;
            if *at >= program.len() {
                return Err(no_instr(*thread, *at));
            }
            program.remove(*at);
            map.comments.retain(|c| c.anchor != Anchor::Instr(*thread, *at));
            shift_comments(map, *thread, at + 1, -1);
        }
        Edit::Duplicate { thread, at } => {
            let copy = program(s, *thread)?.get(*at).cloned().ok_or_else(|| no_instr(*thread, *at))?;
            program(s, *thread)?.insert(at + 1, copy);
            shift_comments(map, *thread, at + 1, 1);
        }
        Edit::Move { thread, at, to_thread, to } => {
            program(s, *to_thread)?;
            let instr = program(s, *thread)?.get(*at).cloned().ok_or_else(|| no_instr(*thread, *at))?;
            // Comments travel with their instruction: park them, remove, insert, re-anchor.
            let mut moved: Vec<_> = Vec::new();
            map.comments.retain(|c| {
                let keep = c.anchor != Anchor::Instr(*thread, *at);
                if !keep {
                    moved.push(c.clone());
                }
                keep
            });
            program(s, *thread)?.remove(*at);
            shift_comments(map, *thread, at + 1, -1);
            let to = if to_thread == thread && to > at { to - 1 } else { *to };
            let target = program(s, *to_thread)?;
            let to = to.min(target.len());
            target.insert(to, instr);
            shift_comments(map, *to_thread, to, 1);
            for mut c in moved {
                c.anchor = Anchor::Instr(*to_thread, to);
                map.comments.push(c);
            }
        }
        Edit::AddThread => {
            let cta = s.threads.last().map(|t| t.cta).or((!s.ctas.is_empty()).then_some(0));
            let Some(cta) = cta else { return Err(EditError::NoCta) };
            let name = (s.threads.len()..)
                .map(|n| format!("t{n}"))
                .find(|n| s.thread(n).is_none())
                .unwrap_or_default();
            s.threads.push(Thread { name, cta, lanes: 32, program: Vec::new() });
        }
        Edit::Machine(edit) => machine::apply(s, map, src, edit)?,
    }
    Ok(())
}

fn program(s: &mut Scenario, thread: usize) -> Result<&mut Vec<Instr>, EditError> {
    s.threads.get_mut(thread).map(|t| &mut t.program).ok_or(EditError::NoThread { thread })
}

fn no_instr(thread: usize, at: usize) -> EditError {
    EditError::NoInstruction { thread, at }
}

/// Re-anchors comments of instructions `from..` of `thread` by `by` positions.
fn shift_comments(map: &mut SourceMap, thread: usize, from: usize, by: isize) {
    for c in &mut map.comments {
        if let Anchor::Instr(t, i) = c.anchor {
            if t == thread && i >= from {
                c.anchor = Anchor::Instr(t, i.saturating_add_signed(by));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "cta A\nshared x @A = 0\n\nthread p @A:\n    st [x], 1  # first\n    st [x], 2\n\nthread q @A:\n    ld r0, [x]\n";

    fn program_text(src: &str, thread: usize) -> Vec<String> {
        let parsed = parse(src);
        parsed.scenario.threads[thread].program.iter().map(crate::syntax::instr_text).collect()
    }

    #[test]
    fn move_within_a_lane_reorders_and_keeps_the_comment() {
        let out = apply(SRC, &Edit::Move { thread: 0, at: 0, to_thread: 0, to: 2 }).unwrap();
        assert_eq!(program_text(&out, 0), ["st [x], 2", "st [x], 1"]);
        assert!(out.contains("st [x], 1  # first"), "{out}");
    }

    #[test]
    fn move_between_lanes() {
        let out = apply(SRC, &Edit::Move { thread: 0, at: 1, to_thread: 1, to: 0 }).unwrap();
        assert_eq!(program_text(&out, 0), ["st [x], 1"]);
        assert_eq!(program_text(&out, 1), ["st [x], 2", "ld r0, [x]"]);
    }

    #[test]
    fn insert_duplicate_remove() {
        let ins = Instr::Fence(crate::model::Fence::MbarrierInit);
        let out = apply(SRC, &Edit::Insert { thread: 1, at: 9, instr: ins }).unwrap();
        assert_eq!(program_text(&out, 1).last().map(String::as_str), Some("fence.mbarrier_init.release.cluster"));
        let out = apply(&out, &Edit::Duplicate { thread: 0, at: 0 }).unwrap();
        assert_eq!(program_text(&out, 0), ["st [x], 1", "st [x], 1", "st [x], 2"]);
        let out = apply(&out, &Edit::Remove { thread: 0, at: 1 }).unwrap();
        assert_eq!(program_text(&out, 0), ["st [x], 1", "st [x], 2"]);
        assert_eq!(out.matches("# first").count(), 1, "{out}");
    }

    /// A program as a person writes it: blank lines, a type suffix and a `;` the printer
    /// drops, notes above and beside instructions.
    const WRITTEN: &str = "# Handoff\ncta A\nshared x @A = 0\n\n\nthread p @A:\n    # the payload first\n    st.shared.u32 [x], 1;  # first\n\n    st.shared [x], 2\n\nthread q @A:\n    ld r0, [x]\n\nexpect race\n";

    /// The lines of `after` that `before` does not have, and the other way round.
    fn line_changes(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
        let (old, new): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
        let added = new.iter().filter(|l| !old.contains(l)).map(|l| l.to_string()).collect();
        let gone = old.iter().filter(|l| !new.contains(l)).map(|l| l.to_string()).collect();
        (added, gone)
    }

    #[test]
    fn a_block_edit_rewrites_only_its_own_lines() {
        let fence = Instr::Fence(crate::model::Fence::MbarrierInit);
        let inserted = apply(WRITTEN, &Edit::Insert { thread: 0, at: 1, instr: fence.clone() }).unwrap();
        assert_eq!(inserted, WRITTEN.replace("\n    st.shared [x], 2", "\n    fence.mbarrier_init.release.cluster\n    st.shared [x], 2"));
        let appended = apply(WRITTEN, &Edit::Insert { thread: 1, at: 9, instr: fence }).unwrap();
        assert_eq!(appended, WRITTEN.replace("    ld r0, [x]\n", "    ld r0, [x]\n    fence.mbarrier_init.release.cluster\n"));
        let replaced = apply(WRITTEN, &Edit::Replace { thread: 0, at: 0, instr: parse("cta A\nthread t @A:\n    st.release.cta.shared [x], 1\n").scenario.threads[0].program[0].clone() }).unwrap();
        assert_eq!(replaced, WRITTEN.replace("st.shared.u32 [x], 1;", "st.release.cta.shared::cta [x], 1;"), "the line keeps its indent, `;` and note");
        let removed = apply(WRITTEN, &Edit::Remove { thread: 0, at: 0 }).unwrap();
        assert_eq!(removed, WRITTEN.replace("    # the payload first\n    st.shared.u32 [x], 1;  # first\n", ""), "its notes go with it");
        let duplicated = apply(WRITTEN, &Edit::Duplicate { thread: 1, at: 0 }).unwrap();
        assert_eq!(duplicated, WRITTEN.replace("    ld r0, [x]\n", "    ld r0, [x]\n    ld r0, [x]\n"));
        let moved = apply(WRITTEN, &Edit::Move { thread: 0, at: 0, to_thread: 1, to: 1 }).unwrap();
        assert_eq!(
            line_changes(WRITTEN, &moved),
            (vec![], vec![]),
            "a move only reorders lines:\n{moved}"
        );
        assert!(moved.contains("    ld r0, [x]\n    # the payload first\n    st.shared.u32 [x], 1;  # first\n"), "{moved}");
        let added = apply(WRITTEN, &Edit::AddThread).unwrap();
        assert_eq!(added, WRITTEN.replace("    ld r0, [x]\n", "    ld r0, [x]\n\nthread t2 @A:\n"));
        // Each result reads as the edited scenario (`apply` checks it, else it prints).
        for text in [&inserted, &appended, &replaced, &removed, &duplicated, &moved, &added] {
            assert!(!parse(text).has_errors(), "{text}");
        }
    }

    #[test]
    fn add_thread_appends_an_empty_lane() {
        let out = apply(SRC, &Edit::AddThread).unwrap();
        let parsed = parse(&out);
        assert!(!parsed.has_errors(), "{out}");
        assert_eq!(parsed.scenario.threads.len(), 3);
    }

    #[test]
    fn text_with_errors_is_refused() {
        let err = apply("cta A\nthread t @A:\n    ld.bogus r0, [x]\n", &Edit::AddThread).unwrap_err();
        assert_eq!(err, EditError::Unparsable);
        assert!(err.to_string().contains("fix the errors"), "{err}");
    }

    #[test]
    fn bad_positions_are_errors_not_panics() {
        assert_eq!(apply(SRC, &Edit::Remove { thread: 0, at: 7 }), Err(EditError::NoInstruction { thread: 0, at: 7 }));
        assert_eq!(apply(SRC, &Edit::Move { thread: 5, at: 0, to_thread: 0, to: 0 }), Err(EditError::NoThread { thread: 5 }));
        assert_eq!(apply(SRC, &Edit::Move { thread: 0, at: 0, to_thread: 9, to: 0 }), Err(EditError::NoThread { thread: 9 }));
    }
}
