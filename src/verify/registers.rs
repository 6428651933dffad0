//! Registers read before any write (they start at 0, which is rarely what the author
//! meant) and condition registers no instruction writes.

use std::collections::HashSet;

use super::context::Ctx;
use super::decls::collect_terms;
use crate::diag::Diagnostic;
use crate::model::{Instr, MbarKind, MbarOp, Operand, TcOp, Term, WgmmaOp};

pub fn check(ctx: &mut Ctx) {
    let mut written_by: Vec<HashSet<String>> = Vec::new();
    let mut found = Vec::new();
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        let mut written: HashSet<String> = HashSet::new();
        let mut warned: HashSet<String> = HashSet::new();
        for (i, instr) in thread.program.iter().enumerate() {
            let (reads, writes) = uses(instr);
            for r in reads {
                if r != "_" && !written.contains(r) && warned.insert(r.to_string()) {
                    found.push((t, i, r.to_string()));
                }
            }
            written.extend(writes.into_iter().map(str::to_string));
        }
        written_by.push(written);
    }
    for (t, i, reg) in found {
        ctx.push(
            Diagnostic::warning("F0402", format!("register `{reg}` is read before it is written"))
                .with_primary(ctx.at(t, i), format!("`{reg}` still holds its initial 0 here"))
                .with_help("write it first (e.g. `mov`) or check the name"),
        );
    }
    for (i, fc) in ctx.s.conditions.iter().enumerate() {
        let mut terms = Vec::new();
        collect_terms(&fc.cond, &mut terms, 0);
        for term in terms {
            if let Term::Reg { thread, reg } = term {
                let Some(t) = ctx.thread_index(thread) else { continue };
                if !written_by.get(t).is_some_and(|w| w.contains(reg)) {
                    ctx.push(
                        Diagnostic::warning("F0411", format!("`{thread}` never writes register `{reg}`"))
                            .with_primary(ctx.map.condition(i), "this condition reads it"),
                    );
                }
            }
        }
    }
}

fn reg(o: &Operand) -> Option<&str> {
    match o {
        Operand::Reg(r) => Some(r),
        Operand::Imm(_) => None,
    }
}

/// Registers an instruction reads and writes.
pub(super) fn uses(instr: &Instr) -> (Vec<&str>, Vec<&str>) {
    let mut reads: Vec<&str> = Vec::new();
    let mut writes: Vec<&str> = Vec::new();
    match instr {
        Instr::Ld { dst, .. } => writes.push(dst),
        Instr::St { src, .. } => reads.extend(reg(src)),
        Instr::Atom { dst, args, .. } => {
            reads.extend(args.iter().filter_map(reg));
            writes.extend(dst.as_deref());
        }
        Instr::Bar { id, count, .. } => {
            reads.extend(reg(id));
            reads.extend(count.as_ref().and_then(reg));
        }
        Instr::Mbar(MbarOp { kind, .. }) => match kind {
            MbarKind::Arrive { state, .. } => writes.extend(state.as_deref()),
            MbarKind::Wait { phase, dst, .. } => {
                reads.extend(reg(phase));
                writes.extend(dst.as_deref());
            }
            MbarKind::PendingCount { dst, state } => {
                reads.push(state);
                writes.push(dst);
            }
            _ => {}
        },
        Instr::StAsync { src, .. } => reads.extend(reg(src)),
        Instr::Wgmma(WgmmaOp::MmaAsync { acc, .. }) => writes.push(acc),
        Instr::Tc(TcOp::Ld { dst, .. }) => writes.push(dst),
        Instr::Tc(TcOp::St { src, .. }) => reads.extend(reg(src)),
        Instr::Branch { cond: Some((a, _, b)), .. } => reads.extend([a, b].into_iter().filter_map(reg)),
        Instr::Mov { dst, src } => {
            reads.extend(reg(src));
            writes.push(dst);
        }
        Instr::Add { dst, a, b } => {
            reads.extend([a, b].into_iter().filter_map(reg));
            writes.push(dst);
        }
        Instr::Wait { instr, until } => {
            let (r, w) = uses(instr);
            reads.extend(r);
            writes.extend(w);
            reads.extend(until.as_ref().and_then(|u| reg(&u.value)));
        }
        _ => {}
    }
    (reads, writes)
}
