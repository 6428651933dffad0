//! The dynamic state the explorer hashes: agents, memory, barriers.
//!
//! Step numbers and explanation records live in [`Meta`] fields, which hashing and
//! equality ignore: two paths reaching the same state are the same state.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::agents::AsyncOp;
use super::knowledge::{Knowledge, Message};
use super::layout::{Layout, Place, Via};
use super::shared::Shared;
use super::vv::{EventId, Meta};
use crate::check::report::RaceReason;
use crate::model::Scope;


/// An instruction of a thread's program. In `u32`s: states hold many (every write and
/// read record, every async agent), and no scenario has 2^32 threads or instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstrRef {
    pub thread: u32,
    pub pc: u32,
}

impl InstrRef {
    pub fn new(thread: usize, pc: usize) -> InstrRef {
        InstrRef { thread: thread as u32, pc: pc as u32 }
    }

    pub fn thread(self) -> usize {
        self.thread as usize
    }

    pub fn pc(self) -> usize {
        self.pc as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AgentKind {
    Thread(usize),
    /// An asynchronous agent spawned by `issuer`'s instruction. Boxed: threads, most
    /// agents of most states, would otherwise carry its size.
    Async { issuer: InstrRef, op: Box<AsyncOp> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Running,
    /// Arrived at `bar.sync`/`bar.red` and waits for the barrier to complete.
    InBarrier,
    Done,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Agent {
    pub kind: AgentKind,
    pub place: Place,
    pub pc: usize,
    /// Shared: most steps move the pc and leave registers and knowledge as they were.
    pub regs: Shared<Regs>,
    pub knowledge: Shared<Knowledge>,
    pub status: Status,
    /// Release fences executed so far, latest per scope and restriction (pattern 3).
    /// Shared, as `pending_acquire`: only fences and relaxed reads of releases change them.
    pub release_fences: Shared<Vec<Message>>,
    /// Releases observed by strong reads, waiting for an acquire fence (acquire pattern 3).
    pub pending_acquire: Shared<Vec<Message>>,
    /// Cluster-barrier instance this thread arrived in and has not yet waited for.
    pub cluster_arrived: Option<u32>,
    /// Asynchronous operations this thread issued and still tracks.
    /// Shared: only the async-issuing steps change it.
    pub asyncs: Shared<super::agents::ThreadAsync>,
}

/// Registers an agent has written, by name, sorted. A sorted list, not a B-tree: an agent
/// has a handful of registers and a step that writes one copies them all, and a B-tree's
/// node holds room for eleven. Names are shared with the parent state's copy: a write
/// copies the list, not the names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Regs(Vec<(Rc<str>, i64)>);

impl Regs {
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(held, _)| (**held).cmp(name))
    }

    pub fn get(&self, name: &str) -> Option<&i64> {
        self.find(name).ok().and_then(|i| self.0.get(i)).map(|(_, v)| v)
    }

    pub fn insert(&mut self, name: Rc<str>, value: i64) {
        match self.find(&name) {
            Ok(i) => {
                if let Some(held) = self.0.get_mut(i) {
                    held.1 = value;
                }
            }
            Err(i) => self.0.insert(i, (name, value)),
        }
    }

    /// A copy with `name` set to `value`, allocated once at its final size (a step copies
    /// a shared list to write it, and copying first then growing would allocate twice).
    pub fn with(&self, name: Rc<str>, value: i64) -> Regs {
        match self.find(&name) {
            Ok(i) => {
                let mut copy = self.clone();
                if let Some(held) = copy.0.get_mut(i) {
                    held.1 = value;
                }
                copy
            }
            Err(i) => {
                let mut copy = Vec::with_capacity(self.0.len() + 1);
                copy.extend(self.0.get(..i).unwrap_or_default().iter().cloned());
                copy.push((name, value));
                copy.extend(self.0.get(i..).unwrap_or_default().iter().cloned());
                Regs(copy)
            }
        }
    }

    /// Names and values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&Rc<str>, &i64)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Rc<str>> {
        self.0.iter().map(|(k, _)| k)
    }

    /// Heap bytes of the list (for the explorer's memory estimate).
    pub fn heap_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<(Rc<str>, i64)>()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WriteRec {
    pub value: i64,
    pub event: EventId,
    /// Location name used (an alias or the cell itself).
    pub loc: usize,
    pub key: Via,
    /// Scope after the state-space clamp, when the write is strong.
    pub strong: Option<Scope>,
    pub msgs: Vec<Message>,
    pub instr: Option<InstrRef>,
    pub step: Meta<Option<usize>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReadRec {
    pub event: EventId,
    pub loc: usize,
    pub key: Via,
    pub strong: Option<Scope>,
    pub instr: Option<InstrRef>,
    pub step: Meta<Option<usize>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell {
    /// Coherence order = the order writes were performed; index 0 is the initial value.
    /// Shared: a step that changes a cell copies its write list, not every write.
    pub writes: Vec<Shared<WriteRec>>,
    /// Latest read per agent and proxy (earlier ones are program-ordered before it).
    pub reads: Vec<ReadRec>,
}

impl Cell {
    /// A copy with `read` as its reader's latest read through `read`'s proxy. Copies are
    /// made at their final size: a step copies the cell it changes (its parent state
    /// still holds the original), and most states that hold a copy are never stepped
    /// again, so spare room would be wasted and growing would allocate twice.
    pub fn with_read(&self, read: ReadRec) -> Cell {
        let mut reads = Vec::with_capacity(self.reads.len() + 1);
        reads.extend(self.reads.iter().filter(|r| !(r.event.agent == read.event.agent && r.key == read.key)).cloned());
        reads.push(read);
        crate::sort::short_by_key(&mut reads, |r| (r.event, r.key));
        Cell { writes: self.writes.clone(), reads }
    }

    /// A copy with `write` last in coherence order (sized as in [`Cell::with_read`]).
    pub fn with_write(&self, write: WriteRec) -> Cell {
        let mut writes = Vec::with_capacity(self.writes.len() + 1);
        writes.extend(self.writes.iter().cloned());
        writes.push(write.into());
        Cell { writes, reads: self.reads.clone() }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MbarState {
    pub valid: bool,
    /// Not valid because `mbarrier.inval` ran (rather than never initialized).
    pub invalidated: bool,
    pub init_event: Option<EventId>,
    pub phase: u32,
    pub pending: i64,
    pub expected: i64,
    pub tx: i64,
    /// Releases of arrivals in the current phase.
    pub current: Vec<Message>,
    /// Releases of arrivals in completed phases.
    pub completed: Vec<Message>,
    /// A phase completed and no wait has returned true since (lapping check, §4.4).
    pub unobserved: bool,
    /// Arrivals that released nothing to the waiters: current phase, then completed.
    pub bare: Vec<BareArrival>,
    pub bare_completed: Vec<BareArrival>,
}

/// An arrival that released nothing to a barrier's waiters, kept to explain later races.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BareArrival {
    pub event: EventId,
    /// The step that arrived, for the failed edge the timeline draws.
    pub step: Meta<Option<usize>>,
    /// Why nothing was released (derived from the arrival, so not part of the state).
    pub why: Meta<(RaceReason, String)>,
}

/// Add `arrivals` to `into`, one per event, in event order (keeps states canonical).
pub fn merge_bare(into: &mut Vec<BareArrival>, arrivals: impl IntoIterator<Item = BareArrival>) {
    for a in arrivals {
        if !into.iter().any(|b| b.event == a.event) {
            into.push(a);
        }
    }
    crate::sort::short_by_key(into, |b| b.event);
}

impl MbarState {
    /// Phase 0 with `count` expected arrivals, or uninitialised when `count` is `None`.
    pub fn fresh(count: Option<u32>, init_event: Option<EventId>) -> MbarState {
        MbarState {
            valid: count.is_some(),
            invalidated: false,
            init_event,
            phase: 0,
            pending: count.map_or(0, i64::from),
            expected: count.map_or(0, i64::from),
            tx: 0,
            current: Vec::new(),
            completed: Vec::new(),
            unobserved: false,
            bare: Vec::new(),
            bare_completed: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarState {
    /// Agents arrived in the current instance, with their kind (true = sync/red).
    pub arrived: Vec<(u32, bool)>,
    pub lanes: u32,
    /// Thread count given by the first arrival of this instance (`None`: whole CTA).
    pub count: Option<u32>,
    pub msgs: Vec<Message>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClusterBarState {
    pub instance: u32,
    pub arrived: Vec<u32>,
    pub current: Vec<Message>,
    pub completed: Vec<Message>,
    /// Relaxed arrivals with no release fence: current instance, then completed.
    pub bare: Vec<BareArrival>,
    pub bare_completed: Vec<BareArrival>,
}

/// A formed happens-before edge, for the UI.
#[derive(Clone, Debug)]
pub struct EdgeRec {
    pub from_agent: u32,
    pub from_step: Option<usize>,
    pub to_agent: u32,
    pub to_step: usize,
    pub kind: String,
    pub scope: Option<Scope>,
}

/// Synchronization that did not form, and why; explains races later.
#[derive(Clone, Debug)]
pub struct FailedRec {
    pub from_agent: u32,
    pub from_step: Option<usize>,
    pub to_agent: u32,
    pub to_step: usize,
    pub reason: RaceReason,
    pub text: String,
    /// What would have been ordered had the edge formed.
    pub carried: Carried,
}

/// What a failed edge would have carried: a release's knowledge (shared with the release),
/// one event alone, a write or an arrival that released nothing, or both, for a write that
/// is itself a release (`st.release`: its knowledge precedes the write). Most failed edges
/// are relaxed reads of the second kind, which would otherwise allocate a knowledge each.
#[derive(Clone, Debug)]
pub enum Carried {
    Knowledge(Shared<Knowledge>),
    Event(EventId),
    ReleaseWrite(Shared<Knowledge>, EventId),
}

impl Carried {
    /// Whether `event` would have been ordered before the edge's target.
    pub fn contains(&self, event: EventId) -> bool {
        // As a clock holding only `e`: every agent's epoch 0 (the initial values) too.
        let up_to = |e: &EventId| event.epoch <= if event.agent == e.agent { e.epoch } else { 0 };
        let released = |k: &Knowledge| k.entries.iter().any(|e| e.vv.contains(event));
        match self {
            Carried::Knowledge(k) => released(k),
            Carried::Event(e) => up_to(e),
            Carried::ReleaseWrite(k, e) => released(k) || up_to(e),
        }
    }
}

/// What the steps so far formed and failed to form. States share the records of their
/// common past, so a step costs only its own records, not a copy of the whole history.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub steps: usize,
    latest: Option<Rc<TraceLink>>,
}

/// One step's records (steps that recorded nothing have no link) and the steps before.
#[derive(Debug)]
struct TraceLink {
    edges: Vec<EdgeRec>,
    failed: Vec<FailedRec>,
    earlier: Option<Rc<TraceLink>>,
}

impl Trace {
    /// Counts a step and keeps what it formed and failed to form.
    pub fn record(&mut self, edges: &[EdgeRec], failed: &[FailedRec]) {
        self.steps += 1;
        if edges.is_empty() && failed.is_empty() {
            return;
        }
        let earlier = self.latest.take();
        self.latest = Some(Rc::new(TraceLink { edges: edges.to_vec(), failed: failed.to_vec(), earlier }));
    }

    /// The links, oldest first.
    fn links(&self) -> Vec<&TraceLink> {
        let mut links = Vec::new();
        let mut at = self.latest.as_deref();
        while let Some(link) = at {
            links.push(link);
            at = link.earlier.as_deref();
        }
        links.reverse();
        links
    }

    /// Edges formed, in step order.
    pub fn edges(&self) -> impl Iterator<Item = &EdgeRec> {
        self.links().into_iter().flat_map(|l| l.edges.iter())
    }

    /// Synchronization that failed to form, in step order.
    pub fn failed(&self) -> impl Iterator<Item = &FailedRec> {
        self.links().into_iter().flat_map(|l| l.failed.iter())
    }
}

impl Trace {
    /// Heap bytes of the latest step's records, when no other state shares them.
    pub fn own_bytes(&self) -> usize {
        let Some(link) = self.latest.as_ref().filter(|l| Rc::strong_count(l) == 1) else { return 0 };
        std::mem::size_of::<TraceLink>()
            + link.edges.capacity() * std::mem::size_of::<EdgeRec>()
            + link.failed.iter().map(|f| super::size::carried(&f.carried) + f.text.capacity()).sum::<usize>()
            + link.failed.capacity() * std::mem::size_of::<FailedRec>()
    }
}

impl Drop for Trace {
    /// Unlinks iteratively: a long history dropped recursively could overflow the stack.
    fn drop(&mut self) {
        let mut next = self.latest.take();
        while let Some(link) = next {
            next = Rc::try_unwrap(link).ok().and_then(|mut l| l.earlier.take());
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Machine {
    pub agents: Vec<Shared<Agent>>,
    pub cells: Vec<Shared<Cell>>,
    pub mbars: Vec<Shared<MbarState>>,
    /// Shared, as `cluster_bars`, `sc_fences` and `tmem`: few steps change them, and every
    /// state would otherwise hold its own copy (or at least its empty header).
    pub bars: Shared<BTreeMap<(usize, u32), BarState>>,
    pub cluster_bars: Shared<Vec<ClusterBarState>>,
    /// `fence.sc` releases in Fence-SC order.
    pub sc_fences: Shared<Vec<Message>>,
    /// Undefined behaviour happened: the execution has no meaning past this point.
    pub undefined: bool,
    /// Tensor memory allocation per CTA.
    pub tmem: Shared<Vec<super::agents::TmemState>>,
    pub trace: Meta<Trace>,
}

impl Machine {
    pub fn new(layout: &Layout, preinit: &[Option<u32>]) -> Machine {
        let agents = layout
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| Agent {
                kind: AgentKind::Thread(i),
                place: t.place,
                pc: 0,
                regs: Shared::default(),
                knowledge: Knowledge::new(layout.cells, i as u32).into(),
                status: Status::Running,
                release_fences: Shared::default(),
                pending_acquire: Shared::default(),
                cluster_arrived: None,
                asyncs: Default::default(),
            })
            .map(Shared::new)
            .collect();
        // Cell `i` starts with its owner's initial value: a location's own cell (an alias's
        // cell stays empty), or one of the extra byte segments of a split location.
        let cells = (0..layout.cells)
            .map(|i| {
                let owner = layout.cell_owner.get(i).copied().unwrap_or(i);
                let root = layout.locs.get(owner).filter(|l| l.cell == i || owner != i);
                Cell {
                    writes: root
                        .map(|l| {
                            vec![WriteRec {
                                value: l.init,
                                event: EventId { agent: u32::MAX, epoch: 0 },
                                loc: owner,
                                key: Via { proxy: l.key, va: l.va },
                                strong: None,
                                msgs: Vec::new(),
                                instr: None,
                                step: Meta(None),
                            }
                            .into()]
                        })
                        .unwrap_or_default(),
                    reads: Vec::new(),
                }
            })
            .map(Shared::new)
            .collect();
        let mbars = preinit
            .iter()
            .map(|count| Shared::new(MbarState::fresh(*count, None)))
            .collect();
        Machine {
            agents,
            cells,
            mbars,
            bars: Shared::default(),
            cluster_bars: Shared::new(vec![ClusterBarState::default(); layout.cluster_names.len()]),
            sc_fences: Shared::default(),
            undefined: false,
            tmem: Shared::new(vec![Default::default(); layout.cta_names.len()]),
            trace: Meta(Trace::default()),
        }
    }
}
