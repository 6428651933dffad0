//! Where everything of a scenario goes on the GPU: CTAs in hardware clusters, threads in
//! warps, locations and mbarriers at byte offsets, registers in per-instance records.

use std::collections::BTreeMap;

use super::{Problem, MAX_CLUSTER};
use crate::model::{Instr, Scenario, Space, WgmmaOp};

/// Bytes a wgmma operand occupies: the m64n8k32 descriptor walks up to 2 KiB from its
/// start, and every byte but the first word must be zero (see `emit::wgmma`).
pub const WGMMA_OPERAND_BYTES: u32 = 2048;

/// One scenario register as the harness keeps it.
#[derive(Clone, Debug)]
pub struct Reg {
    pub name: String,
    /// A wgmma accumulator: kept in `int acc_<name>[4]`, element 0 is the scenario value.
    pub accumulator: bool,
    /// An mbarrier state token: a hardware-defined 64-bit value the model does not share.
    pub opaque: bool,
    /// Index into the per-instance register record; `None` for opaque registers.
    pub slot: Option<usize>,
}

/// A scenario thread: one warp, or a warpgroup of four when it issues wgmma.
#[derive(Clone, Debug)]
pub struct ThreadPlan {
    pub warps: u32,
    /// First warp of the thread inside its CTA.
    pub first_warp: u32,
    pub regs: Vec<Reg>,
}

#[derive(Clone, Debug)]
pub struct Plan {
    /// CTAs per hardware cluster (the largest scenario cluster).
    pub cluster_size: u32,
    /// Per scenario CTA: its rank in its cluster.
    pub rank: Vec<u32>,
    /// Per scenario cluster: its CTAs by rank.
    pub cluster_ctas: Vec<Vec<usize>>,
    pub threads: Vec<ThreadPlan>,
    /// Warps of each scenario CTA's scenario threads.
    pub cta_warps: Vec<u32>,
    /// Warps per hardware CTA (the largest scenario CTA).
    pub block_warps: u32,
    /// Per shared location or mbarrier name: byte offset in its owner's shared memory.
    pub smem: BTreeMap<String, u32>,
    pub smem_bytes: u32,
    /// Per global location name: word offset inside one instance's global block.
    pub global: BTreeMap<String, u32>,
    /// 32-bit words of one instance's global block.
    pub global_words: u32,
    /// Recorded registers, in slot order: `(thread name, register name)`.
    pub slots: Vec<(String, String)>,
    /// `barrier.cluster` phases each thread of a cluster goes through.
    pub cluster_phases: Vec<u32>,
}

/// `n` rounded up to a multiple of `to`; saturates, so absurd sizes fail the size checks.
fn align(n: u32, to: u32) -> u32 {
    n.div_ceil(to).saturating_mul(to)
}

/// Words of global memory one instance may use (4 MiB).
const MAX_GLOBAL_WORDS: u32 = 1 << 20;

/// Registers a program writes or reads, in first-mention order, with their kind.
fn registers(program: &[Instr]) -> Vec<Reg> {
    let mut regs: Vec<Reg> = Vec::new();
    let mut note = |name: &str, accumulator: bool, opaque: bool| {
        if name == "_" {
            return;
        }
        match regs.iter_mut().find(|r| r.name == name) {
            Some(r) => {
                r.accumulator |= accumulator;
                r.opaque |= opaque;
            }
            None => regs.push(Reg { name: name.to_string(), accumulator, opaque, slot: None }),
        }
    };
    for i in program {
        // Within one instruction, written registers come before read ones.
        let facts = i.facts();
        for name in facts.writes.iter().chain(&facts.reads) {
            note(name, false, facts.tokens.contains(name));
        }
        if let Some(acc) = facts.accumulator {
            note(acc, true, false);
        }
    }
    regs
}

fn uses_wgmma(program: &[Instr]) -> bool {
    program.iter().any(|i| matches!(i, Instr::Wgmma(_)))
}

/// Shared locations that a wgmma reads: they get a zeroed 2 KiB block each.
fn wgmma_operands(s: &Scenario) -> Vec<&str> {
    let mut out = Vec::new();
    for t in &s.threads {
        for i in &t.program {
            if let Instr::Wgmma(WgmmaOp::MmaAsync { a, b, .. }) = i {
                out.extend([a.as_str(), b.as_str()]);
            }
        }
    }
    out
}

pub fn plan(s: &Scenario) -> Result<Plan, Vec<Problem>> {
    let mut problems = Vec::new();
    if s.clusters.iter().any(|c| c.gpu != 0) {
        problems.push(Problem::scenario("the scenario spans several GPUs; the harness runs on one"));
    }
    let mut cluster_ctas: Vec<Vec<usize>> = vec![Vec::new(); s.clusters.len()];
    let mut rank = vec![0; s.ctas.len()];
    for (i, c) in s.ctas.iter().enumerate() {
        if let Some(list) = cluster_ctas.get_mut(c.cluster) {
            rank[i] = u32::try_from(list.len()).unwrap_or(u32::MAX);
            list.push(i);
        }
    }
    cluster_ctas.retain(|c| !c.is_empty());
    let cluster_size = cluster_ctas.iter().map(Vec::len).max().unwrap_or(1);
    if cluster_size > MAX_CLUSTER as usize {
        problems.push(Problem::scenario(format!(
            "a cluster of {cluster_size} CTAs is larger than the portable cluster size {MAX_CLUSTER}"
        )));
    }
    let cluster_size = u32::try_from(cluster_size).unwrap_or(MAX_CLUSTER);

    // Warpgroup threads first, so each starts at a warp index divisible by 4 (wgmma's rule).
    let mut threads: Vec<ThreadPlan> = s
        .threads
        .iter()
        .map(|t| ThreadPlan { warps: if uses_wgmma(&t.program) { 4 } else { 1 }, first_warp: 0, regs: registers(&t.program) })
        .collect();
    let mut cta_warps = vec![0u32; s.ctas.len()];
    for pass_wide in [true, false] {
        for (t, tp) in s.threads.iter().zip(threads.iter_mut()) {
            if (tp.warps == 4) != pass_wide {
                continue;
            }
            if let Some(w) = cta_warps.get_mut(t.cta) {
                tp.first_warp = *w;
                *w = w.saturating_add(tp.warps);
            }
        }
    }
    let block_warps = cta_warps.iter().copied().max().unwrap_or(1).max(1);
    if block_warps > 32 {
        problems.push(Problem::scenario("a CTA needs more than 32 warps"));
    }

    // Shared memory: per owner CTA, mbarriers first, then locations, in declaration order,
    // so the same declaration order in two CTAs gives the same offsets (multicast needs it).
    let wide = wgmma_operands(s);
    let mut smem = BTreeMap::new();
    let mut smem_bytes = 0;
    for cta in 0..s.ctas.len() {
        let mut at = 0u32;
        for m in s.mbarriers.iter().filter(|m| m.cta == cta) {
            smem.insert(m.name.clone(), at);
            at = at.saturating_add(8);
        }
        at = align(at, 128);
        for l in &s.locations {
            match l.space {
                Space::Shared(owner) if owner == cta => {
                    let bytes = if wide.contains(&l.name.as_str()) { WGMMA_OPERAND_BYTES } else { align(l.size.max(4), 128) };
                    smem.insert(l.name.clone(), at);
                    at = at.saturating_add(bytes);
                }
                Space::Shared(_) | Space::Global | Space::Tmem(_) => {}
            }
        }
        smem_bytes = smem_bytes.max(at);
    }
    if smem_bytes > 48 * 1024 {
        problems.push(Problem::scenario(format!("the shared locations need {smem_bytes} bytes; the harness keeps to 48 KiB")));
    }

    // Global memory: one 128-byte line (or more) per location, so L1 lines are not shared.
    let mut global = BTreeMap::new();
    let mut words = 0u32;
    for l in &s.locations {
        if l.alias.is_some() {
            problems.push(Problem::location(
                &l.name,
                format!("`{}` is an alias through another proxy; texture, surface and constant proxies are not generated", l.name),
            ));
            continue;
        }
        match l.space {
            Space::Global => {
                global.insert(l.name.clone(), words);
                words = words.saturating_add(align(l.size.max(4), 128) / 4);
            }
            Space::Tmem(_) => problems.push(Problem::location(
                &l.name,
                format!("`{}` lives in tensor memory, which needs Blackwell (sm_100a); the harness targets Hopper (sm_90a)", l.name),
            )),
            Space::Shared(_) => {}
        }
        if i32::try_from(l.init).is_err() {
            problems.push(Problem::scenario(format!("`{}` starts at {}, outside 32 bits", l.name, l.init)));
        }
    }

    if words > MAX_GLOBAL_WORDS {
        problems.push(Problem::scenario("the global locations need more than 4 MiB per instance"));
    }

    let mut slots = Vec::new();
    for (t, tp) in s.threads.iter().zip(threads.iter_mut()) {
        for r in tp.regs.iter_mut().filter(|r| !r.opaque) {
            r.slot = Some(slots.len());
            slots.push((t.name.clone(), r.name.clone()));
        }
    }
    if slots.len() > 64 {
        problems.push(Problem::scenario("more than 64 registers to record"));
    }

    let mut cluster_phases = Vec::new();
    for ctas in &cluster_ctas {
        let counts: Vec<usize> = s
            .threads
            .iter()
            .filter(|t| ctas.contains(&t.cta))
            .map(|t| t.program.iter().filter(|i| matches!(i, Instr::ClusterArrive { .. })).count())
            .collect();
        let first = counts.first().copied().unwrap_or(0);
        if counts.iter().any(|&c| c != first) {
            problems.push(Problem::scenario(
                "threads of one cluster pass `barrier.cluster.arrive` different numbers of times; the GPU would hang",
            ));
        }
        let branches = s.threads.iter().filter(|t| ctas.contains(&t.cta)).any(|t| t.program.iter().any(|i| matches!(i, Instr::Branch { .. })));
        if first > 0 && branches {
            problems.push(Problem::scenario("`barrier.cluster` together with branches: the harness cannot count its phases"));
        }
        cluster_phases.push(u32::try_from(first).unwrap_or(0));
    }

    if problems.is_empty() {
        Ok(Plan {
            cluster_size,
            rank,
            cluster_ctas,
            threads,
            cta_warps,
            block_warps,
            smem,
            smem_bytes: smem_bytes.max(16),
            global,
            global_words: words.max(1),
            slots,
            cluster_phases,
        })
    } else {
        Err(problems)
    }
}
