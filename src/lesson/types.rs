//! The parsed shape of a lesson: plain, serializable data the CLI and the app share.

use serde::{Deserialize, Serialize};

use crate::check::Mode;
use crate::model::Expect;

/// A problem in a lesson file, with the 1-based line it is on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonError {
    pub line: usize,
    /// One line, rustc style: lowercase, no trailing period.
    pub message: String,
}

impl LessonError {
    pub fn new(line: usize, message: impl Into<String>) -> LessonError {
        LessonError { line, message: message.into() }
    }
}

/// The front matter between the leading `---` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonMeta {
    pub id: String,
    pub title: String,
    pub order: u32,
    /// Ids of lessons a learner should read first.
    pub prerequisites: Vec<String>,
    pub tags: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lesson {
    pub meta: LessonMeta,
    pub blocks: Vec<Block>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Block {
    /// Markdown prose; render it with [`super::render_markdown`].
    Prose(String),
    /// A ```` ```fence ```` block: `.fence` source and the lesson line its first line is on.
    /// ```` ```fence strict ```` / ```` ```fence pragmatic ```` pin the checker's mode;
    /// `None` means the default mode.
    Scenario { source: String, line: usize, mode: Option<Mode> },
    Exercise(Exercise),
}

/// A `.fence` program inside an exercise, with the lesson line of its first line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub source: String,
    pub line: usize,
}

/// An exercise: a starting scenario the learner edits until it meets the goal.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exercise {
    /// Unique within the lesson; the app keys progress on `lesson id/exercise id`.
    pub id: String,
    /// Lesson line of the ```` ```exercise ```` fence.
    pub line: usize,
    /// What to do, in Markdown.
    pub prompt: String,
    pub goal: Goal,
    /// Shown one at a time, in order.
    pub hints: Vec<String>,
    /// What the learner starts from; its final conditions are part of the goal.
    pub start: Part,
    /// The reference solution. Never shown to learners; CI checks that it passes.
    pub solution: Part,
}

/// What a learner's program must achieve. Every item is graded by the checker or by a
/// syntactic test on the parsed program; nothing is judged by eye.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Goal {
    /// The checker's verdict must be this (`goal: correct`).
    pub verdict: Expect,
    /// Only these threads' programs may change (`lanes: producer, consumer`); `None` = any.
    pub lanes: Option<Vec<String>>,
    /// Instruction classes the program must not contain (`forbid: membar-gpu`).
    pub forbid: Vec<Forbid>,
    /// At most this many instructions over all threads, labels excluded.
    pub max_instructions: Option<usize>,
    /// The checker mode grading runs in (`mode: strict`); pragmatic unless given.
    pub mode: Mode,
}

impl Default for Goal {
    fn default() -> Self {
        Goal {
            verdict: Expect::Correct,
            lanes: None,
            forbid: Vec::new(),
            max_instructions: None,
            mode: Mode::Pragmatic,
        }
    }
}

/// Instruction classes a goal can forbid. The names are the `forbid:` spellings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Forbid {
    /// Anything one compiler lowers to a GPU-wide `MEMBAR` on sm_90a
    /// (`/work/shared/reference/sass-lowering-sm90a.md`).
    MembarGpu,
    /// `fence.sc.*`, `membar.*`, `__threadfence*()`.
    FenceSc,
    /// Any thread fence (`fence.{sc,acq_rel,acquire,release}`, restricted or not).
    ThreadFence,
    /// Any `fence.proxy.*`.
    ProxyFence,
    /// `bar.*` / `barrier.cta.*` / `__syncthreads()`.
    CtaBarrier,
    /// `barrier.cluster.*`.
    ClusterBarrier,
}

impl Forbid {
    pub const ALL: [Forbid; 6] = [
        Forbid::MembarGpu,
        Forbid::FenceSc,
        Forbid::ThreadFence,
        Forbid::ProxyFence,
        Forbid::CtaBarrier,
        Forbid::ClusterBarrier,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Forbid::MembarGpu => "membar-gpu",
            Forbid::FenceSc => "fence-sc",
            Forbid::ThreadFence => "thread-fence",
            Forbid::ProxyFence => "proxy-fence",
            Forbid::CtaBarrier => "cta-barrier",
            Forbid::ClusterBarrier => "cluster-barrier",
        }
    }

    pub fn from_name(name: &str) -> Option<Forbid> {
        Forbid::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The result of grading one learner attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grade {
    pub passed: bool,
    /// False when the checker could not finish (state cap, or an instruction it cannot
    /// model yet): then `passed` is false but nothing was proven either way.
    pub complete: bool,
    /// Why it failed (or notes when it passed), one line each.
    pub reasons: Vec<String>,
}
