//! Instruction semantics, one module per family, plus the causality table [`sync`].
//!
//! Adding a family = one module here + a variant of [`AsyncOp`] when it spawns agents;
//! the explorer only calls [`readiness`] and [`step`].

pub mod access;
mod async_op;
pub mod atom;
pub mod bar;
pub mod cluster;
pub mod control;
mod dispatch;
pub mod exec;
pub mod fence;
pub mod ld_st;
pub mod mbarrier;
pub mod race;
pub mod sync;

pub use async_op::{async_kind, AsyncOp};
pub use dispatch::{current_instr, readiness, step, unsupported};
pub use exec::{Exec, RawFinding, Readiness, StepOutcome};
