//! fencelab core: the scenario model, its text syntax, the checker and everything the app
//! and the CLI share. No UI and no IO live here, and user input never panics.

pub mod check;
pub mod diag;
pub mod lesson;
pub mod model;
pub mod schedule;
pub mod syntax;
