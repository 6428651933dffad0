//! The machine the checker runs: static layout, agent knowledge, dynamic state.

mod agents;
mod fingerprint;
mod forget;
mod knowledge;
mod layout;
mod ranges;
mod relabel;
mod shared;
mod size;
mod state;
mod vv;

pub use agents::{AsyncOp, AsyncWhat, PeerHalf, Stage, TcWhat, TMEM_COLUMNS};
pub use fingerprint::FingerprintHashing;
pub use relabel::StateKeys;
pub use shared::Shared;
pub use size::own_bytes;
pub use knowledge::{needed, Filter, Knowledge, Message, Need};
pub use layout::{covers, Layout, Place, ProxyKey, StepFacts, Via, ALIAS_BIT};
pub use state::{
    merge_bare, Agent, AgentKind, BarState, BareArrival, Carried, EdgeRec, FailedRec, InstrRef, Machine,
    MbarState, ReadRec, Status, WriteRec,
};
pub use vv::{EventId, Meta, VersionVec};
