//! fencelab core: the scenario model, its text syntax, the checker and everything the app
//! and the CLI share. No UI and no IO live here, and user input never panics.

pub mod axiom;
pub mod check;
pub mod cost;
pub mod cuda;
pub mod diag;
pub mod fix;
pub mod heap;
pub mod import;
pub mod link;
pub mod litmus;
mod load;
pub mod lesson;
pub mod model;
pub mod mutate;
pub mod palette;
pub mod schedule;
pub mod sort;
pub mod syntax;
pub mod verify;

pub use load::{load, Loaded};
