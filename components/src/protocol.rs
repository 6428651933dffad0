//! The page↔worker messages live in their own crate (protocol/), shared with the
//! speed-built engine (engine/).
pub use fencelab_protocol::*;
