//! Where each part of a parsed scenario came from, as byte spans into the source.
//! Models built without text (links, litmus imports) use [`SourceMap::default`], and every
//! lookup then returns `None`.

use serde::{Deserialize, Serialize};

use crate::diag::Span;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceMap {
    /// Per cluster / CTA / location / mbarrier: the declaration line. Implicit clusters of
    /// lone CTAs point at the CTA's declaration.
    pub clusters: Vec<Span>,
    pub ctas: Vec<Span>,
    pub locations: Vec<Span>,
    pub mbarriers: Vec<Span>,
    /// Per thread: the `thread …:` line.
    pub threads: Vec<Span>,
    /// Per thread, per instruction: the instruction's text.
    pub instrs: Vec<Vec<Span>>,
    /// Per thread, per instruction: the span of each operand in source order.
    pub operands: Vec<Vec<Vec<Span>>>,
    pub expect: Option<Span>,
    pub conditions: Vec<Span>,
}

impl SourceMap {
    pub fn instr(&self, thread: usize, instr: usize) -> Option<Span> {
        self.instrs.get(thread)?.get(instr).copied()
    }

    /// Span of operand `operand` (0-based, source order) of an instruction.
    pub fn operand(&self, thread: usize, instr: usize, operand: usize) -> Option<Span> {
        self.operands.get(thread)?.get(instr)?.get(operand).copied()
    }

    pub fn cluster(&self, i: usize) -> Option<Span> {
        self.clusters.get(i).copied()
    }

    pub fn cta(&self, i: usize) -> Option<Span> {
        self.ctas.get(i).copied()
    }

    pub fn location(&self, i: usize) -> Option<Span> {
        self.locations.get(i).copied()
    }

    pub fn mbarrier(&self, i: usize) -> Option<Span> {
        self.mbarriers.get(i).copied()
    }

    pub fn thread(&self, i: usize) -> Option<Span> {
        self.threads.get(i).copied()
    }

    pub fn expect(&self) -> Option<Span> {
        self.expect
    }

    pub fn condition(&self, i: usize) -> Option<Span> {
        self.conditions.get(i).copied()
    }
}
