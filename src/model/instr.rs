//! Instructions: everything in reference §1–§8, as plain data.
//!
//! `Option` fields record what the author wrote; `None` means "defaulted", so the printer
//! can show the default instead of hiding it. Locations, mbarriers and CTAs are named.

use serde::{Deserialize, Serialize};

use super::Proxy;

/// Memory-operation semantics (`.weak`, `.relaxed`, ...). `fence` uses [`FenceSem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sem {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Volatile,
    Mmio,
}

/// Scopes, narrowest first, so `Ord` means "includes at least".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

/// The state-space qualifier written on an instruction. `None` on the instruction means
/// generic addressing; the location's own [`super::Space`] says where the object lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AddrSpace {
    Global,
    SharedCta,
    SharedCluster,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    Imm(i64),
    Reg(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AtomOp {
    Add,
    Inc,
    Dec,
    Exch,
    Max,
    Min,
    And,
    Or,
    Xor,
    /// `atom.cas`: args are `[compare, new]`.
    Cas,
}

impl AtomOp {
    /// The value this atomic or reduction writes over `old` (64-bit wrapping). A failed
    /// `cas` writes `old` back: the explorer treats that as a read only, the axioms (as
    /// Dat3M does) as a write of the same value.
    pub fn apply(self, old: i64, args: &[i64]) -> i64 {
        let b = args.first().copied().unwrap_or(0);
        match self {
            AtomOp::Add => old.wrapping_add(b),
            AtomOp::Inc => if old >= b { 0 } else { old.wrapping_add(1) },
            AtomOp::Dec => if old == 0 || old > b { b } else { old.wrapping_sub(1) },
            AtomOp::Exch => b,
            AtomOp::Max => old.max(b),
            AtomOp::Min => old.min(b),
            AtomOp::And => old & b,
            AtomOp::Or => old | b,
            AtomOp::Xor => old ^ b,
            AtomOp::Cas => if old == b { args.get(1).copied().unwrap_or(0) } else { old },
        }
    }
}

/// CUDA C++ spellings kept so the printer writes them back as the author did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sugar {
    /// `__syncthreads()` = `bar.sync 0`.
    SyncThreads,
    /// `__threadfence()` = `fence.sc.gpu`.
    ThreadFence,
    /// `__threadfence_block()` = `fence.sc.cta`.
    ThreadFenceBlock,
    /// `membar.{cta,gl,sys}` = `fence.sc.{cta,gpu,sys}` on sm_70+.
    Membar,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FenceSem {
    Sc,
    AcqRel,
    Acquire,
    Release,
}

/// `.sync_restrict::shared::cta` / `.sync_restrict::shared::cluster` (reference §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SyncRestrict {
    SharedCta,
    SharedCluster,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fence {
    /// `fence{.sem}.scope{.sync_restrict::…}`, `membar.*`, `__threadfence*()`.
    Thread {
        /// `None`: written without `.sem`, which means `.acq_rel`.
        sem: Option<FenceSem>,
        scope: Scope,
        restrict: Option<SyncRestrict>,
        sugar: Option<Sugar>,
    },
    /// `fence.mbarrier_init.release.cluster`.
    MbarrierInit,
    Proxy(ProxyKind),
}

/// Proxy fences (reference §2.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProxyKind {
    Alias,
    Texture,
    Surface,
    Constant,
    /// `fence.proxy.async{.global,.shared::cta,.shared::cluster}`: bi-directional.
    Async { space: Option<AddrSpace> },
    /// `fence.proxy.async::generic.{release,acquire}.sync_restrict::shared::{cta,cluster}.cluster`.
    AsyncGeneric { sem: FenceSem, restrict: SyncRestrict },
    /// `fence.proxy.tensormap::generic.{release,acquire}.scope`.
    Tensormap { sem: FenceSem, scope: Scope },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BarKind {
    Sync,
    Arrive,
    Red,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MbarOp {
    pub kind: MbarKind,
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
    /// `.shared::cta` or `.shared::cluster`: how the barrier is addressed, not the scope.
    pub space: Option<AddrSpace>,
    pub bar: String,
}

impl MbarOp {
    /// Whether a peer CTA may apply this form to another CTA's barrier: an arrive without a
    /// state token, expect-tx or complete-tx, addressed through `.shared::cluster`
    /// (reference §4.1).
    pub fn remote_form_allowed(&self) -> bool {
        matches!(self.kind, MbarKind::Arrive { state: None, .. } | MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. })
            && self.space == Some(AddrSpace::SharedCluster)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MbarKind {
    Init {
        count: u32,
    },
    Inval,
    ExpectTx {
        bytes: u32,
    },
    CompleteTx {
        bytes: u32,
    },
    /// `arrive`, `arrive.expect_tx`, `arrive.noComplete`, `arrive_drop{…}`.
    Arrive {
        count: Option<u32>,
        expect_tx: Option<u32>,
        no_complete: bool,
        drop: bool,
        /// Register receiving the state token; `None` is the sink `_`.
        state: Option<String>,
    },
    /// `test_wait` (`blocking == false`) or `try_wait`; `parity` selects the `.parity` form,
    /// where `phase` is the parity, otherwise `phase` is a state-token register.
    Wait {
        blocking: bool,
        parity: bool,
        phase: Operand,
        /// Predicate register; `None` when used under `wait` (spin until true).
        dst: Option<String>,
    },
    PendingCount {
        dst: String,
        state: String,
    },
}

/// Directions of `cp.async.bulk` (reference §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BulkDir {
    GlobalToSharedCta,
    GlobalToSharedCluster,
    SharedCtaToSharedCluster,
    SharedCtaToGlobal,
    /// `.shared::cluster.global…cta_group::2`: a CTA pair's tensor load, global → shared
    /// memory of a cluster CTA, whose mbarrier may sit in that CTA's pair peer (the leader)
    /// (PTX `cta_group::2`; ref §6.2). Last, so older share links keep decoding.
    GlobalToSharedClusterPair,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WgmmaOp {
    Fence,
    /// Accumulator register `acc`, shared-memory operands `a` and `b`.
    MmaAsync { acc: String, a: String, b: String },
    CommitGroup,
    WaitGroup { n: u32 },
}

/// One CTA's half of a CTA pair's `tcgen05.mma`: its accumulator half in its TMEM and its
/// A and B halves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MmaHalf {
    pub d: String,
    pub a: String,
    pub b: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TcOp {
    /// Writes the TMEM address into shared location `dst` with a weak store.
    Alloc { dst: String, cols: u32, cta_group: u8 },
    Dealloc { cols: u32, cta_group: u8 },
    Relinquish { cta_group: u8 },
    /// Accumulates into TMEM location `d` from `a` (smem or TMEM) and smem `b`.
    Mma { d: String, a: String, b: String, cta_group: u8 },
    Cp { dst: String, src: String, cta_group: u8 },
    Shift { tmem: String, cta_group: u8 },
    Ld { dst: String, src: String },
    St { dst: String, src: Operand },
    /// Async arrive (count 1) on `bar`, and on each `multicast` barrier, once this thread's
    /// prior mma/cp/shift complete.
    Commit { bar: String, multicast: Vec<String>, cta_group: u8 },
    WaitLd,
    WaitSt,
    FenceBeforeThreadSync,
    FenceAfterThreadSync,
    /// `tcgen05.mma.cta_group::2` with both halves named, issued by the pair's leader (even
    /// rank): each accumulator half takes its own CTA's A half times both CTAs' B halves.
    MmaPair { leader: MmaHalf, peer: MmaHalf },
}

impl TcOp {
    /// The `.cta_group::N` the op carries; `None` for ops written without one.
    pub fn cta_group(&self) -> Option<u8> {
        match self {
            TcOp::Alloc { cta_group, .. }
            | TcOp::Dealloc { cta_group, .. }
            | TcOp::Relinquish { cta_group }
            | TcOp::Mma { cta_group, .. }
            | TcOp::Cp { cta_group, .. }
            | TcOp::Shift { cta_group, .. }
            | TcOp::Commit { cta_group, .. } => Some(*cta_group),
            TcOp::MmaPair { .. } => Some(2),
            _ => None,
        }
    }

    /// [`TcOp::cta_group`], to change.
    pub fn cta_group_mut(&mut self) -> Option<&mut u8> {
        match self {
            TcOp::Alloc { cta_group, .. }
            | TcOp::Dealloc { cta_group, .. }
            | TcOp::Relinquish { cta_group }
            | TcOp::Mma { cta_group, .. }
            | TcOp::Cp { cta_group, .. }
            | TcOp::Shift { cta_group, .. }
            | TcOp::Commit { cta_group, .. } => Some(cta_group),
            _ => None,
        }
    }
}

/// What a `wait` form spins on (`wait ld.acquire.gpu r0, [flag] == 1`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitTarget {
    pub op: super::CmpOp,
    pub value: Operand,
}

/// One instruction of a thread's program. A field holding an `Instr` again (the wrappers
/// below) deserializes through `nesting::nested`, which bounds the depth of hostile input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Instr {
    Ld {
        sem: Option<Sem>,
        scope: Option<Scope>,
        space: Option<AddrSpace>,
        proxy: Proxy,
        dst: String,
        addr: String,
    },
    St {
        sem: Option<Sem>,
        scope: Option<Scope>,
        space: Option<AddrSpace>,
        proxy: Proxy,
        addr: String,
        src: Operand,
    },
    /// `atom` (`dst` set), `red` (`dst` is `None`) and `atom.cas`.
    Atom {
        op: AtomOp,
        sem: Option<Sem>,
        scope: Option<Scope>,
        space: Option<AddrSpace>,
        dst: Option<String>,
        addr: String,
        args: Vec<Operand>,
    },
    Fence(Fence),
    /// `bar.{sync,arrive,red}` / `barrier.cta.*`; `count` is in PTX threads.
    Bar {
        kind: BarKind,
        id: Operand,
        count: Option<Operand>,
        sugar: Option<Sugar>,
    },
    /// `barrier.cluster.arrive{.release,.relaxed}`; `None` means the default `.release`.
    ClusterArrive { sem: Option<Sem> },
    /// `barrier.cluster.wait{.acquire}`.
    ClusterWait,
    Mbar(MbarOp),
    /// Non-bulk `cp.async` global → shared (generic proxy, weak).
    CpAsync { dst: String, src: String, bytes: u32 },
    CpAsyncCommit,
    CpAsyncWait { n: u32 },
    CpAsyncWaitAll,
    CpAsyncMbarArrive { bar: String, noinc: bool, space: Option<AddrSpace> },
    /// `cp.async.bulk` / `cp.reduce.async.bulk`.
    Bulk {
        dir: BulkDir,
        dst: String,
        src: String,
        bytes: u32,
        /// `.mbarrier::complete_tx::bytes [mbar]`; `None` means `.bulk_group`.
        mbar: Option<String>,
        /// Extra `(dst, mbar)` pairs of a `.multicast::cluster` copy, one per peer CTA.
        multicast: Vec<(String, String)>,
        reduce: Option<AtomOp>,
        tensor: bool,
    },
    BulkCommit,
    BulkWait { n: u32, read: bool },
    /// `st.async` / `red.async` into a peer CTA's shared memory, with complete_tx on `mbar`.
    StAsync {
        addr: String,
        src: Operand,
        mbar: String,
        red: Option<AtomOp>,
    },
    Wgmma(WgmmaOp),
    Tc(TcOp),
    Label(String),
    /// `bra L`, or a conditional branch `@(a op b) bra L` / litmus `beq a, b, L`.
    Branch {
        target: String,
        cond: Option<(Operand, super::CmpOp, Operand)>,
    },
    Mov { dst: String, src: Operand },
    Add { dst: String, a: Operand, b: Operand },
    /// Spin: repeat `instr` until it succeeds (`try_wait`/`test_wait` true, or the loaded
    /// value satisfies `until`).
    Wait {
        #[serde(deserialize_with = "super::nesting::nested")]
        instr: Box<Instr>,
        until: Option<WaitTarget>,
    },
    Exit,
    /// Byte offsets on location operands (`ld.b32 r, [x+4]`, issue 16): `instr` accesses a
    /// byte range of its locations instead of the whole. `at` is the offset of the first
    /// location operand (the accessed one, or a copy's destination and every multicast
    /// destination), `src_at` that of a copy's source. `width` is the access width the
    /// type suffix gave (`.b32` = 4) for `ld`/`st`/`atom`/`red`/`st.async`; copies have
    /// `None`, their byte count is the width. An operand without an offset is the whole
    /// location, as without this wrapper.
    Ranged {
        #[serde(deserialize_with = "super::nesting::nested")]
        instr: Box<Instr>,
        at: Option<u32>,
        src_at: Option<u32>,
        width: Option<u32>,
    },
    /// `@p instr` / `@!p instr` (a PTX guard): `instr` runs when register `pred` is
    /// non-zero (zero when `negated`); otherwise the step only moves the pc.
    Guarded {
        pred: String,
        negated: bool,
        #[serde(deserialize_with = "super::nesting::nested")]
        instr: Box<Instr>,
    },
    /// `setp.<cmp> p, a, b`: `p` becomes 1 when `a cmp b` holds, else 0.
    SetP {
        dst: String,
        op: super::CmpOp,
        a: Operand,
        b: Operand,
    },
}

impl Instr {
    /// The instruction under its guard and byte offsets (`@p ld.b32 r, [x+4]` → the `ld`).
    pub fn unwrapped(&self) -> &Instr {
        match self {
            Instr::Guarded { instr, .. } | Instr::Ranged { instr, .. } => instr.unwrapped(),
            other => other,
        }
    }

    /// The access width a byte range gave (`ld.b32 r, [x+4]` → 4), through a guard.
    pub fn access_width(&self) -> Option<u32> {
        match self {
            Instr::Ranged { width, .. } => *width,
            Instr::Guarded { instr, .. } => instr.access_width(),
            _ => None,
        }
    }

    /// [`Instr::unwrapped`], to change.
    pub fn unwrapped_mut(&mut self) -> &mut Instr {
        match self {
            Instr::Guarded { instr, .. } | Instr::Ranged { instr, .. } => instr.unwrapped_mut(),
            other => other,
        }
    }
}
