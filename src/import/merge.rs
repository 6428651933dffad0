//! Lanes to scenario threads. The lanes of a warp (of a warpgroup, when it issues wgmma)
//! become one thread when that hides no ordering: no instruction only some lanes run sits,
//! without a barrier all of them pass (`bar.warp.sync`, `bar.sync`, a cluster barrier)
//! between, on the side of another lanes' instruction where program order would order
//! them (`ordering_matters`: a release after their accesses, a wait before anything, a
//! copy after their accesses of its bytes). Otherwise each set of lanes that runs the same
//! instructions becomes a thread of its own, and `bar.warp.sync` becomes a named barrier
//! among them.

use std::collections::{BTreeSet, HashMap};

use super::error::{ErrorKind, ImportError};
use super::exec::{Class, Event, Obj, Op, Span};

/// One instruction of a scenario thread, objects still unnamed.
#[derive(Clone, Debug)]
pub struct Step {
    pub line: usize,
    pub op: Op,
    /// Arrivals an arrive stands for (lanes × the arrive's count).
    pub count: u32,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub cta: u32,
    /// `w3`, `wg1`, `w0_l0-0`.
    pub name: String,
    pub lanes: u32,
    pub steps: Vec<Step>,
}

type Key = (usize, u32);

/// Whether an op ends with every lane's earlier accesses ordered before every lane's later ones.
fn is_full_barrier(op: &Op) -> bool {
    op.class == Class::WarpBarrier || op.text.starts_with("bar.sync") || op.text.starts_with("barrier.cluster.wait")
}

/// The identity of an op when lanes are grouped: data accesses of one region at any bytes
/// are one instruction of the merged thread.
fn identity(op: &Op) -> (String, Vec<Obj>, Class) {
    let objs = op
        .objs
        .iter()
        .map(|o| match (op.class, o) {
            (Class::Data, Obj::Mem { span, .. }) => Obj::Mem { span: Span { start: 0, len: 0, exact: true, ..*span }, width: None },
            _ => *o,
        })
        .collect();
    (op.text.clone(), objs, op.class)
}

/// Unites the ops of several lanes at one key: data bytes joined, arrivals added.
fn unite(ops: &[&Op], lanes: u32) -> (Op, u32) {
    let first = ops[0].clone();
    let mut objs = first.objs.clone();
    for op in &ops[1..] {
        for (slot, o) in objs.iter_mut().zip(&op.objs) {
            if let (Obj::Mem { span: a, width: wa }, Obj::Mem { span: b, .. }) = (*slot, o) {
                let start = a.start.min(b.start);
                let end = (a.start + a.len).max(b.start + b.len);
                *slot = Obj::Mem { span: Span { start, len: end - start, exact: a.exact && b.exact, ..a }, width: wa };
            }
        }
    }
    let count = match first.class {
        Class::Arrive(c) => c.saturating_mul(lanes),
        _ => 1,
    };
    (Op { objs, ..first }, count)
}

/// The keys of all lanes in one program order consistent with each lane's.
fn order(lanes: &[Vec<Event>]) -> Result<Vec<Key>, ImportError> {
    let mut first_seen: HashMap<Key, usize> = HashMap::new();
    let mut succ: HashMap<Key, BTreeSet<Key>> = HashMap::new();
    let mut indeg: HashMap<Key, usize> = HashMap::new();
    let mut n = 0usize;
    for events in lanes {
        let mut prev: Option<Key> = None;
        for e in events {
            let k = (e.line, e.occ);
            first_seen.entry(k).or_insert_with(|| {
                n += 1;
                n
            });
            indeg.entry(k).or_insert(0);
            if let Some(p) = prev {
                if succ.entry(p).or_default().insert(k) {
                    *indeg.entry(k).or_insert(0) += 1;
                }
            }
            prev = Some(k);
        }
    }
    let mut ready: BTreeSet<(usize, Key)> = indeg.iter().filter(|(_, d)| **d == 0).map(|(k, _)| (first_seen[k], *k)).collect();
    let mut out = Vec::with_capacity(indeg.len());
    while let Some(&(rank, k)) = ready.iter().next() {
        ready.remove(&(rank, k));
        out.push(k);
        for s in succ.get(&k).into_iter().flatten() {
            if let Some(d) = indeg.get_mut(s) {
                *d -= 1;
                if *d == 0 {
                    ready.insert((first_seen[s], *s));
                }
            }
        }
    }
    if out.len() != indeg.len() {
        let line = indeg.iter().filter(|(k, _)| !out.contains(k)).map(|(k, _)| k.0).min().unwrap_or(0);
        return Err(ImportError::at(
            line,
            ErrorKind::Unsupported("lanes of one warp run these instructions in different orders".into()),
        ));
    }
    Ok(out)
}

/// Merges the lanes of one unit (a warp or a warpgroup). `lane_ids[i]` is the lane
/// number within the unit of `lanes[i]`; `barrier_id` is a free named-barrier id for
/// a split unit's `bar.warp.sync`.
pub fn merge(cta: u32, name: &str, lanes: &[Vec<Event>], barrier_id: &mut dyn FnMut() -> Option<u32>) -> Result<Vec<Thread>, ImportError> {
    let total = lanes.len();
    let keys = order(lanes)?;
    let pos: HashMap<Key, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    // At each key, the ops grouped by identity with the lanes running them.
    let mut at: Vec<Vec<(Vec<usize>, Vec<&Op>)>> = vec![Vec::new(); keys.len()];
    let mut ids: Vec<Vec<(String, Vec<Obj>, Class)>> = vec![Vec::new(); keys.len()];
    for (l, events) in lanes.iter().enumerate() {
        for e in events {
            let i = pos[&(e.line, e.occ)];
            let id = identity(&e.op);
            match ids[i].iter().position(|x| *x == id) {
                Some(g) => {
                    at[i][g].0.push(l);
                    at[i][g].1.push(&e.op);
                }
                None => {
                    ids[i].push(id);
                    at[i].push((vec![l], vec![&e.op]));
                }
            }
        }
    }
    let uniform_barrier: Vec<bool> =
        at.iter().map(|groups| groups.len() == 1 && groups[0].0.len() == total && is_full_barrier(groups[0].1[0])).collect();
    let one_thread = mergeable(&at, &uniform_barrier, total);
    let lines: Vec<usize> = keys.iter().map(|k| k.0).collect();
    if one_thread {
        let mut steps = Vec::new();
        for (i, groups) in at.iter().enumerate() {
            for (ls, ops) in groups {
                if ops[0].class == Class::WarpBarrier {
                    continue;
                }
                let (op, count) = unite(ops, ls.len() as u32);
                steps.push(Step { line: lines[i], op, count });
            }
        }
        return Ok(vec![Thread { cta, name: name.to_string(), lanes: total as u32, steps }]);
    }
    // Split: lanes with the same instructions form a thread.
    let mut signature: Vec<Vec<(usize, usize)>> = vec![Vec::new(); total];
    for (i, groups) in at.iter().enumerate() {
        for (g, (ls, _)) in groups.iter().enumerate() {
            for &l in ls {
                signature[l].push((i, g));
            }
        }
    }
    // (the (key, group) pairs a set of lanes runs, those lanes)
    type Part = (Vec<(usize, usize)>, Vec<usize>);
    let mut parts: Vec<Part> = Vec::new();
    for (l, sig) in signature.into_iter().enumerate() {
        match parts.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, ls)) => ls.push(l),
            None => parts.push((sig, vec![l])),
        }
    }
    let needs_barrier = at.iter().any(|g| g.iter().any(|(ls, ops)| ops[0].class == Class::WarpBarrier || (ls.len() == total && is_tmem_collective(ops[0]))));
    let bar = if needs_barrier {
        Some(barrier_id().ok_or_else(|| {
            ImportError::at(0, ErrorKind::Unsupported(format!("{name}: no free named barrier id for its `bar.warp.sync`")))
        })?)
    } else {
        None
    };
    let mut threads = Vec::new();
    for (sig, ls) in parts {
        let set: BTreeSet<usize> = ls.iter().copied().collect();
        let mut steps = Vec::new();
        for (i, g) in sig {
            let (glanes, ops) = &at[i][g];
            let mine: Vec<&Op> = glanes.iter().zip(ops).filter(|(l, _)| set.contains(l)).map(|(_, o)| *o).collect();
            if mine.is_empty() {
                continue;
            }
            if mine[0].class == Class::WarpBarrier {
                let id = bar.unwrap_or(15);
                steps.push(Step { line: lines[i], op: Op { text: format!("bar.sync {id}, {total}"), objs: vec![], class: Class::Sync }, count: 1 });
                continue;
            }
            // A warp's TMEM allocation is one operation of all its lanes: the thread of
            // its lowest lane runs it, the others meet it at a named barrier (after an
            // alloc, before a dealloc or relinquish), as `.sync.aligned` converges them.
            if glanes.len() == total && is_tmem_collective(mine[0]) {
                let id = bar.unwrap_or(15);
                let meet = Step { line: lines[i], op: Op { text: format!("bar.sync {id}, {total}"), objs: vec![], class: Class::Sync }, count: 1 };
                let alloc = mine[0].text.starts_with("tcgen05.alloc");
                if !alloc {
                    steps.push(meet.clone());
                }
                if set.contains(&glanes[0]) {
                    let (op, count) = unite(&mine, mine.len() as u32);
                    steps.push(Step { line: lines[i], op, count });
                }
                if alloc {
                    steps.push(meet);
                }
                continue;
            }
            let (op, count) = unite(&mine, mine.len() as u32);
            steps.push(Step { line: lines[i], op, count });
        }
        let first = ls[0];
        let last = ls[ls.len() - 1];
        let label = if first == last { format!("{name}_l{first}") } else { format!("{name}_l{first}_{last}") };
        threads.push(Thread { cta, name: label, lanes: ls.len() as u32, steps });
    }
    Ok(threads)
}

/// `tcgen05.alloc`/`dealloc`/`relinquish_alloc_permit`: warp-collective, issued once.
fn is_tmem_collective(op: &Op) -> bool {
    ["tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit"].iter().any(|p| op.text.starts_with(p))
}

/// A lane's data access another lane's signal may need ordered: shared memory, or a
/// write. A global load reads what the kernel's launch gave it (parameters, inputs):
/// the importer orders nothing for it.
fn orderable(op: &Op) -> bool {
    op.class == Class::Data
        && (!op.text.starts_with("ld")
            || op.objs.iter().any(|o| matches!(o, Obj::Mem { span, .. } if matches!(span.region, super::exec::Region::Shared { .. }))))
}

/// What an op of some lanes does to the ordering the merged thread's program order would
/// give it, when lanes become one thread (`docs/import.md`, "Lanes to threads").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A data access: only accesses of the same bytes care where it sits.
    Data,
    /// A release arrive: orders the thread's earlier operations before it, gives the
    /// thread nothing, never blocks.
    Release,
    /// A wait: orders the thread's later operations after what it acquires, and blocks them.
    Acquire,
    /// A bulk copy into shared memory completing on an mbarrier: its agent starts from
    /// what the thread knows at issue, and its completion publishes only its own writes
    /// (reference §6.2, §9 item 1), so only the thread's earlier operations reach it.
    Copy,
    /// `mbarrier.expect_tx`: relaxed, orders nothing and never blocks.
    Neutral,
    /// Anything else (fences, tcgen05 operations, per-thread groups, collectives):
    /// ordered both ways with everything.
    Other,
}

fn role(op: &Op) -> Role {
    let text = op.text.as_str();
    match op.class {
        Class::Data => Role::Data,
        // `cp.async.mbarrier.arrive` tracks the thread's own earlier copies.
        Class::Arrive(_) if text.starts_with("cp.async.mbarrier.arrive") => Role::Other,
        Class::Arrive(_) => Role::Release,
        Class::WarpBarrier => Role::Other,
        Class::Sync if text.starts_with("wait ") => Role::Acquire,
        Class::Sync if text.starts_with("mbarrier.arrive") => Role::Release,
        Class::Sync if text.starts_with("mbarrier.expect_tx") => Role::Neutral,
        Class::Sync if text.starts_with("cp.async.bulk") && text.contains(".mbarrier::complete_tx") => Role::Copy,
        Class::Sync => Role::Other,
    }
}

/// Whether program order from `earlier` (of some lanes) to `later` (of others), which the
/// merged thread would add, changes what the checker can see.
fn ordering_matters(earlier: Role, later: Role, same_bytes: bool) -> bool {
    use Role::*;
    match (earlier, later) {
        // A wait orders everything after it, and holds it back.
        (Acquire, _) => true,
        (Neutral, _) | (_, Neutral) => false,
        (Data, Data) => same_bytes,
        // What a thread did before a release or a copy's issue reaches their observers.
        (Data, Release) => true,
        (Data, Copy) => same_bytes,
        (Other, _) | (_, Other) => true,
        // A release gives the thread nothing, and a copy's later completion publishes
        // only its own writes: what follows them in the thread gains no ordering; a data
        // access gives the thread nothing a later wait would need.
        (Release | Copy, Data | Release | Copy | Acquire) | (Data, Acquire) => false,
    }
}

/// Whether two lane groups' accesses may touch the same bytes (an inexact span may touch
/// any byte of its region).
fn share_bytes(a: &[&Op], b: &[&Op]) -> bool {
    let spans = |ops: &[&Op]| -> Vec<Span> {
        ops.iter().flat_map(|op| op.objs.iter().filter_map(|o| if let Obj::Mem { span, .. } = o { Some(*span) } else { None })).collect()
    };
    let (sa, sb) = (spans(a), spans(b));
    sa.iter().any(|x| {
        sb.iter().any(|y| x.region == y.region && (!x.exact || !y.exact || (x.start < y.start + y.len.max(1) && y.start < x.start + x.len.max(1))))
    })
}

/// Whether one thread may stand for all the unit's lanes: for every op only some lanes
/// run, no other lanes' op that its place in program order would order differently
/// (`ordering_matters`) sits on either side of it without a barrier all lanes pass between
/// them. Ops every lane runs alike (all but data accesses, whose bytes differ by lane) are
/// each lane's own and order nothing new.
fn mergeable(at: &[Vec<(Vec<usize>, Vec<&Op>)>], barrier: &[bool], total: usize) -> bool {
    // (position, lanes, ops, role) of every op that can matter to another lane's op.
    let others: Vec<(usize, &Vec<usize>, &Vec<&Op>, Role)> = at
        .iter()
        .enumerate()
        .flat_map(|(i, groups)| groups.iter().map(move |(ls, ops)| (i, ls, ops, role(ops[0]))))
        .filter(|(_, ls, ops, role)| match role {
            Role::Data => orderable(ops[0]),
            _ => ls.len() < total && ops[0].class != Class::WarpBarrier,
        })
        .collect();
    for (i, groups) in at.iter().enumerate() {
        for (ls, ops) in groups {
            if ls.len() == total || ops[0].class == Class::WarpBarrier {
                continue;
            }
            let mine = role(ops[0]);
            for (j, dls, dops, theirs) in &others {
                if *j == i || dls.iter().all(|l| ls.contains(l)) {
                    continue;
                }
                let (lo, hi) = if *j < i { (*j, i) } else { (i, *j) };
                if barrier[lo + 1..hi].iter().any(|b| *b) {
                    continue;
                }
                let same_bytes = share_bytes(ops, dops);
                let matters = if *j < i { ordering_matters(*theirs, mine, same_bytes) } else { ordering_matters(mine, *theirs, same_bytes) };
                if matters {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether a step only meets other threads at a barrier (no memory, no mbarrier).
fn barrier_only(step: &Step) -> bool {
    step.op.objs.is_empty() && (step.op.text.starts_with("bar.sync") || step.op.text.starts_with("barrier.cluster."))
}

/// A `fence.mbarrier_init` orders only the fencing thread's own earlier `mbarrier.init`s
/// (reference §4.2): in a thread that makes none (CUTLASS runs it in every warp) it orders
/// nothing.
fn init_fence(step: &Step) -> bool {
    step.op.text.starts_with("fence.mbarrier_init")
}

/// Folds a thread that does nothing but pass CTA or cluster barriers (and run init fences,
/// which order nothing in a thread that initialises no barrier) into a thread of its CTA
/// passing the same barriers in the same order: its lanes join that thread's, so every
/// barrier still counts them, and the state space loses a thread that never touches
/// memory. Returns what was folded where, for the header.
pub fn fold_barrier_only(threads: &mut Vec<Thread>) -> Vec<String> {
    let mut notes = Vec::new();
    let mut i = 0;
    while i < threads.len() {
        let steps = &threads[i].steps;
        let idle = steps.iter().any(barrier_only) && steps.iter().all(|s| barrier_only(s) || init_fence(s));
        let fences = steps.iter().filter(|s| init_fence(s)).count();
        let pattern: Vec<(&str, u32)> = steps.iter().filter(|s| barrier_only(s)).map(|s| (s.op.text.as_str(), s.count)).collect();
        let host = idle
            .then(|| {
                (0..threads.len()).find(|&j| {
                    j != i
                        && threads[j].cta == threads[i].cta
                        && threads[j].steps.iter().any(|s| !barrier_only(s))
                        && threads[j].steps.iter().filter(|s| barrier_only(s)).map(|s| (s.op.text.as_str(), s.count)).eq(pattern.iter().copied())
                })
            })
            .flatten();
        match host {
            Some(j) => {
                let lanes = threads[i].lanes;
                let what = if fences > 0 { "barriers, and init fences with no init to order" } else { "barriers only" };
                notes.push(format!("cta{} {} ({} lanes, {what}) into {}", threads[i].cta, threads[i].name, lanes, threads[j].name));
                threads[j].lanes += lanes;
                threads.remove(i);
            }
            None => i += 1,
        }
    }
    notes
}

/// A plain (weak) global load, the only kind of step `drop_unwritten_loads` may drop.
fn plain_global_load(op: &Op) -> bool {
    op.class == Class::Data
        && op.text.starts_with("ld.global")
        && ![".acquire", ".relaxed", ".volatile", ".mmio"].iter().any(|q| op.text.contains(q))
        && op.objs.iter().all(|o| matches!(o, Obj::Mem { span, .. } if !matches!(span.region, super::exec::Region::Shared { .. } | super::exec::Region::Tmem { .. })))
}

/// Whether `text` names register `reg` (a whole word).
fn names_register(text: &str, reg: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| w == reg)
}

/// Drops each plain global load of memory no instruction of the launch writes (what the
/// launch gave: CUTLASS's every warp loads a field of its `Params` struct) whose register
/// nothing after it reads. With no write, it races with nothing, reads the initial value
/// in every execution and, being weak, orders nothing. Returns the PTX lines dropped and
/// how many loads.
pub fn drop_unwritten_loads(threads: &mut [Thread]) -> (Vec<usize>, usize) {
    let touched: BTreeSet<super::exec::Region> = threads
        .iter()
        .flat_map(|t| &t.steps)
        .filter(|s| !plain_global_load(&s.op))
        .flat_map(|s| s.op.objs.iter().filter_map(|o| if let Obj::Mem { span, .. } = o { Some(span.region) } else { None }))
        .collect();
    let mut lines = BTreeSet::new();
    let mut dropped = 0usize;
    for t in threads.iter_mut() {
        let mut i = 0;
        while i < t.steps.len() {
            let op = &t.steps[i].op;
            let unwritten = plain_global_load(op)
                && op.objs.iter().all(|o| matches!(o, Obj::Mem { span, .. } if !touched.contains(&span.region)));
            let reg = op.text.split_whitespace().nth(1).map(|r| r.trim_end_matches(','));
            let unread = reg.is_some_and(|r| !t.steps[i + 1..].iter().any(|s| names_register(&s.op.text, r)));
            if unwritten && unread {
                lines.insert(t.steps[i].line);
                dropped += 1;
                t.steps.remove(i);
            } else {
                i += 1;
            }
        }
    }
    (lines.into_iter().collect(), dropped)
}
