//! Importer for Dat3M's PTX litmus tests (`LitmusPTX.g4`), into a [`crate::model::Scenario`].
//!
//! Threads `P0@cta N,gpu M` become single-lane threads; each distinct `(cta, gpu)` pair is
//! a CTA in its own cluster on GPU `M`. Locations are global. A test the model cannot
//! express faithfully is [`LitmusError::Unsupported`] with the reason; malformed text is
//! [`LitmusError::Syntax`] with the line. Neither ever panics.

mod barrier;
mod build;
mod cond;
pub mod conformance;
mod cursor;
mod error;
mod instr;
mod lexer;
mod parser;

pub use error::LitmusError;

use crate::model::Scenario;

/// Imports one litmus test.
pub fn import(src: &str) -> Result<Scenario, LitmusError> {
    build::build(parser::parse(src)?)
}

#[cfg(test)]
mod tests;
