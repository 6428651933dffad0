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
//!
//! [`order_by_cause`] puts first, among a report's findings, the one whose nearest
//! single-edit fix repairs the most of them: the cause before its consequences.
//!
//! The search is behind the `search` feature (on with `cli`): the app's page wasm links
//! only [`outcome`]'s types, to show what the worker's engine found (docs/loading.md).

mod outcome;
pub use outcome::{Breakage, Change, Fix, Improvement, Limits, LineEdit, ModeVerdict, Necessary, Redundant, Search};

#[cfg(feature = "search")]
mod candidates;
#[cfg(feature = "search")]
mod change;
#[cfg(feature = "search")]
mod handoffs;
#[cfg(feature = "search")]
mod improve;
#[cfg(feature = "search")]
mod order;
#[cfg(feature = "search")]
mod search;

#[cfg(feature = "search")]
pub use improve::improve;
#[cfg(feature = "search")]
pub use order::order_by_cause;
#[cfg(feature = "search")]
pub use search::{fix, FixError};

#[cfg(all(test, feature = "search"))]
mod tests;
