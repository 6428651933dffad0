//! Asynchronous copies: directions against where the memory lives (ref §6.1, §6.2), byte
//! counts, and the `st.async`/`red.async` target rules (ref §6.5).

use super::context::{Ctx, Reach};
use crate::diag::{Diagnostic, Span};
use crate::model::{BulkDir, Instr, Location, Space};

pub fn check(ctx: &mut Ctx) {
    for (t, i, instr) in ctx.instrs().collect::<Vec<_>>() {
        match instr {
            Instr::CpAsync { dst, src, bytes } => {
                expect_reach(ctx, t, i, 0, dst, &[Reach::OwnCta], "`cp.async` writes the own CTA's shared memory");
                expect_reach(ctx, t, i, 1, src, &[Reach::Global], "`cp.async` reads global memory");
                if ![4, 8, 16].contains(bytes) {
                    bad_bytes(ctx, ctx.operand(t, i, 2), format!("`cp.async` copies 4, 8 or 16 bytes, not {bytes}"));
                }
            }
            Instr::CpAsyncMbarArrive { bar, .. } => {
                if let Some(b) = ctx.resolve_mbarrier(t, i, 0, bar) {
                    if ctx.reach_cta(t, b.cta) != Reach::OwnCta {
                        ctx.push(
                            Diagnostic::error(
                                "F0321",
                                format!("`cp.async.mbarrier.arrive` on `{bar}`, an mbarrier of another CTA"),
                            )
                            .with_primary(ctx.at(t, i), "only the own CTA's barriers")
                            .with_note("ref §4.1: this form addresses `.shared::cta` barriers"),
                        );
                    }
                }
            }
            Instr::Bulk { dir, dst, src, bytes, mbar, multicast, reduce, tensor } => {
                let pair = *dir == BulkDir::GlobalToSharedClusterPair;
                if pair {
                    pair_form(ctx, t, i, *tensor && mbar.is_some() && reduce.is_none());
                }
                bulk(ctx, t, i, *dir, dst, src, mbar.as_deref(), multicast, reduce.is_some(), pair);
                if *bytes == 0 || bytes % 16 != 0 {
                    bad_bytes(
                        ctx,
                        ctx.operand(t, i, 2),
                        format!("bulk copies move a positive multiple of 16 bytes, not {bytes}"),
                    );
                }
                let sizes = [dst, src].map(|n| ctx.location(n).map_or(u32::MAX, |l| l.size));
                if sizes.iter().any(|s| bytes > s) {
                    ctx.push(
                        Diagnostic::warning(
                            "F0410",
                            format!("copy of {bytes} bytes is larger than its source or destination"),
                        )
                        .with_primary(ctx.operand(t, i, 2), "more bytes than the location holds"),
                    );
                }
            }
            Instr::StAsync { addr, mbar, red, .. } => st_async(ctx, t, i, addr, mbar, red.is_some()),
            _ => {}
        }
    }
}

fn bad_bytes(ctx: &mut Ctx, span: Option<Span>, message: String) {
    ctx.push(Diagnostic::error("F0327", message).with_primary(span, "invalid size").with_note("ref §6.1, §6.2"));
}

/// Checks that operand `k` names a location `t` reaches in one of the `allowed` ways.
fn expect_reach<'a>(
    ctx: &mut Ctx<'a>,
    t: usize,
    i: usize,
    k: usize,
    name: &str,
    allowed: &[Reach],
    why: &str,
) -> Option<&'a Location> {
    let loc = ctx.resolve_location(t, i, k, name)?;
    let reach = ctx.reach_location(t, loc);
    if !allowed.contains(&reach) && reach != Reach::Unknown {
        let is = match reach {
            Reach::OwnCta => "the own CTA's shared memory",
            Reach::PeerCta => "another CTA's shared memory",
            Reach::OtherCluster => "shared memory outside this cluster",
            Reach::Global => "global memory",
            Reach::Tmem => "tensor memory",
            Reach::Unknown => "unknown",
        };
        ctx.push(
            Diagnostic::error("F0326", format!("`{name}` is {is}"))
                .with_primary(ctx.operand(t, i, k), "wrong memory for this operand")
                .with_note(why.to_string()),
        );
    }
    Some(loc)
}

/// `.cta_group::2` goes only on a tensor load into `shared::cluster` completed on an
/// mbarrier (PTX §9.7.9.27.1.2 in the 9.1 numbering; ref §6.2).
fn pair_form(ctx: &mut Ctx, t: usize, i: usize, tensor_load: bool) {
    if !tensor_load {
        ctx.push(
            Diagnostic::error("F0339", "`.cta_group::2` on a bulk copy that is not a tensor load completed on an mbarrier")
                .with_primary(ctx.at(t, i), "no `.cta_group` on this form")
                .with_note("ref §6.2: `.cta_group` belongs to `cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx::bytes`")
                .with_help("write `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.cta_group::2`, or drop `.cta_group`"),
        );
    }
}

/// The mbarrier that completes a copy must sit in the CTA whose memory the copy writes, or,
/// for a CTA pair's copy (`pair`), in that CTA's pair peer (ref §6.2).
fn same_cta_barrier(ctx: &mut Ctx, t: usize, i: usize, k: usize, dst: Option<&Location>, bar: &str, pair: bool) {
    let Some(b) = ctx.resolve_mbarrier(t, i, k, bar) else { return };
    if let Some(Space::Shared(owner)) = dst.map(|d| d.space) {
        if pair && owner != b.cta && ctx.s.pair_peer(owner) != Some(b.cta) {
            let dst_name = dst.map_or("?", |d| d.name.as_str());
            let peer = ctx.s.pair_peer(owner).map_or("none".to_string(), |p| format!("`{}`", ctx.cta_name(p)));
            ctx.push(
                Diagnostic::error("F0326", format!("mbarrier `{bar}` is neither in the CTA the copy writes nor in its pair peer"))
                    .with_primary(ctx.operand(t, i, k), format!("`{bar}` lives in `{}`", ctx.cta_name(b.cta)))
                    .with_note(format!("ref §6.2: with `.cta_group::2` the barrier may sit in the pair peer of `{dst_name}`'s CTA `{}` (pair peer: {peer})", ctx.cta_name(owner))),
            );
            return;
        }
        if !pair && owner != b.cta {
            ctx.push(
                Diagnostic::error("F0326", format!("mbarrier `{bar}` is not in the CTA the copy writes"))
                    .with_primary(ctx.operand(t, i, k), format!("`{bar}` lives in `{}`", ctx.cta_name(b.cta)))
                    .with_note("ref §6.2: complete-tx is signalled on the barrier of the destination CTA"),
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn bulk(
    ctx: &mut Ctx,
    t: usize,
    i: usize,
    dir: BulkDir,
    dst: &str,
    src: &str,
    mbar: Option<&str>,
    multicast: &[(String, String)],
    is_reduce: bool,
    pair: bool,
) {
    use Reach::*;
    let (dst_ok, src_ok, why): (&[Reach], &[Reach], &str) = match dir {
        BulkDir::GlobalToSharedCta => {
            (&[OwnCta], &[Global], "`.shared::cta.global` copies global memory into the own CTA")
        }
        BulkDir::GlobalToSharedCluster | BulkDir::GlobalToSharedClusterPair => {
            (&[OwnCta, PeerCta], &[Global], "`.shared::cluster.global` copies global memory into a CTA of the cluster")
        }
        BulkDir::SharedCtaToSharedCluster => (
            &[PeerCta],
            &[OwnCta],
            "`.shared::cluster.shared::cta` copies own shared memory into a different CTA of the cluster",
        ),
        BulkDir::SharedCtaToGlobal => {
            (&[Global], &[OwnCta], "`.global.shared::cta` copies own shared memory to global memory")
        }
    };
    let d = expect_reach(ctx, t, i, 0, dst, dst_ok, why);
    expect_reach(ctx, t, i, 1, src, src_ok, why);
    if is_reduce && matches!(dir, BulkDir::GlobalToSharedCta | BulkDir::GlobalToSharedCluster | BulkDir::GlobalToSharedClusterPair) {
        ctx.push(
            Diagnostic::error("F0326", "`cp.reduce.async.bulk` reduces into shared::cluster or global memory")
                .with_primary(ctx.at(t, i), "no global → shared reduction")
                .with_note("ref §6.2"),
        );
    }
    if let Some(bar) = mbar {
        same_cta_barrier(ctx, t, i, 3, d, bar, pair);
    }
    // Ref §6.2: only `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`
    // multicasts; every other direction, the bulk-group form and reductions have no
    // `.multicast::cluster`.
    let multicasts = matches!(dir, BulkDir::GlobalToSharedCluster | BulkDir::GlobalToSharedClusterPair);
    if !multicast.is_empty() && (!multicasts || mbar.is_none() || is_reduce) {
        let form = if is_reduce {
            "`cp.reduce.async.bulk`".to_string()
        } else if mbar.is_none() {
            "the `.bulk_group` form".to_string()
        } else {
            format!("`cp.async.bulk{}`", dir_text(dir))
        };
        ctx.push(
            Diagnostic::error("F0336", format!("`.multicast::cluster` is not allowed on {form}"))
                .with_primary(ctx.at(t, i), "multicast on this form")
                .with_note("ref §6.2: only the global → shared::cluster copy completed on an mbarrier multicasts")
                .with_help("write `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`, or drop `.multicast::cluster` and the `([dst], [bar])` pairs"),
        );
        return;
    }
    let mut ctas: Vec<Option<Space>> = vec![d.map(|l| l.space)];
    for (n, (peer_dst, peer_bar)) in multicast.iter().enumerate() {
        let k = 4 + 2 * n;
        let pd =
            expect_reach(ctx, t, i, k, peer_dst, &[OwnCta, PeerCta], "multicast destinations are CTAs of the cluster");
        same_cta_barrier(ctx, t, i, k + 1, pd, peer_bar, pair);
        let space = pd.map(|l| l.space);
        if space.is_some() && ctas.contains(&space) {
            ctx.push(
                Diagnostic::error("F0326", "two multicast destinations in the same CTA")
                    .with_primary(ctx.operand(t, i, k), "one destination per CTA"),
            );
        }
        ctas.push(space);
    }
}

fn dir_text(dir: BulkDir) -> &'static str {
    match dir {
        BulkDir::GlobalToSharedCta => ".shared::cta.global",
        BulkDir::GlobalToSharedCluster | BulkDir::GlobalToSharedClusterPair => ".shared::cluster.global",
        BulkDir::SharedCtaToSharedCluster => ".shared::cluster.shared::cta",
        BulkDir::SharedCtaToGlobal => ".global.shared::cta",
    }
}

fn st_async(ctx: &mut Ctx, t: usize, i: usize, addr: &str, mbar: &str, is_red: bool) {
    let op = if is_red { "red.async" } else { "st.async" };
    let loc = ctx.resolve_location(t, i, 0, addr);
    let bar = ctx.resolve_mbarrier(t, i, 2, mbar);
    let own_cluster = ctx.thread_cta(t).and_then(|c| ctx.cluster_of(c));
    if own_cluster.is_some_and(|c| ctx.cluster_size(c) < 2) {
        ctx.push(
            Diagnostic::error("F0328", format!("`{op}` needs a cluster of more than one CTA"))
                .with_primary(ctx.at(t, i), "this thread's cluster has one CTA")
                .with_note("ref §6.5: with a cluster of size 1 the behaviour is undefined"),
        );
    }
    let Some(loc) = loc else { return };
    let Space::Shared(owner) = loc.space else {
        ctx.push(
            Diagnostic::error(
                "F0328",
                format!("`{op}` writes shared memory of a cluster CTA; `{addr}` is not shared memory"),
            )
            .with_primary(ctx.operand(t, i, 0), "not shared memory"),
        );
        return;
    };
    match ctx.reach_cta(t, owner) {
        Reach::OtherCluster => ctx.push(
            Diagnostic::error("F0330", format!("`{addr}` is outside this thread's cluster"))
                .with_primary(ctx.operand(t, i, 0), "unreachable shared memory"),
        ),
        Reach::OwnCta if is_red => ctx.push(
            Diagnostic::error("F0328", "`red.async` must target another CTA")
                .with_primary(ctx.operand(t, i, 0), "own CTA's shared memory")
                .with_note("ref §6.5: the target CTA must differ from the executing one"),
        ),
        Reach::OwnCta => ctx.push(
            Diagnostic::warning("F0409", "`st.async` into the own CTA's shared memory")
                .with_primary(ctx.operand(t, i, 0), "the spec does not clearly allow the executing CTA as target")
                .with_note("ref §6.5, §12 #9: the wording is ambiguous; `red.async` forbids it explicitly"),
        ),
        _ => {}
    }
    if let Some(bar) = bar.filter(|b| b.cta != owner) {
        ctx.push(
            Diagnostic::error("F0328", format!("`{op}` data and mbarrier must be in the same CTA"))
                .with_primary(
                    ctx.operand(t, i, 2),
                    format!(
                        "`{}` lives in `{}`, `{addr}` in `{}`",
                        bar.name,
                        ctx.cta_name(bar.cta),
                        ctx.cta_name(owner)
                    ),
                )
                .with_note("ref §6.5"),
        );
    }
}
