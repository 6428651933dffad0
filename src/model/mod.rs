//! The scenario model: a machine, its memory, per-thread programs and expectations.
//!
//! A [`Scenario`] is the unit the editor edits, the checker explores, lessons embed and
//! links carry. It is plain data: names refer to declarations by string, and the checker
//! resolves them. Source positions live in the syntax layer, not here.

mod cond;
mod facts;
mod instr;
mod machine;
pub(crate) mod nesting;
mod ranges;
mod pair;

pub use cond::{CmpOp, Cond, Expect, Expectation, FinalCondition, Mode, Quantifier, Term};
pub use facts::{By, Facts, Footprint, Named, Object, Shared, Silence, Sync, TensorMemory, Use, Via};
pub use instr::{
    AddrSpace, AtomOp, BarKind, BulkDir, Fence, FenceSem, Instr, MbarKind, MbarOp, MmaHalf, Operand,
    ProxyKind, Scope, Sem, Sugar, SyncRestrict, TcOp, WaitTarget, WgmmaOp,
};
pub use ranges::{ByteRange, RangeRole};
pub use pair::pair_peer;
pub use machine::{Alias, Cluster, Cta, Location, Mbarrier, Proxy, Space, Thread, MAX_LANES};

use serde::{Deserialize, Serialize};

/// Version of the serialized scenario shape. Bump it when a field changes meaning.
pub const SCENARIO_VERSION: u32 = 2;

/// A producer/consumer program on a small GPU, with what it is expected to show.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    /// One-line title, from the first `#` comment line of a `.fence` file.
    pub title: Option<String>,
    /// Clusters, in declaration order. A CTA declared without a cluster gets its own.
    pub clusters: Vec<Cluster>,
    pub ctas: Vec<Cta>,
    pub locations: Vec<Location>,
    pub mbarriers: Vec<Mbarrier>,
    pub threads: Vec<Thread>,
    /// The verdict classes the author claims: at most one per mode, or one for every mode.
    pub expect: Vec<Expectation>,
    /// Litmus-style final conditions over registers and memory.
    pub conditions: Vec<FinalCondition>,
}

impl Scenario {
    pub fn cta(&self, name: &str) -> Option<usize> {
        self.ctas.iter().position(|c| c.name == name)
    }

    pub fn location(&self, name: &str) -> Option<usize> {
        self.locations.iter().position(|l| l.name == name)
    }

    pub fn mbarrier(&self, name: &str) -> Option<usize> {
        self.mbarriers.iter().position(|m| m.name == name)
    }

    pub fn thread(&self, name: &str) -> Option<usize> {
        self.threads.iter().position(|t| t.name == name)
    }

    /// Cluster index of a CTA; `None` when the CTA does not exist.
    pub fn cluster_of(&self, cta: usize) -> Option<usize> {
        self.ctas.get(cta).map(|c| c.cluster)
    }

    /// GPU index of a CTA (scenarios are single-GPU unless imported from litmus tests);
    /// `None` when the CTA or its cluster does not exist.
    pub fn gpu_of(&self, cta: usize) -> Option<u32> {
        self.clusters.get(self.cluster_of(cta)?).map(|c| c.gpu)
    }

    /// Whether any cluster holds more than one CTA.
    pub fn has_clusters(&self) -> bool {
        self.clusters
            .iter()
            .enumerate()
            .any(|(i, _)| self.ctas.iter().filter(|c| c.cluster == i).count() > 1)
    }
}
