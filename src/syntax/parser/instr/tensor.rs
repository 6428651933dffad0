//! `wgmma.*` (reference §7) and `tcgen05.*` (reference §8).

use super::super::cursor::{Cursor, PResult};
use super::super::mods::{classify, ignore_sync_aligned, Allowed, Seg};
use super::{bad_form, unknown_operation};
use crate::diag::Diagnostic;
use crate::model::{AddrSpace, Instr, MmaHalf, TcOp, WgmmaOp};
use crate::syntax::lexer::Tok;

pub const WGMMA_OPS: &[&str] = &["fence", "mma_async", "commit_group", "wait_group"];
pub const TC_OPS: &[&str] = &[
    "alloc",
    "dealloc",
    "relinquish_alloc_permit",
    "mma",
    "cp",
    "shift",
    "ld",
    "st",
    "commit",
    "wait::ld",
    "wait::st",
    "fence::before_thread_sync",
    "fence::after_thread_sync",
];

fn op_segment<'a>(segs: &'a [Seg<'a>], ops: &'static [&'static str], family: &str) -> PResult<&'a Seg<'a>> {
    let word_span = segs.first().map(|f| segs.last().map_or(f.span, |l| f.span.to(l.span)));
    let Some(op) = segs.get(1) else {
        return Err(bad_form(
            word_span,
            &format!("`{family}` needs an operation"),
            &format!("write e.g. `{family}.{}`", ops.first().unwrap_or(&"")),
        ));
    };
    if ops.contains(&op.text) {
        Ok(op)
    } else {
        Err(unknown_operation(op, family, ops))
    }
}

/// Shapes, element kinds and packing modes: they do not change synchronization.
fn ignore_shape(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    ignore_sync_aligned(s)
        || s.starts_with("kind::")
        || s.starts_with("warpx")
        || s.starts_with("collector::")
        || s.starts_with("block_scale")
        || matches!(s, "pack::16b" | "unpack::16b" | "ws")
        || s.strip_prefix('x').is_some_and(digits)
        || (s.starts_with(|c: char| c.is_ascii_digit()) && s.contains('x'))
        || (s.starts_with('m') && s.contains('n') && s.contains('k'))
}

pub fn wgmma(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let op = op_segment(segs, WGMMA_OPS, "wgmma")?;
    let name = format!("wgmma.{}", op.text);
    let allowed = Allowed { sems: &[], scopes: false, spaces: &[], flags: &[], ignored: ignore_shape };
    classify(segs.get(2..).unwrap_or(&[]), &allowed, &name, diags);
    let op = match op.text {
        "fence" => WgmmaOp::Fence,
        "commit_group" => WgmmaOp::CommitGroup,
        "wait_group" => WgmmaOp::WaitGroup { n: c.u32_operand("a group count")? },
        _ => {
            let acc = c.register("an accumulator register")?;
            c.comma()?;
            let a = c.address("the A operand")?;
            c.comma()?;
            let b = c.address("the B operand")?;
            WgmmaOp::MmaAsync { acc, a, b }
        }
    };
    Ok(Instr::Wgmma(op))
}

pub fn tcgen05(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let op = op_segment(segs, TC_OPS, "tcgen05")?;
    let name = format!("tcgen05.{}", op.text);
    let flags: &'static [&'static str] = match op.text {
        "shift" => &["cta_group::1", "cta_group::2", "down"],
        "commit" => &["cta_group::1", "cta_group::2", "mbarrier::arrive::one", "multicast::cluster"],
        "ld" | "st" | "wait::ld" | "wait::st" | "fence::before_thread_sync" | "fence::after_thread_sync" => &[],
        _ => &["cta_group::1", "cta_group::2"],
    };
    let spaces: &'static [AddrSpace] = match op.text {
        "commit" => &[AddrSpace::SharedCta, AddrSpace::SharedCluster],
        "alloc" => &[AddrSpace::SharedCta],
        _ => &[],
    };
    let allowed = Allowed { sems: &[], scopes: false, spaces, flags, ignored: ignore_shape };
    let mods = classify(segs.get(2..).unwrap_or(&[]), &allowed, &name, diags);
    let cta_group = match (mods.has("cta_group::1"), mods.has("cta_group::2")) {
        (true, true) => {
            return Err(bad_form(
                mods.flag_span("cta_group::2"),
                "both `.cta_group::1` and `.cta_group::2`",
                "keep one of them",
            ))
        }
        (_, true) => 2,
        _ => 1,
    };
    let tc = match op.text {
        "alloc" => {
            let dst = c.address("the shared location receiving the TMEM address")?;
            c.comma()?;
            TcOp::Alloc { dst, cols: c.u32_operand("a column count")?, cta_group }
        }
        "dealloc" => TcOp::Dealloc { cols: c.u32_operand("a column count")?, cta_group },
        "relinquish_alloc_permit" => TcOp::Relinquish { cta_group },
        "mma" => {
            let d = c.address("the TMEM accumulator")?;
            c.comma()?;
            let a = c.address("the A operand")?;
            c.comma()?;
            let b = c.address("the B operand")?;
            // `, ([d], [a], [b])`: the peer CTA's halves of a CTA pair's mma.
            if c.eat(&Tok::Comma) {
                let open = c.expect(&Tok::LParen, "`(` starting the peer CTA's `([d], [a], [b])` halves")?;
                let peer_d = c.address("the peer's TMEM accumulator half")?;
                c.comma()?;
                let peer_a = c.address("the peer's A half")?;
                c.comma()?;
                let peer_b = c.address("the peer's B half")?;
                let peer = MmaHalf { d: peer_d, a: peer_a, b: peer_b };
                c.expect(&Tok::RParen, "`)`")?;
                if cta_group != 2 {
                    return Err(bad_form(
                        Some(open),
                        "peer halves `([d], [a], [b])` belong to a CTA pair's mma",
                        "write `tcgen05.mma.cta_group::2`, or drop the peer halves",
                    ));
                }
                TcOp::MmaPair { leader: MmaHalf { d, a, b }, peer }
            } else {
                TcOp::Mma { d, a, b, cta_group }
            }
        }
        "cp" => {
            let dst = c.address("the TMEM destination")?;
            c.comma()?;
            let src = c.address("the shared source")?;
            TcOp::Cp { dst, src, cta_group }
        }
        "shift" => {
            if !mods.has("down") {
                return Err(bad_form(
                    Some(op.span),
                    "`tcgen05.shift` needs `.down`",
                    "write `tcgen05.shift.cta_group::1.down [tmem]`",
                ));
            }
            TcOp::Shift { tmem: c.address("the TMEM location")?, cta_group }
        }
        "ld" => {
            let dst = c.dst("a destination register")?;
            c.comma()?;
            TcOp::Ld { dst, src: c.address("the TMEM location")? }
        }
        "st" => {
            let dst = c.address("the TMEM location")?;
            c.comma()?;
            TcOp::St { dst, src: c.value("a register or an immediate")? }
        }
        "commit" => {
            if !mods.has("mbarrier::arrive::one") {
                return Err(bad_form(
                    Some(op.span),
                    "`tcgen05.commit` needs `.mbarrier::arrive::one`",
                    "write `tcgen05.commit.cta_group::1.mbarrier::arrive::one [bar]`",
                ));
            }
            let bar = c.address("the mbarrier")?;
            let mut multicast = Vec::new();
            while c.eat(&Tok::Comma) {
                multicast.push(c.address("a peer mbarrier")?);
            }
            if mods.has("multicast::cluster") == multicast.is_empty() {
                return Err(bad_form(
                    mods.flag_span("multicast::cluster").or(Some(op.span)),
                    "`.multicast::cluster` goes with one extra `[bar]` per peer CTA",
                    "list the peer barriers after the first one, or drop `.multicast::cluster`",
                ));
            }
            TcOp::Commit { bar, multicast, cta_group }
        }
        "wait::ld" => TcOp::WaitLd,
        "wait::st" => TcOp::WaitSt,
        "fence::before_thread_sync" => TcOp::FenceBeforeThreadSync,
        _ => TcOp::FenceAfterThreadSync,
    };
    Ok(Instr::Tc(tc))
}
