//! Dat3M's CTA barriers, lowered to the model's `bar` and mbarrier instructions.
//!
//! Dat3M (`VisitorLitmusPTX`, `ProgramEncoder`, `NamedBarrier`) reads
//! `bar.cta.sync I{, R{, Q}}` as: `I` a constant *instance* id, `R` a *resource* id
//! (a value or register), `Q` a *quorum*. Barriers of one CTA meet when they have the same
//! `I` and the same value of `R` (plain and resource-id barriers never meet each other).
//! - Without `Q`, a barrier completes when every thread of the CTA whose program holds
//!   that barrier has reached it: the participants are those threads, not the whole CTA.
//! - With `Q`, it completes once `Q` of them synchronize; the others then pass too and
//!   only acquire (an edge goes from every synchronizing barrier to every executed one).
//!   `Q` above the number of participants never completes.
//! - `arrive` is a source only, as in PTX; it does not wait.
//!
//! Lowering: when every thread of the CTA takes part, none arrives only or may jump over
//! it, and any quorum equals the participants, it is PTX's own `bar.sync id` (a thread
//! that jumps over a barrier and exits releases a PTX barrier but blocks Dat3M's).
//! Otherwise it is an mbarrier with expected count `Q` (or the number of participants):
//! `arrive.release.cta`, then for `sync` a wait for phase 0 with `.acquire.cta`. Late arrivers land in phase 1 and
//! pass at once, acquiring from the quorum, as Dat3M's non-synchronizing members do. A
//! counted `bar.sync id, n` is not used: litmus threads have one lane and PTX counts whole
//! warps, so such a count would be undefined behaviour.
//!
//! A resource id computed at run time (a register the program writes) is supported for
//! one thread per instance, when that thread surely reaches the barrier (no branch, fence
//! or barrier before it) and there is no quorum: every barrier `v` of that instance then
//! counts one more arrival; the thread arrives `.relaxed` (counting, not releasing) on
//! each `v` its register does not hold and synchronizes on the one it holds, if any.
//! Dat3M's other threads do not wait for it when the ids differ; here they wait for its
//! relaxed arrival, which only orders time, not memory.
//!
//! Not expressible, hence reported unsupported: other run-time ids or quorums (which
//! threads meet would depend on values), a barrier reached twice by one thread (twice in
//! the program, or inside a loop), and mixed quorums on one barrier.

mod collect;
mod emit;
mod plan;

use std::collections::{BTreeMap, HashMap, HashSet};

use super::error::LitmusError;
use super::instr::{Cell, LitmusInstr};
use crate::model::{Instr, Mbarrier};

/// (CTA, instance, resource) identifies one logical barrier.
type Key = (usize, i64, Option<i64>);

/// A barrier use whose operands are known before the run.
struct Use {
    arrive: bool,
    /// The thread may jump over it (and then exit without arriving).
    skippable: bool,
    thread: usize,
    pos: usize,
    line: usize,
    key: Key,
    quorum: Option<i64>,
}

pub struct Lowered {
    pub programs: Vec<Vec<Instr>>,
    pub mbarriers: Vec<Mbarrier>,
}

/// `thread_ctas[t]` is thread `t`'s CTA; `reg_inits[t]` its declared register values;
/// `taken_names` are names mbarriers must not reuse.
pub fn lower(
    programs: &[Vec<Cell>],
    thread_ctas: &[usize],
    reg_inits: &[HashMap<String, i64>],
    cta_names: &[String],
    taken_names: &HashSet<String>,
) -> Result<Lowered, LitmusError> {
    let uses = collect::collect(programs, thread_ctas, reg_inits)?;
    let mut cta_sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for cta in thread_ctas {
        *cta_sizes.entry(*cta).or_default() += 1;
    }
    let plan = plan::plan(&uses, &cta_sizes, cta_names, taken_names)?;
    let fixed: HashMap<(usize, usize), &Use> =
        uses.fixed.iter().map(|u| ((u.thread, u.pos), u)).collect();
    let dynamic: HashMap<(usize, usize), &collect::DynamicUse> = uses
        .dynamic
        .iter()
        .map(|u| ((u.thread, u.pos), u))
        .collect();
    let mut lowered = Vec::new();
    for (thread, program) in programs.iter().enumerate() {
        let mut labels = emit::Labels::of(program);
        let mut out = Vec::new();
        for (pos, cell) in program.iter().enumerate() {
            match &cell.instr {
                LitmusInstr::Plain(instr) => out.push(instr.clone()),
                LitmusInstr::Barrier(_) => {
                    if let Some(u) = fixed.get(&(thread, pos)) {
                        let lowering = plan
                            .lowerings
                            .get(&u.key)
                            .ok_or_else(|| placement_bug(cell))?;
                        out.extend(emit::fixed(lowering, u.arrive));
                    } else if let Some(d) = dynamic.get(&(thread, pos)) {
                        out.extend(emit::dynamic(d, &plan, &mut labels));
                    } else {
                        return Err(placement_bug(cell));
                    }
                }
            }
        }
        lowered.push(out);
    }
    Ok(Lowered {
        programs: lowered,
        mbarriers: plan.mbarriers,
    })
}

fn placement_bug(cell: &Cell) -> LitmusError {
    LitmusError::unsupported(
        Some(cell.line),
        "fencelab internal bug: barrier could not be placed",
    )
}
