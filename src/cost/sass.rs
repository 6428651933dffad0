//! The SASS ops synchronization lowers to, with a weight each. The weights are our own
//! relative estimates (`docs/fix.md`): a GPU-wide MEMBAR waits for this thread's writes to
//! reach L2, an L1 invalidate costs the misses after it, a CTA-level MEMBAR or a SYNCS op
//! stays inside the SM.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sass {
    MembarAllCta,
    MembarScCta,
    MembarAllGpu,
    MembarScGpu,
    MembarAllSys,
    MembarScSys,
    Errbar,
    CgaErrbar,
    CctlIvall,
    FenceViewAsyncS,
    FenceViewAsyncG,
    FenceViewAsyncT,
    SyncsExch64,
    SyncsArriveTrans64,
    SyncsArriveA1T0,
    SyncsArriveRedA1T0,
    SyncsPhaseCheck,
    BarSync,
    BarArrive,
    BarRed,
    ClusterBarArrive,
    ClusterBarWait,
    LdgDepBar,
    DepBar,
    ArrivesLdgstsBar,
    TmaCmdFlush,
    WarpgroupArrive,
    WarpgroupDepBar,
    Elect,
    TcBar,
    TcAtomSws,
}

impl Sass {
    pub const ALL: [Sass; 31] = [
        Sass::MembarAllCta,
        Sass::MembarScCta,
        Sass::MembarAllGpu,
        Sass::MembarScGpu,
        Sass::MembarAllSys,
        Sass::MembarScSys,
        Sass::Errbar,
        Sass::CgaErrbar,
        Sass::CctlIvall,
        Sass::FenceViewAsyncS,
        Sass::FenceViewAsyncG,
        Sass::FenceViewAsyncT,
        Sass::SyncsExch64,
        Sass::SyncsArriveTrans64,
        Sass::SyncsArriveA1T0,
        Sass::SyncsArriveRedA1T0,
        Sass::SyncsPhaseCheck,
        Sass::BarSync,
        Sass::BarArrive,
        Sass::BarRed,
        Sass::ClusterBarArrive,
        Sass::ClusterBarWait,
        Sass::LdgDepBar,
        Sass::DepBar,
        Sass::ArrivesLdgstsBar,
        Sass::TmaCmdFlush,
        Sass::WarpgroupArrive,
        Sass::WarpgroupDepBar,
        Sass::Elect,
        Sass::TcBar,
        Sass::TcAtomSws,
    ];

    /// The opcode as `cuobjdump -sass` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Sass::MembarAllCta => "MEMBAR.ALL.CTA",
            Sass::MembarScCta => "MEMBAR.SC.CTA",
            Sass::MembarAllGpu => "MEMBAR.ALL.GPU",
            Sass::MembarScGpu => "MEMBAR.SC.GPU",
            Sass::MembarAllSys => "MEMBAR.ALL.SYS",
            Sass::MembarScSys => "MEMBAR.SC.SYS",
            Sass::Errbar => "ERRBAR",
            Sass::CgaErrbar => "CGAERRBAR",
            Sass::CctlIvall => "CCTL.IVALL",
            Sass::FenceViewAsyncS => "FENCE.VIEW.ASYNC.S",
            Sass::FenceViewAsyncG => "FENCE.VIEW.ASYNC.G",
            Sass::FenceViewAsyncT => "FENCE.VIEW.ASYNC.T",
            Sass::SyncsExch64 => "SYNCS.EXCH.64",
            Sass::SyncsArriveTrans64 => "SYNCS.ARRIVE.TRANS64",
            Sass::SyncsArriveA1T0 => "SYNCS.ARRIVE.TRANS64.A1T0",
            Sass::SyncsArriveRedA1T0 => "SYNCS.ARRIVE.TRANS64.RED.A1T0",
            Sass::SyncsPhaseCheck => "SYNCS.PHASECHK.TRANS64.TRYWAIT",
            Sass::BarSync => "BAR.SYNC.DEFER_BLOCKING",
            Sass::BarArrive => "BAR.ARV",
            Sass::BarRed => "BAR.RED",
            Sass::ClusterBarArrive => "UCGABAR_ARV",
            Sass::ClusterBarWait => "UCGABAR_WAIT",
            Sass::LdgDepBar => "LDGDEPBAR",
            Sass::DepBar => "DEPBAR.LE",
            Sass::ArrivesLdgstsBar => "ARRIVES.LDGSTSBAR.64.ARVCNT",
            Sass::TmaCmdFlush => "UTMACMDFLUSH",
            Sass::WarpgroupArrive => "WARPGROUP.ARRIVE",
            Sass::WarpgroupDepBar => "WARPGROUP.DEPBAR.LE",
            Sass::Elect => "ELECT",
            Sass::TcBar => "UTCBAR",
            Sass::TcAtomSws => "UTCATOMSWS",
        }
    }

    /// Relative cost in our units; `docs/fix.md` gives the reasons.
    pub fn weight(self) -> u32 {
        match self {
            Sass::MembarScSys => 60,
            Sass::MembarAllSys => 50,
            Sass::MembarScGpu => 25,
            Sass::MembarAllGpu => 20,
            Sass::CctlIvall => 5,
            Sass::BarSync | Sass::BarRed | Sass::ClusterBarWait => 4,
            Sass::MembarScCta => 3,
            Sass::MembarAllCta => 2,
            Sass::Errbar
            | Sass::CgaErrbar
            | Sass::FenceViewAsyncS
            | Sass::FenceViewAsyncG
            | Sass::FenceViewAsyncT
            | Sass::SyncsExch64
            | Sass::SyncsArriveTrans64
            | Sass::SyncsArriveA1T0
            | Sass::SyncsArriveRedA1T0
            | Sass::SyncsPhaseCheck
            | Sass::BarArrive
            | Sass::ClusterBarArrive
            | Sass::LdgDepBar
            | Sass::DepBar
            | Sass::ArrivesLdgstsBar
            | Sass::TmaCmdFlush
            | Sass::WarpgroupArrive
            | Sass::WarpgroupDepBar
            | Sass::Elect
            | Sass::TcBar
            | Sass::TcAtomSws => 1,
        }
    }
}
