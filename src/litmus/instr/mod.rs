//! One instruction cell of a row (`ld.acquire.gpu r0, flag`) into the model's instruction.
//!
//! Barriers stay symbolic ([`BarrierUse`]): what they become depends on every thread that
//! uses the same barrier, which [`super::barrier`] decides once the whole test is read.

mod memory;
mod sync;

use super::error::LitmusError;
use super::lexer::{Tok, Token};
use crate::model::{CmpOp, Instr, Operand};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub instr: LitmusInstr,
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LitmusInstr {
    Plain(Instr),
    Barrier(BarrierUse),
}

/// Dat3M's `bar.cta.{sync,arrive} instance{, resource{, quorum}}` (see `barrier/mod.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierUse {
    pub arrive: bool,
    pub instance: i64,
    pub resource: Option<Operand>,
    pub quorum: Option<Operand>,
}

/// An operand as written: a word (register, location or label) or a number.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Arg {
    Word(String),
    Num(i64),
}

/// Parses one cell; an empty cell is `None`.
pub fn parse_cell(tokens: &[&Token]) -> Result<Option<Cell>, LitmusError> {
    let Some(first) = tokens.first() else {
        return Ok(None);
    };
    let line = first.line;
    let Tok::Word(opcode) = &first.tok else {
        return Err(LitmusError::syntax(
            line,
            "expected an instruction or a label",
        ));
    };
    let rest = tokens.get(1..).unwrap_or_default();
    if let [colon] = rest {
        if colon.tok == Tok::Colon {
            return Ok(Some(Cell {
                instr: LitmusInstr::Plain(Instr::Label(opcode.clone())),
                line,
            }));
        }
    }
    let args = split_args(rest, line)?;
    let instr = parse_instr(opcode, &args, line)?;
    Ok(Some(Cell { instr, line }))
}

fn split_args(tokens: &[&Token], line: usize) -> Result<Vec<Arg>, LitmusError> {
    let mut args = Vec::new();
    if tokens.is_empty() {
        return Ok(args);
    }
    for group in tokens.split(|t| t.tok == Tok::Comma) {
        let toks: Vec<&Tok> = group.iter().map(|t| &t.tok).collect();
        let arg = match toks.as_slice() {
            [Tok::Word(w)] | [Tok::LBracket, Tok::Word(w), Tok::RBracket] => Arg::Word(w.clone()),
            [Tok::Num(n)] => Arg::Num(*n),
            _ => {
                return Err(LitmusError::syntax(
                    line,
                    "expected a register, location or value",
                ))
            }
        };
        args.push(arg);
    }
    Ok(args)
}

/// Registers are `r` followed by digits in Dat3M's grammar.
pub fn is_register(word: &str) -> bool {
    word.strip_prefix('r')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

fn parse_instr(opcode: &str, args: &[Arg], line: usize) -> Result<LitmusInstr, LitmusError> {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or_default();
    let mods: Vec<&str> = parts.collect();
    let plain = |i: Instr| Ok(LitmusInstr::Plain(i));
    match base {
        "ld" | "tld" | "suld" | "cold" => plain(memory::load(base, &mods, args, line)?),
        "st" | "sust" => plain(memory::store(base, &mods, args, line)?),
        "atom" | "red" => plain(memory::atomic(base == "red", &mods, args, line)?),
        "fence" => plain(sync::fence(&mods, line)?),
        "bar" | "barrier" => sync::barrier(&mods, args, line),
        "add" | "sub" => plain(local_add(base == "sub", args, line)?),
        "mov" => match args {
            [Arg::Word(dst), src] => plain(Instr::Mov {
                dst: reg(dst, line)?,
                src: value(src, line)?,
            }),
            _ => Err(LitmusError::syntax(line, "expected `mov r, value`")),
        },
        "goto" | "bra" => match args {
            [Arg::Word(target)] => plain(Instr::Branch {
                target: target.clone(),
                cond: None,
            }),
            _ => Err(LitmusError::syntax(
                line,
                format!("expected `{base} LABEL`"),
            )),
        },
        "beq" | "bne" | "blt" | "ble" | "bgt" | "bge" => match args {
            [a, b, Arg::Word(target)] => plain(Instr::Branch {
                target: target.clone(),
                cond: Some((value(a, line)?, branch_op(base), value(b, line)?)),
            }),
            _ => Err(LitmusError::syntax(
                line,
                format!("expected `{base} a, b, LABEL`"),
            )),
        },
        "mul" | "div" | "suatom" | "sured" => Err(LitmusError::unsupported(
            Some(line),
            format!("`{base}` has no counterpart in the scenario model"),
        )),
        other => Err(LitmusError::unsupported(
            Some(line),
            format!("unknown instruction `{other}`"),
        )),
    }
}

fn branch_op(base: &str) -> CmpOp {
    match base {
        "beq" => CmpOp::Eq,
        "bne" => CmpOp::Ne,
        "blt" => CmpOp::Lt,
        "ble" => CmpOp::Le,
        "bgt" => CmpOp::Gt,
        _ => CmpOp::Ge,
    }
}

fn reg(word: &str, line: usize) -> Result<String, LitmusError> {
    if is_register(word) {
        Ok(word.to_string())
    } else {
        Err(LitmusError::syntax(
            line,
            format!("expected a register like `r0`, found `{word}`"),
        ))
    }
}

/// `x - v` as `x + (-v)`: the model has no subtraction. `what` names the instruction.
fn negated(operand: Operand, what: &str, line: usize) -> Result<Operand, LitmusError> {
    match operand {
        Operand::Imm(n) => n
            .checked_neg()
            .map(Operand::Imm)
            .ok_or_else(|| LitmusError::syntax(line, "value out of range")),
        Operand::Reg(r) => Err(LitmusError::unsupported(Some(line), format!("{what} of register `{r}`"))),
    }
}

fn value(arg: &Arg, line: usize) -> Result<Operand, LitmusError> {
    match arg {
        Arg::Num(n) => Ok(Operand::Imm(*n)),
        Arg::Word(w) => Ok(Operand::Reg(reg(w, line)?)),
    }
}

fn location(arg: &Arg, line: usize) -> Result<String, LitmusError> {
    match arg {
        Arg::Word(w) if !is_register(w) => Ok(w.clone()),
        _ => Err(LitmusError::syntax(line, "expected a location name")),
    }
}

fn local_add(is_sub: bool, args: &[Arg], line: usize) -> Result<Instr, LitmusError> {
    let [Arg::Word(dst), a, b] = args else {
        return Err(LitmusError::syntax(line, "expected `add r, a, b`"));
    };
    let b = if is_sub { negated(value(b, line)?, "`sub`", line)? } else { value(b, line)? };
    Ok(Instr::Add {
        dst: reg(dst, line)?,
        a: value(a, line)?,
        b,
    })
}
