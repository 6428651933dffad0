//! What an asynchronous agent does and how far it got, per-thread bookkeeping of
//! asynchronous operations (reference §6–§8, §9 item 1), and the per-CTA tensor-memory
//! allocator. Agent ids index `Machine::agents`.

use super::knowledge::Knowledge;
use super::shared::Shared;
use crate::model::AtomOp;

/// The operation an asynchronous agent performs, and how far it got.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsyncOp {
    pub what: AsyncWhat,
    pub stage: Stage,
}

/// Locations are layout indices, barriers mbarrier indices, `after` lists agent ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AsyncWhat {
    /// `cp{.reduce}.async.bulk` with `mbarrier::complete_tx::bytes` (one agent per destination CTA).
    Bulk { dst: usize, src: usize, bytes: u32, mbar: usize, reduce: Option<AtomOp> },
    /// `cp{.reduce}.async.bulk` with `.bulk_group`: reads the source, then writes the destination.
    BulkGroup { dst: usize, src: usize, reduce: Option<AtomOp> },
    CpAsync { dst: usize, src: usize },
    /// The async arrive of `cp.async.mbarrier.arrive` once the `after` copies completed.
    CpArrive { mbar: usize, after: Vec<u32> },
    StAsync { addr: usize, value: i64, mbar: usize, bytes: u32, red: Option<AtomOp> },
    /// `acc_in` is the accumulator at issue; `after` the chained wgmma on the same accumulator.
    Wgmma { acc: String, a: usize, b: usize, acc_in: i64, after: Option<u32> },
    Tc(TcWhat),
}

impl AsyncWhat {
    /// What observes this op's completion, for the explanation of a race with its access.
    pub fn observed_by(&self) -> &'static str {
        match self {
            AsyncWhat::Bulk { .. } | AsyncWhat::StAsync { .. } => "an acquire wait on its mbarrier phase",
            AsyncWhat::BulkGroup { .. } => "`cp.async.bulk.wait_group` by the issuing thread, then synchronization with it",
            AsyncWhat::CpAsync { .. } | AsyncWhat::CpArrive { .. } => {
                "`cp.async.wait_group` by the issuing thread (then a barrier), or `cp.async.mbarrier.arrive` and a wait"
            }
            AsyncWhat::Wgmma { .. } => "`wgmma.wait_group` by the issuing warpgroup",
            AsyncWhat::Tc(_) => "`tcgen05.commit` and a wait, or `tcgen05.wait::*`, plus the tcgen05 thread-sync fences",
        }
    }
}

impl AsyncOp {
    pub fn kind_name(&self) -> &'static str {
        match &self.what {
            AsyncWhat::Bulk { reduce: None, .. } | AsyncWhat::BulkGroup { reduce: None, .. } => "tma",
            AsyncWhat::Bulk { .. } | AsyncWhat::BulkGroup { .. } => "tma-reduce",
            AsyncWhat::CpAsync { .. } => "cp.async",
            AsyncWhat::CpArrive { .. } => "cp.async-arrive",
            AsyncWhat::StAsync { red: None, .. } => "st.async",
            AsyncWhat::StAsync { .. } => "red.async",
            AsyncWhat::Wgmma { .. } => "wgmma",
            AsyncWhat::Tc(t) => t.kind_name(),
        }
    }
}

/// The peer CTA's accumulator, A and B halves of a CTA pair's mma (location indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeerHalf {
    pub d: usize,
    pub a: usize,
    pub b: usize,
}

/// An asynchronous tcgen05 op (reference §8).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TcWhat {
    /// `peer`: the other CTA's halves of a CTA pair's mma (`tcgen05.mma.cta_group::2` with
    /// both halves named); `None` for one CTA's mma.
    Mma { d: usize, a: usize, b: usize, peer: Option<PeerHalf> },
    Cp { dst: usize, src: usize },
    Shift { tmem: usize },
    Ld { dst: String, src: usize },
    St { dst: usize, value: i64 },
    /// Async arrive-on (count 1, cluster scope) on each barrier once `after` completed.
    Commit { bars: Vec<usize>, after: Vec<u32> },
    /// The ordering point of a `tcgen05.alloc`, completed at issue: a synchronous tcgen05 op
    /// that other threads' tcgen05 ops follow only through the thread-sync fences (§8.4, §8.5).
    Alloc,
}

impl TcWhat {
    pub fn kind_name(&self) -> &'static str {
        match self {
            TcWhat::Mma { .. } => "tcgen05.mma",
            TcWhat::Cp { .. } => "tcgen05.cp",
            TcWhat::Shift { .. } => "tcgen05.shift",
            TcWhat::Ld { .. } => "tcgen05.ld",
            TcWhat::St { .. } => "tcgen05.st",
            TcWhat::Commit { .. } => "tcgen05.commit",
            TcWhat::Alloc => "tcgen05.alloc",
        }
    }

    /// mma, cp and shift: the ops §8.2 pipelines, and whose completion `tcgen05.commit`
    /// tracks (and publishes).
    pub fn is_pipelined_producer(&self) -> bool {
        matches!(self, TcWhat::Mma { .. } | TcWhat::Cp { .. } | TcWhat::Shift { .. })
    }
}

/// Where an asynchronous agent is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Spawned by its issuer; no memory access yet.
    Issued,
    /// Its memory accesses are done (for a bulk store: its source reads).
    Accessed,
    /// Its completion mechanism has fired.
    Completed,
}

/// What a thread has in flight. Groups are oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ThreadAsync {
    /// `cp.async` not yet committed, and committed groups not yet waited for.
    pub cp_open: Vec<u32>,
    pub cp_groups: Vec<Vec<u32>>,
    /// `cp.async.bulk` with `.bulk_group`.
    pub bulk_open: Vec<u32>,
    pub bulk_groups: Vec<Vec<u32>>,
    /// `wgmma.mma_async` not yet committed, and committed groups not yet waited for.
    pub wgmma_open: Vec<u32>,
    pub wgmma_groups: Vec<Vec<u32>>,
    /// What the next `wgmma.mma_async` inherits: the knowledge at the last `wgmma.fence`
    /// (the op is not ordered after other prior instructions, §7). Shared with the
    /// thread's knowledge at that fence, so copying this record copies no knowledge.
    pub wgmma_fence: Option<Shared<Knowledge>>,
    /// Registers written by non-wgmma instructions since the last `wgmma.fence`.
    pub dirty_regs: Vec<String>,
    /// Tensor-memory knowledge the next asynchronous tcgen05 op inherits (§8.4).
    pub tc_view: Knowledge,
    /// Completed `tcgen05.ld`/`st` a `fence::before_thread_sync` has not yet published.
    pub tc_done: Knowledge,
}

/// Tensor memory of one CTA (§8.5).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TmemState {
    pub allocated: u32,
    /// Some `tcgen05.alloc` of the CTA has run (tells "before alloc" from "after dealloc").
    pub ever_allocated: bool,
    pub relinquished: bool,
    /// The ordering points (`TcWhat::Alloc` agents) of the allocations now live.
    pub live_allocs: Vec<u32>,
    /// `tcgen05.dealloc.cta_group::2` this CTA's warp has passed: the pair's deallocs meet
    /// (§8.5), so one passes only beside, or after, its peer's.
    pub pair_deallocs: u32,
}

/// Total TMEM columns of a CTA.
pub const TMEM_COLUMNS: u32 = 512;
