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
    /// Per `expect` line, in order.
    pub expect: Vec<Span>,
    pub conditions: Vec<Span>,
    /// Source comments, for `fencelab fmt`.
    pub comments: Vec<Comment>,
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

    pub fn expect(&self, i: usize) -> Option<Span> {
        self.expect.get(i).copied()
    }

    pub fn condition(&self, i: usize) -> Option<Span> {
        self.conditions.get(i).copied()
    }

    /// Comments attached to `anchor`, leading ones first.
    pub fn comments_at(&self, anchor: Anchor, trailing: bool) -> impl Iterator<Item = &str> {
        self.comments.iter().filter(move |c| c.anchor == anchor && c.trailing == trailing).map(|c| c.text.as_str())
    }
}

/// What a comment is attached to, so the formatter can keep it next to its item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Anchor {
    Cluster(usize),
    Cta(usize),
    Location(usize),
    Mbarrier(usize),
    Thread(usize),
    /// Thread index, instruction index.
    Instr(usize, usize),
    /// Index of the `expect` line.
    Expect(usize),
    Condition(usize),
    /// After everything else.
    End,
}

/// A `#` comment of the source (not the title line and not a printer's default note).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    pub anchor: Anchor,
    /// Text after `#`, trimmed.
    pub text: String,
    /// On the same line as its item (after it) rather than on a line of its own before it.
    pub trailing: bool,
}
