//! Fences, `bar`, `barrier.cluster`, and the relaxed-arrive/wait patterns that need a
//! fence to synchronize (ref §1.5, §2.2, §5).

use super::context::Ctx;
use crate::diag::Diagnostic;
use crate::model::{BarKind, Fence, FenceSem, Instr, MbarKind, MbarOp, Operand, Scope, Sem, SyncRestrict};

pub fn check(ctx: &mut Ctx) {
    for (t, i, instr) in ctx.instrs().collect::<Vec<_>>() {
        match instr {
            Instr::Fence(Fence::Thread { sem, scope, restrict: Some(r), .. }) => {
                restricted_fence(ctx, t, i, *sem, *scope, *r)
            }
            Instr::Bar { kind, id, count, .. } => bar(ctx, t, i, *kind, id, count.as_ref()),
            _ => {}
        }
    }
    relaxed_patterns(ctx);
}

fn restricted_fence(ctx: &mut Ctx, t: usize, i: usize, sem: Option<FenceSem>, scope: Scope, r: SyncRestrict) {
    let (want_sem, name, form) = match r {
        SyncRestrict::SharedCta => {
            (FenceSem::Release, "sync_restrict::shared::cta", "fence.release.sync_restrict::shared::cta.cluster")
        }
        SyncRestrict::SharedCluster => (
            FenceSem::Acquire,
            "sync_restrict::shared::cluster",
            "fence.acquire.sync_restrict::shared::cluster.cluster",
        ),
    };
    if sem != Some(want_sem) || scope != Scope::Cluster {
        ctx.push(
            Diagnostic::error("F0316", format!("`.{name}` fence with the wrong semantics or scope"))
                .with_primary(ctx.at(t, i), "not a valid restricted fence")
                .with_note(
                    "ref §2.2: `::cta` restricts a release, `::cluster` restricts an acquire, both at `.cluster` scope",
                )
                .with_help(format!("write `{form}`")),
        );
    }
}

fn bar(ctx: &mut Ctx, t: usize, i: usize, kind: BarKind, id: &Operand, count: Option<&Operand>) {
    if let Operand::Imm(n) = id {
        if !(0..=15).contains(n) {
            ctx.push(
                Diagnostic::error("F0325", format!("barrier id {n} is out of range"))
                    .with_primary(ctx.operand(t, i, 0), "ids are 0 to 15")
                    .with_note("ref §5.1: a CTA has 16 named barriers"),
            );
        }
    }
    match count {
        Some(Operand::Imm(n)) if *n <= 0 || n % 32 != 0 => {
            ctx.push(
                Diagnostic::error("F0325", format!("barrier thread count {n} is not a positive multiple of 32"))
                    .with_primary(ctx.operand(t, i, 1), "barriers count whole warps")
                    .with_note("ref §5.1: the thread count is a multiple of the warp size"),
            );
        }
        None if kind == BarKind::Arrive => {
            ctx.push(
                Diagnostic::error("F0325", "`bar.arrive` needs a thread count")
                    .with_primary(ctx.at(t, i), "write `bar.arrive id, count`"),
            );
        }
        _ => {}
    }
}

fn is_release_fence(instr: &Instr) -> bool {
    matches!(
        instr,
        Instr::Fence(Fence::Thread { sem: None | Some(FenceSem::Sc | FenceSem::AcqRel | FenceSem::Release), .. })
    )
}

fn is_acquire_fence(instr: &Instr) -> bool {
    matches!(
        instr,
        Instr::Fence(Fence::Thread { sem: None | Some(FenceSem::Sc | FenceSem::AcqRel | FenceSem::Acquire), .. })
    )
}

/// Ordinary (generic, non-TMEM) data writes and reads.
fn writes_data(ctx: &Ctx, instr: &Instr) -> bool {
    match instr {
        Instr::St { addr, .. } | Instr::Atom { addr, .. } => !is_tmem(ctx, addr),
        _ => false,
    }
}

fn reads_data(ctx: &Ctx, instr: &Instr) -> bool {
    match instr {
        Instr::Ld { addr, .. } | Instr::Atom { addr, dst: Some(_), .. } => !is_tmem(ctx, addr),
        Instr::Wait { instr, .. } => reads_data(ctx, instr),
        _ => false,
    }
}

fn is_tmem(ctx: &Ctx, name: &str) -> bool {
    ctx.location(name).is_some_and(|l| matches!(l.space, crate::model::Space::Tmem(_)))
}

/// Acquire-side synchronization after which a later read is no longer "unsynchronized".
fn acquires(instr: &Instr) -> bool {
    match instr {
        Instr::Bar { kind: BarKind::Sync | BarKind::Red, .. } | Instr::ClusterWait => true,
        Instr::Mbar(MbarOp { kind: MbarKind::Wait { .. }, .. }) => true,
        Instr::Wait { instr, .. } => acquires(instr),
        Instr::Ld { sem: Some(Sem::Acquire), .. } | Instr::Atom { sem: Some(Sem::Acquire | Sem::AcqRel), .. } => true,
        other => is_acquire_fence(other),
    }
}

/// A release fence or a release operation: writes before it were published through it, so a
/// later relaxed arrive (such as the trailing cluster barrier that keeps a CTA alive for its
/// peers, ref §10 #35) is not the data's only hand-off.
fn publishes_earlier_writes(instr: &Instr) -> bool {
    match instr {
        Instr::Mbar(MbarOp { kind: MbarKind::Arrive { .. }, sem, .. }) => matches!(sem, None | Some(Sem::Release | Sem::AcqRel)),
        Instr::St { sem: Some(Sem::Release), .. } | Instr::Atom { sem: Some(Sem::Release | Sem::AcqRel), .. } => true,
        Instr::ClusterArrive { sem } => matches!(sem, None | Some(Sem::Release)),
        Instr::Bar { kind: BarKind::Sync | BarKind::Red | BarKind::Arrive, .. } => true,
        other => is_release_fence(other),
    }
}

/// Per instruction: whether a data write happened since the last release before it.
fn writes_since(ctx: &Ctx, program: &[Instr]) -> Vec<bool> {
    let mut pending = false;
    program
        .iter()
        .map(Instr::unwrapped)
        .map(|p| {
            let before = pending;
            if publishes_earlier_writes(p) {
                pending = false;
            } else if writes_data(ctx, p) {
                pending = true;
            }
            before
        })
        .collect()
}

/// Per instruction: whether a data read follows it before the next instruction that `stops`.
fn reads_until(ctx: &Ctx, program: &[Instr], stops: fn(&Instr) -> bool) -> Vec<bool> {
    let mut pending = false;
    let mut out: Vec<bool> = program
        .iter()
        .map(Instr::unwrapped)
        .rev()
        .map(|p| {
            let after = pending;
            if stops(p) {
                pending = false;
            } else if reads_data(ctx, p) {
                pending = true;
            }
            after
        })
        .collect();
    out.reverse();
    out
}

fn relaxed_patterns(ctx: &mut Ctx) {
    let mut found = Vec::new();
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        let program = &thread.program;
        let write_pending = writes_since(ctx, program);
        let read_pending = reads_until(ctx, program, is_acquire_fence);
        let read_before_acquire = reads_until(ctx, program, acquires);
        for (i, instr) in program.iter().enumerate() {
            let unfenced_write = || write_pending.get(i).copied().unwrap_or(false);
            let unfenced_read = || read_pending.get(i).copied().unwrap_or(false);
            let inner = match instr.unwrapped() {
                Instr::Wait { instr, .. } => instr.unwrapped(),
                other => other,
            };
            match inner {
                Instr::Mbar(MbarOp { kind: MbarKind::Arrive { .. }, sem: Some(Sem::Relaxed), .. })
                    if unfenced_write() =>
                {
                    found.push((
                        t,
                        i,
                        "F0405",
                        "relaxed `mbarrier.arrive` after data writes with no release fence",
                        "the arrive does not publish those writes",
                        "use the default `.release` or put `fence.release` (or `fence.acq_rel`) before the arrive",
                    ));
                }
                Instr::ClusterArrive { sem: Some(Sem::Relaxed) } if unfenced_write() => {
                    found.push((
                        t,
                        i,
                        "F0407",
                        "relaxed `barrier.cluster.arrive` after data writes with no release fence",
                        "the arrive does not publish those writes (ref §5.2, §10 #39)",
                        "use the default `.release` arrive or put a release fence before it",
                    ));
                }
                Instr::Mbar(MbarOp { kind: MbarKind::Wait { .. }, sem: Some(Sem::Relaxed), .. }) if unfenced_read() => {
                    found.push((
                        t,
                        i,
                        "F0406",
                        "relaxed mbarrier wait followed by data reads with no acquire fence",
                        "later reads are not ordered after the wait",
                        "use the default `.acquire` or put `fence.acquire` (or `fence.acq_rel`) after the wait",
                    ));
                }
                Instr::Bar { kind: BarKind::Arrive, .. } if read_before_acquire.get(i).copied().unwrap_or(false) => {
                    found.push((
                        t,
                        i,
                        "F0404",
                        "thread reads data after `bar.arrive` without waiting",
                        "`bar.arrive` only signals; it acquires nothing (ref §5.1, §10 #37)",
                        "use `bar.sync` (or a second barrier) before reading",
                    ));
                }
                _ => {}
            }
        }
    }
    for (t, i, code, message, label, help) in found {
        ctx.push(Diagnostic::warning(code, message).with_primary(ctx.at(t, i), label).with_help(help));
    }
}
