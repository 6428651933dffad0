//! Asynchronous agents (TMA copies, `st.async`, wgmma, tcgen05): each family adds a
//! variant here and a semantics module; the explorer needs no change.

/// The operation an asynchronous agent performs. Async families add variants here.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AsyncOp {}

pub fn async_kind(op: &AsyncOp) -> &'static str {
    match *op {}
}
