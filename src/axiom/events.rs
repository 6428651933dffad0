//! From a scenario to events: where each name lives, and every run of each thread's
//! program (a *trace*) for a given set of values its reads may return.
//!
//! A thread's trace fixes the value of each read; which write a read reads from is chosen
//! later (`search.rs`). Loops are unrolled: an instruction runs at most
//! [`Limits::max_visits`] times in one trace, and a longer run is cut (`Traces::cut`). A
//! spin (`wait ...`) is one successful attempt: failed attempts only read, and removing a
//! read from a consistent execution leaves it consistent, so they add no outcome. Asked for
//! hangs, it also gives the runs that never end ([`End`]): one round of a side-effect-free
//! spin loop (or one failed `wait ld`) that goes round again, and a stop at each `bar.sync`
//! and `barrier.cluster.wait`.

use std::collections::BTreeMap;

use super::{AxiomError, Limits};
use crate::model::{
    BarKind, CmpOp, Fence, FenceSem, Instr, MbarKind, Operand, Proxy, ProxyKind, Scenario,
    Scope, Sem,
};

/// The proxy tags of the cat model (`GEN`, `SUR`, `TEX`, `CON`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Px {
    Gen,
    Sur,
    Tex,
    Con,
}

/// Memory order tags (`WEAK`, `RLX`, `ACQ`, `REL`) of one memory event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    Weak,
    Relaxed,
    Acquire,
    Release,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceKind {
    Sc,
    AcqRel,
    Acquire,
    Release,
    /// `fence.proxy.{surface,texture,constant}`: tagged with that proxy.
    Proxy(Px),
    /// `fence.proxy.alias` (`ALIAS`).
    Alias,
}

/// A barrier event: which meeting it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    /// `bar.sync`/`bar.arrive id`: the `generation`-th use of `id` by this thread.
    Cta { id: i64, generation: u32, arrive_only: bool },
    /// `barrier.cluster.arrive` (`release` unless `.relaxed`) or `.wait`.
    Cluster { generation: u32, wait: bool, release: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Read,
    Write,
    Fence(FenceKind),
    Barrier(BarrierKind),
}

/// One event of a trace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ev {
    pub kind: Kind,
    /// Index of the instruction in the thread's program.
    pub instr: usize,
    /// Physical location (memory events; `usize::MAX` otherwise).
    pub phys: usize,
    /// Virtual location by generic address, Dat3M's `vloc`.
    pub virt: usize,
    pub value: i64,
    pub proxy: Option<Px>,
    pub order: Order,
    pub scope: Option<Scope>,
    /// For the write of an RMW: the index (in the trace) of its read.
    pub rmw_read: Option<usize>,
    /// Reads of this trace this event depends on through data (`data`).
    pub data: u128,
    /// Reads of this trace a branch before this event depends on (`ctrl`).
    pub ctrl: u128,
}

/// How a run of a thread ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// It ran to the end of its program (or `exit`).
    Finished,
    /// It spins forever: the events from index `round` on are one round of a side-effect-free
    /// spin loop (or one failed attempt of a `wait`) that goes round again at instruction `at`
    /// (the loop's backward branch, or the `wait`).
    Stuck { round: usize, at: usize },
    /// It waits forever at its last event, a `bar.sync` or `barrier.cluster.wait`.
    Blocked,
}

/// One run of a thread's program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Trace {
    pub events: Vec<Ev>,
    /// Final register values.
    pub regs: BTreeMap<String, i64>,
    /// [`End::Finished`] unless [`traces`] was asked for the runs that hang.
    pub end: End,
}

/// Where a scenario's names live.
#[derive(Clone, Debug)]
pub struct Places {
    /// Per scenario location: (physical location, generic address).
    pub locations: Vec<(usize, usize)>,
    /// Per mbarrier: (physical location, expected count).
    pub mbarriers: Vec<(usize, u32)>,
    /// Initial value per physical location.
    pub init: Vec<i64>,
    /// Per thread: (CTA, cluster, GPU).
    pub threads: Vec<(usize, usize, u32)>,
}

impl Places {
    pub fn of(scenario: &Scenario) -> Result<Places, AxiomError> {
        let n = scenario.locations.len();
        let mut locations = Vec::with_capacity(n);
        for (index, loc) in scenario.locations.iter().enumerate() {
            let mut phys = index;
            let mut seen = 0;
            while let Some(alias) = &scenario.locations[phys].alias {
                phys = scenario.location(&alias.target).ok_or_else(|| {
                    AxiomError::Invalid(format!("`{}` aliases `{}`, which is not declared", loc.name, alias.target))
                })?;
                seen += 1;
                if seen > n {
                    return Err(AxiomError::Invalid(format!("the aliases of `{}` form a cycle", loc.name)));
                }
            }
            // Dat3M's generic address: a generic alias is its own, a proxy alias takes its
            // target's (`VirtualMemoryObject`, `ProgramBuilder.initVirLocEqLocAlias*`).
            let virt = match &loc.alias {
                Some(alias) if alias.proxy != Proxy::Generic => scenario.location(&alias.target).unwrap_or(index),
                _ => index,
            };
            locations.push((phys, virt));
        }
        let mut init: Vec<i64> = scenario.locations.iter().map(|l| l.init).collect();
        for (index, &(phys, _)) in locations.iter().enumerate() {
            init[index] = scenario.locations[phys].init;
        }
        let mut mbarriers = Vec::new();
        for bar in &scenario.mbarriers {
            let Some(count) = bar.count.filter(|c| *c > 0) else {
                return Err(AxiomError::outside_decl(format!(
                    "mbarrier `{}` starts uninitialised (only declared counts are in the fragment)",
                    bar.name
                )));
            };
            mbarriers.push((init.len(), count));
            init.push(0);
        }
        let mut threads = Vec::new();
        for t in &scenario.threads {
            let cluster = scenario.cluster_of(t.cta).ok_or_else(|| {
                AxiomError::Invalid(format!("thread `{}` sits in a CTA that does not exist", t.name))
            })?;
            let gpu = scenario.gpu_of(t.cta).unwrap_or(0);
            threads.push((t.cta, cluster, gpu));
        }
        Ok(Places { locations, mbarriers, init, threads })
    }

    /// Whether `scope`, executed by thread `a`, includes thread `b` (`canSyncAtScope`).
    pub fn covers(&self, a: usize, scope: Scope, b: usize) -> bool {
        let (ta, tb) = (self.threads[a], self.threads[b]);
        match scope {
            Scope::Cta => ta.0 == tb.0,
            Scope::Cluster => ta.1 == tb.1,
            Scope::Gpu => ta.2 == tb.2,
            Scope::Sys => true,
        }
    }
}

/// The values each physical location may hold, each with the writes it was computed
/// through (one bit per write instruction outside loops, `write_bits`): a chain of
/// writes through data dependencies and reads-from runs each such write at most once
/// in a consistent execution (cat:103), so a value needing one twice is no value.
pub type Domains = Vec<Vec<(i64, u128)>>;

/// Every trace of one thread, given the values reads may return.
pub struct Traces {
    pub traces: Vec<Trace>,
    /// Values the thread's writes may write, per physical location, with their chains.
    pub written: Vec<Vec<(i64, u128)>>,
    /// Some run went past the unrolling bound and was cut.
    pub cut: bool,
}

#[derive(Clone)]
struct Val {
    value: i64,
    taint: u128,
}

#[derive(Clone)]
struct State {
    pc: usize,
    regs: BTreeMap<String, Val>,
    events: Vec<Ev>,
    /// Per event: the writes its value was computed through (reads: the value's chain).
    chains: Vec<u128>,
    ctrl: u128,
    visits: Vec<u32>,
    /// Uses so far per `bar` id, cluster arrives and cluster waits.
    bar_uses: BTreeMap<i64, u32>,
    cluster_arrives: u32,
    cluster_waits: u32,
    /// Per label, how many events the run had when it last passed it: where the current
    /// round of a loop starting there began.
    rounds: BTreeMap<usize, usize>,
}

struct Runner<'a> {
    scenario: &'a Scenario,
    places: &'a Places,
    domains: &'a Domains,
    limits: &'a Limits,
    thread: usize,
    labels: BTreeMap<&'a str, usize>,
    /// Backward branches closing a side-effect-free loop (`spin_loops`).
    spins: Vec<usize>,
    /// Whether runs that hang (stuck in a spin, blocked at a barrier) are wanted too.
    hangs: bool,
    /// Per instruction, its bit in value chains (0 inside a loop or for a non-write).
    bits: &'a [u128],
    seen: std::collections::HashSet<Trace, super::rel::Words>,
    out: Traces,
}

/// Enumerates the traces of thread `thread`; with `hangs`, also the runs that never end
/// ([`End::Stuck`], [`End::Blocked`]).
pub fn traces(
    scenario: &Scenario,
    places: &Places,
    domains: &Domains,
    limits: &Limits,
    thread: usize,
    bits: &[u128],
    hangs: bool,
) -> Result<Traces, AxiomError> {
    let program = &scenario.threads[thread].program;
    let mut labels = BTreeMap::new();
    for (i, instr) in program.iter().enumerate() {
        if let Instr::Label(name) = instr {
            labels.insert(name.as_str(), i);
        }
    }
    let spins = spin_loops(program, &labels);
    let mut runner = Runner {
        scenario,
        places,
        domains,
        limits,
        thread,
        labels,
        spins,
        hangs,
        bits,
        seen: std::collections::HashSet::default(),
        out: Traces { traces: Vec::new(), written: vec![Vec::new(); domains.len()], cut: false },
    };
    let start = State {
        pc: 0,
        regs: BTreeMap::new(),
        events: Vec::new(),
        chains: Vec::new(),
        ctrl: 0,
        visits: vec![0; program.len()],
        bar_uses: BTreeMap::new(),
        cluster_arrives: 0,
        cluster_waits: 0,
        rounds: BTreeMap::new(),
    };
    runner.run(start)?;
    Ok(runner.out)
}

/// The backward branches whose loop body only reads memory, fences and computes
/// registers it does not carry from one round to the next. A round that loops again then
/// only adds reads (and fences) whose values nothing after the loop sees; removing them
/// from a consistent execution leaves it consistent, since every axiom only gets easier
/// with fewer events. Dat3M turns such loops into assumptions the same way.
fn spin_loops(program: &[Instr], labels: &BTreeMap<&str, usize>) -> Vec<usize> {
    let mut spins = Vec::new();
    for (index, instr) in program.iter().enumerate() {
        let Instr::Branch { target, .. } = instr else { continue };
        let Some(&start) = labels.get(target.as_str()) else { continue };
        if start >= index {
            continue;
        }
        let body = &program[start..=index];
        let mut written: Vec<&str> = Vec::new();
        let mut carried = false;
        let mut pure = true;
        let all_written: Vec<&str> = body.iter().flat_map(|i| i.facts().writes.clone()).collect();
        for i in body {
            let plain = match i.unwrapped() {
                Instr::Label(_) | Instr::Ld { .. } | Instr::Mov { .. } | Instr::Add { .. } | Instr::SetP { .. } | Instr::Branch { .. } => true,
                Instr::Fence(Fence::Thread { restrict: None, .. }) => true,
                Instr::Mbar(op) => matches!(op.kind, MbarKind::Wait { .. }),
                Instr::Wait { instr, .. } => matches!(instr.as_ref(), Instr::Ld { .. }) || matches!(instr.as_ref(), Instr::Mbar(op) if matches!(op.kind, MbarKind::Wait { .. })),
                _ => false,
            };
            pure &= plain;
            let facts = i.facts();
            for r in &facts.reads {
                if all_written.contains(r) && !written.contains(r) {
                    carried = true;
                }
            }
            written.extend(facts.writes.iter().copied());
        }
        if pure && !carried {
            spins.push(index);
        }
    }
    spins
}

/// Whether a run of `program` may spin for ever where the axioms look for hangs: it has a
/// side-effect-free spin loop or a `wait ld`.
pub fn may_spin(program: &[Instr]) -> bool {
    let mut labels = BTreeMap::new();
    for (i, instr) in program.iter().enumerate() {
        if let Instr::Label(name) = instr {
            labels.insert(name.as_str(), i);
        }
    }
    !spin_loops(program, &labels).is_empty() || program.iter().any(|i| matches!(i.unwrapped(), Instr::Wait { instr, .. } if matches!(instr.as_ref(), Instr::Ld { .. })))
}

/// Whether instruction `at` lies inside a loop (between a label and a branch back to it).
fn in_loop(program: &[Instr], at: usize) -> bool {
    let mut labels = BTreeMap::new();
    for (i, instr) in program.iter().enumerate() {
        if let Instr::Label(name) = instr {
            labels.insert(name.as_str(), i);
        }
    }
    program.iter().enumerate().any(|(b, instr)| match instr.unwrapped() {
        Instr::Branch { target, .. } => labels.get(target.as_str()).is_some_and(|&start| start <= at && at <= b),
        _ => false,
    })
}

fn writes_memory(instr: &Instr) -> bool {
    match instr.unwrapped() {
        Instr::St { .. } | Instr::Atom { .. } => true,
        Instr::Mbar(op) => matches!(op.kind, MbarKind::Arrive { .. }),
        _ => false,
    }
}

/// Each thread's chain bits (`Domains`), per instruction: one bit per write instruction
/// outside loops, while bits last.
pub fn write_bits(scenario: &Scenario) -> Vec<Vec<u128>> {
    let mut next = 0u32;
    scenario
        .threads
        .iter()
        .map(|t| {
            (0..t.program.len())
                .map(|at| {
                    if next < 128 && writes_memory(&t.program[at]) && !in_loop(&t.program, at) {
                        next += 1;
                        1u128 << (next - 1)
                    } else {
                        0
                    }
                })
                .collect()
        })
        .collect()
}

/// How many writes with computed values one run of `program` may perform: `st` of a
/// register, RMWs and mbarrier arrives, counted `max_visits` times inside a loop.
pub fn computed_writes(program: &[Instr], limits: &Limits) -> usize {
    let mut labels = BTreeMap::new();
    for (i, instr) in program.iter().enumerate() {
        if let Instr::Label(name) = instr {
            labels.insert(name.as_str(), i);
        }
    }
    let in_loop = |at: usize| {
        program.iter().enumerate().any(|(b, instr)| match instr.unwrapped() {
            Instr::Branch { target, .. } => labels.get(target.as_str()).is_some_and(|&start| start <= at && at <= b),
            _ => false,
        })
    };
    program
        .iter()
        .enumerate()
        .filter(|(_, i)| match i.unwrapped() {
            Instr::St { src: Operand::Reg(_), .. } | Instr::Atom { .. } => true,
            Instr::Mbar(op) => matches!(op.kind, MbarKind::Arrive { .. }),
            _ => false,
        })
        .map(|(at, _)| if in_loop(at) { limits.max_visits as usize } else { 1 })
        .sum()
}

fn outside(thread: &str, index: usize, instr: &Instr, why: &str) -> AxiomError {
    AxiomError::Outside { thread: thread.to_string(), index, instr: instr_name(instr), why: why.to_string() }
}

/// A short name for an instruction kind, for "outside the fragment" answers.
pub fn instr_name(instr: &Instr) -> String {
    match instr {
        Instr::Ld { .. } => "ld",
        Instr::St { .. } => "st",
        Instr::Atom { dst: Some(_), .. } => "atom",
        Instr::Atom { dst: None, .. } => "red",
        Instr::Fence(Fence::Thread { .. }) => "fence",
        Instr::Fence(Fence::MbarrierInit) => "fence.mbarrier_init",
        Instr::Fence(Fence::Proxy(ProxyKind::Async { .. })) => "fence.proxy.async",
        Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { .. })) => "fence.proxy.async::generic",
        Instr::Fence(Fence::Proxy(ProxyKind::Tensormap { .. })) => "fence.proxy.tensormap::generic",
        Instr::Fence(Fence::Proxy(_)) => "fence.proxy",
        Instr::Bar { .. } => "bar",
        Instr::ClusterArrive { .. } => "barrier.cluster.arrive",
        Instr::ClusterWait => "barrier.cluster.wait",
        Instr::Mbar(_) => "mbarrier",
        Instr::CpAsync { .. } | Instr::CpAsyncCommit | Instr::CpAsyncWait { .. } | Instr::CpAsyncWaitAll => "cp.async",
        Instr::CpAsyncMbarArrive { .. } => "cp.async.mbarrier.arrive",
        Instr::Bulk { tensor: true, .. } => "cp.async.bulk.tensor",
        Instr::Bulk { .. } | Instr::BulkCommit | Instr::BulkWait { .. } => "cp.async.bulk",
        Instr::StAsync { .. } => "st.async",
        Instr::Wgmma(_) => "wgmma",
        Instr::Tc(_) => "tcgen05",
        Instr::Label(_) => "label",
        Instr::Branch { .. } => "bra",
        Instr::Mov { .. } => "mov",
        Instr::Add { .. } => "add",
        Instr::Wait { instr, .. } => return format!("wait {}", instr_name(instr)),
        Instr::Exit => "exit",
        Instr::Ranged { instr, .. } => return format!("{} with a byte offset", instr_name(instr)),
        Instr::Guarded { instr, .. } => return instr_name(instr),
        Instr::SetP { .. } => "setp",
    }
    .to_string()
}

fn ld_order(sem: Option<Sem>) -> Option<Order> {
    match sem {
        None | Some(Sem::Weak) => Some(Order::Weak),
        Some(Sem::Relaxed | Sem::Volatile | Sem::Mmio) => Some(Order::Relaxed),
        Some(Sem::Acquire) => Some(Order::Acquire),
        Some(Sem::Release | Sem::AcqRel) => None,
    }
}

fn st_order(sem: Option<Sem>) -> Option<Order> {
    match sem {
        None | Some(Sem::Weak) => Some(Order::Weak),
        Some(Sem::Relaxed | Sem::Volatile | Sem::Mmio) => Some(Order::Relaxed),
        Some(Sem::Release) => Some(Order::Release),
        Some(Sem::Acquire | Sem::AcqRel) => None,
    }
}

/// The scope of a strong access: as written, `.sys` for volatile/mmio, else `.gpu` (the
/// checker's reading of a missing scope).
fn access_scope(sem: Option<Sem>, scope: Option<Scope>, order: Order) -> Option<Scope> {
    match (order, sem) {
        (Order::Weak, _) => None,
        (_, Some(Sem::Volatile | Sem::Mmio)) => Some(scope.unwrap_or(Scope::Sys)),
        _ => Some(scope.unwrap_or(Scope::Gpu)),
    }
}

fn proxy_tag(proxy: Proxy) -> Option<Px> {
    match proxy {
        Proxy::Generic => Some(Px::Gen),
        Proxy::Surface => Some(Px::Sur),
        Proxy::Texture => Some(Px::Tex),
        Proxy::Constant => Some(Px::Con),
        Proxy::Async | Proxy::Tensormap => None,
    }
}

impl<'a> Runner<'a> {
    fn name(&self) -> &str {
        &self.scenario.threads[self.thread].name
    }

    fn operand(&self, s: &State, op: &Operand) -> Val {
        match op {
            Operand::Imm(v) => Val { value: *v, taint: 0 },
            Operand::Reg(r) => s.regs.get(r).cloned().unwrap_or(Val { value: 0, taint: 0 }),
        }
    }

    fn set(s: &mut State, reg: &str, v: Val) {
        if reg != "_" {
            s.regs.insert(reg.to_string(), v);
        }
    }

    fn location(&self, index: usize, instr: &Instr, name: &str) -> Result<(usize, usize), AxiomError> {
        self.scenario
            .location(name)
            .map(|l| self.places.locations[l])
            .ok_or_else(|| outside(self.name(), index, instr, &format!("`{name}` is not a declared location")))
    }

    fn mbarrier(&self, index: usize, instr: &Instr, name: &str) -> Result<(usize, u32), AxiomError> {
        self.scenario
            .mbarrier(name)
            .map(|m| self.places.mbarriers[m])
            .ok_or_else(|| outside(self.name(), index, instr, &format!("`{name}` is not a declared mbarrier")))
    }

    /// Whether `e` reads or writes an mbarrier's counter. Hangs on an mbarrier stay the
    /// explorer's, which counts phases exactly: here arrives are RMWs on a counter, atomic
    /// only when morally strong, so two arrives whose scopes do not cover each other may
    /// both read the same count, and a wait would look stuck although a real barrier counts
    /// every arrival.
    fn on_mbarrier(&self, e: &Ev) -> bool {
        matches!(e.kind, Kind::Read | Kind::Write) && self.places.mbarriers.iter().any(|&(phys, _)| phys == e.phys)
    }

    fn record_write(&mut self, phys: usize, value: i64, chain: u128) {
        let w = &mut self.out.written[phys];
        if !w.contains(&(value, chain)) {
            w.push((value, chain));
        }
    }

    fn push(s: &mut State, ev: Ev) -> usize {
        s.events.push(ev);
        s.chains.push(0);
        s.events.len() - 1
    }

    /// The chain of a value computed from the reads in `taint`.
    fn chain_of(s: &State, taint: u128) -> u128 {
        super::rel::members(taint).fold(0, |c, r| c | s.chains.get(r).copied().unwrap_or(0))
    }

    #[allow(clippy::too_many_arguments)]
    fn mem(&self, s: &State, kind: Kind, index: usize, loc: (usize, usize), value: i64, proxy: Option<Px>, order: Order, scope: Option<Scope>, data: u128) -> Ev {
        Ev { kind, instr: index, phys: loc.0, virt: loc.1, value, proxy, order, scope, rmw_read: None, data, ctrl: s.ctrl }
    }

    fn other(&self, s: &State, kind: Kind, index: usize, scope: Option<Scope>) -> Ev {
        Ev {
            kind,
            instr: index,
            phys: usize::MAX,
            virt: usize::MAX,
            value: 0,
            proxy: match kind {
                Kind::Fence(FenceKind::Sc | FenceKind::AcqRel | FenceKind::Acquire | FenceKind::Release) => Some(Px::Gen),
                Kind::Fence(FenceKind::Proxy(p)) => Some(p),
                _ => None,
            },
            order: Order::Relaxed,
            scope,
            rmw_read: None,
            data: 0,
            ctrl: s.ctrl,
        }
    }

    fn finish(&mut self, s: State) -> Result<(), AxiomError> {
        self.end_run(s, End::Finished)
    }

    fn end_run(&mut self, s: State, end: End) -> Result<(), AxiomError> {
        if self.out.traces.len() >= self.limits.max_traces {
            return Err(AxiomError::TooLarge(format!(
                "thread `{}` has more than {} runs",
                self.name(),
                self.limits.max_traces
            )));
        }
        if s.events.len() > super::rel::MAX_EVENTS {
            return Err(AxiomError::TooLarge(format!("thread `{}` runs more than {} events", self.name(), super::rel::MAX_EVENTS)));
        }
        let regs = s.regs.into_iter().map(|(k, v)| (k, v.value)).collect();
        let trace = Trace { events: s.events, regs, end };
        // Runs differing only in the chains of the values they read are one trace.
        if !self.seen.contains(&trace) {
            self.seen.insert(trace.clone());
            self.out.traces.push(trace);
        }
        Ok(())
    }

    fn run(&mut self, mut s: State) -> Result<(), AxiomError> {
        let scenario: &'a Scenario = self.scenario;
        let program = &scenario.threads[self.thread].program;
        loop {
            let Some(instr) = program.get(s.pc) else {
                return self.finish(s);
            };
            if s.events.len() + 2 > super::rel::MAX_EVENTS {
                return Err(AxiomError::TooLarge(format!("thread `{}` runs more than {} events", self.name(), super::rel::MAX_EVENTS)));
            }
            let index = s.pc;
            s.visits[index] += 1;
            if s.visits[index] > self.limits.max_visits {
                self.out.cut = true;
                return Ok(());
            }
            s.pc += 1;
            let mut inner = instr;
            if let Instr::Guarded { pred, negated, instr: guarded } = instr {
                let p = s.regs.get(pred).cloned().unwrap_or(Val { value: 0, taint: 0 });
                // A guard is a conditional jump around the instruction (`ctrl` from then on).
                s.ctrl |= p.taint;
                if (p.value != 0) == *negated {
                    continue;
                }
                inner = guarded;
            }
            match inner {
                Instr::Label(_) => {
                    s.rounds.insert(index, s.events.len());
                }
                Instr::Exit => return self.finish(s),
                Instr::Mov { dst, src } => {
                    let v = self.operand(&s, src);
                    Self::set(&mut s, dst, v);
                }
                Instr::Add { dst, a, b } => {
                    let (a, b) = (self.operand(&s, a), self.operand(&s, b));
                    Self::set(&mut s, dst, Val { value: a.value.wrapping_add(b.value), taint: a.taint | b.taint });
                }
                Instr::SetP { dst, op, a, b } => {
                    let (a, b) = (self.operand(&s, a), self.operand(&s, b));
                    Self::set(&mut s, dst, Val { value: i64::from(op.eval(a.value, b.value)), taint: a.taint | b.taint });
                }
                Instr::Branch { target, cond } => {
                    let taken = match cond {
                        None => true,
                        Some((a, op, b)) => {
                            let (a, b) = (self.operand(&s, a), self.operand(&s, b));
                            s.ctrl |= a.taint | b.taint;
                            op.eval(a.value, b.value)
                        }
                    };
                    if taken {
                        let Some(&to) = self.labels.get(target.as_str()) else {
                            return Err(outside(self.name(), index, inner, &format!("label `{target}` is not defined")));
                        };
                        if to < index && self.spins.contains(&index) {
                            // Another round of a spin loop: the first round that leaves it
                            // gives the same outcomes (module doc), as Dat3M's spin-loop pass.
                            // Going round for ever is a hang when its reads see the newest
                            // writes (`search.rs`); a round is the events since the label.
                            let round = s.rounds.get(&to).copied().unwrap_or(0);
                            if self.hangs && !s.events[round..].iter().any(|e| self.on_mbarrier(e)) {
                                return self.end_run(s, End::Stuck { round, at: index });
                            }
                            return Ok(());
                        }
                        s.pc = to;
                    }
                }
                Instr::Ld { sem, scope, space: _, proxy, dst, addr } => {
                    let order = ld_order(*sem).ok_or_else(|| outside(self.name(), index, inner, "a load cannot be a release"))?;
                    let px = proxy_tag(*proxy).ok_or_else(|| outside(self.name(), index, inner, "async and tensormap proxy loads are not in the axioms"))?;
                    let loc = self.location(index, inner, addr)?;
                    let scope = access_scope(*sem, *scope, order);
                    return self.branch_read(s, index, loc, px, order, scope, dst, None);
                }
                Instr::St { sem, scope, space: _, proxy, addr, src } => {
                    let order = st_order(*sem).ok_or_else(|| outside(self.name(), index, inner, "a store cannot be an acquire"))?;
                    let px = proxy_tag(*proxy).ok_or_else(|| outside(self.name(), index, inner, "async and tensormap proxy stores are not in the axioms"))?;
                    let loc = self.location(index, inner, addr)?;
                    let v = self.operand(&s, src);
                    let scope = access_scope(*sem, *scope, order);
                    let inputs = Self::chain_of(&s, v.taint);
                    let own = self.bits.get(index).copied().unwrap_or(0);
                    if inputs & own != 0 {
                        return Ok(());
                    }
                    self.record_write(loc.0, v.value, inputs | own);
                    let ev = self.mem(&s, Kind::Write, index, loc, v.value, Some(px), order, scope, v.taint);
                    Self::push(&mut s, ev);
                }
                Instr::Atom { op, sem, scope, space: _, dst, addr, args } => {
                    // `Tag.PTX.loadMO` / `storeMO`: an RMW's read is ACQ for acquire and
                    // acq_rel, else RLX; its write REL for release and acq_rel, else RLX.
                    let (ro, wo) = match sem {
                        None | Some(Sem::Relaxed) => (Order::Relaxed, Order::Relaxed),
                        Some(Sem::Acquire) => (Order::Acquire, Order::Relaxed),
                        Some(Sem::Release) => (Order::Relaxed, Order::Release),
                        Some(Sem::AcqRel) => (Order::Acquire, Order::Release),
                        Some(Sem::Weak | Sem::Volatile | Sem::Mmio) => {
                            return Err(outside(self.name(), index, inner, "atomics are relaxed, acquire, release or acq_rel"))
                        }
                    };
                    let loc = self.location(index, inner, addr)?;
                    let scope = Some(scope.unwrap_or(Scope::Gpu));
                    let args: Vec<Val> = args.iter().map(|a| self.operand(&s, a)).collect();
                    let op = *op;
                    return self.branch_rmw(s, index, loc, ro, wo, scope, dst.as_deref(), &args, move |old, a| (op.apply(old, a), true), RmwRet::Old);
                }
                Instr::Fence(fence) => {
                    let (kind, scope) = match fence {
                        Fence::Thread { restrict: Some(_), .. } => {
                            return Err(outside(self.name(), index, inner, "restricted fences (sync_restrict) are not modelled by the axiomatic engine"))
                        }
                        Fence::Thread { sem, scope, .. } => (
                            match sem {
                                None | Some(FenceSem::AcqRel) => FenceKind::AcqRel,
                                Some(FenceSem::Sc) => FenceKind::Sc,
                                Some(FenceSem::Acquire) => FenceKind::Acquire,
                                Some(FenceSem::Release) => FenceKind::Release,
                            },
                            Some(*scope),
                        ),
                        Fence::Proxy(ProxyKind::Alias) => (FenceKind::Alias, None),
                        Fence::Proxy(ProxyKind::Surface) => (FenceKind::Proxy(Px::Sur), None),
                        Fence::Proxy(ProxyKind::Texture) => (FenceKind::Proxy(Px::Tex), None),
                        Fence::Proxy(ProxyKind::Constant) => (FenceKind::Proxy(Px::Con), None),
                        Fence::Proxy(ProxyKind::Async { .. } | ProxyKind::AsyncGeneric { .. } | ProxyKind::Tensormap { .. }) | Fence::MbarrierInit => {
                            return Err(outside(self.name(), index, inner, "the async and tensormap proxies are outside the axioms' fragment"))
                        }
                    };
                    let ev = self.other(&s, Kind::Fence(kind), index, scope);
                    Self::push(&mut s, ev);
                }
                Instr::Bar { kind, id, count, sugar: _ } => {
                    let arrive_only = match kind {
                        BarKind::Sync => false,
                        BarKind::Arrive => true,
                        BarKind::Red => return Err(outside(self.name(), index, inner, "bar.red is not modelled by the axiomatic engine")),
                    };
                    if count.is_some() {
                        return Err(outside(self.name(), index, inner, "barriers with a thread count are not modelled by the axiomatic engine"));
                    }
                    let Operand::Imm(id) = id else {
                        return Err(outside(self.name(), index, inner, "a barrier id held in a register is not modelled by the axiomatic engine"));
                    };
                    let uses = s.bar_uses.entry(*id).or_insert(0);
                    let generation = *uses;
                    *uses += 1;
                    let ev = self.other(&s, Kind::Barrier(BarrierKind::Cta { id: *id, generation, arrive_only }), index, Some(Scope::Cta));
                    Self::push(&mut s, ev);
                    if self.hangs && !arrive_only {
                        self.end_run(s.clone(), End::Blocked)?;
                    }
                }
                Instr::ClusterArrive { sem } => {
                    let release = !matches!(sem, Some(Sem::Relaxed));
                    let generation = s.cluster_arrives;
                    s.cluster_arrives += 1;
                    let ev = self.other(&s, Kind::Barrier(BarrierKind::Cluster { generation, wait: false, release }), index, Some(Scope::Cluster));
                    Self::push(&mut s, ev);
                }
                Instr::ClusterWait => {
                    let generation = s.cluster_waits;
                    s.cluster_waits += 1;
                    let ev = self.other(&s, Kind::Barrier(BarrierKind::Cluster { generation, wait: true, release: false }), index, Some(Scope::Cluster));
                    Self::push(&mut s, ev);
                    if self.hangs {
                        self.end_run(s.clone(), End::Blocked)?;
                    }
                }
                Instr::Mbar(op) => return self.mbar(s, index, inner, op, false),
                Instr::Wait { instr: spun, until } => match spun.as_ref() {
                    Instr::Ld { sem, scope, space: _, proxy, dst, addr } => {
                        let order = ld_order(*sem).ok_or_else(|| outside(self.name(), index, inner, "a load cannot be a release"))?;
                        let px = proxy_tag(*proxy).ok_or_else(|| outside(self.name(), index, inner, "async and tensormap proxy loads are not in the axioms"))?;
                        let loc = self.location(index, inner, addr)?;
                        let scope = access_scope(*sem, *scope, order);
                        let target = match until {
                            Some(t) => Some((t.op, self.operand(&s, &t.value))),
                            None => None,
                        };
                        return self.branch_read(s, index, loc, px, order, scope, dst, target);
                    }
                    Instr::Mbar(op) => return self.mbar(s, index, inner, op, true),
                    _ => return Err(outside(self.name(), index, inner, "only loads and mbarrier waits can be spun on")),
                },
                Instr::Ranged { .. } => return Err(outside(self.name(), index, inner, "byte ranges are not modelled by the axiomatic engine")),
                Instr::Guarded { .. } => return Err(outside(self.name(), index, inner, "nested guards")),
                Instr::CpAsync { .. }
                | Instr::CpAsyncCommit
                | Instr::CpAsyncWait { .. }
                | Instr::CpAsyncWaitAll
                | Instr::CpAsyncMbarArrive { .. }
                | Instr::Bulk { .. }
                | Instr::BulkCommit
                | Instr::BulkWait { .. }
                | Instr::StAsync { .. }
                | Instr::Wgmma(_)
                | Instr::Tc(_) => return Err(outside(self.name(), index, inner, "asynchronous agents are outside the axioms' fragment")),
            }
        }
    }

    /// A read of `loc`, one trace per value it may return (those passing `until`).
    #[allow(clippy::too_many_arguments)]
    fn branch_read(
        &mut self,
        s: State,
        index: usize,
        loc: (usize, usize),
        px: Px,
        order: Order,
        scope: Option<Scope>,
        dst: &str,
        until: Option<(CmpOp, Val)>,
    ) -> Result<(), AxiomError> {
        let values = self.domains[loc.0].clone();
        for (value, chain) in values {
            if let Some((op, target)) = &until {
                if !op.eval(value, target.value) {
                    // A failed attempt, repeated for ever, is a hang when it reads the
                    // newest write (`search.rs`).
                    if self.hangs {
                        let mut stuck = s.clone();
                        let ev = self.mem(&stuck, Kind::Read, index, loc, value, Some(px), order, scope, 0);
                        let round = Self::push(&mut stuck, ev);
                        stuck.chains[round] = chain;
                        self.end_run(stuck, End::Stuck { round, at: index })?;
                    }
                    continue;
                }
            }
            let mut next = s.clone();
            let ev = self.mem(&next, Kind::Read, index, loc, value, Some(px), order, scope, 0);
            let at = Self::push(&mut next, ev);
            next.chains[at] = chain;
            if let Some((_, target)) = &until {
                // Leaving the spin depends on the value read.
                next.ctrl |= super::rel::bit(at) | target.taint;
            }
            Self::set(&mut next, dst, Val { value, taint: super::rel::bit(at) });
            self.run(next)?;
        }
        Ok(())
    }

    /// A read-modify-write of `loc`: one trace per value the read may return, for which
    /// `update` gives the value written and whether the run goes on.
    #[allow(clippy::too_many_arguments)]
    fn branch_rmw(
        &mut self,
        s: State,
        index: usize,
        loc: (usize, usize),
        ro: Order,
        wo: Order,
        scope: Option<Scope>,
        dst: Option<&str>,
        args: &[Val],
        update: impl Fn(i64, &[i64]) -> (i64, bool),
        ret: RmwRet,
    ) -> Result<(), AxiomError> {
        let values = self.domains[loc.0].clone();
        let arg_values: Vec<i64> = args.iter().map(|a| a.value).collect();
        let arg_taint = args.iter().fold(0, |t, a| t | a.taint);
        let own = self.bits.get(index).copied().unwrap_or(0);
        for (old, chain) in values {
            let (new, go_on) = update(old, &arg_values);
            let inputs = chain | Self::chain_of(&s, arg_taint);
            if !go_on || inputs & own != 0 {
                continue;
            }
            let mut next = s.clone();
            let r = self.mem(&next, Kind::Read, index, loc, old, Some(Px::Gen), ro, scope, 0);
            let at = Self::push(&mut next, r);
            next.chains[at] = chain;
            let mut w = self.mem(&next, Kind::Write, index, loc, new, Some(Px::Gen), wo, scope, arg_taint | super::rel::bit(at));
            w.rmw_read = Some(at);
            Self::push(&mut next, w);
            self.record_write(loc.0, new, inputs | own);
            if let Some(dst) = dst {
                let value = match ret {
                    RmwRet::Old => old,
                    RmwRet::Phase(count) => old / i64::from(count),
                };
                Self::set(&mut next, dst, Val { value, taint: super::rel::bit(at) });
            }
            self.run(next)?;
        }
        Ok(())
    }

    /// mbarrier operations: the barrier is a counter of arrivals; an arrive is an RMW
    /// adding its count, a wait a read whose value says whether its phase completed.
    fn mbar(&mut self, s: State, index: usize, instr: &Instr, op: &crate::model::MbarOp, spin: bool) -> Result<(), AxiomError> {
        let (phys, count) = self.mbarrier(index, instr, &op.bar)?;
        let loc = (phys, phys);
        let scope = Some(op.scope.unwrap_or(Scope::Cta));
        match &op.kind {
            MbarKind::Arrive { count: n, expect_tx: None, no_complete: false, drop: false, state } if !spin => {
                let wo = match op.sem {
                    None | Some(Sem::Release) => Order::Release,
                    Some(Sem::Relaxed) => Order::Relaxed,
                    Some(_) => return Err(outside(self.name(), index, instr, "an arrive is release or relaxed")),
                };
                let add = i64::from(n.unwrap_or(1));
                self.branch_rmw(s, index, loc, Order::Relaxed, wo, scope, state.as_deref(), &[], move |old, _| (old + add, true), RmwRet::Phase(count))
            }
            MbarKind::Wait { blocking: _, parity, phase, dst } => {
                let ro = match op.sem {
                    None | Some(Sem::Acquire) => Order::Acquire,
                    Some(Sem::Relaxed) => Order::Relaxed,
                    Some(_) => return Err(outside(self.name(), index, instr, "a wait is acquire or relaxed")),
                };
                let want = self.operand(&s, phase);
                let count = i64::from(count);
                let values = self.domains[phys].clone();
                for (value, chain) in values {
                    let current = value / count;
                    // `.parity P` passes once the phase of parity P completed; a token
                    // (the phase at the arrive) once the current phase is later.
                    let pass = if *parity { current % 2 != want.value.rem_euclid(2) } else { current > want.value };
                    // A wait that never passes is no hang of the axioms' (`on_mbarrier`).
                    if spin && !pass {
                        continue;
                    }
                    let mut next = s.clone();
                    let ev = self.mem(&next, Kind::Read, index, loc, value, Some(Px::Gen), ro, scope, 0);
                    let at = Self::push(&mut next, ev);
                    next.chains[at] = chain;
                    if spin {
                        next.ctrl |= super::rel::bit(at) | want.taint;
                    }
                    if let Some(dst) = dst {
                        Self::set(&mut next, dst, Val { value: i64::from(pass), taint: super::rel::bit(at) | want.taint });
                    }
                    self.run(next)?;
                }
                Ok(())
            }
            _ => Err(outside(self.name(), index, instr, "only plain arrives and waits on an mbarrier with a declared count are in the fragment")),
        }
    }
}

#[derive(Clone, Copy)]
enum RmwRet {
    Old,
    /// An arrive's state token: the phase before it.
    Phase(u32),
}
