//! CTA exit (reference §2.1, §5.3, §10 #35): a CTA's shared memory lives as long as the
//! CTA, and the CTA exits when its last thread finishes. A peer that reaches that memory
//! afterwards (DSMEM `ld`/`st`/`atom`, a remote mbarrier arrive, a multicast, `st.async`,
//! a `cta_group::2` mma reading its operands) has undefined behaviour (§2.2.2), and so does
//! tensor memory the CTA still holds (§8.5).

use super::exec::{instr_text, Exec, RawAccess};
use super::tc_commit;
use crate::check::machine::{AgentKind, InstrRef, Status};
use crate::model::Space;

/// Reports undefined behaviour and returns true when the executing agent's access to `loc`
/// reaches shared memory of another CTA whose threads have all exited. `what` names the
/// access, e.g. "reads `y`" (built only then).
pub fn into_exited_cta(ex: &mut Exec, loc: usize, is_write: bool, what: impl FnOnce() -> String) -> bool {
    match ex.layout.locs.get(loc).map(|l| l.space) {
        Some(Space::Shared(owner)) => into_exited(ex, owner, "shared memory", loc, is_write, what),
        Some(Space::Tmem(_) | Space::Global) | None => false,
    }
}

/// [`into_exited_cta`] for a CTA pair's mma, which also reaches the peer's tensor memory.
pub fn pair_access_into_exited_cta(ex: &mut Exec, loc: usize, is_write: bool, what: impl FnOnce() -> String) -> bool {
    match ex.layout.locs.get(loc).map(|l| l.space) {
        Some(Space::Shared(owner)) => into_exited(ex, owner, "shared memory", loc, is_write, what),
        Some(Space::Tmem(owner)) => into_exited(ex, owner, "tensor memory", loc, is_write, what),
        Some(Space::Global) | None => false,
    }
}

fn into_exited(ex: &mut Exec, owner: usize, memory: &str, loc: usize, is_write: bool, what: impl FnOnce() -> String) -> bool {
    // The accessing CTA: a thread's own, or the issuer's for an asynchronous agent. A CTA's
    // own unfinished copies at its exit are a separate question the spec leaves open
    // (reference §12): only peers are this rule.
    let accessor_cta = match ex.m.agents.get(ex.agent as usize).map(|a| &a.kind) {
        Some(AgentKind::Async { issuer, .. }) => ex.layout.threads.get(issuer.thread()).map(|t| t.place.cta),
        Some(AgentKind::Thread(_)) => Some(ex.place().cta),
        None => None,
    };
    if accessor_cta.is_none_or(|c| c == owner) {
        return false;
    }
    let owners: Vec<&crate::check::machine::Agent> =
        ex.m.agents.iter().filter(|a| matches!(a.kind, AgentKind::Thread(_)) && a.place.cta == owner).map(|a| &**a).collect();
    if owners.iter().any(|a| a.status != Status::Done) {
        return false;
    }
    let exited: Vec<String> = owners
        .iter()
        .filter_map(|a| match a.kind {
            AgentKind::Thread(t) => ex.layout.threads.get(t).map(|t| format!("`{}`", t.name)),
            AgentKind::Async { .. } => None,
        })
        .collect();
    // The other end: where each of the CTA's threads ended, which a fix keeps waiting.
    let ends: Vec<String> = owners
        .iter()
        .filter_map(|a| match a.kind {
            AgentKind::Thread(t) => {
                let len = ex.layout.threads.get(t)?.program.len();
                // A thread that ran `exit` stays at it; one that ran off its end ran its last line.
                let last = InstrRef::new(t, if a.pc < len { a.pc } else { len.checked_sub(1)? });
                Some(ex.text(|| format!("`{}` ended at `{}`", ex.layout.threads.get(t).map_or("?", |x| x.name.as_str()), instr_text(ex.layout, last))))
            }
            AgentKind::Async { .. } => None,
        })
        .collect();
    let cta = ex.layout.cta_name(owner).to_string();
    // A tcgen05 op whose commit reaches no barrier of the exited CTA: no thread there could
    // wait for it, so that commit is what to change (§8.3, §8.5).
    let commit = match ex.m.agents.get(ex.agent as usize).map(|a| &a.kind) {
        Some(AgentKind::Async { issuer, .. }) => tc_commit::tracking_commit(ex.layout, *issuer)
            .filter(|t| !t.targets.iter().any(|b| tc_commit::mbar_cta(ex.layout, *b) == Some(owner))),
        Some(AgentKind::Thread(_)) | None => None,
    };
    let commit = commit.map_or_else(String::new, |t| {
        ex.text(|| {
            format!(
                ". Or let `{cta}` wait for the operation: the `{}` that tracks it arrives on {} only, none of them \
                 in `{cta}`, so make it arrive on a barrier of `{cta}` too (`.multicast::cluster`, §8.3) and wait on \
                 that barrier there",
                instr_text(ex.layout, t.commit),
                tc_commit::targets_text(ex.layout, &t.targets)
            )
        })
    });
    let from = ex.layout.cta_name(accessor_cta.unwrap_or(owner)).to_string();
    let who = ex.name_of(ex.agent);
    let what = what();
    let access = RawAccess { agent_name: who.clone(), instr: ex.instr_ref(), loc, is_write, step: Some(ex.step) };
    let when = if exited.is_empty() {
        "which has no threads and so exits at once".to_string()
    } else {
        format!("after all of `{cta}`'s threads ({}) exited", exited.join(", "))
    };
    ex.undefined(
        format!("`{who}` (CTA `{from}`) {what} in {memory} of CTA `{cta}` {when}"),
        format!(
            "CTA `{cta}` exited when its last thread finished, and its {memory} went with it; \
             a peer's access there afterwards is undefined behaviour (§2.2.2). Keep `{cta}` alive until \
             its peers are done with its memory: end both CTAs with `barrier.cluster.arrive` and \
             `barrier.cluster.wait` (the relaxed arrive suffices when no data is handed over){}{commit}",
            if ends.is_empty() { String::new() } else { format!("; {}", ends.join(", ")) }
        ),
    );
    if let Some(f) = ex.out.findings.last_mut() {
        f.accesses.push(access);
    }
    true
}

/// When the last thread of `cta` finishes, the CTA exits: TMEM it still holds is undefined
/// behaviour (§9.7.16.7.1; reference §8.5 and §10 #34).
pub fn tmem_held_at_exit(ex: &mut Exec, cta: usize) {
    let all_done = ex.m.agents.iter().all(|a| {
        !matches!(a.kind, AgentKind::Thread(_)) || a.place.cta != cta || a.status == Status::Done
    });
    let held = ex.m.tmem.get(cta).map_or(0, |t| t.allocated);
    if all_done && held > 0 {
        let name = ex.layout.cta_names.get(cta).cloned().unwrap_or_default();
        // One finding per CTA, whichever thread happens to finish last: keyed by the end
        // of the CTA's first program, a position no instruction has.
        let exit = ex.layout.threads.iter().position(|t| t.place.cta == cta).and_then(|thread| {
            ex.layout.threads.get(thread).map(|t| InstrRef::new(thread, t.program.len()))
        });
        ex.undefined_at(
            exit.into_iter().collect(),
            format!("CTA `{name}` exits with {held} TMEM columns still allocated"),
            "every `tcgen05.alloc` needs a `tcgen05.dealloc` of the same columns before the CTA exits (§9.7.16.7.1)".into(),
        );
    }
}
