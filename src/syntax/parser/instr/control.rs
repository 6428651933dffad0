//! Branches, `mov`, `add`, `exit`.

use super::super::cursor::{Cursor, PResult};
use super::super::mods::Seg;
use super::bad_form;
use crate::model::{CmpOp, Instr, Operand};
use crate::syntax::lexer::Tok;

const BRANCHES: &[(&str, CmpOp)] = &[
    ("beq", CmpOp::Eq),
    ("bne", CmpOp::Ne),
    ("blt", CmpOp::Lt),
    ("ble", CmpOp::Le),
    ("bgt", CmpOp::Gt),
    ("bge", CmpOp::Ge),
];

/// The branch mnemonic of a comparison, for the printer.
pub fn branch_name(op: CmpOp) -> &'static str {
    BRANCHES.iter().find(|(_, o)| *o == op).map_or("bne", |(n, _)| n)
}

/// `None` when `segs` is not a control instruction.
pub fn control(c: &mut Cursor, segs: &[Seg]) -> Option<PResult<Instr>> {
    let head = segs.first()?.text;
    let rest = segs.get(1..).unwrap_or(&[]);
    let extra_ok =
        |allowed: &[&str]| rest.iter().all(|s| allowed.contains(&s.text) || super::super::mods::is_type_suffix(s.text));
    let span = segs.first().map(|f| segs.last().map_or(f.span, |l| f.span.to(l.span)));
    let result = match head {
        "bra" if extra_ok(&["uni"]) => target(c).map(|target| Instr::Branch { target, cond: None }),
        "mov" if extra_ok(&[]) => (|| {
            let dst = c.dst("a destination register")?;
            c.comma()?;
            Ok(Instr::Mov { dst, src: c.value("a register or an immediate")? })
        })(),
        "add" if extra_ok(&[]) => (|| {
            let dst = c.dst("a destination register")?;
            c.comma()?;
            let a = c.value("a register or an immediate")?;
            c.comma()?;
            Ok(Instr::Add { dst, a, b: c.value("a register or an immediate")? })
        })(),
        "exit" if rest.is_empty() => Ok(Instr::Exit),
        "setp" => return Some(setp(c, segs)),
        "bra" | "mov" | "add" | "exit" => {
            Err(bad_form(span, &format!("`{head}` takes no such modifier"), &format!("write plain `{head}`")))
        }
        _ => {
            let &(_, op) = BRANCHES.iter().find(|(n, _)| *n == head)?;
            (|| {
                let a = c.value("a register or an immediate")?;
                c.comma()?;
                let b = c.value("a register or an immediate")?;
                c.comma()?;
                Ok(Instr::Branch { target: target(c)?, cond: Some((a, op, b)) })
            })()
        }
    };
    Some(result)
}

/// `setp.<cmp>{.type} p, a, b` with `<cmp>` one of `eq ne lt le gt ge`.
fn setp(c: &mut Cursor, segs: &[Seg]) -> PResult<Instr> {
    let rest = segs.get(1..).unwrap_or(&[]);
    let mut cmp = None;
    for seg in rest {
        let named = BRANCHES.iter().find(|(n, _)| n.get(1..) == Some(seg.text)).map(|(_, op)| *op);
        match (named, cmp) {
            (Some(op), None) => cmp = Some(op),
            (Some(_), Some(_)) => return Err(bad_form(Some(seg.span), "`setp` takes one comparison", "remove one of them")),
            (None, _) if super::super::mods::is_type_suffix(seg.text) => {}
            (None, _) => {
                return Err(bad_form(Some(seg.span), &format!("`setp` takes no `.{}`", seg.text), "write `setp.eq`, `.ne`, `.lt`, `.le`, `.gt` or `.ge`"))
            }
        }
    }
    let Some(op) = cmp else {
        let span = segs.first().map(|s| s.span);
        return Err(bad_form(span, "`setp` needs a comparison", "write `setp.eq p, a, b` (or `.ne .lt .le .gt .ge`)"));
    };
    let dst = c.register("a predicate register")?;
    c.comma()?;
    let a = c.value("a register or an immediate")?;
    c.comma()?;
    Ok(Instr::SetP { dst, op, a, b: c.value("a register or an immediate")? })
}

fn target(c: &mut Cursor) -> PResult<String> {
    let (name, span) = c.ident("a label")?;
    c.operands.push(span);
    Ok(name)
}

/// `@p bra L` (taken when `p != 0`) or `@!p bra L` (taken when `p == 0`); `@` and `!`
/// are consumed.
pub fn predicated_branch(c: &mut Cursor, negated: bool) -> PResult<Instr> {
    let pred = c.register("a predicate register")?;
    match c.bump().map(|t| &t.tok) {
        Some(Tok::Word(w)) if w == "bra" || w == "bra.uni" => {}
        _ => return Err(c.error_here("`bra` after the predicate")),
    }
    let target = target(c)?;
    let op = if negated { CmpOp::Eq } else { CmpOp::Ne };
    Ok(Instr::Branch { target, cond: Some((Operand::Reg(pred), op, Operand::Imm(0))) })
}
