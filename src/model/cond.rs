//! Expectations and litmus-style final conditions.

use serde::{Deserialize, Serialize};

/// One `expect` line: the verdict class the author claims, and the mode it holds in
/// (`expect strict race`); `mode == None` claims it in every mode (`expect correct`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Expectation {
    pub mode: Option<Mode>,
    pub verdict: Expect,
}

impl Expectation {
    /// An expectation claimed in every mode.
    pub fn every_mode(verdict: Expect) -> Self {
        Expectation { mode: None, verdict }
    }

    /// Whether a run in `mode` judges this expectation.
    pub fn holds_in(&self, mode: Mode) -> bool {
        self.mode.is_none_or(|m| m == mode)
    }
}

/// How to treat the points where the PTX spec is silent (reference §12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mode {
    /// Follow the spec literally.
    Strict,
    /// Accept what production code (CUTLASS) does; differences become notes.
    #[default]
    Pragmatic,
}

impl Mode {
    /// The lowercase name the CLI, lessons and the app use.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Strict => "strict",
            Mode::Pragmatic => "pragmatic",
        }
    }

    /// Reads `strict` / `pragmatic`.
    pub fn from_name(name: &str) -> Option<Mode> {
        [Mode::Strict, Mode::Pragmatic].into_iter().find(|m| m.name() == name)
    }
}

/// The verdict class a scenario's author declares (`expect correct`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Expect {
    Correct,
    Race,
    Deadlock,
    Undefined,
}

/// `exists (...)`, `~exists (...)` or `forall (...)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalCondition {
    pub quantifier: Quantifier,
    pub cond: Cond,
}

/// A boolean formula over final register and memory values. A field holding a `Cond`
/// again deserializes through `nesting::nested`, which bounds the depth of hostile input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cond {
    True,
    Cmp(Term, CmpOp, Term),
    Not(#[serde(deserialize_with = "super::nesting::nested")] Box<Cond>),
    And(#[serde(deserialize_with = "super::nesting::nested")] Vec<Cond>),
    Or(#[serde(deserialize_with = "super::nesting::nested")] Vec<Cond>),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Term {
    Imm(i64),
    /// `thread:reg`, e.g. `consumer:r0`.
    Reg { thread: String, reg: String },
    /// Final value of a location.
    Mem(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn eval(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}
