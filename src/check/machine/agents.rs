//! Per-thread bookkeeping of asynchronous operations (reference §6–§8, §9 item 1), and the
//! per-CTA tensor-memory allocator. Agent ids index `Machine::agents`.

use super::knowledge::Knowledge;

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
    /// (the op is not ordered after other prior instructions, §7).
    pub wgmma_fence: Option<Knowledge>,
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
    /// The ordering points (`tcgen05::TcWhat::Alloc` agents) of the allocations now live.
    pub live_allocs: Vec<u32>,
}

/// Total TMEM columns of a CTA.
pub const TMEM_COLUMNS: u32 = 512;
