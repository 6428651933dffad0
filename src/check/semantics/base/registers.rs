//! Which registers an instruction reads and writes: for the register hazards of
//! asynchronous ops (wgmma accumulators, `tcgen05.ld` destinations).

use crate::model::{Instr, MbarKind, Operand, TcOp, WgmmaOp};

fn reg(op: &Operand) -> Option<&str> {
    match op {
        Operand::Reg(r) if r != "_" => Some(r.as_str()),
        _ => None,
    }
}

pub fn reads(instr: &Instr) -> Vec<&str> {
    match instr {
        Instr::St { src, .. } | Instr::StAsync { src, .. } | Instr::Mov { src, .. } => reg(src).into_iter().collect(),
        Instr::Tc(TcOp::St { src, .. }) => reg(src).into_iter().collect(),
        Instr::Atom { args, .. } => args.iter().filter_map(reg).collect(),
        Instr::Add { a, b, .. } => [a, b].into_iter().filter_map(reg).collect(),
        Instr::Branch { cond: Some((a, _, b)), .. } => [a, b].into_iter().filter_map(reg).collect(),
        Instr::Bar { id, count, .. } => std::iter::once(id).chain(count).filter_map(reg).collect(),
        Instr::Mbar(op) => match &op.kind {
            MbarKind::Wait { phase, .. } => reg(phase).into_iter().collect(),
            MbarKind::PendingCount { state, .. } => vec![state.as_str()],
            _ => Vec::new(),
        },
        Instr::Wait { instr, until } => {
            let mut r = reads(instr);
            if let Some(t) = until {
                r.extend(reg(&t.value));
            }
            r
        }
        _ => Vec::new(),
    }
}

pub fn writes(instr: &Instr) -> Vec<&str> {
    fn name(s: &str) -> Option<&str> {
        (s != "_").then_some(s)
    }
    match instr {
        Instr::Ld { dst, .. } | Instr::Mov { dst, .. } | Instr::Add { dst, .. } => name(dst).into_iter().collect(),
        Instr::Atom { dst: Some(d), .. } => name(d).into_iter().collect(),
        Instr::Tc(TcOp::Ld { dst, .. }) => name(dst).into_iter().collect(),
        Instr::Mbar(op) => match &op.kind {
            MbarKind::Arrive { state: Some(s), .. } => name(s).into_iter().collect(),
            MbarKind::Wait { dst: Some(d), .. } => name(d).into_iter().collect(),
            MbarKind::PendingCount { dst, .. } => name(dst).into_iter().collect(),
            _ => Vec::new(),
        },
        Instr::Wait { instr, .. } => writes(instr),
        _ => Vec::new(),
    }
}

/// Registers an instruction touches, except a wgmma's own accumulator (chaining is allowed).
pub fn touched(instr: &Instr) -> Vec<&str> {
    if matches!(instr, Instr::Wgmma(WgmmaOp::MmaAsync { .. })) {
        return Vec::new();
    }
    let mut r = reads(instr);
    r.extend(writes(instr));
    r
}
