//! `ld`, `st`, `tld`, `suld`, `sust`, `atom`, `red`.

use super::super::cursor::{Cursor, PResult};
use super::super::mods::{classify, Allowed, Seg};
use super::bad_form;
use crate::diag::Diagnostic;
use crate::model::{AddrSpace, AtomOp, Instr, Proxy, Sem};

const ALL_SEMS: &[Sem] = &[Sem::Weak, Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel, Sem::Volatile, Sem::Mmio];
const ALL_SPACES: &[AddrSpace] = &[AddrSpace::Global, AddrSpace::SharedCta, AddrSpace::SharedCluster];

pub const ATOM_OPS: &[(&str, AtomOp)] = &[
    ("add", AtomOp::Add),
    ("inc", AtomOp::Inc),
    ("dec", AtomOp::Dec),
    ("exch", AtomOp::Exch),
    ("max", AtomOp::Max),
    ("min", AtomOp::Min),
    ("and", AtomOp::And),
    ("or", AtomOp::Or),
    ("xor", AtomOp::Xor),
    ("cas", AtomOp::Cas),
];
const ATOM_FLAGS: &[&str] = &["add", "inc", "dec", "exch", "max", "min", "and", "or", "xor", "cas"];

/// Texture/surface geometry and clamping modes, which do not change the memory model.
fn ignore_texture_shape(s: &str) -> bool {
    matches!(s, "1d" | "2d" | "3d" | "a1d" | "a2d" | "b" | "p" | "trap" | "clamp" | "zero")
}

fn ignore_load_hints(s: &str) -> bool {
    s.starts_with("L1::")
        || s.starts_with("L2::")
        || s == "level::cache_hint"
        || s == "ca"
        || s == "cg"
        || s == "cs"
        || s == "lu"
        || s == "cv"
}

/// PTX writes an MMIO access `.mmio.relaxed.sys` (§9.7.9.8, §9.7.9.11): the `.relaxed`
/// belongs to `.mmio`, so it is dropped here rather than counted as a second semantics.
fn mmio_form<'a>(head: &str, segs: &'a [Seg<'a>]) -> PResult<Vec<Seg<'a>>> {
    let Some(mmio) = segs.iter().find(|s| s.text == "mmio") else { return Ok(segs.to_vec()) };
    match segs.iter().position(|s| s.text == "relaxed") {
        Some(relaxed) => Ok(segs.iter().enumerate().filter(|(i, _)| *i != relaxed).map(|(_, s)| *s).collect()),
        None => Err(bad_form(
            Some(mmio.span),
            &format!("PTX writes an MMIO access `{head}.mmio.relaxed.sys`"),
            &format!("write `{head}.mmio.relaxed.sys.global`"),
        )),
    }
}

pub fn load(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let head = segs.first().map_or("ld", |s| s.text);
    let rest = &mmio_form(head, segs.get(1..).unwrap_or(&[]))?;
    let (proxy, mods) = if head == "ld" {
        let allowed =
            Allowed { sems: ALL_SEMS, scopes: true, spaces: ALL_SPACES, flags: &["const"], ignored: ignore_load_hints };
        let mods = classify(rest, &allowed, head, diags);
        (if mods.has("const") { Proxy::Constant } else { Proxy::Generic }, mods)
    } else {
        let allowed = Allowed {
            sems: &[],
            scopes: false,
            spaces: &[],
            flags: &[],
            ignored: ignore_texture_shape,
        };
        let proxy = if head == "tld" { Proxy::Texture } else { Proxy::Surface };
        (proxy, classify(rest, &allowed, head, diags))
    };
    let dst = c.dst("a destination register")?;
    c.comma()?;
    let addr = c.address("the location")?;
    Ok(Instr::Ld { sem: mods.sem(), scope: mods.scope(), space: mods.space(), proxy, dst, addr })
}

pub fn store(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let head = segs.first().map_or("st", |s| s.text);
    let rest = &mmio_form(head, segs.get(1..).unwrap_or(&[]))?;
    let (proxy, mods) = if head == "st" {
        let allowed =
            Allowed { sems: ALL_SEMS, scopes: true, spaces: ALL_SPACES, flags: &[], ignored: ignore_load_hints };
        (Proxy::Generic, classify(rest, &allowed, head, diags))
    } else {
        let allowed = Allowed {
            sems: &[],
            scopes: false,
            spaces: &[],
            flags: &[],
            ignored: ignore_texture_shape,
        };
        (Proxy::Surface, classify(rest, &allowed, head, diags))
    };
    let addr = c.address("the location")?;
    c.comma()?;
    let src = c.value("a register or an immediate to store")?;
    Ok(Instr::St { sem: mods.sem(), scope: mods.scope(), space: mods.space(), proxy, addr, src })
}

/// `atom` and `red` (not the `.async` forms).
pub fn atom(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let head = segs.first().map_or("atom", |s| s.text);
    let rest = segs.get(1..).unwrap_or(&[]);
    let allowed = Allowed { sems: ALL_SEMS, scopes: true, spaces: ALL_SPACES, flags: ATOM_FLAGS, ignored: |_| false };
    let mods = classify(rest, &allowed, head, diags);
    let op = atom_op(&mods.flags, head, segs)?;
    let is_red = head == "red";
    if is_red && op == AtomOp::Cas {
        return Err(bad_form(mods.flag_span("cas"), "`red` has no `.cas` form", "use `atom.cas`"));
    }
    let dst = if is_red {
        None
    } else {
        let dst = c.dst("a destination register")?;
        c.comma()?;
        Some(dst)
    };
    let addr = c.address("the location")?;
    c.comma()?;
    let mut args = vec![c.value("an operand")?];
    if op == AtomOp::Cas {
        c.comma()?;
        args.push(c.value("the new value of `atom.cas`")?);
    }
    Ok(Instr::Atom { op, sem: mods.sem(), scope: mods.scope(), space: mods.space(), dst, addr, args })
}

/// Exactly one reduction/atomic operation among `flags`.
pub fn atom_op(flags: &[(&'static str, crate::diag::Span)], head: &str, segs: &[Seg]) -> PResult<AtomOp> {
    let ops: Vec<_> = flags
        .iter()
        .filter_map(|(f, span)| ATOM_OPS.iter().find(|(n, _)| n == f).map(|(_, op)| (*op, *span)))
        .collect();
    match ops.as_slice() {
        [(op, _)] => Ok(*op),
        [] => {
            let span = segs.first().map(|s| s.span);
            Err(bad_form(
                span,
                &format!("`{head}` needs an operation such as `.add`"),
                "add one of `.add .inc .dec .exch .max .min .and .or .xor`",
            ))
        }
        [_, (_, second), ..] => {
            Err(bad_form(Some(*second), &format!("`{head}` takes one operation"), "remove one of the operations"))
        }
    }
}
