//! What a scenario's synchronization costs on one GPU with one compiler: each instruction
//! lowers to the SASS that `nvcc -arch=sm_90a -O3` (CUDA 13.0) emits for it, and each SASS
//! op carries a weight (`docs/fix.md` explains the numbers). This is a fact about that
//! compiler on that architecture, not a promise of the PTX memory model: another ptxas or
//! GPU may lower differently. tcgen05 ops do not exist on sm_90a; they are priced from the
//! sm_100a measurements of the same compiler.
//!
//! The cost is static: every instruction counts once, however often a schedule runs it.

mod lower;
mod sass;

pub use lower::{lower, Lowering};
pub use sass::Sass;

use serde::{Deserialize, Serialize};

use crate::model::Scenario;

/// The label every cost display carries.
pub const MODEL_LABEL: &str = "SASS from nvcc 13.0 for sm_90a (tcgen05: sm_100a); one compiler on one GPU, not the PTX model";

/// How often one SASS op appears and what it costs in all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SassCount {
    pub op: String,
    pub count: u32,
    /// `count` times the op's weight.
    pub cost: u32,
}

/// One instruction's lowering and price.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstrCost {
    /// Index in its thread's program.
    pub instr: usize,
    pub sass: Vec<String>,
    pub cost: u32,
    /// False when the table holds no measurement for this form and the lowering is
    /// inferred from the nearest measured one.
    pub measured: bool,
}

/// One thread's instructions that lower to something, and their sum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadCost {
    pub thread: String,
    pub cost: u32,
    pub instrs: Vec<InstrCost>,
}

/// A scenario's cost: per thread, per SASS op, and in total.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    pub total: u32,
    pub threads: Vec<ThreadCost>,
    /// Every SASS op emitted, most expensive first.
    pub sass: Vec<SassCount>,
}

impl Cost {
    /// The price of instruction `instr` of thread `thread` (indices in the scenario), or
    /// `None` when it lowers to no synchronization SASS.
    pub fn instr(&self, thread: usize, instr: usize) -> Option<&InstrCost> {
        self.threads.get(thread)?.instrs.iter().find(|c| c.instr == instr)
    }
}

/// Prices every instruction of every thread.
pub fn cost(scenario: &Scenario) -> Cost {
    let mut per_op: Vec<(Sass, u32)> = Vec::new();
    let threads: Vec<ThreadCost> = scenario
        .threads
        .iter()
        .map(|thread| {
            let instrs: Vec<InstrCost> = thread
                .program
                .iter()
                .enumerate()
                .filter_map(|(i, instr)| {
                    let lowering = lower(instr);
                    if lowering.sass.is_empty() {
                        return None;
                    }
                    for op in &lowering.sass {
                        match per_op.iter_mut().find(|(o, _)| o == op) {
                            Some((_, n)) => *n += 1,
                            None => per_op.push((*op, 1)),
                        }
                    }
                    Some(InstrCost {
                        instr: i,
                        sass: lowering.sass.iter().map(|s| s.name().to_string()).collect(),
                        cost: lowering.cost(),
                        measured: lowering.measured,
                    })
                })
                .collect();
            ThreadCost { thread: thread.name.clone(), cost: instrs.iter().map(|c| c.cost).sum(), instrs }
        })
        .collect();
    let mut sass: Vec<SassCount> =
        per_op.into_iter().map(|(op, count)| SassCount { op: op.name().to_string(), count, cost: count * op.weight() }).collect();
    crate::sort::sort_by(&mut sass, |a, b| b.cost.cmp(&a.cost).then_with(|| a.op.cmp(&b.op)));
    Cost { total: threads.iter().map(|t| t.cost).sum(), threads, sass }
}

/// The SASS ops `after` has more (`+`) or fewer (`-`) of than `before`, most expensive
/// first, e.g. `["+1 MEMBAR.ALL.GPU", "-1 SYNCS.ARRIVE.TRANS64.A1T0"]`.
pub fn difference(before: &Cost, after: &Cost) -> Vec<String> {
    let count = |c: &Cost, op: &str| c.sass.iter().find(|s| s.op == op).map_or(0, |s| i64::from(s.count));
    let mut ops: Vec<Sass> = Sass::ALL.to_vec();
    crate::sort::sort_by_key(&mut ops, |op| std::cmp::Reverse(op.weight()));
    ops.into_iter()
        .filter_map(|op| {
            let delta = count(after, op.name()) - count(before, op.name());
            (delta != 0).then(|| format!("{delta:+} {}", op.name()))
        })
        .collect()
}

#[cfg(test)]
mod tests;
