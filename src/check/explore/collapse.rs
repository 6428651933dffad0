//! Loops that write converge (issue 49): a write nobody can observe any more is forgotten,
//! so states that differ only in such history are one state.
//!
//! A write of a cell is unobservable when, for every agent that can still reach the cell
//! (its program, from its pc, names it):
//! - a reader's candidates (`access::candidates`) already start above it, and candidates
//!   only move up (floors rise, knowledge grows);
//! - it cannot race with the agent's later accesses: it is ordered before the agent, or
//!   every access the agent can still make to the cell is morally strong with it;
//! - its writer cannot still need its releases for pattern 2 (a later strong write of the
//!   same location carries the writer's earlier releases there).
//!
//! The last write is never forgotten: it is the cell's value (final conditions, the
//! outcome table, RMW atomicity). Read choices are numbered from the first candidate, and
//! every forgotten write is below every reader's first candidate, so each choice names
//! the same write before and after: witnesses found on forgotten states replay unchanged
//! on the full ones (the `Stepper` keeps every write).
//!
//! The rules are shown for the plain fragment only: generic-proxy `ld`/`st`/`atom`/`red`,
//! their spin forms, fences, barriers and control flow, on whole locations without
//! aliases. A scenario with anything else (asynchronous agents, mbarriers, byte ranges,
//! other proxies) is explored without forgetting.

use crate::check::machine::{AgentKind, Layout, Machine, Status, Via};
use crate::check::semantics::base::access::{self, resolve};
use crate::check::semantics::base::sync::{mem_op, morally_strong, Side};
use crate::model::{Instr, Proxy, Scope};

/// An access a thread's program can still make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ahead {
    cell: usize,
    loc: usize,
    key: Via,
    reads: bool,
    writes: bool,
    strong: Option<Scope>,
    /// An RMW morally strong with every write any program makes to the cell: atomicity
    /// makes it read the last write, whatever the reader has observed.
    reads_last: bool,
}

/// What each thread can still access, per pc (the pc past the program: nothing).
pub struct Collapse {
    ahead: Vec<Vec<Vec<Ahead>>>,
}

impl Collapse {
    /// `None` when the scenario leaves the plain fragment.
    pub fn new(layout: &Layout) -> Option<Collapse> {
        let mut own_all: Vec<Vec<Vec<Ahead>>> = Vec::with_capacity(layout.threads.len());
        for thread in &layout.threads {
            own_all.push(thread.program.iter().map(|i| accesses(layout, i)).collect::<Option<_>>()?);
        }
        let side = |thread: usize, x: &Ahead| {
            let place = layout.threads.get(thread).map(|t| t.place);
            place.map(|place| Side { agent: thread as u32, place, strong: x.strong, key: x.key })
        };
        let writes: Vec<(usize, Ahead)> = own_all
            .iter()
            .enumerate()
            .flat_map(|(t, pcs)| pcs.iter().flatten().filter(|x| x.writes).map(move |x| (t, *x)))
            .collect();
        for (t, pcs) in own_all.iter_mut().enumerate() {
            for x in pcs.iter_mut().flatten().filter(|x| x.reads && x.writes && x.strong.is_some()) {
                let me = side(t, x);
                x.reads_last = writes.iter().filter(|(_, w)| w.cell == x.cell).all(|(u, w)| {
                    me.zip(side(*u, w)).is_some_and(|(me, them)| morally_strong(me, them))
                });
            }
        }
        let mut ahead = Vec::with_capacity(layout.threads.len());
        for (thread, own) in layout.threads.iter().zip(own_all) {
            let next: Vec<Vec<usize>> = thread
                .program
                .iter()
                .enumerate()
                .map(|(pc, instr)| successors(instr, pc, &thread.labels, thread.program.len()))
                .collect::<Option<_>>()?;
            let per_pc = (0..thread.program.len())
                .map(|start| {
                    let mut seen = vec![false; thread.program.len()];
                    let mut todo = vec![start];
                    let mut found: Vec<Ahead> = Vec::new();
                    while let Some(pc) = todo.pop() {
                        match seen.get_mut(pc) {
                            Some(s) if !*s => *s = true,
                            _ => continue,
                        }
                        for a in own.get(pc).into_iter().flatten() {
                            if !found.contains(a) {
                                found.push(*a);
                            }
                        }
                        todo.extend(next.get(pc).into_iter().flatten());
                    }
                    found
                })
                .collect();
            ahead.push(per_pc);
        }
        Some(Collapse { ahead })
    }

    /// Forgets every write of `m` that no agent can observe any more (see the module doc).
    pub fn apply(&self, layout: &Layout, m: &mut Machine) {
        if m.agents.iter().any(|a| !matches!(a.kind, AgentKind::Thread(_))) {
            return;
        }
        for cell in 0..m.cells.len() {
            let gone = self.unobservable(layout, m, cell);
            m.forget_writes(cell, &gone);
        }
    }

    /// The accesses to `cell` agent `agent` can still make.
    fn ahead_of<'s>(&'s self, m: &Machine, agent: u32, cell: usize) -> impl Iterator<Item = &'s Ahead> {
        let a = m.agents.get(agent as usize);
        let at = match a.map(|a| (&a.kind, a.status, a.pc)) {
            Some((AgentKind::Thread(t), status, pc)) if status != Status::Done => {
                self.ahead.get(*t).and_then(|pcs| pcs.get(pc))
            }
            _ => None,
        };
        at.into_iter().flatten().filter(move |x| x.cell == cell)
    }

    /// Indices of `cell`'s writes that nobody can observe, ascending (never the last).
    pub(super) fn unobservable(&self, layout: &Layout, m: &Machine, cell: usize) -> Vec<usize> {
        let Some(c) = m.cells.get(cell) else { return Vec::new() };
        let Some(last) = c.writes.len().checked_sub(1) else { return Vec::new() };
        if last == 0 {
            return Vec::new();
        }
        #[cfg(test)]
        if tests::FORGET_ALL.get() {
            return (0..last).collect();
        }
        // The lowest first candidate of any agent that can still read the cell.
        let mut lowest_read = last;
        for agent in 0..m.agents.len() as u32 {
            if let Some(x) = self.ahead_of(m, agent, cell).find(|x| x.reads && !x.reads_last) {
                lowest_read = lowest_read.min(access::candidates(layout, m, agent, x.loc, x.key).start);
            }
        }
        let place_of = |agent: u32| m.agents.get(agent as usize).map(|a| a.place);
        let mut gone = Vec::new();
        for (index, w) in c.writes.iter().enumerate().take(lowest_read) {
            if w.instr.is_none() {
                // The initial value: ordered before everyone, releasing nothing.
                gone.push(index);
                continue;
            }
            let writer = w.event.agent;
            let Some(writer_place) = place_of(writer) else { continue };
            let them = Side { agent: writer, place: writer_place, strong: w.strong, key: w.key };
            let races = (0..m.agents.len() as u32).filter(|&a| a != writer).any(|agent| {
                let Some(a) = m.agents.get(agent as usize) else { return false };
                let ordered = || {
                    let need = crate::check::machine::needed(w.key, writer_place.cta, w.key, a.place.cta);
                    a.knowledge.orders(layout, w.event, w.loc, &need)
                };
                let mut ahead = self.ahead_of(m, agent, cell).peekable();
                ahead.peek().is_some()
                    && !ahead.all(|x| morally_strong(Side { agent, place: a.place, strong: x.strong, key: x.key }, them))
                    && !ordered()
            });
            let releases_again = w.msgs.iter().any(|msg| msg.from_agent == writer)
                && self.ahead_of(m, writer, cell).any(|x| x.writes && x.strong.is_some());
            if !races && !releases_again {
                gone.push(index);
            }
        }
        gone
    }
}

/// The memory accesses `instr` makes, or `None` outside the plain fragment.
fn accesses(layout: &Layout, instr: &Instr) -> Option<Vec<Ahead>> {
    let at = |addr: &str, proxy: Proxy, strong: Option<Scope>, reads: bool, writes: bool| -> Option<Vec<Ahead>> {
        if proxy != Proxy::Generic {
            return None;
        }
        let acc = resolve(layout, addr, proxy, strong).ok()?;
        let info = layout.locs.get(acc.loc)?;
        let plain = info.mbarrier.is_none()
            && info.range.is_none()
            && info.segs.len() <= 1
            && info.key == crate::check::machine::ProxyKey::Generic
            && !matches!(info.space, crate::model::Space::Tmem(_))
            && layout.locs.iter().filter(|l| l.cell == info.cell).count() == 1;
        plain.then(|| vec![Ahead { cell: access::cell_of(layout, acc.loc), loc: acc.loc, key: acc.key, reads, writes, strong: acc.strong, reads_last: false }])
    };
    match instr {
        Instr::Ld { sem, scope, proxy, addr, .. } => at(addr, *proxy, mem_op(*sem, *scope, false).strong, true, false),
        Instr::St { sem, scope, proxy, addr, .. } => at(addr, *proxy, mem_op(*sem, *scope, false).strong, false, true),
        Instr::Atom { sem, scope, addr, .. } => at(addr, Proxy::Generic, mem_op(*sem, *scope, true).strong, true, true),
        Instr::Wait { instr, .. } => match instr.as_ref() {
            inner @ (Instr::Ld { .. } | Instr::Atom { .. }) => accesses(layout, inner),
            _ => None,
        },
        Instr::Guarded { instr, .. } => accesses(layout, instr),
        Instr::Fence(_)
        | Instr::Bar { .. }
        | Instr::ClusterArrive { .. }
        | Instr::ClusterWait
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::Exit
        | Instr::SetP { .. } => Some(Vec::new()),
        Instr::Mbar(_)
        | Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::Bulk { .. }
        | Instr::BulkCommit
        | Instr::BulkWait { .. }
        | Instr::StAsync { .. }
        | Instr::Wgmma(_)
        | Instr::Tc(_)
        | Instr::Ranged { .. } => None,
    }
}

/// The pcs control can reach right after `instr` at `pc` (a program's end is not one).
fn successors(instr: &Instr, pc: usize, labels: &std::collections::HashMap<String, usize>, len: usize) -> Option<Vec<usize>> {
    let fall = (pc + 1 < len).then_some(pc + 1);
    let guarded = matches!(instr, Instr::Guarded { .. });
    Some(match instr.unwrapped() {
        Instr::Branch { target, cond } => {
            let to = *labels.get(target)?;
            let mut next = vec![to];
            if cond.is_some() || guarded {
                next.extend(fall);
            }
            next
        }
        Instr::Exit if !guarded => Vec::new(),
        _ => fall.into_iter().collect(),
    })
}

/// The integration tests' finder of scenario files, for the tests below.
#[cfg(test)]
#[path = "../../../tests/support/fence_files.rs"]
mod fence_files;

#[cfg(test)]
pub(super) mod tests {
    use std::cell::Cell;
    use std::path::Path;

    use crate::check::{check_one_mode, Mode, Options, Report};
    use crate::model::Scenario;

    thread_local! {
        /// A deliberately wrong rule for the test that shows the comparison can fail:
        /// forget every write but the last, readable or not.
        pub(super) static FORGET_ALL: Cell<bool> = const { Cell::new(false) };
    }

    /// Runs with the full history above this many states are skipped: they take long in a
    /// debug build, and the loops that need forgetting never finish without it.
    const FULL_STATES: u64 = 20_000;

    /// Every repository scenario and lesson program, named.
    pub(in crate::check::explore) fn programs() -> Vec<(String, Scenario)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        super::fence_files::fence_files(&root.join("tests/scenarios"), &mut files);
        files.sort();
        let mut out: Vec<(String, Scenario)> = files
            .iter()
            .map(|p| (p.display().to_string(), crate::load(&std::fs::read_to_string(p).unwrap_or_default()).scenario))
            .collect();
        let mut lessons: Vec<_> = std::fs::read_dir(root.join("lessons")).into_iter().flatten().flatten().map(|e| e.path()).collect();
        lessons.sort();
        for path in lessons.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
            let (lesson, _) = crate::lesson::parse_lesson(&std::fs::read_to_string(path).unwrap_or_default());
            for (n, block) in lesson.blocks.iter().enumerate() {
                let sources: Vec<&str> = match block {
                    crate::lesson::Block::Scenario { source, .. } => vec![source],
                    crate::lesson::Block::Exercise(e) => vec![&e.start.source, &e.solution.source],
                    crate::lesson::Block::Prose(_) => Vec::new(),
                };
                for (k, source) in sources.into_iter().enumerate().filter(|(_, s)| !s.is_empty()) {
                    out.push((format!("{} block {n}.{k}", path.display()), crate::load(source).scenario));
                }
            }
        }
        out
    }

    /// What a report says, without the counts that forgetting exists to shrink.
    fn verdicts(r: &Report) -> Report {
        Report { stats: Default::default(), ..r.clone() }
    }

    /// The programs (of `programs`) whose report changes when writes are forgotten, among
    /// those whose full search finishes; and how many were compared.
    fn differing(programs: &[(String, Scenario)]) -> (Vec<String>, usize) {
        let mut differ = Vec::new();
        let mut compared = 0;
        for (name, scenario) in programs {
            for mode in [Mode::Pragmatic, Mode::Strict] {
                let full = Options { mode, max_states: FULL_STATES, collapse: false, ..Options::default() };
                let full = check_one_mode(scenario, &full);
                if !full.stats.complete {
                    continue;
                }
                let reduced = check_one_mode(scenario, &Options { mode, collapse: true, ..Options::default() });
                compared += 1;
                if verdicts(&reduced) != verdicts(&full) {
                    differ.push(format!("{name} ({})", mode.name()));
                }
            }
        }
        (differ, compared)
    }

    /// Forgetting is exact: every repository scenario and lesson program whose full search
    /// finishes gets the same verdict, findings, witnesses, outcome table and conditions.
    /// Minutes in a debug build: `make test` runs it in release.
    #[test]
    #[cfg_attr(debug_assertions, ignore = "run in release by make test-native")]
    fn forgetting_unobservable_writes_changes_no_report() {
        let programs = programs();
        let (differ, compared) = differing(&programs);
        assert!(differ.is_empty(), "reports changed by forgetting: {differ:?}");
        assert!(compared > 400, "only {compared} runs compared");
    }

    /// The comparison above catches a wrong rule: forgetting writes a thread can still
    /// read loses stale-read outcomes and races.
    #[test]
    #[cfg_attr(debug_assertions, ignore = "run in release by make test-native")]
    fn forgetting_readable_writes_is_caught() {
        let programs: Vec<_> = programs().into_iter().filter(|(name, _)| name.contains("tests/scenarios/checker/")).collect();
        FORGET_ALL.set(true);
        let (differ, _) = differing(&programs);
        FORGET_ALL.set(false);
        assert!(differ.len() >= 5, "a wrong rule changed only {differ:?}");
    }
}
