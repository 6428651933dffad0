//! Texts for messages and the stepping UI; instruction text is the syntax printer's.

use crate::model::{Fence, Instr, Scope};

pub fn scope(s: Scope) -> &'static str {
    match s {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

/// One-line canonical text of an instruction.
pub fn instr(i: &Instr) -> String {
    crate::syntax::instr_text(i)
}

pub fn fence(f: &Fence) -> String {
    instr(&Instr::Fence(f.clone()))
}
