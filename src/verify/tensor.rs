//! wgmma and tcgen05 operands (ref §7, §8) and the one-`cta_group`-per-kernel rule.

use super::context::{Ctx, Reach};
use crate::diag::Diagnostic;
use crate::model::{Instr, MmaHalf, Space, TcOp, WgmmaOp};

#[derive(Clone, Copy, PartialEq)]
enum Mem {
    Shared,
    Tmem,
    SharedOrTmem,
}

pub fn check(ctx: &mut Ctx) {
    let mut first_group: Option<(u8, usize, usize)> = None;
    for (t, i, instr) in ctx.instrs().collect::<Vec<_>>() {
        match instr {
            Instr::Wgmma(WgmmaOp::MmaAsync { a, b, .. }) => {
                operand(ctx, t, i, 1, a, Mem::Shared, "wgmma");
                operand(ctx, t, i, 2, b, Mem::Shared, "wgmma");
            }
            Instr::Tc(op) => {
                if let Some(group) = op.cta_group() {
                    check_group(ctx, t, i, group, &mut first_group);
                }
                tc_operands(ctx, t, i, op);
            }
            _ => {}
        }
    }
    pair_collectives(ctx);
}

fn check_group(ctx: &mut Ctx, t: usize, i: usize, group: u8, first: &mut Option<(u8, usize, usize)>) {
    if group != 1 && group != 2 {
        ctx.push(
            Diagnostic::error("F0329", format!("`.cta_group::{group}` does not exist"))
                .with_primary(ctx.at(t, i), "use `::1` or `::2`"),
        );
        return;
    }
    if group == 2 && ctx.thread_cta(t).and_then(|c| ctx.cluster_of(c)).is_some_and(|c| ctx.cluster_size(c) < 2) {
        ctx.push(
            Diagnostic::error("F0329", "`.cta_group::2` needs a pair of CTAs in one cluster")
                .with_primary(ctx.at(t, i), "this thread's cluster has one CTA")
                .with_note("ref §8.5: `cta_group::2` operations need the peer CTA"),
        );
    } else if let Some(own) = ctx.thread_cta(t).filter(|c| group == 2 && ctx.s.pair_peer(*c).is_none()) {
        // The last CTA of a cluster of odd size has no rank to pair with.
        let size = ctx.cluster_of(own).map_or(0, |c| ctx.cluster_size(c));
        let rank = ctx.s.cta_rank(own).unwrap_or(0);
        ctx.push(
            Diagnostic::error("F0337", format!("`.cta_group::2` in CTA `{}`, rank {rank} of a cluster of {size} CTAs: it has no pair peer", ctx.cta_name(own)))
                .with_primary(ctx.at(t, i), "no rank to pair with in this cluster")
                .with_note("a CTA pair is two CTAs of one cluster, ranks 2k and 2k+1 (ref §8; PTX `cta_group::2`)"),
        );
    }
    match *first {
        None => *first = Some((group, t, i)),
        Some((g, ft, fi)) if g != group => {
            ctx.push(
                Diagnostic::error("F0329", format!("`.cta_group::{group}` mixed with `.cta_group::{g}`"))
                    .with_primary(ctx.at(t, i), "different CTA group")
                    .with_secondary(ctx.at(ft, fi), "first tcgen05 operation")
                    .with_note("ref §8.3: all tcgen05 operations of a kernel use the same `cta_group`"),
            );
        }
        _ => {}
    }
}

fn tc_operands(ctx: &mut Ctx, t: usize, i: usize, op: &TcOp) {
    match op {
        TcOp::Alloc { dst, cols, .. } => {
            operand(ctx, t, i, 0, dst, Mem::Shared, "tcgen05.alloc");
            columns(ctx, t, i, 1, *cols);
        }
        TcOp::Dealloc { cols, .. } => columns(ctx, t, i, 0, *cols),
        TcOp::MmaPair { leader, peer } => pair_mma(ctx, t, i, leader, peer),
        TcOp::Mma { d, a, b, cta_group } => {
            // A CTA pair's MMA reads the operand halves of both CTAs (ref §8.5).
            let peer_ok = *cta_group == 2;
            operand(ctx, t, i, 0, d, Mem::Tmem, "tcgen05.mma");
            operand_in(ctx, t, i, 1, a, Mem::SharedOrTmem, "tcgen05.mma", peer_ok);
            operand_in(ctx, t, i, 2, b, Mem::Shared, "tcgen05.mma", peer_ok);
        }
        TcOp::Cp { dst, src, .. } => {
            operand(ctx, t, i, 0, dst, Mem::Tmem, "tcgen05.cp");
            operand(ctx, t, i, 1, src, Mem::Shared, "tcgen05.cp");
        }
        TcOp::Shift { tmem, .. } => operand(ctx, t, i, 0, tmem, Mem::Tmem, "tcgen05.shift"),
        TcOp::Ld { src, .. } => operand(ctx, t, i, 1, src, Mem::Tmem, "tcgen05.ld"),
        TcOp::St { dst, .. } => operand(ctx, t, i, 0, dst, Mem::Tmem, "tcgen05.st"),
        TcOp::Commit { bar, multicast, .. } => {
            for (k, name) in std::iter::once(bar).chain(multicast).enumerate() {
                if let Some(b) = ctx.resolve_mbarrier(t, i, k, name) {
                    if ctx.reach_cta(t, b.cta) == Reach::OtherCluster {
                        ctx.push(
                            Diagnostic::error("F0323", format!("`{name}` is outside this thread's cluster"))
                                .with_primary(ctx.operand(t, i, k), "unreachable mbarrier"),
                        );
                    }
                }
            }
        }
        _ => {}
    }
}

/// A CTA pair's mma: issued by the leader (even rank), the leader's halves in its own CTA,
/// the peer's halves in the other CTA of the pair (ref §8; PTX `cta_group::2`).
fn pair_mma(ctx: &mut Ctx, t: usize, i: usize, leader: &MmaHalf, peer: &MmaHalf) {
    let Some(own) = ctx.thread_cta(t) else { return };
    if !ctx.s.is_pair_leader(own) {
        let leader_name = ctx.s.pair_peer(own).map_or("?", |c| ctx.cta_name(c)).to_string();
        ctx.push(
            Diagnostic::error("F0337", format!("a pair's `tcgen05.mma` issued from CTA `{}`, the odd rank of its pair", ctx.cta_name(own)))
                .with_primary(ctx.at(t, i), "not the pair's leader")
                .with_note("the even-rank CTA of a pair issues its `cta_group::2` mma")
                .with_help(format!("issue it from a thread of `{leader_name}` with that CTA's halves first")),
        );
        return;
    }
    operand(ctx, t, i, 0, &leader.d, Mem::Tmem, "tcgen05.mma");
    operand(ctx, t, i, 1, &leader.a, Mem::SharedOrTmem, "tcgen05.mma");
    operand(ctx, t, i, 2, &leader.b, Mem::Shared, "tcgen05.mma");
    // No partner: reported with the CTA's `cta_group` (F0337).
    let Some(partner) = ctx.s.pair_peer(own) else { return };
    let wants = [(&peer.d, Mem::Tmem), (&peer.a, Mem::SharedOrTmem), (&peer.b, Mem::Shared)];
    for (k, (name, want)) in wants.into_iter().enumerate() {
        let k = k + 3;
        let Some(loc) = ctx.resolve_location(t, i, k, name) else { continue };
        let owner = match loc.space {
            Space::Shared(c) | Space::Tmem(c) => c,
            Space::Global => {
                operand_in(ctx, t, i, k, name, want, "tcgen05.mma", true);
                continue;
            }
        };
        if owner == partner {
            operand_in(ctx, t, i, k, name, want, "tcgen05.mma", true);
            continue;
        }
        let across = ctx.cluster_of(owner) != ctx.cluster_of(own);
        let (message, label) = if across {
            (format!("pair across clusters: `{name}` is in CTA `{}`, outside the cluster of `{}`", ctx.cta_name(owner), ctx.cta_name(own)), "another cluster")
        } else {
            (format!("`{name}` is in CTA `{}`, which is not the pair peer of `{}`", ctx.cta_name(owner), ctx.cta_name(own)), "not the pair's other CTA")
        };
        let help = format!("the peer halves belong to CTA `{}` (rank {} of the cluster)", ctx.cta_name(partner), ctx.s.cta_rank(partner).unwrap_or(0));
        ctx.push(
            Diagnostic::error("F0337", message)
                .with_primary(ctx.operand(t, i, k), label)
                .with_note("a CTA pair is two CTAs of one cluster, ranks 2k and 2k+1")
                .with_help(help),
        );
    }
}

/// `tcgen05.alloc`/`dealloc`/`relinquish_alloc_permit` with `.cta_group::2` are collective
/// over the pair: a warp of each CTA runs them (PTX §9.7.16.7.1).
fn pair_collectives(ctx: &mut Ctx) {
    let pair_op = |op: &TcOp| match op {
        TcOp::Alloc { cta_group: 2, .. } => Some("tcgen05.alloc"),
        TcOp::Dealloc { cta_group: 2, .. } => Some("tcgen05.dealloc"),
        TcOp::Relinquish { cta_group: 2 } => Some("tcgen05.relinquish_alloc_permit"),
        _ => None,
    };
    let runs = |ctx: &Ctx, cta: usize, name: &str| {
        ctx.instrs().any(|(t, _, instr)| {
            ctx.thread_cta(t) == Some(cta) && matches!(instr, Instr::Tc(op) if pair_op(op) == Some(name))
        })
    };
    for (t, i, instr) in ctx.instrs().collect::<Vec<_>>() {
        let Instr::Tc(op) = instr else { continue };
        let (Some(name), Some(own)) = (pair_op(op), ctx.thread_cta(t)) else { continue };
        let Some(peer) = ctx.s.pair_peer(own) else { continue };
        if !runs(ctx, peer, name) {
            ctx.push(
                Diagnostic::error("F0338", format!("`{name}.cta_group::2` in `{}` but not in its pair peer `{}`", ctx.cta_name(own), ctx.cta_name(peer)))
                    .with_primary(ctx.at(t, i), "collective over the CTA pair")
                    .with_note("with `.cta_group::2` one warp of each CTA of the pair runs it (PTX §9.7.16.7.1)")
                    .with_help(format!("run the same `{name}.cta_group::2` in a thread of `{}`", ctx.cta_name(peer))),
            );
        }
    }
}

fn columns(ctx: &mut Ctx, t: usize, i: usize, k: usize, cols: u32) {
    if !(32..=512).contains(&cols) || !cols.is_power_of_two() {
        ctx.push(
            Diagnostic::error("F0331", format!("{cols} TMEM columns"))
                .with_primary(ctx.operand(t, i, k), "a power of two from 32 to 512")
                .with_note("ref §8.5"),
        );
    }
}

/// Operand `k` must name a location of the own CTA in the given kind of memory.
fn operand(ctx: &mut Ctx, t: usize, i: usize, k: usize, name: &str, want: Mem, op: &str) {
    operand_in(ctx, t, i, k, name, want, op, false);
}

/// Like [`operand`]; with `peer_ok` the location may also be in a peer CTA of the cluster.
#[allow(clippy::too_many_arguments)]
fn operand_in(ctx: &mut Ctx, t: usize, i: usize, k: usize, name: &str, want: Mem, op: &str, peer_ok: bool) {
    let Some(loc) = ctx.resolve_location(t, i, k, name) else { return };
    let (owner, kind) = match loc.space {
        Space::Shared(c) => (Some(c), Mem::Shared),
        Space::Tmem(c) => (Some(c), Mem::Tmem),
        Space::Global => (None, Mem::Shared),
    };
    let kind_ok = want == kind || (want == Mem::SharedOrTmem && owner.is_some());
    let own = owner.is_some_and(|c| match ctx.reach_cta(t, c) {
        Reach::OwnCta => true,
        Reach::PeerCta => peer_ok,
        _ => false,
    });
    if !kind_ok || !own {
        let whose = if peer_ok { "the CTA pair's" } else { "the own CTA's" };
        let wanted = match want {
            Mem::Shared => format!("{whose} shared memory"),
            Mem::Tmem => format!("{whose} tensor memory"),
            Mem::SharedOrTmem => format!("{whose} shared or tensor memory"),
        };
        ctx.push(
            Diagnostic::error("F0332", format!("`{op}` operand `{name}` must be in {wanted}"))
                .with_primary(ctx.operand(t, i, k), "wrong memory for this operand"),
        );
    }
}
