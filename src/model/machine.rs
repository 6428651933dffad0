//! The machine: clusters, CTAs, threads, memory locations and mbarrier objects.

use serde::{Deserialize, Serialize};

/// A cluster of CTAs on one GPU. A cluster of one CTA behaves as the CTA (reference §1.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cluster {
    pub name: String,
    /// GPU index; only litmus imports use more than one GPU (then `.sys` scope matters).
    pub gpu: u32,
}

/// A CTA (thread block). It implicitly owns a TMA engine and a tensor core.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cta {
    pub name: String,
    /// Index into [`crate::model::Scenario::clusters`].
    pub cluster: usize,
}

/// Most PTX threads one scenario thread may stand for (a CTA holds at most 1024).
pub const MAX_LANES: u32 = 1024;

/// A named thread of the scenario, placed in a CTA.
///
/// A scenario thread stands for one warp whose lanes run the same code: barriers count
/// `lanes` PTX threads for it, and an mbarrier arrive is one arrival (an elected lane).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    pub name: String,
    /// Index into [`crate::model::Scenario::ctas`].
    pub cta: usize,
    /// PTX threads this scenario thread stands for; 32 (a warp) unless declared.
    pub lanes: u32,
    pub program: Vec<Instr>,
}

use super::Instr;

/// Where a location lives (the memory-model state space of the object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Space {
    Global,
    /// Shared memory owned by one CTA (index into `ctas`); peers reach it via `shared::cluster`.
    Shared(usize),
    /// Tensor memory of one CTA.
    Tmem(usize),
}

/// The proxy an access goes through (reference §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Proxy {
    Generic,
    Async,
    Texture,
    Surface,
    Constant,
    Tensormap,
}

/// A second name for the same memory, reached through `proxy` (litmus `y @ surface aliases x`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    /// Name of the location this one aliases.
    pub target: String,
    pub proxy: Proxy,
}

/// A named memory location.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub name: String,
    pub space: Space,
    /// Size in bytes; tx-counts of bulk copies and `st.async` use it.
    pub size: u32,
    pub init: i64,
    /// Set when this name is a virtual alias of another location.
    pub alias: Option<Alias>,
}

/// An mbarrier object in one CTA's shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mbarrier {
    pub name: String,
    /// Owning CTA (index into `ctas`).
    pub cta: usize,
    /// Expected arrival count when the scenario starts with the barrier already initialised
    /// (`mbarrier bar @A count 1`). `None` means it starts uninitialised and a thread must
    /// execute `mbarrier.init`.
    pub count: Option<u32>,
}
