//! What a search answers: plain data, which the app decodes and shows without linking the
//! search itself (the page's wasm is built without the `search` feature; the worker's
//! engine runs it).

use serde::{Deserialize, Serialize};

use crate::check::{Mode, Verdict};
use crate::model::Instr;

/// Bounds on the search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Most edits in one fix.
    pub max_edits: usize,
    /// Most checker runs in all; the search stops early when it reaches them.
    pub max_checks: usize,
    /// States per checker run.
    pub max_states: u64,
    /// Partial fixes kept per level.
    pub beam: usize,
    /// Candidate edits tried per partial fix, nearest the finding first.
    pub per_node: usize,
    /// Fixes reported.
    pub max_fixes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_edits: 4, max_checks: 4000, max_states: 100_000, beam: 10, per_node: 250, max_fixes: 8 }
    }
}

/// The verdict of a fixed program in one mode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeVerdict {
    pub mode: Mode,
    pub verdict: Verdict,
}

/// One verified fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// Cost of the whole fixed program ([`crate::cost`]).
    pub cost: u32,
    /// SASS ops gained and lost, e.g. `+1 MEMBAR.ALL.GPU`.
    pub cost_change: Vec<String>,
    pub changes: Vec<Change>,
    pub edits: Vec<LineEdit>,
    /// The fixed source, with expect lines saying what the checker found per mode.
    pub text: String,
    /// The re-check in each mode.
    pub modes: Vec<ModeVerdict>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Search {
    /// The original's verdict in the searched mode.
    pub verdict: Verdict,
    pub mode: Mode,
    pub cost: u32,
    /// Cheapest first, then fewest edits.
    pub fixes: Vec<Fix>,
    pub checks: usize,
    /// Why the search stopped before trying everything within its bounds.
    pub stopped_early: Option<String>,
}

/// A step whose weakening the checker notices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Necessary {
    pub line: usize,
    pub thread: String,
    pub instr: usize,
    pub text: String,
    /// Each weakening that breaks it: `(after, verdict, first finding)`.
    pub breaks: Vec<Breakage>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakage {
    pub kind: String,
    pub after: String,
    pub verdict: Verdict,
    pub finding: Option<String>,
}

/// A step that can go, or be weakened, with the verdict unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redundant {
    pub line: usize,
    pub thread: String,
    pub instr: usize,
    pub text: String,
    pub kind: String,
    /// `(dropped)` or the weaker instruction.
    pub after: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Improvement {
    pub mode: Mode,
    pub cost: u32,
    pub necessary: Vec<Necessary>,
    pub redundant: Vec<Redundant>,
    /// Correct variants costing less than the original, cheapest first.
    pub cheaper: Vec<Fix>,
    pub checks: usize,
    pub stopped_early: Option<String>,
}

/// One edit. Indices are into the original thread's program, so edits combine in any order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Change {
    Replace { thread: usize, at: usize, with: Instr },
    /// Insert before original instruction `before` (`before == len` appends).
    Insert { thread: usize, before: usize, instr: Instr },
    /// Swap instruction `at` with the one after it.
    MoveDown { thread: usize, at: usize },
    /// Take instruction `from` out and put it back before original instruction `to`
    /// (`to == len` appends): a move of more than one place.
    Move { thread: usize, from: usize, to: usize },
    /// Delete instruction `at` (only the cheaper-variant search weakens).
    Remove { thread: usize, at: usize },
    /// Declare mbarrier `bar` (an index into the scenario's mbarriers) with arrival count
    /// `count`, for barriers the scenario starts initialised.
    DeclaredCount { bar: usize, count: u32 },
    /// Insert right after original instruction `after`, ahead of every insert before
    /// `after + 1`: a wait closing the instance that instruction opened goes before a new
    /// round placed there.
    InsertAfter { thread: usize, after: usize, instr: Instr },
    /// Declare a new mbarrier `name` in CTA `cta` (an index into the scenario's CTAs),
    /// initialised with arrival count `count`: the barrier of a handoff the scenario lacks.
    Declare { cta: usize, name: String, count: u32 },
}

/// One edit as the user sees it: a source line, what it said and what it says now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineEdit {
    /// 1-based line in the original source.
    pub line: usize,
    /// The original instruction (empty for an insert).
    pub before: String,
    /// The new instruction (for a move, both lines in their new order).
    pub after: String,
}
