//! mbarrier operations: where the barrier is (ref §4.1 location table, §10 #6/#7), which
//! semantics and scopes each operation takes (ref §4.3, §4.4), and count ranges.

use super::context::{Ctx, Reach};
use super::decls::MBAR_MAX;
use crate::diag::Diagnostic;
use crate::model::{AddrSpace, Instr, MbarKind, MbarOp, Operand, Scope, Sem};

pub fn check(ctx: &mut Ctx) {
    for (t, i, instr) in ctx.instrs().collect::<Vec<_>>() {
        let Instr::Mbar(op) = instr else { continue };
        semantics(ctx, t, i, op);
        counts(ctx, t, i, op);
        if matches!(op.kind, MbarKind::PendingCount { .. }) {
            continue;
        }
        let Some(bar) = ctx.resolve_mbarrier(t, i, 0, &op.bar) else { continue };
        location(ctx, t, i, op, bar.cta);
    }
    second_inits(ctx);
    unused_waits(ctx);
}

/// `mbarrier.init` on a barrier the declaration already initialised, with no `inval` before
/// it in the same thread.
fn second_inits(ctx: &mut Ctx) {
    let mut found = Vec::new();
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        let mut invalidated = std::collections::HashSet::new();
        for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
            let Instr::Mbar(op) = instr else { continue };
            match op.kind {
                MbarKind::Inval => {
                    invalidated.insert(op.bar.as_str());
                }
                MbarKind::Init { .. }
                    if !invalidated.contains(op.bar.as_str())
                        && ctx.mbarrier(&op.bar).is_some_and(|b| b.count.is_some()) =>
                {
                    found.push((t, i, op.bar.clone()));
                }
                _ => {}
            }
        }
    }
    for (t, i, bar) in found {
        ctx.push(
            Diagnostic::error("F0341", format!("`{bar}` is initialised twice"))
                .with_primary(ctx.at(t, i), "the declaration already gives it a count")
                .with_note(
                    "ref §4.2: `mbarrier.init` on a valid mbarrier is undefined behaviour; `mbarrier.inval` it first",
                )
                .with_help(format!("drop `count` from `mbarrier {bar}` or drop this init")),
        );
    }
}

/// A test/try_wait outside `wait` whose predicate goes nowhere.
fn unused_waits(ctx: &mut Ctx) {
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
            if let Instr::Mbar(MbarOp { kind: MbarKind::Wait { dst: None, .. }, .. }) = instr {
                ctx.push(
                    Diagnostic::warning("F0413", "the result of this wait is not used")
                        .with_primary(ctx.at(t, i), "no predicate register and no `wait` prefix")
                        .with_help("write `wait mbarrier.try_wait…` to spin until the phase completes"),
                );
            }
        }
    }
}

fn op_name(kind: &MbarKind) -> &'static str {
    match kind {
        MbarKind::Init { .. } => "mbarrier.init",
        MbarKind::Inval => "mbarrier.inval",
        MbarKind::ExpectTx { .. } => "mbarrier.expect_tx",
        MbarKind::CompleteTx { .. } => "mbarrier.complete_tx",
        MbarKind::Arrive { drop: true, .. } => "mbarrier.arrive_drop",
        MbarKind::Arrive { .. } => "mbarrier.arrive",
        MbarKind::Wait { blocking: true, .. } => "mbarrier.try_wait",
        MbarKind::Wait { .. } => "mbarrier.test_wait",
        MbarKind::PendingCount { .. } => "mbarrier.pending_count",
    }
}

fn semantics(ctx: &mut Ctx, t: usize, i: usize, op: &MbarOp) {
    let name = op_name(&op.kind);
    let (sems, scoped): (&[Sem], bool) = match op.kind {
        MbarKind::Arrive { .. } => (&[Sem::Release, Sem::Relaxed], true),
        MbarKind::Wait { .. } => (&[Sem::Acquire, Sem::Relaxed], true),
        MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. } => (&[Sem::Relaxed], true),
        _ => (&[], false),
    };
    let bad_sem = op.sem.is_some_and(|s| !sems.contains(&s));
    let bad_scope = op.scope.is_some_and(|s| !scoped || !matches!(s, Scope::Cta | Scope::Cluster));
    if bad_sem || bad_scope {
        let allowed = match op.kind {
            MbarKind::Arrive { .. } => "`.release` (default) or `.relaxed`, scope `.cta` (default) or `.cluster`",
            MbarKind::Wait { .. } => "`.acquire` (default) or `.relaxed`, scope `.cta` (default) or `.cluster`",
            MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. } => "only `.relaxed`, scope `.cta` or `.cluster`",
            _ => "no semantics or scope",
        };
        ctx.push(
            Diagnostic::error("F0317", format!("invalid semantics or scope on `{name}`"))
                .with_primary(ctx.at(t, i), format!("`{name}` takes {allowed}"))
                .with_note("ref §4.3, §4.4"),
        );
    }
    if matches!(op.kind, MbarKind::Wait { .. }) && op.sem.is_some() != op.scope.is_some() {
        ctx.push(
            Diagnostic::error("F0333", format!("`{name}` needs its semantics and scope together"))
                .with_primary(ctx.at(t, i), "only one of `.sem` and `.scope` is written")
                .with_note("ref §4.4: on mbarrier waits `.sem` and `.scope` are given together or not at all")
                .with_help("write both, e.g. `.acquire.cluster`, or neither"),
        );
    }
}

fn counts(ctx: &mut Ctx, t: usize, i: usize, op: &MbarOp) {
    let out_of_range = |n: u32, zero_ok: bool| (n == 0 && !zero_ok) || n > MBAR_MAX;
    let problem = match &op.kind {
        MbarKind::Init { count } if out_of_range(*count, false) => Some(format!("arrival count {count}")),
        MbarKind::Arrive { count: Some(c), .. } if out_of_range(*c, false) => Some(format!("arrival count {c}")),
        MbarKind::Arrive { expect_tx: Some(b), .. }
        | MbarKind::ExpectTx { bytes: b }
        | MbarKind::CompleteTx { bytes: b }
            if out_of_range(*b, true) =>
        {
            Some(format!("transaction count {b}"))
        }
        _ => None,
    };
    if let Some(what) = problem {
        ctx.push(
            Diagnostic::error("F0310", format!("{what} is out of range"))
                .with_primary(ctx.at(t, i), format!("counts are at most {MBAR_MAX} (arrival counts at least 1)"))
                .with_note(
                    "ref §4.1: pending and expected counts are 1 … 2^20 − 1, tx-count magnitude at most 2^20 − 1",
                ),
        );
    }
    match &op.kind {
        MbarKind::Arrive { no_complete: true, count: None, .. } => {
            ctx.push(
                Diagnostic::error("F0318", "`.noComplete` needs an explicit count")
                    .with_primary(ctx.at(t, i), "no count operand")
                    .with_help(format!("write `{} [{}], count`", op_name(&op.kind), op.bar)),
            );
        }
        MbarKind::Wait { parity: true, phase: Operand::Imm(p), .. } if *p != 0 && *p != 1 => {
            ctx.push(
                Diagnostic::error("F0319", format!("phase parity {p} is not 0 or 1"))
                    .with_primary(ctx.at(t, i), "parity is 0 (even) or 1 (odd)"),
            );
        }
        MbarKind::Wait { parity: false, phase: Operand::Imm(_), .. } => {
            ctx.push(
                Diagnostic::error("F0319", "a wait without `.parity` takes a state register")
                    .with_primary(ctx.at(t, i), "immediate phase")
                    .with_help("pass the state returned by `mbarrier.arrive`, or add `.parity`"),
            );
        }
        _ => {}
    }
}

fn location(ctx: &mut Ctx, t: usize, i: usize, op: &MbarOp, owner: usize) {
    let name = op_name(&op.kind);
    let span = ctx.at(t, i);
    let owner_name = ctx.cta_name(owner);
    match ctx.reach_cta(t, owner) {
        Reach::OtherCluster => ctx.push(
            Diagnostic::error("F0323", format!("`{}` is in CTA `{owner_name}`, outside this thread's cluster", op.bar))
                .with_primary(span, "unreachable mbarrier")
                .with_note("ref §2.1: only CTAs of one cluster share shared memory"),
        ),
        Reach::PeerCta => match op.kind {
            MbarKind::Wait { .. } => ctx.push(
                Diagnostic::error("F0320", format!("waiting on `{}`, an mbarrier of another CTA", op.bar))
                    .with_primary(span, format!("`{owner_name}` owns this barrier"))
                    .with_note(
                        "ref §4.1, §10 #7: only the owning CTA waits; peers may only arrive or update the tx-count",
                    )
                    .with_help("wait on a barrier in your own CTA and let the peer arrive on it"),
            ),
            MbarKind::Init { .. } | MbarKind::Inval => ctx.push(
                Diagnostic::error("F0322", format!("`{name}` on another CTA's mbarrier"))
                    .with_primary(span, format!("`{owner_name}` owns this barrier"))
                    .with_note("ref §4.1: a peer's barrier allows only arrive, arrive_drop, expect_tx and complete_tx"),
            ),
            _ => {
                if op.space != Some(AddrSpace::SharedCluster) {
                    ctx.push(Diagnostic::error("F0321", format!("local-form `{name}` on `{}`, an mbarrier of CTA `{owner_name}`", op.bar))
                            .with_primary(span, "this form only addresses the own CTA's barriers")
                            .with_note("ref §4.1, §10 #6: a `.shared::cta` or generic address outside the own CTA's window is undefined behaviour")
                            .with_help("use the `.shared::cluster` form"));
                }
                state_on_cluster_form(ctx, t, i, op);
            }
        },
        _ => {
            if op.space == Some(AddrSpace::SharedCluster) {
                state_on_cluster_form(ctx, t, i, op);
            }
        }
    }
}

/// A `.shared::cluster` arrive returns no state: its destination must be the sink `_`.
fn state_on_cluster_form(ctx: &mut Ctx, t: usize, i: usize, op: &MbarOp) {
    if let MbarKind::Arrive { state: Some(reg), .. } = &op.kind {
        ctx.push(
            Diagnostic::error(
                "F0322",
                format!("arrive on a `.shared::cluster` barrier cannot return a state into `{reg}`"),
            )
            .with_primary(ctx.at(t, i), "state of a remote-form arrive")
            .with_note("ref §4.1, §4.3: the state is only returned for a local barrier")
            .with_help("write the sink `_` (or omit it)"),
        );
    }
}
