//! Asynchronous copies: `cp.async`, `cp.async.bulk`, `cp.reduce.async.bulk`, `st.async`,
//! `red.async` (reference §6).

use super::super::cursor::{Cursor, PResult};
use super::super::mods::{classify, is_type_suffix, unknown_modifier, Allowed, Seg};
use super::bad_form;
use super::memory::{atom_op, ATOM_OPS};
use crate::diag::{Diagnostic, Span};
use crate::model::{AddrSpace, AtomOp, BulkDir, Instr, Sem};
use crate::syntax::lexer::Tok;

const COMPLETE_TX: &str = "mbarrier::complete_tx::bytes";

fn word_span(segs: &[Seg]) -> Option<Span> {
    segs.first().map(|f| segs.last().map_or(f.span, |l| f.span.to(l.span)))
}

/// Everything starting with `cp.`.
pub fn cp(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let texts: Vec<&str> = segs.iter().map(|s| s.text).collect();
    match texts.as_slice() {
        ["cp", "reduce", "async", "bulk", ..] => bulk(c, segs, 4, true, diags),
        ["cp", "async", "bulk", "commit_group"] => Ok(Instr::BulkCommit),
        ["cp", "async", "bulk", "wait_group", rest @ ..] => {
            let read = match rest {
                [] => false,
                ["read"] => true,
                _ => {
                    return Err(bad_form(
                        word_span(segs),
                        "`cp.async.bulk.wait_group` only takes `.read`",
                        "write `cp.async.bulk.wait_group{.read} n`",
                    ))
                }
            };
            Ok(Instr::BulkWait { n: c.u32_operand("a group count")?, read })
        }
        ["cp", "async", "bulk", ..] => bulk(c, segs, 3, false, diags),
        ["cp", "async", "commit_group"] => Ok(Instr::CpAsyncCommit),
        ["cp", "async", "wait_group"] => Ok(Instr::CpAsyncWait { n: c.u32_operand("a group count")? }),
        ["cp", "async", "wait_all"] => Ok(Instr::CpAsyncWaitAll),
        ["cp", "async", "mbarrier", "arrive", ..] => {
            let allowed = Allowed {
                sems: &[],
                scopes: false,
                spaces: &[AddrSpace::SharedCta, AddrSpace::SharedCluster],
                flags: &["noinc"],
                ignored: |_| false,
            };
            let mods = classify(segs.get(4..).unwrap_or(&[]), &allowed, "cp.async.mbarrier.arrive", diags);
            let bar = c.address("the mbarrier")?;
            Ok(Instr::CpAsyncMbarArrive { bar, noinc: mods.has("noinc"), space: mods.space() })
        }
        ["cp", "async", ..] => {
            let flags = &["ca", "cg", "shared", "shared::cta", "global"];
            let allowed = Allowed { sems: &[], scopes: false, spaces: &[], flags, ignored: |s| s.starts_with("L2::") };
            let rest = segs.get(2..).unwrap_or(&[]);
            classify(rest, &allowed, "cp.async", diags);
            let order: Vec<&str> =
                rest.iter().map(|s| s.text).filter(|t| matches!(*t, "shared" | "shared::cta" | "global")).collect();
            if !matches!(order.as_slice(), ["shared" | "shared::cta", "global"]) {
                return Err(bad_form(
                    word_span(segs),
                    "`cp.async` copies global to shared memory",
                    "write `cp.async.ca.shared.global [dst], [src], bytes`",
                ));
            }
            let dst = c.address("the shared destination")?;
            c.comma()?;
            let src = c.address("the global source")?;
            c.comma()?;
            let bytes = c.u32_operand("a byte count")?;
            Ok(Instr::CpAsync { dst, src, bytes })
        }
        _ => Err(bad_form(
            word_span(segs),
            "unknown `cp` instruction",
            "expected `cp.async…` or `cp.reduce.async.bulk…`",
        )),
    }
}

fn bulk(c: &mut Cursor, segs: &[Seg], skip: usize, is_reduce: bool, diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let opcode = if is_reduce { "cp.reduce.async.bulk" } else { "cp.async.bulk" };
    let mut spaces = Vec::new();
    let (mut tensor, mut mbar, mut group, mut multicast) = (false, false, false, false);
    let mut op_flags = Vec::new();
    let mut pair = false;
    let known: &[&str] = &[
        "tensor",
        "global",
        "shared::cta",
        "shared::cluster",
        COMPLETE_TX,
        "bulk_group",
        "multicast::cluster",
        "cta_group::1",
        "cta_group::2",
    ];
    for seg in segs.get(skip..).unwrap_or(&[]) {
        match seg.text {
            "tensor" => tensor = true,
            "global" => spaces.push(AddrSpace::Global),
            "shared" | "shared::cta" => spaces.push(AddrSpace::SharedCta),
            "shared::cluster" => spaces.push(AddrSpace::SharedCluster),
            COMPLETE_TX => mbar = true,
            "bulk_group" => group = true,
            "multicast::cluster" => multicast = true,
            // `::1` is the default and means nothing more here.
            "cta_group::1" => {}
            "cta_group::2" => pair = true,
            t if is_reduce && ATOM_OPS.iter().any(|(n, _)| *n == t) => {
                if let Some(&(name, _)) = ATOM_OPS.iter().find(|(n, _)| *n == t) {
                    op_flags.push((name, seg.span));
                }
            }
            t if is_type_suffix(t) || is_tensor_shape(t) || t.starts_with("L2::") => {}
            _ => {
                let allowed = Allowed { sems: &[], scopes: false, spaces: &[], flags: known, ignored: |_| false };
                diags.push(unknown_modifier(seg, &allowed, opcode));
            }
        }
    }
    let dir = match spaces.as_slice() {
        [AddrSpace::SharedCta, AddrSpace::Global] => BulkDir::GlobalToSharedCta,
        [AddrSpace::SharedCluster, AddrSpace::Global] if pair => BulkDir::GlobalToSharedClusterPair,
        [AddrSpace::SharedCluster, AddrSpace::Global] => BulkDir::GlobalToSharedCluster,
        [AddrSpace::SharedCluster, AddrSpace::SharedCta] => BulkDir::SharedCtaToSharedCluster,
        [AddrSpace::Global, AddrSpace::SharedCta] => BulkDir::SharedCtaToGlobal,
        _ => {
            return Err(bad_form(
                word_span(segs),
                &format!("`{opcode}` needs a destination and a source state space"),
                "use `.shared::cta.global`, `.shared::cluster.global`, `.shared::cluster.shared::cta` or `.global.shared::cta`",
            ))
        }
    };
    if pair && dir != BulkDir::GlobalToSharedClusterPair {
        return Err(bad_form(
            word_span(segs),
            "`.cta_group::2` goes only on a load from global into `shared::cluster`",
            "write `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.cta_group::2`",
        ));
    }
    if mbar == group {
        return Err(bad_form(
            word_span(segs),
            &format!("`{opcode}` needs one completion mechanism"),
            "add `.mbarrier::complete_tx::bytes` or `.bulk_group`",
        ));
    }
    let reduce = if is_reduce { Some(atom_op(&op_flags, opcode, segs)?) } else { None };
    if reduce == Some(AtomOp::Cas) || reduce == Some(AtomOp::Exch) {
        return Err(bad_form(
            word_span(segs),
            "bulk reductions have no `.cas` or `.exch`",
            "use `.add`, `.min`, `.max`, `.inc`, `.dec`, `.and`, `.or` or `.xor`",
        ));
    }
    let dst = c.address("the destination")?;
    c.comma()?;
    let src = c.address("the source")?;
    c.comma()?;
    let bytes = c.u32_operand("a byte count")?;
    let bar = if mbar {
        c.comma()?;
        Some(c.address("the mbarrier")?)
    } else {
        None
    };
    let mut pairs = Vec::new();
    while c.eat(&Tok::Comma) {
        c.expect(&Tok::LParen, "`(` starting a multicast `([dst], [bar])` pair")?;
        let peer_dst = c.address("the peer destination")?;
        c.comma()?;
        let peer_bar = c.address("the peer mbarrier")?;
        c.expect(&Tok::RParen, "`)`")?;
        pairs.push((peer_dst, peer_bar));
    }
    if multicast == pairs.is_empty() {
        let message = if multicast {
            "`.multicast::cluster` needs one `([dst], [bar])` pair per peer CTA"
        } else {
            "`([dst], [bar])` pairs need `.multicast::cluster`"
        };
        return Err(bad_form(
            word_span(segs),
            message,
            "write `...multicast::cluster [dst], [src], bytes, [bar], ([dst2], [bar2])`",
        ));
    }
    Ok(Instr::Bulk { dir, dst, src, bytes, mbar: bar, multicast: pairs, reduce, tensor })
}

fn is_tensor_shape(s: &str) -> bool {
    matches!(
        s,
        "1d" | "2d" | "3d" | "4d" | "5d" | "tile" | "im2col" | "im2col_no_offs" | "tile::gather4" | "tile::scatter4"
    )
}

/// `st.async` and `red.async`.
pub fn st_async(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let is_red = segs.first().is_some_and(|s| s.text == "red");
    let opcode = if is_red { "red.async" } else { "st.async" };
    const ST_FLAGS: &[&str] = &[COMPLETE_TX];
    const RED_FLAGS: &[&str] = &[COMPLETE_TX, "add", "inc", "dec", "exch", "max", "min", "and", "or", "xor", "cas"];
    let flags = if is_red { RED_FLAGS } else { ST_FLAGS };
    let sems: &'static [Sem] = if is_red { &[Sem::Relaxed] } else { &[Sem::Weak] };
    let allowed = Allowed { sems, scopes: is_red, spaces: &[AddrSpace::SharedCluster], flags, ignored: |_| false };
    let mods = classify(segs.get(2..).unwrap_or(&[]), &allowed, opcode, diags);
    if !mods.has(COMPLETE_TX) {
        return Err(bad_form(
            word_span(segs),
            &format!("`{opcode}` needs `.mbarrier::complete_tx::bytes`"),
            "only the mbarrier-completed form is modelled",
        ));
    }
    if is_red && (mods.sem().is_none() || mods.scope() != Some(crate::model::Scope::Cluster)) {
        return Err(bad_form(
            mods.scope.map(|s| s.1).or(word_span(segs)),
            "`red.async` is always written `.relaxed.cluster` (PTX ISA §9.7.13.7)",
            "write `red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add`",
        ));
    }
    let red = if is_red {
        let ops: Vec<_> = mods.flags.iter().filter(|(f, _)| *f != COMPLETE_TX).copied().collect();
        Some(atom_op(&ops, opcode, segs)?)
    } else {
        None
    };
    let addr = c.address("the peer shared location")?;
    c.comma()?;
    let src = c.value("a register or an immediate")?;
    c.comma()?;
    let mbar = c.address("the peer mbarrier")?;
    Ok(Instr::StAsync { addr, src, mbar, red })
}
