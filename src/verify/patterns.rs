//! Legal code that matches a classic bug of ref §10; each finding is a warning naming it.

use std::collections::HashSet;

use super::context::{Ctx, Reach};
use crate::diag::Diagnostic;
use crate::model::{Fence, FenceSem, Instr, MbarKind, MbarOp, Object, Scope, Sem, Use, WgmmaOp};

pub fn check(ctx: &mut Ctx) {
    init_published(ctx);
    scopes_towards_peers(ctx);
    for t in 0..ctx.s.threads.len() {
        wgmma_order(ctx, t);
        groups_of_own(ctx, t);
    }
}

/// The mbarriers an instruction signals from its thread (arrive, tx updates, async completions).
fn signalled_bar(instr: &Instr) -> Vec<&str> {
    // `cp.async.mbarrier.arrive` on another CTA's barrier is already an error (F0321).
    if matches!(instr, Instr::CpAsyncMbarArrive { .. }) {
        return Vec::new();
    }
    let signals = |how: Use| matches!(how, Use::Arrive | Use::Transaction);
    instr.facts().names.into_iter().filter(|n| n.object == Object::Mbarrier && signals(n.how)).map(|n| n.name).collect()
}

/// ref §4.2, §10 #27: a barrier initialised by a thread and signalled from another CTA needs
/// `fence.mbarrier_init.release.cluster` and a cluster barrier before the remote use.
fn init_published(ctx: &mut Ctx) {
    let mut remote: HashSet<&str> = HashSet::new();
    for (t, _, instr) in ctx.instrs() {
        for bar in signalled_bar(instr) {
            if ctx.mbarrier(bar).is_some_and(|b| ctx.reach_cta(t, b.cta) == Reach::PeerCta) {
                remote.insert(bar);
            }
        }
    }
    let mut found = Vec::new();
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
            let Instr::Mbar(MbarOp { kind: MbarKind::Init { .. }, bar, .. }) = instr else { continue };
            let fenced = thread.program.iter().skip(i + 1).any(|p| matches!(p, Instr::Fence(Fence::MbarrierInit)));
            if remote.contains(bar.as_str()) && !fenced {
                found.push((t, i, bar.clone()));
            }
        }
    }
    for (t, i, bar) in found {
        ctx.push(
            Diagnostic::warning("F0414", format!("initialisation of `{bar}` is not published to the other CTAs that signal it"))
                .with_primary(ctx.at(t, i), "no `fence.mbarrier_init.release.cluster` after this init")
                .with_note("ref §4.2, §10 #27: a remote arrive or complete-tx may reach the barrier before its init")
                .with_help("follow the init with `fence.mbarrier_init.release.cluster`, `barrier.cluster.arrive.relaxed`, `barrier.cluster.wait`"),
        );
    }
}

fn is_release_fence(instr: &Instr) -> Option<Scope> {
    match instr {
        Instr::Fence(Fence::Thread {
            sem: None | Some(FenceSem::Sc | FenceSem::AcqRel | FenceSem::Release),
            scope,
            ..
        }) => Some(*scope),
        _ => None,
    }
}

/// ref §1.11, §10 #1–#3: a release towards another CTA's barrier, or a wait on a barrier
/// other CTAs' threads signal, at `.cta` scope does not synchronize the two CTAs.
fn scopes_towards_peers(ctx: &mut Ctx) {
    let mut signalled_from: Vec<(&str, usize)> = Vec::new();
    let mut found = Vec::new();
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        let mut last_release_fence: Option<Scope> = None;
        for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
            let inner = match instr.unwrapped() {
                Instr::Wait { instr, .. } => instr.unwrapped(),
                other => other,
            };
            if let Some(scope) = is_release_fence(inner) {
                last_release_fence = Some(scope);
            }
            let peer = |bar: &str| ctx.mbarrier(bar).filter(|b| ctx.reach_cta(t, b.cta) == Reach::PeerCta);
            match inner {
                Instr::Mbar(MbarOp { kind: MbarKind::Arrive { .. }, sem, scope, bar, .. }) if peer(bar).is_some() => {
                    signalled_from.push((bar, t));
                    let narrow = scope.is_none_or(|s| s == Scope::Cta);
                    match sem {
                        None | Some(Sem::Release) if narrow => found.push((t, i, "F0418", format!("release arrive on `{bar}` at `.cta` scope, but `{bar}` belongs to another CTA"), "ref §1.11, §10 #1: the owner CTA's waiter is outside this release's scope", "write `.release.cluster` here and `.acquire.cluster` on the wait")),
                        Some(Sem::Relaxed) if narrow => found.push((t, i, "F0418", format!("relaxed arrive on `{bar}` at `.cta` scope, but `{bar}` belongs to another CTA"), "ref §1.6: a fence before the arrive supplies the release, but the arrive itself must include the owner CTA's waiter", "write `.relaxed.cluster` here (and a cluster-scope fence before it)")),
                        Some(Sem::Relaxed) if last_release_fence == Some(Scope::Cta) => found.push((t, i, "F0418", format!("the release fence before this arrive on `{bar}` is only `.cta`"), "ref §1.6, §10 #3: the fence is the first operation of the release pattern, so its scope must cover the waiter", "use `fence.release.cluster` (or the restricted `fence.release.sync_restrict::shared::cta.cluster`)")),
                        _ => {}
                    }
                }
                Instr::StAsync { mbar, .. } if peer(mbar).is_some() => signalled_from.push((mbar, t)),
                _ => {}
            }
        }
    }
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
            let inner = match instr.unwrapped() {
                Instr::Wait { instr, .. } => instr.unwrapped(),
                other => other,
            };
            let Instr::Mbar(MbarOp { kind: MbarKind::Wait { .. }, scope, bar, .. }) = inner else { continue };
            let from_peer =
                signalled_from.iter().any(|(b, from)| *b == bar && ctx.thread_cta(*from) != ctx.thread_cta(t));
            if from_peer && scope.is_none_or(|s| s == Scope::Cta) {
                found.push((
                    t,
                    i,
                    "F0419",
                    format!("`.cta` wait on `{bar}`, which threads of another CTA signal"),
                    "ref §1.11, §6.5, §10 #2: the signalling threads are outside this acquire's scope",
                    "write `.acquire.cluster` (or `.relaxed.cluster` and a cluster acquire fence)",
                ));
            }
        }
    }
    for (t, i, code, message, note, help) in found {
        ctx.push(
            Diagnostic::warning(code, message)
                .with_primary(ctx.at(t, i), "scope too narrow")
                .with_note(note)
                .with_help(help),
        );
    }
}

/// ref §7, §10 #11/#12: `wgmma.fence` before the first MMA; accumulators untouched until a
/// `wgmma.wait_group`.
fn wgmma_order(ctx: &mut Ctx, t: usize) {
    let Some(thread) = ctx.s.threads.get(t) else { return };
    let mut fenced = false;
    let mut pending: HashSet<&str> = HashSet::new();
    let mut found = Vec::new();
    for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
        match instr {
            Instr::Wgmma(WgmmaOp::Fence) => fenced = true,
            Instr::Wgmma(WgmmaOp::MmaAsync { acc, .. }) => {
                if !fenced {
                    found.push((i, "F0415", "`wgmma.mma_async` without a `wgmma.fence` before it".to_string(), "ref §7, §10 #11: undefined behaviour; `wgmma.fence.sync.aligned` orders prior register accesses first"));
                    fenced = true;
                }
                pending.insert(acc);
            }
            Instr::Wgmma(WgmmaOp::WaitGroup { .. }) => pending.clear(),
            other => {
                if let Some(reg) = other.facts().reads.into_iter().find(|r| pending.contains(r)) {
                    found.push((
                        i,
                        "F0416",
                        format!("accumulator `{reg}` is read before `wgmma.wait_group`"),
                        "ref §7, §10 #12: the MMA may still be writing it; this is undefined behaviour",
                    ));
                    pending.remove(reg);
                }
            }
        }
    }
    for (i, code, message, note) in found {
        ctx.push(
            Diagnostic::warning(code, message).with_primary(ctx.at(t, i), "missing wgmma ordering").with_note(note),
        );
    }
}

/// ref §6.1, §6.3, §10 #23: async-groups belong to the thread that commits them, and a
/// group wait covers only committed groups.
fn groups_of_own(ctx: &mut Ctx, t: usize) {
    let Some(thread) = ctx.s.threads.get(t) else { return };
    let (mut copies, mut bulk) = (false, false);
    let (mut uncommitted_copies, mut uncommitted_bulk) = (false, false);
    let mut foreign = Vec::new();
    let mut uncommitted = Vec::new();
    for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
        match instr {
            Instr::CpAsync { .. } => (copies, uncommitted_copies) = (true, true),
            Instr::Bulk { mbar: None, .. } => (bulk, uncommitted_bulk) = (true, true),
            Instr::CpAsyncWait { .. } | Instr::CpAsyncWaitAll if !copies => foreign.push((i, "cp.async")),
            Instr::CpAsyncCommit | Instr::CpAsyncWaitAll => uncommitted_copies = false,
            Instr::BulkCommit => uncommitted_bulk = false,
            Instr::BulkWait { .. } if !bulk => foreign.push((i, "cp.async.bulk")),
            Instr::CpAsyncWait { .. } if uncommitted_copies => uncommitted.push((i, "cp.async.commit_group")),
            Instr::BulkWait { .. } if uncommitted_bulk => uncommitted.push((i, "cp.async.bulk.commit_group")),
            _ => {}
        }
    }
    for (i, kind) in foreign {
        ctx.push(
            Diagnostic::warning("F0417", format!("this thread waits for `{kind}` groups it never issued"))
                .with_primary(ctx.at(t, i), "groups are per thread")
                .with_note("ref §6.1, §6.3, §10 #23: a wait covers only the executing thread's own copies")
                .with_help("wait in the thread that issued the copies, then synchronize with a barrier"),
        );
    }
    for (i, commit) in uncommitted {
        ctx.push(
            Diagnostic::warning("F0420", "copies issued since the last commit are not covered by this wait")
                .with_primary(ctx.at(t, i), format!("no `{commit}` before the wait"))
                .with_note("ref §6.1, §6.3: a group wait counts committed groups only")
                .with_help(format!("add `{commit}` after the copies")),
        );
    }
}
