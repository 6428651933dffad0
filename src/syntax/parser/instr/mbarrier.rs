//! `mbarrier.*` operations (reference §4).

use super::super::cursor::{Cursor, PResult};
use super::super::mods::{classify, Allowed, Seg};
use super::{bad_form, unknown_operation};
use crate::diag::Diagnostic;
use crate::model::{AddrSpace, Instr, MbarKind, MbarOp, Sem};
use crate::syntax::lexer::Tok;

pub const MBAR_OPS: &[&str] =
    &["init", "inval", "expect_tx", "complete_tx", "arrive", "arrive_drop", "test_wait", "try_wait", "pending_count"];

pub fn mbarrier(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let word_span = segs.first().map(|f| segs.last().map_or(f.span, |l| f.span.to(l.span)));
    let Some(op) = segs.get(1) else {
        return Err(bad_form(word_span, "`mbarrier` needs an operation", "write e.g. `mbarrier.arrive [bar]`"));
    };
    if !MBAR_OPS.contains(&op.text) {
        return Err(unknown_operation(op, "mbarrier", MBAR_OPS));
    }
    let flags: &'static [&'static str] = match op.text {
        "arrive" | "arrive_drop" => &["noComplete", "expect_tx"],
        "test_wait" | "try_wait" => &["parity"],
        _ => &[],
    };
    let sems: &'static [Sem] = match op.text {
        "init" | "inval" | "pending_count" => &[],
        _ => &[Sem::Release, Sem::Relaxed, Sem::Acquire, Sem::AcqRel],
    };
    let scopes = !matches!(op.text, "init" | "inval" | "pending_count");
    let spaces: &'static [AddrSpace] =
        if op.text == "pending_count" { &[] } else { &[AddrSpace::SharedCta, AddrSpace::SharedCluster] };
    let allowed = Allowed { sems, scopes, spaces, flags, ignored: |_| false };
    let name = format!("mbarrier.{}", op.text);
    let mods = classify(segs.get(2..).unwrap_or(&[]), &allowed, &name, diags);
    let with = |kind, bar| Instr::Mbar(MbarOp { kind, sem: mods.sem(), scope: mods.scope(), space: mods.space(), bar });
    match op.text {
        "init" => {
            let bar = c.address("the mbarrier")?;
            c.comma()?;
            let count = c.u32_operand("an expected arrival count")?;
            Ok(with(MbarKind::Init { count }, bar))
        }
        "inval" => Ok(with(MbarKind::Inval, c.address("the mbarrier")?)),
        "expect_tx" | "complete_tx" => {
            let bar = c.address("the mbarrier")?;
            c.comma()?;
            let bytes = c.u32_operand("a byte count")?;
            let kind =
                if op.text == "expect_tx" { MbarKind::ExpectTx { bytes } } else { MbarKind::CompleteTx { bytes } };
            Ok(with(kind, bar))
        }
        "arrive" | "arrive_drop" => {
            let state = if matches!(c.peek_tok(), Some(Tok::Word(_))) {
                let state = c.dst("a state register or `_`")?;
                c.comma()?;
                Some(state).filter(|s| s != "_")
            } else {
                None
            };
            let bar = c.address("the mbarrier")?;
            let expect_tx = mods.has("expect_tx");
            let mut count = None;
            let mut bytes = None;
            if c.eat(&Tok::Comma) {
                let n = c.u32_operand(if expect_tx { "a byte count" } else { "an arrival count" })?;
                if expect_tx {
                    bytes = Some(n)
                } else {
                    count = Some(n)
                }
            } else if expect_tx {
                return Err(c.error_here("`,` and the byte count of `.expect_tx`"));
            }
            let kind = MbarKind::Arrive {
                count,
                expect_tx: bytes,
                no_complete: mods.has("noComplete"),
                drop: op.text == "arrive_drop",
                state,
            };
            Ok(with(kind, bar))
        }
        "test_wait" | "try_wait" => {
            let dst = if matches!(c.peek_tok(), Some(Tok::Word(_))) {
                let dst = c.dst("a predicate register")?;
                c.comma()?;
                Some(dst)
            } else {
                None
            };
            let bar = c.address("the mbarrier")?;
            c.comma()?;
            let parity = mods.has("parity");
            let phase = c.value(if parity { "a phase parity (0 or 1)" } else { "a state register" })?;
            Ok(with(MbarKind::Wait { blocking: op.text == "try_wait", parity, phase, dst }, bar))
        }
        _ => {
            let dst = c.dst("a destination register")?;
            c.comma()?;
            let state = c.register("a state register")?;
            Ok(with(MbarKind::PendingCount { dst, state }, String::new()))
        }
    }
}
