//! The parsed shape of a lesson: plain, serializable data the CLI and the app share.

use serde::{Deserialize, Serialize};

use crate::check::Mode;
use crate::model::{Expect, Scope};

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

impl std::fmt::Display for LessonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for LessonError {}

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
    /// Fix a program, or predict the checker's verdict on it.
    pub kind: ExerciseKind,
    /// What to do, in Markdown.
    pub prompt: String,
    pub goal: Goal,
    /// Shown one at a time, in order.
    pub hints: Vec<String>,
    /// What the learner starts from; its final conditions are part of the goal.
    pub start: Part,
    /// The reference solution. Never shown to learners; CI checks that it passes. Empty
    /// for a [`ExerciseKind::Predict`] exercise, whose answer is `goal.verdict`.
    pub solution: Part,
}

/// What the learner does with an exercise's program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExerciseKind {
    /// Edit the starting program until it meets the goal (`kind: fix`, the default).
    #[default]
    Fix,
    /// Read the program and say which verdict the checker will give before it runs
    /// (`kind: predict`); the goal's verdict is the answer, and the program is not edited.
    Predict,
    /// Edit the starting program until it meets the goal at no more than the solution's
    /// cost on the sm_90a cost model (`kind: cheapest-fix`): graded on correctness and cost.
    CheapestFix,
}

impl ExerciseKind {
    pub fn name(self) -> &'static str {
        match self {
            ExerciseKind::Fix => "fix",
            ExerciseKind::Predict => "predict",
            ExerciseKind::CheapestFix => "cheapest-fix",
        }
    }
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
    /// No instruction may synchronize at a wider scope than this (`max-scope: cluster`):
    /// the exercise is about the narrowest scope that holds the threads involved.
    pub max_scope: Option<Scope>,
    /// The program may cost at most this much on the sm_90a cost model (`max-cost: 40`,
    /// [`crate::cost`]): the exercise is about the cheapest correct synchronization.
    pub max_cost: Option<u32>,
    /// The checker mode grading runs in (`mode: strict`); pragmatic unless given.
    pub mode: Mode,
    /// `keep-data: true`: in the `lanes` threads every data operation of the start (load,
    /// store, atomic, copy, MMA) must stay, in order, so the answer cannot dodge the
    /// question by relocating the signal or the data, or writing the data by hand.
    pub keep_data: bool,
}

impl Default for Goal {
    fn default() -> Self {
        Goal {
            verdict: Expect::Correct,
            lanes: None,
            forbid: Vec::new(),
            max_instructions: None,
            max_scope: None,
            max_cost: None,
            mode: Mode::Pragmatic,
            keep_data: false,
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
    /// An mbarrier arrive or wait at `.cta` scope, written or by default.
    CtaScopeMbarrier,
    /// An mbarrier arrive with `.release` or wait with `.acquire` semantics, written or by
    /// default: the exercise wants the relaxed forms plus fences.
    ReleaseAcquireMbarrier,
    /// Half of the split proxy fence, `fence.proxy.async::generic.{release,acquire}…`.
    ProxyFenceHalf,
}

impl Forbid {
    pub const ALL: [Forbid; 9] = [
        Forbid::MembarGpu,
        Forbid::FenceSc,
        Forbid::ThreadFence,
        Forbid::ProxyFence,
        Forbid::CtaBarrier,
        Forbid::ClusterBarrier,
        Forbid::CtaScopeMbarrier,
        Forbid::ReleaseAcquireMbarrier,
        Forbid::ProxyFenceHalf,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Forbid::MembarGpu => "membar-gpu",
            Forbid::FenceSc => "fence-sc",
            Forbid::ThreadFence => "thread-fence",
            Forbid::ProxyFence => "proxy-fence",
            Forbid::CtaBarrier => "cta-barrier",
            Forbid::ClusterBarrier => "cluster-barrier",
            Forbid::CtaScopeMbarrier => "cta-scope-mbarrier",
            Forbid::ReleaseAcquireMbarrier => "release-acquire-mbarrier",
            Forbid::ProxyFenceHalf => "proxy-fence-half",
        }
    }

    /// Why an exercise would forbid the class: the feedback a learner sees, so it names
    /// the point of the exercise and where the rule comes from.
    pub fn why(self) -> &'static str {
        match self {
            Forbid::MembarGpu => "it lowers to a GPU-wide `MEMBAR` on sm_90a in one compiler's lowering (a cost fact, not a \
memory-model rule); this exercise asks for the handoff without that cost",
            Forbid::FenceSc => "a sequentially consistent fence orders everything at its scope and is never the cheapest \
fix; this exercise is about the release/acquire pair that does the job [spec §1.10]",
            Forbid::ThreadFence => "this exercise is about the semantics of the synchronizing instructions themselves, \
not a separate fence",
            Forbid::ProxyFence => "this exercise does not need a proxy fence",
            Forbid::CtaBarrier => "a CTA barrier makes every participant wait for every other; this exercise asks for the \
one-way protocol that lets each side run on",
            Forbid::ClusterBarrier => "a cluster barrier stops the whole cluster; this exercise asks for a cheaper handoff",
            Forbid::CtaScopeMbarrier => "its `.cta` scope does not include the thread in the other CTA, so it is not \
morally strong with it and the handoff does not synchronize [spec §1.6] (bug 1 of the reference, the relay-warp arrive \
[spec §10.1]), even after a cluster-scope fence",
            Forbid::ReleaseAcquireMbarrier => "this exercise keeps the relaxed mbarrier operations and puts the release \
and acquire into fences [spec §1.5]",
            Forbid::ProxyFenceHalf => "it is one half of the split proxy fence: the specification pairs a release half \
before the synchronization with an acquire half in the thread that issues the async operation [spec §2.3], and it \
does not document that pairing for this use [ambiguous §10.8]; use the bi-directional `fence.proxy.async.shared::cta`",
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
    /// The attempt costs more than the exercise allows. The reasons list its SASS; the
    /// caller points at where each instruction's price shows (the CLI's `fencelab cost`,
    /// the app's "SASS cost" toggle).
    pub over_cost: bool,
}
