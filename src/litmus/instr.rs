//! One instruction cell of a row (`ld.acquire.gpu r0, flag`) into the model's instruction.
//!
//! Barriers stay symbolic ([`BarrierUse`]): what they become depends on every thread that
//! uses the same barrier, which [`super::barrier`] decides once the whole test is read.

use super::error::LitmusError;
use super::lexer::{Tok, Token};
use crate::model::{AtomOp, CmpOp, Fence, FenceSem, Instr, Operand, Proxy, ProxyKind, Scope, Sem};

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

/// Dat3M's `bar.cta.{sync,arrive} instance{, resource{, quorum}}` (see `barrier.rs`).
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
    let Some(first) = tokens.first() else { return Ok(None) };
    let line = first.line;
    let Tok::Word(opcode) = &first.tok else {
        return Err(LitmusError::syntax(line, "expected an instruction or a label"));
    };
    let rest = tokens.get(1..).unwrap_or_default();
    if let [colon] = rest {
        if colon.tok == Tok::Colon {
            return Ok(Some(Cell { instr: LitmusInstr::Plain(Instr::Label(opcode.clone())), line }));
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
            _ => return Err(LitmusError::syntax(line, "expected a register, location or value")),
        };
        args.push(arg);
    }
    Ok(args)
}

/// Registers are `r` followed by digits in Dat3M's grammar.
pub fn is_register(word: &str) -> bool {
    word.strip_prefix('r').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

fn parse_instr(opcode: &str, args: &[Arg], line: usize) -> Result<LitmusInstr, LitmusError> {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or_default();
    let mods: Vec<&str> = parts.collect();
    let plain = |i: Instr| Ok(LitmusInstr::Plain(i));
    match base {
        "ld" | "tld" | "suld" | "cold" => plain(load(base, &mods, args, line)?),
        "st" | "sust" => plain(store(base, &mods, args, line)?),
        "atom" | "red" => plain(atomic(base == "red", &mods, args, line)?),
        "fence" => plain(fence(&mods, line)?),
        "bar" | "barrier" => barrier(&mods, args, line),
        "add" | "sub" => plain(local_add(base == "sub", args, line)?),
        "mov" => match args {
            [Arg::Word(dst), src] => plain(Instr::Mov { dst: reg(dst, line)?, src: value(src, line)? }),
            _ => Err(LitmusError::syntax(line, "expected `mov r, value`")),
        },
        "goto" | "bra" => match args {
            [Arg::Word(target)] => plain(Instr::Branch { target: target.clone(), cond: None }),
            _ => Err(LitmusError::syntax(line, format!("expected `{base} LABEL`"))),
        },
        "beq" | "bne" | "blt" | "ble" | "bgt" | "bge" => match args {
            [a, b, Arg::Word(target)] => plain(Instr::Branch {
                target: target.clone(),
                cond: Some((value(a, line)?, branch_op(base), value(b, line)?)),
            }),
            _ => Err(LitmusError::syntax(line, format!("expected `{base} a, b, LABEL`"))),
        },
        "mul" | "div" | "suatom" | "sured" => Err(LitmusError::unsupported(
            Some(line),
            format!("`{base}` has no counterpart in the scenario model"),
        )),
        other => Err(LitmusError::unsupported(Some(line), format!("unknown instruction `{other}`"))),
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
        Err(LitmusError::syntax(line, format!("expected a register like `r0`, found `{word}`")))
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

/// Semantics and scope modifiers; anything else is an error.
fn sem_scope(mods: &[&str]) -> (Option<Sem>, Option<Scope>, Vec<String>) {
    let (mut sem, mut scope, mut others) = (None, None, Vec::new());
    for m in mods {
        match *m {
            "weak" => sem = Some(Sem::Weak),
            "relaxed" => sem = Some(Sem::Relaxed),
            "acquire" => sem = Some(Sem::Acquire),
            "release" => sem = Some(Sem::Release),
            "acq_rel" => sem = Some(Sem::AcqRel),
            "volatile" => sem = Some(Sem::Volatile),
            "cta" => scope = Some(Scope::Cta),
            "cluster" => scope = Some(Scope::Cluster),
            "gpu" => scope = Some(Scope::Gpu),
            "sys" => scope = Some(Scope::Sys),
            other => others.push(other.to_string()),
        }
    }
    (sem, scope, others)
}

/// Dat3M's rule: `.weak` takes no scope, every other semantics needs one.
fn check_scope(sem: Option<Sem>, scope: Option<Scope>, line: usize) -> Result<(), LitmusError> {
    match (sem, scope) {
        (Some(Sem::Weak) | None, Some(_)) => Err(LitmusError::syntax(line, "a weak access takes no scope")),
        (Some(Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel), None) => {
            Err(LitmusError::syntax(line, "a strong access needs a scope (`.cta`, `.gpu`, `.sys`)"))
        }
        _ => Ok(()),
    }
}

fn no_extra(others: &[String], line: usize) -> Result<(), LitmusError> {
    match others.first() {
        Some(m) => Err(LitmusError::syntax(line, format!("unknown modifier `.{m}`"))),
        None => Ok(()),
    }
}

/// PTX's texture, surface and constant accesses have no `.weak` spelling (weak is their
/// only and default form), so `.weak` on them is kept as "defaulted".
fn written_sem(sem: Option<Sem>, proxy: Proxy) -> Option<Sem> {
    match (sem, proxy) {
        (Some(Sem::Weak), Proxy::Texture | Proxy::Surface | Proxy::Constant) => None,
        _ => sem,
    }
}

fn load(base: &str, mods: &[&str], args: &[Arg], line: usize) -> Result<Instr, LitmusError> {
    let [Arg::Word(dst), src] = args else {
        return Err(LitmusError::syntax(line, format!("expected `{base} r, location`")));
    };
    let dst = reg(dst, line)?;
    let is_value = matches!(src, Arg::Num(_)) || matches!(src, Arg::Word(w) if is_register(w));
    if mods.is_empty() && is_value {
        // Dat3M's `ld r0, 1` is a register move, not a memory access.
        return Ok(Instr::Mov { dst, src: value(src, line)? });
    }
    let (sem, scope, others) = sem_scope(mods);
    no_extra(&others, line)?;
    if matches!(sem, Some(Sem::Release | Sem::AcqRel)) {
        return Err(LitmusError::syntax(line, "a load cannot be `.release` or `.acq_rel`"));
    }
    check_scope(sem, scope, line)?;
    let proxy = match base {
        "tld" => Proxy::Texture,
        "suld" => Proxy::Surface,
        "cold" => Proxy::Constant,
        _ => Proxy::Generic,
    };
    let sem = written_sem(sem, proxy);
    Ok(Instr::Ld { sem, scope, space: None, proxy, dst, addr: location(src, line)? })
}

fn store(base: &str, mods: &[&str], args: &[Arg], line: usize) -> Result<Instr, LitmusError> {
    let [addr, src] = args else {
        return Err(LitmusError::syntax(line, format!("expected `{base} location, value`")));
    };
    let (sem, scope, others) = sem_scope(mods);
    no_extra(&others, line)?;
    if matches!(sem, Some(Sem::Acquire | Sem::AcqRel)) {
        return Err(LitmusError::syntax(line, "a store cannot be `.acquire` or `.acq_rel`"));
    }
    check_scope(sem, scope, line)?;
    let proxy = if base == "sust" { Proxy::Surface } else { Proxy::Generic };
    let sem = written_sem(sem, proxy);
    Ok(Instr::St {
        sem,
        scope,
        space: None,
        proxy,
        addr: location(addr, line)?,
        src: value(src, line)?,
    })
}

fn atomic(is_red: bool, mods: &[&str], args: &[Arg], line: usize) -> Result<Instr, LitmusError> {
    let (sem, scope, others) = sem_scope(mods);
    let [op_name] = others.as_slice() else {
        return Err(LitmusError::syntax(line, "expected exactly one operation (`.add`, `.cas`, ...)"));
    };
    if matches!(sem, Some(Sem::Weak | Sem::Volatile)) {
        return Err(LitmusError::syntax(line, "an atomic cannot be `.weak` or `.volatile`"));
    }
    check_scope(sem, scope, line)?;
    let mut negate = false;
    let op = match op_name.as_str() {
        "add" => AtomOp::Add,
        "sub" => {
            negate = true;
            AtomOp::Add
        }
        "exch" => AtomOp::Exch,
        "cas" => AtomOp::Cas,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        other => {
            return Err(LitmusError::unsupported(Some(line), format!("atomic operation `.{other}`")))
        }
    };
    let (dst, rest) = match (is_red, args) {
        (true, rest) => (None, rest),
        (false, [Arg::Word(d), rest @ ..]) => (Some(reg(d, line)?), rest),
        (false, _) => return Err(LitmusError::syntax(line, "expected `atom... r, location, value`")),
    };
    let want = if op == AtomOp::Cas { 3 } else { 2 };
    let [addr, values @ ..] = rest else {
        return Err(LitmusError::syntax(line, "missing location operand"));
    };
    if values.len() + 1 != want || (is_red && op == AtomOp::Cas) {
        return Err(LitmusError::syntax(line, "wrong number of operands for this atomic"));
    }
    let mut operands = Vec::new();
    for v in values {
        operands.push(match (negate, value(v, line)?) {
            (true, Operand::Imm(n)) => Operand::Imm(n.checked_neg().ok_or_else(|| {
                LitmusError::syntax(line, "value out of range")
            })?),
            (true, Operand::Reg(r)) => {
                return Err(LitmusError::unsupported(
                    Some(line),
                    format!("atomic `.sub` of register `{r}` (the model's `atom` has no `.sub`)"),
                ))
            }
            (false, operand) => operand,
        });
    }
    Ok(Instr::Atom { op, sem, scope, space: None, dst, addr: location(addr, line)?, args: operands })
}

fn fence(mods: &[&str], line: usize) -> Result<Instr, LitmusError> {
    if let ["proxy", kind] = mods {
        let kind = match *kind {
            "alias" => ProxyKind::Alias,
            "surface" => ProxyKind::Surface,
            "texture" => ProxyKind::Texture,
            "constant" => ProxyKind::Constant,
            other => {
                return Err(LitmusError::unsupported(Some(line), format!("proxy fence `.{other}`")))
            }
        };
        return Ok(Instr::Fence(Fence::Proxy(kind)));
    }
    let (mut sem, mut scope) = (None, None);
    for m in mods {
        match *m {
            "sc" => sem = Some(FenceSem::Sc),
            "acq_rel" => sem = Some(FenceSem::AcqRel),
            "acquire" => sem = Some(FenceSem::Acquire),
            "release" => sem = Some(FenceSem::Release),
            "cta" => scope = Some(Scope::Cta),
            "cluster" => scope = Some(Scope::Cluster),
            "gpu" => scope = Some(Scope::Gpu),
            "sys" => scope = Some(Scope::Sys),
            other => return Err(LitmusError::syntax(line, format!("unknown fence modifier `.{other}`"))),
        }
    }
    let scope = scope.ok_or_else(|| LitmusError::syntax(line, "a fence needs a scope"))?;
    let sem = sem.ok_or_else(|| LitmusError::syntax(line, "a fence needs `.sc` or `.acq_rel`"))?;
    Ok(Instr::Fence(Fence::Thread { sem: Some(sem), scope, restrict: None, sugar: None }))
}

fn barrier(mods: &[&str], args: &[Arg], line: usize) -> Result<LitmusInstr, LitmusError> {
    let arrive = match mods {
        ["cta", "sync"] | ["sync"] => false,
        ["cta", "arrive"] | ["arrive"] => true,
        _ => return Err(LitmusError::unsupported(Some(line), "barrier form other than `bar.cta.sync`/`bar.cta.arrive`")),
    };
    let (instance, resource, quorum) = match args {
        [Arg::Num(i)] => (*i, None, None),
        [Arg::Num(i), r] => (*i, Some(value(r, line)?), None),
        [Arg::Num(i), r, q] => (*i, Some(value(r, line)?), Some(value(q, line)?)),
        _ => {
            return Err(LitmusError::syntax(
                line,
                "expected `bar.cta.sync instance{, resource{, quorum}}` with a constant instance",
            ))
        }
    };
    Ok(LitmusInstr::Barrier(BarrierUse { arrive, instance, resource, quorum }))
}

fn local_add(is_sub: bool, args: &[Arg], line: usize) -> Result<Instr, LitmusError> {
    let [Arg::Word(dst), a, b] = args else {
        return Err(LitmusError::syntax(line, "expected `add r, a, b`"));
    };
    let b = match (is_sub, value(b, line)?) {
        (true, Operand::Imm(n)) => {
            Operand::Imm(n.checked_neg().ok_or_else(|| LitmusError::syntax(line, "value out of range"))?)
        }
        (true, Operand::Reg(r)) => {
            return Err(LitmusError::unsupported(Some(line), format!("`sub` of register `{r}`")))
        }
        (false, operand) => operand,
    };
    Ok(Instr::Add { dst: reg(dst, line)?, a: value(a, line)?, b })
}
