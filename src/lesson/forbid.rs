//! Syntactic goal tests: which instructions a program contains.

use super::types::Forbid;
use crate::model::{Fence, FenceSem, Instr, MbarKind, ProxyKind, Scope, Sem, Sugar};

/// Whether `instr` belongs to the forbidden class.
pub fn is_forbidden(instr: &Instr, class: Forbid) -> bool {
    // A guard or a byte range does not change what the instruction is.
    if let Instr::Wait { instr, .. } | Instr::Guarded { instr, .. } | Instr::Ranged { instr, .. } = instr {
        return is_forbidden(instr, class);
    }
    match class {
        Forbid::MembarGpu => lowers_to_wide_membar(instr),
        Forbid::FenceSc => matches!(
            instr,
            Instr::Fence(Fence::Thread { sem: Some(FenceSem::Sc), .. })
                | Instr::Fence(Fence::Thread {
                    sugar: Some(Sugar::Membar | Sugar::ThreadFence | Sugar::ThreadFenceBlock),
                    ..
                })
        ),
        Forbid::ThreadFence => matches!(instr, Instr::Fence(Fence::Thread { .. })),
        Forbid::ProxyFence => matches!(instr, Instr::Fence(Fence::Proxy(_))),
        Forbid::CtaBarrier => matches!(instr, Instr::Bar { .. }),
        Forbid::ClusterBarrier => matches!(instr, Instr::ClusterArrive { .. } | Instr::ClusterWait),
        Forbid::CtaScopeMbarrier => match instr {
            Instr::Mbar(op) if is_arrive_or_wait(&op.kind) => op.scope.unwrap_or(Scope::Cta) == Scope::Cta,
            _ => false,
        },
        Forbid::ReleaseAcquireMbarrier => match instr {
            // Both default to the synchronizing semantics: `.release` arrives, `.acquire` waits.
            Instr::Mbar(op) if is_arrive_or_wait(&op.kind) => !matches!(op.sem, Some(Sem::Relaxed)),
            _ => false,
        },
        Forbid::ProxyFenceHalf => matches!(instr, Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { .. }))),
    }
}

/// The `max-scope:` spelling of a scope.
pub fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

pub fn scope_from_name(name: &str) -> Option<Scope> {
    [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys].into_iter().find(|s| scope_name(*s) == name)
}

fn is_arrive_or_wait(kind: &MbarKind) -> bool {
    matches!(kind, MbarKind::Arrive { .. } | MbarKind::Wait { .. })
}

/// The scope `instr` synchronizes at, written or by default (reference §1.1, §4.4, §5.2);
/// `None` when it takes no scope: weak accesses, proxy fences, CTA barriers, async copies.
/// Shared-memory clamping (§1.2) is deliberately not applied: a learner who writes `.sys`
/// on a shared access asked for more than the handoff needs.
pub fn synchronizing_scope(instr: &Instr) -> Option<Scope> {
    instr.facts().sync.and_then(|sync| sync.scope)
}

/// Instructions in programs, labels excluded (a `wait` spin counts once).
pub fn instruction_count<'a>(programs: impl IntoIterator<Item = &'a Vec<Instr>>) -> usize {
    programs.into_iter().flatten().filter(|i| !matches!(i, Instr::Label(_))).count()
}

/// Whether one compiler (CUDA 13.0, sm_90a) emits a GPU- or system-wide `MEMBAR` for
/// `instr`, per `sass-lowering-sm90a.md`. This is a cost fact, not a memory-model rule.
/// Forms the table does not list are taken to emit none; `.cluster` stores and atomics
/// are assumed to lower like the measured `.cluster` fences and arrives (GPU-wide).
fn lowers_to_wide_membar(instr: &Instr) -> bool {
    let wide = |scope: Option<Scope>| scope.is_some_and(|s| s >= Scope::Cluster);
    match instr {
        Instr::Fence(Fence::Thread { sem, scope, restrict, .. }) => {
            let releases = !matches!(sem, Some(FenceSem::Acquire));
            restrict.is_none() && releases && *scope >= Scope::Cluster
        }
        // Only the unqualified form was measured with a GPU-wide MEMBAR.
        Instr::Fence(Fence::Proxy(ProxyKind::Async { space: None })) => true,
        Instr::Mbar(op) => match op.kind {
            MbarKind::Arrive { .. } => !matches!(op.sem, Some(Sem::Relaxed)) && wide(op.scope),
            _ => false,
        },
        Instr::ClusterArrive { sem } => !matches!(sem, Some(Sem::Relaxed)),
        Instr::St { sem: Some(Sem::Release), scope, .. } => wide(*scope),
        Instr::Atom { sem: Some(Sem::Release | Sem::AcqRel), scope, .. } => wide(*scope),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MbarOp, SyncRestrict};

    fn fence(sem: Option<FenceSem>, scope: Scope, restrict: Option<SyncRestrict>) -> Instr {
        Instr::Fence(Fence::Thread { sem, scope, restrict, sugar: None })
    }

    fn arrive(sem: Option<Sem>, scope: Option<Scope>) -> Instr {
        Instr::Mbar(MbarOp {
            kind: MbarKind::Arrive { count: None, expect_tx: None, no_complete: false, drop: false, state: None },
            sem,
            scope,
            space: None,
            bar: "bar".into(),
        })
    }

    #[test]
    fn membar_gpu_follows_the_sm90a_table() {
        let gpu = |i: &Instr| is_forbidden(i, Forbid::MembarGpu);
        assert!(gpu(&fence(Some(FenceSem::Release), Scope::Cluster, None)));
        assert!(gpu(&fence(None, Scope::Gpu, None)));
        assert!(!gpu(&fence(Some(FenceSem::Release), Scope::Cta, None)));
        assert!(!gpu(&fence(Some(FenceSem::Acquire), Scope::Gpu, None)));
        assert!(!gpu(&fence(Some(FenceSem::Release), Scope::Cluster, Some(SyncRestrict::SharedCta))));
        assert!(gpu(&arrive(None, Some(Scope::Cluster))));
        assert!(gpu(&arrive(Some(Sem::Release), Some(Scope::Cluster))));
        assert!(!gpu(&arrive(None, None)), "default arrive is .release.cta");
        assert!(!gpu(&arrive(Some(Sem::Relaxed), Some(Scope::Cluster))));
        assert!(gpu(&Instr::ClusterArrive { sem: None }));
        assert!(!gpu(&Instr::ClusterArrive { sem: Some(Sem::Relaxed) }));
        assert!(gpu(&Instr::Fence(Fence::Proxy(ProxyKind::Async { space: None }))));
    }

    #[test]
    fn a_guard_does_not_hide_a_forbidden_instruction() {
        let sc = fence(Some(FenceSem::Sc), Scope::Gpu, None);
        let guarded = Instr::Guarded { pred: "p".into(), negated: false, instr: Box::new(sc) };
        assert!(is_forbidden(&guarded, Forbid::FenceSc));
        assert!(is_forbidden(&guarded, Forbid::MembarGpu));
        assert!(!is_forbidden(&guarded, Forbid::ProxyFence));
    }

    #[test]
    fn mbarrier_classes_see_defaults() {
        let wait = |sem, scope| {
            Instr::Mbar(MbarOp {
                kind: MbarKind::Wait { blocking: true, parity: true, phase: crate::model::Operand::Imm(0), dst: None },
                sem,
                scope,
                space: None,
                bar: "bar".into(),
            })
        };
        assert!(is_forbidden(&arrive(None, None), Forbid::CtaScopeMbarrier), "default arrive is .cta");
        assert!(!is_forbidden(&arrive(Some(Sem::Relaxed), Some(Scope::Cluster)), Forbid::CtaScopeMbarrier));
        assert!(is_forbidden(&wait(None, None), Forbid::CtaScopeMbarrier));
        assert!(is_forbidden(&arrive(None, Some(Scope::Cluster)), Forbid::ReleaseAcquireMbarrier), "default arrive is .release");
        assert!(is_forbidden(&wait(None, None), Forbid::ReleaseAcquireMbarrier), "default wait is .acquire");
        assert!(!is_forbidden(&wait(Some(Sem::Relaxed), Some(Scope::Cta)), Forbid::ReleaseAcquireMbarrier));
        let half = Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { sem: FenceSem::Release, restrict: SyncRestrict::SharedCta }));
        assert!(is_forbidden(&half, Forbid::ProxyFenceHalf));
        assert!(!is_forbidden(&Instr::Fence(Fence::Proxy(ProxyKind::Async { space: None })), Forbid::ProxyFenceHalf));
    }

    #[test]
    fn scopes_include_defaults() {
        assert_eq!(synchronizing_scope(&arrive(None, None)), Some(Scope::Cta));
        assert_eq!(synchronizing_scope(&fence(Some(FenceSem::Sc), Scope::Sys, None)), Some(Scope::Sys));
        let weak = Instr::St { sem: None, scope: None, space: None, proxy: crate::model::Proxy::Generic, addr: "x".into(), src: crate::model::Operand::Imm(1) };
        assert_eq!(synchronizing_scope(&weak), None);
        let atom = Instr::Atom { op: crate::model::AtomOp::Add, sem: None, scope: None, space: None, dst: None, addr: "x".into(), args: vec![] };
        assert_eq!(synchronizing_scope(&atom), Some(Scope::Gpu), "atomics default to .gpu");
        assert_eq!(synchronizing_scope(&Instr::Fence(Fence::Proxy(ProxyKind::Async { space: None }))), None);
    }

    #[test]
    fn classes_match_their_instructions() {
        let sc = Instr::Fence(Fence::Thread { sem: Some(FenceSem::Sc), scope: Scope::Gpu, restrict: None, sugar: None });
        assert!(is_forbidden(&sc, Forbid::FenceSc));
        assert!(!is_forbidden(&fence(None, Scope::Gpu, None), Forbid::FenceSc));
        assert!(is_forbidden(&sc, Forbid::ThreadFence));
        assert!(!is_forbidden(&sc, Forbid::ProxyFence));
        let wrapped = Instr::Wait { instr: Box::new(arrive(None, Some(Scope::Gpu))), until: None };
        assert!(is_forbidden(&wrapped, Forbid::MembarGpu));
        let prog = vec![Instr::Label("L".into()), sc.clone(), Instr::Exit];
        assert_eq!(instruction_count([&prog]), 2);
    }
}
