//! Mutation self-test: single-point weakenings of a scenario's synchronization.
//!
//! [`mutants`] derives every one-step weakening of a scenario (narrow a scope, weaken a
//! semantics, drop a fence, wait, commit or `expect_tx`, flip a parity, change a count or a
//! byte count, move an instruction past its neighbour). Each mutant is built on the model
//! and printed with the canonical printer, then loaded again: a mutant the parser or the
//! verifier rejects is not a scenario and is left out. [`judge`] runs the checker on each
//! mutant: a mutant whose verdict (or final conditions) differs from the original's is
//! killed; one the checker cannot tell apart survived. For a correct scenario a survivor is
//! either a harmless edit or a checker gap: a weakened program called correct.
//!
//! Deriving and judging mutants is behind the `search` feature (on with `cli`), like the
//! fix search that uses them; the app's page links only the names below.

#[cfg(feature = "search")]
mod edits;
#[cfg(feature = "search")]
mod judge;
#[cfg(feature = "search")]
mod mutants;

#[cfg(feature = "search")]
pub use judge::{judge, Fate, Judged};
#[cfg(feature = "search")]
pub use mutants::{mutants, Mutant};

/// A mutant's `after` text when it drops the instruction.
pub const DROPPED: &str = "(dropped)";

/// What kind of weakening a mutant applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MutationKind {
    NarrowScope,
    WeakenSem,
    /// Drop a fence, proxy fence, barrier, wait, commit or `expect_tx`.
    Drop,
    FlipParity,
    ChangeCount,
    ChangeBytes,
    /// Swap an instruction with the next one of its thread.
    MoveDown,
    /// `@p` ↔ `@!p`: the guarded instruction runs on the other path.
    InvertGuard,
}

impl MutationKind {
    pub fn name(self) -> &'static str {
        match self {
            MutationKind::NarrowScope => "narrow-scope",
            MutationKind::WeakenSem => "weaken-sem",
            MutationKind::Drop => "drop",
            MutationKind::FlipParity => "flip-parity",
            MutationKind::ChangeCount => "change-count",
            MutationKind::ChangeBytes => "change-bytes",
            MutationKind::MoveDown => "move-down",
            MutationKind::InvertGuard => "invert-guard",
        }
    }
}

#[cfg(all(test, feature = "search"))]
mod tests;
