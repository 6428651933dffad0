//! TMEM allocation (reference §8.5): `tcgen05.alloc` may block until columns are free and
//! writes the address to shared memory with a weak store; `dealloc` must not free columns
//! in use; no `alloc` after the CTA relinquished its permit.

use super::async_op;
use super::exec::{Exec, RawAccess, Readiness};
use crate::check::machine::{AgentKind, InstrRef, Machine, Status, TMEM_COLUMNS};
use crate::model::{Instr, TcOp};

/// An `alloc` blocks while the CTA lacks `cols` free columns.
pub fn alloc_readiness(m: &Machine, cta: usize, cols: u32) -> Option<Readiness> {
    let used = m.tmem.get(cta).map_or(0, |t| t.allocated);
    (used.saturating_add(cols) > TMEM_COLUMNS).then(|| {
        Readiness::Blocked(format!("`tcgen05.alloc` waits for {cols} free TMEM columns ({used} of {TMEM_COLUMNS} allocated)"))
    })
}

/// Returns false when the alloc was undefined behaviour (reported).
pub fn alloc(ex: &mut Exec, text: &str, dst: &str, cols: u32) -> Result<bool, String> {
    let cta = ex.place().cta;
    let t = ex.m.tmem.get(cta).cloned().unwrap_or_default();
    if t.relinquished {
        ex.undefined(format!("`{text}` after `tcgen05.relinquish_alloc_permit`"), "a CTA may not allocate once any of its threads relinquished the permit (§9.7.16.7.1)".into());
        return Ok(false);
    }
    let dst = ex.layout.loc(dst)?;
    super::access::write(ex, &async_op::access_to(ex.layout, dst, None, None), i64::from(t.allocated), Vec::new())?;
    if let Some(s) = ex.m.tmem.get_mut(cta) {
        s.allocated += cols;
        s.ever_allocated = true;
    }
    ex.out.description = format!("allocated {cols} TMEM columns; address written to smem (weak store)");
    Ok(true)
}

/// `busy`: some tcgen05 op of the CTA is still in flight. Returns false on undefined behaviour.
pub fn dealloc(ex: &mut Exec, text: &str, cols: u32, busy: bool) -> bool {
    let cta = ex.place().cta;
    let allocated = ex.m.tmem.get(cta).map_or(0, |t| t.allocated);
    if busy || cols > allocated {
        let why = if busy { "TMEM while tcgen05 operations of this CTA are still in flight" } else { "more columns than are allocated" };
        ex.undefined(format!("`{text}` frees {why}"), "complete (commit and wait for) every tcgen05 op before `dealloc`, and free exactly what was allocated (§9.7.16.7.1)".into());
        return false;
    }
    if let Some(s) = ex.m.tmem.get_mut(cta) {
        s.allocated -= cols;
    }
    ex.out.description = format!("freed {cols} TMEM columns");
    true
}

/// When the last thread of `cta` finishes, the CTA exits: TMEM it still holds is undefined
/// behaviour (§9.7.16.7.1; reference §8.5 and §10 #34).
pub fn check_exit(ex: &mut Exec, cta: usize) {
    let all_done = ex.m.agents.iter().all(|a| {
        !matches!(a.kind, AgentKind::Thread(_)) || a.place.cta != cta || a.status == Status::Done
    });
    let held = ex.m.tmem.get(cta).map_or(0, |t| t.allocated);
    if all_done && held > 0 {
        let name = ex.layout.cta_names.get(cta).cloned().unwrap_or_default();
        // One finding per CTA, whichever thread happens to finish last: keyed by the end
        // of the CTA's first program, a position no instruction has.
        let exit = ex.layout.threads.iter().position(|t| t.place.cta == cta).and_then(|thread| {
            ex.layout.threads.get(thread).map(|t| InstrRef { thread, pc: t.program.len() })
        });
        ex.undefined_at(
            exit.into_iter().collect(),
            format!("CTA `{name}` exits with {held} TMEM columns still allocated"),
            "every `tcgen05.alloc` needs a `tcgen05.dealloc` of the same columns before the CTA exits (§9.7.16.7.1)".into(),
        );
    }
}

/// A tcgen05 op reaching TMEM of a CTA that allocates TMEM, while none is allocated: before
/// the `tcgen05.alloc` or after the `dealloc` (§9.7.16.7.1; reference §8.5, §10 #34).
/// Scenarios whose CTA never allocates declare their TMEM as already allocated (a departure
/// listed in ARCHITECTURE.md). The model does not map locations to columns: any allocated
/// column counts. Returns true when it reported undefined behaviour.
pub fn unallocated_access(ex: &mut Exec, text: &str, tmem_locs: &[usize], written: Option<usize>) -> bool {
    for &loc in tmem_locs {
        let Some(crate::model::Space::Tmem(cta)) = ex.layout.locs.get(loc).map(|l| l.space) else { continue };
        let allocates = ex.layout.threads.iter().any(|t| {
            t.place.cta == cta && t.program.iter().any(|i| matches!(i, Instr::Tc(TcOp::Alloc { .. })))
        });
        let state = ex.m.tmem.get(cta).cloned().unwrap_or_default();
        if !allocates || state.allocated > 0 {
            continue;
        }
        let name = ex.layout.locs.get(loc).map_or("?", |l| l.name.as_str()).to_string();
        let cta_name = ex.layout.cta_name(cta).to_string();
        let (when, fix) = if state.ever_allocated {
            ("after `tcgen05.dealloc` freed it", "free TMEM only after every tcgen05 op on it completed, and use it no more afterwards")
        } else {
            ("before any `tcgen05.alloc` of CTA", "issue tcgen05 ops only after the `tcgen05.alloc` of their TMEM, ordered after it (same thread, or a barrier with the tcgen05 thread-sync fences)")
        };
        let when = if state.ever_allocated { when.to_string() } else { format!("{when} `{cta_name}`") };
        let who = ex.name_of(ex.agent);
        let access = RawAccess { agent_name: who.clone(), instr: ex.instr_ref(), loc, is_write: written == Some(loc), step: Some(ex.step) };
        ex.undefined(
            format!("`{who}` issues `{text}` on TMEM `{name}` {when}"),
            format!("tensor memory exists only between `tcgen05.alloc` and `tcgen05.dealloc`; using it outside that window is undefined behaviour (§8.5): {fix}"),
        );
        if let Some(f) = ex.out.findings.last_mut() {
            f.accesses.push(access);
        }
        return true;
    }
    false
}

pub fn relinquish(ex: &mut Exec) {
    let cta = ex.place().cta;
    if let Some(s) = ex.m.tmem.get_mut(cta) {
        s.relinquished = true;
    }
    ex.out.description = "relinquished the TMEM allocation permit".into();
}
