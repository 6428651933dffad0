//! Loads, stores and atomics, with Dat3M's rules on semantics and scopes.

use super::{is_register, location, negated, reg, value, Arg};
use crate::litmus::error::LitmusError;
use crate::model::{AtomOp, Instr, Proxy, Scope, Sem};

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
        (Some(Sem::Weak) | None, Some(_)) => {
            Err(LitmusError::syntax(line, "a weak access takes no scope"))
        }
        (Some(Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel), None) => {
            Err(LitmusError::syntax(
                line,
                "a strong access needs a scope (`.cta`, `.gpu`, `.sys`)",
            ))
        }
        _ => Ok(()),
    }
}

fn no_extra(others: &[String], line: usize) -> Result<(), LitmusError> {
    match others.first() {
        Some(m) => Err(LitmusError::syntax(
            line,
            format!("unknown modifier `.{m}`"),
        )),
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

pub(super) fn load(
    base: &str,
    mods: &[&str],
    args: &[Arg],
    line: usize,
) -> Result<Instr, LitmusError> {
    let [Arg::Word(dst), src] = args else {
        return Err(LitmusError::syntax(
            line,
            format!("expected `{base} r, location`"),
        ));
    };
    let dst = reg(dst, line)?;
    let is_value = matches!(src, Arg::Num(_)) || matches!(src, Arg::Word(w) if is_register(w));
    if mods.is_empty() && is_value {
        // Dat3M's `ld r0, 1` is a register move, not a memory access.
        return Ok(Instr::Mov {
            dst,
            src: value(src, line)?,
        });
    }
    let (sem, scope, others) = sem_scope(mods);
    no_extra(&others, line)?;
    if matches!(sem, Some(Sem::Release | Sem::AcqRel)) {
        return Err(LitmusError::syntax(
            line,
            "a load cannot be `.release` or `.acq_rel`",
        ));
    }
    check_scope(sem, scope, line)?;
    let proxy = match base {
        "tld" => Proxy::Texture,
        "suld" => Proxy::Surface,
        "cold" => Proxy::Constant,
        _ => Proxy::Generic,
    };
    let sem = written_sem(sem, proxy);
    Ok(Instr::Ld {
        sem,
        scope,
        space: None,
        proxy,
        dst,
        addr: location(src, line)?,
    })
}

pub(super) fn store(
    base: &str,
    mods: &[&str],
    args: &[Arg],
    line: usize,
) -> Result<Instr, LitmusError> {
    let [addr, src] = args else {
        return Err(LitmusError::syntax(
            line,
            format!("expected `{base} location, value`"),
        ));
    };
    let (sem, scope, others) = sem_scope(mods);
    no_extra(&others, line)?;
    if matches!(sem, Some(Sem::Acquire | Sem::AcqRel)) {
        return Err(LitmusError::syntax(
            line,
            "a store cannot be `.acquire` or `.acq_rel`",
        ));
    }
    check_scope(sem, scope, line)?;
    let proxy = if base == "sust" {
        Proxy::Surface
    } else {
        Proxy::Generic
    };
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

pub(super) fn atomic(
    is_red: bool,
    mods: &[&str],
    args: &[Arg],
    line: usize,
) -> Result<Instr, LitmusError> {
    let (sem, scope, others) = sem_scope(mods);
    let [op_name] = others.as_slice() else {
        return Err(LitmusError::syntax(
            line,
            "expected exactly one operation (`.add`, `.cas`, ...)",
        ));
    };
    if matches!(sem, Some(Sem::Weak | Sem::Volatile)) {
        return Err(LitmusError::syntax(
            line,
            "an atomic cannot be `.weak` or `.volatile`",
        ));
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
            return Err(LitmusError::unsupported(
                Some(line),
                format!("atomic operation `.{other}`"),
            ))
        }
    };
    let (dst, rest) = match (is_red, args) {
        (true, rest) => (None, rest),
        (false, [Arg::Word(d), rest @ ..]) => (Some(reg(d, line)?), rest),
        (false, _) => {
            return Err(LitmusError::syntax(
                line,
                "expected `atom... r, location, value`",
            ))
        }
    };
    let want = if op == AtomOp::Cas { 3 } else { 2 };
    let [addr, values @ ..] = rest else {
        return Err(LitmusError::syntax(line, "missing location operand"));
    };
    if values.len() + 1 != want || (is_red && op == AtomOp::Cas) {
        return Err(LitmusError::syntax(
            line,
            "wrong number of operands for this atomic",
        ));
    }
    let mut operands = Vec::new();
    for v in values {
        let operand = value(v, line)?;
        operands.push(if negate { negated(operand, "atomic `.sub`", line)? } else { operand });
    }
    Ok(Instr::Atom {
        op,
        sem,
        scope,
        space: None,
        dst,
        addr: location(addr, line)?,
        args: operands,
    })
}
