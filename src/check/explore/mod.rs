//! Exhaustive exploration: breadth-first over schedules and read choices, with state
//! hashing and a partial-order reduction over independent thread groups.

mod bfs;
mod outcome;
mod por;
mod report;
mod scc;

pub use crate::syntax::condition_text;
pub use report::check;
