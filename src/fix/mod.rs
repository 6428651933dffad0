//! "Fix it": the cheapest verified repairs of a broken scenario, and for a correct one,
//! which synchronization steps matter and which cheaper variants stay correct.
//!
//! [`fix`] searches sets of strengthening edits ([`candidates`]): breadth-first by number
//! of edits, trying first the edits in the threads and near the instructions the first
//! finding names, expanding only edits that move the first finding (a beam), memoizing
//! each checked program by its canonical text. The search is bounded by edits and by
//! checks, and says when a bound stopped it. Every fix found is applied to the author's
//! source, loaded again and re-checked in both modes; fixes are ranked by their cost
//! ([`crate::cost`]), then by number of edits.
//!
//! [`improve`] (for a correct scenario) judges each single weakening ([`crate::mutate`]):
//! killed ones mark necessary steps, surviving drops mark redundant ones, and a weakening
//! that saves cost is repaired by one cheaper strengthening where one exists.

mod candidates;
mod change;
mod handoffs;
mod improve;
mod search;

pub use change::{Change, LineEdit};
pub use improve::{improve, Improvement, Necessary, Redundant};
pub use search::{fix, Fix, FixError, Limits, ModeVerdict, Search};

#[cfg(test)]
mod tests;
