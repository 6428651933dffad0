//! `keep-data: true` — the `lanes` threads' starting data operations stay in place.
//!
//! Some exercises are about what to *add* between instructions that are already right:
//! "order the writer's store before the elected thread's release". Moving the release into
//! the writer, or the store into the signaller, makes the program correct without that
//! link, so it answers a different question.

use super::types::Goal;
use crate::model::{Instr, Scenario, TcOp, WgmmaOp};
use crate::syntax::instr_text;

/// One reason per `lanes` thread of a `keep-data` goal whose starting data operations (loads, stores,
/// atomics, copies, MMAs: [`data_operation`]) are not all still there, in their order, in
/// `attempt`. Synchronization around them may change freely, and so may an access's
/// semantics and scope: that is usually the fix.
pub fn kept_instructions_missing(goal: &Goal, start: &Scenario, attempt: &Scenario) -> Vec<String> {
    let mut reasons = Vec::new();
    let kept = match &goal.lanes {
        Some(lanes) if goal.keep_data => lanes.as_slice(),
        _ => return reasons,
    };
    for name in kept {
        let program = |s: &Scenario| s.threads.iter().find(|t| &t.name == name).map(|t| t.program.clone());
        let (Some(before), Some(after)) = (program(start), program(attempt)) else { continue };
        if let Some(lost) = first_not_kept(&before, &after) {
            reasons.push(format!(
                "`{}` of the starting program is no longer in `{name}` where it was: this exercise keeps every load, \
store, atomic and copy of {} in place and asks only for the synchronization around them; moving the data or the signal \
to another thread, or replacing it, removes the very link the exercise is about",
                instr_text(lost),
                list(kept),
            ));
        }
    }
    reasons
}

/// The first data operation of `before` that `after` does not keep as a subsequence.
fn first_not_kept<'a>(before: &'a [Instr], after: &[Instr]) -> Option<&'a Instr> {
    let mut rest = after.iter().filter_map(data_operation);
    before.iter().find(|wanted| data_operation(wanted).is_some_and(|w| !rest.any(|have| have == w)))
}

/// `instr` with its memory-model qualifiers cleared when it moves data (what `keep` holds
/// in place); `None` for synchronization and control flow, which an answer may change.
fn data_operation(instr: &Instr) -> Option<Instr> {
    let mut op = instr.clone();
    match &mut op {
        Instr::Ld { sem, scope, space, .. } | Instr::St { sem, scope, space, .. } | Instr::Atom { sem, scope, space, .. } => {
            (*sem, *scope, *space) = (None, None, None);
            Some(op)
        }
        Instr::CpAsync { .. } | Instr::Bulk { .. } | Instr::StAsync { .. } | Instr::Mov { .. } | Instr::Add { .. } => Some(op),
        // The byte range is part of the data moved, and so is a guard: guarding a kept
        // operation (so that it may not run) does not keep it.
        Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => {
            **instr = data_operation(instr)?;
            Some(op)
        }
        Instr::SetP { .. } => None,
        Instr::Wgmma(WgmmaOp::MmaAsync { .. }) => Some(op),
        Instr::Wgmma(WgmmaOp::Fence | WgmmaOp::CommitGroup | WgmmaOp::WaitGroup { .. }) => None,
        Instr::Tc(tc) => match tc {
            TcOp::Alloc { .. } | TcOp::Dealloc { .. } | TcOp::Mma { .. } | TcOp::MmaPair { .. } | TcOp::Cp { .. } | TcOp::Shift { .. } | TcOp::Ld { .. } | TcOp::St { .. } => {
                Some(op)
            }
            TcOp::Relinquish { .. } | TcOp::Commit { .. } | TcOp::WaitLd | TcOp::WaitSt | TcOp::FenceBeforeThreadSync | TcOp::FenceAfterThreadSync => None,
        },
        Instr::Fence(_)
        | Instr::Bar { .. }
        | Instr::ClusterArrive { .. }
        | Instr::ClusterWait
        | Instr::Mbar(_)
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::BulkCommit
        | Instr::BulkWait { .. }
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Wait { .. }
        | Instr::Exit => None,
    }
}

fn list(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(writer: &str, signaller: &str) -> Scenario {
        let src = format!("cta A\nglobal d = 0\nglobal f = 0\nthread writer @A:\n{writer}thread signaller @A:\n{signaller}");
        crate::load(&src).scenario
    }

    #[test]
    fn additions_pass_and_moves_fail() {
        let goal = Goal { lanes: Some(vec!["writer".into(), "signaller".into()]), keep_data: true, ..Goal::default() };
        let start = scenario("    st.global [d], 42\n", "    st.release.gpu.global [f], 1\n");
        let added = scenario("    st.global [d], 42\n    bar.sync 0\n", "    bar.sync 0\n    st.release.gpu.global [f], 1\n");
        assert_eq!(kept_instructions_missing(&goal, &start, &added), Vec::<String>::new());
        let moved = scenario("    st.global [d], 42\n    st.release.gpu.global [f], 1\n", "");
        let reasons = kept_instructions_missing(&goal, &start, &moved);
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(reasons[0].contains("`st.release.gpu.global [f], 1` of the starting program is no longer in `signaller`"), "{reasons:?}");
        let duplicated = scenario("    st.global [d], 42\n", "    st.release.gpu.global [f], 1\n    st.release.gpu.global [f], 1\n");
        assert_eq!(kept_instructions_missing(&goal, &start, &duplicated), Vec::<String>::new(), "a duplicate keeps the original");
        let requalified = scenario("    st.release.gpu.global [d], 42\n    fence.sc.gpu\n", "    st.relaxed.cta.global [f], 1\n");
        assert_eq!(kept_instructions_missing(&goal, &start, &requalified), Vec::<String>::new(), "semantics may change");
        let replaced = scenario("    st.global [d], 41\n", "    st.release.gpu.global [f], 1\n");
        assert_eq!(kept_instructions_missing(&goal, &start, &replaced).len(), 1, "the data may not");
    }
}
