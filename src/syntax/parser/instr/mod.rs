//! Instruction lines inside a thread: labels, `wait` spin forms, and one parser per family.

mod barrier;
mod control;
mod copy;
mod fence;
mod mbarrier;
mod memory;
mod tensor;

pub use control::branch_name;

use super::cursor::{is_ident, Cursor, PResult};
use super::mods::{segments, Seg};
use super::Parser;
use crate::diag::{closest, Diagnostic, Span};
use crate::model::Instr;
use crate::syntax::lexer::{Line, Tok, Token};

/// Opcodes offered as "did you mean" suggestions.
const OPCODES: &[&str] = &[
    "ld",
    "st",
    "tld",
    "suld",
    "sust",
    "atom",
    "red",
    "fence",
    "membar",
    "bar",
    "barrier",
    "mbarrier",
    "cp",
    "wgmma",
    "tcgen05",
    "bra",
    "beq",
    "bne",
    "blt",
    "ble",
    "bgt",
    "bge",
    "mov",
    "add",
    "setp",
    "exit",
    "wait",
    "__syncthreads()",
    "__threadfence()",
    "__threadfence_block()",
];

pub(super) fn bad_form(span: Option<Span>, message: &str, help: &str) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::error("F0207", message.to_string()).with_primary(span, "invalid form").with_help(help.to_string()),
    )
}

impl Parser {
    pub(super) fn instruction_line(&mut self, line: &Line) -> PResult<()> {
        let Some(thread) = self.thread else { return Ok(()) };
        let mut c = Cursor::new(&line.tokens, line.span);
        if let (Some(Tok::Word(name)), Some(Tok::Colon)) = (c.peek_tok(), c.peek_at(1)) {
            if is_ident(name) {
                let span = c.peek().map(|t| t.span);
                c.bump();
                c.bump();
                self.push_instr(thread, Instr::Label(name.clone()), span.unwrap_or(line.span), Vec::new());
                if c.at_end() {
                    return Ok(());
                }
            }
        }
        let start = c.index();
        let instr = instruction(&mut c, &mut self.diags, true)?;
        c.finish("the instruction")?;
        let span = c.span_from(start);
        let operands = std::mem::take(&mut c.operands);
        self.push_instr(thread, instr, span, operands);
        Ok(())
    }

    fn push_instr(&mut self, thread: usize, instr: Instr, span: Span, operands: Vec<Span>) {
        if let Some(t) = self.scenario.threads.get_mut(thread) {
            t.program.push(instr);
        }
        if let Some(spans) = self.map.instrs.get_mut(thread) {
            spans.push(span);
        }
        if let Some(ops) = self.map.operands.get_mut(thread) {
            ops.push(operands);
        }
    }
}

/// One instruction; `allow_wait` is false inside `wait …` (no nesting).
fn instruction(c: &mut Cursor, diags: &mut Vec<Diagnostic>, allow_wait: bool) -> PResult<Instr> {
    if c.eat(&Tok::At) {
        return guarded(c, diags, allow_wait);
    }
    c.brackets = 0;
    c.offsets.clear();
    let opcode = match c.peek() {
        Some(Token { tok: Tok::Word(w), span }) => Some((w.clone(), *span)),
        _ => None,
    };
    let instr = unguarded(c, diags, allow_wait)?;
    let offsets = std::mem::take(&mut c.offsets);
    if offsets.is_empty() {
        return Ok(instr);
    }
    let width = opcode.as_ref().and_then(|(w, span)| {
        let segs = segments(w, *span);
        // A vector access (`.v2.b32`) covers its lanes' bytes.
        let lanes = segs.iter().find_map(|s| s.text.strip_prefix('v').and_then(|n| n.parse::<u32>().ok())).unwrap_or(1);
        segs.iter().find_map(|s| type_width(s.text)).map(|w| w * lanes)
    });
    ranged(instr, &offsets, width, opcode.map(|(_, span)| span))
}

/// `@p instr` / `@!p instr` (`@` consumed). `@p bra L` keeps its branch form.
fn guarded(c: &mut Cursor, diags: &mut Vec<Diagnostic>, allow_wait: bool) -> PResult<Instr> {
    let negated = c.eat(&Tok::Bang);
    if matches!(c.peek_tok(), Some(Tok::Word(w)) if w != "_" && is_ident(w))
        && matches!(c.peek_at(1), Some(Tok::Word(w)) if w == "bra" || w == "bra.uni")
    {
        return control::predicated_branch(c, negated);
    }
    let (pred, pred_span) = c.ident("a predicate register")?;
    if pred == "_" {
        return Err(c.error_here("a predicate register, not the sink `_`"));
    }
    if c.peek_tok() == Some(&Tok::At) {
        return Err(bad_form(c.peek().map(|t| t.span), "an instruction takes one guard", "write a single `@p` or `@!p`"));
    }
    // A label is not an instruction here (`@p L:` reads `L` as an unknown opcode).
    let instr = instruction(c, diags, allow_wait)?;
    // The predicate's span goes last so the inner instruction's operand indices stay put.
    c.operands.push(pred_span);
    Ok(Instr::Guarded { pred, negated, instr: Box::new(instr) })
}

/// Bytes of a PTX type suffix (`.b32` → 4); `None` for other segments.
fn type_width(seg: &str) -> Option<u32> {
    let digits = seg.trim_start_matches(|ch: char| ch.is_ascii_alphabetic());
    let bits: u32 = match seg.len() - digits.len() {
        1 | 2 if super::mods::is_type_suffix(seg) => digits.parse().ok()?,
        _ => return None,
    };
    bits.is_multiple_of(8).then_some(bits / 8)
}

/// Wraps `instr` in the byte offsets its brackets carried (bracket ordinal, offset, span).
fn ranged(instr: Instr, offsets: &[(usize, u32, Span)], width: Option<u32>, opcode: Option<Span>) -> PResult<Instr> {
    let core = match instr.unwrapped() {
        Instr::Wait { instr, .. } => instr.unwrapped(),
        other => other,
    };
    let offset = |ordinal: usize| offsets.iter().find(|(o, _, _)| *o == ordinal).map(|(_, off, _)| *off);
    let not_here = |span: Span, what: &str| {
        Err(Box::new(
            Diagnostic::error("F0207", format!("{what} takes no byte offset"))
                .with_primary(Some(span), "offset not allowed here")
                .with_note("byte offsets go on the data operands of `ld`, `st`, `atom`, `red`, `cp.async`, `cp.async.bulk` and `st.async`"),
        ))
    };
    let (at, src_at, width) = match core {
        Instr::Ld { .. } | Instr::St { .. } | Instr::Atom { .. } | Instr::StAsync { .. } => {
            if let Some((_, _, span)) = offsets.iter().find(|(o, _, _)| *o != 0) {
                return not_here(*span, "an mbarrier operand");
            }
            let Some(width) = width else {
                return Err(bad_form(
                    opcode,
                    "an access at a byte offset needs a width",
                    "add a type suffix such as `.b32` (4 bytes) or `.b64` (8 bytes)",
                ));
            };
            (offset(0), None, Some(width))
        }
        Instr::CpAsync { .. } => {
            if let Some((_, _, span)) = offsets.iter().find(|(o, _, _)| *o > 1) {
                return not_here(*span, "this operand");
            }
            (offset(0), offset(1), None)
        }
        Instr::Bulk { multicast, .. } => {
            let at = offset(0);
            for (ordinal, _, span) in offsets {
                let multicast_dst = *ordinal >= 3 && ordinal % 2 == 1;
                if *ordinal == 2 || (*ordinal > 2 && !multicast_dst) {
                    return not_here(*span, "an mbarrier operand");
                }
            }
            // A multicast copy writes the same CTA-relative offset in every destination.
            for pair in 0..multicast.len() {
                if offset(3 + 2 * pair) != at {
                    let span = offsets.iter().find(|(o, _, _)| *o == 3 + 2 * pair).or(offsets.first()).map(|(_, _, s)| *s);
                    return Err(bad_form(
                        span,
                        "every destination of a multicast copy takes the same byte offset",
                        "write the first destination's `+OFFSET` on each `([dst], [bar])` pair",
                    ));
                }
            }
            (at, offset(1), None)
        }
        _ => {
            let span = offsets.first().map_or(Span { start: 0, end: 0 }, |(_, _, s)| *s);
            return not_here(span, &format!("`{}`", crate::syntax::instr_text(core).split(' ').next().unwrap_or("")));
        }
    };
    Ok(Instr::Ranged { instr: Box::new(instr), at, src_at, width })
}

fn unguarded(c: &mut Cursor, diags: &mut Vec<Diagnostic>, allow_wait: bool) -> PResult<Instr> {
    let (word, span) = match c.peek() {
        Some(Token { tok: Tok::Word(w), span }) => (w.clone(), *span),
        _ => return Err(c.error_here("an instruction")),
    };
    c.bump();
    if word == "wait" {
        if !allow_wait {
            return Err(bad_form(Some(span), "`wait` cannot be nested", "write `wait` once"));
        }
        return wait(c, span, diags);
    }
    let segs = segments(&word, span);
    let head = segs.first().map_or("", |s| s.text);
    let second = segs.get(1).map(|s| s.text);
    match head {
        "ld" | "tld" | "suld" => memory::load(c, &segs, diags),
        "st" | "red" if second == Some("async") => copy::st_async(c, &segs, diags),
        "st" | "sust" => memory::store(c, &segs, diags),
        "atom" | "red" => memory::atom(c, &segs, diags),
        "fence" => fence::fence(c, &segs, diags),
        "membar" | "__threadfence()" | "__threadfence_block()" => fence::sugar(head, &segs, diags),
        "bar" | "barrier" => barrier::bar(c, &segs, diags),
        "__syncthreads()" => Ok(barrier::sync_threads()),
        "mbarrier" => mbarrier::mbarrier(c, &segs, diags),
        "cp" => copy::cp(c, &segs, diags),
        "wgmma" => tensor::wgmma(c, &segs, diags),
        "tcgen05" => tensor::tcgen05(c, &segs, diags),
        _ => control::control(c, &segs).unwrap_or_else(|| Err(unknown_opcode(&segs, span))),
    }
}

/// `family.op` where `op` is not one of `ops`, e.g. `mbarrier.arive`.
pub(super) fn unknown_operation(seg: &Seg, family: &str, ops: &[&str]) -> Box<Diagnostic> {
    let help = closest(seg.text, ops.iter().copied()).map(|o| format!("did you mean `{family}.{o}`?"));
    let known = ops.iter().map(|o| format!("`.{o}`")).collect::<Vec<_>>().join(" ");
    let diag = Diagnostic::error("F0201", format!("unknown instruction `{family}.{}`", seg.text))
        .with_primary(Some(seg.span), format!("not an operation of `{family}`"));
    Box::new(match help {
        Some(h) => diag.with_help(h),
        None => diag.with_note(format!("`{family}` operations: {known}")),
    })
}

fn unknown_opcode(segs: &[Seg], span: Span) -> Box<Diagnostic> {
    let head = segs.first().map_or("", |s| s.text);
    let head_span = segs.first().map_or(span, |s| s.span);
    let help = closest(head, OPCODES.iter().copied()).map(|o| format!("did you mean `{o}`?"));
    Box::new(
        Diagnostic::error("F0201", format!("unknown instruction `{head}`"))
            .with_primary(Some(head_span), "not an instruction fencelab knows")
            .with_help_opt(help)
            .with_note("see docs/syntax.md for the instruction list"),
    )
}

/// `wait mbarrier.try_wait… [bar], phase` or `wait ld… r, [x] <op> v`.
fn wait(c: &mut Cursor, wait_span: Span, diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let inner = instruction(c, diags, false)?;
    if let Instr::Guarded { .. } = inner {
        return Err(bad_form(Some(wait_span), "a guard goes before `wait`, not inside it", "write `@p wait ...`"));
    }
    match inner.unwrapped() {
        Instr::Mbar(crate::model::MbarOp { kind: crate::model::MbarKind::Wait { .. }, .. }) => {
            Ok(Instr::Wait { instr: Box::new(inner), until: None })
        }
        Instr::Ld { .. } => {
            let op = match c.peek_tok() {
                Some(Tok::Cmp(op)) => *op,
                _ => return Err(c.error_here("a comparison such as `== 1` after the load")),
            };
            c.bump();
            let value = c.value("the value to wait for")?;
            Ok(Instr::Wait { instr: Box::new(inner), until: Some(crate::model::WaitTarget { op, value }) })
        }
        _ => Err(bad_form(
            Some(wait_span),
            "`wait` spins only on `mbarrier.test_wait`/`try_wait` or on a load",
            "write `wait mbarrier.try_wait.parity [bar], 0` or `wait ld.acquire.gpu r0, [flag] == 1`",
        )),
    }
}
