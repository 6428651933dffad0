//! Syntactic goal tests: which instructions a program contains.

use super::types::Forbid;
use crate::model::{Fence, FenceSem, Instr, MbarKind, ProxyKind, Scope, Sem, Sugar};

/// Whether `instr` belongs to the forbidden class.
pub fn is_forbidden(instr: &Instr, class: Forbid) -> bool {
    if let Instr::Wait { instr, .. } = instr {
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
    }
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
