//! Expectations and litmus-style final conditions.

use serde::{Deserialize, Serialize};

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

/// A boolean formula over final register and memory values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cond {
    True,
    Cmp(Term, CmpOp, Term),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
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
