//! Instruction semantics, one module per family, plus the causality table [`sync`].
//!
//! Adding a family = one module here + a variant of [`AsyncOp`] when it spawns agents;
//! the explorer only calls [`readiness`] and [`step`].

pub mod access;
pub mod async_op;
pub mod atom;
pub mod bar;
pub mod cluster;
pub mod completion;
pub mod control;
pub mod cp_async;
mod dispatch;
pub mod exec;
pub mod fence;
pub mod ld_st;
pub mod mbarrier;
pub mod race;
pub mod registers;
pub mod st_async;
pub mod sync;
pub mod tcgen05;
pub mod tma;
pub mod wgmma;

pub use async_op::{kind_name as async_kind, AsyncOp};
pub use dispatch::{current_instr, readiness, step};
pub use exec::{Exec, RawFinding, Readiness, StepOutcome};
